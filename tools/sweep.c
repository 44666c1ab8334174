/*
 * sweep — see sweep.h.
 *
 * The parent never simulates: it validates the sweep file, lists the runs in a
 * fixed order (grid point, last dimension fastest, then seed), starts the runs
 * that have no complete summary.json yet, and derives every output from the
 * summaries on disk.  Because results.csv is built from those files in that
 * fixed order, it is the same bytes however the runs were scheduled, on one
 * machine or over MPI ranks, in one go or over several reruns.
 */
#include "tools/sweep.h"
#include "tools/limits.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run.h"
#include "tools/sweep_out.h"
#include "tools/sweep_util.h"

#include <ctype.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 1000000
#define MAX_SETS 256
#define TAIL_BYTES 4096 /* stderr kept per run: enough for the last lines of any message */
#define TAIL_LINES 10

/* ------------------------------------------------------------------------ */
/* Loading the sweep file                                                    */

/* Writes "FILE: PATH: message" into the error buffer, in the scenario loader's wording; is SCN_EUSAGE. */
#define lbad(c, ...) (setting_bad((c), __VA_ARGS__), SCN_EUSAGE)

/* The scenario loader's wording for a JSON value in a "got ..." clause: one validator for both files. */
#define describe setting_describe

/* Splits a grid key "a,b" into trimmed paths; returns 0 or SCN_EUSAGE (bad path) with a message. */
static int parse_grid_key(struct setting_ctx *c, const char *key, struct sweep_dim *d, const char *where)
{
    char *copy = mem_xstrdup(key, SWEEP_OOM);
    int n = 1;
    for (const char *p = key; *p; p++)
        n += *p == ',';
    d->paths = mem_xcalloc((size_t)n, sizeof *d->paths, SWEEP_OOM);
    char *tok = copy;
    int k = 0;
    for (;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        while (isspace((unsigned char)*tok))
            tok++;
        size_t l = strlen(tok);
        while (l && isspace((unsigned char)tok[l - 1]))
            tok[--l] = '\0';
        if (!dotted_path_ok(tok)) {
            free(copy);
            return lbad(c, where, "expected a dotted scenario path like \"switch.ecn.kmin\" (or several joined by "
                                  "commas), got \"%.80s\"", key);
        }
        if (strcmp(tok, "seed") == 0) {
            free(copy);
            return lbad(c, where, "expected a scenario path other than \"seed\", got \"seed\" (list the seeds in "
                                  "\"seeds\")");
        }
        /* The settings tables know every field a path can name: a misspelt one is reported here, at its key. */
        char msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
        scn_register_settings();
        if (settings_check_path(tok, msg, sizeof msg, at, sizeof at) < 0) {
            free(copy);
            return lbad(c, where, "%s", msg);
        }
        d->paths[k++] = mem_xstrdup(tok, SWEEP_OOM);
        d->n_paths = k;
        if (!comma)
            break;
        tok = comma + 1;
    }
    free(copy);
    return 0;
}

/* Reads the values of one grid dimension; returns 0 or SCN_EUSAGE with a message. */
static int parse_grid_values(struct setting_ctx *c, const cJSON *arr, struct sweep_dim *d, const char *where)
{
    char got[128], p[600];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return lbad(c, where, "expected a non-empty array of values, got %s", describe(arr, got, sizeof got));
    d->n_values = cJSON_GetArraySize(arr);
    d->text = mem_xcalloc((size_t)d->n_values, sizeof *d->text, SWEEP_OOM);
    d->value = mem_xcalloc((size_t)d->n_values, sizeof *d->value, SWEEP_OOM);
    int v = 0;
    for (const cJSON *it = arr->child; it; it = it->next, v++) {
        sfmt(p, sizeof p, "%s[%d]", where, v);
        d->text[v] = mem_xcalloc((size_t)d->n_paths, sizeof **d->text, SWEEP_OOM);
        d->value[v] = mem_xcalloc((size_t)d->n_paths, sizeof **d->value, SWEEP_OOM);
        if (d->n_paths > 1 && (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != d->n_paths))
            return lbad(c, p, "expected an array of %d values (one for each of %s), got %s", d->n_paths, d->key,
                        describe(it, got, sizeof got));
        for (int k = 0; k < d->n_paths; k++) {
            cJSON *item = d->n_paths > 1 ? cJSON_GetArrayItem(it, k) : (cJSON *)it;
            d->value[v][k] = item;
            d->text[v][k] = cJSON_PrintUnformatted(item);
            if (!d->text[v][k])
                mem_oom("reading the sweep's parameters");
        }
        for (int u = 0; u < v; u++) {
            int same = 1;
            for (int k = 0; k < d->n_paths && same; k++)
                same = strcmp(d->text[u][k], d->text[v][k]) == 0;
            if (same)
                return lbad(c, p, "expected each value once, got %s again (it is also %s[%d])",
                            describe(it, got, sizeof got), where, u);
        }
    }
    return 0;
}

/* Reads "objective"; returns 0 or SCN_EUSAGE with a message (not exactly one of minimize/maximize, bad path). */
static int parse_objective(struct setting_ctx *c, const cJSON *o, struct sweep_spec *s)
{
    char got[128];
    if (!cJSON_IsObject(o) || cJSON_GetArraySize(o) != 1)
        return lbad(c, "objective", "expected {\"minimize\": \"flows.slowdown.p99\"} or {\"maximize\": ...}, got %s",
                    describe(o, got, sizeof got));
    const cJSON *it = o->child;
    if (strcmp(it->string, "minimize") && strcmp(it->string, "maximize"))
        return lbad(c, "objective", "expected the key \"minimize\" or \"maximize\", got \"%.60s\"", it->string);
    s->maximize = it->string[1] == 'a';
    char p[64];
    sfmt(p, sizeof p, "objective.%s", it->string);
    if (!cJSON_IsString(it) || !dotted_path_ok(it->valuestring) || strlen(it->valuestring) >= sizeof s->objective)
        return lbad(c, p, "expected a dotted path into summary.json like \"flows.slowdown.p99\", got %s",
                    describe(it, got, sizeof got));
    sfmt(s->objective, sizeof s->objective, "%s", it->valuestring);
    return 0;
}

/*
 * Checks that some grid point gives a valid scenario: when none does, the
 * grid itself is wrong (a misspelt path, say) and nothing should run.  Stops
 * at the first point that loads, so it usually costs one load.
 */
static int check_some_point_loads(struct setting_ctx *c, const struct sweep_spec *s)
{
    char first[SCN_ERR_MAX] = "";
    struct scn_override ov[MAX_SETS];
    for (int p = 0; p < s->n_points; p++) {
        int n = sweep_point_overrides(s, p, ov, MAX_SETS);
        struct scenario scn;
        char e[SCN_ERR_MAX];
        int rc = scn_load(s->scenario, ov, n, &scn, e, sizeof e);
        if (rc == 0) {
            scn_free(&scn);
            return 0;
        }
        if (rc != SCN_EUSAGE) {
            sfmt(c->err, c->errlen, "%s", e);
            return rc;
        }
        if (!*first)
            sfmt(first, sizeof first, "%s", e);
    }
    return lbad(c, "grid", "expected at least one grid point that gives a valid scenario, got none; the first "
                           "fails with: %s", first);
}

/*
 * Checks that the objective names a field summary.json has: a misspelt name
 * would otherwise show only after every run (it is also no column of
 * results.csv to pick from).  Whether a collective or priority of that index
 * exists depends on the runs and is still found out after them.
 */
static int check_objective_metric(struct setting_ctx *c, const struct sweep_spec *s)
{
    if (sweep_metric_known(s->objective))
        return 0;
    char hint[320], p[64];
    sweep_metric_hint(s->objective, hint, sizeof hint);
    sfmt(p, sizeof p, "objective.%s", s->maximize ? "maximize" : "minimize");
    bool n = strchr(hint, 'N') != NULL, pr = strchr(hint, 'P') != NULL;
    return lbad(c, p, "expected a numeric field of summary.json, got \"%.80s\", which no summary has; for example "
                      "%s%s%s%s%s", s->objective, hint, n || pr ? " (" : "", n ? "N: a collective's index" : "",
                n && pr ? ", " : "", pr ? "P: a priority 0-7)" : n ? ")" : "");
}

/* See sweep.h.  Checks in file order, so the first problem in the file is the one reported. */
int sweep_load(const char *file, struct sweep_spec *s, char *err, size_t errlen)
{
    static const char *const known[] = {"scenario", "grid", "seeds", "objective", "description", NULL};
    struct setting_ctx c = {.file = file, .err = err, .errlen = errlen};
    char got[128];
    memset(s, 0, sizeof *s);
    sfmt(s->file, sizeof s->file, "%s", file);
    char *text = NULL;
    int rrc = read_text_file(file, &text, err, errlen);
    if (rrc)
        return rrc;
    char *clean = strip_json_comments(text);
    free(text);
    s->root = scn_parse_json(file, clean, err, errlen); /* the scenario loader's rules for JSON text */
    free(clean);
    if (!s->root)
        return SCN_EUSAGE;
    int rc = 0;
    const cJSON *root = s->root;
    if (!cJSON_IsObject(root)) {
        rc = lbad(&c, "", "expected an object with \"scenario\", \"grid\", \"seeds\" and \"objective\", got %s",
                  describe(root, got, sizeof got));
        goto fail;
    }
    /* Duplicate keys and unknown fields: the scenario loader's checks and wording (sim/settings.h). */
    if (setting_check_dups(&c, root, "") < 0 || setting_check_fields(&c, root, "", known) < 0) {
        rc = SCN_EUSAGE;
        goto fail;
    }
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc)) {
        rc = lbad(&c, "description", "expected a string, got %s", describe(desc, got, sizeof got));
        goto fail;
    }
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsString(scn) || !*scn->valuestring) {
        rc = lbad(&c, "scenario", "expected the path of a scenario file, got %s", describe(scn, got, sizeof got));
        goto fail;
    }
    if ((rc = resolve_input_file(&c, "scenario", scn->valuestring, s->scenario, sizeof s->scenario)))
        goto fail;
    if ((rc = read_text_file(s->scenario, &s->scenario_text, err, errlen)))
        goto fail;

    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    if (!cJSON_IsObject(grid) || cJSON_GetArraySize(grid) == 0) {
        rc = lbad(&c, "grid", "expected an object of dotted paths to arrays of values, like {\"host.dcqcn.g\": "
                              "[0.0039, 0.0625]}, got %s", describe(grid, got, sizeof got));
        goto fail;
    }
    s->n_dims = cJSON_GetArraySize(grid);
    s->dims = mem_xcalloc((size_t)s->n_dims, sizeof *s->dims, SWEEP_OOM);
    long long points = 1;
    int d = 0;
    for (const cJSON *it = grid->child; it; it = it->next, d++) {
        struct sweep_dim *dim = &s->dims[d];
        char where[400];
        sfmt(where, sizeof where, "grid[\"%.300s\"]", it->string);
        dim->key = mem_xstrdup(it->string, SWEEP_OOM);
        if ((rc = parse_grid_key(&c, it->string, dim, where)) || (rc = parse_grid_values(&c, it, dim, where)))
            goto fail;
        for (int e = 0; e <= d; e++)
            for (int k = 0; k < s->dims[e].n_paths; k++)
                for (int m = 0; m < dim->n_paths; m++)
                    if ((e != d || k < m) && strcmp(s->dims[e].paths[k], dim->paths[m]) == 0) {
                        rc = lbad(&c, where, "expected each path once in the grid, got \"%s\" twice",
                                  dim->paths[m]);
                        goto fail;
                    }
        points *= dim->n_values;
        if (points > MAX_RUNS) {
            rc = lbad(&c, "grid", "expected at most %d grid points, got more", MAX_RUNS);
            goto fail;
        }
    }
    s->n_points = (int)points;

    /* The scenario must be valid on its own: its errors are best reported without any override. */
    struct scenario base;
    if ((rc = scn_load(s->scenario, NULL, 0, &base, err, errlen)))
        goto fail;
    uint64_t base_seed = base.seed;
    scn_free(&base);

    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(root, "seeds");
    if (seeds) {
        if ((rc = parse_seed_list(&c, seeds, "seeds", &s->seeds, &s->n_seeds)))
            goto fail;
    } else {
        s->n_seeds = 1;
        s->seeds = mem_xcalloc(1, sizeof *s->seeds, SWEEP_OOM);
        s->seeds[0] = base_seed;
    }
    if ((long long)s->n_points * s->n_seeds > MAX_RUNS) {
        rc = lbad(&c, "seeds", "expected at most %d runs (grid points x seeds), got %lld", MAX_RUNS,
                  (long long)s->n_points * s->n_seeds);
        goto fail;
    }
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "objective");
    if (!obj) {
        rc = lbad(&c, "objective", "expected {\"minimize\": \"flows.slowdown.p99\"} or {\"maximize\": ...}, got "
                                   "nothing");
        goto fail;
    }
    if ((rc = parse_objective(&c, obj, s)) || (rc = check_some_point_loads(&c, s)) ||
        (rc = check_objective_metric(&c, s)))
        goto fail;
    return 0;
fail:
    sweep_spec_free(s);
    return rc;
}

/* Frees everything sweep_load allocated and zeroes *s; safe on a zeroed struct. */
void sweep_spec_free(struct sweep_spec *s)
{
    for (int d = 0; s->dims && d < s->n_dims; d++) {
        struct sweep_dim *dim = &s->dims[d];
        for (int v = 0; dim->text && v < dim->n_values; v++) {
            for (int k = 0; dim->text[v] && k < dim->n_paths; k++)
                free(dim->text[v][k]);
            free(dim->text[v]);
            if (dim->value)
                free(dim->value[v]);
        }
        free(dim->text);
        free(dim->value);
        for (int k = 0; dim->paths && k < dim->n_paths; k++)
            free(dim->paths[k]);
        free(dim->paths);
        free(dim->key);
    }
    free(s->dims);
    free(s->seeds);
    free(s->scenario_text);
    cJSON_Delete(s->root);
    memset(s, 0, sizeof *s);
}

/* See sweep.h: the mixed-radix digit of p for dimension d. */
int sweep_point_value(const struct sweep_spec *s, int p, int d)
{
    for (int e = s->n_dims - 1; e > d; e--)
        p /= s->dims[e].n_values;
    return p % s->dims[d].n_values;
}

/* See sweep.h. */
int sweep_point_overrides(const struct sweep_spec *s, int p, struct scn_override *ov, int max)
{
    int n = 0;
    for (int d = 0; d < s->n_dims; d++) {
        int v = sweep_point_value(s, p, d);
        for (int k = 0; k < s->dims[d].n_paths; k++) {
            if (n == max)
                return -1;
            ov[n].path = s->dims[d].paths[k];
            ov[n].value = s->dims[d].text[v][k];
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* The list of runs                                                          */

enum run_state { RS_TODO, RS_DONE_BEFORE, RS_OK, RS_FAILED };

struct srun {
    int point, seed_i;
    char id[96];      /* runs/<id> */
    char dir[4300];
    enum run_state state;
    char status[64];  /* "ok", "exit 2", "signal SIGSEGV", "timeout", ... */
    char *summary;    /* summary.json text of a successful run */
    char *tail;       /* last lines of stderr of a failed run */
    bool mine;        /* this rank runs it */
};

/* 64-bit FNV-1a over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* See sweep.h. */
void sweep_point_id(const struct sweep_spec *s, int p, char *out, size_t len)
{
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, s->scenario_text, strlen(s->scenario_text) + 1);
    for (int d = 0; d < s->n_dims; d++) {
        int v = sweep_point_value(s, p, d);
        for (int k = 0; k < s->dims[d].n_paths; k++) {
            h = fnv1a(h, s->dims[d].paths[k], strlen(s->dims[d].paths[k]) + 1);
            h = fnv1a(h, s->dims[d].text[v][k], strlen(s->dims[d].text[v][k]) + 1);
        }
    }
    sfmt(out, len, "%016llx", (unsigned long long)h);
}

/*
 * Returns the text of dir/summary.json when it exists and says the run
 * completed, else NULL (a missing, half-written or foreign file).
 */
static char *complete_summary(const char *dir)
{
    char path[4400], e[64];
    sfmt(path, sizeof path, "%s/summary.json", dir);
    char *text = NULL;
    if (access(path, F_OK) || read_text_file(path, &text, e, sizeof e))
        return NULL;
    cJSON *j = cJSON_Parse(text);
    bool ok = j && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete"));
    cJSON_Delete(j);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* ------------------------------------------------------------------------ */
/* Running: children driven by libev                                         */

struct job;

struct runner {
    struct ev_loop *loop;
    struct srun *runs;
    int *todo;             /* indices into runs, in order */
    int n_todo, next, running, done, failed, jobs;
    double timeout_s;      /* 0 = none */
    const struct sweep_spec *spec;
    bool progress;
    int interrupted;       /* SIGINT or SIGTERM (its number): start nothing more, stop what runs */
    double t0;
    int shown;             /* characters of the progress line on screen */
    ev_timer redraw;
    ev_signal sigint_w, sigterm_w;
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

/* Monotonic wall time in seconds (progress and ETA only: never in results). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Formats seconds as m:ss or h:mm:ss; returns buf. */
static const char *hms(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        sfmt(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        sfmt(buf, len, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

/* Redraws the progress line (stderr is a terminal): done/total, failed, running, ETA. */
static void draw_progress(struct runner *R, bool final)
{
    if (!R->progress)
        return;
    char line[200], a[32], b[32];
    double el = now_s() - R->t0;
    if (final) {
        fprintf(stderr, "\r%*s\r", R->shown, "");
        R->shown = 0;
        return;
    }
    int n;
    if (R->done > 0)
        n = sfmt(line, sizeof line, "sweep: %d/%d runs done, %d failed, %d running, %s elapsed, ETA %s",
                     R->done, R->n_todo, R->failed, R->running, hms(el, a, sizeof a),
                     hms(el / R->done * (R->n_todo - R->done), b, sizeof b));
    else
        n = sfmt(line, sizeof line, "sweep: 0/%d runs done, %d running, %s elapsed", R->n_todo, R->running,
                     hms(el, a, sizeof a));
    fprintf(stderr, "\r%s%*s", line, R->shown > n ? R->shown - n : 0, "");
    fflush(stderr);
    R->shown = n;
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
    char *s = mem_xmalloc(j->tail_len + 1, SWEEP_OOM);
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

/* Both the exit and the end of stderr are in: record the run and free the slot. */
static void job_finish(struct job *j)
{
    struct runner *R = j->R;
    struct srun *r = &R->runs[j->run];
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
    } else if (!(r->summary = complete_summary(r->dir))) {
        sfmt(r->status, sizeof r->status, "no summary");
    } else {
        sfmt(r->status, sizeof r->status, "ok");
    }
    if (r->summary) {
        r->state = RS_OK;
    } else if (R->interrupted) {
        /* Not the run's fault: left to do, so that a rerun does it. */
        r->state = RS_TODO;
        sfmt(r->status, sizeof r->status, "interrupted");
    } else {
        r->state = RS_FAILED;
        r->tail = tail_text(j);
        R->failed++;
    }
    R->running--;
    R->done++;
    j->run = -1;
    start_more(R);
    if (R->running == 0 && (R->next == R->n_todo || R->interrupted))
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

/* The run took longer than --timeout: kill it (its exit is then recorded as "timeout"). */
static void timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct job *j = w->data;
    j->timed_out = true;
    kill(j->pid, SIGKILL);
}

/*
 * Starts run R->todo[R->next] in a free slot: fork, then exec of this binary
 * as `rocesim run`.  A run that cannot be started at all is recorded as failed.
 */
static void start_one(struct runner *R, struct job *j)
{
    int idx = R->todo[R->next++];
    struct srun *r = &R->runs[idx];
    const struct sweep_spec *s = R->spec;
    memset(j, 0, offsetof(struct job, tail));
    j->R = R;
    j->run = idx;
    j->fd = -1;
    j->tail_pos = j->tail_len = 0;

    /* argv is built before the fork: the child only calls async-signal-safe functions. */
    struct scn_override ov[MAX_SETS];
    int n = sweep_point_overrides(s, r->point, ov, MAX_SETS);
    char **argv = mem_xcalloc((size_t)(2 * n + 16), sizeof *argv, SWEEP_OOM);
    char **sets = mem_xcalloc((size_t)n + 1, sizeof *sets, SWEEP_OOM); /* the PATH=VALUE strings, freed after the fork */
    char seed[32];
    sfmt(seed, sizeof seed, "%llu", (unsigned long long)s->seeds[r->seed_i]);
    int a = 0;
    argv[a++] = "rocesim";
    argv[a++] = "run";
    argv[a++] = (char *)s->scenario;
    for (int i = 0; i < n; i++) {
        argv[a++] = "--set";
        size_t l = strlen(ov[i].path) + strlen(ov[i].value) + 2;
        sets[i] = mem_xmalloc(l, SWEEP_OOM);
        sfmt(sets[i], l, "%s=%s", ov[i].path, ov[i].value);
        argv[a++] = sets[i];
    }
    argv[a++] = "--seed";
    argv[a++] = seed;
    argv[a++] = "-o";
    argv[a++] = r->dir;
    argv[a++] = "-q";
    argv[a++] = "--no-plot";
    argv[a] = NULL;

    int pfd[2] = {-1, -1};
    pid_t pid = -1, parent = getpid();
    if (pipe2(pfd, O_CLOEXEC) == 0)
        pid = fork();
    if (pid == 0) {
        /* A sweep killed outright (SIGKILL, OOM killer) cannot stop its runs: the kernel does it.  The
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
        execv("/proc/self/exe", argv);
        static const char msg[] = "rocesim sweep: cannot execute /proc/self/exe\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(127);
    }
    for (int i = 0; i < n; i++)
        free(sets[i]);
    free(sets);
    free(argv);
    if (pid < 0) {
        int e = errno;
        if (pfd[0] >= 0) {
            close(pfd[0]);
            close(pfd[1]);
        }
        r->state = RS_FAILED;
        sfmt(r->status, sizeof r->status, "not started");
        size_t l = 128;
        r->tail = mem_xmalloc(l, SWEEP_OOM);
        sfmt(r->tail, l, "rocesim sweep: cannot start the run: %s", strerror(e));
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
    for (int k = 0; k < R->jobs && R->next < R->n_todo && !R->interrupted; k++)
        if (R->slots[k].run < 0)
            start_one(R, &R->slots[k]);
}

/*
 * SIGINT or SIGTERM: the children are stopped too (a run would otherwise go on
 * to the end unattended), and the loop ends once they are reaped, so that the
 * sweep can still write what is done.
 */
static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)revents;
    struct runner *R = w->data;
    R->interrupted = w->signum;
    for (int k = 0; k < R->jobs; k++)
        if (R->slots[k].run >= 0 && !R->slots[k].exited)
            kill(R->slots[k].pid, SIGTERM);
    if (R->running == 0)
        ev_break(loop, EVBREAK_ALL);
}

/*
 * Runs every run listed in todo, at most jobs at a time.  Returns 0, the
 * signal's number when interrupted by SIGINT/SIGTERM (the runs not finished
 * are left to do), or -1 when the event loop cannot be created (message on stderr).
 */
static int run_local(struct srun *runs, int *todo, int n_todo, int jobs, double timeout_s, bool progress,
                     const struct sweep_spec *spec)
{
    if (n_todo == 0)
        return 0;
    struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
    if (!loop) {
        fprintf(stderr, "rocesim sweep: cannot create the event loop (libev)\n");
        return -1;
    }
    struct runner R = {.loop = loop, .runs = runs, .todo = todo, .n_todo = n_todo, .jobs = jobs,
                       .timeout_s = timeout_s, .spec = spec, .progress = progress, .t0 = now_s()};
    R.slots = mem_xcalloc((size_t)jobs, sizeof *R.slots, SWEEP_OOM);
    for (int k = 0; k < jobs; k++)
        R.slots[k].run = -1;
    ev_timer_init(&R.redraw, redraw_cb, 0.25, 0.25);
    R.redraw.data = &R;
    if (progress)
        ev_timer_start(loop, &R.redraw);
    ev_signal_init(&R.sigint_w, signal_cb, SIGINT);
    ev_signal_init(&R.sigterm_w, signal_cb, SIGTERM);
    R.sigint_w.data = R.sigterm_w.data = &R;
    ev_signal_start(loop, &R.sigint_w);
    ev_signal_start(loop, &R.sigterm_w);
    /* A run that cannot even start leaves its slot free at once: loop until everything has run. */
    while ((R.next < R.n_todo && !R.interrupted) || R.running > 0) {
        start_more(&R);
        if (R.running > 0)
            ev_run(loop, 0);
    }
    ev_signal_stop(loop, &R.sigint_w);
    ev_signal_stop(loop, &R.sigterm_w);
    ev_timer_stop(loop, &R.redraw);
    draw_progress(&R, true);
    free(R.slots);
    return R.interrupted;
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */

static const char sweep_usage[] =
    "usage: rocesim sweep SWEEP.json [-j N] [-o DIR] [--timeout TIME] [-q]\n"
    "  -j N            runs at the same time (default: the number of online cores)\n"
    "  -o DIR          output directory (default out/<sweep file name>); runs already\n"
    "                  complete in DIR are not run again\n"
    "  --timeout TIME  stop a run that takes longer than TIME of wall time (e.g. 30s)\n"
    "  -q              no progress line\n"
    "See docs/sweep.md.\n";

struct sweep_cli {
    const char *file, *out;
    int jobs;
    double timeout_s;
    bool quiet;
};

/* Parses sweep's options; returns 0, or 2 with a message on stderr (printed when loud). */
static int sweep_parse(int argc, char **argv, struct sweep_cli *c, bool loud)
{
    memset(c, 0, sizeof *c);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
            char *end;
            long n = next ? strtol(next, &end, 10) : 0;
            if (!next || *end || !*next || n < 1 || n > 4096) {
                if (loud)
                    fprintf(stderr, "rocesim sweep: -j expects a number of runs from 1 to 4096, got \"%s\"\n%s",
                            next ? next : "", sweep_usage);
                return SCN_EUSAGE;
            }
            c->jobs = (int)n;
            i++;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
            if (!next) {
                if (loud)
                    fprintf(stderr, "rocesim sweep: %s needs a directory\n%s", a, sweep_usage);
                return SCN_EUSAGE;
            }
            c->out = next;
            i++;
        } else if (strcmp(a, "--timeout") == 0) {
            int64_t ps;
            char e[256];
            if (!next || units_parse_time(next, &ps, e, sizeof e) || ps <= 0) {
                if (loud)
                    fprintf(stderr, "rocesim sweep: --timeout: %s\n%s",
                            next ? (ps <= 0 && !e[0] ? "expected a time above 0" : e) : "needs a time like \"30s\"",
                            sweep_usage);
                return SCN_EUSAGE;
            }
            c->timeout_s = (double)ps / (double)PS_PER_S;
            i++;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c->quiet = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (loud)
                fputs(sweep_usage, stdout);
            return -1;
        } else if (a[0] == '-' && a[1]) {
            if (loud)
                fprintf(stderr, "rocesim sweep: unknown option \"%s\"\n%s", a, sweep_usage);
            return SCN_EUSAGE;
        } else if (!c->file) {
            c->file = a;
        } else {
            if (loud)
                fprintf(stderr, "rocesim sweep: unexpected argument \"%s\"\n%s", a, sweep_usage);
            return SCN_EUSAGE;
        }
    }
    if (!c->file) {
        if (loud)
            fprintf(stderr, "rocesim sweep: needs a sweep file\n%s", sweep_usage);
        return SCN_EUSAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Exchanging results between ranks                                          */

/* This rank's finished runs as JSON text (caller frees). */
static char *pack_results(const struct srun *runs, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        if (!runs[i].mine || (runs[i].state != RS_OK && runs[i].state != RS_FAILED))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "i", i);
        cJSON_AddStringToObject(o, "status", runs[i].status);
        if (runs[i].summary)
            cJSON_AddStringToObject(o, "summary", runs[i].summary);
        if (runs[i].tail)
            cJSON_AddStringToObject(o, "tail", runs[i].tail);
        cJSON_AddItemToArray(arr, o);
    }
    char *t = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    if (!t)
        mem_oom("writing the sweep's state");
    return t;
}

/*
 * Takes another rank's finished runs into runs[].  A summary that is not in
 * this machine's run directory yet (no shared file system) is written there,
 * so that a rerun on this machine skips it.  Returns 0, or -1 on a malformed buffer.
 */
static int unpack_results(struct srun *runs, int n, const char *buf, size_t len)
{
    cJSON *arr = cJSON_ParseWithLength(buf, len);
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(arr);
        return -1;
    }
    for (const cJSON *o = arr->child; o; o = o->next) {
        const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, "i");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "summary");
        const cJSON *tl = cJSON_GetObjectItemCaseSensitive(o, "tail");
        if (!cJSON_IsNumber(i) || i->valueint < 0 || i->valueint >= n || !cJSON_IsString(st))
            continue;
        struct srun *r = &runs[i->valueint];
        if (r->mine)
            continue;
        sfmt(r->status, sizeof r->status, "%s", st->valuestring);
        free(r->summary);
        free(r->tail);
        r->summary = cJSON_IsString(sm) ? mem_xstrdup(sm->valuestring, SWEEP_OOM) : NULL;
        r->tail = cJSON_IsString(tl) ? mem_xstrdup(tl->valuestring, SWEEP_OOM) : NULL;
        r->state = r->summary ? RS_OK : RS_FAILED;
        if (r->summary) {
            char path[4400];
            sfmt(path, sizeof path, "%s/summary.json", r->dir);
            if (access(path, F_OK) != 0 && make_dirs(r->dir) == 0)
                write_file_atomic(path, r->summary, strlen(r->summary));
        }
    }
    cJSON_Delete(arr);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                   */

/* Online cores, at least 1. */
static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

/* Default output directory: out/<sweep file name without .json>. */
static void default_out(const char *file, char *out, size_t len)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    sfmt(out, len, "out/%.*s", (int)n, base);
}

/* Saves DIR/sweep.json: the sweep file with its scenario path usable from the current directory. */
static int save_sweep_copy(const struct sweep_spec *s, const char *dir)
{
    cJSON *c = cJSON_Duplicate(s->root, 1);
    char abs[PATH_MAX];
    const char *scn = realpath(s->scenario, abs) ? abs : s->scenario;
    cJSON_ReplaceItemInObjectCaseSensitive(c, "scenario", cJSON_CreateString(scn));
    char *t = cJSON_Print(c);
    cJSON_Delete(c);
    if (!t)
        mem_oom("writing the sweep's state");
    char path[4400];
    sfmt(path, sizeof path, "%s/sweep.json", dir);
    size_t l = strlen(t);
    t = mem_xrealloc(t, l + 2, SWEEP_OOM);
    t[l] = '\n';
    t[l + 1] = '\0';
    int rc = write_file_atomic(path, t, l + 1);
    free(t);
    return rc;
}

/* Writes DIR/failures.txt listing the failed runs, or removes a stale one.  Returns 0 or -1 (errno). */
static int write_failures(const struct sweep_spec *s, const struct srun *runs, int n, const char *dir)
{
    char path[4400];
    sfmt(path, sizeof path, "%s/failures.txt", dir);
    struct sbuf b = {0};
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed += runs[i].state == RS_FAILED;
    if (!failed) {
        if (unlink(path) && errno != ENOENT)
            return -1;
        return 0;
    }
    sb_printf(&b, "%d of %d runs failed.  Repeat one with the command shown to see all of its messages.\n", failed,
              n);
    for (int i = 0; i < n; i++) {
        const struct srun *r = &runs[i];
        if (r->state != RS_FAILED)
            continue;
        sb_printf(&b, "\n%s: %s\n  rocesim run %s", r->id, r->status, s->scenario);
        struct scn_override ov[MAX_SETS];
        int k = sweep_point_overrides(s, r->point, ov, MAX_SETS);
        for (int m = 0; m < k; m++)
            sb_printf(&b, " --set '%s=%s'", ov[m].path, ov[m].value);
        sb_printf(&b, " --seed %llu\n", (unsigned long long)s->seeds[r->seed_i]);
        if (r->tail && *r->tail) {
            const char *p = r->tail;
            while (*p) {
                const char *nl = strchr(p, '\n');
                int l = nl ? (int)(nl - p) : (int)strlen(p);
                sb_printf(&b, "  | %.*s\n", l, p);
                p += l + (nl != NULL);
            }
        }
    }
    int rc = write_file_atomic(path, b.p, b.len);
    free(b.p);
    return rc;
}

/*
 * Builds the results table from the runs and writes results.csv, best.json,
 * failures.txt and the plots (runs_done and incomplete: see sweep_best_write).
 * Returns 0, SCN_EUSAGE when the objective is no numeric field of any summary
 * (message on stderr), or SCN_EIO.
 */
static int write_outputs(const struct sweep_spec *s, struct srun *runs, int n, const char *dir, int runs_done,
                         const char *incomplete, struct sweep_best *best, char *plots_line, size_t plots_len)
{
    struct sweep_table t;
    const char **summaries = mem_xcalloc((size_t)n, sizeof *summaries, SWEEP_OOM);
    const char **status = mem_xcalloc((size_t)n, sizeof *status, SWEEP_OOM);
    int *point = mem_xcalloc((size_t)n, sizeof *point, SWEEP_OOM), *seed_i = mem_xcalloc((size_t)n, sizeof *seed_i, SWEEP_OOM);
    for (int i = 0; i < n; i++) {
        summaries[i] = runs[i].summary;
        status[i] = runs[i].status;
        point[i] = runs[i].point;
        seed_i[i] = runs[i].seed_i;
    }
    sweep_table_build(&t, s, n, point, seed_i, status, summaries);
    free(summaries);
    free(status);
    free(point);
    free(seed_i);

    int rc = 0;
    char path[4400];
    char *csv = sweep_table_csv(&t, s);
    sfmt(path, sizeof path, "%s/results.csv", dir);
    if (write_file_atomic(path, csv, strlen(csv))) {
        fprintf(stderr, "rocesim sweep: %s: cannot write: %s\n", path, strerror(errno));
        rc = SCN_EIO;
    }
    free(csv);
    if (!rc && write_failures(s, runs, n, dir)) {
        fprintf(stderr, "rocesim sweep: %s/failures.txt: cannot write: %s\n", dir, strerror(errno));
        rc = SCN_EIO;
    }
    if (!rc)
        rc = sweep_best_write(&t, s, dir, runs_done, incomplete, best);
    if (!rc || rc == SCN_EUSAGE) {
        int prc = sweep_plots(&t, s, best->found ? best->point : -1, dir, plots_line, plots_len);
        if (!rc)
            rc = prc;
    }
    sweep_table_free(&t);
    return rc;
}

/* The short human summary on stdout. */
static void print_summary(const struct sweep_spec *s, const struct srun *runs, int n, double wall, const char *dir,
                          const struct sweep_best *best, const char *plots_line)
{
    int ok = 0, failed = 0, before = 0, started = 0;
    for (int i = 0; i < n; i++) {
        ok += runs[i].state == RS_OK || runs[i].state == RS_DONE_BEFORE;
        failed += runs[i].state == RS_FAILED;
        before += runs[i].state == RS_DONE_BEFORE;
        started += runs[i].state != RS_DONE_BEFORE && runs[i].status[0];
    }
    printf("sweep %s: %d runs (%d grid points x %d seeds): %d ok, %d failed; %d already done, %d started; %.2f s\n",
           s->file, n, s->n_points, s->n_seeds, ok, failed, before, started, wall);
    if (best->found) {
        int left = 0;
        for (int i = 0; i < n; i++)
            left += runs[i].state == RS_TODO;
        if (left)
            printf("  best so far, from %d of %d runs (best.json says \"complete\": false):\n", n - left, n);
        printf("  best: point %d (%s), %s %s mean %.6g (min %.6g, max %.6g, stddev %.3g over %d seeds) at", best->point,
               best->id,
               s->maximize ? "maximize" : "minimize", s->objective, best->mean, best->min, best->max,
               best->stddev, best->n);
        struct scn_override ov[MAX_SETS];
        int k = sweep_point_overrides(s, best->point, ov, MAX_SETS);
        for (int m = 0; m < k; m++)
            printf(" %s=%s", ov[m].path, ov[m].value);
        printf("\n");
    }
    printf("  outputs: %s/ (results.csv%s%s, runs/)\n", dir, best->found ? ", best.json" : "",
           failed ? ", failures.txt" : "");
    if (*plots_line)
        printf("  plots: %s\n", plots_line);
}

/* One process agrees with itself: nothing to exchange.  Returns 0. */
static int local_agree(int *rc)
{
    (void)rc;
    return 0;
}

static const struct sweep_comm local_comm = {.rank = 0, .size = 1, .local_size = 1, .agree = local_agree};

/* See sweep.h. */
int sweep_main(int argc, char **argv)
{
    const struct sweep_comm *comm = &local_comm;
#ifdef ROCESIM_MPI
    const struct sweep_comm *m = sweep_mpi_init(&argc, &argv);
    if (m)
        comm = m;
#endif
    bool root = comm->rank == 0;
    double t0 = now_s();
    struct sweep_cli cli;
    int rc = sweep_parse(argc, argv, &cli, root);
    if (rc == -1) {
        if (comm->finish)
            comm->finish();
        return 0;
    }
    struct sweep_spec spec;
    memset(&spec, 0, sizeof spec);
    char err[SCN_ERR_MAX + 256] = "";
    if (!rc) {
        rc = sweep_load(cli.file, &spec, err, sizeof err);
        if (rc && root)
            fprintf(stderr, "rocesim sweep: %s\n", err);
    }
    if (!rc) {
        /* Every run would refuse a bad $ROCESIM_MEM_AVAILABLE: say it once, before any run starts. */
        struct mem_avail avail;
        rc = limits_mem_available(&avail, err, sizeof err);
        if (rc && root)
            fprintf(stderr, "rocesim sweep: %s\n", err);
    }
    char dir[4096];
    if (!rc) {
        if (cli.out)
            sfmt(dir, sizeof dir, "%s", cli.out);
        else
            default_out(cli.file, dir, sizeof dir);
        char runs_dir[4200];
        sfmt(runs_dir, sizeof runs_dir, "%s/runs", dir);
        if (make_dirs(runs_dir)) {
            fprintf(stderr, "rocesim sweep: %s: cannot create directory: %s\n", runs_dir, strerror(errno));
            rc = SCN_EIO;
        }
    }
    if (comm->agree(&rc) || rc) {
        if (!rc)
            rc = SCN_EIO;
        sweep_spec_free(&spec); /* this rank may have loaded it while another could not */
        goto out_nospec;
    }

    int n = spec.n_points * spec.n_seeds;
    struct srun *runs = mem_xcalloc((size_t)n, sizeof *runs, SWEEP_OOM);
    for (int p = 0; p < spec.n_points; p++) {
        char id[64];
        sweep_point_id(&spec, p, id, sizeof id);
        for (int k = 0; k < spec.n_seeds; k++) {
            struct srun *r = &runs[p * spec.n_seeds + k];
            r->point = p;
            r->seed_i = k;
            sfmt(r->id, sizeof r->id, "%s-s%llu", id, (unsigned long long)spec.seeds[k]);
            sfmt(r->dir, sizeof r->dir, "%s/runs/%s", dir, r->id);
        }
    }

    /* Rank 0 decides what is left to do (its directory is the one that counts) and deals it out. */
    int *todo = mem_xcalloc((size_t)n + 1, sizeof *todo, SWEEP_OOM);
    int n_todo = 0;
    if (root) {
        for (int i = 0; i < n; i++) {
            if ((runs[i].summary = complete_summary(runs[i].dir))) {
                runs[i].state = RS_DONE_BEFORE;
                sfmt(runs[i].status, sizeof runs[i].status, "ok");
            } else {
                todo[n_todo++] = i;
            }
        }
    }
    if (comm->size > 1) {
        char *buf = NULL;
        size_t len = 0;
        if (root) {
            struct sbuf b = {0};
            for (int i = 0; i < n_todo; i++)
                sb_printf(&b, "%d\n", todo[i]);
            sb_printf(&b, "end\n");
            buf = b.p;
            len = b.len;
        }
        if (comm->bcast(&buf, &len)) {
            rc = SCN_EIO;
            free(buf);
            goto out;
        }
        if (!root) {
            n_todo = 0;
            for (char *p = buf; p < buf + len && strncmp(p, "end", 3);) {
                long v = strtol(p, &p, 10);
                if (v >= 0 && v < n)
                    todo[n_todo++] = (int)v;
                while (p < buf + len && *p == '\n')
                    p++;
            }
        }
        free(buf);
    }
    int *mine = mem_xcalloc((size_t)n_todo + 1, sizeof *mine, SWEEP_OOM);
    int n_mine = 0;
    for (int k = 0; k < n_todo; k++)
        if (k % comm->size == comm->rank) {
            mine[n_mine++] = todo[k];
            runs[todo[k]].mine = true;
        }
    int jobs = cli.jobs ? cli.jobs : online_cores() / (comm->local_size > 0 ? comm->local_size : 1);
    if (jobs < 1)
        jobs = 1;
    bool progress = root && !cli.quiet && isatty(2);
    int lrc = run_local(runs, mine, n_mine, jobs, cli.timeout_s, progress, &spec);
    int interrupted = lrc > 0 ? lrc : 0;
    if (lrc < 0)
        rc = SCN_EIO;
    free(mine);

    if (comm->size > 1) {
        char *packed = pack_results(runs, n);
        char **all = NULL;
        size_t *lens = NULL;
        if (comm->gather(packed, strlen(packed), &all, &lens))
            rc = SCN_EIO;
        free(packed);
        if (root && all) {
            for (int r = 1; r < comm->size; r++) {
                if (unpack_results(runs, n, all[r], lens[r]))
                    fprintf(stderr, "rocesim sweep: rank %d sent malformed results\n", r);
                free(all[r]);
            }
            free(all[0]);
        }
        free(all);
        free(lens);
    }

    if (root) {
        struct sweep_best best = {0};
        char plots_line[1024] = "", why[160] = "";
        int failed = 0, left = 0;
        for (int i = 0; i < n; i++) {
            failed += runs[i].state == RS_FAILED;
            left += runs[i].state == RS_TODO;
        }
        if (left && interrupted)
            sfmt(why, sizeof why, "interrupted by SIG%s with %d of %d runs not done; the same command finishes them",
                 sigabbrev_np(interrupted) ? sigabbrev_np(interrupted) : "?", left, n);
        else if (left)
            sfmt(why, sizeof why, "%d of %d runs not done; the same command finishes them", left, n);
        int orc = save_sweep_copy(&spec, dir) ? SCN_EIO : 0;
        if (orc)
            fprintf(stderr, "rocesim sweep: %s/sweep.json: cannot write: %s\n", dir, strerror(errno));
        else
            orc = write_outputs(&spec, runs, n, dir, n - left, left ? why : NULL, &best, plots_line,
                                sizeof plots_line);
        print_summary(&spec, runs, n, now_s() - t0, dir, &best, plots_line);
        if (failed && !orc)
            fprintf(stderr, "rocesim sweep: %d of %d runs failed; see %s/failures.txt\n", failed, n, dir);
        if (left)
            fprintf(stderr, "rocesim sweep: %s: %d runs not done; the same command finishes them\n",
                    interrupted ? "interrupted" : "incomplete", left);
        if (!rc)
            rc = interrupted ? 130 : orc ? orc : failed || left ? 1 : 0;
    }
out:
    for (int i = 0; i < n; i++) {
        free(runs[i].summary);
        free(runs[i].tail);
    }
    free(runs);
    free(todo);
    sweep_spec_free(&spec);
out_nospec:
    if (comm->size > 1)
        comm->agree(&rc);
    if (comm->finish)
        comm->finish();
    return rc;
}

/* See sweep.h. */
int sweep_replot(const char *dir, char *line, size_t linelen, char *err, size_t errlen)
{
    char file[4400];
    sfmt(file, sizeof file, "%s/sweep.json", dir);
    if (access(file, F_OK)) {
        sfmt(err, errlen, "%s: expected the output directory of a sweep, got no sweep.json in it", dir);
        return SCN_EUSAGE;
    }
    struct sweep_spec spec;
    int rc = sweep_load(file, &spec, err, errlen);
    if (rc)
        return rc;
    int n = spec.n_points * spec.n_seeds;
    char **summaries = mem_xcalloc((size_t)n, sizeof *summaries, SWEEP_OOM);
    const char **status = mem_xcalloc((size_t)n, sizeof *status, SWEEP_OOM);
    int *point = mem_xcalloc((size_t)n, sizeof *point, SWEEP_OOM), *seed_i = mem_xcalloc((size_t)n, sizeof *seed_i, SWEEP_OOM);
    for (int p = 0; p < spec.n_points; p++) {
        char id[64], rdir[4400];
        sweep_point_id(&spec, p, id, sizeof id);
        for (int k = 0; k < spec.n_seeds; k++) {
            int i = p * spec.n_seeds + k;
            sfmt(rdir, sizeof rdir, "%s/runs/%s-s%llu", dir, id, (unsigned long long)spec.seeds[k]);
            summaries[i] = complete_summary(rdir);
            status[i] = summaries[i] ? "ok" : "not run";
            point[i] = p;
            seed_i[i] = k;
        }
    }
    struct sweep_table t;
    sweep_table_build(&t, &spec, n, point, seed_i, status, (const char *const *)summaries);
    struct sweep_best best;
    sweep_best_write(&t, &spec, NULL, n, NULL, &best);
    rc = sweep_plots(&t, &spec, best.found ? best.point : -1, dir, line, linelen);
    if (rc)
        sfmt(err, errlen, "%s/plots: cannot write the plot files", dir);
    sweep_table_free(&t);
    for (int i = 0; i < n; i++)
        free(summaries[i]);
    free(summaries);
    free(status);
    free(point);
    free(seed_i);
    sweep_spec_free(&spec);
    return rc;
}

/* See sweep.h. */
bool sweep_is_dir(const char *dir)
{
    char file[4400];
    sfmt(file, sizeof file, "%s/sweep.json", dir);
    return access(file, F_OK) == 0;
}

/* See sweep.h. */
int sweep_plot_main(const char *dir)
{
    char line[1024] = "", err[SCN_ERR_MAX + 4400];
    int rc = sweep_replot(dir, line, sizeof line, err, sizeof err);
    if (rc)
        fprintf(stderr, "rocesim plot: %s\n", err);
    else
        printf("plots: %s\n", line);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* best.json as input (nic-config --from)                                    */

int sweep_best_overrides(const char *best_file, bool allow_incomplete, struct scn_override *ov, int n, int max,
                         cJSON **keep, char *scenario, size_t scenario_len, char *err, size_t errlen)
{
    char *text = NULL;
    *keep = NULL;
    if (read_text_file(best_file, &text, err, errlen))
        return -1;
    cJSON *j = cJSON_Parse(text);
    free(text);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "parameters");
    if (!cJSON_IsObject(params)) {
        sfmt(err, errlen, "%s: parameters: expected the best.json of a sweep (an object of parameter values), "
                              "got %s", best_file, j ? "no such field" : "a file that is not JSON");
        cJSON_Delete(j);
        return -1;
    }
    /* A best.json older than the "complete" mark is taken as it is: there is no telling. */
    const cJSON *complete = cJSON_GetObjectItemCaseSensitive(j, "complete");
    if (cJSON_IsFalse(complete) && !allow_incomplete) {
        const cJSON *done = cJSON_GetObjectItemCaseSensitive(j, "runs_done");
        const cJSON *total = cJSON_GetObjectItemCaseSensitive(j, "runs_total");
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(j, "incomplete_reason");
        char based[64] = "some";
        if (cJSON_IsNumber(done) && cJSON_IsNumber(total))
            sfmt(based, sizeof based, "%d of %d", done->valueint, total->valueint);
        sfmt(err, errlen, "%s: complete: expected the best.json of a finished sweep, got one from %s runs (%s); "
                          "rerun the sweep to finish it, or pass --allow-incomplete to use this point anyway",
             best_file, based, cJSON_IsString(why) ? why->valuestring : "incomplete");
        cJSON_Delete(j);
        return -1;
    }
    cJSON *hold = cJSON_AddArrayToObject(j, "value texts");
    for (cJSON *it = params->child; it; it = it->next) {
        if (n == max) {
            sfmt(err, errlen, "%s: parameters: expected at most %d values, got more", best_file, max);
            cJSON_Delete(j);
            return -1;
        }
        char *v = cJSON_PrintUnformatted(it);
        if (!v)
            mem_oom("reading best.json");
        /* The value text lives in the tree the caller keeps, so ov can point at it. */
        cJSON *holder = cJSON_CreateString(v);
        free(v);
        cJSON_AddItemToArray(hold, holder);
        ov[n].path = it->string;
        ov[n].value = holder->valuestring;
        n++;
    }
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(j, "scenario");
    if (scenario && scenario_len)
        sfmt(scenario, scenario_len, "%s", cJSON_IsString(scn) ? scn->valuestring : "");
    *keep = j;
    return n;
}
