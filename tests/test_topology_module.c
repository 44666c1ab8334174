/*
 * A topology registered from a test file alone: `line`, n switches in a row s0 - s1 - ... with one host on
 * each.  Nothing outside this file knows its name: the loader takes "type": "line" through the registry, and
 * a run, the memory estimate, the live view's layout and `rocesim topo`'s JSON printer all work from its hooks.
 */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "models/route.h"
#include "tools/live/live.h"
#include "tools/run/run.h"
#include "topologies/topo.h"

struct topo_line {
    int switches;
    struct scn_link link;
};

/* Its settings are a table (sim/settings.h) like any module's; "type" is the loader's. */
static const struct setting line_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("switches", struct topo_line, switches, 2, SCN_MAX_COUNT, NULL, "Switches in the line, one host each"),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 2"},
    {SET_TOPO_LINK("link", struct topo_line, link, SETTING_REQUIRED, "Every link")},
    {0},
};
static const struct setting_group line_group = {.path = "topology", .fields = line_fields};

static int line_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                      const char **formula)
{
    if (settings_parse(c, &line_group, obj, path, cfg) < 0)
        return -1;
    *hosts = ((const struct topo_line *)cfg)->switches;
    *formula = " (one per switch)";
    return 0;
}

static void line_dump(const void *cfg, cJSON *o)
{
    settings_dump(&line_group, cfg, o);
}

static void line_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_line *t = cfg;
    c->switches = t->switches;
    c->links = hosts + t->switches - 1;
    c->columns = t->switches;
}

static void line_host_rates(const void *cfg, int n_hosts, double *rate)
{
    for (int h = 0; h < n_hosts; h++)
        rate[h] = (double)((const struct topo_line *)cfg)->link.rate_bps;
}

static int line_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_line *t = cfg;
    uint32_t h0 = topo_add_hosts(g, t->switches), s0 = g->n_nodes;
    for (int i = 0; i < t->switches; i++)
        topo_add_named(g, "s", i, SCN_NODE_SWITCH);
    for (int i = 0; i < t->switches; i++)
        graph_add_link(g, h0 + (uint32_t)i, s0 + (uint32_t)i, &t->link);
    for (int i = 0; i + 1 < t->switches; i++)
        graph_add_link(g, s0 + (uint32_t)i, s0 + (uint32_t)i + 1, &t->link);
    return SCN_OK;
}

static void line_label(const void *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "line of %d", ((const struct topo_line *)cfg)->switches);
}

static const struct topo_ops line_ops = {
    .load = {.cfg_size = sizeof(struct topo_line), .parse = line_parse, .dump = line_dump, .size = line_size,
             .host_rates = line_host_rates},
    .build = line_build,
    .layout = TOPO_LAYOUT_TIERS,
    .label = line_label,
};
MODULE_REGISTER(topo_kind, "line", &line_ops);

#define LINE(n, traffic)                                                                                          \
    "{\"topology\": {\"type\": \"line\", \"switches\": " #n ", \"link\": {\"rate\": \"100Gbps\", \"delay\": "       \
    "\"1us\"}}, \"host\": {\"cc\": \"none\"}, \"switch\": {\"ecn\": {\"enabled\": false}}, \"stop\": \"1ms\", "   \
    "\"traffic\": [" traffic "]}"

/*
 * One frame of 1000 B (1082 B on the wire: 86,560 ps at 100 Gbps) from h0 to h3 on a line of 4: five links
 * (h0-s0, s0-s1, s1-s2, s2-s3, s3-h3) of 86,560 ps + 1 us each, 5,432,800 ps, both ideal and as it runs on
 * the empty network; every flow's path is its hosts' distance along the line plus the two host links.
 */
static void test_line_runs(void)
{
    static const char json[] = LINE(4, "{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h0\", \"dst\": \"h3\", "
                                       "\"size\": \"1000B\"}, {\"type\": \"flow\", \"id\": \"g\", \"src\": \"h2\", "
                                       "\"dst\": \"h1\", \"size\": \"1000B\", \"start\": \"20us\"}");
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    CU_ASSERT_STRING_EQUAL(scn_topo_name(&scn), "line");
    CU_ASSERT_EQUAL(scn.topo.n_hosts, 4);
    CU_ASSERT_EQUAL(r.g.n_nodes, 8);
    CU_ASSERT_EQUAL(r.g.n_links, 7);
    uint32_t nodes[16];
    CU_ASSERT_EQUAL(route_flow_path(&r.net, net_flow(&r.net, 0), nodes, 16), 5);
    CU_ASSERT_EQUAL(route_flow_path(&r.net, net_flow(&r.net, 1), nodes, 16), 3);
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_EQUAL(f->ideal_fct, 5432800);
    test_run_checked(&r);
    CU_ASSERT_EQUAL(f->finish, 5432800);
    CU_ASSERT_EQUAL(net_flow(&r.net, 1)->finish - 20000000, 3 * (86560 + 1000000));
    char label[64];
    topo_label(&scn, label, sizeof label);
    CU_ASSERT_STRING_EQUAL(label, "line of 4");
    test_teardown(&scn, &r);
}

/* The loader's messages name the module's fields, and the type's list of names has "line" among them. */
static void test_line_errors(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX];
    const char bad_count[] = "{\"topology\": {\"type\": \"line\", \"switches\": 1, \"link\": {\"rate\": \"1Gbps\"}}}";
    CU_ASSERT_EQUAL(scn_load_text("t.json", bad_count, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.switches: expected an integer from 2 to 1000000, got 1");
    const char unknown[] = "{\"topology\": {\"type\": \"lines\"}}";
    CU_ASSERT_EQUAL(scn_load_text("t.json", unknown, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"line\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "got \"lines\""));
}

/* The memory estimate, the dump, `rocesim topo`'s JSON and the live view's layout, from the hooks alone. */
static void test_line_views(void)
{
    static const char json[] = LINE(5, "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"1KB\"}");
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    struct memest_counts mc = memest_topology(&scn, scn.topo.n_hosts);
    CU_ASSERT_EQUAL(mc.hosts, 5);
    CU_ASSERT_EQUAL(mc.switches, 5);
    CU_ASSERT_EQUAL(mc.links, r.g.n_links);
    CU_ASSERT_EQUAL(mc.routing_bytes, (5 + 5) * 5 * 4 + 5 * 12);

    char *dump = scn_to_json(&scn);
    cJSON *d = cJSON_Parse(dump), *dt = cJSON_GetObjectItem(d, "topology");
    free(dump);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(dt, "type")->valuestring, "line");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(dt, "switches")->valueint, 5);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(dt, "link"), "rate")->valuestring, "100Gbps");
    cJSON_Delete(d);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    topo_write_json(f, &r.g); /* what `rocesim topo --format json` prints */
    fclose(f);
    cJSON *t = cJSON_Parse(buf);
    free(buf);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(t, "nodes")), 10);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(t, "links")), 9);
    cJSON_Delete(t);

    char *live = live_topology_json(&scn, &r.g, &len);
    t = cJSON_Parse(live);
    free(live);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(t, "kind")->valuestring, "line");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(t, "layout")->valuestring, "tiers");
    const cJSON *nodes = cJSON_GetObjectItem(t, "nodes");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 0), "tier")->valueint, 0); /* h0 */
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 5), "tier")->valueint, 1); /* s0 */
    cJSON_Delete(t);
    test_teardown(&scn, &r);
}

void test_topology_module_register(void)
{
    CU_pSuite s = CU_add_suite("topology_module", NULL, NULL);
    CU_add_test(s, "a line registered from a test file: one frame end to end in its ideal FCT, paths by distance",
                test_line_runs);
    CU_add_test(s, "a line's settings errors, and the type's list of names", test_line_errors);
    CU_add_test(s, "a line's memory estimate, dump, topo JSON and live layout", test_line_views);
}
