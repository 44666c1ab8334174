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
 * - the receiver oversubscription control (host.uet.oversub_cc, models/rccc_oversub.c): its rule, period by period,
 *   against the values the reference's formula gives by hand; a flow whose every packet arrives CE-marked is pulled,
 *   from the control's first period on, at its least rate (here 0.5): it completes within 40 us (its first period
 *   and speculative window, at full rate) below F / (0.5 x 0.99 x line rate) and within 0.3 % above it; and a
 *   control whose rule never cuts (Md 0 under those marks, or a star's incast where every trim is at the last hop,
 *   which the rule leaves out) changes nothing: the same finish for every flow as without it;
 * - the same files on one thread and two, with and without the control; RCCC outside UET's delivery, a pull credit
 *   that is not whole quanta and the control without a base RTT are refused, exit 2, naming the setting.
 */
#include "tests/tests.h"
#include "models/rccc.h"
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

/* The rule of one period, from the reference's formula worked by hand (Ai 0.01, Md 0.5, alpha 0.5, target 0.3). */
static void test_oversub_rule(void)
{
    const struct rccc_oversub_params p = {.on = true, .min_rate = 0.225, .ai = 0.01, .md = 0.5, .alpha = 0.5,
                                          .target = 0.3};
    struct rccc_oversub_ctl c = {.rate = 1};
    /* 80 of 100 marked: f 0.8, g 0.4 > 0.3, R = 1 x (1 - 0.1 x 0.5) */
    rccc_oversub_step(&c, &p, 100, 80, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.g, 0.4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, 0.95, 1e-12);
    CU_ASSERT_EQUAL(c.increases, 0);
    /* 10 trimmed before the last hop, 80 of the 90 whole marked: R = 0.95 - 0.1 = 0.85, g = 0.2 + 0.4444.., then
     * R = 0.85 x (1 - (g - 0.3) x 0.5) */
    rccc_oversub_step(&c, &p, 100, 80, 0, 10);
    double g = 0.2 + 0.5 * 80.0 / 90.0;
    CU_ASSERT_DOUBLE_EQUAL(c.g, g, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, 0.85 * (1 - (g - 0.3) * 0.5), 1e-12);
    /* nothing marked: g halves (0.322.. still above 0.3: a cut), then below it, increases of Ai x 1, 2, 4 */
    double r = c.rate * (1 - (g / 2 - 0.3) * 0.5);
    rccc_oversub_step(&c, &p, 100, 0, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, r, 1e-12);
    rccc_oversub_step(&c, &p, 100, 0, 0, 0);
    rccc_oversub_step(&c, &p, 100, 0, 0, 0);
    rccc_oversub_step(&c, &p, 100, 0, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, r + 0.01 + 0.02 + 0.04, 1e-12);
    CU_ASSERT_EQUAL(c.increases, 3);
    /* marks below the target: Ai alone, the run of increases goes on */
    rccc_oversub_step(&c, &p, 100, 10, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, r + 0.08, 1e-12);
    CU_ASSERT_EQUAL(c.increases, 4);
    /* trims at the last hop say nothing of the fabric: they only leave the fraction's denominator (5 of 10 whole) */
    double g0 = c.g;
    rccc_oversub_step(&c, &p, 100, 5, 90, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.g, g0 / 2 + 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, r + 0.08 + 0.01, 1e-12);
    /* every frame trimmed before the last hop: R - 1, held at the least rate; and capped at 1 */
    rccc_oversub_step(&c, &p, 50, 0, 0, 50);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, 0.225, 1e-12);
    CU_ASSERT_EQUAL(c.increases, 0);
    c = (struct rccc_oversub_ctl){.rate = 0.995, .increases = 40};
    rccc_oversub_step(&c, &p, 0, 0, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.rate, 1, 0);
}

#define OVERSUB_ON "\"oversub_cc\": true, "
/* One 10 MB flow h0 -> h13 through a fabric of 50 Gbps links (the ToR's uplink is its bottleneck), with host.uet
 * settings extra: its FCT in us, and its counts in *c. */
static double thin_flow(const char *extra, struct net_counters *c, double *wire)
{
    struct scenario scn;
    struct run r;
    char text[2048];
    snprintf(text, sizeof text, "{" RCCC_NET ", \"uet\": {\"rccc\": true, \"base_rtt\": \"14.02272us\"%s}}, "
             "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h13\", \"size\": "
             "\"10000000B\"}]}", extra);
    const struct scn_override ov[] = {{"topology.fabric_link.rate", "50Gbps"}, {"topology.fabric_link.delay", "1us"}};
    CU_ASSERT_FATAL(test_setup_from("t.json", text, ov, 2, &scn, &r));
    test_run_checked(&r);
    const struct flow *f = net_flow(&r.net, 0);
    *c = r.net.c;
    *wire = frame_bytes(&r.net, f, 1);
    double fct = (double)(f->finish - f->start) / PS_PER_US;
    test_teardown(&scn, &r);
    return fct;
}

static void test_oversub_thin(void)
{
    struct net_counters off, on;
    double wire;
    double fct_off = thin_flow("", &off, &wire);
    double fct = thin_flow(", \"oversub_cc\": true, \"oversub_min_rate\": 0.45", &on, &wire);
    double link = wire * 8 / 50e9 * 1e6;
    printf("\n    50 Gbps fabric: with the control %llu trimmed, %llu ECN-marked, FCT %.2f us; without %llu trimmed, "
           "FCT %.2f us; the flow's frames at 50 Gbps %.2f us ", (unsigned long long)on.trimmed,
           (unsigned long long)on.ecn_marked, fct, (unsigned long long)off.trimmed, fct_off, link);
    CU_ASSERT(fct >= link && fct <= link * 1.05);
    CU_ASSERT(on.trimmed * 10 < off.trimmed);
}

/* Seven senders into one host of a star, ECN off: every trim is at the last hop, which the rule leaves out. */
static void test_oversub_last_hop(void)
{
    sim_time_t fin[2][7];
    uint64_t trimmed[2];
    for (int on = 0; on < 2; on++) {
        struct scenario scn;
        struct run r;
        char text[2048];
        snprintf(text, sizeof text, "{\"seed\": 13, \"topology\": {\"type\": \"star\", \"hosts\": 8, "
                 "\"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"lossy_queue_limit\": "
                 "\"178450B\", \"pfc\": {\"enabled\": false}, \"trim\": {\"enabled\": true, \"size\": \"64B\", "
                 "\"priority\": 6}, \"ecn\": {\"enabled\": false}, \"scheduler\": {\"type\": \"strict\"}}, "
                 "\"host\": {\"mtu\": 4086, \"priority\": 0, \"ack_priority\": 6, \"cc\": \"none\", "
                 "\"loss_recovery\": \"uet\", \"rto\": \"100.656us\", \"uet\": {%s\"rccc\": true, "
                 "\"base_rtt\": \"14.02272us\"}}, \"traffic\": [{\"type\": \"incast\", \"senders\": \"h1-h7\", "
                 "\"receiver\": \"h0\", \"size\": \"2MB\"}]}", on ? OVERSUB_ON : "");
        CU_ASSERT_FATAL(test_setup_from("t.json", text, NULL, 0, &scn, &r));
        test_run_checked(&r);
        trimmed[on] = r.net.c.trimmed;
        for (uint32_t i = 0; i < 7; i++)
            fin[on][i] = net_flow(&r.net, i)->finish;
        test_teardown(&scn, &r);
    }
    printf("\n    %llu trimmed, all at the last hop ", (unsigned long long)trimmed[1]);
    CU_ASSERT(trimmed[0] > 0);
    CU_ASSERT_EQUAL(trimmed[1], trimmed[0]);
    CU_ASSERT(!memcmp(fin[0], fin[1], sizeof fin[0]));
}

static void test_oversub_threads(void)
{
    char *text = test_same_each_run_json(
        "/tmp/rocesim-test-rccc-oversub.json",
        "{" RCCC_NET ", \"entropy\": \"mixed\", \"entropy_paths\": 32, \"uet\": {" OVERSUB_ON
        "\"oversub_min_rate\": 0.3, \"rccc\": true, \"base_rtt\": \"14.02272us\"}}, \"traffic\": [{\"type\": "
        "\"incast\", \"senders\": \"h4-h11\", \"receiver\": \"h0\", \"size\": \"300KB\"}, {\"type\": \"flow\", "
        "\"src\": \"h1\", \"dst\": \"h12\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h1\", "
        "\"dst\": \"h13\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h13\", \"dst\": \"h2\", "
        "\"size\": \"1MB\"}]}");
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
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"uet\": "
         "{\"oversub_cc\": true}}, \"traffic\": []}",
         "t.json: host.uet.oversub_cc: expected host.uet.base_rtt above 0us (the control's period is 1.5 of it), got "
         "0us"},
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
    CU_add_test(s, "oversubscription control: its rule period by period, as the reference's formula gives",
                test_oversub_rule);
    CU_add_test(s, "oversubscription control: one flow through a thinner fabric, a tenth of the trims",
                test_oversub_thin);
    CU_add_test(s, "oversubscription control: trims at the last hop change nothing", test_oversub_last_hop);
    CU_add_test(s, "oversubscription control: the same files on one thread and two", test_oversub_threads);
    CU_add_test(s, "refused combinations and settings exit 2", test_errors);
}
