/* star — hosts around one switch (star.c). */
#ifndef TOPOLOGIES_STAR_H
#define TOPOLOGIES_STAR_H

#include "sim/scenario.h"

struct topo_star {
    int hosts;
    struct scn_link link;
};

#endif
