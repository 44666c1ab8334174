/*
 * mem — large arrays backed by transparent huge pages.
 *
 * A packet hop in a big fabric touches a few cache lines scattered over tens
 * or hundreds of MB (ports, routing table, event heap, packets).  With 4 KB
 * pages nearly every such touch is also a TLB miss and a page walk; with
 * 2 MB pages the whole working set is covered by the TLB.  On the k=32
 * fat-tree (8,192 hosts), 100 us after the start, the median of five runs was
 * 366 ns per packet-hop with huge pages and 782 without (the fastest runs of
 * both were near 350: on a shared machine, the page walks are what suffers
 * most from other tenants' memory traffic).
 *
 * The kernel may ignore the hint (THP "never"); the memory then works the
 * same with small pages.  Everything allocated here is freed with free().
 */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stddef.h>

/* Below this size an array is an ordinary malloc: a huge page would only add RSS. */
#define MEM_BIG_MIN ((size_t)2 << 20)

/* Uninitialized memory of `bytes`, aligned to a pair of cache lines (128 bytes; struct port needs it),
 * huge-page backed when at least MEM_BIG_MIN; NULL when out of memory. */
void *mem_alloc_big(size_t bytes);

/* The same, zeroed. */
void *mem_calloc_big(size_t n, size_t size);

/* Grows (or shrinks) a block from mem_alloc_big to `bytes`, keeping the first `keep` bytes; NULL when out of
 * memory (the old block is then untouched). */
void *mem_realloc_big(void *old, size_t keep, size_t bytes);

#endif
