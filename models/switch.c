/*
 * switch — output-queued shared-buffer switch.
 *
 * Buffer accounting (docs/model.md, "Switch"): every frame is counted against its
 * ingress (port, priority) until it leaves the switch, in the shared pool or,
 * for a priority under link-level flow control, in the headroom that flow
 * control reserves (lfc.h; PFC's thresholds are in pfc.h).  Frames leave the
 * accounting at dequeue (the start of their transmission), headroom first,
 * and the flow control hears of it.
 *
 * Lossy priorities are tail-dropped when the egress queue would exceed
 * lossy_queue_limit or the shared buffer is full.
 *
 * Cells (switch.cell_size): ASICs allocate their buffer in cells, so a frame
 * takes ceil(bytes / cell) of them whatever its size (sw_frame_bytes, net.h)
 * and a 64-byte ACK costs as much as a 256-byte frame with 256-byte cells.
 * Typical cells: 208 bytes (Broadcom Tomahawk 2), 144 (NVIDIA Spectrum), 256
 * (other Broadcom), 384 (Cisco 8000), as the SONiC QoS tests take them
 * (sonic-mgmt, tests/qos/test_tunnel_qos_remap.py).  Every counter (shared
 * pool, ingress, headroom, egress queue depth) is charged the frame's whole
 * cells in bytes, ceil(B / cell) x cell, and every threshold is rounded up to
 * whole cells (struct sw_limits, net_init): all comparisons are of cells.
 *
 * A frame larger than switch.mtu (headers included) is dropped on arrival as
 * `mtu`, as a switch port with a smaller MTU than its hosts' discards it.
 *
 * ECN marking (ecn.h) at dequeue or enqueue; at dequeue, q excludes the frame
 * being sent.
 *
 * Routing (route.h): pinned path, else the routing tables with per-flow ECMP,
 * with dragonfly data detouring through its flow's Valiant group.  A frame
 * with no route (its destination cut off by a failed link) or whose egress
 * port is on a failed link is dropped as `link_down`.
 *
 * Pathologies: a frame bound for a queue the PFC watchdog declared stormed
 * with action drop is discarded on arrival (pfcwd.c).  A data frame remembers
 * its egress queue's paused-time total when queued; the difference at dequeue
 * goes to its flow's paused_ns.
 */
#include "models/switch.h"
#include "models/ecn.h"
#include "models/lb.h"
#include "models/lfc.h"
#include "models/pfc.h"
#include "models/port.h"
#include "models/route.h"
#include "models/trim.h"

#include "sim/module.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

/* The flow control's per-frame operations: PFC's inline, any other through its table (lfc.h). */
static inline int lfc_admit(struct net *n, struct sw *w, struct port *in, struct pkt *k, int64_t B)
{
    return n->lfc == &pfc_lfc_ops ? pfc_admit_charged(n, w, in, k, B) : n->lfc->admit(n, w, in, k);
}

static inline void lfc_released(struct net *n, struct sw *w, struct port *in, int prio)
{
    if (n->lfc == &pfc_lfc_ops)
        pfc_released(n, w, in, prio);
    else
        n->lfc->released(n, w, in, prio);
}

/*
 * The local egress port of frame k at switch w (advancing a pinned frame's hop
 * index).  Returns ROUTE_NO_PORT when the destination is unreachable, which
 * only a failed link can cause (anything else is a bug and aborts).
 */
static __attribute__((noinline, cold)) void no_route(const struct net *n, const struct sw *w, const struct pkt *k)
{
    fprintf(stderr, "rocesim: bug: switch %s has no route to host %u\n", n->g->nodes[w->node].name, k->dst_host);
    abort();
}

/* egress_port for a frame the ECMP hash alone does not route (pkt.route_flow): pinned, detoured or balanced. */
static __attribute__((noinline)) uint32_t egress_by_flow(struct net *n, struct sw *w, struct pkt *k)
{
    const struct flow *f = k->route_flow & ROUTE_BY_FLOW ? net_flow(n, k->flow) : NULL;
    if (f && f->path_len) {
        /* pinned: hop is the index of this node on the path */
        if (k->reverse) {
            k->hop--;
            return f->path_ports[f->path_len + k->hop];
        }
        k->hop++;
        return f->path_ports[k->hop];
    }
    uint32_t via = f && k->type == PKT_DATA ? f->via_host : NET_NO_VIA, e;
    if (w->lb != LB_ECMP && k->type == PKT_DATA && via == NET_NO_VIA)
        e = lb_egress(n, w, k);
    else
        e = route_egress(n->g, w->node, w->group, w->salt, k->hash, k->dst_host, via, f ? f->via_group : -1,
                         &k->via_reached);
    if (e == ROUTE_NO_PORT && n->links_down_now == 0)
        no_route(n, w, k);
    return e;
}

static uint32_t egress_port(struct net *n, struct sw *w, struct pkt *k)
{
    if (__builtin_expect(k->route_flow != 0, 0))
        return egress_by_flow(n, w, k);
    uint32_t e = route_egress(n->g, w->node, w->group, w->salt, k->hash, k->dst_host, NET_NO_VIA, -1,
                              &k->via_reached);
    if (e == ROUTE_NO_PORT && n->links_down_now == 0)
        no_route(n, w, k);
    return e;
}

/*
 * Takes frame k (just unlinked from an egress queue of priority prio), charged
 * B bytes, out of the buffer accounting, headroom first.  Returns its ingress
 * port.  Aborts on negative accounting: that is a bug, not a scenario error.
 */
static inline __attribute__((always_inline)) struct port *release(struct net *n, struct sw *w, const struct pkt *k,
                                                                  int prio, int64_t B)
{
    struct port *in = &w->ports[k->in_port];
    int64_t from_hdrm = 0;
    if ((in->in_hdrm >> prio) & 1) {
        struct port_prio *pp = port_pp(in, prio);
        from_hdrm = pp->ing_hdrm < B ? pp->ing_hdrm : B;
        pp->ing_hdrm -= from_hdrm;
        if (pp->ing_hdrm == 0)
            in->in_hdrm &= (uint8_t)~(1u << prio);
    }
    in->ing_shared[prio] -= (int32_t)(B - from_hdrm);
    w->shared_used -= B - from_hdrm;
    w->buffered -= B;
    if (in->ing_shared[prio] < 0 || w->shared_used < 0 || w->buffered < 0) {
        fprintf(stderr, "rocesim: bug: negative buffer accounting at %s\n", n->g->nodes[w->node].name);
        abort();
    }
    return in;
}

/*
 * The bytes frame k, just unlinked from queue prio of egress p, was charged; the queue's depth, which counted its
 * whole cells (switch_receive), drops to what is left.
 */
static inline int64_t uncharge_queue(const struct sw *w, struct port *p, int prio, const struct pkt *k)
{
    if (__builtin_expect(w->lim.cell != 0, 0)) {
        int64_t B = sw_frame_bytes(w, k->size);
        port_pp(p, prio)->q.bytes -= B - k->size;
        return B;
    }
    return k->size;
}

/*
 * What leaving its egress queue does to frame k of priority prio, with q_after
 * bytes still queued behind it: it leaves the buffer accounting, may be
 * marked (marking at dequeue), and its ingress may RESUME its upstream.
 */
static void dequeued(struct net *n, struct sw *w, const struct port *out, struct pkt *k, int prio, int64_t q_after,
                     int64_t B)
{
    struct port *in = release(n, w, k, prio, B);
    const struct port_cfg *oc = &n->pcfg[out->cfg];
    if (oc->ecn_mark == PORT_ECN_DEQUEUE)
        ecn_maybe_mark(n, w, oc, out, k, q_after);
    if (n->pcfg[in->cfg].lossless & (1u << prio))
        lfc_released(n, w, in, prio);
}

/* See switch.h. */
void switch_sent(struct net *n, struct port *p, struct pkt *k)
{
    ecn_maybe_mark(n, n->node_sw[p->node], &n->pcfg[p->cfg], p, k, port_queued_bytes(p, k->prio));
}

/* Frame k, arrived at `in`, is dropped before the buffer took it, counted at `at` (in or its egress) as `why`; a
 * flow control that counts arrivals hears of it.  Out of line: the frame's path pays nothing for it. */
static __attribute__((noinline, cold)) void drop_arrival(struct net *n, struct port *in, const struct port *at,
                                                         struct pkt *k, enum drop_reason why)
{
    lfc_lost(n, in, k);
    net_ctr_drop(n, at, k, why);
    net_drop(n, k, why);
}

/* A lossy queue admits frame k of B bytes while its queue (q_before) and the shared buffer, less the headroom held
 * back, have room: k is charged to its ingress.  Returns whether it was admitted. */
static inline __attribute__((always_inline)) bool lossy_admit(const struct net *n, struct sw *w, struct port *in,
                                                               const struct port *out, struct pkt *k, int64_t q_before,
                                                               int64_t B)
{
    if (q_before + B > n->pcfg[out->cfg].lossy_limit || w->shared_used + B > w->lim.buffer - w->hdrm_reserved)
        return false;
    in->ing_shared[k->prio] += (int32_t)B;
    w->shared_used += B;
    w->buffered += B;
    k->in_port = in->local;
    return true;
}

/*
 * A lossy queue of egress `out` cannot admit frame k: it is dropped, or a data frame that the switch trims
 * (trim.c) goes on as a PKT_TRIM frame at its own priority, if that queue has room.  Returns the bytes the trimmed
 * frame is charged, or -1 when k was dropped.  Out of line, and by value rather than through pointers to the
 * caller's counts, which would keep them off registers on every frame: frames are lost rarely, trimmed more rarely.
 */
static __attribute__((noinline)) int64_t lossy_full(struct net *n, struct sw *w, struct port *in, struct port *out,
                                                    struct pkt *k)
{
    net_ctr_drop(n, out, k, DROP_BUFFER);
    if (k->type != PKT_DATA || !trim_frame(n, w, k)) {
        net_drop(n, k, DROP_BUFFER);
        return -1;
    }
    if (out->peer->kind == NODE_HOST)
        k->tflags |= PKT_TF_LAST_HOP; /* the receiver's own port was full: no fault of the path (UET) */
    /* the notice is admitted as any frame of its priority: by the flow control where that is lossless */
    int prio = k->prio;
    int64_t B = sw_frame_bytes(w, k->size);
    if (n->pcfg[in->cfg].lossless & (1u << prio)) {
        /* through the table, not lfc_admit: a second inline copy of PFC's admission makes the compiler outline
         * the hot one in switch_receive */
        int why = n->lfc->admit(n, w, in, k);
        if (why != LFC_ADMIT)
            net_drop(n, k, (enum drop_reason)why);
        return why == LFC_ADMIT ? B : -1;
    }
    if (!lossy_admit(n, w, in, out, k, port_queued_bytes(out, prio), B)) {
        net_drop(n, k, DROP_BUFFER); /* the notice, lost in turn: a control frame dropped */
        return -1;
    }
    return B;
}

void switch_receive(struct net *n, struct sw *w, struct port *in, struct pkt *k)
{
    int64_t B = k->size;
    /* One test for both, so that a switch with neither pays one predictable branch per frame. */
    if (__builtin_expect(w->lim.cells_or_mtu, 0)) {
        if (w->lim.mtu && k->size > w->lim.mtu) {
            drop_arrival(n, in, in, k, DROP_MTU);
            return;
        }
        B = sw_frame_bytes(w, k->size);
    }
    uint32_t e = egress_port(n, w, k);
    if (e == ROUTE_NO_PORT || w->ports[e].down) {
        drop_arrival(n, in, e == ROUTE_NO_PORT ? in : &w->ports[e], k, DROP_LINK_DOWN);
        return;
    }
    struct port *out = &w->ports[e];
    int prio = k->prio;
    if (out->wd_drop & (1u << prio)) {
        drop_arrival(n, in, out, k, DROP_WATCHDOG);
        return;
    }
    int64_t q_before = port_queued_bytes(out, prio);

    if (n->pcfg[in->cfg].lossless & (1u << prio)) {
        int why = lfc_admit(n, w, in, k, B);
        if (why != LFC_ADMIT) {
            net_ctr_drop(n, in, k, (enum drop_reason)why);
            net_drop(n, k, (enum drop_reason)why);
            return;
        }
    } else if (!lossy_admit(n, w, in, out, k, q_before, B)) {
        if ((B = lossy_full(n, w, in, out, k)) < 0)
            return;
        prio = k->prio; /* a trimmed frame's */
        q_before = port_queued_bytes(out, prio);
    }
    const struct port_cfg *oc = &n->pcfg[out->cfg];
    if (oc->ecn_mark == PORT_ECN_ENQUEUE)
        ecn_maybe_mark(n, w, oc, out, k, q_before);
    /*
     * An egress with nothing queued (not even a PAUSE) whose transmitter is
     * free and whose priority is not paused would dequeue this very frame at
     * once: do what switch_dequeue does with it, but without linking it into
     * the queue, whose cache line a loaded fabric would otherwise fetch for
     * nothing (a free egress is the common case below saturation).  The
     * scheduler still picks it, so that DWRR keeps its deficits.  A
     * transmitter that frees later in this instant counts as free when its
     * wake-up would run next (port_take_free): this is the last thing the
     * arrival does.
     */
    if (!out->qmask && !((out->paused >> prio) & 1) && port_take_free(out)) {
        uint32_t head[NPRIO];
        head[prio] = (uint32_t)B;
        sched_pick(w->sched, &port_aux(out)->sched, (uint8_t)(1u << prio), head, n->host_frame);
        dequeued(n, w, out, k, prio, 0, B);
        port_transmit(out, k);
        return;
    }
    k->pmark = port_paused_total(out, prio, net_sim(n)->now);
    portq_push(out, prio, k);
    if (__builtin_expect(w->lim.cell != 0, 0))
        port_pp(out, prio)->q.bytes += B - k->size; /* the queue's depth in whole cells, as its frames are charged */
    port_kick(out);
}

/*
 * Drops every frame queued at priority prio of egress p of switch w, counted
 * as `reason`.  Each frame leaves the buffer accounting exactly as
 * switch_dequeue() releases it (headroom first, then shared), and its ingress
 * is re-checked for RESUME, so that a flush cannot leave an upstream paused
 * on bytes that no longer exist.  Negative accounting is a bug and aborts.
 */
void switch_flush_queue(struct net *n, struct sw *w, struct port *p, int prio, enum drop_reason reason)
{
    struct pkt *k;
    while ((k = portq_pop(p, prio))) {
        struct port *in = release(n, w, k, prio, uncharge_queue(w, p, prio, k));
        net_ctr_drop(n, p, k, reason);
        struct port_ctr *c = net_ctr(n, p, prio);
        if (c && (k->ecn & ECN_HERE))
            c->ecn_marked++; /* marked at enqueue, never sent (port_transmit counts the others) */
        net_drop(n, k, reason);
        if (n->pcfg[in->cfg].lossless & (1u << prio))
            lfc_released(n, w, in, prio);
    }
}

/* Drops every frame queued at egress p of switch w, whose link has failed, as `link_down`. */
void switch_flush_port(struct net *n, struct sw *w, struct port *p)
{
    for (int prio = 0; prio < NPRIO; prio++)
        switch_flush_queue(n, w, p, prio, DROP_LINK_DOWN);
}

struct pkt *switch_dequeue(struct net *n, struct sw *w, struct port *p)
{
    /* Only the queues that may send are looked at (each is a cache line of its own), and their head frames
     * only by a scheduler that weighs sizes. */
    uint8_t eligible = (uint8_t)p->qmask & (uint8_t)~p->paused;
    uint32_t head[NPRIO];
    if (sched_weighs_sizes(w->sched))
        for (uint8_t m = eligible; m; m &= (uint8_t)(m - 1)) {
            int q = __builtin_ctz(m);
            head[q] = port_pp(p, q)->q.head->size;
        }
    int prio = sched_pick(w->sched, &port_aux(p)->sched, eligible, head, n->host_frame);
    if (prio < 0)
        return NULL;
    struct pkt *k = portq_pop(p, prio);
    int64_t B = uncharge_queue(w, p, prio, k);
    dequeued(n, w, p, k, prio, port_pp(p, prio)->q.bytes, B);
    /* The queue is not paused now, so its closed intervals are its whole paused time since the frame was queued. */
    sim_time_t held = port_paused_closed(p, prio) - k->pmark;
    /* Atomic: the switches of a flow's path may run in different partitions (sim/parallel.h); a sum, in any order,
     * is the same. */
    if (held && k->type == PKT_DATA)
        __atomic_fetch_add(&net_flow(n, k->flow)->paused_ns, held, __ATOMIC_RELAXED);
    return k;
}

/* ---- The switch's own settings (switch.h) ---- */

/* The per-port ingress counters are 32 bits wide (models/net.h); no switch has a buffer near 2 GiB. */
static int check_buffer(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct switch_params *w = base;
    char a[32], p[SETTING_PATH_MAX];
    (void)obj;
    if (w->buffer > INT32_MAX)
        return setting_bad(sc, setting_join(p, path, "buffer"), "expected a size below 2GiB, got \"%s\"",
                           units_fmt_size(w->buffer, a, sizeof a));
    return 0;
}

/* 0 turns each off; below 64 bytes (the smallest Ethernet frame) neither means anything. */
static int check_cells_mtu(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct switch_params *w = base;
    char p[SETTING_PATH_MAX];
    (void)obj;
    if (w->cell_size > 0 && w->cell_size < 64)
        return setting_bad(sc, setting_join(p, path, "cell_size"), "expected 0 (bytes) or a cell of 64 to 4096 "
                           "bytes, got %d", w->cell_size);
    if (w->mtu > 0 && w->mtu < 64)
        return setting_bad(sc, setting_join(p, path, "mtu"), "expected 0 (no limit) or a frame size of 64 to 65535 "
                           "bytes, got %d", w->mtu);
    return 0;
}

/*
 * Fields are checked in the order of the object, which is also the dump's and docs/scenario.md's: of several
 * problems, the one listed first is reported.  A check across fields (SETTING_CHECK, never dumped) stands after the
 * fields it reads.  The fields between them are other modules' (switch.flow_control follows buffer, the switch's
 * objects and switch.deadlock_check follow theirs: `after`).
 */
SCN_VALUE_OR_MAP(lossy_queue_limit, struct switch_params, lossy_queue_limit_map)

static const struct setting switch_fields[] = {
    {SET_FIELD("buffer", SETTING_SIZE, struct switch_params, buffer, SETTING_POSITIVE, "32MB",
               "Shared packet buffer per switch, below 2 GiB")},
    {SET_CHECK(check_buffer)},
    {SET_FIELD("lossy_queue_limit", SETTING_SIZE, struct switch_params, lossy_queue_limit,
               SETTING_POSITIVE | SETTING_PORT, "1MB",
               "Tail-drop limit of one egress queue of a lossy priority"), .parse = parse_lossy_queue_limit,
     .dump = dump_lossy_queue_limit},
    {SET_INT("cell_size", struct switch_params, cell_size, 0, 4096, "0",
             "Bytes per buffer cell, 64..4096: frames and thresholds count in whole cells; 0 = in bytes")},
    {SET_INT("mtu", struct switch_params, mtu, 0, 65535, "0",
             "Largest frame, headers included, a switch forwards (>= 64); larger ones are dropped; 0 = no limit")},
    {SET_CHECK(check_cells_mtu)},
    {0},
};

/* Flat, naming no field to follow: the first of the switch object. */
static const struct setting_group switch_group = {
    .path = "switch/switch", .size = sizeof(struct switch_params), .fields = switch_fields,
};
SETTINGS_REGISTER("switch", &switch_group);

/* See switch.h. */
const struct switch_params *switch_params_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, switch_group, struct switch_params);
}
