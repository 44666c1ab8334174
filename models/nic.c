/*
 * nic — the host NIC: RoCE v2 reliable connections (one flow = one queue pair).
 *
 * Sender: flows of the same priority share the port round robin, each paced at
 * its congestion control's rate (cc.h: DCQCN's Rc, or line rate with cc "none"; never above
 * the flow's own cap): after a frame of W wire bytes the flow may send again
 * W * 8 / rate later, and a window (flow.cc_wnd, when its algorithm sets one)
 * holds it while the unacknowledged bytes fill the window.  Which PSN goes
 * next, what an ACK or NACK moves and what a timeout resends are the flow's
 * transport's (transport.h: go-back-N by default, transport_gbn.h: on NACK(e)
 * resume from PSN e; after `rto` without progress resume from the oldest
 * unacknowledged PSN).  The NIC keeps the timer.  The timeout may be the QP's
 * (InfiniBand Architecture Specification, Local ACK Timeout): `qp_timeout` t
 * gives rto = 4.096 us x 2^t, and after `retry_count` timeouts in a row
 * without progress the flow fails (the QP's retry-exceeded error).  A timeout
 * is spurious when nothing of the flow above its oldest unacknowledged PSN
 * was dropped since its last timeout (flow.lost_hi, kept by net_lost and net_timeout).
 *
 * Receiver: the transport says what answers a data frame (go-back-N: a
 * cumulative ACK every `ack_every` in-order packets and at the last one, one
 * NACK per PSN gap, the out-of-order packets discarded, duplicates
 * re-acknowledged); the NIC builds and queues it.  A flow completes twice: at
 * the receiver when it holds the last byte (flow.finish, rocesim's FCT) and at the
 * sender when the ACK of the last byte arrives (flow.acked, the FCT the HPCC paper's
 * ns-3 simulator reports).
 *
 * The port's scheduler (sched.c: strict or DWRR, as configured for switches)
 * chooses among priorities, as a NIC with ETS does.
 *
 * Notification point: the flow's congestion control sees every data frame
 * the receiver gets and decides whether a CNP goes back (cc_dcqcn.c: one per
 * CE-marked frame, at most one per flow per `cnp_interval`).  CNPs travel at
 * `cnp_priority`; ACKs and NACKs at `ack_priority` (by default the flow's
 * priority), ahead of data of that priority.  An ACK or NACK echoes the CE mark of the data frame that caused
 * it (ECN_ECE, DCTCP's ECN-Echo: a flag in the frame, no extra traffic).  An INT record a data frame carries (telemetry.h) goes back in the
 * ACK or NACK it causes.
 *
 * A flow that is ready to send while its priority is paused at the NIC port
 * is a packet held by PAUSE: the port's paused-time total is noted when the
 * flow becomes ready and the difference is added to its paused_ns when it
 * sends.  A host under a slow_receiver fault passes arriving frames through
 * its receive pipeline first (its rx_divert, which fault.c sets).  A flow that
 * another model started and waits for (a collective's step) tells that model
 * when it ends, through its owner's hooks (struct flow_owner, net.h).
 *
 * Queue pairs (struct nic_qp, nic.h): flows a model posts to one queue pair go to the wire in order, as an RC
 * queue pair's send queue is processed (InfiniBand Architecture Specification vol. 1, ch. 9 and 10: the work
 * requests of a send queue are executed in the order they were posted; NVIDIA's RDMA Aware Networks Programming
 * User Manual, "ibv_post_send"): a flow started while an earlier one of its QP still has data to send waits,
 * neither started nor ready, and starts when that one's last data frame leaves for the first time, so that one
 * connection's messages are serialized one after another instead of sharing the link side by side.  A resend
 * (go-back-N) does not hold the next message back.  Among QPs the port's round robin stays as it is.  A flow
 * that fails passes its turn on (the QP's error state, which would flush the rest, is not modelled).
 */
#include "models/cc.h"
#include "models/nic.h"
#include "models/lb.h"
#include "models/mech.h"
#include "models/port.h"
#include "models/entropy.h"
#include "models/transport.h"

#include "sim/module.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static void check_done(struct net *n) { net_check_finish(n); }

static double flow_rate(const struct net *n, const struct flow *f)
{
    double r = cc_rate(f);
    if (f->rate_cap_bps && (double)f->rate_cap_bps < r)
        r = (double)f->rate_cap_bps;
    return r;
}

/* Puts f on its port's ready list if it may send; returns that port, or NULL. */
static struct port *ready_link(struct net *n, struct flow *f)
{
    if (f->in_ready || f->pace_timer.armed || !f->started || f->sender_done || f->snd_nxt >= f->n_pkts)
        return NULL;
    if (__builtin_expect(f->cc_wnd != 0, 0) && (uint64_t)(f->snd_nxt - f->snd_una) * f->mtu >= f->cc_wnd &&
        !(transport_of(f->transport)->flags & TRANSPORT_F_WINDOW))
        return NULL; /* an ACK that opens the window makes it ready */
    struct host *h = &n->hosts[f->src];
    struct host_ready *r = host_ready_of(h, f->sport);
    struct port *p = h->port + f->sport;
    f->in_ready = true;
    f->ready_mark = port_paused_total(p, f->prio, net_sim(n)->now);
    f->ready_next = NULL;
    if (r->tail[f->prio])
        r->tail[f->prio]->ready_next = f;
    else
        r->head[f->prio] = f;
    r->tail[f->prio] = f;
    return p;
}

static void make_ready(struct net *n, struct flow *f)
{
    struct port *p = ready_link(n, f);
    if (p)
        port_kick(p);
}

/* Whether f must wait for an earlier flow of its queue pair; if not, it holds the QP's turn. */
static bool qp_wait(struct flow *f)
{
    struct nic_qp *q = f->qp;
    if (!q->busy) {
        q->busy = true;
        return false;
    }
    f->ready_next = NULL;
    if (q->tail)
        q->tail->ready_next = f;
    else
        q->head = f;
    q->tail = f;
    return true;
}

/* The flow holding q's turn has sent its last data frame (or failed): the next one waiting starts.  Called while
 * port `from` chooses its frame: a flow of that port is only linked, as the port looks for more work once its
 * frame is on the wire; another port is kicked. */
static void qp_pass(struct net *n, struct nic_qp *q, const struct port *from)
{
    struct flow *f = q->head;
    if (!f) {
        q->busy = false;
        return;
    }
    q->head = f->ready_next;
    if (!q->head)
        q->tail = NULL;
    f->ready_next = NULL;
    f->started = true;
    cc_init(f, net_sim(n)->now);
    struct port *p = ready_link(n, f);
    if (p && p != from)
        port_kick(p);
}

static void pace_done(struct sim *s, void *obj, uint64_t arg)
{
    struct flow *f = obj;
    SIM_ASSERT_ENT(s, flow_sender_ent(f));
    make_ready(f->net, f);
}

static void rto_fired(struct sim *s, void *obj, uint64_t arg);

/* Whether the timer of f, whose transport is not go-back-N, fired with nothing in flight (transport_ops.idle). */
static __attribute__((noinline)) bool transport_idle(const struct flow *f)
{
    const struct transport_ops *t = transport_registry[f->transport];
    return t->idle && t->idle(f);
}

/* The timeout of a flow whose transport chooses its own (transport_ops.rto), else host.rto's: out of line, so that
 * go-back-N's arming pays one test. */
static __attribute__((noinline)) sim_time_t transport_rto(const struct flow *f, sim_time_t rto)
{
    const struct transport_ops *t = transport_registry[f->transport];
    return t->rto ? t->rto(f, rto) : rto;
}

static inline __attribute__((always_inline)) void arm_rto(struct net *n, struct flow *f)
{
    sim_time_t rto = n->hosts[f->src].tp->rto_ps;
    if (__builtin_expect(f->transport != TRANSPORT_GBN, 0))
        rto = transport_rto(f, rto);
    sim_timer_arm(net_sim(n), &f->rto_timer, net_sim(n)->now + rto, rto_fired, f);
}

/* The sender gives up on f, as a QP whose retries ran out goes to the error state: nothing more is sent. */
/* Takes f, whose sender is done, off its port's ready list: by a walk, once per flow at most, never per frame. */
static __attribute__((noinline)) void ready_unlink(struct net *n, struct flow *f)
{
    struct host_ready *r = host_ready_of(&n->hosts[f->src], f->sport);
    struct flow **pp = &r->head[f->prio], *prev = NULL;
    while (*pp != f) {
        prev = *pp;
        pp = &(*pp)->ready_next;
    }
    *pp = f->ready_next;
    if (r->tail[f->prio] == f)
        r->tail[f->prio] = prev;
    f->in_ready = false;
}

static void flow_fail(struct net *n, struct flow *f)
{
    f->failed = true;
    f->sender_done = true;
    net_np(n)->c.flows_failed++;
    sim_timer_cancel(&f->rto_timer);
    sim_timer_cancel(&f->pace_timer);
    if (f->in_ready)
        ready_unlink(n, f);
    cc_release(f);
    if (f->qp && f->snd_max < f->n_pkts)
        qp_pass(n, f->qp, NULL);
    net_np(n)->flows_active--;
    check_done(n);
}

static void rto_fired(struct sim *s, void *obj, uint64_t arg)
{
    struct flow *f = obj;
    struct net *n = f->net;
    SIM_ASSERT_ENT(s, flow_sender_ent(f));
    if (f->sender_done)
        return;
    if (__builtin_expect(f->transport != TRANSPORT_GBN, 0) && transport_idle(f)) {
        transport_on_timeout(f); /* its own wake-up, nothing in flight: not a timeout */
        arm_rto(n, f);
        make_ready(n, f);
        return;
    }
    f->timeouts++;
    net_np(n)->c.timeouts++;
    net_timeout(n, f); /* spurious or not: decided in the order of the drops (net.h) */
    const struct transport_params *tp = n->hosts[f->src].tp;
    if (tp->qp_timeout >= 0 && ++f->retries > tp->retry_count) {
        flow_fail(n, f);
        return;
    }
    transport_on_timeout(f);
    arm_rto(n, f);
    make_ready(n, f);
}

void nic_flow_start(struct sim *s, void *obj, uint64_t arg)
{
    struct flow *f = obj;
    struct net *n = f->net;
    SIM_ASSERT_ENT(s, flow_sender_ent(f));
    if (__builtin_expect(f->qp != NULL, 0) && qp_wait(f))
        return;
    f->started = true;
    cc_init(f, s->now);
    make_ready(n, f);
}

/* Data frame k of PSN psn in a network that spreads a flow's packets (lb.h): the switches that balance see it
 * (ROUTE_BALANCED), and a NIC that sprays (host.entropy "packet") gives it a UDP source port of its own, which
 * ECMP switches hash. */
static __attribute__((noinline)) void spread(const struct host *h, struct pkt *k, uint32_t psn)
{
    k->route_flow |= ROUTE_BALANCED;
    if (h->nic->entropy == entropy_packet)
        k->hash = rng_mix32(k->hash ^ rng_mix32(psn + 1));
}

/* Builds the next data packet of flow f (the head of a ready list of port p). */
static struct pkt *make_data(struct net *n, const struct host *h, struct flow *f, const struct port *p)
{
    struct pkt *k = pkt_alloc(n);
    uint32_t psn = f->snd_nxt;
    transport_sent(f);
    uint32_t payload = psn + 1 == f->n_pkts ? (uint32_t)(f->size - (int64_t)psn * f->mtu) : f->mtu;
    k->type = PKT_DATA;
    k->flow = f->idx;
    f->data_tx++;
    k->psn = psn;
    k->size = payload + n->fr.hdr_data;
    k->prio = f->prio;
    k->ecn = ECN_ECT;
    k->dst_host = f->dst;
    k->hash = f->hash_fwd;
    k->route_flow = f->path_len || f->via_host != NET_NO_VIA;
    if (__builtin_expect(n->lb_any, 0))
        spread(h, k, psn);
    if (__builtin_expect(f->transport != TRANSPORT_GBN, 0))
        transport_stamp(f, k);
    if (psn < f->snd_max) {
        f->retx_bytes += payload;
        net_np(n)->c.data_retx++;
        /* Karn's rule: the ACK that would complete the sample may now answer this copy; rtt_psn is 0 without
         * CC_F_RTT, so no flag test is needed. */
        if (__builtin_expect(f->rtt_psn > psn, 0))
            f->rtt_psn = 0;
    } else {
        f->snd_max = psn + 1;
        if (__builtin_expect(f->qp != NULL, 0) && psn + 1 == f->n_pkts)
            qp_pass(n, f->qp, p);
        /* One RTT sample in flight at a time, on new data only (Karn's rule: a resent PSN's ACK is ambiguous). */
        if (__builtin_expect(f->cc_flags & CC_F_RTT, 0) && !f->rtt_psn) {
            f->rtt_psn = psn + 1;
            f->rtt_sent = net_sim(n)->now;
        }
    }
    if (__builtin_expect(f->cc_flags & CC_F_TELEMETRY, 0)) {
        k->tel = int_get(net_np(n)->tel);
        k->size += INT_HDR_BYTES;
    }
    struct net_counters *c = &net_np(n)->c;
    c->data_sent++;
    c->prio[k->prio].sent++;
    c->bytes_sent += k->size;
    c->data_in_flight++;
    c->data_bytes_in_flight += k->size;
    cc_on_sent(f, k->size);
    if (!f->rto_timer.armed)
        arm_rto(n, f);
    if (f->snd_nxt < f->n_pkts) {
        double rate = flow_rate(n, f);
        sim_time_t gap = (sim_time_t)((double)(k->size + n->fr.wire) * 8e12 / rate + 0.5);
        sim_timer_arm(net_sim(n), &f->pace_timer, net_sim(n)->now + gap, pace_done, f);
    }
    return k;
}

/* Size of the next data frame of flow f. */
static uint32_t next_data_size(const struct net *n, const struct flow *f)
{
    uint32_t psn = f->snd_nxt;
    uint32_t payload = psn + 1 == f->n_pkts ? (uint32_t)(f->size - (int64_t)psn * f->mtu) : f->mtu;
    return payload + n->fr.hdr_data + (f->cc_flags & CC_F_TELEMETRY ? INT_HDR_BYTES : 0);
}

/* The priorities host h's port p may send now: a control frame queued or a flow ready, and not paused. */
static uint8_t host_eligible(const struct host *h, const struct port *p, const struct host_ready *r)
{
    uint8_t eligible = 0;
    for (int q = 0; q < NPRIO; q++)
        if ((p->qmask & (1u << q)) || r->head[q])
            eligible |= (uint8_t)(1u << q);
    return eligible & (uint8_t)~p->paused;
}

struct pkt *nic_dequeue(struct net *n, struct host *h, struct port *p)
{
    /* Within a priority, control frames (ACK, NACK, CNP) go before data. */
    struct host_ready *r = host_ready_of(h, (uint32_t)(p - h->port));
    uint8_t eligible = host_eligible(h, p, r);
    uint32_t head[NPRIO];
    if (sched_weighs_sizes(n->sched))
        for (uint8_t m = eligible; m; m &= (uint8_t)(m - 1)) {
            int q = __builtin_ctz(m);
            head[q] = p->qmask & (1u << q) ? port_pp(p, q)->q.head->size : next_data_size(n, r->head[q]);
        }
    int prio = sched_pick(n->sched, &port_aux(p)->sched, eligible, head, n->host_frame);
    if (prio < 0)
        return NULL;
    if (p->qmask & (1u << prio))
        return portq_pop(p, prio);
    struct flow *f = r->head[prio];
    r->head[prio] = f->ready_next;
    if (!f->ready_next)
        r->tail[prio] = NULL;
    f->in_ready = false;
    /* The priority is not paused now, so its closed intervals cover the whole wait. */
    sim_time_t held = port_paused_closed(p, prio) - f->ready_mark;
    if (held) /* atomic, as the switches' additions (switch.c) */
        __atomic_fetch_add(&f->paused_ns, held, __ATOMIC_RELAXED);
    return make_data(n, h, f, p);
}

/* InfiniBand returns a BECN on the VL of the packet that carried the FECN (no priority of its own). */
static inline uint8_t cnp_prio(const struct net *n, const struct host *h, const struct flow *f)
{
    return n->sl2vl ? f->prio : (uint8_t)h->nic->cnp_priority;
}

/* Queues a control frame (ACK, NACK, CNP) of flow f at host h, towards the flow's sender; an ACK or NACK echoes
 * the INT record of the data frame that caused it. */
static void send_ctrl(struct net *n, struct host *h, struct flow *f, int type, uint32_t psn, uint16_t sack,
                      uint32_t rec, struct pkt *data)
{
    struct pkt *k = pkt_alloc(n);
    k->type = (uint8_t)type;
    k->flow = f->idx;
    f->ctl_tx++;
    k->psn = psn;
    k->quanta = sack;
    k->dst_host = f->src;
    k->hash = f->hash_rev;
    if (type == PKT_CNP) {
        k->size = n->fr.frame_cnp;
        k->prio = cnp_prio(n, h, f);
    } else {
        int ap = h->tp->ack_priority;
        k->size = n->fr.frame_ack;
        k->prio = ap < 0 ? f->prio : (uint8_t)ap;
        k->ecn = (uint8_t)(data->ecn & ECN_CE); /* ECN_ECE: DCTCP's echo, one store for every algorithm */
        if (__builtin_expect(rec != 0, 0)) {
            k->tel = rec; /* the transport's own record: what its ACK says beyond the frame's fields (the data
                           * frame's own, a UET pull target, goes with it) */
        } else if (__builtin_expect(data->tel != 0, 0)) {
            k->size += int_wire_bytes(net_int_rec(n, data->tel));
            int_echo(k, data);
        }
    }
    if (f->path_len) {
        k->route_flow = ROUTE_BY_FLOW;
        k->reverse = 1;
        k->hop = (uint8_t)(f->path_len - 1);
    }
    struct port *p = h->port + f->rport;
    portq_push(p, k->prio, k);
    port_kick(p);
}


/* See nic.h.  A PULL leaves the receiver as an ACK does (its port, priority, reverse path), an RTS the sender as its
 * data does. */
void nic_send_ctrl(struct net *n, struct flow *f, int type, uint32_t psn, uint8_t tflags, uint32_t rec)
{
    bool back = type == PKT_PULL;
    struct host *h = &n->hosts[back ? f->dst : f->src];
    struct pkt *k = pkt_alloc(n);
    k->type = (uint8_t)type;
    k->flow = f->idx;
    k->psn = psn;
    k->tflags = tflags;
    k->tel = rec;
    k->size = n->fr.frame_ack;
    int ap = h->tp->ack_priority;
    k->prio = ap < 0 ? f->prio : (uint8_t)ap;
    k->dst_host = back ? f->src : f->dst;
    k->hash = back ? f->hash_rev : f->hash_fwd;
    if (f->path_len) {
        k->route_flow = ROUTE_BY_FLOW;
        k->reverse = back;
        k->hop = back ? (uint8_t)(f->path_len - 1) : 0;
    }
    if (back) {
        f->ctl_tx++;
        net_np(n)->c.pulls_sent++;
    } else {
        f->data_tx++;
        net_np(n)->c.rts_sent++;
    }
    struct port *p = h->port + (back ? f->rport : f->sport);
    portq_push(p, k->prio, k);
    port_kick(p);
}

/* Receiver h sends flow f's sender a CNP. */
static void send_cnp(struct net *n, struct host *h, struct flow *f)
{
    net_np(n)->c.cnp_sent++;
    struct port_ctr *c = net_ctr(n, h->port + f->rport, cnp_prio(n, h, f));
    if (c)
        c->cnp_tx++;
    send_ctrl(n, h, f, PKT_CNP, 0, 0, 0, NULL);
}

/*
 * host.nack_cnp: the NACK that answers frame k (data ahead of a PSN still expected, or a trimmed frame) goes with a
 * CNP, as if k had been CE-marked: the congestion control decides, within its CNP interval.  A CE-marked k has had
 * its chance.
 */
static __attribute__((noinline)) void nack_cnp(struct net *n, struct host *h, struct flow *f, const struct pkt *k,
                                               sim_time_t now)
{
    if (k->ecn & ECN_CE)
        return;
    struct pkt marked = *k;
    marked.ecn |= ECN_CE;
    if (cc_on_data(f, &marked, now)) {
        net_np(n)->c.cnp_nack++;
        send_cnp(n, h, f);
    }
}

/* Sends the transport's reply r to frame k of flow f (an ACK or a NACK; nothing when r.type is 0). */
static inline void send_reply(struct net *n, struct host *h, struct flow *f, struct transport_reply r, struct pkt *k)
{
    if (!r.type)
        return;
    if (r.type == PKT_NACK) {
        net_np(n)->c.nacks_sent++;
        if (__builtin_expect(h->tp->nack_cnp, 0))
            nack_cnp(n, h, f, k, net_sim(n)->now);
    }
    send_ctrl(n, h, f, r.type, r.psn, r.sack, r.rec, k);
}

static void receive_data(struct net *n, struct host *h, struct pkt *k)
{
    struct flow *f = net_flow(n, k->flow);
    f->data_rx++;
    sim_time_t now = net_sim(n)->now;
    struct net_counters *nc = &net_np(n)->c;
    nc->data_delivered++;
    nc->prio[k->prio].delivered++;
    nc->prio[k->prio].bytes_delivered += k->size;
    nc->bytes_delivered += k->size;
    nc->data_in_flight--;
    nc->data_bytes_in_flight -= k->size;
    if (cc_on_data(f, k, now))
        send_cnp(n, h, f);
    struct transport_reply r = transport_on_data(f, k, (uint32_t)h->tp->ack_every);
    /* Completed before the reply is queued: a collective's next step starts in the order it always did. */
    if (f->rcv_nxt == f->n_pkts && f->finish < 0) {
        f->finish = now;
        net_np(n)->flows_completed++;
        NET_NOTIFY(n, flow, f);
        if (f->owner)
            f->owner->ops->received(n, f);
    }
    send_reply(n, h, f, r, k);
    pkt_free(n, k);
    if (__builtin_expect(f->step, 0))
        net_step_end(n, f);
    check_done(n);
}

/* What a switch left of data frame k (trim.c): the transport answers the loss at once.  The frame is freed by the
 * caller. */
static void receive_trimmed(struct net *n, struct host *h, struct pkt *k)
{
    struct flow *f = net_flow(n, k->flow);
    if (f->finish >= 0)
        return; /* a late notice: the receiver holds it all */
    send_reply(n, h, f, transport_on_trimmed(f, k), k);
}

/* A control frame of the transport's own (nic_send_ctrl): a PULL at the sender, an RTS at the receiver. */
static void receive_ctrl(struct net *n, struct pkt *k)
{
    struct flow *f = net_flow(n, k->flow);
    bool (*on_ctrl)(struct flow *, const struct pkt *) = transport_registry[f->transport]->on_ctrl;
    if (k->type == PKT_PULL) {
        f->ctl_rx++;
        if (!f->sender_done && on_ctrl && on_ctrl(f, k))
            make_ready(n, f);
    } else {
        f->data_rx++;
        if (f->finish < 0 && on_ctrl)
            on_ctrl(f, k);
    }
    if (__builtin_expect(f->step, 0))
        net_step_end(n, f);
}

static void receive_ack(struct net *n, struct pkt *k)
{
    struct flow *f = net_flow(n, k->flow);
    f->ctl_rx++;
    if (f->sender_done) {
        if (__builtin_expect(f->step, 0))
            net_step_end(n, f);
        return;
    }
    struct cc_ack a; /* psn, newly_acked and nack from the transport; the rest only for an algorithm that reads it */
    transport_on_ack(f, k, &a);
    if (a.newly_acked) {
        f->retries = 0;
        arm_rto(n, f);
    } else if (__builtin_expect(f->transport != TRANSPORT_GBN, 0) && a.nack_bytes) {
        arm_rto(n, f); /* the packet the timeout watched may be the one lost: it counts from another (UET) */
    }
    if (__builtin_expect(f->cc_flags & CC_FLOW_ON_ACK, 0)) {
        a.ece = (k->ecn & ECN_ECE) != 0;
        a.tel = k->tel && !(transport_of(f->transport)->flags & TRANSPORT_F_RECORDS) ? net_int_rec(n, k->tel) : NULL;
        if (f->transport == TRANSPORT_GBN)
            a.rtt = 0; /* another transport zeroed a and may have filled it (transport_on_ack) */
        if ((f->cc_flags & CC_F_RTT) && f->rtt_psn && a.psn >= f->rtt_psn && !a.nack) {
            a.rtt = net_sim(n)->now - f->rtt_sent;
            f->rtt_psn = 0;
        }
        flow_cc(f)->on_ack(f, &a, net_sim(n)->now);
    }
    /* After the congestion control, which may read snd_nxt, has seen the ACK as it came. */
    if (transport_recover(f, k))
        make_ready(n, f);
    else if (__builtin_expect(f->cc_wnd != 0, 0) && a.newly_acked)
        make_ready(n, f); /* the window may have opened */
    if (f->snd_una >= f->n_pkts) {
        f->sender_done = true;
        f->acked = net_sim(n)->now; /* the FCT other simulators report (flow.acked) */
        sim_timer_cancel(&f->rto_timer);
        sim_timer_cancel(&f->pace_timer);
        /* a transport that chose a resend (a timeout) before this ACK covered it left the flow waiting for its
         * port's turn: nothing of it is to be sent now */
        if (__builtin_expect(f->in_ready, 0))
            ready_unlink(n, f);
        cc_release(f);
        net_np(n)->flows_active--;
        if (f->owner)
            f->owner->ops->acked(n, f);
        if (__builtin_expect(f->step, 0))
            net_step_end(n, f);
        check_done(n);
    }
}

static void receive_cnp(struct net *n, struct pkt *k)
{
    struct flow *f = net_flow(n, k->flow);
    net_np(n)->c.cnp_received++;
    f->cnps_rx++;
    f->ctl_rx++;
    if (!f->sender_done)
        cc_on_cnp(f, net_sim(n)->now);
    else if (__builtin_expect(f->step, 0))
        net_step_end(n, f);
}

void nic_receive(struct net *n, struct host *h, struct pkt *k)
{
    if (__builtin_expect(h->rx_divert != NULL, 0)) {
        h->rx_divert(n, h, k);
        return;
    }
    nic_process(n, h, k);
}

void nic_process(struct net *n, struct host *h, struct pkt *k)
{
    switch (k->type) {
    case PKT_DATA:
        receive_data(n, h, k);
        return;
    case PKT_ACK:
    case PKT_NACK:
        receive_ack(n, k);
        break;
    case PKT_CNP: {
        struct port_ctr *c = net_ctr(n, h->port + net_flow(n, k->flow)->sport, k->prio);
        if (c)
            c->cnp_rx++;
        receive_cnp(n, k);
        break;
    }
    default:
        /* here, not cases of their own: rare frames should not cost the others a test */
        if (k->type == PKT_TRIM) {
            receive_trimmed(n, h, k);
        } else if (k->type == PKT_PULL || k->type == PKT_RTS) {
            receive_ctrl(n, k);
        } else {
            fprintf(stderr, "rocesim: bug: host received frame type %d\n", k->type);
            abort();
        }
        break;
    }
    pkt_free(n, k);
}

/*
 * The engine's prefetch hooks for a host's sending side (registered with the
 * network's own on large fabrics, net_init).  Sending a data frame touches a
 * flow's sender lines and the host's ready lists, each cold in a large fabric:
 * - a flow's pacing timer (pace_done -> make_ready): two ahead, the host and
 *   the flow's ready-list and pause-mark lines; one ahead, the host's port and
 *   the flow at the tail of the ready list it joins;
 * - a host port's transmitter wake-up (nic_dequeue -> make_data): two ahead,
 *   the host; one ahead, the lines of the ready flow that strict priority
 *   would serve (with DWRR a guess, which only wastes the prefetch).
 * They read and never write (what they gain: docs/performance.md).
 */
static void pace_done_prefetch(const void *obj, uint64_t arg, int ahead)
{
    const struct flow *f = obj;
    const struct host *h = &f->net->hosts[f->src];
    if (ahead == 2) {
        __builtin_prefetch(h);
        __builtin_prefetch((const char *)f + offsetof(struct flow, in_ready));
        __builtin_prefetch((const char *)f + offsetof(struct flow, ready_mark));
        return;
    }
    __builtin_prefetch(h->port);
    const struct flow *t = f->sport ? NULL : h->ready.tail[f->prio & (NPRIO - 1)];
    if (t)
        __builtin_prefetch(&t->ready_next);
}

void nic_wake_prefetch(const struct port *p, int ahead)
{
    const struct host *h = p->net->node_host[p->node];
    if (ahead == 2) {
        __builtin_prefetch(h);
        return;
    }
    const struct host_ready *r = p == h->port ? &h->ready : &h->more[p - h->port - 1].ready;
    int prio = sched_strict_pick(host_eligible(h, p, r));
    if (prio < 0 || ((p->qmask >> prio) & 1))
        return; /* nothing to send, or a control frame, which was queued in cache */
    const char *f = (const char *)r->head[prio];
    for (size_t off = 0; off < offsetof(struct flow, rto_timer) + sizeof(struct sim_timer); off += 64)
        __builtin_prefetch(f + off);
    __builtin_prefetch(f + offsetof(struct flow, cc_state));
}

/* On the fabrics where the ports' hooks pay (port.c's register_prefetch). */
static void register_prefetch(struct net *n)
{
    if (n->g->n_ports <= NET_PREFETCH_MIN_PORTS)
        return;
    if (sim_add_prefetch(n->sim, pace_done, pace_done_prefetch)) {
        fprintf(stderr, "rocesim: bug: the engine has no room for the NIC's prefetch hook (SIM_PF_MAX)\n");
        abort();
    }
}

static const struct net_mech_ops nic_mech = {.name = "nic", .order = 20, .init = register_prefetch};
NET_MECH(nic_mech)

/* ---- The NIC's settings (nic.h): the first fields of the host object ---- */

static int check_nic(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct nic_params *p = base;
    char q[SETTING_PATH_MAX];
    (void)obj;
    const struct entropy_ops *e = entropy_registry[p->entropy];
    if ((p->entropy_paths & (p->entropy_paths - 1)) && !(e && e->any_paths))
        return setting_bad(sc, setting_join(q, path, "entropy_paths"), "expected a power of two (oblivious, bitmap "
                           "and mixed go round the values with masks; only reps takes any number), got %d",
                           p->entropy_paths);
    return 0;
}

static const struct setting nic_fields[] = {
    {SET_INT("mtu", struct nic_params, mtu, 256, 9000, "1024", "RoCE payload bytes per data packet")},
    {SET_INT("priority", struct nic_params, priority, 0, 7, "3", "Priority of data packets"),
     .flags = SETTING_CLASS},
    {SET_INT("cnp_priority", struct nic_params, cnp_priority, 0, 7, "6",
             "Priority of congestion notification packets"), .flags = SETTING_CLASS},
    {SET_MODULE("entropy", struct nic_params, entropy, "entropy", "flow",
                "The entropy (UDP source port) of a flow's data packets, which ECMP switches hash: one per flow "
                "(\"flow\"), one per packet (\"packet\", a spraying NIC), or chosen per packet among entropy_paths "
                "values from what comes back (\"oblivious\", \"bitmap\", \"reps\", \"mixed\": under "
                "loss_recovery \"uet\")")},
    {SET_INT("entropy_paths", struct nic_params, entropy_paths, 1, 65536, "64",
             "Entropy values a flow's sender chooses among under oblivious, bitmap, reps and mixed (a power of two but "
             "for reps)")},
    {SET_CHECK(check_nic)},
    {0},
};

/* Flat (fields of the host object itself), naming no field to follow: the first of the object. */
static const struct setting_group nic_group = {
    .path = "host/nic", .size = sizeof(struct nic_params), .fields = nic_fields,
};
SETTINGS_REGISTER("nic", &nic_group);

/* See nic.h. */
const struct nic_params *nic_params_of(const struct scn_host *h)
{
    return SETTINGS_OF(h, nic_group, struct nic_params);
}

/* A traffic entry that gives no priority sends at its sender's host.priority (scn_host_priority, sim/scenario.h). */
static int host_priority(const struct scn_host *h)
{
    return nic_params_of(h)->priority;
}

__attribute__((constructor)) static void nic_settings_init(void)
{
    scn_host_priority = host_priority;
}
