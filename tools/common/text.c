/* text — see text.h. */
#include "tools/common/text.h"
#include "tools/common/files.h"

#include "sim/file.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See text.h. */
int read_file(const char *path, char **data, size_t *len_out, char *err, size_t errlen)
{
    return file_read(path, FILE_BYTES, data, len_out, err, errlen);
}

/* See text.h. */
int read_text_file(const char *path, char **text, char *err, size_t errlen)
{
    return file_read(path, FILE_TEXT, text, NULL, err, errlen);
}

/* See text.h: grows the buffer until the text fits; aborts when memory runs out. */
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
        b->p = mem_xrealloc(b->p, nc, "building text");
        b->cap = nc;
    }
}

/* See text.h (RFC 4180 quoting). */
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

/* See text.h.  A negative zero is shown as 0. */
char *fmt_double(double d, char *buf, size_t len)
{
    return setting_fmt_num(d == 0 ? 0.0 : d, buf, len);
}

/* See text.h. */
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

/* See text.h. */
int usage_error(const char *who, const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "rocesim%s%s: ", who ? " " : "", who ? who : "");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return SCN_EUSAGE;
}

int import_finish(int rc, const char *err, cJSON *o, char *notes, const char *out)
{
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        free(notes);
        return rc;
    }
    print_import_notes(notes);
    free(notes);
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    if (!s)
        mem_oom("printing the imported scenario");
    if (!out) {
        printf("%s\n", s);
    } else {
        size_t len = strlen(s);
        s[len] = '\n'; /* replaces the NUL: written with its length */
        if (write_file_atomic(out, s, len + 1)) {
            fprintf(stderr, "rocesim: %s: cannot write: %s\n", out, strerror(errno));
            rc = SCN_EIO;
        }
    }
    free(s);
    return rc;
}

void print_import_notes(const char *notes)
{
    for (const char *l = notes; l && *l;) {
        const char *nl = strchr(l, '\n');
        fprintf(stderr, "rocesim: note: %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
        l = nl ? nl + 1 : l + strlen(l);
    }
}

int export_open(int argc, char **argv, int first, const char *usage, const char **file, const char **dir,
                cJSON **scn)
{
    *file = *dir = NULL;
    *scn = NULL;
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return -1;
        }
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 == argc)
                return usage_error("export", usage, "%s needs a value", "-o");
            *dir = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("export", usage, "unknown option \"%s\"", argv[i]);
        } else if (!*file) {
            *file = argv[i];
        } else {
            return usage_error("export", usage, "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!*file || !*dir)
        return usage_error("export", usage, "%s", "needs SCENARIO.json and -o DIR");
    char *text, err[SCN_ERR_MAX];
    int rc = read_text_file(*file, &text, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    *scn = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(*scn)) {
        fprintf(stderr, "rocesim: %s: expected a scenario (a JSON object)\n", *file);
        cJSON_Delete(*scn);
        *scn = NULL;
        return SCN_EUSAGE;
    }
    return 0;
}

int export_finish(int rc, const char *err, const char *file, const char *dir, const char *const *names,
                  struct sbuf *const *bufs, int n, const struct sbuf *unexpressed)
{
    if (rc) {
        fprintf(stderr, "rocesim: %s: %s\n", file, err);
        return rc;
    }
    if (make_dirs(dir)) {
        fprintf(stderr, "rocesim: %s: cannot create: %s\n", dir, strerror(errno));
        return SCN_EIO;
    }
    for (int i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (write_file_atomic(path, bufs[i]->p ? bufs[i]->p : "", bufs[i]->len)) {
            fprintf(stderr, "rocesim: %s: cannot write: %s\n", path, strerror(errno));
            return SCN_EIO;
        }
    }
    printf("%s", unexpressed->len ? unexpressed->p : "(everything is expressed)\n");
    return 0;
}

bool text_uint(const char *s, uint64_t max, uint64_t *v)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno || x > max)
        return false;
    *v = x;
    return true;
}

bool text_num(const char *s, double lo, double hi, double *v)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    double x = strtod(s, &end);
    if (*end || errno || !(x >= lo) || !(x <= hi))
        return false;
    *v = x;
    return true;
}

const char *text_name_of_file(const char *path, const char *fallback, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    snprintf(buf, len, "%s", base ? base + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
    if (strlen(buf) > SCN_NAME_MAX - 1)
        buf[SCN_NAME_MAX - 1] = '\0'; /* a sequence cut here is made '?' */
    scn_name_clean(buf, len, fallback);
    return buf;
}

int text_vfail_at(char *err, size_t errlen, const char *file, int line, const char *fmt, va_list ap)
{
    char msg[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (line > 0)
        snprintf(err, errlen, "%s:%d: %s", file, line, msg);
    else
        snprintf(err, errlen, "%s: %s", file, msg);
    if (errlen)
        scn_one_line(err);
    return SCN_EUSAGE;
}

int text_fail_at(char *err, size_t errlen, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = text_vfail_at(err, errlen, file, line, fmt, ap);
    va_end(ap);
    return rc;
}
