/*
 * TIMELY (models/cc_timely.c) and the RTT samples it lives on (CC_F_RTT, cc_ack.rtt): the sample on an empty
 * network is the base round trip exactly, a resent frame is never timed (Karn's rule), Algorithm 1 on a known
 * sequence of samples, and the validation rows' properties on a 100 Gbps star.
 */
#include "tests/tests.h"
#include "tests/validation/validation.h"
#include "models/cc.h"
#include "sim/settings.h"
#include "tools/run.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Every RTT sample TIMELY is handed, recorded by a probe standing in for it under its own name. */
static sim_time_t seen[4096];
static int n_seen;
static const struct cc_ops *timely_real;

static void probe_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    if (a->rtt && n_seen < (int)(sizeof seen / sizeof *seen))
        seen[n_seen++] = a->rtt;
    timely_real->on_ack(f, a, now);
}

static struct cc_ops probe;

static int probe_install(void)
{
    int id = cc_find("timely");
    CU_ASSERT_FATAL(id >= 0);
    timely_real = cc_registry[id];
    probe = *timely_real;
    probe.on_ack = probe_on_ack;
    cc_registry[id] = &probe;
    n_seen = 0;
    return id;
}

/* h0 -> s0 -> h1 at 100 Gbps, 1 us per link: data 1086 + 20 bytes and ACK 66 + 20 bytes, each serialized twice. */
#define BASE_RTT_PS (4 * 1000000LL + 2 * 88480LL + 2 * 6880LL)

static void rtt_case(const char *faults, bool *lost)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
             " \"host\": {\"cc\": \"timely\", \"rto\": \"100us\"}, \"stop\": \"5ms\", \"traffic\": [{\"type\": \"flow\","
             " \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"2MB\", \"start\": \"10us\"}]%s}", faults);
    int id = probe_install();
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_TRUE(f->sender_done);
    *lost = r.net.c.data_retx > 0;
    CU_ASSERT(n_seen > 20);
    int off = 0;
    for (int i = 0; i < n_seen; i++)
        off += seen[i] != BASE_RTT_PS;
    CU_ASSERT_EQUAL(off, 0); /* every sample, none from a resent frame, is the empty network's round trip */
    if (off)
        for (int i = 0; i < n_seen; i++)
            if (seen[i] != BASE_RTT_PS)
                fprintf(stderr, "\n  sample %d: %lld ps, base %lld ps", i, (long long)seen[i], BASE_RTT_PS);
    test_teardown(&scn, &r);
    cc_registry[id] = timely_real;
}

static void test_rtt_base(void)
{
    bool lost;
    rtt_case("", &lost);
    CU_ASSERT_FALSE(lost);
}

/* The receiver's link is down when the flow starts: its first frames, the timed one among them, are lost and
 * resent; the ACK that covers the timed PSN then comes from a resent frame and must not make a sample (before
 * the fix it did: 17.37 us for a 4.19 us round trip). */
static void test_rtt_karn(void)
{
    bool lost;
    rtt_case(", \"faults\": [{\"type\": \"link_down\", \"between\": [\"s0\", \"h1\"], \"at\": \"5us\", \"until\": "
             "\"20us\"}]",
             &lost);
    CU_ASSERT_TRUE(lost);
}

/* Algorithm 1 on a known sequence of samples, through the hook, with the paper's defaults. */
static void test_algorithm(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\","
                               " \"delay\": \"1us\"}}, \"host\": {\"cc\": \"timely\"}, \"traffic\": [{\"type\": "
                               "\"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}",
                               NULL, NULL, &scn, &r));
    struct flow *f = net_flow(&r.net, 0);
    const struct cc_ops *o = cc_registry[f->cc];
    CU_ASSERT_STRING_EQUAL(o->name, "timely");
    CU_ASSERT(o->flags & CC_F_RTT);
    o->init(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), 100e9, 1);
    struct cc_ack a = {.newly_acked = 1};
#define US(x) ((sim_time_t)((x) * 1e6))
    /* 1: the first sample only sets prev_rtt. */
    a.rtt = US(100);
    o->on_ack(f, &a, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), 100e9, 1);
    /* 2: +10 us: rtt_diff = 0.875 * 10 us, gradient 8.75 / 20 = 0.4375; cut by 1 - 0.8 * 0.4375 = 0.65. */
    a.rtt = US(110);
    o->on_ack(f, &a, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), 65e9, 1);
    struct cc_sample s;
    cc_sample(f, 0, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.alpha, 0.4375, 1e-12); /* rates.csv alpha: the normalized gradient */
    CU_ASSERT_DOUBLE_EQUAL(s.target_bps, s.rate_bps, 0);
    /* 3: above T_high: 600 us cuts by 1 - 0.8 * (1 - 500 / 600). */
    a.rtt = US(600);
    o->on_ack(f, &a, 0);
    double rate = 65e9 * (1 - 0.8 * (1 - 500.0 / 600));
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), rate, 1);
    /* 4: below T_low: +delta (10 Mbps), whatever the (very negative) gradient. */
    a.rtt = US(40);
    o->on_ack(f, &a, 0);
    rate += 10e6;
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), rate, 1);
    /* 5..: flat RTTs within [T_low, T_high] keep the gradient <= 0 (the EWMA decays towards 0 from below): +delta
     * while fewer than N = 5 such events in a row, then N * delta (hyperactive increase).  Event 4 was the
     * first of the run. */
    int steps[] = {1, 1, 1, 5, 5};
    for (int i = 0; i < 5; i++) {
        a.rtt = US(i == 0 ? 100 : 100);
        o->on_ack(f, &a, 0);
        rate += steps[i] * 10e6;
        CU_ASSERT_DOUBLE_EQUAL(o->rate(f), rate, 1);
    }
    /* The rate never exceeds line rate nor drops below min_rate. */
    for (int i = 0; i < 20000; i++)
        o->on_ack(f, &a, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), 100e9, 1);
    a.rtt = US(400);
    o->on_ack(f, &a, 0); /* gradient (0.875 * 300) / 20 = 13: the cut goes to 0, held at min_rate */
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), 10e6, 1);
    struct cc_stat st[2];
    CU_ASSERT_EQUAL(cc_stats(f, st, 2), 2);
    CU_ASSERT_STRING_EQUAL(st[0].name, "rtt_samples");
    CU_ASSERT_EQUAL(st[0].value, 9 + 20000 + 1);
    CU_ASSERT_EQUAL(st[1].value, 3);
#undef US
    test_teardown(&scn, &r);
}

/* host.timely's preset: hpcc-ns3 changes delta and min_rate only; fields override it. */
static void test_settings(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\","
                               " \"delay\": \"1us\"}}, \"host\": {\"cc\": \"timely\", \"timely\": {\"preset\": "
                               "\"hpcc-ns3\", \"beta\": 0.5}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
                               "\"dst\": \"h1\", \"size\": \"1MB\"}]}",
                               NULL, NULL, &scn, &r));
    char *dump = scn_to_json(&scn);
    CU_ASSERT_PTR_NOT_NULL(strstr(dump, "\"delta\": \"100Mbps\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(dump, "\"min_rate\": \"1Gbps\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(dump, "\"beta\": 0.5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(dump, "\"t_high\": \"500us\""));
    free(dump);
    test_teardown(&scn, &r);
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(scn_load_text("t.json", "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
                                  "\"100Gbps\", \"delay\": \"1us\"}}, \"host\": {\"cc\": \"timely\", \"timely\": "
                                  "{\"hai_steps\": 0}}}", NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.timely.hai_steps"));
}

/* TIMELY's rows of docs/VALIDATION.md: the asserted ones pass; the reported one (the paper's thresholds at
 * 100 Gbps) shows the RTT leaving [T_low, T_high], which is why the rows scale the thresholds. */
static void test_validation_rows(void)
{
    static struct vresult res[64];
    int g = 0, n = 0;
    while (g < validation_n_groups && strcmp(validation_groups[g].name, "TIMELY") != 0)
        g++;
    CU_ASSERT_FATAL(g < validation_n_groups);
    CU_ASSERT_FATAL(validation_groups[g].run(res, &n, 64));
    CU_ASSERT_EQUAL_FATAL(n, 10);
    for (int i = 0; i < n; i++) {
        printf("\n    %s: expected %s, measured %s (%s)", res[i].check, res[i].expected, res[i].measured, res[i].note);
        CU_ASSERT(res[i].informative ? !res[i].pass : res[i].pass);
    }
    CU_ASSERT_TRUE(res[n - 1].informative);
}

void test_cc_timely_register(void)
{
    CU_pSuite s = CU_add_suite("cc timely", NULL, NULL);
    CU_add_test(s, "the RTT sample on an empty network is the base round trip", test_rtt_base);
    CU_add_test(s, "no RTT sample from a resent frame (Karn)", test_rtt_karn);
    CU_add_test(s, "Algorithm 1 on a known sequence of samples", test_algorithm);
    CU_add_test(s, "host.timely presets and bounds", test_settings);
    CU_add_test(s, "the validation rows: goodput, fair share, the RTT between T_low and T_high", test_validation_rows);
}
