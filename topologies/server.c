/*
 * server — a GPU server's inside as nodes and links of the same engine as the fabric (server.h, docs/servers.md).
 *
 * The shape is the PCIe tree of the server as `nvidia-smi topo -m` describes it and NCCL reads it (NCCL's
 * topology detection: GPU and NIC under one PCIe switch are PIX apart, under switches of one parent switch PXB, on
 * one CPU socket through its host bridge PHB, on two sockets SYS).  Each GPU is a host of the model with a PCIe
 * link to its switch and, when the server has NVLink, an NVLink to one NVSwitch node that stands for the
 * server's NVSwitch chips (on an HGX board every GPU reaches every other at full NVLink bandwidth through them).
 * NICs, PCIe switches and sockets are switches of the model: a frame crosses them as it crosses a fabric switch,
 * store and forward, and PCIe's credit flow control is modelled as PFC on every priority (models/profiles.c gives
 * the server's switches their settings: lossless, no ECN marking, since neither PCIe nor a NIC marks).
 *
 * What a GPU's traffic takes: the least-cost path.  PCIe links cost 2 and NVLink 1, so GPUs of one server talk
 * over NVLink when they have it, and traffic to other servers leaves by a NIC under the GPU's own PCIe subtree
 * (GPUDirect RDMA: the NIC reads and writes GPU memory across PCIe, not through host memory).  When the GPU's
 * nearest NIC is farther than NCCL_NET_GDR_LEVEL allows, NCCL stages the data in host memory of the NIC's socket:
 * the GPU writes it there and the NIC reads it from there (and the reverse on receipt).  Each socket's memory is a
 * node (`n3.mem0`) on a link to its socket, whose two directions are the memory's writes and reads; a staged GPU
 * carries the node (g_node.stage_via) and models/gdr.c sends its traffic to other servers through it.
 */
#include "topologies/server.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sim/units.h"
#include "topologies/topo.h"

const char *const server_path_names[] = {"LOC", "PIX", "PXB", "PHB", "SYS", NULL};
static const char *const preset_names[] = {"none", "hgx-h100", "dgx-a100", NULL};

/* The per-link costs of least-cost routing (graph.h): NVLink before PCIe within a server. */
enum { COST_NVLINK = 1, COST_PCIE = 2, COST_SOCKET = 4 };

/* ---- Reading the description ---- */

/* Reads a JSON array of small integers in [lo, hi] into out (at most SERVER_MAX); *n gets its length. */
static int parse_list(struct setting_ctx *c, const cJSON *v, const char *p, int lo, int hi, int8_t *out, int *n)
{
    char q[SETTING_PATH_MAX];
    if (setting_val_arr(c, v, p, "an array of small integers like [0, 0, 1, 1]") < 0)
        return -1;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        long long x;
        if (i >= SERVER_MAX)
            return setting_bad(c, p, "expected at most %d entries, got more", SERVER_MAX);
        if (setting_val_int(c, it, setting_join_idx(q, p, i), lo, hi, &x) < 0)
            return -1;
        out[i] = (int8_t)x;
    }
    *n = i;
    return 0;
}

static int parse_gpu_pcie(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct server_desc *d = base;
    int n;
    if (parse_list(c, v, p, 0, SERVER_MAX - 1, d->gpu_pcie, &n) < 0)
        return -1;
    d->gpus = n;
    return 0;
}

static int parse_nic_pcie(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct server_desc *d = base;
    int n;
    if (parse_list(c, v, p, 0, SERVER_MAX - 1, d->nic_pcie, &n) < 0)
        return -1;
    d->nics = n;
    return 0;
}

/* "pcie_switches": [{"socket": 0}, {"socket": 0, "parent": 0}, ...] */
static int parse_switches(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct server_desc *d = base;
    char q[SETTING_PATH_MAX], r[SETTING_PATH_MAX];
    if (setting_val_arr(c, v, p, "an array of PCIe switches like [{\"socket\": 0}, {\"socket\": 0, "
                                 "\"parent\": 0}]") < 0)
        return -1;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        setting_join_idx(q, p, i);
        if (i >= SERVER_MAX)
            return setting_bad(c, p, "expected at most %d PCIe switches, got more", SERVER_MAX);
        if (setting_val_obj(c, it, q) < 0)
            return -1;
        long long socket = 0, parent = -1;
        for (const cJSON *m = it->child; m; m = m->next) {
            setting_join(r, q, m->string);
            if (strcmp(m->string, "socket") == 0) {
                if (setting_val_int(c, m, r, 0, SERVER_MAX - 1, &socket) < 0)
                    return -1;
            } else if (strcmp(m->string, "parent") == 0) {
                if (setting_val_int(c, m, r, -1, i - 1, &parent) < 0)
                    return -1;
            } else {
                return setting_bad(c, r, "unknown field (a PCIe switch has socket, parent)");
            }
        }
        d->sw_socket[i] = (int8_t)socket;
        d->sw_parent[i] = (int8_t)parent;
    }
    d->n_switches = i;
    return 0;
}

static void dump_list(cJSON *o, const char *name, const int8_t *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(o, name);
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
}

static void dump_gpu_pcie(cJSON *o, const struct setting *f, const void *base)
{
    const struct server_desc *d = base;
    dump_list(o, f->name, d->gpu_pcie, d->gpus);
}

static void dump_nic_pcie(cJSON *o, const struct setting *f, const void *base)
{
    const struct server_desc *d = base;
    dump_list(o, f->name, d->nic_pcie, d->nics);
}

static void dump_switches(cJSON *o, const struct setting *f, const void *base)
{
    const struct server_desc *d = base;
    cJSON *a = cJSON_AddArrayToObject(o, f->name);
    for (int i = 0; a && i < d->n_switches; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "socket", d->sw_socket[i]);
        if (d->sw_parent[i] >= 0)
            cJSON_AddNumberToObject(s, "parent", d->sw_parent[i]);
        cJSON_AddItemToArray(a, s);
    }
}

static const struct setting server_fields[] = {
    {SET_ENUM("preset", struct server_desc, preset, preset_names, "none",
              "A published server's description, applied before the other fields: \"none\", \"hgx-h100\" or \"dgx-a100\"")},
    {SET_INT("sockets", struct server_desc, sockets, 1, SERVER_MAX, "1", "CPU sockets (NUMA nodes), cpu0..")},
    {SET_FIELD("pcie_switches", SETTING_CUSTOM, struct server_desc, sw_socket, 0, "[]",
               "PCIe switches, pcie0..: each {\"socket\": S} on a root port of socket S, or {\"parent\": J} under "
               "switch J"), .parse = parse_switches, .dump = dump_switches},
    {SET_FIELD("gpu_pcie", SETTING_CUSTOM, struct server_desc, gpu_pcie, 0, "[]",
               "The PCIe switch of each GPU, g0..: its length is the server's GPUs"),
     .parse = parse_gpu_pcie, .dump = dump_gpu_pcie},
    {SET_FIELD("nic_pcie", SETTING_CUSTOM, struct server_desc, nic_pcie, 0, "[]",
               "The PCIe switch of each NIC, nic0..: its length is the server's NICs, NIC k on rail k"),
     .parse = parse_nic_pcie, .dump = dump_nic_pcie},
    {SET_FIELD("pcie_rate", SETTING_RATE, struct server_desc, pcie_rate_bps, SETTING_POSITIVE, "504Gbps",
               "Every PCIe link's rate per direction")},
    {SET_FIELD("pcie_latency", SETTING_TIME, struct server_desc, pcie_delay_ps, 0, "150ns",
               "Every PCIe link's latency")},
    {SET_FIELD("nvlink_rate", SETTING_RATE, struct server_desc, nvlink_rate_bps, 0, "0Gbps",
               "Each GPU's NVLink bandwidth per direction to the NVSwitch; 0: no NVLink")},
    {SET_FIELD("nvlink_latency", SETTING_TIME, struct server_desc, nvlink_delay_ps, 0, "100ns",
               "The NVLink's latency, GPU to NVSwitch")},
    {SET_FIELD("socket_rate", SETTING_RATE, struct server_desc, socket_rate_bps, SETTING_POSITIVE, "400Gbps",
               "The link between two CPU sockets, per direction")},
    {SET_FIELD("socket_latency", SETTING_TIME, struct server_desc, socket_delay_ps, 0, "200ns",
               "The socket link's latency")},
    {SET_FIELD("memory_rate", SETTING_RATE, struct server_desc, memory_rate_bps, SETTING_POSITIVE, "2400Gbps",
               "A socket's memory bandwidth for staged data, written and read, each way")},
    {SET_FIELD("memory_latency", SETTING_TIME, struct server_desc, memory_delay_ps, 0, "100ns",
               "The socket's memory as the staged path reaches it")},
    {SET_ENUM("gdr_level", struct server_desc, gdr_level, server_path_names, "PXB",
              "NCCL_NET_GDR_LEVEL: the farthest GPU-NIC distance GPUDirect RDMA is used at")},
    {0},
};

/*
 * The presets, laid out as docs/servers.md describes them with their sources.  "hgx-h100": an 8-GPU HGX H100
 * board with one 400G NIC per GPU in a two-socket server; four PCIe Gen5 switches, two per socket, each with two
 * GPUs and their two NICs; NVLink 4 at 450 GB/s per GPU and direction; the socket link (UPI) taken as 128 GB/s per
 * direction.  "dgx-a100": 8 A100 GPUs and their 8 compute NICs in four PCIe Gen4 complexes, two per socket, each a
 * parent switch over one switch per device (GPUs and NICs PXB apart, as the published matrices show them; the
 * importer draws them so); NVLink 3 at 300 GB/s per GPU and direction; the socket link (xGMI) taken as 128 GB/s.
 */
static const struct setting_value hgx_h100[] = {
    {"sockets", "2"},
    {"pcie_switches", "[{\"socket\": 0}, {\"socket\": 0}, {\"socket\": 1}, {\"socket\": 1}]"},
    {"gpu_pcie", "[0, 0, 1, 1, 2, 2, 3, 3]"},
    {"nic_pcie", "[0, 0, 1, 1, 2, 2, 3, 3]"},
    {"pcie_rate", "504Gbps"},
    {"nvlink_rate", "3600Gbps"},
    {"socket_rate", "1024Gbps"},
    {NULL, NULL},
};

static const struct setting_value dgx_a100[] = {
    {"sockets", "2"},
    {"pcie_switches", "[{\"socket\": 0}, {\"socket\": 0}, {\"socket\": 1}, {\"socket\": 1}, "
                      "{\"socket\": 0, \"parent\": 0}, {\"socket\": 0, \"parent\": 0}, "
                      "{\"socket\": 0, \"parent\": 0}, {\"socket\": 0, \"parent\": 0}, "
                      "{\"socket\": 0, \"parent\": 1}, {\"socket\": 0, \"parent\": 1}, "
                      "{\"socket\": 0, \"parent\": 1}, {\"socket\": 0, \"parent\": 1}, "
                      "{\"socket\": 1, \"parent\": 2}, {\"socket\": 1, \"parent\": 2}, "
                      "{\"socket\": 1, \"parent\": 2}, {\"socket\": 1, \"parent\": 2}, "
                      "{\"socket\": 1, \"parent\": 3}, {\"socket\": 1, \"parent\": 3}, "
                      "{\"socket\": 1, \"parent\": 3}, {\"socket\": 1, \"parent\": 3}]"},
    {"gpu_pcie", "[4, 5, 8, 9, 12, 13, 16, 17]"},
    {"nic_pcie", "[6, 7, 10, 11, 14, 15, 18, 19]"},
    {"pcie_rate", "252Gbps"},
    {"nvlink_rate", "2400Gbps"},
    {"socket_rate", "1024Gbps"},
    {NULL, NULL},
};

static const struct setting_preset server_presets[] = {
    {"none", (const struct setting_value[]){{NULL, NULL}}},
    {"hgx-h100", hgx_h100},
    {"dgx-a100", dgx_a100},
    {NULL, NULL},
};

static const struct setting_group server_group = {
    .path = "topology.server", .fields = server_fields, .preset_key = "preset", .presets = server_presets,
};

/* Whether switch j lies under switch a (or is a). */
static bool under(const struct server_desc *d, int j, int a)
{
    for (; j >= 0; j = d->sw_parent[j])
        if (j == a)
            return true;
    return false;
}

static int top_of(const struct server_desc *d, int j)
{
    while (d->sw_parent[j] >= 0)
        j = d->sw_parent[j];
    return j;
}

/* How far apart a device under switch a and one under switch b are (NCCL's path types). */
static enum server_path pcie_path(const struct server_desc *d, int a, int b)
{
    if (a == b)
        return SERVER_PIX;
    for (int x = a; x >= 0; x = d->sw_parent[x])
        if (under(d, b, x))
            return SERVER_PXB;
    return d->sw_socket[top_of(d, a)] == d->sw_socket[top_of(d, b)] ? SERVER_PHB : SERVER_SYS;
}

/* The NICs nearest to GPU g into tie (in index order): their number; *how their distance. */
static int nearest_nics(const struct server_desc *d, int g, int *tie, enum server_path *how)
{
    enum server_path bp = SERVER_SYS;
    int ties = 0;
    for (int k = 0; k < d->nics; k++) {
        enum server_path p = pcie_path(d, d->gpu_pcie[g], d->nic_pcie[k]);
        if (ties == 0 || p < bp) {
            bp = p;
            ties = 0;
        }
        if (p == bp)
            tie[ties++] = k;
    }
    *how = bp;
    return ties;
}

int server_gpu_nic(const struct server_desc *d, int g, enum server_path *how)
{
    int tie[SERVER_MAX], other[SERVER_MAX];
    int ties = nearest_nics(d, g, tie, how);
    if (ties == 0)
        return -1;
    /* GPUs with the same nearest NICs take them in turn, as NCCL spreads its GPUs over its NICs. */
    int r = 0;
    for (int x = 0; x < g; x++) {
        enum server_path h;
        int n = nearest_nics(d, x, other, &h);
        r += n == ties && memcmp(other, tie, (size_t)ties * sizeof *tie) == 0;
    }
    return tie[r % ties];
}

/* The rules across fields, with the path of the field that breaks one. */
static int server_check(struct setting_ctx *c, const char *path, struct server_desc *d)
{
    char q[SETTING_PATH_MAX], r[SETTING_PATH_MAX];
    if (d->gpus == 0)
        return setting_bad(c, setting_join(q, path, "gpu_pcie"), "expected the PCIe switch of each GPU, got none");
    if (d->nics == 0)
        return setting_bad(c, setting_join(q, path, "nic_pcie"), "expected the PCIe switch of each NIC, got none");
    for (int j = 0; j < d->n_switches; j++)
        if (d->sw_socket[j] >= d->sockets)
            return setting_bad(c, setting_join_idx(r, setting_join(q, path, "pcie_switches"), j),
                               "expected a socket below sockets (%d), got %d", d->sockets, d->sw_socket[j]);
    for (int g = 0; g < d->gpus; g++)
        if (d->gpu_pcie[g] >= d->n_switches)
            return setting_bad(c, setting_join_idx(r, setting_join(q, path, "gpu_pcie"), g),
                               "expected a PCIe switch below %d (pcie_switches), got %d", d->n_switches,
                               d->gpu_pcie[g]);
    for (int k = 0; k < d->nics; k++)
        if (d->nic_pcie[k] >= d->n_switches)
            return setting_bad(c, setting_join_idx(r, setting_join(q, path, "nic_pcie"), k),
                               "expected a PCIe switch below %d (pcie_switches), got %d", d->n_switches,
                               d->nic_pcie[k]);
    return 0;
}

int server_field_parse(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct server_desc *d = (struct server_desc *)((char *)base + f->offset);
    memset(d, 0, sizeof *d);
    if (settings_parse(c, &server_group, v, p, d) < 0)
        return -1;
    return server_check(c, p, d);
}

void server_field_dump(cJSON *o, const struct setting *f, const void *base)
{
    const struct server_desc *d = (const struct server_desc *)((const char *)base + f->offset);
    if (d->gpus == 0)
        return;
    cJSON *s = cJSON_AddObjectToObject(o, f->name);
    if (s)
        settings_dump(&server_group, d, s);
}

/* ---- Its nodes and links ---- */

/* Extra nodes, in this order: nic0.., pcie0.., cpu0.., mem0.., then nvswitch. */
int server_extra_nodes(const struct server_desc *d)
{
    return d->nics + d->n_switches + 2 * d->sockets + (d->nvlink_rate_bps > 0);
}

int server_links(const struct server_desc *d)
{
    int sockets = d->sockets * (d->sockets - 1) / 2;
    return d->gpus * (1 + (d->nvlink_rate_bps > 0)) + d->nics + d->n_switches + sockets + d->sockets;
}

void server_extra_name(const struct server_desc *d, long long s, int i, char *buf, size_t len)
{
    if (i < d->nics)
        snprintf(buf, len, "n%lld.nic%d", s, i);
    else if ((i -= d->nics) < d->n_switches)
        snprintf(buf, len, "n%lld.pcie%d", s, i);
    else if ((i -= d->n_switches) < d->sockets)
        snprintf(buf, len, "n%lld.cpu%d", s, i);
    else if ((i -= d->sockets) < d->sockets)
        snprintf(buf, len, "n%lld.mem%d", s, i);
    else
        snprintf(buf, len, "n%lld.nvswitch", s);
}

/* The number after prefix at the start of rest, below lim, which must end rest; -1 otherwise. */
static int number_after(const char *rest, const char *prefix, int lim)
{
    size_t n = strlen(prefix);
    const char *p = rest + n;
    long long x;
    return strncmp(rest, prefix, n) == 0 && topo_name_num(&p, lim, &x) && !*p ? (int)x : -1;
}

int server_extra_index(const struct server_desc *d, long long s, const char *rest)
{
    int x;
    if ((x = number_after(rest, "nic", d->nics)) >= 0)
        return x;
    if ((x = number_after(rest, "pcie", d->n_switches)) >= 0)
        return d->nics + x;
    if ((x = number_after(rest, "cpu", d->sockets)) >= 0)
        return d->nics + d->n_switches + x;
    if ((x = number_after(rest, "mem", d->sockets)) >= 0)
        return d->nics + d->n_switches + d->sockets + x;
    if (d->nvlink_rate_bps > 0 && strcmp(rest, "nvswitch") == 0)
        return d->nics + d->n_switches + 2 * d->sockets;
    return -1;
}

/* The extra node a PCIe switch j's uplink reaches. */
static int uplink_of(const struct server_desc *d, int j)
{
    return d->sw_parent[j] >= 0 ? d->nics + d->sw_parent[j] : d->nics + d->n_switches + d->sw_socket[j];
}

bool server_linked(const struct server_desc *d, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    int sw0 = d->nics, cpu0 = sw0 + d->n_switches, mem0 = cpu0 + d->sockets, nvs = mem0 + d->sockets;
    if (i < 0) { /* GPU -1 - i */
        int g = -1 - i;
        return j == sw0 + d->gpu_pcie[g] || (d->nvlink_rate_bps > 0 && j == nvs);
    }
    if (i < sw0)
        return j == sw0 + d->nic_pcie[i];
    if (i < cpu0)
        return j == uplink_of(d, i - sw0) || (j < cpu0 && uplink_of(d, j - sw0) == i);
    if (i < mem0) /* a socket: the others and its memory */
        return (j < mem0 && i != j) || j == i + d->sockets;
    return false;
}

static void link(struct graph *g, uint32_t a, uint32_t b, int64_t rate, int64_t delay, uint32_t cost)
{
    struct scn_link l = {.rate_bps = rate, .delay_ps = delay};
    uint32_t i = graph_add_link(g, a, b, &l); /* first: adding a link may move g->links */
    g->links[i].cost = cost;
}

void server_build(const struct server_desc *d, struct graph *g, uint32_t gpu0, uint32_t first, int64_t nic_bps)
{
    uint32_t sw0 = first + (uint32_t)d->nics, cpu0 = sw0 + (uint32_t)d->n_switches;
    uint32_t mem0 = cpu0 + (uint32_t)d->sockets, nvs = mem0 + (uint32_t)d->sockets;
    for (int x = 0; x < d->gpus; x++) {
        link(g, gpu0 + (uint32_t)x, sw0 + (uint32_t)d->gpu_pcie[x], d->pcie_rate_bps, d->pcie_delay_ps, COST_PCIE);
        g->nodes[gpu0 + (uint32_t)x].line_bps = d->pcie_rate_bps < nic_bps ? d->pcie_rate_bps : nic_bps;
        enum server_path how;
        int k = server_gpu_nic(d, x, &how);
        g->nodes[gpu0 + (uint32_t)x].nic_via = first + (uint32_t)server_nic_node(k) + 1;
        g->nodes[gpu0 + (uint32_t)x].nic_dist = (uint8_t)how;
        g->nodes[gpu0 + (uint32_t)x].mem_via = mem0 + (uint32_t)d->sw_socket[top_of(d, d->nic_pcie[k])] + 1;
        if ((int)how > d->gdr_level) /* staged in the memory of its NIC's socket */
            g->nodes[gpu0 + (uint32_t)x].stage_via = g->nodes[gpu0 + (uint32_t)x].mem_via;
    }
    if (d->nvlink_rate_bps > 0)
        for (int x = 0; x < d->gpus; x++)
            link(g, gpu0 + (uint32_t)x, nvs, d->nvlink_rate_bps, d->nvlink_delay_ps, COST_NVLINK);
    for (int k = 0; k < d->nics; k++)
        link(g, first + (uint32_t)k, sw0 + (uint32_t)d->nic_pcie[k], d->pcie_rate_bps, d->pcie_delay_ps, COST_PCIE);
    for (int j = 0; j < d->n_switches; j++)
        link(g, sw0 + (uint32_t)j, first + (uint32_t)uplink_of(d, j), d->pcie_rate_bps, d->pcie_delay_ps, COST_PCIE);
    for (int a = 0; a < d->sockets; a++)
        for (int b = a + 1; b < d->sockets; b++)
            link(g, cpu0 + (uint32_t)a, cpu0 + (uint32_t)b, d->socket_rate_bps, d->socket_delay_ps, COST_SOCKET);
    for (int a = 0; a < d->sockets; a++) /* a dead end: no least-cost path passes it, only a staged one */
        link(g, cpu0 + (uint32_t)a, mem0 + (uint32_t)a, d->memory_rate_bps, d->memory_delay_ps, COST_PCIE);
    for (uint32_t id = first; id < first + (uint32_t)server_extra_nodes(d); id++) {
        g->nodes[id].in_server = true;
        g->nodes[id].server = first + 1;
    }
    for (uint32_t x = 0; x < (uint32_t)d->gpus; x++)
        g->nodes[gpu0 + x].server = first + 1;
    for (uint32_t a = 0; a < (uint32_t)d->sockets; a++)
        g->nodes[mem0 + a].memory = true;
}
