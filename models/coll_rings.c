/*
 * coll_rings — how NCCL lays its rings over GPU servers with a NIC per GPU on a rail-optimized fabric: each
 * channel's ring runs through the GPUs of a server over NVLink and crosses to the next server once, between two
 * GPUs of one rail, and successive channels leave by successive NICs, so that C channels keep C NICs of every
 * server busy (NCCL's topology search builds its rings so: "Massively Scale Your Deep Learning Training with NCCL
 * 2.4", NVIDIA developer blog, 2019, and NCCL's NCCL_CROSS_NIC documentation: by default rings keep each NIC's
 * traffic on its own rail).
 *
 * Channel c, with G GPUs per server in the order of their NICs (m[0..G-1]) and k = c mod G: an even server (in the
 * order the ranks first name them) is passed m[k], m[k+1], .., m[k-1]; an odd one backwards, m[k-1], m[k-2], ..,
 * m[k].  So the ring leaves an even server and enters the next odd one on the rail of m[k-1], and leaves an odd
 * server and enters the next even one on the rail of m[k]: every crossing between servers stays on one rail.
 * With an odd number of servers the last crossing, back to the first server, changes rail.  Ranks that are not
 * GPUs of servers, or servers of different sizes in the communicator, keep the rank order.
 */
#include "models/coll_rings.h"
#include "sim/mem.h"

#include <stdlib.h>

static void identity(uint32_t N, uint32_t *perm)
{
    for (uint32_t r = 0; r < N; r++)
        perm[r] = r;
}

/* Sorts the ranks of one server by their GPUs' NICs (then hosts): insertion sort, a server is small. */
static void by_nic(const struct net *n, const uint32_t *host, uint32_t *m, uint32_t G)
{
    const struct graph *g = n->g;
    for (uint32_t i = 1; i < G; i++) {
        uint32_t r = m[i], key = g->nodes[g->host_node[host[r]]].nic_via, j = i;
        for (; j > 0; j--) {
            uint32_t q = m[j - 1], kq = g->nodes[g->host_node[host[q]]].nic_via;
            if (kq < key || (kq == key && host[q] < host[r]))
                break;
            m[j] = q;
        }
        m[j] = r;
    }
}

uint32_t coll_servers(const struct net *n, const uint32_t *host, uint32_t N, uint32_t *m)
{
    const struct graph *g = n->g;
    for (uint32_t r = 0; r < N; r++)
        if (!g->nodes[g->host_node[host[r]]].nic_via)
            return 0;
    /* Servers in the order the ranks first name them; group[r] is rank r's. */
    uint32_t *srv = mem_xcalloc(N, sizeof *srv, "laying out a collective's servers");
    uint32_t *group = mem_xcalloc(N, sizeof *group, "laying out a collective's servers");
    uint32_t *count = mem_xcalloc(N, sizeof *count, "laying out a collective's servers");
    uint32_t S = 0;
    for (uint32_t r = 0; r < N; r++) {
        uint32_t s = g->nodes[g->host_node[host[r]]].server, k = 0;
        while (k < S && srv[k] != s)
            k++;
        if (k == S)
            srv[S++] = s;
        group[r] = k;
        count[k]++;
    }
    uint32_t G = count[0];
    for (uint32_t k = 0; k < S; k++)
        if (count[k] != G)
            G = 0;
    for (uint32_t s = 0; s < S && G; s++) {
        uint32_t used = 0;
        for (uint32_t r = 0; r < N; r++)
            if (group[r] == s)
                m[s * G + used++] = r;
        by_nic(n, host, m + s * G, G);
    }
    free(srv);
    free(group);
    free(count);
    return G;
}

int coll_ring_order(const struct net *n, const uint32_t *host, uint32_t N, uint32_t channel, uint32_t *perm)
{
    identity(N, perm);
    uint32_t *m = mem_xcalloc(N, sizeof *m, "laying out a collective's rings"), G = coll_servers(n, host, N, m);
    for (uint32_t s = 0; G && s < N / G; s++) {
        const uint32_t *ms = m + s * G, k0 = channel % G;
        for (uint32_t i = 0; i < G; i++)
            perm[s * G + i] = s % 2 == 0 ? ms[(k0 + i) % G] : ms[(k0 + 2 * G - 1 - i) % G];
    }
    free(m);
    return G != 0;
}
