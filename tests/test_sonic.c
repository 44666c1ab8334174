/* SONiC config_db.json: import from a file written from SONiC's documentation, errors by key path, round trips. */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/run/run.h"
#include "tools/ops/sonic.h"
#include "sim/settings.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "tests/sonic/config_db.json"

/* The fuzzing harness itself (docs/RELIABILITY.md), so that a regression replays through exactly its checks. */
#define LLVMFuzzerTestOneInput fuzz_sonic_one
#include "tests/fuzz/fuzz_sonic.c"
#undef LLVMFuzzerTestOneInput

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
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
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

/* The import of text fails with exactly msg. */
static void text_fails(const char *text, const char *msg)
{
    char err[1024] = "";
    cJSON *o = NULL;
    CU_ASSERT_EQUAL(sonic_import_text("cfg.json", text, NULL, &o, NULL, err, sizeof err), 2);
    CU_ASSERT_PTR_NULL(o);
    if (strcmp(err, msg))
        fprintf(stderr, "\n  expected: %s\n  got:      %s\n", msg, err);
    CU_ASSERT_STRING_EQUAL(err, msg);
}

/*
 * The import of text (without --ports) succeeds and the JSON at path ("" for the whole import), printed compact,
 * is exactly want.  Returns the notes ("" for none; caller frees).
 */
static char *text_imports(const char *text, const char *path, const char *want)
{
    char err[1024] = "";
    cJSON *o = NULL;
    struct sbuf notes = {0};
    int rc = sonic_import_text("cfg.json", text, NULL, &o, &notes, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  refused: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *got = cJSON_PrintUnformatted(at(o, path));
    if (strcmp(got, want))
        fprintf(stderr, "\n  %s\n  expected: %s\n  got:      %s\n", path, want, got);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    cJSON_Delete(o);
    if (!notes.p)
        sb_printf(&notes, "%s", "");
    return notes.p;
}

/* The import of the fixture with one change fails with exactly msg. */
static void import_fails(const char *from, const char *to, const char *msg)
{
    char *t = fixture_with(from, to);
    text_fails(t, msg);
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
    /* N and M one digit each, nothing around them */
    static const char *const bad_ranges[] = {" 3- 4", "+3", "03", "3-", "3-4-5", "-3", "99999999999999999999", ""};
    for (size_t i = 0; i < sizeof bad_ranges / sizeof *bad_ranges; i++) {
        char key[64], msg[256];
        snprintf(key, sizeof key, "\"Ethernet0|%s\": {\"profile\"", bad_ranges[i]);
        snprintf(msg, sizeof msg, "cfg.json: BUFFER_PG.Ethernet0|%s: expected a key PORT|N or PORT|N-M with N, M "
                 "single digits 0..7, got \"Ethernet0|%s\"", bad_ranges[i], bad_ranges[i]);
        import_fails("\"Ethernet0|3-4\": {\"profile\"", key, msg);
    }
    import_fails("\"Ethernet0|3-4\": {\"profile\"", "\"Ethernet0|4-3\": {\"profile\"",
                 "cfg.json: BUFFER_PG.Ethernet0|4-3: expected a range N-M with 0 <= N <= M <= 7, got \"4-3\"");
    import_fails("\"Ethernet0|0-2\": {\"scheduler\"", "\"Ethernet0|8\": {\"scheduler\"",
                 "cfg.json: QUEUE.Ethernet0|8: expected a range N-M with 0 <= N <= M <= 7, got \"8\"");
    import_fails("\"Ethernet0|0-2\": {\"scheduler\"", "\"Ethernet0|0x2\": {\"scheduler\"",
                 "cfg.json: QUEUE.Ethernet0|0x2: expected a key PORT|N or PORT|N-M with N, M single digits 0..7, got "
                 "\"Ethernet0|0x2\"");
    import_fails("\"wred_profile\": \"AZURE_LOSSLESS\"", "\"wred_profile\": \"AZURE_LOSSY\"",
                 "cfg.json: QUEUE.Ethernet0|3-4.wred_profile: expected the name of a WRED_PROFILE entry, got "
                 "\"AZURE_LOSSY\"");
    import_fails("\"mode\": \"dynamic\", \"size\": \"12766208\"", "\"mode\": \"shared\", \"size\": \"12766208\"",
                 "cfg.json: BUFFER_POOL.ingress_lossless_pool.mode: expected \"static\" or \"dynamic\", got shared");
    import_fails("\"dynamic_th\": \"-3\"", "\"dynamic_th\": \"-3\", \"packet_discard_action\": \"discard\"",
                 "cfg.json: BUFFER_PROFILE.pg_lossless_100000_5m_profile.packet_discard_action: expected \"drop\" or "
                 "\"trim\", got \"discard\"");
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
    snprintf(cmd, sizeof cmd, "%s import sonic %s --ports", test_rocesim_bin(), FIXTURE);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim import: --ports needs PORT=NODE:N pairs"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s import sonic /nonexistent/config_db.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 3);
    free(out);
    snprintf(cmd, sizeof cmd, "%s switch-config scenarios/incast-16to1.json --format json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--format expects sonic, got \"json\""));
    free(out);
}

/* The scenario loader's reading of JSON text (scn_parse_json, setting_check_dups), and no file without QoS. */
static void test_import_strict_json(void)
{
    char *t = fixture_with(NULL, NULL);
    struct sbuf b = {0};
    sb_printf(&b, "%s}", t); /* one brace too many */
    text_fails(b.p, "cfg.json:59:1: expected valid JSON, got a syntax error here: } <--");
    free(b.p);
    free(t);
    import_fails("\"scheduler.1\": {\"type\": \"DWRR\", \"weight\": \"15\", \"meter_type\": \"bytes\"}",
                 "\"scheduler.1\": {\"type\": \"DWRR\", \"weight\": \"15\", \"weight\": \"99\"}",
                 "cfg.json: SCHEDULER.scheduler.1.weight: expected each key once in an object, got \"weight\" twice");
    import_fails("\"PFC_WD\": {", "\"QUEUE\": {}, \"PFC_WD\": {",
                 "cfg.json: QUEUE: expected each key once in an object, got \"QUEUE\" twice");
    text_fails("[1]", "cfg.json: (top level): expected an object, got an array");
    text_fails("{}", "cfg.json: (top level): expected an entry in at least one of the QoS tables BUFFER_POOL, "
                     "BUFFER_PROFILE, BUFFER_PG, PORT_QOS_MAP, WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD, "
                     "SWITCH_TRIMMING, got an empty object");
    text_fails("{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"tor0\"}}, \"PORT\": {\"Ethernet0\": {}}, "
               "\"PFC_WD\": {}}",
               "cfg.json: (top level): expected an entry in at least one of the QoS tables BUFFER_POOL, "
               "BUFFER_PROFILE, BUFFER_PG, PORT_QOS_MAP, WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD, SWITCH_TRIMMING, "
               "got none (the file's tables: DEVICE_METADATA, PORT, PFC_WD)");
    text_fails("{\"PORT_QOS_MAP\": {\"Ethernet0\\n\": {\"pfc_enable\": \"3,9\"}}}",
               "cfg.json: PORT_QOS_MAP.Ethernet0?.pfc_enable: expected priorities 0..7 separated by commas like "
               "\"3,4\"");
}

/* The notes of a file without PORT_QOS_MAP entries, and of one with no queue naming a WRED profile. */
#define NOTE_NO_PFC                                                                                                  \
    "cfg.json: no port has a PORT_QOS_MAP entry: PFC is off on every port (switch.pfc.enabled false), as SONiC "     \
    "runs such a switch\n"
#define NOTE_NO_ECN                                                                                                  \
    "cfg.json: no QUEUE entry names a WRED_PROFILE: no port marks (switch.ecn.enabled false), as SONiC runs such a " \
    "switch\n"

/* A PFC_WD entry without an action acts as "drop": it is the same watchdog as one that says "drop". */
static void test_import_watchdog_action(void)
{
    char *n = text_imports("{\"PFC_WD\": {\"Ethernet0\": {\"action\": \"drop\", \"detection_time\": \"200\", "
                           "\"restoration_time\": \"200\"}, \"Ethernet4\": {\"detection_time\": \"200\", "
                           "\"restoration_time\": \"200\"}}}",
                           "", "{\"switch\":{\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false},\"watchdog\":"
                           "{\"enabled\":true,\"detection_time\":\"200ms\",\"restoration_time\":\"200ms\",\"action\":"
                           "\"drop\"}},\"profiles\":[],\"not_modelled\":[]}");
    free(n);
    n = text_imports("{\"PFC_WD\": {\"Ethernet0\": {}, \"Ethernet4\": {\"action\": \"drop\"}}}", "not_modelled",
                     "[]");
    free(n);
    /* an action that is not drop still differs from none */
    n = text_imports("{\"PFC_WD\": {\"Ethernet0\": {}, \"Ethernet4\": {\"action\": \"forward\"}}}", "not_modelled",
                     "[\"PFC_WD.Ethernet4\"]");
    CU_ASSERT_STRING_EQUAL(n, NOTE_NO_PFC NOTE_NO_ECN
                              "cfg.json: PFC_WD.Ethernet4: not modelled (one watchdog for every port in rocesim: the "
                              "first port's is taken)\n");
    free(n);
}

/* A file with some of the QoS tables: the import at path ("" for all of it) and its notes, exactly. */
struct partial_case {
    const char *text, *path, *want, *notes;
};

static const struct partial_case partial_cases[] = {
    /* no PORT_QOS_MAP entry: PFC off, with a note; SONiC's dynamic buffer model: headroom "auto" */
    {"{\"BUFFER_PG\": {\"Ethernet0|3-4\": {\"profile\": \"NULL\"}}}",
     "",
     "{\"switch\":{\"pfc\":{\"enabled\":false,\"headroom\":\"auto\"},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_PG.*.profile NULL\"]}",
     NOTE_NO_PFC
     "cfg.json: BUFFER_PG.*.profile NULL: not modelled (SONiC's dynamic buffer model: headroom \"auto\", the rest of "
     "switch.pfc rocesim's defaults)\n"
     NOTE_NO_ECN},
    /* a port without a WRED profile on its queues does not mark, with a note */
    {"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}, \"SCHEDULER\": {\"S\": {\"type\": \"STRICT\"}}, "
     "\"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"S\"}}}",
     "",
     "{\"switch\":{\"pfc\":{\"enabled\":true,\"priorities\":[3]},\"ecn\":{\"enabled\":false},"
     "\"scheduler\":{\"type\":\"strict\"}},\"profiles\":[],\"not_modelled\":[]}",
     NOTE_NO_ECN},
    /* a pool without size (dynamic buffer model): rocesim's default buffer, with a note */
    {"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\", \"mode\": \"dynamic\"}}}",
     "",
     "{\"switch\":{\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_POOL.ingress_lossless_pool.mode\"]}",
     NOTE_NO_PFC
     "cfg.json: BUFFER_POOL.ingress_lossless_pool has no size (SONiC's dynamic buffer model computes it): "
     "switch.buffer is rocesim's default\n"
     "cfg.json: BUFFER_POOL.ingress_lossless_pool.mode: not modelled (no lossless profile uses the pool: its "
     "threshold mode sets switch.pfc.xoff only with the profile's threshold)\n"
     NOTE_NO_ECN},
    /* no lossless profile: ingress_lossless_pool before any other ingress pool */
    {"{\"BUFFER_POOL\": {\"other\": {\"type\": \"ingress\", \"size\": \"3000000\"}, \"ingress_lossless_pool\": "
     "{\"type\": \"ingress\", \"size\": \"2000000\"}}}",
     "",
     "{\"switch\":{\"buffer\":\"2MB\",\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_POOL.other\"]}",
     NOTE_NO_PFC
     "cfg.json: BUFFER_POOL.other: not modelled (rocesim has one shared buffer, the lossless PGs' pool)\n"
     NOTE_NO_ECN},
    /* no lossless profile, no ingress_lossless_pool: the only ingress pool */
    {"{\"BUFFER_POOL\": {\"e\": {\"type\": \"egress\", \"size\": \"3000000\"}, \"i\": {\"type\": \"ingress\", "
     "\"size\": \"2000000\"}}}",
     "",
     "{\"switch\":{\"buffer\":\"2MB\",\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_POOL.e\"]}",
     NOTE_NO_PFC
     "cfg.json: BUFFER_POOL.e: not modelled (rocesim has one shared buffer, the lossless PGs' pool)\n"
     NOTE_NO_ECN},
    /* two ingress pools ("both" is one) and neither named ingress_lossless_pool: no pool, rocesim's default buffer */
    {"{\"BUFFER_POOL\": {\"i1\": {\"type\": \"ingress\", \"size\": \"2000000\"}, \"i2\": {\"type\": \"both\", "
     "\"size\": \"3000000\"}}}",
     "",
     "{\"switch\":{\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_POOL.i1\",\"BUFFER_POOL.i2\"]}",
     NOTE_NO_PFC
     "cfg.json: BUFFER_POOL.i1: not modelled (no lossless profile names a pool, and there is no ingress_lossless_pool "
     "or single ingress pool: switch.buffer is rocesim's default)\n"
     "cfg.json: BUFFER_POOL.i2: not modelled (no lossless profile names a pool, and there is no ingress_lossless_pool "
     "or single ingress pool: switch.buffer is rocesim's default)\n"
     NOTE_NO_ECN},
    /* a pool's mode with no lossless profile (PFC off) is listed */
    {"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"static\", \"size\": \"4000000\"}}, \"PORT_QOS_MAP\": "
     "{\"Ethernet0\": {\"pfc_enable\": \"\"}}}",
     "",
     "{\"switch\":{\"buffer\":\"4MB\",\"pfc\":{\"enabled\":false},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"BUFFER_POOL.ingress_lossless_pool.mode\"]}",
     "cfg.json: BUFFER_POOL.ingress_lossless_pool.mode: not modelled (no lossless profile uses the pool: its "
     "threshold mode sets switch.pfc.xoff only with the profile's threshold)\n"
     NOTE_NO_ECN},
    /* a WRED profile and a scheduler no queue uses are listed */
    {"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}, \"WRED_PROFILE\": {\"W\": {\"ecn\": \"ecn_all\", "
     "\"wred_green_enable\": \"true\"}}, \"SCHEDULER\": {\"S\": {\"type\": \"STRICT\"}}}",
     "",
     "{\"switch\":{\"pfc\":{\"enabled\":true,\"priorities\":[3]},\"ecn\":{\"enabled\":false}},\"profiles\":[],"
     "\"not_modelled\":[\"WRED_PROFILE.W\",\"SCHEDULER.S\"]}",
     "cfg.json: WRED_PROFILE.W: not modelled (no queue uses it)\n"
     "cfg.json: SCHEDULER.S: not modelled (no queue uses it)\n"
     NOTE_NO_ECN},
    /* static pool: resume at max(xon, static_th - xon_offset) = max(30000, 20000); xon_delta 100000 - 30000 */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"static\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"static_th\": \"100000\", \"xon\": \"30000\", \"xon_offset\": "
     "\"80000\"}}, \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": "
     "{\"pfc_enable\": \"3\"}}}",
     "switch.pfc",
     "{\"enabled\":true,\"priorities\":[3],\"xoff\":\"100KB\",\"xon_delta\":\"70KB\",\"headroom\":\"50KB\"}",
     NOTE_NO_ECN},
    /* max(10000, 100000 - 20000): xon_delta 20000 */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"static\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"static_th\": \"100000\", \"xon\": \"10000\", \"xon_offset\": "
     "\"20000\"}}, \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": "
     "{\"pfc_enable\": \"3\"}}}",
     "switch.pfc.xon_delta",
     "\"20KB\"",
     NOTE_NO_ECN},
    /* xon_offset alone: xon_delta is it */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"static\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"static_th\": \"100000\", \"xon_offset\": \"30000\"}}, \"BUFFER_PG\": "
     "{\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}}",
     "switch.pfc.xon_delta",
     "\"30KB\"",
     NOTE_NO_ECN},
    /* xon alone: xon_delta 100000 - 50000 */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"static\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"static_th\": \"100000\", \"xon\": \"50000\"}}, \"BUFFER_PG\": "
     "{\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}}",
     "switch.pfc.xon_delta",
     "\"50KB\"",
     NOTE_NO_ECN},
    /* xon above static_th: resume at XOFF, xon listed */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"static\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"static_th\": \"100000\", \"xon\": \"120000\"}}, \"BUFFER_PG\": "
     "{\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}}",
     "switch.pfc.xon_delta",
     "\"0B\"",
     "cfg.json: BUFFER_PROFILE.L.xon: not modelled (a resume point above static_th: rocesim resumes at XOFF at the "
     "highest)\n"
     NOTE_NO_ECN},
    /* a dynamic pool's xon is a floor rocesim lacks: listed; xon_offset is xon_delta */
    {"{\"BUFFER_POOL\": {\"p\": {\"mode\": \"dynamic\", \"size\": \"9000000\"}}, \"BUFFER_PROFILE\": {\"L\": "
     "{\"pool\": \"p\", \"xoff\": \"50000\", \"dynamic_th\": \"-1\", \"xon\": \"18432\", \"xon_offset\": \"2496\"}}, "
     "\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"L\"}}, \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": "
     "\"3\"}}}",
     "switch.pfc",
     "{\"enabled\":true,\"priorities\":[3],\"xoff\":\"dynamic\",\"dynamic_alpha\":0.5,\"xon_delta\":\"2.496KB\","
     "\"headroom\":\"50KB\"}",
     "cfg.json: BUFFER_PROFILE.L.xon: not modelled (a floor under the resume point; rocesim resumes xon_delta below "
     "XOFF)\n"
     NOTE_NO_ECN},
};

/* What SONiC runs without a table, which pool gives the buffer, and the resume point of a lossless profile. */
static void test_import_partial_tables(void)
{
    for (size_t i = 0; i < sizeof partial_cases / sizeof *partial_cases; i++) {
        const struct partial_case *c = &partial_cases[i];
        char *n = text_imports(c->text, c->path, c->want);
        if (strcmp(n, c->notes))
            fprintf(stderr, "\n  case %zu, notes\n  expected: %s\n  got:      %s\n", i, c->notes, n);
        CU_ASSERT_STRING_EQUAL(n, c->notes);
        free(n);
    }
}

/* `rocesim import sonic FIXTURE --ports MAP` exits 2 with exactly "rocesim: MSG" and prints nothing on stdout. */
static void ports_refused(const char *map, const char *msg)
{
    char cmd[1024], *out = NULL, want[1024], path[64];
    snprintf(path, sizeof path, "/tmp/rocesim-sonic-stdout-%d.txt", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s import sonic %s --ports '%s' 2>&1 >%s", test_rocesim_bin(), FIXTURE, map, path);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    snprintf(want, sizeof want, "rocesim: %s\n", msg);
    if (!out || strcmp(out, want))
        fprintf(stderr, "\n  --ports %s\n  expected: %s  got:      %s\n", map, want, out ? out : "");
    CU_ASSERT_STRING_EQUAL(out ? out : "", want);
    free(out);
    char *stdout_text = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stdout_text);
    CU_ASSERT_STRING_EQUAL(stdout_text, "");
    free(stdout_text);
    remove(path);
}

static void test_import_ports_arg(void)
{
    ports_refused("Ethernet0=s0:-1", "--ports: expected a port number 0..99999 after \":\", got \"-1\" in "
                                     "\"Ethernet0=s0:-1\"");
    ports_refused("Ethernet0=s0:123456", "--ports: expected a port number 0..99999 after \":\", got \"123456\" in "
                                         "\"Ethernet0=s0:123456\"");
    ports_refused("Ethernet0=s0:*", "--ports: expected a port number 0..99999 after \":\", got \"*\" in "
                                    "\"Ethernet0=s0:*\"");
    ports_refused("Ethernet0=tor*:1", "--ports: expected one node's name before \":\" (UTF-8, no \"*\", range or "
                                      "\"all\"), got \"tor*\" in \"Ethernet0=tor*:1\"");
    ports_refused("Ethernet0=leaf0-leaf3:1", "--ports: expected one node's name before \":\" (UTF-8, no \"*\", range "
                                             "or \"all\"), got \"leaf0-leaf3\" in \"Ethernet0=leaf0-leaf3:1\"");
    /* a range as profiles read it (scn_sel_is_one_node): through any '-', its ends in either order */
    ports_refused("Ethernet0=tor-a0-tor-a3:1", "--ports: expected one node's name before \":\" (UTF-8, no \"*\", "
                                               "range or \"all\"), got \"tor-a0-tor-a3\" in "
                                               "\"Ethernet0=tor-a0-tor-a3:1\"");
    ports_refused("Ethernet0=leaf3-leaf0:1", "--ports: expected one node's name before \":\" (UTF-8, no \"*\", range "
                                             "or \"all\"), got \"leaf3-leaf0\" in \"Ethernet0=leaf3-leaf0:1\"");
    /* no range for profiles: a number of ten digits, or two prefixes, is one node's name */
    char err[256] = "";
    CU_ASSERT_EQUAL(sonic_ports_check("Ethernet0=leaf0-leaf1234567890:1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sonic_ports_check("Ethernet0=leaf0-spine3:1", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(err, "");
    ports_refused("Ethernet*=s0:1", "--ports: expected a SONiC port name before \"=\" (UTF-8, no \"*\", \"?\", "
                                    "\"|\" or whitespace, at most 63 characters), got \"Ethernet*\"");
    ports_refused("Ethernet0=s0:1,Ethernet0=s0:2", "--ports: expected each SONiC port once, got \"Ethernet0\" twice");
    ports_refused("Ethernet0=s0:1,Ethernet4=s0:1", "--ports: expected a rocesim port for one SONiC port only, got "
                                                   "s0:1 for Ethernet0 and Ethernet4");
    ports_refused("Ethernet0=s0:1,", "--ports: expected PORT=NODE:N pairs separated by commas, got an empty pair in "
                                     "\"Ethernet0=s0:1,\"");
    ports_refused("Ethernet0", "--ports: expected PORT=NODE:N like Ethernet0=tor0:0, got \"Ethernet0\"");
    /* a valid map that names a port the file lacks is a note, not an error */
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s import sonic %s --ports Ethernet8=tor0:2,Ethernet12=tor0:3 2>&1 >/dev/null",
             test_rocesim_bin(), FIXTURE);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: note: --ports: Ethernet12 is no port of " FIXTURE "'s QoS "
                                              "tables\n"));
    free(out);
}

/* Older SONiC templates join the ports of one entry with commas: "Ethernet0,Ethernet4|3-4". */
static void test_import_joined_keys(void)
{
    char *t = test_read_file("tests/sonic/config_db_joined.json", NULL), err[1024];
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cJSON *o = NULL;
    CU_ASSERT_EQUAL_FATAL(sonic_import_text("old.json", t, "Ethernet0=tor1:0,Ethernet4=tor1:1,Ethernet8=tor1:2", &o,
                                            NULL, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(at(o, "switch.buffer")->valuestring, "9MiB");
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.xoff")->valuestring, "128KiB");      /* static_th 131072 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.xon_delta")->valuestring, "110KiB"); /* 131072 - xon 18432 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.headroom")->valuestring, "55.12KB");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(o, "switch.pfc.priorities")), 2);
    CU_ASSERT(cJSON_IsTrue(at(o, "switch.ecn.enabled")));                          /* Ethernet0 and Ethernet4 */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.ecn.kmin")->valuestring, "250KB");
    CU_ASSERT_EQUAL(at(o, "switch.scheduler.weights.0")->valueint, 14);
    CU_ASSERT_EQUAL(at(o, "switch.scheduler.weights.3")->valueint, 15);
    CU_ASSERT_EQUAL(at(o, "switch.scheduler.weights.6")->valueint, 14);
    /* Ethernet8 alone differs: PFC on priority 3 only, no WRED profile */
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(at(o, "profiles")), 1);
    CU_ASSERT_STRING_EQUAL(at(o, "profiles.0.match")->valuestring, "tor1:2");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(o, "profiles.0.switch.pfc.priorities")), 1);
    CU_ASSERT_EQUAL(at(o, "profiles.0.switch.pfc.priorities.0")->valueint, 3);
    CU_ASSERT(cJSON_IsFalse(at(o, "profiles.0.switch.ecn.enabled")));
    char *nm = cJSON_PrintUnformatted(at(o, "not_modelled"));
    CU_ASSERT_STRING_EQUAL(nm, "[\"DEVICE_METADATA\",\"BUFFER_QUEUE\",\"PORT_QOS_MAP.*.dscp_to_tc_map\","
                               "\"BUFFER_PG.*\",\"BUFFER_POOL.egress_lossy_pool\","
                               "\"BUFFER_PROFILE.ingress_lossy_profile\",\"BUFFER_PROFILE.egress_lossy_profile\"]");
    free(nm);
    cJSON_Delete(o);
    free(t);
    import_fails("\"Ethernet0|3-4\": {\"profile\"", "\"Ethernet0,,Ethernet4|3-4\": {\"profile\"",
                 "cfg.json: BUFFER_PG.Ethernet0,,Ethernet4|3-4: expected port names joined by commas, got an empty "
                 "name");
    import_fails("\"Ethernet4\": {\"action\"", "\"Ethernet4,Ethernet8\": {\"action\"",
                 "cfg.json: PFC_WD.Ethernet4,Ethernet8: expected one port name (SONiC's watchdog takes one port per "
                 "entry), got \"Ethernet4,Ethernet8\"");
    import_fails("\"Ethernet8\": {\"dscp_to_tc_map\": \"AZURE\", \"tc_to_queue_map\": \"AZURE\", \"pfc_enable\": "
                 "\"3\"}",
                 "\"Ethernet8,Ethernet4\": {\"pfc_enable\": \"3\"}",
                 "cfg.json: PORT_QOS_MAP.Ethernet8,Ethernet4.pfc_enable: expected one pfc_enable per port, got "
                 "Ethernet4 also in PORT_QOS_MAP.Ethernet4 with \"3,4\"");
}

/* ---- The round trip: switch-config, then import sonic, gives the switch back (`rocesim check` compares) ---- */

/*
 * One setting of the matrix: the overrides of scenarios/incast-16to1.json it exports, the not_modelled list the
 * import of that export must give (comma-separated, "" for none), the switch fields the export says it does not
 * write (kept from the original, with the fields no config_db table holds), overrides that give what the round
 * trip must equal when it differs from the original in form only (auto headroom written as bytes), and a line
 * the export's notes must hold.
 */
struct rt_case {
    const char *name;
    struct scn_override ov[6];
    const char *not_modelled;
    const char *keep;
    struct scn_override expect[2];
    const char *note;
};

/* What no config_db table of the export holds (docs/sonic.md, "Export"): kept from the original in every case. */
static const char rt_never_written[] = "lossy_queue_limit,deadlock_check,cell_size,mtu,pfc.pause_quanta,"
                                       "pfc.response_quanta,ecn.mark_on";

static int n_ov(const struct scn_override *ov, int max)
{
    int n = 0;
    while (n < max && ov[n].path)
        n++;
    return n;
}

/* Copies every dotted path of the comma-separated list from `from` into `to` (both switch objects). */
static void keep_paths(cJSON *to, const cJSON *from, const char *list)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        const cJSON *v = json_at_path(from, p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        char *dot = strrchr(p, '.');
        cJSON *parent = to;
        if (dot) {
            *dot = '\0';
            parent = cJSON_GetObjectItemCaseSensitive(to, p);
            if (!parent)
                parent = cJSON_AddObjectToObject(to, p);
        }
        const char *key = dot ? dot + 1 : p;
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        cJSON_AddItemToObject(parent, key, cJSON_Duplicate(v, 1));
    }
}

/* The switch group (settings and port values) of `rocesim check FILE`, as compact JSON (caller frees). */
static char *check_switch_group(const char *file)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check %s 2>/dev/null", test_rocesim_bin(), file);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    cJSON *o = cJSON_Parse(out);
    free(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const cJSON *g, *sw = NULL;
    cJSON_ArrayForEach(g, json_at_path(o, "derived.groups"))
        if (!sw && cJSON_GetObjectItemCaseSensitive(g, "switch"))
            sw = g;
    CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
    char *s = cJSON_PrintUnformatted(sw);
    cJSON_Delete(o);
    return s;
}

/* The resolved scenario (incast-16to1 with ov, then more) as a file in dir; returns the run's s0 port count. */
static uint32_t write_resolved(const char *dir, const char *name, const struct scn_override *ov, int n,
                               const struct scn_override *more, int n_more, cJSON **switch_out)
{
    struct scn_override all[8];
    memcpy(all, ov, (size_t)n * sizeof *ov);
    if (n_more)
        memcpy(all + n, more, (size_t)n_more * sizeof *more);
    struct scenario a;
    struct run r;
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, all, n + n_more, &a, &r));
    char *j = scn_to_json(&a), path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    test_write_text(path, j);
    free(j);
    if (switch_out) { /* switch s0's settings as check shows them (its node profiles applied) */
        *switch_out = cJSON_CreateObject();
        settings_dump(settings_find("switch"), r.net.sws[0].cfg, *switch_out);
    }
    uint32_t ports = r.net.sws[0].n_ports;
    test_teardown(&a, &r);
    return ports;
}

static void round_trip_case(const char *dir, const struct rt_case *c)
{
    int n = n_ov(c->ov, 6), ne = n_ov(c->expect, 2);
    cJSON *orig_sw;
    uint32_t ports = write_resolved(dir, "orig.json", c->ov, n, NULL, 0, &orig_sw);
    write_resolved(dir, "expect.json", c->ov, n, c->expect, ne, NULL);
    struct sbuf map = {0};
    for (uint32_t j = 0; j < ports; j++)
        sb_printf(&map, "%sEthernet%u=s0:%u", j ? "," : "", 4 * j, j);
    char cmd[4096], *out = NULL, path[512];
    snprintf(cmd, sizeof cmd, "%s switch-config %s/orig.json --format sonic > %s/cfg.json 2> %s/export.txt && "
             "%s import sonic %s/cfg.json --ports %s > %s/imp.json 2> %s/import.txt", test_rocesim_bin(), dir, dir,
             dir, test_rocesim_bin(), dir, map.p, dir, dir);
    int rc = test_run(cmd, &out);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", c->name, out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(out);
    free(map.p);
    if (c->note) {
        snprintf(path, sizeof path, "%s/export.txt", dir);
        char *notes = test_read_file(path, NULL);
        if (!notes || !strstr(notes, c->note))
            fprintf(stderr, "\n  %s: no note \"%s\" in:\n%s\n", c->name, c->note, notes ? notes : "");
        CU_ASSERT_PTR_NOT_NULL(notes && strstr(notes, c->note));
        free(notes);
    }
    snprintf(path, sizeof path, "%s/imp.json", dir);
    char *it = test_read_file(path, NULL);
    cJSON *imp = cJSON_Parse(it);
    free(it);
    CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
    struct sbuf nm = {0};
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(imp, "not_modelled"))
        sb_printf(&nm, "%s%s", nm.len ? "," : "", e->valuestring);
    if (strcmp(nm.p ? nm.p : "", c->not_modelled))
        fprintf(stderr, "\n  %s: not_modelled [%s], expected [%s]\n", c->name, nm.p ? nm.p : "", c->not_modelled);
    CU_ASSERT_STRING_EQUAL(nm.p ? nm.p : "", c->not_modelled);
    free(nm.p);
    /* back.json: the original with its switch and switch profiles replaced by the import's */
    snprintf(path, sizeof path, "%s/orig.json", dir);
    char *ot = test_read_file(path, NULL);
    cJSON *sc = cJSON_Parse(ot);
    free(ot);
    cJSON *sw = cJSON_DetachItemFromObjectCaseSensitive(imp, "switch");
    keep_paths(sw, orig_sw, rt_never_written);
    if (c->keep)
        keep_paths(sw, orig_sw, c->keep);
    cJSON_ReplaceItemInObjectCaseSensitive(sc, "switch", sw);
    cJSON *profs = cJSON_DetachItemFromObjectCaseSensitive(imp, "profiles");
    cJSON *old = cJSON_DetachItemFromObjectCaseSensitive(sc, "profiles");
    cJSON *p;
    cJSON_ArrayForEach(p, old)
        if (cJSON_GetObjectItemCaseSensitive(p, "host"))
            cJSON_AddItemToArray(profs, cJSON_Duplicate(p, 1));
    cJSON_Delete(old);
    cJSON_AddItemToObject(sc, "profiles", profs);
    char *bt = cJSON_Print(sc);
    snprintf(path, sizeof path, "%s/back.json", dir);
    test_write_text(path, bt);
    free(bt);
    char *want = check_switch_group(strcat(strcpy(path, dir), "/expect.json"));
    char *got = check_switch_group(strcat(strcpy(path, dir), "/back.json"));
    if (strcmp(want, got))
        fprintf(stderr, "\n  %s:\n  before: %s\n  after:  %s\n", c->name, want, got);
    CU_ASSERT_STRING_EQUAL(want, got);
    free(want);
    free(got);
    cJSON_Delete(sc);
    cJSON_Delete(imp);
    cJSON_Delete(orig_sw);
}

/* The settings without which no off mechanism acts: not written when it is off (the export says so). */
#define PFC_OFF_KEEP "pfc.priorities,pfc.xoff,pfc.dynamic_alpha,pfc.xon_delta,pfc.headroom"
#define ECN_OFF_KEEP "ecn.kmin,ecn.kmax,ecn.pmax"
#define WD_OFF_KEEP "watchdog.detection_time,watchdog.restoration_time,watchdog.poll_interval,watchdog.action"

static const struct rt_case rt_cases[] = {
    {"dynamic XOFF, watchdog forward, DWRR",
     {{"switch.pfc.headroom", "50KB"}, {"stop", "\"1s\""},
      {"switch.watchdog", "{\"enabled\": true, \"detection_time\": \"300ms\", \"restoration_time\": \"400ms\", "
                          "\"poll_interval\": \"100ms\", \"action\": \"forward\"}"},
      {"switch.scheduler", "{\"type\": \"dwrr\", \"weights\": {\"0\": 10, \"3\": 40}}"}},
     "", NULL, {{0}}, NULL},
    {"PFC off, 4MB buffer (issue 35)", {{"switch.pfc.enabled", "false"}, {"switch.buffer", "4MB"}},
     "BUFFER_POOL.ingress_lossless_pool.mode", PFC_OFF_KEEP, {{0}}, "switch.pfc.enabled false"},
    {"PFC off with a fixed XOFF, priorities 3 and 4",
     {{"switch.pfc", "{\"enabled\": false, \"priorities\": [3, 4], \"xoff\": \"100KB\", \"xon_delta\": \"10KB\", "
                     "\"headroom\": \"60KB\"}"}, {"switch.buffer", "6MB"}},
     "BUFFER_POOL.ingress_lossless_pool.mode", PFC_OFF_KEEP, {{0}}, "xoff, dynamic_alpha, xon_delta and headroom"},
    {"fixed XOFF, two lossless priorities, ECN thresholds",
     {{"switch.pfc", "{\"priorities\": [3, 4], \"xoff\": \"100KB\", \"xon_delta\": \"10KB\", \"headroom\": \"60KB\"}"},
      {"switch.ecn", "{\"kmin\": \"20KB\", \"kmax\": \"400KB\", \"pmax\": 0.05}"}, {"switch.buffer", "16MB"}},
     "", NULL, {{0}}, NULL},
    {"fixed XOFF with no hysteresis",
     {{"switch.pfc", "{\"xoff\": \"80KB\", \"xon_delta\": \"0B\", \"headroom\": \"30KB\"}"}}, "", NULL, {{0}}, NULL},
    {"dynamic alpha 0.5, per-port PFC and ECN",
     {{"switch.pfc.headroom", "40KB"}, {"switch.pfc.dynamic_alpha", "0.5"},
      {"profiles", "[{\"match\": \"s0:0\", \"switch\": {\"pfc\": {\"priorities\": [3, 5]}, \"ecn\": {\"kmin\": "
                   "\"50KB\"}}}, {\"match\": \"s0:16\", \"switch\": {\"ecn\": {\"enabled\": false}}}]"}},
     "", NULL, {{0}}, NULL},
    {"PFC off at the switch, on at one port",
     {{"switch.pfc", "{\"enabled\": false, \"priorities\": [3, 4], \"headroom\": \"20KB\"}"},
      {"profiles", "[{\"match\": \"s0:2\", \"switch\": {\"pfc\": {\"enabled\": true}}}]"}},
     "", "pfc.priorities", {{0}}, NULL},
    {"ECN off", {{"switch.ecn", "{\"enabled\": false, \"kmin\": \"20KB\", \"pmax\": 0.5}"},
                 {"switch.pfc.headroom", "30KB"}},
     "", ECN_OFF_KEEP, {{0}}, "switch.ecn.enabled false"},
    {"ECN off at three ports",
     {{"switch.pfc.headroom", "30KB"},
      {"profiles", "[{\"match\": [\"s0:3\", \"s0:4\", \"s0:9\"], \"switch\": {\"ecn\": {\"enabled\": false}}}]"}},
     "", NULL, {{0}}, NULL},
    {"strict scheduler, watchdog alert at 1 s",
     {{"switch.pfc.headroom", "30KB"}, {"stop", "\"3s\""},
      {"switch.watchdog", "{\"enabled\": true, \"detection_time\": \"1s\", \"restoration_time\": \"2s\", "
                          "\"poll_interval\": \"500ms\", \"action\": \"alert\"}"}},
     "", NULL, {{0}}, NULL},
    {"watchdog off, its times set",
     {{"switch.pfc.headroom", "30KB"},
      {"switch.watchdog", "{\"enabled\": false, \"detection_time\": \"1s\", \"action\": \"forward\"}"}},
     "", WD_OFF_KEEP, {{0}}, "switch.watchdog.enabled false"},
    {"DWRR on every priority",
     {{"switch.pfc.headroom", "30KB"},
      {"switch.scheduler", "{\"type\": \"dwrr\", \"weights\": {\"0\": 1, \"1\": 2, \"2\": 3, \"3\": 50, \"4\": 5, "
                           "\"5\": 6, \"6\": 7, \"7\": 100}}"}},
     "", NULL, {{0}}, NULL},
    {"a node profile of s0: its buffer and ECN",
     {{"switch.pfc.headroom", "30KB"},
      {"profiles", "[{\"match\": \"s0\", \"switch\": {\"buffer\": \"8MB\", \"ecn\": {\"kmin\": \"10KB\"}}}]"}},
     "", NULL, {{0}}, NULL},
    {"auto headroom, 1MB buffer: the headroom comes back as bytes", {{"switch.buffer", "1MB"}},
     "", NULL, {{"switch.pfc.headroom", "53214B"}}, "switch.pfc.headroom \"auto\""},
    {"trimming: 256-byte headers into queue 5",
     {{"switch.pfc.headroom", "30KB"}, {"switch.trim", "{\"enabled\": true, \"size\": \"256B\", \"priority\": 5}"}},
     "", NULL, {{0}}, "ROCESIM_LOSSY_TRIM"},
};

static void test_round_trip_matrix(void)
{
    char dir[] = "/tmp/rocesim-sonic-rt-XXXXXX", cmd[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    for (size_t i = 0; i < sizeof rt_cases / sizeof *rt_cases; i++)
        round_trip_case(dir, &rt_cases[i]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/* Ports whose PFC thresholds differ (dumbbell's: two rates and delays, "auto" headroom) cannot come back as one
 * switch's: the import lists the second lossless profile rather than drop it. */
static void test_round_trip_lists_second_profile(void)
{
    struct scenario a;
    struct run r;
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/dumbbell.json", NULL, NULL, 0, &a, &r));
    struct sbuf notes = {0};
    cJSON *cfg = sonic_export(&r, 0, &notes), *o = NULL;
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cfg, "BUFFER_PROFILE")), 2);
    char *text = cJSON_Print(cfg), err[1024];
    free(notes.p);
    notes = (struct sbuf){0};
    CU_ASSERT_EQUAL_FATAL(sonic_import_text("x.json", text, NULL, &o, &notes, err, sizeof err), 0);
    /* four host ports take profile 0 (53214 B), the 40 Gbps, 2 us bottleneck profile 1 (47784 B) */
    CU_ASSERT_STRING_EQUAL(at(o, "switch.pfc.headroom")->valuestring, "53.214KB");
    CU_ASSERT(has_string(at(o, "not_modelled"), "BUFFER_PROFILE.pg_lossless_1_profile"));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "x.json: BUFFER_PROFILE.pg_lossless_1_profile: not modelled (a "
                                                      "second lossless profile: the ports take the most common one)"));
    cJSON_Delete(o);
    free(text);
    free(notes.p);
    cJSON_Delete(cfg);
    test_teardown(&a, &r);
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

/* The fuzzer's seeds and every finding of it (tests/fuzz/regressions/sonic-*) replay clean through its harness. */
static void test_harness_replay(void)
{
    int n = test_fuzz_replay("tests/sonic", "", ".json", fuzz_sonic_one);
    n += test_fuzz_replay("tests/fuzz/seeds", "sonic-", "", fuzz_sonic_one);
    CU_ASSERT(n >= 4);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "sonic-", "", fuzz_sonic_one) >= 2);
}

void test_sonic_register(void)
{
    CU_pSuite s = CU_add_suite("sonic config_db", NULL, NULL);
    CU_add_test(s, "a config_db.json from SONiC's docs imports to the expected values", test_import_documented);
    CU_add_test(s, "values outside SONiC's YANG ranges are refused by key path", test_import_errors);
    CU_add_test(s, "import on the command line: exit statuses and messages", test_import_cli);
    CU_add_test(s, "import reads JSON as the scenario loader does; a file without QoS is refused",
                test_import_strict_json);
    CU_add_test(s, "import: a PFC_WD entry without an action is the same watchdog as \"drop\"",
                test_import_watchdog_action);
    CU_add_test(s, "import of some of the QoS tables: what SONiC runs without the others, with notes",
                test_import_partial_tables);
    CU_add_test(s, "import --ports: each pair checked, exit 2 naming the argument", test_import_ports_arg);
    CU_add_test(s, "import splits ports joined by commas in a key, as SONiC does", test_import_joined_keys);
    CU_add_test(s, "import(export(x)) gives x back over a matrix of settings", test_round_trip_matrix);
    CU_add_test(s, "import lists the lossless profile it cannot keep", test_round_trip_lists_second_profile);
    CU_add_test(s, "export lists what SONiC cannot express", test_export_notes);
    CU_add_test(s, "the importer's fuzzing seeds and regressions replay clean", test_harness_replay);
}
