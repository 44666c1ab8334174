/* compare — runs side by side (see compare.h). */
#include "tools/compare.h"
#include "tools/sweep_util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 8

/* Reads DIR/summary.json; returns the parsed object, or NULL with a message. */
static cJSON *load_summary(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *b, err[4400];
    if (read_text_file(path, &b, err, sizeof err)) {
        fprintf(stderr, "rocesim: %s (is %s a finished run?)\n", err, dir);
        return NULL;
    }
    cJSON *j = cJSON_Parse(b);
    free(b);
    if (!j)
        fprintf(stderr, "rocesim: %s: not valid JSON\n", path);
    return j;
}

/* The number at a dotted path ("flows.fct_ns.p99"), or NaN when absent. */
static double get(const cJSON *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = j;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
        cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
    return cJSON_IsNumber(cur) ? cur->valuedouble : __builtin_nan("");
}

struct row {
    const char *label, *path;
    double scale;       /* value / scale is printed */
    const char *unit;
    int decimals;
};

int compare_main(int argc, char **argv)
{
    int n = argc - 2;
    if (n < 1 || n > MAX_RUNS) {
        fprintf(stderr, "rocesim: usage: rocesim compare DIR [DIR]... (1 to %d finished runs)\n", MAX_RUNS);
        return 2;
    }
    cJSON *s[MAX_RUNS];
    for (int i = 0; i < n; i++)
        if (!(s[i] = load_summary(argv[2 + i]))) {
            for (int k = 0; k < i; k++)
                cJSON_Delete(s[k]);
            return 2;
        }
    static const struct row rows[] = {
        {"simulated time", "sim_end_ns", 1e6, "ms", 3},
        {"flows finished", "flows.completed", 1, "", 0},
        {"FCT p50", "flows.fct_ns.p50", 1e3, "us", 1},
        {"FCT p99", "flows.fct_ns.p99", 1e3, "us", 1},
        {"slowdown p99", "flows.slowdown.p99", 1, "", 2},
        {"data packets sent", "packets.sent", 1, "", 0},
        {"dropped", "packets.dropped", 1, "", 0},
        {"retransmitted", "packets.retransmitted", 1, "", 0},
        {"timeouts", "packets.timeouts", 1, "", 0},
        {"ECN-marked", "packets.ecn_marked", 1, "", 0},
        {"CNPs", "cnp.sent", 1, "", 0},
        {"PAUSE frames", "pfc.pause_frames", 1, "", 0},
        {"time paused", "pfc.paused_ns_total", 1e3, "us", 1},
        {"watchdog storms", "watchdog.storms_detected", 1, "", 0},
    };
    printf("%-22s", "");
    for (int i = 0; i < n; i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s[i], "scenario");
        printf(" %20.20s", cJSON_IsString(nm) ? nm->valuestring : argv[2 + i]);
    }
    printf("\n");
    /* collectives first: they are what a training job waits for */
    const cJSON *c0 = cJSON_GetObjectItemCaseSensitive(s[0], "collectives");
    int nc = cJSON_GetArraySize(c0);
    for (int k = 0; k < nc; k++) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c0, k), "id");
        char label[64];
        snprintf(label, sizeof label, "%s time (ms)", cJSON_IsString(id) ? id->valuestring : "collective");
        printf("%-22.22s", label);
        double base = 0;
        for (int i = 0; i < n; i++) {
            const cJSON *ci = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s[i], "collectives"), k);
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(ci, "completion_ns");
            if (!cJSON_IsNumber(v)) {
                printf(" %20s", "unfinished");
                continue;
            }
            if (i == 0)
                base = v->valuedouble;
            if (i > 0 && base > 0)
                printf(" %11.3f (x%5.2f)", v->valuedouble / 1e6, v->valuedouble / base);
            else
                printf(" %20.3f", v->valuedouble / 1e6);
        }
        printf("\n");
    }
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char label[64];
        snprintf(label, sizeof label, rows[r].unit[0] ? "%s (%s)" : "%s", rows[r].label, rows[r].unit);
        printf("%-22.22s", label);
        for (int i = 0; i < n; i++) {
            double v = get(s[i], rows[r].path);
            if (v != v)
                printf(" %20s", "-");
            else
                printf(" %20.*f", rows[r].decimals, v / rows[r].scale);
        }
        printf("\n");
    }
    printf("%-22s", "deadlock");
    for (int i = 0; i < n; i++) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s[i], "deadlock"), "detected");
        printf(" %20s", cJSON_IsTrue(d) ? "DETECTED" : "no");
    }
    printf("\n");
    for (int i = 0; i < n; i++)
        cJSON_Delete(s[i]);
    return 0;
}
