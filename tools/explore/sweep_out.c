/* sweep_out — see sweep_out.h. */
#include "tools/explore/sweep_out.h"
#include "tools/common/files.h"
#include "tools/common/jsonout.h"
#include "tools/run/plot.h"
#include "sim/scenario.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run/run.h"
#include "tools/common/text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SETS 256
#define MAX_SERIES 8 /* more combinations of the other parameters than this are pooled into one line */

/* ------------------------------------------------------------------------ */
/* The table                                                                 */

/* Summary fields left out of results.csv: wall-clock measures differ from run to run, seed has its own column. */
static bool skipped_field(const char *key)
{
    static const char *const skip[] = {"wall_s", "events_per_s", "one_thread_share", "seed", "complete",
                                       "results_version", NULL};
    for (int i = 0; skip[i]; i++)
        if (strcmp(key, skip[i]) == 0)
            return true;
    return false;
}

/* See sweep_out.h. */
void sweep_flatten(const cJSON *v, const char *prefix, int *n, int *cap, char ***keys, char ***vals)
{
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        char key[512], num[40];
        if (cJSON_IsArray(v))
            sfmt(key, sizeof key, "%s%s%d", prefix, *prefix ? "." : "", i);
        else
            sfmt(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", it->string);
        if (!*prefix && skipped_field(key))
            continue;
        const char *text = NULL;
        if (cJSON_IsNumber(it))
            text = fmt_double(it->valuedouble, num, sizeof num);
        else if (cJSON_IsBool(it))
            text = cJSON_IsTrue(it) ? "1" : "0";
        else if (cJSON_IsObject(it) || cJSON_IsArray(it))
            sweep_flatten(it, key, n, cap, keys, vals);
        if (!text)
            continue;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *keys = mem_xrealloc(*keys, (size_t)*cap * sizeof **keys, "in sweep");
            *vals = mem_xrealloc(*vals, (size_t)*cap * sizeof **vals, "in sweep");
        }
        (*keys)[*n] = mem_xstrdup(key, "in sweep");
        (*vals)[*n] = mem_xstrdup(text, "in sweep");
        (*n)++;
    }
}


/* Index of key in cols, trying hint first (runs list their fields in nearly the same order); -1 if absent. */
static int find_col(char **cols, int n, const char *key, int hint)
{
    if (hint >= 0 && hint < n && strcmp(cols[hint], key) == 0)
        return hint;
    for (int i = 0; i < n; i++)
        if (strcmp(cols[i], key) == 0)
            return i;
    return -1;
}

/* Sample standard deviation (0 for one value). */
static double stddev(const double *v, int n, double mean)
{
    if (n < 2)
        return 0;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    return sqrt(ss / (n - 1));
}

/* See sweep_out.h. */
void sweep_table_build(struct sweep_table *t, const struct sweep_spec *s, int n, const int *point,
                       const int *seed_i, const char *const *status, const char *const *summaries)
{
    memset(t, 0, sizeof *t);
    t->n_runs = n;
    t->point = mem_xcalloc((size_t)n, sizeof *t->point, "in sweep");
    t->seed_i = mem_xcalloc((size_t)n, sizeof *t->seed_i, "in sweep");
    t->status = mem_xcalloc((size_t)n, sizeof *t->status, "in sweep");
    t->n_kv = mem_xcalloc((size_t)n, sizeof *t->n_kv, "in sweep");
    t->keys = mem_xcalloc((size_t)n, sizeof *t->keys, "in sweep");
    t->vals = mem_xcalloc((size_t)n, sizeof *t->vals, "in sweep");
    t->obj = mem_xcalloc((size_t)n, sizeof *t->obj, "in sweep");
    int cap_cols = 0;
    for (int r = 0; r < n; r++) {
        t->point[r] = point[r];
        t->seed_i[r] = seed_i[r];
        t->status[r] = mem_xstrdup(status[r] && *status[r] ? status[r] : "not run", "in sweep");
        t->obj[r] = NAN;
        cJSON *j = summaries[r] ? cJSON_Parse(summaries[r]) : NULL;
        if (!j)
            continue;
        int cap = 0;
        sweep_flatten(j, "", &t->n_kv[r], &cap, &t->keys[r], &t->vals[r]);
        const cJSON *o = json_at_path(j, s->objective);
        if (cJSON_IsNumber(o) || cJSON_IsBool(o)) {
            t->obj[r] = cJSON_IsNumber(o) ? o->valuedouble : cJSON_IsTrue(o);
            t->obj_seen = true;
        }
        cJSON_Delete(j);
        /* A field first seen in this run goes right after the field that precedes it here, so that columns
         * keep the summary's order even when an early run lacks some fields. */
        int last = -1;
        for (int k = 0; k < t->n_kv[r]; k++) {
            int c = find_col(t->cols, t->n_cols, t->keys[r][k], last + 1);
            if (c < 0) {
                if (t->n_cols == cap_cols) {
                    cap_cols = cap_cols ? cap_cols * 2 : 64;
                    t->cols = mem_xrealloc(t->cols, (size_t)cap_cols * sizeof *t->cols, "in sweep");
                }
                c = last + 1;
                memmove(&t->cols[c + 1], &t->cols[c], (size_t)(t->n_cols - c) * sizeof *t->cols);
                t->cols[c] = mem_xstrdup(t->keys[r][k], "in sweep");
                t->n_cols++;
            }
            last = c;
        }
    }
    t->n_points = s->n_points;
    t->ps = mem_xcalloc((size_t)s->n_points, sizeof *t->ps, "in sweep");
    double *v = mem_xcalloc((size_t)s->n_seeds + 1, sizeof *v, "in sweep");
    for (int p = 0; p < s->n_points; p++) {
        struct sweep_pstat *ps = &t->ps[p];
        int m = 0;
        for (int r = 0; r < n; r++)
            if (t->point[r] == p && !isnan(t->obj[r]) && m < s->n_seeds)
                v[m++] = t->obj[r];
        ps->n = m;
        if (!m)
            continue;
        double sum = 0;
        ps->min = ps->max = v[0];
        for (int i = 0; i < m; i++) {
            sum += v[i];
            ps->min = fmin(ps->min, v[i]);
            ps->max = fmax(ps->max, v[i]);
        }
        ps->mean = sum / m;
        ps->stddev = stddev(v, m, ps->mean);
    }
    free(v);
}

/* Frees what sweep_table_build allocated and zeroes *t. */
void sweep_table_free(struct sweep_table *t)
{
    for (int r = 0; r < t->n_runs; r++) {
        for (int k = 0; k < t->n_kv[r]; k++) {
            free(t->keys[r][k]);
            free(t->vals[r][k]);
        }
        free(t->keys[r]);
        free(t->vals[r]);
        free(t->status[r]);
    }
    for (int c = 0; c < t->n_cols; c++)
        free(t->cols[c]);
    free(t->cols);
    free(t->point);
    free(t->seed_i);
    free(t->status);
    free(t->n_kv);
    free(t->keys);
    free(t->vals);
    free(t->obj);
    free(t->ps);
    memset(t, 0, sizeof *t);
}

/* A parameter value as a CSV cell or a label: strings as they are, anything else as compact JSON. */
static const char *value_text(const struct sweep_dim *d, int v, int k)
{
    const cJSON *it = d->value[v][k];
    return cJSON_IsString(it) ? it->valuestring : d->text[v][k];
}

/* See sweep_out.h. */
char *sweep_table_csv(const struct sweep_table *t, const struct sweep_spec *s)
{
    struct sbuf b = {0};
    for (int d = 0; d < s->n_dims; d++)
        for (int k = 0; k < s->dims[d].n_paths; k++) {
            sb_csv_cell(&b, s->dims[d].paths[k]);
            sb_printf(&b, ",");
        }
    sb_printf(&b, "seed,status");
    for (int c = 0; c < t->n_cols; c++) {
        sb_printf(&b, ",");
        sb_csv_cell(&b, t->cols[c]);
    }
    sb_printf(&b, "\n");
    const char **row = mem_xcalloc((size_t)t->n_cols + 1, sizeof *row, "in sweep");
    for (int r = 0; r < t->n_runs; r++) {
        for (int d = 0; d < s->n_dims; d++) {
            int v = sweep_point_value(s, t->point[r], d);
            for (int k = 0; k < s->dims[d].n_paths; k++) {
                sb_csv_cell(&b, value_text(&s->dims[d], v, k));
                sb_printf(&b, ",");
            }
        }
        sb_printf(&b, "%llu,", (unsigned long long)s->seeds[t->seed_i[r]]);
        sb_csv_cell(&b, t->status[r]);
        memset(row, 0, (size_t)t->n_cols * sizeof *row);
        int hint = 0;
        for (int k = 0; k < t->n_kv[r]; k++) {
            int c = find_col(t->cols, t->n_cols, t->keys[r][k], hint);
            row[c] = t->vals[r][k];
            hint = c + 1;
        }
        for (int c = 0; c < t->n_cols; c++)
            sb_printf(&b, ",%s", row[c] ? row[c] : "");
        sb_printf(&b, "\n");
    }
    free(row);
    return b.p;
}

/* ------------------------------------------------------------------------ */
/* best.json                                                                 */

/* Returns true when point a is better than point b (b < 0: no best yet). */
static bool better(const struct sweep_table *t, const struct sweep_spec *s, int a, int b)
{
    if (b < 0)
        return true;
    bool fa = t->ps[a].n == s->n_seeds, fb = t->ps[b].n == s->n_seeds;
    if (fa != fb)
        return fa;
    return s->maximize ? t->ps[a].mean > t->ps[b].mean : t->ps[a].mean < t->ps[b].mean;
}

/* Adds point p's parameter values (as given in the grid) to o under their paths. */
static void add_params(cJSON *o, const struct sweep_spec *s, int p)
{
    for (int d = 0; d < s->n_dims; d++) {
        int v = sweep_point_value(s, p, d);
        for (int k = 0; k < s->dims[d].n_paths; k++)
            cJSON_AddItemToObject(o, s->dims[d].paths[k], cJSON_Duplicate(s->dims[d].value[v][k], 1));
    }
}

/* The point's values as the resolved scenario shows them (units normalized, e.g. "20000B" → "20KB"). */
static cJSON *resolved_params(const struct sweep_spec *s, int p)
{
    struct scn_override ov[MAX_SETS];
    int n = sweep_point_overrides(s, p, ov, MAX_SETS);
    struct scenario scn;
    char err[SCN_ERR_MAX];
    cJSON *o = cJSON_CreateObject();
    if (scn_load(s->scenario, ov, n, &scn, err, sizeof err)) {
        add_params(o, s, p);
        return o;
    }
    char *json = scn_to_json(&scn);
    cJSON *full = cJSON_Parse(json);
    free(json);
    scn_free(&scn);
    for (int i = 0; i < n; i++) {
        const cJSON *it = json_at_path(full, ov[i].path);
        cJSON *val = it ? cJSON_Duplicate(it, 1) : cJSON_Parse(ov[i].value);
        cJSON_AddItemToObject(o, ov[i].path, val ? val : cJSON_CreateNull());
    }
    cJSON_Delete(full);
    return o;
}

/* The per-seed objective values of point p (null where the run failed or lacks the field). */
static cJSON *seed_values(const struct sweep_table *t, const struct sweep_spec *s, int p)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < s->n_seeds; k++) {
        double v = NAN;
        for (int r = 0; r < t->n_runs; r++)
            if (t->point[r] == p && t->seed_i[r] == k)
                v = t->obj[r];
        cJSON_AddItemToArray(a, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
    }
    return a;
}

/* Adds a point's n, mean, min, max and stddev to o. */
static void add_stats(cJSON *o, const struct sweep_pstat *ps)
{
    cJSON_AddNumberToObject(o, "n", ps->n);
    cJSON_AddNumberToObject(o, "mean", ps->mean);
    cJSON_AddNumberToObject(o, "min", ps->min);
    cJSON_AddNumberToObject(o, "max", ps->max);
    cJSON_AddNumberToObject(o, "stddev", ps->stddev);
}

/* See sweep_out.h. */
int sweep_best_write(const struct sweep_table *t, const struct sweep_spec *s, const char *dir, int runs_done,
                     const char *incomplete, struct sweep_best *best)
{
    char path[4400];
    sfmt(path, sizeof path, "%s/best.json", dir ? dir : ".");
    memset(best, 0, sizeof *best);
    best->point = -1;
    int any_ok = 0;
    for (int r = 0; r < t->n_runs; r++)
        any_ok += strcmp(t->status[r], "ok") == 0;
    int b = -1;
    for (int p = 0; p < t->n_points; p++)
        if (t->ps[p].n > 0 && better(t, s, p, b))
            b = p;
    if (b < 0) {
        if (dir)
            unlink(path);
        if (!any_ok) {
            fprintf(stderr, "rocesim sweep: no run succeeded, so there is no best point (see failures.txt)\n");
            return 0;
        }
        fprintf(stderr, "rocesim sweep: %s: objective: expected a numeric field of summary.json like "
                        "\"flows.slowdown.p99\", got \"%s\", which no successful run has (the fields are the "
                        "columns of results.csv after \"status\")\n", s->file, s->objective);
        return SCN_EUSAGE;
    }
    best->found = true;
    best->point = b;
    sweep_point_id(s, b, best->id, sizeof best->id);
    best->n = t->ps[b].n;
    best->mean = t->ps[b].mean;
    best->min = t->ps[b].min;
    best->max = t->ps[b].max;
    best->stddev = t->ps[b].stddev;
    if (!dir)
        return 0;

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "sweep", s->file);
    cJSON_AddStringToObject(root, "scenario", s->scenario);
    cJSON *obj = cJSON_AddObjectToObject(root, "objective");
    cJSON_AddStringToObject(obj, s->maximize ? "maximize" : "minimize", s->objective);
    cJSON_AddBoolToObject(root, "complete", incomplete == NULL);
    if (incomplete)
        cJSON_AddStringToObject(root, "incomplete_reason", incomplete);
    cJSON_AddNumberToObject(root, "runs_done", runs_done);
    cJSON_AddNumberToObject(root, "runs_total", t->n_runs);
    cJSON_AddStringToObject(root, "point", best->id);
    cJSON_AddNumberToObject(root, "index", b);
    cJSON *params = cJSON_AddObjectToObject(root, "parameters");
    add_params(params, s, b);
    cJSON_AddItemToObject(root, "resolved", resolved_params(s, b));
    cJSON *sets = cJSON_AddArrayToObject(root, "set");
    struct scn_override ov[MAX_SETS];
    int n = sweep_point_overrides(s, b, ov, MAX_SETS);
    for (int i = 0; i < n; i++) {
        char buf[1024];
        sfmt(buf, sizeof buf, "%s=%s", ov[i].path, ov[i].value);
        cJSON_AddItemToArray(sets, cJSON_CreateString(buf));
    }
    cJSON *seeds = cJSON_AddArrayToObject(root, "seeds");
    for (int k = 0; k < s->n_seeds; k++)
        cJSON_AddItemToArray(seeds, jsonout_u64(s->seeds[k]));
    cJSON_AddItemToObject(root, "values", seed_values(t, s, b));
    add_stats(root, &t->ps[b]);
    cJSON_AddBoolToObject(root, "all_seeds_ok", t->ps[b].n == s->n_seeds);

    /* The ten best points, for a feel of how flat the optimum is. */
    int *order = mem_xcalloc((size_t)t->n_points, sizeof *order, "in sweep");
    int m = 0;
    for (int p = 0; p < t->n_points; p++)
        if (t->ps[p].n > 0)
            order[m++] = p;
    for (int i = 1; i < m; i++) /* insertion sort: stable, so ties keep grid order */
        for (int k = i; k > 0 && better(t, s, order[k], order[k - 1]) &&
                        !(t->ps[order[k]].mean == t->ps[order[k - 1]].mean &&
                          (t->ps[order[k]].n == s->n_seeds) == (t->ps[order[k - 1]].n == s->n_seeds));
             k--) {
            int tmp = order[k];
            order[k] = order[k - 1];
            order[k - 1] = tmp;
        }
    cJSON *rank = cJSON_AddArrayToObject(root, "ranking");
    for (int i = 0; i < m && i < 10; i++) {
        cJSON *o = cJSON_CreateObject();
        char id[96];
        sweep_point_id(s, order[i], id, sizeof id);
        cJSON_AddStringToObject(o, "point", id);
        add_params(cJSON_AddObjectToObject(o, "parameters"), s, order[i]);
        add_stats(o, &t->ps[order[i]]);
        cJSON_AddItemToArray(rank, o);
    }
    free(order);
    char *txt = jsonout_print(root);
    cJSON_Delete(root);
    if (!txt)
        mem_oom("writing the sweep's results");
    size_t len = strlen(txt);
    txt = mem_xrealloc(txt, len + 2, "in sweep");
    txt[len] = '\n';
    txt[len + 1] = '\0';
    int rc = 0;
    if (write_file_atomic(path, txt, len + 1)) {
        fprintf(stderr, "rocesim sweep: %s: cannot write: %s\n", path, strerror(errno));
        rc = SCN_EIO;
    }
    free(txt);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Plots                                                                     */

enum vkind { VK_NUM, VK_TIME, VK_SIZE, VK_RATE, VK_OTHER };

/* How one component of a dimension's values is shown: kind, display unit and its size in base units. */
struct vaxis {
    enum vkind kind;
    const char *unit;  /* for labels; "dimensionless" for plain numbers */
    double per_unit;   /* base units (ps, B, bps, 1) per display unit */
};

/* A value as a number in base units (ps, bytes, bit/s or itself); returns false when it is not a quantity. */
static bool value_number(const cJSON *it, enum vkind want, double *out)
{
    char e[200];
    int64_t x;
    if (want == VK_NUM) {
        if (!cJSON_IsNumber(it))
            return false;
        *out = it->valuedouble;
        return true;
    }
    if (!cJSON_IsString(it))
        return false;
    int rc = want == VK_TIME ? units_parse_time(it->valuestring, &x, e, sizeof e)
             : want == VK_SIZE ? units_parse_size(it->valuestring, &x, e, sizeof e)
             : want == VK_RATE ? units_parse_rate(it->valuestring, &x, e, sizeof e)
                               : -1;
    if (rc)
        return false;
    *out = (double)x;
    return true;
}

/* Chooses how component k of dimension d is shown: the kind all its values share, and a readable unit. */
static struct vaxis axis_of(const struct sweep_dim *d, int k)
{
    static const enum vkind kinds[] = {VK_NUM, VK_TIME, VK_SIZE, VK_RATE};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        double x, mx = 0;
        int v = 0;
        for (; v < d->n_values; v++) {
            if (!value_number(d->value[v][k], kinds[i], &x))
                break;
            mx = fmax(mx, fabs(x));
        }
        if (v < d->n_values)
            continue;
        struct vaxis a = {kinds[i], "dimensionless", 1};
        if (kinds[i] == VK_TIME)
            a = mx >= 1e9 ? (struct vaxis){VK_TIME, "ms", 1e9}
              : mx >= 1e6 ? (struct vaxis){VK_TIME, "us", 1e6}
                          : (struct vaxis){VK_TIME, "ns", 1e3};
        else if (kinds[i] == VK_SIZE)
            a = mx >= 1e6 ? (struct vaxis){VK_SIZE, "MB", 1e6}
              : mx >= 1e3 ? (struct vaxis){VK_SIZE, "KB", 1e3}
                          : (struct vaxis){VK_SIZE, "bytes", 1};
        else if (kinds[i] == VK_RATE)
            a = mx >= 1e9 ? (struct vaxis){VK_RATE, "Gbps", 1e9}
              : mx >= 1e6 ? (struct vaxis){VK_RATE, "Mbps", 1e6}
                          : (struct vaxis){VK_RATE, "Kbps", 1e3};
        return a;
    }
    return (struct vaxis){VK_OTHER, "as set", 1};
}

/* A value of component k in its display unit ("5" for "5KB" shown in KB), or as written when not a quantity. */
static void value_label(const struct sweep_dim *d, int v, int k, const struct vaxis *a, char *out, size_t len)
{
    double x;
    if (a->kind != VK_OTHER && value_number(d->value[v][k], a->kind, &x))
        sfmt(out, len, "%.6g", x / a->per_unit);
    else
        sfmt(out, len, "%s", value_text(d, v, k));
}

/*
 * A tick or legend label for value v of dimension d ("5/200" for a zipped
 * pair); with_unit appends the unit when every component shares one ("5/200 KB").
 */
static void dim_value_label(const struct sweep_dim *d, int v, bool with_unit, char *out, size_t len)
{
    out[0] = '\0';
    struct vaxis a0 = axis_of(d, 0);
    bool same = a0.kind != VK_NUM && a0.kind != VK_OTHER;
    for (int k = 0; k < d->n_paths; k++) {
        char one[200];
        struct vaxis a = axis_of(d, k);
        same = same && strcmp(a.unit, a0.unit) == 0;
        value_label(d, v, k, &a, one, sizeof one);
        size_t l = strlen(out);
        sfmt(out + l, len - l, "%s%s", k ? "/" : "", one);
    }
    if (with_unit && same) {
        size_t l = strlen(out);
        sfmt(out + l, len - l, " %s", a0.unit);
    }
}

/* Dimension d's name for titles: its paths joined with " / ". */
static void dim_title(const struct sweep_dim *d, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < d->n_paths; k++) {
        size_t l = strlen(out);
        sfmt(out + l, len - l, "%s%s", k ? " / " : "", d->paths[k]);
    }
}

/* The axis label of dimension d: its paths and units, e.g. "switch.ecn.kmin / switch.ecn.kmax (KB / KB)". */
static void dim_axis_label(const struct sweep_dim *d, char *out, size_t len)
{
    char units[256] = "";
    out[0] = '\0';
    bool same = true;
    struct vaxis a0 = axis_of(d, 0);
    for (int k = 0; k < d->n_paths; k++) {
        struct vaxis a = axis_of(d, k);
        same = same && strcmp(a.unit, a0.unit) == 0;
        size_t l = strlen(out), u = strlen(units);
        sfmt(out + l, len - l, "%s%s", k ? " / " : "", d->paths[k]);
        sfmt(units + u, sizeof units - u, "%s%s", k ? " / " : "", a.unit);
    }
    size_t l = strlen(out);
    sfmt(out + l, len - l, " (%s)", same ? a0.unit : units);
}

/* A short name for dimension d in legends: the last path component when that is unambiguous. */
static void dim_short(const struct sweep_spec *s, int d, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < s->dims[d].n_paths; k++) {
        const char *p = s->dims[d].paths[k];
        const char *last = strrchr(p, '.');
        last = last ? last + 1 : p;
        int clashes = 0;
        for (int e = 0; e < s->n_dims; e++)
            for (int m = 0; m < s->dims[e].n_paths; m++) {
                const char *q = s->dims[e].paths[m];
                const char *ql = strrchr(q, '.');
                clashes += strcmp(ql ? ql + 1 : q, last) == 0;
            }
        size_t l = strlen(out);
        sfmt(out + l, len - l, "%s%s", k ? "/" : "", clashes > 1 ? p : last);
    }
}

/* See sweep_out.h: the unit follows the summary's naming (_ns fields, slowdown, bytes, counts). */
const char *sweep_objective_unit(const char *path, double *scale)
{
    *scale = 1;
    if (strstr(path, "_ns")) {
        *scale = 1e-3;
        return "us";
    }
    if (strstr(path, "gbps")) /* the flow metrics' goodput (tools/report/flowset.h) */
        return "Gbps";
    if (strstr(path, "slowdown"))
        return "dimensionless, FCT / ideal FCT";
    if (strstr(path, "bytes"))
        return "bytes";
    if (strncmp(path, "packets.", 8) == 0 || strncmp(path, "cnp.", 4) == 0 || strstr(path, "frames") ||
        strcmp(path, "events") == 0 || strcmp(path, "packet_hops") == 0 || strcmp(path, "flows.total") == 0 ||
        strcmp(path, "flows.completed") == 0 || strstr(path, "ports_ever_paused"))
        return "count";
    return "dimensionless";
}

/* Escapes s for a double-quoted gnuplot string into out; returns out. */
static char *gp_str(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = s; *p && o + 3 < len; p++) {
        if (*p == '"' || *p == '\\')
            out[o++] = '\\';
        if (*p == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
    return out;
}

/* Writes text to pdir/name atomically; returns 0 or -1 (message on stderr). */
static int put(const char *pdir, const char *name, const struct sbuf *b)
{
    char path[4400];
    sfmt(path, sizeof path, "%s/%s", pdir, name);
    if (write_file_atomic(path, b->p ? b->p : "", b->len)) {
        fprintf(stderr, "rocesim sweep: %s: cannot write: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The start of every script: PNG terminal (cairo, no enhanced text: paths have underscores) and output. */
static void gp_prelude(struct sbuf *g, const char *png, int w, int h)
{
    sb_printf(g, "# Drawn by rocesim sweep; run `gnuplot %.*s.gp` here to redraw.\n", (int)(strlen(png) - 4), png);
    sb_printf(g, "set terminal pngcairo size %d,%d noenhanced font 'DejaVu Sans,10'\n", w, h);
    /* rocesim passes outname (a temporary name, renamed when the PNG is whole); `gnuplot NAME.gp` by hand draws PNG */
    sb_printf(g, "if (!exists(\"outname\")) outname = '%s'\nset output outname\n", png);
}

/* The index of point p's combination of values in the dimensions other than d (row-major). */
static int combo_of(const struct sweep_spec *s, int p, int d)
{
    int c = 0;
    for (int e = 0; e < s->n_dims; e++)
        if (e != d)
            c = c * s->dims[e].n_values + sweep_point_value(s, p, e);
    return c;
}

/* The x axis of a dimension's plot: numbers in their display unit when it has one path of numbers or quantities
 * (a log scale when they span 20x or more), else the values' positions 0, 1, ... */
struct xaxis {
    struct vaxis ax;
    bool numeric, logx;
    double xmin, xmax;
};

static struct xaxis x_axis_of(const struct sweep_dim *dim)
{
    struct xaxis xa = {axis_of(dim, 0), dim->n_paths == 1 && axis_of(dim, 0).kind != VK_OTHER, false, INFINITY,
                       -INFINITY};
    for (int v = 0; xa.numeric && v < dim->n_values; v++) {
        double x;
        value_number(dim->value[v][0], xa.ax.kind, &x);
        xa.xmin = fmin(xa.xmin, x / xa.ax.per_unit);
        xa.xmax = fmax(xa.xmax, x / xa.ax.per_unit);
    }
    xa.logx = xa.numeric && xa.xmin > 0 && xa.xmax / xa.xmin >= 20;
    return xa;
}

/*
 * NAME.dat: a block per series, each value's mean over its runs with their min and max, then the best point at its
 * own mean.  The series sit side by side around each value so that their bars do not hide each other.  Returns
 * whether the best point is in it.
 */
static bool dim_dat(struct sbuf *dat, const struct sweep_table *t, const struct sweep_spec *s, int d, int best_point,
                    int n_series, const struct xaxis *xa, double oscale)
{
    const struct sweep_dim *dim = &s->dims[d];
    double best_x = NAN, best_y = NAN;
    for (int c = 0; c < n_series; c++) {
        double off = n_series > 1 ? (c - (n_series - 1) / 2.0) : 0;
        sb_printf(dat, "# series %d\n", c);
        for (int v = 0; v < dim->n_values; v++) {
            double x = v;
            if (xa->numeric) {
                value_number(dim->value[v][0], xa->ax.kind, &x);
                x /= xa->ax.per_unit;
                x = xa->logx ? x * (1 + 0.015 * off) : x + 0.008 * off * (xa->xmax - xa->xmin);
            } else {
                x = v + 0.05 * off;
            }
            /* mean, min, max over the runs of the points in this series with this value */
            double sum = 0, mn = INFINITY, mx = -INFINITY;
            int m = 0;
            for (int r = 0; r < t->n_runs; r++) {
                int p = t->point[r];
                if (sweep_point_value(s, p, d) != v || (n_series > 1 && combo_of(s, p, d) != c) || isnan(t->obj[r]))
                    continue;
                double y = t->obj[r] * oscale;
                sum += y;
                mn = fmin(mn, y);
                mx = fmax(mx, y);
                m++;
            }
            if (!m)
                continue;
            char a[40], b[40], cc[40], dd[40];
            sb_printf(dat, "%s %s %s %s\n", fmt_double(x, a, sizeof a), fmt_double(sum / m, b, sizeof b),
                      fmt_double(mn, cc, sizeof cc), fmt_double(mx, dd, sizeof dd));
            if (best_point >= 0 && sweep_point_value(s, best_point, d) == v &&
                (n_series == 1 || combo_of(s, best_point, d) == c)) {
                best_x = x;
                best_y = t->ps[best_point].mean * oscale; /* its own mean, also when the line is pooled */
            }
        }
        sb_printf(dat, "\n\n");
    }
    char bx[40], by[40];
    if (!isnan(best_x))
        sb_printf(dat, "# best point\n%s %s\n", fmt_double(best_x, bx, sizeof bx), fmt_double(best_y, by, sizeof by));
    return !isnan(best_x);
}

static void dim_xtics(struct sbuf *g, const struct sweep_dim *dim, const struct xaxis *xa)
{
    char lbl[600], esc[1300];
    if (!xa->numeric) {
        sb_printf(g, "set xrange [-0.5:%d.5]\nset xtics (", dim->n_values - 1);
        for (int v = 0; v < dim->n_values; v++) {
            dim_value_label(dim, v, false, lbl, sizeof lbl);
            sb_printf(g, "%s\"%s\" %d", v ? ", " : "", gp_str(lbl, esc, sizeof esc), v);
        }
        sb_printf(g, ")\n");
    } else {
        sb_printf(g, "set xtics (");
        for (int v = 0; v < dim->n_values; v++) {
            double x;
            value_number(dim->value[v][0], xa->ax.kind, &x);
            char a[40];
            sb_printf(g, "%s\"%.6g\" %s", v ? ", " : "", x / xa->ax.per_unit,
                      fmt_double(x / xa->ax.per_unit, a, sizeof a));
        }
        sb_printf(g, ")\n");
    }
}

/* Series c's legend: the values of the other dimensions it stands for, or what a single line pools. */
static void series_title(const struct sweep_spec *s, int d, int c, int n_series, int combos, char *lbl, size_t len)
{
    if (n_series == 1) {
        sfmt(lbl, len, "%s", combos == 1 ? "mean over seeds" : "mean over all runs with this value");
        return;
    }
    lbl[0] = '\0';
    /* decode combination c back into the other dimensions' values */
    int rest = c;
    char parts[8][300];
    int np = 0;
    for (int e = s->n_dims - 1; e >= 0; e--) {
        if (e == d)
            continue;
        int v = rest % s->dims[e].n_values;
        rest /= s->dims[e].n_values;
        char sh[200], vl[200];
        dim_short(s, e, sh, sizeof sh);
        dim_value_label(&s->dims[e], v, true, vl, sizeof vl);
        if (np < 8)
            sfmt(parts[np++], sizeof parts[0], "%s = %s", sh, vl);
    }
    for (int i = np - 1; i >= 0; i--) {
        size_t l = strlen(lbl);
        sfmt(lbl + l, len - l, "%s%s", i == np - 1 ? "" : ", ", parts[i]);
    }
}

/*
 * The objective against dimension d: one line per combination of the other
 * parameters (pooled into one when there are more than MAX_SERIES), each
 * point the mean over seeds with min..max bars.  Writes NAME.dat and NAME.gp.
 */
static int plot_dim(const struct sweep_table *t, const struct sweep_spec *s, int d, int best_point,
                    const char *pdir, const char *name)
{
    const struct sweep_dim *dim = &s->dims[d];
    int combos = 1;
    for (int e = 0; e < s->n_dims; e++)
        if (e != d)
            combos *= s->dims[e].n_values;
    int n_series = combos <= MAX_SERIES ? combos : 1;
    struct xaxis xa = x_axis_of(dim);
    double oscale;
    const char *ounit = sweep_objective_unit(s->objective, &oscale);

    struct sbuf dat = {0}, g = {0};
    char lbl[600], esc[1300];
    bool best = dim_dat(&dat, t, s, d, best_point, n_series, &xa, oscale);

    char png[300], datname[300];
    sfmt(png, sizeof png, "%s.png", name);
    sfmt(datname, sizeof datname, "%s.dat", name);
    gp_prelude(&g, png, 1000, 620);
    char xl[600];
    dim_axis_label(dim, xl, sizeof xl);
    char dt[600];
    dim_title(dim, dt, sizeof dt);
    if (combos > MAX_SERIES)
        sfmt(lbl, sizeof lbl, "%s %s against %s\nmean over all runs with each value (the %d combinations of the "
             "other parameters x %d seed%s), bars from min to max", s->maximize ? "maximize" : "minimize",
             s->objective, dt, combos, s->n_seeds, s->n_seeds == 1 ? "" : "s");
    else
        sfmt(lbl, sizeof lbl, "%s %s against %s\nmean over %d seed%s, bars from min to max",
             s->maximize ? "maximize" : "minimize", s->objective, dt, s->n_seeds, s->n_seeds == 1 ? "" : "s");
    sb_printf(&g, "set title \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    sb_printf(&g, "set xlabel \"%s\"\n", gp_str(xl, esc, sizeof esc));
    sfmt(lbl, sizeof lbl, "%s (%s)", s->objective, ounit);
    sb_printf(&g, "set ylabel \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    sb_printf(&g, "set grid\nset key outside top center horizontal box\nset offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08\n");
    if (xa.logx)
        sb_printf(&g, "set logscale x\n");
    dim_xtics(&g, dim, &xa);
    sb_printf(&g, "plot ");
    for (int c = 0; c < n_series; c++) {
        series_title(s, d, c, n_series, combos, lbl, sizeof lbl);
        sb_printf(&g, "'%s' index %d using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 title \"%s\", \\\n     ",
                  datname, c, gp_str(lbl, esc, sizeof esc));
    }
    if (best)
        sb_printf(&g, "'%s' index %d using 1:2 with points pt 6 ps 3.5 lw 2.5 lc rgb 'red' title \"best point\"\n",
                  datname, n_series);
    else
        sb_printf(&g, "NaN notitle\n");
    char gpname[300];
    sfmt(gpname, sizeof gpname, "%s.gp", name);
    int rc = put(pdir, datname, &dat) || put(pdir, gpname, &g) ? -1 : 0;
    free(dat.p);
    free(g.p);
    return rc;
}

/* The heatmap of a two-dimensional grid: mean objective per cell, the best cell circled. */
static int plot_heatmap(const struct sweep_table *t, const struct sweep_spec *s, int best_point, const char *pdir)
{
    const struct sweep_dim *dx = &s->dims[0], *dy = &s->dims[1];
    double oscale;
    const char *ounit = sweep_objective_unit(s->objective, &oscale);
    struct sbuf dat = {0}, g = {0};
    double lo = INFINITY, hi = -INFINITY;
    for (int p = 0; p < s->n_points; p++)
        if (t->ps[p].n) {
            lo = fmin(lo, t->ps[p].mean * oscale);
            hi = fmax(hi, t->ps[p].mean * oscale);
        }
    /* Rows of constant y, as `with image` wants them. */
    for (int y = 0; y < dy->n_values; y++) {
        for (int x = 0; x < dx->n_values; x++) {
            int p = x * dy->n_values + y;
            char a[40];
            if (t->ps[p].n)
                sb_printf(&dat, "%d %d %s \"%.4g\"\n", x, y, fmt_double(t->ps[p].mean * oscale, a, sizeof a),
                          t->ps[p].mean * oscale);
            else
                sb_printf(&dat, "%d %d NaN \"failed\"\n", x, y);
        }
        sb_printf(&dat, "\n");
    }
    if (best_point >= 0)
        sb_printf(&dat, "\n# best point\n%d %d\n", sweep_point_value(s, best_point, 0),
                  sweep_point_value(s, best_point, 1));
    gp_prelude(&g, "heatmap.png", 1000, 720);
    char lbl[700], esc[1500], tx[300], ty[300];
    dim_title(dx, tx, sizeof tx);
    dim_title(dy, ty, sizeof ty);
    sfmt(lbl, sizeof lbl, "%s %s for each %s and %s\ncell: mean over %d seed%s", s->maximize ? "maximize" : "minimize",
             s->objective, tx, ty, s->n_seeds, s->n_seeds == 1 ? "" : "s");
    sb_printf(&g, "set title \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    dim_axis_label(dx, lbl, sizeof lbl);
    sb_printf(&g, "set xlabel \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    dim_axis_label(dy, lbl, sizeof lbl);
    sb_printf(&g, "set ylabel \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    sfmt(lbl, sizeof lbl, "mean %s (%s)", s->objective, ounit);
    sb_printf(&g, "set cblabel \"%s\"\n", gp_str(lbl, esc, sizeof esc));
    sb_printf(&g, "set xrange [-0.5:%d.5]\nset yrange [-0.5:%d.5]\n", dx->n_values - 1, dy->n_values - 1);
    sb_printf(&g, "set xtics (");
    for (int v = 0; v < dx->n_values; v++) {
        dim_value_label(dx, v, false, lbl, sizeof lbl);
        sb_printf(&g, "%s\"%s\" %d", v ? ", " : "", gp_str(lbl, esc, sizeof esc), v);
    }
    sb_printf(&g, ")\nset ytics (");
    for (int v = 0; v < dy->n_values; v++) {
        dim_value_label(dy, v, false, lbl, sizeof lbl);
        sb_printf(&g, "%s\"%s\" %d", v ? ", " : "", gp_str(lbl, esc, sizeof esc), v);
    }
    sb_printf(&g, ")\n");
    /* Better is brighter: the palette runs towards yellow in the direction the objective should go. */
    if (s->maximize)
        sb_printf(&g, "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', 0.75 '#5dc963', 1 '#fde725')\n");
    else
        sb_printf(&g, "set palette defined (0 '#fde725', 0.25 '#5dc963', 0.5 '#21908d', 0.75 '#3b528b', 1 '#440154')\n");
    char a[40], b[40];
    double span = hi > lo ? hi - lo : fabs(hi) * 0.1 + 1e-9;
    if (isfinite(lo))
        sb_printf(&g, "set cbrange [%s:%s]\n", fmt_double(hi > lo ? lo : lo - span, a, sizeof a),
                  fmt_double(hi > lo ? hi : hi + span, b, sizeof b));
    sb_printf(&g, "set key outside top center horizontal box samplen 2 spacing 1.5\nset tics out\nunset grid\n");
    /* Light text on the dark half of the palette, dark text on the light half. */
    double mid = (lo + hi) / 2;
    const char *dark_side = s->maximize ? "<" : ">";
    sb_printf(&g, "mid = %s\n", fmt_double(isfinite(mid) ? mid : 0, a, sizeof a));
    sb_printf(&g, "plot 'heatmap.dat' index 0 using 1:2:3 with image notitle, \\\n"
                  "     '' index 0 using 1:2:(($3 == $3 && $3 %s mid) ? stringcolumn(4) : \"\") with labels "
                  "tc rgb 'white' notitle, \\\n"
                  "     '' index 0 using 1:2:(($3 == $3 && $3 %s mid) ? \"\" : stringcolumn(4)) with labels "
                  "tc rgb 'black' notitle",
              dark_side, dark_side);
    if (best_point >= 0)
        /* A circle that holds the cell's label, and a smaller one for the key. */
        sb_printf(&g, ", \\\n     '' index 1 using 1:2 with points pt 6 ps 8 lw 3 lc rgb 'red' notitle, \\\n"
                      "     NaN with points pt 6 ps 2 lw 3 lc rgb 'red' title \"best point (%s mean)\"",
                  s->maximize ? "highest" : "lowest");
    sb_printf(&g, ", \\\n     NaN with boxes fs solid lc rgb '#21908d' title \"cell colour and label: mean %s\"\n",
              gp_str(s->objective, esc, sizeof esc));
    int rc = put(pdir, "heatmap.dat", &dat) || put(pdir, "heatmap.gp", &g) ? -1 : 0;
    free(dat.p);
    free(g.p);
    return rc;
}

/* Removes the PNG/data/script files a previous sweep left in pdir (the grid may have changed). */
static void clean_plots(const char *pdir)
{
    char names[65][32];
    const char *list[65];
    for (int d = 0; d < 64; d++) {
        sfmt(names[d], sizeof names[d], "objective_vs_%d", d);
        list[d] = names[d];
    }
    list[64] = "heatmap";
    plot_remove_files(pdir, list, 65);
}

/* See sweep_out.h. */
int sweep_plots(const struct sweep_table *t, const struct sweep_spec *s, int best_point, const char *dir,
                char *line, size_t linelen)
{
    char pdir[4300], gnuplot[4096];
    sfmt(pdir, sizeof pdir, "%s/plots", dir);
    if (make_dirs(pdir)) {
        fprintf(stderr, "rocesim sweep: %s: cannot create directory: %s\n", pdir, strerror(errno));
        return SCN_EIO;
    }
    clean_plots(pdir);
    bool any = false;
    for (int p = 0; p < t->n_points; p++)
        any = any || t->ps[p].n > 0;
    if (!any) {
        sfmt(line, linelen, "none: no run has the objective");
        return 0;
    }
    char names[65][32];
    int n = 0;
    for (int d = 0; d < s->n_dims && d < 64; d++) {
        sfmt(names[n], sizeof names[n], "objective_vs_%d", d);
        if (plot_dim(t, s, d, best_point, pdir, names[n]))
            return SCN_EIO;
        n++;
    }
    if (s->n_dims == 2) {
        if (plot_heatmap(t, s, best_point, pdir))
            return SCN_EIO;
        sfmt(names[n++], sizeof names[0], "heatmap");
    }
    if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
        sfmt(line, linelen, "gnuplot is not installed: scripts written to %s/ (run gnuplot NAME.gp there)", pdir);
        return 0;
    }
    const char *todo[65];
    for (int i = 0; i < n; i++)
        todo[i] = names[i];
    struct sbuf failed = {0};
    int drawn = plot_gnuplot_all("rocesim sweep", gnuplot, pdir, todo, n, &failed);
    if (failed.len)
        sfmt(line, linelen, "%s/: %d PNG drawn; FAILED:%s", pdir, drawn, failed.p);
    else
        sfmt(line, linelen, "%s/ (%d PNG: objective_vs_<N>.png per parameter%s)", pdir, drawn,
                 s->n_dims == 2 ? ", heatmap.png" : "");
    free(failed.p);
    return 0;
}
