/*
 * The traffic kind "workload" (models/traffic_workload.c): a SimAI workload file's iteration time against the
 * compute it names plus the ring's bytes at the link's bound, malformed files refused with file and line, and the
 * same results twice and on 2 threads.
 */
#include "tests/tests.h"
#include "models/traffic.h"
#include "sim/scenario.h"
#include "tools/run/run.h"

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

/* The same text twice, and on 2 threads. */
static void test_determinism(void)
{
    char *text = test_same_each_run(SCN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"iteration_ns\""));
    free(text);
    text = test_same_each_run(SCN_OVERLAP);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"iteration_ns\""));
    free(text);
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
         "l0 -1 10 ALLREDUCE_EP 100 10 NONE 0 10 ALLREDUCE 100 1\n",
         "build/test-wl/w.txt:3: expected NONE, ALLREDUCE"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 2 ga: 1 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected pp: 1"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 vpp: 8 pp: 3 all_gpus: 4\n1\n",
         "build/test-wl/w.txt:1: expected pp: 1 (expert and pipeline parallelism and gradient accumulation are not "
         "supported), got 3"},
        {"DATA\n1\n", "build/test-wl/w.txt:1: expected the policy"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8\n1\nl0 -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
         "build/test-wl/w.txt:1: expected all_gpus: 4"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n2\nl0 -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
         "build/test-wl/w.txt:4: expected 2 layer lines"},
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

void test_workload_register(void)
{
    CU_pSuite s = CU_add_suite("training workloads (traffic kind workload)", NULL, NULL);
    CU_add_test(s, "a SimAI file's iteration time: compute plus the ring's bytes at the link's bound, within 10 %",
                test_iteration_time);
    CU_add_test(s, "weight-gradient all-reduces overlapping the backward pass: only the last layer's is exposed",
                test_overlap);
    CU_add_test(s, "the same results twice and on 2 threads", test_determinism);
    CU_add_test(s, "malformed files exit 2 naming the file and line", test_malformed);
}
