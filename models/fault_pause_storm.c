/*
 * fault_pause_storm — the kind "pause_storm": a NIC whose receive pipeline has stalled keeps its ToR paused on a
 * priority, PAUSE refreshed at half its time (IEEE 802.1Qbb), the storm that PFC watchdogs exist for (Guo et al.,
 * RDMA over Commodity Ethernet at Scale, SIGCOMM 2016).  The rules are in fault.h.
 */
#include "models/fault.h"
#include "models/nic.h"
#include "models/ranks.h"

#include <cjson/cJSON.h>

struct pause_storm_conf {
    struct fault_span span; /* start, end */
    int host;
    int priority;
};

/* Absent: host.priority (the scenario's, which the loader knows). */
static int parse_priority(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path,
                          void *base)
{
    struct pause_storm_conf *e = base;
    long long x = nic_params_of(&scn_loading(c)->host)->priority;
    if (v && setting_val_int(c, v, path, 0, 7, &x) < 0)
        return -1;
    e->priority = (int)x;
    return 0;
}

static void dump_priority(cJSON *obj, const struct setting *f, const void *base)
{
    cJSON_AddNumberToObject(obj, f->name, ((const struct pause_storm_conf *)base)->priority);
}

static const struct setting pause_storm_fields[] = {
    {.name = "host", .kind = SETTING_CUSTOM, .offset = offsetof(struct pause_storm_conf, host),
     .flags = SETTING_REQUIRED, .what = "a host name like \"h0\"", .help = "The host whose NIC sends PAUSE",
     .parse = scn_parse_host, .dump = scn_dump_host},
    {.name = "priority", .kind = SETTING_CUSTOM, .offset = offsetof(struct pause_storm_conf, priority),
     .flags = SETTING_ALWAYS,
     .help = "Priority being paused (absent: host.priority)", .parse = parse_priority, .dump = dump_priority},
    {SET_FIELD("start", SETTING_TIME, struct pause_storm_conf, span.start_ps, SETTING_REQUIRED, NULL,
               "When the storm begins"), .what = "a time like \"1.5us\""},
    {.name = "end", .kind = SETTING_CUSTOM, .offset = offsetof(struct pause_storm_conf, span.end_ps),
     .flags = SETTING_ALWAYS, .help = "When it ends (absent: never)", .parse = fault_parse_end,
     .dump = fault_dump_end},
    {SET_CHECK(fault_check_end)},
    {0},
};

static const struct setting_group pause_storm_group = {
    .path = "faults.pause_storm", .size = sizeof(struct pause_storm_conf), .per_entry = true,
    .fields = pause_storm_fields,
};

/* Pause_storm fault number arg begins (delta 1) or ends (-1) at its host: the host pauses while any storm of the
 * priority is on, and sends RESUME when the last ends unless another reason to pause remains. */
static void storm_change(struct net *n, uint64_t arg, int delta)
{
    const struct pause_storm_conf *f = FAULT_CONF(&n->scn->faults[arg], struct pause_storm_conf);
    struct host *h = &n->hosts[f->host];
    struct ranks_entry re;
    if (!ranks_enter(n, h->node, &re))
        return;
    h->fault->storm[f->priority] += delta;
    fault_host_pfc_update(n, h, f->priority);
    ranks_leave(n, &re);
}

static void storm_begin(struct sim *s, void *obj, uint64_t arg) { storm_change(obj, arg, 1); }

static void storm_end(struct sim *s, void *obj, uint64_t arg) { storm_change(obj, arg, -1); }


static int pause_storm_resolve(struct net *n, int i, char *err, size_t errlen)
{
    (void)n, (void)i, (void)err, (void)errlen;
    return 0;
}

static void pause_storm_schedule(struct net *n, int i)
{
    const struct pause_storm_conf *f = FAULT_CONF(&n->scn->faults[i], struct pause_storm_conf);
    fault_host(n, &n->hosts[f->host]);
    sim_at(net_sim(n), f->span.start_ps, storm_begin, n, (uint64_t)i);
    if (f->span.end_ps >= 0)
        sim_at(net_sim(n), f->span.end_ps, storm_end, n, (uint64_t)i);
}

static const struct fault_ops pause_storm_ops = {.resolve = pause_storm_resolve, .schedule = pause_storm_schedule};

MODULE_REGISTER(fault_kind, "pause_storm", &pause_storm_ops, &pause_storm_group);
