/*
 * lb_adaptive — adaptive routing (switch.load_balance "adaptive"): the egress among the equal-cost ones with the
 * fewest bytes queued at the frame's priority (the queue it would join), as adaptive-routing switches choose from
 * their local queues (NVIDIA Spectrum-X's adaptive routing, Broadcom's dynamic load balancing; the paper form is
 * DRILL, Ghorbani et al., SIGCOMM 2017, which decides per packet from local queues).  switch.adaptive.per
 * "packet" decides for every data packet; "flowlet" only for the first of a flowlet (switch.flowlet.gap,
 * lb_flowlet.c), so that a flow reorders only across pauses.  Ties go to the first from the flow's hash on, so
 * that idle egresses share new flows.
 */
#include "models/lb.h"
#include "sim/settings.h"

#include <stdlib.h>

enum adaptive_per { PER_PACKET, PER_FLOWLET };

struct adaptive_params {
    int per;
};

static const struct setting_group adaptive_group;

static uint32_t adaptive_pick(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt)
{
    if (w->lb_state)
        return lb_flowlet_adaptive(n, w, k, ports, cnt);
    return lb_least_loaded(w, ports, cnt, rng_mix32(k->hash ^ w->salt) % cnt, k->prio);
}

static void adaptive_init(struct net *n, struct sw *w)
{
    if (SETTINGS_OF(w->cfg, adaptive_group, struct adaptive_params)->per == PER_FLOWLET)
        lb_flowlet_table(w);
}

static void adaptive_free(struct sw *w) { free(w->lb_state); }

static const char *const per_names[] = {"packet", "flowlet", NULL};

static const struct setting adaptive_fields[] = {
    {SET_ENUM("per", struct adaptive_params, per, per_names, "packet",
              "Decide for every data packet (\"packet\") or for the first of each flowlet (\"flowlet\", "
              "switch.flowlet.gap)")},
    {0},
};

static const struct setting_group adaptive_group = {
    .path = "switch.adaptive", .size = sizeof(struct adaptive_params), .after = "flowlet", .fields = adaptive_fields,
};

static bool adaptive_per_packet(const struct scn_switch *c)
{
    return SETTINGS_OF(c, adaptive_group, struct adaptive_params)->per == PER_PACKET;
}

static const struct lb_ops adaptive_lb_ops = {.name = "adaptive", .pick = adaptive_pick, .init = adaptive_init,
                                              .free = adaptive_free, .per_packet = adaptive_per_packet};
MODULE_REGISTER(lb_kind, "adaptive", &adaptive_lb_ops, &adaptive_group);
