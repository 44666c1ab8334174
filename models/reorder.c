/*
 * reorder — the receivers' count of data frames that arrive ahead of a PSN their flow still expects (a loss
 * before them, or another path: lb.h), for summary.json's reordering and counters.csv's ooo_rx.  Apart from the
 * transports that call it (transport.h, transport_out_of_order), as it is the network's count, not theirs.
 */
#include "models/transport.h"

/* See transport.h. */
void transport_out_of_order(struct flow *f, const struct pkt *k)
{
    struct net *n = f->net;
    struct net_counters *nc = &net_np(n)->c;
    nc->ooo_arrivals++;
    nc->ooo_distance += k->psn - f->rcv_nxt;
    struct port_ctr *c = net_ctr(n, n->hosts[f->dst].port + f->rport, k->prio);
    if (c)
        c->ooo_rx++;
}
