/*
 * gdr — GPUDirect RDMA or the path staged through host memory, for a flow between GPUs of two servers
 * (topologies/server.c, docs/servers.md).
 *
 * NCCL gives each GPU a NIC of its own for its traffic to other servers, the nearest (docs/servers.md); least-cost
 * routing alone would spread two GPUs of one PCIe switch over both of its NICs by hash, two flows on one NIC at
 * times.  So a GPU's flow to another server takes a pinned path: out by its own NIC (g_node.nic_via), then the
 * fabric as its frames route (ECMP by the flow's hash), into the destination's server by the NIC the route
 * reaches (the destination GPU's own, on a rail-aligned fabric, for GPUs of one rail).
 *
 * NCCL's network transport lets the NIC read and write GPU memory directly when the GPU and the NIC are no farther
 * apart than NCCL_NET_GDR_LEVEL allows (NCCL documentation, "Environment Variables": NCCL_NET_GDR_LEVEL, values
 * LOC, PIX, PXB, PHB, SYS).  Otherwise the data goes through a buffer in host memory: the GPU writes it there and
 * the NIC reads it from there when sending, and the reverse when receiving.  The path of a staged GPU passes the
 * memory node it carries (g_node.stage_via): up from the GPU to the memory through its PCIe switches and sockets,
 * back down to its NIC; at a staged receiver, from the NIC up to the memory and down to the GPU.  So the staged
 * data crosses the PCIe switches' uplinks, the socket link when the NIC is on the other socket, and the memory's
 * link, twice where GPUDirect crosses none of them, and shares them with the other GPUs' traffic: what bounds the
 * staged path's bandwidth.  The copy is modelled frame by frame (each frame goes on as soon as it is in memory);
 * NCCL's proxy moves whole chunks, which adds a chunk's time per step and not bandwidth.
 *
 * A traffic may choose its GPU senders' side instead of gdr_level (gdr_choose): a checkpoint written through the
 * CPU (cudaMemcpy to a host buffer, then the storage client's RDMA from it) passes the memory of the NIC's socket
 * as a staged GPU's data does, whatever the placement; one written with GPUDirect Storage (NVIDIA's cuFile: the
 * NIC reads GPU memory directly) passes none.  The choice is looked up once, when a flow is made.
 */
#include "models/gdr.h"
#include "models/mech.h"
#include "models/route.h"
#include "sim/mem.h"

#include <stdlib.h>

/* The most nodes a breadth-first search inside one server visits. */
#define INSIDE_MAX 256

/*
 * The fewest-links path from node a to node b through the inside of their server (in_server nodes; b may be a
 * host), into out (a first, b last, at most max nodes).  Its number of nodes, or 0 when there is none.
 */
static int inside_path(const struct graph *g, uint32_t a, uint32_t b, uint32_t *out, int max)
{
    uint32_t seen[INSIDE_MAX], from[INSIDE_MAX];
    int n = 0, head = 0;
    seen[n] = a;
    from[n++] = UINT32_MAX;
    while (head < n) {
        uint32_t x = seen[head];
        if (x == b)
            break;
        const struct g_node *gx = &g->nodes[x];
        for (uint32_t i = 0; i < gx->n_ports; i++) {
            uint32_t y = g->ports[g->ports[gx->first_port + i].peer].node;
            if (!g->nodes[y].in_server && y != b)
                continue;
            bool known = false;
            for (int k = 0; k < n && !known; k++)
                known = seen[k] == y;
            if (known)
                continue;
            if (n == INSIDE_MAX)
                return 0;
            seen[n] = y;
            from[n++] = (uint32_t)head;
        }
        head++;
    }
    if (head == n)
        return 0;
    int len = 0;
    for (uint32_t k = (uint32_t)head; k != UINT32_MAX; k = from[k])
        len++;
    if (len > max)
        return 0;
    int at = len;
    for (uint32_t k = (uint32_t)head; k != UINT32_MAX; k = from[k])
        out[--at] = seen[k];
    return len;
}

/* Appends the inside path a..b (without a, which out already ends with) to out at *len; false when it fails. */
static bool append_inside(const struct graph *g, uint32_t a, uint32_t b, uint32_t *out, int *len, int max)
{
    int k = inside_path(g, a, b, out + *len - 1, max - *len + 1);
    *len += k - 1;
    return k > 0;
}

/* Appends the route from node `at` (out[*len - 1]) to host dst, switch by switch as frames of hash take it. */
static bool append_route(const struct net *n, uint32_t dst, uint32_t hash, uint32_t *out, int *len, int max)
{
    const struct graph *g = n->g;
    uint32_t node = out[*len - 1], end = g->host_node[dst];
    uint8_t reached = 0;
    while (node != end) {
        const struct sw *w = n->node_sw[node];
        if (!w || *len == max)
            return false;
        uint32_t e = route_egress(g, node, w->group, w->salt, hash, dst, NET_NO_VIA, -1, &reached);
        if (e == ROUTE_NO_PORT)
            return false;
        node = g->ports[g->ports[g->nodes[node].first_port + e].peer].node;
        out[(*len)++] = node;
    }
    return true;
}

/* The choice of the flow at place idx (a few entries: only their traffics' set-up adds them). */
static enum gdr_how gdr_how_of(const struct net *n, uint32_t idx)
{
    for (uint32_t i = 0; i < n->n_gdr_choices; i++)
        if (idx - n->gdr_choices[i].first < n->gdr_choices[i].count)
            return n->gdr_choices[i].how;
    return GDR_LEVEL;
}

void gdr_choose(struct net *n, uint32_t first, uint32_t count, enum gdr_how how)
{
    n->gdr_choices = mem_xrealloc(n->gdr_choices, (n->n_gdr_choices + 1) * sizeof *n->gdr_choices,
                                  "choosing the GPU's path");
    n->gdr_choices[n->n_gdr_choices++] = (struct gdr_choice){.first = first, .count = count, .how = how};
}

int gdr_path(const struct net *n, const struct flow *f, uint32_t *nodes, int max)
{
    const struct graph *g = n->g;
    uint32_t src = g->host_node[f->src], dst = g->host_node[f->dst];
    uint32_t sv = g->nodes[src].stage_via, dv = g->nodes[dst].stage_via, nic = g->nodes[src].nic_via;
    enum gdr_how how = gdr_how_of(n, f->idx);
    if (how != GDR_LEVEL)
        sv = how == GDR_CPU ? g->nodes[src].mem_via : 0;
    if (!nic && !dv)
        return 0;
    int len = 1;
    nodes[0] = src;
    if (nic) {
        if (g->nodes[src].server == g->nodes[dst].server)
            return 0; /* within one server: NVLink or PCIe, never staged, by least cost */
        bool ok = sv ? append_inside(g, src, sv - 1, nodes, &len, max) &&
                           append_inside(g, sv - 1, nic - 1, nodes, &len, max)
                     : append_inside(g, src, nic - 1, nodes, &len, max);
        if (!ok)
            return 0;
    }
    if (!append_route(n, f->dst, f->hash_fwd, nodes, &len, max))
        return 0;
    if (!dv)
        return len;
    /* The destination's side: from the first node of its server (after the last fabric switch) up to the memory
     * and down to the GPU. */
    int in = len - 1;
    while (in > 0 && (g->nodes[nodes[in - 1]].in_server || nodes[in - 1] == src))
        in--;
    if (in == 0)
        return 0;
    len = in + 1;
    if (!append_inside(g, nodes[in], dv - 1, nodes, &len, max) || !append_inside(g, dv - 1, dst, nodes, &len, max))
        return 0;
    return len;
}

static void gdr_free(struct net *n)
{
    free(n->gdr_choices);
    n->gdr_choices = NULL;
    n->n_gdr_choices = 0;
}

static const struct net_mech_ops gdr_mech = {.name = "gdr", .order = 105, .free = gdr_free};
NET_MECH(gdr_mech)
