/* compare — runs side by side (see compare.h). */
#include "tools/compare.h"
#include "tools/flowset.h"
#include "tools/plot.h"
#include "tools/run.h"
#include "tools/sweep_util.h"
#include "sim/mem.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RUNS 8
#define CELL 64

static const char compare_usage[] =
    "usage: rocesim compare DIR [DIR]... [--plot OUT.png [--title TEXT]]\n"
    "  the key numbers of 1 to 8 finished runs side by side, one column per run directory, with each\n"
    "  run's ratio to the first run (x1.50: half as much again as the first); runs that did not\n"
    "  complete are flagged; with the runs' scenario.json and flows.csv also their congestion control\n"
    "  and the FCT slowdown (p50, p95) of the flows in each size range, as congestion-control papers\n"
    "  compare them; --plot OUT.png: draws the HPCC paper's figure of them (FCT slowdown p50 and p95\n"
    "  against flow size, the flows in 20 buckets of 5 % each), with OUT.gp and OUT.dat beside it\n";

/* Reads DIR/summary.json; returns the parsed object, or NULL with a message. */
static cJSON *load_summary(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *b, err[4400];
    if (read_text_file(path, &b, err, sizeof err)) {
        fprintf(stderr, "rocesim: %s (is %s a finished run?)\n", err, dir);
        return NULL;
    }
    cJSON *j = cJSON_Parse(b);
    free(b);
    if (!cJSON_IsObject(j)) {
        fprintf(stderr, "rocesim: %s: expected the summary.json of a run, got %s\n", path,
                j ? "JSON that is not an object" : "text that is not JSON");
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* The number at a dotted path ("flows.fct_ns.p99"), or NaN when absent. */
static double get(const cJSON *j, const char *path)
{
    const cJSON *v = json_at_path(j, path);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The last k components of path (the part after the k-th slash from the end), or the whole path. */
static const char *last_components(const char *path, int k)
{
    for (const char *q = path + strlen(path); q > path; q--)
        if (q[-1] == '/' && --k == 0)
            return *q ? q : path;
    return path;
}

/*
 * Column titles from the directories as given: the last component when that
 * tells every run apart, else as many trailing components as it takes (the
 * whole path at most), so that two runs of one scenario never share a title.
 */
static void make_titles(char **dirs, int n, char titles[][4200])
{
    int k[MAX_RUNS];
    char path[MAX_RUNS][4200];
    for (int i = 0; i < n; i++) {
        sfmt(path[i], sizeof path[i], "%s", dirs[i]);
        size_t l = strlen(path[i]);
        while (l > 1 && path[i][l - 1] == '/') /* "out/a/" is "out/a" */
            path[i][--l] = '\0';
        k[i] = 1;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < n; i++)
            sfmt(titles[i], sizeof titles[i], "%s", last_components(path[i], k[i]));
        for (int i = 0; i < n; i++)
            for (int m = i + 1; m < n; m++)
                if (strcmp(titles[i], titles[m]) == 0 && strcmp(path[i], path[m]) != 0)
                    for (int x = 0; x < 2; x++) {
                        int y = x ? m : i;
                        if (strcmp(titles[y], path[y]) != 0) {
                            k[y]++;
                            changed = true;
                        }
                    }
    }
    /* The same directory twice: still two columns, told apart by their place. */
    bool dup[MAX_RUNS] = {false};
    for (int i = 0; i < n; i++)
        for (int m = 0; m < i; m++)
            dup[i] = dup[i] || strcmp(titles[m], titles[i]) == 0;
    for (int i = 0; i < n; i++)
        if (dup[i]) {
            size_t l = strlen(titles[i]);
            sfmt(titles[i] + l, sizeof titles[i] - l, " (#%d)", i + 1);
        }
}

struct row {
    const char *label, *path;
    double scale;       /* value / scale is printed */
    const char *unit;
    int decimals;
};

/* The rows are counted before they are filled: one per collective of the first run, whatever their number. */
struct table {
    int n_rows, cap, n;
    char (*label)[64];
    char (*cell)[MAX_RUNS][CELL];
};

static void table_init(struct table *t, int cap, int n)
{
    t->n_rows = 0;
    t->cap = cap;
    t->n = n;
    t->label = mem_xcalloc((size_t)cap, sizeof *t->label, SWEEP_OOM);
    t->cell = mem_xcalloc((size_t)cap, sizeof *t->cell, SWEEP_OOM);
}

/* Appends a row and returns it. */
static int add_row(struct table *t, const char *label)
{
    if (t->n_rows == t->cap)
        abort(); /* compare_main counts its rows */
    int r = t->n_rows++;
    sfmt(t->label[r], sizeof t->label[r], "%s", label);
    return r;
}

/* A value with its ratio to the first run's ("-" when the first run's is 0 or missing). */
static void value_cell(char *out, double v, double base, int i, int decimals, double scale)
{
    if (isnan(v)) {
        sfmt(out, CELL, "-");
        return;
    }
    int l = sfmt(out, CELL, "%.*f", decimals, v / scale);
    if (i == 0 || l < 0 || l >= CELL)
        return;
    if (isnan(base) || base == 0)
        sfmt(out + l, CELL - (size_t)l, " (x -)");
    else
        sfmt(out + l, CELL - (size_t)l, " (x%.2f)", v / base);
}

/* Prints the table: labels left, each run's cells right-aligned under its title. */
static void print_table(const struct table *t, char titles[][4200])
{
    int lw = 0, w[MAX_RUNS];
    for (int r = 0; r < t->n_rows; r++)
        lw = (int)strlen(t->label[r]) > lw ? (int)strlen(t->label[r]) : lw;
    for (int i = 0; i < t->n; i++) {
        w[i] = (int)strlen(titles[i]);
        for (int r = 0; r < t->n_rows; r++)
            w[i] = (int)strlen(t->cell[r][i]) > w[i] ? (int)strlen(t->cell[r][i]) : w[i];
    }
    printf("%-*s", lw, "");
    for (int i = 0; i < t->n; i++)
        printf("  %*s", w[i], titles[i]);
    printf("\n");
    for (int r = 0; r < t->n_rows; r++) {
        printf("%-*s", lw, t->label[r]);
        for (int i = 0; i < t->n; i++)
            printf("  %*s", w[i], t->cell[r][i]);
        printf("\n");
    }
}

/* See compare.h. */
/* The congestion control of run dir (host.cc of its resolved scenario.json), or NULL without one. */
static char *run_cc(const char *dir)
{
    char path[4200], *b = NULL;
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    if (access(path, F_OK) != 0 || read_text_file(path, &b, NULL, 0))
        return NULL;
    cJSON *j = cJSON_Parse(b);
    free(b);
    const cJSON *cc = json_at_path(j, "host.cc");
    char *out = cJSON_IsString(cc) ? mem_xstrdup(cc->valuestring, "comparing runs") : NULL;
    cJSON_Delete(j);
    return out;
}

/* Flow size ranges of the by-size rows: decades, as the FCT-slowdown-by-size plots of congestion-control
 * papers (HPCC, SIGCOMM 2019, figures 9 and 10) bucket a web-search workload. */
static const struct {
    const char *label;
    double lo, hi; /* bytes, inclusive; -1: none */
} size_ranges[] = {{"<=10KB", -1, 10000},      {"10KB-100KB", 10001, 100000}, {"100KB-1MB", 100001, 1000000},
                   {"1MB-10MB", 1000001, 1e7}, {">10MB", 1e7 + 1, -1}};
#define N_RANGES (sizeof size_ranges / sizeof size_ranges[0])

/* The slowdown p50 and p95 of run dir's finished flows per size range (NAN where none finished); false without
 * a flows.csv, and false with *rc set (SCN_EUSAGE or SCN_EIO) and the message printed when it has one that
 * cannot be read or is not a run's flows.csv (a NUL byte, a bad row: its line). */
static bool size_slowdowns(const char *dir, double p50[N_RANGES], double p95[N_RANGES], int *rc)
{
    char path[4200], *csv = NULL, err[4400];
    snprintf(path, sizeof path, "%s/flows.csv", dir);
    if (access(path, F_OK) != 0)
        return false;
    int e = read_text_file(path, &csv, err, sizeof err);
    if (e) {
        fprintf(stderr, "rocesim: compare: %s\n", err);
        *rc = e;
        return false;
    }
    bool ok = true;
    for (size_t k = 0; k < N_RANGES && ok; k++) {
        struct flowset f = {.size_min = size_ranges[k].lo, .size_max = size_ranges[k].hi};
        struct flowset_result r;
        ok = flowset_compute(&f, csv, &r, err, sizeof err) == 0;
        p50[k] = ok && flowset_value(&r, "flows.slowdown.p50", &p50[k]) ? p50[k] : NAN;
        p95[k] = ok && flowset_value(&r, "flows.slowdown.p95", &p95[k]) ? p95[k] : NAN;
    }
    free(csv);
    if (!ok) {
        fprintf(stderr, "rocesim: compare: %s: %s\n", path, err);
        *rc = SCN_EUSAGE;
    }
    return ok;
}

/*
 * --plot: the figure of the HPCC paper (Li et al., SIGCOMM 2019, figures 11 and 12; its analysis script
 * fct_analysis.py): the flows sorted by size and cut into 20 buckets of equal count (5 % of the flows each),
 * each bucket labelled by its largest size, and per run the slowdown p50 and p95 of the bucket's finished
 * flows.  The buckets come from every flow of the first run, finished or not, so that runs of one workload
 * share them even when an algorithm leaves other flows unfinished.
 */
#define N_BUCKETS 20

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The size_bytes column of every flow of a flows.csv text, sorted; NULL with a message when there is none. */
static double *csv_sizes(const char *csv, const char *path, int *count)
{
    size_t cap = 1024, m = 0;
    double *v = mem_xmalloc(cap * sizeof *v, "comparing runs");
    const char *l = strchr(csv, '\n');
    for (int line = 2; l && l[1]; line++) {
        l++;
        const char *f = l;
        for (int c = 0; c < 4 && f; c++) {
            f = strpbrk(f, ",\n");
            f = f && *f == ',' ? f + 1 : NULL;
        }
        char *end;
        double size = f ? strtod(f, &end) : 0;
        if (!f || end == f || *end != ',' || !(size > 0)) {
            fprintf(stderr, "rocesim: %s line %d: expected a flow size in the fifth column\n", path, line);
            free(v);
            return NULL;
        }
        if (m == cap)
            v = mem_xrealloc(v, (cap *= 2) * sizeof *v, "comparing runs");
        v[m++] = size;
        l = strchr(l, '\n');
    }
    if (m == 0) {
        fprintf(stderr, "rocesim: %s: no flows to draw\n", path);
        free(v);
        return NULL;
    }
    qsort(v, m, sizeof *v, cmp_double);
    *count = (int)m;
    return v;
}

/* "1.8KB", "30MB" (KB = 1000 bytes, as the scenario's sizes). */
static void size_label(char *out, size_t len, double b)
{
    if (b >= 1e6)
        sfmt(out, len, "%.3gMB", b / 1e6);
    else if (b >= 1e3)
        sfmt(out, len, "%.3gKB", b / 1e3);
    else
        sfmt(out, len, "%.0fB", b);
}

/* Draws out (a .png path) from the runs' flows.csv; returns 0, 2 on bad input, 3 when a file cannot be written. */
static int compare_plot(const char *out, const char *title, char **dirs, int n, char titles[][4200], char **cc,
                        const char *scenario)
{
    char path[4200], pdir[4200], name[PLOT_NAME_MAX + 1], err[1200], *csv = NULL;
    const char *slash = strrchr(out, '/');
    sfmt(pdir, sizeof pdir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (!pdir[0])
        sfmt(pdir, sizeof pdir, "/");
    sfmt(name, sizeof name, "%.*s", (int)strlen(slash ? slash + 1 : out) - 4, slash ? slash + 1 : out);
    snprintf(path, sizeof path, "%s/flows.csv", dirs[0]);
    if (read_text_file(path, &csv, err, sizeof err)) {
        fprintf(stderr, "rocesim: compare --plot: %s\n", err);
        return 2;
    }
    int m = 0;
    double *sizes = csv_sizes(csv, path, &m);
    free(csv);
    if (!sizes)
        return 2;
    double edge[N_BUCKETS];
    int nb = 0;
    for (int k = 0; k < N_BUCKETS; k++) {
        int idx = (int)((long)(k + 1) * m / N_BUCKETS) - 1;
        if (idx >= 0 && (nb == 0 || sizes[idx] > edge[nb - 1]))
            edge[nb++] = sizes[idx];
    }
    free(sizes);
    char *dat = NULL;
    size_t dlen = 0;
    FILE *d = open_memstream(&dat, &dlen);
    if (!d)
        mem_oom("comparing runs");
    fprintf(d, "# bucket, its largest flow size (label, bytes), then per run: slowdown p50, p95 (- : none finished)\n");
    double p50[MAX_RUNS][N_BUCKETS], p95[MAX_RUNS][N_BUCKETS];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/flows.csv", dirs[i]);
        if (read_text_file(path, &csv, err, sizeof err)) {
            fprintf(stderr, "rocesim: compare --plot: %s\n", err);
            fclose(d);
            free(dat);
            return 2;
        }
        for (int k = 0; k < nb; k++) {
            struct flowset f = {.size_min = k ? floor(edge[k - 1]) + 1 : -1, .size_max = edge[k]};
            struct flowset_result r;
            if (flowset_compute(&f, csv, &r, err, sizeof err) != 0) {
                fprintf(stderr, "rocesim: compare --plot: %s: %s\n", path, err);
                free(csv);
                fclose(d);
                free(dat);
                return 2;
            }
            if (!flowset_value(&r, "flows.slowdown.p50", &p50[i][k]))
                p50[i][k] = NAN;
            if (!flowset_value(&r, "flows.slowdown.p95", &p95[i][k]))
                p95[i][k] = NAN;
        }
        free(csv);
    }
    for (int k = 0; k < nb; k++) {
        char lab[32];
        size_label(lab, sizeof lab, edge[k]);
        fprintf(d, "%d \"%s\" %.0f", k, lab, edge[k]);
        for (int i = 0; i < n; i++)
            for (int q = 0; q < 2; q++) {
                double v = q ? p95[i][k] : p50[i][k];
                if (isnan(v))
                    fprintf(d, " -");
                else
                    fprintf(d, " %.4f", v);
            }
        fprintf(d, "\n");
    }
    fclose(d);
    char tdir[4200], gnuplot[4200];
    sfmt(path, sizeof path, "%s/%s.dat", pdir, name);
    int rc = 0;
    if (write_file_atomic(path, dat, dlen) != 0) {
        fprintf(stderr, "rocesim: compare --plot: cannot write %s: %s\n", path, strerror(errno));
        rc = 3;
    }
    free(dat);
    if (rc)
        return rc;
    if (!plot_find_templates(tdir, sizeof tdir)) {
        fprintf(stderr, "rocesim: compare --plot: plot templates (plots/*.gp) not found next to the rocesim binary; "
                        "set ROCESIM_PLOTS to their directory\n");
        return 3;
    }
    char *pre = NULL;
    size_t plen = 0;
    FILE *pf = open_memstream(&pre, &plen);
    if (!pf)
        mem_oom("comparing runs");
    char deftitle[4300];
    sfmt(deftitle, sizeof deftitle, "FCT slowdown by flow size: %s", scenario);
    fprintf(pf, "dat = ");
    plot_gp_str(pf, strrchr(path, '/') + 1);
    fprintf(pf, "\ntitle = ");
    plot_gp_str(pf, title ? title : deftitle);
    fprintf(pf, "\nnruns = %d\n", n);
    const char *legend[MAX_RUNS];
    char leg[MAX_RUNS][4300];
    for (int i = 0; i < n; i++) {
        if (cc[i])
            sfmt(leg[i], sizeof leg[i], "%s (%s)", titles[i], cc[i]);
        else
            sfmt(leg[i], sizeof leg[i], "%s", titles[i]);
        legend[i] = leg[i];
    }
    plot_gp_array(pf, "legend", legend, n);
    fprintf(pf, "\n");
    fclose(pf);
    int w = plot_write_script(pdir, tdir, "fct_slowdown", name, pre, err, sizeof err);
    free(pre);
    if (w) {
        fprintf(stderr, "rocesim: compare --plot: %s\n", err);
        return 3;
    }
    if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "rocesim: compare --plot: gnuplot not found: %s/%s.gp written (run gnuplot there)\n", pdir,
                name);
        return 3;
    }
    pid_t pid = plot_gnuplot_start(gnuplot, pdir, name);
    char why[1200];
    if (pid < 0 || plot_gnuplot_finish(gnuplot, pdir, name, pid, why, sizeof why) != 0) {
        fprintf(stderr, "rocesim: compare --plot: %s.png not drawn: %s\n", name,
                pid < 0 ? strerror(errno) : why);
        return 3;
    }
    printf("plot: %s (data %s/%s.dat, script %s/%s.gp)\n", out, pdir, name, pdir, name);
    return 0;
}

int compare_main(int argc, char **argv)
{
    char *dirs[MAX_RUNS];
    const char *plot_out = NULL, *plot_title = NULL;
    int n = 0;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            fputs(compare_usage, stdout);
            return 0;
        }
        if (strcmp(argv[a], "--plot") == 0 || strcmp(argv[a], "--title") == 0) {
            if (a + 1 == argc) {
                fprintf(stderr, "rocesim: compare: %s needs a value\n%s", argv[a], compare_usage);
                return 2;
            }
            *(argv[a][2] == 'p' ? &plot_out : &plot_title) = argv[a + 1];
            a++;
            continue;
        }
        if (argv[a][0] == '-' && argv[a][1]) {
            fprintf(stderr, "rocesim: compare: unknown option \"%s\"\n%s", argv[a], compare_usage);
            return 2;
        }
        if (n < MAX_RUNS)
            dirs[n] = argv[a];
        n++;
    }
    size_t ol = plot_out ? strlen(plot_out) : 0;
    if (plot_out && (ol <= 4 || strcmp(plot_out + ol - 4, ".png") != 0 || plot_out[ol - 5] == '/')) {
        fprintf(stderr, "rocesim: compare: --plot expects a file name ending in .png, got \"%s\"\n", plot_out);
        return 2;
    }
    if (plot_title && !plot_out) {
        fprintf(stderr, "rocesim: compare: --title goes with --plot\n%s", compare_usage);
        return 2;
    }
    if (n < 1 || n > MAX_RUNS) {
        fprintf(stderr, "rocesim: compare: expected 1 to %d run directories, got %d\n%s", MAX_RUNS, n < 0 ? 0 : n,
                compare_usage);
        return 2;
    }
    cJSON *s[MAX_RUNS];
    for (int i = 0; i < n; i++)
        if (!(s[i] = load_summary(dirs[i]))) {
            for (int k = 0; k < i; k++)
                cJSON_Delete(s[k]);
            return 2;
        }
    static const struct row rows[] = {
        {"simulated time", "sim_end_ns", 1e6, "ms", 3},
        {"flows finished", "flows.completed", 1, "", 0},
        {"FCT p50", "flows.fct_ns.p50", 1e3, "us", 1},
        {"FCT p99", "flows.fct_ns.p99", 1e3, "us", 1},
        {"slowdown p99", "flows.slowdown.p99", 1, "", 2},
        {"data packets sent", "packets.sent", 1, "", 0},
        {"dropped", "packets.dropped", 1, "", 0},
        {"retransmitted", "packets.retransmitted", 1, "", 0},
        {"timeouts", "packets.timeouts", 1, "", 0},
        {"ECN-marked", "packets.ecn_marked", 1, "", 0},
        {"CNPs", "cnp.sent", 1, "", 0},
        {"PAUSE frames", "pfc.pause_frames", 1, "", 0},
        {"time paused", "pfc.paused_ns_total", 1e3, "us", 1},
        {"watchdog storms", "watchdog.storms_detected", 1, "", 0},
    };
    char titles[MAX_RUNS][4200];
    make_titles(dirs, n, titles);
    const cJSON *c0 = cJSON_GetObjectItemCaseSensitive(s[0], "collectives");
    int nc = cJSON_GetArraySize(c0);
    struct table tab, *t = &tab;
    /* scenario, complete, the collectives, the fixed rows, deadlock */
    char *cc[MAX_RUNS];
    bool any_cc = false, any_size = false, have_size[MAX_RUNS];
    double p50[MAX_RUNS][N_RANGES], p95[MAX_RUNS][N_RANGES];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        any_cc |= (cc[i] = run_cc(dirs[i])) != NULL;
        any_size |= have_size[i] = !bad && size_slowdowns(dirs[i], p50[i], p95[i], &bad);
    }
    if (bad) {
        for (int i = 0; i < n; i++) {
            cJSON_Delete(s[i]);
            free(cc[i]);
        }
        return bad;
    }
    table_init(t, 3 + nc + (int)(sizeof rows / sizeof *rows) + 2 * (int)N_RANGES + 1, n);
    bool incomplete[MAX_RUNS], any_incomplete = false;
    int r = add_row(t, "scenario");
    for (int i = 0; i < n; i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s[i], "scenario");
        sfmt(t->cell[r][i], CELL, "%s", cJSON_IsString(nm) ? nm->valuestring : "?");
    }
    if (any_cc) {
        r = add_row(t, "congestion control");
        for (int i = 0; i < n; i++)
            sfmt(t->cell[r][i], CELL, "%s", cc[i] ? cc[i] : "?");
    }
    r = add_row(t, "complete");
    for (int i = 0; i < n; i++) {
        /* a summary without the field is from a run that could not be interrupted: complete */
        incomplete[i] = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s[i], "complete"));
        any_incomplete = any_incomplete || incomplete[i];
        sfmt(t->cell[r][i], CELL, "%s", incomplete[i] ? "NO (see note)" : "yes");
    }
    /* collectives first: they are what a training job waits for */
    for (int k = 0; k < nc; k++) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c0, k), "id");
        char label[64];
        sfmt(label, sizeof label, "%.40s time (ms)", cJSON_IsString(id) ? id->valuestring : "collective");
        r = add_row(t, label);
        double base = NAN;
        for (int i = 0; i < n; i++) {
            const cJSON *ci = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s[i], "collectives"), k);
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(ci, "completion_ns");
            if (!cJSON_IsNumber(v)) {
                sfmt(t->cell[r][i], CELL, "unfinished");
                continue;
            }
            if (i == 0)
                base = v->valuedouble;
            value_cell(t->cell[r][i], v->valuedouble, base, i, 3, 1e6);
        }
    }
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        char label[64];
        sfmt(label, sizeof label, rows[k].unit[0] ? "%s (%s)" : "%s", rows[k].label, rows[k].unit);
        r = add_row(t, label);
        double base = get(s[0], rows[k].path);
        for (int i = 0; i < n; i++)
            value_cell(t->cell[r][i], get(s[i], rows[k].path), base, i, rows[k].decimals, rows[k].scale);
    }
    /* By flow size: a range where no run finished a flow is left out. */
    for (size_t k = 0; k < N_RANGES && any_size; k++) {
        bool any = false;
        for (int i = 0; i < n; i++)
            any |= have_size[i] && !isnan(p50[i][k]);
        for (int q = 0; q < 2 && any; q++) {
            char label[64];
            sfmt(label, sizeof label, "slowdown p%s %s", q ? "95" : "50", size_ranges[k].label);
            r = add_row(t, label);
            double base = have_size[0] ? (q ? p95[0][k] : p50[0][k]) : NAN;
            for (int i = 0; i < n; i++) {
                double v = have_size[i] ? (q ? p95[i][k] : p50[i][k]) : NAN;
                value_cell(t->cell[r][i], v, base, i, 2, 1);
            }
        }
    }
    r = add_row(t, "deadlock");
    for (int i = 0; i < n; i++) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s[i], "deadlock"),
                                                          "detected");
        sfmt(t->cell[r][i], CELL, "%s", cJSON_IsTrue(d) ? "DETECTED" : "no");
    }
    print_table(t, titles);
    if (n > 1)
        printf("(xR): the run's value divided by the first run's (%s); x - where the first run's is 0\n", titles[0]);
    for (int i = 0; i < n && any_incomplete; i++) {
        if (!incomplete[i])
            continue;
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(s[i], "incomplete_reason");
        double end = get(s[i], "sim_end_ns");
        printf("note: %s did not complete (%s): its numbers cover only the ", titles[i],
               cJSON_IsString(why) ? why->valuestring : "summary.json says \"complete\": false");
        if (isnan(end))
            printf("part it ran\n");
        else
            printf("%.3f ms it simulated\n", end / 1e6);
    }
    int rc = 0;
    if (plot_out) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s[0], "scenario");
        fflush(stdout);
        rc = compare_plot(plot_out, plot_title, dirs, n, titles, cc, cJSON_IsString(nm) ? nm->valuestring : "?");
    }
    free(t->label);
    free(t->cell);
    for (int i = 0; i < n; i++) {
        cJSON_Delete(s[i]);
        free(cc[i]);
    }
    return rc;
}
