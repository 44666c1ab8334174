/*
 * Flow subsets (tools/report/flowset.h) against one run of scenarios/sweeps/incast-mix.json: with every flow its
 * summary.json exactly, the query flows as computed here from their rows, inclusive size ranges; and bad
 * subsets and texts that are not a flows.csv.
 */
#include "tests/tests.h"
#include "tools/report/flowset.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run, shared by the suite. */
static char froot[64];
static char *csv_text;
static cJSON *summary;

static int flowset_init(void)
{
    snprintf(froot, sizeof froot, "/tmp/rocesim-flowset-XXXXXX");
    if (!mkdtemp(froot))
        return -1;
    char cmd[256], path[128];
    snprintf(cmd, sizeof cmd, "%s run scenarios/sweeps/incast-mix.json -o %s/run -q --no-plot", test_rocesim_bin(),
             froot);
    if (test_run(cmd, NULL) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/run/flows.csv", froot);
    csv_text = test_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/run/summary.json", froot);
    char *s = test_read_file(path, NULL);
    summary = s ? cJSON_Parse(s) : NULL;
    free(s);
    return csv_text && summary ? 0 : -1;
}

static int flowset_clean(void)
{
    free(csv_text);
    cJSON_Delete(summary);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", froot);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

static double summary_num(const char *a, const char *b, const char *c)
{
    const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(summary, a), b);
    if (c)
        x = cJSON_GetObjectItem(x, c);
    CU_ASSERT_FATAL(cJSON_IsNumber(x));
    return x->valuedouble;
}

/* Parses a flowset from JSON text (file "t.json", path "objective.flows"); returns the status, message in err. */
static int parse(const char *json, struct flowset *f, char *err, size_t errlen)
{
    cJSON *o = cJSON_Parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    int rc = flowset_parse(o, "t.json", "objective.flows", f, err, errlen);
    cJSON_Delete(o);
    return rc;
}

static void compute(const char *json, struct flowset_result *r)
{
    struct flowset f;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(parse(json, &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(flowset_compute(&f, csv_text, r, err, sizeof err), 0);
    flowset_free(&f);
}

static void test_flowset_all(void)
{
    struct flowset_result r;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(flowset_compute(NULL, csv_text, &r, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r.total, summary_num("flows", "total", NULL));
    CU_ASSERT_EQUAL(r.completed, summary_num("flows", "completed", NULL));
    CU_ASSERT_EQUAL(r.total, 21);
    static const char *const st[] = {"mean", "p50", "p95", "p99", "max"};
    for (int i = 0; i < 5; i++) {
        char m[64];
        double v;
        snprintf(m, sizeof m, "flows.fct_ns.%s", st[i]);
        CU_ASSERT(flowset_value(&r, m, &v) && v == summary_num("flows", "fct_ns", st[i]));
        /* Exactly, not within a tolerance: the slowdown is a ratio of the same integer picoseconds. */
        snprintf(m, sizeof m, "flows.slowdown.%s", st[i]);
        CU_ASSERT(flowset_value(&r, m, &v) && v == summary_num("flows", "slowdown", st[i]));
        /* and by the sender's completion */
        snprintf(m, sizeof m, "flows.fct_ack_ns.%s", st[i]);
        CU_ASSERT(flowset_value(&r, m, &v) && v == summary_num("flows", "fct_ack_ns", st[i]));
        snprintf(m, sizeof m, "flows.slowdown_ack.%s", st[i]);
        CU_ASSERT(flowset_value(&r, m, &v) && v == summary_num("flows", "slowdown_ack", st[i]));
    }
    CU_ASSERT_EQUAL(r.acked, summary_num("flows", "acked", NULL));
    CU_ASSERT(r.fct_ack_ns.p99 > r.fct_ns.p99 && r.slowdown_ack.p99 != r.slowdown.p99);
    double v;
    CU_ASSERT(flowset_value(&r, "flows.total", &v) && v == 21);
    CU_ASSERT(flowset_value(&r, "flows.completed", &v) && v == 21);
    /* The same with an empty filter object. */
    struct flowset_result e;
    compute("{}", &e);
    CU_ASSERT(memcmp(&e, &r, sizeof r) == 0);
}

/* The query rows of flows.csv, read here on their own: size and fct/ideal in ns. */
static int query_rows(double *size, double *fct, double *ideal)
{
    int n = 0;
    for (const char *p = strstr(csv_text, "\nquery."); p; p = strstr(p + 1, "\nquery.")) {
        double start, finish;
        int prio;
        CU_ASSERT_FATAL(n < 6);
        CU_ASSERT_FATAL(sscanf(p + 1, "query.%*d,h%*d,h%*d,%d,%lf,%lf,%lf,%lf,%lf", &prio, &size[n], &start, &finish,
                               &fct[n], &ideal[n]) == 6);
        n++;
    }
    return n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_flowset_query(void)
{
    double size[6], fct[6], ideal[6], sd[6], gp[6];
    CU_ASSERT_EQUAL_FATAL(query_rows(size, fct, ideal), 6);
    for (int i = 0; i < 6; i++) {
        sd[i] = fct[i] / ideal[i];
        gp[i] = size[i] * 8 / fct[i];
    }
    qsort(fct, 6, sizeof *fct, cmp);
    qsort(sd, 6, sizeof *sd, cmp);
    qsort(gp, 6, sizeof *gp, cmp);
    struct flowset_result r;
    compute("{\"traffic\": [\"query\"]}", &r);
    CU_ASSERT_EQUAL(r.total, 6);
    CU_ASSERT_EQUAL(r.completed, 6);
    /* Nearest rank of 6: p50 is the 3rd, p95 and p99 the 6th. */
    CU_ASSERT_EQUAL(r.fct_ns.mean, (fct[0] + fct[1] + fct[2] + fct[3] + fct[4] + fct[5]) / 6);
    CU_ASSERT_EQUAL(r.fct_ns.p50, fct[2]);
    CU_ASSERT(r.fct_ns.p95 == fct[5] && r.fct_ns.p99 == fct[5] && r.fct_ns.max == fct[5]);
    CU_ASSERT_DOUBLE_EQUAL(r.slowdown.p50, sd[2], 1e-12 * sd[2]);
    CU_ASSERT_DOUBLE_EQUAL(r.slowdown.max, sd[5], 1e-12 * sd[5]);
    CU_ASSERT_DOUBLE_EQUAL(r.slowdown.mean, (sd[0] + sd[1] + sd[2] + sd[3] + sd[4] + sd[5]) / 6, 1e-12 * sd[5]);
    CU_ASSERT_EQUAL(r.goodput_gbps.p50, gp[2]);
    CU_ASSERT_EQUAL(r.goodput_gbps.max, gp[5]);
    CU_ASSERT_EQUAL(r.goodput_gbps.mean, (gp[0] + gp[1] + gp[2] + gp[3] + gp[4] + gp[5]) / 6);
    double v;
    CU_ASSERT(flowset_value(&r, "flows.goodput_gbps.p99", &v) && v == gp[5]);
    /* A flow id is matched whole or up to its ".": "que" is not "query". */
    compute("{\"traffic\": [\"que\"]}", &r);
    CU_ASSERT(r.total == 0 && r.completed == 0);
    CU_ASSERT(flowset_value(&r, "flows.total", &v) && v == 0);
    CU_ASSERT(!flowset_value(&r, "flows.fct_ns.p99", &v));
    compute("{\"traffic\": [\"bg0\", \"query.3\"]}", &r);
    CU_ASSERT_EQUAL(r.total, 2);
    struct flowset f;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(parse("{\"traffic\": [\"web\"], \"size_min\": 10}", &f, err, sizeof err), 0);
    CU_ASSERT(flowset_match(&f, "web", 10) && flowset_match(&f, "web.12", 11));
    CU_ASSERT(!flowset_match(&f, "web2", 10) && !flowset_match(&f, "we", 10) && !flowset_match(&f, "web.1", 9));
    CU_ASSERT(flowset_match(NULL, "anything", 0));
    flowset_free(&f);
}

static void test_flowset_sizes(void)
{
    /* Every row of size at most 100 KB, counted here. */
    int small = 0;
    for (const char *p = strchr(csv_text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        long long sz;
        CU_ASSERT_FATAL(sscanf(p + 1, "%*[^,],%*[^,],%*[^,],%*d,%lld", &sz) == 1);
        small += sz <= 100000;
    }
    struct flowset_result r, all;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(flowset_compute(NULL, csv_text, &all, err, sizeof err), 0);
    compute("{\"size_max\": \"100KB\"}", &r);
    CU_ASSERT_EQUAL(r.total, small);
    CU_ASSERT(r.total < all.total - 2);
    CU_ASSERT(r.fct_ns.max < 748230.746); /* bg0, the faster 4 MB flow */
    /* The two 4 MB flows are out, whatever else the size cut removes. */
    compute("{\"traffic\": [\"bg0\", \"bg1\"], \"size_max\": \"100KB\"}", &r);
    CU_ASSERT_EQUAL(r.total, 0);
    compute("{\"traffic\": [\"bg0\", \"bg1\"], \"size_min\": \"4MB\"}", &r);
    CU_ASSERT_EQUAL(r.total, 2);
    /* Bounds are inclusive; a number is bytes. */
    compute("{\"traffic\": [\"query\"], \"size_min\": 64000, \"size_max\": \"64KB\"}", &r);
    CU_ASSERT_EQUAL(r.total, 6);
    compute("{\"traffic\": [\"query\"], \"size_max\": \"63.999KB\"}", &r);
    CU_ASSERT_EQUAL(r.total, 0);
}

static void test_flowset_metric_names(void)
{
    CU_ASSERT(flowset_metric_known("flows.total"));
    CU_ASSERT(flowset_metric_known("flows.completed"));
    CU_ASSERT(flowset_metric_known("flows.fct_ns.p99"));
    CU_ASSERT(flowset_metric_known("flows.slowdown.mean"));
    CU_ASSERT(flowset_metric_known("flows.goodput_gbps.max"));
    CU_ASSERT(flowset_metric_known("flows.acked"));
    CU_ASSERT(flowset_metric_known("flows.fct_ack_ns.p99"));
    CU_ASSERT(flowset_metric_known("flows.slowdown_ack.p50"));
    CU_ASSERT(!flowset_metric_known("flows.slowdown_ack"));
    CU_ASSERT(!flowset_metric_known("flows.goodput_gbps"));
    CU_ASSERT(!flowset_metric_known("flows.fct_ns.p90"));
    CU_ASSERT(!flowset_metric_known("flows.fct_ns.p99.x"));
    CU_ASSERT(!flowset_metric_known("flows.totalx"));
    CU_ASSERT(!flowset_metric_known("pfc.paused_ns_total"));
    CU_ASSERT(!flowset_metric_known("flows"));
    struct flowset_result r = {0};
    double v = 7;
    CU_ASSERT(!flowset_value(&r, "pfc.paused_ns_total", &v) && v == 7);
}

static void expect_parse_error(const char *json, const char *msg)
{
    struct flowset f;
    char err[512] = "";
    CU_ASSERT_EQUAL(parse(json, &f, err, sizeof err), 2);
    if (strcmp(err, msg) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", err, msg);
    CU_ASSERT_STRING_EQUAL(err, msg);
    CU_ASSERT(f.n_traffic == 0 && f.traffic == NULL && f.size_min == -1 && f.size_max == -1);
}

static void test_flowset_bad_input(void)
{
    expect_parse_error("{\"size_max\": \"100QB\"}", "t.json: objective.flows.size_max: expected a size like \"100KB\", "
                                                    "got \"100QB\" (unknown unit \"QB\")");
    expect_parse_error("{\"size_max\": -5}", "t.json: objective.flows.size_max: expected a size like \"100KB\" (or a "
                                             "whole number of bytes), got a number -5");
    expect_parse_error("{\"size_min\": true}", "t.json: objective.flows.size_min: expected a size like \"100KB\" (or "
                                               "a whole number of bytes), got true");
    expect_parse_error("{\"sizemax\": \"1KB\"}", "t.json: objective.flows.sizemax: expected one of the fields "
                                                 "size_min, size_max, traffic, got unknown field \"sizemax\"");
    expect_parse_error("{\"size_min\": \"1MB\", \"size_max\": \"100KB\"}",
                       "t.json: objective.flows.size_max: expected a size at least size_min (1MB), got 100KB");
    expect_parse_error("{\"traffic\": []}", "t.json: objective.flows.traffic: expected a non-empty array of traffic "
                                            "ids like [\"query\", \"web\"], got an empty array");
    expect_parse_error("{\"traffic\": \"web\"}", "t.json: objective.flows.traffic: expected a non-empty array of "
                                                 "traffic ids like [\"query\", \"web\"], got a string \"web\"");
    expect_parse_error("{\"traffic\": [\"web\", \"query\", \"web\"]}",
                       "t.json: objective.flows.traffic.2: expected each traffic id once, got \"web\" again (also "
                       "objective.flows.traffic.0)");
    expect_parse_error("{\"traffic\": [\"\"]}",
                       "t.json: objective.flows.traffic.0: expected a traffic id like \"query\", got an empty string");
    expect_parse_error("[1]", "t.json: objective.flows: expected an object, got an array");
    expect_parse_error("{\"size_max\": \"1KB\", \"size_max\": \"2KB\"}",
                       "t.json: objective.flows.size_max: expected each key once in an object, got \"size_max\" twice");
}

static void expect_csv_error(const char *csv, const char *msg)
{
    struct flowset_result r;
    char err[512] = "";
    CU_ASSERT_EQUAL(flowset_compute(NULL, csv, &r, err, sizeof err), 2);
    if (strcmp(err, msg) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", err, msg);
    CU_ASSERT_STRING_EQUAL(err, msg);
    CU_ASSERT(r.total == 0 && r.completed == 0);
}

/* flows.csv's header of an older rocesim, and since the sender's completion was added */
#define HDR "id,src,dst,priority,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,paused_ns"
#define HDR4 HDR ",acked_ns,fct_ack_ns,ideal_fct_ack_ns,slowdown_ack"

static void test_flowset_bad_csv(void)
{
    expect_csv_error("time_ns,port,depth\n1,2,3\n", "flows.csv line 1: expected the header \"" HDR4 "\", got "
                                                    "\"time_ns,port,depth\"");
    expect_csv_error(HDR "\na,h0,h1,3,1000,0,10,10,5,2.0000,0,0,0\nb,h0,h1,3,1000,0,10,1o,5,2.0000,0,0,0\n",
                     "flows.csv line 3: column fct_ns: expected a time in ns, got \"1o\"");
    expect_csv_error(HDR "\na,h0,h1,3,1000,0,10,10,5\n", "flows.csv line 2: expected 13 columns (" HDR "), got 9");
    expect_csv_error(HDR "\na,h0,h1,3,1000,0,,,,,,,7\n",
                     "flows.csv line 2: column paused_ns: expected nothing (the flow did not finish), got \"7\"");
    expect_csv_error(HDR "\na,h0,h1,3,-1000,0,10,10,5,2,0,0,0\n",
                     "flows.csv line 2: column size_bytes: expected a whole number, got \"-1000\"");
    expect_csv_error(HDR "\na,h0,h1,3,1000,0,10,10,5.0001,2,0,0,0\n",
                     "flows.csv line 2: column ideal_fct_ns: expected a time in ns, got \"5.0001\"");
    /* A valid csv with an unfinished flow, without the final newline. */
    struct flowset_result r;
    char err[256];
    CU_ASSERT_EQUAL(flowset_compute(NULL, HDR "\na,h0,h1,3,1000,0,10,10,5,2.0000,0,0,0\nb,h0,h1,3,1000,0,,,,,,,",
                                    &r, err, sizeof err), 0);
    CU_ASSERT(r.total == 2 && r.completed == 1 && r.slowdown.max == 2 && r.goodput_gbps.max == 800);
    CU_ASSERT_EQUAL(flowset_compute(NULL, HDR "\n", &r, err, sizeof err), 0);
    CU_ASSERT(r.total == 0);
    /* With the sender's columns: a flow acked, one finished whose last ACK did not come back, one unfinished. */
    expect_csv_error(HDR4 "\na,h0,h1,3,1000,0,10,10,5,2,0,0,0\n",
                     "flows.csv line 2: expected 17 columns (" HDR4 "), got 13");
    expect_csv_error(HDR4 "\na,h0,h1,3,1000,0,10,10,5,2,0,0,0,,14,,\n",
                     "flows.csv line 2: column fct_ack_ns: expected nothing (its last ACK did not reach the sender), "
                     "got \"14\"");
    expect_csv_error(HDR4 "\na,h0,h1,3,1000,0,,,,,,,,14,14,7,2\n",
                     "flows.csv line 2: column acked_ns: expected nothing (the flow did not finish), got \"14\"");
    expect_csv_error(HDR4 "\na,h0,h1,3,1000,0,10,10,5,2,0,0,0,14,14,7,x\n",
                     "flows.csv line 2: column slowdown_ack: expected a number, got \"x\"");
    CU_ASSERT_EQUAL(flowset_compute(NULL, HDR4 "\na,h0,h1,3,1000,0,10,10,5,2,0,0,0,14,14,7,2\n"
                                              "b,h0,h1,3,1000,0,12,12,5,2.4,0,0,0,,,,\nc,h0,h1,3,1000,0,,,,,,,,,,,\n",
                                    &r, err, sizeof err), 0);
    CU_ASSERT(r.total == 3 && r.completed == 2 && r.acked == 1);
    CU_ASSERT(r.fct_ns.max == 12 && r.fct_ack_ns.max == 14 && r.slowdown_ack.max == 2);
    double v;
    CU_ASSERT(flowset_value(&r, "flows.acked", &v) && v == 1);
    /* A flows.csv of an older rocesim: read, with no flow acked and no sender-side statistic. */
    CU_ASSERT_EQUAL(flowset_compute(NULL, HDR "\na,h0,h1,3,1000,0,10,10,5,2.0000,0,0,0\n", &r, err, sizeof err), 0);
    CU_ASSERT(r.completed == 1 && r.acked == 0);
    CU_ASSERT(!flowset_value(&r, "flows.slowdown_ack.p99", &v));
    CU_ASSERT(flowset_value(&r, "flows.slowdown.p99", &v) && v == 2);
}

void test_flowset_register(void)
{
    CU_pSuite f = CU_add_suite("flowset", flowset_init, flowset_clean);
    CU_add_test(f, "every flow: summary.json's numbers exactly", test_flowset_all);
    CU_add_test(f, "the query flows: a hand computation from their rows", test_flowset_query);
    CU_add_test(f, "size ranges are inclusive, 100KB leaves the 4MB flows out", test_flowset_sizes);
    CU_add_test(f, "metric names", test_flowset_metric_names);
    CU_add_test(f, "bad flow subsets: file, path and what was expected", test_flowset_bad_input);
    CU_add_test(f, "a text that is not a flows.csv names its line", test_flowset_bad_csv);
}
