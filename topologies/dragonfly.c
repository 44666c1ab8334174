/*
 * dragonfly — J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven, Highly-Scalable Dragonfly
 * Topology", ISCA 2008.  Groups of a routers linked all-to-all, p hosts and h global links per router; with
 * g = a*h + 1 groups every pair of groups is joined by exactly one global link, so N = a*p*(a*h + 1) hosts
 * with router radix p + (a - 1) + h.
 *
 * Numbering: g groups of a routers g{G}r{R}; host h{n} hangs off router g{n / (a*p)}r{(n / p) mod a}
 * (group-major, then router-major); every node carries its group in g_node.group.  Links: the host links,
 * then each group's local links (r1 < r2, all pairs), then the global links.  So a router's ports are its p
 * hosts, the a-1 other routers of its group in order, then its h global links in the order they were added.
 * Global ports: group G has a*h of them, j = 0..a*h-1, port j on router j / h.  Port j links to group
 * (G + o_j) mod g, where the offsets o_j come in m = floor(a*h / (g-1)) full rounds o = 1..g-1 (each round
 * joins every pair of groups once), followed by the r = a*h mod (g-1) leftover ports at offsets 1..r/2 and
 * g-r/2..g-1 (and, r odd, g/2 for an even g or one edge of a near-perfect matching for an odd g: see
 * df_offsets()).  The k-th port of G at offset o is linked to the k-th port of G + o at offset g - o.  Hence
 * with g = a*h + 1 (the default) every pair of groups has exactly one global link, router R of G reaching
 * groups G + R*h + 1 .. G + R*h + h (the "consecutive" arrangement); with fewer groups every pair has floor
 * or ceil(a*h / (g-1)) links and each group uses all a*h ports, except that when g and a*h mod (g-1) are both
 * odd (g*a*h ports, an odd number, cannot all pair up) group (g+1)/2 leaves its last port unused.  Global
 * links are added from the lower-numbered group, in port order.  They cost n_nodes + 1 in routing (more than
 * any path of local hops), so the least-cost tables are the dragonfly's minimal routes: one global link
 * (local-global-local, at most 3 router-to-router hops), never a path with two global links even when it has
 * as few hops; only when link failures leave no working global link between two groups do routes take two.
 */
#include "topologies/dragonfly.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "topologies/topo.h"

static const char *const routing_names[] = {"minimal", "valiant", "ugal", NULL};

/* g is a x h + 1 unless given: the most groups in which every pair is linked directly.  a and h come first in
 * the table, so they are read by now. */
static int dragonfly_g(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct topo_dragonfly *t = base;
    int64_t gmax = scn_mul_sat(t->a, t->h) + 1;
    if (gmax > SCN_MAX_COUNT)
        gmax = SCN_MAX_COUNT;
    long long g = gmax;
    if (v && setting_val_int(c, v, p, 2, gmax, &g) < 0)
        return -1;
    t->g = (int)g;
    return 0;
}

static void dragonfly_g_dump(cJSON *o, const struct setting *f, const void *base)
{
    cJSON_AddNumberToObject(o, f->name, ((const struct topo_dragonfly *)base)->g);
}

/* A class of links: its own, else the object's "link". */
static int dragonfly_class(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return scn_topo_link_class(c, f, v, p, base, &((const struct topo_dragonfly *)base)->link);
}

#define DF_COUNT(name_, member_, help_)                                                                           \
    SET_INT(name_, struct topo_dragonfly, member_, 1, SCN_MAX_COUNT, NULL, help_), .flags = SETTING_REQUIRED,   \
        .what = "an integer of at least 1"
#define DF_CLASS(name_, member_, help_)                                                                           \
    SET_TOPO_LINK_HOOKS(name_, struct topo_dragonfly, member_, SETTING_ALWAYS, dragonfly_class, scn_topo_link_dump, \
                        help_)

static const struct setting dragonfly_fields[] = {
    {SET_TOPO_TYPE},
    {DF_COUNT("a", a, "Routers per group")},
    {DF_COUNT("p", p, "Hosts per router")},
    {DF_COUNT("h", h, "Global links per router")},
    {.name = "g", .kind = SETTING_CUSTOM, .flags = SETTING_ALWAYS, .parse = dragonfly_g, .dump = dragonfly_g_dump,
     .help = "Groups, 2 .. a x h + 1 (the default: one global link between every pair)"},
    {SET_TOPO_LINK_HOOKS("link", struct topo_dragonfly, link, 0, scn_topo_link_parse, NULL,
                         "Every class's link, unless given apart")},
    {DF_CLASS("host_link", host_link, "Host to router")},
    {DF_CLASS("local_link", local_link, "Between the routers of a group")},
    {DF_CLASS("global_link", global_link, "Between groups")},
    {SET_ENUM("routing", struct topo_dragonfly, routing, routing_names, "minimal",
              "minimal, valiant or ugal (models/route.c)")},
    {0},
};
static const struct setting_group dragonfly_group = {.path = "topology", .fields = dragonfly_fields};

static int dragonfly_parse(struct setting_ctx *c, const cJSON *tj, const char *path, void *cfg, int64_t *hosts,
                           const char **formula)
{
    const struct topo_dragonfly *t = cfg;
    if (settings_parse(c, &dragonfly_group, tj, path, cfg) < 0)
        return -1;
    *hosts = scn_mul_sat(scn_mul_sat(t->a, t->p), t->g);
    *formula = " (a x p x g)";
    return 0;
}

static void dragonfly_dump(const void *cfg, cJSON *o)
{
    settings_dump(&dragonfly_group, cfg, o);
}

static void dragonfly_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_dragonfly *t = cfg;
    double a = t->a, g = t->g, h = t->h;
    c->switches = a * g;
    c->links = hosts + g * a * (a - 1) / 2 + g * a * h / 2;
    c->columns = a * g;
}

static void dragonfly_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_dragonfly *t = cfg;
    const struct scn_link *l = topo_link_or(&t->host_link, &t->link);
    for (int i = 0; i < n_hosts; i++)
        rate[i] = (double)l->rate_bps;
}

/*
 * The far end of every global port of a dragonfly group, by the circulant
 * arrangement of topo.h: off[G * a*h + j] is the group offset o (1..g-1) that
 * port j of group G links to (group (G + o) mod g), or 0 for a port left
 * unused.  Returns the array (caller frees), or NULL when out of memory.
 */
static int *df_offsets(int a, int h, int groups)
{
    const int ports = a * h, m = ports / (groups - 1), r = ports % (groups - 1);
    int *off = calloc((size_t)groups * (size_t)ports, sizeof *off);
    if (!off)
        return NULL;
    for (int G = 0; G < groups; G++) {
        int *o = &off[(size_t)G * (size_t)ports];
        int j = 0;
        for (int t = 0; t < m; t++)
            for (int d = 1; d < groups; d++)
                o[j++] = d;
        /*
         * The r leftover ports: offsets +-1, +-2, ... (each pair of groups at
         * most one more link); an odd r takes the half-way offset g/2 when g
         * is even, else one edge of a matching along the Hamiltonian cycle of
         * step d = (g-1)/2 (coprime with g): the cycle visits X at position
         * i = -2X mod g; positions 2k and 2k+1 are matched, and the group at
         * the last position, (g+1)/2, is left with one port unused.
         */
        for (int d = 1; d <= r / 2; d++)
            o[j++] = d;
        if (r % 2 && groups % 2 == 0) {
            o[j++] = groups / 2;
        } else if (r % 2) {
            int d = (groups - 1) / 2, i = (int)((2LL * (groups - G)) % groups);
            if (i % 2 == 0 && i < groups - 1)
                o[j++] = d;
            else if (i % 2 == 1)
                o[j++] = groups - d;
        }
        for (int d = r / 2; d >= 1; d--)
            o[j++] = groups - d;
    }
    return off;
}

/* Returns SCN_OK or SCN_EUSAGE. */
static int dragonfly_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_dragonfly *t = cfg;
    int rc;
    if ((rc = topo_need(s, err, errlen, "a", t->a, 1)) || (rc = topo_need(s, err, errlen, "p", t->p, 1)) ||
        (rc = topo_need(s, err, errlen, "h", t->h, 1)))
        return rc;
    const long long A = t->a, P = t->p, H = t->h, G = t->g;
    if (G < 2 || G > A * H + 1)
        return topo_fail(s, err, errlen, "topology.g", "expected an integer from 2 to %lld (a x h + 1), got %lld",
                    A * H + 1, G);
    long long n_hosts = A * P * G, n_routers = A * G;
    if ((rc = topo_check_size(s, err, errlen, n_hosts + n_routers)))
        return rc;
    const struct scn_link *hl = topo_link_or(&t->host_link, &t->link), *ll = topo_link_or(&t->local_link, &t->link),
                          *gl = topo_link_or(&t->global_link, &t->link);
    int *off = df_offsets((int)A, (int)H, (int)G);
    if (!off)
        return topo_fail(s, err, errlen, "topology", "out of memory wiring the dragonfly");

    uint32_t h0 = topo_add_hosts(g, (int)n_hosts);
    uint32_t r0 = g->n_nodes;
    char name[SCN_NAME_MAX];
    for (long long grp = 0; grp < G; grp++) {
        for (long long r = 0; r < A; r++) {
            snprintf(name, sizeof name, "g%lldr%lld", grp, r);
            uint32_t id = graph_add_node(g, name, SCN_NODE_SWITCH); /* may move g->nodes */
            g->nodes[id].group = (int32_t)grp;
        }
    }
    for (long long n = 0; n < n_hosts; n++) {
        g->nodes[h0 + n].group = (int32_t)(n / (A * P));
        graph_add_link(g, h0 + (uint32_t)n, r0 + (uint32_t)(n / P), hl);
    }
    for (long long grp = 0; grp < G; grp++)
        for (long long r1 = 0; r1 < A; r1++)
            for (long long r2 = r1 + 1; r2 < A; r2++)
                graph_add_link(g, r0 + (uint32_t)(grp * A + r1), r0 + (uint32_t)(grp * A + r2), ll);
    /*
     * A global link costs more than the longest path of local hops, so least
     * cost means fewest global links first: minimal routes are local-global-local.
     */
    const uint32_t global_cost = (uint32_t)(n_hosts + n_routers + 1);
    const long long ports = A * H;
    for (long long grp = 0; grp < G; grp++) {
        const int *o = &off[grp * ports];
        for (long long j = 0; j < ports; j++) {
            long long other = (grp + o[j]) % G;
            if (o[j] == 0 || other < grp)
                continue; /* unused, or added from the lower-numbered group */
            /* The k-th port of grp at offset o pairs with the k-th port of other at offset g - o. */
            int k = 0;
            for (long long i = 0; i < j; i++)
                k += o[i] == o[j];
            const int *q = &off[other * ports];
            long long j2 = 0;
            for (;; j2++)
                if (q[j2] == G - o[j] && k-- == 0)
                    break;
            uint32_t li = graph_add_link(g, r0 + (uint32_t)(grp * A + j / H), r0 + (uint32_t)(other * A + j2 / H), gl);
            g->links[li].cost = global_cost;
        }
    }
    free(off);
    return SCN_OK;
}

static const struct topo_ops dragonfly_ops = {
    .load = {.cfg_size = sizeof(struct topo_dragonfly), .parse = dragonfly_parse, .dump = dragonfly_dump,
             .size = dragonfly_size, .host_rates = dragonfly_host_rates},
    .build = dragonfly_build,
    .layout = TOPO_LAYOUT_GROUPS,
};
MODULE_REGISTER(topo_kind, "dragonfly", &dragonfly_ops);

const struct topo_dragonfly *topo_dragonfly_of(const struct scenario *s)
{
    return topo_ops_of(s) == &dragonfly_ops ? s->topo.cfg : NULL;
}
