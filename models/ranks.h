/*
 * ranks — a network whose partitions run in several processes (`rocesim-mpi run`, with the collective
 * operations of sim/parallel.h's struct sim_par_comm): which process runs a node, and how a run's event does a
 * node's part only in that process.
 *
 * Every process builds the whole network, its flows and the run's events, and runs only the partitions the
 * engine gives it (sim_par_mine); the state of the others stays as built, untouched, in its memory.  What crosses
 * processes, and how, is exchange.h's.  The mechanisms a run's event drives (faults, the watchdog, the deadlock
 * checks) include this file alone, so that they sit below the exchange, which knows the ports.
 */
#ifndef MODELS_RANKS_H
#define MODELS_RANKS_H

#include "models/net.h"
#include "sim/parallel.h"

/* The processes a run is spread over, or NULL for a run in one process. */
static inline const struct sim_par_comm *net_comm(const struct net *n)
{
    return n->sim->par ? n->sim->par->comm : NULL;
}

/* Whether node's partition runs in this process (always in one process). */
static inline bool net_node_mine(const struct net *n, uint32_t node)
{
    const struct sim_par *P = n->sim->par;
    return !P || !P->comm || sim_par_mine(P, P->ent_part[net_ent(node)]);
}

/*
 * A run's event acts on many nodes (the PFC watchdog's poll, a fault), but over processes only the one that runs
 * a node's partition holds its state.  The event does a node's part between ranks_enter(n, node, &e) and
 * ranks_leave(n, &e), when ranks_enter returns true: then, over processes, what it counts and notes is that
 * partition's, as if the node's own event had done it at the run event's point of the order, and the others skip
 * it.  In one process both do nothing and enter returns true.
 */
struct ranks_entry {
    struct sim *was;     /* the engine running before, NULL: nothing entered */
    struct sim *part;
    sim_time_t now;
    uint64_t cur_seq;
    uint32_t cur_ent;
};
bool ranks_enter(struct net *n, uint32_t node, struct ranks_entry *e);
void ranks_leave(struct net *n, struct ranks_entry *e);

#endif
