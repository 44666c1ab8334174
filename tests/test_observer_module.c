/*
 * An observer from a test file alone: "test_toy" counts the flows done and records every PFC frame, as pfc.csv
 * writes it.  Its MODULE_REGISTER line is all that makes the run open it (run_observers_open, the path of
 * `rocesim run`): nothing outside this file names it.  It is on only while a test wants it, so that the other
 * suites' runs do not see it.  And the kind refuses a table that lacks a required hook, or a name taken.
 */
#include "sim/module.h"
#include "sim/units.h"
#include "tests/tests.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct toy {
    const struct run *r;
    uint32_t flows_done;
    uint64_t bytes_done;
    char *pfc; /* the PFC frames, as pfc.csv's rows */
    size_t len, cap;
    int ends;
};

static bool toy_wanted;                   /* the test that runs it says so */
static bool toy_finished, toy_kept, toy_closed, toy_whole;

static void toy_flow(void *ctx, const struct flow *f)
{
    struct toy *t = ctx;
    t->flows_done++;
    t->bytes_done += (uint64_t)f->size;
}

static void toy_pfc(void *ctx, sim_time_t at, uint32_t node, uint32_t port, int prio, bool pause)
{
    struct toy *t = ctx;
    char ts[32], row[160];
    int n = snprintf(row, sizeof row, "%s,%s,%u,%d,%s\n", units_fmt_ns(at, ts, sizeof ts), t->r->g.nodes[node].name,
                     port, prio, pause ? "pause" : "resume");
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->pfc = realloc(t->pfc, t->cap);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t->pfc);
    }
    memcpy(t->pfc + t->len, row, (size_t)n + 1);
    t->len += (size_t)n;
}

static void toy_end(void *ctx, const struct run *r)
{
    ((struct toy *)ctx)->ends++;
}

static const struct run_observer_ops toy_watch = {
    .name = "toy", .on_flow_done = toy_flow, .on_pfc = toy_pfc, .on_end = toy_end,
};

static int toy_open(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                    char *err, size_t errlen)
{
    if (!toy_wanted)
        return 0;
    struct toy *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return SCN_EIO;
    }
    t->r = r;
    *ctx = t;
    return 0;
}

static int toy_finish(void *ctx, bool keep, char *err, size_t errlen)
{
    toy_finished = true;
    toy_kept = keep;
    return 0;
}

static void toy_close(void *ctx, bool whole)
{
    struct toy *t = ctx;
    toy_closed = true;
    toy_whole = whole;
    free(t->pfc);
    free(t);
}

static const struct observer_ops toy_ops = {
    .watch = &toy_watch, .open = toy_open, .finish = toy_finish, .close = toy_close,
};

MODULE_REGISTER(observer_kind, "test_toy", &toy_ops);

/*
 * The incast's 16 flows of 1 MB, with every PFC frame in pfc.csv (monitor.pfc "all"), run as `rocesim run` runs:
 * the toy, opened after the monitor, hears every flow done and every frame the monitor writes, in its order.
 */
static void test_toy_end_to_end(void)
{
    char dir[] = "/tmp/rocesim-observer-module-XXXXXX", err[SCN_ERR_MAX];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    struct scn_override ov[] = {{"monitor.pfc", "all"}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, ov, 1, &scn, &r));
    const struct run_options o = {.dir = dir, .quiet = true};
    toy_wanted = true;
    toy_finished = toy_kept = toy_closed = toy_whole = false;
    int rc = run_observers_open(&r, &o, err, sizeof err);
    toy_wanted = false;
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* in module numbering: the kind's default first, then by name; the progress line is off (-q) */
    CU_ASSERT_EQUAL_FATAL(r.n_opened, 2);
    CU_ASSERT_STRING_EQUAL(r.opened[0].m->name, "monitor");
    CU_ASSERT_STRING_EQUAL(r.opened[1].m->name, "test_toy");
    struct toy *t = run_observer_ctx(&r, "test_toy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    CU_ASSERT_EQUAL(run_write_outputs(&r, dir, err, sizeof err), 0);
    CU_ASSERT_EQUAL(run_observers_finish(&r, true, err, sizeof err), 0);
    CU_ASSERT_TRUE(toy_finished && toy_kept);
    CU_ASSERT_EQUAL(t->ends, 1);
    CU_ASSERT_EQUAL(t->flows_done, 16);
    CU_ASSERT_EQUAL(t->flows_done, r.net.flows_completed);
    CU_ASSERT_EQUAL(t->bytes_done, 16 * 1000000ULL);
    /* pfc.csv is the header and the toy's rows, byte for byte */
    char path[128];
    snprintf(path, sizeof path, "%s/pfc.csv", dir);
    char *csv = test_read_file(path, NULL);
    const char *header = "time_ns,node,port,priority,event\n";
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->pfc);
    CU_ASSERT(strncmp(csv, header, strlen(header)) == 0);
    CU_ASSERT_STRING_EQUAL(csv + strlen(header), t->pfc);
    uint64_t rows = 0;
    for (const char *p = t->pfc; *p; p++)
        rows += *p == '\n';
    CU_ASSERT_EQUAL(rows, r.net.c.pause_frames + r.net.c.resume_frames);
    CU_ASSERT(rows > 100);
    free(csv);
    run_observers_close(&r, true);
    CU_ASSERT_TRUE(toy_closed && toy_whole);
    CU_ASSERT_EQUAL(r.n_opened, 0);
    CU_ASSERT_EQUAL(r.n_obs, 0);
    CU_ASSERT_EQUAL(r.net.listen.n_pfc + r.net.listen.n_flow, 0);
    test_teardown(&scn, &r);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Off for a run: the observer says so in open, and the run neither attaches nor closes it. */
static void test_toy_off(void)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    CU_ASSERT_TRUE_FATAL(test_setup_from("scenarios/dumbbell.json", NULL, NULL, 0, &scn, &r));
    /* a rank of a run over MPI other than rank 0: only the monitor, which writes nothing */
    const struct run_options o = {.dir = NULL, .ranks = true};
    toy_closed = false;
    CU_ASSERT_EQUAL_FATAL(run_observers_open(&r, &o, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r.n_opened, 1);
    CU_ASSERT_PTR_NULL(run_observer_ctx(&r, "test_toy"));
    CU_ASSERT_PTR_NULL(run_observer_ctx(&r, "progress"));
    CU_ASSERT_PTR_NOT_NULL(run_observer_ctx(&r, "monitor"));
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    CU_ASSERT_EQUAL(run_observers_finish(&r, false, err, sizeof err), 0);
    run_observers_close(&r, false);
    CU_ASSERT_FALSE(toy_closed);
    test_teardown(&scn, &r);
}

/* A table without a required hook, and a name already taken, are refused, naming the module. */
static void test_observer_refused(void)
{
    static const struct observer_ops no_open = {.watch = &toy_watch, .close = toy_close};
    static const struct observer_ops no_close = {.watch = &toy_watch, .open = toy_open};
    static const struct observer_ops no_watch = {.open = toy_open, .close = toy_close};
    static const struct {
        const struct observer_ops *ops;
        const char *name, *msg;
    } bad[] = {
        {&no_open, "test_no_open", "module observer \"test_no_open\" is refused: it lacks an open hook"},
        {&no_close, "test_no_close", "module observer \"test_no_close\" is refused: it lacks a close hook"},
        {&no_watch, "test_no_watch", "module observer \"test_no_watch\" is refused: it lacks a table of callbacks "
                                     "(watch)"},
        {&toy_ops, "monitor", "module observer \"monitor\" is refused: another module of kind observer has that "
                              "name"},
    };
    static struct module m[sizeof bad / sizeof *bad];
    int before = module_count(observer_kind.name);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        m[i] = (struct module){.kind = &observer_kind, .name = bad[i].name, .ops = bad[i].ops};
        CU_ASSERT_EQUAL(module_register(&m[i], err, sizeof err), -1);
        CU_ASSERT_STRING_EQUAL(err, bad[i].msg);
    }
    CU_ASSERT_EQUAL(module_count(observer_kind.name), before);
    CU_ASSERT_EQUAL(module_find(observer_kind.name, "test_no_open"), -1);
    CU_ASSERT_STRING_EQUAL(module_at(observer_kind.name, 0)->name, "monitor");
}

void test_observer_module_register(void)
{
    CU_pSuite s = CU_add_suite("observer_module", NULL, NULL);
    CU_add_test(s, "an observer of a test file alone is opened by the run and hears every flow and PFC frame",
                test_toy_end_to_end);
    CU_add_test(s, "an observer off for a run is neither attached nor closed", test_toy_off);
    CU_add_test(s, "an observer without open, close or callbacks, or of a name taken, is refused",
                test_observer_refused);
}
