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
    {SET_CHECK(check_uet)},
    {0},
};

const struct setting_group uet_group = {
    .path = "host.uet", .size = sizeof(struct uet_params), .fields = uet_fields,
};

