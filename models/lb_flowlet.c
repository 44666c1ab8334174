/*
 * lb_flowlet — flowlet switching (switch.load_balance "flowlet"; Kandula, Katabi, Sinha, Berger, "Dynamic load
 * balancing without packet reordering", SIGCOMM CCR 2007, and CONGA, Alizadeh et al., SIGCOMM 2014): a flow's
 * packets keep their egress while they come closer together than switch.flowlet.gap; after a longer pause the
 * next packet starts a new flowlet, which may take another egress (a hash of the flow and the flowlet's number).
 * As in the switches that do it, flows share a table of FLOWLET_SLOTS entries per switch by their hash (two flows
 * in one slot share its flowlets).  The gap is rocesim's choice, 50 us: longer than the queueing difference
 * between paths in most fabrics, so that a new flowlet does not overtake the last one.
 */
#include "models/lb.h"
#include "sim/mem.h"
#include "sim/settings.h"

#include <stdlib.h>

#define FLOWLET_SLOTS 1024

struct flowlet_params {
    int64_t gap_ps;
};

static const struct setting_group flowlet_group;

/* One slot: when its last packet passed, its flowlet's number and the egress index the flowlet took. */
struct flowlet_slot {
    sim_time_t last;
    uint32_t number;
    uint32_t idx;
};

/* The slot of frame k at w, and whether k starts a new flowlet there (then the caller chooses its idx). */
static struct flowlet_slot *slot_of(struct net *n, struct sw *w, const struct pkt *k, int64_t gap, bool *fresh)
{
    struct flowlet_slot *s = (struct flowlet_slot *)w->lb_state + (rng_mix32(k->hash ^ w->salt) % FLOWLET_SLOTS);
    sim_time_t now = net_sim(n)->now;
    *fresh = s->last == 0 || now - s->last > gap;
    s->last = now;
    s->number += *fresh;
    return s;
}

static uint32_t flowlet_pick(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt)
{
    bool fresh;
    struct flowlet_slot *s = slot_of(n, w, k, lb_flowlet_gap(w->cfg), &fresh);
    if (fresh || s->idx >= cnt)
        s->idx = rng_mix32(k->hash ^ rng_mix32(s->number) ^ w->salt) % cnt;
    return s->idx;
}

static void flowlet_init(struct net *n, struct sw *w)
{
    w->lb_state = mem_xcalloc(FLOWLET_SLOTS, sizeof(struct flowlet_slot), "a switch's flowlet table");
}

static void flowlet_free(struct sw *w) { free(w->lb_state); }

/* See lb.h. */
int64_t lb_flowlet_gap(const struct scn_switch *c)
{
    return SETTINGS_OF(c, flowlet_group, struct flowlet_params)->gap_ps;
}

/* See lb.h. */
uint32_t lb_flowlet_adaptive(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt)
{
    bool fresh;
    struct flowlet_slot *s = slot_of(n, w, k, lb_flowlet_gap(w->cfg), &fresh);
    if (fresh || s->idx >= cnt)
        s->idx = lb_least_loaded(w, ports, cnt, rng_mix32(k->hash ^ w->salt) % cnt, k->prio);
    return s->idx;
}

/* See lb.h. */
void lb_flowlet_table(struct sw *w) { flowlet_init(NULL, w); }

static const struct setting flowlet_fields[] = {
    {SET_FIELD("gap", SETTING_TIME, struct flowlet_params, gap_ps, SETTING_POSITIVE, "50us",
               "A flow's packets further apart than this start a new flowlet, which may take another egress")},
    {0},
};

static const struct setting_group flowlet_group = {
    .path = "switch.flowlet", .size = sizeof(struct flowlet_params), .after = "spray", .fields = flowlet_fields,
};

static const struct lb_ops flowlet_lb_ops = {
    .name = "flowlet", .pick = flowlet_pick, .init = flowlet_init, .free = flowlet_free};
MODULE_REGISTER(lb_kind, "flowlet", &flowlet_lb_ops, &flowlet_group);
