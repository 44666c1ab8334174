/*
 * runpool — see runpool.h.
 *
 * One batch is: rank 0 skips the runs already complete on disk and broadcasts
 * the rest, every rank runs its round-robin share as children driven by the
 * libev default loop, rank 0 gathers every rank's results as one JSON text,
 * and, when the caller wants every rank to hold them, broadcasts them all back.
 * A rank whose event loop fails still takes part in every exchange, so that
 * the others never wait for it forever.
 */
#include "tools/explore/runpool.h"
#include "tools/common/dirlock.h"
#include "tools/common/files.h"
#include "tools/run/limits.h"
#include "sim/mem.h"
#include "tools/run/run.h"
#include "tools/common/text.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TAIL_BYTES 4096 /* stderr kept per run: enough for the last lines of any message */
#define TAIL_LINES 10

/* Monotonic wall time in seconds (progress and ETA only: never in results). */
double pool_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* See runpool.h. */
const char *pool_hms(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        sfmt(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        sfmt(buf, len, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

/* See runpool.h. */
int pool_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

/* See runpool.h. */
void pool_run_free(struct pool_run *r)
{
    free(r->summary);
    free(r->tail);
    r->summary = NULL;
    r->tail = NULL;
}

/* See runpool.h. */
char *pool_complete_summary(const char *dir)
{
    char path[4400], e[64];
    sfmt(path, sizeof path, "%s/summary.json", dir);
    char *text = NULL;
    if (access(path, F_OK) || read_text_file(path, &text, e, sizeof e))
        return NULL;
    cJSON *j = cJSON_Parse(text);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "results_version");
    /* a run of another rocesim whose results differ is not done: it is run again */
    bool ok = j && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")) && cJSON_IsNumber(v) &&
              v->valuedouble == RUN_RESULTS_VERSION;
    cJSON_Delete(j);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* One process agrees with itself: nothing to exchange.  Returns 0. */
static int local_agree(int *rc)
{
    (void)rc;
    return 0;
}

/* See runpool.h. */
const struct pool_comm *pool_local_comm(void)
{
    static const struct pool_comm local = {.rank = 0, .size = 1, .local_size = 1, .agree = local_agree};
    return &local;
}

/* ------------------------------------------------------------------------ */
/* Running: children driven by libev                                         */

struct job;

struct runner {
    struct ev_loop *loop;
    struct pool_run *runs;
    const int *todo;       /* indices into runs, in order */
    int n_todo, next, running, done, failed, jobs;
    double timeout_s;      /* 0 = none */
    const struct pool_ops *ops;
    const char *who, *exe;
    char exec_msg[4400];   /* the child's message when exec fails, formatted before any fork */
    bool progress;
    double t0;
    ev_timer redraw;
    struct job *slots;     /* jobs slots */
};

struct job {
    struct runner *R;
    int run;               /* index into R->runs, -1 = free slot */
    pid_t pid;
    int fd;
    bool exited, eof, timed_out;
    int wstatus;
    ev_child cw;
    ev_io iow;
    ev_timer tw;
    char tail[TAIL_BYTES]; /* ring buffer of the last TAIL_BYTES bytes of stderr */
    size_t tail_pos, tail_len;
};

/*
 * SIGINT and SIGTERM are caught from the first pool_execute until pool_end
 * (runpool.h): the watchers live here, not in a batch, and the signal stays
 * recorded between batches.  Start nothing more while it is set.
 */
static ev_signal sigint_w, sigterm_w;
static bool catching;
static int pending_signal;
static struct runner *active;   /* the batch running now, NULL between batches */
/* Characters of the progress line on screen.  A caller that formats its own line (pool_ops.progress) keeps it
 * on screen from batch to batch, redrawn as each run ends, until pool_progress_clear(). */
static int shown;

/* Redraws the progress line (stderr is a terminal): done/total, failed, running, ETA. */
static void draw_progress(struct runner *R, bool final)
{
    if (!R->progress)
        return;
    if (final) {
        if (!R->ops->progress)
            pool_progress_clear();
        return;
    }
    char line[256], a[32], b[32];
    double el = pool_now_s() - R->t0;
    if (R->ops->progress) {
        struct pool_status st = {.n_todo = R->n_todo, .done = R->done, .failed = R->failed, .running = R->running,
                                 .elapsed_s = el};
        line[0] = '\0';
        R->ops->progress(R->ops->ctx, &st, line, sizeof line);
    } else if (R->done > 0) {
        sfmt(line, sizeof line, "%s: %d/%d runs done, %d failed, %d running, %s elapsed, ETA %s", R->who, R->done,
             R->n_todo, R->failed, R->running, pool_hms(el, a, sizeof a),
             pool_hms(el / R->done * (R->n_todo - R->done), b, sizeof b));
    } else {
        sfmt(line, sizeof line, "%s: 0/%d runs done, %d running, %s elapsed", R->who, R->n_todo, R->running,
             pool_hms(el, a, sizeof a));
    }
    int n = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, shown > n ? shown - n : 0, "");
    fflush(stderr);
    shown = n;
}

/* See runpool.h. */
void pool_progress_clear(void)
{
    if (shown)
        fprintf(stderr, "\r%*s\r", shown, "");
    shown = 0;
}

/* Timer: redraws the progress line.  Cannot fail. */
static void redraw_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    draw_progress(w->data, false);
}

/* The last TAIL_LINES lines of the ring buffer as a string (caller frees). */
static char *tail_text(const struct job *j)
{
    char *s = mem_xmalloc(j->tail_len + 1, POOL_OOM);
    size_t start = (j->tail_pos + TAIL_BYTES - j->tail_len) % TAIL_BYTES;
    for (size_t i = 0; i < j->tail_len; i++)
        s[i] = j->tail[(start + i) % TAIL_BYTES];
    s[j->tail_len] = '\0';
    size_t len = j->tail_len;
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = '\0';
    int lines = 0;
    char *from = s;
    for (char *p = s + len; p > s; p--)
        if (p[-1] == '\n' && ++lines == TAIL_LINES) {
            from = p;
            break;
        }
    memmove(s, from, strlen(from) + 1);
    return s;
}

static void start_more(struct runner *R);

/* The caller's after hook over run i's summary (see runpool.h): replaces it, or returns false with the message. */
static bool apply_after(const struct pool_ops *ops, int i, struct pool_run *r, char *err, size_t errlen)
{
    if (!ops->after || !r->summary)
        return r->summary != NULL;
    err[0] = '\0';
    char *t = ops->after(ops->ctx, i, r->dir, r->summary, err, errlen);
    free(r->summary);
    r->summary = t;
    return t != NULL;
}

/* Both the exit and the end of stderr are in: record the run and free the slot. */
static void job_finish(struct job *j)
{
    struct runner *R = j->R;
    struct pool_run *r = &R->runs[j->run];
    char hook_err[1024] = "";
    ev_timer_stop(R->loop, &j->tw);
    if (j->timed_out) {
        sfmt(r->status, sizeof r->status, "timeout");
    } else if (WIFSIGNALED(j->wstatus)) {
        const char *name = sigabbrev_np(WTERMSIG(j->wstatus));
        if (name)
            sfmt(r->status, sizeof r->status, "signal SIG%s", name);
        else
            sfmt(r->status, sizeof r->status, "signal %d", WTERMSIG(j->wstatus));
    } else if (WEXITSTATUS(j->wstatus) != 0) {
        sfmt(r->status, sizeof r->status, "exit %d", WEXITSTATUS(j->wstatus));
    } else if (!(r->summary = pool_complete_summary(r->dir))) {
        sfmt(r->status, sizeof r->status, "no summary");
    } else if (!apply_after(R->ops, j->run, r, hook_err, sizeof hook_err)) {
        sfmt(r->status, sizeof r->status, "no summary");
    } else {
        sfmt(r->status, sizeof r->status, "ok");
    }
    if (r->summary) {
        r->state = POOL_OK;
    } else if (pending_signal) {
        /* Not the run's fault: left to do, so that a rerun does it. */
        r->state = POOL_TODO;
        sfmt(r->status, sizeof r->status, "interrupted");
    } else {
        r->state = POOL_FAILED;
        r->tail = hook_err[0] ? mem_xstrdup(hook_err, POOL_OOM) : tail_text(j);
        R->failed++;
    }
    R->running--;
    R->done++;
    if (R->ops->progress)
        draw_progress(R, false);
    j->run = -1;
    start_more(R);
    if (R->running == 0 && (R->next == R->n_todo || pending_signal))
        ev_break(R->loop, EVBREAK_ALL);
}

/* A run exited: keeps its status; the run is recorded once its stderr is drained too. */
static void child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
    (void)revents;
    struct job *j = w->data;
    ev_child_stop(loop, w);
    j->exited = true;
    j->wstatus = w->rstatus;
    if (j->eof)
        job_finish(j);
}

/* Stderr of a run: keeps the last TAIL_BYTES bytes; at end of file the run may be complete. */
static void pipe_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    struct job *j = w->data;
    char buf[4096];
    ssize_t n = read(j->fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n > 0) {
        for (ssize_t i = 0; i < n; i++) {
            j->tail[j->tail_pos] = buf[i];
            j->tail_pos = (j->tail_pos + 1) % TAIL_BYTES;
        }
        j->tail_len = j->tail_len + (size_t)n > TAIL_BYTES ? TAIL_BYTES : j->tail_len + (size_t)n;
        return;
    }
    ev_io_stop(loop, w);
    close(j->fd);
    j->fd = -1;
    j->eof = true;
    if (j->exited)
        job_finish(j);
}

/* The run took longer than the timeout: kill it (its exit is then recorded as "timeout"). */
static void timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct job *j = w->data;
    j->timed_out = true;
    kill(j->pid, SIGKILL);
}

/*
 * Starts run R->todo[R->next] in a free slot: fork, then exec of the program
 * with the caller's argv.  A run that cannot be started at all is recorded as failed.
 */
static void start_one(struct runner *R, struct job *j)
{
    int idx = R->todo[R->next++];
    struct pool_run *r = &R->runs[idx];
    memset(j, 0, offsetof(struct job, tail));
    j->R = R;
    j->run = idx;
    j->fd = -1;
    j->tail_pos = j->tail_len = 0;
    r->started = true;

    /* argv is built before the fork: the child only calls async-signal-safe functions. */
    char **argv = R->ops->argv(R->ops->ctx, idx);
    int pfd[2] = {-1, -1};
    pid_t pid = -1, parent = getpid();
    if (pipe2(pfd, O_CLOEXEC) == 0)
        pid = fork();
    if (pid == 0) {
        /* A parent killed outright (SIGKILL, OOM killer) cannot stop its runs: the kernel does it.  The
         * parent may have died before prctl, so its pid is checked after it. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        /* Child: stdin and stdout to /dev/null, stderr to the pipe, default signals. */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(pfd[1], 2);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGCHLD, &dfl, NULL);
        sigaction(SIGPIPE, &dfl, NULL);
        execv(R->exe, argv);
        ssize_t w = write(2, R->exec_msg, strlen(R->exec_msg));
        (void)w;
        _exit(127);
    }
    R->ops->free_argv(R->ops->ctx, argv);
    if (pid < 0) {
        int e = errno;
        if (pfd[0] >= 0) {
            close(pfd[0]);
            close(pfd[1]);
        }
        r->state = POOL_FAILED;
        sfmt(r->status, sizeof r->status, "not started");
        size_t l = 160;
        r->tail = mem_xmalloc(l, POOL_OOM);
        sfmt(r->tail, l, "rocesim %s: cannot start the run: %s", R->who, strerror(e));
        R->failed++;
        R->done++;
        j->run = -1;
        return;
    }
    close(pfd[1]);
    j->pid = pid;
    j->fd = pfd[0];
    R->running++;
    ev_child_init(&j->cw, child_cb, pid, 0);
    j->cw.data = j;
    ev_child_start(R->loop, &j->cw);
    ev_io_init(&j->iow, pipe_cb, j->fd, EV_READ);
    j->iow.data = j;
    ev_io_start(R->loop, &j->iow);
    ev_timer_init(&j->tw, timeout_cb, R->timeout_s, 0);
    j->tw.data = j;
    if (R->timeout_s > 0)
        ev_timer_start(R->loop, &j->tw);
}

/* Fills free slots while runs remain (none after an interruption). */
static void start_more(struct runner *R)
{
    for (int k = 0; k < R->jobs && R->next < R->n_todo && !pending_signal; k++)
        if (R->slots[k].run < 0)
            start_one(R, &R->slots[k]);
}

/*
 * SIGINT or SIGTERM: recorded for this batch and the next ones (runpool.h);
 * the children of a running batch are stopped too (a run would otherwise go
 * on to the end unattended), and the loop ends once they are reaped, so that
 * the caller can still write what is done.
 */
static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)revents;
    pending_signal = w->signum;
    struct runner *R = active;
    if (!R)
        return;
    for (int k = 0; k < R->jobs; k++)
        if (R->slots[k].run >= 0 && !R->slots[k].exited)
            kill(R->slots[k].pid, SIGTERM);
    if (R->running == 0)
        ev_break(loop, EVBREAK_ALL);
}

/*
 * The default loop, catching SIGINT and SIGTERM from the first call on; a
 * signal that arrived between two batches is taken in (signal_cb) here.
 * Returns NULL when libev cannot create it (message on stderr).
 */
static struct ev_loop *pool_loop(const char *who)
{
    struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
    if (!loop) {
        fprintf(stderr, "rocesim %s: cannot create the event loop (libev)\n", who);
        return NULL;
    }
    if (!catching) {
        ev_signal_init(&sigint_w, signal_cb, SIGINT);
        ev_signal_init(&sigterm_w, signal_cb, SIGTERM);
        ev_signal_start(loop, &sigint_w);
        ev_signal_start(loop, &sigterm_w);
        catching = true;
    } else {
        ev_run(loop, EVRUN_NOWAIT);
    }
    return loop;
}

/* See runpool.h. */
int pool_end(void)
{
    if (catching) {
        struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
        ev_run(loop, EVRUN_NOWAIT); /* a signal still in libev's pipe is counted, not lost */
        ev_signal_stop(loop, &sigint_w);
        ev_signal_stop(loop, &sigterm_w);
        catching = false;
    }
    int sig = pending_signal;
    pending_signal = 0;
    return sig;
}

/*
 * Runs every run listed in todo, at most jobs at a time.  Returns 0, or the
 * signal's number when interrupted by SIGINT/SIGTERM (now or before: nothing
 * is started then); the runs not finished are POOL_TODO "interrupted".
 */
static int run_local(struct ev_loop *loop, struct pool_run *runs, const int *todo, int n_todo, int jobs,
                     double timeout_s, bool progress, const struct pool_ops *ops, const char *who)
{
    struct runner R = {.loop = loop, .runs = runs, .todo = todo, .n_todo = n_todo, .jobs = jobs,
                       .timeout_s = timeout_s, .ops = ops, .who = who, .progress = progress, .t0 = pool_now_s()};
    R.exe = ops->exe ? ops->exe : "/proc/self/exe";
    sfmt(R.exec_msg, sizeof R.exec_msg, "rocesim %s: cannot execute %s\n", who, R.exe);
    /* The runs are processes of their own, each one run, even when this pool is a rank of mpirun: they inherit
     * its MPI environment, and must not take it for their own (run_mpi_start). */
    setenv(RUN_MPI_POOL_CHILD, "1", 1);
    if (n_todo > 0 && !pending_signal) {
        R.slots = mem_xcalloc((size_t)jobs, sizeof *R.slots, POOL_OOM);
        for (int k = 0; k < jobs; k++)
            R.slots[k].run = -1;
        ev_timer_init(&R.redraw, redraw_cb, 0.25, 0.25);
        R.redraw.data = &R;
        if (progress)
            ev_timer_start(loop, &R.redraw);
        if (ops->progress)
            draw_progress(&R, false);
        active = &R;
        /* A run that cannot even start leaves its slot free at once: loop until everything has run. */
        while ((R.next < R.n_todo && !pending_signal) || R.running > 0) {
            start_more(&R);
            if (R.running > 0)
                ev_run(loop, 0);
        }
        active = NULL;
        ev_timer_stop(loop, &R.redraw);
        draw_progress(&R, true);
        free(R.slots);
    }
    for (int k = R.next; k < n_todo; k++)
        sfmt(runs[todo[k]].status, sizeof runs[todo[k]].status, "interrupted");
    return pending_signal;
}

/* ------------------------------------------------------------------------ */
/* Exchanging results between ranks                                          */

/*
 * The runs of list (only this rank's when only_mine) as JSON text, with rc:
 * {"rc": N, "runs": [{"i", "state", "status", "started", "summary", "tail"}]}.
 * Caller frees.
 */
static char *pack_runs(const struct pool_run *runs, const int *list, int count, bool only_mine, int rc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rc", rc);
    cJSON *arr = cJSON_AddArrayToObject(o, "runs");
    for (int k = 0; k < count; k++) {
        const struct pool_run *r = &runs[list[k]];
        if (only_mine && !r->mine)
            continue;
        cJSON *it = cJSON_CreateObject();
        cJSON_AddNumberToObject(it, "i", list[k]);
        cJSON_AddNumberToObject(it, "state", r->state);
        cJSON_AddStringToObject(it, "status", r->status);
        cJSON_AddBoolToObject(it, "started", r->started);
        if (r->summary)
            cJSON_AddStringToObject(it, "summary", r->summary);
        if (r->tail)
            cJSON_AddStringToObject(it, "tail", r->tail);
        cJSON_AddItemToArray(arr, it);
    }
    char *t = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!t)
        mem_oom("exchanging the runs' results");
    return t;
}

/*
 * Takes another rank's runs into runs[] (only runs listed in this batch and
 * not run here) and its rc into *rc.  With write_dir, a summary that is not in
 * this machine's run directory yet (no shared file system) is written there,
 * so that a rerun on this machine skips it.  Returns 0, or -1 on a malformed buffer.
 */
static int unpack_runs(struct pool_run *runs, const bool *listed, int max, const char *buf, size_t len,
                       bool write_dir, int *rc)
{
    cJSON *o = cJSON_ParseWithLength(buf, len);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "runs");
    const cJSON *rcj = cJSON_GetObjectItemCaseSensitive(o, "rc");
    if (!cJSON_IsArray(arr) || !cJSON_IsNumber(rcj)) {
        cJSON_Delete(o);
        return -1;
    }
    *rc = rcj->valueint;
    for (const cJSON *it = arr->child; it; it = it->next) {
        const cJSON *i = cJSON_GetObjectItemCaseSensitive(it, "i");
        const cJSON *state = cJSON_GetObjectItemCaseSensitive(it, "state");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(it, "summary");
        const cJSON *tl = cJSON_GetObjectItemCaseSensitive(it, "tail");
        if (!cJSON_IsNumber(i) || i->valueint < 0 || i->valueint > max || !listed[i->valueint] ||
            !cJSON_IsNumber(state) || state->valueint < POOL_TODO || state->valueint > POOL_DONE_BEFORE ||
            !cJSON_IsString(st))
            continue;
        struct pool_run *r = &runs[i->valueint];
        if (r->mine)
            continue;
        pool_run_free(r);
        r->state = (enum pool_state)state->valueint;
        sfmt(r->status, sizeof r->status, "%s", st->valuestring);
        r->started = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "started"));
        r->summary = cJSON_IsString(sm) ? mem_xstrdup(sm->valuestring, POOL_OOM) : NULL;
        r->tail = cJSON_IsString(tl) ? mem_xstrdup(tl->valuestring, POOL_OOM) : NULL;
        if (write_dir && r->state == POOL_OK && r->summary) {
            char path[4400];
            sfmt(path, sizeof path, "%s/summary.json", r->dir);
            if (access(path, F_OK) != 0 && make_dirs(r->dir) == 0)
                write_file_atomic(path, r->summary, strlen(r->summary));
        }
    }
    cJSON_Delete(o);
    return 0;
}

/* Rank 0's list of runs to do, to every rank (todo and *n_todo are replaced on the others).  Returns 0 or -1. */
static int share_todo(const struct pool_comm *comm, int *todo, int *n_todo, const bool *listed, int max)
{
    char *buf = NULL;
    size_t len = 0;
    if (comm->rank == 0) {
        struct sbuf b = {0};
        for (int i = 0; i < *n_todo; i++)
            sb_printf(&b, "%d\n", todo[i]);
        sb_printf(&b, "end\n");
        buf = b.p;
        len = b.len;
    }
    if (comm->bcast(&buf, &len)) {
        free(buf);
        return -1;
    }
    if (comm->rank != 0) {
        *n_todo = 0;
        for (char *p = buf; p < buf + len && strncmp(p, "end", 3);) {
            long v = strtol(p, &p, 10);
            if (v >= 0 && v <= max && listed[v])
                todo[(*n_todo)++] = (int)v;
            while (p < buf + len && *p == '\n')
                p++;
        }
    }
    free(buf);
    return 0;
}

/*
 * Rank 0 takes in every rank's runs and rc; *rc becomes -1 when any rank
 * failed, else the largest signal number.  Returns 0 or -1.
 */
static int gather_results(const struct pool_comm *comm, struct pool_run *runs, const int *idx, int n,
                          const bool *listed, int max, int *rc, const char *who)
{
    char *packed = pack_runs(runs, idx, n, true, *rc);
    char **all = NULL;
    size_t *lens = NULL;
    int grc = comm->gather(packed, strlen(packed), &all, &lens);
    free(packed);
    if (comm->rank == 0 && all) {
        for (int r = 1; r < comm->size; r++) {
            int their = 0;
            if (unpack_runs(runs, listed, max, all[r], lens[r], true, &their))
                fprintf(stderr, "rocesim %s: rank %d sent malformed results\n", who, r);
            else if (their < 0 || *rc < 0)
                *rc = -1;
            else if (their > *rc)
                *rc = their;
            free(all[r]);
        }
        free(all[0]);
    }
    free(all);
    free(lens);
    return grc ? -1 : 0;
}

/* Rank 0's results of every listed run and the batch's rc to every rank.  Returns 0 or -1. */
static int share_results(const struct pool_comm *comm, struct pool_run *runs, const int *idx, int n,
                         const bool *listed, int max, int *rc)
{
    char *buf = comm->rank == 0 ? pack_runs(runs, idx, n, false, *rc) : NULL;
    size_t len = buf ? strlen(buf) : 0;
    int brc = comm->bcast(&buf, &len);
    if (!brc && comm->rank != 0 && unpack_runs(runs, listed, max, buf, len, false, rc))
        brc = -1;
    free(buf);
    return brc;
}

/* See runpool.h. */
int pool_execute(const struct pool_comm *comm, struct pool_run *runs, const int *idx, int n, int jobs,
                 double timeout_s, bool progress, bool share, const struct pool_ops *ops)
{
    const char *who = ops->who ? ops->who : "sweep";
    if (jobs < 1)
        jobs = 1;
    int max = 0;
    for (int k = 0; k < n; k++)
        max = idx[k] > max ? idx[k] : max;
    bool *listed = mem_xcalloc((size_t)max + 1, sizeof *listed, POOL_OOM);
    for (int k = 0; k < n; k++) {
        struct pool_run *r = &runs[idx[k]];
        assert(idx[k] >= 0 && !listed[idx[k]]);
        listed[idx[k]] = true;
        pool_run_free(r);
        r->mine = false;
        r->started = false;
        r->state = POOL_TODO;
        r->status[0] = '\0';
    }

    struct ev_loop *loop = pool_loop(who);
    /* Rank 0 decides what is left to do (its directory is the one that counts) and deals it out. */
    int *todo = mem_xcalloc((size_t)n + 1, sizeof *todo, POOL_OOM);
    int n_todo = 0;
    if (comm->rank == 0) {
        for (int k = 0; k < n; k++) {
            struct pool_run *r = &runs[idx[k]];
            char e[1024];
            if ((r->summary = pool_complete_summary(r->dir)) && apply_after(ops, idx[k], r, e, sizeof e)) {
                r->state = POOL_DONE_BEFORE;
                sfmt(r->status, sizeof r->status, "ok");
            } else {
                todo[n_todo++] = idx[k];
            }
        }
    }
    int rc = 0;
    if (comm->size > 1 && share_todo(comm, todo, &n_todo, listed, max)) {
        /* The ranks no longer agree on the batch: no other exchange can be trusted. */
        fprintf(stderr, "rocesim %s: the ranks could not share the list of runs (MPI)\n", who);
        rc = -1;
        goto out;
    }
    int *mine = mem_xcalloc((size_t)n_todo + 1, sizeof *mine, POOL_OOM);
    int n_mine = 0;
    for (int k = 0; k < n_todo; k++)
        if (k % comm->size == comm->rank) {
            mine[n_mine++] = todo[k];
            runs[todo[k]].mine = true;
        }
    if (loop) {
        rc = run_local(loop, runs, mine, n_mine, jobs, timeout_s, progress, ops, who);
    } else {
        rc = -1;
        for (int k = 0; k < n_mine; k++)
            sfmt(runs[mine[k]].status, sizeof runs[mine[k]].status, "not started");
    }
    free(mine);
    if (comm->size > 1) {
        int own = rc;
        bool failed = gather_results(comm, runs, idx, n, listed, max, &rc, who) != 0;
        if (share) {
            failed |= share_results(comm, runs, idx, n, listed, max, &rc) != 0;
            /* Every rank stops at the same batch: the signal one rank got holds for all of them. */
            if (rc > 0 && !pending_signal)
                pending_signal = rc;
        } else {
            rc = own;
        }
        if (failed) {
            fprintf(stderr, "rocesim %s: the ranks could not exchange the runs' results (MPI)\n", who);
            rc = -1;
        }
    }
out:
    free(todo);
    free(listed);
    return rc;
}

/* Appends a, single-quoted for a shell when quote is set or when it holds anything but safe characters. */
static void sb_shell_word(struct sbuf *b, const char *a, bool quote)
{
    if (!quote && *a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") ==
                            strlen(a)) {
        sb_printf(b, "%s", a);
        return;
    }
    sb_printf(b, "'");
    for (const char *p = a; *p; p++)
        if (*p == '\'')
            sb_printf(b, "'\\''");
        else
            sb_printf(b, "%c", *p);
    sb_printf(b, "'");
}

/* See runpool.h. */
int pool_write_failures(const char *dir, const struct pool_run *runs, const int *failed, int n_failed, int n_total,
                        const struct pool_ops *ops)
{
    char path[4400];
    sfmt(path, sizeof path, "%s/failures.txt", dir);
    if (!n_failed)
        return unlink(path) && errno != ENOENT ? -1 : 0;
    struct sbuf b = {0};
    sb_printf(&b, "%d of %d runs failed.  Repeat one with the command shown to see all of its messages.\n", n_failed,
              n_total);
    for (int k = 0; k < n_failed; k++) {
        const struct pool_run *r = &runs[failed[k]];
        const char *name = strrchr(r->dir, '/');
        sb_printf(&b, "\n%s: %s\n ", name ? name + 1 : r->dir, r->status);
        char **argv = ops->argv(ops->ctx, failed[k]);
        for (char **a = argv; *a && strcmp(*a, "-o"); a++) {
            sb_printf(&b, " ");
            sb_shell_word(&b, *a, a > argv && strcmp(a[-1], "--set") == 0);
        }
        ops->free_argv(ops->ctx, argv);
        sb_printf(&b, "\n");
        for (const char *p = r->tail ? r->tail : ""; *p;) {
            const char *nl = strchr(p, '\n');
            int l = nl ? (int)(nl - p) : (int)strlen(p);
            sb_printf(&b, "  | %.*s\n", l, p);
            p += l + (nl != NULL);
        }
    }
    int rc = write_file_atomic(path, b.p, b.len);
    free(b.p);
    return rc;
}

/* See runpool.h. */
int pool_parse_cli(int argc, char **argv, const char *who, const char *usage, bool tune_opts, struct pool_cli *c,
                   bool loud)
{
    memset(c, 0, sizeof *c);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        bool jobs = strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0;
        if (jobs || (tune_opts && strcmp(a, "--budget") == 0)) {
            long lim = jobs ? 4096 : 100000;
            char *end;
            long n = next ? strtol(next, &end, 10) : 0;
            if (!next || *end || !*next || n < 1 || n > lim) {
                if (loud)
                    fprintf(stderr, "rocesim %s: %s expects a number of runs from 1 to %ld, got \"%s\"\n%s", who,
                            jobs ? "-j" : a, lim, next ? next : "", usage);
                return SCN_EUSAGE;
            }
            *(jobs ? &c->jobs : &c->budget) = (int)n;
            i++;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
            if (!next) {
                if (loud)
                    fprintf(stderr, "rocesim %s: %s needs a directory\n%s", who, a, usage);
                return SCN_EUSAGE;
            }
            c->out = next;
            i++;
        } else if (strcmp(a, "--timeout") == 0) {
            int64_t ps = 0;
            char e[256] = "";
            if (!next || units_parse_time(next, &ps, e, sizeof e) || ps <= 0) {
                if (loud)
                    fprintf(stderr, "rocesim %s: --timeout: %s\n%s", who,
                            next ? (ps <= 0 && !e[0] ? "expected a time above 0" : e) : "needs a time like \"30s\"",
                            usage);
                return SCN_EUSAGE;
            }
            c->timeout_s = (double)ps / (double)PS_PER_S;
            i++;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c->quiet = true;
        } else if (tune_opts && strcmp(a, "--no-plot") == 0) {
            c->no_plot = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (loud)
                fputs(usage, stdout);
            return -1;
        } else if (a[0] == '-' && a[1]) {
            if (loud)
                fprintf(stderr, "rocesim %s: unknown option \"%s\"\n%s", who, a, usage);
            return SCN_EUSAGE;
        } else if (!c->file) {
            c->file = a;
        } else {
            if (loud)
                fprintf(stderr, "rocesim %s: unexpected argument \"%s\"\n%s", who, a, usage);
            return SCN_EUSAGE;
        }
    }
    if (!c->file) {
        if (loud)
            fprintf(stderr, "rocesim %s: needs a %s file\n%s", who, who, usage);
        return SCN_EUSAGE;
    }
    return 0;
}

/* See runpool.h. */
void pool_default_out(const char *file, char *out, size_t len)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    sfmt(out, len, "out/%.*s", (int)n, base);
}

/* See runpool.h. */
const struct pool_comm *pool_comm_start(int *argc, char ***argv)
{
#ifdef ROCESIM_MPI
    const struct pool_comm *m = pool_mpi_init(argc, argv);
    if (m)
        return m;
#else
    (void)argc;
    (void)argv;
#endif
    return pool_local_comm();
}

/* See runpool.h. */
int pool_prepare(const struct pool_cli *cli, const char *who, char *dir, size_t len, bool root, struct dirlock *lock)
{
    char err[4600];
    struct mem_avail avail;
    bool loud = root;
    lock->fd = -1;
    if (limits_mem_available(&avail, err, sizeof err)) {
        if (loud)
            fprintf(stderr, "rocesim %s: %s\n", who, err);
        return SCN_EUSAGE;
    }
    if (cli->out)
        sfmt(dir, len, "%s", cli->out);
    else
        pool_default_out(cli->file, dir, len);
    int rc;
    if (root && (rc = dirlock_take(lock, dir, err, sizeof err))) {
        fprintf(stderr, "rocesim %s: %s\n", who, err);
        return rc;
    }
    char runs_dir[4200];
    sfmt(runs_dir, sizeof runs_dir, "%s/runs", dir);
    if (make_dirs(runs_dir)) {
        if (loud)
            fprintf(stderr, "rocesim %s: %s: cannot create directory: %s\n", who, runs_dir, strerror(errno));
        return SCN_EIO;
    }
    return 0;
}

