/* htsim_uec import and export: the reference's derived constants as it prints them (main_uec.cpp), its fat trees,
 * the matrix's flows and triggers, every refusal by name or by file and line, and the round trip. */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/ops/htsim.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fuzzing harness itself (docs/RELIABILITY.md), so that a regression replays through exactly its checks. */
#define LLVMFuzzerTestOneInput fuzz_htsim_one
#include "tests/fuzz/fuzz_htsim.c"
#undef LLVMFuzzerTestOneInput

static char cm_path[64], topo_path[64];

/* Imports argv (a space-separated command line, CM and TOPO standing for the files written) into *out. */
static int imp(const char *cm, const char *topo, const char *args, cJSON **out, char *err, size_t errlen,
               struct sbuf *notes)
{
    snprintf(cm_path, sizeof cm_path, "/tmp/rocesim-uet-%d.cm", (int)getpid());
    snprintf(topo_path, sizeof topo_path, "/tmp/rocesim-uet-%d.topo", (int)getpid());
    test_write_text(cm_path, cm);
    if (topo)
        test_write_text(topo_path, topo);
    char line[1024], *argv[64];
    snprintf(line, sizeof line, "%s", args);
    int argc = 0;
    for (char *t = strtok(line, " "); t && argc < 64; t = strtok(NULL, " "))
        argv[argc++] = !strcmp(t, "CM") ? cm_path : !strcmp(t, "TOPO") ? topo_path : t;
    *out = NULL;
    int rc = htsim_import_args(argc, argv, out, notes, err, errlen);
    remove(cm_path);
    remove(topo_path);
    return rc;
}

static cJSON *imports(const char *cm, const char *topo, const char *args)
{
    char err[SCN_ERR_MAX] = "";
    cJSON *o;
    int rc = imp(cm, topo, args, &o, err, sizeof err, NULL);
    if (rc)
        fprintf(stderr, "\n  refused: %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return o;
}

/* The compact JSON at path equals want. */
static void at_is(const cJSON *o, const char *path, const char *want)
{
    const cJSON *v = json_at_path(o, path);
    char *got = v ? cJSON_PrintUnformatted(v) : NULL;
    if (!got || strcmp(got, want))
        fprintf(stderr, "\n  %s: got %s, want %s\n", path, got ? got : "(none)", want);
    CU_ASSERT_STRING_EQUAL(got ? got : "", want);
    free(got);
}

static void refused(const char *cm, const char *topo, const char *args, const char *want)
{
    char err[SCN_ERR_MAX] = "";
    cJSON *o;
    CU_ASSERT_EQUAL(imp(cm, topo, args, &o, err, sizeof err, NULL), SCN_EUSAGE);
    CU_ASSERT_PTR_NULL(o);
    /* the file names are the test's own: compare from the message's first character after them */
    const char *e = err;
    if (!strncmp(e, cm_path, strlen(cm_path)))
        e += strlen(cm_path);
    else if (!strncmp(e, topo_path, strlen(topo_path)))
        e += strlen(topo_path);
    /* a want ending in a space is the message's beginning (the rest names a file of the test's) */
    size_t n = strlen(want);
    bool ok = n && want[n - 1] == ' ' ? !strncmp(e, want, n) : !strcmp(e, want);
    if (!ok)
        fprintf(stderr, "\n  got  \"%s\"\n  want \"%s\"\n", e, want);
    CU_ASSERT(ok);
    cJSON_Delete(o);
}

static const char one16[] = "Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n";
static const char one32[] = "Nodes 32\nConnections 1\n0->31 start 0 size 2000000\n";

/* A two-tier leaf-spine file as the reference ships its small one: 32 hosts, 4 leaves of 8 down and 2 up (4:1), 2
 * spines, 1 us links. */
static const char leaf_spine_32[] = "Nodes 32\nTiers 2\nPodsize 32\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\n"
                                    "Radix_Up 2\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\nOversubscribed 4\n\n"
                                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n";

/*
 * -failed N as the reference builds it (fat_tree_topology.cpp): links at a quarter of their rate, with a quarter of
 * the queue and of the ECN thresholds (truncated to bytes: 178450 -> 44612, 37350 -> 9337, 145250 -> 36312).  Three
 * tiers: only core -> aggregation, core 0 -> aggregation switch 0 for N = 1.  Two tiers: every leaf's links to
 * spines 0 .. N - 1, both ways.  Export gives -failed back.
 */
static void test_failed_links(void)
{
    cJSON *o = imports(one16, NULL, "-tm CM -failed 1");
    at_is(o, "faults", "[{\"type\":\"link_slow\",\"between\":[\"core0\",\"agg0\"],\"rate\":\"25Gbps\","
                       "\"direction\":\"forward\"}]");
    at_is(o, "switch.lossy_queue_limit", "{\"100Gbps\":\"178450B\",\"25Gbps\":\"44612B\"}");
    at_is(o, "switch.ecn.kmin", "{\"100Gbps\":\"37350B\",\"25Gbps\":\"9337B\"}");
    at_is(o, "switch.ecn.kmax", "{\"100Gbps\":\"145250B\",\"25Gbps\":\"36312B\"}");
    cJSON_Delete(o);
    o = imports(one32, leaf_spine_32, "-tm CM -topo TOPO -failed 1 -sender_cc_only");
    const cJSON *f = json_at_path(o, "faults");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(f), 4);
    at_is(o, "faults.3", "{\"type\":\"link_slow\",\"between\":[\"leaf3\",\"spine0\"],\"rate\":\"25Gbps\"}");
    cJSON_Delete(o);
    refused(one16, NULL, "-tm CM -failed x", "-failed: expected a whole number, got \"x\"");
    /* and back: the export writes -failed 1 and nothing else is left over */
    char cm[64], json[64], dir[64], cmd[512], p[128], *out = NULL;
    snprintf(cm, sizeof cm, "/tmp/rocesim-uetf-%d.cm", (int)getpid());
    snprintf(json, sizeof json, "/tmp/rocesim-uetf-%d.json", (int)getpid());
    snprintf(dir, sizeof dir, "/tmp/rocesim-uetf-%d.d", (int)getpid());
    test_write_text(cm, one16);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s; %s import uet-htsim -tm %s -failed 1 -end 500 --out %s && %s export "
             "uet-htsim %s -o %s", dir, json, test_rocesim_bin(), cm, json, test_rocesim_bin(), json, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(everything is expressed)"));
    free(out);
    snprintf(p, sizeof p, "%s/cmdline.txt", dir);
    char *t = test_read_file(p, NULL), want[256];
    snprintf(want, sizeof want, "htsim_uec -tm rocesim-uetf-%d.cm -seed 13 -end 500 -failed 1\n", (int)getpid());
    CU_ASSERT_STRING_EQUAL(t ? t : "", want);
    free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", dir, json, cm);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/* The default run (3 tiers, 100 Gbps, MTU 4150): the values the reference prints for one flow on 16 hosts: RTT_net
 * 14.0227 us, queue 178450 B (43 packets), ECN 37350 / 145250 B, min RTO 100.656 us. */
static void test_default_constants(void)
{
    cJSON *o = imports(one16, NULL, "-tm CM -end 1000 -sender_cc_only");
    at_is(o, "topology", "{\"type\":\"fat-tree\",\"k\":4,\"link\":{\"rate\":\"100Gbps\",\"delay\":\"1us\"}}");
    at_is(o, "host.nscc", "{\"network_rtt\":\"14.02272us\",\"qa_gate\":3}");
    at_is(o, "switch.lossy_queue_limit", "\"178450B\"");
    at_is(o, "switch.ecn", "{\"kmin\":\"37350B\",\"kmax\":\"145250B\",\"pmax\":1,\"mark_on\":\"sent\"}");
    at_is(o, "host.rto", "\"100.656us\"");
    at_is(o, "host.mtu", "4086");
    at_is(o, "host.loss_recovery", "\"uet\"");
    at_is(o, "host.uet.sack_threshold", "\"16384B\"");
    at_is(o, "host.entropy", "\"mixed\"");
    at_is(o, "host.entropy_paths", "64");
    at_is(o, "switch.trim", "{\"enabled\":true,\"size\":\"64B\",\"priority\":6}");
    at_is(o, "switch.pfc.enabled", "false");
    at_is(o, "host.ack_priority", "6");
    at_is(o, "seed", "13");
    at_is(o, "stop", "\"1000us\"");
    /* k = 4: 4 ports a switch, each a data queue Q and a header queue 2 Q */
    at_is(o, "switch.buffer", "\"2141400B\"");
    at_is(o, "traffic", "[{\"type\":\"flow\",\"id\":\"uec_0_13\",\"src\":\"h0\",\"dst\":\"h13\",\"size\":\"2000000B\","
                        "\"start\":\"0us\"}]");
    cJSON_Delete(o);
    /* at 400 Gbps (the reference's printed values): RTT 12.5057 us, Q 626650 B, ECN 128650 / 502150 B, RTO 90.198 us */
    o = imports(one16, NULL, "-tm CM -linkspeed 400000");
    at_is(o, "host.nscc.network_rtt", "\"12.50568us\"");
    at_is(o, "switch.lossy_queue_limit", "\"626650B\"");
    at_is(o, "switch.ecn.kmin", "\"128650B\"");
    at_is(o, "switch.ecn.kmax", "\"502150B\"");
    at_is(o, "host.rto", "\"90.198us\"");
    at_is(o, "topology.link.rate", "\"400Gbps\"");
    cJSON_Delete(o);
    /* without trimming the queue is 5 BDPs: 215 packets */
    o = imports(one16, NULL, "-tm CM -disable_trim");
    at_is(o, "switch.lossy_queue_limit", "\"892250B\"");
    at_is(o, "switch.trim.enabled", "false");
    cJSON_Delete(o);
}

/* The leaf-spine file: the reference prints RTT_net 9.34848 us, queue 120350 B (29 packets), RTO 72.768 us. */
static void test_leaf_spine_file(void)
{
    cJSON *o = imports(one32, leaf_spine_32, "-tm CM -topo TOPO -sender_cc_only -end 2000");
    at_is(o, "topology", "{\"type\":\"leaf-spine\",\"leaves\":4,\"spines\":2,\"hosts_per_leaf\":8,\"link\":{\"rate\":"
                         "\"100Gbps\",\"delay\":\"1us\"}}");
    at_is(o, "host.nscc.network_rtt", "\"9.34848us\"");
    at_is(o, "switch.lossy_queue_limit", "\"120350B\"");
    at_is(o, "host.rto", "\"72.768us\"");
    at_is(o, "switch.ecn.kmin", "\"24900B\"");
    at_is(o, "switch.ecn.kmax", "\"99600B\"");
    cJSON_Delete(o);
    /* the automatic two-tier tree of 32 hosts: K = 8, 8 leaves of 4 hosts, 4 spines; the same constants */
    o = imports(one32, NULL, "-tm CM -tiers 2");
    at_is(o, "topology", "{\"type\":\"leaf-spine\",\"leaves\":8,\"spines\":4,\"hosts_per_leaf\":4,\"link\":{\"rate\":"
                         "\"100Gbps\",\"delay\":\"1us\"}}");
    at_is(o, "host.nscc.network_rtt", "\"9.34848us\"");
    cJSON_Delete(o);
}

/* Three tiers from a file: the fat-tree shape when the tiers above the hosts are alike, else the reference's own
 * wiring as a custom topology (bundles as parallel links, the cores p + A l of aggregation switch p). */
static void test_fat_tree_files(void)
{
    /* 128 hosts, 8 pods of 4 ToRs of 4 hosts, 4 aggs a pod with one core each (4:1 above the aggs) */
    static const char os4[] = "Nodes 128\nTiers 3\nPodsize 16\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\n"
                              "Radix_Up 4\nDownlink_Latency_ns 500\nTier 1\nOversubscribed 4\nDownlink_speed_Gbps 100\n"
                              "Radix_Down 4\nRadix_Up 1\nDownlink_Latency_ns 1000\nTier 2\nDownlink_speed_Gbps 100\n"
                              "Radix_Down 8\nDownlink_Latency_ns 1000\n";
    cJSON *o = imports("Nodes 128\nConnections 1\n0->127 start 0 size 1000\n", os4, "-tm CM -topo TOPO");
    at_is(o, "topology", "{\"type\":\"fat-tree\",\"pods\":8,\"tors_per_pod\":4,\"aggs_per_pod\":4,\"hosts_per_tor\":4,"
                         "\"cores\":4,\"host_link\":{\"rate\":\"100Gbps\",\"delay\":\"0.5us\"},"
                         "\"fabric_link\":{\"rate\":"
                         "\"100Gbps\",\"delay\":\"1us\"}}");
    /* 2 (0.5 + 1) + 2 x 1 us of propagation: 5 us, doubled, plus 6 hops of 4150 and 64 bytes */
    at_is(o, "host.nscc.network_rtt", "\"12.02272us\"");
    cJSON_Delete(o);
    /* 8 hosts, cores at half the rate, two links per agg-core pair */
    static const char bundled[] = "Nodes 8\nTiers 3\nPodsize 4\nTier 0\nDownlink_speed_Gbps 200\nRadix_Down 2\n"
                                  "Radix_Up 2\nDownlink_Latency_ns 1000\nTier 1\nDownlink_speed_Gbps 200\n"
                                  "Radix_Down 2\n"
                                  "Radix_Up 4\nDownlink_Latency_ns 1000\nTier 2\nDownlink_speed_Gbps 100\n"
                                  "Radix_Down 4\nDownlink_Latency_ns 1000\nBundle 2\n";
    o = imports("Nodes 8\nConnections 1\n0->7 start 0 size 1000\n", bundled, "-tm CM -topo TOPO -linkspeed 200000");
    at_is(o, "topology.type", "\"custom\"");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(json_at_path(o, "topology.nodes")), 8 + 4 + 4 + 4);
    /* 8 host links, 4 ToRs x 2 aggs, 4 aggs x 2 cores x 2 */
    CU_ASSERT_EQUAL(cJSON_GetArraySize(json_at_path(o, "topology.links")), 8 + 8 + 16);
    at_is(o, "topology.links.7", "{\"a\":\"h7\",\"b\":\"tor3\",\"rate\":\"200Gbps\",\"delay\":\"1us\"}");
    /* agg 1 (position 1 of pod 0) to cores 1 and 3, two links each */
    at_is(o, "topology.links.20", "{\"a\":\"agg1\",\"b\":\"core1\",\"rate\":\"100Gbps\",\"delay\":\"1us\"}");
    at_is(o, "topology.links.22", "{\"a\":\"agg1\",\"b\":\"core3\",\"rate\":\"100Gbps\",\"delay\":\"1us\"}");
    cJSON_Delete(o);
}

/* Options: units and the NSCC fields they set. */
static void test_options(void)
{
    cJSON *o = imports(one16, NULL,
                       "-tm CM -q 50 -ecn 10 40 -cwnd 30 -paths 32 -load_balancing_algo bitmap -mtu 2112 "
                       "-enable_accurate_base_rtt -target_q_delay 5.5 -qa_gate 2 -sack_threshold 4000 "
                       "-disable_base_rtt_update_on_nack -seed 7 -trimsize 100 -hop_latency 0.5 -end 250");
    at_is(o, "switch.lossy_queue_limit", "\"105600B\"");
    at_is(o, "switch.ecn.kmin", "\"21120B\"");
    at_is(o, "switch.ecn.kmax", "\"84480B\"");
    at_is(o, "host.mtu", "2048");
    /* 2 x 6 x 0.5 us + 6 x (2112 + 64) x 8 / 100 Gbps */
    at_is(o, "host.nscc", "{\"network_rtt\":\"7.04448us\",\"target_delay\":\"5.5us\",\"qa_gate\":2,\"window\":"
                          "\"63360B\",\"base_rtt\":\"pair\",\"nack_base_rtt\":false}");
    /* 15 + 105600 x 48 / 1e5 us */
    at_is(o, "host.rto", "\"65.688us\"");
    at_is(o, "host.entropy", "\"bitmap\"");
    at_is(o, "host.entropy_paths", "32");
    at_is(o, "host.uet.sack_threshold", "\"4000B\"");
    at_is(o, "switch.trim.size", "\"100B\"");
    at_is(o, "topology.link.delay", "\"0.5us\"");
    at_is(o, "seed", "7");
    at_is(o, "stop", "\"250us\"");
    cJSON_Delete(o);
    /* ignored with a note, and receiver CC turned off again by a later -sender_cc_only */
    char err[SCN_ERR_MAX];
    struct sbuf notes = {0};
    CU_ASSERT_EQUAL(imp(one16, NULL, "-tm CM -o log.dat -receiver_cc -sender_cc_only -Ai 0.1", &o, err, sizeof err,
                        &notes), 0);
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "-o: ignored (the reference's binary log file"));
    CU_ASSERT_PTR_NULL(json_at_path(o, "host.uet.oversub_cc"));
    free(notes.p);
    cJSON_Delete(o);
    /* a gate of maxwnd / 2^86 is below one byte as maxwnd / 2^31 is: 31, which host.nscc.qa_gate takes */
    notes = (struct sbuf){0};
    CU_ASSERT_EQUAL(imp(one16, NULL, "-tm CM -qa_gate 86", &o, err, sizeof err, &notes), 0);
    at_is(o, "host.nscc.qa_gate", "31");
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "-qa_gate 86: taken as 31"));
    free(notes.p);
    cJSON_Delete(o);
}

/* The reference's three modes: NSCC alone (no flag, -sender_cc_only), RCCC alone (-receiver_cc_only), both
 * (-receiver_cc, which leaves NSCC on); RCCC's credit sized from the network's round trip. */
static void test_cc_modes(void)
{
    cJSON *o = NULL;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(imp(one16, NULL, "-tm CM -receiver_cc_only", &o, err, sizeof err, NULL), 0);
    at_is(o, "host.cc", "\"none\"");
    at_is(o, "host.uet.rccc", "true");
    at_is(o, "host.uet.base_rtt", "\"14.02272us\"");
    /* no ECN on the ToRs' ports to their hosts, which the credit paces (two hosts per ToR at K = 4) */
    at_is(o, "profiles", "[{\"match\":[\"tor*:0\",\"tor*:1\"],\"switch\":{\"ecn\":{\"enabled\":false}}}]");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "host"), "nscc"));
    cJSON_Delete(o);
    CU_ASSERT_EQUAL_FATAL(imp(one16, NULL, "-tm CM -receiver_cc", &o, err, sizeof err, NULL), 0);
    at_is(o, "host.cc", "\"nscc\"");
    at_is(o, "host.uet.rccc", "true");
    at_is(o, "host.nscc.network_rtt", "\"14.02272us\"");
    cJSON_Delete(o);
    CU_ASSERT_EQUAL_FATAL(imp(one16, NULL, "-tm CM -receiver_cc_only -sender_cc", &o, err, sizeof err, NULL), 0);
    at_is(o, "host.cc", "\"nscc\"");
    at_is(o, "host.uet.rccc", "true");
    cJSON_Delete(o);
    CU_ASSERT_EQUAL_FATAL(imp(one16, NULL, "-tm CM", &o, err, sizeof err, NULL), 0);
    at_is(o, "host.cc", "\"nscc\"");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "host"), "uet"), "rccc"));
    cJSON_Delete(o);
}

/* Flows and triggers: ids, names made unique, starts truncated, trigger kinds; recv_done_trigger noted, not fired,
 * so what waits only on it is left out (it never starts in the reference), and the scenario loads. */
static void test_flows_triggers(void)
{
    static const char cm[] = "# a chain\nNodes 16\nConnections 5\nTriggers 2\n"
                             "0->3 id 1 start 0 size 1000000 send_done_trigger 7\n"
                             "1->3 start 10.9 size 65536\n"
                             "1->3 start 12 size 100 prio 5\n"
                             "2->3 id 3 trigger 7 size 500000 recv_done_trigger 8\n"
                             "4->5 id 9 start 3 trigger 8 size 42\n"
                             "trigger id 7 oneshot\ntrigger id 8 barrier count 2\n";
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX];
    cJSON *o;
    CU_ASSERT_EQUAL_FATAL(imp(cm, NULL, "-tm CM", &o, err, sizeof err, &notes), 0);
    at_is(o, "triggers", "[{\"id\":\"t7\",\"type\":\"oneshot\"}]");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "traffic")), 4);
    at_is(o, "traffic.0", "{\"type\":\"flow\",\"id\":\"f1\",\"src\":\"h0\",\"dst\":\"h3\",\"size\":\"1000000B\","
                          "\"start\":\"0us\",\"on_sent\":\"t7\"}");
    at_is(o, "traffic.1.id", "\"uec_1_3\"");
    at_is(o, "traffic.1.start", "\"10us\"");
    at_is(o, "traffic.2.id", "\"uec_1_3_2\"");
    at_is(o, "traffic.3", "{\"type\":\"flow\",\"id\":\"f3\",\"src\":\"h2\",\"dst\":\"h3\",\"size\":\"500000B\","
                          "\"trigger\":\"t7\"}");
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "recv_done_trigger on 1 connection(s): not imported"));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "1 connection(s) left out: they wait on triggers that never "
                                                     "fire"));
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "1 trigger(s) left out: no connection that starts waits on "
                                                     "them"));
    CU_ASSERT(test_json_loads(o));
    free(notes.p);
    cJSON_Delete(o);

    /* a start before the trigger: the trigger wins, as in the reference */
    o = imports("Nodes 16\nConnections 2\nTriggers 1\n0->3 id 1 start 0 size 10 send_done_trigger 8\n"
                "4->5 id 9 start 3 trigger 8 size 42\ntrigger id 8 oneshot\n", NULL, "-tm CM");
    at_is(o, "traffic.1", "{\"type\":\"flow\",\"id\":\"f9\",\"src\":\"h4\",\"dst\":\"h5\",\"size\":\"42B\","
                          "\"trigger\":\"t8\"}");
    cJSON_Delete(o);

    /* a barrier short of its count never fires: its flows and its activation are left out; a multishot trigger
     * starts one waiting flow per activation, so its second never starts */
    o = imports("Nodes 16\nConnections 5\nTriggers 2\n0->3 id 1 start 0 size 10 send_done_trigger 8\n"
                "1->3 id 2 trigger 8 size 10\n2->4 id 3 start 0 size 10 send_done_trigger 5\n"
                "5->6 id 4 trigger 5 size 10\n6->7 id 6 trigger 5 size 10\n"
                "trigger id 8 barrier count 2\ntrigger id 5 multishot\n", NULL, "-tm CM");
    at_is(o, "triggers", "[{\"id\":\"t5\",\"type\":\"multishot\"}]");
    at_is(o, "traffic.0", "{\"type\":\"flow\",\"id\":\"f1\",\"src\":\"h0\",\"dst\":\"h3\",\"size\":\"10B\","
                          "\"start\":\"0us\"}");
    at_is(o, "traffic.1.id", "\"f3\"");
    at_is(o, "traffic.2", "{\"type\":\"flow\",\"id\":\"f4\",\"src\":\"h5\",\"dst\":\"h6\",\"size\":\"10B\","
                          "\"trigger\":\"t5\"}");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "traffic")), 3);
    cJSON_Delete(o);

    /* a trigger no connection waits on: left out with the send_done_trigger that names it, and the scenario loads */
    struct sbuf n2 = {0};
    CU_ASSERT_EQUAL_FATAL(imp("Nodes 16\nConnections 1\nTriggers 1\n0->3 id 1 start 0 size 10 send_done_trigger 8\n"
                              "trigger id 8 oneshot\n", NULL, "-tm CM", &o, err, sizeof err, &n2), 0);
    at_is(o, "traffic.0", "{\"type\":\"flow\",\"id\":\"f1\",\"src\":\"h0\",\"dst\":\"h3\",\"size\":\"10B\","
                          "\"start\":\"0us\"}");
    CU_ASSERT_PTR_NULL(json_at_path(o, "triggers"));
    CU_ASSERT_PTR_NOT_NULL(n2.p && strstr(n2.p, "1 trigger(s) left out: no connection that starts waits on them"));
    CU_ASSERT_PTR_NULL(n2.p ? strstr(n2.p, "connection(s) left out") : NULL);
    CU_ASSERT(test_json_loads(o));
    free(n2.p);
    cJSON_Delete(o);

    /* flows that wait on each other: none starts, and a scenario needs one */
    refused("Nodes 16\nConnections 2\nTriggers 2\n0->3 id 1 trigger 1 size 10 send_done_trigger 2\n"
            "1->3 id 2 trigger 2 size 10 send_done_trigger 1\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n", NULL,
            "-tm CM", ": no connection starts (each waits on a trigger that never fires)");
}

/* Every malformed matrix and topology: one line naming the file and line, exit 2. */
static void test_malformed(void)
{
    refused("Nodes 16\nConnections 2\n0->1 start 0 size 10\n", NULL, "-tm CM",
            ":3: Connections 2 in the header, 1 connection lines");
    refused("Nodes 16\nConnections 1\nTriggers 1\n0->1 start 0 size 10\n", NULL, "-tm CM",
            ":4: Triggers 1 in the header, 0 trigger lines");
    refused("Nodes 16\nConnections 1\nFailures 1\n0->1 start 0 size 10\n", NULL, "-tm CM",
            ":4: Failures 1 in the header, 0 failure lines");
    refused("Nodes 16\nConnections 1\n0->1 start 0 size 10\nfailure switch_type AGG switch_id 0 link_id 0\n", NULL,
            "-tm CM", ":4: more failure lines than the header's Failures 0 (the reference asserts)");
    refused("Nodes 16\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
            "failure switch_type AGG switch_id 0 link_id 0\n",
            NULL, "-tm CM", ":5: failure: not modelled (a failure line removes one aggregation-to-core link; "
            "rocesim's import cannot remove one link yet)");
    refused("Nodes 16\nConnections 1\n0->1 trigger 3 size 10\n", NULL, "-tm CM",
            ":3: trigger: the flow needs its id before the trigger (the reference asserts)");
    refused("Nodes 16\nConnections 1\n0->1 id 2 trigger 3 start 4 size 10\n", NULL, "-tm CM",
            ":3: both start time and trigger given (a start after the trigger: the reference refuses it)");
    refused("Nodes 16\nConnections 1\n0->1 id 2 trigger 3 size 10\n", NULL, "-tm CM",
            ":3: trigger 3 referenced but never declared");
    refused("Nodes 16\nConnections 1\nTriggers 2\n0->1 id 2 trigger 3 size 10\ntrigger id 3 oneshot\n"
            "trigger id 3 multishot\n", NULL, "-tm CM",
            ":6: trigger 3 declared twice (first at line 5; the reference asserts)");
    refused("Nodes 16\nConnections 1\n0->1 start 0 size 10 send_done_trigger 4\n", NULL, "-tm CM",
            ":3: send_done_trigger 4: no such trigger (the reference stops on it)");
    refused("Nodes 16\nConnections 2\n0->1 id 5 start 0 size 10\n2->3 id 5 start 0 size 10\n", NULL, "-tm CM",
            ":4: flow id 5 already used at line 3 (the reference asserts)");
    refused("Nodes 16\nConnections 1\n0->1 start 0\n", NULL, "-tm CM",
            ":3: no size given (the reference reads an undefined size)");
    refused("Nodes 16\nConnections 1\n0->1 size 10\n", NULL, "-tm CM", ":3: no start method given (start or trigger)");
    refused("Nodes 16\nConnections 1\n0->1 start 0  size 10\n", NULL, "-tm CM",
            ":3: unknown keyword \"\" (expected start, size, id, trigger, send_done_trigger, recv_done_trigger, prio "
            "or msg)");
    refused("Nodes 16\nConnections 1\n0->1 start 0 size 10\n# late\n", NULL, "-tm CM",
            ":4: unknown line \"#\" (after the header only connections, trigger and failure lines; comments only "
            "before them)");
    refused("Nodes 16\nConnections 1\n0->1 start -1 size 10\n", NULL, "-tm CM",
            ":3: start: expected microseconds from 0 to 4294967295, got \"-1\"");
    refused("Nodes 16\nConnections 1\n0->16 start 0 size 10\n", NULL, "-tm CM",
            ":3: host 16: expected a host number below Nodes 16");
    refused("Nodes 16\nConnections 1\n2->2 start 0 size 10\n", NULL, "-tm CM",
            ":3: 2->2: a flow from a host to itself (rocesim's flows join two hosts)");
    refused("Nodes 16\nConnections 1\n0->1 start 0 size 10 msg 2\n", NULL, "-tm CM",
            ":3: msg: not modelled (several messages on one connection need -conn_reuse, which rocesim does not model "
            "yet)");
    refused("Nodes 16\nConnections 2\nTriggers 1\n0->1 start 0 size 10 send_done_trigger 4\n"
            "2->3 id 1 trigger 4 size 1\n"
            "trigger id 4 barrier\n", NULL, "-tm CM",
            ":6: barrier 4: count 0 (the reference asserts when it is activated)");
    refused("Nodes 20\nConnections 1\n0->1 start 0 size 10\n", NULL, "-tm CM",
            ": Nodes 20: no 3-tier fat tree has exactly 20 hosts (K^3/4 for an even K: 16, 54, 128, 250, 432, 686, "
            "1024, ...); give -topo FILE or -tiers");
    refused(one32, "Nodes 32\nTiers 2\nPodsize 32\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\n"
            "Downlink_Latency_ns 1000\nOversubscribed 2\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\n"
            "Downlink_Latency_ns 1000\n", "-tm CM -topo TOPO",
            ":4: tier 0: Radix_Down 8 / Radix_Up 2 is not Oversubscribed 2");
    refused(one32, "Nodes 32\nTiers 2\nPodsize 32\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Down 8\n",
            "-tm CM -topo TOPO", ":7: radix_down given twice for tier 0");
    refused(one32, "Nodes 32\nTiers 2\nPodsize 32\nTier 0\nDownlink_speed_Gbps 100\nColour blue\n",
            "-tm CM -topo TOPO", ":6: unknown attribute \"colour\" (expected Tier, Downlink_speed_Gbps, Radix_Up, "
            "Radix_Down, Queue_Up, Queue_Down, Oversubscribed, Bundle, Switch_Latency_ns or Downlink_Latency_ns)");
    refused(one32, "Nodes 32\nTiers 2\nTier 0\n", "-tm CM -topo TOPO", ":3: missing pod size (Podsize) in the header");
    refused(one32, "Nodes 32\nTiers 2\nPodsize 32\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\n"
            "Downlink_Latency_ns 1000\nSwitch_Latency_ns 50\n", "-tm CM -topo TOPO",
            ":9: Switch_Latency_ns 50: not modelled (rocesim's switches forward without a fixed latency; give 0)");
    refused(one16, leaf_spine_32, "-tm CM -topo TOPO", ": Nodes 32, while the connection matrix ");
}

/* Whether host.uet.oversub_cc is on in o, and at least at min_rate with the constants ai, md, alpha. */
static void oversub_is(const char *cm, const char *topo, const char *args, const char *min_rate, const char *consts)
{
    cJSON *o = imports(cm, topo, args);
    if (!min_rate) {
        CU_ASSERT_PTR_NULL(json_at_path(o, "host.uet.oversub_cc"));
    } else {
        at_is(o, "host.uet.oversub_cc", "true");
        at_is(o, "host.uet.oversub_min_rate", min_rate);
        char b[128];
        snprintf(b, sizeof b, "[%s]", consts);
        cJSON *want = cJSON_Parse(b);
        static const char *const names[] = {"host.uet.oversub_ai", "host.uet.oversub_md", "host.uet.oversub_alpha"};
        for (int i = 0; i < 3; i++) {
            char *w = cJSON_PrintUnformatted(cJSON_GetArrayItem(want, i));
            at_is(o, names[i], w);
            free(w);
        }
        cJSON_Delete(want);
    }
    cJSON_Delete(o);
}

/* The reference's receiver oversubscription control (main_uec.cpp) is on with RCCC when -oversubscribed_cc is in
 * force, or on a fabric oversubscribed at the ToRs (4:1 here) unless its sender-CC flag is left on (by -sender_cc,
 * -sender_cc_only or -sender_cc_algo, cleared by -receiver_cc_only) or -force_disable_oversubscribed_cc was given;
 * its least rate is then 0.9 / 4, else 0.01; -Ai, -Md and -alpha its constants (0.01, 0.5, 0.5). */
static void test_oversub(void)
{
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only", "0.225", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc", "0.225", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -sender_cc -receiver_cc_only", "0.225", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only -Ai 0.02 -Md 0.25 -alpha 0.125", "0.225",
               "0.02,0.25,0.125");
    oversub_is(one16, NULL, "-tm CM -receiver_cc -oversubscribed_cc", "0.01", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -sender_cc -receiver_cc -oversubscribed_cc", "0.01",
               "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only -force_disable_oversubscribed_cc "
               "-oversubscribed_cc", "0.01", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only -force_disable_oversubscribed_cc", NULL,
               NULL);
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -sender_cc -receiver_cc", NULL, NULL);
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only -sender_cc", NULL, NULL);
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -receiver_cc_only -oversubscribed_cc -receiver_cc_only",
               "0.225", "0.01,0.5,0.5");
    oversub_is(one32, leaf_spine_32, "-tm CM -topo TOPO -oversubscribed_cc", NULL, NULL); /* no RCCC: no pacer */
    oversub_is(one16, NULL, "-tm CM -receiver_cc_only", NULL, NULL);
    refused(one16, NULL, "-tm CM -Ai 2", "-Ai: expected a number from 0 to 1 (a constant of the receiver "
            "oversubscription control), got \"2\"");
    refused(one16, NULL, "-tm CM -Md x", "-Md: expected a number from 0 to 1000 (a constant of the receiver "
            "oversubscription control), got \"x\"");
}

/* Options the reference has and rocesim cannot honour: refused by name with the reason; unknown ones too. */
static void test_refused_options(void)
{
    refused(one16, NULL, "-tm CM -sleek", "-sleek: not modelled (SLEEK loss recovery)");
    refused(one16, NULL, "-tm CM -conn_reuse",
            "-conn_reuse: not modelled (several messages on one connection, the reference's PDC)");
    refused(one16, NULL, "-tm CM -load_balancing_algo reps_legacy",
            "-load_balancing_algo reps_legacy: not modelled (the older REPS; reps is)");
    refused(one16, NULL, "-tm CM -sender_cc_algo dctcp",
            "-sender_cc_algo dctcp: not modelled (rocesim's UET runs NSCC; dctcp and constant windows are the "
            "reference's alternatives)");
    refused(one16, NULL, "-tm CM -pcie 1.1", "-pcie: not modelled (the receiver's PCIe model)");
    refused(one16, NULL, "-tm CM -strat ecmp_ar", "-strat ecmp_ar: not modelled (only the reference's default, "
            "ecmp_host, is)");
    refused(one16, NULL, "-tm CM -frobnicate", "-frobnicate: unknown option (not one of htsim_uec's)");
    refused(one16, NULL, "-tm CM -q", "-q: expected a value after it, got the end of the command line");
    refused(one16, NULL, "-tm CM -ecn 10 50", "ECN thresholds 41500 and 207500 bytes: expected low <= high <= the "
            "queue's 178450 bytes (the reference asserts)");
    refused(one16, NULL, "-tm CM -trimsize 32", "-trimsize 32: expected 64 to the MTU 4150 (the reference asserts)");
    refused(one16, NULL, "-tm CM -paths 48 -load_balancing_algo oblivious",
            "-paths 48: rocesim's oblivious masks entropy values, so expected a power of 2");
    refused(one16, NULL, "-tm CM -paths 48", "-paths 48: rocesim's mixed masks entropy values, so expected a power of 2");
    /* REPS takes any number, as in the reference, and the scenario loads */
    cJSON *o = imports(one16, NULL, "-tm CM -paths 48 -load_balancing_algo reps");
    at_is(o, "host.entropy_paths", "48");
    CU_ASSERT(test_json_loads(o));
    cJSON_Delete(o);
    refused(one16, NULL, "-end 10", "-tm: the connection matrix is required (the reference would read it from its "
            "standard input)");
    refused(one32, leaf_spine_32, "-tm CM -topo TOPO -linkspeed 50000",
            "-linkspeed 50Gbps is below the host links of ");
}

/* The commands: --out written whole, nothing on error; export's files, and import of a .cm then export gives it
 * back with the options. */
static void test_cli_round_trip(void)
{
    char cm[64], json[64], dir[64], cmd[512], *out = NULL;
    snprintf(cm, sizeof cm, "/tmp/rocesim-uetc-%d.cm", (int)getpid());
    snprintf(json, sizeof json, "/tmp/rocesim-uetc-%d.json", (int)getpid());
    snprintf(dir, sizeof dir, "/tmp/rocesim-uetc-%d.d", (int)getpid());
    static const char chain[] = "Nodes 16\nConnections 4\nTriggers 2\n"
                                "0->3 id 1 start 0 size 1000000 send_done_trigger 7\n"
                                "1->3 start 10 size 65536\n"
                                "2->3 id 3 trigger 7 size 500000 send_done_trigger 8\n"
                                "5->6 id 4 trigger 8 size 300\n"
                                "trigger id 7 oneshot\ntrigger id 8 multishot\n";
    test_write_text(cm, chain);
    remove(json);
    snprintf(cmd, sizeof cmd, "%s import uet-htsim -tm %s -cwnd 50 -paths 32 -q 60 -end 2000 --out %s",
             test_rocesim_bin(), cm, json);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s; %s export uet-htsim %s -o %s", dir, test_rocesim_bin(), json, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(everything is expressed)"));
    free(out);
    char p[128], *t;
    snprintf(p, sizeof p, "%s/rocesim-uetc-%d.cm", dir, (int)getpid());
    t = test_read_file(p, NULL);
    CU_ASSERT_STRING_EQUAL(t ? t : "", chain);
    free(t);
    snprintf(p, sizeof p, "%s/cmdline.txt", dir);
    t = test_read_file(p, NULL);
    char want[256];
    snprintf(want, sizeof want, "htsim_uec -tm rocesim-uetc-%d.cm -seed 13 -end 2000 -q 60 -paths 32 -cwnd 50\n",
             (int)getpid());
    CU_ASSERT_STRING_EQUAL(t ? t : "", want);
    free(t);
    /* a setting the reference has no word for, and one left to a rocesim default it does not share */
    cJSON *o = cJSON_Parse(t = test_read_file(json, NULL));
    free(t);
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "traffic"), 1), "rate", "10Gbps");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "cc");
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    test_write_text(json, s);
    free(s);
    snprintf(cmd, sizeof cmd, "%s export uet-htsim %s -o %s", test_rocesim_bin(), json, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "traffic.1.rate: a connection line has no word for it\n") &&
                           strstr(out, "host.cc: left to rocesim's default dcqcn, where the reference's run has "
                                       "\"nscc\"\n"));
    free(out);
    /* a malformed matrix: exit 2, file and line, nothing written */
    remove(json);
    test_write_text(cm, "Nodes 16\nConnections 1\n0->1 start 0 size 10 colour 3\n");
    snprintf(cmd, sizeof cmd, "%s import uet-htsim -tm %s --out %s", test_rocesim_bin(), cm, json);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-uetc-") && strstr(out, ".cm:3: unknown keyword "
                                                                                          "\"colour\""));
    CU_ASSERT_EQUAL(access(json, F_OK), -1);
    free(out);
    snprintf(cmd, sizeof cmd, "%s import uet-htsim -tm %s -sleek", test_rocesim_bin(), cm);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: -sleek: not modelled (SLEEK loss recovery)"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s import uet-htsim -tm /nonexistent/x.cm", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 3);
    free(out);
    remove(cm);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The fuzzer's seeds and every finding of it (tests/fuzz/regressions/htsim-*) replay clean through its harness. */
static void test_harness_replay(void)
{
    CU_ASSERT(test_fuzz_replay("tests/fuzz/seeds", "htsim-", ".txt", fuzz_htsim_one) >= 4);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "htsim-", ".txt", fuzz_htsim_one) >= 3);
}

void test_uet_import_register(void)
{
    CU_pSuite s = CU_add_suite("uet-htsim import", NULL, NULL);
    CU_add_test(s, "the reference's three congestion-control modes: NSCC, RCCC, both", test_cc_modes);
    CU_add_test(s, "the default run: RTT_net, queue, ECN and RTO as the reference prints them (100 and 400 Gbps)",
                test_default_constants);
    CU_add_test(s, "a leaf-spine file and the automatic two-tier tree: RTT_net 9.34848 us, RTO 72.768 us",
                test_leaf_spine_file);
    CU_add_test(s, "three-tier files: the fat-tree shape, or the reference's own wiring as a custom topology",
                test_fat_tree_files);
    CU_add_test(s, "options in the reference's units set the queue, ECN, NSCC, entropy and run fields", test_options);
    CU_add_test(s, "flows and triggers: ids, unique names, truncated starts, what never starts in the reference left "
                   "out", test_flows_triggers);
    CU_add_test(s, "malformed .cm and .topo files: exit 2 with file and line, every count checked", test_malformed);
    CU_add_test(s, "the receiver oversubscription control: on exactly when the reference's is, -Ai, -Md, -alpha",
                test_oversub);
    CU_add_test(s, "options rocesim cannot honour are refused by name with the reason", test_refused_options);
    CU_add_test(s, "the fuzzer's seeds and regressions replay clean through its harness", test_harness_replay);
    CU_add_test(s, "the commands, and import then export gives back the matrix and the options",
                test_cli_round_trip);
    CU_add_test(s, "-failed: slowed links, quarter queues and ECN by rate, as the reference; export gives it back",
                test_failed_links);
}
