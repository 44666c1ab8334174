/*
 * sm_updn — up/down routing (Schroeder et al., "Autonet: a high-speed, self-configuring local area network
 * using point-to-point links", IEEE JSAC 1991), OpenSM's updn engine, and its fat-tree form, ftree.
 *
 * The switches are ordered by their distance from the roots, then by id: a link leads *up* towards the lower of
 * its two ends.  A legal path goes up zero or more times, then down; no cycle of channel dependencies can form
 * from such paths, so the fabric is free of credit loops on one VL.  With one egress per destination (a
 * forwarding table does not know where a packet came from), a switch that can reach the destination going only
 * down does so, by a shortest such path; one that cannot goes up towards the nearest switch that can.
 *
 * updn: the roots are the switches farthest from the hosts (the top tier of a tree; every switch of a ring, whose
 * order is then by id), and of the ports a switch may use, the one carrying the fewest destinations so far.
 * ftree: the topology must be a tree of tiers, every switch-to-switch link between adjacent tiers and every host
 * on the lowest; going up, a switch spreads the destinations over its up ports by column (destination mod k, as
 * fat-tree routing does), and going down the port is the only one.
 */
#include "topologies/sm.h"
#include "topologies/routing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX

struct updn {
    const struct graph *g;
    uint32_t *tier;  /* hop distance from the nearest host (graph_host_distance) */
    uint64_t *key;   /* (rank << 32 | id): up is towards the smaller key; hosts below every switch */
    uint32_t *order; /* switches by key */
    uint32_t n_order;
    uint32_t *dd, *d, *queue;
};

static uint32_t peer_of(const struct graph *g, uint32_t p) { return g->ports[g->ports[p].peer].node; }

static int port_up(const struct graph *g, uint32_t p) { return !g->links[g->ports[p].link].down; }

static int is_switch(const struct graph *g, uint32_t x) { return g->nodes[x].kind == SCN_NODE_SWITCH; }

static int by_key(const void *a, const void *b, void *arg)
{
    const uint64_t *key = arg;
    uint64_t x = key[*(const uint32_t *)a], y = key[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* Ranks: breadth-first from the switches of the top tier, over switch-to-switch links. */
static int rank_switches(struct updn *u)
{
    const struct graph *g = u->g;
    uint32_t top = 0, head = 0, tail = 0;
    for (uint32_t x = 0; x < g->n_nodes; x++)
        if (is_switch(g, x) && u->tier[x] != INF && u->tier[x] > top)
            top = u->tier[x];
    uint32_t *rank = u->dd; /* scratch */
    for (uint32_t x = 0; x < g->n_nodes; x++) {
        rank[x] = INF;
        if (is_switch(g, x) && u->tier[x] == top) {
            rank[x] = 0;
            u->queue[tail++] = x;
        }
    }
    while (head < tail) {
        uint32_t x = u->queue[head++];
        for (uint32_t p = g->nodes[x].first_port; p < g->nodes[x].first_port + g->nodes[x].n_ports; p++) {
            uint32_t y = peer_of(g, p);
            if (port_up(g, p) && is_switch(g, y) && rank[y] == INF) {
                rank[y] = rank[x] + 1;
                u->queue[tail++] = y;
            }
        }
    }
    u->n_order = 0;
    for (uint32_t x = 0; x < g->n_nodes; x++) {
        u->key[x] = is_switch(g, x) && rank[x] != INF ? (uint64_t)rank[x] << 32 | x : UINT64_MAX;
        if (u->key[x] != UINT64_MAX)
            u->order[u->n_order++] = x;
    }
    qsort_r(u->order, u->n_order, sizeof *u->order, by_key, u->key);
    return 0;
}

/* Whether a hop x -> y goes down (towards the larger key; a host, the end of a path, is below every switch). */
static int down(const struct updn *u, uint32_t x, uint32_t y) { return u->key[y] > u->key[x]; }

/* dd: hops to `root` going only down; d: hops going up first where needed (INF: no legal path). */
static void distances(struct updn *u, uint32_t root)
{
    const struct graph *g = u->g;
    uint32_t head = 0, tail = 0;
    for (uint32_t x = 0; x < g->n_nodes; x++)
        u->dd[x] = u->d[x] = INF;
    u->dd[root] = 0;
    u->queue[tail++] = root;
    while (head < tail) {
        uint32_t y = u->queue[head++];
        for (uint32_t p = g->nodes[y].first_port; p < g->nodes[y].first_port + g->nodes[y].n_ports; p++) {
            uint32_t x = peer_of(g, p);
            if (port_up(g, p) && is_switch(g, x) && u->dd[x] == INF && down(u, x, y)) {
                u->dd[x] = u->dd[y] + 1;
                u->queue[tail++] = x;
            }
        }
    }
    /* up-neighbours have smaller keys: in key order, each switch's are done before it */
    for (uint32_t i = 0; i < u->n_order; i++) {
        uint32_t x = u->order[i];
        u->d[x] = u->dd[x];
        if (u->d[x] != INF)
            continue;
        for (uint32_t p = g->nodes[x].first_port; p < g->nodes[x].first_port + g->nodes[x].n_ports; p++) {
            uint32_t y = peer_of(g, p);
            if (port_up(g, p) && is_switch(g, y) && !down(u, x, y) && u->d[y] != INF && u->d[y] + 1 < u->d[x])
                u->d[x] = u->d[y] + 1;
        }
    }
    u->d[root] = 0;
}

/* The candidate ports of node x towards root (local indices into buf); how many. */
static uint32_t candidates(const struct updn *u, uint32_t x, uint32_t root, uint16_t *buf)
{
    const struct graph *g = u->g;
    const struct g_node *n = &g->nodes[x];
    uint32_t cnt = 0, best = INF;
    int going_down = u->dd[x] != INF;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n->n_ports; i++) {
            uint32_t p = n->first_port + i, y = peer_of(g, p);
            if (!port_up(g, p) || (!is_switch(g, y) && y != root))
                continue;
            uint32_t via;
            if (!is_switch(g, x)) /* a host: up to the switch nearest the destination */
                via = u->d[y];
            else if (going_down)
                via = down(u, x, y) ? u->dd[y] : INF;
            else
                via = !down(u, x, y) ? u->d[y] : INF;
            if (via == INF)
                continue;
            if (pass == 0 && via < best)
                best = via;
            else if (pass == 1 && via == best)
                buf[cnt++] = (uint16_t)i;
        }
    return cnt;
}

/* Every switch-to-switch link joins adjacent tiers and every host hangs off the lowest: a tree of tiers. */
static int check_tree(const struct updn *u, char *err, size_t errlen)
{
    const struct graph *g = u->g;
    for (uint32_t l = 0; l < g->n_links; l++) {
        uint32_t a = g->ports[g->links[l].port_a].node, b = g->ports[g->links[l].port_b].node;
        int sa = is_switch(g, a), sb = is_switch(g, b);
        int bad = sa && sb ? (u->tier[a] > u->tier[b] ? u->tier[a] - u->tier[b] : u->tier[b] - u->tier[a]) != 1
                           : (sa && u->tier[a] != 1) || (sb && u->tier[b] != 1) || (!sa && !sb);
        if (bad) {
            snprintf(err, errlen, "expected a fat tree for ftree (every switch link between adjacent tiers, every "
                     "host on the lowest), got the link %s-%s (tiers %u and %u): choose updn, minhop, lash or "
                     "dfsssp", g->nodes[a].name, g->nodes[b].name, sa ? u->tier[a] : 0, sb ? u->tier[b] : 0);
            return -1;
        }
    }
    return 0;
}

static int route_updn(struct graph *g, char *err, size_t errlen, int ftree)
{
    struct updn u = {.g = g};
    struct sm_tables t = {0};
    int rc = -1;
    uint16_t *buf = malloc(((size_t)1 << 16) * sizeof *buf);
    u.tier = graph_host_distance(g);
    u.key = malloc((size_t)g->n_nodes * sizeof *u.key + 1);
    u.order = malloc((size_t)g->n_nodes * sizeof *u.order + 1);
    u.dd = malloc((size_t)g->n_nodes * sizeof *u.dd + 1);
    u.d = malloc((size_t)g->n_nodes * sizeof *u.d + 1);
    u.queue = malloc((size_t)g->n_nodes * sizeof *u.queue + 1);
    if (sm_tables_init(g, &t) < 0 || !buf || !u.tier || !u.key || !u.order || !u.dd || !u.d || !u.queue) {
        snprintf(err, errlen, "out of memory computing the forwarding tables");
        goto out;
    }
    if (ftree && check_tree(&u, err, errlen) < 0)
        goto out;
    rank_switches(&u);
    for (uint32_t c = 0; c < t.n_cols; c++) {
        uint32_t root = t.root[c];
        distances(&u, root);
        for (uint32_t x = 0; x < g->n_nodes; x++) {
            if (x == root || (!is_switch(g, x) && g->nodes[x].n_ports == 0))
                continue;
            uint32_t n = candidates(&u, x, root, buf);
            if (!n) {
                if (!is_switch(g, x))
                    continue; /* a host's row is read only for its own flows: reported at its switch */
                snprintf(err, errlen, "expected an up/down path from %s to %s, got none: the links up do not "
                         "connect them so", g->nodes[x].name, g->nodes[root].name);
                goto out;
            }
            t.port[(uint64_t)x * t.n_cols + c] =
                ftree && u.dd[x] == INF ? buf[c % n] : sm_least_loaded(g, &t, x, buf, n);
        }
    }
    if (routing_install(g, t.port) < 0) {
        snprintf(err, errlen, "out of memory installing the forwarding tables");
        goto out;
    }
    rc = 0;
out:
    sm_tables_free(&t);
    free(buf);
    free(u.tier);
    free(u.key);
    free(u.order);
    free(u.dd);
    free(u.d);
    free(u.queue);
    return rc;
}

static int updn_route(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    return route_updn(g, err, errlen, 0);
}

static int ftree_route(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    return route_updn(g, err, errlen, 1);
}

static const struct sm_ops updn_ops = {.name = "updn", .route = updn_route};
static const struct sm_ops ftree_ops = {.name = "ftree", .route = ftree_route};
MODULE_REGISTER(sm_kind, "updn", &updn_ops);
MODULE_REGISTER(sm_kind, "ftree", &ftree_ops);
