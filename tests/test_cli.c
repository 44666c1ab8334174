/* The command line, through the real binary: exit statuses, messages, outputs. */
#include "tests/tests.h"

#include <cjson/cJSON.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int run_cmd(char **out, const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    char tail[2048];
    snprintf(tail, sizeof tail, fmt, a ? a : "", b ? b : "");
    snprintf(cmd, sizeof cmd, "%s %s", test_rocesim_bin(), tail);
    return test_run(cmd, out);
}

static void test_check_every_scenario(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *out = NULL;
        int rc = run_cmd(&out, "check %s 2>/dev/null", g.gl_pathv[i], NULL);
        if (rc != 0)
            fprintf(stderr, "\n  %s: exit %d\n", g.gl_pathv[i], rc);
        CU_ASSERT_EQUAL(rc, 0);
        cJSON *j = out ? cJSON_Parse(out) : NULL;
        CU_ASSERT_PTR_NOT_NULL(j);
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(j, "topology"));
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(j, "switch"));
        cJSON_Delete(j);
        free(out);
    }
    globfree(&g);
}

static void test_check_derived(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(run_cmd(&out, "check scenarios/incast-16to1.json", NULL, NULL), 0);
    cJSON *j = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "derived");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(d, "hosts")->valuedouble, 17);
    cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "pfc_headroom"), 0);
    /* 100 Gbps, 1 us: 49 frames of 1086 B (see the headroom unit test) */
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(h, "headroom_per_priority")->valuestring, "53.214KB");
    cJSON_Delete(j);
    free(out);
}

static void test_check_sweep_files(void)
{
    /* check validates a sweep file and every grid point's scenario */
    char *out = NULL;
    CU_ASSERT_EQUAL(run_cmd(&out, "check scenarios/sweeps/dcqcn-g-kmin.json", NULL, NULL), 0);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(j, "runs")->valuedouble, 48);
    cJSON_Delete(j);
    free(out);
    char cwd[2048];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    char path[64], cmd[128];
    snprintf(path, sizeof path, "/tmp/rocesim-badsweep-%d.json", (int)getpid()); /* concurrent runs of the suite */
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"scenario\": \"%s/scenarios/incast-16to1.json\", \"grid\": {\"switch.ecn.kmin\": [\"5KB\", \"twenty\"]},"
               " \"seeds\": [1], \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}", cwd);
    fclose(f);
    snprintf(cmd, sizeof cmd, "check %s", path);
    CU_ASSERT_EQUAL(run_cmd(&out, cmd, NULL, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "grid point 1"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "switch.ecn.kmin"));
    free(out);
    remove(path);
}

static void test_set_bad_value(void)
{
    char *out = NULL;
    int rc = run_cmd(&out, "check scenarios/incast-16to1.json --set switch.ecn.kmin=twenty", NULL, NULL);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "switch.ecn.kmin"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/incast-16to1.json"));
    free(out);
    rc = run_cmd(&out, "check scenarios/incast-16to1.json --set host.dcqcn.gg=1", NULL, NULL);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "host.dcqcn.gg"));
    free(out);
}

static void test_usage_errors(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(run_cmd(&out, "frobnicate", NULL, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "usage:"));
    free(out);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --bogus", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --stop 5", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --seed -1", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --set nonsense", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(&out, "check /nonexistent/x.json", NULL, NULL), 3);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "/nonexistent/x.json"));
    free(out);
    /* --threads: 1 to 64, and only for run */
    CU_ASSERT_EQUAL(run_cmd(&out, "run scenarios/incast-16to1.json --threads 65", NULL, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--threads expects a number from 1 to 64, got \"65\""));
    free(out);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --threads 0", NULL, NULL), 2);
    CU_ASSERT_EQUAL(run_cmd(NULL, "check scenarios/incast-16to1.json --threads 2", NULL, NULL), 2);
}

/* A network with a link of no delay has no lookahead: more than one thread is refused, naming the file, and
 * nothing is written; one thread runs it. */
static void test_threads_need_lookahead(void)
{
    char dir[] = "/tmp/rocesim-cli-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char sub[512], *out = NULL;
    snprintf(sub, sizeof sub, "%s/out", dir);
    const char *zero = "run scenarios/dumbbell.json -q --no-plot --set topology.link.delay=0ns -o %s %s";
    CU_ASSERT_EQUAL(run_cmd(&out, zero, sub, "--threads 2"), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/dumbbell.json: --threads 2: a link without delay"));
    free(out);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(sub, &st), 0);
    CU_ASSERT_EQUAL(run_cmd(NULL, zero, sub, "--threads 1"), 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
}

static void test_run_writes_outputs(void)
{
    char dir[] = "/tmp/rocesim-cli-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char sub[512];
    snprintf(sub, sizeof sub, "%s/out", dir);
    char *out = NULL;
    int rc = run_cmd(&out, "run scenarios/incast-16to1.json -q --no-plot -o %s", sub, NULL);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "16 of 16 flows finished"));
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", sub);
    char *buf = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    cJSON *flows = cJSON_GetObjectItemCaseSensitive(j, "flows");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(flows, "completed")->valuedouble, 16);
    cJSON *pk = cJSON_GetObjectItemCaseSensitive(j, "packets");
    double sent = cJSON_GetObjectItemCaseSensitive(pk, "sent")->valuedouble;
    double deliv = cJSON_GetObjectItemCaseSensitive(pk, "delivered")->valuedouble;
    double drop = cJSON_GetObjectItemCaseSensitive(pk, "dropped")->valuedouble;
    CU_ASSERT_EQUAL(sent, deliv + drop);
    CU_ASSERT(sent >= 16 * 977);
    cJSON_Delete(j);
    snprintf(path, sizeof path, "%s/flows.csv", sub);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    const char *header = "id,src,dst,priority,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,"
                         "paused_ns,acked_ns,fct_ack_ns,ideal_fct_ack_ns,slowdown_ack\n";
    CU_ASSERT_EQUAL(strncmp(csv, header, strlen(header)), 0);
    int lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 1 + 16);
    free(csv);
    free(out);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
}

static void test_bad_scenario_writes_nothing(void)
{
    char dir[] = "/tmp/rocesim-cli-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char sub[512];
    snprintf(sub, sizeof sub, "%s/out", dir);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/incast-16to1.json --set stop=5 -o %s", sub, NULL), 2);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(sub, &st), 0); /* not even the directory */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
}

/* A queue pattern that matches no switch names the switches there are, as ranges, bounded on a large fabric. */
static void test_queue_pattern_lists_switches(void)
{
    char *out = NULL;
    int rc = run_cmd(&out, "check %s --set 'monitor.queues=[\"tor9:*\"]' >/dev/null", "scenarios/allreduce-leafspine.json",
                     NULL);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: scenarios/allreduce-leafspine.json: monitor.queues.0: expected a "
                           "pattern matching a switch, got \"tor9:*\" (the switches are leaf0..leaf3, spine0..spine1; "
                           "queues are sampled at switch egress ports, \"*:*\" takes them all)\n");
    free(out);
    out = NULL;
    rc = run_cmd(&out, "check %s --set 'monitor.queues=[\"tor9:*\"]' >/dev/null", "scenarios/dragonfly.json", NULL);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "(the switches are g0r0..g0r3, g1r0..g1r3, g2r0..g2r3, g3r0..g3r3, "
                                                  "g4r0..g4r3, g5r0..g5r3, ... (36 switches); "));
    free(out);
}

/*
 * --seed 9007199254740993 (2^53 + 1) runs as itself: the run differs from 2^53's (a Poisson load draws from the
 * seed), and summary.json, scenario.json and check print it digit for digit; a seed past 2^64 - 1 is refused.
 */
static void test_seed_exact(void)
{
    char dir[] = "/tmp/rocesim-cli-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    static const char *const seeds[] = {"9007199254740992", "9007199254740993"};
    char *flows[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        char sub[600], path[700];
        snprintf(sub, sizeof sub, "%s/%s", dir, seeds[i]);
        CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/websearch-fattree.json --stop 300us -q --no-plot --seed %s -o %s "
                                      ">/dev/null", seeds[i], sub), 0);
        snprintf(path, sizeof path, "%s/flows.csv", sub);
        flows[i] = test_read_file(path, NULL);
        CU_ASSERT_PTR_NOT_NULL(flows[i]);
        char want[64];
        snprintf(path, sizeof path, "%s/summary.json", sub);
        char *t = test_read_file(path, NULL);
        snprintf(want, sizeof want, "\"seed\":\t%s,", seeds[i]);
        CU_ASSERT_PTR_NOT_NULL(t && strstr(t, want));
        free(t);
        snprintf(path, sizeof path, "%s/scenario.json", sub);
        t = test_read_file(path, NULL);
        snprintf(want, sizeof want, "\"seed\": %s,", seeds[i]);
        CU_ASSERT_PTR_NOT_NULL(t && strstr(t, want));
        free(t);
        char *out = NULL;
        CU_ASSERT_EQUAL(run_cmd(&out, "check scenarios/websearch-fattree.json --seed %s", seeds[i], NULL), 0);
        snprintf(want, sizeof want, "\"seed\":\t%s,", seeds[i]);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        free(out);
    }
    CU_ASSERT(flows[0] && flows[1] && strcmp(flows[0], flows[1]) != 0);
    free(flows[0]);
    free(flows[1]);
    char *out = NULL;
    CU_ASSERT_EQUAL(run_cmd(&out, "check scenarios/dumbbell.json --seed 18446744073709551616 2>&1 | head -1", NULL,
                            NULL), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: --seed expects an integer from 0 to 18446744073709551615, got "
                                           "\"18446744073709551616\"\n");
    free(out);
    CU_ASSERT_EQUAL(run_cmd(NULL, "check scenarios/dumbbell.json --seed ' -5'", NULL, NULL), 2);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
}

/*
 * A --set value has no length limit of its own (values of 512 bytes or more were refused as "path too long"): a
 * 4 KB string and a 4 KB array are taken; only a path longer than the loader takes is refused, and said so.
 */
static void test_set_long_values(void)
{
    static char cmd[16384], value[4200];
    memset(value, 'x', 4096);
    value[4096] = '\0';
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check scenarios/dumbbell.json --set description=%s", test_rocesim_bin(), value);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, value));
    free(out);
    size_t n = 0;
    n += (size_t)snprintf(value, sizeof value, "[");
    for (int i = 0; n < 4096; i++)
        n += (size_t)snprintf(value + n, sizeof value - n, "%s\"s%d:*\"", i ? "," : "", i % 2);
    snprintf(value + n, sizeof value - n, "]");
    snprintf(cmd, sizeof cmd, "%s check scenarios/dumbbell.json --set 'monitor.queues=%s'", test_rocesim_bin(), value);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"s1:*\""));
    free(out);
    memset(value, 'a', 300);
    value[300] = '\0';
    snprintf(cmd, sizeof cmd, "%s check scenarios/dumbbell.json --set %s=1 2>&1 | head -1", test_rocesim_bin(), value);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    char want[300];
    snprintf(want, sizeof want, "rocesim: --set expects a PATH of at most 255 characters, got 300: \"%.60s...\"\n",
             value);
    CU_ASSERT_STRING_EQUAL(out ? out : "", want);
    free(out);
}

/* --max-wall says what is wrong with a time: 99999999s is more than the largest time (it said "expects a positive
 * time"); 0s is not positive. */
static void test_max_wall_messages(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(run_cmd(&out, "run scenarios/dumbbell.json --max-wall 99999999s 2>&1 | head -1", NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: --max-wall: expected a time like \"1.5us\", got \"99999999s\" "
                                           "(too large: the largest time is about 9223372s)\n");
    free(out);
    CU_ASSERT_EQUAL(run_cmd(&out, "run scenarios/dumbbell.json --max-wall 0s 2>&1 | head -1", NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: --max-wall expects a positive time like \"10s\", got \"0s\"\n");
    free(out);
    CU_ASSERT_EQUAL(run_cmd(NULL, "run scenarios/dumbbell.json --max-wall 99999999s", NULL, NULL), 2);
}

void test_cli_register(void)
{
    CU_pSuite s = CU_add_suite("command line", NULL, NULL);
    CU_add_test(s, "check prints resolved JSON for every scenario", test_check_every_scenario);
    CU_add_test(s, "check reports derived headroom", test_check_derived);
    CU_add_test(s, "check validates sweep files point by point", test_check_sweep_files);
    CU_add_test(s, "--set with a bad value or path exits 2 naming the path", test_set_bad_value);
    CU_add_test(s, "usage errors exit 2, unreadable files 3", test_usage_errors);
    CU_add_test(s, "--threads above 1 needs a lookahead: refused for a link of no delay", test_threads_need_lookahead);
    CU_add_test(s, "run writes summary.json and flows.csv", test_run_writes_outputs);
    CU_add_test(s, "a bad scenario writes nothing", test_bad_scenario_writes_nothing);
    CU_add_test(s, "a queue pattern matching no switch lists the switches", test_queue_pattern_lists_switches);
    CU_add_test(s, "--seed 2^53 + 1 runs as itself and is printed exactly; past 2^64 - 1 refused", test_seed_exact);
    CU_add_test(s, "--set takes values of 4 KB; a path too long is refused as such", test_set_long_values);
    CU_add_test(s, "--max-wall names what is wrong: above the largest time, not positive", test_max_wall_messages);
}
