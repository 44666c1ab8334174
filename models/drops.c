/*
 * drops — a frame dropped anywhere (a full buffer, the watchdog, a failed or lossy link, the MTU): what its loss
 * leaves unknown to the flow's sender, the counts by reason, and the frame back to its pool.  Apart because
 * every element drops through it and none of them owns what a drop touches.
 */
#include "models/net.h"

void net_count_loss(struct net *n, const struct pkt *k, enum drop_reason reason)
{
    /* What the loss leaves unknown to the sender: the data frame's PSN, or what the ACK or NACK would have said. */
    if (k->type <= PKT_NACK && k->flow < n->n_flows) {
        struct flow *f = net_flow(n, k->flow);
        net_lost(n, f, k->type == PKT_ACK ? k->psn : k->psn + 1);
    }
    struct net_counters *c = &net_np(n)->c;
    if (k->type == PKT_DATA) {
        c->data_dropped++;
        c->prio[k->prio].dropped++;
        c->bytes_dropped += k->size;
        c->data_in_flight--;
        c->data_bytes_in_flight -= k->size;
        switch (reason) {
        case DROP_BUFFER: c->drop_buffer++; break;
        case DROP_HEADROOM: c->drop_headroom++; break;
        case DROP_WATCHDOG: c->drop_watchdog++; break;
        case DROP_CORRUPT: c->drop_corrupt++; break;
        case DROP_MTU: c->drop_mtu++; break;
        default: c->drop_link_down++; break;
        }
    } else {
        c->ctrl_dropped++;
    }
}

void net_drop(struct net *n, struct pkt *k, enum drop_reason reason)
{
    net_count_loss(n, k, reason);
    pkt_free(n, k);
    net_check_finish(n);
}
