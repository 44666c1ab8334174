/*
 * cc_dcqcn — DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) behind
 * the congestion-control table (cc.h).
 *
 * Reaction point: the rate machine of dcqcn.c (its formulas are in dcqcn.h): a CNP cuts the rate and starts the
 * rate-increase timer (cc_timer), which re-arms itself every rate_increase_timer while the rate is below line
 * rate; the byte counter advances with every data frame sent.
 *
 * Notification point: a CE-marked data frame makes the receiver send a CNP to the flow's sender, at most one
 * per flow per cnp_interval (section 3.2 of the paper; ConnectX's min_time_between_cnps).  NVIDIA's DCQCN
 * parameter pages list no CNP generation delay at the notification point (its parameters are
 * min_time_between_cnps, cnp_dscp and cnp_802p_prio), so the CNP leaves with the frame that caused it, and
 * they document no granularity of the rate limiter's updates: the rate changes at each event, as in the paper.
 */
#include "models/cc.h"
#include "models/dcqcn.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(struct dcqcn) <= CC_STATE_BYTES, "DCQCN's state fits the flow's cc_state");

static struct dcqcn *rp(struct flow *f) { return CC_STATE(f, struct dcqcn); }
static const struct dcqcn *crp(const struct flow *f) { return CC_STATE(f, const struct dcqcn); }

static void dcqcn_cc_init(struct flow *f, sim_time_t now)
{
    const struct net *n = f->net;
    dcqcn_init(rp(f), dcqcn_params_of(n->hosts[f->src].cfg), flow_line_bps(f), now);
}

static void dcqcn_cc_on_sent(struct flow *f, uint32_t bytes) { dcqcn_on_sent(rp(f), bytes); }

/*
 * One timer serves the increase and a cut held back by rate_reduce_monitor_period: it is armed for whichever
 * comes first, and a cut restarts the increase timer anyway, so the increase it may have displaced is not lost.
 */
/* Periodic timing: the timer serves the increase and the next cut check, whichever comes first; a check that cuts
 * restarts the increase, so an increase it displaced is not lost. */
static void arm_periodic(struct flow *f, sim_time_t now, bool restart_increase)
{
    const struct dcqcn *d = crp(f);
    sim_time_t t = restart_increase ? now + d->p->rate_increase_timer_ps : f->cc_timer.armed ? f->cc_timer.at : -1;
    if (d->cut_pending && (t < 0 || d->check_at < t))
        t = d->check_at;
    if (t >= 0)
        cc_timer_arm(f, t);
}

static void dcqcn_cc_on_cnp(struct flow *f, sim_time_t now)
{
    struct dcqcn *d = rp(f);
    if (d->p->periodic) {
        dcqcn_cnp_periodic(d, now);
        arm_periodic(f, now, false);
        return;
    }
    if (!dcqcn_on_cnp_monitored(d, now)) {
        sim_time_t due = dcqcn_cut_due(d);
        if (!f->cc_timer.armed || f->cc_timer.at > due)
            cc_timer_arm(f, due);
        return;
    }
    cc_timer_arm(f, now + d->p->rate_increase_timer_ps);
}

static void dcqcn_cc_on_timer(struct flow *f, sim_time_t now)
{
    struct dcqcn *d = rp(f);
    if (d->p->periodic) {
        bool check = d->cut_pending && now >= d->check_at;
        if (check)
            dcqcn_check_periodic(d, now); /* a CNP came since the last check: it cuts */
        else
            dcqcn_on_timer(d);
        if (!f->sender_done && (check || d->increasing || d->cut_pending))
            arm_periodic(f, now, check || d->increasing);
        return;
    }
    if (__builtin_expect(d->cut_pending, 0) && now >= dcqcn_cut_due(d)) {
        dcqcn_on_cnp(d, now);
        cc_timer_arm(f, now + d->p->rate_increase_timer_ps);
        return;
    }
    dcqcn_on_timer(d);
    if (f->sender_done)
        return;
    if (__builtin_expect(d->cut_pending, 0)) {
        sim_time_t t = now + d->p->rate_increase_timer_ps, due = dcqcn_cut_due(d);
        cc_timer_arm(f, d->increasing && t < due ? t : due);
    } else if (d->increasing) {
        cc_timer_arm(f, now + d->p->rate_increase_timer_ps);
    }
}

static double dcqcn_cc_rate(const struct flow *f) { return crp(f)->rc; }

static int dcqcn_slot; /* host.dcqcn's slot in struct setting_mods (dcqcn_take_slot) */

static bool dcqcn_cc_on_data(struct flow *f, const struct pkt *k, sim_time_t now)
{
    if (!(k->ecn & ECN_CE))
        return false;
    /* The receiver's settings are read per CE-marked frame, not kept in the flow's state: that state is the
     * sender's, which a receiver on another MPI rank never initialises.  Hence the slot taken before main, not a
     * search per frame. */
    const struct dcqcn_params *np = f->net->hosts[f->dst].cfg->mods.of[dcqcn_slot];
    if (f->last_cnp >= 0 && now - f->last_cnp < np->cnp_interval_ps)
        return false;
    f->last_cnp = now;
    return true;
}

static void dcqcn_cc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    const struct dcqcn *d = crp(f);
    s->rate_bps = d->rc;
    s->target_bps = d->rt;
    s->alpha = dcqcn_alpha(d, now);
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_TARGET | 1u << CC_SAMPLE_ALPHA;
}

static int dcqcn_cc_stats(const struct flow *f, struct cc_stat *out, int max)
{
    if (max < 1)
        return 0;
    out[0] = (struct cc_stat){"rate_cuts", crp(f)->cnps};
    return 1;
}

const struct cc_ops cc_dcqcn_ops = {
    .name = "dcqcn",
    .flags = CC_F_CNP | CC_F_ECN,
    .alpha_name = "DCQCN alpha",
    .alpha_fraction = true,
    .init = dcqcn_cc_init,
    .on_sent = dcqcn_cc_on_sent,
    .on_cnp = dcqcn_cc_on_cnp,
    .on_timer = dcqcn_cc_on_timer,
    .rate = dcqcn_cc_rate,
    .on_data = dcqcn_cc_on_data,
    .sample = dcqcn_cc_sample,
    .stats = dcqcn_cc_stats,
};

/* ------------------------------------------------------------------------ */
/* Settings: host.dcqcn                                                      */

static const char *const preset_names[] = {"paper", "connectx", "ns3", NULL};
static const char *const timing_names[] = {"events", "periodic", NULL};

/* "off" or a positive size: off keeps byte_counter at INT64_MAX, which bytes sent between two cuts never reach,
 * so that the per-frame path needs no test of its own. */
static int parse_byte_counter(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path,
                              void *base)
{
    struct dcqcn_params *d = base;
    (void)f;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "off") == 0) {
        d->byte_counter = INT64_MAX;
        d->byte_counter_off = true;
        return 0;
    }
    int64_t b;
    char uerr[128];
    if ((!cJSON_IsString(v) && !cJSON_IsNumber(v)) ||
        (cJSON_IsString(v) && units_parse_size(v->valuestring, &b, uerr, sizeof uerr) < 0)) {
        char got[96];
        return setting_bad(c, path, "expected \"off\" or a size like \"10MB\", got %s",
                           setting_describe(v, got, sizeof got));
    }
    d->byte_counter_off = false;
    return setting_val_qty(c, v, path, SETTING_SIZE, true, &d->byte_counter);
}

static void dump_byte_counter(cJSON *o, const struct setting *f, const void *base)
{
    const struct dcqcn_params *d = base;
    char b[40];
    cJSON_AddStringToObject(o, f->name, d->byte_counter_off ? "off" : units_fmt_size(d->byte_counter, b, sizeof b));
}

/* Periodic timing keeps its next check where the byte counter counts: it needs the counter off, and a period. */
static int check_timing(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct dcqcn_params *p = base;
    char q[SETTING_PATH_MAX];
    (void)obj;
    if (p->periodic && !p->byte_counter_off)
        return setting_bad(c, setting_join(q, path, "timing"), "expected byte_counter \"off\" with \"periodic\" "
                           "(that machine increases by the timer alone), got a byte counter");
    if (p->periodic && p->rate_reduce_period_ps <= 0)
        return setting_bad(c, setting_join(q, path, "timing"), "expected a rate_reduce_monitor_period above 0 with "
                           "\"periodic\" (the period of its cut checks), got 0us");
    return 0;
}

/*
 * DCQCN (docs/scenario.md, host.dcqcn).  The defaults are the "paper" preset, the parameters of the SIGCOMM 2015
 * paper; "connectx" holds the ConnectX firmware defaults as exposed under /sys/class/net/IF/ecn/roce_rp and
 * roce_np (g = (1024 - dce_tcp_g 1019) / 1024, alpha timer = dce_tcp_rtt, rpg_time_reset, rpg_byte_reset,
 * rpg_threshold, rpg_*_rate, rpg_min_dec_fac, min_time_between_cnps, rate_reduce_monitor_period,
 * clamp_tgt_rate_after_time_inc), from NVIDIA's "DCQCN Parameters" page (community DOC-2790; DOCA "DCQCN CC
 * Parameters").  The module registers
 * this table, its presets and its group with the scenario loader before main runs (sim/settings.h).
 */
static const struct setting dcqcn_fields[] = {
    {SET_ENUM("preset", struct dcqcn_params, preset, preset_names, "paper",
          "The preset applied before the other fields: \"paper\" or \"connectx\"")},
    {SET_NUM("g", struct dcqcn_params, g, SETTING_LO_OPEN, 0.0, 1.0, "0.00390625", "Gain of the alpha average")},
    {SET_NUM("alpha_init", struct dcqcn_params, alpha_init, 0, 0.0, 1.0, "1", "Alpha of a new flow")},
    {SET_FIELD("alpha_timer", SETTING_TIME, struct dcqcn_params, alpha_timer_ps, SETTING_POSITIVE, "55us",
           "Alpha decays once per this period without a CNP")},
    {SET_FIELD("rate_increase_timer", SETTING_TIME, struct dcqcn_params, rate_increase_timer_ps, SETTING_POSITIVE,
           "55us", "Period of the timer-driven rate increase")},
    {SET_FIELD("byte_counter", SETTING_SIZE, struct dcqcn_params, byte_counter, SETTING_POSITIVE, "10MB",
           "A rate increase also happens every this many bytes sent; \"off\": the timer alone"),
     .parse = parse_byte_counter, .dump = dump_byte_counter},
    {SET_INT("fast_recovery_steps", struct dcqcn_params, fast_recovery_steps, 0, INT_MAX, "5",
         "Increase events spent in fast recovery")},
    {SET_FIELD("ai_rate", SETTING_RATE, struct dcqcn_params, ai_rate_bps, SETTING_POSITIVE, "40Mbps",
           "Additive increase step")},
    {SET_FIELD("hai_rate", SETTING_RATE, struct dcqcn_params, hai_rate_bps, SETTING_POSITIVE, "200Mbps",
           "Hyper increase step")},
    {SET_FIELD("min_rate", SETTING_RATE, struct dcqcn_params, min_rate_bps, SETTING_POSITIVE, "100Mbps",
           "The rate never drops below this")},
    {SET_NUM("rate_on_first_cnp", struct dcqcn_params, rate_on_first_cnp, SETTING_LO_OPEN, 0.0, 1.0, "1",
         "Multiplier applied to the rate at a flow's first CNP")},
    {SET_NUM("min_dec_factor", struct dcqcn_params, min_dec_factor, 0, 0.0, 1.0, "0.5",
         "One CNP never cuts the rate below this fraction")},
    {SET_FIELD("clamp_target_rate", SETTING_BOOL, struct dcqcn_params, clamp_target_rate, 0, "false",
           "Every CNP resets the target rate to the current rate")},
    {SET_FIELD("cnp_interval", SETTING_TIME, struct dcqcn_params, cnp_interval_ps, 0, "50us",
           "The receiver sends at most one CNP per flow per this interval")},
    {SET_FIELD("rate_reduce_monitor_period", SETTING_TIME, struct dcqcn_params, rate_reduce_period_ps, 0, "0us",
           "At most one rate cut per this period; CNPs within it cut once at its end; 0 = every CNP cuts")},
    {SET_FIELD("clamp_target_rate_after_timer", SETTING_BOOL, struct dcqcn_params, clamp_after_timer, 0, "false",
           "A cut resets the target rate only when a timer increase happened since the previous cut")},
    {SET_ENUM("timing", struct dcqcn_params, periodic, timing_names, "events",
          "\"events\": alpha with each cut, a cut at once; \"periodic\": the ns-3 RDMA simulator's alpha ticks and "
          "cut checks (dcqcn.h); needs byte_counter \"off\"")},
    {SET_CHECK(check_timing)},
    {0},
};

/* The ns-3 RDMA simulator's machine, with the values its run.py writes for DCQCN at 100 Gbps (CC_MODE 1:
 * ALPHA_RESUME_INTERVAL 1, RATE_DECREASE_INTERVAL 4, RP_TIMER 300, EWMA_GAIN 1/256, FAST_RECOVERY_TIMES 1,
 * RATE_AI 20 Mb/s, RATE_HAI 200 Mb/s, MIN_RATE 1000 Mb/s); its receiver flags the ACK of every CE-marked packet. */
static const struct setting_value dcqcn_ns3[] = {
    {"g", "0.00390625"}, {"alpha_timer", "1us"}, {"rate_increase_timer", "300us"}, {"byte_counter", "off"},
    {"fast_recovery_steps", "1"}, {"ai_rate", "20Mbps"}, {"hai_rate", "200Mbps"}, {"min_rate", "1000Mbps"},
    {"cnp_interval", "0us"}, {"rate_reduce_monitor_period", "4us"}, {"clamp_target_rate_after_timer", "true"},
    {"timing", "periodic"},
    {NULL, NULL},
};

static const struct setting_value dcqcn_connectx[] = {
    {"g", "0.0048828125"}, {"alpha_timer", "1us"}, {"rate_increase_timer", "300us"}, {"byte_counter", "32767B"},
    {"fast_recovery_steps", "1"}, {"ai_rate", "5Mbps"}, {"hai_rate", "50Mbps"}, {"min_rate", "1Mbps"},
    {"cnp_interval", "4us"}, {"rate_reduce_monitor_period", "4us"}, {"clamp_target_rate_after_timer", "true"},
    {NULL, NULL},
};

/* In the order of preset_names: the enum dcqcn_preset values. */
static const struct setting_preset dcqcn_presets[] = {
    {"paper", (const struct setting_value[]){{NULL, NULL}}},
    {"connectx", dcqcn_connectx},
    {"ns3", dcqcn_ns3},
    {NULL, NULL},
};

/* After host.cc, where it stood when sim/ held it, so that dumps and error order stay as they were. */
static const struct setting_group dcqcn_group = {
    .path = "host.dcqcn", .size = sizeof(struct dcqcn_params), .after = "cc", .fields = dcqcn_fields,
    .preset_key = "preset", .presets = dcqcn_presets,
};

/* Before main, once the modules are registered (module_init does nothing a second time): no partition writes it. */
__attribute__((constructor)) static void dcqcn_take_slot(void)
{
    module_init();
    dcqcn_slot = settings_slot(&dcqcn_group, sizeof(struct dcqcn_params));
}

const struct dcqcn_params *dcqcn_params_of(const struct scn_host *h)
{
    return SETTINGS_OF(h, dcqcn_group, struct dcqcn_params);
}

MODULE_REGISTER(cc_kind, "dcqcn", &cc_dcqcn_ops, &dcqcn_group);
