/*
 * pool — fixed-size object pool with an intrusive free list.
 *
 * Objects are carved from chunks (POOL_CHUNK objects at first, growing); a freed object goes on
 * the free list and is handed out again before any new chunk is made, so a run
 * allocates only while its number of live objects (packets in flight, say)
 * reaches a new high-water mark.  `live` is kept so that tests can assert that
 * every object came back.
 */
#ifndef SIM_POOL_H
#define SIM_POOL_H

#include <stddef.h>
#include <stdint.h>

#define POOL_CHUNK 4096                 /* objects in the first chunk */
#define POOL_CHUNK_MAX_BYTES (8u << 20) /* later chunks double up to this size */

struct pool {
    size_t obj_size;
    void *free_list;
    void **chunks;
    size_t n_chunks, chunks_cap;
    uint64_t live, high_water;
};

void pool_init(struct pool *p, size_t obj_size);
void pool_free_all(struct pool *p);

/* Grows the pool; ends the process through mem_oom (mem.h) when out of memory: a run cannot go on without packets. */
void pool_grow(struct pool *p);

static inline void *pool_get(struct pool *p)
{
    if (!p->free_list)
        pool_grow(p);
    void *o = p->free_list;
    p->free_list = *(void **)o;
    if (++p->live > p->high_water)
        p->high_water = p->live;
    return o;
}

static inline void pool_put(struct pool *p, void *o)
{
    *(void **)o = p->free_list;
    p->free_list = o;
    p->live--;
}

#endif
