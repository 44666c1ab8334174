/*
 * coll_rings — the order of a collective's ranks around each channel's ring on GPU servers (coll_rings.c).
 */
#ifndef MODELS_COLL_RINGS_H
#define MODELS_COLL_RINGS_H

#include <stdint.h>

#include "models/net.h"

/*
 * Ring positions of channel `channel` for the N ranks whose hosts are host[0..N-1] (rank order), into perm (N
 * entries: the rank at each position).  Returns 1 when the ranks are GPUs of whole servers of one size (topology.
 * server) and perm holds their rail-aligned order; else 0 and perm is the rank order.
 */
int coll_ring_order(const struct net *n, const uint32_t *host, uint32_t N, uint32_t channel, uint32_t *perm);

/*
 * The servers of the N ranks whose hosts are host[0..N-1]: G, the GPUs per server, when the ranks are GPUs of
 * whole servers of one size (topology.server), with m[s * G + i] (N entries) the rank of the i-th GPU, in the order
 * of their NICs, of server s, in the order the ranks first name the servers; else 0.  Rings and trees (coll_trees.c)
 * are laid out over these.
 */
uint32_t coll_servers(const struct net *n, const uint32_t *host, uint32_t N, uint32_t *m);

#endif
