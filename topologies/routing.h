/*
 * routing — shortest-path routing tables over the network graph, and the
 * per-flow ECMP choice among their equal-cost next hops.
 *
 * Paths are shortest in the sum of link costs (g_link.cost; 1 everywhere but
 * a dragonfly's global links, so hop count elsewhere), and a host is never a
 * transit node: only switches (and the destination itself) forward.  Links
 * marked down are ignored, so calling routing_compute() again after a
 * link_down reroutes.
 */
#ifndef TOPOLOGIES_ROUTING_H
#define TOPOLOGIES_ROUTING_H

#include <stdint.h>

#include "sim/graph.h"
#include "sim/rng.h"

/*
 * Fills g->routes (replacing any previous tables) for a finished graph: for
 * every node n and host h, the local ports of n on a least-cost path to h
 * (one hop closer to h when every cost is 1), or UINT32_MAX when h is
 * unreachable from n or n is h's own node.
 * Memory is n_nodes * routing_columns() * 4 bytes for the table, 12 bytes per
 * host, plus the interned sets.
 * Returns 0, or -1 (g->routes left empty) when out of memory, when a node
 * has more than 65535 ports (they would not fit the uint16 port sets) or when
 * the distinct port sets take more than GRAPH_NH_MAX words (sim/graph.h).
 */
int routing_compute(struct graph *g);

/*
 * Replaces g's tables (routing_compute() filled them) by one port per (node, column): port[x * n_cols + c] is a
 * local port index of node x, or UINT16_MAX where x does not reach column c (a subnet manager's tables, sm.h).
 * The hosts' columns and their last hops stay.  Returns 0, or -1 when out of memory (the tables unchanged).
 */
int routing_install(struct graph *g, const uint16_t *port);

/* Number of table columns routing_compute() will use: the distinct attachment switches of the hosts. */
uint32_t routing_columns(const struct graph *g);

/*
 * Picks one of n equal-cost next hops for a flow: the flow's hash mixed with
 * the switch's salt (so that consecutive switches do not make correlated
 * choices, which would polarize traffic onto a few paths), mapped to [0, n)
 * by multiply-shift, which is uniform for a uniform 32-bit input and needs no
 * division.  Returns a value in [0, n), or 0 when n is 0.
 */
static inline uint32_t routing_ecmp_pick(uint32_t flow_hash, uint32_t salt, uint32_t n)
{
    uint32_t x = rng_mix32(flow_hash ^ (salt * 0x9e3779b9u));
    return (uint32_t)(((uint64_t)x * n) >> 32);
}

#endif
