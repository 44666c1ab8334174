/*
 * dcqcn — reaction point state machine (formulas and sources in dcqcn.h).
 */
#include "dcqcn.h"

#include <math.h>

void dcqcn_init(struct dcqcn *d, const struct dcqcn_params *p, int64_t line_bps, sim_time_t now)
{
    d->p = p;
    d->line_bps = (double)line_bps;
    d->rc = d->rt = d->line_bps;
    d->alpha_ref = p->alpha_init;
    d->alpha_t0 = now;
    d->t_count = d->bc_count = 0;
    d->bytes = 0;
    d->seen_cnp = false;
    d->increasing = false;
    d->cut_pending = false;
    d->cnps = 0;
}

double dcqcn_alpha(const struct dcqcn *d, sim_time_t now)
{
    int64_t periods = (now - d->alpha_t0) / d->p->alpha_timer_ps;
    if (periods <= 0)
        return d->alpha_ref;
    double a = d->alpha_ref;
    if (d->p->periodic && d->alpha_cnp) { /* the first tick since saw a CNP */
        a = (1.0 - d->p->g) * a + d->p->g;
        periods--;
    }
    return a * pow(1.0 - d->p->g, (double)periods);
}

/* Periodic timing: alpha through its ticks up to now (alpha_t0 then stands on the last of them). */
static void alpha_ticks(struct dcqcn *d, sim_time_t now)
{
    int64_t periods = (now - d->alpha_t0) / d->p->alpha_timer_ps;
    if (periods <= 0)
        return;
    d->alpha_ref = dcqcn_alpha(d, now);
    d->alpha_t0 += periods * d->p->alpha_timer_ps;
    d->alpha_cnp = false;
}

static double clamp_rate(const struct dcqcn *d, double r)
{
    if (r > d->line_bps)
        return d->line_bps;
    if (r < (double)d->p->min_rate_bps)
        return (double)d->p->min_rate_bps;
    return r;
}

void dcqcn_on_cnp(struct dcqcn *d, sim_time_t now)
{
    const struct dcqcn_params *p = d->p;
    double alpha = dcqcn_alpha(d, now);
    if (!d->seen_cnp) {
        d->seen_cnp = true;
        if (p->rate_on_first_cnp > 0)
            d->rc = clamp_rate(d, d->rc * p->rate_on_first_cnp);
    }
    /*
     * Rt <- Rc, except that without clamp_target_rate (ConnectX clamp_tgt_rate
     * = 0) two cuts with no increase event between them keep the older, higher
     * target, so that a burst of CNPs does not ratchet the target down.
     */
    if (p->clamp_target_rate || d->t_count > 0 || (d->bc_count > 0 && !p->clamp_after_timer))
        d->rt = d->rc;
    double factor = 1.0 - alpha / 2.0;
    if (factor < p->min_dec_factor)
        factor = p->min_dec_factor;
    d->rc = clamp_rate(d, d->rc * factor);
    d->alpha_ref = (1.0 - p->g) * alpha + p->g;
    d->alpha_t0 = now;
    d->t_count = d->bc_count = 0;
    d->bytes = 0;
    d->increasing = true;
    d->cut_pending = false;
    d->cnps++;
}

bool dcqcn_on_cnp_monitored(struct dcqcn *d, sim_time_t now)
{
    if (d->seen_cnp && now < dcqcn_cut_due(d)) {
        d->cut_pending = true;
        return false;
    }
    dcqcn_on_cnp(d, now);
    return true;
}

void dcqcn_cnp_periodic(struct dcqcn *d, sim_time_t now)
{
    const struct dcqcn_params *p = d->p;
    if (!d->seen_cnp) {
        d->seen_cnp = true;
        d->alpha_ref = p->alpha_init;
        d->alpha_t0 = now;
        d->alpha_cnp = false;
        d->rc = d->rt = clamp_rate(d, d->rc * p->rate_on_first_cnp);
        d->check_at = now + p->rate_reduce_period_ps + 1000; /* 1 ns after that instant's alpha tick */
        d->cut_pending = true;
        return;
    }
    alpha_ticks(d, now);
    d->alpha_cnp = true;
    while (d->check_at <= now)
        d->check_at += p->rate_reduce_period_ps;
    d->cut_pending = true;
}

void dcqcn_check_periodic(struct dcqcn *d, sim_time_t now)
{
    const struct dcqcn_params *p = d->p;
    alpha_ticks(d, now);
    d->check_at += p->rate_reduce_period_ps;
    if (!d->cut_pending)
        return;
    if (p->clamp_target_rate || d->t_count > 0)
        d->rt = d->rc;
    d->rc = clamp_rate(d, d->rc * (1.0 - d->alpha_ref / 2.0));
    d->t_count = 0;
    d->increasing = true;
    d->cut_pending = false;
    d->cnps++;
}

static void increase(struct dcqcn *d)
{
    const struct dcqcn_params *p = d->p;
    uint32_t F = (uint32_t)p->fast_recovery_steps;
    if (p->periodic) {
        /* fast recovery through event F, one additive step, then hyper steps of a constant size */
        if (d->t_count == F + 1)
            d->rt += (double)p->ai_rate_bps;
        else if (d->t_count > F + 1)
            d->rt += (double)p->hai_rate_bps;
        if (d->rt > d->line_bps)
            d->rt = d->line_bps;
        d->rc = clamp_rate(d, (d->rt + d->rc) / 2.0);
        if (d->rc >= d->line_bps && d->rt >= d->line_bps)
            d->increasing = false;
        return;
    }
    uint32_t mx = d->t_count > d->bc_count ? d->t_count : d->bc_count;
    uint32_t mn = d->t_count < d->bc_count ? d->t_count : d->bc_count;
    if (p->byte_counter_off)
        mx = mn = d->t_count;
    if (mx <= F) {
        /* fast recovery: Rt unchanged */
    } else if (mn > F) {
        d->rt += (double)(mn - F) * (double)p->hai_rate_bps;
    } else {
        d->rt += (double)p->ai_rate_bps;
    }
    if (d->rt > d->line_bps)
        d->rt = d->line_bps;
    d->rc = clamp_rate(d, (d->rt + d->rc) / 2.0);
    /* Back at line rate with nothing left to recover: stop the increase machinery. */
    if (d->rc >= d->line_bps && d->rt >= d->line_bps)
        d->increasing = false;
}

void dcqcn_on_timer(struct dcqcn *d)
{
    if (!d->increasing)
        return;
    d->t_count++;
    increase(d);
}

int dcqcn_on_sent(struct dcqcn *d, int64_t bytes)
{
    if (!d->increasing || d->p->periodic) /* periodic: no byte counter, and its bytes' place holds check_at */
        return 0;
    int n = 0;
    d->bytes += bytes;
    while (d->increasing && d->bytes >= d->p->byte_counter) {
        d->bytes -= d->p->byte_counter;
        d->bc_count++;
        increase(d);
        n++;
    }
    return n;
}
