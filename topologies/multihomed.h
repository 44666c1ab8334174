/* multihomed — fabrics where each NIC has several ports on leaves of its own: dual-ToR and multi-plane
 * (multihomed.c). */
#ifndef TOPOLOGIES_MULTIHOMED_H
#define TOPOLOGIES_MULTIHOMED_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "topologies/server.h"

/* The most planes of a multi-plane fabric (a NIC's ports: flow.sport is a byte, and a server's NIC one more). */
#define MH_MAX_PLANES 16

struct topo_multihomed {
    bool multi; /* multi-plane (else dual-ToR) */
    int servers;
    int groups; /* dual-ToR: racks (ToR pairs); multi-plane: leaves per plane */
    int spines; /* dual-ToR: spines in all; multi-plane: spines per plane */
    int planes; /* multi-plane: planes, each NIC with one port per plane; dual-ToR: 1 */
    struct scn_link link; /* the fallback of a class without a rate (set by tests; the loader fills both) */
    struct scn_link host_link, fabric_link;
    struct server_desc server; /* gpus 0: each host a NIC (h0..) */
    /* Every node's name (multihomed.c: filled by parse, NULL in a test's struct): node i's is names + name_at[i]. */
    char *names;
    uint32_t *name_at;
};

/* A NIC's ports: one per plane, or two ToRs. */
static inline int mh_ports(const struct topo_multihomed *t) { return t->multi ? t->planes : 2; }

/* Writes node i's name ("h3", "n3.g5", "rack1.tor0", "spine2", "plane1.leaf0", "plane1.spine2", "n3.nic5") of shape
 * t into buf; false when t has no node i. */
bool topo_mh_name(const struct topo_multihomed *t, long long i, char *buf, size_t len);
/* The node called name in shape t, or -1. */
int topo_mh_index(const struct topo_multihomed *t, const char *name);

#endif
