/* gdr — GPUDirect RDMA or the path staged through host memory (gdr.c). */
#ifndef MODELS_GDR_H
#define MODELS_GDR_H

#include <stdint.h>

#include "models/net.h"

/*
 * The path NCCL gives flow f from a GPU to another server (into nodes, at most max): out by the GPU's own NIC
 * (g_node.nic_via), through the host memory of a staged end (g_node.stage_via), and through the fabric as its
 * frames route by hash_fwd.  Its number of nodes, or 0 when the flow keeps its least-cost route (no GPU sender
 * and no staged receiver, or a flow within one server) or the path does not fit.
 */
int gdr_path(const struct net *n, const struct flow *f, uint32_t *nodes, int max);

#endif
