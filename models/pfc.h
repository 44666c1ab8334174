/*
 * pfc — priority flow control, IEEE 802.1Qbb, the first link-level flow
 * control (lfc.h).
 *
 * A PAUSE frame carries, per priority, a pause time in quanta of 512 bit
 * times at the link rate: pause = quanta x 512 / rate.  The receiver stops
 * sending that priority until the time runs out or a PAUSE with time 0
 * (RESUME) arrives; a frame already being transmitted is finished, and PAUSE
 * frames themselves bypass the priority queues and go out next (port.c).
 *
 * Switch ingress (docs/model.md, "Switch"): every frame is counted against its
 * ingress (port, priority) until it leaves the switch.  For a lossless
 * priority the ingress counter is compared with the XOFF threshold:
 *   static:  xoff = switch.pfc.xoff
 *   dynamic: xoff = alpha * (buffer - reserved headroom - shared bytes in use)
 *            (Broadcom-style dynamic threshold, Choudhury and Hahne, "Dynamic
 *            queue length thresholds for shared-memory packet switches",
 *            IEEE/ACM ToN 1998; the HPCC simulator's switch MMU uses it too)
 * Above xoff the switch pauses the upstream on that priority and admits the
 * frames still arriving into the headroom reserved for that ingress (port,
 * priority); a frame that finds the headroom full is dropped as `headroom`.
 * RESUME is sent when the headroom is empty and the shared counter is at or
 * below xoff - xon_delta.  Frames leave the accounting at dequeue (the start
 * of their transmission), headroom first (switch.c).  A switch that accounts
 * in cells (switch.cell_size) counts each frame's whole cells and compares
 * with xoff, xon_delta, headroom and the buffer rounded up to whole cells;
 * the dynamic threshold is alpha x the free cells (switch.c, struct sw_limits).
 *
 * A pause is refreshed at half its time while the reason for it lasts, so the
 * upstream never resumes on expiry; a switch's refresh is the deadlock
 * detector's heartbeat (lfc.h, deadlock.h).  A host NIC pauses its ToR only
 * under a fault (pause_storm, slow_receiver: fault.c), by the same rule.
 *
 * The PFC watchdog (pfcwd.c) may tell a port to ignore PAUSE on a stormed
 * priority; every PFC frame still counts as seen for its restoration timer.
 *
 * Headroom "auto" (pfc_headroom, docs/scenario.md, switch.pfc): what still
 * arrives at an ingress after it decides to pause, after the worst-case delay
 * that PFC headroom covers under IEEE 802.1Qbb, as vendors' headroom
 * calculators count it, and the headroom derivation in the appendix of Hu et
 * al., "Tagger: Practical PFC Deadlock Prevention in Data Center Networks",
 * CoNEXT 2017.  The upstream sends at line rate r for the whole of
 *   T = (F_out + 20) x 8 / r     the largest frame this port may be sending
 *                                when it decides: PAUSE does not preempt it
 *     + (64 + 20) x 8 / r        the PAUSE frame
 *     + 2 x delay                PAUSE upstream, the last data back
 *     + response_quanta x 512 / r  the upstream's reaction (IEEE 802.3's
 *                                bound at 100 Gb/s is 394 quanta)
 *     + (F_in + 20) x 8 / r      the largest frame the upstream may be
 *                                finishing
 * so headroom = ceil(r x T / 8) bytes, rounded up to whole frames of F_in
 * (what arrives is frames of at most F_in).  F_in is the largest data frame
 * that can arrive on the port, F_out the largest that can leave it (20: the
 * preamble and inter-frame gap, 64: the PAUSE frame; the model has no PHY or
 * MAC delay beyond the link's own, so the standard's interface delays are in
 * `delay`).  pfc_port_frames says which frames those are.
 */
#ifndef MODELS_PFC_H
#define MODELS_PFC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/lfc.h"
#include "models/net.h"

#define PAUSE_QUANTUM_BITS 512

/* switch.pfc.xoff: "dynamic" or a size. */
enum pfc_xoff_mode { PFC_XOFF_DYNAMIC, PFC_XOFF_STATIC };

/*
 * switch.pfc (docs/scenario.md): the group PFC registers on its line (pfc.c), after switch.flow_control.  Its
 * per-port fields (SETTING_PORT: enabled, priorities) and its values by port speed are resolved per port into
 * struct port_cfg when the network is built (profiles.c); pause_quanta is the fabric's (net.pfc).
 */
struct pfc_settings {
    bool enabled;
    uint8_t lossless_mask; /* bit p set: priority p is lossless */
    enum pfc_xoff_mode xoff_mode;
    int64_t xoff_bytes;    /* PFC_XOFF_STATIC */
    double dynamic_alpha;  /* PFC_XOFF_DYNAMIC */
    int64_t xon_delta;
    bool headroom_auto;
    int64_t headroom_bytes;     /* when !headroom_auto */
    int pause_quanta;           /* quanta carried by a PAUSE (0xFFFF) */
    int response_quanta;        /* upstream response time used by auto headroom (394) */
    /* Per port speed, when given as maps (then xoff_bytes, dynamic_alpha, xon_delta, headroom_bytes are 0) */
    struct scn_rate_map xoff_map, alpha_map, xon_map, headroom_map;
};

/* Switch settings w's switch.pfc (the global object's, or a switch's or a port's with its profiles).  At set-up,
 * never per frame. */
const struct pfc_settings *pfc_settings_of(const struct scn_switch *w);

/*
 * The pause time of `quanta` PAUSE quanta (512 bit times each, IEEE 802.1Qbb) on a link of rate_bps, in ps.  On a link
 * so slow that it is 2^45 ps or more (0xFFFF quanta below about 1 Mbps), 2^45: like the exact time, it and its half
 * (the refresh) lie past the engine's clock (sim.h), where the exact one did not fit an int64 (3.4e19 ps at 1 bps)
 * and put the expiry in the past.
 */
static inline sim_time_t pause_quanta_ps(int64_t quanta, int64_t rate_bps)
{
    const sim_time_t beyond = 2 * (SIM_TIME_LIMIT + 1);
    __int128 ps = ((__int128)quanta * PAUSE_QUANTUM_BITS * PS_PER_S) / rate_bps;
    return ps < beyond ? (sim_time_t)ps : beyond;
}

extern const struct lfc_ops pfc_lfc_ops;

/* Headroom "auto" (bytes per lossless priority) of an ingress on a link of rate_bps and delay_ps whose largest
 * arriving data frame is frame_in bytes and largest departing one frame_out (headers included): the formula above. */
int64_t pfc_headroom(int64_t rate_bps, int64_t delay_ps, int frame_in, int frame_out, int response_quanta);

/*
 * The largest data frames, headers included, that can arrive on port p (*in) and leave it (*out): a host sends
 * frames of its own host.mtu + HDR_DATA; a frame from a switch is any host's (the largest host.mtu of the network),
 * but never larger than the switch.mtu of a switch it crossed (a larger one is dropped on arrival there).  A
 * switch port's in is its peer's frames, capped by both switches' MTU; its out any host's, capped by its own.  A
 * host's port (a NIC's receive buffer, fault.c) takes in any host's frame, capped by its ToR's MTU, and sends its
 * own.  Needs the hosts' and switches' settings resolved (profiles.c).
 */
void pfc_port_frames(const struct net *n, const struct port *p, int *in, int *out);

/* Port p's headroom "auto": pfc_headroom for its link and its frames (pfc_port_frames).  The one computation the
 * network's build (switch ports), the doctor (through port_cfg.headroom_auto) and a faulty NIC (fault.c) use. */
int64_t pfc_port_headroom(const struct net *n, const struct port *p, int response_quanta);

/* Ingress p starts holding its peer paused on prio (PAUSE, then refreshed) / lets it go (RESUME). */
void pfc_hold(struct net *n, struct port *p, int prio);
void pfc_let_go(struct port *p, int prio);

/* The XOFF threshold of an ingress whose settings are pc when free_shared bytes of the shared pool are free (its
 * rate's static xoff, or its alpha of what is free). */
static inline int64_t pfc_xoff_at(const struct port_cfg *pc, int64_t free_shared)
{
    if (pc->xoff_static)
        return pc->xoff;
    return (int64_t)(pc->alpha * (double)(free_shared > 0 ? free_shared : 0));
}

/* The XOFF threshold of an ingress whose settings are pc, for the shared pool as it stands. */
static inline int64_t pfc_xoff_threshold(const struct sw *w, const struct port_cfg *pc)
{
    return pfc_xoff_at(pc, w->lim.buffer - w->hdrm_reserved - w->shared_used);
}

/*
 * The table's per-frame operations (lfc.h), inline because the switch calls them for every frame of a lossless
 * priority: out of line, admission alone cost about 75 instructions a call (callgrind, k=4 WebSearch fat-tree).
 */
/*
 * B: the bytes frame k is charged (its size, or its whole cells: sw_frame_bytes), which the switch knows already.
 *
 * The rule: a frame whose ingress count would pass the threshold (of the pool before it), or that finds its
 * ingress in headroom already, goes to the headroom; else it needs room in the pool; and the ingress pauses its
 * upstream once it is in headroom or its count reaches the threshold of the pool with the frame in.  The threshold
 * only falls as the pool fills (alpha >= 0), so a count below the threshold after was below the one before: the
 * common case computes one threshold, and the one before only when the count reaches the one after.
 */
static inline int pfc_admit_charged(struct net *n, struct sw *w, struct port *in, struct pkt *k, int64_t B)
{
    int prio = k->prio;
    const struct port_cfg *pc = &n->pcfg[in->cfg];
    if (!((in->in_hdrm >> prio) & 1)) {
        int64_t free_shared = w->lim.buffer - w->hdrm_reserved - w->shared_used;
        int64_t ing = in->ing_shared[prio] + B;
        if (B <= free_shared) {
            int64_t after = pfc_xoff_at(pc, free_shared - B);
            if (ing < after || ing <= pfc_xoff_at(pc, free_shared)) {
                in->ing_shared[prio] = (int32_t)ing;
                w->shared_used += B;
                w->buffered += B;
                k->in_port = in->local;
                if (ing >= after && !((in->pause_sent >> prio) & 1))
                    pfc_hold(n, in, prio);
                return LFC_ADMIT;
            }
        } else if (ing <= pfc_xoff_at(pc, free_shared)) {
            return DROP_BUFFER;
        }
    }
    struct port_prio *pp = port_pp(in, prio);
    if (pp->ing_hdrm + B > port_aux(in)->headroom) /* a paused upstream's frame: the cold part is fine */
        return DROP_HEADROOM;
    pp->ing_hdrm += B;
    in->in_hdrm |= (uint8_t)(1u << prio);
    if (pp->ing_hdrm > pp->hdrm_peak)
        pp->hdrm_peak = pp->ing_hdrm;
    w->buffered += B;
    k->in_port = in->local;
    if (!((in->pause_sent >> prio) & 1))
        pfc_hold(n, in, prio);
    return LFC_ADMIT;
}

static inline int pfc_admit(struct net *n, struct sw *w, struct port *in, struct pkt *k)
{
    return pfc_admit_charged(n, w, in, k, sw_frame_bytes(w, k->size));
}

static inline void pfc_released(struct net *n, struct sw *w, struct port *in, int prio)
{
    if (!((in->pause_sent >> prio) & 1) || ((in->in_hdrm >> prio) & 1))
        return;
    int64_t sh = in->ing_shared[prio];
    const struct port_cfg *pc = &n->pcfg[in->cfg];
    if (sh == 0 || sh + pc->xon_delta <= pfc_xoff_threshold(w, pc))
        pfc_let_go(in, prio);
}

/* Sends a PFC frame for prio out of p (quanta 0: RESUME), counting it and reporting it to the PFC listeners. */
void pfc_send(struct port *p, int prio, uint16_t quanta);
/* Lifts the pause on priority prio of egress p (no-op when it is not paused) and restarts transmission. */
void pfc_unpause(struct port *p, int prio);
/* Host NIC p wants its peer paused on prio (want) or not: PAUSE, then refreshed, or RESUME, when that changes and
 * the link is up (fault.c). */
void pfc_host_hold(struct port *p, int prio, bool want);

#endif
