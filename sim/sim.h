/*
 * sim — the discrete-event engine: integer-picosecond clock, event queue,
 * cancellable timers and the run loop.
 *
 * Order.  Every event belongs to an entity (a node of the network, or entity
 * 0, the run itself: collectives, faults, detectors) whose state its handler
 * works on, and it is scheduled by the entity whose handler was running (the
 * scheduling entity; entity 0 outside any handler).  Events are ordered by the
 * key (time, scheduling entity, that entity's own sequence): each entity
 * numbers the events it schedules 0, 1, 2, ...  Unlike a sequence shared by
 * the whole run, the key of an event depends only on the history of the
 * entity that scheduled it, never on how the events of other entities
 * interleaved with it, so a network cut into partitions that each run their
 * own queue gives every event the same key and the same order (the design is
 * in docs/architecture.md).  Two events of one entity at the same time fire in
 * the order they were scheduled; a run is a pure function of its inputs.
 * Entities are compared as entity XOR sim_tie_mask(time), an order that
 * changes from instant to instant, so that no node wins every tie (two flows
 * whose frames reach a switch at the same instant would otherwise always
 * queue in the same order, and share the link unfairly).
 *
 * An event scheduled for the current instant may get a key below that of the
 * running event (its entity's number is lower than the one that scheduled the
 * running event).  It then runs next, before any event with a higher key,
 * which is where it would be in any partition.  The engine's point in the
 * order (sim_before, sim_take_due) is the highest key run so far.
 *
 * Keys are 16 bytes: (time << SIM_ENT_BITS | entity ^ mask, entity sequence <<
 * SIM_SLOT_BITS | slot), so time is limited to SIM_TIME_LIMIT (17.59 s) and
 * entities to 2^SIM_ENT_BITS.  The queue has three tiers (sim.c):
 *   - the window: the events of the current bucket of time, as keys that
 *     say where each event lies in the bucket's chunks (the slot), sorted
 *     once when the window opens; the events are not copied; an event
 *     scheduled into the open window waits in a small side heap;
 *   - the calendar: a ring of 2^SIM_RING_BITS buckets of width 2^shift ps
 *     after the window, each a list of chunks of whole events, unsorted;
 *     when the window empties, the next non-empty bucket is moved into it
 *     and sorted;
 *   - the far heap: events beyond the ring's reach (long timers, the next
 *     flow of a sparse Poisson source), keys in a heap, payloads in a slab.
 * An event is filed by its bucket number t >> shift, so scheduling is O(1)
 * into the calendar, and popping takes the head of a sorted window of a few
 * dozen events that is in cache.  The bucket width follows the event rate
 * (it is adapted every thousand windows to keep a few dozen events per
 * window, and widened, then held from narrowing for a while, when too many events fall beyond the ring's
 * reach).  Neither the tiers nor the width
 * can change the order, only its cost.  Nothing here allocates once the arrays have grown to the run's
 * high-water mark.  While an event runs, what the next four will touch is
 * prefetched (sim.c, sim_add_prefetch): in a large fabric those are DRAM
 * misses; prefetching changes no state.
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
#include <stddef.h>
#include <stdint.h>


#define SIM_TIME_MAX INT64_MAX
#define SIM_SLOT_BITS 26                         /* up to 64 M pending events */
#define SIM_ENT_BITS 20                          /* up to 1 M entities */
#define SIM_ESEQ_BITS (64 - SIM_SLOT_BITS)       /* an entity numbers up to 2^37 events (sim_step) */
#define SIM_TIME_BITS (64 - SIM_ENT_BITS)
#define SIM_TIME_LIMIT (((sim_time_t)1 << SIM_TIME_BITS) - 1) /* 17.59 s: events later never fire */
#define SIM_ENT_GLOBAL 0u                        /* the run itself */
#define SIM_ENT_LIMIT (1u << SIM_ENT_BITS)

typedef int64_t sim_time_t; /* picoseconds */

/* The time of a key's (or an event's) first word (struct sim_key.hi). */
static inline sim_time_t sim_key_time(uint64_t hi) { return (sim_time_t)(hi >> SIM_ENT_BITS); }

/* The order of entities at time t (sim.h, "Order"): a 20-bit hash of t (Fibonacci hashing, Knuth 6.4). */
static inline uint64_t sim_tie_mask(sim_time_t t) { return ((uint64_t)t * 0x9E3779B97F4A7C15ULL) >> (64 - SIM_ENT_BITS); }

struct sim;
struct sim_par; /* a network cut into partitions, each its own engine (sim/parallel.h) */
typedef void (*sim_fn)(struct sim *s, void *obj, uint64_t arg);
/* A prefetch hook (sim_add_prefetch): ahead is 2 or 1, how many events before its own it is called. */
typedef void (*sim_prefetch_fn)(const void *obj, uint64_t arg, int ahead);
#define SIM_PF_MAX 4

struct sim_timer {
    uint64_t gen;      /* bumped by every cancel and every arm that queues a new event */
    sim_time_t at;     /* when armed, the expiry time */
    sim_time_t queued; /* when armed, the time of the event in the queue (<= at) */
    sim_fn fn;
    void *obj;
    uint32_t ent; /* the entity its events belong to, set once when the timer is made (zeroed: SIM_ENT_GLOBAL) */
    bool armed;
};

/*
 * An event's sequence, as sim_reserve_seq hands it out: scheduling entity << SIM_ESEQ_BITS | that entity's
 * number.  In keys and in cur_seq the entity is XORed with sim_tie_mask(time).
 */
struct sim_key {
    uint64_t hi; /* time << SIM_ENT_BITS | scheduling entity ^ sim_tie_mask(time) */
    uint64_t lo; /* entity sequence << SIM_SLOT_BITS | slot */
};

/* A pending event in the calendar (and in the current window, see sim.c). */
struct sim_event {
    uint64_t hi; /* as in its key */
    uint64_t lo; /* entity sequence << SIM_SLOT_BITS | the entity the event belongs to */
    sim_fn fn;
    void *obj;
    struct sim_timer *timer; /* NULL for plain events */
    uint64_t arg;            /* for timers: the generation at arming */
};

struct sim_payload {
    sim_fn fn;
    void *obj;
    struct sim_timer *timer; /* NULL for plain events */
    uint64_t arg;            /* for timers: the generation at arming */
    uint32_t ent;            /* the entity the event belongs to */
};

/* A 4-ary min-heap of keys (sim.c). */
struct sim_heap {
    struct sim_key *h;
    struct sim_key *mem; /* allocation behind h */
    uint32_t n, cap;
};

#define SIM_RING_BITS 16 /* calendar buckets: 65,536 */
#define SIM_CHUNK_EVENTS 10
#define SIM_CHUNK_SHIFT 4 /* a window key's slot: chunk << SIM_CHUNK_SHIFT | the event's place in it */
#define SIM_NONE UINT32_MAX
_Static_assert(SIM_CHUNK_EVENTS <= (1 << SIM_CHUNK_SHIFT), "a chunk's events are numbered within its slot bits");

struct sim_chunk {
    uint32_t next; /* chunk index, or SIM_NONE */
    uint32_t n;
    struct sim_event ev[SIM_CHUNK_EVENTS];
} __attribute__((aligned(64)));

struct sim {
    sim_time_t now;
    uint64_t cur_seq; /* the engine's point in the order: the highest sequence run at time now, its entity masked */
    uint32_t cur_ent; /* the entity whose event is running (SIM_ENT_GLOBAL outside handlers) */
    uint32_t n_ent;
    uint64_t *ent_seq; /* each entity's next sequence, entity << SIM_ESEQ_BITS | number: handed out as it is */

    /* The current window: bucket cur_b, its events sorted once (win) plus those filed later (near).  The events
     * stay where they were filed, in the bucket's chunks; a key's slot says where (chunk << SIM_CHUNK_SHIFT | i). */
    struct sim_key *win, *win_tmp; /* sorted keys; scratch for sorting */
    uint32_t win_pos, win_n, win_cap;
    struct sim_heap near; /* events filed into the window after it was sorted (same keys) */
    uint32_t win_chunks;  /* the window's bucket's chunks, freed when the next window opens */
    uint32_t near_chunk;  /* the chunks of the events that joined the window (side heap, far heap), newest first */
    int64_t cur_b;  /* absolute bucket number (t >> shift) of the window */
    unsigned shift; /* bucket width 2^shift ps */

    /* The calendar: buckets cur_b+1 .. cur_b+2^SIM_RING_BITS-1, each a list of chunks. */
    uint32_t *bucket; /* head chunk of each ring slot, or SIM_NONE */
    uint64_t *bmap;   /* non-empty ring slots */
    uint64_t *bsum;   /* non-zero words of bmap */
    struct sim_chunk *chunks;
    uint32_t *free_chunks;
    uint32_t n_free_chunks, chunks_cap;
    uint32_t n_ring;

    /* Beyond the calendar's reach: a heap of keys, payloads in a slab. */
    struct sim_heap far;
    struct sim_payload *slab;
    uint32_t *free_slots;
    uint32_t n_free, slab_cap;

    /* Bucket width adaptation (sim.c) */
    uint32_t windows;
    uint64_t window_events;
    uint64_t far_filed; /* events filed in the far heap since the last adaptation */
    uint32_t narrow_hold; /* adaptations left before the width may narrow again (sim.c, adapt) */
    struct sim_event *scratch;
    uint32_t scratch_cap;

    uint64_t events; /* handlers called */
    uint64_t stale;  /* cancelled timer events discarded */
    uint64_t moved;  /* timer events re-queued to a later expiry */
    uint64_t rebuckets; /* bucket width changes */
    bool stop_requested;
    /* A partitioned run (sim/parallel.h): NULL for a plain engine.  Else this engine is partition `part` of par,
     * or (part == par->n) its run-wide queue, which events of SIM_ENT_GLOBAL go to. */
    struct sim_par *par;
    uint32_t part;
    const uint16_t *ent_part;    /* entity -> partition where this engine must look it up (NULL: all its own) */
    uint64_t bound_hi, bound_lo; /* a partition runs only events keyed below this (the window's end) */
    void *user;                  /* the models' state of this partition (NULL: none of its own) */
    sim_time_t horizon;          /* while a window of several partitions runs, its end: what another partition
                                  * may touch of this one's events comes at or after it; else 0 */
    /* Optional deeper prefetch for a few kinds of event (sim_add_prefetch). */
    uint32_t n_pf;
    sim_fn pf_fn[SIM_PF_MAX];
    sim_prefetch_fn pf_hook[SIM_PF_MAX];
    uint64_t spare[2]; /* to whole lines: partitions' engines lie side by side (sim/parallel.c) */
};
_Static_assert(sizeof(struct sim) % 64 == 0, "an engine is whole cache lines");

/*
 * Registers hook to be called, with the event's object and argument, two
 * events before each fn event runs (ahead = 2) and again one event before
 * (ahead = 1), to prefetch what its handler will touch beyond the object and
 * argument themselves, which the engine prefetches four events ahead.  So a
 * chain of dependent misses can be started one link per event: at ahead = 2
 * the object is in cache and says which line to load next; at ahead = 1 that
 * line is in cache and says the next.  Only a hint: it must not change any
 * state, and the events it is called for are predicted from the window (an
 * event scheduled meanwhile may come first).  At most SIM_PF_MAX kinds of
 * event have hooks; returns -1 beyond that, else 0.
 */
static inline int sim_add_prefetch(struct sim *s, sim_fn fn, sim_prefetch_fn hook)
{
    if (s->n_pf == SIM_PF_MAX)
        return -1;
    s->pf_fn[s->n_pf] = fn;
    s->pf_hook[s->n_pf++] = hook;
    return 0;
}

/* Removes every prefetch hook (the engine then prefetches only the next event's object and argument). */
static inline void sim_clear_prefetch(struct sim *s) { s->n_pf = 0; }

/* Initializes an empty engine at time 0 with one entity (SIM_ENT_GLOBAL).  Returns 0, or -1 when out of memory. */
int sim_init(struct sim *s);
void sim_free(struct sim *s);

/* Makes entities 0 .. n-1 known (n <= SIM_ENT_LIMIT), keeping the numbers of those already known.  Returns 0, or -1
 * when n is out of range or memory runs out. */
int sim_set_entities(struct sim *s, uint32_t n);

/* Ends the process with a message: an entity has numbered 2^(SIM_ESEQ_BITS - 1) events (sim_step checks each
 * event it runs, which leaves the other half of the numbers as margin for those not yet run). */
_Noreturn void sim_seq_exhausted(uint32_t ent);

/* The engine whose event runs on this thread (sim_run sets it; NULL outside a run).  In a partitioned run each
 * thread runs its own partition's engine, so a model reaches its partition's state through it. */
extern _Thread_local struct sim *sim_cur;
/* Its user state (sim.user), kept apart so that a model reaches it with one load. */
extern _Thread_local void *sim_user;

/* Makes s the engine running on this thread (NULL: none). */
static inline void sim_enter(struct sim *s)
{
    sim_cur = s;
    sim_user = s ? s->user : NULL;
}

/*
 * Reserves the sequence an event scheduled now would get, for an event that
 * may or may not be scheduled later (sim_at_seq): it then fires in exactly
 * the order it would have had if scheduled now.
 */
static inline uint64_t sim_reserve_seq(struct sim *s)
{
    return s->ent_seq[s->cur_ent]++; /* the number is bounded in sim_step, far below a carry into the entity */
}

/* An event's key words (struct sim_event's hi, and lo but for its entity or slot) at time t for sequence seq. */
static inline uint64_t sim_seq_hi(sim_time_t t, uint64_t seq)
{
    return (uint64_t)t << SIM_ENT_BITS | ((seq >> SIM_ESEQ_BITS) ^ sim_tie_mask(t));
}
static inline uint64_t sim_seq_lo(uint64_t seq) { return (seq & (((uint64_t)1 << SIM_ESEQ_BITS) - 1)) << SIM_SLOT_BITS; }

#define SIM_RING_MASK ((1u << SIM_RING_BITS) - 1)

/* Files an event in the first chunk of calendar slot `slot` when that chunk has room; false when there is none (no
 * chunk, or a full one: sim.c's ring_insert then puts a new chunk in front). */
static inline bool sim_ring_append(struct sim *s, uint32_t slot, uint64_t hi, uint64_t lo, sim_fn fn, void *obj,
                                   struct sim_timer *tm, uint64_t arg)
{
    uint32_t c = s->bucket[slot];
    if (c == SIM_NONE || s->chunks[c].n == SIM_CHUNK_EVENTS)
        return false;
    struct sim_chunk *ch = &s->chunks[c];
    ch->ev[ch->n++] = (struct sim_event){hi, lo, fn, obj, tm, arg};
    s->n_ring++;
    return true;
}

/* sim_at_seq_to's every case (sim.c): the window, the calendar, the far heap, another partition. */
void sim_file(struct sim *s, sim_time_t t, uint64_t seq, uint32_t ent, sim_fn fn, void *obj, uint64_t arg);

/*
 * Schedules fn at time t with a sequence from sim_reserve_seq (t >= now) for entity ent (sim_at_seq: the running
 * event's own).  The common case is filed here, inline: an event of a node (not of the run) of this engine's own
 * partition, for a later bucket of the calendar whose first chunk has room.  That needs no check of the
 * past (the bucket is after the window, which holds now) and no call: a call with seven arguments passed one on the
 * stack and saved five registers, a tenth of all instructions on the HPCC fabric (docs/performance.md).
 */
static inline void sim_at_seq_to(struct sim *s, sim_time_t t, uint64_t seq, uint32_t ent, sim_fn fn, void *obj,
                                 uint64_t arg)
{
    uint64_t ahead = (uint64_t)((t >> s->shift) - s->cur_b) - 1; /* buckets after the window's next */
    if (ahead < SIM_RING_MASK && ent != SIM_ENT_GLOBAL && (!s->ent_part || s->ent_part[ent] == s->part) &&
        t <= SIM_TIME_LIMIT &&
        sim_ring_append(s, (uint32_t)(t >> s->shift) & SIM_RING_MASK, sim_seq_hi(t, seq), sim_seq_lo(seq) | ent, fn,
                        obj, NULL, arg))
        return;
    sim_file(s, t, seq, ent, fn, obj, arg);
}

static inline void sim_at_seq(struct sim *s, sim_time_t t, uint64_t seq, sim_fn fn, void *obj, uint64_t arg)
{
    sim_at_seq_to(s, t, seq, s->cur_ent, fn, obj, arg);
}

/*
 * Schedules fn(s, obj, arg) at absolute time t (t >= now; scheduling in the
 * past is a bug and aborts) for entity ent (sim_at: the running event's own).
 * An event after SIM_TIME_LIMIT is dropped: no run reaches it.  Ends the
 * process through mem_oom (mem.h) when memory runs out: the engine cannot
 * continue without its events.
 */
static inline void sim_at_to(struct sim *s, sim_time_t t, uint32_t ent, sim_fn fn, void *obj, uint64_t arg)
{
    sim_at_seq_to(s, t, sim_reserve_seq(s), ent, fn, obj, arg);
}

static inline void sim_at(struct sim *s, sim_time_t t, sim_fn fn, void *obj, uint64_t arg)
{
    sim_at_to(s, t, s->cur_ent, fn, obj, arg);
}

static inline void sim_after(struct sim *s, sim_time_t dt, sim_fn fn, void *obj, uint64_t arg)
{
    sim_at(s, s->now + dt, fn, obj, arg);
}

/*
 * SIM_ASSERT_ENT(s, ent): in a build with -DSIM_CHECK_ENTITY (`make asan` has it), ends the process when the
 * running event does not belong to entity ent.  A handler names the entity whose state it works on, so a model
 * that schedules an event for the wrong entity fails every test that runs it, rather than only giving a
 * different answer in a network cut into partitions.  Costs nothing otherwise.
 */
#ifdef SIM_CHECK_ENTITY
#define SIM_ASSERT_ENT(s, ent) sim_assert_ent((s), (ent), __func__)
void sim_assert_ent(const struct sim *s, uint32_t ent, const char *where);
#else
#define SIM_ASSERT_ENT(s, ent) ((void)(s), (void)(ent))
#endif

/* Whether the engine's point in the order (the highest key run so far) comes before (t, seq). */
static inline bool sim_before(const struct sim *s, sim_time_t t, uint64_t seq)
{
    /* the mask is computed only for a tie in time, not for every event run */
    return s->now < t || (s->now == t && s->cur_seq < (seq ^ sim_tie_mask(t) << SIM_ESEQ_BITS));
}

/*
 * For an event the caller would schedule at (now, seq), seq reserved earlier
 * and later than the running event's: whether it would be the very next event
 * to run (no pending event comes before it, and no stop is requested).  If
 * so, the engine counts it as run and moves its current point to it, and the
 * caller must do at once, as the last thing of its handler, exactly what that
 * event's handler would do; the order of everything, and so every result, is
 * the same as with the event queued.  Otherwise nothing changes.
 */
bool sim_take_due(struct sim *s, sim_time_t t, uint64_t seq);

/*
 * Arms (or re-arms) a timer to fire fn(s, obj, gen) at t, for the timer's own entity (tm->ent): a timer belongs
 * to one node, whichever entity's event arms it (a fault, the watchdog's poll).  Any earlier arming of it will
 * not fire.
 */
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
 * at `until` when events remain beyond it.  What is scheduled between runs is
 * scheduled by SIM_ENT_GLOBAL.  Returns the number of handlers run.
 */
uint64_t sim_run(struct sim *s, sim_time_t until);

/* Makes sim_run return after the current handler. */
static inline void sim_stop(struct sim *s) { s->stop_requested = true; }

/* Number of pending events, stale timer events included. */
static inline uint32_t sim_pending(const struct sim *s)
{
    return s->win_n - s->win_pos + s->near.n + s->n_ring + s->far.n;
}

/* Number of pending events of the whole run: in a partitioned run (sim/parallel.h), of every partition. */
uint64_t sim_pending_all(const struct sim *s);

/* Time of the earliest pending event, or SIM_TIME_MAX. */
sim_time_t sim_next_time(struct sim *s);

/* Pops and runs exactly one event (stale ones are skipped silently).  Returns false when empty. */
bool sim_step(struct sim *s);

#endif
