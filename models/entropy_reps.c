/*
 * entropy_reps — host.entropy "reps": recycled entropy packet spraying (REPS; T. Bonato et al., "REPS: Recycled
 * Entropies Packet Spraying for Adaptive Load Balancing and Failure Mitigation", 2024, as the UEC reference
 * simulator implements it).  The entropy value of every clean ACK (no ECN echo) is written into a ring of 8 as
 * fresh; a packet takes the oldest fresh value (which stops being fresh), or a random one when none is fresh.  A
 * value that came back marked or trimmed is simply not recycled: that is the whole penalty.
 *
 * Failures: a timeout (outside exploration) freezes the ring for 10 ms: packets then cycle through the values the
 * ring holds, fresh or not, since a timeout means the fresh ones may all lead to a dead link too.  The first
 * feedback after those 10 ms clears the ring and explores 16 random values before recycling again.  (The reference
 * refuses to freeze without trimming; rocesim freezes either way and says so in docs/model.md.)
 */
#include "models/entropy.h"
#include "sim/units.h"

#define REPS_RING 8
#define REPS_FREEZE (10 * PS_PER_MS)
#define REPS_EXPLORE 16

struct reps_state {
    struct entropy_base b;
    sim_time_t thaw_at;
    uint16_t val[REPS_RING];
    bool valid[REPS_RING];
    uint8_t head, count, fresh, head_frozen, explore;
    bool frozen;
};

static size_t reps_bytes(uint32_t paths)
{
    (void)paths;
    return sizeof(struct reps_state);
}

static void reps_init(void *st, uint32_t paths, struct rng *r)
{
    struct reps_state *s = st;
    s->b.rng = *r;
    s->b.paths = paths;
}

static uint16_t random_ev(struct reps_state *s)
{
    return (uint16_t)rng_below(&s->b.rng, s->b.paths);
}

static uint16_t reps_pick(void *st, sim_time_t now)
{
    struct reps_state *s = st;
    (void)now;
    if (s->explore) {
        s->explore--;
        return random_ev(s);
    }
    if (s->frozen) {
        if (!s->count)
            return random_ev(s);
        uint8_t i = s->head_frozen;
        if (s->valid[i]) {
            s->valid[i] = false;
            s->fresh--;
        }
        s->head_frozen = (uint8_t)((i + 1) % s->count);
        return s->val[i];
    }
    if (!s->fresh)
        return random_ev(s);
    uint8_t i = (uint8_t)((s->head + REPS_RING - s->fresh) % REPS_RING); /* the oldest fresh one */
    s->valid[i] = false;
    s->fresh--;
    return s->val[i];
}

static void reps_feedback(void *st, uint16_t ev, enum ev_signal sig, sim_time_t now)
{
    struct reps_state *s = st;
    if (sig == EV_TIMEOUT && !s->frozen && !s->explore) {
        s->frozen = true;
        s->thaw_at = now + REPS_FREEZE;
    }
    if (s->frozen && now > s->thaw_at) {
        struct rng r = s->b.rng;
        uint32_t paths = s->b.paths;
        *s = (struct reps_state){.b = {.rng = r, .paths = paths}, .explore = REPS_EXPLORE};
    }
    if (sig != EV_GOOD)
        return;
    if (!s->valid[s->head] && s->fresh < REPS_RING)
        s->fresh++;
    s->val[s->head] = ev;
    s->valid[s->head] = true;
    s->head = (uint8_t)((s->head + 1) % REPS_RING);
    if (s->count < REPS_RING)
        s->count++;
}

static const struct entropy_ops reps_ops = {
    .name = "reps", .state_bytes = reps_bytes, .init = reps_init, .pick = reps_pick, .feedback = reps_feedback,
    .any_paths = true};
MODULE_REGISTER(entropy_kind, "reps", &reps_ops);
