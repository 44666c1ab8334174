/* specfile — see specfile.h. */
#include "tools/explore/specfile.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* See specfile.h. */
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

/* See specfile.h.  An unclosed comment blanks the rest: the JSON parser then reports the end of input. */
char *strip_json_comments(const char *text)
{
    size_t unclosed;
    char *out = scn_strip_comments(text, &unclosed);
    if (!out)
        mem_oom("reading JSON");
    return out;
}

/* See specfile.h. */
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

/* See specfile.h. */
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

/* See specfile.h. */
int parse_seed_list(struct setting_ctx *c, const cJSON *seeds, const char *where, uint64_t **out, int *n)
{
    char got[128], p[300];
    if (!cJSON_IsArray(seeds) || cJSON_GetArraySize(seeds) == 0) {
        setting_bad(c, where, "expected a non-empty array of integers like [1, 2, 3], got %s",
                    setting_describe(seeds, got, sizeof got));
        return SCN_EUSAGE;
    }
    *n = cJSON_GetArraySize(seeds);
    *out = mem_xcalloc((size_t)*n, sizeof **out, "reading a sweep or tune file");
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
