/* fat-tree — the three-tier Clos of Al-Fares et al., by k or by a generalized shape (fat_tree.c). */
#ifndef TOPOLOGIES_FAT_TREE_H
#define TOPOLOGIES_FAT_TREE_H

#include "sim/scenario.h"

struct topo_fat_tree {
    int k;                   /* 0: the generalized shape below was given instead */
    double oversubscription; /* >= 1; 1 means none */
    /* given by k, the loader fills these in: pods = k, tors_per_pod = aggs_per_pod = hosts_per_tor = k/2,
     * cores = (k/2)^2 */
    int pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores;
    struct scn_link link; /* the fallback of a class without a rate (set by tests; the loader fills both) */
    struct scn_link host_link, fabric_link;
};

#endif
