/*
 * A kind of traffic from a test file alone: "constant" starts a flow of `size` bytes from `src` to `dst` every
 * size / rate, from the entry's start to the stop time (a constant-bit-rate source, the simplest open-loop
 * workload).  Its MODULE_REGISTER line is all that makes the loader accept "type": "constant", the run generate
 * its flows, and the monitor's "auto" sample and the memory estimate count them: nothing outside this file
 * knows its name.
 */
#include "tests/tests.h"
#include "models/traffic.h"
#include "sim/units.h"
#include "tools/run/limits.h"
#include "tools/run/monitor.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct constant_conf {
    int src, dst;
    int64_t rate_bps;
    int64_t size;
};

static const struct setting constant_fields[] = {
    {.name = "src", .kind = SETTING_CUSTOM, .offset = offsetof(struct constant_conf, src), .flags = SETTING_REQUIRED,
     .what = "a host name like \"h0\"", .help = "Sender", .parse = scn_parse_host, .dump = scn_dump_host},
    {.name = "dst", .kind = SETTING_CUSTOM, .offset = offsetof(struct constant_conf, dst), .flags = SETTING_REQUIRED,
     .what = "a host name like \"h0\"", .help = "Receiver", .parse = scn_parse_host, .dump = scn_dump_host},
    {SET_FIELD("rate", SETTING_RATE, struct constant_conf, rate_bps, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "Bytes per second, as flows of size"), .what = "a rate like \"100Gbps\""},
    {SET_FIELD("size", SETTING_SIZE, struct constant_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "Bytes of each flow"), .what = "a size like \"20KB\""},
    {0},
};

static const struct setting_group constant_group = {
    .path = "traffic.constant", .size = sizeof(struct constant_conf), .fields = constant_fields,
};

/* The entry's source: an event of the run, as every arrival that adds a flow (models/traffic.h). */
struct constant_src {
    struct traffic *t;
    const struct scn_traffic *e;
    const struct constant_conf *c;
    int64_t j;
    sim_time_t gap;
};

static sim_time_t constant_gap(const struct constant_conf *c)
{
    return (sim_time_t)((double)c->size * 8 * (double)PS_PER_S / (double)c->rate_bps);
}

static void constant_arrival(struct sim *s, void *obj, uint64_t arg)
{
    struct constant_src *g = obj;
    (void)arg;
    net_add_flow(g->t->net, traffic_name(g->t, g->e->id, g->j++), (uint32_t)g->c->src, (uint32_t)g->c->dst,
                 g->c->size, s->now, traffic_prio(g->t->net, g->e), 0, NULL, 0);
    sim_after(s, g->gap, constant_arrival, g, 0);
}

static int constant_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct scn_traffic *e = &t->net->scn->traffic[ti];
    struct constant_src *g = calloc(1, sizeof *g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    *g = (struct constant_src){.t = t, .e = e, .c = TRAFFIC_CONF(e, struct constant_conf)};
    g->gap = constant_gap(g->c);
    t->state[ti] = g;
    net_np(t->net)->pending_sources++; /* until the stop time */
    sim_at(net_sim(t->net), e->start_ps, constant_arrival, g, 0);
    return 0;
}

static void constant_release(struct traffic *t, int ti)
{
    free(t->state[ti]);
}

static long constant_numbered(const struct scn_traffic *e)
{
    (void)e;
    return -1;
}

/* One flow at the start and one per gap after it, before the stop time. */
static void constant_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                           struct traffic_count *out)
{
    const struct scn_traffic *e = &s->traffic[ti];
    const struct constant_conf *c = TRAFFIC_CONF(e, struct constant_conf);
    (void)host_rate, (void)t;
    int64_t span = s->stop_ps - e->start_ps;
    *out = (struct traffic_count){.generates = true, .mean_bytes = (double)c->size, .span_ps = span};
    if (span > 0)
        out->generated = (double)((span - 1) / constant_gap(c) + 1);
}

static int constant_senders(const struct scn_traffic *e, const int **hosts)
{
    *hosts = &TRAFFIC_CONF(e, struct constant_conf)->src;
    return 1;
}

static const struct traffic_ops constant_ops = {
    .scn = {.numbered = constant_numbered},
    .setup = constant_setup,
    .release = constant_release,
    .count = constant_count,
    .senders = constant_senders,
};

MODULE_REGISTER(traffic_kind, "constant", &constant_ops, &constant_group);

#define CONSTANT_JSON                                                                                              \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"   \
    " \"stop\": \"100us\", \"monitor\": {\"flows\": \"auto\"},"                                                    \
    " \"traffic\": [{\"type\": \"constant\", \"src\": \"h0\", \"dst\": \"h1\", \"rate\": \"10Gbps\","             \
    " \"size\": \"4KB\"}]}"

/* 100 us x 10 Gbit/s / 32 kbit = 31.25 gaps: flows at 0, 3.2 us, ..., 99.2 us. */
#define CONSTANT_FLOWS (100 * 10000 / 32000 + 1)

static void test_constant_runs(void)
{
    struct scenario scn;
    struct run r;
    struct monitor m;
    char err[SCN_ERR_MAX];
    CU_ASSERT_FATAL(test_setup(CONSTANT_JSON, NULL, NULL, &scn, &r));
    CU_ASSERT_STRING_EQUAL(scn_traffic_kind_name(&scn.traffic[0]), "constant");
    /* monitor.flows "auto" samples over the flows the kind says it will start */
    CU_ASSERT_EQUAL_FATAL(monitor_open(&m, &r, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(m.flows_expected, CONSTANT_FLOWS);
    test_run_checked(&r);
    CU_ASSERT_EQUAL(monitor_close(&m, false, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r.net.n_flows, CONSTANT_FLOWS);
    CU_ASSERT_EQUAL(r.net.flows_completed, CONSTANT_FLOWS - 1); /* the last, 0.8 us before the stop, is under way */
    CU_ASSERT_STRING_EQUAL(net_flow(&r.net, CONSTANT_FLOWS - 1)->name, "t0.31");
    CU_ASSERT_EQUAL(net_flow(&r.net, CONSTANT_FLOWS - 1)->start, 31 * 3200 * PS_PER_NS);
    /* the memory estimate counts them as flows generated over the run, with its margin */
    struct mem_estimate e = limits_estimate_memory(&scn);
    CU_ASSERT_EQUAL(e.poisson_entry, 0);
    CU_ASSERT_DOUBLE_EQUAL(e.poisson_flows, CONSTANT_FLOWS + 4 * sqrt(CONSTANT_FLOWS), 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e.poisson_entry_mean, 4000, 1e-9);
    test_teardown(&scn, &r);
}

/* The kind's table decides its fields: the loader's messages name them, and the dump writes them back. */
static void test_constant_settings(void)
{
    struct scenario scn;
    char err[SCN_ERR_MAX];
#define STAR2 "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, "
    const char *bad = STAR2 "\"traffic\": [{\"type\": \"constant\", \"src\": \"h0\", \"dst\": \"h1\", "
                            "\"rate\": \"10Gbps\", \"load\": 1}]}";
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", bad, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: traffic.0.load: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "type, id, src, dst, rate, size, start, priority"));
    const char *nosize = STAR2 "\"traffic\": [{\"type\": \"constant\", \"src\": \"h0\", \"dst\": \"h1\", "
                               "\"rate\": \"10Gbps\"}]}";
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", nosize, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: traffic.0.size: expected a size like \"20KB\", got nothing (this field is "
                                "required)");
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", CONSTANT_JSON, NULL, 0, &scn, err, sizeof err), SCN_OK);
    char *json = scn_to_json(&scn);
    cJSON *root = cJSON_Parse(json);
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "traffic"), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(t0, "type")->valuestring, "constant");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(t0, "dst")->valuestring, "h1");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(t0, "rate")->valuestring, "10Gbps");
    cJSON_Delete(root);
    free(json);
    scn_free(&scn);
}

void test_traffic_module_register(void)
{
    /* Its group leaves the settings registry, whose every group docs/scenario.md must document (test_settings); the
     * loader reads a kind's fields from its module, so the kind keeps them. */
    settings_unregister("traffic.constant");
    CU_pSuite s = CU_add_suite("a traffic kind from a test file", NULL, NULL);
    CU_add_test(s, "a constant-rate kind runs end to end; monitor and memory estimate count it", test_constant_runs);
    CU_add_test(s, "its settings table decides its fields", test_constant_settings);
}
