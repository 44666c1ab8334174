/*
 * coll — the bookkeeping every collective kind shares (models/coll.h): reserved flow places, flows started by
 * their ranks, completion by parts, and its exchange between windows over MPI ranks (models/ranks.h).
 */
#include "models/coll.h"
#include "models/ranks.h"
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double coll_busbw_factor(int op, double n)
{
    switch (op) {
    case OP_ALL_REDUCE:
        return 2 * (n - 1) / n;
    case OP_ALL_GATHER:
    case OP_REDUCE_SCATTER:
    case OP_ALL_TO_ALL:
        return (n - 1) / n;
    default:
        return 1;
    }
}

struct flow *coll_send(struct coll *c, uint32_t j)
{
    struct traffic *t = c->t;
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[c->entry];
    struct coll_place p;
    c->place(c, j, &p);
    /* the table of names only grows between windows (the run's Poisson arrivals), never while a host runs */
    struct flow *f;
    if (!c->summarized)
        f = net_make_flow(n, c->base + j, t->names[c->name0 + j], p.src, p.dst, p.bytes, net_sim(n)->now,
                          traffic_prio(n, e), 0, NULL, 0);
    else if (n->recycle)
        f = net_make_step(n, c->base + j, e->id, p.src, p.dst, p.bytes, net_sim(n)->now, traffic_prio(n, e));
    else {
        f = net_make_flow(n, c->base + j, e->id, p.src, p.dst, p.bytes, net_sim(n)->now, traffic_prio(n, e), 0, NULL, 0);
        f->step = 1;
    }
    f->owner = &c->owner;
    f->owner_tag = p.tag;
    __atomic_fetch_add(&c->bytes, (uint64_t)p.bytes, __ATOMIC_RELAXED);
    if (t->made && net_np(n) != &n->own) {
        /* over MPI ranks: made by a host, which only this process runs; the others learn of it between windows */
        struct made_list *l = &t->made[net_sim(n)->part];
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->idx = mem_xrealloc(l->idx, sizeof *l->idx * l->cap, TRAFFIC_OOM);
        }
        l->idx[l->n++] = c->base + j;
    }
    return f;
}

/* The last part completed: c finished at the latest completion, whichever partition counted it last. */
static void coll_finish(struct coll *c)
{
    struct net *n = c->t->net;
    c->finish = __atomic_load_n(&c->last_done, __ATOMIC_RELAXED);
    net_np(n)->pending_sources--;
    net_check_finish(n);
}

/* The time is recorded before the count of parts is raised (with release order, the count acquires it), so
 * that the part that completes c sees every time. */
void coll_part(struct coll *c, sim_time_t now)
{
    sim_time_t was = __atomic_load_n(&c->last_done, __ATOMIC_RELAXED);
    while (was < now && !__atomic_compare_exchange_n(&c->last_done, &was, now, false, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED))
        ;
    if (c->t->made) {
        __atomic_fetch_add(&c->parts_here, 1, __ATOMIC_RELAXED);
        return;
    }
    if (__atomic_add_fetch(&c->parts_done, 1, __ATOMIC_ACQ_REL) == c->parts)
        coll_finish(c);
}

/* ---- collectives over MPI ranks (ranks.h) ---- */

/* A flow made by another process's partition, as it travels: its place, start and Valiant intermediate. */
struct made_rec {
    uint32_t idx, via_host;
    int32_t via_group;
    uint32_t pad;
    sim_time_t start;
};

/* The collective whose flow has place idx. */
static struct coll *coll_at(struct traffic *t, uint32_t idx)
{
    for (uint32_t i = 0; i < t->n_colls; i++)
        if (idx >= t->colls[i].base && idx - t->colls[i].base < t->colls[i].n_flows)
            return &t->colls[i];
    fprintf(stderr, "rocesim: bug: another process made flow %u, not one of a collective\n", idx);
    abort();
}

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
        struct coll *c = coll_at(t, r.idx);
        uint32_t j = r.idx - c->base;
        struct coll_place p;
        c->place(c, j, &p);
        const struct scn_traffic *e = &n->scn->traffic[c->entry];
        struct flow *f = net_mirror_flow(n, r.idx, c->summarized ? e->id : t->names[c->name0 + j], p.src, p.dst,
                                         p.bytes, r.start, traffic_prio(n, e));
        f->step = c->summarized; /* as its maker made it (coll_send) */
        f->owner = &c->owner;
        f->owner_tag = p.tag;
        f->via_host = r.via_host;
        f->via_group = r.via_group;
        c->bytes += (uint64_t)p.bytes;
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
        if (c->finish < 0 && c->parts_all > 0 && c->parts_all == c->parts)
            coll_finish(c);
    }
}

struct coll *coll_add(struct traffic *t, int ti)
{
    struct net *n = t->net;
    struct coll *c = &t->colls[t->n_colls++];
    const struct scn_traffic *e = &n->scn->traffic[ti];
    c->t = t;
    c->entry = ti;
    c->kind = scn_traffic_kind_name(e);
    c->finish = c->last_done = -1;
    const struct sim_par_comm *C = net_comm(n);
    if (C && !t->made) {
        /* over MPI ranks: the collectives' flows and completions are exchanged between windows (share: room for
         * one collective per entry) */
        t->made = mem_xcalloc(n->n_parts, sizeof *t->made, TRAFFIC_OOM);
        t->share = mem_xcalloc(2 * (size_t)n->scn->n_traffic, sizeof *t->share, TRAFFIC_OOM);
        n->between_windows = colls_between_windows;
        n->between_ctx = t;
    }
    return c;
}

void coll_schedule(struct coll *c, sim_fn start)
{
    struct traffic *t = c->t;
    const struct scn_traffic *e = &t->net->scn->traffic[c->entry];
    c->summarized = traffic_ops_of(e)->summarizes_steps && t->net->step_summary;
    if (c->summarized && t->net->recycle)
        c->base = net_reserve_ids(t->net, c->n_flows); /* places are taken as steps start (net_make_step) */
    else
        c->base = net_reserve_flows(t->net, c->n_flows);
    c->name0 = t->n_names;
    for (uint32_t j = 0; !c->summarized && j < c->n_flows; j++)
        traffic_name(t, e->id, j);
    net_np(t->net)->pending_sources++;
    sim_at(net_sim(t->net), e->start_ps, start, c, 0);
}
