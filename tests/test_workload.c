/*
 * The traffic kind "workload" (models/traffic_workload.c): a SimAI workload file's iteration time against the
 * compute it names plus the ring's bytes at the link's bound, malformed files refused with file and line, and the
 * same results twice and on 2 threads.
 */
#include "tests/tests.h"
#include "models/traffic.h"
#include "sim/scenario.h"
#include "tools/run/run.h"
#include "models/chakra.pb-c.h"
#include "models/workload.h"

/* The fuzzing harness itself (docs/RELIABILITY.md), so that a finding replays through exactly its checks. */
#define LLVMFuzzerTestOneInput fuzz_chakra_one
#include "tests/fuzz/fuzz_chakra.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_simai_one
#include "tests/fuzz/fuzz_simai.c"
#undef LLVMFuzzerTestOneInput

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCN "scenarios/ai/workload-tp2-dp2.json"

/*
 * scenarios/ai/workloads/tp2-dp2.txt on 4 ranks of one 100 Gbps switch, per iteration: compute 2 x (10 + 20 + 5
 * + 1) us = 72 us; per rank on its link, a 1 MB all-reduce over 2 ranks twice (2(N-1)/N x 1 MB each), a 1 MB
 * all-gather and a 1 MB reduce-scatter (N-1)/N x 1 MB each: 3 MB, at 1024 / 1192 of 12.5 GB/s (payload of a 1106 B
 * frame, with its ACK on the same link, as tests/test_nccl.c's bound) 279.3 us.  No overlap: the iteration takes
 * at least their sum, 351.3 us, and within 10 % more (the steps' store-and-forward latency and start-up).
 */
static void test_iteration_time(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(SCN, NULL, NULL, 0, &scn, &r));
    test_run_checked(&r);
    char *text = test_run_text(&r);
    const char *p = strstr(text, "\"iteration_ns\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double it[2] = {0, 0};
    CU_ASSERT_EQUAL(sscanf(p, "\"iteration_ns\": [%lf, %lf]", &it[0], &it[1]), 2);
    double bound_us = 72 + 3e6 / (12.5e3 * 1024 / 1192);
    for (int i = 0; i < 2; i++) {
        if (!(it[i] / 1000 >= bound_us && it[i] / 1000 <= 1.10 * bound_us))
            fprintf(stderr, "\n  iteration %d: %.2f us, bound %.2f us\n", i, it[i] / 1000, bound_us);
        CU_ASSERT(it[i] / 1000 >= bound_us && it[i] / 1000 <= 1.10 * bound_us);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"exposed_comm_ns\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"collective_ns\""));
    /* busbw per kind, over groups of 2: all_reduce 1 MB x 1, all_gather and reduce_scatter 1 MB x 1/2, each over its
     * time, so the bound of each is the link's rate of payload, 10.74 GB/s; within 10 % below (each collective's
     * steps' latency); no all_to_all in the file: null */
    const double rate = 12.5 * 1024 / 1192;
    const char *kinds[] = {"\"all_reduce\":", "\"all_gather\":", "\"reduce_scatter\":"};
    const char *b = strstr(text, "\"collective_busbw_GBps\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (int i = 0; i < 3; i++) {
        const char *q = strstr(b, kinds[i]);
        double v = -1;
        CU_ASSERT_FATAL(q && sscanf(q + strlen(kinds[i]), "%lf", &v) == 1);
        CU_ASSERT(v <= rate && v >= rate / 1.10);
    }
    const char *a2a = strstr(b, "\"all_to_all\":");
    CU_ASSERT_FATAL(a2a != NULL);
    a2a += strlen("\"all_to_all\":");
    a2a += strspn(a2a, " \t");
    CU_ASSERT_EQUAL(strncmp(a2a, "null", 4), 0);
    free(text);
    test_teardown(&scn, &r);
}

#define SCN_OVERLAP "scenarios/ai/workload-dp2-overlap.json"

/* The exposed communication of each of a run's iterations into ex[0..1]. */
static void run_exposed(const char *overlap, double ex[2])
{
    struct scenario scn;
    struct run r;
    struct scn_override ov = {"traffic.0.overlap", overlap};
    ex[0] = ex[1] = -1;
    CU_ASSERT_FATAL(test_setup_from(SCN_OVERLAP, NULL, &ov, 1, &scn, &r));
    test_run_checked(&r);
    char *text = test_run_text(&r);
    const char *p = strstr(text, "\"exposed_comm_ns\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(sscanf(p, "\"exposed_comm_ns\": [%lf, %lf]", &ex[0], &ex[1]), 2);
    free(text);
    test_teardown(&scn, &r);
}

/*
 * scenarios/ai/workloads/dp2-overlap.txt on 2 ranks of one 100 Gbps switch: 4 layers, each 200 us of forward,
 * input-gradient and weight-gradient compute and a 1 MB all-reduce of its weight gradients over the 2 ranks, T
 * = 2(N-1)/N x 1 MB at 1024 / 1192 of 12.5 GB/s = 93.1 us < 200 us.  With overlap, layer i's all-reduce runs
 * beside the backward compute of layers < i and ends before the next: only layer 0's, which the next forward
 * waits for, is exposed: T, within 10 % more (store-and-forward latency, start-up).  Without, all 4 are: 4 T.
 */
static void test_overlap(void)
{
    double T_ns = 1e6 / (12.5 * 1024 / 1192), on[2], off[2];
    run_exposed("true", on);
    run_exposed("false", off);
    for (int i = 0; i < 2; i++) {
        if (!(on[i] >= T_ns && on[i] <= 1.10 * T_ns && off[i] >= 4 * T_ns && off[i] <= 1.10 * 4 * T_ns))
            fprintf(stderr, "\n  iteration %d: exposed %.0f ns with overlap, %.0f without; T %.0f ns\n", i, on[i],
                    off[i], T_ns);
        CU_ASSERT(on[i] >= T_ns && on[i] <= 1.10 * T_ns);
        CU_ASSERT(off[i] >= 4 * T_ns && off[i] <= 1.10 * 4 * T_ns);
    }
}

/* The first number of the array key in a run's text. */
static double first_of(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    double v = -1;
    CU_ASSERT_PTR_NOT_NULL(p);
    if (p && sscanf(p + strlen(key), ": [%lf", &v) != 1)
        v = -1;
    return v;
}

/* A run of file's text (caller frees). */
static char *run_text(const char *file)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(file, NULL, NULL, 0, &scn, &r));
    test_run_checked(&r);
    char *text = test_run_text(&r);
    test_teardown(&scn, &r);
    return text;
}

/*
 * scenarios/ai/workload-pp2-gpipe.json: 2 stages of one rank, ga = 2 micro-batches of F = 200 us forward and B =
 * 200 us backward compute, X = 1 MB per transfer at 1024 / 1106 of 12.5 GB/s (one way: the link carries no ACKs
 * of the sender's own receipts meanwhile) = 86.4 us.  GPipe: the last stage ends its forward passes at (P - 1)(F +
 * X) + ga F and the first its backward ones ga B + (P - 1)(B + X) later: (ga + P - 1)(F + B) + 2 (P - 1) X =
 * 1372.8 us, and at most 1 % more (the links' latency).
 */
static void test_pipeline(void)
{
    char *text = run_text("scenarios/ai/workload-pp2-gpipe.json");
    double X = 1e6 / (12.5e3 * 1024 / 1106), bound = 3 * 400 + 2 * X, it = first_of(text, "\"iteration_ns\"") / 1e3;
    if (!(it >= bound && it <= 1.01 * bound))
        fprintf(stderr, "\n  iteration %.2f us, bound %.2f us\n", it, bound);
    CU_ASSERT(it >= bound && it <= 1.01 * bound);
    free(text);
}

/*
 * scenarios/ai/workload-ep2-moe.json: 4 ranks, expert groups {0, 1} and {2, 3} (Megatron's order: consecutive
 * data-parallel ranks), expert-data groups {0, 2} and {1, 3}.  Every flow of the run joins two ranks of one such
 * group, the all-to-all's (the first 8 of an iteration's 24) an expert group; the iteration takes 3 x 100 us of
 * compute, the all-to-all (each rank sends 0.5 MB and receives as much, at 1024 / 1192 of 12.5 GB/s: 46.6 us)
 * and the all-reduce over 2 (1 MB each way: 93.1 us), within 10 % more.
 */
static void test_expert(void)
{
    char *text = run_text("scenarios/ai/workload-ep2-moe.json");
    int flows = 0, a2a = 0, bad = 0;
    unsigned j, a, b;
    for (const char *p = strstr(text, "\ntrain."); p; p = strstr(p + 1, "\ntrain."))
        if (sscanf(p + 1, "train.%u,h%u,h%u,", &j, &a, &b) == 3) {
            bool ep = a / 2 == b / 2, dpep = a % 2 == b % 2 && a != b;
            flows++;
            a2a += j % 24 < 8 && ep;
            bad += j % 24 < 8 ? !ep : !dpep;
        }
    CU_ASSERT_EQUAL(flows, 48);
    CU_ASSERT_EQUAL(a2a, 16);
    CU_ASSERT_EQUAL(bad, 0);
    double ring = 12.5e3 * 1024 / 1192, bound = 300 + 0.5e6 / ring + 1e6 / ring;
    double it = first_of(text, "\"iteration_ns\"") / 1e3;
    if (!(it >= bound && it <= 1.10 * bound))
        fprintf(stderr, "\n  iteration %.2f us, bound %.2f us\n", it, bound);
    CU_ASSERT(it >= bound && it <= 1.10 * bound);
    free(text);
}

/* The same text twice, and on 2 threads. */
static void test_determinism(void)
{
    char *text = test_same_each_run(SCN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"iteration_ns\""));
    free(text);
    static const char *const more[] = {SCN_OVERLAP, "scenarios/ai/workload-pp2-gpipe.json",
                                       "scenarios/ai/workload-ep2-moe.json"};
    for (int i = 0; i < 3; i++) {
        text = test_same_each_run(more[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"iteration_ns\""));
        free(text);
    }
}

/* Malformed files exit 2 naming the file and line. */
static void test_malformed(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 1 all_gpus: 4\n1\n"
         "l0 -1 10 ALLREDUCE 100 10 NONE 0 10 ALLREDUCE\n",
         "build/test-wl/w.txt:3: expected \"name dependency"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 1 all_gpus: 4\n1\n"
         "l0 -1 10 ALLREDUCEALLTOALL_EP 100 10 NONE 0 10 ALLREDUCE 100 1\n",
         "build/test-wl/w.txt:3: expected NONE, ALLREDUCE"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 2 ga: 1 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected ga: 1 to 100000 and, with pp: above 1, pp_comm: bytes above 0, got ga: 1 "
         "and pp_comm: 0"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 vpp: 8 pp: 3 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected all_gpus: N, model_parallel_NPU_group: T and pp: P with T x P dividing N, "
         "got 4, 2 and 3"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 1 ep: 3 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected ep: E dividing the data-parallel size 4 (all_gpus / (T x P)), got 3"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 1 pp: 2 ga: 2 all_gpus: 4 pp_comm: 100\n3\n",
         "build/test-wl/w.txt:2: expected a number of layers that ga: 2 divides"},
        {"DATA\n1\n", "build/test-wl/w.txt:1: expected the policy"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8\n1\nl0 -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
         "build/test-wl/w.txt:1: expected all_gpus: 4"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n2\nl0 -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
         "build/test-wl/w.txt:4: expected 2 layer lines"},
        /* a product of two sizes that wrapped to 0 had divided by it; a size above an int had been cut to its low
         * bits (2^32 + 2 read as 2) */
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 65536 pp: 65536 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected all_gpus: N, model_parallel_NPU_group: T and pp: P with T x P dividing N, "
         "got 4, 65536 and 65536"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 4294967298 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected all_gpus:, model_parallel_NPU_group:, pp: and ep: of 1 to 1000000, got 4, "
         "4294967298, 1 and 1"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ga: 4294967297 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected ga: 1 to 100000 and, with pp: above 1, pp_comm: bytes above 0, got ga: "
         "4294967297 and pp_comm: 0"},
        /* ns to ps would wrap */
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n1\nl0 -1 9300000000000000 NONE 0 1 NONE 0 1 NONE 0 "
         "1\n", "build/test-wl/w.txt:3: expected compute times of at most 17592186044 ns (where rocesim's clock ends), "
         "got 9300000000000000"},
    };
    CU_ASSERT_EQUAL(system("mkdir -p build/test-wl"), 0);
    FILE *s = fopen("build/test-wl/s.json", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    fputs("{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"workload\", \"file\": "
          "\"w.txt\"}]}\n", s);
    fclose(s);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *w = fopen("build/test-wl/w.txt", "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        fputs(bad[i].text, w);
        fclose(w);
        char cmd[512], *out = NULL;
        snprintf(cmd, sizeof cmd, "%s run build/test-wl/s.json -q --no-plot -o build/test-wl/out 2>&1",
                 test_rocesim_bin());
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        if (!out || !strstr(out, bad[i].msg))
            fprintf(stderr, "\n  got: %s\n", out ? out : "(nothing)");
        CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, bad[i].msg) : NULL);
        free(out);
    }
}

/*
 * timeline.csv and timeline.png of scenarios/ai/workload-dp2-overlap.json: rank r's compute rows add up to the
 * compute of its 2 iterations (2 x 2400 us); it has 8 all-reduce rows (4 layers x 2 iterations), each at least
 * T = 93.1 us long and none starting before the weight-gradient compute of the first layer ends (1200 us); the
 * file is the same on 2 threads, and the plot is drawn.
 */
static void test_timeline(void)
{
    char cmd[512], *out = NULL, *text[2];
    for (int th = 0; th < 2; th++) {
        snprintf(cmd, sizeof cmd, "%s run %s -q -o build/test-wl/tl%d --threads %d 2>&1", test_rocesim_bin(),
                 SCN_OVERLAP, th, th + 1);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
        free(out);
        snprintf(cmd, sizeof cmd, "build/test-wl/tl%d/timeline.csv", th);
        text[th] = test_read_file(cmd, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text[th]);
    }
    CU_ASSERT_STRING_EQUAL(text[0], text[1]);
    double T = 1e6 / (12.5e3 * 1024 / 1192), comp[2] = {0, 0};
    int ar[2] = {0, 0}, bad = 0;
    CU_ASSERT_EQUAL(strncmp(text[0], "id,rank,activity,start_us,end_us\n", 33), 0);
    for (const char *p = strchr(text[0], '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        unsigned r;
        char act[32];
        double st, en;
        if (sscanf(p + 1, "train,%u,%31[^,],%lf,%lf", &r, act, &st, &en) != 4 || r > 1) {
            bad++;
            continue;
        }
        if (!strcmp(act, "compute"))
            comp[r] += en - st;
        else if (!strcmp(act, "all_reduce")) {
            ar[r]++;
            bad += en - st < T || st < 1200;
        } else
            bad++;
    }
    for (int r = 0; r < 2; r++) {
        CU_ASSERT_DOUBLE_EQUAL(comp[r], 4800, 1e-6);
        CU_ASSERT_EQUAL(ar[r], 8);
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(text[0]);
    free(text[1]);
    FILE *png = fopen("build/test-wl/tl0/plots/timeline.png", "rb");
    if (system("command -v gnuplot >/dev/null 2>&1") == 0)
        CU_ASSERT_PTR_NOT_NULL(png);
    if (png)
        fclose(png);
}

/* ---- Chakra execution traces, written here with the generated packers ---- */

enum { T_META = 1, T_COMP = 4, T_SEND, T_RECV, T_COLL };

struct tnode {
    uint64_t id;
    int type;
    uint64_t us;               /* a compute's duration */
    int64_t ctype, size;       /* a collective's comm_type, a communication's comm_size */
    int32_t peer, tag;
    int n_deps;
    uint64_t deps[3];
    const char *pg;            /* a collective's pg_name */
};

static void put_msg(FILE *f, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len + 1), v[10];
    protobuf_c_message_pack(m, buf);
    int k = 0;
    for (size_t l = len; k == 0 || l; l >>= 7)
        v[k++] = (uint8_t)((l & 0x7f) | (l >> 7 ? 0x80 : 0));
    fwrite(v, 1, (size_t)k, f);
    fwrite(buf, 1, len, f);
    free(buf);
}

/* A trace of k nodes at path: GlobalMetadata, then each node, length-delimited as Chakra writes them. */
static void write_trace(const char *path, const struct tnode *n, int k)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    g.version = "0.0.4";
    put_msg(f, &g.base);
    for (int i = 0; i < k; i++) {
        ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
        ChakraProtoMsg__AttributeProto a[5], *ap[5];
        int na = 0;
        m.id = n[i].id;
        m.type = (ChakraProtoMsg__NodeType)n[i].type;
        m.duration_micros = n[i].us;
        m.n_data_deps = (size_t)n[i].n_deps;
        m.data_deps = (uint64_t *)n[i].deps;
        if (n[i].type != T_COMP) {
            const char *names[4] = {"comm_type", "comm_size", n[i].type == T_SEND ? "comm_dst" : "comm_src",
                                    "comm_tag"};
            for (int j = n[i].type == T_COLL ? 0 : 1; j < (n[i].type == T_COLL ? 2 : 4); j++) {
                a[na] = (ChakraProtoMsg__AttributeProto)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
                a[na].name = (char *)names[j];
                if (j < 2)
                    a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL,
                    a[na].int64_val = j == 0 ? n[i].ctype : n[i].size;
                else
                    a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL,
                    a[na].int32_val = j == 2 ? n[i].peer : n[i].tag;
                ap[na] = &a[na];
                na++;
            }
        }
        if (n[i].pg) {
            a[na] = (ChakraProtoMsg__AttributeProto)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            a[na].name = "pg_name";
            a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
            a[na].string_val = (char *)n[i].pg;
            ap[na] = &a[na];
            na++;
        }
        m.n_attr = (size_t)na;
        m.attr = ap;
        put_msg(f, &m.base);
    }
    fclose(f);
}

#define CK_DIR "build/test-wl/ck"

/* A scenario of n ranks on one 100 Gbps switch running the traces CK_DIR/t.{rank}.et, with the entry's settings
 * extra (", \"iterations\": 2"). */
static void write_ck_scenario_of(int n, const char *extra)
{
    CU_ASSERT_EQUAL(system("mkdir -p " CK_DIR), 0);
    FILE *s = fopen(CK_DIR "/s.json", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    fprintf(s, "{\"seed\": 1, \"stop\": \"20ms\", \"topology\": {\"type\": \"star\", \"hosts\": %d, \"link\": "
            "{\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"workload\", \"id\": \"train\", "
            "\"format\": \"chakra\", \"file\": \"t.{rank}.et\"%s}]}\n", n, extra);
    fclose(s);
}

/* A scenario of 2 ranks on one 100 Gbps switch running the traces CK_DIR/t.{rank}.et. */
static void write_ck_scenario(void)
{
    write_ck_scenario_of(2, "");
}

/* Both ranks: A (100 us), then a 1 MB all-reduce and B (b us) side by side, then C (100 us) after both; with
 * send, rank 0 sends 1 MB to rank 1 after C, and rank 1 computes D (10 us) once it is in. */
static void write_ck_traces(uint64_t b, bool send)
{
    for (int r = 0; r < 2; r++) {
        struct tnode n[6] = {
            {.id = 1, .type = T_COMP, .us = 100},
            {.id = 2, .type = T_COLL, .ctype = 0, .size = 1000000, .n_deps = 1, .deps = {1}},
            {.id = 3, .type = T_COMP, .us = b, .n_deps = 1, .deps = {1}},
            {.id = 4, .type = T_COMP, .us = 100, .n_deps = 2, .deps = {2, 3}},
            {.id = 5, .type = r ? T_RECV : T_SEND, .size = 1000000, .peer = 1 - r, .tag = 7, .n_deps = 1,
             .deps = {4}},
            {.id = 6, .type = T_COMP, .us = 10, .n_deps = 1, .deps = {5}},
        };
        char path[64];
        snprintf(path, sizeof path, CK_DIR "/t.%d.et", r);
        write_trace(path, n, send ? 5 + r : 4);
    }
}

static double ck_iteration_us(void)
{
    char *text = run_text(CK_DIR "/s.json");
    double it = first_of(text, "\"iteration_ns\"") / 1e3;
    free(text);
    return it;
}

/*
 * Chakra traces on 2 ranks (write_ck_traces): the all-reduce of T = 1 MB at 1024 / 1192 of 12.5 GB/s = 93.1 us
 * (within 10 % more) runs beside B.  B = 150 us > T hides it: the iteration is the compute, 350 us (within 1 us
 * of latency); B = 20 us does not: 200 us + T.  A send of X = 1 MB one way (1024 / 1106 of 12.5 GB/s: 86.4 us,
 * within 5 % more) and 10 us of compute after it add X + 10 us.
 */
static void test_chakra(void)
{
    double T = 1e6 / (12.5e3 * 1024 / 1192), X = 1e6 / (12.5e3 * 1024 / 1106), it[3];
    write_ck_scenario();
    write_ck_traces(150, false);
    it[0] = ck_iteration_us();
    write_ck_traces(20, false);
    it[1] = ck_iteration_us();
    write_ck_traces(150, true);
    it[2] = ck_iteration_us();
    bool ok[3] = {it[0] >= 350 && it[0] <= 351, it[1] >= 200 + T && it[1] <= 200 + 1.10 * T,
                  it[2] >= 360 + X && it[2] <= 360 + 1.05 * X};
    for (int i = 0; i < 3; i++) {
        if (!ok[i])
            fprintf(stderr, "\n  case %d: iteration %.2f us (T %.1f, X %.1f)\n", i, it[i], T, X);
        CU_ASSERT(ok[i]);
    }
    char *text = test_same_each_run(CK_DIR "/s.json");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"iteration_ns\""));
    free(text);
}

/* Malformed traces exit 2 naming the file and the node (and its byte). */
static void test_chakra_malformed(void)
{
    static const struct {
        int n0, n1;              /* nodes of rank 0's and rank 1's traces from the table below */
        struct tnode a[3], b[3];
        const char *msg;
    } bad[] = {
        {2, 1, {{.id = 1, .type = T_COMP, .us = 1}, {.id = 2, .type = T_COMP, .n_deps = 1, .deps = {9}}},
         {{.id = 1, .type = T_COMP}}, "t.0.et: node 1: expected dependencies on nodes of the file, got id 9"},
        {2, 1, {{.id = 1, .type = T_COMP, .n_deps = 1, .deps = {2}}, {.id = 2, .type = T_COMP, .n_deps = 1,
                                                                       .deps = {1}}},
         {{.id = 1, .type = T_COMP}}, "t.0.et: node 0: expected dependencies without a cycle"},
        {1, 1, {{.id = 1, .type = T_COLL, .ctype = 0, .size = 100}}, {{.id = 1, .type = T_COLL, .ctype = 0,
                                                                        .size = 200}},
         "t.1.et: node 0: expected collective 0 to be rank 0's (all_reduce of 100 bytes), got another"},
        {1, 1, {{.id = 1, .type = T_COLL, .ctype = 9, .size = 100}}, {{.id = 1, .type = T_COMP}},
         "t.0.et: node 0 at byte 8: expected comm_type ALL_REDUCE (0)"},
        {1, 1, {{.id = 1, .type = T_SEND, .size = 100, .peer = 1, .tag = 3}}, {{.id = 1, .type = T_COMP}},
         "t.0.et: node 0: expected a COMM_RECV_NODE of comm_src 0 and comm_tag 3 on rank 1"},
        {1, 1, {{.id = 1, .type = T_COMP}}, {{.id = 1, .type = T_RECV, .size = 100, .peer = 0, .tag = 3}},
         "t.1.et: node 0: expected a COMM_SEND_NODE on rank 0 to meet this receive"},
    };
    write_ck_scenario();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0] + 2; i++) {
        const char *msg;
        if (i < sizeof bad / sizeof bad[0]) {
            write_trace(CK_DIR "/t.0.et", bad[i].a, bad[i].n0);
            write_trace(CK_DIR "/t.1.et", bad[i].b, bad[i].n1);
            msg = bad[i].msg;
        } else {
            /* the last node's length runs past the end; then bytes protobuf cannot decode */
            struct tnode one = {.id = 1, .type = T_COMP, .us = 5};
            write_trace(CK_DIR "/t.0.et", &one, 1);
            FILE *f = fopen(CK_DIR "/t.0.et", "ab");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            fputs(i == sizeof bad / sizeof bad[0] ? "\x20\x08" : "\x03\xff\xff\xff", f);
            fclose(f);
            msg = i == sizeof bad / sizeof bad[0] ? "t.0.et: node 1 at byte 15: expected a message length within the "
                                                     "file"
                                                   : "t.0.et: node 1 at byte 15: expected a Node message, got bytes "
                                                     "protobuf cannot decode";
        }
        char cmd[512], *out = NULL;
        snprintf(cmd, sizeof cmd, "%s run " CK_DIR "/s.json -q --no-plot -o " CK_DIR "/out 2>&1",
                 test_rocesim_bin());
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        if (!out || !strstr(out, msg))
            fprintf(stderr, "\n  case %zu got: %s\n", i, out ? out : "(nothing)");
        CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, msg) : NULL);
        free(out);
    }
}

/* The example traces and the trace reader's fuzz findings (tests/fuzz/regressions/chakra-*) replay clean through
 * its fuzzing harness: refused in one line naming the file, or read with every dependency a node of the trace (the
 * ASan build watches for what the finding was). */
static void test_chakra_regressions(void)
{
    CU_ASSERT(test_fuzz_replay("tests/data/chakra", "", ".et", fuzz_chakra_one) >= 4);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "chakra-", ".et", fuzz_chakra_one) >= 2);
}

/* The example workload files and the simai reader's fuzz findings (tests/fuzz/regressions/simai-*) replay clean
 * through its fuzzing harness: refused in one printable line naming the file and line, or read with ranks and
 * layers. */
static void test_simai_regressions(void)
{
    CU_ASSERT(test_fuzz_replay("scenarios/ai/workloads", "", ".txt", fuzz_simai_one) >= 4);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "simai-", ".txt", fuzz_simai_one) >= 2);
}


/* The numbers of the array key in a run's text into v (at most max); how many. */
static int nums_of(const char *text, const char *key, double *v, int max)
{
    const char *p = strstr(text, key);
    int n = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p = strchr(p, '[');
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    for (p++; n < max && *p && *p != ']'; n++) {
        char *end;
        v[n] = strtod(p, &end);
        if (end == p)
            break;
        p = end + strspn(end, ", \n");
    }
    return n;
}

/* A number of an object's key in a run's text ("\"all_reduce\""), the first after after. */
static double num_after(const char *text, const char *after, const char *key)
{
    const char *p = strstr(text, after);
    double v = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p = strstr(p, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    if (sscanf(p + strlen(key), ": %lf", &v) != 1)
        v = -1;
    return v;
}


/*
 * A workload's collective is NCCL's: one 64 MB all-reduce over 8 ranks of one 100 Gbps switch (a SimAI file of one
 * layer, 1 ns of compute) takes the time the nccl kind's ring takes with the same channels and chunk (2, 512 KiB:
 * 8 loops of the ring), within 1 us, as both post a connection's chunks to one queue pair with 8 in flight.  With
 * 2 chunks sent side by side (as workloads did before) it took 1.1 % longer.
 */
static void test_workload_is_nccl(void)
{
    CU_ASSERT_EQUAL(system("mkdir -p " CK_DIR), 0);
    test_write_text(CK_DIR "/ar8.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 1 "
                                  "ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0\n1\n"
                                  "layer0 -1 1 ALLREDUCE 64000000 1 NONE 0 1 NONE 0 1\n");
    const char *net = "{\"seed\": 1, \"stop\": \"50ms\", \"topology\": {\"type\": \"star\", \"hosts\": 8, "
                      "\"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [";
    char text[1024];
    snprintf(text, sizeof text, "%s{\"type\": \"workload\", \"id\": \"w\", \"format\": \"simai\", \"file\": "
             "\"ar8.txt\"}]}\n", net);
    test_write_text(CK_DIR "/w.json", text);
    snprintf(text, sizeof text, "%s{\"type\": \"nccl\", \"id\": \"a\", \"op\": \"all_reduce\", \"algorithm\": "
             "\"ring\", \"size\": \"64MB\"}]}\n", net);
    test_write_text(CK_DIR "/n.json", text);
    char *w = run_text(CK_DIR "/w.json"), *n = run_text(CK_DIR "/n.json");
    double wl = num_after(w, "\"collective_ns\"", "\"all_reduce\"") / 1e3;
    double nc = num_after(n, "\"collectives\"", "\"completion_ns\"") / 1e3;
    printf("\n    64 MB all-reduce over 8 ranks: workload %.2f us, nccl %.2f us ", wl, nc);
    CU_ASSERT(nc > 0 && fabs(wl - nc) <= 1.0);
    free(w);
    free(n);
}

/* Tensor-parallel pairs inside "servers" (groups 1: ranks 0-1, 2: ranks 2-3) and data-parallel pairs across
 * (3: 0 and 2, 4: 1 and 3), as ASTRA-sim's communicator groups file gives them. */
#define CK_GROUPS "{\"1\": [0, 1], \"2\": [2, 3], \"3\": [0, 2], \"4\": [1, 3]}\n"

/* Every rank: a 1 MB all-reduce over its tensor-parallel pair, then a 1 MB all-gather over its data-parallel
 * pair. */
static void write_group_traces(void)
{
    static const char *const tp[4] = {"1", "1", "2", "2"}, *const dp[4] = {"3", "4", "3", "4"};
    for (int r = 0; r < 4; r++) {
        struct tnode n[2] = {
            {.id = 1, .type = T_COLL, .ctype = 0, .size = 1000000, .pg = tp[r]},
            {.id = 2, .type = T_COLL, .ctype = 2, .size = 1000000, .n_deps = 1, .deps = {1}, .pg = dp[r]},
        };
        char path[64];
        snprintf(path, sizeof path, CK_DIR "/t.%d.et", r);
        write_trace(path, n, 2);
    }
}

/*
 * Process groups (pg_name and comm_groups) on 4 ranks of one 100 Gbps switch (write_group_traces): a ring over
 * k = 2 ranks moves 2(k - 1)/k x 1 MB = 1 MB per rank for the all-reduce and (k - 1)/k x 1 MB = 0.5 MB for the
 * all-gather, at 1024 / 1192 of 12.5 GB/s (the frames' payload, the ACKs of the reverse direction sharing the
 * link, as test_chakra): T_ar = 93.1 us, T_ag = 46.6 us; the two pairs of each kind run on disjoint links at
 * once.  Each instance takes its time within 10 % more (its 2(k - 1) or k - 1 steps' latency of a few us), the
 * iteration their sum within 10 %.  Over all 4 ranks (no groups) the same collectives would move 1.5 MB and
 * 0.75 MB: 209.6 us, outside the bound.
 */
static void test_chakra_groups(void)
{
    double rate = 12.5e3 * 1024 / 1192, Tar = 1e6 / rate, Tag = 0.5e6 / rate;
    write_ck_scenario_of(4, ", \"comm_groups\": \"g.json\"");
    test_write_text(CK_DIR "/g.json", CK_GROUPS);
    write_group_traces();
    char *text = run_text(CK_DIR "/s.json");
    double it = first_of(text, "\"iteration_ns\"") / 1e3;
    double ar = num_after(text, "\"collective_ns\"", "\"all_reduce\"") / 1e3 / 2;
    double ag = num_after(text, "\"collective_ns\"", "\"all_gather\"") / 1e3 / 2;
    /* busbw: bytes x nccl-tests' factor over 2 ranks (all_reduce 1, all_gather 1/2) over the time, so each kind's
     * bound is the link's rate of payload itself, 10.74 GB/s */
    double bar = num_after(text, "\"collective_busbw_GBps\"", "\"all_reduce\"");
    double bag = num_after(text, "\"collective_busbw_GBps\"", "\"all_gather\"");
    CU_ASSERT(bar <= rate / 1e3 && bar >= rate / 1e3 / 1.10);
    CU_ASSERT(bag <= rate / 1e3 && bag >= rate / 1e3 / 1.10);
    free(text);
    bool ok = ar >= Tar && ar <= 1.10 * Tar && ag >= Tag && ag <= 1.10 * Tag && it >= Tar + Tag &&
              it <= 1.10 * (Tar + Tag);
    if (!ok)
        fprintf(stderr, "\n  all-reduce %.2f us (%.1f), all-gather %.2f us (%.1f), iteration %.2f us\n", ar, Tar, ag,
                Tag, it);
    CU_ASSERT(ok);
    /* the same traces with the groups file left out: every collective over all 4 ranks, as before */
    write_ck_scenario_of(4, "");
    text = run_text(CK_DIR "/s.json");
    double all = first_of(text, "\"iteration_ns\"") / 1e3;
    free(text);
    CU_ASSERT(all >= 1.5 * (Tar + Tag));
    write_ck_scenario_of(4, ", \"comm_groups\": \"g.json\", \"iterations\": 2");
    free(test_same_each_run(CK_DIR "/s.json"));
}

/* One compute stream per rank: A (100 us) then B (50 us), C (30 us) beside them, a metadata node of no time
 * before A: 180 us an iteration, K iterations exactly K x 180 us. */
static void test_chakra_iterations_compute(void)
{
    for (int r = 0; r < 2; r++) {
        struct tnode n[4] = {
            {.id = 9, .type = T_META},
            {.id = 1, .type = T_COMP, .us = 100, .n_deps = 1, .deps = {9}},
            {.id = 2, .type = T_COMP, .us = 50, .n_deps = 1, .deps = {1}},
            {.id = 3, .type = T_COMP, .us = 30},
        };
        char path[64];
        snprintf(path, sizeof path, CK_DIR "/t.%d.et", r);
        write_trace(path, n, 4);
    }
    double one[2], k[8];
    write_ck_scenario_of(2, "");
    char *text = run_text(CK_DIR "/s.json");
    CU_ASSERT_EQUAL(nums_of(text, "\"iteration_ns\"", one, 2), 1);
    free(text);
    write_ck_scenario_of(2, ", \"iterations\": 4");
    text = run_text(CK_DIR "/s.json");
    CU_ASSERT_EQUAL(nums_of(text, "\"iteration_ns\"", k, 8), 4);
    CU_ASSERT_EQUAL(first_of(text, "\"exposed_comm_ns\""), 0);
    free(text);
    CU_ASSERT_EQUAL(one[0], 180e3);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(k[i], one[0]);
}

/*
 * K iterations with communication (write_ck_traces: an all-reduce hidden or not, a send and its receive): a rank
 * starts iteration i + 1 when its own iteration i ends, with no barrier across ranks (as a training loop's ranks
 * run).  Where the ranks end an iteration together (the collective's last receipt and ACK, within a link's
 * latency) every iteration takes the same time.  With the send, rank 1 ends 10 us (D) after rank 0's ACK, and
 * its D then overlaps rank 0's next iteration: the later iterations are shorter than the first by at most that
 * skew, 10 us plus the ACK's way back (2 us), and equal to each other within 0.1 %.
 */
static void test_chakra_iterations_comm(void)
{
    static const struct { uint64_t b; bool send; } cases[] = {{150, false}, {20, false}, {150, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        write_ck_traces(cases[c].b, cases[c].send);
        write_ck_scenario_of(2, ", \"iterations\": 3");
        char *text = run_text(CK_DIR "/s.json");
        double it[4];
        CU_ASSERT_EQUAL_FATAL(nums_of(text, "\"iteration_ns\"", it, 4), 3);
        free(text);
        double skew = cases[c].send ? 12e3 : 1e3;
        bool ok = it[1] <= it[0] + 1e3 && it[1] >= it[0] - skew && it[2] >= 0.999 * it[1] && it[2] <= 1.001 * it[1];
        if (!ok)
            fprintf(stderr, "\n  case %zu: iterations %.0f, %.0f, %.0f ns\n", c, it[0], it[1], it[2]);
        CU_ASSERT(ok);
    }
}

/* Runs rank 0's trace a (na nodes) and rank 1's b (nb) with the entry's settings extra: their iterations' times
 * (ns) into it, at most max; returns how many. */
static int two_ranks_iterations(const struct tnode *a, int na, const struct tnode *b, int nb, const char *extra,
                                double *it, int max)
{
    write_trace(CK_DIR "/t.0.et", a, na);
    write_trace(CK_DIR "/t.1.et", b, nb);
    write_ck_scenario_of(2, extra);
    char *text = run_text(CK_DIR "/s.json");
    int n = nums_of(text, "\"iteration_ns\"", it, max);
    free(text);
    return n;
}

/* A sender a whole iteration ahead: rank 0 only sends 1 MB to rank 1 (86 us), rank 1 computes 500 us before its
 * receive, so rank 0's second message is in before rank 1's first iteration ends: its second iteration does not
 * wait for it again, both take exactly 500 us. */
static void test_chakra_iterations_early(void)
{
    struct tnode s0 = {.id = 1, .type = T_SEND, .size = 1000000, .peer = 1, .tag = 4};
    struct tnode s1[2] = {{.id = 1, .type = T_COMP, .us = 500},
                          {.id = 2, .type = T_RECV, .size = 1000000, .peer = 0, .tag = 4, .n_deps = 1, .deps = {1}}};
    double it[4];
    CU_ASSERT_EQUAL_FATAL(two_ranks_iterations(&s0, 1, s1, 2, ", \"iterations\": 2", it, 4), 2);
    CU_ASSERT_EQUAL(it[0], 500e3);
    CU_ASSERT_EQUAL(it[1], 500e3);
}

/* Point-to-point messages of one pair and tag meet their receives in order, whatever the other tags between:
 * rank 0 sends 1 MB with tag 5, 10 KB with tag 3, 10 KB with tag 5, all at once; rank 1's first receive of tag 5
 * must be the 1 MB (in at about 86 us), so the 100 us of compute that waits for it ends after 186 us.  Matched
 * out of order (the second tag-5 send, in at about 1 us), the iteration would end near 101 us. */
static void test_chakra_p2p_order(void)
{
    struct tnode s0[3] = {{.id = 1, .type = T_SEND, .size = 1000000, .peer = 1, .tag = 5},
                          {.id = 2, .type = T_SEND, .size = 10000, .peer = 1, .tag = 3},
                          {.id = 3, .type = T_SEND, .size = 10000, .peer = 1, .tag = 5}};
    struct tnode s1[4] = {{.id = 1, .type = T_RECV, .size = 1000000, .peer = 0, .tag = 5},
                          {.id = 2, .type = T_RECV, .size = 10000, .peer = 0, .tag = 3},
                          {.id = 3, .type = T_RECV, .size = 10000, .peer = 0, .tag = 5},
                          {.id = 4, .type = T_COMP, .us = 100, .n_deps = 1, .deps = {1}}};
    double it[2];
    CU_ASSERT_EQUAL_FATAL(two_ranks_iterations(s0, 3, s1, 4, "", it, 2), 1);
    printf("\n    iteration %.1f us ", it[0] / 1e3);
    CU_ASSERT(it[0] > 186e3 && it[0] < 200e3);
}

/* Malformed communicator groups and group use: exit 2 naming the file and the JSON path or line, or the trace's
 * file and node. */
static void test_chakra_groups_malformed(void)
{
    static const struct {
        const char *groups;
        int bad_rank;           /* a rank whose trace names group "7" (-1: none), or uses group 2 it is not in */
        const char *msg;
    } bad[] = {
        {CK_GROUPS, 0, "t.0.et: node 0: expected pg_name a group of comm_groups g.json, got \"7\""},
        {"{\"1\": [0, 1], \"2\": [], \"3\": [0, 2], \"4\": [1, 3]}", -1,
         "g.json: 2: expected a list of at least one rank, got an empty one"},
        {"{\"1\": [0, 1], \"2\": [2, 4], \"3\": [0, 2], \"4\": [1, 3]}", -1,
         "g.json: 2.1: expected a rank of 0 to 3 (the entry's hosts), got 4"},
        {"{\"1\": [0, 1], \"2\": [2, 2], \"3\": [0, 2], \"4\": [1, 3]}", -1,
         "g.json: 2.1: expected each rank once in a group, got 2 again"},
        {"{\"1\": [0, 1],\n \"2\": [2, 3]\n \"3\": [0, 2]}", -1, "g.json:3:"},
        {"[[0, 1]]", -1, "g.json: expected an object from group ids to lists of ranks"},
        {"{\"1\": [0, 1], \"2\": [0, 1, 2, 3], \"3\": [0, 2], \"4\": [1, 3]}", -1,
         "t.1.et: node 0: expected 0 collective nodes of group 2 (rank 0's), got more"},
        {CK_GROUPS, 3, "t.3.et: node 0: expected a collective of a group that has rank 3, got group 3"},
    };
    write_ck_scenario_of(4, ", \"comm_groups\": \"g.json\"");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_write_text(CK_DIR "/g.json", bad[i].groups);
        write_group_traces();
        if (bad[i].bad_rank >= 0) {
            char path[64];
            struct tnode n = {.id = 1, .type = T_COLL, .ctype = 0, .size = 1000, .pg = i ? "3" : "7"};
            snprintf(path, sizeof path, CK_DIR "/t.%d.et", bad[i].bad_rank);
            write_trace(path, &n, 1);
        }
        if (strstr(bad[i].groups, "[0, 1, 2, 3]")) /* rank 0 names group 2, the others do not */
            for (int r = 0; r < 4; r++) {
                struct tnode n = {.id = 1, .type = T_COLL, .ctype = 0, .size = 1000, .pg = "2"};
                char path[64];
                snprintf(path, sizeof path, CK_DIR "/t.%d.et", r);
                write_trace(path, &n, r == 1);
            }
        char cmd[512], *out = NULL;
        snprintf(cmd, sizeof cmd, "%s run " CK_DIR "/s.json -q --no-plot -o " CK_DIR "/out 2>&1", test_rocesim_bin());
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        if (!out || !strstr(out, bad[i].msg))
            fprintf(stderr, "\n  case %zu got: %s\n", i, out ? out : "(nothing)");
        CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, bad[i].msg) : NULL);
        free(out);
    }
}

/* tests/data/chakra/tp2-dp2.json (its README): 170 us of compute and 5 MB per rank over pairs' rings at 1024 / 1192
 * of 12.5 GB/s, 635.6 us an iteration, within 5 % more (the steps' latency); its second iteration the same within
 * 0.1 % (the ranks end each iteration within a link's latency of each other). */
static void test_chakra_example(void)
{
    double bound = 170 + 5e6 / (12.5e3 * 1024 / 1192), it[4];
    char *text = run_text("tests/data/chakra/tp2-dp2.json");
    CU_ASSERT_EQUAL_FATAL(nums_of(text, "\"iteration_ns\"", it, 4), 2);
    free(text);
    bool ok = it[0] / 1e3 >= bound && it[0] / 1e3 <= 1.05 * bound && it[1] >= 0.999 * it[0] && it[1] <= 1.001 * it[0];
    if (!ok)
        fprintf(stderr, "\n  iterations %.2f and %.2f us, the bound %.1f us\n", it[0] / 1e3, it[1] / 1e3, bound);
    CU_ASSERT(ok);
}

void test_workload_register(void)
{
    CU_pSuite s = CU_add_suite("training workloads (traffic kind workload)", NULL, NULL);
    CU_add_test(s, "a SimAI file's iteration time: compute plus the ring's bytes at the link's bound, within 10 %",
                test_iteration_time);
    CU_add_test(s, "a workload's all-reduce takes the nccl kind's time (queue pairs, 8 chunks in flight)",
                test_workload_is_nccl);
    CU_add_test(s, "weight-gradient all-reduces overlapping the backward pass: only the last layer's is exposed",
                test_overlap);
    CU_add_test(s, "pipeline stages (GPipe): (ga + pp - 1) x (forward + backward) plus 2 (pp - 1) transfers",
                test_pipeline);
    CU_add_test(s, "expert groups: all-to-all within expert groups, gradients over expert-data groups, the time",
                test_expert);
    CU_add_test(s, "the same results twice and on 2 threads", test_determinism);
    CU_add_test(s, "timeline.csv: each rank's compute and collectives, the same on 2 threads; timeline.png drawn",
                test_timeline);
    CU_add_test(s, "Chakra traces: a collective beside compute hidden or not, a send and its receive", test_chakra);
    CU_add_test(s, "malformed Chakra traces exit 2 naming the file and node", test_chakra_malformed);
    CU_add_test(s, "the Chakra reader's fuzz findings", test_chakra_regressions);
    CU_add_test(s, "the simai reader's fuzz findings and the example files through its harness", test_simai_regressions);
    CU_add_test(s, "Chakra process groups: tensor- and data-parallel pairs, each ring over its k ranks at the bound",
                test_chakra_groups);
    CU_add_test(s, "Chakra iterations of compute only: exactly K x one", test_chakra_iterations_compute);
    CU_add_test(s, "Chakra iterations with communication: each within 2 % of the first",
                test_chakra_iterations_comm);
    CU_add_test(s, "Chakra iterations: a message a whole iteration early is not waited for again",
                test_chakra_iterations_early);
    CU_add_test(s, "Chakra point-to-point: one pair's messages of a tag meet their receives in order",
                test_chakra_p2p_order);
    CU_add_test(s, "the example traces of tests/data/chakra: an iteration at the pairs' rings' bound, twice",
                test_chakra_example);
    CU_add_test(s, "malformed communicator groups exit 2 naming the file and path or line",
                test_chakra_groups_malformed);
    CU_add_test(s, "malformed files exit 2 naming the file and line", test_malformed);
}
