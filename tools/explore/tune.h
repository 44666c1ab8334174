/*
 * tune — `rocesim tune TUNE.json`: a search for the DCQCN and ECN settings
 * (any scenario paths) that are best for one scenario's workload, with the
 * statistics that say how sure the answer is (docs/tune.md).
 *
 * tune_spec.c reads and checks the tune file into struct tune_spec; tune.c
 * runs the search (a space-filling design, racing on seeds, a derivative-free
 * local search with NLopt) through the run pool (tools/explore/runpool.h) and writes
 * the outputs.  Every decision of the search depends only on the tune file
 * and on the runs' results, never on timing or on the number of cores or
 * ranks, so the same file reproduces the same search path exactly, and a rerun
 * into the same directory replays it from the runs on disk.
 */
#ifndef TOOLS_TUNE_H
#define TOOLS_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/settings.h"
#include "tools/report/flowset.h"

#define TUNE_MAX_PARAMS 32
#define TUNE_MAX_SEEDS 64
#define TUNE_MAX_CONS 16
#define TUNE_MAX_BUDGET 100000

enum tune_scale { TUNE_LINEAR, TUNE_LOG, TUNE_INT, TUNE_CHOICE };

struct tune_param {
    char *path;                /* dotted scenario path, as --set takes it */
    enum tune_scale scale;
    enum setting_kind qty;     /* SETTING_SIZE/TIME/RATE for quantities (values in bytes, ps, bit/s), else NUMBER */
    double lo, hi;             /* the range, in base units */
    double step;               /* > 0: values are multiples of it (base units), else 3 significant digits */
    int n_choices;
    char **choice;             /* TUNE_CHOICE: the JSON text of each choice, as --set takes it */
};

/* An objective or a constraint: a summary metric, optionally over a subset of the flows. */
struct tune_metric {
    char name[256];            /* dotted path into summary.json, or a flow metric with a subset */
    bool subset;               /* computed from flows.csv (over `flows` when filtered, else every flow) */
    bool filtered;
    struct flowset flows;
    bool maximize;             /* objectives */
    double min, max;           /* constraints: bounds (NAN when absent) */
    char label[400];           /* the metric and its subset, for columns and messages */
    char words[400];           /* the same for people (plot axes): "flows.slowdown.p99 (flows up to 100KB)" */
};

/* "A < B" over two tuned parameters of the same kind. */
struct tune_require {
    int a, b;
    char op[3];                /* "<", "<=", ">", ">=" */
    char text[600];
};

struct tune_spec {
    char file[4096];
    char scenario[4096];       /* usable from the current directory */
    char *scenario_text;       /* part of every run's identity */
    int n_params;
    struct tune_param params[TUNE_MAX_PARAMS];
    int n_require;
    struct tune_require *require;
    int n_obj;                 /* 1, or 2 for a Pareto front */
    struct tune_metric obj[2];
    int n_cons;
    struct tune_metric cons[TUNE_MAX_CONS];
    int n_seeds;
    uint64_t seeds[TUNE_MAX_SEEDS];
    int n_confirm;             /* seeds for an unbiased final comparison (optional) */
    uint64_t confirm[TUNE_MAX_SEEDS];
    int n_base;                /* the baseline: --set pairs over the scenario (none: the scenario as it is) */
    char **base_path, **base_text;
    int budget;                /* runs, confirmation runs excluded */
    uint64_t search_seed;      /* shifts the Sobol design: another seed, another (equally good) path */
    int batch;                 /* candidates started together in the design phase */
    double design_share;       /* share of the budget for the design before the local search starts */
    int optimizer;             /* index into tune_optimizers */
    struct cJSON *root;
};

/* The local optimizers "search.optimizer" names: NLopt's derivative-free local algorithms (an nlopt_algorithm),
 * and "none" (alg -1: the design alone).  Ends with a NULL name.  Adding one: a line here (tune_spec.c). */
struct tune_optimizer {
    const char *name;
    int alg;
};
extern const struct tune_optimizer tune_optimizers[];

/*
 * Reads and checks a tune file (docs/tune.md).  Returns 0, or SCN_EUSAGE with
 * one line "FILE: JSON.PATH: expected ..., got ..." in err (SCN_EIO when the
 * file cannot be read).  On failure *s holds nothing that needs freeing.
 */
int tune_load(const char *file, struct tune_spec *s, char *err, size_t errlen);
void tune_spec_free(struct tune_spec *s);

/* The --set text of value x (base units) of parameter p, rounded to 3 significant digits (whole units for
 * quantities and integers); *rounded receives the value the text stands for. */
void tune_value_text(const struct tune_param *p, double x, char *out, size_t len, double *rounded);

/* Whether values x[] (base units, per parameter) meet every "require" rule. */
bool tune_required_ok(const struct tune_spec *s, const double *x);

/* `rocesim tune TUNE.json [-j N] [-o DIR] [--budget RUNS] [--timeout TIME] [-q]`: the exit status. */
int tune_main(int argc, char **argv);

#endif
