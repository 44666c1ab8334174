/*
 * lb — how a switch chooses among the equal-cost egresses of a frame (switch.load_balance), as a table of hooks:
 * "ecmp" (a hash of the flow, its frames on one path: the default, called inline), "spray" (each packet by
 * itself), "flowlet" (a flow's packets stay on a path until it pauses longer than a gap) and "adaptive" (the
 * least-loaded egress by queued bytes, per packet or per flowlet, as adaptive-routing ASICs choose).  Only data
 * frames of flows that neither pin their path nor detour (dragonfly's Valiant) are balanced; ACKs, NACKs and
 * CNPs keep ECMP.  Every choice reads the switch's own state and the frame: the same on any number of threads.
 *
 * A balancer is a module of kind lb_kind (sim/module.h): MODULE_REGISTER(lb_kind, "NAME", &NAME_lb_ops,
 * &its_settings_group).  switch.load_balance names it per switch (a switch profile may choose another).
 */
#ifndef MODELS_LB_H
#define MODELS_LB_H

#include <stdint.h>

#include "models/net.h"
#include "sim/module.h"
#include "sim/rng.h"

struct lb_ops {
    const char *name;
    /* The index into ports[0..cnt) (cnt >= 2) of data frame k's egress at switch w. */
    uint32_t (*pick)(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt);
    /* Optional: switch w's state (w->lb_state), at set-up; and its release. */
    void (*init)(struct net *n, struct sw *w);
    void (*free)(struct sw *w);
    /* Optional: whether, under switch settings c, it spreads a flow's packets one by one (so that they arrive out
     * of order at every turn, not only across a flow's pauses): what rocesim doctor asks of go-back-N. */
    bool (*per_packet)(const struct scn_switch *c);
};

#define LB_ECMP 0 /* the kind's default, which switch.c calls without the table */
#define LB_MAX 16

extern const struct module_kind lb_kind;
extern const struct lb_ops *lb_registry[LB_MAX];

/* Whether switch w's balancer spreads a flow's packets one by one (lb_ops.per_packet). */
bool lb_per_packet(const struct sw *w);

/* The local egress of data frame k at switch w under its balancer (not ECMP), or ROUTE_NO_PORT when k's
 * destination cannot be reached. */
uint32_t lb_egress(struct net *n, struct sw *w, const struct pkt *k);

/* The least-loaded of ports[0..cnt) at switch w by the bytes queued at priority prio (the queue the frame would
 * join), ties to the first from index `from` on (the flow's hash, so that ties spread). */
uint32_t lb_least_loaded(const struct sw *w, const uint16_t *ports, uint32_t cnt, uint32_t from, int prio);

/* switch.flowlet.gap of switch settings c, in ps: the idle time after which a flow's next packet may take
 * another path (flowlet and adaptive per flowlet). */
int64_t lb_flowlet_gap(const struct scn_switch *c);

/* The flowlet table (lb_flowlet.c) for the adaptive balancer: switch w's, allocated at set-up (freed with free()),
 * and the egress index of frame k, the least-loaded one for the first packet of a flowlet. */
void lb_flowlet_table(struct sw *w);
uint32_t lb_flowlet_adaptive(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt);

#endif
