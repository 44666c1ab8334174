/*
 * plot — the PNG plots of a run directory, drawn by gnuplot.
 *
 * Everything is derived from the files of the run (flows.csv, queues.csv,
 * rates.csv, pfc.csv, summary.json, scenario.json), so `rocesim plot DIR`
 * redraws without simulating.  For each plot the program writes into DIR/plots/
 * the data reshaped for gnuplot (NAME.dat: one column per queue or flow,
 * pause intervals, CDF points) and a script NAME.gp, which is a short prelude of
 * variables (title, units, thresholds, how many columns) followed by the
 * template plots/NAME.gp of the source tree; then it runs `gnuplot NAME.gp` in
 * DIR/plots as a child process.  Running the script by hand in DIR/plots
 * redraws NAME.png too.
 *
 * Plots: queues.png (egress queue depth over time, ECN kmin/kmax as lines),
 * rates.png (DCQCN rate and target over time, alpha below), fct_cdf.png
 * (CDF of FCT slowdown, by flow size when there are many flows of varied
 * sizes), pfc.png (intervals during which each port that sent PAUSE kept its
 * peer paused).  A plot with nothing to show is skipped with a note (no
 * monitored queue, no monitored flow, no finished flow); the PFC timeline is
 * drawn even without PAUSE frames, saying so, because "no pause" is a result.
 *
 * Templates are looked up in $ROCESIM_PLOTS, else in plots/ next to the
 * executable or in one of its parent directories (./rocesim, build/asan/rocesim),
 * else in ./plots.
 */
#ifndef TOOLS_PLOT_H
#define TOOLS_PLOT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "sim/scenario.h"

struct plot_result {
    int drawn;         /* PNGs written */
    int failed;        /* plots gnuplot failed on (reported on the error stream) */
    bool no_gnuplot;   /* gnuplot not on PATH: nothing drawn */
    char summary[1024]; /* one line for the run summary: where the PNGs are, or why there are none */
};

/*
 * Saves what `rocesim plot DIR` needs beyond the CSV files and summary.json:
 * the resolved scenario as DIR/scenario.json (ECN thresholds, cc, name); it
 * also lets `rocesim run DIR/scenario.json` repeat the run.  Returns 0, or
 * SCN_EIO with a message.
 */
int plot_save_inputs(const struct scenario *scn, const char *dir, char *err, size_t errlen);

/* Checks that dir holds a finished run.  Returns 0, or SCN_EUSAGE with a message saying what is missing. */
int plot_check_dir(const char *dir, char *err, size_t errlen);

/* Removes the plot files a previous run left in dir/plots (so a --no-plot run leaves no stale picture). */
void plot_clean(const char *dir);
/* Removes pdir/NAME.png, .gp, .dat, .log, .png.tmp and the stale NAME.gp/.dat temporaries of each name (the
 * run's plots and the sweep's). */
void plot_remove_files(const char *pdir, const char *const *names, size_t n);

/*
 * Draws every plot of run directory dir into dir/plots.  Problems are
 * reported on errf, one line each: gnuplot missing (then nothing is drawn),
 * templates missing, a gnuplot that failed (its output is kept in
 * plots/NAME.log); res says what happened.  Returns 0 when every plot was
 * drawn or skipped for lack of data or of gnuplot, SCN_EUSAGE when a file of
 * the run is damaged (a NUL byte in it; summary.json or scenario.json not
 * JSON), SCN_EIO when a file could not be read or written or gnuplot failed.
 */
int plot_draw(const char *dir, struct plot_result *res, FILE *errf);

/*
 * The way every PNG of rocesim is drawn (a run's plots and a sweep's): gnuplot
 * writes it under a temporary name, and it is renamed only when whole.
 * plot_find_gnuplot: gnuplot's path on PATH (true) or false.
 * plot_gnuplot_start: starts `gnuplot -e "outname='NAME.png.tmp'" NAME.gp` in
 * pdir (the script must `set output outname`), its output into NAME.log;
 * returns the pid or -1 (errno).
 * plot_gnuplot_finish: waits for it; returns 0 when NAME.png.tmp is a whole
 * PNG (signature first, IEND chunk last) and was renamed to NAME.png, else -1
 * with the reason in why (the temporary removed; NAME.log kept, and named in
 * why, only when gnuplot wrote something there).
 */
bool plot_find_gnuplot(char *out, size_t len);
/* The longest plot NAME those take (NAME.png.tmp, NAME.log, NAME.gp.tmp.PID must fit their buffers). */
#define PLOT_NAME_MAX 240
pid_t plot_gnuplot_start(const char *gnuplot, const char *pdir, const char *name);
int plot_gnuplot_finish(const char *gnuplot, const char *pdir, const char *name, pid_t pid, char *why, size_t len);
/*
 * plot_gnuplot_all: draws pdir/NAME.png for each names[i] that is not NULL (n of them), all gnuplots at once; a
 * plot that fails is reported on stderr as "WHO: NAME plot failed, no NAME.png drawn: WHY" and " NAME.png" is
 * appended to failed.  Returns how many PNG were drawn.
 */
struct sbuf;
int plot_gnuplot_all(const char *who, const char *gnuplot, const char *pdir, const char *const *names, int n,
                     struct sbuf *failed);

/*
 * Drawing from a template of plots/ (the run's plots and the tuner's).
 * plot_find_templates: the template directory (see above); true with it in out.
 * plot_write_script: writes pdir/NAME.gp, a header, the prelude (the variables the template reads) and the
 * template tdir/TPL.gp (TPL differs from NAME when one template draws several plots).  Returns 0; 1 when the
 * template cannot be read, -1 when the script cannot be written, with a message in err.
 * plot_gp_str: s as a single-quoted gnuplot string (control characters as spaces: one line).
 * plot_gp_array: "array NAME[n] = ['a', 'b', ...]" (gnuplot 5.2+; one empty item when n is 0).
 */
bool plot_find_templates(char *out, size_t len);
int plot_write_script(const char *pdir, const char *tdir, const char *tpl_name, const char *name,
                      const char *prelude, char *err, size_t errlen);
void plot_gp_str(FILE *f, const char *s);
void plot_gp_array(FILE *f, const char *name, const char *const *items, int n);

#endif
