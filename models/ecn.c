/* ecn — RED marking at a switch egress (the formula and its sources are in ecn.h), and its settings. */
#include "models/ecn.h"
#include "models/mech.h"
#include "sim/units.h"

#include <cjson/cJSON.h>

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

/* ---- switch.ecn: its settings (ecn.h, docs/scenario.md) ---- */

static const char *const mark_names[] = {"dequeue", "enqueue", "sent", NULL};

/* See ecn.h. */
const char *ecn_mark_on_name(enum ecn_mark_on m)
{
    return mark_names[m];
}

static int check_kmax(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct ecn_settings *e = base;
    char a[32], b[32], p[SETTING_PATH_MAX];
    (void)obj;
    /* With maps the rule is checked per port, when the network is built. */
    if (e->kmax < e->kmin && !e->kmin_map.n && !e->kmax_map.n)
        return setting_bad(c, setting_join(p, path, "kmax"), "expected a size at least kmin (%s), got \"%s\"",
                           units_fmt_size(e->kmin, a, sizeof a), units_fmt_size(e->kmax, b, sizeof b));
    return 0;
}

SCN_VALUE_OR_MAP(kmin, struct ecn_settings, kmin_map)
SCN_VALUE_OR_MAP(kmax, struct ecn_settings, kmax_map)
SCN_VALUE_OR_MAP(pmax, struct ecn_settings, pmax_map)

/* Enum fields are stored through an int (sim/settings.c). */
_Static_assert(sizeof(enum ecn_mark_on) == sizeof(int), "enum settings are stored as int");

/* In table order, which is the dump's, the docs' and the order errors are found in (sim/settings.h). */
static const struct setting ecn_fields[] = {
    {SET_FIELD("enabled", SETTING_BOOL, struct ecn_settings, enabled, SETTING_PORT, "true",
           "false: no packet is ever marked")},
    {SET_FIELD("kmin", SETTING_SIZE, struct ecn_settings, kmin, SETTING_PORT, "5KB",
           "Marking starts above this queue length"), .parse = parse_kmin, .dump = dump_kmin},
    {SET_FIELD("kmax", SETTING_SIZE, struct ecn_settings, kmax, SETTING_PORT, "200KB",
           "Every packet is marked above this length"), .parse = parse_kmax, .dump = dump_kmax},
    {SET_NUM("pmax", struct ecn_settings, pmax, SETTING_PORT, 0.0, 1.0, "0.01", "Marking probability just below kmax"),
     .parse = parse_pmax, .dump = dump_pmax},
    {SET_ENUM("mark_on", struct ecn_settings, mark_on, mark_names, "dequeue",
          "Decide when a packet leaves the queue (\"dequeue\"), arrives (\"enqueue\") or has been sent (\"sent\")")},
    {SET_CHECK(check_kmax)},
    {0},
};

/*
 * After switch.flow_control, as switch.pfc and switch.scheduler: the modules register by kind (sim/module.h), so
 * PFC's ("lfc") comes before this ("mechanism") and the scheduler's ("sched") after, the switch object's order.
 */
static const struct setting_group ecn_group = {
    .path = "switch.ecn", .size = sizeof(struct ecn_settings), .after = "flow_control", .fields = ecn_fields,
};

/* See ecn.h. */
const struct ecn_settings *ecn_settings_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, ecn_group, struct ecn_settings);
}

/* Each switch draws its marks from a random stream of its own (ecn.h), seeded when the network is built. */
static void ecn_init(struct net *n)
{
    for (uint32_t i = 0; i < n->g->n_switches; i++)
        rng_init(&n->sws[i].ecn_rng, n->scn->seed, rng_stream_id(RNG_KIND_ECN, n->sws[i].ordinal));
}

static const struct net_mech_ops ecn_mech = {.name = "ecn", .order = 15, .init = ecn_init};
NET_MECH(ecn_mech, &ecn_group)
