/*
 * entropy_bitmap — host.entropy "bitmap": the oblivious round (entropy_oblivious.c), skipping values that came back
 * badly.  Each value has a penalty 0..15: an ECN-echoing ACK adds 1, a NACK for a packet trimmed on the way 4, a
 * timeout 15 (the maximum); a value with a penalty is passed over, and the first one a choice passes over loses 1,
 * so that a penalised path is tried again after as many rounds as its penalty.  A choice tries at most paths + 1
 * values and then takes the one it stands on.  (The UEC reference simulator's bitmap load balancing; a timeout's
 * value is unknown there and here, so it penalises nothing.)
 */
#include "models/entropy.h"

static size_t bm_bytes(uint32_t paths)
{
    return sizeof(struct ev_bitmap) + paths;
}

static void bm_init(void *st, uint32_t paths, struct rng *r)
{
    struct ev_bitmap *s = st;
    s->b.rng = *r;
    s->b.paths = paths;
    s->c.xor_mask = (uint32_t)rng_below(&s->b.rng, paths);
}

uint16_t ev_bitmap_pick(struct ev_bitmap *s)
{
    uint32_t paths = s->b.paths, tries = 0;
    uint16_t ev = ev_cycle_peek(&s->c, paths);
    bool first = true;
    while (s->penalty[ev] > 0) {
        if (first)
            s->penalty[ev]--;
        first = false;
        if (++tries > paths)
            break;
        ev_cycle_step(&s->c, paths, &s->b.rng);
        ev = ev_cycle_peek(&s->c, paths);
    }
    ev_cycle_step(&s->c, paths, &s->b.rng);
    return ev;
}

void ev_bitmap_feedback(struct ev_bitmap *s, uint16_t ev, enum ev_signal sig)
{
    if (ev == EV_UNKNOWN)
        return;
    uint8_t *p = &s->penalty[ev & (s->b.paths - 1)];
    unsigned add = sig == EV_ECN ? 1 : sig == EV_NACK ? 4 : sig == EV_TIMEOUT ? EV_MAX_PENALTY : 0;
    *p = (uint8_t)(*p + add > EV_MAX_PENALTY ? EV_MAX_PENALTY : *p + add);
}

static uint16_t bm_pick(void *st, sim_time_t now)
{
    (void)now;
    return ev_bitmap_pick(st);
}

static void bm_feedback(void *st, uint16_t ev, enum ev_signal sig, sim_time_t now)
{
    (void)now;
    ev_bitmap_feedback(st, ev, sig);
}

static const struct entropy_ops bm_ops = {
    .name = "bitmap", .state_bytes = bm_bytes, .init = bm_init, .pick = bm_pick, .feedback = bm_feedback};
MODULE_REGISTER(entropy_kind, "bitmap", &bm_ops);
