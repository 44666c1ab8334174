/*
 * Workloads, collectives and traffic classes: Poisson load and CDF sampling,
 * ring all-reduce completion time, DWRR shares, strict priority, lossy and
 * lossless classes on one port.
 */
#include "tests/tests.h"
#include "models/traffic.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_mean(const char *name, double expect_mean)
{
    struct cdf c;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(cdf_load(&c, name, "scenarios/x.json", "traffic.0.size_cdf", err, sizeof err), 0);
    /* the mean of the piecewise-linear CDF, computed by hand from the data file */
    CU_ASSERT_DOUBLE_EQUAL(c.mean, expect_mean, 0.5);
    struct rng r;
    rng_init(&r, 1, rng_stream_id(RNG_KIND_TEST, 5));
    double sum = 0;
    const int n = 2000000;
    int64_t mx = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = cdf_sample(&c, rng_uniform(&r));
        sum += (double)s;
        if (s > mx)
            mx = s;
    }
    printf("\n    %s: sampled mean %.0f B, CDF mean %.0f B ", name, sum / n, c.mean);
    CU_ASSERT(fabs(sum / n - c.mean) < 0.05 * c.mean);
    CU_ASSERT(mx <= (int64_t)c.size[c.n - 1]);
    cdf_free(&c);
}

static void test_cdf_means(void)
{
    check_mean("websearch", 1711250.0);
    check_mean("hadoop", 120420.75);
}

static void test_cdf_errors(void)
{
    struct cdf c;
    char err[512], bad[64], want[128];
    snprintf(bad, sizeof bad, "/tmp/rocesim-bad-%d.cdf", (int)getpid()); /* concurrent runs of the suite */
    FILE *f = fopen(bad, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("# comment\n100 0.5\n50 0.7\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(cdf_load(&c, bad, "s.json", "traffic.2.size_cdf", err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "traffic.2.size_cdf"));
    snprintf(want, sizeof want, "%s:3", bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    f = fopen(bad, "w");
    fputs("100 0.5\n200 0.9\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(cdf_load(&c, bad, "s.json", "traffic.0.size_cdf", err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "last probability is 1"));
    CU_ASSERT_EQUAL(cdf_load(&c, "/nonexistent.cdf", "s.json", "traffic.0.size_cdf", err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent.cdf"));
    /* A name that is neither built in nor a file: the built-in names (every shipped CDF) and the paths tried. */
    CU_ASSERT_EQUAL(cdf_load(&c, "web-search", "scenarios/x.json", "traffic.1.size_cdf", err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "scenarios/x.json: traffic.1.size_cdf: expected a built-in CDF name (websearch, "
                                "hadoop) or the path of a CDF file, got \"web-search\" (no such file: tried "
                                "scenarios/web-search, web-search)");
    /* The list names every shipped CDF, and each of them loads by that name. */
    char listed[512];
    const char *from = strstr(err, "built-in CDF name (");
    CU_ASSERT_PTR_NOT_NULL_FATAL(from);
    snprintf(listed, sizeof listed, ", %s", from + strlen("built-in CDF name ("));
    char *close = strchr(listed, ')');
    CU_ASSERT_PTR_NOT_NULL_FATAL(close);
    strcpy(close, ","); /* ", websearch, hadoop," */
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/workloads/*.cdf", 0, NULL, &g), 0);
    int n_listed = 0;
    for (const char *q = listed; (q = strchr(q, ',')); q++)
        n_listed++;
    CU_ASSERT_EQUAL(n_listed - 1, (int)g.gl_pathc);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char name[256], item[264];
        snprintf(name, sizeof name, "%s", g.gl_pathv[i] + strlen("scenarios/workloads/"));
        name[strlen(name) - 4] = '\0';
        snprintf(item, sizeof item, ", %s,", name);
        CU_ASSERT_PTR_NOT_NULL(strstr(listed, item));
        CU_ASSERT_EQUAL(cdf_load(&c, name, "scenarios/x.json", "traffic.0.size_cdf", err, sizeof err), 0);
        cdf_free(&c);
    }
    globfree(&g);
    /* A comment longer than any line buffer is one line: the error after it names line 3. */
    f = fopen(bad, "w");
    fputs("# ", f);
    for (int i = 0; i < 2000; i++)
        fputc('x', f);
    fputs("\n100 0.5\n50 0.7\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(cdf_load(&c, bad, "s.json", "traffic.2.size_cdf", err, sizeof err), SCN_EUSAGE);
    snprintf(want, sizeof want, "%s:3: expected sizes and probabilities that never decrease", bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    remove(bad);
}

static void test_poisson_load(void)
{
    /* Sizes uniform in 10-100 KB (mean 55 KB): 16 hosts at 50% of 100 Gbps for 10 ms. */
    FILE *f = fopen("/tmp/rocesim-uniform.cdf", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("10000 0\n100000 1\n", f);
    fclose(f);
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 16, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"stop\": \"50ms\","
        " \"traffic\": [{\"type\": \"poisson\", \"load\": 0.5, \"size_cdf\": \"/tmp/rocesim-uniform.cdf\", \"end\": \"10ms\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    double bytes = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        bytes += (double)net_flow(&r.net, i)->size;
    double offered = bytes * 8 / (0.010 * 16 * 100e9);
    printf("\n    offered load %.4f (%u flows, all finished: %s) ", offered, r.net.n_flows, r.finished ? "yes" : "no");
    CU_ASSERT(fabs(offered - 0.5) < 0.05 * 0.5);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, r.net.n_flows);
    /* destinations are never the source */
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        CU_ASSERT_NOT_EQUAL_FATAL(net_flow(&r.net, i)->src, net_flow(&r.net, i)->dst);
    test_teardown(&scn, &r);
    remove("/tmp/rocesim-uniform.cdf");
}

/* A Poisson load so small that its gaps lie past the engine's clock (even infinite): no arrival, no flow. */
static void tiny_loads(void)
{
    static const char *const loads[] = {"1e-9", "1e-300", "1e-320"};
    for (size_t i = 0; i < sizeof loads / sizeof *loads; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": "
                 "\"1Gbps\"}}, \"stop\": \"1ms\", \"traffic\": [{\"type\": \"poisson\", \"load\": %s, "
                 "\"size_cdf\": \"websearch\"}]}", loads[i]);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.n_flows, 0);
        test_teardown(&scn, &r);
    }
}

/* Its first gap was converted from a double too large for int64: an event "in the past" and an abort. */
static void test_poisson_gap_past_the_clock(void)
{
    CU_ASSERT_FALSE_FATAL(test_child_aborts(tiny_loads));
    tiny_loads();
}

static void test_permutation(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 8, \"link\": {\"rate\": \"100Gbps\"}}, \"stop\": \"2ms\","
        " \"traffic\": [{\"type\": \"poisson\", \"load\": 0.3, \"size_cdf\": \"hadoop\", \"pattern\": \"permutation\","
        " \"end\": \"1ms\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    int dst_of[8];
    for (int i = 0; i < 8; i++)
        dst_of[i] = -1;
    int used = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        const struct flow *fl = net_flow(&r.net, i);
        CU_ASSERT_NOT_EQUAL(fl->src, fl->dst);
        if (dst_of[fl->src] < 0) {
            dst_of[fl->src] = (int)fl->dst;
            used |= 1 << fl->dst;
        }
        CU_ASSERT_EQUAL(dst_of[fl->src], (int)fl->dst); /* a fixed partner per source */
    }
    CU_ASSERT_EQUAL(used, 0xff); /* a permutation: every host is some source's partner */
    test_teardown(&scn, &r);
}

/*
 * One step of a ring on a star: chunk bytes over 2 hops, then the ACK back,
 * before the next step may start (its send must be acknowledged).  Every host
 * link carries, in each direction, one rank's data and the ACKs (86 B on the
 * wire, one per data frame) for the data its neighbour sends the other way,
 * so a data frame effectively costs 1106 + 86 bytes of link time.
 */
static double ring_expect_ns(int N, int64_t S, double rate, double delay_ns)
{
    int64_t chunk = S / N;
    int64_t frames = (chunk + 1023) / 1024;
    double wire = (double)chunk + frames * (82.0 + 86.0);
    double first = 2 * (1106 * 8 / rate * 1e9 + delay_ns); /* first frame across both links */
    double rest = (wire - 1106) * 8 / rate * 1e9;
    double ack = 2 * (86 * 8 / rate * 1e9 + delay_ns);
    return 2.0 * (N - 1) * (first + rest + ack);
}

static void ring_case(int N)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"star\", \"hosts\": %d, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
             " \"traffic\": [{\"type\": \"allreduce\", \"id\": \"ar\", \"hosts\": \"all\", \"size\": \"16MB\"}]}", N);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_EQUAL_FATAL(r.traffic.n_colls, 1);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_FATAL(c->finish >= 0);
    double got = (double)(c->finish - c->start) / 1000.0;
    double bound = 2.0 * (N - 1) / N * 16e6 * 8 / 100e9 * 1e9; /* the bandwidth term alone */
    double expect = ring_expect_ns(N, 16000000, 100e9, 1000);
    printf("\n    N=%d: all-reduce %.1f us; 2(N-1)/N S/rate = %.1f us; with headers and step latencies %.1f us ",
           N, got / 1000, bound / 1000, expect / 1000);
    CU_ASSERT(got >= bound);
    CU_ASSERT(fabs(got - expect) < 0.10 * expect);
    CU_ASSERT_EQUAL(r.net.n_flows, (uint32_t)(2 * (N - 1) * N));
    CU_ASSERT_EQUAL(c->bytes, (uint64_t)(2 * (N - 1) * N) * (16000000 / N));
    test_teardown(&scn, &r);
}

static void test_ring_allreduce(void)
{
    ring_case(2);
    ring_case(8);
}

static void test_rails(void)
{
    /* 4 servers x 4 NICs: 4 rings of 4 ranks, each reducing a quarter of the data. */
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 16, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"traffic\": [{\"type\": \"allreduce\", \"hosts\": \"all\", \"size\": \"16MB\", \"nics_per_server\": 4},"
        "              {\"type\": \"alltoall\", \"hosts\": \"h0-h3\", \"size\": \"4MB\", \"start\": \"10ms\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    const struct coll *c = &r.traffic.colls[0];
    CU_ASSERT_EQUAL(c->rings, 4);
    CU_ASSERT_EQUAL(c->n_ranks, 4);
    CU_ASSERT(c->finish >= 0);
    /* ring 1 is the second NIC of every server: h1, h5, h9, h13 */
    CU_ASSERT_EQUAL(c->host[1 * 4 + 0], 1);
    CU_ASSERT_EQUAL(c->host[1 * 4 + 3], 13);
    /* 4 rings x 4 ranks x 6 steps flows of 1 MB */
    CU_ASSERT_EQUAL(c->bytes, 4ULL * 4 * 6 * 1000000);
    const struct coll *a = &r.traffic.colls[1];
    CU_ASSERT(a->finish >= 0);
    CU_ASSERT_EQUAL(a->bytes, 12ULL * 1000000);
    /* alltoall: 3 flows of 1 MB leave each host at once: each host link is the bottleneck */
    double t = (double)(a->finish - a->start) / 1e6;
    CU_ASSERT(t > 3e6 * 8 / 100e9 * 1e6 && t < 1.2 * 3e6 * 1106 / 1024 * 8 / 100e9 * 1e6);
    char *js = run_summary_json(&r, false);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"type\":\t\"allreduce\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"rings\":\t4"));
    free(js);
    test_teardown(&scn, &r);
}

/* Four hosts send one long flow each, of priority 0..3, into h4. */
#define CLASSES(sched, extra)                                                                                   \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 5, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"   \
    " \"host\": {\"cc\": \"none\"}, \"stop\": \"4ms\", " extra                                                   \
    " \"switch\": {\"pfc\": {\"priorities\": [0, 1, 2, 3]}, \"scheduler\": " sched "},"                          \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"100MB\", \"priority\": 0},"  \
    "  {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h4\", \"size\": \"100MB\", \"priority\": 1},"               \
    "  {\"type\": \"flow\", \"src\": \"h2\", \"dst\": \"h4\", \"size\": \"100MB\", \"priority\": 2},"               \
    "  {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h4\", \"size\": \"100MB\", \"priority\": 3}]}"

static void test_dwrr_shares(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(CLASSES("{\"type\": \"dwrr\", \"weights\": {\"0\": 10, \"1\": 40, \"2\": 10, \"3\": 40}}", ""),
                          NULL, NULL, &scn, &r));
    sim_run(&r.sim, PS_PER_MS);
    uint64_t before[4];
    for (int p = 0; p < 4; p++)
        before[p] = r.net.c.prio[p].bytes_delivered;
    test_run_checked(&r);
    double total = 0, got[4];
    for (int p = 0; p < 4; p++) {
        got[p] = (double)(r.net.c.prio[p].bytes_delivered - before[p]);
        total += got[p];
    }
    const double w[4] = {0.1, 0.4, 0.1, 0.4};
    printf("\n    DWRR shares:");
    for (int p = 0; p < 4; p++) {
        printf(" %.4f", got[p] / total);
        CU_ASSERT(fabs(got[p] / total - w[p]) < 0.05 * w[p]);
    }
    /* the port stayed busy: 3 ms at 100 Gbps less the preamble/IFG share */
    CU_ASSERT(total > 0.95 * 3e-3 * 100e9 / 8 * 1086 / 1106);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    test_teardown(&scn, &r);
}

static void test_strict_priority(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(CLASSES("{\"type\": \"strict\"}", ""), NULL, NULL, &scn, &r));
    r.net.c.prio[0].bytes_delivered = 0;
    sim_run(&r.sim, 2 * PS_PER_MS);
    /* 2 ms: the highest class has the port; the lowest has sent nothing past its first frames */
    uint64_t hi = r.net.c.prio[3].bytes_delivered, lo = r.net.c.prio[0].bytes_delivered;
    printf("\n    strict: prio 3 %llu B, prio 0 %llu B after 2 ms ", (unsigned long long)hi, (unsigned long long)lo);
    CU_ASSERT(hi > 0.95 * 2e-3 * 100e9 / 8 * 1086 / 1106 - 200000);
    CU_ASSERT(lo < 100000);
    test_run_checked(&r);
    test_teardown(&scn, &r);
}

static void test_lossy_and_lossless(void)
{
    /* Two senders into one port shared half and half by DWRR: priority 3 is lossless, priority 1 lossy. */
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"host\": {\"cc\": \"none\"}, \"stop\": \"50ms\","
        " \"switch\": {\"buffer\": \"4MB\", \"lossy_queue_limit\": \"200KB\", \"pfc\": {\"priorities\": [3]},"
        "             \"scheduler\": {\"type\": \"dwrr\", \"weights\": {\"1\": 1, \"3\": 1}}},"
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h2\", \"size\": \"20MB\", \"priority\": 3},"
        "  {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"20MB\", \"priority\": 1}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    printf("\n    lossless: %llu dropped, %llu PAUSE; lossy: %llu dropped ",
           (unsigned long long)r.net.c.prio[3].dropped, (unsigned long long)r.net.c.prio[3].pause_frames,
           (unsigned long long)r.net.c.prio[1].dropped);
    CU_ASSERT_EQUAL(r.net.c.prio[3].dropped, 0);
    CU_ASSERT(r.net.c.prio[3].pause_frames > 0);
    CU_ASSERT(r.net.c.prio[1].dropped > 0);
    CU_ASSERT_EQUAL(r.net.c.prio[1].pause_frames, 0);
    CU_ASSERT_EQUAL(r.net.flows_completed, 2);
    test_teardown(&scn, &r);
}

void test_traffic_register(void)
{
    CU_pSuite s = CU_add_suite("workloads, collectives, classes", NULL, NULL);
    CU_add_test(s, "websearch and hadoop CDFs: sampled mean within 5%", test_cdf_means);
    CU_add_test(s, "malformed CDF files are refused with file and line", test_cdf_errors);
    CU_add_test(s, "Poisson offered load within 5% of the requested load", test_poisson_load);
    CU_add_test(s, "permutation pattern: one fixed partner per host", test_permutation);
    CU_add_test(s, "a Poisson gap past the engine's clock never comes (no overflow, no abort)",
                test_poisson_gap_past_the_clock);
    CU_add_test(s, "ring all-reduce time for N=2 and N=8", test_ring_allreduce);
    CU_add_test(s, "rings per NIC rank; alltoall", test_rails);
    CU_add_test(s, "DWRR byte shares match the weights", test_dwrr_shares);
    CU_add_test(s, "strict priority serves the high class first", test_strict_priority);
    CU_add_test(s, "a lossy class drops while a lossless one pauses", test_lossy_and_lossless);
}
