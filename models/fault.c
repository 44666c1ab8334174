/*
 * fault — the scenario's faults (the rules are in fault.h): link_down
 * (failure and recovery of links, rerouting), pause_storm (a NIC that keeps
 * its ToR paused, IEEE 802.1Qbb PAUSE refreshed at half its time) and
 * slow_receiver (a NIC receive pipeline slower than the link, with PFC on its
 * receive buffer like a switch ingress, as switch.c counts it).
 */
#include "models/fault.h"
#include "models/mech.h"
#include "models/ranks.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/port.h"
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>

#include "topologies/routing.h"

static void host_pfc_update(struct net *n, struct host *h, int prio);

/* Node ids travel in the event argument: a in the high half, b in the low. */
static uint64_t pack(uint32_t a, uint32_t b) { return (uint64_t)a << 32 | b; }

/* fn(p) as port p's node's part of the run's event (ranks.h): over processes, only where that node runs. */
static void in_node(struct net *n, struct port *p, void (*fn)(struct port *))
{
    struct ranks_entry re;
    if (!ranks_enter(n, p->node, &re))
        return;
    fn(p);
    ranks_leave(n, &re);
}

/* Recomputes the routing tables after links changed state; out of memory mid-run is fatal. */
static void reroute(struct net *n)
{
    if (routing_compute(n->g) < 0) {
        mem_oom("recomputing the routing tables after a link_down fault");
    }
    n->reroutes++;
}

/*
 * Takes every link between the two nodes packed in arg down (fail = true) or
 * brings it back (one level of nesting per fault), then reroutes when a link
 * changed state.  An event handler: no return value.
 */
static void link_change(struct net *n, uint64_t arg, bool fail)
{
    struct graph *g = n->g;
    uint32_t a = (uint32_t)(arg >> 32), b = (uint32_t)arg;
    const struct g_node *na = &g->nodes[a];
    bool changed = false;
    for (uint32_t pid = na->first_port; pid < na->first_port + na->n_ports; pid++) {
        if (g->ports[g->ports[pid].peer].node != b)
            continue;
        struct port *p = &n->ports[pid], *q = p->peer;
        struct g_link *l = &g->links[g->ports[pid].link];
        if (fail) {
            p->down++;
            q->down++;
            if (p->down > 1)
                continue;
            /* Both ends are down before either is flushed: a RESUME the flush triggers must not go out on the link. */
            in_node(n, p, port_link_fail);
            in_node(n, q, port_link_fail);
            l->down = true;
            n->links_down_now++;
            n->link_failures++;
        } else {
            p->down--;
            q->down--;
            if (p->down > 0)
                continue;
            l->down = false;
            n->links_down_now--;
        }
        changed = true;
    }
    if (!changed)
        return;
    reroute(n);
    if (!fail) {
        /* The link's ports may hold frames queued while it was down (a host's ACKs): start them. */
        for (uint32_t pid = na->first_port; pid < na->first_port + na->n_ports; pid++) {
            if (g->ports[g->ports[pid].peer].node == b) {
                in_node(n, &n->ports[pid], port_kick);
                in_node(n, n->ports[pid].peer, port_kick);
                /* The failure cleared a faulty NIC's pause; it pauses again if its fault still says so. */
                struct port *ends[2] = {&n->ports[pid], n->ports[pid].peer};
                for (int e = 0; e < 2; e++) {
                    struct host *h = ends[e]->kind == NODE_HOST ? n->node_host[ends[e]->node] : NULL;
                    struct ranks_entry re;
                    if (!h || !h->fault || !ranks_enter(n, h->node, &re))
                        continue;
                    for (int prio = 0; prio < NPRIO; prio++)
                        host_pfc_update(n, h, prio);
                    ranks_leave(n, &re);
                }
            }
        }
    }
}

static void link_fail_event(struct sim *s, void *obj, uint64_t arg) { link_change(obj, arg, true); }

static void link_restore_event(struct sim *s, void *obj, uint64_t arg) { link_change(obj, arg, false); }

/* ---- link_errors ---- */

/* Whether link_errors fault f, resolved to nodes a, b, corrupts the frames port p receives from its peer. */
static bool errors_reach(const struct graph *g, const struct scn_fault *f, uint32_t a, uint32_t b, uint32_t pid)
{
    uint32_t from = g->ports[g->ports[pid].peer].node, to = g->ports[pid].node;
    return (from == a && to == b) || (!f->one_way && from == b && to == a);
}

/*
 * Sets the loss in force at every port of the links between the nodes of link_errors fault i: the link's own
 * loss_rate and each link_errors fault in force there, as independent causes: p = 1 - (1 - base) x prod(1 - r).
 * Recomputed from the faults rather than multiplied and divided, so that no rounding accumulates.
 */
static void errors_update(struct net *n, int i)
{
    const struct scenario *scn = n->scn;
    const struct graph *g = n->g;
    uint32_t a = n->lerr_ends[2 * i], b = n->lerr_ends[2 * i + 1];
    for (int e = 0; e < 2; e++) {
        const struct g_node *gn = &g->nodes[e ? b : a];
        for (uint32_t pid = gn->first_port; pid < gn->first_port + gn->n_ports; pid++) {
            if (g->ports[g->ports[pid].peer].node != (e ? a : b))
                continue;
            struct port_loss *pl = &n->loss[pid];
            double keep = 1 - pl->base;
            for (int j = 0; j < scn->n_faults; j++)
                if (n->lerr_on[j] && errors_reach(g, &scn->faults[j], n->lerr_ends[2 * j], n->lerr_ends[2 * j + 1], pid))
                    keep *= 1 - scn->faults[j].error_rate;
            pl->p = 1 - keep;
        }
    }
}

static void errors_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    n->lerr_on[arg] = 1;
    errors_update(n, (int)arg);
}

static void errors_end(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    n->lerr_on[arg] = 0;
    errors_update(n, (int)arg);
}

/* ---- NIC faults: pause_storm and slow_receiver ---- */

/* Host h's fault state, created on first use with its receive-buffer thresholds (fault.h); mem_oom when out of
 * memory. */
static struct nic_fault *host_fault(struct net *n, struct host *h)
{
    if (h->fault)
        return h->fault;
    struct nic_fault *nf = mem_xcalloc(1, sizeof *nf, "setting up faults");
    const struct scenario *scn = n->scn;
    const struct port *p = h->port;
    int64_t H = pfc_port_headroom(n, p, scn->sw.pfc.response_quanta);
    nf->h = h;
    nf->rx_timer.ent = net_ent(h->node);
    nf->xoff = 2 * H;
    nf->xon = nf->xoff > scn->sw.pfc.xon_delta ? nf->xoff - scn->sw.pfc.xon_delta : 0;
    nf->lossless_cap = nf->xoff + H;
    h->fault = nf;
    return nf;
}

static void faults_free(struct net *n)
{
    for (uint32_t i = 0; n->hosts && i < n->g->n_hosts; i++) {
        free(n->hosts[i].fault);
        n->hosts[i].fault = NULL;
    }
    free(n->lerr_ends);
    free(n->lerr_on);
    n->lerr_ends = NULL;
    n->lerr_on = NULL;
}

/* The faults are set up by the run (faults_setup, after the traffic), but freed with the network. */
static const struct net_mech_ops faults_mech = {.name = "faults", .order = 90, .free = faults_free};
NET_MECH(faults_mech)

/*
 * Brings host h's PFC on prio in line with its faults: PAUSE (then refreshed)
 * while a storm is in force or its receive buffer is above XOFF, RESUME once
 * neither is.  No return value.
 */
static void host_pfc_update(struct net *n, struct host *h, int prio)
{
    const struct nic_fault *nf = h->fault;
    pfc_host_hold(h->port, prio, nf->storm[prio] > 0 || nf->rx_xoff[prio]);
}

/* Event: pause_storm fault number arg begins (the host starts pausing unless it already does). */
static void storm_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct scn_fault *f = &n->scn->faults[arg];
    struct host *h = &n->hosts[f->host];
    struct ranks_entry re;
    if (!ranks_enter(n, h->node, &re))
        return;
    h->fault->storm[f->priority]++;
    host_pfc_update(n, h, f->priority);
    ranks_leave(n, &re);
}

/* Event: pause_storm fault number arg ends (RESUME unless another reason to pause remains). */
static void storm_end(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct scn_fault *f = &n->scn->faults[arg];
    struct host *h = &n->hosts[f->host];
    struct ranks_entry re;
    if (!ranks_enter(n, h->node, &re))
        return;
    h->fault->storm[f->priority]--;
    host_pfc_update(n, h, f->priority);
    ranks_leave(n, &re);
}

static void rx_done(struct sim *s, void *obj, uint64_t arg);

/* Starts processing the head of nf's receive buffer: it reaches the transport B x 8 / rate later. */
static void rx_start(struct net *n, struct nic_fault *nf)
{
    __int128 num = (__int128)nf->rxq.head->size * 8 * PS_PER_S + nf->rx_rem;
    sim_time_t t = (sim_time_t)(num / nf->rx_rate_bps);
    nf->rx_rem = (int64_t)(num % nf->rx_rate_bps);
    sim_timer_arm(net_sim(n), &nf->rx_timer, net_sim(n)->now + t, rx_done, nf);
}

/* Timer: the head frame is processed: hand it to the transport, maybe RESUME, start the next. */
static void rx_done(struct sim *s, void *obj, uint64_t arg)
{
    struct nic_fault *nf = obj;
    struct host *h = nf->h;
    struct net *n = h->port->net;
    SIM_ASSERT_ENT(s, net_ent(h->node));
    struct pkt *k = pktq_pop(&nf->rxq);
    int prio = k->prio;
    nf->rx_bytes[prio] -= k->size;
    if (nf->rx_xoff[prio] && nf->rx_bytes[prio] <= nf->xon) {
        nf->rx_xoff[prio] = false;
        host_pfc_update(n, h, prio);
    }
    if (nf->rxq.head)
        rx_start(n, nf);
    nic_process(n, h, k);
}

void fault_rx_arrive(struct net *n, struct host *h, struct pkt *k)
{
    struct nic_fault *nf = h->fault;
    int prio = k->prio;
    uint8_t bit = (uint8_t)(1u << prio);
    int64_t B = k->size;
    bool lossless = n->lossless & bit;
    if (lossless && nf->rx_bytes[prio] + B > nf->lossless_cap) {
        /* Only a ToR that did not obey our latest PAUSE can overrun the headroom: the watchdog's forward
         * action lifted or ignored it (and a restoration does not bring it back before our next refresh), or
         * it obeys again but what it sent meanwhile is still arriving (wd_overrode_until). */
        const struct port *peer = h->port->peer;
        if ((peer->wd_overrode & bit) || net_sim(n)->now <= port_aux(peer)->wd_overrode_until[prio]) {
            net_ctr_drop(n, h->port, k, DROP_WATCHDOG);
            net_drop(n, k, DROP_WATCHDOG);
            return;
        }
        fprintf(stderr, "rocesim: bug: slow receiver %s would drop a lossless frame: %lld bytes of priority %d "
                        "buffered, at most %lld expected\n",
                n->g->nodes[h->node].name, (long long)(nf->rx_bytes[prio] + B), prio, (long long)nf->lossless_cap);
        abort();
    }
    if (!lossless && nf->rx_bytes[prio] + B > n->scn->sw.lossy_queue_limit) {
        net_ctr_drop(n, h->port, k, DROP_BUFFER);
        net_drop(n, k, DROP_BUFFER);
        return;
    }
    pktq_push(&nf->rxq, k);
    nf->rx_bytes[prio] += B;
    if (nf->rx_bytes[prio] > nf->rx_peak[prio])
        nf->rx_peak[prio] = nf->rx_bytes[prio];
    if (lossless && !nf->rx_xoff[prio] && nf->rx_bytes[prio] > nf->xoff) {
        nf->rx_xoff[prio] = true;
        host_pfc_update(n, h, prio);
    }
    if (!nf->rx_timer.armed)
        rx_start(n, nf);
}

/* Event: slow_receiver fault number arg begins: frames arriving from now on go through the buffer. */
static void slow_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct scn_fault *f = &n->scn->faults[arg];
    struct nic_fault *nf = n->hosts[f->host].fault;
    nf->rx_slow = true;
    nf->rx_rate_bps = f->rate_bps;
    nf->rx_rem = 0;
}

/* The pipeline recovers: what is buffered goes to the transport now, in order, and its pauses are lifted. */
static void slow_end(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct scn_fault *f = &n->scn->faults[arg];
    struct host *h = &n->hosts[f->host];
    struct nic_fault *nf = h->fault;
    struct ranks_entry re;
    if (!ranks_enter(n, h->node, &re))
        return;
    nf->rx_slow = false;
    sim_timer_cancel(&nf->rx_timer);
    struct pkt *k;
    while ((k = pktq_pop(&nf->rxq))) {
        nf->rx_bytes[k->prio] -= k->size;
        nic_process(n, h, k);
    }
    for (int prio = 0; prio < NPRIO; prio++)
        if (nf->rx_xoff[prio]) {
            nf->rx_xoff[prio] = false;
            host_pfc_update(n, h, prio);
        }
    ranks_leave(n, &re);
}

/* Whether faults a and b (of the same kind) are in force at some common time; end -1 is the end of the run. */
static bool overlap(const struct scn_fault *a, const struct scn_fault *b)
{
    return (b->end_ps < 0 || a->start_ps < b->end_ps) && (a->end_ps < 0 || b->start_ps < a->end_ps);
}

int faults_setup(struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    uint32_t *ends = mem_xcalloc((size_t)scn->n_faults * 2 + 1, sizeof *ends, "setting up faults");
    /* Resolve everything first, so that a bad fault schedules nothing. */
    for (int i = 0; i < scn->n_faults; i++) {
        const struct scn_fault *f = &scn->faults[i];
        if (f->type == SCN_FAULT_SLOW_RECEIVER) {
            for (int j = 0; j < i; j++)
                if (scn->faults[j].type == SCN_FAULT_SLOW_RECEIVER && scn->faults[j].host == f->host &&
                    overlap(&scn->faults[j], f)) {
                    snprintf(err, errlen,
                             "%s: faults.%d: expected slow_receiver faults of one host not to overlap in time, got "
                             "faults.%d and faults.%d both on \"%s\"",
                             scn->file, i, j, i, scn_host_name(scn, f->host));
                    free(ends);
                    return SCN_EUSAGE;
                }
        }
        if (f->type != SCN_FAULT_LINK_DOWN && f->type != SCN_FAULT_LINK_ERRORS)
            continue;
        for (int k = 0; k < 2; k++) {
            int32_t id = graph_find(n->g, f->between[k]);
            if (id < 0) {
                snprintf(err, errlen, "%s: faults.%d.between.%d: expected a node name, got \"%s\" (no such node)",
                         scn->file, i, k, f->between[k]);
                free(ends);
                return SCN_EUSAGE;
            }
            ends[2 * i + k] = (uint32_t)id;
        }
        if (graph_port_to(n->g, ends[2 * i], ends[2 * i + 1]) < 0) {
            snprintf(err, errlen,
                     "%s: faults.%d.between: expected two linked nodes, got \"%s\" and \"%s\" (no link between them)",
                     scn->file, i, f->between[0], f->between[1]);
            free(ends);
            return SCN_EUSAGE;
        }
    }
    for (int i = 0; i < scn->n_faults; i++) {
        const struct scn_fault *f = &scn->faults[i];
        sim_fn begin, end;
        uint64_t arg = (uint64_t)i;
        switch (f->type) {
        case SCN_FAULT_LINK_DOWN:
            arg = pack(ends[2 * i], ends[2 * i + 1]);
            begin = link_fail_event;
            end = link_restore_event;
            break;
        case SCN_FAULT_LINK_ERRORS:
            if (!n->lerr_ends) {
                n->lerr_ends = mem_xcalloc((size_t)scn->n_faults * 2, sizeof *n->lerr_ends, "setting up faults");
                n->lerr_on = mem_xcalloc((size_t)scn->n_faults, sizeof *n->lerr_on, "setting up faults");
            }
            n->lerr_ends[2 * i] = ends[2 * i];
            n->lerr_ends[2 * i + 1] = ends[2 * i + 1];
            begin = errors_begin;
            end = errors_end;
            break;
        case SCN_FAULT_PAUSE_STORM:
            host_fault(n, &n->hosts[f->host]);
            begin = storm_begin;
            end = storm_end;
            break;
        default:
            host_fault(n, &n->hosts[f->host]);
            begin = slow_begin;
            end = slow_end;
            break;
        }
        sim_at(net_sim(n), f->start_ps, begin, n, arg);
        if (f->end_ps >= 0)
            sim_at(net_sim(n), f->end_ps, end, n, arg);
    }
    free(ends);
    return 0;
}
