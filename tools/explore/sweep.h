/*
 * sweep — a parameter sweep: every grid point x seed of a sweep file is one
 * independent `rocesim run` in a child process, at most N at a time.
 *
 * The children are fork+exec'd copies of this very binary (/proc/self/exe), run
 * by the pool of runs it shares with `rocesim tune` (tools/explore/runpool.h), so a
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

struct scn_override;

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
