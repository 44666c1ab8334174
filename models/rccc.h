/*
 * rccc — Ultra Ethernet's receiver credit-based congestion control (RCCC), the part of UET's delivery
 * (transport_uet.c) that lets a receiver meter its senders: host.uet.rccc.  The formulas and the reference are at
 * the top of rccc.c; this is what the transport calls.
 *
 * The sender's credit (struct rccc_snd) lives in the flow's UET sender state and is written by the sender's hooks
 * alone; the receiver's pull bookkeeping (struct rccc_rcv) in its receiver state.  Each host keeps one
 * struct rccc_host (host.rccc, made at its first need, in its own event): as a receiver its pull pacer, shared by
 * every flow into it, whose timer is the host's own; as a sender the count of its flows that have credit and
 * something to send.  A receiving host with host.uet.oversub_cc also keeps the oversubscription control that scales
 * its pacer (struct rccc_oversub, rccc_oversub.c), counting the frames of the flows into it that run on credit.
 */
#ifndef MODELS_RCCC_H
#define MODELS_RCCC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"
#include "models/uet.h"

/* The sender's credit. */
struct rccc_snd {
    int64_t credit;      /* bytes it may still send; a frame goes while > 0, so it may end up to a frame below 0 */
    int64_t max;         /* max_credit x BDP, bytes */
    int64_t backlog;     /* frame bytes of the PSNs never sent */
    int64_t pull;        /* the highest pull counter heard (quanta) */
    sim_time_t rtt;      /* the round trip the window is sized from, and the least time between two RTS */
    sim_time_t last_rts; /* -1: none sent */
    bool speculating;    /* nothing heard back yet: the credit is the speculative start */
    bool active;         /* counted in its host's rccc_host.active */
};

/* The oversubscription control's state that its rule changes (rccc_oversub_step). */
struct rccc_oversub_ctl {
    double rate;        /* the pacer's scale, in [min_rate, 1] */
    double g;           /* the moving average of the CE-marked fraction */
    uint32_t increases; /* periods in a row without a decrease */
};

/* A receiving host's oversubscription control (rccc_oversub.c): its counts since its last period, in its own events
 * only, and its timer, the host's own. */
struct rccc_oversub {
    struct sim_timer timer;
    struct rng rng;              /* its periods' jitter: RNG_KIND_OVERSUB, by host */
    struct net *net;
    const struct rccc_oversub_params *p;
    sim_time_t period;           /* 1.5 x the receiving host's host.uet.base_rtt */
    sim_time_t rested;           /* when it stopped for want of anything to change; -1: running */
    uint64_t received, ecn, trim_last, trim_other;
    struct rccc_oversub_ctl ctl;
};

/* What a frame into a host under the control is, for its counts. */
enum rccc_rx { RCCC_RX_PLAIN, RCCC_RX_ECN, RCCC_RX_TRIM_LAST, RCCC_RX_TRIM_OTHER };

/* The control of host idx (its settings p, its base RTT base_rtt): made at the host's first need. */
struct rccc_oversub *rccc_oversub_new(struct net *n, uint32_t idx, const struct rccc_oversub_params *p,
                                      sim_time_t base_rtt);
/* One period's rule: received frames (data, trimmed, RTS), of which ecn data frames CE-marked, trim_last trimmed at
 * the last hop and trim_other before it. */
void rccc_oversub_step(struct rccc_oversub_ctl *c, const struct rccc_oversub_params *p, uint64_t received,
                       uint64_t ecn, uint64_t trim_last, uint64_t trim_other);
/* A frame arrived while the control was resting: it runs again. */
void rccc_oversub_wake(struct rccc_oversub *o);

/* The receiver's pull state of a flow, and its places in its host's pacer's lists. */
struct rccc_rcv {
    struct flow *f;
    struct rccc_oversub *os; /* its host's oversubscription control, or NULL */
    int64_t target;      /* the highest pull target heard (quanta) */
    int64_t pulled;      /* the pull counter granted so far (quanta) */
    int64_t slow_max;    /* unasked credit an idle sender may be given (quanta) */
    struct rccc_rcv *act_prev, *act_next, *idle_prev, *idle_next;
    bool in_act, in_idle;
};

/* Sender: its credit at the flow's first frame (the speculative start); total: the flow's frame bytes. */
void rccc_snd_init(struct flow *f, struct rccc_snd *c, int64_t total);
/* Sender: a frame of `bytes` goes, new (never sent) or a resend. */
static inline void rccc_spend(struct rccc_snd *c, uint32_t bytes, bool fresh)
{
    c->credit -= bytes;
    if (fresh)
        c->backlog -= bytes;
}
/* Sender: the pull target a data frame (or an RTS) carries, in quanta; rtx: the frame bytes queued for resend. */
int64_t rccc_target(const struct flow *f, const struct rccc_snd *c, int64_t rtx);
/* Sender: the receiver answered (an ACK, a NACK or a PULL): the speculative credit left is dropped. */
static inline void rccc_heard(struct rccc_snd *c)
{
    if (c->speculating) {
        c->speculating = false;
        if (c->credit > 0)
            c->credit = 0;
    }
}
/* Sender: a PULL frame k arrived (after rccc_heard): its credit. */
void rccc_pulled(struct rccc_snd *c, const struct pkt *k);
/* Sender: sends an RTS carrying the pull target, unless one went less than a round trip ago. */
void rccc_rts(struct flow *f, struct rccc_snd *c, int64_t rtx);
/* Sender: after each of its hooks, whether the flow has credit and something to send (rtx: the bytes queued for
 * resend), for its host's count; done: the sender's state is going. */
void rccc_active(struct flow *f, struct rccc_snd *c, int64_t rtx, bool done);

/* Receiver: its state at the flow's first frame. */
void rccc_rcv_init(struct flow *f, struct rccc_rcv *r);
/* Receiver: a frame carrying pull target `target` (quanta) arrived; ask: a trimmed frame or an RTS, which ask the
 * pacer for a pull even when the target has not moved. */
void rccc_rcv_target(struct flow *f, struct rccc_rcv *r, int64_t target, bool ask);
/* Receiver: a frame of the flow arrived (data, trimmed or RTS): the oversubscription control's count, if any. */
static inline void rccc_rx(struct rccc_rcv *r, enum rccc_rx kind)
{
    struct rccc_oversub *o = r->os;
    if (__builtin_expect(!o, 1))
        return;
    o->received++;
    o->ecn += kind == RCCC_RX_ECN;
    o->trim_last += kind == RCCC_RX_TRIM_LAST;
    o->trim_other += kind == RCCC_RX_TRIM_OTHER;
    if (o->rested >= 0)
        rccc_oversub_wake(o);
}
/* Receiver: the flow is done at the receiver (or the run ends): it leaves the pacer. */
void rccc_rcv_done(struct flow *f, struct rccc_rcv *r);

/* Whether host settings h ask for RCCC where it cannot run (0), or SCN_EUSAGE with the message (profiles.c). */
int rccc_check_host(const struct net *n, const struct host *h, const char *name, char *err, size_t errlen);

#endif
