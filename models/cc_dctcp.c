/*
 * cc_dctcp — DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010) as RDMA NICs run it: rate-based,
 * as in the evaluation of the HPCC paper (Li et al., SIGCOMM 2019, section 5) and its ns-3 simulator.
 *
 * Switch (section 3.1 of the DCTCP paper): mark CE when the instantaneous queue exceeds K.  rocesim's RED
 * (ecn.h) with switch.ecn.kmin = kmax = K is that step: p = 0 up to K and 1 above it, whatever pmax.
 *
 * Receiver (section 3.1, "ECN-Echo at the receiver"): every ACK or NACK carries ECE when the data frame that
 * caused it was CE-marked (nic.c; with host.ack_every 1, the default, one ACK per frame, so the echo is exact).
 *
 * Sender (section 3.1, equations 1 and 2), once per window of data (from one window's end, snd_nxt when it
 * started, to the next):
 *     F     = marked / acknowledged packets in the window
 *     alpha <- (1 - g) alpha + g F                                       g = 1/16 (section 3.4)
 * and on an ECE outside a reduction: R <- max(min_rate, R (1 - alpha / 2)), after which no further cut happens
 * until the packets sent before the cut are acknowledged (one cut per window, TCP's CWR); at each window's end
 * outside a reduction: R <- min(line rate, R + ai_rate), the paper's one MSS per RTT as a rate.
 *
 * Where the HPCC simulator (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc HandleAckDctcp, run.py)
 * differs: it counts marked ACKs against an estimate of the packets in the window (ours counts acknowledged
 * packets, as Linux's tcp_dctcp.c counts bytes), skips the alpha update of the first window (so do we), uses
 * a 1 Gbps rate floor, and it also bounds what a flow has unacknowledged by a window that follows the rate
 * (HAS_WIN 1, VAR_WIN 1: W = R T_w, T_w its fabric's largest base RTT; rdma-queue-pair.cc GetWin), here
 * host.dctcp.window_rtt (0: no window).  Preset "hpcc" takes both, with T_w = 13 us, the round trip run.py
 * derives dctcp_ai from.
 */
#include "models/cc.h"
#include "sim/settings.h"

#include <stddef.h>

struct dctcp_params {
    int preset;
    double g;
    double alpha_init;
    int64_t ai_rate_bps;
    int64_t min_rate_bps;
    int64_t window_rtt_ps; /* T_w: the window is R T_w; 0: none */
};

struct dctcp_state {
    double rate;      /* the pacing rate, bit/s */
    double alpha;     /* the EWMA of the marked fraction */
    uint32_t win_end; /* the window ends when snd_una passes this PSN; 0 before the first ACK */
    uint32_t cwr_end; /* in a reduction until snd_una passes this PSN */
    uint32_t acked;   /* packets acknowledged in this window */
    uint32_t marked;  /* of them, acknowledged by an ACK with ECE */
    uint32_t cuts;
    bool cwr;
    const struct dctcp_params *p; /* the sender's host.dctcp, read once at set-up (params) */
};

_Static_assert(sizeof(struct dctcp_state) <= CC_STATE_BYTES, "DCTCP's state fits the flow's cc_state");

static struct setting_group dctcp_group;

/* The sender's own host settings (profiles give each NIC its own). */
static const struct dctcp_params *params(const struct flow *f)
{
    return SETTINGS_OF(f->net->hosts[f->src].cfg, dctcp_group, struct dctcp_params);
}

static struct dctcp_state *st(struct flow *f) { return CC_STATE(f, struct dctcp_state); }
static const struct dctcp_state *cst(const struct flow *f) { return CC_STATE(f, const struct dctcp_state); }

/* The window R T_w (bytes), when the flow keeps one. */
static void set_window(struct flow *f, const struct dctcp_params *p, double rate)
{
    if (p->window_rtt_ps)
        f->cc_wnd = (uint32_t)(rate * (double)p->window_rtt_ps * 1e-12 / 8);
}

static void dctcp_init(struct flow *f, sim_time_t now)
{
    struct dctcp_state *s = st(f);
    s->p = params(f);
    s->rate = (double)flow_line_bps(f);
    s->alpha = s->p->alpha_init;
    set_window(f, s->p, s->rate);
}

static void dctcp_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    struct dctcp_state *s = st(f);
    const struct dctcp_params *p = s->p;
    s->acked += a->newly_acked;
    if (a->ece)
        s->marked += a->newly_acked;
    bool window_end = f->snd_una > s->win_end;
    if (window_end) {
        if (s->win_end && s->acked)
            s->alpha = (1.0 - p->g) * s->alpha + p->g * (double)s->marked / (double)s->acked;
        s->win_end = f->snd_nxt;
        s->acked = s->marked = 0;
    }
    if (s->cwr && f->snd_una > s->cwr_end)
        s->cwr = false;
    if (a->ece && !s->cwr) {
        double r = s->rate * (1.0 - s->alpha / 2.0);
        s->rate = r > (double)p->min_rate_bps ? r : (double)p->min_rate_bps;
        s->cwr = true;
        s->cwr_end = f->snd_nxt;
        s->cuts++;
    } else if (window_end && !s->cwr) {
        double line = (double)flow_line_bps(f), r = s->rate + (double)p->ai_rate_bps;
        s->rate = r < line ? r : line;
    }
    set_window(f, p, s->rate);
}

static double dctcp_rate(const struct flow *f) { return cst(f)->rate; }

static void dctcp_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    const struct dctcp_state *d = cst(f);
    s->rate_bps = d->rate;
    s->alpha = d->alpha;
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_ALPHA;
}

static int dctcp_stats(const struct flow *f, struct cc_stat *out, int max)
{
    if (max < 1)
        return 0;
    out[0] = (struct cc_stat){"rate_cuts", cst(f)->cuts};
    return 1;
}

const struct cc_ops cc_dctcp_ops = {
    .name = "dctcp",
    .flags = CC_F_ECN | CC_F_ECN_STEP,
    .alpha_name = "DCTCP alpha",
    .alpha_fraction = true,
    .init = dctcp_init,
    .on_ack = dctcp_on_ack,
    .rate = dctcp_rate,
    .sample = dctcp_sample,
    .stats = dctcp_stats,
};

/* ------------------------------------------------------------------------ */
/* Settings: host.dctcp                                                      */

static const char *const preset_names[] = {"paper", "hpcc", NULL};

/*
 * The defaults are the "paper" preset: g = 1/16 (DCTCP paper, section 3.4), alpha starting at 1 (as Linux's
 * tcp_dctcp.c, dctcp_alpha_on_init, and the HPCC simulator: a new flow's first mark halves it), and the additive
 * step of one 1 KB MSS per 13 us round trip, 615 Mbps, the HPCC simulator's translation of the paper's one MSS
 * per RTT (run.py, dctcp_ai), and no window (the DCTCP paper's window is TCP's congestion window, which a
 * rate-based NIC does not have).  "hpcc" is the HPCC simulator's run.py for DCTCP: the same, with its 1 Gbps floor
 * (MIN_RATE) and its window of one round trip at the current rate (HAS_WIN, VAR_WIN).
 */
static const struct setting dctcp_fields[] = {
    {SET_ENUM("preset", struct dctcp_params, preset, preset_names, "paper",
          "The preset applied before the other fields: \"paper\" or \"hpcc\"")},
    {SET_NUM("g", struct dctcp_params, g, SETTING_LO_OPEN, 0.0, 1.0, "0.0625", "Gain of the alpha average")},
    {SET_NUM("alpha_init", struct dctcp_params, alpha_init, 0, 0.0, 1.0, "1", "Alpha of a new flow")},
    {SET_FIELD("ai_rate", SETTING_RATE, struct dctcp_params, ai_rate_bps, SETTING_POSITIVE, "615Mbps",
           "Additive increase per window without a mark")},
    {SET_FIELD("min_rate", SETTING_RATE, struct dctcp_params, min_rate_bps, SETTING_POSITIVE, "100Mbps",
           "A cut never takes the rate below this")},
    {SET_FIELD("window_rtt", SETTING_TIME, struct dctcp_params, window_rtt_ps, 0, "0us",
               "T_w: at most rate x T_w unacknowledged bytes; 0us: no window")},
    {0},
};

static const struct setting_value dctcp_hpcc[] = {{"min_rate", "1Gbps"}, {"window_rtt", "13us"}, {NULL, NULL}};

static const struct setting_preset dctcp_presets[] = {
    {"paper", (const struct setting_value[]){{NULL, NULL}}},
    {"hpcc", dctcp_hpcc},
    {NULL, NULL},
};

static struct setting_group dctcp_group = {
    .path = "host.dctcp", .size = sizeof(struct dctcp_params), .fields = dctcp_fields, .preset_key = "preset",
    .presets = dctcp_presets,
};

MODULE_REGISTER(cc_kind, "dctcp", &cc_dctcp_ops, &dctcp_group);
