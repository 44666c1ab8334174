/*
 * cc_dcqcn — DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) behind
 * the congestion-control table (cc.h).
 *
 * Reaction point: the rate machine of dcqcn.c (its formulas are in dcqcn.h): a CNP cuts the rate and starts the
 * rate-increase timer (cc_timer), which re-arms itself every rate_increase_timer while the rate is below line
 * rate; the byte counter advances with every data frame sent.
 *
 * Notification point: a CE-marked data frame makes the receiver send a CNP to the flow's sender, at most one
 * per flow per cnp_interval (section 3.2 of the paper; ConnectX's min_time_between_cnps).
 */
#include "models/cc.h"
#include "models/dcqcn.h"

_Static_assert(sizeof(struct dcqcn) <= CC_STATE_BYTES, "DCQCN's state fits the flow's cc_state");

static struct dcqcn *rp(struct flow *f) { return CC_STATE(f, struct dcqcn); }
static const struct dcqcn *crp(const struct flow *f) { return CC_STATE(f, const struct dcqcn); }

static void dcqcn_cc_init(struct flow *f, sim_time_t now)
{
    const struct net *n = f->net;
    dcqcn_init(rp(f), &n->scn->host.dcqcn, n->hosts[f->src].rate_bps, now);
}

static void dcqcn_cc_on_sent(struct flow *f, uint32_t bytes) { dcqcn_on_sent(rp(f), bytes); }

static void dcqcn_cc_on_cnp(struct flow *f, sim_time_t now)
{
    struct dcqcn *d = rp(f);
    dcqcn_on_cnp(d, now);
    cc_timer_arm(f, now + d->p->rate_increase_timer_ps);
}

static void dcqcn_cc_on_timer(struct flow *f, sim_time_t now)
{
    struct dcqcn *d = rp(f);
    dcqcn_on_timer(d);
    if (d->increasing && !f->sender_done)
        cc_timer_arm(f, now + d->p->rate_increase_timer_ps);
}

static double dcqcn_cc_rate(const struct flow *f) { return crp(f)->rc; }

static bool dcqcn_cc_on_data(struct flow *f, const struct pkt *k, sim_time_t now)
{
    if (!(k->ecn & ECN_CE))
        return false;
    if (f->last_cnp >= 0 && now - f->last_cnp < f->net->scn->host.dcqcn.cnp_interval_ps)
        return false;
    f->last_cnp = now;
    return true;
}

static void dcqcn_cc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    const struct dcqcn *d = crp(f);
    s->rate_bps = d->rc;
    s->target_bps = d->rt;
    s->alpha = dcqcn_alpha(d, now);
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_TARGET | 1u << CC_SAMPLE_ALPHA;
}

static int dcqcn_cc_stats(const struct flow *f, struct cc_stat *out, int max)
{
    if (max < 1)
        return 0;
    out[0] = (struct cc_stat){"rate_cuts", crp(f)->cnps};
    return 1;
}

static const void *dcqcn_cc_settings(const struct scenario *scn) { return &scn->host.dcqcn; }

const struct cc_ops cc_dcqcn_ops = {
    .name = "dcqcn",
    .flags = CC_F_CNP,
    .init = dcqcn_cc_init,
    .on_sent = dcqcn_cc_on_sent,
    .on_cnp = dcqcn_cc_on_cnp,
    .on_timer = dcqcn_cc_on_timer,
    .rate = dcqcn_cc_rate,
    .on_data = dcqcn_cc_on_data,
    .sample = dcqcn_cc_sample,
    .stats = dcqcn_cc_stats,
    .settings = dcqcn_cc_settings,
};
