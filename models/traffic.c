/* traffic — flows from the scenario's traffic entries (see traffic.h for the models). */
#include "models/traffic.h"
#include "models/ranks.h"
#include "sim/file.h"
#include "sim/mem.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An entry's priority, or -1 for its sender's host.priority (net_add_flow), which a host profile may set. */
#define TR_PRIO(e) ((e)->priority_given ? (e)->priority : -1)

struct poisson_gen {
    struct traffic *t;
    int entry;
    uint32_t host, local;      /* host index, and its position in the entry's host set */
    struct rng rng;
    double mean_gap_ps;
    uint32_t *perm;            /* permutation pattern: destination of each position, shared */
};

/* What this file names when an allocation fails (sim/mem.h). */
#define TRAFFIC_OOM "generating traffic"

/*
 * Stores a flow name: the entry's id, or "{id}.{j}" for the j-th flow of a
 * generator entry (j < 0: the id alone).  Returns the stored copy; mem_oom when
 * out of memory.
 */
static const char *keep_name(struct traffic *t, const char *id, int64_t j)
{
    if (t->n_names == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->names = mem_xrealloc(t->names, t->cap * sizeof *t->names, TRAFFIC_OOM);
    }
    char buf[2 * SCN_NAME_MAX];
    if (j < 0)
        snprintf(buf, sizeof buf, "%s", id);
    else
        snprintf(buf, sizeof buf, "%s.%lld", id, (long long)j);
    char *s = mem_xstrdup(buf, TRAFFIC_OOM);
    t->names[t->n_names++] = s;
    return s;
}

/* ---- flow-size distributions ---- */

void cdf_free(struct cdf *c)
{
    free(c->size);
    free(c->prob);
    memset(c, 0, sizeof *c);
}

/* The distributions shipped in scenarios/workloads/NAME.cdf, which a scenario names without a path. */
static const char *const builtin_cdfs[] = {"websearch", "hadoop", NULL};

/* Appends ", item" (or "item" first) to a list for an error message; an item that does not fit is left out. */
static void tried_add(char *list, size_t len, const char *item)
{
    size_t k = strlen(list), m = strlen(item), sep = k ? 2 : 0;
    if (k + sep + m >= len)
        return;
    memcpy(list + k, ", ", sep);
    memcpy(list + k + sep, item, m + 1);
}

/*
 * Finds the file for a CDF name: a built-in name in the shipped directory,
 * else the path next to the scenario, then as given.  Returns 0 with path set
 * to the file that exists, or -1 with every path looked at listed in tried.
 */
static int cdf_find(const char *name, const char *scenario_file, char *path, size_t len, char *tried,
                    size_t tried_len)
{
    char dir[PATH_MAX];
    bool builtin = false;
    for (int i = 0; builtin_cdfs[i]; i++)
        builtin |= strcmp(name, builtin_cdfs[i]) == 0;
    tried[0] = '\0';
    if (builtin) {
        /* Shipped with rocesim: next to the binary, else under the working directory. */
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            snprintf(dir, sizeof dir, "%s", exe);
            char *d = dirname(dir);
            for (int up = 0; up < 3; up++) {
                snprintf(path, len, "%s/scenarios/workloads/%s.cdf", d, name);
                if (access(path, F_OK) == 0)
                    return 0;
                tried_add(tried, tried_len, path);
                d = dirname(d);
            }
        }
        snprintf(path, len, "scenarios/workloads/%s.cdf", name);
    } else if (name[0] != '/') {
        snprintf(dir, sizeof dir, "%s", scenario_file);
        const char *d = dirname(dir);
        if (strcmp(d, ".") != 0) {
            snprintf(path, len, "%s/%s", d, name);
            if (access(path, F_OK) == 0)
                return 0;
            tried_add(tried, tried_len, path);
        }
        snprintf(path, len, "%s", name);
    } else {
        snprintf(path, len, "%s", name);
    }
    if (access(path, F_OK) == 0)
        return 0;
    tried_add(tried, tried_len, path);
    return -1;
}

int cdf_load(struct cdf *c, const char *name, const char *scenario_file, const char *jpath, char *err,
             size_t errlen)
{
    memset(c, 0, sizeof *c);
    char path[PATH_MAX + 64], tried[1024], names[256] = "";
    if (cdf_find(name, scenario_file, path, sizeof path, tried, sizeof tried)) {
        for (int i = 0; builtin_cdfs[i]; i++)
            tried_add(names, sizeof names, builtin_cdfs[i]);
        snprintf(err, errlen, "%s: %s: expected a built-in CDF name (%s) or the path of a CDF file, got \"%s\" "
                              "(no such file: tried %s)", scenario_file, jpath, names, name, tried);
        return SCN_EUSAGE;
    }
    /* Read whole through the bounded reader: a CDF of /dev/zero or a FIFO is refused, not read forever. */
    char *buf = NULL, ferr[PATH_MAX + 128];
    int rc = file_read(path, FILE_TEXT, &buf, NULL, ferr, sizeof ferr);
    if (rc) {
        snprintf(err, errlen, "%s: %s: %s", scenario_file, jpath, ferr);
        return rc;
    }
    int cap = 0, line = 0;
    char *next = buf;
    while (*next) {
        char *l = next, *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        next = nl ? nl + 1 : l + strlen(l);
        line++;
        char *s = l;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\0')
            continue;
        double sz, pr;
        char extra;
        if (sscanf(s, "%lf %lf %c", &sz, &pr, &extra) != 2 || !(sz >= 0) || !(pr >= 0) || !(pr <= 1)) {
            snprintf(err, errlen, "%s: %s: %s:%d: expected \"size_bytes cumulative_probability\" with a "
                                  "probability in [0,1], got \"%.60s\"", scenario_file, jpath, path, line, l);
            goto fail;
        }
        if (c->n && (sz < c->size[c->n - 1] || pr < c->prob[c->n - 1])) {
            snprintf(err, errlen, "%s: %s: %s:%d: expected sizes and probabilities that never decrease",
                     scenario_file, jpath, path, line);
            goto fail;
        }
        if (c->n == cap) {
            cap = cap ? cap * 2 : 32;
            c->size = mem_xrealloc(c->size, sizeof *c->size * (size_t)cap, TRAFFIC_OOM);
            c->prob = mem_xrealloc(c->prob, sizeof *c->prob * (size_t)cap, TRAFFIC_OOM);
        }
        c->size[c->n] = sz;
        c->prob[c->n] = pr;
        c->n++;
    }
    free(buf);
    buf = NULL;
    if (c->n < 1 || c->prob[c->n - 1] != 1.0) {
        snprintf(err, errlen, "%s: %s: %s: expected a CDF whose last probability is 1, got %s", scenario_file,
                 jpath, path, c->n ? "a smaller one" : "no points");
        goto fail;
    }
    /* Mean of the piecewise-linear distribution; the mass at the first point is a point mass. */
    c->mean = c->size[0] * c->prob[0];
    for (int i = 1; i < c->n; i++)
        c->mean += (c->prob[i] - c->prob[i - 1]) * (c->size[i] + c->size[i - 1]) / 2;
    if (c->mean < 1) {
        snprintf(err, errlen, "%s: %s: %s: the distribution's mean is below one byte", scenario_file, jpath, path);
        goto fail;
    }
    return 0;
fail:
    free(buf);
    cdf_free(c);
    return SCN_EUSAGE;
}

int64_t cdf_sample(const struct cdf *c, double u)
{
    int lo = 0, hi = c->n - 1;
    if (u <= c->prob[0])
        return c->size[0] >= 1 ? (int64_t)(c->size[0] + 0.5) : 1;
    /* binary search for the first point with prob >= u */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c->prob[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    double p0 = c->prob[lo - 1], p1 = c->prob[lo];
    double s = p1 > p0 ? c->size[lo - 1] + (u - p0) / (p1 - p0) * (c->size[lo] - c->size[lo - 1]) : c->size[lo];
    int64_t b = (int64_t)(s + 0.5);
    return b < 1 ? 1 : b;
}

/* ---- pinned paths ---- */

/* Resolves a pinned path into node ids; checks that consecutive nodes are linked. */
static int resolve_path(struct net *n, int ti, const struct scn_traffic *e, uint32_t *nodes, char *err,
                        size_t errlen)
{
    const struct scenario *scn = n->scn;
    for (int i = 0; i < e->path_len; i++) {
        int32_t id = graph_find(n->g, e->path[i]);
        if (id < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: expected a node name, got \"%s\" (no such node)",
                     scn->file, ti, i, e->path[i]);
            return SCN_EUSAGE;
        }
        nodes[i] = (uint32_t)id;
        if (i > 0 && graph_port_to(n->g, nodes[i - 1], nodes[i]) < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: \"%s\" and \"%s\" are not linked", scn->file, ti, i,
                     e->path[i - 1], e->path[i]);
            return SCN_EUSAGE;
        }
        if (i > 0 && i + 1 < e->path_len && n->g->nodes[id].kind == SCN_NODE_HOST) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: host \"%s\" cannot forward traffic", scn->file, ti, i,
                     e->path[i]);
            return SCN_EUSAGE;
        }
    }
    if (nodes[0] != n->g->host_node[e->src] || nodes[e->path_len - 1] != n->g->host_node[e->dst]) {
        snprintf(err, errlen, "%s: traffic.%d.path: must start at the flow's src and end at its dst", scn->file, ti);
        return SCN_EUSAGE;
    }
    if (e->path_len > 255) {
        snprintf(err, errlen, "%s: traffic.%d.path: at most 255 nodes, got %d", scn->file, ti, e->path_len);
        return SCN_EUSAGE;
    }
    return 0;
}

/* ---- poisson ---- */

/*
 * The next gap of a Poisson source, drawn from the exponential of its mean, in ps.  A tiny load on a slow link
 * makes the mean huge (even infinite): a draw past the engine's clock becomes the clock's end + 1, an arrival
 * that never comes (sim.h), where converting it would overflow int64.  Every other draw is what it was.
 */
static sim_time_t poisson_gap(struct poisson_gen *g)
{
    double x = rng_exponential(&g->rng, g->mean_gap_ps);
    return x < (double)SIM_TIME_LIMIT ? (sim_time_t)x : SIM_TIME_LIMIT + 1;
}

static void poisson_arrival(struct sim *s, void *obj, uint64_t arg)
{
    struct poisson_gen *g = obj;
    struct traffic *t = g->t;
    struct net *n = t->net;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL); /* the run's: it adds to the table of flows (traffic.h) */
    const struct scn_traffic *e = &n->scn->traffic[g->entry];
    if (e->end_ps >= 0 && s->now >= e->end_ps) {
        net_np(n)->pending_sources--;
        net_check_finish(n);
        return;
    }
    uint32_t dst;
    if (e->pattern == SCN_PAT_PERMUTATION) {
        dst = (uint32_t)e->hosts.idx[g->perm[g->local]];
    } else {
        uint32_t k = rng_below(&g->rng, (uint32_t)e->hosts.n - 1);
        dst = (uint32_t)e->hosts.idx[k >= g->local ? k + 1 : k];
    }
    int64_t size = cdf_sample(&t->cdfs[g->entry], rng_uniform(&g->rng));
    net_add_flow(n, keep_name(t, e->id, t->next_name[g->entry]++), g->host, dst, size, s->now, TR_PRIO(e),
                 0, NULL, 0);
    sim_after(s, 1 + poisson_gap(g), poisson_arrival, g, 0);
}

/* ---- collectives ---- */

/* Rank q starts its flow to rank `to`, flow j of the collective's block (struct coll). */
static void coll_send(struct coll *c, uint32_t q, uint32_t to, uint32_t j)
{
    struct traffic *t = c->t;
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[c->entry];
    /* the table of names only grows between windows (the run's Poisson arrivals), never while a host runs */
    struct flow *f = net_make_flow(n, c->base + j, t->names[c->name0 + j], c->host[q], c->host[to], c->chunk,
                                   net_sim(n)->now, TR_PRIO(e), 0, NULL, 0);
    f->coll = c;
    f->coll_rank = q;
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
    if (c->type == SCN_TR_ALLTOALL) {
        for (uint32_t a = 0; a < c->n_ranks; a++)
            for (uint32_t b = 0; b < c->n_ranks; b++)
                if (a != b)
                    coll_send(c, a, b, a * (c->n_ranks - 1) + b - (b > a));
        return;
    }
    for (uint32_t q = 0; q < c->total_ranks; q++)
        ring_advance(c, q);
}

void traffic_flow_received(struct net *n, struct flow *f)
{
    struct coll *c = f->coll;
    if (c->type == SCN_TR_ALLTOALL) {
        coll_completed_at(c, net_sim(n)->now);
        if (coll_part_done(c, &c->flows_done, c->n_flows))
            coll_finish(c);
        return;
    }
    uint32_t to = ring_next(c, f->coll_rank);
    c->recvd[to]++;
    ring_advance(c, to);
}

void traffic_flow_acked(struct net *n, struct flow *f)
{
    struct coll *c = f->coll;
    if (c->type == SCN_TR_ALLTOALL)
        return;
    c->sent[f->coll_rank]++;
    ring_advance(c, f->coll_rank);
}

static void coll_init(struct traffic *t, struct coll *c, int entry, const struct scn_traffic *e)
{
    uint32_t N = (uint32_t)e->hosts.n;
    c->t = t;
    c->entry = entry;
    c->type = e->type;
    c->finish = c->last_done = -1;
    c->chunk = e->size / N;
    if (e->type == SCN_TR_ALLTOALL) {
        c->rings = 1;
        c->n_ranks = N;
        c->steps = 1;
    } else {
        uint32_t k = (uint32_t)e->nics_per_server;
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
            c->host[r * c->n_ranks + s] = (uint32_t)e->hosts.idx[s * c->rings + r];
    c->n_flows = e->type == SCN_TR_ALLTOALL ? c->n_ranks * (c->n_ranks - 1) : c->total_ranks * c->steps;
    c->base = net_reserve_flows(t->net, c->n_flows);
    c->name0 = t->n_names;
    for (uint32_t j = 0; j < c->n_flows; j++)
        keep_name(t, e->id, j);
    net_np(t->net)->pending_sources++;
    sim_at(net_sim(t->net), e->start_ps, coll_start, c, 0);
}

/* ---- collectives over MPI ranks (ranks.h) ---- */

/* The ranks (q sends to `to`) of flow j of c (struct coll, its places). */
static void coll_place(const struct coll *c, uint32_t j, uint32_t *q, uint32_t *to)
{
    if (c->type == SCN_TR_ALLTOALL) {
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
                                         r.start, TR_PRIO(&n->scn->traffic[c->entry]));
        f->coll = c;
        f->coll_rank = q;
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
            c->parts_all == (c->type == SCN_TR_ALLTOALL ? c->n_flows : c->total_ranks))
            coll_finish(c);
    }
}

/* ---- setup ---- */

int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    memset(t, 0, sizeof *t);
    t->net = n;
    t->next_name = mem_xcalloc((size_t)scn->n_traffic, sizeof *t->next_name, TRAFFIC_OOM);
    t->cdfs = mem_xcalloc((size_t)scn->n_traffic, sizeof *t->cdfs, TRAFFIC_OOM);
    uint32_t n_gens = 0, n_colls = 0;
    for (int ti = 0; ti < scn->n_traffic; ti++) {
        const struct scn_traffic *e = &scn->traffic[ti];
        if (e->type == SCN_TR_POISSON)
            n_gens += (uint32_t)e->hosts.n;
        else if (e->type == SCN_TR_ALLREDUCE || e->type == SCN_TR_ALLTOALL)
            n_colls++;
    }
    t->gens = mem_xcalloc(n_gens, sizeof *t->gens, TRAFFIC_OOM);
    t->colls = mem_xcalloc(n_colls, sizeof *t->colls, TRAFFIC_OOM);
    for (int ti = 0; ti < scn->n_traffic; ti++) {
        const struct scn_traffic *e = &scn->traffic[ti];
        switch (e->type) {
        case SCN_TR_FLOW: {
            uint32_t *nodes = NULL;
            if (e->path_len) {
                nodes = mem_xcalloc((size_t)e->path_len, sizeof *nodes, TRAFFIC_OOM);
                int rc = resolve_path(n, ti, e, nodes, err, errlen);
                if (rc) {
                    free(nodes);
                    return rc;
                }
            }
            net_add_flow(n, keep_name(t, e->id, -1), (uint32_t)e->src, (uint32_t)e->dst, e->size, e->start_ps,
                         TR_PRIO(e), e->rate_bps, nodes, e->path_len);
            free(nodes);
            break;
        }
        case SCN_TR_INCAST:
            for (int j = 0; j < e->senders.n; j++)
                net_add_flow(n, keep_name(t, e->id, j), (uint32_t)e->senders.idx[j],
                             (uint32_t)e->receiver, e->size, e->start_ps, TR_PRIO(e), 0, NULL, 0);
            break;
        case SCN_TR_POISSON: {
            char jpath[64];
            snprintf(jpath, sizeof jpath, "traffic.%d.size_cdf", ti);
            int rc = cdf_load(&t->cdfs[ti], e->size_cdf, scn->file, jpath, err, errlen);
            if (rc)
                return rc;
            uint32_t N = (uint32_t)e->hosts.n;
            struct rng prng;
            uint32_t *perm = NULL;
            if (e->pattern == SCN_PAT_PERMUTATION) {
                /* A random derangement (Sattolo's algorithm gives a single cycle: nobody sends to itself). */
                perm = mem_xcalloc(N, sizeof *perm, TRAFFIC_OOM);
                for (uint32_t i = 0; i < N; i++)
                    perm[i] = i;
                rng_init(&prng, scn->seed, rng_stream_id(RNG_KIND_TRAFFIC, ((uint64_t)ti << 32) | 0xffffffffu));
                for (uint32_t i = N - 1; i > 0; i--) {
                    uint32_t j = rng_below(&prng, i);
                    uint32_t tmp = perm[i];
                    perm[i] = perm[j];
                    perm[j] = tmp;
                }
            }
            for (uint32_t i = 0; i < N; i++) {
                struct poisson_gen *g = &t->gens[t->n_gens++];
                g->t = t;
                g->entry = ti;
                g->local = i;
                g->host = (uint32_t)e->hosts.idx[i];
                g->perm = i == 0 ? perm : t->gens[t->n_gens - 1 - i].perm;
                rng_init(&g->rng, scn->seed, rng_stream_id(RNG_KIND_TRAFFIC, ((uint64_t)ti << 32) | i));
                double rate = (double)n->hosts[g->host].rate_bps;
                g->mean_gap_ps = t->cdfs[ti].mean * 8.0 / (e->load * rate) * (double)PS_PER_S;
                net_np(n)->pending_sources++;
                sim_at(net_sim(n), e->start_ps + poisson_gap(g), poisson_arrival, g, 0);
            }
            break;
        }
        case SCN_TR_ALLREDUCE:
        case SCN_TR_ALLTOALL:
            coll_init(t, &t->colls[t->n_colls++], ti, e);
            break;
        }
    }
    const struct sim_par_comm *C = net_comm(n);
    if (C && t->n_colls) {
        t->made = mem_xcalloc(n->n_parts, sizeof *t->made, TRAFFIC_OOM);
        t->share = mem_xcalloc(2 * (size_t)t->n_colls, sizeof *t->share, TRAFFIC_OOM);
        n->between_windows = colls_between_windows;
        n->between_ctx = t;
    }
    return 0;
}

void traffic_free(struct traffic *t)
{
    for (uint32_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    for (uint32_t i = 0; i < t->n_gens; i++)
        if (t->gens[i].local == 0)
            free(t->gens[i].perm);
    free(t->gens);
    for (uint32_t i = 0; i < t->n_colls; i++) {
        free(t->colls[i].host);
        free(t->colls[i].sent);
        free(t->colls[i].recvd);
        free(t->colls[i].started);
    }
    free(t->colls);
    for (uint32_t i = 0; t->made && i < t->net->n_parts; i++)
        free(t->made[i].idx);
    free(t->made);
    free(t->share);
    if (t->cdfs && t->net)
        for (int i = 0; i < t->net->scn->n_traffic; i++)
            cdf_free(&t->cdfs[i]);
    free(t->cdfs);
    free(t->next_name);
    memset(t, 0, sizeof *t);
}

/* See traffic.h. */
double traffic_poisson_host_flows(const struct scn_traffic *t, int64_t stop_ps, double mean_bytes, double rate_bps)
{
    int64_t end = t->end_ps >= 0 && t->end_ps < stop_ps ? t->end_ps : stop_ps;
    double dur_ps = end > t->start_ps ? (double)(end - t->start_ps) : 0;
    if (dur_ps <= 0 || !(mean_bytes > 0) || !(rate_bps > 0))
        return 0;
    double gap_ps = mean_bytes * 8.0 / (t->load * rate_bps) * (double)PS_PER_S;
    return fmin(dur_ps / gap_ps, dur_ps);
}
