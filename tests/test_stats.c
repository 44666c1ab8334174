/*
 * Statistics (tools/common/stats.h) against known answers: Student's sleep data through the paired t test, hand-computed
 * intervals, the exact special cases (identical inputs, a constant difference), Pareto fronts with ties, duplicates
 * and NaN in both directions, nearest-rank percentiles.
 */
#include "tests/tests.h"
#include "tools/common/stats.h"

#include <math.h>
#include <stdio.h>

/* x agrees with ref to 6 significant digits. */
#define CLOSE6(x, ref) CU_ASSERT(fabs((x) - (ref)) <= 1e-6 * fabs(ref))

static void test_nearest_rank(void)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = 100 - i; /* unsorted on purpose: the function sorts */
    struct stats_pct s = stats_nearest_rank(v, 100);
    CU_ASSERT_EQUAL(s.p99, 99);
    CU_ASSERT_EQUAL(s.p95, 95);
    CU_ASSERT_EQUAL(s.p50, 50);
    CU_ASSERT_EQUAL(s.max, 100);
    CU_ASSERT_EQUAL(s.mean, 50.5);
    CU_ASSERT_EQUAL(v[0], 1);
    double w[10] = {3, 1, 4, 10, 5, 9, 2, 6, 8, 7};
    s = stats_nearest_rank(w, 10);
    CU_ASSERT_EQUAL(s.p99, 10);
    CU_ASSERT_EQUAL(s.p95, 10);
    CU_ASSERT_EQUAL(s.p50, 5);
    double q[4] = {4, 3, 2, 1};
    s = stats_nearest_rank(q, 4);
    CU_ASSERT_EQUAL(s.p50, 2);
    CU_ASSERT_EQUAL(s.mean, 2.5);
    s = stats_nearest_rank(NULL, 0);
    CU_ASSERT(s.mean == 0 && s.p50 == 0 && s.p95 == 0 && s.p99 == 0 && s.max == 0);
}

static void test_mean_ci(void)
{
    /* {1, 3}: mean 2, sd sqrt(2), half = t_{0.975,1} * sqrt(2) / sqrt(2) = 12.7062047. */
    const double two[] = {1, 3};
    struct stats_ci c = stats_mean_ci(two, 2, 0.95);
    CU_ASSERT_EQUAL(c.n, 2);
    CU_ASSERT_EQUAL(c.mean, 2);
    CU_ASSERT_DOUBLE_EQUAL(c.sd, sqrt(2), 1e-15);
    CLOSE6(c.half, 12.7062047);
    CLOSE6(c.lo, 2 - 12.7062047);
    CLOSE6(c.hi, 2 + 12.7062047);
    /* Student's sleep data, group 1: mean 0.75, sd 1.789010, 95 % CI (-0.5297804, 2.0297804) (R's t.test). */
    const double g1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
    c = stats_mean_ci(g1, 10, 0.95);
    CLOSE6(c.mean, 0.75);
    CLOSE6(c.sd, 1.789010);
    CLOSE6(c.lo, -0.5297804);
    CLOSE6(c.hi, 2.0297804);
    /* No spread: exactly no interval, even where the sum of the values rounds (3 x 0.1 is not 0.3). */
    const double same[] = {0.1, 0.1, 0.1};
    c = stats_mean_ci(same, 3, 0.95);
    CU_ASSERT(c.mean == 0.1 && c.sd == 0 && c.half == 0 && c.lo == 0.1 && c.hi == 0.1);
    c = stats_mean_ci(two, 1, 0.95);
    CU_ASSERT(c.n == 1 && c.mean == 1 && c.sd == 0 && isnan(c.half) && isnan(c.lo) && isnan(c.hi));
    c = stats_mean_ci(NULL, 0, 0.95);
    CU_ASSERT(c.n == 0 && isnan(c.mean) && isnan(c.sd) && isnan(c.half) && isnan(c.lo) && isnan(c.hi));
}

static void test_paired_sleep(void)
{
    const double g1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
    const double g2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
    struct stats_paired r = stats_paired_t(g1, g2, 10, 0.95);
    CU_ASSERT(r.testable && !r.identical && r.significant);
    CU_ASSERT_EQUAL(r.n, 10);
    CLOSE6(r.mean_diff, -1.58);
    CLOSE6(r.t, -4.062128);
    CLOSE6(r.p, 0.002832890);
    CLOSE6(r.mean_diff - r.half, -2.4598858);
    CLOSE6(r.mean_diff + r.half, -0.7001142);
    /* Swapped: the same test seen from the other side. */
    struct stats_paired s = stats_paired_t(g2, g1, 10, 0.95);
    CLOSE6(s.t, 4.062128);
    CU_ASSERT_EQUAL(s.p, r.p);
    /* p = 0.0028: significant at 99 %, not at 99.9 %. */
    CU_ASSERT(stats_paired_t(g1, g2, 10, 0.99).significant);
    CU_ASSERT(!stats_paired_t(g1, g2, 10, 0.999).significant);
}

static void test_paired_exact_cases(void)
{
    const double a[] = {188.2, 201.5, 176.25, 190};
    struct stats_paired r = stats_paired_t(a, a, 4, 0.95);
    CU_ASSERT(r.testable && r.identical && !r.significant);
    CU_ASSERT(r.mean_diff == 0 && r.sd_diff == 0 && r.half == 0 && r.t == 0 && r.p == 1);
    /* Every difference 0.1: summed it is not 0.3, which must not turn "no spread" into a finite t. */
    const double z[] = {0, 0, 0}, tenth[] = {0.1, 0.1, 0.1};
    r = stats_paired_t(tenth, z, 3, 0.95);
    CU_ASSERT(r.testable && !r.identical && r.significant);
    CU_ASSERT(r.mean_diff == 0.1 && r.sd_diff == 0 && r.half == 0 && r.p == 0);
    CU_ASSERT(isinf(r.t) && r.t > 0);
    const double lo[] = {1, 3, 7}, hi[] = {3, 5, 9};
    r = stats_paired_t(lo, hi, 3, 0.95);
    CU_ASSERT(r.mean_diff == -2 && isinf(r.t) && r.t < 0 && r.p == 0 && r.significant);
    r = stats_paired_t(lo, hi, 1, 0.95);
    CU_ASSERT(!r.testable && !r.significant && r.mean_diff == -2 && isnan(r.p) && isnan(r.half) && isnan(r.t));
    r = stats_paired_t(lo, lo, 1, 0.95);
    CU_ASSERT(!r.testable && !r.significant && isnan(r.p));
    r = stats_paired_t(NULL, NULL, 0, 0.95);
    CU_ASSERT(!r.testable && !r.identical && !r.significant && isnan(r.mean_diff) && isnan(r.p));
}

static void test_pareto(void)
{
    const double pts[][2] = {
        {1, 1},        /* 0: on the front of (min, max) */
        {2, 3},        /* 1: on it, and so is its duplicate */
        {2, 3},        /* 2 */
        {3, 3},        /* 3: ties 1 in y, worse in x: dominated */
        {1, 0},        /* 4: ties 0 in x, worse in y: dominated */
        {NAN, 10},     /* 5: never on the front, never dominates */
        {0.5, 0.5},    /* 6: the best x */
        {5, 4},        /* 7: the best y */
        {4, NAN},      /* 8 */
    };
    bool on[9];
    int n = stats_pareto(pts, (const bool[2]){false, true}, 9, on);
    CU_ASSERT_EQUAL(n, 5);
    const bool want[9] = {true, true, true, false, false, false, true, true, false};
    for (int i = 0; i < 9; i++)
        CU_ASSERT_EQUAL(on[i], want[i]);
    /* Maximize both: (5, 4) is at least as good as every other point in both. */
    CU_ASSERT_EQUAL(stats_pareto(pts, (const bool[2]){true, true}, 9, on), 1);
    CU_ASSERT(on[7] && !on[5]);
    /* Minimize both: (0.5, 0.5) and (1, 0). */
    CU_ASSERT_EQUAL(stats_pareto(pts, (const bool[2]){false, false}, 9, on), 2);
    CU_ASSERT(on[6] && on[4] && !on[0]);
    CU_ASSERT_EQUAL(stats_pareto(pts, (const bool[2]){false, false}, 0, on), 0);
}

void test_stats_register(void)
{
    CU_pSuite s = CU_add_suite("stats", NULL, NULL);
    CU_add_test(s, "nearest-rank percentiles", test_nearest_rank);
    CU_add_test(s, "mean and its t interval: hand-computed, sleep data, no spread, n 1 and 0", test_mean_ci);
    CU_add_test(s, "paired t test on Student's sleep data (R's t.test)", test_paired_sleep);
    CU_add_test(s, "paired: identical inputs, a constant difference, n < 2", test_paired_exact_cases);
    CU_add_test(s, "Pareto front: ties, duplicates, NaN, both directions", test_pareto);
}
