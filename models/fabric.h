/*
 * fabric — what a link layer puts around a frame, as a table chosen by the scenario's top-level "fabric":
 * "roce" (RoCE v2 over Ethernet, the default: models/fabric.c) or "infiniband" (models/fabric_ib.c).  The
 * network copies the sizes into net.fr when it is built, so that a frame reads them from a line it already holds.
 *
 * A fabric may name the link-level flow control it requires (InfiniBand: credits, models/credit.c); a scenario
 * that chooses another is refused, as is a fabric whose MTU rule the hosts break: one fabric runs the whole
 * network (a mixed fabric is refused, not bridged).
 */
#ifndef MODELS_FABRIC_H
#define MODELS_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/net.h"
#include "sim/module.h"

struct scenario;

struct fabric_ops {
    const char *name;
    struct framing fr;
    /* The link-level flow control it requires (a module of kind "lfc"), or NULL: switch.flow_control chooses. */
    const char *lfc;
    /* The payload sizes (host.mtu) its links carry, 0-terminated, or NULL: any the NIC allows. */
    const uint16_t *mtus;
    /* The settings only it reads, as dotted paths of objects or fields ("ib", "switch.credit"), NULL-terminated:
     * refused under the other fabrics (in a profile's switch object too) and left out of their dumps.  NULL:
     * none. */
    const char *const *own;
    /* Flows are classed by service level (traffic.N.sl, mapped to a VL by the fabric), not by priority: the
     * priority settings are refused.  Else traffic.N.sl is. */
    bool service_levels;
    /* With service levels: the queue (VL) of service level sl in scenario s.  Required then. */
    int (*vl_of)(const struct scenario *s, int sl);
    /* Its rules over the network built (n's settings resolved): 0, or SCN_EUSAGE with "FILE: PATH: ..." in err.
     * NULL: none. */
    int (*check)(const struct net *n, char *err, size_t errlen);
    /* How its switches mark congestion at an egress: fills port settings pc from switch settings c (InfiniBand:
     * FECN, models/fecn.c).  NULL: switch.ecn's RED. */
    void (*marking)(const struct scn_switch *c, struct port_cfg *pc);
    /* Its forwarding tables over graph g of scenario s, routing_compute()'s replaced (InfiniBand: the subnet
     * manager's engine, with its layers), when the network is built, after links change and for rocesim topo: 0,
     * or SCN_EUSAGE with "FILE: PATH: ..." in err.  NULL: routing_compute()'s ECMP. */
    int (*route)(const struct scenario *s, struct graph *g, struct sm_layers *layers, char *err, size_t errlen);
};

/* The top-level "fabric", by index of its module: 0 is "roce", the default. */
struct fabric_params {
    int fabric;
};

extern const struct module_kind fabric_kind;

/* The service levels a fabric with them has (traffic.N.sl: 0-15, InfiniBand's). */
#define FABRIC_NSL 16

/* The fabric scenario s runs. */
const struct fabric_ops *fabric_of(const struct scenario *s);

/* Its frames' sizes as the run counts them: the fabric's (fabric_ops.fr), with RoCE's wire overhead from
 * ethernet.wire_overhead. */
struct framing fabric_framing(const struct scenario *s);

/* The queue (priority, or InfiniBand's VL) traffic entry t of scenario s sends its data on, when it names it or
 * host.priority gives it (a host profile may give a sender another). */
int fabric_traffic_prio(const struct scenario *s, const struct scn_traffic *t);

/* 0, or SCN_EUSAGE with "FILE: PATH: expected ..." in err when n (its settings resolved) breaks a rule of its
 * fabric: a host sends a payload the fabric does not carry (host.mtu), or the fabric's own check fails. */
int fabric_check(const struct net *n, char *err, size_t errlen);

#endif
