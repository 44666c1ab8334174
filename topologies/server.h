/*
 * server — the inside of a GPU server as nodes and links of the network (server.c): its GPUs (hosts, each with a
 * PCIe port and, with NVLink, an NVLink port), its NICs, PCIe switches and CPU sockets (switches of the model),
 * NVLink through one NVSwitch node.  A topology with servers (rail) holds a struct server_desc, reads it with
 * server_parse and adds each server's inside with server_build.
 */
#ifndef TOPOLOGIES_SERVER_H
#define TOPOLOGIES_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/graph.h"
#include "sim/settings.h"

/* The most GPUs, NICs, PCIe switches or sockets of one server. */
#define SERVER_MAX 32

/* How far apart a GPU and a NIC sit, in the order of NCCL_NET_GDR_LEVEL's values (docs/servers.md). */
enum server_path { SERVER_LOC, SERVER_PIX, SERVER_PXB, SERVER_PHB, SERVER_SYS };

/* A server description (docs/servers.md: topology.server); gpus 0: no server, each GPU a NIC of its own. */
struct server_desc {
    int preset;
    int gpus, nics, sockets, n_switches;
    int8_t sw_socket[SERVER_MAX]; /* PCIe switch j hangs off a root port of socket sw_socket[j] ... */
    int8_t sw_parent[SERVER_MAX]; /* ... or, when >= 0, off PCIe switch sw_parent[j] */
    int8_t gpu_pcie[SERVER_MAX];  /* the PCIe switch of GPU g */
    int8_t nic_pcie[SERVER_MAX];  /* the PCIe switch of NIC k */
    int64_t pcie_rate_bps, pcie_delay_ps;
    int64_t nvlink_rate_bps, nvlink_delay_ps; /* rate 0: no NVLink */
    int64_t socket_rate_bps, socket_delay_ps;
    int64_t memory_rate_bps, memory_delay_ps; /* a socket's memory as the staged path writes and reads it */
    int gdr_level;                /* enum server_path: NCCL_NET_GDR_LEVEL */
};

/* The field "server" of a topology's table, for struct T's member M (a struct server_desc). */
setting_parse_fn server_field_parse;
setting_dump_fn server_field_dump;
#define SET_SERVER(type_, member_)                                                                                \
    .name = "server", .kind = SETTING_CUSTOM, .offset = offsetof(type_, member_),                                 \
    .help = "What is inside each server: GPUs, NICs, PCIe, sockets, NVLink (docs/servers.md)",                    \
    .parse = server_field_parse, .dump = server_field_dump

/* Nodes one server adds besides its GPUs: NICs, PCIe switches, sockets, their memories and the NVSwitch. */
int server_extra_nodes(const struct server_desc *d);
/* Writes the name of server s's extra node i (0 <= i < server_extra_nodes) into buf. */
void server_extra_name(const struct server_desc *d, long long s, int i, char *buf, size_t len);
/* The extra node of server s called name (as server_extra_name writes it), or -1. */
int server_extra_index(const struct server_desc *d, long long s, const char *rest);
/* Whether extra nodes i and j (-1 - g: GPU g) of one server are linked. */
bool server_linked(const struct server_desc *d, int i, int j);
/* Extra node index of NIC k. */
static inline int server_nic_node(int k) { return k; }
/* Links one server adds. */
int server_links(const struct server_desc *d);

/*
 * Adds server s's inside to g: its extra nodes from node id `first` on (added by the caller, in
 * server_extra_name's order), the GPUs at node ids gpu0.. (hosts, added by the caller): each GPU's PCIe link, then
 * (with NVLink) its NVLink to the NVSwitch, then each NIC's PCIe link, the switches' uplinks and the sockets'
 * links and their memories'.  The NICs' network links are the topology's.  Sets each GPU's line rate
 * (g_node.line_bps): the slower of its PCIe link and the NIC rate `nic_bps`, since the NIC carries its flows on;
 * and, for a GPU whose nearest NIC is beyond gdr_level, the memory its traffic is staged through (stage_via).
 */
void server_build(const struct server_desc *d, struct graph *g, uint32_t gpu0, uint32_t first, int64_t nic_bps);

/* The NIC NCCL gives GPU g: the nearest, the GPUs of one PCIe switch taking the nearest in turn; and how far. */
int server_gpu_nic(const struct server_desc *d, int g, enum server_path *how);

extern const char *const server_path_names[];

#endif
