/*
 * node — what a kind of node does for its ports, as a table of operations
 * (in the manner of Linux's struct Qdisc_ops): a port hands an arriving frame
 * to its node, asks it for the next frame to transmit, and so on, without
 * knowing whether the node is a switch or a host NIC.
 *
 * The kind is a byte in the port's first cache line (port.kind), set once when
 * the network is built (build.c); node_ops[kind] is its table.  On the per-frame
 * path (receive, dequeue, has work) port.c calls the two kinds of today
 * directly, chosen by that byte, and any other kind through the table (a test
 * that compiles away while enum node_kind has no other), because calls through
 * the tables cost measurably more instructions per frame
 * (docs/performance.md).  A new kind of node is a file with its
 * table, a value of enum node_kind and an entry in node_ops[] (node.c).
 */
#ifndef MODELS_NODE_H
#define MODELS_NODE_H

#include <stdbool.h>

#include "models/net.h"

struct node_ops {
    const char *name;
    /* A frame that is not a link-level flow control frame arrived at port in; the node owns it from now on. */
    void (*receive)(struct net *n, struct port *in, struct pkt *k);
    /* The next frame for the free transmitter of p, taken off its queue or made now, or NULL (nothing may go). */
    struct pkt *(*dequeue)(struct net *n, struct port *p);
    /* Whether something besides the port's queues (qmask) may be waiting to be sent (a cheap, conservative test). */
    bool (*has_work)(const struct net *n, const struct port *p);
    /* p's link failed: drop every frame queued at p as `link_down` (its control queue is done by port.c). */
    void (*flush)(struct net *n, struct port *p);
    /* The engine's prefetch hooks (sim_add_prefetch) for a frame arrival at p and for p's transmitter wake-up, the
     * event `ahead` events away; they read and never write. */
    void (*arrive_prefetch)(const struct port *p, const struct pkt *k, int ahead);
    void (*wake_prefetch)(const struct port *p, int ahead);
};

/* The tables of the two kinds of today (switch.c, node.c) ... */
extern const struct node_ops switch_node_ops, host_node_ops;
/* ... and the table of each kind (node.c). */
extern const struct node_ops *const node_ops[NODE_KINDS];

static inline const struct node_ops *port_node_ops(const struct port *p) { return node_ops[p->kind]; }

#endif
