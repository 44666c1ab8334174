/*
 * cc_nscc — NSCC's parameters (host.nscc), derived constants and per-flow state, for the tests that check its
 * rules on known sequences of ACKs; the algorithm, its formulas and its source are in cc_nscc.c.
 */
#ifndef MODELS_CC_NSCC_H
#define MODELS_CC_NSCC_H

#include "models/cc.h"

/* base_rtt: where a flow's base round trip starts. */
enum nscc_base { NSCC_BASE_NETWORK, NSCC_BASE_PAIR };

/* host.nscc (docs/scenario.md).  0 is "auto" for the three quantities that have it. */
struct nscc_params {
    int64_t network_rtt_ps;  /* RTT_net; 0: the network's longest unloaded round trip (net.cc_net_rtt) */
    int64_t target_delay_ps; /* 0: 0.75 x RTT_net when some switch trims, else RTT_net */
    int64_t window;          /* the initial window, bytes; 0: maxwnd */
    int qa_gate;             /* quick adapt acts below maxwnd / 2^qa_gate */
    enum nscc_base base_rtt;
    bool nack_base_rtt;      /* a NACK's RTT sample may lower the base RTT */
    bool quick_adapt;
};

/* What a sender's settings, its line rate and its frame make of the reference's formulas (cc_nscc.c's header). */
struct nscc_consts {
    sim_time_t net_rtt;  /* RTT_net, ps */
    sim_time_t target;   /* target queuing delay, ps */
    double a, b;         /* BDP_net / BDP_ref, target / RTT_ref */
    double alpha;        /* proportional gain, bytes per ps of delay below the target, per byte acknowledged */
    double fi, eta;      /* fair increase per byte acknowledged (x cwnd per RTT), additive increase, bytes */
    double fi_scale;     /* fast increase: cwnd grows by fi_scale per byte acknowledged */
    int64_t bdp_net;     /* RTT_net x line rate / 8, whole bytes */
    int64_t line_bps;
    uint32_t mss, mtu;   /* the data frame's payload and the whole frame (headers included) */
};

/* A flow's state: 80 bytes, CC_STATE_BYTES (the constants are worked out again from p on each ACK). */
struct nscc_state {
    const struct nscc_params *p; /* the sender's host.nscc, read once at init */
    sim_time_t base_rtt;
    sim_time_t avg_delay;        /* EWMA of the queuing delay, whole ps as the reference keeps it */
    sim_time_t qa_end;           /* the end of the quick-adapt period; 0: none yet */
    sim_time_t last_adjust;      /* the last fulfil adjustment that added eta */
    sim_time_t last_dec;         /* the last multiplicative decrease */
    uint64_t inc_bytes;          /* pending increase x cwnd, paid out by the fulfil adjustment */
    uint32_t cwnd;               /* bytes */
    uint32_t achieved;           /* bytes acknowledged in this quick-adapt period */
    uint32_t received;           /* bytes acknowledged since the last fulfil adjustment */
    uint32_t fi_count;           /* bytes acknowledged in a row at under 1 us of delay */
    uint32_t ignore_left;        /* after a quick adapt: bytes of the old flight whose ECN echoes and NACKs to ignore */
    bool trigger_qa;             /* a NACK asked for a quick adapt */
    bool fast;                   /* fast increase is on */
};

/* The constants host h's flows work with (h's settings, line rate and MTU; RTT_net from n when "auto"). */
void nscc_consts_of_host(const struct net *n, const struct host *h, struct nscc_consts *c);
/* maxwnd for a base round trip: 1.5 x the flow's BDP (whole bytes, as the reference rounds them). */
int64_t nscc_maxwnd(sim_time_t base_rtt, int64_t line_bps);

#endif
