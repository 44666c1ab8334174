/*
 * coll_trees — how NCCL builds its trees.  Over ranks alone it is the double binary tree of NCCL 2.4 ("Massively
 * Scale Your Deep Learning Training with NCCL 2.4", NVIDIA developer blog, 2019, after Sanders, Speck and Träff,
 * "Two-tree algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009): tree 0 is the
 * in-order binary tree over positions 1..N-1, in which position r with lowest set bit b hangs under r+b or r-b
 * (whichever has bit 2b set; r-b when r+b is past the end), below root 0; tree 1 is tree 0 mirrored (position r in
 * place N-1-r) for an even N and shifted by one for an odd N, so that a rank inner in one tree is a leaf in the
 * other.
 *
 * On GPU servers with a NIC per GPU NCCL's trees are hierarchical (its maintainers' descriptions, github.com/NVIDIA/
 * nccl issues 448, 545 and 1379): the double binary tree joins the servers, not the ranks ("the double binary tree
 * concerns inter-node communication only"); inside a server the GPUs form a chain over NVLink that starts at the
 * GPU of the channel's NIC, and that GPU alone speaks to the parent and child servers ("GPU 0 does all the
 * communication with the tree down ranks"; with one NIC per GPU NCCL's balanced and split patterns, which share a
 * NIC between two GPUs, are not used), so it has up to three children: the next GPU of the chain and two servers.
 * There is one pair of trees per NIC: both trees of a channel leave by the same NIC, and successive channels by
 * successive NICs.
 *
 * Channel c, with G GPUs per server in the order of their NICs (m[0..G-1]) and k = c mod G: every server's chain is
 * m[k], m[k+1], .., m[k-1]; m[k] of server s hangs in tree t under m[k] of the server that is s's parent in the
 * double binary tree over the servers (in the order the ranks first name them).  Every hop between servers so joins
 * two NICs of rail k.
 */
#include "models/coll_trees.h"
#include "models/coll.h"
#include "models/coll_rings.h"
#include "sim/mem.h"

#include <stdlib.h>

/* Tree 0's parent of position r (root 0: none). */
static uint32_t btree_parent(uint32_t r, uint32_t N)
{
    if (r == 0)
        return NO_STEP;
    uint32_t bit = r & -r, up = (r ^ bit) | (bit << 1);
    return up >= N ? r ^ bit : up;
}

uint32_t coll_dbtree_parent(uint32_t t, uint32_t r, uint32_t N)
{
    if (t == 0)
        return btree_parent(r, N);
    uint32_t pos = N % 2 == 0 ? N - 1 - r : (r + N - 1) % N, up = btree_parent(pos, N);
    if (up == NO_STEP)
        return NO_STEP;
    return N % 2 == 0 ? N - 1 - up : (up + 1) % N;
}

int coll_tree_parents(const struct net *n, const uint32_t *host, uint32_t N, uint32_t channel, uint32_t *parent)
{
    uint32_t *m = mem_xcalloc(N, sizeof *m, "laying out a collective's trees"), G = coll_servers(n, host, N, m);
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t r = 0; r < N; r++)
            parent[t * N + r] = G ? NO_STEP : coll_dbtree_parent(t, r, N);
    uint32_t S = G ? N / G : 0, k = G ? channel % G : 0;
    for (uint32_t t = 0; t < 2 && G; t++)
        for (uint32_t s = 0; s < S; s++) {
            const uint32_t *ms = m + s * G;
            for (uint32_t i = 1; i < G; i++)
                parent[t * N + ms[(k + i) % G]] = ms[(k + i - 1) % G];
            uint32_t up = coll_dbtree_parent(t, s, S);
            parent[t * N + ms[k]] = up == NO_STEP ? NO_STEP : m[up * G + k];
        }
    free(m);
    return G != 0;
}

uint32_t coll_tree_depth(const uint32_t *parent, uint32_t N)
{
    uint32_t d = 0;
    for (uint32_t r = 0; r < N; r++) {
        uint32_t k = 0;
        for (uint32_t x = r; parent[x] != NO_STEP; x = parent[x])
            k++;
        if (k > d)
            d = k;
    }
    return d;
}
