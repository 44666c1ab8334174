/*
 * sm_layers — the subnet manager's tables as its engines fill them, and the virtual-lane layers that free them of
 * credit loops (sm_layers.c; the engines: sm.h).
 */
#ifndef TOPOLOGIES_SM_LAYERS_H
#define TOPOLOGIES_SM_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/graph.h"

/* What an engine computed besides the tables: for a layered engine, the layer of each (source column,
 * destination column) of the routing table (graph.h), which is the same both ways, and how many it used. */
struct sm_layers {
    const char *engine; /* the engine that routed (sm_route), or NULL */
    uint8_t *layer;    /* [src_col * n_cols + dst_col], or NULL: every path on layer 0 */
    uint32_t n_cols;
    int n_layers;
};

void sm_layers_free(struct sm_layers *layers);

/* One port per (node, column): n_nodes x n_cols local port indices, UINT16_MAX where none, and how many
 * (node, column) entries already go out of each global port (a port's load: minhop's balance). */
struct sm_tables {
    uint32_t n_nodes, n_cols;
    uint16_t *port;
    uint32_t *load;  /* by global port id */
    uint32_t *root;  /* column -> its root node: its host, as sm_route has a column per host */
};

/* Assigns layers to t's paths, in at most max_layers: 0; 1 when they need more, with the pair that does ("the
 * paths between A and B") in err; -1 when out of memory, with err. */
int sm_assign_layers(const struct graph *g, const struct sm_tables *t, int max_layers, struct sm_layers *out,
                     const char *engine, char *err, size_t errlen);

#endif
