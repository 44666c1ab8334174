/*
 * exchange — what crosses processes when a network's partitions run in several (`rocesim-mpi run`, ranks.h):
 *   - a frame on a link between partitions of different processes, by value (its bytes and its INT record),
 *     freed by the sender and rebuilt from the receiver's pools (the engine's codec, set when the network is
 *     partitioned);
 *   - the counts, summed after every window (net_fold), so that every process holds the same totals and
 *     decides the same at the grid's lines (traffic done, deadlock checks);
 *   - the network events noted by the partitions (PFC frames, flow completions, drops and timeouts),
 *     gathered after every window and told in the order of one process;
 *   - the collectives' flows made by hosts, and their completed parts (traffic.c, between windows);
 *   - at the end, what the outputs read of flows and ports (exchange_finish).
 * A value written by one partition only, and zero as built, is shared by summing: the other processes add
 * their zeros.
 */
#ifndef MODELS_EXCHANGE_H
#define MODELS_EXCHANGE_H

#include "models/ranks.h"

/* At the end of a run (instead of net_close_pauses): the pause intervals closed at now, and every flow's and
 * port's results made the same in every process. */
void exchange_finish(struct net *n, sim_time_t now);

#endif
