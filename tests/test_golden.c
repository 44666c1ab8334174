/*
 * Golden-run regression: every scenario in scenarios/ (shortened where
 * tests/golden/short.conf says so) is run by the real binary, and its
 * summary.json (without the wall-clock fields) and flows.csv must equal the
 * reference outputs in tests/golden/ byte for byte.  `make regress-update`
 * rewrites the references on purpose; review their diff in the commit.
 */
#include "tests/tests.h"
#include "tools/run.h"

#include <cjson/cJSON.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/golden"

/* summary.json without the fields that measure the machine rather than the simulation. */
static char *normalized_summary(const char *path)
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
    /* sweep files live in scenarios/sweeps/ next to the scenarios they use: skip them */
    char *t = test_read_file(path, NULL);
    bool sweep = t && strstr(t, "\"grid\"") != NULL;
    free(t);
    return !sweep;
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
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        if (!is_scenario(path))
            continue;
        char key[256], args[1024], cmd[4096], out[512];
        key_of(path, key, sizeof key);
        short_args(key, args, sizeof args);
        snprintf(out, sizeof out, "%s/%s", tmp, key);
        snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s %s", test_rocesim_bin(), path, out, args);
        char *log = NULL;
        int rc = test_run(cmd, &log);
        if (rc != 0 && rc != 1) {
            fprintf(stderr, "\n  golden: %s: exit %d\n%s\n", path, rc, log ? log : "");
            free(log);
            bad++;
            continue;
        }
        free(log);
        char sp[600], fp[600], gs[600], gf[600];
        snprintf(sp, sizeof sp, "%s/summary.json", out);
        snprintf(fp, sizeof fp, "%s/flows.csv", out);
        snprintf(gs, sizeof gs, GOLDEN_DIR "/%s.summary.json", key);
        snprintf(gf, sizeof gf, GOLDEN_DIR "/%s.flows.csv", key);
        char *s = normalized_summary(sp);
        size_t flen = 0;
        char *f = test_read_file(fp, &flen);
        if (!s || !f) {
            fprintf(stderr, "\n  golden: %s: no outputs\n", path);
            bad++;
        } else if (update) {
            if (write_file_atomic(gs, s, strlen(s)) || write_file_atomic(gf, f, flen)) {
                fprintf(stderr, "\n  golden: cannot write %s\n", gs);
                bad++;
            }
        } else {
            char *es = test_read_file(gs, NULL), *ef = test_read_file(gf, NULL);
            if (!es || !ef) {
                fprintf(stderr, "\n  golden: %s: no reference in " GOLDEN_DIR " (make regress-update)\n", path);
                bad++;
            } else if (strcmp(es, s) != 0 || strcmp(ef, f) != 0) {
                fprintf(stderr, "\n  golden: %s differs from " GOLDEN_DIR "/%s.*: %s%s(outputs kept in %s)\n", path,
                        key, strcmp(es, s) ? "summary.json " : "", strcmp(ef, f) ? "flows.csv " : "", out);
                bad++;
            }
            free(es);
            free(ef);
        }
        free(s);
        free(f);
    }
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

void test_golden_register(void)
{
    CU_pSuite s = CU_add_suite("golden runs", NULL, NULL);
    CU_add_test(s, "every scenario reproduces its reference outputs byte for byte", test_golden_runs);
}
