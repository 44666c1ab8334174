/* gdr — GPUDirect RDMA or the path staged through host memory (gdr.c). */
#ifndef MODELS_GDR_H
#define MODELS_GDR_H

#include <stdint.h>

#include "models/net.h"

/*
 * The path NCCL gives flow f from a GPU to another server (into nodes, at most max): out by the GPU's own NIC
 * (g_node.nic_via), through the host memory of a staged end (g_node.stage_via, or the memory of its NIC's socket,
 * g_node.mem_via, when its traffic chose the CPU: gdr_choose), and through the fabric as its
 * frames route by hash_fwd.  Its number of nodes, or 0 when the flow keeps its least-cost route (no GPU sender
 * and no staged receiver, or a flow within one server) or the path does not fit.
 */
int gdr_path(const struct net *n, const struct flow *f, uint32_t *nodes, int max);

/* How a GPU sender's data reaches its NIC: as gdr_level decides (NCCL), through its NIC socket's memory (the CPU
 * path of a checkpoint), or read by the NIC from GPU memory (GPUDirect Storage). */
enum gdr_how { GDR_LEVEL, GDR_CPU, GDR_DIRECT };
struct gdr_choice {
    uint32_t first, count; /* flow places first..first+count-1 */
    enum gdr_how how;
};
/* At set-up: the flows at places first..first+count-1, when made, take their GPU sender's side as `how` says. */
void gdr_choose(struct net *n, uint32_t first, uint32_t count, enum gdr_how how);

#endif
