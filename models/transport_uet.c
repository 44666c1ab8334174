/*
 * transport_uet — Ultra Ethernet's packet delivery sublayer (PDS) in its reliable unordered delivery mode, RUD
 * (UEC Specification 1.0, 2025, the packet delivery sublayer; the UEC consortium's reference simulator htsim_uec,
 * ultraethernet/uet-htsim, for the choices the specification leaves to an implementation).  host.loss_recovery
 * "uet".  What of UET is modelled, and what is not, is in docs/model.md ("Ultra Ethernet transport").
 *
 * Sender.  Every packet has a PSN; it is in flight from its sending until an acknowledgement (cumulative or
 * selective) covers it or it is known lost: a NACK names it (a switch trimmed it) or the timeout picks it.  A lost
 * packet joins a FIFO of retransmissions, sent before new data.  The bytes in flight (each frame's bytes, headers
 * included) are held against the congestion control's window: a packet goes out only while
 *     in_flight + its frame <= cwnd                  (flow.cc_wnd; no window: no limit),
 * as the reference's sender does.  It asks for an ACK at once (the AR flag) on a retransmission, on the last
 * packet it has to send, and when the packet fills the window (in_flight + frame >= cwnd).
 *
 * Receiver.  It accepts packets in any order (a bitmap above the cumulative point, rcv_nxt) and acknowledges:
 * at once when the packet arrived CE-marked, asks for it (AR), is the first of the flow, completes the message or
 * is a duplicate; after an AR, once more when every hole below the highest PSN received has filled (uec.cpp's
 * _ack_request: the sender, out of window, learns at once that the gaps arrived); otherwise once
 * host.uet.sack_threshold bytes (frame bytes) have arrived since the last ACK.  An
 * ACK carries the cumulative PSN, the PSN of the packet that caused it with its entropy value and retransmission
 * flag, the ECN echo, and a 64-bit selective acknowledgement: the PSNs from base = max(psn - 63, rcv_nxt + 1) on
 * (from the packet's own PSN for a CE-marked or AR packet, as the reference).  A trimmed packet (trim.c) is
 * answered at once with a NACK naming it, and whether the switch that trimmed it was the last before the receiver.
 *
 * Timeout.  One timer per flow, host.rto after the send of the lowest PSN in flight (re-armed on progress);
 * when it fires, the packet in flight sent earliest is declared lost: it leaves the flight, joins the
 * retransmissions, and the congestion control hears of it (cc_ack.timeout).  (The reference counts from the
 * earliest send of any packet in flight, and computes RTO = 15 us + 6 x queue size x 8 / line rate; the import
 * of its runs sets host.rto so: docs/uet.md.)
 *
 * Receiver credit (host.uet.rccc; rccc.c, where its formulas are): a packet also needs the sender's credit > 0,
 * granted by the receiving host's pull pacer; data frames carry the pull target in a side record, the receiver
 * answers them, their trimmed headers and RTS frames by asking its pacer for pulls, and PULL frames (on_ctrl) add
 * to the credit.  With a congestion control's window too (NSCC), both must allow a packet.
 *
 * Load balancing at the source: the flow's entropy module (host.entropy, entropy.h) chooses each data packet's
 * entropy value, carried in pkt.quanta and hashed into pkt.hash, which the switches hash with their salt; it hears
 * what came back for each value: a clean or ECN-echoing ACK, a NACK (unless the trim was at the last hop, which
 * says nothing of the path), a timeout.
 *
 * Bounds: each end keeps rings over PSNs [una, una + cap), cap a power of two from CAP_MIN that doubles as the
 * span of PSNs outstanding grows (rarely: at most log2(CAP_MAX / CAP_MIN) times per flow), up to CAP_MAX; a sender
 * with CAP_MAX PSNs outstanding sends nothing new until the oldest is acknowledged.  Per PSN the sender keeps its
 * send time and a state byte (9 bytes), the receiver one bit.
 */
#include "models/entropy.h"
#include "models/nic.h"
#include "models/rccc.h"
#include "models/uet.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP_MIN 256u
#define CAP_MAX 65536u
#define SACK_BITS 64

/* A PSN's state at the sender: 2 bits, then how many times it was sent (saturating). */
enum { PS_UNSENT = 0, PS_OUT = 1, PS_LOST = 2, PS_ACKED = 3 };
#define PS_STATE(b) ((b) & 3u)
#define PS_SENDS(b) ((b) >> 2)

struct uet_snd {
    uint32_t cap;
    uint32_t rtx_head, rtx_n; /* the FIFO of lost PSNs to resend, in rtxq */
    uint64_t inflight;        /* bytes */
    int64_t rtx_bytes;        /* frame bytes of the PSNs lost and not resent or acknowledged since */
    bool rccc;                /* it runs on the receiver's credit (cr) */
    struct rccc_snd cr;
    const struct entropy_ops *ev_ops;
    void *ev;                 /* the entropy module's state, or NULL */
    sim_time_t *sent_at;      /* per PSN (ring): its last sending */
    uint8_t *st;              /* per PSN (ring): PS_* | sends << 2 */
    uint32_t *rtxq;
};

struct uet_rcv {
    uint32_t cap;
    uint32_t since_ack; /* frame bytes accepted since the last ACK */
    uint64_t *bits;     /* PSNs above rcv_nxt that arrived (ring) */
    uint64_t sack_threshold; /* host.uet.sack_threshold of its host, read once: it is tested with every frame */
    uint32_t ooo;       /* PSNs above rcv_nxt that arrived: bits set in `bits` */
    bool data;          /* a data frame has arrived (the first is acknowledged at once) */
    /* An ack-request (AR) came: answered at once, and again once every hole below the highest PSN received has
     * filled, when the window-limited sender learns that all it sent arrived (the reference's _ack_request) */
    bool ack_request;
    bool rccc;          /* its sender runs on credit: the pull state (cr) */
    struct rccc_rcv cr;
};

static const struct uet_params *uet_params_of(const struct flow *f)
{
    return uet_params_of_host(f->net->hosts[f->dst].cfg);
}

/* The bytes of PSN psn's data frame. */
static inline uint32_t frame_bytes(const struct flow *f, uint32_t psn)
{
    uint32_t payload = psn + 1 == f->n_pkts ? (uint32_t)(f->size - (int64_t)psn * f->mtu) : f->mtu;
    return payload + (uint32_t)f->net->fr.hdr_data;
}

static void snd_arrays(struct uet_snd *s, uint32_t cap)
{
    s->cap = cap;
    s->sent_at = mem_xcalloc(cap, sizeof *s->sent_at, "a UET sender's rings");
    s->st = mem_xcalloc(cap, sizeof *s->st, "a UET sender's rings");
    s->rtxq = mem_xcalloc(cap, sizeof *s->rtxq, "a UET sender's rings");
}

static void snd_free_arrays(struct uet_snd *s)
{
    free(s->sent_at);
    free(s->st);
    free(s->rtxq);
}

static struct uet_snd *snd_of(struct flow *f)
{
    struct uet_snd *s = f->tp_snd;
    if (s)
        return s;
    s = mem_xcalloc(1, sizeof *s, "a UET sender");
    snd_arrays(s, CAP_MIN);
    const struct host *h = &f->net->hosts[f->src];
    const struct entropy_ops *o = entropy_registry[h->nic->entropy];
    if (o->pick) {
        uint32_t paths = (uint32_t)h->nic->entropy_paths;
        struct rng r;
        rng_init(&r, f->net->scn->seed, rng_stream_id(RNG_KIND_ENTROPY, f->id));
        s->ev_ops = o;
        s->ev = mem_xcalloc(1, o->state_bytes(paths), "a UET sender's entropy state");
        o->init(s->ev, paths, &r);
    }
    if (rccc_params_of(h->cfg)->on) {
        s->rccc = true;
        rccc_snd_init(f, &s->cr, f->size + (int64_t)f->n_pkts * f->net->fr.hdr_data);
    }
    f->tp_snd = s;
    return s;
}

/* The ring grows to hold PSNs up to una + span (a power of two, at most CAP_MAX): rare, never per packet. */
static void snd_grow(struct flow *f, struct uet_snd *s, uint32_t span)
{
    if (span > CAP_MAX) {
        fprintf(stderr, "rocesim: bug: flow %s: %u PSNs outstanding, more than a UET sender keeps (%u)\n", f->name,
                span, CAP_MAX);
        abort();
    }
    struct uet_snd old = *s;
    uint32_t cap = s->cap;
    while (cap < span)
        cap <<= 1;
    snd_arrays(s, cap);
    for (uint32_t p = f->snd_una; p < f->snd_una + old.cap; p++) {
        s->sent_at[p & (cap - 1)] = old.sent_at[p & (old.cap - 1)];
        s->st[p & (cap - 1)] = old.st[p & (old.cap - 1)];
    }
    for (uint32_t i = 0; i < old.rtx_n; i++)
        s->rtxq[i] = old.rtxq[(old.rtx_head + i) & (old.cap - 1)];
    s->rtx_head = 0;
    snd_free_arrays(&old);
}

static inline uint8_t *st_of(struct uet_snd *s, uint32_t psn) { return &s->st[psn & (s->cap - 1)]; }

/* PSN psn (of frame bytes b, its state now PS_LOST) joins the resends. */
static void rtx_push(struct uet_snd *s, uint32_t psn, uint32_t b)
{
    s->rtxq[(s->rtx_head + s->rtx_n) & (s->cap - 1)] = psn;
    s->rtx_n++;
    s->rtx_bytes += b;
}

/* Whether a frame of b bytes may go now: the window lets it (a congestion control's, flow.cc_wnd) and the
 * receiver's credit does (RCCC), each when there is one. */
static inline bool may_send(const struct flow *f, const struct uet_snd *s, uint32_t b)
{
    return (!f->cc_wnd || s->inflight + b <= f->cc_wnd) && (!s->rccc || s->cr.credit > 0);
}

/* The PSN to send next, smax the highest sent + 1: the oldest lost one, else new data, when the window allows it;
 * else n_pkts. */
static uint32_t next_psn(struct flow *f, struct uet_snd *s, uint32_t smax)
{
    while (s->rtx_n) {
        uint32_t p = s->rtxq[s->rtx_head & (s->cap - 1)];
        if (p >= f->snd_una && PS_STATE(*st_of(s, p)) == PS_LOST)
            return may_send(f, s, frame_bytes(f, p)) ? p : f->n_pkts;
        s->rtx_head = (s->rtx_head + 1) & (s->cap - 1); /* acknowledged since: nothing to resend */
        s->rtx_n--;
    }
    uint32_t p = smax;
    if (p >= f->n_pkts || !may_send(f, s, frame_bytes(f, p)))
        return f->n_pkts;
    if (p - f->snd_una >= s->cap) {
        if (s->cap == CAP_MAX)
            return f->n_pkts; /* the oldest outstanding PSN must be acknowledged first */
        snd_grow(f, s, p - f->snd_una + 1);
    }
    return p;
}

static void sent(struct flow *f)
{
    struct uet_snd *s = snd_of(f);
    uint32_t psn = f->snd_nxt;
    if (psn < f->snd_una) {
        /* chosen (a resend) while the flow waited for its port's turn, acknowledged since: it goes again,
         * harmlessly (the receiver acknowledges a copy), and nothing of the sender's state is its any more */
        f->snd_nxt = next_psn(f, s, f->snd_max);
        return;
    }
    if (psn - f->snd_una >= s->cap) /* a PSN chosen before the ring could hold it (flow started in the ready list) */
        snd_grow(f, s, psn - f->snd_una + 1);
    uint8_t *b = st_of(s, psn);
    if (PS_STATE(*b) == PS_LOST && s->rtx_n && s->rtxq[s->rtx_head & (s->cap - 1)] == psn) {
        s->rtx_head = (s->rtx_head + 1) & (s->cap - 1);
        s->rtx_n--;
    }
    unsigned sends = psn < f->snd_max ? PS_SENDS(*b) : 0;
    uint32_t bytes = frame_bytes(f, psn);
    if (PS_STATE(*b) == PS_LOST)
        s->rtx_bytes -= bytes;
    if (PS_STATE(*b) != PS_OUT)
        s->inflight += bytes;
    *b = (uint8_t)(PS_OUT | (sends < 63 ? sends + 1 : 63) << 2);
    s->sent_at[psn & (s->cap - 1)] = net_sim(f->net)->now;
    if (s->rccc)
        rccc_spend(&s->cr, bytes, psn >= f->snd_max);
    /* the NIC moves snd_max after this hook (nic.c, make_data) */
    f->snd_nxt = next_psn(f, s, f->snd_max > psn + 1 ? f->snd_max : psn + 1);
    if (s->rccc)
        rccc_active(f, &s->cr, s->rtx_bytes, false);
}

static void stamp(struct flow *f, struct pkt *k)
{
    struct uet_snd *s = f->tp_snd;
    if (s->ev) {
        uint16_t ev = s->ev_ops->pick(s->ev, net_sim(f->net)->now);
        k->quanta = ev;
        k->hash = rng_mix32(f->hash_fwd ^ rng_mix32((uint32_t)ev + 1));
    }
    bool rtx = k->psn < f->snd_una || PS_SENDS(*st_of(s, k->psn)) > 1;
    if (rtx)
        k->tflags |= PKT_TF_RTX;
    if (rtx || f->snd_nxt >= f->n_pkts || (f->cc_wnd && s->inflight + frame_bytes(f, k->psn) >= f->cc_wnd) ||
        (s->rccc && s->cr.credit <= 0))
        k->tflags |= PKT_TF_AR;
    if (s->rccc) {
        /* the pull target rides in a side record, as an ACK's selective acknowledgement does */
        struct net *n = f->net;
        k->tel = int_get(net_np(n)->tel);
        struct int_rec *x = net_int_rec(n, k->tel);
        x->n_hops = INT_UET;
        x->uet = (struct uet_ack){.pull = rccc_target(f, &s->cr, s->rtx_bytes)};
    }
}

static void release_snd(struct flow *f)
{
    struct uet_snd *s = f->tp_snd;
    if (!s)
        return;
    if (s->rccc)
        rccc_active(f, &s->cr, 0, true);
    snd_free_arrays(s);
    free(s->ev);
    free(s);
    f->tp_snd = NULL;
}

static inline void feedback(struct uet_snd *s, uint16_t ev, enum ev_signal sig, sim_time_t now)
{
    if (s->ev)
        s->ev_ops->feedback(s->ev, ev, sig, now);
}

/* PSN p is acknowledged: it leaves the flight (if it was in it); its bytes, if it was in flight. */
static inline uint32_t ack_psn(struct flow *f, struct uet_snd *s, uint32_t p)
{
    uint8_t *b = st_of(s, p);
    uint32_t got = 0;
    if (PS_STATE(*b) == PS_OUT) {
        got = frame_bytes(f, p);
        s->inflight -= got;
    } else if (PS_STATE(*b) == PS_LOST) {
        s->rtx_bytes -= frame_bytes(f, p); /* no longer to resend: its place in the FIFO is passed over */
    }
    if (PS_STATE(*b) != PS_ACKED)
        *b = (uint8_t)((*b & ~3u) | PS_ACKED);
    return got;
}

/* An RTT sample of PSN p answered now, when it is unambiguous: sent once, or twice and the answer is to the
 * resend (the reference's rule); else 0. */
static sim_time_t rtt_of(struct flow *f, struct uet_snd *s, uint32_t p, bool rtx_echo)
{
    if (p < f->snd_una || p >= f->snd_max)
        return 0;
    unsigned sends = PS_SENDS(*st_of(s, p));
    if (sends != 1 && !(sends == 2 && rtx_echo))
        return 0;
    sim_time_t r = net_sim(f->net)->now - s->sent_at[p & (s->cap - 1)];
    return r > 0 ? r : 1;
}

static void on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a)
{
    struct uet_snd *s = snd_of(f);
    const struct uet_ack *u = &net_int_rec(f->net, k->tel)->uet;
    sim_time_t now = net_sim(f->net)->now;
    uint32_t una = f->snd_una, bytes = 0, newly = 0;
    a->rtt = rtt_of(f, s, u->acked, (u->flags & PKT_TF_RTX) != 0);
    if (k->type == PKT_NACK) {
        uint32_t p = u->acked;
        a->nack = true;
        bool last = (u->flags & PKT_TF_LAST_HOP) != 0;
        a->last_hop = last && s->rccc; /* the receiver's credit already paces that link: NSCC spares it */
        if (p >= f->snd_una && p < f->snd_max && PS_STATE(*st_of(s, p)) == PS_OUT) {
            uint8_t *b = st_of(s, p);
            a->nack_bytes = frame_bytes(f, p);
            s->inflight -= a->nack_bytes;
            *b = (uint8_t)((*b & ~3u) | PS_LOST);
            rtx_push(s, p, a->nack_bytes);
        }
        feedback(s, u->ev, last ? ((k->ecn & ECN_ECE) ? EV_ECN : EV_GOOD) : EV_NACK, now);
    } else {
        uint32_t cum = k->psn < f->snd_max ? k->psn : f->snd_max;
        for (uint32_t p = una; p < cum; p++) {
            bytes += ack_psn(f, s, p);
            newly++;
        }
        if (cum > una)
            f->snd_una = cum;
        uint64_t sk = u->sack;
        while (sk) {
            uint32_t p = u->sack_base + (uint32_t)__builtin_ctzll(sk);
            sk &= sk - 1;
            if (p >= f->snd_una && p < f->snd_max && PS_STATE(*st_of(s, p)) != PS_ACKED) {
                bytes += ack_psn(f, s, p);
                newly++;
            }
        }
        feedback(s, u->ev, (k->ecn & ECN_ECE) ? EV_ECN : EV_GOOD, now);
    }
    a->psn = f->snd_una;
    a->newly_acked = newly;
    a->bytes = bytes;
    a->inflight = (uint32_t)s->inflight;
    if (s->rccc)
        rccc_heard(&s->cr);
    if (f->snd_una >= f->n_pkts)
        release_snd(f);
}

/* Whether the flow has something to send again after what it heard (an ACK, a NACK, a PULL). */
static bool resume(struct flow *f)
{
    struct uet_snd *s = f->tp_snd;
    uint32_t before = f->snd_nxt;
    bool go = transport_set_next(f, next_psn(f, s, f->snd_max)) && (before >= f->n_pkts || f->snd_nxt != before);
    if (s->rccc)
        rccc_active(f, &s->cr, s->rtx_bytes, false);
    return go;
}

static bool recover(struct flow *f, const struct pkt *k)
{
    (void)k;
    if (!f->tp_snd)
        return false; /* done */
    return resume(f);
}

/* The packet in flight sent earliest is lost: a scan of the PSNs outstanding, once per timeout (never per
 * packet).  The congestion control hears of it as it hears of a NACK. */
static void on_timeout(struct flow *f)
{
    struct uet_snd *s = snd_of(f);
    uint32_t lost = f->n_pkts;
    sim_time_t oldest = 0;
    for (uint32_t p = f->snd_una; p < f->snd_max; p++)
        if (PS_STATE(*st_of(s, p)) == PS_OUT && (lost == f->n_pkts || s->sent_at[p & (s->cap - 1)] < oldest)) {
            lost = p;
            oldest = s->sent_at[p & (s->cap - 1)];
        }
    sim_time_t now = net_sim(f->net)->now;
    if (lost < f->n_pkts)
        feedback(s, EV_UNKNOWN, EV_TIMEOUT, now); /* a wake-up with nothing in flight says nothing of a path */
    bool queued = s->rtx_bytes > 0; /* resends were waiting already: the receiver may not know (an RTS tells it) */
    if (lost < f->n_pkts) {
        uint8_t *b = st_of(s, lost);
        uint32_t bytes = frame_bytes(f, lost);
        s->inflight -= bytes;
        *b = (uint8_t)((*b & ~3u) | PS_LOST);
        rtx_push(s, lost, bytes);
        if (f->cc_flags & CC_FLOW_ON_ACK) {
            struct cc_ack a = {.psn = f->snd_una, .nack = true, .timeout = true, .nack_bytes = bytes,
                               .inflight = (uint32_t)s->inflight};
            flow_cc(f)->on_ack(f, &a, now);
        }
    }
    if (s->rccc) {
        if (queued)
            rccc_heard(&s->cr);
        if ((queued || s->cr.credit <= 0) && s->cr.backlog + s->rtx_bytes > 0)
            rccc_rts(f, &s->cr, s->rtx_bytes);
    }
    transport_set_next(f, next_psn(f, s, f->snd_max));
    if (s->rccc)
        rccc_active(f, &s->cr, s->rtx_bytes, false);
}

/* Whether no packet is in flight: the timer's firing is then the sender's own wake-up (an RTS when out of credit),
 * not a timeout (transport_ops.idle). */
static bool idle(const struct flow *f)
{
    const struct uet_snd *s = f->tp_snd;
    if (!s)
        return true;
    for (uint32_t p = f->snd_una; p < f->snd_max; p++)
        if (PS_STATE(s->st[p & (s->cap - 1)]) == PS_OUT)
            return false;
    return true;
}

/* host.rto after the send of the lowest PSN still in flight (now, when none is). */
static sim_time_t rto(const struct flow *f, sim_time_t dflt)
{
    const struct uet_snd *s = f->tp_snd;
    if (!s)
        return dflt;
    for (uint32_t p = f->snd_una; p < f->snd_max; p++)
        if (PS_STATE(s->st[p & (s->cap - 1)]) == PS_OUT) {
            sim_time_t at = s->sent_at[p & (s->cap - 1)] + dflt - net_sim(f->net)->now;
            return at > 0 ? at : 1;
        }
    return dflt;
}

/* ---- the receiver ---- */

static inline bool rbit(const struct uet_rcv *r, uint32_t psn)
{
    uint32_t i = psn & (r->cap - 1);
    return (r->bits[i >> 6] >> (i & 63)) & 1;
}

static inline void rbit_set(struct uet_rcv *r, uint32_t psn, bool v)
{
    uint32_t i = psn & (r->cap - 1);
    if (v)
        r->bits[i >> 6] |= 1ull << (i & 63);
    else
        r->bits[i >> 6] &= ~(1ull << (i & 63));
}

static struct uet_rcv *rcv_of(struct flow *f, uint32_t psn)
{
    struct uet_rcv *r = f->tp_rcv;
    if (!r) {
        r = mem_xcalloc(1, sizeof *r, "a UET receiver");
        r->cap = CAP_MIN;
        r->bits = mem_xcalloc(r->cap / 64, sizeof *r->bits, "a UET receiver's bitmap");
        r->sack_threshold = (uint64_t)uet_params_of(f)->sack_threshold;
        if (rccc_params_of(f->net->hosts[f->src].cfg)->on) {
            r->rccc = true;
            rccc_rcv_init(f, &r->cr);
        }
        f->tp_rcv = r;
    }
    if (psn >= f->rcv_nxt && psn - f->rcv_nxt >= r->cap) {
        /* the sender never has CAP_MAX PSNs outstanding, and rcv_nxt is at or above its oldest */
        if (psn - f->rcv_nxt >= CAP_MAX) {
            fprintf(stderr, "rocesim: bug: flow %s: PSN %u beyond the UET receiver's window (%u from %u)\n", f->name,
                    psn, CAP_MAX, f->rcv_nxt);
            abort();
        }
        struct uet_rcv old = *r;
        uint32_t cap = r->cap;
        while (cap <= psn - f->rcv_nxt)
            cap <<= 1;
        r->cap = cap;
        r->bits = mem_xcalloc(cap / 64, sizeof *r->bits, "a UET receiver's bitmap");
        for (uint32_t p = f->rcv_nxt; p < f->rcv_nxt + old.cap; p++)
            if (rbit(&old, p))
                rbit_set(r, p, true);
        free(old.bits);
    }
    return r;
}

/* The 64 bits of the receiver's ring from PSN base on.  Only PSNs in [rcv_nxt, rcv_nxt + cap) have places of their
 * own: those below rcv_nxt read 0 (the cumulative point covers them), and so do those a ring or more above it,
 * which would read the bits of PSNs a ring below them. */
static uint64_t sack_window(const struct flow *f, const struct uet_rcv *r, uint32_t base)
{
    uint32_t i = base & (r->cap - 1), w = i >> 6, o = i & 63, words = r->cap / 64;
    uint64_t bits = r->bits[w] >> o;
    if (o)
        bits |= r->bits[(w + 1) & (words - 1)] << (64 - o);
    if (base < f->rcv_nxt) {
        uint32_t below = f->rcv_nxt - base;
        bits = below >= 64 ? 0 : bits & (~0ull << below);
    }
    /* nor those a ring or more above rcv_nxt, whose places hold PSNs a ring below */
    uint32_t room = f->rcv_nxt + r->cap - base;
    if (room < 64)
        bits &= (1ull << room) - 1;
    return bits;
}

/* A reply of type to frame k (data or trimmed), with its record. */
static struct transport_reply reply(struct flow *f, const struct uet_rcv *r, const struct pkt *k, uint8_t type,
                                    bool at_psn)
{
    struct net *n = f->net;
    uint32_t id = int_get(net_np(n)->tel);
    struct int_rec *x = net_int_rec(n, id);
    x->n_hops = INT_UET;
    uint32_t base = at_psn ? k->psn : k->psn >= SACK_BITS - 1 ? k->psn - (SACK_BITS - 1) : 0;
    if (!at_psn && base < f->rcv_nxt + 1)
        base = f->rcv_nxt + 1;
    x->uet = (struct uet_ack){.sack = r ? sack_window(f, r, base) : 0, .sack_base = base, .acked = k->psn,
                              .ev = k->quanta, .flags = (uint8_t)(k->tflags & (PKT_TF_RTX | PKT_TF_LAST_HOP))};
    return (struct transport_reply){.type = type, .psn = f->rcv_nxt, .rec = id};
}

/* The receiver of a flow under RCCC: frame k's pull target, if it carries one; ask: request a pull in any case. */
static void heard_target(struct flow *f, struct uet_rcv *r, const struct pkt *k, bool ask)
{
    if (k->tel)
        rccc_rcv_target(f, &r->cr, net_int_rec(f->net, k->tel)->uet.pull, ask);
}

static void free_rcv(struct flow *f, struct uet_rcv *r)
{
    if (r->rccc)
        rccc_rcv_done(f, &r->cr);
    free(r->bits);
    free(r);
    f->tp_rcv = NULL;
}

static struct transport_reply on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    (void)ack_every; /* UET coalesces by bytes: host.uet.sack_threshold */
    struct uet_rcv *r = rcv_of(f, k->psn);
    if (r->rccc) {
        rccc_rx(&r->cr, (k->ecn & ECN_CE) ? RCCC_RX_ECN : RCCC_RX_PLAIN);
        if (f->finish < 0) /* a copy after the whole message asks for nothing */
            heard_target(f, r, k, false);
    }
    bool first = !r->data;
    r->data = true;
    if (k->psn < f->rcv_nxt || rbit(r, k->psn))
        return reply(f, r, k, PKT_ACK, false); /* a duplicate: at once */
    bool ce = (k->ecn & ECN_CE) != 0, ar = (k->tflags & PKT_TF_AR) != 0, drained = false;
    r->ack_request |= ar;
    if (k->psn > f->rcv_nxt) {
        transport_out_of_order(f, k);
        rbit_set(r, k->psn, true);
        r->ooo++;
    } else {
        f->rcv_nxt++;
        while (f->rcv_nxt < f->n_pkts && rbit(r, f->rcv_nxt)) {
            rbit_set(r, f->rcv_nxt, false);
            r->ooo--;
            f->rcv_nxt++;
        }
        drained = !r->ooo && r->ack_request;
        if (drained)
            r->ack_request = false;
    }
    r->since_ack += k->size;
    bool last = f->rcv_nxt == f->n_pkts;
    if (!(ce || ar || drained || last || first || r->since_ack >= r->sack_threshold))
        return (struct transport_reply){0};
    r->since_ack = 0;
    struct transport_reply a = reply(f, r, k, PKT_ACK, ce || ar);
    if (last)
        free_rcv(f, r);
    return a;
}

static struct transport_reply on_trimmed(struct flow *f, const struct pkt *k)
{
    struct uet_rcv *r = f->tp_rcv;
    if (!r && rccc_params_of(f->net->hosts[f->src].cfg)->on)
        r = rcv_of(f, k->psn);
    if (r && r->rccc)
        rccc_rx(&r->cr, (k->tflags & PKT_TF_LAST_HOP) ? RCCC_RX_TRIM_LAST : RCCC_RX_TRIM_OTHER);
    if (k->psn < f->rcv_nxt)
        return (struct transport_reply){0};
    if (r && r->rccc)
        heard_target(f, r, k, true); /* the sender will resend it: a pull for it */
    return reply(f, r, k, PKT_NACK, true);
}

/* A PULL at the sender (its credit), an RTS at the receiver (its pull target, and a pull in any case). */
static bool on_ctrl(struct flow *f, const struct pkt *k)
{
    if (k->type == PKT_PULL) {
        struct uet_snd *s = f->tp_snd;
        if (!s || !s->rccc)
            return false;
        rccc_heard(&s->cr);
        rccc_pulled(&s->cr, k);
        return resume(f);
    }
    struct uet_rcv *r = rcv_of(f, f->rcv_nxt);
    if (r->rccc) {
        rccc_rx(&r->cr, RCCC_RX_PLAIN);
        heard_target(f, r, k, true);
    }
    return false;
}

static void release(struct flow *f)
{
    release_snd(f);
    if (f->tp_rcv)
        free_rcv(f, f->tp_rcv);
}

/* Both ends at their first ring size, and an entropy module's state for 64 values. */
static size_t state_bytes(const struct scn_host *h)
{
    (void)h;
    return sizeof(struct uet_snd) + CAP_MIN * (sizeof(sim_time_t) + 1 + sizeof(uint32_t)) + sizeof(struct uet_rcv) +
           CAP_MIN / 8 + 1200 + 6 * 16;
}

static const struct transport_ops uet_transport_ops = {
    .name = "uet", .flags = TRANSPORT_F_RECORDS | TRANSPORT_F_WINDOW, .sent = sent, .on_data = on_data,
    .on_ack = on_ack, .recover = recover, .on_timeout = on_timeout, .on_trimmed = on_trimmed, .stamp = stamp,
    .rto = rto, .idle = idle, .on_ctrl = on_ctrl, .release = release, .state_bytes = state_bytes};
MODULE_REGISTER(transport_kind, "uet", &uet_transport_ops, &uet_group);
