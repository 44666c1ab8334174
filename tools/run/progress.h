/*
 * progress — one line on stderr, rewritten in place while a run goes:
 * simulated time, percent done, events per second, ETA.
 *
 * The caller decides whether there is a line at all (stderr a terminal and no
 * -q); this module only paces it.  It is a run observer (tools/run/observer.h)
 * and never looks at the wall clock per event: it asks run_simulate() for
 * slices of simulated time sized so that a slice holds about 2^16 events, and
 * reads the clock between slices.  The
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

/*
 * Attaches the progress line of run r, drawn onto out (normally stderr), as an
 * observer of r (run_observe); it is erased when the simulation ends.  p must
 * live as long as r.  Cannot fail.
 */
void progress_init(struct progress *p, struct run *r, FILE *out);

/*
 * The progress line for the given state, into buf.  flows = 0 when the total
 * is not known yet (the percentage then comes from simulated time alone).
 * Returns buf.
 */
const char *progress_format(char *buf, size_t len, sim_time_t now, sim_time_t stop, uint32_t done,
                            uint32_t flows, double events_per_s, double elapsed_s);

#endif
