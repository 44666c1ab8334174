/* mem — huge-page backed large arrays, and the end of the process when memory runs out (see mem.h). */
#include "mem.h"

#include <stdint.h>
#include <stdio.h>
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

void mem_oom(const char *what)
{
    fprintf(stderr, "rocesim: out of memory %s\n", what);
    exit(MEM_EXIT_OOM);
}

void *mem_xmalloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        mem_oom(what);
    return p;
}

void *mem_xcalloc_big(size_t n, size_t size, const char *what)
{
    void *p = mem_calloc_big(n ? n : 1, size);
    if (!p)
        mem_oom(what);
    return p;
}

void *mem_xcalloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mem_oom(what);
    return p;
}

void *mem_xrealloc(void *p, size_t bytes, const char *what)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        mem_oom(what);
    return q;
}

char *mem_xstrdup(const char *s, const char *what)
{
    char *p = strdup(s);
    if (!p)
        mem_oom(what);
    return p;
}
