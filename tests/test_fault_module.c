/*
 * A kind of fault from a test file alone: "blink" takes the links between two nodes down at `at` for `for` (a
 * flapping optic, the shortest outage a link_down describes), through the faults' shared link machinery.  Its
 * MODULE_REGISTER line is all that makes the loader accept "type": "blink" and the run apply it.
 */
#include "tests/tests.h"
#include "models/fault.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

struct blink_conf {
    struct fault_span span; /* at, and at + for */
    char between[2][SCN_NAME_MAX];
    int64_t dur_ps;
};

/* The span ends `for` after it begins. */
static int blink_end(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    struct blink_conf *b = base;
    (void)c, (void)obj, (void)path;
    b->span.end_ps = b->span.start_ps + b->dur_ps;
    return 0;
}

static const struct setting blink_fields[] = {
    {.name = "between", .kind = SETTING_CUSTOM, .offset = offsetof(struct blink_conf, between),
     .flags = SETTING_REQUIRED, .what = "two node names like [\"leaf0\", \"spine1\"]", .help = "The link's ends",
     .parse = scn_parse_link_ends, .dump = scn_dump_link_ends},
    {SET_FIELD("at", SETTING_TIME, struct blink_conf, span.start_ps, SETTING_REQUIRED, NULL, "When it goes down"),
     .what = "a time like \"1.5us\""},
    {SET_FIELD("for", SETTING_TIME, struct blink_conf, dur_ps, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "How long it stays down"), .what = "a time like \"1.5us\""},
    {SET_CHECK(blink_end)},
    {0},
};

static const struct setting_group blink_group = {
    .path = "faults.blink", .size = sizeof(struct blink_conf), .fields = blink_fields,
};

static void blink_down(struct sim *s, void *obj, uint64_t i)
{
    struct net *n = obj;
    (void)s;
    fault_link_change(n, n->fault_ends[2 * i], n->fault_ends[2 * i + 1], true);
}

static void blink_up(struct sim *s, void *obj, uint64_t i)
{
    struct net *n = obj;
    (void)s;
    fault_link_change(n, n->fault_ends[2 * i], n->fault_ends[2 * i + 1], false);
}

static int blink_resolve(struct net *n, int i, char *err, size_t errlen)
{
    return fault_link_ends(n, i, FAULT_CONF(&n->scn->faults[i], struct blink_conf)->between, err, errlen);
}

static void blink_schedule(struct net *n, int i)
{
    const struct blink_conf *b = FAULT_CONF(&n->scn->faults[i], struct blink_conf);
    sim_at(net_sim(n), b->span.start_ps, blink_down, n, (uint64_t)i);
    sim_at(net_sim(n), b->span.end_ps, blink_up, n, (uint64_t)i);
}

static const struct fault_ops blink_ops = {.resolve = blink_resolve, .schedule = blink_schedule};

MODULE_REGISTER(fault_kind, "blink", &blink_ops, &blink_group);

/* h1's only link is down from 10 us to 40 us: the flow to it stalls, and finishes after the link is back. */
static void test_blink_runs(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"stop\": \"5ms\", \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}],"
        " \"faults\": [{\"type\": \"blink\", \"between\": [\"s0\", \"h1\"], \"at\": \"10us\", \"for\": \"30us\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    CU_ASSERT_STRING_EQUAL(scn_fault_kind_name(&scn.faults[0]), "blink");
    test_run_checked(&r);
    CU_ASSERT_EQUAL(r.net.link_failures, 1);
    CU_ASSERT_EQUAL(r.net.reroutes, 2); /* at the failure and at the recovery */
    CU_ASSERT_EQUAL(r.net.links_down_now, 0);
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT(f->finish > 40 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.flows_completed, 1);
    /* its table is the dump */
    char *text = scn_to_json(&scn);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"at\": \"10us\",\n      \"for\": \"30us\""));
    free(text);
    test_teardown(&scn, &r);
}

/* A name that is no node is refused when the network is built, as a link_down's. */
static void test_blink_refused(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}},"
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}],"
        " \"faults\": [{\"type\": \"blink\", \"between\": [\"s0\", \"h9\"], \"at\": \"10us\", \"for\": \"30us\"}]}";
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: faults.0.between.1: expected a node name, got \"h9\" (no such node)");
    scn_free(&scn);
}

void test_fault_module_register(void)
{
    /* Its group leaves the settings registry, whose every group docs/scenario.md must document (test_settings); the
     * loader reads a kind's fields from its module, so the kind keeps them. */
    settings_unregister("faults.blink");
    CU_pSuite s = CU_add_suite("a fault kind from a test file", NULL, NULL);
    CU_add_test(s, "a link that goes down and comes back, end to end", test_blink_runs);
    CU_add_test(s, "a name that is no node is refused at set-up", test_blink_refused);
}
