/*
 * port — transmission on a full-duplex link and reception of PFC frames.
 *
 * IEEE 802.1Qbb priority flow control: a PAUSE frame carries, per priority,
 * a pause time in quanta of 512 bit times at the link rate; the receiver stops
 * sending that priority until the time runs out or a PAUSE with time 0
 * (RESUME) arrives.  A frame already being transmitted is finished.  PAUSE
 * frames themselves bypass the priority queues and go out next.
 *
 * Serialization of B wire bytes at R bit/s takes B * 8e12 / R ps.  Common
 * rates (10/25/40/50/100/200/400 Gbps) divide 8e12, so the time per byte is an
 * exact integer; for other rates the remainder is carried from frame to frame
 * so that a long run does not drift.
 *
 * Link failure (fault link_down): a port on a failed link never transmits;
 * every frame queued at either end is dropped, and so is every frame that
 * was on the wire: each frame carries the sending port's link_gen, which the
 * failure bumps at both ends, and a frame that arrives with an older one is
 * lost.  PFC state on the link is cleared, because neither end can deliver
 * the RESUME that would lift a pause.
 *
 * Pause time is accounted per (port, priority) as closed intervals plus the
 * open one (port_paused_total), for the summary and for each flow's
 * paused_ns (switch.c, nic.c).  The PFC watchdog (pfcwd.c) may tell a port to
 * ignore PAUSE on a stormed priority; every PFC frame still counts as seen
 * for its restoration timer.
 */
#include "models/net.h"
#include "models/pfcwd.h"
#include "models/route.h"

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
    p->wake_pending = false;
    port_kick(p);
}

/* Whether anything may be waiting for this port's transmitter (a cheap, conservative test). */
static bool has_work(const struct net *n, const struct port *p)
{
    if (p->qmask)
        return true;
    if (p->is_host) {
        const struct host *h = n->node_host[p->node];
        for (int q = 0; q < NPRIO; q++)
            if (h->ready_head[q])
                return true;
    }
    return false;
}

static sim_time_t tx_time(struct port *p, uint32_t wire_bytes)
{
    if (p->ps_per_byte)
        return (sim_time_t)wire_bytes * p->ps_per_byte;
    struct port_aux *x = port_aux(p);
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
 * the engine anyway.  Measured in alternating windows of one run, k=32: -4 to
 * -6 % per hop (three runs; an A/A check of the method gave +-5 %).  Where the
 * line is still cached, streaming it out costs: k=8 +40 %, k=16 +3.5 %; k=24
 * (130,000-190,000 frames) was even, hence the threshold.  Five interleaved
 * `bench scale` runs: k=32 182 against 190 ns per hop (medians).
 */
static inline void wire_link(struct net *n, struct pkt *ahead, struct pkt *k, sim_time_t at, uint64_t seq)
{
#ifdef __x86_64__
    if (n->pkts.live > n->stream_min_frames) {
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
 * (in cache when it sends) and the arrival event carries its frame, so
 * neither end reads the other end's port for the list.
 */
static void wire_send(struct sim *s, struct port *p, struct pkt *k, sim_time_t at)
{
    uint64_t seq = sim_reserve_seq(s);
    k->next = NULL;
    if (p->wire_tail) {
        wire_link(p->net, p->wire_tail, k, at, seq);
    } else {
        sim_at_seq(s, at, seq, port_arrive, p->peer, (uint64_t)(uintptr_t)k);
    }
    p->wire_tail = k;
}

bool port_take_free(struct port *p)
{
    struct sim *s = p->net->sim;
    if (p->down)
        return false;
    if (!sim_before(s, p->busy_until, p->busy_seq))
        return true;
    /* Frames of one flow through an idle switch arrive exactly as the one ahead of them leaves: their
     * wake-ups were a fifth of all events at k=32. */
    return !p->wake_pending && p->busy_until == s->now && sim_take_due(s, p->busy_until, p->busy_seq);
}

void port_transmit(struct port *p, struct pkt *k)
{
    struct net *n = p->net;
    struct sim *s = n->sim;
    sim_time_t t = tx_time(p, k->size + WIRE_OVERHEAD);
    p->busy_until = s->now + t;
    p->busy_seq = sim_reserve_seq(s);
    k->link_gen = p->link_gen;
    p->tx_frames++;
    p->tx_bytes += k->size;
    n->c.packet_hops++;
    wire_send(s, p, k, s->now + t + p->delay_ps);
    if (!p->wake_pending && has_work(n, p)) {
        p->wake_pending = true;
        sim_at_seq(s, p->busy_until, p->busy_seq, tx_wake, p, 0);
    }
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
    struct sim *s = n->sim;
    if (sim_before(s, p->busy_until, p->busy_seq)) {
        if (!p->wake_pending) {
            p->wake_pending = true;
            sim_at_seq(s, p->busy_until, p->busy_seq, tx_wake, p, 0);
        }
        return;
    }
    struct pkt *k = portq_pop(p, NPRIO);
    if (!k)
        k = p->is_host ? nic_dequeue(n, n->node_host[p->node], p) : switch_dequeue(n, n->node_sw[p->node], p);
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

void port_send_pfc(struct port *p, int prio, uint16_t quanta)
{
    struct net *n = p->net;
    struct pkt *k = pkt_alloc(n);
    k->type = PKT_PAUSE;
    k->prio = (uint8_t)prio;
    k->size = FRAME_PAUSE;
    k->quanta = quanta;
    k->flow = UINT32_MAX;
    if (quanta) {
        n->c.pause_frames++;
        n->c.prio[prio].pause_frames++;
    } else {
        n->c.resume_frames++;
    }
    if (n->pfc_hook)
        n->pfc_hook(n->hook_ctx, n->sim->now, p->node, p->local, prio, quanta != 0);
    port_send_ctrl(p, k);
}

/* Adds the open pause interval of (p, prio), up to `now`, to the totals and restarts it at `now`. */
static void close_interval(struct port *p, int prio, sim_time_t now)
{
    struct net *n = p->net;
    struct port_prio *pp = port_pp(p, prio);
    sim_time_t d = now - pp->paused_since;
    n->paused_total += d;
    n->paused_prio[prio] += d;
    pp->paused_acc += d;
    pp->paused_since = now;
}

void port_unpause(struct port *p, int prio)
{
    uint8_t bit = (uint8_t)(1u << prio);
    if (!(p->paused & bit))
        return;
    struct net *n = p->net;
    close_interval(p, prio, n->sim->now);
    p->paused &= (uint8_t)~bit;
    if (!p->is_host)
        n->sw_paused--;
    sim_timer_cancel(&port_aux(p)->pause_expire[prio].tm);
    port_kick(p);
}

static void pause_expired(struct sim *s, void *obj, uint64_t arg)
{
    struct prio_timer *pt = obj;
    port_unpause(pt->port, pt->prio);
}

static void receive_pause(struct port *p, struct pkt *k)
{
    struct net *n = p->net;
    int prio = k->prio;
    uint8_t bit = (uint8_t)(1u << prio);
    if (n->wd)
        pfcwd_saw_pfc(n, p, prio);
    if (p->wd_ignore & bit) {
        /* The watchdog declared this queue stormed: its PAUSEs are ignored until restoration. */
        if (k->quanta)
            p->wd_overrode |= bit;
        return;
    }
    if (k->quanta == 0) {
        port_unpause(p, prio);
        return;
    }
    p->wd_overrode &= (uint8_t)~bit;
    if (!(p->paused & bit)) {
        p->paused |= bit;
        port_pp(p, prio)->paused_since = n->sim->now;
        if (!p->is_host)
            n->sw_paused++;
        if (!p->paused_seen)
            n->ports_ever_paused++;
        p->paused_seen |= bit;
    }
    /* Each PAUSE restarts the pause time (a refresh extends it). */
    struct port_aux *x = port_aux(p);
    sim_time_t dur = pause_quanta_ps(k->quanta, x->rate_bps);
    sim_timer_arm(n->sim, &x->pause_expire[prio].tm, n->sim->now + dur, pause_expired, &x->pause_expire[prio]);
}

/*
 * sim's prefetch hook for port_arrive (sim_add_prefetch), called two events
 * ahead and again one event ahead, with the port (whose line 0 holds the
 * ingress counters) and the frame already on their way into the cache.  At a
 * switch: two ahead, the switch and the routing entry; one ahead, the egress
 * port switch_receive will choose (resolved through route_egress from the
 * routing entry and the frame's ECMP hash), its two hot lines and the queue
 * of the frame's priority.  At a host, two ahead: the host and the lines of
 * the flow that the receiver (data) or the sender (ACK, NACK, CNP) updates
 * (struct flow's layout, net.h), and for data the queue line of the host's
 * port that the ACK will join.  It reads and never writes.
 */
static void port_arrive_prefetch(const void *obj, uint64_t arg, int ahead)
{
    const struct port *p = obj;
    const struct pkt *k = (const struct pkt *)(uintptr_t)arg;
    if (!k)
        return;
    const struct net *n = p->net;
    if (p->is_host) {
        if (ahead != 2)
            return;
        __builtin_prefetch(n->node_host[p->node]);
        if (k->flow >= n->n_flows)
            return;
        const char *f = (const char *)net_flow(n, k->flow);
        __builtin_prefetch(f);
        if (k->type == PKT_DATA) {
            __builtin_prefetch(f + 64);
            __builtin_prefetch(f + offsetof(struct flow, rcv_nxt));
            /* k=32: -2.6 % per hop (mean of six alternating-window runs; k=16 even) */
            __builtin_prefetch(net_port_pp(n, p, k->prio & (NPRIO - 1)));
        } else {
            __builtin_prefetch(f + offsetof(struct flow, snd_una));
            __builtin_prefetch(f + offsetof(struct flow, rto_timer));
            __builtin_prefetch(f + offsetof(struct flow, cc_state));
            __builtin_prefetch(f + offsetof(struct flow, cc_state) + 64);
        }
        return;
    }
    /* frames routed from the frame alone (pinned and Valiant ones read their flow: not prefetched) */
    bool routed = k->type != PKT_PAUSE && !k->route_flow && k->dst_host < n->g->n_hosts;
    if (ahead == 2) {
        /* the switch and the routing entry (the ingress counters are in the port's line 0) */
        __builtin_prefetch(n->node_sw[p->node]);
        if (routed)
            __builtin_prefetch(graph_nexthops_entry(n->g, p->node, k->dst_host));
        return;
    }
    if (!routed)
        return;
    /* The egress port as switch_receive will choose it, and its two hot lines and queue. */
    const struct sw *w = n->node_sw[p->node];
    uint8_t reached = 0;
    uint32_t e = route_egress(n->g, p->node, w->group, w->salt, k->hash, k->dst_host, NET_NO_VIA, -1, &reached);
    if (e == ROUTE_NO_PORT)
        return;
    const struct port *out = &w->ports[e];
    __builtin_prefetch(out);
    __builtin_prefetch((const char *)out + 64);
    __builtin_prefetch(net_port_pp(n, out, k->prio & (NPRIO - 1)));
}

/*
 * sim's prefetch hook for tx_wake at a switch port, whose frame has waited in
 * a queue long enough to leave the cache: two ahead, the line of the queue
 * that strict priority will serve (the port itself is in cache by then); one
 * ahead, that queue's head frame.  A host's port: nic_wake_prefetch.
 */
static void tx_wake_prefetch(const void *obj, uint64_t arg, int ahead)
{
    const struct port *p = obj;
    if (p->is_host) {
        nic_wake_prefetch(p, ahead);
        return;
    }
    int prio = sched_strict_pick((uint8_t)p->qmask & (uint8_t)~p->paused);
    if (prio < 0)
        return;
    const struct port_prio *pp = port_pp(p, prio);
    if (ahead == 2)
        __builtin_prefetch(pp);
    else if (pp->q.head)
        __builtin_prefetch(pp->q.head);
}

void port_register_prefetch(struct sim *s)
{
    if (sim_add_prefetch(s, port_arrive, port_arrive_prefetch) || sim_add_prefetch(s, tx_wake, tx_wake_prefetch)) {
        fprintf(stderr, "rocesim: bug: the engine has no room for the network's prefetch hooks (SIM_PF_MAX)\n");
        abort();
    }
}

void port_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct port *p = obj;
    struct pkt *k = (struct pkt *)(uintptr_t)arg;
    if (k->next)
        sim_at_seq(s, k->next_at, k->next_seq, port_arrive, p, (uint64_t)(uintptr_t)k->next);
    else
        p->peer->wire_tail = NULL; /* k was the sender's last frame on the wire */
    struct net *n = p->net;
    if (k->link_gen != p->link_gen) {
        net_drop(n, k, DROP_LINK_DOWN);
        return;
    }
    if (k->type == PKT_PAUSE) {
        receive_pause(p, k);
        pkt_free(n, k);
        return;
    }
    if (p->is_host)
        nic_receive(n, n->node_host[p->node], k);
    else
        switch_receive(n, n->node_sw[p->node], p, k);
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
 * that the frames on the wire are lost on arrival; ends the pauses imposed on
 * p by its peer (their time counts until now) and the pauses p imposes on its
 * peer (the refresh stops); drops p's queued frames as `link_down` (switch
 * ports release their buffer accounting).  No return value.
 */
void port_link_fail(struct port *p)
{
    struct net *n = p->net;
    p->link_gen++;
    for (int prio = 0; prio < NPRIO; prio++) {
        if (p->paused & (1u << prio)) {
            close_interval(p, prio, n->sim->now);
            if (!p->is_host)
                n->sw_paused--;
        }
        sim_timer_cancel(&port_aux(p)->pause_expire[prio].tm);
        p->pause_sent &= (uint8_t)~(1u << (prio));
        sim_timer_cancel(&port_aux(p)->pause_refresh[prio].tm);
    }
    p->paused = 0;
    struct pkt *k;
    while ((k = portq_pop(p, NPRIO)))
        net_drop(n, k, DROP_LINK_DOWN);
    if (p->is_host) {
        for (int prio = 0; prio < NPRIO; prio++)
            while ((k = portq_pop(p, prio)))
                net_drop(n, k, DROP_LINK_DOWN);
    } else {
        switch_flush_port(n, n->node_sw[p->node], p);
    }
}
