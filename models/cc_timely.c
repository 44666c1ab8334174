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
 * and the rate stays within [min_rate, line rate].  The defaults are the paper's (section 5's settings: alpha
 * 0.875, beta 0.8, T_low 50 us, T_high 500 us, min RTT 20 us, delta 10 Mbps, N = 5); the paper gives no floor,
 * min_rate is one step (10 Mbps).  The HPCC paper's ns-3
 * simulator (alibaba-edu/High-Precision-Congestion-Control, RdmaHw and run.py) keeps alpha, beta, the
 * thresholds and the min RTT but steps by link rate / 1000 (100 Mbps at 100 Gbps), by 5x that in HAI, and
 * never goes below 1 Gbps: the preset "hpcc-ns3", written for its 100 Gbps hosts.
 *
 * The completion event.  The paper times a segment (16-64 KB) from its send to its completion and subtracts its
 * serialization (seg / NIC line rate).  Here the transport times one data frame per round trip (CC_F_RTT: the
 * first new frame sent while no sample is out, from the moment it starts on the wire to the ACK that covers
 * it, resent frames never timed), so a completion event is the ACK that completes that sample: one update per
 * RTT, as the ns-3 simulator does.  The sample keeps the frame's and its ACK's serialization (under a microsecond
 * at the speeds simulated, against thresholds of tens of microseconds).  The first sample of a flow only sets
 * prev_rtt.
 */
#include "models/cc.h"
#include "sim/settings.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

enum timely_preset { TIMELY_PAPER, TIMELY_HPCC_NS3 };

/* host.timely (docs/scenario.md). */
struct timely_params {
    enum timely_preset preset;
    double alpha;          /* EWMA weight of the newest RTT difference */
    double beta;           /* multiplicative decrease factor */
    int64_t t_low_ps;      /* below: additive increase whatever the gradient */
    int64_t t_high_ps;     /* above: multiplicative decrease whatever the gradient */
    int64_t min_rtt_ps;    /* normalizes the gradient */
    int64_t delta_bps;     /* additive step */
    int hai_steps;         /* N: gradient <= 0 this many events in a row switches to steps of N * delta */
    int64_t min_rate_bps;  /* the rate never drops below this */
};

struct timely_state {
    double rate;           /* bit/s, before the flow's cap */
    double line;           /* the sender's line rate */
    double rtt_diff;       /* ps, the EWMA of the RTT difference */
    double gradient;       /* rtt_diff / min_rtt at the last event (rates.csv alpha) */
    sim_time_t prev_rtt;   /* 0: no sample yet */
    const struct timely_params *p;
    uint32_t neg_events;   /* completion events in a row with gradient <= 0 */
    uint32_t samples;      /* completion events (RTT samples) */
    uint32_t cuts;         /* multiplicative decreases */
};

_Static_assert(sizeof(struct timely_state) <= CC_STATE_BYTES, "TIMELY's state fits the flow's cc_state");

static struct setting_group timely_group; /* its offset is set by the constructor below */

static struct timely_state *st(struct flow *f) { return CC_STATE(f, struct timely_state); }
static const struct timely_state *cst(const struct flow *f) { return CC_STATE(f, const struct timely_state); }

static void timely_init(struct flow *f, sim_time_t now)
{
    const struct host *h = &f->net->hosts[f->src];
    struct timely_state *s = st(f);
    /* The sender's own host settings (profiles give each NIC its own), at the group's offset in them. */
    s->p = (const struct timely_params *)((const char *)h->cfg + timely_group.offset);
    s->line = (double)h->rate_bps;
    s->rate = s->line; /* RDMA starts at line rate, as the paper's NIC does */
}

/* Algorithm 1 of the paper for one RTT sample (ps). */
static void timely_update(struct timely_state *s, sim_time_t rtt)
{
    const struct timely_params *p = s->p;
    s->samples++;
    if (!s->prev_rtt) {
        s->prev_rtt = rtt;
        return;
    }
    double new_diff = (double)(rtt - s->prev_rtt);
    s->prev_rtt = rtt;
    s->rtt_diff = (1.0 - p->alpha) * s->rtt_diff + p->alpha * new_diff;
    s->gradient = s->rtt_diff / (double)p->min_rtt_ps;
    s->neg_events = s->gradient <= 0 ? s->neg_events + 1 : 0;
    double delta = (double)p->delta_bps;
    if (rtt < p->t_low_ps) {
        s->rate += delta;
    } else if (rtt > p->t_high_ps) {
        s->rate *= 1.0 - p->beta * (1.0 - (double)p->t_high_ps / (double)rtt);
        s->cuts++;
    } else if (s->gradient <= 0) {
        s->rate += (s->neg_events >= (uint32_t)p->hai_steps ? p->hai_steps : 1) * delta;
    } else {
        double c = 1.0 - p->beta * s->gradient;
        s->rate *= c > 0 ? c : 0;
        s->cuts++;
    }
    if (s->rate > s->line)
        s->rate = s->line;
    if (s->rate < (double)p->min_rate_bps)
        s->rate = (double)p->min_rate_bps;
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
};

/* ------------------------------------------------------------------------ */
/* Settings: host.timely                                                     */

static const char *const preset_names[] = {"paper", "hpcc-ns3", NULL};

static const struct setting timely_fields[] = {
    {SET_ENUM("preset", struct timely_params, preset, preset_names, "paper",
          "The preset applied before the other fields: \"paper\" or \"hpcc-ns3\"")},
    {SET_NUM("alpha", struct timely_params, alpha, SETTING_LO_OPEN, 0.0, 1.0, "0.875",
         "EWMA weight of the newest RTT difference")},
    {SET_NUM("beta", struct timely_params, beta, SETTING_LO_OPEN, 0.0, 1.0, "0.8", "Multiplicative decrease factor")},
    {SET_FIELD("t_low", SETTING_TIME, struct timely_params, t_low_ps, SETTING_POSITIVE, "50us",
           "Below this RTT the rate grows by delta whatever the gradient")},
    {SET_FIELD("t_high", SETTING_TIME, struct timely_params, t_high_ps, SETTING_POSITIVE, "500us",
           "Above this RTT the rate is cut by beta * (1 - t_high / RTT)")},
    {SET_FIELD("min_rtt", SETTING_TIME, struct timely_params, min_rtt_ps, SETTING_POSITIVE, "20us",
           "The RTT difference is divided by this to give the gradient")},
    {SET_FIELD("delta", SETTING_RATE, struct timely_params, delta_bps, SETTING_POSITIVE, "10Mbps",
           "Additive increase step")},
    {SET_INT("hai_steps", struct timely_params, hai_steps, 1, INT_MAX, "5",
         "N: after N events in a row with a gradient <= 0 the step is N * delta (hyperactive increase)")},
    {SET_FIELD("min_rate", SETTING_RATE, struct timely_params, min_rate_bps, SETTING_POSITIVE, "10Mbps",
           "The rate never drops below this")},
    {0},
};

static const struct setting_value timely_hpcc_ns3[] = {
    {"delta", "100Mbps"}, {"min_rate", "1Gbps"}, {NULL, NULL},
};

/* In the order of preset_names. */
static const struct setting_preset timely_presets[] = {
    {"paper", (const struct setting_value[]){{NULL, NULL}}},
    {"hpcc-ns3", timely_hpcc_ns3},
    {NULL, NULL},
};

static struct setting_group timely_group = {
    .path = "host.timely", .fields = timely_fields, .preset_key = "preset", .presets = timely_presets,
};

/* Before main: every program that can run TIMELY knows host.cc "timely" and host.timely before it loads a
 * scenario. */
__attribute__((constructor)) static void timely_register_settings(void)
{
    scn_register_cc("timely");
    timely_group.offset = scn_host_ext_reserve(sizeof(struct timely_params));
    settings_register(&timely_group);
}
