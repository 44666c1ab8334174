/*
 * transport_sr — selective repeat as IRN specifies it (R. Mittal, A. Shpiner, A. Panda, E. Zahavi,
 * A. Krishnamurthy, S. Ratnasamy, S. Shenker, "Revisiting Network Support for RDMA", SIGCOMM 2018, section 3):
 * RoCE's reliable connection with the loss recovery it needs to run without PFC.  host.loss_recovery "selective".
 *
 * Receiver: it keeps the packets that arrive out of order (a bitmap of the PSNs above rcv_nxt it holds) and answers
 * each with a NACK carrying the cumulative point (rcv_nxt) and a selective acknowledgement (the frame's 16-bit
 * sack): the PSN that arrived, and which of the three PSNs below it (above rcv_nxt) it holds, so that one lost NACK
 * does not make the sender resend a packet that arrived; in order it acknowledges every ack_every packets, at the
 * last one, and at once when the packet filled a gap (rcv_nxt jumps over what it held).
 *
 * Sender: a NACK enters loss recovery (until the cumulative point passes the highest PSN sent when it began).  In
 * recovery the sender resends, lowest first and each once, the PSNs below the highest selectively acknowledged one
 * that no NACK named, before any new packet: what IRN infers lost.  New packets go out only while fewer than
 * bdp_cap are unacknowledged (IRN's BDP-FC: the cap is the path's bandwidth-delay product in packets, "auto" the
 * flow's own: its line rate times the round trip of a full frame and its ACK on the empty network).  The timeout
 * is rto_low while fewer than low_threshold packets are unacknowledged, else rto_high (IRN's two timeouts, its
 * defaults 100 us, 320 us and N = 3); a timeout resends every PSN not selectively acknowledged, once.
 *
 * Bounds: each end keeps a ring of bits over PSNs [una, una + cap), cap the power of two at or above bdp_cap (at
 * most MAX_CAP: 1 KB for the sender's two bitmaps, 512 bytes for the receiver's), allocated at a flow's first
 * packet and freed when that end is done; the memory estimate counts them (transport_ops.state_bytes).  A sender
 * never has a PSN at or above una + bdp_cap unacknowledged, so the receiver's ring always has its bit: a frame
 * beyond it would be a bug, and aborts.
 *
 * What rocesim takes where IRN leaves a choice (docs/model.md): a NACK names the packet that caused it, as IRN's
 * does, and the three below it (with IRN's one, each lost NACK cost a spurious resend: 13 of 75 resends in the
 * random-loss row of docs/VALIDATION.md); reordering is not told apart from loss by default (IRN assumes one path
 * per flow), but host.selective.reorder may wait for a PSN that far above a hole before resending it; ACKs are not
 * delayed beyond ack_every.
 */
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAP 4096 /* the ring's PSNs: a NACK's sack reaches every one in its low 12 bits */
#define SACK_OFF_BITS 12
#define SACK_BELOW 3    /* the sack's next 3 bits: which of the 3 PSNs below the one that arrived the receiver holds */
#define SACK_TRIMMED 0x8000u /* its top bit: the PSN it names was trimmed (lost), not received */
#define TRIM_RING 64    /* trimmed PSNs a sender keeps to resend first; more wait for the recovery or the timeout */

struct sr_params {
    int bdp_cap;       /* packets; 0: "auto" */
    int64_t rto_low_ps, rto_high_ps;
    int low_threshold; /* packets unacknowledged below which rto_low applies (IRN's N) */
    int reorder;       /* a hole is inferred lost once a PSN this many above it has arrived (IRN: 1) */
};

static const struct setting_group sr_group;

static const struct sr_params *sr_params_of(const struct flow *f)
{
    return SETTINGS_OF(f->net->hosts[f->src].cfg, sr_group, struct sr_params);
}

/* The sender's state: sacked bits, then resent bits, each over [snd_una, snd_una + cap). */
struct sr_snd {
    uint32_t cap, w;  /* ring size (a power of two) and bdp_cap (<= cap) */
    uint32_t rec_end; /* recovery ends when snd_una reaches it */
    uint32_t cursor;  /* in recovery: no PSN below it is left to resend */
    uint32_t high;    /* in recovery: holes below it are inferred lost */
    uint32_t reorder; /* host.selective.reorder: holes count below high - reorder + 1 only, but after a timeout */
    bool in_rec, timed_out;
    uint32_t trim[TRIM_RING]; /* PSNs a switch trimmed, to resend before anything else */
    uint32_t trim_head, trim_n;
    uint64_t bits[];
};

struct sr_rcv {
    uint32_t cap;
    uint64_t bits[];
};

static inline bool bit_get(const uint64_t *b, uint32_t i) { return (b[i >> 6] >> (i & 63)) & 1; }
static inline void bit_set(uint64_t *b, uint32_t i) { b[i >> 6] |= 1ull << (i & 63); }
static inline void bit_clear(uint64_t *b, uint32_t i) { b[i >> 6] &= ~(1ull << (i & 63)); }

static uint32_t pow2_at_least(uint32_t w)
{
    uint32_t c = 64;
    while (c < w)
        c <<= 1;
    return c;
}

/* The flow's cap in packets: bdp_cap, or its bandwidth-delay product on the empty network. */
static uint32_t window_of(const struct flow *f)
{
    const struct sr_params *p = sr_params_of(f);
    if (p->bdp_cap)
        return (uint32_t)p->bdp_cap;
    const struct net *n = f->net;
    int64_t bn;
    uint32_t wire = f->mtu + n->fr.hdr_data + n->fr.wire;
    sim_time_t rtt = net_host_path_time(n, f->src, f->dst, wire, &bn) +
                     net_host_path_time(n, f->dst, f->src, (uint32_t)(n->fr.frame_ack + n->fr.wire), &bn);
    double pkts = (double)f->line_bps * (double)rtt / PS_PER_S / 8 / wire;
    uint32_t w = pkts < 1 ? 1 : pkts > MAX_CAP ? MAX_CAP : (uint32_t)(pkts + 0.999999);
    return w;
}

static struct sr_snd *snd_of(struct flow *f)
{
    struct sr_snd *s = f->tp_snd;
    if (!s) {
        uint32_t w = window_of(f), cap = pow2_at_least(w);
        s = mem_xcalloc(1, sizeof *s + 2 * (cap / 8), "a selective-repeat sender's bitmaps");
        s->cap = cap;
        s->w = w;
        s->reorder = (uint32_t)sr_params_of(f)->reorder;
        f->tp_snd = s;
    }
    return s;
}

static inline uint64_t *sacked(struct sr_snd *s) { return s->bits; }
static inline uint64_t *resent(struct sr_snd *s) { return s->bits + s->cap / 64; }

/* The PSN to send next, with smax the highest sent + 1: a hole to resend in recovery, else new data within the
 * cap, else n_pkts (nothing now). */
static uint32_t next_psn(struct flow *f, struct sr_snd *s, uint32_t smax)
{
    /* a trimmed PSN is known lost: first, whatever the reorder window says */
    while (s->trim_n) {
        uint32_t p = s->trim[s->trim_head], m = s->cap - 1;
        if (p >= f->snd_una && p < smax && !bit_get(sacked(s), p & m) && !bit_get(resent(s), p & m))
            return p;
        s->trim_head = (s->trim_head + 1) % TRIM_RING;
        s->trim_n--;
    }
    if (s->in_rec) {
        uint32_t m = s->cap - 1, end = s->high;
        if (!s->timed_out)
            end = end > s->reorder - 1 ? end - (s->reorder - 1) : 0;
        uint32_t p = s->cursor > f->snd_una ? s->cursor : f->snd_una;
        for (; p < end; p++)
            if (!bit_get(sacked(s), p & m) && !bit_get(resent(s), p & m))
                break;
        s->cursor = p;
        if (p < end)
            return p;
    }
    if (smax < f->n_pkts && smax - f->snd_una < s->w)
        return smax;
    return f->n_pkts;
}

static void sent(struct flow *f)
{
    struct sr_snd *s = snd_of(f);
    uint32_t psn = f->snd_nxt, smax = f->snd_max > psn + 1 ? f->snd_max : psn + 1;
    if (psn < f->snd_max)
        bit_set(resent(s), psn & (s->cap - 1));
    f->snd_nxt = next_psn(f, s, smax);
}

static void release_snd(struct flow *f)
{
    free(f->tp_snd);
    f->tp_snd = NULL;
}

/* The PSN a NACK's sack names: its low bits are the offset above the cumulative point, plus one. */
static inline uint32_t sack_psn(const struct pkt *k) { return k->psn + (k->quanta & ((1u << SACK_OFF_BITS) - 1)) - 1; }

static void on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a)
{
    struct sr_snd *s = snd_of(f);
    uint32_t una = f->snd_una, m = s->cap - 1;
    if (k->psn > una) {
        for (uint32_t p = una; p < k->psn; p++) {
            bit_clear(sacked(s), p & m);
            bit_clear(resent(s), p & m);
        }
        f->snd_una = k->psn;
    }
    if (k->type == PKT_NACK && (k->quanta & SACK_TRIMMED)) {
        uint32_t lost = sack_psn(k);
        if (lost >= f->snd_una && lost < f->snd_max && s->trim_n < TRIM_RING) {
            s->trim[(s->trim_head + s->trim_n) % TRIM_RING] = lost;
            s->trim_n++;
            bit_clear(resent(s), lost & m); /* a resent copy trimmed again goes again */
        }
    } else if (k->type == PKT_NACK && k->quanta) {
        uint32_t got = sack_psn(k);
        if (got >= f->snd_una && got < f->snd_max) {
            bit_set(sacked(s), got & m);
            for (uint32_t i = 0; i < SACK_BELOW; i++)
                if ((k->quanta >> (SACK_OFF_BITS + i)) & 1 && got - 1 - i >= f->snd_una)
                    bit_set(sacked(s), (got - 1 - i) & m);
            if (!s->in_rec) {
                s->in_rec = true;
                s->timed_out = false;
                s->rec_end = f->snd_max;
                s->cursor = f->snd_una;
                s->high = got + 1;
            } else if (got + 1 > s->high) {
                s->high = got + 1;
            }
        }
    }
    if (s->in_rec && f->snd_una >= s->rec_end)
        s->in_rec = false;
    a->psn = k->psn;
    a->newly_acked = f->snd_una - una;
    a->nack = k->type == PKT_NACK;
    if (f->snd_una >= f->n_pkts)
        release_snd(f);
}

/* After the ACK: the next PSN (a hole, or new data the cap now lets go). */
static bool recover(struct flow *f, const struct pkt *k)
{
    (void)k;
    if (!f->tp_snd)
        return false; /* done */
    uint32_t before = f->snd_nxt;
    return transport_set_next(f, next_psn(f, f->tp_snd, f->snd_max)) &&
           (before >= f->n_pkts || f->snd_nxt != before);
}

/* Every PSN not selectively acknowledged is resent, once. */
static void on_timeout(struct flow *f)
{
    struct sr_snd *s = snd_of(f);
    memset(resent(s), 0, s->cap / 8);
    s->in_rec = true;
    s->timed_out = true;
    s->rec_end = f->snd_max;
    s->cursor = f->snd_una;
    s->high = f->snd_max;
    transport_set_next(f, next_psn(f, s, f->snd_max));
}

static sim_time_t rto(const struct flow *f, sim_time_t dflt)
{
    (void)dflt;
    const struct sr_params *p = sr_params_of(f);
    return f->snd_max - f->snd_una < (uint32_t)p->low_threshold ? p->rto_low_ps : p->rto_high_ps;
}

static struct transport_reply on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    struct sr_rcv *r = f->tp_rcv;
    if (k->psn < f->rcv_nxt)
        return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt}; /* a duplicate */
    if (!r) {
        uint32_t cap = pow2_at_least(window_of(f));
        r = mem_xcalloc(1, sizeof *r + cap / 8, "a selective-repeat receiver's bitmap");
        r->cap = cap;
        f->tp_rcv = r;
    }
    uint32_t m = r->cap - 1;
    if (k->psn > f->rcv_nxt) {
        transport_out_of_order(f, k);
        uint32_t off = k->psn - f->rcv_nxt;
        if (off >= r->cap) {
            fprintf(stderr, "rocesim: bug: flow %s: PSN %u beyond the receiver's window (%u from %u)\n", f->name,
                    k->psn, r->cap, f->rcv_nxt);
            abort();
        }
        bit_set(r->bits, k->psn & m);
        uint32_t sack = off + 1;
        for (uint32_t i = 0; i < SACK_BELOW && i + 1 < off; i++)
            if (bit_get(r->bits, (k->psn - 1 - i) & m))
                sack |= 1u << (SACK_OFF_BITS + i);
        return (struct transport_reply){.type = PKT_NACK, .psn = f->rcv_nxt, .sack = (uint16_t)sack};
    }
    f->rcv_nxt++;
    f->since_ack++;
    bool filled = false;
    while (f->rcv_nxt < f->n_pkts && bit_get(r->bits, f->rcv_nxt & m)) {
        bit_clear(r->bits, f->rcv_nxt & m);
        f->rcv_nxt++;
        filled = true;
    }
    bool last = f->rcv_nxt == f->n_pkts;
    if (last) {
        free(r);
        f->tp_rcv = NULL;
    }
    if (last || filled || f->since_ack >= ack_every) {
        f->since_ack = 0;
        return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt};
    }
    return (struct transport_reply){0};
}

/* A switch trimmed PSN k->psn: a NACK that names it, so that the sender resends it at once. */
static struct transport_reply on_trimmed(struct flow *f, const struct pkt *k)
{
    if (k->psn < f->rcv_nxt || k->psn - f->rcv_nxt >= MAX_CAP)
        return (struct transport_reply){0};
    return (struct transport_reply){.type = PKT_NACK, .psn = f->rcv_nxt,
                                    .sack = (uint16_t)(SACK_TRIMMED | (k->psn - f->rcv_nxt + 1))};
}

static void release(struct flow *f)
{
    release_snd(f);
    free(f->tp_rcv);
    f->tp_rcv = NULL;
}

/* Both ends' bitmaps and headers (and malloc's 16 bytes each); with "auto" as for AUTO_CAP_ESTIMATE packets. */
#define AUTO_CAP_ESTIMATE 1024 /* 400 Gbps over a 20 us round trip in 1 KB packets */
static size_t state_bytes(const struct scn_host *h)
{
    int w = SETTINGS_OF(h, sr_group, struct sr_params)->bdp_cap;
    uint32_t cap = pow2_at_least(w ? (uint32_t)w : AUTO_CAP_ESTIMATE);
    return sizeof(struct sr_snd) + sizeof(struct sr_rcv) + 3 * (cap / 8) + 2 * 16;
}

/* "auto" (0) or a number of packets. */
static int parse_bdp_cap(struct setting_ctx *sc, const struct setting *fd, const cJSON *v, const char *p, void *base)
{
    struct sr_params *s = base;
    long long w;
    (void)fd;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
        s->bdp_cap = 0;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        char d[96];
        return setting_bad(sc, p, "expected \"auto\" or a number of packets 1..%d, got %s", MAX_CAP,
                           setting_describe(v, d, sizeof d));
    }
    if (setting_val_int(sc, v, p, 1, MAX_CAP, &w) < 0)
        return -1;
    s->bdp_cap = (int)w;
    return 0;
}

static void dump_bdp_cap(cJSON *o, const struct setting *fd, const void *base)
{
    const struct sr_params *s = base;
    if (s->bdp_cap)
        cJSON_AddNumberToObject(o, fd->name, s->bdp_cap);
    else
        cJSON_AddStringToObject(o, fd->name, "auto");
}

static int check_sr(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct sr_params *s = base;
    char p[SETTING_PATH_MAX], a[32], b[32];
    (void)obj;
    if (s->rto_low_ps > s->rto_high_ps)
        return setting_bad(sc, setting_join(p, path, "rto_low"), "expected at most rto_high (%s), got %s",
                           units_fmt_time(s->rto_high_ps, a, sizeof a), units_fmt_time(s->rto_low_ps, b, sizeof b));
    return 0;
}

static const struct setting sr_fields[] = {
    {SET_FIELD("bdp_cap", SETTING_INT, struct sr_params, bdp_cap, 0, "auto",
               "Packets a flow may have unacknowledged (IRN's BDP-FC): \"auto\" (the flow's bandwidth-delay product "
               "on the empty network, at most 4096) or 1..4096"),
     .lo = 1, .hi = MAX_CAP, .parse = parse_bdp_cap, .dump = dump_bdp_cap},
    {SET_FIELD("rto_low", SETTING_TIME, struct sr_params, rto_low_ps, SETTING_POSITIVE, "100us",
               "Timeout while fewer than low_threshold packets are unacknowledged")},
    {SET_FIELD("rto_high", SETTING_TIME, struct sr_params, rto_high_ps, SETTING_POSITIVE, "320us",
               "Timeout otherwise")},
    {SET_INT("low_threshold", struct sr_params, low_threshold, 1, MAX_CAP, "3",
             "Packets unacknowledged below which rto_low applies")},
    {SET_INT("reorder", struct sr_params, reorder, 1, MAX_CAP, "1",
             "A missing PSN is resent once one this many above it has arrived (1: at once, as IRN)")},
    {SET_CHECK(check_sr)},
    {0},
};

static const struct setting_group sr_group = {
    .path = "host.selective", .size = sizeof(struct sr_params), .fields = sr_fields,
};

static const struct transport_ops sr_transport_ops = {
    .name = "selective", .sent = sent, .on_data = on_data, .on_ack = on_ack, .recover = recover,
    .on_timeout = on_timeout, .rto = rto, .release = release, .state_bytes = state_bytes, .on_trimmed = on_trimmed};
MODULE_REGISTER(transport_kind, "selective", &sr_transport_ops, &sr_group);
