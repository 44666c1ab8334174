/*
 * traffic — turns the scenario's traffic entries into flows on the network.
 *
 * Each kind of entry is a module of kind "traffic" (sim/module.h) in its own file, which fills a struct
 * traffic_ops and registers it with its settings group (the entry's own fields; the loader reads the fields every
 * entry has: type, id, start, priority):
 *
 *     MODULE_REGISTER(traffic_kind, "incast", &incast_ops, &incast_group);
 *
 * The kinds of the build (models/traffic_*.c), and the workloads they implement:
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

#include <stdbool.h>
#include <stddef.h>

#include "models/net.h"
#include "sim/module.h"
#include "sim/units.h"

/* A flow-size distribution: points (size, cumulative probability), linear in between. */
struct cdf {
    int n;
    double *size, *prob;
    double mean;
};

/* Where flow j of a collective goes (struct coll's place hook): its sender and receiver hosts, its size, and the
 * owner's number for it (flow.owner_tag). */
struct coll_place {
    uint32_t src, dst, tag;
    int64_t bytes;
};

/* The shared bookkeeping of a collective (models/coll.c), which its kind fills (traffic_collective.c,
 * traffic_nccl.c). */
struct coll {
    struct flow_owner owner;   /* first: its flows tell it when they end (net.h) */
    struct traffic *t;
    int entry;
    bool ring;                 /* allreduce's rings (else alltoall: every rank to every other at once) */
    const char *kind;          /* its entry's kind, for summary.json */
    int64_t size;              /* its entry's size, for summary.json */
    uint32_t n_ranks;          /* ranks per ring (allreduce) or in total (alltoall, nccl) */
    uint32_t rings;
    uint32_t *host;            /* [ring * n_ranks + rank] -> host index */
    uint32_t *sent, *recvd;    /* steps completed per (ring, rank): sends acknowledged, steps received */
    uint32_t *started;         /* steps started per (ring, rank) */
    uint32_t steps;            /* 2(N-1) for the ring; 1 for alltoall */
    uint32_t total_ranks;
    /* Its flows' places in the table, reserved up front (net_reserve_flows): the ring's step s of rank q is
     * base + s * total_ranks + q, alltoall's a -> b is base + a * (n_ranks - 1) + (b - (b > a)), nccl's in the
     * order of its schedule; the name of base + j ("{id}.{j}") is the traffic's names[name0 + j], made with the
     * places. */
    uint32_t base, n_flows, name0;
    /* its steps are summarized by it (traffic_ops.summarizes_steps and monitor.step_flows false: flow.step), base
     * then the first of their identities where their places are reused (net_reserve_ids), and they have no names
     * of their own */
    bool summarized;
    int64_t chunk;
    /* Where flow j goes: what another MPI rank's process needs to make it again (coll.c). */
    void (*place)(const struct coll *c, uint32_t j, struct coll_place *out);
    uint32_t parts;            /* what completes it: ranks (the ring), flows (alltoall), flow ends (nccl) */
    /* Shared by its ranks, whose hosts may run in different partitions (sim/parallel.h): changed atomically,
     * and finish as the latest completion, so that neither depends on which partition got there first. */
    uint32_t parts_done;
    /* over MPI ranks (ranks.h), its parts done in this process since the last window, and everywhere */
    uint32_t parts_here, parts_all;
    uint64_t bytes;
    sim_time_t last_done;      /* the latest completion of a part so far */
    sim_time_t start, finish;  /* finish -1 until complete */
    /* nccl: the operation and algorithm for summary.json (NULL for the others), its channels, the factor from
     * algbw to busbw (nccl-tests' doc/PERFORMANCE.md), and its schedule (freed with the traffic) */
    const char *op, *algorithm;
    int channels;
    double busbw_factor;
    /* all_reduce on a network: the α-β model's times of the ring and the tree (s), which "auto" compares */
    double model_ring, model_tree;
    void *sched;
    /* A kind's own fields of its summary.json object (NULL: none); workload's iterations (traffic_workload.c). */
    void (*summary)(const struct coll *c, struct cJSON *o);
    /* A kind's timeline of what each rank did, as rows "rank,activity,start_us,end_us\n" (caller frees; NULL:
     * none); workload's (timeline.csv, docs/outputs.md). */
    char *(*timeline)(const struct coll *c);
};

/* A finished collective's (finish > start) algbw as nccl-tests prints it: its size over its time, in GB/s (bytes
 * per ns); its busbw is that times busbw_factor.  summary.json and `rocesim nccl-tests` both report it. */
static inline double coll_algbw(const struct coll *c)
{
    return (double)c->size / units_ps_to_ns(c->finish - c->start);
}

struct cJSON;

struct traffic {
    struct net *net;
    char **names;              /* flow names, owned here */
    uint32_t n_names, cap;
    uint32_t *next_name;       /* per entry: the j of the next "{id}.{j}" flow */
    struct cdf *cdfs;          /* per entry; loaded by the kinds that draw sizes from one */
    void **state;              /* per entry: what its kind keeps for the run (its release hook frees it) */
    struct coll *colls;        /* the collectives, at most one per entry */
    uint32_t n_colls;
    /* over MPI ranks (ranks.h): per partition, the places of the collectives' flows its hosts made in the current
     * window; and what the collectives' between-window work reduces */
    struct made_list {
        uint32_t *idx;
        uint32_t n, cap;
    } *made;
    uint64_t *share;
    struct triggers *triggers; /* the flows that start when others end (trigger.h), or NULL: none */
};

/* How many flows an entry starts, for the memory estimate and the monitor's flow sample ("auto"). */
struct traffic_count {
    double made;       /* made or reserved at set-up */
    bool generates;    /* it starts flows over the run besides, */
    double generated;  /* this many on average by the stop time, */
    double mean_bytes; /* of this mean size (-1: unknown, as a CDF that cannot be read: set-up reports it), */
    int64_t span_ps;   /* over this span */
};

/* The hooks of a kind of traffic: all required. */
struct traffic_ops {
    struct scn_traffic_ops scn; /* first: what the loader asks (sim/scenario.h) */
    /* Makes entry ti's flows, or schedules its arrivals or its collective.  0, or SCN_EUSAGE with a message
     * naming the entry's JSON path (what the loader could not check before the network exists). */
    int (*setup)(struct traffic *t, int ti, char *err, size_t errlen);
    /* Frees what setup kept in t->state[ti] (called for every entry, set up or not). */
    void (*release)(struct traffic *t, int ti);
    /* Entry ti's count of flows over the run of s, with host_rate[h] the link rate of host h in bit/s; t is the
     * run's traffic once set up (its CDFs loaded), NULL before the network exists (the memory estimate). */
    void (*count)(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                  struct traffic_count *out);
    /* The hosts that send entry e's data: their number, with *hosts pointing at their indices. */
    int (*senders)(const struct scn_traffic *e, const int **hosts);
    /* What the traffic is to an AI cluster's operator (rocesim doctor's QoS check): a training job's
     * communication, storage traffic such as a checkpoint, or neither (0). */
    enum traffic_role { TRAFFIC_OTHER, TRAFFIC_TRAINING, TRAFFIC_STORAGE } role;
    /* A collective whose steps are read in their owner's hooks alone, never after they end: with
     * monitor.step_flows false they leave the outputs and their records are reused (coll_schedule), and the
     * memory estimate counts them as such (tools/run/limits.c). */
    bool summarizes_steps;
};

/* The kind (sim/module.h): its default, "flow", is what a zeroed struct scn_traffic holds. */
extern const struct module_kind traffic_kind;

/* Entry e's own fields, as the struct `type` its kind's group declares (checked against the group's size). */
const void *traffic_conf(const struct scn_traffic *e, size_t size);
#define TRAFFIC_CONF(e, type) ((const type *)traffic_conf((e), sizeof(type)))

/* The hooks of entry e's kind. */
const struct traffic_ops *traffic_ops_of(const struct scn_traffic *e);

/*
 * Creates the flows (or generators) of every traffic entry.  Returns 0, or
 * SCN_EUSAGE with a message naming the JSON path (unknown node in a path,
 * unlinked path, unreadable or malformed CDF file).
 */
int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen);
void traffic_free(struct traffic *t);

/* For the kinds: stores a flow name, the entry's id (j < 0) or "{id}.{j}"; returns the stored copy. */
const char *traffic_name(struct traffic *t, const char *id, int64_t j);
/* For the kinds: an entry's priority, or -1 for its sender's host.priority (net_add_flow), which a host profile
 * may set; on InfiniBand the VL of its service level (SL 0 when it gives none). */
int traffic_prio(const struct net *n, const struct scn_traffic *e);

/*
 * Loads a CDF ("websearch", "hadoop" or a file; relative files are looked up
 * next to the scenario file, then in the working directory).  Returns 0, or
 * SCN_EUSAGE with a message that names `jpath` and the file and line.
 */
int cdf_load(struct cdf *c, const char *name, const char *scenario_file, const char *jpath, char *err,
             size_t errlen);
void cdf_free(struct cdf *c);

/* A size drawn from the CDF for a uniform u in [0, 1): at least 1 byte. */
int64_t cdf_sample(const struct cdf *c, double u);


#endif
