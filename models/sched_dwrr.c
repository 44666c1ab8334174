/*
 * sched_dwrr — deficit round robin among the priorities that have a weight (Shreedhar and Varghese, "Efficient
 * Fair Queuing using Deficit Round Robin", SIGCOMM 1995): on each visit a backlogged queue's deficit grows by its
 * quantum (weight x the largest data frame) and the queue sends frames while its head fits in the deficit; an
 * empty queue forfeits its deficit.  With every class backlogged, class i gets weight_i / sum(weights) of the
 * bytes.  Priorities without a weight are served first, by strict priority, as ETS switches serve
 * strict-priority traffic classes (CNPs, management) ahead of the weighted ones.
 */
#include "models/sched.h"

static int dwrr_pick(const struct sched_settings *cfg, struct sched_state *st, uint8_t eligible,
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

static const struct sched_ops dwrr_ops = {.name = "dwrr", .pick = dwrr_pick};
MODULE_REGISTER(sched_kind, "dwrr", &dwrr_ops);
