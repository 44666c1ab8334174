/*
 * fault — the scenario's scheduled faults that act on the network.
 *
 * link_down {between: [a, b], at, until?}: at `at` every link between nodes a
 * and b fails in both directions (parallel links fail together: the two names
 * cannot tell them apart); at `until`, if given, they come back.  What a
 * failure does to the frames and the PFC state on the link is in port.c; the
 * routing tables are recomputed around the failed links at the failure and
 * again at the recovery (docs/architecture.md, "Routing and link failures"), so flows recover
 * through their own loss recovery (NACK / RTO, go-back-N) on other paths.
 * Flows pinned through a failed link keep losing their frames until it comes
 * back.  Overlapping faults on one link keep it down until the last one ends.
 *
 * link_errors {between: [a, b], rate, start?, end?, direction?}: from `start` (default 0) to `end` (default the
 * end of the run) every frame on the links between a and b is corrupted with probability `rate` and lost at its
 * receiver, as with a link's loss_rate (port.c), in both directions, or only from a to b with direction
 * "forward".  With a loss_rate, or several faults in force on one link, the causes are independent: a frame
 * survives with probability (1 - loss_rate) x the product of (1 - rate).
 *
 * pause_storm {host, priority, start, end?}: a NIC whose receive pipeline
 * has stalled keeps its ToR paused.  From `start` the host sends PAUSE on
 * `priority` with quanta = switch.pfc.pause_quanta and refreshes it at half
 * the pause time, as a switch does (IEEE 802.1Qbb; the switches' refresh
 * rule), so the ToR never resumes on expiry; at `end` it sends RESUME
 * (quanta 0).  Overlapping storms on one (host, priority) keep it paused
 * until the last one ends.
 *
 * slow_receiver {host, rate, start, end?}: from `start` every frame that
 * reaches the host enters a FIFO receive buffer, and the NIC hands frames to
 * the transport at `rate` (a frame of B bytes takes B x 8 / rate).  The NIC
 * runs PFC on its receive buffer as a switch does on an ingress port, per
 * priority, with thresholds derived from its link (H = the `auto` headroom of
 * the host link, whatever switch.pfc.headroom says: pfc_port_headroom, with
 * the largest frame any host sends in and the host's own out):
 *   XOFF = 2 H: more bytes of a lossless priority buffered -> PAUSE that priority;
 *   XON  = XOFF - switch.pfc.xon_delta (at least 0): at or below -> RESUME;
 *   XOFF + H: the most a lossless priority can ever hold, because H covers
 *     every byte still on its way when the PAUSE goes out (pfc.h).  The
 *     NIC never drops a lossless frame; exceeding it is a bug and aborts,
 *     unless the ToR did not obey the NIC's latest PAUSE on the watchdog's
 *     order (action forward: ignored or lifted, and not obeyed again since,
 *     even after a restoration), in which case the frame is dropped as
 *     `watchdog`.
 * Lossy priorities are not paused: a frame that would put more than
 * switch.lossy_queue_limit bytes of its priority in the buffer is dropped
 * (`buffer`).  At `end` the pipeline recovers: everything buffered is
 * delivered at once, in order, and the pauses it caused are lifted.  Two
 * slow_receiver faults on one host may not overlap.
 *
 * Hosts without these faults pay one pointer test per received frame.
 */
#ifndef MODELS_FAULT_H
#define MODELS_FAULT_H

#include <stddef.h>

#include "models/net.h"

/* Per-host state of pause_storm and slow_receiver faults. */
struct nic_fault {
    struct host *h;
    uint8_t storm[NPRIO];      /* pause_storm faults in force, per priority */
    bool rx_slow;              /* a slow_receiver fault is in force */
    int64_t rx_rate_bps;
    struct pktq rxq;           /* the receive buffer, in arrival order */
    int64_t rx_bytes[NPRIO];   /* bytes buffered per priority */
    int64_t rx_peak[NPRIO];    /* most bytes ever buffered per priority */
    bool rx_xoff[NPRIO];       /* the buffer has the ToR paused on this priority */
    int64_t xoff, xon, lossless_cap;
    int64_t rx_rem;            /* remainder of the processing time carried between frames */
    struct sim_timer rx_timer; /* the head frame's processing ends */
};

/*
 * Resolves the scenario's faults on n's graph (node names of link_down,
 * hosts of the others) and schedules their events.  Returns 0, or
 * SCN_EUSAGE with one line "FILE: faults.N...: ..." in err when a name is not
 * a node, the two nodes are not linked, or two slow_receiver faults of one
 * host overlap (nothing is scheduled then).
 */
int faults_setup(struct net *n, char *err, size_t errlen);

/* A frame reached host h while its slow_receiver fault is in force: buffer it (fault.c). */
void fault_rx_arrive(struct net *n, struct host *h, struct pkt *k);

#endif
