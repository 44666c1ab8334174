/*
 * sm — routing as an InfiniBand subnet manager computes it: the routing engines OpenSM users choose with its
 * routing_engine option (minhop, updn, ftree, lash, dfsssp), as modules of kind sm_kind.
 *
 * A subnet manager programs each switch with a linear forwarding table: one egress port per destination, no
 * ECMP.  An engine here turns the shortest-path port sets of routing.h into such tables (routing_install), one
 * port per (node, destination host), and a layered engine (lash, dfsssp) also puts each pair of source and
 * destination hosts on a layer, a virtual lane, so that no layer's channel dependencies form a cycle: the
 * credit loops that would deadlock a lossless fabric are broken (Dally and Seitz, "Deadlock-free message routing
 * in multiprocessor interconnection networks", IEEE Trans. Computers 1987; Skeie, Lysne and Theiss, "Layered
 * shortest path (LASH) routing in irregular system area networks", IPDPS 2002; Domke, Hoefler and Nagel,
 * "Deadlock-free oblivious routing for arbitrary topologies", IPDPS 2011).
 */
#ifndef TOPOLOGIES_SM_H
#define TOPOLOGIES_SM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/graph.h"
#include "sim/module.h"
#include "topologies/sm_layers.h"

struct sm_ops {
    const char *name; /* as OpenSM's routing_engine spells it: its module's name */
    /* Replaces g's tables by one port per (node, destination column), routing over the links up; with layers,
     * assigns them in at most max_layers layers.  0, or -1 with "expected ..." in err when it cannot route g. */
    int (*route)(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen);
};

/* The kind of the routing engines ("sm": ib.routing_engine names one); its default is "minhop", OpenSM's. */
extern const struct module_kind sm_kind;

/* Engine `engine` (a module index of sm_kind) over g; see sm_ops.route.  layers is reset first (sm_layers_free). */
int sm_route(struct graph *g, int engine, int max_layers, struct sm_layers *layers, char *err, size_t errlen);
/* The "forwarding" member of rocesim topo's JSON, into f: engine's table of each switch (its egress port per
 * destination host) and, with layers, the VL of each pair of hosts. */
void sm_write_json(FILE *f, const struct graph *g, const struct sm_layers *layers);

/* Whether g's tables (one port per destination, as an engine left them) can form a credit loop on one VL: 1 with
 * the pair of hosts whose paths close a cycle in why, 0 when they cannot, -1 when out of memory.  For
 * rocesim doctor. */
int sm_credit_loop(const struct graph *g, char *why, size_t len);

/* ---- for the engines (sm.c) ---- */

int sm_tables_init(const struct graph *g, struct sm_tables *t);
void sm_tables_free(struct sm_tables *t);
/* Takes the port of ports[0..n) (local indices of node x) with the least load, the first of equal ones; counts it. */
uint16_t sm_least_loaded(const struct graph *g, struct sm_tables *t, uint32_t x, const uint16_t *ports, uint32_t n);

#endif
