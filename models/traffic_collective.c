/*
 * traffic_collective — the kinds "allreduce" (NCCL's ring all-reduce: 2(N-1) steps, one ring per NIC rank of the
 * servers as NCCL runs one ring per rail) and "alltoall" (every rank to every other at once), which share their
 * bookkeeping: ranks, reserved flow places, completion, and its exchange between windows over MPI ranks.
 */
#include "models/traffic.h"
#include "models/ranks.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRAFFIC_OOM "generating traffic"

/* The fields of both kinds (alltoall's table leaves out the ring's). */
struct coll_conf {
    int algorithm;       /* allreduce: only "ring" */
    int nics_per_server; /* allreduce: hosts are NICs, this many consecutive hosts form one server */
    struct scn_hostset hosts;
    int64_t size;
};

/* Servers whole and at least two of them (one ring per NIC rank); at least one byte per rank. */
static int check_ranks(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    struct coll_conf *e = base;
    char p[SETTING_PATH_MAX], a[32];
    (void)obj;
    if (e->nics_per_server == 0)
        e->nics_per_server = 1; /* alltoall's */
    if (e->hosts.n % e->nics_per_server != 0 || e->hosts.n / e->nics_per_server < 2)
        return setting_bad(c, setting_join(p, path, "nics_per_server"),
                           "expected a divisor of the number of hosts (%d) leaving at least 2 servers, got %d",
                           e->hosts.n, e->nics_per_server);
    if (e->size < e->hosts.n)
        return setting_bad(c, setting_join(p, path, "size"),
                           "expected a size of at least %dB (one byte per rank), got \"%s\"", e->hosts.n,
                           units_fmt_size(e->size, a, sizeof a));
    return 0;
}

static const char *const algo_names[] = {"ring", NULL};

#define HOSTS_FIELD(help_)                                                                                         \
    .name = "hosts", .kind = SETTING_CUSTOM, .offset = offsetof(struct coll_conf, hosts), .flags = SETTING_ALWAYS,  \
    .lo = 2, .help = help_, .parse = scn_parse_hostset, .dump = scn_dump_hostset
#define SIZE_FIELD(help_)                                                                                          \
    SET_FIELD("size", SETTING_SIZE, struct coll_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL, help_),     \
        .what = "a size like \"20KB\""

static const struct setting allreduce_fields[] = {
    {SET_ENUM("algorithm", struct coll_conf, algorithm, algo_names, "ring", "Only ring for now")},
    {SET_INT("nics_per_server", struct coll_conf, nics_per_server, 1, 1024, "1",
             "NICs (hosts) per server; divides the number of hosts, leaving at least 2 servers")},
    {HOSTS_FIELD("The ranks, in ring order; at least 2 (absent: every host)")},
    {SIZE_FIELD("Size of the buffer being reduced; at least one byte per rank")},
    {SET_CHECK(check_ranks)},
    {NULL},
};

static const struct setting alltoall_fields[] = {
    {HOSTS_FIELD("The ranks; at least 2 (absent: every host)")},
    {SIZE_FIELD("Bytes per rank in total; at least one byte per rank")},
    {SET_CHECK(check_ranks)},
    {NULL},
};

static const struct setting_group allreduce_group = {
    .path = "traffic.allreduce", .size = sizeof(struct coll_conf), .per_entry = true, .fields = allreduce_fields,
};
static const struct setting_group alltoall_group = {
    .path = "traffic.alltoall", .size = sizeof(struct coll_conf), .per_entry = true, .fields = alltoall_fields,
};

/* Rank q starts its flow to rank `to`, flow j of the collective's block (struct coll). */
static void coll_send(struct coll *c, uint32_t q, uint32_t to, uint32_t j)
{
    struct traffic *t = c->t;
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[c->entry];
    /* the table of names only grows between windows (the run's Poisson arrivals), never while a host runs */
    struct flow *f = net_make_flow(n, c->base + j, t->names[c->name0 + j], c->host[q], c->host[to], c->chunk,
                                   net_sim(n)->now, traffic_prio(e), 0, NULL, 0);
    f->owner = &c->owner;
    f->owner_tag = q;
    __atomic_fetch_add(&c->bytes, (uint64_t)c->chunk, __ATOMIC_RELAXED);
    if (t->made && net_np(n) != &n->own) {
        /* over MPI ranks: made by a host, which only this process runs; the others learn of it between windows */
        struct made_list *l = &t->made[net_sim(n)->part];
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->idx = mem_xrealloc(l->idx, sizeof *l->idx * l->cap, TRAFFIC_OOM);
        }
        l->idx[l->n++] = c->base + j;
    }
}

/* A part of c (a rank; alltoall: a flow) is done: c is complete when all are.  Over MPI ranks no process sees
 * every part, and the parts are counted between windows (colls_between_windows). */
static bool coll_part_done(struct coll *c, uint32_t *count, uint32_t last)
{
    if (c->t->made) {
        __atomic_fetch_add(&c->parts_here, 1, __ATOMIC_RELAXED);
        return false;
    }
    return __atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL) == last;
}

/* A part of c (a rank, alltoall: a flow) completed now.  Recorded before the count of parts is raised (with
 * release order, coll_finish's count acquires it), so that the part that completes c sees every time. */
static void coll_completed_at(struct coll *c, sim_time_t now)
{
    sim_time_t was = __atomic_load_n(&c->last_done, __ATOMIC_RELAXED);
    while (was < now && !__atomic_compare_exchange_n(&c->last_done, &was, now, false, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED))
        ;
}

/* The last part completed: c finished at the latest completion, whichever partition counted it last. */
static void coll_finish(struct coll *c)
{
    struct net *n = c->t->net;
    c->finish = __atomic_load_n(&c->last_done, __ATOMIC_RELAXED);
    net_np(n)->pending_sources--;
    net_check_finish(n);
}

/* Global rank q = ring * n_ranks + i; its ring successor. */
static uint32_t ring_next(const struct coll *c, uint32_t q)
{
    uint32_t ring = q / c->n_ranks, i = q % c->n_ranks;
    return ring * c->n_ranks + (i + 1) % c->n_ranks;
}

/* Starts rank q's next step when its last send is acknowledged and the matching step has arrived. */
static void ring_advance(struct coll *c, uint32_t q)
{
    uint32_t s = c->sent[q];
    if (s == c->steps) {
        /* started = steps + 1 marks a rank already counted as done */
        if (c->recvd[q] == c->steps && c->started[q] == c->steps) {
            c->started[q]++;
            coll_completed_at(c, net_sim(c->t->net)->now);
            if (coll_part_done(c, &c->ranks_done, c->total_ranks))
                coll_finish(c);
        }
        return;
    }
    if (c->started[q] == s && c->recvd[q] >= s) {
        c->started[q]++;
        coll_send(c, q, ring_next(c, q), s * c->total_ranks + q);
    }
}

static void coll_start(struct sim *s, void *obj, uint64_t arg)
{
    struct coll *c = obj;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    c->start = s->now;
    if (!c->ring) {
        for (uint32_t a = 0; a < c->n_ranks; a++)
            for (uint32_t b = 0; b < c->n_ranks; b++)
                if (a != b)
                    coll_send(c, a, b, a * (c->n_ranks - 1) + b - (b > a));
        return;
    }
    for (uint32_t q = 0; q < c->total_ranks; q++)
        ring_advance(c, q);
}

/* The collective of flow f (its owner, the first member of struct coll). */
static struct coll *coll_of(const struct flow *f) { return (struct coll *)(void *)f->owner; }

/* f's receiver holds all its bytes: the step it ends lets the next rank go on (a ring) or counts (alltoall). */
static void flow_received(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    if (!c->ring) {
        coll_completed_at(c, net_sim(n)->now);
        if (coll_part_done(c, &c->flows_done, c->n_flows))
            coll_finish(c);
        return;
    }
    uint32_t to = ring_next(c, f->owner_tag);
    c->recvd[to]++;
    ring_advance(c, to);
}

/* f's sender got the last ACK: in a ring its rank may send its next step. */
static void flow_acked(struct net *n, struct flow *f)
{
    (void)n;
    struct coll *c = coll_of(f);
    if (!c->ring)
        return;
    c->sent[f->owner_tag]++;
    ring_advance(c, f->owner_tag);
}

static const struct flow_owner_ops coll_owner = {.received = flow_received, .acked = flow_acked};

static void coll_init(struct traffic *t, struct coll *c, int entry, const struct scn_traffic *e,
                      const struct coll_conf *cc, bool ring)
{
    uint32_t N = (uint32_t)cc->hosts.n;
    c->owner.ops = &coll_owner;
    c->t = t;
    c->entry = entry;
    c->ring = ring;
    c->kind = scn_traffic_kind_name(e);
    c->size = cc->size;
    c->finish = c->last_done = -1;
    c->chunk = cc->size / N;
    if (!ring) {
        c->rings = 1;
        c->n_ranks = N;
        c->steps = 1;
    } else {
        uint32_t k = (uint32_t)cc->nics_per_server;
        c->rings = k;
        c->n_ranks = N / k;
        c->steps = 2 * (c->n_ranks - 1);
    }
    c->total_ranks = c->rings * c->n_ranks;
    c->host = mem_xcalloc(c->total_ranks, sizeof *c->host, TRAFFIC_OOM);
    c->sent = mem_xcalloc(c->total_ranks, sizeof *c->sent, TRAFFIC_OOM);
    c->recvd = mem_xcalloc(c->total_ranks, sizeof *c->recvd, TRAFFIC_OOM);
    c->started = mem_xcalloc(c->total_ranks, sizeof *c->started, TRAFFIC_OOM);
    /* ring r, position s: the r-th NIC of server s (consecutive hosts form a server) */
    for (uint32_t r = 0; r < c->rings; r++)
        for (uint32_t s = 0; s < c->n_ranks; s++)
            c->host[r * c->n_ranks + s] = (uint32_t)cc->hosts.idx[s * c->rings + r];
    c->n_flows = ring ? c->total_ranks * c->steps : c->n_ranks * (c->n_ranks - 1);
    c->base = net_reserve_flows(t->net, c->n_flows);
    c->name0 = t->n_names;
    for (uint32_t j = 0; j < c->n_flows; j++)
        traffic_name(t, e->id, j);
    net_np(t->net)->pending_sources++;
    sim_at(net_sim(t->net), e->start_ps, coll_start, c, 0);
}

/* ---- collectives over MPI ranks (ranks.h) ---- */

/* The ranks (q sends to `to`) of flow j of c (struct coll, its places). */
static void coll_place(const struct coll *c, uint32_t j, uint32_t *q, uint32_t *to)
{
    if (!c->ring) {
        uint32_t a = j / (c->n_ranks - 1), b = j % (c->n_ranks - 1);
        *q = a;
        *to = b + (b >= a);
    } else {
        *q = j % c->total_ranks;
        *to = ring_next(c, *q);
    }
}

/* A flow made by another process's partition, as it travels: its place, start and Valiant intermediate. */
struct made_rec {
    uint32_t idx, via_host;
    int32_t via_group;
    uint32_t pad;
    sim_time_t start;
};

/*
 * Between windows of a run over MPI ranks: every process makes the collectives' flows the others' hosts made in
 * the window (net_mirror_flow), so that every flow exists where its frames go and in every output, and counts
 * the parts completed everywhere, completing a collective at its latest completion when all are done.
 */
static void colls_between_windows(void *ctx)
{
    struct traffic *t = ctx;
    struct net *n = t->net;
    const struct sim_par_comm *C = net_comm(n);
    const struct sim_par *P = n->sim->par;
    struct sim_buf mine = {0}, all = {0};
    for (uint32_t i = P->lo; i < P->hi; i++) {
        for (uint32_t k = 0; k < t->made[i].n; k++) {
            const struct flow *f = net_flow(n, t->made[i].idx[k]);
            struct made_rec r = {f->idx, f->via_host, f->via_group, 0, f->start};
            sim_buf_put(&mine, &r, sizeof r);
        }
        t->made[i].n = 0;
    }
    C->gather(C->ctx, &mine, &all);
    for (size_t o = 0; o + sizeof(struct made_rec) <= all.len; o += sizeof(struct made_rec)) {
        struct made_rec r;
        memcpy(&r, all.p + o, sizeof r);
        if (r.idx < n->n_flows && net_flow_made(net_flow(n, r.idx)))
            continue; /* this process's own */
        struct coll *c = NULL;
        for (uint32_t i = 0; i < t->n_colls && !c; i++)
            if (r.idx >= t->colls[i].base && r.idx - t->colls[i].base < t->colls[i].n_flows)
                c = &t->colls[i];
        if (!c) {
            fprintf(stderr, "rocesim: bug: another process made flow %u, not one of a collective\n", r.idx);
            abort();
        }
        uint32_t j = r.idx - c->base, q, to;
        coll_place(c, j, &q, &to);
        struct flow *f = net_mirror_flow(n, r.idx, t->names[c->name0 + j], c->host[q], c->host[to], c->chunk,
                                         r.start, traffic_prio(&n->scn->traffic[c->entry]));
        f->owner = &c->owner;
        f->owner_tag = q;
        f->via_host = r.via_host;
        f->via_group = r.via_group;
        c->bytes += (uint64_t)c->chunk;
    }
    free(mine.p);
    free(all.p);
    /* parts done in this window everywhere, and the latest completion */
    uint64_t *v = t->share;
    for (uint32_t i = 0; i < t->n_colls; i++) {
        struct coll *c = &t->colls[i];
        v[i] = c->parts_here;
        v[t->n_colls + i] = (uint64_t)(c->last_done + 1);
        c->parts_here = 0;
    }
    C->sum(C->ctx, v, t->n_colls);
    C->max(C->ctx, v + t->n_colls, t->n_colls);
    for (uint32_t i = 0; i < t->n_colls; i++) {
        struct coll *c = &t->colls[i];
        c->last_done = (sim_time_t)v[t->n_colls + i] - 1;
        c->parts_all += (uint32_t)v[i];
        if (c->finish < 0 && c->parts_all > 0 &&
            c->parts_all == (c->ring ? c->total_ranks : c->n_flows))
            coll_finish(c);
    }
}


static int coll_setup(struct traffic *t, int ti, bool ring)
{
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[ti];
    coll_init(t, &t->colls[t->n_colls++], ti, e, TRAFFIC_CONF(e, struct coll_conf), ring);
    const struct sim_par_comm *C = net_comm(n);
    if (C && !t->made) {
        /* over MPI ranks: the collectives' flows and completions are exchanged between windows (share: room for
         * one collective per entry) */
        t->made = mem_xcalloc(n->n_parts, sizeof *t->made, TRAFFIC_OOM);
        t->share = mem_xcalloc(2 * (size_t)n->scn->n_traffic, sizeof *t->share, TRAFFIC_OOM);
        n->between_windows = colls_between_windows;
        n->between_ctx = t;
    }
    return 0;
}

static int allreduce_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return coll_setup(t, ti, true);
}

static int alltoall_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return coll_setup(t, ti, false);
}

/* The collective's arrays are the traffic's (traffic_free). */
static void coll_release(struct traffic *t, int ti)
{
    (void)t, (void)ti;
}

static long coll_numbered(const struct scn_traffic *e)
{
    (void)e;
    return -1;
}

/* The ring: 2(N-1) steps (reduce-scatter and all-gather), one flow per rank and step; alltoall: N(N-1) flows. */
static void allreduce_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                            struct traffic_count *out)
{
    double n = TRAFFIC_CONF(&s->traffic[ti], struct coll_conf)->hosts.n;
    (void)host_rate, (void)t;
    *out = (struct traffic_count){.made = 2 * n * (n - 1)};
}

static void alltoall_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                           struct traffic_count *out)
{
    double n = TRAFFIC_CONF(&s->traffic[ti], struct coll_conf)->hosts.n;
    (void)host_rate, (void)t;
    *out = (struct traffic_count){.made = n * (n - 1)};
}

static int coll_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct coll_conf *cc = TRAFFIC_CONF(e, struct coll_conf);
    *hosts = cc->hosts.idx;
    return cc->hosts.n;
}

static const struct traffic_ops allreduce_ops = {
    .scn = {.numbered = coll_numbered},
    .setup = allreduce_setup,
    .release = coll_release,
    .count = allreduce_count,
    .senders = coll_senders,
};

static const struct traffic_ops alltoall_ops = {
    .scn = {.numbered = coll_numbered},
    .setup = alltoall_setup,
    .release = coll_release,
    .count = alltoall_count,
    .senders = coll_senders,
};

MODULE_REGISTER(traffic_kind, "allreduce", &allreduce_ops, &allreduce_group);
MODULE_REGISTER(traffic_kind, "alltoall", &alltoall_ops, &alltoall_group);
