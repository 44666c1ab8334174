/*
 * entropy_mixed — host.entropy "mixed", the UEC reference simulator's default: the entropy value of every clean ACK
 * goes into a FIFO, and a packet takes the FIFO's oldest value when it holds one, else the bitmap module's choice
 * (entropy_bitmap.c), which also hears every feedback.  The reference's FIFO is unbounded; here it holds the
 * last MIXED_FIFO values (a sender cannot have more ACKs than packets in flight, far fewer than that).
 */
#include "models/entropy.h"

#define MIXED_FIFO 512

struct mixed_state {
    uint16_t fifo[MIXED_FIFO];
    uint32_t head, n;
    struct ev_bitmap bm; /* last: its penalties follow */
};

static size_t mixed_bytes(uint32_t paths)
{
    return sizeof(struct mixed_state) + paths;
}

static void mixed_init(void *st, uint32_t paths, struct rng *r)
{
    struct mixed_state *s = st;
    s->bm.b.rng = *r;
    s->bm.b.paths = paths;
    s->bm.c.xor_mask = (uint32_t)rng_below(&s->bm.b.rng, paths);
}

static uint16_t mixed_pick(void *st, sim_time_t now)
{
    struct mixed_state *s = st;
    (void)now;
    if (s->n) {
        uint16_t ev = s->fifo[s->head];
        s->head = (s->head + 1) % MIXED_FIFO;
        s->n--;
        return ev;
    }
    return ev_bitmap_pick(&s->bm);
}

static void mixed_feedback(void *st, uint16_t ev, enum ev_signal sig, sim_time_t now)
{
    struct mixed_state *s = st;
    (void)now;
    ev_bitmap_feedback(&s->bm, ev, sig);
    if (sig != EV_GOOD)
        return;
    if (s->n == MIXED_FIFO) { /* the oldest goes */
        s->head = (s->head + 1) % MIXED_FIFO;
        s->n--;
    }
    s->fifo[(s->head + s->n) % MIXED_FIFO] = ev;
    s->n++;
}

static const struct entropy_ops mixed_ops = {
    .name = "mixed", .state_bytes = mixed_bytes, .init = mixed_init, .pick = mixed_pick, .feedback = mixed_feedback};
MODULE_REGISTER(entropy_kind, "mixed", &mixed_ops);
