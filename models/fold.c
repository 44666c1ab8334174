/*
 * fold — the network run in partitions (sim/parallel.h): cut into them, each counting for itself, and between
 * windows the counts added to the totals and the mechanisms' work run (mech.h), and from the totals whether the
 * traffic is done.  Apart because it is the only part that sees all partitions at once, and only between windows.
 */
#include "models/mech.h"
#include "models/net.h"
#include "models/ranks.h"
#include "sim/mem.h"
#include "sim/parallel.h"

#include <stdio.h>
#include <stdlib.h>

/* Adds every partition's counts to the totals and zeroes them (between windows: no partition runs). */
static void net_fold(struct net *n)
{
    enum { NC = sizeof(struct net_counters) / sizeof(uint64_t), NF = NC + 8 + NPRIO };
    uint64_t d[NF] = {0};
    for (uint32_t i = 0; i < n->n_parts; i++) {
        struct net_part *np = &n->parts[i];
        uint64_t *from = (uint64_t *)&np->c;
        for (size_t j = 0; j < NC; j++) {
            d[j] += from[j];
            from[j] = 0;
        }
        size_t k = NC;
#define TAKE(field)                                                                                                \
    do {                                                                                                           \
        d[k++] += (uint64_t)np->field;                                                                             \
        np->field = 0;                                                                                             \
    } while (0)
        TAKE(flows_active);
        TAKE(flows_completed);
        TAKE(pending_sources);
        TAKE(ports_ever_paused);
        TAKE(sw_paused);
        TAKE(flows_valiant);
        TAKE(paused_total);
        for (int p = 0; p < NPRIO; p++)
            TAKE(paused_prio[p]);
        TAKE(pkts.live);
#undef TAKE
    }
    /* partitions in other processes counted there: every process adds the same sums (models/ranks.h) */
    const struct sim_par_comm *C = net_comm(n);
    if (C)
        C->sum(C->ctx, d, NF);
    uint64_t *to = (uint64_t *)&n->c;
    for (size_t j = 0; j < NC; j++)
        to[j] += d[j];
    size_t k = NC;
    /* the gauges are sums of partitions' wrapping counts: the casts take them back to their width */
    n->flows_active += (uint32_t)d[k++];
    n->flows_completed += (uint32_t)d[k++];
    n->pending_sources += (uint32_t)d[k++];
    n->ports_ever_paused += (uint32_t)d[k++];
    n->sw_paused += (uint32_t)d[k++];
    n->flows_valiant += (uint32_t)d[k++];
    n->paused_total += (sim_time_t)d[k++];
    for (int p = 0; p < NPRIO; p++)
        n->paused_prio[p] += (sim_time_t)d[k++];
    n->pkts.live += d[k++];
}

_Static_assert(sizeof(struct net_counters) % sizeof(uint64_t) == 0, "net_fold adds the counters as 64-bit words");

/* Between windows (sim_par's at_barrier): the mechanisms' work in their order (mech.h), net_fold's first, then
 * the traffic's own over processes. */
static void net_barrier(void *ctx)
{
    struct net *n = ctx;
    net_mechs_between_windows(n);
    if (n->between_windows)
        n->between_windows(n->between_ctx);
}

/* At a line of the grid (sim_par's at_line): what the mechanisms decide there (the deadlock detector's checks). */
static void net_line(void *ctx, sim_time_t t) { net_mechs_at_line(ctx, t); }

static bool net_done(void *ctx) { return net_traffic_done(ctx); }

int net_partition(struct net *n, struct sim_par *P)
{
    if (n->n_flows || n->tel) {
        fprintf(stderr, "rocesim: bug: a network is cut into partitions after its flows were added\n");
        abort();
    }
    /* each partition's counts on lines of its own: they are written every event */
    n->parts = mem_calloc_big(P->n, sizeof *n->parts);
    if (!n->parts)
        return -1;
    n->n_parts = P->n;
    for (uint32_t i = 0; i < P->n; i++) {
        pool_init(&n->parts[i].pkts, sizeof(struct pkt));
        P->parts[i].user = &n->parts[i];
    }
    n->cut = calloc(n->g->n_ports / 64 + 1, sizeof *n->cut);
    if (!n->cut)
        return -1;
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        const struct g_port *gp = &n->g->ports[i];
        if (P->ent_part[net_ent(gp->node)] != P->ent_part[net_ent(n->g->ports[gp->peer].node)])
            n->cut[i >> 6] |= 1ull << (i & 63);
    }
    net_mechs_partition(n, P);
    P->at_barrier = net_barrier;
    P->at_line = net_line;
    P->done = net_done;
    P->ctx = n;
    return 0;
}

static void fold_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++)
        pool_free_all(&n->parts[i].pkts);
    free(n->parts);
    free(n->cut);
}

static const struct net_mech_ops fold_mech = {
    .name = "fold", .order = 30, .between_windows = net_fold, .free = fold_free};
NET_MECH(fold_mech)
