/*
 * ecn — ECN marking at a switch egress: RED on the instantaneous queue, as
 * DCQCN's congestion point uses it (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015, section 3.1; after Floyd and
 * Jacobson, "Random Early Detection Gateways for Congestion Avoidance",
 * IEEE/ACM ToN 1993, without RED's averaging):
 *   p(q) = 0                                   q <= kmin
 *        = pmax (q - kmin) / (kmax - kmin)     kmin < q <= kmax
 *        = 1                                   q > kmax
 * for q the bytes queued at the egress (port, priority): at dequeue those
 * behind the departing frame, at enqueue those ahead of the arriving one,
 * when sent those behind it when its last bit has left (switch.ecn.mark_on;
 * "sent" is the UEC reference simulator's rule, its CompositeQueue's
 * completeService: the frame goes onto its link only then, port.c).  Only
 * ECT data frames not yet marked are marked CE; each switch draws from its
 * own random stream, and only where 0 < p < 1, so the stream advances only
 * there.  A switch that accounts in cells (switch.cell_size) compares whole
 * cells: q counts each frame's cells, and kmin and kmax are rounded up to
 * whole cells (struct sw_limits).
 */
#ifndef MODELS_ECN_H
#define MODELS_ECN_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fecn.h"
#include "models/net.h"

/* switch.ecn.mark_on. */
enum ecn_mark_on { ECN_MARK_DEQUEUE, ECN_MARK_ENQUEUE, ECN_MARK_SENT };

/*
 * switch.ecn (docs/scenario.md): the group the ECN mechanism registers on its line (ecn.c), after switch.pfc.  Its
 * per-port fields (SETTING_PORT: enabled, kmin, kmax, pmax) and its values by port speed are resolved per port
 * into struct port_cfg when the network is built (profiles.c), which is what marking reads.
 */
struct ecn_settings {
    bool enabled;
    int64_t kmin, kmax; /* bytes */
    double pmax;
    enum ecn_mark_on mark_on;
    struct scn_rate_map kmin_map, kmax_map, pmax_map; /* per port speed (then the scalar is 0) */
};

/* m's name in a scenario ("dequeue", "enqueue", "sent"). */
const char *ecn_mark_on_name(enum ecn_mark_on m);

/* Switch settings w's switch.ecn (the global object's, or a switch's or a port's with its profiles).  At set-up,
 * never per frame. */
const struct ecn_settings *ecn_settings_of(const struct scn_switch *w);

/* RED marking probability for an egress queue of q bytes (0 below kmin, 1 above kmax). */
double ecn_red_probability(const struct ecn_thresh *e, int64_t q);

/* Whether a frame that sees q bytes queued is marked, drawing from r only where the outcome is uncertain. */
bool ecn_red_draw(const struct ecn_thresh *e, struct rng *r, int64_t q);

/* Whether frame k may still be marked: an ECT data frame not marked yet. */
static inline bool ecn_markable(const struct pkt *k)
{
    return k->type == PKT_DATA && (k->ecn & (ECN_ECT | ECN_CE)) == ECN_ECT;
}

/* Marks frame k CE at egress p of switch w whose settings are pc, with q bytes queued, when it is an ECT data frame
 * not yet marked and RED says so (pc's thresholds are its rate's); on InfiniBand the mark is FECN (fecn.h). */
static inline void ecn_maybe_mark(struct net *n, struct sw *w, const struct port_cfg *pc, const struct port *p,
                                  struct pkt *k, int64_t q)
{
    const struct ecn_thresh *e = &pc->ecn; /* in whole cells when the switch counts cells (profiles.c) */
    /* q <= kmin, the common case, decides without a call */
    if (ecn_markable(k) && q > e->kmin &&
        (e->fecn ? fecn_mark(pc, p, k) : ecn_red_draw(e, &w->ecn_rng, q))) {
        k->ecn |= ECN_CE | ECN_HERE;
        net_np(n)->c.ecn_marked++;
        net_np(n)->c.prio[k->prio].ecn_marked++;
    }
}

#endif
