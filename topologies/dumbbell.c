/*
 * dumbbell — the classic congestion-control test bed: left hosts h0..h{left-1} on s0, right hosts on s1,
 * and s0-s1 the bottleneck, added last, so it is the last port of s0 and of s1.
 */
#include "topologies/dumbbell.h"

#include <cjson/cJSON.h>

#include "topologies/topo.h"

static const struct setting dumbbell_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("left", struct topo_dumbbell, left, 1, SCN_MAX_COUNT, NULL, "Hosts on s0, h0..h{left-1}"),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_INT("right", struct topo_dumbbell, right, 1, SCN_MAX_COUNT, NULL, "Hosts on s1, after the left ones"),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_TOPO_LINK("link", struct topo_dumbbell, link, SETTING_REQUIRED, "Every host's link to its switch")},
    {SET_TOPO_LINK("bottleneck", struct topo_dumbbell, bottleneck, SETTING_REQUIRED, "The link s0-s1")},
    {0},
};
static const struct setting_group dumbbell_group = {.path = "topology", .fields = dumbbell_fields};

static int dumbbell_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                          const char **formula)
{
    const struct topo_dumbbell *t = cfg;
    if (settings_parse(c, &dumbbell_group, obj, path, cfg) < 0)
        return -1;
    *hosts = (int64_t)t->left + t->right;
    *formula = " (left + right)";
    return 0;
}

static void dumbbell_dump(const void *cfg, cJSON *o)
{
    settings_dump(&dumbbell_group, cfg, o);
}

static void dumbbell_size(const void *cfg, double hosts, struct memest_counts *c)
{
    c->switches = 2;
    c->links = hosts + 1;
    c->columns = 2;
}

static void dumbbell_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_dumbbell *t = cfg;
    for (int h = 0; h < n_hosts; h++)
        rate[h] = (double)t->link.rate_bps;
}

static int dumbbell_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_dumbbell *t = cfg;
    int rc;
    if ((rc = topo_need(s, err, errlen, "left", t->left, 1)) || (rc = topo_need(s, err, errlen, "right", t->right, 1)) ||
        (rc = topo_check_size(s, err, errlen, (long long)t->left + t->right + 2)))
        return rc;
    int n = t->left + t->right;
    uint32_t h0 = topo_add_hosts(g, n);
    uint32_t s0 = graph_add_node(g, "s0", SCN_NODE_SWITCH);
    uint32_t s1 = graph_add_node(g, "s1", SCN_NODE_SWITCH);
    for (int i = 0; i < n; i++)
        graph_add_link(g, h0 + (uint32_t)i, i < t->left ? s0 : s1, &t->link);
    graph_add_link(g, s0, s1, &t->bottleneck);
    return SCN_OK;
}

static const struct topo_ops dumbbell_ops = {
    .load = {.cfg_size = sizeof(struct topo_dumbbell), .parse = dumbbell_parse, .dump = dumbbell_dump,
             .size = dumbbell_size, .host_rates = dumbbell_host_rates},
    .build = dumbbell_build,
    .layout = TOPO_LAYOUT_TIERS,
};
MODULE_REGISTER(topo_kind, "dumbbell", &dumbbell_ops);
