/*
 * uet — the settings of Ultra Ethernet's delivery (host.uet, models/uet.c), which its transport (transport_uet.c) and
 * its receiver credit (rccc.c) read.
 */
#ifndef MODELS_UET_H
#define MODELS_UET_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/settings.h"

/* The unit of the pull counter and of the pull target, in bytes (UEC's pull quantum; the reference's
 * UEC_PULL_QUANTUM). */
#define RCCC_QUANTUM 256

/* The receiver oversubscription control's settings (rccc_oversub.c), read from the receiving host. */
struct rccc_oversub_params {
    bool on;         /* the host's pull pacer is scaled by the control */
    double min_rate; /* the least scale, a fraction of the pacer's rate */
    double ai;       /* additive increase per period without a decrease */
    double md;       /* multiplicative decrease per unit of marked fraction above the target */
    double alpha;    /* weight of the newest period in the marked fraction's average */
    double target;   /* the average marked fraction above which the scale is cut */
};

/* RCCC's settings. */
struct rccc_params {
    bool on;             /* a flow sent by this host runs on credit */
    int64_t base_rtt_ps; /* the round trip the credit window is sized from; 0: the flow's own unloaded one */
    double max_credit;   /* in BDPs: speculative credit at start, the most credit held, asked for or given unasked */
    int64_t pull_credit; /* the most one pull grants, bytes (a multiple of RCCC_QUANTUM) */
    double pull_rate;    /* the pacer's rate as a fraction of the receiving host's line rate */
    struct rccc_oversub_params os;
};

struct uet_params {
    int64_t sack_threshold;  /* bytes received since the last ACK after which the receiver acknowledges */
    struct rccc_params rccc; /* receiver credit (rccc.c) */
};

/* The group of host.uet, which transport_uet.c registers with its module. */
extern const struct setting_group uet_group;

struct scn_host;
/* Host settings h's host.uet. */
const struct uet_params *uet_params_of_host(const struct scn_host *h);

/* Its receiver-credit part. */
static inline const struct rccc_params *rccc_params_of(const struct scn_host *h)
{
    return &uet_params_of_host(h)->rccc;
}

#endif
