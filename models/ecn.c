/* ecn — RED marking at a switch egress (the formula and its sources are in ecn.h). */
#include "models/ecn.h"

double ecn_red_probability(const struct ecn_thresh *e, int64_t q)
{
    if (q <= e->kmin)
        return 0.0;
    if (q > e->kmax)
        return 1.0;
    return e->pmax * (double)(q - e->kmin) / (double)(e->kmax - e->kmin);
}

bool ecn_red_draw(const struct ecn_thresh *e, struct rng *r, int64_t q)
{
    double p = ecn_red_probability(e, q);
    if (p <= 0.0)
        return false;
    if (p >= 1.0)
        return true;
    return rng_uniform(r) < p;
}
