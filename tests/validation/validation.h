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

/*
 * Two 20 MB TIMELY flows h0, h1 -> h2 into one 100 Gbps port of a star (1 us links), both from t = 0, with `host`
 * the members of the host object after "cc": "timely" (say "\"timely\": {...}"; "" for the defaults), sampled every
 * 1 us until both are done (at most 30 ms): the lowest aggregate pacing rate, the time the aggregate then first
 * reaches 60 and 90 Gbps and its slope in between, the goodput from 1 ms until the last byte, the time of the last
 * byte and a flow's ideal FCT (alone on the path).  False when the run does not set up or a flow does not finish.
 */
struct timely_pair {
    double r_min;       /* Gbps */
    double t60_us, t90_us, slope; /* slope: Gbps per ms from 60 to 90 Gbps */
    double after_gbps;  /* goodput of both flows from 1 ms to the end */
    double end_us, ideal_us;
};
bool validation_timely_pair(const char *host, struct timely_pair *out);

/* The UEC reference simulator's regression plans through `rocesim import uet-htsim` (uec.c): every experiment, or
 * the one named "PLAN: NAME" (its row's check, "sender: Single Connection"). */
bool validation_uec(struct vresult *out, int *n, int cap);
bool validation_uec_one(const char *name, struct vresult *out, int *n, int cap);
/* Whether every run of tests/validation/uec_seeds.txt (the reference at more seeds) is well formed and names an
 * experiment of the plans; if not, false with the file, line or count in why. */
bool validation_uec_seeds_check(char *why, size_t len);
/* Imports every experiment of the plans and exports it back: how many leave a setting unexpressed or fail (the
 * first one's name and what is left in bad). */
int validation_uec_round_trip(char *bad, size_t len);

extern const struct vgroup validation_groups[];
extern const int validation_n_groups;

#endif
