/* Event core: ordering with ties and entities, timer cancellation, run limits, pool, rng. */
#include "tests/tests.h"
#include "sim/parallel.h"
#include "sim/pool.h"
#include "sim/rng.h"
#include "sim/sim.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct log {
    int n;
    int64_t t[4096];
    uint64_t arg[4096];
};

static void record(struct sim *s, void *obj, uint64_t arg)
{
    struct log *l = obj;
    if (l->n < 4096) {
        l->t[l->n] = s->now;
        l->arg[l->n] = arg;
        l->n++;
    }
}

static void test_order_and_ties(void)
{
    struct sim s;
    static struct log l;
    memset(&l, 0, sizeof l);
    CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
    /* 3000 events on 7 distinct times, scheduled in a scrambled order. */
    struct rng r;
    rng_init(&r, 1, rng_stream_id(RNG_KIND_TEST, 0));
    for (uint64_t i = 0; i < 3000; i++)
        sim_at(&s, (int64_t)rng_below(&r, 7) * 100, record, &l, i);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(l.n, 3000);
    for (int i = 1; i < l.n; i++) {
        CU_ASSERT_FATAL(l.t[i] >= l.t[i - 1]);
        /* equal times fire in insertion order */
        if (l.t[i] == l.t[i - 1])
            CU_ASSERT_FATAL(l.arg[i] > l.arg[i - 1]);
    }
    sim_free(&s);
}

static void chain(struct sim *s, void *obj, uint64_t arg)
{
    record(s, obj, arg);
    if (arg < 5) {
        sim_after(s, 0, chain, obj, arg + 10); /* same time, scheduled later: runs after */
        sim_after(s, 10, chain, obj, arg + 1);
    }
}

static void test_same_time_from_handler(void)
{
    struct sim s;
    static struct log l;
    memset(&l, 0, sizeof l);
    sim_init(&s);
    sim_at(&s, 0, chain, &l, 0);
    sim_at(&s, 0, record, &l, 100);
    sim_run(&s, SIM_TIME_MAX);
    /* t=0: 0, then 100 (scheduled before chain's own same-time event), then 10 */
    CU_ASSERT_EQUAL(l.arg[0], 0);
    CU_ASSERT_EQUAL(l.arg[1], 100);
    CU_ASSERT_EQUAL(l.arg[2], 10);
    CU_ASSERT_EQUAL(l.arg[3], 1);
    CU_ASSERT_EQUAL(l.t[3], 10);
    sim_free(&s);
}

/*
 * Keys that do not depend on how entities interleave: each entity schedules three events for itself at t=100
 * from a starter event.  The starters run in opposite orders, at different times, in the two engines, so a
 * sequence shared by the run would number the events differently; (time, entity, entity sequence) does not.
 */
static void starter(struct sim *s, void *obj, uint64_t arg)
{
    for (uint64_t i = 0; i < 3; i++)
        sim_at(s, 100, record, obj, s->cur_ent * 10 + i);
}

static void test_entity_keys(void)
{
    static struct log l[2];
    memset(l, 0, sizeof l);
    for (int e = 0; e < 2; e++) {
        struct sim s;
        CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
        CU_ASSERT_EQUAL_FATAL(sim_set_entities(&s, 3), 0);
        if (e == 0) {
            sim_at_to(&s, 0, 1, starter, &l[e], 0);
            sim_at_to(&s, 50, 2, starter, &l[e], 0);
        } else {
            sim_at_to(&s, 0, 2, starter, &l[e], 0);
            sim_at_to(&s, 50, 1, starter, &l[e], 0);
        }
        sim_run(&s, SIM_TIME_MAX);
        sim_free(&s);
    }
    /* one entity's three, then the other's: which first is the tie order of t=100 */
    uint64_t first = (1 ^ sim_tie_mask(100)) < (2 ^ sim_tie_mask(100)) ? 1 : 2, second = 3 - first;
    const uint64_t want[6] = {first * 10, first * 10 + 1, first * 10 + 2, second * 10, second * 10 + 1,
                              second * 10 + 2};
    for (int e = 0; e < 2; e++) {
        CU_ASSERT_EQUAL_FATAL(l[e].n, 6);
        for (int i = 0; i < 6; i++)
            CU_ASSERT_EQUAL(l[e].arg[i], want[i]);
    }
    struct sim s;
    sim_init(&s);
    CU_ASSERT_EQUAL(sim_set_entities(&s, SIM_ENT_LIMIT + 1), -1);
    CU_ASSERT_EQUAL(sim_set_entities(&s, 0), -1);
    CU_ASSERT_EQUAL(s.n_ent, 1);
    sim_free(&s);
}

/*
 * An event of entity 3 scheduled for entity 2 (a frame arriving from a neighbour) schedules one for the same
 * instant, at a time where entity 2 orders below entity 3: entity 2's key is below the running event's, so it
 * runs next, before entity 3's own event of that instant, and the engine's point in the order stays where it
 * was.
 */
static struct log below_log;
static sim_time_t below_t;

static void below_child(struct sim *s, void *obj, uint64_t arg)
{
    record(s, obj, arg);
    CU_ASSERT_EQUAL(s->cur_ent, 2);
    CU_ASSERT_EQUAL((s->cur_seq ^ sim_tie_mask(s->now) << SIM_ESEQ_BITS) >> SIM_ESEQ_BITS, 3); /* entity 3's point */
}

static void below_parent(struct sim *s, void *obj, uint64_t arg)
{
    record(s, obj, arg);
    uint64_t seq = sim_reserve_seq(s); /* entity 2's, below the point */
    CU_ASSERT_FALSE(sim_before(s, s->now, seq));
    CU_ASSERT_FALSE(sim_take_due(s, s->now, seq));
    sim_at(s, s->now, below_child, obj, 2);
}

static void below_sched(struct sim *s, void *obj, uint64_t arg)
{
    sim_at_to(s, below_t, 2, below_parent, obj, 1);
    sim_at(s, below_t, record, obj, 3);
}

static void test_key_below_point(void)
{
    memset(&below_log, 0, sizeof below_log);
    for (below_t = 100; (2 ^ sim_tie_mask(below_t)) > (3 ^ sim_tie_mask(below_t)); below_t++)
        ;
    struct sim s;
    sim_init(&s);
    CU_ASSERT_EQUAL_FATAL(sim_set_entities(&s, 4), 0);
    sim_at_to(&s, 0, 3, below_sched, &below_log, 0);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL_FATAL(below_log.n, 3);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(below_log.arg[i], (uint64_t)i + 1);
    sim_free(&s);
}

/*
 * No entity wins every tie: at each of 10,000 instants two entities schedule one event each, and the lower
 * entity comes first at about half of them (binomial: 5,000, sd 50; the hash is fixed, so the count is exact
 * and the bound only says it is fair).
 */
static void tie_starter(struct sim *s, void *obj, uint64_t arg)
{
    for (sim_time_t t = 1000; t < 11000; t++)
        sim_at(s, t, record, obj, s->cur_ent);
}

static void test_ties_rotate(void)
{
    static struct log l;
    memset(&l, 0, sizeof l);
    struct sim s;
    sim_init(&s);
    CU_ASSERT_EQUAL_FATAL(sim_set_entities(&s, 3), 0);
    sim_at_to(&s, 0, 1, tie_starter, &l, 0);
    sim_at_to(&s, 0, 2, tie_starter, &l, 0);
    int first1 = 0, pairs = 0;
    while (sim_pending(&s)) {
        l.n = 0;
        sim_run(&s, s.now + 1); /* one instant (the starters run at 0) */
        if (l.n == 2) {
            pairs++;
            first1 += l.arg[0] == 1;
        }
    }
    CU_ASSERT_EQUAL(pairs, 10000);
    CU_ASSERT(first1 > 4750 && first1 < 5250);
    sim_free(&s);
}

#ifdef SIM_CHECK_ENTITY
/* The sanitizer build checks each handler's entity: an event of entity 1 whose handler works on entity 2's
 * state ends the process (in a child here). */
static void wrong_entity(struct sim *s, void *obj, uint64_t arg) { SIM_ASSERT_ENT(s, 2); }

static void run_wrong_entity(void)
{
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, 3);
    sim_at_to(&s, 5, 1, wrong_entity, NULL, 0);
    sim_run(&s, SIM_TIME_MAX);
}

static void test_entity_check(void) { CU_ASSERT(test_child_aborts(run_wrong_entity)); }
#endif

/* Events after SIM_TIME_LIMIT never fire: they are not queued, and the clock stops at the last event. */
static void test_time_limit(void)
{
    static struct log l;
    memset(&l, 0, sizeof l);
    struct sim s;
    sim_init(&s);
    sim_at(&s, SIM_TIME_LIMIT, record, &l, 1);
    sim_at(&s, SIM_TIME_LIMIT + 1, record, &l, 2);
    struct sim_timer tm = {0};
    sim_timer_arm(&s, &tm, SIM_TIME_MAX, record, &l);
    CU_ASSERT_EQUAL(sim_pending(&s), 1);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_EQUAL(l.t[0], SIM_TIME_LIMIT);
    CU_ASSERT_EQUAL(s.now, SIM_TIME_LIMIT);
    sim_free(&s);
}

/* What a handler learns from sim_take_due, and what the engine's state is after each answer. */
struct due_probe {
    int mode;       /* 0: nothing else pending; 1: an event later in this instant; 2: one scheduled from here */
    bool taken, before_after;
    uint64_t events_before, events_after;
};

static struct log due_log;

static void due_handler(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct due_probe *p = obj;
    if (p->mode == 2)
        sim_after(s, 0, record, &due_log, 0);
    uint64_t seq = sim_reserve_seq(s); /* later than everything queued so far */
    p->events_before = s->events;
    CU_ASSERT_FALSE(sim_take_due(s, s->now + 1, seq)); /* another instant: never */
    p->taken = sim_take_due(s, s->now, seq);
    p->events_after = s->events;
    p->before_after = sim_before(s, s->now, seq);
    CU_ASSERT_FALSE(sim_take_due(s, s->now, seq)); /* not twice: it is the current point now, or still refused */
}

static void test_take_due(void)
{
    for (int mode = 0; mode < 3; mode++) {
        struct sim s;
        static struct log l;
        memset(&l, 0, sizeof l);
        struct due_probe p = {.mode = mode};
        sim_init(&s);
        sim_at(&s, 100, due_handler, &p, 0);
        if (mode == 1)
            sim_at(&s, 100, record, &l, 7);
        sim_at(&s, 200, record, &l, 8);
        sim_run(&s, SIM_TIME_MAX);
        if (mode == 0) {
            /* the reserved event would have run next: it counts as run, and the engine stands at it */
            CU_ASSERT_TRUE(p.taken);
            CU_ASSERT_EQUAL(p.events_after, p.events_before + 1);
            CU_ASSERT_FALSE(p.before_after);
        } else {
            /* an event of the same instant comes before it: refused, nothing changed */
            CU_ASSERT_FALSE(p.taken);
            CU_ASSERT_EQUAL(p.events_after, p.events_before);
            CU_ASSERT_TRUE(p.before_after);
        }
        sim_free(&s);
    }
    /* a stop request wins: the event stays for a later run */
    struct sim s;
    sim_init(&s);
    sim_stop(&s);
    uint64_t seq = sim_reserve_seq(&s);
    CU_ASSERT_FALSE(sim_take_due(&s, s.now, seq));
    sim_free(&s);
}

static void test_timer_cancel(void)
{
    struct sim s;
    static struct log l;
    memset(&l, 0, sizeof l);
    sim_init(&s);
    struct sim_timer a = {0}, b = {0}, c = {0};
    sim_timer_arm(&s, &a, 100, record, &l);
    sim_timer_arm(&s, &a, 300, record, &l); /* re-arm later: only 300 fires */
    sim_timer_arm(&s, &b, 200, record, &l);
    sim_timer_cancel(&b);                   /* never fires */
    sim_timer_arm(&s, &c, 250, record, &l);
    CU_ASSERT_TRUE(c.armed);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(l.n, 2);
    CU_ASSERT_EQUAL(l.t[0], 250);
    CU_ASSERT_EQUAL(l.t[1], 300);
    CU_ASSERT_FALSE(a.armed);
    CU_ASSERT_FALSE(b.armed);
    CU_ASSERT_EQUAL(s.stale, 1); /* b's cancelled event */
    CU_ASSERT_EQUAL(s.moved, 1); /* a's event, moved from 100 to 300 */
    CU_ASSERT_EQUAL(s.events, 2);
    sim_free(&s);
}

static void test_timer_lazy_rearm(void)
{
    struct sim s;
    static struct log l;
    memset(&l, 0, sizeof l);
    sim_init(&s);
    struct sim_timer a = {0};
    /* pushed back 1000 times, as an RTO by ACKs: still one queued event, firing once at the end */
    sim_timer_arm(&s, &a, 1000, record, &l);
    for (int i = 1; i <= 1000; i++)
        sim_timer_arm(&s, &a, 1000 + i, record, &l);
    CU_ASSERT_EQUAL(sim_pending(&s), 1);
    /* an earlier expiry after a later one queues a new event and retires the old one */
    struct sim_timer b = {0};
    sim_timer_arm(&s, &b, 5000, record, &l);
    sim_timer_arm(&s, &b, 3000, record, &l);
    /* cancel after a lazy re-arm: nothing fires */
    struct sim_timer c = {0};
    sim_timer_arm(&s, &c, 100, record, &l);
    sim_timer_arm(&s, &c, 200, record, &l);
    sim_timer_cancel(&c);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    CU_ASSERT_EQUAL(l.t[0], 2000);
    CU_ASSERT_EQUAL(l.t[1], 3000);
    CU_ASSERT_EQUAL(s.moved, 1);
    CU_ASSERT_FALSE(a.armed);
    sim_free(&s);
}

static void stopper(struct sim *s, void *obj, uint64_t arg) { sim_stop(s); }

static void test_run_limits(void)
{
    struct sim s;
    static struct log l;
    memset(&l, 0, sizeof l);
    sim_init(&s);
    for (int i = 1; i <= 10; i++)
        sim_at(&s, i * 1000, record, &l, (uint64_t)i);
    CU_ASSERT_EQUAL(sim_run(&s, 4500), 4);
    CU_ASSERT_EQUAL(s.now, 4500);
    CU_ASSERT_EQUAL(sim_pending(&s), 6);
    sim_at(&s, 6000, stopper, NULL, 0); /* after the event at 6000 already queued */
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(l.n, 6);
    CU_ASSERT_EQUAL(s.now, 6000);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(l.n, 10);
    sim_free(&s);
}

static void test_heap_against_sort(void)
{
    /* Hold model against a reference: the pop order must equal sorted (t, seq). */
    struct sim s;
    sim_init(&s);
    static struct log l;
    memset(&l, 0, sizeof l);
    struct rng r;
    rng_init(&r, 7, rng_stream_id(RNG_KIND_TEST, 1));
    for (uint64_t i = 0; i < 4000; i++)
        sim_at(&s, (int64_t)rng_below(&r, 1000000), record, &l, i);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(l.n, 4000);
    int bad = 0;
    for (int i = 1; i < l.n; i++)
        if (l.t[i] < l.t[i - 1] || (l.t[i] == l.t[i - 1] && l.arg[i] < l.arg[i - 1]))
            bad++;
    CU_ASSERT_EQUAL(bad, 0);
    sim_free(&s);
}

/* Mixed time scales: same-time, picosecond, microsecond, millisecond and second delays. */
struct mix {
    struct rng r;
    sim_time_t last_t;
    uint64_t last_seq;
    uint64_t popped, scheduled, out_of_order, budget;
    uint32_t max_far;
    unsigned min_shift, max_shift;
    struct sim_timer tm;
    uint64_t timer_fired;
};

static sim_time_t mix_delay(struct rng *r)
{
    uint64_t u = rng_below(r, 100);
    if (u < 10)
        return 0;
    if (u < 40)
        return (sim_time_t)rng_below(r, 1000);
    if (u < 80)
        return (sim_time_t)rng_below(r, 2000000);
    if (u < 95)
        return (sim_time_t)rng_below(r, 1000000000);
    return (sim_time_t)rng_below(r, 1000) * 1000000000; /* up to 1 s, in ms steps */
}

static void mix_check(struct sim *s, struct mix *m)
{
    if (m->popped && (s->now < m->last_t || (s->now == m->last_t && s->cur_seq <= m->last_seq)))
        m->out_of_order++;
    m->last_t = s->now;
    m->last_seq = s->cur_seq;
    m->popped++;
    if (s->far.n > m->max_far)
        m->max_far = s->far.n;
    if (s->shift < m->min_shift)
        m->min_shift = s->shift;
    if (s->shift > m->max_shift)
        m->max_shift = s->shift;
}

static void mix_timer(struct sim *s, void *obj, uint64_t arg)
{
    struct mix *m = obj;
    mix_check(s, m);
    m->timer_fired++;
}

static void mix_event(struct sim *s, void *obj, uint64_t arg)
{
    struct mix *m = obj;
    mix_check(s, m);
    if (m->budget) {
        m->budget--;
        /* a dense phase (the queue must narrow its buckets), then the mixture (it must widen them) */
        sim_time_t d = m->popped < 200000 ? (sim_time_t)rng_below(&m->r, 2000) : mix_delay(&m->r);
        sim_after(s, d, mix_event, m, 0);
        m->scheduled++;
        if (rng_below(&m->r, 100) == 0) {
            /* a timer pushed back (lazily re-queued) or pulled in, across tiers */
            sim_timer_arm(s, &m->tm, s->now + mix_delay(&m->r), mix_timer, m);
        }
    }
}

/* Bursts at one instant: BURST events every 1 us, each rescheduling itself 1 us later. */
#define BURST 256
struct burst {
    uint64_t rounds_left, pops, far_seen, late_pops;
};

static void burst_event(struct sim *s, void *obj, uint64_t arg)
{
    struct burst *b = obj;
    b->pops++;
    if (b->pops > (uint64_t)BURST * 2000) {
        /* after the calendar had two thousand rounds to adapt: how much of the next round waits in the far heap */
        b->late_pops++;
        b->far_seen += s->far.n;
    }
    if (arg < b->rounds_left)
        sim_after(s, 1000000, burst_event, b, arg + 1);
}

/*
 * A burst at one instant cannot be split by any bucket width, and kept the average above the threshold that
 * narrows the buckets: the calendar once narrowed them to 1 ps, its ring then reached 65 ns ahead, and every
 * event scheduled 1 us out went through the far heap.  It must widen instead when events go there.
 */
static void test_calendar_bursts_stay_near(void)
{
    struct sim s;
    CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
    static struct burst b = {.rounds_left = 3000};
    for (int i = 0; i < BURST; i++)
        sim_at(&s, 0, burst_event, &b, 0);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(b.pops, (uint64_t)BURST * 3001);
    CU_ASSERT(b.late_pops > 0);
    /* The far heap holds on average less than an eighth of a round (all of it, 256, before the fix). */
    CU_ASSERT(b.far_seen < b.late_pops * (BURST / 8));
    sim_free(&s);
}

/*
 * A partition of several stops at its window's end without opening the bucket of its next event, which may be
 * far later: what the next window's mail then files before that event goes to the calendar, not the side heap
 * (before, every such event and all it set off went through the side heap, 4-10 % of a partition's time on the
 * HPCC fabric), and the engine still tells the time of its next event.
 */
static void test_window_end_opens_nothing(void)
{
    for (int part = 0; part < 2; part++) {
        struct sim s;
        CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
        static struct log l;
        memset(&l, 0, sizeof l);
        sim_at(&s, 50000000, record, &l, 3); /* 50 us ahead */
        s.horizon = part ? 1000000 : 0;      /* a partition of several, with its window ending at 1 us; or alone */
        CU_ASSERT_EQUAL(sim_run_below(&s, (uint64_t)1000000 << SIM_ENT_BITS, 0), 0);
        s.horizon = 0;
        sim_time_t t = 0;
        CU_ASSERT(sim_peek_time(&s, &t));
        CU_ASSERT_EQUAL(t, 50000000);
        /* the next window's mail */
        sim_at(&s, 1500000, record, &l, 1);
        sim_at(&s, 2000000, record, &l, 2);
        /* one engine alone opened the bucket at 50 us (it never gets mail): its side heap takes them */
        CU_ASSERT_EQUAL(s.near.n, part ? 0u : 2u);
        CU_ASSERT(sim_peek_time(&s, &t));
        CU_ASSERT_EQUAL(t, 1500000);
        sim_run(&s, SIM_TIME_MAX);
        CU_ASSERT_EQUAL_FATAL(l.n, 3);
        for (int i = 0; i < 3; i++)
            CU_ASSERT_EQUAL(l.arg[i], (uint64_t)i + 1);
        sim_free(&s);
    }
}

static void test_calendar_against_order(void)
{
    /* The engine's tiers (sorted window and its side heap, calendar, far heap) and its bucket width,
     * which it adapts to the event rate, must not change the order: every event
     * pops exactly once, in strictly increasing (time, sequence). */
    struct sim s;
    CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
    static struct mix m;
    memset(&m, 0, sizeof m);
    rng_init(&m.r, 3, rng_stream_id(RNG_KIND_TEST, 2));
    m.min_shift = m.max_shift = s.shift;
    unsigned first_shift = s.shift;
    for (int i = 0; i < 20000; i++)
        sim_at(&s, (sim_time_t)rng_below(&m.r, 2000), mix_event, &m, 0);
    m.scheduled = 20000;
    m.budget = 400000;
    /* Run in slices and schedule from outside between them: sim_run peeks past
     * the limit, and an event filed after the peek must still come first. */
    uint64_t outside = 0;
    while (sim_pending(&s)) {
        sim_run(&s, s.now + 5000000);
        if (outside < 2000) {
            sim_at(&s, s.now, mix_event, &m, 0);
            sim_at(&s, s.now + 1, mix_event, &m, 0);
            m.scheduled += 2;
            outside += 2;
        }
    }
    CU_ASSERT_EQUAL(m.out_of_order, 0);
    CU_ASSERT_EQUAL(m.popped - m.timer_fired, m.scheduled);
    CU_ASSERT(m.timer_fired > 0);
    CU_ASSERT_EQUAL(outside, 2000);
    /* the tiers and the adaptation were all exercised */
    CU_ASSERT(m.max_far > 0);
    CU_ASSERT(s.rebuckets >= 2);
    CU_ASSERT(m.min_shift + 3 <= first_shift);
    CU_ASSERT(m.max_shift >= first_shift + 3);
    sim_free(&s);
}

/*
 * Windows of every shape the sort meets (sim.c, distribute_keys): a burst of 4,000 entities at one instant (more
 * keys than ranges), bursts at a few instants that crowd single ranges (sorted again on their own), one entity's
 * 300 events at one instant (keys that share their first word), and bursts beside a far outlier.  Every event pops
 * once, in strictly increasing (time, sequence).
 */
#define BURST_ENTS 4000
static struct mix burst_mix;

static void burst_check(struct sim *s, void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
    mix_check(s, &burst_mix);
}

static void burst_starter(struct sim *s, void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
    uint32_t e = s->cur_ent;
    sim_at(s, 1000000, burst_check, NULL, 0);                       /* all at one instant */
    for (sim_time_t t = 2000000; t < 2000000 + 4 * 3; t += 3)       /* four instants 3 ps apart */
        sim_at(s, t + (e % 2) * 1000, burst_check, NULL, 0);         /* ... and four more 1 ns later */
    if (e == 7)
        for (int i = 0; i < 300; i++)
            sim_at(s, 3000000, burst_check, NULL, 0);               /* one entity, one instant */
    sim_at(s, 4000000 + (e == 5 ? 900 : 0), burst_check, NULL, 0);  /* a burst and an outlier */
}

static void test_window_shapes(void)
{
    struct sim s;
    CU_ASSERT_EQUAL_FATAL(sim_init(&s), 0);
    CU_ASSERT_EQUAL_FATAL(sim_set_entities(&s, BURST_ENTS + 1), 0);
    memset(&burst_mix, 0, sizeof burst_mix);
    burst_mix.min_shift = burst_mix.max_shift = s.shift;
    for (uint32_t e = 1; e <= BURST_ENTS; e++)
        sim_at_to(&s, 0, e, burst_starter, NULL, 0);
    sim_run(&s, SIM_TIME_MAX);
    CU_ASSERT_EQUAL(burst_mix.out_of_order, 0);
    CU_ASSERT_EQUAL(burst_mix.popped, (uint64_t)BURST_ENTS * 6 + 300);
    sim_free(&s);
}

static void test_pool(void)
{
    struct pool p;
    pool_init(&p, 40);
    void *objs[10000];
    for (int i = 0; i < 10000; i++)
        objs[i] = pool_get(&p);
    CU_ASSERT_EQUAL(p.live, 10000);
    CU_ASSERT_EQUAL(p.n_chunks, 2); /* chunks double: 4096 + 8192 objects */
    for (int i = 0; i < 10000; i++)
        pool_put(&p, objs[i]);
    CU_ASSERT_EQUAL(p.live, 0);
    for (int i = 0; i < 10000; i++)
        objs[i] = pool_get(&p);
    CU_ASSERT_EQUAL(p.n_chunks, 2); /* reused, no new chunk */
    CU_ASSERT_EQUAL(p.high_water, 10000);
    pool_free_all(&p);
}

static void test_rng_streams(void)
{
    struct rng a, b, c;
    rng_init(&a, 1, rng_stream_id(RNG_KIND_ECN, 0));
    rng_init(&b, 1, rng_stream_id(RNG_KIND_ECN, 0));
    rng_init(&c, 1, rng_stream_id(RNG_KIND_ECN, 1));
    int same = 0, diff_stream = 0;
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        same += x == y;
        diff_stream += x == z;
        sum += rng_uniform(&a);
        (void)rng_next(&b);
    }
    CU_ASSERT_EQUAL(same, 100000);
    CU_ASSERT_EQUAL(diff_stream, 0);
    /* mean of 1e5 uniforms: sd = 0.29/sqrt(1e5) = 0.0009; 5 sd bound */
    CU_ASSERT_DOUBLE_EQUAL(sum / 100000, 0.5, 0.0046);
    uint32_t counts[10] = {0};
    for (int i = 0; i < 100000; i++)
        counts[rng_below(&a, 10)]++;
    for (int i = 0; i < 10; i++)
        CU_ASSERT(counts[i] > 9500 && counts[i] < 10500);
}

void test_event_register(void)
{
    CU_pSuite s = CU_add_suite("event core", NULL, NULL);
    CU_add_test(s, "events of one entity fire in (time, insertion) order", test_order_and_ties);
    CU_add_test(s, "same-time events scheduled from a handler run after earlier ones", test_same_time_from_handler);
    CU_add_test(s, "an event due next may be taken at once, and only then", test_take_due);
    CU_add_test(s, "same-time events order by (entity, its sequence), not by how entities interleave",
                test_entity_keys);
    CU_add_test(s, "a same-instant event keyed below the point runs next", test_key_below_point);
    CU_add_test(s, "ties between entities go either way, about half each", test_ties_rotate);
    CU_add_test(s, "events after the time limit never fire", test_time_limit);
#ifdef SIM_CHECK_ENTITY
    CU_add_test(s, "a handler run for another entity's event ends the process", test_entity_check);
#endif
    CU_add_test(s, "timer re-arm and cancel", test_timer_cancel);
    CU_add_test(s, "a timer pushed back re-queues itself lazily", test_timer_lazy_rearm);
    CU_add_test(s, "run stops at the time limit and on request", test_run_limits);
    CU_add_test(s, "heap pops in sorted order", test_heap_against_sort);
    CU_add_test(s, "bursts at one instant do not push the calendar's events into the far heap",
                test_calendar_bursts_stay_near);
    CU_add_test(s, "calendar tiers and bucket widths keep (time, sequence) order", test_calendar_against_order);
    CU_add_test(s, "a partition stopped at its window's end files the next window's mail in the calendar",
                test_window_end_opens_nothing);
    CU_add_test(s, "windows of one instant, a few instants and one entity's burst keep (time, sequence) order",
                test_window_shapes);
    CU_add_test(s, "packet pool reuses freed objects", test_pool);
    CU_add_test(s, "rng streams are reproducible and independent", test_rng_streams);
}
