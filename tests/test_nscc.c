/*
 * NSCC (models/cc_nscc.c): the constants against the UEC reference simulator's own values (its run logs at
 * 100/200/400/800 Gbit/s, RTT_net of its default three-tier fat tree with 1 us hops, MTU 4150 = 4086 + 64), and
 * the per-ACK rules on known sequences of ACKs, NACKs and timeouts driven through the module's hooks.
 */
#include "tests/tests.h"
#include "models/cc_nscc.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Two hosts through one switch; host.mtu 4086, the reference's MSS. */
static bool setup(struct scenario *scn, struct run *r, const char *rate, const char *nscc, const char *extra)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"%s\", \"delay\": \"1us\"}},"
             " \"host\": {\"cc\": \"nscc\", \"loss_recovery\": \"uet\", \"mtu\": 4086, \"nscc\": {%s}}%s, \"traffic\": [{\"type\": \"flow\","
             " \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10MB\"}]}",
             rate, nscc, extra);
    return test_setup(json, NULL, NULL, scn, r);
}

/* The reference's RTT_net for its default topology (brief of its main_uec.cpp): 2 x 6 us + 6 x the data and ACK
 * serializations at the line rate, in ps. */
static const struct {
    const char *rate, *rtt;
    double a, alpha, fi, eta, fi_scale;
    int64_t maxwnd;
} refs[] = {
    {"100Gbps", "14022720ps", 1.16856, 0.00159158, 23873.7, 716.21, 0.29214, 262926},
    {"200Gbps", "13011360ps", 2.16856, 0, 44303.7, 1329.11, 0.54214, 487926},
    {"400Gbps", "12505680ps", 4.16856, 0, 85163.7, 2554.91, 1.04214, 937926},
    {"800Gbps", "12252840ps", 8.16856, 0, 166883.7, 5006.51, 2.04214, 1837926},
};

static void test_constants(void)
{
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
        struct scenario scn;
        struct run r;
        char nscc[128];
        snprintf(nscc, sizeof nscc, "\"network_rtt\": \"%s\"", refs[i].rtt);
        CU_ASSERT_FATAL(setup(&scn, &r, refs[i].rate, nscc, ", \"switch\": {\"trim\": {\"enabled\": true}}"));
        struct nscc_consts c;
        nscc_consts_of_host(&r.net, &r.net.hosts[0], &c);
        int64_t rtt = 0;
        char err[64];
        CU_ASSERT_EQUAL(units_parse_time(refs[i].rtt, &rtt, err, sizeof err), 0);
        CU_ASSERT_EQUAL(c.net_rtt, rtt);
        CU_ASSERT_EQUAL(c.target, (sim_time_t)(rtt * 0.75)); /* the switch trims */
        CU_ASSERT_DOUBLE_EQUAL(c.a, refs[i].a, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(c.b, (double)c.target / 12e6, 1e-15);
        if (refs[i].alpha)
            CU_ASSERT_DOUBLE_EQUAL(c.alpha / refs[i].alpha, 1, 1e-5);
        CU_ASSERT_DOUBLE_EQUAL(c.alpha, 4.0 * 4086 * c.a * c.b / (double)c.target, 1e-18);
        CU_ASSERT_DOUBLE_EQUAL(c.fi, refs[i].fi, 0.1);
        CU_ASSERT_DOUBLE_EQUAL(c.eta, refs[i].eta, 0.01);
        CU_ASSERT_DOUBLE_EQUAL(c.fi_scale, refs[i].fi_scale, 1e-5);
        CU_ASSERT_EQUAL(c.mss, 4086);
        CU_ASSERT_EQUAL(c.mtu, 4086 + HDR_DATA);
        CU_ASSERT_EQUAL(nscc_maxwnd(c.net_rtt, c.line_bps), refs[i].maxwnd); /* the reference's printed maxwnd */
        /* A flow's window starts at maxwnd. */
        struct flow *f = net_flow(&r.net, 0);
        cc_registry[f->cc]->init(f, 0);
        CU_ASSERT_EQUAL(f->cc_wnd, refs[i].maxwnd);
        test_teardown(&scn, &r);
    }
    /* Without trimming the target is RTT_net itself. */
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(setup(&scn, &r, "100Gbps", "\"network_rtt\": \"14022720ps\"", ""));
    struct nscc_consts c;
    nscc_consts_of_host(&r.net, &r.net.hosts[0], &c);
    CU_ASSERT_EQUAL(c.target, 14022720);
    test_teardown(&scn, &r);
}

#define FLOW "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h15\", \"size\": \"1MB\"}"

/* "auto": the longest unloaded round trip of a k = 4 fat tree, host 0 to another pod: six links out with a full
 * data frame, six back with an ACK, each frame with its preamble and gap. */
static void test_auto_rtt(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": \"100Gbps\","
                               " \"delay\": \"1us\"}}, \"host\": {\"cc\": \"nscc\", \"loss_recovery\": \"uet\"}, \"traffic\": [" FLOW "]}",
                               NULL, NULL, &scn, &r));
    sim_time_t data = units_tx_ps(1024 + HDR_DATA + WIRE_OVERHEAD, 100000000000LL);
    sim_time_t ack = units_tx_ps(FRAME_ACK + WIRE_OVERHEAD, 100000000000LL);
    CU_ASSERT_EQUAL(r.net.cc_net_rtt, 12 * PS_PER_US + 6 * (data + ack));
    CU_ASSERT_EQUAL(r.net.cc_net_rtt, 12572160);
    struct nscc_consts c;
    nscc_consts_of_host(&r.net, &r.net.hosts[5], &c);
    CU_ASSERT_EQUAL(c.net_rtt, 12572160);
    CU_ASSERT_EQUAL(c.target, 12572160);
    test_teardown(&scn, &r);
    /* Not worked out when no host needs it. */
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": \"100Gbps\","
                               " \"delay\": \"1us\"}}, \"traffic\": [" FLOW "]}", NULL, NULL, &scn, &r));
    CU_ASSERT_EQUAL(r.net.cc_net_rtt, 0);
    test_teardown(&scn, &r);
}

/* The flow under test, its state and constants, and what drives it. */
struct rig {
    struct scenario scn;
    struct run r;
    struct flow *f;
    const struct cc_ops *o;
    struct nscc_state *s;
    struct nscc_consts c;
};

static bool rig_up(struct rig *g, const char *nscc)
{
    if (!setup(&g->scn, &g->r, "100Gbps", nscc, ""))
        return false;
    g->f = net_flow(&g->r.net, 0);
    g->o = cc_registry[g->f->cc];
    g->s = CC_STATE(g->f, struct nscc_state);
    g->o->init(g->f, 0);
    nscc_consts_of_host(&g->r.net, &g->r.net.hosts[0], &g->c);
    return true;
}

static void ack(struct rig *g, sim_time_t now, uint32_t bytes, sim_time_t rtt, bool ece, uint32_t inflight)
{
    g->o->on_ack(g->f, &(struct cc_ack){.bytes = bytes, .rtt = rtt, .ece = ece, .inflight = inflight}, now);
}

static void nack(struct rig *g, sim_time_t now, uint32_t bytes, sim_time_t rtt, uint32_t inflight)
{
    g->o->on_ack(g->f, &(struct cc_ack){.nack = true, .nack_bytes = bytes, .rtt = rtt, .inflight = inflight}, now);
}

#define REF "\"network_rtt\": \"14022720ps\", \"target_delay\": \"10517040ps\""
#define BASE 14022720
#define TARGET 10517040
#define MTU (4086 + HDR_DATA)

/* The EWMA step, as the reference's assignment rounds it. */
static sim_time_t ewma(sim_time_t avg, double sample) { return (sim_time_t)(0.0125 * sample + (1 - 0.0125) * avg); }

/* Multiplicative decrease: by max(1 - 0.8 (avg - target) / avg, 0.5), at most once per base RTT. */
static void test_decrease(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"quick_adapt\": false"));
    CU_ASSERT_EQUAL(g.s->cwnd, 262926);
    CU_ASSERT_EQUAL(g.s->base_rtt, BASE);
    g.s->avg_delay = 2 * TARGET;
    sim_time_t t = PS_PER_MS, delay = 2 * TARGET;
    ack(&g, t, MTU, BASE + delay, true, 100000);
    sim_time_t avg = ewma(2 * TARGET, (double)delay); /* a marked ACK's delay goes in as it is */
    CU_ASSERT_EQUAL(g.s->avg_delay, avg);
    double md = 1 - 0.8 * (double)(avg - TARGET) / (double)avg;
    CU_ASSERT(md > 0.59 && md < 0.61);
    /* The cut, then the fulfil adjustment the first ACK makes (RTT_net since time 0): eta, and no inc_bytes. */
    int64_t w = (int64_t)((double)(int64_t)(262926 * md) + g.c.eta);
    CU_ASSERT_EQUAL(g.s->cwnd, w);
    CU_ASSERT_EQUAL(g.f->cc_wnd, w);
    CU_ASSERT_EQUAL(g.s->last_dec, t);
    /* Within a base RTT of the cut: none. */
    ack(&g, t + BASE, MTU, BASE + delay, true, 100000);
    CU_ASSERT_EQUAL(g.s->cwnd, w);
    /* Past it: the next (and eta again, RTT_net after the last). */
    avg = g.s->avg_delay;
    ack(&g, t + BASE + 1, MTU, BASE + delay, true, 100000);
    avg = ewma(avg, (double)delay);
    md = 1 - 0.8 * (double)(avg - TARGET) / (double)avg;
    w = (int64_t)((double)(int64_t)(w * md) + g.c.eta);
    CU_ASSERT_EQUAL(g.s->cwnd, w);
    /* A marked ACK below the target changes nothing but eta. */
    ack(&g, t + 3 * BASE, MTU, BASE + TARGET / 2, true, 100000);
    w = (int64_t)((double)w + g.c.eta);
    CU_ASSERT_EQUAL(g.s->cwnd, w);
    /* A long queue: the cut is capped at half. */
    g.s->avg_delay = 20 * TARGET;
    ack(&g, t + 5 * BASE, MTU, BASE + 20 * TARGET, true, 100000);
    CU_ASSERT_EQUAL(g.s->cwnd, (int64_t)((double)(w / 2) + g.c.eta));
    /* An unmarked ACK above the target feeds the EWMA a quarter of the base RTT. */
    avg = g.s->avg_delay;
    ack(&g, t + 5 * BASE + 1, MTU, BASE + 2 * TARGET, false, 100000);
    CU_ASSERT_EQUAL(g.s->avg_delay, ewma(avg, 0.25 * BASE));
    test_teardown(&g.scn, &g.r);
}

/* Fair increase: each ACK at or above the target adds fi x bytes to inc_bytes, paid out as inc_bytes / cwnd: a
 * window of ACKs adds about fi. */
static void test_fair_increase(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"window\": \"100000B\""));
    CU_ASSERT_EQUAL(g.s->cwnd, 100000);
    sim_time_t t = PS_PER_MS;
    ack(&g, t, MTU, BASE + TARGET, false, 50000); /* the first: eta (RTT_net since 0), fi x MTU pays 990 */
    int64_t w0 = (int64_t)(100000 + (int64_t)(g.c.fi * MTU) / 100000 + g.c.eta);
    CU_ASSERT_EQUAL(g.s->cwnd, w0);
    CU_ASSERT_EQUAL(g.s->last_adjust, t);
    /* A window's worth of ACKs within RTT_net: fulfils every 9 ACKs (> 8 MTU), no eta. */
    int n = (int)(w0 / MTU), fulfils = 0;
    for (int i = 1; i <= n; i++) {
        uint32_t before = g.s->received;
        ack(&g, t + i * 1000, MTU, BASE + TARGET, false, 50000);
        fulfils += g.s->received < before + MTU;
    }
    int64_t grown = (int64_t)g.s->cwnd - w0, pending = (int64_t)(g.s->inc_bytes / g.s->cwnd);
    double fi_window = g.c.fi * n * MTU / (double)w0; /* fi for the bytes of one window (n x MTU <= w0) */
    CU_ASSERT_EQUAL(fulfils, n / 9);
    /* Each fulfil divides by a window that has grown (at most by fi) and rounds down. */
    CU_ASSERT(grown + pending <= fi_window);
    CU_ASSERT(grown + pending >= fi_window * w0 / (w0 + g.c.fi) - fulfils - 2);
    test_teardown(&g.scn, &g.r);
}

/* Below the target: the proportional increase alpha x bytes x (target - delay); below 1 us of delay for more than
 * a window of bytes in a row, the fast increase fi_scale x bytes at once, until a delay of 1 us or more. */
static void test_fast_increase(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"window\": \"100000B\""));
    sim_time_t t = PS_PER_MS;
    ack(&g, t, MTU, BASE + 2 * PS_PER_US, false, 50000); /* 2 us: proportional */
    double inc = g.c.alpha * MTU * (double)(TARGET - 2 * PS_PER_US);
    CU_ASSERT_EQUAL(g.s->cwnd, (int64_t)(100000 + (int64_t)inc / 100000 + g.c.eta));
    CU_ASSERT_FALSE(g.s->fast);
    int first_fast = 0, i = 1;
    for (; i < 60; i++) {
        uint32_t cw = g.s->cwnd, fc = g.s->fi_count;
        ack(&g, t + i * 1000, MTU, BASE, false, 50000); /* no queue at all */
        bool want = (int64_t)fc + MTU > (int64_t)cw || first_fast;
        CU_ASSERT_EQUAL(g.s->fast, want);
        if (g.s->fast) {
            CU_ASSERT(g.s->cwnd >= (int64_t)((double)cw + MTU * g.c.fi_scale));
            first_fast = first_fast ? first_fast : i;
        }
    }
    CU_ASSERT(first_fast > 100000 / MTU); /* not before a window of bytes */
    /* About (1 + fi_scale) per window of fast ACKs (the window reaches maxwnd first otherwise). */
    CU_ASSERT(g.s->cwnd > 100000 + (i - first_fast) * MTU * g.c.fi_scale);
    /* A delay of 1 us ends it. */
    ack(&g, t + i * 1000, MTU, BASE + PS_PER_US, false, 50000);
    CU_ASSERT_FALSE(g.s->fast);
    CU_ASSERT_EQUAL(g.s->fi_count, 0);
    test_teardown(&g.scn, &g.r);
}

/* Quick adapt: a period of base RTT + target that delivered less than maxwnd / 8, ended by a loss, cuts the
 * window to what it delivered; the ECN-marked ACKs and the NACKs of what was in flight are then ignored. */
static void test_quick_adapt(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF));
    int64_t maxwnd = 262926;
    sim_time_t t = PS_PER_MS;
    ack(&g, t, MTU, BASE + TARGET / 2, false, 200000); /* starts the first period */
    CU_ASSERT_EQUAL(g.s->qa_end, t + BASE + TARGET);
    CU_ASSERT_EQUAL(g.s->achieved, 0);
    for (int i = 1; i <= 5; i++)
        ack(&g, t + i * PS_PER_US, 4000, BASE + TARGET / 2, false, 200000);
    CU_ASSERT_EQUAL(g.s->achieved, 20000);
    CU_ASSERT(20000 < maxwnd / 8);
    uint32_t before = g.s->cwnd;
    nack(&g, t + BASE + TARGET - 1, MTU, 0, 100000); /* still in the period: the NACK cuts its bytes */
    CU_ASSERT_EQUAL(g.s->cwnd, before - MTU);
    CU_ASSERT_TRUE(g.s->trigger_qa);
    ack(&g, t + BASE + TARGET + 1, 2000, BASE + TARGET / 2, false, 100000); /* the period is over: quick adapt */
    CU_ASSERT_EQUAL(g.s->cwnd, 22000);
    CU_ASSERT_EQUAL(g.f->cc_wnd, 22000);
    CU_ASSERT_EQUAL(g.s->ignore_left, 100000);
    CU_ASSERT_FALSE(g.s->trigger_qa);
    CU_ASSERT_EQUAL(g.s->achieved, 0);
    sim_time_t t2 = t + BASE + TARGET + 1;
    CU_ASSERT_EQUAL(g.s->qa_end, t2 + BASE + TARGET);
    /* In the ignore window: a marked ACK far above the target does not cut, a NACK does not cut. */
    g.s->avg_delay = 4 * TARGET;
    ack(&g, t2 + 2 * BASE, 30000, BASE + 3 * TARGET, true, 100000);
    CU_ASSERT_EQUAL(g.s->cwnd, 22000);
    nack(&g, t2 + 2 * BASE + 1, MTU, 0, 100000);
    CU_ASSERT_EQUAL(g.s->cwnd, 22000);
    CU_ASSERT_EQUAL(g.s->ignore_left, 100000 - 30000 - MTU);
    /* Unmarked ACKs are not ignored: they count and increase. */
    ack(&g, t2 + 2 * BASE + 2, 70000, BASE + TARGET, false, 100000);
    CU_ASSERT_EQUAL(g.s->ignore_left, 0);
    CU_ASSERT(g.s->cwnd > 22000);
    /* Past the window a marked ACK acts again. */
    uint32_t w = g.s->cwnd;
    ack(&g, t2 + 2 * BASE + 3, MTU, BASE + 3 * TARGET, true, 100000);
    CU_ASSERT(g.s->cwnd < w);
    test_teardown(&g.scn, &g.r);
}

/* Quick adapt on a long delay (above 4 x target), and not when the period delivered maxwnd / 8 or more. */
static void test_quick_adapt_delay(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF));
    sim_time_t t = PS_PER_MS;
    ack(&g, t, MTU, BASE, false, 0);
    ack(&g, t + 1000, 262926 / 8 - MTU, BASE, false, 0); /* with the next, maxwnd / 8: not below the gate */
    ack(&g, t + BASE + TARGET + 1, MTU, BASE + 4 * TARGET + 1, false, 0);
    CU_ASSERT(g.s->cwnd > 100000);
    sim_time_t t2 = t + BASE + TARGET + 1;
    ack(&g, t2 + 1, 5000, BASE, false, 0);
    ack(&g, t2 + BASE + TARGET + 1, MTU, BASE + 4 * TARGET, false, 7000); /* 4 x target is not above it */
    CU_ASSERT(g.s->cwnd > 100000);
    sim_time_t t3 = t2 + BASE + TARGET + 1;
    ack(&g, t3 + 1, 5000, BASE, false, 0);
    ack(&g, t3 + BASE + TARGET + 1, 1000, BASE + 4 * TARGET + 1, false, 7000);
    CU_ASSERT_EQUAL(g.s->cwnd, 6000); /* what the period delivered */
    CU_ASSERT_EQUAL(g.s->ignore_left, 7000);
    sim_time_t t4 = t3 + BASE + TARGET + 1;
    ack(&g, t4 + 1, 1000, BASE, false, 0);
    ack(&g, t4 + BASE + TARGET + 1, 1000, BASE + 4 * TARGET + 1, false, 7000);
    CU_ASSERT_EQUAL(g.s->cwnd, MTU); /* 2000 delivered, but the window is at least one MTU ... */
    CU_ASSERT_EQUAL(g.s->ignore_left, 7000);
    test_teardown(&g.scn, &g.r);
    /* ... and with quick_adapt off, nothing of it. */
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"quick_adapt\": false"));
    ack(&g, t, MTU, BASE, false, 0);
    ack(&g, t + 1, 5000, BASE, false, 0);
    ack(&g, t + BASE + TARGET + 1, MTU, BASE + 4 * TARGET + 1, false, 7000);
    CU_ASSERT(g.s->cwnd > 100000);
    test_teardown(&g.scn, &g.r);
}

/* A NACK cuts its bytes, but not one the transport marks last_hop (a trim at the receiver's own link under receiver
 * credit, which paces that link), feeds the EWMA RTT_net, and may lower the base RTT; a timeout cuts the bytes it
 * resends, down to one MTU. */
static void test_nack_timeout(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"window\": \"10000B\""));
    sim_time_t t = PS_PER_MS;
    g.s->avg_delay = 1000000;
    nack(&g, t, 3000, 0, 5000); /* the first NACK opens the first quick-adapt period, and cuts */
    CU_ASSERT_EQUAL(g.s->cwnd, 7000);
    CU_ASSERT_EQUAL(g.s->avg_delay, ewma(1000000, (double)BASE));
    g.o->on_ack(g.f, &(struct cc_ack){.nack = true, .last_hop = true, .nack_bytes = 1000}, t + 1);
    CU_ASSERT_EQUAL(g.s->cwnd, 7000); /* last hop under receiver credit: spared */
    sim_time_t avg = g.s->avg_delay;
    nack(&g, t + 2, 0, 0, 5000); /* its packet is no longer in flight: nothing at all */
    CU_ASSERT_EQUAL(g.s->cwnd, 7000);
    CU_ASSERT_EQUAL(g.s->avg_delay, avg);
    nack(&g, t + 2, 3000, 0, 5000);
    CU_ASSERT_EQUAL(g.s->cwnd, MTU); /* at least one MTU */
    /* A NACK's RTT lowers the base RTT, and with it maxwnd. */
    nack(&g, t + 3, 100, 5 * PS_PER_US, 5000);
    CU_ASSERT_EQUAL(g.s->base_rtt, 5 * PS_PER_US);
    CU_ASSERT_EQUAL(nscc_maxwnd(g.s->base_rtt, 100000000000LL), 93750); /* 1.5 x 5 us x 100 Gbit/s / 8 */
    test_teardown(&g.scn, &g.r);

    CU_ASSERT_FATAL(rig_up(&g, REF ", \"window\": \"10000B\", \"nack_base_rtt\": false"));
    nack(&g, t, 100, 5 * PS_PER_US, 5000);
    CU_ASSERT_EQUAL(g.s->base_rtt, BASE);
    ack(&g, t + 1, 0, 5 * PS_PER_US, false, 5000); /* an ACK's does */
    CU_ASSERT_EQUAL(g.s->base_rtt, 5 * PS_PER_US);
    int64_t w = (int64_t)(9900 + g.c.eta); /* the ACK's fulfil adjustment: eta, RTT_net after time 0 */
    g.o->on_ack(g.f, &(struct cc_ack){.timeout = true, .nack_bytes = MTU}, t + 2);
    CU_ASSERT_EQUAL(g.s->cwnd, w - MTU);
    g.o->on_ack(g.f, &(struct cc_ack){.timeout = true, .nack_bytes = MTU}, t + 3);
    CU_ASSERT_EQUAL(g.s->cwnd, MTU);
    CU_ASSERT_EQUAL(g.f->cc_wnd, MTU);
    test_teardown(&g.scn, &g.r);
}

/* base_rtt "pair": the flow's own unloaded round trip, two links each way; the window follows; maxwnd bounds it. */
static void test_pair_base(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, REF ", \"base_rtt\": \"pair\""));
    sim_time_t rtt = 4 * PS_PER_US + 2 * units_tx_ps(4086 + HDR_DATA + WIRE_OVERHEAD, 100000000000LL) +
                     2 * units_tx_ps(FRAME_ACK + WIRE_OVERHEAD, 100000000000LL);
    CU_ASSERT_EQUAL(g.s->base_rtt, rtt);
    CU_ASSERT_EQUAL(g.s->base_rtt, 4680640);
    CU_ASSERT_EQUAL(g.s->cwnd, nscc_maxwnd(rtt, 100000000000LL));
    CU_ASSERT_EQUAL(g.s->cwnd, 87762); /* 1.5 x 58508 */
    struct cc_sample smp;
    cc_sample(g.f, 0, &smp);
    CU_ASSERT_DOUBLE_EQUAL(smp.rate_bps, 100e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(smp.target_bps, 87762 * 8 / 4680640e-12, 1);
    test_teardown(&g.scn, &g.r);
}

static void test_settings(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"cc\": \"nscc\", \"loss_recovery\": \"uet\", \"nscc\": {\"network_rtt\":"
         " \"soon\"}}, \"traffic\": []}",
         "t.json: host.nscc.network_rtt: expected a time"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"nscc\": {\"qa_gate\": 40}}, \"traffic\": []}",
         "t.json: host.nscc.qa_gate:"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"nscc\": {\"base_rtt\": \"flow\"}}, "
         "\"traffic\": []}",
         "t.json: host.nscc.base_rtt:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[SCN_ERR_MAX];
        test_load_err(bad[i].json, err, sizeof err);
        if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0)
            printf("\n    got: %s", err);
        CU_ASSERT_EQUAL(strncmp(err, bad[i].err, strlen(bad[i].err)), 0);
    }
}

/* rocesim check's view: the constants the host's flows work with. */
static void test_host_values(void)
{
    struct rig g;
    CU_ASSERT_FATAL(rig_up(&g, "\"network_rtt\": \"14022720ps\""));
    struct cc_value v[16];
    int n = g.o->host_values(&g.r.net.hosts[0], v, 16);
    CU_ASSERT_EQUAL(n, 10);
    CU_ASSERT_STRING_EQUAL(v[0].name, "network_rtt");
    CU_ASSERT_STRING_EQUAL(v[0].text, "14022.72ns");
    CU_ASSERT_STRING_EQUAL(v[1].name, "target_delay");
    CU_ASSERT_STRING_EQUAL(v[1].text, "14022.72ns");
    CU_ASSERT_STRING_EQUAL(v[6].name, "fi");
    CU_ASSERT_STRING_EQUAL(v[6].text, "23873.7");
    test_teardown(&g.scn, &g.r);
}

void test_nscc_register(void)
{
    CU_pSuite s = CU_add_suite("nscc", NULL, NULL);
    CU_add_test(s, "constants at 100/200/400/800 Gbit/s as the UEC reference derives them", test_constants);
    CU_add_test(s, "network_rtt auto: the longest unloaded round trip, once per network", test_auto_rtt);
    CU_add_test(s, "multiplicative decrease: its factor, once per base RTT, capped at half", test_decrease);
    CU_add_test(s, "fair increase: about fi per window of ACKs", test_fair_increase);
    CU_add_test(s, "proportional and fast increase", test_fast_increase);
    CU_add_test(s, "quick adapt after a loss, and its ignore window", test_quick_adapt);
    CU_add_test(s, "quick adapt on a long delay, its gate, switched off", test_quick_adapt_delay);
    CU_add_test(s, "NACK and timeout cuts, base RTT from NACKs", test_nack_timeout);
    CU_add_test(s, "base_rtt pair and the sample", test_pair_base);
    CU_add_test(s, "host.nscc refused values", test_settings);
    CU_add_test(s, "host_values for rocesim check", test_host_values);
}
