/*
 * Profiles and settings by port speed (docs/scenario.md, "Profiles", "Settings by port speed"): the order in
 * which profiles apply and the sharing of equal settings, port profiles, the errors at load and at build,
 * --set into a profile, check's derived groups, and the misconfiguration they make possible: one host's RoCE on
 * a priority the switches do not protect.
 */
#include "tests/tests.h"
#include "models/net.h"
#include "models/dcqcn.h"
#include "models/ecn.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 4 leaves x 2 hosts at 100G, 2 spines at 400G; P is the "profiles" member (with its leading comma) or "". */
#define LS(P)                                                                                                      \
    "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 2,"              \
    " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"400Gbps\", \"delay\": \"1us\"}},"  \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h7\", \"size\": \"10KB\"}]" P "}"

static const struct sw *sw_named(struct run *r, const char *name)
{
    return r->net.node_sw[test_node(r, name)];
}

static const struct scn_host *host_named(struct run *r, const char *name)
{
    return r->net.node_host[test_node(r, name)]->cfg;
}

/* The error of a scenario that loads but does not build, or of one that does not load. */
static void expect_error(const char *json, const char *want)
{
    struct scenario scn;
    char err[SCN_ERR_MAX] = "";
    int rc = scn_load_text("test.json", json, NULL, 0, &scn, err, sizeof err);
    if (rc == SCN_OK) {
        struct run r;
        rc = run_setup(&r, &scn, err, sizeof err);
        if (rc == 0)
            run_free(&r);
        scn_free(&scn);
    }
    CU_ASSERT_EQUAL(rc, SCN_EUSAGE);
    if (!strstr(err, want))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", want, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
}

static void test_order_and_dedup(void)
{
    struct scenario scn;
    struct run r;
    if (!test_setup(LS(", \"profiles\": ["
                       "{\"match\": \"leaf*\", \"switch\": {\"ecn\": {\"kmin\": \"10KB\", \"kmax\": \"100KB\"}}},"
                       "{\"match\": [\"leaf0-leaf1\"], \"switch\": {\"ecn\": {\"kmin\": \"20KB\"}}},"
                       "{\"match\": \"h0\", \"host\": {\"dcqcn\": {\"preset\": \"connectx\"}}},"
                       "{\"match\": \"h0-h1\", \"host\": {\"dcqcn\": {\"g\": 0.5}}}]"),
                    NULL, NULL, &scn, &r)) {
        CU_FAIL("the scenario does not load or build");
        return;
    }
    /* later profiles win; a node no profile matches keeps the global settings */
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "leaf0")->cfg)->kmin, 20000);
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "leaf0")->cfg)->kmax, 100000);
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "leaf3")->cfg)->kmin, 10000);
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "spine0")->cfg)->kmin, 5000);
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "spine1")->cfg)->kmax, 200000);
    /* equal settings are shared: leaf0-1, leaf2-3, the spines */
    CU_ASSERT_PTR_EQUAL(sw_named(&r, "leaf0")->cfg, sw_named(&r, "leaf1")->cfg);
    CU_ASSERT_PTR_EQUAL(sw_named(&r, "leaf2")->cfg, sw_named(&r, "leaf3")->cfg);
    CU_ASSERT_EQUAL(r.net.n_sw_cfgs, 3);
    /* a preset resets its group before the profile's fields; a profile without one amends what is there */
    CU_ASSERT_EQUAL(dcqcn_params_of(host_named(&r, "h0"))->preset, DCQCN_CONNECTX);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_params_of(host_named(&r, "h0"))->g, 0.5, 0);
    CU_ASSERT_EQUAL(dcqcn_params_of(host_named(&r, "h1"))->preset, DCQCN_PAPER);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_params_of(host_named(&r, "h1"))->g, 0.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(dcqcn_params_of(host_named(&r, "h2"))->g, dcqcn_params_of(&scn.host)->g, 0);
    CU_ASSERT_EQUAL(r.net.n_host_cfgs, 3);
    test_teardown(&scn, &r);
}

/* host h's host.dctcp.g, read through the registry as any module group's field is. */
static double dctcp_g(const struct scn_host *h)
{
    const struct setting_group *g = settings_find("host.dctcp");
    const struct setting *f = settings_field("host.dctcp.g");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g && f);
    return *(const double *)(const void *)((const char *)settings_of(&h->mods, g, g->size) + f->offset);
}

/*
 * A module's group (host.dctcp, whose struct sim/ cannot name) per host: profiles amend it, a copy of the global
 * host object never changes the global one, equal settings are still shared, and --set reaches it.
 */
static void test_module_group_per_host(void)
{
    struct scenario scn;
    struct run r;
    if (!test_setup(LS(", \"host\": {\"cc\": \"dctcp\"}, \"profiles\": ["
                       "{\"match\": \"h0\", \"host\": {\"dctcp\": {\"g\": 0.25}}},"
                       "{\"match\": \"h1\", \"host\": {\"dctcp\": {\"g\": 0.25}}},"
                       "{\"match\": \"h2\", \"host\": {\"dctcp\": {\"g\": 0.5}}}]"),
                    "host.dctcp.g", "0.125", &scn, &r)) {
        CU_FAIL("the scenario does not load or build");
        return;
    }
    CU_ASSERT_DOUBLE_EQUAL(dctcp_g(&scn.host), 0.125, 0);
    CU_ASSERT_DOUBLE_EQUAL(dctcp_g(host_named(&r, "h0")), 0.25, 0);
    CU_ASSERT_DOUBLE_EQUAL(dctcp_g(host_named(&r, "h1")), 0.25, 0);
    CU_ASSERT_DOUBLE_EQUAL(dctcp_g(host_named(&r, "h2")), 0.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(dctcp_g(host_named(&r, "h3")), 0.125, 0);
    CU_ASSERT_PTR_EQUAL(host_named(&r, "h0"), host_named(&r, "h1"));
    CU_ASSERT_PTR_EQUAL(host_named(&r, "h3"), host_named(&r, "h7"));
    CU_ASSERT_EQUAL(r.net.n_host_cfgs, 3);
    CU_ASSERT_TRUE(scn_host_equal(host_named(&r, "h3"), &scn.host));
    CU_ASSERT_FALSE(scn_host_equal(host_named(&r, "h0"), &scn.host));
    test_teardown(&scn, &r);
}

static void test_port_profiles_and_rates(void)
{
    struct scenario scn;
    struct run r;
    if (!test_setup(LS(", \"switch\": {\"ecn\": {\"kmin\": {\"100Gbps\": \"400KB\", \"scale\": \"linear\"},"
                       " \"kmax\": {\"100Gbps\": \"1600KB\", \"400Gbps\": \"6400KB\"}}},"
                       " \"profiles\": [{\"match\": \"leaf0:0\", \"switch\": {\"pfc\": {\"priorities\": [3, 4]},"
                       " \"ecn\": {\"enabled\": false}}}]"),
                    NULL, NULL, &scn, &r)) {
        CU_FAIL("the scenario does not load or build");
        return;
    }
    const struct sw *l0 = sw_named(&r, "leaf0"), *l1 = sw_named(&r, "leaf1");
    /* leaf ports 0-1 face hosts (100G), 2-3 the spines (400G) */
    CU_ASSERT_EQUAL(port_cfg(&l0->ports[0])->lossless, 0x18);
    CU_ASSERT_FALSE(port_cfg(&l0->ports[0])->ecn.enabled);
    CU_ASSERT_EQUAL(port_cfg(&l0->ports[1])->lossless, 0x08);
    CU_ASSERT_EQUAL(port_cfg(&l1->ports[1])->ecn.kmin, 400000);
    CU_ASSERT_EQUAL(port_cfg(&l1->ports[1])->ecn.kmax, 1600000);
    CU_ASSERT_EQUAL(port_cfg(&l1->ports[2])->ecn.kmin, 1600000); /* scaled linearly from 100G */
    CU_ASSERT_EQUAL(port_cfg(&l1->ports[2])->ecn.kmax, 6400000);
    CU_ASSERT_EQUAL(r.net.n_pcfg, 3); /* the 100G, the 400G and leaf0:0 */
    CU_ASSERT_EQUAL(r.net.lossless, 0x18);
    test_teardown(&scn, &r);
}

static void test_errors(void)
{
    expect_error(LS(", \"profiles\": [{\"match\": [\"leaf0\", \"tor*\"], \"switch\": {\"buffer\": \"1MB\"}}]"),
                 "test.json: profiles.0.match.1: expected a selector matching a switch, got \"tor*\"");
    expect_error(LS(", \"profiles\": [{\"match\": \"leaf9\", \"host\": {\"mtu\": 4096}}]"),
                 "test.json: profiles.0.match: expected a selector matching a host, got \"leaf9\"");
    expect_error(LS(", \"profiles\": [{\"match\": \"spine*:*\", \"switch\": {\"buffer\": \"1MB\"}}]"),
                 "test.json: profiles.0.switch.buffer: expected only per-port fields");
    expect_error(LS(", \"profiles\": [{\"match\": \"spine*:*\", \"switch\": {\"ecn\": {\"mark_on\": \"enqueue\"}}}]"),
                 "test.json: profiles.0.switch.ecn.mark_on: expected only per-port fields");
    expect_error(LS(", \"profiles\": [{\"match\": \"spine0:7\", \"switch\": {\"ecn\": {\"enabled\": false}}}]"),
                 "test.json: profiles.0.match: expected a port that exists, got \"spine0:7\"");
    expect_error(LS(", \"profiles\": [{\"match\": \"leaf*\", \"switch\": {\"ecn\": {\"kmin\": \"1MB\"}}}]"),
                 "test.json: profiles.0.switch.ecn.kmax: expected a size at least kmin");
    expect_error(LS(", \"profiles\": [{\"match\": \"leaf*\", \"switch\": {\"watchdog\": {\"enabled\": true}}}]"),
                 "test.json: profiles.0.switch.watchdog: expected a setting a switch can have of its own");
    expect_error(LS(", \"profiles\": [{\"match\": \"leaf*\"}]"),
                 "test.json: profiles.0: expected exactly one of \"switch\" and \"host\" in a profile, got neither");
    /* a rate the map lacks: the path, the rate and a port, never an assertion */
    expect_error(LS(", \"switch\": {\"ecn\": {\"kmin\": {\"100Gbps\": \"1KB\"}}}"),
                 "test.json: switch.ecn.kmin: expected an entry for every port rate, got none for 400Gbps (port leaf0:2)");
    expect_error(LS(", \"profiles\": [{\"match\": \"spine*\", \"switch\": {\"pfc\": {\"dynamic_alpha\": {\"100Gbps\": 0.5}}}}]"),
                 "test.json: profiles.0.switch.pfc.dynamic_alpha: expected an entry for every port rate, got none for "
                 "400Gbps (port spine0:0)");
    /* bad maps */
    expect_error(LS(", \"switch\": {\"ecn\": {\"kmin\": {\"fast\": \"1KB\"}}}"),
                 "test.json: switch.ecn.kmin.fast: expected a rate like \"100Gbps\" as the key");
    expect_error(LS(", \"switch\": {\"ecn\": {\"kmin\": {}}}"), "test.json: switch.ecn.kmin: expected at least one rate");
    expect_error(LS(", \"switch\": {\"ecn\": {\"pmax\": {\"100Gbps\": 2}}}"),
                 "test.json: switch.ecn.pmax.100Gbps: expected a number from 0 to 1, got 2");
    expect_error(LS(", \"switch\": {\"ecn\": {\"kmin\": {\"1Gbps\": \"1KB\", \"2Gbps\": \"1KB\", \"3Gbps\": \"1KB\","
                    " \"4Gbps\": \"1KB\", \"5Gbps\": \"1KB\", \"6Gbps\": \"1KB\", \"7Gbps\": \"1KB\", \"8Gbps\": \"1KB\","
                    " \"9Gbps\": \"1KB\"}}}"),
                 "test.json: switch.ecn.kmin.9Gbps: expected at most 8 rates in a map by rate");
    expect_error(LS(", \"switch\": {\"ecn\": {\"kmin\": {\"100Gbps\": \"1KB\", \"scale\": \"log\"}}}"),
                 "test.json: switch.ecn.kmin.scale: expected \"linear\" or \"none\"");
}

static void test_set_into_profile(void)
{
    char msg[256], at[256];
    scn_register_settings();
    CU_ASSERT_EQUAL(settings_check_path("profiles.0.switch.ecn.kmin", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("profiles.0.switch.ecn.kmn", msg, sizeof msg, at, sizeof at), -1);
    CU_ASSERT_STRING_EQUAL(at, "profiles.0.switch.ecn.kmn");
    const struct setting *f = settings_field("profiles.3.switch.ecn.kmin");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->kind, SETTING_SIZE);
    struct scenario scn;
    struct run r;
    if (!test_setup(LS(", \"profiles\": [{\"match\": \"spine*\", \"switch\": {\"ecn\": {\"kmin\": \"10KB\"}}}]"),
                    "profiles.0.switch.ecn.kmin", "20KB", &scn, &r)) {
        CU_FAIL("the scenario does not load or build");
        return;
    }
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "spine1")->cfg)->kmin, 20000);
    CU_ASSERT_EQUAL(ecn_settings_of(sw_named(&r, "leaf1")->cfg)->kmin, 5000);
    test_teardown(&scn, &r);
}

/* The value of key in the entry of arr whose "rate" is rate. */
static const char *port_value(const cJSON *ports, const char *rate, const char *key)
{
    for (const cJSON *p = ports ? ports->child : NULL; p; p = p->next)
        if (strcmp(cJSON_GetObjectItemCaseSensitive(p, "rate")->valuestring, rate) == 0)
            return cJSON_GetObjectItemCaseSensitive(p, key)->valuestring;
    return "(none)";
}

/* The HPCC paper's fabric: its simulator's thresholds by port speed, shown by check per port. */
static void test_check_groups_hpcc(void)
{
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check scenarios/hpcc-fabric.json 2>&1", test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &out), 0);
    cJSON *j = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "derived"), "groups");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(groups), 2); /* every switch alike, every host alike */
    const cJSON *g0 = cJSON_GetArrayItem(groups, 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(g0, "nodes")->valuestring,
                           "tor0-tor19, agg0-agg19, core0-core15");
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(g0, "ports");
    CU_ASSERT_STRING_EQUAL(port_value(ports, "100Gbps", "kmin"), "400KB");
    CU_ASSERT_STRING_EQUAL(port_value(ports, "100Gbps", "kmax"), "1.6MB");
    CU_ASSERT_STRING_EQUAL(port_value(ports, "400Gbps", "kmin"), "1.6MB");
    CU_ASSERT_STRING_EQUAL(port_value(ports, "400Gbps", "kmax"), "6.4MB");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(groups, 1), "nodes")->valuestring,
                           "h0-h319");
    cJSON_Delete(j);
    free(out);
    /* check's output is a scenario that loads and gives the same check */
    snprintf(cmd, sizeof cmd, "%s check scenarios/hpcc-fabric.json > /tmp/rocesim-prof-check.json && %s check "
             "/tmp/rocesim-prof-check.json > /dev/null", test_rocesim_bin(), test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/*
 * Acceptance: an 8-to-1 incast at line rate where a host profile puts h3's data on priority 1, which the
 * switch does not protect (PFC on 3 only): h3's flow, and only it, loses frames (tail drop at its egress
 * queue) and retransmits; every other flow is lossless.
 */
static void test_unprotected_priority(void)
{
    struct scenario scn;
    struct run r;
    if (!test_setup("{\"topology\": {\"type\": \"star\", \"hosts\": 9, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
                    " \"host\": {\"cc\": \"none\"}, \"switch\": {\"lossy_queue_limit\": \"50KB\"}, \"stop\": \"100ms\","
                    " \"profiles\": [{\"match\": \"h3\", \"host\": {\"priority\": 1}}],"
                    " \"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h7\", \"receiver\": \"h8\", \"size\": \"1MB\"}]}",
                    NULL, NULL, &scn, &r)) {
        CU_FAIL("the scenario does not load or build");
        return;
    }
    test_run_checked(&r);
    const struct net *n = &r.net;
    CU_ASSERT_EQUAL(n->n_flows, 8);
    CU_ASSERT_EQUAL(n->flows_completed, 8);
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        if (f->src == 3) {
            CU_ASSERT_EQUAL(f->prio, 1);
            CU_ASSERT(f->retx_bytes > 0);
        } else {
            CU_ASSERT_EQUAL(f->prio, 3);
            CU_ASSERT_EQUAL(f->retx_bytes, 0);
        }
    }
    CU_ASSERT(n->c.data_dropped > 0);
    CU_ASSERT_EQUAL(n->c.prio[1].dropped, n->c.data_dropped);
    CU_ASSERT_EQUAL(n->c.prio[3].dropped, 0);
    CU_ASSERT_EQUAL(n->c.drop_buffer, n->c.data_dropped);
    CU_ASSERT_EQUAL(n->c.drop_headroom, 0);
    test_teardown(&scn, &r);
}

void test_profiles_register(void)
{
    CU_pSuite s = CU_add_suite("profiles", NULL, NULL);
    CU_add_test(s, "profiles apply in order over the global settings; equal settings are shared", test_order_and_dedup);
    CU_add_test(s, "a module's settings group per host: profiles, sharing, --set, the global object kept",
                test_module_group_per_host);
    CU_add_test(s, "port profiles and settings by port speed (maps, linear scale)", test_port_profiles_and_rates);
    CU_add_test(s, "errors: unknown node or port, non-port field, fabric-wide field, missing rate, bad maps",
                test_errors);
    CU_add_test(s, "--set profiles.N.switch.* maps onto the switch tables", test_set_into_profile);
    CU_add_test(s, "check shows the HPCC fabric's thresholds per port speed in derived.groups", test_check_groups_hpcc);
    CU_add_test(s, "one host on an unprotected priority: its flow alone drops and retransmits",
                test_unprotected_priority);
}
