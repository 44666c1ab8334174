/* rail — a rail-optimized two-tier fabric of GPU servers, one NIC per GPU (rail.c). */
#ifndef TOPOLOGIES_RAIL_H
#define TOPOLOGIES_RAIL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "topologies/server.h"

struct topo_rail {
    int servers, gpus_per_server, leaves_per_rail, spines;
    struct scn_link link; /* the fallback of a class without a rate (set by tests; the loader fills both) */
    struct scn_link host_link, fabric_link;
    /* Storage servers stor0.. on storage leaves stor.leaf0.. of their own, each joined to every spine (0: none). */
    int storage_servers, storage_leaves;
    struct scn_link storage_link;
    /* What is inside each server (server.gpus 0: nothing, each GPU a host with a NIC of its own). */
    struct server_desc server;
    /* Every node's name, for the loader's look-ups (rail.c: filled by parse, NULL in a test's struct):
     * node i's is names + name_at[i]. */
    char *names;
    uint32_t *name_at;
};

/* Writes node i's name ("n3.g5", "rail5.leaf0", "spine2", "n3.nic5", "stor.leaf0", "stor2") of shape t into buf; false when t has no node
 * i. */
bool topo_rail_name(const struct topo_rail *t, long long i, char *buf, size_t len);
/* The node called name in shape t, or -1. */
int topo_rail_index(const struct topo_rail *t, const char *name);

#endif
