/*
 * ns3rdma — the ns-3 RDMA simulator's inputs, in and out (docs/ns3-rdma.md).
 *
 * The simulator of the HPCC paper (Li et al., SIGCOMM 2019; alibaba-edu/High-Precision-Congestion-Control,
 * simulation/scratch/third.cc) reads a config of `KEY value` tokens (mix/config_doc.txt explains them), a topology
 * file (node count, switch count, link count; the switches' ids; one link a line: a b rate delay error_rate) and a
 * flow file (count; one flow a line: src dst priority dport size start_s), and writes fct.txt and pfc.txt.
 * `rocesim import ns3-rdma` turns the three into a scenario, `rocesim export ns3-rdma` writes a scenario back as
 * the three, listing what they cannot express.
 *
 * Nodes: host k of the scenario (h0, h1, ..) is the k-th host by the reference's node id, switch `sw<ID>` keeps
 * its id; the custom topology lists the nodes in id order, so rocesim's node index is the reference's id, which
 * fct.txt's addresses (0x0b000001 + 0x10000 (id / 256) + 0x100 (id % 256)) and pfc.txt's node column use.
 */
#ifndef TOOLS_NS3RDMA_H
#define TOOLS_NS3RDMA_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct sbuf;

/*
 * Imports the config at `config` (its TOPOLOGY_FILE and FLOW_FILE found relative to the working directory, as the
 * reference opens them, else to the config's directory and its parent; topo and flows, when not NULL, replace
 * them).  0 with *out the scenario (caller deletes) and one line per note in notes, or 2 (bad file: "FILE:LINE:
 * ...") or 3 (unreadable) with one line in err.
 */
int ns3rdma_import(const char *config, const char *topo, const char *flows, struct cJSON **out, struct sbuf *notes,
                   char *err, size_t errlen);

/* The reference's address of node id (third.cc's node_id_to_ip). */
static inline uint32_t ns3rdma_ip(uint32_t id) { return 0x0b000001u + (id / 256) * 0x10000u + (id % 256) * 0x100u; }

struct run;
/* Writes the finished run r's fct.txt and pfc.txt (when it wrote a pfc.csv: it reads it) into dir, in that
 * simulator's formats (ns3rdma_out.c): 0, or 3 with "PATH: cannot write" in err. */
int ns3rdma_write_outputs(const struct run *r, const char *dir, char *err, size_t errlen);

/* `rocesim import ns3-rdma ...` and `rocesim export ns3-rdma ...` (argv[1] "import"/"export"); exit status. */
int ns3rdma_import_main(int argc, char **argv);
int ns3rdma_export_main(int argc, char **argv);

#endif
