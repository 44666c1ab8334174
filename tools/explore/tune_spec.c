/*
 * tune_spec — reading and checking a tune file (see tune.h and docs/tune.md).
 *
 * The file is read by the scenario loader's rules (comments, duplicate keys,
 * unknown fields, the wording of errors); a parameter's kind and bounds come
 * from the settings table that declares its path, so that a size is tuned in
 * bytes, a time in picoseconds and a gain within the range the scenario
 * accepts, and a range the scenario would refuse is refused here, before any run.
 */
#include "tools/explore/tune.h"
#include "tools/explore/metric.h"
#include "tools/explore/specfile.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define lbad(c, ...) (setting_bad((c), __VA_ARGS__), SCN_EUSAGE)
#define describe setting_describe

/*
 * A quantity from a JSON string with a unit (or a number of base units); 0 or SCN_EUSAGE.  A string goes
 * through the scenario loader's own check, so that the units parser's reason ("did you mean ...") and the
 * engine's clock limit reach the user in the scenario's words.
 */
static int read_qty(struct setting_ctx *c, const cJSON *v, const char *where, enum setting_kind q, double *out)
{
    char got[128];
    int64_t x = 0;
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble)) {
        *out = v->valuedouble;
        return 0;
    }
    if (!cJSON_IsString(v)) /* setting_qty_what is the whole phrase: "a size like \"20KB\"" */
        return lbad(c, where, "expected %s, got %s", setting_qty_what(q), describe(v, got, sizeof got));
    if (setting_val_qty(c, v, where, q, false, &x) < 0)
        return SCN_EUSAGE;
    *out = (double)x;
    return 0;
}

/* The kind of an untabled path's value, guessed from how its range is written: a unit says which quantity. */
static enum setting_kind guess_kind(const cJSON *v)
{
    if (!cJSON_IsString(v))
        return SETTING_NUMBER;
    int64_t x;
    if (!units_parse_size(v->valuestring, &x, NULL, 0))
        return SETTING_SIZE;
    if (!units_parse_time(v->valuestring, &x, NULL, 0))
        return SETTING_TIME;
    if (!units_parse_rate(v->valuestring, &x, NULL, 0))
        return SETTING_RATE;
    return SETTING_NUMBER;
}

/* Reads one parameter: {"min", "max", "scale"} or {"choice": [...]}. */
static int parse_param(struct setting_ctx *c, const cJSON *it, struct tune_param *p, const char *where)
{
    static const char *const known[] = {"min", "max", "scale", "step", "choice", NULL};
    char got[128], w[600], msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
    if (!dotted_path_ok(it->string))
        return lbad(c, where, "expected a dotted scenario path like \"switch.ecn.kmin\", got \"%.80s\"", it->string);
    if (strcmp(it->string, "seed") == 0)
        return lbad(c, where, "expected a scenario path other than \"seed\", got \"seed\" (list the seeds in "
                              "\"seeds\")");
    scn_register_settings();
    if (settings_check_path(it->string, msg, sizeof msg, at, sizeof at) < 0)
        return lbad(c, where, "%s", msg);
    p->path = mem_xstrdup(it->string, "in tune");
    if (!cJSON_IsObject(it))
        return lbad(c, where, "expected {\"min\": ..., \"max\": ..., \"scale\": \"log\"} or {\"choice\": [...]}, got %s",
                    describe(it, got, sizeof got));
    if (setting_check_dups(c, it, where) < 0 || setting_check_fields(c, it, where, known) < 0)
        return SCN_EUSAGE;
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(it, "choice");
    if (choice) {
        sfmt(w, sizeof w, "%s.choice", where);
        if (cJSON_GetObjectItemCaseSensitive(it, "min") || cJSON_GetObjectItemCaseSensitive(it, "max") ||
            cJSON_GetObjectItemCaseSensitive(it, "scale") || cJSON_GetObjectItemCaseSensitive(it, "step"))
            return lbad(c, where, "expected either \"choice\" or \"min\"/\"max\"/\"scale\"/\"step\", got both");
        if (!cJSON_IsArray(choice) || cJSON_GetArraySize(choice) < 1)
            return lbad(c, w, "expected a non-empty array of values, got %s", describe(choice, got, sizeof got));
        p->scale = TUNE_CHOICE;
        p->qty = SETTING_NUMBER;
        p->n_choices = cJSON_GetArraySize(choice);
        p->choice = mem_xcalloc((size_t)p->n_choices, sizeof *p->choice, "in tune");
        int k = 0;
        for (const cJSON *v = choice->child; v; v = v->next, k++) {
            p->choice[k] = cJSON_PrintUnformatted(v);
            if (!p->choice[k])
                mem_oom("reading the tune file");
            for (int j = 0; j < k; j++)
                if (strcmp(p->choice[j], p->choice[k]) == 0) {
                    char wk[640];
                    sfmt(wk, sizeof wk, "%s[%d]", w, k);
                    return lbad(c, wk, "expected each choice once, got %s again (it is also %s[%d])", p->choice[k],
                                w, j);
                }
        }
        p->lo = 0;
        p->hi = p->n_choices - 1;
        return 0;
    }
    const cJSON *mn = cJSON_GetObjectItemCaseSensitive(it, "min"), *mx = cJSON_GetObjectItemCaseSensitive(it, "max");
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "scale");
    if (!mn || !mx)
        return lbad(c, where, "expected both \"min\" and \"max\" (or a \"choice\" list), got %s missing",
                    mn ? "\"max\"" : "\"min\"");
    const struct setting *f = settings_field(it->string);
    enum setting_kind k = f ? f->kind : guess_kind(mn);
    if (f && k != SETTING_SIZE && k != SETTING_TIME && k != SETTING_RATE && k != SETTING_NUMBER && k != SETTING_INT)
        return lbad(c, where, "expected a numeric setting or a quantity to tune over a range (list the values of "
                              "this one with \"choice\"), got a %s", k == SETTING_BOOL ? "boolean" : "setting of "
                              "another kind");
    p->qty = k == SETTING_INT ? SETTING_NUMBER : k;
    p->scale = TUNE_LINEAR;
    if (sc) {
        sfmt(w, sizeof w, "%s.scale", where);
        if (!cJSON_IsString(sc) || (strcmp(sc->valuestring, "linear") && strcmp(sc->valuestring, "log") &&
                                    strcmp(sc->valuestring, "int")))
            return lbad(c, w, "expected \"linear\", \"log\" or \"int\", got %s", describe(sc, got, sizeof got));
        p->scale = sc->valuestring[0] == 'l' && sc->valuestring[1] == 'o' ? TUNE_LOG
                   : sc->valuestring[0] == 'i'                            ? TUNE_INT
                                                                           : TUNE_LINEAR;
    }
    if (k == SETTING_INT && p->scale == TUNE_LINEAR)
        p->scale = TUNE_INT;
    const cJSON *ends[2] = {mn, mx};
    double *dst[2] = {&p->lo, &p->hi};
    for (int e = 0; e < 2; e++) {
        sfmt(w, sizeof w, "%s.%s", where, e ? "max" : "min");
        if (p->qty == SETTING_NUMBER) {
            if (!cJSON_IsNumber(ends[e]))
                return lbad(c, w, "expected a number, got %s", describe(ends[e], got, sizeof got));
            *dst[e] = ends[e]->valuedouble;
            if (f && (k == SETTING_NUMBER || k == SETTING_INT) &&
                (*dst[e] < f->lo || *dst[e] > f->hi || (*dst[e] == f->lo && (f->flags & SETTING_LO_OPEN)) ||
                 (*dst[e] == f->hi && (f->flags & SETTING_HI_OPEN)))) {
                char a[40], b[40];
                return lbad(c, w, "expected a value the scenario accepts for %s, in %s%s, %s%s, got %s", p->path,
                            f->flags & SETTING_LO_OPEN ? "(" : "[", setting_fmt_num(f->lo, a, sizeof a),
                            setting_fmt_num(f->hi, b, sizeof b), f->flags & SETTING_HI_OPEN ? ")" : "]",
                            describe(ends[e], got, sizeof got));
            }
            if (p->scale == TUNE_INT && *dst[e] != floor(*dst[e]))
                return lbad(c, w, "expected an integer (the scale is \"int\"), got %s", describe(ends[e], got, sizeof got));
        } else if (read_qty(c, ends[e], w, p->qty, dst[e])) {
            return SCN_EUSAGE;
        }
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "step");
    if (st) {
        sfmt(w, sizeof w, "%s.step", where);
        if (p->qty == SETTING_NUMBER) {
            if (!cJSON_IsNumber(st) || !(st->valuedouble > 0))
                return lbad(c, w, "expected a number above 0, got %s", describe(st, got, sizeof got));
            p->step = st->valuedouble;
        } else if (read_qty(c, st, w, p->qty, &p->step)) {
            return SCN_EUSAGE;
        } else if (p->step <= 0) {
            return lbad(c, w, "expected a step above 0, got %s", describe(st, got, sizeof got));
        }
        if (p->step > p->hi - p->lo)
            return lbad(c, w, "expected a step no larger than the range (max - min), got %s",
                        describe(st, got, sizeof got));
    }
    sfmt(w, sizeof w, "%s.max", where);
    if (!(p->hi > p->lo))
        return lbad(c, w, "expected a value above min, got %s", describe(mx, got, sizeof got));
    if (p->scale == TUNE_LOG && p->lo <= 0) {
        sfmt(w, sizeof w, "%s.min", where);
        return lbad(c, w, "expected a value above 0 (the scale is \"log\"), got %s", describe(mn, got, sizeof got));
    }
    return 0;
}

static int param_index(const struct tune_spec *s, const char *path)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].path, path) == 0)
            return i;
    return -1;
}

/* One "require" rule: "PATH OP PATH" over two tuned parameters of one kind. */
static int parse_require(struct setting_ctx *c, struct tune_spec *s, const cJSON *v, struct tune_require *r,
                         const char *where)
{
    char got[128], a[300], b[300], op[4];
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof r->text ||
        sscanf(v->valuestring, " %299[A-Za-z0-9_.-] %3[<>=] %299[A-Za-z0-9_.-] ", a, op, b) != 3 ||
        (strcmp(op, "<") && strcmp(op, "<=") && strcmp(op, ">") && strcmp(op, ">=")))
        return lbad(c, where, "expected a rule like \"switch.ecn.kmin < switch.ecn.kmax\" (two tuned parameters "
                              "and one of <, <=, >, >=), got %s", describe(v, got, sizeof got));
    r->a = param_index(s, a);
    r->b = param_index(s, b);
    if (r->a < 0 || r->b < 0)
        return lbad(c, where, "expected two parameters listed in \"params\", got \"%s\", which is not one",
                    r->a < 0 ? a : b);
    const struct tune_param *pa = &s->params[r->a], *pb = &s->params[r->b];
    if (pa->scale == TUNE_CHOICE || pb->scale == TUNE_CHOICE || pa->qty != pb->qty || r->a == r->b)
        return lbad(c, where, "expected two different parameters of the same kind with a range (not a choice), "
                              "got %s", describe(v, got, sizeof got));
    sfmt(r->op, sizeof r->op, "%s", op);
    sfmt(r->text, sizeof r->text, "%s", v->valuestring);
    return 0;
}

/* The traffic ids of a subset must name traffic entries of the scenario: a typo would select no flow at all. */
static int check_traffic_ids(struct setting_ctx *c, const struct tune_spec *s, const struct tune_metric *m,
                             const char *where)
{
    char *clean = strip_json_comments(s->scenario_text);
    cJSON *scn = cJSON_Parse(clean);
    free(clean);
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(scn, "traffic");
    int rc = 0;
    for (int i = 0; i < m->flows.n_traffic && !rc; i++) {
        const char *t = m->flows.traffic[i];
        bool found = false;
        for (const cJSON *e = traffic ? traffic->child : NULL; e && !found; e = e->next) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
            size_t l = cJSON_IsString(id) ? strlen(id->valuestring) : 0;
            found = l && strncmp(t, id->valuestring, l) == 0 && (t[l] == '\0' || t[l] == '.');
        }
        if (!found) {
            char w[700];
            sfmt(w, sizeof w, "%s.traffic[%d]", where, i);
            rc = lbad(c, w, "expected the id of a traffic entry of %s (or one of its flows, \"ID.N\"), got \"%.80s\"",
                      s->scenario, t);
        }
    }
    cJSON_Delete(scn);
    return rc;
}

/* An objective {"minimize"|"maximize": METRIC, "flows": {...}} or a constraint {"metric", "min", "max", "flows"}. */
static int parse_metric(struct setting_ctx *c, const struct tune_spec *s, const cJSON *o, struct tune_metric *m,
                        const char *where, bool constraint)
{
    static const char *const known_obj[] = {"minimize", "maximize", "flows", NULL};
    static const char *const known_con[] = {"metric", "min", "max", "flows", NULL};
    char got[128], w[600];
    if (!cJSON_IsObject(o))
        return lbad(c, where, constraint ? "expected {\"metric\": \"pfc.paused_ns_total\", \"max\": 1e6}, got %s"
                                         : "expected {\"minimize\": \"flows.slowdown.p99\"} or {\"maximize\": ...}, "
                                           "got %s", describe(o, got, sizeof got));
    if (setting_check_dups(c, o, where) < 0 || setting_check_fields(c, o, where, constraint ? known_con : known_obj) < 0)
        return SCN_EUSAGE;
    const cJSON *name;
    m->min = m->max = NAN;
    if (constraint) {
        name = cJSON_GetObjectItemCaseSensitive(o, "metric");
        sfmt(w, sizeof w, "%s.metric", where);
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(o, "min"), *mx = cJSON_GetObjectItemCaseSensitive(o, "max");
        if (!mn && !mx)
            return lbad(c, where, "expected a bound, \"min\" or \"max\" (or both), got neither");
        if (mn && !cJSON_IsNumber(mn)) {
            sfmt(w, sizeof w, "%s.min", where);
            return lbad(c, w, "expected a number, got %s", describe(mn, got, sizeof got));
        }
        if (mx && !cJSON_IsNumber(mx)) {
            sfmt(w, sizeof w, "%s.max", where);
            return lbad(c, w, "expected a number, got %s", describe(mx, got, sizeof got));
        }
        m->min = mn ? mn->valuedouble : NAN;
        m->max = mx ? mx->valuedouble : NAN;
        if (mn && mx && m->min > m->max) {
            sfmt(w, sizeof w, "%s.max", where);
            return lbad(c, w, "expected a value at least min, got %s", describe(mx, got, sizeof got));
        }
        sfmt(w, sizeof w, "%s.metric", where);
    } else {
        const cJSON *mi = cJSON_GetObjectItemCaseSensitive(o, "minimize"), *ma = cJSON_GetObjectItemCaseSensitive(o, "maximize");
        if ((mi != NULL) == (ma != NULL))
            return lbad(c, where, "expected exactly one of \"minimize\" and \"maximize\", got %s",
                        mi ? "both" : "neither");
        name = mi ? mi : ma;
        m->maximize = ma != NULL;
        sfmt(w, sizeof w, "%s.%s", where, mi ? "minimize" : "maximize");
    }
    if (!cJSON_IsString(name) || !dotted_path_ok(name->valuestring) || strlen(name->valuestring) >= sizeof m->name)
        return lbad(c, w, "expected a dotted path into summary.json like \"flows.slowdown.p99\", got %s",
                    describe(name, got, sizeof got));
    sfmt(m->name, sizeof m->name, "%s", name->valuestring);
    const cJSON *flows = cJSON_GetObjectItemCaseSensitive(o, "flows");
    if (flows) {
        char wf[640];
        sfmt(wf, sizeof wf, "%s.flows", where);
        char e[SCN_ERR_MAX];
        if (flowset_parse(flows, c->file, wf, &m->flows, e, sizeof e)) {
            sfmt(c->err, c->errlen, "%s", e);
            return SCN_EUSAGE;
        }
        m->subset = m->filtered = true;
        if (check_traffic_ids(c, s, m, wf))
            return SCN_EUSAGE;
        if (!flowset_metric_known(m->name))
            return lbad(c, w, "expected a flow metric (flows.total, flows.completed, flows.acked, flows.fct_ns.*, "
                              "flows.slowdown.*, flows.goodput_gbps.*, to the last ACK flows.fct_ack_ns.*, "
                              "flows.slowdown_ack.*; * = mean, p50, p95, p99, max) with \"flows\", got \"%.80s\"",
                        m->name);
    } else if (!metric_known(m->name)) {
        if (flowset_metric_known(m->name)) {
            m->subset = true; /* goodput: computed from flows.csv over every flow */
        } else {
            char hint[320];
            metric_hint(m->name, hint, sizeof hint);
            return lbad(c, w, "expected a numeric field of summary.json or a flow metric, got \"%.80s\", which no "
                              "summary has; for example %s, flows.goodput_gbps.{mean,p50,p95,p99,max}", m->name, hint);
        }
    }
    char fl[300] = "";
    if (flows) {
        char *t = cJSON_PrintUnformatted(flows);
        if (!t)
            mem_oom("reading the tune file");
        sfmt(fl, sizeof fl, "%s", t);
        free(t);
        /* A CSV column name: commas and quotes out. */
        for (char *q = fl; *q; q++)
            if (*q == ',')
                *q = ' ';
            else if (*q == '"')
                *q = '\'';
    }
    sfmt(m->label, sizeof m->label, "%s%s", m->name, fl);
    sfmt(m->words, sizeof m->words, "%s", m->name);
    if (flows) {
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(flows, "size_min");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(flows, "size_max");
        char a[64] = "", b[64] = "", t[200] = "";
        if (mn)
            sfmt(a, sizeof a, " from %s%s", cJSON_IsString(mn) ? mn->valuestring : setting_fmt_num(mn->valuedouble, t, 40),
                 cJSON_IsString(mn) ? "" : "B");
        if (mx)
            sfmt(b, sizeof b, " up to %s%s", cJSON_IsString(mx) ? mx->valuestring : setting_fmt_num(mx->valuedouble, t, 40),
                 cJSON_IsString(mx) ? "" : "B");
        t[0] = '\0';
        for (int i = 0; i < m->flows.n_traffic; i++) {
            size_t l = strlen(t);
            sfmt(t + l, sizeof t - l, "%s%s", i ? ", " : " of ", m->flows.traffic[i]);
        }
        size_t l = strlen(m->words);
        sfmt(m->words + l, sizeof m->words - l, " (flows%s%s%s)", a, b, t);
    }
    return 0;
}

/* "baseline": {"preset": NAME, "values": {PATH: VALUE}}. */
static int parse_baseline(struct setting_ctx *c, struct tune_spec *s, const cJSON *b)
{
    static const char *const known[] = {"preset", "values", NULL};
    char got[128];
    if (!b)
        return 0;
    if (!cJSON_IsObject(b))
        return lbad(c, "baseline", "expected {\"preset\": \"paper\"} or {\"values\": {PATH: VALUE}}, got %s",
                    describe(b, got, sizeof got));
    if (setting_check_dups(c, b, "baseline") < 0 || setting_check_fields(c, b, "baseline", known) < 0)
        return SCN_EUSAGE;
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(b, "preset");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(b, "values");
    if (values && !cJSON_IsObject(values))
        return lbad(c, "baseline.values", "expected an object of scenario paths and values, got %s",
                    describe(values, got, sizeof got));
    int n = (preset ? 1 : 0) + (values ? cJSON_GetArraySize(values) : 0);
    s->base_path = mem_xcalloc((size_t)n + 1, sizeof *s->base_path, "in tune");
    s->base_text = mem_xcalloc((size_t)n + 1, sizeof *s->base_text, "in tune");
    if (preset) {
        if (!cJSON_IsString(preset) || !*preset->valuestring)
            return lbad(c, "baseline.preset", "expected the name of a host.dcqcn preset like \"paper\", got %s",
                        describe(preset, got, sizeof got));
        s->base_path[s->n_base] = mem_xstrdup("host.dcqcn.preset", "in tune");
        s->base_text[s->n_base++] = cJSON_PrintUnformatted(preset);
    }
    for (const cJSON *v = values ? values->child : NULL; v; v = v->next) {
        char w[400], msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
        sfmt(w, sizeof w, "baseline.values[\"%.300s\"]", v->string);
        if (!dotted_path_ok(v->string))
            return lbad(c, w, "expected a dotted scenario path like \"switch.ecn.kmin\", got \"%.80s\"", v->string);
        if (settings_check_path(v->string, msg, sizeof msg, at, sizeof at) < 0)
            return lbad(c, w, "%s", msg);
        s->base_path[s->n_base] = mem_xstrdup(v->string, "in tune");
        s->base_text[s->n_base++] = cJSON_PrintUnformatted(v);
    }
    for (int i = 0; i < s->n_base; i++)
        if (!s->base_text[i])
            mem_oom("reading the tune file");
    return 0;
}

/* See tune.h: Subplex first, the default (Rowan 1990: Nelder-Mead on subspaces, robust to a noisy objective). */
const struct tune_optimizer tune_optimizers[] = {
    {"sbplx", NLOPT_LN_SBPLX}, {"bobyqa", NLOPT_LN_BOBYQA}, {"cobyla", NLOPT_LN_COBYLA},
    {"neldermead", NLOPT_LN_NELDERMEAD}, {"none", -1}, {NULL, 0}};

/* "search": {"seed", "batch", "design_share", "optimizer"}: how the search goes; all optional. */
static int parse_search(struct setting_ctx *c, struct tune_spec *s, const cJSON *o)
{
    static const char *const known[] = {"seed", "batch", "design_share", "optimizer", NULL};
    char got[128];
    s->search_seed = 1;
    s->batch = 4;
    s->design_share = 0.5;
    s->optimizer = 0;
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return lbad(c, "search", "expected an object like {\"seed\": 1, \"batch\": 4}, got %s",
                    describe(o, got, sizeof got));
    if (setting_check_dups(c, o, "search") < 0 || setting_check_fields(c, o, "search", known) < 0)
        return SCN_EUSAGE;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "seed"))) {
        if (scn_json_seed(v, &s->search_seed) < 0)
            return lbad(c, "search.seed", "expected an integer from 0 to %s, got %s", SCN_SEED_MAX_TEXT,
                        describe(v, got, sizeof got));
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "batch"))) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 256 || v->valuedouble != floor(v->valuedouble))
            return lbad(c, "search.batch", "expected an integer from 1 to 256, got %s", describe(v, got, sizeof got));
        s->batch = v->valueint;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "design_share"))) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > 1)
            return lbad(c, "search.design_share", "expected a number in (0, 1], got %s", describe(v, got, sizeof got));
        s->design_share = v->valuedouble;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "optimizer"))) {
        int k = -1;
        char names[200] = "";
        for (int i = 0; tune_optimizers[i].name; i++) {
            if (cJSON_IsString(v) && strcmp(v->valuestring, tune_optimizers[i].name) == 0)
                k = i;
            size_t l = strlen(names);
            sfmt(names + l, sizeof names - l, "%s\"%s\"", i ? ", " : "", tune_optimizers[i].name);
        }
        if (k < 0)
            return lbad(c, "search.optimizer", "expected one of %s, got %s", names, describe(v, got, sizeof got));
        s->optimizer = k;
    }
    return 0;
}

/* See tune.h: 3 significant digits are finer than any difference a run can tell, and read well. */
void tune_value_text(const struct tune_param *p, double x, char *out, size_t len, double *rounded)
{
    if (p->scale == TUNE_CHOICE) {
        int k = (int)x;
        k = k < 0 ? 0 : k >= p->n_choices ? p->n_choices - 1 : k;
        sfmt(out, len, "%s", p->choice[k]);
        *rounded = k;
        return;
    }
    double r = x;
    if (p->step > 0) {
        /* The multiples of step within the range: the values a device can hold (g in 1/1024ths, timers in us). */
        r = round(x / p->step) * p->step;
        if (r < p->lo)
            r += p->step * ceil((p->lo - r) / p->step);
        if (r > p->hi)
            r -= p->step * ceil((r - p->hi) / p->step);
        if (r < p->lo) /* no multiple inside the range: the nearest end */
            r = p->lo;
    } else if (x != 0) {
        double mag = pow(10, floor(log10(fabs(x))) - 2);
        r = round(x / mag) * mag;
        /* %.3g gives the decimal digits exactly; the double that reads back from them is the value. */
        char t[40];
        snprintf(t, sizeof t, "%.3g", r);
        r = strtod(t, NULL);
    }
    if (p->qty != SETTING_NUMBER || p->scale == TUNE_INT)
        r = round(r);
    if (p->step <= 0)
        r = r < p->lo ? p->lo : r > p->hi ? p->hi : r;
    *rounded = r;
    char b[64];
    switch (p->qty) {
    case SETTING_SIZE:
        sfmt(out, len, "\"%s\"", units_fmt_size((int64_t)r, b, sizeof b));
        break;
    case SETTING_TIME:
        sfmt(out, len, "\"%s\"", units_fmt_time((int64_t)r, b, sizeof b));
        break;
    case SETTING_RATE:
        sfmt(out, len, "\"%s\"", units_fmt_rate((int64_t)r, b, sizeof b));
        break;
    default:
        sfmt(out, len, "%s", fmt_double(r, b, sizeof b));
    }
}

/* See tune.h. */
bool tune_required_ok(const struct tune_spec *s, const double *x)
{
    for (int i = 0; i < s->n_require; i++) {
        const struct tune_require *r = &s->require[i];
        double a = x[r->a], b = x[r->b];
        bool ok = strcmp(r->op, "<") == 0    ? a < b
                  : strcmp(r->op, "<=") == 0 ? a <= b
                  : strcmp(r->op, ">") == 0  ? a > b
                                             : a >= b;
        if (!ok)
            return false;
    }
    return true;
}

/* Checks that the baseline and the middle of the search box give valid scenarios: a wrong path or a value
 * the scenario refuses is reported now, with the loader's message, rather than as every run failing. */
static int check_loads(struct setting_ctx *c, struct tune_spec *s)
{
    struct scn_override ov[TUNE_MAX_PARAMS + 64];
    int n = 0;
    for (int i = 0; i < s->n_base && n < TUNE_MAX_PARAMS + 64; i++, n++)
        ov[n] = (struct scn_override){s->base_path[i], s->base_text[i]};
    struct scenario scn;
    char e[SCN_ERR_MAX];
    int rc = scn_load(s->scenario, ov, n, &scn, e, sizeof e);
    if (rc) {
        if (rc == SCN_EUSAGE)
            return lbad(c, "baseline", "expected settings that give a valid scenario, got: %s", e);
        sfmt(c->err, c->errlen, "%s", e);
        return rc;
    }
    scn_free(&scn);
    char text[TUNE_MAX_PARAMS][256];
    double x[TUNE_MAX_PARAMS];
    n = 0;
    for (int i = 0; i < s->n_params; i++) {
        const struct tune_param *p = &s->params[i];
        double mid = p->scale == TUNE_LOG ? sqrt(p->lo * p->hi) : p->scale == TUNE_CHOICE ? 0 : (p->lo + p->hi) / 2;
        tune_value_text(p, mid, text[i], sizeof text[i], &x[i]);
        ov[n++] = (struct scn_override){p->path, text[i]};
    }
    rc = scn_load(s->scenario, ov, n, &scn, e, sizeof e);
    if (rc) {
        if (rc == SCN_EUSAGE)
            return lbad(c, "params", "expected ranges that give valid scenarios, got one whose middle does not: %s", e);
        sfmt(c->err, c->errlen, "%s", e);
        return rc;
    }
    scn_free(&scn);
    return 0;
}

/* "description" and "scenario": the scenario must load as it is, so that a broken one is reported as itself and
 * not as every run of the tune failing. */
static int parse_scenario_ref(struct setting_ctx *c, struct tune_spec *s, const cJSON *root)
{
    char got[128];
    int rc;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "description")) && !cJSON_IsString(v))
        return lbad(c, "description", "expected a string, got %s", describe(v, got, sizeof got));
    v = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsString(v) || !*v->valuestring)
        return lbad(c, "scenario", "expected the path of a scenario file, got %s", describe(v, got, sizeof got));
    if ((rc = resolve_input_file(c, "scenario", v->valuestring, s->scenario, sizeof s->scenario)) ||
        (rc = read_text_file(s->scenario, &s->scenario_text, c->err, c->errlen)))
        return rc;
    struct scenario base;
    if ((rc = scn_load(s->scenario, NULL, 0, &base, c->err, c->errlen)))
        return rc;
    scn_free(&base);
    return 0;
}

/* "params" and "require": the search box and the rules between its parameters. */
static int parse_box(struct setting_ctx *c, struct tune_spec *s, const cJSON *root)
{
    char got[128], w[600];
    int rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > TUNE_MAX_PARAMS)
        return lbad(c, "params", "expected an object of 1 to %d scenario paths with their ranges, like "
                                 "{\"host.dcqcn.g\": {\"min\": 0.002, \"max\": 0.5, \"scale\": \"log\"}}, got %s",
                    TUNE_MAX_PARAMS, describe(v, got, sizeof got));
    for (const cJSON *it = v->child; it; it = it->next) {
        sfmt(w, sizeof w, "params[\"%.300s\"]", it->string);
        if ((rc = parse_param(c, it, &s->params[s->n_params++], w)))
            return rc;
    }
    if (!(v = cJSON_GetObjectItemCaseSensitive(root, "require")))
        return 0;
    if (!cJSON_IsArray(v))
        return lbad(c, "require", "expected an array of rules like [\"switch.ecn.kmin < switch.ecn.kmax\"], got %s",
                    describe(v, got, sizeof got));
    s->require = mem_xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *s->require, "in tune");
    for (const cJSON *it = v->child; it; it = it->next) {
        sfmt(w, sizeof w, "require[%d]", s->n_require);
        if ((rc = parse_require(c, s, it, &s->require[s->n_require++], w)))
            return rc;
    }
    return 0;
}

/* "objective" or "objectives", then "constraints": what the tune measures. */
static int parse_goals(struct setting_ctx *c, struct tune_spec *s, const cJSON *root)
{
    char got[128], w[600];
    int rc;
    const cJSON *o1 = cJSON_GetObjectItemCaseSensitive(root, "objective");
    const cJSON *o2 = cJSON_GetObjectItemCaseSensitive(root, "objectives");
    if ((o1 != NULL) == (o2 != NULL))
        return lbad(c, o1 ? "objectives" : "objective", "expected exactly one of \"objective\" (one metric) and "
                                                        "\"objectives\" (two, for a Pareto front), got %s",
                    o1 ? "both" : "neither");
    if (o1) {
        s->n_obj = 1;
        if ((rc = parse_metric(c, s, o1, &s->obj[0], "objective", false)))
            return rc;
    } else {
        if (!cJSON_IsArray(o2) || cJSON_GetArraySize(o2) != 2)
            return lbad(c, "objectives", "expected an array of two objectives, got %s", describe(o2, got, sizeof got));
        for (const cJSON *it = o2->child; it; it = it->next) {
            sfmt(w, sizeof w, "objectives[%d]", s->n_obj);
            if ((rc = parse_metric(c, s, it, &s->obj[s->n_obj++], w, false)))
                return rc;
        }
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "constraints");
    if (!v)
        return 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > TUNE_MAX_CONS)
        return lbad(c, "constraints", "expected an array of at most %d constraints like [{\"metric\": "
                                      "\"pfc.paused_ns_total\", \"max\": 1e6}], got %s",
                    TUNE_MAX_CONS, describe(v, got, sizeof got));
    for (const cJSON *it = v->child; it; it = it->next) {
        sfmt(w, sizeof w, "constraints[%d]", s->n_cons);
        if ((rc = parse_metric(c, s, it, &s->cons[s->n_cons++], w, true)))
            return rc;
    }
    return 0;
}

/* "seeds" and "confirm_seeds": a confirmation seed the search also used would not be an unbiased check. */
static int parse_seeds(struct setting_ctx *c, struct tune_spec *s, const cJSON *root)
{
    char w[600];
    const char *seed_keys[2] = {"seeds", "confirm_seeds"};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, seed_keys[k]);
        if (!v && k == 1)
            break;
        if (!v)
            return lbad(c, "seeds", "expected the seeds every candidate runs with, like [1, 2, 3, 4, 5], got nothing");
        uint64_t *list = NULL;
        int n = 0;
        int rc = parse_seed_list(c, v, seed_keys[k], &list, &n);
        if (!rc && n > TUNE_MAX_SEEDS)
            rc = lbad(c, seed_keys[k], "expected at most %d seeds, got %d", TUNE_MAX_SEEDS, n);
        for (int i = 0; !rc && i < n; i++) {
            if (k == 0) {
                s->seeds[i] = list[i];
                continue;
            }
            s->confirm[i] = list[i];
            for (int j = 0; j < s->n_seeds; j++)
                if (list[i] == s->seeds[j]) {
                    sfmt(w, sizeof w, "confirm_seeds[%d]", i);
                    rc = lbad(c, w, "expected seeds the search does not use, got %llu (it is also seeds[%d])",
                              (unsigned long long)list[i], j);
                    break;
                }
        }
        free(list);
        if (rc)
            return rc;
        if (k == 0)
            s->n_seeds = n;
        else
            s->n_confirm = n;
    }
    return 0;
}

/* "budget": without it, 20 runs per seed. */
static int parse_budget(struct setting_ctx *c, struct tune_spec *s, const cJSON *v)
{
    static const char *const bknown[] = {"runs", NULL};
    char got[128];
    s->budget = 20 * s->n_seeds;
    if (!v)
        return 0;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "runs");
    if (!cJSON_IsObject(v) || setting_check_dups(c, v, "budget") < 0 ||
        setting_check_fields(c, v, "budget", bknown) < 0) {
        if (!cJSON_IsObject(v))
            setting_bad(c, "budget", "expected {\"runs\": 120}, got %s", describe(v, got, sizeof got));
        return SCN_EUSAGE;
    }
    if (!cJSON_IsNumber(r) || r->valuedouble != floor(r->valuedouble) || r->valuedouble < 1 ||
        r->valuedouble > TUNE_MAX_BUDGET)
        return lbad(c, "budget.runs", "expected an integer from 1 to %d, got %s", TUNE_MAX_BUDGET,
                    describe(r, got, sizeof got));
    s->budget = r->valueint;
    return 0;
}

/* See tune.h.  Checks in file order, so the first problem in the file is the one reported. */
int tune_load(const char *file, struct tune_spec *s, char *err, size_t errlen)
{
    static const char *const known[] = {"description", "scenario", "params", "require", "objective", "objectives",
                                        "constraints", "seeds", "confirm_seeds", "baseline", "budget", "search", NULL};
    struct setting_ctx c = {.file = file, .err = err, .errlen = errlen};
    char got[128];
    memset(s, 0, sizeof *s);
    sfmt(s->file, sizeof s->file, "%s", file);
    int rc = read_spec_json(file, &s->root, err, errlen);
    if (rc)
        return rc;
    const cJSON *root = s->root;
    if (!cJSON_IsObject(root)) {
        rc = lbad(&c, "", "expected an object with \"scenario\", \"params\", \"objective\" and \"seeds\", got %s",
                  describe(root, got, sizeof got));
        goto fail;
    }
    if (setting_check_dups(&c, root, "") < 0 || setting_check_fields(&c, root, "", known) < 0) {
        rc = SCN_EUSAGE;
        goto fail;
    }
    if ((rc = parse_scenario_ref(&c, s, root)) || (rc = parse_box(&c, s, root)) || (rc = parse_goals(&c, s, root)) ||
        (rc = parse_seeds(&c, s, root)) ||
        (rc = parse_baseline(&c, s, cJSON_GetObjectItemCaseSensitive(root, "baseline"))) ||
        (rc = parse_budget(&c, s, cJSON_GetObjectItemCaseSensitive(root, "budget"))) ||
        (rc = parse_search(&c, s, cJSON_GetObjectItemCaseSensitive(root, "search"))) || (rc = check_loads(&c, s)))
        goto fail;
    return 0;
fail:
    tune_spec_free(s);
    return rc;
}

/* See tune.h; safe on a zeroed struct. */
void tune_spec_free(struct tune_spec *s)
{
    for (int i = 0; i < s->n_params; i++) {
        free(s->params[i].path);
        for (int k = 0; k < s->params[i].n_choices; k++)
            free(s->params[i].choice[k]);
        free(s->params[i].choice);
    }
    for (int i = 0; i < s->n_obj; i++)
        flowset_free(&s->obj[i].flows);
    for (int i = 0; i < s->n_cons; i++)
        flowset_free(&s->cons[i].flows);
    for (int i = 0; i < s->n_base; i++) {
        free(s->base_path[i]);
        free(s->base_text[i]);
    }
    free(s->base_path);
    free(s->base_text);
    free(s->require);
    free(s->scenario_text);
    cJSON_Delete(s->root);
    memset(s, 0, sizeof *s);
}
