/*
 * sim — the discrete-event engine: integer-picosecond clock, event queue,
 * cancellable timers and the run loop.
 *
 * Events are ordered by (time, insertion sequence): two events at the same
 * time always fire in the order they were scheduled, so a run is a pure
 * function of its inputs.  The queue is a 4-ary min-heap of 16-byte keys
 * (time, sequence<<SIM_SLOT_BITS | slot); the handler, object and argument of
 * each pending event sit in a slab indexed by slot, so sifting moves only the
 * small keys.  Nothing here allocates once the heap and slab have grown to the
 * run's high-water mark.  While an event runs, what the next one (and, with a
 * hook, the one after) will touch is prefetched (sim.c): in a large fabric
 * those are DRAM misses; prefetching changes no state.
 *
 * Timers are cancelled lazily with a generation counter: cancelling bumps the
 * counter, and a popped event whose generation is stale is discarded without
 * calling its handler.  Re-arming to a later time (a retransmission timer
 * pushed back by every ACK) does not queue a new event at all: the event
 * already queued fires first, sees that the expiry moved, and re-queues itself
 * for the new time.  So a timer costs one queued event per expiry period
 * instead of one per re-arm, and cancellation costs O(1) with no search.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

typedef int64_t sim_time_t; /* picoseconds */

#define SIM_TIME_MAX INT64_MAX
#define SIM_SLOT_BITS 26 /* up to 64 M pending events */

struct sim;
typedef void (*sim_fn)(struct sim *s, void *obj, uint64_t arg);

struct sim_timer {
    uint64_t gen;      /* bumped by every cancel and every arm that queues a new event */
    sim_time_t at;     /* when armed, the expiry time */
    sim_time_t queued; /* when armed, the time of the event in the queue (<= at) */
    sim_fn fn;
    void *obj;
    bool armed;
};

struct sim_key {
    sim_time_t t;
    uint64_t seqslot; /* sequence << SIM_SLOT_BITS | slot */
};

struct sim_payload {
    sim_fn fn;
    void *obj;
    struct sim_timer *timer; /* NULL for plain events */
    uint64_t arg;            /* for timers: the generation at arming */
};

struct sim {
    sim_time_t now;
    uint64_t seq;
    uint64_t cur_seq;    /* insertion sequence of the event being run */
    struct sim_key *heap;
    struct sim_key *heap_mem; /* allocation behind heap (see sim.c) */
    uint32_t n, cap;
    struct sim_payload *slab;
    uint32_t *free_slots;
    uint32_t n_free, slab_cap;
    uint64_t events;     /* handlers called */
    uint64_t stale;      /* cancelled timer events discarded */
    uint64_t moved;      /* timer events re-queued to a later expiry */
    bool stop_requested;
    bool root_popped; /* the running event's key is still at heap[0] */
    /* Optional deeper prefetch for one kind of event (sim_set_prefetch). */
    sim_fn pf_fn;
    void (*pf_hook)(const void *obj, uint64_t arg);
};

/*
 * Registers hook to be called, with the event's object and argument, one event
 * before each fn event runs, to prefetch what its handler will touch beyond
 * the object and argument themselves (which the engine prefetches two events
 * ahead).  Only a hint: it must not change any state.
 */
static inline void sim_set_prefetch(struct sim *s, sim_fn fn, void (*hook)(const void *obj, uint64_t arg))
{
    s->pf_fn = fn;
    s->pf_hook = hook;
}

/* Initializes an empty engine at time 0.  Returns 0, or -1 when out of memory. */
int sim_init(struct sim *s);
void sim_free(struct sim *s);

/*
 * Schedules fn(s, obj, arg) at absolute time t (t >= now; scheduling in the
 * past is a bug and aborts).  Aborts when memory runs out: the engine cannot
 * continue without its events.
 */
void sim_at(struct sim *s, sim_time_t t, sim_fn fn, void *obj, uint64_t arg);

static inline void sim_after(struct sim *s, sim_time_t dt, sim_fn fn, void *obj, uint64_t arg)
{
    sim_at(s, s->now + dt, fn, obj, arg);
}

/*
 * Reserves the insertion sequence an event scheduled now would get, for an
 * event that may or may not be scheduled later (sim_at_seq): it then fires in
 * exactly the order it would have had if scheduled now.
 */
static inline uint64_t sim_reserve_seq(struct sim *s) { return s->seq++; }

/* Schedules fn at time t with a sequence from sim_reserve_seq (t >= now). */
void sim_at_seq(struct sim *s, sim_time_t t, uint64_t seq, sim_fn fn, void *obj, uint64_t arg);

/* Whether the event being run comes before (t, seq) in the engine's order. */
static inline bool sim_before(const struct sim *s, sim_time_t t, uint64_t seq)
{
    return s->now < t || (s->now == t && s->cur_seq < seq);
}

/* Arms (or re-arms) a timer to fire fn(s, obj, gen) at t: any earlier arming of it will not fire. */
void sim_timer_arm(struct sim *s, struct sim_timer *tm, sim_time_t t, sim_fn fn, void *obj);

/* Cancels a timer if armed; O(1). */
static inline void sim_timer_cancel(struct sim_timer *tm)
{
    tm->gen++;
    tm->armed = false;
}

/*
 * Runs events in order until the queue is empty, the next event is later than
 * `until`, or sim_stop() was called.  The clock ends at the last event run, or
 * at `until` when events remain beyond it.  Returns the number of handlers run.
 */
uint64_t sim_run(struct sim *s, sim_time_t until);

/* Makes sim_run return after the current handler. */
static inline void sim_stop(struct sim *s) { s->stop_requested = true; }

/* Number of pending events, stale timer events included. */
static inline uint32_t sim_pending(const struct sim *s) { return s->n; }

/* Time of the earliest pending event, or SIM_TIME_MAX. */
static inline sim_time_t sim_next_time(const struct sim *s) { return s->n ? s->heap[0].t : SIM_TIME_MAX; }

/* Pops and runs exactly one event (stale ones are skipped silently).  Returns false when empty. */
bool sim_step(struct sim *s);

#endif
