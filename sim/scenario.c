/*
 * scenario — see scenario.h.
 *
 * The loader works in three passes over a cJSON tree: reject duplicate keys
 * (cJSON silently keeps both), apply the --set overrides to the tree, then
 * validate the tree into struct scenario.  Validation stops at the first
 * problem and reports it as one line naming the file and the dotted JSON path,
 * so that every error points at exactly one place the user can fix.
 *
 * The objects of settings (the top level, switch, host) are tables (sim/settings.h) declared here, but every field
 * of switch and host, and the objects under them and the monitor, are the modules' (their groups, the host's and
 * switch's own fields as flat groups: models/nic.c, transport.c, switch.c, ...); the topology, traffic and faults
 * are parsed by hand below, as custom entries of the top level's table: a traffic entry's or a fault's own fields by
 * the table of its kind, a module (models/traffic.h, models/fault.h).
 */
#include "sim/scenario.h"
#include "sim/file.h"
#include "sim/module.h"
#include "sim/settings.h"
#include "sim/sim.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PATH_LEN SETTING_PATH_MAX

/* Loader state shared by every validation function; settings.c sees only its first member. */
struct ctx {
    struct setting_ctx sc;      /* file, error buffer, status, the overrides for "(from --set)" */
    struct scenario *s;
    const struct scn_traffic *traffic; /* the traffic entry whose kind's fields are being parsed */
};

/* The loader's hand-written parts call the shared checks (sim/settings.h) under their old short names. */
#define bad(c, ...) setting_bad(&(c)->sc, __VA_ARGS__)
#define ctx_oom(c) setting_oom(&(c)->sc)
#define describe setting_describe
#define join setting_join
#define join_idx setting_join_idx
#define val_obj(c, ...) setting_val_obj(&(c)->sc, __VA_ARGS__)
#define val_arr(c, ...) setting_val_arr(&(c)->sc, __VA_ARGS__)
#define val_int(c, ...) setting_val_int(&(c)->sc, __VA_ARGS__)
#define val_num(c, ...) setting_val_num(&(c)->sc, __VA_ARGS__)
#define val_qty(c, ...) setting_val_qty(&(c)->sc, __VA_ARGS__)
#define val_str(c, ...) setting_val_str(&(c)->sc, __VA_ARGS__)
#define val_enum(c, ...) setting_val_enum(&(c)->sc, __VA_ARGS__)
#define check_fields(c, ...) setting_check_fields(&(c)->sc, __VA_ARGS__)
#define check_dups(c, ...) setting_check_dups(&(c)->sc, __VA_ARGS__)
#define Q_TIME SETTING_TIME
#define Q_SIZE SETTING_SIZE
#define Q_RATE SETTING_RATE
#define Q_LENGTH SETTING_LENGTH
#define qty_what(q) setting_qty_what(q)

/* The loader's view of a hook's context. */
static struct ctx *loader(struct setting_ctx *sc)
{
    return (struct ctx *)sc;
}



/* calloc that reports failure through the context; returns NULL on failure. */
static void *ctx_calloc(struct ctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        ctx_oom(c);
    return p;
}

/* ------------------------------------------------------------------------ */
/* Typed access to JSON values.  Each val_* checks one value at `path`;       */
/* each get_* looks up obj.key and leaves *out untouched when it is absent.   */
/* All return 0 on success and -1 (error written) on failure.                */


/* Returns obj's member `key` (exact case), or NULL when absent. */
static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Fails when obj.key is absent; `what` describes the expected value. */
static int required(struct ctx *c, const cJSON *obj, const char *ppath, const char *key, const char *what)
{
    char p[PATH_LEN];
    if (!member(obj, key))
        return bad(c, join(p, ppath, key), "expected %s, got nothing (this field is required)", what);
    return 0;
}

/* obj.key as an integer in [lo, hi], if present. */
static int get_int(struct ctx *c, const cJSON *obj, const char *ppath, const char *key,
                   long long lo, long long hi, int *out)
{
    char p[PATH_LEN];
    long long x;
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    if (val_int(c, v, join(p, ppath, key), lo, hi, &x) < 0)
        return -1;
    *out = (int)x;
    return 0;
}

/* obj.key as a number in the given range, if present. */
static int get_num(struct ctx *c, const cJSON *obj, const char *ppath, const char *key, double lo, bool lo_open,
                   double hi, bool hi_open, double *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? val_num(c, v, join(p, ppath, key), lo, lo_open, hi, hi_open, out) : 0;
}

/* obj.key as a quantity with a unit, if present. */
static int get_qty(struct ctx *c, const cJSON *obj, const char *ppath, const char *key, enum setting_kind q, bool positive,
                   int64_t *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? val_qty(c, v, join(p, ppath, key), q, positive, out) : 0;
}

/* obj.key as one of names (index stored), if present. */
static int get_enum(struct ctx *c, const cJSON *obj, const char *ppath, const char *key, const char *const *names,
                    int *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? val_enum(c, v, join(p, ppath, key), names, out) : 0;
}

/*
 * Checks a name that ends up in CSV files and messages: non-empty, at most
 * SCN_NAME_MAX-1 bytes, no whitespace, control characters, quotes, commas or
 * the characters in `also_forbidden`.  Copies it into out.
 */
static int val_name(struct ctx *c, const cJSON *v, const char *path, const char *what, const char *also_forbidden,
                    char out[SCN_NAME_MAX])
{
    const char *s = NULL;
    if (val_str(c, v, path, what, &s) < 0)
        return -1;
    size_t n = strlen(s);
    if (n == 0)
        return bad(c, path, "expected %s, got an empty string", what);
    if (n >= SCN_NAME_MAX)
        return bad(c, path, "expected %s of at most %d characters, got \"%.60s...\" (%zu characters)", what,
                   SCN_NAME_MAX - 1, s, n);
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isspace(ch) || iscntrl(ch) || ch == ',' || ch == '"' || (ch && strchr(also_forbidden, ch))) {
            char extra[32] = "";
            size_t used = 0;
            for (const char *f = also_forbidden; *f; f++)
                used += (size_t)setting_strf(extra + used, sizeof extra - used, "%s\"%c\"", f[1] ? ", " : " or ", *f);
            return bad(c, path, "expected %s without whitespace, quotes%s commas%s, got \"%s\"", what,
                       *also_forbidden ? "," : " or", extra, s);
        }
    }
    memcpy(out, s, n + 1);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Duplicate keys, comments, overrides                                        */

char *scn_strip_comments(const char *text, size_t *unclosed_at)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    *unclosed_at = SIZE_MAX;
    if (!out)
        return NULL;
    memcpy(out, text, n + 1);
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        if (in_str) {
            if (out[i] == '\\' && i + 1 < n)
                i++;
            else if (out[i] == '"')
                in_str = false;
        } else if (out[i] == '"') {
            in_str = true;
        } else if (out[i] == '/' && out[i + 1] == '/') {
            while (i < n && out[i] != '\n')
                out[i++] = ' ';
        } else if (out[i] == '/' && out[i + 1] == '*') {
            size_t start = i;
            out[i++] = ' ';
            out[i] = ' ';
            while (++i < n && !(out[i] == '*' && out[i + 1] == '/'))
                if (out[i] != '\n')
                    out[i] = ' ';
            if (i >= n) {
                *unclosed_at = start;
                break;
            }
            out[i++] = ' ';
            out[i] = ' ';
        }
    }
    return out;
}

/*
 * Returns a copy of text without comments (see scn_strip_comments), or NULL
 * with the error written when a block comment is not closed or memory runs out.
 */
static char *strip_comments(struct ctx *c, const char *text)
{
    size_t start;
    char *out = scn_strip_comments(text, &start);
    if (!out) {
        ctx_oom(c);
        return NULL;
    }
    if (start != SIZE_MAX) {
        int line = 1, col = 1;
        for (size_t k = 0; k < start; k++, col++)
            if (text[k] == '\n') {
                line++;
                col = 0;
            }
        setting_strf(c->sc.err, c->sc.errlen, "%s:%d:%d: expected \"*/\" to close this comment, got end of file", c->sc.file, line,
             col);
        c->sc.status = SCN_EUSAGE;
        free(out);
        return NULL;
    }
    return out;
}

/* The number of arrays and objects open just before end (brackets inside strings do not count). */
static int depth_at(const char *text, const char *end)
{
    int d = 0;
    bool str = false;
    for (const char *p = text; p < end; p++) {
        if (str) {
            if (*p == '\\' && p + 1 < end)
                p++;
            else if (*p == '"')
                str = false;
        } else if (*p == '"') {
            str = true;
        } else if (*p == '[' || *p == '{') {
            d++;
        } else if (*p == ']' || *p == '}') {
            d--;
        }
    }
    return d;
}

/* See scenario.h. */
long scn_utf8_bad_at(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (long i = 0; p[i];) {
        unsigned char b = p[i], lo = 0x80, hi = 0xbf;
        int more;
        if (b < 0x80) {
            i++;
            continue;
        }
        if (b >= 0xc2 && b <= 0xdf)
            more = 1;
        else if (b >= 0xe0 && b <= 0xef)
            more = 2, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
        else if (b >= 0xf0 && b <= 0xf4)
            more = 3, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
        else
            return i;
        /* The checks stop at the string's NUL, which is no continuation byte. */
        if (p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (int k = 2; k <= more; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xbf)
                return i;
        i += more + 1;
    }
    return -1;
}

/*
 * Which string of JSON text (counting keys and values from 0, in the order
 * they appear) first holds the escape \u0000, or -1.  cJSON decodes it into a
 * NUL that silently ends the C string ("a\u0000b" becomes "a"), so it can only
 * be seen in the text.  The text is known to parse.
 */
static long nul_escape_string(const char *text)
{
    long k = -1;
    bool str = false;
    for (const char *p = text; *p; p++) {
        if (!str) {
            if (*p == '"')
                str = true, k++;
        } else if (*p == '"') {
            str = false;
        } else if (*p == '\\') {
            if (strncmp(p + 1, "u0000", 5) == 0)
                return k;
            if (p[1])
                p++;
        }
    }
    return -1;
}

/* One key (key true) or string value at path; has_nul: the text held \u0000 where cJSON cut it. */
static int check_one_string(struct ctx *c, const char *path, const char *text, bool has_nul, bool key)
{
    long bad_at;
    if (has_nul)
        return bad(c, path, "expected %s without NUL characters, got \\u0000 at offset %zu",
                   key ? "a field name" : "text", strlen(text));
    if ((bad_at = scn_utf8_bad_at(text)) >= 0)
        return bad(c, path, "expected %s, got an invalid byte 0x%02x at offset %ld",
                   key ? "a field name in UTF-8" : "UTF-8 text", (unsigned char)text[bad_at], bad_at);
    return 0;
}

/*
 * Checks every key and string value under v, in text order (the order cJSON
 * keeps, and the order nul_escape_string counts in): UTF-8 (outputs such as
 * summary.json must stay valid JSON), and no \u0000 (string number nul_at).
 */
static int check_strings(struct ctx *c, const cJSON *v, const char *path, long nul_at, long *k)
{
    if (cJSON_IsString(v))
        return check_one_string(c, path, v->valuestring, ++*k == nul_at, false);
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        char p[PATH_LEN];
        if (cJSON_IsObject(v)) {
            if (check_one_string(c, path, it->string, ++*k == nul_at, true) < 0)
                return -1;
            join(p, path, it->string);
        } else {
            join_idx(p, path, i);
        }
        if (check_strings(c, it, p, nul_at, k) < 0)
            return -1;
    }
    return 0;
}

/* check_strings over a tree parsed from text, which sits at path. */
static int check_text(struct ctx *c, const char *text, const cJSON *root, const char *path)
{
    long k = -1;
    return check_strings(c, root, path, nul_escape_string(text), &k);
}

/* ------------------------------------------------------------------------ */
/* Exact integers: seeds                                                      */

/* See scenario.h. */
int scn_seed_parse(const char *s, size_t n, uint64_t *out)
{
    uint64_t x = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || __builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, s[i] - '0', &x))
            return -1;
    }
    *out = x;
    return 0;
}

/*
 * The next number of JSON text at *cur, outside strings: its first character and its length (the characters
 * cJSON's number parser takes), or NULL past the last one.  Literals (true, false, null) hold no digit or '-'.
 */
static const char *next_number(const char **cur, size_t *len)
{
    bool str = false;
    for (const char *p = *cur; *p; p++) {
        if (str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                str = false;
        } else if (*p == '"') {
            str = true;
        } else if (*p == '-' || isdigit((unsigned char)*p)) {
            const char *start = p;
            while (*p && strchr("0123456789+-eE.", *p))
                p++;
            *len = (size_t)(p - start);
            *cur = p;
            return start;
        }
    }
    return NULL;
}

/*
 * cJSON reads every number as a double, which holds integers exactly only up to 2^53: a seed of 2^53 + 1 would
 * read as 2^53.  So the text of each number at or beyond 2^53 is kept in its valuestring (which cJSON_Delete
 * frees and cJSON_Duplicate copies, whatever the item's type), read exactly by scn_json_seed.  The tree's
 * numbers are in the text's order, so the k-th number item is the k-th number of the text.  -1: out of memory.
 */
static int keep_number_text(cJSON *v, const char **cur)
{
    if (cJSON_IsNumber(v)) {
        size_t len = 0;
        const char *tok = next_number(cur, &len);
        if (tok && !(fabs(v->valuedouble) < 0x1p53)) {
            if (!(v->valuestring = malloc(len + 1)))
                return -1;
            memcpy(v->valuestring, tok, len);
            v->valuestring[len] = '\0';
        }
        return 0;
    }
    for (cJSON *it = v->child; it; it = it->next)
        if (keep_number_text(it, cur) < 0)
            return -1;
    return 0;
}

/* See scenario.h. */
int scn_json_seed(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return -1;
    if (v->valuestring)
        return scn_seed_parse(v->valuestring, strlen(v->valuestring), out);
    double d = v->valuedouble;
    if (!(d >= 0 && d < 0x1p53) || d != floor(d))
        return -1; /* a number this large without its text was not read by the loader's parser: not exact */
    *out = (uint64_t)d;
    return 0;
}

/*
 * Parses text into a tree; returns NULL with a "FILE:LINE:COL: ..." error on a
 * syntax error or nesting deeper than cJSON takes, or "FILE: PATH: ..." for a
 * string that is not UTF-8 or holds \u0000.
 */
static cJSON *parse_json(struct ctx *c, const char *text)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (root) {
        const char *cur = text;
        if (keep_number_text(root, &cur) < 0) {
            cJSON_Delete(root);
            ctx_oom(c);
            return NULL;
        }
        if (check_text(c, text, root, "") == 0)
            return root;
        cJSON_Delete(root);
        return NULL;
    }
    if (!end)
        end = text;
    int line = 1, col = 1;
    const char *ls = text;
    for (const char *p = text; p < end; p++, col++)
        if (*p == '\n') {
            line++;
            col = 0;
            ls = p + 1;
        }
    c->sc.status = SCN_EUSAGE;
    if (!*end) {
        setting_strf(c->sc.err, c->sc.errlen, "%s:%d:%d: expected valid JSON, got the end of the file (is a bracket, brace or "
             "quote left open?)", c->sc.file, line, col);
        return NULL;
    }
    /* cJSON stops at the bracket that would open one level too many, and says no more than at a typo. */
    if ((*end == '[' || *end == '{') && depth_at(text, end) >= CJSON_NESTING_LIMIT) {
        setting_strf(c->sc.err, c->sc.errlen, "%s:%d:%d: expected valid JSON, got arrays and objects nested deeper than %d levels",
             c->sc.file, line, col, CJSON_NESTING_LIMIT);
        return NULL;
    }
    /* Show the line up to and including the offending character, which is usually enough to spot it. */
    const char *from = end - ls > 40 ? end - 40 : ls;
    while (from < end && (*from == ' ' || *from == '\t'))
        from++;
    int len = (int)(end - from) + (*end != '\n' && *end != '\r');
    setting_strf(c->sc.err, c->sc.errlen, "%s:%d:%d: expected valid JSON, got a syntax error here: %.*s <--", c->sc.file, line, col,
         len, from);
    scn_one_line(c->sc.err); /* the excerpt is the file's bytes, control characters included */
    return NULL;
}

/* See scenario.h. */
struct cJSON *scn_parse_json(const char *file, const char *text, char *err, size_t errlen)
{
    char dummy[SCN_ERR_MAX];
    struct ctx c = {.sc = {.file = file, .err = err && errlen ? err : dummy,
                           .errlen = err && errlen ? errlen : sizeof dummy, .status = SCN_EUSAGE}};
    return parse_json(&c, text);
}

/* See scenario.h. */
bool scn_all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/*
 * The value of an override: its text as JSON when it parses, else as a
 * string.  Returns NULL with the error written when memory runs out or a
 * string in it is not UTF-8 or holds \u0000 (the same rules as the file).
 */
static cJSON *override_value(struct ctx *c, const struct scn_override *o, const char *path)
{
    const char *text = o->value ? o->value : "";
    cJSON *val = cJSON_ParseWithOpts(text, NULL, 1);
    long k = -1, nul_at = val ? nul_escape_string(text) : -1;
    const char *cur = text;
    if (val && keep_number_text(val, &cur) < 0) {
        cJSON_Delete(val);
        ctx_oom(c);
        return NULL;
    }
    if (!val && !(val = cJSON_CreateString(text))) {
        ctx_oom(c);
        return NULL;
    }
    if (check_strings(c, val, path, nul_at, &k) < 0) {
        cJSON_Delete(val);
        return NULL;
    }
    return val;
}

/*
 * Applies one --set PATH=VALUE to the tree.  Intermediate objects are created
 * when missing; numeric components index arrays.  The normalized path is
 * written into norm.  Returns 0, or -1 with the error written.
 */
static int apply_override(struct ctx *c, cJSON *root, const struct scn_override *o, char norm[PATH_LEN])
{
    char tmp[PATH_LEN], shown[PATH_LEN], d[96];
    norm[0] = '\0';
    if (!o->path || !*o->path || strlen(o->path) >= PATH_LEN)
        return bad(c, "--set", "expected a dotted path like \"switch.ecn.kmin\", got \"%.60s\"",
                   o->path ? o->path : "");
    setting_strf(tmp, sizeof tmp, "%s", o->path);
    /* Count components first: the last one receives the value. */
    int ncomp = 1;
    for (const char *p = tmp; *p; p++)
        ncomp += *p == '.';
    cJSON *cur = root;
    char *comp = tmp;
    for (int i = 0; i < ncomp; i++) {
        char *dot = strchr(comp, '.');
        if (dot)
            *dot = '\0';
        if (!*comp)
            return bad(c, o->path, "expected a dotted path like \"switch.ecn.kmin\", got \"%s\"",
                       o->path);
        bool last = i == ncomp - 1;
        setting_strf(shown, sizeof shown, "%s", norm);
        if (cJSON_IsArray(cur)) {
            int len = cJSON_GetArraySize(cur);
            if (!scn_all_digits(comp) || strlen(comp) > 9)
                return bad(c, o->path, "expected an index into %s, got \"%s\"", *norm ? norm : "the file",
                           comp);
            int idx = atoi(comp);
            if (idx >= len)
                return bad(c, o->path,
                           "expected an index from 0 to %d into %s (it has %d entr%s), got %d", len - 1,
                           norm, len, len == 1 ? "y" : "ies", idx);
            join_idx(norm, shown, idx);
            if (last) {
                cJSON *val = override_value(c, o, norm);
                if (!val)
                    return -1;
                cJSON_ReplaceItemInArray(cur, idx, val);
                return 0;
            }
            cur = cJSON_GetArrayItem(cur, idx);
        } else if (cJSON_IsObject(cur)) {
            join(norm, shown, comp);
            cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, comp);
            if (last) {
                cJSON *val = override_value(c, o, norm);
                if (!val)
                    return -1;
                if (next)
                    cJSON_ReplaceItemInObjectCaseSensitive(cur, comp, val);
                else
                    cJSON_AddItemToObject(cur, comp, val);
                return 0;
            }
            if (!next) {
                next = cJSON_CreateObject();
                if (!next)
                    return ctx_oom(c);
                cJSON_AddItemToObject(cur, comp, next);
            }
            cur = next;
        } else {
            return bad(c, o->path, "expected %s to be an object or an array to set \"%s\" in, got %s",
                       *norm ? norm : "the file", comp, describe(cur, d, sizeof d));
        }
        comp = dot + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Switch and host: the settings tables (sim/settings.h)                     */


/* See scenario.h. */
bool scn_host_equal(const struct scn_host *a, const struct scn_host *b)
{
    return settings_mods_equal(&a->mods, &b->mods);
}

/* See scenario.h. */
int (*scn_host_priority)(const struct scn_host *h);
bool (*scn_service_levels)(const struct scenario *s);

/* ---- Settings by port speed (struct scn_rate_map) ---- */

/* See scenario.h.  "Nearest" is by rate ratio, so 200G is as near to 100G as to 400G (the lower wins a tie). */
bool scn_rate_value(const struct scn_rate_map *m, double scalar, int64_t rate_bps, bool is_size, double *out)
{
    if (m->n == 0) {
        *out = scalar;
        return true;
    }
    int best = 0;
    double best_d = INFINITY;
    for (int i = 0; i < m->n; i++) {
        if (m->rate[i] == rate_bps) {
            *out = m->val[i];
            return true;
        }
        double d = fabs(log((double)rate_bps / (double)m->rate[i]));
        if (d < best_d - 1e-12 || (fabs(d - best_d) <= 1e-12 && m->rate[i] < m->rate[best])) {
            best = i;
            best_d = d;
        }
    }
    if (!m->linear)
        return false;
    *out = is_size ? floor(m->val[best] * ((double)rate_bps / (double)m->rate[best]) + 0.5) : m->val[best];
    return true;
}

/* The profile a path lies in ("profiles.2.switch.ecn.kmin" -> 2), or -1 for the global objects. */
static int16_t path_profile(const char *p)
{
    return strncmp(p, "profiles.", 9) == 0 ? (int16_t)atoi(p + 9) : -1;
}

/* See scenario.h. */
int scn_parse_rate_map(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, bool is_size,
                       struct scn_rate_map *m)
{
    struct ctx *c = loader(sc);
    char q[PATH_LEN], d[96];
    memset(m, 0, sizeof *m);
    m->profile = path_profile(p);
    for (const cJSON *it = v->child; it; it = it->next) {
        join(q, p, it->string);
        if (strcmp(it->string, "scale") == 0) {
            if (!cJSON_IsString(it) || (strcmp(it->valuestring, "linear") && strcmp(it->valuestring, "none")))
                return bad(c, q, "expected \"linear\" or \"none\", got %s", describe(it, d, sizeof d));
            m->linear = strcmp(it->valuestring, "linear") == 0;
            continue;
        }
        int64_t rate;
        char uerr[SCN_ERR_MAX / 2];
        if (units_parse_rate(it->string, &rate, uerr, sizeof uerr) < 0 || rate <= 0)
            return bad(c, q, "expected a rate like \"100Gbps\" as the key (or \"scale\"), got \"%.60s\"", it->string);
        if (m->n == SCN_RATE_MAP_MAX)
            return bad(c, q, "expected at most %d rates in a map by rate, got more", SCN_RATE_MAP_MAX);
        for (int i = 0; i < m->n; i++)
            if (m->rate[i] == rate)
                return bad(c, q, "expected each rate once, got \"%.60s\" again", it->string);
        if (is_size) {
            int64_t b;
            if (val_qty(c, it, q, Q_SIZE, f->flags & SETTING_POSITIVE, &b) < 0)
                return -1;
            m->val[m->n] = (double)b;
        } else if (val_num(c, it, q, f->lo, f->flags & SETTING_LO_OPEN, f->hi, f->flags & SETTING_HI_OPEN,
                           &m->val[m->n]) < 0) {
            return -1;
        }
        m->rate[m->n++] = rate;
    }
    if (m->n == 0)
        return bad(c, p, "expected at least one rate in a map by rate like {\"100Gbps\": ...}, got none");
    return 0;
}

/* See scenario.h. */
void scn_dump_rate_map(cJSON *o, const char *name, const struct scn_rate_map *m, bool is_size)
{
    cJSON *mo = cJSON_AddObjectToObject(o, name);
    for (int i = 0; mo && i < m->n; i++) {
        char r[40], b[40];
        units_fmt_rate(m->rate[i], r, sizeof r);
        if (is_size)
            cJSON_AddStringToObject(mo, r, units_fmt_size((int64_t)m->val[i], b, sizeof b));
        else
            cJSON_AddNumberToObject(mo, r, m->val[i]);
    }
    if (mo && m->linear)
        cJSON_AddStringToObject(mo, "scale", "linear");
}

/* See scenario.h. */
int scn_parse_value_or_map(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base,
                           size_t map_off)
{
    struct ctx *c = loader(sc);
    struct scn_rate_map *m = (struct scn_rate_map *)((char *)base + map_off);
    bool is_size = f->kind == SETTING_SIZE;
    if (cJSON_IsObject(v)) {
        if (scn_parse_rate_map(sc, f, v, p, is_size, m) < 0)
            return -1;
        if (is_size)
            *(int64_t *)((char *)base + f->offset) = 0;
        else
            *(double *)((char *)base + f->offset) = 0;
        return 0;
    }
    memset(m, 0, sizeof *m);
    if (is_size)
        return val_qty(c, v, p, Q_SIZE, f->flags & SETTING_POSITIVE, (int64_t *)((char *)base + f->offset));
    return val_num(c, v, p, f->lo, f->flags & SETTING_LO_OPEN, f->hi, f->flags & SETTING_HI_OPEN,
                   (double *)((char *)base + f->offset));
}

/* See scenario.h. */
void scn_dump_value_or_map(cJSON *o, const struct setting *f, const void *base, size_t map_off)
{
    const struct scn_rate_map *m = (const struct scn_rate_map *)((const char *)base + map_off);
    char b[40];
    if (m->n)
        scn_dump_rate_map(o, f->name, m, f->kind == SETTING_SIZE);
    else if (f->kind == SETTING_SIZE)
        cJSON_AddStringToObject(o, f->name, units_fmt_size(*(const int64_t *)((const char *)base + f->offset), b,
                                                          sizeof b));
    else
        cJSON_AddNumberToObject(o, f->name, *(const double *)((const char *)base + f->offset));
}

/*
 * Every field of the switch object is a module's: its own fields flat groups (models/switch.c, lfc.c, deadlock.c),
 * its objects module groups (pfc.c, ecn.c, sched.c, pfcwd.c), each placed by the member it follows (`after`), so
 * that the dump, docs/scenario.md and the order of errors keep theirs.
 */
static const struct setting switch_fields[] = {
    {0},
};

/* Every field of the host object is a module's (flat groups: models/nic.c, cc.c, transport.c, and each congestion
 * control's group). */
static const struct setting host_fields[] = {
    {0},
};

/* See scenario.h. */
void scn_utf8_clean(char *s)
{
    for (long at; (at = scn_utf8_bad_at(s)) >= 0;)
        s[at] = '?';
}

/* See scenario.h. */
void scn_name_clean(char *name, size_t len, const char *fallback)
{
    scn_utf8_clean(name);
    for (char *p = name; *p; p++)
        if (*p == '\\' || iscntrl((unsigned char)*p))
            *p = '_';
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        setting_strf(name, len, "%s", fallback);
}

/* Fills every field that has a default; returns -1 only when memory runs out. */
static int set_defaults(struct ctx *c, struct scenario *s, const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    if (n == 0) {
        base = "scenario";
        n = strlen(base);
    }
    if (n >= SCN_NAME_MAX)
        n = SCN_NAME_MAX - 1;
    memcpy(s->name, base, n);
    s->name[n] = '\0';
    scn_name_clean(s->name, sizeof s->name, "scenario");
    return settings_defaults(&c->sc, settings_find(""), s);
}

/* ------------------------------------------------------------------------ */
/* Topology                                                                  */

/* The shapes themselves are modules of kind "topology" (topologies/topo.h): the loader reads "type" against
 * the registry and hands the rest of the object to the module's parse hook, with the link and count readers
 * below, which every shape shares so that its messages read alike. */

static cJSON *add_link(cJSON *o, const char *key, const struct scn_link *l);

/* See scenario.h. */
const struct scn_topo_hooks *scn_topo_hooks(const struct scenario *s)
{
    const struct module *m = module_at("topology", s->topo.type);
    return m ? m->ops : NULL;
}

/* See scenario.h. */
struct memest_counts memest_topology(const struct scenario *s, double hosts)
{
    struct memest_counts c = {hosts, 0, 0, hosts, 0};
    scn_topo_hooks(s)->size(s->topo.cfg, hosts, &c);
    c.routing_bytes = memest_routing_bytes(&c);
    return c;
}

/* See scenario.h. */
void memest_host_rates(const struct scenario *s, double *rate)
{
    scn_topo_hooks(s)->host_rates(s->topo.cfg, s->topo.n_hosts, rate);
}

/* See scenario.h. */
const char *scn_topo_name(const struct scenario *s)
{
    const struct module *m = module_at("topology", s->topo.type);
    return m ? m->name : "?";
}

/* See scenario.h. */
int scn_topo_link_fields(struct setting_ctx *sc, const cJSON *o, const char *path, struct scn_link *l)
{
    struct ctx *c = loader(sc);
    char p[PATH_LEN];
    if (required(c, o, path, "rate", qty_what(Q_RATE)) < 0 ||
        get_qty(c, o, path, "rate", Q_RATE, true, &l->rate_bps) < 0)
        return -1;
    const cJSON *delay = member(o, "delay"), *length = member(o, "length");
    if (delay && length)
        return bad(c, join(p, path, "length"),
                   "expected either \"delay\" or \"length\", got both (the delay follows from the length)");
    l->delay_ps = PS_PER_US;
    l->length_mm = 0;
    if (delay && val_qty(c, delay, join(p, path, "delay"), Q_TIME, false, &l->delay_ps) < 0)
        return -1;
    if (length) {
        if (val_qty(c, length, join(p, path, "length"), Q_LENGTH, true, &l->length_mm) < 0)
            return -1;
        /* its delay is a time like any other: within the engine's clock (setting_val_qty) */
        if (l->length_mm > SIM_TIME_LIMIT / PS_PER_MM) {
            char most[48], end[48];
            return bad(c, p, "expected a length of at most %s (a delay of 5 ns per metre, at most %s, where the "
                       "engine's clock ends), got \"%s\"",
                       units_fmt_length(SIM_TIME_LIMIT / PS_PER_MM, most, sizeof most),
                       setting_time_limit_text(end, sizeof end), length->valuestring);
        }
        l->delay_ps = l->length_mm * PS_PER_MM;
    }
    l->loss_rate = 0;
    return get_num(c, o, path, "loss_rate", 0, false, 1, true, &l->loss_rate);
}

/* See scenario.h. */
int scn_topo_link(struct setting_ctx *sc, const cJSON *obj, const char *ppath, const char *key, struct scn_link *l,
                  bool *given)
{
    static const char *const known[] = {"rate", "delay", "length", "loss_rate", NULL};
    struct ctx *c = loader(sc);
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    *given = v != NULL;
    if (!v)
        return 0;
    join(p, ppath, key);
    if (val_obj(c, v, p) < 0 || check_fields(c, v, p, known) < 0)
        return -1;
    return scn_topo_link_fields(sc, v, p, l);
}

/* See scenario.h. */
int scn_topo_need_link(struct setting_ctx *sc, const cJSON *obj, const char *ppath, const char *key,
                       bool have_default, const struct scn_link *dflt, struct scn_link *l)
{
    bool given;
    if (scn_topo_link(sc, obj, ppath, key, l, &given) < 0)
        return -1;
    if (given)
        return 0;
    if (have_default) {
        *l = *dflt;
        return 0;
    }
    char p[PATH_LEN], what[96];
    setting_strf(what, sizeof what, "a link like {\"rate\": \"100Gbps\", \"delay\": \"1us\"}%s",
             strcmp(key, "link") ? " (or a \"link\" for every tier)" : "");
    return bad(loader(sc), join(p, ppath, key), "expected %s, got nothing (this field is required)", what);
}

/* See scenario.h. */
int scn_topo_link_parse(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    static const char *const known[] = {"rate", "delay", "length", "loss_rate", NULL};
    if (val_obj(loader(sc), v, p) < 0 || check_fields(loader(sc), v, p, known) < 0)
        return -1;
    return scn_topo_link_fields(sc, v, p, (struct scn_link *)((char *)base + f->offset));
}

/* See scenario.h. */
void scn_topo_link_dump(cJSON *o, const struct setting *f, const void *base)
{
    add_link(o, f->name, (const struct scn_link *)((const char *)base + f->offset));
}

/* See scenario.h. */
int scn_topo_link_class(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base,
                        const struct scn_link *fallback)
{
    if (v)
        return scn_topo_link_parse(sc, f, v, p, base);
    /* A given link has a positive rate: a zero rate is "link" absent. */
    if (fallback->rate_bps > 0) {
        *(struct scn_link *)((char *)base + f->offset) = *fallback;
        return 0;
    }
    return bad(loader(sc), p, "expected %s (or a \"link\" for every tier), got nothing (this field is required)",
               SCN_TOPO_LINK_WHAT);
}

/* See scenario.h.  The loader has read it already. */
int scn_topo_type_parse(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return 0;
}

/* See scenario.h. */
int scn_topo_count(struct setting_ctx *sc, const cJSON *obj, const char *ppath, const char *key, int lo, int *out)
{
    struct ctx *c = loader(sc);
    char what[64];
    setting_strf(what, sizeof what, "an integer of at least %d", lo);
    if (required(c, obj, ppath, key, what) < 0)
        return -1;
    return get_int(c, obj, ppath, key, lo, SCN_MAX_COUNT, out);
}

/* See scenario.h. */
int scn_topo_name_field(struct setting_ctx *sc, const cJSON *v, const char *path, char out[SCN_NAME_MAX])
{
    return val_name(loader(sc), v, path, "a node name", ":*", out);
}

/* See scenario.h. */
void scn_topo_dump_link(cJSON *o, const char *key, const struct scn_link *l)
{
    add_link(o, key, l);
}

/* See scenario.h. */
int64_t scn_mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* See scenario.h. */
int scn_cmp_named(const void *a, const void *b)
{
    const struct scn_named *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Whether the topology's node names are known before it is built (a custom topology lists them). */
static bool names_known(const struct scenario *s)
{
    return scn_topo_hooks(s)->node_index != NULL;
}

/* Returns the index of the listed node called name, or -1 (names_known only). */
static int node_index(const struct ctx *c, const char *name)
{
    return scn_topo_hooks(c->s)->node_index(c->s->topo.cfg, name);
}

/* The listed node numbered i (names_known only). */
static const char *node_name(const struct scenario *s, int i)
{
    return scn_topo_hooks(s)->node_name(s->topo.cfg, i);
}

/* Returns whether listed nodes a and b share a link (names_known only). */
static bool nodes_linked(const struct scenario *s, int a, int b)
{
    return scn_topo_hooks(s)->linked(s->topo.cfg, a, b);
}

/* Where the node names are, for messages ("topology.nodes"; names_known only).  Returns buf. */
static const char *names_hint(const struct scenario *s, char *buf, size_t len)
{
    scn_topo_hooks(s)->names_hint(s->topo.cfg, buf, len);
    return buf;
}

/* Builds host_names (and host_by_name when the topology lists its names). */
static int name_hosts(struct ctx *c)
{
    struct scn_topology *t = &c->s->topo;
    const struct scn_topo_hooks *h = scn_topo_hooks(c->s);
    int n = t->n_hosts;
    if (!(t->host_names = ctx_calloc(c, (size_t)n, sizeof *t->host_names)))
        return -1;
    if (h->node_index) {
        struct scn_named *sorted = ctx_calloc(c, (size_t)n, sizeof *sorted);
        if (!sorted || !(t->host_by_name = ctx_calloc(c, (size_t)n, sizeof *t->host_by_name))) {
            free(sorted);
            return -1;
        }
        for (int i = 0; i < n; i++) {
            t->host_names[i] = h->node_name(t->cfg, h->host_node(t->cfg, i));
            sorted[i] = (struct scn_named){t->host_names[i], i};
        }
        qsort(sorted, (size_t)n, sizeof *sorted, scn_cmp_named);
        for (int i = 0; i < n; i++)
            t->host_by_name[i] = sorted[i].idx;
        free(sorted);
        return 0;
    }
    /* "h" + up to 7 digits + NUL: 9 bytes per host at most (n <= 1e6). */
    if (!(t->host_names_buf = ctx_calloc(c, (size_t)n, 9)))
        return -1;
    char *p = t->host_names_buf;
    for (int i = 0; i < n; i++) {
        t->host_names[i] = p;
        p += setting_strf(p, 9, "h%d", i) + 1;
    }
    return 0;
}

/* Reads the topology object tj (NULL when absent) into s->topo and derives n_hosts and the host names. */
static int parse_topology(struct ctx *c, const cJSON *tj)
{
    const char *path = "topology";
    struct scn_topology *t = &c->s->topo;
    /* The registry's names in its numbering (as a SETTING_MODULE field reads them), for the check and the
     * message of a missing type. */
    const char *names[MODULE_MAX + 1];
    char what[SCN_ERR_MAX / 2] = "one of";
    size_t used = strlen(what);
    int n_names = 0;
    for (const struct module *m; (m = module_at("topology", n_names)); n_names++) {
        names[n_names] = m->name;
        used += (size_t)setting_strf(what + used, used < sizeof what ? sizeof what - used : 0, "%s \"%s\"",
                                     n_names ? "," : "", m->name);
    }
    names[n_names] = NULL;

    if (!tj)
        return bad(c, path, "expected a topology like {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": "
                            "\"100Gbps\"}}, got nothing (this field is required)");
    if (val_obj(c, tj, path) < 0 || required(c, tj, path, "type", what) < 0 ||
        get_enum(c, tj, path, "type", names, &t->type) < 0)
        return -1;
    const struct scn_topo_hooks *h = scn_topo_hooks(c->s);
    if (!(t->cfg = ctx_calloc(c, 1, h->cfg_size)))
        return -1;
    int64_t n = 0;
    const char *formula = "";
    if (h->parse(&c->sc, tj, path, t->cfg, &n, &formula) < 0)
        return -1;
    if (n > SCN_MAX_HOSTS)
        /* Say what such a network would cost, as the memory check does for smaller ones (docs/RELIABILITY.md). */
        return bad(c, path, "expected at most %d hosts, got %lld%s; a network that size needs more than %.0f GB "
                   "of memory (routing tables alone)", SCN_MAX_HOSTS, (long long)n, formula,
                   memest_topology(c->s, (double)n).routing_bytes / 1e9);
    if (n < 2)
        return bad(c, path, "expected at least 2 hosts, got %lld%s", (long long)n, formula);
    t->n_hosts = (int)n;
    return name_hosts(c);
}

/* ------------------------------------------------------------------------ */
/* Hosts and host selectors                                                  */

/* Appends a hint listing the host names, for "no such host" messages; returns buf. */
static const char *hosts_hint(const struct ctx *c, char *buf, size_t len)
{
    const struct scn_topology *t = &c->s->topo;
    char where[SCN_ERR_MAX / 4];
    if (names_known(c->s))
        setting_strf(buf, len, "no such host node in %s", names_hint(c->s, where, sizeof where));
    else
        setting_strf(buf, len, "no such host; the hosts are h0..h%d", t->n_hosts - 1);
    return buf;
}

/* Resolves a single host name at path. */
static int val_host(struct ctx *c, const cJSON *v, const char *path, int *out)
{
    const char *name = NULL;
    char hint[SCN_ERR_MAX / 2];
    if (val_str(c, v, path, "a host name like \"h0\"", &name) < 0)
        return -1;
    if ((*out = scn_host_index(c->s, name)) < 0)
        return bad(c, path, "expected a host name, got \"%.60s\" (%s)", name, hosts_hint(c, hint, sizeof hint));
    return 0;
}

/* Splits s[0..len) into a non-digit prefix and a trailing number; returns false when there is no number. */
static bool split_num(const char *s, size_t len, size_t *plen, long long *num)
{
    size_t i = len;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == len || len - i > 9)
        return false;
    *plen = i;
    *num = 0;
    for (size_t k = i; k < len; k++)
        *num = *num * 10 + (s[k] - '0');
    return true;
}

/*
 * Whether sel is a range "h0-h15": some '-' splits it into two names of one prefix, each ending in a number
 * (split_num's).  Every '-' is tried, so that names holding dashes still work; the first that splits gives the
 * prefix length and both ends (in either order) to *plen, *lo, *hi.
 */
static bool name_range(const char *sel, size_t *plen, long long *lo, long long *hi)
{
    size_t len = strlen(sel), rp;
    for (const char *dp = strchr(sel, '-'); dp; dp = strchr(dp + 1, '-')) {
        size_t ll = (size_t)(dp - sel);
        if (split_num(sel, ll, plen, lo) && split_num(dp + 1, len - ll - 1, &rp, hi) && *plen == rp &&
            memcmp(sel, dp + 1, rp) == 0)
            return true;
    }
    return false;
}

/*
 * Resolves a host selector ("all", a host name, a range "h0-h15" or an array
 * of names) into out, in the order given.  Fewer than min_n hosts or a host
 * listed twice is an error.
 */
static int val_hostset(struct ctx *c, const cJSON *v, const char *path, int min_n, struct scn_hostset *out)
{
    static const char what[] = "\"all\", a host name, a range like \"h0-h15\" or an array of host names";
    int nh = c->s->topo.n_hosts;
    char d[96], hint[SCN_ERR_MAX / 2], q[PATH_LEN];
    bool *seen = ctx_calloc(c, (size_t)nh, sizeof *seen);
    if (!seen)
        return -1;
    int rc = -1;
    out->n = 0;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        int one;
        if (strcmp(s, "all") == 0) {
            if (!(out->idx = ctx_calloc(c, (size_t)nh, sizeof *out->idx)))
                goto done;
            for (int i = 0; i < nh; i++)
                out->idx[out->n++] = i;
        } else if ((one = scn_host_index(c->s, s)) >= 0) {
            if (!(out->idx = ctx_calloc(c, 1, sizeof *out->idx)))
                goto done;
            out->idx[out->n++] = one;
        } else {
            size_t lp = 0;
            long long a = 0, b = 0;
            if (!name_range(s, &lp, &a, &b)) {
                if (!strchr(s, '-'))
                    bad(c, path, "expected %s, got \"%.60s\" (%s)", what, s, hosts_hint(c, hint, sizeof hint));
                else
                    bad(c, path, "expected %s, got \"%.60s\"", what, s);
                goto done;
            }
            if (a > b) {
                bad(c, path, "expected a range like \"h0-h15\" whose first host comes before its last, got \"%.60s\" "
                             "(bad range)", s);
                goto done;
            }
            if (b - a + 1 > nh) {
                bad(c, path, "expected a range of existing hosts, got \"%.60s\" (%lld hosts, but the topology has %d)",
                    s, b - a + 1, nh);
                goto done;
            }
            if (!(out->idx = ctx_calloc(c, (size_t)(b - a + 1), sizeof *out->idx)))
                goto done;
            for (long long k = a; k <= b; k++) {
                char name[SCN_NAME_MAX + 16];
                setting_strf(name, sizeof name, "%.*s%lld", (int)lp, s, k);
                int hi = scn_host_index(c->s, name);
                if (hi < 0) {
                    bad(c, path, "expected a range of existing hosts, got \"%.60s\" which includes \"%s\" (%s)", s,
                        name, hosts_hint(c, hint, sizeof hint));
                    goto done;
                }
                if (seen[hi]) {
                    bad(c, path, "expected each host once, got \"%s\" twice", name);
                    goto done;
                }
                seen[hi] = true;
                out->idx[out->n++] = hi;
            }
        }
    } else if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v), i = 0;
        if (!(out->idx = ctx_calloc(c, (size_t)n, sizeof *out->idx)))
            goto done;
        for (const cJSON *it = v->child; it; it = it->next, i++) {
            int hi;
            if (val_host(c, it, join_idx(q, path, i), &hi) < 0)
                goto done;
            if (seen[hi]) {
                bad(c, q, "expected each host once, got \"%s\" again", it->valuestring);
                goto done;
            }
            seen[hi] = true;
            out->idx[out->n++] = hi;
        }
    } else {
        bad(c, path, "expected %s, got %s", what, describe(v, d, sizeof d));
        goto done;
    }
    if (out->n < min_n) {
        bad(c, path, "expected at least %d hosts, got %d", min_n, out->n);
        goto done;
    }
    rc = 0;
done:
    free(seen);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Traffic and faults                                                         */

static void add_hostset(const struct scenario *s, cJSON *o, const char *key, const struct scn_hostset *hs);

/* The loader's context of a kind's hook (scenario.h): the scenario, and the entry whose fields it parses. */
const struct scenario *scn_loading(const struct setting_ctx *c)
{
    return ((const struct ctx *)c)->s;
}

const struct scn_traffic *scn_loading_traffic(const struct setting_ctx *c)
{
    return ((const struct ctx *)c)->traffic;
}

/* The scenario add_traffic dumps, for the kinds' dump hooks (their signature has no room for it); per thread,
 * because runs dump their scenarios on several. */
static _Thread_local const struct scenario *dumping;

const struct scenario *scn_dumping(void)
{
    return dumping;
}

void *scn_keep(struct setting_ctx *c, size_t size)
{
    void *p = settings_store_alloc(c->store, size);
    if (!p)
        setting_oom(c);
    return p;
}

int scn_parse_host(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    return val_host(loader(sc), v, path, (int *)((char *)base + f->offset));
}

void scn_dump_host(cJSON *obj, const struct setting *f, const void *base)
{
    cJSON_AddStringToObject(obj, f->name, scn_host_name(dumping, *(const int *)((const char *)base + f->offset)));
}

/* A host selector of at least f->lo hosts; absent (SETTING_ALWAYS), every host. */
int scn_parse_hostset(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    struct ctx *c = loader(sc);
    struct scn_hostset *hs = (struct scn_hostset *)((char *)base + f->offset), got = {0};
    cJSON *all = v ? NULL : cJSON_CreateString("all");
    if (!v && !all)
        return ctx_oom(c);
    int rc = val_hostset(c, v ? v : all, path, (int)f->lo, &got);
    cJSON_Delete(all);
    /* The loader's copy goes with the scenario's store, as the rest of the entry's fields. */
    int *idx = rc < 0 ? NULL : scn_keep(sc, sizeof *idx * (size_t)(got.n ? got.n : 1));
    if (idx) {
        memcpy(idx, got.idx, sizeof *idx * (size_t)got.n);
        *hs = (struct scn_hostset){got.n, idx};
    }
    free(got.idx);
    return idx ? 0 : -1;
}

void scn_dump_hostset(cJSON *obj, const struct setting *f, const void *base)
{
    add_hostset(dumping, obj, f->name, (const struct scn_hostset *)((const char *)base + f->offset));
}

/* A pinned route from src to dst (see scenario.h). */
int scn_val_route(struct setting_ctx *sc, const cJSON *v, const char *path, int src, int dst, struct scn_route *out)
{
    struct ctx *c = loader(sc);
    char q[PATH_LEN], where[SCN_ERR_MAX / 4];
    if (val_arr(c, v, path, "an array of node names from the source host to the destination host") < 0)
        return -1;
    int n = cJSON_GetArraySize(v), i = 0;
    if (n < 2)
        return bad(c, path, "expected at least 2 node names (source host .. destination host), got %d", n);
    if (!(out->node = scn_keep(sc, (size_t)n * sizeof *out->node)))
        return -1;
    out->n = n;
    int prev = -1;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        join_idx(q, path, i);
        if (val_name(c, it, q, "a node name", "", out->node[i]) < 0)
            return -1;
        if (names_known(c->s)) {
            /* Only a topology with the name hooks (custom, rail) is checked here; others at build time. */
            int ni = node_index(c, out->node[i]);
            if (ni < 0)
                return bad(c, q, "expected the name of a node in %s, got \"%s\"", names_hint(c->s, where, sizeof where),
                           out->node[i]);
            if (prev >= 0 && !nodes_linked(c->s, prev, ni))
                return bad(c, q, "expected a node linked to \"%s\", got \"%s\" (no link between them)",
                           node_name(c->s, prev), out->node[i]);
            prev = ni;
        }
    }
    const char *sn = scn_host_name(c->s, src), *dn = scn_host_name(c->s, dst);
    if (strcmp(out->node[0], sn) != 0)
        return bad(c, join_idx(q, path, 0), "expected the source host \"%s\", got \"%s\"", sn, out->node[0]);
    if (strcmp(out->node[n - 1], dn) != 0)
        return bad(c, join_idx(q, path, n - 1), "expected the destination host \"%s\", got \"%s\"", dn,
                   out->node[n - 1]);
    return 0;
}

void scn_dump_route(cJSON *obj, const struct setting *f, const void *base)
{
    const struct scn_route *r = (const struct scn_route *)((const char *)base + f->offset);
    if (r->n == 0)
        return;
    cJSON *p = cJSON_AddArrayToObject(obj, f->name);
    for (int k = 0; p && k < r->n; k++)
        cJSON_AddItemToArray(p, cJSON_CreateString(r->node[k]));
}

const struct scn_traffic_ops *scn_traffic_ops(const struct scn_traffic *t)
{
    const struct module *m = module_at("traffic", t->type);
    return m ? m->ops : NULL;
}

const char *scn_traffic_kind_name(const struct scn_traffic *t)
{
    const struct module *m = module_at("traffic", t->type);
    return m ? m->name : "?";
}

/* The fields every traffic entry has, and where they stand among its kind's in the list of an unknown field's
 * message; a fault has only its type. */
static const char *const common_head[] = {"type", "id", NULL}, *const common_tail[] = {"start", "priority", "sl", NULL};
static const char *const fault_head[] = {"type", NULL}, *const no_fields[] = {NULL};

/* Entry e's kind, from its "type": one of the registered modules of kind `kind`.  Returns its module, or NULL. */
static const struct module *entry_kind(struct ctx *c, const cJSON *e, const char *path, const char *kind, int *type)
{
    const char *names[MODULE_MAX + 1];
    char what[512] = "one of ", p[PATH_LEN];
    int n = 0;
    for (const struct module *m; (m = module_at(kind, n)); n++) {
        names[n] = m->name;
        size_t k = strlen(what);
        setting_strf(what + k, sizeof what - k, "%s\"%s\"", n ? ", " : "", m->name);
    }
    names[n] = NULL;
    if (required(c, e, path, "type", what) < 0)
        return NULL;
    if (setting_val_enum(&c->sc, member(e, "type"), join(p, path, "type"), names, type) < 0)
        return NULL;
    return module_at(kind, *type);
}

/* The unknown-field check of entry e of kind m: the fields every entry has (head, then tail), and its kind's. */
static int entry_fields(struct ctx *c, const cJSON *e, const char *path, const struct module *m,
                        const char *const *head, const char *const *tail)
{
    const char *known[64];
    int n = 0;
    for (int i = 0; head[i]; i++)
        known[n++] = head[i];
    for (const struct setting *f = m->groups[0] ? m->groups[0]->fields : NULL; f && f->name && n < 60; f++)
        if (f->kind != SETTING_CHECK)
            known[n++] = f->name;
    for (int i = 0; tail[i]; i++)
        known[n++] = tail[i];
    known[n] = NULL;
    return check_fields(c, e, path, known);
}

/* Entry e's own fields into a new struct of its kind's group g (none when the kind has no group) at *conf. */
static int entry_conf(struct ctx *c, const cJSON *e, const char *path, const struct setting_group *g,
                      const char *const *head, const char *const *tail, const void **conf)
{
    if (!g)
        return 0;
    void *base = scn_keep(&c->sc, g->size);
    if (!base)
        return -1;
    /* The kind's table knows only its own fields: it reads a copy without the common ones. */
    cJSON *own = cJSON_Duplicate(e, 1);
    if (!own)
        return ctx_oom(c);
    for (int i = 0; head[i]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(own, head[i]);
    for (int i = 0; tail[i]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(own, tail[i]);
    int rc = settings_defaults(&c->sc, g, base) < 0 ? -1 : settings_parse(&c->sc, g, own, path, base);
    cJSON_Delete(own);
    *conf = base;
    return rc;
}

/* Reads one traffic entry (index i) into tr. */
static int parse_traffic_entry(struct ctx *c, const cJSON *e, const char *path, int i, struct scn_traffic *tr)
{
    char p[PATH_LEN];
    const struct module *m;
    if (val_obj(c, e, path) < 0 || !(m = entry_kind(c, e, path, "traffic", &tr->type)) ||
        entry_fields(c, e, path, m, common_head, common_tail) < 0)
        return -1;
    const cJSON *id = member(e, "id");
    if (id) {
        /* '.' is reserved for the numbered flows of a generator entry ("t3.2"). */
        if (val_name(c, id, join(p, path, "id"), "an id", ".", tr->id) < 0)
            return -1;
        tr->id_given = true;
    } else {
        setting_strf(tr->id, sizeof tr->id, "t%d", i);
    }
    tr->priority = scn_host_priority(&c->s->host);
    tr->priority_given = member(e, "priority") != NULL;
    tr->start_ps = 0;
    tr->start_given = member(e, "start") != NULL;
    tr->sl = -1;
    if (get_int(c, e, path, "priority", 0, 7, &tr->priority) < 0 || get_int(c, e, path, "sl", 0, 15, &tr->sl) < 0 ||
        get_qty(c, e, path, "start", Q_TIME, false, &tr->start_ps) < 0)
        return -1;
    c->traffic = tr;
    int rc = entry_conf(c, e, path, m->groups[0], common_head, common_tail, &tr->conf);
    c->traffic = NULL;
    return rc;
}

/* Reads the traffic array tj (NULL when absent) and checks that ids are unique. */
static int parse_traffic(struct ctx *c, const cJSON *tj)
{
    struct scenario *s = c->s;
    char p[PATH_LEN];
    if (!tj)
        return bad(c, "traffic", "expected a non-empty array of traffic entries like [{\"type\": \"flow\", \"src\": "
                                 "\"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}], got nothing (this field is required)");
    if (val_arr(c, tj, "traffic", "a non-empty array of traffic entries") < 0)
        return -1;
    int n = cJSON_GetArraySize(tj), i = 0;
    if (n == 0)
        return bad(c, "traffic", "expected a non-empty array of traffic entries, got an empty array");
    if (!(s->traffic = ctx_calloc(c, (size_t)n, sizeof *s->traffic)))
        return -1;
    s->n_traffic = n;
    for (const cJSON *it = tj->child; it; it = it->next, i++)
        if (parse_traffic_entry(c, it, join_idx(p, "traffic", i), i, &s->traffic[i]) < 0)
            return -1;

    struct scn_named *sorted = ctx_calloc(c, (size_t)n, sizeof *sorted);
    if (!sorted)
        return -1;
    for (i = 0; i < n; i++)
        sorted[i] = (struct scn_named){s->traffic[i].id, i};
    qsort(sorted, (size_t)n, sizeof *sorted, scn_cmp_named);
    for (i = 1; i < n; i++)
        if (strcmp(sorted[i].name, sorted[i - 1].name) == 0) {
            /* Report at an entry that spelled the id out (an automatic id cannot collide with another). */
            int a = sorted[i - 1].idx, b = sorted[i].idx;
            if (!s->traffic[b].id_given) {
                int t = a;
                a = b;
                b = t;
            }
            free(sorted);
            char q[PATH_LEN];
            setting_strf(q, sizeof q, "traffic.%d.id", b);
            return bad(c, q, "expected a unique id, got \"%s\" (also the %sid of traffic.%d)", s->traffic[b].id,
                       s->traffic[a].id_given ? "" : "automatic ", a);
        }
    free(sorted);
    return 0;
}


/* ------------------------------------------------------------------------ */
/* Profiles                                                                  */

/* See scenario.h. */
bool scn_glob_match(const char *pat, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*pat == '*') {
            star = pat++;
            resume = s;
        } else if (*pat == *s) {
            pat++;
            s++;
        } else if (star) {
            pat = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

/* See scenario.h.  A range follows the host selectors' rule (val_hostset, name_range). */
bool scn_name_match(const char *sel, const char *name)
{
    if (strcmp(sel, "all") == 0 || strcmp(sel, name) == 0)
        return true;
    if (strchr(sel, '*'))
        return scn_glob_match(sel, name);
    size_t lp, np;
    long long a, b, x;
    if (!split_num(name, strlen(name), &np, &x) || !name_range(sel, &lp, &a, &b))
        return false;
    return np == lp && memcmp(sel, name, lp) == 0 && x >= a && x <= b;
}

/* See scenario.h. */
bool scn_sel_is_one_node(const char *sel)
{
    size_t lp;
    long long a, b;
    return strcmp(sel, "all") != 0 && !strchr(sel, '*') && !name_range(sel, &lp, &a, &b);
}

/* See scenario.h.  Traffic ids hold no '.', so "web" never takes a flow of the entry "web2". */
bool scn_flow_of_entry(const char *name, size_t len, const char *entry)
{
    size_t l = strlen(entry);
    return l <= len && memcmp(name, entry, l) == 0 && (l == len || name[l] == '.');
}

/* Whether group g's table has field name with SETTING_PORT (name NULL: any such field). */
static bool port_field(const struct setting_group *g, const char *name)
{
    for (const struct setting *f = g ? g->fields : NULL; f && f->name; f++)
        if (f->kind != SETTING_CHECK && (f->flags & SETTING_PORT) && (!name || strcmp(f->name, name) == 0))
            return true;
    return false;
}

/*
 * What a profile that matches ports may set: the settings a switch keeps per port (SETTING_PORT, docs/scenario.md),
 * listed as "pfc.enabled, ..." into buf: the switch table's own, then its groups', in the order they registered
 * (sim/module.h numbers the modules), which is their order in the switch object.
 */
static void port_fields_list(char *buf, size_t len)
{
    const struct setting_group *sw = settings_find("switch"), *g;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = -1; i < 0 || (g = settings_group_at(i)); i++) {
        if (i < 0)
            g = sw;
        else if (strncmp(g->path, "switch.", 7) != 0 || strchr(g->path + 7, '.'))
            continue;
        for (const struct setting *f = g->fields; f->name && used < len; f++)
            if (f->kind != SETTING_CHECK && (f->flags & SETTING_PORT))
                used += (size_t)setting_strf(buf + used, len - used, "%s%s%s%s", used ? ", " : "", i < 0 ? "" :
                                             g->path + 7, i < 0 ? "" : ".", f->name);
    }
}

static int check_port_fields(struct ctx *c, const cJSON *obj, const char *path)
{
    char what[SCN_ERR_MAX / 2], q[PATH_LEN], r[PATH_LEN];
    const struct setting_group *sw = settings_find("switch");
    for (const cJSON *it = obj->child; it; it = it->next) {
        join(q, path, it->string);
        if (port_field(sw, it->string))
            continue;
        const struct setting_group *g = settings_find(join(r, "switch", it->string));
        const char *bad_at = port_field(g, NULL) ? NULL : q, *name = it->string;
        for (const cJSON *f = cJSON_IsObject(it) ? it->child : NULL; f && !bad_at; f = f->next)
            if (!port_field(g, f->string)) {
                bad_at = join(r, q, f->string);
                name = f->string;
            }
        /* A group's value that is no object is left to the table's parse, which reports it. */
        if (bad_at) {
            port_fields_list(what, sizeof what);
            return bad(c, bad_at, "expected only per-port fields in a profile that matches ports (%s), got \"%.60s\"",
                       what, name);
        }
    }
    return 0;
}

/*
 * The first member of switch profile object obj (in its order) that only the global switch object may set: a field
 * flagged SETTING_FABRIC, or an object whose group is `fabric` or has such a field (the modules' tables say which:
 * the watchdog, the deadlock detector's period, the PAUSE time act on the whole fabric, and a switch of its own
 * would be ignored).  Its path under the object goes to out ("pfc.pause_quanta"); false when there is none.
 */
static bool fabric_member(const cJSON *obj, char *out, size_t len)
{
    char p[PATH_LEN], q[PATH_LEN];
    for (const cJSON *it = obj->child; it; it = it->next) {
        join(p, "switch", it->string);
        const struct setting_group *g = settings_find(p);
        const struct setting *f = g ? NULL : settings_field(p);
        if ((g && g->fabric) || (f && (f->flags & SETTING_FABRIC))) {
            setting_strf(out, len, "%s", it->string);
            return true;
        }
        for (const cJSON *m = g && cJSON_IsObject(it) ? it->child : NULL; m; m = m->next)
            if ((f = settings_field(join(q, p, m->string))) && (f->flags & SETTING_FABRIC)) {
                setting_strf(out, len, "%s.%s", it->string, m->string);
                return true;
            }
    }
    return false;
}

/* One selector string at path: "node:port" (port a number or "*") when ports, else a node selector. */
static int profile_selector(struct ctx *c, const cJSON *v, const char *path, struct scn_profile *pr, int i)
{
    static const char what[] = "\"all\", a node name, a range like \"leaf0-leaf3\", a pattern like \"tor*\", or "
                               "\"node:port\" like \"tor0:3\" or \"spine*:*\"";
    char d[96];
    if (!cJSON_IsString(v) || !*v->valuestring)
        return bad(c, path, "expected %s, got %s", what, describe(v, d, sizeof d));
    const char *sv = v->valuestring;
    if (strlen(sv) >= sizeof pr->match[0])
        return bad(c, path, "expected a selector of at most %d characters, got \"%.60s...\"",
                   (int)sizeof pr->match[0] - 1, sv);
    const char *colon = strchr(sv, ':');
    bool port = colon != NULL;
    if (i > 0 && port != pr->ports)
        return bad(c, path, "expected every selector of a profile to name nodes, or every one ports, got \"%.60s\"",
                   sv);
    pr->ports = port;
    if (port) {
        const char *pp = colon + 1;
        bool num = *pp && strspn(pp, "0123456789") == strlen(pp) && strlen(pp) <= 5;
        if (colon == sv || (!num && strcmp(pp, "*") != 0) || strchr(pp, ':'))
            return bad(c, path, "expected \"node:port\" with a port number or \"*\", like \"tor0:3\", got \"%.60s\"",
                       sv);
    }
    setting_strf(pr->match[i], sizeof pr->match[i], "%s", sv);
    return 0;
}

static int parse_profile(struct ctx *c, const cJSON *e, const char *path, int idx, struct scn_profile *pr)
{
    static const char *const fields[] = {"match", "switch", "host", NULL};
    char q[PATH_LEN];
    if (val_obj(c, e, path) < 0 || check_fields(c, e, path, fields) < 0)
        return -1;
    const cJSON *m = member(e, "match"), *sw = member(e, "switch"), *h = member(e, "host");
    if (!m)
        return bad(c, join(q, path, "match"), "expected the nodes the profile applies to, like \"tor*\" or "
                                              "[\"leaf0-leaf3\"], got nothing (this field is required)");
    if ((sw != NULL) == (h != NULL))
        return bad(c, path, "expected exactly one of \"switch\" and \"host\" in a profile, got %s",
                   sw ? "both" : "neither");
    pr->kind = sw ? SCN_PROFILE_SWITCH : SCN_PROFILE_HOST;
    join(q, path, "match");
    pr->match_array = cJSON_IsArray(m);
    int n = pr->match_array ? cJSON_GetArraySize(m) : 1;
    if (pr->match_array && n == 0)
        return bad(c, q, "expected at least one selector, got an empty array");
    if (!(pr->match = ctx_calloc(c, (size_t)n, sizeof *pr->match)))
        return -1;
    pr->n_match = n;
    if (!pr->match_array) {
        if (profile_selector(c, m, q, pr, 0) < 0)
            return -1;
    } else {
        int i = 0;
        char qi[PATH_LEN];
        for (const cJSON *it = m->child; it; it = it->next, i++)
            if (profile_selector(c, it, join_idx(qi, q, i), pr, i) < 0)
                return -1;
    }
    const cJSON *obj = sw ? sw : h;
    join(q, path, sw ? "switch" : "host");
    if (val_obj(c, obj, q) < 0)
        return -1;
    if (pr->ports && !sw)
        return bad(c, join(q, path, "match"), "expected node selectors in a host profile, got \"%.60s\" (only a "
                                              "switch profile may match ports)", pr->match[0]);
    if (pr->ports && check_port_fields(c, obj, q) < 0)
        return -1;
    char fabric[PATH_LEN], qf[PATH_LEN];
    if (sw && fabric_member(obj, fabric, sizeof fabric))
        return bad(c, join(qf, q, fabric), "expected a setting a switch can have of its own, got switch.%s, which "
                                          "applies to the whole fabric (set it in the switch object)", fabric);
    /* The object is checked over a copy of the global settings, with the loader's usual errors. */
    if (sw) {
        struct scn_switch tmp = c->s->sw;
        if (settings_parse(&c->sc, settings_find("switch"), obj, q, &tmp) < 0)
            return -1;
    } else {
        struct scn_host *tmp = ctx_calloc(c, 1, sizeof *tmp);
        if (!tmp)
            return -1;
        *tmp = c->s->host;
        int rc = settings_parse(&c->sc, settings_find("host"), obj, q, tmp);
        free(tmp);
        if (rc < 0)
            return -1;
    }
    (void)idx;
    if (!(pr->json = cJSON_PrintUnformatted(obj)))
        return ctx_oom(c);
    return 0;
}

static int hook_profiles(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct ctx *c = loader(sc);
    struct scenario *s = base;
    char q[PATH_LEN];
    (void)f;
    if (val_arr(c, v, p, "an array of profiles like [{\"match\": \"tor*\", \"switch\": {...}}]") < 0)
        return -1;
    int n = cJSON_GetArraySize(v), i = 0;
    if (n == 0)
        return 0;
    if (!(s->profiles = ctx_calloc(c, (size_t)n, sizeof *s->profiles)))
        return -1;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        s->n_profiles = i + 1;
        if (parse_profile(c, it, join_idx(q, p, i), i, &s->profiles[i]) < 0)
            return -1;
    }
    return 0;
}

static void dump_profiles(cJSON *o, const struct setting *f, const void *base)
{
    const struct scenario *s = base;
    if (s->n_profiles == 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(o, f->name);
    for (int i = 0; arr && i < s->n_profiles; i++) {
        const struct scn_profile *pr = &s->profiles[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            return;
        cJSON_AddItemToArray(arr, e);
        if (pr->match_array) {
            cJSON *m = cJSON_AddArrayToObject(e, "match");
            for (int k = 0; m && k < pr->n_match; k++)
                cJSON_AddItemToArray(m, cJSON_CreateString(pr->match[k]));
        } else {
            cJSON_AddStringToObject(e, "match", pr->match[0]);
        }
        cJSON *obj = cJSON_Parse(pr->json);
        if (obj)
            cJSON_AddItemToObject(e, pr->kind == SCN_PROFILE_SWITCH ? "switch" : "host", obj);
    }
}

/* See scenario.h. */
int scn_partial_apply(const struct scenario *s, const char *group, const char *json, const char *path, void *base,
                      char *err, size_t errlen)
{
    struct ctx c = {.sc = {.store = s->store, .file = s->file, .err = err, .errlen = errlen, .status = SCN_EUSAGE}};
    scn_register_settings();
    cJSON *obj = cJSON_Parse(json);
    if (!obj) {
        setting_oom(&c.sc);
        return SCN_EIO;
    }
    int rc = settings_parse(&c.sc, settings_find(group), obj, path, base);
    cJSON_Delete(obj);
    return rc < 0 ? c.sc.status : 0;
}

int scn_profile_apply(const struct scenario *s, int i, void *base, char *err, size_t errlen)
{
    const struct scn_profile *pr = &s->profiles[i];
    const char *group = pr->kind == SCN_PROFILE_SWITCH ? "switch" : "host";
    char path[PATH_LEN];
    setting_strf(path, sizeof path, "profiles.%d.%s", i, group);
    return scn_partial_apply(s, group, pr->json, path, base, err, errlen);
}

/* Reads the optional faults array fj: each fault's kind, then its fields by the kind's table. */
static int parse_faults(struct ctx *c, const cJSON *fj)
{
    struct scenario *s = c->s;
    char path[PATH_LEN];
    if (!fj)
        return 0;
    if (val_arr(c, fj, "faults", "an array of faults") < 0)
        return -1;
    int n = cJSON_GetArraySize(fj), i = 0;
    if (!(s->faults = ctx_calloc(c, (size_t)n, sizeof *s->faults)))
        return -1;
    s->n_faults = n;
    for (const cJSON *e = fj->child; e; e = e->next, i++) {
        struct scn_fault *f = &s->faults[i];
        const struct module *m;
        join_idx(path, "faults", i);
        if (val_obj(c, e, path) < 0 || !(m = entry_kind(c, e, path, "fault", &f->type)) ||
            entry_fields(c, e, path, m, fault_head, no_fields) < 0 ||
            entry_conf(c, e, path, m->groups[0], fault_head, no_fields, &f->conf) < 0)
            return -1;
    }
    return 0;
}

const char *scn_fault_kind_name(const struct scn_fault *f)
{
    const struct module *m = module_at("fault", f->type);
    return m ? m->name : "?";
}

/* The "between" of a link fault (scenario.h). */
int scn_parse_link_ends(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct ctx *c = loader(sc);
    const struct scenario *s = c->s;
    char (*between)[SCN_NAME_MAX] = (char (*)[SCN_NAME_MAX])((char *)base + f->offset);
    char q[PATH_LEN], where[SCN_ERR_MAX / 4];
    if (val_arr(c, v, p, "two node names like [\"leaf0\", \"spine1\"]") < 0)
        return -1;
    if (cJSON_GetArraySize(v) != 2)
        return bad(c, p, "expected two node names like [\"leaf0\", \"spine1\"], got %d", cJSON_GetArraySize(v));
    int ni[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
        join_idx(q, p, k);
        if (val_name(c, cJSON_GetArrayItem(v, k), q, "a node name", "", between[k]) < 0)
            return -1;
        if (names_known(s) && (ni[k] = node_index(c, between[k])) < 0)
            return bad(c, q, "expected the name of a node in %s, got \"%s\"", names_hint(s, where, sizeof where),
                       between[k]);
    }
    if (strcmp(between[0], between[1]) == 0)
        return bad(c, q, "expected two different nodes, got \"%s\" twice", between[1]);
    if (names_known(s) && !nodes_linked(s, ni[0], ni[1]))
        return bad(c, p, "expected two linked nodes, got \"%s\" and \"%s\" (no link between them)", between[0],
                   between[1]);
    return 0;
}

void scn_dump_link_ends(cJSON *obj, const struct setting *f, const void *base)
{
    const char (*between)[SCN_NAME_MAX] = (const char (*)[SCN_NAME_MAX])((const char *)base + f->offset);
    cJSON *b = cJSON_AddArrayToObject(obj, f->name);
    if (b) {
        cJSON_AddItemToArray(b, cJSON_CreateString(between[0]));
        cJSON_AddItemToArray(b, cJSON_CreateString(between[1]));
    }
}

/* See scenario.h. */
bool scn_flow_id_exists(const struct scenario *s, const char *id)
{
    for (int i = 0; i < s->n_traffic; i++) {
        const struct scn_traffic *t = &s->traffic[i];
        size_t n = strlen(t->id);
        if (strncmp(id, t->id, n) != 0)
            continue;
        if (id[n] == '\0')
            return true;
        long named = scn_traffic_ops(t)->numbered(t);
        if (id[n] == '.' && named != 0 && scn_all_digits(id + n + 1) && strlen(id + n + 1) <= 9 &&
            (id[n + 1] != '0' || id[n + 2] == '\0')) {
            long j = atol(id + n + 1);
            if (named < 0 || j < named)
                return true;
        }
    }
    return false;
}

/* See scenario.h. */
int scn_val_name(struct setting_ctx *c, const cJSON *v, const char *path, const char *what, const char *also_forbidden,
                 char out[SCN_NAME_MAX])
{
    return val_name(loader(c), v, path, what, also_forbidden, out);
}

/* ------------------------------------------------------------------------ */
/* The top level                                                             */

static int parse_name(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct scenario *s = base;
    const char *nm = NULL;
    (void)f;
    /* The name becomes the default output directory: anything a directory name can hold but '/' is fine. */
    if (setting_val_str(sc, v, p, "a name", &nm) < 0)
        return -1;
    bool ok = *nm && strlen(nm) < SCN_NAME_MAX && strcmp(nm, ".") != 0 && strcmp(nm, "..") != 0;
    for (const char *q = nm; ok && *q; q++)
        ok = *q != '/' && *q != '\\' && !iscntrl((unsigned char)*q);
    if (!ok)
        return setting_bad(sc, p, "expected a name usable as a directory name (1 to %d characters, no '/'), got "
                                  "\"%.60s\"", SCN_NAME_MAX - 1, nm);
    setting_strf(s->name, sizeof s->name, "%s", nm);
    return 0;
}

static void dump_name(cJSON *o, const struct setting *f, const void *base)
{
    cJSON_AddStringToObject(o, f->name, ((const struct scenario *)base)->name);
}

static int parse_description(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p,
                             void *base)
{
    struct scenario *s = base;
    const char *d = NULL;
    (void)f;
    if (setting_val_str(sc, v, p, "a string", &d) < 0)
        return -1;
    free(s->description);
    if (!(s->description = strdup(d)))
        return setting_oom(sc);
    return 0;
}

static void dump_description(cJSON *o, const struct setting *f, const void *base)
{
    const struct scenario *s = base;
    cJSON_AddStringToObject(o, f->name, s->description ? s->description : "");
}

static int parse_seed(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct scenario *s = base;
    char d[96];
    (void)f;
    if (scn_json_seed(v, &s->seed) < 0)
        return setting_bad(sc, p, "expected an integer from 0 to %s, got %s", SCN_SEED_MAX_TEXT,
                           describe(v, d, sizeof d));
    return 0;
}

/* As raw digits: a double would round a seed above 2^53. */
static void dump_seed(cJSON *o, const struct setting *f, const void *base)
{
    char d[24];
    setting_strf(d, sizeof d, "%llu", (unsigned long long)((const struct scenario *)base)->seed);
    cJSON_AddRawToObject(o, f->name, d);
}

/* "derived" is what `rocesim check` reports about the built network; it is ignored on input so that check's
 * output can be run as it is (and it is no part of the dump: check adds it). */
static int parse_derived(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    (void)f;
    (void)base;
    return setting_val_obj(sc, v, p);
}

/* The hand-written parts: a table would not fit their shapes (see sim/settings.h). */
static int hook_topology(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    (void)f, (void)p, (void)base;
    return parse_topology(loader(sc), v);
}

static int hook_traffic(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    (void)f, (void)p, (void)base;
    return parse_traffic(loader(sc), v);
}

static int hook_faults(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    (void)f, (void)p, (void)base;
    return parse_faults(loader(sc), v);
}

static void add_topology(const struct scenario *s, cJSON *root);
static void add_traffic(const struct scenario *s, cJSON *root);
static void add_faults(const struct scenario *s, cJSON *root);

static void dump_topology(cJSON *o, const struct setting *f, const void *base)
{
    (void)f;
    add_topology(base, o);
}

static void dump_traffic(cJSON *o, const struct setting *f, const void *base)
{
    (void)f;
    add_traffic(base, o);
}

static void dump_faults(cJSON *o, const struct setting *f, const void *base)
{
    (void)f;
    add_faults(base, o);
}

#define TOP(name_, member_, dflt_, help_, parse_, dump_)                                                             \
    .name = name_, .kind = SETTING_CUSTOM, .offset = offsetof(struct scenario, member_), .dflt = dflt_,            \
    .help = help_, .parse = parse_, .dump = dump_

/* In table order: the topology's hosts and the host's defaults (priority) feed traffic and faults, and traffic
 * ids feed monitor.flows (the monitor's group follows faults: tools/run/monitor.c). */
static const struct setting top_fields[] = {
    {TOP("name", name, NULL, "Names the run; the default output directory is out/NAME", parse_name, dump_name)},
    {TOP("description", description, "", "Free text for people", parse_description, dump_description)},
    {TOP("seed", seed, "1", "Every random choice in the run derives from it", parse_seed, dump_seed)},
    {SET_FIELD("stop", SETTING_TIME, struct scenario, stop_ps, SETTING_POSITIVE, "100ms",
           "Simulated time at which the run stops at the latest (at most 17.59 s)")},
    {TOP("topology", topo, NULL, "The network", hook_topology, dump_topology), .flags = SETTING_ALWAYS},
    {SET_GROUP("switch", "Configuration shared by every switch")},
    {SET_GROUP("host", "Configuration shared by every host NIC")},
    {TOP("profiles", profiles, NULL, "Partial switch or host objects applied over the global ones to the nodes they "
         "match", hook_profiles, dump_profiles)},
    {TOP("traffic", traffic, NULL, "What is sent", hook_traffic, dump_traffic), .flags = SETTING_ALWAYS},
    {TOP("faults", faults, NULL, "Injected failures", hook_faults, dump_faults)},
    {TOP("derived", file, NULL, "What check reports about the built network; ignored on input", parse_derived,
         NULL)},
    {0},
};

static const struct setting_group builtin_groups[] = {
    {.path = "", .fields = top_fields, .has_mods = true, .mods = offsetof(struct scenario, mods)},
    {.path = "switch", .offset = offsetof(struct scenario, sw), .fields = switch_fields, .has_mods = true,
     .mods = offsetof(struct scn_switch, mods)},
    {.path = "host", .offset = offsetof(struct scenario, host), .fields = host_fields, .has_mods = true,
     .mods = offsetof(struct scn_host, mods)},
};

/* See scenario.h.  A group a module registered first keeps its place. */
void scn_register_settings(void)
{
    for (size_t i = 0; i < sizeof builtin_groups / sizeof *builtin_groups; i++)
        if (!settings_find(builtin_groups[i].path) && settings_register(&builtin_groups[i]) < 0) {
            /* A module's flat group with a field of the object's own name, say: a bug of the build. */
            fprintf(stderr, "rocesim: bug: the settings group \"%s\" is refused (sim/settings.h)\n",
                    builtin_groups[i].path);
            abort();
        }
}

/* Reads the whole tree into c->s (defaults already set). */
static int load_tree(struct ctx *c, const cJSON *root)
{
    if (val_obj(c, root, "") < 0)
        return -1;
    return settings_parse(&c->sc, settings_find(""), root, "", c->s);
}

/* ------------------------------------------------------------------------ */
/* Public API                                                                */

/* See scenario.h.  Returns SCN_OK, SCN_EUSAGE or SCN_EIO; on failure *out is zeroed. */
int scn_load_text(const char *file, const char *text, const struct scn_override *ov, int n_ov,
                  struct scenario *out, char *err, size_t errlen)
{
    struct ctx c = {.sc = {.file = file, .err = err, .errlen = errlen, .status = SCN_EUSAGE}, .s = out};
    char dummy[SCN_ERR_MAX];
    if (!err || !errlen) {
        c.sc.err = dummy;
        c.sc.errlen = sizeof dummy;
    }
    c.sc.err[0] = '\0';
    scn_register_settings();
    memset(out, 0, sizeof *out);
    setting_strf(out->file, sizeof out->file, "%s", file);
    cJSON *root = NULL;
    char *clean = NULL;
    int rc = -1;

    if (n_ov > 0 && !(c.sc.ovpath = calloc((size_t)n_ov, sizeof *c.sc.ovpath))) {
        ctx_oom(&c);
        goto done;
    }
    if (!(clean = strip_comments(&c, text)) || !(root = parse_json(&c, clean)) || check_dups(&c, root, "") < 0)
        goto done;
    for (int i = 0; i < n_ov; i++) {
        c.sc.in_override = true;
        if (apply_override(&c, root, &ov[i], c.sc.ovpath[i]) < 0)
            goto done;
        c.sc.in_override = false;
        c.sc.n_ov = i + 1;
        const cJSON *set = root;
        /* A value given as JSON may itself repeat a key. */
        char tmp[PATH_LEN];
        setting_strf(tmp, sizeof tmp, "%s", c.sc.ovpath[i]);
        for (char *comp = strtok(tmp, "."); comp && set; comp = strtok(NULL, "."))
            set = cJSON_IsArray(set) ? cJSON_GetArrayItem(set, atoi(comp))
                                     : cJSON_GetObjectItemCaseSensitive(set, comp);
        if (set && (cJSON_IsObject(set) || cJSON_IsArray(set)) && check_dups(&c, set, c.sc.ovpath[i]) < 0)
            goto done;
    }
    if (!(c.sc.store = out->store = settings_store_new())) {
        ctx_oom(&c);
        goto done;
    }
    if (set_defaults(&c, out, file) < 0)
        goto done;
    rc = load_tree(&c, root);
done:
    cJSON_Delete(root);
    free(clean);
    free(c.sc.ovpath);
    if (rc == 0)
        return SCN_OK;
    scn_free(out);
    return c.sc.status;
}

/* See scenario.h.  Reads the whole file (bounded, see file.h), then defers to scn_load_text. */
int scn_load(const char *file, const struct scn_override *ov, int n_ov, struct scenario *out, char *err,
             size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *buf;
    int rc = file_read(file, FILE_TEXT, &buf, NULL, err, errlen);
    if (rc)
        return rc;
    rc = scn_load_text(file, buf, ov, n_ov, out, err, errlen);
    free(buf);
    return rc;
}

/* Frees everything the loader allocated and zeroes *s; safe on a zeroed or already freed struct. */
void scn_free(struct scenario *s)
{
    if (!s)
        return;
    free(s->description);
    const struct scn_topo_hooks *th = s->topo.cfg ? scn_topo_hooks(s) : NULL;
    if (th && th->release)
        th->release(s->topo.cfg);
    free(s->topo.cfg);
    free(s->topo.host_names);
    free(s->topo.host_names_buf);
    free(s->topo.host_by_name);
    free(s->traffic); /* the entries' own fields are in the store */
    free(s->faults);
    for (int i = 0; s->profiles && i < s->n_profiles; i++) {
        free(s->profiles[i].match);
        cJSON_free(s->profiles[i].json);
    }
    free(s->profiles);
    settings_store_free(s->store);
    memset(s, 0, sizeof *s);
}

/* Returns host i's name, or "?" for an index out of range. */
const char *scn_host_name(const struct scenario *s, int i)
{
    if (i < 0 || i >= s->topo.n_hosts || !s->topo.host_names)
        return "?";
    return s->topo.host_names[i];
}

/* Returns the index of the host called name, or -1 when there is none. */
int scn_host_index(const struct scenario *s, const char *name)
{
    const struct scn_topology *t = &s->topo;
    if (!name)
        return -1;
    if (!t->host_by_name) {
        /* Generated names are exactly "h" + a decimal number without leading zeros. */
        if (name[0] != 'h' || !scn_all_digits(name + 1) || strlen(name + 1) > 9 || (name[1] == '0' && name[2]))
            return -1;
        long v = atol(name + 1);
        return v < t->n_hosts ? (int)v : -1;
    }
    int lo = 0, hi = t->n_hosts - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int r = strcmp(name, t->host_names[t->host_by_name[mid]]);
        if (r == 0)
            return t->host_by_name[mid];
        if (r < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Serialization                                                             */

/* The add_* helpers return the added item, or NULL when memory runs out (cJSON then drops it). */
static cJSON *add_time(cJSON *o, const char *key, int64_t ps)
{
    char b[40];
    return cJSON_AddStringToObject(o, key, units_fmt_time(ps, b, sizeof b));
}

static cJSON *add_rate(cJSON *o, const char *key, int64_t bps)
{
    char b[40];
    return cJSON_AddStringToObject(o, key, units_fmt_rate(bps, b, sizeof b));
}

/* Writes a link as o.key (or into o itself when key is NULL): delay, or length when one was given. */
static cJSON *add_link(cJSON *o, const char *key, const struct scn_link *l)
{
    char b[40];
    cJSON *j = key ? cJSON_AddObjectToObject(o, key) : o;
    if (!j)
        return NULL;
    add_rate(j, "rate", l->rate_bps);
    if (l->length_mm > 0)
        cJSON_AddStringToObject(j, "length", units_fmt_length(l->length_mm, b, sizeof b));
    else
        add_time(j, "delay", l->delay_ps);
    if (l->loss_rate > 0)
        cJSON_AddNumberToObject(j, "loss_rate", l->loss_rate);
    return j;
}

/*
 * Adds a host selector in its shortest form that loads back to the same list:
 * "all", a range "hA-hB" (generated names, ascending run), or an array.
 */
static void add_hostset(const struct scenario *s, cJSON *o, const char *key, const struct scn_hostset *hs)
{
    bool all = hs->n == s->topo.n_hosts, run = hs->n >= 2 && !names_known(s);
    for (int i = 0; i < hs->n; i++) {
        all = all && hs->idx[i] == i;
        run = run && hs->idx[i] == hs->idx[0] + i;
    }
    if (all) {
        cJSON_AddStringToObject(o, key, "all");
    } else if (run) {
        char b[48];
        setting_strf(b, sizeof b, "h%d-h%d", hs->idx[0], hs->idx[hs->n - 1]);
        cJSON_AddStringToObject(o, key, b);
    } else {
        cJSON *a = cJSON_AddArrayToObject(o, key);
        for (int i = 0; a && i < hs->n; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(scn_host_name(s, hs->idx[i])));
    }
}

/* The add_* section writers below cannot fail visibly: cJSON drops what it cannot allocate. */
static void add_topology(const struct scenario *s, cJSON *root)
{
    const struct scn_topology *t = &s->topo;
    cJSON *o = cJSON_AddObjectToObject(root, "topology");
    if (!o)
        return;
    cJSON_AddStringToObject(o, "type", scn_topo_name(s));
    if (t->cfg)
        scn_topo_hooks(s)->dump(t->cfg, o);
}

static void add_traffic(const struct scenario *s, cJSON *root)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "traffic");
    for (int i = 0; arr && i < s->n_traffic; i++) {
        const struct scn_traffic *t = &s->traffic[i];
        const struct module *m = module_at("traffic", t->type);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "type", m->name);
        if (t->id_given)
            cJSON_AddStringToObject(o, "id", t->id);
        if (m->groups[0]) {
            const struct scenario *was = dumping;
            dumping = s;
            settings_dump(m->groups[0], t->conf, o);
            dumping = was;
        }
        const struct scn_traffic_ops *ops = scn_traffic_ops(t);
        if (!ops->untimed || !ops->untimed(t))
            add_time(o, "start", t->start_ps);
        /* With profiles, a priority the entry did not give is its sender's host.priority, known per host; a fabric
         * of service levels has no priorities. */
        if ((t->priority_given || s->n_profiles == 0) && !(scn_service_levels && scn_service_levels(s)))
            cJSON_AddNumberToObject(o, "priority", t->priority);
        if (t->sl >= 0)
            cJSON_AddNumberToObject(o, "sl", t->sl);
    }
}

static void add_faults(const struct scenario *s, cJSON *root)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "faults");
    for (int i = 0; arr && i < s->n_faults; i++) {
        const struct scn_fault *f = &s->faults[i];
        const struct module *m = module_at("fault", f->type);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "type", m->name);
        if (m->groups[0]) {
            const struct scenario *was = dumping;
            dumping = s;
            settings_dump(m->groups[0], f->conf, o);
            dumping = was;
        }
    }
}

/* See scenario.h.  Returns a malloc'd string, or NULL when memory runs out. */
void scn_dump_group(const struct scenario *s, const struct setting_group *g, const void *base, cJSON *obj)
{
    const struct scenario *was = dumping;
    dumping = s;
    settings_dump(g, base, obj);
    dumping = was;
}

char *scn_to_json(const struct scenario *s)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    scn_register_settings();
    /* what the dump hooks ask (scn_dumping): the scenario being dumped, for the whole of it */
    scn_dump_group(s, settings_find(""), s, root);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return NULL;
    /* cJSON indents with tabs and writes ":\t"; re-indent with two spaces for people to read. */
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\t' ? 2 : 1;
    char *out = malloc(n + 2);
    if (out) {
        char *o = out;
        for (const char *p = text; *p; p++) {
            if (*p != '\t')
                *o++ = *p;
            else if (p > text && p[-1] == ':')
                *o++ = ' ';
            else {
                *o++ = ' ';
                *o++ = ' ';
            }
        }
        *o++ = '\n';
        *o = '\0';
    }
    cJSON_free(text);
    return out;
}
