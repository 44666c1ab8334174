/*
 * sweep_out — what a sweep writes once its runs are in: the results table
 * (results.csv), the best point (best.json) and the plots.
 *
 * Everything is derived from the runs' summary.json texts and statuses in
 * the sweep's fixed run order (point, then seed), never from timing, so the
 * outputs are the same bytes however and wherever the runs were executed.
 */
#ifndef TOOLS_SWEEP_OUT_H
#define TOOLS_SWEEP_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/explore/sweep_spec.h"

/* Objective statistics of one grid point over its successful seeds. */
struct sweep_pstat {
    int n;              /* seeds with a value */
    double mean, min, max, stddev;
};

struct sweep_table {
    int n_runs;
    int *point, *seed_i;
    char **status;
    int n_cols;
    char **cols;        /* numeric summary fields, flattened with dots, in a stable order */
    int *n_kv;          /* per run: its flattened fields (key, value text) */
    char ***keys, ***vals;
    double *obj;        /* per run: the objective, NAN when failed or absent */
    bool obj_seen;      /* some run has the objective as a number */
    int n_points;
    struct sweep_pstat *ps;
};

struct sweep_best {
    bool found;
    int point;
    char id[96];
    int n;
    double mean, min, max, stddev;
};

/*
 * Builds the table from n runs (point, seed index, status, summary text or
 * NULL for a failed run).  Cannot fail (aborts when memory runs out).
 */
void sweep_table_build(struct sweep_table *t, const struct sweep_spec *s, int n, const int *point,
                       const int *seed_i, const char *const *status, const char *const *summaries);

void sweep_table_free(struct sweep_table *t);

/* Appends the numeric (and boolean, as 0/1) leaves of the summary v under prefix to keys/vals (malloc'd,
 * *n of *cap used), dotted; at the top level the wall-clock fields, seed and complete are left out. */
struct cJSON;
void sweep_flatten(const struct cJSON *v, const char *prefix, int *n, int *cap, char ***keys, char ***vals);

/* results.csv as text (caller frees): parameters, seed, status, then the numeric fields. */
char *sweep_table_csv(const struct sweep_table *t, const struct sweep_spec *s);

/*
 * Picks the best grid point and writes dir/best.json (or removes a stale one
 * when no run succeeded; dir NULL: only picks).  Points whose every seed succeeded are preferred;
 * ties go to the lower point index.  runs_done of the table's runs have ended
 * (succeeded or failed); incomplete is NULL when that is all of them, else
 * why it is not, and best.json says so ("complete": false) so that nothing
 * takes a partial sweep's best point for the real one.  Returns 0; SCN_EUSAGE when runs succeeded
 * but none has the objective as a number (message on stderr); SCN_EIO when
 * the file cannot be written.
 */
int sweep_best_write(const struct sweep_table *t, const struct sweep_spec *s, const char *dir, int runs_done,
                     const char *incomplete, struct sweep_best *best);

/*
 * Writes the plot data and gnuplot scripts into dir/plots and draws them when
 * gnuplot is installed: the objective against each parameter (mean over
 * seeds, min/max bars) and, for a two-dimensional grid, a heatmap.  best_point
 * (or -1) is marked.  line receives one line saying what was drawn.  Returns 0,
 * or SCN_EIO when a file cannot be written (a plot gnuplot fails on is only
 * reported in line, with its log kept next to it).
 */
int sweep_plots(const struct sweep_table *t, const struct sweep_spec *s, int best_point, const char *dir,
                char *line, size_t linelen);

/* Objective axis label and the factor from summary units to plotted units, from the field's name. */
const char *sweep_objective_unit(const char *path, double *scale);

#endif
