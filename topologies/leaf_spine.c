/*
 * leaf-spine — the two-tier folded Clos of today's data centers: hosts_per_leaf hosts on each leaf, every
 * leaf linked to every spine.  Nodes: hosts, leaf0.., spine0..; a leaf's ports are its hosts then every spine
 * in order.
 */
#include "topologies/leaf_spine.h"

#include <cjson/cJSON.h>

#include "sim/memest.h"
#include "topologies/topo.h"

static int leaf_spine_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                            const char **formula)
{
    static const char *const known[] = {"type", "leaves", "spines", "hosts_per_leaf",
                                        "link", "host_link", "fabric_link", NULL};
    struct topo_leaf_spine *t = cfg;
    bool have_dflt = false;
    if (setting_check_fields(c, obj, path, known) < 0 ||
        scn_topo_count(c, obj, path, "leaves", 1, &t->leaves) < 0 ||
        scn_topo_count(c, obj, path, "spines", 1, &t->spines) < 0 ||
        scn_topo_count(c, obj, path, "hosts_per_leaf", 1, &t->hosts_per_leaf) < 0 ||
        scn_topo_link(c, obj, path, "link", &t->link, &have_dflt) < 0 ||
        scn_topo_need_link(c, obj, path, "host_link", have_dflt, &t->link, &t->host_link) < 0 ||
        scn_topo_need_link(c, obj, path, "fabric_link", have_dflt, &t->link, &t->fabric_link) < 0)
        return -1;
    *hosts = scn_mul_sat(t->leaves, t->hosts_per_leaf);
    *formula = " (leaves x hosts_per_leaf)";
    return 0;
}

static void leaf_spine_dump(const void *cfg, cJSON *o)
{
    const struct topo_leaf_spine *t = cfg;
    cJSON_AddNumberToObject(o, "leaves", t->leaves);
    cJSON_AddNumberToObject(o, "spines", t->spines);
    cJSON_AddNumberToObject(o, "hosts_per_leaf", t->hosts_per_leaf);
    scn_topo_dump_link(o, "host_link", &t->host_link);
    scn_topo_dump_link(o, "fabric_link", &t->fabric_link);
}

static void leaf_spine_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_leaf_spine *t = cfg;
    c->switches = (double)t->leaves + t->spines;
    c->links = hosts + (double)t->leaves * t->spines;
    c->columns = t->leaves;
}

static void leaf_spine_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_leaf_spine *t = cfg;
    const struct scn_link *l = topo_link_or(&t->host_link, &t->link);
    for (int h = 0; h < n_hosts; h++)
        rate[h] = (double)l->rate_bps;
}

static int leaf_spine_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_leaf_spine *t = cfg;
    int rc;
    if ((rc = topo_need(s, err, errlen, "leaves", t->leaves, 1)) ||
        (rc = topo_need(s, err, errlen, "spines", t->spines, 1)) ||
        (rc = topo_need(s, err, errlen, "hosts_per_leaf", t->hosts_per_leaf, 1)))
        return rc;
    long long n_hosts = (long long)t->leaves * t->hosts_per_leaf;
    if ((rc = topo_check_size(s, err, errlen, n_hosts + t->leaves + t->spines)))
        return rc;
    const struct scn_link *hl = topo_link_or(&t->host_link, &t->link), *fl = topo_link_or(&t->fabric_link, &t->link);
    uint32_t h0 = topo_add_hosts(g, (int)n_hosts);
    uint32_t leaf0 = g->n_nodes;
    for (int i = 0; i < t->leaves; i++)
        topo_add_named(g, "leaf", i, SCN_NODE_SWITCH);
    uint32_t spine0 = g->n_nodes;
    for (int j = 0; j < t->spines; j++)
        topo_add_named(g, "spine", j, SCN_NODE_SWITCH);
    for (long long n = 0; n < n_hosts; n++)
        graph_add_link(g, h0 + (uint32_t)n, leaf0 + (uint32_t)(n / t->hosts_per_leaf), hl);
    for (int i = 0; i < t->leaves; i++)
        for (int j = 0; j < t->spines; j++)
            graph_add_link(g, leaf0 + (uint32_t)i, spine0 + (uint32_t)j, fl);
    return SCN_OK;
}

static const struct topo_ops leaf_spine_ops = {
    .load = {.cfg_size = sizeof(struct topo_leaf_spine), .parse = leaf_spine_parse, .dump = leaf_spine_dump,
             .size = leaf_spine_size, .host_rates = leaf_spine_host_rates},
    .build = leaf_spine_build,
    .layout = TOPO_LAYOUT_TIERS,
};
MODULE_REGISTER(topo_kind, "leaf-spine", &leaf_spine_ops);
