/*
 * The rail topology (topologies/rail.c): node and link counts against the shape's formulas, the names n{s}.g{k},
 * rail{k}.leaf{j}, spine{j} and their look-up, where they work (selectors, ranges, profiles, paths, faults,
 * monitor.queues), routing that keeps a rail's traffic in its rail, a run end to end, the loader's errors, and
 * docs/scenario.md's table against the module's.
 */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "tools/live/live.h"
#include "tools/run/run.h"
#include "topologies/rail.h"
#include "topologies/routing.h"
#include "topologies/topo.h"

/* A scenario text with a rail of S servers x G GPUs, L leaves per rail, P spines, 100Gbps links, then `rest`
 * (which has one flow from n0.g0 to n1.g0 put before it unless it has traffic of its own). */
static char *rail_json(int S, int G, int L, int P, const char *rest)
{
    static const char flow[] = "\"traffic\": [{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", "
                               "\"size\": \"1KB\"}]";
    bool own = strstr(rest, "\"traffic\"") != NULL;
    size_t len = strlen(rest) + 640;
    char *j = malloc(len);
    snprintf(j, len, "{\"stop\": \"10ms\", \"topology\": {\"type\": \"rail\", \"servers\": %d, \"gpus_per_server\": %d, "
             "\"leaves_per_rail\": %d, \"spines\": %d, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, %s%s%s}",
             S, G, L, P, own ? "" : flow, own || !*rest ? "" : ", ", rest);
    return j;
}

/* Counts for several shapes against the formulas: nodes S*G + G*L + P, links S*G + G*L*P, ports per tier, the
 * memory estimate's counts, and each host on leaf floor(s*L/S) of its own rail. */
static void test_rail_counts(void)
{
    static const int shapes[][4] = {{16, 8, 2, 8}, {4, 4, 1, 2}, {10, 3, 4, 5}, {2, 1, 1, 1}, {7, 2, 7, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int S = shapes[i][0], G = shapes[i][1], L = shapes[i][2], P = shapes[i][3];
        char *j = rail_json(S, G, L, P, "");
        struct scenario s;
        struct graph g;
        char err[SCN_ERR_MAX] = "";
        CU_ASSERT_FATAL(test_load(j, &s));
        free(j);
        CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
        CU_ASSERT_EQUAL(s.topo.n_hosts, S * G);
        CU_ASSERT_EQUAL(g.n_hosts, (uint32_t)(S * G));
        CU_ASSERT_EQUAL(g.n_switches, (uint32_t)(G * L + P));
        CU_ASSERT_EQUAL(g.n_links, (uint32_t)(S * G + G * L * P));
        struct memest_counts mc = memest_topology(&s, s.topo.n_hosts);
        CU_ASSERT_EQUAL(mc.switches, G * L + P);
        CU_ASSERT_EQUAL(mc.links, g.n_links);
        CU_ASSERT_EQUAL(mc.columns, routing_columns(&g));
        char name[SCN_NAME_MAX];
        for (int h = 0; h < S * G; h++) {
            int sv = h / G, k = h % G;
            snprintf(name, sizeof name, "n%d.g%d", sv, k);
            CU_ASSERT_STRING_EQUAL(g.nodes[g.host_node[h]].name, name);
            CU_ASSERT_STRING_EQUAL(scn_host_name(&s, h), name);
            CU_ASSERT_EQUAL(scn_host_index(&s, name), h);
            snprintf(name, sizeof name, "rail%d.leaf%d", k, sv * L / S);
            CU_ASSERT_STRING_EQUAL(g.nodes[test_peer_of(&g, g.host_node[h], 0)].name, name);
        }
        /* A leaf's ports: its servers (S/L, rounded either way) then every spine; a spine's: every leaf. */
        for (uint32_t n = 0; n < g.n_nodes; n++) {
            const struct g_node *x = &g.nodes[n];
            if (strncmp(x->name, "rail", 4) == 0) {
                CU_ASSERT(x->n_ports >= (uint32_t)(S / L + P) && x->n_ports <= (uint32_t)((S + L - 1) / L + P));
                CU_ASSERT_EQUAL(g.nodes[test_peer_of(&g, n, x->n_ports - 1)].kind, SCN_NODE_SWITCH);
            } else if (strncmp(x->name, "spine", 5) == 0) {
                CU_ASSERT_EQUAL(x->n_ports, (uint32_t)(G * L));
            }
        }
        graph_free(&g);
        scn_free(&s);
    }
}

/* Every node's name looks itself up, in the loader's table and the grammar alone (a test's struct); near
 * misses find nothing; the name hooks agree with the graph's links. */
static void test_rail_names(void)
{
    char *j = rail_json(16, 8, 2, 4, "");
    struct scenario s;
    struct graph g;
    char err[SCN_ERR_MAX] = "", name[SCN_NAME_MAX];
    CU_ASSERT_FATAL(test_load(j, &s));
    free(j);
    CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
    const struct scn_topo_hooks *h = scn_topo_hooks(&s);
    const struct topo_rail *t = s.topo.cfg, bare = {.servers = 16, .gpus_per_server = 8, .leaves_per_rail = 2,
                                                     .spines = 4};
    CU_ASSERT_PTR_NOT_NULL_FATAL(h->node_index);
    for (uint32_t n = 0; n < g.n_nodes; n++) {
        CU_ASSERT_STRING_EQUAL(h->node_name(t, (int)n), g.nodes[n].name);
        CU_ASSERT_EQUAL(h->node_index(t, g.nodes[n].name), (int)n);
        CU_ASSERT_EQUAL(topo_rail_index(&bare, g.nodes[n].name), (int)n);
        CU_ASSERT(topo_rail_name(&bare, n, name, sizeof name) && strcmp(name, g.nodes[n].name) == 0);
    }
    CU_ASSERT(!topo_rail_name(&bare, g.n_nodes, name, sizeof name));
    static const char *const misses[] = {"n16.g0", "n1.g8", "n01.g0", "n1.g", "n1g1", "n1.g1x", "rail8.leaf0",
                                         "rail0.leaf2", "rail0", "spine4", "spine", "spine00", "h0", "n-1.g0", ""};
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        CU_ASSERT_EQUAL(topo_rail_index(t, misses[i]), -1);
        CU_ASSERT_EQUAL(scn_host_index(&s, misses[i]), -1);
    }
    for (uint32_t a = 0; a < g.n_nodes; a++) {
        for (uint32_t b = 0; b < g.n_nodes; b++) {
            bool linked = false;
            for (uint32_t p = 0; p < g.nodes[a].n_ports && !linked; p++)
                linked = test_peer_of(&g, a, p) == b;
            CU_ASSERT_EQUAL(h->linked(t, (int)a, (int)b), linked);
        }
    }
    graph_free(&g);
    scn_free(&s);
}

/*
 * Every least-cost path from host a to host b, all ECMP choices followed: its length in links (the same for all,
 * or -1 when they differ) and whether one of them passes a leaf of a rail other than `rail`.
 */
static int all_paths(const struct graph *g, uint32_t n, uint32_t b, const char *rail, bool *strays, int depth)
{
    if (n == g->host_node[b])
        return 0;
    const uint16_t *p;
    uint32_t k = graph_nexthops(g, n, b, &p);
    if (k == 0 || depth > 8)
        return -1;
    int len = -2;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t m = test_peer_of(g, n, p[i]);
        const char *nm = g->nodes[m].name;
        if (strncmp(nm, "rail", 4) == 0 && strncmp(nm, rail, strlen(rail)) != 0)
            *strays = true;
        int l = all_paths(g, m, b, rail, strays, depth + 1);
        if (l < 0 || (len != -2 && l + 1 != len))
            return -1;
        len = l + 1;
    }
    return len;
}

/* Same rail under one leaf: host-leaf-host; same rail under two leaves and across rails: leaf-spine-leaf, over
 * every spine; a same-rail flow never touches another rail's leaf. */
static void test_rail_routing(void)
{
    char *j = rail_json(8, 4, 2, 3, "");
    struct scenario s;
    struct graph g;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_FATAL(test_load(j, &s));
    free(j);
    CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
    const int G = 4;
    for (int a = 0; a < 8 * G; a++) {
        for (int b = 0; b < 8 * G; b++) {
            if (a == b)
                continue;
            int sa = a / G, sb = b / G, ka = a % G, kb = b % G;
            char rail[16];
            snprintf(rail, sizeof rail, "rail%d.", ka);
            bool strays = false;
            int len = all_paths(&g, g.host_node[a], (uint32_t)b, rail, &strays, 0);
            int want = ka == kb && sa / 4 == sb / 4 ? 2 : 4; /* 4 servers per leaf */
            CU_ASSERT_EQUAL(len, want);
            if (ka == kb)
                CU_ASSERT(!strays);
            /* The first switch spreads a leaf-spine-leaf flow over all three spines. */
            const uint16_t *p;
            uint32_t leaf = test_peer_of(&g, g.host_node[a], 0);
            CU_ASSERT_EQUAL(graph_nexthops(&g, leaf, (uint32_t)b, &p), want == 4 ? 3u : 1u);
        }
    }
    graph_free(&g);
    scn_free(&s);
}

#define RAIL_TRAFFIC                                                                                              \
    "\"switch\": {\"buffer\": \"12MB\", \"pfc\": {\"enabled\": true, \"priorities\": [3]}}, "                    \
    "\"host\": {\"priority\": 3, \"cc\": \"dcqcn\"}, "                                                          \
    "\"traffic\": [{\"type\": \"allreduce\", \"id\": \"ar\", \"hosts\": \"all\", \"size\": \"2MB\", "           \
    "\"nics_per_server\": 4}, {\"type\": \"incast\", \"id\": \"in\", \"senders\": \"n1.g0-n1.g3\", "             \
    "\"receiver\": \"n2.g0\", \"size\": \"64KB\"}, {\"type\": \"flow\", \"id\": \"f\", \"src\": \"n0.g1\", "    \
    "\"dst\": \"n3.g1\", \"size\": \"64KB\", \"path\": [\"n0.g1\", \"rail1.leaf0\", \"spine1\", \"rail1.leaf1\", " \
    "\"n3.g1\"]}], "                                                                                             \
    "\"faults\": [{\"type\": \"link_down\", \"between\": [\"rail2.leaf1\", \"spine0\"], \"at\": \"5ms\"}], "      \
    "\"profiles\": [{\"match\": [\"n3.*\"], \"host\": {\"mtu\": 4096}}, {\"match\": [\"*.g2\"], "                  \
    "\"host\": {\"cc\": \"none\"}}, {\"match\": [\"rail1.*\"], \"switch\": {\"buffer\": \"16MB\"}}], "             \
    "\"monitor\": {\"queues\": [\"rail0.leaf0:*\", \"spine1:0\"], \"flows\": [\"f\", \"in.1\"]}"

/* A run end to end on a 4 x 4 rail: one all-reduce ring per rail, an incast given by a range of GPU names, a
 * pinned path, a fault, profiles by GPU and by rail, queues by switch name: every flow finishes, the rings
 * each 2(4-1) steps of 2MB/4/4 bytes per rank, and the pinned flow takes its path. */
static void test_rail_run(void)
{
    char *j = rail_json(4, 4, 2, 2, RAIL_TRAFFIC);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
    free(j);
    char label[96];
    topo_label(&scn, label, sizeof label);
    CU_ASSERT_STRING_EQUAL(label, "rail fabric of 4 servers x 4 GPUs");
    test_run_checked(&r);
    /* 16 ranks x 6 steps, 4 senders, 1 flow */
    CU_ASSERT_EQUAL(r.net.n_flows, 16 * 6 + 4 + 1);
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        CU_ASSERT(net_flow(&r.net, i)->finish >= 0);
    size_t len = 0;
    char *live = live_topology_json(&scn, &r.g, &len);
    cJSON *t = cJSON_Parse(live);
    free(live);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(t, "layout")->valuestring, "tiers");
    const cJSON *nodes = cJSON_GetObjectItem(t, "nodes");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 0), "tier")->valueint, 0);  /* n0.g0 */
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 16), "tier")->valueint, 1); /* rail0.leaf0 */
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 24), "tier")->valueint, 2); /* spine0 */
    cJSON_Delete(t);
    test_teardown(&scn, &r);
}

/* The profiles' selectors by GPU and by rail land where they say (check's derived groups name the nodes), and the
 * dump loads back the same (scenarios/ai/ is beyond the scenario suite's round trip). */
static void test_rail_selectors(void)
{
    char *j = rail_json(4, 4, 2, 2, RAIL_TRAFFIC);
    test_write_text("/tmp/rocesim-test-rail.json", j);
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check /tmp/rocesim-test-rail.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"nodes\":\t\"rail1.leaf0-rail1.leaf1\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"nodes\":\t\"n3.g0-n3.g1, n3.g3\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"nodes\":\t\"n3.g2\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"senders\":\t[\"n1.g0\", \"n1.g1\", \"n1.g2\", \"n1.g3\"]"));
    free(out);
    struct scenario s1, s2;
    CU_ASSERT_FATAL(test_load(j, &s1));
    free(j);
    char *d1 = scn_to_json(&s1);
    CU_ASSERT_FATAL(test_load(d1, &s2));
    char *d2 = scn_to_json(&s2);
    CU_ASSERT_STRING_EQUAL(d1, d2);
    free(d1);
    free(d2);
    scn_free(&s1);
    scn_free(&s2);
    snprintf(cmd, sizeof cmd, "%s check /tmp/rocesim-test-rail.json --set 'profiles.0.match=[\"n9.*\"]'",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "profiles.0.match.0: expected a selector matching a host, got \"n9.*\""));
    free(out);
    remove("/tmp/rocesim-test-rail.json");
}

/* Bad input: the loader's message names the path (exit 2 from the program). */
static void test_rail_errors(void)
{
    static const struct {
        int S, G, L, P;
        const char *rest, *want;
    } cases[] = {
        {4, 4, 5, 2, "", "t.json: topology.leaves_per_rail: expected an integer from 1 to servers (4), got 5 "
                         "(every leaf needs a server)"},
        {4, 4, 0, 2, "", "t.json: topology.leaves_per_rail: expected an integer from 1 to 1000000, got 0"},
        {1, 1, 1, 1, "", "t.json: topology: expected at least 2 hosts, got 1 (servers x gpus_per_server)"},
        {4, 4, 1, 2, "\"traffic\": [{\"type\": \"flow\", \"src\": \"n4.g0\", \"dst\": \"n0.g0\", \"size\": \"1KB\"}]",
         "t.json: traffic.0.src: expected a host name, got \"n4.g0\" (no such host node in the rail topology: "
         "n0.g0..n3.g3, rail0.leaf0..rail3.leaf0, spine0..spine1)"},
        {4, 4, 1, 2, "\"traffic\": [{\"type\": \"incast\", \"senders\": \"n0.g0-n1.g3\", \"receiver\": \"n2.g0\", "
         "\"size\": \"1KB\"}]", "t.json: traffic.0.senders: expected \"all\", a host name, a range like \"h0-h15\" "
         "or an array of host names, got \"n0.g0-n1.g3\""},
        {4, 4, 1, 2, "\"traffic\": [{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", \"size\": \"1KB\", "
         "\"path\": [\"n0.g0\", \"rail1.leaf0\", \"n1.g0\"]}]",
         "t.json: traffic.0.path.1: expected a node linked to \"n0.g0\", got \"rail1.leaf0\" (no link between them)"},
        {4, 4, 1, 2, "\"faults\": [{\"type\": \"link_down\", \"between\": [\"rail0.leaf0\", \"spine2\"], "
         "\"at\": \"1us\"}]", "t.json: faults.0.between.1: expected the name of a node in the rail topology: "
         "n0.g0..n3.g3, rail0.leaf0..rail3.leaf0, spine0..spine1, got \"spine2\""},
        {4, 4, 1, 2, "\"faults\": [{\"type\": \"link_down\", \"between\": [\"rail0.leaf0\", \"rail1.leaf0\"], "
         "\"at\": \"1us\"}]", "t.json: faults.0.between: expected two linked nodes, got \"rail0.leaf0\" and "
         "\"rail1.leaf0\" (no link between them)"},
    };
    char err[SCN_ERR_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *j = rail_json(cases[i].S, cases[i].G, cases[i].L, cases[i].P, cases[i].rest);
        test_load_err(j, err, sizeof err);
        CU_ASSERT_STRING_EQUAL(err, cases[i].want);
        free(j);
    }
    test_load_err("{\"topology\": {\"type\": \"rail\", \"servers\": 2, \"spines\": 1, \"link\": {\"rate\": \"1Gbps\"}}}", err,
             sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.gpus_per_server: expected an integer of at least 1, got nothing "
                                "(this field is required)");
    test_load_err("{\"topology\": {\"type\": \"rail\", \"servers\": 2, \"gpus_per_server\": 2, \"spines\": 1, "
             "\"host_link\": {\"rate\": \"1Gbps\"}}}", err, sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.fabric_link: expected a link like {\"rate\": \"100Gbps\", \"delay\": "
                                "\"1us\"} (or a \"link\" for every tier), got nothing (this field is required)");
    /* The program: exit 2, the message on stderr. */
    char *j = rail_json(4, 4, 5, 2, "");
    test_write_text("/tmp/rocesim-test-rail-bad.json", j);
    free(j);
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-rail-bad.json -q --no-plot -o /tmp/rocesim-test-rail-bad",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rocesim-test-rail-bad.json: topology.leaves_per_rail: expected"));
    free(out);
    remove("/tmp/rocesim-test-rail-bad.json");
}

/* docs/scenario.md's "### rail" table lists the module's fields, which the loader's unknown-field message names. */
static void test_rail_documented(void)
{
    char *j = rail_json(2, 2, 1, 1, "");
    char *at = strstr(j, "\"spines\"");
    memcpy(at, "\"spinez\"", 8);
    test_topology_documented(j, "\n### rail\n");
    free(j);
}

void test_rail_register(void)
{
    CU_pSuite s = CU_add_suite("rail", NULL, NULL);
    CU_add_test(s, "counts of several shapes against the formulas; each NIC on its rail's leaf", test_rail_counts);
    CU_add_test(s, "names: every node's looks itself up, near misses find nothing, links as the hooks say",
                test_rail_names);
    CU_add_test(s, "routing: same leaf 2 links, else leaf-spine-leaf over every spine; a rail's flows stay in it",
                test_rail_routing);
    CU_add_test(s, "a run end to end: rings per rail, incast by a range, pinned path, fault, profiles, queues",
                test_rail_run);
    CU_add_test(s, "selectors by GPU and by rail in profiles and ranges; the dump loads back the same",
                test_rail_selectors);
    CU_add_test(s, "bad input: the message names the path, exit 2", test_rail_errors);
    CU_add_test(s, "docs/scenario.md's table lists the module's fields", test_rail_documented);
}
