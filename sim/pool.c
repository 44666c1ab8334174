/* pool — chunk allocation for the object pool (see pool.h). */
#include "pool.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pool_init(struct pool *p, size_t obj_size)
{
    memset(p, 0, sizeof *p);
    /* Every object must hold the free-list link and stay pointer-aligned. */
    if (obj_size < sizeof(void *))
        obj_size = sizeof(void *);
    p->obj_size = (obj_size + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
}

void pool_grow(struct pool *p)
{
    if (p->n_chunks == p->chunks_cap) {
        size_t nc = p->chunks_cap ? p->chunks_cap * 2 : 16;
        void **n = realloc(p->chunks, nc * sizeof *n);
        if (!n)
            goto oom;
        p->chunks = n;
        p->chunks_cap = nc;
    }
    /* Chunks double up to POOL_CHUNK_MAX_BYTES: a small run stays small, and a large one gets chunks big
     * enough for huge pages (mem.h), which matter when packets are scattered over many MB. */
    size_t objs = POOL_CHUNK;
    for (size_t i = 0; i < p->n_chunks && objs * 2 * p->obj_size <= POOL_CHUNK_MAX_BYTES; i++)
        objs *= 2;
    char *chunk = mem_alloc_big(p->obj_size * objs);
    if (!chunk)
        goto oom;
    p->chunks[p->n_chunks++] = chunk;
    /* Link in reverse so that objects are handed out in address order. */
    for (size_t i = objs; i-- > 0;) {
        void *o = chunk + i * p->obj_size;
        *(void **)o = p->free_list;
        p->free_list = o;
    }
    return;
oom:
    mem_oom("growing the packet pool");
}

void pool_free_all(struct pool *p)
{
    for (size_t i = 0; i < p->n_chunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    memset(p, 0, sizeof *p);
}
