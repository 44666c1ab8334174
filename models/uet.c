/*
 * uet — the settings of Ultra Ethernet's delivery (host.uet): its acknowledgements' coalescing (transport_uet.c)
 * and its receiver credit (rccc.c), declared once here for both; the transport module registers the group.
 */
#include "models/uet.h"
#include "sim/settings.h"
#include "sim/scenario.h"

#include <cjson/cJSON.h>

/* See uet.h. */
const struct uet_params *uet_params_of_host(const struct scn_host *h)
{
    return SETTINGS_OF(h, uet_group, struct uet_params);
}

static int check_uet(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct uet_params *p = base;
    char q[SETTING_PATH_MAX];
    (void)obj;
    if (p->rccc.pull_credit % RCCC_QUANTUM)
        return setting_bad(sc, setting_join(q, path, "pull_credit"), "expected a multiple of %dB (the pull quantum), "
                           "got %lldB", RCCC_QUANTUM, (long long)p->rccc.pull_credit);
    if (p->rccc.os.on && !p->rccc.base_rtt_ps)
        return setting_bad(sc, setting_join(q, path, "oversub_cc"), "expected host.uet.base_rtt above 0us (the "
                           "control's period is 1.5 of it), got 0us");
    return 0;
}

static const struct setting uet_fields[] = {
    {SET_FIELD("sack_threshold", SETTING_SIZE, struct uet_params, sack_threshold, SETTING_POSITIVE, "16384B",
               "The receiver acknowledges once this many bytes (frames' bytes) arrived since its last ACK, and at once "
               "for a CE-marked packet, one that asks for it, the first, the last and a duplicate")},
    {SET_FIELD("rccc", SETTING_BOOL, struct uet_params, rccc.on, 0, "false",
               "Receiver credit (RCCC): the flows this host sends go only on credit its receivers' pull pacers grant, "
               "after a speculative first window of max_credit BDPs")},
    {SET_FIELD("base_rtt", SETTING_TIME, struct uet_params, rccc.base_rtt_ps, 0, "0us",
               "RCCC: the round trip a flow's BDP (x its line rate) and its RTS spacing come from; 0us: the flow's own "
               "unloaded round trip")},
    {SET_NUM("max_credit", struct uet_params, rccc.max_credit, SETTING_LO_OPEN, 0, 1000, "1.5",
             "RCCC: in BDPs, a sender's speculative credit at its start, the most credit it holds or asks for, and the "
             "most an idle sender is given unasked")},
    {SET_FIELD("pull_credit", SETTING_SIZE, struct uet_params, rccc.pull_credit, SETTING_POSITIVE, "16384B",
               "RCCC: the most credit one pull grants (a multiple of 256B, the pull quantum)")},
    {SET_NUM("pull_rate", struct uet_params, rccc.pull_rate, SETTING_LO_OPEN, 0, 1, "0.99",
             "RCCC: the receiving host's pull pacer grants credit at this fraction of its line rate")},
    {SET_FIELD("oversub_cc", SETTING_BOOL, struct uet_params, rccc.os.on, 0, "false",
               "RCCC: the receiving host scales its pull pacer's rate every 1.5 base_rtt from the fraction of the "
               "packets it received CE-marked and the trims before the last hop (the reference's receiver "
               "oversubscription control)")},
    {SET_NUM("oversub_min_rate", struct uet_params, rccc.os.min_rate, SETTING_LO_OPEN, 0, 1, "0.01",
             "RCCC's oversubscription control: the least scale of the pull pacer's rate")},
    {SET_NUM("oversub_ai", struct uet_params, rccc.os.ai, 0, 0, 1, "0.01",
             "RCCC's oversubscription control: the scale's additive increase per period without a decrease, doubled "
             "for each such period in a row while nothing is CE-marked")},
    {SET_NUM("oversub_md", struct uet_params, rccc.os.md, 0, 0, 1000, "0.5",
             "RCCC's oversubscription control: the scale is multiplied by 1 - md x (average marked fraction - "
             "oversub_target) when the average is above the target; 0: never")},
    {SET_NUM("oversub_alpha", struct uet_params, rccc.os.alpha, 0, 0, 1, "0.5",
             "RCCC's oversubscription control: the weight of each period's marked fraction in its moving average")},
    {SET_NUM("oversub_target", struct uet_params, rccc.os.target, 0, 0, 1, "0.3",
             "RCCC's oversubscription control: the average marked fraction above which the scale is cut")},
    {SET_CHECK(check_uet)},
    {0},
};

const struct setting_group uet_group = {
    .path = "host.uet", .size = sizeof(struct uet_params), .fields = uet_fields,
};

