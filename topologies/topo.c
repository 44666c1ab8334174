/*
 * topo — the topology generators (star, dumbbell, leaf-spine, fat-tree,
 * dragonfly, custom), the checks on the built graph, and its dot/JSON printers
 * (see topo.h).
 *
 * Fat-tree: M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data
 * Center Network Architecture", SIGCOMM 2008.  k-port switches: k pods, each
 * of k/2 edge (ToR) and k/2 aggregation switches fully meshed; (k/2)^2 cores,
 * core group j wired to aggregation switch j of every pod; k^3/4 hosts.
 *
 * Dragonfly: J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven,
 * Highly-Scalable Dragonfly Topology", ISCA 2008.  Groups of a routers linked
 * all-to-all, p hosts and h global links per router; with g = a*h + 1 groups
 * every pair of groups is joined by exactly one global link, so
 * N = a*p*(a*h + 1) hosts with router radix p + (a - 1) + h.
 */
#include "topologies/topo.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/units.h"
#include "topologies/routing.h"

/* Generators refuse shapes beyond this many nodes before allocating anything. */
#define TOPO_MAX_NODES (1LL << 24)

/* Writes "FILE: PATH: message" into err.  Returns SCN_EUSAGE. */
static int fail(const struct scenario *s, char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char msg[SCN_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen)
        snprintf(err, errlen, "%s: %s: %s", s->file, path, msg);
    return SCN_EUSAGE;
}

/* Returns l, or fallback when l has no rate (the loader did not fill it). */
static const struct scn_link *link_or(const struct scn_link *l, const struct scn_link *fallback)
{
    return l->rate_bps > 0 ? l : fallback;
}

/* Adds a node named prefix{i}.  Returns its id. */
static uint32_t add_named(struct graph *g, const char *prefix, long long i, enum scn_node_kind kind)
{
    char name[SCN_NAME_MAX];
    snprintf(name, sizeof name, "%s%lld", prefix, i);
    return graph_add_node(g, name, kind);
}

/* Adds hosts h0..h{n-1}.  Returns the node id of h0. */
static uint32_t add_hosts(struct graph *g, int n)
{
    uint32_t first = g->n_nodes;
    for (int i = 0; i < n; i++)
        add_named(g, "h", i, SCN_NODE_HOST);
    return first;
}

/* Checks that a count is at least min.  Returns SCN_OK, or SCN_EUSAGE with a message. */
static int need(const struct scenario *s, char *err, size_t errlen, const char *field, int v, int min)
{
    if (v >= min)
        return SCN_OK;
    char path[64];
    snprintf(path, sizeof path, "topology.%s", field);
    return fail(s, err, errlen, path, "expected an integer >= %d, got %d", min, v);
}

/* Refuses a shape with too many nodes before it is built.  Returns SCN_OK or SCN_EUSAGE. */
static int check_size(const struct scenario *s, char *err, size_t errlen, long long nodes)
{
    if (nodes <= TOPO_MAX_NODES)
        return SCN_OK;
    return fail(s, err, errlen, "topology", "expected at most %lld nodes, this shape has %lld", TOPO_MAX_NODES, nodes);
}

/* star: hosts around one switch s0.  Returns SCN_OK or SCN_EUSAGE. */
static int build_star(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    int rc = need(s, err, errlen, "hosts", t->hosts, 1);
    if (rc || (rc = check_size(s, err, errlen, (long long)t->hosts + 1)))
        return rc;
    uint32_t h0 = add_hosts(g, t->hosts);
    uint32_t sw = graph_add_node(g, "s0", SCN_NODE_SWITCH);
    for (int i = 0; i < t->hosts; i++)
        graph_add_link(g, h0 + (uint32_t)i, sw, &t->link);
    return SCN_OK;
}

/* dumbbell: left hosts on s0, right hosts on s1, s0-s1 the bottleneck.  Returns SCN_OK or SCN_EUSAGE. */
static int build_dumbbell(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    int rc;
    if ((rc = need(s, err, errlen, "left", t->left, 1)) || (rc = need(s, err, errlen, "right", t->right, 1)) ||
        (rc = check_size(s, err, errlen, (long long)t->left + t->right + 2)))
        return rc;
    int n = t->left + t->right;
    uint32_t h0 = add_hosts(g, n);
    uint32_t s0 = graph_add_node(g, "s0", SCN_NODE_SWITCH);
    uint32_t s1 = graph_add_node(g, "s1", SCN_NODE_SWITCH);
    for (int i = 0; i < n; i++)
        graph_add_link(g, h0 + (uint32_t)i, i < t->left ? s0 : s1, &t->link);
    graph_add_link(g, s0, s1, &t->bottleneck);
    return SCN_OK;
}

/* leaf-spine: hosts_per_leaf hosts on each leaf, every leaf linked to every spine.  Returns SCN_OK or SCN_EUSAGE. */
static int build_leaf_spine(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    int rc;
    if ((rc = need(s, err, errlen, "leaves", t->leaves, 1)) || (rc = need(s, err, errlen, "spines", t->spines, 1)) ||
        (rc = need(s, err, errlen, "hosts_per_leaf", t->hosts_per_leaf, 1)))
        return rc;
    long long n_hosts = (long long)t->leaves * t->hosts_per_leaf;
    if ((rc = check_size(s, err, errlen, n_hosts + t->leaves + t->spines)))
        return rc;
    const struct scn_link *hl = link_or(&t->host_link, &t->link), *fl = link_or(&t->fabric_link, &t->link);
    uint32_t h0 = add_hosts(g, (int)n_hosts);
    uint32_t leaf0 = g->n_nodes;
    for (int i = 0; i < t->leaves; i++)
        add_named(g, "leaf", i, SCN_NODE_SWITCH);
    uint32_t spine0 = g->n_nodes;
    for (int j = 0; j < t->spines; j++)
        add_named(g, "spine", j, SCN_NODE_SWITCH);
    for (long long n = 0; n < n_hosts; n++)
        graph_add_link(g, h0 + (uint32_t)n, leaf0 + (uint32_t)(n / t->hosts_per_leaf), hl);
    for (int i = 0; i < t->leaves; i++)
        for (int j = 0; j < t->spines; j++)
            graph_add_link(g, leaf0 + (uint32_t)i, spine0 + (uint32_t)j, fl);
    return SCN_OK;
}

/*
 * fat-tree, by k or by the generalized shape (see topo.h for the wiring and
 * what oversubscription does).  Returns SCN_OK or SCN_EUSAGE.
 */
static int build_fat_tree(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    int P, T, A, HPT, C, rc;
    if (t->k != 0) {
        if (t->k < 2 || t->k % 2)
            return fail(s, err, errlen, "topology.k", "expected an even integer >= 2, got %d", t->k);
        P = t->k;
        T = A = HPT = t->k / 2;
        C = (t->k / 2) * (t->k / 2);
    } else {
        if ((rc = need(s, err, errlen, "pods", t->pods, 1)) ||
            (rc = need(s, err, errlen, "tors_per_pod", t->tors_per_pod, 1)) ||
            (rc = need(s, err, errlen, "aggs_per_pod", t->aggs_per_pod, 1)) ||
            (rc = need(s, err, errlen, "hosts_per_tor", t->hosts_per_tor, 1)) ||
            (rc = need(s, err, errlen, "cores", t->cores, 0)))
            return rc;
        P = t->pods;
        T = t->tors_per_pod;
        A = t->aggs_per_pod;
        HPT = t->hosts_per_tor;
        C = t->cores;
    }
    long long n_tors = (long long)P * T, n_aggs = (long long)P * A, n_hosts = n_tors * HPT;
    if ((rc = check_size(s, err, errlen, n_hosts + n_tors + n_aggs + C)))
        return rc;

    const struct scn_link *hl = link_or(&t->host_link, &t->link), *fl = link_or(&t->fabric_link, &t->link);
    struct scn_link up = *fl;
    if (t->oversubscription > 1) {
        up.rate_bps = (int64_t)((double)fl->rate_bps / t->oversubscription);
        if (up.rate_bps < 1)
            up.rate_bps = 1;
    }

    uint32_t h0 = add_hosts(g, (int)n_hosts);
    uint32_t tor0 = g->n_nodes;
    for (long long i = 0; i < n_tors; i++)
        add_named(g, "tor", i, SCN_NODE_SWITCH);
    uint32_t agg0 = g->n_nodes;
    for (long long i = 0; i < n_aggs; i++)
        add_named(g, "agg", i, SCN_NODE_SWITCH);
    uint32_t core0 = g->n_nodes;
    for (int c = 0; c < C; c++)
        add_named(g, "core", c, SCN_NODE_SWITCH);

    for (long long n = 0; n < n_hosts; n++)
        graph_add_link(g, h0 + (uint32_t)n, tor0 + (uint32_t)(n / HPT), hl);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < A; j++)
                graph_add_link(g, tor0 + (uint32_t)(p * T + i), agg0 + (uint32_t)(p * A + j), &up);
    /*
     * Agg j's cores: a block of C/A consecutive cores when they divide evenly
     * (the k-ary case: j*(k/2) .. j*(k/2)+k/2-1), else every A-th core from j.
     */
    bool blocks = C % A == 0;
    for (int p = 0; p < P; p++) {
        for (int j = 0; j < A; j++) {
            uint32_t agg = agg0 + (uint32_t)(p * A + j);
            if (blocks) {
                for (int c = j * (C / A); c < (j + 1) * (C / A); c++)
                    graph_add_link(g, agg, core0 + (uint32_t)c, fl);
            } else {
                for (int c = j; c < C; c += A)
                    graph_add_link(g, agg, core0 + (uint32_t)c, fl);
            }
        }
    }
    return SCN_OK;
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

/* dragonfly (see topo.h for the numbering and the global wiring).  Returns SCN_OK or SCN_EUSAGE. */
static int build_dragonfly(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    int rc;
    if ((rc = need(s, err, errlen, "a", t->df_a, 1)) || (rc = need(s, err, errlen, "p", t->df_p, 1)) ||
        (rc = need(s, err, errlen, "h", t->df_h, 1)))
        return rc;
    const long long A = t->df_a, P = t->df_p, H = t->df_h, G = t->df_g;
    if (G < 2 || G > A * H + 1)
        return fail(s, err, errlen, "topology.g", "expected an integer from 2 to %lld (a x h + 1), got %lld",
                    A * H + 1, G);
    long long n_hosts = A * P * G, n_routers = A * G;
    if ((rc = check_size(s, err, errlen, n_hosts + n_routers)))
        return rc;
    const struct scn_link *hl = link_or(&t->host_link, &t->link), *ll = link_or(&t->local_link, &t->link),
                          *gl = link_or(&t->global_link, &t->link);
    int *off = df_offsets((int)A, (int)H, (int)G);
    if (!off)
        return fail(s, err, errlen, "topology", "out of memory wiring the dragonfly");

    uint32_t h0 = add_hosts(g, (int)n_hosts);
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

/* custom: the nodes and links as listed.  Returns SCN_OK or SCN_EUSAGE. */
static int build_custom(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    const struct scn_topology *t = &s->topo;
    char path[64];
    if (t->n_nodes < 1 || !t->nodes)
        return fail(s, err, errlen, "topology.nodes", "expected a non-empty array of nodes");
    for (int i = 0; i < t->n_nodes; i++) {
        const char *name = t->nodes[i].name;
        int32_t dup = graph_find(g, name);
        if (dup >= 0) {
            snprintf(path, sizeof path, "topology.nodes.%d.name", i);
            return fail(s, err, errlen, path, "expected a unique node name, got \"%s\" (already topology.nodes.%d)",
                        name, dup);
        }
        graph_add_node(g, name, t->nodes[i].kind);
    }
    int *degree = calloc((size_t)t->n_nodes, sizeof *degree);
    if (!degree)
        return fail(s, err, errlen, "topology", "out of memory");
    int rc = SCN_OK;
    for (int i = 0; i < t->n_links && rc == SCN_OK; i++) {
        const struct scn_custom_link *l = &t->links[i];
        snprintf(path, sizeof path, "topology.links.%d", i);
        if (l->a < 0 || l->a >= t->n_nodes || l->b < 0 || l->b >= t->n_nodes)
            rc = fail(s, err, errlen, path, "expected two nodes of topology.nodes, got node indices %d and %d",
                      l->a, l->b);
        else if (l->a == l->b)
            rc = fail(s, err, errlen, path, "expected two different nodes, got \"%s\" at both ends",
                      t->nodes[l->a].name);
        else {
            degree[l->a]++;
            degree[l->b]++;
            graph_add_link(g, (uint32_t)l->a, (uint32_t)l->b, &l->link);
        }
    }
    /* A NIC has one port: a host with two links would need multipath the host models do not have. */
    for (int i = 0; i < t->n_nodes && rc == SCN_OK; i++) {
        if (t->nodes[i].kind == SCN_NODE_HOST && degree[i] != 1) {
            snprintf(path, sizeof path, "topology.nodes.%d", i);
            rc = fail(s, err, errlen, path, "host \"%s\" must have exactly one link, has %d", t->nodes[i].name,
                      degree[i]);
        }
    }
    free(degree);
    if (rc == SCN_OK && g->n_hosts == 0)
        rc = fail(s, err, errlen, "topology.nodes", "expected at least one node of kind \"host\", got none");
    return rc;
}

/*
 * Checks the finished, routed graph: every host reaches every other.  Returns
 * SCN_OK, or SCN_EUSAGE naming the first pair that cannot.
 */
static int check_connected(const struct scenario *s, const struct graph *g, char *err, size_t errlen)
{
    const uint32_t H = g->n_hosts;
    const uint16_t *p;
    for (uint32_t a = 0; a < H; a++) {
        for (uint32_t b = 0; b < H; b++)
            if (b != a && graph_nexthops(g, g->host_node[a], b, &p) == 0)
                return fail(s, err, errlen, "topology", "host \"%s\" cannot reach host \"%s\" (the network is "
                            "disconnected)", g->nodes[g->host_node[a]].name, g->nodes[g->host_node[b]].name);
    }
    return SCN_OK;
}

int topo_build(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    graph_init(g);
    int rc;
    switch (s->topo.type) {
    case SCN_TOPO_STAR:
        rc = build_star(s, g, err, errlen);
        break;
    case SCN_TOPO_DUMBBELL:
        rc = build_dumbbell(s, g, err, errlen);
        break;
    case SCN_TOPO_LEAF_SPINE:
        rc = build_leaf_spine(s, g, err, errlen);
        break;
    case SCN_TOPO_FAT_TREE:
        rc = build_fat_tree(s, g, err, errlen);
        break;
    case SCN_TOPO_CUSTOM:
        rc = build_custom(s, g, err, errlen);
        break;
    case SCN_TOPO_DRAGONFLY:
        rc = build_dragonfly(s, g, err, errlen);
        break;
    default:
        rc = fail(s, err, errlen, "topology.type", "unknown topology type %d", (int)s->topo.type);
        break;
    }
    if (rc != SCN_OK)
        goto out;

    if (graph_finish(g) < 0) {
        rc = fail(s, err, errlen, "topology", "out of memory laying out %u links", g->n_links);
        goto out;
    }
    /* Port sets are uint16: a wider switch cannot be routed (and is no realistic switch). */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].n_ports > UINT16_MAX) {
            rc = fail(s, err, errlen, "topology", "node \"%s\" has %u ports, more than the %u supported",
                      g->nodes[i].name, g->nodes[i].n_ports, (unsigned)UINT16_MAX);
            goto out;
        }
    }
    unsigned long long table = (unsigned long long)g->n_nodes * routing_columns(g) * sizeof(uint32_t);
    if (table > TOPO_MAX_TABLE_BYTES) {
        rc = fail(s, err, errlen, "topology", "routing tables for %u nodes x %u destination switches would take "
                  "%llu MB, more than the %llu MB allowed", g->n_nodes, routing_columns(g), table >> 20,
                  TOPO_MAX_TABLE_BYTES >> 20);
        goto out;
    }
    if (routing_compute(g) < 0) {
        rc = fail(s, err, errlen, "topology", "out of memory computing routing tables (%llu MB)", table >> 20);
        goto out;
    }
    rc = check_connected(s, g, err, errlen);
out:
    if (rc != SCN_OK)
        graph_free(g);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Printers                                                                  */

/* Prints s as a double-quoted string, escaping what JSON (and dot) require. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void topo_write_dot(FILE *f, const struct graph *g)
{
    char rate[32], delay[32];
    fprintf(f, "graph topology {\n");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        fputs("    ", f);
        put_quoted(f, g->nodes[i].name);
        fprintf(f, " [shape=%s];\n", g->nodes[i].kind == SCN_NODE_HOST ? "ellipse" : "box");
    }
    for (uint32_t i = 0; i < g->n_links; i++) {
        const struct g_link *l = &g->links[i];
        fputs("    ", f);
        put_quoted(f, g->nodes[l->a].name);
        fputs(" -- ", f);
        put_quoted(f, g->nodes[l->b].name);
        fprintf(f, " [label=\"%s, %s\"%s];\n", units_fmt_rate(l->spec.rate_bps, rate, sizeof rate),
                units_fmt_time(l->spec.delay_ps, delay, sizeof delay), l->down ? ", style=dashed" : "");
    }
    fprintf(f, "}\n");
}

void topo_write_json(FILE *f, const struct graph *g)
{
    char buf[32];
    fprintf(f, "{\n  \"nodes\": [");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct g_node *n = &g->nodes[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        put_quoted(f, n->name);
        if (n->kind == SCN_NODE_HOST)
            fprintf(f, ", \"kind\": \"host\", \"host\": %d", n->host);
        else
            fprintf(f, ", \"kind\": \"switch\", \"switch\": %d", n->sw);
        if (n->group >= 0)
            fprintf(f, ", \"group\": %d", n->group);
        fprintf(f, ", \"ports\": %u}", n->n_ports);
    }
    fprintf(f, "%s],\n  \"links\": [", g->n_nodes ? "\n  " : "");
    for (uint32_t i = 0; i < g->n_links; i++) {
        const struct g_link *l = &g->links[i];
        fprintf(f, "%s\n    {\"a\": ", i ? "," : "");
        put_quoted(f, g->nodes[l->a].name);
        fputs(", \"b\": ", f);
        put_quoted(f, g->nodes[l->b].name);
        if (g->ports)
            fprintf(f, ", \"a_port\": %u, \"b_port\": %u", l->port_a - g->nodes[l->a].first_port,
                    l->port_b - g->nodes[l->b].first_port);
        fprintf(f, ", \"rate\": \"%s\"", units_fmt_rate(l->spec.rate_bps, buf, sizeof buf));
        fprintf(f, ", \"delay\": \"%s\"", units_fmt_time(l->spec.delay_ps, buf, sizeof buf));
        if (l->spec.length_mm)
            fprintf(f, ", \"length\": \"%s\"", units_fmt_length(l->spec.length_mm, buf, sizeof buf));
        if (l->down)
            fputs(", \"down\": true", f);
        fputc('}', f);
    }
    fprintf(f, "%s]\n}\n", g->n_links ? "\n  " : "");
}
