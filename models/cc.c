/*
 * cc — the registry of congestion-control algorithms and the transport's generic calls (cc.h).
 */
#include "models/cc.h"

#include "sim/mem.h"

#include <string.h>

extern const struct cc_ops cc_dcqcn_ops, cc_none_ops;
extern const struct cc_ops cc_timely_ops, cc_dctcp_ops, cc_swift_ops, cc_hpcc_ops;

/* The registration line: one entry per algorithm.  The order is the flows' cc index, which nothing outside a run
 * keeps. */
#define CC_BUILTIN &cc_dcqcn_ops, &cc_none_ops, &cc_timely_ops, &cc_dctcp_ops, &cc_swift_ops, &cc_hpcc_ops

const struct cc_ops *cc_registry[CC_MAX] = {CC_BUILTIN};
int cc_count = (int)(sizeof((const struct cc_ops *[]){CC_BUILTIN}) / sizeof(const struct cc_ops *));

_Static_assert((CC_F_TELEMETRY | CC_F_CNP | CC_F_RTT | CC_F_ECN | CC_F_ECN_STEP) < CC_FLOW_ON_ACK, "the algorithms' flags fit below it");

const char *const cc_sample_columns[CC_SAMPLE_N] = {"rate_gbps", "target_gbps", "alpha"};

int cc_find(const char *name)
{
    for (int i = 0; i < cc_count; i++)
        if (strcmp(cc_registry[i]->name, name) == 0)
            return i;
    return -1;
}

int cc_register(const struct cc_ops *o)
{
    if (cc_count >= CC_MAX || cc_find(o->name) >= 0)
        return -1;
    cc_registry[cc_count] = o;
    return cc_count++;
}

const char *cc_scenario_name(enum scn_cc cc)
{
    return scn_cc_name(cc);
}

void cc_flow_setup(struct net *n, struct flow *f, int id)
{
    f->cc = (uint8_t)id;
    f->cc_flags = (uint8_t)(cc_registry[id]->flags | (cc_registry[id]->on_ack ? CC_FLOW_ON_ACK : 0));
    if ((f->cc_flags & CC_F_TELEMETRY) && !n->tel)
        net_tel_ensure(n);
}

static void cc_timer_fired(struct sim *s, void *obj, uint64_t arg)
{
    struct flow *f = obj;
    SIM_ASSERT_ENT(s, flow_sender_ent(f));
    flow_cc(f)->on_timer(f, s->now);
}

void cc_timer_arm(struct flow *f, sim_time_t t)
{
    sim_timer_arm(net_sim(f->net), &f->cc_timer, t, cc_timer_fired, f);
}

void cc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    memset(s, 0, sizeof *s);
    flow_cc(f)->sample(f, now, s);
    s->valid |= 1u << CC_SAMPLE_RATE;
    if (f->rate_cap_bps && (double)f->rate_cap_bps < s->rate_bps)
        s->rate_bps = (double)f->rate_cap_bps;
    if (!(s->valid & (1u << CC_SAMPLE_TARGET)))
        s->target_bps = s->rate_bps;
}

int cc_stats(const struct flow *f, struct cc_stat *out, int max)
{
    const struct cc_ops *o = flow_cc(f);
    return o->stats ? o->stats(f, out, max) : 0;
}
