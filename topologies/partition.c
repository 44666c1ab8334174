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

/* unit[node]: groups for a dragonfly, else components without the top tier (partition.h); returns the count,
 * or 0 when out of memory. */
static uint32_t find_units(const struct graph *g, uint32_t *unit)
{
    bool grouped = false;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        grouped |= g->nodes[n].group >= 0;
    uint32_t n_units = 0;
    if (grouped) {
        int32_t max_group = -1;
        for (uint32_t n = 0; n < g->n_nodes; n++)
            if (g->nodes[n].group > max_group)
                max_group = g->nodes[n].group;
        n_units = (uint32_t)max_group + 1;
        for (uint32_t n = 0; n < g->n_nodes; n++)
            unit[n] = g->nodes[n].group >= 0 ? (uint32_t)g->nodes[n].group : n_units++;
        return n_units;
    }
    uint32_t *d = graph_host_distance(g);
    uint32_t *q = malloc(sizeof *q * (g->n_nodes ? g->n_nodes : 1));
    if (!d || !q) {
        free(d);
        free(q);
        return 0;
    }
    /* the top tier, when there are switches below it */
    uint32_t top = 0, low = UINT32_MAX;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        if (g->nodes[n].kind != SCN_NODE_HOST && d[n] != UINT32_MAX) {
            top = d[n] > top ? d[n] : top;
            low = d[n] < low ? d[n] : low;
        }
    bool cut_top = low != UINT32_MAX && top > low;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        unit[n] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_nodes; s++) {
        if (unit[s] != UINT32_MAX)
            continue;
        uint32_t u = n_units++;
        unit[s] = u;
        if (cut_top && g->nodes[s].kind != SCN_NODE_HOST && d[s] == top)
            continue; /* a top-tier switch is a unit of its own */
        uint32_t head = 0, tail = 0;
        q[tail++] = s;
        while (head < tail) {
            const struct g_node *x = &g->nodes[q[head++]];
            for (uint32_t i = 0; i < x->n_ports; i++) {
                uint32_t m = g->ports[g->ports[x->first_port + i].peer].node;
                if (unit[m] != UINT32_MAX || (cut_top && g->nodes[m].kind != SCN_NODE_HOST && d[m] == top))
                    continue;
                unit[m] = u;
                q[tail++] = m;
            }
        }
    }
    free(d);
    free(q);
    return n_units;
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

int partition_plan(const struct graph *g, const uint64_t *port_tx, int n_parts, struct partition_plan *p)
{
    memset(p, 0, sizeof *p);
    if (n_parts < 1 || n_parts > PARTITION_MAX)
        return -1;
    size_t nn = g->n_nodes ? g->n_nodes : 1;
    uint32_t *unit = malloc(sizeof *unit * nn);
    double *node_load = calloc(nn, sizeof *node_load);
    struct unit_load *ul = calloc(nn, sizeof *ul);
    p->part = malloc(sizeof *p->part * nn);
    uint32_t n_units = unit && node_load && ul && p->part ? find_units(g, unit) : 0;
    uint32_t *unit_part = n_units ? malloc(sizeof *unit_part * n_units) : NULL;
    if (!unit_part) {
        free(unit);
        free(node_load);
        free(ul);
        partition_free(p);
        return -1;
    }
    p->n_parts = n_parts;
    p->n_units = n_units;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        const struct g_node *x = &g->nodes[n];
        if (!port_tx) {
            node_load[n] = 1;
            continue;
        }
        for (uint32_t i = 0; i < x->n_ports; i++) {
            uint32_t gp = x->first_port + i;
            node_load[n] += (double)port_tx[gp] + (double)port_tx[g->ports[gp].peer];
        }
    }
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
    free(node_load);
    free(ul);
    free(unit_part);
    return 0;
}

void partition_free(struct partition_plan *p)
{
    free(p->part);
    p->part = NULL;
}
