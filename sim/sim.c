/*
 * sim — event queue and run loop (see sim.h for the design).
 */
#include "sim.h"
#include "mem.h"
#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_MASK ((1ULL << SIM_SLOT_BITS) - 1)
#define ENT_MASK ((1ULL << SIM_ENT_BITS) - 1)

/* A key's sequence (masked entity << SIM_ESEQ_BITS | number); its time is sim_key_time(). */
static inline uint64_t key_seq(const struct sim_key *k)
{
    return (k->hi & ENT_MASK) << SIM_ESEQ_BITS | k->lo >> SIM_SLOT_BITS;
}
#define RING ((uint32_t)1 << SIM_RING_BITS)
#define RING_MASK SIM_RING_MASK
#define BMAP_WORDS (RING / 64)

/* Bucket width adaptation: aim for between ADAPT_LOW and ADAPT_HIGH events per window. */
#define ADAPT_WINDOWS 1024
#define ADAPT_LOW 8
#define ADAPT_HIGH 64
#define ADAPT_FAR_SHARE 32 /* widen when more than one event in this many was filed beyond the ring's reach */
#define ADAPT_HOLD 64     /* ... and then do not narrow for this many adaptations */
#define SHIFT_INIT 10 /* 1.024 ns */
#define SHIFT_MAX 40  /* 1.1 s */

/* What the engine names when an allocation fails (sim/mem.h). */
#define SIM_OOM "growing the event queue"

/* ---- 4-ary heap of keys (the window's side heap, and the far future) ---- */

/*
 * A heap lives 3 keys into a 64-byte aligned block: the four children of
 * node i (4i+1 .. 4i+4) then fill exactly one cache line, so each level of a
 * sift touches one line instead of two.
 */
static int heap_init(struct sim_heap *hp, uint32_t cap)
{
    hp->mem = mem_alloc_big(sizeof(struct sim_key) * (cap + 4)); /* at least 64-byte aligned */
    hp->h = hp->mem ? hp->mem + 3 : NULL;
    hp->n = 0;
    hp->cap = cap;
    return hp->mem ? 0 : -1;
}

static void heap_grow(struct sim_heap *hp)
{
    uint32_t ncap = hp->cap * 2;
    struct sim_key *nm = mem_alloc_big(sizeof(struct sim_key) * (ncap + 4));
    if (!nm)
        mem_oom(SIM_OOM);
    memcpy(nm + 3, hp->h, sizeof *nm * hp->n);
    free(hp->mem);
    hp->mem = nm;
    hp->h = nm + 3;
    hp->cap = ncap;
}

/* A key as one 128-bit number, whose unsigned order is the (time, entity, sequence) order. */
static inline unsigned __int128 key_val(const struct sim_key *k)
{
    return ((unsigned __int128)k->hi << 64) | k->lo;
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

static inline void heap_push(struct sim_heap *hp, struct sim_key k)
{
    if (hp->n == hp->cap)
        heap_grow(hp);
    sift_up(hp->h, hp->n++, k);
}

/*
 * Removes the root.  Bottom-up (Floyd): walk the hole down to a leaf along the
 * smallest children, then sift the last key up from there.  The last key is
 * usually later than most, so it tends to belong near the bottom and this saves
 * about half the comparisons of the textbook sift-down.
 */
static void heap_pop(struct sim_heap *hp)
{
    struct sim_key *h = hp->h;
    uint32_t n = --hp->n, i = 0;
    if (n == 0)
        return;
    struct sim_key k = h[n];
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

/* Sorts a[0..n) with b[0..n) as scratch: insertion sort of runs of 8, then bottom-up merges between the two;
 * returns where the sorted keys ended (a or b). */
static struct sim_key *merge_keys(struct sim_key *a, struct sim_key *b, uint32_t n)
{
    for (uint32_t lo = 0; lo < n; lo += 8) {
        uint32_t hi = lo + 8 < n ? lo + 8 : n;
        for (uint32_t i = lo + 1; i < hi; i++) {
            struct sim_key k = a[i];
            unsigned __int128 kv = key_val(&k);
            uint32_t j = i;
            for (; j > lo && key_val(&a[j - 1]) > kv; j--)
                a[j] = a[j - 1];
            a[j] = k;
        }
    }
    for (uint32_t w = 8; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                /* branch-free: the comparison is a coin toss the predictor cannot learn */
                uint32_t tj = key_val(&a[j]) < key_val(&a[i]);
                b[o++] = a[tj ? j : i];
                j += tj;
                i += 1 - tj;
            }
            while (i < mid)
                b[o++] = a[i++];
            while (j < hi)
                b[o++] = a[j++];
        }
        struct sim_key *t = a;
        a = b;
        b = t;
    }
    return a;
}

#define DIST_MIN 16      /* fewer keys are merge-sorted */
#define DIST_MAX_BITS 10 /* at most 1,024 ranges */
#define DIST_CROWD 16    /* a range holding more is sorted on its own, by the same means */
#define DIST_DEPTH 4     /* ... to this depth, then merge-sorted */

static struct sim_key *distribute_keys(struct sim_key *a, struct sim_key *b, uint32_t n, unsigned depth);

/* Turns cnt[0..nr), the keys each range will hold, into where each range starts; returns whether a range holds more
 * than DIST_CROWD. */
static inline bool range_starts(uint32_t *cnt, uint32_t nr)
{
    uint32_t sum = 0;
    bool crowded = false;
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t c = cnt[r];
        crowded |= c > DIST_CROWD;
        cnt[r] = sum;
        sum += c;
    }
    return crowded;
}

/*
 * After n keys were dealt into ranges of b (end[r]: where range r ends, after the dealing): sorts each crowded range
 * on its own (a as scratch, at depth + 1), then orders what is left out of place within ranges by one insertion
 * pass.  The first word orders all but the rare keys that share it, which the whole key orders.
 */
static inline __attribute__((always_inline)) void ranges_sort(struct sim_key *b, struct sim_key *a, const uint32_t *end,
                                                              uint32_t nr, bool crowded, uint32_t n, unsigned depth)
{
    for (uint32_t r = 0, from = 0; crowded && r < nr; from = end[r++]) {
        uint32_t c = end[r] - from;
        if (c <= DIST_CROWD)
            continue;
        struct sim_key *got = distribute_keys(b + from, a + from, c, depth + 1);
        if (got != b + from)
            memcpy(b + from, got, sizeof *got * c);
    }
    for (uint32_t i = 1; i < n; i++) {
        if (b[i - 1].hi < b[i].hi)
            continue;
        struct sim_key k = b[i];
        unsigned __int128 kv = key_val(&k);
        uint32_t j = i;
        for (; j > 0 && key_val(&b[j - 1]) > kv; j--)
            b[j] = b[j - 1];
        b[j] = k;
    }
}

/*
 * Sorts a[0..n) with b[0..n) as scratch by distribution; returns where the sorted keys ended (a or b).  The span of
 * the keys' first words is cut into about one range per key, the keys are dealt into their ranges (into b), a
 * crowded range is sorted on its own the same way, and one insertion pass orders what is left out of order within
 * ranges, mostly one or two keys each.  That is linear where a merge sort of n keys makes log2 n passes over them:
 * a ring all-reduce on identical links brings a hundred events to one instant, over and over, and merge-sorting
 * them had been a sixth of such a run's instructions (docs/performance.md).  The first word orders keys but for the
 * rare ones that share it (one entity's events at one instant), which the insertion pass orders by the whole key;
 * keys that all share it, as a burst of flows started at once by the run, are merge-sorted.
 */
static struct sim_key *distribute_keys(struct sim_key *a, struct sim_key *b, uint32_t n, unsigned depth)
{
    if (n < DIST_MIN || depth == DIST_DEPTH)
        return merge_keys(a, b, n);
    uint64_t min = a[0].hi, max = a[0].hi;
    for (uint32_t i = 1; i < n; i++) {
        min = a[i].hi < min ? a[i].hi : min;
        max = a[i].hi > max ? a[i].hi : max;
    }
    if (min == max)
        return merge_keys(a, b, n);
    unsigned bits = 31 - (unsigned)__builtin_clz(n), span = 64 - (unsigned)__builtin_clzll(max - min);
    bits = bits < DIST_MAX_BITS ? bits : DIST_MAX_BITS;
    unsigned sh = span > bits ? span - bits : 0;
    uint32_t nr = (uint32_t)((max - min) >> sh) + 1, start[(1u << DIST_MAX_BITS) + 1];
    memset(start, 0, sizeof *start * nr);
    for (uint32_t i = 0; i < n; i++)
        start[(a[i].hi - min) >> sh]++;
    bool crowded = range_starts(start, nr);
    for (uint32_t i = 0; i < n; i++)
        b[start[(a[i].hi - min) >> sh]++] = a[i];
    ranges_sort(b, a, start, nr, crowded, n, depth);
    return b;
}

/*
 * A window's keys are dealt into WIN_RANGES ranges of its bucket's span of time as they are made from the events in
 * the calendar (fill_window; the bucket's bounds are known, so no pass looks for the keys' least and greatest).
 * The adaptation keeps 8 to 64 keys in a window, and their times are nearly all distinct (41 keys a window, 96 %
 * distinct instants on the HPCC fabric), so a range holds one or two; 32 ranges cost fewer instructions than 16
 * or 64 there (docs/performance.md).
 */
#define WIN_RANGE_BITS 5
#define WIN_RANGES (1u << WIN_RANGE_BITS)

_Thread_local struct sim *sim_cur;
_Thread_local void *sim_user;

/* ---- setup ---- */

int sim_init(struct sim *s)
{
    memset(s, 0, sizeof *s);
    s->bound_hi = s->bound_lo = UINT64_MAX;
    s->shift = SHIFT_INIT;
    s->n_ent = 1;
    s->ent_seq = calloc(1, sizeof *s->ent_seq);
    s->cur_b = -1; /* nothing is in the window yet: every event goes to the calendar */
    s->win_chunks = s->near_chunk = SIM_NONE;
    s->win_cap = 256;
    s->win = malloc(sizeof *s->win * s->win_cap);
    s->win_tmp = malloc(sizeof *s->win_tmp * s->win_cap);
    s->bucket = malloc(sizeof *s->bucket * RING);
    s->bmap = calloc(BMAP_WORDS, sizeof *s->bmap);
    s->bsum = calloc(BMAP_WORDS / 64, sizeof *s->bsum);
    if (heap_init(&s->near, 256) || heap_init(&s->far, 64) || !s->win || !s->win_tmp || !s->bucket || !s->bmap ||
        !s->bsum || !s->ent_seq) {
        sim_free(s);
        return -1;
    }
    memset(s->bucket, 0xff, sizeof *s->bucket * RING);
    /* the calendar's chunks and the far heap's slab start empty (grow_indexed) */
    return 0;
}

void sim_free(struct sim *s)
{
    free(s->near.mem);
    free(s->far.mem);
    free(s->win);
    free(s->win_tmp);
    free(s->bucket);
    free(s->bmap);
    free(s->bsum);
    free(s->chunks);
    free(s->free_chunks);
    free(s->slab);
    free(s->free_slots);
    free(s->scratch);
    free(s->ent_seq);
    memset(s, 0, sizeof *s);
}

int sim_set_entities(struct sim *s, uint32_t n)
{
    if (n == 0 || n > SIM_ENT_LIMIT)
        return -1;
    if (n <= s->n_ent)
        return 0;
    uint64_t *e = realloc(s->ent_seq, sizeof *e * n);
    if (!e)
        return -1;
    for (uint32_t i = s->n_ent; i < n; i++)
        e[i] = (uint64_t)i << SIM_ESEQ_BITS;
    s->ent_seq = e;
    s->n_ent = n;
    return 0;
}

#ifdef SIM_CHECK_ENTITY
void sim_assert_ent(const struct sim *s, uint32_t ent, const char *where)
{
    if (s->cur_ent == ent)
        return;
    fprintf(stderr, "rocesim: bug: %s runs for entity %u, in an event of entity %u (at %lld ps)\n", where, ent,
            s->cur_ent, (long long)s->now);
    abort();
}
#endif

void sim_seq_exhausted(uint32_t ent)
{
    fprintf(stderr, "rocesim: entity %u (0: the run, else node + 1) scheduled 2^%d events, more than the event keys "
            "can number\n", ent, SIM_ESEQ_BITS - 1);
    exit(1);
}

/* ---- the three tiers ---- */

/* Makes room for `need` keys in the window's arrays; out of line, as it rarely grows them. */
static __attribute__((noinline)) void grow_win(struct sim *s, uint32_t need)
{
    uint32_t ncap = s->win_cap;
    while (ncap < need)
        ncap *= 2;
    if (ncap > (1U << SIM_SLOT_BITS))
        mem_oom(SIM_OOM);
    struct sim_key *nw = realloc(s->win, sizeof *nw * ncap);
    struct sim_key *nt = nw ? realloc(s->win_tmp, sizeof *nt * ncap) : NULL;
    if (!nt)
        mem_oom(SIM_OOM);
    s->win = nw;
    s->win_tmp = nt;
    s->win_cap = ncap;
}

static inline void ensure_win(struct sim *s, uint32_t need)
{
    if (__builtin_expect(need > s->win_cap, 0))
        grow_win(s, need);
}

/* Where the event of a window key's slot lies. */
static inline struct sim_event *slot_event(const struct sim *s, uint64_t lo)
{
    uint32_t slot = (uint32_t)(lo & SLOT_MASK);
    return &s->chunks[slot >> SIM_CHUNK_SHIFT].ev[slot & ((1u << SIM_CHUNK_SHIFT) - 1)];
}

/* hi and lo as in struct sim_event: lo's low bits are the event's entity until the event has a slot. */
#define EV_PARAMS uint64_t hi, uint64_t lo, sim_fn fn, void *obj, struct sim_timer *tm, uint64_t arg

static uint32_t chunk_alloc(struct sim *s);

/* A place for an event that joins the open window (the side heap's, or the far heap's): in the window's own chunk,
 * freed with the window's others.  Returns its slot. */
static inline __attribute__((always_inline)) uint32_t near_slot(struct sim *s, EV_PARAMS)
{
    uint32_t c = s->near_chunk;
    if (c == SIM_NONE || s->chunks[c].n == SIM_CHUNK_EVENTS) {
        c = chunk_alloc(s);
        s->chunks[c].n = 0;
        s->chunks[c].next = s->near_chunk;
        s->near_chunk = c;
    }
    struct sim_chunk *ch = &s->chunks[c];
    uint32_t i = ch->n++;
    ch->ev[i] = (struct sim_event){hi, lo, fn, obj, tm, arg};
    return c << SIM_CHUNK_SHIFT | i;
}

/* An event for the current window that arrived after it was sorted: it waits in the side heap. */
static void near_insert(struct sim *s, EV_PARAMS)
{
    uint32_t slot = near_slot(s, hi, lo, fn, obj, tm, arg);
    heap_push(&s->near, (struct sim_key){hi, (lo & ~SLOT_MASK) | slot});
}

/*
 * Doubles an array of objects handed out by index and the stack of its free
 * indices; the new indices are stacked so that the lowest comes out first
 * (low indices stay warm in cache).  Returns the array's new address; aborts
 * beyond `limit` objects.
 */
static void *grow_indexed(void *arr, size_t size, bool big, uint32_t **free_idx, uint32_t *cap, uint32_t *n_free,
                          uint32_t limit)
{
    uint32_t old = *cap, ncap = old ? old * 2 : 64;
    if (ncap > limit)
        mem_oom(SIM_OOM);
    void *na = big ? mem_realloc_big(arr, size * old, size * ncap) : realloc(arr, size * ncap);
    if (!na)
        mem_oom(SIM_OOM);
    uint32_t *nf = realloc(*free_idx, sizeof *nf * ncap);
    if (!nf)
        mem_oom(SIM_OOM);
    *free_idx = nf;
    for (uint32_t i = 0; i < ncap - old; i++)
        nf[i] = ncap - 1 - i;
    *n_free = ncap - old;
    *cap = ncap;
    return na;
}

static uint32_t chunk_alloc(struct sim *s)
{
    if (s->n_free_chunks == 0)
        s->chunks = grow_indexed(s->chunks, sizeof *s->chunks, true, &s->free_chunks, &s->chunks_cap,
                                 &s->n_free_chunks, 1U << (SIM_SLOT_BITS - SIM_CHUNK_SHIFT));
    return s->free_chunks[--s->n_free_chunks];
}

/* A new chunk in front of ring slot `slot`'s list (the order within a bucket does not matter: the window is sorted);
 * out of line, so that the common case, room in the slot's first chunk, saves no registers. */
static __attribute__((noinline)) void ring_new_chunk(struct sim *s, uint32_t slot)
{
    uint32_t c = s->bucket[slot], nc = chunk_alloc(s);
    s->chunks[nc].next = c;
    s->chunks[nc].n = 0;
    s->bucket[slot] = nc;
    if (c == SIM_NONE) {
        s->bmap[slot >> 6] |= 1ULL << (slot & 63);
        s->bsum[slot >> 12] |= 1ULL << ((slot >> 6) & 63);
    }
}

static inline __attribute__((always_inline)) void ring_insert(struct sim *s, uint32_t slot, EV_PARAMS)
{
    if (__builtin_expect(!sim_ring_append(s, slot, hi, lo, fn, obj, tm, arg), 0)) {
        ring_new_chunk(s, slot);
        sim_ring_append(s, slot, hi, lo, fn, obj, tm, arg);
    }
}

static uint32_t slot_alloc(struct sim *s)
{
    if (s->n_free == 0)
        s->slab = grow_indexed(s->slab, sizeof *s->slab, false, &s->free_slots, &s->slab_cap, &s->n_free,
                               1U << SIM_SLOT_BITS);
    return s->free_slots[--s->n_free];
}

static void far_insert(struct sim *s, EV_PARAMS)
{
    s->far_filed++;
    uint32_t slot = slot_alloc(s);
    s->slab[slot] = (struct sim_payload){fn, obj, tm, arg, (uint32_t)(lo & SLOT_MASK)};
    heap_push(&s->far, (struct sim_key){hi, (lo & ~SLOT_MASK) | slot});
}

/*
 * Files an event in the window, the calendar or the far heap by its bucket.
 * The event comes as fields, not as a struct built by the caller: copying a
 * just-written struct with wider loads than the stores that wrote it defeats
 * store-to-load forwarding, and the load then waits until the store buffer
 * drains, behind whatever store misses the handler left in it.
 */
static inline void insert_event(struct sim *s, EV_PARAMS)
{
    int64_t b = sim_key_time(hi) >> s->shift;
    if (b <= s->cur_b)
        near_insert(s, hi, lo, fn, obj, tm, arg);
    else if (b - s->cur_b < (int64_t)RING)
        ring_insert(s, (uint32_t)b & RING_MASK, hi, lo, fn, obj, tm, arg);
    else
        far_insert(s, hi, lo, fn, obj, tm, arg);
}

/* The first non-empty bitmap word at or after word p (p < BMAP_WORDS), not wrapping; or SIM_NONE. */
static uint32_t word_from(const struct sim *s, uint32_t p)
{
    uint32_t sw = p >> 6;
    uint64_t sb = s->bsum[sw] & (~0ULL << (p & 63));
    for (;;) {
        if (sb)
            return (sw << 6) | (uint32_t)__builtin_ctzll(sb);
        if (++sw == BMAP_WORDS / 64)
            return SIM_NONE;
        sb = s->bsum[sw];
    }
}

/* The first non-empty ring slot at or after `from`, in ring order (the ring is not empty). */
static uint32_t ring_next(const struct sim *s, uint32_t from)
{
    uint32_t w = from >> 6;
    uint64_t bits = s->bmap[w] & (~0ULL << (from & 63));
    if (bits)
        return (w << 6) | (uint32_t)__builtin_ctzll(bits);
    uint32_t word = w + 1 < BMAP_WORDS ? word_from(s, w + 1) : SIM_NONE;
    if (word == SIM_NONE)
        word = word_from(s, 0); /* wrapped: may be w itself, below `from` */
    return (word << 6) | (uint32_t)__builtin_ctzll(s->bmap[word]);
}

/* The key of event i of chunk c, for the window. */
static inline struct sim_key chunk_key(const struct sim_chunk *ch, uint32_t c, uint32_t i)
{
    return (struct sim_key){ch->ev[i].hi, (ch->ev[i].lo & ~SLOT_MASK) | c << SIM_CHUNK_SHIFT | i};
}

/* Takes ring slot `slot`'s list of chunks out of the calendar; returns its head. */
static inline uint32_t take_bucket(struct sim *s, uint32_t slot)
{
    uint32_t c = s->bucket[slot];
    s->bucket[slot] = SIM_NONE;
    s->bmap[slot >> 6] &= ~(1ULL << (slot & 63));
    if (!s->bmap[slot >> 6])
        s->bsum[slot >> 12] &= ~(1ULL << ((slot >> 6) & 63));
    return c;
}

/*
 * Makes the window's sorted keys: those already in it (the far heap's events of its bucket) and those of the events
 * in the chunks from c on (its bucket's), which stay where they are; the keys point at them (the slot).  A small
 * window is merge-sorted.  A larger one is dealt into ranges of its bucket's time straight from the chunks (a pass
 * counts, a pass deals), a crowded range is sorted on its own (distribute_keys), and one insertion pass orders what
 * is left out of order within ranges.  A sorted window, unlike a heap, shows the next few events for free, which is
 * what the prefetch pipeline needs (prefetch_next).
 */
static void fill_window(struct sim *s, uint32_t c, uint64_t base, unsigned sh)
{
    uint32_t f = s->win_n, n = f;
    for (uint32_t d = c; d != SIM_NONE; d = s->chunks[d].next)
        n += s->chunks[d].n;
    ensure_win(s, n);
    s->n_ring -= n - f;
    s->win_n = n;
    struct sim_key *a = s->win, *b = s->win_tmp;
    if (n < DIST_MIN) {
        for (uint32_t d = c, at = f; d != SIM_NONE; d = s->chunks[d].next)
            for (uint32_t i = 0; i < s->chunks[d].n; i++)
                a[at++] = chunk_key(&s->chunks[d], d, i);
        b = merge_keys(a, b, n);
    } else {
        uint32_t cnt[WIN_RANGES] = {0};
        for (uint32_t i = 0; i < f; i++)
            cnt[(a[i].hi - base) >> sh]++;
        for (uint32_t d = c; d != SIM_NONE; d = s->chunks[d].next) {
            const struct sim_chunk *ch = &s->chunks[d];
            for (uint32_t i = 0, m = ch->n; i < m; i++)
                cnt[(ch->ev[i].hi - base) >> sh]++;
        }
        bool crowded = range_starts(cnt, WIN_RANGES);
        for (uint32_t i = 0; i < f; i++)
            b[cnt[(a[i].hi - base) >> sh]++] = a[i];
        for (uint32_t d = c; d != SIM_NONE; d = s->chunks[d].next) {
            const struct sim_chunk *ch = &s->chunks[d];
            for (uint32_t i = 0, m = ch->n; i < m; i++)
                b[cnt[(ch->ev[i].hi - base) >> sh]++] = chunk_key(ch, d, i);
        }
        ranges_sort(b, a, cnt, WIN_RANGES, crowded, n, 0);
    }
    if (b != s->win) {
        s->win_tmp = s->win;
        s->win = b;
    }
}

/* Frees the chunks of the window that has just run out. */
static inline void free_window(struct sim *s)
{
    for (uint32_t c = s->win_chunks; c != SIM_NONE; c = s->chunks[c].next)
        s->free_chunks[s->n_free_chunks++] = c;
    for (uint32_t c = s->near_chunk; c != SIM_NONE; c = s->chunks[c].next)
        s->free_chunks[s->n_free_chunks++] = c;
    s->win_chunks = s->near_chunk = SIM_NONE;
}

static void far_take(struct sim *s)
{
    struct sim_key k = s->far.h[0];
    uint32_t slot = (uint32_t)(k.lo & SLOT_MASK);
    struct sim_payload p = s->slab[slot];
    s->free_slots[s->n_free++] = slot;
    heap_pop(&s->far);
    ensure_win(s, s->win_n + 1);
    uint32_t at = near_slot(s, k.hi, (k.lo & ~SLOT_MASK) | p.ent, p.fn, p.obj, p.timer, p.arg);
    s->win[s->win_n++] = (struct sim_key){k.hi, (k.lo & ~SLOT_MASK) | at};
}

/*
 * The calendar is only fast while its buckets hold a few dozen events: too
 * narrow and most are empty, too wide and sorting a window costs more per
 * event.  The right width depends on the fabric's event rate, which changes
 * over a run, so it is measured: every ADAPT_WINDOWS windows the average is
 * checked and the width narrowed by the measured factor or doubled.  The calendar is then rebuilt (O(pending), rare).
 * Only speed depends on the width: the order of events does not.
 */
static void rebucket(struct sim *s, unsigned shift)
{
    /* the window is empty; every pending event is at or after the end of it */
    int64_t end = (s->cur_b + 1) * ((int64_t)1 << s->shift);
    if (s->scratch_cap < s->n_ring) {
        free(s->scratch);
        s->scratch = malloc(sizeof *s->scratch * s->n_ring);
        if (!s->scratch)
            mem_oom(SIM_OOM);
        s->scratch_cap = s->n_ring;
    }
    uint32_t m = 0;
    for (uint32_t w = 0; w < BMAP_WORDS; w++) {
        while (s->bmap[w]) {
            uint32_t slot = (w << 6) | (uint32_t)__builtin_ctzll(s->bmap[w]);
            s->bmap[w] &= s->bmap[w] - 1;
            for (uint32_t c = s->bucket[slot]; c != SIM_NONE; c = s->chunks[c].next) {
                memcpy(&s->scratch[m], s->chunks[c].ev, sizeof *s->scratch * s->chunks[c].n);
                m += s->chunks[c].n;
                s->free_chunks[s->n_free_chunks++] = c;
            }
            s->bucket[slot] = SIM_NONE;
        }
    }
    memset(s->bsum, 0, sizeof *s->bsum * (BMAP_WORDS / 64));
    s->n_ring = 0;
    s->shift = shift;
    s->cur_b = (end >> shift) - 1;
    for (uint32_t i = 0; i < m; i++) {
        const struct sim_event *e = &s->scratch[i];
        insert_event(s, e->hi, e->lo, e->fn, e->obj, e->timer, e->arg);
    }
    s->rebuckets++;
}

static void adapt(struct sim *s)
{
    uint64_t avg = s->window_events / s->windows, far = s->far_filed;
    bool far_heavy = far * ADAPT_FAR_SHARE > s->window_events;
    s->windows = 0;
    s->window_events = 0;
    s->far_filed = 0;
    if (far_heavy && s->shift < SHIFT_MAX) {
        /* too narrow for the ring to reach where events are scheduled: a burst of events at one instant (no
         * width can split it) had narrowed the buckets down to a few ps, and most events then went through
         * the far heap (docs/performance.md, "The partitioned engine") */
        rebucket(s, s->shift + 1);
        s->narrow_hold = ADAPT_HOLD;
    } else if (avg > ADAPT_HIGH && s->shift > 0 && s->narrow_hold) {
        /* crowded, but the last narrowing sent events beyond the ring: the crowd is bursts at one instant, which
         * no width splits, so try again only after a while (else it narrows and widens back in turn) */
        s->narrow_hold--;
    } else if (avg > ADAPT_HIGH && s->shift > 0) {
        /* too wide: narrow by the measured factor at once (a window's events are roughly proportional to its width) */
        unsigned by = 1;
        while (by < s->shift && (avg >> (by + 1)) > ADAPT_HIGH / 2)
            by++;
        rebucket(s, s->shift - by);
    } else if (avg < ADAPT_LOW && s->shift < SHIFT_MAX) {
        /* too narrow: the windows skipped as empty are not counted, so widen one step at a time */
        rebucket(s, s->shift + 1);
    }
}

/* The bucket the next window opens: the earliest of the calendar's (b_ring, in ring slot *slot; INT64_MAX when
 * the ring is empty) and the far heap's (the calendar or the far heap is not empty). */
static inline int64_t next_bucket(const struct sim *s, int64_t *b_ring, uint32_t *slot)
{
    int64_t b = INT64_MAX;
    *b_ring = INT64_MAX;
    *slot = 0;
    if (s->n_ring) {
        uint32_t from = (uint32_t)(s->cur_b + 1) & RING_MASK;
        *slot = ring_next(s, from);
        b = *b_ring = s->cur_b + 1 + ((*slot - from) & RING_MASK);
    }
    if (s->far.n && (sim_key_time(s->far.h[0].hi) >> s->shift) < b)
        b = sim_key_time(s->far.h[0].hi) >> s->shift;
    return b;
}

/* Opens the next window: the earliest bucket of the calendar or of the far heap (the window is used up, and the
 * calendar or the far heap is not empty). */
/* Whether the next window adapts the buckets first: every ADAPT_WINDOWS windows, or sooner when they are crowded. */
static inline bool adapt_due(const struct sim *s)
{
    return s->windows + 1 == ADAPT_WINDOWS || s->window_events >= (uint64_t)ADAPT_WINDOWS * ADAPT_HIGH;
}

/* Opens bucket b (next_bucket's) as the window. */
static inline void open_window(struct sim *s, int64_t b, int64_t b_ring, uint32_t slot)
{
    free_window(s);
    s->win_n = s->win_pos = 0;
    s->cur_b = b;
    /* the bucket's keys lie in [base, base + 2^(shift + SIM_ENT_BITS)): WIN_RANGES ranges of it */
    uint64_t base = (uint64_t)b << s->shift << SIM_ENT_BITS;
    unsigned sh = s->shift + SIM_ENT_BITS - WIN_RANGE_BITS;
    while (s->far.n && (sim_key_time(s->far.h[0].hi) >> s->shift) <= b)
        far_take(s);
    s->win_chunks = b == b_ring ? take_bucket(s, slot) : SIM_NONE;
    fill_window(s, s->win_chunks, base, sh);
    /* The next bucket's events were filed a while ago and are likely out of cache: start loading its newest chunk. */
    if (s->n_ring) {
        const char *c = (const char *)&s->chunks[s->bucket[ring_next(s, (uint32_t)(b + 1) & RING_MASK)]];
        for (size_t off = 0; off < sizeof(struct sim_chunk); off += 64)
            __builtin_prefetch(c + off);
    }
}

static void next_window(struct sim *s)
{
    bool due = adapt_due(s);
    s->windows++;
    if (due)
        adapt(s); /* which may rebucket: the next bucket is found after it */
    uint32_t slot;
    int64_t b_ring, b = next_bucket(s, &b_ring, &slot);
    open_window(s, b, b_ring, slot);
}

/* ---- scheduling ---- */

/* Inlined into each entry point: with eight arguments, a call would pass two of them on the stack. */
static inline __attribute__((always_inline)) void schedule_seq(struct sim *s, sim_time_t t, uint64_t seq,
                                                              uint32_t ent, sim_fn fn, void *obj,
                                                              struct sim_timer *tm, uint64_t arg)
{
    if (t < s->now) {
        fprintf(stderr, "rocesim: bug: event scheduled in the past (%lld < %lld ps)\n",
                (long long)t, (long long)s->now);
        abort();
    }
    if (__builtin_expect(t > SIM_TIME_LIMIT, 0))
        return; /* no run reaches it (sim.h) */
    /* In a partitioned run, an event of another partition (or of the run) goes there (sim/parallel.h).  A run of
     * one partition needs no table: only the run's own events are elsewhere. */
    if (__builtin_expect(ent == SIM_ENT_GLOBAL, 0)) {
        if (s->par && s->part != s->par->n) {
            sim_par_route(s, s->par->n, sim_seq_hi(t, seq), sim_seq_lo(seq) | ent, fn, obj, tm, arg);
            return;
        }
    } else if (s->ent_part && s->ent_part[ent] != s->part) {
        sim_par_route(s, s->ent_part[ent], sim_seq_hi(t, seq), sim_seq_lo(seq) | ent, fn, obj, tm, arg);
        return;
    }
    insert_event(s, sim_seq_hi(t, seq), sim_seq_lo(seq) | ent, fn, obj, tm, arg);
}

void sim_insert(struct sim *s, uint64_t hi, uint64_t lo, sim_fn fn, void *obj, struct sim_timer *tm, uint64_t arg)
{
    insert_event(s, hi, lo, fn, obj, tm, arg);
}

void sim_file(struct sim *s, sim_time_t t, uint64_t seq, uint32_t ent, sim_fn fn, void *obj, uint64_t arg)
{
    schedule_seq(s, t, seq, ent, fn, obj, NULL, arg);
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
    schedule_seq(s, t, sim_reserve_seq(s), tm->ent, fn, obj, tm, tm->gen);
}

/*
 * While an event runs, start loading what the next ones will touch.  The
 * window is sorted, so the next four events are known (unless the running
 * handler schedules an earlier one; then a prefetch is merely wasted), and
 * their payloads are in the window's array, in cache.  For an event: its
 * object's first two cache lines and, for a plain event whose argument is a
 * pointer, that object's first line.  With prefetch hooks (sim_add_prefetch)
 * this is a pipeline: the engine loads the object and argument of the event
 * four ahead, and the hook runs for the events two and one ahead, each stage
 * starting the misses the previous one made possible.  Without a hook, or
 * while the side heap holds events, only the next event is prefetched.  In a
 * large fabric these are DRAM misses that would otherwise each stall a
 * handler.  Prefetching never faults, so an argument that is not a pointer is
 * harmless, and it changes no state, so no result.
 */
static inline void prefetch_event(const struct sim_event *q)
{
    const char *o = q->obj;
    __builtin_prefetch(o);
    __builtin_prefetch(o + 64);
    if (!q->timer)
        __builtin_prefetch((const void *)(uintptr_t)q->arg);
}

/* The window's earliest event, or NULL when the window is used up: the side heap is tested once, and it is mostly
 * empty. */
static inline const struct sim_key *window_next(const struct sim *s)
{
    if (__builtin_expect(s->near.n == 0, 1))
        return s->win_pos < s->win_n ? &s->win[s->win_pos] : NULL;
    if (s->win_pos == s->win_n || key_val(&s->near.h[0]) < key_val(&s->win[s->win_pos]))
        return &s->near.h[0];
    return &s->win[s->win_pos];
}

/* The pipeline with hooks (prefetch_next); out of line, so that the common case of a small fabric stays short. */
static __attribute__((noinline)) void prefetch_hooked(const struct sim *s)
{
    uint32_t left = s->win_n - s->win_pos;
    const struct sim_key *w = s->win + s->win_pos;
    /* Four ahead, not three: the hook's first stage reads this event's frame two events later rather than one,
     * when the miss is more likely complete (measured in docs/performance.md; five ahead is no better). */
    if (left >= 4)
        prefetch_event(slot_event(s, w[3].lo));
    if (s->win_pos <= 1 && left >= 3)
        prefetch_event(slot_event(s, w[2].lo)); /* the window just opened: nothing prefetched it yet */
    for (uint32_t ahead = left < 2 ? left : 2; ahead >= 1; ahead--) {
        const struct sim_event *q = slot_event(s, w[ahead - 1].lo);
        if (s->win_pos <= 1)
            prefetch_event(q); /* the window just opened: nothing prefetched it yet */
        for (uint32_t i = 0; i < s->n_pf; i++)
            if (q->fn == s->pf_fn[i]) {
                s->pf_hook[i](q->obj, q->arg, (int)ahead);
                break;
            }
    }
}

static inline __attribute__((always_inline)) void prefetch_next(const struct sim *s)
{
    if (s->n_pf && !s->near.n) {
        prefetch_hooked(s);
        return;
    }
    /* only the next event */
    const struct sim_key *k = window_next(s);
    if (k)
        prefetch_event(slot_event(s, k->lo));
}

/* The window's next event when the window holds one, else when something is pending later the next window's first
 * (it opens it); NULL when nothing is pending. */
static inline const struct sim_key *window_head(struct sim *s)
{
    const struct sim_key *m = window_next(s);
    if (__builtin_expect(!m, 0) && (s->n_ring || s->far.n)) {
        next_window(s);
        m = window_next(s);
    }
    return m;
}

bool sim_take_due(struct sim *s, sim_time_t t, uint64_t seq)
{
    uint64_t ordered = seq ^ sim_tie_mask(t) << SIM_ESEQ_BITS; /* as cur_seq holds it */
    if (t != s->now || ordered <= s->cur_seq || s->stop_requested)
        return false;
    /* Events of the current instant are all in the window or the side heap (the calendar holds later buckets). */
    struct sim_key k = {sim_seq_hi(t, seq), sim_seq_lo(seq)};
    /* A partition must not run past its window's end, where another partition's or the run's event may come. */
    if (key_val(&k) >= key_val(&(struct sim_key){s->bound_hi, s->bound_lo}))
        return false;
    if (s->win_pos < s->win_n && key_val(&s->win[s->win_pos]) < key_val(&k))
        return false;
    if (s->near.n && key_val(&s->near.h[0]) < key_val(&k))
        return false;
    s->cur_seq = ordered;
    s->events++;
    s->window_events++;
    return true;
}

uint64_t sim_pending_all(const struct sim *s) { return s->par ? sim_par_pending(s->par) : sim_pending(s); }

sim_time_t sim_next_time(struct sim *s)
{
    const struct sim_key *m = window_head(s);
    return m ? sim_key_time(m->hi) : SIM_TIME_MAX;
}

/* Runs the window's earliest event m (window_next's), which the caller has just found: the run loops compare it with
 * their bound first, and finding it again here cost a tenth of the engine's instructions per event. */
static inline __attribute__((always_inline)) void step_min(struct sim *s, const struct sim_key *m)
{
    struct sim_key k = *m;
    if (m == &s->near.h[0])
        heap_pop(&s->near);
    else
        s->win_pos++;
    struct sim_event e = *slot_event(s, k.lo);
    s->window_events++;
    if (__builtin_expect(k.lo >> 63, 0))
        sim_seq_exhausted((uint32_t)(k.hi & ENT_MASK));
    sim_time_t t = sim_key_time(k.hi);
    uint64_t seq = key_seq(&k);
    /* The point in the order only moves forward: an event keyed below it (scheduled for this instant by an entity
     * numbered below the one that scheduled the running event) runs at once and leaves it (sim.h). */
    if (t != s->now || seq > s->cur_seq)
        s->cur_seq = seq;
    s->now = t;
    s->cur_ent = (uint32_t)(e.lo & SLOT_MASK);
    if (e.timer) {
        if (e.timer->gen != e.arg) {
            s->stale++;
            return;
        }
        if (e.timer->at > t) {
            /* re-armed to a later time since this event was queued: move it there */
            s->moved++;
            e.timer->queued = e.timer->at;
            schedule_seq(s, e.timer->at, sim_reserve_seq(s), s->cur_ent, e.fn, e.obj, e.timer, e.arg);
            return;
        }
        e.timer->armed = false;
    }
    s->events++;
    prefetch_next(s);
    e.fn(s, e.obj, e.arg);
}

bool sim_step(struct sim *s)
{
    const struct sim_key *m = window_head(s);
    if (!m)
        return false;
    step_min(s, m);
    return true;
}

bool sim_pop(struct sim *s, struct sim_event *e)
{
    const struct sim_key *m = window_head(s);
    if (!m)
        return false;
    *e = *slot_event(s, m->lo);
    if (m == &s->near.h[0])
        heap_pop(&s->near);
    else
        s->win_pos++;
    return true;
}

bool sim_next_key(struct sim *s, struct sim_key *k)
{
    const struct sim_key *m = window_head(s);
    if (!m)
        return false;
    *k = *m;
    return true;
}

/* Whether anything waits beyond the window; then *b is the bucket the next window opens (next_bucket). */
static inline bool pending_bucket(const struct sim *s, int64_t *b, int64_t *b_ring, uint32_t *slot)
{
    if (s->n_ring == 0 && s->far.n == 0)
        return false;
    *b = next_bucket(s, b_ring, slot);
    return true;
}

bool sim_peek_time(const struct sim *s, sim_time_t *t)
{
    const struct sim_key *m = window_next(s);
    if (m) {
        *t = sim_key_time(m->hi);
        return true;
    }
    int64_t b, b_ring;
    uint32_t slot;
    if (!pending_bucket(s, &b, &b_ring, &slot))
        return false;
    /* the earliest of bucket b: its events in the calendar (unsorted) and the far heap's root when it is there */
    uint64_t hi = UINT64_MAX;
    if (b == b_ring)
        for (uint32_t c = s->bucket[slot]; c != SIM_NONE; c = s->chunks[c].next)
            for (uint32_t i = 0; i < s->chunks[c].n; i++)
                hi = s->chunks[c].ev[i].hi < hi ? s->chunks[c].ev[i].hi : hi;
    if (s->far.n && s->far.h[0].hi < hi)
        hi = s->far.h[0].hi;
    *t = sim_key_time(hi);
    return true;
}

/*
 * Opens the next window (the window is used up), unless it starts at or after time `limit`; returns whether it
 * opened one.  A partition
 * stops at its window's end; had it opened the bucket of its next event there (which may be microseconds
 * later), every event filed before that bucket (the next window's mail and all that it sets off) would have
 * gone to the side heap, which took 4-10 % of a partition's time on the HPCC fabric.
 */
static inline bool window_open_before(struct sim *s, sim_time_t limit)
{
    int64_t b, b_ring;
    uint32_t slot;
    if (!pending_bucket(s, &b, &b_ring, &slot))
        return false;
    if (b >= (limit >> s->shift) + ((limit & (((sim_time_t)1 << s->shift) - 1)) != 0))
        return false; /* the bucket starts at or after limit */
    if (adapt_due(s)) {
        next_window(s); /* adapting may move the buckets: found anew */
    } else {
        s->windows++;
        open_window(s, b, b_ring, slot); /* the bucket just found, not searched for twice */
    }
    return true;
}

/* sim_run_below for a partition of several: it opens no bucket past its window's instant (window_open_before);
 * out of line, so that the loop of one partition alone stays as it was. */
static __attribute__((noinline)) void run_below_limited(struct sim *s, uint64_t hi, uint64_t lo)
{
    sim_time_t limit = sim_key_time(hi) + 1;
    for (;;) {
        const struct sim_key *m = window_next(s);
        if (!m && (!window_open_before(s, limit) || !(m = window_next(s))))
            break;
        if (m->hi >= hi && (m->hi > hi || m->lo >= lo))
            break;
        step_min(s, m);
    }
}

uint64_t sim_run_below(struct sim *s, uint64_t hi, uint64_t lo)
{
    uint64_t before = s->events;
    s->bound_hi = hi;
    s->bound_lo = lo;
    if (s->horizon) {
        run_below_limited(s, hi, lo);
    } else {
        /* the first word decides all but the events of the bound's own instant and entity */
        for (const struct sim_key *m; (m = window_head(s));) {
            if (m->hi >= hi && (m->hi > hi || m->lo >= lo))
                break;
            step_min(s, m);
        }
    }
    s->cur_ent = SIM_ENT_GLOBAL;
    return s->events - before;
}

uint64_t sim_run(struct sim *s, sim_time_t until)
{
    if (s->par)
        return sim_par_run(s->par, until);
    struct sim *outer = sim_cur;
    sim_enter(s);
    uint64_t before = s->events;
    s->stop_requested = false;
    /* the last key word at `until`, compared whole: no shift per event */
    uint64_t last = until >= SIM_TIME_LIMIT ? UINT64_MAX : (((uint64_t)until + 1) << SIM_ENT_BITS) - 1;
    for (const struct sim_key *m; !s->stop_requested && (m = window_head(s));) {
        if (m->hi > last) {
            if (until != s->now) {
                s->now = until;
                s->cur_seq = 0; /* nothing of this instant has run */
            }
            break;
        }
        step_min(s, m);
    }
    s->cur_ent = SIM_ENT_GLOBAL;
    sim_enter(outer);
    return s->events - before;
}
