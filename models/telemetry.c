/*
 * telemetry — the INT record pool and the HPCC push and echo (formulas and layout in telemetry.h).
 */
#include "models/telemetry.h"
#include "models/mech.h"
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
    /* txBytes counts what the link carries, preamble and gap included (net.fr.wire per frame, PAUSE frames too),
     * so that txRate / B is the link's busy fraction and eta the share of its time HPCC aims at (telemetry.h). */
    struct int_hop h = {.ts = net_sim(n)->now, .tx_bytes = p->tx_bytes + p->tx_frames * n->fr.wire,
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

/* ---- the network's pools: one per partition, and the run's (net.h) ---- */

void net_tel_ensure(struct net *n)
{
    uint32_t np = n->n_parts;
    n->tel_pools = mem_xcalloc(np + 1, sizeof *n->tel_pools, "making the INT record pools");
    for (uint32_t i = 0; i <= np; i++) {
        n->tel_pools[i] = mem_xmalloc(sizeof **n->tel_pools, "making the INT record pools");
        int_pool_init(n->tel_pools[i], i);
        if (i < np)
            n->parts[i].tel = n->tel_pools[i];
    }
    n->tel = n->tel_pools[np];
}

void net_tel_put(struct net *n, uint32_t id)
{
    struct net_part *np = net_np(n);
    if (np->tel && np->tel->owner == id >> INT_OWNER_SHIFT) {
        int_put(np->tel, id);
        return;
    }
    if (np->n_tel_back == np->cap_tel_back) {
        np->cap_tel_back = np->cap_tel_back ? np->cap_tel_back * 2 : 256;
        np->tel_back = mem_xrealloc(np->tel_back, sizeof *np->tel_back * np->cap_tel_back, "freeing INT records");
    }
    np->tel_back[np->n_tel_back++] = id;
}

/* Returns the INT records every partition freed for another's pool (between windows). */
static void tel_return(struct net *n)
{
    for (uint32_t i = 0; i <= n->n_parts; i++) {
        struct net_part *np = i < n->n_parts ? &n->parts[i] : &n->own;
        for (uint32_t j = 0; j < np->n_tel_back; j++)
            int_put(n->tel_pools[np->tel_back[j] >> INT_OWNER_SHIFT], np->tel_back[j]);
        np->n_tel_back = 0;
    }
}


static void tel_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++)
        free(n->parts[i].tel_back);
    for (uint32_t i = 0; n->tel_pools && i <= n->n_parts; i++) {
        int_pool_free(n->tel_pools[i]);
        free(n->tel_pools[i]);
    }
    free(n->tel_pools);
    free(n->own.tel_back);
}

static const struct net_mech_ops telemetry_mech = {
    .name = "telemetry", .order = 60, .between_windows = tel_return, .free = tel_free};
NET_MECH(telemetry_mech)
