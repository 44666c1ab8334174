/*
 * ns3rdma_out — a run's fct.txt and pfc.txt in the formats of the ns-3 RDMA simulator of the HPCC paper
 * (alibaba-edu/High-Precision-Congestion-Control, simulation/scratch/third.cc: qp_finish and get_pfc), so that the
 * scripts written for that simulator's outputs read rocesim's runs: `rocesim run --format ns3-rdma`.
 *
 * fct.txt, one line per flow that completed, in the order they completed (its sender's last ACK; ties by flow):
 *     sip dip sport dport size start_ns fct_ns standalone_fct_ns        ("%08x %08x %u %u %lu %lu %lu %lu")
 * sip, dip: the hosts' node ids as that simulator's addresses (ns3rdma_ip); sport 10000 + the number of earlier
 * flows between the same two hosts (it numbers each pair's flows from 10000 as they start, in file order); dport
 * 100 (rocesim's flows have no port; the import's files use 100); fct from the flow's start to its sender's last
 * ACK, which is when that simulator's queue pair completes; times in whole ns (truncated).  standalone_fct is its
 * formula over rocesim's first shortest path from the sender:
 *     standalone = base_rtt + bytes x 8 / b (ns, integer division as there),  bytes = size + 48 x packets
 *     base_rtt   = 2 x (sum of the path's delays) + sum over its hops of payload x 8 / rate (each hop truncated)
 * with b the path's slowest link, payload the flow's MTU (host.mtu: PACKET_PAYLOAD_SIZE) and 48 bytes the
 * headers of a packet without INT (Ethernet 14, IPv4 20, UDP 8, its priority 2 and sequence number 4).
 *
 * pfc.txt, one line per PAUSE or RESUME frame, logged by the port that received it, as there:
 *     time_ns node node_type ifindex type       (node_type 0 host, 1 switch; type 1 PAUSE, 0 RESUME)
 * node is rocesim's node index (the reference's node id for an imported scenario, whose nodes are in id order),
 * ifindex the port's index at its node + 1 (that simulator's device 0 is the loopback, its links' devices follow in
 * the topology file's order, as rocesim's ports).  It is made from pfc.csv, which --format ns3-rdma makes hold every
 * frame (monitor.pfc "all"); a pfc.csv that a bound cut short (summary.json's series_capped) leaves pfc.txt as
 * short.
 */
#include "sim/mem.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "tools/ops/ns3rdma.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS3_FIRST_PORT 10000
#define NS3_DPORT 100
#define NS3_HEADER_BYTES 48

/* One shortest path from host a to host b: its delay (ps), the sum of payload x 8 / rate per hop (ns, each hop
 * truncated) and its slowest rate (bit/s). */
static void path_of(const struct graph *g, uint32_t a, uint32_t b, uint32_t payload, uint64_t *delay_ps,
                    uint64_t *tx_ns, int64_t *bw)
{
    uint32_t node = g->host_node[a], dst = g->host_node[b];
    *delay_ps = 0;
    *tx_ns = 0;
    *bw = INT64_MAX;
    for (uint32_t hops = 0; node != dst && hops < g->n_nodes; hops++) {
        const uint16_t *ports;
        uint32_t pid;
        if (hops == 0) {
            pid = g->nodes[node].first_port; /* a host leaves by its (first) port */
        } else {
            if (!graph_nexthops(g, node, b, &ports))
                break;
            pid = g->nodes[node].first_port + ports[0];
        }
        const struct g_port *p = &g->ports[pid];
        *delay_ps += (uint64_t)p->delay_ps;
        *tx_ns += (uint64_t)payload * 1000000000ull * 8 / (uint64_t)p->rate_bps;
        if (p->rate_bps < *bw)
            *bw = p->rate_bps;
        node = g->ports[p->peer].node;
    }
}

struct done {
    sim_time_t at;
    uint32_t flow;
};

static int by_time(const void *x, const void *y)
{
    const struct done *a = x, *b = y;
    return a->at < b->at ? -1 : a->at > b->at ? 1 : a->flow < b->flow ? -1 : a->flow > b->flow;
}

struct pair_key {
    uint32_t src, dst, flow;
};

static int by_pair(const void *x, const void *y)
{
    const struct pair_key *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return a->flow < b->flow ? -1 : a->flow > b->flow;
}

static void fct_txt(const struct run *r, struct sbuf *out)
{
    const struct net *n = &r->net;
    const struct graph *g = &r->g;
    uint32_t nf = n->n_flows, nd = 0;
    uint16_t *sport = mem_xcalloc(nf ? nf : 1, sizeof *sport, "writing fct.txt");
    struct done *d = mem_xcalloc(nf ? nf : 1, sizeof *d, "writing fct.txt");
    /* each pair's flows numbered in flow order (an imported scenario's flows are its file's, in start order): the
     * flows sorted by pair, then by index, without a table of every pair (8,192 hosts would make it 268 MB) */
    struct pair_key *pk = mem_xcalloc(nf ? nf : 1, sizeof *pk, "writing fct.txt");
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = net_flow(n, i);
        pk[i] = (struct pair_key){f->src, f->dst, i};
        if (f->acked >= 0)
            d[nd++] = (struct done){f->acked, i};
    }
    qsort(pk, nf, sizeof *pk, by_pair);
    for (uint32_t i = 0, k = 0; i < nf; i++) {
        k = i && pk[i].src == pk[i - 1].src && pk[i].dst == pk[i - 1].dst ? k + 1 : 0;
        sport[pk[i].flow] = (uint16_t)(NS3_FIRST_PORT + k);
    }
    free(pk);
    qsort(d, nd, sizeof *d, by_time);
    for (uint32_t k = 0; k < nd; k++) {
        const struct flow *f = net_flow(n, d[k].flow);
        uint64_t delay_ps, tx_ns;
        int64_t bw;
        path_of(g, f->src, f->dst, f->mtu, &delay_ps, &tx_ns, &bw);
        uint64_t pkts = f->size > 0 ? ((uint64_t)f->size - 1) / f->mtu + 1 : 0;
        uint64_t bytes = (uint64_t)f->size + pkts * NS3_HEADER_BYTES;
        uint64_t base_rtt = 2 * (delay_ps / 1000) + tx_ns;
        uint64_t standalone = base_rtt + bytes * 8000000000ull / (uint64_t)bw;
        sb_printf(out, "%08x %08x %u %u %llu %llu %llu %llu\n", ns3rdma_ip(g->host_node[f->src]),
                  ns3rdma_ip(g->host_node[f->dst]), (unsigned)sport[d[k].flow], NS3_DPORT,
                  (unsigned long long)f->size, (unsigned long long)(f->start / 1000),
                  (unsigned long long)((f->acked - f->start) / 1000), (unsigned long long)standalone);
    }
    free(d);
    free(sport);
}

/* pfc.csv's rows (time_ns,node,port,priority,event), each as the line its receiving port logs: 0, or 1 when the run
 * wrote no pfc.csv (an InfiniBand fabric, which pauses nothing). */
static int pfc_txt(const struct run *r, const char *dir, struct sbuf *out)
{
    const struct graph *g = &r->g;
    char path[4200];
    snprintf(path, sizeof path, "%s/pfc.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    char line[512];
    bool header = true;
    while (fgets(line, sizeof line, f)) {
        if (header) {
            header = false;
            continue;
        }
        char node[SCN_NAME_MAX], event[16];
        double t;
        unsigned port, prio;
        if (sscanf(line, "%lf,%63[^,],%u,%u,%15s", &t, node, &port, &prio, event) != 5)
            continue;
        int32_t id = graph_find(g, node);
        if (id < 0 || port >= g->nodes[id].n_ports)
            continue;
        const struct g_port *p = &g->ports[g->nodes[id].first_port + port];
        uint32_t peer = g->ports[p->peer].node;
        sb_printf(out, "%llu %u %u %u %u\n", (unsigned long long)t, peer,
                  g->nodes[peer].kind == SCN_NODE_HOST ? 0u : 1u, p->peer - g->nodes[peer].first_port + 1,
                  strcmp(event, "pause") == 0 ? 1u : 0u);
    }
    fclose(f);
    return 0;
}

int ns3rdma_write_outputs(const struct run *r, const char *dir, char *err, size_t errlen)
{
    struct sbuf fct = {0}, pfc = {0};
    fct_txt(r, &fct);
    bool paused = pfc_txt(r, dir, &pfc) == 0;
    char path[4200];
    int rc = 0;
    snprintf(path, sizeof path, "%s/fct.txt", dir);
    if (write_file_atomic(path, fct.p ? fct.p : "", fct.len))
        rc = 3;
    if (!rc && paused) {
        snprintf(path, sizeof path, "%s/pfc.txt", dir);
        if (write_file_atomic(path, pfc.p ? pfc.p : "", pfc.len))
            rc = 3;
    }
    if (rc)
        snprintf(err, errlen, "%s: cannot write", path);
    free(fct.p);
    free(pfc.p);
    return rc;
}
