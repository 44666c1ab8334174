/*
 * tune_plot — the tuner's plots, drawn by gnuplot like a run's and a sweep's.
 *
 * The tuner hands over everything already computed (the evaluations, the
 * best-so-far curve, the Pareto front); this writes, for each plot, the data
 * (NAME.dat: one block per kind of point) and a script NAME.gp (a prelude of
 * variables followed by the template plots/tune_*.gp) into DIR/plots, then
 * runs gnuplot there, PNGs written under a temporary name and renamed when
 * whole (tools/run/plot.h).  Running `gnuplot NAME.gp` in DIR/plots redraws NAME.png.
 *
 * Plots: convergence.png (best full-fidelity feasible objective against runs
 * used, every evaluation as a point, the baseline as a dashed line),
 * marginal_<path>.png per parameter (the objective against the parameter,
 * every evaluation), pareto.png with two objectives (the front through the
 * full feasible evaluations).  A y axis spanning a factor of 20 or more is
 * logarithmic.
 */
#ifndef TOOLS_TUNE_PLOT_H
#define TOOLS_TUNE_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct tune_plot_param {
    const char *path;           /* "host.dcqcn.g", "switch.ecn.kmin" */
    const char *unit;           /* axis unit, "" for a plain number: "KB", "us", "Gbps" */
    bool log;                   /* logarithmic axis (the parameter is searched on a log scale) */
    int n_choices;              /* > 0: a choice parameter; x is the choice's index, drawn on a categorical axis */
    const char *const *choices; /* labels of the choices ("1MB", "10MB") */
};

struct tune_plot_eval {         /* one candidate at one fidelity: its objective(s) averaged over `seeds` seeds */
    const double *x;            /* per parameter: the value in the parameter's axis unit, or the choice index */
    double obj[2];              /* objective(s) in the objective's axis unit; NAN when its runs failed */
    int seeds;                  /* how many seeds it was evaluated on */
    bool full;                  /* evaluated on every seed (full fidelity), else a screening evaluation */
    bool feasible;              /* met the constraints */
    bool baseline;              /* the baseline setting */
    double runs_at;             /* runs used when this evaluation finished (its x on convergence.png) */
};

struct tune_plot_input {
    const char *title;          /* e.g. "tune incast-mix-g-kmin.json" */
    int n_params;
    const struct tune_plot_param *params;
    int n_obj;                  /* 1 or 2 */
    const char *obj_label[2];   /* axis label without unit: "p99 slowdown, flows <= 100 KB" */
    const char *obj_unit[2];    /* "" or "us", "Gbps" */
    bool maximize[2];
    int n_evals;
    const struct tune_plot_eval *evals;
    int n_conv;                 /* best full-fidelity feasible objective (obj 0) after conv_runs[i] runs */
    const double *conv_runs, *conv_best;
    double baseline_obj;        /* the baseline's objective 0 (full fidelity), NAN when unknown */
    int best;                   /* index into evals of the recommendation, -1 when none */
    const bool *on_front;       /* two objectives: evals on the Pareto front (full fidelity, feasible); else NULL */
};

/*
 * Draws dir/plots/convergence.png, dir/plots/marginal_<path>.png per parameter
 * (the path with '.' kept, e.g. marginal_host.dcqcn.g.png; a character other
 * than a letter, digit, '.', '-' or '_' becomes '_') and dir/plots/pareto.png
 * with two objectives.  Removes first every file of those names and every
 * marginal_*.png (.gp, .dat, .log) a previous call left, so a rerun with fewer
 * parameters or one objective leaves no old picture.  line receives one line
 * for the tuner's summary, after its "plots: " (as the sweep's): "DIR/plots/
 * (5 PNG: convergence.png, marginal_<param>.png per parameter)", the plots
 * gnuplot failed on after "FAILED:", or why there are none ("gnuplot is not
 * installed: scripts written to ...": the .dat and .gp files are written all
 * the same).  A plot gnuplot fails on is also reported on stderr with its log
 * kept.  Returns 0, or SCN_EIO when a file cannot be written (message on
 * stderr).
 */
int tune_plots(const struct tune_plot_input *in, const char *dir, char *line, size_t len);

/* Removes the plot files tune_plots writes from dir/plots (a tune run with --no-plot leaves no stale picture). */
void tune_plots_clean(const char *dir);

#endif
