/*
 * port — transmission on a full-duplex link and reception.
 *
 * Serialization of B wire bytes at R bit/s takes B * 8e12 / R ps.  Common
 * rates (10/25/40/50/100/200/400 Gbps) divide 8e12, so the time per byte is an
 * exact integer; for other rates the remainder is carried from frame to frame
 * so that a long run does not drift.  Control frames (flow control) bypass
 * the priority queues and go out next; a blocked priority (port_block) is not
 * sent, but a frame already being transmitted is finished.
 *
 * An arriving frame goes to the link-level flow control (lfc.h) when it is one
 * of its frames, else to the node (node.h).
 *
 * Link failure (fault link_down): a port on a failed link never transmits;
 * every frame queued at either end is dropped, and so is every frame that
 * was on the wire: each frame carries the sending port's link_gen, which the
 * failure bumps at both ends, and a frame that arrives with an older one is
 * lost.  Flow-control state on the link is cleared, because neither end can
 * deliver the frame that would lift a block.
 *
 * Lossy links (loss_rate, link_errors; struct port_loss): a frame of any kind that reaches a port of a lossy
 * link is lost there with the probability in force, as the receiver's FCS check would discard it.  A frame lost
 * to a link failure counts as that, not as corrupted.
 *
 * A packet capture (monitor.capture, net.tap) is told each frame a port starts sending and each it receives
 * intact; off, it costs nothing: its tests ride on tx_extras and arrive_extras, which a frame tests anyway.
 *
 * A switch egress whose ECN marks when frames are sent (switch.ecn.mark_on "sent", the UEC reference simulator's
 * rule) holds each frame it may mark until its last bit has left: its wake-up is then always queued, for the end
 * of the frame, and puts the frame onto the link there (held_sent), after the mark and with the arrival's key it
 * would have had, so that the frame leaves this partition or process only once it is final.  On a cut link a held
 * frame is not linked behind the one ahead of it on the wire (that one may have left for another process), and
 * the capture is told of a held frame when its sending ends.
 *
 * Blocked time is accounted per (port, priority) as closed intervals plus the
 * open one (port_paused_total), for the summary and for each flow's
 * paused_ns (switch.c, nic.c).
 */
#include "models/port.h"
#include "models/telemetry.h"
#include "models/deadlock.h"
#include "models/ecn.h"
#include "models/lfc.h"
#include "models/mech.h"
#include "models/nic.h"
#include "models/node.h"
#include "models/route.h"
#include "models/switch.h"

#ifdef __x86_64__
#include <immintrin.h>
#endif

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

/* The port's transmitter is free again and frames were waiting: send the next one. */
static void tx_wake(struct sim *s, void *obj, uint64_t arg)
{
    struct port *p = obj;
    SIM_ASSERT_ENT(s, net_ent(p->node));
    p->wake_pending = false;
    port_kick(p);
}

/*
 * The node's operations (node.h) on the hot path: direct calls for the two kinds of today, chosen by the kind
 * byte in the port's line 0, because calls through the tables cost measurably more instructions per frame
 * (docs/performance.md).  Any other kind goes through its table; while enum node_kind has only the two,
 * NODE_OTHER is false at compile time and the choice costs one test of the byte, as the is_host flag before it.
 */
_Static_assert(NODE_SWITCH == 0 && NODE_HOST == 1, "the kinds with direct calls come first");
#define NODE_OTHER(p) (NODE_KINDS > 2 && (p)->kind > NODE_HOST)

static inline void node_receive(struct net *n, struct port *p, struct pkt *k)
{
    if (NODE_OTHER(p))
        port_node_ops(p)->receive(n, p, k);
    else if (p->kind == NODE_HOST)
        nic_receive(n, n->node_host[p->node], k);
    else
        switch_receive(n, n->node_sw[p->node], p, k);
}

static inline struct pkt *node_dequeue(struct net *n, struct port *p)
{
    if (NODE_OTHER(p))
        return port_node_ops(p)->dequeue(n, p);
    return p->kind == NODE_HOST ? nic_dequeue(n, n->node_host[p->node], p) : switch_dequeue(n, n->node_sw[p->node], p);
}

/* Whether anything may be waiting for this port's transmitter (a cheap, conservative test). */
static bool has_work(const struct net *n, const struct port *p)
{
    if (p->qmask)
        return true;
    if (NODE_OTHER(p))
        return port_node_ops(p)->has_work(n, p);
    return p->kind == NODE_HOST && nic_has_ready(n->node_host[p->node], p);
}

static sim_time_t tx_time(struct port *p, uint32_t wire_bytes)
{
    if (p->ps_per_byte)
        return (sim_time_t)wire_bytes * p->ps_per_byte;
    struct port_aux *x = port_aux(p);
    /* A frame's bits in ps fit 64 bits (a 64 KiB frame: 5.2e17 + a remainder below the rate, under 2^63), and a
     * 64-bit division is several times cheaper than the 128-bit one, which a larger frame still takes. */
    if (__builtin_expect(wire_bytes <= 65536, 1)) {
        uint64_t num = (uint64_t)wire_bytes * 8 * PS_PER_S + (uint64_t)x->tx_rem;
        x->tx_rem = (int64_t)(num % (uint64_t)x->rate_bps);
        return (sim_time_t)(num / (uint64_t)x->rate_bps);
    }
    __int128 num = (__int128)wire_bytes * 8 * PS_PER_S + x->tx_rem;
    sim_time_t t = (sim_time_t)(num / x->rate_bps);
    x->tx_rem = (int64_t)(num % x->rate_bps);
    return t;
}

/*
 * Links k behind `ahead` on the wire.  When the frames in flight far outgrow
 * the last-level cache (a k=32 fat-tree holds about 300,000), `ahead` was sent
 * so many events ago that its line is in memory: a plain store would first
 * read the line and hold a miss slot meanwhile, a streaming store writes
 * without reading, and the line's next reader (the arrival) is prefetched by
 * the engine anyway.  Where the line is still cached, streaming it out costs
 * more than it saves, hence the threshold NET_STREAM_MIN_FRAMES (the
 * measurements are in docs/performance.md).
 */
static inline void wire_link(struct net *n, struct pkt *ahead, struct pkt *k, sim_time_t at, uint64_t seq)
{
#ifdef __x86_64__
    if (n->pkts.live > n->stream_min_frames) { /* partitioned: the total at the last window's end */
        _mm_stream_si64((long long *)&ahead->next, (long long)(uintptr_t)k);
        _mm_stream_si64((long long *)&ahead->next_at, (long long)at);
        _mm_stream_si64((long long *)&ahead->next_seq, (long long)seq);
        return;
    }
#endif
    ahead->next = k;
    ahead->next_at = at;
    ahead->next_seq = seq;
}

/*
 * Frames on a link arrive in the order they were sent (one transmitter, one
 * delay), so only the first frame on the wire needs an arrival event; the
 * others follow it in a list, each frame carrying the arrival time of the one
 * behind it and the event sequence reserved when that one was sent, and each
 * arrival queues the next.  The events fire at exactly the points of the event
 * order they would have had if all were queued at transmission, so results
 * are the same, but the event queue holds one entry per busy link instead of
 * one per frame in flight: a quarter of the entries in a loaded fat-tree,
 * small enough to stay in cache.  The list's tail is kept by the sending port
 * (in cache when it sends) and the arrival event carries its frame.  Whether
 * the tail is still on the wire the sender tells from the tail's arrival
 * point (see port_transmit), so the receiver never writes the sender's port:
 * each node's handlers touch their own ports only, as a network cut into
 * partitions needs.
 */
/* Inline everywhere: port_transmit's copy is on every hop, held_sent's on the held frames alone. */
static inline __attribute__((always_inline)) void wire_send(struct sim *s, struct port *p, struct pkt *ahead,
                                                           struct pkt *k, sim_time_t at, uint64_t seq)
{
    k->next = NULL;
    if (ahead)
        wire_link(p->net, ahead, k, at, seq);
    else
        /* the peer's node from the graph, not from the peer's first line, which its node writes with every frame
         * (in another partition, on another core): its index from this port's net (port_id would read the peer's
         * net pointer, on that line) */
        sim_at_seq_to(s, at, seq, net_ent(p->net->g->ports[(uint32_t)(p->peer - p->net->ports)].node), port_arrive,
                      p->peer, (uint64_t)(uintptr_t)k);
    p->wire_tail = k;
}

bool port_take_free(struct port *p)
{
    struct sim *s = net_sim(p->net);
    if (p->down)
        return false;
    if (!sim_before(s, p->busy_until, p->busy_seq))
        return true;
    /* Frames of one flow through an idle switch arrive exactly as the one ahead of them leaves: their
     * wake-ups would otherwise be a large share of all events (docs/performance.md). */
    if (p->wake_pending || p->busy_until != s->now || !sim_take_due(s, p->busy_until, p->busy_seq))
        return false;
    SIM_ASSERT_ENT(s, net_ent(p->node)); /* the wake-up taken is the port's node's */
    return true;
}

/* A frame leaving a port with monitor.counters: out of line, so that a transmission without them pays one test. */
static __attribute__((noinline)) void count_tx(struct port_ctr *c, struct pkt *k)
{
    if (k->type == PKT_PAUSE)
        return; /* counted when sent (pfc.c) */
    c->tx_frames++;
    c->tx_bytes += k->size;
    if (k->ecn & ECN_HERE) {
        c->ecn_marked++;
        k->ecn &= (uint8_t)~ECN_HERE;
    }
}

/* What a transmission does besides sending (net.tx_extras): out of line, so that port_transmit keeps the registers
 * of a transmission without them (a call with more arguments inline cost every hop an instruction). */
static __attribute__((noinline)) void tx_extras(struct net *n, struct port *p, struct pkt *k)
{
    if (n->tx_extras & NET_TX_LFC)
        n->lfc->sent(p, k);
    if (n->tap)
        n->tap(n->tap_ctx, p, k, false);
}

/* Frame k has gone onto p's link: its port's counters (monitor.counters) and the calls of net.tx_extras. */
static inline __attribute__((always_inline)) void sent_extras(struct net *n, struct port *p, struct pkt *k)
{
    struct port_ctr *c = net_ctr(n, p, k->prio);
    if (c)
        count_tx(c, k);
    if (__builtin_expect(n->tx_extras & NET_TX_CALLS, 0))
        tx_extras(n, p, k);
}

/* Whether egress p holds frame k until it is sent (see the top of this file): only a frame its ECN may still mark
 * waits; the others (control frames, frames marked already) go onto the link as anywhere. */
static inline bool holds(const struct net *n, const struct port *p, const struct pkt *k)
{
    return p->kind == NODE_SWITCH && ecn_markable(k) && n->pcfg[p->cfg].ecn_mark == PORT_ECN_SENT;
}

/* Frame k's sending begins at port p: the port is busy until its end, a point of the event order reserved with the
 * next (the frame's arrival's).  Returns that next. */
static inline uint64_t start_sending(struct sim *s, struct port *p, struct pkt *k, sim_time_t t)
{
    p->busy_until = s->now + t;
    p->busy_seq = sim_reserve_seq(s);
    uint64_t arrive_seq = sim_reserve_seq(s); /* busy_seq + 1: the same entity's next number */
    k->link_gen = p->link_gen;
    p->tx_frames++;
    p->tx_bytes += k->size;
    net_np(p->net)->c.packet_hops++;
    return arrive_seq;
}

static void held_sent(struct sim *s, void *obj, uint64_t arg);

/* Frame k, taking t to send, begins at held port p and waits there for its end.  The frame ahead of it on the
 * wire, if any, and that frame's arrival are kept in k's own links, unused until k is on the wire (not on a cut
 * link, where the frame ahead may have left for another process before k is sent). */
static __attribute__((noinline)) void hold(struct sim *s, struct port *p, struct pkt *k, sim_time_t t)
{
    k->next = p->wire_tail && !port_cut(p) ? p->wire_tail : NULL;
    k->next_at = p->busy_until + p->delay_ps;
    k->next_seq = p->busy_seq + 1;
    start_sending(s, p, k, t);
    p->wire_tail = k;
    p->wake_pending = true;
    /* the frame as the argument, which the engine prefetches a few events ahead (on a large fabric its line has
     * left the cache by the end of its sending) */
    sim_at_seq_to(s, p->busy_until, p->busy_seq, net_ent(p->node), held_sent, p, (uint64_t)(uintptr_t)k);
}

/* The end of held port p's frame k (its wire_tail): marked or not, it goes onto the link with the arrival's key it
 * would have had (the sequence after busy_seq, reserved with it); then the port is free, as at tx_wake. */
static void held_sent(struct sim *s, void *obj, uint64_t arg)
{
    struct port *p = obj;
    struct net *n = p->net;
    struct pkt *k = (struct pkt *)(uintptr_t)arg; /* p's wire_tail: nothing else left p while it was sent */
    SIM_ASSERT_ENT(s, net_ent(p->node));
    switch_sent(n, p, k);
    /* behind the frame ahead while that is still on the wire, as port_transmit links frames */
    struct pkt *ahead = k->next && sim_before(s, k->next_at, k->next_seq) ? k->next : NULL;
    wire_send(s, p, ahead, k, s->now + p->delay_ps, p->busy_seq + 1);
    sent_extras(n, p, k);
    p->wake_pending = false;
    port_kick(p);
}

void port_transmit(struct port *p, struct pkt *k)
{
    struct net *n = p->net;
    struct sim *s = net_sim(n);
    /* A switch stamps its hop before the frame's length sets its serialization; ACKs that echo a record and the
     * sender's own NIC do not. */
    if (__builtin_expect(k->tel != 0, 0) && k->type == PKT_DATA && p->kind != NODE_HOST)
        int_push_egress(n, k, p);
    sim_time_t t = tx_time(p, k->size + n->fr.wire);
    if (__builtin_expect(n->tx_extras & NET_TX_HOLD, 0) && holds(n, p, k)) {
        hold(s, p, k, t);
        return;
    }
    /* The last frame sent ended at busy_until and arrives a delay later, at the sequence reserved right after
     * busy_seq (below): while that point is ahead, it is still on the wire and the new frame follows it. */
    /* A peer in another partition may run ahead within the window: a frame that arrives before the window's end
     * (s->horizon) may already have arrived there, so nothing is linked behind it (sim/parallel.h).  A peer in
     * this partition runs in this engine's order, which sim_before follows. */
    sim_time_t ahead_at = p->busy_until + p->delay_ps;
    struct pkt *ahead = p->wire_tail && sim_before(s, ahead_at, p->busy_seq + 1) &&
                                (ahead_at >= s->horizon || !port_cut(p))
                            ? p->wire_tail
                            : NULL;
    uint64_t arrive_seq = start_sending(s, p, k, t);
    wire_send(s, p, ahead, k, s->now + t + p->delay_ps, arrive_seq);
    if (!p->wake_pending && has_work(n, p)) {
        p->wake_pending = true;
        sim_at_seq_to(s, p->busy_until, p->busy_seq, net_ent(p->node), tx_wake, p, 0);
    }
    /* Last, where nothing else is live: the tests then cost no register.  The frame only arrives later. */
    sent_extras(n, p, k);
}

/*
 * Starts the next frame if the transmitter is free.  A port keeps the point its
 * current frame ends (time and a reserved event sequence) instead of queuing
 * an end-of-transmission event: the wake-up event is queued only when a frame
 * is waiting, so a port that is idle between frames (most host ports, lightly
 * loaded switch ports) costs one event per frame instead of two.  The
 * reserved sequence makes the port free at exactly the point of the event
 * order where an end-of-transmission event would have fired, so results are
 * the same as with one.
 */
void port_kick(struct port *p)
{
    if (p->down)
        return;
    struct net *n = p->net;
    struct sim *s = net_sim(n);
    if (sim_before(s, p->busy_until, p->busy_seq)) {
        if (!p->wake_pending) {
            p->wake_pending = true;
            sim_at_seq_to(s, p->busy_until, p->busy_seq, net_ent(p->node), tx_wake, p, 0);
        }
        return;
    }
    struct pkt *k = portq_pop(p, NPRIO);
    if (!k)
        k = node_dequeue(n, p);
    if (k)
        port_transmit(p, k);
}

void port_send_ctrl(struct port *p, struct pkt *k)
{
    if (p->down) {
        net_drop(p->net, k, DROP_LINK_DOWN);
        return;
    }
    portq_push(p, NPRIO, k);
    port_kick(p);
}

/* Adds the open blocked interval of (p, prio), up to `now`, to the totals and restarts it at `now`. */
static void close_interval(struct port *p, int prio, sim_time_t now)
{
    struct net *n = p->net;
    struct port_prio *pp = port_pp(p, prio);
    sim_time_t d = now - pp->paused_since;
    net_np(n)->paused_total += d;
    net_np(n)->paused_prio[prio] += d;
    pp->paused_acc += d;
    pp->paused_since = now;
}

void port_block(struct port *p, int prio)
{
    uint8_t bit = (uint8_t)(1u << prio);
    if (p->paused & bit)
        return;
    struct net *n = p->net;
    p->paused |= bit;
    port_pp(p, prio)->paused_since = net_sim(n)->now;
    if (p->kind != NODE_HOST)
        deadlock_blocked(n, net_np(n)->sw_paused++ == 0);
    if (!p->paused_seen)
        net_np(n)->ports_ever_paused++;
    p->paused_seen |= bit;
}

void port_unblock(struct port *p, int prio)
{
    uint8_t bit = (uint8_t)(1u << prio);
    if (!(p->paused & bit))
        return;
    struct net *n = p->net;
    close_interval(p, prio, net_sim(n)->now);
    p->paused &= (uint8_t)~bit;
    if (p->kind != NODE_HOST)
        net_np(n)->sw_paused--;
    port_kick(p);
}

/*
 * sim's prefetch hooks for port_arrive and tx_wake (sim_add_prefetch), called
 * two events ahead and again one event ahead, with the port (whose line 0
 * holds the ingress counters) and the frame already on their way into the
 * cache: what the node will touch (node.h; switch.c and node.c say what).
 */
static void port_arrive_prefetch(const void *obj, uint64_t arg, int ahead)
{
    const struct port *p = obj;
    const struct pkt *k = (const struct pkt *)(uintptr_t)arg;
    if (k)
        port_node_ops(p)->arrive_prefetch(p, k, ahead);
}

static void tx_wake_prefetch(const void *obj, uint64_t arg, int ahead)
{
    const struct port *p = obj;
    port_node_ops(p)->wake_prefetch(p, ahead);
}

/*
 * Deeper prefetching pays only when the ports' hot lines (two 64-byte lines each) outgrow a core's L2: on smaller
 * fabrics it only adds instructions (the threshold's measurements: docs/performance.md).
 */
static void register_prefetch(struct net *n)
{
    if (n->g->n_ports <= NET_PREFETCH_MIN_PORTS)
        return;
    /* a held frame's end of sending frees its port as a wake-up does: the same lines come next */
    if (sim_add_prefetch(n->sim, port_arrive, port_arrive_prefetch) ||
        sim_add_prefetch(n->sim, tx_wake, tx_wake_prefetch) ||
        ((n->tx_extras & NET_TX_HOLD) && sim_add_prefetch(n->sim, held_sent, tx_wake_prefetch))) {
        fprintf(stderr, "rocesim: bug: the engine has no room for the network's prefetch hooks (SIM_PF_MAX)\n");
        abort();
    }
}

static const struct net_mech_ops port_mech = {.name = "port", .order = 10, .init = register_prefetch};
NET_MECH(port_mech)

/* Whether the frame arriving at p is corrupted (draws only on a port with a loss in force).  Out of line and cold:
 * a fabric without lossy links never calls it. */
static __attribute__((noinline, cold)) bool corrupted(struct net *n, struct port *p, const struct pkt *k)
{
    struct port_loss *pl = &n->loss[port_id(p)];
    if (pl->p <= 0 || rng_uniform(&pl->rng) >= pl->p)
        return false;
    struct net_counters *c = &net_np(n)->c;
    switch (k->type) {
    case PKT_ACK: c->corrupt_ack++; break;
    case PKT_NACK: c->corrupt_nack++; break;
    case PKT_CNP: c->corrupt_cnp++; break;
    case PKT_PAUSE:
        if (k->quanta)
            c->corrupt_pause++;
        else
            c->corrupt_resume++;
        break;
    default: break;
    }
    return true;
}

/* A frame received intact at a port with monitor.counters: out of line, so that an arrival without them pays
 * one test. */
static __attribute__((noinline)) void count_rx(struct port_ctr *c, const struct pkt *k)
{
    if (k->type == PKT_PAUSE) {
        c->pause_rx++;
        return;
    }
    c->rx_frames++;
    c->rx_bytes += k->size;
}

void port_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct port *p = obj;
    struct pkt *k = (struct pkt *)(uintptr_t)arg;
    SIM_ASSERT_ENT(s, net_ent(p->node));
    if (k->next) {
        /* The next frame was written on the sender's core when the link is cut: start fetching it now, but only if
         * it arrives within this window, when the sender no longer links frames behind it (port_transmit); one
         * it may still write to would go back and forth between the cores. */
        if (k->next_at < s->horizon)
            __builtin_prefetch(k->next);
        sim_at_seq(s, k->next_at, k->next_seq, port_arrive, p, (uint64_t)(uintptr_t)k->next);
    }
    struct net *n = p->net;
    if (k->link_gen != p->link_gen) {
        lfc_lost(n, p, k);
        net_ctr_drop(n, p, k, DROP_LINK_DOWN);
        net_drop(n, k, DROP_LINK_DOWN);
        return;
    }
    if (__builtin_expect(n->arrive_extras, 0)) {
        if (n->loss && corrupted(n, p, k)) {
            lfc_lost(n, p, k);
            net_ctr_drop(n, p, k, DROP_CORRUPT);
            net_drop(n, k, DROP_CORRUPT);
            return;
        }
        struct port_ctr *c = net_ctr(n, p, k->prio);
        if (c)
            count_rx(c, k);
        if (n->tap)
            n->tap(n->tap_ctx, p, k, true);
    }
    if (k->type == PKT_PAUSE) {
        n->lfc->control(p, k);
        pkt_free(n, k);
        return;
    }
    node_receive(n, p, k);
}

void net_set_tap(struct net *n, net_tap_fn tap, void *ctx)
{
    n->tap = tap;
    n->tap_ctx = ctx;
    if (tap) {
        n->tx_extras |= NET_TX_TAP;
        n->arrive_extras = true;
    } else {
        n->tx_extras &= (uint8_t)~NET_TX_TAP;
        n->arrive_extras = n->loss || n->ctr;
    }
}

void net_close_pauses(struct net *n, sim_time_t now)
{
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        struct port *p = &n->ports[i];
        for (int prio = 0; prio < NPRIO; prio++)
            if (p->paused & (1u << prio))
                close_interval(p, prio, now);
    }
}

/*
 * Port p's link has failed (the caller has set p->down).  Bumps link_gen so
 * that the frames on the wire are lost on arrival; ends the blocks imposed on
 * p by its peer (their time counts until now) and, through the flow control,
 * those p imposes on its peer; drops p's queued frames as `link_down` (switch
 * ports release their buffer accounting).  No return value.
 */
void port_link_fail(struct port *p)
{
    struct net *n = p->net;
    p->link_gen++;
    for (int prio = 0; prio < NPRIO; prio++) {
        if (p->paused & (1u << prio)) {
            close_interval(p, prio, net_sim(n)->now);
            if (p->kind != NODE_HOST)
                net_np(n)->sw_paused--;
        }
    }
    n->lfc->link_fail(p);
    p->paused = 0;
    struct pkt *k;
    while ((k = portq_pop(p, NPRIO)))
        net_drop(n, k, DROP_LINK_DOWN);
    port_node_ops(p)->flush(n, p);
}
