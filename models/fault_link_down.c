/*
 * fault_link_down — the kind "link_down": every link between two nodes fails in both directions at `at` and, if
 * `until` is given, comes back then (a cable pulled, a switch port or optic failing; the routing tables are
 * recomputed around it, as a fabric's routing protocol or controller does).  The rules are in fault.h.
 */
#include "models/fault.h"

#include <cjson/cJSON.h>

struct link_down_conf {
    struct fault_span span; /* at, until */
    char between[2][SCN_NAME_MAX];
};

static const struct setting link_down_fields[] = {
    {.name = "between", .kind = SETTING_CUSTOM, .offset = offsetof(struct link_down_conf, between),
     .flags = SETTING_REQUIRED, .what = "two node names like [\"leaf0\", \"spine1\"]",
     .help = "The link's two ends: two different, linked nodes", .parse = scn_parse_link_ends,
     .dump = scn_dump_link_ends},
    {SET_FIELD("at", SETTING_TIME, struct link_down_conf, span.start_ps, SETTING_REQUIRED, NULL, "When it fails"),
     .what = "a time like \"1.5us\""},
    {.name = "until", .kind = SETTING_CUSTOM, .offset = offsetof(struct link_down_conf, span.end_ps),
     .flags = SETTING_ALWAYS, .help = "When it comes back (absent: never)", .parse = fault_parse_end,
     .dump = fault_dump_end},
    {SET_CHECK(fault_check_until)},
    {0},
};

static const struct setting_group link_down_group = {
    .path = "faults.link_down", .size = sizeof(struct link_down_conf), .per_entry = true, .fields = link_down_fields,
};

/* Node ids travel in the event argument: a in the high half, b in the low. */
static uint64_t pack(uint32_t a, uint32_t b) { return (uint64_t)a << 32 | b; }

static void link_fail_event(struct sim *s, void *obj, uint64_t arg)
{
    fault_link_change(obj, (uint32_t)(arg >> 32), (uint32_t)arg, true);
}

static void link_restore_event(struct sim *s, void *obj, uint64_t arg)
{
    fault_link_change(obj, (uint32_t)(arg >> 32), (uint32_t)arg, false);
}


static int link_down_resolve(struct net *n, int i, char *err, size_t errlen)
{
    return fault_link_ends(n, i, FAULT_CONF(&n->scn->faults[i], struct link_down_conf)->between, err, errlen);
}

static void link_down_schedule(struct net *n, int i)
{
    const struct fault_span *sp = &FAULT_CONF(&n->scn->faults[i], struct link_down_conf)->span;
    uint64_t arg = pack(n->fault_ends[2 * i], n->fault_ends[2 * i + 1]);
    sim_at(net_sim(n), sp->start_ps, link_fail_event, n, arg);
    if (sp->end_ps >= 0)
        sim_at(net_sim(n), sp->end_ps, link_restore_event, n, arg);
}

static const struct fault_ops link_down_ops = {.resolve = link_down_resolve, .schedule = link_down_schedule};

MODULE_REGISTER(fault_kind, "link_down", &link_down_ops, &link_down_group);
