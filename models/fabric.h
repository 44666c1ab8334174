/*
 * fabric — what a link layer puts around a frame, as a table chosen by the scenario's top-level "fabric":
 * "roce" (RoCE v2 over Ethernet, the default: models/fabric.c) or "infiniband" (models/fabric_ib.c).  The
 * network copies the sizes into net.fr when it is built, so that a frame reads them from a line it already holds.
 *
 * A fabric may name the link-level flow control it requires (InfiniBand: credits, models/credit.c); a scenario
 * that chooses another is refused, as is a fabric whose MTU rule the hosts break: one fabric runs the whole
 * network (a mixed fabric is refused, not bridged).
 */
#ifndef MODELS_FABRIC_H
#define MODELS_FABRIC_H

#include <stddef.h>

#include "models/net.h"
#include "sim/module.h"

struct scenario;

struct fabric_ops {
    const char *name;
    struct framing fr;
    /* The link-level flow control it requires (a module of kind "lfc"), or NULL: switch.flow_control chooses. */
    const char *lfc;
    /* The payload sizes (host.mtu) its links carry, 0-terminated, or NULL: any the NIC allows. */
    const uint16_t *mtus;
};

/* The top-level "fabric", by index of its module: 0 is "roce", the default. */
struct fabric_params {
    int fabric;
};

extern const struct module_kind fabric_kind;

/* The fabric scenario s runs. */
const struct fabric_ops *fabric_of(const struct scenario *s);

/* 0, or SCN_EUSAGE with "FILE: host.mtu: expected ..." in err when a host of n (its settings resolved) sends a
 * payload its fabric does not carry. */
int fabric_check_hosts(const struct net *n, char *err, size_t errlen);

#endif
