/*
 * graph — the network graph of sim/graph.h: node and link storage, the port
 * layout, and a name index (open-addressing hash table) so that resolving the
 * names of a large scenario's paths and faults stays O(1) per name.
 */
#include "sim/graph.h"
#include "sim/mem.h"
#include "sim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Returns a grown array (capacity doubled, at least `first`); ends through mem_oom when out of memory. */
static void *grow(void *p, uint32_t *cap, size_t elem, uint32_t first, const char *what)
{
    uint64_t nc = *cap ? (uint64_t)*cap * 2 : first;
    void *n = nc > UINT32_MAX ? NULL : realloc(p, (size_t)nc * elem);
    if (!n)
        mem_oom(what);
    *cap = (uint32_t)nc;
    return n;
}

/* FNV-1a over the name, then a murmur3-style finalizer so that the low bits (the slot) are well mixed. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return rng_mix32(h);
}

/* Puts node id into the name index (which has room); no return value. */
static void name_ix_put(struct graph *g, uint32_t id)
{
    uint32_t mask = g->name_ix_cap - 1;
    uint32_t i = name_hash(g->nodes[id].name) & mask;
    while (g->name_ix[i])
        i = (i + 1) & mask;
    g->name_ix[i] = id + 1;
}

/*
 * Makes room in the name index for n_nodes names, keeping it at most half
 * full; a grown index is rebuilt from the g->n_nodes nodes already added.
 * Ends through mem_oom when out of memory.
 */
static void name_ix_reserve(struct graph *g, uint32_t n_nodes)
{
    if ((uint64_t)n_nodes * 2 <= g->name_ix_cap)
        return;
    uint64_t cap = g->name_ix_cap ? g->name_ix_cap : 64;
    while ((uint64_t)n_nodes * 2 > cap)
        cap *= 2;
    if (cap > UINT32_MAX)
        mem_oom("growing the network graph (name index)");
    free(g->name_ix);
    g->name_ix = mem_xcalloc((size_t)cap, sizeof *g->name_ix, "growing the network graph (name index)");
    g->name_ix_cap = (uint32_t)cap;
    for (uint32_t id = 0; id < g->n_nodes; id++)
        name_ix_put(g, id);
}

void graph_init(struct graph *g)
{
    memset(g, 0, sizeof *g);
}

void graph_routes_free(struct graph *g)
{
    struct g_routes *r = &g->routes;
    free(r->table);
    free(r->row_of);
    free(r->col);
    free(r->attach);
    free(r->last);
    free(r->nh);
    memset(r, 0, sizeof *r);
}

void graph_free(struct graph *g)
{
    free(g->nodes);
    free(g->links);
    free(g->ports);
    free(g->host_node);
    graph_routes_free(g);
    free(g->name_ix);
    memset(g, 0, sizeof *g);
}

uint32_t graph_add_node(struct graph *g, const char *name, enum scn_node_kind kind)
{
    if (g->n_nodes == g->nodes_cap)
        g->nodes = grow(g->nodes, &g->nodes_cap, sizeof *g->nodes, 64, "growing the network graph (nodes)");
    uint32_t id = g->n_nodes;
    struct g_node *n = &g->nodes[id];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    n->kind = kind;
    n->group = -1;
    if (kind == SCN_NODE_HOST) {
        /* host_node grows with the hosts; its capacity is tracked as the next power of two. */
        uint32_t h = g->n_hosts;
        if ((h & (h - 1)) == 0) {
            uint64_t cap = h ? (uint64_t)h * 2 : 1;
            g->host_node = mem_xrealloc(g->host_node, (size_t)cap * sizeof *g->host_node,
                                        "growing the network graph (host index)");
        }
        g->host_node[h] = id;
        n->host = (int32_t)h;
        n->sw = -1;
        g->n_hosts++;
    } else {
        n->host = -1;
        n->sw = (int32_t)g->n_switches++;
    }
    name_ix_reserve(g, id + 1);
    name_ix_put(g, id);
    g->n_nodes++;
    return id;
}

uint32_t graph_add_link(struct graph *g, uint32_t a, uint32_t b, const struct scn_link *spec)
{
    if (g->n_links == g->links_cap)
        g->links = grow(g->links, &g->links_cap, sizeof *g->links, 64, "growing the network graph (links)");
    struct g_link *l = &g->links[g->n_links];
    memset(l, 0, sizeof *l);
    l->a = a;
    l->b = b;
    l->spec = *spec;
    l->cost = 1;
    return g->n_links++;
}

int graph_finish(struct graph *g)
{
    uint64_t total = (uint64_t)g->n_links * 2;
    if (total > UINT32_MAX)
        return -1;
    struct g_port *ports = malloc((size_t)(total ? total : 1) * sizeof *ports);
    if (!ports)
        return -1;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        g->nodes[i].n_ports = 0;
    for (uint32_t i = 0; i < g->n_links; i++) {
        g->nodes[g->links[i].a].n_ports++;
        g->nodes[g->links[i].b].n_ports++;
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        g->nodes[i].first_port = next;
        next += g->nodes[i].n_ports;
        /* Reused as the fill cursor below, restored by the time every link is placed. */
        g->nodes[i].n_ports = 0;
    }
    for (uint32_t i = 0; i < g->n_links; i++) {
        struct g_link *l = &g->links[i];
        struct g_node *na = &g->nodes[l->a], *nb = &g->nodes[l->b];
        l->port_a = na->first_port + na->n_ports++;
        l->port_b = nb->first_port + nb->n_ports++;
        ports[l->port_a] = (struct g_port){.node = l->a, .peer = l->port_b, .link = i,
                                           .rate_bps = l->spec.rate_bps, .delay_ps = l->spec.delay_ps};
        ports[l->port_b] = (struct g_port){.node = l->b, .peer = l->port_a, .link = i,
                                           .rate_bps = l->spec.rate_bps, .delay_ps = l->spec.delay_ps};
    }
    free(g->ports);
    g->ports = ports;
    g->n_ports = (uint32_t)total;
    return 0;
}

int32_t graph_find(const struct graph *g, const char *name)
{
    if (!g->name_ix_cap)
        return -1;
    uint32_t mask = g->name_ix_cap - 1;
    for (uint32_t i = name_hash(name) & mask; g->name_ix[i]; i = (i + 1) & mask) {
        uint32_t id = g->name_ix[i] - 1;
        if (strcmp(g->nodes[id].name, name) == 0)
            return (int32_t)id;
    }
    return -1;
}

int graph_port_to(const struct graph *g, uint32_t a, uint32_t b)
{
    const struct g_node *n = &g->nodes[a];
    for (uint32_t i = 0; i < n->n_ports; i++)
        if (g->ports[g->ports[n->first_port + i].peer].node == b)
            return (int)i;
    return -1;
}

uint32_t *graph_host_distance(const struct graph *g)
{
    size_t n = g->n_nodes ? g->n_nodes : 1;
    uint32_t *d = malloc(sizeof *d * n), *q = malloc(sizeof *q * n);
    if (!d || !q) {
        free(d);
        free(q);
        return NULL;
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < g->n_nodes; v++) {
        d[v] = g->nodes[v].kind == SCN_NODE_HOST ? 0 : UINT32_MAX;
        if (d[v] == 0)
            q[tail++] = v;
    }
    while (head < tail) {
        uint32_t v = q[head++];
        const struct g_node *x = &g->nodes[v];
        for (uint32_t i = 0; i < x->n_ports; i++) {
            uint32_t u = g->ports[g->ports[x->first_port + i].peer].node;
            if (d[u] == UINT32_MAX) {
                d[u] = d[v] + 1;
                q[tail++] = u;
            }
        }
    }
    free(q);
    return d;
}
