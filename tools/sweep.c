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
#include "tools/files.h"
#include "tools/limits.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run.h"
#include "tools/runpool.h"
#include "tools/dirlock.h"
#include "tools/signals.h"
#include "tools/sweep_out.h"
#include "tools/sweep_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RUNS 1000000
#define MAX_SETS 256

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
    int rrc = read_spec_json(file, &s->root, err, errlen);
    if (rrc)
        return rrc;
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

/* What the sweep knows of run i beyond the pool's record of it (struct pool_run, the same index). */
struct srun {
    int point, seed_i;
    char id[96];      /* runs/<id> */
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

/* ------------------------------------------------------------------------ */
/* Outputs                                                                   */

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

/*
 * Builds the results table from the runs and writes results.csv, best.json,
 * failures.txt and the plots (runs_done and incomplete: see sweep_best_write).
 * Returns 0, SCN_EUSAGE when the objective is no numeric field of any summary
 * (message on stderr), or SCN_EIO.
 */
static int write_outputs(const struct sweep_spec *s, const struct srun *meta, const struct pool_run *runs, int n,
                         const struct pool_ops *ops, const char *dir, int runs_done, const char *incomplete,
                         struct sweep_best *best, char *plots_line, size_t plots_len)
{
    struct sweep_table t;
    const char **summaries = mem_xcalloc((size_t)n, sizeof *summaries, SWEEP_OOM);
    const char **status = mem_xcalloc((size_t)n, sizeof *status, SWEEP_OOM);
    int *point = mem_xcalloc((size_t)n, sizeof *point, SWEEP_OOM), *seed_i = mem_xcalloc((size_t)n, sizeof *seed_i, SWEEP_OOM);
    for (int i = 0; i < n; i++) {
        summaries[i] = runs[i].summary;
        status[i] = runs[i].status;
        point[i] = meta[i].point;
        seed_i[i] = meta[i].seed_i;
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
    int *failed = mem_xcalloc((size_t)n + 1, sizeof *failed, SWEEP_OOM), n_failed = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].state == POOL_FAILED)
            failed[n_failed++] = i;
    if (!rc && pool_write_failures(dir, runs, failed, n_failed, runs_done, ops)) {
        fprintf(stderr, "rocesim sweep: %s/failures.txt: cannot write: %s\n", dir, strerror(errno));
        rc = SCN_EIO;
    }
    free(failed);
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
static void print_summary(const struct sweep_spec *s, const struct pool_run *runs, int n, double wall,
                          const char *dir, const struct sweep_best *best, const char *plots_line)
{
    int ok = 0, failed = 0, before = 0, started = 0;
    for (int i = 0; i < n; i++) {
        ok += runs[i].state == POOL_OK || runs[i].state == POOL_DONE_BEFORE;
        failed += runs[i].state == POOL_FAILED;
        before += runs[i].state == POOL_DONE_BEFORE;
        started += runs[i].started;
    }
    printf("sweep %s: %d runs (%d grid points x %d seeds): %d ok, %d failed; %d already done, %d started; %.2f s\n",
           s->file, n, s->n_points, s->n_seeds, ok, failed, before, started, wall);
    if (best->found) {
        int left = 0;
        for (int i = 0; i < n; i++)
            left += runs[i].state == POOL_TODO;
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

/* What the pool needs to build a run's command line. */
struct sweep_pool_ctx {
    const struct sweep_spec *spec;
    const struct srun *meta;
    const struct pool_run *runs;
};

/* pool_ops.argv: `rocesim run SCENARIO --set PATH=VALUE... --seed S -o DIR -q --no-plot` for run i, every string
 * its own copy (free_run_argv frees them all). */
static char **run_argv(void *ctx, int i)
{
    const struct sweep_pool_ctx *c = ctx;
    const struct sweep_spec *s = c->spec;
    struct scn_override ov[MAX_SETS];
    int n = sweep_point_overrides(s, c->meta[i].point, ov, MAX_SETS);
    if (n < 0)
        n = 0;
    char **argv = mem_xcalloc((size_t)(2 * n + 16), sizeof *argv, SWEEP_OOM);
    char seed[32];
    sfmt(seed, sizeof seed, "%llu", (unsigned long long)s->seeds[c->meta[i].seed_i]);
    int a = 0;
    argv[a++] = mem_xstrdup("rocesim", SWEEP_OOM);
    argv[a++] = mem_xstrdup("run", SWEEP_OOM);
    argv[a++] = mem_xstrdup(s->scenario, SWEEP_OOM);
    for (int k = 0; k < n; k++) {
        argv[a++] = mem_xstrdup("--set", SWEEP_OOM);
        size_t l = strlen(ov[k].path) + strlen(ov[k].value) + 2;
        argv[a] = mem_xmalloc(l, SWEEP_OOM);
        sfmt(argv[a++], l, "%s=%s", ov[k].path, ov[k].value);
    }
    const char *tail[] = {"--seed", seed, "-o", c->runs[i].dir, "-q", "--no-plot"};
    for (size_t k = 0; k < sizeof tail / sizeof *tail; k++)
        argv[a++] = mem_xstrdup(tail[k], SWEEP_OOM);
    argv[a] = NULL;
    return argv;
}

/* pool_ops.free_argv: frees what run_argv allocated. */
static void free_run_argv(void *ctx, char **argv)
{
    (void)ctx;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

/* See sweep.h. */
int sweep_main(int argc, char **argv)
{
    const struct pool_comm *comm = pool_comm_start(&argc, &argv);
    bool root = comm->rank == 0;
    double t0 = pool_now_s();
    struct pool_cli cli;
    int rc = pool_parse_cli(argc, argv, "sweep", sweep_usage, false, &cli, root);
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
    char dir[4096];
    struct dirlock lock = {.fd = -1};
    if (!rc)
        rc = pool_prepare(&cli, "sweep", dir, sizeof dir, root, &lock);
    if (comm->agree(&rc) || rc) {
        if (!rc)
            rc = SCN_EIO;
        sweep_spec_free(&spec); /* this rank may have loaded it while another could not */
        goto out_nospec;
    }

    int n = spec.n_points * spec.n_seeds;
    struct srun *meta = mem_xcalloc((size_t)n, sizeof *meta, SWEEP_OOM);
    struct pool_run *runs = mem_xcalloc((size_t)n, sizeof *runs, SWEEP_OOM);
    int *all = mem_xcalloc((size_t)n + 1, sizeof *all, SWEEP_OOM);
    for (int p = 0; p < spec.n_points; p++) {
        char id[64];
        sweep_point_id(&spec, p, id, sizeof id);
        for (int k = 0; k < spec.n_seeds; k++) {
            int i = p * spec.n_seeds + k;
            meta[i].point = p;
            meta[i].seed_i = k;
            sfmt(meta[i].id, sizeof meta[i].id, "%s-s%llu", id, (unsigned long long)spec.seeds[k]);
            sfmt(runs[i].dir, sizeof runs[i].dir, "%s/runs/%s", dir, meta[i].id);
            all[i] = i;
        }
    }

    int jobs = cli.jobs ? cli.jobs : pool_online_cores() / (comm->local_size > 0 ? comm->local_size : 1);
    if (jobs < 1)
        jobs = 1;
    bool progress = root && !cli.quiet && isatty(2);
    struct sweep_pool_ctx ctx = {.spec = &spec, .meta = meta, .runs = runs};
    const struct pool_ops ops = {.who = "sweep", .argv = run_argv, .free_argv = free_run_argv, .ctx = &ctx};
    int prc = pool_execute(comm, runs, all, n, jobs, cli.timeout_s, progress, false, &ops);
    /* The outputs are written with SIGINT and SIGTERM back to their default action, as before any run. */
    pool_end();
    int interrupted = prc > 0 ? prc : 0;
    if (prc < 0)
        rc = SCN_EIO;

    if (root) {
        struct sweep_best best = {0};
        char plots_line[1024] = "", why[160] = "";
        int failed = 0, left = 0;
        for (int i = 0; i < n; i++) {
            failed += runs[i].state == POOL_FAILED;
            left += runs[i].state == POOL_TODO;
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
            orc = write_outputs(&spec, meta, runs, n, &ops, dir, n - left, left ? why : NULL, &best, plots_line,
                                sizeof plots_line);
        print_summary(&spec, runs, n, pool_now_s() - t0, dir, &best, plots_line);
        if (failed && !orc)
            fprintf(stderr, "rocesim sweep: %d of %d runs failed; see %s/failures.txt\n", failed, n - left, dir);
        if (left)
            fprintf(stderr, "rocesim sweep: %s: %d runs not done; the same command finishes them\n",
                    interrupted ? "interrupted" : "incomplete", left);
        if (!rc)
            rc = interrupted ? sig_exit_status(interrupted) : orc ? orc : failed || left ? 1 : 0;
    }
    for (int i = 0; i < n; i++)
        pool_run_free(&runs[i]);
    free(runs);
    free(meta);
    free(all);
    sweep_spec_free(&spec);
out_nospec:
    dirlock_release(&lock);
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
            summaries[i] = pool_complete_summary(rdir);
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
        sfmt(err, errlen, "%s: parameters: expected the best.json of a sweep or tune (an object of parameter values), "
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
        sfmt(err, errlen, "%s: complete: expected the best.json of a finished sweep or tune, got one from %s runs (%s); "
                          "rerun the same command to finish it, or pass --allow-incomplete to use this point anyway",
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
