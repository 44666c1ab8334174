/*
 * switch — output-queued shared-buffer switch (switch.c): routing, buffer
 * admission (tail drop, and the link-level flow control's for the priorities
 * under it), egress scheduling and ECN marking (ecn.h).
 */
#ifndef MODELS_SWITCH_H
#define MODELS_SWITCH_H

#include "models/net.h"

void switch_receive(struct net *n, struct sw *w, struct port *in, struct pkt *k);
struct pkt *switch_dequeue(struct net *n, struct sw *w, struct port *p);
/* Drops every frame queued at switch egress p (its link failed), releasing their buffer accounting. */
void switch_flush_port(struct net *n, struct sw *w, struct port *p);
/* Drops every frame queued at priority prio of switch egress p for `reason`, releasing their buffer accounting. */
void switch_flush_queue(struct net *n, struct sw *w, struct port *p, int prio, enum drop_reason reason);

#endif
