/*
 * Packet trimming (switch.trim, models/trim.c).  What is checked against what:
 * - four senders into one port whose lossy queue holds 100 KB (PFC off): with selective repeat, every packet the
 *   queue cannot take is trimmed and resent once, and no flow waits for a timeout, so the incast ends within a few
 *   microseconds of its line-rate time (4 x 200 KB at 100 Gb/s: 64 us); without trimming the tail losses wait for
 *   the timeout (320 us);
 * - with go-back-N a trimmed packet is a gap NACKed at once, and every flow completes;
 * - the summary says how many drops were trimmed only where a switch trims; the settings refused;
 * - with host.nack_cnp, ECN off and a CNP interval of zero, every NACK goes with a CNP, the trims' NACKs included.
 */
#include "tests/tests.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *INCAST =
    "{\"seed\": 1, \"stop\": \"50ms\", \"topology\": {\"type\": \"star\", \"hosts\": 5, \"link\": {\"rate\": "
    "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"pfc\": {\"enabled\": false}, \"lossy_queue_limit\": "
    "\"100KB\"}, \"host\": {\"mtu\": 1024, \"rto\": \"1ms\"}, \"traffic\": [{\"type\": \"incast\", \"senders\": "
    "\"h0-h3\", \"receiver\": \"h4\", \"size\": \"200KB\"}]}";

struct incast {
    double last_us; /* the last flow's FCT */
    uint64_t dropped, buffer, trimmed, resent, timeouts;
    uint32_t done;
};

static struct incast incast_run(const char *recovery, const char *trim)
{
    struct scn_override ov[] = {{"host.loss_recovery", recovery}, {"switch.trim.enabled", trim}};
    struct scenario scn;
    struct run r;
    struct incast in = {0};
    CU_ASSERT_FATAL(test_setup_from("t.json", INCAST, ov, 2, &scn, &r));
    test_run_checked(&r);
    for (uint32_t i = 0; i < 4; i++) {
        const struct flow *f = net_flow(&r.net, i);
        double us = f->finish >= 0 ? (double)(f->finish - f->start) / PS_PER_US : 1e9;
        in.last_us = us > in.last_us ? us : in.last_us;
    }
    const struct net_counters *c = &r.net.c;
    in.dropped = c->data_dropped;
    in.buffer = c->drop_buffer;
    in.trimmed = c->trimmed;
    in.resent = c->data_retx;
    in.timeouts = c->timeouts;
    in.done = r.net.flows_completed;
    char *sum = run_summary_json(&r, false);
    CU_ASSERT_EQUAL(strstr(sum, "\"trimmed\"") != NULL, strcmp(trim, "true") == 0);
    free(sum);
    test_teardown(&scn, &r);
    return in;
}

static void test_incast(void)
{
    struct incast sr = incast_run("selective", "false"), sr_t = incast_run("selective", "true"),
                  gbn_t = incast_run("go-back-n", "true");
    printf("\n    selective: %.1f us, %llu timeouts (%llu dropped); with trimming %.1f us, %llu timeouts, %llu "
           "trimmed, %llu resent; go-back-N with trimming %.1f us ",
           sr.last_us, (unsigned long long)sr.timeouts, (unsigned long long)sr.dropped, sr_t.last_us,
           (unsigned long long)sr_t.timeouts, (unsigned long long)sr_t.trimmed, (unsigned long long)sr_t.resent,
           gbn_t.last_us);
    CU_ASSERT_EQUAL(sr.done + sr_t.done + gbn_t.done, 12);
    /* without trimming: the losses at the tail wait for a timeout */
    CU_ASSERT(sr.timeouts > 0);
    CU_ASSERT(sr.last_us > 320);
    CU_ASSERT_EQUAL(sr.trimmed, 0);
    /* with it: each drop trimmed (a drop for buffer still), resent once, and no timeout */
    CU_ASSERT(sr_t.trimmed > 100);
    CU_ASSERT_EQUAL(sr_t.trimmed, sr_t.dropped);
    CU_ASSERT_EQUAL(sr_t.trimmed, sr_t.buffer);
    CU_ASSERT_EQUAL(sr_t.resent, sr_t.trimmed);
    CU_ASSERT_EQUAL(sr_t.timeouts, 0);
    CU_ASSERT(sr_t.last_us < 100);
    /* go-back-N: each trim a gap at once */
    CU_ASSERT_EQUAL(gbn_t.trimmed, gbn_t.dropped);
}

static void test_nack_cnp(void)
{
    struct scn_override ov[] = {{"host.loss_recovery", "go-back-n"}, {"switch.trim.enabled", "true"},
                                {"host.nack_cnp", "true"},           {"host.dcqcn.cnp_interval", "0ns"},
                                {"switch.ecn.enabled", "false"}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", INCAST, ov, 5, &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    printf("\n    nack_cnp with trimming: %llu trimmed, %llu NACKs, %llu CNPs ", (unsigned long long)c->trimmed,
           (unsigned long long)c->nacks_sent, (unsigned long long)c->cnp_nack);
    CU_ASSERT(c->trimmed > 0 && c->nacks_sent > 0);
    CU_ASSERT_EQUAL(c->cnp_nack, c->nacks_sent);
    CU_ASSERT_EQUAL(c->cnp_sent, c->cnp_nack);
    CU_ASSERT_EQUAL(r.net.flows_completed, 4);
    test_teardown(&scn, &r);
}

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"switch\": "
         "{\"trim\": {\"priority\": 9}}, \"traffic\": []}",
         "t.json: switch.trim.priority: expected an integer from 0 to 7, got 9"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"switch\": "
         "{\"trim\": {\"size\": \"0B\"}}, \"traffic\": []}",
         "t.json: switch.trim.size: expected a size greater than zero, got \"0B\""},
        {"{\"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
         "\"100Gbps\"}}, \"switch\": {\"trim\": {\"enabled\": true}}, \"traffic\": []}",
         "t.json: switch.trim: expected no setting of fabric \"roce\" with \"fabric\": \"infiniband\" (it does not "
         "read it), got one"},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
}

void test_trim_register(void)
{
    CU_pSuite s = CU_add_suite("packet trimming", NULL, NULL);
    CU_add_test(s, "an incast on a lossy queue: trimmed, resent at once, no timeout", test_incast);
    CU_add_test(s, "host.nack_cnp: a trimmed packet's NACK goes with a CNP too", test_nack_cnp);
    CU_add_test(s, "bad trimming settings exit 2 naming the path", test_errors);
}
