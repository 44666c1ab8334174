/*
 * lb — the kind of the load-balancing modules (lb.h), switch.load_balance, ECMP (the default) and the path a
 * balanced data frame takes.
 */
#include "models/lb.h"
#include "models/mech.h"
#include "models/nic.h"
#include "models/route.h"
#include "sim/settings.h"
#include "topologies/routing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct lb_ops *lb_registry[LB_MAX];

static const char *lb_missing(const struct module *m)
{
    const struct lb_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (lb_ops.name)";
    if (!o->pick)
        return "a pick hook";
    return module_count("lb") == LB_MAX ? "room: LB_MAX balancers are registered" : NULL;
}

static void lb_added(const struct module *m, int index)
{
    lb_registry[index] = m->ops;
    if (strcmp(m->name, "ecmp") == 0 && index != LB_ECMP) {
        fprintf(stderr, "rocesim: bug: ecmp is numbered %d, not LB_ECMP\n", index);
        abort();
    }
}

const struct module_kind lb_kind = {.name = "lb", .dflt = "ecmp", .missing = lb_missing, .added = lb_added};

struct lb_params {
    int load_balance; /* a module of kind "lb", by index */
};

static const struct setting lb_fields[] = {
    {SET_MODULE("load_balance", struct lb_params, load_balance, "lb", "ecmp",
                "How a switch spreads data frames over equal-cost egresses: \"ecmp\" (per flow), \"spray\" (per "
                "packet), \"flowlet\" or \"adaptive\" (least queued bytes)")},
    {0},
};

/* Flat, after switch.mtu: a switch's own choice, a profile may change it. */
static const struct setting_group lb_group = {
    .path = "switch/lb", .size = sizeof(struct lb_params), .after = "mtu", .fields = lb_fields,
};
SETTINGS_REGISTER("lb", &lb_group);

/* ECMP: the flow's hash, as route_egress picks (switch.c calls that directly; this table is for the kind). */
static uint32_t ecmp_pick(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt)
{
    return routing_ecmp_pick(k->hash, w->salt, cnt);
}

static const struct lb_ops ecmp_lb_ops = {.name = "ecmp", .pick = ecmp_pick};
MODULE_REGISTER(lb_kind, "ecmp", &ecmp_lb_ops);

/* See lb.h. */
uint32_t lb_egress(struct net *n, struct sw *w, const struct pkt *k)
{
    const uint16_t *ports;
    uint32_t cnt = graph_nexthops(n->g, w->node, k->dst_host, &ports);
    if (cnt == 0)
        return ROUTE_NO_PORT;
    return cnt == 1 ? ports[0] : ports[lb_registry[w->lb]->pick(n, w, k, ports, cnt)];
}

/* See lb.h. */
bool lb_per_packet(const struct sw *w)
{
    const struct lb_ops *o = lb_registry[w->lb];
    return o->per_packet && o->per_packet(w->cfg);
}

/* See lb.h. */
uint32_t lb_least_loaded(const struct sw *w, const uint16_t *ports, uint32_t cnt, uint32_t from, int prio)
{
    uint32_t best = from % cnt;
    int64_t best_q = INT64_MAX;
    for (uint32_t i = 0, j = best; i < cnt; i++, j = j + 1 == cnt ? 0 : j + 1) {
        int64_t q = port_queued_bytes(&w->ports[ports[j]], prio);
        if (q == 0)
            return j; /* nothing beats an empty queue */
        if (q < best_q) {
            best_q = q;
            best = j;
        }
    }
    return best;
}

/* Each switch's balancer (its settings', profiles applied) and its state; whether anything spreads a flow's
 * packets (a switch's balancer, or a NIC that varies their entropy, host.entropy). */
static void lb_init(struct net *n)
{
    for (uint32_t i = 0; i < n->g->n_hosts; i++)
        n->lb_any |= n->hosts[i].nic->entropy != 0;
    for (uint32_t i = 0; i < n->g->n_switches; i++) {
        struct sw *w = &n->sws[i];
        w->lb = (uint8_t)SETTINGS_OF(w->cfg, lb_group, struct lb_params)->load_balance;
        n->lb_any |= w->lb != LB_ECMP;
        if (lb_registry[w->lb]->init)
            lb_registry[w->lb]->init(n, w);
    }
}

static void lb_free(struct net *n)
{
    for (uint32_t i = 0; n->sws && i < n->g->n_switches; i++) {
        struct sw *w = &n->sws[i];
        if (lb_registry[w->lb]->free)
            lb_registry[w->lb]->free(w);
        w->lb_state = NULL;
    }
}

static const struct net_mech_ops lb_mech = {.name = "lb", .order = 26, .init = lb_init, .free = lb_free};
NET_MECH(lb_mech)
