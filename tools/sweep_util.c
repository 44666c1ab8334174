/* sweep_util — see sweep_util.h. */
#include "tools/sweep_util.h"

#include "sim/file.h"
#include "sim/mem.h"
#include "sim/scenario.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* See sweep_util.h. */
int read_file(const char *path, char **data, size_t *len_out, char *err, size_t errlen)
{
    return file_read(path, FILE_BYTES, data, len_out, err, errlen);
}

/* See sweep_util.h. */
int read_text_file(const char *path, char **text, char *err, size_t errlen)
{
    return file_read(path, FILE_TEXT, text, NULL, err, errlen);
}

/* See sweep_util.h. */
int read_spec_json(const char *file, struct cJSON **root, char *err, size_t errlen)
{
    char *text = NULL;
    int rc = read_text_file(file, &text, err, errlen);
    if (rc)
        return rc;
    char *clean = strip_json_comments(text);
    free(text);
    *root = scn_parse_json(file, clean, err, errlen);
    free(clean);
    return *root ? 0 : SCN_EUSAGE;
}

/* See sweep_util.h.  An unclosed comment blanks the rest: the JSON parser then reports the end of input. */
char *strip_json_comments(const char *text)
{
    size_t unclosed;
    char *out = scn_strip_comments(text, &unclosed);
    if (!out)
        mem_oom("reading JSON");
    return out;
}

/* See sweep_util.h: grows the buffer until the text fits; aborts when memory runs out. */
void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int k = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            abort();
        if (b->p && (size_t)k < room) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + (size_t)k + 1)
            nc *= 2;
        b->p = mem_xrealloc(b->p, nc, SWEEP_OOM);
        b->cap = nc;
    }
}

/* See sweep_util.h (RFC 4180 quoting). */
void sb_csv_cell(struct sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        sb_printf(b, "%s", s);
        return;
    }
    sb_printf(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            sb_printf(b, "\"\"");
        else
            sb_printf(b, "%c", *p);
    }
    sb_printf(b, "\"");
}

/* See sweep_util.h.  A negative zero is shown as 0. */
char *fmt_double(double d, char *buf, size_t len)
{
    return setting_fmt_num(d == 0 ? 0.0 : d, buf, len);
}

/* See sweep_util.h. */
const cJSON *json_at_path(const cJSON *root, const char *path)
{
    char tmp[512];
    sfmt(tmp, sizeof tmp, "%s", path);
    const cJSON *cur = root;
    char *save = NULL;
    for (char *c = strtok_r(tmp, ".", &save); c && cur; c = strtok_r(NULL, ".", &save)) {
        if (cJSON_IsArray(cur)) {
            char *end;
            long i = strtol(c, &end, 10);
            cur = *end || i < 0 ? NULL : cJSON_GetArrayItem(cur, (int)i);
        } else {
            cur = cJSON_GetObjectItemCaseSensitive(cur, c);
        }
    }
    return cur;
}

/* See sweep_util.h. */
bool dotted_path_ok(const char *s)
{
    if (!*s || *s == '.')
        return false;
    for (const char *p = s; *p; p++) {
        if (*p == '.' && (p[1] == '.' || p[1] == '\0'))
            return false;
        if (*p != '.' && *p != '_' && *p != '-' && !isalnum((unsigned char)*p))
            return false;
    }
    return true;
}

/* See sweep_util.h. */
int resolve_input_file(struct setting_ctx *c, const char *field, const char *given, char *out, size_t outlen)
{
    if (given[0] == '/') {
        sfmt(out, outlen, "%s", given);
        if (access(out, R_OK) == 0)
            return 0;
        setting_bad(c, field, "expected a readable scenario file, got \"%s\" (%s)", given, strerror(errno));
        return SCN_EUSAGE;
    }
    char dir[4096];
    sfmt(dir, sizeof dir, "%s", c->file);
    char *slash = strrchr(dir, '/');
    if (slash) {
        slash[1] = '\0';
        if ((size_t)sfmt(out, outlen, "%s%s", dir, given) < outlen && access(out, R_OK) == 0)
            return 0;
    } else {
        dir[0] = '\0';
    }
    sfmt(out, outlen, "%s", given);
    if (access(out, R_OK) == 0)
        return 0;
    setting_bad(c, field, "expected a readable scenario file, got \"%s\" (looked in %s and in the current "
                          "directory)", given, *dir ? dir : "./");
    return SCN_EUSAGE;
}

/* See sweep_util.h. */
int parse_seed_list(struct setting_ctx *c, const cJSON *seeds, const char *where, uint64_t **out, int *n)
{
    char got[128], p[300];
    if (!cJSON_IsArray(seeds) || cJSON_GetArraySize(seeds) == 0) {
        setting_bad(c, where, "expected a non-empty array of integers like [1, 2, 3], got %s",
                    setting_describe(seeds, got, sizeof got));
        return SCN_EUSAGE;
    }
    *n = cJSON_GetArraySize(seeds);
    *out = mem_xcalloc((size_t)*n, sizeof **out, SWEEP_OOM);
    int i = 0;
    for (const cJSON *it = seeds->child; it; it = it->next, i++) {
        sfmt(p, sizeof p, "%s[%d]", where, i);
        if (scn_json_seed(it, &(*out)[i]) < 0) {
            setting_bad(c, p, "expected an integer from 0 to %s, got %s", SCN_SEED_MAX_TEXT,
                        setting_describe(it, got, sizeof got));
            return SCN_EUSAGE;
        }
        for (int j = 0; j < i; j++)
            if ((*out)[j] == (*out)[i]) {
                setting_bad(c, p, "expected each seed once, got %llu again (it is also %s[%d])",
                            (unsigned long long)(*out)[i], where, j);
                return SCN_EUSAGE;
            }
    }
    return 0;
}

/* See sweep_util.h. */
int usage_error(const char *who, const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "rocesim%s%s: ", who ? " " : "", who ? who : "");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return SCN_EUSAGE;
}
