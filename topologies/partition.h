/*
 * partition — cuts a network into partitions of nodes, for an engine that would run each on a core of its
 * own (docs/performance.md, "Sizing a partitioned engine"), and says what the cut costs.
 *
 * The cut follows the network's own locality, so that the frames that cross it are few:
 *   - a dragonfly is cut by groups (every router and host of a group together);
 *   - a tiered network (fat-tree, leaf-spine, the HPCC paper's 3-tier fabric) by the components that remain
 *     when its top tier (the switches farthest from any host) is taken away: a fat-tree's pods, a
 *     leaf-spine's leaves with their hosts; each top-tier switch is a unit of its own;
 *   - anything else by its connected components (one unit for a connected network).
 * The units are then dealt to the partitions by load, largest first to the least loaded (LPT; ties to the
 * lower unit and partition), so the plan is a pure function of the graph and the loads.  When whole units leave
 * the heaviest partition more than PARTITION_SPLIT_TOL above an even share (the HPCC paper's fabric: five pods
 * on two partitions), its heaviest tiered unit is split one tier lower (a pod into its ToRs with their hosts and
 * its aggregation switches) and pieces of it move to the lightest partition (partition.c, rebalance); a
 * dragonfly's groups are not split (their local links are short).  It splits one tier only and moves pieces to
 * the lightest partition only, which evens a few odd pods on a few partitions; a handful of huge pods on many
 * partitions stays uneven (7 pods of 64 ToRs on 64 partitions leave 57 partitions nearly empty).  A host is always in its
 * switch's unit: the partitioned engine (sim/parallel.h) relies on it, because a host's events read its
 * switch's ports (UGAL's choice of path, a faulty NIC's check of the watchdog), so a plan that cut a host
 * link would be a bug (it aborts).  Hosts tied by the traffic (partition_plan_tied) bring their units together.
 */
#ifndef TOPOLOGIES_PARTITION_H
#define TOPOLOGIES_PARTITION_H

#include <stdint.h>

#include "sim/graph.h"

#define PARTITION_MAX 64
#define PARTITION_SPLIT_TOL 0.02 /* above an even share: the plan splits a unit (partition.c, rebalance) */

struct partition_plan {
    int n_parts;
    uint32_t *part;           /* node -> its partition */
    uint32_t n_units;         /* the indivisible groups of nodes the cut was made from */
    double load[PARTITION_MAX];
    double total;
    double max_share;         /* the largest partition's share of the load: 1 / max_share bounds the speed-up */
    double cut_share;         /* of the frames sent (port_tx), those on links between partitions */
    uint32_t cut_links;       /* links between partitions */
    int64_t lookahead_ps;     /* the smallest delay of a link between partitions (INT64_MAX without one) */
};

/*
 * Plans n_parts partitions (1..PARTITION_MAX) of g.  port_tx, per global port, is the frames it sent (a run's
 * counters), from which a node's load is the frames it sent and received; NULL counts a node's ports (a
 * switch handles what each of its ports carries) and leaves cut_share 0.  Returns 0, or -1 when n_parts is out of range or memory runs out.
 */
int partition_plan(const struct graph *g, const uint64_t *port_tx, int n_parts, struct partition_plan *p);
/*
 * The same, with n_ties pairs of hosts (host indices) that must share a partition: the ends of a trigger
 * (models/trigger.h), whose activation at one host starts a flow at another at that very instant, which no
 * lookahead allows across partitions.  The units of tied hosts are merged into one, which is never split.
 */
int partition_plan_tied(const struct graph *g, const uint64_t *port_tx, int n_parts, const uint32_t (*ties)[2],
                        uint32_t n_ties, struct partition_plan *p);
void partition_free(struct partition_plan *p);

#endif
