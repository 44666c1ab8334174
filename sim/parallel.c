/* parallel — a run's events on one engine per partition, in windows of the lookahead (see parallel.h). */
#include "sim/parallel.h"
#include "sim/mem.h"

_Static_assert(SIM_PAR_MAX <= CONTENTION_MAX_THREADS, "the contention counters hold every thread of a run");

#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#define T_NONE INT64_MAX

static inline unsigned __int128 kv(uint64_t hi, uint64_t lo) { return (unsigned __int128)hi << 64 | lo; }
static inline struct sim *engine(struct sim_par *P, uint32_t i) { return i == P->n ? P->global : &P->parts[i]; }
/* The mailbox (from, to) of set `set`: a window's mail goes into the set of its parity, and is filed by its
 * receiver at the start of the next window, while the senders fill the other set. */
static inline struct sim_box *box(struct sim_par *P, uint32_t set, uint32_t from, uint32_t to)
{
    return &P->box[(set * (P->n + 1) + from) * (P->n + 1) + to];
}

/* Posts event e from partition `from` to partition `to` in mailbox set `set`. */
static void mail(struct sim_par *P, uint32_t set, uint32_t from, uint32_t to, struct sim_event e)
{
    struct sim_box *b = box(P, set, from, to);
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 256;
        struct sim_event *ev = realloc(b->ev, sizeof *ev * cap);
        if (!ev)
            mem_oom("growing a partition's mailbox");
        b->ev = ev;
        b->cap = cap;
    }
    b->ev[b->n++] = e;
    sim_time_t t = sim_key_time(e.hi);
    if (t < P->mark[from].mailed_min)
        P->mark[from].mailed_min = t;
}

void sim_par_route(struct sim *s, uint32_t to, uint64_t hi, uint64_t lo, sim_fn fn, void *obj, struct sim_timer *tm,
                   uint64_t arg)
{
    struct sim_par *P = s->par;
    sim_time_t t = sim_key_time(hi);
    if (!P->in_window) {
        /* between windows (the run's own events, set-up): nothing else runs, file it where it belongs */
        if (to < P->n && !sim_par_mine(P, to)) {
            /* Over processes: what every process does alike (the run's own engine scheduling), the one that
             * runs partition `to` files too.  What one partition's part of a run event schedules (s is that
             * partition, sim_par_touch) goes out with the mail of the next window, which ends before the
             * lookahead has passed. */
            if (s == P->global)
                return;
            mail(P, P->parity ^ 1, s->part, to, (struct sim_event){hi, lo, fn, obj, tm, arg});
            return;
        }
        sim_insert(engine(P, to), hi, lo, fn, obj, tm, arg);
        if (to < P->n && t < P->mark[to].next_t)
            P->mark[to].next_t = t;
        return;
    }
    if (t < P->win_end || tm) {
        /* A model broke the lookahead: only a frame on a link (delay >= W) may reach another partition, and a
         * timer belongs to its own node (sim.h). */
        fprintf(stderr, "rocesim: bug: entity %u schedules an event %s for entity %u of another partition at "
                        "%lld ps, within the window ending at %lld ps\n", s->cur_ent, tm ? "(a timer)" : "",
                (unsigned)(lo & ((1u << SIM_SLOT_BITS) - 1)), (long long)t, (long long)P->win_end);
        abort();
    }
    mail(P, P->parity, s->part, to, (struct sim_event){hi, lo, fn, obj, tm, arg});
}

void sim_par_touch(struct sim_par *P, uint32_t i)
{
    sim_time_t t;
    if (sim_peek_time(&P->parts[i], &t) && t < P->mark[i].next_t)
        P->mark[i].next_t = t;
}

void sim_buf_put(struct sim_buf *b, const void *data, size_t len)
{
    if (len == 0)
        return;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap *= 2;
        b->p = mem_xrealloc(b->p, cap, "packing events for other processes");
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

/* Files the mail of set `set` for partition `to` (P->n: the run) into its engine. */
static void drain(struct sim_par *P, uint32_t set, uint32_t to)
{
    struct sim *d = engine(P, to);
    for (uint32_t from = 0; from <= P->n; from++) {
        struct sim_box *b = box(P, set, from, to);
        for (uint32_t i = 0; i < b->n; i++) {
            const struct sim_event *e = &b->ev[i];
            sim_insert(d, e->hi, e->lo, e->fn, e->obj, e->timer, e->arg);
        }
        b->n = 0;
    }
}

/* Partition i's part of a window: its mail, then its events keyed below the bound. */
static void part_window(struct sim_par *P, uint32_t i)
{
    struct sim *s = &P->parts[i];
    sim_enter(s);
    drain(P, P->parity ^ 1, i); /* the last window's mail */
    P->mark[i].mailed_min = T_NONE;
    s->horizon = P->n > 1 ? P->win_end : 0;
    sim_run_below(s, P->b_hi, P->b_lo);
    s->horizon = 0;
#ifdef __x86_64__
    /* a frame's links may have been written with streaming stores (models/port.c), which only a store fence
     * orders before the barrier that hands them to the partition receiving the frame */
    __builtin_ia32_sfence();
#endif
    sim_time_t t;
    P->mark[i].next_t = sim_peek_time(s, &t) ? t : T_NONE;
}

/* Spins before yielding: about 30 us here (a pause takes about 28 ns on this machine's cores), longer than a
 * running thread takes to see the last arrival, short enough for threads that share a core. */
#define SPINS_BEFORE_YIELD 1000

/*
 * Yields for at most 1 ms (the clock read every 16 yields), then sleeps: a wait that long is the calling thread's
 * own work between windows (the run's events, its outputs, the end of a run), not a partner thread finishing its
 * window, so a woken thread's late start (tens of us) costs a few per cent of it at most, and a waiting thread
 * never turns a core into a loop of system calls (docs/performance.md, "Waiting").
 */
#define YIELD_BEFORE_SLEEP 1e-3
#define YIELDS_PER_CLOCK 16

/* Tells the core that this is a spin-wait loop (x86's pause: it frees resources for the other hardware thread). */
static inline void cpu_relax(void)
{
#ifdef __x86_64__
    __builtin_ia32_pause();
#endif
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void futex_wait(uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_all(uint32_t *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Waits until all b->n threads have called it for this round; sense is the caller's own flag. */
static void barrier_wait(struct sim_barrier *b, uint32_t *sense)
{
    uint32_t mine = *sense ^= 1;
    if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
        __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
        /* sense before sleepers, a sleeper sleepers before sense (both sequentially consistent): either it sees
         * the new sense, or this sees it and wakes it */
        __atomic_store_n(&b->sense, mine, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&b->sleepers, __ATOMIC_SEQ_CST))
            futex_wake_all(&b->sense);
        return;
    }
    for (uint32_t spins = 0; spins < b->spins; spins++) {
        if (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) == mine)
            return;
        cpu_relax();
    }
    double since = wall_now();
    for (uint32_t yields = 1; __atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != mine; yields++) {
        if (__atomic_load_n(&b->park, __ATOMIC_RELAXED) ||
            (yields % YIELDS_PER_CLOCK == 0 && wall_now() - since > YIELD_BEFORE_SLEEP)) {
            __atomic_add_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&b->sense, __ATOMIC_SEQ_CST) != mine)
                futex_wait(&b->sense, mine ^ 1); /* returns at once when sense is no longer the old value */
            __atomic_sub_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
            return;
        }
        sched_yield();
    }
}

static void *worker(void *arg)
{
    struct sim *s = arg;
    struct sim_par *P = s->par;
    uint32_t go = 0, end = 0;
    P->tid[s->part - P->lo] = gettid(); /* read after the first window's barrier (adapt) */
    for (;;) {
        barrier_wait(&P->go, &go);
        if (P->quit)
            return NULL;
        part_window(P, s->part);
        barrier_wait(&P->end, &end);
    }
}

/* The rank of the process that runs partition i: the largest r with r n / R <= i (sim_par_init_comm's split),
 * that is r < (i + 1) R / n. */
static uint32_t rank_of(const struct sim_par *P, uint32_t i)
{
    return (uint32_t)(((uint64_t)i + 1) * P->comm->ranks - 1) / P->n;
}

/* After a window: the mail of this process's partitions to the others' goes out, by value (P->codec), and
 * theirs comes in, filed into the partitions it is for, as the mailboxes of one process are at the start of the
 * next window.  A record: partition (4 bytes), the key (16), the codec's bytes. */
static void exchange(struct sim_par *P)
{
    const struct sim_par_comm *C = P->comm;
    for (uint32_t r = 0; r < C->ranks; r++)
        P->out[r].len = 0;
    for (uint32_t from = P->lo; from < P->hi; from++) {
        sim_enter(&P->parts[from]);
        for (uint32_t to = 0; to <= P->n; to++) {
            if (to < P->n && sim_par_mine(P, to))
                continue;
            struct sim_box *b = box(P, P->parity, from, to);
            if (to == P->n && b->n) {
                /* every process runs the run's events, so one mailed by a partition would reach only this one */
                fprintf(stderr, "rocesim: bug: a partition scheduled an event of the run, which over several "
                                "processes only this one would run (CONTRIBUTING.md: models over MPI ranks)\n");
                abort();
            }
            struct sim_buf *o = to < P->n ? &P->out[rank_of(P, to)] : NULL;
            for (uint32_t i = 0; i < b->n; i++) {
                const struct sim_event *e = &b->ev[i];
                sim_buf_put(o, &to, sizeof to);
                sim_buf_put(o, &e->hi, sizeof e->hi);
                sim_buf_put(o, &e->lo, sizeof e->lo);
                if (!P->codec.encode || !P->codec.encode(P->codec.ctx, e, o)) {
                    fprintf(stderr, "rocesim: bug: an event for partition %u cannot travel to another process\n", to);
                    abort();
                }
            }
            b->n = 0;
        }
    }
    C->exchange(C->ctx, P->out, P->in);
    for (uint32_t r = 0; r < C->ranks; r++) {
        const unsigned char *p = P->in[r].p, *end = p + P->in[r].len;
        while (p < end) {
            uint32_t to;
            struct sim_event e = {0};
            if ((size_t)(end - p) < sizeof to + 16)
                goto bad;
            memcpy(&to, p, sizeof to);
            memcpy(&e.hi, p + 4, 8);
            memcpy(&e.lo, p + 12, 8);
            p += 20;
            if (to >= P->n || !sim_par_mine(P, to))
                goto bad;
            sim_enter(&P->parts[to]);
            size_t used = P->codec.decode(P->codec.ctx, p, (size_t)(end - p), &e);
            if (!used)
                goto bad;
            p += used;
            sim_insert(&P->parts[to], e.hi, e.lo, e.fn, e.obj, NULL, e.arg);
            if (sim_key_time(e.hi) < P->mark[to].next_t)
                P->mark[to].next_t = sim_key_time(e.hi);
        }
    }
    return;
bad:
    fprintf(stderr, "rocesim: bug: malformed events from another process\n");
    abort();
}

/* Before the next window is chosen: every process learns every partition's earliest event and mail. */
static void sync_plan(struct sim_par *P)
{
    int64_t *v = (int64_t *)P->plan;
    for (uint32_t i = 0; i < P->n; i++) {
        bool mine = sim_par_mine(P, i);
        v[i] = mine ? P->mark[i].next_t : T_NONE;
        v[P->n + i] = mine ? P->mark[i].mailed_min : T_NONE;
    }
    P->comm->min(P->comm->ctx, v, 2 * (size_t)P->n);
    for (uint32_t i = 0; i < P->n; i++) {
        P->mark[i].next_t = v[i];
        P->mark[i].mailed_min = v[P->n + i];
    }
}

void sim_par_serial(struct sim_par *P, bool serial)
{
    P->serial = serial;
    __atomic_store_n(&P->go.park, serial, __ATOMIC_RELAXED);
}

/* After a window of a threaded run: whether the next runs on the threads or on this one (sim/contention.h). */
static void adapt(struct sim_par *P)
{
    if (P->toggle_every) {
        if (P->windows % P->toggle_every == P->toggle_every - 1)
            sim_par_serial(P, !P->serial);
        return;
    }
    if (!P->adapt)
        return;
    double now = wall_now();
    if (P->serial) {
        if (now >= P->policy.until && contention_policy_retry(&P->policy, now, machine_idle_read(&P->idle, now))) {
            sim_par_serial(P, false);
            contention_read(&P->cont, now); /* the trial's waiting counts from now */
            P->next_read = now + CONTENTION_PERIOD;
        }
        return;
    }
    if (now < P->next_read)
        return;
    P->next_read = now + CONTENTION_PERIOD;
    if (P->cont.n == 0 && !P->cont.broken) {
        /* the workers have recorded their ids before the first window's end */
        contention_open(&P->cont, P->tid, P->hi - P->lo, now);
        return;
    }
    sim_par_serial(P, contention_policy_reading(&P->policy, now, contention_read(&P->cont, now)));
    if (P->serial) {
        /* what idles from here decides the trial (opened the first time a run goes to one thread) */
        if (P->idle.ok)
            machine_idle_read(&P->idle, now);
        else
            machine_idle_open(&P->idle, now);
    }
}

static void run_window(struct sim_par *P, uint64_t hi, uint64_t lo, sim_time_t win_end)
{
    P->b_hi = hi;
    P->b_lo = lo;
    P->win_end = win_end;
    P->parity ^= 1;
    P->in_window = true;
    if (P->threaded && !P->serial) {
        barrier_wait(&P->go, &P->go_sense);
        part_window(P, P->lo);
        barrier_wait(&P->end, &P->end_sense);
    } else {
        /* the workers wait at the go barrier meanwhile (asleep after their spin) */
        for (uint32_t i = P->lo; i < P->hi; i++)
            part_window(P, i);
        P->serial_windows += P->threaded;
    }
    P->in_window = false;
    if (P->threaded)
        adapt(P);
    if (P->comm)
        exchange(P);
    sim_enter(P->global);
    drain(P, P->parity, P->n);
    P->windows++;
    if (P->at_barrier)
        P->at_barrier(P->ctx);
}

/* The run-wide engine's counters as the sums over all engines, and its clock and point in the order as the
 * furthest any has run (what a caller of sim_run reads, and what it schedules from between runs). */
static void totals(struct sim_par *P)
{
    struct sim *G = P->global;
    uint64_t c[3] = {0, 0, 0};
    for (uint32_t i = P->lo; i < P->hi; i++) {
        const struct sim *p = &P->parts[i];
        c[0] += p->events;
        c[1] += p->stale;
        c[2] += p->moved;
        if (p->now > G->now || (p->now == G->now && p->cur_seq > G->cur_seq)) {
            G->now = p->now;
            G->cur_seq = p->cur_seq;
        }
    }
    if (P->comm) {
        /* the partitions' counts over every process (the run's own are the same in each), and the furthest point */
        const struct sim_par_comm *C = P->comm;
        C->sum(C->ctx, c, 3);
        uint64_t at[2] = {(uint64_t)G->now, 0};
        C->max(C->ctx, at, 1);
        at[1] = (uint64_t)G->now == at[0] ? G->cur_seq : 0;
        C->max(C->ctx, at + 1, 1);
        G->now = (sim_time_t)at[0];
        G->cur_seq = at[1];
    }
    G->events = P->g_events + c[0];
    G->stale = P->g_stale + c[1];
    G->moved = P->g_moved + c[2];
}

uint64_t sim_par_run(struct sim_par *P, sim_time_t until)
{
    struct sim *G = P->global;
    struct sim *outer = sim_cur;
    sim_enter(G);
    totals(P);
    uint64_t before = G->events;
    G->stop_requested = false;
    const sim_time_t W = P->window, L = P->grid;
    for (;;) {
        if (G->stop_requested)
            break;
        if (P->comm)
            sync_plan(P);
        sim_time_t tn = T_NONE;
        for (uint32_t i = 0; i < P->n; i++) {
            if (P->mark[i].next_t < tn)
                tn = P->mark[i].next_t;
            if (P->mark[i].mailed_min < tn)
                tn = P->mark[i].mailed_min;
        }
        struct sim_key kg;
        bool has_g = sim_next_key(G, &kg);
        sim_time_t tg = has_g ? sim_key_time(kg.hi) : T_NONE, tmin = tn < tg ? tn : tg;
        if (P->cell_open && tmin >= P->cell_end) {
            /* every event before the cell's end has run: a line of the grid, where the run decides */
            P->cell_open = false;
            if (P->at_line)
                P->at_line(P->ctx, P->cell_end);
            if (G->stop_requested) {
                /* stopped there (a deadlock found): the run ends at the line, where it was decided */
                totals(P);
                if (G->now < P->cell_end) {
                    G->now = P->cell_end;
                    G->cur_seq = 0;
                }
                break;
            }
            if (P->done && P->done(P->ctx)) {
                G->stop_requested = true;
                break;
            }
        }
        if (tmin == T_NONE)
            break;
        if (tmin > until) {
            totals(P);
            if (G->now < until) {
                G->now = until;
                G->cur_seq = 0;
            }
            break;
        }
        if (!P->cell_open) {
            P->cell_end = (tmin / L + 1) * L;
            P->cell_open = true;
        }
        /* one partition needs no window shorter than the cell: nothing crosses */
        sim_time_t wend = P->n == 1 ? P->cell_end : (tmin / W + 1) * W;
        if (wend > P->cell_end)
            wend = P->cell_end;
        uint64_t hi = (uint64_t)wend << SIM_ENT_BITS, lo = 0;
        if (until < wend - 1)
            hi = (uint64_t)(until + 1) << SIM_ENT_BITS;
        bool run_g = has_g && kv(kg.hi, kg.lo) < kv(hi, lo);
        if (run_g) {
            hi = kg.hi;
            lo = kg.lo;
        }
        if (tn <= sim_key_time(hi))
            run_window(P, hi, lo, wend);
        if (run_g) {
            /* the run's own event, with every partition stopped just before its key */
            uint64_t e0 = G->events, s0 = G->stale, m0 = G->moved;
            sim_step(G);
            G->cur_ent = SIM_ENT_GLOBAL;
            P->g_events += G->events - e0;
            P->g_stale += G->stale - s0;
            P->g_moved += G->moved - m0;
        }
    }
    totals(P);
    G->cur_ent = SIM_ENT_GLOBAL;
    sim_enter(outer);
    return G->events - before;
}

uint64_t sim_par_pending(const struct sim_par *P)
{
    uint64_t n = 0;
    for (uint32_t i = P->lo; i < P->hi; i++)
        n += sim_pending(&P->parts[i]);
    for (uint32_t i = 0; i < 2 * (P->n + 1) * (P->n + 1); i++)
        n += P->box[i].n;
    if (P->comm)
        P->comm->sum(P->comm->ctx, &n, 1);
    return n + sim_pending(P->global);
}

/* Frees the engines of partitions 0..made-1 (each with its own sequence table) and the arrays. */
static void release(struct sim_par *P, uint32_t made)
{
    for (uint32_t i = 0; P->parts && i < made; i++)
        sim_free(&P->parts[i]);
    free(P->parts);
    free(P->ent_part);
    free(P->box);
    free(P->mark);
    free(P->th);
    free(P->tid);
    contention_close(&P->cont);
    machine_idle_close(&P->idle);
    free(P->plan);
    for (uint32_t r = 0; P->comm && P->out && r < P->comm->ranks; r++)
        free(P->out[r].p);
    free(P->out);
    free(P->in);
    memset(P, 0, sizeof *P);
}

int sim_par_init(struct sim_par *P, struct sim *global, uint32_t n, const uint16_t *ent_part, uint32_t n_ent,
                 sim_time_t line, sim_time_t window, bool threaded)
{
    return sim_par_init_comm(P, global, n, ent_part, n_ent, line, window, threaded, NULL);
}

/* Sets up partition i's engine (sim_init, its sequence table, its hooks); -1 when out of memory, with nothing of
 * it left allocated. */
static int make_engine(struct sim_par *P, uint32_t i, struct sim *global, const uint16_t *ent_part, uint32_t n_ent)
{
    struct sim *s = &P->parts[i];
    if (sim_init(s))
        return -1; /* sim_init freed what it had made */
    /* Each partition numbers its entities' events in a table of its own: with one table for all, entities of
     * different partitions that share a cache line (a pod's switches beside another pod's) made every event's
     * sequence a write to a line the other core held (docs/performance.md).  An entity's own count lives in its
     * partition's table; the run's (entity 0) in the run-wide engine's. */
    free(s->ent_seq);
    s->ent_seq = NULL;
    if (sim_par_mine(P, i)) {
        /* zeroed (untouched pages of a large table cost nothing), its own entities' counts and the run's copied */
        s->ent_seq = mem_calloc_big(n_ent, sizeof *s->ent_seq);
        if (!s->ent_seq) {
            sim_free(s);
            return -1;
        }
        for (uint32_t e = 0; e < n_ent; e++)
            if (e == SIM_ENT_GLOBAL || ent_part[e] == i)
                s->ent_seq[e] = global->ent_seq[e];
    }
    s->n_ent = n_ent;
    s->par = P;
    s->part = i;
    s->now = global->now;
    /* the models' prefetch hooks (sim_add_prefetch), registered on the run's engine, serve every partition */
    s->n_pf = global->n_pf;
    memcpy(s->pf_fn, global->pf_fn, sizeof s->pf_fn);
    memcpy(s->pf_hook, global->pf_hook, sizeof s->pf_hook);
    return 0;
}

/* Starts a worker for each partition of this process but the first (the calling thread runs it). */
static int start_threads(struct sim_par *P)
{
    uint32_t local = P->hi - P->lo;
    P->th = calloc(P->n, sizeof *P->th);
    P->tid = calloc(local, sizeof *P->tid);
    if (!P->th || !P->tid)
        return -1;
    /* more threads than cores: a waiting thread yields at once, to the one it waits for */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    P->go = P->end = (struct sim_barrier){.n = local, .spins = cores >= (long)local ? SPINS_BEFORE_YIELD : 0};
    P->threaded = true;
    P->tid[0] = gettid();
    contention_policy_init(&P->policy);
    for (uint32_t i = P->lo + 1; i < P->hi; i++)
        if (pthread_create(&P->th[i], NULL, worker, &P->parts[i])) {
            /* the workers started wait at a barrier that can no longer fill: nothing to do but end */
            fprintf(stderr, "rocesim: cannot start the thread of partition %u of %u\n", i, P->n);
            exit(1);
        }
    return 0;
}

/* Moves what the run's engine has queued already to the partitions of the entities it belongs to. */
static void move_queued(struct sim_par *P, struct sim *global)
{
    struct sim_event *q = NULL;
    size_t nq = 0, cap = 0;
    struct sim_event e;
    while (sim_pop(global, &e)) {
        if (nq == cap) {
            cap = cap ? cap * 2 : 1024;
            q = mem_xrealloc(q, sizeof *q * cap, "partitioning the event queue");
        }
        q[nq++] = e;
    }
    for (size_t i = 0; i < nq; i++) {
        uint32_t ent = (uint32_t)(q[i].lo & ((1u << SIM_SLOT_BITS) - 1));
        uint32_t to = P->ent_part[ent];
        if (to < P->n && !sim_par_mine(P, to))
            continue; /* the process that runs it has it */
        sim_insert(engine(P, to), q[i].hi, q[i].lo, q[i].fn, q[i].obj, q[i].timer, q[i].arg);
        if (to < P->n && sim_key_time(q[i].hi) < P->mark[to].next_t)
            P->mark[to].next_t = sim_key_time(q[i].hi);
    }
    free(q);
}

int sim_par_init_comm(struct sim_par *P, struct sim *global, uint32_t n, const uint16_t *ent_part, uint32_t n_ent,
                      sim_time_t line, sim_time_t window, bool threaded, const struct sim_par_comm *comm)
{
    memset(P, 0, sizeof *P);
    uint32_t made = 0;
    if (n == 0 || n > SIM_PAR_MAX || line <= 0 || window < line || n_ent != global->n_ent || global->par)
        return -1;
    if (comm && (comm->ranks < 2 || comm->rank >= comm->ranks || n < comm->ranks))
        return -1;
    P->n = n;
    P->lo = 0;
    P->hi = n;
    if (comm) {
        P->comm = comm;
        P->lo = (uint32_t)((uint64_t)comm->rank * n / comm->ranks);
        P->hi = (uint32_t)((uint64_t)(comm->rank + 1) * n / comm->ranks);
        P->out = calloc(comm->ranks, sizeof *P->out);
        P->in = calloc(comm->ranks, sizeof *P->in);
        P->plan = malloc(sizeof *P->plan * 2 * n);
        if (!P->out || !P->in || !P->plan)
            goto fail;
    }
    P->global = global;
    /* the grid: the multiple of the smallest delay nearest above SIM_PAR_LINE_MIN, the same for every cut */
    P->grid = line * ((SIM_PAR_LINE_MIN + line - 1) / line);
    P->window = window < P->grid ? window : P->grid;
    /* engines, mailboxes and marks on lines of their own: each is written by its partition with every event
     * (an engine's clock) or every frame across (a mailbox), beside another partition's */
    P->parts = mem_calloc_big(n, sizeof *P->parts);
    P->ent_part = malloc(sizeof *P->ent_part * n_ent);
    P->box = mem_calloc_big((size_t)2 * (n + 1) * (n + 1), sizeof *P->box);
    P->mark = mem_calloc_big(n, sizeof *P->mark);
    if (!P->parts || !P->ent_part || !P->box || !P->mark)
        goto fail;
    for (; made < n; made++)
        if (make_engine(P, made, global, ent_part, n_ent))
            goto fail;
    for (uint32_t e = 0; e < n_ent; e++) {
        if (e != SIM_ENT_GLOBAL && ent_part[e] >= n)
            goto fail;
        P->ent_part[e] = e == SIM_ENT_GLOBAL ? (uint16_t)n : ent_part[e];
    }
    if (threaded && P->hi - P->lo > 1 && start_threads(P))
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        P->parts[i].ent_part = n > 1 ? P->ent_part : NULL;
        P->mark[i].next_t = T_NONE;
        P->mark[i].mailed_min = T_NONE;
    }
    move_queued(P, global); /* taken out of the run's engine while it is still a plain one */
    global->par = P;
    global->part = n;
    global->ent_part = P->ent_part;
    return 0;
fail:
    release(P, made);
    return -1;
}

void sim_par_free(struct sim_par *P)
{
    if (!P->parts)
        return;
    if (P->threaded) {
        P->quit = true;
        barrier_wait(&P->go, &P->go_sense);
        for (uint32_t i = P->lo + 1; i < P->hi; i++)
            pthread_join(P->th[i], NULL);
    }
    for (uint32_t i = 0; P->box && i < 2 * (P->n + 1) * (P->n + 1); i++)
        free(P->box[i].ev);
    if (P->global->par == P) {
        P->global->par = NULL;
        P->global->ent_part = NULL;
    }
    release(P, P->n);
}
