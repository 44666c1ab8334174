/*
 * Ultra Ethernet's receiver credit-based congestion control (host.uet.rccc, models/rccc.c) under UET's delivery,
 * on a k=4 fat-tree of 100 Gbps links, with the UEC reference simulator's switch settings and its network round
 * trip (14.02272 us: its base RTT, so a sender's speculative credit M = 1.5 x 175284 = 262926 bytes).  What is
 * checked against what:
 * - one 10 MB flow alone: after its speculative window its credit comes from the receiver's pacer at 0.99 x line
 *   rate, so it completes within 0.3 % of F / (0.99 x 100 Gbps) + the path's delay (F its frame bytes), where at
 *   line rate it would end 1 % sooner; no RTS, no resend;
 * - seven senders into one host: one pacer meters them all, so after the speculative window nothing more is
 *   trimmed: at most what seven speculative windows bring beyond what the switch queue holds, (7 M - 178450) /
 *   frame; each trim is NACKed and resent once, no timeout; and the receiver's link stays busy: the last flow ends
 *   no later than every byte it carried at the pacer's rate plus one base round trip (without RCCC, under the same
 *   settings, thousands are trimmed);
 * - PULLs lost (the receiver's uplink corrupts every frame for 300 us): the sender, out of credit, sends RTS on its
 *   timeouts, at most one per timeout, and the flow completes once PULLs get through again; without the RTS it
 *   would wait for ever;
 * - the same files on one thread and two; RCCC outside UET's delivery and a pull credit that is not whole quanta
 *   are refused, exit 2, naming the setting.
 */
#include "tests/tests.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD "/tmp/rocesim-test-rccc-bad.json" /* the scenario test_build_refused writes */

#define RCCC_NET                                                                                                     \
    "\"seed\": 13, \"stop\": \"5ms\", \"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": "        \
    "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"lossy_queue_limit\": \"178450B\", \"pfc\": {\"enabled\": "    \
    "false}, \"trim\": {\"enabled\": true, \"size\": \"64B\", \"priority\": 6}, \"ecn\": {\"kmin\": \"37350B\", "    \
    "\"kmax\": \"145250B\", \"pmax\": 1.0}, \"scheduler\": {\"type\": \"strict\"}}, \"host\": {\"mtu\": 4086, "      \
    "\"priority\": 0, \"ack_priority\": 6, \"cc\": \"none\", \"loss_recovery\": \"uet\", \"rto\": \"100.656us\""
#define RCCC_ON ", \"uet\": {\"rccc\": true, \"base_rtt\": \"14.02272us\"}"
#define SPEC_CREDIT 262926.0 /* M: 1.5 x 14.02272 us x 100 Gbps / 8, truncated as the reference does */
#define RATE 100e9

/* Frame bytes (headers included) of flow f, and with each frame's preamble and gap. */
static double frame_bytes(const struct net *n, const struct flow *f, int wire)
{
    return (double)f->size + (double)f->n_pkts * (n->fr.hdr_data + (wire ? n->fr.wire : 0));
}

static void test_alone(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", "{" RCCC_NET RCCC_ON "}, \"traffic\": [{\"type\": \"flow\", \"src\": "
                                    "\"h0\", \"dst\": \"h13\", \"size\": \"10000000B\"}]}", NULL, 0, &scn, &r));
    test_run_checked(&r);
    const struct flow *f = net_flow(&r.net, 0);
    const struct net_counters *c = &r.net.c;
    double fct = (double)(f->finish - f->start) / PS_PER_US;
    /* the empty network's FCT is the wire bytes at line rate plus the path's delay */
    double path = (double)f->ideal_fct / PS_PER_US - frame_bytes(&r.net, f, 1) * 8 / RATE * 1e6;
    double paced = frame_bytes(&r.net, f, 0) * 8 / (0.99 * RATE) * 1e6 + path;
    printf("\n    FCT %.3f us, F / (0.99 x rate) + path %.3f us, line rate %.3f us; %llu PULLs ", fct, paced,
           (double)f->ideal_fct / PS_PER_US, (unsigned long long)c->pulls_sent);
    CU_ASSERT(fct > paced * 0.997 && fct < paced * 1.003);
    /* at least one PULL per 16 KB granted after the speculative window */
    CU_ASSERT(c->pulls_sent >= (uint64_t)((frame_bytes(&r.net, f, 0) - SPEC_CREDIT) / 16384));
    CU_ASSERT_EQUAL(c->rts_sent, 0);
    CU_ASSERT_EQUAL(c->data_retx, 0);
    CU_ASSERT_EQUAL(c->trimmed, 0);
    test_teardown(&scn, &r);
}

static void incast(bool rccc, struct net_counters *out, double *last_us, double *bound_us, double *busy_us)
{
    struct scenario scn;
    struct run r;
    char text[2048];
    snprintf(text, sizeof text, "{" RCCC_NET "%s}, \"traffic\": [{\"type\": \"incast\", \"senders\": \"h1-h7\", "
             "\"receiver\": \"h0\", \"size\": \"2MB\"}]}", rccc ? RCCC_ON : "");
    CU_ASSERT_FATAL(test_setup_from("t.json", text, NULL, 0, &scn, &r));
    test_run_checked(&r);
    *out = r.net.c;
    double frames = 0, wire = 0;
    sim_time_t last = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        const struct flow *f = net_flow(&r.net, i);
        frames += frame_bytes(&r.net, f, 0);
        wire += frame_bytes(&r.net, f, 1);
        last = f->finish > last ? f->finish : last;
    }
    /* the receiver's link carries every frame once and every trimmed header (64 B) */
    frames += (double)out->trimmed * 64;
    wire += (double)out->trimmed * (64 + r.net.fr.wire);
    *last_us = (double)last / PS_PER_US;
    *busy_us = wire * 8 / RATE * 1e6;
    *bound_us = frames * 8 / (0.99 * RATE) * 1e6 + 14.02272;
    test_teardown(&scn, &r);
}

static void test_incast(void)
{
    struct net_counters c, off;
    double last, bound, busy, l2, b2, y2;
    incast(true, &c, &last, &bound, &busy);
    incast(false, &off, &l2, &b2, &y2);
    double frame = 4086 + 62, most = (7 * SPEC_CREDIT - 178450) / frame;
    printf("\n    RCCC: %llu trimmed (at most %.0f from the speculative windows), %llu resent, %llu timeouts, "
           "%llu PULLs; last FCT %.2f us, link busy %.2f us, bound %.2f us; without RCCC %llu trimmed ",
           (unsigned long long)c.trimmed, most, (unsigned long long)c.data_retx, (unsigned long long)c.timeouts,
           (unsigned long long)c.pulls_sent, last, busy, bound, (unsigned long long)off.trimmed);
    CU_ASSERT(c.trimmed > 0 && (double)c.trimmed <= most);
    CU_ASSERT_EQUAL(c.nacks_sent, c.trimmed);
    CU_ASSERT_EQUAL(c.data_retx, c.trimmed);
    CU_ASSERT_EQUAL(c.timeouts, 0);
    CU_ASSERT_EQUAL(c.rts_sent, 0);
    CU_ASSERT(last >= busy && last <= bound);
    CU_ASSERT(off.trimmed > 10 * most);
}

static void test_rts(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", "{" RCCC_NET RCCC_ON "}, \"traffic\": [{\"type\": \"flow\", \"src\": "
                                    "\"h0\", \"dst\": \"h13\", \"size\": \"2MB\"}], \"faults\": [{\"type\": "
                                    "\"link_errors\", \"between\": [\"h13\", \"tor6\"], \"direction\": \"forward\", "
                                    "\"rate\": 0.9999, \"start\": \"20us\", \"end\": \"320us\"}]}",
                                    NULL, 0, &scn, &r));
    test_run_checked(&r);
    const struct flow *f = net_flow(&r.net, 0);
    const struct net_counters *c = &r.net.c;
    printf("\n    %llu RTS, %llu timeouts, %llu PULLs, %llu resent; FCT %.2f us ", (unsigned long long)c->rts_sent,
           (unsigned long long)c->timeouts, (unsigned long long)c->pulls_sent, (unsigned long long)c->data_retx,
           (double)(f->finish - f->start) / PS_PER_US);
    CU_ASSERT(c->rts_sent >= 1 && c->rts_sent <= c->timeouts);
    CU_ASSERT(f->finish > 320 * PS_PER_US);
    CU_ASSERT(f->acked > 0);
    CU_ASSERT_EQUAL(f->rcv_nxt, f->n_pkts);
    test_teardown(&scn, &r);
}

static void test_threads(void)
{
    char *text = test_same_each_run_json(
        "/tmp/rocesim-test-rccc.json",
        "{" RCCC_NET ", \"entropy\": \"mixed\", \"entropy_paths\": 32" RCCC_ON "}, \"traffic\": [{\"type\": "
            "\"incast\", \"senders\": \"h4-h11\", \"receiver\": \"h0\", \"size\": \"300KB\"}, {\"type\": \"flow\", "
            "\"src\": \"h1\", \"dst\": \"h12\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h1\", \"dst\": "
            "\"h13\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h13\", \"dst\": \"h2\", \"size\": \"1MB\"}]}");
    CU_ASSERT(text != NULL);
    free(text);
}

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"uet\": "
         "{\"pull_credit\": \"1000B\"}}, \"traffic\": []}",
         "t.json: host.uet.pull_credit: expected a multiple of 256B (the pull quantum), got 1000B"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"uet\": "
         "{\"pull_rate\": 1.5}}, \"traffic\": []}",
         "t.json: host.uet.pull_rate: expected a number greater than 0 and at most 1, got 1.5"},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
    test_build_refused(BAD, "--set host.uet.rccc=true", "rocesim: " BAD ": host.uet.rccc: expected "
                  "host.loss_recovery \"uet\" (receiver credit is Ultra Ethernet delivery's), got \"go-back-n\" at host");
}

void test_rccc_register(void)
{
    CU_pSuite s = CU_add_suite("uet receiver credit (rccc)", NULL, NULL);
    CU_add_test(s, "one flow alone: credit at 0.99 x line rate after the speculative window", test_alone);
    CU_add_test(s, "a 7-to-1 incast: trims only from the speculative windows, the receiver's link kept busy",
                test_incast);
    CU_add_test(s, "PULLs lost: RTS on the timeouts, the flow completes", test_rts);
    CU_add_test(s, "the same files on one thread and two", test_threads);
    CU_add_test(s, "refused combinations and settings exit 2", test_errors);
}
