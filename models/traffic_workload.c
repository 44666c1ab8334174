/*
 * traffic_workload — the kind "workload": training iterations read from a workload file, each layer's compute a
 * delay per rank and its collectives run as traffic_nccl.c's ring schedules over the groups of the ranks.  A host
 * is one rank (a GPU and its NIC), the hosts selector gives them in rank order.
 *
 * Format "simai": the workload text files of Alibaba's AICB and SimAI (github.com/aliyun/SimAI: example/
 * microAllReduce.txt and the reader Workload::initialize_workload in astra-sim-alibabacloud/astra-sim/workload/
 * Workload.cc; facts only, no code of theirs is used):
 *   line 1: the parallelism policy (HYBRID_TRANSFORMER or HYBRID_TRANSFORMER_FWD_IN_BCKWD here), then "key: value"
 *           pairs: model_parallel_NPU_group (the tensor-parallel size), ep, pp, vpp, ga, all_gpus, ...
 *   line 2: the number of layers;
 *   a line per layer: name, dependency, forward compute, forward collective and its size, input-gradient compute,
 *           collective and size, weight-gradient compute, collective and size, weight-update compute.
 * Compute times are SimAI's ticks, nanoseconds; sizes bytes as nccl-tests counts them.  A collective is NONE,
 * ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL; the forward and input-gradient ones run over the tensor-
 * parallel group, the weight-gradient one over the data-parallel group, and a _EP suffix puts one on the
 * expert-parallel group, _DP_EP on the expert-data-parallel group (as SimAI's reader assigns them); other names
 * (ALLREDUCEALLTOALL ...) are refused (exit 2, naming the file and line).
 *
 * Groups: Megatron-Core's default order of ranks, "tp-cp-ep-dp-pp" (initialize_model_parallel in
 * megatron/core/parallel_state.py): tensor-parallel innermost, then expert, data and pipeline parallel; DP =
 * all_gpus / (TP x PP) as SimAI's Layer::report computes it.
 *
 * Pipeline stages (pp above 1): SimAI itself adds their time analytically (Layer::report's Expose_PP_time and
 * bubble); here they run.  AICB writes one stage's layers (num_layers / pp) repeated ga times, one block per
 * micro-batch (SimAI_training_workload_generator.py: workload_generate_aiob, and pp_comm = 2 x micro-batch x
 * sequence x hidden bytes in dump_file), so the lines are ga blocks of L / ga; every stage runs the file, in
 * GPipe's schedule as SimAI's loop runs the lines: all forward blocks, then all backward blocks in reverse.  A
 * stage's first forward compute of micro-batch m waits for its activation from the stage before, its first
 * backward compute of m for its gradient from the stage after; at the end of each it sends pp_comm bytes on (one
 * flow, the sender not waiting for it).  vpp is ignored (AICB writes the number of layers there).
 *
 * An iteration is the forward pass over the layers in order (compute, then its
 * collective), then the backward pass in reverse order (input-gradient compute and collective, weight-gradient
 * compute and collective, the weight update).  Without overlap a rank's next compute starts when its part of the
 * collective (its sends acknowledged, its receipts in) is done.  With overlap, as SimAI's
 * Workload::iterate_hybrid_parallel_Transformer runs an iteration (same file): the forward and input-gradient
 * collectives block (CollectiveBarrier::Blocking), the weight-gradient one does not (Non_Blocking, FIFO): the
 * rank goes on to the backward compute of the layers before it while it runs, a communicator's collectives run
 * one after another in the order issued (as NCCL runs them on one stream), the layer's wg_update is a delay
 * after its end (SimAI's Layer::call adds weight_grad_update_time to the collective's finish), and the layer's
 * next forward compute waits for both (Workload's is_weight_grad_comm_finished_blocking).  So with compute C per
 * phase and a weight-gradient collective of T < 2C only the first layer's, the last issued, is exposed.  A rank's
 * sends in a collective wait for its own compute; a peer may send to it earlier (NCCL's receiver would have to
 * launch its kernel first).
 */
#include "models/nic.h"
#include "models/workload.h"
#include "sim/file.h"
#include "models/ranks.h"
#include "sim/mem.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = {"simai", "chakra", NULL};

/* One phase of a layer as the file gives it: compute before it (ps), its collective (-1: none), bytes and
 * group (0: tensor, 1: data); update_ps on a weight-gradient phase, the layer's weight update (update marks the
 * phase that computes it without overlap). */
struct wl_phase {
    int64_t compute_ps, bytes;
    int kind, group;
    int64_t update_ps;
    bool update, wg;
};

enum { G_TP, G_DP, G_EP, G_DP_EP };

/* The file, read: phases in the order an iteration runs them. */
struct wl_file {
    int tp, gpus, layers;
    int pp, ep, ga;             /* stages, expert-parallel size, micro-batches */
    int64_t pp_bytes;           /* what a stage sends the next per micro-batch (and the gradient back) */
    struct wl_phase *ph;
    int n;
};

/* A step of the whole schedule: traffic_nccl.c's, in global ranks, with its collective instance and its ends'
 * places among the instance's members (kept so that no flow's end searches the group). */
struct wl_step {
    struct nccl_step s;
    uint32_t inst;
    uint32_t src_m, dst_m;
    uint32_t qp;            /* its connection's queue pair in wl_state.qps (NO_STEP: none, a pipeline send) */
};

/* One collective over one group in one phase of one iteration: its steps, members, what each has left. */
struct wl_inst {
    uint32_t step0, n_steps, slot;
    uint32_t *member;      /* global ranks */
    uint32_t *left;        /* per member: its parts not yet done */
    uint32_t m;
    /* The steps member i sends, in step order: by_src[first[i] .. first[i + 1]) (first has m + 1 entries, then
     * by_src n_steps), so that a member's compute releases its sends without a scan of the instance. */
    uint32_t *first, *by_src;
};

/* What a run keeps (t->state[ti]). */
struct wl_state {
    struct coll *c;
    struct wl_file f;
    uint32_t N, iters, slots;   /* slots: phases of the run (iterations x phases) */
    struct wl_inst *inst;
    struct nic_qp *qps;         /* the collectives' connections (wl_step.qp) */
    uint32_t *inst_of;          /* [rank * slots + slot] -> instance (NO_STEP: no collective) */
    uint32_t *member_of;        /* [rank * slots + slot] -> the rank's place among that instance's members */
    uint32_t *pos;              /* per rank: its slot now */
    sim_time_t *slot_start, *slot_end;  /* per slot, over its groups */
    sim_time_t *iter_end;       /* per (rank, iteration) */
    int64_t compute_iter_ps;    /* a rank's compute per iteration */
    /* With overlap: per (rank, slot) the end of the rank's part of a weight-gradient collective plus the update
     * (-1: not yet); per rank its weight-gradient collectives computed, started and finished (NCCL runs a
     * communicator's collectives in issue order), and whether its next forward compute waits for one. */
    bool overlap;
    /* The timeline: per rank its rows, and the start of its open blocking and weight-gradient collectives. */
    struct tl_rank *tl;
    sim_time_t *coll0, *wg0;
    /* With pipeline stages: the first pipeline step, ranks per stage, and per (rank, iteration, direction,
     * micro-batch) whether the activation (0) or gradient (1) the rank waits for is in. */
    uint32_t pp0, S;
    uint8_t *pp_in;
    sim_time_t *wg_end;
    uint32_t *wg_comp, *wg_run, *wg_fin;
    uint8_t *waiting;
};

/* A collective's name: its kind (-1 NONE, -2 unknown) and in *group the group its suffix names (_EP: the
 * expert-parallel group, _DP_EP: the expert-data-parallel group), unchanged without one. */
static int wl_kind(const char *s, int *group)
{
    static const char *const simai[WL_KINDS] = {"ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL"};
    if (!strcmp(s, "NONE"))
        return -1;
    for (int k = 0; k < WL_KINDS; k++) {
        size_t n = strlen(simai[k]);
        if (strncmp(s, simai[k], n))
            continue;
        if (!strcmp(s + n, "_EP"))
            *group = G_EP;
        else if (!strcmp(s + n, "_DP_EP"))
            *group = G_DP_EP;
        else if (s[n])
            return -2;
        return k;
    }
    return -2;
}

/* A header's counts of GPUs (all, tensor-parallel, stages, expert-parallel) are at most this, far above any cluster;
 * a product of two is taken in 64 bits. */
#define WL_COUNT_MAX 1000000
/* Compute times are ns and become ps: at most the clock's end (sim.h, SIM_TIME_LIMIT), so that none wraps. */
#define WL_TIME_MAX_NS (SIM_TIME_LIMIT / 1000)

/* The header's value of key ("pp:"), a whole word (not vpp:'s tail), 1 when absent. */
static long header_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key))
        if (p > line && p[-1] == ' ')
            return strtol(p + k, NULL, 10);
    return 1;
}

static int wl_header(const char *path, const char *l, struct wl_file *f, char *err, size_t errlen)
{
    char policy[64] = "";
    sscanf(l, "%63s", policy);
    if (strcmp(policy, "HYBRID_TRANSFORMER") && strcmp(policy, "HYBRID_TRANSFORMER_FWD_IN_BCKWD"))
        return snprintf(err, errlen, "%.400s:1: expected the policy HYBRID_TRANSFORMER or HYBRID_TRANSFORMER_FWD_IN_"
                        "BCKWD (others are not supported), got \"%.40s\"", path, policy), -1;
    long tp = header_value(l, "model_parallel_NPU_group:"), pp = header_value(l, "pp:"), ep = header_value(l, "ep:");
    long gpus = strstr(l, " all_gpus:") ? header_value(l, "all_gpus:") : 0, ga = header_value(l, "ga:");
    /* counts of GPUs: bounded before any product of two is taken, so that none wraps */
    if (tp < 1 || tp > WL_COUNT_MAX || pp < 1 || pp > WL_COUNT_MAX || gpus < 1 || gpus > WL_COUNT_MAX ||
        ep < 1 || ep > WL_COUNT_MAX)
        return snprintf(err, errlen, "%.400s:1: expected all_gpus:, model_parallel_NPU_group:, pp: and ep: of 1 to %d, "
                        "got %ld, %ld, %ld and %ld", path, WL_COUNT_MAX, gpus, tp, pp, ep), -1;
    f->tp = (int)tp;
    f->gpus = (int)gpus;
    f->pp = (int)pp;
    f->ep = (int)ep;
    f->pp_bytes = strstr(l, " pp_comm:") ? header_value(l, "pp_comm:") : 0;
    if (f->gpus % ((long long)f->tp * f->pp))
        return snprintf(err, errlen, "%.400s:1: expected all_gpus: N, model_parallel_NPU_group: T and pp: P with T x P "
                        "dividing N, got %d, %d and %d", path, f->gpus, f->tp, f->pp), -1;
    int dp = (int)(f->gpus / ((long long)f->tp * f->pp));
    if (dp % f->ep)
        return snprintf(err, errlen, "%.400s:1: expected ep: E dividing the data-parallel size %d (all_gpus / (T x P)), "
                        "got %d", path, dp, f->ep), -1;
    if (ga < 1 || ga > 100000 || f->pp_bytes < 0 || (f->pp > 1 && f->pp_bytes == 0))
        return snprintf(err, errlen, "%.400s:1: expected ga: 1 to 100000 and, with pp: above 1, pp_comm: bytes above 0, "
                        "got ga: %ld and pp_comm: %lld", path, ga, (long long)f->pp_bytes), -1;
    f->ga = (int)ga;
    return 0;
}

/* One layer's line into its phases: forward at fwd[0], backward (input and weight gradient) at bwd[0..1]. */
static int wl_layer(const char *path, int line, const char *l, struct wl_phase *fwd, struct wl_phase *bwd,
                    char *err, size_t errlen)
{
    char name[128], t[3][32];
    long dep;
    long long comp[3], size[3], upd;
    if (sscanf(l, "%127s %ld %lld %31s %lld %lld %31s %lld %lld %31s %lld %lld", name, &dep, &comp[0], t[0],
               &size[0], &comp[1], t[1], &size[1], &comp[2], t[2], &size[2], &upd) != 12)
        return snprintf(err, errlen, "%.400s:%d: expected \"name dependency fwd_compute fwd_comm fwd_size ig_compute "
                        "ig_comm ig_size wg_compute wg_comm wg_size wg_update\", got \"%.60s\"", path, line, l), -1;
    struct wl_phase *ph[3] = {fwd, &bwd[0], &bwd[1]};
    for (int i = 0; i < 3; i++) {
        int g = i < 2 ? G_TP : G_DP, k = wl_kind(t[i], &g);
        if (k == -2)
            return snprintf(err, errlen, "%.400s:%d: expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, "
                            "alone or with _EP or _DP_EP, got \"%.31s\"", path, line, t[i]), -1;
        if (comp[i] < 0 || size[i] < 0 || upd < 0)
            return snprintf(err, errlen, "%.400s:%d: expected times and sizes of at least 0", path, line), -1;
        if (comp[i] > WL_TIME_MAX_NS || upd > WL_TIME_MAX_NS)
            return snprintf(err, errlen, "%.400s:%d: expected compute times of at most %lld ns (where rocesim's clock "
                            "ends), got %lld", path, line, (long long)WL_TIME_MAX_NS,
                            comp[i] > WL_TIME_MAX_NS ? comp[i] : upd), -1;
        *ph[i] = (struct wl_phase){comp[i] * 1000, size[i], size[i] > 0 ? k : -1, g, 0, false, i == 2};
    }
    /* the weight update: compute after the weight-gradient collective, or with overlap a delay after it */
    bwd[1].update_ps = upd * 1000;
    bwd[2] = (struct wl_phase){upd * 1000, 0, -1, G_TP, 0, true, false};
    return 0;
}

/* Reads f from text of the file at path.  0, or -1 with "PATH:LINE: expected ..." in err. */
static int wl_parse_lines(const char *path, char *text, struct wl_file *f, char *err, size_t errlen)
{
    char *save = NULL, *l = strtok_r(text, "\n", &save);
    if (!l || wl_header(path, l, f, err, errlen))
        return l ? -1 : (snprintf(err, errlen, "%.400s:1: expected the header line, got an empty file", path), -1);
    l = strtok_r(NULL, "\n", &save);
    char *end;
    long layers = l ? strtol(l, &end, 10) : 0;
    if (!l || layers < 1 || layers > 100000 || (*end && *end != ' ' && *end != '\r'))
        return snprintf(err, errlen, "%.400s:2: expected the number of layers (1 to 100000)", path), -1;
    if (f->pp > 1 && layers % f->ga)
        return snprintf(err, errlen, "%.400s:2: expected a number of layers that ga: %d divides (with pp: above 1 the "
                        "lines are ga micro-batches' forward passes, one after the other), got %ld", path, f->ga,
                        layers), -1;
    f->layers = (int)layers;
    f->n = 4 * (int)layers;
    f->ph = mem_xcalloc((size_t)f->n, sizeof *f->ph, TRAFFIC_OOM);
    for (long i = 0; i < layers; i++) {
        l = strtok_r(NULL, "\n", &save);
        if (!l)
            return snprintf(err, errlen, "%.400s:%ld: expected %ld layer lines, got %ld", path, 3 + i, layers, i), -1;
        /* forward phases first in layer order, backward ones after in reverse order */
        if (wl_layer(path, (int)(3 + i), l, &f->ph[i], &f->ph[layers + 3 * (layers - 1 - i)], err, errlen))
            return -1;
    }
    return 0;
}

/* wl_parse_lines, its message made one printable line: it quotes the file's text (scn_one_line). */
static int wl_parse(const char *path, char *text, struct wl_file *f, char *err, size_t errlen)
{
    int rc = wl_parse_lines(path, text, f, err, errlen);
    if (rc && errlen)
        scn_one_line(err);
    return rc;
}

int wl_simai_read(const char *path, char *text, int *gpus, int *layers, char *err, size_t errlen)
{
    struct wl_file f = {0};
    int rc = wl_parse(path, text, &f, err, errlen);
    *gpus = f.gpus;
    *layers = f.layers;
    free(f.ph);
    return rc;
}

/* The workload file of entry ti, read.  0, or SCN_EUSAGE with its message in err. */
static int wl_load(const struct scenario *s, int ti, struct wl_file *f, char *err, size_t errlen)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    char path[PATH_MAX + 300], ferr[512], *text = NULL;
    wl_path(s, wc, -1, path, sizeof path);
    *f = (struct wl_file){0};
    if (file_read(path, FILE_TEXT, &text, NULL, ferr, sizeof ferr))
        return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, ferr), SCN_EUSAGE;
    char perr[1024];
    int rc = wl_parse(path, text, f, perr, sizeof perr);
    free(text);
    if (!rc && f->gpus != wc->hosts.n)
        rc = -1, snprintf(perr, sizeof perr, "%.400s:1: expected all_gpus: %d (the hosts of the entry), got %d",
                          path, wc->hosts.n, f->gpus);
    if (rc) {
        free(f->ph);
        f->ph = NULL;
        return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, perr), SCN_EUSAGE;
    }
    return 0;
}

/* The members of group g of rank r into out; their number.  Megatron-Core's default order of ranks, tensor-
 * parallel innermost, then expert, data and pipeline parallel ("tp-cp-ep-dp-pp"): within a stage of S = TP x DP
 * ranks, rank r has tensor index r mod TP and data index (r mod S) / TP; its expert group is the E ranks of its
 * tensor index whose data indices share a block of E, its expert-data group those E apart. */
static uint32_t group_of(const struct wl_file *f, int g, uint32_t r, uint32_t *out)
{
    uint32_t tp = (uint32_t)f->tp, S = (uint32_t)f->gpus / (uint32_t)f->pp, dp = S / tp, E = (uint32_t)f->ep;
    uint32_t base = r / S * S, t = r % tp, d = r % S / tp;
    uint32_t n = g == G_TP ? tp : g == G_DP ? dp : g == G_EP ? E : dp / E;
    for (uint32_t i = 0; i < n; i++)
        out[i] = g == G_TP   ? base + d * tp + i
                 : g == G_DP ? base + t + i * tp
                 : g == G_EP ? base + t + (d / E * E + i) * tp
                             : base + t + (d % E + i * E) * tp;
    return n;
}

/* Instance in of steps step0.. (k of them, tmp in member places) over the m members mem: what each member has left
 * to do (its sends and receipts) and the steps each sends, in step order (a counting sort by sender). */
static void inst_init(struct wl_inst *in, uint32_t step0, uint32_t k, uint32_t slot, const uint32_t *mem, uint32_t m,
                      const struct nccl_step *tmp)
{
    *in = (struct wl_inst){step0, k, slot, mem_xcalloc(m, sizeof(uint32_t), TRAFFIC_OOM),
                           mem_xcalloc(m, sizeof(uint32_t), TRAFFIC_OOM), m,
                           mem_xcalloc(m + 1, sizeof(uint32_t), TRAFFIC_OOM),
                           mem_xcalloc(k ? k : 1, sizeof(uint32_t), TRAFFIC_OOM)};
    memcpy(in->member, mem, m * sizeof *mem);
    for (uint32_t j = 0; j < k; j++) {
        in->left[tmp[j].src]++;
        in->left[tmp[j].dst]++;
        in->first[tmp[j].src + 1]++;
    }
    for (uint32_t i = 0; i < m; i++)
        in->first[i + 1] += in->first[i];
    uint32_t *at = mem_xcalloc(m, sizeof *at, TRAFFIC_OOM);
    for (uint32_t j = 0; j < k; j++)
        in->by_src[in->first[tmp[j].src] + at[tmp[j].src]++] = step0 + j;
    free(at);
}

/* The pipeline's transfers after the collectives' n steps (out NULL: only counted): per iteration, direction
 * (activations to the next stage, gradients to the one before), micro-batch and sending rank, one flow. */
static uint32_t wl_build_pp(const struct workload_conf *wc, const struct wl_file *f, struct wl_step *out,
                            struct wl_state *w, uint32_t n)
{
    uint32_t N = (uint32_t)f->gpus, S = N / (uint32_t)f->pp, k = 0;
    if (f->pp < 2)
        return n;
    uint64_t total = (uint64_t)wc->iterations * 2 * (uint64_t)f->ga * (N - S);
    if (n + total > WL_MAX_FLOWS)
        return WL_MAX_FLOWS + 1;
    if (w)
        w->pp0 = n;
    for (int it = 0; it < wc->iterations && out; it++)
        for (uint32_t dir = 0; dir < 2; dir++)
            for (int m = 0; m < f->ga; m++)
                for (uint32_t j = 0; j < N - S; j++, k++) {
                    uint32_t src = dir ? j + S : j, dst = dir ? j : j + S;
                    out[n + k] = (struct wl_step){{src, dst, f->pp_bytes, {NO_STEP, NO_STEP, NO_STEP}, NO_STEP, 1}, NO_STEP, 0, 1,
                                                  NO_STEP};
                }
    return n + (uint32_t)total;
}

/* The steps of every collective of the run (out NULL: only counted) and, with w, its instances; the queue pairs
 * of their connections, one set per collective, in *conns. */
static uint32_t wl_build(const struct workload_conf *wc, const struct wl_file *f, struct wl_step *out,
                         struct wl_state *w, uint32_t *conns)
{
    uint32_t N = (uint32_t)f->gpus, n = 0, ni = 0, *mem = mem_xcalloc(N, sizeof *mem, TRAFFIC_OOM), qp0 = 0;
    *conns = 0;
    for (int it = 0; it < wc->iterations; it++)
        for (int p = 0; p < f->n; p++) {
            const struct wl_phase *ph = &f->ph[p];
            uint32_t slot = (uint32_t)(it * f->n + p);
            for (uint32_t r = 0; r < N && ph->kind >= 0; r++) {
                uint32_t m = group_of(f, ph->group, r, mem);
                if (m < 2 || mem[0] != r)
                    continue; /* a group of one rank has nothing to send; a group is built at its first rank */
                uint32_t nc, k = nccl_ring_build(wl_kind_op[ph->kind], m, ph->bytes, wc->channels, wc->chunk, NULL,
                                                 NULL, &nc);
                if (n + (uint64_t)k > WL_MAX_FLOWS) {
                    free(mem);
                    return WL_MAX_FLOWS + 1;
                }
                if (out) {
                    struct nccl_step *tmp = mem_xcalloc(k, sizeof *tmp, TRAFFIC_OOM);
                    uint32_t *conn = mem_xcalloc(k, sizeof *conn, TRAFFIC_OOM);
                    nccl_ring_build(wl_kind_op[ph->kind], m, ph->bytes, wc->channels, wc->chunk, tmp, conn, NULL);
                    struct wl_inst *in = &w->inst[ni];
                    inst_init(in, n, k, slot, mem, m, tmp);
                    for (uint32_t j = 0; j < k; j++) {
                        struct nccl_step s = tmp[j];
                        s.src = mem[s.src], s.dst = mem[s.dst];
                        for (int q = 0; q < NCCL_WAITERS; q++)
                            s.on_recv[q] = s.on_recv[q] == NO_STEP ? NO_STEP : n + s.on_recv[q];
                        s.on_ack = s.on_ack == NO_STEP ? NO_STEP : n + s.on_ack;
                        s.need++; /* its sender's compute */
                        out[n + j] = (struct wl_step){s, ni, tmp[j].src, tmp[j].dst, qp0 + conn[j]};
                    }
                    free(tmp);
                    free(conn);
                    for (uint32_t i = 0; i < m; i++) {
                        w->inst_of[mem[i] * w->slots + slot] = ni;
                        w->member_of[mem[i] * w->slots + slot] = i;
                    }
                }
                n += k, ni++, qp0 += nc;
            }
        }
    free(mem);
    *conns = qp0;
    return wl_build_pp(wc, f, out, w, n);
}

static void rank_next(struct wl_state *w, uint32_t r, sim_time_t now);
static void rank_start(struct wl_state *w, uint32_t r, sim_time_t now);

static void step_ready(struct coll *c, uint32_t k)
{
    struct wl_step *s = (struct wl_step *)c->sched + k;
    wl_step_ready(c, k, &s->s.need, s->qp, ((struct wl_state *)c->t->state[c->entry])->qps);
}

/* The slot of rank r's k-th weight-gradient collective: layer L - 1 - k % L's in iteration k / L. */
static uint32_t wg_slot(const struct wl_state *w, uint32_t k)
{
    uint32_t L = (uint32_t)w->f.layers;
    return k / L * (uint32_t)w->f.n + L + 3 * (k % L) + 1;
}

/* Releases rank r's own sends of instance i (r its member mi). */
static void release_sends(struct wl_state *w, uint32_t i, uint32_t mi)
{
    const struct wl_inst *in = &w->inst[i];
    for (uint32_t k = in->first[mi]; k < in->first[mi + 1]; k++)
        step_ready(w->c, in->by_src[k]);
}

static void wg_finish(struct wl_state *w, uint32_t r, uint32_t slot, sim_time_t now);

/* Rank r starts its next weight-gradient collective when it has computed it and the one before is done. */
static void wg_try(struct wl_state *w, uint32_t r, sim_time_t now)
{
    while (w->wg_run[r] == w->wg_fin[r] && w->wg_run[r] < w->wg_comp[r]) {
        uint32_t slot = wg_slot(w, w->wg_run[r]++), i = w->inst_of[r * w->slots + slot];
        if (i == NO_STEP) {
            wg_finish(w, r, slot, now);
            return;
        }
        wl_time_min(&w->slot_start[slot], now);
        w->wg0[r] = now;
        release_sends(w, i, w->member_of[r * w->slots + slot]);
    }
}

/* The end of a rank's run (an event of its host). */
static void rank_finish(struct sim *sim, void *obj, uint64_t r)
{
    struct wl_state *w = obj;
    (void)r;
    coll_part(w->c, sim->now);
}

/* With overlap, rank r is past its last slot: it ends when its last weight-gradient collective and update do. */
static void rank_end_overlap(struct wl_state *w, uint32_t r, sim_time_t now)
{
    if (w->pos[r] != w->slots || w->wg_fin[r] != w->iters * (uint32_t)w->f.layers)
        return;
    sim_time_t t = w->wg_end[r * w->slots + wg_slot(w, w->wg_fin[r] - 1)];
    struct net *n = w->c->t->net;
    sim_at_to(net_sim(n), t > now ? t : now, net_host_ent(n, w->c->host[r]), rank_finish, w, r);
}

/* Rank r's part of the weight-gradient collective of slot is done now: its update follows, the forward compute
 * waiting for it may start, and its next weight-gradient collective. */
static void wg_finish(struct wl_state *w, uint32_t r, uint32_t slot, sim_time_t now)
{
    uint32_t per = (uint32_t)w->f.n;
    sim_time_t t = now + w->f.ph[slot % per].update_ps, *ie = &w->iter_end[r * w->iters + slot / per];
    w->wg_end[r * w->slots + slot] = t;
    w->wg_fin[r]++;
    *ie = t > *ie ? t : *ie;
    if (w->waiting[r]) {
        w->waiting[r] = 0;
        rank_start(w, r, now);
    }
    wg_try(w, r, now);
    rank_end_overlap(w, r, now);
}

/* One of rank r's parts of instance i (r its member mi) is done (in r's partition): its last moves it on. */
static void rank_part(struct wl_state *w, uint32_t i, uint32_t mi, uint32_t r, sim_time_t now)
{
    struct wl_inst *in = &w->inst[i];
    if (--in->left[mi] > 0)
        return;
    wl_time_max(&w->slot_end[in->slot], now);
    if (w->overlap && w->f.ph[in->slot % (uint32_t)w->f.n].wg) {
        tl_add(&w->tl[r], w->f.ph[in->slot % (uint32_t)w->f.n].kind + 1, w->wg0[r], now);
        wg_finish(w, r, in->slot, now);
        return;
    }
    tl_add(&w->tl[r], w->f.ph[in->slot % (uint32_t)w->f.n].kind + 1, w->coll0[r], now);
    w->pos[r]++;
    rank_next(w, r, now);
}

/* Rank r's compute before its slot is over (an event of its host): its collective's sends may go; with overlap
 * a weight-gradient collective goes on beside the rank's next compute. */
static void rank_ready(struct sim *sim, void *obj, uint64_t r)
{
    struct wl_state *w = obj;
    uint32_t slot = w->pos[r], i = w->inst_of[r * w->slots + slot];
    if (w->overlap && w->f.ph[slot % (uint32_t)w->f.n].wg) {
        w->wg_comp[r]++;
        wg_try(w, (uint32_t)r, sim->now);
        w->pos[r]++;
        rank_next(w, (uint32_t)r, sim->now);
        return;
    }
    if (i == NO_STEP) {
        w->pos[r]++;
        rank_next(w, (uint32_t)r, sim->now);
        return;
    }
    wl_time_min(&w->slot_start[slot], sim->now);
    w->coll0[r] = sim->now;
    release_sends(w, i, w->member_of[r * w->slots + slot]);
}

/* With overlap, the start of the forward compute of slot at rank r: after the layer's weight-gradient collective
 * and update of the iteration before (as SimAI's forward pass waits for them); -1 while that is not done. */
static sim_time_t forward_gate(const struct wl_state *w, uint32_t r, uint32_t slot, sim_time_t now)
{
    uint32_t per = (uint32_t)w->f.n, L = (uint32_t)w->f.layers, p = slot % per;
    if (!w->overlap || p >= L || slot < per)
        return now;
    sim_time_t t = w->wg_end[r * w->slots + slot - p - per + L + 3 * (L - 1 - p) + 1];
    return t < 0 ? -1 : t > now ? t : now;
}

/* Where the pipeline's micro-batch m (of b lines each) starts or ends at phase x of an iteration: forward m
 * starts at x = m b and ends at (m + 1) b; backward m starts at line (m + 1) b - 1's input gradient, x = L + 3 (L
 * - (m + 1) b), and ends after line m b's update, x = 4L - 3 m b (the next iteration's 0, given as 4L).  The
 * micro-batch, or -1. */
static int pp_fwd_start(const struct wl_file *f, uint32_t x)
{
    uint32_t L = (uint32_t)f->layers, b = L / (uint32_t)f->ga;
    return x < L && x % b == 0 ? (int)(x / b) : -1;
}

static int pp_bwd_start(const struct wl_file *f, uint32_t x)
{
    uint32_t L = (uint32_t)f->layers, b = L / (uint32_t)f->ga;
    return x >= L && x < 4 * L && (x - L) % 3 == 0 && (4 * L - x) / 3 % b == 0 ? (int)((4 * L - x) / 3 / b) - 1
                                                                                 : -1;
}

/* Rank r in stage st sends what the micro-batch it finished at phase x produced (x in 1 .. 4L). */
static void pp_send(struct wl_state *w, uint32_t r, uint32_t it, uint32_t x)
{
    uint32_t L = (uint32_t)w->f.layers, b = L / (uint32_t)w->f.ga, st = r / w->S, last = (uint32_t)w->f.pp - 1;
    uint32_t per_dir = (uint32_t)w->f.ga * (w->N - w->S), dir, m;
    if (x <= L && x % b == 0 && st < last)
        dir = 0, m = x / b - 1;
    else if (x > L && (x - L) % 3 == 0 && (4 * L - x) / 3 % b == 0 && st > 0)
        dir = 1, m = (4 * L - x) / 3 / b;
    else
        return;
    step_ready(w->c, w->pp0 + (it * 2 + dir) * per_dir + m * (w->N - w->S) + (dir ? r - w->S : r));
}

/* The earliest start of rank r's compute of slot (at least now), or -1 while it waits: with overlap a forward
 * compute waits for the layer's weight-gradient collective of the iteration before; in a pipeline the first
 * forward compute of a micro-batch waits for its activation from the stage before, and the first backward one
 * for its gradient from the stage after. */
static sim_time_t rank_gate(const struct wl_state *w, uint32_t r, uint32_t slot, sim_time_t now)
{
    sim_time_t t = forward_gate(w, r, slot, now);
    if (t < 0 || w->f.pp < 2)
        return t;
    uint32_t per = (uint32_t)w->f.n, it = slot / per, x = slot % per, st = r / w->S;
    int mf = st > 0 ? pp_fwd_start(&w->f, x) : -1, mb = st + 1 < (uint32_t)w->f.pp ? pp_bwd_start(&w->f, x) : -1;
    size_t at = (((size_t)r * w->iters + it) * 2) * (size_t)w->f.ga;
    if ((mf >= 0 && !w->pp_in[at + (size_t)mf]) || (mb >= 0 && !w->pp_in[at + (size_t)w->f.ga + (size_t)mb]))
        return -1;
    return t;
}

/* Rank r starts its slot's compute, when what it waits for is in. */
static void rank_start(struct wl_state *w, uint32_t r, sim_time_t now)
{
    uint32_t slot = w->pos[r];
    sim_time_t start = rank_gate(w, r, slot, now);
    if (start < 0) {
        w->waiting[r] = 1;
        return;
    }
    const struct wl_phase *ph = &w->f.ph[slot % (uint32_t)w->f.n];
    struct net *n = w->c->t->net;
    int64_t dur = w->overlap && ph->update ? 0 : ph->compute_ps;
    tl_add(&w->tl[r], TL_COMPUTE, start, start + dur);
    sim_at_to(net_sim(n), start + dur, net_host_ent(n, w->c->host[r]), rank_ready, w, r);
}

/* Rank r is at a new slot now: past an iteration's last slot it records its end, at a micro-batch's end it sends
 * its result on, and it starts the slot's compute. */
static void rank_next(struct wl_state *w, uint32_t r, sim_time_t now)
{
    uint32_t slot = w->pos[r], per = (uint32_t)w->f.n;
    if (slot > 0 && slot % per == 0 && now > w->iter_end[r * w->iters + slot / per - 1])
        w->iter_end[r * w->iters + slot / per - 1] = now;
    if (w->f.pp > 1 && slot > 0)
        pp_send(w, r, (slot - 1) / per, (slot - 1) % per + 1);
    if (slot == w->slots) {
        if (w->overlap)
            rank_end_overlap(w, r, now);
        else
            coll_part(w->c, now);
        return;
    }
    rank_start(w, r, now);
}

/* A pipeline transfer's receipt at its receiver r: the compute waiting for it may start. */
static void pp_received(struct wl_state *w, uint32_t k, uint32_t r, sim_time_t now)
{
    uint32_t q = (k - w->pp0) / (w->N - w->S), ga = (uint32_t)w->f.ga;
    uint32_t it = q / (2 * ga), dir = q / ga % 2, m = q % ga;
    w->pp_in[(((size_t)r * w->iters + it) * 2 + dir) * ga + m] = 1;
    if (w->waiting[r]) {
        w->waiting[r] = 0;
        rank_start(w, r, now);
    }
}

static void wl_received(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    struct wl_state *w = c->t->state[c->entry];
    const struct wl_step *s = (const struct wl_step *)c->sched + f->owner_tag;
    for (int i = 0; i < NCCL_WAITERS && s->s.on_recv[i] != NO_STEP; i++)
        step_ready(c, s->s.on_recv[i]);
    coll_part(c, net_sim(n)->now);
    if (s->inst == NO_STEP)
        pp_received(w, f->owner_tag, s->s.dst, net_sim(n)->now);
    else
        rank_part(w, s->inst, s->dst_m, s->s.dst, net_sim(n)->now);
}

static void wl_acked(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    struct wl_state *w = c->t->state[c->entry];
    const struct wl_step *s = (const struct wl_step *)c->sched + f->owner_tag;
    if (s->s.on_ack != NO_STEP)
        step_ready(c, s->s.on_ack);
    coll_part(c, net_sim(n)->now);
    if (s->inst != NO_STEP)
        rank_part(w, s->inst, s->src_m, s->s.src, net_sim(n)->now);
}

static const struct flow_owner_ops wl_owner = {.received = wl_received, .acked = wl_acked};

static void wl_place(const struct coll *c, uint32_t j, struct coll_place *out)
{
    const struct wl_step *s = (const struct wl_step *)c->sched + j;
    *out = (struct coll_place){.src = c->host[s->s.src], .dst = c->host[s->s.dst], .tag = j, .bytes = s->s.bytes};
}

/* The start (an event of the run): every rank begins its first compute. */
static void wl_start(struct sim *s, void *obj, uint64_t arg)
{
    struct coll *c = obj;
    (void)arg;
    c->start = s->now;
    struct wl_state *w = c->t->state[c->entry];
    for (uint32_t r = 0; r < w->N; r++)
        rank_next(w, r, s->now);
}

/* summary.json: iteration times, the time each collective kind ran, and the communication not hidden. */
static void wl_summary(const struct coll *c, cJSON *o)
{
    const struct wl_state *w = c->t->state[c->entry];
    /* each kind's time, and its bytes times nccl-tests' factor for the group's size (a phase's groups run side by
     * side, each its bytes, in the phase's span) */
    double kind_ns[WL_KINDS] = {0}, bus[WL_KINDS] = {0};
    for (uint32_t s = 0; s < w->slots; s++) {
        const struct wl_phase *ph = &w->f.ph[s % (uint32_t)w->f.n];
        if (ph->kind < 0 || w->slot_start[s] < 0 || w->slot_end[s] < w->slot_start[s])
            continue;
        kind_ns[ph->kind] += units_ps_to_ns(w->slot_end[s] - w->slot_start[s]);
        uint32_t in = NO_STEP;
        for (uint32_t r = 0; r < w->N && in == NO_STEP; r++)
            in = w->inst_of[(size_t)r * w->slots + s];
        if (in != NO_STEP)
            bus[ph->kind] += (double)ph->bytes * coll_busbw_factor(wl_kind_op[ph->kind], w->inst[in].m);
    }
    cJSON_AddNumberToObject(o, "iterations", w->iters);
    cJSON_AddNumberToObject(o, "compute_per_iteration_ns", units_ps_to_ns(w->compute_iter_ps));
    cJSON *it = cJSON_AddArrayToObject(o, "iteration_ns"), *ex = cJSON_AddArrayToObject(o, "exposed_comm_ns");
    sim_time_t prev = c->start;
    for (uint32_t i = 0; i < w->iters && c->finish >= 0; i++) {
        sim_time_t end = 0;
        for (uint32_t r = 0; r < w->N; r++)
            end = w->iter_end[r * w->iters + i] > end ? w->iter_end[r * w->iters + i] : end;
        cJSON_AddItemToArray(it, cJSON_CreateNumber(units_ps_to_ns(end - prev)));
        cJSON_AddItemToArray(ex, cJSON_CreateNumber(units_ps_to_ns(end - prev - w->compute_iter_ps)));
        prev = end;
    }
    wl_kinds_json(o, kind_ns, bus);
}

static char *wl_timeline(const struct coll *c)
{
    const struct wl_state *w = c->t->state[c->entry];
    return tl_csv(w->tl, w->N);
}

static int wl_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    const struct scenario *scn = t->net->scn;
    const struct workload_conf *wc = TRAFFIC_CONF(&scn->traffic[ti], struct workload_conf);
    if (net_comm(t->net))
        return snprintf(err, errlen, "%s: traffic.%d: the kind \"workload\" does not run over MPI ranks yet",
                        scn->file, ti), SCN_EUSAGE;
    if (wc->format == WL_FORMAT_CHAKRA)
        return ck_setup(t, ti, err, errlen);
    if (*wc->comm_groups)
        return snprintf(err, errlen, "%s: traffic.%d.comm_groups: expected no communicator groups file with the format "
                        "simai (its groups follow from the file's header)", scn->file, ti), SCN_EUSAGE;
    struct wl_state *w = mem_xcalloc(1, sizeof *w, TRAFFIC_OOM);
    t->state[ti] = w;
    int rc = wl_load(scn, ti, &w->f, err, errlen);
    if (rc)
        return rc;
    uint32_t N = w->N = (uint32_t)wc->hosts.n;
    w->iters = (uint32_t)wc->iterations;
    w->slots = w->iters * (uint32_t)w->f.n;
    w->overlap = wc->overlap;
    for (int p = 0; p < w->f.n; p++)
        w->compute_iter_ps += w->overlap && w->f.ph[p].update ? 0 : w->f.ph[p].compute_ps;
    uint32_t conns, n_steps = wl_build(wc, &w->f, NULL, NULL, &conns);
    if (n_steps > WL_MAX_FLOWS)
        return snprintf(err, errlen, "%s: traffic.%d.chunk: expected a chunk that leaves at most %u flows, got more",
                        scn->file, ti, WL_MAX_FLOWS), SCN_EUSAGE;
    w->inst = mem_xcalloc((size_t)w->slots * N, sizeof *w->inst, TRAFFIC_OOM);
    w->inst_of = mem_xcalloc((size_t)w->slots * N, sizeof *w->inst_of, TRAFFIC_OOM);
    memset(w->inst_of, 0xff, (size_t)w->slots * N * sizeof *w->inst_of);
    w->member_of = mem_xcalloc((size_t)w->slots * N, sizeof *w->member_of, TRAFFIC_OOM);
    w->pos = mem_xcalloc(N, sizeof *w->pos, TRAFFIC_OOM);
    w->slot_start = mem_xcalloc(2 * (size_t)w->slots, sizeof *w->slot_start, TRAFFIC_OOM);
    w->slot_end = w->slot_start + w->slots;
    for (uint32_t s = 0; s < 2 * w->slots; s++)
        w->slot_start[s] = -1;
    w->iter_end = mem_xcalloc((size_t)N * w->iters, sizeof *w->iter_end, TRAFFIC_OOM);
    w->S = N / (uint32_t)w->f.pp;
    w->waiting = mem_xcalloc(N, 1, TRAFFIC_OOM);
    w->tl = mem_xcalloc(N, sizeof *w->tl, TRAFFIC_OOM);
    w->coll0 = mem_xcalloc(2 * (size_t)N, sizeof *w->coll0, TRAFFIC_OOM);
    w->wg0 = w->coll0 + N;
    if (w->f.pp > 1)
        w->pp_in = mem_xcalloc((size_t)N * w->iters * 2 * (size_t)w->f.ga, 1, TRAFFIC_OOM);
    if (w->overlap) {
        w->wg_end = mem_xcalloc((size_t)w->slots * N, sizeof *w->wg_end, TRAFFIC_OOM);
        for (size_t i = 0; i < (size_t)w->slots * N; i++)
            w->wg_end[i] = -1;
        w->wg_comp = mem_xcalloc(3 * (size_t)N, sizeof *w->wg_comp, TRAFFIC_OOM);
        w->wg_run = w->wg_comp + N;
        w->wg_fin = w->wg_run + N;
    }
    struct coll *c = w->c = coll_add(t, ti);
    c->owner.ops = &wl_owner;
    c->place = wl_place;
    c->summary = wl_summary;
    c->timeline = wl_timeline;
    c->n_ranks = c->total_ranks = N;
    c->host = mem_xcalloc(N, sizeof *c->host, TRAFFIC_OOM);
    for (uint32_t r = 0; r < N; r++)
        c->host[r] = (uint32_t)wc->hosts.idx[r];
    c->channels = wc->channels;
    struct wl_step *steps = mem_xcalloc_big(n_steps ? n_steps : 1, sizeof *steps, TRAFFIC_OOM);
    w->qps = mem_xcalloc(conns ? conns : 1, sizeof *w->qps, TRAFFIC_OOM);
    wl_build(wc, &w->f, steps, w, &conns);
    c->sched = steps;
    c->n_flows = n_steps;
    c->parts = 2 * n_steps + N; /* every step's receipt and last ACK, and every rank's end */
    coll_schedule(c, wl_start);
    return 0;
}

static void wl_release(struct traffic *t, int ti)
{
    struct wl_state *w = t->state[ti];
    if (!w)
        return;
    if (TRAFFIC_CONF(&t->net->scn->traffic[ti], struct workload_conf)->format == WL_FORMAT_CHAKRA) {
        ck_release(t, ti);
        return;
    }
    for (uint32_t i = 0; w->inst && i < w->slots * w->N && w->inst[i].member; i++)
        free(w->inst[i].member), free(w->inst[i].left), free(w->inst[i].first), free(w->inst[i].by_src);
    free(w->inst);
    free(w->qps);
    free(w->inst_of);
    free(w->member_of);
    free(w->pos);
    free(w->slot_start);
    free(w->iter_end);
    free(w->wg_end);
    free(w->wg_comp);
    free(w->waiting);
    free(w->pp_in);
    tl_free(w->tl, w->N);
    free(w->coll0);
    free(w->f.ph);
    free(w);
    t->state[ti] = NULL;
}

static long wl_numbered(const struct scn_traffic *e)
{
    (void)e;
    return -1;
}

/* Its steps, all reserved at set-up (the file read again before the run; set-up reports one that cannot be). */
static void wl_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                     struct traffic_count *out)
{
    (void)host_rate;
    *out = (struct traffic_count){0};
    if (t && t->state[ti]) {
        const struct coll *c = *(struct coll *const *)t->state[ti]; /* either format's state starts with it */
        out->made = c ? c->n_flows : 0;
        return;
    }
    if (TRAFFIC_CONF(&s->traffic[ti], struct workload_conf)->format == WL_FORMAT_CHAKRA) {
        out->made = ck_count(s, ti);
        return;
    }
    struct wl_file f;
    char err[SCN_ERR_MAX];
    if (wl_load(s, ti, &f, err, sizeof err))
        return;
    uint32_t conns;
    out->made = wl_build(TRAFFIC_CONF(&s->traffic[ti], struct workload_conf), &f, NULL, NULL, &conns);
    free(f.ph);
}

static int wl_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct workload_conf *wc = TRAFFIC_CONF(e, struct workload_conf);
    *hosts = wc->hosts.idx;
    return wc->hosts.n;
}

#define FILE_WHAT "the path of a workload file"
#define GROUPS_WHAT "the path of a communicator groups file"

/* A path setting (file, comm_groups) into the char[WL_PATH_MAX] at its offset. */
static int parse_path(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    char *dst = (char *)base + f->offset;
    const char *cs = NULL;
    if (setting_val_str(c, v, path, f->what, &cs) < 0)
        return -1;
    if (!*cs || strlen(cs) >= WL_PATH_MAX)
        return setting_bad(c, path, "expected a file path of at most %d characters, got \"%.60s\"", WL_PATH_MAX - 1,
                           cs);
    setting_strf(dst, WL_PATH_MAX, "%s", cs);
    return 0;
}

/* The path, or nothing for an optional one not given. */
static void dump_path(cJSON *obj, const struct setting *f, const void *base)
{
    const char *p = (const char *)base + f->offset;
    if (*p || (f->flags & SETTING_REQUIRED))
        cJSON_AddStringToObject(obj, f->name, p);
}

static const struct setting workload_fields[] = {
    {SET_INT("channels", struct workload_conf, channels, 1, 64, "2", "Parallel rings per collective")},
    {SET_FIELD("chunk", SETTING_SIZE, struct workload_conf, chunk, SETTING_POSITIVE, "512KiB",
               "Bytes per step of a collective's pipeline (one flow)"),
     .what = "a size like \"512KiB\""},
    {.name = "comm_groups", .kind = SETTING_CUSTOM, .offset = offsetof(struct workload_conf, comm_groups),
     .what = GROUPS_WHAT,
     .help = "chakra: ASTRA-sim's communicator groups file, group id to ranks (relative to the scenario file)",
     .parse = parse_path, .dump = dump_path},
    {.name = "file", .kind = SETTING_CUSTOM, .offset = offsetof(struct workload_conf, file),
     .flags = SETTING_REQUIRED, .what = FILE_WHAT,
     .help = "The workload file (relative to the scenario file); chakra: {rank} in it stands for the rank",
     .parse = parse_path, .dump = dump_path},
    {SET_ENUM("format", struct workload_conf, format, format_names, "simai",
              "simai: the text format of AICB and SimAI; chakra: MLCommons Chakra execution traces, one per rank")},
    {.name = "hosts", .kind = SETTING_CUSTOM, .offset = offsetof(struct workload_conf, hosts),
     .flags = SETTING_ALWAYS, .lo = 1, .help = "The ranks (GPUs), in rank order (absent: every host)",
     .parse = scn_parse_hostset, .dump = scn_dump_hostset},
    {SET_INT("iterations", struct workload_conf, iterations, 1, 1000, "1",
             "Training iterations to run, one after the other")},
    {SET_FIELD("overlap", SETTING_BOOL, struct workload_conf, overlap, 0, "false",
               "Weight-gradient collectives overlap the backward compute, as SimAI runs them")},
    {0},
};

static const struct setting_group workload_group = {
    .path = "traffic.workload", .size = sizeof(struct workload_conf), .per_entry = true, .fields = workload_fields,
};

static const struct traffic_ops workload_ops = {
    .scn = {.numbered = wl_numbered},
    .setup = wl_setup,
    .release = wl_release,
    .count = wl_count,
    .senders = wl_senders,
    .role = TRAFFIC_TRAINING,
    .summarizes_steps = true,
};

MODULE_REGISTER(traffic_kind, "workload", &workload_ops, &workload_group);
