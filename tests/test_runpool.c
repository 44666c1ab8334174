/*
 * The pool of child runs (tools/explore/runpool.h) called in-process, as the tuner
 * calls it: several batches in one process, a failing run recorded without
 * harming the next batches, runs complete on disk not run again, share=true
 * on one process giving the same results as share=false, and a SIGINT that
 * arrives between two batches stopping the next one before it starts; and
 * failures.txt word for word.  The children are ./rocesim (or $ROCESIM):
 * this test binary is not rocesim.
 */
#include "tests/tests.h"
#include "tools/explore/runpool.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static int suite_init(void)
{
    snprintf(root, sizeof root, "/tmp/rocesim-pool-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    pool_end();
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

/* What run i is: a seed and optionally one bad --set, on the incast mix stopped at 200 us (milliseconds each). */
struct spec {
    int seed;
    const char *set[2];   /* extra --set PATH=VALUE pairs, or NULL */
};

struct ctx {
    const struct spec *spec;
    struct pool_run *runs;
    int calls;         /* argv built */
};

static char **make_argv(void *ctx, int i)
{
    struct ctx *c = ctx;
    c->calls++;
    char seed[32];
    snprintf(seed, sizeof seed, "%d", c->spec[i].seed);
    const char *a[] = {"rocesim", "run", "scenarios/sweeps/incast-mix.json", "--set", "stop=200us", "--seed", seed,
                       "-o", c->runs[i].dir, "-q", "--no-plot", NULL};
    size_t n = sizeof a / sizeof *a - 1;
    char **argv = calloc(n + 5, sizeof *argv);
    for (size_t k = 0; k < n; k++)
        argv[k] = strdup(a[k]);
    for (int k = 0; k < 2 && c->spec[i].set[k]; k++) {
        argv[n++] = strdup("--set");
        argv[n++] = strdup(c->spec[i].set[k]);
    }
    return argv;
}

static void free_argv(void *ctx, char **argv)
{
    (void)ctx;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

/* The pool's ops for these tests: the children are the real binary. */
static struct pool_ops ops_for(struct ctx *c)
{
    struct pool_ops ops = {.who = "tune", .argv = make_argv, .free_argv = free_argv, .ctx = c,
                           .exe = test_rocesim_bin()};
    return ops;
}

/* A number of a summary text (NAN when absent). */
static double metric(const char *summary, const char *path)
{
    cJSON *j = cJSON_Parse(summary);
    const cJSON *v = json_at_path(j, path);
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    cJSON_Delete(j);
    return d;
}

/* Sets the directories of runs[0..n) to root/name-i. */
static void name_runs(struct pool_run *runs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        snprintf(runs[i].dir, sizeof runs[i].dir, "%s/%s-%d", root, name, i);
}

/*
 * Three batches in one process over the same runs[]: the first runs 0 and 2,
 * the second 1 (a bad --set: "exit 2" with the loader's message as its tail)
 * and 3, the third 0 to 3 again: the complete ones are done before and only
 * the failed one runs again (and fails again).
 */
static void test_batches(void)
{
    static const struct spec spec[] = {{1, {NULL}}, {2, {"switch.ecn.kmin=banana"}}, {3, {NULL}}, {4, {NULL}}};
    struct pool_run runs[4];
    memset(runs, 0, sizeof runs);
    name_runs(runs, 4, "batch");
    struct ctx c = {.spec = spec, .runs = runs};
    struct pool_ops ops = ops_for(&c);
    const struct pool_comm *local = pool_local_comm();

    int first[] = {0, 2};
    CU_ASSERT_EQUAL(pool_execute(local, runs, first, 2, 2, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(c.calls, 2);
    for (int i = 0; i < 4; i += 2) {
        CU_ASSERT_EQUAL(runs[i].state, POOL_OK);
        CU_ASSERT_STRING_EQUAL(runs[i].status, "ok");
        CU_ASSERT(runs[i].mine && runs[i].started);
        CU_ASSERT_PTR_NULL(runs[i].tail);
        CU_ASSERT(runs[i].summary && metric(runs[i].summary, "seed") == spec[i].seed);
    }
    CU_ASSERT_EQUAL(runs[1].state, POOL_TODO); /* not listed: untouched */
    CU_ASSERT(!runs[1].started && !runs[1].summary && !runs[1].status[0]);

    int second[] = {3, 1};
    CU_ASSERT_EQUAL(pool_execute(local, runs, second, 2, 1, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(c.calls, 4);
    CU_ASSERT_EQUAL(runs[1].state, POOL_FAILED);
    CU_ASSERT_STRING_EQUAL(runs[1].status, "exit 2");
    CU_ASSERT_PTR_NULL(runs[1].summary);
    CU_ASSERT(runs[1].tail && strstr(runs[1].tail, "rocesim: scenarios/sweeps/incast-mix.json: switch.ecn.kmin "
                                                   "(from --set): expected a size like \"20KB\", got \"banana\""));
    CU_ASSERT_EQUAL(runs[3].state, POOL_OK);
    CU_ASSERT(runs[3].summary && metric(runs[3].summary, "seed") == 4);
    CU_ASSERT_EQUAL(runs[0].state, POOL_OK); /* the first batch's results stay */

    char *kept = strdup(runs[2].summary);
    int again[] = {0, 1, 2, 3};
    CU_ASSERT_EQUAL(pool_execute(local, runs, again, 4, 2, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(c.calls, 5); /* only the failed run was started */
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(runs[i].state, i == 1 ? POOL_FAILED : POOL_DONE_BEFORE);
        CU_ASSERT_EQUAL(runs[i].started, i == 1);
        CU_ASSERT_EQUAL(runs[i].mine, i == 1);
    }
    CU_ASSERT_STRING_EQUAL(runs[2].status, "ok");
    CU_ASSERT(runs[2].summary && strcmp(runs[2].summary, kept) == 0);
    CU_ASSERT(runs[1].tail && strstr(runs[1].tail, "got \"banana\""));
    free(kept);
    for (int i = 0; i < 4; i++)
        pool_run_free(&runs[i]);
    CU_ASSERT_EQUAL(pool_end(), 0);
}

/* share=true on one process: the same states, statuses and metrics as share=false. */
static void test_share_local(void)
{
    static const struct spec spec[] = {{5, {NULL}}, {6, {"host.dcqcn.g=2"}}, {7, {NULL}}};
    struct pool_run a[3], b[3];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    name_runs(a, 3, "noshare");
    name_runs(b, 3, "share");
    struct ctx ca = {.spec = spec, .runs = a}, cb = {.spec = spec, .runs = b};
    struct pool_ops oa = ops_for(&ca), ob = ops_for(&cb);
    int idx[] = {2, 0, 1};
    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), a, idx, 3, 2, 0, false, false, &oa), 0);
    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), b, idx, 3, 2, 0, false, true, &ob), 0);
    CU_ASSERT_EQUAL(a[1].state, POOL_FAILED);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(a[i].state, b[i].state);
        CU_ASSERT_STRING_EQUAL(a[i].status, b[i].status);
        CU_ASSERT_EQUAL(a[i].mine, b[i].mine);
        CU_ASSERT_EQUAL(a[i].started, b[i].started);
        CU_ASSERT_EQUAL(!a[i].summary, !b[i].summary);
        CU_ASSERT_EQUAL(!a[i].tail, !b[i].tail);
        if (a[i].summary && b[i].summary) {
            double fa = metric(a[i].summary, "flows.fct_ns.mean"), fb = metric(b[i].summary, "flows.fct_ns.mean");
            CU_ASSERT(fa > 0 && fa == fb);
        }
        if (a[i].tail && b[i].tail)
            CU_ASSERT_STRING_EQUAL(a[i].tail, b[i].tail);
        pool_run_free(&a[i]);
        pool_run_free(&b[i]);
    }
    CU_ASSERT_EQUAL(pool_end(), 0);
}

/*
 * A SIGINT between two batches (while the tuner decides) is not lost: the next
 * batch returns it at once, starts nothing, and leaves its runs to do; so does
 * every batch until pool_end, which returns it; then batches run again.
 */
static void test_signal_between_batches(void)
{
    static const struct spec spec[] = {{8, {NULL}}, {9, {NULL}}};
    struct pool_run runs[2];
    memset(runs, 0, sizeof runs);
    name_runs(runs, 2, "signal");
    struct ctx c = {.spec = spec, .runs = runs};
    struct pool_ops ops = ops_for(&c);
    int first[] = {0}, second[] = {1};
    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), runs, first, 1, 1, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(runs[0].state, POOL_OK);

    raise(SIGINT); /* the pool catches it from its first call on: the test binary goes on */
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), runs, second, 1, 1, 0, false, true, &ops), SIGINT);
        CU_ASSERT_EQUAL(c.calls, 1);
        CU_ASSERT_EQUAL(runs[1].state, POOL_TODO);
        CU_ASSERT_STRING_EQUAL(runs[1].status, "interrupted");
        CU_ASSERT(!runs[1].started && runs[1].mine);
        CU_ASSERT_EQUAL(access(runs[1].dir, F_OK), -1);
    }
    CU_ASSERT_EQUAL(pool_end(), SIGINT);
    CU_ASSERT_EQUAL(pool_end(), 0);

    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), runs, second, 1, 1, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(c.calls, 2);
    CU_ASSERT_EQUAL(runs[1].state, POOL_OK);
    for (int i = 0; i < 2; i++)
        pool_run_free(&runs[i]);
    CU_ASSERT_EQUAL(pool_end(), 0);
}

/* A run past its timeout is killed and recorded as "timeout"; a program that cannot be executed fails its runs. */
static void test_timeout_and_exec(void)
{
    static const struct spec spec[] = {{10, {"stop=400ms", "traffic.3.end=400ms"}}, {11, {NULL}}};
    struct pool_run runs[2];
    memset(runs, 0, sizeof runs);
    name_runs(runs, 2, "timeout");
    struct ctx c = {.spec = spec, .runs = runs};
    struct pool_ops ops = ops_for(&c);
    int idx[] = {0};
    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), runs, idx, 1, 1, 0.05, false, false, &ops), 0);
    CU_ASSERT_EQUAL(runs[0].state, POOL_FAILED);
    CU_ASSERT_STRING_EQUAL(runs[0].status, "timeout");

    ops.exe = "/nonexistent/rocesim";
    int one[] = {1};
    CU_ASSERT_EQUAL(pool_execute(pool_local_comm(), runs, one, 1, 1, 0, false, false, &ops), 0);
    CU_ASSERT_EQUAL(runs[1].state, POOL_FAILED);
    CU_ASSERT_STRING_EQUAL(runs[1].status, "exit 127");
    CU_ASSERT(runs[1].tail && strcmp(runs[1].tail, "rocesim tune: cannot execute /nonexistent/rocesim") == 0);
    for (int i = 0; i < 2; i++)
        pool_run_free(&runs[i]);
    CU_ASSERT_EQUAL(pool_end(), 0);
}

/* The argv of failures.txt's runs: a scenario path with a space, --set values with a quote, a space, or neither. */
static char **failure_argv(void *ctx, int i)
{
    static const char *const argvs[2][16] = {
        {"rocesim", "run", "my scenarios/mix.json", "--set", "traffic.0.id=it's a flow", "--set", "stop=200us",
         "--seed", "1", "-o", "out/runs/p0-s1", "-q", "--no-plot", NULL},
        {"rocesim", "run", "mix.json", "--seed", "2", "-o", "out/runs/p2-s2", "-q", NULL},
    };
    (void)ctx;
    const char *const *a = argvs[i == 0 ? 0 : 1];
    int n = 0;
    while (a[n])
        n++;
    char **argv = calloc((size_t)n + 1, sizeof *argv);
    for (int k = 0; k < n; k++)
        argv[k] = strdup(a[k]);
    return argv;
}

/*
 * failures.txt word for word: the count of the runs that ended, each failed run's directory name and status, its
 * command up to -o with every --set value single-quoted (a ' inside as '\'') and any other word quoted only when it
 * needs it, then its stderr's tail behind "  | " (nothing for a run without one).  With no failed run, a
 * failures.txt an earlier command left is removed (and its absence is no error).
 */
static void test_write_failures(void)
{
    char dir[160], path[200];
    snprintf(dir, sizeof dir, "%s/failures", root);
    snprintf(path, sizeof path, "%s/failures.txt", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    struct pool_run runs[3];
    memset(runs, 0, sizeof runs);
    snprintf(runs[0].dir, sizeof runs[0].dir, "out/runs/p0-s1");
    snprintf(runs[0].status, sizeof runs[0].status, "exit 2");
    char tail[] = "rocesim: my scenarios/mix.json: traffic.0.id: bad\nsecond line\n";
    runs[0].tail = tail;
    snprintf(runs[2].dir, sizeof runs[2].dir, "p2-s2");
    snprintf(runs[2].status, sizeof runs[2].status, "timeout");
    struct pool_ops ops = {.argv = failure_argv, .free_argv = free_argv};
    int failed[] = {0, 2};
    CU_ASSERT_EQUAL(pool_write_failures(dir, runs, failed, 2, 3, &ops), 0);
    char *text = test_read_file(path, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "",
                           "2 of 3 runs failed.  Repeat one with the command shown to see all of its messages.\n"
                           "\n"
                           "p0-s1: exit 2\n"
                           "  rocesim run 'my scenarios/mix.json' --set 'traffic.0.id=it'\\''s a flow' --set "
                           "'stop=200us' --seed 1\n"
                           "  | rocesim: my scenarios/mix.json: traffic.0.id: bad\n"
                           "  | second line\n"
                           "\n"
                           "p2-s2: timeout\n"
                           "  rocesim run mix.json --seed 2\n");
    free(text);
    CU_ASSERT_EQUAL(pool_write_failures(dir, runs, failed, 0, 3, &ops), 0);
    CU_ASSERT(access(path, F_OK) != 0);
    CU_ASSERT_EQUAL(pool_write_failures(dir, runs, failed, 0, 3, &ops), 0);
}

void test_runpool_register(void)
{
    CU_pSuite s = CU_add_suite("runpool", suite_init, suite_clean);
    CU_add_test(s, "three batches in one process: failures kept, complete runs not run again", test_batches);
    CU_add_test(s, "share=true on one process gives the same results as share=false", test_share_local);
    CU_add_test(s, "a SIGINT between batches stops the next one before it starts", test_signal_between_batches);
    CU_add_test(s, "a timeout kills its run; an exe that cannot run fails its runs", test_timeout_and_exec);
    CU_add_test(s, "failures.txt: the count, each run's command quoted for a shell and cut at -o, its tail; "
                   "none failed removes an old one", test_write_failures);
}
