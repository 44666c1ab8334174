/*
 * fault — the scenario's faults (the rules are in fault.h): the kind "fault" and what its modules share, the
 * state of a faulty NIC (a receive pipeline slower than the link, with PFC on its receive buffer like a switch
 * ingress, as switch.c counts it; PAUSE held by a storm, IEEE 802.1Qbb), and the set-up of every fault.  The
 * kinds are models/fault_*.c.
 */
#include "models/fabric.h"
#include "models/fault.h"
#include "models/mech.h"
#include "models/ranks.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/port.h"
#include "models/switch.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "topologies/routing.h"

/* ---- the kind ---- */

static const char *fault_missing(const struct module *m)
{
    const struct fault_ops *o = m->ops;
    if (!o->resolve || (!o->schedule && !o->shape))
        return !o->resolve ? "a resolve hook" : "a schedule or a shape hook";
    if (!m->groups[0] || m->groups[0]->size < sizeof(struct fault_span))
        return "a settings group whose struct begins with its struct fault_span";
    return NULL;
}

const struct module_kind fault_kind = {.name = "fault", .dflt = "pause_storm", .missing = fault_missing};

const struct fault_ops *fault_ops_of(const struct scn_fault *f)
{
    return module_at("fault", f->type)->ops;
}

const void *fault_conf(const struct scn_fault *f, size_t size)
{
    const struct module *m = module_at("fault", f->type);
    if (!m || !m->groups[0] || m->groups[0]->size != size || !f->conf) {
        fprintf(stderr, "rocesim: bug: fault kind \"%s\" reads its fields as a type its group does not declare\n",
                m ? m->name : "?");
        abort();
    }
    return f->conf;
}

/* ---- the kinds' shared fields ---- */

int fault_parse_end(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    int64_t *end = (int64_t *)((char *)base + f->offset);
    *end = -1;
    return v ? setting_val_qty(c, v, path, SETTING_TIME, false, end) : 0;
}

void fault_dump_end(cJSON *obj, const struct setting *f, const void *base)
{
    int64_t end = *(const int64_t *)((const char *)base + f->offset);
    char b[40];
    if (end >= 0)
        cJSON_AddStringToObject(obj, f->name, units_fmt_time(end, b, sizeof b));
}

static int check_after(struct setting_ctx *c, const char *path, const char *key, const char *start_key, void *base)
{
    const struct fault_span *sp = base;
    char p[SETTING_PATH_MAX], a[32], b[32];
    if (sp->end_ps >= 0 && sp->end_ps <= sp->start_ps)
        return setting_bad(c, setting_join(p, path, key), "expected a time after %s (%s), got \"%s\"", start_key,
                           units_fmt_time(sp->start_ps, a, sizeof a), units_fmt_time(sp->end_ps, b, sizeof b));
    return 0;
}

int fault_check_end(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    (void)obj;
    return check_after(c, path, "end", "start", base);
}

int fault_check_until(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    (void)obj;
    return check_after(c, path, "until", "at", base);
}

const char *const fault_direction_names[] = {"both", "forward", NULL};

int fault_parse_direction(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    int dir = 0;
    if (setting_val_enum(c, v, path, f->names, &dir) < 0)
        return -1;
    *(bool *)((char *)base + f->offset) = dir == 1;
    return 0;
}

void fault_dump_direction(cJSON *obj, const struct setting *f, const void *base)
{
    if (*(const bool *)((const char *)base + f->offset))
        cJSON_AddStringToObject(obj, f->name, "forward");
}

bool fault_overlap(const struct fault_span *a, const struct fault_span *b)
{
    return (b->end_ps < 0 || a->start_ps < b->end_ps) && (a->end_ps < 0 || b->start_ps < a->end_ps);
}

int fault_link_ends(struct net *n, int i, const char between[2][SCN_NAME_MAX], char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    for (int k = 0; k < 2; k++) {
        int32_t id = graph_find(n->g, between[k]);
        if (id < 0) {
            snprintf(err, errlen, "%s: faults.%d.between.%d: expected a node name, got \"%s\" (no such node)",
                     scn->file, i, k, between[k]);
            return SCN_EUSAGE;
        }
        n->fault_ends[2 * i + k] = (uint32_t)id;
    }
    if (graph_port_to(n->g, n->fault_ends[2 * i], n->fault_ends[2 * i + 1]) < 0) {
        snprintf(err, errlen,
                 "%s: faults.%d.between: expected two linked nodes, got \"%s\" and \"%s\" (no link between them)",
                 scn->file, i, between[0], between[1]);
        return SCN_EUSAGE;
    }
    return 0;
}

/* ---- NIC faults: pause_storm and slow_receiver ---- */

/* Host h's fault state, created on first use with its receive-buffer thresholds (fault.h); mem_oom when out of
 * memory. */
struct nic_fault *fault_host(struct net *n, struct host *h)
{
    if (h->fault)
        return h->fault;
    struct nic_fault *nf = mem_xcalloc(1, sizeof *nf, "setting up faults");
    const struct pfc_settings *pfc = n->pfc; /* the global switch object's, whatever the profiles say */
    const struct port *p = h->port;
    int64_t H = pfc_port_headroom(n, p, pfc->response_quanta);
    nf->h = h;
    nf->rx_timer.ent = net_ent(h->node);
    nf->xoff = 2 * H;
    nf->xon = nf->xoff > pfc->xon_delta ? nf->xoff - pfc->xon_delta : 0;
    nf->lossless_cap = nf->xoff + H;
    const struct switch_params *sp = switch_params_of(&n->scn->sw);
    double cap; /* at the host link's rate when the limit is a map by rate; a rate it lacks: no limit of its own */
    nf->lossy_cap = scn_rate_value(&sp->lossy_queue_limit_map, (double)sp->lossy_queue_limit, port_aux(p)->rate_bps,
                                   true, &cap) ? (int64_t)cap : INT64_MAX;
    h->fault = nf;
    return nf;
}

static void faults_free(struct net *n)
{
    for (uint32_t i = 0; n->hosts && i < n->g->n_hosts; i++) {
        free(n->hosts[i].fault);
        n->hosts[i].fault = NULL;
    }
    free(n->fault_ends);
    free(n->lerr_on);
    n->fault_ends = NULL;
    n->lerr_on = NULL;
}

/* The faults are set up by the run (faults_setup, after the traffic), but freed with the network. */
static const struct net_mech_ops faults_mech = {.name = "faults", .order = 90, .free = faults_free};
NET_MECH(faults_mech)

/* See fault.h: the PAUSE is then refreshed as a switch refreshes it. */
void fault_host_pfc_update(struct net *n, struct host *h, int prio)
{
    const struct nic_fault *nf = h->fault;
    pfc_host_hold(h->port, prio, nf->storm[prio] > 0 || nf->rx_xoff[prio]);
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
        fault_host_pfc_update(n, h, prio);
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
    if (!lossless && nf->rx_bytes[prio] + B > nf->lossy_cap) {
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
        fault_host_pfc_update(n, h, prio);
    }
    if (!nf->rx_timer.armed)
        rx_start(n, nf);
}

/* See fault.h. */
void fault_rx_recover(struct net *n, struct host *h)
{
    struct nic_fault *nf = h->fault;
    h->rx_divert = NULL;
    sim_timer_cancel(&nf->rx_timer);
    struct pkt *k;
    while ((k = pktq_pop(&nf->rxq))) {
        nf->rx_bytes[k->prio] -= k->size;
        nic_process(n, h, k);
    }
    for (int prio = 0; prio < NPRIO; prio++)
        if (nf->rx_xoff[prio]) {
            nf->rx_xoff[prio] = false;
            fault_host_pfc_update(n, h, prio);
        }
}

/* ---- links ---- */

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
    /* A fabric with its own routing (InfiniBand's subnet manager) routes again; when it cannot route what is left,
     * the shortest paths stay, and the run says so. */
    char err[SCN_ERR_MAX];
    if (n->fabric->route && n->fabric->route(n->scn, n->g, &n->sm, err, sizeof err))
        fprintf(stderr, "rocesim: note: after the link change, %s; the shortest paths are used instead\n", err);
    n->reroutes++;
    net_flows_rehome(n);
}

/* See fault.h: one level of nesting per fault; the routes are recomputed when a link changed state. */
void fault_link_change(struct net *n, uint32_t a, uint32_t b, bool fail)
{
    struct graph *g = n->g;
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
                if (n->lfc->link_up) {
                    in_node(n, &n->ports[pid], n->lfc->link_up);
                    in_node(n, n->ports[pid].peer, n->lfc->link_up);
                }
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
                        fault_host_pfc_update(n, h, prio);
                    ranks_leave(n, &re);
                }
            }
        }
    }
}

/* ---- set-up ---- */

static void alloc_ends(struct net *n)
{
    if (!n->fault_ends)
        n->fault_ends = mem_xcalloc((size_t)n->scn->n_faults * 2, sizeof *n->fault_ends, "setting up faults");
}

int faults_shape(struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    for (int i = 0; i < scn->n_faults; i++) {
        const struct fault_ops *o = fault_ops_of(&scn->faults[i]);
        if (!o->shape)
            continue;
        alloc_ends(n);
        int rc = o->shape(n, i, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int faults_setup(struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    if (!scn->n_faults)
        return 0;
    alloc_ends(n);
    /* Resolve everything first, so that a bad fault schedules nothing. */
    for (int i = 0; i < scn->n_faults; i++) {
        int rc = fault_ops_of(&scn->faults[i])->resolve(n, i, err, errlen);
        if (rc)
            return rc;
    }
    for (int i = 0; i < scn->n_faults; i++)
        if (fault_ops_of(&scn->faults[i])->schedule)
            fault_ops_of(&scn->faults[i])->schedule(n, i);
    return 0;
}
