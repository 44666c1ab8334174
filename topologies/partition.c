/*
 * partition — cutting a network into partitions by its locality, balanced by load (partition.h).  The units
 * are dealt by the longest-processing-time rule (Graham, "Bounds on multiprocessing timing anomalies", SIAM
 * J. Appl. Math. 1969): each unit, largest first, to the least loaded partition, which keeps the largest
 * partition within 4/3 of the best possible for equal machines.
 */
#include "topologies/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A switch at hop distance `top` from the hosts: where a flood stops (top UINT32_MAX: nowhere). */
static inline bool at_top(const struct graph *g, const uint32_t *d, uint32_t n, uint32_t top)
{
    return top != UINT32_MAX && g->nodes[n].kind != SCN_NODE_HOST && d[n] == top;
}

/* Gives unit v to node s and to every node of no unit yet (UINT32_MAX) that it reaches without passing a switch
 * at_top; a switch at_top is a unit of its own.  q is scratch of g->n_nodes entries. */
static void flood(const struct graph *g, const uint32_t *d, uint32_t top, uint32_t *unit, uint32_t s, uint32_t v,
                  uint32_t *q)
{
    unit[s] = v;
    if (at_top(g, d, s, top))
        return;
    uint32_t head = 0, tail = 0;
    q[tail++] = s;
    while (head < tail) {
        const struct g_node *x = &g->nodes[q[head++]];
        for (uint32_t i = 0; i < x->n_ports; i++) {
            uint32_t m = g->ports[g->ports[x->first_port + i].peer].node;
            if (unit[m] != UINT32_MAX || at_top(g, d, m, top))
                continue;
            unit[m] = v;
            q[tail++] = m;
        }
    }
}

/* unit[node]: groups for a dragonfly, else components without the top tier (partition.h), from d, the nodes'
 * hops to the nearest host; returns the count.  *grouped says which.  q is scratch of g->n_nodes entries. */
static uint32_t find_units(const struct graph *g, const uint32_t *d, uint32_t *unit, bool *grouped, uint32_t *q)
{
    *grouped = false;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        *grouped |= g->nodes[n].group >= 0;
    uint32_t n_units = 0;
    if (*grouped) {
        int32_t max_group = -1;
        for (uint32_t n = 0; n < g->n_nodes; n++)
            if (g->nodes[n].group > max_group)
                max_group = g->nodes[n].group;
        n_units = (uint32_t)max_group + 1;
        for (uint32_t n = 0; n < g->n_nodes; n++)
            unit[n] = g->nodes[n].group >= 0 ? (uint32_t)g->nodes[n].group : n_units++;
        return n_units;
    }
    /* the top tier, when there are switches below it */
    uint32_t top = 0, low = UINT32_MAX;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        if (g->nodes[n].kind != SCN_NODE_HOST && d[n] != UINT32_MAX) {
            top = d[n] > top ? d[n] : top;
            low = d[n] < low ? d[n] : low;
        }
    if (low == UINT32_MAX || top == low)
        top = UINT32_MAX; /* one tier of switches: nothing to cut at */
    for (uint32_t n = 0; n < g->n_nodes; n++)
        unit[n] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_nodes; s++)
        if (unit[s] == UINT32_MAX)
            flood(g, d, top, unit, s, n_units++, q);
    return n_units;
}

/*
 * Splits unit u the way the network was split into units, one tier lower: without the unit's own highest
 * switches (a pod without its aggregation switches leaves its ToRs, each with its hosts, and each aggregation
 * switch a unit of its own).  A unit whose highest switches are next to hosts is not split (a host stays with
 * its switch).  The new units are numbered from *n_units on, the first keeps u, all in u's partition; returns
 * whether u was split.  q is scratch of g->n_nodes entries.
 */
static bool split_unit(const struct graph *g, const uint32_t *d, uint32_t *unit, uint32_t u, uint32_t *n_units,
                       uint32_t *unit_part, uint32_t *q)
{
    uint32_t top = 0;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        if (unit[n] == u && g->nodes[n].kind != SCN_NODE_HOST && d[n] != UINT32_MAX && d[n] > top)
            top = d[n];
    if (top < 2)
        return false;
    /* u's nodes become free (UINT32_MAX) and are flooded anew, each piece a unit */
    for (uint32_t n = 0; n < g->n_nodes; n++)
        if (unit[n] == u)
            unit[n] = UINT32_MAX;
    uint32_t from = unit_part[u];
    bool first = true;
    for (uint32_t s = 0; s < g->n_nodes; s++) {
        if (unit[s] != UINT32_MAX)
            continue;
        uint32_t v = first ? u : (*n_units)++;
        first = false;
        unit_part[v] = from;
        flood(g, d, top, unit, s, v, q);
    }
    return true;
}

struct unit_load {
    uint32_t unit;
    double load;
};

static int by_load_desc(const void *a, const void *b)
{
    const struct unit_load *x = a, *y = b;
    if (x->load != y->load)
        return x->load < y->load ? 1 : -1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

/* The smallest delay of a link between partitions, nodes dealt as unit_part[unit[node]]. */
static int64_t cut_lookahead(const struct graph *g, const uint32_t *unit, const uint32_t *unit_part)
{
    int64_t min = INT64_MAX;
    for (uint32_t l = 0; l < g->n_links; l++) {
        const struct g_link *k = &g->links[l];
        if (unit_part[unit[k->a]] != unit_part[unit[k->b]] && g->ports[k->port_a].delay_ps < min)
            min = g->ports[k->port_a].delay_ps;
    }
    return min;
}

/* What rebalance works on: the plan's arrays and its scratch. */
struct plan_work {
    const struct graph *g;
    const uint32_t *d;         /* hops to the nearest host */
    const double *node_load;
    uint32_t *unit, *unit_part, *saved, *q;
    const bool *whole;         /* per unit: joins tied hosts, never split */
    struct unit_load *ul;
    uint32_t n_units;
    int n_parts;
    double *load, total;
};

/* Moves the pieces of a split unit (u and the units from `first` on) from partition h to l, heaviest first, each
 * while it lowers the larger of the two loads; returns how many moved. */
static int move_pieces(struct plan_work *w, uint32_t u, uint32_t first, int h, int l)
{
    uint32_t m = 0;
    for (uint32_t v = first; v <= w->n_units; v++)
        w->ul[m++] = (struct unit_load){v == w->n_units ? u : v, 0};
    for (uint32_t n = 0; n < w->g->n_nodes; n++)
        for (uint32_t i = 0; i < m; i++)
            if (w->unit[n] == w->ul[i].unit)
                w->ul[i].load += w->node_load[n];
    qsort(w->ul, m, sizeof *w->ul, by_load_desc);
    int moved = 0;
    for (uint32_t i = 0; i < m; i++) {
        double x = w->ul[i].load, before = w->load[h] > w->load[l] ? w->load[h] : w->load[l];
        double after = w->load[h] - x > w->load[l] + x ? w->load[h] - x : w->load[l] + x;
        if (after >= before)
            continue;
        w->unit_part[w->ul[i].unit] = (uint32_t)l;
        w->load[h] -= x;
        w->load[l] += x;
        moved++;
    }
    return moved;
}

/*
 * Whole units can leave the heaviest partition well above an even share (the HPCC paper's fabric on two
 * partitions: three of its five pods against two and the sixteen core switches).  While it is more than
 * PARTITION_SPLIT_TOL above, the heaviest partition's heaviest unit that splits (split_unit) is split, and of
 * its pieces, heaviest first, those that lower the larger load move to the lightest partition; the other units
 * stay where they were dealt, so the cut's other links stay too.  A split that helps nothing, or would let the
 * partitions meet more often (a smaller lookahead), is undone and ends it.
 */
static void rebalance(struct plan_work *w)
{
    const struct graph *g = w->g;
    int64_t look = cut_lookahead(g, w->unit, w->unit_part);
    for (uint32_t round = 0; w->n_parts > 1 && round < g->n_nodes; round++) {
        int h = 0, l = 0;
        for (int k = 1; k < w->n_parts; k++) {
            h = w->load[k] > w->load[h] ? k : h;
            l = w->load[k] < w->load[l] ? k : l;
        }
        if (w->load[h] <= w->total / w->n_parts * (1 + PARTITION_SPLIT_TOL))
            return;
        for (uint32_t u = 0; u < w->n_units; u++)
            w->ul[u] = (struct unit_load){u, 0};
        for (uint32_t n = 0; n < g->n_nodes; n++)
            w->ul[w->unit[n]].load += w->node_load[n];
        qsort(w->ul, w->n_units, sizeof *w->ul, by_load_desc);
        memcpy(w->saved, w->unit, sizeof *w->unit * g->n_nodes);
        uint32_t n = w->n_units, u = UINT32_MAX;
        for (uint32_t i = 0; i < w->n_units && u == UINT32_MAX; i++)
            if (w->unit_part[w->ul[i].unit] == (uint32_t)h && !w->whole[w->ul[i].unit] &&
                split_unit(g, w->d, w->unit, w->ul[i].unit, &n, w->unit_part, w->q))
                u = w->ul[i].unit;
        if (u == UINT32_MAX)
            return;
        double before[PARTITION_MAX];
        memcpy(before, w->load, sizeof before[0] * (size_t)w->n_parts);
        uint32_t first = w->n_units;
        w->n_units = n;
        if (!move_pieces(w, u, first, h, l) || cut_lookahead(g, w->unit, w->unit_part) < look) {
            memcpy(w->unit, w->saved, sizeof *w->unit * g->n_nodes);
            memcpy(w->load, before, sizeof before[0] * (size_t)w->n_parts);
            w->unit_part[u] = (uint32_t)h;
            w->n_units = first;
            return;
        }
    }
}

/* The root of unit u among the merged (path halving). */
static uint32_t root(uint32_t *up, uint32_t u)
{
    while (up[u] != u)
        u = up[u] = up[up[u]];
    return u;
}

/* Merges the units of tied hosts into one each, numbers the units 0.. anew in the order of their lowest old number,
 * and marks the merged ones whole; returns the count.  up and num are scratch of n_units entries. */
static uint32_t tie_units(const struct graph *g, uint32_t *unit, uint32_t n_units, const uint32_t (*ties)[2],
                          uint32_t n_ties, bool *whole, uint32_t *up, uint32_t *num)
{
    for (uint32_t u = 0; u < n_units; u++)
        up[u] = u, whole[u] = false;
    for (uint32_t i = 0; i < n_ties; i++) {
        uint32_t a = root(up, unit[g->host_node[ties[i][0]]]), b = root(up, unit[g->host_node[ties[i][1]]]);
        if (a == b)
            continue;
        uint32_t lo = a < b ? a : b;
        up[a + b - lo] = lo;
        whole[lo] = true;
    }
    uint32_t m = 0;
    for (uint32_t u = 0; u < n_units; u++)
        if (root(up, u) == u) {
            num[u] = m;
            whole[m++] = whole[u]; /* m <= u: an entry not read again */
        }
    for (uint32_t n = 0; n < g->n_nodes; n++)
        unit[n] = num[root(up, unit[n])];
    return m;
}

int partition_plan(const struct graph *g, const uint64_t *port_tx, int n_parts, struct partition_plan *p)
{
    return partition_plan_tied(g, port_tx, n_parts, NULL, 0, p);
}

/* Each node's load: the frames its ports carried both ways in a run (port_tx), or without one its ports' count,
 * since a node handles what each of them carries. */
static void node_loads(const struct graph *g, const uint64_t *port_tx, double *node_load)
{
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        const struct g_node *x = &g->nodes[n];
        if (!port_tx) {
            node_load[n] = x->n_ports ? x->n_ports : 1;
            continue;
        }
        for (uint32_t i = 0; i < x->n_ports; i++) {
            uint32_t gp = x->first_port + i;
            node_load[n] += (double)port_tx[gp] + (double)port_tx[g->ports[gp].peer];
        }
    }
}

int partition_plan_tied(const struct graph *g, const uint64_t *port_tx, int n_parts, const uint32_t (*ties)[2],
                        uint32_t n_ties, struct partition_plan *p)
{
    memset(p, 0, sizeof *p);
    if (n_parts < 1 || n_parts > PARTITION_MAX)
        return -1;
    size_t nn = g->n_nodes ? g->n_nodes : 1;
    uint32_t *unit = malloc(sizeof *unit * nn), *d = graph_host_distance(g);
    uint32_t *saved = malloc(sizeof *saved * nn), *q = malloc(sizeof *q * nn);
    double *node_load = calloc(nn, sizeof *node_load);
    struct unit_load *ul = calloc(nn, sizeof *ul);
    p->part = malloc(sizeof *p->part * nn);
    bool grouped = false;
    bool ok = unit && d && saved && q && node_load && ul && p->part;
    uint32_t n_units = ok ? find_units(g, d, unit, &grouped, q) : 0;
    uint32_t *unit_part = n_units ? malloc(sizeof *unit_part * nn) : NULL; /* splits add units, never past nn */
    bool *whole = calloc(nn, sizeof *whole);
    if (!unit_part || !whole) {
        free(unit_part);
        free(whole);
        free(unit);
        free(d);
        free(saved);
        free(q);
        free(node_load);
        free(ul);
        partition_free(p);
        return -1;
    }
    if (n_ties)
        n_units = tie_units(g, unit, n_units, ties, n_ties, whole, saved, unit_part);
    p->n_parts = n_parts;
    node_loads(g, port_tx, node_load);
    for (uint32_t u = 0; u < n_units; u++)
        ul[u].unit = u;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        ul[unit[n]].load += node_load[n];
    qsort(ul, n_units, sizeof *ul, by_load_desc);
    for (uint32_t i = 0; i < n_units; i++) {
        int best = 0;
        for (int k = 1; k < n_parts; k++)
            if (p->load[k] < p->load[best])
                best = k;
        unit_part[ul[i].unit] = (uint32_t)best;
        p->load[best] += ul[i].load;
    }
    if (!grouped) {
        struct plan_work w = {g, d, node_load, unit, unit_part, saved, q, whole, ul, n_units, n_parts, p->load, 0};
        for (uint32_t n = 0; n < g->n_nodes; n++)
            w.total += node_load[n];
        rebalance(&w);
        n_units = w.n_units;
    }
    p->n_units = n_units;
    /* Partition 0, which the calling thread runs (sim/parallel.h) besides the run's own events between windows, is
     * the least loaded; then by load, ties in the order dealt. */
    int order[PARTITION_MAX], rank[PARTITION_MAX];
    double dealt[PARTITION_MAX];
    for (int k = 0; k < n_parts; k++)
        order[k] = k;
    for (int k = 1; k < n_parts; k++)
        for (int j = k; j > 0 && p->load[order[j]] < p->load[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int k = 0; k < n_parts; k++) {
        rank[order[k]] = k;
        dealt[k] = p->load[order[k]];
    }
    memcpy(p->load, dealt, sizeof dealt[0] * (size_t)n_parts);
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        p->part[n] = (uint32_t)rank[unit_part[unit[n]]];
        p->total += node_load[n];
    }
    double max = 0;
    for (int k = 0; k < n_parts; k++)
        max = p->load[k] > max ? p->load[k] : max;
    p->max_share = p->total > 0 ? max / p->total : 0;
    p->lookahead_ps = INT64_MAX;
    for (uint32_t l = 0; l < g->n_links; l++) {
        const struct g_link *k = &g->links[l];
        if (p->part[k->a] == p->part[k->b])
            continue;
        if (g->nodes[k->a].kind == SCN_NODE_HOST || g->nodes[k->b].kind == SCN_NODE_HOST) {
            /* a host and its switch read each other's ports (UGAL's choice, a NIC's watchdog check): every unit
             * keeps them together, so this is a bug in the cut */
            fprintf(stderr, "rocesim: bug: partition plan cuts host link %u\n", l);
            abort();
        }
        p->cut_links++;
        int64_t delay = g->ports[k->port_a].delay_ps;
        if (delay < p->lookahead_ps)
            p->lookahead_ps = delay;
    }
    if (port_tx) {
        double all = 0, cut = 0;
        for (uint32_t gp = 0; gp < g->n_ports; gp++) {
            all += (double)port_tx[gp];
            if (p->part[g->ports[gp].node] != p->part[g->ports[g->ports[gp].peer].node])
                cut += (double)port_tx[gp];
        }
        p->cut_share = all > 0 ? cut / all : 0;
    }
    free(unit);
    free(d);
    free(saved);
    free(q);
    free(node_load);
    free(ul);
    free(unit_part);
    free(whole);
    return 0;
}

void partition_free(struct partition_plan *p)
{
    free(p->part);
    p->part = NULL;
}
