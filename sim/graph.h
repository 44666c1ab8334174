/*
 * graph — the network as a graph: named nodes (hosts and switches), ports,
 * and full-duplex links between ports, plus the routing tables computed over
 * it.  Topology generators (topologies/) build it from a scenario; the element
 * models (models/) instantiate their runtime state from it.  It holds no
 * behaviour and no simulation state.
 *
 * Ports are numbered globally; the ports of one node are contiguous, in the
 * order its links were added, so node n's local port i is global port
 * nodes[n].first_port + i.
 */
#ifndef SIM_GRAPH_H
#define SIM_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"

struct g_node {
    char name[SCN_NAME_MAX];
    enum scn_node_kind kind;
    int32_t host;        /* host index (h{host}), -1 for switches */
    int32_t sw;          /* switch ordinal (0..n_switches-1), -1 for hosts */
    int32_t group;       /* dragonfly group of a router or host (Valiant detours aim at one), else -1 */
    uint32_t first_port;
    uint32_t n_ports;
    /* A host's first port's line rate, as its flows pace themselves, when it is not the link's (0): a GPU whose
     * PCIe link is faster than the NIC that carries its traffic on (topologies/server.c). */
    int64_t line_bps;
    /* A part of a server's inside (a NIC, a PCIe switch, a socket, the NVSwitch: topologies/server.c), which the
     * switch model runs with the settings of PCIe rather than a fabric switch's (models/profiles.c). */
    bool in_server;
    bool memory;         /* ... a socket's memory, where staged data waits to be read (a sink: it never pauses) */
    /* A GPU whose traffic to other servers NCCL stages through host memory (its NIC beyond gdr_level): the memory
     * node it passes, plus one; 0: GPUDirect RDMA, or no GPU (models/gdr.c). */
    uint32_t stage_via;
    /* A GPU in a server: the memory of its NIC's socket, plus one, the node a path through the CPU passes whether
     * or not NCCL stages it (stage_via is this or 0); a checkpoint written through the CPU goes by it (gdr.c). */
    uint32_t mem_via;
    /* A GPU in a server: the NIC its traffic to other servers leaves by, the one NCCL gives it, plus one; else 0. */
    uint32_t nic_via;
    uint8_t nic_dist;    /* ... and how far that NIC is from it: PIX, PXB, PHB or SYS (enum server_path) */
    /* A GPU or a part of a server's inside: its server, as the id of the server's first inside node, plus one; 0:
     * none.  Whether two nodes share a server, without a search of the inside per flow (models/gdr.c). */
    uint32_t server;
};

struct g_port {
    uint32_t node;
    uint32_t peer;       /* global id of the port at the other end of the link */
    uint32_t link;       /* index of the link in g->links */
    int64_t rate_bps;
    int64_t delay_ps;
};

struct g_link {
    uint32_t a, b;       /* node ids */
    struct scn_link spec;
    uint32_t port_a, port_b; /* global port ids, filled by graph_finish() */
    bool down;           /* out of service: routing_compute() routes around it (false when added) */
    /*
     * Routing cost (1 when added).  Paths minimize the sum of costs, then
     * ECMP spreads over the equal ones; a dragonfly makes its global links
     * cost more than any path of local hops, so that minimal routes use as
     * few global links as possible (local-global-local).
     */
    uint32_t cost;
};

/*
 * Routing: for every node and destination host, the set of local egress ports
 * on least-cost paths.  A host hanging off one switch T is reached through T,
 * so every node but T and the host itself routes towards the host exactly as
 * towards T: the table has one column per such attachment switch (a "root";
 * a host with another attachment is a root of its own), and T's last hop to
 * the host is kept per host.  A k=32 fat-tree's table is then 9,472 nodes x 512
 * ToRs (19 MB) instead of x 8,192 hosts (310 MB).  Rows are interned too:
 * in a fat-tree every edge switch has the same row, so do the aggregation
 * switches of a pod, the core switches and the hosts, and the k=32 table
 * keeps 35 rows (72 KB), small enough for the per-frame lookup to stay in
 * cache.  Sets are interned: nh[off] is the number of ports and nh[off+1..]
 * the local port indices in increasing order.
 */
struct g_routes {
    uint32_t n_hosts, n_cols, n_rows;
    uint32_t *table;     /* [row * n_cols + col] -> an entry (graph_nh_entry), or UINT32_MAX if unreachable */
    uint32_t *row_of;    /* node -> its row in table: identical rows are stored once */
    uint32_t *col;       /* host -> its column */
    uint32_t *attach;    /* host -> node id of its attachment switch, or UINT32_MAX (a root of its own) */
    uint32_t *last;      /* host -> the entry of the attachment switch's port to it */
    uint16_t *nh;
    uint32_t nh_len, nh_cap;
};

/*
 * An entry of the tables: the offset in nh of a set (its low GRAPH_NH_OFF_BITS bits) and, above them, the set's
 * port count when it is below 256 (else 0, and nh[offset] says).  With the count in the entry, a frame's egress
 * port is one load after the entry (nh[offset + 1 + the ECMP pick]), where it was two (the count, then the port).
 * The interned sets are limited to GRAPH_NH_MAX 16-bit words (routing_compute fails beyond, as out of memory).
 */
#define GRAPH_NH_OFF_BITS 24
#define GRAPH_NH_MAX ((1u << GRAPH_NH_OFF_BITS) - 1)

static inline uint32_t graph_nh_entry(uint32_t off, uint32_t count)
{
    return (count < 256 ? count : 0) << GRAPH_NH_OFF_BITS | off;
}

/* The set of entry e (not UINT32_MAX) in r: *ports points at its count ports. */
static inline uint32_t graph_nh_set(const struct g_routes *r, uint32_t e, const uint16_t **ports)
{
    uint32_t off = e & GRAPH_NH_MAX, count = e >> GRAPH_NH_OFF_BITS;
    *ports = &r->nh[off + 1];
    return count ? count : r->nh[off];
}

struct graph {
    uint32_t n_nodes, nodes_cap;
    struct g_node *nodes;
    uint32_t n_links, links_cap;
    struct g_link *links;
    uint32_t n_ports;
    struct g_port *ports;
    uint32_t n_hosts, n_switches;
    uint32_t *host_node; /* host index -> node id */
    struct g_routes routes;
    /* routing_compute() gives every host a column of its own, as a subnet manager routes per destination LID,
     * instead of one per switch the hosts hang off (InfiniBand: topologies/sm.h) */
    bool routes_per_host;
    /* Name index for graph_find: open addressing, node id + 1 per slot (0 = empty), kept by graph_add_node. */
    uint32_t *name_ix;
    uint32_t name_ix_cap; /* power of two, or 0 */
};

void graph_init(struct graph *g);
void graph_free(struct graph *g);
/* Frees the routing tables and zeroes g->routes (routing_compute fills them again). */
void graph_routes_free(struct graph *g);

/*
 * Adds a node; hosts get consecutive host indices in the order they are added.
 * Returns the node id.  Ends through mem_oom (sim/mem.h) when out of memory.  Names must
 * be unique (graph_find returns the first node of a name).
 */
uint32_t graph_add_node(struct graph *g, const char *name, enum scn_node_kind kind);

/* Adds a full-duplex link between two nodes.  Returns the link index; mem_oom when out of memory. */
uint32_t graph_add_link(struct graph *g, uint32_t a, uint32_t b, const struct scn_link *spec);

/*
 * Lays out the ports once every link is added (may be called again after more
 * links are added; port ids then change).  Returns 0, or -1 when out of memory.
 */
int graph_finish(struct graph *g);

/* Node id by name, or -1. */
int32_t graph_find(const struct graph *g, const char *name);

/* Local port index on node a of a link to node b, or -1 when they are not linked. */
int graph_port_to(const struct graph *g, uint32_t a, uint32_t b);

/* Each node's hop distance from the nearest host (0 for a host; a switch's tier), UINT32_MAX where no host is
 * reachable, by one breadth-first search from all hosts at once.  The caller frees it; NULL when out of memory. */
uint32_t *graph_host_distance(const struct graph *g);

/* Where graph_nexthops(g, n, h) will read its entry (n is not h's own node): for a prefetch. */
static inline const uint32_t *graph_nexthops_entry(const struct graph *g, uint32_t n, uint32_t h)
{
    const struct g_routes *r = &g->routes;
    return n == r->attach[h] ? &r->last[h] : &r->table[(uint64_t)r->row_of[n] * r->n_cols + r->col[h]];
}

/* The egress port set of node n towards host h: *ports points at count entries. */
static inline uint32_t graph_nexthops(const struct graph *g, uint32_t n, uint32_t h, const uint16_t **ports)
{
    uint32_t e = n == g->host_node[h] ? UINT32_MAX : *graph_nexthops_entry(g, n, h);
    if (e == UINT32_MAX) {
        *ports = 0;
        return 0;
    }
    return graph_nh_set(&g->routes, e, ports);
}

#endif
