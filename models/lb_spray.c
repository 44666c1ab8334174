/*
 * lb_spray — packet spraying (switch.load_balance "spray"): each data packet of a flow takes its own egress among
 * the equal-cost ones, as Dixit et al. measured for data centres ("On the Impact of Packet Spraying in Data Center
 * Networks", INFOCOM 2013) and RDMA NICs and switches that spray do today: "random" hashes the flow and the packet's
 * PSN with the switch's salt (so a resent packet may take another path), "round_robin" takes the egresses in turn,
 * one counter per destination host modulo 64 at each switch.  Reordering is the receiver's to handle: go-back-N
 * treats it as loss, selective repeat (transport_sr.c) keeps the early packets.
 */
#include "models/lb.h"
#include "sim/mem.h"
#include "sim/settings.h"

#include <stdlib.h>

#define RR_COUNTERS 64

enum spray_order { SPRAY_RANDOM, SPRAY_ROUND_ROBIN };

struct spray_params {
    int order;
};

static const struct setting_group spray_group;

static uint32_t spray_pick(struct net *n, struct sw *w, const struct pkt *k, const uint16_t *ports, uint32_t cnt)
{
    if (w->lb_state) {
        uint32_t *c = (uint32_t *)w->lb_state + (k->dst_host % RR_COUNTERS);
        return (*c)++ % cnt;
    }
    return rng_mix32(k->hash ^ rng_mix32(k->psn + 0x9e3779b9u) ^ w->salt) % cnt;
}

static void spray_init(struct net *n, struct sw *w)
{
    if (SETTINGS_OF(w->cfg, spray_group, struct spray_params)->order == SPRAY_ROUND_ROBIN)
        w->lb_state = mem_xcalloc(RR_COUNTERS, sizeof(uint32_t), "a switch's round-robin counters");
}

static void spray_free(struct sw *w) { free(w->lb_state); }

static const char *const order_names[] = {"random", "round_robin", NULL};

static const struct setting spray_fields[] = {
    {SET_ENUM("order", struct spray_params, order, order_names, "random",
              "\"random\" (a hash of the flow and the PSN) or \"round_robin\" (in turn, per destination)")},
    {0},
};

static const struct setting_group spray_group = {
    .path = "switch.spray", .size = sizeof(struct spray_params), .after = "load_balance", .fields = spray_fields,
};

static bool spray_per_packet(const struct scn_switch *c) { return true; }

static const struct lb_ops spray_lb_ops = {
    .name = "spray", .pick = spray_pick, .init = spray_init, .free = spray_free, .per_packet = spray_per_packet};
MODULE_REGISTER(lb_kind, "spray", &spray_lb_ops, &spray_group);
