/*
 * settings — see settings.h.
 *
 * The single-value checks (setting_val_*) are the ones the scenario loader always had; they moved here so
 * that the table walker, the loader's hand-written parts and the sweep file share one wording.  Defaults and
 * presets are text, applied through the same parsers as the user's values, so a default is exactly what the
 * same text in a file would give.
 */
#include "sim/settings.h"
#include "sim/module.h"
#include "sim/sim.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 128
#define MAX_MEMBERS 96 /* members of one object (own fields, flat groups' fields, groups) and its checks */

/* See settings.h. */
int setting_strf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

/* ------------------------------------------------------------------------ */
/* Registry                                                                  */

static const struct setting_group *groups[MAX_GROUPS];
static int n_groups;
/* The module group that owns each slot of struct setting_mods, or NULL. */
static const struct setting_group *slot_owner[SETTING_MODS_MAX];

/* The slot of module group g, or -1. */
static int slot_of(const struct setting_group *g)
{
    for (int k = 0; k < SETTING_MODS_MAX; k++)
        if (slot_owner[k] == g)
            return k;
    return -1;
}

/*
 * Gives g old's slot, else a free one, when g has a size, and frees old's slot when g has none (old: the group g
 * replaces, or NULL).  A replacement keeps the slot so that values stored under the old group stay reachable.
 * A per-entry group's values are in its entries, never in a struct setting_mods: it takes none.
 * Returns -1 when every slot is taken.
 */
static int take_slot(const struct setting_group *g, const struct setting_group *old)
{
    int k = old ? slot_of(old) : -1;
    if (k >= 0)
        slot_owner[k] = NULL;
    if (!g->size || g->per_entry)
        return 0;
    if (k < 0)
        k = slot_of(NULL);
    if (k < 0)
        return -1;
    slot_owner[k] = g;
    return 0;
}

/* Adds g to the registry (replacing the group of its path), taking its slot; -1 when the registry or slots are full. */
static int add_group(const struct setting_group *g)
{
    for (int i = 0; i < n_groups; i++)
        if (strcmp(groups[i]->path, g->path) == 0) {
            if (take_slot(g, groups[i]) < 0)
                return -1;
            groups[i] = g;
            return 0;
        }
    if (n_groups == MAX_GROUPS || take_slot(g, NULL) < 0)
        return -1;
    groups[n_groups++] = g;
    return 0;
}

static bool members_clash(const char *path);

/* A flat group's path: its parent's, '/', then a name of its own with neither '.' nor '/'. */
static bool path_ok(const char *path)
{
    const char *slash = strchr(path, '/');
    return !slash || (slash[1] && !strpbrk(slash + 1, "./"));
}

/* See settings.h.  A group that would give an object two members of one name leaves the registry as it was. */
int settings_register(const struct setting_group *g)
{
    if (!path_ok(g->path))
        return -1;
    const struct setting_group *was[MAX_GROUPS], *was_owner[SETTING_MODS_MAX];
    int was_n = n_groups;
    memcpy(was, groups, sizeof groups);
    memcpy(was_owner, slot_owner, sizeof slot_owner);
    if (add_group(g) < 0)
        return -1;
    char parent[SETTING_PATH_MAX];
    const char *end = strrchr(g->path, strchr(g->path, '/') ? '/' : '.');
    setting_strf(parent, sizeof parent, "%.*s", end ? (int)(end - g->path) : 0, g->path);
    if (members_clash(g->path) || (*g->path && members_clash(parent))) {
        memcpy(groups, was, sizeof groups);
        memcpy(slot_owner, was_owner, sizeof slot_owner);
        n_groups = was_n;
        return -1;
    }
    return 0;
}

/* A module's groups join the registry as it registers (sim/module.h's listener); all of them, or none and the module
 * is refused. */
static int take_module_groups(const struct module *m, char *err, size_t errlen)
{
    for (int g = 0; g < MODULE_GROUPS_MAX && m->groups[g]; g++)
        if (settings_register(m->groups[g]) < 0) {
            while (g-- > 0)
                settings_unregister(m->groups[g]->path);
            setting_strf(err, errlen, "module %s \"%s\" is refused: its settings do not fit the registry (full, or "
                         "a group's path or a field's name taken)", m->kind->name, m->name);
            return -1;
        }
    return 0;
}

/* Before every constructor without a priority, module_init's among them, so that the modules of the build bring
 * their groups as they register, in whatever order the others run; a constructor that reads a group calls
 * module_init() first (cc_dcqcn.c takes its slot). */
__attribute__((constructor(101))) static void settings_listen(void)
{
    module_listen(take_module_groups);
}

/* See settings.h. */
void settings_unregister(const char *path)
{
    for (int i = 0; i < n_groups; i++)
        if (strcmp(groups[i]->path, path) == 0) {
            int k = slot_of(groups[i]);
            if (k >= 0)
                slot_owner[k] = NULL;
            memmove(&groups[i], &groups[i + 1], (size_t)(n_groups - i - 1) * sizeof *groups);
            n_groups--;
            return;
        }
}

/* See settings.h. */
const struct setting_group *settings_find(const char *path)
{
    for (int i = 0; i < n_groups; i++)
        if (strcmp(groups[i]->path, path) == 0)
            return groups[i];
    return NULL;
}

/*
 * "profiles.N.switch.REST" and "profiles.N.host.REST" name the fields of the switch and host tables (a profile
 * is a partial switch or host object): returns where "switch" or "host" starts, else path itself.
 */
static const char *profile_target(const char *path)
{
    if (strncmp(path, "profiles.", 9) != 0)
        return path;
    const char *q = path + 9;
    size_t nd = strspn(q, "0123456789");
    if (nd == 0 || q[nd] != '.')
        return path;
    q += nd + 1;
    if ((strncmp(q, "switch", 6) == 0 && (q[6] == '.' || !q[6])) || (strncmp(q, "host", 4) == 0 && (q[4] == '.' || !q[4])))
        return q;
    return path;
}

/* See settings.h. */
const struct setting_group *settings_group_at(int i)
{
    return i >= 0 && i < n_groups ? groups[i] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Module groups' values (settings.h)                                        */

struct store_value {
    struct store_value *next;
    const struct setting_group *g;
    void *data; /* g->size bytes, never written once stored */
};

struct settings_store {
    /* Runs that share a loaded scenario may resolve their hosts' profiles at the same time (scn_profile_apply). */
    pthread_mutex_t lock;
    struct store_value *values;
};

/* See settings.h. */
struct settings_store *settings_store_new(void)
{
    struct settings_store *st = calloc(1, sizeof *st);
    if (st && pthread_mutex_init(&st->lock, NULL) != 0) {
        free(st);
        st = NULL;
    }
    return st;
}

/* See settings.h. */
void settings_store_free(struct settings_store *st)
{
    if (!st)
        return;
    for (struct store_value *v = st->values, *next; v; v = next) {
        next = v->next;
        free(v->data);
        free(v);
    }
    pthread_mutex_destroy(&st->lock);
    free(st);
}

/* See settings.h.  A block of no group, which store_keep never shares. */
void *settings_store_alloc(struct settings_store *st, size_t size)
{
    struct store_value *v = calloc(1, sizeof *v);
    void *data = v ? calloc(1, size ? size : 1) : NULL;
    if (!data) {
        free(v);
        return NULL;
    }
    pthread_mutex_lock(&st->lock);
    *v = (struct store_value){.next = st->values, .g = NULL, .data = data};
    st->values = v;
    pthread_mutex_unlock(&st->lock);
    return data;
}

/* The stored copy of g's value at data: an equal one already there, else a new one; NULL when memory runs out. */
static const void *store_keep(struct settings_store *st, const struct setting_group *g, const void *data)
{
    pthread_mutex_lock(&st->lock);
    struct store_value *v = st->values;
    while (v && (v->g != g || memcmp(v->data, data, g->size) != 0))
        v = v->next;
    if (!v) {
        v = calloc(1, sizeof *v);
        void *copy = v ? malloc(g->size) : NULL;
        if (copy) {
            memcpy(copy, data, g->size);
            *v = (struct store_value){.next = st->values, .g = g, .data = copy};
            st->values = v;
        } else {
            free(v);
            v = NULL;
        }
    }
    pthread_mutex_unlock(&st->lock);
    return v ? v->data : NULL;
}

/* A table that breaks the rules of settings.h is a bug of the build: it stops the program at the first use. */
_Noreturn static void bug(const char *what, const struct setting_group *g)
{
    fprintf(stderr, "rocesim: bug: %s (settings group \"%s\", sim/settings.h)\n", what, g->path);
    abort();
}

/* The slot that holds module group cg's values in base, the struct of its parent group pg. */
static const void **mods_slot(const struct setting_group *pg, const struct setting_group *cg, const void *base)
{
    int k = slot_of(cg);
    if (k < 0)
        bug("a group with a size that is not registered", cg);
    if (!pg->has_mods)
        bug("a group with a size under a group whose struct holds no struct setting_mods", cg);
    return &((struct setting_mods *)((char *)base + pg->mods))->of[k];
}

/* Where child group cg's values are in base, the struct of its parent group pg (NULL: a module's, never set). */
static const void *child_base(const struct setting_group *pg, const struct setting_group *cg, const void *base)
{
    return cg->size ? *mods_slot(pg, cg, base) : (const char *)base + cg->offset;
}

/* See settings.h. */
int settings_slot(const struct setting_group *g, size_t size)
{
    int k = slot_of(g);
    if (k < 0)
        bug("a module reads the values of a group that is not registered or has no size", g);
    if (size != g->size)
        bug("a module reads its values as a type of another size than its group declares", g);
    return k;
}

/* See settings.h. */
const void *settings_of(const struct setting_mods *m, const struct setting_group *g, size_t size)
{
    int k = settings_slot(g, size);
    if (!m->of[k])
        bug("a module reads values the loader did not set (the group was registered after the scenario was loaded)", g);
    return m->of[k];
}

/* See settings.h. */
bool settings_mods_equal(const struct setting_mods *a, const struct setting_mods *b)
{
    for (int k = 0; k < SETTING_MODS_MAX; k++) {
        const void *x = a->of[k], *y = b->of[k];
        if (x != y && (!x || !y || !slot_owner[k] || memcmp(x, y, slot_owner[k]->size) != 0))
            return false;
    }
    return true;
}

/* The group of the member called name of the object at ppath, or NULL. */
static const struct setting_group *child_group(const char *ppath, const char *name)
{
    char p[SETTING_PATH_MAX];
    return settings_find(setting_join(p, ppath, name));
}

/* A flat group's own name (what follows the '/' of its path), or NULL for a group that is an object. */
static const char *flat_name(const struct setting_group *g)
{
    const char *s = strchr(g->path, '/');
    return s ? s + 1 : NULL;
}

/* Returns whether child is a registered group directly under g that g's table does not name. */
static bool appended(const struct setting_group *g, const struct setting_group *child)
{
    size_t n = strlen(g->path);
    const char *rest = child->path + n + (n > 0);
    if (child == g || strncmp(child->path, g->path, n) != 0 || (n > 0 && child->path[n] != '.') || strchr(rest, '.') ||
        strchr(rest, '/'))
        return false;
    for (const struct setting *f = g->fields; f->name; f++)
        if (f->kind == SETTING_GROUP && strcmp(f->name, rest) == 0)
            return false;
    return true;
}

/*
 * Whether child is a group under g, n = strlen(g->path): a flat group of g, or appended to g's object.  The cheap
 * tests first: this runs over the registry for every object of every scenario and profile.
 */
static bool under(const struct setting_group *g, size_t n, const struct setting_group *child)
{
    const char *p = child->path;
    if (strncmp(p, g->path, n) != 0)
        return false;
    return p[n] == '/' || ((p[n] == '.' || (n == 0 && p[0])) && appended(g, child));
}

/* The member name of appended group child of g. */
static const char *appended_name(const struct setting_group *g, const struct setting_group *child)
{
    return child->path + strlen(g->path) + (*g->path != '\0');
}

/* The path of the object whose members g's fields are (a flat group's: its parent's) into out; returns out. */
static char *object_path(const struct setting_group *g, char *out)
{
    const char *flat = flat_name(g);
    size_t n = flat ? (size_t)(flat - 1 - g->path) : strlen(g->path);
    n = n < SETTING_PATH_MAX ? n : SETTING_PATH_MAX - 1;
    memcpy(out, g->path, n);
    out[n] = '\0';
    return out;
}

/*
 * One member of an object, in the order of the object (the parse, the dump, docs/scenario.md): a field of the table
 * of `owner` (the object's group or one of its flat groups; a SETTING_CHECK too, which is no member but runs at
 * its place), or a group whose value is an object (grp: a SETTING_GROUP field of the table, or f NULL: a group
 * appended to the object).
 */
struct member {
    const struct setting_group *owner;
    const struct setting *f;
    const struct setting_group *grp;
    const char *name; /* NULL for a check */
};

/* The members of g's object, and the groups under it (appended and flat) that they come from. */
struct members {
    int n, n_under, n_names;
    struct member m[MAX_MEMBERS];
    const char *names[MAX_MEMBERS + 1];        /* the members' names, NULL-terminated: the unknown-field message */
    const struct setting_group *under[MAX_GROUPS]; /* registration order */
    bool placed[MAX_GROUPS];
    int n_waiting;                     /* groups with an `after` not placed yet */
    bool check;                        /* look for a clash (settings_register): */
    const struct setting_group *clash; /* the table of a member whose name another member has, or NULL */
};

static void place_after(const struct setting_group *g, struct members *ms, const char *name);

static void add_member(struct members *ms, const struct setting_group *owner, const struct setting *f,
                       const struct setting_group *grp, const char *name)
{
    if (ms->n == MAX_MEMBERS)
        bug("an object with more than MAX_MEMBERS members and checks", owner);
    ms->m[ms->n++] = (struct member){owner, f, grp, name};
    if (name) {
        for (int i = 0; ms->check && i < ms->n_names; i++)
            if (strcmp(ms->names[i], name) == 0 && !ms->clash)
                ms->clash = owner;
        ms->names[ms->n_names++] = name;
    }
}

/* Adds owner's fields (a SETTING_GROUP only when its group is registered), each followed by what names it. */
static void add_table(const struct setting_group *g, struct members *ms, const struct setting_group *owner)
{
    for (const struct setting *f = owner->fields; f->name; f++) {
        if (f->kind == SETTING_CHECK) {
            add_member(ms, owner, f, NULL, NULL);
            continue;
        }
        const struct setting_group *cg = NULL;
        if (f->kind == SETTING_GROUP && (owner != g || !(cg = child_group(g->path, f->name)))) {
            if (owner != g)
                bug("a flat group's table names a group (its groups are its parent's)", owner);
            place_after(g, ms, f->name);
            continue;
        }
        /* The checks that read it stand right after it, before what follows it from elsewhere. */
        const char *name = f->name;
        add_member(ms, owner, f, cg, name);
        while (f[1].name && f[1].kind == SETTING_CHECK)
            add_member(ms, owner, ++f, NULL, NULL);
        place_after(g, ms, name);
    }
}

/* Adds group k of ms->under: a flat group's fields, or an appended group, then what follows it. */
static void place(const struct setting_group *g, struct members *ms, int k)
{
    const struct setting_group *cg = ms->under[k];
    ms->placed[k] = true;
    if (flat_name(cg)) {
        add_table(g, ms, cg);
    } else {
        add_member(ms, NULL, NULL, cg, appended_name(g, cg));
        place_after(g, ms, appended_name(g, cg));
    }
}

/* Adds the groups not placed yet that name member `name` as the one they follow (`after`), in registration order. */
static void place_after(const struct setting_group *g, struct members *ms, const char *name)
{
    for (int k = 0; ms->n_waiting && k < ms->n_under; k++)
        if (!ms->placed[k] && ms->under[k]->after && strcmp(ms->under[k]->after, name) == 0) {
            ms->n_waiting--;
            place(g, ms, k);
        }
}

/*
 * The members of g's object, in order: its table's fields, each followed by the groups under g (appended or flat)
 * that name it as `after`, a flat group's fields each followed by those that name them, and so on; then, in
 * registration order, the flat groups that name no member (with what follows them: a flat group is as if the
 * parent's table listed its fields), the other groups that name none, and those whose member is not there.
 * Found once per object: looking the groups up again at every field made a 100 us run 2 % longer.
 */
static void members_of(const struct setting_group *g, struct members *ms, bool check)
{
    ms->n = ms->n_under = ms->n_names = ms->n_waiting = 0;
    ms->check = check;
    ms->clash = NULL;
    size_t n = strlen(g->path);
    for (int i = 0; i < n_groups; i++) {
        if (!under(g, n, groups[i]))
            continue;
        ms->n_waiting += groups[i]->after != NULL;
        ms->placed[ms->n_under] = false;
        ms->under[ms->n_under++] = groups[i];
    }
    add_table(g, ms, g);
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < ms->n_under; k++)
            if (!ms->placed[k] && (pass == 2 || (!ms->under[k]->after && (flat_name(ms->under[k]) != NULL) == (pass == 0)))) {
                ms->n_waiting -= ms->under[k]->after != NULL;
                place(g, ms, k);
            }
    ms->names[ms->n_names] = NULL;
}

/* members_of, for reading an object: a clash settings_register let through is a bug. */
static void members(const struct setting_group *g, struct members *ms)
{
    members_of(g, ms, false);
    if (ms->clash)
        bug("two members of one object have one name", ms->clash);
}

/*
 * Whether the object of the group registered under path (if any) has two members of one name.  Only a group under
 * it (flat or appended) can bring a second: an object with none is not walked (every program registers some fifty
 * groups before main).
 */
static bool members_clash(const char *path)
{
    const struct setting_group *g = settings_find(path);
    struct members ms;
    if (!g || flat_name(g))
        return false;
    size_t n = strlen(g->path);
    int k = 0;
    while (k < n_groups && !under(g, n, groups[k]))
        k++;
    if (k == n_groups)
        return false;
    members_of(g, &ms, true);
    return ms.clash != NULL;
}

/* See settings.h.  A flat group's path names no object: its fields are found by their object's path. */
const struct setting *settings_field(const char *path)
{
    char group[SETTING_PATH_MAX];
    path = profile_target(path);
    const char *dot = strrchr(path, '.');
    size_t gl = dot ? (size_t)(dot - path) : 0;
    if (gl >= sizeof group)
        return NULL;
    memcpy(group, path, gl);
    group[gl] = '\0';
    const struct setting_group *g = settings_find(group);
    if (!g || flat_name(g))
        return NULL;
    const char *leaf = dot ? dot + 1 : path;
    struct members ms;
    members(g, &ms);
    for (int i = 0; i < ms.n; i++)
        if (ms.m[i].f && ms.m[i].name && strcmp(ms.m[i].name, leaf) == 0)
            return ms.m[i].f;
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Messages and single values                                                */

/* Returns true when path lies at, under or above a path set by an override (see setting_bad). */
static bool from_override(const struct setting_ctx *c, const char *path)
{
    size_t pn = strlen(path);
    for (int i = 0; i < c->n_ov; i++) {
        const char *o = c->ovpath[i];
        size_t n = strlen(o);
        if (strncmp(path, o, n) == 0 && (path[n] == '\0' || path[n] == '.'))
            return true;
        if (pn > 0 && strncmp(o, path, pn) == 0 && o[pn] == '.')
            return true;
    }
    return false;
}

/* See settings.h. */
void scn_one_line(char *msg)
{
    for (char *q = msg; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
}

/* See settings.h. */
int setting_bad(struct setting_ctx *c, const char *path, const char *fmt, ...)
{
    char msg[SCN_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->status = SCN_EUSAGE;
    if (c->err && c->errlen) {
        setting_strf(c->err, c->errlen, "%s: %s%s: %s", c->file, *path ? path : "(top level)",
             c->in_override || from_override(c, path) ? " (from --set)" : "", msg);
        scn_one_line(c->err);
    }
    return -1;
}

/* See settings.h. */
int setting_oom(struct setting_ctx *c)
{
    c->status = SCN_EIO;
    if (c->err && c->errlen)
        setting_strf(c->err, c->errlen, "%s: out of memory", c->file);
    return -1;
}

/* See settings.h. */
char *setting_fmt_num(double d, char *buf, size_t len)
{
    if (!isfinite(d)) {
        setting_strf(buf, len, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
        return buf;
    }
    setting_strf(buf, len, "%.15g", d);
    if (strtod(buf, NULL) != d)
        setting_strf(buf, len, "%.17g", d);
    return buf;
}

/* See settings.h. */
const char *setting_describe(const cJSON *v, char *buf, size_t len)
{
    char num[40];
    if (!v)
        setting_strf(buf, len, "nothing");
    else if (cJSON_IsString(v))
        setting_strf(buf, len, "a string \"%.60s%s\"", v->valuestring, strlen(v->valuestring) > 60 ? "..." : "");
    else if (cJSON_IsNumber(v) && v->valuestring) /* its text, kept when a double cannot hold it (scenario.h) */
        setting_strf(buf, len, "a number %.40s", v->valuestring);
    else if (cJSON_IsNumber(v))
        setting_strf(buf, len, "a number %s", setting_fmt_num(v->valuedouble, num, sizeof num));
    else if (cJSON_IsBool(v))
        setting_strf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v))
        setting_strf(buf, len, "null");
    else if (cJSON_IsArray(v))
        setting_strf(buf, len, "an array");
    else
        setting_strf(buf, len, "an object");
    return buf;
}

/* See settings.h. */
char *setting_join(char *out, const char *parent, const char *key)
{
    if (*parent)
        setting_strf(out, SETTING_PATH_MAX, "%s.%s", parent, key);
    else
        setting_strf(out, SETTING_PATH_MAX, "%s", key);
    return out;
}

/* See settings.h. */
char *setting_join_idx(char *out, const char *parent, int i)
{
    char k[16];
    setting_strf(k, sizeof k, "%d", i);
    return setting_join(out, parent, k);
}

/* See settings.h. */
int setting_check_dups(struct setting_ctx *c, const cJSON *v, const char *path)
{
    char p[SETTING_PATH_MAX];
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (cJSON_IsObject(v)) {
            for (const cJSON *prev = v->child; prev != it; prev = prev->next)
                if (strcmp(prev->string, it->string) == 0)
                    return setting_bad(c, setting_join(p, path, it->string),
                                       "expected each key once in an object, got \"%.60s\" twice", it->string);
            setting_join(p, path, it->string);
        } else {
            setting_join_idx(p, path, i);
        }
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && setting_check_dups(c, it, p) < 0)
            return -1;
    }
    return 0;
}

/* The unknown-field message for key, listing the known names. */
static void unknown_msg(const char *const *known, const char *key, char *msg, size_t msglen)
{
    char list[SCN_ERR_MAX / 2] = "";
    size_t used = 0;
    for (const char *const *k = known; *k; k++) {
        int n = setting_strf(list + used, sizeof list - used, "%s%s", k == known ? "" : ", ", *k);
        if (n < 0 || (size_t)n >= sizeof list - used)
            break;
        used += (size_t)n;
    }
    setting_strf(msg, msglen, "expected one of the fields %s, got unknown field \"%.60s\"", list, key);
}

/* Returns whether name is in the NULL-terminated list. */
static bool listed(const char *const *known, const char *name)
{
    for (const char *const *k = known; *k; k++)
        if (strcmp(name, *k) == 0)
            return true;
    return false;
}

/* See settings.h. */
int setting_check_fields(struct setting_ctx *c, const cJSON *obj, const char *path, const char *const *known)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        if (listed(known, it->string))
            continue;
        char msg[SCN_ERR_MAX], p[SETTING_PATH_MAX];
        unknown_msg(known, it->string, msg, sizeof msg);
        return setting_bad(c, setting_join(p, path, it->string), "%s", msg);
    }
    return 0;
}

/* See settings.h. */
int setting_val_obj(struct setting_ctx *c, const cJSON *v, const char *path)
{
    char d[96];
    if (!cJSON_IsObject(v))
        return setting_bad(c, path, "expected an object, got %s", setting_describe(v, d, sizeof d));
    return 0;
}

/* See settings.h. */
int setting_val_arr(struct setting_ctx *c, const cJSON *v, const char *path, const char *what)
{
    char d[96];
    if (!cJSON_IsArray(v))
        return setting_bad(c, path, "expected %s, got %s", what, setting_describe(v, d, sizeof d));
    return 0;
}

/* See settings.h. */
int setting_val_bool(struct setting_ctx *c, const cJSON *v, const char *path, bool *out)
{
    char d[96];
    if (!cJSON_IsBool(v))
        return setting_bad(c, path, "expected true or false, got %s", setting_describe(v, d, sizeof d));
    *out = cJSON_IsTrue(v);
    return 0;
}

/* See settings.h. */
int setting_val_int(struct setting_ctx *c, const cJSON *v, const char *path, long long lo, long long hi,
                    long long *out)
{
    char d[96], range[64];
    if (hi >= INT_MAX)
        setting_strf(range, sizeof range, "an integer of at least %lld", lo);
    else
        setting_strf(range, sizeof range, "an integer from %lld to %lld", lo, hi);
    if (!cJSON_IsNumber(v))
        return setting_bad(c, path, "expected %s, got %s", range, setting_describe(v, d, sizeof d));
    double x = v->valuedouble;
    if (!isfinite(x) || x != floor(x))
        return setting_bad(c, path, "expected %s, got %s (not a whole number)", range,
                           setting_fmt_num(x, d, sizeof d));
    if (x < (double)lo || x > (double)hi)
        return setting_bad(c, path, "expected %s, got %s", range, setting_fmt_num(x, d, sizeof d));
    *out = (long long)x;
    return 0;
}

/* See settings.h. */
int setting_val_num(struct setting_ctx *c, const cJSON *v, const char *path, double lo, bool lo_open, double hi,
                    bool hi_open, double *out)
{
    char d[96], range[96], a[40], b[40];
    setting_fmt_num(lo, a, sizeof a);
    setting_fmt_num(hi, b, sizeof b);
    if (isinf(hi))
        setting_strf(range, sizeof range, "a number %s %s", lo_open ? "greater than" : "of at least", a);
    else if (!lo_open && !hi_open)
        setting_strf(range, sizeof range, "a number from %s to %s", a, b);
    else
        setting_strf(range, sizeof range, "a number %s %s and %s %s", lo_open ? "greater than" : "at least", a,
             hi_open ? "below" : "at most", b);
    if (!cJSON_IsNumber(v))
        return setting_bad(c, path, "expected %s, got %s", range, setting_describe(v, d, sizeof d));
    double x = v->valuedouble;
    if (!isfinite(x) || (lo_open ? x <= lo : x < lo) || (hi_open ? x >= hi : x > hi))
        return setting_bad(c, path, "expected %s, got %s", range, setting_fmt_num(x, d, sizeof d));
    *out = x;
    return 0;
}

/* See settings.h. */
const char *setting_qty_what(enum setting_kind q)
{
    static const char *const what[] = {"a time like \"1.5us\"", "a size like \"20KB\"", "a rate like \"100Gbps\"",
                                       "a length like \"100m\""};
    return what[q <= SETTING_LENGTH ? q : SETTING_TIME];
}

/* See settings.h. */
int setting_parse_auto_qty(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    int64_t *at = (int64_t *)(void *)((char *)base + f->offset);
    if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
        *at = 0;
        return 0;
    }
    if (!cJSON_IsString(v) && !cJSON_IsNumber(v)) {
        char got[96];
        return setting_bad(c, path, "expected \"auto\" or %s, got %s", setting_qty_what(f->kind),
                           setting_describe(v, got, sizeof got));
    }
    return setting_val_qty(c, v, path, f->kind, true, at);
}

/* See settings.h. */
void setting_dump_auto_qty(cJSON *o, const struct setting *f, const void *base)
{
    int64_t x = *(const int64_t *)(const void *)((const char *)base + f->offset);
    char b[40];
    cJSON_AddStringToObject(o, f->name, !x                         ? "auto"
                                        : f->kind == SETTING_TIME ? units_fmt_time(x, b, sizeof b)
                                        : f->kind == SETTING_RATE ? units_fmt_rate(x, b, sizeof b)
                                                                  : units_fmt_size(x, b, sizeof b));
}

/*
 * See settings.h.  A JSON number is handed to the units parser as text so that the user sees the parser's
 * "no unit" explanation.
 */
int setting_val_qty(struct setting_ctx *c, const cJSON *v, const char *path, enum setting_kind q, bool positive,
                    int64_t *out)
{
    static const char *const noun[] = {"a time", "a size", "a rate", "a length"};
    char d[96], num[40], uerr[SCN_ERR_MAX / 2];
    const char *str;
    if (cJSON_IsString(v))
        str = v->valuestring;
    else if (cJSON_IsNumber(v))
        str = setting_fmt_num(v->valuedouble, num, sizeof num);
    else
        return setting_bad(c, path, "expected %s, got %s", setting_qty_what(q), setting_describe(v, d, sizeof d));
    int rc;
    switch (q) {
    case SETTING_TIME: rc = units_parse_time(str, out, uerr, sizeof uerr); break;
    case SETTING_SIZE: rc = units_parse_size(str, out, uerr, sizeof uerr); break;
    case SETTING_RATE: rc = units_parse_rate(str, out, uerr, sizeof uerr); break;
    default: rc = units_parse_length(str, out, uerr, sizeof uerr); break;
    }
    if (rc < 0)
        return setting_bad(c, path, "%s", uerr);
    if (positive && *out <= 0)
        return setting_bad(c, path, "expected %s greater than zero, got \"%.60s\"", noun[q], str);
    /* Every time of a scenario is a time on the engine's clock (a start, a stop) or is added to one (a delay, a
     * timer): past the clock's end an event would silently never come (sim.h), and sums of two stay in int64. */
    if (q == SETTING_TIME && *out > SIM_TIME_LIMIT) {
        char end[48];
        return setting_bad(c, path, "expected a time of at most %s (where the engine's clock ends), got \"%.60s\"",
                           setting_time_limit_text(end, sizeof end), str);
    }
    return 0;
}

/* See settings.h. */
char *setting_time_limit_text(char *buf, size_t len)
{
    /* SIM_TIME_LIMIT ps in seconds, exact, so that the text can be pasted back */
    setting_strf(buf, len, "%lld.%012llds", (long long)(SIM_TIME_LIMIT / PS_PER_S),
                 (long long)(SIM_TIME_LIMIT % PS_PER_S));
    return buf;
}

/* See settings.h. */
int setting_val_str(struct setting_ctx *c, const cJSON *v, const char *path, const char *what, const char **out)
{
    char d[96];
    if (!cJSON_IsString(v))
        return setting_bad(c, path, "expected %s, got %s", what, setting_describe(v, d, sizeof d));
    *out = v->valuestring;
    return 0;
}

/* See settings.h. */
int setting_val_pairs(struct setting_ctx *c, const cJSON *v, const char *path, const char *what, const char *form,
                      const long lo[2], const long hi[2], long (*pairs)[2], int max, int *n)
{
    const char *s = "";
    if (setting_val_str(c, v, path, what, &s) < 0)
        return -1;
    *n = 0;
    for (const char *q = s; *q;) {
        char *end;
        long a = strtol(q, &end, 10), b = LONG_MIN;
        if (end != q && *end == ':') {
            const char *bq = end + 1;
            b = strtol(bq, &end, 10);
            if (end == bq)
                b = LONG_MIN;
        }
        if (a < lo[0] || a > hi[0] || b < lo[1] || b > hi[1] || (*end && *end != ','))
            return setting_bad(c, path, "expected %s, comma-separated, got \"%.64s\"", form, s);
        if (*n == max)
            return setting_bad(c, path, "expected at most %d entries, got more in \"%.64s...\"", max, s);
        pairs[*n][0] = a;
        pairs[(*n)++][1] = b;
        q = *end ? end + 1 : end;
    }
    return 0;
}

/* See settings.h. */
int setting_val_enum(struct setting_ctx *c, const cJSON *v, const char *path, const char *const *names, int *out)
{
    char what[SCN_ERR_MAX / 2] = "one of", d[96];
    size_t used = strlen(what);
    for (const char *const *n = names; *n; n++) {
        int k = setting_strf(what + used, sizeof what - used, "%s \"%s\"", n == names ? "" : ",", *n);
        if (k < 0 || (size_t)k >= sizeof what - used)
            break;
        used += (size_t)k;
    }
    if (!cJSON_IsString(v))
        return setting_bad(c, path, "expected %s, got %s", what, setting_describe(v, d, sizeof d));
    for (int i = 0; names[i]; i++)
        if (strcmp(v->valuestring, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return setting_bad(c, path, "expected %s, got \"%.60s\"", what, v->valuestring);
}

/* ------------------------------------------------------------------------ */
/* The table walker                                                          */

/*
 * Parses obj at path (NULL: sets the defaults) into child group cg of base, the struct of its parent group pg.
 * A module group's values are worked on in a copy and stored as a new value (settings.h).
 */
static int child_update(struct setting_ctx *c, const struct setting_group *pg, const struct setting_group *cg,
                        const cJSON *obj, const char *path, void *base)
{
    if (!cg->size)
        return obj ? settings_parse(c, cg, obj, path, (char *)base + cg->offset)
                   : settings_defaults(c, cg, (char *)base + cg->offset);
    const void **slot = mods_slot(pg, cg, base);
    if (!c->store)
        bug("values of a module group parsed with no store to keep them", cg);
    /* The defaults start from zeros, as a group inside its parent's struct does (a field without one is zero). */
    void *work = calloc(1, cg->size);
    if (!work)
        return setting_oom(c);
    if (obj && *slot)
        memcpy(work, *slot, cg->size);
    int rc = obj ? settings_parse(c, cg, obj, path, work) : settings_defaults(c, cg, work);
    const void *kept = rc < 0 ? NULL : store_keep(c->store, cg, work);
    free(work);
    if (rc < 0)
        return -1;
    if (!kept)
        return setting_oom(c);
    *slot = kept;
    return 0;
}

/* Parses one field's value v (present) at path into base. */
static int parse_field(struct setting_ctx *c, const struct setting_group *g, const struct setting *f, const cJSON *v,
                       const char *path, void *base)
{
    void *at = (char *)base + f->offset;
    if (f->parse)
        return f->parse(c, f, v, path, base);
    switch (f->kind) {
    case SETTING_TIME:
    case SETTING_SIZE:
    case SETTING_RATE:
    case SETTING_LENGTH:
        return setting_val_qty(c, v, path, f->kind, f->flags & SETTING_POSITIVE, at);
    case SETTING_NUMBER:
        return setting_val_num(c, v, path, f->lo, f->flags & SETTING_LO_OPEN, f->hi, f->flags & SETTING_HI_OPEN, at);
    case SETTING_INT: {
        long long x;
        if (setting_val_int(c, v, path, (long long)f->lo, (long long)f->hi, &x) < 0)
            return -1;
        *(int *)at = (int)x;
        return 0;
    }
    case SETTING_BOOL:
        return setting_val_bool(c, v, path, at);
    case SETTING_ENUM:
        return setting_val_enum(c, v, path, f->names, at);
    case SETTING_MODULE: {
        /* The registry's names in its numbering, so that the index the enum check finds is the module's. */
        const char *names[MODULE_MAX + 1];
        int n = 0;
        for (const struct module *m; (m = module_at(f->module_kind, n)); n++)
            names[n] = m->name;
        names[n] = NULL;
        return setting_val_enum(c, v, path, names, at);
    }
    case SETTING_GROUP: {
        const struct setting_group *cg = child_group(g->path, f->name);
        if (setting_val_obj(c, v, path) < 0)
            return -1;
        return child_update(c, g, cg, v, path, base);
    }
    case SETTING_CUSTOM:
    case SETTING_CHECK:
        break;
    }
    return 0;
}

/*
 * Parses a default or preset value given as text, as --set reads a value: JSON when it parses, else a string.
 * A table whose default does not pass its own checks is a bug: it aborts, naming the field.
 */
static int parse_text(struct setting_ctx *c, const struct setting_group *g, const struct setting *f, const char *text,
                      void *base)
{
    cJSON *v = cJSON_ParseWithOpts(text, NULL, 1);
    if (!v && !(v = cJSON_CreateString(text)))
        return setting_oom(c);
    char p[SETTING_PATH_MAX], o[SETTING_PATH_MAX];
    int rc = parse_field(c, g, f, v, setting_join(p, object_path(g, o), f->name), base);
    cJSON_Delete(v);
    if (rc < 0 && c->status != SCN_EIO) {
        fprintf(stderr, "rocesim: internal error: the default \"%s\" of %s does not pass its own check: %s\n", text, p,
                c->err ? c->err : "");
        abort();
    }
    return rc;
}

/* Sets g's fields to preset p's values (the defaults where it lists none); p < 0: the defaults. */
static int apply_preset(struct setting_ctx *c, const struct setting_group *g, int p, void *base)
{
    for (const struct setting *f = g->fields; f->name; f++) {
        if (f->kind == SETTING_CHECK)
            continue;
        if (g->preset_key && strcmp(f->name, g->preset_key) == 0) {
            *(int *)((char *)base + f->offset) = p < 0 ? 0 : p;
            continue;
        }
        const char *text = f->dflt;
        for (const struct setting_value *pv = p >= 0 ? g->presets[p].values : NULL; pv && pv->name; pv++)
            if (strcmp(pv->name, f->name) == 0)
                text = pv->value;
        if (f->kind == SETTING_GROUP) {
            const struct setting_group *cg = child_group(g->path, f->name);
            if (cg && child_update(c, g, cg, NULL, NULL, base) < 0)
                return -1;
        } else if (text && parse_text(c, g, f, text, base) < 0) {
            return -1;
        }
    }
    return 0;
}

/* See settings.h. */
int settings_defaults(struct setting_ctx *c, const struct setting_group *g, void *base)
{
    if (apply_preset(c, g, g->preset_key ? 0 : -1, base) < 0)
        return -1;
    size_t n = strlen(g->path);
    for (int i = 0; i < n_groups; i++)
        if (under(g, n, groups[i]) && child_update(c, g, groups[i], NULL, NULL, base) < 0)
            return -1;
    return 0;
}

/*
 * Applies the preset obj chooses (by owner's preset_key, a member of obj) to ownbase, owner's struct; *key: the
 * preset's field, which the parse then skips.  The preset goes first so that explicit fields win wherever they
 * stand in the object.  Only a preset the object names resets the group: ownbase starts at the defaults (the first
 * preset), or, for a profile, at the node's settings so far, which an object without a preset only amends.
 */
static int parse_preset(struct setting_ctx *c, const struct setting_group *owner, const cJSON *obj, const char *path,
                        void *ownbase, const struct setting **key)
{
    char p[SETTING_PATH_MAX];
    int which = 0;
    for (const struct setting *f = owner->fields; f->name; f++)
        if (strcmp(f->name, owner->preset_key) == 0)
            *key = f;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, owner->preset_key);
    if (v && setting_val_enum(c, v, setting_join(p, path, owner->preset_key), (*key)->names, &which) < 0)
        return -1;
    return v ? apply_preset(c, owner, which, ownbase) : 0;
}

/* Parses obj's value of f, a field of g's table other than its preset. */
static int parse_member(struct setting_ctx *c, const struct setting_group *g, const struct setting *f,
                        const cJSON *obj, const char *path, void *base)
{
    if (f->kind == SETTING_CHECK)
        return f->check(c, obj, path, base);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->name);
    char p[SETTING_PATH_MAX];
    setting_join(p, path, f->name);
    if (!v && (f->flags & SETTING_REQUIRED))
        return setting_bad(c, p, "expected %s, got nothing (this field is required)", f->what);
    if ((v || (f->flags & SETTING_ALWAYS)) && parse_field(c, g, f, v, p, base) < 0)
        return -1;
    return 0;
}

/* Parses member m of g's object obj at path; ownbase: the struct of m's owner. */
static int parse_one(struct setting_ctx *c, const struct setting_group *g, const struct member *m, const cJSON *obj,
                     const char *path, void *base, void *ownbase)
{
    if (m->f)
        return parse_member(c, m->owner, m->f, obj, path, ownbase);
    char p[SETTING_PATH_MAX];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, m->name);
    if (v && (setting_val_obj(c, v, setting_join(p, path, m->name)) < 0 || child_update(c, g, m->grp, v, p, base) < 0))
        return -1;
    return 0;
}

/*
 * See settings.h.  A flat group's fields are parsed into a copy of its values (its struct), stored as a new value
 * once the whole object passed, as child_update does for a group of its own.
 */
int settings_parse(struct setting_ctx *c, const struct setting_group *g, const cJSON *obj, const char *path,
                   void *base)
{
    struct members ms;
    members(g, &ms);
    if (setting_check_fields(c, obj, path, ms.names) < 0)
        return -1;
    void *own[MAX_GROUPS + 1] = {base};
    const struct setting *preset[MAX_GROUPS + 1] = {NULL};
    const struct setting_group *owner[MAX_GROUPS + 1] = {g};
    int n_own = 1, rc = 0;
    for (int k = 0; k < ms.n_under && rc == 0; k++) {
        const struct setting_group *cg = ms.under[k];
        if (!flat_name(cg))
            continue;
        owner[n_own] = cg;
        if (!cg->size) {
            own[n_own++] = (char *)base + cg->offset;
            continue;
        }
        const void **slot = mods_slot(g, cg, base);
        if (!c->store)
            bug("values of a module group parsed with no store to keep them", cg);
        if (!(own[n_own] = calloc(1, cg->size)))
            rc = setting_oom(c);
        else if (*slot)
            memcpy(own[n_own], *slot, cg->size);
        n_own += own[n_own] != NULL;
    }
    for (int k = 0; k < n_own && rc == 0; k++)
        if (owner[k]->preset_key)
            rc = parse_preset(c, owner[k], obj, path, own[k], &preset[k]);
    for (int i = 0; i < ms.n && rc == 0; i++) {
        int k = 0;
        while (k < n_own && owner[k] != ms.m[i].owner)
            k++;
        if (!(ms.m[i].f && k < n_own && ms.m[i].f == preset[k]))
            rc = parse_one(c, g, &ms.m[i], obj, path, base, k < n_own ? own[k] : NULL);
    }
    for (int k = 1; k < n_own; k++) {
        if (!owner[k]->size)
            continue;
        const void *kept = rc < 0 ? NULL : store_keep(c->store, owner[k], own[k]);
        if (rc == 0 && !kept)
            rc = setting_oom(c);
        if (kept)
            *mods_slot(g, owner[k], base) = kept;
        free(own[k]);
    }
    return rc;
}

/* Adds field f of the struct at base to obj. */
bool (*setting_classes_hidden)(void);

static void dump_field(const struct setting *f, const void *base, cJSON *obj)
{
    const void *at = (const char *)base + f->offset;
    char b[40];
    if ((f->flags & SETTING_CLASS) && setting_classes_hidden && setting_classes_hidden())
        return;
    if (f->dump) {
        f->dump(obj, f, base);
        return;
    }
    switch (f->kind) {
    case SETTING_TIME:
        cJSON_AddStringToObject(obj, f->name, units_fmt_time(*(const int64_t *)at, b, sizeof b));
        break;
    case SETTING_SIZE:
        cJSON_AddStringToObject(obj, f->name, units_fmt_size(*(const int64_t *)at, b, sizeof b));
        break;
    case SETTING_RATE:
        cJSON_AddStringToObject(obj, f->name, units_fmt_rate(*(const int64_t *)at, b, sizeof b));
        break;
    case SETTING_LENGTH:
        cJSON_AddStringToObject(obj, f->name, units_fmt_length(*(const int64_t *)at, b, sizeof b));
        break;
    case SETTING_NUMBER:
        cJSON_AddNumberToObject(obj, f->name, *(const double *)at);
        break;
    case SETTING_INT:
        cJSON_AddNumberToObject(obj, f->name, *(const int *)at);
        break;
    case SETTING_BOOL:
        cJSON_AddBoolToObject(obj, f->name, *(const bool *)at);
        break;
    case SETTING_ENUM:
        cJSON_AddStringToObject(obj, f->name, f->names[*(const int *)at]);
        break;
    case SETTING_MODULE: {
        const struct module *m = module_at(f->module_kind, *(const int *)at);
        cJSON_AddStringToObject(obj, f->name, m ? m->name : "?");
        break;
    }
    default:
        break;
    }
}

bool (*setting_hidden)(const char *path);

/* See settings.h. */
void settings_dump(const struct setting_group *g, const void *base, cJSON *obj)
{
    struct members ms;
    members(g, &ms);
    for (int i = 0; i < ms.n; i++) {
        const struct member *m = &ms.m[i];
        char path[SETTING_PATH_MAX];
        if (!m->name || (setting_hidden && setting_hidden(setting_join(path, g->path, m->name))))
            continue;
        if (m->grp) {
            const void *cb = child_base(g, m->grp, base);
            cJSON *o = cb ? cJSON_AddObjectToObject(obj, m->name) : NULL;
            if (o)
                settings_dump(m->grp, cb, o);
            continue;
        }
        const void *ownbase = m->owner == g ? base : child_base(g, m->owner, base);
        if (ownbase)
            dump_field(m->f, ownbase, obj);
    }
}

/* See settings.h. */
int settings_check_path(const char *path, char *msg, size_t msglen, char *at, size_t atlen)
{
    const struct setting_group *g = settings_find("");
    char tmp[SETTING_PATH_MAX];
    const char *target = profile_target(path);
    setting_strf(tmp, sizeof tmp, "%s", target);
    size_t off = (size_t)(target - path);
    for (char *comp = tmp; g && comp;) {
        char *dot = strchr(comp, '.');
        if (dot)
            *dot = '\0';
        struct members ms;
        members(g, &ms);
        int i = 0;
        while (i < ms.n && !(ms.m[i].name && strcmp(ms.m[i].name, comp) == 0))
            i++;
        off += strlen(comp);
        if (i == ms.n) {
            unknown_msg(ms.names, comp, msg, msglen);
            setting_strf(at, atlen, "%.*s", (int)off, path);
            return -1;
        }
        g = ms.m[i].grp;
        comp = dot ? dot + 1 : NULL;
        off++;
    }
    return 0;
}
