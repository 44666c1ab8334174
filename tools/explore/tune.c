/*
 * tune — the search (see tune.h; the algorithm and its sources are in docs/tune.md).
 *
 *  1. The baseline and the first WARMUP points of a scrambled Sobol sequence
 *     (Sobol 1967, GSL's gsl_qrng_sobol; shifted modulo 1 by the search seed, a
 *     Cranley-Patterson rotation) run on every seed.
 *  2. Design: further Sobol points, `batch` at a time, race against the best
 *     candidate so far on common seeds, one seed per round, the seed that has
 *     separated the candidates most first; a candidate whose mean over the seeds
 *     it has run is worse than the best's mean over the same seeds drops out
 *     (the intensification of SMAC, Hutter, Hoos and Leyton-Brown, LION 2011:
 *     successive halving where the cut is by comparison with the incumbent).
 *  3. Local: from the best design point, a derivative-free optimizer of NLopt
 *     (Subplex, Rowan 1990, by default) over the unit cube of the ranged
 *     parameters; every point it asks for races the same way.  Steps 2 and 3
 *     alternate until the budget of runs is spent.
 * Every candidate that survives runs on every seed (common random numbers),
 * so candidates compare pairwise; best.json reports the winner against the
 * baseline with Student's paired t test (tools/common/stats.h).
 */
#include "tools/explore/tune.h"
#include "tools/common/files.h"
#include "tools/common/jsonout.h"
#include "tools/explore/runpool.h"
#include "tools/common/stats.h"
#include "tools/explore/sweep_out.h"
#include "tools/common/text.h"
#include "tools/explore/tune_plot.h"
#include "tools/common/dirlock.h"
#include "tools/common/signals.h"
#include "tools/run/limits.h"
#include "sim/file.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <gsl/gsl_qrng.h>
#include <math.h>
#include <nlopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARMUP 2          /* design points run on every seed before racing: the seed order is learnt from them */
#define MAX_REJECT 10000  /* Sobol points in a row that "require" may refuse before the design is over */
#define N_METRICS (2 + TUNE_MAX_CONS)

enum phase { PH_BASELINE, PH_DESIGN, PH_LOCAL, PH_CONFIRM };
static const char *const phase_name[] = {"baseline", "design", "local", "confirm"};

struct cand {
    double u[TUNE_MAX_PARAMS];   /* unit-cube coordinates (a choice: its index) */
    double x[TUNE_MAX_PARAMS];   /* the values run, in base units (a choice: its index) */
    char *text[TUNE_MAX_PARAMS]; /* the --set values */
    char id[24];
    enum phase phase;
    int run[TUNE_MAX_SEEDS];     /* index of its run per seed, -1 */
    int crun[TUNE_MAX_SEEDS];    /* confirmation runs */
    double v[N_METRICS][TUNE_MAX_SEEDS];  /* objectives then constraints, per seed */
    double cvv[N_METRICS][TUNE_MAX_SEEDS]; /* objectives then constraints on the confirmation seeds */
    bool done[TUNE_MAX_SEEDS];
    int n_done;
    bool failed, dropped, full, feasible, cut; /* cut: the budget ended before its race did */
    double mean[N_METRICS];
    double finished_at;          /* runs used when it was decided (plots) */
};

struct tuner {
    struct tune_spec *s;
    const struct pool_comm *comm;
    const char *dir;
    int jobs;
    double timeout_s;
    bool progress;
    struct cand *c;
    int n_c, cap_c;
    struct pool_run *runs;
    int *run_cand, *run_seed;    /* run_seed: seed index, or -1 - confirmation seed index */
    bool *run_failed;            /* failed or without its objective: counted in failed_runs, in failures.txt */
    int n_runs, cap_runs;
    int budget, used, failed_runs;
    int incumbent;               /* single objective: best full feasible candidate, -1 */
    int order[TUNE_MAX_SEEDS];
    int interrupted;             /* a signal number */
    bool comm_error;
    gsl_qrng *q;
    double shift[TUNE_MAX_PARAMS];
    bool design_over;
    int last_local;
    double *conv_runs, *conv_best;
    int n_conv, cap_conv;
    double t0;
    enum phase phase;
};

/* ------------------------------------------------------------------------ */
/* Candidates                                                                */

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Names a candidate by its settings (and the scenario's text): a rerun finds its runs, an edit never reuses them. */
static void cand_name(const struct tuner *T, struct cand *c, bool baseline)
{
    const struct tune_spec *s = T->s;
    uint64_t h = fnv1a(1469598103934665603ULL, s->scenario_text, strlen(s->scenario_text));
    int n = baseline ? s->n_base : s->n_params;
    for (int i = 0; i < n; i++) {
        const char *p = baseline ? s->base_path[i] : s->params[i].path;
        const char *v = baseline ? s->base_text[i] : c->text[i];
        h = fnv1a(h, p, strlen(p) + 1);
        h = fnv1a(h, v, strlen(v) + 1);
    }
    sfmt(c->id, sizeof c->id, "%016llx", (unsigned long long)h);
}

static struct cand *cand_new(struct tuner *T, enum phase ph)
{
    if (T->n_c == T->cap_c) {
        T->cap_c = T->cap_c ? 2 * T->cap_c : 64;
        T->c = mem_xrealloc(T->c, (size_t)T->cap_c * sizeof *T->c, "in tune");
    }
    struct cand *c = &T->c[T->n_c];
    memset(c, 0, sizeof *c);
    c->phase = ph;
    for (int k = 0; k < TUNE_MAX_SEEDS; k++)
        c->run[k] = c->crun[k] = -1;
    /* NAN: not run.  The confirmation's values too: a tune stopped before its confirmation must not find zeros
     * there and report them as results. */
    for (int m = 0; m < N_METRICS; m++)
        for (int k = 0; k < TUNE_MAX_SEEDS; k++)
            c->v[m][k] = c->cvv[m][k] = NAN;
    for (int m = 0; m < N_METRICS; m++)
        c->mean[m] = NAN;
    return c;
}

/* The candidate at unit-cube point u: rounded values, their texts, its name.  Returns its index; when a candidate
 * with the same settings exists, that one's index with *existing true (nothing is added); -1 when the "require"
 * rules refuse the point. */
static int cand_at(struct tuner *T, const double *u, enum phase ph, bool *existing)
{
    const struct tune_spec *s = T->s;
    struct cand *c = cand_new(T, ph);
    *existing = false;
    for (int i = 0; i < s->n_params; i++) {
        const struct tune_param *p = &s->params[i];
        double w = u[i] < 0 ? 0 : u[i] > 1 ? 1 : u[i], x;
        c->u[i] = w;
        switch (p->scale) {
        case TUNE_LOG:
            x = p->lo * pow(p->hi / p->lo, w);
            break;
        case TUNE_INT:
            x = floor(p->lo + w * (p->hi - p->lo + 1));
            break;
        case TUNE_CHOICE:
            x = floor(w * p->n_choices);
            break;
        default:
            x = p->lo + w * (p->hi - p->lo);
        }
        if (x > p->hi)
            x = p->hi;
        char t[256];
        tune_value_text(p, x, t, sizeof t, &c->x[i]);
        c->text[i] = mem_xstrdup(t, "in tune");
    }
    bool ok = tune_required_ok(s, c->x);
    if (ok)
        cand_name(T, c, false);
    for (int j = 0; ok && j < T->n_c; j++)
        if (T->c[j].phase != PH_BASELINE && strcmp(T->c[j].id, c->id) == 0) {
            *existing = true;
            for (int i = 0; i < s->n_params; i++)
                free(c->text[i]);
            return j;
        }
    if (!ok) {
        for (int i = 0; i < s->n_params; i++)
            free(c->text[i]);
        return -1;
    }
    return T->n_c++;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                   */

/* The metrics of one finished run, added to its summary as "tune_metrics" (see runpool.h, pool_ops.after):
 * runs on the rank whose disk holds the run's flows.csv. */
static char *after_run(void *ctx, int i, const char *dir, const char *summary, char *err, size_t errlen)
{
    (void)i;
    struct tuner *T = ctx;
    const struct tune_spec *s = T->s;
    cJSON *j = cJSON_Parse(summary);
    if (!j) {
        sfmt(err, errlen, "%s/summary.json: not JSON", dir);
        return NULL;
    }
    char *csv = NULL;
    struct flowset_result fr[N_METRICS];
    cJSON *arr = cJSON_CreateArray();
    int n = s->n_obj + s->n_cons;
    for (int m = 0; m < n; m++) {
        const struct tune_metric *mt = m < s->n_obj ? &s->obj[m] : &s->cons[m - s->n_obj];
        double val = NAN;
        if (mt->subset) {
            char path[4400], e[SCN_ERR_MAX];
            if (!csv) {
                sfmt(path, sizeof path, "%s/flows.csv", dir);
                if (read_text_file(path, &csv, e, sizeof e)) {
                    sfmt(err, errlen, "%s", e);
                    cJSON_Delete(arr);
                    cJSON_Delete(j);
                    return NULL;
                }
            }
            if (flowset_compute(mt->filtered ? &mt->flows : NULL, csv, &fr[m], e, sizeof e)) {
                sfmt(err, errlen, "%s/flows.csv: %s", dir, e);
                free(csv);
                cJSON_Delete(arr);
                cJSON_Delete(j);
                return NULL;
            }
            if (!flowset_value(&fr[m], mt->name, &val))
                val = NAN;
        } else {
            const cJSON *v = json_at_path(j, mt->name);
            val = cJSON_IsNumber(v) ? v->valuedouble : cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? 1 : 0) : NAN;
        }
        cJSON_AddItemToArray(arr, isnan(val) ? cJSON_CreateNull() : cJSON_CreateNumber(val));
    }
    free(csv);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "tune_metrics");
    cJSON_AddItemToObject(j, "tune_metrics", arr);
    char *out = jsonout_print(j); /* exact: cJSON's printing may drop a metric's last bit (tools/common/jsonout.h) */
    cJSON_Delete(j);
    if (!out)
        mem_oom("reading a run's results");
    return out;
}

static char **run_argv(void *ctx, int i)
{
    struct tuner *T = ctx;
    const struct tune_spec *s = T->s;
    const struct cand *c = &T->c[T->run_cand[i]];
    bool base = c->phase == PH_BASELINE;
    int n = base ? s->n_base : s->n_params;
    char **argv = mem_xcalloc((size_t)(2 * n + 16), sizeof *argv, "in tune");
    int a = 0;
    argv[a++] = mem_xstrdup("rocesim", "in tune");
    argv[a++] = mem_xstrdup("run", "in tune");
    argv[a++] = mem_xstrdup(s->scenario, "in tune");
    for (int k = 0; k < n; k++) {
        const char *p = base ? s->base_path[k] : s->params[k].path;
        const char *v = base ? s->base_text[k] : c->text[k];
        size_t l = strlen(p) + strlen(v) + 2;
        argv[a++] = mem_xstrdup("--set", "in tune");
        argv[a] = mem_xmalloc(l, "in tune");
        sfmt(argv[a++], l, "%s=%s", p, v);
    }
    int si = T->run_seed[i];
    uint64_t seed = si >= 0 ? s->seeds[si] : s->confirm[-1 - si];
    char b[32];
    sfmt(b, sizeof b, "%llu", (unsigned long long)seed);
    argv[a++] = mem_xstrdup("--seed", "in tune");
    argv[a++] = mem_xstrdup(b, "in tune");
    argv[a++] = mem_xstrdup("-o", "in tune");
    argv[a++] = mem_xstrdup(T->runs[i].dir, "in tune");
    argv[a++] = mem_xstrdup("-q", "in tune");
    argv[a++] = mem_xstrdup("--no-plot", "in tune");
    argv[a] = NULL;
    return argv;
}

static void run_argv_free(void *ctx, char **argv)
{
    (void)ctx;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

static double best_value(const struct tuner *T)
{
    return T->incumbent >= 0 ? T->c[T->incumbent].mean[0] : NAN;
}

/* Formats an objective value in its unit ("185.8 us"). */
static char *fmt_obj(const struct tune_spec *s, int m, double v, char *buf, size_t len)
{
    double scale;
    const char *unit = sweep_objective_unit(s->obj[m].name, &scale);
    if (isnan(v))
        sfmt(buf, len, "-");
    else if (strcmp(unit, "us") == 0 || strcmp(unit, "Gbps") == 0)
        sfmt(buf, len, "%.4g %s", v * scale, unit);
    else
        sfmt(buf, len, "%.4g", v * scale);
    return buf;
}

static void progress_line(void *ctx, const struct pool_status *st, char *line, size_t len)
{
    struct tuner *T = ctx;
    char a[32], b[32], bv[48], base[48];
    int used = T->phase == PH_CONFIRM ? T->used : T->used - (st->n_todo - st->done);
    double el = pool_now_s() - T->t0;
    fmt_obj(T->s, 0, best_value(T), bv, sizeof bv);
    fmt_obj(T->s, 0, T->n_c ? T->c[0].mean[0] : NAN, base, sizeof base);
    if (T->phase == PH_CONFIRM)
        sfmt(line, len, "tune: %d/%d runs, confirmation %d/%d runs, best %s (baseline %s), %s elapsed", used,
             T->budget, st->done, st->n_todo, bv, base, pool_hms(el, a, sizeof a));
    else
        sfmt(line, len, "tune: %d/%d runs, %s, best %s (baseline %s), %d failed, %s elapsed, ETA %s", used,
             T->budget, phase_name[T->phase], bv, base, T->failed_runs + st->failed, pool_hms(el, a, sizeof a),
             used > 0 ? pool_hms(el / used * (T->budget - used), b, sizeof b) : "-");
}

/* How the pool runs the tuner's runs, and how failures.txt repeats one. */
static struct pool_ops run_ops(struct tuner *T)
{
    return (struct pool_ops){.who = "tune", .argv = run_argv, .free_argv = run_argv_free, .after = after_run,
                             .progress = progress_line, .ctx = T};
}

/* Runs the (candidate, seed index) pairs; confirm: seed indexes into confirm_seeds.  Returns 0, or a signal. */
static int eval_pairs(struct tuner *T, const int *cand, const int *seed, int n, bool confirm)
{
    if (n == 0)
        return 0;
    if (T->n_runs + n > T->cap_runs) {
        T->cap_runs = (T->n_runs + n) * 2;
        T->runs = mem_xrealloc(T->runs, (size_t)T->cap_runs * sizeof *T->runs, "in tune");
        T->run_cand = mem_xrealloc(T->run_cand, (size_t)T->cap_runs * sizeof *T->run_cand, "in tune");
        T->run_seed = mem_xrealloc(T->run_seed, (size_t)T->cap_runs * sizeof *T->run_seed, "in tune");
        T->run_failed = mem_xrealloc(T->run_failed, (size_t)T->cap_runs * sizeof *T->run_failed, "in tune");
    }
    int *idx = mem_xcalloc((size_t)n, sizeof *idx, "in tune");
    for (int k = 0; k < n; k++) {
        int r = T->n_runs++;
        struct pool_run *pr = &T->runs[r];
        memset(pr, 0, sizeof *pr);
        struct cand *c = &T->c[cand[k]];
        uint64_t sd = confirm ? T->s->confirm[seed[k]] : T->s->seeds[seed[k]];
        sfmt(pr->dir, sizeof pr->dir, "%s/runs/%s-s%llu", T->dir, c->id, (unsigned long long)sd);
        T->run_cand[r] = cand[k];
        T->run_seed[r] = confirm ? -1 - seed[k] : seed[k];
        T->run_failed[r] = false;
        if (confirm)
            c->crun[seed[k]] = r;
        else
            c->run[seed[k]] = r;
        idx[k] = r;
    }
    if (!confirm)
        T->used += n;
    struct pool_ops ops = run_ops(T);
    int rc = pool_execute(T->comm, T->runs, idx, n, T->jobs, T->timeout_s, T->progress, true, &ops);
    if (rc < 0) {
        T->comm_error = true;
        rc = SIGTERM;
    }
    const struct tune_spec *s = T->s;
    for (int k = 0; k < n; k++) {
        struct pool_run *pr = &T->runs[idx[k]];
        struct cand *c = &T->c[cand[k]];
        if (pr->state == POOL_TODO) /* interrupted: left to do (ended_runs does not count it) */
            continue;
        bool ok = pr->state == POOL_OK || pr->state == POOL_DONE_BEFORE;
        cJSON *j = ok ? cJSON_Parse(pr->summary) : NULL;
        const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "tune_metrics");
        for (int m = 0; ok && m < s->n_obj + s->n_cons; m++) {
            const cJSON *v = cJSON_GetArrayItem(tm, m);
            double val = cJSON_IsNumber(v) ? v->valuedouble : NAN;
            if (confirm) {
                c->cvv[m][seed[k]] = val;
            } else {
                c->v[m][seed[k]] = val;
            }
            if (isnan(val) && m < s->n_obj) {
                ok = false;
                sfmt(pr->status, sizeof pr->status, "no objective");
                /* What failures.txt says of it: the run itself succeeded. */
                free(pr->tail);
                size_t l = strlen(s->obj[m].words) + 200;
                pr->tail = mem_xmalloc(l, "in tune");
                sfmt(pr->tail, l, "the run succeeded, but its objective (%s) has no value: no flow of the subset "
                                  "finished, or its summary.json has no such number", s->obj[m].words);
            }
        }
        cJSON_Delete(j);
        if (!ok) {
            T->failed_runs++;
            T->run_failed[idx[k]] = true;
            if (!confirm)
                c->failed = true;
        }
        if (!confirm) {
            c->done[seed[k]] = true;
            c->n_done++;
        }
    }
    free(idx);
    if (rc > 0)
        T->interrupted = rc;
    return rc;
}

/* The runs that ended (run now, found done, failed) of the search and/or of the confirmation: not those a signal
 * stopped or never started, which T->used, the budget spent, counts from when they are handed to the pool. */
static int ended_runs(const struct tuner *T, bool search, bool confirmation)
{
    int n = 0;
    for (int r = 0; r < T->n_runs; r++)
        n += T->runs[r].state != POOL_TODO && (T->run_seed[r] >= 0 ? search : confirmation);
    return n;
}

/* ------------------------------------------------------------------------ */
/* Deciding                                                                  */

/* Objective m oriented so that lower is better. */
static double lower_better(const struct tune_spec *s, int m, double v)
{
    return s->obj[m].maximize ? -v : v;
}

static double mean_over(const double *v, const bool *on, int n)
{
    double sum = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (on[i]) {
            sum += v[i];
            k++;
        }
    return k ? sum / k : NAN;
}

/* Orders the seeds by how much they have separated the fully evaluated candidates (coefficient of variation of
 * the objectives, summed), most first: the seed most likely to eliminate a poor candidate runs first. */
static void learn_order(struct tuner *T)
{
    const struct tune_spec *s = T->s;
    double spread[TUNE_MAX_SEEDS];
    int full = 0;
    for (int j = 0; j < T->n_c; j++)
        full += T->c[j].full;
    for (int k = 0; k < s->n_seeds; k++) {
        T->order[k] = k;
        spread[k] = 0;
        for (int m = 0; full >= WARMUP + 1 && m < s->n_obj; m++) {
            double sum = 0, sq = 0;
            int n = 0;
            for (int j = 0; j < T->n_c; j++)
                if (T->c[j].full) {
                    sum += T->c[j].v[m][k];
                    n++;
                }
            double mean = sum / n;
            for (int j = 0; j < T->n_c; j++)
                if (T->c[j].full)
                    sq += (T->c[j].v[m][k] - mean) * (T->c[j].v[m][k] - mean);
            spread[k] += mean != 0 ? sqrt(sq / (n - 1)) / fabs(mean) : 0;
        }
    }
    /* Stable: equal spreads keep the file's order. */
    for (int a = 1; a < s->n_seeds; a++)
        for (int b = a; b > 0 && spread[T->order[b]] > spread[T->order[b - 1]]; b--) {
            int t = T->order[b];
            T->order[b] = T->order[b - 1];
            T->order[b - 1] = t;
        }
}

static int next_seed(const struct tuner *T, const struct cand *c)
{
    for (int k = 0; k < T->s->n_seeds; k++)
        if (!c->done[T->order[k]])
            return T->order[k];
    return -1;
}

/* Whether a is at least as good as b in every objective and better in one, over the seeds b has run (pairs). */
static bool dominates_on(const struct tune_spec *s, const struct cand *a, const struct cand *b)
{
    bool better = false;
    for (int m = 0; m < s->n_obj; m++) {
        double va = lower_better(s, m, mean_over(a->v[m], b->done, s->n_seeds));
        double vb = lower_better(s, m, mean_over(b->v[m], b->done, s->n_seeds));
        if (va > vb)
            return false;
        better |= va < vb;
    }
    return better;
}

/* The race: c, part-way through its seeds, drops out when a fully evaluated feasible candidate beats it on the
 * seeds it has run (with two objectives: dominates it there). */
static bool loses_race(const struct tuner *T, const struct cand *c)
{
    const struct tune_spec *s = T->s;
    if (s->n_obj == 1)
        return T->incumbent >= 0 && dominates_on(s, &T->c[T->incumbent], c);
    for (int j = 0; j < T->n_c; j++)
        if (T->c[j].feasible && dominates_on(s, &T->c[j], c))
            return true;
    return false;
}

static void note_convergence(struct tuner *T)
{
    if (T->n_conv == T->cap_conv) {
        T->cap_conv = T->cap_conv ? 2 * T->cap_conv : 64;
        T->conv_runs = mem_xrealloc(T->conv_runs, (size_t)T->cap_conv * sizeof *T->conv_runs, "in tune");
        T->conv_best = mem_xrealloc(T->conv_best, (size_t)T->cap_conv * sizeof *T->conv_best, "in tune");
    }
    T->conv_runs[T->n_conv] = T->used;
    T->conv_best[T->n_conv++] = best_value(T);
}

/* A candidate with every seed run: its means, whether it meets the constraints, whether it is the new best. */
static void finish_full(struct tuner *T, int ci)
{
    const struct tune_spec *s = T->s;
    struct cand *c = &T->c[ci];
    bool all[TUNE_MAX_SEEDS];
    for (int k = 0; k < s->n_seeds; k++)
        all[k] = true;
    c->full = true;
    c->feasible = true;
    for (int m = 0; m < s->n_obj + s->n_cons; m++) {
        c->mean[m] = mean_over(c->v[m], all, s->n_seeds);
        if (m >= s->n_obj) {
            const struct tune_metric *mt = &s->cons[m - s->n_obj];
            if (isnan(c->mean[m]) || (!isnan(mt->min) && c->mean[m] < mt->min) ||
                (!isnan(mt->max) && c->mean[m] > mt->max))
                c->feasible = false;
        }
    }
    if (s->n_obj == 1 && c->feasible &&
        (T->incumbent < 0 || lower_better(s, 0, c->mean[0]) < lower_better(s, 0, T->c[T->incumbent].mean[0])))
        T->incumbent = ci;
}

/*
 * Races the candidates list[0..n) to the end: each round runs the next seed of every candidate still in (all
 * seeds at once for a candidate that cannot race yet, or for the rest of a single candidate's seeds once it has
 * survived its first), then drops the losers.  Stops at the budget (the candidates left part-way are "cut").
 * Returns 0 or a signal number.
 */
static int race(struct tuner *T, const int *list, int n, bool racing)
{
    const struct tune_spec *s = T->s;
    int cap = n * s->n_seeds;
    int *pc = mem_xcalloc((size_t)cap + 1, sizeof *pc, "in tune"), *ps = mem_xcalloc((size_t)cap + 1, sizeof *ps, "in tune");
    int rc = 0;
    for (;;) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            struct cand *c = &T->c[list[i]];
            if (c->failed || c->dropped || c->full || c->cut)
                continue;
            bool whole = !racing || (n == 1 && c->n_done > 0);
            for (int k = next_seed(T, c); k >= 0; k = whole ? next_seed(T, c) : -1) {
                pc[m] = list[i];
                ps[m++] = k;
                c->done[k] = true; /* provisional, so that next_seed moves on; eval_pairs sets it for real */
                if (!whole)
                    break;
            }
        }
        for (int i = 0; i < m; i++)
            T->c[pc[i]].done[ps[i]] = false;
        if (m == 0)
            break;
        int left = T->budget - T->used;
        if (m > left) {
            for (int i = left; i < m; i++)
                T->c[pc[i]].cut = true;
            m = left < 0 ? 0 : left;
        }
        if (m == 0)
            break;
        if ((rc = eval_pairs(T, pc, ps, m, false)))
            break;
        for (int i = 0; i < n; i++) {
            struct cand *c = &T->c[list[i]];
            if (c->full || c->dropped || c->cut || (c->failed && c->finished_at > 0))
                continue;
            if (c->failed) {
                c->finished_at = T->used;
                note_convergence(T);
            } else if (c->n_done == s->n_seeds) {
                finish_full(T, list[i]);
                c->finished_at = T->used;
                note_convergence(T);
            } else if (racing && loses_race(T, c)) {
                c->dropped = true;
                c->finished_at = T->used;
                note_convergence(T);
            }
        }
        for (int i = 0; i < n; i++) {
            struct cand *c = &T->c[list[i]];
            if (c->cut && !c->full && !c->dropped)
                c->finished_at = T->used;
        }
    }
    free(pc);
    free(ps);
    return rc;
}

/* The next `want` design points (fewer when "require" refuses too much in a row). */
static int design_points(struct tuner *T, int want, int *list)
{
    const struct tune_spec *s = T->s;
    int n = 0, rejected = 0;
    double p[TUNE_MAX_PARAMS], u[TUNE_MAX_PARAMS];
    while (n < want && !T->design_over) {
        gsl_qrng_get(T->q, p);
        for (int i = 0; i < s->n_params; i++)
            u[i] = fmod(p[i] + T->shift[i], 1.0);
        bool existing;
        int j = cand_at(T, u, PH_DESIGN, &existing);
        if (j < 0 || existing) {
            if (++rejected >= MAX_REJECT)
                T->design_over = true;
            continue;
        }
        rejected = 0;
        list[n++] = j;
    }
    return n;
}

/* The estimate of c's mean over every seed when it dropped out part-way: the best's mean, moved by their
 * paired difference over the seeds c ran. */
static double estimate(const struct tuner *T, const struct cand *c)
{
    const struct tune_spec *s = T->s;
    if (c->full)
        return lower_better(s, 0, c->mean[0]);
    if (c->failed || T->incumbent < 0 || c->n_done == 0)
        return NAN;
    const struct cand *b = &T->c[T->incumbent];
    return lower_better(s, 0, b->mean[0] + mean_over(c->v[0], c->done, s->n_seeds) -
                                  mean_over(b->v[0], c->done, s->n_seeds));
}

/* Worse than anything seen, finite: what the optimizer is told of a point that cannot run. */
static double penalty(const struct tuner *T)
{
    double worst = 0;
    bool any = false;
    for (int j = 0; j < T->n_c; j++)
        if (T->c[j].full) {
            double v = lower_better(T->s, 0, T->c[j].mean[0]);
            if (!any || v > worst)
                worst = v;
            any = true;
        }
    return any ? worst + fabs(worst) + 1 : 1e300;
}

struct local_ctx {
    struct tuner *T;
    nlopt_opt opt;
    int dims[TUNE_MAX_PARAMS]; /* parameter index of each optimizer dimension */
    int n;
    double base_u[TUNE_MAX_PARAMS];
};

static double local_f(unsigned n, const double *x, double *grad, void *data)
{
    (void)grad;
    struct local_ctx *L = data;
    struct tuner *T = L->T;
    double u[TUNE_MAX_PARAMS];
    memcpy(u, L->base_u, sizeof u);
    for (unsigned i = 0; i < n; i++)
        u[L->dims[i]] = x[i];
    if (T->interrupted || T->used >= T->budget) {
        nlopt_force_stop(L->opt);
        return penalty(T);
    }
    bool existing;
    int j = cand_at(T, u, PH_LOCAL, &existing);
    if (j < 0)
        return penalty(T);
    if (!existing)
        race(T, &j, 1, T->incumbent >= 0);
    if (T->interrupted)
        nlopt_force_stop(L->opt);
    double e = estimate(T, &T->c[j]);
    return isnan(e) ? penalty(T) : e;
}

/* The local search from candidate start over the ranged parameters (choices stay as start has them). */
static void local_search(struct tuner *T, int start)
{
    const struct tune_spec *s = T->s;
    struct local_ctx L = {.T = T};
    memcpy(L.base_u, T->c[start].u, sizeof L.base_u);
    double x[TUNE_MAX_PARAMS], lo[TUNE_MAX_PARAMS], hi[TUNE_MAX_PARAMS];
    for (int i = 0; i < s->n_params; i++)
        if (s->params[i].scale != TUNE_CHOICE) {
            lo[L.n] = 0;
            hi[L.n] = 1;
            x[L.n] = T->c[start].u[i];
            L.dims[L.n++] = i;
        }
    /* BOBYQA needs two dimensions at least: one ranged parameter is searched with Subplex. */
    nlopt_algorithm alg = (nlopt_algorithm)tune_optimizers[s->optimizer].alg;
    if (L.n == 0)
        return;
    if (alg == NLOPT_LN_BOBYQA && L.n < 2)
        alg = NLOPT_LN_SBPLX;
    nlopt_srand((unsigned long)s->search_seed);
    L.opt = nlopt_create(alg, (unsigned)L.n);
    if (!L.opt)
        mem_oom("starting the local search");
    nlopt_set_lower_bounds(L.opt, lo);
    nlopt_set_upper_bounds(L.opt, hi);
    nlopt_set_min_objective(L.opt, local_f, &L);
    /* A tenth of each range first; 3 significant digits (see tune_value_text) end any finer step. */
    nlopt_set_initial_step1(L.opt, 0.1);
    nlopt_set_xtol_abs1(L.opt, 1e-3);
    nlopt_set_maxeval(L.opt, 10 * T->budget + 100);
    double f;
    nlopt_optimize(L.opt, x, &f);
    nlopt_destroy(L.opt);
}

/* The best fully evaluated candidate other than the baseline (the optimizer cannot start from the baseline,
 * which is no point of the search box). */
static int best_design(const struct tuner *T)
{
    int b = -1;
    for (int j = 1; j < T->n_c; j++)
        if (T->c[j].feasible &&
            (b < 0 || lower_better(T->s, 0, T->c[j].mean[0]) < lower_better(T->s, 0, T->c[b].mean[0])))
            b = j;
    return b;
}

static void search(struct tuner *T)
{
    const struct tune_spec *s = T->s;
    /* Baseline and warm-up, at once on every seed. */
    T->phase = PH_BASELINE;
    struct cand *b = cand_new(T, PH_BASELINE);
    cand_name(T, b, true);
    T->n_c++;
    int list[256 + WARMUP + 1];
    list[0] = 0;
    learn_order(T);
    int n = 1 + design_points(T, s->budget >= (2 + WARMUP) * s->n_seeds ? WARMUP : s->budget / s->n_seeds - 1,
                              list + 1);
    if (race(T, list, n, false))
        return;
    learn_order(T);
    T->last_local = -1;
    /* The design's share is of what the warm-up left; a local search needs room for its first simplex (one
     * point per ranged parameter and one more), each point costing a run at least. */
    double design_until = T->used + s->design_share * (T->budget - T->used);
    int n_ranged = 0;
    for (int i = 0; i < s->n_params; i++)
        n_ranged += s->params[i].scale != TUNE_CHOICE;
    while (!T->interrupted && T->used < T->budget) {
        int start = best_design(T);
        if (s->n_obj == 1 && tune_optimizers[s->optimizer].alg >= 0 && n_ranged > 0 && start >= 0 &&
            start != T->last_local &&
            T->budget - T->used >= n_ranged + 1 && (T->used >= design_until || T->design_over)) {
            T->phase = PH_LOCAL;
            T->last_local = start;
            int before = T->used;
            local_search(T, start);
            learn_order(T);
            if (T->used == before && T->design_over)
                break;
            continue;
        }
        if (T->design_over)
            break;
        T->phase = PH_DESIGN;
        n = design_points(T, s->batch, list);
        if (n == 0)
            break;
        if (race(T, list, n, s->n_obj == 2 || T->incumbent >= 0))
            return;
        learn_order(T);
    }
}

/* The winner and the baseline on the confirmation seeds. */
static void confirm(struct tuner *T, int win)
{
    const struct tune_spec *s = T->s;
    if (!s->n_confirm || win < 0)
        return;
    T->phase = PH_CONFIRM;
    int pc[2 * TUNE_MAX_SEEDS], ps[2 * TUNE_MAX_SEEDS], m = 0;
    int who[2] = {win, 0};
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < s->n_confirm; k++) {
            pc[m] = who[w];
            ps[m++] = k;
        }
    eval_pairs(T, pc, ps, m, true);
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                   */

/* The recommendation: the best feasible candidate of the search (the baseline is what it is compared with, never
 * the recommendation); with two objectives the front's point nearest the ideal point once each objective is
 * scaled to the front's range.  The front is that of the search's candidates. */
static int pick_winner(const struct tuner *T, bool *front)
{
    const struct tune_spec *s = T->s;
    if (s->n_obj == 1)
        return best_design(T);
    int n = T->n_c;
    double (*o)[2] = mem_xcalloc((size_t)n + 1, sizeof *o, "in tune");
    for (int j = 0; j < n; j++)
        for (int m = 0; m < 2; m++)
            o[j][m] = T->c[j].feasible && j > 0 ? T->c[j].mean[m] : NAN;
    bool mx[2] = {s->obj[0].maximize, s->obj[1].maximize};
    stats_pareto((const double(*)[2])o, mx, n, front);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int j = 0; j < n; j++)
        for (int m = 0; front[j] && m < 2; m++) {
            double v = lower_better(s, m, o[j][m]);
            lo[m] = fmin(lo[m], v);
            hi[m] = fmax(hi[m], v);
        }
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < n; j++) {
        if (!front[j])
            continue;
        double d = 0;
        for (int m = 0; m < 2; m++) {
            double r = hi[m] > lo[m] ? (lower_better(s, m, o[j][m]) - lo[m]) / (hi[m] - lo[m]) : 0;
            d += r * r;
        }
        if (d < bd) {
            bd = d;
            best = j;
        }
    }
    free(o);
    return best;
}

static cJSON *params_json(const struct tuner *T, const struct cand *c)
{
    const struct tune_spec *s = T->s;
    cJSON *o = cJSON_CreateObject();
    bool base = c->phase == PH_BASELINE;
    for (int i = 0; i < (base ? s->n_base : s->n_params); i++) {
        cJSON *v = cJSON_Parse(base ? s->base_text[i] : c->text[i]);
        cJSON_AddItemToObject(o, base ? s->base_path[i] : s->params[i].path, v ? v : cJSON_CreateNull());
    }
    return o;
}

static cJSON *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static cJSON *values_json(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < n; k++)
        cJSON_AddItemToArray(a, num_or_null(v[k]));
    return a;
}

/* {"n", "mean", "stddev", "ci95": [lo, hi]} of v[0..n). */
static cJSON *ci_json(const double *v, int n)
{
    struct stats_ci ci = stats_mean_ci(v, n, 0.95);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", ci.n);
    cJSON_AddItemToObject(o, "mean", num_or_null(ci.mean));
    cJSON_AddItemToObject(o, "stddev", num_or_null(ci.sd));
    cJSON *a = cJSON_AddArrayToObject(o, "ci95");
    cJSON_AddItemToArray(a, num_or_null(ci.lo));
    cJSON_AddItemToArray(a, num_or_null(ci.hi));
    return o;
}

/* The paired comparison of the winner with the baseline on objective m, with its verdict in words. */
static cJSON *compare_json(const struct tune_spec *s, int m, const double *win, const double *base, int n,
                           const char *seeds, char *verdict, size_t vlen)
{
    struct stats_paired t = stats_paired_t(win, base, n, 0.95);
    struct stats_ci bc = stats_mean_ci(base, n, 0.95);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "objective", s->obj[m].label);
    cJSON_AddStringToObject(o, "seeds", seeds);
    cJSON_AddNumberToObject(o, "n", n);
    cJSON_AddItemToObject(o, "difference", num_or_null(t.mean_diff));
    cJSON *a = cJSON_AddArrayToObject(o, "difference_ci95");
    cJSON_AddItemToArray(a, num_or_null(t.mean_diff - t.half));
    cJSON_AddItemToArray(a, num_or_null(t.mean_diff + t.half));
    double sign = s->obj[m].maximize ? 1 : -1;
    double rel = bc.mean != 0 ? sign * t.mean_diff / fabs(bc.mean) * 100 : NAN;
    double relh = bc.mean != 0 ? t.half / fabs(bc.mean) * 100 : NAN;
    cJSON_AddItemToObject(o, "improvement_pct", num_or_null(rel));
    cJSON_AddItemToObject(o, "improvement_ci95_pct", num_or_null(relh));
    cJSON_AddItemToObject(o, "t", num_or_null(t.t));
    cJSON_AddItemToObject(o, "p", num_or_null(t.p));
    cJSON_AddBoolToObject(o, "significant", t.significant);
    char pv[32];
    if (t.testable && t.p < 1e-4)
        sfmt(pv, sizeof pv, "p < 0.0001");
    else
        sfmt(pv, sizeof pv, "p = %.2g", t.p);
    if (!t.testable)
        sfmt(verdict, vlen, "no test possible with %d seed%s (a paired test needs two at least)", n, n == 1 ? "" : "s");
    else if (t.identical)
        sfmt(verdict, vlen, "not significantly different from the baseline (identical results on every seed)");
    else if (!t.significant)
        sfmt(verdict, vlen, "not significantly different from the baseline (%s)", pv);
    else
        sfmt(verdict, vlen, "%s by %.1f %% +- %.1f %% (%s)", rel > 0 ? "better" : "worse", fabs(rel), relh, pv);
    cJSON_AddStringToObject(o, "verdict", verdict);
    return o;
}

/* Writes o (freed here) as dir/name, indented, ending with a newline, atomically; 0 or SCN_EIO (said on stderr). */
static int write_json(const char *dir, const char *name, cJSON *o)
{
    char *text = jsonout_print(o);
    cJSON_Delete(o);
    if (!text)
        mem_oom("writing the tune's outputs");
    char path[4200];
    sfmt(path, sizeof path, "%s/%s", dir, name);
    size_t l = strlen(text);
    text = mem_xrealloc(text, l + 2, "in tune");
    text[l] = '\n';
    int rc = write_file_atomic(path, text, l + 1);
    free(text);
    if (rc)
        fprintf(stderr, "rocesim tune: %s: cannot write: %s\n", path, strerror(errno));
    return rc ? SCN_EIO : 0;
}

/* Whether the baseline beats the search's best on the search seeds (one objective): then it is what best.json
 * recommends, and nic-config --from prints the settings already in place. */
static bool keep_baseline(const struct tuner *T, int win)
{
    const struct cand *b = &T->c[0];
    return T->s->n_obj == 1 && b->full && b->feasible &&
           lower_better(T->s, 0, b->mean[0]) < lower_better(T->s, 0, T->c[win].mean[0]);
}

/* Whether c has a result on seed k of the search seeds (or of the confirmation seeds): a run that ended with every
 * objective's value.  Not run, interrupted or failed: no result. */
static bool has_result(const struct tune_spec *s, const struct cand *c, int k, bool confirmation)
{
    for (int m = 0; m < s->n_obj; m++)
        if (isnan(confirmation ? c->cvv[m][k] : c->v[m][k]))
            return false;
    return true;
}

/* Candidate j as best.json gives a setting: candidate, id, parameters, set, and result (each objective's
 * statistics and values, each constraint's mean and bounds, feasible), over the search seeds or the confirmation
 * seeds.  The values are per seed (null where the seed has no result); the statistics are over the seeds with a
 * result only, `n` of them, and feasible needs every seed. */
static void setting_json(const struct tuner *T, int j, cJSON *o, bool confirmation)
{
    const struct tune_spec *s = T->s;
    const struct cand *c = &T->c[j];
    int n = confirmation ? s->n_confirm : s->n_seeds, got = 0;
    bool on[TUNE_MAX_SEEDS];
    for (int k = 0; k < n; k++)
        got += on[k] = has_result(s, c, k, confirmation);
    if (!confirmation) {
        cJSON_AddNumberToObject(o, "candidate", j);
        cJSON_AddStringToObject(o, "id", c->id);
        cJSON_AddItemToObject(o, "parameters", params_json(T, c));
        cJSON *set = cJSON_AddArrayToObject(o, "set");
        bool base = c->phase == PH_BASELINE;
        for (int i = 0; i < (base ? s->n_base : s->n_params); i++) {
            char t[600];
            sfmt(t, sizeof t, "%s=%s", base ? s->base_path[i] : s->params[i].path, base ? s->base_text[i] : c->text[i]);
            cJSON_AddItemToArray(set, cJSON_CreateString(t));
        }
    }
    cJSON *res = cJSON_AddObjectToObject(o, "result");
    bool feasible = got == n;
    for (int m = 0; m < s->n_obj + s->n_cons; m++) {
        const double *v = confirmation ? c->cvv[m] : c->v[m];
        double done[TUNE_MAX_SEEDS];
        int nd = 0;
        bool any_nan = false;
        for (int k = 0; k < n; k++)
            if (on[k]) {
                done[nd] = v[k];
                any_nan |= isnan(done[nd++]);
            }
        /* Without statistics (no seed with a result, or a metric missing on one) n still says how many seeds had
         * one, as ci_json's does. */
        bool stats = !any_nan && nd > 0;
        cJSON *st = stats ? ci_json(done, nd) : cJSON_CreateObject();
        if (!stats)
            cJSON_AddNumberToObject(st, "n", nd);
        cJSON_AddItemToObject(st, "values", values_json(v, n));
        if (m >= s->n_obj) {
            const struct tune_metric *mt = &s->cons[m - s->n_obj];
            double mean = any_nan ? NAN : stats_mean_ci(done, nd, 0.95).mean;
            bool ok = !isnan(mean) && !(mean < mt->min) && !(mean > mt->max);
            if (!isnan(mt->min))
                cJSON_AddNumberToObject(st, "min", mt->min);
            if (!isnan(mt->max))
                cJSON_AddNumberToObject(st, "max", mt->max);
            cJSON_AddBoolToObject(st, "met", ok);
            feasible &= ok;
        }
        cJSON_AddItemToObject(res, m < s->n_obj ? s->obj[m].label : s->cons[m - s->n_obj].label, st);
    }
    cJSON_AddBoolToObject(o, "feasible", feasible);
}

/*
 * best.json's confirmation (with confirm_seeds): the seeds, how many of its runs gave a result of how many, and
 * the winner and the baseline over them.  The comparison is on the confirmation seeds where both have a result
 * (all of them, unless the tune was stopped or runs failed): their objectives go to cw and cb, and their number is
 * returned (0: compare on the search seeds).
 */
static int confirmation_json(const struct tuner *T, int win, bool keep, cJSON *o, double cw[2][TUNE_MAX_SEEDS],
                             double cb[2][TUNE_MAX_SEEDS])
{
    const struct tune_spec *s = T->s;
    const struct cand *w = &T->c[win], *b = &T->c[0];
    int pairs = 0, runs_done = 0;
    for (int k = 0; k < s->n_confirm; k++) {
        bool hw = has_result(s, w, k, true), hb = has_result(s, b, k, true);
        runs_done += hw + hb;
        for (int m = 0; hw && hb && m < s->n_obj; m++) {
            cw[m][pairs] = w->cvv[m][k];
            cb[m][pairs] = b->cvv[m][k];
        }
        pairs += hw && hb;
    }
    if (s->n_confirm == 0)
        return 0;
    cJSON *cf = cJSON_AddObjectToObject(o, "confirmation");
    cJSON *cs = cJSON_AddArrayToObject(cf, "seeds");
    for (int k = 0; k < s->n_confirm; k++)
        cJSON_AddItemToArray(cs, cJSON_CreateNumber((double)s->confirm[k]));
    cJSON_AddNumberToObject(cf, "runs_done", runs_done);
    cJSON_AddNumberToObject(cf, "runs_total", 2 * s->n_confirm);
    setting_json(T, win, cJSON_AddObjectToObject(cf, keep ? "best_found" : "recommendation"), true);
    setting_json(T, 0, cJSON_AddObjectToObject(cf, "baseline"), true);
    return pairs;
}

static int write_best(struct tuner *T, int win, const bool *front, char *verdict, size_t vlen, const char *why)
{
    const struct tune_spec *s = T->s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tune", s->file);
    cJSON_AddStringToObject(o, "scenario", s->scenario);
    cJSON_AddBoolToObject(o, "complete", why == NULL);
    if (why)
        cJSON_AddStringToObject(o, "incomplete_reason", why);
    cJSON_AddNumberToObject(o, "runs_done", ended_runs(T, true, false));
    cJSON_AddNumberToObject(o, "runs_total", T->budget);
    cJSON *objs = cJSON_AddArrayToObject(o, "objectives");
    for (int m = 0; m < s->n_obj; m++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, s->obj[m].maximize ? "maximize" : "minimize", s->obj[m].name);
        cJSON_AddStringToObject(x, "label", s->obj[m].label);
        cJSON_AddItemToArray(objs, x);
    }
    cJSON_AddItemToObject(o, "seeds", cJSON_CreateArray());
    for (int k = 0; k < s->n_seeds; k++)
        cJSON_AddItemToArray(cJSON_GetObjectItem(o, "seeds"), jsonout_u64(s->seeds[k]));
    verdict[0] = '\0';
    if (win >= 0) {
        const struct cand *w = &T->c[win], *b = &T->c[0];
        bool keep = keep_baseline(T, win);
        cJSON_AddStringToObject(o, "recommendation", keep ? "baseline" : "search");
        setting_json(T, keep ? 0 : win, o, false);
        if (keep)
            setting_json(T, win, cJSON_AddObjectToObject(o, "best_found"), false);
        setting_json(T, 0, cJSON_AddObjectToObject(o, "baseline"), false);
        double cw[2][TUNE_MAX_SEEDS], cb[2][TUNE_MAX_SEEDS];
        int pairs = confirmation_json(T, win, keep, o, cw, cb);
        bool confirmed = pairs > 0;
        cJSON *cmp = cJSON_AddArrayToObject(o, "comparison");
        if (!b->full)
            sfmt(verdict, vlen, "no comparison: the baseline's runs %s", b->failed ? "failed (see tune.csv)" :
                 "did not all run");
        for (int m = 0; b->full && m < s->n_obj; m++) {
            char v[300];
            if (confirmed)
                cJSON_AddItemToArray(cmp, compare_json(s, m, cw[m], cb[m], pairs, "confirm_seeds", v, sizeof v));
            else
                cJSON_AddItemToArray(cmp, compare_json(s, m, w->v[m], b->v[m], s->n_seeds, "seeds", v, sizeof v));
            size_t l = strlen(verdict);
            if (s->n_obj == 1)
                sfmt(verdict, vlen, "%s%s", keep ? "keep the baseline: the best setting found is " : "", v);
            else
                sfmt(verdict + l, vlen - l, "%s%s: %s", m ? "; " : "", s->obj[m].words, v);
        }
        if (b->full && !b->feasible) {
            size_t l = strlen(verdict);
            sfmt(verdict + l, vlen - l, " (the baseline itself breaks a constraint)");
        }
    } else {
        cJSON_AddStringToObject(o, "recommendation", "none");
        cJSON_AddNullToObject(o, "parameters");
        sfmt(verdict, vlen, "no candidate ran on every seed and met the constraints");
    }
    if (why) {
        /* A stopped tune's verdict says so first: it is that of the runs done so far. */
        char *core = mem_xstrdup(verdict, "in tune");
        sfmt(verdict, vlen, "incomplete (%.*s): %s", (int)strcspn(why, ";"), why, core);
        free(core);
    }
    cJSON_AddStringToObject(o, "verdict", verdict);
    int full = 0, dropped = 0, failed = 0, infeasible = 0, cut = 0;
    for (int j = 1; j < T->n_c; j++) {
        const struct cand *c = &T->c[j];
        full += c->full;
        dropped += c->dropped;
        failed += c->failed;
        infeasible += c->full && !c->feasible;
        cut += c->cut && !c->full && !c->dropped && !c->failed;
    }
    cJSON *sr = cJSON_AddObjectToObject(o, "search");
    cJSON_AddNumberToObject(sr, "candidates", T->n_c - 1);
    cJSON_AddNumberToObject(sr, "evaluated_on_every_seed", full);
    cJSON_AddNumberToObject(sr, "dropped_by_racing", dropped);
    cJSON_AddNumberToObject(sr, "infeasible", infeasible);
    cJSON_AddNumberToObject(sr, "failed", failed);
    cJSON_AddNumberToObject(sr, "cut_by_budget", cut);
    cJSON_AddNumberToObject(sr, "failed_runs", T->failed_runs);
    cJSON *so = cJSON_AddArrayToObject(sr, "seed_order");
    for (int k = 0; k < s->n_seeds; k++)
        cJSON_AddItemToArray(so, jsonout_u64(s->seeds[T->order[k]]));
    cJSON_AddStringToObject(sr, "optimizer", tune_optimizers[s->optimizer].name);
    cJSON_AddItemToObject(sr, "seed", jsonout_u64(s->search_seed));
    /* The ten best fully evaluated candidates, or the front. */
    cJSON *rk = cJSON_AddArrayToObject(o, s->n_obj == 2 ? "pareto" : "ranking");
    int *ord = mem_xcalloc((size_t)T->n_c + 1, sizeof *ord, "in tune"), n = 0;
    for (int j = 0; j < T->n_c; j++)
        if (T->c[j].feasible && (s->n_obj == 1 || front[j]))
            ord[n++] = j;
    for (int a = 1; a < n; a++)
        for (int b2 = a; b2 > 0 && lower_better(s, 0, T->c[ord[b2]].mean[0]) < lower_better(s, 0, T->c[ord[b2 - 1]].mean[0]); b2--) {
            int t = ord[b2];
            ord[b2] = ord[b2 - 1];
            ord[b2 - 1] = t;
        }
    for (int k = 0; k < n && (s->n_obj == 2 || k < 10); k++) {
        cJSON *e = cJSON_CreateObject();
        setting_json(T, ord[k], e, false);
        cJSON_AddItemToArray(rk, e);
    }
    free(ord);
    return write_json(T->dir, "best.json", o);
}

/* tune.csv: one row per run in the order the search made them, with every numeric summary field. */
static int write_csv(struct tuner *T)
{
    const struct tune_spec *s = T->s;
    int n = T->n_runs, ncols = 0, capc = 0;
    char **cols = NULL;
    int *nkv = mem_xcalloc((size_t)n + 1, sizeof *nkv, "in tune");
    char ***keys = mem_xcalloc((size_t)n + 1, sizeof *keys, "in tune"), ***vals = mem_xcalloc((size_t)n + 1, sizeof *vals, "in tune");
    for (int r = 0; r < n; r++) {
        cJSON *j = T->runs[r].summary ? cJSON_Parse(T->runs[r].summary) : NULL;
        if (!j)
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(j, "tune_metrics");
        int cap = 0;
        sweep_flatten(j, "", &nkv[r], &cap, &keys[r], &vals[r]);
        cJSON_Delete(j);
        for (int k = 0; k < nkv[r]; k++) {
            int f = -1;
            for (int c = 0; c < ncols && f < 0; c++)
                if (strcmp(cols[c], keys[r][k]) == 0)
                    f = c;
            if (f < 0) {
                if (ncols == capc) {
                    capc = capc ? 2 * capc : 128;
                    cols = mem_xrealloc(cols, (size_t)capc * sizeof *cols, "in tune");
                }
                cols[ncols++] = keys[r][k];
            }
        }
    }
    struct sbuf b = {0};
    sb_printf(&b, "run,candidate,id,phase");
    for (int i = 0; i < s->n_params; i++) {
        sb_printf(&b, ",");
        sb_csv_cell(&b, s->params[i].path);
    }
    sb_printf(&b, ",seed,status");
    for (int m = 0; m < s->n_obj + s->n_cons; m++) {
        sb_printf(&b, ",");
        sb_csv_cell(&b, m < s->n_obj ? s->obj[m].label : s->cons[m - s->n_obj].label);
    }
    for (int c = 0; c < ncols; c++) {
        sb_printf(&b, ",");
        sb_csv_cell(&b, cols[c]);
    }
    sb_printf(&b, "\n");
    for (int r = 0; r < n; r++) {
        const struct cand *c = &T->c[T->run_cand[r]];
        int si = T->run_seed[r];
        sb_printf(&b, "%d,%d,%s,%s", r, T->run_cand[r], c->id, phase_name[si < 0 ? PH_CONFIRM : c->phase]);
        for (int i = 0; i < s->n_params; i++) {
            sb_printf(&b, ",");
            if (c->phase != PH_BASELINE) {
                char t[300];
                sfmt(t, sizeof t, "%s", c->text[i]);
                size_t l = strlen(t);
                if (l >= 2 && t[0] == '"' && t[l - 1] == '"') {
                    t[l - 1] = '\0';
                    sb_csv_cell(&b, t + 1);
                } else {
                    sb_csv_cell(&b, t);
                }
            }
        }
        uint64_t seed = si >= 0 ? s->seeds[si] : s->confirm[-1 - si];
        sb_printf(&b, ",%llu,", (unsigned long long)seed);
        sb_csv_cell(&b, T->runs[r].status[0] ? T->runs[r].status : "not run");
        for (int m = 0; m < s->n_obj + s->n_cons; m++) {
            double v = si >= 0 ? c->v[m][si] : c->cvv[m][-1 - si];
            char num[40];
            sb_printf(&b, ",%s", isnan(v) ? "" : fmt_double(v, num, sizeof num));
        }
        int hint = 0;
        for (int col = 0; col < ncols; col++) {
            const char *v = "";
            for (int t = 0; t < nkv[r]; t++) {
                int k = (hint + t) % nkv[r];
                if (strcmp(keys[r][k], cols[col]) == 0) {
                    v = vals[r][k];
                    hint = k + 1;
                    break;
                }
            }
            sb_printf(&b, ",%s", v);
        }
        sb_printf(&b, "\n");
    }
    char path[4200];
    sfmt(path, sizeof path, "%s/tune.csv", T->dir);
    int rc = write_file_atomic(path, b.p ? b.p : "", b.len);
    if (rc)
        fprintf(stderr, "rocesim tune: %s: cannot write: %s\n", path, strerror(errno));
    free(b.p);
    for (int r = 0; r < n; r++) {
        for (int k = 0; k < nkv[r]; k++) {
            free(keys[r][k]);
            free(vals[r][k]);
        }
        free(keys[r]);
        free(vals[r]);
    }
    free(keys);
    free(vals);
    free(nkv);
    free(cols);
    return rc ? SCN_EIO : 0;
}

/* The axis unit of a parameter and the factor from its base unit. */
static const char *param_unit(const struct tune_param *p, double *scale)
{
    *scale = 1;
    switch (p->qty) {
    case SETTING_SIZE:
        *scale = 1e-3;
        return "KB";
    case SETTING_TIME:
        *scale = 1e-6;
        return "us";
    case SETTING_RATE:
        *scale = 1e-9;
        return "Gbps";
    default:
        return "";
    }
}

/* The baseline's value of each parameter (base units; a choice's index; NAN when unknown), from the resolved
 * scenario its first run saved: the baseline is a preset or values over the scenario, not a point of the box. */
static void baseline_values(const struct tuner *T, double *x)
{
    const struct tune_spec *s = T->s;
    for (int i = 0; i < s->n_params; i++)
        x[i] = NAN;
    int r = T->c[0].run[0];
    if (r < 0)
        return;
    char path[4400], *text = NULL, e[256];
    sfmt(path, sizeof path, "%s/scenario.json", T->runs[r].dir);
    if (read_text_file(path, &text, e, sizeof e))
        return;
    cJSON *j = cJSON_Parse(text);
    free(text);
    for (int i = 0; j && i < s->n_params; i++) {
        const struct tune_param *p = &s->params[i];
        const cJSON *v = json_at_path(j, p->path);
        int64_t q;
        if (!v)
            continue;
        if (p->scale == TUNE_CHOICE) {
            char *t = cJSON_PrintUnformatted(v);
            for (int k = 0; t && k < p->n_choices; k++)
                if (strcmp(t, p->choice[k]) == 0)
                    x[i] = k;
            free(t);
        } else if (cJSON_IsNumber(v)) {
            x[i] = v->valuedouble;
        } else if (cJSON_IsString(v) &&
                   !(p->qty == SETTING_SIZE   ? units_parse_size(v->valuestring, &q, NULL, 0)
                     : p->qty == SETTING_TIME ? units_parse_time(v->valuestring, &q, NULL, 0)
                                              : units_parse_rate(v->valuestring, &q, NULL, 0))) {
            x[i] = (double)q;
        }
    }
    cJSON_Delete(j);
}

static void draw(struct tuner *T, int win, const bool *front, const char *why, char *line, size_t len)
{
    const struct tune_spec *s = T->s;
    struct tune_plot_param pp[TUNE_MAX_PARAMS];
    double pscale[TUNE_MAX_PARAMS];
    for (int i = 0; i < s->n_params; i++) {
        const struct tune_param *p = &s->params[i];
        pp[i] = (struct tune_plot_param){.path = p->path, .unit = param_unit(p, &pscale[i]), .log = p->scale == TUNE_LOG,
                                         .n_choices = p->scale == TUNE_CHOICE ? p->n_choices : 0,
                                         .choices = (const char *const *)p->choice};
    }
    struct tune_plot_eval *ev = mem_xcalloc((size_t)T->n_c + 1, sizeof *ev, "in tune");
    double *xs = mem_xcalloc((size_t)(T->n_c + 1) * TUNE_MAX_PARAMS, sizeof *xs, "in tune");
    double oscale[2] = {1, 1};
    const char *ounit[2] = {"", ""};
    char olabel[2][300];
    for (int m = 0; m < s->n_obj; m++) {
        ounit[m] = sweep_objective_unit(s->obj[m].name, &oscale[m]);
        if (strcmp(ounit[m], "us") && strcmp(ounit[m], "Gbps"))
            ounit[m] = "";
        sfmt(olabel[m], sizeof olabel[m], "%s", s->obj[m].words);
    }
    int n = 0, best = -1;
    bool *on = s->n_obj == 2 ? mem_xcalloc((size_t)T->n_c + 1, sizeof *on, "in tune") : NULL;
    for (int j = 0; j < T->n_c; j++) {
        const struct cand *c = &T->c[j];
        if (c->n_done == 0)
            continue;
        double *x = xs + (size_t)n * TUNE_MAX_PARAMS;
        if (c->phase == PH_BASELINE)
            baseline_values(T, x);
        for (int i = 0; i < s->n_params; i++)
            if (c->phase != PH_BASELINE)
                x[i] = c->x[i];
        for (int i = 0; i < s->n_params; i++)
            x[i] = pp[i].n_choices || isnan(x[i]) ? x[i] : x[i] * pscale[i];
        ev[n].x = x;
        /* A candidate that dropped out is drawn at its estimate over every seed (the baseline's mean moved by
         * their paired difference on its seeds), comparable with the full means; its raw mean is not. */
        const struct cand *b = &T->c[0];
        for (int m = 0; m < s->n_obj; m++)
            ev[n].obj[m] = (c->full || !b->full ? mean_over(c->v[m], c->done, s->n_seeds)
                                                 : b->mean[m] + mean_over(c->v[m], c->done, s->n_seeds) -
                                                       mean_over(b->v[m], c->done, s->n_seeds)) * oscale[m];
        ev[n].seeds = c->n_done;
        ev[n].full = c->full;
        ev[n].feasible = !c->full || c->feasible;
        ev[n].baseline = c->phase == PH_BASELINE;
        ev[n].runs_at = c->finished_at > 0 ? c->finished_at : ended_runs(T, true, false);
        if (on)
            on[n] = front[j];
        if (j == (win >= 0 && keep_baseline(T, win) ? 0 : win))
            best = n;
        n++;
    }
    double *cb = mem_xcalloc((size_t)T->n_conv + 1, sizeof *cb, "in tune");
    for (int k = 0; k < T->n_conv; k++)
        cb[k] = T->conv_best[k] * oscale[0];
    char title[600];
    const char *base = strrchr(s->file, '/');
    sfmt(title, sizeof title, "tune %s", base ? base + 1 : s->file);
    if (why) /* the plots of a stopped tune say so, as best.json does */
        sfmt(title + strlen(title), sizeof title - strlen(title), " (incomplete: %.*s)", (int)strcspn(why, ";"), why);
    struct tune_plot_input in = {.title = title, .n_params = s->n_params, .params = pp, .n_obj = s->n_obj,
                                 .obj_label = {olabel[0], olabel[1]}, .obj_unit = {ounit[0], ounit[1]},
                                 .maximize = {s->obj[0].maximize, s->obj[1].maximize}, .n_evals = n, .evals = ev,
                                 .n_conv = T->n_conv, .conv_runs = T->conv_runs, .conv_best = cb,
                                 .baseline_obj = T->c[0].full ? T->c[0].mean[0] * oscale[0] : NAN, .best = best,
                                 .on_front = on};
    tune_plots(&in, T->dir, line, len);
    free(cb);
    free(on);
    free(ev);
    free(xs);
}

/* failures.txt: every failed run with its status, the command that repeats it and the end of its stderr (a run
 * without objective: why), as a sweep's; none left from an earlier tune when none failed.  0 or SCN_EIO. */
static int write_failures(struct tuner *T)
{
    int *failed = mem_xcalloc((size_t)T->n_runs + 1, sizeof *failed, "in tune"), n = 0;
    for (int r = 0; r < T->n_runs; r++)
        if (T->run_failed[r])
            failed[n++] = r;
    struct pool_ops ops = run_ops(T);
    int rc = pool_write_failures(T->dir, T->runs, failed, n, ended_runs(T, true, true), &ops);
    if (rc)
        fprintf(stderr, "rocesim tune: %s/failures.txt: cannot write: %s\n", T->dir, strerror(errno));
    free(failed);
    return rc ? SCN_EIO : 0;
}

/* Why the outputs are incomplete, after signal T->interrupted: where the tune stopped and what finishes it. */
static void stopped_why(const struct tuner *T, char *why, size_t len)
{
    const char *sig = sigabbrev_np(T->interrupted) ? sigabbrev_np(T->interrupted) : "?";
    if (T->phase == PH_CONFIRM)
        sfmt(why, len, "interrupted by SIG%s in the confirmation, after %d of its %d runs; the same command finishes "
                       "it", sig, ended_runs(T, false, true), 2 * T->s->n_confirm);
    else
        sfmt(why, len, "interrupted by SIG%s after %d of %d runs; the same command continues the search", sig,
             ended_runs(T, true, false), T->budget);
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */

static const char tune_usage[] =
    "usage: rocesim tune TUNE.json [-j N] [-o DIR] [--budget RUNS] [--timeout TIME] [-q] [--no-plot]\n"
    "  -j N            runs at the same time (default: the number of online cores)\n"
    "  -o DIR          output directory (default out/<tune file name>); a rerun into the\n"
    "                  same DIR replays the search from the runs already there\n"
    "  --budget RUNS   runs the search may spend (default: the tune file's budget.runs)\n"
    "  --timeout TIME  stop a run that takes longer than TIME of wall time (e.g. 30s)\n"
    "  -q              no progress line\n"
    "  --no-plot       no plots (and none left from an earlier tune into DIR)\n"
    "See docs/tune.md.\n";

/* A copy of the tune file next to the outputs, with its scenario path usable from the current directory. */
static int save_copy(const struct tuner *T)
{
    cJSON *copy = cJSON_Duplicate(T->s->root, 1);
    if (!copy)
        mem_oom("writing tune.json");
    cJSON_ReplaceItemInObjectCaseSensitive(copy, "scenario", cJSON_CreateString(T->s->scenario));
    return write_json(T->dir, "tune.json", copy);
}

/* Objective m on the confirmation seeds, over the runs that gave a result: all of them, or how many of how many. */
static void print_confirmation(const struct tuner *T, int win, int m)
{
    const struct tune_spec *s = T->s;
    double v[2][TUNE_MAX_SEEDS];
    int n[2] = {0, 0}, who[2] = {win, 0};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < s->n_confirm; k++)
            if (has_result(s, &T->c[who[i]], k, true))
                v[i][n[i]++] = T->c[who[i]].cvv[m][k];
    if (n[0] + n[1] == 0) {
        printf("    on the %d confirmation seeds: not run (%s)\n", s->n_confirm,
               T->interrupted ? "interrupted" : "their runs failed");
        return;
    }
    char a[48], b[48], c[48], d[48];
    struct stats_ci w = stats_mean_ci(v[0], n[0], 0.95), bl = stats_mean_ci(v[1], n[1], 0.95);
    if (n[0] == s->n_confirm && n[1] == s->n_confirm) {
        printf("    on the %d confirmation seeds: best %s +- %s, baseline %s +- %s\n", s->n_confirm,
               fmt_obj(s, m, w.mean, a, sizeof a), fmt_obj(s, m, w.half, b, sizeof b),
               fmt_obj(s, m, bl.mean, c, sizeof c), fmt_obj(s, m, bl.half, d, sizeof d));
        return;
    }
    printf("    on the confirmation seeds, %d of %d runs done%s: best %s +- %s (%d seed%s), baseline %s +- %s (%d seed%s)\n",
           n[0] + n[1], 2 * s->n_confirm, T->interrupted ? " (interrupted)" : "",
           n[0] ? fmt_obj(s, m, w.mean, a, sizeof a) : "-", n[0] ? fmt_obj(s, m, w.half, b, sizeof b) : "-", n[0],
           n[0] == 1 ? "" : "s", n[1] ? fmt_obj(s, m, bl.mean, c, sizeof c) : "-",
           n[1] ? fmt_obj(s, m, bl.half, d, sizeof d) : "-", n[1], n[1] == 1 ? "" : "s");
}

static void print_summary(const struct tuner *T, int win, const char *verdict, const char *plots, double wall)
{
    const struct tune_spec *s = T->s;
    int full = 0, dropped = 0, infeasible = 0;
    for (int j = 1; j < T->n_c; j++) {
        full += T->c[j].full;
        dropped += T->c[j].dropped;
        infeasible += T->c[j].full && !T->c[j].feasible;
    }
    /* Only the runs that ended: those a signal stopped or never started are neither run nor found. */
    int before = 0, now = 0, conf = ended_runs(T, false, true);
    for (int r = 0; r < T->n_runs; r++) {
        before += T->runs[r].state == POOL_DONE_BEFORE;
        now += T->runs[r].state == POOL_OK || T->runs[r].state == POOL_FAILED;
    }
    char cf[64] = "";
    if (conf)
        sfmt(cf, sizeof cf, ", %d on the confirmation seeds", conf);
    printf("tune %s: %d runs of a budget of %d%s (%d run now, %d found done, %d failed): %d candidates, %d run on "
           "every seed, %d dropped by racing, %d infeasible; %.2f s\n", s->file, ended_runs(T, true, false), T->budget,
           cf, now, before, T->failed_runs, T->n_c - 1, full, dropped, infeasible, wall);
    char a[48], b[48];
    for (int m = 0; m < s->n_obj && win >= 0; m++) {
        struct stats_ci w = stats_mean_ci(T->c[win].v[m], s->n_seeds, 0.95);
        struct stats_ci bl = T->c[0].full ? stats_mean_ci(T->c[0].v[m], s->n_seeds, 0.95) : (struct stats_ci){.mean = NAN};
        char c[48], d[48];
        printf("  %s %s: best %s +- %s, baseline %s +- %s (mean and 95 %% CI over %d seeds)\n",
               s->obj[m].maximize ? "maximize" : "minimize", s->obj[m].words, fmt_obj(s, m, w.mean, a, sizeof a),
               fmt_obj(s, m, w.half, b, sizeof b), fmt_obj(s, m, bl.mean, c, sizeof c),
               fmt_obj(s, m, bl.half, d, sizeof d), s->n_seeds);
        if (s->n_confirm)
            print_confirmation(T, win, m);
    }
    if (win >= 0) {
        printf("  best found: candidate %d (%s) at", win, T->c[win].id);
        for (int i = 0; i < s->n_params; i++)
            printf(" %s=%s", s->params[i].path, T->c[win].text[i]);
        printf("\n");
    }
    printf("  verdict: %s\n", verdict);
    printf("  outputs: %s/ (best.json, tune.csv%s, runs/)\n", T->dir, T->failed_runs ? ", failures.txt" : "");
    if (*plots)
        printf("  plots: %s\n", plots);
}

int tune_main(int argc, char **argv)
{
    const struct pool_comm *comm = pool_comm_start(&argc, &argv);
    bool root = comm->rank == 0;
    double t0 = pool_now_s();
    struct pool_cli cli;
    int rc = pool_parse_cli(argc, argv, "tune", tune_usage, true, &cli, root);
    if (rc == -1) {
        if (comm->finish)
            comm->finish();
        return 0;
    }
    struct tune_spec spec;
    memset(&spec, 0, sizeof spec);
    char err[SCN_ERR_MAX + 256] = "";
    if (!rc && (rc = tune_load(cli.file, &spec, err, sizeof err)) && root)
        fprintf(stderr, "rocesim tune: %s\n", err);
    if (!rc && cli.budget)
        spec.budget = cli.budget;
    if (!rc && spec.budget < 2 * spec.n_seeds) {
        if (root)
            fprintf(stderr, "rocesim tune: %s: budget.runs: expected at least %d runs (the baseline and one candidate "
                            "on each of the %d seeds), got %d\n", cli.file, 2 * spec.n_seeds, spec.n_seeds, spec.budget);
        rc = SCN_EUSAGE;
    }
    char dir[4096];
    struct dirlock lock = {.fd = -1};
    if (!rc)
        rc = pool_prepare(&cli, "tune", dir, sizeof dir, root, &lock);
    if (comm->agree(&rc) || rc) {
        dirlock_release(&lock);
        tune_spec_free(&spec);
        if (comm->size > 1)
            comm->agree(&rc);
        if (comm->finish)
            comm->finish();
        return rc ? rc : SCN_EIO;
    }
    int jobs = cli.jobs ? cli.jobs : pool_online_cores() / (comm->local_size > 0 ? comm->local_size : 1);
    struct tuner T = {.s = &spec, .comm = comm, .dir = dir, .jobs = jobs < 1 ? 1 : jobs, .timeout_s = cli.timeout_s,
                      .progress = root && !cli.quiet && isatty(2), .budget = spec.budget, .incumbent = -1,
                      .t0 = t0};
    T.q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)spec.n_params);
    if (!T.q)
        mem_oom("starting the Sobol sequence");
    /* splitmix64 of the search seed: the Cranley-Patterson shift of the design. */
    uint64_t z = spec.search_seed;
    for (int i = 0; i < spec.n_params; i++) {
        z += 0x9E3779B97F4A7C15ULL;
        uint64_t w = z;
        w = (w ^ (w >> 30)) * 0xBF58476D1CE4E5B9ULL;
        w = (w ^ (w >> 27)) * 0x94D049BB133111EBULL;
        w ^= w >> 31;
        T.shift[i] = (double)(w >> 11) * 0x1.0p-53;
    }
    search(&T);
    int sig = pool_end();
    if (sig && !T.interrupted)
        T.interrupted = sig;
    bool *front = mem_xcalloc((size_t)T.n_c + 1, sizeof *front, "in tune");
    int win = pick_winner(&T, front);
    if (!T.interrupted) {
        confirm(&T, win);
        if ((sig = pool_end()) && !T.interrupted)
            T.interrupted = sig;
    }
    pool_progress_clear();
    if (root) {
        char why[200] = "", verdict[500], plots[1200] = "";
        if (T.interrupted)
            stopped_why(&T, why, sizeof why);
        int orc = save_copy(&T);
        if (!orc)
            orc = write_csv(&T);
        if (!orc)
            orc = write_failures(&T);
        if (!orc)
            orc = write_best(&T, win, front, verdict, sizeof verdict, *why ? why : NULL);
        if (!orc && cli.no_plot) {
            tune_plots_clean(dir);
            sfmt(plots, sizeof plots, "not drawn (--no-plot)");
        } else if (!orc) {
            draw(&T, win, front, *why ? why : NULL, plots, sizeof plots);
        }
        print_summary(&T, win, verdict, plots, pool_now_s() - t0);
        if (T.failed_runs && !orc)
            fprintf(stderr, "rocesim tune: %d of %d runs failed; see %s/failures.txt\n", T.failed_runs,
                    ended_runs(&T, true, true), dir);
        if (T.interrupted)
            fprintf(stderr, "rocesim tune: %s\n", why);
        /* As a sweep: 1 when runs failed, though the outputs are written (the search went on without them). */
        rc = T.comm_error     ? SCN_EIO
             : T.interrupted  ? sig_exit_status(T.interrupted)
             : orc            ? orc
             : win < 0 || T.failed_runs ? 1
                                        : 0;
    }
    for (int j = 0; j < T.n_c; j++)
        for (int i = 0; T.c[j].phase != PH_BASELINE && i < spec.n_params; i++)
            free(T.c[j].text[i]);
    for (int r = 0; r < T.n_runs; r++)
        pool_run_free(&T.runs[r]);
    free(T.runs);
    free(T.run_cand);
    free(T.run_seed);
    free(T.run_failed);
    free(T.c);
    free(T.conv_runs);
    free(T.conv_best);
    free(front);
    gsl_qrng_free(T.q);
    tune_spec_free(&spec);
    dirlock_release(&lock);
    if (comm->size > 1)
        comm->agree(&rc);
    if (comm->finish)
        comm->finish();
    return rc;
}
