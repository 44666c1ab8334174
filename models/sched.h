/*
 * sched — the egress scheduler of a port (switch ports and host NICs alike).
 *
 * `strict` (sched.c): the highest eligible priority first.  `dwrr` (sched_dwrr.c): deficit round robin among
 * the priorities that have a weight, the others first by strict priority.  `vlarb` (sched_vlarb.c): InfiniBand's
 * VL arbitration, two weighted tables and a limit on the high one.
 *
 * A scheduler is a module of kind sched_kind (sim/module.h), chosen by
 * switch.scheduler.type: MODULE_REGISTER(sched_kind, "dwrr", &ops); its table
 * must have a pick.  Strict priority, the default, is numbered 0 (the kind's
 * default comes first) and decided inline without a call: it is what almost
 * every run uses, on every frame a port sends.
 */
#ifndef MODELS_SCHED_H
#define MODELS_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/module.h"
#include "sim/scenario.h"

/* VL arbitration's place in its two tables (sched_vlarb.c): 0 high, 1 low. */
struct vlarb_state {
    int32_t left[2];   /* bytes the current entry may still send (it sends while this is above 0) */
    uint32_t hi_sent;  /* bytes sent from the high table while a low-priority packet waited */
    uint8_t idx[2];    /* the current entry */
    bool charged[2];   /* the current entry has been given its weight on this visit */
};

struct sched_state {
    union {
        struct {
            int64_t deficit[SCN_NPRIO];
            uint8_t cur;       /* DRR pointer */
            bool fresh;        /* cur has not yet received its quantum on this visit */
        };
        struct vlarb_state vlarb;
    };
};

/*
 * switch.scheduler (docs/scenario.md): the group registered on strict priority's line (sched.c), after
 * switch.flow_control and switch.pfc and switch.ecn.  A switch keeps its own (struct sw.sched, a profile may set
 * it), the host NICs the global one (net.sched): both taken when the network is built, never per frame.
 */
#define VLARB_ENTRIES 64 /* entries of each VL arbitration table (IBA vol. 1, VLArbitrationTable) */

/* One of VL arbitration's tables: entries of (VL, weight in 64-byte units), served in turn. */
struct vlarb_table {
    uint8_t n;                      /* entries */
    uint8_t vl[VLARB_ENTRIES];
    uint8_t weight[VLARB_ENTRIES];  /* 0: the entry is skipped */
    uint8_t mask;                   /* the VLs 0-7 with a weight in the table */
};

struct sched_settings {
    int type;                    /* a module of kind "sched", by index: 0 is strict, the default */
    uint32_t weights[SCN_NPRIO]; /* dwrr; 0 = no weight: served first, by strict priority */
    struct vlarb_table vlarb[2]; /* vlarb: the high (0) and low (1) priority tables */
    int high_limit;              /* vlarb: 4096-byte units the high table may send while low waits (255: no limit) */
};

/* Switch settings w's switch.scheduler.  At set-up, never per frame. */
const struct sched_settings *sched_settings_of(const struct scn_switch *w);

struct sched_ops {
    const char *name; /* as switch.scheduler.type spells it: its module's name */
    /* sched_pick for a non-empty `eligible`: the priority to serve, charged to st; required. */
    int (*pick)(const struct sched_settings *cfg, struct sched_state *st, uint8_t eligible,
                const uint32_t head[SCN_NPRIO], int64_t quantum_unit);
    /* The priorities it ever serves (a queue outside them starves); NULL: all. */
    uint8_t (*serves)(const struct sched_settings *cfg);
};

#define SCHED_MAX 8
#define SCHED_STRICT 0 /* strict priority's index: the kind's default, numbered first */

/* The kind of the scheduler modules ("sched": switch.scheduler.type names one); its default is "strict". */
extern const struct module_kind sched_kind;
/* The schedulers by module index (switch.scheduler.type's value), a copy of the registry's for sched_pick. */
extern const struct sched_ops *sched_registry[SCHED_MAX];

/* The index of the scheduler called name, or -1. */
int sched_find(const char *name);

/* The priorities scheduler cfg ever serves. */
uint8_t sched_serves(const struct sched_settings *cfg);

/* What strict priority serves among `eligible`: its highest priority, or -1 when it is empty. */
static inline int sched_strict_pick(uint8_t eligible) { return eligible ? 31 - __builtin_clz(eligible) : -1; }


/* Whether sched_pick reads head[] at all: strict priority does not, so callers need not fetch the frames. */
static inline bool sched_weighs_sizes(const struct sched_settings *cfg) { return cfg->type != SCHED_STRICT; }

/*
 * Chooses the priority to serve among `eligible` (bit p: queue p has a frame
 * and is not paused); head[p] is the size of queue p's next frame (read only
 * when sched_weighs_sizes).  Charges the frame to the DRR deficit.  Returns
 * the priority, or -1 when nothing is eligible.  Strict priority, the
 * default, is decided here without a call.
 */
static inline int sched_pick(const struct sched_settings *cfg, struct sched_state *st, uint8_t eligible,
                             const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    if (!eligible || cfg->type == SCHED_STRICT)
        return sched_strict_pick(eligible);
    return sched_registry[cfg->type]->pick(cfg, st, eligible, head, quantum_unit);
}

#endif
