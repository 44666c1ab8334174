/* flowset — flow metrics over a subset of a run's flows (see flowset.h). */
#include "tools/report/flowset.h"
#include "tools/run/run.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLOWSET_OOM "reading a run's flows"
#define MAX_BYTES 9007199254740992.0 /* 2^53: every size up to it is an exact double */

/* A size as the scenario writes it ("100KB") or a whole number of bytes; 0, or -1 with the error written. */
static int parse_size(struct setting_ctx *c, const cJSON *v, const char *path, double *out)
{
    char d[96], uerr[SCN_ERR_MAX / 2];
    int64_t b;
    if (cJSON_IsNumber(v)) {
        double x = v->valuedouble;
        if (x >= 0 && x <= MAX_BYTES && x == floor(x)) {
            *out = x;
            return 0;
        }
    } else if (cJSON_IsString(v)) {
        if (units_parse_size(v->valuestring, &b, uerr, sizeof uerr) == 0) {
            *out = (double)b;
            return 0;
        }
        /* The units parser's reason ("unknown unit ...") follows its quote of the value. */
        const char *why = strstr(uerr, "\" (");
        return setting_bad(c, path, "expected a size like \"100KB\", got \"%.60s\"%s", v->valuestring,
                           why ? why + 1 : "");
    }
    return setting_bad(c, path, "expected a size like \"100KB\" (or a whole number of bytes), got %s",
                       setting_describe(v, d, sizeof d));
}

static int parse_fields(const cJSON *o, const char *file, const char *where, struct flowset *f, char *err,
                        size_t errlen)
{
    static const char *const known[] = {"size_min", "size_max", "traffic", NULL};
    struct setting_ctx c = {.file = file, .err = err, .errlen = errlen};
    char p[SETTING_PATH_MAX], q[SETTING_PATH_MAX], d[96];
    *f = (struct flowset){-1, -1, 0, NULL};
    if (setting_val_obj(&c, o, where) < 0 || setting_check_dups(&c, o, where) < 0 ||
        setting_check_fields(&c, o, where, known) < 0)
        return SCN_EUSAGE;
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(o, "size_min");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(o, "size_max");
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(o, "traffic");
    if (lo && parse_size(&c, lo, setting_join(p, where, "size_min"), &f->size_min) < 0)
        return SCN_EUSAGE;
    if (hi && parse_size(&c, hi, setting_join(p, where, "size_max"), &f->size_max) < 0)
        return SCN_EUSAGE;
    if (lo && hi && f->size_min > f->size_max) {
        char a[40], b[40];
        setting_bad(&c, setting_join(p, where, "size_max"), "expected a size at least size_min (%s), got %s",
                    units_fmt_size((int64_t)f->size_min, a, sizeof a),
                    units_fmt_size((int64_t)f->size_max, b, sizeof b));
        return SCN_EUSAGE;
    }
    if (!tr)
        return 0;
    setting_join(p, where, "traffic");
    if (!cJSON_IsArray(tr) || cJSON_GetArraySize(tr) == 0) {
        setting_bad(&c, p, "expected a non-empty array of traffic ids like [\"query\", \"web\"], got %s",
                    cJSON_IsArray(tr) ? "an empty array" : setting_describe(tr, d, sizeof d));
        return SCN_EUSAGE;
    }
    int n = cJSON_GetArraySize(tr), i = 0;
    f->traffic = mem_xcalloc((size_t)n, sizeof *f->traffic, FLOWSET_OOM);
    for (const cJSON *it = tr->child; it; it = it->next, i++) {
        setting_join_idx(q, p, i);
        if (!cJSON_IsString(it) || !it->valuestring[0]) {
            setting_bad(&c, q, "expected a traffic id like \"query\", got %s",
                        cJSON_IsString(it) ? "an empty string" : setting_describe(it, d, sizeof d));
            return SCN_EUSAGE;
        }
        for (int k = 0; k < i; k++)
            if (strcmp(f->traffic[k], it->valuestring) == 0) {
                setting_bad(&c, q, "expected each traffic id once, got \"%.60s\" again (also %s.%d)", it->valuestring,
                            p, k);
                return SCN_EUSAGE;
            }
        f->traffic[i] = mem_xstrdup(it->valuestring, FLOWSET_OOM);
        f->n_traffic = i + 1;
    }
    return 0;
}

int flowset_parse(const cJSON *o, const char *file, const char *where, struct flowset *f, char *err,
                  size_t errlen)
{
    int rc = parse_fields(o, file, where, f, err, errlen);
    if (rc)
        flowset_free(f);
    return rc;
}

void flowset_free(struct flowset *f)
{
    for (int i = 0; i < f->n_traffic; i++)
        free(f->traffic[i]);
    free(f->traffic);
    *f = (struct flowset){-1, -1, 0, NULL};
}

/* flowset_match for an id of len bytes (a cell of the csv, not NUL-terminated). */
static bool match(const struct flowset *f, const char *id, size_t len, double size_bytes)
{
    if (!f)
        return true;
    if ((f->size_min >= 0 && size_bytes < f->size_min) || (f->size_max >= 0 && size_bytes > f->size_max))
        return false;
    if (f->n_traffic == 0)
        return true;
    for (int i = 0; i < f->n_traffic; i++)
        if (scn_flow_of_entry(id, len, f->traffic[i]))
            return true;
    return false;
}

bool flowset_match(const struct flowset *f, const char *id, double size_bytes)
{
    return match(f, id, strlen(id), size_bytes);
}

static const char *const stat_names[] = {"mean", "p50", "p95", "p99", "max", NULL};
static const char *const dist_names[] = {"fct_ns", "slowdown", "goodput_gbps", "fct_ack_ns", "slowdown_ack", NULL};

/* The statistic `name` of s; false when name is not one. */
static bool stat_of(const struct stats_pct *s, const char *name, double *v)
{
    const double vals[] = {s->mean, s->p50, s->p95, s->p99, s->max};
    for (int i = 0; stat_names[i]; i++)
        if (strcmp(name, stat_names[i]) == 0) {
            if (v)
                *v = vals[i];
            return true;
        }
    return false;
}

/* Looks metric up; r NULL only checks the name.  Returns false when it is not a subset metric. */
static bool lookup(const struct flowset_result *r, const char *metric, double *v, bool *defined)
{
    static const struct flowset_result none;
    const struct flowset_result *x = r ? r : &none;
    *defined = true;
    if (strncmp(metric, "flows.", 6) != 0)
        return false;
    const char *m = metric + 6;
    if (strcmp(m, "total") == 0 || strcmp(m, "completed") == 0 || strcmp(m, "acked") == 0) {
        *v = m[0] == 't' ? x->total : m[0] == 'c' ? x->completed : x->acked;
        return true;
    }
    const struct stats_pct *dist[] = {&x->fct_ns, &x->slowdown, &x->goodput_gbps, &x->fct_ack_ns, &x->slowdown_ack};
    for (int i = 0; dist_names[i]; i++) {
        size_t l = strlen(dist_names[i]);
        if (strncmp(m, dist_names[i], l) == 0 && m[l] == '.' && stat_of(dist[i], m + l + 1, v)) {
            *defined = (dist[i] == &x->fct_ack_ns || dist[i] == &x->slowdown_ack ? x->acked : x->completed) > 0;
            return true;
        }
    }
    return false;
}

bool flowset_metric_known(const char *metric)
{
    double v;
    bool defined;
    return lookup(NULL, metric, &v, &defined);
}

bool flowset_value(const struct flowset_result *r, const char *metric, double *value)
{
    double v;
    bool defined;
    if (!lookup(r, metric, &v, &defined) || !defined)
        return false;
    *value = v;
    return true;
}

/* ---- reading flows.csv ---- */

/* flows.csv's columns: the receiver's completion (every version) and the sender's (added later: RUN_FLOWS_HEADER). */
static const char csv_header[] = RUN_FLOWS_HEADER, csv_header_receiver[] = RUN_FLOWS_HEADER_RECEIVER;
enum { C_ID, C_SRC, C_DST, C_PRIO, C_SIZE, C_START, C_FINISH, C_FCT, C_IDEAL, C_SLOWDOWN, C_RETX, C_CNPS, C_PAUSED,
       N_COLS_RECEIVER, C_ACKED = N_COLS_RECEIVER, C_FCT_ACK, C_IDEAL_ACK, C_SLOWDOWN_ACK, N_COLS };
static const char *const col_names[N_COLS] = {"id", "src", "dst", "priority", "size_bytes", "start_ns", "finish_ns",
                                              "fct_ns", "ideal_fct_ns", "slowdown", "retx_bytes", "cnps",
                                              "paused_ns", "acked_ns", "fct_ack_ns", "ideal_fct_ack_ns",
                                              "slowdown_ack"};

/* A whole number below 2^53 (the csv's counts and sizes); false when s is not one. */
static bool parse_count(const char *s, size_t len, int64_t *out)
{
    int64_t x = 0;
    if (len == 0 || len > 16)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *out = x;
    return true;
}

/*
 * A time in ns as the csv writes it (units_fmt_ns: a whole number, or up to three decimals) into exact
 * integer ps: summary.json divides picoseconds, and a ratio of two rounded doubles of ns would differ from it
 * in the last bit.
 */
static bool parse_ns(const char *s, size_t len, int64_t *ps)
{
    const char *dot = memchr(s, '.', len);
    size_t whole = dot ? (size_t)(dot - s) : len, frac = dot ? len - whole - 1 : 0;
    int64_t w, f = 0;
    if (!parse_count(s, whole, &w) || (dot && (frac == 0 || frac > 3 || !parse_count(dot + 1, frac, &f))))
        return false;
    for (size_t i = frac; i < 3; i++)
        f *= 10;
    if (w > INT64_MAX / 1000 - 1)
        return false;
    *ps = w * 1000 + f;
    return true;
}

static bool parse_real(const char *s, size_t len)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    double x = strtod(buf, &end);
    return *end == '\0' && isfinite(x);
}

/* The text of csv after its header line when the header is flows.csv's (*n_cols: of which version), else NULL. */
static const char *after_header(const char *csv, int *n_cols)
{
    const struct {
        const char *h;
        int n;
    } known[] = {{csv_header, N_COLS}, {csv_header_receiver, N_COLS_RECEIVER}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t hl = strlen(known[i].h);
        if (strncmp(csv, known[i].h, hl) == 0 && (csv[hl] == '\n' || csv[hl] == '\0')) {
            *n_cols = known[i].n;
            return csv + hl + (csv[hl] == '\n');
        }
    }
    return NULL;
}

/*
 * Checks one row's cells and reads its counts and times (v, in ps for the times); returns the first bad column,
 * or -1.  After start_ns a flow that did not finish has nothing (nor in start_ns when it never started); one
 * whose last ACK did not reach its sender has nothing after paused_ns.
 */
static int parse_row(const char *const *cell, const size_t *cl, int n_cols, int64_t *v, bool *finished, bool *acked)
{
    *finished = cl[C_FINISH] > 0;
    *acked = n_cols > C_ACKED && cl[C_ACKED] > 0;
    for (int k = C_PRIO; k < n_cols; k++) {
        /* a flow whose trigger never fired (models/trigger.h) did not start either */
        if ((!*finished && k >= C_FINISH) || (!*acked && k >= C_ACKED) || (!*finished && k == C_START && !cl[k])) {
            if (cl[k])
                return k;
            continue;
        }
        bool ok = k == C_SLOWDOWN || k == C_SLOWDOWN_ACK ? parse_real(cell[k], cl[k])
                : k == C_PRIO || k == C_SIZE || k == C_RETX || k == C_CNPS ? parse_count(cell[k], cl[k], &v[k])
                                                                           : parse_ns(cell[k], cl[k], &v[k]);
        if (!ok)
            return k;
    }
    return cl[C_ID] == 0 ? C_ID : -1;
}

/* What column k of a row should have held, for the message. */
static const char *expected_cell(int k, bool finished, bool acked)
{
    if (k == C_ID)
        return "a flow id";
    if (!finished && k > C_FINISH)
        return "nothing (the flow did not finish)";
    if (!acked && k > C_ACKED)
        return "nothing (its last ACK did not reach the sender)";
    if (k == C_SLOWDOWN || k == C_SLOWDOWN_ACK)
        return "a number";
    return k == C_PRIO || k == C_SIZE || k == C_RETX || k == C_CNPS ? "a whole number" : "a time in ns";
}

/* One metric's values, n of them, with room for one per row. */
struct column {
    double *v;
    size_t n;
};

/* flowset_compute, keeping the sorted goodputs in *gp (*n_gp of them) when gp is not NULL. */
static int compute(const struct flowset *f, const char *csv, struct flowset_result *out, double **gp, size_t *n_gp,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int n_cols;
    const char *p = after_header(csv, &n_cols);
    if (!p) {
        size_t l = strcspn(csv, "\n");
        setting_strf(err, errlen, "flows.csv line 1: expected the header \"%s\", got \"%.*s%s\"", csv_header,
                     (int)(l > 80 ? 80 : l), csv, l > 80 ? "..." : "");
        return SCN_EUSAGE;
    }
    size_t rows = 0;
    for (const char *q = csv; *q; q++)
        rows += *q == '\n';
    enum { M_FCT, M_SD, M_GP, M_FCT_ACK, M_SD_ACK, M_N };
    struct column m[M_N];
    for (int i = 0; i < M_N; i++)
        m[i] = (struct column){mem_xmalloc(sizeof(double) * (rows + 1), FLOWSET_OOM), 0};
    int line = 1, rc = 0;
    while (*p && !rc) {
        line++;
        size_t len = strcspn(p, "\n");
        const char *next = p + len + (p[len] == '\n');
        if (len == 0 && !*next)
            break; /* the file's final newline */
        const char *cell[N_COLS];
        size_t cl[N_COLS];
        int nc = 0;
        for (const char *c = p;;) {
            size_t k = strcspn(c, ",\n");
            if (nc < N_COLS) {
                cell[nc] = c;
                cl[nc] = k;
            }
            nc++;
            if (c[k] != ',')
                break;
            c += k + 1;
        }
        if (nc != n_cols) {
            setting_strf(err, errlen, "flows.csv line %d: expected %d columns (%s), got %d", line, n_cols,
                         n_cols == N_COLS ? csv_header : csv_header_receiver, nc);
            rc = SCN_EUSAGE;
            break;
        }
        int64_t v[N_COLS] = {0};
        bool finished, acked;
        int bad = parse_row(cell, cl, n_cols, v, &finished, &acked);
        if (bad >= 0) {
            setting_strf(err, errlen, "flows.csv line %d: column %s: expected %s, got \"%.*s\"", line,
                         col_names[bad], expected_cell(bad, finished, acked), (int)(cl[bad] > 60 ? 60 : cl[bad]),
                         cell[bad]);
            rc = SCN_EUSAGE;
            break;
        }
        double size = (double)v[C_SIZE];
        if (match(f, cell[C_ID], cl[C_ID], size)) {
            out->total++;
            if (finished) {
                int64_t fct_ps = v[C_FCT], ideal_ps = v[C_IDEAL];
                /* As tools/run/run.c computes summary.json's: ns = ps / 1000, slowdown = ps / ps (0 without an
                 * ideal). */
                double fct_ns = (double)fct_ps / 1000.0;
                m[M_FCT].v[m[M_FCT].n++] = fct_ns;
                m[M_SD].v[m[M_SD].n++] = ideal_ps > 0 ? (double)fct_ps / (double)ideal_ps : 0;
                out->completed++;
                if (fct_ps > 0)
                    m[M_GP].v[m[M_GP].n++] = size * 8 / fct_ns;
            }
            if (acked) {
                m[M_FCT_ACK].v[m[M_FCT_ACK].n++] = (double)v[C_FCT_ACK] / 1000.0;
                m[M_SD_ACK].v[m[M_SD_ACK].n++] =
                    v[C_IDEAL_ACK] > 0 ? (double)v[C_FCT_ACK] / (double)v[C_IDEAL_ACK] : 0;
                out->acked++;
            }
        }
        p = next;
    }
    if (!rc) {
        struct stats_pct *dst[M_N] = {&out->fct_ns, &out->slowdown, &out->goodput_gbps, &out->fct_ack_ns,
                                      &out->slowdown_ack};
        for (int i = 0; i < M_N; i++)
            *dst[i] = stats_nearest_rank(m[i].v, m[i].n);
    } else {
        memset(out, 0, sizeof *out);
    }
    if (gp) {
        *gp = rc ? NULL : m[M_GP].v; /* sorted by stats_nearest_rank */
        *n_gp = rc ? 0 : m[M_GP].n;
        if (!rc)
            m[M_GP].v = NULL;
    }
    for (int i = 0; i < M_N; i++)
        free(m[i].v);
    return rc;
}

int flowset_compute(const struct flowset *f, const char *csv, struct flowset_result *out, char *err, size_t errlen)
{
    return compute(f, csv, out, NULL, NULL, err, errlen);
}

int flowset_goodputs(const struct flowset *f, const char *csv, struct flowset_result *out, double **gp, size_t *n_gp,
                     char *err, size_t errlen)
{
    return compute(f, csv, out, gp, n_gp, err, errlen);
}
