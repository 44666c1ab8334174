/*
 * Storage servers on a rail fabric (topologies/rail.c) and the traffic kind "checkpoint"
 * (models/traffic_checkpoint.c, the path chosen in models/gdr.c): the storage nodes, names and links; a
 * checkpoint through GPUDirect Storage at its NIC's bound and one through the CPU at the staged path's bound (half
 * a PCIe switch's uplink, or the socket memory's share), each computed from the scenario's rates; the loader's
 * errors; the example scenario's same files on 1 and 2 threads.
 */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "sim/units.h"
#include "tools/run/run.h"
#include "topologies/rail.h"
#include "topologies/topo.h"

/* Two hgx-h100 servers (server: a JSON object) on one leaf per rail and one spine, 16 storage servers on four
 * storage leaves; every fabric link twice as wide as all its GPUs' NICs (2 x 400Gbps up from a rail's leaf, 4 x
 * 400Gbps down to a storage leaf), so that only the GPUs' side bounds a checkpoint; then `traffic`. */
static char *ckpt_json(const char *server, const char *traffic)
{
    size_t len = strlen(server) + strlen(traffic) + 1024;
    char *j = malloc(len);
    snprintf(j, len, "{\"stop\": \"10ms\", \"topology\": {\"type\": \"rail\", \"servers\": 2, \"gpus_per_server\": 8, "
             "\"leaves_per_rail\": 1, \"spines\": 1, \"server\": %s, \"host_link\": {\"rate\": \"400Gbps\", "
             "\"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"3200Gbps\", \"delay\": \"1us\"}, "
             "\"storage_servers\": 16, \"storage_leaves\": 4}, \"switch\": {\"buffer\": \"64MB\", \"ecn\": {\"enabled\": true, "
             "\"kmin\": \"100KB\", \"kmax\": \"400KB\", \"pmax\": 0.2}}, \"host\": {\"mtu\": 4096}, "
             "\"traffic\": [%s]}", server, traffic);
    return j;
}

/* A checkpoint of `size` from the 16 GPUs to the 16 storage servers by `path`. */
static void ckpt_entry(char *buf, size_t len, const char *size, const char *path)
{
    int n = snprintf(buf, len, "{\"type\": \"checkpoint\", \"id\": \"ck\", \"size\": \"%s\", \"path\": \"%s\", "
                     "\"gpus\": [", size, path);
    for (int g = 0; g < 16; g++)
        n += snprintf(buf + n, len - (size_t)n, "%s\"n%d.g%d\"", g ? ", " : "", g / 8, g % 8);
    n += snprintf(buf + n, len - (size_t)n, "], \"storage\": [");
    for (int k = 0; k < 16; k++)
        n += snprintf(buf + n, len - (size_t)n, "%s\"stor%d\"", k ? ", " : "", k);
    snprintf(buf + n, len - (size_t)n, "]}");
}

/* The storage nodes: 16 hosts after the GPUs, four storage leaves each linked to the spine, stor k on leaf k / 4;
 * every node's name looks itself up and `linked` agrees with the graph, with and without a server inside. */
static void test_storage_shape(void)
{
    static const char *const servers[] = {"{\"preset\": \"hgx-h100\"}", "{}"};
    for (int v = 0; v < 2; v++) {
        char *j = ckpt_json(servers[v], "{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"stor0\", "
                                        "\"size\": \"1KB\"}");
        if (v) { /* no server inside: drop the field */
            char *at = strstr(j, "\"server\": {}, ");
            memmove(at, at + strlen("\"server\": {}, "), strlen(at + strlen("\"server\": {}, ")) + 1);
        }
        struct scenario s;
        struct graph g;
        char err[SCN_ERR_MAX] = "";
        int rc = scn_load_text("t.json", j, NULL, 0, &s, err, sizeof err);
        if (rc != SCN_OK)
            fprintf(stderr, "\n  %s", err);
        CU_ASSERT_FATAL(rc == SCN_OK);
        free(j);
        CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
        CU_ASSERT_EQUAL(g.n_hosts, 32u);
        CU_ASSERT_STRING_EQUAL(g.nodes[g.host_node[16]].name, "stor0");
        CU_ASSERT_STRING_EQUAL(g.nodes[g.host_node[31]].name, "stor15");
        const struct scn_topo_hooks *h = scn_topo_hooks(&s);
        for (uint32_t n = 0; n < g.n_nodes; n++) {
            CU_ASSERT_STRING_EQUAL(h->node_name(s.topo.cfg, (int)n), g.nodes[n].name);
            CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, g.nodes[n].name), (int)n);
            for (uint32_t m = 0; m < g.n_nodes; m++)
                CU_ASSERT_EQUAL(h->linked(s.topo.cfg, (int)n, (int)m), graph_port_to(&g, n, m) >= 0);
        }
        uint32_t spine = (uint32_t)graph_find(&g, "spine0");
        CU_ASSERT(graph_port_to(&g, (uint32_t)graph_find(&g, "stor.leaf3"), spine) >= 0);
        CU_ASSERT(graph_port_to(&g, (uint32_t)graph_find(&g, "stor3"), (uint32_t)graph_find(&g, "stor.leaf0")) >= 0);
        CU_ASSERT(graph_port_to(&g, (uint32_t)graph_find(&g, "stor4"), (uint32_t)graph_find(&g, "stor.leaf1")) >= 0);
        CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, "stor16"), -1);
        CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, "stor.leaf4"), -1);
        CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, "stor01"), -1);
        graph_free(&g);
        scn_free(&s);
    }
}

/*
 * 16 GPUs write 16MB each at once, each to a storage server of its own.  The bound of each GPU's shard, from the
 * scenario's rates (the preset: two GPUs and two NICs under each PCIe switch, four GPUs on each socket):
 * - "gds": its NIC's link (the PCIe links and the fabric are faster);
 * - "cpu": its data goes up its PCIe switch's uplink and back down it, which carries two GPUs' writes up and two
 *   NICs' reads down: pcie_rate / 2 each way; and through its socket's memory, written and read by four GPUs:
 *   memory_rate / 4; and its NIC's link.
 * The whole checkpoint completes when its shards do: 16MB of payload in 4096-byte frames (82 bytes more each on
 * the wire) at the bound, plus the path's latency (a few us: hence up to 3 % above, 5 % for the staged path's
 * PFC-paced sharing); each GPU's GB/s in summary.json is its payload over its own time.  "gds" under gdr_level
 * LOC is still direct: the traffic's choice, not NCCL's setting.
 */
static void test_checkpoint_bounds(void)
{
    static const struct {
        const char *server, *path;
        bool staged;
        double above;
    } cases[] = {
        {"{\"preset\": \"hgx-h100\"}", "gds", false, 0.03},
        {"{\"preset\": \"hgx-h100\"}", "cpu", true, 0.05},
        {"{\"preset\": \"hgx-h100\", \"memory_rate\": \"800Gbps\"}", "cpu", true, 0.05},
        {"{\"preset\": \"hgx-h100\", \"gdr_level\": \"LOC\"}", "gds", false, 0.03},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char entry[2048];
        ckpt_entry(entry, sizeof entry, "256MB", cases[i].path);
        char *j = ckpt_json(cases[i].server, entry);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
        free(j);
        const struct topo_rail *t = scn.topo.cfg;
        double nic = (double)t->host_link.rate_bps, bound = nic;
        if (cases[i].staged) {
            double uplink = (double)t->server.pcie_rate_bps / 2, memory = (double)t->server.memory_rate_bps / 4;
            bound = uplink < bound ? uplink : bound;
            bound = memory < bound ? memory : bound;
        }
        test_run_checked(&r);
        double payload = 16e6, wire = payload + (payload / 4096) * (HDR_DATA + WIRE_OVERHEAD);
        double want_ns = wire * 8e9 / bound;
        char *text = run_summary_json(&r, false);
        cJSON *sum = cJSON_Parse(text);
        free(text);
        const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "collectives"), 0);
        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(c, "path")->valuestring, cases[i].path);
        double got_ns = cJSON_GetObjectItem(c, "completion_ns")->valuedouble;
        double slowest = cJSON_GetObjectItem(c, "GBps_per_gpu_min")->valuedouble;
        double total = cJSON_GetObjectItem(c, "GBps")->valuedouble;
        double ratio = got_ns / want_ns, per_gpu = (payload / want_ns) / slowest;
        if (ratio < 0.995 || ratio > 1 + cases[i].above || per_gpu < 0.995 || per_gpu > 1 + cases[i].above)
            fprintf(stderr, "\n  case %zu: %.4f of the bound's time, slowest GPU %.4f of its rate", i, ratio,
                    per_gpu);
        CU_ASSERT(ratio >= 0.995 && ratio <= 1 + cases[i].above);
        CU_ASSERT(per_gpu >= 0.995 && per_gpu <= 1 + cases[i].above);
        /* the reported rate against the bound's: within the same tolerance as the time */
        double rate = total / (256e6 / want_ns);
        CU_ASSERT(rate >= 1 / (1 + cases[i].above) && rate <= 1 / 0.995);
        cJSON_Delete(sum);
        test_teardown(&scn, &r);
    }
}

/* Bad storage and checkpoints: the message names the field. */
static void test_checkpoint_errors(void)
{
    static const struct {
        const char *traffic, *topo_set, *want;
    } cases[] = {
        {"{\"type\": \"checkpoint\", \"gpus\": [\"n0.g0\", \"stor1\"], \"storage\": [\"stor1\"], \"size\": \"1MB\"}",
         NULL, "traffic.0.storage: expected storage hosts that are not among the gpus, got \"stor1\""},
        {"{\"type\": \"checkpoint\", \"gpus\": [\"n0.g0\", \"n0.g1\"], \"storage\": [\"stor1\"], \"size\": \"1B\"}",
         NULL, "traffic.0.size: expected a size of at least 2B"},
        {"{\"type\": \"checkpoint\", \"gpus\": [\"n0.g0\"], \"storage\": [\"stor1\"], \"size\": \"1MB\", "
         "\"path\": \"nfs\"}", NULL, "traffic.0.path"},
        {"{\"type\": \"checkpoint\", \"gpus\": [\"n0.g0\"], \"storage\": [\"stor16\"], \"size\": \"1MB\"}", NULL,
         "traffic.0.storage"},
        {"", "\"storage_servers\":  2", "topology.storage_leaves: expected an integer from 1 to storage_servers (2), "
         "got 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *j = ckpt_json("{\"preset\": \"hgx-h100\"}", *cases[i].traffic ? cases[i].traffic :
                            "{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"stor0\", \"size\": \"1KB\"}");
        if (cases[i].topo_set) {
            char *at = strstr(j, "\"storage_servers\": 16");
            memcpy(at, cases[i].topo_set, strlen(cases[i].topo_set));
        }
        struct scenario s;
        char err[SCN_ERR_MAX] = "";
        CU_ASSERT_EQUAL(scn_load_text("t.json", j, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\n  want: %s\n  got:  %s", cases[i].want, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        free(j);
    }
    /* "cpu" needs GPUs inside servers: refused at set-up, naming the GPU. */
    char *j = ckpt_json("{\"preset\": \"hgx-h100\"}", "{}");
    char *at = strstr(j, "\"server\": {\"preset\": \"hgx-h100\"}, ");
    size_t cut = strlen("\"server\": {\"preset\": \"hgx-h100\"}, ");
    memmove(at, at + cut, strlen(at + cut) + 1);
    char *full = malloc(strlen(j) + 256);
    at = strstr(j, "\"traffic\": [");
    snprintf(full, strlen(j) + 256, "%.*s\"traffic\": [{\"type\": \"checkpoint\", \"gpus\": [\"n0.g0\"], \"storage\": "
             "[\"stor0\"], \"size\": \"1MB\", \"path\": \"cpu\"}]}", (int)(at - j), j);
    free(j);
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", full, NULL, 0, &scn, err, sizeof err), SCN_OK);
    free(full);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "traffic.0.gpus: expected GPUs inside servers (topology.server) for path "
                                       "\"cpu\", got \"n0.g0\""));
    scn_free(&scn);
}

/* Completion of checkpoint entry `entry` of lab 13's `file` with `path`, in ns; the run's slowest shard's source
 * into slow (NULL: not asked). */
static double lab_ckpt(const char *file, int entry, const char *path, char *slow, size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "traffic.%d.path", entry);
    struct scn_override ov = {key, path};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(file, NULL, &ov, 1, &scn, &r));
    test_run_checked(&r);
    const struct coll *c = NULL;
    for (uint32_t i = 0; i < r.traffic.n_colls; i++)
        if (strcmp(r.traffic.colls[i].kind, "checkpoint") == 0)
            c = &r.traffic.colls[i];
    CU_ASSERT_FATAL(c != NULL && c->finish > c->start);
    double t = (double)(c->finish - c->start) / 1e3;
    if (slow) {
        const struct flow *last = NULL;
        for (uint32_t j = 0; j < c->n_flows; j++) {
            const struct flow *f = net_flow(&r.net, c->base + j);
            if (!last || f->finish > last->finish)
                last = f;
        }
        snprintf(slow, len, "%s", r.net.g->nodes[r.net.g->host_node[last->src]].name);
    }
    test_teardown(&scn, &r);
    return t;
}

/*
 * Lab 13's observations: alone, the CPU path takes longer than GDS by at most the ratio of their bounds (400 /
 * 252 Gbps, 2 % over for framing and latency) and by more than 1.3 (GDS may lose a few per cent to a rate cut
 * at the synchronized start); beside the ring all-reduce both paths take about as long (within 10 %), bound by
 * the NICs the ring crosses servers by (rails 0 and 7: n0.g7's or n1.g0's shard is the last).
 */
static void test_checkpoint_lab(void)
{
    double gds = lab_ckpt("scenarios/labs/13-checkpoint-path/alone.json", 0, "gds", NULL, 0);
    double cpu = lab_ckpt("scenarios/labs/13-checkpoint-path/alone.json", 0, "cpu", NULL, 0);
    CU_ASSERT(cpu / gds > 1.3 && cpu / gds < 400.0 / 252 * 1.02);
    char slow_g[SCN_NAME_MAX], slow_c[SCN_NAME_MAX];
    gds = lab_ckpt("scenarios/labs/13-checkpoint-path/beside-training.json", 1, "gds", slow_g, sizeof slow_g);
    cpu = lab_ckpt("scenarios/labs/13-checkpoint-path/beside-training.json", 1, "cpu", slow_c, sizeof slow_c);
    CU_ASSERT_DOUBLE_EQUAL(cpu / gds, 1.0, 0.1);
    CU_ASSERT(strcmp(slow_g, "n0.g7") == 0 || strcmp(slow_g, "n1.g0") == 0);
    CU_ASSERT(strcmp(slow_c, "n0.g7") == 0 || strcmp(slow_c, "n1.g0") == 0);
}

/* The example scenario: the same files twice and on 2 threads. */
static void test_checkpoint_same_each_run(void)
{
    free(test_same_each_run("scenarios/ai/rail-checkpoint.json"));
}

void test_checkpoint_register(void)
{
    CU_pSuite s = CU_add_suite("checkpoint", NULL, NULL);
    CU_add_test(s, "storage servers' nodes, names and links on the rail fabric", test_storage_shape);
    CU_add_test(s, "GDS at the NIC's bound, the CPU path at half a PCIe uplink or the memory's share",
                test_checkpoint_bounds);
    CU_add_test(s, "bad storage and checkpoints are refused by name", test_checkpoint_errors);
    CU_add_test(s, "lab 13: the CPU path alone at most 400/252 of GDS, beside training as long, bound by the "
                "ring's NICs", test_checkpoint_lab);
    CU_add_test(s, "rail-checkpoint: the same files twice and on 2 threads", test_checkpoint_same_each_run);
}
