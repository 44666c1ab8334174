/* sonic — see sonic.h; the mapping of each SONiC field is tabled in docs/sonic.md. */
#include "tools/ops/sonic.h"
#include "tools/ops/cfgcmd.h"
#include "models/ecn.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "models/switch.h"
#include "models/trim.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/units.h"
#include "tools/run/run.h"
#include "tools/explore/sweep.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SONIC_OOM "converting a SONiC configuration"
#define MAX_PORTS 1024       /* SONiC ports of one config_db.json (a switch has a few hundred at most) */
#define PORT_NAME_MAX 64     /* a SONiC port name's bytes, with the NUL */
#define MAX_PORT_NUMBER 99999 /* the largest port a profile's "node:port" selector takes (five digits) */

/* ------------------------------------------------------------------------------------------------------------ */
/* Import                                                                                                         */

/* The tables the import reads, in the order it reads them. */
enum { T_POOL, T_PROFILE, T_PG, T_QOS, T_WRED, T_QUEUE, T_SCHED, T_WD, T_TRIM, N_TABLES };
static const char *const qos_tables[N_TABLES + 1] = {"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "PORT_QOS_MAP",
                                                     "WRED_PROFILE", "QUEUE", "SCHEDULER", "PFC_WD", "SWITCH_TRIMMING",
                                                     NULL};
#define QOS_TABLE_LIST                                                                                             \
    "BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, PORT_QOS_MAP, WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD, SWITCH_TRIMMING"

struct sport {
    char name[PORT_NAME_MAX];
    unsigned pfc;         /* PORT_QOS_MAP.pfc_enable as a mask of priorities */
    const char *qos_key;  /* the PORT_QOS_MAP entry that gave it, or NULL */
    const char *pg_prof;  /* the BUFFER_PROFILE of its lossless PGs ("NULL": SONiC computes it), or NULL */
    const char *wred;     /* the WRED_PROFILE of its queues, or NULL */
    bool wred_lossless;   /* that profile is one of its lossless queues' */
    const char *sched[8]; /* QUEUE.scheduler per queue */
    bool ecn;
    int64_t kmin, kmax;
    int pmax_pct;
};

/* One pair of --ports: SONiC port name=node:port. */
struct pmap {
    char name[PORT_NAME_MAX];
    char node[SCN_NAME_MAX];
    long port;
};

struct imp {
    const char *file;
    char *err;
    size_t errlen;
    cJSON *nm;          /* not_modelled */
    struct sbuf *notes;
    struct sport *ports;
    int n_ports;
    struct sport **kp;  /* the ports of the key being read */
    int n_kp;
    const struct pmap *map;
    int n_map;
    const cJSON *t[N_TABLES];
    unsigned common_pfc;      /* the PFC priorities of most ports */
    const struct sport *ce;   /* a port with the ECN setting of most ports, or NULL */
};

/* Fails with "FILE: PATH[.FIELD]: expected ..." on one line; returns SCN_EUSAGE. */
__attribute__((format(printf, 4, 5))) static int fail(struct imp *m, const char *path, const char *field,
                                                      const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sfmt(m->err, m->errlen, "%s: %s%s%s: %s", m->file, path, field ? "." : "", field ? field : "", msg);
    scn_one_line(m->err);
    return SCN_EUSAGE;
}

/* Appends one line to the notes (keys may hold control characters: they print as '?'). */
__attribute__((format(printf, 2, 3))) static void note(struct imp *m, const char *fmt, ...)
{
    if (!m->notes)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    scn_one_line(line);
    sb_printf(m->notes, "%s\n", line);
}

/* Records a key path the import leaves out, once, with why on the notes. */
static void not_modelled(struct imp *m, const char *path, const char *why)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, m->nm)
        if (strcmp(e->valuestring, path) == 0)
            return;
    cJSON_AddItemToArray(m->nm, cJSON_CreateString(path));
    note(m, "%s: %s: not modelled (%s)", m->file, path, why);
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
    char b[64];
    const char *s = val_text(v, b, sizeof b);
    char *end;
    errno = 0;
    long long x = s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || *end || errno)
        return -fail(m, path, key, "expected an integer%s%s, got %s%.60s%s", unit ? " in " : "", unit ? unit : "",
                     s ? "\"" : "", s ? s : "a non-number", s ? "\"" : "");
    if (x < lo || x > hi)
        return -fail(m, path, key, "expected %s %lld..%lld (SONiC's range), got %lld", unit ? unit : "a value", lo, hi,
                     x);
    *out = x;
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

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/*
 * The ports of a key into m->kp: "Ethernet0", or several joined by commas ("Ethernet0,Ethernet4"), as older SONiC
 * templates write the BUFFER_PG, QUEUE and PORT_QOS_MAP keys and as SONiC's orchagent splits them.  With
 * ranged, the key ends in "|N" or "|N-M" (0 <= N <= M <= 7), whose mask goes to *mask.  Returns 0 or the failure.
 */
static int key_ports(struct imp *m, const char *table, const char *key, bool ranged, unsigned *mask)
{
    const char *end = key + strlen(key), *bar = strchr(key, '|');
    *mask = 0;
    if (ranged) {
        if (!bar || bar == key || strchr(bar + 1, '|'))
            return fail(m, table, key, "expected a key PORT|N or PORT|N-M (PORT: one port, or several joined by "
                        "commas), got \"%s\"", key);
        /* one digit each, as sonic-buffer-pg.yang's pattern [0-7](-[0-7])? has them (and a port's 8 queues): no
         * sign, space or leading zero */
        const char *r = bar + 1;
        bool one = digit(r[0]) && r[1] == '\0', two = digit(r[0]) && r[1] == '-' && digit(r[2]) && r[3] == '\0';
        if (!one && !two)
            return fail(m, table, key, "expected a key PORT|N or PORT|N-M with N, M single digits 0..7, got \"%s\"",
                        key);
        int a = r[0] - '0', b = two ? r[2] - '0' : a;
        if (b > 7 || a > b)
            return fail(m, table, key, "expected a range N-M with 0 <= N <= M <= 7, got \"%s\"", bar + 1);
        for (int i = a; i <= b; i++)
            *mask |= 1u << i;
        end = bar;
    } else if (bar) {
        return fail(m, table, key, "expected a port name, or several joined by commas, got \"%s\"", key);
    }
    m->n_kp = 0;
    for (const char *s = key;;) {
        const char *c = memchr(s, ',', (size_t)(end - s)), *e = c ? c : end;
        char name[PORT_NAME_MAX];
        if (e == s)
            return fail(m, table, key, "expected port names joined by commas, got an empty name");
        if (e - s >= PORT_NAME_MAX)
            return fail(m, table, key, "expected port names of at most %d characters, got \"%.*s...\"",
                        PORT_NAME_MAX - 1, 40, s);
        if (m->n_kp == MAX_PORTS)
            return fail(m, table, key, "expected at most %d ports", MAX_PORTS);
        sfmt(name, sizeof name, "%.*s", (int)(e - s), s);
        struct sport *p = port_of(m, name);
        if (!p)
            return fail(m, table, key, "expected at most %d ports", MAX_PORTS);
        m->kp[m->n_kp++] = p;
        if (!c)
            return 0;
        s = c + 1;
    }
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
        return fail(m, name, NULL, "expected an object of entries, got %s",
                    cJSON_IsArray(*out) ? "an array" : "a value");
    const cJSON *e;
    cJSON_ArrayForEach(e, *out)
        if (!cJSON_IsObject(e))
            return fail(m, name, e->string, "expected an object of fields, got a value");
    return 0;
}

/* The QoS tables into m->t (the other tables are noted); a file without one QoS entry is refused. */
static int imp_tables(struct imp *m, const cJSON *root)
{
    int entries = 0;
    for (int i = 0; i < N_TABLES; i++) {
        if (table_obj(m, root, qos_tables[i], &m->t[i]))
            return SCN_EUSAGE;
        entries += cJSON_GetArraySize(m->t[i]);
    }
    if (!entries) {
        /* importing nothing would give rocesim's defaults, which no switch said: say what the file holds */
        char names[256] = "";
        size_t used = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, root) {
            int k = snprintf(names + used, sizeof names - used, "%s%.40s", used ? ", " : "", f->string);
            if (k < 0 || (size_t)k >= sizeof names - used) {
                sfmt(names + (used < sizeof names - 6 ? used : sizeof names - 6), 6, ", ...");
                break;
            }
            used += (size_t)k;
        }
        if (!root->child)
            return fail(m, "(top level)", NULL, "expected an entry in at least one of the QoS tables " QOS_TABLE_LIST
                        ", got an empty object");
        return fail(m, "(top level)", NULL, "expected an entry in at least one of the QoS tables " QOS_TABLE_LIST
                    ", got none (the file's tables: %s)", names);
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, root) {
        bool k = false;
        for (int i = 0; qos_tables[i] && !k; i++)
            k = strcmp(f->string, qos_tables[i]) == 0;
        if (!k)
            not_modelled(m, f->string, "not a QoS table rocesim reads");
    }
    return 0;
}

/* "3,4" -> a mask of priorities; false when it is not priorities 0..7 separated by commas. */
static bool pfc_mask(const cJSON *v, unsigned *mask)
{
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    *mask = 0;
    if (!s)
        return false;
    for (int i = 0; s[i]; i++) {
        if (i % 2 == 0 && (s[i] < '0' || s[i] > '7'))
            return false;
        if (i % 2 == 1 && (s[i] != ',' || !s[i + 1]))
            return false;
        if (i % 2 == 0)
            *mask |= 1u << (s[i] - '0');
    }
    return true;
}

/* "3,4" from a mask of priorities, into buf. */
static const char *mask_text(unsigned mask, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int p = 0; p < 8; p++)
        if (mask & (1u << p))
            k += (size_t)snprintf(buf + k, len - k, "%s%d", k ? "," : "", p);
    return buf;
}

/* PORT_QOS_MAP: pfc_enable per port. */
static int imp_qos_map(struct imp *m)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, m->t[T_QOS]) {
        char path[512], a[32];
        sfmt(path, sizeof path, "PORT_QOS_MAP.%s", e->string);
        if (strcmp(e->string, "global") == 0) {
            unknown_fields(m, e, path, (const char *const[]){NULL});
            continue;
        }
        unsigned mask = 0, unused;
        if (key_ports(m, "PORT_QOS_MAP", e->string, false, &unused))
            return SCN_EUSAGE;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "pfc_enable");
        if (v && !pfc_mask(v, &mask))
            return fail(m, path, "pfc_enable", "expected priorities 0..7 separated by commas like \"3,4\"");
        for (int i = 0; i < m->n_kp; i++) {
            struct sport *p = m->kp[i];
            /* SONiC applies the entries in no set order: two that disagree leave the port's PFC to chance */
            if (p->qos_key && p->pfc != mask)
                return fail(m, path, "pfc_enable", "expected one pfc_enable per port, got %s also in "
                            "PORT_QOS_MAP.%s with \"%s\"", p->name, p->qos_key, mask_text(p->pfc, a, sizeof a));
            p->qos_key = e->string;
            p->pfc = mask;
        }
        const cJSON *f;
        cJSON_ArrayForEach(f, e)
            if (strcmp(f->string, "pfc_enable")) {
                char p2[512];
                sfmt(p2, sizeof p2, "PORT_QOS_MAP.*.%s", f->string);
                not_modelled(m, p2, strcmp(f->string, "scheduler") == 0 ? "a port scheduler (shaper)"
                                                                        : "rocesim classifies by priority alone");
            }
    }
    return 0;
}

/* BUFFER_PG: the profile of each port's lossless priority groups (those whose profile has an xoff). */
static int imp_buffer_pg(struct imp *m)
{
    bool lossy = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, m->t[T_PG]) {
        char path[512], nb[256];
        unsigned mask;
        if (key_ports(m, "BUFFER_PG", e->string, true, &mask))
            return SCN_EUSAGE;
        sfmt(path, sizeof path, "BUFFER_PG.%s", e->string);
        const char *name = ref_name(cJSON_GetObjectItemCaseSensitive(e, "profile"), "BUFFER_PROFILE", nb, sizeof nb);
        if (!name)
            return fail(m, path, "profile", "expected the name of a BUFFER_PROFILE entry, got none");
        const cJSON *pr = strcmp(name, "NULL") == 0 ? NULL : cJSON_GetObjectItemCaseSensitive(m->t[T_PROFILE], name);
        if (strcmp(name, "NULL") != 0 && !pr)
            return fail(m, path, "profile", "expected the name of a BUFFER_PROFILE entry, got \"%.60s\"", name);
        if (pr && !cJSON_GetObjectItemCaseSensitive(pr, "xoff")) {
            lossy = true;
            continue;
        }
        /* "NULL": SONiC's dynamic buffer model computes the lossless profile from the port's speed and cable */
        const char *keep = pr ? pr->string : "NULL";
        for (int i = 0; i < m->n_kp; i++) {
            struct sport *p = m->kp[i];
            if (p->pg_prof && strcmp(p->pg_prof, keep))
                not_modelled(m, path, "a second lossless profile on one port; the port takes its first");
            else
                p->pg_prof = keep;
        }
    }
    if (lossy)
        not_modelled(m, "BUFFER_PG.*", "lossy priority groups: rocesim's lossy traffic shares the buffer up to "
                                       "switch.lossy_queue_limit per egress queue");
    return 0;
}

/*
 * The first port with the most ports the same as it: the value most ports have.  NULL when no port is the same as
 * itself (none has the value).
 */
static const struct sport *majority(const struct imp *m, bool (*same)(const struct sport *, const struct sport *))
{
    const struct sport *best = NULL;
    int best_n = 0;
    for (int i = 0; i < m->n_ports; i++) {
        int n = 0;
        for (int j = 0; j < m->n_ports; j++)
            n += same(&m->ports[i], &m->ports[j]);
        if (n > best_n) {
            best = &m->ports[i];
            best_n = n;
        }
    }
    return best;
}

static bool same_pg_prof(const struct sport *a, const struct sport *b)
{
    return a->pg_prof && b->pg_prof && strcmp(a->pg_prof, b->pg_prof) == 0;
}

static bool same_pfc(const struct sport *a, const struct sport *b)
{
    return a->pfc == b->pfc;
}

static bool is_ingress_pool(const cJSON *pl)
{
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(pl, "type");
    return !ty || (cJSON_IsString(ty) && (strcmp(ty->valuestring, "ingress") == 0 ||
                                          strcmp(ty->valuestring, "both") == 0));
}

/*
 * The pool whose size is switch.buffer: the lossless profile's (name); without one (PFC off, or SONiC's dynamic
 * buffer model), ingress_lossless_pool, else the only ingress pool.  Checks it, and notes the other pools.  *out is
 * the pool, or NULL when there is none of these.
 */
static int imp_pool(struct imp *m, const char *name, cJSON *sw, const cJSON **out)
{
    const cJSON *pools = m->t[T_POOL], *pl = NULL, *e;
    *out = NULL;
    if (name) {
        pl = cJSON_GetObjectItemCaseSensitive(pools, name);
    } else if (!(pl = cJSON_GetObjectItemCaseSensitive(pools, "ingress_lossless_pool"))) {
        int n = 0;
        cJSON_ArrayForEach(e, pools)
            if (is_ingress_pool(e) && n++ == 0)
                pl = e;
        if (n != 1)
            pl = NULL;
    }
    cJSON_ArrayForEach(e, pools)
        if (e != pl) {
            char p2[512];
            sfmt(p2, sizeof p2, "BUFFER_POOL.%s", e->string);
            not_modelled(m, p2, pl ? "rocesim has one shared buffer, the lossless PGs' pool"
                                   : "no lossless profile names a pool, and there is no ingress_lossless_pool or "
                                     "single ingress pool: switch.buffer is rocesim's default");
        }
    if (!pl)
        return 0;
    char pp[512], a[32];
    sfmt(pp, sizeof pp, "BUFFER_POOL.%s", pl->string);
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(pl, "mode");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pl, "type");
    if ((mode || name) &&
        (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "static") && strcmp(mode->valuestring, "dynamic"))))
        return fail(m, pp, "mode", "expected \"static\" or \"dynamic\", got %.60s",
                    cJSON_IsString(mode) ? mode->valuestring : mode ? "a value" : "none");
    if (type && (!cJSON_IsString(type) || (strcmp(type->valuestring, "ingress") &&
                                           strcmp(type->valuestring, "egress") && strcmp(type->valuestring, "both"))))
        return fail(m, pp, "type", "expected \"ingress\", \"egress\" or \"both\", got %.60s",
                    cJSON_IsString(type) ? type->valuestring : "a value");
    long long size = -1, pxoff = 0;
    if (get_int(m, pl, pp, "size", 1, (1LL << 31) - 1, "bytes", &size) < 0 ||
        get_int(m, pl, pp, "xoff", 0, (1LL << 31) - 1, "bytes", &pxoff) < 0)
        return SCN_EUSAGE;
    if (size > 0)
        cJSON_AddStringToObject(sw, "buffer", units_fmt_size(size, a, sizeof a));
    else
        note(m, "%s: %s has no size (SONiC's dynamic buffer model computes it): switch.buffer is rocesim's default",
             m->file, pp);
    if (pxoff > 0) {
        char p2[600];
        sfmt(p2, sizeof p2, "%s.xoff", pp);
        not_modelled(m, p2, "a shared headroom pool; rocesim reserves headroom per port and priority");
    }
    if (!name && mode) {
        char p2[600];
        sfmt(p2, sizeof p2, "%s.mode", pp);
        not_modelled(m, p2, "no lossless profile uses the pool: its threshold mode sets switch.pfc.xoff only with "
                            "the profile's threshold");
    }
    *out = pl;
    return 0;
}

/* SONiC resumes a static pool's PG at max(xon, static_th - xon_offset): rocesim at xoff - xon_delta. */
static int64_t static_xon_delta(struct imp *m, const char *path, long long sth, bool has_xon, long long xon,
                                bool has_off, long long off)
{
    long long resume = has_off ? sth - off : xon;
    if (has_xon && xon > resume)
        resume = xon;
    if (resume > sth) {
        char p2[600];
        sfmt(p2, sizeof p2, "%s.xon", path);
        not_modelled(m, p2, "a resume point above static_th: rocesim resumes at XOFF at the highest");
        resume = sth;
    }
    return sth - (resume < 0 ? 0 : resume);
}

/* BUFFER_PROFILE prof on its pool pl -> switch.pfc's thresholds. */
static int imp_profile(struct imp *m, const char *prof, const cJSON *pl, cJSON *pfc)
{
    char path[512], a[32];
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(m->t[T_PROFILE], prof);
    sfmt(path, sizeof path, "BUFFER_PROFILE.%s", prof);
    static const char *const known[] = {"pool", "size", "xoff", "xon", "xon_offset", "dynamic_th", "static_th",
                                        "headroom_type", NULL};
    unknown_fields(m, pr, path, known);
    const long long big = (1LL << 31) - 1;
    long long xoff = 0, xon = 0, off = 0, psize = 0, dth = 0, sth = 0;
    int r_xon, r_off, rc;
    if (get_int(m, pr, path, "xoff", 0, big, "bytes", &xoff) < 0 ||
        (r_xon = get_int(m, pr, path, "xon", 0, big, "bytes", &xon)) < 0 ||
        (r_off = get_int(m, pr, path, "xon_offset", 0, big, "bytes", &off)) < 0 ||
        get_int(m, pr, path, "size", 0, big, "bytes", &psize) < 0)
        return SCN_EUSAGE;
    int64_t delta = -1;
    if (strcmp(cJSON_GetObjectItemCaseSensitive(pl, "mode")->valuestring, "dynamic") == 0) {
        if ((rc = get_int(m, pr, path, "dynamic_th", -8, 7, "a log2 of alpha", &dth)) < 0)
            return SCN_EUSAGE;
        if (rc > 0)
            return fail(m, path, "dynamic_th", "expected a value (its pool %.60s is dynamic), got none", pl->string);
        if (dth > 0)
            return fail(m, path, "dynamic_th", "expected at most 0 (alpha 1, the largest rocesim's "
                        "switch.pfc.dynamic_alpha takes), got %lld", dth);
        cJSON_AddStringToObject(pfc, "xoff", "dynamic");
        cJSON_AddNumberToObject(pfc, "dynamic_alpha", ldexp(1.0, (int)dth));
        /* resuming at max(xon, threshold - xon_offset): the offset is rocesim's xon_delta, xon a floor it lacks */
        if (r_off == 0)
            delta = off;
        if (r_xon == 0 && xon > 0) {
            char p2[600];
            sfmt(p2, sizeof p2, "%s.xon", path);
            not_modelled(m, p2, "a floor under the resume point; rocesim resumes xon_delta below XOFF");
        }
    } else {
        if ((rc = get_int(m, pr, path, "static_th", 1, big, "bytes", &sth)) < 0)
            return SCN_EUSAGE;
        if (rc > 0)
            return fail(m, path, "static_th", "expected a value (its pool %.60s is static), got none", pl->string);
        cJSON_AddStringToObject(pfc, "xoff", units_fmt_size(sth, a, sizeof a));
        if (r_xon == 0 || r_off == 0)
            delta = static_xon_delta(m, path, sth, r_xon == 0, xon, r_off == 0, off);
    }
    if (delta >= 0)
        cJSON_AddStringToObject(pfc, "xon_delta", units_fmt_size(delta, a, sizeof a));
    cJSON_AddStringToObject(pfc, "headroom", units_fmt_size(xoff, a, sizeof a));
    if (psize > xoff) {
        char p2[600];
        sfmt(p2, sizeof p2, "%s.size", path);
        not_modelled(m, p2, "a reserved minimum beyond the headroom (size - xoff); rocesim reserves the headroom");
    }
    return 0;
}

/* switch.buffer and switch.pfc's thresholds: the pool and lossless profile most ports use. */
/* A profile that says only that its queues trim (what the export writes): read as switch.trim, nothing else. */
static bool trim_only(const cJSON *prof)
{
    return cJSON_GetArraySize(prof) == 1 && cJSON_GetObjectItemCaseSensitive(prof, "packet_discard_action");
}

static int imp_buffer(struct imp *m, cJSON *sw, cJSON *pfc)
{
    const struct sport *mp = majority(m, same_pg_prof);
    const char *prof = mp ? mp->pg_prof : NULL;
    bool real = prof && strcmp(prof, "NULL") != 0;
    const cJSON *pr = real ? cJSON_GetObjectItemCaseSensitive(m->t[T_PROFILE], prof) : NULL, *pl, *e;
    char nb[256];
    const char *pool = pr ? ref_name(cJSON_GetObjectItemCaseSensitive(pr, "pool"), "BUFFER_POOL", nb, sizeof nb) : NULL;
    if (pr && (!pool || !cJSON_GetObjectItemCaseSensitive(m->t[T_POOL], pool))) {
        char path[512];
        sfmt(path, sizeof path, "BUFFER_PROFILE.%s", prof);
        return fail(m, path, "pool", "expected the name of a BUFFER_POOL entry, got %s%.60s%s", pool ? "\"" : "",
                    pool ? pool : "none", pool ? "\"" : "");
    }
    if (imp_pool(m, pool, sw, &pl))
        return SCN_EUSAGE;
    if (real && imp_profile(m, prof, pl, pfc))
        return SCN_EUSAGE;
    if (prof && !real) {
        cJSON_AddStringToObject(pfc, "headroom", "auto");
        not_modelled(m, "BUFFER_PG.*.profile NULL", "SONiC's dynamic buffer model: headroom \"auto\", the rest of "
                                                   "switch.pfc rocesim's defaults");
    }
    cJSON_ArrayForEach(e, m->t[T_PROFILE])
        if ((!real || strcmp(e->string, prof)) && !trim_only(e)) {
            char p2[512];
            sfmt(p2, sizeof p2, "BUFFER_PROFILE.%s", e->string);
            not_modelled(m, p2, cJSON_GetObjectItemCaseSensitive(e, "xoff")
                                    ? "a second lossless profile: the ports take the most common one"
                                    : "an ingress or egress profile of lossy traffic or egress queues");
        }
    return 0;
}

/* WRED_PROFILE name: checked, and its ECN thresholds for green packets into p (when not NULL). */
static int imp_wred(struct imp *m, const char *name, struct sport *p)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(m->t[T_WRED], name);
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
            return fail(m, path, "ecn", "expected ecn_none, ecn_green, ecn_yellow, ecn_red, ecn_green_yellow, "
                        "ecn_green_red, ecn_yellow_red or ecn_all, got %.60s",
                        cJSON_IsString(ecn) ? ecn->valuestring : "a value");
    }
    const cJSON *ge = cJSON_GetObjectItemCaseSensitive(w, "wred_green_enable");
    char b[64];
    const char *gs = ge ? val_text(ge, b, sizeof b) : "false";
    if (!gs || (strcmp(gs, "true") && strcmp(gs, "false")))
        return fail(m, path, "wred_green_enable", "expected \"true\" or \"false\", got %.60s", gs ? gs : "a value");
    long long kmin = 0, kmax = 0, prob = 100;
    const long long big = (1LL << 31) - 1;
    if (get_int(m, w, path, "green_min_threshold", 0, big, "bytes", &kmin) < 0 ||
        get_int(m, w, path, "green_max_threshold", 0, big, "bytes", &kmax) < 0 ||
        get_int(m, w, path, "green_drop_probability", 0, 100, "percent", &prob) < 0)
        return SCN_EUSAGE;
    if (kmax < kmin)
        return fail(m, path, "green_max_threshold", "expected a value at least green_min_threshold (%lld), got %lld",
                    kmin, kmax);
    /* Marking thresholds of their own (newer SONiC) take the place of the drop thresholds for marking. */
    if (cJSON_GetObjectItemCaseSensitive(w, "ecn_green_min_threshold")) {
        long long emin = 0, emax = 0, eprob = 100;
        if (get_int(m, w, path, "ecn_green_min_threshold", 0, big, "bytes", &emin) < 0 ||
            get_int(m, w, path, "ecn_green_max_threshold", 0, big, "bytes", &emax) < 0 ||
            get_int(m, w, path, "ecn_green_mark_probability", 0, 100, "percent", &eprob) < 0)
            return SCN_EUSAGE;
        if (emax < emin)
            return fail(m, path, "ecn_green_max_threshold", "expected a value at least ecn_green_min_threshold "
                        "(%lld), got %lld", emin, emax);
        char p2[600];
        sfmt(p2, sizeof p2, "%s.green_min_threshold", path);
        not_modelled(m, p2, "WRED drops above the marking thresholds: rocesim marks, it does not drop early");
        kmin = emin;
        kmax = emax;
        prob = eprob;
    }
    bool green = mode == 1 || mode == 4 || mode == 5 || mode == 7;
    if (!green && strcmp(gs, "true") == 0)
        not_modelled(m, path, "WRED dropping without ECN marking");
    if (p) {
        p->ecn = green && strcmp(gs, "true") == 0;
        p->kmin = kmin;
        p->kmax = kmax;
        p->pmax_pct = (int)prob;
    }
    return 0;
}

static int imp_scheduler_check(struct imp *m)
{
    static const char *const known[] = {"type", "weight", NULL};
    const cJSON *e;
    cJSON_ArrayForEach(e, m->t[T_SCHED]) {
        char path[512];
        sfmt(path, sizeof path, "SCHEDULER.%s", e->string);
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        if (ty && (!cJSON_IsString(ty) || (strcmp(ty->valuestring, "DWRR") && strcmp(ty->valuestring, "WRR") &&
                                           strcmp(ty->valuestring, "STRICT"))))
            return fail(m, path, "type", "expected DWRR, WRR or STRICT, got %.60s",
                        cJSON_IsString(ty) ? ty->valuestring : "a value");
        long long w;
        if (get_int(m, e, path, "weight", 1, 100, "a weight", &w) < 0)
            return SCN_EUSAGE;
        unknown_fields(m, e, path, known);
    }
    return 0;
}

/* A queue entry's reference to table (QUEUE.<key>.<field>): the entry it names, or NULL after the failure. */
static const cJSON *queue_ref(struct imp *m, const cJSON *e, const char *field, int table)
{
    char path[512], nb[256];
    sfmt(path, sizeof path, "QUEUE.%s", e->string);
    const char *n = ref_name(cJSON_GetObjectItemCaseSensitive(e, field), qos_tables[table], nb, sizeof nb);
    const cJSON *r = n ? cJSON_GetObjectItemCaseSensitive(m->t[table], n) : NULL;
    if (!r)
        fail(m, path, field, "expected the name of a %s entry, got %s%.60s%s", qos_tables[table], n ? "\"" : "",
             n ? n : "a value", n ? "\"" : "");
    return r;
}

/* QUEUE: each port's scheduler per queue and its WRED profile (its lossless queues' when they differ). */
static int imp_queues(struct imp *m)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, m->t[T_QUEUE]) {
        unsigned mask;
        if (key_ports(m, "QUEUE", e->string, true, &mask))
            return SCN_EUSAGE;
        const cJSON *s = NULL, *w = NULL;
        if (cJSON_GetObjectItemCaseSensitive(e, "scheduler") && !(s = queue_ref(m, e, "scheduler", T_SCHED)))
            return SCN_EUSAGE;
        if (cJSON_GetObjectItemCaseSensitive(e, "wred_profile") && !(w = queue_ref(m, e, "wred_profile", T_WRED)))
            return SCN_EUSAGE;
        for (int i = 0; i < m->n_kp; i++) {
            struct sport *p = m->kp[i];
            for (int q = 0; q < 8 && s; q++)
                if (mask & (1u << q))
                    p->sched[q] = s->string;
            if (!w || (p->wred && strcmp(p->wred, w->string) == 0))
                continue;
            bool lossless = (mask & p->pfc) != 0;
            if (p->wred) {
                char p2[512];
                sfmt(p2, sizeof p2, "QUEUE.%s|*.wred_profile", p->name);
                not_modelled(m, p2, "queues of one port with different WRED profiles; rocesim's ECN thresholds are "
                                    "per port: the lossless queues' are taken");
                if (p->wred_lossless || !lossless)
                    continue;
            }
            p->wred = w->string;
            p->wred_lossless = lossless;
        }
    }
    return 0;
}

/* Whether a QUEUE entry names `name` in field (of table). */
static bool queue_uses(const struct imp *m, const char *field, int table, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, m->t[T_QUEUE]) {
        char nb[256];
        const char *n = ref_name(cJSON_GetObjectItemCaseSensitive(e, field), qos_tables[table], nb, sizeof nb);
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* Every WRED profile checked; each port's ECN from its own; profiles and schedulers no queue uses noted. */
static int imp_wreds(struct imp *m)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, m->t[T_WRED]) {
        if (imp_wred(m, w->string, NULL))
            return SCN_EUSAGE;
        if (!queue_uses(m, "wred_profile", T_WRED, w->string)) {
            char p2[512];
            sfmt(p2, sizeof p2, "WRED_PROFILE.%s", w->string);
            not_modelled(m, p2, "no queue uses it");
        }
    }
    cJSON_ArrayForEach(w, m->t[T_SCHED])
        if (!queue_uses(m, "scheduler", T_SCHED, w->string)) {
            char p2[512];
            sfmt(p2, sizeof p2, "SCHEDULER.%s", w->string);
            not_modelled(m, p2, "no queue uses it");
        }
    for (int i = 0; i < m->n_ports; i++)
        if (m->ports[i].wred && imp_wred(m, m->ports[i].wred, &m->ports[i]))
            return SCN_EUSAGE;
    return 0;
}

static cJSON *prios_json(unsigned mask)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 8; i++)
        if (mask & (1u << i))
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
    return arr;
}

/* The PFC of a port, or of the switch: on with its priorities, or off. */
static void pfc_json(cJSON *pfc, unsigned mask)
{
    cJSON_AddBoolToObject(pfc, "enabled", mask != 0);
    if (mask)
        cJSON_AddItemToObject(pfc, "priorities", prios_json(mask));
}

/* The ECN object of a port; returns it (new). */
static cJSON *ecn_json(const struct sport *p)
{
    char a[32];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddBoolToObject(e, "enabled", p && p->ecn);
    if (p && p->ecn) {
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

/* switch.pfc.enabled and priorities: the PFC priorities of most ports. */
static void imp_pfc(struct imp *m, cJSON *pfc)
{
    const struct sport *mp = majority(m, same_pfc);
    int qos = 0;
    m->common_pfc = mp ? mp->pfc : 0;
    for (int i = 0; i < m->n_ports; i++)
        qos += m->ports[i].qos_key != NULL;
    pfc_json(pfc, m->common_pfc);
    if (!qos)
        note(m, "%s: no port has a PORT_QOS_MAP entry: PFC is off on every port (switch.pfc.enabled false), as SONiC "
                "runs such a switch", m->file);
}

/* switch.ecn: the ECN setting of most ports. */
static void imp_ecn(struct imp *m, cJSON *sw)
{
    int wred = 0;
    m->ce = majority(m, same_ecn);
    for (int i = 0; i < m->n_ports; i++)
        wred += m->ports[i].wred != NULL;
    cJSON_AddItemToObject(sw, "ecn", ecn_json(m->ce));
    if (!wred)
        note(m, "%s: no QUEUE entry names a WRED_PROFILE: no port marks (switch.ecn.enabled false), as SONiC runs such "
                "a switch", m->file);
}

/* switch.scheduler: the first port's, queue by queue; the ports whose queues differ are noted. */
static void imp_scheduler(struct imp *m, cJSON *sw)
{
    const struct sport *sp = NULL;
    for (int i = 0; i < m->n_ports && !sp; i++)
        for (int q = 0; q < 8 && !sp; q++)
            if (m->ports[i].sched[q])
                sp = &m->ports[i];
    if (!sp)
        return;
    cJSON *so = cJSON_CreateObject(), *wo = cJSON_CreateObject();
    bool weighted = false;
    for (int q = 0; q < 8; q++) {
        const cJSON *s = sp->sched[q] ? cJSON_GetObjectItemCaseSensitive(m->t[T_SCHED], sp->sched[q]) : NULL;
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

/* One port's PFC_WD entry: checked against SONiC's ranges and the poll interval (poll <= 0: none given). */
static int wd_port(struct imp *m, const cJSON *e, long long poll, long long *det, long long *res)
{
    char path[512];
    sfmt(path, sizeof path, "PFC_WD.%s", e->string);
    if (strchr(e->string, ','))
        return fail(m, path, NULL, "expected one port name (SONiC's watchdog takes one port per entry), got "
                    "\"%s\"", e->string);
    *det = 200; /* SONiC's pfcwd defaults */
    *res = 200;
    if (get_int(m, e, path, "detection_time", 100, 5000, "milliseconds", det) < 0 ||
        get_int(m, e, path, "restoration_time", 100, 60000, "milliseconds", res) < 0)
        return SCN_EUSAGE;
    if (poll > 0 && *det < poll)
        return fail(m, path, "detection_time", "expected at least PFC_WD.GLOBAL.POLL_INTERVAL (%lld), got %lld",
                    poll, *det);
    if (poll > 0 && *res < poll)
        return fail(m, path, "restoration_time", "expected at least PFC_WD.GLOBAL.POLL_INTERVAL (%lld), got %lld",
                    poll, *res);
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(e, "action");
    if (act && (!cJSON_IsString(act) || (strcmp(act->valuestring, "drop") && strcmp(act->valuestring, "forward") &&
                                         strcmp(act->valuestring, "alert"))))
        return fail(m, path, "action", "expected drop, forward or alert, got %.60s",
                    cJSON_IsString(act) ? act->valuestring : "a value");
    static const char *const known[] = {"action", "detection_time", "restoration_time", NULL};
    unknown_fields(m, e, "PFC_WD.*", known);
    return 0;
}

/* A checked PFC_WD port entry's action; one without acts as "drop" (docs/sonic.md, PFC_WD), so compares equal to it. */
static const char *wd_action(const cJSON *e)
{
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(e, "action");
    return act ? act->valuestring : "drop";
}

/* PFC_WD -> switch.watchdog: the first port's; ports that differ are noted. */
static int imp_watchdog(struct imp *m, cJSON *sw)
{
    const cJSON *wd = m->t[T_WD], *e, *first = NULL;
    if (!wd)
        return 0;
    long long poll = -1, det0 = 0, res0 = 0;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(wd, "GLOBAL");
    if (g) {
        if (get_int(m, g, "PFC_WD.GLOBAL", "POLL_INTERVAL", 100, 1000, "milliseconds", &poll) < 0)
            return SCN_EUSAGE;
        static const char *const known[] = {"POLL_INTERVAL", NULL};
        unknown_fields(m, g, "PFC_WD.GLOBAL", known);
    }
    cJSON_ArrayForEach(e, wd) {
        long long det, res;
        if (strcmp(e->string, "GLOBAL") == 0)
            continue;
        if (wd_port(m, e, poll, &det, &res))
            return SCN_EUSAGE;
        if (!first) {
            first = e;
            det0 = det;
            res0 = res;
            continue;
        }
        if (det != det0 || res != res0 || strcmp(wd_action(e), wd_action(first))) {
            char path[512];
            sfmt(path, sizeof path, "PFC_WD.%s", e->string);
            not_modelled(m, path, "one watchdog for every port in rocesim: the first port's is taken");
        }
    }
    if (!first) {
        if (g)
            not_modelled(m, "PFC_WD.GLOBAL", "no port has a PFC_WD entry: the watchdog is off");
        return 0;
    }
    char a[32];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "enabled", true);
    cJSON_AddStringToObject(o, "detection_time", units_fmt_time(det0 * PS_PER_MS, a, sizeof a));
    cJSON_AddStringToObject(o, "restoration_time", units_fmt_time(res0 * PS_PER_MS, a, sizeof a));
    if (poll > 0)
        cJSON_AddStringToObject(o, "poll_interval", units_fmt_time(poll * PS_PER_MS, a, sizeof a));
    cJSON_AddStringToObject(o, "action", wd_action(first));
    cJSON_AddItemToObject(sw, "watchdog", o);
    return 0;
}

/* The rocesim selector of a SONiC port: from --ports, else the placeholder SWITCH:<name>. */
static void selector(const struct imp *m, const char *name, char *out, size_t len)
{
    for (int i = 0; i < m->n_map; i++)
        if (strcmp(m->map[i].name, name) == 0) {
            sfmt(out, len, "%s:%ld", m->map[i].node, m->map[i].port);
            return;
        }
    sfmt(out, len, "SWITCH:%s", name);
}

/* Profiles for the ports whose PFC or ECN differ from the switch-wide values; notes on --ports. */
static void imp_profiles(struct imp *m, cJSON *profs)
{
    int placeholders = 0;
    for (int i = 0; i < m->n_ports; i++) {
        const struct sport *p = &m->ports[i];
        bool dp = p->pfc != m->common_pfc, de = m->ce && !same_ecn(p, m->ce);
        if (!dp && !de)
            continue;
        char sel[192];
        selector(m, p->name, sel, sizeof sel);
        placeholders += strncmp(sel, "SWITCH:", 7) == 0;
        cJSON *o = cJSON_CreateObject(), *so = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "match", sel);
        if (dp)
            pfc_json(cJSON_AddObjectToObject(so, "pfc"), p->pfc);
        if (de)
            cJSON_AddItemToObject(so, "ecn", ecn_json(p));
        cJSON_AddItemToObject(o, "switch", so);
        cJSON_AddItemToArray(profs, o);
    }
    if (placeholders)
        note(m, "%s: %d profile%s match SWITCH:<SONiC port>: rename SWITCH to the switch's node and the port to its "
                "number, or give --ports Ethernet0=tor0:0,...", m->file, placeholders, placeholders == 1 ? "" : "s");
    for (int i = 0; i < m->n_map; i++) {
        bool found = false;
        for (int j = 0; j < m->n_ports && !found; j++)
            found = strcmp(m->ports[j].name, m->map[i].name) == 0;
        if (!found)
            note(m, "--ports: %s is no port of %s's QoS tables", m->map[i].name, m->file);
    }
}

/* The import proper; fills the output objects. */
/*
 * Packet trimming (SONiC's design: SWITCH_TRIMMING|GLOBAL's size and queue_index; a BUFFER_PROFILE's
 * packet_discard_action "trim" makes the queues that use it trim) -> switch.trim, on when some profile trims.
 */
static int imp_trim(struct imp *m, cJSON *sw)
{
    const cJSON *e, *t = m->t[T_TRIM];
    bool trims = false;
    cJSON_ArrayForEach(e, m->t[T_PROFILE]) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "packet_discard_action");
        char path[512];
        sfmt(path, sizeof path, "BUFFER_PROFILE.%s", e->string);
        if (a && !(cJSON_IsString(a) && (!strcmp(a->valuestring, "trim") || !strcmp(a->valuestring, "drop"))))
            return fail(m, path, "packet_discard_action", "expected \"drop\" or \"trim\", got %s%.60s%s",
                        cJSON_IsString(a) ? "\"" : "", cJSON_IsString(a) ? a->valuestring : "another type",
                        cJSON_IsString(a) ? "\"" : "");
        trims |= a && !strcmp(a->valuestring, "trim");
    }
    if (!t && !trims)
        return 0;
    cJSON *tr = cJSON_AddObjectToObject(sw, "trim");
    cJSON_AddBoolToObject(tr, "enabled", trims);
    if (!trims)
        sb_printf(m->notes, "SWITCH_TRIMMING: no BUFFER_PROFILE has packet_discard_action \"trim\": trimming off\n");
    const cJSON *g = t ? cJSON_GetObjectItemCaseSensitive(t, "GLOBAL") : NULL;
    if (!g)
        return 0;
    long long size, q;
    char b[32];
    int rc = get_int(m, g, "SWITCH_TRIMMING.GLOBAL", "size", 1, 65535, "bytes", &size);
    if (rc < 0)
        return SCN_EUSAGE;
    if (rc == 0) {
        sfmt(b, sizeof b, "%lldB", size);
        cJSON_AddStringToObject(tr, "size", b);
    }
    const cJSON *qi = cJSON_GetObjectItemCaseSensitive(g, "queue_index");
    if (cJSON_IsString(qi) && !strcmp(qi->valuestring, "dynamic")) {
        not_modelled(m, "SWITCH_TRIMMING.GLOBAL.queue_index dynamic", "the queue a DSCP maps to: switch.trim.priority "
                                                                      "keeps its default");
    } else {
        if ((rc = get_int(m, g, "SWITCH_TRIMMING.GLOBAL", "queue_index", 0, 7, "queue", &q)) < 0)
            return SCN_EUSAGE;
        if (rc == 0)
            cJSON_AddNumberToObject(tr, "priority", (double)q);
    }
    if (cJSON_GetObjectItemCaseSensitive(g, "dscp_value") || cJSON_GetObjectItemCaseSensitive(g, "tc_value"))
        not_modelled(m, "SWITCH_TRIMMING.GLOBAL.dscp_value", "a trimmed frame's DSCP: rocesim sends it at the queue's "
                                                           "priority");
    static const char *const known[] = {"size", "queue_index", "dscp_value", "tc_value", NULL};
    unknown_fields(m, g, "SWITCH_TRIMMING.GLOBAL", known);
    return 0;
}

static int imp_run(struct imp *m, const cJSON *root, cJSON *sw, cJSON *profs)
{
    if (imp_tables(m, root) || imp_qos_map(m) || imp_buffer_pg(m) || imp_scheduler_check(m) || imp_queues(m) ||
        imp_wreds(m))
        return SCN_EUSAGE;
    /* The switch-wide values are those of most ports; ports that differ get profiles where rocesim has a
     * per-port setting (PFC priorities, ECN), and a note where it has none. */
    cJSON *pfc = cJSON_CreateObject();
    imp_pfc(m, pfc);
    if (imp_buffer(m, sw, pfc)) {
        cJSON_Delete(pfc);
        return SCN_EUSAGE;
    }
    cJSON_AddItemToObject(sw, "pfc", pfc);
    imp_ecn(m, sw);
    imp_scheduler(m, sw);
    if (imp_watchdog(m, sw) || imp_trim(m, sw))
        return SCN_EUSAGE;
    imp_profiles(m, profs);
    return 0;
}

/*
 * Whether the bytes s[0..n) name something: 1..63 of them, none a space, a control character or in `forbidden`
 * (its UTF-8 is checked apart, as the scenario loader checks every string).
 */
static bool plain_name(const char *s, size_t n, const char *forbidden)
{
    if (n == 0 || n >= PORT_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (isspace(ch) || iscntrl(ch) || strchr(forbidden, ch))
            return false;
    }
    return true;
}

/* One pair "NAME=NODE:N" of --ports (s[0..l)) into pm; 0, or 2 with "--ports: ..." in err. */
static int ports_pair(const char *s, size_t l, struct pmap *pm, char *err, size_t errlen)
{
    const char *eq = memchr(s, '=', l), *colon = eq ? memchr(eq, ':', l - (size_t)(eq - s)) : NULL;
    const char *num = colon ? colon + 1 : NULL, *end = s + l;
    int il = (int)(l > 200 ? 200 : l);
    if (!eq || !colon) {
        sfmt(err, errlen, "--ports: expected PORT=NODE:N like Ethernet0=tor0:0, got \"%.*s\"", il, s);
        return SCN_EUSAGE;
    }
    sfmt(pm->name, sizeof pm->name, "%.*s", (int)(eq - s), s);
    sfmt(pm->node, sizeof pm->node, "%.*s", (int)(colon - eq - 1), eq + 1);
    if (!plain_name(s, (size_t)(eq - s), "*?|") || scn_utf8_bad_at(pm->name) >= 0) {
        sfmt(err, errlen, "--ports: expected a SONiC port name before \"=\" (UTF-8, no \"*\", \"?\", \"|\" or "
             "whitespace, at most %d characters), got \"%.*s\"", PORT_NAME_MAX - 1, (int)(eq - s > 80 ? 80 : eq - s),
             s);
        return SCN_EUSAGE;
    }
    if (!plain_name(eq + 1, (size_t)(colon - eq - 1), "\",*") || scn_utf8_bad_at(pm->node) >= 0 ||
        !scn_sel_is_one_node(pm->node)) {
        sfmt(err, errlen, "--ports: expected one node's name before \":\" (UTF-8, no \"*\", range or \"all\"), got "
             "\"%.*s\" in \"%.*s\"", (int)(colon - eq - 1 > 80 ? 80 : colon - eq - 1), eq + 1, il, s);
        return SCN_EUSAGE;
    }
    size_t nl = (size_t)(end - num);
    if (nl == 0 || nl > 5 || strspn(num, "0123456789") < nl) {
        sfmt(err, errlen, "--ports: expected a port number 0..%d after \":\", got \"%.*s\" in \"%.*s\"",
             MAX_PORT_NUMBER, (int)(nl > 80 ? 80 : nl), num, il, s);
        return SCN_EUSAGE;
    }
    pm->port = strtol(num, NULL, 10);
    return 0;
}

/* --ports into *out (caller frees) and *n; 0, or 2 with "--ports: ..." in err. */
static int ports_parse(const char *map, struct pmap **out, int *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (!map)
        return 0;
    struct pmap *pm = mem_xcalloc(MAX_PORTS, sizeof *pm, SONIC_OOM);
    int k = 0, rc = 0;
    for (const char *s = map; s && !rc; k++) {
        const char *comma = strchr(s, ',');
        size_t l = comma ? (size_t)(comma - s) : strlen(s);
        if (l == 0)
            rc = SCN_EUSAGE, sfmt(err, errlen, "--ports: expected PORT=NODE:N pairs separated by commas, got an empty "
                                  "pair in \"%.200s\"", map);
        else if (k == MAX_PORTS)
            rc = SCN_EUSAGE, sfmt(err, errlen, "--ports: expected at most %d pairs, got more", MAX_PORTS);
        else
            rc = ports_pair(s, l, &pm[k], err, errlen);
        for (int j = 0; j < k && !rc; j++) {
            if (strcmp(pm[j].name, pm[k].name) == 0)
                rc = SCN_EUSAGE, sfmt(err, errlen, "--ports: expected each SONiC port once, got \"%s\" twice",
                                      pm[k].name);
            else if (strcmp(pm[j].node, pm[k].node) == 0 && pm[j].port == pm[k].port)
                rc = SCN_EUSAGE, sfmt(err, errlen, "--ports: expected a rocesim port for one SONiC port only, got "
                                      "%s:%ld for %s and %s", pm[k].node, pm[k].port, pm[j].name, pm[k].name);
        }
        s = comma ? comma + 1 : NULL;
    }
    if (rc) {
        scn_one_line(err);
        free(pm);
        return rc;
    }
    *out = pm;
    *n = k;
    return 0;
}

/* See sonic.h. */
int sonic_ports_check(const char *ports_map, char *err, size_t errlen)
{
    struct pmap *pm;
    int n, rc = ports_parse(ports_map, &pm, &n, err, errlen);
    free(pm);
    return rc;
}

/* See sonic.h. */
int sonic_import_text(const char *file, const char *text, const char *ports_map, cJSON **out, struct sbuf *notes,
                      char *err, size_t errlen)
{
    struct imp m = {.file = file, .err = err, .errlen = errlen, .notes = notes};
    struct pmap *map;
    *out = NULL;
    int rc = ports_parse(ports_map, &map, &m.n_map, err, errlen);
    if (rc)
        return rc;
    m.map = map;
    /* the scenario loader's reading of JSON text: no trailing bytes, UTF-8, no \u0000, each key once */
    struct setting_ctx sc = {.file = file, .err = err, .errlen = errlen};
    cJSON *root = scn_parse_json(file, text, err, errlen);
    if (!root || setting_val_obj(&sc, root, "") < 0 || setting_check_dups(&sc, root, "") < 0) {
        cJSON_Delete(root);
        free(map);
        return SCN_EUSAGE;
    }
    m.ports = mem_xcalloc(MAX_PORTS, sizeof *m.ports, SONIC_OOM);
    m.kp = mem_xcalloc(MAX_PORTS, sizeof *m.kp, SONIC_OOM);
    cJSON *o = cJSON_CreateObject(), *sw = cJSON_CreateObject(), *profs = cJSON_CreateArray();
    m.nm = cJSON_CreateArray();
    rc = imp_run(&m, root, sw, profs);
    cJSON_AddItemToObject(o, "switch", sw);
    cJSON_AddItemToObject(o, "profiles", profs);
    cJSON_AddItemToObject(o, "not_modelled", m.nm);
    free(m.ports);
    free(m.kp);
    free(map);
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


/* See sonic.h. */
int sonic_import_main(int argc, char **argv)
{
    const char *file = NULL, *ports = NULL;
    char err[SCN_ERR_MAX];
    if (argc >= 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
        fputs(import_usage, stdout);
        return 0;
    }
    if (argc < 3 || strcmp(argv[2], "sonic"))
        return imp_bad("expected the format sonic or nvidia-smi-topo, got \"%s\"", argc < 3 ? "" : argv[2]);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--ports") == 0) {
            if (i + 1 == argc)
                return imp_bad("%s", "--ports needs PORT=NODE:N pairs separated by commas, like "
                                     "Ethernet0=tor0:0,Ethernet4=tor0:1");
            ports = argv[++i];
            if (sonic_ports_check(ports, err, sizeof err)) {
                fprintf(stderr, "rocesim: %s\n", err);
                return SCN_EUSAGE;
            }
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
    int rc = read_text_file(file, &text, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    cJSON *o;
    struct sbuf notes = {0};
    rc = sonic_import_text(file, text, ports, &o, &notes, err, sizeof err);
    free(text);
    return import_finish(rc, err, o, notes.p, NULL);
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

/* The export's state: the tables it fills and the distinct lossless and WRED settings seen so far. */
struct exp {
    const struct scn_switch *c;
    struct sbuf *notes;
    cJSON *prof, *pg, *qos, *wred, *queue, *sched;
    const struct port_cfg **pgs, **wrs;
    int n_pg, n_wr;
    bool dyn_noted, pmax_noted;
};

/* "PORT|p" or "PORT|p-q" into key. */
static void range_key(char *key, size_t len, const char *port, int p, int q)
{
    if (q > p)
        sfmt(key, len, "%s|%d-%d", port, p, q);
    else
        sfmt(key, len, "%s|%d", port, p);
}

/* A port's pfc_enable and, when it has lossless priorities, their profile and BUFFER_PG entries. */
static void export_pg(struct exp *x, const char *port, const struct port_cfg *pc)
{
    char pfc[32], name[64], key[64], a[64];
    add_str(cJSON_AddObjectToObject(x->qos, port), "pfc_enable", "%s", mask_text(pc->lossless, pfc, sizeof pfc));
    if (!pc->lossless)
        return;
    sfmt(name, sizeof name, "pg_lossless_%d_profile", distinct(x->pgs, &x->n_pg, pc, same_pg));
    if (!cJSON_GetObjectItemCaseSensitive(x->prof, name)) {
        cJSON *b = cJSON_AddObjectToObject(x->prof, name);
        add_str(b, "pool", "ingress_lossless_pool");
        add_str(b, "size", "%lld", (long long)pc->headroom);
        add_str(b, "xoff", "%lld", (long long)pc->headroom);
        add_str(b, "xon_offset", "%lld", (long long)pc->xon_delta);
        if (pc->xoff_static) {
            add_str(b, "static_th", "%lld", (long long)pc->xoff);
        } else {
            /* alpha 0 is 2^-infinity: the lowest dynamic_th, -8 */
            double l2 = pc->alpha > 0 ? log2(pc->alpha) : -8;
            long long th = l2 < -8 ? -8 : l2 > 0 ? 0 : llround(l2);
            if (!x->dyn_noted && fabs(l2 - (double)th) > 1e-9) {
                sb_printf(x->notes, "switch.pfc.dynamic_alpha %s: SONiC's dynamic_th is log2 of alpha, a whole number "
                                    "in -8..7; written as %lld (alpha %s)\n",
                          fmt_double(pc->alpha, a, 32), th, fmt_double(ldexp(1, (int)th), a + 32, 32));
                x->dyn_noted = true;
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
            range_key(key, sizeof key, port, p, q);
            add_str(cJSON_AddObjectToObject(x->pg, key), "profile", "%s", name);
            p = q;
        }
}

/* A port's QUEUE entries: each queue's scheduler and, where the port marks, its WRED profile. */
static void export_queues(struct exp *x, const char *port, const struct port_cfg *pc)
{
    char wname[64] = "", a[32], key[64];
    if (pc->ecn_mark != PORT_ECN_OFF) {
        sfmt(wname, sizeof wname, "ROCESIM_ECN_%d", distinct(x->wrs, &x->n_wr, pc, same_wred));
        if (!cJSON_GetObjectItemCaseSensitive(x->wred, wname)) {
            cJSON *w = cJSON_AddObjectToObject(x->wred, wname);
            long long pct = llround(pc->ecn.pmax * 100);
            if (!x->pmax_noted && fabs(pc->ecn.pmax * 100 - (double)pct) > 1e-9) {
                sb_printf(x->notes, "switch.ecn.pmax %s: SONiC's green_drop_probability is a whole percent; written "
                                    "as %lld\n", fmt_double(pc->ecn.pmax, a, sizeof a), pct);
                x->pmax_noted = true;
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
        const struct sched_settings *sch = sched_settings_of(x->c);
        uint32_t wt = sch->type == sched_find("dwrr") ? sch->weights[q] : 0;
        char sn[32];
        if (wt)
            sfmt(sn, sizeof sn, "scheduler.%u", wt);
        else
            sfmt(sn, sizeof sn, "scheduler.strict");
        if (!cJSON_GetObjectItemCaseSensitive(x->sched, sn)) {
            cJSON *e = cJSON_AddObjectToObject(x->sched, sn);
            add_str(e, "type", "%s", wt ? "DWRR" : "STRICT");
            if (wt)
                add_str(e, "weight", "%u", wt);
        }
        qs[q] = cJSON_GetObjectItemCaseSensitive(x->sched, sn)->string;
    }
    for (int q = 0; q < 8; q++) {
        int e = q;
        while (e + 1 < 8 && strcmp(qs[e + 1], qs[q]) == 0)
            e++;
        range_key(key, sizeof key, port, q, e);
        cJSON *qe = cJSON_AddObjectToObject(x->queue, key);
        add_str(qe, "scheduler", "%s", qs[q]);
        if (*wname)
            add_str(qe, "wred_profile", "%s", wname);
        q = e;
    }
}

/* PFC_WD on every port when the watchdog is on. */
static void export_watchdog(const struct scn_switch *c, uint32_t n_ports, cJSON *o, struct sbuf *notes)
{
    const struct pfcwd_settings *w = pfcwd_settings_of(c);
    if (!w->enabled)
        return;
    cJSON *wd = cJSON_AddObjectToObject(o, "PFC_WD");
    long long poll = wd_ms(w->poll_ps, 100, 1000, "poll_interval", notes);
    long long det = wd_ms(w->detection_ps, 100, 5000, "detection_time", notes);
    long long res = wd_ms(w->restoration_ps, 100, 60000, "restoration_time", notes);
    long long lim = det < res ? det : res;
    if (poll > lim)
        sb_printf(notes, "switch.watchdog.poll_interval: SONiC's poll is at most the detection and restoration "
                         "times; written as %lld\n", lim);
    add_str(cJSON_AddObjectToObject(wd, "GLOBAL"), "POLL_INTERVAL", "%lld", poll > lim ? lim : poll);
    static const char *const acts[] = {"drop", "forward", "alert"};
    for (uint32_t j = 0; j < n_ports; j++) {
        char port[32];
        sfmt(port, sizeof port, "Ethernet%u", 4 * j);
        cJSON *e = cJSON_AddObjectToObject(wd, port);
        add_str(e, "action", "%s", acts[w->action]);
        add_str(e, "detection_time", "%lld", det);
        add_str(e, "restoration_time", "%lld", res);
    }
}

/* What the tables leave out or change, one note each (docs/sonic.md, "Export"). */
static void export_notes(const struct scn_switch *c, bool lossless_written, struct sbuf *notes)
{
    char a[32], err[256];
    struct scn_switch d = {0};
    /* The defaults' module groups keep their values in a store of their own (sim/settings.h), until the notes are
     * written. */
    struct setting_ctx sc = {.store = settings_store_new(), .file = "defaults", .err = err, .errlen = sizeof err};
    if (!sc.store || settings_defaults(&sc, settings_find("switch"), &d) < 0)
        mem_oom(SONIC_OOM);
    const struct switch_params *own = switch_params_of(c);
    const struct pfc_settings *pfc = pfc_settings_of(c);
    const struct ecn_settings *ecn = ecn_settings_of(c);
    const struct sched_settings *sch = sched_settings_of(c);
    const struct pfcwd_settings *w = pfcwd_settings_of(c), *dw = pfcwd_settings_of(&d);
    if (pfc->headroom_auto && lossless_written)
        sb_printf(notes, "switch.pfc.headroom \"auto\": written as the bytes rocesim computes for each port (xoff "
                         "of its profile); SONiC's dynamic buffer model would compute its own from the cable length\n");
    if (!pfc->enabled)
        sb_printf(notes, "switch.pfc.enabled false: pfc_enable \"\" and no lossless priority group on the ports "
                         "without PFC; there its priorities, xoff, dynamic_alpha, xon_delta and headroom are not "
                         "written (they act only with PFC on)\n");
    if (pfc->pause_quanta != pfc_settings_of(&d)->pause_quanta)
        sb_printf(notes, "switch.pfc.pause_quanta %d: the pause time the ASIC sends, no config_db field; not "
                         "written\n", pfc->pause_quanta);
    if (!ecn->enabled)
        sb_printf(notes, "switch.ecn.enabled false: no WRED profile on the queues of the ports that do not mark; "
                         "there kmin, kmax and pmax are not written (they act only with ECN on)\n");
    if (ecn->enabled && ecn->mark_on != ECN_MARK_DEQUEUE)
        sb_printf(notes, "switch.ecn.mark_on \"%s\": SONiC has no such setting (the ASIC decides)\n",
                  ecn_mark_on_name(ecn->mark_on));
    bool weighted = false;
    for (int p = 0; p < 8; p++) {
        weighted |= sch->weights[p] != 0;
        if (sch->type == sched_find("dwrr") && sch->weights[p] > 100)
            sb_printf(notes, "switch.scheduler.weights.%d %u: SONiC's weight is 1..100; written as it is, SONiC will "
                             "refuse it\n", p, sch->weights[p]);
    }
    if (sch->type == sched_find("dwrr") && !weighted)
        sb_printf(notes, "switch.scheduler \"dwrr\" without weights: every queue goes by strict priority, written as "
                         "STRICT (an import gives \"strict\", the same order)\n");
    if (!w->enabled && (w->detection_ps != dw->detection_ps || w->restoration_ps != dw->restoration_ps ||
                        w->poll_ps != dw->poll_ps || w->action != dw->action))
        sb_printf(notes, "switch.watchdog.enabled false: no PFC_WD entry; its detection_time, restoration_time, "
                         "poll_interval and action are not written\n");
    if (own->cell_size)
        sb_printf(notes, "switch.cell_size %d: a property of the ASIC, not of config_db; the thresholds are written "
                         "in the whole cells the switch compares\n", own->cell_size);
    if (own->mtu)
        sb_printf(notes, "switch.mtu %d: SONiC keeps a port's MTU in its PORT table; not written\n", own->mtu);
    sb_printf(notes, "switch.lossy_queue_limit %s: not written (the egress lossy profile of SONiC has its own "
                     "threshold mode)\n", own->lossy_queue_limit_map.n ? "(a map by rate)" :
                     units_fmt_size(own->lossy_queue_limit, a, sizeof a));
    settings_store_free(sc.store);
}

/* switch.trim: SWITCH_TRIMMING|GLOBAL and a buffer profile whose packet_discard_action trims. */
static void export_trim(const struct scn_switch *c, cJSON *prof, cJSON *o, struct sbuf *notes)
{
    int64_t size;
    int q = trim_priority(c, &size);
    if (q < 0)
        return;
    cJSON *g = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "SWITCH_TRIMMING"), "GLOBAL");
    add_str(g, "size", "%lld", (long long)size);
    add_str(g, "queue_index", "%d", q);
    add_str(cJSON_AddObjectToObject(prof, "ROCESIM_LOSSY_TRIM"), "packet_discard_action", "trim");
    sb_printf(notes, "switch.trim: BUFFER_PROFILE ROCESIM_LOSSY_TRIM holds only packet_discard_action \"trim\": merge "
                     "it into the egress profile of the lossy queues (BUFFER_QUEUE), with their pool and threshold\n");
}

/* See sonic.h. */
cJSON *sonic_export(const struct run *r, uint32_t sw_index, struct sbuf *notes)
{
    const struct sw *s = &r->net.sws[sw_index];
    const struct scn_switch *c = s->cfg;
    cJSON *o = cJSON_CreateObject();
    cJSON *pool = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "BUFFER_POOL"), "ingress_lossless_pool");
    add_str(pool, "type", "ingress");
    add_str(pool, "mode", "%s", pfc_settings_of(c)->xoff_mode == PFC_XOFF_DYNAMIC ? "dynamic" : "static");
    add_str(pool, "size", "%lld", (long long)switch_params_of(c)->buffer);
    struct exp x = {.c = c, .notes = notes};
    x.pgs = mem_xcalloc(s->n_ports + 1, sizeof *x.pgs, SONIC_OOM);
    x.wrs = mem_xcalloc(s->n_ports + 1, sizeof *x.wrs, SONIC_OOM);
    x.prof = cJSON_AddObjectToObject(o, "BUFFER_PROFILE");
    x.pg = cJSON_AddObjectToObject(o, "BUFFER_PG");
    x.qos = cJSON_AddObjectToObject(o, "PORT_QOS_MAP");
    x.wred = cJSON_AddObjectToObject(o, "WRED_PROFILE");
    x.queue = cJSON_AddObjectToObject(o, "QUEUE");
    x.sched = cJSON_AddObjectToObject(o, "SCHEDULER");
    for (uint32_t j = 0; j < s->n_ports; j++) {
        const struct port_cfg *pc = &r->net.pcfg[s->ports[j].cfg];
        char port[32];
        sfmt(port, sizeof port, "Ethernet%u", 4 * j);
        export_pg(&x, port, pc);
        export_queues(&x, port, pc);
    }
    free(x.pgs);
    free(x.wrs);
    export_watchdog(c, s->n_ports, o, notes);
    export_trim(c, x.prof, o, notes);
    export_notes(c, x.n_pg > 0, notes);
    return o;
}

static const char export_usage[] =
    "usage: rocesim switch-config [SCENARIO.json] [--set PATH=VALUE]... [--from best.json [--allow-incomplete]]\n"
    "                             --format sonic [--node NAME]\n"
    "  prints the SONiC config_db.json tables (BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, PORT_QOS_MAP,\n"
    "  WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD, SWITCH_TRIMMING) of one switch (default: the first) of the scenario\n"
    "  or of a sweep's best point; port N is EthernetN*4.  What SONiC cannot express is listed on stderr.\n";

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
                print_import_notes(notes.p);
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
