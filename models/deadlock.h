/*
 * deadlock — PFC deadlock detection (docs/scenario.md, "Pathologies"): a cyclic
 * buffer dependency in which every egress of the cycle is paused by the next
 * switch, whose ingress can only drain through the next paused egress (Hu et
 * al., "Deadlocks in Datacenter Networks: Why Do They Form, and How to Avoid
 * Them", HotNets 2016).
 *
 * The rule.  A switch egress (port p of switch A, priority q) is stalled when
 * its peer has paused q on it without a break for at least
 * switch.deadlock_check and frames of q are queued on it: it has sent nothing
 * (but the frame already on the wire) for that long.  Its wait-for edges: the
 * peer B paused it because B's ingress (p', q), p' = the peer port, is over
 * its threshold, and that ingress drains only through B's egress queues of
 * priority q holding frames that entered through p'; for each such egress F
 * that is itself stalled there is an edge (A, p, q) -> F.  A cycle in this
 * graph is a deadlock: no queue on it can move before the next one does.
 * The detector finds one by an iterative depth-first search (ports in id
 * order, so the result is deterministic), records it in order around the
 * cycle starting from its lowest port id, and stops the run.
 *
 * When.  The detector follows the wait-for state: a switch egress becomes
 * a node candidate when the link-level flow control blocks it (port_block,
 * lfc.h).  With a flow control that has a heartbeat (PFC: a switch that keeps
 * an upstream paused refreshes its PAUSE every half pause time, pfc.c),
 * checks are not events of their own: the first heartbeat at least
 * switch.deadlock_check after the previous check runs the next one.  Every
 * ingress of a deadlock is held paused, so its refreshes keep coming and the
 * deadlock is found within about two deadlock_check periods plus one refresh
 * period of forming; a run without long pauses never refreshes, so detection
 * adds no event and changes no result.  With a flow control without a
 * heartbeat (one that blocks without sending anything while it lasts), the
 * detector runs its own timer instead: armed deadlock_check after a switch
 * egress becomes blocked while none was, it checks and re-arms every
 * deadlock_check while one is blocked and traffic remains.  A check that
 * finds no blocked switch egress returns at once, and the graph (a scan of
 * the stalled queues' frames) is built only when some egress is stalled.
 * switch.deadlock_check = 0 turns detection off.
 *
 * In a run cut into partitions (sim/parallel.h), the graph spans them all, so a check runs between windows,
 * at a line of the engine's grid: a heartbeat that comes due asks for one at the next line, and the timer of a
 * detector without heartbeat is armed from the line after an egress became blocked.  The lines are the same
 * whatever the number of partitions, so detection is too.
 */
#ifndef MODELS_DEADLOCK_H
#define MODELS_DEADLOCK_H

#include "models/net.h"

/* switch.deadlock_check, a flat group of `switch` (sim/settings.h) that models/deadlock.c declares. */
struct deadlock_params {
    int64_t check_ps; /* how long a cycle of paused queues lasts before it is a deadlock, and the checks' period;
                       * 0 = off */
};

/* Switch settings w's (the global object's: a profile may not set it). */
const struct deadlock_params *deadlock_params_of(const struct scn_switch *w);

/* Sets the detector up for n's scenario and flow control (its init hook, mech.h; tests call it again after
 * changing the period). */
void deadlock_init(struct net *n);

/* Runs a check at time now (the caller saw that one is due); stops the run when it finds a deadlock.  mem_oom
 * when out of memory. */
void deadlock_check(struct net *n, sim_time_t now);

/* The flow control's heartbeat (lfc.h): runs a check when one is due; may stop the run.  In a partitioned run
 * the check needs the whole network at rest, so it runs at the next line of the grid (deadlock.c's at_line,
 * a hook of mech.h). */
static inline void deadlock_heartbeat(struct net *n)
{
    sim_time_t now = net_sim(n)->now;
    if (n->dl.period && !n->dl.own_timer && now >= n->dl.next_check) {
        if (net_partitioned(n))
            net_np(n)->beat = true;
        else
            deadlock_check(n, now);
    }
}

/* A switch egress became blocked (port.c); first: while none was.  Starts the detector's own timer, if it runs
 * one. */
void deadlock_blocked(struct net *n, bool first);

#endif
