/*
 * topo — builds the network graph of a scenario's topology (star, dumbbell,
 * leaf-spine, fat-tree, custom; dragonfly is not implemented yet), computes its
 * routing tables, and prints the result for `rocesim topo`.
 *
 * Layout of the generated graphs (node names as the interface contract gives them):
 * - Nodes: the hosts first, h0..h{n-1} (so a host's node id is its host
 *   index), then the switches tier by tier (star: s0; dumbbell: s0, s1;
 *   leaf-spine: leaf*, spine*; fat-tree: tor*, agg*, core*).  Custom
 *   topologies keep the order of topology.nodes.
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
 * Prints g as JSON: {"nodes": [{"name", "kind", "host" | "switch", "ports"}],
 * "links": [{"a", "b", "a_port", "b_port", "rate", "delay"[, "length"][, "down"]}]}
 * with quantities in the scenario's unit strings.  Port numbers are local to
 * their node and appear once the graph is finished.
 */
void topo_write_json(FILE *f, const struct graph *g);

#endif
