/*
 * sm_layers — virtual-lane layers that free a routing of credit loops (Skeie, Lysne and Theiss, "Layered
 * shortest path (LASH) routing in irregular system area networks", IPDPS 2002; the layering DFSSSP also uses,
 * Domke, Hoefler and Nagel, IPDPS 2011).
 *
 * A channel is a switch's egress port to another switch; a path that enters a switch by channel a and leaves it by
 * channel b makes b's buffer wait on a: a dependency a -> b.  A lossless fabric deadlocks only where the
 * dependencies of the packets sharing buffers form a cycle (Dally and Seitz, IEEE Trans. Computers 1987).  Each
 * layer (a VL: its own buffers) keeps an acyclic dependency graph: the pairs of hosts, in column order, go to
 * the first layer that takes both their paths (there and back: a flow's ACKs travel on its VL) without closing a
 * cycle.  Adding edge a -> b closes one exactly when a is reachable from b, which a depth-first search tells.
 */
#include "topologies/sm_layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct adj {
    uint32_t *succ;
    uint32_t n, cap;
};

struct layering {
    const struct graph *g;
    int n_layers;
    struct adj *adj;      /* [layer * n_ports + channel] */
    uint32_t *stamp, now; /* DFS visits */
    uint32_t *stack;
    uint32_t added[2 * 256][2]; /* the edges a pair added to a layer, to take back */
    int n_added;
};

/* The channels of the path from node x to column c, in order, into ch (at most max); -1 when it does not arrive. */
static int path_channels(const struct graph *g, const struct sm_tables *t, uint32_t x, uint32_t c, uint32_t *ch,
                         int max)
{
    int n = 0;
    for (uint32_t hops = 0; x != t->root[c]; hops++) {
        uint16_t lp = t->port[(uint64_t)x * t->n_cols + c];
        if (lp == UINT16_MAX || hops > g->n_nodes)
            return -1;
        uint32_t p = g->nodes[x].first_port + lp, y = g->ports[g->ports[p].peer].node;
        if (g->nodes[x].kind == SCN_NODE_SWITCH && g->nodes[y].kind == SCN_NODE_SWITCH) {
            if (n == max)
                return -1;
            ch[n++] = p;
        }
        x = y;
    }
    return n;
}

static struct adj *adj_of(struct layering *L, int layer, uint32_t ch)
{
    return &L->adj[(size_t)layer * L->g->n_ports + ch];
}

/* Whether `to` is reachable from `from` in layer `layer`. */
static int reaches(struct layering *L, int layer, uint32_t from, uint32_t to)
{
    uint32_t top = 0;
    L->now++;
    L->stack[top++] = from;
    L->stamp[from] = L->now;
    while (top) {
        uint32_t u = L->stack[--top];
        if (u == to)
            return 1;
        const struct adj *a = adj_of(L, layer, u);
        for (uint32_t i = 0; i < a->n; i++)
            if (L->stamp[a->succ[i]] != L->now) {
                L->stamp[a->succ[i]] = L->now;
                L->stack[top++] = a->succ[i];
            }
    }
    return 0;
}

/* Adds edge u -> v to a layer unless it closes a cycle: 1 added (or there already), 0 refused, -1 no memory. */
static int add_edge(struct layering *L, int layer, uint32_t u, uint32_t v)
{
    struct adj *a = adj_of(L, layer, u);
    for (uint32_t i = 0; i < a->n; i++)
        if (a->succ[i] == v)
            return 1;
    if (reaches(L, layer, v, u))
        return 0;
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? 2 * a->cap : 4, *s = realloc(a->succ, cap * sizeof *s);
        if (!s)
            return -1;
        a->succ = s;
        a->cap = cap;
    }
    a->succ[a->n++] = v;
    L->added[L->n_added][0] = u;
    L->added[L->n_added++][1] = v;
    return 1;
}

/* Takes back the edges the current pair added to a layer (each was the last of its list when added). */
static void take_back(struct layering *L, int layer)
{
    while (L->n_added) {
        L->n_added--;
        adj_of(L, layer, L->added[L->n_added][0])->n--;
    }
}

void sm_layers_free(struct sm_layers *layers)
{
    free(layers->layer);
    *layers = (struct sm_layers){0};
}

int sm_assign_layers(const struct graph *g, const struct sm_tables *t, int max_layers, struct sm_layers *out,
                     const char *engine, char *err, size_t errlen)
{
    const uint32_t C = t->n_cols;
    struct layering L = {.g = g};
    uint32_t there[256], back[256];
    int rc = -1;
    out->n_cols = C;
    out->n_layers = 1;
    out->layer = calloc((size_t)C * C + 1, 1);
    L.adj = calloc((size_t)max_layers * g->n_ports + 1, sizeof *L.adj);
    L.stamp = calloc((size_t)g->n_ports + 1, sizeof *L.stamp);
    L.stack = malloc(((size_t)g->n_ports + 1) * sizeof *L.stack);
    if (!out->layer || !L.adj || !L.stamp || !L.stack) {
        snprintf(err, errlen, "out of memory assigning %s's layers", engine);
        goto out;
    }
    for (uint32_t a = 0; a < C; a++)
        for (uint32_t b = a + 1; b < C; b++) {
            int n1 = path_channels(g, t, t->root[a], b, there, 128);
            int n2 = path_channels(g, t, t->root[b], a, back, 128);
            if (n1 < 0 || n2 < 0)
                continue; /* unreachable: no flow can use it */
            int layer = 0;
            for (; layer < max_layers; layer++) {
                int ok = 1;
                L.n_added = 0;
                for (int i = 0; ok == 1 && i + 1 < n1; i++)
                    ok = add_edge(&L, layer, there[i], there[i + 1]);
                for (int i = 0; ok == 1 && i + 1 < n2; i++)
                    ok = add_edge(&L, layer, back[i], back[i + 1]);
                if (ok < 0) {
                    snprintf(err, errlen, "out of memory assigning %s's layers", engine);
                    goto out;
                }
                if (ok)
                    break;
                take_back(&L, layer);
            }
            if (layer == max_layers) {
                snprintf(err, errlen, "the paths between %s and %s", g->nodes[t->root[a]].name,
                         g->nodes[t->root[b]].name);
                rc = 1;
                goto out;
            }
            out->layer[(size_t)a * C + b] = out->layer[(size_t)b * C + a] = (uint8_t)layer;
            if (layer + 1 > out->n_layers)
                out->n_layers = layer + 1;
        }
    rc = 0;
out:
    for (size_t i = 0; L.adj && i < (size_t)max_layers * g->n_ports; i++)
        free(L.adj[i].succ);
    free(L.adj);
    free(L.stamp);
    free(L.stack);
    if (rc)
        sm_layers_free(out);
    return rc;
}
