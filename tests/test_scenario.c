/*
 * Tests of the scenario loader: every shipped scenario loads, defaults and
 * presets are exactly the documented ones, each kind of bad input is refused
 * with a message naming the file and the JSON path, --set overrides land where
 * they should, and scn_to_json round-trips.
 */
#include "tests/tests.h"

#include "sim/module.h"
#include "models/cc.h"
#include "models/dcqcn.h"
#include "models/ecn.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "models/sched.h"
#include "models/deadlock.h"
#include "models/lfc.h"
#include "models/nic.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/scenario.h"
#include "sim/units.h"
#include "topologies/custom.h"
#include "topologies/dragonfly.h"
#include "topologies/dumbbell.h"
#include "topologies/fat_tree.h"
#include "topologies/leaf_spine.h"
#include "topologies/star.h"
#include "tools/explore/sweep.h"
#include "tools/explore/sweep_spec.h"
#include "tools/explore/tune.h"
#include "tools/run/monitor.h"

#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A star of 4 hosts and one flow: the smallest valid scenario. */
#define TOPO "\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\"}}"
#define FLOW "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]"
#define MINIMAL "{" TOPO ", " FLOW "}"

/* Loads inline JSON as "t.json"; on an unexpected result prints the message to help debugging. */

/* A traffic entry's or a fault's own field `name` (its kind's settings table says where it is), read as a `type`. */
static const void *kind_field(const char *kind, int type, const void *conf, const char *name)
{
    const struct module *m = module_at(kind, type);
    for (const struct setting *f = m && m->groups[0] ? m->groups[0]->fields : NULL; f && f->name; f++)
        if (strcmp(f->name, name) == 0)
            return (const char *)conf + f->offset;
    CU_FAIL_FATAL("no such field of the kind");
    return NULL;
}
#define tr_field(t, name) kind_field("traffic", (t)->type, (t)->conf, (name))
#define TRF(t, name, type) (*(const type *)tr_field((t), (name)))
#define FF(f, name, T) (*(const T *)kind_field("fault", (f)->type, (f)->conf, (name)))

static int load(const char *json, const struct scn_override *ov, int n_ov, struct scenario *s, char *err)
{
    return scn_load_text("t.json", json, ov, n_ov, s, err, SCN_ERR_MAX);
}

/* Loads text that must be valid; returns whether it was. */
static bool load_ok(const char *json, const struct scn_override *ov, int n_ov, struct scenario *s)
{
    char err[SCN_ERR_MAX];
    int rc = load(json, ov, n_ov, s, err);
    if (rc != SCN_OK)
        fprintf(stderr, "\n  unexpected error: %s\n", err);
    return rc == SCN_OK;
}

static void test_shipped_scenarios_load(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    CU_ASSERT(g.gl_pathc >= 3);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct scenario s;
        char err[SCN_ERR_MAX];
        int rc = scn_load(g.gl_pathv[i], NULL, 0, &s, err, sizeof err);
        if (rc != SCN_OK)
            fprintf(stderr, "\n  %s\n", err);
        CU_ASSERT_EQUAL(rc, SCN_OK);
        if (rc == SCN_OK) {
            CU_ASSERT(s.name[0] != '\0');
            CU_ASSERT_PTR_NOT_NULL(s.description);
            CU_ASSERT(s.description && s.description[0] != '\0');
        }
        scn_free(&s);
    }
    globfree(&g);
}

static void test_incast_scenario(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/incast-16to1.json", NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_STRING_EQUAL(s.name, "incast-16to1");
    CU_ASSERT_STRING_EQUAL(scn_topo_name(&s), "star");
    const struct topo_star *star = s.topo.cfg;
    CU_ASSERT_EQUAL(s.topo.n_hosts, 17);
    CU_ASSERT_EQUAL(star->link.rate_bps, 100000000000LL);
    CU_ASSERT_EQUAL(star->link.delay_ps, PS_PER_US);
    CU_ASSERT_EQUAL(s.stop_ps, 20 * PS_PER_MS);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->lossless_mask, 1u << 3);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->preset, DCQCN_PAPER);
    CU_ASSERT_EQUAL_FATAL(s.n_traffic, 1);
    CU_ASSERT_EQUAL(s.traffic[0].type, module_find("traffic", "incast"));
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "senders", struct scn_hostset).n, 16);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "senders", struct scn_hostset).idx[15], 15);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "receiver", int), 16);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "size", int64_t), 1000000);
    scn_free(&s);
}

static void test_defaults(void)
{
    struct scenario s;
    CU_ASSERT_FATAL(load_ok(MINIMAL, NULL, 0, &s));
    CU_ASSERT_STRING_EQUAL(s.file, "t.json");
    CU_ASSERT_STRING_EQUAL(s.name, "t");
    CU_ASSERT_STRING_EQUAL(s.description, "");
    CU_ASSERT_EQUAL(s.seed, 1);
    CU_ASSERT_EQUAL(s.stop_ps, 100 * PS_PER_MS);
    CU_ASSERT_EQUAL(((const struct topo_star *)s.topo.cfg)->link.delay_ps, PS_PER_US);
    CU_ASSERT_EQUAL(((const struct topo_star *)s.topo.cfg)->link.length_mm, 0);
    /* switch */
    CU_ASSERT_EQUAL(switch_params_of(&s.sw)->buffer, 32000000);
    CU_ASSERT_TRUE(pfc_settings_of(&s.sw)->enabled);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->lossless_mask, 0x08);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->xoff_mode, PFC_XOFF_DYNAMIC);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->dynamic_alpha, 0.125);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->xon_delta, 3000);
    CU_ASSERT_TRUE(pfc_settings_of(&s.sw)->headroom_auto);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->pause_quanta, 65535);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->response_quanta, 394);
    CU_ASSERT_TRUE(ecn_settings_of(&s.sw)->enabled);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->kmin, 5000);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->kmax, 200000);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->pmax, 0.01);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->mark_on, ECN_MARK_DEQUEUE);
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->type, module_find("sched", "strict"));
    CU_ASSERT_EQUAL(lfc_params_of(&s.sw)->flow_control, module_find("lfc", "pfc"));
    CU_ASSERT_EQUAL(switch_params_of(&s.sw)->lossy_queue_limit, 1000000);
    CU_ASSERT_EQUAL(deadlock_params_of(&s.sw)->check_ps, PS_PER_MS);
    CU_ASSERT_EQUAL(switch_params_of(&s.sw)->cell_size, 0);
    CU_ASSERT_EQUAL(switch_params_of(&s.sw)->mtu, 0);
    CU_ASSERT_FALSE(pfcwd_settings_of(&s.sw)->enabled);
    CU_ASSERT_EQUAL(pfcwd_settings_of(&s.sw)->detection_ps, 200 * PS_PER_MS);
    CU_ASSERT_EQUAL(pfcwd_settings_of(&s.sw)->restoration_ps, 200 * PS_PER_MS);
    CU_ASSERT_EQUAL(pfcwd_settings_of(&s.sw)->poll_ps, 10 * PS_PER_MS);
    CU_ASSERT_EQUAL(pfcwd_settings_of(&s.sw)->action, PFCWD_DROP);
    /* host and the paper preset */
    CU_ASSERT_EQUAL(nic_params_of(&s.host)->mtu, 1024);
    CU_ASSERT_EQUAL(nic_params_of(&s.host)->priority, 3);
    CU_ASSERT_EQUAL(nic_params_of(&s.host)->cnp_priority, 6);
    CU_ASSERT_EQUAL(cc_params_of(&s.host)->cc, module_find("cc", "dcqcn"));
    CU_ASSERT_EQUAL(transport_params_of(&s.host)->loss_recovery, module_find("transport", "go-back-n"));
    CU_ASSERT_EQUAL(transport_params_of(&s.host)->rto_ps, PS_PER_MS);
    CU_ASSERT_EQUAL(transport_params_of(&s.host)->ack_every, 1);
    const struct dcqcn_params *d = dcqcn_params_of(&s.host);
    CU_ASSERT_EQUAL(d->preset, DCQCN_PAPER);
    CU_ASSERT_EQUAL(d->g, 1.0 / 256);
    CU_ASSERT_EQUAL(d->alpha_init, 1.0);
    CU_ASSERT_EQUAL(d->alpha_timer_ps, 55 * PS_PER_US);
    CU_ASSERT_EQUAL(d->rate_increase_timer_ps, 55 * PS_PER_US);
    CU_ASSERT_EQUAL(d->byte_counter, 10000000);
    CU_ASSERT_EQUAL(d->fast_recovery_steps, 5);
    CU_ASSERT_EQUAL(d->ai_rate_bps, 40000000);
    CU_ASSERT_EQUAL(d->hai_rate_bps, 200000000);
    CU_ASSERT_EQUAL(d->min_rate_bps, 100000000);
    CU_ASSERT_EQUAL(d->rate_on_first_cnp, 1.0);
    CU_ASSERT_EQUAL(d->min_dec_factor, 0.5);
    CU_ASSERT_FALSE(d->clamp_target_rate);
    CU_ASSERT_EQUAL(d->cnp_interval_ps, 50 * PS_PER_US);
    /* traffic, faults, monitor */
    CU_ASSERT_EQUAL_FATAL(s.n_traffic, 1);
    CU_ASSERT_STRING_EQUAL(s.traffic[0].id, "t0");
    CU_ASSERT_FALSE(s.traffic[0].id_given);
    CU_ASSERT_EQUAL(s.traffic[0].priority, 3);
    CU_ASSERT_EQUAL(s.traffic[0].start_ps, 0);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "rate", int64_t), 0);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "path", struct scn_route).n, 0);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "src", int), 0);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "dst", int), 1);
    CU_ASSERT_EQUAL(s.n_faults, 0);
    const struct monitor_settings *mo = monitor_settings_of(&s);
    CU_ASSERT_EQUAL(mo->interval_ps, 10 * PS_PER_US);
    CU_ASSERT_EQUAL(mo->n_queues, 0);
    CU_ASSERT_EQUAL(mo->flows, MON_FLOWS_AUTO); /* bounded defaults (tools/run/monitor.h) */
    CU_ASSERT_EQUAL(mo->pfc, MON_PFC_AUTO);
    scn_free(&s);
}

static void test_name_from_file(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load_text("some/dir/my lab, v2.json", MINIMAL, NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_STRING_EQUAL(s.name, "my lab, v2");
    /* The serialized name must load again, spaces and commas included. */
    char *j = scn_to_json(&s);
    struct scenario s2;
    CU_ASSERT_EQUAL(scn_load_text("other.json", j, NULL, 0, &s2, err, sizeof err), SCN_OK);
    CU_ASSERT_STRING_EQUAL(s2.name, "my lab, v2");
    free(j);
    scn_free(&s2);
    scn_free(&s);
    CU_ASSERT_EQUAL(scn_load_text("x.json", "{\"name\": \"a/b\", " TOPO ", " FLOW "}", NULL, 0, &s, err, sizeof err),
                    SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "x.json: name: expected a name usable as a directory name"));
    /* A file named in another encoding (Latin-1 "r\xe9seau"): its name in UTF-8 ('?' for the byte), so that
     * summary.json and the scenario.json a run writes are UTF-8 and load again; "...json" ("..") becomes
     * "scenario". */
    static const char *const files[] = {"r\xe9seau.json", "...json"}, *const want[] = {"r?seau", "scenario"};
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(scn_load_text(files[i], MINIMAL, NULL, 0, &s, err, sizeof err), SCN_OK);
        CU_ASSERT_STRING_EQUAL(s.name, want[i]);
        j = scn_to_json(&s);
        CU_ASSERT_EQUAL(scn_load_text("other.json", j, NULL, 0, &s2, err, sizeof err), SCN_OK);
        free(j);
        scn_free(&s2);
        scn_free(&s);
    }
}

static void test_connectx_preset(void)
{
    struct scenario s;
    /* The explicit field comes before the preset in the file: it must still win. */
    CU_ASSERT_FATAL(load_ok("{" TOPO ", " FLOW ", \"host\": {\"dcqcn\": {\"ai_rate\": \"10Mbps\", "
                            "\"preset\": \"connectx\"}}}", NULL, 0, &s));
    const struct dcqcn_params *d = dcqcn_params_of(&s.host);
    CU_ASSERT_EQUAL(d->preset, DCQCN_CONNECTX);
    CU_ASSERT_EQUAL(d->g, 5.0 / 1024);
    CU_ASSERT_EQUAL(d->alpha_init, 1.0);
    CU_ASSERT_EQUAL(d->alpha_timer_ps, 1 * PS_PER_US);
    CU_ASSERT_EQUAL(d->rate_increase_timer_ps, 300 * PS_PER_US);
    CU_ASSERT_EQUAL(d->byte_counter, 32767);
    CU_ASSERT_EQUAL(d->fast_recovery_steps, 1);
    CU_ASSERT_EQUAL(d->ai_rate_bps, 10000000); /* overridden; the preset says 5Mbps */
    CU_ASSERT_EQUAL(d->hai_rate_bps, 50000000);
    CU_ASSERT_EQUAL(d->min_rate_bps, 1000000);
    CU_ASSERT_EQUAL(d->rate_on_first_cnp, 1.0);
    CU_ASSERT_EQUAL(d->min_dec_factor, 0.5);
    CU_ASSERT_FALSE(d->clamp_target_rate);
    CU_ASSERT_EQUAL(d->cnp_interval_ps, 4 * PS_PER_US);
    scn_free(&s);

    /* --set of one field on top of a preset chosen in the file. */
    struct scn_override ov[] = {{"host.dcqcn.preset", "connectx"}, {"host.dcqcn.g", "0.0625"}};
    CU_ASSERT_FATAL(load_ok(MINIMAL, ov, 2, &s));
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->g, 0.0625);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->cnp_interval_ps, 4 * PS_PER_US);
    scn_free(&s);
}

struct bad_case {
    const char *what;
    const char *json;
    const char *set_path, *set_value; /* optional override */
    const char *expect[3];            /* substrings the message must contain (besides "t.json") */
};

static const struct bad_case bad_cases[] = {
    {"malformed JSON", "{\n  " TOPO ",\n  \"seed\": 1,,\n  " FLOW "\n}", NULL, NULL, {"t.json:3:", "valid JSON"}},
    {"trailing garbage", MINIMAL " x", NULL, NULL, {"t.json:1:", "valid JSON"}},
    {"unclosed comment", "{" TOPO ", " FLOW "} /* x", NULL, NULL, {"t.json:1:", "*/"}},
    {"top level not an object", "[1]", NULL, NULL, {"(top level)", "expected an object"}},
    {"wrong type", "{" TOPO ", " FLOW ", \"host\": {\"mtu\": \"1024\"}}", NULL, NULL,
     {"host.mtu:", "expected an integer", "got a string \"1024\""}},
    {"unknown top-level field", "{" TOPO ", " FLOW ", \"stopp\": \"1ms\"}", NULL, NULL,
     {"t.json: stopp:", "unknown field \"stopp\"", "seed, stop"}},
    {"unknown nested field", "{" TOPO ", " FLOW ", \"switch\": {\"ecn\": {\"kmn\": \"1KB\"}}}", NULL, NULL,
     {"switch.ecn.kmn:", "unknown field", "kmin, kmax"}},
    {"bad unit", "{" TOPO ", " FLOW ", \"switch\": {\"ecn\": {\"kmin\": \"20KG\"}}}", NULL, NULL,
     {"switch.ecn.kmin:", "expected a size like \"20KB\"", "got \"20KG\""}},
    {"bare number where a unit is needed", "{" TOPO ", " FLOW ", \"stop\": 20}", NULL, NULL,
     {"t.json: stop:", "expected a time", "no unit"}},
    {"stop beyond the engine's clock", "{" TOPO ", " FLOW ", \"stop\": \"18s\"}", NULL, NULL,
     {"t.json: stop:", "expected a time of at most 17.592186044415s (where the engine's clock ends)", "got \"18s\""}},
    {"zero size", "{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"0B\"}]}",
     NULL, NULL, {"traffic.0.size:", "greater than zero"}},
    {"negative size", "{" TOPO ", " FLOW ", \"switch\": {\"buffer\": \"-1MB\"}}", NULL, NULL,
     {"switch.buffer:", "negative"}},
    {"buffer beyond the 32-bit ingress counters", "{" TOPO ", " FLOW ", \"switch\": {\"buffer\": \"2148MB\"}}", NULL,
     NULL, {"switch.buffer:", "below 2GiB", "2.148GB"}},
    {"zero link rate", "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"0Gbps\"}}, " FLOW "}",
     NULL, NULL, {"topology.link.rate:", "greater than zero"}},
    {"missing topology", "{" FLOW "}", NULL, NULL, {"t.json: topology:", "required"}},
    {"missing traffic", "{" TOPO "}", NULL, NULL, {"t.json: traffic:", "required"}},
    {"unknown host in traffic",
     "{" TOPO ", \"traffic\": [" "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}, "
     "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h9\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.1.dst:", "\"h9\"", "h0..h3"}},
    {"unknown host in a list",
     "{" TOPO ", \"traffic\": [{\"type\": \"alltoall\", \"hosts\": [\"h0\", \"h1\", \"hX\"], \"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.0.hosts.2:", "\"hX\""}},
    {"empty traffic array", "{" TOPO ", \"traffic\": []}", NULL, NULL, {"t.json: traffic:", "non-empty"}},
    {"bad range", "{" TOPO ", \"traffic\": [{\"type\": \"incast\", \"senders\": \"h9-h3\", \"receiver\": \"h0\", "
                  "\"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.0.senders:", "bad range", "h9-h3"}},
    {"probability above 1", "{" TOPO ", " FLOW ", \"switch\": {\"ecn\": {\"pmax\": 1.5}}}", NULL, NULL,
     {"switch.ecn.pmax:", "from 0 to 1", "1.5"}},
    {"g of zero", "{" TOPO ", " FLOW ", \"host\": {\"dcqcn\": {\"g\": 0}}}", NULL, NULL,
     {"host.dcqcn.g:", "greater than 0"}},
    {"duplicate flow id",
     "{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}, "
     "{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.1.id:", "traffic.0", "unique"}},
    {"id clashing with an automatic id",
     "{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}, "
     "{\"type\": \"flow\", \"id\": \"t0\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.1.id:", "automatic id of traffic.0"}},
    {"id with a comma",
     "{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"id\": \"a,b\", \"src\": \"h0\", \"dst\": \"h1\", "
     "\"size\": \"1MB\"}]}", NULL, NULL, {"traffic.0.id:", "commas"}},
    {"duplicate JSON key", "{" TOPO ", " FLOW ", \"host\": {\"mtu\": 1024, \"mtu\": 2048}}", NULL, NULL,
     {"host.mtu:", "twice"}},
    {"--set on a field that does not exist", MINIMAL, "host.dcqcn.gg", "1", {"host.dcqcn.gg", "(from --set)",
                                                                             "unknown field"}},
    {"--set index out of range", MINIMAL, "traffic.7.size", "4MB", {"traffic.7.size", "(from --set)",
                                                                     "1 entry"}},
    {"--set bad value", MINIMAL, "switch.ecn.kmin", "twenty", {"switch.ecn.kmin (from --set):",
                                                               "expected a size like \"20KB\"", "\"twenty\""}},
    {"--set into a number", "{" TOPO ", " FLOW ", \"host\": {\"mtu\": 1024}}", "host.mtu.x", "1", {"host.mtu.x (from --set):", "object or an array"}},
    {"--set creating an object where a number belongs", MINIMAL, "host.mtu.x", "1",
     {"host.mtu (from --set):", "expected an integer", "got an object"}},
    {"--set with an empty path component", MINIMAL, "host..mtu", "1", {"host..mtu (from --set):", "dotted path"}},
    {"delay and length together",
     "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\", "
     "\"length\": \"100m\"}}, " FLOW "}",
     NULL, NULL, {"topology.link.length:", "both"}},
    {"odd fat-tree k", "{\"topology\": {\"type\": \"fat-tree\", \"k\": 5, \"link\": {\"rate\": \"100Gbps\"}}, " FLOW "}",
     NULL, NULL, {"topology.k:", "even", "5"}},
    {"fat-tree k and shape together",
     "{\"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"pods\": 2, \"link\": {\"rate\": \"100Gbps\"}}, " FLOW "}",
     NULL, NULL, {"topology.pods:", "either \"k\""}},
    {"unregistered loss recovery", "{" TOPO ", " FLOW ", \"host\": {\"loss_recovery\": \"irn\"}}", NULL, NULL,
     {"host.loss_recovery:", "\"go-back-n\"", "got \"irn\""}},
    {"source equals destination",
     "{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"src\": \"h2\", \"dst\": \"h2\", \"size\": \"1MB\"}]}", NULL, NULL,
     {"traffic.0.dst:", "other than the source"}},
    {"receiver among the senders",
     "{" TOPO ", \"traffic\": [{\"type\": \"incast\", \"senders\": \"all\", \"receiver\": \"h0\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"traffic.0.receiver:", "not among the senders"}},
    {"too many hosts", "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2000, \"spines\": 4, "
                       "\"hosts_per_leaf\": 1000, \"link\": {\"rate\": \"100Gbps\"}}, " FLOW "}",
     NULL, NULL, {"t.json: topology:", "at most 1000000 hosts", "2000000"}},
    {"priority above 7", "{" TOPO ", " FLOW ", \"switch\": {\"pfc\": {\"priorities\": [3, 8]}}}", NULL, NULL,
     {"switch.pfc.priorities.1:", "from 0 to 7"}},
    {"integer that is not whole", "{" TOPO ", " FLOW ", \"host\": {\"ack_every\": 1.5}}", NULL, NULL,
     {"host.ack_every:", "not a whole number"}},
    {"mtu out of range", "{" TOPO ", " FLOW ", \"host\": {\"mtu\": 100}}", NULL, NULL,
     {"host.mtu:", "from 256 to 9000"}},
    {"unknown topology type", "{\"topology\": {\"type\": \"ring\"}, " FLOW "}", NULL, NULL,
     {"topology.type:", "\"fat-tree\"", "\"ring\""}},
    {"link without rate", "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"delay\": \"1us\"}}, " FLOW "}",
     NULL, NULL, {"topology.link.rate:", "required"}},
    {"end before start",
     "{" TOPO ", " FLOW ", \"faults\": [{\"type\": \"pause_storm\", \"host\": \"h1\", \"start\": \"2ms\", "
     "\"end\": \"1ms\"}]}", NULL, NULL, {"faults.0.end:", "after start"}},
    {"dwrr weights with the strict scheduler",
     "{" TOPO ", " FLOW ", \"switch\": {\"scheduler\": {\"type\": \"strict\", \"weights\": {\"3\": 1}}}}", NULL, NULL,
     {"switch.scheduler.weights:", "dwrr"}},
    {"unknown custom link endpoint",
     "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"a\", \"kind\": \"host\"}, "
     "{\"name\": \"b\", \"kind\": \"host\"}], \"links\": [{\"a\": \"a\", \"b\": \"c\", \"rate\": \"1Gbps\"}]}, "
     "\"traffic\": [{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"topology.links.0.b:", "\"c\""}},
    {"duplicate custom node name",
     "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"a\", \"kind\": \"host\"}, "
     "{\"name\": \"b\", \"kind\": \"host\"}, {\"name\": \"a\", \"kind\": \"switch\"}], \"links\": []}, "
     "\"traffic\": [{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": \"1MB\"}]}",
     NULL, NULL, {"topology.nodes.2.name:", "topology.nodes.0", "unique"}},
    {"pinned path not starting at the source",
     "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"a\", \"kind\": \"host\"}, "
     "{\"name\": \"b\", \"kind\": \"host\"}, {\"name\": \"s\", \"kind\": \"switch\"}], \"links\": ["
     "{\"a\": \"a\", \"b\": \"s\", \"rate\": \"1Gbps\"}, {\"a\": \"s\", \"b\": \"b\", \"rate\": \"1Gbps\"}]}, "
     "\"traffic\": [{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": \"1MB\", "
     "\"path\": [\"b\", \"s\", \"b\"]}]}",
     NULL, NULL, {"traffic.0.path.0:", "source host \"a\""}},
    {"monitor flow id that does not exist", "{" TOPO ", " FLOW ", \"monitor\": {\"flows\": [\"t0\", \"t1\"]}}", NULL,
     NULL, {"monitor.flows.1:", "\"t1\""}},
    {"monitor.pfc neither auto, all nor none", "{" TOPO ", " FLOW ", \"monitor\": {\"pfc\": \"some\"}}", NULL, NULL,
     {"monitor.pfc:", "expected \"auto\", \"all\" or \"none\", got \"some\""}},
    {"monitor queue pattern without a port", "{" TOPO ", " FLOW ", \"monitor\": {\"queues\": [\"s0\"]}}", NULL, NULL,
     {"monitor.queues.0:", "node:port"}},
    {"dragonfly with too many groups",
     "{\"topology\": {\"type\": \"dragonfly\", \"a\": 2, \"p\": 1, \"h\": 1, \"g\": 4, \"link\": {\"rate\": "
     "\"100Gbps\"}}, " FLOW "}", NULL, NULL, {"topology.g:", "from 2 to 3"}},
};

static void test_bad_inputs(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const struct bad_case *b = &bad_cases[i];
        struct scn_override ov = {b->set_path, b->set_value};
        struct scenario s;
        char err[SCN_ERR_MAX] = "";
        int rc = load(b->json, &ov, b->set_path ? 1 : 0, &s, err);
        bool ok = rc == SCN_EUSAGE && strncmp(err, "t.json", 6) == 0 && !strchr(err, '\n');
        for (int k = 0; k < 3 && b->expect[k]; k++)
            ok = ok && strstr(err, b->expect[k]) != NULL;
        if (!ok)
            fprintf(stderr, "\n  bad input \"%s\": rc %d, message: %s\n", b->what, rc, err);
        CU_ASSERT(ok);
        /* A failed load leaves nothing to free; freeing it anyway must be harmless. */
        CU_ASSERT_EQUAL(s.n_traffic, 0);
        CU_ASSERT_PTR_NULL(s.traffic);
        scn_free(&s);
    }
}

/*
 * A watchdog whose poll is longer than its detection or restoration time cannot honour them (SONiC refuses
 * it too): detection_time 300us with the default 10ms poll detected nothing in a 5ms run, silently.
 */
static void test_watchdog_poll_refused(void)
{
    static const struct {
        const char *wd, *set_path, *set_value, *msg;
    } cases[] = {
        {"{\"enabled\": true, \"detection_time\": \"300us\"}", NULL, NULL,
         "t.json: switch.watchdog.poll_interval: expected at most detection_time (300us), got 10ms (the default); "
         "the watchdog looks once a poll_interval, so set one of at most 300us"},
        {"{\"enabled\": true, \"detection_time\": \"1ms\", \"restoration_time\": \"500us\", \"poll_interval\": "
         "\"600us\"}", NULL, NULL,
         "t.json: switch.watchdog.poll_interval: expected at most restoration_time (500us), got 600us; the watchdog "
         "looks once a poll_interval, so set one of at most 500us"},
        {"{\"enabled\": true, \"detection_time\": \"1ms\", \"restoration_time\": \"1ms\", \"poll_interval\": "
         "\"100us\"}", "switch.watchdog.poll_interval", "2ms",
         "t.json: switch.watchdog.poll_interval (from --set): expected at most detection_time (1ms), got 2ms; the "
         "watchdog looks once a poll_interval, so set one of at most 1ms"},
        {"{\"enabled\": false, \"detection_time\": \"300us\"}", "switch.watchdog.enabled", "true",
         "t.json: switch.watchdog.poll_interval: expected at most detection_time (300us), got 10ms (the default); "
         "the watchdog looks once a poll_interval, so set one of at most 300us"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[1024], err[SCN_ERR_MAX] = "";
        snprintf(json, sizeof json, "{" TOPO ", " FLOW ", \"switch\": {\"watchdog\": %s}}", cases[i].wd);
        struct scn_override ov = {cases[i].set_path, cases[i].set_value};
        struct scenario s;
        CU_ASSERT_EQUAL(load(json, &ov, cases[i].set_path ? 1 : 0, &s, err), SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, cases[i].msg);
    }
    /* Equal times are allowed (SONiC: at least the poll), and a disabled watchdog's settings are not checked. */
    struct scenario s;
    CU_ASSERT_FATAL(load_ok("{" TOPO ", " FLOW ", \"switch\": {\"watchdog\": {\"enabled\": true, \"detection_time\": "
                            "\"100us\", \"restoration_time\": \"100us\", \"poll_interval\": \"100us\"}}}", NULL, 0, &s));
    CU_ASSERT_EQUAL(pfcwd_settings_of(&s.sw)->poll_ps, 100 * PS_PER_US);
    scn_free(&s);
    CU_ASSERT_FATAL(load_ok("{" TOPO ", " FLOW ", \"switch\": {\"watchdog\": {\"detection_time\": \"300us\"}}}", NULL, 0,
                            &s));
    scn_free(&s);
}

static void test_overrides(void)
{
    struct scenario s;
    struct scn_override ov[] = {
        {"host.dcqcn.g", "0.0625"},                                   /* number */
        {"switch.ecn.kmin", "20KB"},                                  /* not JSON: a string */
        {"switch.ecn.kmax", "\"400KB\""},                             /* a JSON string */
        {"switch.scheduler", "{\"type\": \"dwrr\", \"weights\": {\"3\": 4, \"6\": 1}}"}, /* object */
        {"traffic.0.size", "4MB"},                                    /* array index */
        {"switch.pfc.priorities", "[2, 3]"},                          /* array */
        {"switch.watchdog.enabled", "true"},                          /* boolean, object created */
        {"seed", "42"},
        {"name", "renamed"},
    };
    CU_ASSERT_FATAL(load_ok(MINIMAL, ov, (int)(sizeof ov / sizeof *ov), &s));
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->g, 0.0625);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->kmin, 20000);
    CU_ASSERT_EQUAL(ecn_settings_of(&s.sw)->kmax, 400000);
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->type, module_find("sched", "dwrr"));
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->weights[3], 4);
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->weights[6], 1);
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->weights[0], 0);
    CU_ASSERT_EQUAL(TRF(&s.traffic[0], "size", int64_t), 4000000);
    CU_ASSERT_EQUAL(pfc_settings_of(&s.sw)->lossless_mask, 0x0c);
    CU_ASSERT_TRUE(pfcwd_settings_of(&s.sw)->enabled);
    CU_ASSERT_EQUAL(s.seed, 42);
    CU_ASSERT_STRING_EQUAL(s.name, "renamed");
    scn_free(&s);

    /* Later overrides win; a nested key of a dwrr weight is an object key, not an index. */
    struct scn_override ov2[] = {{"stop", "5ms"}, {"stop", "7ms"}, {"switch.scheduler.type", "dwrr"},
                                 {"switch.scheduler.weights.5", "9"}};
    CU_ASSERT_FATAL(load_ok(MINIMAL, ov2, 4, &s));
    CU_ASSERT_EQUAL(s.stop_ps, 7 * PS_PER_MS);
    CU_ASSERT_EQUAL(sched_settings_of(&s.sw)->weights[5], 9);
    scn_free(&s);

    /* A value that comes from an override and is wrong is reported as such, deep inside an object too. */
    struct scn_override ov3 = {"host.dcqcn", "{\"preset\": \"connectx\", \"g\": 2}"};
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(load(MINIMAL, &ov3, 1, &s, err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: host.dcqcn.g (from --set):"));
    /* ...but an error elsewhere is not blamed on the override. */
    struct scn_override ov4 = {"host.mtu", "2048"};
    CU_ASSERT_EQUAL(load("{" TOPO ", " FLOW ", \"stop\": \"x\"}", &ov4, 1, &s, err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: stop: expected"));
}

static void test_topologies(void)
{
    struct scenario s;
    CU_ASSERT_FATAL(load_ok("{\"topology\": {\"type\": \"dumbbell\", \"left\": 3, \"right\": 2, \"link\": {\"rate\": "
                            "\"100Gbps\"}, \"bottleneck\": {\"rate\": \"40Gbps\", \"length\": \"100m\"}}, " FLOW "}",
                            NULL, 0, &s));
    CU_ASSERT_EQUAL(s.topo.n_hosts, 5);
    CU_ASSERT_EQUAL(((const struct topo_dumbbell *)s.topo.cfg)->bottleneck.length_mm, 100000);
    CU_ASSERT_EQUAL(((const struct topo_dumbbell *)s.topo.cfg)->bottleneck.delay_ps, 500 * PS_PER_NS); /* 100 m at 2e8 m/s */
    CU_ASSERT_STRING_EQUAL(scn_host_name(&s, 4), "h4");
    CU_ASSERT_EQUAL(scn_host_index(&s, "h4"), 4);
    CU_ASSERT_EQUAL(scn_host_index(&s, "h5"), -1);
    CU_ASSERT_EQUAL(scn_host_index(&s, "h04"), -1);
    CU_ASSERT_EQUAL(scn_host_index(&s, "s0"), -1);
    scn_free(&s);

    CU_ASSERT_FATAL(load_ok("{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 4, \"spines\": 2, "
                            "\"hosts_per_leaf\": 8, \"link\": {\"rate\": \"100Gbps\"}, \"fabric_link\": {\"rate\": "
                            "\"400Gbps\", \"delay\": \"2us\"}}, " FLOW "}", NULL, 0, &s));
    CU_ASSERT_EQUAL(s.topo.n_hosts, 32);
    const struct topo_leaf_spine *ls = s.topo.cfg;
    CU_ASSERT_EQUAL(ls->host_link.rate_bps, 100000000000LL);
    CU_ASSERT_EQUAL(ls->fabric_link.rate_bps, 400000000000LL);
    CU_ASSERT_EQUAL(ls->fabric_link.delay_ps, 2 * PS_PER_US);
    scn_free(&s);

    CU_ASSERT_FATAL(load_ok("{\"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": \"100Gbps\"}}, "
                            FLOW "}", NULL, 0, &s));
    CU_ASSERT_EQUAL(s.topo.n_hosts, 16);
    const struct topo_fat_tree *ft = s.topo.cfg;
    CU_ASSERT_EQUAL(ft->k, 4);
    CU_ASSERT_EQUAL(ft->cores, 4);
    CU_ASSERT_EQUAL(ft->hosts_per_tor, 2);
    CU_ASSERT_EQUAL(ft->oversubscription, 1.0);
    scn_free(&s);

    CU_ASSERT_FATAL(load_ok("{\"topology\": {\"type\": \"fat-tree\", \"pods\": 2, \"tors_per_pod\": 3, "
                            "\"aggs_per_pod\": 2, \"hosts_per_tor\": 5, \"cores\": 2, \"host_link\": {\"rate\": "
                            "\"25Gbps\"}, \"fabric_link\": {\"rate\": \"100Gbps\"}, \"oversubscription\": 2.5}, "
                            FLOW "}", NULL, 0, &s));
    CU_ASSERT_EQUAL(s.topo.n_hosts, 30);
    ft = s.topo.cfg;
    CU_ASSERT_EQUAL(ft->k, 0);
    CU_ASSERT_EQUAL(ft->oversubscription, 2.5);
    scn_free(&s);

    CU_ASSERT_FATAL(load_ok("{\"topology\": {\"type\": \"dragonfly\", \"a\": 4, \"p\": 2, \"h\": 2, \"link\": "
                            "{\"rate\": \"100Gbps\"}, \"routing\": \"ugal\"}, " FLOW "}", NULL, 0, &s));
    CU_ASSERT_PTR_EQUAL(topo_dragonfly_of(&s), s.topo.cfg);
    CU_ASSERT_EQUAL(topo_dragonfly_of(&s)->g, 9); /* a*h + 1 */
    CU_ASSERT_EQUAL(s.topo.n_hosts, 72);
    CU_ASSERT_EQUAL(topo_dragonfly_of(&s)->routing, DF_ROUTE_UGAL);
    scn_free(&s);

    struct scenario r;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/custom-ring.json", NULL, 0, &r, err, sizeof err), SCN_OK);
    CU_ASSERT_STRING_EQUAL(scn_topo_name(&r), "custom");
    const struct topo_custom *cu = r.topo.cfg;
    CU_ASSERT_EQUAL(cu->n_nodes, 8);
    CU_ASSERT_EQUAL(r.topo.n_hosts, 4);
    CU_ASSERT_EQUAL(cu->host_node[0], 4);
    CU_ASSERT_STRING_EQUAL(scn_host_name(&r, 2), "hC");
    CU_ASSERT_EQUAL(scn_host_index(&r, "hD"), 3);
    CU_ASSERT_EQUAL(scn_host_index(&r, "A"), -1); /* a switch is not a host */
    CU_ASSERT_EQUAL(TRF(&r.traffic[0], "path", struct scn_route).n, 5);
    CU_ASSERT_STRING_EQUAL(TRF(&r.traffic[0], "path", struct scn_route).node[2], "B");
    CU_ASSERT_EQUAL(cu->links[4].link.length_mm, 200000);
    CU_ASSERT_EQUAL(cu->links[4].link.delay_ps, PS_PER_US);
    scn_free(&r);
}

static void test_traffic_and_faults(void)
{
    struct scenario s;
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 16, \"link\": {\"rate\": \"100Gbps\"}},\n"
        " // comments are allowed\n"
        " \"traffic\": [\n"
        "  {\"type\": \"incast\", \"id\": \"in\", \"senders\": [\"h5\", \"h2\"], \"receiver\": \"h0\", \"size\": \"1MB\","
        "   \"start\": \"10us\", \"priority\": 1},\n"
        "  {\"type\": \"poisson\", \"load\": 0.5, \"size_cdf\": \"websearch\", \"end\": \"5ms\", \"pattern\": "
        "\"permutation\"},\n"
        "  {\"type\": \"allreduce\", \"hosts\": \"h4-h7\", \"size\": \"64MB\"},\n"
        "  {\"type\": \"incast\", \"senders\": \"h3\", \"receiver\": \"h4\", \"size\": \"1MB\"},\n"
        "  {\"type\": \"alltoall\", \"hosts\": [\"h1\", \"h3\"], \"size\": \"1MB\"},\n"
        "  {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"1KiB\", \"rate\": \"40Gbps\", "
        "\"path\": [\"h1\", \"s0\", \"h2\"]}\n"
        " ],\n"
        " /* faults */ \"faults\": [\n"
        "  {\"type\": \"pause_storm\", \"host\": \"h3\", \"start\": \"1ms\"},\n"
        "  {\"type\": \"link_down\", \"between\": [\"s0\", \"h1\"], \"at\": \"2ms\", \"until\": \"4ms\"},\n"
        "  {\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"10Gbps\"}\n"
        " ],\n"
        " \"monitor\": {\"queues\": [\"s0:*\", \"*:3\"], \"flows\": [\"in\", \"in.1\", \"t5\"]}}";
    CU_ASSERT_FATAL(load_ok(json, NULL, 0, &s));
    CU_ASSERT_EQUAL_FATAL(s.n_traffic, 6);
    const struct scn_traffic *t = s.traffic;
    CU_ASSERT_STRING_EQUAL(t[0].id, "in");
    CU_ASSERT_EQUAL(TRF(&t[0], "senders", struct scn_hostset).n, 2);
    CU_ASSERT_EQUAL(TRF(&t[0], "senders", struct scn_hostset).idx[0], 5); /* order as given */
    CU_ASSERT_EQUAL(TRF(&t[0], "senders", struct scn_hostset).idx[1], 2);
    CU_ASSERT_EQUAL(t[0].priority, 1);
    CU_ASSERT_EQUAL(t[0].start_ps, 10 * PS_PER_US);
    CU_ASSERT_STRING_EQUAL(t[1].id, "t1");
    CU_ASSERT_EQUAL(TRF(&t[1], "hosts", struct scn_hostset).n, 16); /* default "all" */
    CU_ASSERT_EQUAL(TRF(&t[1], "load", double), 0.5);
    CU_ASSERT_STRING_EQUAL((const char *)tr_field(&t[1], "size_cdf"), "websearch");
    CU_ASSERT_EQUAL(TRF(&t[1], "end", int64_t), 5 * PS_PER_MS);
    CU_ASSERT_EQUAL(TRF(&t[1], "pattern", int), 1); /* permutation */
    CU_ASSERT_EQUAL(TRF(&t[2], "hosts", struct scn_hostset).n, 4);
    CU_ASSERT_EQUAL(TRF(&t[2], "hosts", struct scn_hostset).idx[0], 4);
    CU_ASSERT_EQUAL(TRF(&t[2], "hosts", struct scn_hostset).idx[3], 7);
    CU_ASSERT_EQUAL(TRF(&t[2], "nics_per_server", int), 1);
    CU_ASSERT_EQUAL(TRF(&t[3], "senders", struct scn_hostset).n, 1); /* a single host name is a selector too */
    CU_ASSERT_EQUAL(TRF(&t[3], "senders", struct scn_hostset).idx[0], 3);
    CU_ASSERT_EQUAL(TRF(&t[4], "hosts", struct scn_hostset).n, 2);
    CU_ASSERT_EQUAL(TRF(&t[5], "rate", int64_t), 40000000000LL);
    CU_ASSERT_EQUAL(TRF(&t[5], "size", int64_t), 1024);
    CU_ASSERT_EQUAL(TRF(&t[5], "path", struct scn_route).n, 3);
    CU_ASSERT_EQUAL(s.n_faults, 3);
    CU_ASSERT_STRING_EQUAL(scn_fault_kind_name(&s.faults[1]), "link_down");
    CU_ASSERT_EQUAL(FF(&s.faults[0], "priority", int), 3);
    CU_ASSERT_EQUAL(FF(&s.faults[0], "end", int64_t), -1);
    CU_ASSERT_STRING_EQUAL((const char *)kind_field("fault", s.faults[1].type, s.faults[1].conf, "between") +
                               SCN_NAME_MAX, "h1");
    CU_ASSERT_EQUAL(FF(&s.faults[1], "at", int64_t), 2 * PS_PER_MS);
    CU_ASSERT_EQUAL(FF(&s.faults[1], "until", int64_t), 4 * PS_PER_MS);
    CU_ASSERT_EQUAL(FF(&s.faults[2], "start", int64_t), 0);
    CU_ASSERT_EQUAL(FF(&s.faults[2], "rate", int64_t), 10000000000LL);
    CU_ASSERT_EQUAL(monitor_settings_of(&s)->flows, MON_FLOWS_LIST);
    CU_ASSERT_EQUAL(monitor_settings_of(&s)->n_flows, 3);
    CU_ASSERT_EQUAL(monitor_settings_of(&s)->n_queues, 2);
    scn_free(&s);
}

/* Every shape of scenario the serializer must reproduce. */
static const char *const round_trip_inputs[] = {
    MINIMAL,
    "{\"name\": \"x\", \"description\": \"tab\\there \\\"quoted\\\"\", \"seed\": 123456789012, \"stop\": \"1.5ms\", "
    "\"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"host_link\": {\"rate\": \"25Gbps\", \"delay\": \"1.25us\"}, "
    "\"fabric_link\": {\"rate\": \"100Gbps\", \"length\": \"1.5km\"}, \"oversubscription\": 3},"
    "\"switch\": {\"buffer\": \"12MiB\", \"pfc\": {\"priorities\": [], \"xoff\": \"100KB\", \"headroom\": \"0B\"}, "
    "\"ecn\": {\"enabled\": false, \"mark_on\": \"enqueue\", \"pmax\": 0.1}, \"scheduler\": {\"type\": \"dwrr\", "
    "\"weights\": {\"0\": 10, \"7\": 3}}, \"watchdog\": {\"enabled\": true, \"action\": \"alert\"}},"
    "\"host\": {\"mtu\": 4096, \"cc\": \"none\", \"dcqcn\": {\"preset\": \"connectx\", \"g\": 0.1}, \"ack_every\": 4},"
    "\"traffic\": [{\"type\": \"alltoall\", \"hosts\": [\"h3\", \"h1\", \"h2\"], \"size\": \"3KB\"},"
    "{\"type\": \"incast\", \"senders\": \"h2-h9\", \"receiver\": \"h0\", \"size\": \"1MB\"},"
    "{\"type\": \"poisson\", \"hosts\": \"h0-h15\", \"load\": 0.3, \"size_cdf\": \"cdf/my file.txt\"},"
    "{\"type\": \"allreduce\", \"hosts\": [\"h7\", \"h1\"], \"size\": \"1GB\", \"start\": \"1us\"}],"
    "\"monitor\": {\"interval\": \"1us\", \"flows\": \"none\"}}",
    "{\"topology\": {\"type\": \"dragonfly\", \"a\": 2, \"p\": 2, \"h\": 1, \"g\": 2, \"host_link\": {\"rate\": "
    "\"100Gbps\"}, \"local_link\": {\"rate\": \"200Gbps\"}, \"global_link\": {\"rate\": \"50Gbps\", \"length\": "
    "\"10m\"}, \"routing\": \"valiant\"}, " FLOW ", \"faults\": [{\"type\": \"link_down\", \"between\": [\"g0r0\", "
    "\"g1r0\"], \"at\": \"1ms\"}, {\"type\": \"pause_storm\", \"host\": \"h2\", \"priority\": 5, \"start\": \"0us\", "
    "\"end\": \"3ms\"}, {\"type\": \"slow_receiver\", \"host\": \"h1\", \"rate\": \"1Gbps\", \"start\": \"1ms\", "
    "\"end\": \"2ms\"}], \"monitor\": {\"flows\": [\"t0\"], \"queues\": [\"g0r0:1\"]}}",
};

/* Checks that text loads, and that its serialization reloads to the same serialization. */
static void check_round_trip(const char *label, const struct scenario *first)
{
    char *j1 = scn_to_json(first);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
    struct scenario s2;
    char err[SCN_ERR_MAX];
    int rc = scn_load_text(first->file, j1, NULL, 0, &s2, err, sizeof err);
    if (rc != SCN_OK)
        fprintf(stderr, "\n  %s: serialized scenario does not load: %s\n%s\n", label, err, j1);
    CU_ASSERT_EQUAL_FATAL(rc, SCN_OK);
    char *j2 = scn_to_json(&s2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j2);
    CU_ASSERT_STRING_EQUAL(j1, j2);
    /* A few fields straight from the structs, so that a lossy printer cannot hide behind a lossy parser. */
    CU_ASSERT_EQUAL(first->stop_ps, s2.stop_ps);
    CU_ASSERT_EQUAL(first->seed, s2.seed);
    CU_ASSERT_EQUAL(first->topo.n_hosts, s2.topo.n_hosts);
    CU_ASSERT_EQUAL(first->n_traffic, s2.n_traffic);
    CU_ASSERT_EQUAL(dcqcn_params_of(&first->host)->g, dcqcn_params_of(&s2.host)->g);
    CU_ASSERT_EQUAL(pfc_settings_of(&first->sw)->lossless_mask, pfc_settings_of(&s2.sw)->lossless_mask);
    CU_ASSERT_TRUE(scn_host_equal(&first->host, &s2.host));
    /* Every value is a module's, a pointer into each scenario's store: compared by value. */
    CU_ASSERT_TRUE(settings_mods_equal(&first->sw.mods, &s2.sw.mods));
    CU_ASSERT_EQUAL(switch_params_of(&first->sw)->buffer, switch_params_of(&s2.sw)->buffer);
    for (int i = 0; i < first->n_traffic && i < s2.n_traffic; i++) {
        const struct scn_traffic *a = &first->traffic[i], *b = &s2.traffic[i];
        CU_ASSERT_STRING_EQUAL(a->id, b->id);
        CU_ASSERT_EQUAL(a->start_ps, b->start_ps);
        CU_ASSERT_EQUAL_FATAL(a->type, b->type);
        /* the kind's own fields, as its table lays them out: quantities, numbers, host selectors */
        const struct module *m = module_at("traffic", a->type);
        for (const struct setting *f = m->groups[0]->fields; f->name; f++) {
            const char *x = (const char *)a->conf + f->offset, *y = (const char *)b->conf + f->offset;
            if (f->kind <= SETTING_LENGTH)
                CU_ASSERT_EQUAL(*(const int64_t *)x, *(const int64_t *)y);
            if (f->kind == SETTING_NUMBER)
                CU_ASSERT_EQUAL(*(const double *)x, *(const double *)y);
            if (f->dump == scn_dump_hostset) {
                const struct scn_hostset *ha = (const void *)x, *hb = (const void *)y;
                CU_ASSERT_EQUAL_FATAL(ha->n, hb->n);
                CU_ASSERT_EQUAL(0, memcmp(ha->idx, hb->idx, sizeof *ha->idx * (size_t)ha->n));
            }
        }
    }
    free(j1);
    free(j2);
    scn_free(&s2);
}

static void test_round_trip(void)
{
    for (size_t i = 0; i < sizeof round_trip_inputs / sizeof *round_trip_inputs; i++) {
        struct scenario s;
        CU_ASSERT_FATAL(load_ok(round_trip_inputs[i], NULL, 0, &s));
        check_round_trip("inline scenario", &s);
        scn_free(&s);
    }
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct scenario s;
        char err[SCN_ERR_MAX];
        if (scn_load(g.gl_pathv[i], NULL, 0, &s, err, sizeof err) != SCN_OK) {
            CU_FAIL("shipped scenario does not load");
            continue;
        }
        check_round_trip(g.gl_pathv[i], &s);
        scn_free(&s);
    }
    globfree(&g);
}

static void test_unreadable_file(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(scn_load("scenarios/does-not-exist.json", NULL, 0, &s, err, sizeof err), SCN_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "scenarios/does-not-exist.json: cannot read: "));
    CU_ASSERT_EQUAL(scn_load("scenarios", NULL, 0, &s, err, sizeof err), SCN_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "scenarios: cannot read: "));
    scn_free(&s);
}

/* Loads json (with an optional override) and asserts exit status 2 and exactly the message want. */
static void refused(const char *json, const char *set_path, const char *set_value, const char *want)
{
    struct scn_override ov = {set_path, set_value};
    struct scenario s;
    char err[SCN_ERR_MAX] = "";
    int rc = load(json, &ov, set_path ? 1 : 0, &s, err);
    if (rc != SCN_EUSAGE || strcmp(err, want) != 0)
        fprintf(stderr, "\n  rc %d, message: %s\n  wanted: %s\n", rc, err, want);
    CU_ASSERT_EQUAL(rc, SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, want);
    scn_free(&s);
}

#define WITH(field) "{" TOPO ", " field ", " FLOW "}"

/*
 * Strings that are not UTF-8 (which made summary.json invalid JSON) and the
 * escape \u0000 (which cJSON silently cut the string at) are refused, naming
 * the path; so is nesting beyond cJSON's limit, which read as a syntax error.
 */
static void test_text_not_utf8(void)
{
    refused(WITH("\"name\": \"ab\xff" "c\""), NULL, NULL,
            "t.json: name: expected UTF-8 text, got an invalid byte 0xff at offset 2");
    refused(WITH("\"name\": \"a\\u0000b\""), NULL, NULL,
            "t.json: name: expected text without NUL characters, got \\u0000 at offset 1");
    /* Overlong form, surrogate, above U+10FFFF, cut short, a Latin-1 byte before ASCII. */
    refused(WITH("\"description\": \"\xc0\x80\""), NULL, NULL,
            "t.json: description: expected UTF-8 text, got an invalid byte 0xc0 at offset 0");
    refused(WITH("\"description\": \"x\xed\xa0\x80\""), NULL, NULL,
            "t.json: description: expected UTF-8 text, got an invalid byte 0xed at offset 1");
    refused(WITH("\"description\": \"\xf4\x90\x80\x80\""), NULL, NULL,
            "t.json: description: expected UTF-8 text, got an invalid byte 0xf4 at offset 0");
    refused(WITH("\"description\": \"ab\xe2\x82\""), NULL, NULL,
            "t.json: description: expected UTF-8 text, got an invalid byte 0xe2 at offset 2");
    refused(WITH("\"description\": \"caf\xe9 au lait\""), NULL, NULL,
            "t.json: description: expected UTF-8 text, got an invalid byte 0xe9 at offset 3");
    /* In a key, deep in the tree, after escaped quotes and an escaped backslash that only look like \u0000. */
    refused("{" TOPO ", \"na\xffme\": \"x\", " FLOW "}", NULL, NULL,
            "t.json: (top level): expected a field name in UTF-8, got an invalid byte 0xff at offset 2");
    refused("{" TOPO ", \"host\": {\"x\\u0000\": 1}, " FLOW "}", NULL, NULL,
            "t.json: host: expected a field name without NUL characters, got \\u0000 at offset 1");
    refused("{" TOPO ", \"description\": \"q\\\"\\\\u0000\\\"\", \"traffic\": [{\"type\": \"flow\", \"id\": "
            "\"f\\u0000\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}", NULL, NULL,
            "t.json: traffic.0.id: expected text without NUL characters, got \\u0000 at offset 1");
    /* From --set, as JSON and as a plain string. */
    refused(MINIMAL, "name", "\"x\\u0000\"", "t.json: name (from --set): expected text without NUL characters, "
            "got \\u0000 at offset 1");
    refused(MINIMAL, "description", "\xff", "t.json: description (from --set): expected UTF-8 text, got an invalid "
            "byte 0xff at offset 0");

    /* What is fine stays fine: UTF-8 of every length, and a backslash followed by u0000. */
    struct scenario s;
    CU_ASSERT_FATAL(load_ok(WITH("\"description\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\\\u0000 \\u00e9\""), NULL, 0,
                            &s));
    CU_ASSERT_STRING_EQUAL(s.description, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\u0000 \xc3\xa9");
    scn_free(&s);

    /* 1000 levels is cJSON's limit: the scenario is wrong for another reason; 1001 is named for what it is. */
    char deep[2200], *p = deep;
    p += sprintf(p, "{\"a\": ");
    for (int i = 0; i < 999; i++)
        *p++ = '[';
    for (int i = 0; i < 999; i++)
        *p++ = ']';
    strcpy(p, "}");
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(load(deep, NULL, 0, &s, err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: a: expected one of the fields"));
    memmove(deep + 7, deep + 6, strlen(deep + 6) + 1);
    deep[6] = '[';
    p = deep + strlen(deep) - 1;
    strcpy(p, "]}");
    refused(deep, NULL, NULL, "t.json:1:1006: expected valid JSON, got arrays and objects nested deeper than 1000 "
            "levels");
}

/* A sweep file is JSON read by the same rules.  The file's name is unique: suites may run side by side. */
static void test_sweep_text_not_utf8(void)
{
    static const char *const cases[][2] = {
        {"{\"scenario\": \"scenarios/incast-16to1.json\", \"grid\": {\"name\": [\"a\\u0000\"]}}",
         "grid.name.0: expected text without NUL characters, got \\u0000 at offset 1"},
        {"{\"scenario\": \"scenarios/incast-16to1.json\", \"description\": \"\xfe\", \"grid\": {\"seed\": [1]}}",
         "description: expected UTF-8 text, got an invalid byte 0xfe at offset 0"},
    };
    char path[] = "/tmp/rocesim-sweep-text-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(cases[i][0], f);
        fclose(f);
        struct sweep_spec sp;
        char err[SCN_ERR_MAX] = "", want[SCN_ERR_MAX];
        snprintf(want, sizeof want, "%s: %s", path, cases[i][1]);
        CU_ASSERT_EQUAL(sweep_load(path, &sp, err, sizeof err), SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, want);
    }
    remove(path);
}

/*
 * Every time a scenario gives is a time on the engine's clock or is added to one, so each is checked against the
 * clock's end (2^44 - 1 ps) when the scenario loads: a traffic start of 20 s was accepted and never came, and the
 * run reported sim_end_ns 0.  The end itself is accepted.
 */
static void test_times_within_clock(void)
{
#define STORM "\"faults\": [{\"type\": \"pause_storm\", \"host\": \"h1\", \"start\": \"1ms\"}]"
#define DOWN "\"faults\": [{\"type\": \"link_down\", \"between\": [\"h0\", \"s0\"], \"at\": \"1ms\"}]"
#define POISSON "\"traffic\": [{\"type\": \"poisson\", \"hosts\": \"all\", \"load\": 0.5, \"size_cdf\": \"websearch\"}]"
    static const struct {
        const char *json, *path;
    } cases[] = {
        {MINIMAL, "stop"},
        {MINIMAL, "traffic.0.start"},
        {"{" TOPO ", " POISSON "}", "traffic.0.start"},
        {"{" TOPO ", " POISSON "}", "traffic.0.end"},
        {"{" TOPO ", " FLOW ", " STORM "}", "faults.0.start"},
        {"{" TOPO ", " FLOW ", " STORM "}", "faults.0.end"},
        {"{" TOPO ", " FLOW ", " DOWN "}", "faults.0.at"},
        {"{" TOPO ", " FLOW ", " DOWN "}", "faults.0.until"},
        {MINIMAL, "topology.link.delay"},
        {MINIMAL, "host.rto"},
        {MINIMAL, "monitor.interval"},
        {MINIMAL, "switch.deadlock_check"},
        {MINIMAL, "switch.watchdog.detection_time"},
        {MINIMAL, "host.dcqcn.alpha_timer"},
        {MINIMAL, "host.hpcc.base_rtt"}, /* a module's table: the same check */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct scn_override ov[] = {{cases[i].path, "17.592186044416s"}, {"stop", "17.592186044415s"}};
        struct scenario s;
        char err[SCN_ERR_MAX] = "", want[SCN_ERR_MAX];
        snprintf(want, sizeof want, "t.json: %s (from --set): expected a time of at most 17.592186044415s (where the "
                 "engine's clock ends), got \"17.592186044416s\"", cases[i].path);
        CU_ASSERT_EQUAL(load(cases[i].json, ov, 1, &s, err), SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, want);
        /* the clock's last picosecond is a time like any other */
        ov[0].value = "17.592186044415s";
        CU_ASSERT(load_ok(cases[i].json, ov, 2, &s));
        scn_free(&s);
    }
    /* the same said of a time written in the file, and of a length whose delay (5 ns per metre) is past the end */
    struct scenario s;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL(load("{" TOPO ", \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
                         "\"size\": \"1MB\", \"start\": \"20s\"}]}", NULL, 0, &s, err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: traffic.0.start: expected a time of at most 17.592186044415s (where the "
                                "engine's clock ends), got \"20s\"");
    CU_ASSERT_EQUAL(load("{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", "
                         "\"length\": \"3518438km\"}}, " FLOW "}", NULL, 0, &s, err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: topology.link.length: expected a length of at most 3518437208.883m (a delay "
                                "of 5 ns per metre, at most 17.592186044415s, where the engine's clock ends), got "
                                "\"3518438km\"");
    CU_ASSERT(load_ok("{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", "
                      "\"length\": \"3518437208.883m\"}}, " FLOW "}", NULL, 0, &s));
    CU_ASSERT_EQUAL(((const struct topo_star *)s.topo.cfg)->link.delay_ps, 17592186044415LL);
    scn_free(&s);
#undef STORM
#undef DOWN
#undef POISSON
}

/*
 * Seeds are 64-bit and read exactly: cJSON reads numbers as doubles, and 9007199254740993 (2^53 + 1) used to run as
 * 9007199254740992.  From the file, from --set, in the dump; a seed that is not one is refused, never rounded.
 */
static void test_seeds_exact(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_FATAL(load_ok("{" TOPO ", " FLOW ", \"seed\": 9007199254740993}", NULL, 0, &s));
    CU_ASSERT_EQUAL(s.seed, 9007199254740993ULL);
    char *j = scn_to_json(&s);
    CU_ASSERT_PTR_NOT_NULL(j && strstr(j, "\"seed\": 9007199254740993,"));
    scn_free(&s);
    /* the dump loads again as the same seed */
    CU_ASSERT(j && load_ok(j, NULL, 0, &s) && s.seed == 9007199254740993ULL);
    scn_free(&s);
    free(j);
    struct scn_override ov = {"seed", "18446744073709551615"};
    CU_ASSERT_FATAL(load_ok(MINIMAL, &ov, 1, &s));
    CU_ASSERT_EQUAL(s.seed, UINT64_MAX);
    scn_free(&s);
    ov.value = "9007199254740993";
    CU_ASSERT_FATAL(load_ok(MINIMAL, &ov, 1, &s));
    CU_ASSERT_EQUAL(s.seed, 9007199254740993ULL);
    scn_free(&s);
    static const char *const bad[] = {"18446744073709551616", "1e19", "9007199254740993.0", "2.5", "-1", "\"7\""};
    static const char *const got[] = {"a number 18446744073709551616", "a number 1e19", "a number 9007199254740993.0",
                                      "a number 2.5", "a number -1", "a string \"7\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char json[256], want[SCN_ERR_MAX];
        snprintf(json, sizeof json, "{" TOPO ", " FLOW ", \"seed\": %s}", bad[i]);
        snprintf(want, sizeof want, "t.json: seed: expected an integer from 0 to 18446744073709551615, got %s", got[i]);
        CU_ASSERT_EQUAL(load(json, NULL, 0, &s, err), SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, want);
    }
    /* the digits reader behind --seed */
    uint64_t x = 0;
    CU_ASSERT(scn_seed_parse("18446744073709551615", 20, &x) == 0 && x == UINT64_MAX);
    CU_ASSERT_EQUAL(scn_seed_parse("18446744073709551616", 20, &x), -1);
    CU_ASSERT_EQUAL(scn_seed_parse("", 0, &x), -1);
    CU_ASSERT_EQUAL(scn_seed_parse(" 5", 2, &x), -1);
    CU_ASSERT_EQUAL(scn_seed_parse("+5", 2, &x), -1);
}

/* Sweep and tune files list seeds read the same way: 2^53 and 2^53 + 1 are two seeds, not one given twice. */
static void test_seed_lists_exact(void)
{
    char path[] = "/tmp/rocesim-seeds-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    test_write_text(path, "{\"scenario\": \"scenarios/incast-16to1.json\", \"grid\": {\"host.dcqcn.g\": [0.5]}, "
                          "\"seeds\": [9007199254740992, 9007199254740993, 18446744073709551615], "
                          "\"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}");
    struct sweep_spec sp;
    char err[SCN_ERR_MAX] = "", want[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(sweep_load(path, &sp, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sp.n_seeds, 3);
    CU_ASSERT(sp.seeds[0] == 9007199254740992ULL && sp.seeds[1] == 9007199254740993ULL && sp.seeds[2] == UINT64_MAX);
    sweep_spec_free(&sp);
    test_write_text(path, "{\"scenario\": \"scenarios/incast-16to1.json\", \"grid\": {\"host.dcqcn.g\": [0.5]}, "
                          "\"seeds\": [18446744073709551616], \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}");
    snprintf(want, sizeof want, "%s: seeds[0]: expected an integer from 0 to 18446744073709551615, got a number "
             "18446744073709551616", path);
    CU_ASSERT_EQUAL(sweep_load(path, &sp, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, want);
    test_write_text(path, "{\"scenario\": \"scenarios/incast-16to1.json\", \"params\": {\"host.dcqcn.g\": "
                          "{\"min\": 0.01, \"max\": 0.5}}, \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, "
                          "\"seeds\": [9007199254740992, 9007199254740993], \"confirm_seeds\": [9007199254740995], "
                          "\"search\": {\"seed\": 9007199254740997}}");
    struct tune_spec ts;
    CU_ASSERT_EQUAL_FATAL(tune_load(path, &ts, err, sizeof err), 0);
    CU_ASSERT(ts.n_seeds == 2 && ts.seeds[0] == 9007199254740992ULL && ts.seeds[1] == 9007199254740993ULL);
    CU_ASSERT(ts.n_confirm == 1 && ts.confirm[0] == 9007199254740995ULL);
    CU_ASSERT_EQUAL(ts.search_seed, 9007199254740997ULL);
    tune_spec_free(&ts);
    remove(path);
}

static void test_type_names(void)
{
    struct scenario s = {.topo.type = module_find("topology", "leaf-spine")};
    CU_ASSERT_STRING_EQUAL(scn_topo_name(&s), "leaf-spine");
    s.topo.type = module_find("topology", "custom");
    CU_ASSERT_STRING_EQUAL(scn_topo_name(&s), "custom");
    struct scn_traffic ar = {.type = module_find("traffic", "allreduce")}, fl = {0};
    CU_ASSERT_STRING_EQUAL(scn_traffic_kind_name(&ar), "allreduce");
    CU_ASSERT_STRING_EQUAL(scn_traffic_kind_name(&fl), "flow"); /* the kind's default */
}

void test_scenario_register(void)
{
    CU_pSuite s = CU_add_suite("scenario", NULL, NULL);
    if (!s)
        return;
    CU_add_test(s, "shipped scenarios load", test_shipped_scenarios_load);
    CU_add_test(s, "incast-16to1 contents", test_incast_scenario);
    CU_add_test(s, "documented defaults", test_defaults);
    CU_add_test(s, "name from the file name", test_name_from_file);
    CU_add_test(s, "connectx preset and explicit fields", test_connectx_preset);
    CU_add_test(s, "bad inputs are refused with file and path", test_bad_inputs);
    CU_add_test(s, "--set overrides", test_overrides);
    CU_add_test(s, "every time is within the engine's clock (traffic, faults, links, timers, a module's)",
                test_times_within_clock);
    CU_add_test(s, "seeds are 64-bit and exact: file, --set, dump; refused, never rounded", test_seeds_exact);
    CU_add_test(s, "sweep and tune seeds are exact", test_seed_lists_exact);
    CU_add_test(s, "watchdog poll_interval longer than detection or restoration refused", test_watchdog_poll_refused);
    CU_add_test(s, "topologies and host names", test_topologies);
    CU_add_test(s, "traffic, faults, monitor", test_traffic_and_faults);
    CU_add_test(s, "scn_to_json round trip", test_round_trip);
    CU_add_test(s, "unreadable file", test_unreadable_file);
    CU_add_test(s, "type names", test_type_names);
    CU_add_test(s, "text that is not UTF-8, \\u0000 and deep nesting are refused", test_text_not_utf8);
    CU_add_test(s, "a sweep file's text follows the same rules", test_sweep_text_not_utf8);
}
