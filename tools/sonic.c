/* sonic — see sonic.h; the mapping of each SONiC field is tabled in docs/sonic.md. */
#include "tools/sonic.h"
#include "tools/cfgcmd.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"
#include "tools/run.h"
#include "tools/sweep.h"
#include "tools/sweep_util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SONIC_OOM "converting a SONiC configuration"
#define MAX_PORTS 1024

/* ------------------------------------------------------------------------------------------------------------ */
/* Import                                                                                                         */

struct sport {
    char name[64];
    unsigned pfc;         /* PORT_QOS_MAP.pfc_enable as a mask of priorities */
    bool qos_seen;        /* it has a PORT_QOS_MAP entry */
    const char *pg_prof;  /* the BUFFER_PROFILE of its lossless PGs ("NULL": SONiC computes it), or NULL */
    const char *wred;     /* the WRED_PROFILE of its queues, or NULL */
    const char *sched[8]; /* QUEUE.scheduler per queue */
    bool ecn;
    int64_t kmin, kmax;
    int pmax_pct;
};

struct imp {
    const char *file;
    char *err;
    size_t errlen;
    cJSON *nm;          /* not_modelled */
    struct sbuf *notes;
    struct sport *ports;
    int n_ports;
};

/* Fails with "FILE: PATH: expected ..." ; returns SCN_EUSAGE. */
__attribute__((format(printf, 3, 4))) static int fail(struct imp *m, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sfmt(m->err, m->errlen, "%s: %s: %s", m->file, path, msg);
    return SCN_EUSAGE;
}

/* Records a key path the import leaves out, once, with why on the notes. */
static void not_modelled(struct imp *m, const char *path, const char *why)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, m->nm)
        if (strcmp(e->valuestring, path) == 0)
            return;
    cJSON_AddItemToArray(m->nm, cJSON_CreateString(path));
    if (m->notes)
        sb_printf(m->notes, "%s: %s: not modelled (%s)\n", m->file, path, why);
}

/* A config_db value as text: SONiC writes every value as a string, hand-written files sometimes as numbers. */
static const char *val_text(const cJSON *v, char *buf, size_t len)
{
    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsNumber(v))
        return fmt_double(v->valuedouble, buf, len);
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    return NULL;
}

/* An integer field in lo..hi; absent: returns 1 and leaves *out.  Errors name PATH.key. */
static int get_int(struct imp *m, const cJSON *obj, const char *path, const char *key, long long lo, long long hi,
                   const char *unit, long long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 1;
    char p[512], b[64];
    sfmt(p, sizeof p, "%s.%s", path, key);
    const char *s = val_text(v, b, sizeof b);
    char *end;
    errno = 0;
    long long x = s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || *end || errno)
        return -fail(m, p, "expected an integer%s%s, got %s%s%s", unit ? " in " : "", unit ? unit : "",
                     s ? "\"" : "", s ? s : "a non-number", s ? "\"" : "");
    if (x < lo || x > hi)
        return -fail(m, p, "expected %s %lld..%lld (SONiC's range), got %lld", unit ? unit : "a value", lo, hi, x);
    *out = x;
    return 0;
}

/* "Ethernet0|3-4" -> port name and a mask of 0..7; returns 0 or the failure. */
static int split_key(struct imp *m, const char *table, const char *key, char *port, size_t plen, unsigned *mask)
{
    char p[512];
    sfmt(p, sizeof p, "%s.%s", table, key);
    const char *bar = strchr(key, '|');
    int a, b, n = 0;
    if (!bar || (size_t)(bar - key) >= plen || bar == key)
        return fail(m, p, "expected a key PORT|N or PORT|N-M, got \"%s\"", key);
    sfmt(port, plen, "%.*s", (int)(bar - key), key);
    if (sscanf(bar + 1, "%d-%d%n", &a, &b, &n) == 2 && bar[1 + n] == '\0') {
    } else if (sscanf(bar + 1, "%d%n", &a, &n) == 1 && bar[1 + n] == '\0') {
        b = a;
    } else {
        return fail(m, p, "expected a key PORT|N or PORT|N-M with N, M in 0..7, got \"%s\"", key);
    }
    if (a < 0 || b > 7 || a > b)
        return fail(m, p, "expected a range N-M with 0 <= N <= M <= 7, got \"%s\"", bar + 1);
    *mask = 0;
    for (int i = a; i <= b; i++)
        *mask |= 1u << i;
    return 0;
}

/* The port named name (added when new), or NULL when there are too many. */
static struct sport *port_of(struct imp *m, const char *name)
{
    for (int i = 0; i < m->n_ports; i++)
        if (strcmp(m->ports[i].name, name) == 0)
            return &m->ports[i];
    if (m->n_ports == MAX_PORTS)
        return NULL;
    struct sport *p = &m->ports[m->n_ports++];
    memset(p, 0, sizeof *p);
    sfmt(p->name, sizeof p->name, "%s", name);
    return p;
}

/* A reference to another table's entry: "name" or the older "[TABLE|name]". */
static const char *ref_name(const cJSON *v, const char *table, char *buf, size_t len)
{
    if (!cJSON_IsString(v))
        return NULL;
    const char *s = v->valuestring;
    size_t tl = strlen(table);
    if (s[0] == '[' && strncmp(s + 1, table, tl) == 0 && s[1 + tl] == '|' && s[strlen(s) - 1] == ']') {
        sfmt(buf, len, "%.*s", (int)(strlen(s) - tl - 3), s + tl + 2);
        return buf;
    }
    sfmt(buf, len, "%s", s);
    return buf;
}

/* Notes every field of obj that is not in the known list (NULL-terminated), as PATH.field. */
static void unknown_fields(struct imp *m, const cJSON *obj, const char *path, const char *const *known)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, obj) {
        bool k = false;
        for (int i = 0; known[i] && !k; i++)
            k = strcmp(f->string, known[i]) == 0;
        if (!k) {
            char p[512];
            sfmt(p, sizeof p, "%s.%s", path, f->string);
            not_modelled(m, p, "no rocesim setting");
        }
    }
}

static int table_obj(struct imp *m, const cJSON *root, const char *name, const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(root, name);
    if (*out && !cJSON_IsObject(*out))
        return fail(m, name, "expected an object of entries, got %s", cJSON_IsArray(*out) ? "an array" : "a value");
    const cJSON *e;
    cJSON_ArrayForEach(e, *out)
        if (!cJSON_IsObject(e)) {
            char p[512];
            sfmt(p, sizeof p, "%s.%s", name, e->string);
            return fail(m, p, "expected an object of fields, got a value");
        }
    return 0;
}

/* PORT_QOS_MAP: pfc_enable per port. */
static int imp_qos_map(struct imp *m, const cJSON *t)
{
    static const char *const known[] = {"pfc_enable", NULL};
    const cJSON *e;
    cJSON_ArrayForEach(e, t) {
        char path[512];
        sfmt(path, sizeof path, "PORT_QOS_MAP.%s", e->string);
        if (strcmp(e->string, "global") == 0) {
            unknown_fields(m, e, "PORT_QOS_MAP.global", (const char *const[]){NULL});
            continue;
        }
        struct sport *p = port_of(m, e->string);
        if (!p)
            return fail(m, path, "expected at most %d ports", MAX_PORTS);
        p->qos_seen = true;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "pfc_enable");
        if (v) {
            const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
            bool ok = s != NULL;
            for (int i = 0; ok && s[i]; i++) {
                if (i % 2 == 0)
                    ok = s[i] >= '0' && s[i] <= '7';
                else
                    ok = s[i] == ',' && s[i + 1];
                if (ok && i % 2 == 0)
                    p->pfc |= 1u << (s[i] - '0');
            }
            if (!ok)
                return fail(m, strcat(path, ".pfc_enable"),
                            "expected priorities 0..7 separated by commas like \"3,4\"");
        }
        char star[64];
        sfmt(star, sizeof star, "PORT_QOS_MAP.*");
        const cJSON *f;
        cJSON_ArrayForEach(f, e)
            if (!known[0] || strcmp(f->string, known[0])) {
                char p2[512];
                sfmt(p2, sizeof p2, "%s.%s", star, f->string);
                not_modelled(m, p2, strcmp(f->string, "scheduler") == 0 ? "a port scheduler (shaper)"
                                                                         : "rocesim classifies by priority alone");
            }
    }
    return 0;
}

/* BUFFER_PG: the profile of each port's lossless priority groups (those whose profile has an xoff). */
static int imp_buffer_pg(struct imp *m, const cJSON *t, const cJSON *profiles, bool *lossy_seen)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, t) {
        char port[64], path[512], nb[256];
        unsigned mask;
        if (split_key(m, "BUFFER_PG", e->string, port, sizeof port, &mask))
            return SCN_EUSAGE;
        sfmt(path, sizeof path, "BUFFER_PG.%s.profile", e->string);
        const char *name = ref_name(cJSON_GetObjectItemCaseSensitive(e, "profile"), "BUFFER_PROFILE", nb, sizeof nb);
        if (!name)
            return fail(m, path, "expected the name of a BUFFER_PROFILE entry, got none");
        const cJSON *pr = strcmp(name, "NULL") == 0 ? NULL : cJSON_GetObjectItemCaseSensitive(profiles, name);
        if (strcmp(name, "NULL") != 0 && !pr)
            return fail(m, path, "expected the name of a BUFFER_PROFILE entry, got \"%s\"", name);
        struct sport *p = port_of(m, port);
        if (!p)
            return fail(m, path, "expected at most %d ports", MAX_PORTS);
        if (pr && !cJSON_GetObjectItemCaseSensitive(pr, "xoff")) {
            *lossy_seen = true;
            continue;
        }
        /* "NULL": SONiC's dynamic buffer model computes the lossless profile from the port's speed and cable */
        const char *keep = pr ? pr->string : "NULL";
        if (p->pg_prof && strcmp(p->pg_prof, keep)) {
            char p2[512];
            sfmt(p2, sizeof p2, "BUFFER_PG.%s", e->string);
            not_modelled(m, p2, "a second lossless profile on one port; the port takes its first");
            continue;
        }
        p->pg_prof = keep;
    }
    return 0;
}

/* The name most ports give (NULL when none). */
static const char *most_common(const struct imp *m, const char *(*get)(const struct sport *))
{
    const char *best = NULL;
    int best_n = 0;
    for (int i = 0; i < m->n_ports; i++) {
        const char *s = get(&m->ports[i]);
        if (!s)
            continue;
        int n = 0;
        for (int j = 0; j < m->n_ports; j++)
            n += get(&m->ports[j]) && strcmp(get(&m->ports[j]), s) == 0;
        if (n > best_n) {
            best = s;
            best_n = n;
        }
    }
    return best;
}

static const char *get_pg(const struct sport *p) { return p->pg_prof; }

/* BUFFER_PROFILE prof on its pool -> switch.buffer and switch.pfc's thresholds. */
static int imp_profile(struct imp *m, const cJSON *pools, const cJSON *profiles, const char *prof, cJSON *sw,
                       cJSON *pfc)
{
    char path[512], a[32], nb[256];
    if (strcmp(prof, "NULL") == 0) {
        cJSON_AddStringToObject(pfc, "headroom", "auto");
        not_modelled(m, "BUFFER_PG.*.profile NULL", "SONiC's dynamic buffer model: headroom \"auto\", the rest of "
                                                   "switch.pfc rocesim's defaults");
        return 0;
    }
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(profiles, prof);
    sfmt(path, sizeof path, "BUFFER_PROFILE.%s", prof);
    static const char *const known[] = {"pool", "size", "xoff", "xon", "xon_offset", "dynamic_th", "static_th",
                                        "headroom_type", NULL};
    unknown_fields(m, pr, path, known);
    const char *pool = ref_name(cJSON_GetObjectItemCaseSensitive(pr, "pool"), "BUFFER_POOL", nb, sizeof nb);
    const cJSON *pl = pool ? cJSON_GetObjectItemCaseSensitive(pools, pool) : NULL;
    if (!pl)
        return fail(m, strcat(path, ".pool"), "expected the name of a BUFFER_POOL entry, got %s%s%s",
                    pool ? "\"" : "", pool ? pool : "none", pool ? "\"" : "");
    char pp[512];
    sfmt(pp, sizeof pp, "BUFFER_POOL.%s", pool);
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(pl, "mode");
    if (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "static") && strcmp(mode->valuestring, "dynamic")))
        return fail(m, strcat(pp, ".mode"), "expected \"static\" or \"dynamic\", got %s",
                    cJSON_IsString(mode) ? mode->valuestring : "none");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pl, "type");
    if (type && (!cJSON_IsString(type) || (strcmp(type->valuestring, "ingress") &&
                                           strcmp(type->valuestring, "egress") && strcmp(type->valuestring, "both"))))
        return fail(m, strcat(pp, ".type"), "expected \"ingress\", \"egress\" or \"both\", got %s",
                    cJSON_IsString(type) ? type->valuestring : "a value");
    long long size = -1, pxoff = 0;
    int rc;
    if ((rc = get_int(m, pl, pp, "size", 1, (1LL << 31) - 1, "bytes", &size)) < 0 ||
        (rc = get_int(m, pl, pp, "xoff", 0, (1LL << 31) - 1, "bytes", &pxoff)) < 0)
        return SCN_EUSAGE;
    if (size > 0)
        cJSON_AddStringToObject(sw, "buffer", units_fmt_size(size, a, sizeof a));
    if (pxoff > 0) {
        char p2[512];
        sfmt(p2, sizeof p2, "%s.xoff", pp);
        not_modelled(m, p2, "a shared headroom pool; rocesim reserves headroom per port and priority");
    }
    const cJSON *pe;
    cJSON_ArrayForEach(pe, pools)
        if (strcmp(pe->string, pool)) {
            char p2[512];
            sfmt(p2, sizeof p2, "BUFFER_POOL.%s", pe->string);
            not_modelled(m, p2, "rocesim has one shared buffer, the lossless PGs' pool");
        }
    long long xoff = 0, xon = 0, xon_off = 0, psize = 0, dth = 0, sth = 0;
    if (get_int(m, pr, path, "xoff", 0, (1LL << 31) - 1, "bytes", &xoff) < 0 ||
        get_int(m, pr, path, "xon", 0, (1LL << 31) - 1, "bytes", &xon) < 0 ||
        get_int(m, pr, path, "xon_offset", 0, (1LL << 31) - 1, "bytes", &xon_off) < 0 ||
        get_int(m, pr, path, "size", 0, (1LL << 31) - 1, "bytes", &psize) < 0)
        return SCN_EUSAGE;
    bool dynamic = strcmp(mode->valuestring, "dynamic") == 0;
    int64_t thresh = 0;
    if (dynamic) {
        rc = get_int(m, pr, path, "dynamic_th", -8, 7, "a log2 of alpha", &dth);
        if (rc < 0)
            return SCN_EUSAGE;
        if (rc > 0)
            return fail(m, strcat(path, ".dynamic_th"), "expected a value (its pool %s is dynamic), got none", pool);
        if (dth > 0)
            return fail(m, strcat(path, ".dynamic_th"), "expected at most 0 (alpha 1, the largest rocesim's "
                        "switch.pfc.dynamic_alpha takes), got %lld", dth);
        cJSON_AddStringToObject(pfc, "xoff", "dynamic");
        cJSON_AddNumberToObject(pfc, "dynamic_alpha", ldexp(1.0, (int)dth));
    } else {
        rc = get_int(m, pr, path, "static_th", 1, (1LL << 31) - 1, "bytes", &sth);
        if (rc < 0)
            return SCN_EUSAGE;
        if (rc > 0)
            return fail(m, strcat(path, ".static_th"), "expected a value (its pool %s is static), got none", pool);
        thresh = sth;
        cJSON_AddStringToObject(pfc, "xoff", units_fmt_size(sth, a, sizeof a));
    }
    /* SONiC resumes at max(xon, limit - xon_offset): with an offset that is rocesim's xon_delta; with a fixed
     * limit, xon alone is limit - xon_delta. */
    int64_t delta = -1;
    if (xon_off > 0)
        delta = xon_off;
    else if (!dynamic && xon > 0 && xon <= thresh)
        delta = thresh - xon;
    if (delta >= 0)
        cJSON_AddStringToObject(pfc, "xon_delta", units_fmt_size(delta, a, sizeof a));
    if (xon > 0 && (xon_off > 0 || dynamic)) {
        char p2[512];
        sfmt(p2, sizeof p2, "%s.xon", path);
        not_modelled(m, p2, "a floor under the resume point; rocesim resumes xon_delta below XOFF");
    }
    cJSON_AddStringToObject(pfc, "headroom", units_fmt_size(xoff, a, sizeof a));
    if (psize > xoff) {
        char p2[512];
        sfmt(p2, sizeof p2, "%s.size", path);
        not_modelled(m, p2, "a reserved minimum beyond the headroom (size - xoff); rocesim reserves the headroom");
    }
    return 0;
}

/* WRED_PROFILE name: checked, and its ECN thresholds for green packets. */
static int imp_wred(struct imp *m, const cJSON *wreds, const char *name, const char *from, struct sport *p)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(wreds, name);
    if (!w)
        return fail(m, from, "expected the name of a WRED_PROFILE entry, got \"%s\"", name);
    char path[512];
    sfmt(path, sizeof path, "WRED_PROFILE.%s", name);
    static const char *const known[] = {"ecn", "wred_green_enable", "green_min_threshold", "green_max_threshold",
                                        "green_drop_probability", "ecn_green_min_threshold",
                                        "ecn_green_max_threshold", "ecn_green_mark_probability", NULL};
    unknown_fields(m, w, path, known);
    const cJSON *ecn = cJSON_GetObjectItemCaseSensitive(w, "ecn");
    static const char *const modes[] = {"ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow",
                                        "ecn_green_red", "ecn_yellow_red", "ecn_all"};
    int mode = 0; /* YANG default ecn_none */
    if (ecn) {
        mode = -1;
        for (int i = 0; i < 8 && cJSON_IsString(ecn); i++)
            if (strcmp(ecn->valuestring, modes[i]) == 0)
                mode = i;
        if (mode < 0)
            return fail(m, strcat(path, ".ecn"), "expected ecn_none, ecn_green, ecn_yellow, ecn_red, "
                        "ecn_green_yellow, ecn_green_red, ecn_yellow_red or ecn_all, got %s",
                        cJSON_IsString(ecn) ? ecn->valuestring : "a value");
    }
    const cJSON *ge = cJSON_GetObjectItemCaseSensitive(w, "wred_green_enable");
    char b[16];
    const char *gs = ge ? val_text(ge, b, sizeof b) : "false";
    if (!gs || (strcmp(gs, "true") && strcmp(gs, "false")))
        return fail(m, strcat(path, ".wred_green_enable"), "expected \"true\" or \"false\", got %s",
                    gs ? gs : "a value");
    long long kmin = 0, kmax = 0, prob = 100;
    const long long big = (1LL << 31) - 1;
    if (get_int(m, w, path, "green_min_threshold", 0, big, "bytes", &kmin) < 0 ||
        get_int(m, w, path, "green_max_threshold", 0, big, "bytes", &kmax) < 0 ||
        get_int(m, w, path, "green_drop_probability", 0, 100, "percent", &prob) < 0)
        return SCN_EUSAGE;
    if (kmax < kmin)
        return fail(m, strcat(path, ".green_max_threshold"), "expected a value at least green_min_threshold (%lld), "
                    "got %lld", kmin, kmax);
    /* Marking thresholds of their own (newer SONiC) take the place of the drop thresholds for marking. */
    if (cJSON_GetObjectItemCaseSensitive(w, "ecn_green_min_threshold")) {
        long long emin = 0, emax = 0, eprob = 100;
        if (get_int(m, w, path, "ecn_green_min_threshold", 0, big, "bytes", &emin) < 0 ||
            get_int(m, w, path, "ecn_green_max_threshold", 0, big, "bytes", &emax) < 0 ||
            get_int(m, w, path, "ecn_green_mark_probability", 0, 100, "percent", &eprob) < 0)
            return SCN_EUSAGE;
        if (emax < emin)
            return fail(m, strcat(path, ".ecn_green_max_threshold"), "expected a value at least "
                        "ecn_green_min_threshold (%lld), got %lld", emin, emax);
        char p2[512];
        sfmt(p2, sizeof p2, "%s.green_min_threshold", path);
        not_modelled(m, p2, "WRED drops above the marking thresholds: rocesim marks, it does not drop early");
        kmin = emin;
        kmax = emax;
        prob = eprob;
    }
    bool green = mode == 1 || mode == 4 || mode == 5 || mode == 7;
    p->ecn = green && strcmp(gs, "true") == 0;
    p->kmin = kmin;
    p->kmax = kmax;
    p->pmax_pct = (int)prob;
    if (!green && strcmp(gs, "true") == 0)
        not_modelled(m, path, "WRED dropping without ECN marking");
    return 0;
}

static int imp_scheduler_check(struct imp *m, const cJSON *t)
{
    static const char *const known[] = {"type", "weight", NULL};
    const cJSON *e;
    cJSON_ArrayForEach(e, t) {
        char path[512];
        sfmt(path, sizeof path, "SCHEDULER.%s", e->string);
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        if (ty && (!cJSON_IsString(ty) || (strcmp(ty->valuestring, "DWRR") && strcmp(ty->valuestring, "WRR") &&
                                           strcmp(ty->valuestring, "STRICT"))))
            return fail(m, strcat(path, ".type"), "expected DWRR, WRR or STRICT, got %s",
                        cJSON_IsString(ty) ? ty->valuestring : "a value");
        long long w;
        if (get_int(m, e, path, "weight", 1, 100, "a weight", &w) < 0)
            return SCN_EUSAGE;
        unknown_fields(m, e, path, known);
    }
    return 0;
}

/* The rocesim selector of a SONiC port: from --ports, else the placeholder SWITCH:<name>. */
static void selector(const char *map, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);
    for (const char *s = map; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t l = comma ? (size_t)(comma - s) : strlen(s);
        if (l > nl && strncmp(s, name, nl) == 0 && s[nl] == '=') {
            sfmt(out, len, "%.*s", (int)(l - nl - 1), s + nl + 1);
            return;
        }
        s += l + (comma != NULL);
    }
    sfmt(out, len, "SWITCH:%s", name);
}

/* The ECN object of a port; returns it (new). */
static cJSON *ecn_json(const struct sport *p)
{
    char a[32];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddBoolToObject(e, "enabled", p->ecn);
    if (p->ecn) {
        cJSON_AddStringToObject(e, "kmin", units_fmt_size(p->kmin, a, sizeof a));
        cJSON_AddStringToObject(e, "kmax", units_fmt_size(p->kmax, a, sizeof a));
        cJSON_AddNumberToObject(e, "pmax", p->pmax_pct / 100.0);
    }
    return e;
}

static bool same_ecn(const struct sport *a, const struct sport *b)
{
    return a->ecn == b->ecn && (!a->ecn || (a->kmin == b->kmin && a->kmax == b->kmax && a->pmax_pct == b->pmax_pct));
}

static cJSON *prios_json(unsigned mask)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 8; i++)
        if (mask & (1u << i))
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
    return arr;
}

/* The import proper; fills the output objects. */
static int imp_run(struct imp *m, const cJSON *root, const char *ports_map, cJSON *sw, cJSON *profs)
{
    static const char *const tables[] = {"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "PORT_QOS_MAP",
                                         "WRED_PROFILE", "QUEUE", "SCHEDULER", "PFC_WD", NULL};
    const cJSON *t[8];
    for (int i = 0; tables[i]; i++)
        if (table_obj(m, root, tables[i], &t[i]))
            return SCN_EUSAGE;
    const cJSON *pools = t[0], *profiles = t[1], *pgs = t[2], *qos = t[3], *wreds = t[4], *queues = t[5],
                *scheds = t[6], *wd = t[7];
    const cJSON *f;
    cJSON_ArrayForEach(f, root) {
        bool k = false;
        for (int i = 0; tables[i] && !k; i++)
            k = strcmp(f->string, tables[i]) == 0;
        if (!k)
            not_modelled(m, f->string, "not a QoS table rocesim reads");
    }
    if (qos && imp_qos_map(m, qos))
        return SCN_EUSAGE;
    bool lossy = false;
    if (pgs && imp_buffer_pg(m, pgs, profiles, &lossy))
        return SCN_EUSAGE;
    if (lossy)
        not_modelled(m, "BUFFER_PG.*", "lossy priority groups: rocesim's lossy traffic shares the buffer up to "
                                       "switch.lossy_queue_limit per egress queue");
    if (scheds && imp_scheduler_check(m, scheds))
        return SCN_EUSAGE;

    /* QUEUE: each port's WRED profile (its lossless queues' when they differ) and scheduler per queue */
    const cJSON *e;
    cJSON_ArrayForEach(e, queues) {
        char port[64], path[512], nb[256];
        unsigned mask;
        if (split_key(m, "QUEUE", e->string, port, sizeof port, &mask))
            return SCN_EUSAGE;
        struct sport *p = port_of(m, port);
        if (!p)
            return fail(m, e->string, "expected at most %d ports", MAX_PORTS);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "scheduler");
        if (v) {
            sfmt(path, sizeof path, "QUEUE.%s.scheduler", e->string);
            const char *n = ref_name(v, "SCHEDULER", nb, sizeof nb);
            const cJSON *s = n ? cJSON_GetObjectItemCaseSensitive(scheds, n) : NULL;
            if (!s)
                return fail(m, path, "expected the name of a SCHEDULER entry, got %s%s%s", n ? "\"" : "",
                            n ? n : "a value", n ? "\"" : "");
            for (int q = 0; q < 8; q++)
                if (mask & (1u << q))
                    p->sched[q] = s->string;
        }
        v = cJSON_GetObjectItemCaseSensitive(e, "wred_profile");
        if (v) {
            sfmt(path, sizeof path, "QUEUE.%s.wred_profile", e->string);
            const char *n = ref_name(v, "WRED_PROFILE", nb, sizeof nb);
            const cJSON *w = n ? cJSON_GetObjectItemCaseSensitive(wreds, n) : NULL;
            if (!w)
                return fail(m, path, "expected the name of a WRED_PROFILE entry, got %s%s%s", n ? "\"" : "",
                            n ? n : "a value", n ? "\"" : "");
            if (p->wred && strcmp(p->wred, w->string)) {
                if (!(mask & p->pfc))
                    continue;
                char p2[512];
                sfmt(p2, sizeof p2, "QUEUE.%s|*.wred_profile", port);
                not_modelled(m, p2, "queues of one port with different WRED profiles; rocesim's ECN thresholds are "
                                    "per port: the lossless queues' are taken");
            }
            p->wred = w->string;
        }
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, wreds) {
        struct sport tmp;
        char path[512];
        sfmt(path, sizeof path, "WRED_PROFILE.%s", w->string);
        if (imp_wred(m, wreds, w->string, path, &tmp))
            return SCN_EUSAGE;
    }
    for (int i = 0; i < m->n_ports; i++)
        if (m->ports[i].wred && imp_wred(m, wreds, m->ports[i].wred, "QUEUE", &m->ports[i]))
            return SCN_EUSAGE;

    /* The switch-wide values are those of most ports; ports that differ get profiles where rocesim has a
     * per-port setting (PFC priorities, ECN), and a note where it has none. */
    cJSON *pfc = cJSON_CreateObject();
    cJSON_AddItemToObject(sw, "pfc", pfc);
    const char *prof = most_common(m, get_pg);
    if (prof && imp_profile(m, pools, profiles, prof, sw, pfc))
        return SCN_EUSAGE;
    cJSON_ArrayForEach(e, profiles) {
        bool used = prof && strcmp(e->string, prof) == 0;
        if (!used) {
            char p2[512];
            sfmt(p2, sizeof p2, "BUFFER_PROFILE.%s", e->string);
            not_modelled(m, p2, cJSON_GetObjectItemCaseSensitive(e, "xoff")
                                    ? "a second lossless profile: the ports take the most common one"
                                    : "an ingress or egress profile of lossy traffic or egress queues");
        }
    }
    unsigned common_pfc = 0;
    int best = 0;
    for (int i = 0; i < m->n_ports; i++) {
        int n = 0;
        for (int j = 0; j < m->n_ports; j++)
            n += m->ports[j].pfc == m->ports[i].pfc;
        if (n > best) {
            best = n;
            common_pfc = m->ports[i].pfc;
        }
    }
    bool any_pfc = false;
    for (int i = 0; i < m->n_ports; i++)
        any_pfc = any_pfc || m->ports[i].pfc;
    cJSON_AddBoolToObject(pfc, "enabled", any_pfc);
    cJSON_AddItemToObject(pfc, "priorities", prios_json(common_pfc));

    const struct sport *ce = NULL;
    best = 0;
    for (int i = 0; i < m->n_ports; i++) {
        int n = 0;
        for (int j = 0; j < m->n_ports; j++)
            n += same_ecn(&m->ports[i], &m->ports[j]);
        if (n > best) {
            best = n;
            ce = &m->ports[i];
        }
    }
    if (ce)
        cJSON_AddItemToObject(sw, "ecn", ecn_json(ce));

    /* The scheduler of the first port, queue by queue */
    const struct sport *sp = NULL;
    for (int i = 0; i < m->n_ports && !sp; i++)
        for (int q = 0; q < 8 && !sp; q++)
            if (m->ports[i].sched[q])
                sp = &m->ports[i];
    if (sp) {
        cJSON *so = cJSON_CreateObject(), *wo = cJSON_CreateObject();
        bool weighted = false;
        for (int q = 0; q < 8; q++) {
            const cJSON *s = sp->sched[q] ? cJSON_GetObjectItemCaseSensitive(scheds, sp->sched[q]) : NULL;
            const cJSON *ty = s ? cJSON_GetObjectItemCaseSensitive(s, "type") : NULL;
            const char *tn = ty ? ty->valuestring : "WRR"; /* the YANG default */
            if (!s || strcmp(tn, "STRICT") == 0)
                continue;
            long long wt = 1; /* the YANG default */
            get_int(m, s, "SCHEDULER", "weight", 1, 100, NULL, &wt);
            char k[4];
            sfmt(k, sizeof k, "%d", q);
            cJSON_AddNumberToObject(wo, k, (double)wt);
            weighted = true;
            if (strcmp(tn, "WRR") == 0) {
                char p2[512];
                sfmt(p2, sizeof p2, "SCHEDULER.%s.type", s->string);
                not_modelled(m, p2, "WRR is taken as DWRR: rocesim's round robin counts bytes");
            }
        }
        cJSON_AddStringToObject(so, "type", weighted ? "dwrr" : "strict");
        if (weighted)
            cJSON_AddItemToObject(so, "weights", wo);
        else
            cJSON_Delete(wo);
        cJSON_AddItemToObject(sw, "scheduler", so);
        for (int i = 0; i < m->n_ports; i++)
            for (int q = 0; q < 8; q++) {
                const char *a = m->ports[i].sched[q], *b = sp->sched[q];
                if ((a || b) && (!a || !b || strcmp(a, b))) {
                    char p2[512];
                    sfmt(p2, sizeof p2, "QUEUE.%s|%d.scheduler", m->ports[i].name, q);
                    not_modelled(m, p2, "one scheduler for every port in rocesim: the first port's is taken");
                }
            }
    }

    /* PFC_WD */
    if (wd) {
        long long poll = -1;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(wd, "GLOBAL");
        if (g) {
            if (get_int(m, g, "PFC_WD.GLOBAL", "POLL_INTERVAL", 100, 1000, "milliseconds", &poll) < 0)
                return SCN_EUSAGE;
            static const char *const known[] = {"POLL_INTERVAL", NULL};
            unknown_fields(m, g, "PFC_WD.GLOBAL", known);
        }
        const cJSON *first = NULL;
        long long det0 = 0, res0 = 0;
        cJSON_ArrayForEach(e, wd) {
            if (strcmp(e->string, "GLOBAL") == 0)
                continue;
            char path[512];
            sfmt(path, sizeof path, "PFC_WD.%s", e->string);
            long long det = 200, res = 200; /* SONiC's pfcwd defaults */
            if (get_int(m, e, path, "detection_time", 100, 5000, "milliseconds", &det) < 0 ||
                get_int(m, e, path, "restoration_time", 100, 60000, "milliseconds", &res) < 0)
                return SCN_EUSAGE;
            if (poll > 0 && det < poll)
                return fail(m, strcat(path, ".detection_time"), "expected at least PFC_WD.GLOBAL.POLL_INTERVAL "
                            "(%lld), got %lld", poll, det);
            if (poll > 0 && res < poll)
                return fail(m, strcat(path, ".restoration_time"), "expected at least PFC_WD.GLOBAL.POLL_INTERVAL "
                            "(%lld), got %lld", poll, res);
            const cJSON *act = cJSON_GetObjectItemCaseSensitive(e, "action");
            if (act && (!cJSON_IsString(act) || (strcmp(act->valuestring, "drop") &&
                                                 strcmp(act->valuestring, "forward") &&
                                                 strcmp(act->valuestring, "alert"))))
                return fail(m, strcat(path, ".action"), "expected drop, forward or alert, got %s",
                            cJSON_IsString(act) ? act->valuestring : "a value");
            static const char *const known[] = {"action", "detection_time", "restoration_time", NULL};
            unknown_fields(m, e, "PFC_WD.*", known);
            if (!first) {
                first = e;
                det0 = det;
                res0 = res;
            } else {
                const cJSON *a0 = cJSON_GetObjectItemCaseSensitive(first, "action");
                if (det != det0 || res != res0 || (act && a0 && strcmp(act->valuestring, a0->valuestring)) ||
                    !act != !a0)
                    not_modelled(m, path, "one watchdog for every port in rocesim: the first port's is taken");
            }
        }
        if (first) {
            char a[32];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddBoolToObject(o, "enabled", true);
            cJSON_AddStringToObject(o, "detection_time", units_fmt_time(det0 * PS_PER_MS, a, sizeof a));
            cJSON_AddStringToObject(o, "restoration_time", units_fmt_time(res0 * PS_PER_MS, a, sizeof a));
            if (poll > 0)
                cJSON_AddStringToObject(o, "poll_interval", units_fmt_time(poll * PS_PER_MS, a, sizeof a));
            const cJSON *act = cJSON_GetObjectItemCaseSensitive(first, "action");
            cJSON_AddStringToObject(o, "action", act ? act->valuestring : "drop");
            cJSON_AddItemToObject(sw, "watchdog", o);
        }
    }

    /* Profiles for the ports that differ */
    int placeholders = 0;
    for (int i = 0; i < m->n_ports; i++) {
        const struct sport *p = &m->ports[i];
        bool dp = p->pfc != common_pfc, de = ce && !same_ecn(p, ce);
        if (!dp && !de)
            continue;
        char sel[192];
        selector(ports_map, p->name, sel, sizeof sel);
        placeholders += strncmp(sel, "SWITCH:", 7) == 0;
        cJSON *o = cJSON_CreateObject(), *so = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "match", sel);
        if (dp)
            cJSON_AddItemToObject(cJSON_AddObjectToObject(so, "pfc"), "priorities", prios_json(p->pfc));
        if (de)
            cJSON_AddItemToObject(so, "ecn", ecn_json(p));
        cJSON_AddItemToObject(o, "switch", so);
        cJSON_AddItemToArray(profs, o);
    }
    if (placeholders && m->notes)
        sb_printf(m->notes, "%s: %d profile%s match SWITCH:<SONiC port>: rename SWITCH to the switch's node and the "
                            "port to its number, or give --ports Ethernet0=tor0:0,...\n", m->file, placeholders,
                  placeholders == 1 ? "" : "s");
    return 0;
}

/* See sonic.h. */
int sonic_import_text(const char *file, const char *text, const char *ports_map, cJSON **out, struct sbuf *notes,
                      char *err, size_t errlen)
{
    struct imp m = {.file = file, .err = err, .errlen = errlen, .notes = notes};
    *out = NULL;
    cJSON *root = cJSON_Parse(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        sfmt(err, errlen, "%s: expected a config_db.json object of tables, got %s", file,
             root ? "another JSON value" : "text that is not JSON");
        return SCN_EUSAGE;
    }
    m.ports = mem_xcalloc(MAX_PORTS, sizeof *m.ports, SONIC_OOM);
    cJSON *o = cJSON_CreateObject(), *sw = cJSON_CreateObject(), *profs = cJSON_CreateArray();
    m.nm = cJSON_CreateArray();
    int rc = imp_run(&m, root, ports_map, sw, profs);
    cJSON_AddItemToObject(o, "switch", sw);
    cJSON_AddItemToObject(o, "profiles", profs);
    cJSON_AddItemToObject(o, "not_modelled", m.nm);
    free(m.ports);
    cJSON_Delete(root);
    if (rc) {
        cJSON_Delete(o);
        return rc;
    }
    *out = o;
    return 0;
}

static const char import_usage[] =
    "usage: rocesim import sonic CONFIG_DB.json [--ports PORT=NODE:N,...]\n"
    "  prints the switch object (and profiles for the ports that differ) of a scenario from SONiC's QoS\n"
    "  tables, with the list of what is not modelled; --ports names the rocesim port of each SONiC port\n"
    "  (without it the profiles match SWITCH:<SONiC port>, to be renamed).  See docs/sonic.md.\n";

static int imp_bad(const char *fmt, const char *arg)
{
    return usage_error("import", import_usage, fmt, arg);
}

/* --ports: NAME=SELECTOR pairs with a node:port selector each. */
static bool ports_map_ok(const char *s)
{
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t l = comma ? (size_t)(comma - s) : strlen(s);
        const char *eq = memchr(s, '=', l);
        if (!eq || eq == s || !memchr(eq, ':', l - (size_t)(eq - s)) || eq[1] == ':')
            return false;
        s += l + (comma != NULL);
    }
    return true;
}

/* See sonic.h. */
int sonic_import_main(int argc, char **argv)
{
    const char *file = NULL, *ports = NULL;
    if (argc >= 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
        fputs(import_usage, stdout);
        return 0;
    }
    if (argc < 3 || strcmp(argv[2], "sonic"))
        return imp_bad("expected the format sonic, got \"%s\"", argc < 3 ? "" : argv[2]);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--ports") == 0) {
            if (i + 1 == argc || !ports_map_ok(argv[i + 1]))
                return imp_bad("--ports expects PORT=NODE:N pairs separated by commas, like "
                               "Ethernet0=tor0:0,Ethernet4=tor0:1, got \"%s\"", i + 1 < argc ? argv[i + 1] : "");
            ports = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return imp_bad("unknown option \"%s\"", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            return imp_bad("unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!file)
        return imp_bad("%s", "needs a config_db.json file");
    char *text;
    char err[SCN_ERR_MAX];
    int rc = read_text_file(file, &text, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    cJSON *o;
    struct sbuf notes = {0};
    rc = sonic_import_text(file, text, ports, &o, &notes, err, sizeof err);
    free(text);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        free(notes.p);
        return rc;
    }
    for (char *l = notes.p; l && *l;) {
        char *nl = strchr(l, '\n');
        fprintf(stderr, "rocesim: note: %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
        l = nl ? nl + 1 : l + strlen(l);
    }
    free(notes.p);
    char *s = cJSON_Print(o);
    if (!s)
        mem_oom(SONIC_OOM);
    printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Export                                                                                                         */

static void add_str(cJSON *o, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_str(cJSON *o, const char *k, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    cJSON_AddStringToObject(o, k, b);
}

/* The index of the port_cfg of a port, among the distinct lossless ones seen so far (adds it). */
static int distinct(const struct port_cfg **seen, int *n, const struct port_cfg *pc,
                    bool (*same)(const struct port_cfg *, const struct port_cfg *))
{
    for (int i = 0; i < *n; i++)
        if (same(seen[i], pc))
            return i;
    seen[*n] = pc;
    return (*n)++;
}

static bool same_pg(const struct port_cfg *a, const struct port_cfg *b)
{
    return a->xoff_static == b->xoff_static && a->alpha == b->alpha && a->xoff == b->xoff &&
           a->xon_delta == b->xon_delta && a->headroom == b->headroom;
}

static bool same_wred(const struct port_cfg *a, const struct port_cfg *b)
{
    return a->ecn.kmin == b->ecn.kmin && a->ecn.kmax == b->ecn.kmax && a->ecn.pmax == b->ecn.pmax;
}

/* A time in whole milliseconds within SONiC's range; notes a value it had to change. */
static long long wd_ms(int64_t ps, long long lo, long long hi, const char *field, struct sbuf *notes)
{
    long long ms = (ps + PS_PER_MS / 2) / PS_PER_MS;
    long long v = ms < lo ? lo : ms > hi ? hi : ms;
    if (v * PS_PER_MS != ps) {
        char a[32];
        sb_printf(notes, "switch.watchdog.%s %s: SONiC takes whole milliseconds in %lld..%lld; written as %lld\n",
                  field, units_fmt_time(ps, a, sizeof a), lo, hi, v);
    }
    return v;
}

/* See sonic.h. */
cJSON *sonic_export(const struct run *r, uint32_t sw_index, struct sbuf *notes)
{
    const struct sw *s = &r->net.sws[sw_index];
    const struct scn_switch *c = s->cfg;
    char a[64];
    cJSON *o = cJSON_CreateObject();
    cJSON *pool = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "BUFFER_POOL"), "ingress_lossless_pool");
    bool dynamic = c->pfc.xoff_mode == SCN_XOFF_DYNAMIC;
    add_str(pool, "type", "ingress");
    add_str(pool, "mode", "%s", dynamic ? "dynamic" : "static");
    add_str(pool, "size", "%lld", (long long)c->buffer);

    const struct port_cfg **pgs = mem_xcalloc(s->n_ports + 1, sizeof *pgs, SONIC_OOM);
    const struct port_cfg **wrs = mem_xcalloc(s->n_ports + 1, sizeof *wrs, SONIC_OOM);
    int n_pg = 0, n_wr = 0;
    cJSON *prof = cJSON_AddObjectToObject(o, "BUFFER_PROFILE"), *pg = cJSON_AddObjectToObject(o, "BUFFER_PG");
    cJSON *qos = cJSON_AddObjectToObject(o, "PORT_QOS_MAP"), *wred = cJSON_AddObjectToObject(o, "WRED_PROFILE");
    cJSON *queue = cJSON_AddObjectToObject(o, "QUEUE"), *sched = cJSON_AddObjectToObject(o, "SCHEDULER");
    bool dyn_noted = false, pmax_noted = false;
    for (uint32_t j = 0; j < s->n_ports; j++) {
        const struct port_cfg *pc = &r->net.pcfg[s->ports[j].cfg];
        char port[32], pfc[32] = "", key[64];
        sfmt(port, sizeof port, "Ethernet%u", 4 * j);
        for (int p = 0, k = 0; p < 8; p++)
            if (pc->lossless & (1u << p))
                k += snprintf(pfc + k, sizeof pfc - (size_t)k, "%s%d", k ? "," : "", p);
        add_str(cJSON_AddObjectToObject(qos, port), "pfc_enable", "%s", pfc);
        if (pc->lossless) {
            int i = distinct(pgs, &n_pg, pc, same_pg);
            char name[64];
            sfmt(name, sizeof name, "pg_lossless_%d_profile", i);
            if (!cJSON_GetObjectItemCaseSensitive(prof, name)) {
                cJSON *b = cJSON_AddObjectToObject(prof, name);
                add_str(b, "pool", "ingress_lossless_pool");
                add_str(b, "size", "%lld", (long long)pc->headroom);
                add_str(b, "xoff", "%lld", (long long)pc->headroom);
                add_str(b, "xon_offset", "%lld", (long long)pc->xon_delta);
                if (pc->xoff_static) {
                    add_str(b, "static_th", "%lld", (long long)pc->xoff);
                } else {
                    double l2 = log2(pc->alpha);
                    long long th = llround(l2);
                    th = th < -8 ? -8 : th > 0 ? 0 : th;
                    if (!dyn_noted && fabs(l2 - (double)th) > 1e-9) {
                        sb_printf(notes, "switch.pfc.dynamic_alpha %s: SONiC's dynamic_th is log2 of alpha, a whole "
                                         "number in -8..7; written as %lld (alpha %s)\n",
                                  fmt_double(pc->alpha, a, sizeof a), th, fmt_double(ldexp(1, (int)th), a + 32, 32));
                        dyn_noted = true;
                    }
                    add_str(b, "dynamic_th", "%lld", th);
                }
            }
            /* one entry per run of consecutive lossless priorities */
            for (int p = 0; p < 8; p++)
                if (pc->lossless & (1u << p)) {
                    int q = p;
                    while (q + 1 < 8 && (pc->lossless & (1u << (q + 1))))
                        q++;
                    if (q > p)
                        sfmt(key, sizeof key, "%s|%d-%d", port, p, q);
                    else
                        sfmt(key, sizeof key, "%s|%d", port, p);
                    add_str(cJSON_AddObjectToObject(pg, key), "profile", "%s", name);
                    p = q;
                }
        }
        /* QUEUE: each queue's scheduler and, where the port marks, its WRED profile */
        char wname[64] = "";
        if (pc->ecn_dequeue || pc->ecn_enqueue) {
            int i = distinct(wrs, &n_wr, pc, same_wred);
            sfmt(wname, sizeof wname, "ROCESIM_ECN_%d", i);
            if (!cJSON_GetObjectItemCaseSensitive(wred, wname)) {
                cJSON *w = cJSON_AddObjectToObject(wred, wname);
                long long pct = llround(pc->ecn.pmax * 100);
                if (!pmax_noted && fabs(pc->ecn.pmax * 100 - (double)pct) > 1e-9) {
                    sb_printf(notes, "switch.ecn.pmax %s: SONiC's green_drop_probability is a whole percent; "
                                     "written as %lld\n", fmt_double(pc->ecn.pmax, a, sizeof a), pct);
                    pmax_noted = true;
                }
                add_str(w, "wred_green_enable", "true");
                add_str(w, "ecn", "ecn_all");
                add_str(w, "green_min_threshold", "%lld", (long long)pc->ecn.kmin);
                add_str(w, "green_max_threshold", "%lld", (long long)pc->ecn.kmax);
                add_str(w, "green_drop_probability", "%lld", pct);
            }
        }
        const char *qs[8];
        for (int q = 0; q < 8; q++) {
            uint32_t wt = c->scheduler.type == SCN_SCHED_DWRR ? c->scheduler.weights[q] : 0;
            char sn[32];
            if (wt)
                sfmt(sn, sizeof sn, "scheduler.%u", wt);
            else
                sfmt(sn, sizeof sn, "scheduler.strict");
            if (!cJSON_GetObjectItemCaseSensitive(sched, sn)) {
                cJSON *e = cJSON_AddObjectToObject(sched, sn);
                add_str(e, "type", "%s", wt ? "DWRR" : "STRICT");
                if (wt)
                    add_str(e, "weight", "%u", wt);
            }
            qs[q] = cJSON_GetObjectItemCaseSensitive(sched, sn)->string;
        }
        for (int q = 0; q < 8; q++) {
            int e = q;
            while (e + 1 < 8 && strcmp(qs[e + 1], qs[q]) == 0)
                e++;
            if (e > q)
                sfmt(key, sizeof key, "%s|%d-%d", port, q, e);
            else
                sfmt(key, sizeof key, "%s|%d", port, q);
            cJSON *qe = cJSON_AddObjectToObject(queue, key);
            add_str(qe, "scheduler", "%s", qs[q]);
            if (*wname)
                add_str(qe, "wred_profile", "%s", wname);
            q = e;
        }
    }
    free(pgs);
    free(wrs);
    for (int p = 0; p < 8; p++)
        if (c->scheduler.type == SCN_SCHED_DWRR && c->scheduler.weights[p] > 100)
            sb_printf(notes, "switch.scheduler.weights.%d %u: SONiC's weight is 1..100; written as it is, SONiC will "
                             "refuse it\n", p, c->scheduler.weights[p]);
    if (c->watchdog.enabled) {
        cJSON *wd = cJSON_AddObjectToObject(o, "PFC_WD");
        long long poll = wd_ms(c->watchdog.poll_ps, 100, 1000, "poll_interval", notes);
        long long det = wd_ms(c->watchdog.detection_ps, 100, 5000, "detection_time", notes);
        long long res = wd_ms(c->watchdog.restoration_ps, 100, 60000, "restoration_time", notes);
        add_str(cJSON_AddObjectToObject(wd, "GLOBAL"), "POLL_INTERVAL", "%lld", poll < det && poll < res ? poll
                                                                                  : det < res ? det : res);
        static const char *const acts[] = {"drop", "forward", "alert"};
        for (uint32_t j = 0; j < s->n_ports; j++) {
            char port[32];
            sfmt(port, sizeof port, "Ethernet%u", 4 * j);
            cJSON *e = cJSON_AddObjectToObject(wd, port);
            add_str(e, "action", "%s", acts[c->watchdog.action]);
            add_str(e, "detection_time", "%lld", det);
            add_str(e, "restoration_time", "%lld", res);
        }
    }
    if (c->pfc.headroom_auto)
        sb_printf(notes, "switch.pfc.headroom \"auto\": written as the bytes rocesim computes for each port (xoff "
                         "of its profile); SONiC's dynamic buffer model would compute its own from the cable length\n");
    if (!c->pfc.enabled && c->pfc.lossless_mask)
        sb_printf(notes, "switch.pfc.enabled false: written as pfc_enable \"\" on every port (the priorities are not "
                         "kept)\n");
    if (c->ecn.enabled && c->ecn.mark_on == SCN_MARK_ENQUEUE)
        sb_printf(notes, "switch.ecn.mark_on \"enqueue\": SONiC has no such setting (the ASIC decides)\n");
    if (c->cell_size)
        sb_printf(notes, "switch.cell_size %d: a property of the ASIC, not of config_db\n", c->cell_size);
    sb_printf(notes, "switch.lossy_queue_limit %s: not written (the egress lossy profile of SONiC has its own "
                     "threshold mode)\n", units_fmt_size(c->lossy_queue_limit, a, sizeof a));
    return o;
}

static const char export_usage[] =
    "usage: rocesim switch-config [SCENARIO.json] [--set PATH=VALUE]... [--from best.json [--allow-incomplete]]\n"
    "                             --format sonic [--node NAME]\n"
    "  prints the SONiC config_db.json tables (BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, PORT_QOS_MAP,\n"
    "  WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD) of one switch (default: the first) of the scenario or of a\n"
    "  sweep's best point; port N is EthernetN*4.  What SONiC cannot express is listed on stderr.\n";

/* See sonic.h. */
int sonic_export_main(int argc, char **argv)
{
    const char *format = NULL, *node = NULL;
    struct cfg_cmd *c = mem_xcalloc(1, sizeof *c, SONIC_OOM);
    c->who = "switch-config";
    c->usage = export_usage;
    int rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int took = cfg_cmd_arg(c, argc, argv, &i);
        if (took) {
            rc = took < 0 ? SCN_EUSAGE : 0;
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--node") == 0) {
            if (!next)
                rc = cfg_cmd_bad(c, "%s needs a value", a);
            else if (a[2] == 'f')
                format = next;
            else
                node = next;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(export_usage, stdout);
            free(c);
            return 0;
        } else {
            rc = cfg_cmd_bad(c, "unknown option \"%s\"", a);
        }
    }
    if (!rc && (!format || strcmp(format, "sonic")))
        rc = cfg_cmd_bad(c, "--format expects sonic, got \"%s\"", format ? format : "");
    struct scenario scn;
    if (!rc && !(rc = cfg_cmd_load(c, &scn))) {
        struct run r;
        char err[SCN_ERR_MAX];
        rc = run_setup(&r, &scn, err, sizeof err);
        if (rc) {
            fprintf(stderr, "rocesim: %s\n", err);
        } else {
            uint32_t k = r.g.n_switches;
            for (uint32_t i = 0; i < r.g.n_switches && k == r.g.n_switches; i++)
                if (!node || strcmp(r.g.nodes[r.net.sws[i].node].name, node) == 0)
                    k = i;
            if (k == r.g.n_switches) {
                fprintf(stderr, "rocesim: %s: --node: expected the name of a switch, got \"%s\"\n", c->scenario,
                        node ? node : "(no switch in the scenario)");
                rc = SCN_EUSAGE;
            } else {
                struct sbuf notes = {0};
                cJSON *o = sonic_export(&r, k, &notes);
                char *s = cJSON_Print(o);
                if (!s)
                    mem_oom(SONIC_OOM);
                for (char *l = notes.p; l && *l;) {
                    char *nl = strchr(l, '\n');
                    fprintf(stderr, "rocesim: note: %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
                    l = nl ? nl + 1 : l + strlen(l);
                }
                printf("%s\n", s);
                free(s);
                free(notes.p);
                cJSON_Delete(o);
            }
            run_free(&r);
        }
        scn_free(&scn);
    }
    cfg_cmd_free(c);
    free(c);
    return rc;
}
