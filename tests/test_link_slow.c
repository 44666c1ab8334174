/*
 * The link_slow fault (models/fault_link_slow.c) and the settings by rate it brings into play.  A link slowed for
 * the whole run carries its frames at the slower rate: the run is, frame for frame, the run over a link built at
 * that rate; one way only, the other direction keeps its rate.  A switch's lossy_queue_limit given by rate caps
 * the slowed egress at that rate's value.  Bad input names the fault's path.
 */
#include "models/net.h"
#include "tests/tests.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* h0 -> s0 -> s1 -> h1, every link 100 Gbps and 1 us, one flow of 1 MB without congestion control. */
#define DUMBBELL(bottleneck, faults)                                                                               \
    "{\"seed\": 1, \"topology\": {\"type\": \"dumbbell\", \"left\": 1, \"right\": 1, \"link\": {\"rate\": "        \
    "\"100Gbps\", \"delay\": \"1us\"}, \"bottleneck\": {\"rate\": \"" bottleneck "\", \"delay\": \"1us\"}}, "       \
    "\"host\": {\"cc\": \"none\", \"mtu\": 1024}, \"traffic\": [{\"type\": \"flow\", \"id\": \"f\", \"src\": "      \
    "\"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]" faults "}"
#define SLOW(dir) ", \"faults\": [{\"type\": \"link_slow\", \"between\": [\"s0\", \"s1\"], \"rate\": \"25Gbps\"" dir "}]"

static char *run_text(const char *json, sim_time_t *finish, sim_time_t *acked)
{
    struct scenario scn;
    struct run r;
    if (!test_setup(json, NULL, NULL, &scn, &r)) {
        CU_FAIL("scenario refused");
        return NULL;
    }
    test_run_checked(&r);
    const struct flow *f = test_flow_named(&r, "f");
    *finish = f->finish;
    *acked = f->acked;
    char *t = test_run_text(&r);
    test_teardown(&scn, &r);
    return t;
}

/* Slowed both ways, the bottleneck is a 25 Gbps link in all but name: the same flows.csv and summary, to the
 * byte.  Slowed one way, the data arrive as then (cc none: nothing clocks the sender) and the ACKs come back
 * sooner, over the unslowed direction. */
static void test_slow_is_slower_link(void)
{
    sim_time_t fin_built, ack_built, fin_both, ack_both, fin_fwd, ack_fwd;
    char *built = run_text(DUMBBELL("25Gbps", ""), &fin_built, &ack_built);
    char *both = run_text(DUMBBELL("100Gbps", SLOW("")), &fin_both, &ack_both);
    char *fwd = run_text(DUMBBELL("100Gbps", SLOW(", \"direction\": \"forward\"")), &fin_fwd, &ack_fwd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(built && both && fwd);
    CU_ASSERT_STRING_EQUAL(both, built);
    /* the 25 Gbps hop sets the pace: 1 MB in frames of 1024 bytes + 62 of headers takes 977 x 1086 x 8 / 25e9 */
    sim_time_t ser = (sim_time_t)977 * 1086 * 8 * 40; /* ps at 25 Gbps: 40 ps per bit */
    CU_ASSERT(fin_both > ser && fin_both < ser + 10 * PS_PER_US);
    CU_ASSERT_EQUAL(fin_fwd, fin_both);
    CU_ASSERT(ack_fwd < ack_both);
    free(built);
    free(both);
    free(fwd);
}

/* A lossy_queue_limit by rate: the slowed egress s0 -> s1 takes the 25 Gbps value (scaled from 100 Gbps's), the
 * egress the other way and every other port the 100 Gbps one; ECN thresholds scale alike. */
static void test_limit_by_rate(void)
{
    static const char *json = "{\"topology\": {\"type\": \"dumbbell\", \"left\": 1, \"right\": 1, \"link\": "
                              "{\"rate\": \"100Gbps\"}, \"bottleneck\": {\"rate\": \"100Gbps\"}}, \"switch\": "
                              "{\"lossy_queue_limit\": {\"100Gbps\": \"200KB\", \"scale\": \"linear\"}, \"ecn\": "
                              "{\"kmin\": {\"100Gbps\": \"40KB\", \"scale\": \"linear\"}, \"kmax\": \"160KB\"}}, "
                              "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": "
                              "\"1MB\"}]" SLOW(", \"direction\": \"forward\"") "}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    const struct net *n = &r.net;
    const struct port *slow = test_port_to(&r, "s0", "s1"), *back = test_port_to(&r, "s1", "s0"),
                      *edge = test_port_to(&r, "s1", "h1");
    CU_ASSERT_EQUAL(port_aux(slow)->rate_bps, 25000000000LL);
    CU_ASSERT_EQUAL(port_aux(back)->rate_bps, 100000000000LL);
    CU_ASSERT_EQUAL(n->pcfg[slow->cfg].lossy_limit, 50000);
    CU_ASSERT_EQUAL(n->pcfg[slow->cfg].ecn.kmin, 10000);
    CU_ASSERT_EQUAL(n->pcfg[slow->cfg].ecn.kmax, 160000);
    CU_ASSERT_EQUAL(n->pcfg[back->cfg].lossy_limit, 200000);
    CU_ASSERT_EQUAL(n->pcfg[edge->cfg].lossy_limit, 200000);
    CU_ASSERT_EQUAL(n->pcfg[edge->cfg].ecn.kmin, 40000);
    test_teardown(&scn, &r);
}

/*
 * The limit acts: two hosts send 1 MB each, lossy (PFC off) and without congestion control, through the slowed
 * link: 200 Gbps into 25.  Its queue fills to the 25 Gbps limit (within a frame of it) and no further; frames
 * beyond it are dropped.
 */
static void test_limit_acts(void)
{
    static const char *json = "{\"seed\": 1, \"topology\": {\"type\": \"dumbbell\", \"left\": 2, \"right\": 1, "
                              "\"link\": {\"rate\": \"100Gbps\"}, \"bottleneck\": {\"rate\": \"100Gbps\"}}, "
                              "\"switch\": {\"pfc\": {\"enabled\": false}, \"ecn\": {\"enabled\": false}, "
                              "\"lossy_queue_limit\": {\"100Gbps\": \"200KB\", \"25Gbps\": \"30KB\"}}, "
                              "\"host\": {\"cc\": \"none\", \"mtu\": 1024}, \"monitor\": {\"interval\": \"100ns\", "
                              "\"queues\": [\"s0:*\"]}, \"stop\": \"3ms\", \"traffic\": [{\"type\": \"flow\", "
                              "\"src\": \"h0\", \"dst\": \"h2\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": "
                              "\"h1\", \"dst\": \"h2\", \"size\": \"1MB\"}]" SLOW(", \"direction\": \"forward\"") "}";
    test_write_text("/tmp/rocesim-test-slow.json", json);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/rocesim-test-slow && %s run /tmp/rocesim-test-slow.json -o "
             "/tmp/rocesim-test-slow", test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    char *q = test_read_file("/tmp/rocesim-test-slow/queues.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    /* rows: time_ns,node,port,priority,bytes,... ; the slowed egress is s0's port to s1 */
    long long most = 0, port_to_s1 = -1;
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    port_to_s1 = test_port_to(&r, "s0", "s1")->local;
    test_teardown(&scn, &r);
    for (char *line = strchr(q, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        double t;
        char node[16];
        int port, prio;
        long long bytes;
        if (sscanf(line + 1, "%lf,%15[^,],%d,%d,%lld", &t, node, &port, &prio, &bytes) == 5 && port == port_to_s1 &&
            bytes > most)
            most = bytes;
    }
    printf("\n    the slowed egress held at most %lld bytes (limit 30000) ", most);
    CU_ASSERT(most <= 30000 && most > 30000 - 1086);
    /* and the frames beyond it were dropped for want of buffer */
    char *sum = test_read_file("/tmp/rocesim-test-slow/summary.json", NULL);
    cJSON *js = sum ? cJSON_Parse(sum) : NULL;
    double drops = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(js, "packets"), "drops_by_reason"),
        "buffer"));
    printf("%.0f frames dropped ", drops);
    CU_ASSERT(drops > 0);
    cJSON_Delete(js);
    free(sum);
    free(q);
    CU_ASSERT_EQUAL(test_run("rm -rf /tmp/rocesim-test-slow /tmp/rocesim-test-slow.json", NULL), 0);
}

/* Bad input: one message naming the fault's path, exit status 2 through the binary. */
static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {DUMBBELL("100Gbps", ", \"faults\": [{\"type\": \"link_slow\", \"between\": [\"s0\", \"s1\"]}]"),
         "t.json: faults.0.rate: expected a rate like \"25Gbps\", got nothing (this field is required)"},
        {DUMBBELL("100Gbps", SLOW(", \"direction\": \"up\"")),
         "t.json: faults.0.direction: expected one of \"both\", \"forward\", got \"up\""},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
    static const struct test_bad built[] = {
        {DUMBBELL("25Gbps", SLOW("")), "t.json: faults.0.rate: expected a rate below the link's (25Gbps), got "
                                       "\"25Gbps\""},
        {DUMBBELL("100Gbps", ", \"faults\": [{\"type\": \"link_slow\", \"between\": [\"s0\", \"h1\"], \"rate\": "
                             "\"25Gbps\"}]"),
         "t.json: faults.0.between: expected two linked nodes, got \"s0\" and \"h1\" (no link between them)"},
        {DUMBBELL("100Gbps", ", \"faults\": [{\"type\": \"link_slow\", \"between\": [\"s0\", \"s1\"], \"rate\": "
                             "\"25Gbps\"}, {\"type\": \"link_slow\", \"between\": [\"s1\", \"s0\"], \"rate\": "
                             "\"10Gbps\", \"direction\": \"forward\"}]"),
         "t.json: faults.1.between: expected a link no other link_slow fault slows, got \"s1\" and \"s0\" "
         "(slowed to 25Gbps already)"},
        {DUMBBELL("100Gbps", ", \"switch\": {\"lossy_queue_limit\": {\"100Gbps\": \"200KB\"}}" SLOW("")),
         "t.json: switch.lossy_queue_limit: expected an entry for every port rate, got none for 25Gbps (port "
         "s0:1); add one, or \"scale\": \"linear\" to scale the nearest entry"},
    };
    test_build_errors(built, sizeof built / sizeof *built);
    test_write_text("/tmp/rocesim-test-slow-bad.json", built[0].json);
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check /tmp/rocesim-test-slow-bad.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-test-slow-bad.json: faults.0.rate: "));
    free(out);
    remove("/tmp/rocesim-test-slow-bad.json");
}

void test_link_slow_register(void)
{
    CU_pSuite s = CU_add_suite("slow links", NULL, NULL);
    CU_add_test(s, "a link slowed both ways runs as one built at that rate; one way, its ACKs come back faster",
                test_slow_is_slower_link);
    CU_add_test(s, "lossy_queue_limit and ECN by rate: the slowed egress takes its rate's values", test_limit_by_rate);
    CU_add_test(s, "the slowed egress's queue fills to its rate's limit and no further", test_limit_acts);
    CU_add_test(s, "bad link_slow input and a limit map without the slowed rate", test_errors);
}
