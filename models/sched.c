/* sched — the kind of the scheduler modules (sched.h), and strict priority, the default. */
#include "models/sched.h"

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

static int strict_pick(const struct scn_scheduler *cfg, struct sched_state *st, uint8_t eligible,
                       const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    return sched_strict_pick(eligible);
}

static const struct sched_ops strict_ops = {.name = "strict", .pick = strict_pick};
MODULE_REGISTER(sched_kind, "strict", &strict_ops);
