/* Topology: generator shapes and wiring, routing tables, ECMP choice, errors, printers. */
#include "tests/tests.h"
#include "topologies/partition.h"
#include "topologies/routing.h"
#include "topologies/topo.h"
#include "topologies/custom.h"
#include "topologies/dragonfly.h"
#include "topologies/dumbbell.h"
#include "topologies/fat_tree.h"
#include "topologies/leaf_spine.h"
#include "topologies/star.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GBPS 1000000000LL

/* The settings of the scenarios mk() makes: each its own slot, as no test holds more at once. */
union cfgs {
    struct topo_star star;
    struct topo_dumbbell db;
    struct topo_leaf_spine ls;
    struct topo_fat_tree ft;
    struct topo_dragonfly df;
    struct topo_custom cu;
};
static union cfgs cfg_slots[8];
static int cfg_next;
#define CFG(s) ((union cfgs *)(s)->topo.cfg)

/* A scenario with only a topology of the given type, 100Gbps / 1us links. */
static void mk(struct scenario *s, const char *type)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "t.json");
    s->topo.type = module_find("topology", type);
    CU_ASSERT(s->topo.type >= 0);
    union cfgs *c = &cfg_slots[cfg_next++ % 8];
    memset(c, 0, sizeof *c);
    s->topo.cfg = c;
    const struct scn_link l = {.rate_bps = 100 * GBPS, .delay_ps = 1000000};
    if (strcmp(type, "star") == 0)
        c->star.link = l;
    else if (strcmp(type, "dumbbell") == 0)
        c->db.link = l;
    else if (strcmp(type, "leaf-spine") == 0)
        c->ls.link = l;
    else if (strcmp(type, "fat-tree") == 0)
        c->ft.link = l, c->ft.oversubscription = 1.0;
    else if (strcmp(type, "dragonfly") == 0)
        c->df.link = l;
}

/* Builds s into g; a failure is reported with its message. */
static int build(const struct scenario *s, struct graph *g)
{
    char err[SCN_ERR_MAX] = "";
    int rc = topo_build(s, g, err, sizeof err);
    if (rc != SCN_OK)
        fprintf(stderr, "\ntopo_build: %s\n", err);
    CU_ASSERT_EQUAL(rc, SCN_OK);
    return rc;
}

/* Node id by name; a missing node fails the test and returns 0. */
static uint32_t nid(const struct graph *g, const char *name)
{
    int32_t id = graph_find(g, name);
    CU_ASSERT(id >= 0);
    return id >= 0 ? (uint32_t)id : 0;
}

/* Number of nodes whose name starts with prefix followed by a digit. */
static uint32_t count_prefix(const struct graph *g, const char *prefix)
{
    uint32_t n = 0, len = (uint32_t)strlen(prefix);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (strncmp(g->nodes[i].name, prefix, len) == 0 && g->nodes[i].name[len] >= '0' &&
            g->nodes[i].name[len] <= '9')
            n++;
    return n;
}

/* Links on the path from host a to host b taking the first next hop each time, or -1 if it breaks off. */
static int path_len(const struct graph *g, uint32_t a, uint32_t b)
{
    uint32_t n = g->host_node[a], dst = g->host_node[b];
    int hops = 0;
    while (n != dst) {
        const uint16_t *p;
        if (graph_nexthops(g, n, b, &p) == 0 || hops > (int)g->n_nodes)
            return -1;
        n = test_peer_of(g, n, p[0]);
        hops++;
    }
    return hops;
}

/* Number of equal-cost next hops at the node named `at` towards host h. */
static uint32_t n_next(const struct graph *g, const char *at, uint32_t h)
{
    const uint16_t *p;
    return graph_nexthops(g, nid(g, at), h, &p);
}

static void test_star(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "star");
    CFG(&s)->star.hosts = 5;
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_nodes, 6);
    CU_ASSERT_EQUAL(g.n_hosts, 5);
    CU_ASSERT_EQUAL(g.n_switches, 1);
    CU_ASSERT_EQUAL(g.n_links, 5);
    CU_ASSERT_EQUAL(g.n_ports, 10);
    uint32_t s0 = nid(&g, "s0");
    CU_ASSERT_EQUAL(g.nodes[s0].kind, SCN_NODE_SWITCH);
    CU_ASSERT_EQUAL(g.nodes[s0].sw, 0);
    CU_ASSERT_EQUAL(g.nodes[s0].n_ports, 5);
    CU_ASSERT_EQUAL(g.host_node[4], nid(&g, "h4"));
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "h4")].host, 4);
    CU_ASSERT_EQUAL(graph_port_to(&g, s0, nid(&g, "h3")), 3);
    CU_ASSERT_EQUAL(path_len(&g, 0, 4), 2);
    graph_free(&g);
}

static void test_dumbbell(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "dumbbell");
    CFG(&s)->db.left = 3;
    CFG(&s)->db.right = 2;
    CFG(&s)->db.bottleneck = (struct scn_link){.rate_bps = 10 * GBPS, .delay_ps = 2000000};
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_nodes, 7);
    CU_ASSERT_EQUAL(g.n_hosts, 5);
    CU_ASSERT_EQUAL(g.n_switches, 2);
    CU_ASSERT_EQUAL(g.n_links, 6);
    uint32_t s0 = nid(&g, "s0"), s1 = nid(&g, "s1");
    CU_ASSERT_EQUAL(graph_port_to(&g, s0, s1), 3); /* after the three host ports */
    CU_ASSERT_EQUAL(graph_port_to(&g, s1, s0), 2);
    CU_ASSERT_EQUAL(g.ports[g.nodes[s0].first_port + 3].rate_bps, 10 * GBPS);
    CU_ASSERT_EQUAL(g.ports[g.nodes[s0].first_port + 3].delay_ps, 2000000);
    CU_ASSERT_EQUAL(test_peer_of(&g, nid(&g, "h2"), 0), s0);
    CU_ASSERT_EQUAL(test_peer_of(&g, nid(&g, "h3"), 0), s1);
    CU_ASSERT_EQUAL(path_len(&g, 0, 4), 3);
    CU_ASSERT_EQUAL(path_len(&g, 0, 1), 2);
    graph_free(&g);
}

static void test_leaf_spine(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "leaf-spine");
    CFG(&s)->ls.leaves = 4;
    CFG(&s)->ls.spines = 2;
    CFG(&s)->ls.hosts_per_leaf = 8;
    CFG(&s)->ls.host_link = (struct scn_link){.rate_bps = 25 * GBPS, .delay_ps = 1000000};
    CFG(&s)->ls.fabric_link = (struct scn_link){.rate_bps = 100 * GBPS, .delay_ps = 1000000};
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_hosts, 32);
    CU_ASSERT_EQUAL(g.n_switches, 6);
    CU_ASSERT_EQUAL(count_prefix(&g, "leaf"), 4);
    CU_ASSERT_EQUAL(count_prefix(&g, "spine"), 2);
    CU_ASSERT_EQUAL(g.n_links, 32 + 4 * 2);
    uint32_t h9 = nid(&g, "h9"), leaf1 = nid(&g, "leaf1");
    CU_ASSERT_EQUAL(graph_port_to(&g, h9, leaf1), 0);
    CU_ASSERT_EQUAL(graph_port_to(&g, h9, nid(&g, "leaf0")), -1);
    CU_ASSERT_EQUAL(graph_port_to(&g, leaf1, h9), 1);
    CU_ASSERT_EQUAL(g.nodes[leaf1].n_ports, 10);
    CU_ASSERT_EQUAL(g.ports[g.nodes[h9].first_port].rate_bps, 25 * GBPS);
    CU_ASSERT_EQUAL(g.ports[g.nodes[leaf1].first_port + 8].rate_bps, 100 * GBPS);
    CU_ASSERT_EQUAL(n_next(&g, "leaf0", 9), 2);
    CU_ASSERT_EQUAL(n_next(&g, "spine1", 9), 1);
    CU_ASSERT_EQUAL(path_len(&g, 0, 9), 4);
    graph_free(&g);
}

/* Checks the k-ary fat-tree's counts and that every switch has k ports. */
static void check_fat_tree_k(int k)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = k;
    if (build(&s, &g))
        return;
    uint32_t k3 = (uint32_t)(k * k * k);
    CU_ASSERT_EQUAL(g.n_hosts, k3 / 4);
    CU_ASSERT_EQUAL(count_prefix(&g, "tor"), (uint32_t)(k * k / 2));
    CU_ASSERT_EQUAL(count_prefix(&g, "agg"), (uint32_t)(k * k / 2));
    CU_ASSERT_EQUAL(count_prefix(&g, "core"), (uint32_t)(k * k / 4));
    CU_ASSERT_EQUAL(g.n_switches, (uint32_t)(k * k * 5 / 4));
    /* host links k^3/4, ToR-agg k*(k/2)^2, agg-core k*(k/2)^2 */
    CU_ASSERT_EQUAL(g.n_links, k3 / 4 + 2 * (uint32_t)(k * (k / 2) * (k / 2)));
    for (uint32_t i = 0; i < g.n_nodes; i++)
        CU_ASSERT_EQUAL(g.nodes[i].n_ports, g.nodes[i].kind == SCN_NODE_HOST ? 1u : (uint32_t)k);
    /* h{n} under tor{n/(k/2)} */
    char name[32];
    uint32_t n = k3 / 4 - 1;
    snprintf(name, sizeof name, "tor%u", n / (uint32_t)(k / 2));
    CU_ASSERT_EQUAL(test_peer_of(&g, g.host_node[n], 0), nid(&g, name));
    graph_free(&g);
}

static void test_fat_tree_counts(void)
{
    check_fat_tree_k(4);
    check_fat_tree_k(8);
    check_fat_tree_k(16);
}

/* Leaf-spine counts against the formulas: L*H hosts, L + S switches, L*H + L*S links. */
static void test_leaf_spine_counts(void)
{
    const int shapes[][3] = {{2, 2, 1}, {8, 4, 16}, {16, 8, 32}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        struct scenario s;
        struct graph g;
        mk(&s, "leaf-spine");
        CFG(&s)->ls.leaves = shapes[i][0];
        CFG(&s)->ls.spines = shapes[i][1];
        CFG(&s)->ls.hosts_per_leaf = shapes[i][2];
        if (build(&s, &g))
            return;
        uint32_t L = (uint32_t)shapes[i][0], S = (uint32_t)shapes[i][1], H = (uint32_t)shapes[i][2];
        CU_ASSERT_EQUAL(g.n_hosts, L * H);
        CU_ASSERT_EQUAL(g.n_switches, L + S);
        CU_ASSERT_EQUAL(g.n_links, L * H + L * S);
        CU_ASSERT_EQUAL(g.nodes[nid(&g, "spine0")].n_ports, L);
        CU_ASSERT_EQUAL(path_len(&g, 0, L * H - 1), L > 1 ? 4 : 2);
        graph_free(&g);
    }
}

static void test_fat_tree_wiring(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 4;
    if (build(&s, &g))
        return;
    uint32_t tor0 = nid(&g, "tor0"), agg1 = nid(&g, "agg1"), agg3 = nid(&g, "agg3"), core0 = nid(&g, "core0");
    CU_ASSERT_EQUAL(graph_port_to(&g, tor0, nid(&g, "h0")), 0);
    CU_ASSERT_EQUAL(graph_port_to(&g, tor0, nid(&g, "h1")), 1);
    CU_ASSERT_EQUAL(graph_port_to(&g, tor0, nid(&g, "agg0")), 2);
    CU_ASSERT_EQUAL(graph_port_to(&g, tor0, agg1), 3);
    CU_ASSERT_EQUAL(graph_port_to(&g, tor0, nid(&g, "agg2")), -1); /* agg2 is in pod 1 */
    CU_ASSERT_EQUAL(graph_port_to(&g, nid(&g, "h0"), tor0), 0);
    /* agg j of each pod: cores j*(k/2) .. j*(k/2)+k/2-1 */
    CU_ASSERT_EQUAL(graph_port_to(&g, agg1, nid(&g, "core2")), 2);
    CU_ASSERT_EQUAL(graph_port_to(&g, agg1, nid(&g, "core3")), 3);
    CU_ASSERT_EQUAL(graph_port_to(&g, agg1, core0), -1);
    CU_ASSERT(graph_port_to(&g, agg3, nid(&g, "core2")) >= 0);
    CU_ASSERT_EQUAL(graph_port_to(&g, core0, nid(&g, "agg0")), 0);
    CU_ASSERT_EQUAL(graph_port_to(&g, core0, nid(&g, "agg2")), 1);
    CU_ASSERT_EQUAL(graph_port_to(&g, core0, nid(&g, "agg6")), 3);
    graph_free(&g);
}

/* The HPCC evaluation's 320-host fat-tree: 5 pods of 4 ToRs (16 hosts each) and 4 aggregation switches, 16
 * cores. */
static int build_hpcc_fabric(struct scenario *s, struct graph *g)
{
    mk(s, "fat-tree");
    CFG(s)->ft.pods = 5;
    CFG(s)->ft.tors_per_pod = 4;
    CFG(s)->ft.aggs_per_pod = 4;
    CFG(s)->ft.hosts_per_tor = 16;
    CFG(s)->ft.cores = 16;
    return build(s, g);
}

static void test_fat_tree_generalized(void)
{
    struct scenario s;
    struct graph g;
    if (build_hpcc_fabric(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_hosts, 320);
    CU_ASSERT_EQUAL(count_prefix(&g, "tor"), 20);
    CU_ASSERT_EQUAL(count_prefix(&g, "agg"), 20);
    CU_ASSERT_EQUAL(count_prefix(&g, "core"), 16);
    CU_ASSERT_EQUAL(g.n_links, 320 + 5 * 4 * 4 + 5 * 16);
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "tor7")].n_ports, 20);
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "agg7")].n_ports, 8);
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "core15")].n_ports, 5);
    CU_ASSERT_EQUAL(test_peer_of(&g, nid(&g, "h17"), 0), nid(&g, "tor1"));
    CU_ASSERT_EQUAL(path_len(&g, 0, 319), 6);
    CU_ASSERT_EQUAL(n_next(&g, "tor0", 319), 4);
    CU_ASSERT_EQUAL(n_next(&g, "agg0", 319), 4);
    graph_free(&g);

    /* Cores that do not divide among the aggs go round-robin: core c to agg (c mod 4) of every pod. */
    mk(&s, "fat-tree");
    CFG(&s)->ft.pods = 2;
    CFG(&s)->ft.tors_per_pod = 2;
    CFG(&s)->ft.aggs_per_pod = 4;
    CFG(&s)->ft.hosts_per_tor = 1;
    CFG(&s)->ft.cores = 6;
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_links, 4 + 2 * 2 * 4 + 2 * 6);
    uint32_t agg0 = nid(&g, "agg0"), agg2 = nid(&g, "agg2");
    CU_ASSERT_EQUAL(g.nodes[agg0].n_ports, 2 + 2);
    CU_ASSERT(graph_port_to(&g, agg0, nid(&g, "core0")) >= 0);
    CU_ASSERT(graph_port_to(&g, agg0, nid(&g, "core4")) >= 0);
    CU_ASSERT_EQUAL(g.nodes[agg2].n_ports, 2 + 1);
    CU_ASSERT(graph_port_to(&g, agg2, nid(&g, "core2")) >= 0);
    CU_ASSERT(graph_port_to(&g, nid(&g, "agg5"), nid(&g, "core5")) >= 0);
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "core0")].n_ports, 2);
    graph_free(&g);
}

static void test_fat_tree_oversubscription(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 4;
    CFG(&s)->ft.oversubscription = 3.0;
    if (build(&s, &g))
        return;
    uint32_t tor0 = nid(&g, "tor0"), agg0 = nid(&g, "agg0");
    CU_ASSERT_EQUAL(g.n_links, 48); /* same shape */
    CU_ASSERT_EQUAL(g.ports[g.nodes[tor0].first_port + 0].rate_bps, 100 * GBPS);
    CU_ASSERT_EQUAL(g.ports[g.nodes[tor0].first_port + 2].rate_bps, 33333333333LL);
    CU_ASSERT_EQUAL(g.ports[g.nodes[agg0].first_port + 0].rate_bps, 33333333333LL);
    CU_ASSERT_EQUAL(g.ports[g.nodes[agg0].first_port + 2].rate_bps, 100 * GBPS);
    graph_free(&g);
}

/* Every host reaches every other; a host's own column is empty. */
static void check_all_reach(const struct graph *g)
{
    for (uint32_t a = 0; a < g->n_hosts; a++) {
        for (uint32_t b = 0; b < g->n_hosts; b++) {
            const uint16_t *p;
            uint32_t n = graph_nexthops(g, g->host_node[a], b, &p);
            if (a == b) {
                CU_ASSERT_EQUAL(n, 0);
            } else if (n != 1 || path_len(g, a, b) < 2) {
                CU_FAIL("a host does not reach another over its single link");
            }
        }
    }
}

static void test_routing_reach(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 4;
    if (build(&s, &g) == SCN_OK) {
        check_all_reach(&g);
        graph_free(&g);
    }
    mk(&s, "leaf-spine");
    CFG(&s)->ls.leaves = 3;
    CFG(&s)->ls.spines = 2;
    CFG(&s)->ls.hosts_per_leaf = 3;
    if (build(&s, &g) == SCN_OK) {
        check_all_reach(&g);
        graph_free(&g);
    }
}

static void test_fat_tree_paths(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 4;
    if (build(&s, &g))
        return;
    /* k=4: 2 hosts per ToR, 4 per pod */
    CU_ASSERT_EQUAL(path_len(&g, 0, 1), 2);  /* same ToR */
    CU_ASSERT_EQUAL(path_len(&g, 0, 2), 4);  /* same pod */
    CU_ASSERT_EQUAL(path_len(&g, 0, 4), 6);  /* other pod */
    CU_ASSERT_EQUAL(path_len(&g, 15, 0), 6);
    CU_ASSERT_EQUAL(n_next(&g, "tor0", 4), 2);
    CU_ASSERT_EQUAL(n_next(&g, "agg0", 4), 2);
    CU_ASSERT_EQUAL(n_next(&g, "core0", 4), 1);
    CU_ASSERT_EQUAL(n_next(&g, "tor0", 2), 2);
    CU_ASSERT_EQUAL(n_next(&g, "agg0", 2), 1);
    CU_ASSERT_EQUAL(n_next(&g, "tor0", 1), 1);
    CU_ASSERT_EQUAL(n_next(&g, "h0", 4), 1);
    CU_ASSERT_EQUAL(n_next(&g, "h4", 4), 0);
    /* The set at a ToR towards another pod is both uplinks, in port order. */
    const uint16_t *p;
    CU_ASSERT_EQUAL(graph_nexthops(&g, nid(&g, "tor0"), 4, &p), 2);
    CU_ASSERT_EQUAL(p[0], 2);
    CU_ASSERT_EQUAL(p[1], 3);
    /* Interning keeps the set store small: ToRs share their uplink sets. */
    CU_ASSERT(g.routes.nh_len < 64);
    /* Rows are stored once: one for all ToRs (each one's own column is never read), one per pod for its
     * aggregation switches, one for the cores and one for the hosts. */
    CU_ASSERT_EQUAL(g.routes.n_rows, 1 + 4 + 1 + 1);
    CU_ASSERT_EQUAL(g.routes.row_of[nid(&g, "tor0")], g.routes.row_of[nid(&g, "tor7")]);
    CU_ASSERT_NOT_EQUAL(g.routes.row_of[nid(&g, "agg0")], g.routes.row_of[nid(&g, "agg7")]);
    graph_free(&g);
}

static const struct scn_link L100 = {.rate_bps = 100 * GBPS, .delay_ps = 1000000};

/* A dragonfly scenario: a, p, h, g groups; host, local and global links of 100, 200 and 50 Gbps. */
static void mk_df(struct scenario *s, int a, int p, int h, int groups)
{
    mk(s, "dragonfly");
    CFG(s)->df.a = a;
    CFG(s)->df.p = p;
    CFG(s)->df.h = h;
    CFG(s)->df.g = groups;
    CFG(s)->df.host_link = L100;
    CFG(s)->df.local_link = (struct scn_link){.rate_bps = 200 * GBPS, .delay_ps = 100000};
    CFG(s)->df.global_link = (struct scn_link){.rate_bps = 50 * GBPS, .delay_ps = 500000};
}

/* Whether link i joins routers of two different dragonfly groups. */
static bool is_global(const struct graph *g, uint32_t i)
{
    const struct g_link *l = &g->links[i];
    return g->nodes[l->a].kind == SCN_NODE_SWITCH && g->nodes[l->b].kind == SCN_NODE_SWITCH &&
           g->nodes[l->a].group != g->nodes[l->b].group;
}

/* Checks a dragonfly's counts, names, numbering and wiring against the formulas of Kim et al. */
static void check_dragonfly(int a, int p, int h, int groups)
{
    struct scenario s;
    struct graph g;
    mk_df(&s, a, p, h, groups);
    if (build(&s, &g))
        return;
    const uint32_t A = (uint32_t)a, P = (uint32_t)p, H = (uint32_t)h, G = (uint32_t)groups;
    CU_ASSERT_EQUAL(g.n_hosts, A * P * G);
    CU_ASSERT_EQUAL(g.n_switches, A * G);
    uint32_t n_global = 0, n_local = 0;
    uint32_t *pair = calloc((size_t)G * G, sizeof *pair);
    for (uint32_t i = 0; i < g.n_links; i++) {
        const struct g_link *l = &g.links[i];
        if (is_global(&g, i)) {
            n_global++;
            pair[g.nodes[l->a].group * G + g.nodes[l->b].group]++;
            pair[g.nodes[l->b].group * G + g.nodes[l->a].group]++;
            CU_ASSERT_EQUAL(l->spec.rate_bps, 50 * GBPS);
        } else if (g.nodes[l->a].kind == SCN_NODE_SWITCH && g.nodes[l->b].kind == SCN_NODE_SWITCH) {
            n_local++;
            CU_ASSERT_EQUAL(l->spec.rate_bps, 200 * GBPS);
        }
    }
    CU_ASSERT_EQUAL(n_local, G * A * (A - 1) / 2);
    CU_ASSERT_EQUAL(n_global, G * A * H / 2);
    if (G == A * H + 1)
        CU_ASSERT_EQUAL(n_global, G * (G - 1) / 2);
    /* Every pair of groups has floor or ceil(a*h / (g-1)) links: exactly one with the default g. */
    uint32_t lo = A * H / (G - 1), hi = lo + (A * H % (G - 1) != 0);
    int bad = 0;
    for (uint32_t x = 0; x < G; x++)
        for (uint32_t y = 0; y < G; y++)
            if (x != y && (pair[x * G + y] < lo || pair[x * G + y] > hi))
                bad++;
    CU_ASSERT_EQUAL(bad, 0);
    free(pair);
    /* Routers: p hosts + (a-1) local + h global ports; hosts group-major then router-major. */
    char name[32];
    for (uint32_t grp = 0; grp < G; grp++)
        for (uint32_t r = 0; r < A; r++) {
            snprintf(name, sizeof name, "g%ur%u", grp, r);
            uint32_t id = nid(&g, name);
            CU_ASSERT_EQUAL(g.nodes[id].group, (int32_t)grp);
            CU_ASSERT_EQUAL(g.nodes[id].n_ports, P + A - 1 + H);
            uint32_t host = (grp * A + r) * P + P - 1;
            CU_ASSERT_EQUAL(test_peer_of(&g, g.host_node[host], 0), id);
            CU_ASSERT_EQUAL(g.nodes[g.host_node[host]].group, (int32_t)grp);
        }
    graph_free(&g);
}

static void test_dragonfly_counts(void)
{
    check_dragonfly(4, 2, 2, 9);
    check_dragonfly(8, 4, 4, 33);
    /* Fewer groups than a*h + 1: several links per pair of groups, spread evenly. */
    check_dragonfly(4, 2, 2, 5);
    check_dragonfly(4, 1, 2, 4);
    check_dragonfly(3, 1, 3, 6);
    check_dragonfly(2, 1, 1, 2);
}

static void test_dragonfly_wiring(void)
{
    struct scenario s;
    struct graph g;
    mk_df(&s, 4, 2, 2, 9);
    if (build(&s, &g))
        return;
    /* The consecutive arrangement: router R of group G reaches groups G + R*h + 1 .. G + R*h + h. */
    CU_ASSERT(graph_port_to(&g, nid(&g, "g0r0"), nid(&g, "g1r3")) >= 0);
    CU_ASSERT(graph_port_to(&g, nid(&g, "g0r0"), nid(&g, "g2r3")) >= 0);
    CU_ASSERT(graph_port_to(&g, nid(&g, "g0r3"), nid(&g, "g8r0")) >= 0);
    CU_ASSERT(graph_port_to(&g, nid(&g, "g5r1"), nid(&g, "g8r2")) >= 0);
    /* Ports of a router: hosts, the other routers of its group in order, then global links. */
    uint32_t r1 = nid(&g, "g0r1");
    CU_ASSERT_EQUAL(graph_port_to(&g, r1, nid(&g, "h2")), 0);
    CU_ASSERT_EQUAL(graph_port_to(&g, r1, nid(&g, "h3")), 1);
    CU_ASSERT_EQUAL(graph_port_to(&g, r1, nid(&g, "g0r0")), 2);
    CU_ASSERT_EQUAL(graph_port_to(&g, r1, nid(&g, "g0r2")), 3);
    CU_ASSERT_EQUAL(graph_port_to(&g, r1, nid(&g, "g0r3")), 4);
    CU_ASSERT(graph_port_to(&g, r1, nid(&g, "g3r2")) >= 5);
    graph_free(&g);
}

/*
 * Walks every equal-cost path from node n to host dst (all ECMP choices), and
 * records the most and fewest router-to-router hops and global links seen.
 */
struct walk_stats {
    int max_sw_hops, max_global, min_global;
};

static void walk_all(const struct graph *g, uint32_t n, uint32_t dst, int sw_hops, int globals,
                     struct walk_stats *st)
{
    if (n == g->host_node[dst]) {
        int router_hops = sw_hops - 1; /* the last hop is router -> host */
        if (router_hops > st->max_sw_hops)
            st->max_sw_hops = router_hops;
        if (globals > st->max_global)
            st->max_global = globals;
        if (globals < st->min_global)
            st->min_global = globals;
        return;
    }
    const uint16_t *p;
    uint32_t cnt = graph_nexthops(g, n, dst, &p);
    if (cnt == 0 || sw_hops > 16) {
        st->max_sw_hops = 99;
        return;
    }
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t port = g->nodes[n].first_port + p[i];
        walk_all(g, g->ports[g->ports[port].peer].node, dst, sw_hops + 1, globals + is_global(g, g->ports[port].link),
                 st);
    }
}

/* Minimal routing: every equal-cost path is local-global-local, at most 3 router hops, one global link. */
static void check_df_minimal(int a, int p, int h, int groups)
{
    struct scenario s;
    struct graph g;
    mk_df(&s, a, p, h, groups);
    if (build(&s, &g))
        return;
    int worst = 0, bad_global = 0;
    for (uint32_t src = 0; src < g.n_switches; src++) {
        uint32_t r = g.host_node[g.n_hosts - 1] + 1 + src; /* routers follow the hosts */
        for (uint32_t dst = 0; dst < g.n_hosts; dst++) {
            struct walk_stats st = {0, 0, 99};
            walk_all(&g, r, dst, 0, 0, &st);
            bool same = g.nodes[r].group == g.nodes[g.host_node[dst]].group;
            if (st.max_sw_hops > worst)
                worst = st.max_sw_hops;
            if (st.max_global != (same ? 0 : 1) || st.min_global != st.max_global)
                bad_global++;
        }
    }
    printf("\n    dragonfly a=%d p=%d h=%d g=%d: longest minimal route %d router hops ", a, p, h, groups, worst);
    CU_ASSERT(worst <= 3);
    CU_ASSERT(worst >= 2);
    CU_ASSERT_EQUAL(bad_global, 0);
    graph_free(&g);
}

static void test_dragonfly_minimal_paths(void)
{
    check_df_minimal(4, 2, 2, 9);
    check_df_minimal(8, 4, 4, 33);
    check_df_minimal(4, 1, 2, 4);
}

/* s as a custom topology of these nodes and links. */
static void mk_custom(struct scenario *s, struct topo_custom_node *nodes, int n_nodes,
                      struct topo_custom_link *links, int n_links)
{
    mk(s, "custom");
    CFG(s)->cu.nodes = nodes;
    CFG(s)->cu.n_nodes = n_nodes;
    CFG(s)->cu.links = links;
    CFG(s)->cu.n_links = n_links;
}

static void test_custom_ring(void)
{
    /* Four switches in a ring, one host on each. */
    struct topo_custom_node nodes[] = {{"s0", SCN_NODE_SWITCH}, {"s1", SCN_NODE_SWITCH}, {"s2", SCN_NODE_SWITCH},
                                      {"s3", SCN_NODE_SWITCH}, {"a", SCN_NODE_HOST},    {"b", SCN_NODE_HOST},
                                      {"c", SCN_NODE_HOST},    {"d", SCN_NODE_HOST}};
    struct topo_custom_link links[] = {{0, 1, L100}, {1, 2, L100}, {2, 3, L100}, {3, 0, L100},
                                      {4, 0, L100}, {5, 1, L100}, {6, 2, L100}, {7, 3, L100}, {0, 1, L100}};
    struct scenario s;
    struct graph g;
    mk_custom(&s, nodes, 8, links, 8);
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.n_hosts, 4);
    CU_ASSERT_EQUAL(g.n_switches, 4);
    CU_ASSERT_EQUAL(g.host_node[2], 6); /* hosts numbered in order of appearance */
    CU_ASSERT_EQUAL(g.nodes[nid(&g, "c")].host, 2);
    CU_ASSERT_EQUAL(n_next(&g, "s0", 2), 2); /* "c", two switches away: both ways round */
    CU_ASSERT_EQUAL(n_next(&g, "s0", 1), 1);
    CU_ASSERT_EQUAL(path_len(&g, 0, 2), 4);
    CU_ASSERT_EQUAL(path_len(&g, 0, 1), 3);
    graph_free(&g);

    /* A parallel duplicate link is allowed and doubles the next hops over it. */
    CFG(&s)->cu.n_links = 9;
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL(g.nodes[0].n_ports, 4);
    CU_ASSERT_EQUAL(n_next(&g, "s0", 1), 2);
    CU_ASSERT_EQUAL(n_next(&g, "s0", 2), 3); /* both parallel links to s1, and s3 */
    graph_free(&g);
}

/*
 * Two switches joined by 300 parallel links: the set towards the far host has 300 ports, more than a table entry's
 * count field holds (graph_nh_entry), so the count comes from the set itself; a set of one stays in the entry.
 */
static void test_wide_set(void)
{
    struct topo_custom_node nodes[] = {{"s0", SCN_NODE_SWITCH}, {"s1", SCN_NODE_SWITCH}, {"a", SCN_NODE_HOST},
                                      {"b", SCN_NODE_HOST}};
    enum { WIDE = 300 };
    static struct topo_custom_link links[WIDE + 2];
    links[0] = (struct topo_custom_link){2, 0, L100};
    links[1] = (struct topo_custom_link){3, 1, L100};
    for (int i = 0; i < WIDE; i++)
        links[2 + i] = (struct topo_custom_link){0, 1, L100};
    struct scenario s;
    struct graph g;
    mk_custom(&s, nodes, 4, links, WIDE + 2);
    if (build(&s, &g))
        return;
    const uint16_t *p;
    uint32_t n = graph_nexthops(&g, nid(&g, "s0"), 1, &p);
    CU_ASSERT_EQUAL(n, WIDE);
    int in_order = 1;
    for (uint32_t i = 0; i < n; i++)
        in_order &= p[i] == i + 1; /* port 0 is a's link; the parallel links follow, in order */
    CU_ASSERT(in_order);
    CU_ASSERT_EQUAL(graph_nexthops(&g, nid(&g, "s0"), 0, &p), 1);
    CU_ASSERT_EQUAL(p[0], 0);
    CU_ASSERT_EQUAL(path_len(&g, 0, 1), 3);
    graph_free(&g);
}

static void test_graph_find_many(void)
{
    struct graph g;
    graph_init(&g);
    char name[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "n%d", i);
        graph_add_node(&g, name, i % 3 ? SCN_NODE_SWITCH : SCN_NODE_HOST);
    }
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "n%d", i);
        bad += graph_find(&g, name) != i;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(graph_find(&g, "n20000"), -1);
    CU_ASSERT_EQUAL(graph_find(&g, ""), -1);
    CU_ASSERT_EQUAL(g.n_hosts, 6667);
    CU_ASSERT_EQUAL(g.host_node[6666], 19998);
    graph_free(&g);
    graph_init(&g);
    CU_ASSERT_EQUAL(graph_find(&g, "x"), -1);
    graph_free(&g);
}

/* Expects topo_build to fail with exactly the message want, leaving g empty. */
static void expect_error(const struct scenario *s, const char *want)
{
    struct graph g;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL(topo_build(s, &g, err, sizeof err), SCN_EUSAGE);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "\nwant: %s\ngot:  %s\n", want, err);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(g.n_nodes, 0);
    CU_ASSERT_PTR_NULL(g.routes.table);
}

static void test_errors(void)
{
    struct scenario s;
    struct topo_custom_node nodes[] = {{"s0", SCN_NODE_SWITCH}, {"hb", SCN_NODE_HOST}, {"s1", SCN_NODE_SWITCH}, {"hc", SCN_NODE_HOST}};
    struct topo_custom_link two[] = {{0, 1, L100}, {1, 2, L100}, {2, 3, L100}};
    mk_custom(&s, nodes, 4, two, 3);
    expect_error(&s, "t.json: topology.nodes.1: host \"hb\" must have exactly one link, has 2");

    struct topo_custom_link none[] = {{0, 1, L100}, {0, 2, L100}};
    CFG(&s)->cu.links = none;
    CFG(&s)->cu.n_links = 2;
    expect_error(&s, "t.json: topology.nodes.3: host \"hc\" must have exactly one link, has 0");

    struct topo_custom_link split[] = {{0, 1, L100}, {2, 3, L100}};
    CFG(&s)->cu.links = split;
    expect_error(&s, "t.json: topology: host \"hb\" cannot reach host \"hc\" (the network is disconnected)");

    mk_df(&s, 4, 2, 2, 10);
    expect_error(&s, "t.json: topology.g: expected an integer from 2 to 9 (a x h + 1), got 10");
    mk_df(&s, 4, 0, 2, 9);
    expect_error(&s, "t.json: topology.p: expected an integer >= 1, got 0");

    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 5;
    expect_error(&s, "t.json: topology.k: expected an even integer >= 2, got 5");
}

static void test_ecmp_pick(void)
{
    for (uint32_t n = 1; n <= 17; n++)
        for (uint32_t h = 0; h < 2000; h++)
            if (routing_ecmp_pick(h * 2654435761u, n, n) >= n)
                CU_FAIL("pick out of range");
    CU_ASSERT_EQUAL(routing_ecmp_pick(123, 4, 0), 0);
    CU_ASSERT_EQUAL(routing_ecmp_pick(0xffffffffu, 0xffffffffu, 1), 0);

    /* Consecutive flow hashes (the worst input) still spread evenly over 4 ports. */
    for (uint32_t salt = 0; salt < 3; salt++) {
        int count[4] = {0};
        for (uint32_t h = 0; h < 10000; h++)
            count[routing_ecmp_pick(h, salt, 4)]++;
        for (int i = 0; i < 4; i++)
            CU_ASSERT(count[i] >= 2000 && count[i] <= 3000);
    }

    /* Two switches with different salts choose independently (no polarization): agree about half the time. */
    int same = 0;
    for (uint32_t h = 0; h < 10000; h++)
        same += routing_ecmp_pick(h, 1, 2) == routing_ecmp_pick(h, 2, 2);
    CU_ASSERT(same > 4500 && same < 5500);
}

static void test_printers(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 4;
    if (build(&s, &g))
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    topo_write_json(f, &g);
    fclose(f);
    cJSON *j = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL(j);
    if (j) {
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
        const cJSON *links = cJSON_GetObjectItemCaseSensitive(j, "links");
        CU_ASSERT_EQUAL(cJSON_GetArraySize(nodes), 36);
        CU_ASSERT_EQUAL(cJSON_GetArraySize(links), 48);
        const cJSON *l0 = cJSON_GetArrayItem(links, 0);
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l0, "a")), "h0");
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l0, "b")), "tor0");
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l0, "rate")), "100Gbps");
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l0, "delay")), "1us");
        const cJSON *n35 = cJSON_GetArrayItem(nodes, 35);
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n35, "name")), "core3");
        CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n35, "kind")), "switch");
        cJSON_Delete(j);
    }
    free(text);

    text = NULL;
    f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    topo_write_dot(f, &g);
    fclose(f);
    CU_ASSERT(strncmp(text, "graph topology {", 16) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"h0\" -- \"tor0\" [label=\"100Gbps, 1us\"];"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"core3\" [shape=box];"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"h15\" [shape=ellipse];"));
    free(text);
    graph_free(&g);

    /* A dragonfly prints too, with each node's group. */
    mk_df(&s, 2, 1, 1, 3);
    if (build(&s, &g))
        return;
    text = NULL;
    f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    topo_write_json(f, &g);
    fclose(f);
    j = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(nodes), 12);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "links")), 6 + 3 + 3);
    const cJSON *last = cJSON_GetArrayItem(nodes, 11);
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "name")), "g2r1");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(last, "group")->valueint, 2);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, 3), "group")->valueint, 1);
    cJSON_Delete(j);
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    topo_write_dot(f, &g);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"g0r0\" -- \"g0r1\" [label=\"200Gbps, 100ns\"];"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"g0r0\" -- \"g1r1\" [label=\"50Gbps, 500ns\"];"));
    free(text);
    graph_free(&g);
}

/* Whether every link of g whose ends are not top-tier switches (names starting with skip) stays inside a
 * partition: the cut takes only the links to the top tier. */
static bool cut_only_at(const struct graph *g, const struct partition_plan *p, const char *skip)
{
    for (uint32_t l = 0; l < g->n_links; l++) {
        const struct g_link *k = &g->links[l];
        bool top = !strncmp(g->nodes[k->a].name, skip, strlen(skip)) || !strncmp(g->nodes[k->b].name, skip, strlen(skip));
        if (!top && p->part[k->a] != p->part[k->b])
            return false;
    }
    return true;
}

/* Whether every host is in its switch's partition (the partitioned engine relies on it). */
static bool hosts_with_their_switch(const struct graph *g, const struct partition_plan *p)
{
    for (uint32_t l = 0; l < g->n_links; l++) {
        const struct g_link *k = &g->links[l];
        bool host = g->nodes[k->a].kind == SCN_NODE_HOST || g->nodes[k->b].kind == SCN_NODE_HOST;
        if (host && p->part[k->a] != p->part[k->b])
            return false;
    }
    return true;
}

/*
 * A k=8 fat-tree is cut by pods (16 hosts, 4 ToRs, 4 aggregation switches), its 16 core switches dealt as units
 * of their own.  Without a run's frames a node weighs its ports: a pod 16 + 8 x 8 = 80, a core switch 8, 768 in
 * all, split exactly in 2, 4 and 8 (a pod and two cores each).  Each core switch reaches every pod once, so at 2
 * partitions 64 links are cut, all at the links' 1 us.  16 partitions are more than the pods: whole pods would
 * leave the largest at 80 / 768, so pods are split below their aggregation switches (a ToR with its hosts
 * weighs 12, an aggregation switch 8), never between a host and its ToR, and the lookahead stays 1 us.
 */
static void test_partition_fat_tree(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "fat-tree");
    CFG(&s)->ft.k = 8;
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL_FATAL(g.n_nodes, 208);
    static const int parts[] = {1, 2, 4, 8};
    static const double share[] = {1, 0.5, 0.25, 0.125};
    for (int i = 0; i < 4; i++) {
        struct partition_plan p;
        CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, parts[i], &p), 0);
        CU_ASSERT_EQUAL(p.n_units, 8 + 16);
        CU_ASSERT_DOUBLE_EQUAL(p.max_share, share[i], 1e-12);
        CU_ASSERT(cut_only_at(&g, &p, "core"));
        if (parts[i] == 2) {
            CU_ASSERT_EQUAL(p.cut_links, 64);
            CU_ASSERT_EQUAL(p.lookahead_ps, 1000000);
        }
        if (parts[i] == 1) {
            CU_ASSERT_EQUAL(p.cut_links, 0);
            CU_ASSERT_EQUAL(p.lookahead_ps, INT64_MAX);
        }
        partition_free(&p);
    }
    /* 16 partitions: each of the 8 pods split, its ToRs with their hosts (12) and aggregation switches (8) dealt
     * to the partitions of core switches: the largest holds 52 */
    struct partition_plan p;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 16, &p), 0);
    CU_ASSERT(p.n_units > 8 + 16);
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 52.0 / 768, 1e-12);
    CU_ASSERT(hosts_with_their_switch(&g, &p));
    CU_ASSERT_EQUAL(p.lookahead_ps, 1000000);
    partition_free(&p);
    /* loads from a run's frames (here every port sent one): the same cut, and the frames on cut links are the
     * two directions of the 64 cut links */
    uint64_t *tx = calloc(g.n_ports, sizeof *tx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tx);
    for (uint32_t i = 0; i < g.n_ports; i++)
        tx[i] = 1;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, tx, 2, &p), 0);
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(p.cut_share, 128.0 / g.n_ports, 1e-12);
    partition_free(&p);
    free(tx);
    CU_ASSERT_EQUAL(partition_plan(&g, NULL, 0, &p), -1);
    CU_ASSERT_EQUAL(partition_plan(&g, NULL, PARTITION_MAX + 1, &p), -1);
    graph_free(&g);
}

/*
 * The HPCC paper's fabric (5 pods of 4 ToRs with 16 hosts each and 4 aggregation switches, 16 core switches) on
 * two partitions.  Whole units split as three pods (528 of 960 port-weights: a ToR 20 ports, an aggregation
 * switch 8, a host 1) against two pods and the cores (432): 55 %, and 53.8 % of a run's events.  The plan
 * splits one of the three pods below its aggregation switches and moves a ToR with its hosts (36) and one
 * aggregation switch (8) to the other side: 484 against 476.  Only that pod's links are cut besides the cores':
 * every host stays with its ToR and the lookahead stays 1 us.
 */
static void test_partition_hpcc_fabric(void)
{
    struct scenario s;
    struct graph g;
    if (build_hpcc_fabric(&s, &g))
        return;
    struct partition_plan p;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 2, &p), 0);
    CU_ASSERT_DOUBLE_EQUAL(p.total, 960, 1e-9);
    CU_ASSERT_EQUAL(p.n_units, 5 + 16 + 7); /* one pod in 8 pieces */
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 484.0 / 960, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(p.load[0], 476, 1e-9); /* partition 0, the calling thread's, the lighter */
    CU_ASSERT_EQUAL(p.lookahead_ps, 1000000);
    /* one pod is split (its ToRs on both sides), and every ToR has its hosts with it */
    int split_pods = 0;
    for (int pod = 0; pod < 5; pod++) {
        uint32_t sides = 0;
        for (int t = 4 * pod; t < 4 * pod + 4; t++) {
            char name[16];
            snprintf(name, sizeof name, "tor%d", t);
            sides |= 1u << p.part[nid(&g, name)];
        }
        split_pods += sides == 3;
    }
    CU_ASSERT_EQUAL(split_pods, 1);
    CU_ASSERT(hosts_with_their_switch(&g, &p));
    partition_free(&p);
    /* with 4 partitions, 5 pods: the fifth pod is split among them the same way */
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 4, &p), 0);
    CU_ASSERT(p.max_share <= 0.25 * (1 + PARTITION_SPLIT_TOL));
    CU_ASSERT_EQUAL(p.lookahead_ps, 1000000);
    partition_free(&p);
    graph_free(&g);
}

/* A dragonfly (a=4, p=2, h=2: 9 groups of 12 nodes) is cut by groups: 4 partitions hold 3, 2, 2 and 2 groups,
 * and only global links are cut, so the lookahead is theirs (500 ns), not the local links' 100 ns. */
static void test_partition_dragonfly(void)
{
    struct scenario s;
    struct graph g;
    mk_df(&s, 4, 2, 2, 9);
    if (build(&s, &g))
        return;
    struct partition_plan p;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 4, &p), 0);
    CU_ASSERT_EQUAL(p.n_units, 9);
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 3.0 / 9, 1e-12);
    CU_ASSERT_EQUAL(p.lookahead_ps, 500000);
    for (uint32_t n = 0; n < g.n_nodes; n++)
        for (uint32_t m = 0; m < g.n_nodes; m++)
            if (g.nodes[n].group == g.nodes[m].group && p.part[n] != p.part[m])
                CU_FAIL("a group is split");
    partition_free(&p);
    graph_free(&g);
}

/* A leaf-spine is cut by leaves (with their hosts) and spines; a star has one unit, which no cut divides. */
static void test_partition_leaf_spine_star(void)
{
    struct scenario s;
    struct graph g;
    mk(&s, "leaf-spine");
    CFG(&s)->ls.leaves = 4;
    CFG(&s)->ls.spines = 2;
    CFG(&s)->ls.hosts_per_leaf = 8;
    if (build(&s, &g))
        return;
    struct partition_plan p;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 2, &p), 0);
    CU_ASSERT_EQUAL(p.n_units, 4 + 2);
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 0.5, 1e-12);
    CU_ASSERT(cut_only_at(&g, &p, "spine"));
    partition_free(&p);
    graph_free(&g);
    mk(&s, "star");
    CFG(&s)->star.hosts = 8;
    if (build(&s, &g))
        return;
    CU_ASSERT_EQUAL_FATAL(partition_plan(&g, NULL, 2, &p), 0);
    CU_ASSERT_EQUAL(p.n_units, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.max_share, 1, 1e-12);
    CU_ASSERT_EQUAL(p.cut_links, 0);
    partition_free(&p);
    graph_free(&g);
}

void test_topo_register(void)
{
    CU_pSuite s = CU_add_suite("topology", NULL, NULL);
    CU_add_test(s, "star", test_star);
    CU_add_test(s, "dumbbell", test_dumbbell);
    CU_add_test(s, "leaf-spine", test_leaf_spine);
    CU_add_test(s, "fat-tree counts k=4, 8, 16", test_fat_tree_counts);
    CU_add_test(s, "leaf-spine counts", test_leaf_spine_counts);
    CU_add_test(s, "dragonfly counts and global links per pair of groups", test_dragonfly_counts);
    CU_add_test(s, "dragonfly wiring and ports", test_dragonfly_wiring);
    CU_add_test(s, "dragonfly minimal routes: l-g-l, at most 3 router hops", test_dragonfly_minimal_paths);
    CU_add_test(s, "fat-tree wiring and ports", test_fat_tree_wiring);
    CU_add_test(s, "fat-tree generalized shape", test_fat_tree_generalized);
    CU_add_test(s, "fat-tree oversubscription", test_fat_tree_oversubscription);
    CU_add_test(s, "routing: every host reaches every other", test_routing_reach);
    CU_add_test(s, "routing: fat-tree path lengths and ECMP widths", test_fat_tree_paths);
    CU_add_test(s, "routing: custom ring and parallel links", test_custom_ring);
    CU_add_test(s, "routing: a set of 300 equal-cost ports, wider than an entry's count", test_wide_set);
    CU_add_test(s, "graph_find over many names", test_graph_find_many);
    CU_add_test(s, "errors name the JSON path", test_errors);
    CU_add_test(s, "ECMP pick range and spread", test_ecmp_pick);
    CU_add_test(s, "dot and JSON printers", test_printers);
    CU_add_test(s, "partitions: a fat-tree by pods, cores apart", test_partition_fat_tree);
    CU_add_test(s, "partitions: the HPCC fabric's odd pod split to even the two halves", test_partition_hpcc_fabric);
    CU_add_test(s, "partitions: a dragonfly by groups, cut at global links", test_partition_dragonfly);
    CU_add_test(s, "partitions: a leaf-spine by leaves; a star is one unit", test_partition_leaf_spine_star);
}
