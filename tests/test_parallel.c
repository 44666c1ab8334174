/*
 * The partitioned engine (sim/parallel.h) on a model of its own, apart from the network: a ring of entities
 * that send each other events over "links" of the lookahead, handle some of them at once and some later,
 * and a run-wide event that reads every entity's state.  Every entity's log and the run's log must be the
 * same on one engine, on one partition and on 2, 3 and 5 partitions (threads), and the engine must refuse
 * an event that would cross partitions within the lookahead.
 */
#include "tests/tests.h"
#include "sim/parallel.h"
#include "sim/rng.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#define RING 12             /* entities 1..RING; entity e's neighbour is e % RING + 1 */
#define LOOK 1000           /* the lookahead: every event for another entity comes at least this late */
#define LOG_MAX 4096
#define STOP 200000

struct node {
    uint32_t ent;
    uint64_t count;         /* its own state: events handled */
    struct rng rng;
    int n;
    int64_t t[LOG_MAX];     /* what it saw: time and argument of each event, in order */
    uint64_t arg[LOG_MAX];
};

struct model {
    struct node nodes[RING + 1];
    int n_global;
    uint64_t sums[LOG_MAX]; /* the run's samples of every node's count */
    int64_t at[LOG_MAX];
};

static struct model *the_model;

static void node_event(struct sim *s, void *obj, uint64_t arg);

/* An event of entity `ent`: it logs, then sends on: to itself soon (within the lookahead), at once now and
 * then, and to its neighbour no sooner than the lookahead. */
static void node_event(struct sim *s, void *obj, uint64_t arg)
{
    struct node *nd = obj;
    SIM_ASSERT_ENT(s, nd->ent);
    if (nd->n < LOG_MAX) {
        nd->t[nd->n] = s->now;
        nd->arg[nd->n++] = arg;
    }
    nd->count++;
    uint32_t r = rng_below(&nd->rng, 100);
    if (arg > 7)
        return; /* the cascade dies out after a few generations */
    if (r < 40)
        sim_after(s, 1 + rng_below(&nd->rng, LOOK - 1), node_event, nd, arg + 1);
    if (r < 10)
        sim_at(s, s->now, node_event, nd, arg + 1); /* the same instant */
    struct node *next = &the_model->nodes[nd->ent % RING + 1];
    sim_at_to(s, s->now + LOOK + rng_below(&nd->rng, 3 * LOOK), next->ent, node_event, next, arg + 1);
}

/* The run's event every 7,777 ps: samples the sum of every node's count, then starts new work at a node. */
static void global_event(struct sim *s, void *obj, uint64_t arg)
{
    struct model *m = obj;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    uint64_t sum = 0;
    for (int e = 1; e <= RING; e++)
        sum += m->nodes[e].count;
    if (m->n_global < LOG_MAX) {
        m->at[m->n_global] = s->now;
        m->sums[m->n_global++] = sum;
    }
    struct node *nd = &m->nodes[arg % RING + 1];
    sim_at_to(s, s->now, nd->ent, node_event, nd, 0);
    if (s->now + 7777 < STOP)
        sim_after(s, 7777, global_event, m, arg + 5);
}

/* Runs the model on one plain engine (parts 0) or cut into `parts` partitions of consecutive entities; toggle >
 * 0: the windows alternate between the threads and one thread every `toggle` windows (as a busy machine makes a
 * run do, sim/contention.h). */
static struct model *run_model_toggled(uint32_t parts, bool threaded, uint32_t toggle)
{
    struct model *m = calloc(1, sizeof *m);
    the_model = m;
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, RING + 1);
    for (int e = 1; e <= RING; e++) {
        m->nodes[e].ent = (uint32_t)e;
        rng_init(&m->nodes[e].rng, 7, rng_stream_id(RNG_KIND_TEST, (uint64_t)e));
        sim_at_to(&s, 10 * e, (uint32_t)e, node_event, &m->nodes[e], 0);
    }
    sim_at(&s, 5000, global_event, m, 0);
    struct sim_par P;
    memset(&P, 0, sizeof P);
    if (parts) {
        uint16_t ent_part[RING + 1] = {0};
        for (int e = 1; e <= RING; e++)
            ent_part[e] = (uint16_t)((e - 1) * parts / RING);
        CU_ASSERT_EQUAL_FATAL(sim_par_init(&P, &s, parts, ent_part, RING + 1, LOOK, LOOK, threaded), 0);
        P.toggle_every = toggle;
    }
    sim_run(&s, STOP);
    if (toggle)
        CU_ASSERT(P.serial_windows > 0 && P.serial_windows < P.windows);
    sim_par_free(&P);
    sim_free(&s);
    return m;
}

static struct model *run_model(uint32_t parts, bool threaded) { return run_model_toggled(parts, threaded, 0); }

static bool same_model(const struct model *a, const struct model *b)
{
    bool same = a->n_global == b->n_global && !memcmp(a->sums, b->sums, sizeof a->sums) &&
                !memcmp(a->at, b->at, sizeof a->at);
    for (int e = 1; e <= RING; e++)
        same &= a->nodes[e].n == b->nodes[e].n && !memcmp(a->nodes[e].t, b->nodes[e].t, sizeof a->nodes[e].t) &&
                !memcmp(a->nodes[e].arg, b->nodes[e].arg, sizeof a->nodes[e].arg);
    return same;
}

static void test_same_order_any_cut(void)
{
    struct model *plain = run_model(0, false);
    int events = 0;
    for (int e = 1; e <= RING; e++)
        events += plain->nodes[e].n;
    printf("\n    %d node events, %d samples of the run ", events, plain->n_global);
    CU_ASSERT(events > 1000 && plain->n_global > 20); /* a model that exercised the engine */
    const struct {
        uint32_t parts;
        bool threaded;
        uint32_t toggle;
    } cuts[] = {{1, false, 0}, {2, false, 0}, {2, true, 0}, {3, true, 0}, {5, true, 0}, {2, true, 1}, {3, true, 2},
                {5, true, 7}};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        struct model *m = run_model_toggled(cuts[i].parts, cuts[i].threaded, cuts[i].toggle);
        CU_ASSERT(same_model(plain, m));
        if (!same_model(plain, m))
            fprintf(stderr, "\n  %u partitions%s (one thread every %u windows): a different order\n", cuts[i].parts,
                    cuts[i].threaded ? " on threads" : "", cuts[i].toggle);
        free(m);
    }
    free(plain);
}

/* An event for another partition sooner than the lookahead breaks the guarantee: the engine aborts. */
static void too_soon(struct sim *s, void *obj, uint64_t arg) { sim_at_to(s, s->now + LOOK / 2, 2, too_soon, obj, 0); }

static void run_too_soon(void)
{
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, 3);
    sim_at_to(&s, 5, 1, too_soon, NULL, 0);
    struct sim_par P;
    uint16_t ent_part[3] = {0, 0, 1};
    if (sim_par_init(&P, &s, 2, ent_part, 3, LOOK, LOOK, false) == 0)
        sim_run(&s, 100000);
}

static void test_lookahead_enforced(void) { CU_ASSERT(test_child_aborts(run_too_soon)); }

static void test_bad_arguments(void)
{
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, 3);
    struct sim_par P;
    uint16_t ent_part[3] = {0, 0, 1};
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, 0, ent_part, 3, LOOK, LOOK, false), -1);            /* no partition */
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, SIM_PAR_MAX + 1, ent_part, 3, LOOK, LOOK, false), -1);
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, 2, ent_part, 3, 0, LOOK, false), -1);               /* no lookahead */
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, 2, ent_part, 3, LOOK, LOOK / 2, false), -1);       /* window < line */
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, 1, ent_part, 3, LOOK, LOOK, false), -1);           /* entity in 1 */
    CU_ASSERT_EQUAL(sim_par_init(&P, &s, 2, ent_part, 2, LOOK, LOOK, false), -1);           /* entity count */
    CU_ASSERT_PTR_NULL(s.par);
    sim_free(&s);
}

/*
 * Each partition numbers its entities' events in memory of its own: with one table for all, entities of two
 * partitions shared cache lines, and every event's sequence number was a write to a line the other core held
 * (on the HPCC fabric on two threads, most of port_transmit's time).  No 64-byte line may hold the counts of
 * two partitions.
 */
static void test_sequences_apart(void)
{
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, 1000);
    uint16_t ent_part[1000];
    for (int e = 0; e < 1000; e++)
        ent_part[e] = (uint16_t)(e % 2); /* interleaved: the worst case for one table */
    struct sim_par P;
    CU_ASSERT_EQUAL_FATAL(sim_par_init(&P, &s, 2, ent_part, 1000, LOOK, LOOK, false), 0);
    uintptr_t lo[2], hi[2];
    for (int i = 0; i < 2; i++) {
        lo[i] = (uintptr_t)P.parts[i].ent_seq / 64;
        hi[i] = ((uintptr_t)(P.parts[i].ent_seq + 1000) - 1) / 64;
    }
    CU_ASSERT(hi[0] < lo[1] || hi[1] < lo[0]);
    CU_ASSERT(P.parts[0].ent_seq != s.ent_seq && P.parts[1].ent_seq != s.ent_seq);
    /* and the numbering goes on from what the set-up handed out */
    CU_ASSERT_EQUAL(P.parts[1].ent_seq[7], s.ent_seq[7]);
    sim_par_free(&P);
    sim_free(&s);
}

/* A partition whose window takes 100 ms of work, another with nothing. */
static void busy_event(struct sim *s, void *obj, uint64_t arg)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000000L);
}

/* CPU milliseconds thread th has used. */
static double thread_cpu_ms(pthread_t th)
{
    clockid_t c;
    struct timespec t;
    if (pthread_getcpuclockid(th, &c) || clock_gettime(c, &t))
        return -1;
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * CPU milliseconds the worker (partition 1's thread) uses while a two-partition threaded run's event on entity
 * `busy` works 100 ms (entity 1: partition 0's, on the calling thread; 2: partition 1's), its windows on one
 * thread when `parked`.  *all_serial: whether every window then ran on the calling thread, *none_serial: none.
 */
static double worker_cpu_ms(uint32_t busy, bool parked, bool *all_serial, bool *none_serial)
{
    struct sim s;
    sim_init(&s);
    sim_set_entities(&s, 3);
    sim_at_to(&s, 10, busy, busy_event, NULL, 0);
    struct sim_par P;
    uint16_t ent_part[3] = {0, 0, 1};
    CU_ASSERT_EQUAL_FATAL(sim_par_init(&P, &s, 2, ent_part, 3, LOOK, LOOK, true), 0);
    if (parked)
        sim_par_serial(&P, true);
    double c0 = thread_cpu_ms(P.th[1]);
    sim_run(&s, 10 * LOOK);
    double used = thread_cpu_ms(P.th[1]) - c0;
    *all_serial = P.serial_windows == P.windows;
    *none_serial = P.serial_windows == 0;
    sim_par_free(&P);
    sim_free(&s);
    return c0 >= 0 ? used : -1;
}

/* While a threaded run's windows go on one thread (as when other processes take the cores), the worker that waits
 * at the barrier sleeps: it leaves its core to them (a worker that yielded in a loop used as much CPU time as the
 * work it waited for). */
static void test_parked_worker_sleeps(void)
{
    bool all, none;
    double used = worker_cpu_ms(2, true, &all, &none);
    printf("\n    the parked worker used %.2f ms of CPU while the calling thread worked 100 ms for it ", used);
    CU_ASSERT(used >= 0 && used < 10);
    CU_ASSERT(all);
}

/*
 * A threaded run whose calling thread works 100 ms in a window (its partition's event, as the run's own events,
 * outputs and the end of a run are its alone) while the worker's partition has nothing: the worker, past its spin
 * and 1 ms of yielding, sleeps until the window ends (one that yielded in a loop used the whole 100 ms of CPU).
 */
static void test_waiting_worker_sleeps(void)
{
    bool all, none;
    double used = worker_cpu_ms(1, false, &all, &none);
    printf("\n    the waiting worker used %.2f ms of CPU while the calling thread worked 100 ms ", used);
    CU_ASSERT(used >= 0 && used < 10);
    CU_ASSERT(none);
}

/* The policy that moves a threaded run to one thread and back (sim/contention.h), on made-up readings. */
static void test_contention_policy(void)
{
    struct contention_policy p;
    contention_policy_init(&p);
    /* a quiet machine, and one high reading alone: the threads stay */
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.02, 0.01));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.04, 0.30));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.06, 0.02));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.08, -1)); /* no counters: keep the threads */
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.10, 0.35));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.12, 0.35));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.14, 0.10)); /* below: the count starts again */
    /* three high readings in a row: one thread, for the back-off */
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.16, 0.35));
    CU_ASSERT_FALSE(contention_policy_reading(&p, 0.18, 0.35));
    CU_ASSERT_TRUE(contention_policy_reading(&p, 0.20, 0.35));
    CU_ASSERT_EQUAL(p.switches, 1);
    CU_ASSERT_FALSE(contention_policy_retry(&p, 0.20 + CONTENTION_BACKOFF_MIN - 0.01, 1.0));
    /* the back-off is over, but no core was idle meanwhile: no trial, another look a little later */
    double t = 0.20 + CONTENTION_BACKOFF_MIN;
    CU_ASSERT_FALSE(contention_policy_retry(&p, t, 0.05));
    CU_ASSERT_DOUBLE_EQUAL(p.until, t + CONTENTION_IDLE_RECHECK, 1e-12);
    CU_ASSERT_FALSE(contention_policy_retry(&p, t + CONTENTION_IDLE_RECHECK, CONTENTION_IDLE_MIN - 0.01));
    t += 2 * CONTENTION_IDLE_RECHECK;
    CU_ASSERT_TRUE(contention_policy_retry(&p, t, CONTENTION_IDLE_MIN));
    CU_ASSERT_EQUAL(p.switches, 1);
    /* the trial finds the cores taken still: one thread again, for twice as long */
    t += 0.02;
    CU_ASSERT_TRUE(contention_policy_reading(&p, t, 0.33));
    CU_ASSERT_DOUBLE_EQUAL(p.until, t + 2 * CONTENTION_BACKOFF_MIN, 1e-12);
    /* the back-off doubles up to its cap */
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_TRUE(contention_policy_retry(&p, p.until, -1)); /* the idle time unknown: the trial decides */
        t = p.until + 0.02;
        CU_ASSERT_TRUE(contention_policy_reading(&p, t, 0.5));
    }
    CU_ASSERT_DOUBLE_EQUAL(p.until - t, CONTENTION_BACKOFF_MAX, 1e-12);
    /* a trial that finds the cores free keeps the threads and resets the back-off */
    CU_ASSERT_TRUE(contention_policy_retry(&p, p.until, 0.98));
    CU_ASSERT_FALSE(contention_policy_reading(&p, p.until + 0.02, 0.03));
    CU_ASSERT_DOUBLE_EQUAL(p.backoff, CONTENTION_BACKOFF_MIN, 1e-12);
    CU_ASSERT_FALSE(contention_policy_reading(&p, p.until + 0.04, 0.03));
}

void test_parallel_register(void)
{
    CU_pSuite s = CU_add_suite("partitioned engine", NULL, NULL);
    CU_add_test(s, "every entity's events in the same order on 1, 2, 3 and 5 partitions, on threads or one thread",
                test_same_order_any_cut);
    CU_add_test(s, "no cache line holds two partitions' sequence numbers", test_sequences_apart);
    CU_add_test(s, "a worker parked while the windows go on one thread sleeps", test_parked_worker_sleeps);
    CU_add_test(s, "a worker that waits past its spin for the calling thread sleeps", test_waiting_worker_sleeps);
    CU_add_test(s, "busy cores move a threaded run to one thread and back, with a back-off", test_contention_policy);
    CU_add_test(s, "an event across partitions within the lookahead ends the process", test_lookahead_enforced);
    CU_add_test(s, "a cut with bad arguments is refused and changes nothing", test_bad_arguments);
}
