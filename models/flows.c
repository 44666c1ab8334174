/*
 * flows — the run's table of flows: places reserved and flows made in them, each with its identity, its hashes,
 * its pinned path and its ideal completion times, and started at its sender.  Apart because the table is the
 * run's (only set-up and the run's events add to it) while everything else of a flow is its two ends' (nic.c).
 */
#include "models/cc.h"
#include "models/gdr.h"
#include "models/mech.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/route.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "topologies/routing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 32-bit mix (murmur3 finalizer constants) of the flow's identity, per direction. */
static uint32_t flow_hash(uint32_t src, uint32_t dst, uint32_t id)
{
    uint64_t x = ((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ id;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/*
 * The time a frame of `wire` bytes (preamble and gap included) takes to cross an empty network along flow f's
 * path, the serialization and delay of every link (store and forward): from its sender to its receiver as its
 * data routes (hash_fwd), or back as its ACKs do (hash_rev, minimal; a pinned path reversed).  The slowest link
 * goes to *bottleneck, the slowest of those with an end at a host or inside a server (graph.h's in_server: a
 * server's PCIe, NVLink and NIC links) to *inside; 0 when the hosts are not connected.
 */
static sim_time_t path_time(const struct net *n, const struct flow *f, bool back, uint32_t wire, int64_t *bottleneck,
                            int64_t *inside)
{
    const struct graph *g = n->g;
    uint32_t to = back ? f->src : f->dst;
    uint32_t node = g->host_node[back ? f->dst : f->src];
    sim_time_t t = 0;
    *bottleneck = *inside = INT64_MAX;
    for (int hop = 0; node != g->host_node[to]; hop++) {
        uint32_t local;
        if (f->path_len) {
            if (hop + 1 >= f->path_len)
                return 0;
            local = back ? f->path_ports[2 * f->path_len - 1 - hop] : f->path_ports[hop];
        } else {
            const uint16_t *ports;
            uint32_t cnt = graph_nexthops(g, node, to, &ports);
            if (cnt == 0)
                return 0;
            const struct g_node *gn = &g->nodes[node];
            if (gn->kind == SCN_NODE_HOST)
                local = back ? f->rport : f->sport;
            else
                local = cnt == 1 ? ports[0]
                                 : ports[routing_ecmp_pick(back ? f->hash_rev : f->hash_fwd, n->sws[gn->sw].salt, cnt)];
        }
        const struct g_port *gp = &g->ports[g->nodes[node].first_port + local];
        t += units_tx_ps(wire, gp->rate_bps) + gp->delay_ps;
        if (gp->rate_bps < *bottleneck)
            *bottleneck = gp->rate_bps;
        uint32_t next = g->ports[gp->peer].node;
        const struct g_node *a = &g->nodes[node], *b = &g->nodes[next];
        bool ends_inside = a->kind == SCN_NODE_HOST || a->in_server || b->kind == SCN_NODE_HOST || b->in_server;
        if (gp->rate_bps < *inside && ends_inside)
            *inside = gp->rate_bps;
        node = next;
        if (hop > 255)
            return 0;
    }
    return t;
}

/*
 * Ideal FCT: the first frame crosses every link (serialization + delay), and
 * every later frame adds its serialization at the bottleneck (the slowest link,
 * or the flow's own rate cap when lower).
 */
static sim_time_t ideal_fct(const struct net *n, const struct flow *f, int64_t *inside)
{
    uint32_t first_wire = (uint32_t)((f->n_pkts > 1 ? f->mtu : f->size) + n->fr.hdr_data + n->fr.wire);
    int64_t bottleneck;
    sim_time_t first = path_time(n, f, false, first_wire, &bottleneck, inside);
    if (first == 0)
        return 0;
    if (f->rate_cap_bps && f->rate_cap_bps < bottleneck)
        bottleneck = f->rate_cap_bps;
    int64_t rest_wire = f->size + (int64_t)f->n_pkts * (n->fr.hdr_data + n->fr.wire) - first_wire;
    return first + units_tx_ps(rest_wire, bottleneck);
}

/*
 * Ideal FCT to the sender's last ACK: the ideal FCT and then the ACK's way back, sent the moment the last frame
 * arrives (an ACK of FRAME_ACK bytes; the INT hops an HPCC ACK echoes are left out, as ideal_fct leaves out the
 * data's).  On an empty network fct_ack / ideal_fct_ack is 1, as the HPCC paper's slowdown is against a base
 * RTT plus the flow's bytes at line rate.
 */
static sim_time_t ideal_fct_ack(const struct net *n, const struct flow *f)
{
    int64_t bottleneck, inside;
    sim_time_t back = path_time(n, f, true, (uint32_t)(n->fr.frame_ack + n->fr.wire), &bottleneck, &inside);
    return f->ideal_fct > 0 && back > 0 ? f->ideal_fct + back : 0;
}

sim_time_t net_host_path_time(const struct net *n, uint32_t src, uint32_t dst, uint32_t wire, int64_t *bottleneck)
{
    struct flow f = {.src = src, .dst = dst, .hash_fwd = flow_hash(src, dst, 0)};
    uint32_t sport = route_host_egress(n->g, n->g->host_node[src], dst, f.hash_fwd);
    if (sport == UINT32_MAX) {
        *bottleneck = INT64_MAX;
        return 0;
    }
    f.sport = (uint8_t)sport;
    int64_t inside;
    return path_time(n, &f, false, wire, bottleneck, &inside);
}

/* count more places at the end of the table, zeroed (a place not made yet has no net: net_flow_made) */
static uint32_t flows_grow(struct net *n, uint32_t count)
{
    uint32_t base = n->n_flows;
    if (count > UINT32_MAX - base)
        mem_oom("adding flows");
    for (uint32_t idx = base; idx < base + count; idx++) {
        uint32_t chunk = idx >> FLOW_CHUNK_BITS;
        if ((idx & ((1u << FLOW_CHUNK_BITS) - 1)) == 0) {
            if (chunk == n->chunks_cap) {
                uint32_t nc = n->chunks_cap ? n->chunks_cap * 2 : 16;
                n->flow_chunks = mem_xrealloc(n->flow_chunks, nc * sizeof *n->flow_chunks, "adding flows");
                n->chunks_cap = nc;
            }
            n->flow_chunks[chunk] = mem_xcalloc_big(1u << FLOW_CHUNK_BITS, sizeof(struct flow), "adding flows");
        }
    }
    n->n_flows += count;
    return base;
}

uint32_t net_reserve_flows(struct net *n, uint32_t count)
{
    uint32_t base = flows_grow(n, count);
    if (n->recycle) {
        /* places and identities part when steps take no reserved place: each place keeps its own */
        uint32_t id = net_reserve_ids(n, count);
        for (uint32_t k = 0; k < count; k++)
            net_flow(n, base + k)->id = id + k;
    }
    return base;
}

uint32_t net_reserve_ids(struct net *n, uint32_t count)
{
    uint32_t base = n->n_ids;
    if (count > UINT32_MAX - base)
        mem_oom("adding flows");
    n->n_ids += count;
    return base;
}

uint32_t net_flows_made(const struct net *n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n->n_flows; i++)
        m += net_flow_made(net_flow(n, i));
    return m;
}

struct flow *net_add_flow(struct net *n, const char *name, uint32_t src, uint32_t dst, int64_t size,
                          sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                          int path_len)
{
    return net_make_flow(n, net_reserve_flows(n, 1), name, src, dst, size, start, prio, rate_cap_bps, path_nodes,
                         path_len);
}

/* The flow at place idx with identity id (flow.id) as made, not yet counted nor started. */
static struct flow *flow_init(struct net *n, uint32_t idx, uint32_t id, const char *name, uint32_t src, uint32_t dst,
                              int64_t size, sim_time_t start, int prio, int64_t rate_cap_bps,
                              const uint32_t *path_nodes, int path_len)
{
    struct flow *f = net_flow(n, idx);
    /* A place reused (net_make_step) keeps its timers' generations, so that an event of a timer its last flow
     * cancelled finds the generation moved on and does not fire for this one, and its path's arrays. */
    uint64_t gen[3] = {0, 0, 0};
    uint32_t *pn = NULL;
    uint16_t *pp = NULL;
    uint8_t cap = 0;
    if (net_flow_made(f)) {
        gen[0] = f->pace_timer.gen + 1, gen[1] = f->rto_timer.gen + 1, gen[2] = f->cc_timer.gen + 1;
        pn = f->path_nodes, pp = f->path_ports, cap = f->path_cap;
    }
    memset(f, 0, sizeof *f);
    f->pace_timer.gen = gen[0], f->rto_timer.gen = gen[1], f->cc_timer.gen = gen[2];
    f->path_nodes = pn, f->path_ports = pp, f->path_cap = cap;
    f->net = n;
    f->idx = idx;
    f->id = id;
    f->name = name;
    f->src = src;
    f->dst = dst;
    f->pace_timer.ent = f->rto_timer.ent = f->cc_timer.ent = flow_sender_ent(f); /* its sender's timers */
    const struct host *h = &n->hosts[src];
    /* -1: the sender's host.priority; on InfiniBand, which has none, SL 0's VL, or under a layered routing engine
     * the layer of the pair of hosts (sm.h), whatever the entry asked */
    f->prio = (uint8_t)(prio >= 0 ? prio : n->sl2vl ? n->sl2vl[0] : h->nic->priority);
    if (n->sm.layer)
        f->prio = n->sm.layer[(size_t)n->g->routes.col[src] * n->sm.n_cols + n->g->routes.col[dst]];
    f->size = size;
    f->mtu = (uint32_t)h->nic->mtu;
    f->n_pkts = (uint32_t)((size + f->mtu - 1) / f->mtu);
    f->start = start;
    f->finish = -1;
    f->last_cnp = -1;
    f->rate_cap_bps = rate_cap_bps;
    /* Each flow keeps its own congestion control (flow.cc): its sender's, which a host profile may set. */
    cc_flow_setup(n, f, h->cc);
    f->transport = (uint8_t)h->tp->loss_recovery;
    if ((transport_of(f->transport)->flags & TRANSPORT_F_RECORDS) && !n->tel)
        net_tel_ensure(n);
    f->hash_fwd = flow_hash(src, dst, id);
    f->hash_rev = flow_hash(dst, src, id);
    f->via_host = NET_NO_VIA;
    f->via_group = -1;
    uint32_t staged[255];
    if (!path_nodes && (path_len = gdr_path(n, f, staged, 255)) > 0)
        path_nodes = staged; /* a GPU's data between servers: by its own NIC, or through host memory (gdr.c) */
    if (path_nodes && path_len >= 2) {
        /* path_ports[0..L-1]: egress toward path[i+1]; path_ports[L..2L-1]: egress toward path[i-1] */
        f->path_len = (uint8_t)path_len;
        if (path_len > f->path_cap) {
            free(f->path_nodes);
            free(f->path_ports);
            f->path_nodes = mem_xcalloc_big((size_t)path_len, sizeof *f->path_nodes, "adding a flow's pinned path");
            f->path_ports = mem_xcalloc_big((size_t)path_len * 2, sizeof *f->path_ports, "adding a flow's pinned path");
            f->path_cap = (uint8_t)path_len;
        }
        memcpy(f->path_nodes, path_nodes, sizeof *path_nodes * (size_t)path_len);
        for (int i = 0; i < path_len; i++) {
            if (i + 1 < path_len)
                f->path_ports[i] = (uint16_t)graph_port_to(n->g, path_nodes[i], path_nodes[i + 1]);
            if (i > 0)
                f->path_ports[path_len + i] = (uint16_t)graph_port_to(n->g, path_nodes[i], path_nodes[i - 1]);
        }
        f->sport = (uint8_t)f->path_ports[0];
        f->rport = (uint8_t)f->path_ports[2 * path_len - 1];
    } else {
        /* An unreachable end keeps port 0: the flow goes nowhere, as at a host of one port. */
        uint32_t sp = route_host_egress(n->g, n->g->host_node[src], dst, f->hash_fwd);
        uint32_t rp = route_host_egress(n->g, n->g->host_node[dst], src, f->hash_rev);
        f->sport = (uint8_t)(sp == UINT32_MAX ? 0 : sp);
        f->rport = (uint8_t)(rp == UINT32_MAX ? 0 : rp);
    }
    int64_t inside;
    f->ideal_fct = ideal_fct(n, f, &inside);
    /* A GPU inside a server (one with a NIC of its own, g_node.nic_via) paces each flow at the slowest link it
     * takes within the servers: NVLink to a GPU of its own server, PCIe to one without NVLink, its NIC's link to
     * another server; every other host at its port's rate, as a NIC does. */
    f->line_bps = host_line_bps(h, f->sport);
    const struct g_node *gs = &n->g->nodes[n->g->host_node[src]];
    if (gs->nic_via) {
        int64_t port_bps = n->g->ports[gs->first_port + f->sport].rate_bps;
        f->line_bps = f->ideal_fct && inside < port_bps ? inside : port_bps;
    }
    f->ideal_fct_ack = ideal_fct_ack(n, f);
    f->acked = -1;
    return f;
}

struct flow *net_mirror_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                             sim_time_t start, int prio)
{
    return flow_init(n, idx, idx, name, src, dst, size, start, prio, 0, NULL, 0);
}

/* Makes the flow at place idx with identity id, counted as active, and schedules its start. */
static struct flow *flow_make(struct net *n, uint32_t idx, uint32_t id, const char *name, uint32_t src, uint32_t dst,
                              int64_t size, sim_time_t start, int prio, int64_t rate_cap_bps,
                              const uint32_t *path_nodes, int path_len)
{
    struct flow *f = flow_init(n, idx, id, name, src, dst, size, start, prio, rate_cap_bps, path_nodes, path_len);
    net_np(n)->flows_active++;
    sim_fn begin = route_flow_needs_choice(n, f) ? route_flow_start : nic_flow_start;
    sim_at_to(net_sim(n), start, flow_sender_ent(f), begin, f, 0);
    return f;
}

struct flow *net_add_waiting_flow(struct net *n, const char *name, uint32_t src, uint32_t dst, int64_t size, int prio,
                                  int64_t rate_cap_bps, const uint32_t *path_nodes, int path_len)
{
    uint32_t idx = net_reserve_flows(n, 1);
    uint32_t id = n->recycle ? net_flow(n, idx)->id : idx;
    return flow_init(n, idx, id, name, src, dst, size, -1, prio, rate_cap_bps, path_nodes, path_len);
}

void net_start_waiting_flow(struct net *n, struct flow *f)
{
    struct sim *s = net_sim(n);
    f->start = s->now;
    net_np(n)->flows_active++;
    sim_fn begin = route_flow_needs_choice(n, f) ? route_flow_start : nic_flow_start;
    sim_at_to(s, s->now, flow_sender_ent(f), begin, f, 0);
}

struct flow *net_make_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                           sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                           int path_len)
{
    uint32_t id = n->recycle ? net_flow(n, idx)->id : idx;
    return flow_make(n, idx, id, name, src, dst, size, start, prio, rate_cap_bps, path_nodes, path_len);
}

struct flow *net_make_step(struct net *n, uint32_t id, const char *name, uint32_t src, uint32_t dst, int64_t size,
                           sim_time_t start, int prio)
{
    if (!n->recycle) {
        fprintf(stderr, "rocesim: bug: a step made without a place where steps' places are not reused\n");
        abort();
    }
    uint32_t idx = net_step_take(n); /* a place a step left (steps.c), or a new one */
    if (idx == UINT32_MAX) {
        idx = flows_grow(n, 1);
        n->step_places++;
    }
    struct flow *f = flow_make(n, idx, id, name, src, dst, size, start, prio, 0, NULL, 0);
    f->step = 1;
    return f;
}

/* The port the routes now give a flow at host node hn (toward `to`), or `was` when there is none or hn has one. */
static uint8_t rehome_port(const struct net *n, uint32_t hn, uint32_t to, uint32_t hash, uint8_t was)
{
    const struct g_node *x = &n->g->nodes[hn];
    if (x->n_ports < 2 || x->nic_via) /* one port, or a GPU inside a server (its ports are PCIe and NVLink) */
        return was;
    uint32_t p = route_host_egress(n->g, hn, to, hash);
    return p == UINT32_MAX ? was : (uint8_t)p;
}

void net_flows_rehome(struct net *n)
{
    const struct graph *g = n->g;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        struct flow *f = net_flow(n, i);
        if (!net_flow_made(f) || f->started || f->path_len)
            continue;
        uint8_t sp = rehome_port(n, g->host_node[f->src], f->dst, f->hash_fwd, f->sport);
        f->rport = rehome_port(n, g->host_node[f->dst], f->src, f->hash_rev, f->rport);
        if (sp != f->sport) {
            f->sport = sp;
            f->line_bps = host_line_bps(&n->hosts[f->src], sp);
        }
    }
}

static void flows_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_flows; i++) {
        struct flow *f = net_flow(n, i);
        free(f->path_ports);
        free(f->path_nodes);
        if ((f->tp_snd || f->tp_rcv) && transport_of(f->transport)->release)
            transport_of(f->transport)->release(f);
    }
    uint32_t chunks = (n->n_flows + (1u << FLOW_CHUNK_BITS) - 1) >> FLOW_CHUNK_BITS;
    for (uint32_t i = 0; i < chunks; i++)
        free(n->flow_chunks[i]);
    free(n->flow_chunks);
}

static const struct net_mech_ops flows_mech = {.name = "flows", .order = 100, .free = flows_free};
NET_MECH(flows_mech)
