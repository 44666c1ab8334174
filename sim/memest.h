/*
 * memest — the size of the network a topology describes, from the scenario's
 * fields alone (nothing built), for memory estimates before building
 * (tools/run/limits.h) and for the loader's refusal of oversized topologies.
 */
#ifndef SIM_MEMEST_H
#define SIM_MEMEST_H

#include "sim/scenario.h"

struct memest_counts {
    double hosts, switches, links;
    double columns;       /* routing table columns: distinct attachment switches (topologies/routing.c) */
    double routing_bytes; /* nodes x columns x 4 B, plus the per-host lookup arrays */
};

/* Counts for s's topology (its module's size hook, which fills switches, links and columns) with `hosts` hosts
 * (s->topo.n_hosts may not be set yet).  Never fails. */
struct memest_counts memest_topology(const struct scenario *s, double hosts);

/*
 * The link rate (bit/s) of every host of a loaded topology into rate[0 .. s->topo.n_hosts): the rate a poisson
 * load is a fraction of (a host has one link).  mem_oom (sim/mem.h) when out of memory.
 */
void memest_host_rates(const struct scenario *s, double *rate);

#endif
