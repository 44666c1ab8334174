/*
 * parallel — one run's events on several engines, one per partition of the network, each on a thread of its
 * own, with exactly the order of a single engine (docs/architecture.md, "The partitioned engine").
 *
 * Conservative synchronization in windows (Lubachevsky's bounded lag; Fujimoto, "Parallel and Distributed
 * Simulation Systems", 2000, ch. 3): no event of one partition can cause an event of another sooner than the
 * lookahead W (the smallest propagation delay of any link), so every partition may run all of its events
 * keyed below the end of the current window of W without hearing from the others.  An event for another
 * partition's entity (a frame arriving over a link between them) goes into a mailbox (from, to), and the
 * receiving partition files it at the start of the next window; one for the run itself (SIM_ENT_GLOBAL)
 * goes to the run-wide queue.  Events of the run (the watchdog's poll, faults, a collective's start, the
 * deadlock detector) act on many partitions' state, so they run on the calling thread between windows: a
 * window also ends at the key of the next such event.
 *
 * The order is the single engine's: keys depend only on the entity that scheduled an event (sim.h, "Order"),
 * a partition's queue runs its events in key order, and no two partitions share state within a window, so
 * each entity sees the same events in the same order in any cut.  What a run decides between windows
 * (whether its traffic is done, whether a deadlock formed) it decides at the lines of a grid of multiples of W
 * at least SIM_PAR_LINE_MIN apart, which depends on the network and not on the number of partitions, so one
 * partition gives the same answer as eight.
 *
 * Windows, not null messages: a fat-tree has many links between any two pods' partitions, and a window
 * barrier costs one synchronization per W for all of them (measured: docs/performance.md, "Sizing a
 * partitioned engine").
 */
#ifndef SIM_PARALLEL_H
#define SIM_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/contention.h"
#include "sim/sim.h"

#define SIM_PAR_MAX 64 /* partitions (topologies/partition.h plans up to as many) */
/* The grid's lines are at least this far apart (1 us): a run on one partition, which has no lookahead to keep,
 * runs a whole cell at a time, so that a network of short cables (a lookahead of 15 ns) does not pay a
 * window's overhead every few events. */
#define SIM_PAR_LINE_MIN 1000000
/* Partitions that would meet more often than every 10 ns (a cut through links shorter than 2 m) spend more on
 * their windows' ends than threads gain: such a network runs as one partition (docs/performance.md, "Short
 * windows"). */
#define SIM_PAR_MIN_WINDOW 10000

/*
 * Where the threads meet: a sense-reversing counter that a thread spins on for about 30 us, then yields its core
 * in a loop (at once when there are more threads than cores) for up to 1 ms, then sleeps on a futex, woken by the
 * last to arrive.  Not asleep sooner: a thread that sleeps (pthread_barrier_wait, or a futex after the spin) wakes
 * tens of microseconds late, sometimes milliseconds, and two threads ran 1.5 times as long that way
 * (docs/performance.md); a wait past 1 ms is the calling thread's own work between windows or after the run.
 * While the run's windows go on one thread (park, sim/contention.h) the waiting workers sleep at once, so that they
 * leave the cores to the processes that took them.
 */
struct sim_barrier {
    _Alignas(64) uint32_t count;
    uint32_t sense;
    uint32_t n;
    uint32_t spins;           /* before yielding (0: threads outnumber cores) */
    uint32_t sleepers;        /* threads asleep on sense */
    uint32_t park;            /* waiters sleep rather than yield */
};

/* Bytes that travel between processes (a sim_par_comm's and a sim_par_codec's). */
struct sim_buf {
    unsigned char *p;
    size_t len, cap;
};

/* Appends len bytes to b (growing it; out of memory ends the process, sim/mem.h). */
void sim_buf_put(struct sim_buf *b, const void *data, size_t len);

/*
 * How a run reaches the partitions it runs in other processes (`rocesim-mpi run`, tools/run/run_mpi.c): a table of
 * collective operations, each called by every process at the same point of the run.  A process runs the
 * partitions [rank * n / ranks, (rank + 1) * n / ranks) of the n; the others are built in its memory but never
 * run there.
 */
struct sim_par_comm {
    uint32_t rank, ranks;
    /* out[r] to process r (out[rank] is empty), in[r] from it: in's buffers are the hook's until the next call */
    void (*exchange)(void *ctx, const struct sim_buf *out, struct sim_buf *in);
    void (*sum)(void *ctx, uint64_t *v, size_t n);     /* each v[i] becomes its sum over the processes */
    void (*max)(void *ctx, uint64_t *v, size_t n);     /* ... its largest */
    void (*min)(void *ctx, int64_t *v, size_t n);      /* ... its smallest */
    void (*gather)(void *ctx, const struct sim_buf *mine, struct sim_buf *all); /* every process's bytes, in rank
                                                                                  * order, to every process */
    void *ctx;
};

/*
 * How an event travels to a partition in another process (the models': only a frame on a link crosses
 * partitions): encode appends what it needs besides its key, in the sending partition's context (sim_cur), and
 * may release what the event held there; decode rebuilds it in the receiving partition's context and returns
 * the bytes it read (0: not an event it wrote).
 */
struct sim_par_codec {
    bool (*encode)(void *ctx, const struct sim_event *e, struct sim_buf *b);
    size_t (*decode)(void *ctx, const unsigned char *p, size_t len, struct sim_event *e);
    void *ctx;
};

/* Events mailed by one partition to another within a window. */
struct sim_box {
    _Alignas(64) struct sim_event *ev; /* a line each: two partitions append to boxes side by side */
    uint32_t n, cap;
};

/* What a partition tells the window's choice, on a line of its own (it writes it while the others run). */
struct sim_mark {
    _Alignas(64) sim_time_t next_t; /* its earliest pending event, mail to it not counted */
    sim_time_t mailed_min;           /* the earliest event it mailed in the window */
};

struct sim_par {
    uint32_t n;               /* partitions */
    struct sim *parts;        /* their engines */
    struct sim *global;       /* the run-wide queue: the engine the caller made and runs (sim_run) */
    uint16_t *ent_part;       /* entity -> its partition; n for SIM_ENT_GLOBAL */
    sim_time_t window;        /* W, the lookahead of this cut (window ends never cross a line of the grid) */
    /* the current window */
    bool in_window;
    sim_time_t win_end;       /* no mailed event may be earlier */
    uint64_t b_hi, b_lo;      /* partitions run the events keyed below this */
    struct sim_box *box;      /* 2 sets of (n + 1) x (n + 1), from x to; to == n: the run-wide queue */
    uint32_t parity;          /* the set the current window's mail goes into */
    struct sim_mark *mark;    /* per partition */
    /* the grid of lines where the run decides (a multiple of the window): the window being run lies in the
     * cell that ends at cell_end */
    sim_time_t grid;
    sim_time_t cell_end;
    bool cell_open;
    /* Called on the calling thread: at_barrier after every window (no partition runs); at_line then done when a
     * cell of the grid is complete (every event before its end, t, has run): at_line may stop the run (sim_stop
     * on the run-wide engine), done returning true ends it there. */
    void (*at_barrier)(void *ctx);
    void (*at_line)(void *ctx, sim_time_t t);
    bool (*done)(void *ctx);
    void *ctx;
    uint64_t g_events, g_stale, g_moved; /* of the run-wide queue alone */
    uint64_t windows;         /* windows run (barriers) */
    /* partitions in other processes (comm, NULL in one process): this one runs [lo, hi) */
    const struct sim_par_comm *comm;
    struct sim_par_codec codec;
    uint32_t lo, hi;
    struct sim_buf *out, *in; /* comm->ranks each: a window's mail to and from the other processes */
    int64_t *plan;            /* 2 n: what sync_plan reduces */
    /* threads: partition lo runs on the calling thread, each other on a worker */
    bool threaded, quit;
    pthread_t *th;
    pid_t *tid;               /* per partition of this process: its thread's id (the calling thread's for lo) */
    struct sim_barrier go, end;
    uint32_t go_sense, end_sense; /* the calling thread's flags for them */
    /* When other processes take the cores, the windows run on the calling thread (sim/contention.h): adapt
     * turns it on (the caller's choice; off: the threads are kept whatever the machine does). */
    bool adapt, serial;
    struct contention cont;
    struct contention_policy policy;
    struct machine_idle idle;
    double next_read;         /* wall time of the next reading of the threads' waiting */
    uint64_t serial_windows;  /* windows run on one thread while threaded */
    uint32_t toggle_every;    /* tests: alternate between threads and one thread every this many windows */
};

/*
 * Cuts the run whose engine is `global` into n partitions (1..SIM_PAR_MAX): entity e (of n_ent) belongs to
 * partition ent_part[e] (entity SIM_ENT_GLOBAL's entry is ignored).  line (> 0) is the smallest delay of any
 * link, from which the grid is made (the same for every cut); window (>= line) the lookahead of this cut, the
 * smallest delay of a link between two partitions.  The events already queued in global move to their
 * partitions.  With threaded, partitions 1..n-1 run on threads of their own.  From now on sim_run(global,
 * ...) runs them all.  Returns 0, or -1 when an argument is out of range or memory runs out (nothing is
 * changed then).
 */
int sim_par_init(struct sim_par *P, struct sim *global, uint32_t n, const uint16_t *ent_part, uint32_t n_ent,
                 sim_time_t line, sim_time_t window, bool threaded);
void sim_par_free(struct sim_par *P);

/* sim_par_init for a run whose n partitions are spread over comm's processes (n >= comm->ranks); the caller
 * sets P->codec before running it.  comm NULL: sim_par_init. */
int sim_par_init_comm(struct sim_par *P, struct sim *global, uint32_t n, const uint16_t *ent_part, uint32_t n_ent,
                      sim_time_t line, sim_time_t window, bool threaded, const struct sim_par_comm *comm);

/* Between windows, after a part of a run's event ran in partition i's engine (sim_enter): its earliest event
 * is taken into the next window's choice. */
void sim_par_touch(struct sim_par *P, uint32_t i);

/* Between windows of a threaded run: the next windows run on the calling thread, one partition after the other,
 * with the workers asleep at the barrier (serial), or on the threads again.  The contention policy calls it
 * (sim/contention.h); results are the same either way. */
void sim_par_serial(struct sim_par *P, bool serial);

/* Whether partition i runs in this process. */
static inline bool sim_par_mine(const struct sim_par *P, uint32_t i) { return i >= P->lo && i < P->hi; }

/* sim_run for a partitioned run (sim_run calls it): runs windows until `until`, the end of the traffic (done),
 * a stop requested by an event of the run, or no event is left; the clock ends as sim_run's. */
uint64_t sim_par_run(struct sim_par *P, sim_time_t until);

/* Events pending in every partition, mailbox and the run-wide queue. */
uint64_t sim_par_pending(const struct sim_par *P);

/* Files an event (key words hi, lo as in struct sim_event) scheduled by s for partition `to` (P->n: the run). */
void sim_par_route(struct sim *s, uint32_t to, uint64_t hi, uint64_t lo, sim_fn fn, void *obj, struct sim_timer *tm,
                   uint64_t arg);

/* Internal to the engine (sim.c): files an event in s itself; runs s's events keyed below (hi, lo); s's
 * earliest pending key (false: none). */
void sim_insert(struct sim *s, uint64_t hi, uint64_t lo, sim_fn fn, void *obj, struct sim_timer *tm, uint64_t arg);
uint64_t sim_run_below(struct sim *s, uint64_t hi, uint64_t lo);
bool sim_next_key(struct sim *s, struct sim_key *k);
/* s's earliest pending time (false: none) without opening its next bucket, as a partition between windows must:
 * what the next window's mail files before that bucket would go to the side heap. */
bool sim_peek_time(const struct sim *s, sim_time_t *t);
/* Removes s's earliest pending event without running it (its lo's low bits: the entity it belongs to). */
bool sim_pop(struct sim *s, struct sim_event *e);

#endif
