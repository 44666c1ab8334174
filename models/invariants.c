/*
 * invariants — what must hold of the network's counts and buffers after a run (conservation of frames and
 * bytes, the caches the fast paths trust, the switches' buffer accounting).  Apart because nothing in a run
 * calls it: the tools check it at the end (tools/run/invariants.c adds what needs the run's view).
 */
#include "models/net.h"

#include <stdio.h>

int net_check_invariants(const struct net *n, char *err, size_t errlen)
{
    const struct net_counters *c = &n->c;
    if (c->data_sent != c->data_delivered + c->data_dropped + c->data_in_flight) {
        snprintf(err, errlen, "conservation of packets: sent %llu != delivered %llu + dropped %llu + in flight %llu",
                 (unsigned long long)c->data_sent, (unsigned long long)c->data_delivered,
                 (unsigned long long)c->data_dropped, (unsigned long long)c->data_in_flight);
        return -1;
    }
    if (c->bytes_sent != c->bytes_delivered + c->bytes_dropped + c->data_bytes_in_flight) {
        snprintf(err, errlen, "conservation of bytes: sent %llu != delivered %llu + dropped %llu + in flight %llu",
                 (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_delivered,
                 (unsigned long long)c->bytes_dropped, (unsigned long long)c->data_bytes_in_flight);
        return -1;
    }
    /* qmask is a cache of which queues hold frames (the scheduler trusts it). */
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        const struct port *pt = &n->ports[i];
        const struct port_aux *x = &n->aux[i];
        unsigned want = x->ctrl.head ? QMASK_CTRL : 0;
        for (int prio = 0; prio < NPRIO; prio++)
            want |= n->pq[prio][i].q.head ? 1u << prio : 0;
        if (pt->qmask != want) {
            snprintf(err, errlen, "queue mask of %s port %u is %#x, its queues say %#x", n->g->nodes[pt->node].name,
                     pt->local, pt->qmask, want);
            return -1;
        }
    }
    for (uint32_t i = 0; i < n->g->n_switches; i++) {
        const struct sw *w = &n->sws[i];
        int64_t ingress = 0, egress = 0;
        for (uint32_t p = 0; p < w->n_ports; p++)
            for (int prio = 0; prio < NPRIO; prio++) {
                const struct port *pt = &w->ports[p];
                const struct port_aux *x = port_aux(pt);
                const struct port_prio *pp = port_pp(pt, prio);
                if (pt->ing_shared[prio] < 0 || pp->ing_hdrm < 0 || pp->q.bytes < 0 || pp->ing_hdrm > x->headroom) {
                    snprintf(err, errlen, "buffer counter out of range at %s port %u priority %d",
                             n->g->nodes[w->node].name, p, prio);
                    return -1;
                }
                /* in_hdrm is a cache of which headroom counters are in use (admission trusts it). */
                if (((pt->in_hdrm >> prio) & 1) != (pp->ing_hdrm > 0)) {
                    snprintf(err, errlen, "headroom mask of %s port %u is %#x, its counters disagree at priority %d",
                             n->g->nodes[w->node].name, p, pt->in_hdrm, prio);
                    return -1;
                }
                ingress += pt->ing_shared[prio] + pp->ing_hdrm;
                egress += pp->q.bytes;
            }
        /* Every byte in the buffer is counted once at its ingress and sits in one egress queue. */
        if (ingress != w->buffered || egress != w->buffered || w->shared_used < 0 ||
            w->shared_used > w->buffered) {
            snprintf(err, errlen,
                     "buffer accounting at %s: ingress counters %lld, egress queues %lld, buffer %lld, shared %lld",
                     n->g->nodes[w->node].name, (long long)ingress, (long long)egress, (long long)w->buffered,
                     (long long)w->shared_used);
            return -1;
        }
    }
    return 0;
}
