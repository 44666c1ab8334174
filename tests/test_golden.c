/*
 * Golden-run regression: every scenario in scenarios/ (shortened where
 * tests/golden/short.conf says so) is run by the real binary, and what it
 * answers must equal the reference outputs in tests/golden/:
 *   - flows.csv, byte for byte;
 *   - summary.json's results: the reference is summary.json without the
 *     fields that measure the machine (wall_s, events_per_s); it keeps the
 *     cost counters (events, packet_hops), which are compared apart and only
 *     reported, so that a new timer or a frame that costs an extra event does
 *     not fail every golden run while the answer is unchanged
 *     (ROCESIM_GOLDEN_COSTS=1 makes a changed cost counter fail too, for a
 *     refactor that must not add or remove events);
 *   - the time series (queues.csv, rates.csv, pfc.csv, watchdog.csv): a series
 *     up to GOLDEN_SERIES_INLINE bytes is kept as it is, a larger one as a
 *     one-line digest (KEY.NAME.digest: bytes, lines, FNV-1a 64), so that the
 *     references stay small and a change in any byte is still caught.
 * The runs go GOLDEN_JOBS at a time (one per core), each in a process of its
 * own; the comparison is done here, in the parent, in a fixed order.
 * Each scenario is run again with --threads 2, 4 and 8 (sim/parallel.h), and
 * every file it writes must equal that of the run on one thread, byte for
 * byte (summary.json without wall_s and events_per_s).
 * `make regress-update` rewrites the references on purpose; review their diff
 * in the commit.
 */
#include "tests/tests.h"
#include "sim/scenario.h"
#include "tools/common/files.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOLDEN_DIR "tests/golden"
#define GOLDEN_SERIES_INLINE 32768

static const char *const series_files[] = {"queues.csv", "rates.csv", "pfc.csv", "watchdog.csv", "credits.csv", NULL};
/* What a run costs rather than what it answers: kept in the references, compared apart. */
static const char *const cost_fields[] = {"events", "packet_hops", NULL};

/* summary.json as its reference keeps it: without the fields that measure the machine, '\n' at the end. */
static char *reference_summary(const char *path)
{
    char *txt = test_read_file(path, NULL);
    if (!txt)
        return NULL;
    cJSON *j = cJSON_Parse(txt);
    free(txt);
    if (!j)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(j, "wall_s");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "events_per_s");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "one_thread_share");
    char *out = cJSON_Print(j);
    cJSON_Delete(j);
    if (!out)
        return NULL;
    size_t l = strlen(out);
    char *o2 = realloc(out, l + 2);
    if (!o2) {
        free(out);
        return NULL;
    }
    o2[l] = '\n';
    o2[l + 1] = '\0';
    return o2;
}

/* A reference summary's results (cost counters removed; caller frees) and its cost counters, as text, in costs. */
static char *summary_results(const char *text, char *costs, size_t costlen)
{
    costs[0] = '\0';
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    if (!j)
        return NULL;
    for (int i = 0; cost_fields[i]; i++) {
        cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(j, cost_fields[i]);
        size_t used = strlen(costs);
        snprintf(costs + used, costlen - used, "%s%s %.0f", i ? ", " : "", cost_fields[i],
                 c && cJSON_IsNumber(c) ? c->valuedouble : -1.0);
        cJSON_Delete(c);
    }
    char *out = cJSON_Print(j);
    cJSON_Delete(j);
    return out;
}

/* The digest a large series is kept as: its length, its line count and its FNV-1a 64 hash, one line. */
static void series_digest(const char *data, size_t len, char *out, size_t outlen)
{
    uint64_t h = 14695981039346656037ull;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)data[i]) * 1099511628211ull;
        lines += data[i] == '\n';
    }
    snprintf(out, outlen, "bytes %zu lines %zu fnv1a64 %016llx\n", len, lines, (unsigned long long)h);
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s", s);
}

/*
 * Compares one run's outputs in dir `out` with the references of `key` in `ref`: returns how many files
 * differ (or are missing), named in `diff`; a changed cost counter is described in `note` and does not count
 * unless count_costs.
 */
static int golden_compare(const char *key, const char *out, const char *ref, bool count_costs, char *diff,
                          size_t difflen, char *note, size_t notelen)
{
    char p[1024], q[1024];
    int bad = 0;
    diff[0] = note[0] = '\0';

    snprintf(p, sizeof p, "%s/summary.json", out);
    snprintf(q, sizeof q, "%s/%s.summary.json", ref, key);
    char *got = reference_summary(p), *want = test_read_file(q, NULL);
    char gc[128], wc[128];
    char *gr = summary_results(got, gc, sizeof gc), *wr = summary_results(want, wc, sizeof wc);
    if (!gr || !wr || strcmp(gr, wr) != 0) {
        append(diff, difflen, !want ? "summary.json (no reference) " : "summary.json ");
        bad++;
    } else if (strcmp(gc, wc) != 0) {
        snprintf(note, notelen, "cost counters %s, reference %s", gc, wc);
        bad += count_costs;
    }
    free(got);
    free(want);
    free(gr);
    free(wr);

    snprintf(p, sizeof p, "%s/flows.csv", out);
    snprintf(q, sizeof q, "%s/%s.flows.csv", ref, key);
    size_t gl = 0, wl = 0;
    got = test_read_file(p, &gl);
    want = test_read_file(q, &wl);
    if (!got || !want || gl != wl || memcmp(got, want, gl) != 0) {
        append(diff, difflen, !want ? "flows.csv (no reference) " : "flows.csv ");
        bad++;
    }
    free(got);
    free(want);

    for (int i = 0; series_files[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", out, series_files[i]);
        got = test_read_file(p, &gl);
        snprintf(q, sizeof q, "%s/%s.%s", ref, key, series_files[i]);
        want = test_read_file(q, &wl);
        bool same;
        if (want) {
            same = got && gl == wl && memcmp(got, want, gl) == 0;
        } else {
            snprintf(q, sizeof q, "%s/%s.%s.digest", ref, key, series_files[i]);
            want = test_read_file(q, NULL);
            char d[128] = "";
            if (got)
                series_digest(got, gl, d, sizeof d);
            /* neither reference: the run must not write the file either */
            same = want ? got && strcmp(d, want) == 0 : !got;
        }
        if (!same) {
            append(diff, difflen, series_files[i]);
            append(diff, difflen, " ");
            bad++;
        }
        free(got);
        free(want);
    }
    return bad;
}

/* Rewrites the references of `key` in `ref` from the outputs in dir `out`; returns 0, or -1 (said on stderr). */
static int golden_write(const char *key, const char *out, const char *ref)
{
    char p[1024], q[1024];
    int rc = 0;
    snprintf(p, sizeof p, "%s/summary.json", out);
    snprintf(q, sizeof q, "%s/%s.summary.json", ref, key);
    char *s = reference_summary(p);
    rc |= !s || write_file_atomic(q, s, strlen(s));
    free(s);
    for (int i = -1; series_files[i < 0 ? 0 : i]; i++) {
        const char *name = i < 0 ? "flows.csv" : series_files[i];
        size_t len = 0;
        snprintf(p, sizeof p, "%s/%s", out, name);
        char *data = test_read_file(p, &len);
        char whole[1024], digest[1040];
        snprintf(whole, sizeof whole, "%s/%s.%s", ref, key, name);
        snprintf(digest, sizeof digest, "%s.digest", whole);
        unlink(whole);
        unlink(digest);
        if (!data) {
            rc |= i < 0; /* flows.csv is always written; a series may be absent */
            continue;
        }
        if (i < 0 || len <= GOLDEN_SERIES_INLINE) {
            rc |= write_file_atomic(whole, data, len) != 0;
        } else {
            char d[128];
            series_digest(data, len, d, sizeof d);
            rc |= write_file_atomic(digest, d, strlen(d)) != 0;
        }
        free(data);
    }
    if (rc)
        fprintf(stderr, "\n  golden: cannot write the references of %s in %s\n", key, ref);
    return rc ? -1 : 0;
}

/* The extra run options for a scenario (its line in short.conf), or "". */
static void short_args(const char *name, char *args, size_t len)
{
    args[0] = '\0';
    FILE *f = fopen(GOLDEN_DIR "/short.conf", "r");
    if (!f)
        return;
    char line[1024];
    size_t nl = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, name, nl) != 0 || line[nl] != ' ')
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(args, len, "%s", line + nl + 1);
        break;
    }
    fclose(f);
}

/* Key of a scenario file: its path under scenarios/ with '/' turned into '.', without ".json". */
static void key_of(const char *path, char *key, size_t len)
{
    const char *p = strncmp(path, "scenarios/", 10) == 0 ? path + 10 : path;
    snprintf(key, len, "%s", p);
    char *dot = strstr(key, ".json");
    if (dot)
        *dot = '\0';
    for (char *c = key; *c; c++)
        if (*c == '/')
            *c = '.';
}

static bool is_scenario(const char *path)
{
    /* sweep and tune files (scenarios/sweeps/, scenarios/tune/) name a scenario rather than being one: their
     * top-level "scenario" field says so (a scenario has none) */
    char *t = test_read_file(path, NULL);
    size_t unclosed;
    char *clean = t ? scn_strip_comments(t, &unclosed) : NULL;
    cJSON *j = clean ? cJSON_Parse(clean) : NULL;
    bool names_one = cJSON_GetObjectItemCaseSensitive(j, "scenario") != NULL;
    cJSON_Delete(j);
    free(clean);
    free(t);
    return !names_one;
}

/* The thread counts every scenario is run with besides one, for outputs identical to one thread's. */
static const int golden_threads[] = {2, 4, 8};
#define GOLDEN_THREADS (sizeof golden_threads / sizeof golden_threads[0])

/* A file's text without its lines holding any of the machine's measures (wall_s, events_per_s, one_thread_share). */
static char *without_machine(const char *path)
{
    char *t = test_read_file(path, NULL);
    if (!t || !strstr(path, "summary.json"))
        return t;
    char *o = t;
    for (const char *l = t; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
        bool machine = false;
        for (const char *m = l; m < l + len && !machine; m++)
            machine = strncmp(m, "\"wall_s\"", 8) == 0 || strncmp(m, "\"events_per_s\"", 14) == 0 ||
                      strncmp(m, "\"one_thread_share\"", 18) == 0;
        if (!machine) {
            memmove(o, l, len);
            o += len;
        }
        l += len;
    }
    *o = '\0';
    return t;
}

/*
 * Whether run directory b holds exactly the files of a, each equal byte for byte (summary.json but for the
 * machine's measures); the first difference goes to diff.
 */
static bool same_outputs(const char *a, const char *b, char *diff, size_t len)
{
    DIR *d = opendir(a);
    if (!d) {
        snprintf(diff, len, "cannot list the run on one thread");
        return false;
    }
    bool same = true;
    int files = 0;
    for (struct dirent *e; same && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        char *ta = without_machine(pa), *tb = without_machine(pb);
        same = ta && tb && strcmp(ta, tb) == 0;
        if (!same)
            snprintf(diff, len, "%s", e->d_name);
        free(ta);
        free(tb);
        files++;
    }
    closedir(d);
    if (same) {
        int fb = 0;
        d = opendir(b);
        for (struct dirent *e; d && (e = readdir(d));)
            fb += e->d_name[0] != '.';
        if (d)
            closedir(d);
        same = fb == files;
        if (!same)
            snprintf(diff, len, "%d files, one thread wrote %d", fb, files);
    }
    return same;
}

/* Runs the shell command lines cmd[0..n), `jobs` at a time; rc[i] gets each one's exit status (-1: not run). */
static void run_parallel(char *const *cmd, int *rc, size_t n, int jobs)
{
    pid_t pid[16];
    size_t item[16];
    int running = 0;
    if (jobs > 16)
        jobs = 16;
    fflush(NULL);
    for (size_t next = 0; next < n || running > 0;) {
        if (next < n && running < jobs) {
            rc[next] = -1;
            pid_t c = fork();
            if (c == 0) {
                execl("/bin/sh", "sh", "-c", cmd[next], (char *)NULL);
                _exit(127);
            }
            if (c > 0) {
                pid[running] = c;
                item[running++] = next;
            }
            next++;
            continue;
        }
        int st;
        pid_t c = waitpid(-1, &st, 0);
        if (c < 0)
            break;
        for (int i = 0; i < running; i++) {
            if (pid[i] != c)
                continue;
            rc[item[i]] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            pid[i] = pid[--running];
            item[i] = item[running];
            break;
        }
    }
}

/* Runs one scenario per core at once. */
static int golden_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

/*
 * Runs every scenario; compares with (or, when update, rewrites) the golden
 * files.  Returns the number of mismatches (or of failures to run).
 */
int golden_check(bool update)
{
    glob_t g;
    int bad = 0;
    memset(&g, 0, sizeof g);
    /* the scenarios at the top level, then those one and two folders down (sweeps' scenarios, labs) */
    if (glob("scenarios/*.json", 0, NULL, &g) != 0 || glob("scenarios/*/*.json", GLOB_APPEND, NULL, &g) > GLOB_NOMATCH ||
        glob("scenarios/*/*/*.json", GLOB_APPEND, NULL, &g) > GLOB_NOMATCH)
        return 1;
    char tmp[] = "/tmp/rocesim-golden-XXXXXX";
    if (!mkdtemp(tmp)) {
        globfree(&g);
        return 1;
    }
    size_t n = 0, per = 1 + (update ? 0 : GOLDEN_THREADS);
    char **cmd = calloc(g.gl_pathc * per, sizeof *cmd), **keys = calloc(g.gl_pathc, sizeof *keys);
    const char **paths = calloc(g.gl_pathc, sizeof *paths);
    int *rc = calloc(g.gl_pathc * per, sizeof *rc);
    if (!cmd || !keys || !paths || !rc) {
        fprintf(stderr, "\n  golden: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        if (!is_scenario(path))
            continue;
        char key[256], args[1024], line[4096];
        key_of(path, key, sizeof key);
        short_args(key, args, sizeof args);
        snprintf(line, sizeof line, "%s run %s -q --no-plot -o %s/%s %s >%s/%s.log 2>&1", test_rocesim_bin(), path,
                 tmp, key, args, tmp, key);
        paths[n] = path;
        keys[n] = strdup(key);
        cmd[n * per] = strdup(line);
        for (size_t t = 1; t < per; t++) {
            /* 2 threads as a user runs them (on one thread while the other runs take the cores); 4 and 8 kept on
             * their threads, so that the threaded engine itself is what they compare */
            snprintf(line, sizeof line, "%s run %s -q --no-plot -o %s/%s.t%d %s --threads %d%s >%s/%s.t%d.log 2>&1",
                     test_rocesim_bin(), path, tmp, key, golden_threads[t - 1], args, golden_threads[t - 1],
                     golden_threads[t - 1] > 2 ? " --fixed-threads" : "", tmp, key, golden_threads[t - 1]);
            cmd[n * per + t] = strdup(line);
        }
        n++;
    }
    run_parallel(cmd, rc, n * per, golden_jobs());

    bool count_costs = getenv("ROCESIM_GOLDEN_COSTS") && strcmp(getenv("ROCESIM_GOLDEN_COSTS"), "1") == 0;
    for (size_t i = 0; i < n; i++) {
        char out[512];
        snprintf(out, sizeof out, "%s/%s", tmp, keys[i]);
        /* the same run on 2, 4 and 8 threads: the same files, byte for byte */
        for (size_t t = 1; t < per && rc[i * per] <= 1; t++) {
            char tout[600], diff[256] = "";
            snprintf(tout, sizeof tout, "%s.t%d", out, golden_threads[t - 1]);
            if (rc[i * per + t] != rc[i * per] || !same_outputs(out, tout, diff, sizeof diff)) {
                fprintf(stderr, "\n  golden: %s on %d threads (exit %d) differs from one thread (exit %d): %s "
                        "(outputs kept in %s)\n", paths[i], golden_threads[t - 1], rc[i * per + t], rc[i * per],
                        diff, tout);
                bad++;
            }
        }
        if (rc[i * per] != 0 && rc[i * per] != 1) {
            char lp[600];
            snprintf(lp, sizeof lp, "%s.log", out);
            char *log = test_read_file(lp, NULL);
            fprintf(stderr, "\n  golden: %s: exit %d\n%s\n", paths[i], rc[i * per], log ? log : "");
            free(log);
            bad++;
        } else if (update) {
            bad += golden_write(keys[i], out, GOLDEN_DIR) != 0;
        } else {
            char diff[256], note[512];
            int d = golden_compare(keys[i], out, GOLDEN_DIR, count_costs, diff, sizeof diff, note, sizeof note);
            if (d)
                fprintf(stderr, "\n  golden: %s differs from " GOLDEN_DIR "/%s.*: %s%s%s(outputs kept in %s)\n",
                        paths[i], keys[i], diff, *note ? note : "", *note ? " " : "", out);
            else if (*note)
                fprintf(stderr, "\n  golden: %s: results unchanged; %s (not counted; ROCESIM_GOLDEN_COSTS=1 counts "
                        "them)\n", paths[i], note);
            bad += d;
        }
        for (size_t t = 0; t < per; t++)
            free(cmd[i * per + t]);
        free(keys[i]);
    }
    free(cmd);
    free(keys);
    free(paths);
    free(rc);
    globfree(&g);
    if (!bad) {
        char rm[600];
        snprintf(rm, sizeof rm, "rm -rf %s", tmp);
        test_run(rm, NULL);
    }
    return bad;
}

static void test_golden_runs(void)
{
    CU_ASSERT_EQUAL(golden_check(false), 0);
}

/* Replaces the first occurrence of `from` in file path by `to` (same length); false when it is not there. */
static bool patch_file(const char *path, const char *from, const char *to)
{
    size_t len = 0;
    char *t = test_read_file(path, &len);
    char *at = t ? strstr(t, from) : NULL;
    bool ok = at && strlen(from) == strlen(to);
    if (ok) {
        memcpy(at, to, strlen(to));
        ok = write_file_atomic(path, t, len) == 0;
    }
    free(t);
    return ok;
}

/*
 * Adds delta to the first integer field `name` of the summary.json at path (a patch of the same length: delta
 * must not change its digit count); was and now (48 bytes) get the text before and after.  False when absent.
 */
static bool bump_field(const char *path, const char *name, long long delta, char *was, char *now)
{
    char key[40];
    snprintf(key, sizeof key, "\"%s\":\t", name);
    char *t = test_read_file(path, NULL);
    const char *at = t ? strstr(t, key) : NULL;
    long long v = at ? atoll(at + strlen(key)) : 0;
    free(t);
    snprintf(was, 48, "%s%lld,", key, v);
    snprintf(now, 48, "%s%lld,", key, v + delta);
    return at && v > 0 && patch_file(path, was, now);
}

/*
 * The compare itself: one run of a small scenario against copies of its references, each changed in one
 * place.  A changed digit of flows.csv, of a result in summary.json or of a series is reported, naming the
 * file; a changed cost counter only when costs count; a large series kept as a digest still catches one byte.
 */
static void test_golden_compare_catches(void)
{
    static const char key[] = "deadlock-ring";
    char tmp[] = "/tmp/rocesim-golden-self-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char cmd[2048], out[600], ref[600], p[700], diff[256], note[512];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    snprintf(cmd, sizeof cmd, "%s run scenarios/%s.json -q --no-plot -o %s >/dev/null 2>&1; mkdir %s && cp "
             GOLDEN_DIR "/%s.* %s/", test_rocesim_bin(), key, out, ref, key, ref);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);

    CU_ASSERT_EQUAL(golden_compare(key, out, ref, true, diff, sizeof diff, note, sizeof note), 0);
    CU_ASSERT_STRING_EQUAL(diff, "");
    CU_ASSERT_STRING_EQUAL(note, "");

    /* one digit of the first flow's size */
    snprintf(p, sizeof p, "%s/%s.flows.csv", ref, key);
    CU_ASSERT_FATAL(patch_file(p, "f0,h0,h2,3,4000000", "f0,h0,h2,3,4000001"));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 1);
    CU_ASSERT_STRING_EQUAL(diff, "flows.csv ");
    CU_ASSERT_FATAL(patch_file(p, "f0,h0,h2,3,4000001", "f0,h0,h2,3,4000000"));

    /* a result: the PAUSE frames sent, one more (the values are read, so that a change of result or cost alone does
     * not need this test edited) */
    snprintf(p, sizeof p, "%s/%s.summary.json", ref, key);
    char pf_was[48], pf_now[48], was[48], now[48];
    CU_ASSERT_FATAL(bump_field(p, "pause_frames", 1, pf_was, pf_now));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 1);
    CU_ASSERT_STRING_EQUAL(diff, "summary.json ");
    CU_ASSERT_FATAL(patch_file(p, pf_now, pf_was));

    /* a cost counter: reported, counted only on request */
    CU_ASSERT_FATAL(bump_field(p, "events", -1, was, now));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 0);
    CU_ASSERT_STRING_EQUAL(diff, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "cost counters events "));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, true, diff, sizeof diff, note, sizeof note), 1);

    /* a series kept whole: one digit of pfc.csv */
    snprintf(p, sizeof p, "%s/%s.pfc.csv", ref, key);
    CU_ASSERT_FATAL(patch_file(p, ",3,pause", ",2,pause"));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 1);
    CU_ASSERT_STRING_EQUAL(diff, "pfc.csv ");
    CU_ASSERT_FATAL(patch_file(p, ",2,pause", ",3,pause"));

    /* a series kept as a digest: equal, then one byte of the output changed */
    size_t len = 0;
    snprintf(p, sizeof p, "%s/queues.csv", out);
    char *q = test_read_file(p, &len), d[128];
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    series_digest(q, len, d, sizeof d);
    free(q);
    snprintf(cmd, sizeof cmd, "rm %s/%s.queues.csv && printf '%%s' '%s' >%s/%s.queues.csv.digest", ref, key, d,
             ref, key);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 0);
    CU_ASSERT_FATAL(patch_file(p, ",3,", ",2,"));
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 1);
    CU_ASSERT_STRING_EQUAL(diff, "queues.csv ");

    /* a series the run writes without a reference */
    snprintf(cmd, sizeof cmd, "rm %s/%s.queues.csv.digest", ref, key);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    CU_ASSERT_EQUAL(golden_compare(key, out, ref, false, diff, sizeof diff, note, sizeof note), 1);

    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
}

/*
 * A k=8 fat-tree (128 hosts, 80 switches) under WebSearch for 2 ms, on 1, 2, 4 and 8 threads: the partitions
 * then cut pods apart and every frame between pods crosses threads, and every output is the same.
 */
static void test_threads_k8_websearch(void)
{
    char tmp[] = "/tmp/rocesim-threads-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char *cmd[4], line[1024];
    int rc[4], threads[4] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        snprintf(line, sizeof line, "%s run scenarios/websearch-fattree.json --set topology.k=8 --stop 2ms -q "
                 "--no-plot -o %s/t%d --threads %d%s >/dev/null 2>&1", test_rocesim_bin(), tmp, threads[i], threads[i],
                 threads[i] > 2 ? " --fixed-threads" : "");
        cmd[i] = strdup(line);
    }
    run_parallel(cmd, rc, 4, golden_jobs());
    char a[600], b[600], diff[256];
    snprintf(a, sizeof a, "%s/t1", tmp);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(rc[i], 0);
        snprintf(b, sizeof b, "%s/t%d", tmp, threads[i]);
        bool same = same_outputs(a, b, diff, sizeof diff);
        CU_ASSERT(same);
        if (!same)
            fprintf(stderr, "\n  k=8 WebSearch on %d threads differs from one thread: %s (in %s)\n", threads[i], diff,
                    b);
        free(cmd[i]);
    }
    snprintf(b, sizeof b, "%s/t1/flows.csv", tmp);
    char *flows = test_read_file(b, NULL);
    size_t lines = 0;
    for (const char *c = flows; c && *c; c++)
        lines += *c == '\n';
    free(flows);
    CU_ASSERT(lines > 500); /* a run of hundreds of flows, not a trivial one */
    snprintf(line, sizeof line, "rm -rf %s", tmp);
    test_run(line, NULL);
}

/*
 * A k=4 fat-tree whose links take 1 ps: two partitions would meet every picosecond (they ran about 90 times slower
 * than one thread).  --threads 2 runs it as one partition, says so, and writes what one thread writes.
 */
static void test_threads_short_windows(void)
{
    char tmp[] = "/tmp/rocesim-shortwin-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char line[1024], *out = NULL, diff[256], a[600], b[600];
    const char *args = "scenarios/fat-tree-k4.json --set topology.link.delay=1ps --stop 100us -q --no-plot";
    snprintf(line, sizeof line, "%s run %s -o %s/t1 2>&1", test_rocesim_bin(), args, tmp);
    CU_ASSERT_EQUAL(test_run(line, NULL), 0);
    snprintf(line, sizeof line, "%s run %s -o %s/t2 --threads 2 2>&1", test_rocesim_bin(), args, tmp);
    CU_ASSERT_EQUAL(test_run(line, &out), 0);
    CU_ASSERT(out && strstr(out, "note: ran on one thread: the partitions of --threads would have met every 1 ps"));
    free(out);
    snprintf(a, sizeof a, "%s/t1", tmp);
    snprintf(b, sizeof b, "%s/t2", tmp);
    CU_ASSERT(same_outputs(a, b, diff, sizeof diff));
    /* 10 ns between partitions is enough for them: no note */
    snprintf(line, sizeof line, "%s run scenarios/fat-tree-k4.json --set topology.link.delay=10ns --stop 20us -q "
             "--no-plot -o %s/t3 --threads 2 2>&1", test_rocesim_bin(), tmp);
    CU_ASSERT_EQUAL(test_run(line, &out), 0);
    CU_ASSERT(out && !strstr(out, "would have met"));
    free(out);
    snprintf(line, sizeof line, "rm -rf %s", tmp);
    test_run(line, NULL);
}

/*
 * rocesim-mpi run spreads the partitions over MPI ranks (models/ranks.h).  Each case crosses processes in one of
 * the ways a run does, and every file must be the one a single process writes (skipped without OpenMPI).
 */
static const struct {
    const char *scn, *args;
    int ranks, threads;
} mpi_cases[] = {
    /* PAUSE frames noted on both ranks and written by rank 0 in one order; counters.csv summed */
    {"scenarios/incast-16to1.json", "--set monitor.counters=true", 2, 1},
    /* INT records travel with their frames (HPCC) */
    {"scenarios/hpcc-fabric.json", "--stop 100us", 2, 1},
    /* the wait-for graph gathered from three ranks finds the cycle, at the same line */
    {"scenarios/deadlock-ring.json", "", 3, 1},
    /* a flow's Valiant intermediate, chosen by its sender, travels with its frames (UGAL) */
    {"scenarios/labs/06-fattree-vs-dragonfly/dragonfly-ugal-uniform.json", "--stop 600us", 2, 1},
    /* Poisson arrivals made by every rank alike; two ranks of two threads */
    {"scenarios/websearch-fattree.json", "", 2, 2},
    /* a ring all-reduce: each step's flow is made by its sender's rank and made again by the others between
     * windows; the ranks' completions are counted together */
    {"scenarios/allreduce-leafspine.json", "", 3, 1},
    /* 99 timeouts, none spurious: drops at switches of one rank reach the senders of the other (lost_hi) */
    {"scenarios/labs/01-one-config-ten-times/cluster-a.json", "--set topology.pods=2 --set traffic.0.size=32MB", 2,
     1},
    /* an all-to-all (made from the ring all-reduce's file in the test): every flow made by the run's event */
    {"ALLTOALL", "--set traffic.0.size=8MB", 2, 1},
    /* a host's PAUSE storm and the watchdog that drops it: the poll's part for each switch runs in its rank */
    {"scenarios/pfc-storm.json", "--set switch.watchdog.enabled=true --set switch.watchdog.detection_time=200us "
     "--set switch.watchdog.restoration_time=200us --set switch.watchdog.poll_interval=10us", 3, 1},
    /* a link taken down and back: both ends flushed in their ranks, routes recomputed in all */
    {"scenarios/link-failure.json", "", 2, 1},
    /* a slow receiver that recovers and a lossy link (written by the test) */
    {"FAULTS", "", 3, 1},
    /* a collective whose steps it summarizes: made again by the other ranks without names of their own, out of
     * flows.csv on every rank */
    {"scenarios/ai/nccl-allreduce-leafspine.json", "--set monitor.step_flows=false", 2, 1},
    /* flows started by triggers in their hosts' rank, their starts told to the others between windows */
    {"scenarios/triggers-chain.json", "", 3, 1},
    /* UET: acknowledgements whose selective ACK and entropy ride in side records across ranks; with receiver
     * credit, PULL frames and each host's pull pacer in its own rank */
    {"scenarios/uet-incast-16.json", "", 3, 1},
    {"scenarios/uet-incast-16.json", "--set host.uet.rccc=true --set host.uet.base_rtt=14.02272us", 2, 2},
};

#define MPI_FAULTS_JSON                                                                                          \
    "{\"name\": \"faults\", \"seed\": 3, \"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, "           \
    "\"hosts_per_leaf\": 2, \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": "       \
    "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"buffer\": \"1MB\"}, \"traffic\": [{\"type\": \"flow\", \"src\": "     \
    "\"h2\", \"dst\": \"h0\", \"size\": \"2MB\"}, {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h0\", \"size\": "      \
    "\"2MB\"}, {\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h3\", \"size\": \"2MB\"}], \"faults\": [{\"type\": "       \
    "\"slow_receiver\", \"host\": \"h0\", \"rate\": \"20Gbps\", \"start\": \"20us\", \"end\": \"300us\"}, {\"type\": "     \
    "\"link_errors\", \"between\": [\"leaf0\", \"spine1\"], \"rate\": 0.05, \"start\": \"10us\", \"end\": \"200us\"}], "    \
    "\"monitor\": {\"interval\": \"5us\", \"queues\": [\"*:*\"], \"flows\": \"all\", \"pfc\": \"all\"}}\n"
#define MPI_CASES (sizeof mpi_cases / sizeof mpi_cases[0])

static void test_mpi_ranks(void)
{
    const char *bin = test_mpi_bin("the rocesim-mpi run test");
    if (!bin)
        return;
    char tmp[] = "/tmp/rocesim-mpi-run-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char *cmd[MPI_CASES], line[2048], a2a[600];
    int rc[MPI_CASES];
    snprintf(a2a, sizeof a2a, "%s/alltoall.json", tmp);
    snprintf(line, sizeof line, "sed 's/\"type\": \"allreduce\", \"id\": \"ar\", \"algorithm\": \"ring\"/\"type\": "
             "\"alltoall\", \"id\": \"a2a\"/' scenarios/allreduce-leafspine.json >%s && grep -q alltoall %s", a2a, a2a);
    CU_ASSERT_FATAL(test_run(line, NULL) == 0);
    char faults[600];
    snprintf(faults, sizeof faults, "%s/faults.json", tmp);
    FILE *ff = fopen(faults, "w");
    CU_ASSERT_FATAL(ff && fputs(MPI_FAULTS_JSON, ff) >= 0 && fclose(ff) == 0);
    const char *scn[MPI_CASES];
    for (size_t i = 0; i < MPI_CASES; i++) {
        scn[i] = !strcmp(mpi_cases[i].scn, "ALLTOALL") ? a2a : !strcmp(mpi_cases[i].scn, "FAULTS") ? faults
                                                                                                   : mpi_cases[i].scn;
        snprintf(line, sizeof line, "%s run %s %s -q --no-plot -o %s/one%zu >/dev/null 2>&1", test_rocesim_bin(),
                 scn[i], mpi_cases[i].args, tmp, i);
        cmd[i] = strdup(line);
    }
    run_parallel(cmd, rc, MPI_CASES, golden_jobs());
    for (size_t i = 0; i < MPI_CASES; i++) {
        free(cmd[i]);
        CU_ASSERT_EQUAL(rc[i], 0);
        snprintf(line, sizeof line, "mpirun --allow-run-as-root --oversubscribe -np %d %s run %s %s --threads %d -q "
                 "--no-plot -o %s/mpi%zu >%s/mpi%zu.log 2>&1", mpi_cases[i].ranks, bin, scn[i],
                 mpi_cases[i].args, mpi_cases[i].threads, tmp, i, tmp, i);
        int r = test_run(line, NULL);
        CU_ASSERT_EQUAL(r, 0);
        char a[600], b[600], diff[256] = "";
        snprintf(a, sizeof a, "%s/one%zu", tmp, i);
        snprintf(b, sizeof b, "%s/mpi%zu", tmp, i);
        bool same = r == 0 && same_outputs(a, b, diff, sizeof diff);
        CU_ASSERT(same);
        if (!same)
            fprintf(stderr, "\n  %s over %d MPI ranks (exit %d) differs from one process: %s (in %s)\n",
                    scn[i], mpi_cases[i].ranks, r, diff, b);
    }
    /* the cases do cross: a detected deadlock, complete collectives, timeouts that were not spurious */
    static const struct {
        int i;
        const char *has;
    } want[] = {{2, "\"detected\":\ttrue"},
                {5, "\"completion_ns\":\t11"},      /* the all-reduce ends after 11 ms (golden) */
                {6, "\"timeouts\":\t99,"},
                {6, "\"spurious_timeouts\":\t0,"},
                {7, "\"type\":\t\"alltoall\""},
                {8, "\"storms_detected\":\t1,"},
                {9, "\"link_failures\":\t1,"},
                {10, "\"corrupt\":\t19"}};
    char p[600];
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        snprintf(p, sizeof p, "%s/mpi%d/summary.json", tmp, want[k].i);
        char *sum = test_read_file(p, NULL);
        CU_ASSERT(sum && strstr(sum, want[k].has));
        if (!sum || !strstr(sum, want[k].has))
            fprintf(stderr, "\n  %s: no %s\n", p, want[k].has);
        free(sum);
    }
    snprintf(p, sizeof p, "%s/mpi7/summary.json", tmp);
    char *sum = test_read_file(p, NULL);
    CU_ASSERT(sum && !strstr(sum, "\"completion_ns\":\tnull"));
    free(sum);
    snprintf(p, sizeof p, "%s/mpi0/counters.csv", tmp);
    CU_ASSERT(access(p, R_OK) == 0);
    snprintf(line, sizeof line, "rm -rf %s", tmp);
    test_run(line, NULL);
}

/* A run over MPI ranks has no live view, nor a network without lookahead: refused with exit 2, said once, and
 * nothing is written; a rank that cannot start stops them all; --max-wall stops them all alike. */
static void test_mpi_refuses(void)
{
    const char *bin = test_mpi_bin("the rocesim-mpi run refusal test");
    if (!bin)
        return;
    char *out = NULL, line[1024];
    snprintf(line, sizeof line, "rm -rf /tmp/rocesim-mpi-refused && mpirun --allow-run-as-root --oversubscribe -np 2 "
             "%s run scenarios/dumbbell.json --live 127.0.0.1:0 -q -o /tmp/rocesim-mpi-refused", bin);
    int rc = test_run(line, &out);
    CU_ASSERT_EQUAL(rc, 2);
    static const char live[] = "a run over MPI ranks has no live view";
    const char *first = out ? strstr(out, live) : NULL;
    CU_ASSERT(first && !strstr(first + strlen(live), live));
    free(out);
    CU_ASSERT(access("/tmp/rocesim-mpi-refused", F_OK) != 0);
    /* a directory rank 0 cannot make stops every rank before the run, with exit 3, said once */
    snprintf(line, sizeof line, "mpirun --allow-run-as-root --oversubscribe -np 2 %s run scenarios/dumbbell.json -q "
             "-o /proc/rocesim-no-such-dir", bin);
    out = NULL;
    rc = test_run(line, &out);
    CU_ASSERT_EQUAL(rc, 3);
    static const char said[] = "/proc/rocesim-no-such-dir: cannot create directory";
    first = out ? strstr(out, said) : NULL;
    CU_ASSERT(first && !strstr(first + strlen(said), said));
    CU_ASSERT(out && !strstr(out, "MPI_ERR"));
    free(out);
    /* one rank alone cannot read its scenario: it says why, and rank 0 that another rank failed */
    snprintf(line, sizeof line, "mpirun --allow-run-as-root --oversubscribe -np 2 sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = "
             "1 ]; then f=/tmp/rocesim-no-such.json; else f=scenarios/dumbbell.json; fi; exec %s run $f -q "
             "-o /tmp/rocesim-mpi-refused'", bin);
    out = NULL;
    rc = test_run(line, &out);
    CU_ASSERT_EQUAL(rc, 3);
    CU_ASSERT(out && strstr(out, "rocesim: another MPI rank could not set up the run (exit 3); it says why"));
    CU_ASSERT(out && strstr(out, "rocesim: /tmp/rocesim-no-such.json: cannot read"));
    free(out);
    CU_ASSERT(access("/tmp/rocesim-mpi-refused", F_OK) != 0);
    /* --max-wall stops every rank at the same slice: the outputs are written, marked incomplete */
    snprintf(line, sizeof line, "rm -rf /tmp/rocesim-mpi-wall && mpirun --allow-run-as-root --oversubscribe -np 2 %s "
             "run scenarios/hpcc-fabric.json --max-wall 0.5s -q --no-plot -o /tmp/rocesim-mpi-wall", bin);
    CU_ASSERT_EQUAL(test_run(line, NULL), 0);
    char *sum = test_read_file("/tmp/rocesim-mpi-wall/summary.json", NULL);
    CU_ASSERT(sum && strstr(sum, "\"complete\":\tfalse") &&
              (strstr(sum, "\"incomplete_reason\":\t\"max-wall 0.5s reached\"") ||
               strstr(sum, "\"incomplete_reason\":\t\"stopped by another MPI rank\"")));
    free(sum);
    test_run("rm -rf /tmp/rocesim-mpi-wall", NULL);
    /* a link of no delay leaves no lookahead between ranks: exit 2, nothing written */
    snprintf(line, sizeof line, "rm -rf /tmp/rocesim-mpi-refused && mpirun --allow-run-as-root --oversubscribe -np 2 "
             "%s run scenarios/dumbbell.json -q --set topology.link.delay=0ns -o /tmp/rocesim-mpi-refused", bin);
    out = NULL;
    rc = test_run(line, &out);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(out && strstr(out, "scenarios/dumbbell.json: 2 MPI ranks: a link without delay leaves no lookahead"));
    free(out);
    CU_ASSERT(access("/tmp/rocesim-mpi-refused", F_OK) != 0);
}

void test_golden_register(void)
{
    CU_pSuite s = CU_add_suite("golden runs", NULL, NULL);
    CU_add_test(s, "the compare reports a changed result and names the file", test_golden_compare_catches);
    CU_add_test(s, "every scenario reproduces its reference outputs", test_golden_runs);
    CU_add_test(s, "a k=8 WebSearch run is the same on 1, 2, 4 and 8 threads", test_threads_k8_websearch);
    CU_add_test(s, "partitions that would meet every 1 ps run as one, and say so", test_threads_short_windows);
    CU_add_test(s, "rocesim-mpi run over 2 or 3 ranks writes what one process writes", test_mpi_ranks);
    CU_add_test(s, "rocesim-mpi run refuses --live (exit 2), stops on a bad directory (exit 3) and at --max-wall",
                test_mpi_refuses);
}
