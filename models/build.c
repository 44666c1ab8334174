/*
 * build — the runtime network (net.h) made over the graph: its ports, hosts and switches laid out and given their
 * settings (profiles.c), its flow control and congestion control chosen, and each mechanism's own set-up run
 * through its hooks (mech.h); and all of it freed.  Apart from net.h, whose types every mechanism shares, because it
 * runs once, before any event, and is the only part that calls every mechanism's construction, which it does without
 * naming them: it sits above them all, and they below it.
 */
#include "models/cc.h"
#include "models/fault.h"
#include "models/fabric.h"
#include "models/lfc.h"
#include "models/mech.h"
#include "models/nic.h"
#include "models/port.h"
#include "models/profiles.h"
#include "models/switch.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void init_port(struct net *n, struct port *p, uint32_t id)
{
    const struct g_port *gp = &n->g->ports[id];
    const struct g_node *gn = &n->g->nodes[gp->node];
    struct port_aux *x = &n->aux[id];
    p->net = n;
    p->node = gp->node;
    p->local = (uint16_t)(id - gn->first_port);
    p->kind = gn->kind == SCN_NODE_HOST ? NODE_HOST : NODE_SWITCH;
    p->peer = &n->ports[gp->peer];
    x->rate_bps = gp->rate_bps;
    p->delay_ps = gp->delay_ps;
    p->ps_per_byte = (8 * PS_PER_S) % gp->rate_bps == 0 ? 8 * PS_PER_S / gp->rate_bps : 0;
    for (int prio = 0; prio < NPRIO; prio++) {
        x->pause_expire[prio].port = p;
        x->pause_expire[prio].prio = (uint8_t)prio;
        x->pause_expire[prio].tm.ent = net_ent(p->node);
        x->pause_refresh[prio].port = p;
        x->pause_refresh[prio].prio = (uint8_t)prio;
        x->pause_refresh[prio].tm.ent = net_ent(p->node);
    }
}

/*
 * Lossy links (struct port_loss): the per-port state exists only when some link has a loss_rate or the scenario
 * has a link_errors fault, so that every other run allocates, draws and tests nothing more than before.
 */
static void init_loss(struct net *n)
{
    const struct scenario *scn = n->scn;
    const struct graph *g = n->g;
    bool lossy = false;
    for (uint32_t l = 0; l < g->n_links && !lossy; l++)
        lossy = g->links[l].spec.loss_rate > 0;
    for (int i = 0; i < scn->n_faults && !lossy; i++)
        lossy = fault_ops_of(&scn->faults[i])->corrupts;
    if (!lossy)
        return;
    n->loss = mem_xcalloc_big(g->n_ports, sizeof *n->loss, "building the network");
    n->arrive_extras = true;
    for (uint32_t i = 0; i < g->n_ports; i++) {
        struct port_loss *pl = &n->loss[i];
        rng_init(&pl->rng, scn->seed, rng_stream_id(RNG_KIND_CORRUPT, i));
        pl->base = pl->p = g->links[g->ports[i].link].spec.loss_rate;
    }
}

int net_init(struct net *n, struct sim *s, const struct scenario *scn, struct graph *g, const struct net_options *o,
             char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    n->sim = s;
    s->user = &n->own;
    n->scn = scn;
    n->g = g;
    if (sim_set_entities(s, net_ent(g->n_nodes))) {
        snprintf(err, errlen, "%u nodes: the engine numbers at most %u", g->n_nodes, SIM_ENT_LIMIT - 1);
        return -1;
    }
    pool_init(&n->pkts, sizeof(struct pkt));
    n->cc = (uint8_t)cc_params_of(&scn->host)->cc; /* the loader checked it: an index in the registry (cc.h) */
    const struct fabric_ops *fab = fabric_of(scn);
    n->fr = fabric_framing(scn);
    n->fabric = fab;
    for (int sl = 0; fab->service_levels && sl < FABRIC_NSL; sl++)
        n->vl_of_sl[sl] = (uint8_t)fab->vl_of(scn, sl);
    n->sl2vl = fab->service_levels ? n->vl_of_sl : NULL;
    n->host_frame = nic_params_of(&scn->host)->mtu + n->fr.hdr_data;
    n->stream_min_frames = NET_STREAM_MIN_FRAMES;
    n->ports = mem_xcalloc_big(g->n_ports, sizeof *n->ports, "building the network");
    n->aux = mem_xcalloc_big(g->n_ports, sizeof *n->aux, "building the network");
    for (int prio = 0; prio < NPRIO; prio++)
        n->pq[prio] = mem_xcalloc_big(g->n_ports, sizeof *n->pq[prio], "building the network");
    n->hosts = mem_xcalloc_big(g->n_hosts, sizeof *n->hosts, "building the network");
    n->sws = mem_xcalloc_big(g->n_switches, sizeof *n->sws, "building the network");
    n->node_sw = mem_xcalloc_big(g->n_nodes, sizeof *n->node_sw, "building the network");
    n->node_host = mem_xcalloc_big(g->n_nodes, sizeof *n->node_host, "building the network");
    /* A fabric that requires its flow control has it (the loader refused another choice: fabric.c). */
    n->lfc = fab->lfc ? lfc_at(module_find(lfc_kind.name, fab->lfc)) : lfc_at(lfc_params_of(&scn->sw)->flow_control);
    n->tx_extras = n->lfc->sent ? NET_TX_LFC : 0;

    /* a fault that changes the network for the whole run (a slowed link) does so before the ports take its rates */
    int rc = faults_shape(n, err, errlen);
    if (rc) {
        net_free(n);
        return rc;
    }
    for (uint32_t i = 0; i < g->n_ports; i++)
        init_port(n, &n->ports[i], i);
    n->step_summary = o && o->step_summary;
    if (o && o->counters) {
        n->ctr = mem_xcalloc_big((size_t)g->n_ports * NPRIO, sizeof *n->ctr, "building the network's counters");
        n->arrive_extras = true;
    }
    init_loss(n);
    for (uint32_t id = 0; id < g->n_nodes; id++) {
        if (g->nodes[id].kind == SCN_NODE_HOST)
            n->node_host[id] = &n->hosts[g->nodes[id].host];
        else
            n->node_sw[id] = &n->sws[g->nodes[id].sw];
    }
    rc = net_resolve_settings(n, err, errlen);
    if (rc) {
        net_free(n);
        return rc;
    }
    for (uint32_t id = 0; id < g->n_nodes; id++) {
        const struct g_node *gn = &g->nodes[id];
        if (gn->kind == SCN_NODE_HOST) {
            struct host *h = &n->hosts[gn->host];
            h->node = id;
            h->index = (uint32_t)gn->host;
            h->port = &n->ports[gn->first_port];
            h->rate_bps = gn->line_bps ? gn->line_bps : port_aux(h->port)->rate_bps;
            h->n_ports = gn->n_ports;
            if (gn->n_ports > 1) {
                h->more = mem_xcalloc(gn->n_ports - 1, sizeof *h->more, "building the network's hosts");
                for (uint32_t i = 1; i < gn->n_ports; i++)
                    h->more[i - 1].rate_bps = port_aux(h->port + i)->rate_bps;
            }
            continue;
        }
        struct sw *w = &n->sws[gn->sw];
        w->node = id;
        w->ordinal = (uint32_t)gn->sw;
        w->group = gn->group;
        w->ports = &n->ports[gn->first_port];
        w->n_ports = gn->n_ports;
        struct rng salt;
        rng_init(&salt, scn->seed, rng_stream_id(RNG_KIND_ECMP, w->ordinal));
        w->salt = (uint32_t)rng_next(&salt);
        net_sw_limits(n, w, w->cfg);
        for (uint32_t i = 0; i < gn->n_ports; i++) {
            struct port *p = &w->ports[i];
            struct port_aux *x = port_aux(p);
            const struct port_cfg *pc = &n->pcfg[p->cfg];
            x->headroom = pc->headroom;
            w->hdrm_reserved += x->headroom * __builtin_popcount(pc->lossless);
        }
        if (w->hdrm_reserved >= w->lim.buffer) {
            char a[32], b[32];
            snprintf(err, errlen,
                     "%s: switch.buffer: %s is not enough for the PFC headroom of switch %s (%s reserved); "
                     "raise switch.buffer or lower switch.pfc.headroom",
                     scn->file, units_fmt_size(switch_params_of(w->cfg)->buffer, a, sizeof a), gn->name,
                     units_fmt_size(w->hdrm_reserved, b, sizeof b));
            net_free(n);
            return SCN_EUSAGE;
        }
    }
    if ((fab->route && (rc = fab->route(scn, n->g, &n->sm, err, errlen))) || (rc = fabric_check(n, err, errlen))) {
        net_free(n);
        return rc;
    }
    net_mechs_init(n);
    return 0;
}

/* The mechanisms first, in the reverse of their order (mech.h): their state hangs off the arrays freed here. */
void net_free(struct net *n)
{
    net_mechs_free(n);
    sm_layers_free(&n->sm);
    pool_free_all(&n->pkts);
    free(n->ports);
    free(n->aux);
    for (int prio = 0; prio < NPRIO; prio++)
        free(n->pq[prio]);
    for (uint32_t i = 0; n->hosts && i < n->g->n_hosts; i++)
        free(n->hosts[i].more);
    free(n->hosts);
    free(n->sws);
    free(n->node_sw);
    free(n->node_host);
    free(n->loss);
    free(n->ctr);
    free(n->pcfg);
    free(n->sw_cfgs);
    free(n->host_cfgs);
    memset(n, 0, sizeof *n);
}
