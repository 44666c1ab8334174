/*
 * topo — builds the network graph of a scenario's topology (star, dumbbell,
 * leaf-spine, fat-tree, dragonfly, custom), computes its routing tables, and
 * prints the result for `rocesim topo`.
 *
 * Layout of the generated graphs (node names as the interface contract gives them):
 * - Nodes: the hosts first, h0..h{n-1} (so a host's node id is its host
 *   index), then the switches tier by tier (star: s0; dumbbell: s0, s1;
 *   leaf-spine: leaf*, spine*; fat-tree: tor*, agg*, core*; dragonfly:
 *   g0r0, g0r1, ..., g1r0, ...).  Custom topologies keep the order of
 *   topology.nodes.
 * - Links, hence port numbers (a node's ports follow the order its links were
 *   added): host links first, in host order, then the fabric tier by tier
 *   from the bottom, ordered by lower switch then upper switch.  So a ToR's
 *   ports are its hosts then the aggs of its pod; an agg's, the ToRs of its
 *   pod then its cores; a core's, one agg per pod in pod order; a leaf's, its
 *   hosts then every spine.  The dumbbell's bottleneck is the last port of s0
 *   and of s1.  Custom topologies keep the order of topology.links.
 * - Fat-tree by k (Al-Fares et al.): k pods of k/2 ToRs and k/2 aggs,
 *   (k/2)^2 cores, tor{i} / agg{i} numbered pod-major, host h{n} under
 *   tor{n / (k/2)}, agg j of every pod linked to cores j*(k/2) .. j*(k/2)+k/2-1.
 *   Generalized shape (k == 0): the same with pods, tors_per_pod,
 *   aggs_per_pod, hosts_per_tor, cores; agg j of every pod takes the block of
 *   cores j*C/A .. (j+1)*C/A-1 when the cores divide evenly among the A aggs
 *   of a pod, else core c goes to agg (c mod A) of every pod.
 * - Fat-tree oversubscription r > 1 is deliberately simple: the topology keeps
 *   its shape (same host links, same number of ToR uplinks) and every
 *   ToR-to-agg link runs at fabric rate / r, rounded down to whole bit/s.  The
 *   agg-to-core links keep the fabric rate.
 * - Leaf-spine and fat-tree use host_link and fabric_link, each falling back
 *   to `link` when its rate is 0.
 * - Dragonfly: g groups of a routers g{G}r{R}; host h{n} hangs off router
 *   g{n / (a*p)}r{(n / p) mod a} (group-major, then router-major); every node
 *   carries its group in g_node.group.  Links: the host links, then each
 *   group's local links (r1 < r2, all pairs), then the global links.  So a
 *   router's ports are its p hosts, the a-1 other routers of its group in
 *   order, then its h global links in the order they were added.
 *   Global ports: group G has a*h of them, j = 0..a*h-1, port j on router
 *   j / h.  Port j links to group (G + o_j) mod g, where the offsets o_j
 *   come in m = floor(a*h / (g-1)) full rounds o = 1..g-1 (each round joins
 *   every pair of groups once), followed by the r = a*h mod (g-1) leftover
 *   ports at offsets 1..r/2 and g-r/2..g-1 (and, r odd, g/2 for an even g or
 *   one edge of a near-perfect matching for an odd g: see df_offsets()).
 *   The k-th port of G at offset o is linked to the k-th port of G + o at
 *   offset g - o.  Hence with g = a*h + 1 (the default) every pair of groups
 *   has exactly one global link, router R of G reaching groups G + R*h + 1 ..
 *   G + R*h + h (the "consecutive" arrangement); with fewer groups every pair
 *   has floor or ceil(a*h / (g-1)) links and each group uses all a*h ports,
 *   except that when g and a*h mod (g-1) are both odd (g*a*h ports, an odd
 *   number, cannot all pair up) group (g+1)/2 leaves its last port unused.
 *   Global links are added from the lower-numbered group, in port order.
 *   They cost n_nodes + 1 in routing (more than any path of local hops), so
 *   the least-cost tables are the dragonfly's minimal routes: one global link
 *   (local-global-local, at most 3 router-to-router hops), never a path with
 *   two global links even when it has as few hops; only when link failures
 *   leave no working global link between two groups do routes take two.
 */
#ifndef TOPOLOGIES_TOPO_H
#define TOPOLOGIES_TOPO_H

#include <stddef.h>
#include <stdio.h>

#include "sim/graph.h"
#include "sim/scenario.h"

/* Routing tables larger than this are refused with a usage error instead of exhausting memory. */
#define TOPO_MAX_TABLE_BYTES (4ULL << 30)

/*
 * Builds s->topo into g (which need not be initialized: topo_build starts it
 * afresh) and computes its routes.  Returns SCN_OK, with g to be released by
 * graph_free(); or SCN_EUSAGE with one line "FILE: topology...: ..." in err
 * (an unimplemented type, a bad shape, a custom host without exactly one link,
 * a pair of hosts that cannot reach each other, or tables too large to hold),
 * and g left empty.
 */
int topo_build(const struct scenario *s, struct graph *g, char *err, size_t errlen);

/* Prints g as a Graphviz undirected graph: hosts as ellipses, switches as boxes, links labelled "rate, delay". */
void topo_write_dot(FILE *f, const struct graph *g);

/*
 * Prints g as JSON: {"nodes": [{"name", "kind", "host" | "switch"[, "group"], "ports"}],
 * "links": [{"a", "b", "a_port", "b_port", "rate", "delay"[, "length"][, "down"]}]}
 * with quantities in the scenario's unit strings ("group": a dragonfly
 * node's group).  Port numbers are local to their node and appear once the
 * graph is finished.
 */
void topo_write_json(FILE *f, const struct graph *g);

#endif
