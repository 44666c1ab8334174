/* sched — the kind of the scheduler modules (sched.h), and strict priority, the default. */
#include "models/sched.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct sched_ops *sched_registry[SCHED_MAX];

static const char *sched_missing(const struct module *m)
{
    const struct sched_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (sched_ops.name)";
    if (!o->pick)
        return "a pick hook";
    return module_count("sched") == SCHED_MAX ? "room: SCHED_MAX schedulers are registered" : NULL;
}

static void sched_added(const struct module *m, int index)
{
    sched_registry[index] = m->ops;
    /* sched_pick decides strict priority by its index without a look at the table. */
    if (strcmp(m->name, "strict") == 0 && index != SCHED_STRICT) {
        fprintf(stderr, "rocesim: bug: the strict scheduler is numbered %d, not SCHED_STRICT\n", index);
        abort();
    }
}

const struct module_kind sched_kind = {.name = "sched", .dflt = "strict", .missing = sched_missing,
                                       .added = sched_added};

int sched_find(const char *name)
{
    return module_find(sched_kind.name, name);
}

static int strict_pick(const struct sched_settings *cfg, struct sched_state *st, uint8_t eligible,
                       const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    return sched_strict_pick(eligible);
}

/* ---- switch.scheduler: its settings (sched.h, docs/scenario.md) ---- */

/* Whether s chooses the scheduler called name: the schedulers whose settings are in this group (dwrr's weights,
 * vlarb's tables) are refused under another. */
static bool sched_is(const struct sched_settings *s, const char *name)
{
    const struct module *m = module_at(sched_kind.name, s->type);
    return m && strcmp(m->name, name) == 0;
}

static int parse_weights(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct sched_settings *s = base;
    char q[SETTING_PATH_MAX];
    (void)f;
    if (!sched_is(s, "dwrr"))
        return setting_bad(c, p, "expected no weights with the strict scheduler (weights need \"type\": \"dwrr\"), "
                           "got weights");
    if (setting_val_obj(c, v, p) < 0)
        return -1;
    for (const cJSON *it = v->child; it; it = it->next) {
        setting_join(q, p, it->string);
        if (strlen(it->string) != 1 || it->string[0] < '0' || it->string[0] > '7')
            return setting_bad(c, q, "expected a priority \"0\"..\"7\" as the key, got \"%.20s\"", it->string);
        long long x;
        if (setting_val_int(c, it, q, 1, UINT32_MAX, &x) < 0)
            return -1;
        s->weights[it->string[0] - '0'] = (uint32_t)x;
    }
    return 0;
}

/* Only a dwrr scheduler has weights to show. */
static void dump_weights(cJSON *o, const struct setting *f, const void *base)
{
    const struct sched_settings *s = base;
    if (!sched_is(s, "dwrr"))
        return;
    cJSON *wt = cJSON_AddObjectToObject(o, f->name);
    for (int p = 0; wt && p < SCN_NPRIO; p++)
        if (s->weights[p]) {
            char k[4];
            setting_strf(k, sizeof k, "%d", p);
            cJSON_AddNumberToObject(wt, k, s->weights[p]);
        }
}

/* ---- vlarb's tables (sched_vlarb.c), in OpenSM's form: "VL:weight,VL:weight,..." ---- */

static int parse_vlarb(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct sched_settings *s = base;
    struct vlarb_table *tab = (struct vlarb_table *)((char *)base + f->offset); /* vlarb_high's or vlarb_low's */
    if (!sched_is(s, "vlarb"))
        return setting_bad(c, p, "expected no VL arbitration table without \"type\": \"vlarb\", got one");
    long pairs[VLARB_ENTRIES][2];
    int n;
    if (setting_val_pairs(c, v, p, "a string of VL:weight pairs like \"0:64,1:128\"",
                          "VL:weight pairs with VL 0-14 and weight 0-255 (64-byte units)", (const long[2]){0, 0},
                          (const long[2]){14, 255}, pairs, VLARB_ENTRIES, &n) < 0)
        return -1;
    *tab = (struct vlarb_table){.n = (uint8_t)n};
    for (int e = 0; e < n; e++) {
        tab->vl[e] = (uint8_t)pairs[e][0];
        tab->weight[e] = (uint8_t)pairs[e][1];
        if (pairs[e][1] && pairs[e][0] < SCN_NPRIO)
            tab->mask |= (uint8_t)(1u << pairs[e][0]);
    }
    return 0;
}

static void dump_vlarb(cJSON *o, const struct setting *f, const void *base)
{
    const struct sched_settings *s = base;
    const struct vlarb_table *tab = (const struct vlarb_table *)((const char *)base + f->offset);
    char buf[VLARB_ENTRIES * 8] = "";
    if (!sched_is(s, "vlarb"))
        return;
    for (int e = 0; e < tab->n; e++)
        setting_strf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d:%d", e ? "," : "", tab->vl[e],
                     tab->weight[e]);
    cJSON_AddStringToObject(o, f->name, buf);
}

static int parse_high_limit(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p,
                            void *base)
{
    struct sched_settings *s = base;
    long long x;
    (void)f;
    if (!sched_is(s, "vlarb"))
        return setting_bad(c, p, "expected no high_limit without \"type\": \"vlarb\", got one");
    if (setting_val_int(c, v, p, 0, 255, &x) < 0)
        return -1;
    s->high_limit = (int)x;
    return 0;
}

static void dump_high_limit(cJSON *o, const struct setting *f, const void *base)
{
    const struct sched_settings *s = base;
    if (sched_is(s, "vlarb"))
        cJSON_AddNumberToObject(o, f->name, s->high_limit);
}

/* Without tables, every VL 0-7 takes an equal turn of one 4 KB packet (64 credits) in the low table. */
static int check_vlarb(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    struct sched_settings *s = base;
    (void)c, (void)obj, (void)path;
    if (!sched_is(s, "vlarb") || s->vlarb[0].n || s->vlarb[1].n)
        return 0;
    for (int vl = 0; vl < SCN_NPRIO; vl++) {
        s->vlarb[1].vl[vl] = (uint8_t)vl;
        s->vlarb[1].weight[vl] = 64;
    }
    s->vlarb[1].n = SCN_NPRIO;
    s->vlarb[1].mask = 0xff;
    return 0;
}

uint8_t sched_serves(const struct sched_settings *cfg)
{
    const struct sched_ops *o = sched_registry[cfg->type];
    return o->serves ? o->serves(cfg) : 0xff;
}

static const struct setting sched_fields[] = {
    {SET_MODULE("type", struct sched_settings, type, "sched", "strict",
          "\"strict\" priority, \"dwrr\" (deficit weighted round robin), \"vlarb\" (InfiniBand's VL arbitration), "
          "or one a module registered"),
     .flags = SETTING_REQUIRED, .what = "\"strict\", \"dwrr\" or \"vlarb\""},
    {SET_FIELD("weights", SETTING_CUSTOM, struct sched_settings, weights, 0, NULL,
           "dwrr only: keys \"0\"..\"7\", positive integer weights"), .parse = parse_weights, .dump = dump_weights},
    {.name = "vlarb_high", .kind = SETTING_CUSTOM, .offset = offsetof(struct sched_settings, vlarb[0]),
     .help = "vlarb only: the high-priority table, \"VL:weight,...\" (OpenSM's qos_vlarb_high; weight in 64-byte "
             "units)", .parse = parse_vlarb, .dump = dump_vlarb},
    {.name = "vlarb_low", .kind = SETTING_CUSTOM, .offset = offsetof(struct sched_settings, vlarb[1]),
     .help = "vlarb only: the low-priority table (qos_vlarb_low; absent with no high table: \"0:64,...,7:64\")",
     .parse = parse_vlarb, .dump = dump_vlarb},
    {.name = "high_limit", .kind = SETTING_CUSTOM, .offset = offsetof(struct sched_settings, high_limit),
     .help = "vlarb only: 4096-byte units the high table may send while low waits (0: one packet, 255: no limit)",
     .parse = parse_high_limit, .dump = dump_high_limit},
    {SET_CHECK(check_vlarb)},
    {0},
};

/* After switch.flow_control, as switch.pfc and switch.ecn, whose modules register first (pfc.c). */
static const struct setting_group sched_group = {
    .path = "switch.scheduler", .size = sizeof(struct sched_settings), .after = "flow_control", .fields = sched_fields,
};

/* See sched.h. */
const struct sched_settings *sched_settings_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, sched_group, struct sched_settings);
}

static const struct sched_ops strict_ops = {.name = "strict", .pick = strict_pick};
/* The group on the kind's default, which every build has. */
MODULE_REGISTER(sched_kind, "strict", &strict_ops, &sched_group);
