/*
 * telemetry — the INT record pool and the HPCC push and echo (formulas and layout in telemetry.h).
 */
#include "models/telemetry.h"
#include "models/net.h"
#include "sim/mem.h"

#include <stdlib.h>
#include <string.h>

void int_pool_init(struct int_pool *p, uint32_t owner)
{
    memset(p, 0, sizeof *p);
    p->owner = owner;
    p->chunk = mem_xcalloc(INT_CHUNKS, sizeof *p->chunk, "making the INT record pool");
}

void int_pool_free(struct int_pool *p)
{
    for (uint32_t c = 0; p->chunk && c < INT_CHUNKS && p->chunk[c]; c++)
        free(p->chunk[c]);
    free(p->chunk);
    memset(p, 0, sizeof *p);
}

uint32_t int_get(struct int_pool *p)
{
    if (!p->free_head) {
        /* A chunk more: records are taken only while the number in flight reaches a new high-water mark. */
        uint32_t c = p->cap >> INT_CHUNK_BITS, per = 1u << INT_CHUNK_BITS;
        if (c == INT_CHUNKS)
            mem_oom("growing the INT record pool");
        p->chunk[c] = mem_xmalloc(sizeof **p->chunk * per, "growing the INT record pool");
        for (uint32_t i = per; i-- > (c ? 0 : 1);) {
            p->chunk[c][i].next_free = p->free_head;
            p->free_head = c * per + i;
        }
        p->cap += per;
    }
    uint32_t i = p->free_head;
    struct int_rec *r = int_rec(p, i);
    p->free_head = r->next_free;
    r->n_hops = 0;
    if (++p->live > p->high_water)
        p->high_water = p->live;
    return p->owner << INT_OWNER_SHIFT | i;
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
    /* txBytes counts what the link carries, preamble and gap included (WIRE_OVERHEAD per frame, PAUSE frames too),
     * so that txRate / B is the link's busy fraction and eta the share of its time HPCC aims at (telemetry.h). */
    struct int_hop h = {.ts = net_sim(n)->now, .tx_bytes = p->tx_bytes + p->tx_frames * WIRE_OVERHEAD,
                        .rate_bps = port_aux(p)->rate_bps,
                        .qlen = (uint32_t)port_queued_bytes(p, k->prio), .port = port_id(p)};
    if (int_push(net_int_rec(n, k->tel), &h)) {
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
