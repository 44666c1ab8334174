/*
 * The labs' key observations, asserted on reduced versions of the labs so
 * that they cannot silently rot (each lab folder has a README.md walk-through).
 */
#include "tests/tests.h"
#include "tools/report/flowset.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char lab_tmp[64];

/* Makes the suite's directory of runs, lab_tmp, the first time; false when it cannot. */
static bool lab_tmp_made(void)
{
    if (!lab_tmp[0]) {
        snprintf(lab_tmp, sizeof lab_tmp, "/tmp/rocesim-labs-XXXXXX");
        if (!mkdtemp(lab_tmp)) {
            lab_tmp[0] = '\0';
            return false;
        }
    }
    return true;
}

/*
 * Runs a lab scenario with extra options into lab_tmp/tag, with its plots or without (most tests read only the
 * numbers, and gnuplot is the slow part); false, with the output on stderr, when it fails.
 */
static bool lab_exec(const char *scenario, const char *opts, const char *tag, bool plots)
{
    if (!lab_tmp_made())
        return false;
    char cmd[2048], *log = NULL;
    snprintf(cmd, sizeof cmd, "%s run scenarios/labs/%s -q%s -o %s/%s %s", test_rocesim_bin(), scenario,
             plots ? "" : " --no-plot", lab_tmp, tag, opts ? opts : "");
    int rc = test_run(cmd, &log);
    if (rc != 0)
        fprintf(stderr, "\n  %s: exit %d\n%s\n", cmd, rc, log ? log : "");
    free(log);
    return rc == 0;
}

/* Runs a lab scenario with extra options, without plots; returns its summary.json, or NULL (test failure). */
static cJSON *lab_run(const char *scenario, const char *opts, const char *tag)
{
    if (!lab_exec(scenario, opts, tag, false))
        return NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/%s/summary.json", lab_tmp, tag);
    char *buf = test_read_file(path, NULL);
    cJSON *j = buf ? cJSON_Parse(buf) : NULL;
    free(buf);
    return j;
}

static double num(const cJSON *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = j;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok)) : cJSON_GetObjectItemCaseSensitive(cur, tok);
    return cJSON_IsNumber(cur) ? cur->valuedouble : -1;
}

static void test_lab1(void)
{
    /* 2 pods instead of 8 (128 hosts, 16 servers of 8 NICs), 32 MB instead of 128 MB: chunks stay 250 KB. */
    const char *small = "--set topology.pods=2 --set traffic.0.size=32MB";
    cJSON *a = lab_run("01-one-config-ten-times/cluster-a.json", small, "l1a");
    cJSON *b = lab_run("01-one-config-ten-times/cluster-b.json", small, "l1b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    double ta = num(a, "collectives.0.completion_ns"), tb = num(b, "collectives.0.completion_ns");
    printf("\n    cluster A %.2f ms, cluster B %.2f ms (x%.2f) ", ta / 1e6, tb / 1e6, ta / tb);
    CU_ASSERT(tb > 0 && ta >= 3 * tb);
    CU_ASSERT(num(a, "packets.dropped") > 0 && num(a, "packets.retransmitted") > 0);
    CU_ASSERT_EQUAL(num(b, "packets.dropped"), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* The value of column `col` (0-based) of flow `id` in a run's flows.csv, or -1. */
static double flow_col(const char *tag, const char *id, int col)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s/flows.csv", lab_tmp, tag);
    FILE *f = fopen(path, "r");
    double v = -1;
    size_t n = strlen(id);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, id, n) != 0 || line[n] != ',')
            continue;
        char *p = line;
        for (int c = 0; c < col && p; c++) {
            p = strchr(p, ',');
            if (p)
                p++;
        }
        if (p)
            v = atof(p);
    }
    if (f)
        fclose(f);
    return v;
}

static void test_lab2(void)
{
    cJSON *alone = lab_run("02-hol-victim/victim-alone.json", NULL, "l2a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alone);
    cJSON_Delete(alone);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run scenarios/victim-flow.json -q --no-plot -o %s/l2v", test_rocesim_bin(), lab_tmp);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    /* columns: 9 slowdown, 12 paused_ns */
    double sa = flow_col("l2a", "victim", 9), sv = flow_col("l2v", "victim", 9);
    double pa = flow_col("l2a", "victim", 12), pv = flow_col("l2v", "victim", 12);
    printf("\n    victim slowdown %.2f alone, %.2f beside the incast; paused_ns %.0f -> %.0f ", sa, sv, pa, pv);
    CU_ASSERT(sa >= 1 && sa < 1.05);
    CU_ASSERT(sv > 2 * sa);
    CU_ASSERT_EQUAL(pa, 0);
    CU_ASSERT(pv > 0);
}

static void test_lab3(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run scenarios/pfc-storm.json -q --no-plot -o %s/l3n", test_rocesim_bin(), lab_tmp);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    cJSON *wd = lab_run("../pfc-storm.json",
                        "--set switch.watchdog.enabled=true --set switch.watchdog.detection_time=200us "
                        "--set switch.watchdog.restoration_time=200us --set switch.watchdog.poll_interval=10us",
                        "l3w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wd);
    CU_ASSERT_EQUAL(num(wd, "watchdog.storms_detected"), 1);
    CU_ASSERT_EQUAL(num(wd, "watchdog.restored"), 1);
    double cn = flow_col("l3n", "cross", 7), cw = flow_col("l3w", "cross", 7);
    printf("\n    cross flow FCT %.0f us without the watchdog, %.0f us with it ", cn / 1e3, cw / 1e3);
    CU_ASSERT(cw > 0 && cn > 2 * cw);
    cJSON_Delete(wd);
}

static void test_lab4(void)
{
    cJSON *ok = lab_run("04-deadlock/cycle-broken.json", NULL, "l4ok");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ok);
    CU_ASSERT_EQUAL(num(ok, "flows.completed"), 3);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ok, "deadlock"), "detected");
    CU_ASSERT_TRUE(cJSON_IsFalse(d));
    cJSON_Delete(ok);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run scenarios/deadlock-ring.json -q --no-plot --fail-on-deadlock -o %s/l4dl",
             test_rocesim_bin(), lab_tmp);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 1);
}

static void test_lab5(void)
{
    /* Low thresholds cut the queries' bursts back sooner, so the short queries wait less behind them. */
    cJSON *lo = lab_run("05-tuning-dcqcn/fairness.json", NULL, "l5lo");
    cJSON *hi = lab_run("05-tuning-dcqcn/fairness.json", "--set switch.ecn.kmin=50KB --set switch.ecn.kmax=800KB", "l5hi");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hi);
    double plo = num(lo, "flows.slowdown.p99"), phi = num(hi, "flows.slowdown.p99");
    printf("\n    p99 slowdown %.2f with 5/200 KB, %.2f with 50/800 KB ", plo, phi);
    CU_ASSERT(plo > 0 && phi > 2 * plo);
    cJSON_Delete(lo);
    cJSON_Delete(hi);
}

static void test_lab6(void)
{
    const char *d = "06-fattree-vs-dragonfly/";
    char s[256];
    snprintf(s, sizeof s, "%sdragonfly-minimal-adversarial.json", d);
    cJSON *mn = lab_run(s, NULL, "l6min");
    snprintf(s, sizeof s, "%sdragonfly-ugal-adversarial.json", d);
    cJSON *va = lab_run(s, "--set topology.routing=valiant", "l6val");
    snprintf(s, sizeof s, "%sfattree-adversarial.json", d);
    cJSON *ft = lab_run(s, NULL, "l6ft");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mn);
    CU_ASSERT_PTR_NOT_NULL_FATAL(va);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ft);
    double tmn = num(mn, "sim_end_ns"), tva = num(va, "sim_end_ns"), tft = num(ft, "sim_end_ns");
    printf("\n    adversarial: dragonfly minimal %.0f us, Valiant %.0f us, fat-tree %.0f us ", tmn / 1e3, tva / 1e3,
           tft / 1e3);
    /* one global link per group pair: minimal routing is the slowest by far */
    CU_ASSERT(tmn > 1.3 * tva);
    CU_ASSERT(tmn > 1.3 * tft);
    CU_ASSERT_EQUAL(num(va, "routing.valiant_flows"), 72);
    cJSON_Delete(mn);
    cJSON_Delete(va);
    cJSON_Delete(ft);
}

static void test_lab7(void)
{
    cJSON *nq = lab_run("07-qos/no-qos.json", NULL, "l7n");
    cJSON *qs = lab_run("07-qos/with-dwrr.json", NULL, "l7q");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nq);
    CU_ASSERT_PTR_NOT_NULL_FATAL(qs);
    double tn = num(nq, "collectives.0.completion_ns"), tq = num(qs, "collectives.0.completion_ns");
    double cn = num(nq, "priorities.3.fct_ns.max"), cq = num(qs, "priorities.3.fct_ns.max");
    printf("\n    all-reduce %.2f ms without QoS, %.2f ms with DWRR; checkpoint max FCT %.2f -> %.2f ms ", tn / 1e6,
           tq / 1e6, cn / 1e6, cq / 1e6);
    CU_ASSERT(tq > 0 && tn > 1.1 * tq); /* training keeps its share */
    CU_ASSERT(cq > cn);                 /* and checkpoint pays for it */
    cJSON_Delete(nq);
    cJSON_Delete(qs);
}

static void test_lab8(void)
{
    cJSON *s3 = lab_run("08-headroom/3m-auto.json", NULL, "l83");
    cJSON *k1 = lab_run("08-headroom/1km-auto.json", NULL, "l81");
    cJSON *bad = lab_run("08-headroom/1km-3m-headroom.json", "--stop 20ms", "l8b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    CU_ASSERT_EQUAL(num(s3, "packets.dropped"), 0);
    CU_ASSERT_EQUAL(num(k1, "packets.dropped"), 0);
    CU_ASSERT(num(s3, "pfc.pause_frames") > 0 && num(k1, "pfc.pause_frames") > 0);
    CU_ASSERT(num(bad, "packets.drops_by_reason.headroom") > 0);
    cJSON_Delete(s3);
    cJSON_Delete(k1);
    cJSON_Delete(bad);
}

/* The index of column `name` in a CSV header line, or -1 (the names hold no commas but may hold quotes). */
static int csv_col(const char *header, const char *name)
{
    int c = 0;
    size_t n = strlen(name);
    for (const char *p = header; p; p = strchr(p, ','), p = p ? p + 1 : NULL, c++)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\n' || p[n] == '\r' || p[n] == '\0'))
            return c;
    return -1;
}

/* Field `col` of a CSV line as a number; *empty is set when the field is empty. */
static double csv_num(const char *line, int col, bool *empty)
{
    const char *p = line;
    for (int c = 0; c < col && p; c++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    *empty = !p || *p == ',' || *p == '\n' || *p == '\0';
    return *empty ? 0 : atof(p);
}

static const char *str(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void test_lab9(void)
{
    /*
     * The whole lab's tune (150 runs and 10 confirmation runs of a 5 ms simulation): the claims of its
     * README hold only at the budget the student runs.
     */
    CU_ASSERT_FATAL(lab_tmp_made());
    char cmd[1024], *log = NULL;
    snprintf(cmd, sizeof cmd, "%s tune scenarios/labs/09-tune-it-yourself/tune.json -q -o %s/l9", test_rocesim_bin(),
             lab_tmp);
    int rc = test_run(cmd, &log);
    if (rc != 0)
        fprintf(stderr, "\n  %s: exit %d\n%s\n", cmd, rc, log ? log : "");
    free(log);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/l9/best.json", lab_tmp);
    char *buf = test_read_file(path, NULL);
    cJSON *best = buf ? cJSON_Parse(buf) : NULL;
    free(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(best);
    const char *obj = "flows.slowdown.p99{'size_max':'100KB'}";
    const char *gobj = "flows.goodput_gbps.mean{'traffic':['bg0' 'bg1']}";
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(best, "result"), obj);
    const cJSON *gres = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(best, "result"), gobj);
    const cJSON *bres = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(best, "baseline"), "result"), obj);
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(best, "confirmation");
    const cJSON *cres = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(conf, "recommendation"), "result"), obj);
    const cJSON *cbres = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(conf, "baseline"), "result"), obj);
    const cJSON *cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(best, "comparison"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gres);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bres);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cres);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cbres);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cmp);
    double base = num(bres, "mean"), won = num(res, "mean"), p = num(cmp, "p");
    printf("\n    recommendation %s; short-flow p99 slowdown: ConnectX %.3f, the recommendation %.3f on the search "
           "seeds; on the confirmation seeds %.3f against %.3f, p = %.2f ", str(best, "recommendation"), base, won,
           num(cbres, "mean"), num(cres, "mean"), p);
    /* the search finds a setting better than the ConnectX defaults on every seed, search and confirmation ... */
    CU_ASSERT_STRING_EQUAL(str(best, "recommendation"), "search");
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(best, "feasible")) && num(gres, "mean") >= 37);
    const cJSON *pairs[2][2] = {{res, bres}, {cres, cbres}};
    for (int k = 0; k < 2; k++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(pairs[k][0], "values");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(pairs[k][1], "values");
        CU_ASSERT_FATAL(cJSON_GetArraySize(a) == 5 && cJSON_GetArraySize(b) == 5);
        for (int i = 0; i < 5; i++)
            CU_ASSERT(cJSON_GetArrayItem(a, i)->valuedouble < cJSON_GetArrayItem(b, i)->valuedouble);
    }
    /* ... yet a paired test on the five seeds the search never saw cannot call the gain significant: one seed
     * carries most of the difference */
    CU_ASSERT_STRING_EQUAL(str(cmp, "seeds"), "confirm_seeds");
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cmp, "significant")) && p >= 0.05);
    CU_ASSERT_EQUAL(strncmp(str(best, "verdict"), "not significantly different", 27), 0);
    /* racing, as the README counts it: 81 of the 94 candidates ran one seed, 12 ran all five, and 6 of those broke
     * the goodput constraint */
    CU_ASSERT_EQUAL(num(best, "search.candidates"), 94);
    CU_ASSERT_EQUAL(num(best, "search.dropped_by_racing"), 81);
    CU_ASSERT_EQUAL(num(best, "search.evaluated_on_every_seed"), 12);
    CU_ASSERT_EQUAL(num(best, "search.infeasible"), 6);
    const cJSON *bvals = cJSON_GetObjectItemCaseSensitive(bres, "values");
    CU_ASSERT_FATAL(cJSON_GetArraySize(bvals) == 5);
    double base5 = cJSON_GetArrayItem(bvals, 4)->valuedouble; /* the defaults on seed 5 */
    cJSON_Delete(best);

    /*
     * tune.csv, as the README reads it: the marginal of cnp_interval (all 41 design points with one CNP per 6 us
     * or rarer ran on seed 5, paused PFC and sit far above the defaults' value there) and the constraint's price
     * (the lowest five-seed mean the search measured is below the recommendation's and leaves the long flows
     * under 37 Gbps).
     */
    snprintf(path, sizeof path, "%s/l9/tune.csv", lab_tmp);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char line[16384];
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
    int ccnp = csv_col(line, "host.dcqcn.cnp_interval"), cobj = csv_col(line, obj),
        cpause = csv_col(line, "pfc.paused_ns_total"), ccand = csv_col(line, "candidate"), cseed = csv_col(line, "seed"),
        cgput = csv_col(line, gobj);
    CU_ASSERT_FATAL(ccnp >= 0 && cobj >= 0 && cpause >= 0 && ccand >= 0 && cseed >= 0 && cgput >= 0);
    enum { MAXC = 512, NSEED = 5 };
    static double o_of[MAXC][NSEED + 1], g_of[MAXC][NSEED + 1];
    static bool ran[MAXC][NSEED + 1];
    memset(ran, 0, sizeof ran);
    int slow = 0, slow_bad = 0;
    while (fgets(line, sizeof line, f)) {
        bool empty, e2, e3, e4, e5;
        double o = csv_num(line, cobj, &e2), g = csv_num(line, cgput, &e3);
        int cand = (int)csv_num(line, ccand, &e4), seed = (int)csv_num(line, cseed, &e5);
        if (!strstr(line, ",confirm,") && !e2 && !e3 && !e4 && !e5 && cand >= 0 && cand < MAXC && seed >= 1 && seed <= NSEED) {
            ran[cand][seed] = true;
            o_of[cand][seed] = o;
            g_of[cand][seed] = g;
        }
        double cnp_us = csv_num(line, ccnp, &empty);
        if (empty || e2 || cnp_us < 6 || !strstr(line, ",design,"))
            continue;
        slow++;
        slow_bad += seed == 5 && o > 2 * base5 && csv_num(line, cpause, &empty) > 0;
    }
    fclose(f);
    int lowest = -1;
    double lowest_o = 0, lowest_g = 0;
    for (int c = 1; c < MAXC; c++) {
        double osum = 0, gsum = 0;
        int seeds = 0;
        for (int s = 1; s <= NSEED; s++)
            if (ran[c][s]) {
                seeds++;
                osum += o_of[c][s];
                gsum += g_of[c][s];
            }
        if (seeds == NSEED && (lowest < 0 || osum / NSEED < lowest_o)) {
            lowest = c;
            lowest_o = osum / NSEED;
            lowest_g = gsum / NSEED;
        }
    }
    printf("\n    %d design runs with cnp_interval >= 6 us, %d of them on seed 5, paused and above twice the defaults' "
           "%.2f there; the lowest five-seed mean, candidate %d's %.3f, leaves the long flows %.1f Gbps ",
           slow, slow_bad, base5, lowest, lowest_o, lowest_g);
    CU_ASSERT_EQUAL(slow, 41);
    CU_ASSERT_EQUAL(slow_bad, slow);
    /* shorter tails than the recommendation's exist, but only at the long flows' expense */
    CU_ASSERT_FATAL(lowest > 0);
    CU_ASSERT(lowest_o < won && lowest_g < 37);
}

static void test_lab10(void)
{
    const char *d = "10-bandwidth-far-below/";
    char s[256];
    cJSON *run[4];
    const char *name[4] = {"healthy", "mystery-a", "mystery-b", "mystery-c"}, *tag[4] = {"l10h", "l10a", "l10b", "l10c"};
    for (int i = 0; i < 4; i++) {
        snprintf(s, sizeof s, "%s%s.json", d, name[i]);
        run[i] = lab_run(s, NULL, tag[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run[i]);
    }
    cJSON *h = run[0], *a = run[1], *b = run[2], *c = run[3];
    /* the healthy fabric: lossless, no PAUSE, DCQCN at work; the training transfers at 92.4 Gbps */
    CU_ASSERT_EQUAL(num(h, "packets.dropped"), 0);
    CU_ASSERT_EQUAL(num(h, "pfc.pause_frames"), 0);
    CU_ASSERT(num(h, "cnp.sent") > 0);
    double bulk_h = flow_col("l10h", "bulk0", 7), store_h = num(h, "sim_end_ns");
    printf("\n    healthy: bulk0 %.1f Gbps, end %.3f ms; ", 25e6 * 8 / bulk_h, store_h / 1e6);
    /* ECN thresholds too high: no mark, no CNP, PFC throttles, and flows sharing a spine with the writers lose */
    CU_ASSERT_EQUAL(num(a, "packets.ecn_marked"), 0);
    CU_ASSERT_EQUAL(num(a, "cnp.sent"), 0);
    CU_ASSERT(num(a, "pfc.pause_frames") > 100);
    CU_ASSERT_EQUAL(num(a, "packets.dropped"), 0);
    double bulk_a = flow_col("l10a", "bulk0", 7);
    printf("ECN: bulk0 %.1f Gbps; ", 25e6 * 8 / bulk_a);
    CU_ASSERT(bulk_a > 1.4 * bulk_h);
    /* DCQCN that never increases: fewer CNPs than healthy, no loss, no PAUSE, storage many times slower */
    CU_ASSERT_EQUAL(num(b, "packets.dropped"), 0);
    CU_ASSERT_EQUAL(num(b, "pfc.pause_frames"), 0);
    CU_ASSERT(num(b, "cnp.sent") > 0 && num(b, "cnp.sent") < num(h, "cnp.sent"));
    printf("DCQCN: end %.3f ms; ", num(b, "sim_end_ns") / 1e6);
    CU_ASSERT(num(b, "sim_end_ns") > 5 * store_h);
    /* PFC off: buffer drops, go-back-N resends, no PAUSE, priority 3 lossy */
    CU_ASSERT(num(c, "packets.drops_by_reason.buffer") > 0);
    CU_ASSERT(num(c, "packets.retransmitted") > num(c, "packets.dropped"));
    CU_ASSERT_EQUAL(num(c, "pfc.pause_frames"), 0);
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "priorities"), "3"), "lossless")));
    printf("PFC: %.0f drops, end %.3f ms ", num(c, "packets.dropped"), num(c, "sim_end_ns") / 1e6);
    CU_ASSERT(num(c, "sim_end_ns") > 1.2 * store_h);
    /* exercise 3 and ANSWERS.md: RoCE on an unprotected priority is, for the switches, PFC off */
    cJSON *u = lab_run("../misconfig/nic-unprotected-priority.json", NULL, "l10u");
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT(num(u, "packets.dropped") > 0);
    CU_ASSERT_EQUAL(num(u, "packets.dropped"), num(c, "packets.dropped"));
    CU_ASSERT_EQUAL(num(u, "sim_end_ns"), num(c, "sim_end_ns"));
    cJSON_Delete(u);
    for (int i = 0; i < 4; i++)
        cJSON_Delete(run[i]);
}

/* The largest FCT (fct_ns) among the flows of a run whose id starts with `prefix`, or -1. */
static double flow_max_fct(const char *tag, const char *prefix)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s/flows.csv", lab_tmp, tag);
    FILE *f = fopen(path, "r");
    int col = f && fgets(line, sizeof line, f) ? csv_col(line, "fct_ns") : -1;
    double v = -1;
    while (col >= 0 && fgets(line, sizeof line, f)) {
        bool empty;
        double fct = csv_num(line, col, &empty);
        if (strncmp(line, prefix, strlen(prefix)) == 0 && !empty && fct > v)
            v = fct;
    }
    if (f)
        fclose(f);
    return v;
}

static double max3(double a, double b, double c)
{
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static double min3(double a, double b, double c)
{
    return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

static void test_lab11(void)
{
    /*
     * The lab's own all-reduce (each run a fraction of a second), and what its README and docs/labs.md say of
     * it: HPCC, reacting to the queue the switches report, never reaches the PFC threshold; DCQCN pauses a
     * little; TIMELY (its default, the paper's values scaled to 100 Gbps), whose flows restart every ring step
     * at line rate, cut hard on the RTT's rise and climb back 100 Mbps per round trip, pauses most and takes
     * 1.6x DCQCN's time, the longest of the five; DCTCP ends 25 % after DCQCN; DCQCN, HPCC and Swift take
     * 8.0-8.5 ms, none near the 4.5 ms bandwidth term.  The margins keep those words true (measured: TIMELY
     * paused 12.2x DCQCN's time and 5.25x Swift's, the next; it ended 1.59x DCQCN and 1.28x DCTCP, the next).
     */
    const char *ar = "11-which-cc/allreduce.json";
    cJSON *d = lab_run(ar, NULL, "l11d");
    cJSON *h = lab_run(ar, "--set host.cc=hpcc", "l11h");
    cJSON *t = lab_run(ar, "--set host.cc=timely", "l11t");
    cJSON *k = lab_run(ar, "--set host.cc=dctcp --set switch.ecn.kmin=20KB --set switch.ecn.kmax=20KB", "l11k");
    cJSON *w = lab_run(ar, "--set host.cc=swift", "l11w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    double cd = num(d, "collectives.0.completion_ns"), ch = num(h, "collectives.0.completion_ns"),
           ct = num(t, "collectives.0.completion_ns"), ck = num(k, "collectives.0.completion_ns"),
           cw = num(w, "collectives.0.completion_ns");
    double pd = num(d, "pfc.paused_ns_total"), pt = num(t, "pfc.paused_ns_total"), pk = num(k, "pfc.paused_ns_total"),
           pw = num(w, "pfc.paused_ns_total");
    /* HPCC never pauses: its paused time is 0 (asserted below through its PAUSE frames) */
    double p_rest = max3(pd, pk, pw), c_rest = max3(max3(cd, ch, ck), cw, 0);
    printf("\n    all-reduce: DCQCN %.2f ms %.0f PAUSE, HPCC %.2f ms %.0f PAUSE, TIMELY %.2f ms %.0f PAUSE, DCTCP %.2f ms, "
           "Swift %.2f ms; TIMELY paused %.2fx the most of the others, took %.2fx DCQCN, %.2fx the slowest of the "
           "others; ", cd / 1e6, num(d, "pfc.pause_frames"), ch / 1e6, num(h, "pfc.pause_frames"), ct / 1e6,
           num(t, "pfc.pause_frames"), ck / 1e6, cw / 1e6, pt / p_rest, ct / cd, ct / c_rest);
    CU_ASSERT_EQUAL(num(h, "pfc.pause_frames"), 0);
    CU_ASSERT(num(d, "pfc.pause_frames") > 0);
    CU_ASSERT(pd > 0 && pt > 5 * p_rest);
    CU_ASSERT(cd > 0 && ch > 0 && ck > 0 && cw > 0);
    CU_ASSERT(ct > 1.5 * cd && ct > 1.2 * c_rest);
    CU_ASSERT(ck > 1.2 * cd);
    CU_ASSERT(max3(cd, ch, cw) < 1.1 * min3(cd, ch, cw)); /* 8.0-8.5 ms */
    CU_ASSERT(min3(cd, ch, cw) > 1.5 * 4.5e6);               /* none near the bandwidth term */
    CU_ASSERT(num(d, "packets.dropped") == 0 && num(h, "packets.dropped") == 0 && num(t, "packets.dropped") == 0);
    cJSON_Delete(k);
    cJSON_Delete(w);
    /* The mix: the incast's queries wait less behind HPCC's shallow queue than behind DCQCN's. */
    const char *mix = "11-which-cc/mix.json";
    cJSON *md = lab_run(mix, NULL, "l11md");
    cJSON *mh = lab_run(mix, "--set host.cc=hpcc", "l11mh");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mh);
    double qd = flow_max_fct("l11md", "query."), qh = flow_max_fct("l11mh", "query.");
    printf("mix: slowest query %.1f us with DCQCN, %.1f us with HPCC ", qd / 1e3, qh / 1e3);
    CU_ASSERT(qh > 0 && qd > 1.25 * qh);
    cJSON_Delete(d);
    cJSON_Delete(h);
    cJSON_Delete(t);
    cJSON_Delete(md);
    cJSON_Delete(mh);
}

static int cleanup(void)
{
    if (lab_tmp[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", lab_tmp);
        test_run(cmd, NULL);
    }
    return 0;
}

/* Runs a lab scenario with its plots into lab_tmp/tag; returns the text of plots/NAME.gp (caller frees), or NULL. */
static char *lab_plot(const char *scenario, const char *tag, const char *name)
{
    char path[1024];
    if (!lab_exec(scenario, NULL, tag, true))
        return NULL;
    snprintf(path, sizeof path, "%s/%s/plots/%s.gp", lab_tmp, tag, name);
    return test_read_file(path, NULL);
}

/* The line of a gnuplot script that sets `name` ("xend = 1725.31"), its value. */
static double gp_value(const char *gp, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "\n%s = ", name);
    const char *p = gp ? strstr(gp, key) : NULL;
    return p ? atof(p + strlen(key)) : -1;
}

/*
 * A plot a lab relies on draws what the lab names, and no legend answers the exercise: lab 10's rates.png draws
 * store.4 (the writer mystery c is about, its ninth flow); mystery a's queues.png does not draw the ECN thresholds
 * (5000/10000 KB there: the answer), nor do the other three files (monitor.plot_ecn false in all four, so that
 * none stands out); lab 9's time axes end where its traffic ends (1.73 ms), not where the run stopped (3.43 ms).
 */
static void test_lab_plots(void)
{
    if (test_run("command -v gnuplot >/dev/null", NULL) != 0) {
        printf("\n    note: gnuplot missing, the labs' plots not checked ");
        return;
    }
    char *rates = lab_plot("10-bandwidth-far-below/mystery-c.json", "p10c", "rates");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rates);
    const char *names = strstr(rates, "array fname[");
    CU_ASSERT_PTR_NOT_NULL(names && strstr(names, "'store.4'") && strchr(names, '\n') > strstr(names, "'store.4'")
                               ? names : NULL);
    CU_ASSERT_EQUAL(gp_value(rates, "nf"), 9);
    free(rates);
    static const char *const lab10[] = {"healthy", "mystery-a", "mystery-b", "mystery-c"};
    for (int i = 0; i < 4; i++) {
        char file[128], tag[32];
        snprintf(file, sizeof file, "10-bandwidth-far-below/%s.json", lab10[i]);
        snprintf(tag, sizeof tag, "p10q%d", i);
        char *q = lab_plot(file, tag, "queues");
        CU_ASSERT_PTR_NOT_NULL_FATAL(q);
        CU_ASSERT_EQUAL(gp_value(q, "ecn"), 0);
        CU_ASSERT_PTR_NULL(strstr(q, "5000"));
        free(q);
    }
    char *q9 = lab_plot("09-tune-it-yourself/incast-mix-connectx.json", "p9", "queues");
    CU_ASSERT_PTR_NOT_NULL_FATAL(q9);
    char path[1024];
    snprintf(path, sizeof path, "%s/p9/summary.json", lab_tmp);
    char *sum = test_read_file(path, NULL);
    cJSON *j = sum ? cJSON_Parse(sum) : NULL;
    double end = num(j, "sim_end_ns") / 1e3, last = 0, xend = gp_value(q9, "xend");
    snprintf(path, sizeof path, "%s/p9/flows.csv", lab_tmp);
    char *flows = test_read_file(path, NULL);
    int cfin = flows ? csv_col(flows, "finish_ns") : -1;
    CU_ASSERT(cfin >= 0);
    for (const char *l = flows ? strchr(flows, '\n') : NULL; cfin >= 0 && l && l[1]; l = strchr(l + 1, '\n')) {
        bool empty;
        double fin = csv_num(l + 1, cfin, &empty);
        if (!empty && fin / 1e3 > last)
            last = fin / 1e3;
    }
    free(flows);
    printf("\n    lab 9: the run ends at %.0f us, its last flow at %.0f us, the time axis at %.0f us ", end, last, xend);
    CU_ASSERT(last > 0 && end > 1.5 * last);
    CU_ASSERT_DOUBLE_EQUAL(xend, last, 0.01);
    cJSON_Delete(j);
    free(sum);
    free(q9);
}

static void test_lab12(void)
{
    /*
     * The lab's five clusters at a quarter of its sizes (all-reduce 16 MB, all-to-all 4 MB from 1 ms): GPUDirect
     * off and the NICs on the other socket cut the all-reduce's busbw to under two thirds (measured 0.58 and 0.52;
     * at the lab's 64 MB, where healthy is less bound by latency, 0.39 and 0.29: 117.5 and 87.4 against 299.3
     * GB/s); PFC off leaves it as it is (its rings never queue in the fabric) and drops the
     * all-to-all's frames, which then takes at least twice as long; ECN above the PFC point marks nothing, sends
     * no CNP, and leaves both busbws within 2 % of healthy.
     */
    static const char *const names[] = {"healthy", "mystery-a", "mystery-b", "mystery-c", "mystery-d"};
    const char *opts = "--set traffic.0.size=16MB --set traffic.1.size=4MB --set traffic.1.start=1ms";
    cJSON *j[5];
    double ar[5], a2a[5];
    for (int i = 0; i < 5; i++) {
        char file[96], tag[16];
        snprintf(file, sizeof file, "12-allreduce-slow/%s.json", names[i]);
        snprintf(tag, sizeof tag, "l12-%d", i);
        j[i] = lab_run(file, opts, tag);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j[i]);
        ar[i] = num(j[i], "collectives.0.busbw_GBps");
        a2a[i] = num(j[i], "collectives.1.busbw_GBps");
    }
    printf("\n    busbw all-reduce / all-to-all (GB/s): healthy %.1f / %.1f, GDR off %.1f / %.1f, NICs across NUMA "
           "%.1f / %.1f, PFC off %.1f / %.1f, ECN above PFC %.1f / %.1f ", ar[0], a2a[0], ar[1], a2a[1], ar[2],
           a2a[2], ar[3], a2a[3], ar[4], a2a[4]);
    CU_ASSERT(ar[0] > 0 && a2a[0] > 0);
    CU_ASSERT(ar[1] < 0.65 * ar[0] && ar[2] < 0.6 * ar[0]);
    CU_ASSERT_DOUBLE_EQUAL(ar[3] / ar[0], 1.0, 0.01);
    CU_ASSERT(a2a[3] < 0.5 * a2a[0] && num(j[3], "packets.dropped") > 0 && num(j[0], "packets.dropped") == 0);
    CU_ASSERT(num(j[4], "packets.ecn_marked") == 0 && num(j[4], "cnp.sent") == 0 && num(j[0], "packets.ecn_marked") > 0);
    CU_ASSERT_DOUBLE_EQUAL(ar[4] / ar[0], 1.0, 0.02);
    CU_ASSERT_DOUBLE_EQUAL(a2a[4] / a2a[0], 1.0, 0.02);
    for (int i = 0; i < 5; i++)
        cJSON_Delete(j[i]);
}

/* The slowest incast answer and the victim's FCT of lab 14's run in lab_tmp/tag (its flows.csv), in ns. */
static void lab14_fcts(const char *tag, double *incast, double *victim)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/flows.csv", lab_tmp, tag);
    char *csv = test_read_file(path, NULL);
    *incast = *victim = -1;
    for (char *line = csv ? strchr(csv, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
        char id[64];
        double fct = 0;
        /* id,src,dst,priority,size_bytes,start_ns,finish_ns,fct_ns,... */
        if (sscanf(line + 1, "%63[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf", id, &fct) != 2)
            continue;
        if (!strncmp(id, "incast", 6) && fct > *incast)
            *incast = fct;
        if (!strcmp(id, "victim"))
            *victim = fct;
    }
    free(csv);
}

/*
 * Lab 14: InfiniBand is lossless with nothing configured and finishes the incast first; RoCE without PFC drops and
 * is slower than with it; on this cluster the victim sharing a sender's link fares worse on InfiniBand (credits
 * stall that link at once) than on RoCE with PFC and DCQCN, and IB congestion control gives some of it back.
 */
static void test_lab14(void)
{
    cJSON *roce = lab_run("14-ib-or-roce/roce.json", NULL, "l14r");
    cJSON *nopfc = lab_run("14-ib-or-roce/roce.json", "--set switch.pfc.enabled=false", "l14n");
    cJSON *ib = lab_run("14-ib-or-roce/ib.json", NULL, "l14i");
    cJSON *cc = lab_run("14-ib-or-roce/ib.json", "--set host.cc=ibcc --set switch.ibcc.enabled=true", "l14c");
    CU_ASSERT_PTR_NOT_NULL_FATAL(roce && nopfc && ib && cc);
    double inc[4], vic[4];
    const char *tags[4] = {"l14r", "l14n", "l14i", "l14c"};
    for (int i = 0; i < 4; i++)
        lab14_fcts(tags[i], &inc[i], &vic[i]);
    printf("\n    incast done: RoCE %.0f us, no PFC %.0f, IB %.0f, IB+CC %.0f; victim %.0f, %.0f, %.0f, %.0f us ",
           inc[0] / 1e3, inc[1] / 1e3, inc[2] / 1e3, inc[3] / 1e3, vic[0] / 1e3, vic[1] / 1e3, vic[2] / 1e3,
           vic[3] / 1e3);
    CU_ASSERT(num(ib, "packets.dropped") == 0 && num(ib, "pfc.pause_frames") == 0);
    CU_ASSERT(num(ib, "credits.stalled_ns_total") > 0);
    CU_ASSERT(num(nopfc, "packets.dropped") > 0 && num(roce, "packets.dropped") == 0);
    CU_ASSERT(inc[1] > 1.2 * inc[0]);
    CU_ASSERT(inc[2] > 0 && inc[2] < inc[0] && inc[2] < 1.02 * 1.28e6); /* within 2 % of 16 MB at 100 Gbps */
    CU_ASSERT(vic[2] > 1.2 * vic[0]);
    CU_ASSERT(vic[3] > 0 && vic[3] < vic[2] && num(cc, "cnp.sent") > 0);
    cJSON_Delete(roce);
    cJSON_Delete(nopfc);
    cJSON_Delete(ib);
    cJSON_Delete(cc);
}

/* The web-search flows (traffic "web") of lab 15's run in lab_tmp/tag: their mean FCT (ns) and slowdown p99, as
 * rocesim's flow subsets compute them (tools/report/flowset.h); false when none finished. */
static bool lab15_web(const char *tag, double *mean_fct, double *sd99)
{
    char path[512], err[256], *web[] = {"web"};
    snprintf(path, sizeof path, "%s/%s/flows.csv", lab_tmp, tag);
    char *csv = test_read_file(path, NULL);
    struct flowset f = {.size_min = -1, .size_max = -1, .n_traffic = 1, .traffic = web};
    struct flowset_result r;
    bool ok = csv && flowset_compute(&f, csv, &r, err, sizeof err) == 0 && r.completed > 0;
    free(csv);
    if (ok) {
        *mean_fct = r.fct_ns.mean;
        *sd99 = r.slowdown.p99;
    }
    return ok;
}

/*
 * Lab 15, at the lab's size (four runs of about a second): without PFC on go-back-N (A) the all-reduce is several
 * times slower than with PFC and DCQCN (B) and go-back-N resends more than it lost; without PFC but with selective
 * repeat and spraying (C) exactly the lost packets are resent, the all-reduce and the web flows' mean FCT beat B's,
 * yet losses at a message's end wait for timeouts; trimming (D) leaves no timeout and the shortest short-flow tail.
 */
static void test_lab15(void)
{
    static const char *const tags[4] = {"l15a", "l15b", "l15c", "l15d"};
    cJSON *j[4];
    double ar[4], mean[4], sd99[4];
    for (int i = 0; i < 4; i++) {
        char file[96];
        snprintf(file, sizeof file, "15-do-we-still-need-pfc/cluster-%c.json", 'a' + i);
        j[i] = lab_run(file, NULL, tags[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j[i]);
        CU_ASSERT_EQUAL(num(j[i], "flows.completed"), num(j[i], "flows.total"));
        ar[i] = num(j[i], "collectives.0.completion_ns");
        CU_ASSERT_FATAL(lab15_web(tags[i], &mean[i], &sd99[i]));
    }
    printf("\n    all-reduce A %.2f, B %.2f, C %.2f, D %.2f ms; web FCT mean %.0f, %.0f, %.0f, %.0f us; slowdown p99 "
           "%.1f, %.1f, %.1f, %.1f ", ar[0] / 1e6, ar[1] / 1e6, ar[2] / 1e6, ar[3] / 1e6, mean[0] / 1e3, mean[1] / 1e3,
           mean[2] / 1e3, mean[3] / 1e3, sd99[0], sd99[1], sd99[2], sd99[3]);
    /* A: the seed's lesson */
    CU_ASSERT(ar[0] > 3 * ar[1] && mean[0] > 2 * mean[1]);
    CU_ASSERT(num(j[0], "packets.dropped") > 0 &&
              num(j[0], "packets.retransmitted") > 2 * num(j[0], "packets.dropped"));
    /* B: lossless, paused */
    CU_ASSERT(num(j[1], "packets.dropped") == 0 && num(j[1], "pfc.pause_frames") > 0);
    /* C: selective repeat resends what was lost, and nothing else; no PAUSE; reordered; faster than B */
    CU_ASSERT(num(j[2], "packets.dropped") > 0 && num(j[2], "packets.retransmitted") == num(j[2], "packets.dropped"));
    CU_ASSERT(num(j[2], "pfc.pause_frames") == 0 && num(j[2], "reordering.out_of_order") > 0);
    CU_ASSERT(ar[2] < 0.9 * ar[1] && mean[2] < 0.7 * mean[1]);
    CU_ASSERT(num(j[2], "packets.timeouts") > 0 && sd99[2] > sd99[1]);
    /* D: every loss trimmed, no timeout, the shortest tail of the four, the collective ahead of B's */
    CU_ASSERT(num(j[3], "packets.trimmed") > 0 && num(j[3], "packets.trimmed") == num(j[3], "packets.dropped"));
    CU_ASSERT(num(j[3], "packets.timeouts") == 0);
    CU_ASSERT(sd99[3] < sd99[0] && sd99[3] < sd99[1] && sd99[3] < sd99[2]);
    CU_ASSERT(ar[3] < 0.9 * ar[1] && mean[3] < 0.7 * mean[1]);
    for (int i = 0; i < 4; i++)
        cJSON_Delete(j[i]);
}

/* Lab 16's run of case `c` (its file, 16-roce-irn-or-uet/c.json) on one workload with extra options, into
 * lab_tmp/tag; its summary.json, or NULL. */
static cJSON *lab16_run(const char *c, const char *opts, const char *tag)
{
    char file[96];
    snprintf(file, sizeof file, "16-roce-irn-or-uet/%s.json", c);
    return lab_run(file, opts, tag);
}

/*
 * Lab 16 at the lab's size (the permutation, the incast and the all-to-all, RCCC's all-to-all left out): RoCE
 * (PFC, DCQCN, go-back-N, ECMP) drops nothing and pauses; IRN and the three UET cases never pause; every UET drop
 * is a trim answered by exactly one NACK and one resend (without timeouts no packet is sent twice); the orders the
 * README reports: on the permutation UET's tail is the shortest and RoCE's (hashed paths) the longest; on the
 * incast UET ends within 5 % of the payload's time at line rate, RoCE later, IRN last, and trimming helps IRN; on
 * the all-to-all RoCE ends first, UET with NSCC next, IRN last, its two-packet messages waiting for timeouts.
 */
static void test_lab16(void)
{
    static const char *const cases[5] = {"roce", "irn", "uet-nscc", "uet-rccc", "uet-both"};
    static const char *const wl[3] = {"perm", "incast", "a2a"};
    char opts[3][256] = {""};
    snprintf(opts[1], sizeof opts[1], "--set 'traffic=[{\"type\": \"incast\", \"id\": \"incast\", \"senders\": "
             "\"h64-h95\", \"receiver\": \"h0\", \"size\": \"1MB\"}]'");
    snprintf(opts[2], sizeof opts[2], "--set 'traffic=[{\"type\": \"alltoall\", \"id\": \"a2a\", \"hosts\": \"all\", "
             "\"size\": \"1040384B\"}]'");
    cJSON *j[3][5];
    double p99[3][5], max[3][5];
    for (int w = 0; w < 3; w++)
        for (int c = 0; c < 5; c++) {
            if (w == 2 && c >= 3)
                continue; /* the all-to-all's claims need RoCE, IRN and NSCC; RCCC's runs are the slow ones */
            char tag[32];
            snprintf(tag, sizeof tag, "l16%c%d", wl[w][0], c);
            j[w][c] = lab16_run(cases[c], opts[w], tag);
            CU_ASSERT_PTR_NOT_NULL_FATAL(j[w][c]);
            CU_ASSERT_EQUAL(num(j[w][c], "flows.completed"), num(j[w][c], "flows.total"));
            p99[w][c] = num(j[w][c], "flows.fct_ns.p99");
            max[w][c] = num(j[w][c], "flows.fct_ns.max");
            cJSON *k = j[w][c];
            if (c == 0) { /* RoCE: lossless */
                CU_ASSERT(num(k, "packets.dropped") == 0 && num(k, "packets.retransmitted") == 0);
            } else {      /* no PFC */
                CU_ASSERT(num(k, "pfc.pause_frames") == 0);
            }
            if (c >= 2) { /* UET: every drop trimmed, each trim one NACK and one resend, the rest the timeouts' */
                double trims = num(k, "packets.trimmed"), rtx = num(k, "packets.retransmitted");
                CU_ASSERT(num(k, "packets.dropped") == trims && num(k, "packets.nacks") == trims);
                CU_ASSERT(rtx >= trims && rtx <= trims + num(k, "packets.timeouts"));
                if (num(k, "packets.timeouts") == 0) /* nothing sent twice that arrived */
                    CU_ASSERT(num(k, "packets.delivered") == num(k, "packets.sent") - rtx);
            }
        }
    char incast_trim[sizeof opts[1] + 64];
    snprintf(incast_trim, sizeof incast_trim, "%s --set switch.trim.enabled=true --set switch.trim.size=64B",
             opts[1]);
    cJSON *trim = lab16_run("irn", incast_trim, "l16itr");
    CU_ASSERT_PTR_NOT_NULL_FATAL(trim);
    double a2a[3];
    for (int c = 0; c < 3; c++)
        a2a[c] = num(j[2][c], "collectives.0.completion_ns");
    printf("\n    FCT p99 perm (us): RoCE %.0f, IRN %.0f, UET nscc %.0f, rccc %.0f, both %.0f; incast ends RoCE %.0f, "
           "IRN %.0f (with trimming %.0f), UET %.0f, %.0f, %.0f; all-to-all RoCE %.0f, IRN %.0f, UET nscc %.0f ",
           p99[0][0] / 1e3, p99[0][1] / 1e3, p99[0][2] / 1e3, p99[0][3] / 1e3, p99[0][4] / 1e3, max[1][0] / 1e3,
           max[1][1] / 1e3, num(trim, "flows.fct_ns.max") / 1e3, max[1][2] / 1e3, max[1][3] / 1e3, max[1][4] / 1e3,
           a2a[0] / 1e3, a2a[1] / 1e3, a2a[2] / 1e3);
    /* permutation: hashed paths collide and pause, spread packets do not */
    CU_ASSERT(num(j[0][0], "pfc.pause_frames") > 0);
    for (int c = 2; c < 5; c++)
        CU_ASSERT(p99[0][c] < p99[0][1] && 2 * p99[0][c] < p99[0][0]);
    CU_ASSERT(p99[0][1] < p99[0][0]);
    CU_ASSERT(num(j[0][1], "packets.dropped") == 0 && num(j[0][1], "packets.retransmitted") > 0); /* only late */
    /* incast: 32 MB into one 100 Gbps link take 2.56 ms of payload; UET within 5 %, RoCE later, IRN last */
    for (int c = 2; c < 5; c++)
        CU_ASSERT(max[1][c] > 2.56e6 && max[1][c] < 1.05 * 2.56e6 && max[1][c] < max[1][0]);
    CU_ASSERT(num(j[1][0], "pfc.pause_frames") > 0 && max[1][0] < max[1][1]);
    CU_ASSERT(num(j[1][1], "packets.timeouts") > 0);
    CU_ASSERT(num(trim, "flows.fct_ns.max") < max[1][1] &&
              num(trim, "packets.timeouts") < num(j[1][1], "packets.timeouts"));
    /* all-to-all: the lossless fabric ends first, IRN's lost last packets wait for the timeout */
    CU_ASSERT(a2a[0] > 0 && a2a[0] < a2a[2] && a2a[2] < a2a[1]);
    CU_ASSERT(num(j[2][1], "packets.timeouts") > 0 && num(j[2][2], "packets.timeouts") == 0);
    cJSON_Delete(trim);
    for (int w = 0; w < 3; w++)
        for (int c = 0; c < 5; c++)
            if (w < 2 || c < 3)
                cJSON_Delete(j[w][c]);
}

void test_labs_register(void)
{
    CU_pSuite s = CU_add_suite("labs (reduced)", NULL, cleanup);
    CU_add_test(s, "lab 1: cluster A's all-reduce at least 3x cluster B's", test_lab1);
    CU_add_test(s, "lab 2: a victim flow is paused by congestion it does not cross", test_lab2);
    CU_add_test(s, "lab 3: the watchdog contains a PFC storm and restores the port", test_lab3);
    CU_add_test(s, "lab 4: the ring deadlocks; without the fourth flow it does not", test_lab4);
    CU_add_test(s, "lab 5: lower ECN thresholds give short flows a lower p99 slowdown", test_lab5);
    CU_add_test(s, "lab 6: adversarial traffic on a dragonfly needs non-minimal routing", test_lab6);
    CU_add_test(s, "lab 7: DWRR keeps training's share, checkpoint pays", test_lab7);
    CU_add_test(s, "lab 8: auto headroom is lossless; 3 m headroom on 1 km cables is not", test_lab8);
    CU_add_test(s, "lab 9: the tuner's setting beats the ConnectX defaults on every seed, not significantly on five", test_lab9);
    CU_add_test(s, "lab 10: PFC off, ECN too high and DCQCN stuck each leave their own fingerprint", test_lab10);
    CU_add_test(s, "lab 11: HPCC never pauses the all-reduce; TIMELY pauses most and ends last", test_lab11);
    CU_add_test(s, "lab 12: GDR off and NICs across NUMA cut the all-reduce; PFC off drops the all-to-all; "
                   "ECN above PFC marks nothing", test_lab12);
    CU_add_test(s, "lab 14: InfiniBand lossless unconfigured; RoCE without PFC drops; the victim fares best on RoCE",
                test_lab14);
    CU_add_test(s, "lab 15: without PFC, selective repeat and spraying beat PFC + DCQCN; trimming removes the timeouts",
                test_lab15);
    CU_add_test(s, "lab 16: UET ends the permutation and the incast first, RoCE the all-to-all; no PAUSE without PFC, "
                   "each UET trim one NACK and one resend", test_lab16);
    CU_add_test(s, "labs' plots draw the flows a lab names, no legend gives an answer away, time axes end with the traffic",
                test_lab_plots);
}
