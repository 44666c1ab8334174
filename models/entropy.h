/*
 * entropy — how a sender chooses the entropy value (EV) of each data packet it sends (host.entropy), which the
 * switches hash with the flow and a salt of their own to choose among equal-cost egresses (topologies/routing.h):
 * load balancing at the source, as Ultra Ethernet's packet delivery does it (UEC Specification 1.0, 2025, the
 * packet delivery sublayer's entropy values; the UEC reference simulator's load-balancing modules).
 *
 * "flow" (the default: one value per flow, the flow's own hash) and "packet" (a value per PSN, a spraying NIC,
 * nic.c) need no state and no feedback.  The others keep per-flow state, choose a value for every data packet a
 * transport that echoes it sends (UET, transport_uet.c: retransmissions too), and learn from what comes back with
 * the value: a clean ACK, an ECN-marked one, a NACK for a packet trimmed on the way, or a timeout (whose value is
 * unknown).  Values are 0..paths-1 (host.entropy_paths).
 *
 * An entropy module is a module of kind entropy_kind (sim/module.h): MODULE_REGISTER(entropy_kind, "NAME", &ops).
 * Its state is the sender's alone (written in the sender's events), so choices are the same on any number of
 * threads; its random draws come from a stream of the flow's own (RNG_KIND_ENTROPY).
 */
#ifndef MODELS_ENTROPY_H
#define MODELS_ENTROPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/module.h"
#include "sim/rng.h"
#include "sim/sim.h"

/* What came back for a packet sent with a value. */
enum ev_signal {
    EV_GOOD,    /* an ACK without ECN echo */
    EV_ECN,     /* an ACK with ECN echo */
    EV_NACK,    /* a NACK: the packet was trimmed on the way (not at the receiver's own switch port) */
    EV_TIMEOUT, /* a retransmission timeout; the value is unknown */
};

#define EV_UNKNOWN 0xffffu

struct entropy_ops {
    const char *name;
    /* All optional together: NULL for "flow" and "packet", which the NIC applies itself.  Bytes of a flow's state
     * for `paths` values; its set-up (zeroed memory, a random stream of the flow's own); the value of the next data
     * packet at time now; and what came back for value ev. */
    size_t (*state_bytes)(uint32_t paths);
    void (*init)(void *st, uint32_t paths, struct rng *r);
    uint16_t (*pick)(void *st, sim_time_t now);
    void (*feedback)(void *st, uint16_t ev, enum ev_signal sig, sim_time_t now);
    /* Its values need not be a power of two in number: it masks none (draws below `paths`); the others go round
     * the values with masks (ev_cycle), so host.entropy_paths must then be one. */
    bool any_paths;
};

#define ENTROPY_MAX 16
#define ENTROPY_FLOW 0 /* the kind's default */

extern const struct module_kind entropy_kind;
extern const struct entropy_ops *entropy_registry[ENTROPY_MAX];
extern int entropy_packet; /* the index of "packet" (a value per PSN, nic.c) */

/* The header every stateful module's state starts with: the random stream and the number of values. */
struct entropy_base {
    struct rng rng;
    uint32_t paths;
};

/*
 * The round the oblivious and bitmap modules go through the values in: each value once per round, in the order of
 * the index XOR a mask drawn afresh at each round's start, so that consecutive rounds take different orders.
 */
struct ev_cycle {
    uint32_t index, xor_mask;
};

static inline uint16_t ev_cycle_peek(const struct ev_cycle *c, uint32_t paths)
{
    return (uint16_t)((c->index ^ c->xor_mask) & (paths - 1));
}

static inline void ev_cycle_step(struct ev_cycle *c, uint32_t paths, struct rng *r)
{
    if (++c->index == paths) {
        c->index = 0;
        c->xor_mask = (uint32_t)rng_below(r, paths);
    }
}

/* The bitmap module's state and hooks (entropy_bitmap.c), which "mixed" uses too. */
#define EV_MAX_PENALTY 15
struct ev_bitmap {
    struct entropy_base b;
    struct ev_cycle c;
    uint8_t penalty[]; /* per value, 0..EV_MAX_PENALTY */
};
uint16_t ev_bitmap_pick(struct ev_bitmap *s);
void ev_bitmap_feedback(struct ev_bitmap *s, uint16_t ev, enum ev_signal sig);

#endif
