/*
 * Reading input files (sim/file.h): every file rocesim reads whole (scenario,
 * sweep file, a sweep's scenario, size CDF, nic-config --from) goes through one
 * bounded reader.  Devices and FIFOs are refused at once, a file of zeros at its
 * first NUL, a file over the cap before it is read; each in one line, under a
 * memory limit and a timeout, through the real binary.
 */
#include "tests/tests.h"
#include "sim/file.h"
#include "sim/scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];

static int suite_init(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/rocesim-reads-XXXXXX");
    return mkdtemp(tmp) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

/* tmp/name, in a static buffer per call site's needs (two at a time). */
static const char *in_tmp(const char *name)
{
    static char buf[2][256];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
    return buf[k];
}

/*
 * Runs `rocesim ARGS` with at most kb KB of address space (none under the
 * sanitizers, which reserve terabytes of it) and 20 s; returns the exit status
 * (124: timed out) and its output in *out.
 */
static int rocesim(int kb, char **out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rocesim(int kb, char **out, const char *fmt, ...)
{
    char args[2048], cmd[4096], lim[64] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    if (!test_under_asan())
        snprintf(lim, sizeof lim, "ulimit -v %d; ", kb);
    snprintf(cmd, sizeof cmd, "%stimeout 20 %s %s", lim, test_rocesim_bin(), args);
    return test_run(cmd, out);
}

/* Asserts that `rocesim ARGS`, with at most kb KB of address space, ends with status rc and prints exactly want. */
static void expect_in(int kb, int rc, const char *want, const char *args)
{
    char *out = NULL;
    int got = rocesim(kb, &out, "%s", args);
    if (got != rc || !out || strcmp(out, want) != 0)
        fprintf(stderr, "\n  rocesim %s: exit %d, printed: %s", args, got, out ? out : "(nothing)\n");
    CU_ASSERT_EQUAL(got, rc);
    CU_ASSERT_STRING_EQUAL(out ? out : "", want);
    free(out);
}

static void expect(int rc, const char *want, const char *args)
{
    expect_in(200000, rc, want, args);
}

/* An empty file of `size` bytes named tmp/name (sparse: it costs no disk); returns its path. */
static const char *sparse_file(const char *name, long size)
{
    const char *p = in_tmp(name);
    FILE *f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(truncate(p, size), 0);
    return p;
}

/* A small valid scenario whose poisson entry draws sizes from cdf. */
static const char *scenario_with_cdf(const char *name, const char *cdf)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
             " \"stop\": \"1ms\", \"traffic\": [{\"type\": \"poisson\", \"load\": 0.5, \"size_cdf\": \"%s\"}]}\n",
             cdf);
    const char *p = in_tmp(name);
    test_write_text(p, text);
    return p;
}

/* A sweep file over the given scenario path. */
static const char *sweep_over(const char *name, const char *scenario)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"scenario\": \"%s\", \"grid\": {\"seed\": [1, 2]}, \"objective\": {\"minimize\": "
             "\"flows.slowdown.p99\"}}\n", scenario);
    const char *p = in_tmp(name);
    test_write_text(p, text);
    return p;
}

/*
 * Asserts that `path` is refused with status rc and "PATH: what" wherever a file is read: as a scenario
 * (check), as a sweep file, and as the size CDF (named cdf_name, relative to the scenario) of a scenario.
 */
static void expect_refused_as_each_input(int rc, const char *path, const char *cdf_name, const char *what)
{
    char args[512], want[1024];
    snprintf(args, sizeof args, "check %s", path);
    snprintf(want, sizeof want, "rocesim: %s: %s", path, what);
    expect(rc, want, args);
    snprintf(args, sizeof args, "sweep %s", path);
    snprintf(want, sizeof want, "rocesim sweep: %s: %s", path, what);
    expect(rc, want, args);
    char name[64];
    snprintf(name, sizeof name, "%.40s-cdf.json", cdf_name);
    const char *scn = scenario_with_cdf(name, cdf_name);
    snprintf(args, sizeof args, "check %s", scn);
    snprintf(want, sizeof want, "rocesim: %s: traffic.0.size_cdf: %s: %s", scn, path, what);
    expect(rc, want, args);
}

#define DEV "/dev/zero: expected a regular file, got a character device (pipes and devices are not read)\n"

/* /dev/zero wherever a file is read: refused before a byte is read (it was read until memory ran out). */
static void test_device_refused(void)
{
    char args[512], want[1024];
    expect(2, "rocesim: " DEV, "check /dev/zero");
    snprintf(args, sizeof args, "run /dev/zero -o %s", in_tmp("out"));
    expect(2, "rocesim: " DEV, args);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(in_tmp("out"), &st), 0);
    expect(2, "rocesim sweep: " DEV, "sweep /dev/zero");
    expect(2, "rocesim nic-config: " DEV, "nic-config --from /dev/zero");

    const char *sw = sweep_over("zero-sweep.json", "/dev/zero");
    snprintf(args, sizeof args, "sweep %s -o %s", sw, in_tmp("sweep-out"));
    expect(2, "rocesim sweep: " DEV, args);
    snprintf(args, sizeof args, "check %s", sw);
    expect(2, "rocesim: " DEV, args);

    const char *scn = scenario_with_cdf("zero-cdf.json", "/dev/zero");
    snprintf(args, sizeof args, "check %s", scn);
    snprintf(want, sizeof want, "rocesim: %s: traffic.0.size_cdf: " DEV, scn);
    expect(2, want, args);
}

/* A FIFO as scenario, sweep or CDF: refused at once (opening it used to wait forever for a writer). */
static void test_fifo_refused(void)
{
    const char *fifo = in_tmp("fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    char path[300];
    snprintf(path, sizeof path, "%s", fifo);
    expect_refused_as_each_input(2, path, "fifo",
                                 "expected a regular file, got a pipe (FIFO) (pipes and devices are not read)\n");
}

/*
 * `rocesim plot DIR` whose rates.csv is a FIFO: the rates plot is reported failed at once and the other plots
 * are drawn (opening the FIFO used to wait forever for a writer).
 */
static void test_plot_fifo_series(void)
{
    const char *dir = in_tmp("plot-fifo");
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run scenarios/incast-16to1.json --no-plot -q -o %s && rm %s/rates.csv && "
             "mkfifo %s/rates.csv", test_rocesim_bin(), dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "timeout 20 %s plot %s", test_rocesim_bin(), dir);
    int rc = test_run(cmd, &out);
    CU_ASSERT_EQUAL(rc, 3);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: rates plot failed, no rates.png drawn: cannot read rates.csv: "
                                              "not a regular file (a pipe or a device)\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "queues.png"));
    free(out);
}

/*
 * A regular file of zeros below the cap is refused at its first NUL, in a
 * little memory (it used to be read whole, and check aborted under the limit).
 */
static void test_zeros_refused_at_first_nul(void)
{
    const char *z = sparse_file("zeros.json", 60L << 20);
    char args[512], want[1024];
    snprintf(args, sizeof args, "check %s", z);
    snprintf(want, sizeof want, "rocesim: %s: line 1: expected a text file, got a NUL byte at offset 0\n", z);
    expect_in(40000, 2, want, args);
    const char *scn = scenario_with_cdf("zeros-cdf.json", "zeros.json");
    snprintf(args, sizeof args, "check %s", scn);
    snprintf(want, sizeof want, "rocesim: %s: traffic.0.size_cdf: %s: line 1: expected a text file, got a NUL byte "
             "at offset 0\n", scn, z);
    expect_in(40000, 2, want, args);
}

/*
 * A NUL byte in a run's CSV, or in the summary.json and scenario.json plot reads, is bad input for every command
 * that reads it (show, doctor, compare, plot): exit 2, with the file and the line, whether the file is read whole (sim/file.c's file_read) or a line at a time
 * (file_open_stream).
 */
static void test_nul_in_run_csv(void)
{
    const char *good = in_tmp("nul-run");
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run scenarios/pfc-storm.json --stop 200us --set monitor.counters=true --no-plot -q "
             "-o %s", test_rocesim_bin(), good);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    static const struct {
        const char *file, *args;
    } cases[] = {{"counters.csv", "show %s pfc counters"}, {"flows.csv", "doctor %s"}, {"pfc.csv", "doctor %s"},
                 {"queues.csv", "doctor %s"}, {"flows.csv", "compare %s %s"}, {"rates.csv", "plot %s"},
                 {"queues.csv", "plot %s"}, {"summary.json", "plot %s"}, {"scenario.json", "plot %s"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char dir[300], path[400], args[900], want[600];
        snprintf(dir, sizeof dir, "%s-%zu", good, k);
        snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r %s %s", dir, good, dir);
        CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
        /* the NUL in the second line, after its first 3 bytes */
        snprintf(path, sizeof path, "%s/%s", dir, cases[k].file);
        size_t len = 0;
        char *text = test_read_file(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        size_t at = (size_t)(strchr(text, '\n') - text) + 4;
        CU_ASSERT_FATAL(at < len); /* the storm pauses by then: every file has a second line */
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fwrite(text, 1, at, f);
        fputc(0, f);
        fwrite(text + at, 1, len - at, f);
        fclose(f);
        free(text);
        snprintf(args, sizeof args, cases[k].args, dir, good);
        int rc = rocesim(400000, &out, "%s", args);
        snprintf(want, sizeof want, "%s: line 2: expected a text file, got a NUL byte at offset %zu\n", path, at);
        if (rc != 2 || !out || !strstr(out, want))
            fprintf(stderr, "\n  rocesim %s: exit %d, printed: %s", args, rc, out ? out : "(nothing)\n");
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: "));
        free(out);
    }
    /* Not JSON at all is bad input too (plot said "no summary.json" and exited 3 for both). */
    static const char *const json[][2] = {{"summary.json", "cannot read a summary"},
                                          {"scenario.json", "cannot read the run's scenario"}};
    for (size_t k = 0; k < 2; k++) {
        char dir[300], path[400], want[600];
        snprintf(dir, sizeof dir, "%s-json-%zu", good, k);
        snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r %s %s", dir, good, dir);
        CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
        snprintf(path, sizeof path, "%s/%s", dir, json[k][0]);
        test_write_text(path, "{\"scenario\": \n");
        int rc = rocesim(400000, &out, "plot %s", dir);
        snprintf(want, sizeof want, "rocesim: %s: %s: invalid JSON\nplots: none (the run's files cannot be read)\n",
                 path, json[k][1]);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_STRING_EQUAL(out ? out : "", want);
        free(out);
    }
}

/* A file over the cap is refused before it is read: "File too large", exit 3, for every kind of input. */
static void test_cap(void)
{
    const char *big = sparse_file("big.json", FILE_MAX_BYTES + 1);
    char path[300], want[1024];
    snprintf(path, sizeof path, "%s", big);
    expect_refused_as_each_input(3, path, "big.json", "cannot read: File too large\n");

    /* The reader itself: the cap, a NUL where it is, and the bytes of a good file. */
    char *data = (char *)1, err[512];
    CU_ASSERT_EQUAL(file_read(path, FILE_BYTES, &data, NULL, err, sizeof err), SCN_EIO);
    CU_ASSERT_PTR_NULL(data);
    const char *t = in_tmp("nul.txt");
    FILE *f = fopen(t, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite("abc\0def", 1, 7, f);
    fclose(f);
    CU_ASSERT_EQUAL(file_read(t, FILE_TEXT, &data, NULL, err, sizeof err), SCN_EUSAGE);
    snprintf(want, sizeof want, "%s: line 1: expected a text file, got a NUL byte at offset 3", t);
    CU_ASSERT_STRING_EQUAL(err, want);
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(file_read(t, FILE_BYTES, &data, &len, err, sizeof err), 0);
    CU_ASSERT_EQUAL(len, 7);
    CU_ASSERT_EQUAL(memcmp(data, "abc\0def", 8), 0);
    free(data);
    CU_ASSERT_EQUAL(file_read(tmp, FILE_TEXT, &data, NULL, err, sizeof err), SCN_EIO);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", tmp);
    CU_ASSERT_STRING_EQUAL(err, want);
}

void test_reads_register(void)
{
    CU_pSuite s = CU_add_suite("reads", suite_init, suite_clean);
    CU_add_test(s, "/dev/zero as scenario, sweep, its scenario, CDF or --from: one line, exit 2", test_device_refused);
    CU_add_test(s, "a FIFO as scenario, sweep or CDF is refused, not waited on", test_fifo_refused);
    CU_add_test(s, "a run's series that is a FIFO: plot reports it, never waits on it", test_plot_fifo_series);
    CU_add_test(s, "a file of zeros is refused at its first NUL, in little memory", test_zeros_refused_at_first_nul);
    CU_add_test(s, "a file over FILE_MAX_BYTES is refused before it is read", test_cap);
    CU_add_test(s, "a NUL byte in a run's CSV: show, doctor, compare, plot exit 2 naming the file and line",
                test_nul_in_run_csv);
}
