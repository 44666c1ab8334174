/*
 * A server's inside (topologies/server.c) on a rail fabric, and hosts with several ports (models/nic.c, flows.c):
 * the nodes and links the description makes and their names; NCCL's GPU-NIC distances; flows over NVLink, over
 * PCIe and through a NIC finishing when the store-and-forward formula says (first frame across every link, the
 * rest at the slowest), each at its own line rate, side by side on one GPU's two ports; the loader's errors; the
 * same files on 1 and 2 threads.
 */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_rings.h"
#include "models/coll.h"
#include "models/coll_trees.h"
#include "models/net.h"
#include "models/traffic.h"
#include "sim/units.h"
#include "tools/ops/doctor.h"
#include "tools/ops/nvsmi.h"
#include "tools/run/run.h"
#include "topologies/rail.h"
#include "topologies/server.h"
#include "topologies/topo.h"

/* Two servers of the preset (or of `server`, a JSON object) on one leaf per rail and one spine, then `traffic`. */
static char *server_json(const char *server, const char *traffic)
{
    size_t len = strlen(server) + strlen(traffic) + 1024;
    char *j = malloc(len);
    snprintf(j, len, "{\"stop\": \"10ms\", \"topology\": {\"type\": \"rail\", \"servers\": 2, \"gpus_per_server\": 8, "
             "\"leaves_per_rail\": 1, \"spines\": 1, \"server\": %s, \"host_link\": {\"rate\": \"400Gbps\", "
             "\"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"400Gbps\", \"delay\": \"1us\"}}, "
             "\"host\": {\"mtu\": 4096}, \"traffic\": [%s]}", server, traffic);
    return j;
}

static const char preset[] = "{\"preset\": \"hgx-h100\"}";

/* What the run gives flow `name`: its receiver-side completion time in ps. */
static sim_time_t fct_of(struct run *r, const char *name)
{
    const struct flow *f = test_flow_named(r, name);
    return f->finish - f->start;
}

/*
 * The store-and-forward completion of `bytes` in frames of mtu payload on an empty path of links (rate, delay):
 * the first frame crosses every link, the other bytes follow at the slowest link's rate.
 */
static double fct_formula(int64_t bytes, int mtu, int n_links, const int64_t *rate, const int64_t *delay)
{
    int64_t pkts = (bytes + mtu - 1) / mtu, first = (bytes < mtu ? bytes : mtu) + HDR_DATA + WIRE_OVERHEAD;
    double t = 0, slow = 1e30;
    for (int i = 0; i < n_links; i++) {
        t += (double)first * 8e12 / (double)rate[i] + (double)delay[i];
        if ((double)rate[i] < slow)
            slow = (double)rate[i];
    }
    return t + (double)(bytes + pkts * (HDR_DATA + WIRE_OVERHEAD) - first) * 8e12 / slow;
}

/* The preset's nodes, links and names: per server 8 GPUs, 8 NICs, 4 PCIe switches, 2 sockets, 1 NVSwitch; a GPU's
 * port 0 its PCIe switch and port 1 the NVSwitch; NIC k on rail k's leaf; every name looks itself up. */
static void test_server_shape(void)
{
    char *j = server_json(preset, "{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", \"size\": \"1KB\"}");
    struct scenario s;
    struct graph g;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_FATAL(scn_load_text("t.json", j, NULL, 0, &s, err, sizeof err) == SCN_OK);
    free(j);
    CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(g.n_hosts, 16u);
    CU_ASSERT_EQUAL(g.n_switches, 8u + 1 + 2 * (8 + 4 + 2 + 2 + 1)); /* 8 leaves, a spine, the insides */
    /* links: 16 NIC-leaf, 8 leaf-spine, per server 8 GPU PCIe + 8 NVLink + 8 NIC PCIe + 4 uplinks + 1 socket link
     * + 2 memories */
    CU_ASSERT_EQUAL(g.n_links, 16u + 8 + 2 * (8 + 8 + 8 + 4 + 1 + 2));
    const struct scn_topo_hooks *h = scn_topo_hooks(&s);
    for (uint32_t n = 0; n < g.n_nodes; n++) {
        CU_ASSERT_STRING_EQUAL(h->node_name(s.topo.cfg, (int)n), g.nodes[n].name);
        CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, g.nodes[n].name), (int)n);
        for (uint32_t m = 0; m < g.n_nodes; m++)
            CU_ASSERT_EQUAL(h->linked(s.topo.cfg, (int)n, (int)m), graph_port_to(&g, n, m) >= 0);
    }
    static const char *const misses[] = {"n0.nic8", "n0.pcie4", "n0.cpu2", "n0.mem2", "n0.nvswitch0", "n2.nic0",
                                         "n0.nic01"};
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++)
        CU_ASSERT_EQUAL(h->node_index(s.topo.cfg, misses[i]), -1);
    int32_t g5 = graph_find(&g, "n1.g5");
    CU_ASSERT_EQUAL_FATAL(g.nodes[g5].n_ports, 2u);
    CU_ASSERT_STRING_EQUAL(g.nodes[g.ports[g.ports[g.nodes[g5].first_port].peer].node].name, "n1.pcie2");
    CU_ASSERT_STRING_EQUAL(g.nodes[g.ports[g.ports[g.nodes[g5].first_port + 1].peer].node].name, "n1.nvswitch");
    CU_ASSERT(graph_port_to(&g, (uint32_t)graph_find(&g, "n1.nic5"), (uint32_t)graph_find(&g, "rail5.leaf0")) >= 0);
    CU_ASSERT(g.nodes[graph_find(&g, "n1.cpu1")].in_server && !g.nodes[graph_find(&g, "rail5.leaf0")].in_server);
    graph_free(&g);
    scn_free(&s);
}

/* NCCL's distances: one switch PIX, sibling switches under a parent PXB, one socket PHB, two sockets SYS. */
static void test_server_distances(void)
{
    struct server_desc d = {.gpus = 4, .nics = 1, .sockets = 2, .n_switches = 4,
                            .sw_socket = {0, 0, 0, 1}, .sw_parent = {-1, 0, -1, -1}, .gpu_pcie = {1, 0, 2, 3}};
    static const enum server_path want_nic_on[4][4] = {
        /* NIC under switch 0, 1, 2, 3; rows: GPU 0..3 under switches 1, 0, 2, 3 */
        {SERVER_PXB, SERVER_PIX, SERVER_PHB, SERVER_SYS},
        {SERVER_PIX, SERVER_PXB, SERVER_PHB, SERVER_SYS},
        {SERVER_PHB, SERVER_PHB, SERVER_PIX, SERVER_SYS},
        {SERVER_SYS, SERVER_SYS, SERVER_SYS, SERVER_PIX},
    };
    for (int k = 0; k < 4; k++) {
        d.nic_pcie[0] = (int8_t)k;
        for (int x = 0; x < 4; x++) {
            enum server_path how;
            CU_ASSERT_EQUAL(server_gpu_nic(&d, x, &how), 0);
            CU_ASSERT_EQUAL(how, want_nic_on[x][k]);
        }
    }
    /* The GPUs of one switch take its nearest NICs in turn: here GPUs 0-2 under switch 0 with NICs 1 and 2, GPU 3
     * alone under switch 1 with NIC 0. */
    struct server_desc p = {.gpus = 4, .nics = 3, .sockets = 1, .n_switches = 2, .sw_parent = {-1, -1},
                            .gpu_pcie = {0, 0, 0, 1}, .nic_pcie = {1, 0, 0}};
    static const int want_nic[] = {1, 2, 1, 0};
    for (int x = 0; x < 4; x++) {
        enum server_path how;
        CU_ASSERT_EQUAL(server_gpu_nic(&p, x, &how), want_nic[x]);
        CU_ASSERT_EQUAL(how, SERVER_PIX);
    }
}

/*
 * NVLink and the network at once from one GPU's two ports, and PCIe between two GPUs of a server without NVLink:
 * each finishes within 0.5 % of the formula for its own path, paced at its own slowest link (3.6 Tbps, 400 Gbps,
 * 504 Gbps): the ports do not hold each other up.
 */
static void test_server_paths(void)
{
    static const char traffic[] =
        "{\"type\": \"flow\", \"id\": \"nv\", \"src\": \"n0.g0\", \"dst\": \"n0.g1\", \"size\": \"4MB\"}, "
        "{\"type\": \"flow\", \"id\": \"net\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", \"size\": \"4MB\"}";
    char *j = server_json(preset, traffic);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
    free(j);
    test_run_checked(&r);
    const int64_t nv_rate[] = {3600000000000, 3600000000000}, nv_delay[] = {100000, 100000};
    double want = fct_formula(4000000, 4096, 2, nv_rate, nv_delay), got = (double)fct_of(&r, "nv");
    CU_ASSERT_DOUBLE_EQUAL(got / want, 1.0, 0.005);
    /* GPU-PCIe-NIC-leaf-NIC-PCIe-GPU: PCIe 504 Gbps 150 ns, the NIC links 400 Gbps 1 us */
    const int64_t net_rate[] = {504000000000, 504000000000, 400000000000, 400000000000, 504000000000, 504000000000};
    const int64_t net_delay[] = {150000, 150000, 1000000, 1000000, 150000, 150000};
    want = fct_formula(4000000, 4096, 6, net_rate, net_delay);
    got = (double)fct_of(&r, "net");
    CU_ASSERT_DOUBLE_EQUAL(got / want, 1.0, 0.005);
    test_teardown(&scn, &r);

    static const char no_nvlink[] = "{\"preset\": \"hgx-h100\", \"nvlink_rate\": \"0Gbps\"}";
    j = server_json(no_nvlink, "{\"type\": \"flow\", \"id\": \"p2p\", \"src\": \"n0.g0\", \"dst\": \"n0.g1\", "
                               "\"size\": \"4MB\"}");
    CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
    free(j);
    test_run_checked(&r);
    const int64_t p_rate[] = {504000000000, 504000000000}, p_delay[] = {150000, 150000};
    want = fct_formula(4000000, 4096, 2, p_rate, p_delay);
    CU_ASSERT_DOUBLE_EQUAL((double)fct_of(&r, "p2p") / want, 1.0, 0.005);
    test_teardown(&scn, &r);
}

/* Bad descriptions: the message names the field.  A GPU whose NIC is across the sockets with gdr_level SYS: its
 * traffic crosses the socket link, which paces it. */
static void test_server_errors(void)
{
    static const struct {
        const char *server, *want;
    } cases[] = {
        {"{\"preset\": \"hgx-h100\", \"gpu_pcie\": [0, 0, 9, 1, 2, 2, 3, 3]}",
         "topology.server.gpu_pcie.2: expected a PCIe switch below 4"},
        {"{\"preset\": \"hgx-h100\", \"gpu_pcie\": [0, 0, 1, 1]}",
         "topology.server: expected a server of gpus_per_server (8) GPUs, got 4"},
        {"{\"sockets\": 1, \"pcie_switches\": [{\"socket\": 1}], \"gpu_pcie\": [0, 0, 0, 0, 0, 0, 0, 0], \"nic_pcie\": [0]}",
         "topology.server.pcie_switches.0: expected a socket below sockets (1), got 1"},
        {"{\"pcie_switches\": [{\"socket\": 0, \"parent\": 0}]}", "topology.server.pcie_switches.0.parent"},
        {"{\"pcie_switches\": [{\"socket\": 0, \"bus\": 3}]}", "topology.server.pcie_switches.0.bus: unknown field"},
        {"{\"preset\": \"hgx-h100\", \"gdr_level\": \"PIY\"}", "topology.server.gdr_level"},
        {"{\"preset\": \"dgx-z\"}", "topology.server.preset"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *j = server_json(cases[i].server, "");
        struct scenario s;
        char err[SCN_ERR_MAX] = "";
        CU_ASSERT_EQUAL(scn_load_text("t.json", j, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\n  want: %s\n  got:  %s", cases[i].want, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        free(j);
    }
    /* With gdr_level SYS the GPU's traffic crosses the sockets: its flow is paced by the socket link. */
    char *j = server_json("{\"preset\": \"hgx-h100\", \"nic_pcie\": [3, 3, 3, 3, 3, 3, 3, 3], \"gdr_level\": \"SYS\", "
                          "\"socket_rate\": \"200Gbps\"}",
                          "{\"type\": \"flow\", \"id\": \"x\", \"src\": \"n0.g0\", \"dst\": \"n1.g7\", \"size\": \"2MB\"}");
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
    free(j);
    test_run_checked(&r);
    /* GPU-pcie0-cpu0-cpu1-pcie3-NIC-leaf-NIC-pcie3-GPU (n1.g7 is under pcie3 with the NICs) */
    const int64_t rate[] = {504000000000, 504000000000, 200000000000, 504000000000, 504000000000,
                            400000000000, 400000000000, 504000000000, 504000000000};
    const int64_t delay[] = {150000, 150000, 200000, 150000, 150000, 1000000, 1000000, 150000, 150000};
    CU_ASSERT_DOUBLE_EQUAL((double)fct_of(&r, "x") / fct_formula(2000000, 4096, 9, rate, delay), 1.0, 0.005);
    test_teardown(&scn, &r);
}

/*
 * Eight flows at once from the GPUs of server 0 to the same GPUs of server 1, each within a few per cent above the
 * bound of its path (8MB of payload in frames of 4096 bytes, each 82 bytes more on the wire), or above its time
 * alone on an empty path (the store-and-forward formula of flows.c, ideal_fct) for GPUDirect:
 * - GPUDirect (the preset): each GPU through a NIC of its own PCIe switch, as if alone;
 * - gdr_level LOC (GDR off): staged in memory, so each PCIe switch's uplink carries its two GPUs' data up and its
 *   two NICs' reads down, 504/2 Gbps each way per GPU;
 * - every NIC on socket 1 (nic_pcie 2 and 3) and a 400 Gbps socket link: the four GPUs of socket 0 are SYS from
 *   them, staged through socket 1's memory, and share the socket link, 400/4 Gbps each.
 */
static void test_server_staged(void)
{
    static const struct {
        const char *server;
        int first, last;      /* the GPUs the bound is for */
        double bound_gbps, above; /* each GPU's bound, and how far above its time the run may be */
    } cases[] = {
        {"{\"preset\": \"hgx-h100\"}", 0, 7, 0, 0.005},
        {"{\"preset\": \"hgx-h100\", \"gdr_level\": \"LOC\"}", 0, 7, 252, 0.05},
        {"{\"preset\": \"hgx-h100\", \"nic_pcie\": [2, 2, 2, 2, 3, 3, 3, 3], \"socket_rate\": \"400Gbps\"}", 0, 3, 100,
         0.02},
    };
    char traffic[2048] = "";
    for (int k = 0; k < 8; k++) {
        size_t used = strlen(traffic);
        snprintf(traffic + used, sizeof traffic - used, "%s{\"type\": \"flow\", \"id\": \"f%d\", \"src\": \"n0.g%d\", "
                 "\"dst\": \"n1.g%d\", \"size\": \"8MB\"}", k ? ", " : "", k, k, k);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *j = server_json(cases[i].server, traffic);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
        free(j);
        test_run_checked(&r);
        double wire = 8e6 + (8e6 / 4096) * (HDR_DATA + WIRE_OVERHEAD);
        double bound_ps = cases[i].bound_gbps ? wire * 8e12 / (cases[i].bound_gbps * 1e9) : 0;
        for (int k = cases[i].first; k <= cases[i].last; k++) {
            char name[16];
            snprintf(name, sizeof name, "f%d", k);
            const struct flow *f = test_flow_named(&r, name);
            double ratio = (double)(f->finish - f->start) / (cases[i].bound_gbps ? bound_ps : (double)f->ideal_fct);
            /* A flow may beat its share by a hair once others end: 0.5 % below is allowed. */
            if (ratio < 0.995 || ratio > 1 + cases[i].above)
                fprintf(stderr, "\n  case %zu %s: %.4f of the bound", i, name, ratio);
            CU_ASSERT(ratio >= 0.995 && ratio <= 1 + cases[i].above);
        }
        test_teardown(&scn, &r);
    }
}

/* The relation nvidia-smi prints between GPU g and the NICs in `text` (its matrix): the nearest, in NCCL's order
 * (NODE, across host bridges within a socket, counts as PHB); -1 when the GPU's row is not found. */
static int matrix_nearest(const char *text, int g)
{
    static const char *const rel[] = {"X", "PIX", "PXB", "PHB", "SYS"};
    char head[64][16], row[16];
    int nh = 0, best = -1;
    const char *line = text;
    for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char buf[1024];
        size_t len = strcspn(line, "\n");
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        char *save = NULL, *tok = strtok_r(buf, " \t\r", &save);
        if (!tok)
            continue;
        if (nh == 0 && strcmp(tok, "GPU0") == 0) {
            for (; tok && nh < 64 && (strncmp(tok, "GPU", 3) == 0 || strncmp(tok, "NIC", 3) == 0 ||
                                      strncmp(tok, "mlx5_", 5) == 0); tok = strtok_r(NULL, " \t\r", &save))
                snprintf(head[nh++], sizeof head[0], "%s", tok);
            continue;
        }
        snprintf(row, sizeof row, "GPU%d", g);
        if (nh == 0 || strcmp(tok, row) != 0)
            continue;
        for (int c = 0; c < nh && (tok = strtok_r(NULL, " \t\r", &save)); c++) {
            if (strncmp(head[c], "GPU", 3) == 0)
                continue;
            int r = strcmp(tok, "NODE") == 0 ? SERVER_PHB : -1;
            for (int k = 1; k < 5 && r < 0; k++)
                if (strcmp(tok, rel[k]) == 0)
                    r = k;
            if (r > 0 && (best < 0 || r < best))
                best = r;
        }
        return best;
    }
    return -1;
}

/*
 * Each published nvidia-smi matrix of tests/data/nvsmi, imported, is a server the rail topology takes: its GPUs
 * and NICs, and each GPU's NIC as far from it as the nearest NIC in the matrix.  But for the PCIe server's matrix,
 * whose GPUs without peer-to-peer are SYS to devices of their own NUMA node: the importer keeps NUMA Affinity
 * (its note says so), so they are PHB in the description.  With NCCL's default gdr_level (PXB), exactly the GPUs
 * whose NIC is farther are staged.
 */
static void test_server_imported(void)
{
    static const char *const files[] = {"tests/data/nvsmi/hgx-h20-8nic-vm.txt", "tests/data/nvsmi/dgx-a100-mlx5.txt",
                                        "tests/data/nvsmi/pcie-8x4090-2nic.txt"};
    static const bool matrix_consistent[] = {true, true, false};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char err[SCN_ERR_MAX] = "", *text = test_read_file(files[i], NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        cJSON *out = NULL;
        CU_ASSERT_FATAL(nvsmi_import_text(files[i], text, "200Gbps", NULL, &out, NULL, err, sizeof err) == 0);
        const cJSON *srv = cJSON_GetObjectItem(out, "server");
        int gpus = cJSON_GetArraySize(cJSON_GetObjectItem(srv, "gpu_pcie"));
        char *sj = cJSON_PrintUnformatted(srv);
        char traffic[128];
        snprintf(traffic, sizeof traffic, "{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g%d\", \"size\": \"1KB\"}",
                 gpus - 1);
        char *j = server_json(sj, traffic);
        /* server_json's servers have 8 GPUs: every example has 8 */
        CU_ASSERT_EQUAL_FATAL(gpus, 8);
        struct scenario s;
        struct graph g;
        int rc = scn_load_text("t.json", j, NULL, 0, &s, err, sizeof err);
        if (rc != SCN_OK)
            fprintf(stderr, "\n  %s: %s", files[i], err);
        CU_ASSERT_EQUAL_FATAL(rc, SCN_OK);
        CU_ASSERT_EQUAL_FATAL(topo_build(&s, &g, err, sizeof err), SCN_OK);
        for (int x = 0; x < gpus; x++) {
            char name[32];
            snprintf(name, sizeof name, "n1.g%d", x);
            const struct g_node *gn = &g.nodes[graph_find(&g, name)];
            CU_ASSERT(gn->nic_via != 0);
            if (matrix_consistent[i])
                CU_ASSERT_EQUAL(gn->nic_dist, matrix_nearest(text, x));
            /* NCCL's default gdr_level PXB: a GPU whose NIC is farther is staged through that NIC's memory */
            CU_ASSERT_EQUAL(gn->stage_via != 0, gn->nic_dist > SERVER_PXB);
        }
        graph_free(&g);
        scn_free(&s);
        free(j);
        free(sj);
        cJSON_Delete(out);
        free(text);
    }
}

/*
 * The doctor before a run: the preset has no finding; GDR off finds gdr-off at every GPU; every NIC on socket 1
 * finds nic-numa at the four GPUs of socket 0 (of each server) and, as those GPUs take NICs 0-3, crossed-rails
 * at GPUs 4-7; NICs swapped between the switches of one socket, crossed-rails alone at GPUs 0-3 (of each server).
 */
static void test_server_doctor(void)
{
    static const struct {
        const char *server, *ids[3];
        int where[3];
    } cases[] = {
        {"{\"preset\": \"hgx-h100\"}", {NULL}, {0}},
        {"{\"preset\": \"hgx-h100\", \"gdr_level\": \"LOC\"}", {"gdr-off"}, {16}},
        {"{\"preset\": \"hgx-h100\", \"nic_pcie\": [2, 2, 2, 2, 3, 3, 3, 3]}", {"nic-numa", "crossed-rails"}, {8, 8}},
        {"{\"preset\": \"hgx-h100\", \"nic_pcie\": [1, 1, 0, 0, 2, 2, 3, 3]}", {"crossed-rails"}, {8}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *j = server_json(cases[i].server, "{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", "
                                               "\"size\": \"1KB\"}");
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
        free(j);
        struct doc_report rep = {0};
        doctor_scenario(&r, &rep);
        int want = 0;
        for (int k = 0; k < 3 && cases[i].ids[k]; k++, want++) {
            const struct doc_finding *f = doctor_find(&rep, cases[i].ids[k]);
            CU_ASSERT_PTR_NOT_NULL(f);
            if (f)
                CU_ASSERT_EQUAL(f->n_where, cases[i].where[k]);
        }
        if (rep.n != want)
            for (int k = 0; k < rep.n; k++)
                fprintf(stderr, "\n  case %zu: %s at %s", i, rep.f[k].id, rep.f[k].where);
        CU_ASSERT_EQUAL(rep.n, want);
        doctor_report_free(&rep);
        test_teardown(&scn, &r);
    }
}

/* The data bytes port `local` of node `name` sent, all priorities (monitor.counters). */
static uint64_t tx_bytes(const struct run *r, const char *name, uint32_t local)
{
    int32_t node = graph_find(&r->g, name);
    CU_ASSERT_FATAL(node >= 0 && r->net.ctr != NULL);
    uint32_t port = r->g.nodes[node].first_port + local;
    uint64_t b = 0;
    for (int q = 0; q < NPRIO; q++)
        b += r->net.ctr[(size_t)port * NPRIO + q].tx_bytes;
    return b;
}

/*
 * NCCL's rings on servers: channel 3 of 16 GPUs on two servers passes n0.g3..g7, g0..g2, then n1.g2 back to
 * n1.g3, so both crossings stay on a rail (2 and 3).  An 8-channel all-reduce then sends the same bytes out of
 * every NIC of both servers (each NIC leaves its server in one channel and enters it in another) and nothing
 * through the spine: no crossing changes rail.
 */
static void test_server_rings(void)
{
    char *j = server_json(preset, "{\"type\": \"nccl\", \"op\": \"all_reduce\", \"algorithm\": \"ring\", "
                                  "\"channels\": 8, \"size\": \"16MB\"}");
    size_t len = strlen(j);
    char *k = malloc(len + 64);
    snprintf(k, len + 64, "%.*s, \"monitor\": {\"counters\": true}}", (int)(len - 1), j);
    free(j);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(k, NULL, NULL, &scn, &r));
    free(k);
    uint32_t host[16], perm[16];
    for (uint32_t i = 0; i < 16; i++)
        host[i] = i;
    CU_ASSERT_EQUAL(coll_ring_order(&r.net, host, 16, 3, perm), 1);
    static const uint32_t want[16] = {3, 4, 5, 6, 7, 0, 1, 2, 10, 9, 8, 15, 14, 13, 12, 11};
    for (int i = 0; i < 16; i++)
        CU_ASSERT_EQUAL(perm[i], want[i]);
    test_run_checked(&r);
    uint64_t first = tx_bytes(&r, "n0.nic0", 0);
    CU_ASSERT(first > 16000000 / 8);
    for (int sv = 0; sv < 2; sv++)
        for (int nic = 0; nic < 8; nic++) {
            char name[32];
            snprintf(name, sizeof name, "n%d.nic%d", sv, nic);
            CU_ASSERT_DOUBLE_EQUAL((double)tx_bytes(&r, name, 0) / (double)first, 1.0, 0.01);
        }
    for (uint32_t p = 0; p < 8; p++)
        CU_ASSERT_EQUAL(tx_bytes(&r, "spine0", p), 0);
    test_teardown(&scn, &r);
}

/*
 * One published nccl-tests result reproduced: NVIDIA's NCCL maintainers, answering "Single-node and multi-node
 * performance of H100 nodes" (github.com/NVIDIA/nccl-tests, issue 290, March 2025), give 46-48 GB/s of all-reduce
 * busbw per NIC for two nodes of 8 H100 GPUs with 400 Gbps NDR NICs, one per GPU, benchmarked with
 * NCCL_ALGO=RING.  Here two hgx-h100 servers on one leaf per rail, a 256 MiB ring all-reduce on 8 channels
 * (NCCL's rings: one NIC per channel): busbw / 8 within 10 % of that range (measured 47.8 GB/s per NIC).
 */
static void test_server_published(void)
{
    char *j = server_json(preset, "{\"type\": \"nccl\", \"op\": \"all_reduce\", \"algorithm\": \"ring\", "
                                  "\"channels\": 8, \"size\": \"256MiB\"}");
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(j, NULL, NULL, &scn, &r));
    free(j);
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish > c->start);
    double per_nic = coll_algbw(c) * c->busbw_factor / 8;
    printf("\n    two 8-GPU H100 servers, 8 x 400G: all-reduce busbw %.1f GB/s per NIC (published 46-48) ", per_nic);
    CU_ASSERT(per_nic >= 0.9 * 46 && per_nic <= 1.1 * 48);
    test_teardown(&scn, &r);
}

/* S hgx-h100 servers on one leaf per rail and one spine, lossless (PFC, no congestion control: no frame but data,
 * ACKs and pauses), monitor.counters on, and one nccl all-reduce `entry`. */
static bool tree_setup(int S, const char *entry, struct scenario *scn, struct run *r)
{
    char j[1024];
    snprintf(j, sizeof j, "{\"stop\": \"50ms\", \"topology\": {\"type\": \"rail\", \"servers\": %d, \"gpus_per_server\": "
             "8, \"leaves_per_rail\": 1, \"spines\": 1, \"server\": {\"preset\": \"hgx-h100\"}, \"host_link\": {\"rate\": "
             "\"400Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"400Gbps\", \"delay\": \"1us\"}}, \"switch\": "
             "{\"pfc\": {\"enabled\": true, \"priorities\": [3]}}, \"host\": {\"mtu\": 4096, \"priority\": 3, \"cc\": "
             "\"none\"}, \"monitor\": {\"counters\": true}, \"traffic\": [{\"type\": \"nccl\", \"op\": \"all_reduce\", %s}]}",
             S, entry);
    return test_setup(j, NULL, NULL, scn, r);
}

/* What a step of `bytes` puts on the wire one way (frames of 4096 B with their headers) and back (an ACK each). */
static uint64_t step_out(int64_t bytes) { return (uint64_t)bytes + (uint64_t)((bytes + 4095) / 4096) * HDR_DATA; }
static uint64_t step_back(int64_t bytes) { return (uint64_t)((bytes + 4095) / 4096) * FRAME_ACK; }

/*
 * NCCL's trees on servers (coll_trees.c): on 4 servers of 8 GPUs channel 3's chains run g3, g4, .., g7, g0, .., g2
 * from the GPU of NIC 3, and g3 of each server hangs under g3 of its parent server in the double binary tree over
 * the servers (tree 0: 0 <- 2 <- {1, 3}; tree 1, mirrored: 3 <- 1 <- {2, 0}).  Run on 8 channels, every byte of a
 * step between servers leaves by its sender's NIC and every byte of a step inside a server by the NVSwitch, each
 * to the frame (data frames out, ACKs back, counted from the schedule), and the spine, which every change of rail
 * would cross, carries nothing.
 */
static void test_server_trees(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(tree_setup(4, "\"algorithm\": \"tree\", \"channels\": 8, \"size\": \"8MB\"", &scn, &r));
    uint32_t host[32], parent[64];
    for (uint32_t i = 0; i < 32; i++)
        host[i] = i;
    CU_ASSERT_EQUAL(coll_tree_parents(&r.net, host, 32, 3, parent), 1);
    static const uint32_t in_server[][2] = {{4, 3}, {7, 6}, {0, 7}, {1, 0}, {2, 1}, {13, 12}, {26, 25}};
    for (size_t i = 0; i < sizeof in_server / sizeof in_server[0]; i++)
        for (int t = 0; t < 2; t++)
            CU_ASSERT_EQUAL(parent[t * 32 + in_server[i][0]], in_server[i][1]);
    static const uint32_t heads[2][4] = {{NO_STEP, 19, 3, 19}, {11, 27, 11, NO_STEP}};
    for (int t = 0; t < 2; t++)
        for (int sv = 0; sv < 4; sv++)
            CU_ASSERT_EQUAL(parent[t * 32 + sv * 8 + 3], heads[t][sv]);
    CU_ASSERT_EQUAL(coll_tree_depth(parent, 32), 2 + 7);
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish > c->start);
    CU_ASSERT_STRING_EQUAL(c->algorithm, "tree");
    uint64_t nic[4][8] = {{0}}, nvs[4] = {0};
    const struct nccl_step *st = c->sched;
    for (uint32_t j = 0; j < c->n_flows; j++) {
        uint32_t a = st[j].src, z = st[j].dst;
        if (a / 8 == z / 8) {
            nvs[a / 8] += step_out(st[j].bytes) + step_back(st[j].bytes);
        } else {
            nic[a / 8][a % 8] += step_out(st[j].bytes);
            nic[z / 8][z % 8] += step_back(st[j].bytes);
        }
    }
    for (int sv = 0; sv < 4; sv++) {
        char name[32];
        uint64_t through = 0;
        snprintf(name, sizeof name, "n%d.nvswitch", sv);
        for (uint32_t p = 0; p < 8; p++)
            through += tx_bytes(&r, name, p);
        CU_ASSERT_EQUAL(through, nvs[sv]);
        for (int k = 0; k < 8; k++) {
            snprintf(name, sizeof name, "n%d.nic%d", sv, k);
            CU_ASSERT(nic[sv][k] > 0);
            CU_ASSERT_EQUAL(tx_bytes(&r, name, 0), nic[sv][k]);
        }
    }
    for (uint32_t p = 0; p < 8; p++)
        CU_ASSERT_EQUAL(tx_bytes(&r, "spine0", p), 0);
    test_teardown(&scn, &r);
}

/* The busbw (GB/s) of the tree all-reduce `entry` on S servers, run. */
static double tree_busbw(int S, const char *entry)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(tree_setup(S, entry, &scn, &r));
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish > c->start);
    double busbw = coll_algbw(c) * c->busbw_factor;
    test_teardown(&scn, &r);
    return busbw;
}

/*
 * The tree's bound on servers, 8 channels, one per NIC, each of d = size / 8 in two trees of d / 2.  A NIC: a server
 * inner in one tree of the pair (two child servers) and a leaf in the other sends d / 2 up and twice d / 2 down in
 * the first and d / 2 up in the second, 2d, and receives as much (NCCL's blog: each rank sends and receives twice
 * its data in the two trees); the root of one tree and a leaf in the other, as both servers are on 2 servers, d.
 * NVLink: a GPU passes d / 2 up and d / 2 down in each tree of the 6 channels whose chain it is inside of, and d in
 * the channel whose chain it starts (down only) and the one it ends (up only): 14d = 1.75 size each way.  Every
 * 4096 B of payload costs 4264 B of the link (a frame's 62 B of headers and 20 of preamble and gap, and the ACK, 86
 * B on the wire, of a frame coming the other way).  busbw = size / time x 2(n-1)/n.
 * On 2 servers NVLink is the bound (NIC 384 GB/s of algbw, NVLink 247): within 3 %, the fill and drain of one
 * chunk's path (2 hops between servers, 7 NVLink hops, about 30 us) against 1.09 ms.  On 4 servers the inner
 * servers' NICs are (192 against 247): within 10 %, as three servers send into an inner server's NIC at once (two
 * children up, the parent down) and its leaf's PFC pauses each sender's NIC whole, its other trees' sends too
 * (measured 93 % of the bound at 256 MiB with a connection's chunks in order on a queue pair): at least 90 %.
 */
static void test_server_tree_bound(void)
{
    const double mib256 = 268435456, eff = 4096.0 / 4264, nic = 50 * eff, nvl = 450 * eff;
    double b2 = tree_busbw(2, "\"algorithm\": \"tree\", \"channels\": 8, \"size\": \"256MiB\"");
    double nvl_time = 1.75 * mib256 / nvl, nic2_time = mib256 / 8 / nic;
    double bound2 = mib256 / fmax(nvl_time, nic2_time) * 2 * 15 / 16;
    double b4 = tree_busbw(4, "\"algorithm\": \"tree\", \"channels\": 8, \"size\": \"256MiB\"");
    double nic4_time = 2 * mib256 / 8 / nic, bound4 = mib256 / fmax(nvl_time, nic4_time) * 2 * 31 / 32;
    printf("\n    tree all-reduce 256 MiB, 8 channels: 2 servers busbw %.1f GB/s (NVLink bound %.1f), 4 servers %.1f "
           "GB/s (NIC bound %.1f) ", b2, bound2, b4, bound4);
    CU_ASSERT(nvl_time > nic2_time && nic4_time > nvl_time);
    CU_ASSERT(b2 <= bound2 && b2 >= 0.97 * bound2);
    CU_ASSERT(b4 <= bound4 && b4 >= 0.90 * bound4);
}

/* The algorithm, completion (us) and the α-β model's times of ring and tree (us) of the all-reduce `entry` on 4
 * servers. */
static double tree_time(const char *entry, char *algo, double model[2])
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(tree_setup(4, entry, &scn, &r));
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish > c->start);
    snprintf(algo, 16, "%s", c->algorithm);
    double us = (double)(c->finish - c->start) / 1e6;
    model[0] = c->model_ring * 1e6, model[1] = c->model_tree * 1e6;
    test_teardown(&scn, &r);
    return us;
}

/*
 * "auto" on 4 servers of 8 GPUs (32 ranks), 8 channels, against the α-β model it uses (models/traffic_nccl.c): at
 * 16 KB the latency terms decide, the ring's 62 steps summed hop by hop around it (4 of its 32 hops between
 * servers) against the trees' deepest path up and down (2 hops between servers, 7 of NVLink); at 64 MiB the
 * bandwidth terms (2(N-1)/N S against 2S over the same NICs, and the tree's 18 levels of a chunk).  Each simulated
 * time within 25 % of the model's (which leaves out the ACKs, the frames' headers and the pipeline's fill), and
 * auto takes the algorithm the model makes faster, which the simulation finds faster too.
 */
static void test_server_tree_auto(void)
{
    char ar[16], at[16], al[16], ring_algo[16];
    double ms[2], ml[2], m[2];
    double rs = tree_time("\"algorithm\": \"ring\", \"channels\": 8, \"size\": \"16KB\"", ring_algo, ms);
    double ts = tree_time("\"algorithm\": \"tree\", \"channels\": 8, \"size\": \"16KB\"", at, m);
    double rl = tree_time("\"algorithm\": \"ring\", \"channels\": 8, \"size\": \"64MiB\"", ring_algo, ml);
    double tl = tree_time("\"algorithm\": \"tree\", \"channels\": 8, \"size\": \"64MiB\"", at, m);
    tree_time("\"channels\": 8, \"size\": \"16KB\"", ar, m);
    tree_time("\"channels\": 8, \"size\": \"64MiB\"", al, m);
    printf("\n    4 servers: 16KB ring %.1f us (model %.1f), tree %.1f us (%.1f), auto %s; 64MiB ring %.1f us (%.1f), "
           "tree %.1f us (%.1f), auto %s ", rs, ms[0], ts, ms[1], ar, rl, ml[0], tl, ml[1], al);
    const double got[4] = {rs, ts, rl, tl}, model[4] = {ms[0], ms[1], ml[0], ml[1]};
    for (int i = 0; i < 4; i++)
        CU_ASSERT(model[i] > 0 && fabs(got[i] - model[i]) <= 0.25 * model[i]);
    CU_ASSERT(ms[1] < ms[0] && ts < rs);
    CU_ASSERT_STRING_EQUAL(ar, "tree");
    CU_ASSERT(ml[0] < ml[1] && rl < tl);
    CU_ASSERT_STRING_EQUAL(al, "ring");
}

/*
 * The doctor on classes: lab 13's checkpoint beside training is on a priority of its own (3, the all-reduce's
 * is 1): no shared-class finding; moved onto the all-reduce's lossless priority, the finding names it.
 */
static void test_server_shared_class(void)
{
    const char *file = "scenarios/labs/13-checkpoint-path/beside-training.json";
    for (int shared = 0; shared < 2; shared++) {
        struct scn_override ov = {"traffic.1.priority", "1"};
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup_from(file, NULL, &ov, shared, &scn, &r));
        struct doc_report rep = {0};
        doctor_scenario(&r, &rep);
        const struct doc_finding *f = doctor_find(&rep, "shared-class");
        CU_ASSERT_EQUAL(f != NULL, shared);
        if (f)
            CU_ASSERT_PTR_NOT_NULL(strstr(f->seen, "on priority 1, lossless"));
        doctor_report_free(&rep);
        test_teardown(&scn, &r);
    }
}

/* scenarios/ai/rail-16x8.json: the same files twice and on 2 threads. */
static void test_server_same_each_run(void)
{
    free(test_same_each_run("scenarios/ai/rail-16x8.json"));
}

void test_server_register(void)
{
    CU_pSuite s = CU_add_suite("server inside", NULL, NULL);
    CU_add_test(s, "the preset's nodes, links, ports and names", test_server_shape);
    CU_add_test(s, "GPU-NIC distances as NCCL names them", test_server_distances);
    CU_add_test(s, "NVLink, PCIe and NIC paths each at the formula's time, side by side", test_server_paths);
    CU_add_test(s, "bad descriptions are refused by name; GPUDirect across the sockets at gdr_level SYS",
                test_server_errors);
    CU_add_test(s, "GPUDirect, GDR off and NICs across NUMA: eight flows at once, each at its path's bound",
                test_server_staged);
    CU_add_test(s, "published nvidia-smi matrices, imported, load; each GPU's NIC as near as the matrix says",
                test_server_imported);
    CU_add_test(s, "the doctor: GDR off, NICs across NUMA, crossed rails, and nothing on the preset",
                test_server_doctor);
    CU_add_test(s, "NCCL's rings on servers: a channel's crossings stay on a rail; 8 channels load every NIC alike",
                test_server_rings);
    CU_add_test(s, "NCCL's trees on servers: chains over NVLink, hops between servers on one rail, to the frame",
                test_server_trees);
    CU_add_test(s, "NCCL's trees on servers: busbw at its NVLink bound on 2 servers, within 10 % of its NIC bound on 4",
                test_server_tree_bound);
    CU_add_test(s, "NCCL's trees on servers: auto takes the tree at 16 KB and the ring at 64 MiB, as the α-β model",
                test_server_tree_auto);
    CU_add_test(s, "nccl-tests on two H100 servers within 10 % of the published busbw per NIC", test_server_published);
    CU_add_test(s, "the doctor: a checkpoint on the collectives' lossless priority", test_server_shared_class);
    CU_add_test(s, "rail-16x8: the same files twice and on 2 threads", test_server_same_each_run);
}
