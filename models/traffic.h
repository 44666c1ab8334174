/*
 * traffic — turns the scenario's traffic entries into flows on the network.
 *
 * - flow: one message; incast: one flow per sender to the receiver, all
 *   starting together.
 * - poisson: per host, flow arrivals with exponential gaps whose mean makes
 *   the offered load on the host link equal `load` (payload bytes: mean gap
 *   = mean flow size x 8 / (load x link rate)); sizes drawn from a CDF with
 *   linear interpolation between its points; destination uniform among the
 *   entry's other hosts, or a fixed random permutation.  An arrival is an event
 *   of the run (SIM_ENT_GLOBAL), not of its host: it adds a flow to the run's
 *   table, which only the run's events do, so that a flow's index (its name,
 *   its ECMP hash) is the same however the network is cut into partitions
 *   (sim/parallel.h); the arrival's draws are still the host's own stream.
 * - allreduce (ring): N ranks, 2(N-1) steps; in each step every rank sends
 *   size/N to its successor, and starts step s+1 once its step-s send is
 *   acknowledged and it has received step s from its predecessor (NCCL's ring).
 *   With nics_per_server = k the hosts are k-NIC servers and k rings run in
 *   parallel, ring r over the r-th NIC of every server, each reducing size/k.
 * - alltoall: every rank sends size/N to every other rank at once.
 *
 * Flow ids (docs/scenario.md, traffic): the entry's id, else "t{i}"; incast and
 * poisson name their flows "{entry id}.{j}" in creation order, a collective its
 * flows "{entry id}.{j}" with j = step x ranks + rank (the ring) or j = a x (N - 1)
 * + b', b' = b less one when b > a (alltoall), whatever the order they start in.  Every entry draws from its
 * own random streams (one per host for poisson), so adding an entry does not
 * change another entry's draws.
 */
#ifndef MODELS_TRAFFIC_H
#define MODELS_TRAFFIC_H

#include <stddef.h>

#include "models/net.h"

/* A flow-size distribution: points (size, cumulative probability), linear in between. */
struct cdf {
    int n;
    double *size, *prob;
    double mean;
};

struct poisson_gen;

struct coll {
    struct traffic *t;
    int entry;
    enum scn_traffic_type type;
    uint32_t n_ranks;          /* ranks per ring (allreduce) or in total (alltoall) */
    uint32_t rings;
    uint32_t *host;            /* [ring * n_ranks + rank] -> host index */
    uint32_t *sent, *recvd;    /* steps completed per (ring, rank): sends acknowledged, steps received */
    uint32_t *started;         /* steps started per (ring, rank) */
    uint32_t steps;            /* 2(N-1) for the ring; 1 for alltoall */
    uint32_t total_ranks;
    /* Its flows' places in the table, reserved up front (net_reserve_flows): the ring's step s of rank q is
     * base + s * total_ranks + q, alltoall's a -> b is base + a * (n_ranks - 1) + (b - (b > a)); the name of
     * base + j ("{id}.{j}") is the traffic's names[name0 + j], made with the places. */
    uint32_t base, n_flows, name0;
    int64_t chunk;
    /* Shared by its ranks, whose hosts may run in different partitions (sim/parallel.h): changed atomically,
     * and finish as the latest completion, so that neither depends on which partition got there first. */
    uint32_t ranks_done;
    uint32_t flows_done;       /* alltoall */
    /* over MPI ranks (ranks.h), its parts done in this process since the last window, and everywhere */
    uint32_t parts_here, parts_all;
    uint64_t bytes;
    sim_time_t last_done;      /* the latest completion of a rank (alltoall: of a flow) so far */
    sim_time_t start, finish;  /* finish -1 until complete */
};

struct traffic {
    struct net *net;
    char **names;              /* flow names, owned here */
    uint32_t n_names, cap;
    uint32_t *next_name;       /* per entry: the j of the next "{id}.{j}" flow */
    struct cdf *cdfs;          /* per entry; loaded for poisson entries only */
    struct poisson_gen *gens;
    uint32_t n_gens;
    struct coll *colls;
    uint32_t n_colls;
    /* over MPI ranks (ranks.h): per partition, the places of the collectives' flows its hosts made in the current
     * window; and what colls_between_windows reduces */
    struct made_list {
        uint32_t *idx;
        uint32_t n, cap;
    } *made;
    uint64_t *share;
};

/*
 * Creates the flows (or generators) of every traffic entry.  Returns 0, or
 * SCN_EUSAGE with a message naming the JSON path (unknown node in a path,
 * unlinked path, unreadable or malformed CDF file).
 */
int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen);
void traffic_free(struct traffic *t);

/*
 * Loads a CDF ("websearch", "hadoop" or a file; relative files are looked up
 * next to the scenario file, then in the working directory).  Returns 0, or
 * SCN_EUSAGE with a message that names `jpath` and the file and line.
 */
int cdf_load(struct cdf *c, const char *name, const char *scenario_file, const char *jpath, char *err,
             size_t errlen);
void cdf_free(struct cdf *c);

/*
 * The mean number of flows poisson entry t starts at one host whose link runs at rate_bps, over the
 * entry's span (start to end or the stop time): one per mean gap of mean_bytes x 8 / (load x rate_bps),
 * and at most one per picosecond.  The memory estimate and the monitor's flow sample both count with it.
 */
double traffic_poisson_host_flows(const struct scn_traffic *t, int64_t stop_ps, double mean_bytes, double rate_bps);

/* A size drawn from the CDF for a uniform u in [0, 1): at least 1 byte. */
int64_t cdf_sample(const struct cdf *c, double u);

/* Collective bookkeeping: f's receiver holds all its bytes / its sender got the last ACK (nic.c). */
void traffic_flow_received(struct net *n, struct flow *f);
void traffic_flow_acked(struct net *n, struct flow *f);

#endif
