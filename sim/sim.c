/*
 * sim — event queue and run loop (see sim.h for the design).
 */
#include "sim.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_MASK ((1ULL << SIM_SLOT_BITS) - 1)

static void oom(void)
{
    fprintf(stderr, "rocesim: out of memory in the event queue\n");
    abort();
}

/*
 * The heap lives 3 keys into a 64-byte aligned block: the four children of
 * node i (4i+1 .. 4i+4) then fill exactly one cache line, so each level of a
 * sift touches one line instead of two.
 */
static struct sim_key *heap_alloc(uint32_t cap)
{
    return mem_alloc_big(sizeof(struct sim_key) * (cap + 4)); /* at least 64-byte aligned */
}

int sim_init(struct sim *s)
{
    memset(s, 0, sizeof *s);
    s->cap = 1024;
    s->heap_mem = heap_alloc(s->cap);
    s->heap = s->heap_mem ? s->heap_mem + 3 : NULL;
    s->slab_cap = 1024;
    s->slab = mem_alloc_big(sizeof *s->slab * s->slab_cap);
    s->free_slots = malloc(sizeof *s->free_slots * s->slab_cap);
    if (!s->heap || !s->slab || !s->free_slots) {
        sim_free(s);
        return -1;
    }
    /* Hand out low slots first: they stay warm in cache. */
    for (uint32_t i = 0; i < s->slab_cap; i++)
        s->free_slots[i] = s->slab_cap - 1 - i;
    s->n_free = s->slab_cap;
    return 0;
}

void sim_free(struct sim *s)
{
    free(s->heap_mem);
    free(s->slab);
    free(s->free_slots);
    memset(s, 0, sizeof *s);
}

static uint32_t slot_alloc(struct sim *s)
{
    if (s->n_free == 0) {
        uint32_t old = s->slab_cap, ncap = old * 2;
        if (ncap > (1U << SIM_SLOT_BITS))
            oom();
        struct sim_payload *ns = mem_realloc_big(s->slab, sizeof *ns * old, sizeof *ns * ncap);
        if (!ns)
            oom();
        s->slab = ns;
        uint32_t *nf = realloc(s->free_slots, sizeof *nf * ncap);
        if (!nf)
            oom();
        s->free_slots = nf;
        for (uint32_t i = 0; i < ncap - old; i++)
            s->free_slots[i] = ncap - 1 - i;
        s->n_free = ncap - old;
        s->slab_cap = ncap;
    }
    return s->free_slots[--s->n_free];
}

/* (t, seqslot) as one 128-bit number: t >= 0, so unsigned order is (t, seq) order. */
static inline unsigned __int128 key_val(const struct sim_key *k)
{
    return ((unsigned __int128)(uint64_t)k->t << 64) | k->seqslot;
}

static void grow_heap(struct sim *s)
{
    uint32_t ncap = s->cap * 2;
    struct sim_key *nm = heap_alloc(ncap);
    if (!nm)
        oom();
    memcpy(nm + 3, s->heap, sizeof *nm * s->n);
    free(s->heap_mem);
    s->heap_mem = nm;
    s->heap = nm + 3;
    s->cap = ncap;
}

static void sift_up(struct sim_key *h, uint32_t i, struct sim_key k)
{
    unsigned __int128 kv = key_val(&k);
    while (i > 0) {
        uint32_t parent = (i - 1) >> 2;
        if (kv >= key_val(&h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = k;
}

/*
 * Places k in the hole at the root.  Bottom-up (Floyd): walk the hole down to a
 * leaf along the smallest children, then sift k up from there.  New events are
 * usually later than most pending ones, so k tends to belong near the bottom
 * and this saves about half the comparisons of the textbook sift-down.
 */
static void fill_root(struct sim *s, struct sim_key k)
{
    struct sim_key *h = s->heap;
    uint32_t n = s->n, i = 0;
    for (;;) {
        uint32_t c = (i << 2) + 1;
        if (c >= n)
            break;
        uint32_t best = c;
        unsigned __int128 bv = key_val(&h[c]);
        uint32_t end = c + 4 < n ? c + 4 : n;
        for (uint32_t j = c + 1; j < end; j++) {
            unsigned __int128 v = key_val(&h[j]);
            if (v < bv) {
                bv = v;
                best = j;
            }
        }
        h[i] = h[best];
        i = best;
    }
    sift_up(h, i, k);
}

/* Removes the root that sim_step left in place (no replacement was scheduled). */
static void finish_pop(struct sim *s)
{
    s->root_popped = false;
    struct sim_key last = s->heap[--s->n];
    if (s->n)
        fill_root(s, last);
}

static void schedule_seq(struct sim *s, sim_time_t t, uint64_t seq, sim_fn fn, void *obj, struct sim_timer *tm,
                         uint64_t arg)
{
    if (t < s->now) {
        fprintf(stderr, "rocesim: bug: event scheduled in the past (%lld < %lld ps)\n",
                (long long)t, (long long)s->now);
        abort();
    }
    uint32_t slot = slot_alloc(s);
    s->slab[slot] = (struct sim_payload){fn, obj, tm, arg};
    struct sim_key k = {t, (seq << SIM_SLOT_BITS) | slot};
    if (s->root_popped) {
        /* The running event's key is still at the root: replace it, one sift instead of two. */
        s->root_popped = false;
        fill_root(s, k);
        return;
    }
    if (s->n == s->cap)
        grow_heap(s);
    sift_up(s->heap, s->n++, k);
}

static void schedule(struct sim *s, sim_time_t t, sim_fn fn, void *obj, struct sim_timer *tm, uint64_t arg)
{
    schedule_seq(s, t, s->seq++, fn, obj, tm, arg);
}

void sim_at_seq(struct sim *s, sim_time_t t, uint64_t seq, sim_fn fn, void *obj, uint64_t arg)
{
    schedule_seq(s, t, seq, fn, obj, NULL, arg);
}

void sim_at(struct sim *s, sim_time_t t, sim_fn fn, void *obj, uint64_t arg)
{
    schedule(s, t, fn, obj, NULL, arg);
}

void sim_timer_arm(struct sim *s, struct sim_timer *tm, sim_time_t t, sim_fn fn, void *obj)
{
    if (tm->armed && tm->queued <= t && tm->fn == fn && tm->obj == obj) {
        tm->at = t; /* the queued event will move itself (see sim_step) */
        return;
    }
    tm->gen++;
    tm->armed = true;
    tm->at = tm->queued = t;
    tm->fn = fn;
    tm->obj = obj;
    schedule(s, t, fn, obj, tm, tm->gen);
}

/*
 * While an event runs, start loading what the next ones will touch.  The next
 * event's key is the smallest child of the root, and the one after it the
 * smallest of that child's siblings and children (unless the running handler
 * schedules an earlier event; then a prefetch is merely wasted).  For each:
 * its payload, its object's first two cache lines and, for a plain event
 * whose argument is a pointer, that object's first line.  With a prefetch
 * hook registered (sim_set_prefetch) the second event is prefetched too and
 * the hook runs for the next one, whose object is by then in cache.  In a
 * large fabric these are DRAM misses that would otherwise each stall the
 * next handler.  Prefetching never faults, so an argument that is not a
 * pointer is harmless, and it changes no state, so no result.
 */
static inline void prefetch_event(const struct sim_payload *q)
{
    const char *o = q->obj;
    __builtin_prefetch(o);
    __builtin_prefetch(o + 64);
    if (!q->timer)
        __builtin_prefetch((const void *)(uintptr_t)q->arg);
}

static inline void prefetch_next(const struct sim *s)
{
    const struct sim_key *h = s->heap;
    uint32_t n = s->n;
    if (n < 2)
        return;
    /* next: the smallest child of the root; the one after: the smallest of its siblings and children */
    uint32_t best = 1, end = n < 5 ? n : 5;
    for (uint32_t j = 2; j < end; j++)
        if (key_val(&h[j]) < key_val(&h[best]))
            best = j;
    const struct sim_payload *q = &s->slab[h[best].seqslot & SLOT_MASK];
    prefetch_event(q);
    if (!s->pf_hook)
        return;
    uint32_t second = UINT32_MAX;
    for (uint32_t j = 1; j < end; j++)
        if (j != best && (second == UINT32_MAX || key_val(&h[j]) < key_val(&h[second])))
            second = j;
    uint32_t c = 4 * best + 1, cend = c + 4 < n ? c + 4 : n;
    for (uint32_t j = c; j < cend; j++)
        if (second == UINT32_MAX || key_val(&h[j]) < key_val(&h[second]))
            second = j;
    if (second != UINT32_MAX)
        prefetch_event(&s->slab[h[second].seqslot & SLOT_MASK]);
    if (q->fn == s->pf_fn)
        s->pf_hook(q->obj, q->arg);
}

bool sim_step(struct sim *s)
{
    if (s->n == 0)
        return false;
    struct sim_key k = s->heap[0];
    uint32_t slot = (uint32_t)(k.seqslot & SLOT_MASK);
    struct sim_payload p = s->slab[slot];
    s->free_slots[s->n_free++] = slot;
    s->now = k.t;
    if (p.timer) {
        if (p.timer->gen != p.arg) {
            s->stale++;
            s->root_popped = true;
            finish_pop(s);
            return true;
        }
        if (p.timer->at > k.t) {
            /* re-armed to a later time since this event was queued: move it there */
            s->moved++;
            s->root_popped = true;
            p.timer->queued = p.timer->at;
            schedule(s, p.timer->at, p.fn, p.obj, p.timer, p.arg);
            if (s->root_popped)
                finish_pop(s);
            return true;
        }
        p.timer->armed = false;
    }
    s->events++;
    s->root_popped = true;
    s->cur_seq = k.seqslot >> SIM_SLOT_BITS;
    prefetch_next(s);
    p.fn(s, p.obj, p.arg);
    if (s->root_popped)
        finish_pop(s);
    /* The next event's payload is a random slab slot: start loading it now. */
    if (s->n)
        __builtin_prefetch(&s->slab[s->heap[0].seqslot & SLOT_MASK]);
    return true;
}

uint64_t sim_run(struct sim *s, sim_time_t until)
{
    uint64_t before = s->events;
    s->stop_requested = false;
    while (s->n && !s->stop_requested) {
        if (s->heap[0].t > until) {
            s->now = until;
            break;
        }
        sim_step(s);
    }
    return s->events - before;
}
