/*
 * trim — packet trimming (switch.trim), as SONiC's "Packet Trimming" high-level design and SAI's packet trim
 * attributes define it (SWITCH_TRIMMING|GLOBAL: size, 128 bytes by default; dscp_value; queue_index; a buffer
 * profile's packet_discard_action "trim"), and as NVIDIA Spectrum-4 switches do it: a packet that a lossy queue
 * fails to admit is cut to `size` bytes and sent on in another queue (usually a higher one, so that it gets
 * through), as a notice of the loss to its receiver, who asks for it again at once instead of waiting for a gap or
 * a timeout.  A frame no longer than `size` goes on whole, as the design says.
 *
 * What rocesim takes: the trimmed frame is a frame of its own kind (PKT_TRIM), with the lost frame's flow and PSN;
 * the lost frame counts as a drop for buffer, as in a switch without trimming (a trimmed packet is a dropped one
 * whose headers go on), and summary.json's packets.trimmed says how many of those drops were trimmed.  Its queue
 * is a priority (switch.trim.priority, SONiC's queue_index; the DSCP that would map to it is not modelled), lossy
 * or not as that priority is at the switch; a trimmed frame that does not fit there either is dropped, a control
 * frame lost.  Only switches of lossy priorities trim: a lossless priority does not drop.
 */
#include "models/trim.h"
#include "models/mech.h"
#include "sim/settings.h"
#include "sim/units.h"

struct trim_params {
    bool enabled;
    int64_t size;  /* bytes of the trimmed frame */
    int priority;  /* the queue it goes to */
};

static const struct setting_group trim_group;

/* See trim.h. */
bool trim_frame(struct net *n, struct sw *w, struct pkt *k)
{
    const struct trim_params *t = SETTINGS_OF(w->cfg, trim_group, struct trim_params);
    if (!t->enabled)
        return false;
    net_count_loss(n, k, DROP_BUFFER); /* the data frame's loss, but k lives on as the notice */
    net_np(n)->c.trimmed++;
    if (k->tel && net_int_rec(n, k->tel)->n_hops != INT_UET) {
        net_tel_put(n, k->tel); /* its INT record goes with its payload; a UET header's record (its pull target) stays */
        k->tel = 0;
    }
    k->type = PKT_TRIM;
    if ((int64_t)k->size > t->size)
        k->size = (uint32_t)t->size;
    k->prio = (uint8_t)t->priority;
    k->ecn = 0;
    k->route_flow &= (uint8_t)~ROUTE_BALANCED; /* a control frame: ECMP */
    return true;
}

/* See trim.h. */
int trim_priority(const struct scn_switch *c, int64_t *size)
{
    const struct trim_params *t = SETTINGS_OF(c, trim_group, struct trim_params);
    if (size)
        *size = t->size;
    return t->enabled ? t->priority : -1;
}

static const struct setting trim_fields[] = {
    {SET_FIELD("enabled", SETTING_BOOL, struct trim_params, enabled, 0, "false",
               "Trim a data frame a lossy queue cannot admit to `size` bytes instead of dropping it whole")},
    {SET_FIELD("size", SETTING_SIZE, struct trim_params, size, SETTING_POSITIVE, "128B",
               "Bytes of a trimmed frame (SONiC's default, 128)")},
    {SET_INT("priority", struct trim_params, priority, 0, 7, "6",
             "The queue trimmed frames go to (SONiC's queue_index)"), .flags = SETTING_CLASS},
    {0},
};

static const struct setting_group trim_group = {
    .path = "switch.trim", .size = sizeof(struct trim_params), .after = "deadlock_check", .fields = trim_fields,
};
SETTINGS_REGISTER("trim", &trim_group);

static void trim_init(struct net *n)
{
    for (uint32_t i = 0; i < n->g->n_switches; i++)
        n->trim_any |= SETTINGS_OF(n->sws[i].cfg, trim_group, struct trim_params)->enabled;
}

static const struct net_mech_ops trim_mech = {.name = "trim", .order = 27, .init = trim_init};
NET_MECH(trim_mech)
