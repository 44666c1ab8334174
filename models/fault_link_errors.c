/*
 * fault_link_errors — the kind "link_errors": a cable or optic that corrupts frames for a while (bit errors that
 * fail the frame check sequence, IEEE 802.3), each frame on the links between two nodes lost at its receiver with
 * probability `rate`, in both directions or one.  The rules are in fault.h.
 */
#include "models/fault.h"
#include "models/port.h"
#include "sim/mem.h"

#include <cjson/cJSON.h>

struct link_errors_conf {
    struct fault_span span; /* start, end */
    char between[2][SCN_NAME_MAX];
    double error_rate;      /* probability that a frame is corrupted, in (0, 1) */
    bool one_way;           /* only frames from between[0] to between[1] */
};

static const struct setting link_errors_fields[] = {
    {.name = "between", .kind = SETTING_CUSTOM, .offset = offsetof(struct link_errors_conf, between),
     .flags = SETTING_REQUIRED, .what = "two node names like [\"leaf0\", \"spine1\"]",
     .help = "The link's two ends: two different, linked nodes", .parse = scn_parse_link_ends,
     .dump = scn_dump_link_ends},
    {SET_NUM("rate", struct link_errors_conf, error_rate, SETTING_LO_OPEN | SETTING_HI_OPEN | SETTING_REQUIRED, 0, 1,
             NULL, "Probability that a frame is corrupted"), .what = "a probability greater than 0 and below 1"},
    {SET_FIELD("start", SETTING_TIME, struct link_errors_conf, span.start_ps, 0, NULL, "When the errors begin")},
    {.name = "end", .kind = SETTING_CUSTOM, .offset = offsetof(struct link_errors_conf, span.end_ps),
     .flags = SETTING_ALWAYS, .help = "When they end (absent: never)", .parse = fault_parse_end,
     .dump = fault_dump_end},
    {SET_CHECK(fault_check_end)},
    {FAULT_DIRECTION(struct link_errors_conf, one_way, "only frames from between[0] to between[1]")},
    {0},
};

static const struct setting_group link_errors_group = {
    .path = "faults.link_errors", .size = sizeof(struct link_errors_conf), .per_entry = true,
    .fields = link_errors_fields,
};

/* Whether link_errors fault f, resolved to nodes a, b, corrupts the frames port p receives from its peer. */
static bool errors_reach(const struct graph *g, const struct link_errors_conf *f, uint32_t a, uint32_t b, uint32_t pid)
{
    uint32_t from = g->ports[g->ports[pid].peer].node, to = g->ports[pid].node;
    return (from == a && to == b) || (!f->one_way && from == b && to == a);
}

/*
 * Sets the loss in force at every port of the links between the nodes of link_errors fault i: the link's own
 * loss_rate and each link_errors fault in force there, as independent causes: p = 1 - (1 - base) x prod(1 - r).
 * Recomputed from the faults rather than multiplied and divided, so that no rounding accumulates.
 */
static void errors_update(struct net *n, int i)
{
    const struct scenario *scn = n->scn;
    const struct graph *g = n->g;
    uint32_t a = n->fault_ends[2 * i], b = n->fault_ends[2 * i + 1];
    for (int e = 0; e < 2; e++) {
        const struct g_node *gn = &g->nodes[e ? b : a];
        for (uint32_t pid = gn->first_port; pid < gn->first_port + gn->n_ports; pid++) {
            if (g->ports[g->ports[pid].peer].node != (e ? a : b))
                continue;
            struct port_loss *pl = &n->loss[pid];
            double keep = 1 - pl->base;
            /* lerr_on marks link_errors faults alone */
            for (int j = 0; j < scn->n_faults; j++) {
                const struct link_errors_conf *fj =
                    n->lerr_on[j] ? FAULT_CONF(&scn->faults[j], struct link_errors_conf) : NULL;
                if (fj && errors_reach(g, fj, n->fault_ends[2 * j], n->fault_ends[2 * j + 1], pid))
                    keep *= 1 - fj->error_rate;
            }
            pl->p = 1 - keep;
        }
    }
}

static void errors_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    n->lerr_on[arg] = 1;
    errors_update(n, (int)arg);
}

static void errors_end(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    n->lerr_on[arg] = 0;
    errors_update(n, (int)arg);
}


static int link_errors_resolve(struct net *n, int i, char *err, size_t errlen)
{
    return fault_link_ends(n, i, FAULT_CONF(&n->scn->faults[i], struct link_errors_conf)->between, err, errlen);
}

static void link_errors_schedule(struct net *n, int i)
{
    const struct fault_span *sp = &FAULT_CONF(&n->scn->faults[i], struct link_errors_conf)->span;
    if (!n->lerr_on)
        n->lerr_on = mem_xcalloc((size_t)n->scn->n_faults, sizeof *n->lerr_on, "setting up faults");
    sim_at(net_sim(n), sp->start_ps, errors_begin, n, (uint64_t)i);
    if (sp->end_ps >= 0)
        sim_at(net_sim(n), sp->end_ps, errors_end, n, (uint64_t)i);
}

static const struct fault_ops link_errors_ops = {
    .resolve = link_errors_resolve,
    .schedule = link_errors_schedule,
    .corrupts = true,
};

MODULE_REGISTER(fault_kind, "link_errors", &link_errors_ops, &link_errors_group);
