/* custom — the nodes and links a scenario lists (custom.c). */
#ifndef TOPOLOGIES_CUSTOM_H
#define TOPOLOGIES_CUSTOM_H

#include "sim/scenario.h"

struct topo_custom_node {
    char name[SCN_NAME_MAX];
    enum scn_node_kind kind;
};

struct topo_custom_link {
    int a, b; /* indices into nodes */
    struct scn_link link;
};

struct topo_custom {
    int n_nodes, n_links, n_hosts;
    struct topo_custom_node *nodes;
    struct topo_custom_link *links;
    int *host_node;   /* host index -> nodes[] index */
    int *node_sorted; /* node indices sorted by name, for the loader's look-ups */
};

#endif
