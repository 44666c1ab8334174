/*
 * What a run leaves behind besides summary.json and flows.csv: the time series
 * (queues.csv, rates.csv, pfc.csv), the plots, the progress line and the human
 * summary.  Most checks share one real run of scenarios/incast-16to1.json made
 * by the binary when the suite starts.
 */
#include "tests/tests.h"
#include "sim/file.h"
#include "sim/units.h"
#include "tools/common/jsonout.h"
#include "tools/run/monitor.h"
#include "tools/run/progress.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SCENARIO "scenarios/incast-16to1.json"

static char tmpdir[64];      /* the suite's scratch directory */
static char rundir[128];     /* the shared run */
static int run_rc = -1;
static char *run_stdout, *run_stderr;

static char *path_in(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

static char *read_in(const char *dir, const char *name)
{
    char p[512];
    return test_read_file(path_in(p, sizeof p, dir, name), NULL);
}

/* A number from dir/summary.json by a two-level path (b may be NULL); NAN when missing. */
static double summary_num(const char *dir, const char *a, const char *b)
{
    char *t = read_in(dir, "summary.json");
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    cJSON_Delete(j);
    return v;
}

/* Splits text into lines in place; returns how many (the array is malloc'd). */
static size_t lines_of(char *text, char ***out)
{
    size_t n = 0, cap = 256;
    char **v = malloc(sizeof *v * cap);
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (n == cap)
            v = realloc(v, sizeof *v * (cap *= 2));
        v[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    *out = v;
    return n;
}

/* The i-th comma-separated field of line into buf. */
static const char *field(const char *line, int i, char *buf, size_t len)
{
    for (; i > 0 && line; i--) {
        line = strchr(line, ',');
        if (line)
            line++;
    }
    if (!line)
        line = "";
    size_t l = strcspn(line, ",");
    if (l >= len)
        l = len - 1;
    memcpy(buf, line, l);
    buf[l] = '\0';
    return buf;
}

/* A time as the files write it: an integer number of ns, or up to three decimals without trailing zeros. */
static bool time_ok(const char *s)
{
    size_t d = strspn(s, "0123456789");
    if (d == 0)
        return false;
    if (s[d] == '\0')
        return true;
    if (s[d] != '.')
        return false;
    size_t f = strspn(s + d + 1, "0123456789");
    return f >= 1 && f <= 3 && s[d + 1 + f] == '\0' && s[d + f] != '0';
}

static bool gnuplot_present(void)
{
    return test_run("command -v gnuplot >/dev/null", NULL) == 0;
}

/* Valid PNG signature and size above min_bytes. */
static bool png_ok(const char *dir, const char *name, long min_bytes)
{
    char p[512];
    size_t len = 0;
    char *b = test_read_file(path_in(p, sizeof p, dir, name), &len);
    bool ok = b && len > (size_t)min_bytes && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0;
    free(b);
    return ok;
}

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rocesim-outputs-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(rundir, sizeof rundir, "%s/run", tmpdir);
    /* stderr to a file: not a terminal, so no progress line even with no delay before the first one */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ROCESIM_PROGRESS_DELAY=0 %s run %s -o %s >%s/stdout 2>%s/stderr", test_rocesim_bin(),
             SCENARIO, rundir, tmpdir, tmpdir);
    run_rc = test_run(cmd, NULL);
    run_stdout = read_in(tmpdir, "stdout");
    run_stderr = read_in(tmpdir, "stderr");
    return 0;
}

static int suite_clean(void)
{
    free(run_stdout);
    free(run_stderr);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

static void test_run_summary(void)
{
    CU_ASSERT_EQUAL_FATAL(run_rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run_stdout);
    CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "16 of 16 flows finished"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "FCT p50"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "CNPs:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "summary.json, flows.csv, queues.csv, rates.csv, pfc.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "plots: "));
    if (gnuplot_present())
        CU_ASSERT_PTR_NOT_NULL(strstr(run_stdout, "queues.png, rates.png, fct_cdf.png, pfc.png"));
}

static void test_no_progress_off_terminal(void)
{
    /* Nothing at all on stderr: no progress (stderr is a file), and gnuplot had nothing to complain about. */
    CU_ASSERT_PTR_NOT_NULL_FATAL(run_stderr);
    if (gnuplot_present())
        CU_ASSERT_STRING_EQUAL(run_stderr, "");
    CU_ASSERT_PTR_NULL(strstr(run_stderr, "simulated"));
    CU_ASSERT_PTR_NULL(strchr(run_stderr, '\r'));
}

static void test_headers_and_no_temporaries(void)
{
    static const char *const hdr[][2] = {{"queues.csv", "time_ns,node,port,priority,bytes"},
                                         {"rates.csv", "time_ns,flow,rate_gbps,target_gbps,alpha"},
                                         {"pfc.csv", "time_ns,node,port,priority,event"}};
    for (size_t i = 0; i < 3; i++) {
        char *t = read_in(rundir, hdr[i][0]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        size_t l = strlen(hdr[i][1]);
        CU_ASSERT(strncmp(t, hdr[i][1], l) == 0 && t[l] == '\n');
        free(t);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find %s -name '*.tmp*' | wc -l", rundir);
    char *out = NULL;
    test_run(cmd, &out);
    CU_ASSERT_PTR_NOT_NULL(out && atoi(out) == 0);
    free(out);
}

static void test_times_monotonic(void)
{
    static const char *const files[] = {"queues.csv", "rates.csv", "pfc.csv"};
    for (size_t i = 0; i < 3; i++) {
        char *t = read_in(rundir, files[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        char **ln;
        size_t n = lines_of(t, &ln);
        CU_ASSERT(n > 1);
        double last = -1;
        bool ok = true, fmt = true;
        for (size_t k = 1; k < n; k++) {
            char b[64];
            field(ln[k], 0, b, sizeof b);
            fmt &= time_ok(b);
            double v = strtod(b, NULL);
            ok &= v >= last;
            last = v;
        }
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_TRUE(fmt);
        free(ln);
        free(t);
    }
}

static void test_pfc_rows_match_summary(void)
{
    char *t = read_in(rundir, "pfc.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char **ln;
    size_t n = lines_of(t, &ln), pause = 0, resume = 0, other = 0;
    for (size_t k = 1; k < n; k++) {
        char ev[32], node[64];
        field(ln[k], 4, ev, sizeof ev);
        field(ln[k], 1, node, sizeof node);
        if (strcmp(ev, "pause") == 0)
            pause++;
        else if (strcmp(ev, "resume") == 0)
            resume++;
        else
            other++;
        CU_ASSERT_STRING_EQUAL(node, "s0");
    }
    CU_ASSERT(pause > 0); /* this scenario does pause: the check is not vacuous */
    CU_ASSERT_EQUAL(other, 0);
    CU_ASSERT_EQUAL((double)pause, summary_num(rundir, "pfc", "pause_frames"));
    CU_ASSERT_EQUAL((double)resume, summary_num(rundir, "pfc", "resume_frames"));
    free(ln);
    free(t);
}

static void test_queue_rows(void)
{
    /* s0:* is 17 ports; priorities with rows: data 3 and CNP 6.  Samples at 0, 10us, ... up to the end. */
    char *t = read_in(rundir, "queues.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char **ln;
    size_t n = lines_of(t, &ln) - 1;
    double end_ns = summary_num(rundir, "sim_end_ns", NULL);
    size_t samples = (size_t)floor(end_ns / 10000) + 1;
    CU_ASSERT_EQUAL(n, samples * 17 * 2);
    size_t distinct = 0;
    char last[64] = "", b[64], prio[8];
    bool grid = true, prios = true;
    double peak = 0;
    for (size_t k = 1; k <= n; k++) {
        field(ln[k], 0, b, sizeof b);
        if (strcmp(b, last)) {
            distinct++;
            snprintf(last, sizeof last, "%s", b);
            grid &= fmod(strtod(b, NULL), 10000) == 0;
        }
        field(ln[k], 3, prio, sizeof prio);
        prios &= strcmp(prio, "3") == 0 || strcmp(prio, "6") == 0;
        char by[32];
        peak = fmax(peak, strtod(field(ln[k], 4, by, sizeof by), NULL));
    }
    CU_ASSERT_EQUAL(distinct, samples);
    CU_ASSERT_TRUE(grid);
    CU_ASSERT_TRUE(prios);
    CU_ASSERT(peak > 100000); /* a 16-to-1 incast builds a real queue */
    free(ln);
    free(t);
}

static void test_rates_rows(void)
{
    char *t = read_in(rundir, "rates.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char **ln;
    size_t n = lines_of(t, &ln);
    bool seen[16] = {false}, ok = true;
    for (size_t k = 1; k < n; k++) {
        char id[64], r[32], tg[32], a[32];
        field(ln[k], 1, id, sizeof id);
        int j = -1;
        if (sscanf(id, "incast.%d", &j) == 1 && j >= 0 && j < 16)
            seen[j] = true;
        else
            ok = false;
        double rate = strtod(field(ln[k], 2, r, sizeof r), NULL);
        double target = strtod(field(ln[k], 3, tg, sizeof tg), NULL);
        field(ln[k], 4, a, sizeof a);
        double alpha = strtod(a, NULL);
        ok &= rate > 0 && rate <= 100 && target > 0 && target <= 100 && a[0] && alpha >= 0 && alpha <= 1;
    }
    CU_ASSERT_TRUE(ok);
    for (int j = 0; j < 16; j++)
        CU_ASSERT_TRUE(seen[j]);
    free(ln);
    free(t);
}

static void test_plots_drawn(void)
{
    if (!gnuplot_present()) {
        fprintf(stderr, "\n    gnuplot not installed: plot drawing not tested ");
        return;
    }
    char pd[256];
    snprintf(pd, sizeof pd, "%s/plots", rundir);
    static const char *const png[] = {"queues.png", "rates.png", "fct_cdf.png", "pfc.png"};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_TRUE(png_ok(pd, png[i], 5000));
        char gp[64], *s;
        snprintf(gp, sizeof gp, "%.*s.gp", (int)(strlen(png[i]) - 4), png[i]);
        CU_ASSERT_PTR_NOT_NULL(s = read_in(pd, gp));
        free(s);
    }
}

/* A run of scenario (with `set`, a --set, or "") with its plots into a new directory; the text of its plots/NAME.gp. */
static char *plot_script(const char *scenario, const char *set, const char *name, char *dir, size_t dlen)
{
    snprintf(dir, dlen, "/tmp/rocesim-rplot-XXXXXX");
    if (!mkdtemp(dir))
        return NULL;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run %s %s -q -o %s/r >/dev/null", test_rocesim_bin(), scenario, set, dir);
    if (test_run(cmd, NULL) != 0)
        return NULL;
    char p[512];
    snprintf(p, sizeof p, "%s/r/plots/%s.gp", dir, name);
    return test_read_file(p, NULL);
}

/*
 * rates.png's dashed line is named by the congestion control (Swift's is the rate its window implies, which starts
 * near 550 Gbps: not a "target rate") and the rate axis is the sending rates' (106 Gbps, not 600); a monitor.flows
 * list is drawn in its order, its first ten, so that the flows a scenario names are the ones drawn.
 */
static void test_rates_plot_labels(void)
{
    if (!gnuplot_present())
        return;
    char dir[64];
    char *sw = plot_script("scenarios/swift-incast-16to1.json", "", "rates", dir, sizeof dir);
    CU_ASSERT_PTR_NOT_NULL(sw && strstr(sw, "\ntarget_label = 'window-implied rate'\n"));
    CU_ASSERT_PTR_NOT_NULL(sw && strstr(sw, "\nymax = 106\n"));
    free(sw);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
    char *dc = plot_script("scenarios/incast-16to1.json", "", "rates", dir, sizeof dir);
    CU_ASSERT_PTR_NOT_NULL(dc && strstr(dc, "\ntarget_label = 'target rate'\n"));
    free(dc);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
    /* 16 flows listed, the last ones first: the first ten of the list are drawn, in its order */
    char *ls = plot_script("scenarios/incast-16to1.json",
                           "--set 'monitor.flows=[\"incast.15\",\"incast.14\",\"incast.13\",\"incast.12\",\"incast.11\","
                           "\"incast.10\",\"incast.9\",\"incast.8\",\"incast.7\",\"incast.6\",\"incast.5\",\"incast.4\","
                           "\"incast.3\",\"incast.2\",\"incast.1\",\"incast.0\"]'",
                           "rates", dir, sizeof dir);
    CU_ASSERT_PTR_NOT_NULL(ls && strstr(ls, "array fname[10] = ['incast.15', 'incast.14', 'incast.13', 'incast.12', "
                                            "'incast.11', 'incast.10', 'incast.9', 'incast.8', 'incast.7', 'incast.6']"));
    CU_ASSERT_PTR_NOT_NULL(ls && strstr(ls, "the first 10 of the 16 flows monitor.flows names"));
    free(ls);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
}

static void test_plot_command(void)
{
    char cmd[1024], *out = NULL;
    const char *bin = test_rocesim_bin();
    if (gnuplot_present()) {
        /* redraws from the files alone */
        snprintf(cmd, sizeof cmd, "rm -f %s/plots/*.png && %s plot %s", rundir, bin, rundir);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "pfc.png"));
        free(out);
        char pd[256];
        snprintf(pd, sizeof pd, "%s/plots", rundir);
        CU_ASSERT_TRUE(png_ok(pd, "queues.png", 5000));
        CU_ASSERT_TRUE(png_ok(pd, "pfc.png", 5000));
    }
    /* not a run directory: usage errors */
    snprintf(cmd, sizeof cmd, "%s plot %s", bin, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "summary.json"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s plot %s/nonexistent", bin, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
    snprintf(cmd, sizeof cmd, "%s plot", bin);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 2);
}

static void test_without_gnuplot(void)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "mkdir -p %s/emptybin && PATH=%s/emptybin %s run %s -q -o %s/nognu", tmpdir, tmpdir,
             test_rocesim_bin(), SCENARIO, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gnuplot not found"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "16 of 16 flows finished"));
    free(out);
    char p[256];
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path_in(p, sizeof p, tmpdir, "nognu/plots/queues.png"), &st), 0);
    CU_ASSERT_EQUAL(stat(path_in(p, sizeof p, tmpdir, "nognu/queues.csv"), &st), 0);
    snprintf(cmd, sizeof cmd, "PATH=%s/emptybin %s plot %s/nognu", tmpdir, test_rocesim_bin(), tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gnuplot not found"));
    free(out);
}

static void test_no_plot_flag(void)
{
    char cmd[1024], *out = NULL;
    /* into the shared run's directory: --no-plot also removes the pictures of the previous run */
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s/noplot && mkdir -p %s/noplot/plots && "
                              "touch %s/noplot/plots/queues.png && %s run %s -q --no-plot -o %s/noplot",
             test_rocesim_bin(), SCENARIO, tmpdir, tmpdir, tmpdir, test_rocesim_bin(), SCENARIO, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "plots: not drawn (--no-plot)"));
    free(out);
    char p[256];
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path_in(p, sizeof p, tmpdir, "noplot/plots/queues.png"), &st), 0);
    /* monitoring changes nothing in flows.csv: compare with the shared run */
    char *a = read_in(rundir, "flows.csv");
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s/nomon --set 'monitor={\"queues\": [], \"flows\": \"none\"}'",
             test_rocesim_bin(), SCENARIO, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    char d[128];
    snprintf(d, sizeof d, "%s/nomon", tmpdir);
    char *b = read_in(d, "flows.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(summary_num(d, "sim_end_ns", NULL), summary_num(rundir, "sim_end_ns", NULL));
    CU_ASSERT_EQUAL(summary_num(d, "events", NULL), summary_num(rundir, "events", NULL));
    char *q = read_in(d, "queues.csv");
    CU_ASSERT_PTR_NOT_NULL(q && strcmp(q, "time_ns,node,port,priority,bytes\n") == 0);
    free(q);
    free(a);
    free(b);
}

static void test_bad_queue_pattern(void)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run %s -q -o %s/bad --set 'monitor.queues=[\"s0:*\", \"leaf*:*\"]'",
             test_rocesim_bin(), SCENARIO, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "monitor.queues.1"));
    free(out);
    char p[256];
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path_in(p, sizeof p, tmpdir, "bad"), &st), 0); /* nothing written */
    snprintf(cmd, sizeof cmd, "%s check %s --set 'monitor.queues=[\"s0:17\"]'", test_rocesim_bin(), SCENARIO);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "monitor.queues.0") && strstr(out, "port"));
    free(out);
}

/* Whether dir/name exists. */
static bool exists_in(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    return stat(path_in(p, sizeof p, dir, name), &st) == 0;
}

/*
 * A gnuplot that fails the ways a full disk and a broken install make it fail: for queues it writes the
 * first bytes of a PNG and exits 0, for rates nothing at all and exits 0, for fct_cdf it complains and
 * exits 1; pfc gets a whole (tiny) PNG.
 */
static void write_fake_gnuplot(const char *bindir)
{
    char p[512];
    mkdir(bindir, 0777);
    FILE *f = fopen(path_in(p, sizeof p, bindir, "gnuplot"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("#!/bin/sh\n"
          "# called as: gnuplot -e outname='NAME.png.tmp' NAME.gp\n"
          "name=${3%.gp}\n"
          "case $name in\n"
          "queues) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR\\000\\000' >$name.png.tmp ;;\n"
          "rates) ;;\n"
          "fct_cdf) echo 'line 7: undefined variable: nosuch' >&2; exit 1 ;;\n"
          "*) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256B`\\202' >$name.png.tmp ;;\n"
          "esac\n"
          "exit 0\n",
          f);
    fclose(f);
    chmod(p, 0755);
}

static void test_failed_plots(void)
{
    char bindir[256], dir[256], pd[300], cmd[2048], *out = NULL;
    snprintf(bindir, sizeof bindir, "%s/fakegp", tmpdir);
    snprintf(dir, sizeof dir, "%s/failplot", tmpdir);
    snprintf(pd, sizeof pd, "%s/plots", dir);
    write_fake_gnuplot(bindir);
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s run %s -q -o %s", bindir, test_rocesim_bin(), SCENARIO, dir);
    /* The data is whole: the run succeeds, and says which plots failed and why. */
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: queues plot failed, no queues.png drawn: gnuplot exited with "
                                              "status 0 but queues.png.tmp is a truncated PNG (18 bytes, no IEND"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: rates plot failed, no rates.png drawn: gnuplot exited with "
                                              "status 0 but rates.png.tmp is missing"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: fct_cdf plot failed, no fct_cdf.png drawn: gnuplot exited with "
                                              "status 1: line 7: undefined variable: nosuch; gnuplot's output is in "));
    /* No pointer to a log gnuplot wrote nothing into. */
    CU_ASSERT_PTR_NULL(out && strstr(out, "rates.log"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "queues.log"));
    /* The plots line lists what was drawn, and the failures as failures. */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "/plots/ (pfc.png); FAILED: queues.png, rates.png, fct_cdf.png\n"));
    free(out);
    CU_ASSERT_FALSE(exists_in(pd, "queues.png"));
    CU_ASSERT_FALSE(exists_in(pd, "queues.png.tmp"));
    CU_ASSERT_FALSE(exists_in(pd, "rates.png"));
    CU_ASSERT_FALSE(exists_in(pd, "fct_cdf.png"));
    CU_ASSERT_TRUE(exists_in(pd, "fct_cdf.log"));
    CU_ASSERT_TRUE(exists_in(pd, "pfc.png"));
    CU_ASSERT_TRUE(exists_in(dir, "summary.json"));
    /* `rocesim plot` exists to draw: there a failed plot is an I/O error. */
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s plot %s", bindir, test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 3);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "plots: "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "FAILED: queues.png, rates.png, fct_cdf.png"));
    free(out);
    CU_ASSERT_FALSE(exists_in(pd, "queues.png"));
}

/* A run owns its directory: what an earlier run wrote and this one does not is gone, and so are the
 * temporary files of a killed run; other files stay. */
static void test_reused_directory(void)
{
    char dir[256], pd[300], cmd[2048], *out = NULL;
    snprintf(dir, sizeof dir, "%s/reused", tmpdir);
    snprintf(pd, sizeof pd, "%s/plots", dir);
    /* A run with the watchdog writes watchdog.csv ... */
    snprintf(cmd, sizeof cmd, "%s run scenarios/pfc-storm.json -q --no-plot -o %s --stop 200us --set "
                              "'switch.watchdog={\"enabled\": true, \"detection_time\": \"100us\", "
                              "\"restoration_time\": \"100us\", \"poll_interval\": \"10us\"}'",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    CU_ASSERT_TRUE_FATAL(exists_in(dir, "watchdog.csv"));
    /* ... and a killed run (gone: an id above pid_max) and a foreign process (this test) left temporaries. */
    char tmp_dead[64], tmp_foreign[64], gp_dead[64], other[64];
    snprintf(tmp_dead, sizeof tmp_dead, "summary.json.tmp.%d", 2000000000);
    snprintf(tmp_foreign, sizeof tmp_foreign, "queues.csv.tmp.%ld", (long)getpid());
    snprintf(gp_dead, sizeof gp_dead, "plots/pfc.gp.tmp.%d", 2000000000);
    snprintf(other, sizeof other, "mine.csv.tmp.%d", 2000000000);
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p plots && touch %s %s %s %s notes.txt summary.json.tmp.x "
                              "plots/my.png", dir, tmp_dead, tmp_foreign, gp_dead, other);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    /* A run without the watchdog into the same directory. */
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s", test_rocesim_bin(), SCENARIO, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(summary.json, flows.csv, queues.csv, rates.csv, pfc.csv, "
                                              "scenario.json)"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "watchdog"));
    free(out);
    CU_ASSERT_FALSE(exists_in(dir, "watchdog.csv"));
    CU_ASSERT_FALSE(exists_in(dir, tmp_dead));
    CU_ASSERT_FALSE(exists_in(dir, tmp_foreign));
    CU_ASSERT_FALSE(exists_in(dir, gp_dead));
    /* Names rocesim does not write are the user's. */
    CU_ASSERT_TRUE(exists_in(dir, other));
    CU_ASSERT_TRUE(exists_in(dir, "notes.txt"));
    CU_ASSERT_TRUE(exists_in(dir, "summary.json.tmp.x"));
    CU_ASSERT_TRUE(exists_in(dir, "plots/my.png"));
}

/* How many distinct values field i takes over the data lines of dir/name (-1: no file). */
static long distinct_values(const char *dir, const char *name, int i1, int i2)
{
    char *t = read_in(dir, name);
    if (!t)
        return -1;
    char **ln;
    size_t n = lines_of(t, &ln);
    char (*seen)[80] = calloc(n + 1, sizeof *seen);
    long k = 0;
    for (size_t j = 1; j < n; j++) {
        char a[40], b[40], key[80];
        snprintf(key, sizeof key, "%s/%s", field(ln[j], i1, a, sizeof a), i2 >= 0 ? field(ln[j], i2, b, sizeof b) : "");
        long q = 0;
        while (q < k && strcmp(seen[q], key) != 0)
            q++;
        if (q == k)
            snprintf(seen[k++], sizeof seen[0], "%s", key);
    }
    free(seen);
    free(ln);
    free(t);
    return k;
}

/* 200 senders of 100KB into one receiver behind one switch, 100us: every flow is active at every sample,
 * and the switch pauses all 200 senders. */
#define WIDE_INCAST "scenarios/incast-16to1.json -q --no-plot --stop 100us --set topology.hosts=201 --set " \
                    "traffic.0.senders=h0-h199 --set traffic.0.receiver=h200 --set traffic.0.size=100KB"

static void test_bounded_flow_default(void)
{
    char dir[256], cmd[2048], *out = NULL;
    snprintf(dir, sizeof dir, "%s/wide", tmpdir);
    /* The default: 32 flows spread evenly over the 200, said so */
    snprintf(cmd, sizeof cmd, "%s run " WIDE_INCAST " -o %s --set 'monitor={\"interval\": \"10us\"}'",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "note: rates.csv follows 32 of about 200 flows, spread evenly "
                                              "(monitor.flows \"auto\"; \"all\" follows every flow)"));
    free(out);
    CU_ASSERT_EQUAL(distinct_values(dir, "rates.csv", 1, -1), 32);
    char *t = read_in(dir, "rates.csv");
    /* flow i is taken when i * 32 / 200 steps: 0, 7, 13, ..., 194 */
    CU_ASSERT_PTR_NOT_NULL(t && strstr(t, ",incast.0,") && strstr(t, ",incast.7,") && strstr(t, ",incast.194,"));
    CU_ASSERT_PTR_NULL(t && strstr(t, ",incast.1,"));
    free(t);
    /* "all" still means all */
    snprintf(cmd, sizeof cmd, "%s run " WIDE_INCAST " -o %s --set 'monitor={\"interval\": \"10us\", \"flows\": "
                              "\"all\"}'", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(out && strstr(out, "rates.csv follows"));
    free(out);
    CU_ASSERT_EQUAL(distinct_values(dir, "rates.csv", 1, -1), 200);
    /* A Poisson load creates its flows as it goes: sampled by the count expected from its rate and duration */
    snprintf(cmd, sizeof cmd, "%s run scenarios/websearch-fattree.json -q --no-plot --stop 1ms -o %s --set "
                              "'monitor={\"interval\": \"10us\"}'", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "note: rates.csv follows 32 of about "));
    free(out);
    CU_ASSERT_EQUAL(distinct_values(dir, "rates.csv", 1, -1), 32);
    /* Small runs are not sampled: every one of 16 flows */
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot --stop 100us -o %s --set 'monitor={\"interval\": \"10us\"}'",
             test_rocesim_bin(), SCENARIO, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(out && strstr(out, "note: rates.csv"));
    free(out);
    CU_ASSERT_EQUAL(distinct_values(dir, "rates.csv", 1, -1), 16);
    /* monitor.flows "none": the rates plot says monitoring was off, not that no flow was active */
    char bindir[256];
    snprintf(bindir, sizeof bindir, "%s/fakegp", tmpdir);
    write_fake_gnuplot(bindir);
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s run %s -q -o %s --set monitor.flows='\"none\"'", bindir,
             test_rocesim_bin(), SCENARIO, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rates (monitor.flows is \"none\": no flow was monitored)"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "no monitored flow was active"));
    free(out);
}

/* summary.json's "pfc" object as text. */
static char *summary_pfc(const char *dir)
{
    char *t = read_in(dir, "summary.json");
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    char *p = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "pfc"));
    cJSON_Delete(j);
    return p;
}

static void test_bounded_pfc_default(void)
{
    char dir[256], cmd[2048], *out = NULL;
    snprintf(dir, sizeof dir, "%s/widepfc", tmpdir);
    /* 200 ports send PAUSE: by default only the first 32 to do so are in pfc.csv, said so */
    snprintf(cmd, sizeof cmd, "%s run " WIDE_INCAST " -o %s", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "note: pfc.csv holds the frames of the first 32 of the 200 ports that "
                                              "sent PFC frames"));
    free(out);
    CU_ASSERT_EQUAL(distinct_values(dir, "pfc.csv", 1, 2), 32);
    char *pfc_auto = summary_pfc(dir);
    /* "all": every frame, as summary.json counts them */
    snprintf(cmd, sizeof cmd, "%s run " WIDE_INCAST " -o %s --set monitor.pfc=all", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    CU_ASSERT_EQUAL(distinct_values(dir, "pfc.csv", 1, 2), 200);
    char *t = read_in(dir, "pfc.csv");
    char **ln;
    size_t rows = t ? lines_of(t, &ln) - 1 : 0;
    if (t)
        free(ln);
    free(t);
    CU_ASSERT_EQUAL(rows, summary_num(dir, "pfc", "pause_frames") + summary_num(dir, "pfc", "resume_frames"));
    char *pfc_all = summary_pfc(dir);
    /* "none": no pfc.csv (nor one of an earlier run), not listed */
    snprintf(cmd, sizeof cmd, "%s run " WIDE_INCAST " -o %s --set monitor.pfc=none", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(out && strstr(out, "pfc.csv"));
    free(out);
    CU_ASSERT_FALSE(exists_in(dir, "pfc.csv"));
    char *pfc_none = summary_pfc(dir);
    /* summary.json counts every frame whatever pfc.csv holds */
    CU_ASSERT_PTR_NOT_NULL_FATAL(pfc_auto);
    CU_ASSERT_PTR_NOT_NULL(strstr(pfc_auto, "\"pause_frames\":200,"));
    CU_ASSERT_STRING_EQUAL(pfc_auto, pfc_all);
    CU_ASSERT_STRING_EQUAL(pfc_auto, pfc_none);
    free(pfc_auto);
    free(pfc_all);
    free(pfc_none);
    /* The same on the PFC storm scenario, whose few ports stay within the bound: every frame */
    snprintf(dir, sizeof dir, "%s/stormpfc", tmpdir);
    snprintf(cmd, sizeof cmd, "%s run scenarios/pfc-storm.json -q --no-plot -o %s", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(out && strstr(out, "note: pfc.csv"));
    free(out);
    t = read_in(dir, "pfc.csv");
    rows = t ? lines_of(t, &ln) - 1 : 0;
    if (t)
        free(ln);
    free(t);
    CU_ASSERT(rows > 100);
    CU_ASSERT_EQUAL(rows, summary_num(dir, "pfc", "pause_frames") + summary_num(dir, "pfc", "resume_frames"));
    char *on = summary_pfc(dir);
    snprintf(cmd, sizeof cmd, "%s run scenarios/pfc-storm.json -q --no-plot -o %s --set monitor.pfc=none",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    char *off = summary_pfc(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(on);
    CU_ASSERT_PTR_NOT_NULL_FATAL(off);
    CU_ASSERT_STRING_EQUAL(on, off);
    free(on);
    free(off);
}

/*
 * The two FCTs in an incast of short flows: scenarios/incast-16to1.json with 10 KB per sender and cc none.  Each
 * flow is 9 frames of 1024 B (1106 B on the wire) and one of 784 B (866 B): 10,820 wire bytes, 173,120 for the
 * 16.  The receiver's port at s0 is busy from the first frame's arrival, 88,480 + 1 us, to 1,088,480 + 173,120 x
 * 80 = 14,938,080, so the last byte reaches h16 at 15,938,080 ps, and its ACK (86 B: 6,880 ps a link) reaches
 * its sender 2 x (6,880 + 1 us) = 2,013,760 ps later, as every flow's does.  Ideal: 2 x (88,480 + 1 us) +
 * 9,714 B x 80 = 2,954,080, and 4,967,840 with the ACK's way back.  The tail slowdown to the last ACK is a
 * third below the one to the last byte (3.61 against 5.40): the gap between the two definitions.
 */
static void test_fct_to_last_ack_incast(void)
{
    struct scn_override ov[] = {{"traffic.0.size", "10KB"}, {"host.cc", "none"}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(SCENARIO, NULL, ov, 2, &scn, &r));
    CU_ASSERT_EQUAL_FATAL(run_execute(&r), 0);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    for (uint32_t i = 0; i < 16; i++) {
        const struct flow *f = net_flow(&r.net, i);
        CU_ASSERT_EQUAL(f->acked - f->finish, 2013760);
        CU_ASSERT_EQUAL(f->ideal_fct, 2954080);
        CU_ASSERT_EQUAL(f->ideal_fct_ack, 4967840);
    }
    char *txt = run_summary_json(&r, false);
    cJSON *j = cJSON_Parse(txt);
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(j, "flows");
    double got[6];
    const char *const path[][2] = {{"fct_ns", "max"},     {"fct_ack_ns", "max"},   {"slowdown", "p99"},
                                   {"slowdown_ack", "p99"}, {"fct_ack_ns", "p50"}, {"fct_ns", "p50"}};
    for (int k = 0; k < 6; k++)
        got[k] = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fl, path[k][0]), path[k][1])
                     ->valuedouble;
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(fl, "acked")->valuedouble, 16);
    CU_ASSERT_DOUBLE_EQUAL(got[0], 15938.08, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(got[1], 17951.84, 1e-9);
    CU_ASSERT_EQUAL(got[2], 15938080.0 / 2954080.0);
    CU_ASSERT_EQUAL(got[3], 17951840.0 / 4967840.0);
    CU_ASSERT_DOUBLE_EQUAL(got[4] - got[5], 2013.76, 1e-9);
    CU_ASSERT(got[3] < 0.68 * got[2]);
    cJSON_Delete(j);
    free(txt);
    test_teardown(&scn, &r);
}

/* ---- in-process: the monitor and the progress slicing leave the simulation untouched ---- */

/* Runs the scenario with an override; optional monitor into dir and progress onto prog_out.  Returns flows.csv +
 * summary.json (no wall clock) + the end time, and the monitor's counters through m. */
static char *run_variant(const char *set_path, const char *set_val, const char *dir, FILE *prog_out,
                         struct monitor *m, uint64_t *pause_frames)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    struct scn_override ov = {set_path, set_val};
    if (!test_setup_from(SCENARIO, NULL, &ov, set_path ? 1 : 0, &scn, &r))
        return NULL;
    if (dir && monitor_open(m, &r, dir, err, sizeof err)) {
        fprintf(stderr, "\n  %s\n", err);
        test_teardown(&scn, &r);
        return NULL;
    }
    struct progress pg;
    if (prog_out) {
        progress_init(&pg, &r, prog_out);
    }
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    if (dir)
        CU_ASSERT_EQUAL(monitor_close(m, true, err, sizeof err), 0);
    if (pause_frames)
        *pause_frames = r.net.c.pause_frames;
    char *out = test_run_text(&r);
    test_teardown(&scn, &r);
    return out;
}

static void test_monitor_changes_nothing(void)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/inproc", tmpdir);
    FILE *devnull = fopen("/dev/null", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(devnull);
    setenv("ROCESIM_PROGRESS_DELAY", "0", 1); /* draw (into /dev/null) at every clock check */
    struct monitor m;
    uint64_t pauses = 0;
    char *plain = run_variant("monitor", "{\"queues\": [], \"flows\": \"none\"}", NULL, NULL, NULL, NULL);
    char *mon = run_variant("monitor", "{\"interval\": \"1us\", \"queues\": [\"*:*\"], \"flows\": \"all\"}", dir,
                            NULL, &m, &pauses);
    struct monitor m2;
    char *both = run_variant(NULL, NULL, dir, devnull, &m2, NULL);
    unsetenv("ROCESIM_PROGRESS_DELAY");
    fclose(devnull);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mon);
    CU_ASSERT_PTR_NOT_NULL_FATAL(both);
    CU_ASSERT_STRING_EQUAL(plain, mon);
    CU_ASSERT_STRING_EQUAL(plain, both);
    CU_ASSERT(m.samples > 1000);
    CU_ASSERT_EQUAL(m.queue_rows, m.samples * 17 * 2);
    CU_ASSERT_EQUAL(m.pause_rows, pauses);
    CU_ASSERT(m.rate_rows > 0);
    free(plain);
    free(mon);
    free(both);
}

/* Lines and bytes of dir/name (0 and 0 when it is missing). */
static size_t file_lines(const char *dir, const char *name, size_t *bytes)
{
    char p[512];
    size_t len = 0, n = 0;
    char *t = test_read_file(path_in(p, sizeof p, dir, name), &len);
    for (size_t i = 0; t && i < len; i++)
        n += t[i] == '\n';
    free(t);
    if (bytes)
        *bytes = len;
    return n;
}

/* summary.json's series_capped as one line of JSON, or "" when it has none (caller frees). */
static char *summary_capped(const char *dir)
{
    char *t = read_in(dir, "summary.json");
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "series_capped");
    char *p = c ? cJSON_PrintUnformatted(c) : strdup("");
    cJSON_Delete(j);
    return p;
}

/*
 * The two unbounded cases of issue 35, with the real bounds: a 1 ps interval over 200 ns of the dumbbell wrote 65 MB
 * of queues.csv (4 million rows); the 16 packets of an incast over 1 bps links run for 17 s wrote 2.2 GB.  Now each
 * series stops at 1 000 000 rows at a whole sample, said on stderr and in summary.json; the run is unchanged.  Rows
 * of long names reach the bound of bytes first.
 */
static void test_series_bounded(void)
{
    char dir[256], cmd[2048], *out = NULL;
    snprintf(dir, sizeof dir, "%s/tiny-interval", tmpdir);
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json --set monitor.interval=1ps --stop 200ns -q --no-plot "
             "-o %s 2>&1 >/dev/null", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: note: queues.csv stops before 50ns with 1000000 rows: a time "
                           "series holds at most 1000000 rows (summary.json: series_capped); widen monitor.interval or "
                           "watch fewer queues (monitor.queues)\n");
    free(out);
    size_t bytes;
    /* 10 ports x 2 priorities a sample: 50 000 samples, 0 to 49.999 ns */
    CU_ASSERT_EQUAL(file_lines(dir, "queues.csv", &bytes), 1 + 1000000);
    CU_ASSERT(bytes < 16 * 1000 * 1000);
    char *t = read_in(dir, "queues.csv");
    CU_ASSERT_PTR_NOT_NULL(t && strstr(t, "\n49.999,s1,4,6,0\n") && !strstr(t, "\n50,"));
    free(t);
    CU_ASSERT_EQUAL(file_lines(dir, "rates.csv", NULL), 1 + 200001); /* one flow started: within the bound */
    char *c = summary_capped(dir);
    CU_ASSERT_STRING_EQUAL(c, "[{\"file\":\"queues.csv\",\"rows\":1000000,\"from_ns\":50,\"bound\":\"rows\"}]");
    free(c);
    CU_ASSERT_EQUAL(summary_num(dir, "sim_end_ns", NULL), 200);

    snprintf(dir, sizeof dir, "%s/one-bps", tmpdir);
    snprintf(cmd, sizeof cmd, "%s run %s --set topology.link.rate=1bps --stop 17s -q --no-plot -o %s 2>&1 >/dev/null",
             test_rocesim_bin(), SCENARIO, dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    /* what docs/outputs.md shows, word for word */
    char *doc = test_read_file("docs/outputs.md", NULL);
    CU_ASSERT_PTR_NOT_NULL(out && doc && strstr(doc, out));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: note: queues.csv stops before 294.11ms with 999974 rows: "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: note: rates.csv stops before 625ms with 1000000 rows: "));
    free(doc);
    free(out);
    size_t qb, rb;
    CU_ASSERT_EQUAL(file_lines(dir, "queues.csv", &qb), 1 + 999974); /* 17 ports x 2 priorities x 29 411 samples */
    CU_ASSERT_EQUAL(file_lines(dir, "rates.csv", &rb), 1 + 1000000); /* 16 flows x 62 500 samples */
    CU_ASSERT(qb + rb < 64 * 1000 * 1000);
    c = summary_capped(dir);
    CU_ASSERT_STRING_EQUAL(c, "[{\"file\":\"queues.csv\",\"rows\":999974,\"from_ns\":294110000,\"bound\":\"rows\"},"
                              "{\"file\":\"rates.csv\",\"rows\":1000000,\"from_ns\":625000000,\"bound\":\"rows\"}]");
    free(c);
    CU_ASSERT_EQUAL(summary_num(dir, "sim_end_ns", NULL), 17e9);
    /* the run is the same unmonitored: flows.csv, and no series_capped */
    char plain[256];
    snprintf(plain, sizeof plain, "%s/one-bps-plain", tmpdir);
    snprintf(cmd, sizeof cmd, "%s run %s --set topology.link.rate=1bps --stop 17s -q --no-plot -o %s --set "
             "'monitor={\"queues\": [], \"flows\": \"none\"}'", test_rocesim_bin(), SCENARIO, plain);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    char *a = read_in(dir, "flows.csv"), *b = read_in(plain, "flows.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    c = summary_capped(plain);
    CU_ASSERT_STRING_EQUAL(c, "");
    free(c);
    snprintf(cmd, sizeof cmd, "rm -rf %s/tiny-interval %s/one-bps %s", tmpdir, tmpdir, plain);
    test_run(cmd, NULL);

    /* flows named with 61 characters, sampled every 10 ns: rates.csv's rows are 80 bytes, and 1 000 000 of them
     * would be 80 MB, more than doctor and view read (FILE_MAX_BYTES); it stops at that many bytes instead */
    snprintf(dir, sizeof dir, "%s/long-names", tmpdir);
    snprintf(cmd, sizeof cmd, "%s run %s --set traffic.0.id=%s --set monitor.interval=10ns --stop 1ms -q --no-plot "
             "-o %s 2>&1 >/dev/null", test_rocesim_bin(), SCENARIO,
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", dir);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "rocesim: note: queues.csv stops before 294.11us with 999974 rows: a time "
                           "series holds at most 1000000 rows (summary.json: series_capped); widen monitor.interval or "
                           "watch fewer queues (monitor.queues)\nrocesim: note: rates.csv stops before 524.22us with "
                           "838752 rows: a time series holds at most 67108864 bytes, what rocesim's readers take "
                           "(summary.json: series_capped); widen monitor.interval or follow fewer flows (monitor.flows)\n");
    free(out);
    CU_ASSERT_EQUAL(file_lines(dir, "rates.csv", &rb), 1 + 838752);
    CU_ASSERT(rb <= FILE_MAX_BYTES);
    c = summary_capped(dir);
    CU_ASSERT_STRING_EQUAL(c, "[{\"file\":\"queues.csv\",\"rows\":999974,\"from_ns\":294110,\"bound\":\"rows\"},"
                              "{\"file\":\"rates.csv\",\"rows\":838752,\"from_ns\":524220,\"bound\":\"bytes\"}]");
    free(c);
    /* the reader of every tool takes it (view serves and reads rates.csv through it) */
    char path[512], *data = NULL, rerr[600];
    CU_ASSERT_EQUAL(file_read(path_in(path, sizeof path, dir, "rates.csv"), FILE_TEXT, &data, NULL, rerr, sizeof rerr),
                    0);
    free(data);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run(cmd, NULL);
}

/*
 * Over MPI ranks every rank cuts a series at the same sample (the counts it rests on are summed over the ranks), so
 * the files are those of one process: queues.csv of every port of a k=12 fat-tree (4320 rows a sample) stops after
 * 231 samples; rates.csv of flows with long names at its bound of bytes.
 */
static void test_series_bounded_ranks(void)
{
    const char *bin = test_mpi_bin("the bound of a time series over MPI ranks");
    if (!bin)
        return;
    char dir[2][256], cmd[2048];
    static const char args[] = "scenarios/fat-tree-k4.json --set topology.k=12 --set monitor.interval=1us --set "
                               "'monitor.queues=[\"*:*\"]' --stop 300us -q --no-plot";
    for (int i = 0; i < 2; i++) {
        snprintf(dir[i], sizeof dir[i], "%s/ranks%d", tmpdir, i);
        if (i)
            snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe -np 2 %s run %s -o %s", bin, args,
                     dir[i]);
        else
            snprintf(cmd, sizeof cmd, "%s run %s -o %s", test_rocesim_bin(), args, dir[i]);
        CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    }
    CU_ASSERT_EQUAL(file_lines(dir[0], "queues.csv", NULL), 1 + 231 * 4320);
    static const char *const same[] = {"queues.csv", "rates.csv", "flows.csv"};
    for (size_t k = 0; k < sizeof same / sizeof *same; k++) {
        char *a = read_in(dir[0], same[k]), *b = read_in(dir[1], same[k]);
        CU_ASSERT(a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    for (int i = 0; i < 2; i++) {
        char *c = summary_capped(dir[i]);
        CU_ASSERT_STRING_EQUAL(c, "[{\"file\":\"queues.csv\",\"rows\":997920,\"from_ns\":231000,\"bound\":\"rows\"}]");
        free(c);
    }
    /* the bound of bytes likewise: every rank measures the rows rank 0 writes (test_series_bounded's long names) */
    static const char long_args[] = SCENARIO " --set traffic.0.id=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx "
                                    "--set monitor.interval=10ns --stop 1ms -q --no-plot";
    for (int i = 0; i < 2; i++) {
        if (i)
            snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe -np 2 %s run %s -o %s 2>/dev/null",
                     bin, long_args, dir[i]);
        else
            snprintf(cmd, sizeof cmd, "%s run %s -o %s 2>/dev/null", test_rocesim_bin(), long_args, dir[i]);
        CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    }
    for (size_t k = 0; k < sizeof same / sizeof *same; k++) {
        char *a = read_in(dir[0], same[k]), *b = read_in(dir[1], same[k]);
        CU_ASSERT(a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    char *c = summary_capped(dir[1]);
    CU_ASSERT_STRING_EQUAL(c, "[{\"file\":\"queues.csv\",\"rows\":999974,\"from_ns\":294110,\"bound\":\"rows\"},"
                              "{\"file\":\"rates.csv\",\"rows\":838752,\"from_ns\":524220,\"bound\":\"bytes\"}]");
    free(c);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir[0], dir[1]);
    test_run(cmd, NULL);
}

/*
 * The bounds in-process, lowered: the bound of samples stops both sampled series at the same sample and sampling
 * itself; pfc.csv and watchdog.csv stop at their bound of rows, at a whole frame.  The results do not move.
 */
static void test_series_bounds_lowered(void)
{
    char dir[128], err[SCN_ERR_MAX];
    snprintf(dir, sizeof dir, "%s/lowered", tmpdir);
    struct scn_override ov[] = {{"monitor", "{\"interval\": \"1us\", \"queues\": [\"s0:*\"], \"flows\": \"all\"}"},
                                {"switch.watchdog.enabled", "true"}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(SCENARIO, NULL, ov, 2, &scn, &r));
    struct monitor m;
    CU_ASSERT_EQUAL_FATAL(monitor_open(&m, &r, dir, err, sizeof err), 0);
    m.max_samples = 100;
    m.max_rows = 5;
    /* frames and storms told to the monitor directly: the sixth of each is left out, and so is every later one */
    for (int i = 1; i <= 8; i++) {
        m.ops.on_pfc(&m, i * 1000, test_node(&r, "s0"), 3, 3, i % 2);
        m.ops.on_watchdog(&m, i * 1000, test_node(&r, "s0"), 3, 3, i % 2);
    }
    m.max_rows = MON_MAX_ROWS;
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    const struct run_series_cut *c = r.mon_notes.cut;
    /* 100 samples, 0 to 99 us: 17 ports x 2 priorities each */
    CU_ASSERT_EQUAL(m.samples, 100);
    CU_ASSERT_EQUAL(m.ops.until(&m, &r), OBS_NEVER); /* no more slices for sampling */
    CU_ASSERT(c[RUN_QUEUES].cut && c[RUN_QUEUES].by == RUN_CUT_SAMPLES && c[RUN_QUEUES].from == 100 * PS_PER_US);
    CU_ASSERT_EQUAL(c[RUN_QUEUES].rows, 100 * 17 * 2);
    CU_ASSERT(c[RUN_RATES].cut && c[RUN_RATES].by == RUN_CUT_SAMPLES && c[RUN_RATES].from == 100 * PS_PER_US);
    CU_ASSERT(c[RUN_PFC].cut && c[RUN_PFC].by == RUN_CUT_ROWS && c[RUN_PFC].rows == 5 && c[RUN_PFC].from == 6000);
    CU_ASSERT(c[RUN_WATCHDOG].cut && c[RUN_WATCHDOG].rows == 5 && c[RUN_WATCHDOG].from == 6000);
    char *sum = run_summary_json(&r, false);
    CU_ASSERT_PTR_NOT_NULL(sum && strstr(sum, "\"file\":\t\"pfc.csv\",\n\t\t\t\"rows\":\t5,\n\t\t\t\"from_ns\":\t6,"));
    free(sum);
    /* the rest of the summary, and flows.csv, are the unmonitored run's */
    memset(r.mon_notes.cut, 0, sizeof r.mon_notes.cut);
    char *monitored = test_run_text(&r);
    CU_ASSERT_EQUAL(monitor_close(&m, true, err, sizeof err), 0);
    CU_ASSERT_EQUAL(file_lines(dir, "queues.csv", NULL), 1 + 100 * 17 * 2);
    CU_ASSERT_EQUAL(file_lines(dir, "pfc.csv", NULL), 1 + 5);
    CU_ASSERT_EQUAL(file_lines(dir, "watchdog.csv", NULL), 1 + 5);
    char *q = read_in(dir, "queues.csv");
    CU_ASSERT_PTR_NOT_NULL(q && strstr(q, "\n99000,s0,16,6,") && !strstr(q, "\n100000,"));
    free(q);
    test_teardown(&scn, &r);
    /* the same run without a monitor */
    CU_ASSERT_FATAL(test_setup_from(SCENARIO, NULL, ov, 2, &scn, &r));
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    char *plain = test_run_text(&r);
    test_teardown(&scn, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(monitored);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    CU_ASSERT_STRING_EQUAL(monitored, plain);
    free(monitored);
    free(plain);
}

/*
 * The sampled series of a full run (full) against those of the same run whose bound of bytes was lowered to `bound`
 * (cut): cut is full's first samples, as many as fit the bound, to the byte; the next sample would not have fit.
 */
static void expect_cut_by_bytes(const char *full, const char *cut, const char *name, size_t bound,
                                const struct run_series_cut *c)
{
    char *f = read_in(full, name), *k = read_in(cut, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    size_t n = strlen(k), rows = 0;
    for (size_t i = 0; i < n; i++)
        rows += k[i] == '\n';
    CU_ASSERT(n <= bound && strncmp(f, k, n) == 0 && f[n] != '\0');
    /* the next sample: every row of full with the time of its first row left out */
    size_t t = strcspn(f + n, ","), e = n;
    while (f[e] && strncmp(f + e, f + n, t + 1) == 0)
        e += strcspn(f + e, "\n") + 1;
    printf("\n    %s: %zu bytes, %zu rows, the next sample of %zu bytes from %.*s ns ", name, n, rows - 1, e - n,
           (int)t, f + n);
    CU_ASSERT(e > n && e > bound);
    CU_ASSERT(c->cut && c->by == RUN_CUT_BYTES && c->bound == bound && c->rows == rows - 1);
    CU_ASSERT_EQUAL(c->from, (sim_time_t)(atof(f + n) * 1000));
    free(f);
    free(k);
}

/*
 * The bound of bytes, lowered: queues.csv and rates.csv stop at the last whole sample that fits, pfc.csv at the last
 * whole frame, each file taken back to that byte (a sample is written before it is measured); the results do not
 * move.
 */
static void test_series_bytes_lowered(void)
{
    char dir[128], full[128], err[SCN_ERR_MAX];
    snprintf(dir, sizeof dir, "%s/bytes", tmpdir);
    snprintf(full, sizeof full, "%s/bytes-full", tmpdir);
    struct scn_override ov[] = {{"monitor", "{\"interval\": \"1us\", \"queues\": [\"s0:*\"], \"flows\": \"all\"}"}};
    struct scenario scn;
    struct run r;
    struct monitor m;
    CU_ASSERT_FATAL(test_setup_from(SCENARIO, NULL, ov, 1, &scn, &r));
    CU_ASSERT_EQUAL_FATAL(monitor_open(&m, &r, full, err, sizeof err), 0);
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    char *plain = test_run_text(&r);
    CU_ASSERT_EQUAL(monitor_close(&m, true, err, sizeof err), 0);
    test_teardown(&scn, &r);

    CU_ASSERT_FATAL(test_setup_from(SCENARIO, NULL, ov, 1, &scn, &r));
    CU_ASSERT_EQUAL_FATAL(monitor_open(&m, &r, dir, err, sizeof err), 0);
    CU_ASSERT_EQUAL(m.max_bytes, FILE_MAX_BYTES);
    /* frames told to the monitor directly: the header (33 bytes) and three rows are 79 bytes, the fourth row would
     * make 95; it and every later frame are left out */
    m.max_bytes = 89;
    for (int i = 1; i <= 8; i++)
        m.ops.on_pfc(&m, i * 1000, test_node(&r, "s0"), 3, 3, i % 2);
    m.max_bytes = 10000;
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    struct run_series_cut c[RUN_N_SERIES];
    memcpy(c, r.mon_notes.cut, sizeof c);
    CU_ASSERT(c[RUN_PFC].cut && c[RUN_PFC].by == RUN_CUT_BYTES && c[RUN_PFC].rows == 3 && c[RUN_PFC].from == 4000 &&
              c[RUN_PFC].bound == 89);
    /* 19 samples of 17 ports x 2 priorities, 25 of 16 flows */
    CU_ASSERT(c[RUN_QUEUES].rows == 19 * 17 * 2 && c[RUN_QUEUES].from == 19 * PS_PER_US);
    CU_ASSERT(c[RUN_RATES].rows == 25 * 16 && c[RUN_RATES].from == 25 * PS_PER_US);
    char *sum = run_summary_json(&r, false);
    CU_ASSERT_PTR_NOT_NULL(sum && strstr(sum, "\"file\":\t\"pfc.csv\",\n\t\t\t\"rows\":\t3,\n\t\t\t\"from_ns\":\t4,\n"
                                             "\t\t\t\"bound\":\t\"bytes\""));
    free(sum);
    memset(r.mon_notes.cut, 0, sizeof r.mon_notes.cut);
    char *monitored = test_run_text(&r);
    CU_ASSERT_EQUAL(monitor_close(&m, true, err, sizeof err), 0);
    test_teardown(&scn, &r);
    char *pfc = read_in(dir, "pfc.csv");
    CU_ASSERT_STRING_EQUAL(pfc ? pfc : "", "time_ns,node,port,priority,event\n1,s0,3,3,pause\n2,s0,3,3,resume\n"
                                           "3,s0,3,3,pause\n");
    free(pfc);
    expect_cut_by_bytes(full, dir, "queues.csv", 10000, &c[RUN_QUEUES]);
    expect_cut_by_bytes(full, dir, "rates.csv", 10000, &c[RUN_RATES]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(monitored);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    CU_ASSERT_STRING_EQUAL(monitored, plain);
    free(monitored);
    free(plain);
}

static void test_flow_selection(void)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/select", tmpdir);
    struct monitor m;
    char *o = run_variant("monitor.flows", "[\"incast.3\"]", dir, NULL, &m, NULL);
    free(o);
    char *t = read_in(dir, "rates.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char **ln;
    size_t n = lines_of(t, &ln);
    CU_ASSERT(n > 10);
    bool only3 = true;
    for (size_t k = 1; k < n; k++) {
        char id[64];
        only3 &= strcmp(field(ln[k], 1, id, sizeof id), "incast.3") == 0;
    }
    CU_ASSERT_TRUE(only3);
    free(ln);
    free(t);
    /* an entry id takes all its flows */
    o = run_variant("monitor.flows", "[\"incast\"]", dir, NULL, &m, NULL);
    free(o);
    t = read_in(dir, "rates.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, ",incast.0,") && strstr(t, ",incast.15,"));
    free(t);
}

static void test_time_format(void)
{
    char b[32];
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(0, b, sizeof b), "0");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(10000000, b, sizeof b), "10000");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(1500, b, sizeof b), "1.5");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(110007360, b, sizeof b), "110007.36");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(1, b, sizeof b), "0.001");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(-1500, b, sizeof b), "-1.5");
    CU_ASSERT_STRING_EQUAL(units_fmt_ns(-1, b, sizeof b), "-0.001");
}

static void test_progress_line(void)
{
    char b[256];
    /* 25% of the time but half the flows: the larger one counts */
    progress_format(b, sizeof b, 5000000000LL, 20000000000LL, 8, 16, 2.5e6, 3.0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "5.000 ms simulated"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "50.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "2.50 M events/s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "ETA 3s"));
}

/* Runs the binary with stderr on a pseudo-terminal; returns what it wrote there (caller frees). */
static char *run_on_pty(bool quiet)
{
    int master, slave;
    if (openpty(&master, &slave, NULL, NULL, NULL))
        return NULL;
    char out[128];
    snprintf(out, sizeof out, "%s/pty%d", tmpdir, quiet);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(master);
        dup2(slave, 2);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        setenv("ROCESIM_PROGRESS_DELAY", "0", 1);
        const char *bin = test_rocesim_bin();
        if (quiet)
            execl(bin, bin, "run", SCENARIO, "--no-plot", "-q", "-o", out, (char *)NULL);
        else
            execl(bin, bin, "run", SCENARIO, "--no-plot", "-o", out, (char *)NULL);
        _exit(127);
    }
    int st = -1;
    waitpid(pid, &st, 0);
    /* the slave stays open here, so the master reads what is buffered and then would block */
    fcntl(master, F_SETFL, O_NONBLOCK);
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while ((k = read(master, buf + n, cap - n - 1)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    close(master);
    close(slave);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return buf;
}

static void test_progress_on_terminal(void)
{
    char *s = run_on_pty(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "simulated"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "events/s"));
    size_t l = strlen(s);
    CU_ASSERT(l > 0 && s[l - 1] == '\r'); /* erased at the end */
    free(s);
    s = run_on_pty(true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(s, "");
    free(s);
}

/*
 * Numbers in the JSON outputs read back as the same double: 7.7801452682844907 (a p95 slowdown summary.json
 * once wrote as 7.78014526828449, which reads back 1 ulp lower) and values that need 15, 16 and 17 digits.
 */
static void test_json_numbers_exact(void)
{
    static const double v[] = {7.7801452682844907, 0.1, 1.0 / 3.0, 2e-300, 123456789012345678.0, -0.0, 42, 1e15 + 1};
    cJSON *o = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cJSON_AddItemToArray(o, cJSON_CreateNumber(v[i]));
    char *txt = jsonout_print(o);
    cJSON_Delete(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(txt);
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "0.1,")); /* the shortest exact form, not 0.10000000000000001 */
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "42,"));
    cJSON *back = cJSON_Parse(txt);
    free(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(back), (int)(sizeof v / sizeof v[0]));
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CU_ASSERT(cJSON_GetArrayItem(back, (int)i)->valuedouble == v[i]);
    cJSON_Delete(back);
}

void test_outputs_register(void)
{
    CU_pSuite s = CU_add_suite("outputs: time series, plots, progress", suite_init, suite_clean);
    CU_add_test(s, "JSON outputs write every number so that it reads back exactly", test_json_numbers_exact);
    CU_add_test(s, "run prints the summary and the output paths", test_run_summary);
    CU_add_test(s, "no progress when stderr is not a terminal", test_no_progress_off_terminal);
    CU_add_test(s, "CSV headers; no temporary files left", test_headers_and_no_temporaries);
    CU_add_test(s, "times are monotonic, in ns with <= 3 decimals", test_times_monotonic);
    CU_add_test(s, "pfc.csv rows = summary pause/resume frames", test_pfc_rows_match_summary);
    CU_add_test(s, "queues.csv rows = samples x queues x priorities", test_queue_rows);
    CU_add_test(s, "rates.csv has every flow, alpha in [0,1]", test_rates_rows);
    CU_add_test(s, "plots are valid PNGs of sensible size", test_plots_drawn);
    CU_add_test(s, "rocesim plot redraws; bad directories exit 2", test_plot_command);
    CU_add_test(s, "rates.png names the congestion control's dashed rate and draws a monitor.flows list in its order",
                test_rates_plot_labels);
    CU_add_test(s, "without gnuplot: a note, data intact, exit 0", test_without_gnuplot);
    CU_add_test(s, "--no-plot; monitoring leaves flows.csv unchanged", test_no_plot_flag);
    CU_add_test(s, "a queue pattern that matches nothing exits 2", test_bad_queue_pattern);
    CU_add_test(s, "a plot gnuplot cut short or failed: reported, no PNG, not listed", test_failed_plots);
    CU_add_test(s, "a reused directory: earlier outputs and dead runs' temporaries removed", test_reused_directory);
    CU_add_test(s, "monitor.flows default: at most 32 flows, spread evenly; \"all\" is all", test_bounded_flow_default);
    CU_add_test(s, "monitor.pfc default: at most 32 ports; \"none\"; summary.json unchanged", test_bounded_pfc_default);
    CU_add_test(s, "monitor and progress change no result, end time or event count", test_monitor_changes_nothing);
    CU_add_test(s, "an incast of short flows: FCT to the last byte and to the last ACK", test_fct_to_last_ack_incast);
    CU_add_test(s, "time series bounded: a 1 ps interval, 1 bps links for 17 s (rows cut at a sample, noted)",
                test_series_bounded);
    CU_add_test(s, "time series bounds lowered: samples, PFC frames and storms cut, results unchanged",
                test_series_bounds_lowered);
    CU_add_test(s, "the bound of bytes, lowered: each series stops at its last whole sample or frame that fits",
                test_series_bytes_lowered);
    CU_add_test(s, "time series bounds over MPI ranks: the same cut, the same files", test_series_bounded_ranks);
    CU_add_test(s, "monitor.flows selects by flow or entry id", test_flow_selection);
    CU_add_test(s, "time format of the CSV files", test_time_format);
    CU_add_test(s, "progress line contents", test_progress_line);
    CU_add_test(s, "progress on a terminal, erased at the end; none with -q", test_progress_on_terminal);
}
