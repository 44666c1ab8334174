/*
 * Sweeps and nic-config, through the real binary: a small grid runs in
 * parallel, best.json agrees with results.csv, a bad value fails only its
 * point, a rerun starts nothing, MPI ranks give the same rows; and the unit
 * conversions of nic-config, in-process and from the command line.
 */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/common/dirlock.h"
#include "tools/ops/nicconfig.h"

#include "tools/run/run.h"
#include "tools/explore/metric.h"
#include "tools/explore/sweep_out.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The fuzzing harness of sweep and tune files (docs/RELIABILITY.md), so that a finding replays through its checks. */
#define LLVMFuzzerTestOneInput fuzz_spec_one
#include "tests/fuzz/fuzz_spec.c"
#undef LLVMFuzzerTestOneInput

/* The local sweep's output directory, kept for the rerun and MPI tests (one temporary root per test run). */
static char root[64];
static char grid_file[128], grid_out[160];

static int suite_init(void)
{
    snprintf(root, sizeof root, "/tmp/rocesim-sweep-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    snprintf(grid_file, sizeof grid_file, "%s/grid.json", root);
    snprintf(grid_out, sizeof grid_out, "%s/grid", root);
    return 0;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

/* Splits a CSV line without quoted cells into at most max fields (in place); returns the count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int col(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0)
            return i;
    return -1;
}

static const char grid_json[] =
    "{\n"
    "  \"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
    "  \"grid\": {\"host.dcqcn.g\": [0.00390625, 0.25], \"switch.ecn.kmin\": [\"5KB\", \"50KB\"]},\n"
    "  \"seeds\": [1, 2],\n"
    "  \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}\n"
    "}\n";

/* 2 parameters x 2 values x 2 seeds with -j 2: 8 rows, and best.json is the point with the lowest mean. */
static void test_grid(void)
{
    test_write_text(grid_file, grid_json);
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s sweep %s -j 2 -o %s -q", test_rocesim_bin(), grid_file, grid_out);
    int rc = test_run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "8 runs (4 grid points x 2 seeds): 8 ok, 0 failed"));
    free(out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);

    char path[256];
    snprintf(path, sizeof path, "%s/results.csv", grid_out);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    char *hdr[400];
    int nh = split(line, hdr, 400);
    CU_ASSERT_STRING_EQUAL(hdr[0], "host.dcqcn.g");
    CU_ASSERT_STRING_EQUAL(hdr[1], "switch.ecn.kmin");
    CU_ASSERT_STRING_EQUAL(hdr[2], "seed");
    CU_ASSERT_STRING_EQUAL(hdr[3], "status");
    int c_obj = col(hdr, nh, "flows.fct_ns.mean");
    CU_ASSERT_FATAL(c_obj > 3);
    CU_ASSERT_EQUAL(col(hdr, nh, "wall_s"), -1);       /* wall-clock fields would make the file differ */
    CU_ASSERT_EQUAL(col(hdr, nh, "events_per_s"), -1);
    /* Recompute each point's mean from the rows; rows come in grid order, seeds innermost. */
    double sum[4] = {0}, best = INFINITY;
    int rows = 0, best_p = -1;
    char *g_of[4] = {0}, *k_of[4] = {0};
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[400];
        int nf = split(line, f, 400);
        CU_ASSERT_EQUAL(nf, nh);
        CU_ASSERT_STRING_EQUAL(f[3], "ok");
        CU_ASSERT_STRING_EQUAL(f[2], rows % 2 ? "2" : "1");
        if (rows < 8 && nf > c_obj) {
            sum[rows / 2] += atof(f[c_obj]);
            g_of[rows / 2] = f[0];
            k_of[rows / 2] = f[1];
        }
        rows++;
    }
    CU_ASSERT_EQUAL_FATAL(rows, 8);
    CU_ASSERT_STRING_EQUAL(g_of[0], "0.00390625");
    CU_ASSERT_STRING_EQUAL(k_of[1], "50KB");
    for (int p = 0; p < 4; p++)
        if (sum[p] / 2 < best) {
            best = sum[p] / 2;
            best_p = p;
        }

    snprintf(path, sizeof path, "%s/best.json", grid_out);
    char *bj = test_read_file(path, NULL);
    cJSON *j = bj ? cJSON_Parse(bj) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    double mean = cJSON_GetObjectItemCaseSensitive(j, "mean")->valuedouble;
    CU_ASSERT_DOUBLE_EQUAL(mean, best, 1e-6 * fabs(best));
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(j, "index")->valueint, best_p);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(j, "n")->valueint, 2);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "parameters");
    const cJSON *kmin = cJSON_GetObjectItemCaseSensitive(params, "switch.ecn.kmin");
    CU_ASSERT(cJSON_IsString(kmin) && strcmp(kmin->valuestring, k_of[best_p]) == 0);
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(j, "values");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(vals), 2);
    /* every run is in: the best point is the sweep's */
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(j, "runs_done");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(j, "runs_total");
    CU_ASSERT(cJSON_IsNumber(done) && done->valueint == 8);
    CU_ASSERT(cJSON_IsNumber(total) && total->valueint == 8);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(j, "incomplete_reason"));
    double mn = cJSON_GetObjectItemCaseSensitive(j, "min")->valuedouble;
    double mx = cJSON_GetObjectItemCaseSensitive(j, "max")->valuedouble;
    CU_ASSERT(mn <= mean && mean <= mx);
    cJSON_Delete(j);
    free(bj);
    free(csv);
    /* Plots, when gnuplot is there: one per parameter and a heatmap for the two-dimensional grid. */
    if (test_run("command -v gnuplot >/dev/null", NULL) == 0) {
        struct stat st;
        snprintf(path, sizeof path, "%s/plots/heatmap.png", grid_out);
        CU_ASSERT_EQUAL(stat(path, &st), 0);
        snprintf(path, sizeof path, "%s/plots/objective_vs_1.png", grid_out);
        CU_ASSERT_EQUAL(stat(path, &st), 0);
    }
}

/* A rerun into the same directory starts no run, touches no run's files and writes the same results. */
static void test_rerun_skips(void)
{
    char path[256], cmd[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/results.csv", grid_out);
    char *before = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    char glob_cmd[512];
    snprintf(glob_cmd, sizeof glob_cmd, "stat -c '%%n %%Y.%%y' %s/runs/*/summary.json", grid_out);
    char *mt1 = NULL, *mt2 = NULL;
    CU_ASSERT_EQUAL(test_run(glob_cmd, &mt1), 0);
    snprintf(cmd, sizeof cmd, "%s sweep %s -j 2 -o %s -q", test_rocesim_bin(), grid_file, grid_out);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "8 already done, 0 started"));
    CU_ASSERT_EQUAL(test_run(glob_cmd, &mt2), 0);
    CU_ASSERT(mt1 && mt2 && strcmp(mt1, mt2) == 0);
    char *after = test_read_file(path, NULL);
    CU_ASSERT(after && strcmp(before, after) == 0);
    /* A run left by a rocesim whose results differ (here: one from before results_version) runs again. */
    free(out);
    out = NULL;
    snprintf(cmd, sizeof cmd, "f=$(ls -d %s/runs/*/ | head -1)summary.json && sed -i '/\"results_version\"/d' $f",
             grid_out);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s sweep %s -j 2 -o %s -q", test_rocesim_bin(), grid_file, grid_out);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "7 already done, 1 started"));
    char *again = test_read_file(path, NULL);
    CU_ASSERT(again && strcmp(before, again) == 0);
    free(again);
    /* `rocesim plot DIR` redraws a sweep's plots from its sweep.json and summaries, running nothing. */
    free(out);
    out = NULL;
    snprintf(cmd, sizeof cmd, "%s plot %s", test_rocesim_bin(), grid_out);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "plots: "));
    free(before);
    free(after);
    free(mt1);
    free(mt2);
    free(out);
}

/* A point with a bad value fails (exit 2 of its runs, recorded with the message) and the others finish. */
static void test_bad_point(void)
{
    char file[160], dir[160], cmd[1024], *out = NULL;
    snprintf(file, sizeof file, "%s/bad.json", root);
    snprintf(dir, sizeof dir, "%s/bad", root);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                     " \"grid\": {\"switch.ecn.kmin\": [\"5KB\", \"twenty\", \"20KB\"]},\n"
                     " \"seeds\": [1], \"objective\": {\"maximize\": \"flows.completed\"}}\n");
    snprintf(cmd, sizeof cmd, "%s sweep %s -j 2 -o %s -q", test_rocesim_bin(), file, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "2 ok, 1 failed"));
    free(out);
    char path[256];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n5KB,1,ok,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\ntwenty,1,exit 2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n20KB,1,ok,"));
    free(csv);
    snprintf(path, sizeof path, "%s/failures.txt", dir);
    char *fail = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(fail && strstr(fail, "expected a size like \"20KB\", got \"twenty\""));
    free(fail);
    snprintf(path, sizeof path, "%s/best.json", dir);
    char *bj = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(bj && strstr(bj, "\"switch.ecn.kmin\":\t\"5KB\"")); /* a tie goes to the first point */
    free(bj);
}

/* Bad sweep files and options exit 2 with the file and the JSON path in the message. */
static void test_bad_sweep_files(void)
{
    static const struct {
        const char *json, *expect;
    } cases[] = {
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"host.dcqcn.g\": [0.1, 0.1]}, "
         "\"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}", "grid[\"host.dcqcn.g\"][1]: expected each value once"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"host.dcqcn.g\": [0.1]}, \"seeds\": [1.5], "
         "\"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}", "seeds[0]: expected an integer"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"host.dcqcn.g\": [0.1]}, "
         "\"objective\": {\"best\": \"x\"}}", "objective: expected the key \"minimize\" or \"maximize\""},
        {"{\"scenario\": \"no/such.json\", \"grid\": {\"host.dcqcn.g\": [0.1]}, "
         "\"objective\": {\"minimize\": \"x\"}}", "scenario: expected a readable scenario file"},
        /* a misspelt path is found in the settings tables, at its key, in the scenario loader's words */
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"host.dcqcn.gg\": [0.1]}, "
         "\"objective\": {\"minimize\": \"x\"}}",
         "grid[\"host.dcqcn.gg\"]: expected one of the fields preset, g, alpha_init, alpha_timer, rate_increase_timer, "
         "byte_counter, fast_recovery_steps, ai_rate, hai_rate, min_rate, rate_on_first_cnp, min_dec_factor, "
         "clamp_target_rate, cnp_interval, rate_reduce_monitor_period, clamp_target_rate_after_timer, timing, "
         "got unknown field \"gg\""},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"switch.ecn.kmin, swich.ecn.kmax\": "
         "[[\"5KB\", \"10KB\"]]}, \"objective\": {\"minimize\": \"x\"}}",
         "grid[\"switch.ecn.kmin, swich.ecn.kmax\"]: expected one of the fields name, description, seed, stop, "
         "fabric, ib, ethernet, topology, switch, host, profiles, traffic, triggers, faults, monitor, derived, got "
         "unknown field \"swich\""},
        /* below a field that is no group (a traffic entry) the loader judges, and no point loads */
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"traffic.0.sise\": [\"1MB\"]}, "
         "\"objective\": {\"minimize\": \"x\"}}", "grid: expected at least one grid point that gives a valid"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"switch.ecn.kmin,switch.ecn.kmax\": "
         "[[\"5KB\"]]}, \"objective\": {\"minimize\": \"x\"}}",
         "grid[\"switch.ecn.kmin,switch.ecn.kmax\"][0]: expected an array of 2 values"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grids\": {}}",
         "grids: expected one of the fields scenario, grid, seeds, objective, description, got unknown field"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"seeds\": [1], \"seeds\": [2]}",
         "seeds: expected each key once in an object, got \"seeds\" twice"},
        /* a key with a newline: the message stays one line (as the scenario loader's do) */
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"bad\\nkey\": [1, 2]}}",
         "grid[\"bad?key\"]: expected a dotted scenario path"},
    };
    char file[160], cmd[1024];
    snprintf(file, sizeof file, "%s/broken.json", root);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        test_write_text(file, cases[i].json);
        snprintf(cmd, sizeof cmd, "%s sweep %s -o %s/broken -q", test_rocesim_bin(), file, root);
        char *out = NULL;
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        bool ok = out && strstr(out, file) && strstr(out, cases[i].expect);
        if (!ok)
            fprintf(stderr, "\n  case %zu: %s\n", i, out ? out : "(no output)");
        CU_ASSERT(ok);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "%s sweep %s -j 0", test_rocesim_bin(), grid_file);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    snprintf(cmd, sizeof cmd, "%s sweep %s --timeout 5", test_rocesim_bin(), grid_file);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
}

/* `rocesim check` tells a sweep file from a scenario however long the file is (a 70 KB comment first). */
static void test_check_long_sweep_file(void)
{
    static char text[72000];
    int len = snprintf(text, sizeof text, "// ");
    memset(text + len, 'x', 70000);
    len += 70000;
    snprintf(text + len, sizeof text - (size_t)len,
             "\n{\"scenario\": \"scenarios/dumbbell.json\", \"grid\": {\"switch.ecn.kmin\": [\"10KB\", \"20KB\"]},"
             " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}}\n");
    char file[160], cmd[400];
    snprintf(file, sizeof file, "%s/long-sweep.json", root);
    test_write_text(file, text);
    snprintf(cmd, sizeof cmd, "%s check %s", test_rocesim_bin(), file);
    char *out = NULL;
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"sweep\""));
    free(out);
}

/* mpirun -np 3 over rocesim-mpi writes the same results.csv as the local sweep (skipped without OpenMPI). */
static void test_mpi_same_rows(void)
{
    const char *bin = test_mpi_bin("the MPI sweep test");
    if (!bin)
        return;
    char dir[160], cmd[1024], *out = NULL;
    snprintf(dir, sizeof dir, "%s/mpi", root);
    snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe -np 3 %s sweep %s -j 1 -o %s -q", bin,
             grid_file, dir);
    int rc = test_run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "8 ok, 0 failed; 0 already done, 8 started"));
    free(out);
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/results.csv", grid_out);
    snprintf(b, sizeof b, "%s/results.csv", dir);
    char *x = test_read_file(a, NULL), *y = test_read_file(b, NULL);
    CU_ASSERT(x && y && strcmp(x, y) == 0);
    free(x);
    free(y);
}

/* The setting called name in s[0..n), or NULL. */
static const struct nic_setting *setting(const struct nic_setting *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0)
            return &s[i];
    return NULL;
}

static void check_value(const struct nic_setting *s, int n, const char *name, long long want, bool rounded)
{
    const struct nic_setting *x = setting(s, n, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    if (x->value != want)
        fprintf(stderr, "\n  %s = %lld, expected %lld\n", name, x->value, want);
    CU_ASSERT_EQUAL(x->value, want);
    CU_ASSERT_EQUAL(x->note[0] != '\0', rounded);
}

/* The unit conversions: paper values, the connectx preset back to the firmware defaults, rounding. */
static void test_nic_units(void)
{
    struct scenario scn;
    char err[SCN_ERR_MAX];
    struct nic_setting s[NIC_SETTINGS_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/incast-16to1.json", NULL, 0, &scn, err, sizeof err), 0);
    int n = nicconfig_settings(&scn, 100000000000LL, s);
    check_value(s, n, "dce_tcp_g", 1020, false); /* g = 1/256 */
    check_value(s, n, "dce_tcp_rtt", 55, false);
    check_value(s, n, "rpg_time_reset", 55, false);
    check_value(s, n, "rpg_ai_rate", 40, false);
    check_value(s, n, "rpg_hai_rate", 200, false);
    check_value(s, n, "rpg_min_rate", 100, false);
    check_value(s, n, "rpg_byte_reset", 10000000, false);
    check_value(s, n, "min_time_between_cnps", 50, false);
    check_value(s, n, "cnp_802p_prio", 6, false);
    check_value(s, n, "clamp_tgt_rate_after_time_inc", 0, false);
    check_value(s, n, "rate_reduce_monitor_period", 1, true); /* 0 (every CNP cuts) below the firmware's 1 us */
    scn_free(&scn);

    struct scn_override cx[] = {{"host.dcqcn.preset", "\"connectx\""}};
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/incast-16to1.json", cx, 1, &scn, err, sizeof err), 0);
    n = nicconfig_settings(&scn, 100000000000LL, s);
    static const struct {
        const char *name;
        long long v;
    } fw[] = {{"rpg_time_reset", 300}, {"rpg_byte_reset", 32767}, {"rpg_threshold", 1}, {"rpg_ai_rate", 5},
              {"rpg_hai_rate", 50}, {"rpg_min_rate", 1}, {"rpg_min_dec_fac", 50}, {"rate_to_set_on_first_cnp", 0},
              {"dce_tcp_g", 1019}, {"dce_tcp_rtt", 1}, {"initial_alpha_value", 1023},
              {"min_time_between_cnps", 4}, {"clamp_tgt_rate", 0}, {"clamp_tgt_rate_after_time_inc", 1},
              {"rate_reduce_monitor_period", 4}};
    for (size_t i = 0; i < sizeof fw / sizeof *fw; i++)
        check_value(s, n, fw[i].name, fw[i].v, false);
    scn_free(&scn);

    struct scn_override odd[] = {{"host.dcqcn.g", "0.01"},
                                 {"host.dcqcn.alpha_timer", "\"1.5us\""},
                                 {"host.dcqcn.ai_rate", "\"40500Kbps\""},
                                 {"host.dcqcn.rate_on_first_cnp", "0.5"},
                                 {"host.dcqcn.alpha_init", "0.5"}};
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/incast-16to1.json", odd, 5, &scn, err, sizeof err), 0);
    n = nicconfig_settings(&scn, 100000000000LL, s);
    check_value(s, n, "dce_tcp_g", 1014, true);           /* 1024 - 10.24, rounded */
    check_value(s, n, "dce_tcp_rtt", 2, true);            /* 1.5 us */
    check_value(s, n, "rpg_ai_rate", 41, true);           /* 40.5 Mbps */
    check_value(s, n, "rate_to_set_on_first_cnp", 50000, true); /* half of 100 Gbps */
    check_value(s, n, "initial_alpha_value", 512, true);  /* 511.5 */
    scn_free(&scn);

    struct scn_override off[] = {{"host.dcqcn.byte_counter", "off"}, {"host.dcqcn.rate_reduce_monitor_period", "2.5us"}};
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/incast-16to1.json", off, 2, &scn, err, sizeof err), 0);
    n = nicconfig_settings(&scn, 100000000000LL, s);
    check_value(s, n, "rpg_byte_reset", 0, true);            /* off, with a note on what 0 means */
    check_value(s, n, "rate_reduce_monitor_period", 3, true); /* 2.5 us */
    scn_free(&scn);
}

/* ------------------------------------------------------------------------ */
/* Interruptions and the objective's name                                   */

/* Starts `rocesim sweep FILE -j JOBS -o DIR -q` in the background (stdout and stderr to DIR.log); returns its pid. */
static pid_t start_sweep(const char *file, const char *dir, int jobs)
{
    char log[256], j[16];
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(j, sizeof j, "%d", jobs);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(test_rocesim_bin(), "rocesim", "sweep", file, "-j", j, "-o", dir, "-q", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/*
 * The pids (at most max) of the processes whose command line holds every one
 * of the texts a and b (b may be NULL); returns how many there are.
 */
static int procs_with(const char *a, const char *b, pid_t *pids, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[8192];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        for (ssize_t i = 0; i < len; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        buf[len] = '\0';
        if (strstr(buf, a) && (!b || strstr(buf, b))) {
            if (n < max)
                pids[n] = (pid_t)pid;
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Sleeps ms milliseconds. */
static void nap(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (up to secs) until `want` processes have a and b in their command lines; returns whether they did. */
static bool wait_procs(const char *a, const char *b, int want, double secs)
{
    pid_t p[16];
    for (int i = 0; i < secs * 100; i++) {
        if (procs_with(a, b, p, 16) >= want)
            return true;
        nap(10);
    }
    return false;
}

/* Waits (up to secs) for pid to exit; returns its wait status, or -1 after killing it when it did not. */
static int wait_exit(pid_t pid, double secs)
{
    int st;
    for (int i = 0; i < secs * 100; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        nap(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/*
 * Three fast points (the second fails: its stop is no time) and a slow last
 * one, run one at a time: once the slow run is in flight the three others
 * are done, so a signal then leaves exactly 3 of 4 runs, and best.json must
 * say so, as failures.txt and stderr say 1 of the 3 runs that ended failed
 * (the run stopped is no failure); the exit status is 128 + the signal, as
 * `rocesim run`'s.  With `second`, a sweep, a tune and a
 * run into the same directory are first refused while the sweep goes on.
 * The sweep's directory is ROOT/NAME.
 */
static void interrupt_sweep(const char *name, int sig, bool second)
{
    char file[160], dir[160], cmd[1024], runs[200], path[256];
    snprintf(file, sizeof file, "%s/%s.json", root, name);
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(runs, sizeof runs, "%s/runs/", dir);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                     " \"grid\": {\"traffic.3.end,stop\":\n"
                     "   [[\"1ms\", \"5ms\"], [\"2ms\", \"soon\"], [\"3ms\", \"5ms\"],\n"
                     "    [\"400ms\", \"400ms\"]]},\n"
                     " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}}\n");
    pid_t pid = start_sweep(file, dir, 1);
    CU_ASSERT_FATAL(pid > 0);
    bool slow_started = wait_procs(runs, "400ms", 1, 60);
    CU_ASSERT(slow_started);
    for (int k = 0; second && k < 3; k++) {
        /* The directory is the sweep's until it ends: every other command into it is refused, exit 2. */
        static const char *const what[] = {"sweep", "tune", "run"};
        char *out = NULL, want[1024];
        if (k < 2)
            snprintf(cmd, sizeof cmd, "%s %s %s -o %s -q", test_rocesim_bin(), what[k],
                     k ? "scenarios/tune/incast-mix-g-kmin.json" : file, dir);
        else
            snprintf(cmd, sizeof cmd, "%s run scenarios/sweeps/incast-mix.json -o %s -q", test_rocesim_bin(), dir);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        snprintf(want, sizeof want, "rocesim%s%s: %s: output directory in use by another rocesim (pid %d: rocesim sweep "
                 "%s -j 1 -o %s -q); wait for it to end, or give another -o\n", k < 2 ? " " : "", k < 2 ? what[k] : "",
                 dir, (int)pid, file, dir);
        CU_ASSERT_STRING_EQUAL(out ? out : "", want);
        free(out);
    }
    kill(pid, sig);
    int st = wait_exit(pid, 60);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig);
    pid_t left[4];
    CU_ASSERT_EQUAL(procs_with(runs, NULL, left, 4), 0);

    snprintf(path, sizeof path, "%s/best.json", dir);
    char *bj = test_read_file(path, NULL);
    cJSON *j = bj ? cJSON_Parse(bj) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(j, "runs_done");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(j, "runs_total");
    CU_ASSERT(cJSON_IsNumber(done) && done->valueint == 3);
    CU_ASSERT(cJSON_IsNumber(total) && total->valueint == 4);
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(j, "incomplete_reason");
    char want[300];
    snprintf(want, sizeof want, "interrupted by SIG%s with 1 of 4 runs not done; the same command finishes them",
             sigabbrev_np(sig));
    CU_ASSERT(cJSON_IsString(why) && strcmp(why->valuestring, want) == 0);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "n");
    CU_ASSERT(cJSON_IsNumber(n) && n->valueint == 1);
    cJSON_Delete(j);
    free(bj);
    snprintf(want, sizeof want, "%s/" DIRLOCK_NAME, dir);
    CU_ASSERT(access(want, F_OK) != 0); /* released with the command */
    char fpath[220], lpath[220];
    snprintf(fpath, sizeof fpath, "%s/failures.txt", dir);
    char *fail = test_read_file(fpath, NULL);
    const char *head = "1 of 3 runs failed.  Repeat one with the command shown to see all of its messages.\n";
    CU_ASSERT(fail && strncmp(fail, head, strlen(head)) == 0);
    free(fail);
    snprintf(lpath, sizeof lpath, "%s.log", dir);
    char *log = test_read_file(lpath, NULL);
    snprintf(want, sizeof want, "rocesim sweep: 1 of 3 runs failed; see %s\n", fpath);
    CU_ASSERT_PTR_NOT_NULL(log && strstr(log, want));
    free(log);
}

/* SIGINT, with other commands into the directory refused meanwhile; nic-config refuses the incomplete best.json
 * unless told to take it. */
static void test_interrupted_sweep(void)
{
    char path[256], cmd[1024];
    interrupt_sweep("int", SIGINT, true);
    snprintf(path, sizeof path, "%s/int/best.json", root);
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "%s nic-config --from %s", test_rocesim_bin(), path);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "complete: expected the best.json of a finished sweep or tune, got one from 3 "
                                              "of 4 runs (interrupted by SIGINT"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--allow-incomplete"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "echo "));
    free(out);
    snprintf(cmd, sizeof cmd, "%s nic-config --from %s --allow-incomplete", test_rocesim_bin(), path);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "warning: "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "with the best point of"));
    free(out);
}

/* SIGTERM: the same, with exit status 143. */
static void test_sigterm_sweep(void)
{
    interrupt_sweep("term", SIGTERM, false);
}

/* SIGKILL of a sweep takes its runs with it: nothing is left running unattended. */
static void test_killed_sweep(void)
{
    char file[160], dir[160], runs[200];
    snprintf(file, sizeof file, "%s/kill.json", root);
    snprintf(dir, sizeof dir, "%s/kill", root);
    snprintf(runs, sizeof runs, "%s/runs/", dir);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                     " \"grid\": {\"traffic.3.end,stop\": [[\"400ms\", \"400ms\"], [\"401ms\", \"401ms\"]]},\n"
                     " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}}\n");
    pid_t pid = start_sweep(file, dir, 2);
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT(wait_procs(runs, NULL, 2, 60));
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    pid_t left[16];
    int n = 0;
    for (int i = 0; i < 200 && (n = procs_with(runs, NULL, left, 16)) > 0; i++)
        nap(10);
    CU_ASSERT_EQUAL(n, 0);
    for (int i = 0; i < n && i < 16; i++) /* orphans of a sweep that does not stop them: not ours to leave */
        kill(left[i], SIGKILL);
}

/* A misspelt objective is refused before anything runs: exit 2, no output directory, the names near it. */
static void test_bad_objective(void)
{
    char file[160], dir[160], cmd[1024], *out = NULL;
    snprintf(file, sizeof file, "%s/obj.json", root);
    snprintf(dir, sizeof dir, "%s/obj", root);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"grid\": {\"host.dcqcn.g\": [0.1, 0.2]},\n"
                     " \"objective\": {\"minimize\": \"flows.fct.p99\"}}\n");
    snprintf(cmd, sizeof cmd, "%s sweep %s -o %s -q", test_rocesim_bin(), file, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    char want[400];
    snprintf(want, sizeof want, "rocesim sweep: %s: objective.minimize: expected a numeric field of summary.json, "
                                "got \"flows.fct.p99\", which no summary has; for example flows.total, "
                                "flows.completed, flows.fct_ns.{mean,p50,p95,p99,max}, ", file);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    if (!(out && strstr(out, want)))
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(out ? (int)(strchr(out, '\n') - out + 1) : 0, out ? (int)strlen(out) : 1); /* one line */
    free(out);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
    /* `check` reports it too; a name the summary has is accepted with any collective index or priority */
    snprintf(cmd, sizeof cmd, "%s check %s", test_rocesim_bin(), file);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    CU_ASSERT(metric_known("priorities.3.fct_ns.p99"));
    CU_ASSERT(metric_known("collectives.12.completion_ns"));
    CU_ASSERT(metric_known("collectives.0.busbw_GBps"));
    CU_ASSERT(!metric_known("priorities.8.fct_ns.p99"));
    CU_ASSERT(!metric_known("flows.fct_ns"));
    CU_ASSERT(!metric_known("flows.fct_ns.p99.x"));
    CU_ASSERT(!metric_known("scenario"));
}

/*
 * A sweep's PNGs are drawn like a run's: to a temporary name, checked, renamed.  A gnuplot that writes half a
 * PNG and exits 0 (a full disk) for one plot, and fails for another, leaves neither under its final name, and
 * the sweep says which failed and why (it used to write the PNG under its final name and trust the status).
 * Reruns the grid of test_grid, whose runs are all done, so only the plots are drawn again.
 */
static void test_sweep_plots_whole(void)
{
    char bindir[256], gp[300], cmd[2048], *out = NULL;
    snprintf(bindir, sizeof bindir, "%s/fakegp", root);
    mkdir(bindir, 0777);
    snprintf(gp, sizeof gp, "%s/gnuplot", bindir);
    test_write_text(gp, "#!/bin/sh\n"
                   "# called as: gnuplot -e outname='NAME.png.tmp' NAME.gp\n"
                   "name=${3%.gp}\n"
                   "case $name in\n"
                   "objective_vs_0) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR' >$name.png.tmp ;;\n"
                   "heatmap) echo 'line 3: no such file' >&2; exit 1 ;;\n"
                   "*) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256B`\\202' >$name.png.tmp ;;\n"
                   "esac\n");
    chmod(gp, 0755);
    /* What a killed sweep's plotting left (no process has these PIDs: above pid_max), and a user's file. */
    static const char *const left[] = {"heatmap.gp.tmp.4294967", "objective_vs_1.dat.tmp.4294967", "mine.txt"};
    for (size_t i = 0; i < 3; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/plots/%s", grid_out, left[i]);
        test_write_text(path, "x");
    }
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s sweep %s -j 2 -o %s -q", bindir, test_rocesim_bin(), grid_file,
             grid_out);
    int rc = test_run(cmd, &out);
    CU_ASSERT_EQUAL(rc, 0);
    for (size_t i = 0; i < 3; i++) {
        char path[400];
        struct stat sb;
        snprintf(path, sizeof path, "%s/plots/%s", grid_out, left[i]);
        CU_ASSERT_EQUAL(stat(path, &sb) == 0, i == 2); /* the temporaries go, the user's file stays */
    }
    char want[1024];
    snprintf(want, sizeof want, "rocesim sweep: objective_vs_0 plot failed, no objective_vs_0.png drawn: gnuplot "
             "exited with status 0 but objective_vs_0.png.tmp is a truncated PNG (");
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    snprintf(want, sizeof want, "rocesim sweep: heatmap plot failed, no heatmap.png drawn: gnuplot exited with "
             "status 1: line 3: no such file; gnuplot's output is in %s/plots/heatmap.log\n", grid_out);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    snprintf(want, sizeof want, "%s/plots/: 1 PNG drawn; FAILED: objective_vs_0.png heatmap.png", grid_out);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    if (!(out && strstr(out, want)))
        fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    static const char *const gone[] = {"objective_vs_0.png", "objective_vs_0.png.tmp", "heatmap.png",
                                       "heatmap.png.tmp"};
    struct stat st;
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/plots/%s", grid_out, gone[i]);
        CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
    }
    char path[400];
    snprintf(path, sizeof path, "%s/plots/objective_vs_1.png", grid_out);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
}

/* A $ROCESIM_MEM_AVAILABLE that is not a size stops the sweep once, before any run (each run refused it). */
static void test_bad_mem_env(void)
{
    char dir[160], cmd[1024], *out = NULL;
    snprintf(dir, sizeof dir, "%s/memenv", root);
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=garbage %s sweep scenarios/sweeps/dcqcn-g-kmin.json -o %s -q",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim sweep: $ROCESIM_MEM_AVAILABLE: expected a size like \"20KB\", "
                                           "got \"garbage\" (no number)\n");
    free(out);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
}

/* Appends to *bad (a list for the message) every number, boolean or null leaf of v the metric list lacks. */
static void unknown_leaves(const cJSON *v, const char *prefix, char *bad, size_t len)
{
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        char key[256];
        if (cJSON_IsArray(v))
            snprintf(key, sizeof key, "%s.%d", prefix, i);
        else
            snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", it->string);
        if (cJSON_IsObject(it) || cJSON_IsArray(it))
            unknown_leaves(it, key, bad, len);
        else if ((cJSON_IsNumber(it) || cJSON_IsBool(it) || cJSON_IsNull(it)) && !metric_known(key))
            snprintf(bad + strlen(bad), len - strlen(bad), " %s", key);
    }
}

/*
 * The objective's static check knows exactly the fields summary.json has: every
 * numeric leaf of real summaries (a deadlock, collectives of both kinds, several priorities)
 * is a known name.
 */
static void test_metric_names(void)
{
    static const char *const texts[] = {
        NULL, /* scenarios/deadlock-ring.json: deadlock.at_ns and .priority are numbers */
        "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"switch\": {\"pfc\": {\"enabled\": true, \"priorities\": [1, 3]}},"
        " \"traffic\": [{\"type\": \"allreduce\", \"id\": \"ar\", \"hosts\": \"all\", \"size\": \"64KB\","
        "               \"priority\": 1},"
        "              {\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"64KB\", \"priority\": 3}]}",
        /* an nccl collective: its operation and nccl-tests' bandwidths */
        "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"traffic\": [{\"type\": \"nccl\", \"op\": \"all_reduce\", \"hosts\": \"all\", \"size\": \"64KB\"}]}",
    };
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup_from(texts[k] ? "test.json" : "scenarios/deadlock-ring.json", texts[k], NULL, 0,
                                        &scn, &r));
        test_run_checked(&r);
        char *js = run_summary_json(&r, true);
        cJSON *j = cJSON_Parse(js);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        const cJSON *dl = cJSON_GetObjectItemCaseSensitive(j, "deadlock");
        if (k == 0) {
            CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(dl, "priority")));
        } else {
            /* the condition under which run_summary_json writes the kind's own fields was met */
            CU_ASSERT_PTR_NOT_NULL(strstr(js, k == 1 ? "\"rings\":" : "\"busbw_GBps\":"));
        }
        char bad[2048] = "";
        unknown_leaves(j, "", bad, sizeof bad);
        if (*bad)
            fprintf(stderr, "\n  summary fields the made-up run of metrics_get (tools/explore/metric.c) lacks:%s\n", bad);
        CU_ASSERT_STRING_EQUAL(bad, "");
        cJSON_Delete(j);
        free(js);
        test_teardown(&scn, &r);
    }
}

/* The command: sysfs lines with the interface, switch thresholds in words, --from a sweep's best.json. */
static void test_nic_command(void)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s nic-config scenarios/incast-16to1.json --iface ens1f0", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "echo 1020 > /sys/class/net/ens1f0/ecn/roce_rp/dce_tcp_g"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "echo 1 > /sys/class/net/ens1f0/ecn/roce_np/enable/3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "echo 50 > /sys/class/net/ens1f0/ecn/roce_np/min_time_between_cnps"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "kmin 5000 bytes (5 KB), kmax 200000 bytes (200 KB), pmax 1 %"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "53214 bytes (53.214 KB)")); /* headroom, as `check` derives it */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "dynamic_th = -3"));
    free(out);
    /* The QP's transport settings have no sysfs knob: comment lines. */
    snprintf(cmd, sizeof cmd, "%s nic-config scenarios/incast-16to1.json --set host.qp_timeout=14 "
             "--set host.retry_count=5 --set host.ack_priority=5", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "#   timeout = 14 (4.096 us x 2^14 = 67108.864us)   # host.qp_timeout = 14\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "#   retry_cnt = 5   # host.retry_count = 5\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "#   ACKs and NACKs on priority 5 (host.ack_priority): no NIC knob"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "echo 0 > /sys/class/net/$IF/ecn/roce_rp/clamp_tgt_rate_after_time_inc"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s nic-config scenarios/incast-16to1.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "#   timeout: host.rto = 1ms is no QP setting; the nearest at or above it "
                                              "is timeout = 8 (4.096 us x 2^8)"));
    free(out);
    /* The output is a valid sh script. */
    snprintf(cmd, sizeof cmd, "%s nic-config scenarios/incast-16to1.json | sh -n", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);

    char best[256];
    snprintf(best, sizeof best, "%s/best.json", grid_out);
    snprintf(cmd, sizeof cmd, "%s nic-config --from %s", test_rocesim_bin(), best);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    char *bj = test_read_file(best, NULL);
    cJSON *j = bj ? cJSON_Parse(bj) : NULL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "parameters"),
                                                      "host.dcqcn.g");
    CU_ASSERT(cJSON_IsNumber(g));
    if (out && cJSON_IsNumber(g)) {
        char want[128];
        snprintf(want, sizeof want, "echo %lld > /sys/class/net/$IF/ecn/roce_rp/dce_tcp_g",
                 (long long)llround(1024 - g->valuedouble * 1024));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "with the best point of"));
    }
    cJSON_Delete(j);
    free(bj);
    free(out);

    snprintf(cmd, sizeof cmd, "%s nic-config scenarios/incast-16to1.json --set host.dcqcn.g=2", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "host.dcqcn.g"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s nic-config --iface 'a;b' scenarios/incast-16to1.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
}

/* ------------------------------------------------------------------------ */
/* compare                                                                   */

/* Writes DIR/summary.json (making DIR) with the given numbers; reason NULL: a complete run. */
static void write_summary(const char *dir, double end_ns, double sent, double dropped, double pauses,
                          const char *coll, const char *reason)
{
    char cmd[512], path[512], text[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(text, sizeof text,
             "{\"scenario\": \"lab05-fairness\", \"seed\": 1, \"complete\": %s%s%s%s, \"sim_end_ns\": %g,\n"
             " \"flows\": {\"total\": 4, \"completed\": 4, \"fct_ns\": {\"p50\": 1000, \"p99\": 4000},\n"
             "           \"slowdown\": {\"p99\": 2}},\n"
             " \"collectives\": [{\"id\": \"ar\", \"completion_ns\": %s}],\n"
             " \"packets\": {\"sent\": %g, \"dropped\": %g, \"retransmitted\": 0, \"timeouts\": 0,\n"
             "             \"ecn_marked\": 10},\n"
             " \"cnp\": {\"sent\": 4}, \"pfc\": {\"pause_frames\": %g, \"paused_ns_total\": 0},\n"
             " \"watchdog\": {\"storms_detected\": 0}, \"deadlock\": {\"detected\": false}}\n",
             reason ? "false" : "true", reason ? ", \"incomplete_reason\": \"" : "", reason ? reason : "",
             reason ? "\"" : "", end_ns, coll, sent, dropped, pauses);
    test_write_text(path, text);
}

/* The line of out that starts with label (a copy in buf), or NULL. */
static const char *line_of(const char *out, const char *label, char *buf, size_t len)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, label, strlen(label)) == 0) {
            snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
            return buf;
        }
    return NULL;
}

/*
 * Two runs of one scenario get distinct titles (their directories), every
 * number its exact ratio to the first run, and an incomplete run is flagged
 * in the table and in a note.
 */
static void test_compare(void)
{
    char a[200], b[200], c[200], cmd[1024], *out = NULL, line[512];
    snprintf(a, sizeof a, "%s/cmp/a/lab05", root);
    snprintf(b, sizeof b, "%s/cmp/b/lab05", root);
    snprintf(c, sizeof c, "%s/cmp/stopped", root);
    write_summary(a, 2e6, 1000, 0, 10, "4000000", NULL);
    write_summary(b, 3e6, 2500, 3, 5, "6000000", NULL);
    write_summary(c, 1e6, 400, 0, 0, "null", "interrupted by SIGINT at 1 ms");
    snprintf(cmd, sizeof cmd, "%s compare %s %s/ %s", test_rocesim_bin(), a, b, c);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    char t1[16], t2[16], t3[16], extra[16];
    CU_ASSERT_EQUAL(sscanf(out, "%15s %15s %15s %15s", t1, t2, t3, extra), 4);
    CU_ASSERT_STRING_EQUAL(t1, "a/lab05");
    CU_ASSERT_STRING_EQUAL(t2, "b/lab05");
    CU_ASSERT_STRING_EQUAL(t3, "stopped");
    CU_ASSERT_STRING_EQUAL(extra, "scenario"); /* the next line: the titles are the whole first line */
    static const struct {
        const char *label, *b, *c;
    } want[] = {
        {"simulated time (ms)", "3.000 (x1.50)", "1.000 (x0.50)"},
        {"data packets sent", "2500 (x2.50)", "400 (x0.40)"},
        {"PAUSE frames", "5 (x0.50)", "0 (x0.00)"},
        {"dropped", "3 (x -)", "0 (x -)"},
        {"ar time (ms)", "6.000 (x1.50)", "unfinished"},
        {"FCT p99 (us)", "4.0 (x1.00)", "4.0 (x1.00)"},
        {"complete", "yes", "NO (see note)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *l = line_of(out, want[i].label, line, sizeof line);
        char w[200];
        snprintf(w, sizeof w, "  %s  ", want[i].b);
        bool ok = l && strstr(l, w) && strlen(l) > strlen(want[i].c) &&
                  strcmp(l + strlen(l) - strlen(want[i].c), want[i].c) == 0;
        if (!ok)
            fprintf(stderr, "\n  row \"%s\": %s\n", want[i].label, l ? l : "(missing)");
        CU_ASSERT(ok);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nnote: stopped did not complete (interrupted by SIGINT at 1 ms): its numbers "
                                       "cover only the 1.000 ms it simulated\n"));
    CU_ASSERT_PTR_NULL(strstr(out, "note: a/lab05"));
    free(out);
    /* the same directory twice still gives two titles; a missing run is an error naming it */
    snprintf(cmd, sizeof cmd, "%s compare %s %s", test_rocesim_bin(), a, a);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT(out && sscanf(out, "%15s %15s %15s %15s", t1, t2, t3, extra) == 4);
    CU_ASSERT(strcmp(t1, "lab05") == 0 && strcmp(t2, "lab05") == 0 && strcmp(t3, "(#2)") == 0);
    free(out);
    snprintf(cmd, sizeof cmd, "%s compare %s %s/cmp/none", test_rocesim_bin(), a, root);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: ") && strstr(out, "cmp/none/summary.json"));
    free(out);
}

/*
 * A run with more collectives than the table used to hold (64 rows in all) still gets every row, each under
 * its own label: the rows past the 64th used to overwrite the last one, so the table ended in the deadlock
 * row and lost the PAUSE frames and the last collectives without a word.
 */
static void test_compare_many_collectives(void)
{
    char dir[200], path[256], cmd[1024], line[512], *out = NULL;
    snprintf(dir, sizeof dir, "%s/cmp/colls", root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    static char text[16384];
    int l = snprintf(text, sizeof text, "{\"scenario\": \"many\", \"complete\": true, \"collectives\": [");
    for (int k = 0; k < 60; k++)
        l += snprintf(text + l, sizeof text - (size_t)l, "%s{\"id\": \"c%d\", \"completion_ns\": %d}", k ? ", " : "",
                      k, (k + 1) * 1000000);
    snprintf(text + l, sizeof text - (size_t)l,
             "], \"pfc\": {\"pause_frames\": 7}, \"deadlock\": {\"detected\": false}}\n");
    snprintf(path, sizeof path, "%s/summary.json", dir);
    test_write_text(path, text);
    snprintf(cmd, sizeof cmd, "%s compare %s", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    int lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++)
        lines++;
    CU_ASSERT_EQUAL(lines, 1 + 2 + 60 + 14 + 1); /* titles, scenario, complete, collectives, fixed rows, deadlock */
    const char *c0 = line_of(out, "c0 time (ms)", line, sizeof line);
    CU_ASSERT(c0 && strcmp(c0 + strlen(c0) - 6, " 1.000") == 0);
    const char *c59 = line_of(out, "c59 time (ms)", line, sizeof line);
    CU_ASSERT(c59 && strcmp(c59 + strlen(c59) - 7, " 60.000") == 0);
    const char *pf = line_of(out, "PAUSE frames", line, sizeof line);
    CU_ASSERT(pf && strcmp(pf + strlen(pf) - 2, " 7") == 0);
    const char *dl = line_of(out, "deadlock", line, sizeof line);
    CU_ASSERT(dl && strcmp(dl + strlen(dl) - 3, " no") == 0);
    free(out);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The incast mix under DCQCN and under DCTCP (K = 100 KB), run once into ROOT/cmp/dcqcn and ROOT/cmp/dctcp for the
 * compare tests; false when they could not be run. */
static bool cmp_runs(char *a, size_t alen, char *b, size_t blen)
{
    static int done; /* 0 not yet, 1 ran, -1 failed */
    snprintf(a, alen, "%s/cmp/dcqcn", root);
    snprintf(b, blen, "%s/cmp/dctcp", root);
    if (!done) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s run scenarios/sweeps/incast-mix.json -o %s -q --no-plot && %s run "
                 "scenarios/sweeps/incast-mix.json --set host.cc=dctcp --set switch.ecn.kmin=100KB --set "
                 "switch.ecn.kmax=100KB -o %s -q --no-plot", test_rocesim_bin(), a, test_rocesim_bin(), b);
        done = test_run(cmd, NULL) == 0 ? 1 : -1;
    }
    return done == 1;
}

/*
 * Runs of different congestion controls: compare names each run's algorithm (from its scenario.json) and gives
 * the slowdown p50/p95 per flow-size range (from its flows.csv), each equal to the same statistic computed over
 * that range of the run's flows (the flowset suite checks that computation against summary.json).
 */
static void test_compare_algorithms(void)
{
    char a[160], b[160], cmd[1024], *out = NULL, line[512];
    CU_ASSERT_FATAL(cmp_runs(a, sizeof a, b, sizeof b));
    snprintf(cmd, sizeof cmd, "%s compare %s %s", test_rocesim_bin(), a, b);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    const char *cc = line_of(out, "congestion control", line, sizeof line);
    CU_ASSERT(cc && strstr(cc, "dcqcn") && strstr(cc, "dctcp"));
    /* the flows of 10KB-100KB in run a (the six 64 KB answers and a few web flows): their slowdowns' p50 */
    char path[256];
    snprintf(path, sizeof path, "%s/flows.csv", a);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    double sd[32];
    int k = 0;
    for (char *l = strchr(csv, '\n'); l && *++l && k < 32; l = strchr(l, '\n')) {
        char id[64];
        double size, fct, ideal;
        if (sscanf(l, "%63[^,],%*[^,],%*[^,],%*[^,],%lf,%*[^,],%*[^,],%lf,%lf", id, &size, &fct, &ideal) == 4 &&
            size > 10000 && size <= 100000)
            sd[k++] = fct / ideal;
    }
    free(csv);
    CU_ASSERT_FATAL(k >= 6);
    qsort(sd, (size_t)k, sizeof *sd, cmp_dbl); /* the nearest-rank p50 of k is the ceil(k / 2)-th */
    const char *row = line_of(out, "slowdown p50 10KB-100KB", line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double got = 0;
    CU_ASSERT(sscanf(row + strlen("slowdown p50 10KB-100KB"), "%lf", &got) == 1);
    CU_ASSERT_DOUBLE_EQUAL(got, sd[(k + 1) / 2 - 1], 0.005); /* printed with 2 decimals */
    free(out);
}

/* A number of a summary.json by path components (NAN when absent). */
static double summary_at(const char *dir, const char *a, const char *b, const char *c)
{
    char path[300];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *t = test_read_file(path, NULL);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, a), b);
    if (c)
        x = cJSON_GetObjectItemCaseSensitive(x, c);
    double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    cJSON_Delete(j);
    return v;
}

/* The number in the first column of row `label` of a compare table (NAN when there is none). */
static double first_cell(const char *out, const char *label)
{
    char line[512];
    const char *l = line_of(out, label, line, sizeof line);
    double v = NAN;
    if (!l || sscanf(l + strlen(label), "%lf", &v) != 1 || l[strlen(label)] != ' ')
        return NAN;
    return v;
}

/*
 * --fct sender: the FCT rows, the flow count and the slowdowns by size are the sender's (to the last ACK) and say
 * so, each equal to summary.json's or to the statistic of flows.csv's fct_ack_ns / ideal_fct_ack_ns; without
 * --fct, or with --fct receiver, the output is the receiver's, as before the option, byte for byte.  A run from a
 * rocesim before the sender's columns is named in a note; a bad value is refused.
 */
static void test_compare_fct_sender(void)
{
    char a[160], b[160], cmd[1200], *def = NULL, *rcv = NULL, *snd = NULL, path[300];
    CU_ASSERT_FATAL(cmp_runs(a, sizeof a, b, sizeof b));
    snprintf(cmd, sizeof cmd, "%s compare %s %s", test_rocesim_bin(), a, b);
    CU_ASSERT_EQUAL(test_run(cmd, &def), 0);
    snprintf(cmd, sizeof cmd, "%s compare %s %s --fct receiver", test_rocesim_bin(), a, b);
    CU_ASSERT_EQUAL(test_run(cmd, &rcv), 0);
    snprintf(cmd, sizeof cmd, "%s compare --fct sender %s %s", test_rocesim_bin(), a, b);
    CU_ASSERT_EQUAL(test_run(cmd, &snd), 0);
    CU_ASSERT_FATAL(def && rcv && snd);
    CU_ASSERT_STRING_EQUAL(def, rcv);
    CU_ASSERT_PTR_NULL(strstr(def, "ACK"));
    CU_ASSERT_DOUBLE_EQUAL(first_cell(def, "FCT p99 (us)"), summary_at(a, "flows", "fct_ns", "p99") / 1e3, 0.05);
    CU_ASSERT_DOUBLE_EQUAL(first_cell(snd, "FCT to last ACK p99 (us)"), summary_at(a, "flows", "fct_ack_ns", "p99") / 1e3,
                           0.05);
    CU_ASSERT_DOUBLE_EQUAL(first_cell(snd, "slowdown to last ACK p99"), summary_at(a, "flows", "slowdown_ack", "p99"),
                           0.005);
    CU_ASSERT_EQUAL(first_cell(snd, "flows acked"), 21);
    CU_ASSERT(isnan(first_cell(snd, "FCT p99 (us)")) && isnan(first_cell(snd, "flows finished")));
    CU_ASSERT_PTR_NOT_NULL(strstr(snd, "\nFCT to last ACK (--fct sender): from a flow's start to the ACK of its last "
                                       "byte at the sender"));
    /* the 10KB-100KB flows of run a: their slowdowns to the last ACK, from flows.csv's sender columns */
    snprintf(path, sizeof path, "%s/flows.csv", a);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    double sd[32];
    int k = 0;
    for (char *l = strchr(csv, '\n'); l && *++l && k < 32; l = strchr(l, '\n')) {
        double size, fct, ideal;
        if (sscanf(l, "%*[^,],%*[^,],%*[^,],%*[^,],%lf,%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
                      "%lf,%lf", &size, &fct, &ideal) == 3 && size > 10000 && size <= 100000)
            sd[k++] = fct / ideal;
    }
    free(csv);
    CU_ASSERT_FATAL(k >= 6);
    qsort(sd, (size_t)k, sizeof *sd, cmp_dbl);
    double got = first_cell(snd, "slowdown to last ACK p50 10KB-100KB");
    CU_ASSERT_DOUBLE_EQUAL(got, sd[(k + 1) / 2 - 1], 0.005);
    CU_ASSERT(fabs(got - first_cell(def, "slowdown p50 10KB-100KB")) > 0.5); /* 6.35 against 7.76 */
    free(def);
    free(rcv);
    free(snd);
    /* a run without the sender's fields (an older rocesim's): "-" and a note */
    char old[200];
    snprintf(old, sizeof old, "%s/cmp/old", root);
    write_summary(old, 2e6, 1000, 0, 10, "4000000", NULL);
    snprintf(cmd, sizeof cmd, "%s compare %s %s --fct sender", test_rocesim_bin(), old, a);
    CU_ASSERT_EQUAL(test_run(cmd, &snd), 0);
    CU_ASSERT_PTR_NOT_NULL(snd && strstr(snd, "\nnote: old has no FCT to the last ACK (a run of an older rocesim): "
                                              "run it again\n"));
    CU_ASSERT(snd && isnan(first_cell(snd, "FCT to last ACK p99 (us)")));
    free(snd);
    snprintf(cmd, sizeof cmd, "%s compare %s --fct last", test_rocesim_bin(), a);
    CU_ASSERT_EQUAL(test_run(cmd, &snd), 2);
    CU_ASSERT_PTR_NOT_NULL(snd && strstr(snd, "rocesim: compare: --fct expects receiver (to the last byte) or sender "
                                              "(to the last ACK), got \"last\""));
    free(snd);
    /* --plot by the sender's slowdowns: its data and default title say so */
    snprintf(cmd, sizeof cmd, "%s compare %s %s --fct sender --plot %s/cmp/ack.png", test_rocesim_bin(), a, b, root);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/cmp/ack.dat", root);
    char *dat = test_read_file(path, NULL);
    CU_ASSERT(dat && strstr(dat, "then per run: slowdown to last ACK p50, p95 (- : none acked)"));
    free(dat);
    snprintf(path, sizeof path, "%s/cmp/ack.gp", root);
    char *gp = test_read_file(path, NULL);
    CU_ASSERT(gp && strstr(gp, "title = 'FCT slowdown to last ACK by flow size: incast-mix'"));
    free(gp);
}

/*
 * A run whose host profiles give some hosts other congestion controls is labelled with the mix, hosts per
 * algorithm as the run resolved them (incast-16to1's 17 hosts: h12-h15 HPCC, h0 and h1 DCTCP, the other 11
 * DCQCN); one whose profiles give every host the same algorithm, with that one.
 */
static void test_compare_mixed_cc(void)
{
    char cmd[1600], *out = NULL, line[512];
    snprintf(cmd, sizeof cmd,
             "%s run scenarios/incast-16to1.json --stop 50us -q --no-plot -o %s/cmp/mix --set 'profiles=[{\"match\": "
             "\"h12-h15\", \"host\": {\"cc\": \"hpcc\"}}, {\"match\": [\"h0\", \"h1\"], \"host\": {\"cc\": \"dctcp\"}}]' && "
             "%s run scenarios/incast-16to1.json --stop 50us -q --no-plot -o %s/cmp/allhpcc --set 'profiles=[{\"match\": "
             "\"all\", \"host\": {\"cc\": \"hpcc\"}}]' && %s compare %s/cmp/mix %s/cmp/allhpcc",
             test_rocesim_bin(), root, test_rocesim_bin(), root, test_rocesim_bin(), root, root);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    const char *cc = out ? line_of(out, "congestion control", line, sizeof line) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(cc);
    CU_ASSERT_PTR_NOT_NULL(strstr(cc, "  mixed: dcqcn 11, hpcc 4, dctcp 2  "));
    CU_ASSERT(strlen(cc) > 5 && strcmp(cc + strlen(cc) - 5, " hpcc") == 0 && !strstr(cc, "dcqcn  "));
    free(out);
}

/*
 * compare --plot draws the HPCC paper's figure: the first run's flows sorted by size in 20 buckets of equal
 * count (equal sizes merged), and per run the slowdown p50 and p95 of each bucket's finished flows, into
 * OUT.dat beside a whole OUT.png; a name that is not a .png and a run without flows.csv are refused.
 */
static void test_compare_plot(void)
{
    char a[160], b[160], out[200], cmd[1200], path[256], *text = NULL;
    CU_ASSERT_FATAL(cmp_runs(a, sizeof a, b, sizeof b));
    snprintf(out, sizeof out, "%s/cmp/fig.png", root);
    /* the buckets and the first bucket's median slowdown of run a, computed here from its flows.csv */
    snprintf(path, sizeof path, "%s/flows.csv", a);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    double size[64], sd[64];
    int m = 0;
    for (char *l = strchr(csv, '\n'); l && *++l && m < 64; l = strchr(l, '\n')) {
        double fct, ideal;
        if (sscanf(l, "%*[^,],%*[^,],%*[^,],%*[^,],%lf,%*[^,],%*[^,],%lf,%lf", &size[m], &fct, &ideal) == 3)
            sd[m++] = fct / ideal;
    }
    free(csv);
    CU_ASSERT_FATAL(m >= 20);
    double sorted[64], edge[20];
    memcpy(sorted, size, sizeof sorted);
    qsort(sorted, (size_t)m, sizeof *sorted, cmp_dbl);
    int nb = 0;
    for (int k = 0; k < 20; k++) {
        double e = sorted[(k + 1) * m / 20 - 1];
        if (nb == 0 || e > edge[nb - 1])
            edge[nb++] = e;
    }
    double first[64];
    int nf = 0;
    for (int i = 0; i < m; i++)
        if (size[i] <= edge[0])
            first[nf++] = sd[i];
    qsort(first, (size_t)nf, sizeof *first, cmp_dbl);
    CU_ASSERT_FATAL(nb >= 5 && nb < 20 && nf >= 1); /* incast-mix's equal answer sizes merge buckets */

    snprintf(cmd, sizeof cmd, "%s compare %s %s --plot %s --title 'incast-mix, two algorithms'",
             test_rocesim_bin(), a, b, out);
    CU_ASSERT_EQUAL(test_run(cmd, &text), 0);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "plot: "));
    free(text);
    snprintf(path, sizeof path, "%s/cmp/fig.dat", root);
    char *dat = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
    int rows = 0;
    for (char *l = dat; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#')
            continue;
        int k;
        char lab[32];
        double bytes, v[4];
        int got = sscanf(l, "%d \"%31[^\"]\" %lf %lf %lf %lf %lf", &k, lab, &bytes, &v[0], &v[1], &v[2], &v[3]);
        CU_ASSERT_EQUAL(got, 7);
        CU_ASSERT(k == rows && rows < nb && bytes == edge[rows < nb ? rows : 0]);
        if (rows == 0)
            CU_ASSERT_DOUBLE_EQUAL(v[0], first[(nf + 1) / 2 - 1], 0.00006);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, nb);
    free(dat);
    size_t len = 0;
    char *png = test_read_file(out, &len);
    CU_ASSERT(png && len > 10000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(png);
    snprintf(path, sizeof path, "%s/cmp/fig.gp", root);
    char *gp = test_read_file(path, NULL);
    CU_ASSERT(gp && strstr(gp, "title = 'incast-mix, two algorithms'") &&
              strstr(gp, "'dcqcn (dcqcn)'") && strstr(gp, "'dctcp (dctcp)'"));
    free(gp);

    snprintf(cmd, sizeof cmd, "%s compare %s --plot %s/cmp/fig.svg", test_rocesim_bin(), a, root);
    CU_ASSERT_EQUAL(test_run(cmd, &text), 2);
    CU_ASSERT(text && strstr(text, "rocesim: compare: --plot expects a file name ending in .png"));
    free(text);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/cmp/nocsv && cp %s/summary.json %s/cmp/nocsv/ && %s compare %s "
             "%s/cmp/nocsv --plot %s", root, a, root, test_rocesim_bin(), a, root, out);
    CU_ASSERT_EQUAL(test_run(cmd, &text), 2);
    CU_ASSERT(text && strstr(text, "rocesim: compare --plot: ") && strstr(text, "cmp/nocsv/flows.csv"));
    free(text);
}

/*
 * compare --goodput draws each run's per-flow goodput as a CDF: in OUT.dat a block per run of its finished flows'
 * size x 8 / fct_ns (Gbit/s), sorted, each with the fraction of the run's finished flows at or below it, computed
 * here again from the run's flows.csv; a run that balances per packet has its out-of-order row (0 for ECMP's).
 */
static void test_compare_goodput(void)
{
    char e[160], sp[160], cmd[1600], path[256], out[200], *text = NULL, line[512];
    snprintf(e, sizeof e, "%s/gp/ecmp", root);
    snprintf(sp, sizeof sp, "%s/gp/spray", root);
    snprintf(out, sizeof out, "%s/gp/goodput.png", root);
    snprintf(cmd, sizeof cmd, "%s run scenarios/fat-tree-k4.json -o %s -q --no-plot && %s run "
             "scenarios/fat-tree-k4.json --set switch.load_balance=spray --set host.loss_recovery=selective "
             "--set host.selective.reorder=16 -o %s -q --no-plot && %s compare %s %s --goodput %s --title "
             "'k=4, two balancers'", test_rocesim_bin(), e,
             test_rocesim_bin(), sp, test_rocesim_bin(), e, sp, out);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &text), 0);
    const char *ooo = line_of(text, "out of order", line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ooo);
    long o0 = -1, o1 = -1;
    CU_ASSERT_EQUAL(sscanf(ooo, "out of order %ld %ld", &o0, &o1), 2);
    CU_ASSERT(o0 == 0 && o1 > 0);
    CU_ASSERT_PTR_NULL(strstr(text, "\ntrimmed")); /* neither run trims */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "plot: "));
    free(text);
    snprintf(path, sizeof path, "%s/gp/goodput.dat", root);
    char *dat = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
    const char *blk = dat;
    for (int r = 0; r < 2; r++) {
        /* the run's goodputs from its flows.csv: size_bytes and fct_ns */
        snprintf(path, sizeof path, "%s/flows.csv", r ? sp : e);
        char *csv = test_read_file(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
        double want[16];
        int m = 0;
        for (char *l = strchr(csv, '\n'); l && *++l && m < 16; l = strchr(l, '\n')) {
            double size, fct;
            if (sscanf(l, "%*[^,],%*[^,],%*[^,],%*[^,],%lf,%*[^,],%*[^,],%lf", &size, &fct) == 2)
                want[m++] = size * 8 / fct;
        }
        free(csv);
        CU_ASSERT_EQUAL(m, 6); /* fat-tree-k4's six flows, all finished */
        qsort(want, (size_t)m, sizeof *want, cmp_dbl);
        blk = strstr(blk, r ? "\n\n# " : "\n# "); /* blocks apart by two blank lines, gnuplot's index */
        CU_ASSERT_PTR_NOT_NULL_FATAL(blk);
        blk = strchr(blk + (r ? 2 : 1), '\n') + 1; /* past the block's "# DIR" line */
        for (int k = 0; k < m; k++) {
            double g, frac;
            CU_ASSERT_EQUAL_FATAL(sscanf(blk, "%lf %lf", &g, &frac), 2);
            CU_ASSERT_DOUBLE_EQUAL(g, want[k], 0.00006);
            CU_ASSERT_DOUBLE_EQUAL(frac, (k + 1) / 6.0, 0.0000006);
            blk = strchr(blk, '\n') + 1;
        }
        CU_ASSERT(r || *blk == '\n'); /* the first block ends with its flows */
    }
    free(dat);
    size_t len = 0;
    char *png = test_read_file(out, &len);
    CU_ASSERT(png && len > 10000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(png);
    snprintf(path, sizeof path, "%s/gp/goodput.gp", root);
    char *gp = test_read_file(path, NULL);
    CU_ASSERT(gp && strstr(gp, "title = 'k=4, two balancers'") && strstr(gp, "'ecmp', 'spray'") &&
              strstr(gp, "set xlabel 'goodput per flow (Gbit/s") && strstr(gp, "set ylabel 'fraction of flows"));
    free(gp);
    snprintf(cmd, sizeof cmd, "%s compare %s --goodput %s/gp/fig.svg", test_rocesim_bin(), e, root);
    CU_ASSERT_EQUAL(test_run(cmd, &text), 2);
    CU_ASSERT(text && strstr(text, "rocesim: compare: --goodput expects a file name ending in .png"));
    free(text);
}

/* The fuzzer's seeds (a sweep and a tune file) and every finding of it (tests/fuzz/regressions/spec-*) replay clean
 * through its harness: read as a sweep and as a tune file, refused in one printable line or read whole. */
static void test_spec_fuzz_replay(void)
{
    CU_ASSERT(test_fuzz_replay("tests/fuzz/seeds", "spec-", ".json", fuzz_spec_one) >= 2);
    CU_ASSERT(test_fuzz_replay("tests/fuzz/regressions", "spec-", ".json", fuzz_spec_one) >= 1);
}

void test_sweep_register(void)
{
    CU_pSuite s = CU_add_suite("sweep and nic-config", suite_init, suite_clean);
    CU_add_test(s, "2x2 grid x 2 seeds with -j 2: 8 rows, best.json agrees", test_grid);
    CU_add_test(s, "a sweep's PNG is renamed into place only when whole", test_sweep_plots_whole);
    CU_add_test(s, "a rerun into the same directory starts nothing", test_rerun_skips);
    CU_add_test(s, "a bad value fails its point only", test_bad_point);
    CU_add_test(s, "bad sweep files exit 2 naming file and path", test_bad_sweep_files);
    CU_add_test(s, "check recognizes a sweep file longer than 64 KB", test_check_long_sweep_file);
    CU_add_test(s, "sweep and tune files: the fuzzer's seeds and findings replay clean", test_spec_fuzz_replay);
    CU_add_test(s, "mpirun -np 3 gives the same results.csv", test_mpi_same_rows);
    CU_add_test(s, "SIGINT: best.json says complete false, nic-config --from refuses it; the directory is locked",
                test_interrupted_sweep);
    CU_add_test(s, "SIGTERM: exit 143, best.json says complete false", test_sigterm_sweep);
    CU_add_test(s, "SIGKILL of a sweep leaves no run running", test_killed_sweep);
    CU_add_test(s, "a misspelt objective is refused before any run", test_bad_objective);
    CU_add_test(s, "a bad $ROCESIM_MEM_AVAILABLE is refused once, before any run", test_bad_mem_env);
    CU_add_test(s, "every numeric summary field is a known objective", test_metric_names);
    CU_add_test(s, "nic-config unit conversions", test_nic_units);
    CU_add_test(s, "nic-config command and --from best.json", test_nic_command);
    CU_pSuite c = CU_add_suite("compare", suite_init, suite_clean);
    CU_add_test(c, "titles from the directories, ratios to the first run, incomplete runs flagged", test_compare);
    CU_add_test(c, "a run with 60 collectives gets every row", test_compare_many_collectives);
    CU_add_test(c, "runs of different congestion controls: their names and slowdowns by flow size",
                test_compare_algorithms);
    CU_add_test(c, "--plot draws slowdown p50/p95 by flow size in the paper's 5 % buckets", test_compare_plot);
    CU_add_test(c, "--goodput draws each run's per-flow goodput (size / FCT) as a CDF; reordering gets its row",
                test_compare_goodput);
    CU_add_test(c, "--fct sender: FCTs and slowdowns to the last ACK, labelled; the default unchanged",
                test_compare_fct_sender);
    CU_add_test(c, "host profiles that mix congestion controls: the mix, hosts per algorithm", test_compare_mixed_cc);
}
