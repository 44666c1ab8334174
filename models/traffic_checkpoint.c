/*
 * traffic_checkpoint — the kind "checkpoint": every GPU of `gpus` writes its shard of a checkpoint of `size`
 * bytes (the whole model's: size / N per GPU) to a storage server of `storage`, GPU j to storage server j mod S,
 * all at once, through the CPU or with GPUDirect Storage (`path`).
 *
 * What the two paths are (NVIDIA's GPUDirect Storage overview and cuFile documentation): without GDS the
 * application copies the GPU's buffer into a bounce buffer in host memory (cudaMemcpy) and the storage client
 * sends it from there; with GDS (cuFile) the NIC reads the GPU's memory directly over PCIe, "avoiding a bounce
 * buffer through the CPU".  Here "cpu" takes each GPU's data through the memory of its NIC's socket (n3.mem0), as
 * a GPU staged by NCCL's gdr_level does (models/gdr.c): up its PCIe switch's uplink and the memory's write
 * direction, back through the memory's read direction and down the uplink to the NIC; "gds" takes it from the
 * GPU across its PCIe switch to its NIC.  So on a server where two GPUs and two NICs share a PCIe switch's uplink
 * (the hgx-h100 preset) a GPU's "cpu" checkpoint is bound by half that uplink each way,
 *     B_cpu = min(pcie_rate / 2, memory_rate / (GPUs on the socket), NIC rate),
 * where "gds" is bound by its NIC's link and the fabric behind it: B_gds = min(NIC rate, fabric share).  The
 * completion is then the largest shard's wire bytes over its bound (tests/test_checkpoint.c checks both).
 *
 * Left out: the file system (metadata, striping, its servers' CPUs), the storage media (a storage server
 * absorbs data at its link's rate), the CPU copy threads and page cache of the "cpu" path (only the links it
 * crosses bound it here), cuFile's own chunking, and GDS's compatibility mode (a GPU that cannot reach its NIC
 * peer to peer still writes directly here).  The CPU path's cost in this model is links, not CPU time: what
 * makes a real CPU-path checkpoint several times slower than GDS beyond the links is outside it.
 *
 * summary.json (collectives[]): its completion (the last shard received), its path, and its rates in GB/s
 * (bytes per ns): the whole checkpoint over the completion, and each GPU's shard over its own completion (mean
 * and slowest).
 */
#include "models/coll.h"
#include "models/gdr.h"

#include <cjson/cJSON.h>

static const char *const path_names[] = {"gds", "cpu", NULL};
enum { PATH_GDS, PATH_CPU };

struct ckpt_conf {
    struct scn_hostset gpus, storage;
    int64_t size;
    int path;
};

/* No GPU writes to itself; a byte per GPU at least. */
static int check_ckpt(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct ckpt_conf *e = base;
    char p[SETTING_PATH_MAX], a[32];
    (void)obj;
    for (int i = 0; i < e->gpus.n; i++)
        for (int k = 0; k < e->storage.n; k++)
            if (e->gpus.idx[i] == e->storage.idx[k])
                return setting_bad(c, setting_join(p, path, "storage"), "expected storage hosts that are not among "
                                   "the gpus, got \"%s\"", scn_host_name(scn_loading(c), e->storage.idx[k]));
    if (e->size < e->gpus.n)
        return setting_bad(c, setting_join(p, path, "size"), "expected a size of at least %dB (one byte per GPU), "
                           "got \"%s\"", e->gpus.n, units_fmt_size(e->size, a, sizeof a));
    return 0;
}

static const struct setting ckpt_fields[] = {
    {.name = "gpus", .kind = SETTING_CUSTOM, .offset = offsetof(struct ckpt_conf, gpus), .flags = SETTING_REQUIRED,
     .lo = 1, .what = "a host selector like \"n0.g0-n0.g7\"", .help = "The GPUs that write, each its shard",
     .parse = scn_parse_hostset, .dump = scn_dump_hostset},
    {.name = "storage", .kind = SETTING_CUSTOM, .offset = offsetof(struct ckpt_conf, storage),
     .flags = SETTING_REQUIRED, .lo = 1, .what = "a host selector like \"stor0-stor3\"",
     .help = "The storage servers; GPU j writes to the (j mod count)-th", .parse = scn_parse_hostset,
     .dump = scn_dump_hostset},
    {SET_FIELD("size", SETTING_SIZE, struct ckpt_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "The whole checkpoint's bytes, split evenly over the GPUs"), .what = "a size like \"8GB\""},
    {SET_ENUM("path", struct ckpt_conf, path, path_names, "gds", "\"gds\": the NIC reads GPU memory (GPUDirect "
              "Storage); \"cpu\": through the memory of the NIC's socket")},
    {SET_CHECK(check_ckpt)},
    {0},
};

static const struct setting_group ckpt_group = {
    .path = "traffic.checkpoint", .size = sizeof(struct ckpt_conf), .per_entry = true, .fields = ckpt_fields,
};

static const struct ckpt_conf *conf_of(const struct coll *c)
{
    return TRAFFIC_CONF(&c->t->net->scn->traffic[c->entry], struct ckpt_conf);
}


/* Flow j: GPU j's shard to storage server j mod S, tagged j. */
static void ckpt_place(const struct coll *c, uint32_t j, struct coll_place *out)
{
    const struct ckpt_conf *cc = conf_of(c);
    *out = (struct coll_place){.src = (uint32_t)cc->gpus.idx[j], .dst = (uint32_t)cc->storage.idx[j % (uint32_t)
                               cc->storage.n], .tag = j, .bytes = coll_share(cc->size, c->n_flows, j)};
}

static void ckpt_start(struct sim *s, void *obj, uint64_t arg)
{
    struct coll *c = obj;
    (void)arg;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    c->start = s->now;
    for (uint32_t j = 0; j < c->n_flows; j++)
        coll_send(c, j);
}

/* A shard is written when the storage server holds all its bytes. */
static void shard_received(struct net *n, struct flow *f)
{
    coll_part(coll_of(f), net_sim(n)->now);
}

/* The writer's last ACK lets nothing else go. */
static void shard_acked(struct net *n, struct flow *f)
{
    (void)n, (void)f;
}

static const struct flow_owner_ops ckpt_owner = {.received = shard_received, .acked = shard_acked};

/* summary.json: the path and the rates (GB/s: bytes per ns), null until complete. */
static void ckpt_summary(const struct coll *c, cJSON *o)
{
    const struct ckpt_conf *cc = conf_of(c);
    const struct net *n = c->t->net;
    cJSON_AddStringToObject(o, "path", path_names[cc->path]);
    cJSON_AddNumberToObject(o, "storage_servers", cc->storage.n);
    double sum = 0, slowest = 0;
    uint32_t done = 0;
    for (uint32_t j = 0; j < c->n_flows; j++) {
        const struct flow *f = net_flow(n, c->base + j);
        if (!net_flow_made(f) || f->finish < 0 || f->finish <= f->start)
            continue;
        double gbps = (double)f->size / units_ps_to_ns(f->finish - f->start);
        sum += gbps;
        slowest = done++ ? (gbps < slowest ? gbps : slowest) : gbps;
    }
    if (c->finish > c->start && done == c->n_flows) {
        cJSON_AddNumberToObject(o, "GBps", coll_algbw(c));
        cJSON_AddNumberToObject(o, "GBps_per_gpu", sum / done);
        cJSON_AddNumberToObject(o, "GBps_per_gpu_min", slowest);
    } else {
        cJSON_AddNullToObject(o, "GBps");
        cJSON_AddNullToObject(o, "GBps_per_gpu");
        cJSON_AddNullToObject(o, "GBps_per_gpu_min");
    }
}

/* A "cpu" checkpoint needs GPUs inside servers: another host has no socket memory to pass. */
static int check_senders(const struct net *n, int ti, const struct ckpt_conf *cc, char *err, size_t errlen)
{
    for (int i = 0; cc->path == PATH_CPU && i < cc->gpus.n; i++)
        if (!n->g->nodes[n->g->host_node[cc->gpus.idx[i]]].mem_via) {
            snprintf(err, errlen, "%s: traffic.%d.gpus: expected GPUs inside servers (topology.server) for path "
                     "\"cpu\", got \"%s\"", n->scn->file, ti, scn_host_name(n->scn, cc->gpus.idx[i]));
            return SCN_EUSAGE;
        }
    return 0;
}

static int ckpt_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[ti];
    const struct ckpt_conf *cc = TRAFFIC_CONF(e, struct ckpt_conf);
    int rc = check_senders(n, ti, cc, err, errlen);
    if (rc)
        return rc;
    struct coll *c = coll_add(t, ti);
    c->owner.ops = &ckpt_owner;
    c->place = ckpt_place;
    c->summary = ckpt_summary;
    c->size = cc->size;
    c->n_ranks = c->total_ranks = (uint32_t)cc->gpus.n;
    c->rings = 1;
    c->steps = 1;
    c->n_flows = c->parts = (uint32_t)cc->gpus.n;
    coll_schedule(c, ckpt_start);
    gdr_choose(n, c->base, c->n_flows, cc->path == PATH_CPU ? GDR_CPU : GDR_DIRECT);
    return 0;
}

static void ckpt_release(struct traffic *t, int ti)
{
    (void)t, (void)ti;
}

static long ckpt_numbered(const struct scn_traffic *e)
{
    return TRAFFIC_CONF(e, struct ckpt_conf)->gpus.n;
}

static void ckpt_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                       struct traffic_count *out)
{
    (void)host_rate, (void)t;
    *out = (struct traffic_count){.made = TRAFFIC_CONF(&s->traffic[ti], struct ckpt_conf)->gpus.n};
}

static int ckpt_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct ckpt_conf *cc = TRAFFIC_CONF(e, struct ckpt_conf);
    *hosts = cc->gpus.idx;
    return cc->gpus.n;
}

static const struct traffic_ops ckpt_ops = {
    .scn = {.numbered = ckpt_numbered},
    .setup = ckpt_setup,
    .release = ckpt_release,
    .count = ckpt_count,
    .senders = ckpt_senders,
    .role = TRAFFIC_STORAGE,
};

MODULE_REGISTER(traffic_kind, "checkpoint", &ckpt_ops, &ckpt_group);
