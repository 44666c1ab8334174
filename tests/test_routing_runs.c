/*
 * Whole runs of routing and link failures: ECMP spread on a fat-tree, a link
 * that fails in the middle of a run (and comes back), pinned paths and host
 * links through a failure, dragonfly Valiant and UGAL on real packets, and
 * `rocesim topo` for every shipped scenario.
 */
#include "models/route.h"
#include "sim/units.h"
#include "tests/tests.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends printf-style text to a growing string; aborts when out of memory. */
static void cat(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *piece = NULL;
    int k = vasprintf(&piece, fmt, ap);
    va_end(ap);
    if (k < 0)
        abort();
    char *nb = realloc(*buf, *len + (size_t)k + 1);
    if (!nb)
        abort();
    memcpy(nb + *len, piece, (size_t)k + 1);
    *buf = nb;
    *len += (size_t)k;
    free(piece);
}

/* Whether the path nodes[0..len] crosses the link between nodes a and b, in either direction. */
static bool path_crosses(const uint32_t *nodes, int len, uint32_t a, uint32_t b)
{
    for (int i = 0; i < len; i++)
        if ((nodes[i] == a && nodes[i + 1] == b) || (nodes[i] == b && nodes[i + 1] == a))
            return true;
    return false;
}

static void test_ecmp_spread_fat_tree(void)
{
    /* k = 8: 128 hosts; a seeded random permutation (no host sends to itself) of long flows. */
    enum { K = 8, HOSTS = K * K * K / 4 };
    int perm[HOSTS];
    struct rng g;
    rng_init(&g, 7, rng_stream_id(RNG_KIND_TEST, 4));
    for (int i = 0; i < HOSTS; i++)
        perm[i] = i;
    for (int i = HOSTS - 1; i > 0; i--) {
        int j = (int)rng_below(&g, (uint32_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < HOSTS; i++) {
        if (perm[i] == i) {
            int j = (i + 1) % HOSTS, t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    char *json = NULL;
    size_t len = 0;
    cat(&json, &len, "{\"topology\": {\"type\": \"fat-tree\", \"k\": %d, \"link\": {\"rate\": \"100Gbps\", "
                     "\"delay\": \"1us\"}}, \"stop\": \"300us\", \"traffic\": [", K);
    for (int i = 0; i < HOSTS; i++)
        cat(&json, &len, "%s{\"type\": \"flow\", \"src\": \"h%d\", \"dst\": \"h%d\", \"size\": \"100MB\"}", i ? ", " : "",
            i, perm[i]);
    cat(&json, &len, "]}");
    struct scenario scn;
    struct run r;
    bool ok = test_setup(json, NULL, NULL, &scn, &r);
    free(json);
    CU_ASSERT_FATAL(ok);
    test_run_checked(&r);
    CU_ASSERT_FALSE(r.finished);

    /* Every agg-core link direction: the aggs' uplinks and the cores' ports. */
    const struct graph *gr = &r.g;
    uint64_t sum = 0, max = 0;
    uint32_t dirs = 0, cores_used = 0, cross_pod = 0;
    for (int i = 0; i < HOSTS; i++)
        cross_pod += i / (K * K / 4) != perm[i] / (K * K / 4);
    for (uint32_t n = 0; n < gr->n_nodes; n++) {
        if (strncmp(gr->nodes[n].name, "core", 4) != 0)
            continue;
        uint64_t core_bytes = 0;
        for (uint32_t i = 0; i < gr->nodes[n].n_ports; i++) {
            const struct port *p = &r.net.ports[gr->nodes[n].first_port + i];
            uint64_t both[2] = {p->tx_bytes, p->peer->tx_bytes};
            for (int d = 0; d < 2; d++) {
                sum += both[d];
                max = both[d] > max ? both[d] : max;
                dirs++;
            }
            core_bytes += p->tx_bytes;
        }
        cores_used += core_bytes > 0;
    }
    double mean = (double)sum / dirs;
    printf("\n    %u cross-pod flows over %u core link directions: max %.2f MB, mean %.2f MB, max/mean %.2f; "
           "%u of %d cores used ",
           cross_pod, dirs, max / 1e6, mean / 1e6, max / mean, cores_used, K * K / 4);
    CU_ASSERT_EQUAL(dirs, 2u * K * (K / 2) * (K / 2));
    CU_ASSERT_EQUAL(cores_used, (uint32_t)(K * K / 4));
    CU_ASSERT(mean > 0);
    CU_ASSERT((double)max <= 3.0 * mean);
    test_teardown(&scn, &r);
}

/* Four flows from leaf0's hosts to leaf1's, 4 MB each, over a 2 x 2 leaf-spine. */
#define LEAF_SPINE(faults)                                                                                         \
    "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 4,"             \
    " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"stop\": \"50ms\","                               \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"4MB\"},"                 \
    "  {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h5\", \"size\": \"4MB\"},"                               \
    "  {\"type\": \"flow\", \"src\": \"h2\", \"dst\": \"h6\", \"size\": \"4MB\"},"                               \
    "  {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h7\", \"size\": \"4MB\"}]," faults "}"

static void test_link_failure_mid_run(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(LEAF_SPINE("\"faults\": [{\"type\": \"link_down\", \"between\": [\"leaf0\", \"spine0\"],"
                                     " \"at\": \"100us\", \"until\": \"600us\"}]"),
                          NULL, NULL, &scn, &r));
    uint32_t leaf0 = test_node(&r, "leaf0"), spine0 = test_node(&r, "spine0");
    uint32_t nodes[16];
    int crossing = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        int l = route_flow_path(&r.net, net_flow(&r.net, i), nodes, 16);
        CU_ASSERT_EQUAL(l, 4);
        crossing += path_crosses(nodes, l, leaf0, spine0);
    }
    CU_ASSERT(crossing > 0); /* with this seed ECMP puts some flows on the link that fails */
    struct port *up = test_port_to(&r, "leaf0", "spine0"), *down = test_port_to(&r, "spine0", "leaf0");

    sim_run(&r.sim, 150 * PS_PER_US);
    CU_ASSERT(up->down && down->down);
    CU_ASSERT_TRUE(r.g.links[r.g.ports[port_id(up)].link].down);
    CU_ASSERT_EQUAL(r.net.links_down_now, 1);
    uint64_t drops = r.net.c.drop_link_down;
    CU_ASSERT(drops > 0); /* the frames queued at leaf0 and those on the wire */
    for (int prio = 0; prio < NPRIO; prio++)
        CU_ASSERT_EQUAL(port_pp(up, prio)->q.n + port_pp(down, prio)->q.n, 0);
    /* Rerouted: no flow's path crosses the failed link, and nothing is sent on it. */
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        int l = route_flow_path(&r.net, net_flow(&r.net, i), nodes, 16);
        CU_ASSERT_EQUAL(l, 4);
        CU_ASSERT_FALSE(path_crosses(nodes, l, leaf0, spine0));
    }
    uint64_t tx_up = up->tx_frames, tx_down = down->tx_frames;
    char err[256];
    CU_ASSERT_EQUAL(net_check_invariants(&r.net, err, sizeof err), 0);
    sim_run(&r.sim, 550 * PS_PER_US);
    CU_ASSERT_EQUAL(up->tx_frames, tx_up);
    CU_ASSERT_EQUAL(down->tx_frames, tx_down);
    CU_ASSERT(r.net.c.drop_link_down == drops || r.net.c.drop_link_down > drops);

    test_run_checked(&r);
    printf("\n    %d of 4 flows crossed the link; %llu link_down drops, %llu retransmissions, %llu NACKs, "
           "done at %.3f ms ",
           crossing, (unsigned long long)r.net.c.drop_link_down, (unsigned long long)r.net.c.data_retx,
           (unsigned long long)r.net.c.nacks_sent, r.sim.now / 1e9);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 4);
    CU_ASSERT(r.net.c.data_retx > 0);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, r.net.c.drop_link_down);
    CU_ASSERT_EQUAL(r.net.c.data_sent, r.net.c.data_delivered + r.net.c.data_dropped);
    CU_ASSERT_EQUAL(r.net.link_failures, 1);
    CU_ASSERT_EQUAL(r.net.reroutes, 2); /* at the failure and at the recovery */
    CU_ASSERT_EQUAL(r.net.links_down_now, 0);
    CU_ASSERT_FALSE(r.g.links[r.g.ports[port_id(up)].link].down);
    CU_ASSERT(up->tx_frames > tx_up || down->tx_frames > tx_down); /* in use again after the recovery */
    char *js = run_summary_json(&r, false);
    cJSON *j = cJSON_Parse(js);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(j, "routing");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(rt, "link_failures")->valueint, 1);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(rt, "reroutes")->valueint, 2);
    const cJSON *dr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "packets"), "drops_by_reason");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(dr, "link_down")->valuedouble, (double)r.net.c.drop_link_down);
    cJSON_Delete(j);
    free(js);
    test_teardown(&scn, &r);
}

static void test_link_failure_pinned_and_host(void)
{
    /*
     * A flow pinned through leaf0-spine0 loses its frames while the link is
     * down and finishes after it returns (RTO); a flow to h5, whose only link
     * fails, too: leaf1 has no route to h5 in between.
     */
    const char *json =
        "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 4,"
        " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"stop\": \"50ms\", \"host\": {\"rto\": \"200us\"},"
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"2MB\","
        "   \"path\": [\"h0\", \"leaf0\", \"spine0\", \"leaf1\", \"h4\"]},"
        "  {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h5\", \"size\": \"2MB\"}],"
        " \"faults\": [{\"type\": \"link_down\", \"between\": [\"spine0\", \"leaf0\"], \"at\": \"50us\", \"until\": \"400us\"},"
        "  {\"type\": \"link_down\", \"between\": [\"leaf1\", \"h5\"], \"at\": \"60us\", \"until\": \"300us\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    sim_run(&r.sim, 100 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.links_down_now, 2);
    const uint16_t *ports;
    CU_ASSERT_EQUAL(graph_nexthops(&r.g, test_node(&r, "leaf1"), 5, &ports), 0);
    uint32_t rcv0 = net_flow(&r.net, 0)->rcv_nxt, rcv1 = net_flow(&r.net, 1)->rcv_nxt;
    sim_run(&r.sim, 250 * PS_PER_US);
    CU_ASSERT_EQUAL(net_flow(&r.net, 0)->rcv_nxt, rcv0); /* nothing got through meanwhile */
    CU_ASSERT_EQUAL(net_flow(&r.net, 1)->rcv_nxt, rcv1);
    test_run_checked(&r);
    printf("\n    %llu link_down drops, %llu timeouts, done at %.3f ms ", (unsigned long long)r.net.c.drop_link_down,
           (unsigned long long)r.net.c.timeouts, r.sim.now / 1e9);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 2);
    CU_ASSERT(r.net.c.drop_link_down > 0);
    CU_ASSERT(r.net.c.timeouts > 0);
    CU_ASSERT(net_flow(&r.net, 0)->finish > 400 * PS_PER_US);
    CU_ASSERT(net_flow(&r.net, 1)->finish > 300 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.reroutes, 4);
    test_teardown(&scn, &r);
}

static void test_link_failure_lossless_pause_cleared(void)
{
    /*
     * An incast through leaf1: PFC pauses build up on spine-leaf links.  When
     * spine0-leaf1 fails, the pause state on it must go (nothing could lift it),
     * the buffers must balance, and every flow must still finish.
     */
    const char *json =
        "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 3, \"spines\": 2, \"hosts_per_leaf\": 4,"
        " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"stop\": \"100ms\", \"host\": {\"cc\": \"none\"},"
        " \"switch\": {\"buffer\": \"2MB\"},"
        " \"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h7\", \"receiver\": \"h8\", \"size\": \"1MB\"}],"
        " \"faults\": [{\"type\": \"link_down\", \"between\": [\"spine0\", \"leaf2\"], \"at\": \"200us\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    struct port *a = test_port_to(&r, "spine0", "leaf2"), *b = test_port_to(&r, "leaf2", "spine0");
    printf("\n    %llu PAUSE, %llu link_down drops, done at %.3f ms ", (unsigned long long)r.net.c.pause_frames,
           (unsigned long long)r.net.c.drop_link_down, r.sim.now / 1e9);
    CU_ASSERT(r.net.c.pause_frames > 0);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 8);
    CU_ASSERT_EQUAL(a->paused | b->paused, 0);
    for (int prio = 0; prio < NPRIO; prio++)
        CU_ASSERT_FALSE(((a->pause_sent >> prio) & 1) || ((b->pause_sent >> prio) & 1));
    CU_ASSERT_EQUAL(r.net.c.drop_buffer + r.net.c.drop_headroom, 0);
    test_teardown(&scn, &r);
}

static void test_link_down_errors(void)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    struct {
        const char *between, *want;
    } cases[] = {
        {"[\"leaf0\", \"spine9\"]",
         "test.json: faults.0.between.1: expected a node name, got \"spine9\" (no such node)"},
        {"[\"leaf0\", \"leaf1\"]",
         "test.json: faults.0.between: expected two linked nodes, got \"leaf0\" and \"leaf1\" (no link between them)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[2048];
        snprintf(json, sizeof json,
                 LEAF_SPINE("\"faults\": [{\"type\": \"link_down\", \"between\": %s, \"at\": \"1us\"}]"),
                 cases[i].between);
        CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", json, NULL, 0, &scn, err, sizeof err), SCN_OK);
        CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, cases[i].want);
        scn_free(&scn);
    }
    /* A good link_down next to NIC faults sets up (pause_storm and slow_receiver are simulated: test_pathologies.c). */
    char json[2048];
    snprintf(json, sizeof json, LEAF_SPINE("\"faults\": [{\"type\": \"link_down\", \"between\": [\"leaf0\", \"spine0\"],"
                                           " \"at\": \"1us\"}, {\"type\": \"pause_storm\", \"host\": \"h1\", \"start\": \"1us\"}]"));
    CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", json, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), 0);
    run_free(&r);
    scn_free(&scn);
    /* The CLI: exit 2 and the message, from `check` as from `run`. */
    char *out = NULL, cmd[1024];
    snprintf(cmd, sizeof cmd, "%s check scenarios/link-failure.json --set 'faults.0.between=[\"leaf0\", \"nope\"]'",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/link-failure.json: faults.0.between.1: expected a node name"));
    free(out);
}

/*
 * A dragonfly (a=4, p=2, h=2: 9 groups, 72 hosts) with short flows spaced
 * far apart in time, so that no frame ever waits: no PAUSE, no ECN mark, no
 * loss.  The flows go between hosts of random pairs of groups.
 */
static char *df_spaced(const char *routing, int n_flows, const char *size, int gap_us)
{
    struct rng g;
    rng_init(&g, 3, rng_stream_id(RNG_KIND_TEST, 5));
    char *json = NULL;
    size_t len = 0;
    cat(&json, &len, "{\"topology\": {\"type\": \"dragonfly\", \"a\": 4, \"p\": 2, \"h\": 2, \"routing\": \"%s\","
                     " \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"},"
                     " \"local_link\": {\"rate\": \"100Gbps\", \"length\": \"5m\"},"
                     " \"global_link\": {\"rate\": \"100Gbps\", \"length\": \"50m\"}},"
                     " \"stop\": \"100ms\", \"traffic\": [", routing);
    for (int i = 0; i < n_flows; i++) {
        uint32_t src = rng_below(&g, 72), dst = rng_below(&g, 71);
        dst += dst >= src;
        cat(&json, &len, "%s{\"type\": \"flow\", \"src\": \"h%u\", \"dst\": \"h%u\", \"size\": \"%s\", \"start\": \"%dus\"}",
            i ? ", " : "", src, dst, size, i * gap_us);
    }
    cat(&json, &len, "]}");
    return json;
}

/* Router-to-router hops and global links of a host-to-host path of l links. */
static void count_hops(const struct run *r, const uint32_t *nodes, int l, int *router_hops, int *globals)
{
    *router_hops = l - 2;
    *globals = 0;
    for (int i = 1; i + 1 < l; i++)
        *globals += r->g.nodes[nodes[i]].group != r->g.nodes[nodes[i + 1]].group;
}

/*
 * Runs n_flows spaced flows under `routing`; checks every flow's path (walked
 * through the tables with the flow's own choices) against the bounds, and that
 * the frames really took those paths: with nothing queued, each data packet
 * crosses its forward path once and its ACK the minimal reverse path once, so
 * packet-hops must equal the sum over flows of packets x (forward + reverse links).
 */
static void check_df_paths(const char *routing, int max_router_hops, int want_globals_max)
{
    enum { FLOWS = 60 };
    char *json = df_spaced(routing, FLOWS, "8KB", 20);
    struct scenario scn;
    struct run r;
    bool ok = test_setup(json, NULL, NULL, &scn, &r);
    free(json);
    CU_ASSERT_FATAL(ok);
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, FLOWS);
    CU_ASSERT_EQUAL(r.net.c.pause_frames + r.net.c.cnp_sent + r.net.c.data_dropped + r.net.c.data_retx, 0);
    uint64_t expect_hops = 0;
    int worst = 0, worst_globals = 0, detoured = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        const struct flow *f = net_flow(&r.net, i);
        uint32_t nodes[32];
        int l = route_flow_path(&r.net, f, nodes, 32);
        int back = route_path(&r.net, f->dst, f->src, f->hash_rev, NET_NO_VIA, -1, NULL, 32, NULL);
        CU_ASSERT(l >= 2 && back >= 2);
        int hops, globals;
        count_hops(&r, nodes, l, &hops, &globals);
        worst = hops > worst ? hops : worst;
        worst_globals = globals > worst_globals ? globals : worst_globals;
        detoured += f->via_host != NET_NO_VIA;
        if (f->via_host != NET_NO_VIA) {
            /* Valiant: through the intermediate group, which is neither end's. */
            bool through = false;
            for (int k = 1; k < l; k++)
                through |= r.g.nodes[nodes[k]].group == f->via_group;
            CU_ASSERT_TRUE(through);
            CU_ASSERT_NOT_EQUAL(f->via_group, r.g.nodes[nodes[0]].group);
            CU_ASSERT_NOT_EQUAL(f->via_group, r.g.nodes[nodes[l]].group);
        }
        expect_hops += (uint64_t)f->n_pkts * (uint64_t)(l + back);
    }
    printf("\n    %s: %d of %d flows detoured; longest path %d router hops, %d global links; packet-hops %llu ",
           routing, detoured, FLOWS, worst, worst_globals, (unsigned long long)r.net.c.packet_hops);
    CU_ASSERT_EQUAL(r.net.c.packet_hops, expect_hops);
    CU_ASSERT(worst <= max_router_hops);
    CU_ASSERT_EQUAL(worst_globals, want_globals_max);
    if (strcmp(routing, "valiant") == 0) {
        CU_ASSERT_EQUAL(detoured, FLOWS); /* g = 9: there is always a third group */
        CU_ASSERT(worst >= 4);
    } else {
        CU_ASSERT_EQUAL(detoured, 0);
    }
    CU_ASSERT_EQUAL((int)r.net.flows_valiant, detoured);
    test_teardown(&scn, &r);
}

static void test_dragonfly_minimal_and_valiant_paths(void)
{
    check_df_paths("minimal", 3, 1);
    check_df_paths("valiant", 5, 2);
    /* UGAL with idle queues: 0 x H_min is never above 0 x H_val, so every flow stays minimal. */
    check_df_paths("ugal", 3, 1);
}

static void test_valiant_streams_per_flow(void)
{
    /* Flow 0's intermediate group comes from its own stream: other flows do not shift it; the seed does. */
    uint32_t via[3];
    const char *extra[3] = {"", ", {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h40\", \"size\": \"8KB\"}", ""};
    const char *seeds[3] = {"1", "1", "2"};
    for (int i = 0; i < 3; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"topology\": {\"type\": \"dragonfly\", \"a\": 4, \"p\": 2, \"h\": 2, \"routing\": \"valiant\","
                 " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
                 " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h60\", \"size\": \"8KB\"}%s]}",
                 extra[i]);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, "seed", seeds[i], &scn, &r));
        test_run_checked(&r);
        via[i] = net_flow(&r.net, 0)->via_host;
        CU_ASSERT_NOT_EQUAL(via[i], NET_NO_VIA);
        test_teardown(&scn, &r);
    }
    CU_ASSERT_EQUAL(via[0], via[1]);
    CU_ASSERT_NOT_EQUAL(via[0], via[2]);
}

static void test_ugal_adversarial(void)
{
    /*
     * Every host of group 0 sends to group 1, four waves 10 us apart: the one
     * global link between the two groups is the bottleneck, its queue (and,
     * through PFC, the local queues feeding it) builds up, and UGAL sends the
     * later waves through other groups.
     */
    char *json = NULL;
    size_t len = 0;
    cat(&json, &len, "{\"topology\": {\"type\": \"dragonfly\", \"a\": 4, \"p\": 2, \"h\": 2, \"routing\": \"ugal\","
                     " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"stop\": \"20ms\", \"traffic\": [");
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++)
            cat(&json, &len, "%s{\"type\": \"flow\", \"src\": \"h%d\", \"dst\": \"h%d\", \"size\": \"256KB\", \"start\": \"%dus\"}",
                i || k ? ", " : "", i, 8 + (i + k) % 8, 10 * k);
    cat(&json, &len, "]}");
    double done[2];
    uint32_t valiant[2];
    for (int v = 0; v < 2; v++) {
        struct scenario scn;
        struct run r;
        bool ok = test_setup(json, "topology.routing", v ? "ugal" : "minimal", &scn, &r);
        CU_ASSERT_FATAL(ok);
        test_run_checked(&r);
        CU_ASSERT_TRUE(r.finished);
        CU_ASSERT_EQUAL(r.net.flows_completed, 32);
        done[v] = r.sim.now / 1e6;
        valiant[v] = r.net.flows_valiant;
        if (v) {
            /* The first wave sees empty queues: minimal. */
            for (uint32_t i = 0; i < r.net.n_flows; i++)
                if (net_flow(&r.net, i)->start == 0)
                    CU_ASSERT_EQUAL(net_flow(&r.net, i)->via_host, NET_NO_VIA);
        }
        test_teardown(&scn, &r);
    }
    free(json);
    printf("\n    group 0 -> group 1: minimal done at %.1f us; UGAL sent %u of 32 flows through other groups, done "
           "at %.1f us ",
           done[0], valiant[1], done[1]);
    CU_ASSERT_EQUAL(valiant[0], 0);
    CU_ASSERT(valiant[1] >= 8);
    CU_ASSERT(done[1] < done[0]);
}

static void test_ugal_light_uniform(void)
{
    /* Light uniform load: 40 flows of 64 KB between random hosts, 5 us apart (about 10% of a host link). */
    char *json = df_spaced("ugal", 40, "64KB", 5);
    struct scenario scn;
    struct run r;
    bool ok = test_setup(json, NULL, NULL, &scn, &r);
    free(json);
    CU_ASSERT_FATAL(ok);
    test_run_checked(&r);
    printf("\n    light load: UGAL detoured %u of 40 flows ", r.net.flows_valiant);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 40);
    CU_ASSERT_EQUAL(r.net.flows_valiant, 0);
    test_teardown(&scn, &r);
}

static void test_dragonfly_link_failure(void)
{
    /*
     * The only global link between groups 0 and 1 fails: minimal routes
     * between them must take two global links through another group, and the
     * flow crossing it finishes.
     */
    const char *json =
        "{\"topology\": {\"type\": \"dragonfly\", \"a\": 4, \"p\": 2, \"h\": 2,"
        " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"stop\": \"50ms\","
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h15\", \"size\": \"2MB\"}],"
        " \"faults\": [{\"type\": \"link_down\", \"between\": [\"g0r0\", \"g1r3\"], \"at\": \"50us\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    uint32_t nodes[32];
    int hops, globals;
    int l = route_flow_path(&r.net, net_flow(&r.net, 0), nodes, 32);
    count_hops(&r, nodes, l, &hops, &globals);
    CU_ASSERT_EQUAL(globals, 1);
    CU_ASSERT(path_crosses(nodes, l, test_node(&r, "g0r0"), test_node(&r, "g1r3")));
    test_run_checked(&r);
    l = route_flow_path(&r.net, net_flow(&r.net, 0), nodes, 32);
    count_hops(&r, nodes, l, &hops, &globals);
    printf("\n    after the failure: %d router hops, %d global links; %llu link_down drops ", hops, globals,
           (unsigned long long)r.net.c.drop_link_down);
    CU_ASSERT_EQUAL(globals, 2);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 1);
    CU_ASSERT(r.net.c.drop_link_down > 0);
    test_teardown(&scn, &r);
}

static void test_topo_every_scenario(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    bool saw_dragonfly = false;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *formats[2] = {"json", "dot"};
        for (int k = 0; k < 2; k++) {
            char cmd[1024], *out = NULL;
            snprintf(cmd, sizeof cmd, "%s topo %s --format %s 2>&1", test_rocesim_bin(), g.gl_pathv[i], formats[k]);
            int rc = test_run(cmd, &out);
            if (rc != 0)
                fprintf(stderr, "\n  %s\n%s\n", cmd, out ? out : "");
            CU_ASSERT_EQUAL(rc, 0);
            if (k == 0) {
                cJSON *j = out ? cJSON_Parse(out) : NULL;
                CU_ASSERT_PTR_NOT_NULL(j);
                CU_ASSERT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "links")) > 0);
                cJSON_Delete(j);
            } else {
                CU_ASSERT(out && strncmp(out, "graph topology {", 16) == 0);
                saw_dragonfly |= out && strstr(out, "\"g8r3\" [shape=box];") != NULL;
            }
            free(out);
        }
    }
    globfree(&g);
    CU_ASSERT_TRUE(saw_dragonfly); /* scenarios/dragonfly.json */
}

void test_routing_runs_register(void)
{
    CU_pSuite s = CU_add_suite("routing and link failures (whole runs)", NULL, NULL);
    CU_add_test(s, "ECMP on a k=8 fat-tree: every core used, max core link <= 3x mean", test_ecmp_spread_fat_tree);
    CU_add_test(s, "link failure mid-run: rerouted, drops counted, flows finish", test_link_failure_mid_run);
    CU_add_test(s, "link failure: pinned path and host link wait for the recovery", test_link_failure_pinned_and_host);
    CU_add_test(s, "link failure under PFC: pause state cleared, lossless", test_link_failure_lossless_pause_cleared);
    CU_add_test(s, "fault errors name faults.N.between (and .type)", test_link_down_errors);
    CU_add_test(s, "dragonfly paths on real packets: minimal <= 3, Valiant <= 5 router hops",
                test_dragonfly_minimal_and_valiant_paths);
    CU_add_test(s, "Valiant intermediate drawn from the flow's own stream", test_valiant_streams_per_flow);
    CU_add_test(s, "UGAL detours under an adversarial pattern", test_ugal_adversarial);
    CU_add_test(s, "UGAL stays minimal under light uniform load", test_ugal_light_uniform);
    CU_add_test(s, "dragonfly global link failure: two global links around it", test_dragonfly_link_failure);
    CU_add_test(s, "rocesim topo prints every scenario (json and dot)", test_topo_every_scenario);
}
