/* deadlock — PFC deadlock detection on the wait-for graph of paused queues (Hu et al., HotNets 2016; see deadlock.h). */
#include "models/deadlock.h"
#include "models/lfc.h"
#include "models/mech.h"
#include "models/ranks.h"
#include "sim/mem.h"
#include "sim/module.h"
#include "sim/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the detector names when an allocation fails (sim/mem.h): it cannot go on without the memory. */
#define DEADLOCK_OOM "in deadlock detection"

static void timer_fired(struct sim *s, void *obj, uint64_t arg);

void deadlock_init(struct net *n)
{
    n->dl.period = deadlock_params_of(&n->scn->sw)->check_ps;
    n->dl.own_timer = n->dl.period && !n->lfc->heartbeat;
}

/* Arms the timer for the next check, no earlier than next_check. */
static void arm(struct net *n, sim_time_t at)
{
    struct deadlock *dl = &n->dl;
    if (at < dl->next_check)
        at = dl->next_check;
    sim_timer_arm(net_sim(n), &dl->timer, at, timer_fired, n); /* the run's (zeroed: SIM_ENT_GLOBAL): the whole graph */
}

void deadlock_blocked(struct net *n, bool first)
{
    /* A partition's count alone cannot say whether it is the first: the run's timer is armed at the next line
     * after any block (at_line). */
    if (net_partitioned(n))
        net_np(n)->blocked = true;
    else if (first && n->dl.own_timer && !n->dl.detected && !n->dl.timer.armed)
        arm(n, net_sim(n)->now + n->dl.period);
}

/*
 * At a line of a partitioned run's grid, time t (no partition runs): the checks that came due since the last
 * line, and the timer of a detector that runs its own, as deadlock_heartbeat and deadlock_blocked would have.
 * Every process takes part in the reduction, whether or not its partitions saw a heartbeat or a block.
 */
static void at_line(struct net *n, sim_time_t t)
{
    uint64_t flag[2] = {0, 0}; /* beat, blocked */
    for (uint32_t i = 0; i < n->n_parts; i++) {
        flag[0] |= n->parts[i].beat;
        flag[1] |= n->parts[i].blocked;
        n->parts[i].beat = n->parts[i].blocked = false;
    }
    const struct sim_par_comm *C = net_comm(n);
    if (C)
        C->max(C->ctx, flag, 2);
    bool beat = flag[0], blocked = flag[1];
    if (!beat && !blocked)
        return;
    if (beat && t >= n->dl.next_check)
        deadlock_check(n, t);
    if (blocked && n->dl.own_timer && !n->dl.detected && !n->dl.timer.armed && n->sw_paused)
        arm(n, t + n->dl.period);
}

/* Timer (a flow control without heartbeat): check, and go on while a switch egress is blocked and traffic
 * remains (a finished run must not be kept going). */
static void timer_fired(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    deadlock_check(n, s->now);
    if (!n->dl.detected && n->sw_paused && (n->flows_active || n->pending_sources))
        arm(n, s->now + n->dl.period);
}

static void dl_free(struct net *n)
{
    free(n->dl.cycle);
    free(n->dl.index);
    n->dl.cycle = NULL;
    n->dl.index = NULL;
}

static const struct net_mech_ops deadlock_mech = {
    .name = "deadlock", .order = 70, .init = deadlock_init, .at_line = at_line, .free = dl_free};
NET_MECH(deadlock_mech)

static const struct setting deadlock_fields[] = {
    /* 0 is allowed: it turns detection off, for runs that should show a deadlock until `stop`. */
    {SET_FIELD("deadlock_check", SETTING_TIME, struct deadlock_params, check_ps, SETTING_FABRIC, "1ms",
               "How long a cycle of paused queues lasts before it counts as a deadlock, and how often to look; "
               "0 = off")},
    {0},
};

/* Flat, after switch.watchdog, where sim/ had it. */
static const struct setting_group deadlock_group = {
    .path = "switch/deadlock", .size = sizeof(struct deadlock_params), .after = "watchdog", .fields = deadlock_fields,
};
SETTINGS_REGISTER("deadlock", &deadlock_group);

/* See deadlock.h. */
const struct deadlock_params *deadlock_params_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, deadlock_group, struct deadlock_params);
}

/* A node of the wait-for graph: a stalled switch egress (port, priority). */
struct wnode {
    struct port *p;
    int prio;
    uint32_t first, deg; /* its successors: succ[first .. first + deg) */
    const uint8_t *holds; /* over MPI ranks: bit l set when it holds a frame that came in through local port l */
    uint32_t sw;          /* ... and its switch's index, to order the nodes as one process does */
};

/* Whether egress r (priority prio) holds a frame that entered its switch through local port in_local. */
static bool holds_from(const struct port *r, int prio, uint16_t in_local)
{
    for (const struct pkt *k = port_pp(r, prio)->q.head; k; k = k->next)
        if (k->in_port == in_local)
            return true;
    return false;
}

/* The order one process finds the nodes in: by switch, port, priority. */
static int wnode_cmp(const void *a, const void *b)
{
    const struct wnode *x = a, *y = b;
    if (x->sw != y->sw)
        return x->sw < y->sw ? -1 : 1;
    if (x->p->local != y->p->local)
        return x->p->local < y->p->local ? -1 : 1;
    return (x->prio > y->prio) - (x->prio < y->prio);
}

/*
 * Over MPI ranks (ranks.h): each rank found the stalled egresses of its own switches, and only it can read their
 * queues.  It sends each with the ingress ports its frames came through (a bit per port of the switch); every
 * rank gets all of them, in the order of one process, in *v (its nodes' holds point into *mem).  Returns their
 * number.
 */
static uint32_t share_nodes(struct net *n, const struct sim_par_comm *C, struct wnode **v, uint32_t nv,
                            struct sim_buf *mem)
{
    struct sim_buf mine = {0};
    for (uint32_t i = 0; i < nv; i++) {
        const struct port *p = (*v)[i].p;
        const struct sw *w = n->node_sw[p->node];
        uint32_t rec[2] = {(uint32_t)(w - n->sws), (uint32_t)p->local << 8 | (uint32_t)(*v)[i].prio};
        sim_buf_put(&mine, rec, sizeof rec);
        /* one walk of the queue: the ingress port of each frame it holds */
        uint8_t bits[(UINT16_MAX + 1) / 8];
        size_t nb = (w->n_ports + 7) / 8;
        memset(bits, 0, nb);
        for (const struct pkt *k = port_pp(p, (*v)[i].prio)->q.head; k; k = k->next)
            bits[k->in_port / 8] |= (uint8_t)(1u << (k->in_port % 8));
        sim_buf_put(&mine, bits, nb);
    }
    C->gather(C->ctx, &mine, mem);
    free(mine.p);
    uint32_t cap = nv, k = 0;
    for (size_t o = 0; o < mem->len; k++) {
        uint32_t rec[2];
        if (mem->len - o < sizeof rec)
            goto bad;
        memcpy(rec, mem->p + o, sizeof rec);
        o += sizeof rec;
        if (rec[0] >= n->g->n_switches || (rec[1] >> 8) >= n->sws[rec[0]].n_ports || (rec[1] & 0xff) >= NPRIO)
            goto bad;
        const struct sw *w = &n->sws[rec[0]];
        if (mem->len - o < (w->n_ports + 7) / 8)
            goto bad;
        if (k == cap) {
            cap = cap ? 2 * cap : 64;
            *v = mem_xrealloc(*v, sizeof **v * cap, DEADLOCK_OOM);
        }
        (*v)[k] = (struct wnode){&w->ports[rec[1] >> 8], (int)(rec[1] & 0xff), 0, 0, mem->p + o, rec[0]};
        o += (w->n_ports + 7) / 8;
    }
    if (k > 1)
        qsort(*v, k, sizeof **v, wnode_cmp);
    return k;
bad:
    fprintf(stderr, "rocesim: bug: malformed wait-for graph from another process\n");
    abort();
}

/*
 * Searches the graph for a cycle (iterative DFS, white/grey/black).  Returns
 * its length and writes its nodes in edge order into out, or returns 0.
 */
static uint32_t find_cycle(const struct wnode *v, uint32_t nv, const uint32_t *succ, uint32_t *out)
{
    uint8_t *color = mem_xcalloc(nv, 1, DEADLOCK_OOM);
    uint32_t *stack = mem_xmalloc(sizeof *stack * nv, DEADLOCK_OOM), *cursor = mem_xmalloc(sizeof *cursor * nv, DEADLOCK_OOM),
             *pos = mem_xmalloc(sizeof *pos * nv, DEADLOCK_OOM);
    uint32_t found = 0;
    for (uint32_t root = 0; root < nv && !found; root++) {
        if (color[root])
            continue;
        uint32_t top = 0;
        stack[top] = root;
        cursor[top] = 0;
        pos[root] = top;
        color[root] = 1;
        top++;
        while (top && !found) {
            uint32_t u = stack[top - 1];
            if (cursor[top - 1] == v[u].deg) {
                color[u] = 2;
                top--;
                continue;
            }
            uint32_t w = succ[v[u].first + cursor[top - 1]++];
            if (color[w] == 1) {
                /* Grey: w is on the stack, and stack[pos[w] .. top) leads back to it. */
                for (uint32_t i = pos[w]; i < top; i++)
                    out[found++] = stack[i];
            } else if (color[w] == 0) {
                color[w] = 1;
                pos[w] = top;
                stack[top] = w;
                cursor[top] = 0;
                top++;
            }
        }
    }
    free(color);
    free(stack);
    free(cursor);
    free(pos);
    return found;
}

void deadlock_check(struct net *n, sim_time_t now)
{
    struct deadlock *dl = &n->dl;
    dl->next_check = now + dl->period;
    if (dl->detected || n->sw_paused == 0)
        return;
    sim_time_t since = now - dl->period; /* stalled: paused without a break since at least this time */
    const struct graph *g = n->g;

    /* The stalled egresses, in port id order (switch ports only: a host cannot be part of a buffer cycle). */
    uint32_t nv = 0, cap = 0;
    struct wnode *v = NULL;
    for (uint32_t i = 0; i < g->n_switches; i++) {
        struct sw *w = &n->sws[i];
        for (uint32_t j = 0; j < w->n_ports; j++) {
            struct port *p = &w->ports[j];
            for (int prio = 0; p->paused && prio < NPRIO; prio++) {
                const struct port_prio *pp = port_pp(p, prio);
                if (!((p->paused >> prio) & 1) || pp->q.n == 0 || pp->paused_since > since)
                    continue;
                if (nv == cap) {
                    cap = cap ? 2 * cap : 64;
                    v = mem_xrealloc(v, sizeof *v * cap, DEADLOCK_OOM);
                }
                v[nv++] = (struct wnode){p, prio, 0, 0, NULL, i};
            }
        }
    }
    const struct sim_par_comm *C = net_comm(n);
    struct sim_buf shared = {0};
    if (C)
        nv = share_nodes(n, C, &v, nv, &shared);
    if (nv == 0) {
        free(v);
        free(shared.p);
        return;
    }
    dl->checks++;
    if (!dl->index) {
        dl->index = mem_xmalloc(sizeof *dl->index * (size_t)g->n_ports * NPRIO, DEADLOCK_OOM);
        memset(dl->index, 0xff, sizeof *dl->index * (size_t)g->n_ports * NPRIO); /* all -1 */
    }
    for (uint32_t i = 0; i < nv; i++)
        dl->index[(size_t)port_id(v[i].p) * NPRIO + (size_t)v[i].prio] = (int32_t)i;

    /* Edges: E = (p, q) waits on the stalled egresses of its peer that hold q-frames from the peer port. */
    uint32_t ne = 0, ecap = 64;
    uint32_t *succ = mem_xmalloc(sizeof *succ * ecap, DEADLOCK_OOM);
    for (uint32_t i = 0; i < nv; i++) {
        v[i].first = ne;
        const struct port *in = v[i].p->peer;
        if (in->kind == NODE_HOST)
            continue;
        const struct sw *b = n->node_sw[in->node];
        for (uint32_t j = 0; j < b->n_ports; j++) {
            const struct port *r = &b->ports[j];
            int32_t t = dl->index[(size_t)port_id(r) * NPRIO + (size_t)v[i].prio];
            if (t < 0 || !(v[t].holds ? (v[t].holds[in->local / 8] >> (in->local % 8)) & 1
                                      : holds_from(r, v[i].prio, in->local)))
                continue;
            if (ne == ecap) {
                ecap *= 2;
                succ = mem_xrealloc(succ, sizeof *succ * ecap, DEADLOCK_OOM);
            }
            succ[ne++] = (uint32_t)t;
        }
        v[i].deg = ne - v[i].first;
    }

    uint32_t *cyc = mem_xmalloc(sizeof *cyc * nv, DEADLOCK_OOM);
    uint32_t len = find_cycle(v, nv, succ, cyc);
    for (uint32_t i = 0; i < nv; i++)
        dl->index[(size_t)port_id(v[i].p) * NPRIO + (size_t)v[i].prio] = -1;
    if (len) {
        /* Start from the lowest port id, so that the same cycle always reads the same. */
        uint32_t lo = 0;
        for (uint32_t i = 1; i < len; i++)
            if (port_id(v[cyc[i]].p) < port_id(v[cyc[lo]].p))
                lo = i;
        dl->cycle = mem_xmalloc(sizeof *dl->cycle * len, DEADLOCK_OOM);
        for (uint32_t i = 0; i < len; i++)
            dl->cycle[i] = port_id(v[cyc[(lo + i) % len]].p);
        dl->cycle_len = len;
        dl->prio = v[cyc[0]].prio;
        dl->detected = true;
        dl->at = now;
        sim_stop(net_sim(n));
    }
    free(cyc);
    free(succ);
    free(v);
    free(shared.p);
}
