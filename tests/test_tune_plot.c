/*
 * The tuner's plots (tools/explore/tune_plot.c) from a made-up tuning: three parameters (a log one, a linear one, a
 * choice), twenty evaluations (screening and full, two infeasible, one failed, the baseline at both
 * fidelities), one or two objectives.  Checks the data files row by row, the scripts' axis choices, the PNGs
 * (whole, when gnuplot is installed), the summary line, what a rerun removes, and a gnuplot absent or failing.
 */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/explore/tune_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[128];

enum { NE = 20 };

/* g, kmin (KB), byte_counter choice | obj0 (p99 slowdown), obj1 (goodput, Gbps) | seeds, full, feasible, baseline,
 * runs_at */
static const double X[NE][3] = {
    {0.004, 5, 0}, {0.3, 80, 2},  {0.02, 40, 1},  {0.1, 20, 0},    {0.05, 60, 1}, {0.008, 90, 2}, {0.15, 10, 0},
    {0.03, 30, 1}, {0.002, 50, 2}, {0.07, 70, 0}, {0.5, 100, 1},   {0.04, 15, 2}, {0.004, 5, 0},  {0.05, 60, 1},
    {0.04, 15, 2}, {0.07, 70, 0}, {0.02, 40, 1},  {0.1, 25, 0},    {0.045, 35, 1}, {0.3, 80, 2}};
static const double OBJ[NE][2] = {{9.5, 60}, {7.25, 70}, {4.5, 75},  {5, 80},    {3.5, 72},   {8, 65},  {6, 85},
                                  {NAN, NAN}, {11, 50},  {4, 78},    {12, 90},   {3.75, 74},  {9.25, 62}, {3.25, 73},
                                  {3.5, 76},  {4.25, 81}, {4.75, 77}, {5.5, 88},  {3, 70},    {7.5, 86}};

static const char *const choices[] = {"1MB", "10MB", "100MB"};
static const struct tune_plot_param params[3] = {
    {"host.dcqcn.g", "", true, 0, NULL},
    {"switch.ecn.kmin", "KB", false, 0, NULL},
    {"host.dcqcn.byte_counter", "", false, 3, choices},
};

static struct tune_plot_eval ev[NE];
static bool front[NE];
static const double conv_runs[] = {12, 17, 22, 47}, conv_best[] = {NAN, 9.25, 3.25, 3};

/* The made-up tuning: n_obj objectives, scale multiplies objective 1's values (for the log axis). */
static struct tune_plot_input input(int n_obj, double scale)
{
    double runs = 0;
    for (int i = 0; i < NE; i++) {
        bool full = i >= 12;
        runs += full ? 5 : 1;
        ev[i] = (struct tune_plot_eval){.x = X[i], .obj = {OBJ[i][0] * scale, OBJ[i][1]}, .seeds = full ? 5 : 1,
                                        .full = full, .feasible = i != 3 && i != 7 && i != 16,
                                        .baseline = i == 0 || i == 12, .runs_at = runs};
        /* in evaluation order: the plot sorts the front by objective 2 */
        front[i] = i == 13 || i == 14 || i == 15 || i == 17 || i == 18;
    }
    struct tune_plot_input in = {
        .title = "tune incast-mix.json",
        .n_params = 3,
        .params = params,
        .n_obj = n_obj,
        .obj_label = {"p99 slowdown, flows <= 100 KB", "goodput of the long flows"},
        .obj_unit = {"", "Gbps"},
        .maximize = {false, true},
        .n_evals = NE,
        .evals = ev,
        .n_conv = 4,
        .conv_runs = conv_runs,
        .conv_best = conv_best,
        .baseline_obj = 9.25,
        .best = n_obj == 2 ? 14 : 18,
        .on_front = n_obj == 2 ? front : NULL,
    };
    return in;
}

static bool gnuplot_present(void)
{
    return test_run("command -v gnuplot >/dev/null", NULL) == 0;
}

static char *read_in(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/plots/%s", dir, name);
    return test_read_file(p, NULL);
}

static bool exists_in(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/plots/%s", dir, name);
    return stat(p, &st) == 0;
}

/* A whole PNG, as plot_gnuplot_finish checks it: the signature first, the IEND chunk last, and a real picture. */
static bool png_whole(const char *dir, const char *name)
{
    char p[512];
    size_t len = 0;
    snprintf(p, sizeof p, "%s/plots/%s", dir, name);
    char *b = test_read_file(p, &len);
    bool ok = b && len > 5000 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0 &&
              memcmp(b + len - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12) == 0;
    free(b);
    return ok;
}

/* Whether the file holds the text. */
static bool holds(const char *dir, const char *name, const char *text)
{
    char *s = read_in(dir, name);
    bool ok = s && strstr(s, text);
    if (!ok)
        fprintf(stderr, "\n%s/plots/%s lacks:\n%s\nit holds:\n%s\n", dir, name, text, s ? s : "(nothing)");
    free(s);
    return ok;
}

static void fresh(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "%s/%s", root, name);
    mkdir(dir, 0777);
}

static int suite_init(void)
{
    snprintf(root, sizeof root, "/tmp/rocesim-tuneplot-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

static const char *const marginals[] = {"marginal_host.dcqcn.g", "marginal_switch.ecn.kmin",
                                        "marginal_host.dcqcn.byte_counter"};

static void test_one_objective(void)
{
    char dir[256], line[2048], want[1024];
    fresh(dir, sizeof dir, "one");
    struct tune_plot_input in = input(1, 1);
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    if (gnuplot_present())
        snprintf(want, sizeof want, "%s/plots/ (4 PNG: convergence.png, marginal_<param>.png per parameter)", dir);
    else
        snprintf(want, sizeof want, "gnuplot is not installed: scripts written to %s/plots/ (run gnuplot NAME.gp "
                 "there)", dir);
    CU_ASSERT_STRING_EQUAL(line, want);

    /* Convergence: the best so far (the failed start skipped, held to the last run), then the evaluations by
     * kind at the run count they finished at; the failed one nowhere. */
    CU_ASSERT(holds(dir, "convergence.dat", "# block 0: runs, best full-fidelity feasible objective so far\n"
                                            "17 9.25 1\n22 3.25 2\n47 3 3\n52 3 -1\n\n\n# block 1:"));
    CU_ASSERT(holds(dir, "convergence.dat", "objective: feasible screening evaluations\n"
                                            "1 9.5 0\n2 7.25 1\n3 4.5 2\n5 3.5 4\n6 8 5\n7 6 6\n9 11 8\n10 4 9\n"
                                            "11 12 10\n12 3.75 11\n\n\n# block 2:"));
    CU_ASSERT(holds(dir, "convergence.dat", "objective: feasible full evaluations\n"
                                            "17 9.25 12\n22 3.25 13\n27 3.5 14\n32 4.25 15\n42 5.5 17\n47 3 18\n"
                                            "52 7.5 19\n\n\n# block 3:"));
    CU_ASSERT(holds(dir, "convergence.dat", "violate a constraint\n4 5 3\n37 4.75 16\n"));
    CU_ASSERT(holds(dir, "convergence.gp", "have_base = 1\nbase = 9.25\n"));
    CU_ASSERT(holds(dir, "convergence.gp", "i_best = 0\ni_screen = 1\ni_full = 2\ni_infeas = 3\n"));
    CU_ASSERT(holds(dir, "convergence.gp", "title = 'tune incast-mix.json: convergence, minimize p99 slowdown, flows "
                                           "<= 100 KB'\nsubtitle = 'the best full-fidelity feasible value after each "
                                           "run; 20 evaluations: 12 screening, 8 full; 2 violate a constraint, 1 "
                                           "failed (not drawn)'\n"));
    CU_ASSERT(holds(dir, "convergence.gp", "screen_label = 'screening (1 seed)'\n"
                                           "full_label = 'full (5 seeds)'\n"));
    /* 3 to 12: a linear axis */
    CU_ASSERT(holds(dir, "convergence.gp", "logy = 0\n"));

    /* Marginals: the log parameter on a log axis, the choice on a categorical one; the baseline is its full
     * evaluation, the recommendation the best full feasible one. */
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.g.gp", "logx = 1\n"));
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.g.gp", "xlabel = 'host.dcqcn.g (dimensionless)'\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.gp", "logx = 0\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.gp", "xlabel = 'switch.ecn.kmin (KB)'\n"));
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.byte_counter.gp", "nchoices = 3\narray clabel[3] = ['1MB', '10MB', "
                                                                "'100MB']\nlogx = 0\nxlo = -0.5\nxhi = 2.5\n"));
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.byte_counter.dat",
                    "# block 0: parameter, objective, evaluation: feasible screening evaluations\n"
                    "0 9.5 0\n2 7.25 1\n1 4.5 2\n1 3.5 4\n2 8 5\n0 6 6\n2 11 8\n0 4 9\n1 12 10\n2 3.75 11\n\n\n"));
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.byte_counter.dat", "violate a constraint\n0 5 3\n1 4.75 16\n\n\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.dat", "the baseline\n5 9.25 12\n\n\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.dat", "the recommendation\n35 3 18\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.gp", "i_screen = 0\ni_full = 1\ni_infeas = 2\ni_base = 3\n"
                                                        "i_best = 4\n"));
    CU_ASSERT(!exists_in(dir, "pareto.dat"));
    CU_ASSERT(!exists_in(dir, "pareto.gp"));
    if (gnuplot_present()) {
        CU_ASSERT(png_whole(dir, "convergence.png"));
        for (int i = 0; i < 3; i++) {
            char png[128];
            snprintf(png, sizeof png, "%s.png", marginals[i]);
            CU_ASSERT(png_whole(dir, png));
            /* gnuplot had nothing to say: no warning about an empty range or an empty block */
            snprintf(png, sizeof png, "%s.log", marginals[i]);
            CU_ASSERT(!exists_in(dir, png));
        }
        CU_ASSERT(!exists_in(dir, "convergence.log"));
        CU_ASSERT(!exists_in(dir, "pareto.png"));
    }
}

static void test_two_objectives(void)
{
    char dir[256], line[2048], want[1024];
    fresh(dir, sizeof dir, "two");
    struct tune_plot_input in = input(2, 1);
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    if (gnuplot_present()) {
        snprintf(want, sizeof want, "%s/plots/ (5 PNG: convergence.png, marginal_<param>.png per parameter, "
                 "pareto.png)", dir);
        CU_ASSERT_STRING_EQUAL(line, want);
        CU_ASSERT(png_whole(dir, "pareto.png"));
        CU_ASSERT(!exists_in(dir, "pareto.log"));
    }
    /* Every full feasible evaluation (12 to 19 but the infeasible 16), the front sorted by goodput, the baseline's
     * full evaluation, the recommendation. */
    CU_ASSERT(holds(dir, "pareto.dat", "full feasible evaluations\n62 9.25 12\n73 3.25 13\n76 3.5 14\n81 4.25 15\n"
                                       "88 5.5 17\n70 3 18\n86 7.5 19\n\n\n"));
    CU_ASSERT(holds(dir, "pareto.dat", "the Pareto front, by objective 2\n70 3 18\n73 3.25 13\n76 3.5 14\n"
                                       "81 4.25 15\n88 5.5 17\n\n\n"));
    CU_ASSERT(holds(dir, "pareto.dat", "the baseline\n62 9.25 12\n\n\n"));
    CU_ASSERT(holds(dir, "pareto.dat", "the recommendation\n76 3.5 14\n"));
    CU_ASSERT(holds(dir, "pareto.gp", "subtitle = 'better (the arrow): lower p99 slowdown, flows <= 100 KB, higher "
                                      "goodput of the long flows'\ncounts = '7 full feasible evaluations, 5 on the "
                                      "front; 1 that violates a constraint not drawn'\n"));
    CU_ASSERT(holds(dir, "pareto.gp", "xlabel = 'goodput of the long flows (Gbps)'\n"
                                      "ylabel = 'p99 slowdown, flows <= 100 KB (dimensionless)'\n"));
    CU_ASSERT(holds(dir, "pareto.gp", "better_x = 1\nbetter_y = -1\n"));
    /* The marginals draw objective 1 only, and say so. */
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.g.gp", "title = 'tune incast-mix.json: minimize p99 slowdown, flows "
                                                     "<= 100 KB (objective 1 of 2 only) against host.dcqcn.g'\n"
                                                     "subtitle = 'both objectives: pareto.png; "));
    CU_ASSERT(holds(dir, "convergence.gp", "(objective 1 of 2)'\n"));
}

/* Objective values spanning a factor of 20 or more go on a log axis, as the sweep's parameters do. */
static void test_log_axis(void)
{
    char dir[256], line[2048];
    fresh(dir, sizeof dir, "logy");
    struct tune_plot_input in = input(1, 1);
    ev[10].obj[0] = 60; /* 3 .. 60 */
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    CU_ASSERT(holds(dir, "convergence.gp", "logy = 1\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.gp", "logy = 1\n"));
    ev[10].obj[0] = 59.9;
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    CU_ASSERT(holds(dir, "convergence.gp", "logy = 0\n"));
    if (gnuplot_present())
        CU_ASSERT(png_whole(dir, "convergence.png"));
}

/*
 * A rerun with fewer parameters and one objective leaves none of the previous call's pictures, scripts or
 * data (nor a killed writer's temporary), and keeps a user's file.
 */
static void test_rerun_removes_stale(void)
{
    char dir[256], line[2048], p[512];
    fresh(dir, sizeof dir, "stale");
    struct tune_plot_input in = input(2, 1);
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    CU_ASSERT(exists_in(dir, "marginal_host.dcqcn.byte_counter.dat"));
    CU_ASSERT(exists_in(dir, "pareto.dat"));
    static const char *const left[] = {"marginal_old.param.png", "marginal_old.param.dat.tmp.4294967",
                                       "marginal_notes.txt"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/plots/%s", dir, left[i]);
        test_write_text(p, "x");
    }
    in = input(1, 1);
    in.n_params = 2;
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    static const char *const gone[] = {"marginal_host.dcqcn.byte_counter.png", "marginal_host.dcqcn.byte_counter.gp",
                                       "marginal_host.dcqcn.byte_counter.dat", "pareto.png", "pareto.gp",
                                       "pareto.dat", "marginal_old.param.png", "marginal_old.param.dat.tmp.4294967"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
        CU_ASSERT(!exists_in(dir, gone[i]));
        if (exists_in(dir, gone[i]))
            fprintf(stderr, "\n  left behind: %s\n", gone[i]);
    }
    CU_ASSERT(exists_in(dir, "marginal_notes.txt"));
    CU_ASSERT(exists_in(dir, "marginal_switch.ecn.kmin.dat"));
    if (gnuplot_present()) {
        char want[1024];
        snprintf(want, sizeof want, "%s/plots/ (3 PNG: convergence.png, marginal_<param>.png per parameter)", dir);
        CU_ASSERT_STRING_EQUAL(line, want);
        CU_ASSERT(png_whole(dir, "marginal_switch.ecn.kmin.png"));
    }
}

/* Without gnuplot the data and the scripts are written all the same, and the line says how to draw them. */
static void test_without_gnuplot(void)
{
    char dir[256], line[2048], want[1024], bin[300];
    fresh(dir, sizeof dir, "nognu");
    snprintf(bin, sizeof bin, "%s/emptybin", root);
    mkdir(bin, 0777);
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", bin, 1);
    struct tune_plot_input in = input(2, 1);
    int rc = tune_plots(&in, dir, line, sizeof line);
    setenv("PATH", path, 1);
    free(path);
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(want, sizeof want, "gnuplot is not installed: scripts written to %s/plots/ (run gnuplot NAME.gp there)",
             dir);
    CU_ASSERT_STRING_EQUAL(line, want);
    static const char *const names[] = {"convergence", "marginal_host.dcqcn.g", "marginal_switch.ecn.kmin",
                                        "marginal_host.dcqcn.byte_counter", "pareto"};
    for (int i = 0; i < 5; i++) {
        char f[128];
        snprintf(f, sizeof f, "%s.gp", names[i]);
        CU_ASSERT(exists_in(dir, f));
        snprintf(f, sizeof f, "%s.dat", names[i]);
        CU_ASSERT(exists_in(dir, f));
        snprintf(f, sizeof f, "%s.png", names[i]);
        CU_ASSERT(!exists_in(dir, f));
    }
    /* the script names its template and draws its own PNG when run by hand */
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.g.gp", "from the template plots/tune_marginal.gp; `gnuplot "
                                                     "marginal_host.dcqcn.g.gp` in this directory redraws "
                                                     "marginal_host.dcqcn.g.png"));
    CU_ASSERT(holds(dir, "marginal_host.dcqcn.g.gp", "png = 'marginal_host.dcqcn.g.png'\n"
                                                     "dat = 'marginal_host.dcqcn.g.dat'\n"));
}

/*
 * A gnuplot that fails on one plot and cuts another short: both reported (line and stderr), neither left as a
 * PNG, the others drawn; not an I/O error.  One parameter has a long path: its plot's name (82 bytes) must
 * reach gnuplot whole (the name buffers held 64 bytes).
 */
static void test_failed_plots(void)
{
    char dir[256], line[2048], want[1200], bin[300], gp[400];
    fresh(dir, sizeof dir, "fail");
    snprintf(bin, sizeof bin, "%s/fakegp", root);
    mkdir(bin, 0777);
    snprintf(gp, sizeof gp, "%s/gnuplot", bin);
    test_write_text(gp, "#!/bin/sh\n"
                        "# called as: gnuplot -e outname='NAME.png.tmp' NAME.gp\n"
                        "name=${3%.gp}\n"
                        "case $name in\n"
                        "marginal_switch.ecn.kmin) echo 'line 9: bad' >&2; exit 1 ;;\n"
                        "pareto) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR' >$name.png.tmp ;;\n"
                        "*) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256B`\\202' >$name.png.tmp ;;\n"
                        "esac\n");
    chmod(gp, 0755);
    struct tune_plot_param pa[3] = {params[0], params[1], params[2]};
    pa[0].path = "topology.switches.spine.ports.32.queues.priority_3.ecn.marking_threshold_min";
    struct tune_plot_input in = input(2, 1);
    in.params = pa;
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin"), newpath[4096], err[400];
    snprintf(newpath, sizeof newpath, "%s:%s", bin, path);
    setenv("PATH", newpath, 1);
    snprintf(err, sizeof err, "%s/stderr", root);
    fflush(stderr);
    int saved = dup(2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(freopen(err, "w", stderr));
    int rc = tune_plots(&in, dir, line, sizeof line);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    setenv("PATH", path, 1);
    free(path);
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(want, sizeof want, "%s/plots/: 3 PNG drawn; FAILED: marginal_switch.ecn.kmin.png pareto.png", dir);
    CU_ASSERT_STRING_EQUAL(line, want);
    char *out = test_read_file(err, NULL);
    snprintf(want, sizeof want, "rocesim tune: marginal_switch.ecn.kmin plot failed, no marginal_switch.ecn.kmin.png "
             "drawn: gnuplot exited with status 1: line 9: bad; gnuplot's output is in %s/plots/"
             "marginal_switch.ecn.kmin.log\n", dir);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim tune: pareto plot failed, no pareto.png drawn: gnuplot "
                                              "exited with status 0 but pareto.png.tmp is a truncated PNG"));
    free(out);
    CU_ASSERT(!exists_in(dir, "marginal_switch.ecn.kmin.png"));
    CU_ASSERT(!exists_in(dir, "pareto.png"));
    CU_ASSERT(!exists_in(dir, "pareto.png.tmp"));
    CU_ASSERT(exists_in(dir, "convergence.png"));
    CU_ASSERT(exists_in(dir, "marginal_topology.switches.spine.ports.32.queues.priority_3.ecn."
                             "marking_threshold_min.png"));
}

/*
 * Nothing to draw when every evaluation failed: one reason, no file.  One evaluation (the baseline alone) is
 * drawn, with ranges around its single point that gnuplot does not warn about.
 */
static void test_little_data(void)
{
    char dir[256], line[2048];
    fresh(dir, sizeof dir, "little");
    struct tune_plot_input in = input(2, 1);
    for (int i = 0; i < NE; i++)
        ev[i].obj[0] = ev[i].obj[1] = NAN;
    in.n_conv = 0;
    in.baseline_obj = NAN;
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    CU_ASSERT_STRING_EQUAL(line, "none: no evaluation has a value of the objective");
    CU_ASSERT(!exists_in(dir, "convergence.dat"));
    CU_ASSERT(!exists_in(dir, "convergence.gp"));
    CU_ASSERT(!exists_in(dir, "pareto.dat"));

    in = input(2, 1);
    in.n_evals = 1;
    in.evals = &ev[12];
    in.n_conv = 1;
    in.conv_runs = &conv_runs[1];
    in.conv_best = &conv_best[1];
    in.best = 0;
    in.on_front = NULL;
    CU_ASSERT_EQUAL(tune_plots(&in, dir, line, sizeof line), 0);
    CU_ASSERT(holds(dir, "convergence.dat", "runs, best full-fidelity feasible objective so far\n17 9.25 0\n\n\n"));
    CU_ASSERT(holds(dir, "marginal_switch.ecn.kmin.gp", "logx = 0\nxlo = 4.75\nxhi = 5.25\n"));
    if (gnuplot_present()) {
        char want[1024];
        snprintf(want, sizeof want, "%s/plots/ (5 PNG: convergence.png, marginal_<param>.png per parameter, "
                 "pareto.png)", dir);
        CU_ASSERT_STRING_EQUAL(line, want);
        static const char *const names[] = {"convergence", "marginal_host.dcqcn.g", "marginal_switch.ecn.kmin",
                                            "marginal_host.dcqcn.byte_counter", "pareto"};
        for (int i = 0; i < 5; i++) {
            char f[128];
            snprintf(f, sizeof f, "%s.png", names[i]);
            CU_ASSERT(png_whole(dir, f));
            snprintf(f, sizeof f, "%s.log", names[i]);
            CU_ASSERT(!exists_in(dir, f));
        }
    }
}

/* A plot directory that cannot be written is an I/O error, said on stderr and in the line. */
static void test_unwritable(void)
{
    char dir[256], line[2048], p[400];
    fresh(dir, sizeof dir, "unwritable");
    snprintf(p, sizeof p, "%s/plots", dir);
    test_write_text(p, "not a directory");
    struct tune_plot_input in = input(1, 1);
    fflush(stderr);
    int saved = dup(2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(freopen("/dev/null", "w", stderr));
    int rc = tune_plots(&in, dir, line, sizeof line);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CU_ASSERT_EQUAL(rc, SCN_EIO);
    char want[600];
    snprintf(want, sizeof want, "none: cannot write the plot files in %s/", p);
    CU_ASSERT_STRING_EQUAL(line, want);
    if (strcmp(line, want))
        fprintf(stderr, "\n  line: %s\n", line);
}

void test_tune_plot_register(void)
{
    CU_pSuite s = CU_add_suite("tune plot", suite_init, suite_clean);
    CU_add_test(s, "one objective: convergence and a marginal per parameter, rows and axes", test_one_objective);
    CU_add_test(s, "two objectives: the Pareto front sorted, the marginals say objective 1 only",
                test_two_objectives);
    CU_add_test(s, "an objective spanning a factor of 20 goes on a log axis", test_log_axis);
    CU_add_test(s, "a rerun with fewer parameters leaves no stale plot", test_rerun_removes_stale);
    CU_add_test(s, "without gnuplot: data and scripts written, the line says so", test_without_gnuplot);
    CU_add_test(s, "a plot gnuplot fails or cuts short: reported, no PNG; long plot names", test_failed_plots);
    CU_add_test(s, "every evaluation failed: nothing drawn; a single evaluation: drawn", test_little_data);
    CU_add_test(s, "an unwritable plot directory: SCN_EIO", test_unwritable);
}
