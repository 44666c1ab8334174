/*
 * limits — what a run may use: memory (checked before anything is built) and
 * wall-clock time and signals (checked while it runs).
 *
 * Memory: limits_check_memory estimates, from the scenario alone, the memory
 * the built network needs (routing tables = nodes x attachment switches x 4 B (memest_topology, sim/scenario.h), ports, nodes,
 * flows, the packet pool a full set of switch buffers can hold, the event
 * heap, and the flows poisson loads start over the run) and refuses the
 * scenario when that is more than the machine has available (MemAvailable in
 * /proc/meminfo, or $ROCESIM_MEM_AVAILABLE, a size like "2GB", which tests
 * use), or more than the address-space limit (`ulimit -v`) leaves.  Refusing
 * up front beats being killed by the kernel, or running out (sim/mem.h
 * mem_oom), half-way with nothing written.
 *
 * Time and signals: limits_sim_run runs the engine in slices short enough in
 * wall-clock terms (about 20 ms) to notice a SIGINT/SIGTERM (tools/common/signals.h)
 * or the --max-wall deadline quickly, and stops the run at the current
 * simulated time, with the reason in r->incomplete_reason.  Slicing does not
 * change the order of events (see tools/run/observer.h), so results are the same.
 */
#ifndef TOOLS_LIMITS_H
#define TOOLS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "tools/run/run.h"

/* The estimate behind limits_check_memory. */
struct mem_estimate {
    double nodes, hosts, ports;
    double flows;         /* all of them: created up front, and poisson_flows */
    double steps;         /* a collective's steps its collective summarizes (monitor.step_flows false): their
                           * schedule's places; their records in flight are in flows */
    /* The flows entries generate over the run (a poisson load's arrivals; struct traffic_count), with a margin
     * (limits.c); the names are those of the one kind of the build that generates. */
    double poisson_flows;
    int poisson_entry;    /* the traffic entry with the most of them, or -1 */
    double poisson_entry_flows, poisson_entry_mean; /* its flows, and its mean flow size in bytes */
    int64_t poisson_entry_span;                     /* over how long it starts them */
    double routing_bytes; /* routing tables while they are computed (only their distinct rows are kept) */
    double flow_bytes;    /* what the flows need (records, names, packets, their output lines) */
    double total_bytes;   /* everything, routing tables included */
};

/* Estimates the memory scenario s needs once built (a lower bound of the truth, within a few per cent). */
struct mem_estimate limits_estimate_memory(const struct scenario *s);

enum mem_source { MEM_SRC_NONE, MEM_SRC_MEMINFO, MEM_SRC_ENV, MEM_SRC_RLIMIT };

/* Memory a run may use, and where the figure comes from (for the message). */
struct mem_avail {
    int64_t bytes; /* -1: unknown (the check is skipped) */
    enum mem_source source;
};

/*
 * Bytes of memory available: $ROCESIM_MEM_AVAILABLE when set (a size), else
 * MemAvailable from /proc/meminfo; the address space RLIMIT_AS still leaves
 * when that is less.  Returns 0, or SCN_EUSAGE with "$ROCESIM_MEM_AVAILABLE:
 * expected a size like ..., got ..." in err when the variable is not a size.
 */
int limits_mem_available(struct mem_avail *out, char *err, size_t errlen);

/*
 * Refuses a scenario that needs more memory than is available.  Returns 0, or
 * SCN_EUSAGE with a message like "FILE: topology: fat-tree k=100 needs about
 * 262 GB of memory (routing tables 262 GB, 1 flows); this machine has 23 GB
 * available" ("FILE: traffic.N: a poisson load ..." when a poisson load's flows
 * are most of it), or the message of limits_mem_available.
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
