/*
 * credit — InfiniBand's credit-based link-level flow control (models/credit.c): what it counts, for outputs and
 * tests.
 */
#ifndef MODELS_CREDIT_H
#define MODELS_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"

/* One (port, VL)'s counts, in 64-byte blocks, modulo 2^32. */
struct credit_count {
    uint32_t sent;       /* as sender: blocks sent (FCTBS) */
    uint32_t limit;      /* as sender: the limit the peer advertised last (FCCL) */
    uint32_t received;   /* as receiver: blocks received (ABR), those lost on arrival included */
    uint32_t advertised; /* as receiver: the limit it advertised last */
};

/* Whether network n's ports are blocked by credits (so stalled, not paused by PFC). */
bool credit_runs(const struct net *n);

/* Switch settings c's switch.credit.vl_buffer: bytes per (ingress port, VL).  At set-up. */
int64_t credit_vl_buffer(const struct scn_switch *c);

/* Port p's counts for virtual lane vl (0-7); false when the network does not run credits. */
bool credit_counts(const struct net *n, const struct port *p, int vl, struct credit_count *out);

#endif
