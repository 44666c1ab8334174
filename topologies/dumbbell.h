/* dumbbell — two switches joined by one bottleneck link (dumbbell.c). */
#ifndef TOPOLOGIES_DUMBBELL_H
#define TOPOLOGIES_DUMBBELL_H

#include "sim/scenario.h"

struct topo_dumbbell {
    int left, right;
    struct scn_link link, bottleneck;
};

#endif
