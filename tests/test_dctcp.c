/*
 * DCTCP (models/cc_dctcp.c): its sender's state machine on a known sequence of ACKs, the receiver's ECN-Echo on
 * ACKs, step marking at K with switch.ecn.kmin = kmax, and its validation rows: line goodput for one flow, a fair
 * share for N long flows, no loss with PFC, the queue oscillating around K with the bottleneck busy.
 */
#include "tests/tests.h"
#include "tests/validation/validation.h"
#include "models/cc.h"
#include "models/ecn.h"
#include "models/port.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A copy of cc_dctcp.c's state (its layout is the file's own; the test reads it to check exact values). */
struct dctcp_view {
    double rate, alpha;
    uint32_t win_end, cwr_end, acked, marked, cuts;
    bool cwr;
};

struct bottleneck {
    double util, jain, q_mean, q_lo, q_hi, goodput_gbps;
    uint64_t cuts, drops, pauses, cnps;
};

/* N long flows h0..h(N-1) -> hN through one 100 Gbps port with step marking at K; measures the second half. */
static void bottleneck(int N, const char *K, const char *stop, bool print, struct bottleneck *b)
{
    char json[4096], extra[256];
    snprintf(extra, sizeof extra, "\"stop\": \"%s\", \"host\": {\"cc\": \"dctcp\"}, \"switch\": {\"ecn\": {\"kmin\": "
             "\"%s\", \"kmax\": \"%s\", \"pmax\": 1}}", stop, K, K);
    validation_star_json(json, sizeof json, N, "100Gbps", extra, 0);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    char dst[16];
    snprintf(dst, sizeof dst, "h%d", N);
    struct port *p = test_port_to(&r, "s0", dst);
    sim_time_t half = scn.stop_ps / 2, step = PS_PER_US / 2;
    sim_run(&r.sim, half);
    uint64_t before[64], bytes0 = r.net.c.bytes_delivered, pkts0 = r.net.c.data_delivered;
    for (int i = 0; i < N; i++)
        before[i] = net_flow(&r.net, (uint32_t)i)->rcv_nxt;
    double qsum = 0;
    int ns = 0;
    static double qs[1 << 20];
    for (sim_time_t t = half + step; t <= scn.stop_ps; t += step) {
        sim_run(&r.sim, t);
        double q = (double)port_queued_bytes(p, 3);
        qsum += q;
        if (ns < (1 << 20))
            qs[ns] = q;
        ns++;
    }
    /* The oscillation's extent: the 5th and 95th percentiles, which single spikes do not move. */
    int cnt[2048] = {0};
    for (int i = 0; i < ns; i++) {
        int k = (int)(qs[i] / 1024.0);
        cnt[k < 2047 ? k : 2047]++;
    }
    int acc = 0;
    b->q_lo = b->q_hi = -1;
    for (int k = 0; k < 2048; k++) {
        acc += cnt[k];
        if (b->q_lo < 0 && acc >= ns / 20)
            b->q_lo = k;
        if (b->q_hi < 0 && acc >= ns - ns / 20)
            b->q_hi = k + 1;
    }
    b->q_mean = qsum / ns / 1024.0;
    double secs = (double)(scn.stop_ps - half) / 1e12;
    b->util = (double)(r.net.c.bytes_delivered - bytes0 + (r.net.c.data_delivered - pkts0) * WIRE_OVERHEAD) * 8 / secs /
              100e9;
    double sx = 0, sxx = 0;
    b->cuts = 0;
    for (int i = 0; i < N; i++) {
        const struct flow *f = net_flow(&r.net, (uint32_t)i);
        double x = (double)(f->rcv_nxt - before[i]);
        sx += x;
        sxx += x * x;
        b->cuts += CC_STATE(f, const struct dctcp_view)->cuts;
    }
    b->jain = sx * sx / (N * sxx);
    b->goodput_gbps = sx * 1024 * 8 / secs / 1e9;
    b->drops = r.net.c.data_dropped;
    b->pauses = r.net.c.pause_frames;
    b->cnps = r.net.c.cnp_sent;
    if (print)
        printf("\nN=%d K=%s util %.4f jain %.4f q mean %.1f KB p5 %.0f p95 %.0f cuts %llu drops %llu pauses %llu\n", N,
               K, b->util, b->jain, b->q_mean, b->q_lo, b->q_hi, (unsigned long long)b->cuts,
               (unsigned long long)b->drops, (unsigned long long)b->pauses);
    CU_ASSERT_EQUAL(net_check_invariants(&r.net, json, sizeof json), 0);
    test_teardown(&scn, &r);
}


static void test_state_machine(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}},"
                               " \"host\": {\"cc\": \"dctcp\"}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\","
                               " \"dst\": \"h1\", \"size\": \"1MB\"}]}", NULL, NULL, &scn, &r));
    int id = cc_find("dctcp");
    CU_ASSERT_FATAL(id >= 0);
    const struct cc_ops *o = cc_registry[id];
    CU_ASSERT_EQUAL(o->flags, CC_F_ECN | CC_F_ECN_STEP); /* no CC_F_CNP: the echo rides on ACKs */
    struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_EQUAL(f->cc, id);
    const struct dctcp_view *d = CC_STATE(f, const struct dctcp_view);
    o->init(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 100e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(d->alpha, 1.0, 0);
#define ACK(una, nxt, newly, e)                                                                                      \
    do {                                                                                                             \
        f->snd_una = (una);                                                                                          \
        f->snd_nxt = (nxt);                                                                                          \
        o->on_ack(f, &(struct cc_ack){.psn = (una), .newly_acked = (newly), .ece = (e)}, 0);                         \
    } while (0)
    ACK(1, 10, 1, false); /* the first window closes at once; no alpha update; the increase is capped at line rate */
    CU_ASSERT_EQUAL(d->win_end, 10);
    CU_ASSERT_DOUBLE_EQUAL(d->alpha, 1.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 100e9, 0);
    ACK(5, 14, 4, true); /* a mark: cut by alpha / 2, a reduction until PSN 14 is acknowledged */
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50e9, 0);
    CU_ASSERT_TRUE(d->cwr);
    CU_ASSERT_EQUAL(d->cwr_end, 14);
    ACK(8, 14, 3, true); /* a second mark in the same reduction: no cut */
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50e9, 0);
    CU_ASSERT_EQUAL(d->cuts, 1);
    ACK(11, 20, 3, false); /* the window ends: 7 of 10 marked; still reducing, so no increase */
    CU_ASSERT_DOUBLE_EQUAL(d->alpha, 15.0 / 16 + 0.7 / 16, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50e9, 0);
    CU_ASSERT_EQUAL(d->win_end, 20);
    ACK(15, 20, 4, false); /* past the cut's PSN: the reduction ends, but the window does not */
    CU_ASSERT_FALSE(d->cwr);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50e9, 0);
    ACK(21, 30, 6, false); /* the window ends unmarked: alpha decays, the rate rises by ai_rate */
    double alpha = (15.0 / 16 + 0.7 / 16) * 15 / 16;
    CU_ASSERT_DOUBLE_EQUAL(d->alpha, alpha, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50.615e9, 1e-3);
    ACK(22, 30, 1, true);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 50.615e9 * (1 - alpha / 2), 1e-3);
    CU_ASSERT_EQUAL(d->cuts, 2);
    struct cc_sample smp;
    cc_sample(f, 0, &smp);
    CU_ASSERT_DOUBLE_EQUAL(smp.alpha, alpha, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(smp.target_bps, smp.rate_bps, 0); /* no target of its own: target = rate */
    for (int i = 0; i < 40; i++) /* cut after cut: never below min_rate */
        ACK(23 + i, 24 + i, 1, true);
    CU_ASSERT_DOUBLE_EQUAL(d->rate, 100e6, 0);
#undef ACK
    test_teardown(&scn, &r);
}

/* Preset "hpcc" keeps the HPCC simulator's window, rate x 13 us, which follows every cut; "paper" has none. */
static void test_window(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}},"
                               " \"host\": {\"cc\": \"dctcp\", \"dctcp\": {\"preset\": \"hpcc\"}}, \"traffic\":"
                               " [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}",
                               NULL, NULL, &scn, &r));
    const struct cc_ops *o = cc_registry[cc_find("dctcp")];
    struct flow *f = net_flow(&r.net, 0);
    o->init(f, 0);
    CU_ASSERT_EQUAL(f->cc_wnd, 162500); /* 100 Gbps x 13 us / 8 */
    f->snd_una = 1;
    f->snd_nxt = 10;
    o->on_ack(f, &(struct cc_ack){.psn = 1, .newly_acked = 1, .ece = true}, 0); /* alpha 1: the rate halves */
    CU_ASSERT_DOUBLE_EQUAL(CC_STATE(f, const struct dctcp_view)->rate, 50e9, 0);
    CU_ASSERT_EQUAL(f->cc_wnd, 81250);
    test_teardown(&scn, &r);
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}},"
                               " \"host\": {\"cc\": \"dctcp\"}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\","
                               " \"dst\": \"h1\", \"size\": \"1MB\"}]}", NULL, NULL, &scn, &r));
    f = net_flow(&r.net, 0);
    o->init(f, 0);
    CU_ASSERT_EQUAL(f->cc_wnd, 0);
    test_teardown(&scn, &r);
}

/* kmin = kmax = K is DCTCP's step: never at K, always above it, pmax unused. */
static void test_step_marking(void)
{
    struct ecn_thresh e = {.kmin = 100000, .kmax = 100000, .pmax = 0.01};
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 100000), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 100001), 1.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 0), 0.0, 0);
}

/* One flow alone: no mark, no cut, the line's goodput. */
static void test_line_goodput(void)
{
    struct bottleneck b;
    bottleneck(1, "100KB", "4ms", false, &b);
    CU_ASSERT_EQUAL(b.cuts, 0);
    CU_ASSERT(b.util > 0.999);
}

/* The receiver's echo reaches the sender: flows into one port are cut (no CNP is sent), share it evenly, lose
 * nothing under PFC and keep the queue around K with the link busy. */
static void test_share_and_queue(void)
{
    static const int Ns[] = {2, 16};
    for (int i = 0; i < 2; i++) {
        struct bottleneck b;
        bottleneck(Ns[i], "100KB", "10ms", false, &b);
        CU_ASSERT(b.cuts > 100);
        CU_ASSERT_EQUAL(b.cnps, 0);
        CU_ASSERT(b.jain >= 0.99);
        CU_ASSERT_EQUAL(b.drops, 0);
        CU_ASSERT(b.q_lo < 100 && b.q_hi > 100);
        CU_ASSERT(b.util > 0.95);
    }
}

void test_dctcp_register(void)
{
    CU_pSuite s = CU_add_suite("dctcp", NULL, NULL);
    CU_add_test(s, "sender: alpha per window, one cut per window, additive increase, exact", test_state_machine);
    CU_add_test(s, "preset hpcc: a window of rate x 13 us that follows the rate; paper: none", test_window);
    CU_add_test(s, "step marking with kmin = kmax", test_step_marking);
    CU_add_test(s, "one flow: line goodput, no cut", test_line_goodput);
    CU_add_test(s, "N flows into one port: ECN-Echo cuts, fair share, no loss, queue around K, busy link",
                test_share_and_queue);
}
