/*
 * transport_gbn — go-back-N, RoCE v2's reliable connection (InfiniBand Architecture Specification, volume 1, 9.7
 * "Reliable service", and its RoCE v2 annex A17: a PSN sequence error NAK, then the requester resends from the
 * PSN it names; the QP's Local ACK Timeout resends from the oldest unacknowledged PSN).  The hooks are inline in
 * transport_gbn.h, which describes the protocol, for the NIC's direct calls; this file registers them as the
 * module "go-back-n", the transport's default, for the table and for the scenario's name.
 */
#include "models/transport.h"

static void sent(struct flow *f) { gbn_sent(f); }
static struct transport_reply on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    return gbn_on_data(f, k, ack_every);
}
static void on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a) { gbn_on_ack(f, k, a); }
static bool recover(struct flow *f, const struct pkt *k) { return gbn_recover(f, k); }
static void on_timeout(struct flow *f) { gbn_on_timeout(f); }
static struct transport_reply on_trimmed(struct flow *f, const struct pkt *k) { return gbn_on_trimmed(f, k); }

static const struct transport_ops gbn_transport_ops = {
    .name = "go-back-n", .flags = TRANSPORT_F_GOES_BACK, .sent = sent, .on_data = on_data,
    .on_ack = on_ack, .recover = recover, .on_timeout = on_timeout, .on_trimmed = on_trimmed};
MODULE_REGISTER(transport_kind, "go-back-n", &gbn_transport_ops);
