/*
 * cc_timely — TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015)
 * behind the congestion-control table (cc.h): a rate-based sender driven by round-trip times alone, no switch
 * support (no ECN, no CNP, no telemetry).
 *
 * Algorithm 1 of the paper, at every completion event with an RTT sample new_rtt:
 *
 *     new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
 *     rtt_diff     = (1 - alpha) * rtt_diff + alpha * new_rtt_diff        (the EWMA of the difference)
 *     gradient     = rtt_diff / min_rtt                                   (normalized)
 *     new_rtt < T_low:   rate += delta
 *     new_rtt > T_high:  rate *= 1 - beta * (1 - T_high / new_rtt)
 *     gradient <= 0:     rate += N * delta   (N = hai_steps after hai_steps such events in a row, else 1: HAI)
 *     else:              rate *= 1 - beta * gradient
 *
 * and the rate stays within [min_rate, line rate].  The paper's values (section 5's settings, for its 10 Gbps
 * NICs): alpha 0.875, beta 0.8, T_low 50 us, T_high 500 us, min RTT 20 us, delta 10 Mbps, N = 5; it gives no
 * floor, min_rate is one step (10 Mbps): the preset "paper".
 *
 * Scaled to the line rate C (the default preset, "scaled": the four fields "auto").  The steps and the
 * thresholds of the paper are tied to its 10 Gbps: delta is a thousandth of the line, and T_low, T_high are a
 * queue of 62.5 KB and 625 KB at 10 Gbps.  At C they are kept as the same fraction of the line and the same
 * queue in bytes:
 *
 *     delta = min_rate = C / 1000,   T_low = 50 us * 10 Gbps / C,   T_high = 500 us * 10 Gbps / C
 *
 * (the paper's values at 10 Gbps; 100 Mbps, 5 us and 50 us at 100 Gbps).  Unscaled at 100 Gbps the paper's
 * T_low stands for 600 KB: two flows at line rate fill that much before the first cut, whose gradient then
 * exceeds 1 / beta and cuts to the floor, where steps of 10 Mbps per round trip take milliseconds.
 * The HPCC simulator scales delta the same way (its run script: RATE_AI = C / 1000, RATE_HAI = 5 C / 1000).
 *
 * The preset "hpcc-ns3" is the TIMELY of the HPCC paper's ns-3 simulator (alibaba-edu/High-Precision-Congestion-
 * Control: RdmaHw::UpdateRateTimely in rdma-hw.cc, its TimelyAlpha/Beta/TLow/THigh/MinRtt attributes, and the
 * RATE_AI, RATE_HAI, MIN_RATE its run.py writes for TIMELY): the paper's alpha, beta, thresholds and min RTT,
 * steps of C / 1000, 5 C / 1000 in hyperactive increase, a floor of 1 Gbps, and its own increase stages
 * (hai_after "increase"): every increase, below T_low as well as at a gradient <= 0, adds one to a stage count
 * that a decrease resets, and an increase steps by delta while fewer than N increases came before it in a row,
 * by N * delta after.  The paper counts only events of gradient <= 0 and steps by delta alone below T_low.
 *
 * The completion event.  The paper times a segment (16-64 KB) from its send to its completion and subtracts its
 * serialization (seg / NIC line rate).  Here the transport times one data frame per round trip (CC_F_RTT: the
 * first new frame sent while no sample is out, from the moment it starts on the wire to the ACK that covers
 * it, resent frames never timed), so a completion event is the ACK that completes that sample: one update per
 * RTT, as the ns-3 simulator does.  The sample keeps the frame's and its ACK's serialization (under a microsecond
 * at the speeds simulated, against thresholds of microseconds).  The first sample of a flow only sets prev_rtt.
 */
#include "models/cc.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum timely_preset { TIMELY_SCALED, TIMELY_PAPER, TIMELY_HPCC_NS3 };
/* What counts towards hai_steps: events of gradient <= 0 in a row (the paper), or increases of any kind in a row
 * (the HPCC simulator's stages). */
enum timely_hai { TIMELY_HAI_GRADIENT, TIMELY_HAI_INCREASE };

/* host.timely (docs/scenario.md).  The four quantities tied to the line rate are 0 for "auto": scaled to the
 * sender's line rate (resolve()). */
struct timely_params {
    enum timely_preset preset;
    double alpha;          /* EWMA weight of the newest RTT difference */
    double beta;           /* multiplicative decrease factor */
    int64_t t_low_ps;      /* below: additive increase whatever the gradient */
    int64_t t_high_ps;     /* above: multiplicative decrease whatever the gradient */
    int64_t min_rtt_ps;    /* normalizes the gradient */
    int64_t delta_bps;     /* additive step */
    int hai_steps;         /* N: after N events in a row (hai_after says which) the step is N * delta */
    enum timely_hai hai_after;
    int64_t min_rate_bps;  /* the rate never drops below this */
};

/* The paper's line rate, the one its values were chosen for. */
#define PAPER_LINE_BPS 10000000000LL

/* A sender's values of the fields tied to its line rate, "auto" resolved (see the header). */
struct timely_line_values {
    int64_t t_low_ps, t_high_ps, delta_bps, min_rate_bps;
};

static void resolve(const struct timely_params *p, int64_t line_bps, struct timely_line_values *v)
{
    int64_t line = line_bps > 0 ? line_bps : 1;
    v->t_low_ps = p->t_low_ps ? p->t_low_ps : 50 * PS_PER_US * PAPER_LINE_BPS / line;
    v->t_high_ps = p->t_high_ps ? p->t_high_ps : 500 * PS_PER_US * PAPER_LINE_BPS / line;
    v->delta_bps = p->delta_bps ? p->delta_bps : line / 1000;
    v->min_rate_bps = p->min_rate_bps ? p->min_rate_bps : line / 1000;
    if (v->t_low_ps < 1)
        v->t_low_ps = 1;
    if (v->t_high_ps < 1)
        v->t_high_ps = 1;
    if (v->delta_bps < 1)
        v->delta_bps = 1;
    if (v->min_rate_bps < 1)
        v->min_rate_bps = 1;
}

struct timely_state {
    double rate;           /* bit/s, before the flow's cap */
    double line;           /* the sender's line rate */
    double rtt_diff;       /* ps, the EWMA of the RTT difference */
    double gradient;       /* rtt_diff / min_rtt at the last event (rates.csv alpha) */
    sim_time_t prev_rtt;   /* 0: no sample yet */
    const struct timely_params *p;
    uint32_t streak;       /* events in a row that count towards hai_steps (hai_after) */
    uint32_t samples;      /* completion events (RTT samples) */
    uint32_t cuts;         /* multiplicative decreases */
};

_Static_assert(sizeof(struct timely_state) <= CC_STATE_BYTES, "TIMELY's state fits the flow's cc_state");

static struct setting_group timely_group; /* with its table, below */

static struct timely_state *st(struct flow *f) { return CC_STATE(f, struct timely_state); }
static const struct timely_state *cst(const struct flow *f) { return CC_STATE(f, const struct timely_state); }

static const struct timely_params *params_of(const struct host *h)
{
    /* The sender's own host settings (profiles give each NIC its own). */
    return SETTINGS_OF(h->cfg, timely_group, struct timely_params);
}

static void timely_init(struct flow *f, sim_time_t now)
{
    const struct host *h = &f->net->hosts[f->src];
    struct timely_state *s = st(f);
    s->p = params_of(h);
    s->line = (double)flow_line_bps(f);
    s->rate = s->line; /* RDMA starts at line rate, as the paper's NIC does */
}

/* Algorithm 1 of the paper for one RTT sample (ps); with hai_after "increase", the HPCC simulator's stages. */
static void timely_update(struct timely_state *s, sim_time_t rtt)
{
    const struct timely_params *p = s->p;
    s->samples++;
    if (!s->prev_rtt) {
        s->prev_rtt = rtt;
        return;
    }
    /* Once per round trip: the line-tied values are resolved here rather than kept in the flow's state. */
    struct timely_line_values v;
    resolve(p, (int64_t)s->line, &v);
    double new_diff = (double)(rtt - s->prev_rtt);
    s->prev_rtt = rtt;
    s->rtt_diff = (1.0 - p->alpha) * s->rtt_diff + p->alpha * new_diff;
    s->gradient = s->rtt_diff / (double)p->min_rtt_ps;
    bool by_gradient = p->hai_after == TIMELY_HAI_GRADIENT;
    if (by_gradient)
        s->streak = s->gradient <= 0 ? s->streak + 1 : 0;
    double delta = (double)v.delta_bps, hai = p->hai_steps * delta, c = -1; /* c < 0: an increase */
    if (rtt < v.t_low_ps) {
        s->rate += by_gradient || s->streak < (uint32_t)p->hai_steps ? delta : hai;
    } else if (rtt > v.t_high_ps) {
        c = 1.0 - p->beta * (1.0 - (double)v.t_high_ps / (double)rtt);
    } else if (s->gradient <= 0) {
        s->rate += s->streak < (uint32_t)p->hai_steps ? delta : hai;
    } else {
        c = 1.0 - p->beta * s->gradient;
        c = c > 0 ? c : 0;
    }
    if (c >= 0) {
        s->rate *= c;
        s->cuts++;
        if (!by_gradient)
            s->streak = 0;
    } else if (!by_gradient) {
        s->streak++;
    }
    if (s->rate < (double)v.min_rate_bps)
        s->rate = (double)v.min_rate_bps;
    if (s->rate > s->line)
        s->rate = s->line;
}

static void timely_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    if (a->rtt)
        timely_update(st(f), a->rtt);
}

static double timely_rate(const struct flow *f) { return cst(f)->rate; }

/* rates.csv: TIMELY has no target rate (target = rate); alpha carries its normalized RTT gradient. */
static void timely_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    s->rate_bps = cst(f)->rate;
    s->alpha = cst(f)->gradient;
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_ALPHA;
}

static int timely_stats(const struct flow *f, struct cc_stat *out, int max)
{
    if (max < 2)
        return 0;
    out[0] = (struct cc_stat){"rtt_samples", cst(f)->samples};
    out[1] = (struct cc_stat){"rate_cuts", cst(f)->cuts};
    return 2;
}

/* check's view (derived.groups): the line-tied fields as host h's flows run them. */
static int timely_host_values(const struct host *h, struct cc_value *out, int max)
{
    struct timely_line_values v;
    resolve(params_of(h), h->rate_bps, &v);
    if (max < 4)
        return 0;
    out[0].name = "t_low";
    units_fmt_time(v.t_low_ps, out[0].text, sizeof out[0].text);
    out[1].name = "t_high";
    units_fmt_time(v.t_high_ps, out[1].text, sizeof out[1].text);
    out[2].name = "delta";
    units_fmt_rate(v.delta_bps, out[2].text, sizeof out[2].text);
    out[3].name = "min_rate";
    units_fmt_rate(v.min_rate_bps, out[3].text, sizeof out[3].text);
    return 4;
}

const struct cc_ops cc_timely_ops = {
    .name = "timely",
    .flags = CC_F_RTT,
    .alpha_name = "TIMELY RTT gradient",
    .alpha_fraction = false,
    .init = timely_init,
    .on_ack = timely_on_ack,
    .rate = timely_rate,
    .sample = timely_sample,
    .stats = timely_stats,
    .host_values = timely_host_values,
};

/* ------------------------------------------------------------------------ */
/* Settings: host.timely                                                     */

/* The first is the default. */
static const char *const preset_names[] = {"scaled", "paper", "hpcc-ns3", NULL};
static const char *const hai_names[] = {"gradient", "increase", NULL};

static const struct setting timely_fields[] = {
    {SET_ENUM("preset", struct timely_params, preset, preset_names, "scaled",
          "The preset applied before the other fields: \"scaled\", \"paper\" or \"hpcc-ns3\"")},
    {SET_NUM("alpha", struct timely_params, alpha, SETTING_LO_OPEN, 0.0, 1.0, "0.875",
         "EWMA weight of the newest RTT difference")},
    {SET_NUM("beta", struct timely_params, beta, SETTING_LO_OPEN, 0.0, 1.0, "0.8", "Multiplicative decrease factor")},
    {SET_FIELD("t_low", SETTING_TIME, struct timely_params, t_low_ps, SETTING_POSITIVE, "auto",
           "Below this RTT the rate grows by delta whatever the gradient; \"auto\": 50us x 10Gbps / line rate"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_FIELD("t_high", SETTING_TIME, struct timely_params, t_high_ps, SETTING_POSITIVE, "auto",
           "Above this RTT the rate is cut by beta * (1 - t_high / RTT); \"auto\": 500us x 10Gbps / line rate"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_FIELD("min_rtt", SETTING_TIME, struct timely_params, min_rtt_ps, SETTING_POSITIVE, "20us",
           "The RTT difference is divided by this to give the gradient")},
    {SET_FIELD("delta", SETTING_RATE, struct timely_params, delta_bps, SETTING_POSITIVE, "auto",
           "Additive increase step; \"auto\": line rate / 1000"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {SET_INT("hai_steps", struct timely_params, hai_steps, 1, INT_MAX, "5",
         "N: after N events in a row (hai_after) the step is N * delta (hyperactive increase)")},
    {SET_ENUM("hai_after", struct timely_params, hai_after, hai_names, "gradient",
          "What counts towards hai_steps: \"gradient\" (events with a gradient <= 0) or \"increase\" (increases)")},
    {SET_FIELD("min_rate", SETTING_RATE, struct timely_params, min_rate_bps, SETTING_POSITIVE, "auto",
           "The rate never drops below this; \"auto\": line rate / 1000"),
     .parse = setting_parse_auto_qty, .dump = setting_dump_auto_qty},
    {0},
};

static const struct setting_value timely_paper[] = {
    {"t_low", "50us"}, {"t_high", "500us"}, {"delta", "10Mbps"}, {"min_rate", "10Mbps"}, {NULL, NULL},
};

/* The HPCC simulator's TIMELY (the header): its step is C / 1000 as its run script computes it, its thresholds
 * the paper's unscaled. */
static const struct setting_value timely_hpcc_ns3[] = {
    {"t_low", "50us"}, {"t_high", "500us"}, {"min_rate", "1Gbps"}, {"hai_after", "increase"}, {NULL, NULL},
};

/* In the order of preset_names. */
static const struct setting_preset timely_presets[] = {
    {"scaled", (const struct setting_value[]){{NULL, NULL}}},
    {"paper", timely_paper},
    {"hpcc-ns3", timely_hpcc_ns3},
    {NULL, NULL},
};

static struct setting_group timely_group = {
    .path = "host.timely", .size = sizeof(struct timely_params), .fields = timely_fields, .preset_key = "preset",
    .presets = timely_presets,
};

MODULE_REGISTER(cc_kind, "timely", &cc_timely_ops, &timely_group);
