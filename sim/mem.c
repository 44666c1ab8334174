/* mem — huge-page backed large arrays (see mem.h). */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *mem_alloc_big(size_t bytes)
{
    if (bytes < MEM_BIG_MIN)
        return aligned_alloc(128, bytes ? (bytes + 127) & ~(size_t)127 : 128);
    /* Whole aligned 2 MB units, so that every page of the block can be a huge page. */
    const size_t huge = MEM_BIG_MIN;
    if (bytes > SIZE_MAX - huge)
        return NULL;
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint only */
#endif
    return p;
}

void *mem_calloc_big(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = mem_alloc_big(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *mem_realloc_big(void *old, size_t keep, size_t bytes)
{
    void *p = mem_alloc_big(bytes);
    if (!p)
        return NULL;
    if (old) {
        memcpy(p, old, keep < bytes ? keep : bytes);
        free(old);
    }
    return p;
}
