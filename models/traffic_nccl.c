/*
 * traffic_nccl — the kind "nccl": one collective of NCCL (all_reduce, all_gather, reduce_scatter, broadcast,
 * all_to_all, send_recv) over a communicator of hosts, moving data as NCCL's algorithms move it, one flow per
 * step and chunk.  A host is one rank (a GPU and its NIC).
 *
 * Sources (the step structure; no code of NCCL's is used):
 * - NCCL's documentation, "Collective Operations" (docs.nvidia.com/deeplearning/nccl/user-guide): what each
 *   operation computes and its buffers; and nccl-tests' doc/PERFORMANCE.md: the sizes nccl-tests prints and the
 *   factors from algorithm bandwidth to bus bandwidth, busbw = algbw x F with F = 2(n-1)/n for all_reduce,
 *   (n-1)/n for all_gather, reduce_scatter and all_to_all, 1 for broadcast and send_recv.
 * - The ring (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC
 *   2009, as NCCL runs it): all_reduce is a reduce-scatter then an all-gather, 2(N-1) steps in which rank i sends
 *   piece (i - s) mod N of its channel's data to rank i+1; all_gather and reduce_scatter are the N-1 steps of one
 *   half; broadcast is a chain from the root.  A channel's data goes in loops of N x chunk bytes, each loop's
 *   steps after the last, so that the ring is pipelined by chunk.
 * - The tree (NCCL 2.4's double binary tree, "Massively Scale Your Deep Learning Training with NCCL 2.4", NVIDIA
 *   developer blog, 2019, after Sanders, Speck and Träff, "Two-tree algorithms for full bandwidth broadcast,
 *   reduction and scan", Parallel Computing 2009): two binary trees, each carrying half of the data, in which a
 *   node that is inner in one is a leaf in the other; over the ranks in rank order, or on GPU servers over the
 *   servers, each joined by the GPU of the channel's NIC, whose server's GPUs hang below it in a chain over NVLink
 *   (coll_trees.c says how NCCL builds both).  Per chunk, a rank sends up once it has its children's chunk (the
 *   reduction), the root sends down when it has all of its children's, and a rank sends down once it has its
 *   parent's.
 * - p2p (all_to_all, send_recv): NCCL's grouped send and receive, every pair's data in chunks at once.
 * - Flow control: NCCL keeps NCCL_STEPS (8) buffers per connection, and the connection is a queue pair whose
 *   writes the NIC sends in order.  So a connection here is a queue pair (nic.h: struct nic_qp, each step's flow
 *   posted to it, sent after the one before has left) with 8 chunks unacknowledged: the send of the ninth waits
 *   for the first's last ACK.  Each chunk then arrives after its own serialization, and the window covers the
 *   ACK round trip, so the link does not idle between chunks.  The workload kinds' collectives, built with
 *   nccl_ring_build, are the same: it numbers each step's connection for them to post to its queue pair.
 * - "auto" picks ring or tree by the α-β model NCCL's tuning uses (time = latency + size / bandwidth per
 *   algorithm, the smaller wins), each hop's α an MTU frame's time over it on the empty network and B the slowest
 *   link, as channel 0 is laid out: the ring's latency is its 2(N-1) steps' hops summed around it (2(N-1) times
 *   their mean: a queue pair per connection keeps the steps pipelined through hops of unequal times, NVLink and
 *   network), the tree's its deepest path up and down on servers, and 2d times the ring's slowest hop over ranks
 *   alone; ring 2(N-1)ᾱ + 2(N-1)/N S/B, tree (depth d, the deeper of the two trees, on servers with the chain of a
 *   server's GPUs) latency + 2d c/B + 2S/B, c what one level of the pipeline passes: a chunk (or half a channel's data
 *   when smaller) of every channel that shares the link, as each has that share of the bandwidth (NCCL's model too
 *   gives a channel its share): over ranks alone every channel shares each rank's NIC, on servers channel c leaves
 *   by NIC c mod G of G, so ceil(channels / G) share one and both algorithms have min(channels, G) NICs' B.  Each
 *   rank sends 2S in the two trees: S/2 up and S down in the tree it is inner in, S/2 up in the other.  NCCL's own
 *   constants (per-protocol latencies, the tree's measured correction) are left out: the model's inputs are the
 *   fabric's.
 *
 * Channels are parallel rings (or pairs of trees, p2p streams) over the same ranks, each with size / channels of
 * the data; on GPU servers each channel's ring and trees are laid out as NCCL lays them, through a server's GPUs
 * over NVLink and between servers on one rail, successive channels on successive rails (coll_rings.c,
 * coll_trees.c).  Every step carries at least one byte (a step with no data still crosses the network as NCCL's
 * empty steps do), so that at tiny sizes the bytes sent exceed the data.
 */
#include "models/coll.h"
#include "models/coll_rings.h"
#include "models/coll_trees.h"
#include "models/nic.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum nccl_algo { ALGO_RING, ALGO_TREE, ALGO_AUTO };

static const char *const op_names[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                       "all_to_all", "send_recv", NULL};
static const char *const algo_names[] = {"ring", "tree", "auto", NULL};

#define NCCL_STEPS 8               /* NCCL's buffers per connection: the chunks it has unacknowledged */
#define NCCL_MAX_FLOWS (1u << 24)  /* flows of one collective: bounded memory */

struct nccl_conf {
    int op, algorithm, channels, root;
    int64_t chunk;
    struct scn_hostset hosts;
    int64_t size;
};

/* Builds a schedule, or only counts its steps (s NULL). */
struct bld {
    struct nccl_step *s;
    uint32_t n;
    uint32_t N;
    /* With the network: the ranks' hosts, for the rings' order on GPU servers (coll_rings.h); else NULL. */
    const struct net *net;
    const uint32_t *host;
    const uint32_t *perm;          /* this channel's ring: the rank at each position, or NULL (rank order) */
    uint32_t window;               /* chunks a connection has unacknowledged (header: flow control) */
    uint32_t n_conn;               /* connections so far */
    uint32_t *conn;                /* each step's connection, or NULL */
};

/* The rank at position i of the current channel's ring. */
static uint32_t at(const struct bld *b, uint32_t i) { return b->perm ? b->perm[i] : i; }

/* A connection's last sends, for its window (n 0: a new connection, numbered at its first send). */
struct conn {
    uint32_t last[NCCL_STEPS];
    uint32_t n, id;
};

static uint32_t add_step(struct bld *b, uint32_t src, uint32_t dst, int64_t bytes)
{
    uint32_t j = b->n++;
    if (b->s)
        b->s[j] = (struct nccl_step){src, dst, bytes > 0 ? bytes : 1, {NO_STEP, NO_STEP, NO_STEP}, NO_STEP, 0};
    return j;
}

/* Step `to` waits for step `from` to be received.  Only a receipt at its sender's host may let a step go (the
 * hook runs in that host's partition). */
static void dep_recv(struct bld *b, uint32_t from, uint32_t to)
{
    if (!b->s)
        return;
    struct nccl_step *f = &b->s[from];
    int k = 0;
    while (k + 1 < NCCL_WAITERS && f->on_recv[k] != NO_STEP)
        k++;
    if (f->dst != b->s[to].src || f->on_recv[k] != NO_STEP) {
        fprintf(stderr, "rocesim: bug: nccl step %u cannot wait for step %u\n", to, from);
        abort();
    }
    f->on_recv[k] = to;
    b->s[to].need++;
}

/* Step j is the next send of connection k: it goes on k's queue pair and waits for the last ACK of the send
 * `window` before it. */
static void conn_push(struct bld *b, struct conn *k, uint32_t j)
{
    if (k->n == 0)
        k->id = b->n_conn++;
    uint32_t slot = k->n++ % b->window;
    if (b->conn)
        b->conn[j] = k->id;
    if (b->s && k->n > b->window) {
        b->s[k->last[slot]].on_ack = j;
        b->s[j].need++;
    }
    k->last[slot] = j;
}

/* Past the bound: building stops (the check refuses the entry), so that counting a huge schedule is quick. */
static bool over(const struct bld *b) { return b->n > NCCL_MAX_FLOWS; }

static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 1 : (a + b - 1) / b; }

/* Ring over ranks 0..N-1 (rank i sends to i+1): `steps` steps per loop of N pieces; channel data d. */
static void build_ring(struct bld *b, int64_t d, int64_t chunk, uint32_t steps, struct conn *cn, uint32_t *prev,
                       uint32_t *cur)
{
    uint32_t N = b->N;
    int64_t loop = (int64_t)N * chunk, loops = ceil_div(d, loop);
    for (uint32_t i = 0; i < N; i++)
        cn[i].n = 0;
    for (int64_t l = 0; l < loops && !over(b); l++) {
        int64_t dl = l + 1 < loops ? loop : d - l * loop;
        for (uint32_t s = 0; s < steps; s++) {
            for (uint32_t i = 0; i < N; i++) {
                uint32_t piece = (i + N - s % N) % N;
                cur[i] = add_step(b, at(b, i), at(b, (i + 1) % N), coll_share(dl, N, piece));
                if (s > 0)
                    dep_recv(b, prev[(i + N - 1) % N], cur[i]);
                conn_push(b, &cn[i], cur[i]);
            }
            for (uint32_t i = 0; i < N; i++)
                prev[i] = cur[i];
        }
    }
}

/* broadcast: a chain from the root, pipelined by chunk. */
static void build_chain(struct bld *b, int64_t d, int64_t chunk, uint32_t root, struct conn *cn)
{
    uint32_t N = b->N, prev = NO_STEP;
    int64_t k_n = ceil_div(d, chunk);
    for (uint32_t p = 0; p < N; p++)
        cn[p].n = 0;
    for (int64_t k = 0; k < k_n && !over(b); k++) {
        int64_t bytes = k + 1 < k_n ? chunk : d - k * chunk;
        for (uint32_t p = 0; p + 1 < N; p++) {
            uint32_t j = add_step(b, (root + p) % N, (root + p + 1) % N, bytes);
            if (p > 0)
                dep_recv(b, prev, j);
            conn_push(b, &cn[p], j);
            prev = j;
        }
    }
}

/* p2p: rank i sends d to each peer of peer(i, m), m = 1..peers, in chunks, every pair at once. */
static void build_p2p(struct bld *b, int64_t d, int64_t chunk, uint32_t peers)
{
    uint32_t N = b->N;
    int64_t k_n = ceil_div(d, chunk);
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t m = 1; m <= peers; m++) {
            struct conn cn = {0};
            for (int64_t k = 0; k < k_n && !over(b); k++)
                conn_push(b, &cn, add_step(b, i, (i + m) % N, k + 1 < k_n ? chunk : d - k * chunk));
        }
}

/* Per-rank arrays of one tree: parent, children, this chunk's up and down steps, the connections. */
struct tree_ws {
    uint32_t *parent, *child; /* child[3r..3r+2]: NO_STEP when absent (three: coll_trees.c) */
    uint32_t *up, *down;      /* up[r]: r to its parent; down[r]: its parent to r */
    struct conn *cup, *cdown; /* cdown[r]: its parent's connection to r */
};

/* One tree's all-reduce of d bytes in chunks, the tree given by its parents (N entries): reduce up, broadcast
 * down. */
static void build_tree(struct bld *b, const uint32_t *parent, int64_t d, int64_t chunk, struct tree_ws *w)
{
    uint32_t N = b->N, root = NO_STEP;
    for (uint32_t r = 0; r < N; r++)
        w->child[3 * r] = w->child[3 * r + 1] = w->child[3 * r + 2] = NO_STEP, w->cup[r].n = w->cdown[r].n = 0;
    for (uint32_t r = 0; r < N; r++) {
        uint32_t p = w->parent[r] = parent[r], c = 0;
        if (p == NO_STEP) {
            root = r;
            continue;
        }
        while (w->child[3 * p + c] != NO_STEP)
            c++;
        w->child[3 * p + c] = r;
    }
    int64_t k_n = ceil_div(d, chunk);
    for (int64_t k = 0; k < k_n && !over(b); k++) {
        int64_t bytes = k + 1 < k_n ? chunk : d - k * chunk;
        for (uint32_t r = 0; r < N; r++)
            if (r != root) {
                w->up[r] = add_step(b, r, w->parent[r], bytes);
                conn_push(b, &w->cup[r], w->up[r]);
            }
        for (uint32_t r = 0; r < N; r++)
            if (r != root)
                for (int c = 0; c < 3; c++)
                    if (w->child[3 * r + c] != NO_STEP)
                        dep_recv(b, w->up[w->child[3 * r + c]], w->up[r]);
        /* down, parents before children, so that a step's index follows the one it waits for */
        for (uint32_t r = 0; r < N; r++)
            w->down[r] = NO_STEP;
        for (uint32_t done = 0; done + 1 < N;)
            for (uint32_t r = 0; r < N; r++) {
                uint32_t p = w->parent[r];
                if (r == root || w->down[r] != NO_STEP || (p != root && w->down[p] == NO_STEP))
                    continue;
                w->down[r] = add_step(b, p, r, bytes);
                conn_push(b, &w->cdown[r], w->down[r]);
                if (p != root)
                    dep_recv(b, w->down[p], w->down[r]);
                else
                    for (int c = 0; c < 3; c++)
                        if (w->child[3 * root + c] != NO_STEP)
                            dep_recv(b, w->up[w->child[3 * root + c]], w->down[r]);
                done++;
            }
    }
}

/* Channel ch's two trees into parent (2N entries): on GPU servers as NCCL lays them (coll_trees.c), else over the
 * ranks in rank order. */
static void tree_parents(const struct bld *b, uint32_t ch, uint32_t *parent)
{
    if (b->net && coll_tree_parents(b->net, b->host, b->N, ch, parent))
        return;
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t r = 0; r < b->N; r++)
            parent[t * b->N + r] = coll_dbtree_parent(t, r, b->N);
}

/* The k hops host[from[i]] to host[to[i]] (to[i] NO_STEP: none) on the empty network: each one's time t[i] (an MTU
 * frame's time across it; 0 for none), the slowest's and the slowest link on them (bits/s).  False when a hop has
 * no path. */
static bool hop_times(const struct net *n, const uint32_t *host, const uint32_t *from, const uint32_t *to,
                      uint32_t k, sim_time_t *t, sim_time_t *alpha, int64_t *bottleneck)
{
    *alpha = 0;
    *bottleneck = INT64_MAX;
    for (uint32_t i = 0; i < k; i++) {
        t[i] = 0;
        if (to[i] == NO_STEP)
            continue;
        uint32_t a = host[from[i]], z = host[to[i]];
        int64_t b = 0;
        t[i] = net_host_path_time(n, a, z, (uint32_t)(n->hosts[a].nic->mtu + n->fr.hdr_data + n->fr.wire), &b);
        if (t[i] <= 0 || b <= 0)
            return false;
        *alpha = t[i] > *alpha ? t[i] : *alpha;
        *bottleneck = b < *bottleneck ? b : *bottleneck;
    }
    return true;
}

/* The latency of the deeper of the two trees of parent (2N entries, up[i] the time of rank i % N's hop to its
 * parent in tree i / N): the longest root-to-leaf sum of its hops' times, in seconds. */
static double tree_path(const uint32_t *parent, const sim_time_t *up, uint32_t N)
{
    sim_time_t most = 0;
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t r = 0; r < N; r++) {
            sim_time_t sum = 0;
            for (uint32_t x = r, k = 0; parent[t * N + x] != NO_STEP && k < N; x = parent[t * N + x], k++)
                sum += up[t * N + x];
            most = sum > most ? sum : most;
        }
    return (double)most * 1e-12;
}

/* The α-β model's times (s) of entry cc's all-reduce by ring and by tree on network n; false when a hop has no
 * path. */
static bool alpha_beta(const struct nccl_conf *cc, const struct net *n, double *ring_s, double *tree_s)
{
    /* α and B of each algorithm's slowest hop, channel 0 as build() lays it (on GPU servers the ring's and the
     * tree's hops between servers, not the NVLink between the first two ranks) */
    uint32_t N0 = (uint32_t)cc->hosts.n, *host = mem_xcalloc(N0, sizeof *host, TRAFFIC_OOM);
    uint32_t *perm = mem_xcalloc(4 * (size_t)N0, sizeof *perm, TRAFFIC_OOM), *next = perm + N0, *tp = perm + 2 * N0;
    sim_time_t *t = mem_xcalloc(2 * (size_t)N0, sizeof *t, TRAFFIC_OOM);
    for (uint32_t r = 0; r < N0; r++)
        host[r] = (uint32_t)cc->hosts.idx[r];
    coll_ring_order(n, host, N0, 0, perm);
    for (uint32_t i = 0; i < N0; i++)
        next[i] = perm[(i + 1) % N0];
    sim_time_t alpha, alpha_t;
    int64_t bottleneck, bottleneck_t;
    if (!hop_times(n, host, perm, next, N0, t, &alpha, &bottleneck) || alpha <= 0) {
        free(host), free(perm), free(t);
        return false; /* a pair of ranks without a path: no model */
    }
    /* the ring's 2(N-1) steps pipeline through its hops one after the other (a queue pair per connection keeps
     * each hop busy), so its latency is the hops' times summed around it: 2(N-1) times their mean */
    double ring_lat = 0;
    for (uint32_t i = 0; i < N0; i++)
        ring_lat += (double)t[i] * 1e-12 * 2 * (N0 - 1) / N0;
    /* the tree's: on servers its own hops (both trees), its deepest path up and down; over ranks alone, as before
     * the servers had trees of their own, the ring's slowest hop at each of tree 0's levels */
    double d, G = coll_servers(n, host, N0, next), tree_lat;
    bool ok = true;
    if (coll_tree_parents(n, host, N0, 0, tp)) {
        for (uint32_t i = 0; i < 2 * N0; i++)
            perm[i] = i % N0;
        ok = hop_times(n, host, perm, tp, 2 * N0, t, &alpha_t, &bottleneck_t);
        uint32_t d0 = coll_tree_depth(tp, N0), d1 = coll_tree_depth(tp + N0, N0);
        d = d0 > d1 ? d0 : d1;
        tree_lat = 2 * tree_path(tp, t, N0);
    } else {
        alpha_t = alpha, bottleneck_t = bottleneck, d = coll_tree_depth(tp, N0);
        tree_lat = 2 * d * (double)alpha * 1e-12;
    }
    free(host);
    free(perm);
    free(t);
    if (!ok)
        return false;
    double N = cc->hosts.n, S = (double)cc->size, B = (double)bottleneck / 8;
    double Bt = (double)bottleneck_t / 8, C = cc->channels;
    /* the channels' chunks cross each link side by side: a level passes one chunk of each channel that shares
     * the link, every channel over ranks alone, ceil(C / G) on servers, where the channels leave by successive
     * NICs (then the channels' rings and trees have min(C, G) NICs' bandwidth) */
    double share = G > 0 ? ceil(C / G) : C, nics = G > 0 ? fmin(C, G) : 1;
    double c = fmin((double)cc->chunk, S / 2 / C) * share;
    *ring_s = ring_lat + 2 * (N - 1) / N * S / (B * nics);
    *tree_s = tree_lat + 2 * d * c / Bt + 2 * S / (Bt * nics);
    return true;
}

/* The algorithm entry e runs (auto resolved with the α-β model when n is the network, else ring), and the model's
 * times of ring and tree in model[] (0 without one: not an all_reduce, no network, or a rank without a path). */
static int resolve_algo(const struct nccl_conf *cc, const struct net *n, double model[2])
{
    model[0] = model[1] = 0;
    if (cc->op != OP_ALL_REDUCE || !n || !alpha_beta(cc, n, &model[0], &model[1]))
        model[0] = model[1] = 0;
    if (cc->algorithm != ALGO_AUTO)
        return cc->algorithm;
    if (model[0] <= 0)
        return ALGO_RING;
    return model[1] < model[0] ? ALGO_TREE : ALGO_RING;
}

/* The whole schedule of entry cc with algorithm algo into b (b->s NULL: only counted). */
static void build(struct bld *b, const struct nccl_conf *cc, int algo)
{
    uint32_t N = b->N = (uint32_t)cc->hosts.n;
    struct conn *cn = mem_xcalloc(3 * (size_t)N, sizeof *cn, TRAFFIC_OOM);
    uint32_t *ws = mem_xcalloc(8 * (size_t)N, sizeof *ws, TRAFFIC_OOM), *tp = ws + 6 * N;
    struct tree_ws tw = {ws, ws + N, ws + 4 * N, ws + 5 * N, cn, cn + N};
    uint32_t *perm = b->net ? mem_xcalloc(N, sizeof *perm, TRAFFIC_OOM) : NULL;
    for (int ch = 0; ch < cc->channels && !over(b); ch++) {
        int64_t d = coll_share(cc->size, cc->channels, ch);
        b->perm = perm && coll_ring_order(b->net, b->host, N, (uint32_t)ch, perm) ? perm : NULL;
        switch (cc->op) {
        case OP_ALL_REDUCE:
            if (algo == ALGO_TREE) {
                tree_parents(b, (uint32_t)ch, tp);
                build_tree(b, tp, coll_share(d, 2, 0), cc->chunk, &tw);
                build_tree(b, tp + N, coll_share(d, 2, 1), cc->chunk, &tw);
            } else {
                build_ring(b, d, cc->chunk, 2 * (N - 1), cn, ws, ws + N);
            }
            break;
        case OP_ALL_GATHER:
        case OP_REDUCE_SCATTER:
            build_ring(b, d, cc->chunk, N - 1, cn, ws, ws + N);
            break;
        case OP_BROADCAST:
            build_chain(b, d, cc->chunk, (uint32_t)cc->root, cn);
            break;
        case OP_ALL_TO_ALL:
            build_p2p(b, d / N, cc->chunk, N - 1);
            break;
        default:
            build_p2p(b, d, cc->chunk, 1);
            break;
        }
    }
    b->perm = NULL;
    free(perm);
    free(cn);
    free(ws);
}

uint32_t nccl_ring_build(int op, uint32_t N, int64_t size, int channels, int64_t chunk, struct nccl_step *out,
                         uint32_t *conn, uint32_t *n_conn)
{
    struct nccl_conf cc = {.op = op, .channels = channels, .chunk = chunk, .hosts = {.n = (int)N}, .size = size};
    struct bld b = {.s = out, .window = NCCL_STEPS, .conn = out ? conn : NULL};
    build(&b, &cc, ALGO_RING);
    if (n_conn)
        *n_conn = b.n_conn;
    return b.n;
}

/* Its steps, and its connections in *conns (or NULL). */
static uint32_t count_steps(const struct nccl_conf *cc, int algo, uint32_t *conns)
{
    struct bld b = {.window = NCCL_STEPS};
    build(&b, cc, algo);
    if (conns)
        *conns = b.n_conn;
    return b.n;
}

/* Trees run all_reduce only (as in NCCL); root is a rank; the schedule's flows are bounded. */
static int check_nccl(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct nccl_conf *e = base;
    char p[SETTING_PATH_MAX];
    (void)obj;
    if (e->algorithm == ALGO_TREE && e->op != OP_ALL_REDUCE)
        return setting_bad(c, setting_join(p, path, "algorithm"),
                           "expected \"ring\" or \"auto\" for %s (NCCL's trees run all_reduce only), got \"tree\"",
                           op_names[e->op]);
    if (e->root >= e->hosts.n)
        return setting_bad(c, setting_join(p, path, "root"), "expected a rank below %d (the number of hosts), got %d",
                           e->hosts.n, e->root);
    uint32_t most = count_steps(e, ALGO_RING, NULL);
    uint32_t tree = e->op == OP_ALL_REDUCE ? count_steps(e, ALGO_TREE, NULL) : 0;
    if (tree > most)
        most = tree;
    char a[32];
    if (most > NCCL_MAX_FLOWS)
        return setting_bad(c, setting_join(p, path, "chunk"),
                           "expected a chunk that leaves at most %u flows (size / chunk x steps x channels), got "
                           "\"%s\"", NCCL_MAX_FLOWS, units_fmt_size(e->chunk, a, sizeof a));
    return 0;
}

static const struct setting nccl_fields[] = {
    {SET_ENUM("op", struct nccl_conf, op, op_names, "all_reduce", "The collective operation")},
    {SET_ENUM("algorithm", struct nccl_conf, algorithm, algo_names, "auto",
              "ring, tree (all_reduce only) or auto (the α-β model's choice)")},
    {SET_INT("channels", struct nccl_conf, channels, 1, 64, "2", "Parallel rings (trees, streams) over the ranks")},
    {SET_FIELD("chunk", SETTING_SIZE, struct nccl_conf, chunk, SETTING_POSITIVE, "512KiB",
               "Bytes per step of the pipeline (one flow); NCCL's 4 MiB buffer over its 8 steps"),
     .what = "a size like \"512KiB\""},
    {.name = "hosts", .kind = SETTING_CUSTOM, .offset = offsetof(struct nccl_conf, hosts), .flags = SETTING_ALWAYS,
     .lo = 2, .help = "The communicator's ranks, in rank order; at least 2 (absent: every host)",
     .parse = scn_parse_hostset, .dump = scn_dump_hostset},
    {SET_INT("root", struct nccl_conf, root, 0, 1 << 20, "0", "broadcast: the rank that sends")},
    {SET_FIELD("size", SETTING_SIZE, struct nccl_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "Bytes as nccl-tests counts them: the buffer (all_gather: the output, reduce_scatter: the input)"),
     .what = "a size like \"1MB\""},
    {SET_CHECK(check_nccl)},
    {0},
};

static const struct setting_group nccl_group = {
    .path = "traffic.nccl", .size = sizeof(struct nccl_conf), .per_entry = true, .fields = nccl_fields,
};

static void nccl_place(const struct coll *c, uint32_t j, struct coll_place *out)
{
    const struct nccl_step *s = (const struct nccl_step *)c->sched + j;
    *out = (struct coll_place){.src = c->host[s->src], .dst = c->host[s->dst], .tag = j, .bytes = s->bytes};
}

/* Starts step k as a message posted to its connection's queue pair (named before the flow's start event runs).  The
 * schedule's block holds the steps, each step's connection, then the connections' queue pairs (nccl_setup). */
static void step_send(struct coll *c, uint32_t k)
{
    const uint32_t *conn = (const uint32_t *)((struct nccl_step *)c->sched + c->n_flows);
    struct nic_qp *qp = (struct nic_qp *)(conn + c->n_flows + (c->n_flows & 1));
    coll_send(c, k)->qp = &qp[conn[k]];
}

/* Step k's wait is over for one more end: it starts when none is left.  Runs at k's sender's host. */
static void step_ready(struct coll *c, uint32_t k)
{
    struct nccl_step *s = (struct nccl_step *)c->sched + k;
    if (--s->need == 0)
        step_send(c, k);
}

static void step_received(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    const struct nccl_step *s = (const struct nccl_step *)c->sched + f->owner_tag;
    for (int i = 0; i < NCCL_WAITERS && s->on_recv[i] != NO_STEP; i++)
        step_ready(c, s->on_recv[i]);
    coll_part(c, net_sim(n)->now);
}

static void step_acked(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    const struct nccl_step *s = (const struct nccl_step *)c->sched + f->owner_tag;
    if (s->on_ack != NO_STEP)
        step_ready(c, s->on_ack);
    coll_part(c, net_sim(n)->now);
}

static const struct flow_owner_ops nccl_owner = {.received = step_received, .acked = step_acked};

/* The collective's start (an event of the run): every step that waits for nothing. */
static void nccl_start(struct sim *s, void *obj, uint64_t arg)
{
    struct coll *c = obj;
    (void)arg;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    c->start = s->now;
    const struct nccl_step *st = c->sched;
    for (uint32_t j = 0; j < c->n_flows; j++)
        if (st[j].need == 0)
            step_send(c, j);
}

static int nccl_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    const struct nccl_conf *cc = TRAFFIC_CONF(&t->net->scn->traffic[ti], struct nccl_conf);
    double model[2];
    int algo = resolve_algo(cc, t->net, model);
    (void)err, (void)errlen;
    struct coll *c = coll_add(t, ti);
    uint32_t N = (uint32_t)cc->hosts.n;
    c->owner.ops = &nccl_owner;
    c->place = nccl_place;
    c->size = cc->size;
    c->n_ranks = c->total_ranks = N;
    c->host = mem_xcalloc(N, sizeof *c->host, TRAFFIC_OOM);
    for (uint32_t r = 0; r < N; r++)
        c->host[r] = (uint32_t)cc->hosts.idx[r];
    c->op = op_names[cc->op];
    c->algorithm = cc->op == OP_ALL_TO_ALL || cc->op == OP_SEND_RECV ? "p2p" : algo_names[algo];
    c->channels = cc->channels;
    c->busbw_factor = coll_busbw_factor(cc->op, N);
    c->model_ring = model[0], c->model_tree = model[1];
    /* one block, freed with the traffic: the steps, each one's connection (padded to an even count), then the
     * connections' queue pairs (zeroed: empty) */
    uint32_t conns, steps = count_steps(cc, algo, &conns);
    _Static_assert(sizeof(struct nccl_step) % _Alignof(struct nic_qp) == 0, "queue pairs aligned after the steps");
    _Static_assert(2 * sizeof(uint32_t) % _Alignof(struct nic_qp) == 0, "queue pairs aligned after the steps");
    size_t bytes = (size_t)steps * sizeof(struct nccl_step) + (steps + (steps & 1)) * sizeof(uint32_t) +
                   (size_t)conns * sizeof(struct nic_qp);
    char *block = mem_xcalloc_big(bytes, 1, TRAFFIC_OOM);
    struct bld b = {.s = (struct nccl_step *)(void *)block, .net = t->net, .host = c->host, .window = NCCL_STEPS,
                    .conn = (uint32_t *)(void *)(block + (size_t)steps * sizeof(struct nccl_step))};
    build(&b, cc, algo);
    c->sched = b.s;
    c->n_flows = b.n;
    c->parts = 2 * b.n; /* every step's receipt and its last ACK */
    coll_schedule(c, nccl_start);
    return 0;
}

/* The schedule is the collective's (traffic_free). */
static void nccl_release(struct traffic *t, int ti)
{
    (void)t, (void)ti;
}

static long nccl_numbered(const struct scn_traffic *e)
{
    (void)e;
    return -1;
}

/* Its steps, all reserved at set-up (auto: the larger of ring's and tree's before the network exists). */
static void nccl_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                       struct traffic_count *out)
{
    const struct nccl_conf *cc = TRAFFIC_CONF(&s->traffic[ti], struct nccl_conf);
    (void)host_rate;
    double model[2];
    uint32_t n = count_steps(cc, resolve_algo(cc, t ? t->net : NULL, model), NULL);
    if (!t && cc->algorithm == ALGO_AUTO && cc->op == OP_ALL_REDUCE) {
        uint32_t tree = count_steps(cc, ALGO_TREE, NULL);
        n = tree > n ? tree : n;
    }
    *out = (struct traffic_count){.made = n};
}

static int nccl_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct nccl_conf *cc = TRAFFIC_CONF(e, struct nccl_conf);
    *hosts = cc->hosts.idx;
    return cc->hosts.n;
}

static const struct traffic_ops nccl_ops = {
    .scn = {.numbered = nccl_numbered},
    .setup = nccl_setup,
    .release = nccl_release,
    .count = nccl_count,
    .senders = nccl_senders,
    .role = TRAFFIC_TRAINING,
    .summarizes_steps = true,
};

MODULE_REGISTER(traffic_kind, "nccl", &nccl_ops, &nccl_group);
