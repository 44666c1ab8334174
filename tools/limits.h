/*
 * limits — what a run may use: memory (checked before anything is built) and
 * wall-clock time and signals (checked while it runs).
 *
 * Memory: limits_check_memory estimates, from the scenario alone, the memory
 * the built network needs (routing tables = nodes x attachment switches x 4 B (sim/memest.h), ports, nodes,
 * flows, the packet pool a full set of switch buffers can hold, the event
 * heap) and refuses the scenario when that is more than the machine has
 * available (MemAvailable in /proc/meminfo, or $ROCESIM_MEM_AVAILABLE, a size
 * like "2GB", which tests use).  Refusing up front beats being killed by the
 * kernel half-way with nothing written.
 *
 * Time and signals: limits_sim_run runs the engine in slices short enough in
 * wall-clock terms (about 20 ms) to notice a SIGINT/SIGTERM (tools/signals.h)
 * or the --max-wall deadline quickly, and stops the run at the current
 * simulated time, with the reason in r->incomplete_reason.  Slicing does not
 * change the order of events (see tools/monitor.h), so results are the same.
 */
#ifndef TOOLS_LIMITS_H
#define TOOLS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "tools/run.h"

/* The estimate behind limits_check_memory. */
struct mem_estimate {
    double nodes, hosts, ports, flows;
    double routing_bytes; /* routing tables while they are computed (only their distinct rows are kept) */
    double total_bytes;   /* everything, routing tables included */
};

/* Estimates the memory scenario s needs once built (a lower bound of the truth, within a few per cent). */
struct mem_estimate limits_estimate_memory(const struct scenario *s);

/*
 * Bytes of memory available: $ROCESIM_MEM_AVAILABLE when set (a size), else
 * MemAvailable from /proc/meminfo.  Returns -1 when neither can be read (the
 * check is then skipped) or the variable is not a size.
 */
int64_t limits_mem_available(void);

/*
 * Refuses a scenario that needs more memory than is available.  Returns 0, or
 * SCN_EUSAGE with a message like "FILE: topology: fat-tree k=100 needs about
 * 262 GB of memory (routing tables 262 GB); this machine has 23 GB available".
 */
int limits_check_memory(const struct scenario *s, char *err, size_t errlen);

/*
 * Makes runs stop at `seconds` of wall-clock time from now (0: no limit);
 * text is the limit as the user wrote it, for the reason ("max-wall 10s
 * reached").
 */
void limits_set_max_wall(double seconds, const char *text);

/*
 * Runs r's engine like sim_run(s, until), in slices, checking between them
 * for a signal or the wall-clock limit.  Returns the number of events run.
 * When it stops early it sets r->incomplete_reason (non-empty from then on).
 */
uint64_t limits_sim_run(struct run *r, sim_time_t until);

#endif
