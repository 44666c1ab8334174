/*
 * The traffic kind "nccl" (models/traffic_nccl.c) against the arithmetic it should follow: the ring's bus
 * bandwidth at the link's bound, the α-β latency of small all-reduces, the ring/tree crossover NCCL's model
 * predicts, each operation's bytes and busbw factor, determinism; and `rocesim nccl-tests`.
 */
#include "tests/tests.h"
#include "models/traffic.h"
#include "sim/scenario.h"
#include "tools/run/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A star or leaf-spine of 100 Gbps links, cc none, one nccl entry. */
static bool nccl_setup(const char *topo, const char *entry, struct scenario *scn, struct run *r)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"topology\": %s, \"host\": {\"cc\": \"none\"},"
             " \"traffic\": [{\"type\": \"nccl\", \"id\": \"c\", %s}]}", topo, entry);
    return test_setup(json, NULL, NULL, scn, r);
}

#define STAR(n) "{\"type\": \"star\", \"hosts\": " #n ", \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}"
#define LEAF_SPINE                                                                                                 \
    "{\"type\": \"leaf-spine\", \"leaves\": 4, \"spines\": 4, \"hosts_per_leaf\": 4,"                            \
    " \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}"

/* Runs one collective; its completion in us (-1: unfinished), busbw in GB/s, algorithm and bytes. */
struct got {
    double us, algbw, busbw;
    char algo[16];
    uint64_t bytes;
};

static struct got run_one(const char *topo, const char *entry)
{
    struct scenario scn;
    struct run r;
    struct got g = {-1, 0, 0, "", 0};
    CU_ASSERT_FATAL(nccl_setup(topo, entry, &scn, &r));
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish > c->start);
    double ns = (double)(c->finish - c->start) / 1000.0;
    g.us = ns / 1000;
    g.algbw = (double)c->size / ns;
    g.busbw = g.algbw * c->busbw_factor;
    snprintf(g.algo, sizeof g.algo, "%s", c->algorithm);
    g.bytes = c->bytes;
    test_teardown(&scn, &r);
    return g;
}

/*
 * The ring's bound: what a host link carries of payload.  Every frame of the ring's data on a link is 1024 B of
 * payload in a 1106 B frame on the wire (headers, preamble and gap), and the same link carries the ACK (86 B on
 * the wire, one per frame: host.ack_every 1) of the step its host receives: 1024 / 1192 of 12.5 GB/s.
 */
static const double ring_bound = 12.5 * 1024 / (1106 + 86);

static void test_ring_bound(void)
{
    struct got a = run_one(STAR(4), "\"op\": \"all_reduce\", \"algorithm\": \"ring\", \"size\": \"8MB\"");
    struct got b = run_one(LEAF_SPINE, "\"op\": \"all_reduce\", \"algorithm\": \"ring\", \"size\": \"16MB\"");
    printf("\n    ring all-reduce busbw: 4 ranks on a star %.3f GB/s, 16 on a leaf-spine %.3f GB/s; bound %.3f GB/s ",
           a.busbw, b.busbw, ring_bound);
    CU_ASSERT(a.busbw <= ring_bound && a.busbw > 0.95 * ring_bound);
    CU_ASSERT(b.busbw <= ring_bound && b.busbw > 0.95 * ring_bound);
    /* 2(N-1) steps of size/N from each of N ranks */
    CU_ASSERT_EQUAL(b.bytes, 2ULL * 15 * 16000000);
}

/*
 * α-β at small sizes: one frame per step, and each step starts when the step before it has arrived, so a ring
 * all-reduce takes 2(N-1) steps of α, one frame's time across the path (two links of a star: serialization and
 * delay each), as the model's latency term says, and then the last step's ACK back to its sender (a collective
 * is complete when every send is: NCCL's sender frees its buffer on the write's completion); the bandwidth term
 * is negligible.
 */
static void alpha_case(int n)
{
    char topo[256], entry[256];
    snprintf(topo, sizeof topo, "{\"type\": \"star\", \"hosts\": %d, \"link\": {\"rate\": \"100Gbps\", \"delay\": "
                                "\"1us\"}}", n);
    snprintf(entry, sizeof entry, "\"op\": \"all_reduce\", \"algorithm\": \"ring\", \"channels\": 1, \"size\": \"%dB\"",
             64 * n);
    struct got g = run_one(topo, entry);
    double frame = (64 + 62 + 20) * 8 / 100e9 * 1e6, alpha = 2 * (frame + 1.0); /* us */
    double ack = 2 * ((66 + 20) * 8 / 100e9 * 1e6 + 1.0);
    double model = 2.0 * (n - 1) * alpha + ack;
    printf("\n    N=%d: %dB all-reduce %.3f us; 2(N-1) alpha + the last ACK = %.3f us ", n, 64 * n, g.us, model);
    CU_ASSERT(g.us >= model && g.us < 1.03 * model);
}

static void test_alpha_beta(void)
{
    alpha_case(4);
    alpha_case(16);
}

/*
 * NCCL's model: the tree's latency grows with its depth (log N) and the ring's with N, so at small sizes on many
 * ranks the tree is faster; at large sizes the ring's bandwidth (2(N-1)/N S per rank against the trees' 2S) wins.
 * "auto" chooses as the model does.
 */
static void test_crossover(void)
{
    struct got rs = run_one(STAR(16), "\"algorithm\": \"ring\", \"size\": \"16KB\"");
    struct got ts = run_one(STAR(16), "\"algorithm\": \"tree\", \"size\": \"16KB\"");
    struct got rl = run_one(STAR(16), "\"algorithm\": \"ring\", \"size\": \"8MB\"");
    struct got tl = run_one(STAR(16), "\"algorithm\": \"tree\", \"size\": \"8MB\"");
    printf("\n    16 ranks: 16KB ring %.1f us, tree %.1f us; 8MB ring %.1f us, tree %.1f us ", rs.us, ts.us, rl.us,
           tl.us);
    CU_ASSERT(ts.us < 0.5 * rs.us);
    CU_ASSERT(rl.us < tl.us);
    CU_ASSERT_STRING_EQUAL(run_one(STAR(16), "\"size\": \"16KB\"").algo, "tree");
    CU_ASSERT_STRING_EQUAL(run_one(STAR(16), "\"size\": \"8MB\"").algo, "ring");
    /* the tree moves as many bytes as the ring: each rank sends S/2 up and down in two trees of half the data */
    CU_ASSERT_EQUAL(tl.bytes, 2ULL * 15 * 8000000);
}

/* Each operation's bytes on the network and its busbw factor (nccl-tests' doc/PERFORMANCE.md), on 8 ranks. */
static void test_ops(void)
{
    static const struct {
        const char *op;
        double factor;
        uint64_t bytes; /* of a 4MB size on 8 ranks */
    } ops[] = {
        {"all_reduce", 2.0 * 7 / 8, 2ULL * 7 * 4000000}, {"all_gather", 7.0 / 8, 7ULL * 4000000},
        {"reduce_scatter", 7.0 / 8, 7ULL * 4000000},     {"broadcast", 1, 7ULL * 4000000},
        {"all_to_all", 7.0 / 8, 7ULL * 4000000},          {"send_recv", 1, 8ULL * 4000000},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char entry[256];
        snprintf(entry, sizeof entry, "\"op\": \"%s\", \"size\": \"4MB\", \"root\": 3", ops[i].op);
        struct got g = run_one(STAR(8), entry);
        printf("\n    %-14s busbw %.3f GB/s, algbw %.3f GB/s ", ops[i].op, g.busbw, g.algbw);
        CU_ASSERT_DOUBLE_EQUAL(g.busbw / g.algbw, ops[i].factor, 1e-12);
        CU_ASSERT_EQUAL(g.bytes, ops[i].bytes);
        /* broadcast's chain fills its 7 hops with 4 chunks per channel: far from the bound at this size */
        CU_ASSERT(g.busbw <= ring_bound * 1.001 && g.busbw > (i == 3 ? 0.2 : 0.9) * ring_bound);
    }
}

/* The same text twice, and on 2 threads. */
static void test_determinism(void)
{
    char *text = test_same_each_run("scenarios/ai/nccl-allreduce-leafspine.json");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"busbw_GBps\""));
    free(text);
}

/*
 * monitor.step_flows false: the collective's answers are those of a run that keeps every step (its time, bytes
 * and the fabric's counts, the same to the bit, as a step's identity and hashes do not change), while the records
 * in use never exceed the steps a ring can have in flight (each rank's connection per channel, NCCL's 8 chunks
 * unacknowledged) and the schedule has many times more; and the files are the same on 2 threads, where records
 * are not reused.
 */
static void test_step_summary(void)
{
    const char *entry = "\"op\": \"all_reduce\", \"algorithm\": \"ring\", \"channels\": 2, \"chunk\": \"64KB\", \"size\": \"8MB\"";
    char *text[3];
    sim_time_t took[2];
    uint64_t bytes[2], sent[2], marked[2];
    for (int k = 0; k < 3; k++) {
        struct scenario scn;
        struct run r;
        run_set_threads(k == 2 ? 2 : 1);
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": %s, \"monitor\": {\"step_flows\": %s},"
                 " \"traffic\": [{\"type\": \"nccl\", \"id\": \"c\", %s}]}", LEAF_SPINE, k ? "false" : "true", entry);
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        const struct coll *c = &r.traffic.colls[0];
        CU_ASSERT_FATAL(c->finish > c->start);
        if (k < 2) {
            took[k] = c->finish - c->start;
            bytes[k] = c->bytes;
            sent[k] = r.net.c.data_sent;
            marked[k] = r.net.c.ecn_marked;
        }
        if (k == 1) {
            uint32_t bound = 16 * 2 * 8;
            printf("\n    %u steps, at most %u records in use (bound %u), %u places ", c->n_flows,
                   r.net.steps_live_peak, bound, r.net.n_flows);
            CU_ASSERT(r.net.recycle);
            CU_ASSERT(r.net.steps_live_peak > 0 && r.net.steps_live_peak <= bound);
            CU_ASSERT_EQUAL(r.net.n_flows, r.net.steps_live_peak);
            CU_ASSERT(c->n_flows >= 10 * bound);
            CU_ASSERT_EQUAL(r.net.steps_live, 0);
            CU_ASSERT_EQUAL(r.net.steps_made, c->n_flows);
            CU_ASSERT_EQUAL(r.net.step_places, r.net.n_flows);
        }
        if (k == 2)
            CU_ASSERT(!r.net.recycle);
        text[k] = test_run_text(&r);
        if (k)
            CU_ASSERT_PTR_NULL(strstr(text[k], "\nc")); /* no step in flows.csv */
        test_teardown(&scn, &r);
    }
    run_set_threads(1);
    CU_ASSERT_EQUAL(took[0], took[1]);
    CU_ASSERT_EQUAL(bytes[0], bytes[1]);
    CU_ASSERT_EQUAL(sent[0], sent[1]);
    CU_ASSERT_EQUAL(marked[0], marked[1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(text[0], "\nc.0,"));
    CU_ASSERT_STRING_EQUAL(text[1], text[2]);
    for (int k = 0; k < 3; k++)
        free(text[k]);
}

/* What the loader refuses, in its words. */
static void test_refused(void)
{
    static const struct {
        const char *entry, *msg;
    } bad[] = {
        {"\"op\": \"broadcast\", \"algorithm\": \"tree\", \"size\": \"1MB\"",
         "test.json: traffic.0.algorithm: expected \"ring\" or \"auto\" for broadcast (NCCL's trees run all_reduce "
         "only), got \"tree\""},
        {"\"op\": \"broadcast\", \"root\": 4, \"size\": \"1MB\"",
         "test.json: traffic.0.root: expected a rank below 4 (the number of hosts), got 4"},
        {"\"op\": \"all_reduce\", \"chunk\": \"1B\", \"size\": \"1GB\"",
         "test.json: traffic.0.chunk: expected a chunk that leaves at most 16777216 flows"},
        {"\"op\": \"reduce\", \"size\": \"1MB\"", "test.json: traffic.0.op: expected one of \"all_reduce\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024], err[SCN_ERR_MAX];
        struct scenario scn;
        snprintf(json, sizeof json, "{\"topology\": " STAR(4) ", \"traffic\": [{\"type\": \"nccl\", %s}]}",
                 bad[i].entry);
        CU_ASSERT_EQUAL(scn_load_text("test.json", json, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
        if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
            fprintf(stderr, "\n  got: %s\n", err);
        CU_ASSERT_EQUAL(strncmp(err, bad[i].msg, strlen(bad[i].msg)), 0);
    }
}

/* The command: its table and CSV, the same twice; bad arguments exit 2. */
static void test_command(void)
{
    char cmd[1024], *out = NULL;
    const char *args = "nccl-tests scenarios/ai/nccl-allreduce-leafspine.json --op all_reduce --sizes 1KB:1MB "
                       "--step x32 --algorithm ring";
    snprintf(cmd, sizeof cmd, "%s %s -o build/test-nccl-a 2>&1", test_rocesim_bin(), args);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &out), 0);
    /* 1KB x 32^2 is past 1MB: the series' end is said, not silently short */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "note: the sizes end at 32KB, the last of the series below 1MB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "#       size         count      type   redop    root     time   algbw   busbw"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "        1000           250     float     sum      -1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "       32000          8000     float     sum      -1"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s %s -q -o build/test-nccl-b", test_rocesim_bin(), args);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    char *a = test_read_file("build/test-nccl-a/nccl-tests.csv", NULL), *b =
        test_read_file("build/test-nccl-b/nccl-tests.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(strncmp(a, "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,wrong,algorithm\n1000,250,",
                            80), 0);
    free(a);
    free(b);
    static const char *const bad[] = {
        "--op all_reduce", "--op all_reduce --sizes 1KB", "--op all_reduce --sizes 1KB:1MB --step x1",
        "--op all_reduce --sizes 1B:1GB --step +1B", "--op nope --sizes 1KB:1MB", "--sizes 1KB:1MB",
        "--op all_reduce --sizes 1KB:1MB --channels two",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s nccl-tests scenarios/ai/nccl-allreduce-leafspine.json %s -q -o build/test-nccl-c "
                                  "2>/dev/null", test_rocesim_bin(), bad[i]);
        CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    }
}

void test_nccl_register(void)
{
    CU_pSuite s = CU_add_suite("nccl collectives and nccl-tests", NULL, NULL);
    CU_add_test(s, "ring all-reduce busbw within 5 % of the host link's bound (star, leaf-spine)", test_ring_bound);
    CU_add_test(s, "small all-reduces follow the alpha-beta model's latency term", test_alpha_beta);
    CU_add_test(s, "tree faster at small sizes, ring at large, auto as the model chooses", test_crossover);
    CU_add_test(s, "every operation's bytes and nccl-tests' busbw factor", test_ops);
    CU_add_test(s, "the same results twice and on 2 threads", test_determinism);
    CU_add_test(s, "steps summarized: the same answers in records bounded by steps in flight", test_step_summary);
    CU_add_test(s, "bad entries refused with the path", test_refused);
    CU_add_test(s, "rocesim nccl-tests: table, CSV, same twice, bad arguments", test_command);
}
