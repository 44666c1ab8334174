/*
 * transport — packet delivery and loss recovery of a flow, as a table of hooks: which PSN the sender puts on the
 * wire next, what the receiver answers a data frame with, what an ACK or NACK does at the sender and what a
 * retransmission timeout does.  Go-back-N (RoCE's reliable connection, models/transport_gbn.h) is the first
 * implementation and the default; selective repeat, InfiniBand's RC or a receiver-driven scheme would be others.
 *
 * The NIC (nic.c) keeps what every transport shares and calls the hooks at fixed points:
 * - sending: flow.snd_nxt is the PSN the NIC sends next, n_pkts or above when the transport has nothing to send
 *   now; every hook that changes what is sent next writes it.  A flow is ready while snd_nxt < n_pkts (and its
 *   window, pacing and pause allow); serving it builds the data frame of PSN snd_nxt and calls sent(f), which
 *   chooses the next.  The NIC counts a frame below snd_max as a retransmission (retx_bytes; Karn's rule for RTT
 *   samples), paces, and arms the retransmission timer.  Reading snd_nxt rather than asking a hook keeps the
 *   readiness tests (every pacing gap, every DWRR pick) free of a call.  Only sent may hold a flow back (snd_nxt at
 *   n_pkts) while it is on its port's ready list (flow.in_ready): the NIC sends that flow's snd_nxt when its turn
 *   comes;
 * - receiving: the NIC counts the frame and asks the congestion control about a CNP, then on_data decides what
 *   goes back (struct transport_reply: an ACK, a NACK, or nothing).  The receiver holds the whole message when
 *   rcv_nxt reaches n_pkts: the NIC then completes the flow at the receiver (flow.finish) before it sends the reply;
 * - an ACK or NACK at a sender not done: on_ack moves snd_una (the cumulative point every transport keeps) and
 *   fills the struct cc_ack the congestion control learns from (psn, newly_acked, nack; the NIC adds the ECN echo,
 *   the INT record and the RTT sample).  Progress (newly_acked > 0) resets the retry count and re-arms the
 *   timeout.  Then the congestion control sees the ACK, and only after it recover(f, k) says whether the sender
 *   has frames to send again (go-back-N: a NACK moved snd_nxt back), so an algorithm reading snd_nxt in on_ack
 *   (HPCC, DCTCP: the end of the window in flight) sees it before the transport goes back.  The sender is done
 *   when snd_una reaches n_pkts;
 * - the retransmission timeout (host.rto or qp_timeout, with its retry count, kept by the NIC) calls on_timeout,
 *   which chooses what is sent again; the NIC re-arms the timer and makes the flow ready.
 * - a control frame of the transport's own (PKT_PULL at the sender, PKT_RTS at the receiver) goes to on_ctrl; at
 *   the sender, true when it has frames to send again.  The transport sends them with nic_send_ctrl (nic.h).
 * Frames are PKT_DATA, PKT_ACK and PKT_NACK (net.h), psn carrying the transport's sequence number, and the optional
 * PKT_PULL and PKT_RTS.
 *
 * Costs: go-back-N's hooks are inline and called directly when it is the flow's transport (index 0, as PFC and
 * strict priority are); any other transport is called through transport_registry, one indirect call per hook.
 *
 * A transport is a module of kind transport_kind (sim/module.h), chosen by host.loss_recovery:
 * MODULE_REGISTER(transport_kind, "go-back-n", &gbn_transport_ops).  Its registration is refused without a hook
 * (all five are called).
 *
 * How far the hooks reach.  A sender may hold back (snd_nxt at n_pkts) until an answer from the receiver lets it go
 * on (recover returns true), and what the receiver's answer to a data frame means (the psn of its ACK, the PSN a
 * NACK's sack names) is the transport's.  A transport may keep per-flow state beyond struct flow's in flow.tp_snd
 * (written by the sender's hooks alone) and flow.tp_rcv (the receiver's), and choose its timeout (rto).  A receiver
 * may send on a clock of its own: a timer of its host's (the host's entity, armed in that host's events alone) whose
 * events send control frames of the transport's own through the NIC (nic_send_ctrl), which reach the other end's
 * on_ctrl; UET's receiver credit (rccc.c) paces its pulls so, one pacer per receiving host.
 */
#ifndef MODELS_TRANSPORT_H
#define MODELS_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/cc.h"
#include "models/net.h"
#include "sim/module.h"

enum transport_flags {
    /* After a loss it resends everything from the first unacknowledged PSN, so a drop costs a window of
     * retransmissions: it needs a lossless fabric (what rocesim doctor's lossy-go-back-n checks). */
    TRANSPORT_F_GOES_BACK = 1u << 0,
    /* Its ACKs and NACKs carry a side record (telemetry.h, INT_UET), so the network keeps the record pools, and
     * its flows cannot take a congestion control whose ACKs echo INT records (CC_F_TELEMETRY). */
    TRANSPORT_F_RECORDS = 1u << 1,
    /* It counts the bytes in flight itself and holds the flow back against the congestion control's window
     * (flow.cc_wnd) in sent and recover: the NIC's own test, unacknowledged PSNs times the MTU, does not apply. */
    TRANSPORT_F_WINDOW = 1u << 2,
};

/* What the receiver sends back for a data frame: type PKT_ACK or PKT_NACK with psn, or type 0 for nothing; sack,
 * when not 0, says the receiver holds PSN psn + sack - 1 too (selective repeat's NACK; the frame's quanta). */
struct transport_reply {
    uint8_t type;
    uint16_t sack;
    uint32_t psn;
    uint32_t rec; /* a side record the reply carries (TRANSPORT_F_RECORDS), 0: none */
};

struct transport_ops {
    const char *name; /* as the scenario spells it (host.loss_recovery): its module's name */
    unsigned flags;   /* enum transport_flags */
    /* Sender: the data frame of PSN snd_nxt is on the wire; sets snd_nxt to the PSN to send next. */
    void (*sent)(struct flow *f);
    /* Receiver: data frame k arrived (already counted); moves rcv_nxt and says what goes back.  ack_every is the
     * receiving host's host.ack_every. */
    struct transport_reply (*on_data)(struct flow *f, const struct pkt *k, uint32_t ack_every);
    /* Sender: ACK or NACK k arrived; moves snd_una and fills a's psn, newly_acked and nack (its other fields are
     * the NIC's). */
    void (*on_ack)(struct flow *f, const struct pkt *k, struct cc_ack *a);
    /* Sender: after the congestion control saw ACK or NACK k; true when the transport has frames to send again
     * (the NIC makes the flow ready). */
    bool (*recover)(struct flow *f, const struct pkt *k);
    /* Sender: the retransmission timeout fired (the flow has not failed): choose what is sent again. */
    void (*on_timeout)(struct flow *f);
    /* Optional.  Receiver: a switch trimmed data frame k (PKT_TRIM: its PSN, no payload; trim.c): what goes back
     * (a NACK, so that the sender resends at once).  NULL: nothing (the loss waits for a gap or the timeout). */
    struct transport_reply (*on_trimmed)(struct flow *f, const struct pkt *k);
    /* Optional.  Sender: data frame k (of PSN k->psn, which sent has just passed) is built; the transport may set
     * what it carries of its own (k->quanta, k->tflags) and its entropy (k->hash).  Not called for go-back-N. */
    void (*stamp)(struct flow *f, struct pkt *k);
    /* Optional.  Sender, when its timer fires: true when nothing is in flight, so that the firing is the transport's
     * own wake-up (on_timeout still runs: UET's RTS), not a timeout: not counted, no retry spent.  NULL: always a
     * timeout. */
    bool (*idle)(const struct flow *f);
    /* Optional.  Sender: the timeout to arm now, given host.rto's; NULL: host.rto (or qp_timeout's). */
    sim_time_t (*rto)(const struct flow *f, sim_time_t rto);
    /* Optional.  A control frame of the transport's own arrived: PKT_PULL at a sender not done, PKT_RTS at a
     * receiver not done.  At the sender, true when it has frames to send again (the NIC makes the flow ready).
     * NULL: the transport sends none. */
    bool (*on_ctrl)(struct flow *f, const struct pkt *k);
    /* Optional.  The flow's state beyond struct flow's (flow.tp_snd, tp_rcv) is released: the run ends with the
     * flow unfinished.  A transport frees it itself when the flow is done at that end. */
    void (*release)(struct flow *f);
    /* Optional.  What that state takes per flow (both ends) under host settings h, for the memory estimate. */
    size_t (*state_bytes)(const struct scn_host *h);
};

/*
 * The settings every transport shares: host.loss_recovery (which transport) and the timeouts and acknowledgements
 * the NIC keeps for it, a flat group of `host` (sim/settings.h) that models/transport.c declares.  A host keeps
 * its pointer (host.tp) from set-up on.
 */
struct transport_params {
    int loss_recovery; /* a module of kind "transport", by index: 0 is go-back-N, the default */
    int64_t rto_ps;
    int qp_timeout;    /* the QP's timeout exponent: rto = 4.096 us x 2^qp_timeout; -1: rto_ps as given */
    int retry_count;   /* with qp_timeout: timeouts in a row without progress after which the flow fails */
    int ack_priority;  /* priority of ACKs and NACKs; -1: the flow's data priority */
    int ack_every;
    bool nack_cnp;     /* a NACK for a gap also sends a CNP (nic.c, receive_data) */
};

/* Host settings h's transport settings (profiles applied). */
const struct transport_params *transport_params_of(const struct scn_host *h);

#define TRANSPORT_MAX 16
#define TRANSPORT_GBN 0 /* go-back-N's index: the kind's default */

/* The kind of the transport modules ("transport": host.loss_recovery names one); its default is "go-back-n". */
extern const struct module_kind transport_kind;

/* The transports by module index (host.loss_recovery's value, flow.transport), for the per-frame calls. */
extern const struct transport_ops *transport_registry[TRANSPORT_MAX];

/* The receiver's transport saw data frame k of flow f ahead of rcv_nxt (a gap before it): counted for
 * summary.json's reordering and counters.csv's ooo_rx.  Every transport calls it there, before moving rcv_nxt. */
void transport_out_of_order(struct flow *f, const struct pkt *k) __attribute__((noinline));

/*
 * For a transport's hooks other than sent: snd_nxt becomes next, but a flow on its port's ready list is not held
 * back (the NIC sends its snd_nxt when its turn comes, which may since have been acknowledged: sent again,
 * harmlessly).  Returns whether there is something to send.
 */
static inline bool transport_set_next(struct flow *f, uint32_t next)
{
    if (next >= f->n_pkts && f->in_ready)
        return true;
    f->snd_nxt = next;
    return next < f->n_pkts;
}

/* The transport of host.loss_recovery's value `index`. */
static inline const struct transport_ops *transport_of(int index) { return transport_registry[index]; }

#include "models/transport_gbn.h"

/* The NIC's calls: go-back-N inline, any other transport through its table. */
static inline void transport_sent(struct flow *f)
{
    if (__builtin_expect(f->transport == TRANSPORT_GBN, 1))
        gbn_sent(f);
    else
        transport_registry[f->transport]->sent(f);
}

static inline struct transport_reply transport_on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    if (__builtin_expect(f->transport == TRANSPORT_GBN, 1))
        return gbn_on_data(f, k, ack_every);
    return transport_registry[f->transport]->on_data(f, k, ack_every);
}

static inline void transport_on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a)
{
    if (__builtin_expect(f->transport == TRANSPORT_GBN, 1)) {
        gbn_on_ack(f, k, a);
    } else {
        *a = (struct cc_ack){0}; /* what a module leaves unfilled reads as nothing learnt, not as the stack's */
        transport_registry[f->transport]->on_ack(f, k, a);
    }
}

static inline bool transport_recover(struct flow *f, const struct pkt *k)
{
    if (__builtin_expect(f->transport == TRANSPORT_GBN, 1))
        return gbn_recover(f, k);
    return transport_registry[f->transport]->recover(f, k);
}

static inline struct transport_reply transport_on_trimmed(struct flow *f, const struct pkt *k)
{
    const struct transport_ops *t = transport_registry[f->transport];
    return t->on_trimmed ? t->on_trimmed(f, k) : (struct transport_reply){0};
}

static inline void transport_stamp(struct flow *f, struct pkt *k)
{
    const struct transport_ops *t = transport_registry[f->transport];
    if (t->stamp)
        t->stamp(f, k);
}

static inline void transport_on_timeout(struct flow *f)
{
    if (__builtin_expect(f->transport == TRANSPORT_GBN, 1))
        gbn_on_timeout(f);
    else
        transport_registry[f->transport]->on_timeout(f);
}

#endif
