/*
 * cc_swift — Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
 * Datacenter", SIGCOMM 2020) behind the congestion-control table (cc.h).
 *
 * A window in packets, cwnd, driven by the measured delay against a target (the paper's Algorithm 1):
 *   delay <  target: cwnd += ai x acked / cwnd     (cwnd >= 1)      additive increase, ai per RTT
 *                    cwnd += ai x acked            (cwnd < 1)
 *   delay >= target: cwnd *= max(1 - beta x (delay - target) / delay, 1 - max_mdf)
 *                    at most once per RTT (now - t_last_decrease >= rtt)
 *   NACK (the paper's fast recovery): cwnd *= 1 - max_mdf, at most once per RTT
 *   cwnd = clamp(min_cwnd, cwnd, max_cwnd); cwnd < 1 is carried out by pacing one frame per rtt / cwnd.
 * The target (section 3.5) scales with the path and with the flow's own window, which stands for the number of
 * flows sharing the bottleneck (the fewer packets a flow may send, the more flows there are):
 *   target = base_target + hops x hop_scale + max(0, min(fs_alpha / sqrt(cwnd) + fs_beta, fs_range))
 *   fs_alpha = fs_range / (1 / sqrt(fs_min_cwnd) - 1 / sqrt(fs_max_cwnd)),  fs_beta = -fs_alpha / sqrt(fs_max_cwnd)
 * so the flow-scaling term is fs_range at fs_min_cwnd and 0 at fs_max_cwnd.
 *
 * The delay is the round trip the transport measures once per RTT (CC_F_RTT: a new data frame's departure to the
 * ACK that covers it); the paper's fabric delay is that minus the remote host's delay, which rocesim's NICs do not
 * have (a receiver acknowledges when the frame arrives), so the whole round trip is the fabric's.  The hops are the
 * switches on the flow's route when it starts (the paper reads them from the IP TTL of the ACK).  As the
 * paper reacts to every ACK, so does this: with the latest sample's verdict (at most one RTT old), the increase at
 * every ACK and the decrease at the first ACK a round trip after the previous decrease.  Swift's second window, for the endpoint delay, has nothing to measure here and is left out.
 *
 * Defaults (docs/scenario.md, host.swift): the paper gives the formulas and the deployment's ranges but no one
 * table for a simulator; the values are those of htsim's Swift model, the packet simulator the paper's authors
 * point to: base_target 20 us, hop_scale = base_target / 6.55 (3.05 us), fs_range = 5 x base_target (100 us),
 * fs_min_cwnd 0.1, fs_max_cwnd 100 packets, beta 0.8, max_mdf 0.5; ai one packet per RTT (Algorithm 1 in
 * packets), min_cwnd 0.001 packets (the paper lets the window fall to a small fraction of a packet).
 */
#include "models/cc_swift.h"
#include "models/route.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>

_Static_assert(sizeof(struct swift_state) <= CC_STATE_BYTES, "Swift's state fits the flow's cc_state");

static struct setting_group swift_group;

const struct swift_params *swift_params(const struct flow *f)
{
    return SETTINGS_OF(f->net->hosts[f->src].cfg, swift_group, struct swift_params);
}

static struct swift_state *st(struct flow *f) { return CC_STATE(f, struct swift_state); }
static const struct swift_state *cst(const struct flow *f) { return CC_STATE(f, const struct swift_state); }

static sim_time_t swift_target(const struct swift_state *s, const struct swift_params *p)
{
    double fs = s->fs_alpha / sqrt(s->cwnd) + s->fs_beta;
    if (fs < 0)
        fs = 0;
    if (fs > (double)p->fs_range_ps)
        fs = (double)p->fs_range_ps;
    return s->hop_target + (sim_time_t)fs;
}

/* The round trip the window is spread over: the latest sample, or the target before the first. */
static sim_time_t swift_rtt(const struct swift_state *s) { return s->delay ? s->delay : s->target; }

/* Clamps the window, notes a decrease, and hands the transport its window and the new target. */
static void swift_apply(struct flow *f, struct swift_state *s, const struct swift_params *p, double prev,
                        sim_time_t now)
{
    if (s->cwnd < p->min_cwnd)
        s->cwnd = p->min_cwnd;
    if (s->cwnd > p->max_cwnd)
        s->cwnd = p->max_cwnd;
    if (s->cwnd < prev) {
        s->last_decrease = now;
        s->decreases++;
    }
    /* Below one packet the window holds one frame and the rate spaces them (swift_rate). */
    f->cc_wnd = s->cwnd < 1.0 ? f->mtu : (uint32_t)(s->cwnd * f->mtu);
    s->target = swift_target(s, p);
}

static void swift_init(struct flow *f, sim_time_t now)
{
    struct swift_state *s = st(f);
    const struct swift_params *p = s->p = swift_params(f);
    uint32_t nodes[32];
    int links = route_flow_path(f->net, f, nodes, 32);
    s->hops = links > 1 ? (uint32_t)(links - 1) : 0; /* the switches between the two hosts */
    s->hop_target = p->base_target_ps + (sim_time_t)s->hops * p->hop_scale_ps;
    s->fs_alpha = (double)p->fs_range_ps / (1.0 / sqrt(p->fs_min_cwnd) - 1.0 / sqrt(p->fs_max_cwnd));
    s->fs_beta = -s->fs_alpha / sqrt(p->fs_max_cwnd);
    s->last_decrease = now;
    if (p->init_cwnd > 0) {
        s->cwnd = p->init_cwnd;
    } else {
        /* The window that keeps the line busy for the base target: a flow alone starts at line rate. */
        s->cwnd = (double)flow_line_bps(f) * ((double)s->hop_target / PS_PER_S) / (8.0 * f->mtu);
    }
    swift_apply(f, s, p, s->cwnd, now);
}

static void swift_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    struct swift_state *s = st(f);
    const struct swift_params *p = s->p;
    double prev = s->cwnd;
    bool can_decrease = now - s->last_decrease >= swift_rtt(s);
    if (a->nack) {
        if (can_decrease)
            s->cwnd *= 1.0 - p->max_mdf;
    } else {
        if (a->rtt) {
            s->delay = a->rtt;
            s->samples++;
        }
        if (s->delay < s->target) {
            s->cwnd += s->cwnd >= 1.0 ? p->ai * a->newly_acked / s->cwnd : p->ai * a->newly_acked;
        } else if (can_decrease) {
            double d = (double)s->delay, md = 1.0 - p->beta * (d - (double)s->target) / d;
            s->cwnd *= md > 1.0 - p->max_mdf ? md : 1.0 - p->max_mdf;
        }
    }
    if (s->cwnd != prev)
        swift_apply(f, s, p, prev, now);
}

static double swift_rate(const struct flow *f)
{
    const struct swift_state *s = cst(f);
    if (s->cwnd >= 1.0)
        return (double)flow_line_bps(f);
    return s->cwnd * f->mtu * 8.0 * PS_PER_S / (double)swift_rtt(s);
}

static void swift_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    const struct swift_state *w = cst(f);
    s->rate_bps = swift_rate(f);
    s->target_bps = w->cwnd * f->mtu * 8.0 * PS_PER_S / (double)swift_rtt(w);
    s->alpha = (double)w->target / PS_PER_US;
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_TARGET | 1u << CC_SAMPLE_ALPHA;
}

static int swift_stats(const struct flow *f, struct cc_stat *out, int max)
{
    const struct swift_state *s = cst(f);
    struct cc_stat all[] = {{"window_cuts", s->decreases}, {"rtt_samples", s->samples}};
    int k = 0;
    for (; k < max && k < 2; k++)
        out[k] = all[k];
    return k;
}

const struct cc_ops cc_swift_ops = {
    .name = "swift",
    .flags = CC_F_RTT,
    .alpha_name = "Swift target delay (us)",
    .alpha_fraction = false,
    .target_name = "window-implied rate", /* cwnd x MTU x 8 / RTT */
    .init = swift_init,
    .on_ack = swift_on_ack,
    .rate = swift_rate,
    .sample = swift_sample,
    .stats = swift_stats,
};

/* ------------------------------------------------------------------------ */
/* Settings: host.swift                                                      */

/* The flow scaling divides by 1 / sqrt(fs_min_cwnd) - 1 / sqrt(fs_max_cwnd), and the clamp needs its bounds ordered. */
static int check_windows(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct swift_params *p = base;
    char q[256];
    (void)obj;
    if (p->fs_min_cwnd >= p->fs_max_cwnd) {
        setting_strf(q, sizeof q, "%s.fs_min_cwnd", path);
        return setting_bad(c, q, "expected a window below fs_max_cwnd (%g), got %g", p->fs_max_cwnd, p->fs_min_cwnd);
    }
    if (p->min_cwnd > p->max_cwnd) {
        setting_strf(q, sizeof q, "%s.min_cwnd", path);
        return setting_bad(c, q, "expected a window no larger than max_cwnd (%g), got %g", p->max_cwnd, p->min_cwnd);
    }
    return 0;
}

static const struct setting swift_fields[] = {
    {SET_FIELD("base_target", SETTING_TIME, struct swift_params, base_target_ps, SETTING_POSITIVE, "20us",
           "Target delay of a path without switches (section 3.5)")},
    {SET_FIELD("hop_scale", SETTING_TIME, struct swift_params, hop_scale_ps, 0, "3.05us",
           "Target delay added per switch on the flow's route")},
    {SET_FIELD("fs_range", SETTING_TIME, struct swift_params, fs_range_ps, 0, "100us",
           "Most target delay the flow scaling adds (at fs_min_cwnd)")},
    {SET_NUM("fs_min_cwnd", struct swift_params, fs_min_cwnd, SETTING_LO_OPEN, 0.0, 1e6, "0.1",
         "Window (packets) at and below which the flow scaling adds fs_range")},
    {SET_NUM("fs_max_cwnd", struct swift_params, fs_max_cwnd, SETTING_LO_OPEN, 0.0, 1e6, "100",
         "Window (packets) at and above which the flow scaling adds nothing")},
    {SET_NUM("ai", struct swift_params, ai, SETTING_LO_OPEN, 0.0, 1e6, "1", "Additive increase, packets per RTT")},
    {SET_NUM("beta", struct swift_params, beta, SETTING_LO_OPEN, 0.0, 1.0, "0.8",
         "Multiplicative decrease per unit of relative excess delay")},
    {SET_NUM("max_mdf", struct swift_params, max_mdf, SETTING_LO_OPEN, 0.0, 1.0, "0.5",
         "Largest fraction of the window one decrease takes")},
    {SET_NUM("min_cwnd", struct swift_params, min_cwnd, SETTING_LO_OPEN, 0.0, 1e6, "0.001",
         "Smallest window (packets); below 1 the flow is paced")},
    {SET_NUM("max_cwnd", struct swift_params, max_cwnd, SETTING_LO_OPEN, 0.0, 1e6, "10000",
         "Largest window (packets)")},
    {SET_NUM("init_cwnd", struct swift_params, init_cwnd, 0, 0.0, 1e6, "0",
         "Window (packets) a flow starts with; 0: line rate over the base and hop target")},
    {SET_CHECK(check_windows)},
    {0},
};

static struct setting_group swift_group = {
    .path = "host.swift", .size = sizeof(struct swift_params), .fields = swift_fields,
};

MODULE_REGISTER(cc_kind, "swift", &cc_swift_ops, &swift_group);
