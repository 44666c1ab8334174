/*
 * cc_hpcc — HPCC (Li, Miao, Liu, Zhuang, Feng, Tang, Cao, Zhang, Kelly, Alizadeh, Yu, "HPCC: High Precision
 * Congestion Control", SIGCOMM 2019) behind the congestion-control table (cc.h).
 *
 * Every switch egress a data frame of an HPCC flow leaves appends one INT hop (telemetry.h: qLen, txBytes, ts,
 * B; port.c); the receiver echoes the hops in its ACK.  On each ACK the sender runs Algorithm 1 of the paper
 * (section 3.3), with T the base RTT (host.hpcc.base_rtt):
 *
 *   MeasureInflight:  for every hop j of the ACK, against the previous ACK's record L of the same hop,
 *                       txRate_j = (txBytes_j - L_j.txBytes) / (ts_j - L_j.ts)
 *                       u'_j     = min(qLen_j, L_j.qLen) / (B_j T) + txRate_j / B_j
 *                     u = the largest u'_j, tau = that hop's ts - L_j.ts, tau = min(tau, T)
 *                     U = (1 - tau/T) U + (tau/T) u
 *   ComputeWind:      if U >= eta or incStage >= maxStage:  W = Wc / (U / eta) + W_AI  (and incStage = 0)
 *                     else:                                  W = Wc + W_AI              (and incStage++)
 *                     the reference window Wc takes W (and incStage changes) only on the first ACK of a new
 *                     round trip: an ACK above lastUpdateSeq, which then becomes snd_nxt.
 *   The sender keeps at most W bytes unacknowledged (flow.cc_wnd) and paces at R = W / T.
 *
 * The window starts at W_init = B_NIC T (section 3.3) and never exceeds it: R = W / T is then at most the NIC's
 * line rate.  U starts at 1.  Algorithm 1 gives U no initial value; 1 is what the start at W_init implies (a window
 * of one bandwidth-delay product is a normalized inflight of 1: a new flow assumes the path as loaded as its own
 * window would make it), and it is the HPCC paper's ns-3 simulator's (RdmaQueuePair's constructor: hp.u = 1).  From
 * 0 the first ACKs would move U by tau / T each (under 1 % per ACK at 100 Gbps, T = 10 us): a flow joining a busy
 * link would read U far below eta and hold W_init for most of a round trip.  The INT txBytes count wire bytes
 * (telemetry.h), so eta is the share of the link's time HPCC keeps busy.  Defaults (section 3.3 and section 5's setting): eta 95 %, maxStage 5; W_AI = W_init (1 - eta) / N
 * for N the number of flows a link should carry at once (section 3.3): 80 B is N = 78 at 100 Gbps and T = 10 us.
 *
 * The INT bytes are on the wire as the paper's header format has them (section 5.1, "Switch implementation"):
 * each hop is 8 bytes (B 4 bits, ts 24 bits in ns, txBytes 20 bits in 128-byte units, qLen 16 bits in 80-byte
 * units) after a 2-byte header, so a data frame grows by 2 bytes at its sender and 8 at each switch it leaves
 * (INT_HDR_BYTES, INT_HOP_BYTES, telemetry.h), and its ACK carries them back.  The sender keeps the previous
 * record in that same 8-byte format (the precision the paper's sender has, and the state fits the flow), so its
 * differences are taken modulo the fields' widths, as hardware takes them.
 */
#include "models/cc.h"
#include "models/telemetry.h"
#include "sim/settings.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* host.hpcc (docs/scenario.md). */
struct hpcc_params {
    int preset;
    double eta;
    int max_stage;
    int64_t w_ai;        /* bytes */
    int64_t base_rtt_ps; /* T */
};

/* One hop of the previous ACK's record, in the paper's INT hop format (section 5.1). */
#define HOP_TS_BITS 24    /* ns */
#define HOP_BYTES_BITS 20 /* 128-byte units */
#define HOP_BYTES_UNIT 128
#define HOP_QLEN_UNIT 80 /* 16 bits */

/* ts in its low 24 bits, txBytes in the next 20, qLen in the top 16 (the link's B comes from the new record). */
typedef uint64_t hpcc_hop;
#define HOP_TX_SHIFT HOP_TS_BITS
#define HOP_QLEN_SHIFT (HOP_TS_BITS + HOP_BYTES_BITS)
#define HOP_MASK(bits) ((1u << (bits)) - 1)

struct hpcc_state {
    double w, wc, u;          /* window and reference window (bytes), the normalized inflight */
    uint32_t last_update_psn; /* lastUpdateSeq */
    uint8_t inc_stage;
    uint8_t n_hops;           /* hops of the previous record, 0: none yet */
    uint16_t path;            /* the egress ports of the previous record, summed, to notice a new path */
    hpcc_hop last[INT_MAX_HOPS];
    const struct hpcc_params *p; /* the sender's host.hpcc, read once at set-up (params); NULL before */
};

_Static_assert(sizeof(struct hpcc_state) <= CC_STATE_BYTES, "HPCC's state fits the flow's cc_state");

static struct setting_group hpcc_group;

static struct hpcc_state *st(struct flow *f) { return CC_STATE(f, struct hpcc_state); }
static const struct hpcc_state *cst(const struct flow *f) { return CC_STATE(f, const struct hpcc_state); }

/* The sender's own host settings (profiles give each NIC its own). */
static const struct hpcc_params *params(const struct flow *f)
{
    return SETTINGS_OF(f->net->hosts[f->src].cfg, hpcc_group, struct hpcc_params);
}

/* W_init = B_NIC T, in bytes. */
static double w_init(const struct flow *f, const struct hpcc_params *p)
{
    return (double)flow_line_bps(f) * (double)p->base_rtt_ps * 1e-12 / 8;
}

static void set_window(struct flow *f, double w)
{
    f->cc_wnd = w >= (double)UINT32_MAX ? UINT32_MAX : w < 1 ? 1 : (uint32_t)w;
}

static void hpcc_init(struct flow *f, sim_time_t now)
{
    struct hpcc_state *s = st(f);
    s->p = params(f);
    s->u = 1; /* see the header */
    s->w = s->wc = w_init(f, s->p);
    set_window(f, s->w);
}

static hpcc_hop quantize(const struct int_hop *h)
{
    uint32_t q = h->qlen / HOP_QLEN_UNIT;
    return ((uint64_t)(h->ts / 1000) & HOP_MASK(HOP_TS_BITS)) |
           ((uint64_t)(h->tx_bytes / HOP_BYTES_UNIT) & HOP_MASK(HOP_BYTES_BITS)) << HOP_TX_SHIFT |
           (uint64_t)(q > UINT16_MAX ? UINT16_MAX : q) << HOP_QLEN_SHIFT;
}

static uint32_t hop_ts(hpcc_hop h) { return (uint32_t)h & HOP_MASK(HOP_TS_BITS); }
static uint32_t hop_tx(hpcc_hop h) { return (uint32_t)(h >> HOP_TX_SHIFT) & HOP_MASK(HOP_BYTES_BITS); }
static uint32_t hop_qlen(hpcc_hop h) { return (uint32_t)(h >> HOP_QLEN_SHIFT); }

static uint16_t path_of(const struct int_rec *r)
{
    uint32_t sum = 0;
    for (int i = 0; i < r->n_hops; i++)
        sum += r->hop[i].port * 2654435761u;
    return (uint16_t)(sum >> 16);
}

/* MeasureInflight (Algorithm 1): U updated from rec against the previous record; false when no hop could say. */
static bool measure_inflight(struct hpcc_state *s, const struct int_rec *rec, double t_s)
{
    double u = -1, tau = 0;
    for (int i = 0; i < rec->n_hops; i++) {
        hpcc_hop now = quantize(&rec->hop[i]), was = s->last[i];
        uint32_t dts = (hop_ts(now) - hop_ts(was)) & HOP_MASK(HOP_TS_BITS);
        if (!dts)
            continue; /* the same instant: no rate to take */
        uint32_t dtx = (hop_tx(now) - hop_tx(was)) & HOP_MASK(HOP_BYTES_BITS);
        double b = (double)rec->hop[i].rate_bps / 8; /* bytes/s */
        double qlen = (double)(hop_qlen(now) < hop_qlen(was) ? hop_qlen(now) : hop_qlen(was)) * HOP_QLEN_UNIT;
        double secs = dts * 1e-9;
        double ui = qlen / (b * t_s) + (double)dtx * HOP_BYTES_UNIT / secs / b;
        if (ui > u) {
            u = ui;
            tau = secs;
        }
    }
    if (u < 0)
        return false;
    if (tau > t_s)
        tau = t_s;
    s->u = (1 - tau / t_s) * s->u + tau / t_s * u;
    return true;
}

/* ComputeWind (Algorithm 1). */
static double compute_wind(struct hpcc_state *s, const struct hpcc_params *p, bool update_wc, double w_max)
{
    double w;
    if (s->u >= p->eta || s->inc_stage >= p->max_stage) {
        w = s->wc / (s->u / p->eta) + (double)p->w_ai;
        if (update_wc)
            s->inc_stage = 0;
    } else {
        w = s->wc + (double)p->w_ai;
        if (update_wc && s->inc_stage < UINT8_MAX)
            s->inc_stage++;
    }
    if (!(w <= w_max)) /* also U = 0, where the division gives infinity */
        w = w_max;
    if (update_wc)
        s->wc = w;
    return w;
}

static void hpcc_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    const struct int_rec *rec = a->tel;
    if (!rec || !rec->n_hops)
        return;
    struct hpcc_state *s = st(f);
    const struct hpcc_params *p = s->p;
    uint16_t path = path_of(rec);
    if (s->n_hops == rec->n_hops && s->path == path &&
        measure_inflight(s, rec, (double)p->base_rtt_ps * 1e-12)) {
        bool new_rtt = a->psn > s->last_update_psn;
        s->w = compute_wind(s, p, new_rtt, w_init(f, p));
        if (new_rtt)
            s->last_update_psn = f->snd_nxt;
        set_window(f, s->w);
    }
    s->n_hops = rec->n_hops;
    s->path = path;
    for (int i = 0; i < rec->n_hops; i++)
        s->last[i] = quantize(&rec->hop[i]);
}

/* R = W / T. */
static double hpcc_rate(const struct flow *f)
{
    /* A flow not started yet has no window: its rate is 0, as w = 0 gave before it had read its settings. */
    const struct hpcc_state *s = cst(f);
    return s->p ? s->w * 8 / ((double)s->p->base_rtt_ps * 1e-12) : 0;
}

static void hpcc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    double r = hpcc_rate(f), line = (double)flow_line_bps(f);
    s->rate_bps = r < line ? r : line;
    s->target_bps = r;
    s->alpha = cst(f)->u;
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_TARGET | 1u << CC_SAMPLE_ALPHA;
}

const struct cc_ops cc_hpcc_ops = {
    .name = "hpcc",
    .flags = CC_F_TELEMETRY,
    .alpha_name = "HPCC U (normalized inflight)",
    .alpha_fraction = false,
    .init = hpcc_init,
    .on_ack = hpcc_on_ack,
    .rate = hpcc_rate,
    .sample = hpcc_sample,
};

/* ------------------------------------------------------------------------ */
/* Settings: host.hpcc                                                       */

static const char *const preset_names[] = {"paper", "ns3", NULL};

static const struct setting hpcc_fields[] = {
    {SET_ENUM("preset", struct hpcc_params, preset, preset_names, "paper",
              "The preset applied before the other fields: \"paper\" or \"ns3\"")},
    {SET_NUM("eta", struct hpcc_params, eta, SETTING_LO_OPEN, 0.0, 1.0, "0.95", "Target utilization of a link")},
    {SET_INT("max_stage", struct hpcc_params, max_stage, 0, 255, "5",
             "Round trips of additive increase before a multiplicative one")},
    {SET_FIELD("w_ai", SETTING_SIZE, struct hpcc_params, w_ai, SETTING_POSITIVE, "80B", "Additive window step")},
    {SET_FIELD("base_rtt", SETTING_TIME, struct hpcc_params, base_rtt_ps, SETTING_POSITIVE, "10us",
               "T: the fabric's base round-trip time")},
    {0},
};

/*
 * The ns-3 RDMA simulator of the HPCC paper (alibaba-edu/High-Precision-Congestion-Control, mix/run.py for
 * 100 Gbps hosts): MI_THRESH (maxStage) 0 and RATE_AI 40 Mb/s, a window step of 40 Mb/s x T = 50 B at 10 us.
 */
static const struct setting_value hpcc_ns3[] = {{"max_stage", "0"}, {"w_ai", "50B"}, {NULL, NULL}};

static const struct setting_preset hpcc_presets[] = {
    {"paper", (const struct setting_value[]){{NULL, NULL}}},
    {"ns3", hpcc_ns3},
    {NULL, NULL},
};

static struct setting_group hpcc_group = {
    .path = "host.hpcc", .size = sizeof(struct hpcc_params), .fields = hpcc_fields, .preset_key = "preset",
    .presets = hpcc_presets,
};

MODULE_REGISTER(cc_kind, "hpcc", &cc_hpcc_ops, &hpcc_group);
