/* SONiC config_db.json: import from a file written from SONiC's documentation, errors by key path, round trips. */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/run.h"
#include "tools/sonic.h"
#include "tools/sweep_util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "tests/sonic/config_db.json"

/* The fixture with the first occurrence of `from` replaced by `to` (caller frees). */
static char *fixture_with(const char *from, const char *to)
{
    char *t = test_read_file(FIXTURE, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    if (!from)
        return t;
    char *at = strstr(t, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    struct sbuf b = {0};
    sb_printf(&b, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    free(t);
    return b.p;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    const cJSON *v = json_at_path(o, path);
    if (!v)
        fprintf(stderr, "\n  no %s in the import\n", path);
    return v;
}

static bool has_string(const cJSON *arr, const char *s)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
        if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
            return true;
    return false;
}

static void test_import_documented(void)
{
    char *t = fixture_with(NULL, NULL), err[1024];
    cJSON *o;
    struct sbuf notes = {0};
    CU_ASSERT_EQUAL_FATAL(sonic_import_text("cfg.json", t, "Ethernet0=tor0:0,Ethernet8=tor0:2", &o, &notes, err,
                                            sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(at(o, "switch.pfc.dynamic_alpha")->valuedouble, 0.125, 0); /* dynamic_th -3 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.xoff")->valuestring, "dynamic");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.headroom")->valuestring, "162KiB");    /* xoff 165888 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.xon_delta")->valuestring, "2.496KB");  /* xon_offset 2496 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.buffer")->valuestring, "12467KiB");        /* 12766208 */
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(o, "switch.pfc.priorities")), 2);       /* pfc_enable "3,4" */
    CU_ASSERT_EQUAL(at(o, "switch.pfc.priorities.0")->valueint, 3);
    CU_ASSERT_EQUAL(at(o, "switch.pfc.priorities.1")->valueint, 4);
    CU_ASSERT_DOUBLE_EQUAL(at(o, "switch.ecn.pmax")->valuedouble, 0.05, 0);        /* green_drop_probability 5 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.ecn.kmin")->valuestring, "1MiB");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.ecn.kmax")->valuestring, "2MiB");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.watchdog.detection_time")->valuestring, "200ms");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.watchdog.poll_interval")->valuestring, "200ms");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.watchdog.action")->valuestring, "drop");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.scheduler.type")->valuestring, "dwrr");
    CU_ASSERT_EQUAL(at(o, "switch.scheduler.weights.3")->valueint, 15);
    CU_ASSERT_EQUAL(at(o, "switch.scheduler.weights.0")->valueint, 14);
    CU_ASSERT_PTR_NULL(json_at_path(o, "switch.scheduler.weights.7")); /* no scheduler: strict, above the others */
    /* the one port whose PFC differs, under its --ports name */
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(o, "profiles")), 1);
    CU_ASSERT_STRING_EQUAL(at(o, "profiles.0.match")->valuestring, "tor0:2");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(o, "profiles.0.switch.pfc.priorities")), 1);
    const cJSON *nm = at(o, "not_modelled");
    CU_ASSERT(has_string(nm, "BUFFER_POOL.egress_lossy_pool"));
    CU_ASSERT(has_string(nm, "SCHEDULER.scheduler.1.meter_type"));
    CU_ASSERT(has_string(nm, "WRED_PROFILE.AZURE_LOSSLESS.yellow_min_threshold"));
    CU_ASSERT(has_string(nm, "BUFFER_PROFILE.pg_lossless_100000_5m_profile.xon"));
    CU_ASSERT(has_string(nm, "DEVICE_METADATA"));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "cfg.json: BUFFER_POOL.egress_lossy_pool: not modelled"));
    cJSON_Delete(o);
    free(notes.p);
    /* without --ports the port is a placeholder to rename */
    CU_ASSERT_EQUAL_FATAL(sonic_import_text("cfg.json", t, NULL, &o, NULL, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(at(o, "profiles.0.match")->valuestring, "SWITCH:Ethernet8");
    cJSON_Delete(o);
    free(t);
}

/* The import of the fixture with one change fails with exactly msg. */
static void import_fails(const char *from, const char *to, const char *msg)
{
    char *t = fixture_with(from, to), err[1024] = "";
    cJSON *o = NULL;
    CU_ASSERT_EQUAL(sonic_import_text("cfg.json", t, NULL, &o, NULL, err, sizeof err), 2);
    CU_ASSERT_PTR_NULL(o);
    if (strcmp(err, msg))
        fprintf(stderr, "\n  expected: %s\n  got:      %s\n", msg, err);
    CU_ASSERT_STRING_EQUAL(err, msg);
    free(t);
}

static void test_import_errors(void)
{
    import_fails("\"detection_time\": \"200\"", "\"detection_time\": \"50\"",
                 "cfg.json: PFC_WD.Ethernet0.detection_time: expected milliseconds 100..5000 (SONiC's range), got 50");
    import_fails("\"restoration_time\": \"200\"", "\"restoration_time\": \"70000\"",
                 "cfg.json: PFC_WD.Ethernet0.restoration_time: expected milliseconds 100..60000 (SONiC's range), "
                 "got 70000");
    import_fails("\"POLL_INTERVAL\": \"200\"", "\"POLL_INTERVAL\": \"50\"",
                 "cfg.json: PFC_WD.GLOBAL.POLL_INTERVAL: expected milliseconds 100..1000 (SONiC's range), got 50");
    import_fails("\"POLL_INTERVAL\": \"200\"", "\"POLL_INTERVAL\": \"300\"",
                 "cfg.json: PFC_WD.Ethernet0.detection_time: expected at least PFC_WD.GLOBAL.POLL_INTERVAL (300), "
                 "got 200");
    import_fails("\"green_max_threshold\": \"2097152\"", "\"green_max_threshold\": \"1024\"",
                 "cfg.json: WRED_PROFILE.AZURE_LOSSLESS.green_max_threshold: expected a value at least "
                 "green_min_threshold (1048576), got 1024");
    import_fails("\"green_drop_probability\": \"5\"", "\"green_drop_probability\": \"101\"",
                 "cfg.json: WRED_PROFILE.AZURE_LOSSLESS.green_drop_probability: expected percent 0..100 (SONiC's "
                 "range), got 101");
    import_fails("\"weight\": \"14\"", "\"weight\": \"0\"",
                 "cfg.json: SCHEDULER.scheduler.0.weight: expected a weight 1..100 (SONiC's range), got 0");
    import_fails("\"type\": \"DWRR\"", "\"type\": \"FAIR\"",
                 "cfg.json: SCHEDULER.scheduler.0.type: expected DWRR, WRR or STRICT, got FAIR");
    import_fails("\"dynamic_th\": \"-3\"", "\"dynamic_th\": \"-9\"",
                 "cfg.json: BUFFER_PROFILE.pg_lossless_100000_5m_profile.dynamic_th: expected a log2 of alpha -8..7 "
                 "(SONiC's range), got -9");
    import_fails("\"dynamic_th\": \"-3\"", "\"dynamic_th\": \"2\"",
                 "cfg.json: BUFFER_PROFILE.pg_lossless_100000_5m_profile.dynamic_th: expected at most 0 (alpha 1, the "
                 "largest rocesim's switch.pfc.dynamic_alpha takes), got 2");
    import_fails("\"pfc_enable\": \"3,4\"", "\"pfc_enable\": \"3,9\"",
                 "cfg.json: PORT_QOS_MAP.Ethernet0.pfc_enable: expected priorities 0..7 separated by commas like "
                 "\"3,4\"");
    import_fails("\"Ethernet0|3-4\": {\"profile\"", "\"Ethernet0|3-9\": {\"profile\"",
                 "cfg.json: BUFFER_PG.Ethernet0|3-9: expected a range N-M with 0 <= N <= M <= 7, got \"3-9\"");
    import_fails("\"wred_profile\": \"AZURE_LOSSLESS\"", "\"wred_profile\": \"AZURE_LOSSY\"",
                 "cfg.json: QUEUE.Ethernet0|3-4.wred_profile: expected the name of a WRED_PROFILE entry, got "
                 "\"AZURE_LOSSY\"");
    import_fails("\"mode\": \"dynamic\", \"size\": \"12766208\"", "\"mode\": \"shared\", \"size\": \"12766208\"",
                 "cfg.json: BUFFER_POOL.ingress_lossless_pool.mode: expected \"static\" or \"dynamic\", got shared");
    import_fails("\"detection_time\": \"200\"", "\"detection_time\": \"2x\"",
                 "cfg.json: PFC_WD.Ethernet0.detection_time: expected an integer in milliseconds, got \"2x\"");
}

/* The command line: exit 2 with the rocesim: prefix and the key path; bad --ports refused. */
static void test_import_cli(void)
{
    char *t = fixture_with("\"detection_time\": \"200\"", "\"detection_time\": \"50\""), *out = NULL, cmd[512];
    char path[64];
    snprintf(path, sizeof path, "/tmp/rocesim-sonic-%d.json", (int)getpid());
    test_write_text(path, t);
    snprintf(cmd, sizeof cmd, "%s import sonic %s", test_rocesim_bin(), path);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-sonic-") &&
                           strstr(out, ": PFC_WD.Ethernet0.detection_time: expected milliseconds 100..5000"));
    free(out);
    remove(path);
    free(t);
    snprintf(cmd, sizeof cmd, "%s import sonic %s --ports Ethernet0", test_rocesim_bin(), FIXTURE);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--ports expects PORT=NODE:N pairs"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s import sonic /nonexistent/config_db.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 3);
    free(out);
    snprintf(cmd, sizeof cmd, "%s switch-config scenarios/incast-16to1.json --format json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--format expects sonic, got \"json\""));
    free(out);
}

/* Exports switch s0 of incast-16to1 with the overrides, imports the result, and compares the switch settings and
 * every port's resolved settings with the original's. */
static void round_trip(const struct scn_override *ov, int n)
{
    struct scenario a, b;
    struct run ra, rb;
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, ov, n, &a, &ra));
    struct sbuf notes = {0}, map = {0};
    cJSON *cfg = sonic_export(&ra, 0, &notes);
    char *text = cJSON_Print(cfg), err[1024];
    for (uint32_t j = 0; j < ra.net.sws[0].n_ports; j++)
        sb_printf(&map, "%sEthernet%u=s0:%u", j ? "," : "", 4 * j, j);
    cJSON *imp = NULL;
    CU_ASSERT_EQUAL_FATAL(sonic_import_text("x.json", text, map.p, &imp, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(imp, "not_modelled")), 0);
    /* the original, resolved, with its switch and profiles replaced by the import's */
    char *aj = scn_to_json(&a);
    cJSON *sc = cJSON_Parse(aj);
    cJSON *sw = cJSON_DetachItemFromObjectCaseSensitive(imp, "switch");
    const char *keep[] = {"lossy_queue_limit", "deadlock_check", "cell_size", "mtu"};
    cJSON *old = cJSON_GetObjectItemCaseSensitive(sc, "switch");
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        cJSON_AddItemToObject(sw, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(old, keep[i]), 1));
    cJSON_ReplaceItemInObjectCaseSensitive(sc, "switch", sw);
    cJSON_DeleteItemFromObjectCaseSensitive(sc, "profiles"); /* absent when the original has none */
    cJSON_AddItemToObject(sc, "profiles", cJSON_DetachItemFromObjectCaseSensitive(imp, "profiles"));
    char *bt = cJSON_Print(sc);
    CU_ASSERT_TRUE_FATAL(test_setup_from("back.json", bt, NULL, 0, &b, &rb));
    char *bj = scn_to_json(&b);
    cJSON *x = cJSON_Parse(aj), *y = cJSON_Parse(bj);
    char *xs = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(x, "switch"));
    char *ys = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(y, "switch"));
    if (strcmp(xs, ys))
        fprintf(stderr, "\n  before: %s\n  after:  %s\n", xs, ys);
    CU_ASSERT_STRING_EQUAL(xs, ys);
    CU_ASSERT_EQUAL(ra.net.sws[0].n_ports, rb.net.sws[0].n_ports);
    for (uint32_t j = 0; j < ra.net.sws[0].n_ports && j < rb.net.sws[0].n_ports; j++) {
        const struct port_cfg *p = &ra.net.pcfg[ra.net.sws[0].ports[j].cfg];
        const struct port_cfg *q = &rb.net.pcfg[rb.net.sws[0].ports[j].cfg];
        CU_ASSERT_EQUAL(p->lossless, q->lossless);
        CU_ASSERT_EQUAL(p->xoff_static, q->xoff_static);
        CU_ASSERT_DOUBLE_EQUAL(p->alpha, q->alpha, 0);
        CU_ASSERT_EQUAL(p->xoff, q->xoff);
        CU_ASSERT_EQUAL(p->xon_delta, q->xon_delta);
        CU_ASSERT_EQUAL(p->headroom, q->headroom);
        CU_ASSERT_EQUAL(p->ecn_dequeue, q->ecn_dequeue);
        CU_ASSERT_EQUAL(p->ecn.kmin, q->ecn.kmin);
        CU_ASSERT_EQUAL(p->ecn.kmax, q->ecn.kmax);
        CU_ASSERT_DOUBLE_EQUAL(p->ecn.pmax, q->ecn.pmax, 0);
    }
    free(xs);
    free(ys);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free(aj);
    free(bj);
    free(bt);
    cJSON_Delete(sc);
    cJSON_Delete(imp);
    free(text);
    cJSON_Delete(cfg);
    free(notes.p);
    free(map.p);
    test_teardown(&b, &rb);
    test_teardown(&a, &ra);
}

static void test_round_trip(void)
{
    const struct scn_override v1[] = {{"switch.pfc.headroom", "50KB"}, {"stop", "\"1s\""},
                                      {"switch.watchdog", "{\"enabled\": true, \"detection_time\": \"300ms\", "
                                                          "\"restoration_time\": \"400ms\", \"poll_interval\": "
                                                          "\"100ms\", \"action\": \"forward\"}"},
                                      {"switch.scheduler",
                                       "{\"type\": \"dwrr\", \"weights\": {\"0\": 10, \"3\": 40}}"}};
    round_trip(v1, 4);
    const struct scn_override v2[] = {{"switch.pfc", "{\"priorities\": [3, 4], \"xoff\": \"100KB\", \"xon_delta\": "
                                                     "\"10KB\", \"headroom\": \"60KB\"}"},
                                      {"switch.ecn", "{\"kmin\": \"20KB\", \"kmax\": \"400KB\", \"pmax\": 0.05}"},
                                      {"switch.buffer", "16MB"}};
    round_trip(v2, 3);
    const struct scn_override v3[] = {{"switch.pfc.headroom", "40KB"},
                                      {"switch.pfc.dynamic_alpha", "0.5"},
                                      {"profiles", "[{\"match\": \"s0:0\", \"switch\": {\"pfc\": "
                                                   "{\"priorities\": [3, 5]},"
                                                   " \"ecn\": {\"kmin\": \"50KB\"}}}, {\"match\": \"s0:16\", "
                                                   "\"switch\": {\"ecn\": {\"enabled\": false}}}]"}};
    round_trip(v3, 3);
}

/* What SONiC cannot say is listed, and auto headroom is written as the bytes rocesim computes. */
static void test_export_notes(void)
{
    struct scenario a;
    struct run r;
    const struct scn_override ov[] = {{"switch.ecn.pmax", "0.015"}, {"switch.pfc.dynamic_alpha", "0.2"}};
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, ov, 2, &a, &r));
    struct sbuf notes = {0};
    cJSON *o = sonic_export(&r, 0, &notes);
    /* 100 Gbps, 1 us: 49 frames of 1086 B, as `rocesim check` reports */
    CU_ASSERT_STRING_EQUAL(at(o, "BUFFER_PROFILE.pg_lossless_0_profile.xoff")->valuestring, "53214");
    CU_ASSERT_STRING_EQUAL(at(o, "BUFFER_PROFILE.pg_lossless_0_profile.dynamic_th")->valuestring, "-2");
    CU_ASSERT_STRING_EQUAL(at(o, "WRED_PROFILE.ROCESIM_ECN_0.green_drop_probability")->valuestring, "2");
    CU_ASSERT_STRING_EQUAL(at(o, "PORT_QOS_MAP.Ethernet64.pfc_enable")->valuestring, "3");
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "switch.pfc.headroom \"auto\""));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "switch.ecn.pmax 0.015: SONiC's green_drop_probability is a "
                                                      "whole percent; written as 2"));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "switch.pfc.dynamic_alpha 0.2: SONiC's dynamic_th is log2 of "
                                                      "alpha, a whole number in -8..7; written as -2 (alpha 0.25)"));
    cJSON_Delete(o);
    free(notes.p);
    test_teardown(&a, &r);
}

void test_sonic_register(void)
{
    CU_pSuite s = CU_add_suite("sonic config_db", NULL, NULL);
    CU_add_test(s, "a config_db.json from SONiC's docs imports to the expected values", test_import_documented);
    CU_add_test(s, "values outside SONiC's YANG ranges are refused by key path", test_import_errors);
    CU_add_test(s, "import on the command line: exit statuses and messages", test_import_cli);
    CU_add_test(s, "import(export(x)) gives x back", test_round_trip);
    CU_add_test(s, "export lists what SONiC cannot express", test_export_notes);
}
