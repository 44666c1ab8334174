/*
 * validation — whole-run checks of rocesim against theory and published
 * models, each with its reference, expected value, measured value and stated
 * tolerance.  The same checks run as CUnit tests (`make test`) and, through
 * build/validate, regenerate docs/VALIDATION.md (`make validation`).
 */
#ifndef TESTS_VALIDATION_H
#define TESTS_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/sim.h"

struct vresult {
    char check[96];
    char reference[96];
    char expected[64];
    char measured[64];
    char tolerance[48];
    bool pass;
    bool informative; /* reported, not asserted (see its note) */
    char note[200];
};

struct vgroup {
    const char *name;
    /* Appends results to out[*n..cap); returns false when a run could not be set up. */
    bool (*run)(struct vresult *out, int *n, int cap);
};

/*
 * The bottleneck scenario most rows (and the algorithms' own tests) use: N long flows h0..h(N-1) -> hN (10 GB
 * each, so they never end) on a star of N + 1 hosts whose links run at `rate` with 1 us of delay, with `extra`
 * top-level members (the stop time, host and switch settings); the last flow starts at join_ps.  JSON into json.
 */
void validation_star_json(char *json, size_t size, int N, const char *rate, const char *extra, sim_time_t join_ps);

extern const struct vgroup validation_groups[];
extern const int validation_n_groups;

#endif
