/*
 * nvsmi — a server's inside from the matrix `nvidia-smi topo -m` prints (docs/servers.md).
 *
 * `rocesim import nvidia-smi-topo FILE [-o OUT.json] [--nvlink-rate PER_LINK] [--gdr-level LEVEL]` reads the
 * matrix (rows and columns GPU0.., NIC0.. or mlx5_0..; cells X, NV#, PIX, PXB, PHB, NODE, SYS, the older SOC for
 * SYS; then CPU Affinity, NUMA Affinity and GPU NUMA ID columns) and prints {"server": {...}}, the `topology.server`
 * description: NUMA nodes ("sockets") from NUMA Affinity or the SYS relations, PCIe switches from the PIX and PXB
 * relations, the NVLink rate from the NV# count times the per-link rate the user gives.  The cells' meanings are
 * nvidia-smi's legend (NVML's nvmlGpuTopologyLevel_t: SINGLE = PIX, MULTIPLE = PXB, HOSTBRIDGE = PHB, NODE,
 * SYSTEM = SYS).
 */
#ifndef TOOLS_NVSMI_H
#define TOOLS_NVSMI_H

#include <stddef.h>

struct cJSON;
struct sbuf;

/*
 * Converts the text of `nvidia-smi topo -m` (`file` names it in messages).  nvlink_rate is the rate of one NVLink
 * in one direction ("200Gbps") or NULL (then the description has no nvlink_rate and a note gives the count);
 * gdr_level is LOC, PIX, PXB, PHB or SYS, or NULL for NCCL's default PXB.  On success returns 0 and *out is
 * {"server": {...}} (caller deletes), with one line per note appended to notes (when not NULL).  Else returns 2
 * with one line "FILE:LINE: ..." (or "--nvlink-rate: ..." / "--gdr-level: ...") in err and *out NULL.
 */
int nvsmi_import_text(const char *file, const char *text, const char *nvlink_rate, const char *gdr_level,
                      struct cJSON **out, struct sbuf *notes, char *err, size_t errlen);

/* `rocesim import nvidia-smi-topo ...` (argv[1] "import"); returns the exit status: 0, 2 bad usage or input, 3 I/O. */
int nvsmi_import_main(int argc, char **argv);

#endif
