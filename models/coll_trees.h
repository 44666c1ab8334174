/*
 * coll_trees — the parents of a collective's ranks in each channel's two trees: NCCL's double binary tree over the
 * ranks, and on GPU servers its hierarchical form (coll_trees.c).
 */
#ifndef MODELS_COLL_TREES_H
#define MODELS_COLL_TREES_H

#include <stdint.h>

#include "models/net.h"

/* The parent of position r in tree t (0 or 1) of the double binary tree over N positions; NO_STEP at the root. */
uint32_t coll_dbtree_parent(uint32_t t, uint32_t r, uint32_t N);

/*
 * The parents of channel `channel`'s two trees over the N ranks whose hosts are host[0..N-1] (rank order): rank r's
 * parent in tree t into parent[t * N + r] (NO_STEP at the root).  Returns 1 when the ranks are GPUs of whole servers
 * of one size (topology.server) and the trees are laid out over the servers; else 0 and they are the double binary
 * tree over the ranks.
 */
int coll_tree_parents(const struct net *n, const uint32_t *host, uint32_t N, uint32_t channel, uint32_t *parent);

/* The depth of a tree given by its parents (N entries): its longest root-to-leaf path, in links. */
uint32_t coll_tree_depth(const uint32_t *parent, uint32_t N);

#endif
