/*
 * fecn — InfiniBand congestion control at the switch (InfiniBand Architecture Specification vol. 1, annex A10,
 * "Congestion control"; SwitchCongestionSetting, section A10.4.3.6).
 *
 * A switch egress (port, VL) is in congestion when the bytes queued there exceed a threshold.  A port in
 * congestion that still has credit for the VL is the *root* of the congestion and marks the FECN bit of the
 * packets it forwards; one that has none is a *victim* of congestion further on and marks only when its bit of
 * Victim_Mask is set.  Of the packets eligible, it marks one and then leaves Marking_Rate unmarked (the
 * specification gives the mean number between marks; the model keeps it exact); packets below Packet_Size are
 * never marked.  The receiving HCA answers each FECN with a BECN (models/cc_ibcc.c).
 *
 * Threshold is a 4-bit level whose mapping to a queue length the specification leaves to the switch: here level
 * t (1-15) means more than (16 - t) / 16 of switch.credit.vl_buffer queued at the egress VL, so 15, the most
 * aggressive, is a sixteenth (8 KB of the default 128 KB) and 1 nearly the whole buffer; 0 marks nothing.
 *
 * Defaults: Threshold 15, Marking_Rate 10 and Packet_Size 512 bytes are the settings of Mellanox OFED's
 * congestion control manager (Mellanox OFED for Linux User Manual rev. 2.3-1.0.1, "Congestion Control
 * Manager"); marking is off unless switch.ibcc.enabled, as OpenSM ships congestion control disabled.
 */
#include "models/fecn.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>

static const struct setting_group fecn_group;

void fecn_port_cfg(const struct scn_switch *c, int64_t vl_buffer, struct port_cfg *pc)
{
    const struct fecn_settings *s = SETTINGS_OF(c, fecn_group, struct fecn_settings);
    bool on = s->enabled && s->threshold > 0;
    int64_t q = on ? vl_buffer * (16 - s->threshold) / 16 : 0;
    pc->ecn_mark = on ? PORT_ECN_ENQUEUE : PORT_ECN_OFF;
    pc->ecn = (struct ecn_thresh){.kmin = q, .kmax = q, .pmax = 1.0, .enabled = on, .fecn = true,
                                  .victims = s->victim_mask, .fecn_rate = (uint16_t)s->marking_rate,
                                  .fecn_size = (uint16_t)s->packet_size};
}

bool fecn_mark(const struct port_cfg *pc, const struct port *p, const struct pkt *k)
{
    const struct ecn_thresh *e = &pc->ecn;
    if (k->size < e->fecn_size || (!e->victims && (p->paused >> k->prio & 1)))
        return false;
    uint16_t *gap = &port_aux(p)->fecn_gap[k->prio];
    if (*gap < e->fecn_rate) {
        ++*gap;
        return false;
    }
    *gap = 0;
    return true;
}

/* Packet_Size is an 8-bit count of 64-byte credits in SwitchCongestionSetting. */
static int check_fecn(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct fecn_settings *s = base;
    char p[SETTING_PATH_MAX];
    (void)obj;
    if (s->packet_size % 64 || s->packet_size > 255 * 64)
        return setting_bad(sc, setting_join(p, path, "packet_size"), "expected whole 64-byte credits up to 16320 "
                           "bytes (255 credits), got %lld bytes", (long long)s->packet_size);
    return 0;
}

static const struct setting fecn_fields[] = {
    {SET_FIELD("enabled", SETTING_BOOL, struct fecn_settings, enabled, 0, "false",
           "InfiniBand only: mark FECN at congested egress VLs (false: congestion control off in the fabric)")},
    {SET_INT("threshold", struct fecn_settings, threshold, 0, 15, "15",
             "0: no marking; 1..15: congestion above (16 - threshold)/16 of switch.credit.vl_buffer queued")},
    {SET_INT("marking_rate", struct fecn_settings, marking_rate, 0, 65535, "10",
             "Eligible packets left unmarked between two marks")},
    {SET_FIELD("packet_size", SETTING_SIZE, struct fecn_settings, packet_size, 0, "512B",
           "Smaller packets are never marked (whole 64-byte credits)")},
    {SET_FIELD("victim_mask", SETTING_BOOL, struct fecn_settings, victim_mask, 0, "false",
           "Mark also at ports blocked for credit (victims), not only at the root of the congestion")},
    {SET_CHECK(check_fecn)},
    {0},
};

static const struct setting_group fecn_group = {
    .path = "switch.ibcc", .size = sizeof(struct fecn_settings), .after = "credit", .fields = fecn_fields,
};
SETTINGS_REGISTER("fecn", &fecn_group);
