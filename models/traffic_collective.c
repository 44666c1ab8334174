/*
 * traffic_collective — the kinds "allreduce" (NCCL's ring all-reduce: 2(N-1) steps, one ring per NIC rank of the
 * servers as NCCL runs one ring per rail) and "alltoall" (every rank to every other at once), on the bookkeeping
 * every collective shares (models/coll.h): reserved flow places, completion, and its exchange between windows over
 * MPI ranks.
 */
#include "models/coll.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>

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
    {0},
};

static const struct setting alltoall_fields[] = {
    {HOSTS_FIELD("The ranks; at least 2 (absent: every host)")},
    {SIZE_FIELD("Bytes per rank in total; at least one byte per rank")},
    {SET_CHECK(check_ranks)},
    {0},
};

static const struct setting_group allreduce_group = {
    .path = "traffic.allreduce", .size = sizeof(struct coll_conf), .per_entry = true, .fields = allreduce_fields,
};
static const struct setting_group alltoall_group = {
    .path = "traffic.alltoall", .size = sizeof(struct coll_conf), .per_entry = true, .fields = alltoall_fields,
};

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
            coll_part(c, net_sim(c->t->net)->now);
        }
        return;
    }
    if (c->started[q] == s && c->recvd[q] >= s) {
        c->started[q]++;
        coll_send(c, s * c->total_ranks + q);
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
                    coll_send(c, a * (c->n_ranks - 1) + b - (b > a));
        return;
    }
    for (uint32_t q = 0; q < c->total_ranks; q++)
        ring_advance(c, q);
}

/* f's receiver holds all its bytes: the step it ends lets the next rank go on (a ring) or counts (alltoall). */
static void flow_received(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    if (!c->ring) {
        coll_part(c, net_sim(n)->now);
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

/* Flow j of c (struct coll, its places): rank q sends the chunk to `to` (the ring's successor), tagged q. */
static void coll_place(const struct coll *c, uint32_t j, struct coll_place *out)
{
    uint32_t q, to;
    if (!c->ring) {
        uint32_t a = j / (c->n_ranks - 1), b = j % (c->n_ranks - 1);
        q = a;
        to = b + (b >= a);
    } else {
        q = j % c->total_ranks;
        to = ring_next(c, q);
    }
    *out = (struct coll_place){.src = c->host[q], .dst = c->host[to], .tag = q, .bytes = c->chunk};
}

static void coll_init(struct coll *c, const struct coll_conf *cc, bool ring)
{
    uint32_t N = (uint32_t)cc->hosts.n;
    c->owner.ops = &coll_owner;
    c->place = coll_place;
    c->ring = ring;
    c->size = cc->size;
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
    c->parts = ring ? c->total_ranks : c->n_flows;
    coll_schedule(c, coll_start);
}

static int coll_setup(struct traffic *t, int ti, bool ring)
{
    struct coll *c = coll_add(t, ti);
    coll_init(c, TRAFFIC_CONF(&t->net->scn->traffic[ti], struct coll_conf), ring);
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
    .role = TRAFFIC_TRAINING,
    .summarizes_steps = true,
};

static const struct traffic_ops alltoall_ops = {
    .scn = {.numbered = coll_numbered},
    .setup = alltoall_setup,
    .release = coll_release,
    .count = alltoall_count,
    .senders = coll_senders,
    .role = TRAFFIC_TRAINING,
    .summarizes_steps = true,
};

MODULE_REGISTER(traffic_kind, "allreduce", &allreduce_ops, &allreduce_group);
MODULE_REGISTER(traffic_kind, "alltoall", &alltoall_ops, &alltoall_group);
