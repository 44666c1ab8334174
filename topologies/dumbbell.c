/*
 * dumbbell — the classic congestion-control test bed: left hosts h0..h{left-1} on s0, right hosts on s1,
 * and s0-s1 the bottleneck, added last, so it is the last port of s0 and of s1.
 */
#include "topologies/dumbbell.h"

#include <cjson/cJSON.h>

#include "sim/memest.h"
#include "topologies/topo.h"

static int dumbbell_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                          const char **formula)
{
    static const char *const known[] = {"type", "left", "right", "link", "bottleneck", NULL};
    struct topo_dumbbell *t = cfg;
    if (setting_check_fields(c, obj, path, known) < 0 || scn_topo_count(c, obj, path, "left", 1, &t->left) < 0 ||
        scn_topo_count(c, obj, path, "right", 1, &t->right) < 0 ||
        scn_topo_need_link(c, obj, path, "link", false, NULL, &t->link) < 0 ||
        scn_topo_need_link(c, obj, path, "bottleneck", false, NULL, &t->bottleneck) < 0)
        return -1;
    *hosts = (int64_t)t->left + t->right;
    *formula = " (left + right)";
    return 0;
}

static void dumbbell_dump(const void *cfg, cJSON *o)
{
    const struct topo_dumbbell *t = cfg;
    cJSON_AddNumberToObject(o, "left", t->left);
    cJSON_AddNumberToObject(o, "right", t->right);
    scn_topo_dump_link(o, "link", &t->link);
    scn_topo_dump_link(o, "bottleneck", &t->bottleneck);
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
