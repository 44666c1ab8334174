/*
 * contention — whether a partitioned run's threads have their cores to themselves, and when the run should
 * rather run its partitions one after the other on one thread (sim/parallel.h).
 *
 * Threads that meet at a barrier after every window run at the pace of the slowest: when another process
 * takes one of the cores, the thread it displaces holds up the others for a whole time slice, and two threads
 * run slower than one (docs/performance.md, "Two threads on a busy machine").  The kernel counts, per thread,
 * the time it spent runnable but waiting for a core (the second field of /proc/self/task/TID/schedstat,
 * "time spent waiting on a runqueue", Linux's Documentation/scheduler/sched-stats.rst); on a machine with
 * cores to spare it stays near zero.  The policy:
 *   - threaded, the threads' waiting share is read every CONTENTION_PERIOD of wall time; above
 *     CONTENTION_HIGH CONTENTION_RUN times in a row the run goes to one thread (a quiet machine shows single
 *     readings up to about a third now and then: the kernel's own work; one other busy process on two cores
 *     keeps them at a third and above);
 *   - on one thread, it tries the threads again after a back-off (CONTENTION_BACKOFF_MIN, doubling up to
 *     CONTENTION_BACKOFF_MAX while the trials find the cores taken, back to the minimum when one finds them
 *     free), and keeps them when the first period of the trial is below CONTENTION_HIGH;
 *   - a trial costs a period at the threads' slow pace, so it is made only when the machine has had a core
 *     idle (at least CONTENTION_IDLE_MIN of one, from the idle time of /proc/stat's first line, Linux's
 *     Documentation/filesystems/proc.rst) since the run went to one thread or last looked; otherwise it
 *     looks again CONTENTION_IDLE_RECHECK later.  Where that count cannot be read, or does not reflect the
 *     cores this process may use, the trials alone decide.
 * Which windows ran on how many threads changes no result: the partitions' events are the same in any order
 * of the partitions within a window.
 */
#ifndef SIM_CONTENTION_H
#define SIM_CONTENTION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTENTION_MAX_THREADS 64
#define CONTENTION_PERIOD 0.02       /* s of wall time between readings */
#define CONTENTION_HIGH 0.20         /* of the threads' time spent waiting for a core */
#define CONTENTION_RUN 3             /* readings above it in a row that move a run to one thread */
#define CONTENTION_BACKOFF_MIN 0.25  /* s on one thread before the threads are tried again */
#define CONTENTION_BACKOFF_MAX 4.0
#define CONTENTION_IDLE_MIN 0.75     /* cores idle on average that make a trial worth it */
#define CONTENTION_IDLE_RECHECK 0.1  /* s until the idle time is looked at again when it was too low */

/* The policy's state; the readings come in from outside, so that it can be tested on made-up ones. */
struct contention_policy {
    bool serial;       /* the partitions run on one thread */
    bool trial;        /* threaded again after a back-off: the next reading decides */
    uint32_t high;     /* consecutive readings above CONTENTION_HIGH */
    double backoff;    /* s of the next stay on one thread */
    double until;      /* wall time when the stay on one thread ends */
    uint32_t switches; /* to one thread */
};

void contention_policy_init(struct contention_policy *p);
/* Takes the waiting share of the last period (0..1; < 0: unknown, which keeps the threads) at wall time now;
 * returns whether the next windows run on one thread. */
bool contention_policy_reading(struct contention_policy *p, double now, double share);
/* On one thread: whether the threads are tried again at wall time now: the back-off has run out and
 * idle_cores, the machine's idle cores on average since the last look (< 0: unknown), is at least
 * CONTENTION_IDLE_MIN. */
bool contention_policy_retry(struct contention_policy *p, double now, double idle_cores);

/* The readings: each thread's schedstat, kept open. */
struct contention {
    int fd[CONTENTION_MAX_THREADS];
    uint32_t n;
    uint64_t waited_ns; /* the threads' waiting at the last reading */
    double at;          /* its wall time */
    bool broken;        /* a file could not be read: no more readings */
};

/* Opens the counters of threads tids[0..n-1] (n <= CONTENTION_MAX_THREADS) at wall time now; a machine
 * without them leaves c broken (no readings, the threads kept). */
void contention_open(struct contention *c, const pid_t *tids, uint32_t n, double now);
/* The share of the time since the last reading that the threads spent waiting for a core (0..1), or -1 when
 * the counters cannot be read. */
double contention_read(struct contention *c, double now);
void contention_close(struct contention *c);

/* The machine's idle time (/proc/stat), kept open. */
struct machine_idle {
    bool ok;         /* fd is open and read (zeroed: not) */
    int fd;
    uint64_t ticks;  /* idle and iowait at the last look, in clock ticks */
    double at;       /* its wall time */
    double hz;       /* clock ticks per second */
};

/* Opens /proc/stat and takes the first look at wall time now. */
void machine_idle_open(struct machine_idle *m, double now);
/* The cores idle on average since the last look (which now becomes), or -1 when unknown. */
double machine_idle_read(struct machine_idle *m, double now);
void machine_idle_close(struct machine_idle *m);

#endif
