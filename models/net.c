/*
 * net — building the runtime network from the graph, flows, drops, invariants.
 */
#include "models/cc.h"
#include "models/lfc.h"
#include "models/mech.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/port.h"
#include "models/ranks.h"
#include "models/route.h"
#include "sim/parallel.h"
#include "sim/units.h"
#include "topologies/routing.h"

#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bytes rounded up to whole cells of `cell` bytes (cell 0: bytes unchanged). */
static int64_t whole_cells(int64_t bytes, int64_t cell)
{
    return cell ? (bytes + cell - 1) / cell * cell : bytes;
}

/*
 * Switch w's thresholds in its unit of account (struct sw_limits).  Rounded up, as the settings are sizes the
 * switch must hold: a threshold of 300 bytes in 256-byte cells is 2 cells.
 */
static void init_limits(struct sw *w, const struct scn_switch *cfg)
{
    int64_t c = cfg->cell_size;
    w->lim.cell = (uint32_t)c;
    w->lim.cells_or_mtu = c != 0 || cfg->mtu != 0;
    w->lim.buffer = whole_cells(cfg->buffer, c);
    w->lim.lossy_queue_limit = whole_cells(cfg->lossy_queue_limit, c);
}

/*
 * A headroom of `headroom` bytes (per lossless priority; is_auto: pfc_headroom's whole frames of `frame` bytes, the
 * largest that arrive) as a switch with cells of `cell` bytes reserves it: each auto frame takes its whole cells, a
 * fixed size is rounded up to whole cells; cell 0: unchanged.
 */
static int64_t headroom_cells(int64_t headroom, bool is_auto, int frame, int cell)
{
    if (!cell)
        return headroom;
    if (!is_auto)
        return whole_cells(headroom, cell);
    return headroom / frame * whole_cells(frame, cell);
}

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
        lossy = scn->faults[i].type == SCN_FAULT_LINK_ERRORS;
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

/* ------------------------------------------------------------------------ */
/* Settings per node and per port (profiles, settings by port speed)          */

/* The index of an entry equal to *v in the n entries of tab (each `size` bytes), appending it when there is none. */
static uint32_t dedup(void *tab, uint32_t *n, const void *v, size_t size)
{
    for (uint32_t i = 0; i < *n; i++)
        if (memcmp((char *)tab + (size_t)i * size, v, size) == 0)
            return i;
    memcpy((char *)tab + (size_t)(*n) * size, v, size);
    return (*n)++;
}

/* Whether profile pr's selectors match switch port `local` of node `name` ("node:port" selectors). */
static bool port_matches(const struct scn_profile *pr, const char *name, uint32_t local)
{
    for (int i = 0; i < pr->n_match; i++) {
        char node[2 * SCN_NAME_MAX];
        snprintf(node, sizeof node, "%s", pr->match[i]);
        char *colon = strchr(node, ':');
        *colon = '\0';
        if (scn_name_match(node, name) && (strcmp(colon + 1, "*") == 0 || (uint32_t)atol(colon + 1) == local))
            return true;
    }
    return false;
}

static bool node_matches(const struct scn_profile *pr, const char *name)
{
    for (int i = 0; i < pr->n_match; i++)
        if (scn_name_match(pr->match[i], name))
            return true;
    return false;
}

/* A selector that matches no node of its profile's kind is an error, worded like monitor.queues'. */
static int check_selectors(const struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    const struct graph *g = n->g;
    for (int i = 0; i < scn->n_profiles; i++) {
        const struct scn_profile *pr = &scn->profiles[i];
        bool sw = pr->kind == SCN_PROFILE_SWITCH;
        for (int k = 0; k < pr->n_match; k++) {
            char node[2 * SCN_NAME_MAX];
            snprintf(node, sizeof node, "%s", pr->match[k]);
            char *colon = pr->ports ? strchr(node, ':') : NULL;
            if (colon)
                *colon = '\0';
            bool node_found = false, port_found = false;
            for (uint32_t id = 0; id < g->n_nodes && !port_found; id++) {
                const struct g_node *gn = &g->nodes[id];
                if ((gn->kind == SCN_NODE_SWITCH) != sw || !scn_name_match(node, gn->name))
                    continue;
                node_found = true;
                port_found = !colon || strcmp(colon + 1, "*") == 0 || (uint32_t)atol(colon + 1) < gn->n_ports;
            }
            const char *kind = sw ? "switch" : "host";
            char path[64];
            if (pr->match_array)
                snprintf(path, sizeof path, "profiles.%d.match.%d", i, k);
            else
                snprintf(path, sizeof path, "profiles.%d.match", i);
            if (!node_found) {
                snprintf(err, errlen, "%s: %s: expected a selector matching a %s, got \"%s\" (no %s is named so; "
                         "\"all\", a name, a range like \"%s0-%s3\" or a pattern like \"%s*\")", scn->file, path, kind,
                         pr->match[k], kind, sw ? "tor" : "h", sw ? "tor" : "h", sw ? "tor" : "h");
                return SCN_EUSAGE;
            }
            if (!port_found) {
                snprintf(err, errlen, "%s: %s: expected a port that exists, got \"%s\" (no switch matching \"%s\" has "
                         "port %s; ports are numbered from 0)", scn->file, path, pr->match[k], node, colon + 1);
                return SCN_EUSAGE;
            }
        }
    }
    return 0;
}

/* The path of a switch setting as the user gave it: in the switch object or in profile `profile`. */
static const char *setting_path(char *buf, size_t len, int profile, const char *rest)
{
    if (profile < 0)
        snprintf(buf, len, "switch.%s", rest);
    else
        snprintf(buf, len, "profiles.%d.switch.%s", profile, rest);
    return buf;
}

/* A value of w's map m (field `rest`) at port p's rate, or an error naming the path, the rate and the port. */
static int port_value(const struct net *n, const struct scn_rate_map *m, double scalar, bool is_size,
                      const struct port *p, const char *rest, double *out, char *err, size_t errlen)
{
    int64_t rate = port_aux(p)->rate_bps;
    if (scn_rate_value(m, scalar, rate, is_size, out))
        return 0;
    char path[160], r[32];
    snprintf(err, errlen, "%s: %s: expected an entry for every port rate, got none for %s (port %s:%u); add one, "
             "or \"scale\": \"linear\" to scale the nearest entry", n->scn->file,
             setting_path(path, sizeof path, m->profile, rest), units_fmt_rate(rate, r, sizeof r),
             n->g->nodes[p->node].name, p->local);
    return SCN_EUSAGE;
}

/* Resolves port p's settings (struct port_cfg) from the switch settings c at its rate. */
static int resolve_port(const struct net *n, const struct scn_switch *c, const struct port *p, struct port_cfg *pc,
                        char *err, size_t errlen)
{
    const struct scn_pfc *pfc = &c->pfc;
    double kmin, kmax, pmax, alpha, xoff, xon, hdrm;
    memset(pc, 0, sizeof *pc);
    if (port_value(n, &c->ecn.kmin_map, (double)c->ecn.kmin, true, p, "ecn.kmin", &kmin, err, errlen) ||
        port_value(n, &c->ecn.kmax_map, (double)c->ecn.kmax, true, p, "ecn.kmax", &kmax, err, errlen) ||
        port_value(n, &c->ecn.pmax_map, c->ecn.pmax, false, p, "ecn.pmax", &pmax, err, errlen) ||
        port_value(n, &pfc->alpha_map, pfc->dynamic_alpha, false, p, "pfc.dynamic_alpha", &alpha, err, errlen) ||
        port_value(n, &pfc->xoff_map, (double)pfc->xoff_bytes, true, p, "pfc.xoff", &xoff, err, errlen) ||
        port_value(n, &pfc->xon_map, (double)pfc->xon_delta, true, p, "pfc.xon_delta", &xon, err, errlen) ||
        port_value(n, &pfc->headroom_map, (double)pfc->headroom_bytes, true, p, "pfc.headroom", &hdrm, err, errlen))
        return SCN_EUSAGE;
    char path[160], a[32], b[32];
    if (kmax < kmin) {
        snprintf(err, errlen, "%s: %s: expected a size at least kmin (%s) at every port, got \"%s\" at port %s:%u",
                 n->scn->file, setting_path(path, sizeof path, c->ecn.kmax_map.n ? c->ecn.kmax_map.profile :
                                            c->ecn.kmin_map.profile, "ecn.kmax"),
                 units_fmt_size((int64_t)kmin, a, sizeof a), units_fmt_size((int64_t)kmax, b, sizeof b),
                 n->g->nodes[p->node].name, p->local);
        return SCN_EUSAGE;
    }
    if (pfc->xoff_mode == SCN_XOFF_STATIC && xon > xoff) {
        snprintf(err, errlen, "%s: %s: expected a size no larger than xoff (%s) at every port, got \"%s\" at port %s:%u",
                 n->scn->file, setting_path(path, sizeof path, pfc->xon_map.n ? pfc->xon_map.profile :
                                            pfc->xoff_map.profile, "pfc.xon_delta"),
                 units_fmt_size((int64_t)xoff, a, sizeof a), units_fmt_size((int64_t)xon, b, sizeof b),
                 n->g->nodes[p->node].name, p->local);
        return SCN_EUSAGE;
    }
    pc->lossless = pfc->enabled ? pfc->lossless_mask : 0;
    pc->ecn_dequeue = c->ecn.enabled && c->ecn.mark_on == SCN_MARK_DEQUEUE;
    pc->ecn_enqueue = c->ecn.enabled && c->ecn.mark_on == SCN_MARK_ENQUEUE;
    pc->xoff_static = pfc->xoff_mode == SCN_XOFF_STATIC;
    pc->alpha = alpha;
    pc->xoff = (int64_t)xoff;
    pc->xon_delta = (int64_t)xon;
    pc->rate_bps = port_aux(p)->rate_bps;
    bool is_auto = pfc->headroom_auto && !pfc->headroom_map.n;
    int frame_in, frame_out;
    pfc_port_frames(n, p, &frame_in, &frame_out);
    pc->headroom_auto = pfc_port_headroom(n, p, pfc->response_quanta);
    pc->headroom = is_auto ? pc->headroom_auto : (int64_t)hdrm;
    pc->ecn.enabled = c->ecn.enabled;
    pc->ecn.kmin = (int64_t)kmin;
    pc->ecn.kmax = (int64_t)kmax;
    pc->ecn.pmax = pmax;
    /* A switch that counts cells compares whole cells: its thresholds round up to them (switch.cell_size). */
    int cell = c->cell_size;
    if (cell) {
        pc->xoff = whole_cells(pc->xoff, cell);
        pc->xon_delta = whole_cells(pc->xon_delta, cell);
        pc->headroom = headroom_cells(pc->headroom, is_auto, frame_in, cell);
        pc->ecn.kmin = whole_cells(pc->ecn.kmin, cell);
        pc->ecn.kmax = whole_cells(pc->ecn.kmax, cell);
    }
    return 0;
}

/*
 * Gives every switch, switch port and host its settings: the global object, then the profiles that match it, in
 * order (a port's: its switch's node profiles and the port profiles that match it, in order), each distinct set
 * once.  Runs before the switches' buffers are laid out.
 */
static int resolve_settings(struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    const struct graph *g = n->g;
    int rc = check_selectors(n, err, errlen);
    if (rc)
        return rc;
    bool port_profiles = false;
    for (int i = 0; i < scn->n_profiles; i++)
        port_profiles |= scn->profiles[i].ports;
    n->sw_cfgs = mem_xcalloc_big(g->n_switches ? g->n_switches : 1, sizeof *n->sw_cfgs, "building the network");
    n->host_cfgs = mem_xcalloc_big(g->n_hosts ? g->n_hosts : 1, sizeof *n->host_cfgs, "building the network");
    /* At most one entry per port, but in practice a handful: grown as needed. */
    uint32_t pcap = 16;
    n->pcfg = mem_xcalloc(pcap, sizeof *n->pcfg, "building the network");
    struct scn_switch *tmp = mem_xcalloc(1, sizeof *tmp, "building the network");
    struct scn_host *htmp = mem_xcalloc(1, sizeof *htmp, "building the network");
    uint32_t *sw_idx = mem_xcalloc(g->n_switches ? g->n_switches : 1, sizeof *sw_idx, "building the network");
    uint32_t *host_idx = mem_xcalloc(g->n_hosts ? g->n_hosts : 1, sizeof *host_idx, "building the network");
    for (uint32_t id = 0; id < g->n_nodes && !rc; id++) {
        const struct g_node *gn = &g->nodes[id];
        bool is_sw = gn->kind == SCN_NODE_SWITCH;
        if (is_sw)
            memcpy(tmp, &scn->sw, sizeof *tmp);
        else
            memcpy(htmp, &scn->host, sizeof *htmp);
        for (int i = 0; i < scn->n_profiles && !rc; i++) {
            const struct scn_profile *pr = &scn->profiles[i];
            if ((pr->kind == SCN_PROFILE_SWITCH) == is_sw && !pr->ports && node_matches(pr, gn->name))
                rc = scn_profile_apply(scn, i, is_sw ? (void *)tmp : (void *)htmp, err, errlen);
        }
        if (is_sw)
            sw_idx[gn->sw] = dedup(n->sw_cfgs, &n->n_sw_cfgs, tmp, sizeof *tmp);
        else
            host_idx[gn->host] = dedup(n->host_cfgs, &n->n_host_cfgs, htmp, sizeof *htmp);
    }
    /* Every host's and switch's settings before any port's: a port's auto headroom reads its peer's MTU and the
     * largest frame of the network (pfc_port_frames). */
    for (uint32_t i = 0; i < g->n_hosts && !rc; i++) {
        n->hosts[i].cfg = &n->host_cfgs[host_idx[i]];
        if (n->hosts[i].cfg->mtu + HDR_DATA > n->frame_max)
            n->frame_max = n->hosts[i].cfg->mtu + HDR_DATA;
    }
    for (uint32_t i = 0; i < g->n_switches && !rc; i++)
        n->sws[i].cfg = &n->sw_cfgs[sw_idx[i]];
    for (uint32_t id = 0; id < g->n_nodes && !rc; id++) {
        const struct g_node *gn = &g->nodes[id];
        if (gn->kind != SCN_NODE_SWITCH)
            continue;
        const struct scn_switch *swc = n->sws[gn->sw].cfg;
        for (uint32_t j = 0; j < gn->n_ports && !rc; j++) {
            struct port *p = &n->ports[gn->first_port + j];
            const struct scn_switch *c = swc;
            bool own = false;
            for (int i = 0; port_profiles && i < scn->n_profiles && !own; i++)
                own = scn->profiles[i].ports && port_matches(&scn->profiles[i], gn->name, j);
            if (own) {
                memcpy(tmp, &scn->sw, sizeof *tmp);
                for (int i = 0; i < scn->n_profiles && !rc; i++) {
                    const struct scn_profile *pr = &scn->profiles[i];
                    if (pr->kind == SCN_PROFILE_SWITCH &&
                        (pr->ports ? port_matches(pr, gn->name, j) : node_matches(pr, gn->name)))
                        rc = scn_profile_apply(scn, i, tmp, err, errlen);
                }
                c = tmp;
            }
            struct port_cfg pc;
            if (rc || (rc = resolve_port(n, c, p, &pc, err, errlen)))
                break;
            if (n->n_pcfg == pcap) {
                if (pcap >= UINT16_MAX + 1u) {
                    snprintf(err, errlen, "%s: profiles: expected at most %u distinct sets of port settings, got more",
                             scn->file, UINT16_MAX + 1u);
                    rc = SCN_EUSAGE;
                    break;
                }
                pcap *= 2;
                n->pcfg = mem_xrealloc(n->pcfg, pcap * sizeof *n->pcfg, "building the network");
            }
            p->cfg = (uint16_t)dedup(n->pcfg, &n->n_pcfg, &pc, sizeof pc);
            n->lossless |= pc.lossless;
        }
    }
    free(tmp);
    free(htmp);
    free(sw_idx);
    free(host_idx);
    return rc;
}

int net_init(struct net *n, struct sim *s, const struct scenario *scn, struct graph *g, char *err,
             size_t errlen)
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
    int cc = cc_find(cc_scenario_name(scn->host.cc));
    if (cc < 0) {
        fprintf(stderr, "rocesim: bug: no congestion control \"%s\" is registered\n", cc_scenario_name(scn->host.cc));
        abort();
    }
    n->cc = (uint8_t)cc;
    n->stream_min_frames = NET_STREAM_MIN_FRAMES;
    n->ports = mem_xcalloc_big(g->n_ports, sizeof *n->ports, "building the network");
    n->aux = mem_xcalloc_big(g->n_ports, sizeof *n->aux, "building the network");
    for (int prio = 0; prio < NPRIO; prio++)
        n->pq[prio] = mem_xcalloc_big(g->n_ports, sizeof *n->pq[prio], "building the network");
    n->hosts = mem_xcalloc_big(g->n_hosts, sizeof *n->hosts, "building the network");
    n->sws = mem_xcalloc_big(g->n_switches, sizeof *n->sws, "building the network");
    n->node_sw = mem_xcalloc_big(g->n_nodes, sizeof *n->node_sw, "building the network");
    n->node_host = mem_xcalloc_big(g->n_nodes, sizeof *n->node_host, "building the network");
    n->lfc = lfc_find("pfc");

    for (uint32_t i = 0; i < g->n_ports; i++)
        init_port(n, &n->ports[i], i);
    if (n->scn->monitor.counters) {
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
    int rc = resolve_settings(n, err, errlen);
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
            h->rate_bps = port_aux(h->port)->rate_bps;
            continue;
        }
        struct sw *w = &n->sws[gn->sw];
        w->node = id;
        w->ordinal = (uint32_t)gn->sw;
        w->group = gn->group;
        w->ports = &n->ports[gn->first_port];
        w->n_ports = gn->n_ports;
        rng_init(&w->ecn_rng, scn->seed, rng_stream_id(RNG_KIND_ECN, w->ordinal));
        struct rng salt;
        rng_init(&salt, scn->seed, rng_stream_id(RNG_KIND_ECMP, w->ordinal));
        w->salt = (uint32_t)rng_next(&salt);
        init_limits(w, w->cfg);
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
                     scn->file, units_fmt_size(w->cfg->buffer, a, sizeof a), gn->name,
                     units_fmt_size(w->hdrm_reserved, b, sizeof b));
            net_free(n);
            return SCN_EUSAGE;
        }
    }
    net_mechs_init(n);
    return 0;
}

/* The mechanisms first, in the reverse of their order (mech.h): their state hangs off the arrays freed here. */
void net_free(struct net *n)
{
    net_mechs_free(n);
    pool_free_all(&n->pkts);
    free(n->ports);
    free(n->aux);
    for (int prio = 0; prio < NPRIO; prio++)
        free(n->pq[prio]);
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

/* 32-bit mix (murmur3 finalizer constants) of the flow's identity, per direction. */
static uint32_t flow_hash(uint32_t src, uint32_t dst, uint32_t id)
{
    uint64_t x = ((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ id;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/*
 * The time a frame of `wire` bytes (preamble and gap included) takes to cross an empty network along flow f's
 * path, the serialization and delay of every link (store and forward): from its sender to its receiver as its
 * data routes (hash_fwd), or back as its ACKs do (hash_rev, minimal; a pinned path reversed).  The slowest link
 * goes to *bottleneck; 0 when the hosts are not connected.
 */
static sim_time_t path_time(const struct net *n, const struct flow *f, bool back, uint32_t wire, int64_t *bottleneck)
{
    const struct graph *g = n->g;
    uint32_t to = back ? f->src : f->dst;
    uint32_t node = g->host_node[back ? f->dst : f->src];
    sim_time_t t = 0;
    *bottleneck = INT64_MAX;
    for (int hop = 0; node != g->host_node[to]; hop++) {
        uint32_t local;
        if (f->path_len) {
            if (hop + 1 >= f->path_len)
                return 0;
            local = back ? f->path_ports[2 * f->path_len - 1 - hop] : f->path_ports[hop];
        } else {
            const uint16_t *ports;
            uint32_t cnt = graph_nexthops(g, node, to, &ports);
            if (cnt == 0)
                return 0;
            const struct g_node *gn = &g->nodes[node];
            local = cnt == 1 || gn->kind == SCN_NODE_HOST
                        ? ports[0]
                        : ports[routing_ecmp_pick(back ? f->hash_rev : f->hash_fwd, n->sws[gn->sw].salt, cnt)];
        }
        const struct g_port *gp = &g->ports[g->nodes[node].first_port + local];
        t += units_tx_ps(wire, gp->rate_bps) + gp->delay_ps;
        if (gp->rate_bps < *bottleneck)
            *bottleneck = gp->rate_bps;
        node = g->ports[gp->peer].node;
        if (hop > 255)
            return 0;
    }
    return t;
}

/*
 * Ideal FCT: the first frame crosses every link (serialization + delay), and
 * every later frame adds its serialization at the bottleneck (the slowest link,
 * or the flow's own rate cap when lower).
 */
static sim_time_t ideal_fct(const struct net *n, const struct flow *f)
{
    uint32_t first_wire = (uint32_t)(f->n_pkts > 1 ? f->mtu : f->size) + HDR_DATA + WIRE_OVERHEAD;
    int64_t bottleneck;
    sim_time_t first = path_time(n, f, false, first_wire, &bottleneck);
    if (first == 0)
        return 0;
    if (f->rate_cap_bps && f->rate_cap_bps < bottleneck)
        bottleneck = f->rate_cap_bps;
    int64_t rest_wire = f->size + (int64_t)f->n_pkts * (HDR_DATA + WIRE_OVERHEAD) - first_wire;
    return first + units_tx_ps(rest_wire, bottleneck);
}

/*
 * Ideal FCT to the sender's last ACK: the ideal FCT and then the ACK's way back, sent the moment the last frame
 * arrives (an ACK of FRAME_ACK bytes; the INT hops an HPCC ACK echoes are left out, as ideal_fct leaves out the
 * data's).  On an empty network fct_ack / ideal_fct_ack is 1, as the HPCC paper's slowdown is against a base
 * RTT plus the flow's bytes at line rate.
 */
static sim_time_t ideal_fct_ack(const struct net *n, const struct flow *f)
{
    int64_t bottleneck;
    sim_time_t back = path_time(n, f, true, FRAME_ACK + WIRE_OVERHEAD, &bottleneck);
    return f->ideal_fct > 0 && back > 0 ? f->ideal_fct + back : 0;
}

uint32_t net_reserve_flows(struct net *n, uint32_t count)
{
    uint32_t base = n->n_flows;
    if (count > UINT32_MAX - base)
        mem_oom("adding flows");
    for (uint32_t idx = base; idx < base + count; idx++) {
        uint32_t chunk = idx >> FLOW_CHUNK_BITS;
        if ((idx & ((1u << FLOW_CHUNK_BITS) - 1)) == 0) {
            if (chunk == n->chunks_cap) {
                uint32_t nc = n->chunks_cap ? n->chunks_cap * 2 : 16;
                n->flow_chunks = mem_xrealloc(n->flow_chunks, nc * sizeof *n->flow_chunks, "adding flows");
                n->chunks_cap = nc;
            }
            /* zeroed: a reserved flow not made yet has no net (net_flow_made) */
            n->flow_chunks[chunk] = mem_xcalloc_big(1u << FLOW_CHUNK_BITS, sizeof(struct flow), "adding flows");
        }
    }
    n->n_flows += count;
    return base;
}

uint32_t net_flows_made(const struct net *n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n->n_flows; i++)
        m += net_flow_made(net_flow(n, i));
    return m;
}

struct flow *net_add_flow(struct net *n, const char *name, uint32_t src, uint32_t dst, int64_t size,
                          sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                          int path_len)
{
    return net_make_flow(n, net_reserve_flows(n, 1), name, src, dst, size, start, prio, rate_cap_bps, path_nodes,
                         path_len);
}

/* The flow at place idx as made, not yet counted nor started. */
static struct flow *flow_init(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                              sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                              int path_len)
{
    struct flow *f = net_flow(n, idx);
    memset(f, 0, sizeof *f);
    f->net = n;
    f->idx = idx;
    f->name = name;
    f->src = src;
    f->dst = dst;
    f->pace_timer.ent = f->rto_timer.ent = f->cc_timer.ent = flow_sender_ent(f); /* its sender's timers */
    f->prio = (uint8_t)(prio >= 0 ? prio : n->hosts[src].cfg->priority); /* -1: the sender's host.priority */
    f->size = size;
    f->mtu = (uint32_t)n->hosts[src].cfg->mtu;
    f->n_pkts = (uint32_t)((size + f->mtu - 1) / f->mtu);
    f->start = start;
    f->finish = -1;
    f->last_cnp = -1;
    f->rate_cap_bps = rate_cap_bps;
    /* Each flow keeps its own congestion control (flow.cc): its sender's, which a host profile may set. */
    cc_flow_setup(n, f, n->hosts[src].cfg->cc == n->scn->host.cc ? n->cc
                                                               : cc_find(cc_scenario_name(n->hosts[src].cfg->cc)));
    f->hash_fwd = flow_hash(src, dst, idx);
    f->hash_rev = flow_hash(dst, src, idx);
    f->via_host = NET_NO_VIA;
    f->via_group = -1;
    if (path_nodes && path_len >= 2) {
        /* path_ports[0..L-1]: egress toward path[i+1]; path_ports[L..2L-1]: egress toward path[i-1] */
        f->path_len = (uint8_t)path_len;
        f->path_nodes = mem_xcalloc_big((size_t)path_len, sizeof *f->path_nodes, "adding a flow's pinned path");
        f->path_ports = mem_xcalloc_big((size_t)path_len * 2, sizeof *f->path_ports, "adding a flow's pinned path");
        memcpy(f->path_nodes, path_nodes, sizeof *path_nodes * (size_t)path_len);
        for (int i = 0; i < path_len; i++) {
            if (i + 1 < path_len)
                f->path_ports[i] = (uint16_t)graph_port_to(n->g, path_nodes[i], path_nodes[i + 1]);
            if (i > 0)
                f->path_ports[path_len + i] = (uint16_t)graph_port_to(n->g, path_nodes[i], path_nodes[i - 1]);
        }
    }
    f->ideal_fct = ideal_fct(n, f);
    f->ideal_fct_ack = ideal_fct_ack(n, f);
    f->acked = -1;
    return f;
}

struct flow *net_mirror_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                             sim_time_t start, int prio)
{
    return flow_init(n, idx, name, src, dst, size, start, prio, 0, NULL, 0);
}

struct flow *net_make_flow(struct net *n, uint32_t idx, const char *name, uint32_t src, uint32_t dst, int64_t size,
                           sim_time_t start, int prio, int64_t rate_cap_bps, const uint32_t *path_nodes,
                           int path_len)
{
    struct flow *f = flow_init(n, idx, name, src, dst, size, start, prio, rate_cap_bps, path_nodes, path_len);
    net_np(n)->flows_active++;
    sim_fn begin = route_flow_needs_choice(n, f) ? route_flow_start : nic_flow_start;
    sim_at_to(net_sim(n), start, flow_sender_ent(f), begin, f, 0);
    return f;
}

static void flows_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_flows; i++) {
        struct flow *f = net_flow(n, i);
        free(f->path_ports);
        free(f->path_nodes);
    }
    uint32_t chunks = (n->n_flows + (1u << FLOW_CHUNK_BITS) - 1) >> FLOW_CHUNK_BITS;
    for (uint32_t i = 0; i < chunks; i++)
        free(n->flow_chunks[i]);
    free(n->flow_chunks);
}

static const struct net_mech_ops flows_mech = {.name = "flows", .order = 100, .free = flows_free};
NET_MECH(flows_mech)

void net_drop(struct net *n, struct pkt *k, enum drop_reason reason)
{
    /* What the loss leaves unknown to the sender: the data frame's PSN, or what the ACK or NACK would have said. */
    if (k->type <= PKT_NACK && k->flow < n->n_flows) {
        struct flow *f = net_flow(n, k->flow);
        net_lost(n, f, k->type == PKT_ACK ? k->psn : k->psn + 1);
    }
    struct net_counters *c = &net_np(n)->c;
    if (k->type == PKT_DATA) {
        c->data_dropped++;
        c->prio[k->prio].dropped++;
        c->bytes_dropped += k->size;
        c->data_in_flight--;
        c->data_bytes_in_flight -= k->size;
        switch (reason) {
        case DROP_BUFFER: c->drop_buffer++; break;
        case DROP_HEADROOM: c->drop_headroom++; break;
        case DROP_WATCHDOG: c->drop_watchdog++; break;
        case DROP_CORRUPT: c->drop_corrupt++; break;
        case DROP_MTU: c->drop_mtu++; break;
        default: c->drop_link_down++; break;
        }
    } else {
        c->ctrl_dropped++;
    }
    pkt_free(n, k);
    net_check_finish(n);
}

/* Whether no flow is active, no data packet is in flight and no source will add traffic (totals). */
static bool traffic_done(const struct net *n)
{
    return n->flows_active == 0 && n->c.data_in_flight == 0 && n->pending_sources == 0;
}

void net_check_finish(struct net *n)
{
    /* A partition sees only its own counts: a partitioned run asks at the grid's lines (net_partition). */
    if (!net_partitioned(n) && traffic_done(n))
        sim_stop(net_sim(n));
}

/* ---- network events and partitions ---- */

/* Notes an event of a partition of a run in several (NET_NOTIFY); returns false when it is to be told now. */
static bool note(struct net *n, struct net_note nt)
{
    struct net_part *np = net_np(n);
    if (np == &n->own || n->n_parts < 2)
        return false; /* the run's own event, between windows, or one partition: told in order as it happens */
    if (np->n_notes == np->cap_notes) {
        np->cap_notes = np->cap_notes ? np->cap_notes * 2 : 64;
        np->notes = mem_xrealloc(np->notes, sizeof *np->notes * np->cap_notes, "noting network events");
    }
    const struct sim *s = sim_cur;
    nt.t = s->now;
    nt.seq = s->cur_seq;
    nt.sub = n->enter_sub;
    np->notes[np->n_notes++] = nt;
    return true;
}

static void tell_pfc(const struct net_listeners *l, sim_time_t t, uint32_t node, uint32_t port, int prio, bool on)
{
    for (unsigned i = 0; i < l->n_pfc; i++)
        l->pfc[i].fn(l->pfc[i].ctx, t, node, port, prio, on);
}

static void tell_wd(const struct net_listeners *l, sim_time_t t, uint32_t node, uint32_t port, int prio, bool on)
{
    for (unsigned i = 0; i < l->n_wd; i++)
        l->wd[i].fn(l->wd[i].ctx, t, node, port, prio, on);
}

static void tell_flow(const struct net_listeners *l, const struct flow *f)
{
    for (unsigned i = 0; i < l->n_flow; i++)
        l->flow[i].fn(l->flow[i].ctx, f);
}

void net_fan_pfc(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    if (!note(n, (struct net_note){.kind = NOTE_PFC, .at = t, .node = node, .port = port, .prio = (int8_t)prio,
                                   .on = pause}))
        tell_pfc(&n->listen, t, node, port, prio, pause);
}

void net_fan_wd(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm)
{
    if (!note(n, (struct net_note){.kind = NOTE_WD, .at = t, .node = node, .port = port, .prio = (int8_t)prio,
                                   .on = storm}))
        tell_wd(&n->listen, t, node, port, prio, storm);
}

void net_fan_flow(struct net *n, const struct flow *f)
{
    if (!note(n, (struct net_note){.kind = NOTE_FLOW, .f = f}))
        tell_flow(&n->listen, f);
}

static void apply_lost(struct flow *f, uint32_t hi)
{
    if (hi > f->lost_hi)
        f->lost_hi = hi;
}

/* The timeout's classification; returns whether it was spurious. */
static bool apply_timeout(struct flow *f, uint32_t snd_una)
{
    bool spurious = f->lost_hi <= snd_una;
    f->lost_hi = 0; /* go-back-N resends everything from snd_una: what was lost before is handled */
    return spurious;
}

void net_lost(struct net *n, struct flow *f, uint32_t hi)
{
    if (!note(n, (struct net_note){.kind = NOTE_LOST, .f = f, .node = hi}))
        apply_lost(f, hi);
}

void net_timeout(struct net *n, struct flow *f)
{
    if (!note(n, (struct net_note){.kind = NOTE_RTO, .f = f, .node = f->snd_una}) && apply_timeout(f, f->snd_una))
        net_np(n)->c.spurious_timeouts++;
}

/* Tells the listeners the partitions' notes, merged into the order of the events that made them: after the
 * counts are folded (they may stop the run) and the other processes' notes are in place (ranks.c). */
static void tell_notes(struct net *n)
{
    uint32_t pos[SIM_PAR_MAX] = {0};
    for (;;) {
        const struct net_note *best = NULL;
        uint32_t bi = 0;
        for (uint32_t i = 0; i < n->n_parts; i++) {
            const struct net_part *np = &n->parts[i];
            if (pos[i] == np->n_notes)
                continue;
            const struct net_note *c = &np->notes[pos[i]];
            if (!best || c->t < best->t || (c->t == best->t && (c->seq < best->seq ||
                                                                (c->seq == best->seq && c->sub < best->sub)))) {
                best = c;
                bi = i;
            }
        }
        if (!best)
            break;
        pos[bi]++;
        switch (best->kind) {
        case NOTE_PFC: tell_pfc(&n->listen, best->at, best->node, best->port, best->prio, best->on); break;
        case NOTE_WD: tell_wd(&n->listen, best->at, best->node, best->port, best->prio, best->on); break;
        case NOTE_LOST: apply_lost((struct flow *)best->f, best->node); break;
        case NOTE_RTO: n->c.spurious_timeouts += apply_timeout((struct flow *)best->f, best->node); break;
        default: tell_flow(&n->listen, best->f); break;
        }
    }
    for (uint32_t i = 0; i < n->n_parts; i++)
        n->parts[i].n_notes = 0;
}

static void notes_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++)
        free(n->parts[i].notes);
}

static const struct net_mech_ops notes_mech = {
    .name = "notes", .order = 50, .between_windows = tell_notes, .free = notes_free};
NET_MECH(notes_mech)

void net_tel_ensure(struct net *n)
{
    uint32_t np = n->n_parts;
    n->tel_pools = mem_xcalloc(np + 1, sizeof *n->tel_pools, "making the INT record pools");
    for (uint32_t i = 0; i <= np; i++) {
        n->tel_pools[i] = mem_xmalloc(sizeof **n->tel_pools, "making the INT record pools");
        int_pool_init(n->tel_pools[i], i);
        if (i < np)
            n->parts[i].tel = n->tel_pools[i];
    }
    n->tel = n->tel_pools[np];
}

void net_tel_put(struct net *n, uint32_t id)
{
    struct net_part *np = net_np(n);
    if (np->tel && np->tel->owner == id >> INT_OWNER_SHIFT) {
        int_put(np->tel, id);
        return;
    }
    if (np->n_tel_back == np->cap_tel_back) {
        np->cap_tel_back = np->cap_tel_back ? np->cap_tel_back * 2 : 256;
        np->tel_back = mem_xrealloc(np->tel_back, sizeof *np->tel_back * np->cap_tel_back, "freeing INT records");
    }
    np->tel_back[np->n_tel_back++] = id;
}

/* Returns the INT records every partition freed for another's pool (between windows). */
static void tel_return(struct net *n)
{
    for (uint32_t i = 0; i <= n->n_parts; i++) {
        struct net_part *np = i < n->n_parts ? &n->parts[i] : &n->own;
        for (uint32_t j = 0; j < np->n_tel_back; j++)
            int_put(n->tel_pools[np->tel_back[j] >> INT_OWNER_SHIFT], np->tel_back[j]);
        np->n_tel_back = 0;
    }
}

static void tel_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++)
        free(n->parts[i].tel_back);
    for (uint32_t i = 0; n->tel_pools && i <= n->n_parts; i++) {
        int_pool_free(n->tel_pools[i]);
        free(n->tel_pools[i]);
    }
    free(n->tel_pools);
    free(n->own.tel_back);
}

static const struct net_mech_ops telemetry_mech = {
    .name = "telemetry", .order = 60, .between_windows = tel_return, .free = tel_free};
NET_MECH(telemetry_mech)

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

static bool net_done(void *ctx) { return traffic_done(ctx); }

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

int net_check_invariants(const struct net *n, char *err, size_t errlen)
{
    const struct net_counters *c = &n->c;
    if (c->data_sent != c->data_delivered + c->data_dropped + c->data_in_flight) {
        snprintf(err, errlen, "conservation of packets: sent %llu != delivered %llu + dropped %llu + in flight %llu",
                 (unsigned long long)c->data_sent, (unsigned long long)c->data_delivered,
                 (unsigned long long)c->data_dropped, (unsigned long long)c->data_in_flight);
        return -1;
    }
    if (c->bytes_sent != c->bytes_delivered + c->bytes_dropped + c->data_bytes_in_flight) {
        snprintf(err, errlen, "conservation of bytes: sent %llu != delivered %llu + dropped %llu + in flight %llu",
                 (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_delivered,
                 (unsigned long long)c->bytes_dropped, (unsigned long long)c->data_bytes_in_flight);
        return -1;
    }
    /* qmask is a cache of which queues hold frames (the scheduler trusts it). */
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        const struct port *pt = &n->ports[i];
        const struct port_aux *x = &n->aux[i];
        unsigned want = x->ctrl.head ? QMASK_CTRL : 0;
        for (int prio = 0; prio < NPRIO; prio++)
            want |= n->pq[prio][i].q.head ? 1u << prio : 0;
        if (pt->qmask != want) {
            snprintf(err, errlen, "queue mask of %s port %u is %#x, its queues say %#x", n->g->nodes[pt->node].name,
                     pt->local, pt->qmask, want);
            return -1;
        }
    }
    for (uint32_t i = 0; i < n->g->n_switches; i++) {
        const struct sw *w = &n->sws[i];
        int64_t ingress = 0, egress = 0;
        for (uint32_t p = 0; p < w->n_ports; p++)
            for (int prio = 0; prio < NPRIO; prio++) {
                const struct port *pt = &w->ports[p];
                const struct port_aux *x = port_aux(pt);
                const struct port_prio *pp = port_pp(pt, prio);
                if (pt->ing_shared[prio] < 0 || pp->ing_hdrm < 0 || pp->q.bytes < 0 || pp->ing_hdrm > x->headroom) {
                    snprintf(err, errlen, "buffer counter out of range at %s port %u priority %d",
                             n->g->nodes[w->node].name, p, prio);
                    return -1;
                }
                /* in_hdrm is a cache of which headroom counters are in use (admission trusts it). */
                if (((pt->in_hdrm >> prio) & 1) != (pp->ing_hdrm > 0)) {
                    snprintf(err, errlen, "headroom mask of %s port %u is %#x, its counters disagree at priority %d",
                             n->g->nodes[w->node].name, p, pt->in_hdrm, prio);
                    return -1;
                }
                ingress += pt->ing_shared[prio] + pp->ing_hdrm;
                egress += pp->q.bytes;
            }
        /* Every byte in the buffer is counted once at its ingress and sits in one egress queue. */
        if (ingress != w->buffered || egress != w->buffered || w->shared_used < 0 ||
            w->shared_used > w->buffered) {
            snprintf(err, errlen,
                     "buffer accounting at %s: ingress counters %lld, egress queues %lld, buffer %lld, shared %lld",
                     n->g->nodes[w->node].name, (long long)ingress, (long long)egress, (long long)w->buffered,
                     (long long)w->shared_used);
            return -1;
        }
    }
    return 0;
}
