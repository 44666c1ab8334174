/*
 * The ns-3 RDMA simulator's files (tools/ops/ns3rdma_*.c, docs/ns3-rdma.md): the import of a dumbbell written from
 * that simulator's documentation (scenarios/ns3-rdma/), field by field; refusals by file and line; import -> export
 * -> import gives the same scenario; `run --format ns3-rdma` writes fct.txt with one line per flow whose values are
 * flows.csv's and whose standalone FCT is that simulator's formula worked by hand; pfc.txt has a line per PAUSE and
 * RESUME frame, at the port that received it.
 */
#include "tests/tests.h"
#include "tools/common/stats.h"
#include "tools/common/text.h"
#include "tools/ops/ns3rdma.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fuzzing harness itself (docs/RELIABILITY.md), so that a regression replays through exactly its checks. */
#define LLVMFuzzerTestOneInput fuzz_ns3rdma_one
#include "tests/fuzz/fuzz_ns3rdma.c"
#undef LLVMFuzzerTestOneInput

#define DUMBBELL "scenarios/ns3-rdma/dumbbell-config.txt"
#define INCAST "scenarios/ns3-rdma/incast-config.txt"

static cJSON *import(const char *config, const char *topo, const char *flows)
{
    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = ns3rdma_import(config, topo, flows, &o, &notes, err, sizeof err);
    if (rc)
        printf("\n    refused: %s", err);
    CU_ASSERT_EQUAL(rc, 0);
    free(notes.p);
    return o;
}

/* The compact JSON at path equals want. */
static void at_is(const cJSON *o, const char *path, const char *want)
{
    const cJSON *v = json_at_path(o, path);
    char *got = v ? cJSON_PrintUnformatted(v) : NULL;
    if (!got || strcmp(got, want))
        printf("\n    %s: got %s, want %s", path, got ? got : "(none)", want);
    CU_ASSERT_STRING_EQUAL(got ? got : "", want);
    free(got);
}

/* The dumbbell: 6 nodes (hosts 0-3, switches 4 and 5), 5 links of 100 Gbps and 1 us, two 1 MB flows at 2 s, DCQCN
 * (CC_MODE 1) with its timers, ECN maps of 400/1600 KB at 100 Gbps (KB of 1000 bytes), a 32 MiB buffer. */
static void test_dumbbell(void)
{
    cJSON *o = import(DUMBBELL, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    at_is(o, "topology.type", "\"custom\"");
    at_is(o, "topology.nodes.4", "{\"name\":\"sw4\",\"kind\":\"switch\"}");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(json_at_path(o, "topology.nodes")), 6);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(json_at_path(o, "topology.links")), 5);
    at_is(o, "topology.links.2", "{\"a\":\"sw4\",\"b\":\"sw5\",\"rate\":\"100Gbps\",\"delay\":\"1us\"}");
    at_is(o, "switch.buffer", "\"33554432B\"");
    at_is(o, "switch.ecn.kmin", "{\"100Gbps\":\"400KB\",\"400Gbps\":\"1600KB\"}");
    at_is(o, "switch.ecn.mark_on", "\"dequeue\"");
    at_is(o, "host.cc", "\"dcqcn\"");
    at_is(o, "host.mtu", "1000");
    /* ACK_HIGH_PRIO 1: that simulator's switches still queue ACKs with their data */
    at_is(o, "host.ack_priority", "\"data\"");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(json_at_path(o, "traffic")), 2);
    at_is(o, "traffic.1.src", "\"h1\"");
    at_is(o, "traffic.1.dst", "\"h3\"");
    at_is(o, "traffic.1.priority", "3");
    cJSON_Delete(o);
}

/* Bad files: one line naming the file and line, exit status 2, nothing on stdout. */
static void test_refused(void)
{
    char dir[64], cmd[5200];
    snprintf(dir, sizeof dir, "/tmp/rocesim-ns3-%d", (int)getpid());
    snprintf(cmd, sizeof cmd,
             "rm -rf %s && mkdir -p %s && cp scenarios/ns3-rdma/dumbbell-* %s/ && cd %s && "
             "sed 's/^CC_MODE 1/CC_MODE 1\\nFOO 3/' dumbbell-config.txt > c1.txt && "
             "sed 's/0 4 100Gbps/0 4 fastGbps/' dumbbell-topology.txt > t2.txt && "
             "printf '3\\n0 2 3 100 1000000 2\\n' > f3.txt && "
             "sed 's/^CC_MODE 1/CC_MODE 10/' dumbbell-config.txt > c4.txt && "
             "printf '2\\n0 2 0 100 1000000 2\\n1 3 3 100 1000000 2\\n' > f5.txt && "
             "printf '0\\n0 2 3 100 1000000 2\\n' > f6.txt && "
             "sed 's/^RATE_HAI .*/RATE_HAI 0Mb\\/s/' dumbbell-config.txt > c7.txt && "
             "printf '11 1 10\\n10\\n0 10 10Gbps 0.001ms 0\\n1 10 20Gbps 0.001ms 0\\n2 10 30Gbps 0.001ms 0\\n"
             "3 10 40Gbps 0.001ms 0\\n4 10 50Gbps 0.001ms 0\\n5 10 60Gbps 0.001ms 0\\n6 10 70Gbps 0.001ms 0\\n"
             "7 10 80Gbps 0.001ms 0\\n8 10 90Gbps 0.001ms 0\\n9 10 100Gbps 0.001ms 0\\n' > t8.txt",
             dir, dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"c1.txt", "rocesim: c1.txt:8: FOO: not a key of the ns-3 RDMA simulator's config (third.cc reads none such)"},
        {"dumbbell-config.txt --topology t2.txt", "rocesim: t2.txt:3: expected a link rate like 100Gbps, got "
                                                  "\"fastGbps\""},
        {"dumbbell-config.txt --flows f3.txt", "rocesim: f3.txt:2: expected a flow's source node, got the end of the "
                                               "file"},
        {"c4.txt", "rocesim: c4.txt:7: CC_MODE 10 (HPCC-PINT): not modelled (rocesim's HPCC carries whole INT "
                   "records)"},
        {"dumbbell-config.txt --flows f5.txt", "rocesim: f5.txt:2: priority 0: the reference's control queue, never "
                                               "paused nor ECN-marked, which rocesim does not give data flows"},
        /* the loader refuses a scenario without traffic (found by fuzz_ns3rdma) */
        {"dumbbell-config.txt --flows f6.txt", "rocesim: f6.txt:1: a flow count of 0: a rocesim scenario needs at "
                                               "least one flow"},
        {"c7.txt", "rocesim: c7.txt:15: RATE_HAI 0: rocesim's DCQCN takes it above 0"},
        /* settings by rate hold 8 rates (found by fuzz_ns3rdma) */
        {"dumbbell-config.txt --topology t8.txt --flows dumbbell-flow.txt", "rocesim: t8.txt: the switches' links run "
         "at 10 different rates; rocesim's settings by rate (ECN thresholds, PFC alpha and headroom) take at most 8"},
    };
    char bin[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(test_rocesim_bin(), bin)); /* the runs below are in dir */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        snprintf(cmd, sizeof cmd, "cd %s && %s import ns3-rdma %s 2>&1 >/dev/null", dir, bin, bad[i].args);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        size_t n = out ? strlen(out) : 0;
        if (n && out[n - 1] == '\n')
            out[--n] = '\0';
        if (!out || strcmp(out, bad[i].msg))
            printf("\n    got  %s\n    want %s", out ? out : "(none)", bad[i].msg);
        CU_ASSERT_STRING_EQUAL(out ? out : "", bad[i].msg);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/* import -> export -> import: the same scenario but its name and description (the files' names). */
static void test_round_trip(void)
{
    char dir[64], cmd[1024], path[128];
    snprintf(dir, sizeof dir, "/tmp/rocesim-ns3rt-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && %s import ns3-rdma " DUMBBELL " --out %s/a.json 2>/dev/null "
             "&& %s export ns3-rdma %s/a.json -o %s/files 2>/dev/null", dir, dir, test_rocesim_bin(), dir,
             test_rocesim_bin(), dir, dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/a.json", dir);
    char *a = test_read_file(path, NULL);
    cJSON *first = a ? cJSON_Parse(a) : NULL;
    snprintf(path, sizeof path, "%s/files/config.txt", dir);
    cJSON *again = import(path, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    for (int k = 0; k < 2; k++) {
        cJSON_DeleteItemFromObjectCaseSensitive(k ? again : first, "name");
        cJSON_DeleteItemFromObjectCaseSensitive(k ? again : first, "description");
    }
    bool same = cJSON_Compare(first, again, true);
    if (!same) {
        char *x = cJSON_PrintUnformatted(first), *y = cJSON_PrintUnformatted(again);
        printf("\n    first %s\n    again %s", x, y);
        free(x);
        free(y);
    }
    CU_ASSERT(same);
    cJSON_Delete(first);
    cJSON_Delete(again);
    free(a);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/* Field k (0-based, space-separated) of line as an unsigned number. */
static unsigned long long field(const char *line, int k)
{
    const char *p = line;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ' ');
        p = p ? p + 1 : NULL;
    }
    return p ? strtoull(p, NULL, 0) : 0;
}

/* A run of an imported experiment, in a directory of its own under /tmp. */
struct run_dir {
    char dir[96];
};

/*
 * Imports CONFIG (with a flow file of text `flows` instead of its own when not NULL) and runs it with --format
 * ns3-rdma and the --set arguments `sets` ("" for none) into d->dir/out; the test stops when either fails.
 */
static void run_imported(struct run_dir *d, const char *tag, const char *config, const char *flows, const char *sets)
{
    char cmd[2048], with[200] = "";
    snprintf(d->dir, sizeof d->dir, "/tmp/rocesim-ns3%s-%d", tag, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", d->dir, d->dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    if (flows) {
        char path[160];
        snprintf(path, sizeof path, "%s/flows.txt", d->dir);
        test_write_text(path, flows);
        snprintf(with, sizeof with, "--flows %s", path);
    }
    snprintf(cmd, sizeof cmd, "%s import ns3-rdma %s %s --out %s/s.json 2>/dev/null && %s run %s/s.json --format "
             "ns3-rdma %s -q --no-plot -o %s/out > /dev/null", test_rocesim_bin(), config, with, d->dir,
             test_rocesim_bin(), d->dir, sets, d->dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
}

/* The text of the run's output `name` (caller frees); the test stops when there is none. */
static char *run_file(const struct run_dir *d, const char *name)
{
    char path[200];
    snprintf(path, sizeof path, "%s/out/%s", d->dir, name);
    char *t = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}

static void run_remove(const struct run_dir *d)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d->dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

/* fct.txt's lines, their bytes and the last FCT; each line's standalone FCT must be `standalone` (0: any). */
struct fct_sum {
    int lines;
    unsigned long long bytes;
    double last;
};

static struct fct_sum fct_sum(const struct run_dir *d, unsigned long long standalone)
{
    char *t = run_file(d, "fct.txt");
    struct fct_sum s = {0};
    for (const char *l = t; *l; l = strchr(l, '\n') + 1) {
        double f = (double)field(l, 6);
        s.last = f > s.last ? f : s.last;
        s.bytes += field(l, 4);
        s.lines++;
        if (standalone)
            CU_ASSERT_EQUAL(field(l, 7), standalone);
    }
    free(t);
    return s;
}

/*
 * fct.txt of the dumbbell: one line per flow, "%08x %08x sport dport size start fct standalone".  h0 (node 0) to h2
 * (node 2): 0b000001 0b000201 (0x0b000001 + 0x100 x id), sport 10000, dport 100, 1000000 bytes from 2 s, the FCT
 * flows.csv's fct_ack_ns truncated, and the standalone FCT that simulator's formula over h0 -> sw4 -> sw5 -> h2:
 * base RTT = 2 x 3 us + 3 x 1000 x 8 / 100 Gbps = 6240 ns; 1000 packets of 1000 bytes + 48 of headers: 1,048,000 x
 * 8 / 100 Gbps = 83,840 ns; 90,080 ns.
 */
static void test_fct_txt(void)
{
    struct run_dir d;
    run_imported(&d, "run", DUMBBELL, NULL, "");
    char *fct = run_file(&d, "fct.txt"), *flows = run_file(&d, "flows.csv");
    /* two lines, no more, in the order the flows completed: find each by its sender's address */
    char *first = fct, *second = strchr(first, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(second);
    second++;
    CU_ASSERT_PTR_NOT_NULL_FATAL(strchr(second, '\n'));
    CU_ASSERT_EQUAL(strchr(strchr(second, '\n'), '\0') - strchr(second, '\n'), 1);
    bool h0_first = !strncmp(first, "0b000001 ", 9);
    char *l1 = h0_first ? first : second, *l2 = h0_first ? second : first;
    CU_ASSERT_EQUAL(strncmp(l1, "0b000001 0b000201 10000 100 1000000 2000000000 ", 47), 0);
    CU_ASSERT_EQUAL(strncmp(l2, "0b000101 0b000301 10000 100 1000000 2000000000 ", 47), 0);
    CU_ASSERT_EQUAL(field(l1, 7), 90080);
    CU_ASSERT_EQUAL(field(l2, 7), 90080);
    /* the FCTs are flows.csv's fct_ack_ns (its 15th column), truncated; flows.csv lists f0 (h0's), then f1 */
    const char *row = strchr(flows, '\n') + 1;
    for (int i = 0; i < 2; i++) {
        const char *c = row;
        for (int k = 0; k < 14; k++)
            c = strchr(c, ',') + 1;
        unsigned long long want = (unsigned long long)strtod(c, NULL);
        CU_ASSERT_EQUAL(field(i ? l2 : l1, 6), want);
        row = strchr(row, '\n') + 1;
    }
    free(fct);
    free(flows);
    run_remove(&d);
}

/*
 * pfc.txt of the 16-to-1 incast with a 1 MB buffer and no ECN, so that the switch pauses its senders: as many lines
 * as PAUSE and RESUME frames, each at the host the switch paused (sw17's port k leads to h(k), node k, ifindex 1),
 * and all 16 flows complete (16 lines of fct.txt).
 */
static void test_pfc_txt(void)
{
    struct run_dir d;
    run_imported(&d, "pfc", INCAST, NULL, "--set switch.buffer=1MB --set switch.ecn.enabled=false");
    char *pfc = run_file(&d, "pfc.txt"), *sum = run_file(&d, "summary.json");
    cJSON *s = cJSON_Parse(sum);
    double frames = cJSON_GetNumberValue(json_at_path(s, "pfc.pause_frames")) +
                    cJSON_GetNumberValue(json_at_path(s, "pfc.resume_frames"));
    int lines = 0, pauses = 0, bad = 0;
    for (const char *l = pfc; *l; l = strchr(l, '\n') + 1) {
        unsigned long long t;
        unsigned node, type, ifindex, ev;
        if (sscanf(l, "%llu %u %u %u %u", &t, &node, &type, &ifindex, &ev) != 5 || node < 1 || node > 16 || type ||
            ifindex != 1 || ev > 1)
            bad++;
        pauses += ev == 1;
        lines++;
    }
    int flows = fct_sum(&d, 0).lines;
    printf("\n    %d lines of pfc.txt (%d PAUSE), %.0f frames in summary.json; %d flows in fct.txt ", lines, pauses,
           frames, flows);
    CU_ASSERT(lines > 0);
    CU_ASSERT_EQUAL(lines, (int)frames);
    CU_ASSERT_EQUAL((double)pauses, cJSON_GetNumberValue(json_at_path(s, "pfc.pause_frames")));
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(flows, 16);
    cJSON_Delete(s);
    free(pfc);
    free(sum);
    run_remove(&d);
}

/*
 * The same experiment in both simulators: TIMELY as that simulator's run.py configures it at 100 Gbps (CC_MODE 7,
 * RATE_AI 100 Mb/s, RATE_HAI 500 Mb/s, MIN_RATE 1000 Mb/s, 1000-byte payloads), two 20 MB flows from hosts 0 and 1
 * into host 2 behind one switch, 1 us links (scenarios/ns3-rdma/timely-*.txt, written from its documentation).
 * That simulator's fct.txt, measured (docs/VALIDATION.md): 3.874945 and 3.970734 ms, 1.680960 ms for a flow alone,
 * whose standalone FCT is the same 1,680,960 ns: the last flow takes 1.181 x two flows alone.  Imported and run here
 * with --format ns3-rdma: the standalone FCT to the ns, and the ratio within 3 % (the frames' headers differ: 82
 * bytes here, about 50 there, which the ratio sets aside).
 */
static void test_timely_both(void)
{
    struct run_dir two, one;
    run_imported(&two, "tim2", "scenarios/ns3-rdma/timely-config.txt", NULL, "");
    run_imported(&one, "tim1", "scenarios/ns3-rdma/timely-config.txt", "1\n0 2 3 100 20000000 2\n", "");
    double last = fct_sum(&two, 1680960).last, alone = fct_sum(&one, 1680960).last;
    double ratio = last / (2 * alone), ref = 3970734.0 / (2 * 1680960.0);
    printf("\n    last of two %.0f ns, alone %.0f ns: %.3f x two alone (that simulator %.3f) ", last, alone, ratio, ref);
    CU_ASSERT(fabs(ratio / ref - 1) <= 0.03);
    run_remove(&two);
    run_remove(&one);
}

/*
 * The 16-to-1 DCQCN incast in both (scenarios/ns3-rdma/incast-*.txt, run unchanged in that simulator here, its
 * fct.txt in docs/ns3-rdma.md): its last flow ends 932,434 ns after the start; imported (its DCQCN machine) and
 * run here, within 5 %; the standalone FCT of each line is its 46,080 ns (2 x 2 us + 2 x 80 ns of the payload's hops
 * + 500 packets of 1048 bytes at 100 Gbps).
 */
static void test_incast_both(void)
{
    struct run_dir d;
    run_imported(&d, "inc", INCAST, NULL, "");
    struct fct_sum f = fct_sum(&d, 46080);
    printf("\n    %d flows, the last %.0f ns (that simulator 932434 ns) ", f.lines, f.last);
    CU_ASSERT_EQUAL(f.lines, 16);
    CU_ASSERT(fabs(f.last / 932434.0 - 1) <= 0.05);
    run_remove(&d);
}

/*
 * The DCQCN dumbbell in both (scenarios/ns3-rdma/dumbbell-*.txt): in that simulator's fct.txt the flows end at
 * 394,671 and 434,444 ns; imported (its DCQCN machine: host.dcqcn preset "ns3", timing "periodic") and run here,
 * the first and the last to end each within 5 % of those.  With rocesim's own timing the first flow ended at
 * 214,783 ns, 46 % early.
 */
static void test_dumbbell_both(void)
{
    struct run_dir d;
    run_imported(&d, "db", DUMBBELL, NULL, "");
    char *t = run_file(&d, "fct.txt");
    const char *l2 = strchr(t, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(l2);
    /* the first and the last to end: the two flows are alike, and which of them ends first is a tie either
     * simulator breaks its own way (there h0's, here h1's) */
    double f[2] = {(double)field(t, 6), (double)field(l2 + 1, 6)}, ref[2] = {394671, 434444};
    printf("\n    %.0f and %.0f ns (that simulator %.0f and %.0f) ", f[0], f[1], ref[0], ref[1]);
    for (int i = 0; i < 2; i++)
        CU_ASSERT(fabs(f[i] / ref[i] - 1) <= 0.05);
    free(t);
    run_remove(&d);
}

/*
 * The leaf-spine WebSearch load (scenarios/ns3-rdma/websearch-*.txt): 367 flows imported, all complete, one line
 * each in fct.txt, their sizes the flow file's total; a pair's later flows take source ports 10001, 10002 as in
 * that simulator's fct.txt of the same flows (314, 48 and 5 lines).  The slowdowns (FCT over standalone FCT) against
 * that simulator's fct.txt of the same files (docs/ns3-rdma.md): median 2.17 over all flows, 1.40 over the 189 of
 * at most 100 KB; here within 10 % of each.  Both depend on ACKs sharing the data's queues at the switches, as
 * there: with ACKs above data they were 1.63 and 1.22.
 */
static void test_websearch(void)
{
    struct run_dir d;
    run_imported(&d, "ws", "scenarios/ns3-rdma/websearch-config.txt", NULL, "");
    struct fct_sum f = fct_sum(&d, 0);
    CU_ASSERT_EQUAL(f.lines, 367);
    CU_ASSERT_EQUAL(f.bytes, 617336709ull); /* the flow file's sizes, summed */
    char *t = run_file(&d, "fct.txt");
    int ports[3] = {0, 0, 0}, n = 0, n_short = 0;
    double all[367], shorts[367];
    for (const char *l = t; *l; l = strchr(l, '\n') + 1) {
        unsigned long long sp = field(l, 2);
        if (sp >= 10000 && sp <= 10002)
            ports[sp - 10000]++;
        if (n < 367 && field(l, 7) > 0) {
            double sd = (double)field(l, 6) / (double)field(l, 7);
            all[n++] = sd;
            if (field(l, 4) <= 100000)
                shorts[n_short++] = sd;
        }
    }
    CU_ASSERT(ports[0] == 314 && ports[1] == 48 && ports[2] == 5);
    CU_ASSERT_EQUAL(n, 367);
    CU_ASSERT_EQUAL(n_short, 189);
    /* nearest rank, the middle value of an odd count, as the docs' interpolated medians of these counts */
    double m = stats_nearest_rank(all, (size_t)n).p50, ms = stats_nearest_rank(shorts, (size_t)n_short).p50;
    printf("\n    slowdown median %.2f (that simulator 2.17), flows of at most 100 KB %.2f (1.40) ", m, ms);
    CU_ASSERT(fabs(m / 2.17 - 1) <= 0.10);
    CU_ASSERT(fabs(ms / 1.40 - 1) <= 0.10);
    free(t);
    run_remove(&d);
}

/* A config whose file name is not UTF-8, or whose stem is "..": the scenario's name and description are ones the
 * loader takes ('?' for the byte, the command's name for ".."), and the scenario loads. */
static void test_file_names(void)
{
    static const char *const names[] = {"r\xe9seau-config.txt", "...txt"}, *const want[] = {"\"r?seau-config\"",
                                                                                          "\"ns3-rdma\""};
    char dir[64], cmd[512], path[160];
    snprintf(dir, sizeof dir, "/tmp/rocesim-ns3name-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(cmd, sizeof cmd, "cp %s '%s'", DUMBBELL, path);
        CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
        cJSON *o = import(path, "scenarios/ns3-rdma/dumbbell-topology.txt", "scenarios/ns3-rdma/dumbbell-flow.txt");
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        at_is(o, "name", want[i]);
        CU_ASSERT(test_json_loads(o));
        cJSON_Delete(o);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* ECN maps of more rates than rocesim's settings by rate hold (9 here): the rates of the switches' links are kept
 * (the dumbbell's 100 Gbps), with a note, and the scenario loads. */
static void test_long_maps(void)
{
    char dir[64], cmd[2048], path[128], err[SCN_ERR_MAX];
    snprintf(dir, sizeof dir, "/tmp/rocesim-ns3maps-%d", (int)getpid());
    snprintf(path, sizeof path, "%s/c.txt", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && sed -e '/^K..._MAP\\|^PMAX_MAP/d' %s > %s && for k in KMIN KMAX PMAX; do "
             "printf \"${k}_MAP 9\"; for r in 1 2 3 4 5 6 7 8 100; do printf ' %%s000000000 ' $r; "
             "[ $k = PMAX ] && printf 0.2 || { [ $k = KMIN ] && printf 400 || printf 1600; }; done; echo; done >> %s",
             dir, DUMBBELL, path, path);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    cJSON *o = NULL;
    struct sbuf notes = {0};
    CU_ASSERT_EQUAL(ns3rdma_import(path, "scenarios/ns3-rdma/dumbbell-topology.txt",
                                   "scenarios/ns3-rdma/dumbbell-flow.txt", &o, &notes, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    at_is(o, "switch.ecn.kmin", "{\"100Gbps\":\"400KB\"}");
    at_is(o, "switch.ecn.kmax", "{\"100Gbps\":\"1600KB\"}");
    at_is(o, "switch.ecn.pmax", "{\"100Gbps\":0.2}");
    CU_ASSERT_PTR_NOT_NULL(notes.p && strstr(notes.p, "KMIN_MAP has 9 rates; only those of the switches' links are "
                                                     "kept"));
    CU_ASSERT(test_json_loads(o));
    free(notes.p);
    cJSON_Delete(o);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The fuzzer's seeds (the example runs) and every finding of it (tests/fuzz/regressions/ns3rdma-*) replay clean
 * through its harness. */
static void test_harness_replay(void)
{
    CU_ASSERT(test_fuzz_replay("tests/fuzz/seeds", "ns3rdma-", ".txt", fuzz_ns3rdma_one) >= 4);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "ns3rdma-", ".txt", fuzz_ns3rdma_one) >= 1);
}

void test_ns3_import_register(void)
{
    CU_pSuite s = CU_add_suite("ns3-rdma import", NULL, NULL);
    CU_add_test(s, "a dumbbell's config, topology and flow files: the scenario's fields", test_dumbbell);
    CU_add_test(s, "malformed and refused input: file and line, exit 2", test_refused);
    CU_add_test(s, "import, export, import: the same scenario", test_round_trip);
    CU_add_test(s, "run --format ns3-rdma: fct.txt as flows.csv says, standalone FCT by that simulator's formula",
                test_fct_txt);
    CU_add_test(s, "run --format ns3-rdma: pfc.txt has every PAUSE and RESUME at its receiving port", test_pfc_txt);
    CU_add_test(s, "TIMELY in both simulators: imported, standalone FCT to the ns, two flows within 3 % of its ratio",
                test_timely_both);
    CU_add_test(s, "the 16-to-1 DCQCN incast in both simulators: the last flow within 5 %, standalone FCT to the ns",
                test_incast_both);
    CU_add_test(s, "the two-flow DCQCN dumbbell in both simulators: the first and last to end within 5 %",
                test_dumbbell_both);
    CU_add_test(s, "a leaf-spine WebSearch load: every one of its 367 flows in fct.txt", test_websearch);
    CU_add_test(s, "ECN maps of more rates than a setting by rate holds: the switches' rates kept, with a note",
                test_long_maps);
    CU_add_test(s, "config files named in another encoding or \"..\": a name and description the loader takes",
                test_file_names);
    CU_add_test(s, "the fuzzer's seeds and regressions replay clean through its harness", test_harness_replay);
}
