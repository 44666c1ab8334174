/*
 * Robustness (docs/RELIABILITY.md): the fuzzing regressions, interrupted runs,
 * --max-wall, and the refusal of scenarios too big for the machine.
 */
#include "tests/tests.h"
#include "tools/invariants.h"
#include "tools/limits.h"
#include "tools/run.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The harnesses themselves, so that a regression input is replayed through
 * exactly the checks that found it.  A regression that comes back aborts the
 * test binary with the harness's message: loud, and impossible to miss.
 */
#define LLVMFuzzerTestOneInput fuzz_scenario_one
#include "tests/fuzz/fuzz_scenario.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_run_one
#include "tests/fuzz/fuzz_run.c"
#undef LLVMFuzzerTestOneInput

#define REGRESSIONS "tests/fuzz/regressions"

/* Every file in tests/fuzz/regressions/: scenario-* through the loader harness, run-* through the run harness. */
static void test_fuzz_regressions(void)
{
    DIR *d = opendir(REGRESSIONS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int replayed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        bool scn = strncmp(e->d_name, "scenario-", 9) == 0, run = strncmp(e->d_name, "run-", 4) == 0;
        if (!scn && !run)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", REGRESSIONS, e->d_name);
        size_t len = 0;
        char *data = test_read_file(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        int rc = scn ? fuzz_scenario_one((const uint8_t *)data, len) : fuzz_run_one((const uint8_t *)data, len);
        CU_ASSERT_EQUAL(rc, 0);
        free(data);
        replayed++;
    }
    closedir(d);
    CU_ASSERT(replayed >= 1);
}

/* The seeds run clean through the run harness: the end-of-run invariants hold on real scenarios. */
static void test_seed_runs_invariants(void)
{
    static const char *const seeds[] = {"tests/fuzz/seeds/star-flow.json", "tests/fuzz/seeds/dumbbell-faults.json",
                                        "tests/fuzz/seeds/ring.json", "tests/fuzz/seeds/df.json",
                                        "tests/fuzz/seeds/fattree.json", "tests/fuzz/seeds/bytes-2.bin"};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        size_t len = 0;
        char *data = test_read_file(seeds[i], &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        CU_ASSERT_EQUAL(fuzz_run_one((const uint8_t *)data, len), 0);
        free(data);
    }
}

/* ---- the real binary ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Starts `rocesim run` on a scenario that would run for minutes (16 senders of 1 GB, stop 10 s), output
 * into dir, stdout and stderr to dir/../log.  Returns the pid, or -1.
 */
static pid_t start_long_run(const char *dir, const char *extra)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf %s && exec %s run scenarios/incast-16to1.json -q --no-plot -o %s --stop 10s "
             "--set traffic.0.size=1GB %s > %s.log 2>&1", dir, test_rocesim_bin(), dir, extra, dir);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits for pid at most `timeout` seconds (then kills it).  Returns its wait status, or -1. */
static int wait_for(pid_t pid, double timeout)
{
    double t0 = now_s();
    int st;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (w < 0)
            return -1;
        if (now_s() - t0 > timeout) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(10000);
    }
}

/* Counts the files of dir whose name holds ".tmp." (temporary names), recursively one level (plots/). */
static int count_tmp_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strstr(e->d_name, ".tmp"))
            n++;
        if (strcmp(e->d_name, "plots") == 0) {
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            n += count_tmp_files(sub);
        }
    }
    closedir(d);
    return n;
}

/* Parses dir/summary.json.  Returns the object (caller deletes) or NULL. */
static cJSON *read_summary(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    size_t len;
    char *t = test_read_file(path, &len);
    if (!t)
        return NULL;
    cJSON *j = cJSON_Parse(t);
    free(t);
    return j;
}

/* Checks an incomplete run's outputs: summary.json "complete": false with `reason`, flows.csv with its header. */
static void check_incomplete_outputs(const char *dir, const char *reason)
{
    cJSON *j = read_summary(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(j, "complete")));
    const cJSON *why = cJSON_GetObjectItem(j, "incomplete_reason");
    CU_ASSERT(cJSON_IsString(why) && strcmp(why->valuestring, reason) == 0);
    CU_ASSERT(cJSON_GetObjectItem(j, "sim_end_ns")->valuedouble > 0);
    cJSON_Delete(j);
    char path[1024];
    snprintf(path, sizeof path, "%s/flows.csv", dir);
    size_t len;
    char *csv = test_read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT(strncmp(csv, "id,src,dst,priority,size_bytes,", 31) == 0);
    free(csv);
    CU_ASSERT_EQUAL(count_tmp_files(dir), 0);
}

static void test_sigint_writes_incomplete_outputs(void)
{
    const char *dir = "build/test-robust/sigint";
    if (make_dirs("build/test-robust"))
        CU_FAIL_FATAL("cannot create build/test-robust");
    pid_t pid = start_long_run(dir, "");
    CU_ASSERT_FATAL(pid > 0);
    usleep(500000);
    kill(pid, SIGINT);
    int st = wait_for(pid, 10);
    CU_ASSERT_FATAL(st != -1);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 130);
    check_incomplete_outputs(dir, "interrupted by SIGINT");
}

static void test_sigterm_exit_status(void)
{
    const char *dir = "build/test-robust/sigterm";
    make_dirs("build/test-robust");
    pid_t pid = start_long_run(dir, "");
    CU_ASSERT_FATAL(pid > 0);
    usleep(300000);
    kill(pid, SIGTERM);
    int st = wait_for(pid, 10);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 143);
    check_incomplete_outputs(dir, "interrupted by SIGTERM");
}

/* Two SIGINTs back to back: the process dies of the second, or, if it was quicker, exits 130 with whole files. */
static void test_second_sigint_exits_at_once(void)
{
    const char *dir = "build/test-robust/sigint2";
    make_dirs("build/test-robust");
    pid_t pid = start_long_run(dir, "");
    CU_ASSERT_FATAL(pid > 0);
    usleep(300000);
    kill(pid, SIGINT);
    kill(pid, SIGINT);
    double t0 = now_s();
    int st = wait_for(pid, 10);
    CU_ASSERT_FATAL(st != -1);
    CU_ASSERT(now_s() - t0 < 2);
    if (WIFSIGNALED(st)) {
        CU_ASSERT_EQUAL(WTERMSIG(st), SIGINT);
        /* Nothing that looks whole: summary.json is either absent or the complete-flagged-false one. */
        cJSON *j = read_summary(dir);
        if (j) {
            CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(j, "complete")));
            cJSON_Delete(j);
        }
    } else {
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 130);
        check_incomplete_outputs(dir, "interrupted by SIGINT");
    }
}

static void test_max_wall(void)
{
    const char *dir = "build/test-robust/maxwall";
    make_dirs("build/test-robust");
    double t0 = now_s();
    pid_t pid = start_long_run(dir, "--max-wall 300ms");
    CU_ASSERT_FATAL(pid > 0);
    int st = wait_for(pid, 10);
    CU_ASSERT(now_s() - t0 < 3);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    check_incomplete_outputs(dir, "max-wall 300ms reached");
}

static void test_max_wall_bad_value(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json --max-wall ten -o build/test-robust/x", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
}

/* Writes a fat-tree scenario of parameter k to path. */
static void write_fat_tree(const char *path, int k)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"name\": \"big\", \"topology\": {\"type\": \"fat-tree\", \"k\": %d, \"link\": {\"rate\": \"100Gbps\", "
               "\"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": "
               "\"1MB\"}]}\n", k);
    fclose(f);
}

static void test_oversized_refused(void)
{
    make_dirs("build/test-robust");
    write_fat_tree("build/test-robust/k200.json", 200);
    write_fat_tree("build/test-robust/k100.json", 100);
    char cmd[512], *out = NULL;
    double t0 = now_s();
    /* k=200 is beyond the loader's host limit; the refusal still says what it would cost. */
    snprintf(cmd, sizeof cmd, "%s run build/test-robust/k200.json -q -o build/test-robust/big", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "k200.json: topology") && strstr(out, "GB of memory"));
    free(out);
    /* k=100 (250000 hosts) passes the loader: the memory estimate refuses it, before anything is built. */
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=2GB %s run build/test-robust/k100.json -q -o build/test-robust/big",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "fat-tree k=100 needs about ") && strstr(out, "GB of memory (routing tables ") &&
              strstr(out, "this machine has 2.0 GB available"));
    free(out);
    /* check refuses it the same way. */
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=1GB %s check build/test-robust/k100.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    CU_ASSERT(now_s() - t0 < 3);
    struct stat sb;
    CU_ASSERT(stat("build/test-robust/big", &sb) != 0); /* nothing created */
}

/* The memory estimate of a scenario that does fit is small and in proportion. */
static void test_memory_estimate(void)
{
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/fat-tree-k4.json", NULL, 0, &s, err, sizeof err), SCN_OK);
    struct mem_estimate e = limits_estimate_memory(&s);
    CU_ASSERT_EQUAL(e.hosts, 16);
    CU_ASSERT_EQUAL(e.nodes, 36);
    CU_ASSERT_EQUAL(e.routing_bytes, 36 * 8 * 4 + 16 * 12); /* 8 ToRs: one routing column each */
    CU_ASSERT(e.total_bytes > e.routing_bytes && e.total_bytes < 100e6);
    scn_free(&s);
}

void test_robustness_register(void)
{
    CU_pSuite s = CU_add_suite("robustness", NULL, NULL);
    CU_add_test(s, "fuzzing regressions replay clean", test_fuzz_regressions);
    CU_add_test(s, "seed scenarios end with the invariants intact", test_seed_runs_invariants);
    CU_add_test(s, "SIGINT: outputs written, complete false, exit 130", test_sigint_writes_incomplete_outputs);
    CU_add_test(s, "SIGTERM: exit 143", test_sigterm_exit_status);
    CU_add_test(s, "second SIGINT exits at once", test_second_sigint_exits_at_once);
    CU_add_test(s, "--max-wall stops a long run, marked incomplete", test_max_wall);
    CU_add_test(s, "--max-wall rejects a bad value", test_max_wall_bad_value);
    CU_add_test(s, "oversized scenario refused with an estimate", test_oversized_refused);
    CU_add_test(s, "memory estimate", test_memory_estimate);
}
