/*
 * Robustness (docs/RELIABILITY.md): the fuzzing regressions, interrupted runs,
 * --max-wall, and the refusal of scenarios too big for the machine.
 */
#include "tests/tests.h"

/* The suite's own directory, apart for the ASan build, so that `make test` and `make asan` side by side in one
 * checkout do not read each other's runs. */
#ifdef __SANITIZE_ADDRESS__
#define RB "build/asan/test-robust"
#else
#define RB "build/test-robust"
#endif
#include "tools/common/dirlock.h"
#include "tools/common/files.h"
#include "tools/run/invariants.h"
#include "tools/run/limits.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
    const char *dir = RB "/sigint";
    if (make_dirs(RB))
        CU_FAIL_FATAL("cannot create " RB);
    pid_t pid = start_long_run(dir, "--threads 2"); /* partitions stop between windows, their counts added up */
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
    const char *dir = RB "/sigterm";
    make_dirs(RB);
    pid_t pid = start_long_run(dir, "");
    CU_ASSERT_FATAL(pid > 0);
    usleep(300000);
    kill(pid, SIGTERM);
    int st = wait_for(pid, 10);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 143);
    check_incomplete_outputs(dir, "interrupted by SIGTERM");
}

/* Waits (up to secs) until path is a file with something in it. */
static bool wait_file(const char *path, double secs)
{
    struct stat st;
    for (int i = 0; i < secs * 100; i++) {
        if (stat(path, &st) == 0 && st.st_size > 0)
            return true;
        usleep(10000);
    }
    return false;
}

/*
 * Two runs into one directory: the second is refused (exit 2, one line naming the first by pid and command line)
 * before it touches anything there, and the first goes on to write its outputs; the lock leaves with it.
 */
static void test_run_dir_locked(void)
{
    const char *dir = RB "/locked";
    char cmd[2048], want[2048], *out = NULL;
    make_dirs(RB);
    pid_t pid = start_long_run(dir, "");
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT(wait_file(RB "/locked/scenario.json", 30) && wait_file(RB "/locked/" DIRLOCK_NAME, 30));
    snprintf(cmd, sizeof cmd, "%s run scenarios/incast-16to1.json -q --no-plot -o %s --stop 10us", test_rocesim_bin(),
             dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    snprintf(want, sizeof want, "rocesim: %s: output directory in use by another rocesim (pid %d: %s run "
             "scenarios/incast-16to1.json -q --no-plot -o %s --stop 10s --set traffic.0.size=1GB); wait for it to end, "
             "or give another -o\n", dir, (int)pid, test_rocesim_bin(), dir);
    CU_ASSERT_STRING_EQUAL(out ? out : "", want);
    free(out);
    /* A run's claim of its directory removes the files of the run before: the refused one claimed nothing. */
    CU_ASSERT(access(RB "/locked/scenario.json", F_OK) == 0);
    kill(pid, SIGINT);
    int st = wait_for(pid, 30);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 130);
    check_incomplete_outputs(dir, "interrupted by SIGINT");
    CU_ASSERT(access(RB "/locked/" DIRLOCK_NAME, F_OK) != 0);
}

/*
 * No stale lock: a holder killed outright (SIGKILL) leaves its lock file, with its pid, but the kernel has dropped
 * the lock, and the next run takes the directory.
 */
static void test_stale_lock(void)
{
    const char *dir = RB "/stale";
    char cmd[1024], want[512], *out = NULL;
    make_dirs(RB);
    test_run("rm -rf " RB "/stale", NULL);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct dirlock l;
        char err[512];
        if (dirlock_take(&l, dir, err, sizeof err) == 0)
            pause();
        _exit(1);
    }
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT(wait_file(RB "/stale/" DIRLOCK_NAME, 30));
    snprintf(cmd, sizeof cmd, "%s run scenarios/incast-16to1.json -q --no-plot -o %s --stop 10us", test_rocesim_bin(),
             dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    snprintf(want, sizeof want, "rocesim: %s: output directory in use by another rocesim (pid %d: ", dir, (int)pid);
    CU_ASSERT(out && strncmp(out, want, strlen(want)) == 0);
    free(out);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    CU_ASSERT(access(RB "/stale/" DIRLOCK_NAME, F_OK) == 0);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    CU_ASSERT(access(RB "/stale/summary.json", F_OK) == 0 && access(RB "/stale/" DIRLOCK_NAME, F_OK) != 0);
}

/*
 * flock as dirlock.c sees it in this binary (the Makefile links the tests with -Wl,--wrap=flock): with flock_errno
 * set, every call fails with it, as on a file system without flock; with flock_gone set, the first call first
 * removes that directory and its lock file, as a holder that made the directory does as it leaves.
 */
int __real_flock(int fd, int op);
int __wrap_flock(int fd, int op);
static int flock_errno;
static const char *flock_gone;

int __wrap_flock(int fd, int op)
{
    if (flock_gone) {
        char p[300];
        snprintf(p, sizeof p, "%s/" DIRLOCK_NAME, flock_gone);
        unlink(p);
        rmdir(flock_gone);
        flock_gone = NULL;
    }
    if (flock_errno) {
        errno = flock_errno;
        return -1;
    }
    return __real_flock(fd, op);
}

/*
 * No flock (ENOLCK, an NFS mount without its lock daemon): the directory is taken without a lock, with a note on
 * stderr, and no lock file is left in it; the release removes the directories made for it, as with a lock.  A lock
 * file that was there before is another's and stays.
 */
static void test_lock_without_flock(void)
{
    const char *dir = RB "/nolock/a/b";
    char err[512], want[512];
    make_dirs(RB);
    test_run("rm -rf " RB "/nolock " RB "/nolock.err", NULL);
    struct dirlock l;
    fflush(stderr);
    int saved = dup(2), f = open(RB "/nolock.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(saved >= 0 && f >= 0);
    dup2(f, 2);
    close(f);
    flock_errno = ENOLCK;
    int rc = dirlock_take(&l, dir, err, sizeof err);
    flock_errno = 0;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(l.fd, -1);
    char *note = test_read_file(RB "/nolock.err", NULL);
    snprintf(want, sizeof want, "rocesim: %s/" DIRLOCK_NAME ": cannot lock (%s): a second command into this directory "
             "would not be refused\n", dir, strerror(ENOLCK));
    CU_ASSERT_STRING_EQUAL(note ? note : "", want);
    free(note);
    CU_ASSERT(access(RB "/nolock/a/b", F_OK) == 0 && access(RB "/nolock/a/b/" DIRLOCK_NAME, F_OK) != 0);
    dirlock_release(&l);
    CU_ASSERT(access(RB "/nolock", F_OK) != 0);

    /* Another's lock file stays. */
    make_dirs(dir);
    test_write_text(RB "/nolock/a/b/" DIRLOCK_NAME, "1\nrocesim run\n");
    flock_errno = ENOLCK;
    fflush(stderr);
    saved = dup(2);
    f = open("/dev/null", O_WRONLY);
    dup2(f, 2);
    close(f);
    rc = dirlock_take(&l, dir, err, sizeof err);
    flock_errno = 0;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CU_ASSERT_EQUAL(rc, 0);
    dirlock_release(&l);
    CU_ASSERT(access(RB "/nolock/a/b/" DIRLOCK_NAME, F_OK) == 0);
    test_run("rm -rf " RB "/nolock " RB "/nolock.err", NULL);
}

/*
 * A directory that existed when the lock was first tried, then removed by the holder that had made it as it left,
 * is this command's once it makes it again: its release removes it (empty), as any directory it made.
 */
static void test_lock_dir_made_again(void)
{
    const char *dir = RB "/again/d";
    char err[512];
    make_dirs(RB);
    test_run("rm -rf " RB "/again", NULL);
    make_dirs(dir);
    struct dirlock l;
    flock_gone = RB "/again/d";
    CU_ASSERT_EQUAL_FATAL(dirlock_take(&l, dir, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(flock_gone);
    CU_ASSERT_STRING_EQUAL(l.made, dir);
    CU_ASSERT(access(RB "/again/d/" DIRLOCK_NAME, F_OK) == 0);
    dirlock_release(&l);
    CU_ASSERT(access(RB "/again/d", F_OK) != 0 && access(RB "/again", F_OK) == 0);
    test_run("rm -rf " RB "/again", NULL);
}

/*
 * Over MPI ranks only rank 0 takes the lock: a directory in use refuses `rocesim-mpi run`, sweep and tune at once
 * (every rank stops, none waits for the others), and a free one is run as always.
 */
static void test_mpi_dir_locked(void)
{
    const char *bin = test_mpi_bin("the MPI lock test");
    if (!bin)
        return;
    const char *dir = RB "/mpi-locked";
    struct dirlock l;
    char err[512], cmd[2048], want[512], *out = NULL;
    test_run("rm -rf " RB "/mpi-locked", NULL);
    CU_ASSERT_EQUAL_FATAL(dirlock_take(&l, dir, err, sizeof err), 0);
    static const char *const what[] = {"run scenarios/dumbbell.json --no-plot", "sweep scenarios/sweeps/dcqcn-g-kmin.json",
                                       "tune scenarios/tune/incast-mix-g-kmin.json"};
    static const char *const who[] = {"rocesim", "rocesim sweep", "rocesim tune"};
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, "timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 %s %s -q -o %s", bin,
                 what[k], dir);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        snprintf(want, sizeof want, "%s: %s: output directory in use by another rocesim (pid %d: ", who[k], dir,
                 (int)getpid());
        CU_ASSERT(out && strstr(out, want) && strstr(out, want) == strstr(out, "rocesim"));
        if (!(out && strstr(out, want)))
            fprintf(stderr, "\n  %s: %s\n", what[k], out ? out : "(nothing)");
        CU_ASSERT_PTR_NULL(out && strstr(out, "another MPI rank"));
        free(out);
    }
    dirlock_release(&l);
    CU_ASSERT(access(RB "/mpi-locked/" DIRLOCK_NAME, F_OK) != 0);
    snprintf(cmd, sizeof cmd, "timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 %s run "
             "scenarios/dumbbell.json -q --no-plot -o %s", bin, dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    CU_ASSERT(access(RB "/mpi-locked/summary.json", F_OK) == 0 && access(RB "/mpi-locked/" DIRLOCK_NAME, F_OK) != 0);
}

/* Two SIGINTs back to back: the process dies of the second, or, if it was quicker, exits 130 with whole files. */
static void test_second_sigint_exits_at_once(void)
{
    const char *dir = RB "/sigint2";
    make_dirs(RB);
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
    const char *dir = RB "/maxwall";
    make_dirs(RB);
    double t0 = now_s();
    pid_t pid = start_long_run(dir, "--max-wall 300ms --threads 4");
    CU_ASSERT_FATAL(pid > 0);
    int st = wait_for(pid, 10);
    CU_ASSERT(now_s() - t0 < 3);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    check_incomplete_outputs(dir, "max-wall 300ms reached");
}

static void test_max_wall_bad_value(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json --max-wall ten -o " RB "/x", test_rocesim_bin());
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
    make_dirs(RB);
    write_fat_tree(RB "/k200.json", 200);
    write_fat_tree(RB "/k100.json", 100);
    char cmd[512], *out = NULL;
    double t0 = now_s();
    /* k=200 is beyond the loader's host limit; the refusal still says what it would cost. */
    snprintf(cmd, sizeof cmd, "%s run " RB "/k200.json -q -o " RB "/big", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "k200.json: topology") && strstr(out, "GB of memory"));
    free(out);
    /* k=100 (250000 hosts) passes the loader: the memory estimate refuses it, before anything is built. */
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=2GB %s run " RB "/k100.json -q -o " RB "/big",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "fat-tree k=100 needs about ") && strstr(out, "GB of memory (routing tables ") &&
              strstr(out, "this machine has 2.0 GB available"));
    free(out);
    /* check refuses it the same way. */
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=1GB %s check " RB "/k100.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    CU_ASSERT(now_s() - t0 < 3);
    struct stat sb;
    CU_ASSERT(stat(RB "/big", &sb) != 0); /* nothing created */
}


/* Under `ulimit -v` the estimate compares with what the limit leaves: exit 2 and the estimate, not SIGABRT. */
static void test_ulimit_refused(void)
{
    if (test_skip_under_asan("the ulimit -v refusal test"))
        return;
    make_dirs(RB);
    write_fat_tree(RB "/k40.json", 40); /* about 227 MB estimated, 186 MB peak RSS */
    char cmd[768], *out = NULL;
    snprintf(cmd, sizeof cmd, "rm -rf " RB "/k40; bash -c 'ulimit -v 150000; exec %s run "
             RB "/k40.json -q --no-plot -o " RB "/k40'", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    const char *head = "rocesim: " RB "/k40.json: topology: fat-tree k=40 needs about ";
    CU_ASSERT(strncmp(out, head, strlen(head)) == 0);
    CU_ASSERT(strstr(out, " MB of memory (routing tables ") != NULL);
    /* 150000 KB less what the process maps before the check (its VmSize, a few MB). */
    const char *left = strstr(out, "; the address-space limit (ulimit -v) leaves ");
    int mb = 0;
    CU_ASSERT(left && sscanf(left, "; the address-space limit (ulimit -v) leaves %d MB", &mb) == 1);
    CU_ASSERT(mb > 120 && mb < 154);
    CU_ASSERT(strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    struct stat sb;
    CU_ASSERT(stat(RB "/k40", &sb) != 0); /* nothing created */
}

/* A CDF of 1 and 2 byte flows (mean 1.25 B) and a poisson load of them on 4 hosts at 100 Gbps. */
static void write_tiny_poisson(const char *stop)
{
    make_dirs(RB);
    FILE *f = fopen(RB "/tiny.cdf", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "1 0.5\n2 1\n");
    fclose(f);
    f = fopen(RB "/tiny-poisson.json", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"name\": \"tiny\", \"stop\": \"%s\", \"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": "
               "{\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"poisson\", \"hosts\": \"all\", "
               "\"load\": 0.5, \"size_cdf\": \"tiny.cdf\"}], \"monitor\": {\"flows\": \"none\"}}\n", stop);
    fclose(f);
}

/*
 * A poisson load of 1-2 byte flows starts 2 million flows in 100 us (4 hosts x 0.5 x 100 Gbps x 100 us / 10 bits):
 * refused up front, naming the entry, rather than growing until the kernel or malloc says no.
 */
static void test_poisson_flows_refused(void)
{
    write_tiny_poisson("100us");
    char cmd[768], *out = NULL;
    snprintf(cmd, sizeof cmd, "rm -rf " RB "/tiny; ROCESIM_MEM_AVAILABLE=200MB %s run "
             RB "/tiny-poisson.json -q --no-plot -o " RB "/tiny", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    /* 2,000,000 flows expected, plus 4 standard deviations (4 x 1414.2). */
    CU_ASSERT_STRING_EQUAL(out, "rocesim: " RB "/tiny-poisson.json: traffic.0: a poisson load of mean flow "
                                "size 1.25 B over 100us on star with 4 hosts starts about 2005657 flows, which need "
                                "about 1.6 GB of memory (1.6 GB in all); this machine has 200 MB available "
                                "($ROCESIM_MEM_AVAILABLE)\n");
    free(out);
    struct stat sb;
    CU_ASSERT(stat(RB "/tiny", &sb) != 0);
}

/* A value of $ROCESIM_MEM_AVAILABLE that is not a size is an error, not "no limit". */
static void test_mem_available_garbage(void)
{
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=garbage %s check scenarios/dumbbell.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_STRING_EQUAL(out, "rocesim: $ROCESIM_MEM_AVAILABLE: expected a size like \"20KB\", got \"garbage\" "
                                "(no number)\n");
    free(out);
    snprintf(cmd, sizeof cmd, "ROCESIM_MEM_AVAILABLE=2Gb %s check scenarios/dumbbell.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "$ROCESIM_MEM_AVAILABLE: expected a size like \"20KB\", got \"2Gb\""));
    free(out);
}

/*
 * Memory running out in the middle of a run (here the estimate is told there is plenty and RLIMIT_AS is then
 * lowered under the running process, as any misjudged estimate would end): one line "rocesim: out of memory
 * ..." and exit status 4 (sim/mem.h MEM_EXIT_OOM), not SIGABRT.
 */
static void test_oom_mid_run(void)
{
    if (test_skip_under_asan("the out-of-memory-mid-run test"))
        return;
    write_tiny_poisson("1ms");
    const char *log = RB "/oom.log";
    fflush(NULL); /* the child must not write the parent's buffered output again when it exits */
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(100);
        setenv("ROCESIM_MEM_AVAILABLE", "1000GB", 1);
        struct scenario s;
        struct run r;
        char err[SCN_ERR_MAX];
        if (scn_load(RB "/tiny-poisson.json", NULL, 0, &s, err, sizeof err) ||
            run_setup(&r, &s, err, sizeof err))
            _exit(101);
        long long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%lld", &pages) != 1)
            _exit(102);
        fclose(f);
        struct rlimit rl = {0, 0};
        rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (32u << 20);
        if (setrlimit(RLIMIT_AS, &rl))
            _exit(103);
        run_execute(&r); /* 20 million flows: does not fit in 32 MB more */
        _exit(0);
    }
    int st = wait_for(pid, 60);
    CU_ASSERT_FATAL(st != -1);
    CU_ASSERT(WIFEXITED(st));
    CU_ASSERT_EQUAL(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 4);
    char *text = test_read_file(log, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT(strncmp(text, "rocesim: out of memory ", 23) == 0);
    CU_ASSERT(strchr(text, '\n') == text + strlen(text) - 1); /* one line */
    CU_ASSERT(strstr(text, "network") == NULL);                /* nothing was being built */
    free(text);
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
    CU_ASSERT_EQUAL(e.poisson_flows, 0);
    CU_ASSERT_EQUAL(e.poisson_entry, -1);
    scn_free(&s);
    /* A poisson load: rate x duration / mean size per host, plus 4 standard deviations, at ~700 B a flow. */
    write_tiny_poisson("100us");
    CU_ASSERT_EQUAL_FATAL(scn_load(RB "/tiny-poisson.json", NULL, 0, &s, err, sizeof err), SCN_OK);
    e = limits_estimate_memory(&s);
    CU_ASSERT_DOUBLE_EQUAL(e.poisson_flows, 2e6 + 4 * sqrt(2e6), 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(e.flows, e.poisson_flows, 1e-9);
    CU_ASSERT_EQUAL(e.poisson_entry, 0);
    CU_ASSERT_DOUBLE_EQUAL(e.poisson_entry_mean, 1.25, 1e-12);
    /* each flow: its record, its name and its line in flows.csv and the summary (224 B; tools/run/limits.c); and little
     * besides for 4 hosts */
    CU_ASSERT_DOUBLE_EQUAL(e.flow_bytes, e.poisson_flows * (sizeof(struct flow) + 224), 1e-3);
    CU_ASSERT(e.total_bytes > e.flow_bytes && e.total_bytes < e.flow_bytes + 2e6);
    scn_free(&s);
    /* An all-reduce's 12,288 steps (4 ranks, 8 MiB in 4 KiB chunks on 2 channels: 2 x 3 steps of 256 chunks per
     * channel and rank): full flows while they are flows of the outputs; summarized, their places in the schedule
     * (64 B each) and records for at most 512 a host */
    static const char *const ar[2] = {
        "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"nccl\", \"id\": \"c\","
        " \"channels\": 2, \"chunk\": \"4KiB\", \"algorithm\": \"ring\", \"size\": \"8MiB\"}]}",
        "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"monitor\": {\"step_flows\": false},"
        " \"traffic\": [{\"type\": \"nccl\", \"id\": \"c\", \"channels\": 2, \"chunk\": \"4KiB\","
        " \"algorithm\": \"ring\", \"size\": \"8MiB\"}]}"};
    struct mem_estimate m[2];
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL_FATAL(scn_load_text("ar.json", ar[k], NULL, 0, &s, err, sizeof err), SCN_OK);
        m[k] = limits_estimate_memory(&s);
        scn_free(&s);
    }
    printf("\n    all-reduce, %.0f steps: %.1f MB as flows, %.1f MB summarized ", m[0].flows, m[0].flow_bytes / 1e6,
           (m[1].flow_bytes + m[1].steps * 64) / 1e6);
    CU_ASSERT(m[0].flows == 12288 && m[0].steps == 0);
    CU_ASSERT_EQUAL(m[1].steps, 12288);
    CU_ASSERT_EQUAL(m[1].flows, 4 * 512);
    CU_ASSERT(m[1].total_bytes < m[0].total_bytes);
}

void test_robustness_register(void)
{
    CU_pSuite s = CU_add_suite("robustness", NULL, NULL);
    CU_add_test(s, "fuzzing regressions replay clean", test_fuzz_regressions);
    CU_add_test(s, "seed scenarios end with the invariants intact", test_seed_runs_invariants);
    CU_add_test(s, "SIGINT on 2 threads: outputs written, complete false, exit 130", test_sigint_writes_incomplete_outputs);
    CU_add_test(s, "SIGTERM: exit 143", test_sigterm_exit_status);
    CU_add_test(s, "second SIGINT exits at once", test_second_sigint_exits_at_once);
    CU_add_test(s, "a second run into a directory in use is refused; the first goes on", test_run_dir_locked);
    CU_add_test(s, "a lock whose holder was killed is no lock", test_stale_lock);
    CU_add_test(s, "no flock: no lock file left, the directories made removed at the end", test_lock_without_flock);
    CU_add_test(s, "a directory made again after its maker left is removed at the end", test_lock_dir_made_again);
    CU_add_test(s, "over MPI ranks a directory in use refuses run, sweep and tune on every rank", test_mpi_dir_locked);
    CU_add_test(s, "--max-wall stops a long run on 4 threads, marked incomplete", test_max_wall);
    CU_add_test(s, "--max-wall rejects a bad value", test_max_wall_bad_value);
    CU_add_test(s, "oversized scenario refused with an estimate", test_oversized_refused);
    CU_add_test(s, "memory estimate", test_memory_estimate);
    CU_add_test(s, "ulimit -v: refused up front with the estimate", test_ulimit_refused);
    CU_add_test(s, "poisson load of tiny flows refused up front", test_poisson_flows_refused);
    CU_add_test(s, "ROCESIM_MEM_AVAILABLE that is not a size refused", test_mem_available_garbage);
    CU_add_test(s, "out of memory mid-run: one line, exit 4", test_oom_mid_run);
}
