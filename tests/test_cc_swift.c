/*
 * Swift (models/cc_swift.c): its window on a known sequence of ACKs (exact values from the paper's formulas with
 * host.swift's defaults), the target delay's hop and flow scaling, pacing below one packet, what rates.csv shows,
 * host.swift's cross-field rule, and a whole incast run with the engine's invariants.
 */
#include "tests/tests.h"
#include "models/cc_swift.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STAR2 \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}," \
    "\"host\": {\"cc\": \"swift\"}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}"

/* The flow-scaling term of the target at window w (packets), with the defaults: 100 us at 0.1, 0 at 100. */
static double fs_term(double w)
{
    double a = 100e6 / (1 / sqrt(0.1) - 1 / sqrt(100.0)), t = a / sqrt(w) - a / sqrt(100.0);
    return t < 0 ? 0 : t > 100e6 ? 100e6 : t;
}

static void ack(struct flow *f, sim_time_t now, sim_time_t rtt, bool nack)
{
    struct cc_ack a = {.psn = 1, .newly_acked = nack ? 0 : 1, .nack = nack, .rtt = rtt};
    flow_cc(f)->on_ack(f, &a, now);
}

static void test_window(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(STAR2, NULL, NULL, &scn, &r));
    struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_STRING_EQUAL_FATAL(flow_cc(f)->name, "swift");
    CU_ASSERT(f->cc_flags & CC_F_RTT);
    const struct swift_state *s = CC_STATE(f, const struct swift_state);
    flow_cc(f)->init(f, 0);
    /* One switch: 20 us + 3.05 us; the window keeps 100 Gbps busy over it, far above fs_max_cwnd. */
    CU_ASSERT_EQUAL(s->hops, 1);
    CU_ASSERT_EQUAL(s->hop_target, 23050000);
    CU_ASSERT_EQUAL(s->target, 23050000);
    double w = 100e9 * 23.05e-6 / (8 * 1024);
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    CU_ASSERT_EQUAL(f->cc_wnd, (uint32_t)(w * 1024));
    /* Below the target: ai / cwnd per packet acknowledged. */
    ack(f, PS_PER_US, 10 * PS_PER_US, false);
    w += 1.0 / w;
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    CU_ASSERT_EQUAL(s->decreases, 0);
    /* Twice the target: 1 - 0.8 x (46.1 - 23.05) / 46.1 = 0.6. */
    ack(f, 30 * PS_PER_US, 46100000, false);
    w *= 0.6;
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    CU_ASSERT_EQUAL(s->decreases, 1);
    CU_ASSERT_EQUAL(s->last_decrease, 30 * PS_PER_US);
    /* Still above the target, but within one RTT (46.1 us) of that decrease: no change. */
    ack(f, 40 * PS_PER_US, 0, false);
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    /* Ten times the target: 1 - 0.8 x 0.9 = 0.28 is bounded by 1 - max_mdf = 0.5. */
    ack(f, 80 * PS_PER_US, 230500000, false);
    w *= 0.5;
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    CU_ASSERT_EQUAL(s->decreases, 2);
    /* A NACK (fast recovery) cuts by max_mdf, once per RTT (now 230.5 us). */
    ack(f, 200 * PS_PER_US, 0, true);
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    ack(f, 320 * PS_PER_US, 0, true);
    w *= 0.5;
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, w, 1e-9);
    CU_ASSERT_EQUAL(s->decreases, 3);
    /* Below fs_max_cwnd (35 packets) the flow scaling raises the target. */
    CU_ASSERT_EQUAL(s->target, 23050000 + (sim_time_t)fs_term(w));
    CU_ASSERT(s->target > 23050000);
    struct cc_stat st[2];
    CU_ASSERT_EQUAL(cc_stats(f, st, 2), 2);
    CU_ASSERT_STRING_EQUAL(st[0].name, "window_cuts");
    CU_ASSERT_EQUAL(st[0].value, 3);
    CU_ASSERT_EQUAL(st[1].value, 3); /* three ACKs carried a sample */
    /* rates.csv: line rate (a window above one packet is not paced), the window's rate, the target in us. */
    struct cc_sample cs;
    cc_sample(f, 320 * PS_PER_US, &cs);
    CU_ASSERT_EQUAL(cs.valid, 7);
    CU_ASSERT_DOUBLE_EQUAL(cs.rate_bps, 100e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(cs.target_bps, w * 1024 * 8 / 230.5e-6, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(cs.alpha, (double)s->target / 1e6, 1e-12);
    test_teardown(&scn, &r);
}

/* Below one packet: one frame in flight, paced at cwnd x MTU per RTT; the flow scaling at its fs_range bound. */
static void test_pacing(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(STAR2, "host.swift.init_cwnd", "0.05", &scn, &r));
    struct flow *f = net_flow(&r.net, 0);
    const struct swift_state *s = CC_STATE(f, const struct swift_state);
    flow_cc(f)->init(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, 0.05, 0);
    CU_ASSERT_EQUAL(s->target, 123050000); /* 23.05 us + fs_range */
    CU_ASSERT_EQUAL(f->cc_wnd, 1024);
    CU_ASSERT_DOUBLE_EQUAL(cc_rate(f), 0.05 * 1024 * 8 / 123.05e-6, 1e-3); /* no sample yet: over the target */
    ack(f, PS_PER_US, 50 * PS_PER_US, false); /* below one packet the increase is ai per packet */
    CU_ASSERT_DOUBLE_EQUAL(s->cwnd, 1.05, 1e-12);
    CU_ASSERT_EQUAL(f->cc_wnd, (uint32_t)(1.05 * 1024));
    CU_ASSERT_DOUBLE_EQUAL(cc_rate(f), 100e9, 0);
    test_teardown(&scn, &r);

    /* The same paced window over a whole transfer of 10 frames. */
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"host\": {\"cc\": \"swift\", \"swift\": {\"init_cwnd\": 0.1, \"ai\": 0.0001}},"
        "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10KB\"}]}";
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    f = net_flow(&r.net, 0);
    CU_ASSERT_TRUE(f->sender_done);
    double fct_us = (double)(f->finish - f->start) / 1e6;
    /* Frame 0 leaves before any sample: its gap is 1106 B at 0.1 x 1024 B per 123.05 us (the target), 1329 us;
     * the 8 gaps after it use the measured round trip, 4.19 us unloaded (2 x 1 us each way, a data frame and an
     * ACK serialized twice): 45.3 us each; the last frame then takes 2.1 us to arrive. */
    double gap0 = 1106 / 102.4 * 123.05, rtt = 4.0 + 2 * 1106 * 8 / 100e3 + 2 * 86 * 8 / 100e3;
    CU_ASSERT_DOUBLE_EQUAL(fct_us, gap0 + 8 * 1106 / 102.4 * rtt + 2.09, 5);
    test_teardown(&scn, &r);
}

/* A 4-to-1 incast of 40 MB: mid-run each flow's last sample is near its target; every flow finishes, nothing is
 * dropped, packets are conserved. */
static void test_incast_run(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 5, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"host\": {\"cc\": \"swift\"}, \"stop\": \"50ms\","
        "\"traffic\": [{\"type\": \"incast\", \"senders\": \"h1-h4\", \"receiver\": \"h0\", \"size\": \"40MB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    sim_run(&r.sim, 5 * PS_PER_MS);
    for (uint32_t i = 0; i < 4; i++) {
        const struct swift_state *s = CC_STATE(net_flow(&r.net, i), const struct swift_state);
        CU_ASSERT(s->samples > 50);
        CU_ASSERT(s->decreases > 0);
        /* The last sample is within a microsecond of the flow's target (about 23.8 us). */
        CU_ASSERT(fabs((double)s->delay - (double)s->target) < 1e6);
    }
    test_run_checked(&r);
    CU_ASSERT_EQUAL(r.net.flows_completed, 4);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 0); /* no notification point */
    test_teardown(&scn, &r);
}

/* The same incast with a static XOFF of 50 KB: the first windows (line rate each) make the switch pause the
 * senders, and PFC keeps the run lossless while Swift brings the queue down. */
static void test_incast_pfc(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 5, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"host\": {\"cc\": \"swift\"}, \"stop\": \"50ms\", \"switch\": {\"pfc\": {\"xoff\": \"50KB\"}},"
        "\"traffic\": [{\"type\": \"incast\", \"senders\": \"h1-h4\", \"receiver\": \"h0\", \"size\": \"4MB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_EQUAL(r.net.flows_completed, 4);
    CU_ASSERT(r.net.c.pause_frames > 0);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 0);
    test_teardown(&scn, &r);
}

static void test_settings(void)
{
    struct scenario scn;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(scn_load_text("t.json", STAR2, NULL, 0, &scn, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cc_scenario_name(cc_params_of(&scn.host)->cc), "swift");
    char *dump = scn_to_json(&scn);
    CU_ASSERT_PTR_NOT_NULL(dump && strstr(dump, "\"base_target\": \"20us\""));
    free(dump);
    scn_free(&scn);
    struct scn_override ov = {"host.swift.fs_min_cwnd", "200"};
    CU_ASSERT_EQUAL(scn_load_text("t.json", STAR2, &ov, 1, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: host.swift.fs_min_cwnd (from --set): expected a window below fs_max_cwnd "
                                "(100), got 200");
    struct scn_override ov2 = {"host.swift.min_cwnd", "20000"};
    CU_ASSERT_EQUAL(scn_load_text("t.json", STAR2, &ov2, 1, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.swift.min_cwnd"));
}

void test_cc_swift_register(void)
{
    CU_pSuite s = CU_add_suite("congestion control: Swift", NULL, NULL);
    CU_add_test(s, "window on a known sequence of ACKs, bounded decrease once per RTT", test_window);
    CU_add_test(s, "below one packet: paced at cwnd x MTU per RTT", test_pacing);
    CU_add_test(s, "4-to-1 incast: lossless, conserved, delay near its target", test_incast_run);
    CU_add_test(s, "4-to-1 incast under PFC pauses: lossless", test_incast_pfc);
    CU_add_test(s, "host.swift: defaults and the window rule", test_settings);
}
