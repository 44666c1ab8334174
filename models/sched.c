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

/* Weights are DWRR's (sched_dwrr.c): the one scheduler of the build that reads them. */
static bool sched_weighted(const struct sched_settings *s)
{
    const struct module *m = module_at(sched_kind.name, s->type);
    return m && strcmp(m->name, "dwrr") == 0;
}

static int parse_weights(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct sched_settings *s = base;
    char q[SETTING_PATH_MAX];
    (void)f;
    if (!sched_weighted(s))
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
    if (!sched_weighted(s))
        return;
    cJSON *wt = cJSON_AddObjectToObject(o, f->name);
    for (int p = 0; wt && p < SCN_NPRIO; p++)
        if (s->weights[p]) {
            char k[4];
            setting_strf(k, sizeof k, "%d", p);
            cJSON_AddNumberToObject(wt, k, s->weights[p]);
        }
}

static const struct setting sched_fields[] = {
    {SET_MODULE("type", struct sched_settings, type, "sched", "strict",
          "\"strict\" priority, \"dwrr\" (deficit weighted round robin), or one a module registered"),
     .flags = SETTING_REQUIRED, .what = "\"strict\" or \"dwrr\""},
    {SET_FIELD("weights", SETTING_CUSTOM, struct sched_settings, weights, 0, NULL,
           "dwrr only: keys \"0\"..\"7\", positive integer weights"), .parse = parse_weights, .dump = dump_weights},
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
