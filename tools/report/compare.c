/* compare — runs side by side (see compare.h). */
#include "tools/report/compare.h"
#include "tools/common/files.h"
#include "tools/report/flowset.h"
#include "tools/run/plot.h"
#include "tools/common/text.h"
#include "models/cc.h"
#include "sim/mem.h"
#include "sim/scenario.h"

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
    "usage: rocesim compare DIR [DIR]... [--fct receiver|sender] [--plot OUT.png] [--goodput OUT.png]\n"
    "                       [--title TEXT]\n"
    "  the key numbers of 1 to 8 finished runs side by side, one column per run directory, with each\n"
    "  run's ratio to the first run (x1.50: half as much again as the first); runs that did not\n"
    "  complete are flagged; with the runs' scenario.json and flows.csv also their congestion control\n"
    "  (the hosts of each when profiles mix them) and the FCT slowdown (p50, p95) of the flows in each\n"
    "  size range, as congestion-control papers compare them; --fct sender: FCTs and slowdowns to the\n"
    "  ACK of a flow's last byte at its sender, as the HPCC paper's simulator measures them (default\n"
    "  receiver: to the last byte at the receiver); --plot OUT.png: draws the HPCC paper's figure of\n"
    "  them (FCT slowdown p50 and p95 against flow size, the flows in 20 buckets of 5 % each), with\n"
    "  OUT.gp and OUT.dat beside it; --goodput OUT.png: draws the distribution (CDF) of each run's\n"
    "  per-flow goodput (size / FCT, Gbit/s), one curve per run, as load-balancing papers compare\n"
    "  them on a permutation; --title TEXT: the title of the plot (of both, with both)\n";

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
    t->label = mem_xcalloc((size_t)cap, sizeof *t->label, "comparing runs");
    t->cell = mem_xcalloc((size_t)cap, sizeof *t->cell, "comparing runs");
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

/* Whether any host profile of scenario.json (parsed) sets host.cc. */
static bool profiles_set_cc(const cJSON *j)
{
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "profiles");
    for (const cJSON *it = cJSON_IsArray(pr) ? pr->child : NULL; it; it = it->next)
        if (cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "host"), "cc"))
            return true;
    return false;
}

/*
 * The hosts' congestion controls when profiles mix them, as the run resolved them (the global host object, then
 * the host profiles that match each host, in order: models/profiles.c): "mixed: dcqcn 12, hpcc 4", most hosts first
 * (then by name), or the one name when every host has the same.  NULL when the scenario does not load.
 */
static char *hosts_cc(const char *path, const char *text)
{
    struct scenario *scn = mem_xcalloc(1, sizeof *scn, "comparing runs");
    struct scn_host *h = mem_xcalloc(1, sizeof *h, "comparing runs");
    char err[SCN_ERR_MAX];
    int count[CC_MAX] = {0};
    bool loaded = scn_load_text(path, text, NULL, 0, scn, err, sizeof err) == SCN_OK, ok = loaded;
    for (int i = 0; ok && i < scn->topo.n_hosts; i++) {
        memcpy(h, &scn->host, sizeof *h);
        for (int p = 0; ok && p < scn->n_profiles; p++) {
            const struct scn_profile *pr = &scn->profiles[p];
            bool match = false;
            for (int k = 0; pr->kind == SCN_PROFILE_HOST && !pr->ports && k < pr->n_match && !match; k++)
                match = scn_name_match(pr->match[k], scn_host_name(scn, i));
            ok = !match || scn_profile_apply(scn, p, h, err, sizeof err) == 0;
        }
        int cc = ok ? cc_params_of(h)->cc : -1;
        if (cc >= 0 && cc < CC_MAX)
            count[cc]++;
    }
    char *out = NULL;
    if (ok) {
        char buf[CELL] = "mixed:";
        size_t l = strlen(buf);
        int kinds = 0, last = -1;
        for (;;) {
            int best = -1; /* the next: most hosts, then the name */
            for (int c = 0; c < CC_MAX; c++)
                if (count[c] > 0 && (best < 0 || count[c] > count[best] ||
                                     (count[c] == count[best] && strcmp(cc_scenario_name(c), cc_scenario_name(best)) < 0)))
                    best = c;
            if (best < 0)
                break;
            l += (size_t)sfmt(buf + l, sizeof buf - l, "%s %s %d", kinds++ ? "," : "", cc_scenario_name(best), count[best]);
            count[best] = 0;
            last = best;
        }
        out = mem_xstrdup(kinds == 1 ? cc_scenario_name(last) : buf, "comparing runs");
    }
    if (loaded)
        scn_free(scn);
    free(scn);
    free(h);
    return out;
}

/*
 * The congestion control of run dir, from its resolved scenario.json: host.cc, or the mix host profiles make
 * (hosts_cc); NULL without a scenario.json.
 */
static char *run_cc(const char *dir)
{
    char path[4200], *b = NULL;
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    if (access(path, F_OK) != 0 || read_text_file(path, &b, NULL, 0))
        return NULL;
    cJSON *j = cJSON_Parse(b);
    const cJSON *cc = json_at_path(j, "host.cc");
    char *out = NULL;
    if (cJSON_IsString(cc) && !profiles_set_cc(j)) {
        out = mem_xstrdup(cc->valuestring, "comparing runs");
    } else if (cJSON_IsString(cc) && !(out = hosts_cc(path, b))) {
        /* a scenario.json this rocesim no longer loads (an older one's): the mix is not known, only that it is */
        char t[CELL];
        sfmt(t, sizeof t, "mixed? host.cc %.20s, profiles set others", cc->valuestring);
        out = mem_xstrdup(t, "comparing runs");
    }
    cJSON_Delete(j);
    free(b);
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

/*
 * Which completion the FCT rows, the by-size slowdowns and the plot use (--fct; docs/outputs.md, "Two flow
 * completion times"): the receiver's last byte, the default, or the sender's last ACK.
 */
struct fct_def {
    const char *count, *fct, *slowdown; /* summary.json's (and flowset's) names: the count and the statistics */
    const char *count_label, *what;     /* the count's row; after "FCT" and "slowdown" in the others */
};
static const struct fct_def fct_receiver = {"flows.completed", "flows.fct_ns", "flows.slowdown", "flows finished",
                                            ""};
static const struct fct_def fct_sender = {"flows.acked", "flows.fct_ack_ns", "flows.slowdown_ack", "flows acked",
                                          " to last ACK"};

/* The slowdown p50 and p95 (as def defines it) of a flows.csv's (csv) flows in the size range lo..hi (NAN where
 * none has one); false when csv is not a flows.csv (message in err). */
static bool range_slowdowns(const char *csv, const struct fct_def *def, double lo, double hi, double *p50,
                            double *p95, char *err, size_t errlen)
{
    struct flowset f = {.size_min = lo, .size_max = hi};
    struct flowset_result r;
    char m50[64], m95[64];
    sfmt(m50, sizeof m50, "%s.p50", def->slowdown);
    sfmt(m95, sizeof m95, "%s.p95", def->slowdown);
    bool ok = flowset_compute(&f, csv, &r, err, errlen) == 0;
    if (!ok || !flowset_value(&r, m50, p50))
        *p50 = NAN;
    if (!ok || !flowset_value(&r, m95, p95))
        *p95 = NAN;
    return ok;
}

/* The slowdown p50 and p95 of run dir's flows per size range (NAN where none has one); false without a
 * flows.csv, and false with *rc set (SCN_EUSAGE or SCN_EIO) and the message printed when it has one that cannot
 * be read or is not a run's flows.csv (a NUL byte, a bad row: its line). */
static bool size_slowdowns(const char *dir, const struct fct_def *def, double p50[N_RANGES], double p95[N_RANGES],
                           int *rc)
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
    for (size_t k = 0; k < N_RANGES && ok; k++)
        ok = range_slowdowns(csv, def, size_ranges[k].lo, size_ranges[k].hi, &p50[k], &p95[k], err, sizeof err);
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

/* Run dir's flows.csv (its path in path), or NULL with "rocesim: compare OPTION: ..." on stderr. */
static char *run_flows(const char *dir, const char *option, char path[4200])
{
    char err[1200], *csv = NULL;
    snprintf(path, 4200, "%s/flows.csv", dir);
    if (read_text_file(path, &csv, err, sizeof err)) {
        fprintf(stderr, "rocesim: compare %s: %s\n", option, err);
        return NULL;
    }
    return csv;
}

/* The buckets' upper edges from the first run's flows (a size that ends two buckets ends one).  Returns how many,
 * or -1 with the message on stderr. */
static int bucket_edges(const char *dir, double edge[N_BUCKETS])
{
    char path[4200], *csv = run_flows(dir, "--plot", path);
    if (!csv)
        return -1;
    int m = 0;
    double *sizes = csv_sizes(csv, path, &m);
    free(csv);
    if (!sizes)
        return -1;
    int nb = 0;
    for (int k = 0; k < N_BUCKETS; k++) {
        int idx = (int)((long)(k + 1) * m / N_BUCKETS) - 1;
        if (idx >= 0 && (nb == 0 || sizes[idx] > edge[nb - 1]))
            edge[nb++] = sizes[idx];
    }
    free(sizes);
    return nb;
}

/* The .dat text: a row per bucket, its label and largest size, then each run's p50 and p95.  Returns 0, or 2 with
 * the message on stderr. */
static int bucket_dat(char **dirs, int n, const struct fct_def *def, const double *edge, int nb, char **dat,
                      size_t *dlen)
{
    char path[4200], err[1200], *csv = NULL;
    *dat = NULL;
    *dlen = 0;
    FILE *d = open_memstream(dat, dlen);
    if (!d)
        mem_oom("comparing runs");
    fprintf(d, "# bucket, its largest flow size (label, bytes), then per run: slowdown%s p50, p95 (- : none %s)\n",
            def->what, def == &fct_sender ? "acked" : "finished");
    double p50[MAX_RUNS][N_BUCKETS], p95[MAX_RUNS][N_BUCKETS];
    for (int i = 0; i < n; i++) {
        if (!(csv = run_flows(dirs[i], "--plot", path))) {
            fclose(d);
            free(*dat);
            return 2;
        }
        for (int k = 0; k < nb; k++)
            if (!range_slowdowns(csv, def, k ? floor(edge[k - 1]) + 1 : -1, edge[k], &p50[i][k], &p95[i][k], err,
                                 sizeof err)) {
                fprintf(stderr, "rocesim: compare --plot: %s: %s\n", path, err);
                free(csv);
                fclose(d);
                free(*dat);
                return 2;
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
    return 0;
}

/* What fct_slowdown.gp needs beyond the data: the data file's name, the title, and a legend entry per run with its
 * congestion control when its scenario.json says it (a comparison is usually one of algorithms). */
/* What a comparison's gnuplot script gets before its own part: the data file's name, the title (`title`, else
 * `deftitle`), the number of runs and their legend entries. */
static char *plot_prelude(const char *datname, const char *title, const char *deftitle, int n,
                          char leg[][4300])
{
    char *pre = NULL;
    size_t plen = 0;
    FILE *pf = open_memstream(&pre, &plen);
    if (!pf)
        mem_oom("comparing runs");
    fprintf(pf, "dat = ");
    plot_gp_str(pf, datname);
    fprintf(pf, "\ntitle = ");
    plot_gp_str(pf, title ? title : deftitle);
    fprintf(pf, "\nnruns = %d\n", n);
    const char *legend[MAX_RUNS];
    for (int i = 0; i < n; i++)
        legend[i] = leg[i];
    plot_gp_array(pf, "legend", legend, n);
    fprintf(pf, "\n");
    fclose(pf);
    return pre;
}

static char *fct_prelude(const char *datname, const char *title, const char *scenario, const struct fct_def *def,
                         int n, char titles[][4200], char **cc)
{
    char deftitle[4300];
    sfmt(deftitle, sizeof deftitle, "FCT slowdown%s by flow size: %s", def->what, scenario);
    char leg[MAX_RUNS][4300];
    for (int i = 0; i < n; i++) {
        if (cc[i])
            sfmt(leg[i], sizeof leg[i], "%s (%s)", titles[i], cc[i]);
        else
            sfmt(leg[i], sizeof leg[i], "%s", titles[i]);
    }
    return plot_prelude(datname, title, deftitle, n, leg);
}

/* out's directory and its name without ".png" (parse_args checked the suffix). */
static void out_parts(const char *out, char *pdir, size_t plen, char name[PLOT_NAME_MAX + 1])
{
    const char *slash = strrchr(out, '/');
    sfmt(pdir, plen, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (!pdir[0])
        sfmt(pdir, plen, "/");
    sfmt(name, PLOT_NAME_MAX + 1, "%.*s", (int)strlen(slash ? slash + 1 : out) - 4, slash ? slash + 1 : out);
}

/* Writes pdir/name.dat (dat), pdir/name.gp (template tpl after the prelude pre, which names the .dat) and draws
 * pdir/name.png with gnuplot; what says which option asks (in the messages).  Returns 0, or 3 when a file cannot
 * be written or gnuplot fails. */
static int draw(const char *what, const char *out, const char *pdir, const char *name, const char *dat, size_t dlen,
                const char *tpl, const char *pre)
{
    char path[4200], tdir[4200], gnuplot[4200], err[1200];
    sfmt(path, sizeof path, "%s/%s.dat", pdir, name);
    if (write_file_atomic(path, dat, dlen) != 0) {
        fprintf(stderr, "rocesim: compare %s: cannot write %s: %s\n", what, path, strerror(errno));
        return 3;
    }
    if (!plot_find_templates(tdir, sizeof tdir)) {
        fprintf(stderr, "rocesim: compare %s: plot templates (plots/*.gp) not found next to the rocesim binary; "
                        "set ROCESIM_PLOTS to their directory\n", what);
        return 3;
    }
    if (plot_write_script(pdir, tdir, tpl, name, pre, err, sizeof err)) {
        fprintf(stderr, "rocesim: compare %s: %s\n", what, err);
        return 3;
    }
    if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "rocesim: compare %s: gnuplot not found: %s/%s.gp written (run gnuplot there)\n", what, pdir,
                name);
        return 3;
    }
    pid_t pid = plot_gnuplot_start(gnuplot, pdir, name);
    char why[1200];
    if (pid < 0 || plot_gnuplot_finish(gnuplot, pdir, name, pid, why, sizeof why) != 0) {
        fprintf(stderr, "rocesim: compare %s: %s.png not drawn: %s\n", what, name, pid < 0 ? strerror(errno) : why);
        return 3;
    }
    printf("plot: %s (data %s/%s.dat, script %s/%s.gp)\n", out, pdir, name, pdir, name);
    return 0;
}

/* Draws out (a .png path) from the runs' flows.csv; returns 0, 2 on bad input, 3 when a file cannot be written. */
static int compare_plot(const char *out, const char *title, char **dirs, int n, char titles[][4200], char **cc,
                        const char *scenario, const struct fct_def *def)
{
    char pdir[4200], name[PLOT_NAME_MAX + 1];
    out_parts(out, pdir, sizeof pdir, name);
    double edge[N_BUCKETS];
    int nb = bucket_edges(dirs[0], edge);
    if (nb < 0)
        return 2;
    char *dat;
    size_t dlen;
    if (bucket_dat(dirs, n, def, edge, nb, &dat, &dlen))
        return 2;
    char datname[PLOT_NAME_MAX + 8];
    sfmt(datname, sizeof datname, "%s.dat", name);
    char *pre = fct_prelude(datname, title, scenario, def, n, titles, cc);
    int rc = draw("--plot", out, pdir, name, dat, dlen, "fct_slowdown", pre);
    free(pre);
    free(dat);
    return rc;
}

/*
 * --goodput: the distribution of the flows' goodput in each run, a flow's size over its FCT (to its last byte at
 * the receiver, as flows.csv's fct_ns), in Gbit/s: one block per run of its finished flows' goodput, sorted, each
 * with the fraction of the run's finished flows at or below it (a CDF).  Returns 0, or 2 with the message on stderr
 * (a flows.csv that is missing or is not a run's); fin[] and all[] get each run's finished and total flows.
 */
static int goodput_dat(char **dirs, int n, int *fin, int *all, char **dat, size_t *dlen)
{
    char path[4200], err[1200], *csv = NULL;
    *dat = NULL;
    *dlen = 0;
    FILE *d = open_memstream(dat, dlen);
    if (!d)
        mem_oom("comparing runs");
    fprintf(d, "# per run (a block each, in the order given): goodput of a finished flow (Gbit/s: size x 8 / FCT), "
               "fraction of the run's finished flows at or below it\n");
    for (int i = 0; i < n; i++) {
        if (!(csv = run_flows(dirs[i], "--goodput", path))) {
            fclose(d);
            free(*dat);
            return 2;
        }
        struct flowset_result r;
        double *g;
        size_t m;
        if (flowset_goodputs(NULL, csv, &r, &g, &m, err, sizeof err)) {
            fprintf(stderr, "rocesim: compare --goodput: %s: %s\n", path, err);
            free(csv);
            fclose(d);
            free(*dat);
            return 2;
        }
        free(csv);
        all[i] = r.total;
        fin[i] = (int)m;
        fprintf(d, "%s# %s\n", i ? "\n\n" : "", dirs[i]);
        if (m == 0)
            fprintf(d, "- -\n"); /* an empty block would end the file's blocks early: gnuplot's index counts them */
        for (size_t k = 0; k < m; k++)
            fprintf(d, "%.4f %.6f\n", g[k], (double)(k + 1) / (double)m);
        free(g);
    }
    fclose(d);
    return 0;
}

/* Draws out (a .png path), the CDF of each run's per-flow goodput, from the runs' flows.csv; returns 0, 2 on bad
 * input, 3 when a file cannot be written. */
static int compare_goodput(const char *out, const char *title, char **dirs, int n, char titles[][4200],
                           const char *scenario)
{
    char pdir[4200], name[PLOT_NAME_MAX + 1];
    out_parts(out, pdir, sizeof pdir, name);
    int fin[MAX_RUNS], all[MAX_RUNS];
    char *dat;
    size_t dlen;
    if (goodput_dat(dirs, n, fin, all, &dat, &dlen))
        return 2;
    char deftitle[4300], datname[PLOT_NAME_MAX + 8];
    sfmt(datname, sizeof datname, "%s.dat", name);
    sfmt(deftitle, sizeof deftitle, "Goodput per flow (size / FCT): %s", scenario);
    char leg[MAX_RUNS][4300];
    for (int i = 0; i < n; i++) {
        /* the flows a curve leaves out: those that did not finish */
        if (fin[i] < all[i])
            sfmt(leg[i], sizeof leg[i], "%s (%d of %d flows finished)", titles[i], fin[i], all[i]);
        else
            sfmt(leg[i], sizeof leg[i], "%s", titles[i]);
    }
    char *pre = plot_prelude(datname, title, deftitle, n, leg);
    int rc = draw("--goodput", out, pdir, name, dat, dlen, "goodput_cdf", pre);
    free(pre);
    free(dat);
    return rc;
}

/* The command line: the run directories and the options.  Returns -1 to go on, else the exit status. */
struct compare_args {
    char *dirs[MAX_RUNS];
    int n;
    const char *plot_out, *plot_title, *goodput_out;
    const struct fct_def *def;
};

static int parse_args(int argc, char **argv, struct compare_args *a)
{
    *a = (struct compare_args){.def = &fct_receiver};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(compare_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--plot") == 0 || strcmp(argv[i], "--title") == 0 || strcmp(argv[i], "--fct") == 0 ||
            strcmp(argv[i], "--goodput") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "rocesim: compare: %s needs a value\n%s", argv[i], compare_usage);
                return 2;
            }
            const char *v = argv[++i];
            if (argv[i - 1][2] == 'p')
                a->plot_out = v;
            else if (argv[i - 1][2] == 'g')
                a->goodput_out = v;
            else if (argv[i - 1][2] == 't')
                a->plot_title = v;
            else if (strcmp(v, "receiver") == 0 || strcmp(v, "sender") == 0)
                a->def = v[0] == 's' ? &fct_sender : &fct_receiver;
            else {
                fprintf(stderr, "rocesim: compare: --fct expects receiver (to the last byte) or sender (to the last "
                                "ACK), got \"%.80s\"\n", v);
                return 2;
            }
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "rocesim: compare: unknown option \"%s\"\n%s", argv[i], compare_usage);
            return 2;
        }
        if (a->n < MAX_RUNS)
            a->dirs[a->n] = argv[i];
        a->n++;
    }
    for (int k = 0; k < 2; k++) {
        const char *o = k ? a->goodput_out : a->plot_out;
        size_t ol = o ? strlen(o) : 0;
        if (o && (ol <= 4 || strcmp(o + ol - 4, ".png") != 0 || o[ol - 5] == '/')) {
            fprintf(stderr, "rocesim: compare: %s expects a file name ending in .png, got \"%s\"\n",
                    k ? "--goodput" : "--plot", o);
            return 2;
        }
    }
    if (a->plot_title && !a->plot_out && !a->goodput_out) {
        fprintf(stderr, "rocesim: compare: --title goes with --plot or --goodput\n%s", compare_usage);
        return 2;
    }
    if (a->plot_out && a->goodput_out && strcmp(a->plot_out, a->goodput_out) == 0) {
        fprintf(stderr, "rocesim: compare: --plot and --goodput name the same file \"%s\"\n", a->plot_out);
        return 2;
    }
    if (a->n < 1 || a->n > MAX_RUNS) {
        fprintf(stderr, "rocesim: compare: expected 1 to %d run directories, got %d\n%s", MAX_RUNS,
                a->n < 0 ? 0 : a->n, compare_usage);
        return 2;
    }
    return -1;
}

/* A row of a number some runs' summary.json leave out (0 there). */
static void add_optional_row(struct table *t, cJSON **s, int n, const struct row *row)
{
    char label[64];
    sfmt(label, sizeof label, row->unit[0] ? "%s (%s)" : "%s", row->label, row->unit);
    int r = add_row(t, label);
    double base = get(s[0], row->path);
    base = isnan(base) ? 0 : base;
    for (int i = 0; i < n; i++) {
        double v = get(s[i], row->path);
        value_cell(t->cell[r][i], isnan(v) ? 0 : v, base, i, row->decimals, row->scale);
    }
}

/* The rows of summary.json's numbers, the FCT ones by def. */
#define N_FIXED_ROWS 14
static void add_fixed_rows(struct table *t, cJSON **s, int n, const struct fct_def *def)
{
    char fct50[64], fct99[64], sd99[64], l50[64], l99[64], lsd[64];
    sfmt(fct50, sizeof fct50, "%s.p50", def->fct);
    sfmt(fct99, sizeof fct99, "%s.p99", def->fct);
    sfmt(sd99, sizeof sd99, "%s.p99", def->slowdown);
    sfmt(l50, sizeof l50, "FCT%s p50", def->what);
    sfmt(l99, sizeof l99, "FCT%s p99", def->what);
    sfmt(lsd, sizeof lsd, "slowdown%s p99", def->what);
    const struct row rows[N_FIXED_ROWS] = {
        {"simulated time", "sim_end_ns", 1e6, "ms", 3},
        {def->count_label, def->count, 1, "", 0},
        {l50, fct50, 1e3, "us", 1},
        {l99, fct99, 1e3, "us", 1},
        {lsd, sd99, 1, "", 2},
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
    for (size_t k = 0; k < N_FIXED_ROWS; k++) {
        char label[64];
        sfmt(label, sizeof label, rows[k].unit[0] ? "%s (%s)" : "%s", rows[k].label, rows[k].unit);
        int r = add_row(t, label);
        double base = get(s[0], rows[k].path);
        for (int i = 0; i < n; i++)
            value_cell(t->cell[r][i], get(s[i], rows[k].path), base, i, rows[k].decimals, rows[k].scale);
    }
    /* InfiniBand's runs wait for credit where RoCE's are paused: their rows when a run has credits (a run without
     * has none: 0). */
    bool credits = false;
    for (int i = 0; i < n; i++)
        credits |= cJSON_GetObjectItemCaseSensitive(s[i], "credits") != NULL;
    static const struct row credit_rows[] = {
        {"flow-control packets", "credits.flow_control_packets", 1, "", 0},
        {"time stalled for credit", "credits.stalled_ns_total", 1e3, "us", 1},
    };
    for (size_t k = 0; credits && k < sizeof credit_rows / sizeof *credit_rows; k++)
        add_optional_row(t, s, n, &credit_rows[k]);
    /* Spraying, adaptive routing and flowlets reorder, trimming cuts frames to their headers: their rows when a run
     * has them (summary.json's "reordering" and "packets.trimmed" are there only then: the others have none). */
    static const struct row multipath_rows[] = {
        {"out of order", "reordering.out_of_order", 1, "", 0},
        {"trimmed", "packets.trimmed", 1, "", 0},
    };
    for (size_t k = 0; k < sizeof multipath_rows / sizeof *multipath_rows; k++) {
        bool any = false;
        for (int i = 0; i < n; i++)
            any |= !isnan(get(s[i], multipath_rows[k].path));
        if (any)
            add_optional_row(t, s, n, &multipath_rows[k]);
    }
}

/* The rows of the collectives' completion times, those of the first run. */
static void add_collective_rows(struct table *t, cJSON **s, int n)
{
    const cJSON *c0 = cJSON_GetObjectItemCaseSensitive(s[0], "collectives");
    for (int k = 0; k < cJSON_GetArraySize(c0); k++) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c0, k), "id");
        char label[64];
        sfmt(label, sizeof label, "%.40s time (ms)", cJSON_IsString(id) ? id->valuestring : "collective");
        int r = add_row(t, label);
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
}

/* The slowdowns by flow size of every run with a flows.csv: a range where no run has one is left out.  Returns 0,
 * or the exit status of a flows.csv that is there but cannot be read (said on stderr). */
static int add_size_rows(struct table *t, char **dirs, int n, const struct fct_def *def)
{
    bool any_size = false, have_size[MAX_RUNS];
    double p50[MAX_RUNS][N_RANGES], p95[MAX_RUNS][N_RANGES];
    int bad = 0;
    for (int i = 0; i < n && !bad; i++)
        any_size |= have_size[i] = size_slowdowns(dirs[i], def, p50[i], p95[i], &bad);
    if (bad)
        return bad;
    for (size_t k = 0; k < N_RANGES && any_size; k++) {
        bool any = false;
        for (int i = 0; i < n; i++)
            any |= have_size[i] && !isnan(p50[i][k]);
        for (int q = 0; q < 2 && any; q++) {
            char label[64];
            sfmt(label, sizeof label, "slowdown%s p%s %s", def->what, q ? "95" : "50", size_ranges[k].label);
            int r = add_row(t, label);
            double base = have_size[0] ? (q ? p95[0][k] : p50[0][k]) : NAN;
            for (int i = 0; i < n; i++) {
                double v = have_size[i] ? (q ? p95[i][k] : p50[i][k]) : NAN;
                value_cell(t->cell[r][i], v, base, i, 2, 1);
            }
        }
    }
    return 0;
}

/* The notes below the table: what --fct sender measures, runs without it, runs that did not complete. */
static void print_notes(cJSON **s, int n, char titles[][4200], const struct fct_def *def)
{
    if (def == &fct_sender) {
        printf("FCT to last ACK (--fct sender): from a flow's start to the ACK of its last byte at the sender, as the "
               "HPCC paper's simulator measures it; slowdown against the ideal FCT to that ACK\n");
        for (int i = 0; i < n; i++)
            if (isnan(get(s[i], def->count)))
                printf("note: %s has no FCT to the last ACK (a run of an older rocesim): run it again\n",
                       titles[i]);
    }
    for (int i = 0; i < n; i++) {
        if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s[i], "complete")))
            continue; /* a summary without the field is from a run that could not be interrupted: complete */
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(s[i], "incomplete_reason");
        double end = get(s[i], "sim_end_ns");
        printf("note: %s did not complete (%s): its numbers cover only the ", titles[i],
               cJSON_IsString(why) ? why->valuestring : "summary.json says \"complete\": false");
        if (isnan(end))
            printf("part it ran\n");
        else
            printf("%.3f ms it simulated\n", end / 1e6);
    }
}

int compare_main(int argc, char **argv)
{
    struct compare_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    int n = a.n;
    cJSON *s[MAX_RUNS];
    for (int i = 0; i < n; i++)
        if (!(s[i] = load_summary(a.dirs[i]))) {
            for (int k = 0; k < i; k++)
                cJSON_Delete(s[k]);
            return 2;
        }
    char titles[MAX_RUNS][4200];
    make_titles(a.dirs, n, titles);
    int nc = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s[0], "collectives"));
    struct table tab, *t = &tab;
    /* scenario, congestion control, complete, the collectives, the fixed rows, by size, deadlock */
    table_init(t, 3 + nc + N_FIXED_ROWS + 4 + 2 * (int)N_RANGES + 1, n); /* 4: the credit and multipath rows */
    char *cc[MAX_RUNS];
    bool any_cc = false;
    for (int i = 0; i < n; i++)
        any_cc |= (cc[i] = run_cc(a.dirs[i])) != NULL;
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
    for (int i = 0; i < n; i++)
        sfmt(t->cell[r][i], CELL, "%s",
             cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s[i], "complete")) ? "NO (see note)" : "yes");
    add_collective_rows(t, s, n); /* first: they are what a training job waits for */
    add_fixed_rows(t, s, n, a.def);
    rc = add_size_rows(t, a.dirs, n, a.def);
    if (rc)
        goto done;
    r = add_row(t, "deadlock");
    for (int i = 0; i < n; i++) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s[i], "deadlock"),
                                                          "detected");
        sfmt(t->cell[r][i], CELL, "%s", cJSON_IsTrue(d) ? "DETECTED" : "no");
    }
    print_table(t, titles);
    if (n > 1)
        printf("(xR): the run's value divided by the first run's (%s); x - where the first run's is 0\n", titles[0]);
    print_notes(s, n, titles, a.def);
    if (a.plot_out) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s[0], "scenario");
        fflush(stdout);
        rc = compare_plot(a.plot_out, a.plot_title, a.dirs, n, titles, cc, cJSON_IsString(nm) ? nm->valuestring : "?",
                          a.def);
    }
    if (a.goodput_out && !rc) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s[0], "scenario");
        fflush(stdout);
        rc = compare_goodput(a.goodput_out, a.plot_title, a.dirs, n, titles,
                             cJSON_IsString(nm) ? nm->valuestring : "?");
    }
done:
    free(t->label);
    free(t->cell);
    for (int i = 0; i < n; i++) {
        cJSON_Delete(s[i]);
        free(cc[i]);
    }
    return rc;
}
