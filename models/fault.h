/*
 * fault — the scenario's scheduled faults that act on the network.
 *
 * link_down {between: [a, b], at, until?}: at `at` every link between nodes a
 * and b fails in both directions (parallel links fail together: the two names
 * cannot tell them apart); at `until`, if given, they come back.  What a
 * failure does to the frames and the PFC state on the link is in port.c; the
 * routing tables are recomputed around the failed links at the failure and
 * again at the recovery (MODEL.md, "Topologies and routing"), so flows recover
 * through their own loss recovery (NACK / RTO, go-back-N) on other paths.
 * Flows pinned through a failed link keep losing their frames until it comes
 * back.  Overlapping faults on one link keep it down until the last one ends.
 *
 * pause_storm and slow_receiver are not implemented yet: faults_setup()
 * rejects them (exit status 2) rather than run a scenario without them.
 */
#ifndef MODELS_FAULT_H
#define MODELS_FAULT_H

#include <stddef.h>

#include "models/net.h"

/*
 * Resolves the node names of the scenario's link_down faults on n's graph and
 * schedules their events.  Returns 0, or SCN_EUSAGE with one line
 * "FILE: faults.N...: ..." in err when a name is not a node, the two nodes are
 * not linked, or the fault is of a type not implemented yet (nothing is
 * scheduled then).
 */
int faults_setup(struct net *n, char *err, size_t errlen);

#endif
