/*
 * Load balancing (switch.load_balance, models/lb*.c).  What is checked against what (the permutation of long flows on
 * a k=8 fat-tree, ECMP against adaptive routing and spraying, is a validation group, "selective repeat and load
 * balancing", which the validation suite runs):
 * - flowlets: a flow whose packets come further apart than switch.flowlet.gap spreads over the uplinks, one whose
 *   packets come closer stays on one (exact, from counters.csv);
 * - the same files on one thread and two, for each balancer;
 * - the PFC watchdog and the deadlock detector keep working under spraying and adaptive routing;
 * - bad settings exit 2 naming the path.
 */
#include "tests/tests.h"
#include "models/pfcwd.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One flow from h0 to a host in another pod of a k=4 fat-tree, paced at 1 Gb/s (a 4 KB packet every 33 us): with
 * switch.flowlet.gap 10 us every packet starts a flowlet and h0's ToR spreads them over both uplinks; with 1 ms
 * they form one flowlet and one uplink carries them all.
 */
static void flowlet_uplinks(const char *gap, int *used, uint64_t *frames)
{
    char json[1024], cmd[1400];
    snprintf(json, sizeof json,
             "{\"stop\": \"5ms\", \"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": \"100Gbps\", "
             "\"delay\": \"1us\"}}, \"switch\": {\"load_balance\": \"flowlet\", \"flowlet\": {\"gap\": \"%s\"}}, "
             "\"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
             "\"dst\": \"h15\", \"size\": \"400KB\", \"rate\": \"1Gbps\"}], \"monitor\": {\"counters\": true}}",
             gap);
    test_write_text("/tmp/rocesim-test-flowlet.json", json);
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-flowlet.json -q --no-plot -o /tmp/rocesim-test-flowlet",
             test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    char *ctr = test_read_file("/tmp/rocesim-test-flowlet/counters.csv", NULL);
    CU_ASSERT_FATAL(ctr != NULL);
    /* h0's ToR, tor0: its ports 2 and 3 go up to agg0 and agg1 (ports 0 and 1 to its hosts) */
    *used = 0;
    *frames = 0;
    char *save = NULL;
    for (char *l = strtok_r(ctr, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char node[64], peer[64];
        unsigned port, prio;
        unsigned long long rx, rxb, tx;
        if (sscanf(l, "%63[^,],%u,%63[^,],%u,%llu,%llu,%llu", node, &port, peer, &prio, &rx, &rxb, &tx) == 7 &&
            strcmp(node, "tor0") == 0 && strncmp(peer, "agg", 3) == 0 && prio == 3 && tx > 0) {
            (*used)++;
            *frames += tx;
        }
    }
    free(ctr);
}

static void test_flowlets(void)
{
    int spread, one;
    uint64_t f_spread, f_one;
    flowlet_uplinks("10us", &spread, &f_spread);
    flowlet_uplinks("1ms", &one, &f_one);
    printf("\n    flowlets: gap 10 us, %d uplinks carry %llu frames; gap 1 ms, %d uplink carries %llu ", spread,
           (unsigned long long)f_spread, one, (unsigned long long)f_one);
    CU_ASSERT_EQUAL(spread, 2);
    CU_ASSERT_EQUAL(one, 1);
    CU_ASSERT_EQUAL(f_spread, 98); /* 400 KB in 4 KB packets */
    CU_ASSERT_EQUAL(f_one, 98);
    remove("/tmp/rocesim-test-flowlet.json");
}

/* Every balancer: flows.csv, counters.csv and summary.json (but its clock) the same on one thread and two. */
static void test_threads(void)
{
    static const char *const modes[][2] = {
        {"spray", "random"}, {"spray", "round_robin"}, {"flowlet", NULL}, {"adaptive", NULL}};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        char cmd[2048];
        char order[64] = "";
        if (modes[i][1])
            snprintf(order, sizeof order, "--set switch.spray.order=%s", modes[i][1]);
        snprintf(cmd, sizeof cmd,
                 "set -e; for t in 1 2; do %s run scenarios/websearch-fattree.json -q --no-plot --set stop=300us "
                 "--set switch.load_balance=%s %s --set host.loss_recovery=selective --set monitor.counters=true "
                 "--threads $t -o /tmp/rocesim-test-lb-$t; grep -v -e wall_s -e events_per_s -e one_thread "
                 "/tmp/rocesim-test-lb-$t/summary.json > /tmp/rocesim-test-lb-$t/s.txt; done; "
                 "for f in flows.csv counters.csv s.txt; do cmp /tmp/rocesim-test-lb-1/$f /tmp/rocesim-test-lb-2/$f; "
                 "done; grep -q out_of_order /tmp/rocesim-test-lb-1/s.txt",
                 test_rocesim_bin(), modes[i][0], order);
        int rc = test_run(cmd, NULL);
        if (rc)
            printf("\n    %s %s: not the same on two threads ", modes[i][0], modes[i][1] ? modes[i][1] : "");
        CU_ASSERT_EQUAL(rc, 0);
    }
}

/*
 * The PFC watchdog and the deadlock detector under balancing (lab 3's storm, lab 4's ring): the storm is declared
 * and restored once, every flow completes; the ring (one path between any two hosts, so spraying changes no
 * route) still deadlocks with its cycle of four ports.
 */
static void test_watchdog_deadlock(void)
{
    static const char *const lbs[] = {"spray", "adaptive"};
    for (int i = 0; i < 2; i++) {
        struct scn_override ov[] = {{"switch.load_balance", lbs[i]},        {"switch.watchdog.enabled", "true"},
                                    {"switch.watchdog.detection_time", "200us"},
                                    {"switch.watchdog.restoration_time", "200us"},
                                    {"switch.watchdog.poll_interval", "10us"}};
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup_from("scenarios/pfc-storm.json", NULL, ov, 5, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r.net.wd);
        CU_ASSERT_EQUAL(r.net.wd->storms, 1);
        CU_ASSERT_EQUAL(r.net.wd->restored, 1);
        CU_ASSERT_EQUAL(r.net.flows_completed, 6);
        CU_ASSERT(r.net.c.drop_watchdog > 0);
        test_teardown(&scn, &r);
    }
    struct scn_override ov = {"switch.load_balance", "spray"};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("scenarios/deadlock-ring.json", NULL, &ov, 1, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.net.dl.detected);
    CU_ASSERT_EQUAL(r.net.dl.cycle_len, 4);
    test_teardown(&scn, &r);
}

/*
 * host.nack_cnp (nic.c): go-back-N under spraying, four 4 MB flows across the pods of a k=4 fat-tree, ECN off so
 * that every CNP is a NACK's.  With a CNP interval of zero each NACK goes with exactly one CNP; with DCQCN's 50 us
 * a flow sends at most one per interval (at most its FCT / 50 us + 1); without the setting none.  The rate cuts
 * shorten the queues whose differences reorder the packets: far fewer are resent than without.
 */
static const char nack_cnp_json[] =
    "{\"stop\": \"2ms\", \"seed\": 3, \"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": "
    "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"load_balance\": \"spray\", \"ecn\": {\"enabled\": false}}, "
    "\"host\": {\"mtu\": 4096, \"cc\": \"dcqcn\"}, \"traffic\": ["
    "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h15\", \"size\": \"4MB\"}, "
    "{\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h14\", \"size\": \"4MB\"}, "
    "{\"type\": \"flow\", \"src\": \"h4\", \"dst\": \"h11\", \"size\": \"4MB\"}, "
    "{\"type\": \"flow\", \"src\": \"h5\", \"dst\": \"h10\", \"size\": \"4MB\"}]}";

static void nack_cnp_run(const char *on, const char *interval, uint64_t *cnp, uint64_t *with_nack, uint64_t *nacks,
                         uint64_t *resent, uint64_t *bound)
{
    struct scn_override ov[] = {{"host.nack_cnp", on}, {"host.dcqcn.cnp_interval", interval}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", nack_cnp_json, ov, 2, &scn, &r));
    test_run_checked(&r);
    *cnp = r.net.c.cnp_sent;
    *with_nack = r.net.c.cnp_nack;
    *nacks = r.net.c.nacks_sent;
    *resent = r.net.c.data_retx;
    *bound = 0;
    for (uint32_t i = 0; i < 4; i++) {
        const struct flow *f = net_flow(&r.net, i);
        sim_time_t end = f->finish >= 0 ? f->finish : r.net.sim->now;
        *bound += (uint64_t)((end - f->start) / (50 * PS_PER_US)) + 1;
    }
    test_teardown(&scn, &r);
}

static void test_nack_cnp(void)
{
    uint64_t cnp, with, nacks, resent, bound, cnp0, with0, nacks0, resent0, off_cnp, off_with, off_nacks, off_resent,
        ignored;
    nack_cnp_run("true", "0ns", &cnp0, &with0, &nacks0, &resent0, &ignored);
    nack_cnp_run("true", "50us", &cnp, &with, &nacks, &resent, &bound);
    nack_cnp_run("false", "50us", &off_cnp, &off_with, &off_nacks, &off_resent, &ignored);
    printf("\n    nack_cnp: interval 0: %llu CNPs for %llu NACKs; 50 us: %llu CNPs for %llu NACKs, %llu resent; off: "
           "%llu resent ", (unsigned long long)cnp0, (unsigned long long)nacks0, (unsigned long long)cnp,
           (unsigned long long)nacks, (unsigned long long)resent, (unsigned long long)off_resent);
    CU_ASSERT(nacks0 > 0);
    CU_ASSERT_EQUAL(with0, nacks0);
    CU_ASSERT_EQUAL(cnp0, with0);
    CU_ASSERT_EQUAL(cnp, with);
    CU_ASSERT(with > 0 && with < nacks);
    CU_ASSERT_EQUAL(off_cnp, 0);
    CU_ASSERT_EQUAL(off_with, 0);
    CU_ASSERT(with <= bound);
    CU_ASSERT(resent * 10 < off_resent);
}

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"switch\": "
         "{\"load_balance\": \"conga\"}, \"traffic\": []}",
         "t.json: switch.load_balance: expected one of \"ecmp\", \"adaptive\", \"flowlet\", \"spray\", got \"conga\""},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"switch\": "
         "{\"spray\": {\"order\": \"lru\"}}, \"traffic\": []}",
         "t.json: switch.spray.order: expected one of \"random\", \"round_robin\", got \"lru\""},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"switch\": "
         "{\"flowlet\": {\"gap\": \"0us\"}}, \"traffic\": []}",
         "t.json: switch.flowlet.gap: expected a time greater than zero, got \"0us\""},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
}

void test_lb_register(void)
{
    CU_pSuite s = CU_add_suite("load balancing", NULL, NULL);
    CU_add_test(s, "flowlets: a gap above switch.flowlet.gap changes the path, below it does not", test_flowlets);
    CU_add_test(s, "each balancer gives the same files on one thread and two", test_threads);
    CU_add_test(s, "the PFC watchdog and the deadlock detector work under spraying and adaptive routing",
                test_watchdog_deadlock);
    CU_add_test(s, "host.nack_cnp: one CNP per NACK within the CNP interval; none without it", test_nack_cnp);
    CU_add_test(s, "bad load-balancing settings exit 2 naming the path", test_errors);
}
