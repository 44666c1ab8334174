/*
 * nic — the host NIC (nic.c): RoCE v2 reliable connections, the sending
 * side's pacing and scheduling, the receiving side's ACK/NACK/CNP.
 */
#ifndef MODELS_NIC_H
#define MODELS_NIC_H

#include "models/net.h"

/* Whether a flow of any priority of host h is ready to send. */
static inline bool nic_has_ready(const struct host *h)
{
    for (int q = 0; q < NPRIO; q++)
        if (h->ready_head[q])
            return true;
    return false;
}

void nic_receive(struct net *n, struct host *h, struct pkt *k);
/* The transport's handling of a frame the NIC's receive pipeline delivers (nic_receive without slow_receiver). */
void nic_process(struct net *n, struct host *h, struct pkt *k);
struct pkt *nic_dequeue(struct net *n, struct host *h, struct port *p);
void nic_flow_start(struct sim *s, void *obj, uint64_t arg);
/* Prefetches for a host port's transmitter wake-up, the event `ahead` events away (port.c's hook). */
void nic_wake_prefetch(const struct port *p, int ahead);

#endif
