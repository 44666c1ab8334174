/*
 * sweep — a parameter sweep: every grid point x seed of a sweep file is one
 * independent `rocesim run` in a child process, at most N at a time.
 *
 * The children are fork+exec'd copies of this very binary (/proc/self/exe), run
 * by the pool of runs it shares with `rocesim tune` (tools/runpool.h), so a
 * crash, a bad value or a runaway run only costs that run: its exit status
 * and the tail of its stderr are recorded and the sweep goes on.
 *
 * Layout of the output directory DIR:
 *   runs/<point>-s<seed>/   one run's outputs (summary.json, flows.csv, ...);
 *                           <point> = a hash of the scenario and the values
 *                           (sweep_point_id)
 *   results.csv             one row per run, sorted by point then seed
 *   best.json               the best grid point (objective averaged over seeds), marked
 *                           "complete": false when runs are left to do (an interruption)
 *   failures.txt            the failed runs with their stderr tails (only if any)
 *   plots/                  objective against each parameter; heatmap for 2-D grids
 *   sweep.json              the sweep file as resolved (scenario path made usable
 *                           from the current directory)
 * A run whose summary.json already exists (and says "complete") is not run
 * again: rerunning into the same DIR finishes an interrupted sweep.
 *
 * Built with -DROCESIM_MPI (make mpi → ./rocesim-mpi) and started by mpirun,
 * the runs still to do are dealt round robin over the MPI ranks, each rank
 * runs its share locally N at a time, and rank 0 gathers the summaries and
 * writes the same files as a local sweep.
 */
#ifndef TOOLS_SWEEP_H
#define TOOLS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* One grid dimension: one dotted path, or several paths whose values go together ("a,b": [[x, y], ...]). */
struct sweep_dim {
    char *key;         /* as written in the grid */
    int n_paths;
    char **paths;
    int n_values;
    char ***text;      /* text[v][k]: JSON text of value v for path k, what --set receives */
    cJSON ***value;    /* value[v][k]: the same as a cJSON item (owned by the spec's tree) */
};

struct sweep_spec {
    char file[4096];      /* the sweep file as given */
    char scenario[4096];  /* the scenario path, usable from the current directory */
    char *scenario_text;  /* its contents, part of every point's identity */
    int n_dims;
    struct sweep_dim *dims;
    int n_points;         /* product of the dims' value counts */
    int n_seeds;
    uint64_t *seeds;
    char objective[256];  /* dotted path into summary.json */
    bool maximize;
    cJSON *root;          /* the parsed sweep file (owns the value items) */
};

/*
 * Reads and validates a sweep file (see docs/sweep.md).  Returns 0, or 2 with
 * one line "FILE: JSON.PATH: expected ..., got ..." in err (3 when the file
 * cannot be read).  On failure *s holds nothing that needs freeing.
 */
int sweep_load(const char *file, struct sweep_spec *s, char *err, size_t errlen);

void sweep_spec_free(struct sweep_spec *s);

/* Grid point p's value index along dimension d (the last dimension varies fastest). */
int sweep_point_value(const struct sweep_spec *s, int p, int d);

/*
 * Names grid point p into out: 16 hex digits of a 64-bit hash of the scenario
 * text and the point's paths and values.  Not the point's index: a grid
 * extended by a value keeps the names (and so the finished runs) of the
 * points it had, while editing the scenario or a value never lets a rerun
 * pick up a stale result.  Cannot fail.
 */
void sweep_point_id(const struct sweep_spec *s, int p, char *out, size_t len);

/*
 * Fills ov (capacity max) with the --set pairs of grid point p as "path" and
 * JSON-text value (pointers into s).  Returns the count, or -1 when max is too small.
 */
struct scn_override;
int sweep_point_overrides(const struct sweep_spec *s, int p, struct scn_override *ov, int max);

/*
 * `rocesim sweep SWEEP.json [-j N] [-o DIR] [--timeout TIME] [-q]` (argv[1] is
 * "sweep").  Returns the exit status: 0 every run succeeded, 1 some runs
 * failed (they are recorded, the other results are written), 2 bad usage or a
 * bad sweep file, 3 an I/O error.
 */
int sweep_main(int argc, char **argv);

/*
 * Redraws the plots of the sweep in dir from dir/sweep.json and the runs'
 * summary.json files, running nothing (for `rocesim plot DIR`).  line
 * receives one line saying what was drawn.  Returns 0, SCN_EUSAGE when dir
 * holds no sweep or its sweep.json no longer loads (message in err), SCN_EIO
 * when a file cannot be written.
 */
int sweep_replot(const char *dir, char *line, size_t linelen, char *err, size_t errlen);

/* True when dir holds a sweep's outputs (a sweep.json), so that `rocesim plot DIR` redraws the sweep's plots. */
bool sweep_is_dir(const char *dir);

/* `rocesim plot DIR` for a sweep directory: sweep_replot with messages.  Returns the exit status (0, 2, 3). */
int sweep_plot_main(const char *dir);

/*
 * Reads a best.json written by a sweep and appends its parameter values to
 * ov as --set pairs (strings owned by *keep, a cJSON tree the caller frees
 * with cJSON_Delete).  scenario (or NULL) receives the sweep's scenario path.
 * Returns the new count, or -1 with a message in err (the file is unreadable,
 * not a best.json, says "complete": false while allow_incomplete is false,
 * or has more values than fit).
 */
int sweep_best_overrides(const char *best_file, bool allow_incomplete, struct scn_override *ov, int n, int max,
                         cJSON **keep, char *scenario, size_t scenario_len, char *err, size_t errlen);

#endif
