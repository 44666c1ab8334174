/*
 * rccc_oversub — the UEC reference simulator's receiver oversubscription control, htsim_uec oversubscribed_cc.cpp
 * (ultraethernet/uet-htsim, htsim/sim: OversubscribedCC, fed by UecSink and acting on UecPullPacer), which lets a
 * receiving host under receiver credit (rccc.c) pull more slowly than its line rate when the fabric before its own
 * link, not its link, is the bottleneck: host.uet.oversub_cc, read from the receiving host.
 *
 * The host counts the frames of the credit flows into it: every data frame, trimmed header and RTS (N), the data
 * frames that arrived CE-marked (E), the trimmed headers trimmed at the last hop, by the switch port to the host
 * (T_l), and those trimmed before it (T_o).  Every period, drawn uniformly in [0.75, 1.25] x 1.5 x base RTT
 * (host.uet.base_rtt; the reference's: its network's largest unloaded round trip), it takes the counts since the
 * last and, with the pacer's scale R (1 at the start) and the average marked fraction g (0 at the start):
 *     f = E / (N - T_l - T_o)                (0 when no whole data frame came)
 *     R = R - T_o / N                        when T_o > 0 (a decrease)
 *     g = (1 - alpha) g + alpha f
 *     R = R x (1 - (g - target) x Md)        when g > target and Md > 0 (a decrease)
 *     R = R + Ai x 2^k   (E = 0)  or  R + Ai  (E > 0)    when neither decreased; k: the periods in a row
 *                                            without a decrease before this one
 *     R = min(1, max(min_rate, R))
 * and the pacer waits (its time per quantum) / R between pulls from its next pull on.  Trims at the last hop say
 * only that the host's own link was full, which the pacer already meters: they count in N alone.  The constants
 * are host.uet.oversub_ai (the reference's -Ai, 0.01), oversub_md (-Md, 0.5), oversub_alpha (-alpha, 0.5),
 * oversub_target (0.3) and oversub_min_rate (0.01; the reference sets 0.9 / its fabric's oversubscription ratio,
 * at least 0.01, when it turns the control on for an oversubscribed fabric: `rocesim import uet-htsim` does).
 *
 * Departures from the reference.  Its controls run from the start of the run on every host; here a host's starts at
 * its first frame, and stops after a period in which nothing came and R is 1: the only state left then is g, which
 * the periods without frames would each have multiplied by (1 - alpha), so the next frame's wake-up multiplies it by
 * (1 - alpha)^floor(idle time / mean period), and its first period ends a uniform part of a period later (the
 * reference's frame finds a period under way; starting a whole one at the frame made the 4:1 permutation trim
 * 30 % more than the reference, and this 12 %).  Its periods' jitter comes from the host's own stream
 * (RNG_KIND_OVERSUB), so that the answer is the same in any partition.  A trimmed header that arrives after its flow
 * completed at the receiver is not counted (the NIC drops it unseen).
 */
#include "models/rccc.h"
#include "sim/mem.h"

#include <math.h>

/* A period's length: the reference's jitter around 1.5 base RTTs keeps hosts' periods from falling into step. */
static sim_time_t interval(struct rccc_oversub *o)
{
    return (sim_time_t)((0.75 + rng_uniform(&o->rng) / 2) * (double)o->period + 0.5);
}

void rccc_oversub_step(struct rccc_oversub_ctl *c, const struct rccc_oversub_params *p, uint64_t received,
                       uint64_t ecn, uint64_t trim_last, uint64_t trim_other)
{
    double fraction = 0;
    bool decrease = false;
    uint64_t whole = received - trim_last - trim_other;
    if (whole)
        fraction = (double)ecn / (double)whole;
    if (trim_other) {
        c->rate -= (double)trim_other / (double)received;
        decrease = true;
    }
    c->g = c->g * (1 - p->alpha) + p->alpha * fraction;
    if (c->g > p->target && p->md > 0) {
        c->rate *= 1 - (c->g - p->target) * p->md;
        decrease = true;
    }
    if (!decrease) {
        /* 2^k beyond 2^1100 is infinite as a double anyway: R is capped at 1 */
        c->rate += ecn ? p->ai : ldexp(p->ai, c->increases < 1100 ? (int)c->increases : 1100);
        c->increases++;
    } else {
        c->increases = 0;
    }
    if (c->rate < p->min_rate)
        c->rate = p->min_rate;
    if (c->rate > 1)
        c->rate = 1;
}

static void fire(struct sim *s, void *obj, uint64_t arg)
{
    struct rccc_oversub *o = obj;
    (void)arg;
    SIM_ASSERT_ENT(s, o->timer.ent);
    uint64_t received = o->received;
    rccc_oversub_step(&o->ctl, o->p, received, o->ecn, o->trim_last, o->trim_other);
    o->received = o->ecn = o->trim_last = o->trim_other = 0;
    if (!received && o->ctl.rate >= 1) {
        o->rested = s->now; /* nothing to change until a frame comes: no timer for an idle host */
        return;
    }
    sim_timer_arm(s, &o->timer, s->now + interval(o), fire, o);
}

void rccc_oversub_wake(struct rccc_oversub *o)
{
    struct sim *s = net_sim(o->net);
    if (o->ctl.g > 0 && o->period > 0) {
        sim_time_t missed = (s->now - o->rested) / o->period;
        if (missed > 0)
            o->ctl.g *= pow(1 - o->p->alpha, (double)missed);
    }
    o->rested = -1;
    /* the reference's periods never stop, so a frame finds one already under way: the rest of it, uniformly */
    sim_time_t left = (sim_time_t)(rng_uniform(&o->rng) * (double)interval(o) + 0.5);
    sim_timer_arm(s, &o->timer, s->now + left, fire, o);
}

struct rccc_oversub *rccc_oversub_new(struct net *n, uint32_t idx, const struct rccc_oversub_params *p,
                                      sim_time_t base_rtt)
{
    struct rccc_oversub *o = mem_xcalloc(1, sizeof *o, "a host's oversubscription control");
    o->net = n;
    o->p = p;
    o->timer.ent = net_ent(n->hosts[idx].node);
    rng_init(&o->rng, n->scn->seed, rng_stream_id(RNG_KIND_OVERSUB, idx));
    o->period = (sim_time_t)(1.5 * (double)base_rtt + 0.5);
    o->rested = net_sim(n)->now;
    o->ctl.rate = 1;
    return o;
}
