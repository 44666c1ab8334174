/*
 * credit — credit-based link-level flow control per virtual lane, InfiniBand's (InfiniBand Architecture
 * Specification vol. 1, section 7.9, "Flow control"), the second link-level flow control (lfc.h), which the
 * InfiniBand fabric requires (fabric_ib.c).
 *
 * Buffers count in blocks of 64 bytes; a packet takes ceil(bytes / 64) blocks, its bytes from LRH to VCRC.  Each
 * port's sender counts, per VL, the blocks it has sent (FCTBS); each receiver counts the blocks it has received
 * (ABR) and advertises a credit limit
 *     FCCL = ABR + min(free blocks of its buffer for that VL, 2048)
 * in a flow-control packet (6 bytes: Op 4 bits, FCTBS 12, VL 4, FCCL 12, LPCRC 16).  The sender may send a
 * packet of b blocks while FCTBS + b <= FCCL; the specification keeps the counts modulo 4096 (so that at most 2048
 * blocks are ever ahead), the model modulo 2^32 with the same 2048 cap.  A flow-control packet also carries its
 * sender's FCTBS, and its receiver sets ABR to it: the specification's resynchronisation after packets lost on the
 * link, which this model gets by counting a packet lost on arrival as received (lost()).  No packet is
 * ever dropped for buffer: a receiver that finds its VL's buffer full has met a sender that broke the rule, a bug
 * that aborts.
 *
 * Where the specification leaves a choice to the implementation, the model takes these (docs/model.md):
 * - buffers are split statically: switch.credit.vl_buffer per (ingress port, VL), for every VL; switch.buffer and
 *   the PFC settings do not apply; a host (HCA) drains what it receives at once, so it never withholds credit;
 * - the specification requires a flow-control packet per VL at least every 65,536 symbol times and otherwise
 *   lets the receiver choose when to send one: here a receiver sends one when the credit freed since its last one
 *   reaches switch.credit.update bytes, or when its VL's buffer has emptied while its sender may be short of a
 *   largest frame's credit (so that a sender never waits for credit that is already free); a packet still waiting
 *   to go out carries the newest counts (one per VL queued at a time).  The periodic packets, which repeat what
 *   the last one said, are not sent;
 * - a VL is blocked while its credit is below the blocks of the largest frame any host sends (net.frame_max), not
 *   below the next frame's own: a smaller frame (an ACK) waits behind that rule where the specification would let
 *   it go;
 * - flow-control packets travel ahead of queued packets (after the one on the wire), as PAUSE frames do.
 * The VL of a packet is its priority (0-7): its service level's VL (ib.sl2vl, fabric_ib.c).
 */
#include "models/credit.h"
#include "models/lfc.h"
#include "models/mech.h"
#include "models/port.h"
#include "models/switch.h"
#include "sim/mem.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 64
#define AHEAD_MAX 2048 /* blocks a limit may be ahead of what was received (section 7.9: half the modulus 4096) */
#define FC_BYTES 6
#define LARGEST (65 * BLOCK) /* the blocks of the largest packet: 4096 + 26 bytes */

/* switch.credit: the fabric's (one flow control runs the whole network). */
struct credit_settings {
    int64_t vl_buffer; /* bytes per (ingress port, VL) */
    int64_t update;    /* bytes of freed credit that make a receiver send a flow-control packet */
};

/* One port's counts, per VL. */
struct credit_port {
    uint32_t sent[NPRIO];     /* as sender: blocks sent (FCTBS) */
    uint32_t limit[NPRIO];    /* as sender: the last limit the peer advertised (FCCL) */
    uint32_t rcvd[NPRIO];     /* as receiver: blocks received (ABR) */
    uint32_t adv[NPRIO];      /* as receiver: the last limit advertised */
    struct pkt *queued[NPRIO]; /* as receiver: its flow-control packet of that VL still waiting to go out */
    uint32_t cap;             /* as receiver: blocks of buffer per VL (0: a host, which never withholds credit) */
    bool unlimited;           /* as sender: the peer is a host (its cap is 0; kept here because the peer's entry
                               * is written by the peer's partition, and each frame sent reads this) */
};

struct credit_net {
    struct credit_port *ports; /* by port id */
    uint32_t update;           /* blocks (switch.credit.update) */
    uint32_t max_frame;        /* blocks of the largest data frame (net.frame_max: LRH to VCRC) */
};

static inline uint32_t blocks(uint32_t bytes) { return (bytes + BLOCK - 1) / BLOCK; }

static inline struct credit_net *cn_of(const struct net *n) { return n->lfc_state; }

static inline struct credit_port *cp_of(const struct net *n, const struct port *p)
{
    return &cn_of(n)->ports[p - n->ports];
}

/* Credit still free to send on VL v of sender cp (may be negative after a link's reset). */
static inline int32_t room(const struct credit_port *cp, int v) { return (int32_t)(cp->limit[v] - cp->sent[v]); }

/* Receiver in's limit for VL v now: what it has received plus its free blocks, at most AHEAD_MAX ahead. */
static uint32_t limit_now(const struct credit_port *cp, const struct port *in, int v)
{
    uint32_t held = (uint32_t)in->ing_shared[v] / BLOCK;
    uint32_t free_b = cp->cap > held ? cp->cap - held : 0;
    return cp->rcvd[v] + (free_b < AHEAD_MAX ? free_b : AHEAD_MAX);
}

/* Receiver `in` advertises VL v's limit: in the flow-control packet still queued, else in a new one.  Not while its
 * link is down: it advertises again when the link is up (link_up()). */
static void advertise(struct net *n, struct port *in, struct credit_port *cp, int v, uint32_t lim)
{
    if (in->down)
        return;
    cp->adv[v] = lim;
    struct pkt *k = cp->queued[v];
    if (k) {
        k->psn = lim;
        return;
    }
    k = pkt_alloc(n);
    k->type = PKT_PAUSE;
    k->prio = (uint8_t)v;
    k->size = FC_BYTES;
    k->psn = lim; /* FCCL; the FCTBS it also carries is not kept, as nothing here reads it (lost()) */
    k->flow = UINT32_MAX;
    cp->queued[v] = k;
    net_np(n)->c.credit_fc++;
    port_send_ctrl(in, k);
}

/* A frame entered switch w at `in`: it takes its blocks of in's buffer for its VL. */
static int admit(struct net *n, struct sw *w, struct port *in, struct pkt *k)
{
    struct credit_port *cp = cp_of(n, in);
    int v = k->prio;
    int64_t B = sw_frame_bytes(w, k->size); /* whole blocks: the switch counts in 64-byte cells (lfc_ops.cell) */
    if ((uint64_t)in->ing_shared[v] + (uint64_t)B > (uint64_t)cp->cap * BLOCK) {
        fprintf(stderr, "rocesim: bug: %s:%u received a frame of VL %d without credit (%lld bytes held of %u)\n",
                n->g->nodes[in->node].name, in->local, v, (long long)in->ing_shared[v], cp->cap * BLOCK);
        abort();
    }
    in->ing_shared[v] += (int32_t)B;
    w->shared_used += B;
    w->buffered += B;
    k->in_port = in->local;
    cp->rcvd[v] += (uint32_t)(B / BLOCK);
    return LFC_ADMIT;
}

/*
 * Receiver in's VL v has more credit to give: it advertises once switch.credit.update bytes of it are waiting, or
 * at once when its buffer for v is empty and its sender may be stalled.  With nothing held, every frame sent has
 * arrived or is on the wire (and will come through here again), so the sender's room is at most adv - rcvd: below
 * one largest frame, it may be waiting for exactly this credit.
 */
static void maybe_advertise(struct net *n, struct port *in, struct credit_port *cp, int v)
{
    const struct credit_net *c = cn_of(n);
    uint32_t lim = limit_now(cp, in, v);
    int32_t more = (int32_t)(lim - cp->adv[v]);
    if (more > 0 && (more >= (int32_t)c->update ||
                     (in->ing_shared[v] == 0 && (int32_t)(cp->adv[v] - cp->rcvd[v]) < (int32_t)c->max_frame)))
        advertise(n, in, cp, v, lim);
}

/* A frame of VL v that entered through `in` left the buffer. */
static void released(struct net *n, struct sw *w, struct port *in, int v) { maybe_advertise(n, in, cp_of(n, in), v); }

/* Sender p's VL v has run out of credit: blocked, and told to the credits.csv listeners. */
static void stall(struct port *p, int v)
{
    if (p->paused & (1u << v))
        return;
    port_block(p, v);
    NET_NOTIFY(p->net, credit, net_sim(p->net)->now, p->node, p->local, v, true);
}

/* Sender p's VL v has credit for a largest frame again. */
static void unstall(struct port *p, int v)
{
    if (!(p->paused & (1u << v)))
        return;
    port_unblock(p, v);
    NET_NOTIFY(p->net, credit, net_sim(p->net)->now, p->node, p->local, v, false);
}

/* A flow-control packet from p's peer: the limit p may send up to on its VL. */
static void control(struct port *p, const struct pkt *k)
{
    struct net *n = p->net;
    struct credit_port *cp = cp_of(n, p);
    int v = k->prio;
    cp->limit[v] = k->psn;
    if (room(cp, v) >= (int32_t)cn_of(n)->max_frame)
        unstall(p, v);
}

/* Frame k leaves p: a data VL's frame spends its blocks; a flow-control packet of p's is no longer waiting. */
static void sent(struct port *p, const struct pkt *k)
{
    struct net *n = p->net;
    struct credit_port *cp = cp_of(n, p);
    int v = k->prio;
    if (k->type == PKT_PAUSE) {
        if (cp->queued[v] == k)
            cp->queued[v] = NULL;
        return;
    }
    cp->sent[v] += blocks(k->size);
    if (!cp->unlimited && room(cp, v) < (int32_t)cn_of(n)->max_frame)
        stall(p, v);
}

/* p's link failed: its queued flow-control packets are about to be dropped with the rest of its queues. */
static void link_fail(struct port *p)
{
    struct credit_port *cp = cp_of(p->net, p);
    for (int v = 0; v < NPRIO; v++)
        cp->queued[v] = NULL;
}

/*
 * p's link is up again, as link initialization has it: p sends nothing until its peer has advertised, and
 * advertises its own limits (the frames that were on the wire when the link failed counted as received when they
 * arrived: lost()).
 */
static void link_up(struct port *p)
{
    struct net *n = p->net;
    struct credit_port *cp = cp_of(n, p);
    for (int v = 0; v < NPRIO; v++) {
        if (!cp->unlimited) {
            cp->limit[v] = cp->sent[v];
            stall(p, v);
        }
        if (cp->cap)
            advertise(n, p, cp, v, limit_now(cp, p, v));
    }
}

/* A frame of p's peer lost on arrival at p (a failed link, a corrupted frame, no route): it counts as received and
 * at once freed, as its blocks were never held. */
static void lost(struct port *p, const struct pkt *k)
{
    struct net *n = p->net;
    struct credit_port *cp = cp_of(n, p);
    if (!cp->cap || k->type == PKT_PAUSE)
        return;
    cp->rcvd[k->prio] += blocks(k->size);
    maybe_advertise(n, p, cp, k->prio);
}

const struct lfc_ops credit_lfc_ops = {
    .name = "credit",
    .admit = admit,
    .released = released,
    .control = control,
    .link_fail = link_fail,
    .link_up = link_up,
    .lost = lost,
    .sent = sent,
    .every_priority = true,
    .cell = BLOCK,
};

/* See credit.h. */
bool credit_runs(const struct net *n) { return n->lfc == &credit_lfc_ops; }

/* See credit.h. */
bool credit_counts(const struct net *n, const struct port *p, int vl, struct credit_count *out)
{
    if (!credit_runs(n))
        return false;
    const struct credit_port *cp = cp_of(n, p);
    *out = (struct credit_count){.sent = cp->sent[vl], .limit = cp->limit[vl], .received = cp->rcvd[vl],
                                 .advertised = cp->adv[vl]};
    return true;
}

/* ---- set-up: each port's buffer and its peer's first advertisement (link initialization) ---- */

static const struct setting_group credit_group;

static void credit_init(struct net *n)
{
    if (!credit_runs(n))
        return;
    const struct credit_settings *cs = SETTINGS_OF(&n->scn->sw, credit_group, struct credit_settings);
    struct credit_net *c = mem_xcalloc(1, sizeof *c, "building the network's credits");
    c->ports = mem_xcalloc_big(n->g->n_ports, sizeof *c->ports, "building the network's credits");
    c->update = blocks((uint32_t)cs->update);
    c->max_frame = blocks((uint32_t)n->frame_max);
    n->lfc_state = c;
    uint32_t cap = (uint32_t)(cs->vl_buffer / BLOCK);
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        struct port *p = &n->ports[i];
        struct credit_port *cp = &c->ports[i];
        cp->cap = p->kind == NODE_HOST ? 0 : cap;
        cp->unlimited = p->peer->kind == NODE_HOST;
        for (int v = 0; v < NPRIO; v++)
            cp->adv[v] = cp->cap < AHEAD_MAX ? cp->cap : AHEAD_MAX;
    }
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        struct credit_port *cp = &c->ports[i];
        const struct credit_port *peer = &c->ports[n->ports[i].peer - n->ports];
        for (int v = 0; v < NPRIO; v++)
            cp->limit[v] = peer->adv[v];
    }
}

static void credit_free(struct net *n)
{
    struct credit_net *c = credit_runs(n) ? n->lfc_state : NULL;
    if (!c)
        return;
    free(c->ports);
    free(c);
    n->lfc_state = NULL;
}

static const struct net_mech_ops credit_mech = {.name = "credit", .order = 12, .init = credit_init,
                                                .free = credit_free};

/*
 * Whole credits, room for the largest packet (4096 bytes of payload: 65 credits), and updates of at most a
 * quarter of the buffer, so that a sender is not kept waiting for credit its receiver already has.
 */
static int check_credit(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct credit_settings *cs = base;
    char p[SETTING_PATH_MAX], a[32], b[32];
    (void)obj;
    if (cs->vl_buffer % BLOCK || cs->vl_buffer < LARGEST)
        return setting_bad(sc, setting_join(p, path, "vl_buffer"), "expected whole 64-byte credits, at least %d "
                           "bytes (one 4096-byte packet), got %lld bytes", LARGEST, (long long)cs->vl_buffer);
    if (cs->update > cs->vl_buffer / 4)
        return setting_bad(sc, setting_join(p, path, "update"), "expected at most a quarter of vl_buffer (%s), got "
                           "\"%s\"", units_fmt_size(cs->vl_buffer / 4, a, sizeof a),
                           units_fmt_size(cs->update, b, sizeof b));
    return 0;
}

static const struct setting credit_fields[] = {
    {SET_FIELD("vl_buffer", SETTING_SIZE, struct credit_settings, vl_buffer, SETTING_POSITIVE, "128KB",
           "Receive buffer per (switch ingress port, virtual lane), in whole 64-byte credits")},
    {SET_FIELD("update", SETTING_SIZE, struct credit_settings, update, SETTING_POSITIVE, "16KB",
           "A receiver sends a flow-control packet when this much credit has been freed since its last one (or "
           "its buffer has emptied)")},
    {SET_CHECK(check_credit)},
    {0},
};

static const struct setting_group credit_group = {
    .path = "switch.credit", .size = sizeof(struct credit_settings), .after = "pfc", .fields = credit_fields,
};

int64_t credit_vl_buffer(const struct scn_switch *c)
{
    return SETTINGS_OF(c, credit_group, struct credit_settings)->vl_buffer;
}

MODULE_REGISTER(lfc_kind, "credit", &credit_lfc_ops, &credit_group);
NET_MECH(credit_mech)
