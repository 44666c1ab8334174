/* nvidia-smi topo -m import: published matrices to descriptions written by hand from them, malformed input refused
 * by line, the command line, and the fuzzing harness over the examples. */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/ops/nvsmi.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fuzzing harness itself (docs/RELIABILITY.md), so that a regression replays through exactly its checks. */
#define LLVMFuzzerTestOneInput fuzz_nvsmi_one
#include "tests/fuzz/fuzz_nvsmi.c"
#undef LLVMFuzzerTestOneInput

#define DATA "tests/data/nvsmi/"
#define SW(s, p) "{\"socket\":" #s ",\"parent\":" #p "}"

/* Imports text and compares the compact JSON with want; notes, when want_note is given, must contain it. */
static void imports_to(const char *text, const char *rate, const char *gdr, const char *want, const char *want_note)
{
    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = nvsmi_import_text("f.txt", text, rate, gdr, &o, &notes, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  refused: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *got = cJSON_PrintUnformatted(o);
    if (strcmp(got, want))
        fprintf(stderr, "\n  got  %s\n  want %s\n", got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (want_note) {
        if (!notes.p || !strstr(notes.p, want_note))
            fprintf(stderr, "\n  notes lack \"%s\": %s\n", want_note, notes.p ? notes.p : "(none)");
        CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, want_note));
    }
    free(got);
    free(notes.p);
    cJSON_Delete(o);
}

static void file_imports_to(const char *file, const char *rate, const char *want, const char *want_note)
{
    char *t = test_read_file(file, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    imports_to(t, rate, NULL, want, want_note);
    free(t);
}

/* rapidsai/ucx-py issue 749 (DGX A100, older driver: mlx5_ names, no NV# shown, NUMA Affinity "6-7"): each GPU
 * pair and its two NICs are PXB to each other, SYS to the rest -> 4 NUMA nodes of a parent switch over 4 leaf
 * switches of one device each; mlx5_4/5/10/11 are SYS to every GPU and have no row: one node and switch each. */
static void test_dgx_a100(void)
{
    file_imports_to(DATA "dgx-a100-mlx5.txt", NULL,
                    "{\"server\":{\"sockets\":8,\"pcie_switches\":["
                    SW(0, -1) "," SW(0, 0) "," SW(0, 0) "," SW(1, -1) "," SW(1, 3) "," SW(1, 3) ","
                    SW(2, -1) "," SW(2, 6) "," SW(2, 6) "," SW(3, -1) "," SW(3, 9) "," SW(3, 9) ","
                    SW(0, 0) "," SW(0, 0) "," SW(1, 3) "," SW(1, 3) "," SW(4, -1) "," SW(5, -1) ","
                    SW(2, 6) "," SW(2, 6) "," SW(3, 9) "," SW(3, 9) "," SW(6, -1) "," SW(7, -1) "],"
                    "\"gpu_pcie\":[1,2,4,5,7,8,10,11],"
                    "\"nic_pcie\":[12,13,14,15,16,17,18,19,20,21,22,23],\"gdr_level\":\"PXB\"}}",
                    "NUMA Affinity is not one node per GPU (\"6-7\")");
}

/* NVIDIA/go-gpuallocator issue 17 (8 x RTX 4090, tabs, GPU NUMA ID column): every GPU SYS to every other, NUMA
 * Affinity 0 for GPU0-3 and 1 for GPU4-7; NIC0/NIC1 PIX to each other and PHB to GPU6 -> one switch for the two
 * NICs on node 1, a root port of its own for each GPU, no NVLink. */
static void test_pcie_4090(void)
{
    file_imports_to(DATA "pcie-8x4090-2nic.txt", NULL,
                    "{\"server\":{\"sockets\":2,\"pcie_switches\":["
                    SW(0, -1) "," SW(0, -1) "," SW(0, -1) "," SW(0, -1) ","
                    SW(1, -1) "," SW(1, -1) "," SW(1, -1) "," SW(1, -1) "," SW(1, -1) "],"
                    "\"gpu_pcie\":[0,1,2,3,4,5,6,7],\"nic_pcie\":[8,8],\"gdr_level\":\"PXB\"}}",
                    "GPU0/GPU1 is SYS, yet NUMA Affinity puts them on one node");
}

/* NVIDIA/nccl-tests issue 321 (8 x H20, a Hopper HGX board, in a VM; 8 NICs): NV18 between all GPUs, NUMA Affinity
 * 0 for GPU0-3 and 1 for GPU4-7, NIC 7-k PIX to GPU k, NODE within a node, SYS across -> one switch per GPU/NIC
 * pair (GPU order numbers them, so NIC0 is on GPU7's switch 7). */
static void test_hgx_h20(void)
{
    const char *sw = "\"pcie_switches\":[" SW(0, -1) "," SW(0, -1) "," SW(0, -1) "," SW(0, -1) ","
                     SW(1, -1) "," SW(1, -1) "," SW(1, -1) "," SW(1, -1) "],";
    char want[1024];
    snprintf(want, sizeof want,
             "{\"server\":{\"sockets\":2,%s\"gpu_pcie\":[0,1,2,3,4,5,6,7],"
             "\"nic_pcie\":[7,6,5,4,3,2,1,0],\"nvlink_rate\":\"3.6Tbps\",\"gdr_level\":\"PXB\"}}", sw);
    file_imports_to(DATA "hgx-h20-8nic-vm.txt", "200Gbps", want, NULL); /* 18 x 200 Gbps */
    snprintf(want, sizeof want,
             "{\"server\":{\"sockets\":2,%s\"gpu_pcie\":[0,1,2,3,4,5,6,7],"
             "\"nic_pcie\":[7,6,5,4,3,2,1,0],\"gdr_level\":\"PXB\"}}", sw);
    file_imports_to(DATA "hgx-h20-8nic-vm.txt", NULL, want, "each GPU pair has 18 NVLinks");
}

static const char small[] = "        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity\n"
                            "GPU0     X      NV4     PIX     SYS     0-7     0\n"
                            "GPU1    NV4      X      SYS     PIX     8-15    1\n"
                            "NIC0    PIX     SYS      X      SYS\n"
                            "NIC1    SYS     PIX     SYS      X\n";
static const char small_want[] = "{\"server\":{\"sockets\":2,\"pcie_switches\":[" SW(0, -1) "," SW(1, -1)
                                 "],\"gpu_pcie\":[0,1],\"nic_pcie\":[0,1],\"nvlink_rate\":\"800Gbps\","
                                 "\"gdr_level\":\"PIX\"}}";

/* small with the first occurrence of from replaced by to (caller frees). */
static char *small_with(const char *from, const char *to)
{
    const char *at = strstr(small, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    struct sbuf b = {0};
    sb_printf(&b, "%.*s%s%s", (int)(at - small), small, to, at + strlen(from));
    return b.p;
}

/* A prompt before the matrix, CRLF line ends, the Legend after it, NIC rows left out: the same description. */
static void test_tolerant(void)
{
    imports_to(small, "200Gbps", "PIX", small_want, NULL);
    struct sbuf b = {0};
    sb_printf(&b, "$ nvidia-smi topo -m\r\n");
    for (const char *p = small; *p; p++)
        sb_printf(&b, *p == '\n' ? "\r\n" : "%c", *p);
    sb_printf(&b, "\r\nLegend:\r\n\r\n  X    = Self\r\n\r\nNIC Legend:\r\n\r\n  NIC0: mlx5_0\r\n  NIC1: mlx5_1\r\n");
    imports_to(b.p, "200Gbps", "PIX", small_want, NULL);
    free(b.p);
    char *t = small_with("NIC0    PIX     SYS      X      SYS\nNIC1    SYS     PIX     SYS      X\n", "");
    imports_to(t, "200Gbps", "PIX", small_want, NULL);
    free(t);
}

static void fails(const char *text, const char *rate, const char *gdr, const char *want)
{
    cJSON *o = NULL;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL(nvsmi_import_text("f.txt", text, rate, gdr, &o, NULL, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NULL(o);
    if (strcmp(err, want))
        fprintf(stderr, "\n  got  %s\n  want %s\n", err, want);
    CU_ASSERT_STRING_EQUAL(err, want);
    cJSON_Delete(o);
}

static void small_fails(const char *from, const char *to, const char *want)
{
    char *t = small_with(from, to);
    fails(t, NULL, NULL, want);
    free(t);
}

static void test_malformed(void)
{
    small_fails("GPU1    NV4      X      SYS     PIX     8-15    1", "GPU1    NV4      X      SYS",
                "f.txt:3: GPU1 has 3 cells, the header (line 1) names 4 devices");
    small_fails("NIC0    PIX     SYS      X      SYS", "NIC0    PIX     SYS      X      SYS  PIX PIX PIX",
                "f.txt:4: NIC0 has 3 fields after its 4 cells, the header (line 1) names 2 columns there");
    small_fails("NIC0    PIX     SYS      X      SYS", "NIC0    PIX     SYS      X      QPI",
                "f.txt:4: NIC0/NIC1 is \"QPI\": expected X, NV#, PIX, PXB, PHB, NODE or SYS");
    small_fails("NIC1    SYS     PIX     SYS      X", "NIC1    SYS     PIX     PHB      X",
                "f.txt:5: NIC1/NIC0 is PHB but NIC0/NIC1 is SYS: the matrix is not symmetric");
    small_fails("GPU1    NV4      X      SYS     PIX     8-15    1\n", "",
                "f.txt:5: no row for GPU1 (the header on line 1 names it)");
    small_fails("NIC0    PIX     SYS      X      SYS", "NIC0    PIX     SYS      X      X",
                "f.txt:4: NIC0/NIC1 is X: X belongs on the diagonal and only there");
    small_fails("GPU0     X      NV4     PIX", "GPU0     X      NV4     NV2",
                "f.txt:2: GPU0/NIC0 is NV2: NVLink joins two GPUs");
    small_fails("NIC1    SYS", "NIC9    SYS", "f.txt:5: \"NIC9\" is not a device of the header (line 1)");
    small_fails("GPU1    NIC0", "GPU2    NIC0", "f.txt:1: GPU2 out of order: the header lists GPU0, GPU1, ... first");
    fails("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n", NULL, NULL,
          "f.txt:1: the header names no NIC (after the GPUs, NIC0 or mlx5_0 ...): a server needs one to reach the "
          "fabric");
    fails("hello\n", NULL, NULL, "f.txt:1: no header line starting with GPU0 (the matrix `nvidia-smi topo -m` prints)");
    fails("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV4\tNV2\nGPU1\tNV4\t X \tNV4\nGPU2\tNV2\tNV4\t X \n", NULL, NULL,
          "f.txt:2: GPU0/GPU2 is NV2 but GPU0/GPU1 is NV4: the server description has one NVLink rate for every "
          "GPU pair (an NVSwitch) or none");
    fails("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tPIX\tNODE\nGPU1\tPIX\t X \tPIX\nGPU2\tNODE\tPIX\t X \n", NULL, NULL,
          "f.txt:2: GPU0/GPU2 is NODE: not one PCIe switch, yet the PIX relations put them under one");
    fails("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNODE\tSYS\nGPU1\tNODE\t X \tNODE\nGPU2\tSYS\tNODE\t X \n", NULL, NULL,
          "f.txt:2: GPU0/GPU2 is SYS: across NUMA nodes, yet the other relations put them on one node");
    fails(small, "fast", NULL, "--nvlink-rate: expected a rate above 0 like \"200Gbps\"");
    fails(small, NULL, "XYZ", "--gdr-level: expected LOC, PIX, PXB, PHB or SYS, got \"XYZ\"");
}

/* -o writes the description; a malformed matrix exits 2 naming file and line, and writes nothing. */
static void test_cli(void)
{
    char in[64], outp[64], cmd[512], *out = NULL;
    snprintf(in, sizeof in, "/tmp/rocesim-nvsmi-%d.txt", (int)getpid());
    snprintf(outp, sizeof outp, "/tmp/rocesim-nvsmi-%d.json", (int)getpid());
    test_write_text(in, small);
    remove(outp);
    snprintf(cmd, sizeof cmd, "%s import nvidia-smi-topo %s -o %s --nvlink-rate 200Gbps --gdr-level PIX",
             test_rocesim_bin(), in, outp);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    free(out);
    char *t = test_read_file(outp, NULL);
    cJSON *o = cJSON_Parse(t ? t : "");
    char *got = cJSON_PrintUnformatted(o);
    CU_ASSERT_STRING_EQUAL(got ? got : "", small_want);
    free(got);
    cJSON_Delete(o);
    free(t);
    remove(outp);
    char *bad = small_with("NIC0    PIX     SYS      X      SYS", "NIC0    PIX     SYS      X      QPI");
    test_write_text(in, bad);
    free(bad);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-nvsmi-") &&
                           strstr(out, ".txt:4: NIC0/NIC1 is \"QPI\""));
    CU_ASSERT_EQUAL(access(outp, F_OK), -1);
    free(out);
    remove(in);
    snprintf(cmd, sizeof cmd, "%s import nvidia-smi-topo /nonexistent/topo.txt", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 3);
    free(out);
    snprintf(cmd, sizeof cmd, "%s import nvidia-smi-topo %s --nvlink-rate", test_rocesim_bin(), DATA "x.txt");
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim import: --nvlink-rate needs a value"));
    free(out);
}

/* The examples and every finding of the fuzzer (tests/fuzz/regressions/nvsmi-*) replay clean through its harness. */
static void test_harness_replay(void)
{
    int n = test_fuzz_replay("tests/data/nvsmi", "", ".txt", fuzz_nvsmi_one);
    CU_ASSERT(n >= 3);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "nvsmi-", ".txt", fuzz_nvsmi_one) >= 1);
}

void test_nvsmi_register(void)
{
    CU_pSuite s = CU_add_suite("nvidia-smi topo import", NULL, NULL);
    CU_add_test(s, "DGX A100 (mlx5 names, NUMA Affinity a range): the description worked out by hand", test_dgx_a100);
    CU_add_test(s, "8 x RTX 4090 without NVLink (tabs, SYS on one NUMA node): the description by hand",
                test_pcie_4090);
    CU_add_test(s, "HGX H20 with 8 NICs: NVLink rate = 18 x the per-link rate, or left out with a note",
                test_hgx_h20);
    CU_add_test(s, "a prompt, CRLF, the legends and missing NIC rows change nothing", test_tolerant);
    CU_add_test(s, "ragged rows, unknown cells, asymmetry, a missing GPU row, contradictions: exit 2 by line",
                test_malformed);
    CU_add_test(s, "on the command line: -o, exit statuses, nothing written on error", test_cli);
    CU_add_test(s, "the examples and the fuzzer's regressions replay clean through its harness", test_harness_replay);
}
