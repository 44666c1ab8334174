/* dcqcn_fluid — fixed point of the DCQCN fluid model (equations in dcqcn_fluid.h). */
#include "models/dcqcn_fluid.h"
#include "models/ecn.h"

#include <math.h>

struct fp_params {
    double rc, tau, tau_a, rai, B, T, F;
};

/* (1-p)^x without cancellation for small p */
static double pow1m(double p, double x) { return exp(x * log1p(-p)); }

/* b + d: increase events per packet; c + e: the ones past fast recovery */
static void events(const struct fp_params *k, double p, double *bd, double *ce)
{
    double b = p / expm1(-k->B * log1p(-p));
    double d = p / expm1(-k->T * k->rc * log1p(-p));
    *bd = b + d;
    *ce = b * pow1m(p, k->F * k->B) + d * pow1m(p, k->F * k->T * k->rc);
}

static double G(const struct fp_params *k, double p)
{
    double a = 1 - pow1m(p, k->tau * k->rc);
    double alpha = 1 - pow1m(p, k->tau_a * k->rc);
    double bd, ce;
    events(k, p, &bd, &ce);
    return alpha * a * a - k->tau * k->tau * k->rai * k->rc * ce * bd;
}

int dcqcn_fluid_fixed_point(const struct dcqcn_params *d, const struct ecn_settings *e, double link_bps, int n,
                            double frame_wire_bytes, struct dcqcn_fixed_point *out)
{
    double bits = frame_wire_bytes * 8;
    struct fp_params k = {
        .rc = link_bps / bits / n,
        .tau = (double)d->cnp_interval_ps * 1e-12,
        .tau_a = (double)d->alpha_timer_ps * 1e-12,
        .rai = (double)d->ai_rate_bps / bits,
        .B = (double)d->byte_counter / frame_wire_bytes,
        .T = (double)d->rate_increase_timer_ps * 1e-12,
        .F = (double)d->fast_recovery_steps,
    };
    /* Bisection on log p: the root spans many orders of magnitude across parameters. */
    double lo = -40, hi = log(1 - 1e-12);
    if (!(G(&k, exp(lo)) < 0 && G(&k, exp(hi)) > 0))
        return -1;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (G(&k, exp(mid)) < 0)
            lo = mid;
        else
            hi = mid;
    }
    double p = exp((lo + hi) / 2);
    double a = 1 - pow1m(p, k.tau * k.rc), bd, ce;
    events(&k, p, &bd, &ce);
    out->p = p;
    out->alpha = 1 - pow1m(p, k.tau_a * k.rc);
    out->rc_bps = k.rc * bits;
    out->rt_bps = (k.rc + k.tau * k.rai * k.rc * ce / a) * bits;
    out->in_red_range = p <= e->pmax;
    out->q_bytes = (double)e->kmin + p * (double)(e->kmax - e->kmin) / e->pmax;
    return 0;
}
