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
#include "tools/explore/sweep.h"
#include "tools/explore/sweep_spec.h"
#include "tools/common/files.h"
#include "tools/run/limits.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run/run.h"
#include "tools/explore/runpool.h"
#include "tools/common/dirlock.h"
#include "tools/common/signals.h"
#include "tools/explore/sweep_out.h"
#include "tools/common/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SETS 256

/* ------------------------------------------------------------------------ */
/* The list of runs                                                          */

/* What the sweep knows of run i beyond the pool's record of it (struct pool_run, the same index). */
struct srun {
    int point, seed_i;
    char id[96];      /* runs/<id> */
};

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
    t = mem_xrealloc(t, l + 2, "in sweep");
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
    const char **summaries = mem_xcalloc((size_t)n, sizeof *summaries, "in sweep");
    const char **status = mem_xcalloc((size_t)n, sizeof *status, "in sweep");
    int *point = mem_xcalloc((size_t)n, sizeof *point, "in sweep"), *seed_i = mem_xcalloc((size_t)n, sizeof *seed_i, "in sweep");
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
    int *failed = mem_xcalloc((size_t)n + 1, sizeof *failed, "in sweep"), n_failed = 0;
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
    char **argv = mem_xcalloc((size_t)(2 * n + 16), sizeof *argv, "in sweep");
    char seed[32];
    sfmt(seed, sizeof seed, "%llu", (unsigned long long)s->seeds[c->meta[i].seed_i]);
    int a = 0;
    argv[a++] = mem_xstrdup("rocesim", "in sweep");
    argv[a++] = mem_xstrdup("run", "in sweep");
    argv[a++] = mem_xstrdup(s->scenario, "in sweep");
    for (int k = 0; k < n; k++) {
        argv[a++] = mem_xstrdup("--set", "in sweep");
        size_t l = strlen(ov[k].path) + strlen(ov[k].value) + 2;
        argv[a] = mem_xmalloc(l, "in sweep");
        sfmt(argv[a++], l, "%s=%s", ov[k].path, ov[k].value);
    }
    const char *tail[] = {"--seed", seed, "-o", c->runs[i].dir, "-q", "--no-plot"};
    for (size_t k = 0; k < sizeof tail / sizeof *tail; k++)
        argv[a++] = mem_xstrdup(tail[k], "in sweep");
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
    struct srun *meta = mem_xcalloc((size_t)n, sizeof *meta, "in sweep");
    struct pool_run *runs = mem_xcalloc((size_t)n, sizeof *runs, "in sweep");
    int *all = mem_xcalloc((size_t)n + 1, sizeof *all, "in sweep");
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
    char **summaries = mem_xcalloc((size_t)n, sizeof *summaries, "in sweep");
    const char **status = mem_xcalloc((size_t)n, sizeof *status, "in sweep");
    int *point = mem_xcalloc((size_t)n, sizeof *point, "in sweep"), *seed_i = mem_xcalloc((size_t)n, sizeof *seed_i, "in sweep");
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
