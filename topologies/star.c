/*
 * star — every host on one switch: nodes h0..h{n-1}, then s0; link i joins h{i} to s0, so s0's port i is
 * host i.  The smallest fabric with contention at a single egress port (incast).
 */
#include "topologies/star.h"

#include <cjson/cJSON.h>

#include "topologies/topo.h"

static const struct setting star_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("hosts", struct topo_star, hosts, 2, SCN_MAX_COUNT, NULL, "Hosts, h0..h{n-1}, all on switch s0"),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 2"},
    {SET_TOPO_LINK("link", struct topo_star, link, SETTING_REQUIRED, "Every host's link to s0")},
    {0},
};
static const struct setting_group star_group = {.path = "topology", .fields = star_fields};

static int star_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                      const char **formula)
{
    if (settings_parse(c, &star_group, obj, path, cfg) < 0)
        return -1;
    *hosts = ((const struct topo_star *)cfg)->hosts;
    return 0;
}

static void star_dump(const void *cfg, cJSON *o)
{
    settings_dump(&star_group, cfg, o);
}

static void star_size(const void *cfg, double hosts, struct memest_counts *c)
{
    c->switches = 1;
    c->links = hosts;
    c->columns = 1;
}

static void star_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_star *t = cfg;
    for (int h = 0; h < n_hosts; h++)
        rate[h] = (double)t->link.rate_bps;
}

static int star_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_star *t = cfg;
    int rc = topo_need(s, err, errlen, "hosts", t->hosts, 1);
    if (rc || (rc = topo_check_size(s, err, errlen, (long long)t->hosts + 1)))
        return rc;
    uint32_t h0 = topo_add_hosts(g, t->hosts);
    uint32_t sw = graph_add_node(g, "s0", SCN_NODE_SWITCH);
    for (int i = 0; i < t->hosts; i++)
        graph_add_link(g, h0 + (uint32_t)i, sw, &t->link);
    return SCN_OK;
}

static const struct topo_ops star_ops = {
    .load = {.cfg_size = sizeof(struct topo_star), .parse = star_parse, .dump = star_dump, .size = star_size,
             .host_rates = star_host_rates},
    .build = star_build,
    .layout = TOPO_LAYOUT_TIERS,
};
MODULE_REGISTER(topo_kind, "star", &star_ops);
