/*
 * mem — large arrays backed by transparent huge pages, and what happens when
 * an allocation fails.
 *
 * A packet hop in a big fabric touches a few cache lines scattered over tens
 * or hundreds of MB (ports, routing table, event heap, packets).  With 4 KB
 * pages nearly every such touch is also a TLB miss and a page walk; with
 * 2 MB pages the whole working set is covered by the TLB, and the page walks
 * are what suffers most from other tenants' memory traffic on a shared
 * machine (docs/performance.md has the measurements).
 *
 * The kernel may ignore the hint (THP "never"); the memory then works the
 * same with small pages.  Everything allocated here is freed with free().
 *
 * mem_oom is the one way the program ends when an allocation fails where it
 * cannot be refused as a bad scenario (building the network, mid-run, writing
 * outputs): a run cannot go on without the memory, and an abort() would look
 * like a crash (SIGABRT, exit 134) and blame nothing in particular.
 */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stddef.h>

/* Exit status after an allocation failed (docs/RELIABILITY.md). */
#define MEM_EXIT_OOM 4

/*
 * Ends the process: "rocesim: out of memory WHAT" on stderr, exit status MEM_EXIT_OOM.  `what` names what
 * was being allocated ("adding flows"), so the message never blames the wrong part.  Outputs the run was
 * streaming stay under their temporary names, never under a final one.
 */
_Noreturn void mem_oom(const char *what);

/* malloc / calloc / realloc / strdup that end the process through mem_oom(what) instead of returning NULL. */
void *mem_xmalloc(size_t bytes, const char *what);
void *mem_xcalloc(size_t n, size_t size, const char *what);
void *mem_xrealloc(void *p, size_t bytes, const char *what);
char *mem_xstrdup(const char *s, const char *what);

/* Below this size an array is an ordinary malloc: a huge page would only add RSS. */
#define MEM_BIG_MIN ((size_t)2 << 20)

/* Uninitialized memory of `bytes`, aligned to a pair of cache lines (128 bytes; struct port needs it),
 * huge-page backed when at least MEM_BIG_MIN; NULL when out of memory. */
void *mem_alloc_big(size_t bytes);

/* The same, zeroed. */
void *mem_calloc_big(size_t n, size_t size);
/* mem_calloc_big (n of 0 taken as 1) that ends the process through mem_oom(what) instead of returning NULL. */
void *mem_xcalloc_big(size_t n, size_t size, const char *what);

/* Grows (or shrinks) a block from mem_alloc_big to `bytes`, keeping the first `keep` bytes; NULL when out of
 * memory (the old block is then untouched). */
void *mem_realloc_big(void *old, size_t keep, size_t bytes);

#endif
