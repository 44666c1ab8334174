/*
 * rocesim tune, through the real binary: the search on the grid's own problem
 * finds the grid's best within 2 % with a third of its runs, twice the same;
 * a rerun replays the search from disk; an interrupted tune resumes to the
 * same answer; identical settings come out "not significantly different";
 * two objectives give a Pareto front; bad tune files exit 2 naming the place;
 * MPI ranks give the same best.json.
 */
#include "tests/tests.h"
#include "tools/common/dirlock.h"
#include "tools/explore/tune.h"

#include <cjson/cJSON.h>
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

static char root[64];

static int suite_init(void)
{
    snprintf(root, sizeof root, "/tmp/rocesim-tune-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

static cJSON *read_json(const char *path)
{
    char *t = test_read_file(path, NULL);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    return j;
}

/* The number at a dotted path of j (NAN when absent); a component may be a key holding dots in quotes: no. */
static double num_at(const cJSON *j, const char *const *keys)
{
    for (; *keys && j; keys++)
        j = cJSON_GetObjectItemCaseSensitive(j, *keys);
    return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

static bool same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = test_read_file(a, &la), *y = test_read_file(b, &lb);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/*
 * Writes text as ROOT/NAME.json (text NULL: the file is FILE, a path), runs `rocesim tune` on it into ROOT/NAME with
 * the extra options, asserts the exit status, and returns best.json parsed (NULL when absent); *out (when not NULL)
 * receives the command's output (caller frees).
 */
static cJSON *tune_into(const char *name, const char *text, const char *file, const char *opts, int want, char **out)
{
    char path[260], dir[200], cmd[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/%s.json", root, name);
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    if (text)
        test_write_text(path, text);
    snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q %s", test_rocesim_bin(), text ? path : file, dir, opts);
    int rc = test_run(cmd, &o);
    if (rc != want)
        fprintf(stderr, "\n%s: exit %d: %s\n", name, rc, o ? o : "");
    CU_ASSERT_EQUAL(rc, want);
    if (out)
        *out = o;
    else
        free(o);
    snprintf(path, sizeof path, "%s/best.json", dir);
    return read_json(path);
}

static const char *const mean_fct[] = {"result", "flows.fct_ns.mean", "mean", NULL};

/*
 * The acceptance case of the tuner: the grid of scenarios/sweeps/dcqcn-g-kmin.json (16 points x 3 seeds = 48
 * runs) against scenarios/tune/incast-mix-g-kmin.json (the same three parameters continuous over the grid's
 * ranges, the same seeds, a budget of 16 runs).  The tune's best mean FCT must be within 2 % of the grid's
 * best, and a second tune into another directory must write the same best.json and tune.csv.
 */
static void test_tune_vs_grid(void)
{
    char cmd[1024], grid[160], t1[160], t2[160], a[256], b[256];
    char *out = NULL;
    snprintf(grid, sizeof grid, "%s/grid", root);
    snprintf(t1, sizeof t1, "%s/t1", root);
    snprintf(t2, sizeof t2, "%s/t2", root);
    snprintf(cmd, sizeof cmd, "%s sweep scenarios/sweeps/dcqcn-g-kmin.json -o %s -q", test_rocesim_bin(), grid);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s tune scenarios/tune/incast-mix-g-kmin.json -o %s -q", test_rocesim_bin(), t1);
    int rc = test_run(cmd, &out);
    if (rc)
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "16 runs of a budget of 16"));
    free(out);
    snprintf(a, sizeof a, "%s/best.json", grid);
    cJSON *g = read_json(a);
    snprintf(a, sizeof a, "%s/best.json", t1);
    cJSON *t = read_json(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    double grid_best = cJSON_GetObjectItemCaseSensitive(g, "mean")->valuedouble;
    double tune_best = num_at(t, mean_fct);
    fprintf(stderr, "\n  grid best %.0f ns (48 runs), tune best %.0f ns (16 runs)\n", grid_best, tune_best);
    CU_ASSERT(tune_best <= grid_best * 1.02);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "complete")));
    CU_ASSERT_EQUAL(num_at(t, (const char *const[]){"runs_done", NULL}), 16);
    cJSON_Delete(g);
    cJSON_Delete(t);

    snprintf(cmd, sizeof cmd, "%s tune scenarios/tune/incast-mix-g-kmin.json -o %s -q -j 1", test_rocesim_bin(), t2);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(a, sizeof a, "%s/best.json", t1);
    snprintf(b, sizeof b, "%s/best.json", t2);
    CU_ASSERT(same_file(a, b));
    snprintf(a, sizeof a, "%s/tune.csv", t1);
    snprintf(b, sizeof b, "%s/tune.csv", t2);
    CU_ASSERT(same_file(a, b));
    snprintf(a, sizeof a, "%s/plots/convergence.png", t1);
    snprintf(b, sizeof b, "%s/plots/marginal_host.dcqcn.g.png", t1);
    if (test_run("command -v gnuplot >/dev/null", NULL) == 0)
        CU_ASSERT(access(a, F_OK) == 0 && access(b, F_OK) == 0);

    /* check knows a tune file. */
    snprintf(cmd, sizeof cmd, "%s check scenarios/tune/incast-mix-g-kmin.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"budget\":\t16"));
    free(out);

    /* The NIC side of the recommendation. */
    snprintf(cmd, sizeof cmd, "%s nic-config --from %s/best.json", test_rocesim_bin(), t1);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "dce_tcp_g"));
    free(out);
}

/* A rerun into the same directory replays the search from the runs on disk: nothing runs, same best.json; with
 * three run directories removed, exactly those three run again. */
static void test_tune_rerun(void)
{
    char cmd[1024], t1[160], a[256], b[256], *out = NULL;
    snprintf(t1, sizeof t1, "%s/t1", root);
    snprintf(a, sizeof a, "%s/best.json", t1);
    snprintf(b, sizeof b, "%s/best.before.json", root);
    snprintf(cmd, sizeof cmd, "cp %s %s", a, b);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s tune scenarios/tune/incast-mix-g-kmin.json -o %s -q", test_rocesim_bin(), t1);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "0 run now, 16 found done"));
    free(out);
    CU_ASSERT(same_file(a, b));
    snprintf(cmd, sizeof cmd, "ls -d %s/runs/*/ | sort | tail -3 | xargs rm -rf", t1);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s tune scenarios/tune/incast-mix-g-kmin.json -o %s -q", test_rocesim_bin(), t1);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "3 run now, 13 found done"));
    free(out);
    CU_ASSERT(same_file(a, b));
}

static const char slow_tune[] =
    "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
    " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"},\n"
    "            \"switch.ecn.kmin\": {\"min\": \"2KB\", \"max\": \"50KB\", \"scale\": \"log\"}},\n"
    " \"objective\": {\"minimize\": \"flows.slowdown.p99\", \"flows\": {\"size_max\": \"100KB\"}},\n"
    " \"seeds\": [1, 2, 3], \"confirm_seeds\": [11, 12], \"budget\": {\"runs\": 45}}\n";

/* Waits until dir holds at least n entries whose names match the grep pattern ("" for any), or secs pass. */
static bool wait_entries(const char *dir, const char *pattern, int n, double secs)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test $(ls %s 2>/dev/null | grep -c -- '%s') -ge %d", dir, pattern, n);
    for (int i = 0; i < secs * 50; i++) {
        if (test_run(cmd, NULL) == 0)
            return true;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Starts `rocesim tune FILE -j 1 -o DIR -q` with its output into log; returns its pid. */
static pid_t start_tune(const char *file, const char *dir, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(test_rocesim_bin(), "rocesim", "tune", file, "-j", "1", "-o", dir, "-q", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* The rows of DIR/tune.csv, and how many of them a signal stopped or left unstarted (status "interrupted"). */
static int csv_rows(const char *dir, int *interrupted)
{
    char path[260];
    snprintf(path, sizeof path, "%s/tune.csv", dir);
    char *t = test_read_file(path, NULL);
    int rows = 0;
    *interrupted = 0;
    for (char *p = t ? strchr(t, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
        rows++;
        char *end = strchr(p + 1, '\n');
        char *hit = strstr(p + 1, ",interrupted,");
        *interrupted += hit && (!end || hit < end);
    }
    free(t);
    return rows;
}

static const char *str_at(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/*
 * A signal in the middle of a search (-j 1, after nine runs): exit 128 + the signal; best.json "complete": false,
 * runs_done the runs that ended (not those the signal stopped), a verdict that says the tune is incomplete, and a
 * confirmation that never ran reported as not run (0 of 4 runs, no values), not as results.  Returns best.json
 * (caller deletes) and the command's output in *log_text.
 */
static cJSON *interrupt_search(const char *file, const char *dir, int sig, bool second, char **log_text)
{
    char runs[200], log[220], a[1024], want[200], cmd[1024], *out = NULL;
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    pid_t pid = start_tune(file, dir, log);
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT(wait_entries(runs, "", 10, 60));
    if (second) {
        /* A second tune into the same directory while the first runs: refused, naming the first. */
        snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, dir);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        snprintf(a, sizeof a, "rocesim tune: %s: output directory in use by another rocesim (pid %d: rocesim tune %s -j 1 "
                 "-o %s -q); wait for it to end, or give another -o\n", dir, (int)pid, file, dir);
        CU_ASSERT_STRING_EQUAL(out ? out : "", a);
        if (!out || strcmp(out, a))
            fprintf(stderr, "\n  got: %s  want: %s", out ? out : "(nothing)\n", a);
        free(out);
    }
    kill(pid, sig);
    int st = 0;
    CU_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig);
    *log_text = test_read_file(log, NULL);
    snprintf(a, sizeof a, "%s/best.json", dir);
    cJSON *j = read_json(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    int done = (int)num_at(j, (const char *const[]){"runs_done", NULL}), stopped = 0;
    int rows = csv_rows(dir, &stopped);
    CU_ASSERT(done >= 9 && done < 45);
    CU_ASSERT_EQUAL(done, rows - stopped);
    snprintf(want, sizeof want, "interrupted by SIG%s after %d of 45 runs; the same command continues the search",
             sigabbrev_np(sig), done);
    CU_ASSERT_STRING_EQUAL(str_at(j, "incomplete_reason"), want);
    snprintf(want, sizeof want, "incomplete (interrupted by SIG%s after %d of 45 runs): ", sigabbrev_np(sig), done);
    CU_ASSERT_EQUAL(strncmp(str_at(j, "verdict"), want, strlen(want)), 0);
    /* The confirmation did not run: it says so, and has no numbers. */
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(j, "confirmation");
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"runs_done", NULL}), 0);
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"runs_total", NULL}), 4);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cf, "baseline"), "result");
    const cJSON *r0 = cJSON_GetArrayItem(res, 0);
    CU_ASSERT_EQUAL(num_at(r0, (const char *const[]){"n", NULL}), 0);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(r0, "mean"));
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(r0, "values");
    CU_ASSERT(cJSON_GetArraySize(vals) == 2 && cJSON_IsNull(cJSON_GetArrayItem(vals, 0)));
    const cJSON *cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparison"), 0);
    CU_ASSERT_STRING_EQUAL(str_at(cmp, "seeds"), "seeds");
    CU_ASSERT_PTR_NOT_NULL(*log_text && strstr(*log_text, "    on the 2 confirmation seeds: not run (interrupted)\n"));
    CU_ASSERT_PTR_NULL(*log_text && strstr(*log_text, "confirmation seeds: best"));
    snprintf(want, sizeof want, "\n  verdict: incomplete (interrupted by SIG%s after %d of 45 runs): ",
             sigabbrev_np(sig), done);
    CU_ASSERT_PTR_NOT_NULL(*log_text && strstr(*log_text, want));
    /* The plots say it too (their scripts are written with or without gnuplot). */
    snprintf(a, sizeof a, "%s/plots/convergence.gp", dir);
    char *gp = test_read_file(a, NULL);
    snprintf(want, sizeof want, "title = 'tune slow.json (incomplete: interrupted by SIG%s after %d of 45 runs): "
             "convergence, ", sigabbrev_np(sig), done);
    CU_ASSERT_PTR_NOT_NULL(gp && strstr(gp, want));
    free(gp);
    return j;
}

/*
 * SIGINT in the middle of a search (see interrupt_search); while it runs, a second tune into the same directory is
 * refused (exit 2, naming the first), and disturbs nothing: the same command then finishes the search, and its
 * best.json and tune.csv are those an uninterrupted tune writes.
 */
static void test_tune_interrupted(void)
{
    char file[160], ref[160], dir[160], cmd[1024], a[256], b[256], *text = NULL;
    snprintf(file, sizeof file, "%s/slow.json", root);
    snprintf(ref, sizeof ref, "%s/slow-ref", root);
    snprintf(dir, sizeof dir, "%s/slow", root);
    test_write_text(file, slow_tune);
    snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, ref);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);

    cJSON *j = interrupt_search(file, dir, SIGINT, true, &text);
    cJSON_Delete(j);
    free(text);
    snprintf(a, sizeof a, "%s/" DIRLOCK_NAME, dir);
    CU_ASSERT(access(a, F_OK) != 0);

    snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(a, sizeof a, "%s/best.json", dir);
    snprintf(b, sizeof b, "%s/best.json", ref);
    CU_ASSERT(same_file(a, b));
    snprintf(a, sizeof a, "%s/tune.csv", dir);
    snprintf(b, sizeof b, "%s/tune.csv", ref);
    CU_ASSERT(same_file(a, b));
}

/* SIGTERM, as SIGINT: the outputs so far, marked incomplete, and exit 143 (128 + 15), as `rocesim run`'s. */
static void test_tune_sigterm(void)
{
    char file[160], dir[160], *text = NULL;
    snprintf(file, sizeof file, "%s/slow.json", root);
    snprintf(dir, sizeof dir, "%s/slow-term", root);
    test_write_text(file, slow_tune);
    cJSON *j = interrupt_search(file, dir, SIGTERM, false, &text);
    cJSON_Delete(j);
    free(text);
}

/*
 * A signal during the confirmation: the baseline is slow (100 ms of Poisson traffic), so with -j 1 the winner's
 * three confirmation runs are done, then the baseline's two first, when its third is in flight.  best.json reports
 * each on the runs it has (3 and 2 of 3 seeds, the missing one null), says 5 of 6 runs, compares them on the two
 * seeds both ran; the same command then finishes the confirmation.
 */
static void test_tune_interrupted_confirmation(void)
{
    char file[160], dir[160], runs[200], log[200], a[256], cmd[1024], *text = NULL;
    snprintf(file, sizeof file, "%s/conf.json", root);
    snprintf(dir, sizeof dir, "%s/conf", root);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(log, sizeof log, "%s/conf.log", root);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                          " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"}},\n"
                          " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1, 2],\n"
                          " \"confirm_seeds\": [11, 12, 13],\n"
                          " \"baseline\": {\"values\": {\"traffic.3.end\": \"100ms\", \"stop\": \"100ms\"}},\n"
                          " \"budget\": {\"runs\": 6}, \"search\": {\"optimizer\": \"none\"}}\n");
    pid_t pid = start_tune(file, dir, log);
    CU_ASSERT_FATAL(pid > 0);
    /* the baseline's third run is the second of seed 13 (the winner's is the first) */
    CU_ASSERT(wait_entries(runs, "-s13$", 2, 60));
    kill(pid, SIGINT);
    int st = 0;
    CU_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 130);
    text = test_read_file(log, NULL);
    snprintf(a, sizeof a, "%s/best.json", dir);
    cJSON *j = read_json(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    CU_ASSERT_STRING_EQUAL(str_at(j, "incomplete_reason"), "interrupted by SIGINT in the confirmation, after 5 of its "
                                                           "6 runs; the same command finishes it");
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(j, "confirmation");
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"runs_done", NULL}), 5);
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"runs_total", NULL}), 6);
    const char *key = cJSON_GetObjectItemCaseSensitive(cf, "recommendation") ? "recommendation" : "best_found";
    const char *obj = "flows.fct_ns.p99";
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){key, "result", obj, "n", NULL}), 3);
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"baseline", "result", obj, "n", NULL}), 2);
    const cJSON *bv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cf,
                                         "baseline"), "result"), obj), "values");
    CU_ASSERT(cJSON_GetArraySize(bv) == 3 && cJSON_IsNumber(cJSON_GetArrayItem(bv, 1)) &&
              cJSON_IsNull(cJSON_GetArrayItem(bv, 2)));
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cf, "baseline"),
                                                             "feasible")));
    const cJSON *cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparison"), 0);
    CU_ASSERT_STRING_EQUAL(str_at(cmp, "seeds"), "confirm_seeds");
    CU_ASSERT_EQUAL(num_at(cmp, (const char *const[]){"n", NULL}), 2);
    const char *want = "incomplete (interrupted by SIGINT in the confirmation, after 5 of its 6 runs): ";
    CU_ASSERT_EQUAL(strncmp(str_at(j, "verdict"), want, strlen(want)), 0);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "    on the confirmation seeds, 5 of 6 runs done (interrupted): best "));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, " (3 seeds), baseline "));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, " (2 seeds)\n"));
    free(text);
    cJSON_Delete(j);

    snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &text), 0);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "    on the 3 confirmation seeds: best "));
    free(text);
    j = read_json(a);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    cf = cJSON_GetObjectItemCaseSensitive(j, "confirmation");
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"runs_done", NULL}), 6);
    CU_ASSERT_EQUAL(num_at(cf, (const char *const[]){"baseline", "result", obj, "n", NULL}), 3);
    cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparison"), 0);
    CU_ASSERT_EQUAL(num_at(cmp, (const char *const[]){"n", NULL}), 3);
    cJSON_Delete(j);
}

/*
 * Settings with identical results: with cc "none" DCQCN's g changes nothing, so every candidate's runs equal
 * the baseline's seed by seed, and the verdict must be "not significantly different".
 */
static void test_tune_identical(void)
{
    char cmd[1024], file[200];
    snprintf(file, sizeof file, "%s/same.json", root);
    test_write_text(file, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                          " \"params\": {\"host.dcqcn.g\": {\"min\": 0.01, \"max\": 0.5, \"scale\": \"log\"}},\n"
                          " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"},\n"
                          " \"seeds\": [1, 2, 3], \"baseline\": {\"values\": {\"host.cc\": \"none\"}},\n"
                          " \"budget\": {\"runs\": 12}, \"search\": {\"optimizer\": \"none\"}}\n");
    /* The candidates need cc none too: the scenario's own cc is dcqcn, so set it through a copy. */
    snprintf(cmd, sizeof cmd, "sed 's/\"cc\": \"dcqcn\"/\"cc\": \"none\"/' scenarios/sweeps/incast-mix.json > %s/nocc.json"
             " && sed -i 's#scenarios/sweeps/incast-mix.json#%s/nocc.json#' %s", root, root, file);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    cJSON *j = tune_into("same", NULL, file, "", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparison"), 0);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cmp, "verdict");
    CU_ASSERT(cJSON_IsString(v) && strncmp(v->valuestring, "not significantly different", 27) == 0);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cmp, "significant")));
    CU_ASSERT_EQUAL(num_at(cmp, (const char *const[]){"p", NULL}), 1);
    CU_ASSERT_EQUAL(num_at(cmp, (const char *const[]){"difference", NULL}), 0);
    /* The winner is a search candidate, not the baseline compared with itself: a tie keeps the search's. */
    CU_ASSERT(num_at(j, (const char *const[]){"candidate", NULL}) > 0);
    cJSON_Delete(j);
}

/* Part of the box gives scenarios the loader refuses (kmin above the scenario's kmax of 200KB): those runs fail,
 * are recorded with their status, and the search goes on to a recommendation inside the valid part; as a sweep,
 * the tune then exits 1, and failures.txt keeps why each run failed and the command that repeats it. */
static void test_tune_failed_runs(void)
{
    char cmd[1024], want[400], *out = NULL;
    cJSON *j = tune_into("fail", "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                                 " \"params\": {\"switch.ecn.kmin\": {\"min\": \"2KB\", \"max\": \"1MB\", \"scale\": \"log\"}},\n"
                                 " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1, 2],\n"
                                 " \"budget\": {\"runs\": 20}}\n", NULL, "", 1, &out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    int failed = (int)num_at(j, (const char *const[]){"search", "failed_runs", NULL});
    CU_ASSERT(failed >= 1);
    snprintf(want, sizeof want, "rocesim tune: %d of 20 runs failed; see %s/fail/failures.txt\n", failed, root);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(best.json, tune.csv, failures.txt, runs/)"));
    free(out);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "parameters"), "switch.ecn.kmin");
    CU_ASSERT(cJSON_IsString(k));
    cJSON_Delete(j);
    /* Every failed run is a row of tune.csv with the loader's exit status. */
    snprintf(cmd, sizeof cmd, "test $(grep -c ',exit 2,' %s/fail/tune.csv) -eq %d", root, failed);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    /* ... and an entry of failures.txt: its run, its status, the command and the loader's message. */
    snprintf(want, sizeof want, "%s/fail/failures.txt", root);
    char *f = test_read_file(want, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    snprintf(want, sizeof want, "%d of 20 runs failed.  Repeat one with the command shown to see all of its "
             "messages.\n", failed);
    CU_ASSERT_EQUAL(strncmp(f, want, strlen(want)), 0);
    int entries = 0, cmds = 0, why = 0;
    for (const char *p = f; (p = strstr(p, ": exit 2\n  rocesim run scenarios/sweeps/incast-mix.json --set "
                                            "'switch.ecn.kmin=\"")); p++)
        entries++;
    for (const char *p = f; (p = strstr(p, "\"' --seed ")); p++)
        cmds++;
    for (const char *p = f; (p = strstr(p, "\n  | rocesim: scenarios/sweeps/incast-mix.json: switch.ecn.kmax: expected "
                                            "a size at least kmin (")); p++)
        why++;
    CU_ASSERT_EQUAL(entries, failed);
    CU_ASSERT_EQUAL(cmds, failed);
    CU_ASSERT_EQUAL(why, failed);
    free(f);
}

/* Runs that succeed without a value of the objective (no flow of the subset): each is a failure of failures.txt
 * saying why, and the tune exits 1. */
static void test_tune_no_objective(void)
{
    char want[600], *out = NULL;
    cJSON *j = tune_into("noobj", "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                                  " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"}},\n"
                                  " \"objective\": {\"minimize\": \"flows.fct_ns.p99\", \"flows\": {\"size_min\": \"500MB\"}},\n"
                                  " \"seeds\": [1, 2], \"budget\": {\"runs\": 6}}\n", NULL, "", 1, &out);
    snprintf(want, sizeof want, "rocesim tune: 6 of 6 runs failed; see %s/noobj/failures.txt\n", root);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    free(out);
    CU_ASSERT_EQUAL(num_at(j, (const char *const[]){"search", "failed_runs", NULL}), 6);
    cJSON_Delete(j);
    snprintf(want, sizeof want, "%s/noobj/failures.txt", root);
    char *f = test_read_file(want, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const char *head = "6 of 6 runs failed.  Repeat one with the command shown to see all of its messages.\n";
    CU_ASSERT_EQUAL(strncmp(f, head, strlen(head)), 0);
    /* The baseline's first run: the scenario as it is, so no --set. */
    CU_ASSERT_PTR_NOT_NULL(strstr(f, "-s1: no objective\n  rocesim run scenarios/sweeps/incast-mix.json --seed 1\n"
                                     "  | the run succeeded, but its objective (flows.fct_ns.p99 (flows from 500MB)) "
                                     "has no value: no flow of the subset finished, or its summary.json has no such "
                                     "number\n"));
    int entries = 0;
    for (const char *p = f; (p = strstr(p, ": no objective\n")); p++)
        entries++;
    CU_ASSERT_EQUAL(entries, 6);
    free(f);
}

/*
 * A constraint whose metric has no value on a seed that has a result (seed 10 finishes no flow of 5 MB or more,
 * seeds 1, 3 and 11 do): on the confirmation seeds its entry has n (the seeds with a result) and values, no
 * statistics, and is not met.
 */
static void test_tune_constraint_missing(void)
{
    cJSON *j = tune_into("consmiss", "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                                     " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"}},\n"
                                     " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"},\n"
                                     " \"constraints\": [{\"metric\": \"flows.fct_ns.p99\", \"flows\": {\"size_min\": \"5MB\"},"
                                     " \"max\": 1e12}],\n"
                                     " \"seeds\": [1, 3], \"confirm_seeds\": [11, 10], \"budget\": {\"runs\": 6}}\n",
                         NULL, "--no-plot", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                                                          cJSON_GetObjectItemCaseSensitive(j, "confirmation"),
                                                          "baseline"), "result"), "flows.fct_ns.p99{'size_min':'5MB'}");
    CU_ASSERT_EQUAL(num_at(b, (const char *const[]){"n", NULL}), 2);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(b, "mean"));
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(b, "ci95"));
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(b, "values");
    CU_ASSERT(cJSON_GetArraySize(vals) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(vals, 0)) &&
              cJSON_IsNull(cJSON_GetArrayItem(vals, 1)));
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b, "met")));
    /* On the search seeds it has a value on both: statistics, met. */
    b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j,
                                         "baseline"), "result"), "flows.fct_ns.p99{'size_min':'5MB'}");
    CU_ASSERT_EQUAL(num_at(b, (const char *const[]){"n", NULL}), 2);
    CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b, "mean")));
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "met")));
    cJSON_Delete(j);
}

/*
 * A box where every setting is worse than the baseline (a CNP every 30-100 us against the baseline's 4 us): best.json
 * recommends the baseline, keeps the search's best under best_found, and nic-config --from prints the baseline's
 * 4 us.  The step keeps every value run a whole number of microseconds; --no-plot draws nothing.
 */
static void test_tune_keep_baseline(void)
{
    char cmd[1024], a[256], *out = NULL;
    cJSON *j = tune_into("keep", "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                                 " \"params\": {\"host.dcqcn.cnp_interval\": {\"min\": \"30us\", \"max\": \"100us\", \"step\": \"1us\"}},\n"
                                 " \"objective\": {\"minimize\": \"flows.slowdown.p99\", \"flows\": {\"size_max\": \"100KB\"}},\n"
                                 " \"seeds\": [1, 2], \"baseline\": {\"values\": {\"host.dcqcn.cnp_interval\": \"4us\"}},\n"
                                 " \"budget\": {\"runs\": 10}}\n", NULL, "--no-plot", 0, &out);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "verdict: keep the baseline: "));
    free(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "recommendation");
    CU_ASSERT(cJSON_IsString(r) && strcmp(r->valuestring, "baseline") == 0);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "parameters"),
                                                      "host.dcqcn.cnp_interval");
    CU_ASSERT(cJSON_IsString(v) && strcmp(v->valuestring, "4us") == 0);
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(j, "best_found"));
    cJSON_Delete(j);
    snprintf(cmd, sizeof cmd, "%s nic-config --from %s/keep/best.json", test_rocesim_bin(), root);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "echo 4 > /sys/class/net/$IF/ecn/roce_np/min_time_between_cnps"));
    free(out);
    /* Every value run: a whole number of us (the column holds the value as run, e.g. 35us). */
    snprintf(cmd, sizeof cmd, "cut -d, -f5 %s/keep/tune.csv | grep -v '^host' | grep -v '^$' | grep -cv '^[0-9]*us$'",
             root);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1); /* grep -c finds no other value: count 0, exit 1 */
    CU_ASSERT_PTR_NOT_NULL(out && strncmp(out, "0", 1) == 0);
    free(out);
    snprintf(a, sizeof a, "%s/keep/plots/convergence.png", root);
    CU_ASSERT(access(a, F_OK) != 0);
}

/* Two objectives: a Pareto front in best.json in which no point dominates another, and its plot. */
static void test_tune_pareto(void)
{
    char dir[160], cmd[1024], a[256], *out = NULL;
    snprintf(dir, sizeof dir, "%s/pareto", root);
    snprintf(cmd, sizeof cmd, "%s tune scenarios/tune/incast-mix-pareto.json --budget 24 -o %s -q",
             test_rocesim_bin(), dir);
    int rc = test_run(cmd, &out);
    if (rc)
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    snprintf(a, sizeof a, "%s/best.json", dir);
    cJSON *j = read_json(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *front = cJSON_GetObjectItemCaseSensitive(j, "pareto");
    int n = cJSON_GetArraySize(front);
    CU_ASSERT(n >= 1);
    const char *k0 = "flows.slowdown.p99{'size_max':'100KB'}", *k1 = "flows.goodput_gbps.mean{'traffic':['bg0' 'bg1']}";
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            if (x == y)
                continue;
            const cJSON *p = cJSON_GetArrayItem(front, x), *q = cJSON_GetArrayItem(front, y);
            double p0 = num_at(p, (const char *const[]){"result", k0, "mean", NULL});
            double p1 = num_at(p, (const char *const[]){"result", k1, "mean", NULL});
            double q0 = num_at(q, (const char *const[]){"result", k0, "mean", NULL});
            double q1 = num_at(q, (const char *const[]){"result", k1, "mean", NULL});
            CU_ASSERT(!isnan(p0) && !isnan(p1));
            CU_ASSERT(!(p0 <= q0 && p1 >= q1 && (p0 < q0 || p1 > q1)));
        }
    cJSON_Delete(j);
    snprintf(a, sizeof a, "%s/plots/pareto.png", dir);
    if (test_run("command -v gnuplot >/dev/null", NULL) == 0)
        CU_ASSERT(access(a, F_OK) == 0);
}

/*
 * Every local optimizer of the table runs a search to the end of its budget (a design that leaves room for a
 * local search: design_share 0.3) and names itself in best.json; the default's determinism is checked above.
 */
static void test_tune_optimizers(void)
{
    for (int i = 0; tune_optimizers[i].name; i++) {
        char name[64], text[1024], *out = NULL;
        snprintf(name, sizeof name, "opt-%s", tune_optimizers[i].name);
        snprintf(text, sizeof text,
                 "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                 " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"},\n"
                 "            \"switch.ecn.kmin\": {\"min\": \"2KB\", \"max\": \"50KB\", \"scale\": \"log\"}},\n"
                 " \"objective\": {\"minimize\": \"flows.slowdown.p99\", \"flows\": {\"size_max\": \"100KB\"}},\n"
                 " \"seeds\": [1, 2], \"budget\": {\"runs\": 24},\n"
                 " \"search\": {\"optimizer\": \"%s\", \"design_share\": 0.3}}\n", tune_optimizers[i].name);
        cJSON *j = tune_into(name, text, NULL, "--no-plot", 0, &out);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "24 runs of a budget of 24"));
        free(out);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "search"), "optimizer");
        CU_ASSERT(cJSON_IsString(o) && strcmp(o->valuestring, tune_optimizers[i].name) == 0);
        CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
        cJSON_Delete(j);
    }
}

/*
 * The tuner tunes any algorithm's parameters: HPCC's eta on the incast + background mix, where a lower eta keeps
 * the queue emptier at the cost of throughput.  The parameter's kind and range come from host.hpcc's table
 * (eta in (0, 1]); every value the search ran is inside the box, and nic-config refuses the recommendation,
 * which is no ConnectX setting.
 */
static void test_tune_other_algorithm(void)
{
    char *out = NULL, cmd[1024], scn[200], text[1024];
    snprintf(scn, sizeof scn, "%s/hpcc-mix.json", root);
    snprintf(cmd, sizeof cmd, "sed 's/\"cc\": \"dcqcn\"/\"cc\": \"hpcc\"/' scenarios/sweeps/incast-mix.json > %s", scn);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(text, sizeof text,
             "{\"scenario\": \"%s\",\n"
             " \"params\": {\"host.hpcc.eta\": {\"min\": 0.8, \"max\": 0.99}},\n"
             " \"objective\": {\"minimize\": \"flows.slowdown.p99\", \"flows\": {\"size_max\": \"100KB\"}},\n"
             " \"seeds\": [1, 2], \"budget\": {\"runs\": 12}, \"search\": {\"optimizer\": \"none\"}}\n", scn);
    cJSON *j = tune_into("hpcc-eta", text, NULL, "--no-plot", 0, &out);
    free(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    /* eta changes HPCC's runs: the candidates are not all equal to the baseline (the scenario's eta 0.95) */
    const cJSON *cmp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparison"), 0);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(cmp, "difference");
    CU_ASSERT(cJSON_IsNumber(d) && d->valuedouble != 0);
    cJSON_Delete(j);
    /* every value the search ran is inside the box (tune.csv's parameter column) and the runs ran HPCC */
    snprintf(cmd, sizeof cmd, "cut -d, -f5 %s/hpcc-eta/tune.csv | grep -v '^host' | grep -v '^$' | "
             "awk '$1 < 0.8 || $1 > 0.99 {bad++} END {exit bad ? 1 : 0}' && grep -q '\"cc\": \"hpcc\"\\|\"cc\":\t\"hpcc\"' "
             "$(ls -d %s/hpcc-eta/runs/*/ | head -1)scenario.json", root, root);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s nic-config %s", test_rocesim_bin(), scn);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "host.cc: expected \"dcqcn\" or \"none\" (ConnectX's sysfs settings are "
                                              "DCQCN's), got \"hpcc\""));
    free(out);
}

/* Bad tune files: exit 2, one line naming the file and the place, no output directory. */
/*
 * Objectives and constraints by the sender's FCT (to the last ACK) by name: the baseline's p99 slowdown_ack of the
 * flows up to 100KB (from flows.csv) and its fct_ack_ns.max (from summary.json) are those of a plain run of the
 * scenario, exactly, and not its receiver-side numbers.
 */
static void test_tune_sender_fct(void)
{
    cJSON *j = tune_into("ackfct", "{\"scenario\": \"scenarios/sweeps/incast-mix.json\",\n"
                                   " \"params\": {\"host.dcqcn.g\": {\"min\": 0.004, \"max\": 0.25, \"scale\": \"log\"}},\n"
                                   " \"objective\": {\"minimize\": \"flows.slowdown_ack.p99\", \"flows\": {\"size_max\": \"100KB\"}},\n"
                                   " \"constraints\": [{\"metric\": \"flows.fct_ack_ns.max\", \"max\": 1e9}],\n"
                                   " \"seeds\": [1], \"budget\": {\"runs\": 4}}\n", NULL, "--no-plot", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const char *const obj[] = {"baseline", "result", "flows.slowdown_ack.p99{'size_max':'100KB'}", "mean", NULL};
    const char *const con[] = {"baseline", "result", "flows.fct_ack_ns.max", "mean", NULL};
    double got_obj = num_at(j, obj), got_con = num_at(j, con);
    cJSON_Delete(j);
    char cmd[512], path[300];
    snprintf(cmd, sizeof cmd, "%s run scenarios/sweeps/incast-mix.json -q --no-plot -o %s/ackfct-plain >/dev/null",
             test_rocesim_bin(), root);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/ackfct-plain/flows.csv", root);
    char *csv = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    struct flowset f = {.size_min = -1, .size_max = 100000};
    struct flowset_result r;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(flowset_compute(&f, csv, &r, err, sizeof err), 0);
    free(csv);
    CU_ASSERT_EQUAL(got_obj, r.slowdown_ack.p99);
    CU_ASSERT(r.slowdown_ack.p99 != r.slowdown.p99);
    snprintf(path, sizeof path, "%s/ackfct-plain/summary.json", root);
    cJSON *sum = read_json(path);
    CU_ASSERT_EQUAL(got_con, num_at(sum, (const char *const[]){"flows", "fct_ack_ns", "max", NULL}));
    CU_ASSERT(got_con > num_at(sum, (const char *const[]){"flows", "fct_ns", "max", NULL}));
    cJSON_Delete(sum);
}

static void test_tune_bad_files(void)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}, \"seeds\": [1]}",
         "params[\"host.dcqcn.g\"].max: expected a value the scenario accepts for host.dcqcn.g, in (0, 1], got a number 2"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.gg\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}, \"seeds\": [1]}",
         "params[\"host.dcqcn.gg\"]: expected one of the fields"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"switch.ecn.kmin\": {\"min\": \"2KB\", \"max\": \"1KB\"}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}, \"seeds\": [1]}",
         "params[\"switch.ecn.kmin\"].max: expected a value above min"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"switch.ecn.kmin\": {\"min\": 2, \"max\": \"1KB\"}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}, \"seeds\": [1], \"require\": [\"switch.ecn.kmin < switch.ecn.kmx\"]}",
         "require[0]: expected two parameters listed in \"params\", got \"switch.ecn.kmx\""},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct.p99\"}, \"seeds\": [1]}",
         "objective.minimize: expected a numeric field of summary.json or a flow metric, got \"flows.fct.p99\""},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.p99\", \"flows\": {\"traffic\": [\"qeury\"]}}, \"seeds\": [1]}",
         "objective.flows.traffic[0]: expected the id of a traffic entry of"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.slowdown_acked.p99\", \"flows\": {\"size_max\": \"100KB\"}}, \"seeds\": [1]}",
         "objective.minimize: expected a flow metric (flows.total, flows.completed, flows.acked, flows.fct_ns.*, "
         "flows.slowdown.*, flows.goodput_gbps.*, to the last ACK flows.fct_ack_ns.*, flows.slowdown_ack.*; * = mean, "
         "p50, p95, p99, max) with \"flows\", got \"flows.slowdown_acked.p99\""},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1, 2], \"budget\": {\"runs\": 3}}",
         "budget.runs: expected at least 4 runs (the baseline and one candidate on each of the 2 seeds), got 3"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1, 2], \"confirm_seeds\": [2]}",
         "confirm_seeds[0]: expected seeds the search does not use, got 2 (it is also seeds[1])"},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.alpha_timer\": {\"min\": \"1us\", \"max\": \"5us\", \"step\": \"10us\"}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1]}",
         "params[\"host.dcqcn.alpha_timer\"].step: expected a step no larger than the range (max - min), got a string \"10us\""},
        {"{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2}},"
         " \"objective\": {\"minimize\": \"flows.fct_ns.p99\"}, \"seeds\": [1], \"baseline\": {\"values\": {\"switch.ecn.kmin\": \"x\"}}}",
         "baseline: expected settings that give a valid scenario, got:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[160], dir[160], cmd[1024], *out = NULL;
        snprintf(file, sizeof file, "%s/bad%zu.json", root, i);
        snprintf(dir, sizeof dir, "%s/bad%zu", root, i);
        test_write_text(file, cases[i].text);
        snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, dir);
        int rc = test_run(cmd, &out);
        CU_ASSERT_EQUAL(rc, 2);
        bool ok = out && strstr(out, file) && strstr(out, cases[i].msg) && strncmp(out, "rocesim tune: ", 14) == 0;
        if (!ok)
            fprintf(stderr, "\n  case %zu: got: %s\n", i, out ? out : "(nothing)");
        CU_ASSERT(ok);
        CU_ASSERT(access(dir, F_OK) != 0);
        free(out);
    }
}

/*
 * The whole line of several tune-file errors, word for word: each names the file and the place, says what was
 * expected once (the quantity's phrase is not repeated) and what was found.
 */
static void test_tune_error_text(void)
{
    static const struct {
        const char *param, *at, *msg;
    } cases[] = {
        {"\"switch.ecn.kmin\": {\"min\": \"2XB\", \"max\": \"1MB\"}", "params[\"switch.ecn.kmin\"].min",
         "expected a size like \"20KB\", got \"2XB\" (unknown unit \"XB\")"},
        {"\"host.dcqcn.cnp_interval\": {\"min\": \"4us\", \"max\": \"50\"}", "params[\"host.dcqcn.cnp_interval\"].max",
         "expected a time like \"1.5us\", got \"50\" (no unit)"},
        {"\"host.dcqcn.ai_rate\": {\"min\": \"5Mbps\", \"max\": \"1Gbit\"}", "params[\"host.dcqcn.ai_rate\"].max",
         "expected a rate like \"100Gbps\", got \"1Gbit\" (unknown unit \"Gbit\"; did you mean \"Gbps\"?)"},
        {"\"switch.ecn.kmin\": {\"min\": \"2KB\", \"max\": \"50KB\", \"step\": \"1us\"}", "params[\"switch.ecn.kmin\"].step",
         "expected a size like \"20KB\", got \"1us\" (unknown unit \"us\")"},
        {"\"host.dcqcn.cnp_interval\": {\"min\": \"4us\", \"max\": \"20s\"}", "params[\"host.dcqcn.cnp_interval\"].max",
         "expected a time of at most 17.592186044415s (where the engine's clock ends), got \"20s\""},
        {"\"host.dcqcn.cnp_interval\": {\"min\": \"4us\", \"max\": -3}", "params[\"host.dcqcn.cnp_interval\"].max",
         "expected a time like \"1.5us\", got a number -3"},
        {"\"host.dcqcn.g\": {\"min\": 0.1, \"max\": 0.2, \"scale\": \"logg\"}", "params[\"host.dcqcn.g\"].scale",
         "expected \"linear\", \"log\" or \"int\", got a string \"logg\""},
        {"\"host.dcqcn.g\": {\"choice\": [0.1, 0.1]}", "params[\"host.dcqcn.g\"].choice[1]",
         "expected each choice once, got 0.1 again (it is also params[\"host.dcqcn.g\"].choice[0])"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[160], dir[160], cmd[1024], want[1024], text[1024], *out = NULL;
        snprintf(file, sizeof file, "%s/msg%zu.json", root, i);
        snprintf(dir, sizeof dir, "%s/msg%zu", root, i);
        snprintf(text, sizeof text, "{\"scenario\": \"scenarios/sweeps/incast-mix.json\", \"params\": {%s},\n"
                 " \"objective\": {\"minimize\": \"flows.fct_ns.mean\"}, \"seeds\": [1]}\n", cases[i].param);
        test_write_text(file, text);
        snprintf(cmd, sizeof cmd, "%s tune %s -o %s -q", test_rocesim_bin(), file, dir);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        snprintf(want, sizeof want, "rocesim tune: %s: %s: %s\n", file, cases[i].at, cases[i].msg);
        CU_ASSERT_STRING_EQUAL(out ? out : "", want);
        if (!out || strcmp(out, want))
            fprintf(stderr, "\n  case %zu: got: %s  want: %s", i, out ? out : "(nothing)\n", want);
        CU_ASSERT(access(dir, F_OK) != 0);
        free(out);
    }
}

/* mpirun -np 2 over rocesim-mpi writes the same best.json and tune.csv as the local tune (skipped without MPI). */
static void test_tune_mpi(void)
{
    const char *bin = test_mpi_bin("the MPI tune test");
    if (!bin)
        return;
    char dir[160], cmd[1024], a[256], b[256], *out = NULL;
    snprintf(dir, sizeof dir, "%s/mpi", root);
    snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe -np 2 %s tune "
             "scenarios/tune/incast-mix-g-kmin.json -j 1 -o %s -q", bin, dir);
    int rc = test_run(cmd, &out);
    if (rc)
        fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    snprintf(a, sizeof a, "%s/t2/best.json", root);
    snprintf(b, sizeof b, "%s/best.json", dir);
    CU_ASSERT(same_file(a, b));
    snprintf(a, sizeof a, "%s/t2/tune.csv", root);
    snprintf(b, sizeof b, "%s/tune.csv", dir);
    CU_ASSERT(same_file(a, b));
}

void test_tune_register(void)
{
    CU_pSuite s = CU_add_suite("tune", suite_init, suite_clean);
    CU_add_test(s, "a third of the grid's runs finds the grid's best within 2 %, twice the same", test_tune_vs_grid);
    CU_add_test(s, "a rerun replays the search from the runs on disk", test_tune_rerun);
    CU_add_test(s, "SIGINT mid-search: complete false, no confirmation made up; a second tune into DIR refused; "
                   "the same command resumes to the same answer", test_tune_interrupted);
    CU_add_test(s, "SIGTERM mid-search: exit 143, complete false", test_tune_sigterm);
    CU_add_test(s, "SIGINT in the confirmation: 5 of 6 runs, each over its own; the same command finishes it",
                test_tune_interrupted_confirmation);
    CU_add_test(s, "identical results: not significantly different", test_tune_identical);
    CU_add_test(s, "two objectives: a Pareto front without dominated points", test_tune_pareto);
    CU_add_test(s, "runs the scenario refuses fail alone, the search goes on; failures.txt says why, exit 1",
                test_tune_failed_runs);
    CU_add_test(s, "runs without the objective's value are failures: failures.txt says why, exit 1",
                test_tune_no_objective);
    CU_add_test(s, "nothing beats the baseline: best.json recommends keeping it; step; --no-plot", test_tune_keep_baseline);
    CU_add_test(s, "every local optimizer of the table runs a search to its budget", test_tune_optimizers);
    CU_add_test(s, "any algorithm's parameters: HPCC's eta; nic-config refuses HPCC", test_tune_other_algorithm);
    CU_add_test(s, "objectives by the sender's FCT (to the last ACK) by name", test_tune_sender_fct);
    CU_add_test(s, "a constraint without a value on a seed: n and values, no statistics, not met",
                test_tune_constraint_missing);
    CU_add_test(s, "bad tune files exit 2 naming file and place", test_tune_bad_files);
    CU_add_test(s, "tune-file errors, the whole line word for word", test_tune_error_text);
    CU_add_test(s, "mpirun -np 2 gives the same best.json and tune.csv", test_tune_mpi);
}
