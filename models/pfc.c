/* pfc — priority flow control, IEEE 802.1Qbb (the rules are in pfc.h). */
#include "models/pfc.h"
#include "models/deadlock.h"
#include "models/nic.h"
#include "models/pfcwd.h"
#include "models/port.h"
#include "models/switch.h"

int64_t pfc_headroom(int64_t rate_bps, int64_t delay_ps, int frame_in, int frame_out, int response_quanta)
{
    __int128 bits = (__int128)(frame_out + WIRE_OVERHEAD) * 8 + (FRAME_PAUSE + WIRE_OVERHEAD) * 8 +
                    (__int128)response_quanta * PAUSE_QUANTUM_BITS + (__int128)(frame_in + WIRE_OVERHEAD) * 8;
    __int128 flight_bits = (__int128)2 * delay_ps * rate_bps; /* in bit*ps/s units */
    int64_t bytes = (int64_t)((bits * PS_PER_S + flight_bits + 8 * PS_PER_S - 1) / (8 * PS_PER_S));
    return (bytes + frame_in - 1) / frame_in * frame_in;
}

/* frame capped by the switch.mtu of node `node` when it is a switch with one (0: no limit). */
static int node_cap(const struct net *n, uint32_t node, int frame)
{
    const struct sw *w = n->node_sw[node];
    int mtu = w ? switch_params_of(w->cfg)->mtu : 0;
    return mtu && mtu < frame ? mtu : frame;
}

void pfc_port_frames(const struct net *n, const struct port *p, int *in, int *out)
{
    const struct host *self = n->node_host[p->node], *peer = n->node_host[p->peer->node];
    *in = peer ? peer->nic->mtu + HDR_DATA : node_cap(n, p->peer->node, n->frame_max);
    *in = node_cap(n, p->node, *in);
    *out = self ? self->nic->mtu + HDR_DATA : node_cap(n, p->node, n->frame_max);
}

int64_t pfc_port_headroom(const struct net *n, const struct port *p, int response_quanta)
{
    int in, out;
    pfc_port_frames(n, p, &in, &out);
    return pfc_headroom(port_aux(p)->rate_bps, p->delay_ps, in, out, response_quanta);
}

/* Refresh at half the pause time so that the upstream never resumes on expiry. */
static sim_time_t refresh_period(const struct net *n, const struct port *p)
{
    return pause_quanta_ps(n->scn->sw.pfc.pause_quanta, port_aux(p)->rate_bps) / 2;
}

void pfc_send(struct port *p, int prio, uint16_t quanta)
{
    struct net *n = p->net;
    struct pkt *k = pkt_alloc(n);
    k->type = PKT_PAUSE;
    k->prio = (uint8_t)prio;
    k->size = FRAME_PAUSE;
    k->quanta = quanta;
    k->flow = UINT32_MAX;
    if (quanta) {
        net_np(n)->c.pause_frames++;
        net_np(n)->c.prio[prio].pause_frames++;
    } else {
        net_np(n)->c.resume_frames++;
    }
    struct port_ctr *c = net_ctr(n, p, prio);
    if (c)
        c->pause_tx++;
    NET_NOTIFY(n, pfc, net_sim(n)->now, p->node, p->local, prio, quanta != 0);
    port_send_ctrl(p, k);
}

/* Timer: p still holds its peer paused on pt->prio, so it sends PAUSE again and re-arms; a switch's refresh is
 * the deadlock detector's heartbeat (lfc.h). */
static void pause_refresh(struct sim *s, void *obj, uint64_t arg)
{
    struct prio_timer *pt = obj;
    struct port *p = pt->port;
    struct net *n = p->net;
    SIM_ASSERT_ENT(s, net_ent(p->node));
    if (!((p->pause_sent >> pt->prio) & 1))
        return;
    pfc_send(p, pt->prio, (uint16_t)n->scn->sw.pfc.pause_quanta);
    sim_timer_arm(s, &pt->tm, s->now + refresh_period(n, p), pause_refresh, pt);
    if (p->kind != NODE_HOST)
        deadlock_heartbeat(n); /* may stop the run */
}

void pfc_hold(struct net *n, struct port *p, int prio)
{
    p->pause_sent |= (uint8_t)(1u << prio);
    pfc_send(p, prio, (uint16_t)n->scn->sw.pfc.pause_quanta);
    struct prio_timer *pt = &port_aux(p)->pause_refresh[prio];
    sim_timer_arm(net_sim(n), &pt->tm, net_sim(n)->now + refresh_period(n, p), pause_refresh, pt);
}

void pfc_let_go(struct port *p, int prio)
{
    p->pause_sent &= (uint8_t)~(1u << prio);
    sim_timer_cancel(&port_aux(p)->pause_refresh[prio].tm);
    pfc_send(p, prio, 0);
}

void pfc_host_hold(struct port *p, int prio, bool want)
{
    if (want == ((p->pause_sent >> prio) & 1) || p->down)
        return;
    if (want)
        pfc_hold(p->net, p, prio);
    else
        pfc_let_go(p, prio);
}

void pfc_unpause(struct port *p, int prio)
{
    if (!((p->paused >> prio) & 1))
        return;
    sim_timer_cancel(&port_aux(p)->pause_expire[prio].tm);
    port_unblock(p, prio);
}

static void pause_expired(struct sim *s, void *obj, uint64_t arg)
{
    struct prio_timer *pt = obj;
    SIM_ASSERT_ENT(s, net_ent(pt->port->node));
    pfc_unpause(pt->port, pt->prio);
}

/* A PAUSE or RESUME arrived at p. */
static void receive(struct port *p, const struct pkt *k)
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
        pfc_unpause(p, prio);
        return;
    }
    struct port_aux *x = port_aux(p);
    if (p->wd_overrode & bit) {
        /* What was sent under the override ends with the frame the transmitter is on (or last sent): it lands
         * at the peer one link delay after busy_until, and nothing of prio is sent after it until the block
         * is lifted. */
        x->wd_overrode_until[prio] = p->busy_until + p->delay_ps;
        p->wd_overrode &= (uint8_t)~bit;
    }
    port_block(p, prio);
    /* Each PAUSE restarts the pause time (a refresh extends it). */
    sim_time_t dur = pause_quanta_ps(k->quanta, x->rate_bps);
    sim_timer_arm(net_sim(n), &x->pause_expire[prio].tm, net_sim(n)->now + dur, pause_expired, &x->pause_expire[prio]);
}

static void link_fail(struct port *p)
{
    struct port_aux *x = port_aux(p);
    for (int prio = 0; prio < NPRIO; prio++) {
        sim_timer_cancel(&x->pause_expire[prio].tm);
        sim_timer_cancel(&x->pause_refresh[prio].tm);
    }
    p->pause_sent = 0;
}

/* The table's entries for the per-frame operations (the switch calls the inline ones directly). */
static int admit(struct net *n, struct sw *w, struct port *in, struct pkt *k) { return pfc_admit(n, w, in, k); }

static void released(struct net *n, struct sw *w, struct port *in, int prio) { pfc_released(n, w, in, prio); }

const struct lfc_ops pfc_lfc_ops = {
    .name = "pfc",
    .admit = admit,
    .released = released,
    .control = receive,
    .link_fail = link_fail,
    .heartbeat = true,
};

MODULE_REGISTER(lfc_kind, "pfc", &pfc_lfc_ops);
