/*
 * cc — congestion control as a table of hooks, in the manner of Linux's struct tcp_congestion_ops
 * (include/net/tcp.h): the RoCE transport (nic.c) calls its flow's algorithm at fixed points, and an algorithm
 * is one file that fills a struct cc_ops and registers it as a module of kind cc_kind (sim/module.h), with its
 * settings group: MODULE_REGISTER(cc_kind, "dcqcn", &cc_dcqcn_ops, &dcqcn_group).  Like Linux's
 * tcp_register_congestion_control, the registration refuses a table without the hooks every flow calls (init,
 * rate, sample) or whose name is not the module's.
 *
 * Both ends of a flow are simulated in one struct flow, so an algorithm has both sides: the reaction point
 * (the sender: init, on_sent, on_ack, on_cnp, on_timer, rate, and the window flow.cc_wnd, which the algorithm
 * writes, as Linux's write snd_cwnd) and the notification point (the receiver: on_data, which decides when to
 * send a CNP).  Its per-flow state lives in the flow (cc_state,
 * CC_STATE_BYTES, no allocation per flow) together with one timer (cc_timer, armed through cc_timer_arm()).
 *
 * Costs: the transport calls the hooks through the table (one indirect call, always to the same target, so well
 * predicted); hooks an algorithm leaves NULL cost a load and a branch, and on_ack not even the load (flow.cc_flags).
 * No algorithm has an inline special case (measurements: docs/performance.md).
 */
#ifndef MODELS_CC_H
#define MODELS_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"
#include "sim/module.h"
#include "sim/scenario.h"
#include "sim/sim.h"

enum cc_flags {
    CC_F_TELEMETRY = 1u << 0, /* its data frames carry INT records (telemetry.h), echoed in ACKs (cc_ack.tel) */
    CC_F_CNP = 1u << 1,       /* its notification point sends CNPs (they travel at host.cnp_priority) */
    CC_F_RTT = 1u << 2,       /* its sender measures round-trip times (cc_ack.rtt): one sample in flight at a time,
                               * from a new data frame's transmission to the first ACK that covers it */
    CC_F_ECN = 1u << 3,       /* its sender slows down only on ECN marks (through CNPs or an echo on ACKs): the
                               * switches must mark where it flows (what rocesim doctor checks) */
    CC_F_ECN_STEP = 1u << 4,  /* it expects step marking at K (switch.ecn.kmin = kmax), as DCTCP does */
    CC_F_BYTES = 1u << 5,     /* it learns from the bytes a transport counts in flight (cc_ack.bytes, nack_bytes,
                               * inflight, rtt per ACK): only under a transport that counts them
                               * (TRANSPORT_F_WINDOW: UET's), which the network's build checks */
};
/* flow.cc_flags holds the algorithm's flags and this one, set when it has an on_ack hook, so that an ACK tests
 * one byte of the flow before it reaches for the table. */
#define CC_FLOW_ON_ACK 0x80u

/*
 * What an ACK or a NACK tells the sender (on_ack).  A transport that counts bytes in flight (Ultra Ethernet's)
 * also calls on_ack when its retransmission timeout fires (timeout), so that a window algorithm (NSCC) learns
 * of the bytes that left the flight; the byte fields are 0 under a transport that does not count them.
 */
struct cc_ack {
    uint32_t psn;              /* the receiver's next expected PSN (cumulative) */
    uint32_t newly_acked;      /* packets acknowledged for the first time by this frame */
    bool nack;                 /* a NACK: the receiver saw a gap at psn */
    bool ece;                  /* ECN-Echo: the data frame that caused it arrived CE-marked */
    const struct int_rec *tel; /* the hops of the acknowledged frame (CC_F_TELEMETRY), else NULL */
    sim_time_t rtt;            /* a round-trip time sample this ACK completes (CC_F_RTT), else 0; a transport
                                * that times every packet (UET): the sample of the packet this ACK or NACK answers */
    uint32_t bytes;      /* bytes newly acknowledged: the increase of the receiver's count of bytes received (frame
                          * bytes, headers included), for a transport that counts it (UET); 0 otherwise */
    uint32_t nack_bytes; /* a NACK or a timeout: bytes of the packet to resend, which leave the flight */
    uint32_t inflight;   /* bytes the transport counts in flight after this ACK/NACK/timeout (UET); 0: not counted */
    bool last_hop;       /* the NACK answers a trim at the last switch before the receiver, and the receiver
                          * paces its link with credit (UET's RCCC): no fault of the sender's window */
    bool timeout;        /* not an ACK: the retransmission timeout fired (nack_bytes: what it resends) */
};

/* The rates.csv columns a sample fills (cc_sample_columns names them). */
enum cc_sample_field { CC_SAMPLE_RATE, CC_SAMPLE_TARGET, CC_SAMPLE_ALPHA, CC_SAMPLE_N };

/* One observation of a sender, read-only (rates.csv; cc_sample()). */
struct cc_sample {
    double rate_bps;   /* the rate it paces at now, its flow's rate cap applied */
    double target_bps; /* the rate it recovers towards (without one: rate_bps) */
    double alpha;      /* DCQCN's congestion estimate */
    uint8_t valid;     /* bit (1 << enum cc_sample_field) per field the algorithm has */
};

extern const char *const cc_sample_columns[CC_SAMPLE_N];

/* A named per-flow statistic (stats). */
struct cc_stat {
    const char *name;
    uint64_t value;
};

/* A setting's value as it applies to one host (host_values): its name in the algorithm's group and its text. */
struct cc_value {
    const char *name;
    char text[32];
};

struct cc_ops {
    const char *name;  /* as the scenario spells it (host.cc): its module's name */
    unsigned flags;    /* enum cc_flags */
    /* What its sample's alpha is (rates.csv's alpha column, rates.png's lower panel), and whether it is a fraction
     * in [0, 1]; NULL: it fills no alpha. */
    const char *alpha_name;
    bool alpha_fraction;
    /* What its sample's target is (rates.csv's target_gbps, rates.png's dashed lines); NULL: "target rate". */
    const char *target_name;
    /* Reaction point.  init: the flow starts (its cc_state is zero before); required. */
    void (*init)(struct flow *f, sim_time_t now);
    /* The sender is done (all acknowledged); cc_timer is already cancelled.  May be NULL. */
    void (*release)(struct flow *f);
    /* A data frame of `bytes` is put on the wire, before the pacing gap after it is computed.  May be NULL. */
    void (*on_sent)(struct flow *f, uint32_t bytes);
    /* An ACK or NACK arrived (after the transport has moved snd_una).  May be NULL. */
    void (*on_ack)(struct flow *f, const struct cc_ack *a, sim_time_t now);
    /* A CNP arrived at a sender that is not done.  May be NULL. */
    void (*on_cnp)(struct flow *f, sim_time_t now);
    /* cc_timer expired.  Required when the algorithm arms it. */
    void (*on_timer)(struct flow *f, sim_time_t now);
    /* The pacing rate in bit/s, before the flow's cap; required. */
    double (*rate)(const struct flow *f);
    /* Notification point: data frame k arrived at the receiver; true to send a CNP now.  NULL: never. */
    bool (*on_data)(struct flow *f, const struct pkt *k, sim_time_t now);
    /* Observation: fills s (rate and target before the flow's cap) at time now; required. */
    void (*sample)(const struct flow *f, sim_time_t now, struct cc_sample *s);
    /* Up to max named per-flow statistics into out; returns how many.  May be NULL. */
    int (*stats)(const struct flow *f, struct cc_stat *out, int max);
    /* The values its settings take on host h where they depend on the host (a step scaled by its line rate, say),
     * for rocesim check's derived.groups: up to max into out; returns how many.  May be NULL. */
    int (*host_values)(const struct host *h, struct cc_value *out, int max);
    /* No settings hook: an algorithm's settings are a group it registers from its own file (sim/settings.h), which
     * the scenario loader parses, checks and dumps; the algorithm reads them from f->net->scn. */
};

#define CC_MAX 16

/* host.cc, the choice among the algorithms: a flat group of `host` (sim/settings.h) that models/cc.c declares. */
struct cc_params {
    int cc; /* a module of kind "cc", by index: 0 is the default */
};

/* Host settings h's choice of algorithm (profiles applied). */
const struct cc_params *cc_params_of(const struct scn_host *h);

/* The kind of the congestion-control modules ("cc": host.cc names one); its default is "dcqcn". */
extern const struct module_kind cc_kind;

/* The algorithms by module index (host.cc's value, flow.cc), a copy of the registry's for the per-frame calls. */
extern const struct cc_ops *cc_registry[CC_MAX];
extern int cc_count;

/* The index of the algorithm called name, or -1. */
int cc_find(const char *name);
/* The name of host.cc's value cc. */
const char *cc_scenario_name(int cc);
/* Gives flow f algorithm `id` (net_add_flow), making the network's INT pool when the algorithm asks for one. */
void cc_flow_setup(struct net *n, struct flow *f, int id);

/* Arms f's cc_timer for time t; the algorithm's on_timer runs then. */
void cc_timer_arm(struct flow *f, sim_time_t t);

/* The read-only view of a sender for observers (rates.csv): its rate and target with the flow's cap applied. */
void cc_sample(const struct flow *f, sim_time_t now, struct cc_sample *s);
/* Its algorithm's per-flow statistics (up to max); returns how many. */
int cc_stats(const struct flow *f, struct cc_stat *out, int max);

static inline const struct cc_ops *flow_cc(const struct flow *f) { return cc_registry[f->cc]; }

/* The transport's calls (nic.c). */
static inline void cc_init(struct flow *f, sim_time_t now) { flow_cc(f)->init(f, now); }

static inline void cc_release(struct flow *f)
{
    sim_timer_cancel(&f->cc_timer);
    const struct cc_ops *o = flow_cc(f);
    if (o->release)
        o->release(f);
}

static inline void cc_on_sent(struct flow *f, uint32_t bytes)
{
    const struct cc_ops *o = flow_cc(f);
    if (o->on_sent)
        o->on_sent(f, bytes);
}

static inline void cc_on_cnp(struct flow *f, sim_time_t now)
{
    const struct cc_ops *o = flow_cc(f);
    if (o->on_cnp)
        o->on_cnp(f, now);
}

static inline double cc_rate(const struct flow *f) { return flow_cc(f)->rate(f); }


static inline bool cc_on_data(struct flow *f, const struct pkt *k, sim_time_t now)
{
    const struct cc_ops *o = flow_cc(f);
    return o->on_data && o->on_data(f, k, now);
}

/* An algorithm's view of its per-flow state (each asserts sizeof <= CC_STATE_BYTES). */
#define CC_STATE(f, type) ((type *)(void *)(f)->cc_state)

#endif
