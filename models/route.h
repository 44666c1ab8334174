/*
 * route — where a switch sends a frame (routing tables, ECMP, dragonfly
 * Valiant detours), and the per-flow route choice of dragonfly Valiant and
 * UGAL routing.
 *
 * Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly
 * Topology", ISCA 2008, section 4:
 * - minimal: local-global-local; the routing tables already are (the global
 *   links' cost makes least cost mean fewest global links, topo.h).
 * - Valiant (after L. G. Valiant, "A scheme for fast parallel communication",
 *   SIAM J. Computing 1982): each flow draws an intermediate group I (not the
 *   source's nor the destination's) and a host of I from its own seeded stream
 *   (RNG_KIND_ROUTING, flow index); its data is routed minimally towards that
 *   host until the first router of group I, then minimally to the destination:
 *   at most l-g-l-g-l, 5 router-to-router hops.  The per-host tables serve both
 *   legs, so a switch does one table lookup per frame, as for minimal routing.
 * - UGAL (universal globally-adaptive load-balanced, UGAL-L: local queues only),
 *   decided once per flow when it starts: Valiant when
 *   q_min * H_min > q_val * H_val, else minimal, where q is the bytes queued
 *   (all priorities) at the source router's egress port that the flow's first
 *   frame would take on each path, and H the number of links of that path from
 *   host to host.  Per flow rather than per packet, because RoCE's go-back-N
 *   treats the reordering of per-packet adaptivity as loss.
 * ACKs, NACKs and CNPs always route minimally.
 */
#ifndef MODELS_ROUTE_H
#define MODELS_ROUTE_H

#include "models/net.h"
#include "topologies/routing.h"

#define ROUTE_NO_PORT UINT32_MAX

/*
 * The local egress port at switch `node` (of dragonfly group `group`, ECMP
 * salt `salt`) for a frame with ECMP hash `hash` to host dst.  While via is a
 * host (not NET_NO_VIA) and *reached is 0, the frame heads for via's group
 * via_group, and *reached is set at the first switch of that group (or when
 * failures leave via unreachable).  Returns ROUTE_NO_PORT when dst is unreachable
 * (only after a link failure).  O(1): one table lookup.  Always inline: the switch's hot path calls it with via
 * NET_NO_VIA, which folds its detour away (docs/performance.md).
 */
static inline __attribute__((always_inline)) uint32_t route_egress(const struct graph *g, uint32_t node,
                                                                   int32_t group, uint32_t salt, uint32_t hash,
                                                                   uint32_t dst, uint32_t via, int32_t via_group,
                                                                   uint8_t *reached)
{
    uint32_t target = dst;
    if (via != NET_NO_VIA && !*reached) {
        if (group == via_group)
            *reached = 1;
        else
            target = via;
    }
    const uint16_t *ports;
    uint32_t cnt = graph_nexthops(g, node, target, &ports);
    if (cnt == 0 && target != dst) {
        *reached = 1; /* the detour is cut off: go straight for the destination */
        cnt = graph_nexthops(g, node, dst, &ports);
    }
    if (cnt == 0)
        return ROUTE_NO_PORT;
    return cnt == 1 ? ports[0] : ports[routing_ecmp_pick(hash, salt, cnt)];
}

/*
 * The port of host node `node` a frame towards host `to` leaves by: the host's one port, or at a host with several
 * ports (a GPU's PCIe and NVLink, a NIC on two leaves) one of the least-cost ones, spread by the flow's hash as a
 * switch spreads them.  Chosen once per flow and direction (flow.sport, flow.rport), so that a flow's frames stay
 * in order.  UINT32_MAX when `to` cannot be reached.
 */
uint32_t route_host_egress(const struct graph *g, uint32_t node, uint32_t to, uint32_t hash);

/*
 * The nodes a frame from host src to host dst crosses under the current
 * tables, as the switches would choose them for ECMP hash `hash` and Valiant
 * intermediate via (of group via_group; NET_NO_VIA for a minimal route).
 * Writes at most max node ids into nodes (when not NULL) and the first
 * switch's local egress port into *first_port (when not NULL).  Returns the
 * number of links (nodes - 1), or -1 when dst is unreachable or the path needs
 * more than max - 1 links.
 */
int route_path(const struct net *n, uint32_t src, uint32_t dst, uint32_t hash, uint32_t via, int32_t via_group,
               uint32_t *nodes, int max, uint32_t *first_port);

/*
 * The nodes flow f's data crosses now (its hash, its Valiant detour; pinned
 * flows: the pinned nodes), as route_path().  Returns the number of links, or -1.
 */
int route_flow_path(const struct net *n, const struct flow *f, uint32_t *nodes, int max);

/* Flow start event for flows that choose a route when they start (dragonfly Valiant/UGAL). */
void route_flow_start(struct sim *s, void *obj, uint64_t arg);
/* Whether flow f chooses its route at its start (then start it with route_flow_start). */
bool route_flow_needs_choice(const struct net *n, const struct flow *f);

#endif
