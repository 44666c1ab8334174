/* metric — the fields of summary.json an objective may name (see metric.h). */
#include "tools/explore/metric.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "tools/run/run.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/*
 * The paths at which run_summary_json (tools/run/run.c) writes a number or a
 * boolean, so that a misspelt objective is refused before a sweep runs
 * anything.  They are read off the summary of a made-up run that has every
 * field: run_summary_json writes some only for an all-reduce (rings), for an nccl collective that finished
 * (algbw_GBps, busbw_GBps), for a
 * priority with flows or PAUSE frames, or for a finished collective and a
 * detected deadlock (numbers, not null), so the run has each of those.  A
 * component "#" stands for an array index (collectives), "P" for a priority
 * 0..7 and "$" for one of the statistics of stats_json.  The test "sweep
 * metric names" checks the leaves of real summaries against these, so a
 * field written under a new condition fails `make test` until the run here
 * meets it.
 */
struct metrics {
    char **name;
    int n, cap;
};

static const char *const stat_names[] = {"mean", "p50", "p95", "p99", "max", NULL};

/* Whether o is an object of exactly the statistics of stats_json. */
static bool is_stats(const cJSON *o)
{
    if (!cJSON_IsObject(o))
        return false;
    int i = 0;
    for (const cJSON *it = o->child; it; it = it->next, i++)
        if (!stat_names[i] || strcmp(it->string, stat_names[i]) != 0)
            return false;
    return !stat_names[i];
}

static void metrics_add(struct metrics *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->name[i], name) == 0)
            return; /* the same field of another priority */
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->name = mem_xrealloc(m->name, (size_t)m->cap * sizeof *m->name, "reading a run's metrics");
    }
    m->name[m->n++] = mem_xstrdup(name, "reading a run's metrics");
}

/* Adds the numeric and boolean leaves under v (at prefix), as patterns, in the summary's order. */
static void metrics_walk(struct metrics *m, const cJSON *v, const char *prefix)
{
    for (const cJSON *it = v->child; it; it = it->next) {
        char key[256];
        const char *comp = cJSON_IsArray(v) ? "#" : strspn(it->string, "0123456789") == strlen(it->string) ? "P"
                                                                                                           : it->string;
        sfmt(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", comp);
        if (is_stats(it)) {
            sfmt(key + strlen(key), sizeof key - strlen(key), ".$");
            metrics_add(m, key);
        } else if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            metrics_walk(m, it, key);
        } else if (cJSON_IsNumber(it) || cJSON_IsBool(it)) {
            metrics_add(m, key);
        }
    }
}

static struct metrics metrics_get(void)
{
    struct scenario *scn = mem_xcalloc(1, sizeof *scn, "reading a run's metrics");
    struct scn_traffic tr = {0};
    scn->traffic = &tr;
    scn->n_traffic = 1;
    struct run *r = mem_xcalloc(1, sizeof *r, "reading a run's metrics");
    r->scn = scn;
    /* an all-reduce (rings) and a finished nccl collective (its operation and bandwidths) */
    struct coll cl[2] = {{.ring = true, .kind = "allreduce"},
                         {.kind = "nccl", .op = "all_reduce", .algorithm = "ring", .size = 1, .finish = 1000}};
    r->traffic.colls = cl;
    r->traffic.n_colls = 2;
    for (int p = 0; p < NPRIO; p++)
        r->net.c.prio[p].pause_frames = 1;
    r->net.dl.detected = true;
    char *text = run_summary_json(r, true);
    free(r);
    free(scn);
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j)
        mem_oom("reading a run's metrics");
    struct metrics m = {0};
    metrics_walk(&m, j, "");
    cJSON_Delete(j);
    return m;
}

static void metrics_free(struct metrics *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->name[i]);
    free(m->name);
}

/* Whether one component of a path (len bytes at c) matches one component of a pattern (at p, len plen). */
static bool component_matches(const char *c, size_t len, const char *p, size_t plen)
{
    if (plen == 1 && *p == '#') {
        for (size_t i = 0; i < len; i++)
            if (c[i] < '0' || c[i] > '9')
                return false;
        return len > 0 && len < 10;
    }
    if (plen == 1 && *p == 'P')
        return len == 1 && c[0] >= '0' && c[0] < '0' + SCN_NPRIO;
    if (plen == 1 && *p == '$') {
        for (int i = 0; stat_names[i]; i++)
            if (strlen(stat_names[i]) == len && memcmp(stat_names[i], c, len) == 0)
                return true;
        return false;
    }
    return len == plen && memcmp(c, p, len) == 0;
}

/* How many leading components of path match pattern; *all tells whether the whole path matched. */
static int matching_components(const char *path, const char *pattern, bool *all)
{
    int n = 0;
    const char *a = path, *b = pattern;
    for (;;) {
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        if (!component_matches(a, la, b, lb))
            break;
        n++;
        a += la;
        b += lb;
        if (!*a || !*b) {
            *all = !*a && !*b;
            return n;
        }
        a++;
        b++;
    }
    *all = false;
    return n;
}

/* See metric.h. */
bool metric_known(const char *path)
{
    struct metrics m = metrics_get();
    bool all = false;
    for (int i = 0; i < m.n && !all; i++)
        matching_components(path, m.name[i], &all);
    metrics_free(&m);
    return all;
}

/* See metric.h. */
void metric_hint(const char *path, char *buf, size_t len)
{
    static const char *const common[] = {"flows.fct_ns.$", "flows.slowdown.$", "flows.completed", "packets.dropped",
                                         "pfc.pause_frames", "collectives.#.completion_ns", "priorities.P.fct_ns.$",
                                         "sim_end_ns", NULL};
    struct metrics m = metrics_get();
    int best = 0;
    for (int i = 0; i < m.n; i++) {
        bool all;
        int k = matching_components(path, m.name[i], &all);
        best = k > best ? k : best;
    }
    /* The names that share the most leading components with the path, or else the usual objectives. */
    const char *const *list = best ? (const char *const *)m.name : common;
    int n = best ? m.n : (int)(sizeof common / sizeof *common) - 1;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        bool all;
        if (best && matching_components(path, list[i], &all) < best)
            continue;
        char name[160] = "";
        size_t nl = 0;
        for (const char *c = list[i]; *c; c++) {
            bool wild = (c == list[i] || c[-1] == '.') && (c[1] == '.' || !c[1]);
            const char *w = !wild ? NULL : *c == '#' ? "N" : *c == '$' ? "{mean,p50,p95,p99,max}" : NULL;
            if (nl < sizeof name)
                nl += (size_t)(w ? sfmt(name + nl, sizeof name - nl, "%s", w)
                                 : sfmt(name + nl, sizeof name - nl, "%c", *c));
        }
        if (used + strlen(name) + 8 >= len) {
            sfmt(buf + used, len - used, "%s...", used ? ", " : "");
            break;
        }
        used += (size_t)sfmt(buf + used, len - used, "%s%s", used ? ", " : "", name);
    }
    metrics_free(&m);
}
