/*
 * pfcwd — the PFC watchdog of the switches, with the semantics of SONiC's
 * pfcwd (sonic-swss orchagent/pfcwdorch; "PFC Watchdog" in the SONiC
 * configuration guide), as docs/scenario.md (switch.watchdog) states them.
 *
 * Every switch.watchdog.poll_interval (polls at poll, 2 poll, ...) the
 * watchdog looks at each switch egress (port, lossless priority):
 *  - stalled: the peer has it paused, frames are queued on it, and it has
 *    not transmitted since the previous poll (it has been paused without a
 *    break since then: a paused priority sends nothing but the frame that was
 *    already on the wire);
 *  - a queue found stalled at consecutive polls for detection_time (counted
 *    from the previous poll of the first one, when it last could have sent)
 *    is declared stormed: `storm` in watchdog.csv, storms_detected + 1;
 *  - action drop: its queued frames are discarded, and so is every frame that
 *    arrives for it (drops by reason `watchdog`; the buffer accounting and
 *    PFC of the switch see them leave exactly as at a dequeue), and PAUSE
 *    frames on that (port, priority) are ignored; forward: PAUSE is ignored,
 *    so the queue transmits; alert: nothing changes but the report;
 *  - a stormed queue is restored at the first poll at which no PFC frame
 *    (PAUSE or RESUME: SONiC counts every PFC frame received on the priority)
 *    has arrived for it for restoration_time: `restore` in watchdog.csv,
 *    restored + 1; PAUSE is obeyed again from then on.
 * A detected storm is therefore reported within detection_time + one poll
 * (plus the PAUSE's trip) of the moment the queue stopped, and restored
 * within restoration_time + one poll of the storm's last PFC frame.
 *
 * Cost: nothing when disabled (no event, n->wd NULL).  Enabled, one event per
 * poll that walks the switch ports, one store per PFC frame received, and one
 * bitmask test per frame entering a switch (the drop check); nothing else per
 * packet.  Polls stop when no flow is active and no source will add one, so
 * they never keep a finished run going.
 */
#ifndef MODELS_PFCWD_H
#define MODELS_PFCWD_H

#include "models/net.h"

/* switch.watchdog.action. */
enum pfcwd_action { PFCWD_DROP, PFCWD_FORWARD, PFCWD_ALERT };

/* switch.watchdog (docs/scenario.md): the group the watchdog registers on its line (pfcwd.c), after
 * switch.lossy_queue_limit.  The fabric's: a profile may not set it. */
struct pfcwd_settings {
    bool enabled;
    int64_t detection_ps, restoration_ps, poll_ps;
    enum pfcwd_action action;
};

/* Switch settings w's switch.watchdog.  At set-up, never per frame. */
const struct pfcwd_settings *pfcwd_settings_of(const struct scn_switch *w);

/* Per (port, priority) watchdog state. */
struct pfcwd_queue {
    sim_time_t stall_start; /* the poll before the first of the consecutive stalled polls, or -1 */
    sim_time_t last_pfc;    /* arrival of the last PFC frame for this (port, priority), or -1 */
};

struct pfcwd {
    const struct pfcwd_settings *cfg; /* the fabric's switch.watchdog */
    struct sim_timer poll;
    sim_time_t last_poll;
    struct pfcwd_queue *q;  /* [port id * NPRIO + prio] */
    uint32_t storms, restored;
};

/* Creates the watchdog of n and schedules its first poll; mem_oom (sim/mem.h) when out of memory.  Its init hook
 * (mech.h) calls it when the watchdog is enabled and some priority is lossless.  Prints pfcwd_out_of_reach's
 * warning on stderr, if any. */
void pfcwd_init(struct net *n);

/*
 * Whether the enabled watchdog of s cannot declare a storm within the run: a queue is first seen stalled at
 * the poll after it stopped, and declared detection_time later (rounded up to a poll), so nothing can be
 * declared before detection_time + poll_interval.  When that exceeds `stop`, writes "warning: FILE:
 * switch.watchdog: ..." into msg and returns true: a watchdog that cannot act must not look like one that
 * found nothing.
 */
bool pfcwd_out_of_reach(const struct scenario *s, char *msg, size_t len);

/* A PFC frame for prio arrived at egress p (port.c): restarts its restoration clock. */
static inline void pfcwd_saw_pfc(struct net *n, const struct port *p, int prio)
{
    n->wd->q[(size_t)port_id(p) * NPRIO + (size_t)prio].last_pfc = net_sim(n)->now;
}

#endif
