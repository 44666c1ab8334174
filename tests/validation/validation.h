/*
 * validation — whole-run checks of rocesim against theory and published
 * models, each with its reference, expected value, measured value and stated
 * tolerance.  The same checks run as CUnit tests (`make test`) and, through
 * build/validate, regenerate docs/VALIDATION.md (`make validation`).
 */
#ifndef TESTS_VALIDATION_H
#define TESTS_VALIDATION_H

#include <stdbool.h>

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

extern const struct vgroup validation_groups[];
extern const int validation_n_groups;

#endif
