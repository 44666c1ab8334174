/*
 * cc_nscc — NSCC, the network-signal congestion control of Ultra Ethernet's transport, as the UEC reference
 * simulator implements it (ultraethernet/uet-htsim, htsim/sim/uec.cpp, its 2025 code: UecSrc::initNsccParams,
 * initNscc, processAck, updateCwndOnAck_NSCC, quick_adapt, update_delay, updateCwndOnNack_NSCC), behind the
 * congestion-control table (cc.h).  A window in bytes (flow.cc_wnd) driven by two signals per ACK, the ECN echo
 * and the queuing delay (RTT sample - base RTT); the NIC sends at line rate within the window.
 *
 * Constants (the reference's initNsccParams; MSS the data frame's payload, host.mtu; MTU the whole data frame,
 * host.mtu + the fabric's data headers; LS the sender's line rate; RTT_net the network's round trip, network_rtt):
 *   reference network   LS_ref = 100 Gbit/s, RTT_ref = 12 us, BDP_ref = RTT_ref x LS_ref / 8 = 150,000 B
 *   BDP_net   = RTT_net x LS / 8 (whole bytes)
 *   target    = target_delay, or 0.75 x RTT_net when some switch trims, RTT_net otherwise
 *   a         = BDP_net / BDP_ref                      (1.16856 at 100 Gbit/s and RTT_net 14.0227 us)
 *   b         = target / RTT_ref                       (0.87642 there)
 *   alpha     = 4 x MSS x a x b / target, bytes/ps     (0.00159158 there, MSS 4086)
 *   fi        = 5 x MSS x a                            (23,873.7 B)
 *   eta       = 0.15 x MSS x a                         (716.21 B)
 *   gamma     = 0.8,  fi_scale = 0.25 x a              (0.29214)
 *   delay EWMA gain 0.0125; adjust period RTT_net, adjust bytes 8 x MTU; quick-adapt threshold 4 x target,
 *   quick-adapt gate maxwnd / 2^qa_gate (qa_gate 3); fast increase below 1 us of delay;
 *   maxwnd = 1.5 x BDP, BDP = base_rtt x LS / 8 (per flow, following its base RTT); min cwnd = MTU.
 *
 * Per flow (initNscc): base_rtt = RTT_net (or the pair's own unloaded round trip), cwnd = window or maxwnd.
 * Per ACK of `bytes` newly acknowledged (the receiver's byte count), with an RTT sample rtt or none:
 *   base_rtt = min(base_rtt, rtt);  delay = rtt - base_rtt, or avg_delay without a sample
 *   avg_delay = 0.0125 x (base_rtt / 4) + 0.9875 x avg_delay   unmarked and delay > target
 *               0.0125 x delay + 0.9875 x avg_delay            otherwise (the reference's separate gain for
 *                                                             delays above 5 x base_rtt is the same 0.0125)
 *   quick adapt first (below); if it acts or ignores the ACK, nothing else.  Then by ECN echo and delay:
 *     unmarked, delay >= target: fair increase          inc_bytes += fi x bytes
 *     unmarked, delay <  target: fast increase if delay < 1 us for more than a window of bytes in a row
 *                                (cwnd += fi_scale x bytes at once), else proportional increase
 *                                inc_bytes += alpha x bytes x (target - delay)
 *     marked,   delay >= target: multiplicative decrease, when avg_delay > target and more than base_rtt
 *                                after the last: cwnd *= max(1 - gamma x (avg_delay - target) / avg_delay, 0.5)
 *     marked,   delay <  target: nothing (the echo is for load balancing)
 *   fulfil adjustment, when more than 8 x MTU were acknowledged since the last or more than RTT_net passed since
 *   the last eta: cwnd += inc_bytes / cwnd (so fi per window of ACKs, about fi per RTT), and cwnd += eta when
 *   RTT_net has passed since the last eta; then cwnd stays within [MTU, maxwnd].
 * Quick adapt, on every ACK and NACK, once per period of base_rtt + target: when the period ended with a loss
 * or a delay above 4 x target, and fewer than maxwnd / 2^qa_gate bytes were acknowledged in it, cwnd = those
 * bytes (at least MTU), and the ECN-marked ACKs and NACKs of the bytes then in flight are ignored.
 * NACK (a trimmed packet of nack_bytes; none when the packet is no longer in flight): the delay EWMA takes a sample
 * of RTT_net, quick adapt is asked for, and unless it acts, cwnd -= nack_bytes (not for a trim at the last hop when
 * the receiver's credit paces that link, RCCC: cc_ack.last_hop).  Timeout: cwnd -= the bytes resent, at least MTU.
 *
 * Integer where the reference keeps integers: the window, the byte counts and avg_delay in whole bytes and
 * picoseconds, rounded down after each update as its assignments round them.  inc_bytes is 64 bits where the
 * reference's is 32 (which wraps at 800 Gbit/s within one fulfil period of fair increase).  Left out: SLEEK (its
 * loss recovery), the DCTCP and constant alternatives, and the receiver's window penalty (always off in its code).
 *
 * RTT_net "auto" is the network's: the longest round trip from host 0 (its largest data frame out, an ACK back,
 * with the links' preamble and gap) over the empty network, worked out once when the network is built.  That is
 * the longest path of the network in a symmetric fabric (fat tree, leaf-spine), where every host sees the same
 * farthest distance.
 */
#include "models/cc_nscc.h"
#include "models/mech.h"
#include "models/nic.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(struct nscc_state) <= CC_STATE_BYTES, "NSCC's state fits the flow's cc_state");

#define REF_BDP 150000.0              /* 12 us x 100 Gbit/s / 8 */
#define REF_RTT_PS (12 * PS_PER_US)
#define GAMMA 0.8
#define DELAY_ALPHA 0.0125
#define FAST_DELAY_PS PS_PER_US

extern const struct cc_ops cc_nscc_ops;
static struct setting_group nscc_group;

static struct nscc_state *st(struct flow *f) { return CC_STATE(f, struct nscc_state); }
static const struct nscc_state *cst(const struct flow *f) { return CC_STATE(f, const struct nscc_state); }

static const struct nscc_params *params(const struct scn_host *h)
{
    return SETTINGS_OF(h, nscc_group, struct nscc_params);
}

int64_t nscc_maxwnd(sim_time_t base_rtt, int64_t line_bps)
{
    int64_t bdp = (int64_t)((double)base_rtt / PS_PER_S * (double)(line_bps / 8));
    return (int64_t)(1.5 * (double)bdp);
}

static void consts(const struct net *n, const struct nscc_params *p, int64_t line_bps, uint32_t mss,
                   struct nscc_consts *c)
{
    c->net_rtt = p->network_rtt_ps ? p->network_rtt_ps : n->cc_net_rtt;
    if (c->net_rtt < 1)
        c->net_rtt = 1; /* a network whose hosts reach no other */
    c->target = p->target_delay_ps ? p->target_delay_ps
                : n->trim_any      ? (sim_time_t)((double)c->net_rtt * 0.75)
                                   : c->net_rtt;
    c->line_bps = line_bps;
    c->mss = mss;
    c->mtu = mss + n->fr.hdr_data;
    c->bdp_net = (int64_t)((double)c->net_rtt / PS_PER_S * (double)(line_bps / 8));
    c->a = (double)c->bdp_net / REF_BDP;
    c->b = (double)c->target / (double)REF_RTT_PS;
    c->alpha = 4.0 * mss * c->a * c->b / (double)c->target;
    c->fi = 5 * mss * c->a;
    c->eta = 0.15 * mss * c->a;
    c->fi_scale = 0.25 * c->a;
}

void nscc_consts_of_host(const struct net *n, const struct host *h, struct nscc_consts *c)
{
    consts(n, params(h->cfg), h->rate_bps, (uint32_t)h->nic->mtu, c);
}

static void flow_consts(const struct flow *f, const struct nscc_state *s, struct nscc_consts *c)
{
    consts(f->net, s->p, flow_line_bps(f), f->mtu, c);
}

/* The unloaded round trip between the two ends of f: its data frame out, an ACK back. */
static sim_time_t pair_rtt(const struct flow *f)
{
    const struct net *n = f->net;
    int64_t bn;
    return net_host_path_time(n, f->src, f->dst, f->mtu + n->fr.hdr_data + n->fr.wire, &bn) +
           net_host_path_time(n, f->dst, f->src, (uint32_t)(n->fr.frame_ack + n->fr.wire), &bn);
}

static void set_window(struct flow *f, struct nscc_state *s, int64_t cwnd)
{
    s->cwnd = cwnd < 0 ? 0 : cwnd > UINT32_MAX ? UINT32_MAX : (uint32_t)cwnd;
    f->cc_wnd = s->cwnd;
}

/* set_cwnd_bounds: within [MTU, maxwnd]. */
static int64_t bounded(int64_t cwnd, const struct nscc_consts *c, int64_t maxwnd)
{
    if (cwnd < c->mtu)
        cwnd = c->mtu;
    return cwnd > maxwnd ? maxwnd : cwnd;
}

static void nscc_init(struct flow *f, sim_time_t now)
{
    struct nscc_state *s = st(f);
    (void)now;
    s->p = params(f->net->hosts[f->src].cfg);
    struct nscc_consts c;
    flow_consts(f, s, &c);
    s->base_rtt = c.net_rtt;
    if (s->p->base_rtt == NSCC_BASE_PAIR) {
        sim_time_t r = pair_rtt(f);
        if (r > 0)
            s->base_rtt = r;
    }
    set_window(f, s, s->p->window ? s->p->window : nscc_maxwnd(s->base_rtt, c.line_bps));
}

/* update_delay: the EWMA of the queuing delay, in whole ps (the reference's assignment rounds down). */
static void update_delay(struct nscc_state *s, const struct nscc_consts *c, sim_time_t delay, bool marked)
{
    double d = !marked && delay > c->target ? DELAY_ALPHA * (double)s->base_rtt * 0.25 : DELAY_ALPHA * (double)delay;
    s->avg_delay = (sim_time_t)(d + (1 - DELAY_ALPHA) * (double)s->avg_delay);
}

/* quick_adapt: true when it cut the window or ignores this ACK or NACK (which then does nothing else). */
static bool quick_adapt(struct flow *f, struct nscc_state *s, const struct nscc_consts *c, bool loss, bool marked,
                        sim_time_t delay, uint32_t inflight, sim_time_t now)
{
    if (!s->p->quick_adapt)
        return false;
    bool done = false;
    if (s->ignore_left > 0 && marked) {
        done = true;
    } else if (now > s->qa_end) {
        if (s->qa_end != 0 && (s->trigger_qa || loss || delay > 4 * c->target) &&
            (int64_t)s->achieved < nscc_maxwnd(s->base_rtt, c->line_bps) >> s->p->qa_gate) {
            set_window(f, s, s->achieved > c->mtu ? s->achieved : c->mtu);
            s->ignore_left = inflight;
            s->trigger_qa = false;
            done = true;
        }
        s->achieved = 0;
        s->qa_end = now + s->base_rtt + c->target;
    }
    if (done) {
        s->inc_bytes = 0;
        s->received = 0;
    }
    return done;
}

/* The bytes an ACK (or NACK) newly acknowledged, for quick adapt, the fulfil adjustment and the ignore window. */
static void count(struct nscc_state *s, uint32_t bytes)
{
    s->achieved += bytes;
    s->received += bytes;
    s->ignore_left = s->ignore_left > bytes ? s->ignore_left - bytes : 0;
}

static void on_nack(struct flow *f, struct nscc_state *s, const struct nscc_consts *c, const struct cc_ack *a,
                    sim_time_t now)
{
    if (a->rtt > 0 && a->rtt < s->base_rtt && s->p->nack_base_rtt)
        s->base_rtt = a->rtt;
    s->ignore_left = s->ignore_left > a->nack_bytes ? s->ignore_left - a->nack_bytes : 0;
    /* A trim stands for a full queue: RTT_net stands in for its delay. */
    update_delay(s, c, c->net_rtt, true);
    s->trigger_qa = true;
    /* The reference takes its flight before the NACKed packet leaves it; the transport's count is after. */
    if (quick_adapt(f, s, c, true, true, 0, a->inflight + a->nack_bytes, now))
        return;
    /* last_hop: a trim at the receiver's own link under receiver credit (RCCC), which paces that link already */
    if (!a->last_hop)
        set_window(f, s, bounded((int64_t)s->cwnd - a->nack_bytes, c, nscc_maxwnd(s->base_rtt, c->line_bps)));
}

static void fast_increase(struct nscc_state *s, const struct nscc_consts *c, uint32_t bytes, sim_time_t delay,
                          int64_t *cwnd)
{
    if (delay < FAST_DELAY_PS) {
        s->fi_count += bytes;
        if ((int64_t)s->fi_count > *cwnd || s->fast) {
            *cwnd = (int64_t)((double)*cwnd + bytes * c->fi_scale);
            s->fast = true;
            return;
        }
    } else {
        s->fi_count = 0;
    }
    s->fast = false;
}

static void multiplicative_decrease(struct nscc_state *s, const struct nscc_consts *c, int64_t *cwnd,
                                    sim_time_t now)
{
    s->fast = false;
    s->fi_count = 0;
    if (s->avg_delay > c->target && now - s->last_dec > s->base_rtt) {
        double md = 1 - GAMMA * (double)(s->avg_delay - c->target) / (double)s->avg_delay;
        *cwnd = (int64_t)((double)*cwnd * (md > 0.5 ? md : 0.5));
        if (*cwnd < c->mtu)
            *cwnd = c->mtu;
        s->last_dec = now;
    }
}

static void nscc_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    struct nscc_state *s = st(f);
    struct nscc_consts c;
    flow_consts(f, s, &c);
    count(s, a->bytes);
    if (a->timeout) { /* mark_packet_for_retransmission: no upper bound, as the reference */
        int64_t w = (int64_t)s->cwnd - a->nack_bytes;
        set_window(f, s, w > c.mtu ? w : c.mtu);
        return;
    }
    if (a->nack) {
        /* A NACK of a packet no longer in flight (acknowledged, or already resent after a timeout): the reference
         * finds no send record and leaves the window alone. */
        if (a->nack_bytes)
            on_nack(f, s, &c, a, now);
        return;
    }
    sim_time_t delay = s->avg_delay;
    if (a->rtt > 0) {
        if (a->rtt < s->base_rtt)
            s->base_rtt = a->rtt;
        update_delay(s, &c, a->rtt - s->base_rtt, a->ece);
        delay = a->rtt - s->base_rtt;
    }
    if (quick_adapt(f, s, &c, false, a->ece, delay, a->inflight, now))
        return;
    int64_t maxwnd = nscc_maxwnd(s->base_rtt, c.line_bps), cwnd = s->cwnd;
    if (!a->ece && delay >= c.target) {
        s->inc_bytes = (uint64_t)((double)s->inc_bytes + c.fi * a->bytes);
    } else if (!a->ece) {
        fast_increase(s, &c, a->bytes, delay, &cwnd);
        if (!s->fast)
            s->inc_bytes = (uint64_t)((double)s->inc_bytes + c.alpha * a->bytes * (double)(c.target - delay));
    } else if (delay >= c.target) {
        multiplicative_decrease(s, &c, &cwnd, now);
    }
    cwnd = bounded(cwnd, &c, maxwnd);
    if (s->received > 8 * c.mtu || now - s->last_adjust > c.net_rtt) { /* fulfill_adjustment */
        cwnd += (int64_t)(s->inc_bytes / (uint64_t)cwnd);
        if (now - s->last_adjust >= c.net_rtt) {
            cwnd = (int64_t)((double)cwnd + c.eta);
            s->last_adjust = now;
        }
        s->inc_bytes = 0;
        s->received = 0;
    }
    set_window(f, s, bounded(cwnd, &c, maxwnd));
}

static double nscc_rate(const struct flow *f) { return (double)flow_line_bps(f); }

static void nscc_sample(const struct flow *f, sim_time_t now, struct cc_sample *smp)
{
    const struct nscc_state *s = cst(f);
    (void)now;
    smp->rate_bps = nscc_rate(f);
    smp->target_bps = (double)s->cwnd * 8 * PS_PER_S / (double)s->base_rtt;
    smp->alpha = (double)s->avg_delay / PS_PER_US;
    smp->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_TARGET | 1u << CC_SAMPLE_ALPHA;
}

/* check's view (derived.groups): the constants host h's flows derive, "auto" resolved. */
static int nscc_host_values(const struct host *h, struct cc_value *out, int max)
{
    const struct net *n = h->port->net;
    struct nscc_consts c;
    nscc_consts_of_host(n, h, &c);
    const struct nscc_params *p = params(h->cfg);
    int64_t maxwnd = nscc_maxwnd(c.net_rtt, c.line_bps);
    if (max < 10)
        return 0;
    out[0].name = "network_rtt";
    units_fmt_time(c.net_rtt, out[0].text, sizeof out[0].text);
    out[1].name = "target_delay";
    units_fmt_time(c.target, out[1].text, sizeof out[1].text);
    out[2].name = "window";
    units_fmt_size(p->window ? p->window : maxwnd, out[2].text, sizeof out[2].text);
    out[3].name = "maxwnd";
    units_fmt_size(maxwnd, out[3].text, sizeof out[3].text);
    const char *names[] = {"a", "alpha", "fi", "eta", "fi_scale", "qa_gate_bytes"};
    double vals[] = {c.a, c.alpha, c.fi, c.eta, c.fi_scale, (double)(maxwnd >> p->qa_gate)};
    for (int i = 0; i < 6; i++) {
        out[4 + i].name = names[i];
        snprintf(out[4 + i].text, sizeof out[4 + i].text, "%.6g", vals[i]);
    }
    return 10;
}

const struct cc_ops cc_nscc_ops = {
    .name = "nscc",
    .flags = CC_F_BYTES, /* no CC_F_RTT: its transport (UET) times every packet and fills cc_ack.rtt itself */
    .alpha_name = "NSCC average queuing delay (us)",
    .alpha_fraction = false,
    .target_name = "window-implied rate", /* cwnd x 8 / base RTT */
    .init = nscc_init,
    .on_ack = nscc_on_ack,
    .rate = nscc_rate,
    .sample = nscc_sample,
    .host_values = nscc_host_values,
};

/* ------------------------------------------------------------------------ */
/* RTT_net "auto": once per network, after the switches say whether they trim (trim.c's mechanism, order 27).   */

static sim_time_t longest_rtt(const struct net *n)
{
    uint32_t hosts = n->g->n_hosts;
    uint32_t data = (uint32_t)(n->frame_max + n->fr.wire), ack = (uint32_t)(n->fr.frame_ack + n->fr.wire);
    for (uint32_t from = 0; from < hosts; from++) { /* host 0, unless it reaches no other */
        sim_time_t most = 0;
        int64_t bn;
        for (uint32_t to = 0; to < hosts; to++) {
            if (to == from)
                continue;
            sim_time_t out = net_host_path_time(n, from, to, data, &bn);
            sim_time_t back = out ? net_host_path_time(n, to, from, ack, &bn) : 0;
            if (out && back && out + back > most)
                most = out + back;
        }
        if (most)
            return most;
    }
    return 0;
}

static void nscc_net_init(struct net *n)
{
    for (uint32_t i = 0; i < n->n_host_cfgs; i++) {
        const struct scn_host *h = &n->host_cfgs[i];
        if (cc_registry[cc_params_of(h)->cc] == &cc_nscc_ops && params(h)->network_rtt_ps == 0) {
            n->cc_net_rtt = longest_rtt(n);
            return;
        }
    }
}

static const struct net_mech_ops nscc_mech = {.name = "nscc", .order = 28, .init = nscc_net_init};
NET_MECH(nscc_mech)

/* ------------------------------------------------------------------------ */
/* Settings: host.nscc                                                       */

static const char *const base_names[] = {"network", "pair", NULL};

static const struct setting nscc_fields[] = {
    {SET_FIELD("network_rtt", SETTING_TIME, struct nscc_params, network_rtt_ps, SETTING_POSITIVE, "auto",
               "RTT_net, which the constants derive from; \"auto\": the network's longest unloaded round trip"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_FIELD("target_delay", SETTING_TIME, struct nscc_params, target_delay_ps, SETTING_POSITIVE, "auto",
               "Target queuing delay; \"auto\": 0.75 x network_rtt when a switch trims, else network_rtt"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_INT("qa_gate", struct nscc_params, qa_gate, 0, 31, "3",
             "Quick adapt acts when a period acknowledged less than maxwnd / 2^qa_gate")},
    {SET_FIELD("window", SETTING_SIZE, struct nscc_params, window, SETTING_POSITIVE, "auto",
               "Initial window (bytes); \"auto\": maxwnd, 1.5 x the flow's BDP"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_ENUM("base_rtt", struct nscc_params, base_rtt, base_names, "network",
              "A flow's base RTT starts at \"network\" (network_rtt) or \"pair\" (its own unloaded round trip)")},
    {SET_FIELD("nack_base_rtt", SETTING_BOOL, struct nscc_params, nack_base_rtt, 0, "true",
               "A NACK's RTT sample may lower the base RTT")},
    {SET_FIELD("quick_adapt", SETTING_BOOL, struct nscc_params, quick_adapt, 0, "true",
               "Quick adapt: cut the window to what a period delivered after a loss or a long delay")},
    {0},
};

static struct setting_group nscc_group = {
    .path = "host.nscc", .size = sizeof(struct nscc_params), .fields = nscc_fields,
};

MODULE_REGISTER(cc_kind, "nscc", &cc_nscc_ops, &nscc_group);
