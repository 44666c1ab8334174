/*
 * runpool — the pool of child runs that `rocesim sweep` and `rocesim tune` share.
 *
 * Every run is an independent `rocesim run` in a child process: a fork + exec
 * of this very binary (/proc/self/exe), so that a crash, a bad value or a
 * runaway run only costs that run: its exit status and the tail of its stderr
 * are recorded and the others go on.  libev drives the children (a child
 * watcher, a pipe reader for stderr and an optional timeout per run, a redraw
 * timer for the progress line); each child gets PR_SET_PDEATHSIG, so a parent
 * killed outright (SIGKILL, the OOM killer) takes its runs with it.
 *
 * Built with -DROCESIM_MPI (make mpi → ./rocesim-mpi) and started by mpirun,
 * the runs to do are dealt round robin over the MPI ranks, each rank runs its
 * share locally N at a time and rank 0 gathers the results (tools/explore/sweep_mpi.c).
 *
 * SIGINT and SIGTERM: the first pool_execute starts catching them (libev signal
 * watchers on the default loop) and they stay caught until pool_end, so that a
 * signal arriving between two calls (while the tuner decides its next batch)
 * is not lost: it is recorded, and that pool_execute and every later one
 * return it at once without starting a run, until pool_end.
 *
 * libev's default loop reaps every child process that has exited whenever it
 * runs (inside pool_execute): a caller's own children must be waited for
 * before the next call (tools/run/plot.c's gnuplot is).
 */
#ifndef TOOLS_RUNPOOL_H
#define TOOLS_RUNPOOL_H

#include <stdbool.h>
#include <stddef.h>

struct dirlock;

/* What the pool names when an allocation fails (sim/mem.h). */
#define POOL_OOM "in sweep or tune"

enum pool_state { POOL_TODO, POOL_OK, POOL_FAILED, POOL_DONE_BEFORE };

struct pool_run {
    char dir[4300];          /* in: the run's output directory (its -o) */
    bool mine;               /* set by pool_execute: this rank runs it */
    enum pool_state state;   /* out */
    char status[64];         /* "ok", "exit 2", "signal SIGSEGV", "timeout", "no summary", "interrupted",
                              * "not started" */
    char *summary;           /* summary.json text of a successful (or earlier complete) run, malloc'd */
    char *tail;              /* last lines of stderr of a failed run, malloc'd */
    bool started;            /* out: a child was started (or tried) for it in this call, on whichever rank */
};

struct pool_status { int n_todo, done, failed, running; double elapsed_s; };

struct pool_ops {
    const char *who;         /* "sweep" or "tune": the program name in messages ("rocesim sweep: ...") */
    /* The full argv of run i (runs[i]), NULL-terminated, argv[0] = "rocesim", argv[1] = "run", ...; built before
     * the fork.  free_argv releases it after the fork (both in the parent). */
    char **(*argv)(void *ctx, int i);
    void (*free_argv)(void *ctx, char **argv);
    /* Formats the progress line (NULL: the sweep's own line, "sweep: 3/48 runs done, ..."). */
    void (*progress)(void *ctx, const struct pool_status *st, char *line, size_t len);
    void *ctx;
    /* Optional.  Called on the rank that holds the run's directory for every run that ends "ok" (right after it
     * ran, or when rank 0 finds it complete from before) with its summary text.  Returns a malloc'd replacement
     * (the pool frees the old text), or NULL with a message in err when the run cannot be used: a run found
     * complete from before then runs again, and a run that just ran is recorded as failed ("no summary") with
     * the message as its tail.  The replacement is what rank 0 gathers and shares; the run's summary.json on
     * disk is left as the run wrote it (rank 0 writes the replacement for a remote run it lacks).  The tuner
     * adds metrics computed from the run's flows.csv, which only that rank's disk holds. */
    char *(*after)(void *ctx, int i, const char *dir, const char *summary, char *err, size_t errlen);
    /* The program the children execute (NULL: /proc/self/exe, this binary; the tests give ./rocesim). */
    const char *exe;
};

/*
 * The distribution of runs over processes.  The local pool is one process of
 * one (pool_local_comm); tools/explore/sweep_mpi.c provides the MPI version.  Every
 * function returns 0 or -1 on a communication failure; bcast and gather are
 * only called when size > 1.
 */
struct pool_comm {
    int rank, size;
    int local_size;   /* ranks on this machine, to share its cores among them */
    /* *rc becomes the largest rc of all ranks (so that every rank stops when one cannot go on). */
    int (*agree)(int *rc);
    /* Rank 0's buffer (malloc'd, *len bytes) is copied to every other rank (their *buf is malloc'd). */
    int (*bcast)(char **buf, size_t *len);
    /* Rank 0 receives every rank's buffer: all[r] (malloc'd, caller frees each and the arrays). */
    int (*gather)(const char *mine, size_t len, char ***all, size_t **lens);
    void (*finish)(void);   /* NULL for the local comm */
};

/* One process of one: agree does nothing, no bcast, gather or finish. */
const struct pool_comm *pool_local_comm(void);

#ifdef ROCESIM_MPI
/*
 * Starts MPI when the process was launched by mpirun (OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE or PMIX_RANK in the environment) and returns the communicator, or
 * NULL when it runs stand-alone (then the pool is local).  Exits with status 3
 * when MPI cannot be initialized.  A second call returns the same communicator.
 */
const struct pool_comm *pool_mpi_init(int *argc, char ***argv);
#endif

/* summary.json text of dir when it exists and says "complete": true, else NULL (a missing, half-written or
 * foreign file).  Caller frees. */
char *pool_complete_summary(const char *dir);

/*
 * Runs the runs idx[0..n) of runs[] over the ranks of comm, at most jobs at a time on this rank:
 *  - rank 0 looks at each run's dir first: a complete summary.json there makes it POOL_DONE_BEFORE with status
 *    "ok" and its summary (not run again); rank 0 broadcasts what is left to do;
 *  - what is left is dealt round robin over the ranks (run k of the list to rank k % size; mine = true);
 *  - each rank runs its share locally (libev) with the timeout (0: none) and progress line (progress only where
 *    `progress` is true, i.e. rank 0 on a terminal without -q);
 *  - rank 0 gathers the results of every rank (a summary not yet in rank 0's dir is written there, so that a
 *    rerun on that machine skips the run);
 *  - when share is true rank 0 then broadcasts every result so that every rank holds every run's state,
 *    status, summary and tail afterwards; when false only rank 0 has them.
 * The listed runs' earlier results are dropped first (pool_run_free).  Returns 0, the signal number when
 * SIGINT/SIGTERM interrupted it or had arrived since the previous call (runs not finished are POOL_TODO with
 * status "interrupted"; every rank returns the same number when share is true), or -1 on a failure of the event
 * loop or of the communication (message on stderr).  Runs listed twice are an error of the caller (assert).
 */
int pool_execute(const struct pool_comm *comm, struct pool_run *runs, const int *idx, int n, int jobs,
                 double timeout_s, bool progress, bool share, const struct pool_ops *ops);

/*
 * Stops catching SIGINT and SIGTERM (their default actions again) and returns the signal recorded since the
 * first pool_execute, or 0; forgets it, so that a later pool_execute starts afresh.  Safe without any call.
 */
int pool_end(void);

/* The options sweep and tune share: FILE [-j N] [-o DIR] [--timeout TIME] [-q], and --budget RUNS for tune. */
struct pool_cli {
    const char *file, *out;
    int jobs, budget;   /* 0: not given */
    double timeout_s;   /* 0: none */
    bool quiet;
    bool no_plot;       /* tune: --no-plot */
};
/* Parses argv[2..] (argv[1] is the command, `who`); tune_opts accepts tune's --budget and --no-plot.  Returns 0, -1 after printing
 * usage for --help, or SCN_EUSAGE with one message and the usage on stderr (printed only when loud). */
int pool_parse_cli(int argc, char **argv, const char *who, const char *usage, bool tune_opts, struct pool_cli *c,
                   bool loud);
/* The default output directory of a sweep or tune file: out/<its name without .json>. */
void pool_default_out(const char *file, char *out, size_t len);

/* The distribution this process runs in: MPI's when mpirun started it (a -DROCESIM_MPI build), else one process. */
const struct pool_comm *pool_comm_start(int *argc, char ***argv);

/*
 * What sweep and tune check before any run: $ROCESIM_MEM_AVAILABLE (every run would refuse a bad one: said once,
 * here), and the output directory (cli's -o, else pool_default_out) with its runs/, whose path goes to dir.  Rank
 * 0 (root) also takes the directory's lock (tools/common/dirlock.h) into *lock, before it creates anything in it; the
 * caller releases it at its end.  Returns 0, or SCN_EUSAGE (also: the directory is in use by another command) /
 * SCN_EIO after a message "rocesim WHO: ..." (printed by rank 0 only).
 */
int pool_prepare(const struct pool_cli *cli, const char *who, char *dir, size_t len, bool root, struct dirlock *lock);

/*
 * Writes DIR/failures.txt: "F of N runs failed. ..." (N = n_total, the runs that ended: a run a signal stopped or
 * never started has not failed, nor has it run), then each run of failed[0..n_failed) (indexes into runs) with
 * its directory's name, its status, the command that repeats it (its argv from ops->argv, up to -o; the --set
 * values quoted for a shell) and the last lines of its stderr (its tail), each behind "  | ".  With no failed run,
 * removes a failures.txt an earlier command left.  Returns 0, or -1 with errno set.
 */
int pool_write_failures(const char *dir, const struct pool_run *runs, const int *failed, int n_failed, int n_total,
                        const struct pool_ops *ops);

/* Erases the progress line a pool_ops.progress caller left on screen (the tuner, when its search ends). */
void pool_progress_clear(void);

void pool_run_free(struct pool_run *r);   /* frees summary and tail, keeps dir */
int pool_online_cores(void);             /* online cores, at least 1 (at most 4096) */
double pool_now_s(void);                 /* monotonic seconds (progress and ETA only) */
const char *pool_hms(double s, char *buf, size_t len);  /* m:ss or h:mm:ss */

#endif
