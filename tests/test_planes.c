/*
 * Dual-ToR and multi-plane fabrics (topologies/multihomed.c): node and link counts against the shapes' formulas,
 * every name looking itself up and the name hooks agreeing with the graph, plain hosts and GPU servers; least-cost
 * paths that stay in their plane; a dual-ToR NIC's flows over both ToRs; runs against theory: two flows from one
 * dual-homed NIC each at the port's rate when the hash puts them on its two ports, N flows over P planes finishing
 * when the busiest plane's share does, a NIC port's link_down halving the NIC for the flows started after it; the
 * loader's errors; docs/scenario.md's tables against the modules'.
 */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "models/route.h"
#include "topologies/routing.h"
#include "tools/run/run.h"
#include "topologies/multihomed.h"
#include "topologies/topo.h"

/* A dual-ToR (multi false: S servers, G racks, P spines) or multi-plane (G leaves and P spines per plane, `planes`)
 * topology object with 100Gbps links, then `rest` (a flow h0 to h1 unless it has traffic of its own). */
static char *mh_json(bool multi, int S, int G, int P, int planes, const char *server, const char *rest)
{
    static const char flow[] = "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
                               "\"size\": \"1KB\"}]";
    static const char gflow[] = "\"traffic\": [{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", "
                                "\"size\": \"1KB\"}]";
    bool own = strstr(rest, "\"traffic\"") != NULL;
    size_t len = strlen(rest) + 1024;
    char *j = malloc(len), shape[160], srv[96] = "";
    if (multi)
        snprintf(shape, sizeof shape, "\"type\": \"multi-plane\", \"servers\": %d, \"planes\": %d, "
                 "\"leaves_per_plane\": %d, \"spines_per_plane\": %d", S, planes, G, P);
    else
        snprintf(shape, sizeof shape, "\"type\": \"dual-tor\", \"servers\": %d, \"racks\": %d, \"spines\": %d",
                 S, G, P);
    if (server)
        snprintf(srv, sizeof srv, ", \"server\": %s", server);
    snprintf(j, len, "{\"stop\": \"10ms\", \"topology\": {%s%s, \"link\": {\"rate\": \"100Gbps\", "
             "\"delay\": \"1us\"}}, "
             "%s%s%s}", shape, srv, own ? "" : server ? gflow : flow, own || !*rest ? "" : ", ", rest);
    return j;
}

static const char preset[] = "{\"preset\": \"hgx-h100\"}";

/* Every node's name looks itself up (the loader's table, and the grammar alone from a bare struct), the hooks'
 * links are the graph's, near misses find nothing. */
static void check_names(const struct scenario *s, const struct graph *g, const char *const *misses)
{
    const struct scn_topo_hooks *h = scn_topo_hooks(s);
    const struct topo_multihomed *t = s->topo.cfg;
    struct topo_multihomed bare = *t;
    bare.names = NULL;
    bare.name_at = NULL;
    char name[SCN_NAME_MAX];
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        CU_ASSERT_STRING_EQUAL(h->node_name(t, (int)n), g->nodes[n].name);
        CU_ASSERT_EQUAL(h->node_index(t, g->nodes[n].name), (int)n);
        CU_ASSERT(topo_mh_name(&bare, n, name, sizeof name) && strcmp(name, g->nodes[n].name) == 0);
    }
    CU_ASSERT(!topo_mh_name(&bare, g->n_nodes, name, sizeof name));
    for (const char *const *m = misses; *m; m++) {
        if (topo_mh_index(t, *m) != -1)
            fprintf(stderr, "\n  %s found", *m);
        CU_ASSERT_EQUAL(topo_mh_index(t, *m), -1);
    }
    for (uint32_t a = 0; a < g->n_nodes; a++)
        for (uint32_t b = 0; b < g->n_nodes; b++) {
            bool linked = false;
            for (uint32_t p = 0; p < g->nodes[a].n_ports && !linked; p++)
                linked = test_peer_of(g, a, p) == b;
            CU_ASSERT_EQUAL(h->linked(t, (int)a, (int)b), linked);
        }
}

/* Builds text into s and g (both to be freed). */
static void build(const char *text, struct scenario *s, struct graph *g)
{
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_FATAL(test_load(text, s));
    CU_ASSERT_EQUAL_FATAL(topo_build(s, g, err, sizeof err), SCN_OK);
}

/* Plain hosts: nodes S + 2G + P (dual) or S + P(G + spines) (multi), links S x ports + leaves x spines each, every
 * host's port q on ToR q / plane q of its block's leaf, the memory estimate's counts. */
static void test_planes_counts(void)
{
    static const int shapes[][5] = {{8, 2, 3, 0, 0}, {5, 5, 1, 0, 0}, {8, 2, 3, 2, 1}, {6, 3, 2, 4, 1},
                                    {2, 1, 1, 1, 1}};
    static const char *const dmiss[] = {"h8", "h01", "rack9.tor0", "rack0.tor2", "rack0", "spine3", "plane0.leaf0",
                                        "n0.g0", "", NULL};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int S = shapes[i][0], G = shapes[i][1], P = shapes[i][2], planes = shapes[i][3];
        const bool multi = shapes[i][4];
        const int ports = multi ? planes : 2, spines = multi ? planes * P : P;
        char *j = mh_json(multi, S, G, P, planes, NULL, "");
        struct scenario s;
        struct graph g;
        build(j, &s, &g);
        free(j);
        CU_ASSERT_EQUAL(g.n_hosts, (uint32_t)S);
        CU_ASSERT_EQUAL(g.n_switches, (uint32_t)(ports * G + spines));
        CU_ASSERT_EQUAL(g.n_links, (uint32_t)(S * ports + ports * G * P));
        struct memest_counts mc = memest_topology(&s, s.topo.n_hosts);
        CU_ASSERT_EQUAL(mc.switches, ports * G + spines);
        CU_ASSERT_EQUAL(mc.links, g.n_links);
        CU_ASSERT_EQUAL(mc.columns, routing_columns(&g));
        char name[SCN_NAME_MAX];
        for (int h = 0; h < S; h++) {
            CU_ASSERT_EQUAL(g.nodes[h].n_ports, (uint32_t)ports);
            for (int q = 0; q < ports; q++) {
                if (multi)
                    snprintf(name, sizeof name, "plane%d.leaf%d", q, h * G / S);
                else
                    snprintf(name, sizeof name, "rack%d.tor%d", h * G / S, q);
                CU_ASSERT_STRING_EQUAL(g.nodes[test_peer_of(&g, (uint32_t)h, (uint32_t)q)].name, name);
            }
        }
        check_names(&s, &g, multi ? (const char *const[]){"h8", "plane9.leaf0", "plane0.leaf9", "plane0.spine9",
                                                          "rack0.tor0", "spine0", "plane0", NULL} : dmiss);
        graph_free(&g);
        scn_free(&s);
    }
}

/* GPU servers (the HGX H100 preset): each NIC node with its PCIe link and one network link per port; names. */
static void test_planes_servers(void)
{
    for (int multi = 0; multi < 2; multi++) {
        char *j = mh_json(multi, 3, 1, 2, 2, preset, "");
        struct scenario s;
        struct graph g;
        build(j, &s, &g);
        free(j);
        CU_ASSERT_EQUAL(g.n_hosts, 24u);
        CU_ASSERT_EQUAL(g.n_switches, (uint32_t)(2 * 8 + (multi ? 2 * 2 : 2) + 3 * server_extra_nodes(&((const struct
                                                 topo_multihomed *)s.topo.cfg)->server)));
        struct memest_counts mc = memest_topology(&s, s.topo.n_hosts);
        CU_ASSERT_EQUAL(mc.switches, g.n_switches);
        CU_ASSERT_EQUAL(mc.links, g.n_links);
        uint32_t nic = (uint32_t)scn_topo_hooks(&s)->node_index(s.topo.cfg, "n2.nic7");
        CU_ASSERT_EQUAL(g.nodes[nic].n_ports, 3u); /* two network ports, then PCIe */
        CU_ASSERT_STRING_EQUAL(g.nodes[test_peer_of(&g, nic, 0)].name, multi ? "plane0.rail7.leaf0" : "rack0.rail7.tor0");
        CU_ASSERT_STRING_EQUAL(g.nodes[test_peer_of(&g, nic, 1)].name, multi ? "plane1.rail7.leaf0" : "rack0.rail7.tor1");
        CU_ASSERT_STRING_EQUAL(g.nodes[test_peer_of(&g, nic, 2)].name, "n2.pcie3");
        check_names(&s, &g, (const char *const[]){"h0", "n3.g0", "n0.g8", "n0.nic8", "rack0.tor0", "plane0.leaf0",
                                                  "rack0.rail8.tor0", "plane0.rail8.leaf0", NULL});
        char label[96];
        topo_label(&s, label, sizeof label);
        CU_ASSERT_STRING_EQUAL(label, multi ? "2-plane fabric of 3 servers"
                                            : "dual-ToR fabric of 3 servers in 1 rack");
        graph_free(&g);
        scn_free(&s);
    }
}

/* Every least-cost continuation from node n to host b, all ECMP choices followed: false when one passes a switch of
 * a plane other than `plane` (a name prefix). */
static bool in_plane(const struct graph *g, uint32_t n, uint32_t b, const char *plane, int depth)
{
    if (n == g->host_node[b])
        return true;
    const uint16_t *p;
    uint32_t k = graph_nexthops(g, n, b, &p);
    if (k == 0 || depth > 6)
        return false;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t m = test_peer_of(g, n, p[i]);
        if (g->nodes[m].kind == SCN_NODE_SWITCH && strncmp(g->nodes[m].name, plane, strlen(plane)) != 0)
            return false;
        if (!in_plane(g, m, b, plane, depth + 1))
            return false;
    }
    return true;
}

/* Multi-plane: from every host by each of its ports, every least-cost path to every other host stays in that
 * port's plane, and the host's first hop offers every plane.  Dual-ToR: a host's flows to the others use both
 * ToRs. */
static void test_planes_routing(void)
{
    char *j = mh_json(true, 8, 2, 2, 3, NULL, "");
    struct scenario s;
    struct graph g;
    build(j, &s, &g);
    free(j);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++) {
            if (a == b)
                continue;
            const uint16_t *p;
            CU_ASSERT_EQUAL(graph_nexthops(&g, a, b, &p), 3u);
            for (uint32_t q = 0; q < 3; q++) {
                char plane[16];
                snprintf(plane, sizeof plane, "plane%u.", q);
                CU_ASSERT(in_plane(&g, test_peer_of(&g, a, q), b, plane, 0));
            }
        }
    graph_free(&g);
    scn_free(&s);
    j = mh_json(false, 8, 2, 2, 0, NULL, "");
    build(j, &s, &g);
    free(j);
    int used[2] = {0, 0};
    for (uint32_t b = 1; b < 8; b++)
        for (uint32_t idx = 0; idx < 4; idx++) {
            uint32_t port = route_host_egress(&g, 0, b, (idx + 8 * b) * 2654435761u);
            CU_ASSERT_FATAL(port < 2);
            used[port]++;
        }
    CU_ASSERT(used[0] > 0 && used[1] > 0);
    graph_free(&g);
    scn_free(&s);
}

/* The flows "f0".."f{n-1}" from h0 to h1..h{n}, `size` each, starting at 10us, as a traffic array. */
static char *fan_out(int n, const char *size, const char *faults)
{
    size_t len = 256 + (size_t)n * 128 + strlen(faults);
    char *j = malloc(len);
    size_t at = (size_t)snprintf(j, len, "\"host\": {\"cc\": \"none\"}, \"traffic\": [");
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(j + at, len - at, "%s{\"type\": \"flow\", \"id\": \"f%d\", \"src\": \"h0\", \"dst\": "
                               "\"h%d\", \"size\": \"%s\", \"start\": \"10us\"}", i ? ", " : "", i, i + 1, size);
    snprintf(j + at, len - at, "]%s", faults);
    return j;
}

/* Runs text; per NIC port q of h0, n[q] flows and end[q] the last one's finish (ps); *ideal and *ser: a flow's
 * ideal FCT and its frames' serialization at one port's rate. */
static void run_ports(const char *text, int *n, sim_time_t *end, double *ideal, double *ser)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(text, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        const struct flow *f = net_flow(&r.net, i);
        CU_ASSERT_FATAL(f->finish >= 0);
        n[f->sport]++;
        if (f->finish > end[f->sport])
            end[f->sport] = f->finish;
        *ideal = (double)f->ideal_fct;
        *ser = (double)f->n_pkts * (f->mtu + HDR_DATA + WIRE_OVERHEAD) * 8e12 / (double)f->line_bps;
    }
    test_teardown(&scn, &r);
}

/* Port q's flows, sharing it round-robin and nothing else, end at 10us + ideal + (n[q] - 1) x ser (within 2%). */
static void check_ports(const int *n, const sim_time_t *end, int ports, double ideal, double ser)
{
    for (int q = 0; q < ports; q++) {
        if (!n[q])
            continue;
        double want = 10e6 + ideal + (n[q] - 1) * ser, got = (double)end[q];
        CU_ASSERT(got > want * 0.98 && got < want * 1.02);
        if (!(got > want * 0.98 && got < want * 1.02))
            fprintf(stderr, "\n  port %d: %d flows end at %.0f ps, theory %.0f", q, n[q], got, want);
    }
}

/* Dual-ToR, 8 hosts in 2 racks: h0's 7 flows hash over its two ports (both used), each port's flows finishing as
 * one port's rate allows, so the NIC moves twice a port's rate; with h0's port to rack0.tor0 down before they
 * start, all 7 take the other port and finish when one port's rate allows: the NIC at half. */
static void test_planes_dual_run(void)
{
    char *t = fan_out(7, "512KB", ""), *j = mh_json(false, 8, 2, 2, 0, NULL, t);
    int n[16] = {0};
    sim_time_t end[16] = {0};
    double ideal = 0, ser = 0;
    run_ports(j, n, end, &ideal, &ser);
    free(t);
    free(j);
    CU_ASSERT(n[0] > 0 && n[1] > 0 && n[0] + n[1] == 7);
    check_ports(n, end, 2, ideal, ser);
    int m[16] = {0};
    sim_time_t mend[16] = {0};
    t = fan_out(7, "512KB", ", \"faults\": [{\"type\": \"link_down\", \"between\": [\"h0\", \"rack0.tor0\"], "
                "\"at\": \"1us\"}]");
    j = mh_json(false, 8, 2, 2, 0, NULL, t);
    run_ports(j, m, mend, &ideal, &ser);
    free(t);
    free(j);
    CU_ASSERT_EQUAL(m[1], 7);
    check_ports(m, mend, 2, ideal, ser);
}

/* Multi-plane, 4 planes of one leaf: h0's 8 flows (two to each of h1..h4) spread over the planes by hash; each
 * plane's flows end when that plane's share allows (the per-plane bound: n_p flows at one port's rate); with plane
 * 0's port of h0 down first, none takes plane 0. */
static void test_planes_multi_run(void)
{
    char *t = fan_out(4, "256KB", ""), *j;
    /* two flows to each receiver: the fan-out twice, renamed */
    size_t len = strlen(t) * 2 + 64;
    char *two = malloc(len), *second = strdup(strstr(t, "[") + 1);
    for (char *p = strstr(second, "\"id\": \"f"); p; p = strstr(p + 1, "\"id\": \"f"))
        p[7] = 'g';
    second[strlen(second) - 1] = '\0';
    snprintf(two, len, "%.*s, %s]", (int)(strlen(t) - 1), t, second);
    j = mh_json(true, 5, 1, 1, 4, NULL, two);
    int n[16] = {0};
    sim_time_t end[16] = {0};
    double ideal = 0, ser = 0;
    run_ports(j, n, end, &ideal, &ser);
    free(j);
    CU_ASSERT_EQUAL(n[0] + n[1] + n[2] + n[3], 8);
    int busy = 0;
    for (int q = 0; q < 4; q++)
        busy += n[q] > 0;
    CU_ASSERT(busy >= 2);
    check_ports(n, end, 4, ideal, ser);
    char *f = malloc(strlen(two) + 256);
    sprintf(f, "%s, \"faults\": [{\"type\": \"link_down\", \"between\": [\"h0\", \"plane0.leaf0\"], \"at\": \"1us\"}]",
            two);
    j = mh_json(true, 5, 1, 1, 4, NULL, f);
    int m[16] = {0};
    sim_time_t mend[16] = {0};
    run_ports(j, m, mend, &ideal, &ser);
    CU_ASSERT_EQUAL(m[0], 0);
    CU_ASSERT_EQUAL(m[1] + m[2] + m[3], 8);
    check_ports(m, mend, 4, ideal, ser);
    free(j);
    free(f);
    free(two);
    free(second);
    free(t);
}

#define GPU_TRAFFIC(a, b, c)                                                                                        \
    "\"host\": {\"mtu\": 4096}, \"traffic\": [{\"type\": \"flow\", \"id\": \"a\", \"src\": \"n0.g0\", \"dst\": "  \
    "\"n1.g0\", \"size\": \"256KB\"}, {\"type\": \"flow\", \"id\": \"b\", \"src\": \"n0.g1\", \"dst\": "        \
    "\"n1.g1\", \"size\": \"256KB\"}, {\"type\": \"incast\", \"id\": \"in\", \"senders\": \"n0.g2-n0.g7\", "     \
    "\"receiver\": \"n1.g3\", \"size\": \"64KB\"}, {\"type\": \"flow\", \"id\": \"p\", \"src\": \"n1.g4\", "     \
    "\"dst\": \"n0.g4\", \"size\": \"64KB\", \"start\": \"20us\", \"path\": [\"n1.g4\", \"n1.pcie2\", "          \
    "\"n1.nic4\", \"" a "\", \"n0.nic4\", \"n0.pcie2\", \"n0.g4\"]}], "                                        \
    "\"faults\": [{\"type\": \"link_down\", \"between\": [\"n0.nic5\", \"" b "\"], \"at\": \"5ms\"}], "          \
    "\"profiles\": [{\"match\": [\"" c "\"], \"switch\": {\"buffer\": \"16MB\"}}], "                             \
    "\"monitor\": {\"queues\": [\"" b ":*\", \"n0.nic0:*\"], \"flows\": [\"a\", \"p\"]}"

/* GPU servers of the HGX H100 preset, GPU flows between two servers: pinned path, fault, profile and queues by the
 * topology's names; every flow finishes, the GPUs' flows leave by both ToRs or planes across flows, and each
 * flow's fabric switches lie in one plane (multi-plane; a dual-ToR flow may cross to the other ToR at a spine). */
static void test_planes_gpu_run(void)
{
    static const char *const texts[2] = {
        GPU_TRAFFIC("rack0.rail4.tor1", "rack0.rail5.tor0", "rack0.*"),
        GPU_TRAFFIC("plane1.rail4.leaf0", "plane0.rail5.leaf0", "plane1.*"),
    };
    for (int multi = 0; multi < 2; multi++) {
        char *j = mh_json(multi, 2, 1, 1, 2, preset, texts[multi]);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
        free(j);
        test_run_checked(&r);
        bool used[2] = {false, false};
        for (uint32_t i = 0; i < r.net.n_flows; i++) {
            const struct flow *f = net_flow(&r.net, i);
            CU_ASSERT(f->finish >= 0);
            int plane = -1;
            for (int k = 0; k < f->path_len; k++) {
                const char *nm = r.g.nodes[f->path_nodes[k]].name;
                if (r.g.nodes[f->path_nodes[k]].in_server || r.g.nodes[f->path_nodes[k]].kind == SCN_NODE_HOST)
                    continue;
                if (!multi && strncmp(nm, "rack", 4) != 0)
                    break; /* past the source's ToR: dual-ToR's ToRs share the spines */
                int q = multi ? nm[5] - '0' : nm[strlen(nm) - 1] - '0'; /* plane{q}. or .tor{q} */
                CU_ASSERT(plane < 0 || plane == q);
                plane = q;
            }
            if (plane >= 0)
                used[plane] = true;
        }
        CU_ASSERT(used[0] && used[1]);
        test_teardown(&scn, &r);
    }
}

/* Bad input: the loader's message names the path. */
static void test_planes_errors(void)
{
    char err[SCN_ERR_MAX];
    char *j = mh_json(false, 4, 5, 2, 0, NULL, "");
    test_load_err(j, err, sizeof err);
    free(j);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.racks: expected an integer from 1 to servers (4), got 5 (every "
                                "leaf needs a server)");
    j = mh_json(true, 4, 5, 2, 2, NULL, "");
    test_load_err(j, err, sizeof err);
    free(j);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.leaves_per_plane: expected an integer from 1 to servers (4), got 5 "
                                "(every leaf needs a server)");
    j = mh_json(true, 4, 1, 2, 17, NULL, "");
    test_load_err(j, err, sizeof err);
    free(j);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.planes: expected an integer from 1 to 16, got 17");
    j = mh_json(true, 4, 1, 1, 2, NULL, "\"faults\": [{\"type\": \"link_down\", \"between\": [\"h0\", "
                "\"plane1.leaf1\"], \"at\": \"1us\"}]");
    test_load_err(j, err, sizeof err);
    free(j);
    CU_ASSERT_STRING_EQUAL(err, "t.json: faults.0.between.1: expected the name of a node in the multi-plane topology: "
                                "h0..h3, plane0.leaf0..plane1.leaf0, plane0.spine0..plane1.spine0, "
                                "got \"plane1.leaf1\"");
    j = mh_json(false, 4, 2, 1, 0, NULL, "\"faults\": [{\"type\": \"link_down\", \"between\": [\"h0\", "
                "\"rack1.tor0\"], \"at\": \"1us\"}]");
    test_load_err(j, err, sizeof err);
    free(j);
    CU_ASSERT_STRING_EQUAL(err, "t.json: faults.0.between: expected two linked nodes, got \"h0\" and \"rack1.tor0\" "
                                "(no link between them)");
}

static void test_planes_documented(void)
{
    test_topology_documented("{\"topology\": {\"type\": \"dual-tor\", \"servers\": 2, \"spinez\": 1}}", "\n### dual-tor\n");
    test_topology_documented("{\"topology\": {\"type\": \"multi-plane\", \"servers\": 2, \"spinez\": 1}}",
                     "\n### multi-plane\n");
}

void test_planes_register(void)
{
    CU_pSuite s = CU_add_suite("planes", NULL, NULL);
    CU_add_test(s, "counts of several shapes against the formulas; each NIC port on its ToR or plane; names",
                test_planes_counts);
    CU_add_test(s, "GPU servers: each NIC node with a network link per port; names", test_planes_servers);
    CU_add_test(s, "routing: least-cost paths stay in their plane; a dual-ToR NIC's flows over both ToRs",
                test_planes_routing);
    CU_add_test(s, "dual-ToR run: both ports at their rate; a port down halves the NIC for later flows",
                test_planes_dual_run);
    CU_add_test(s, "multi-plane run: the per-plane bound; a plane's port down moves later flows off it",
                test_planes_multi_run);
    CU_add_test(s, "GPU servers end to end: names in paths, faults, profiles, queues; flows over both planes",
                test_planes_gpu_run);
    CU_add_test(s, "bad input: the message names the path", test_planes_errors);
    CU_add_test(s, "docs/scenario.md's tables list the modules' fields", test_planes_documented);
}
