/* sched — strict priority and DWRR (see sched.h for the algorithm and its reference), and the kind of the
 * scheduler modules. */
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

int sched_pick_weighted(const struct scn_scheduler *cfg, struct sched_state *st, uint8_t eligible,
                        const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    uint8_t weighted = 0;
    for (int p = 0; p < SCN_NPRIO; p++)
        if (cfg->weights[p])
            weighted |= (uint8_t)(1u << p);
    int strict = sched_strict_pick(eligible & (uint8_t)~weighted);
    if (strict >= 0)
        return strict;
    /*
     * Each weighted queue's quantum is at least one largest frame, so a visit
     * to an eligible queue always sends; one full turn plus one visit suffices.
     */
    for (int tries = 0; tries <= 2 * SCN_NPRIO; tries++) {
        int q = st->cur;
        uint8_t bit = (uint8_t)(1u << q);
        if ((weighted & bit) && (eligible & bit)) {
            if (st->fresh) {
                st->deficit[q] += (int64_t)cfg->weights[q] * quantum_unit;
                st->fresh = false;
            }
            if (st->deficit[q] >= (int64_t)head[q]) {
                st->deficit[q] -= head[q];
                return q;
            }
        } else if (weighted & bit) {
            st->deficit[q] = 0; /* idle or paused: no credit carried into its next busy period */
        }
        st->cur = (uint8_t)((q + 1) % SCN_NPRIO);
        st->fresh = true;
    }
    return sched_strict_pick(eligible); /* unreachable with quanta >= one frame */
}

static const struct sched_ops dwrr_ops = {.name = "dwrr", .pick = sched_pick_weighted};
MODULE_REGISTER(sched_kind, "dwrr", &dwrr_ops);
