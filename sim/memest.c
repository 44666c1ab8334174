/* memest — topology sizes from the scenario alone (see memest.h). */
#include "sim/memest.h"
#include "sim/mem.h"

#include <stdlib.h>

struct memest_counts memest_topology(const struct scn_topology *t, double hosts)
{
    struct memest_counts c = {hosts, 0, 0, hosts, 0};
    switch (t->type) {
    case SCN_TOPO_STAR:
        c.switches = 1;
        c.links = hosts;
        c.columns = 1;
        break;
    case SCN_TOPO_DUMBBELL:
        c.switches = 2;
        c.links = hosts + 1;
        c.columns = 2;
        break;
    case SCN_TOPO_LEAF_SPINE:
        c.switches = (double)t->leaves + t->spines;
        c.links = hosts + (double)t->leaves * t->spines;
        c.columns = t->leaves;
        break;
    case SCN_TOPO_FAT_TREE: {
        /* Given by k, the generalized shape may not be filled in yet (the loader refuses before it is). */
        double half = t->k / 2.0;
        double pods = t->k ? t->k : t->pods, tors = t->k ? half : t->tors_per_pod;
        double aggs = t->k ? half : t->aggs_per_pod, cores = t->k ? half * half : t->cores;
        c.switches = pods * (tors + aggs) + cores;
        c.links = hosts + pods * tors * aggs + cores * pods;
        c.columns = pods * tors;
        break;
    }
    case SCN_TOPO_DRAGONFLY: {
        double a = t->df_a, g = t->df_g, h = t->df_h;
        c.switches = a * g;
        c.links = hosts + g * a * (a - 1) / 2 + g * a * h / 2;
        c.columns = a * g;
        break;
    }
    case SCN_TOPO_CUSTOM:
        /* Hosts with one link are grouped by their switch, others are columns of their own: at most hosts. */
        c.switches = (double)t->n_nodes - hosts;
        c.links = t->n_links;
        c.columns = hosts;
        break;
    }
    c.routing_bytes = (hosts + c.switches) * c.columns * 4 + hosts * 12;
    return c;
}

void memest_host_rates(const struct scn_topology *t, double *rate)
{
    const struct scn_link *l = t->type == SCN_TOPO_STAR || t->type == SCN_TOPO_DUMBBELL || t->host_link.rate_bps <= 0
                                   ? &t->link : &t->host_link;
    if (t->type != SCN_TOPO_CUSTOM) {
        for (int h = 0; h < t->n_hosts; h++)
            rate[h] = (double)l->rate_bps;
        return;
    }
    int *host_of = mem_xcalloc((size_t)t->n_nodes, sizeof *host_of, "estimating the memory a run needs");
    for (int i = 0; i < t->n_nodes; i++)
        host_of[i] = -1;
    for (int h = 0; h < t->n_hosts; h++) {
        rate[h] = 0;
        host_of[t->host_node[h]] = h;
    }
    for (int i = 0; i < t->n_links; i++) {
        const struct scn_custom_link *c = &t->links[i];
        int ends[2] = {c->a, c->b};
        for (int j = 0; j < 2; j++)
            if (ends[j] >= 0 && ends[j] < t->n_nodes && host_of[ends[j]] >= 0 && rate[host_of[ends[j]]] == 0)
                rate[host_of[ends[j]]] = (double)c->link.rate_bps;
    }
    free(host_of);
}
