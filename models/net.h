/*
 * net — the runtime network: ports and links, switches, host NICs and flows,
 * moving packets through the event engine.
 *
 * Packet path (docs/model.md, "What is simulated"): a host NIC or a switch puts a frame on an egress
 * port; the port transmits one frame at a time and the frame arrives at the
 * peer port `serialization + propagation delay` after its first bit left
 * (store-and-forward; port.h).  A switch looks up the egress port (ECMP or
 * pinned path), admits the frame into its shared buffer (tail drop, or the
 * link-level flow control's rules for the priorities under it: lfc.h, pfc.h),
 * queues it, and marks ECN at dequeue or enqueue (ecn.h; switch.h).  Hosts run
 * the RoCE transport (nic.h): round-robin among flows, per-flow pacing at its
 * congestion control's rate (cc.h), ACK/NACK, go-back-N, RTO, and CNPs.  A port reaches its node
 * through the node's table of operations (node.h).
 *
 * This header holds what every model shares: the packet, its queues, the
 * port's layout (inlined everywhere), the switch, host and flow records, and
 * struct net.
 *
 * Ownership: whoever receives a packet owns it and returns it to the pool when
 * it is consumed or dropped.
 */
#ifndef MODELS_NET_H
#define MODELS_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/sched.h"
#include "models/telemetry.h"
#include "sim/graph.h"
#include "topologies/sm.h"
#include "sim/pool.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/units.h"

#define NPRIO 8

/* Frame sizes in bytes (docs/model.md, "Frames"): headers of a RoCE v2 data frame
 * are Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4. */
#define HDR_DATA 62
#define FRAME_ACK 66
#define FRAME_CNP 78
#define FRAME_PAUSE 64
#define WIRE_OVERHEAD 20 /* preamble 8 + inter-frame gap 12 */

/* The sizes of the fabric's frames, in bytes (models/fabric.h): RoCE v2's are the constants above. */
struct framing {
    uint16_t hdr_data;  /* a data frame's bytes besides its payload */
    uint16_t frame_ack; /* an ACK or NACK */
    uint16_t frame_cnp; /* a congestion notification */
    uint16_t wire;      /* what the link carries besides each frame's bytes (Ethernet: preamble and gap) */
};

/* PKT_TRIM: what is left of a data frame a switch trimmed (trim.c): its flow and PSN, the headers only.  PKT_PULL and
 * PKT_RTS: a transport's own control frames, which the NIC hands to it (transport.h, on_ctrl): UET's pull (from the
 * receiver's pacer: credit for the sender; psn the pull counter) and request to send (from a sender out of credit),
 * both of an ACK's size at host.ack_priority (rccc.c). */
enum pkt_type { PKT_DATA, PKT_ACK, PKT_NACK, PKT_CNP, PKT_PAUSE, PKT_TRIM, PKT_PULL, PKT_RTS };

#define ECN_ECT 1
#define ECN_CE 2
/* Marked CE at the switch the frame is in: port_transmit counts the mark at that egress (monitor.counters, struct
 * port_ctr) and clears the bit, so that counting costs marking nothing. */
#define ECN_HERE 4
/* On an ACK or NACK: the data frame that caused it arrived marked CE (DCTCP's ECN-Echo).  Control frames are not
 * ECT, so no switch marks them and the bit means only this. */
#define ECN_ECE ECN_CE

struct pkt {
    struct pkt *next;     /* queue or wire link (and pool link while free) */
    uint32_t flow;        /* flow index */
    uint32_t psn;         /* DATA: sequence; ACK/NACK: next expected */
    uint32_t size;        /* frame bytes, without preamble/IFG */
    uint32_t dst_host;    /* routing destination */
    uint32_t hash;        /* per-flow ECMP hash (direction-specific) */
    uint16_t in_port;     /* local ingress port at the current switch */
    uint16_t quanta;      /* PAUSE: pause time in quanta (0 = resume); a selective-repeat NACK: its sack; a UET data
                           * frame: its entropy value (transport_uet.c) */
    uint8_t type;
    uint8_t prio;
    uint8_t ecn;
    uint8_t hop;          /* pinned paths: index of the current node on the path */
    uint8_t reverse;      /* pinned paths: travelling dst -> src */
    uint8_t via_reached;  /* Valiant detour: the flow's intermediate group has been reached */
    uint8_t route_flow;   /* ROUTE_BY_FLOW: switches need the flow to route it (pinned path, Valiant detour);
                           * ROUTE_BALANCED: a data frame in a network where some switch balances otherwise than by
                           * ECMP (lb.h); 0: the frame alone routes it, by ECMP, and no flow line is touched */
    uint8_t tflags;       /* the transport's per-frame flags (enum pkt_tflags): UET's ack request and retransmission */
    uint16_t link_gen;    /* the sending port's link_gen at transmission: a mismatch on arrival means the
                           * link failed while the frame was on the wire */
    uint32_t tel;         /* its INT record in net.tel (telemetry.h), 0: none; only flows whose cc asks carry one */
    union {
        sim_time_t pmark;     /* switch egress: the queue's paused-time total when the frame was queued (paused_ns) */
        sim_time_t next_at;   /* on the wire: when the frame behind it (next) arrives ... */
    };
    uint64_t next_seq;    /* ... and that arrival's event sequence, reserved when it was sent */
};

enum { ROUTE_BY_FLOW = 1, ROUTE_BALANCED = 2 }; /* pkt.route_flow's bits */

/* pkt.tflags's bits.  A data frame: the sender asks for an ACK at once (AR), the frame is a retransmission (RTX).
 * A trimmed frame: the switch that trimmed it was the last before the receiver (LAST_HOP).  A PULL: credit the
 * sender did not ask for (SLOW_PULL, rccc.c). */
enum pkt_tflags { PKT_TF_AR = 1, PKT_TF_RTX = 2, PKT_TF_LAST_HOP = 4, PKT_TF_SLOW_PULL = 8 };

struct pktq {
    struct pkt *head, *tail;
    uint32_t n;
    int64_t bytes;
};

struct fabric_ops;
struct net;
struct port;
struct flow;

/*
 * A flow's owner: traffic that starts flows as others end (a collective's next step) and must hear when each of
 * its flows ends.  The first member of the owner's own struct, so that the NIC tells it without knowing the kind
 * of traffic; both hooks run in the event of the host concerned (received: the receiver's, acked: the sender's).
 */
struct flow_owner_ops {
    void (*received)(struct net *n, struct flow *f); /* f's receiver holds all of it */
    void (*acked)(struct net *n, struct flow *f);    /* f's sender has the last ACK */
};
struct flow_owner {
    const struct flow_owner_ops *ops;
};
struct nic_fault;
struct rccc_host;
struct lfc_ops;
struct pfc_settings;
struct nic_params;
struct transport_params;

/* The kind of node a port belongs to, which selects its node's table of operations (node.h). */
enum node_kind { NODE_SWITCH, NODE_HOST, NODE_KINDS };

/* A timer tied to one (port, priority): PAUSE expiry or PAUSE refresh. */
struct prio_timer {
    struct sim_timer tm;
    struct port *port;
    uint8_t prio;
};

/*
 * One cache line per (port, priority): what an egress touches at one priority
 * when frames queue there (the queue and its pause totals), and the headroom
 * side of the ingress accounting, which only a paused upstream's frames use.
 */
struct port_prio {
    _Alignas(64) struct pktq q;            /* egress queue */
    sim_time_t paused_acc;    /* closed pause intervals of this egress priority, summed (victim accounting) */
    sim_time_t paused_since;  /* start of the open one, while paused */
    int64_t ing_hdrm;         /* ingress accounting (switch ports): bytes admitted into headroom (port.in_hdrm) */
    int64_t hdrm_peak;        /* most headroom ever in use (validation of the headroom formula) */
};

#define QMASK_CTRL (1u << NPRIO) /* port.qmask bit: PAUSE frames wait in ctrl */

/*
 * A port is split over parallel arrays (same index), because a packet hop
 * touches a few ports at random.  struct port holds what a hop touches, in two
 * cache lines aligned as a 128-byte pair, which the hardware's adjacent-line
 * prefetch fetches together: line 0 what the arrival reads, including the ingress
 * counters of every priority, so that the port a frame enters through costs
 * one pair; line 1 the transmitter.  Each priority's line (struct port_prio:
 * its queue, fetched only when frames queue there) is in an array per priority
 * (port_pp()), and what is rarely touched in struct port_aux (port_aux()).
 * Apart, the lines a hop uses are dense and span few pages, which matters where
 * address translation is dear (the layout's measurements: docs/performance.md).
 */
struct port {
    /* line 0: what a hop reads at either end, and the ingress accounting */
    _Alignas(128) struct net *net;
    uint32_t node;
    uint16_t local;       /* index at its node */
    uint16_t down;        /* link_down faults holding this port's link down (0: up); a down port never transmits */
    uint16_t link_gen;    /* bumped when the link fails, so frames on the wire then are recognized as lost */
    uint16_t qmask;       /* bit p: port_pp(p)->q is not empty; QMASK_CTRL: aux ctrl is not empty */
    uint8_t kind;         /* enum node_kind: its node's table of operations (node.h) */
    bool wake_pending;    /* a tx_wake event is queued for busy_until */
    uint8_t paused;       /* bit p: priority p of this egress is blocked by the link-level flow control (port_block) */
    uint8_t paused_seen;  /* bit p: p has been paused at least once, so port_pp(p)'s pause totals may be non-zero */
    uint8_t pause_sent;   /* bit p: we paused the peer on p (switch ingress; a faulty NIC, fault.c) */
    uint8_t in_hdrm;      /* bit p: port_pp(p)->ing_hdrm > 0 (switch ingress) */
    /* PFC watchdog (pfcwd.c), bit p per priority: declared stormed; PAUSE ignored (drop, forward); frames
     * for the queue discarded (drop); the peer's latest PAUSE was overridden by the watchdog (so a faulty
     * NIC's buffer may overflow, fault.c).  Zero unless the watchdog is enabled and found a storm. */
    uint8_t wd_storm, wd_ignore, wd_drop, wd_overrode;
    uint16_t cfg;         /* switch ports: its settings, net.pcfg[cfg] (port_cfg()), resolved when the network is built */
    /* Ingress accounting (switch ports): bytes that entered through this port at priority p and hold shared
     * buffer (those in headroom are in port_pp(p)->ing_hdrm).  A switch buffer is below 2 GiB (scenario.c), so
     * 32 bits hold any count, and all eight priorities fit this line. */
    int32_t ing_shared[NPRIO];
    /* line 1: the transmitter */
    struct port *peer;
    int64_t ps_per_byte;  /* exact serialization per byte, or 0 when the rate does not divide 8e12 */
    int64_t delay_ps;
    sim_time_t busy_until; /* the frame being transmitted ends then ... */
    uint64_t busy_seq;     /* ... at this point of the event order (sim_reserve_seq) */
    /* The last frame this port put on the wire (port.c): the frames on a wire form a list, of which only the
     * first has an arrival event queued.  Left behind once it has arrived (and perhaps been freed): port.c
     * follows it only while its arrival is still ahead. */
    struct pkt *wire_tail;
    uint64_t tx_frames, tx_bytes;
};

/* The rest of a port (see struct port), at the same index of net.aux; its per-priority lines are at that
 * index of net.pq[prio] (port_pp()). */
struct port_aux {
    /* Whole lines: the last port of a node and the first of the next may be in two partitions, and a port writes
     * its PAUSE queue and timers, and under DWRR its scheduler's state, here. */
    _Alignas(64) struct pktq ctrl; /* PAUSE frames: sent next, never queued behind data */
    struct sched_state sched;
    int64_t rate_bps;
    int64_t tx_rem;       /* remainder carried between frames when ps_per_byte is 0 */
    int64_t headroom;     /* per lossless priority (switch ingress) */
    struct prio_timer pause_expire[NPRIO];
    struct prio_timer pause_refresh[NPRIO];
    /* PFC watchdog: until when frames sent while the watchdog overrode the peer's PAUSE may still arrive there
     * (wd_overrode was cleared by an obeyed PAUSE; the last frame sent before it lands at busy_until plus the
     * link's delay).  Read by a faulty NIC's buffer check (fault.c). */
    sim_time_t wd_overrode_until[NPRIO];
    uint16_t fecn_gap[NPRIO]; /* InfiniBand CC: eligible packets not marked since the last FECN (fecn.c) */
};

/* The layout the comments above rely on: a hop's fields in one 128-byte pair, a line per priority. */
_Static_assert(sizeof(struct pkt) == 64, "a packet is one cache line");
_Static_assert(sizeof(struct port_prio) == 64, "one cache line per (port, priority)");
_Static_assert(offsetof(struct port, ing_shared) + sizeof(((struct port *)0)->ing_shared) <= 64,
               "the ingress counters are in line 0");
_Static_assert(offsetof(struct port, peer) == 64 && sizeof(struct port) == 128, "the transmitter fills line 1");
_Static_assert(sizeof(struct port_aux) % 64 == 0, "ports side by side of nodes in two partitions share no line");

/*
 * A switch port's settings, resolved for its rate from its switch's settings and the profiles that match the
 * port (docs/scenario.md, "Profiles" and "Settings by port speed"): PFC at its ingress, ECN at its egress.  Ports
 * with equal settings share one entry of net.pcfg, a small table read per frame through port.cfg, so that a
 * frame needs no lookup and the table stays in cache.  Thresholds are in bytes.
 */
/* ECN's marking thresholds at one egress, in bytes (or whole cells): RED between kmin and kmax (ecn.h). */
struct ecn_thresh {
    int64_t kmin, kmax;
    double pmax;
    bool enabled;
    /* InfiniBand's FECN marking instead of RED (models/fecn.c): above kmin, one eligible packet in fecn_rate + 1,
     * packets of at least fecn_size bytes, and only at a port that is the root of the congestion unless victims */
    bool fecn, victims;
    uint16_t fecn_rate, fecn_size;
};

/* Whether a switch egress marks ECN, and when (port_cfg.ecn_mark): off, or switch.ecn.mark_on's choice, in the
 * order of its names (ecn.h); "sent" holds each frame it may mark until its sending ends (port.c). */
enum port_ecn_mark { PORT_ECN_OFF, PORT_ECN_DEQUEUE, PORT_ECN_ENQUEUE, PORT_ECN_SENT };

struct port_cfg {
    /* read per frame: one cache line, and a power-of-two size so that the table is indexed by a shift */
    _Alignas(64) uint8_t lossless; /* the priorities under PFC at this ingress (0: PFC off here) */
    uint8_t ecn_mark;              /* enum port_ecn_mark */
    bool xoff_static;
    /* switch.lossy_queue_limit at this egress's rate (in whole cells), in the line's padding: below the buffer's
     * 2 GiB it means what it says, and a larger limit is the buffer's, which clamping at INT32_MAX keeps */
    int32_t lossy_limit;
    double alpha;                  /* dynamic xoff */
    int64_t xoff;                  /* static xoff */
    int64_t xon_delta;
    struct ecn_thresh ecn;         /* for this rate */
    /* read when the network is built, and by check and the doctor */
    int64_t headroom;              /* per lossless priority */
    int64_t rate_bps;              /* the rate it was resolved for */
    int64_t headroom_auto;         /* what headroom "auto" is at this port, in bytes, whatever headroom says
                                    * (pfc_port_headroom) */
};
_Static_assert(offsetof(struct port_cfg, headroom) == 64 && sizeof(struct port_cfg) == 128,
               "a port's per-frame settings fill one line; the table's entries are a power of two apart");

/* Bytes of per-flow congestion-control state held in the flow itself (the largest algorithm's; each asserts that
 * its own fits), so that no flow allocates on the hot path. */
#define CC_STATE_BYTES 80

/*
 * A flow: what both ends read, set when it is made; then the sender's state and the receiver's, each on cache
 * lines of its own.  The two ends may run in two partitions (sim/parallel.h), on two threads: a line written by
 * one and read or written by the other would go back and forth between their cores with every frame.
 */
struct flow {
    /* set when the flow is made; read by both ends */
    struct net *net;
    uint32_t idx;
    uint32_t src, dst;        /* host indices */
    uint8_t prio;
    uint8_t cc;               /* its congestion control: index in cc_registry (cc.h) */
    uint8_t cc_flags;         /* that algorithm's flags (enum cc_flags), kept here to test them without a load */
    uint8_t path_len;
    const char *name;
    int64_t size;
    uint32_t n_pkts;
    uint32_t mtu;
    sim_time_t start;
    sim_time_t ideal_fct;
    int64_t rate_cap_bps;     /* 0 = none */
    uint32_t hash_fwd, hash_rev;
    uint32_t via_host;        /* dragonfly Valiant/UGAL: data detours through this host's group; NET_NO_VIA: minimal */
    int32_t via_group;        /* the group of via_host */
    uint16_t *path_ports;     /* pinned: egress local port at each node of the path */
    uint32_t *path_nodes;
    /* what made the flow and hears of its end (a collective whose step it is: struct flow_owner), or NULL; and
     * the owner's own number for it (the collective's rank) */
    struct flow_owner *owner;
    uint32_t owner_tag;
    uint8_t transport;        /* its delivery and loss recovery: index in transport_registry (transport.h), its
                               * sender's host.loss_recovery */
    /* the ports its frames leave by: the sender's port for data (sport), the receiver's for ACKs, NACKs and CNPs
     * (rport), local port indices, 0 but at a host with several ports */
    uint8_t sport, rport;
    /* A collective's step summarized by its collective alone (net_options.step_summary): no row of its own in
     * the outputs, and, when steps are recycled, its place is reused once nothing of it is left (net_step_end). */
    uint8_t step;
    /* what the sender's completion (acked) takes on an empty network: ideal_fct and the last ACK's way back */
    sim_time_t ideal_fct_ack;

    /* the sender's: written by the sender's node alone */
    _Alignas(64) uint32_t snd_nxt;
    uint32_t snd_una, snd_max;
    bool started, sender_done, in_ready;
    uint8_t path_cap;         /* the length path_nodes and path_ports have room for (kept when a place is reused) */
    uint32_t cc_wnd;          /* bytes it may have unacknowledged, set by its congestion control; 0: no window */
    /* Its identity, the input of its hashes: its place, or, where steps are recycled, the place it would have had
     * had they not been (written when the place is reserved, read when the flow is made). */
    uint32_t id;
    struct flow *ready_next;
    sim_time_t next_send;
    sim_time_t ready_mark;    /* its NIC port's paused-time total when it last became ready to send */
    struct sim_timer pace_timer, rto_timer, cc_timer; /* cc_timer: its congestion control's (cc.h) */
    _Alignas(8) unsigned char cc_state[CC_STATE_BYTES]; /* its congestion control's per-flow state (cc.h) */
    uint32_t rtt_psn;         /* CC_F_RTT: the ACK that covers PSN rtt_psn - 1 completes the sample; 0: none out */
    /* Frames of it that left the sender (data, resends and RTS included) and that reached it (ACK, NACK, CNP, PULL):
     * with the receiver's two counts, whether any frame of it is still in the network (net_step_end). */
    uint32_t data_tx, ctl_rx;
    sim_time_t rtt_sent;      /* ... which left the sender then */
    uint64_t retx_bytes, cnps_rx, timeouts;
    /* Loss as the sender's timeout sees it: above this PSN nothing of the flow (data, ACK, NACK) was dropped
     * since its last timeout, so a timeout with lost_hi <= snd_una is spurious.  Only that count reads it, and
     * drops anywhere on the path write it: a partitioned run keeps it from the noted drops and timeouts, in the
     * single engine's order (net_lost, net_timeout). */
    uint32_t lost_hi;
    uint8_t retries;          /* timeouts in a row without progress (host.retry_count, with qp_timeout) */
    bool failed;              /* its retries ran out: the sender gave up, as a QP in the error state */
    /* The sender's view of completion, as the HPCC paper's simulator measures FCT: when the ACK of the last byte
     * reached the sender (-1 until then; written once, by the sender). */
    sim_time_t acked;
    /* The line rate its congestion control paces against (flow_line_bps): its sender's port's, or for a GPU inside
     * a server the slowest link of its path within the servers and their NICs (flows.c). */
    int64_t line_bps;
    /* The queue pair it was posted to (nic.h: sent after the flow posted before it), or NULL: a connection of its
     * own.  Set by the model that makes the flow, before its start. */
    struct nic_qp *qp;
    void *tp_snd;             /* its transport's sender state beyond these fields, or NULL (transport.h) */

    /* the receiver's: written by the receiver's node alone ... */
    _Alignas(64) uint32_t rcv_nxt;
    uint32_t since_ack;
    bool nack_outstanding;
    uint32_t data_rx;         /* data frames (and RTS) that reached the receiver, duplicates included */
    sim_time_t last_cnp;      /* the notification point's last CNP for this flow (-1: none yet) */
    sim_time_t finish;        /* -1 until the receiver holds the last byte */
    /* ... but for the time its data packets waited in queues of a paused priority, added atomically by every node
     * of its path (see paused_acc) */
    sim_time_t paused_ns;
    uint32_t ctl_tx;          /* ACKs, NACKs, CNPs and PULLs the receiver sent */
    void *tp_rcv;             /* its transport's receiver state beyond these fields, or NULL (transport.h) */
};
_Static_assert(sizeof(struct flow) == 576, "a flow is nine lines: a new field goes in a hole of its end's lines");
_Static_assert(sizeof(struct flow) % 64 == 0, "flows side by side in a chunk share no line");

/* The flows of one host port that are ready to send, a list per priority (nic.c). */
struct host_ready {
    struct flow *head[NPRIO], *tail[NPRIO];
};

/*
 * A host's port after its first (a GPU's NVLink beside its PCIe link, a NIC's second leaf: most hosts have one
 * port, and the per-frame path keeps the first port's lists in struct host itself).
 */
struct host_port {
    struct host_ready ready;
    int64_t rate_bps;         /* its congestion control's line rate (struct host.rate_bps) */
};

struct host {
    /* Whole lines, as struct sw's. */
    _Alignas(64) const struct scn_host *cfg; /* its settings: host and the host profiles that match it (shared when
                                              * equal) */
    const struct nic_params *nic;       /* ... its NIC's (nic.h) and its transport's (transport.h), kept at set-up */
    const struct transport_params *tp;  /*     so that no frame looks them up */
    int cc;                   /* ... and its host.cc (cc.h) */
    uint32_t node, index;
    struct port *port;        /* its first port; port + i is its port i (a node's ports are consecutive) */
    /* its first port's line rate, as the flows leaving by it pace themselves: the link's rate, kept here because
     * the port keeps it off its hot lines, or less when the topology says so (g_port.line_bps) */
    int64_t rate_bps;
    struct host_ready ready;  /* its first port's ready flows */
    uint32_t n_ports;
    struct host_port *more;   /* its ports 1..n_ports-1, else NULL */
    struct nic_fault *fault;  /* pause_storm / slow_receiver state (fault.c), NULL for a host without such faults */
    /* Where arriving frames go instead of the transport while a fault holds them up (a slow receiver's pipeline,
     * fault.c), else NULL: the NIC tests it without knowing the faults. */
    void (*rx_divert)(struct net *n, struct host *h, struct pkt *k);
    struct rccc_host *rccc;   /* UET's receiver credit state (rccc.c): its pull pacer; NULL until a flow needs it */
};

/* Host h's ready lists of its port i. */
static inline struct host_ready *host_ready_of(struct host *h, uint32_t i)
{
    return __builtin_expect(i == 0, 1) ? &h->ready : &h->more[i - 1].ready;
}

/* The line rate of host h's port i. */
static inline int64_t host_line_bps(const struct host *h, uint32_t i)
{
    return __builtin_expect(i == 0, 1) ? h->rate_bps : h->more[i - 1].rate_bps;
}

/*
 * A switch's thresholds as its admission and marking compare them: the settings (switch.*), each rounded up to
 * whole cells when the switch accounts in cells (lim.cell), so that every comparison is one of whole cells.
 */
struct sw_limits {
    int64_t buffer;           /* in whole cells (the thresholds per port, lossy_queue_limit's too: struct port_cfg) */
    uint32_t cell;            /* switch.cell_size; 0: bytes */
    uint32_t mtu;             /* switch.mtu; 0: no limit */
    bool cells_or_mtu;        /* cell or switch.mtu: the frame's arrival takes the slower path */
};

struct sw {
    /* Whole lines: switches side by side in net.sws may run in two partitions, and each writes its pool's counts
     * with every frame. */
    _Alignas(64) const struct scn_switch *cfg; /* its settings: switch and the switch profiles that match it (shared
                                                * when equal) */
    const struct sched_settings *sched; /* its switch.scheduler (cfg's), which its egresses read per frame */
    uint32_t node, ordinal;
    struct port *ports;       /* n_ports consecutive */
    uint32_t n_ports;
    int64_t shared_used;      /* bytes in the shared pool */
    int64_t hdrm_reserved;    /* sum of headroom over ports x lossless priorities */
    int64_t buffered;         /* all bytes held (shared + headroom) */
    uint32_t salt;
    struct rng ecn_rng;
    int32_t group;            /* dragonfly group, else -1 */
    uint8_t lb;               /* its switch.load_balance: index in lb_registry (lb.h), LB_ECMP by default */
    struct sw_limits lim;     /* its thresholds in the unit its buffer counts in (net_init) */
    void *lb_state;           /* its balancer's state (a flowlet table), or NULL */
};

/*
 * A frame takes ceil(size / cell) cells of a switch that accounts in cells (switch.cell_size): the bytes it
 * is charged, everywhere the buffer accounting counts it (shared pool, ingress counters, headroom, egress queue
 * depth).  Without cells, its size.
 */
static inline int64_t sw_frame_bytes(const struct sw *w, uint32_t size)
{
    if (__builtin_expect(w->lim.cell != 0, 0))
        return ((int64_t)size + w->lim.cell - 1) / w->lim.cell * w->lim.cell;
    return size;
}

/*
 * Switch-style counters of one (port, priority), kept only with monitor.counters (counters.csv,
 * docs/outputs.md): net.ctr, NPRIO per port id, allocated when the network is built.  Frames and bytes are those
 * of the priority's queue (data, ACK, NACK, CNP); a PAUSE or RESUME, which rocesim sends per priority, is counted
 * in pause_tx / pause_rx of the priority it names and not as a frame.  drops[reason] counts the data frames
 * dropped at this port (enum drop_reason), as summary.json's drops_by_reason does.
 */
struct port_ctr {
    uint64_t rx_frames, rx_bytes, tx_frames, tx_bytes;
    uint64_t pause_rx, pause_tx, ecn_marked, cnp_tx, cnp_rx;
    uint64_t drops[6];
    uint64_t ooo_rx;      /* at a host: data frames received ahead of a PSN their flow still expects */
};
_Static_assert(sizeof(struct port_ctr) == 128, "a (port, priority)'s counters are a 128-byte pair of lines");

/* Per-priority data statistics (summary.json "priorities"). */
struct prio_counters {
    uint64_t sent, delivered, dropped, ecn_marked, pause_frames;
    uint64_t bytes_delivered;
};

struct net_counters {
    uint64_t data_sent, data_delivered, data_dropped, data_retx, ecn_marked;
    uint64_t drop_buffer, drop_headroom, drop_watchdog, drop_link_down, drop_corrupt, drop_mtu;
    uint64_t ctrl_dropped;
    uint64_t bytes_sent, bytes_delivered, bytes_dropped; /* data frame bytes */
    uint64_t cnp_sent, cnp_received;
    uint64_t pause_frames, resume_frames;
    uint64_t credit_fc;        /* InfiniBand flow-control packets sent (credit.c) */
    uint64_t packet_hops;      /* frames transmitted on any link */
    uint64_t timeouts, nacks_sent;
    uint64_t spurious_timeouts; /* timeouts that fired while nothing of the flow had been lost */
    /* control frames corrupted on lossy links, by kind (data frames are in drop_corrupt) */
    uint64_t corrupt_ack, corrupt_nack, corrupt_cnp, corrupt_pause, corrupt_resume;
    uint64_t flows_failed;      /* flows whose sender gave up after retry_count timeouts (qp_timeout) */
    /* data frames that reached their receiver ahead of a PSN it still expects, and how far ahead, summed */
    uint64_t ooo_arrivals, ooo_distance;
    uint64_t trimmed;           /* data frames dropped for buffer whose headers a switch sent on (trim.c) */
    uint64_t cnp_nack;          /* CNPs sent beside a NACK for a gap (host.nack_cnp), counted in cnp_sent too */
    uint64_t pulls_sent, rts_sent; /* UET's receiver credit (rccc.c): PULL frames of the pacers, RTS of senders */
    uint64_t data_in_flight;   /* data packets alive */
    uint64_t data_bytes_in_flight;
    struct prio_counters prio[NPRIO];
};

/* Called for every PAUSE/RESUME a node sends (pfc.csv). */
typedef void (*net_pfc_hook)(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause);
/* Called when a flow completes at its receiver. */
typedef void (*net_flow_hook)(void *ctx, const struct flow *f);
/* Called when the PFC watchdog declares a storm on a switch egress (port, prio) or restores it (watchdog.csv). */
typedef void (*net_wd_hook)(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm);
/* Called when a sender's (port, VL) runs out of credit (stalled) and when credit lets it send again (credits.csv). */
typedef void (*net_credit_hook)(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int vl, bool stalled);

/*
 * Who hears those events: up to NET_LISTENERS_MAX listeners of each kind, each with its own context, called in
 * the order they were added (tools/run/observer.h adds and removes them; a listener must not do so from inside a
 * call).  A fixed array rather than a list: nothing is allocated per event, and an event nobody listens to
 * costs one compare.  Listeners only watch: they get the event's facts and const pointers.
 */
#define NET_LISTENERS_MAX 8
struct net_listeners {
    uint8_t n_pfc, n_flow, n_wd, n_credit;
    struct { net_pfc_hook fn; void *ctx; } pfc[NET_LISTENERS_MAX];
    struct { net_flow_hook fn; void *ctx; } flow[NET_LISTENERS_MAX];
    struct { net_wd_hook fn; void *ctx; } wd[NET_LISTENERS_MAX];
    struct { net_credit_hook fn; void *ctx; } credit[NET_LISTENERS_MAX];
};
/*
 * The calls, out of line and cold: a loop inlined into a hot caller (nic_process, per frame received) would
 * cost it a saved register on every call, for an event that comes once per flow.  In a run cut into several
 * partitions (sim/parallel.h) the partitions' events are noted instead, with the point of the event order
 * where they happened, and told between windows in that order (net_barrier): listeners hear them one at a
 * time, in the order of a single engine.
 */
struct net;
void net_fan_pfc(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause);
void net_fan_flow(struct net *n, const struct flow *f);
void net_fan_wd(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm);
void net_fan_credit(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int vl, bool stalled);
/* A drop of flow f's frame leaves PSNs up to hi unknown to its sender; the sender's timeout fires (counted as
 * spurious when nothing above snd_una was lost since the last).  Told in order in a partitioned run. */
void net_lost(struct net *n, struct flow *f, uint32_t hi);
void net_timeout(struct net *n, struct flow *f);
/* Calls every listener of kind (pfc, flow, wd, credit) of net n with the event's arguments. */
#define NET_NOTIFY(n, kind, ...)                                                                                   \
    do {                                                                                                           \
        if (__builtin_expect((n)->listen.n_##kind != 0, 0))                                                        \
            net_fan_##kind((n), __VA_ARGS__);                                                                      \
    } while (0)

/* A network event noted by a partition (see above). */
/* NOTE_LOST and NOTE_RTO are the network's own (net_lost, net_timeout): value holds lost_hi or snd_una. */
enum net_note_kind { NOTE_PFC, NOTE_FLOW, NOTE_WD, NOTE_CREDIT, NOTE_LOST, NOTE_RTO };
struct net_note {
    sim_time_t t;             /* the point of the order: time ... */
    uint64_t seq;             /* ... and sequence (sim.cur_seq) ... */
    uint32_t sub;             /* ... and, for the nodes' parts of one run event over processes, which (ranks.h) */
    sim_time_t at;            /* the event's own time argument */
    const struct flow *f;
    uint32_t node, port;
    uint8_t kind;
    int8_t prio;
    bool on;
};

struct pfcwd;

/* What a transmission does besides sending (net.tx_extras): a flow control that keeps the sender's side (lfc->sent),
 * a packet capture's tap (net.tap). */
enum net_tx_extras {
    NET_TX_LFC = 1,
    NET_TX_TAP = 2,
    NET_TX_HOLD = 4, /* a port marks ECN when frames are sent (port.c holds them) */
    NET_TX_CALLS = NET_TX_LFC | NET_TX_TAP /* those that port.c's tx_extras serves */
};

/* A packet capture's tap (net.tap): frame k leaves port p (rx false) or arrived at it (rx true), now. */
typedef void (*net_tap_fn)(void *ctx, const struct port *p, const struct pkt *k, bool rx);

/*
 * Corruption of the frames a port receives (port.c; docs/model.md, "Lossy links"): each frame is lost with
 * probability p, the link's loss_rate and the link_errors faults in force on it combined as independent causes.
 * Each receiving port draws from its own stream (RNG_KIND_CORRUPT, by port id), so that a lossy link changes no
 * other draw of the run.
 */
struct port_loss {
    struct rng rng;
    double base;              /* the link's loss_rate */
    double p;                 /* in force now */
};

/* Deadlock detection state (deadlock.c). */
struct deadlock {
    sim_time_t period;        /* switch.deadlock_check; 0: detection off */
    sim_time_t next_check;    /* no check before this time */
    bool detected;
    sim_time_t at;            /* when it was detected */
    int prio;                 /* the priority of the cycle */
    uint32_t *cycle;          /* port ids of the paused egresses, each waiting on the next (malloc'd) */
    uint32_t cycle_len;
    int32_t *index;           /* scratch, n_ports x NPRIO: wait-for graph node of a (port, prio), else -1 */
    uint64_t checks;          /* checks that found a stalled switch egress and built the graph */
    bool own_timer;           /* the flow control has no heartbeat: checks run from timer (deadlock.h) */
    struct sim_timer timer;
};

/*
 * What a network counts while it runs, which every partition of a partitioned run (sim/parallel.h) counts for
 * itself: its packet pool, its counters, and gauges (flows active, switch egresses paused), which within a
 * partition may go below zero and are right only as sums (unsigned, so a sum wraps back to the true value).
 */
#define NET_PART_FIELDS                                                                                          \
    struct pool pkts;                                                                                           \
    struct net_counters c;                                                                                      \
    uint32_t flows_active;    /* created and not yet fully acknowledged */                                      \
    uint32_t flows_completed;                                                                                   \
    uint32_t pending_sources; /* traffic still to be generated */                                               \
    uint32_t ports_ever_paused;                                                                                 \
    uint32_t sw_paused;       /* switch egress (port, prio) pairs blocked right now (the wait-for state) */     \
    uint32_t flows_valiant;   /* flows whose data detoured through a Valiant intermediate group */              \
    sim_time_t paused_total;  /* sum over (port, prio) of time paused */                                        \
    sim_time_t paused_prio[NPRIO]; /* the same, per priority */                                                 \
    struct int_pool *tel;     /* INT records (telemetry.h), NULL until a flow whose cc asks for them exists */

struct net_part {
    NET_PART_FIELDS
    /* a partition's alone: */
    struct net_note *notes;   /* the network events of its current window (NET_NOTIFY) */
    uint32_t n_notes, cap_notes;
    uint32_t *tel_back;       /* INT records of other partitions' pools it freed, returned between windows */
    uint32_t n_tel_back, cap_tel_back;
    bool beat;                /* a heartbeat of the deadlock detector came due (deadlock.h) */
    bool blocked;             /* a switch egress became blocked (deadlock_blocked) */
    uint64_t spare[1];        /* to whole lines */
};
_Static_assert(sizeof(struct net_part) % 64 == 0, "partitions' counts side by side share no line (net_partition)");

struct net {
    struct sim *sim;          /* the run's engine (in a partitioned run, its run-wide queue: net_sim()) */
    const struct scenario *scn;
    struct graph *g;          /* not const: link_down faults mark links down and recompute its routes */
    uint64_t stream_min_frames; /* NET_STREAM_MIN_FRAMES (tests lower it to exercise the streaming stores) */
    struct port *ports;       /* g->n_ports: what a hop touches (struct port) ... */
    struct port_aux *aux;     /* ... and the rest, at the same index, ... */
    struct port_prio *pq[NPRIO]; /* ... but for one line per priority, in an array per priority */
    struct host *hosts;       /* g->n_hosts */
    struct sw *sws;           /* g->n_switches */
    bool lb_any;              /* a switch balances otherwise than by ECMP or a NIC sprays (lb.h): reordering is reported */
    bool trim_any;            /* some switch trims (trim.c): summary.json reports packets.trimmed */
    bool nack_cnp_any;        /* some host sends CNPs with NACKs (host.nack_cnp): summary.json says how many */
    struct sw **node_sw;      /* node id -> switch, NULL for hosts */
    struct host **node_host;  /* node id -> host, NULL for switches */
    struct port_loss *loss;   /* per port id, NULL unless a link has a loss_rate or a link_errors fault: the only
                               * test a frame arrival pays for lossy links */
    struct port_ctr *ctr;     /* per port id x NPRIO, NULL unless net_options.counters */
    bool arrive_extras;       /* loss, ctr or tap: the only test a frame arrival pays for them when none is on */
    uint8_t tx_extras;        /* enum net_tx_extras: the only test a transmission pays for them when none is on */
    struct framing fr;        /* the fabric's frame sizes (fabric.h), on the line a transmission reads for ctr */
    struct flow **flow_chunks; /* flows live in fixed chunks: pointers to them stay valid */
    uint32_t n_flows, chunks_cap;
    /* Steps summarized by their collective (net_options.step_summary); recycled: their places are reused, as on
     * one partition of one process, where the two ends of a step run on one thread (net_step_end).  n_ids: the
     * places reserved had none been reused (flow.id); step_free: places to reuse; steps_live: step records in
     * use, and their most at once. */
    bool step_summary, recycle;
    uint32_t n_ids;
    uint32_t *step_free, n_step_free, step_free_cap;
    uint32_t steps_live, steps_live_peak;
    uint32_t step_places;     /* places added for steps (the rest of n_flows are reserved ones) */
    uint64_t steps_made;
    /* What the network counts, as totals (own); in a partitioned run each partition counts for itself (parts),
     * and its counts are added to these between windows (net_fold). */
    union {
        struct { NET_PART_FIELDS };
        struct net_part own;
    };
    struct net_part *parts;   /* one per partition of a partitioned run, else NULL */
    uint32_t n_parts;
    uint64_t *cut;            /* bit per port id: its link joins two partitions (NULL unless partitioned) */
    const struct lfc_ops *lfc; /* the link-level flow control (lfc.h) ... */
    void *lfc_state;          /* ... its own state, when it keeps any (credit.c) ... */
    const struct pfc_settings *pfc; /* ... the fabric's switch.pfc (its pause_quanta: the ports' own are in pcfg) ... */
    const struct sched_settings *sched; /* ... and switch.scheduler, which the host NICs follow (profiles.c) */
    uint8_t lossless;         /* ... and the priorities under it at any port (each port's: port_cfg()->lossless) */
    const struct fabric_ops *fabric; /* the link layer (fabric.h) */
    const uint8_t *sl2vl;     /* InfiniBand: the VL (priority) of each service level, vl_of_sl; NULL on RoCE */
    uint8_t vl_of_sl[16];
    struct sm_layers sm;      /* InfiniBand: the VL of each pair of hosts under a layered routing engine (sm.h) */
    struct port_cfg *pcfg;    /* the distinct switch port settings (port.cfg indexes it) */
    uint32_t n_pcfg;
    int frame_max;            /* the largest data frame any host sends: its host.mtu + HDR_DATA */
    int host_frame;           /* the global host.mtu + HDR_DATA: the frame the schedulers' weights count in */
    struct scn_switch *sw_cfgs; /* the distinct switch settings (sw.cfg points into it) ... */
    uint32_t n_sw_cfgs;
    struct scn_host *host_cfgs; /* ... and host settings (host.cfg) */
    uint32_t n_host_cfgs;
    struct pfcwd *wd;         /* PFC watchdog state (pfcwd.c), NULL when switch.watchdog is disabled */
    uint8_t cc;               /* the scenario's congestion control, an index in cc_registry (cc.h) */
    /* The unloaded round trip of the network's longest path (a largest data frame out, an ACK back), worked out
     * once when the network is built for a congestion control that derives its constants from it (NSCC's
     * network_rtt "auto", cc_nscc.c), else 0 */
    sim_time_t cc_net_rtt;
    struct int_pool **tel_pools; /* every INT pool by owner: the partitions', then own.tel (net_tel_ensure) */
    struct deadlock dl;
    /* routing and faults (route.c, fault.c) */
    bool route_choice;        /* a dragonfly routed valiant or ugal: unpinned flows choose their route at start */
    uint32_t links_down_now;  /* links currently failed */
    uint32_t link_failures;   /* links that went down during the run */
    uint32_t reroutes;        /* routing tables recomputed after a failure or a recovery */
    uint32_t *fault_ends;     /* link faults: the two node ids of fault i at 2i, 2i+1 (fault.c), else NULL */
    uint8_t *lerr_on;         /* link_errors faults: fault i is in force */
    /* The flows whose GPU end's path through the CPU or not is chosen by their traffic rather than by gdr_level
     * (models/gdr.h: gdr_choose), by place; read only when a flow is made. */
    struct gdr_choice *gdr_choices;
    uint32_t n_gdr_choices;
    /* In a run over several processes (ranks.h), what the traffic shares between windows (traffic.c), or NULL */
    void (*between_windows)(void *ctx);
    void *between_ctx;
    uint32_t enter_sub;       /* over processes: the nodes' parts of run events entered so far (ranks_enter) */
    /* A packet capture (tools/run/capture.c): told each frame a port puts on its link, as its transmission starts,
     * and each frame a port receives intact, when its last bit has arrived; both from the port's node's event, so
     * in its partition.  NULL: none, and then a frame pays only the tests of tx_extras and arrive_extras, which it
     * pays anyway.  Set with net_set_tap before the run; it reads the frame and never changes it. */
    net_tap_fn tap;
    void *tap_ctx;
    /* Last: the listener table is large and cold, and must not push the fields above apart. */
    struct net_listeners listen; /* the PFC, flow-completion, watchdog and credit listeners (NET_NOTIFY) */
};

/*
 * What the program asks of the network besides the scenario's model: choices of its outputs, which models/ cannot
 * read from their settings (a tools/ setting, such as monitor.counters, is no model's).
 */
struct net_options {
    bool counters; /* switch-style counters per (port, priority), net.ctr (counters.csv), counted per frame */
    /* monitor.step_flows false: a collective's steps are summarized by their collective alone (flow.step), and on
     * one partition their places are reused (net_step_place) */
    bool step_summary;
};

/*
 * Builds the runtime network over graph g, with options o (NULL: none).  Returns 0, or SCN_EUSAGE with a
 * message when the scenario cannot be instantiated.
 */
int net_init(struct net *n, struct sim *s, const struct scenario *scn, struct graph *g, const struct net_options *o,
             char *err, size_t errlen);
void net_free(struct net *n);

/* Sets the network's packet tap (net.tap; NULL: none), before the run starts. */
void net_set_tap(struct net *n, net_tap_fn tap, void *ctx);

/*
 * Adds a flow of `size` bytes from host src to host dst starting at `start`.
 * path_nodes (path_len node ids, or NULL) pins its route.  Returns the flow.
 * The name pointer must outlive the net.  Only set-up and the run's events
 * (SIM_ENT_GLOBAL) add flows: the table is the run's (sim/parallel.h).
 */
struct flow *net_add_flow(struct net *n, const char *name, uint32_t src, uint32_t dst, int64_t size,
                          sim_time_t start, int prio, int64_t rate_cap_bps,
                          const uint32_t *path_nodes, int path_len);

/*
 * A flow that starts when another model says so (a trigger's target, models/trigger.h): made at set-up as
 * net_add_flow would, with start -1, neither counted as active nor scheduled; net_start_waiting_flow starts it now,
 * in the current event, which must run in its sender's partition (the trigger's hosts share one: trigger.h).
 */
struct flow *net_add_waiting_flow(struct net *n, const char *name, uint32_t src, uint32_t dst, int64_t size, int prio,
                                  int64_t rate_cap_bps, const uint32_t *path_nodes, int path_len);
void net_start_waiting_flow(struct net *n, struct flow *f);

/*
 * After a link changed state and the routes were recomputed (a global event): each flow made but not started,
 * not pinned, from or to a host of several ports (not a GPU inside a server) takes the port the new routes give
 * it at that end, so that a bonded or multi-plane NIC's later flows leave its dead port.  A flow already started
 * keeps its ports, as a connection stays on the port it was hashed to.
 */
void net_flows_rehome(struct net *n);

/*
 * Reserves count consecutive places in the table of flows (set-up, or an event of the run); returns the first.
 * A source whose hosts start flows themselves (a collective's ranks) reserves them up front and makes each
 * with net_make_flow, in the event of the host that sends it, so that a flow's index does not depend on the
 * order in which partitions made them.  A reserved flow not made yet is not net_flow_made.
 */
uint32_t net_reserve_flows(struct net *n, uint32_t count);
/* The time a frame of `wire` bytes takes from host src to host dst on the empty network (every link's
 * serialization and delay, the route of a flow numbered 0), the slowest link in *bottleneck; 0: not connected.
 * For set-up's estimates (a collective's choice of algorithm), not per packet. */
sim_time_t net_host_path_time(const struct net *n, uint32_t src, uint32_t dst, uint32_t wire, int64_t *bottleneck);

/* Makes the flow at reserved place idx, as net_add_flow would (its sender's event, or the run's). */
struct flow *net_make_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                           sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                           int path_len);

/*
 * Steps of a collective summarized by it alone (net_options.step_summary, net.recycle): instead of places, a
 * collective reserves the identities its steps would have had (net_reserve_ids, at set-up), and each step, made
 * in its sender's event, takes a place that an earlier step left or a new one (net_make_step).  The place is
 * left when nothing of the step is in the network: both ends are done and every frame sent has arrived (the four
 * counts of struct flow); a frame lost on the way keeps it forever, which costs memory, never a wrong frame.
 */
uint32_t net_reserve_ids(struct net *n, uint32_t count);
struct flow *net_make_step(struct net *n, uint32_t id, const char *name, uint32_t src, uint32_t dst, int64_t size,
                           sim_time_t start, int prio);
/* Called by the NIC after an event of step f at either end: leaves its place if nothing of it is left (steps.c). */
void net_step_end(struct net *n, struct flow *f);
/* A place a step left, counted as a step made, or UINT32_MAX: none, the table grows (steps.c). */
uint32_t net_step_take(struct net *n);

/*
 * The flow at place idx as another process made it (ranks.h): the same flow, neither counted as active nor
 * started here, for the partitions of this process that its frames reach.  Returns it.
 */
struct flow *net_mirror_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                             sim_time_t start, int prio);

/* Whether flow f has been made (a reserved place may not be yet). */
static inline bool net_flow_made(const struct flow *f) { return f->net != NULL; }

/* The line rate flow f's congestion control paces against (flow.line_bps). */
static inline int64_t flow_line_bps(const struct flow *f) { return f->line_bps; }

/* The flows made so far (O(flows): for reports). */
uint32_t net_flows_made(const struct net *n);


/* Ends open pause intervals at time `now` (for paused_ns totals at the end of a run). */
void net_close_pauses(struct net *n, sim_time_t now);

/* The graph's id of port p, which is its index in net.ports. */
static inline uint32_t port_id(const struct port *p) { return (uint32_t)(p - p->net->ports); }

/* Whether p's link joins two partitions, whose nodes run at once on two threads (net_partition).  A network on the
 * plain engine (a link of no delay leaves no lookahead to partition by: tools/run/run.c) has no cut. */
static inline bool port_cut(const struct port *p)
{
    uint32_t id = port_id(p);
    return p->net->cut && ((p->net->cut[id >> 6] >> (id & 63)) & 1);
}

/* The engine running the current event: a partition's own in a partitioned run, else the run's. */
static inline struct sim *net_sim(const struct net *n) { return sim_cur ? sim_cur : n->sim; }

/* What the current event counts into: its partition's counts in a partitioned run, else the totals. */
static inline struct net_part *net_np(struct net *n)
{
    void *u = sim_user; /* a partition's counts, or the totals (net_init makes them its engine's user state) */
    return u ? (struct net_part *)u : &n->own;
}

/*
 * Runs n in the partitions of P (sim/parallel.h, made over n's engine after net_init and before any flow is added):
 * each gets its own counts, and between windows n folds them, tells its listeners what happened, runs the
 * deadlock detector's due checks, and says when the traffic is done.  Returns 0, or -1 when memory runs out.
 */
struct sim_par;
int net_partition(struct net *n, struct sim_par *P);

/* Whether n runs in partitions (net_partition). */
static inline bool net_partitioned(const struct net *n) { return n->parts != NULL; }

/* The engine's entity (sim.h) of a node: its state is worked on only by its own events.  Entity 0 is the run. */
static inline uint32_t net_ent(uint32_t node) { return node + 1; }

/* A host's entity (host index, not node id). */
static inline uint32_t net_host_ent(const struct net *n, uint32_t host) { return net_ent(n->hosts[host].node); }

/* A flow's sender's: its start, pacing, retransmission and congestion-control timers are the sender's, also when
 * armed in an event of another entity (the watchdog's poll lifting a block, a fault's end, a CNP handed in from
 * outside a handler). */
static inline uint32_t flow_sender_ent(const struct flow *f) { return net_host_ent(f->net, f->src); }

/* The settings of switch port p (struct port_cfg). */
static inline const struct port_cfg *port_cfg(const struct port *p) { return &p->net->pcfg[p->cfg]; }

/* The rest of port p (struct port_aux). */
static inline struct port_aux *port_aux(const struct port *p) { return &p->net->aux[p - p->net->ports]; }

/* Priority prio's line of port p: its queue, its pause totals and its headroom counter. */
static inline struct port_prio *port_pp(const struct port *p, int prio)
{
    return &p->net->pq[prio][p - p->net->ports];
}

/* The same, for a port of net n whose own lines may not be in cache yet (the address needs no load from p). */
static inline struct port_prio *net_port_pp(const struct net *n, const struct port *p, int prio)
{
    return &n->pq[prio][p - n->ports];
}

/* Bytes queued at priority prio of egress p, read without touching the queue's line when qmask says it is empty. */
static inline int64_t port_queued_bytes(const struct port *p, int prio)
{
    return (p->qmask >> prio) & 1 ? port_pp(p, prio)->q.bytes : 0;
}

/* The closed pause intervals of priority prio at egress p: its total while it is not paused.  A priority never
 * paused has none, and its line need not be fetched (hosts record the total for every flow that gets ready). */
static inline sim_time_t port_paused_closed(const struct port *p, int prio)
{
    return (p->paused_seen >> prio) & 1 ? port_pp(p, prio)->paused_acc : 0;
}

/*
 * Paused-time total of priority prio at egress p as of `now`: the closed
 * intervals plus the open one.  A frame records it when it is queued and adds
 * the difference to its flow's paused_ns when it leaves, which is the time
 * it spent held by PAUSE in that queue (the queue is never paused when a
 * frame leaves it).
 */
static inline sim_time_t port_paused_total(const struct port *p, int prio, sim_time_t now)
{
    return port_paused_closed(p, prio) + ((p->paused >> prio) & 1 ? now - port_pp(p, prio)->paused_since : 0);
}

/*
 * Checks the invariants: buffer counters non-negative, and, when the network
 * is idle, all back to zero; conservation sent = delivered + dropped + in
 * flight.  Returns 0, or -1 with a description in err.
 */
int net_check_invariants(const struct net *n, char *err, size_t errlen);

/* Why a frame was dropped: buffer and headroom full, the PFC watchdog, a failed link, a frame corrupted on a
 * lossy link (loss_rate, link_errors), a frame larger than the MTU of the switch it reached. */
enum drop_reason { DROP_BUFFER, DROP_HEADROOM, DROP_WATCHDOG, DROP_LINK_DOWN, DROP_CORRUPT, DROP_MTU };
/* What a lost frame leaves unknown to its sender, and the counts: net_drop, and a trimmed frame's payload. */
void net_count_loss(struct net *n, const struct pkt *k, enum drop_reason reason);
void net_drop(struct net *n, struct pkt *k, enum drop_reason reason);

_Static_assert(DROP_MTU + 1 == sizeof ((struct port_ctr *)0)->drops / sizeof(uint64_t), "a drop counter per reason");

/* The counters of priority prio at port p, when monitor.counters is on (net.ctr), else NULL. */
static inline struct port_ctr *net_ctr(const struct net *n, const struct port *p, int prio)
{
    return __builtin_expect(n->ctr != NULL, 0) ? &n->ctr[(size_t)(p - n->ports) * NPRIO + (size_t)prio] : NULL;
}

/* Counts data frame k, about to be dropped for `reason`, at port p (monitor.counters).  Call it before net_drop. */
static inline void net_ctr_drop(const struct net *n, const struct port *p, const struct pkt *k, enum drop_reason reason)
{
    struct port_ctr *c = net_ctr(n, p, k->prio);
    if (c && k->type == PKT_DATA)
        c->drops[reason]++;
}

#define NET_NO_VIA UINT32_MAX
/*
 * Whether no flow is active, no data packet is in flight and no source will add traffic (the totals); and the check
 * that stops the run then, which a partition cannot make on its own counts: a partitioned run asks at the grid's
 * lines instead (net_partition, fold.c).  Inline, beside the counts, because every model that ends traffic asks.
 */
static inline bool net_traffic_done(const struct net *n)
{
    return n->flows_active == 0 && n->c.data_in_flight == 0 && n->pending_sources == 0;
}
static inline void net_check_finish(struct net *n)
{
    if (!net_partitioned(n) && net_traffic_done(n))
        sim_stop(net_sim(n));
}

static inline void pktq_push(struct pktq *q, struct pkt *k)
{
    k->next = NULL;
    if (q->tail)
        q->tail->next = k;
    else
        q->head = k;
    q->tail = k;
    q->n++;
    q->bytes += k->size;
}

static inline struct pkt *pktq_pop(struct pktq *q)
{
    struct pkt *k = q->head;
    if (k) {
        q->head = k->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
        q->bytes -= k->size;
    }
    return k;
}

/* Queue k at priority prio of egress p (or, prio NPRIO, its ctrl queue), keeping qmask. */
static inline void portq_push(struct port *p, int prio, struct pkt *k)
{
    pktq_push(prio < NPRIO ? &port_pp(p, prio)->q : &port_aux(p)->ctrl, k);
    p->qmask |= (uint16_t)(1u << prio);
}

static inline struct pkt *portq_pop(struct port *p, int prio)
{
    if (!(p->qmask & (1u << prio)))
        return NULL;
    struct pktq *q = prio < NPRIO ? &port_pp(p, prio)->q : &port_aux(p)->ctrl;
    struct pkt *k = pktq_pop(q);
    if (!q->head)
        p->qmask &= (uint16_t)~(1u << prio);
    return k;
}

#define FLOW_CHUNK_BITS 10

static inline struct flow *net_flow(const struct net *n, uint32_t idx)
{
    return &n->flow_chunks[idx >> FLOW_CHUNK_BITS][idx & ((1u << FLOW_CHUNK_BITS) - 1)];
}

static inline struct pkt *pkt_alloc(struct net *n)
{
    struct pkt *k = pool_get(&net_np(n)->pkts);
    k->next = NULL;
    k->ecn = 0;
    k->hop = 0;
    k->reverse = 0;
    k->via_reached = 0;
    k->route_flow = 0;
    k->tflags = 0;
    k->quanta = 0;
    k->in_port = 0;
    k->tel = 0;
    return k;
}

/* Makes the INT pools (own and every partition's) when a flow that asks for records appears (cc.c). */
void net_tel_ensure(struct net *n);

/* Record id of any pool. */
static inline struct int_rec *net_int_rec(const struct net *n, uint32_t id)
{
    return int_rec(n->tel_pools[id >> INT_OWNER_SHIFT], id);
}

/* Frees record id: into the current partition's pool when it is one of its own, else later (net_tel_put). */
void net_tel_put(struct net *n, uint32_t id);

static inline void pkt_free(struct net *n, struct pkt *k)
{
    if (__builtin_expect(k->tel != 0, 0))
        net_tel_put(n, k->tel);
    pool_put(&net_np(n)->pkts, k);
}

#endif
