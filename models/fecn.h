/*
 * fecn — InfiniBand congestion control at the switch (InfiniBand Architecture Specification vol. 1, annex A10):
 * an egress (port, VL) in congestion marks the FECN bit of packets that pass it (models/fecn.c).
 */
#ifndef MODELS_FECN_H
#define MODELS_FECN_H

#include <stdbool.h>

#include "models/net.h"

/* switch.ibcc (docs/scenario.md): SwitchCongestionSetting's fields, for every port of a switch. */
struct fecn_settings {
    bool enabled;
    int threshold;       /* 0 (no marking) .. 15 (the most aggressive): the queue that counts as congestion */
    int marking_rate;    /* eligible packets left unmarked between two marks */
    int64_t packet_size; /* smaller packets are never marked, bytes */
    bool victim_mask;    /* mark also where the port is a victim (blocked for credit), not only at the root */
};

/* Resolves switch settings c's marking into port settings pc (an InfiniBand fabric's marking, fabric_ib.c), the
 * threshold a share of vl_buffer, the bytes of buffer per (port, VL). */
void fecn_port_cfg(const struct scn_switch *c, int64_t vl_buffer, struct port_cfg *pc);

/* Whether packet k, queued behind more than the threshold at egress p (settings pc), is marked: the port is the
 * root of the congestion (its VL has credit) or victims are marked too, k is large enough, and the marking rate
 * lets it.  Called from ecn_maybe_mark, above the threshold only. */
bool fecn_mark(const struct port_cfg *pc, const struct port *p, const struct pkt *k);

#endif
