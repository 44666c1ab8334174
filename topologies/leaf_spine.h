/* leaf-spine — a two-tier Clos (leaf_spine.c). */
#ifndef TOPOLOGIES_LEAF_SPINE_H
#define TOPOLOGIES_LEAF_SPINE_H

#include "sim/scenario.h"

struct topo_leaf_spine {
    int leaves, spines, hosts_per_leaf;
    struct scn_link link; /* the fallback of a class without a rate (set by tests; the loader fills both) */
    struct scn_link host_link, fabric_link;
};

#endif
