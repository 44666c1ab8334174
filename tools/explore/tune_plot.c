/* tune_plot — the tuner's plots: data and prelude here, drawing in plots/tune_*.gp (see tune_plot.h). */
#include "tools/explore/tune_plot.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "tools/common/files.h"
#include "tools/run/plot.h"
#include "tools/common/text.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define TUNE_OOM "drawing the tuner's plots"
#define MAX_SERIES 5
#define PDIR_MAX 4300

/* One kind of point of a plot (screening, full, ...): its rows "x y eval" become one block of NAME.dat. */
struct series {
    const char *var;   /* the prelude variable holding its block index, -1 when it has no row */
    const char *what;  /* the block's comment */
    struct sbuf rows;
    int n;
};

/* The extent of the values drawn along one axis. */
struct extent {
    double lo, hi;
    bool any;
};

static void extent_add(struct extent *e, double v)
{
    if (!isfinite(v))
        return;
    e->lo = e->any ? fmin(e->lo, v) : v;
    e->hi = e->any ? fmax(e->hi, v) : v;
    e->any = true;
}

static void add_row(struct series *s, double x, double y, int id)
{
    char a[40], b[40];
    sb_printf(&s->rows, "%s %s %d\n", fmt_double(x, a, sizeof a), fmt_double(y, b, sizeof b), id);
    s->n++;
}

/* Writes the series that have rows as consecutive blocks of dat (gnuplot counts only blocks with data) and
 * their indices into the prelude. */
static void emit_blocks(struct sbuf *dat, FILE *pre, struct series *ser, int n)
{
    int idx = 0;
    for (int i = 0; i < n; i++) {
        fprintf(pre, "%s = %d\n", ser[i].var, ser[i].n ? idx : -1);
        if (!ser[i].n)
            continue;
        sb_printf(dat, "%s# block %d: %s\n%s", idx ? "\n\n" : "", idx, ser[i].what, ser[i].rows.p);
        idx++;
    }
}

/*
 * Writes the range of axis ax ("x", "y") into the prelude: logAX (wanted and every value positive), AXlo,
 * AXhi with a margin, so that gnuplot never autoscales a single point into a warning.
 */
static void emit_range(FILE *pre, const char *ax, const struct extent *e, bool want_log)
{
    double lo = e->any ? e->lo : 0, hi = e->any ? e->hi : 1;
    bool log = want_log && lo > 0;
    if (log) {
        double f = pow(hi / lo, 0.05);
        f = f < 1.1 ? 1.1 : f;
        lo /= f;
        hi *= f;
    } else {
        double pad = hi > lo ? 0.05 * (hi - lo) : hi != 0 ? 0.05 * fabs(hi) : 1;
        lo -= pad;
        hi += pad;
    }
    fprintf(pre, "log%s = %d\n%slo = %.10g\n%shi = %.10g\n", ax, log, ax, lo, ax, hi);
}

/* A log axis for values spanning a factor of 20 or more (as the sweep's): a linear one squashes the low end. */
static bool wide(const struct extent *e)
{
    return e->any && e->lo > 0 && e->hi / e->lo >= 20;
}

static void pre_str(FILE *pre, const char *var, const char *val)
{
    fprintf(pre, "%s = ", var);
    plot_gp_str(pre, val);
    fputc('\n', pre);
}

/* "p99 slowdown (us)", or "(dimensionless)" for a plain number, as the sweep labels its axes. */
static void axis_label(const char *what, const char *unit, char *out, size_t len)
{
    sfmt(out, len, "%s (%s)", what, unit && *unit ? unit : "dimensionless");
}

/* "1 seed", "3 seeds", "1-2 seeds": the seeds of the evaluations of one fidelity. */
static void seeds_text(const struct tune_plot_input *in, bool full, char *out, size_t len)
{
    int lo = 0, hi = 0;
    for (int i = 0; i < in->n_evals; i++)
        if (in->evals[i].full == full && in->evals[i].seeds > 0) {
            lo = lo && lo < in->evals[i].seeds ? lo : in->evals[i].seeds;
            hi = hi > in->evals[i].seeds ? hi : in->evals[i].seeds;
        }
    if (!hi)
        out[0] = '\0';
    else if (lo == hi)
        sfmt(out, len, "%d seed%s", hi, hi == 1 ? "" : "s");
    else
        sfmt(out, len, "%d-%d seeds", lo, hi);
}

/* The legend entries "screening (1-2 seeds)" and "full (3 seeds)" as the prelude's screen_label / full_label. */
static void seed_labels(const struct tune_plot_input *in, FILE *pf)
{
    char seeds[40], t[80];
    seeds_text(in, false, seeds, sizeof seeds);
    sfmt(t, sizeof t, "screening%s%s%s", *seeds ? " (" : "", seeds, *seeds ? ")" : "");
    pre_str(pf, "screen_label", t);
    seeds_text(in, true, seeds, sizeof seeds);
    sfmt(t, sizeof t, "full%s%s%s", *seeds ? " (" : "", seeds, *seeds ? ")" : "");
    pre_str(pf, "full_label", t);
}

/* The evaluation that stands for the baseline: its full one when there is one, with a value; -1 when none. */
static int baseline_eval(const struct tune_plot_input *in, bool both)
{
    int b = -1;
    for (int i = 0; i < in->n_evals; i++) {
        const struct tune_plot_eval *e = &in->evals[i];
        if (!e->baseline || !isfinite(e->obj[0]) || (both && !isfinite(e->obj[1])))
            continue;
        if (b < 0 || (e->full && !in->evals[b].full))
            b = i;
    }
    return b;
}

/* Writes pdir/name; returns 0 or SCN_EIO with the message on stderr. */
static int put(const char *pdir, const char *name, const struct sbuf *b)
{
    char path[PDIR_MAX + PLOT_NAME_MAX + 16];
    sfmt(path, sizeof path, "%s/%s", pdir, name);
    if (write_file_atomic(path, b->p ? b->p : "", b->len)) {
        fprintf(stderr, "rocesim tune: %s: cannot write: %s\n", path, strerror(errno));
        return SCN_EIO;
    }
    return 0;
}

/* A plot to draw: its file name (without .png), its template, its data and prelude. */
struct plot {
    char name[PLOT_NAME_MAX];
    const char *tpl;
    struct sbuf dat;
    char *pre;
    size_t pre_len;
    FILE *pf;
    char skip[160];    /* why it is not drawn (nothing to show), or "" */
    bool draw;         /* its script is written: gnuplot is to draw it */
};

static void plot_open(struct plot *p, const char *tpl)
{
    p->tpl = tpl;
    p->pf = open_memstream(&p->pre, &p->pre_len);
    if (!p->pf)
        mem_oom(TUNE_OOM);
    char png[PLOT_NAME_MAX + 8];
    sfmt(png, sizeof png, "%s.png", p->name);
    pre_str(p->pf, "png", png);
    sfmt(png, sizeof png, "%s.dat", p->name);
    pre_str(p->pf, "dat", png);
}

static void direction(const struct tune_plot_input *in, int k, char *out, size_t len)
{
    sfmt(out, len, "%s %s", in->maximize[k] ? "maximize" : "minimize", in->obj_label[k]);
}

/* ---- convergence: best so far against runs, every evaluation, the baseline ---- */

static void prep_convergence(const struct tune_plot_input *in, struct plot *p)
{
    struct series ser[] = {{"i_best", "runs, best full-fidelity feasible objective so far", {0}, 0},
                           {"i_screen", "runs at its end, objective: feasible screening evaluations", {0}, 0},
                           {"i_full", "runs at its end, objective: feasible full evaluations", {0}, 0},
                           {"i_infeas", "runs at its end, objective: evaluations that violate a constraint", {0}, 0}};
    struct extent ex = {0}, ey = {0};
    double last_x = -INFINITY, last_best = NAN;
    for (int i = 0; i < in->n_conv; i++) {
        if (!isfinite(in->conv_best[i]) || !isfinite(in->conv_runs[i]))
            continue;
        add_row(&ser[0], in->conv_runs[i], in->conv_best[i], i);
        extent_add(&ex, in->conv_runs[i]);
        extent_add(&ey, in->conv_best[i]);
        last_x = in->conv_runs[i];
        last_best = in->conv_best[i];
    }
    int failed = 0, infeas = 0, screen = 0, full = 0;
    double end = last_x;
    for (int i = 0; i < in->n_evals; i++) {
        const struct tune_plot_eval *e = &in->evals[i];
        if (isfinite(e->runs_at))
            end = fmax(end, e->runs_at);
        screen += !e->full;
        full += e->full;
        if (!isfinite(e->obj[0]) || !isfinite(e->runs_at)) {
            failed++;
            continue;
        }
        int s = !e->feasible ? 3 : e->full ? 2 : 1;
        infeas += s == 3;
        add_row(&ser[s], e->runs_at, e->obj[0], i);
        extent_add(&ex, e->runs_at);
        extent_add(&ey, e->obj[0]);
    }
    /* The best so far holds until the last run: a step line would otherwise stop at its last improvement. */
    if (isfinite(last_best) && end > last_x)
        add_row(&ser[0], end, last_best, -1);
    bool base = isfinite(in->baseline_obj);
    extent_add(&ey, in->baseline_obj);
    extent_add(&ex, 0);
    char t[1200], title[1400];
    direction(in, 0, t, sizeof t);
    sfmt(title, sizeof title, "%s: convergence, %s%s", in->title, t, in->n_obj == 2 ? " (objective 1 of 2)" : "");
    pre_str(p->pf, "title", title);
    sfmt(t, sizeof t, "the best full-fidelity feasible value after each run; %d evaluations: %d screening, %d full",
         in->n_evals, screen, full);
    size_t l = strlen(t);
    if (infeas)
        sfmt(t + l, sizeof t - l, "; %d violate%s a constraint", infeas, infeas == 1 ? "s" : "");
    l = strlen(t);
    if (failed)
        sfmt(t + l, sizeof t - l, "%s %d failed (not drawn)", infeas ? "," : ";", failed);
    pre_str(p->pf, "subtitle", t);
    axis_label(in->obj_label[0], in->obj_unit[0], t, sizeof t);
    pre_str(p->pf, "ylabel", t);
    seed_labels(in, p->pf);
    const char *unit = in->obj_unit[0] ? in->obj_unit[0] : "";
    sfmt(t, sizeof t, "baseline, %.4g%s%s", in->baseline_obj, *unit ? " " : "", unit);
    pre_str(p->pf, "base_label", t);
    fprintf(p->pf, "have_base = %d\nbase = %.10g\n", base, base ? in->baseline_obj : 0);
    emit_range(p->pf, "x", &ex, false);
    emit_range(p->pf, "y", &ey, wide(&ey));
    emit_blocks(&p->dat, p->pf, ser, 4);
    for (size_t i = 0; i < sizeof ser / sizeof *ser; i++)
        free(ser[i].rows.p);
    if (!ser[1].n && !ser[2].n && !ser[3].n)
        sfmt(p->skip, sizeof p->skip, "no evaluation has a value of the objective");
}

/* ---- marginal: objective 0 against one parameter, every evaluation ---- */

static void prep_marginal(const struct tune_plot_input *in, int k, struct plot *p)
{
    const struct tune_plot_param *pa = &in->params[k];
    struct series ser[] = {{"i_screen", "parameter, objective, evaluation: feasible screening evaluations", {0}, 0},
                           {"i_full", "parameter, objective, evaluation: feasible full evaluations", {0}, 0},
                           {"i_infeas", "parameter, objective, evaluation: evaluations that violate a constraint",
                            {0}, 0},
                           {"i_base", "parameter, objective, evaluation: the baseline", {0}, 0},
                           {"i_best", "parameter, objective, evaluation: the recommendation", {0}, 0}};
    struct extent ex = {0}, ey = {0};
    for (int i = 0; i < in->n_evals; i++) {
        const struct tune_plot_eval *e = &in->evals[i];
        if (!isfinite(e->obj[0]) || !isfinite(e->x[k]))
            continue;
        add_row(&ser[!e->feasible ? 2 : e->full ? 1 : 0], e->x[k], e->obj[0], i);
        extent_add(&ex, e->x[k]);
        extent_add(&ey, e->obj[0]);
    }
    int b = baseline_eval(in, false);
    if (b >= 0 && isfinite(in->evals[b].x[k]))
        add_row(&ser[3], in->evals[b].x[k], in->evals[b].obj[0], b);
    if (in->best >= 0 && isfinite(in->evals[in->best].obj[0]) && isfinite(in->evals[in->best].x[k]))
        add_row(&ser[4], in->evals[in->best].x[k], in->evals[in->best].obj[0], in->best);

    char t[1200], title[1400];
    direction(in, 0, t, sizeof t);
    sfmt(title, sizeof title, "%s: %s%s against %s", in->title, t, in->n_obj == 2 ? " (objective 1 of 2 only)" : "",
         pa->path);
    pre_str(p->pf, "title", title);
    sfmt(t, sizeof t, "%sfull: mean over every seed; screening: paired estimate from fewer seeds", in->n_obj == 2 ? "both objectives: pareto.png; " : "");
    size_t l = strlen(t);
    if (in->n_params > 1)
        sfmt(t + l, sizeof t - l, "; %d other parameter%s vary too", in->n_params - 1, in->n_params == 2 ? "" : "s");
    pre_str(p->pf, "subtitle", t);
    if (pa->n_choices > 0)
        sfmt(t, sizeof t, "%s (choice)", pa->path);
    else
        axis_label(pa->path, pa->unit, t, sizeof t);
    pre_str(p->pf, "xlabel", t);
    axis_label(in->obj_label[0], in->obj_unit[0], t, sizeof t);
    pre_str(p->pf, "ylabel", t);
    seed_labels(in, p->pf);
    pre_str(p->pf, "base_label", b >= 0 && !in->evals[b].full ? "baseline (screening only)" : "baseline");
    fprintf(p->pf, "nchoices = %d\n", pa->n_choices > 0 ? pa->n_choices : 0);
    if (pa->n_choices > 0) {
        plot_gp_array(p->pf, "clabel", pa->choices, pa->n_choices);
        fprintf(p->pf, "logx = 0\nxlo = -0.5\nxhi = %d.5\n", pa->n_choices - 1);
    } else {
        emit_range(p->pf, "x", &ex, pa->log);
    }
    emit_range(p->pf, "y", &ey, wide(&ey));
    emit_blocks(&p->dat, p->pf, ser, 5);
    if (!ser[0].n && !ser[1].n && !ser[2].n)
        sfmt(p->skip, sizeof p->skip, "no evaluation has a value of the objective");
    for (size_t i = 0; i < sizeof ser / sizeof *ser; i++)
        free(ser[i].rows.p);
}

/* ---- pareto: objective 0 against objective 1, the front ---- */

static const struct tune_plot_eval *sort_evals;
static int cmp_front(const void *pa, const void *pb)
{
    const struct tune_plot_eval *a = &sort_evals[*(const int *)pa], *b = &sort_evals[*(const int *)pb];
    if (a->obj[1] != b->obj[1])
        return a->obj[1] < b->obj[1] ? -1 : 1;
    if (a->obj[0] != b->obj[0])
        return a->obj[0] < b->obj[0] ? -1 : 1;
    return (*(const int *)pa > *(const int *)pb) - (*(const int *)pa < *(const int *)pb);
}

static void prep_pareto(const struct tune_plot_input *in, struct plot *p)
{
    struct series ser[] = {{"i_all", "objective 2, objective 1, evaluation: full feasible evaluations", {0}, 0},
                           {"i_front", "objective 2, objective 1, evaluation: the Pareto front, by objective 2", {0},
                            0},
                           {"i_base", "objective 2, objective 1, evaluation: the baseline", {0}, 0},
                           {"i_best", "objective 2, objective 1, evaluation: the recommendation", {0}, 0}};
    struct extent ex = {0}, ey = {0};
    int *front = mem_xcalloc((size_t)in->n_evals + 1, sizeof *front, TUNE_OOM);
    int nf = 0, infeas = 0;
    for (int i = 0; i < in->n_evals; i++) {
        const struct tune_plot_eval *e = &in->evals[i];
        if (!e->full || !isfinite(e->obj[0]) || !isfinite(e->obj[1]))
            continue;
        if (!e->feasible) {
            infeas++;
            continue;
        }
        add_row(&ser[0], e->obj[1], e->obj[0], i);
        extent_add(&ex, e->obj[1]);
        extent_add(&ey, e->obj[0]);
        if (in->on_front && in->on_front[i])
            front[nf++] = i;
    }
    sort_evals = in->evals;
    qsort(front, (size_t)nf, sizeof *front, cmp_front);
    for (int i = 0; i < nf; i++)
        add_row(&ser[1], in->evals[front[i]].obj[1], in->evals[front[i]].obj[0], front[i]);
    free(front);
    int b = baseline_eval(in, true);
    if (b >= 0) {
        add_row(&ser[2], in->evals[b].obj[1], in->evals[b].obj[0], b);
        extent_add(&ex, in->evals[b].obj[1]);
        extent_add(&ey, in->evals[b].obj[0]);
    }
    const struct tune_plot_eval *r = in->best >= 0 ? &in->evals[in->best] : NULL;
    if (r && isfinite(r->obj[0]) && isfinite(r->obj[1]))
        add_row(&ser[3], r->obj[1], r->obj[0], in->best);

    char t[1400];
    sfmt(t, sizeof t, "%s: Pareto front, %s against %s", in->title, in->obj_label[0], in->obj_label[1]);
    pre_str(p->pf, "title", t);
    sfmt(t, sizeof t, "better (the arrow): %s %s, %s %s", in->maximize[0] ? "higher" : "lower", in->obj_label[0],
         in->maximize[1] ? "higher" : "lower", in->obj_label[1]);
    pre_str(p->pf, "subtitle", t);
    sfmt(t, sizeof t, "%d full feasible evaluation%s, %d on the front", ser[0].n, ser[0].n == 1 ? "" : "s", nf);
    size_t l = strlen(t);
    if (infeas)
        sfmt(t + l, sizeof t - l, "; %d that violate%s a constraint not drawn", infeas, infeas == 1 ? "s" : "");
    pre_str(p->pf, "counts", t);
    axis_label(in->obj_label[1], in->obj_unit[1], t, sizeof t);
    pre_str(p->pf, "xlabel", t);
    axis_label(in->obj_label[0], in->obj_unit[0], t, sizeof t);
    pre_str(p->pf, "ylabel", t);
    pre_str(p->pf, "base_label", b >= 0 && !in->evals[b].full ? "baseline (screening only)"
                                 : b >= 0 && !in->evals[b].feasible ? "baseline (violates a constraint)"
                                                                    : "baseline");
    /* Where the better corner is, for the arrow that points to it. */
    fprintf(p->pf, "better_x = %d\nbetter_y = %d\n", in->maximize[1] ? 1 : -1, in->maximize[0] ? 1 : -1);
    emit_range(p->pf, "x", &ex, wide(&ex));
    emit_range(p->pf, "y", &ey, wide(&ey));
    emit_blocks(&p->dat, p->pf, ser, 4);
    if (!ser[0].n)
        sfmt(p->skip, sizeof p->skip, "no full feasible evaluation has both objectives");
    for (size_t i = 0; i < sizeof ser / sizeof *ser; i++)
        free(ser[i].rows.p);
}

/* ---- cleaning and drawing ---- */

/* The marginal plot's file name for a parameter: its path with '.' kept, anything unsafe in a file name or a
 * gnuplot string as '_'. */
static void marginal_name(const char *path, char *out, size_t len)
{
    sfmt(out, len, "marginal_");
    size_t o = strlen(out);
    for (const char *c = path; *c && o + 1 < len; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                  *c == '-' || *c == '_';
        out[o++] = ok ? *c : '_';
    }
    out[o] = '\0';
}

/*
 * Removes convergence, pareto and every marginal_* plot (PNG, script, data, log, killed writers' temporaries)
 * in pdir: the parameters of the previous call may have been others.
 */
static void clean(const char *pdir)
{
    static const char *const suffix[] = {".png.tmp", ".png", ".gp", ".dat", ".log"};
    int n = 2, cap = 16;
    char **names = mem_xmalloc((size_t)cap * sizeof *names, TUNE_OOM);
    names[0] = mem_xstrdup("convergence", TUNE_OOM);
    names[1] = mem_xstrdup("pareto", TUNE_OOM);
    DIR *d = opendir(pdir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "marginal_", 9) != 0 || strlen(e->d_name) >= PLOT_NAME_MAX)
            continue;
        char base[PLOT_NAME_MAX];
        sfmt(base, sizeof base, "%s", e->d_name);
        /* NAME.gp.tmp.PID, NAME.dat.tmp.PID: plot_remove_files removes them when PID is gone */
        char *tmp = strstr(base, ".tmp.");
        if (tmp)
            *tmp = '\0';
        size_t bl = strlen(base);
        bool ours = false;
        for (size_t s = 0; s < sizeof suffix / sizeof *suffix && !ours; s++) {
            size_t sl = strlen(suffix[s]);
            if (bl > sl && strcmp(base + bl - sl, suffix[s]) == 0) {
                base[bl - sl] = '\0';
                ours = true;
            }
        }
        if (!ours)
            continue;
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], base) == 0;
        if (seen)
            continue;
        if (n == cap) {
            cap *= 2;
            names = mem_xrealloc(names, (size_t)cap * sizeof *names, TUNE_OOM);
        }
        names[n++] = mem_xstrdup(base, TUNE_OOM);
    }
    if (d)
        closedir(d);
    plot_remove_files(pdir, (const char *const *)names, (size_t)n);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* See tune_plot.h. */
void tune_plots_clean(const char *dir)
{
    char pdir[4200];
    sfmt(pdir, sizeof pdir, "%s/plots", dir);
    clean(pdir);
}

/* The data and the prelude of every plot, in memory: convergence, one marginal per parameter, and the Pareto front
 * when there are two objectives.  *np: how many. */
static struct plot *prepare_plots(const struct tune_plot_input *in, int *np)
{
    int n = in->n_params + 1 + (in->n_obj == 2);
    struct plot *pl = mem_xcalloc((size_t)n, sizeof *pl, TUNE_OOM);
    sfmt(pl[0].name, sizeof pl[0].name, "convergence");
    plot_open(&pl[0], "tune_convergence");
    prep_convergence(in, &pl[0]);
    for (int k = 0; k < in->n_params; k++) {
        struct plot *p = &pl[1 + k];
        marginal_name(in->params[k].path, p->name, sizeof p->name - 16);
        for (int j = 0; j < k; j++)
            if (strcmp(pl[1 + j].name, p->name) == 0) { /* two paths that differ only in unsafe characters */
                size_t l = strlen(p->name);
                sfmt(p->name + l, sizeof p->name - l, "_%d", k + 1);
                break;
            }
        plot_open(p, "tune_marginal");
        prep_marginal(in, k, p);
    }
    if (in->n_obj == 2) {
        sfmt(pl[n - 1].name, sizeof pl[n - 1].name, "pareto");
        plot_open(&pl[n - 1], "tune_pareto");
        prep_pareto(in, &pl[n - 1]);
    }
    for (int i = 0; i < n; i++)
        fclose(pl[i].pf);
    *np = n;
    return pl;
}

/*
 * Writes each plot's data and, with the templates, its script (then it is to be drawn, p->draw).  A plot with
 * nothing to show is named in skipped, one whose template fails in failed (a broken installation, not the tuner's
 * output: reported as a plot gnuplot failed on).  Returns 0, or SCN_EIO when a file cannot be written.
 */
static int write_plot_files(struct plot *pl, int np, const char *pdir, const char *tdir, bool templates,
                            struct sbuf *skipped, struct sbuf *failed, int *todo)
{
    int rc = 0;
    *todo = 0;
    for (int i = 0; i < np && !rc; i++) {
        struct plot *p = &pl[i];
        if (p->skip[0]) {
            sb_printf(skipped, "%s%s.png not drawn: %s", skipped->len ? "; " : "", p->name, p->skip);
            continue;
        }
        char dn[PLOT_NAME_MAX + 8], err[1200];
        sfmt(dn, sizeof dn, "%s.dat", p->name);
        rc = put(pdir, dn, &p->dat);
        if (rc || !templates)
            continue;
        int w = plot_write_script(pdir, tdir, p->tpl, p->name, p->pre, err, sizeof err);
        if (w < 0) {
            fprintf(stderr, "rocesim tune: %s\n", err);
            rc = SCN_EIO;
        } else if (w > 0) {
            fprintf(stderr, "rocesim tune: %s plot failed, no %s.png drawn: %s\n", p->name, p->name, err);
            sb_printf(failed, " %s.png", p->name);
        } else {
            p->draw = true;
            (*todo)++;
        }
    }
    return rc;
}

/* Draws the plots whose scripts are written; a plot gnuplot fails on is named in failed.  Returns how many PNG
 * were drawn. */
static int draw_plots(const struct plot *pl, int np, const char *gnuplot, const char *pdir, struct sbuf *failed)
{
    const char **names = mem_xcalloc((size_t)np, sizeof *names, TUNE_OOM);
    for (int i = 0; i < np; i++)
        names[i] = pl[i].draw ? pl[i].name : NULL;
    int drawn = plot_gnuplot_all("rocesim tune", gnuplot, pdir, names, np, failed);
    free(names);
    return drawn;
}

int tune_plots(const struct tune_plot_input *in, const char *dir, char *line, size_t len)
{
    char pdir[PDIR_MAX], gnuplot[4096], tdir[4200];
    sfmt(pdir, sizeof pdir, "%s/plots", dir);
    line[0] = '\0';
    if (make_dirs(pdir)) {
        fprintf(stderr, "rocesim tune: %s: cannot create directory: %s\n", pdir, strerror(errno));
        sfmt(line, len, "none: cannot create %s", pdir);
        return SCN_EIO;
    }
    clean(pdir);
    int np, todo;
    struct plot *pl = prepare_plots(in, &np);
    bool templates = plot_find_templates(tdir, sizeof tdir);
    struct sbuf skipped = {0}, failed = {0};
    int rc = write_plot_files(pl, np, pdir, tdir, templates, &skipped, &failed, &todo);
    if (rc) {
        sfmt(line, len, "none: cannot write the plot files in %s/", pdir);
    } else if (!templates) {
        const char *env = getenv("ROCESIM_PLOTS");
        fprintf(stderr, "rocesim tune: %s: plots skipped (their data is in %s/)\n",
                env && *env ? "ROCESIM_PLOTS does not hold the plot templates (plots/*.gp)"
                            : "plot templates (plots/*.gp) not found next to the rocesim binary; set ROCESIM_PLOTS "
                              "to their directory",
                pdir);
        sfmt(line, len, "none: plot templates not found (data in %s/)", pdir);
    } else if (pl[0].skip[0]) {
        /* then no plot has a point: one reason, not one per plot */
        sfmt(line, len, "none: %s", pl[0].skip);
    } else if (!todo && !failed.len) {
        sfmt(line, len, "none: %s", skipped.len ? skipped.p : "nothing to draw");
    } else if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
        sfmt(line, len, "gnuplot is not installed: scripts written to %s/ (run gnuplot NAME.gp there)", pdir);
    } else {
        int drawn = draw_plots(pl, np, gnuplot, pdir, &failed);
        if (failed.len)
            sfmt(line, len, "%s/: %d PNG drawn; FAILED:%s", pdir, drawn, failed.p);
        else
            sfmt(line, len, "%s/ (%d PNG: convergence.png, marginal_<param>.png per parameter%s)", pdir, drawn,
                 in->n_obj == 2 && pl[np - 1].draw ? ", pareto.png" : "");
        if (skipped.len) {
            size_t l = strlen(line);
            sfmt(line + l, len - l, "; %s", skipped.p);
        }
    }
    free(skipped.p);
    free(failed.p);
    for (int i = 0; i < np; i++) {
        free(pl[i].dat.p);
        free(pl[i].pre);
    }
    free(pl);
    return rc;
}
