/*
 * switch — output-queued shared-buffer switch (switch.c): routing, buffer
 * admission (tail drop, and the link-level flow control's for the priorities
 * under it), egress scheduling and ECN marking (ecn.h).
 */
#ifndef MODELS_SWITCH_H
#define MODELS_SWITCH_H

#include "models/net.h"

/*
 * The switch's own settings: switch.buffer, switch.lossy_queue_limit, switch.cell_size and switch.mtu, a flat group
 * of `switch` (sim/settings.h) that models/switch.c declares.  The network keeps them, rounded to the switch's unit
 * of account, in sw.lim (net_sw_limits) from set-up on.
 */
struct switch_params {
    int64_t buffer;            /* the shared packet buffer, below 2 GiB */
    int64_t lossy_queue_limit; /* tail-drop limit of an egress queue of a lossy priority; 0 with a map */
    struct scn_rate_map lossy_queue_limit_map; /* ... by the egress's rate (resolved per port: struct port_cfg) */
    int cell_size;             /* bytes per buffer cell; 0 = the buffer counts bytes */
    int mtu;                   /* largest frame (headers included) a switch forwards; 0 = no limit */
};

/* Switch settings w's own (profiles applied). */
const struct switch_params *switch_params_of(const struct scn_switch *w);

void switch_receive(struct net *n, struct sw *w, struct port *in, struct pkt *k);
struct pkt *switch_dequeue(struct net *n, struct sw *w, struct port *p);
/* Frame k has just been sent by egress p, whose ECN marks when frames are sent (switch.ecn.mark_on "sent"): may mark
 * it from the bytes of its priority queued behind it now. */
void switch_sent(struct net *n, struct port *p, struct pkt *k);
/* Drops every frame queued at switch egress p (its link failed), releasing their buffer accounting. */
void switch_flush_port(struct net *n, struct sw *w, struct port *p);
/* Drops every frame queued at priority prio of switch egress p for `reason`, releasing their buffer accounting. */
void switch_flush_queue(struct net *n, struct sw *w, struct port *p, int prio, enum drop_reason reason);

#endif
