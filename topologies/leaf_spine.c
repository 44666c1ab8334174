/*
 * leaf-spine — the two-tier folded Clos of today's data centers: hosts_per_leaf hosts on each leaf, every
 * leaf linked to every spine.  Nodes: hosts, leaf0.., spine0..; a leaf's ports are its hosts then every spine
 * in order.
 */
#include "topologies/leaf_spine.h"

#include <cjson/cJSON.h>

#include "topologies/topo.h"

/* A tier's link: its own, else the object's "link". */
static int leaf_spine_class(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return scn_topo_link_class(c, f, v, p, base, &((const struct topo_leaf_spine *)base)->link);
}

static const struct setting leaf_spine_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("leaves", struct topo_leaf_spine, leaves, 1, SCN_MAX_COUNT, NULL, "Leaf switches, leaf0.."),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_INT("spines", struct topo_leaf_spine, spines, 1, SCN_MAX_COUNT, NULL, "Spine switches, each linked to "
             "every leaf"), .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_INT("hosts_per_leaf", struct topo_leaf_spine, hosts_per_leaf, 1, SCN_MAX_COUNT, NULL, "Hosts on each "
             "leaf"), .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    /* Not dumped: the tiers' links say it all. */
    {SET_TOPO_LINK_HOOKS("link", struct topo_leaf_spine, link, 0, scn_topo_link_parse, NULL,
                         "Both tiers' link, unless given apart")},
    {SET_TOPO_LINK_HOOKS("host_link", struct topo_leaf_spine, host_link, SETTING_ALWAYS, leaf_spine_class,
                         scn_topo_link_dump, "Host to leaf")},
    {SET_TOPO_LINK_HOOKS("fabric_link", struct topo_leaf_spine, fabric_link, SETTING_ALWAYS, leaf_spine_class,
                         scn_topo_link_dump, "Leaf to spine")},
    {0},
};
static const struct setting_group leaf_spine_group = {.path = "topology", .fields = leaf_spine_fields};

static int leaf_spine_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                            const char **formula)
{
    const struct topo_leaf_spine *t = cfg;
    if (settings_parse(c, &leaf_spine_group, obj, path, cfg) < 0)
        return -1;
    *hosts = scn_mul_sat(t->leaves, t->hosts_per_leaf);
    *formula = " (leaves x hosts_per_leaf)";
    return 0;
}

static void leaf_spine_dump(const void *cfg, cJSON *o)
{
    settings_dump(&leaf_spine_group, cfg, o);
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
