/*
 * port — a port's transmitter and receiver (port.c): one frame at a time on a
 * full-duplex link, store-and-forward, control frames first; arriving frames
 * go to the link-level flow control (lfc.h) or to the node (node.h).  The
 * port's layout (struct port) is in net.h, because every model inlines it.
 */
#ifndef MODELS_PORT_H
#define MODELS_PORT_H

#include <stdbool.h>

#include "models/net.h"

#define NET_PREFETCH_MIN_PORTS 4096 /* fabrics with more ports register the prefetch hooks (port.c, nic.c) */
#define NET_STREAM_MIN_FRAMES 200000 /* with more frames in flight, wire links are streaming stores (port.c) */

void port_kick(struct port *p);
/*
 * Whether port_transmit may start a frame on p now: its link is up and its
 * transmitter idle, or freeing later in this same instant with its wake-up
 * (none queued yet) due as the very next event, which it then takes
 * (sim_take_due): the caller then does at once, as the last thing of its
 * handler, what the wake-up would have done.
 */
bool port_take_free(struct port *p);
/* Puts k on the wire now (p must be free): the part of port_kick after it has chosen the frame. */
void port_transmit(struct port *p, struct pkt *k);
/* Queues a control frame (flow control) to go out next, ahead of every priority; dropped when the link is down. */
void port_send_ctrl(struct port *p, struct pkt *k);
/*
 * Blocks priority prio of egress p (the link-level flow control's peer may not take it now) or lifts that
 * block, restarting transmission; no-op when it already is (is not) blocked.  They keep port.paused, the
 * blocked-time totals and the deadlock detector's wait-for state.
 */
void port_block(struct port *p, int prio);
void port_unblock(struct port *p, int prio);
void port_arrive(struct sim *s, void *obj, uint64_t arg);
/* The link of p failed: loses p's queued frames, clears flow-control state on it, bumps link_gen. */
void port_link_fail(struct port *p);

#endif
