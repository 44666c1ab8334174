/*
 * cc — the kind of the congestion-control modules and the transport's generic calls (cc.h).
 */
#include "models/cc.h"

#include "sim/mem.h"
#include "sim/settings.h"

#include <string.h>

const struct cc_ops *cc_registry[CC_MAX];
int cc_count;

_Static_assert((CC_F_TELEMETRY | CC_F_CNP | CC_F_RTT | CC_F_ECN | CC_F_ECN_STEP | CC_F_BYTES) < CC_FLOW_ON_ACK,
               "the algorithms' flags fit below it");
_Static_assert(CC_MAX <= UINT8_MAX + 1, "flow.cc holds an algorithm's index");

/* What every flow calls without a test (cc.h), and the name the outputs print, which must be the scenario's. */
static const char *cc_missing(const struct module *m)
{
    const struct cc_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (cc_ops.name)";
    if (!o->init)
        return "an init hook";
    if (!o->rate)
        return "a rate hook";
    if (!o->sample)
        return "a sample hook";
    return cc_count == CC_MAX ? "room: CC_MAX algorithms are registered" : NULL;
}

static void cc_added(const struct module *m, int index)
{
    cc_registry[index] = m->ops;
    cc_count = index + 1;
}

const struct module_kind cc_kind = {.name = "cc", .dflt = "dcqcn", .missing = cc_missing, .added = cc_added};

/* host.cc (cc.h): the kind's own setting, which every algorithm's group follows. */
static const struct setting cc_fields[] = {
    {SET_MODULE("cc", struct cc_params, cc, "cc", "dcqcn",
                "Congestion control: \"dcqcn\", \"none\" (line rate), or one a module registered")},
    {0},
};

static const struct setting_group cc_group = {
    .path = "host/cc", .size = sizeof(struct cc_params), .after = "cnp_priority", .fields = cc_fields,
};
SETTINGS_REGISTER("cc", &cc_group);

/* See cc.h. */
const struct cc_params *cc_params_of(const struct scn_host *h)
{
    return SETTINGS_OF(h, cc_group, struct cc_params);
}

const char *const cc_sample_columns[CC_SAMPLE_N] = {"rate_gbps", "target_gbps", "alpha"};

int cc_find(const char *name)
{
    return module_find(cc_kind.name, name);
}

const char *cc_scenario_name(int cc)
{
    return cc_registry[cc]->name;
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
