/*
 * entropy_oblivious — host.entropy "oblivious": the sender cycles through its paths values, each once per round,
 * in an order that changes from round to round, and learns nothing from what comes back (the UEC reference
 * simulator's oblivious load balancing: round robin over the values, the index XOR a random mask redrawn at each
 * wrap).
 */
#include "models/entropy.h"

struct obl_state {
    struct entropy_base b;
    struct ev_cycle c;
};

static size_t obl_bytes(uint32_t paths)
{
    (void)paths;
    return sizeof(struct obl_state);
}

static void obl_init(void *st, uint32_t paths, struct rng *r)
{
    struct obl_state *s = st;
    s->b.rng = *r;
    s->b.paths = paths;
    s->c.xor_mask = (uint32_t)rng_below(&s->b.rng, paths);
}

static uint16_t obl_pick(void *st, sim_time_t now)
{
    struct obl_state *s = st;
    (void)now;
    uint16_t ev = ev_cycle_peek(&s->c, s->b.paths);
    ev_cycle_step(&s->c, s->b.paths, &s->b.rng);
    return ev;
}

static void obl_feedback(void *st, uint16_t ev, enum ev_signal sig, sim_time_t now)
{
    (void)st, (void)ev, (void)sig, (void)now;
}

static const struct entropy_ops obl_ops = {
    .name = "oblivious", .state_bytes = obl_bytes, .init = obl_init, .pick = obl_pick, .feedback = obl_feedback};
MODULE_REGISTER(entropy_kind, "oblivious", &obl_ops);
