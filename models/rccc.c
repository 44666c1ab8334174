/*
 * rccc — Ultra Ethernet's receiver credit-based congestion control (RCCC; UEC Specification 1.0, 2025, the
 * congestion management sublayer's receiver-based mode, whose choices are taken as the UEC consortium's reference
 * simulator htsim_uec takes them: ultraethernet/uet-htsim, htsim/sim/uec.cpp, UecSrc's credit, UecSink's pull
 * target and UecPullPacer).  host.uet.rccc, for flows of host.loss_recovery "uet" (transport_uet.c).
 *
 * Sender.  A packet goes only while its credit C > 0 (so C may end up to one frame below 0), and spends its frame's
 * bytes.  It starts with speculative credit C = M, where
 *     M = host.uet.max_credit x BDP,   BDP = base RTT x line rate / 8,
 * base RTT being host.uet.base_rtt (the reference's default: its network's largest unloaded round trip) or, when
 * 0, the flow's own unloaded one (a full data frame there and an ACK back on the empty network; the reference's
 * -enable_accurate_base_rtt).  The first ACK, NACK or PULL ends the speculation: what is left of C above 0 goes.
 * Every data frame (and RTS) carries the pull target, in quanta of Q = 256 bytes:
 *     want = backlog + resends          (frame bytes never sent, and queued for resend)
 *     want = min(want, cwnd + frame)    when a congestion control keeps a window (flow.cc_wnd: NSCC)
 *     want = min(want, M) - C;  want = frame if speculating, want < frame and backlog > 0
 *     want = want / A                   (A: its host's flows with credit and something to send, itself counted)
 *     target = ceil((pull x Q + want) / Q)
 * with pull the highest pull counter heard.  A PULL of counter p > pull adds (p - pull) x Q to C, capped at M.  The
 * frame that leaves C <= 0 asks for an ACK at once (AR).  When its timeout fires with resends already queued, or
 * with C <= 0, the sender sends an RTS (an ACK-sized frame with its pull target) unless it sent one less than a
 * base RTT ago.
 *
 * Receiver.  One pull pacer per receiving host, shared by every flow into it.  A flow joins its active list when a
 * frame raises its pull target, and on a trimmed frame or an RTS even when it does not.  Each pacer event serves
 * the head of the active list: its pull counter grows by min(host.uet.pull_credit, target - pulled) and a PULL
 * carries it back; the flow goes to the tail while target > pulled, else to the idle list.  With no active flow
 * the head of the idle list gets a slow pull of pull_credit it did not ask for, and stays idle while it has
 * nothing asked and has been given less than floor(M / Q) quanta beyond its target.  The next event follows
 *     (granted quanta, or 4 when nothing was granted) x Q x 8 / (pull_rate x line rate)
 * seconds later, line rate being the sum of the host's ports' (the reference: ports x its NIC speed); at the
 * defaults (16 KB, 0.99) a PULL of 16 KB every 1.324 us at 100 Gbps.  With host.uet.oversub_cc the receiving
 * host's oversubscription control (rccc_oversub.c) divides that time by its scale, in [oversub_min_rate, 1].
 *
 * Departures from the reference: an RTS takes no PSN and is not acknowledged (the PULL it causes is its answer);
 * a flow is at most once in each list (the reference may queue an idle flow twice); a flow done at the receiver
 * leaves the pacer; A counts flows with credit and something to send rather than flows waiting for the NIC; a
 * flow already waiting for its port's turn when its credit runs out sends that one frame (transport.h).
 */
#include "models/rccc.h"
#include "models/mech.h"
#include "models/nic.h"
#include "models/transport.h"
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rccc_host {
    struct sim_timer timer;     /* the pacer's next event: the host's own entity */
    struct net *net;
    struct rccc_rcv *act_head, *act_tail, *idle_head, *idle_tail;
    double ps_per_quantum;      /* Q x 8 / (pull_rate x line rate) */
    int64_t pull_quanta;        /* pull_credit / Q */
    uint32_t active;            /* as a sender: its RCCC flows with credit and something to send */
    struct rccc_oversub *os;    /* as a receiver: the control that scales its pacer (host.uet.oversub_cc), or NULL */
};

/* Host idx's state, made at its first need, in an event of its own (a sender's hook or a receiver's). */
static struct rccc_host *host_of(struct net *n, uint32_t idx)
{
    struct host *h = &n->hosts[idx];
    if (__builtin_expect(h->rccc != NULL, 1))
        return h->rccc;
    struct rccc_host *ph = mem_xcalloc(1, sizeof *ph, "a host's pull pacer");
    const struct rccc_params *p = rccc_params_of(h->cfg);
    int64_t rate = h->rate_bps;
    for (uint32_t i = 1; i < h->n_ports; i++)
        rate += h->more[i - 1].rate_bps;
    ph->net = n;
    ph->timer.ent = net_ent(h->node);
    ph->ps_per_quantum = (double)RCCC_QUANTUM * 8 * 1e12 / ((double)rate * p->pull_rate);
    ph->pull_quanta = p->pull_credit / RCCC_QUANTUM;
    if (p->os.on)
        ph->os = rccc_oversub_new(n, idx, &p->os, p->base_rtt_ps);
    h->rccc = ph;
    return ph;
}

/* M of flow f (bytes) and its base RTT, from its sender's settings: both ends compute the same. */
static int64_t max_credit(const struct flow *f, sim_time_t *rtt)
{
    const struct net *n = f->net;
    const struct rccc_params *p = rccc_params_of(n->hosts[f->src].cfg);
    sim_time_t t = p->base_rtt_ps;
    if (!t) {
        int64_t slowest;
        t = net_host_path_time(n, f->src, f->dst, f->mtu + n->fr.hdr_data + n->fr.wire, &slowest) +
            net_host_path_time(n, f->dst, f->src, (uint32_t)(n->fr.frame_ack + n->fr.wire), &slowest);
    }
    if (rtt)
        *rtt = t;
    int64_t bdp = (int64_t)((double)t * 1e-12 * (double)f->line_bps / 8);
    return (int64_t)(p->max_credit * (double)bdp);
}

/* ceil(x / Q) for any sign. */
static inline int64_t quanta_ceil(int64_t x)
{
    return x >= 0 ? (x + RCCC_QUANTUM - 1) / RCCC_QUANTUM : -(-x / RCCC_QUANTUM);
}

/* ---- the sender ---- */

void rccc_snd_init(struct flow *f, struct rccc_snd *c, int64_t total)
{
    c->max = max_credit(f, &c->rtt);
    c->credit = c->max;
    c->backlog = total;
    c->pull = 0;
    c->last_rts = -1;
    c->speculating = true;
    c->active = false;
    host_of(f->net, f->src);
}

int64_t rccc_target(const struct flow *f, const struct rccc_snd *c, int64_t rtx)
{
    int64_t frame = (int64_t)f->mtu + f->net->fr.hdr_data;
    int64_t want = c->backlog + rtx;
    if (f->cc_wnd && want > (int64_t)f->cc_wnd + frame)
        want = (int64_t)f->cc_wnd + frame;
    if (want > c->max)
        want = c->max;
    want -= c->credit;
    if (c->speculating && want < frame && c->backlog > 0)
        want = frame;
    uint32_t a = f->net->hosts[f->src].rccc->active + !c->active;
    if (a > 1)
        want /= a;
    return quanta_ceil(c->pull * RCCC_QUANTUM + want);
}

void rccc_pulled(struct rccc_snd *c, const struct pkt *k)
{
    /* the counter travels as its low 32 bits: a PULL is never 2^31 quanta (512 GB) ahead of the last heard */
    int64_t p = c->pull + (int32_t)(k->psn - (uint32_t)c->pull);
    if (p <= c->pull)
        return;
    c->credit += (p - c->pull) * RCCC_QUANTUM;
    if (c->credit > c->max)
        c->credit = c->max;
    c->pull = p;
}

void rccc_rts(struct flow *f, struct rccc_snd *c, int64_t rtx)
{
    struct net *n = f->net;
    sim_time_t now = net_sim(n)->now;
    if (c->last_rts >= 0 && now - c->last_rts < c->rtt)
        return; /* one per round trip: an incast of RTS helps no one */
    c->last_rts = now;
    uint32_t id = int_get(net_np(n)->tel);
    struct int_rec *x = net_int_rec(n, id);
    x->n_hops = INT_UET;
    x->uet = (struct uet_ack){.pull = rccc_target(f, c, rtx)};
    nic_send_ctrl(n, f, PKT_RTS, f->snd_max, 0, id);
}

void rccc_active(struct flow *f, struct rccc_snd *c, int64_t rtx, bool done)
{
    bool now = !done && c->credit > 0 && c->backlog + rtx > 0;
    if (now == c->active)
        return;
    c->active = now;
    struct rccc_host *ph = f->net->hosts[f->src].rccc;
    if (now)
        ph->active++;
    else
        ph->active--;
}

/* ---- the receiver's pacer ---- */

static void act_unlink(struct rccc_host *ph, struct rccc_rcv *r)
{
    *(r->act_prev ? &r->act_prev->act_next : &ph->act_head) = r->act_next;
    *(r->act_next ? &r->act_next->act_prev : &ph->act_tail) = r->act_prev;
    r->act_prev = r->act_next = NULL;
    r->in_act = false;
}

static void act_append(struct rccc_host *ph, struct rccc_rcv *r)
{
    r->act_next = NULL;
    r->act_prev = ph->act_tail;
    *(ph->act_tail ? &ph->act_tail->act_next : &ph->act_head) = r;
    ph->act_tail = r;
    r->in_act = true;
}

static void idle_unlink(struct rccc_host *ph, struct rccc_rcv *r)
{
    *(r->idle_prev ? &r->idle_prev->idle_next : &ph->idle_head) = r->idle_next;
    *(r->idle_next ? &r->idle_next->idle_prev : &ph->idle_tail) = r->idle_prev;
    r->idle_prev = r->idle_next = NULL;
    r->in_idle = false;
}

static void idle_append(struct rccc_host *ph, struct rccc_rcv *r)
{
    r->idle_next = NULL;
    r->idle_prev = ph->idle_tail;
    *(ph->idle_tail ? &ph->idle_tail->idle_next : &ph->idle_head) = r;
    ph->idle_tail = r;
    r->in_idle = true;
}

static void pacer_fire(struct sim *s, void *obj, uint64_t arg)
{
    struct rccc_host *ph = obj;
    (void)arg;
    SIM_ASSERT_ENT(s, ph->timer.ent);
    struct rccc_rcv *r = ph->act_head;
    int64_t granted;
    uint8_t slow = 0;
    if (r) {
        act_unlink(ph, r);
        int64_t before = r->pulled;
        r->pulled += ph->pull_quanta;
        if (r->pulled > r->target)
            r->pulled = r->target > before ? r->target : before;
        granted = r->pulled - before;
        if (r->target > r->pulled)
            act_append(ph, r);
        else if (!r->in_idle)
            idle_append(ph, r);
    } else if ((r = ph->idle_head)) {
        idle_unlink(ph, r);
        granted = ph->pull_quanta;
        r->pulled += granted;
        slow = PKT_TF_SLOW_PULL;
        if (r->target <= r->pulled && r->pulled - r->target < r->slow_max)
            idle_append(ph, r);
    } else {
        return; /* nothing to pull: the next request starts the pacer again */
    }
    nic_send_ctrl(ph->net, r->f, PKT_PULL, (uint32_t)r->pulled, slow, 0);
    /* some time between pulls even when nothing was granted: 1 KB's worth; the oversubscription control's scale
     * takes effect from the next pull, as the reference's does */
    int64_t q = granted ? granted : 1024 / RCCC_QUANTUM;
    double ps = ph->ps_per_quantum;
    if (ph->os)
        ps /= ph->os->ctl.rate;
    sim_timer_arm(s, &ph->timer, s->now + (sim_time_t)((double)q * ps + 0.5), pacer_fire, ph);
}

static void request(struct net *n, struct rccc_host *ph, struct rccc_rcv *r)
{
    act_append(ph, r);
    if (!ph->timer.armed)
        sim_timer_arm(net_sim(n), &ph->timer, net_sim(n)->now, pacer_fire, ph);
}

void rccc_rcv_init(struct flow *f, struct rccc_rcv *r)
{
    *r = (struct rccc_rcv){.f = f, .os = host_of(f->net, f->dst)->os, .slow_max = max_credit(f, NULL) / RCCC_QUANTUM};
}

void rccc_rcv_target(struct flow *f, struct rccc_rcv *r, int64_t target, bool ask)
{
    bool moved = target > r->target;
    if (moved)
        r->target = target;
    if ((moved || ask) && !r->in_act)
        request(f->net, f->net->hosts[f->dst].rccc, r);
}

void rccc_rcv_done(struct flow *f, struct rccc_rcv *r)
{
    struct rccc_host *ph = f->net->hosts[f->dst].rccc;
    if (r->in_act)
        act_unlink(ph, r);
    if (r->in_idle)
        idle_unlink(ph, r);
}

/* ---- set-up and teardown ---- */

int rccc_check_host(const struct net *n, const struct host *h, const char *name, char *err, size_t errlen)
{
    const struct transport_ops *t = transport_of(h->tp->loss_recovery);
    if (rccc_params_of(h->cfg)->on && strcmp(t->name, "uet") != 0) {
        snprintf(err, errlen, "%s: host.uet.rccc: expected host.loss_recovery \"uet\" (receiver credit is Ultra "
                 "Ethernet delivery's), got \"%s\" at host %s", n->scn->file, t->name, name);
        return SCN_EUSAGE;
    }
    return 0;
}

/* After the flows (order 100), whose release may leave a pacer's lists. */
static void rccc_free(struct net *n)
{
    if (!n->hosts)
        return;
    for (uint32_t i = 0; i < n->g->n_hosts; i++) {
        if (n->hosts[i].rccc)
            free(n->hosts[i].rccc->os);
        free(n->hosts[i].rccc);
        n->hosts[i].rccc = NULL;
    }
}

static const struct net_mech_ops rccc_mech = {.name = "rccc", .order = 95, .free = rccc_free};
NET_MECH(rccc_mech)
