/*
 * sched_vlarb — InfiniBand's data VL arbitration (InfiniBand Architecture Specification vol. 1, section 7.6.9,
 * "VL arbitration and prioritization"; the VLArbitrationTable attribute of section 14.2.5), as OpenSM configures it
 * (qos_vlarb_high, qos_vlarb_low, qos_high_limit).
 *
 * A port has a high- and a low-priority table, each up to 64 entries (VL, weight); a weight counts 64-byte units
 * and 0 skips its entry.  Within a table the entries take turns: the current entry sends packets of its VL while
 * its weight is not used up (the packet that uses it up may go over it; nothing carries over), then the next entry
 * with a VL that has a packet and credit takes over.  The high table goes first; high_limit bounds what it may
 * send while a low-priority packet waits: high_limit x 4096 bytes, 0 one packet, 255 no bound.  An entry naming
 * a VL the port does not operate is skipped, as the specification allows.
 */
#include "models/sched.h"

/* Bytes the high table may send while a low-priority packet waits: at least one packet. */
static uint32_t high_bytes(const struct sched_settings *cfg)
{
    return cfg->high_limit == 255 ? UINT32_MAX : cfg->high_limit ? (uint32_t)cfg->high_limit * 4096u : 1u;
}

/* Table t's next packet among `eligible` (some VL of which has a weight in it). */
static int serve(const struct vlarb_table *tab, struct vlarb_state *st, int t, uint8_t eligible,
                 const uint32_t head[SCN_NPRIO])
{
    for (int tries = 0; tries <= tab->n; tries++) {
        int e = st->idx[t], vl = tab->vl[e];
        if (tab->weight[e] && vl < SCN_NPRIO && (eligible >> vl & 1)) {
            if (!st->charged[t]) {
                st->left[t] = (int32_t)tab->weight[e] * 64;
                st->charged[t] = true;
            }
            st->left[t] -= (int32_t)head[vl];
            if (st->left[t] <= 0) {
                st->idx[t] = (uint8_t)((e + 1) % tab->n);
                st->charged[t] = false;
            }
            return vl;
        }
        st->idx[t] = (uint8_t)((e + 1) % tab->n);
        st->charged[t] = false;
    }
    return -1; /* unreachable: the caller saw an eligible VL with a weight */
}

static int vlarb_pick(const struct sched_settings *cfg, struct sched_state *s, uint8_t eligible,
                      const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    struct vlarb_state *st = &s->vlarb;
    uint8_t hi = eligible & cfg->vlarb[0].mask, lo = eligible & cfg->vlarb[1].mask;
    if (hi && (!lo || st->hi_sent < high_bytes(cfg))) {
        int vl = serve(&cfg->vlarb[0], st, 0, hi, head);
        st->hi_sent = lo ? st->hi_sent + head[vl] : 0; /* counts only while low waits */
        return vl;
    }
    if (lo) {
        st->hi_sent = 0;
        return serve(&cfg->vlarb[1], st, 1, lo, head);
    }
    /* A VL with no weight in either table is never served on a real port; the build refuses a service level
     * mapped to one (fabric_ib.c), so only such a VL's stray frame could come here. */
    return sched_strict_pick(eligible);
}

static uint8_t vlarb_serves(const struct sched_settings *cfg)
{
    return cfg->vlarb[0].mask | cfg->vlarb[1].mask;
}

static const struct sched_ops vlarb_ops = {.name = "vlarb", .pick = vlarb_pick, .serves = vlarb_serves};
MODULE_REGISTER(sched_kind, "vlarb", &vlarb_ops);
