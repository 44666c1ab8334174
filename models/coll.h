/*
 * coll — what every collective kind shares (traffic_collective.c's allreduce and alltoall, traffic_nccl.c's
 * nccl): its place in the traffic's table of collectives, its flows' places reserved up front, the start of a
 * flow by the rank that sends it, the count of its parts to completion, and, over MPI ranks, the exchange
 * between windows of the flows one process's hosts made and of the parts done.
 *
 * A kind fills struct coll (models/traffic.h): `place` (where flow j goes, with its size and its owner tag),
 * `parts` (how many completions make the whole) and its owner's hooks (flow_owner_ops, models/net.h), which run
 * in the partition of the host they concern: a flow's `received` at its receiver, `acked` at its sender. A
 * flow is started (coll_send) only from such a hook of its sender's host, or by the collective's start (an event
 * of the run), so that a host's flows are made by its own partition.
 */
#ifndef MODELS_COLL_H
#define MODELS_COLL_H

#include "models/traffic.h"

#define TRAFFIC_OOM "generating traffic"
#define NO_STEP UINT32_MAX
#define NCCL_WAITERS 3

/* traffic_nccl.c's operations and one flow of its schedules: ranks, bytes, what its end lets go, and what it
 * still waits for. */
enum nccl_op { OP_ALL_REDUCE, OP_ALL_GATHER, OP_REDUCE_SCATTER, OP_BROADCAST, OP_ALL_TO_ALL, OP_SEND_RECV };
/* Part i of n equal parts of d bytes (the first d % n one byte more): a channel's, a rank's or a shard's share. */
static inline int64_t coll_share(int64_t d, int64_t n, int64_t i) { return d / n + (i < d % n); }

/* nccl-tests' factor from algorithm to bus bandwidth of op over n ranks (its doc/PERFORMANCE.md): 2(n-1)/n for
 * all_reduce, (n-1)/n for all_gather, reduce_scatter and all_to_all, 1 for the others. */
double coll_busbw_factor(int op, double n);
struct nccl_step {
    uint32_t src, dst;             /* ranks */
    int64_t bytes;
    /* steps waiting for its receipt (three: a tree's GPU that joins a server to the others passes what it receives
     * to the next GPU of its server and to two servers, coll_trees.c), for its last ACK */
    uint32_t on_recv[NCCL_WAITERS], on_ack;
    uint8_t need;                  /* ends it still waits for */
};
/* The ring schedule (broadcast: the chain, all_to_all and send_recv: p2p) of op over ranks 0..N-1 into out, or
 * only counted (out NULL); returns its steps (the workload kinds build their collectives with it).  A connection
 * has NCCL's 8 chunks unacknowledged and is a queue pair (nic.h): with out, conn[j] is step j's connection,
 * numbered from 0; *n_conn (when not NULL) their number. */
uint32_t nccl_ring_build(int op, uint32_t N, int64_t size, int channels, int64_t chunk, struct nccl_step *out,
                         uint32_t *conn, uint32_t *n_conn);

/* A new collective for entry ti, its common fields set (t, entry, kind, no completion yet); over MPI ranks the
 * collectives' exchange between windows is set up with the first. */
struct coll *coll_add(struct traffic *t, int ti);
/* Reserves c's n_flows places and their names (steps summarized by c: the places, or only identities where places
 * are reused, and no names; coll.summarized), and schedules start (an event of the run, obj c) at the entry's
 * start. */
void coll_schedule(struct coll *c, sim_fn start);
/* Starts flow j of c now (its place from c->place) and returns it; until the flow's start event runs, the caller may
 * still post it to a queue pair (flow.qp). */
struct flow *coll_send(struct coll *c, uint32_t j);
/* A part of c completed now: c is complete when all c->parts are.  Over MPI ranks no process sees every part,
 * and the parts are counted between windows. */
void coll_part(struct coll *c, sim_time_t now);
/* The collective of flow f (its owner, the first member of struct coll). */
static inline struct coll *coll_of(const struct flow *f) { return (struct coll *)(void *)f->owner; }

#endif
