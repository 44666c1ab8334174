/*
 * Run observers (tools/run/observer.h): several watch one run at once, each hears every network event the summary
 * counts, and watching changes no byte of any output.
 */
#include "models/pfcwd.h"
#include "sim/scenario.h"
#include "tests/tests.h"
#include "tools/run/monitor.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORM_FILE "scenarios/pfc-storm.json"
/* The watchdog on, so that all three kinds of network event happen (scenarios/pfc-storm.json's description). */
#define STORM_WD "{\"enabled\": true, \"detection_time\": \"200us\", \"restoration_time\": \"200us\", " \
                 "\"poll_interval\": \"10us\"}"

/* What one counting observer saw. */
struct counter {
    sim_time_t step;      /* 0: it asks for no slices; else one every step of simulated time */
    sim_time_t next;      /* the end of the slice it asked for */
    uint64_t starts, ends, slices, mine, mine_off; /* mine_off: slices called its own that did not end where asked */
    uint64_t pauses, resumes, storms, restores, flows_done;
    uint64_t flow_bytes;  /* sum of the sizes of the flows done */
    uint64_t trace;       /* a hash of the sequence of events, in the order heard */
};

static void mix(struct counter *c, uint64_t v) { c->trace = (c->trace ^ v) * 0x100000001b3ULL; }

static void c_start(void *ctx, const struct run *r)
{
    struct counter *c = ctx;
    c->starts++;
    c->next = r->sim.now + c->step;
}

static sim_time_t c_until(void *ctx, const struct run *r) { return ((struct counter *)ctx)->next; }

static void c_slice(void *ctx, const struct run *r, uint64_t events, bool mine)
{
    struct counter *c = ctx;
    c->slices++;
    if (mine) {
        c->mine++;
        c->mine_off += r->sim.now != c->next;
    }
    while (c->next <= r->sim.now)
        c->next += c->step;
}

static void c_pfc(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    struct counter *c = ctx;
    if (pause)
        c->pauses++;
    else
        c->resumes++;
    mix(c, (uint64_t)t ^ (uint64_t)node << 40 ^ (uint64_t)port << 20 ^ (uint64_t)prio << 4 ^ pause);
}

static void c_flow(void *ctx, const struct flow *f)
{
    struct counter *c = ctx;
    c->flows_done++;
    c->flow_bytes += (uint64_t)f->size;
    mix(c, (uint64_t)f->finish ^ f->idx);
}

static void c_wd(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm)
{
    struct counter *c = ctx;
    if (storm)
        c->storms++;
    else
        c->restores++;
    mix(c, (uint64_t)t ^ (uint64_t)node << 40 ^ (uint64_t)port << 20 ^ (uint64_t)prio << 4 ^ storm ^ 2);
}

static void c_end(void *ctx, const struct run *r) { ((struct counter *)ctx)->ends++; }

static const struct run_observer_ops counter_ops = {
    .name = "counter",
    .on_start = c_start,
    .until = c_until,
    .on_slice = c_slice,
    .on_pfc = c_pfc,
    .on_flow_done = c_flow,
    .on_watchdog = c_wd,
    .on_end = c_end,
};
/* The same without time: it hears events only. */
static const struct run_observer_ops events_ops = {
    .name = "events", .on_start = c_start, .on_pfc = c_pfc, .on_flow_done = c_flow, .on_watchdog = c_wd,
    .on_end = c_end};

/* The storm scenario, monitored into dir, with the counters a and b attached around the monitor when given.
 * Returns flows.csv + summary.json (no wall clock) + the end time; *sum gets the summary's counts. */
static char *storm_run(const char *dir, struct counter *a, struct counter *b, struct net_counters *sum,
                       uint32_t *completed, uint32_t *storms, uint32_t *restored)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    struct scn_override ov[] = {{"switch.watchdog", STORM_WD}, {"monitor.pfc", "\"all\""}};
    if (!test_setup_from(STORM_FILE, NULL, ov, 2, &scn, &r))
        return NULL;
    if (a)
        run_observe(&r, &counter_ops, a);
    struct monitor m;
    if (monitor_open(&m, &r, dir, err, sizeof err)) {
        fprintf(stderr, "\n  %s\n", err);
        test_teardown(&scn, &r);
        return NULL;
    }
    if (b)
        run_observe(&r, &events_ops, b);
    CU_ASSERT_EQUAL(r.n_obs, 1 + (a != NULL) + (b != NULL));
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    CU_ASSERT_EQUAL(monitor_close(&m, true, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r.n_obs, (a != NULL) + (b != NULL)); /* the monitor left, the others stay in order */
    if (a)
        CU_ASSERT_PTR_EQUAL(r.obs[0].ctx, a);
    *sum = r.net.c;
    *completed = r.net.flows_completed;
    *storms = r.net.wd ? r.net.wd->storms : 0;
    *restored = r.net.wd ? r.net.wd->restored : 0;
    char *out = test_run_text(&r);
    test_teardown(&scn, &r);
    return out;
}

static bool same_file(const char *d1, const char *d2, const char *name)
{
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "%s/%s", d1, name);
    snprintf(p2, sizeof p2, "%s/%s", d2, name);
    size_t l1 = 0, l2 = 0;
    char *a = test_read_file(p1, &l1), *b = test_read_file(p2, &l2);
    bool same = a && b && l1 == l2 && memcmp(a, b, l1) == 0;
    if (!same)
        fprintf(stderr, "\n  %s differs with the extra observers\n", name);
    free(a);
    free(b);
    return same;
}

static void test_two_more_observers(void)
{
    char tmp[] = "/tmp/rocesim-observers-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
    char d1[128], d2[128];
    snprintf(d1, sizeof d1, "%s/alone", tmp);
    snprintf(d2, sizeof d2, "%s/watched", tmp);
    struct net_counters s1, s2;
    uint32_t done1, done2, st1, st2, rs1, rs2;
    /* a asks for a slice every 7 us (the monitor samples every 10 us: both cut the run), b only listens */
    struct counter a = {.step = 7 * PS_PER_US}, b = {.step = 0};
    char *alone = storm_run(d1, NULL, NULL, &s1, &done1, &st1, &rs1);
    char *watched = storm_run(d2, &a, &b, &s2, &done2, &st2, &rs2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(alone);
    CU_ASSERT_PTR_NOT_NULL_FATAL(watched);
    /* Watching changes nothing: the results, the event count, the end time, and every time series. */
    CU_ASSERT_STRING_EQUAL(alone, watched);
    CU_ASSERT_TRUE(same_file(d1, d2, "queues.csv"));
    CU_ASSERT_TRUE(same_file(d1, d2, "rates.csv"));
    CU_ASSERT_TRUE(same_file(d1, d2, "pfc.csv"));
    CU_ASSERT_TRUE(same_file(d1, d2, "watchdog.csv"));
    /* Each heard every event the summary counts, in the same order as the other. */
    CU_ASSERT(s2.pause_frames > 100);
    CU_ASSERT(st2 >= 1);
    CU_ASSERT(done2 >= 5);
    struct counter *c[] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(c[i]->pauses, s2.pause_frames);
        CU_ASSERT_EQUAL(c[i]->resumes, s2.resume_frames);
        CU_ASSERT_EQUAL(c[i]->flows_done, done2);
        CU_ASSERT_EQUAL(c[i]->storms, st2);
        CU_ASSERT_EQUAL(c[i]->restores, rs2);
        CU_ASSERT_EQUAL(c[i]->starts, 1);
        CU_ASSERT_EQUAL(c[i]->ends, 1);
    }
    CU_ASSERT_EQUAL(a.trace, b.trace);
    CU_ASSERT_EQUAL(a.flow_bytes, b.flow_bytes);
    CU_ASSERT_EQUAL(s1.pause_frames, s2.pause_frames);
    CU_ASSERT_EQUAL(st1, st2);
    CU_ASSERT_EQUAL(rs1, rs2);
    /* Time: a had its slices, each of its own ending exactly where it asked; b asked for none and had none. */
    CU_ASSERT(a.mine > 10);
    CU_ASSERT_EQUAL(a.mine_off, 0);
    CU_ASSERT(a.slices > a.mine);
    CU_ASSERT_EQUAL(b.slices, 0);
    free(alone);
    free(watched);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Detaching takes an observer out of the run's list and out of every network listener table, the rest in order. */
static void test_unobserve(void)
{
    struct scenario scn;
    struct run r;
    struct scn_override ov[] = {{"switch.watchdog", STORM_WD}};
    CU_ASSERT_TRUE_FATAL(test_setup_from(STORM_FILE, NULL, ov, 1, &scn, &r));
    struct counter a = {.step = 0}, b = {.step = 0}, gone = {.step = 0};
    run_observe(&r, &events_ops, &a);
    run_observe(&r, &events_ops, &gone);
    run_observe(&r, &events_ops, &b);
    CU_ASSERT_EQUAL(r.net.listen.n_pfc, 3);
    run_unobserve(&r, &gone);
    run_unobserve(&r, &gone); /* twice: nothing */
    CU_ASSERT_EQUAL(r.n_obs, 2);
    CU_ASSERT_EQUAL(r.net.listen.n_pfc, 2);
    CU_ASSERT_EQUAL(r.net.listen.n_flow, 2);
    CU_ASSERT_EQUAL(r.net.listen.n_wd, 2);
    CU_ASSERT_PTR_EQUAL(r.net.listen.pfc[0].ctx, &a);
    CU_ASSERT_PTR_EQUAL(r.net.listen.pfc[1].ctx, &b);
    test_run_checked(&r);
    CU_ASSERT_EQUAL(gone.pauses + gone.flows_done + gone.storms + gone.starts, 0);
    CU_ASSERT_EQUAL(a.pauses, r.net.c.pause_frames);
    CU_ASSERT_EQUAL(b.pauses, r.net.c.pause_frames);
    CU_ASSERT_EQUAL(a.flows_done, r.net.flows_completed);
    CU_ASSERT_EQUAL(a.storms, r.net.wd->storms);
    CU_ASSERT_EQUAL(a.trace, b.trace);
    test_teardown(&scn, &r);
}

void test_observers_register(void)
{
    CU_pSuite s = CU_add_suite("observers", NULL, NULL);
    CU_add_test(s, "two more observers hear every event and change no output", test_two_more_observers);
    CU_add_test(s, "an observer detached hears nothing, the others keep their order", test_unobserve);
}
