/*
 * transport_gbn — go-back-N, the loss recovery of RoCE v2's reliable connection (InfiniBand Architecture
 * Specification, volume 1, 9.7 "Reliable service", and its RoCE v2 annex A17): the responder accepts data frames
 * in PSN order only; on a PSN gap it answers one NAK (PSN sequence error) carrying the PSN it expects and
 * discards the frames out of order until that PSN arrives; the requester, on the NAK, resends everything from
 * that PSN, and after its timeout (the QP's Local ACK Timeout) from its oldest unacknowledged PSN.
 *
 * Receiver: ACK (cumulative: next expected PSN) every `ack_every` in-order packets and at the last one; on a gap
 * one NACK per gap (flow.nack_outstanding), the out-of-order packets discarded; duplicates are re-acknowledged; a
 * trimmed packet (trim.c) at or above the next expected PSN is a gap too.
 * Sender: snd_nxt is the next PSN; an ACK moves snd_una (and snd_nxt, if a NACK or timeout had left it behind); a
 * NACK(e) with e at or above snd_una moves snd_nxt back to e; a timeout moves it back to snd_una.
 *
 * Its hooks are here, inline, because the NIC calls them directly for every frame when go-back-N is the flow's
 * transport (transport.h); transport_gbn.c registers them as the module "go-back-n".
 */
#ifndef MODELS_TRANSPORT_GBN_H
#define MODELS_TRANSPORT_GBN_H

/* Included by transport.h, after struct transport_ops and struct transport_reply. */

static inline void gbn_sent(struct flow *f) { f->snd_nxt++; }

static inline struct transport_reply gbn_on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    if (k->psn == f->rcv_nxt) {
        f->rcv_nxt++;
        f->nack_outstanding = false;
        f->since_ack++;
        if (f->rcv_nxt == f->n_pkts || f->since_ack >= ack_every) {
            f->since_ack = 0;
            return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt};
        }
        return (struct transport_reply){0};
    }
    if (k->psn > f->rcv_nxt) {
        transport_out_of_order(f, k);
        if (f->nack_outstanding)
            return (struct transport_reply){0};
        f->nack_outstanding = true;
        return (struct transport_reply){.type = PKT_NACK, .psn = f->rcv_nxt};
    }
    return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt}; /* a duplicate: its ACK may have been lost */
}

/* A trimmed frame (trim.c): PSN psn is lost.  At or above rcv_nxt it is a gap, NACKed as one, once. */
static inline struct transport_reply gbn_on_trimmed(struct flow *f, const struct pkt *k)
{
    if (k->psn < f->rcv_nxt || f->nack_outstanding)
        return (struct transport_reply){0};
    f->nack_outstanding = true;
    return (struct transport_reply){.type = PKT_NACK, .psn = f->rcv_nxt};
}

static inline void gbn_on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a)
{
    uint32_t una = f->snd_una;
    if (k->psn > una) {
        f->snd_una = k->psn;
        if (f->snd_nxt < f->snd_una)
            f->snd_nxt = f->snd_una;
    }
    a->psn = k->psn;
    a->newly_acked = f->snd_una - una;
    a->nack = k->type == PKT_NACK;
}

static inline bool gbn_recover(struct flow *f, const struct pkt *k)
{
    if (k->type == PKT_NACK && k->psn >= f->snd_una && f->snd_nxt > k->psn) {
        f->snd_nxt = k->psn; /* go back N */
        return true;
    }
    return false;
}

static inline void gbn_on_timeout(struct flow *f) { f->snd_nxt = f->snd_una; }

#endif
