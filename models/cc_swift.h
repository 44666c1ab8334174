/*
 * cc_swift — Swift's parameters (host.swift) and per-flow state, for the tests that check its state machine;
 * the algorithm and its formulas are in cc_swift.c.
 */
#ifndef MODELS_CC_SWIFT_H
#define MODELS_CC_SWIFT_H

#include "models/cc.h"

struct swift_params {
    int64_t base_target_ps, hop_scale_ps, fs_range_ps;
    double fs_min_cwnd, fs_max_cwnd;
    double ai, beta, max_mdf;
    double min_cwnd, max_cwnd, init_cwnd;
};

struct swift_state {
    double cwnd;              /* packets */
    double fs_alpha, fs_beta; /* flow scaling, in ps, from the parameters */
    sim_time_t hop_target;    /* base_target + hops x hop_scale */
    sim_time_t target;        /* the target delay now (hop_target + flow scaling at this cwnd) */
    sim_time_t delay;         /* the latest RTT sample; 0: none yet */
    sim_time_t last_decrease;
    uint32_t hops;
    uint32_t decreases, samples;
    const struct swift_params *p; /* swift_params(f), read once at set-up */
};

/* The sender's host.swift (its host's settings, profiles applied). */
const struct swift_params *swift_params(const struct flow *f);

#endif
