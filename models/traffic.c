/*
 * traffic — flows from the scenario's traffic entries: the kind "traffic" and what its modules share (flow names,
 * the flow-size distributions such as the DCTCP paper's WebSearch and Facebook's Hadoop workloads, the set-up
 * loop).  The kinds are models/traffic_*.c (see traffic.h for the models).
 */
#include "models/ranks.h"
#include "models/traffic.h"
#include "models/trigger.h"
#include "sim/file.h"
#include "sim/mem.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What this file names when an allocation fails (sim/mem.h). */
#define TRAFFIC_OOM "generating traffic"

/* See traffic.h; mem_oom when out of memory. */
const char *traffic_name(struct traffic *t, const char *id, int64_t j)
{
    if (t->n_names == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->names = mem_xrealloc(t->names, t->cap * sizeof *t->names, TRAFFIC_OOM);
    }
    char buf[2 * SCN_NAME_MAX];
    if (j < 0)
        snprintf(buf, sizeof buf, "%s", id);
    else
        snprintf(buf, sizeof buf, "%s.%lld", id, (long long)j);
    char *s = mem_xstrdup(buf, TRAFFIC_OOM);
    t->names[t->n_names++] = s;
    return s;
}

/* ---- flow-size distributions ---- */

void cdf_free(struct cdf *c)
{
    free(c->size);
    free(c->prob);
    memset(c, 0, sizeof *c);
}

/* The distributions shipped in scenarios/workloads/NAME.cdf, which a scenario names without a path. */
static const char *const builtin_cdfs[] = {"websearch", "hadoop", NULL};

/* Appends ", item" (or "item" first) to a list for an error message; an item that does not fit is left out. */
static void tried_add(char *list, size_t len, const char *item)
{
    size_t k = strlen(list), m = strlen(item), sep = k ? 2 : 0;
    if (k + sep + m >= len)
        return;
    memcpy(list + k, ", ", sep);
    memcpy(list + k + sep, item, m + 1);
}

/*
 * Finds the file for a CDF name: a built-in name in the shipped directory,
 * else the path next to the scenario, then as given.  Returns 0 with path set
 * to the file that exists, or -1 with every path looked at listed in tried.
 */
static int cdf_find(const char *name, const char *scenario_file, char *path, size_t len, char *tried,
                    size_t tried_len)
{
    char dir[PATH_MAX];
    bool builtin = false;
    for (int i = 0; builtin_cdfs[i]; i++)
        builtin |= strcmp(name, builtin_cdfs[i]) == 0;
    tried[0] = '\0';
    if (builtin) {
        /* Shipped with rocesim: next to the binary, else under the working directory. */
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            snprintf(dir, sizeof dir, "%s", exe);
            char *d = dirname(dir);
            for (int up = 0; up < 3; up++) {
                snprintf(path, len, "%s/scenarios/workloads/%s.cdf", d, name);
                if (access(path, F_OK) == 0)
                    return 0;
                tried_add(tried, tried_len, path);
                d = dirname(d);
            }
        }
        snprintf(path, len, "scenarios/workloads/%s.cdf", name);
    } else if (name[0] != '/') {
        snprintf(dir, sizeof dir, "%s", scenario_file);
        const char *d = dirname(dir);
        if (strcmp(d, ".") != 0) {
            snprintf(path, len, "%s/%s", d, name);
            if (access(path, F_OK) == 0)
                return 0;
            tried_add(tried, tried_len, path);
        }
        snprintf(path, len, "%s", name);
    } else {
        snprintf(path, len, "%s", name);
    }
    if (access(path, F_OK) == 0)
        return 0;
    tried_add(tried, tried_len, path);
    return -1;
}

int cdf_load(struct cdf *c, const char *name, const char *scenario_file, const char *jpath, char *err,
             size_t errlen)
{
    memset(c, 0, sizeof *c);
    char path[PATH_MAX + 64], tried[1024], names[256] = "";
    if (cdf_find(name, scenario_file, path, sizeof path, tried, sizeof tried)) {
        for (int i = 0; builtin_cdfs[i]; i++)
            tried_add(names, sizeof names, builtin_cdfs[i]);
        snprintf(err, errlen, "%s: %s: expected a built-in CDF name (%s) or the path of a CDF file, got \"%s\" "
                              "(no such file: tried %s)", scenario_file, jpath, names, name, tried);
        return SCN_EUSAGE;
    }
    /* Read whole through the bounded reader: a CDF of /dev/zero or a FIFO is refused, not read forever. */
    char *buf = NULL, ferr[PATH_MAX + 128];
    int rc = file_read(path, FILE_TEXT, &buf, NULL, ferr, sizeof ferr);
    if (rc) {
        snprintf(err, errlen, "%s: %s: %s", scenario_file, jpath, ferr);
        return rc;
    }
    int cap = 0, line = 0;
    char *next = buf;
    while (*next) {
        char *l = next, *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        next = nl ? nl + 1 : l + strlen(l);
        line++;
        char *s = l;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\0')
            continue;
        double sz, pr;
        char extra;
        if (sscanf(s, "%lf %lf %c", &sz, &pr, &extra) != 2 || !(sz >= 0) || !(pr >= 0) || !(pr <= 1)) {
            snprintf(err, errlen, "%s: %s: %s:%d: expected \"size_bytes cumulative_probability\" with a "
                                  "probability in [0,1], got \"%.60s\"", scenario_file, jpath, path, line, l);
            goto fail;
        }
        if (c->n && (sz < c->size[c->n - 1] || pr < c->prob[c->n - 1])) {
            snprintf(err, errlen, "%s: %s: %s:%d: expected sizes and probabilities that never decrease",
                     scenario_file, jpath, path, line);
            goto fail;
        }
        if (c->n == cap) {
            cap = cap ? cap * 2 : 32;
            c->size = mem_xrealloc(c->size, sizeof *c->size * (size_t)cap, TRAFFIC_OOM);
            c->prob = mem_xrealloc(c->prob, sizeof *c->prob * (size_t)cap, TRAFFIC_OOM);
        }
        c->size[c->n] = sz;
        c->prob[c->n] = pr;
        c->n++;
    }
    free(buf);
    buf = NULL;
    if (c->n < 1 || c->prob[c->n - 1] != 1.0) {
        snprintf(err, errlen, "%s: %s: %s: expected a CDF whose last probability is 1, got %s", scenario_file,
                 jpath, path, c->n ? "a smaller one" : "no points");
        goto fail;
    }
    /* Mean of the piecewise-linear distribution; the mass at the first point is a point mass. */
    c->mean = c->size[0] * c->prob[0];
    for (int i = 1; i < c->n; i++)
        c->mean += (c->prob[i] - c->prob[i - 1]) * (c->size[i] + c->size[i - 1]) / 2;
    if (c->mean < 1) {
        snprintf(err, errlen, "%s: %s: %s: the distribution's mean is below one byte", scenario_file, jpath, path);
        goto fail;
    }
    return 0;
fail:
    free(buf);
    cdf_free(c);
    return SCN_EUSAGE;
}

int64_t cdf_sample(const struct cdf *c, double u)
{
    int lo = 0, hi = c->n - 1;
    if (u <= c->prob[0])
        return c->size[0] >= 1 ? (int64_t)(c->size[0] + 0.5) : 1;
    /* binary search for the first point with prob >= u */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c->prob[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    double p0 = c->prob[lo - 1], p1 = c->prob[lo];
    double s = p1 > p0 ? c->size[lo - 1] + (u - p0) / (p1 - p0) * (c->size[lo] - c->size[lo - 1]) : c->size[lo];
    int64_t b = (int64_t)(s + 0.5);
    return b < 1 ? 1 : b;
}

int traffic_prio(const struct net *n, const struct scn_traffic *e)
{
    if (n->sl2vl)
        return n->sl2vl[e->sl < 0 ? 0 : e->sl];
    return e->priority_given ? e->priority : -1;
}

/* ---- the kind ---- */

static const char *traffic_missing(const struct module *m)
{
    const struct traffic_ops *o = m->ops;
    if (!o->scn.numbered)
        return "a numbered hook";
    if (!o->setup || !o->release)
        return !o->setup ? "a setup hook" : "a release hook";
    if (!o->count || !o->senders)
        return !o->count ? "a count hook" : "a senders hook";
    /* The loader parses an entry's own fields into a struct of its group's size: a group without one has none. */
    if (m->groups[0] && !m->groups[0]->size)
        return "a size for its settings group";
    return NULL;
}

const struct module_kind traffic_kind = {.name = "traffic", .dflt = "flow", .missing = traffic_missing};

const struct traffic_ops *traffic_ops_of(const struct scn_traffic *e)
{
    return (const struct traffic_ops *)scn_traffic_ops(e);
}

const void *traffic_conf(const struct scn_traffic *e, size_t size)
{
    const struct module *m = module_at("traffic", e->type);
    if (!m || !m->groups[0] || m->groups[0]->size != size || !e->conf) {
        fprintf(stderr, "rocesim: bug: traffic kind \"%s\" reads its fields as a type its group does not declare\n",
                m ? m->name : "?");
        abort();
    }
    return e->conf;
}

/* ---- setup ---- */

int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    size_t ne = (size_t)scn->n_traffic;
    memset(t, 0, sizeof *t);
    t->net = n;
    /* A step's two ends on one thread, so that one of them can tell that nothing of it is left (net_step_end);
     * before the first place is reserved, as places and identities then part (net_reserve_flows). */
    n->recycle = n->step_summary && n->n_parts <= 1 && !net_comm(n) && n->n_flows == 0;
    t->next_name = mem_xcalloc(ne, sizeof *t->next_name, TRAFFIC_OOM);
    t->cdfs = mem_xcalloc(ne, sizeof *t->cdfs, TRAFFIC_OOM);
    t->state = mem_xcalloc(ne, sizeof *t->state, TRAFFIC_OOM);
    t->colls = mem_xcalloc(ne, sizeof *t->colls, TRAFFIC_OOM);
    for (int ti = 0; ti < scn->n_traffic; ti++) {
        int rc = traffic_ops_of(&scn->traffic[ti])->setup(t, ti, err, errlen);
        if (rc)
            return rc;
    }
    trigger_setup_done(t);
    return 0;
}

void traffic_free(struct traffic *t)
{
    for (uint32_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    for (int i = 0; t->state && i < t->net->scn->n_traffic; i++)
        traffic_ops_of(&t->net->scn->traffic[i])->release(t, i);
    free(t->state);
    for (uint32_t i = 0; i < t->n_colls; i++) {
        free(t->colls[i].host);
        free(t->colls[i].sent);
        free(t->colls[i].recvd);
        free(t->colls[i].started);
        free(t->colls[i].sched);
    }
    free(t->colls);
    for (uint32_t i = 0; t->made && i < t->net->n_parts; i++)
        free(t->made[i].idx);
    free(t->made);
    free(t->share);
    if (t->net)
        trigger_free(t);
    if (t->cdfs && t->net)
        for (int i = 0; i < t->net->scn->n_traffic; i++)
            cdf_free(&t->cdfs[i]);
    free(t->cdfs);
    free(t->next_name);
    memset(t, 0, sizeof *t);
}
