/* dragonfly — groups of routers joined all-to-all by global links (dragonfly.c). */
#ifndef TOPOLOGIES_DRAGONFLY_H
#define TOPOLOGIES_DRAGONFLY_H

#include "sim/scenario.h"

/* How a flow is routed: minimal (one global link), Valiant (through a random intermediate group) or UGAL-L
 * (the source router chooses between the two by queue x hops); models/route.c does the choosing. */
enum df_routing { DF_ROUTE_MINIMAL, DF_ROUTE_VALIANT, DF_ROUTE_UGAL };

struct topo_dragonfly {
    int a, p, h, g; /* routers per group, hosts per router, global links per router, groups */
    struct scn_link link; /* the fallback of a class without a rate (set by tests; the loader fills all three) */
    struct scn_link host_link, local_link, global_link;
    enum df_routing routing;
};

/* s's dragonfly settings, or NULL when s's topology is no dragonfly. */
const struct topo_dragonfly *topo_dragonfly_of(const struct scenario *s);

#endif
