/*
 * fault_link_slow — the kind "link_slow": the links between two nodes run below their rate for the whole run, in
 * both directions or one.  A 400G port made of four 100G lanes (IEEE 802.3 clause 8 lanes, 400GBASE-DR4) that
 * lost three of them, or a port that auto-negotiated down, still forwards, at the rate of what is left: routing
 * keeps sending its share of the traffic there, and only the transport's own path choice can steer around it.
 * The UEC reference simulator's `-failed N` runs such links at a quarter of their rate (htsim_uec,
 * fat_tree_topology.cpp, _failed_link_ratio = 0.25).  The rules are in fault.h.
 */
#include "models/fault.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct link_slow_conf {
    struct fault_span span; /* unused (zero): in force for the whole run */
    char between[2][SCN_NAME_MAX];
    int64_t rate_bps;
    bool one_way;           /* only from between[0] to between[1] */
};

static const struct setting link_slow_fields[] = {
    {.name = "between", .kind = SETTING_CUSTOM, .offset = offsetof(struct link_slow_conf, between),
     .flags = SETTING_REQUIRED, .what = "two node names like [\"leaf0\", \"spine1\"]",
     .help = "The link's two ends: two different, linked nodes", .parse = scn_parse_link_ends,
     .dump = scn_dump_link_ends},
    {SET_FIELD("rate", SETTING_RATE, struct link_slow_conf, rate_bps, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "The rate the links run at, below their own"), .what = "a rate like \"25Gbps\""},
    {FAULT_DIRECTION(struct link_slow_conf, one_way, "only from between[0] to between[1]")},
    {0},
};

static const struct setting_group link_slow_group = {
    .path = "faults.link_slow", .size = sizeof(struct link_slow_conf), .per_entry = true, .fields = link_slow_fields,
};

/* Whether link_slow fault c, on nodes a and b, slows the egress port pid (of a or b towards the other). */
static bool slows(const struct graph *g, const struct link_slow_conf *c, uint32_t a, uint32_t b, uint32_t pid)
{
    uint32_t from = g->ports[pid].node, to = g->ports[g->ports[pid].peer].node;
    return (from == a && to == b) || (!c->one_way && from == b && to == a);
}

static int link_slow_resolve(struct net *n, int i, char *err, size_t errlen)
{
    return fault_link_ends(n, i, FAULT_CONF(&n->scn->faults[i], struct link_slow_conf)->between, err, errlen);
}

/* Sets the rate of the egress ports fault i slows; refuses a rate not below a link's, and a port an earlier
 * link_slow fault slowed already (which of two rates would be meant is not for rocesim to guess). */
static int link_slow_shape(struct net *n, int i, char *err, size_t errlen)
{
    int rc = link_slow_resolve(n, i, err, errlen);
    if (rc)
        return rc;
    const struct scenario *scn = n->scn;
    struct graph *g = n->g;
    const struct link_slow_conf *c = FAULT_CONF(&scn->faults[i], struct link_slow_conf);
    uint32_t a = n->fault_ends[2 * i], b = n->fault_ends[2 * i + 1];
    char r1[32], r2[32];
    for (int e = 0; e < 2; e++) {
        const struct g_node *gn = &g->nodes[e ? b : a];
        for (uint32_t pid = gn->first_port; pid < gn->first_port + gn->n_ports; pid++) {
            if (g->ports[g->ports[pid].peer].node != (e ? a : b) || !slows(g, c, a, b, pid))
                continue;
            struct g_port *gp = &g->ports[pid];
            int64_t own = g->links[gp->link].spec.rate_bps;
            if (gp->rate_bps != own) {
                snprintf(err, errlen, "%s: faults.%d.between: expected a link no other link_slow fault slows, got "
                         "\"%s\" and \"%s\" (slowed to %s already)", scn->file, i, c->between[0], c->between[1],
                         units_fmt_rate(gp->rate_bps, r1, sizeof r1));
                return SCN_EUSAGE;
            }
            if (c->rate_bps >= own) {
                snprintf(err, errlen, "%s: faults.%d.rate: expected a rate below the link's (%s), got \"%s\"",
                         scn->file, i, units_fmt_rate(own, r1, sizeof r1), units_fmt_rate(c->rate_bps, r2, sizeof r2));
                return SCN_EUSAGE;
            }
            gp->rate_bps = c->rate_bps;
        }
    }
    return 0;
}

static const struct fault_ops link_slow_ops = {
    .resolve = link_slow_resolve,
    .shape = link_slow_shape,
};

MODULE_REGISTER(fault_kind, "link_slow", &link_slow_ops, &link_slow_group);
