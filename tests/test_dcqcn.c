/* DCQCN reaction point alone, RED marking probability, PFC headroom arithmetic. */
#include "tests/tests.h"
#include "models/dcqcn.h"
#include "models/ecn.h"
#include "models/net.h"
#include "models/pfc.h"
#include "sim/units.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct dcqcn_params paper(void)
{
    struct dcqcn_params p = {
        .preset = DCQCN_PAPER, .g = 1.0 / 256, .alpha_init = 1.0, .alpha_timer_ps = 55 * PS_PER_US,
        .rate_increase_timer_ps = 55 * PS_PER_US, .byte_counter = 10000000, .fast_recovery_steps = 5,
        .ai_rate_bps = 40000000, .hai_rate_bps = 200000000, .min_rate_bps = 100000000,
        .rate_on_first_cnp = 1.0, .min_dec_factor = 0.5, .clamp_target_rate = false,
        .cnp_interval_ps = 50 * PS_PER_US};
    return p;
}

#define LINE 100e9

static void test_cut_and_alpha(void)
{
    struct dcqcn_params p = paper();
    p.alpha_init = 0.5;
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, LINE, 1e-3);
    dcqcn_on_cnp(&d, 1000);
    /* Rc <- Rc (1 - alpha/2) with alpha 0.5; alpha <- (1-g) alpha + g */
    CU_ASSERT_DOUBLE_EQUAL(d.rc, LINE * 0.75, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, LINE, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 1000), (1 - p.g) * 0.5 + p.g, 1e-12);
    /* a second cut with no increase in between keeps Rt (no clamp) */
    double a1 = dcqcn_alpha(&d, 2000);
    dcqcn_on_cnp(&d, 2000);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, LINE * 0.75 * (1 - a1 / 2), 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, LINE, 1e-3);
    /* with clamp_target_rate, Rt follows Rc at every cut */
    p.clamp_target_rate = true;
    double rc = d.rc;
    dcqcn_on_cnp(&d, 3000);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rc, 1e-3);
}

static void test_alpha_decay(void)
{
    struct dcqcn_params p = paper();
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    double a0 = dcqcn_alpha(&d, 0);
    CU_ASSERT_DOUBLE_EQUAL(a0, 1.0, 1e-12); /* (1-g)*1 + g */
    /* one factor (1-g) per whole quiet period, none before the first period ends */
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 55 * PS_PER_US - 1), a0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 55 * PS_PER_US), a0 * (1 - p.g), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 10 * 55 * PS_PER_US + 7), a0 * pow(1 - p.g, 10), 1e-12);
    /* a CNP restarts the period */
    dcqcn_on_cnp(&d, 3 * 55 * PS_PER_US);
    double a3 = a0 * pow(1 - p.g, 3);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 3 * 55 * PS_PER_US), (1 - p.g) * a3 + p.g, 1e-12);
}

static void test_recovery_phases(void)
{
    struct dcqcn_params p = paper();
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0); /* alpha 1: Rc halves to 50G, Rt stays 100G */
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 50e9, 1e-3);
    /* fast recovery: F timer steps, each halving the gap to Rt, Rt unchanged */
    for (int i = 1; i <= 5; i++) {
        double gap = d.rt - d.rc;
        dcqcn_on_timer(&d);
        CU_ASSERT_DOUBLE_EQUAL(d.rt, LINE, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(d.rt - d.rc, gap / 2, 1e-3);
    }
    /* additive increase: Rt += ai, Rc to the midpoint (Rt would exceed line rate: clamp) */
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    dcqcn_on_cnp(&d, 0); /* Rc 25G? alpha ~1: 50G * 0.5 = 25G; Rt 100G */
    d.rt = 30e9;         /* make room below line rate to observe the increase */
    for (int i = 0; i < 5; i++)
        dcqcn_on_timer(&d);
    double rt = d.rt, rc = d.rc;
    dcqcn_on_timer(&d); /* T = 6 > F, BC = 0: additive */
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rt + 40e6, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, (rt + 40e6 + rc) / 2, 1e-3);
    /* hyper increase: both counters above F; Rt += (min(T,BC) - F) * hai */
    d.bc_count = 6;
    rt = d.rt;
    rc = d.rc;
    dcqcn_on_timer(&d); /* T = 7, BC = 6: min 6, i = 1 */
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rt + 200e6, 1e-3);
    d.bc_count = 8;
    rt = d.rt;
    dcqcn_on_timer(&d); /* T = 8, BC = 8: i = 3 */
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rt + 3 * 200e6, 1e-3);
}

static void test_byte_counter(void)
{
    struct dcqcn_params p = paper();
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 50000000), 0); /* no cut yet: nothing to recover */
    dcqcn_on_cnp(&d, 0);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 9999999), 0);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 1), 1);
    CU_ASSERT_EQUAL(d.bc_count, 1);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 20000000), 2);
    CU_ASSERT_EQUAL(d.bc_count, 3);
}

static void test_bounds(void)
{
    struct dcqcn_params p = paper();
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    for (int i = 0; i < 200; i++)
        dcqcn_on_cnp(&d, i);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 100e6, 1e-3); /* min_rate */
    for (int i = 0; i < 100000 && d.increasing; i++) {
        dcqcn_on_timer(&d);
        dcqcn_on_sent(&d, 10000000);
        CU_ASSERT_FATAL(d.rc <= LINE && d.rt <= LINE && d.rc >= 100e6);
    }
    CU_ASSERT_DOUBLE_EQUAL(d.rc, LINE, 1.0);
    CU_ASSERT_FALSE(d.increasing);
    /* min_dec_factor bounds a single cut: alpha 1 would halve; factor 0.8 allows at most -20% */
    p.min_dec_factor = 0.8;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 80e9, 1e-3);
    /* rate_on_first_cnp multiplies Rc once, before the first cut */
    p = paper();
    p.rate_on_first_cnp = 0.5;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 25e9, 1e-3);
}

/*
 * rate_reduce_monitor_period (ConnectX): at most one cut per period.  Period 4 us: the CNP at 1 us cuts; the
 * two at 2 us and 3 us only leave a cut pending, due at 1 us + 4 us; the caller (cc_dcqcn.c, at that time)
 * makes the one cut for both.  Without a period (the paper) each of the three CNPs cuts.
 */
static void test_monitor_period(void)
{
    struct dcqcn_params p = paper();
    p.rate_reduce_period_ps = 4 * PS_PER_US;
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    CU_ASSERT_TRUE(dcqcn_on_cnp_monitored(&d, 1 * PS_PER_US));
    CU_ASSERT_EQUAL(d.cnps, 1);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 50e9, 1e-3);
    CU_ASSERT_FALSE(dcqcn_on_cnp_monitored(&d, 2 * PS_PER_US));
    CU_ASSERT_FALSE(dcqcn_on_cnp_monitored(&d, 3 * PS_PER_US));
    CU_ASSERT_EQUAL(d.cnps, 1);
    CU_ASSERT_TRUE(d.cut_pending);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 50e9, 1e-3);
    CU_ASSERT_EQUAL(dcqcn_cut_due(&d), 5 * PS_PER_US);
    double a = dcqcn_alpha(&d, 5 * PS_PER_US);
    dcqcn_on_cnp(&d, 5 * PS_PER_US);
    CU_ASSERT_EQUAL(d.cnps, 2);
    CU_ASSERT_FALSE(d.cut_pending);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, 50e9 * (1 - a / 2), 1e-3);
    /* a CNP a whole period after that cut cuts at once */
    CU_ASSERT_TRUE(dcqcn_on_cnp_monitored(&d, 9 * PS_PER_US));
    CU_ASSERT_EQUAL(d.cnps, 3);

    p = paper();
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    for (int i = 1; i <= 3; i++)
        CU_ASSERT_TRUE(dcqcn_on_cnp_monitored(&d, i * PS_PER_US));
    CU_ASSERT_EQUAL(d.cnps, 3);
    CU_ASSERT_FALSE(d.cut_pending);
}

/*
 * clamp_tgt_rate_after_time_inc: between two cuts only byte-counter increases happened, so the second cut keeps
 * the target; after a timer increase it resets it to the current rate.  Without the setting a byte-counter
 * increase is enough.
 */
static void test_clamp_after_timer(void)
{
    struct dcqcn_params p = paper();
    p.clamp_after_timer = true;
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 10000000), 1);
    double rc = d.rc;
    dcqcn_on_cnp(&d, 1000);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, LINE, 1e-3);
    dcqcn_on_timer(&d);
    rc = d.rc;
    dcqcn_on_cnp(&d, 2000);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rc, 1e-3);

    p.clamp_after_timer = false;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 10000000), 1);
    rc = d.rc;
    dcqcn_on_cnp(&d, 1000);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, rc, 1e-3);
}

/*
 * byte_counter "off" (INT64_MAX, byte_counter_off): no byte-counter event however much is sent, and the timer
 * alone decides the stage: after F = 5 fast-recovery steps the 6th timer event is hyper increase (T - F = 1
 * step of hai), where with a byte counter that never fired it would be additive.
 */
static void test_byte_counter_off(void)
{
    struct dcqcn_params p = paper();
    p.byte_counter = INT64_MAX;
    p.byte_counter_off = true;
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_on_cnp(&d, 0);
    dcqcn_on_cnp(&d, 0);
    d.rt = 30e9;
    CU_ASSERT_EQUAL(dcqcn_on_sent(&d, 1000000000000LL), 0);
    CU_ASSERT_EQUAL(d.bc_count, 0);
    for (int i = 0; i < 5; i++)
        dcqcn_on_timer(&d);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, 30e9, 1e-3);
    dcqcn_on_timer(&d); /* T = 6: hyper, 6 - 5 = 1 step */
    CU_ASSERT_DOUBLE_EQUAL(d.rt, 30e9 + 200e6, 1e-3);
    dcqcn_on_timer(&d); /* T = 7: 2 steps */
    CU_ASSERT_DOUBLE_EQUAL(d.rt, 30e9 + 200e6 + 2 * 200e6, 1e-3);
}

/* The presets: the paper's leaves every ConnectX addition off; connectx takes NVIDIA's documented defaults. */
static void test_presets(void)
{
    static const char base[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, "
                               "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}";
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", base, NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->rate_reduce_period_ps, 0);
    CU_ASSERT_FALSE(dcqcn_params_of(&s.host)->clamp_after_timer);
    CU_ASSERT_FALSE(dcqcn_params_of(&s.host)->byte_counter_off);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->byte_counter, 10000000);
    scn_free(&s);
    struct scn_override cx = {"host.dcqcn.preset", "connectx"};
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", base, &cx, 1, &s, err, sizeof err), SCN_OK);
    const struct dcqcn_params *d = dcqcn_params_of(&s.host);
    CU_ASSERT_EQUAL(d->rate_reduce_period_ps, 4 * PS_PER_US);
    CU_ASSERT_TRUE(d->clamp_after_timer);
    CU_ASSERT_FALSE(d->clamp_target_rate);
    CU_ASSERT_EQUAL(d->g, 5.0 / 1024);
    CU_ASSERT_EQUAL(d->alpha_timer_ps, 1 * PS_PER_US);
    CU_ASSERT_EQUAL(d->rate_increase_timer_ps, 300 * PS_PER_US);
    CU_ASSERT_EQUAL(d->byte_counter, 32767);
    CU_ASSERT_EQUAL(d->fast_recovery_steps, 1);
    CU_ASSERT_EQUAL(d->ai_rate_bps, 5000000);
    CU_ASSERT_EQUAL(d->hai_rate_bps, 50000000);
    CU_ASSERT_EQUAL(d->min_rate_bps, 1000000);
    CU_ASSERT_EQUAL(d->cnp_interval_ps, 4 * PS_PER_US);
    scn_free(&s);
    /* "off" turns the byte counter off, and the dump says so */
    struct scn_override off = {"host.dcqcn.byte_counter", "off"};
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", base, &off, 1, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_TRUE(dcqcn_params_of(&s.host)->byte_counter_off);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->byte_counter, INT64_MAX);
    char *j = scn_to_json(&s);
    CU_ASSERT_PTR_NOT_NULL(j && strstr(j, "\"byte_counter\": \"off\""));
    free(j);
    scn_free(&s);
    struct scn_override zero = {"host.dcqcn.byte_counter", "0"};
    CU_ASSERT_EQUAL(scn_load_text("t.json", base, &zero, 1, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.dcqcn.byte_counter (from --set): expected a size"));
    struct scn_override word = {"host.dcqcn.byte_counter", "\"none\""};
    CU_ASSERT_EQUAL(scn_load_text("t.json", base, &word, 1, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.dcqcn.byte_counter (from --set): expected \"off\" or a size like \"10MB\", got a string \"none\""));
}

/*
 * timing "periodic", the ns-3 RDMA simulator's machine (dcqcn.h), step by step with its values (g 1/256, alpha
 * ticks of 1 us, checks every 4 us, RP_TIMER 300 us, F = 1, 20 / 200 Mb/s): the first CNP (at 0) cuts nothing and
 * sets alpha to 1 without counting for the first tick; a CNP at 2.5 us counts for the tick at 3 us; the check at
 * 4 us + 1 ns cuts with alpha as the tick at 4 us left it; a CNP at 5 us cuts only at the next check, 8 us + 1 ns;
 * then increase events: one fast recovery, one additive step, hyper steps of a constant 200 Mb/s.
 */
static void test_periodic(void)
{
    struct dcqcn_params p = paper();
    p.alpha_timer_ps = PS_PER_US;
    p.rate_reduce_period_ps = 4 * PS_PER_US;
    p.rate_increase_timer_ps = 300 * PS_PER_US;
    p.fast_recovery_steps = 1;
    p.ai_rate_bps = 20000000;
    p.byte_counter_off = true;
    p.byte_counter = INT64_MAX;
    p.clamp_after_timer = true;
    p.periodic = 1;
    const double g = p.g;
    struct dcqcn d;
    dcqcn_init(&d, &p, (int64_t)LINE, 0);
    dcqcn_cnp_periodic(&d, 0);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, LINE, 1e-3); /* no cut yet */
    CU_ASSERT_EQUAL(dcqcn_cut_due(&d), 4 * PS_PER_US + 1000);
    dcqcn_cnp_periodic(&d, 2500000); /* 2.5 us: alpha 1 through the quiet ticks at 1 and 2 us */
    double a = 1.0 * (1 - g) * (1 - g);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 2500000), a, 1e-12);
    a = (1 - g) * a + g; /* the tick at 3 us saw the CNP */
    a *= 1 - g;          /* the tick at 4 us did not */
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_alpha(&d, 4 * PS_PER_US + 1000), a, 1e-12);
    dcqcn_check_periodic(&d, 4 * PS_PER_US + 1000);
    double rc = LINE * (1 - a / 2);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, rc, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(d.rt, LINE, 1e-3); /* no increase since the last cut: the target stays */
    dcqcn_cnp_periodic(&d, 5 * PS_PER_US);
    CU_ASSERT_EQUAL(dcqcn_cut_due(&d), 8 * PS_PER_US + 1000);
    CU_ASSERT_DOUBLE_EQUAL(d.rc, rc, 1e-3); /* not before that check */
    a *= 1 - g;                              /* the tick at 5 us */
    a = ((1 - g) * a + g) * (1 - g) * (1 - g); /* 6 us saw the CNP, 7 and 8 us did not */
    dcqcn_check_periodic(&d, 8 * PS_PER_US + 1000);
    rc *= 1 - a / 2;
    CU_ASSERT_DOUBLE_EQUAL(d.rc, rc, 1e-3);
    double rt = LINE;
    for (int e = 1; e <= 4; e++) {
        dcqcn_on_timer(&d);
        rt += e == 2 ? 20e6 : e > 2 ? 200e6 : 0;
        rt = rt > LINE ? LINE : rt;
        rc = (rt + rc) / 2;
        CU_ASSERT_DOUBLE_EQUAL(d.rc, rc, 1e-3);
    }
    /* below line rate the steps show: a target of 50 Gb/s after a clamped cut */
    d.rt = d.rc = 50e9;
    d.t_count = 0;
    for (int e = 1; e <= 4; e++) {
        dcqcn_on_timer(&d);
        CU_ASSERT_DOUBLE_EQUAL(d.rt, 50e9 + (e >= 2 ? 20e6 : 0) + (e > 2 ? (e - 2) * 200e6 : 0), 1e-3);
    }
}

static void test_red(void)
{
    struct ecn_thresh e = {.enabled = true, .kmin = 5000, .kmax = 200000, .pmax = 0.01};
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 0), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 5000), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 5001), 0.01 * 1 / 195000.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 102500), 0.005, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 200000), 0.01, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(&e, 200001), 1.0, 0);
}

static void test_headroom(void)
{
    /*
     * Worked by hand, MTU 1024 (frame 1086 B): fixed part = 2 x 1106 B (MTU frames
     * on the wire) + 84 B (PAUSE on the wire) + 394 x 64 B (response) = 27512 B;
     * in flight = 2 x delay x rate / 8; total rounded up to whole 1086 B frames.
     */
    /* 100 Gbps, 200 m (1 us): 27512 + 25000 = 52512 -> 49 frames */
    CU_ASSERT_EQUAL(pfc_headroom(100000000000LL, PS_PER_US, 1086, 1086, 394), 49 * 1086);
    /* 40 Gbps, 100 m (500 ns): 27512 + 5000 = 32512 -> 30 frames */
    CU_ASSERT_EQUAL(pfc_headroom(40000000000LL, 100000 * PS_PER_MM, 1086, 1086, 394), 30 * 1086);
    /* 100 Gbps, 1 km (5 us): 27512 + 125000 = 152512 -> 141 frames */
    CU_ASSERT_EQUAL(pfc_headroom(100000000000LL, 1000000 * PS_PER_MM, 1086, 1086, 394), 141 * 1086);
    /* 3 m at 100 Gbps: 15 ns -> 27512 + 375 = 27887 -> 26 frames */
    CU_ASSERT_EQUAL(pfc_headroom(100000000000LL, 3000 * PS_PER_MM, 1086, 1086, 394), 26 * 1086);
}

void test_dcqcn_register(void)
{
    CU_pSuite s = CU_add_suite("dcqcn, red, headroom", NULL, NULL);
    CU_add_test(s, "CNP cuts Rc by alpha/2 and updates alpha", test_cut_and_alpha);
    CU_add_test(s, "alpha decays by (1-g) per quiet period", test_alpha_decay);
    CU_add_test(s, "fast recovery, additive and hyper increase", test_recovery_phases);
    CU_add_test(s, "byte counter events", test_byte_counter);
    CU_add_test(s, "rates stay within min rate and line rate", test_bounds);
    CU_add_test(s, "rate_reduce_monitor_period: two CNPs inside one period cut once", test_monitor_period);
    CU_add_test(s, "clamp_target_rate_after_timer: only a timer increase resets the target", test_clamp_after_timer);
    CU_add_test(s, "byte_counter off: the timer alone drives the increase", test_byte_counter_off);
    CU_add_test(s, "paper and connectx presets of the ConnectX additions", test_presets);
    CU_add_test(s, "timing periodic: the ns-3 RDMA simulator's alpha ticks, cut checks and constant hyper step",
                test_periodic);
    CU_add_test(s, "RED marking probability", test_red);
    CU_add_test(s, "auto headroom arithmetic", test_headroom);
}
