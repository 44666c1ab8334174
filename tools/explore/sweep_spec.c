/* sweep_spec — a sweep file read and checked, and its grid points (see sweep_spec.h). */
#include "tools/explore/sweep_spec.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "tools/explore/metric.h"
#include "tools/explore/specfile.h"
#include "tools/common/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000000
#define MAX_SETS 256

/* ------------------------------------------------------------------------ */
/* Loading the sweep file                                                    */

/* Writes "FILE: PATH: message" into the error buffer, in the scenario loader's wording; is SCN_EUSAGE. */
#define lbad(c, ...) (setting_bad((c), __VA_ARGS__), SCN_EUSAGE)

/* The scenario loader's wording for a JSON value in a "got ..." clause: one validator for both files. */
#define describe setting_describe

/* Splits a grid key "a,b" into trimmed paths; returns 0 or SCN_EUSAGE (bad path) with a message. */
static int parse_grid_key(struct setting_ctx *c, const char *key, struct sweep_dim *d, const char *where)
{
    char *copy = mem_xstrdup(key, "in sweep");
    int n = 1;
    for (const char *p = key; *p; p++)
        n += *p == ',';
    d->paths = mem_xcalloc((size_t)n, sizeof *d->paths, "in sweep");
    char *tok = copy;
    int k = 0;
    for (;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        while (isspace((unsigned char)*tok))
            tok++;
        size_t l = strlen(tok);
        while (l && isspace((unsigned char)tok[l - 1]))
            tok[--l] = '\0';
        if (!dotted_path_ok(tok)) {
            free(copy);
            return lbad(c, where, "expected a dotted scenario path like \"switch.ecn.kmin\" (or several joined by "
                                  "commas), got \"%.80s\"", key);
        }
        if (strcmp(tok, "seed") == 0) {
            free(copy);
            return lbad(c, where, "expected a scenario path other than \"seed\", got \"seed\" (list the seeds in "
                                  "\"seeds\")");
        }
        /* The settings tables know every field a path can name: a misspelt one is reported here, at its key. */
        char msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
        scn_register_settings();
        if (settings_check_path(tok, msg, sizeof msg, at, sizeof at) < 0) {
            free(copy);
            return lbad(c, where, "%s", msg);
        }
        d->paths[k++] = mem_xstrdup(tok, "in sweep");
        d->n_paths = k;
        if (!comma)
            break;
        tok = comma + 1;
    }
    free(copy);
    return 0;
}

/* Reads the values of one grid dimension; returns 0 or SCN_EUSAGE with a message. */
static int parse_grid_values(struct setting_ctx *c, const cJSON *arr, struct sweep_dim *d, const char *where)
{
    char got[128], p[600];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return lbad(c, where, "expected a non-empty array of values, got %s", describe(arr, got, sizeof got));
    d->n_values = cJSON_GetArraySize(arr);
    d->text = mem_xcalloc((size_t)d->n_values, sizeof *d->text, "in sweep");
    d->value = mem_xcalloc((size_t)d->n_values, sizeof *d->value, "in sweep");
    int v = 0;
    for (const cJSON *it = arr->child; it; it = it->next, v++) {
        sfmt(p, sizeof p, "%s[%d]", where, v);
        d->text[v] = mem_xcalloc((size_t)d->n_paths, sizeof **d->text, "in sweep");
        d->value[v] = mem_xcalloc((size_t)d->n_paths, sizeof **d->value, "in sweep");
        if (d->n_paths > 1 && (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != d->n_paths))
            return lbad(c, p, "expected an array of %d values (one for each of %s), got %s", d->n_paths, d->key,
                        describe(it, got, sizeof got));
        for (int k = 0; k < d->n_paths; k++) {
            cJSON *item = d->n_paths > 1 ? cJSON_GetArrayItem(it, k) : (cJSON *)it;
            d->value[v][k] = item;
            d->text[v][k] = cJSON_PrintUnformatted(item);
            if (!d->text[v][k])
                mem_oom("reading the sweep's parameters");
        }
        for (int u = 0; u < v; u++) {
            int same = 1;
            for (int k = 0; k < d->n_paths && same; k++)
                same = strcmp(d->text[u][k], d->text[v][k]) == 0;
            if (same)
                return lbad(c, p, "expected each value once, got %s again (it is also %s[%d])",
                            describe(it, got, sizeof got), where, u);
        }
    }
    return 0;
}

/* Reads "objective"; returns 0 or SCN_EUSAGE with a message (not exactly one of minimize/maximize, bad path). */
static int parse_objective(struct setting_ctx *c, const cJSON *o, struct sweep_spec *s)
{
    char got[128];
    if (!cJSON_IsObject(o) || cJSON_GetArraySize(o) != 1)
        return lbad(c, "objective", "expected {\"minimize\": \"flows.slowdown.p99\"} or {\"maximize\": ...}, got %s",
                    describe(o, got, sizeof got));
    const cJSON *it = o->child;
    if (strcmp(it->string, "minimize") && strcmp(it->string, "maximize"))
        return lbad(c, "objective", "expected the key \"minimize\" or \"maximize\", got \"%.60s\"", it->string);
    s->maximize = it->string[1] == 'a';
    char p[64];
    sfmt(p, sizeof p, "objective.%s", it->string);
    if (!cJSON_IsString(it) || !dotted_path_ok(it->valuestring) || strlen(it->valuestring) >= sizeof s->objective)
        return lbad(c, p, "expected a dotted path into summary.json like \"flows.slowdown.p99\", got %s",
                    describe(it, got, sizeof got));
    sfmt(s->objective, sizeof s->objective, "%s", it->valuestring);
    return 0;
}

/*
 * Checks that some grid point gives a valid scenario: when none does, the
 * grid itself is wrong (a misspelt path, say) and nothing should run.  Stops
 * at the first point that loads, so it usually costs one load.
 */
static int check_some_point_loads(struct setting_ctx *c, const struct sweep_spec *s)
{
    char first[SCN_ERR_MAX] = "";
    struct scn_override ov[MAX_SETS];
    for (int p = 0; p < s->n_points; p++) {
        int n = sweep_point_overrides(s, p, ov, MAX_SETS);
        struct scenario scn;
        char e[SCN_ERR_MAX];
        int rc = scn_load(s->scenario, ov, n, &scn, e, sizeof e);
        if (rc == 0) {
            scn_free(&scn);
            return 0;
        }
        if (rc != SCN_EUSAGE) {
            sfmt(c->err, c->errlen, "%s", e);
            return rc;
        }
        if (!*first)
            sfmt(first, sizeof first, "%s", e);
    }
    return lbad(c, "grid", "expected at least one grid point that gives a valid scenario, got none; the first "
                           "fails with: %s", first);
}

/*
 * Checks that the objective names a field summary.json has: a misspelt name
 * would otherwise show only after every run (it is also no column of
 * results.csv to pick from).  Whether a collective or priority of that index
 * exists depends on the runs and is still found out after them.
 */
static int check_objective_metric(struct setting_ctx *c, const struct sweep_spec *s)
{
    if (metric_known(s->objective))
        return 0;
    char hint[320], p[64];
    metric_hint(s->objective, hint, sizeof hint);
    sfmt(p, sizeof p, "objective.%s", s->maximize ? "maximize" : "minimize");
    bool n = strchr(hint, 'N') != NULL, pr = strchr(hint, 'P') != NULL;
    return lbad(c, p, "expected a numeric field of summary.json, got \"%.80s\", which no summary has; for example "
                      "%s%s%s%s%s", s->objective, hint, n || pr ? " (" : "", n ? "N: a collective's index" : "",
                n && pr ? ", " : "", pr ? "P: a priority 0-7)" : n ? ")" : "");
}

/* See sweep_spec.h.  Checks in file order, so the first problem in the file is the one reported. */
int sweep_load(const char *file, struct sweep_spec *s, char *err, size_t errlen)
{
    static const char *const known[] = {"scenario", "grid", "seeds", "objective", "description", NULL};
    struct setting_ctx c = {.file = file, .err = err, .errlen = errlen};
    char got[128];
    memset(s, 0, sizeof *s);
    sfmt(s->file, sizeof s->file, "%s", file);
    int rrc = read_spec_json(file, &s->root, err, errlen);
    if (rrc)
        return rrc;
    int rc = 0;
    const cJSON *root = s->root;
    if (!cJSON_IsObject(root)) {
        rc = lbad(&c, "", "expected an object with \"scenario\", \"grid\", \"seeds\" and \"objective\", got %s",
                  describe(root, got, sizeof got));
        goto fail;
    }
    /* Duplicate keys and unknown fields: the scenario loader's checks and wording (sim/settings.h). */
    if (setting_check_dups(&c, root, "") < 0 || setting_check_fields(&c, root, "", known) < 0) {
        rc = SCN_EUSAGE;
        goto fail;
    }
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc)) {
        rc = lbad(&c, "description", "expected a string, got %s", describe(desc, got, sizeof got));
        goto fail;
    }
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsString(scn) || !*scn->valuestring) {
        rc = lbad(&c, "scenario", "expected the path of a scenario file, got %s", describe(scn, got, sizeof got));
        goto fail;
    }
    if ((rc = resolve_input_file(&c, "scenario", scn->valuestring, s->scenario, sizeof s->scenario)))
        goto fail;
    if ((rc = read_text_file(s->scenario, &s->scenario_text, err, errlen)))
        goto fail;

    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    if (!cJSON_IsObject(grid) || cJSON_GetArraySize(grid) == 0) {
        rc = lbad(&c, "grid", "expected an object of dotted paths to arrays of values, like {\"host.dcqcn.g\": "
                              "[0.0039, 0.0625]}, got %s", describe(grid, got, sizeof got));
        goto fail;
    }
    s->n_dims = cJSON_GetArraySize(grid);
    s->dims = mem_xcalloc((size_t)s->n_dims, sizeof *s->dims, "in sweep");
    long long points = 1;
    int d = 0;
    for (const cJSON *it = grid->child; it; it = it->next, d++) {
        struct sweep_dim *dim = &s->dims[d];
        char where[400];
        sfmt(where, sizeof where, "grid[\"%.300s\"]", it->string);
        dim->key = mem_xstrdup(it->string, "in sweep");
        if ((rc = parse_grid_key(&c, it->string, dim, where)) || (rc = parse_grid_values(&c, it, dim, where)))
            goto fail;
        for (int e = 0; e <= d; e++)
            for (int k = 0; k < s->dims[e].n_paths; k++)
                for (int m = 0; m < dim->n_paths; m++)
                    if ((e != d || k < m) && strcmp(s->dims[e].paths[k], dim->paths[m]) == 0) {
                        rc = lbad(&c, where, "expected each path once in the grid, got \"%s\" twice",
                                  dim->paths[m]);
                        goto fail;
                    }
        points *= dim->n_values;
        if (points > MAX_RUNS) {
            rc = lbad(&c, "grid", "expected at most %d grid points, got more", MAX_RUNS);
            goto fail;
        }
    }
    s->n_points = (int)points;

    /* The scenario must be valid on its own: its errors are best reported without any override. */
    struct scenario base;
    if ((rc = scn_load(s->scenario, NULL, 0, &base, err, errlen)))
        goto fail;
    uint64_t base_seed = base.seed;
    scn_free(&base);

    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(root, "seeds");
    if (seeds) {
        if ((rc = parse_seed_list(&c, seeds, "seeds", &s->seeds, &s->n_seeds)))
            goto fail;
    } else {
        s->n_seeds = 1;
        s->seeds = mem_xcalloc(1, sizeof *s->seeds, "in sweep");
        s->seeds[0] = base_seed;
    }
    if ((long long)s->n_points * s->n_seeds > MAX_RUNS) {
        rc = lbad(&c, "seeds", "expected at most %d runs (grid points x seeds), got %lld", MAX_RUNS,
                  (long long)s->n_points * s->n_seeds);
        goto fail;
    }
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "objective");
    if (!obj) {
        rc = lbad(&c, "objective", "expected {\"minimize\": \"flows.slowdown.p99\"} or {\"maximize\": ...}, got "
                                   "nothing");
        goto fail;
    }
    if ((rc = parse_objective(&c, obj, s)) || (rc = check_some_point_loads(&c, s)) ||
        (rc = check_objective_metric(&c, s)))
        goto fail;
    return 0;
fail:
    sweep_spec_free(s);
    return rc;
}

/* Frees everything sweep_load allocated and zeroes *s; safe on a zeroed struct. */
void sweep_spec_free(struct sweep_spec *s)
{
    for (int d = 0; s->dims && d < s->n_dims; d++) {
        struct sweep_dim *dim = &s->dims[d];
        for (int v = 0; dim->text && v < dim->n_values; v++) {
            for (int k = 0; dim->text[v] && k < dim->n_paths; k++)
                free(dim->text[v][k]);
            free(dim->text[v]);
            if (dim->value)
                free(dim->value[v]);
        }
        free(dim->text);
        free(dim->value);
        for (int k = 0; dim->paths && k < dim->n_paths; k++)
            free(dim->paths[k]);
        free(dim->paths);
        free(dim->key);
    }
    free(s->dims);
    free(s->seeds);
    free(s->scenario_text);
    cJSON_Delete(s->root);
    memset(s, 0, sizeof *s);
}

/* See sweep_spec.h: the mixed-radix digit of p for dimension d. */
int sweep_point_value(const struct sweep_spec *s, int p, int d)
{
    for (int e = s->n_dims - 1; e > d; e--)
        p /= s->dims[e].n_values;
    return p % s->dims[d].n_values;
}

/* See sweep_spec.h. */
int sweep_point_overrides(const struct sweep_spec *s, int p, struct scn_override *ov, int max)
{
    int n = 0;
    for (int d = 0; d < s->n_dims; d++) {
        int v = sweep_point_value(s, p, d);
        for (int k = 0; k < s->dims[d].n_paths; k++) {
            if (n == max)
                return -1;
            ov[n].path = s->dims[d].paths[k];
            ov[n].value = s->dims[d].text[v][k];
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Naming a grid point                                                       */

/* 64-bit FNV-1a over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* See sweep_spec.h. */
void sweep_point_id(const struct sweep_spec *s, int p, char *out, size_t len)
{
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, s->scenario_text, strlen(s->scenario_text) + 1);
    for (int d = 0; d < s->n_dims; d++) {
        int v = sweep_point_value(s, p, d);
        for (int k = 0; k < s->dims[d].n_paths; k++) {
            h = fnv1a(h, s->dims[d].paths[k], strlen(s->dims[d].paths[k]) + 1);
            h = fnv1a(h, s->dims[d].text[v][k], strlen(s->dims[d].text[v][k]) + 1);
        }
    }
    sfmt(out, len, "%016llx", (unsigned long long)h);
}
