/*
 * lfc — link-level flow control, as a table of operations: what a switch asks
 * of it when a frame of a priority under flow control enters its buffer and
 * when it leaves, what a port does with a flow-control frame from its peer,
 * and what a failed link clears.  PFC (IEEE 802.1Qbb, models/pfc.c) is the
 * first implementation; a credit-based one (InfiniBand) would be another.
 *
 * The contract every implementation keeps:
 * - the priorities under flow control are net.lossless; the others are
 *   tail-dropped by the switch and never ask the table;
 * - a (port, priority) whose peer may not be sent to is blocked: the
 *   implementation blocks and unblocks it with port_block / port_unblock
 *   (port.h), which keep port.paused (the mask every scheduler reads), the
 *   blocked-time accounting (paused_ns, summary) and the wait-for state of the
 *   deadlock detector (deadlock.h);
 * - `heartbeat`: its own events keep recurring, at most half a deadlock check
 *   period apart, at the switch that holds a switch egress blocked, for as
 *   long as it does (PFC's PAUSE refresh), and each calls deadlock_heartbeat();
 *   the detector then needs no timer and adds no event.  Without it the
 *   detector runs its own timer while a switch egress is blocked.
 *
 * The per-frame operations (admit, released) of PFC are inline in pfc.h and
 * called directly by the switch when PFC is the flow control (switch.c),
 * other implementations through the table.
 *
 * An implementation is a module of kind lfc_kind (sim/module.h), chosen by
 * switch.flow_control: MODULE_REGISTER(lfc_kind, "pfc", &pfc_lfc_ops).  Its
 * registration is refused when a hook is missing (all four are called).
 */
#ifndef MODELS_LFC_H
#define MODELS_LFC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"
#include "sim/module.h"

#define LFC_ADMIT (-1) /* admit's "accounted" (any other value is the enum drop_reason of its refusal) */

struct lfc_ops {
    const char *name;
    /* Frame k of a priority under flow control enters switch w through ingress `in`: counts it into the buffer
     * (w->buffered, the ingress counters; k->in_port), charging sw_frame_bytes(w, k->size) (whole cells when the
     * switch counts cells), and returns LFC_ADMIT, or returns why it is dropped. */
    int (*admit)(struct net *n, struct sw *w, struct port *in, struct pkt *k);
    /* A frame of priority prio that entered switch w through `in` has left the buffer accounting: the ingress
     * may let its upstream send again. */
    void (*released)(struct net *n, struct sw *w, struct port *in, int prio);
    /* A flow-control frame (PKT_PAUSE) arrived at port p; the caller frees it. */
    void (*control)(struct port *p, const struct pkt *k);
    /* p's link failed: forget the blocks p's peer imposed on p (port.c has closed their time) and those p imposed
     * on its peer. */
    void (*link_fail)(struct port *p);
    /* Optional: p's failed link is up again (both ends are, the peer's hook runs too), before p sends anything:
     * the state the link starts again from (credits: nothing to send until the peer advertises; its own
     * advertisement sent). */
    void (*link_up)(struct port *p);
    /* Optional: a frame that arrived at p was lost before the switch took it (a failed link, corruption, no route,
     * the MTU, the watchdog): a flow control that counts what arrives counts it too. */
    void (*lost)(struct port *p, const struct pkt *k);
    bool heartbeat;
    /* Every priority is under it, each with a buffer of its own at every ingress and no PFC headroom (credits:
     * every virtual lane); else the priorities are switch.pfc.priorities. */
    bool every_priority;
    /* Its buffers count in units of this many bytes (credits: 64-byte blocks), which every switch then counts in;
     * 0: the switch's own (switch.cell_size). */
    uint16_t cell;
    /* Frame k leaves port p (any frame: a flow-control frame too), or NULL: the sender's side of a flow control
     * that the sender keeps (credits). */
    void (*sent)(struct port *p, const struct pkt *k);
};

/* Frame k was lost at p before the switch took it: tells the flow control that counts arrivals (lfc_ops.lost). */
static inline void lfc_lost(struct net *n, struct port *p, const struct pkt *k)
{
    if (n->lfc->lost)
        n->lfc->lost(p, k);
}

/* switch.flow_control, the choice of flow control: a flat group of `switch` (sim/settings.h), models/lfc.c's. */
struct lfc_params {
    int flow_control; /* a module of kind "lfc", by index: 0 is PFC, the default */
};

/* Switch settings w's choice (only the global switch object may make it). */
const struct lfc_params *lfc_params_of(const struct scn_switch *w);

/* The kind of the flow-control modules ("lfc": switch.flow_control names one); its default is "pfc". */
extern const struct module_kind lfc_kind;

/* The implementation switch.flow_control's value `index` names. */
const struct lfc_ops *lfc_at(int index);

#endif
