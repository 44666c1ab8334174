/*
 * progress — one line on stderr, rewritten in place while a run goes:
 * simulated time, percent done, events per second, ETA.
 *
 * The caller decides whether there is a line at all (stderr a terminal and no
 * -q); this module only paces it.  It never looks at the wall clock per event:
 * monitor_simulate() runs the engine in slices of simulated time sized so that
 * a slice holds about 2^16 events, and the clock is read between slices.  The
 * first line appears after half a second (short runs stay silent; the
 * environment variable ROCESIM_PROGRESS_DELAY, in seconds, changes that, e.g.
 * for tests), later ones at most four times a second; the line is erased when
 * the run ends.
 */
#ifndef TOOLS_PROGRESS_H
#define TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"

struct run;

struct progress {
    const struct run *r;
    FILE *out;
    double t0, last_show;
    double first_after;   /* seconds before the first line */
    uint64_t events_at_check, events_at_show;
    uint32_t slices_since_check;
    sim_time_t slice_ps;  /* length of the next slice of simulated time */
    int shown;            /* characters on the line now (0: nothing shown) */
};

/* Starts pacing progress of run r onto out (normally stderr).  Cannot fail. */
void progress_init(struct progress *p, const struct run *r, FILE *out);

/* The end of the next slice: until, or earlier to keep slices near 2^16 events. */
sim_time_t progress_until(const struct progress *p, sim_time_t until);

/*
 * Called after each slice with the number of events it ran; full is true when
 * the slice ran to the end that progress_until() chose (its length then adapts).
 * Reads the clock only every ~2^16 events and redraws the line when due.
 */
void progress_after_slice(struct progress *p, uint64_t events, bool full);

/* Erases the line (if one was drawn). */
void progress_end(struct progress *p);

/*
 * The progress line for the given state, into buf.  flows = 0 when the total
 * is not known yet (the percentage then comes from simulated time alone).
 * Returns buf.
 */
const char *progress_format(char *buf, size_t len, sim_time_t now, sim_time_t stop, uint32_t done,
                            uint32_t flows, double events_per_s, double elapsed_s);

#endif
