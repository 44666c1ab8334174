/*
 * nic — the host NIC (nic.c): RoCE v2 reliable connections, the sending
 * side's pacing and scheduling, the receiving side's ACK/NACK/CNP.
 */
#ifndef MODELS_NIC_H
#define MODELS_NIC_H

#include "models/net.h"

/*
 * The NIC's own settings: host.mtu, host.priority and host.cnp_priority, a flat group of `host` (sim/settings.h)
 * that models/nic.c declares.  A host keeps its pointer (host.nic) from set-up on.
 */
struct nic_params {
    int mtu;          /* RoCE payload bytes per data packet */
    int priority;     /* of data packets, for a traffic entry that gives none */
    int cnp_priority; /* of the CNPs the notification point sends */
    int entropy;       /* how its data packets' entropy is chosen: a module of kind "entropy" (entropy.h), by index */
    int entropy_paths; /* the values a stateful entropy module chooses among (a power of two but for reps) */
};

/* Host settings h's NIC settings (profiles applied). */
const struct nic_params *nic_params_of(const struct scn_host *h);

/* Whether a flow of any priority of host h is ready to send by its port p. */
static inline bool nic_has_ready(const struct host *h, const struct port *p)
{
    const struct host_ready *r = p == h->port ? &h->ready : &h->more[p - h->port - 1].ready;
    for (int q = 0; q < NPRIO; q++)
        if (r->head[q])
            return true;
    return false;
}

/*
 * A queue pair's send queue, for the flows (messages) a model posts to one connection: the NIC sends them in the
 * order they were posted, each after the previous one's last data frame has gone to the wire (nic.c).  Owned by
 * the model (zeroed: empty); it names it in each flow's `qp` before the flow's start.  Only the sender's host
 * touches it.
 */
struct nic_qp {
    bool busy;                /* a flow of it has not yet sent its last data frame */
    struct flow *head, *tail; /* started after that one, waiting their turn (linked by flow.ready_next) */
};

void nic_receive(struct net *n, struct host *h, struct pkt *k);
/* The transport's handling of a frame the NIC's receive pipeline delivers (nic_receive without slow_receiver). */
void nic_process(struct net *n, struct host *h, struct pkt *k);
struct pkt *nic_dequeue(struct net *n, struct host *h, struct port *p);
/*
 * Queues a control frame of flow f's transport's own (transport.h, on_ctrl), of an ACK's size at the sending host's
 * host.ack_priority: PKT_PULL from the receiver to the sender, PKT_RTS from the sender to the receiver, carrying psn,
 * tflags and the side record rec (0: none).  Called in the event of the host that sends it.
 */
void nic_send_ctrl(struct net *n, struct flow *f, int type, uint32_t psn, uint8_t tflags, uint32_t rec);
void nic_flow_start(struct sim *s, void *obj, uint64_t arg);
/* Prefetches for a host port's transmitter wake-up, the event `ahead` events away (port.c's hook). */
void nic_wake_prefetch(const struct port *p, int ahead);

#endif
