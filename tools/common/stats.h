/*
 * stats — the statistics behind summaries and comparisons: nearest-rank percentiles (summary.json's
 * definition), a mean with its Student's t confidence interval, a paired t test, and the Pareto front of two
 * objectives.  The t quantiles and p values come from GSL (gsl_cdf_tdist_*).
 */
#ifndef TOOLS_STATS_H
#define TOOLS_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Nearest-rank percentiles (the summary's definition): v is sorted in place; n == 0 gives all zeros. */
struct stats_pct {
    double mean, p50, p95, p99, max;
};
struct stats_pct stats_nearest_rank(double *v, size_t n);

/*
 * Mean with a two-sided confidence interval from Student's t: half = t_{(1+level)/2, n-1} * sd / sqrt(n),
 * lo = mean - half, hi = mean + half.  sd is the sample standard deviation (n-1), exactly 0 when every value
 * is the same.  n == 1: sd = 0 and half, lo, hi = NAN (no interval from one value); n == 0: everything NAN.
 * NaN inputs are an error of the caller (assert); level is in (0, 1).
 */
struct stats_ci {
    int n;
    double mean, sd, half, lo, hi;
};
struct stats_ci stats_mean_ci(const double *v, int n, double level);

/*
 * Paired two-sided t test of d[i] = a[i] - b[i] (i < n), with half, the half-width of the CI of mean_diff at
 * level; significant: p < 1 - level.
 * identical: every difference is exactly 0 (then t = 0, p = 1, half = 0, not significant).
 * All differences equal and non-zero (sd 0): t = +-INFINITY, p = 0, half = 0, significant.
 * n < 2: t, p and half NAN, significant = false, and `testable` false (mean_diff is still the one difference).
 */
struct stats_paired {
    int n;
    bool testable, identical, significant;
    double mean_diff, sd_diff, half, t, p;
};
struct stats_paired stats_paired_t(const double *a, const double *b, int n, double level);

/*
 * Pareto front of n points with 2 objectives (obj[i][k]; maximize[k] says the direction): on_front[i] true
 * when no other point is at least as good in both and strictly better in one (so duplicates on the front are
 * all on it).  NaN points are never on the front and never dominate.  Returns the number on the front.  O(n^2).
 */
int stats_pareto(const double (*obj)[2], const bool maximize[2], int n, bool *on_front);

#endif
