/*
 * fault — the scenario's scheduled faults that act on the network.
 *
 * Each kind of fault is a module of kind "fault" (sim/module.h) in its own file, models/fault_NAME.c, which fills
 * a struct fault_ops and registers it with its settings group (every field of the fault but its type):
 *
 *     MODULE_REGISTER(fault_kind, "link_down", &link_down_ops, &link_down_group);
 *
 * The kinds of the build:
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
 * link_slow {between: [a, b], rate, direction?}: for the whole run the links between a and b carry `rate` (below
 * their own), in both directions or only from a to b with direction "forward": a port that trained at a lower
 * speed, or a multi-lane port running on one lane of four.  Everything that follows from a port's rate follows
 * (serialization, the settings by rate, the PFC headroom, a host's line rate); routing does not change.
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

#include <stdbool.h>
#include <stddef.h>

#include "models/net.h"
#include "sim/module.h"

/* Per-host state of pause_storm and slow_receiver faults. */
struct nic_fault {
    struct host *h;
    uint8_t storm[NPRIO];      /* pause_storm faults in force, per priority */
    int64_t rx_rate_bps;
    struct pktq rxq;           /* the receive buffer, in arrival order */
    int64_t rx_bytes[NPRIO];   /* bytes buffered per priority */
    int64_t rx_peak[NPRIO];    /* most bytes ever buffered per priority */
    bool rx_xoff[NPRIO];       /* the buffer has the ToR paused on this priority */
    int64_t xoff, xon, lossless_cap;
    int64_t lossy_cap;         /* switch.lossy_queue_limit: what a lossy priority may hold */
    int64_t rx_rem;            /* remainder of the processing time carried between frames */
    struct sim_timer rx_timer; /* the head frame's processing ends */
};

/* Every kind's struct of fields begins with its span, which the shared checks and the overlap test read. */
struct fault_span {
    int64_t start_ps, end_ps; /* end -1: until the end of the run */
};

/* The hooks of a kind of fault: resolve, and schedule or shape (a fault does something, during the run or to it). */
struct fault_ops {
    /* Resolves fault i on n's graph (node names, hosts; a link fault's ends go to n->fault_ends with
     * fault_link_ends) and checks it against the faults before it: 0, or SCN_EUSAGE with one line
     * "FILE: faults.N...: ..." in err.  Schedules nothing: a bad fault schedules no other's events. */
    int (*resolve)(struct net *n, int i, char *err, size_t errlen);
    /* Schedules fault i's events, once every fault is resolved, in their order; NULL: it has none. */
    void (*schedule)(struct net *n, int i);
    /* Fault i changes the network as it is built (NULL: it does not), before its ports are laid out (a link slowed for the
     * whole run): resolves it as `resolve` does and amends n->g; 0, or SCN_EUSAGE with the message. */
    int (*shape)(struct net *n, int i, char *err, size_t errlen);
    /* It corrupts frames: the network keeps the per-port state of lossy links (build.c, struct port_loss). */
    bool corrupts;
};

/* The hooks of fault f's kind. */
const struct fault_ops *fault_ops_of(const struct scn_fault *f);

/* The kind (sim/module.h): its default, "pause_storm", is what a zeroed struct scn_fault holds. */
extern const struct module_kind fault_kind;

/* Fault f's fields, as the struct `type` its kind's group declares (checked against the group's size). */
const void *fault_conf(const struct scn_fault *f, size_t size);
#define FAULT_CONF(f, type) ((const type *)fault_conf((f), sizeof(type)))

/* ---- For the kinds (fault.c) ---- */

/* Table entries: the end of a span ("end", "until"), -1 when absent, dumped only when given; the rule that it
 * comes after the start, for fields named end/start (fault_check_end) or until/at (fault_check_until). */
int fault_parse_end(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                    void *base);
void fault_dump_end(struct cJSON *obj, const struct setting *f, const void *base);
int fault_check_end(struct setting_ctx *c, const struct cJSON *obj, const char *path, void *base);
int fault_check_until(struct setting_ctx *c, const struct cJSON *obj, const char *path, void *base);
/* A link fault's `direction`: "both" (the default, left out of the dump) or "forward", which sets the bool
 * `member` of struct `type`: only from between[0] to between[1]. */
int fault_parse_direction(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                          void *base);
void fault_dump_direction(struct cJSON *obj, const struct setting *f, const void *base);
extern const char *const fault_direction_names[];
#define FAULT_DIRECTION(type, member, forward_help)                                                                \
    .name = "direction", .kind = SETTING_CUSTOM, .offset = offsetof(type, member), .names = fault_direction_names,   \
    .help = "both, or forward: " forward_help, .parse = fault_parse_direction, .dump = fault_dump_direction
/* Whether two spans share some time. */
bool fault_overlap(const struct fault_span *a, const struct fault_span *b);
/* Resolves the two node names of link fault i into n->fault_ends[2i], [2i + 1]: 0, or SCN_EUSAGE with the
 * message (a name that is no node, two nodes not linked). */
int fault_link_ends(struct net *n, int i, const char between[2][SCN_NAME_MAX], char *err, size_t errlen);
/* Takes every link between nodes a and b down (fail) or brings it back, both directions, as a link fault does: a
 * failure drops what is on the link and in its queues (port.c), and the routing tables are recomputed around it. */
void fault_link_change(struct net *n, uint32_t a, uint32_t b, bool fail);
/* Host h's NIC fault state, made on first use with its receive buffer's thresholds. */
struct nic_fault *fault_host(struct net *n, struct host *h);
/* Brings h's PFC on prio in line with its faults: PAUSE while a storm is in force or its receive buffer is above
 * XOFF, RESUME once neither is. */
void fault_host_pfc_update(struct net *n, struct host *h, int prio);
/* A slow receiver recovers: what is buffered reaches the transport now, in order, and its pauses are lifted. */
void fault_rx_recover(struct net *n, struct host *h);

/* Runs the `shape` hook of every fault that has one, in their order, when the network is built (build.c):
 * 0, or SCN_EUSAGE with the first one's message. */
int faults_shape(struct net *n, char *err, size_t errlen);

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
