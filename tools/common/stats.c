/* stats — percentiles, confidence intervals, the paired t test and Pareto fronts (see stats.h). */
#include "tools/common/stats.h"
#include "sim/mem.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct stats_pct stats_nearest_rank(double *v, size_t n)
{
    struct stats_pct s = {0, 0, 0, 0, 0};
    if (n == 0)
        return s;
    qsort(v, n, sizeof *v, cmp_double);
    /* Summed in sorted order: summary.json's means depend on it, and the golden runs compare them exactly. */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / (double)n;
#define PCT(p) v[(size_t)ceil((p) / 100.0 * (double)n) - 1]
    s.p50 = PCT(50);
    s.p95 = PCT(95);
    s.p99 = PCT(99);
#undef PCT
    s.max = v[n - 1];
    return s;
}

/*
 * Mean and sample standard deviation (two passes).  Equal values are found by comparison, not by the sum:
 * n copies of 0.1 do not sum to exactly n * 0.1, and a tiny non-zero sd would turn "no spread" into a huge
 * but finite t instead of the exact answer.
 */
static void mean_sd(const double *v, int n, double *mean, double *sd)
{
    bool same = true;
    for (int i = 1; i < n && same; i++)
        same = v[i] == v[0];
    if (same) {
        *mean = v[0];
        *sd = 0;
        return;
    }
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    double m = sum / n, ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    *mean = m;
    *sd = sqrt(ss / (n - 1));
}

static double t_quantile(double level, int n)
{
    return gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(n - 1));
}

struct stats_ci stats_mean_ci(const double *v, int n, double level)
{
    assert(level > 0 && level < 1);
    struct stats_ci c = {n, NAN, NAN, NAN, NAN, NAN};
    if (n <= 0)
        return c;
    for (int i = 0; i < n; i++)
        assert(!isnan(v[i]));
    mean_sd(v, n, &c.mean, &c.sd);
    if (n == 1)
        return c;
    c.half = t_quantile(level, n) * c.sd / sqrt(n);
    c.lo = c.mean - c.half;
    c.hi = c.mean + c.half;
    return c;
}

struct stats_paired stats_paired_t(const double *a, const double *b, int n, double level)
{
    assert(level > 0 && level < 1);
    struct stats_paired r = {n, false, false, false, NAN, NAN, NAN, NAN, NAN};
    if (n <= 0)
        return r;
    double *d = mem_xmalloc(sizeof *d * (size_t)n, "a paired t test");
    r.identical = true;
    for (int i = 0; i < n; i++) {
        assert(!isnan(a[i]) && !isnan(b[i]));
        d[i] = a[i] - b[i];
        r.identical &= d[i] == 0;
    }
    mean_sd(d, n, &r.mean_diff, &r.sd_diff);
    free(d);
    if (n < 2)
        return r;
    r.testable = true;
    if (r.sd_diff == 0) {
        /* No spread: the difference is exactly known, zero (identical) or not. */
        r.half = 0;
        r.t = r.identical ? 0 : copysign(INFINITY, r.mean_diff);
        r.p = r.identical ? 1 : 0;
    } else {
        double se = r.sd_diff / sqrt(n);
        r.t = r.mean_diff / se;
        r.p = 2 * gsl_cdf_tdist_Q(fabs(r.t), (double)(n - 1));
        r.half = t_quantile(level, n) * se;
    }
    r.significant = r.p < 1 - level;
    return r;
}

/* Whether p is at least as good as q in both objectives (larger is better) and strictly better in one. */
static bool dominates(const double p[2], const double q[2])
{
    return p[0] >= q[0] && p[1] >= q[1] && (p[0] > q[0] || p[1] > q[1]);
}

int stats_pareto(const double (*obj)[2], const bool maximize[2], int n, bool *on_front)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        on_front[i] = false;
        if (isnan(obj[i][0]) || isnan(obj[i][1]))
            continue;
        double p[2] = {maximize[0] ? obj[i][0] : -obj[i][0], maximize[1] ? obj[i][1] : -obj[i][1]};
        bool dominated = false;
        for (int j = 0; j < n && !dominated; j++) {
            if (j == i || isnan(obj[j][0]) || isnan(obj[j][1]))
                continue;
            double q[2] = {maximize[0] ? obj[j][0] : -obj[j][0], maximize[1] ? obj[j][1] : -obj[j][1]};
            dominated = dominates(q, p);
        }
        on_front[i] = !dominated;
        count += !dominated;
    }
    return count;
}
