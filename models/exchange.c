/* exchange — what crosses processes when a network's partitions run in several (see exchange.h). */
#include "models/exchange.h"
#include "models/mech.h"
#include "models/pfcwd.h"
#include "models/port.h"
#include "models/telemetry.h"
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A frame's record: the receiving port's id, then the frames on the wire behind one arrival event (port.c: each
 * carries when the next arrives, and its sequence), each as its bytes; for a frame with an INT record its hop
 * count and hops; for a frame that switches route by its flow, the flow's Valiant intermediate, which its sender
 * chose when it started (route.c) in the sender's process alone.  Only a frame's arrival crosses partitions
 * (sim/parallel.h).
 */
static bool frame_encode(void *ctx, const struct sim_event *e, struct sim_buf *b)
{
    struct net *n = ctx;
    if (e->fn != port_arrive || e->timer)
        return false;
    struct port *p = e->obj;
    struct pkt *k = (struct pkt *)(uintptr_t)e->arg;
    uint32_t id = port_id(p), count = 0;
    for (const struct pkt *c = k; c; c = c->next)
        count++;
    sim_buf_put(b, &id, sizeof id);
    sim_buf_put(b, &count, sizeof count);
    while (k) {
        struct pkt *next = k->next;
        sim_buf_put(b, k, sizeof *k);
        if (k->tel) {
            const struct int_rec *r = net_int_rec(n, k->tel);
            sim_buf_put(b, &r->n_hops, sizeof r->n_hops);
            if (r->n_hops == INT_UET)
                sim_buf_put(b, &r->uet, sizeof r->uet);
            else
                sim_buf_put(b, r->hop, sizeof *r->hop * r->n_hops);
        }
        if (k->route_flow & ROUTE_BY_FLOW) {
            const struct flow *f = net_flow(n, k->flow);
            sim_buf_put(b, &f->via_host, sizeof f->via_host);
            sim_buf_put(b, &f->via_group, sizeof f->via_group);
        }
        /* The sender links no more frames behind this one, which travels now; those it sends later get events
         * of their own, with the keys they would have had behind it. */
        if (p->peer->wire_tail == k)
            p->peer->wire_tail = NULL;
        pkt_free(n, k); /* into the sending partition's pools: the receiver rebuilds it from its own */
        k = next;
    }
    return true;
}

/* The bytes a side record of n_hops hops (or INT_UET) takes in a frame's record. */
static size_t rec_bytes(uint8_t hops)
{
    return hops == INT_UET ? sizeof(struct uet_ack) : sizeof(struct int_hop) * hops;
}

/* One frame of a record into a packet of the receiving partition; the bytes read, or 0. */
static size_t frame_read(struct net *n, const unsigned char *p, size_t len, struct pkt **out)
{
    struct pkt in;
    if (len < sizeof in)
        return 0;
    memcpy(&in, p, sizeof in);
    size_t used = sizeof in;
    if ((in.route_flow & ROUTE_BY_FLOW) && in.flow >= n->n_flows)
        return 0;
    uint8_t hops = 0;
    if (in.tel) {
        if (len < used + 1)
            return 0;
        hops = p[used++];
        if ((hops > INT_MAX_HOPS && hops != INT_UET) || len < used + rec_bytes(hops) || !net_np(n)->tel)
            return 0;
    }
    if ((in.route_flow & ROUTE_BY_FLOW) && len < used + rec_bytes(hops) + sizeof(uint32_t) + sizeof(int32_t))
        return 0;
    struct pkt *k = pkt_alloc(n);
    *k = in;
    k->next = NULL;
    k->tel = 0;
    if (in.tel) {
        k->tel = int_get(net_np(n)->tel);
        struct int_rec *r = net_int_rec(n, k->tel);
        r->n_hops = hops;
        if (hops == INT_UET)
            memcpy(&r->uet, p + used, sizeof r->uet);
        else
            memcpy(r->hop, p + used, sizeof *r->hop * hops);
        used += rec_bytes(hops);
    }
    if (in.route_flow & ROUTE_BY_FLOW) {
        struct flow *f = net_flow(n, in.flow);
        memcpy(&f->via_host, p + used, sizeof f->via_host);
        memcpy(&f->via_group, p + used + sizeof f->via_host, sizeof f->via_group);
        used += sizeof f->via_host + sizeof f->via_group;
    }
    *out = k;
    return used;
}

static size_t frame_decode(void *ctx, const unsigned char *p, size_t len, struct sim_event *e)
{
    struct net *n = ctx;
    uint32_t id, count;
    if (len < sizeof id + sizeof count)
        return 0;
    memcpy(&id, p, sizeof id);
    memcpy(&count, p + sizeof id, sizeof count);
    size_t used = sizeof id + sizeof count;
    if (id >= n->g->n_ports || count == 0)
        return 0;
    struct pkt *head = NULL, *tail = NULL;
    for (uint32_t i = 0; i < count; i++) {
        struct pkt *k;
        size_t u = frame_read(n, p + used, len - used, &k);
        if (!u)
            return 0;
        used += u;
        if (tail)
            tail->next = k;
        else
            head = k;
        tail = k;
    }
    e->fn = port_arrive;
    e->obj = &n->ports[id];
    e->timer = NULL;
    e->arg = (uint64_t)(uintptr_t)head;
    return used;
}

/* Lets frames travel between the processes of P. */
static void exchange_attach(struct net *n, struct sim_par *P)
{
    if (P->comm)
        P->codec = (struct sim_par_codec){frame_encode, frame_decode, n};
}

/* A note as it travels: its partition, and its flow as an index. */
struct note_rec {
    uint32_t part, flow;
    struct net_note nt;
};

/* Between windows: every process's notes of the window (drops and timeouts included), into the partitions they
 * came from, before they are told (the notes' hook runs after this one, mech.h). */
static void exchange_share_notes(struct net *n)
{
    const struct sim_par_comm *C = net_comm(n);
    if (!C)
        return;
    const struct sim_par *P = n->sim->par;
    struct sim_buf mine = {0}, all = {0};
    for (uint32_t i = P->lo; i < P->hi; i++) {
        struct net_part *np = &n->parts[i];
        for (uint32_t j = 0; j < np->n_notes; j++) {
            struct note_rec r = {i, UINT32_MAX, np->notes[j]};
            if (r.nt.f)
                r.flow = r.nt.f->idx;
            r.nt.f = NULL;
            sim_buf_put(&mine, &r, sizeof r);
        }
    }
    C->gather(C->ctx, &mine, &all);
    for (size_t o = 0; o + sizeof(struct note_rec) <= all.len; o += sizeof(struct note_rec)) {
        struct note_rec r;
        memcpy(&r, all.p + o, sizeof r);
        if (r.part >= n->n_parts || (r.flow != UINT32_MAX && r.flow >= n->n_flows)) {
            fprintf(stderr, "rocesim: bug: malformed notes from another process\n");
            abort();
        }
        if (sim_par_mine(P, r.part))
            continue; /* this process's own, already in place */
        struct net_part *np = &n->parts[r.part];
        if (np->n_notes == np->cap_notes) {
            np->cap_notes = np->cap_notes ? np->cap_notes * 2 : 64;
            np->notes = mem_xrealloc(np->notes, sizeof *np->notes * np->cap_notes, "noting network events");
        }
        if (r.flow != UINT32_MAX)
            r.nt.f = net_flow(n, r.flow);
        np->notes[np->n_notes++] = r.nt;
    }
    free(mine.p);
    free(all.p);
}

static const struct net_mech_ops exchange_mech = {
    .name = "exchange", .order = 40, .partition = exchange_attach, .between_windows = exchange_share_notes};
NET_MECH(exchange_mech)

/* Flow results, each written by one process and zero (finish and acked: -1, kept here as + 1) in the others. */
enum { FR_FINISH, FR_ACKED, FR_FAILED, FR_SENDER_DONE, FR_STARTED, FR_RETX, FR_CNPS, FR_TIMEOUTS, FR_PAUSED, FR_N };

void exchange_finish(struct net *n, sim_time_t now)
{
    const struct sim_par_comm *C = net_comm(n);
    sim_time_t total = n->paused_total, by_prio[NPRIO];
    memcpy(by_prio, n->paused_prio, sizeof by_prio);
    net_close_pauses(n, now);
    uint64_t d[1 + NPRIO];
    d[0] = (uint64_t)(n->paused_total - total);
    for (int p = 0; p < NPRIO; p++)
        d[1 + p] = (uint64_t)(n->paused_prio[p] - by_prio[p]);
    C->sum(C->ctx, d, 1 + NPRIO);
    n->paused_total = total + (sim_time_t)d[0];
    for (int p = 0; p < NPRIO; p++)
        n->paused_prio[p] = by_prio[p] + (sim_time_t)d[1 + p];

    uint64_t *v = mem_xcalloc((size_t)n->n_flows * FR_N + 1, sizeof *v, "gathering the flows' results");
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        uint64_t *x = v + (size_t)i * FR_N;
        if (!net_flow_made(f))
            continue; /* a collective's place not reached, in every process alike */
        x[FR_FINISH] = (uint64_t)(f->finish + 1);
        x[FR_ACKED] = (uint64_t)(f->acked + 1);
        x[FR_FAILED] = f->failed;
        x[FR_SENDER_DONE] = f->sender_done;
        x[FR_STARTED] = f->started;
        x[FR_RETX] = f->retx_bytes;
        x[FR_CNPS] = f->cnps_rx;
        x[FR_TIMEOUTS] = f->timeouts;
        x[FR_PAUSED] = (uint64_t)f->paused_ns;
    }
    C->sum(C->ctx, v, (size_t)n->n_flows * FR_N);
    for (uint32_t i = 0; i < n->n_flows; i++) {
        struct flow *f = net_flow(n, i);
        const uint64_t *x = v + (size_t)i * FR_N;
        if (!net_flow_made(f))
            continue;
        f->finish = (sim_time_t)x[FR_FINISH] - 1;
        f->acked = (sim_time_t)x[FR_ACKED] - 1;
        f->failed = x[FR_FAILED];
        f->sender_done = x[FR_SENDER_DONE];
        f->started = x[FR_STARTED];
        f->retx_bytes = x[FR_RETX];
        f->cnps_rx = x[FR_CNPS];
        f->timeouts = x[FR_TIMEOUTS];
        f->paused_ns = (sim_time_t)x[FR_PAUSED];
    }
    free(v);

    /* the ports: paused time and the intervals seen (counters.csv), and the per-port counters */
    uint32_t np = n->g->n_ports;
    v = mem_xcalloc((size_t)np * (NPRIO + 1) + 1, sizeof *v, "gathering the ports' results");
    for (uint32_t i = 0; i < np; i++) {
        const struct port *p = &n->ports[i];
        if (!net_node_mine(n, p->node))
            continue;
        v[(size_t)i * (NPRIO + 1)] = p->paused_seen;
        for (int prio = 0; prio < NPRIO; prio++)
            v[(size_t)i * (NPRIO + 1) + 1 + (size_t)prio] = (uint64_t)port_pp(p, prio)->paused_acc;
    }
    C->sum(C->ctx, v, (size_t)np * (NPRIO + 1));
    for (uint32_t i = 0; i < np; i++) {
        struct port *p = &n->ports[i];
        p->paused_seen = (uint8_t)v[(size_t)i * (NPRIO + 1)];
        for (int prio = 0; prio < NPRIO; prio++)
            port_pp(p, prio)->paused_acc = (sim_time_t)v[(size_t)i * (NPRIO + 1) + 1 + (size_t)prio];
    }
    free(v);
    if (n->wd) {
        /* the watchdog polls each switch in the process that runs it (pfcwd.c) */
        uint64_t w[2] = {n->wd->storms, n->wd->restored};
        C->sum(C->ctx, w, 2);
        n->wd->storms = (uint32_t)w[0];
        n->wd->restored = (uint32_t)w[1];
    }
    if (n->ctr) {
        _Static_assert(sizeof(struct port_ctr) % sizeof(uint64_t) == 0, "port counters are summed as words");
        C->sum(C->ctx, (uint64_t *)n->ctr, (size_t)np * NPRIO * (sizeof(struct port_ctr) / sizeof(uint64_t)));
    }
}
