/*
 * cc_ibcc — InfiniBand congestion control at the channel adapter (InfiniBand Architecture Specification vol. 1,
 * annex A10; CACongestionSetting and CongestionControlTable, sections A10.4.3.8-9), behind the
 * congestion-control table (cc.h).  The switch side, FECN marking, is models/fecn.c.
 *
 * Notification point: the receiving HCA answers every FECN-marked packet with a BECN, here a congestion
 * notification packet on the flow's VL (CC_F_CNP; 42 bytes on InfiniBand, fabric_ib.c).
 *
 * Reaction point, per flow (Port_Control 0: the state is per queue pair):
 *     on a BECN:            CCTI <- min(CCTI + CCTI_Increase, CCTI_Limit)
 *     every CCTI_Timer:     CCTI <- max(CCTI - 1, CCTI_Min)          (CCTI_Timer in units of 1.024 us)
 *     injection:            a packet, then an inter-packet delay IPD = (T >> CCT_Shift) x CCT_Multiplier
 * where CCT[CCTI] = (CCT_Shift, CCT_Multiplier) and T is the time of one packet of the flow's MTU at its line
 * rate, so the flow sends at line / (1 + CCT_Multiplier / 2^CCT_Shift).  The specification's text of the delay
 * was not at hand: the formula and the timer's unit are those of the Linux hfi1 driver, which implements the
 * annex (drivers/infiniband/hw/hfi1: set_link_ipg, process_becn, cca_timer_fn).
 *
 * Defaults: CCTI_Increase 1 and CCTI_Min 0 are Mellanox OFED's congestion control manager's (User Manual rev.
 * 2.3-1.0.1).  Its CCT and CCTI_Timer are computed from the subnet's size by the manager, a rule it does not
 * publish; the model's default table is linear, entry i = (shift 2, multiplier i) for i = 0..127 (entry 0 no
 * delay, as the manager keeps it), so that each BECN adds a quarter of a packet's time to the gap and the last
 * entry sends at 1/32.75 of the line, and its CCTI_Timer is 100 (102.4 us): slow enough that the BECNs of eight
 * senders sharing one hot spot's marks outpace it (with 10, they do not: docs/scenario.md, host.ibcc), and a flow
 * at an eighth of the line (CCTI 28) recovers in about 2.9 ms.  The specification runs one timer per SL for all of
 * a port's queue pairs; the model runs one per flow.
 */
#include "models/cc.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CCT_MAX 128
#define TIMER_UNIT_PS 1024000 /* 1.024 us */

struct ibcc_params {
    int ccti_increase;
    int ccti_timer;  /* in 1.024 us */
    int ccti_min;
    int ccti_limit;
    int n_cct;       /* entries of cct; 0: the linear default */
    uint8_t shift[CCT_MAX];
    uint16_t multiplier[CCT_MAX];
};

struct ibcc {
    const struct ibcc_params *p;
    double line_bps;
    double rate_bps;
    uint64_t becns;
    uint16_t ccti;
};
_Static_assert(sizeof(struct ibcc) <= CC_STATE_BYTES, "IB CC's state fits the flow's cc_state");

static const struct setting_group ibcc_group;

static struct ibcc *st(struct flow *f) { return CC_STATE(f, struct ibcc); }
static const struct ibcc *cst(const struct flow *f) { return CC_STATE(f, const struct ibcc); }

/* The rate of CCT entry i: line / (1 + multiplier / 2^shift). */
static double entry_rate(const struct ibcc *c, int i)
{
    const struct ibcc_params *p = c->p;
    double mult = p->n_cct ? p->multiplier[i] : i, shift = p->n_cct ? p->shift[i] : 2;
    return c->line_bps / (1.0 + mult / (double)(1u << (int)shift));
}

static void set_ccti(struct ibcc *c, int ccti)
{
    c->ccti = (uint16_t)ccti;
    c->rate_bps = entry_rate(c, ccti);
}

static void ibcc_init(struct flow *f, sim_time_t now)
{
    struct ibcc *c = st(f);
    c->p = SETTINGS_OF(f->net->hosts[f->src].cfg, ibcc_group, struct ibcc_params);
    c->line_bps = (double)flow_line_bps(f);
    set_ccti(c, c->p->ccti_min);
}

static void ibcc_on_cnp(struct flow *f, sim_time_t now)
{
    struct ibcc *c = st(f);
    int next = c->ccti + c->p->ccti_increase;
    c->becns++;
    set_ccti(c, next < c->p->ccti_limit ? next : c->p->ccti_limit);
    if (!f->cc_timer.armed && c->ccti > c->p->ccti_min)
        cc_timer_arm(f, now + (sim_time_t)c->p->ccti_timer * TIMER_UNIT_PS);
}

static void ibcc_on_timer(struct flow *f, sim_time_t now)
{
    struct ibcc *c = st(f);
    if (c->ccti > c->p->ccti_min)
        set_ccti(c, c->ccti - 1);
    if (c->ccti > c->p->ccti_min && !f->sender_done)
        cc_timer_arm(f, now + (sim_time_t)c->p->ccti_timer * TIMER_UNIT_PS);
}

static double ibcc_rate(const struct flow *f) { return cst(f)->rate_bps; }

/* Every FECN is answered (the annex has no pacing of BECNs at the receiver). */
static bool ibcc_on_data(struct flow *f, const struct pkt *k, sim_time_t now) { return (k->ecn & ECN_CE) != 0; }

static void ibcc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s)
{
    const struct ibcc *c = cst(f);
    s->rate_bps = c->rate_bps;
    s->alpha = c->ccti;
    s->valid = 1u << CC_SAMPLE_RATE | 1u << CC_SAMPLE_ALPHA;
}

static int ibcc_stats(const struct flow *f, struct cc_stat *out, int max)
{
    if (max < 1)
        return 0;
    out[0] = (struct cc_stat){"becns", cst(f)->becns};
    return 1;
}

const struct cc_ops cc_ibcc_ops = {
    .name = "ibcc",
    .flags = CC_F_CNP | CC_F_ECN,
    .alpha_name = "CCTI",
    .alpha_fraction = false,
    .init = ibcc_init,
    .on_cnp = ibcc_on_cnp,
    .on_timer = ibcc_on_timer,
    .rate = ibcc_rate,
    .on_data = ibcc_on_data,
    .sample = ibcc_sample,
    .stats = ibcc_stats,
};

/* ---- host.ibcc: CACongestionSetting's entry and the CongestionControlTable (docs/scenario.md) ---- */

/* "shift:multiplier,..." from CCTI 0 on: CCT_Shift 0-3 (2 bits), CCT_Multiplier 0-16383 (14 bits). */
static int parse_cct(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    struct ibcc_params *p = base;
    long pairs[CCT_MAX][2];
    (void)f;
    if (setting_val_pairs(c, v, path, "a string of shift:multiplier entries like \"0:0,2:1,2:2\"",
                          "shift:multiplier entries with shift 0-3 and multiplier 0-16383", (const long[2]){0, 0},
                          (const long[2]){3, 16383}, pairs, CCT_MAX, &p->n_cct) < 0)
        return -1;
    for (int i = 0; i < p->n_cct; i++) {
        p->shift[i] = (uint8_t)pairs[i][0];
        p->multiplier[i] = (uint16_t)pairs[i][1];
    }
    if (!p->n_cct)
        return setting_bad(c, path, "expected at least one shift:multiplier entry, got \"\"");
    return 0;
}

/* Only a table that was given is shown: the default is the linear one the docs describe. */
static void dump_cct(cJSON *o, const struct setting *f, const void *base)
{
    const struct ibcc_params *p = base;
    char buf[CCT_MAX * 9] = "";
    if (!p->n_cct)
        return;
    for (int i = 0; i < p->n_cct; i++)
        setting_strf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d:%d", i ? "," : "", p->shift[i],
                     p->multiplier[i]);
    cJSON_AddStringToObject(o, f->name, buf);
}

static int check_ibcc(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct ibcc_params *p = base;
    char q[SETTING_PATH_MAX];
    int entries = p->n_cct ? p->n_cct : CCT_MAX;
    (void)obj;
    if (p->ccti_limit >= entries)
        return setting_bad(c, setting_join(q, path, "ccti_limit"), "expected at most the last entry of cct (%d), "
                           "got %d", entries - 1, p->ccti_limit);
    if (p->ccti_min > p->ccti_limit)
        return setting_bad(c, setting_join(q, path, "ccti_min"), "expected at most ccti_limit (%d), got %d",
                           p->ccti_limit, p->ccti_min);
    return 0;
}

static const struct setting ibcc_fields[] = {
    {SET_INT("ccti_increase", struct ibcc_params, ccti_increase, 0, 255, "1", "Added to a flow's CCTI per BECN")},
    {SET_INT("ccti_timer", struct ibcc_params, ccti_timer, 1, 65535, "100",
             "Each period of this many 1.024 us lowers the CCTI by one")},
    {SET_INT("ccti_min", struct ibcc_params, ccti_min, 0, CCT_MAX - 1, "0", "The CCTI never goes below it")},
    {SET_INT("ccti_limit", struct ibcc_params, ccti_limit, 0, CCT_MAX - 1, "127", "The CCTI never goes above it")},
    {.name = "cct", .kind = SETTING_CUSTOM, .offset = offsetof(struct ibcc_params, n_cct),
     .help = "The congestion control table, \"shift:multiplier,...\" from CCTI 0 (absent: entry i is 3:i)",
     .parse = parse_cct, .dump = dump_cct},
    {SET_CHECK(check_ibcc)},
    {0},
};

static const struct setting_group ibcc_group = {
    .path = "host.ibcc", .size = sizeof(struct ibcc_params), .fields = ibcc_fields,
};

MODULE_REGISTER(cc_kind, "ibcc", &cc_ibcc_ops, &ibcc_group);
