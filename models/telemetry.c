/*
 * telemetry — the INT record pool and the HPCC push and echo (formulas and layout in telemetry.h).
 */
#include "models/telemetry.h"
#include "models/net.h"
#include "sim/mem.h"

#include <stdlib.h>
#include <string.h>

void int_pool_init(struct int_pool *p) { memset(p, 0, sizeof *p); }

void int_pool_free(struct int_pool *p)
{
    free(p->recs);
    memset(p, 0, sizeof *p);
}

uint32_t int_get(struct int_pool *p)
{
    if (!p->free_head) {
        /* Doubling: records are taken only while the number in flight reaches a new high-water mark. */
        uint32_t old = p->cap, cap = old ? old * 2 : 1024;
        if (cap <= old)
            mem_oom("growing the INT record pool");
        p->recs = mem_xrealloc(p->recs, (size_t)cap * sizeof *p->recs, "growing the INT record pool");
        for (uint32_t i = cap; i-- > (old ? old : 1);) {
            p->recs[i].next_free = p->free_head;
            p->free_head = i;
        }
        p->cap = cap;
    }
    uint32_t id = p->free_head;
    struct int_rec *r = &p->recs[id];
    p->free_head = r->next_free;
    r->n_hops = 0;
    if (++p->live > p->high_water)
        p->high_water = p->live;
    return id;
}

bool int_push(struct int_rec *r, const struct int_hop *h)
{
    if (r->n_hops >= INT_MAX_HOPS)
        return false;
    r->hop[r->n_hops++] = *h;
    return true;
}

void int_push_egress(struct net *n, struct pkt *k, const struct port *p)
{
    struct int_hop h = {.ts = net_sim(n)->now, .tx_bytes = p->tx_bytes, .rate_bps = port_aux(p)->rate_bps,
                        .qlen = (uint32_t)port_queued_bytes(p, k->prio), .port = port_id(p)};
    if (int_push(int_rec(n->tel, k->tel), &h)) {
        /* Counted as sent when added, so that what is sent is what is delivered, dropped or in flight. */
        k->size += INT_HOP_BYTES;
        net_np(n)->c.bytes_sent += INT_HOP_BYTES;
        net_np(n)->c.data_bytes_in_flight += INT_HOP_BYTES;
    }
}

void int_echo(struct pkt *ack, struct pkt *data)
{
    ack->tel = data->tel;
    data->tel = 0;
}
