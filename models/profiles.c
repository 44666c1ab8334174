/*
 * profiles — every switch, switch port and host's settings, resolved from the scenario's global objects and the
 * profiles that match them (docs/scenario.md, "Profiles" and "Settings by port speed"), into the shared tables
 * the network reads per frame (struct port_cfg) and the thresholds in the unit each switch counts in.  Apart
 * from construction because it is the one part that reads the scenario's selectors and rate maps, and the one
 * that words the user's errors about them.
 */
#include "models/ecn.h"
#include "models/fabric.h"
#include "models/pfc.h"
#include "models/profiles.h"
#include "models/rccc.h"
#include "models/cc.h"
#include "models/entropy.h"
#include "models/nic.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What a server's inside runs with (graph.h's in_server: its NICs, PCIe switches, sockets, NVSwitch), over the
 * global switch object and under the profiles that name its nodes: PCIe and NVLink lose nothing (their credits
 * hold a sender back, as PFC on every priority does) and mark nothing, and a NIC does not mark the frames it
 * sends; the buffer stands for the few KB of credits and queues of each hop.
 */
#define SERVER_SWITCH_SETTINGS \
    "{\"buffer\": \"16MB\", \"ecn\": {\"enabled\": false}, \"pfc\": {\"enabled\": true, \"xoff\": \"64KB\", " \
    "\"priorities\": [0, 1, 2, 3, 4, 5, 6, 7]}}"

/*
 * A socket's memory (graph.h's memory) takes staged data as a sink takes it: a write completes, and the data waits
 * there until it is read out (over the memory's link).  So it never pauses the socket and never drops: PFC off
 * and a queue limit far above any transfer.  A memory that paused its socket would chain a server's staged
 * receives to its staged sends, link by link, into a cycle of pauses through the fabric (a deadlock NCCL's proxy
 * does not have: it moves staged data between buffers, not frames between links).
 */
#define SERVER_MEMORY_SETTINGS \
    "{\"buffer\": \"2000MB\", \"lossy_queue_limit\": \"2000MB\", \"ecn\": {\"enabled\": false}, \"pfc\": {\"enabled\": false}}"

/* bytes rounded up to whole cells of `cell` bytes (cell 0: bytes unchanged). */
static int64_t whole_cells(int64_t bytes, int64_t cell)
{
    return cell ? (bytes + cell - 1) / cell * cell : bytes;
}

/*
 * Switch w's thresholds in its unit of account (struct sw_limits).  Rounded up, as the settings are sizes the
 * switch must hold: a threshold of 300 bytes in 256-byte cells is 2 cells.
 */
void net_sw_limits(const struct net *n, struct sw *w, const struct scn_switch *cfg)
{
    const struct switch_params *sp = switch_params_of(cfg);
    int64_t c = n->lfc->cell ? n->lfc->cell : sp->cell_size;
    w->lim.cell = (uint32_t)c;
    w->lim.mtu = (uint32_t)sp->mtu;
    w->lim.cells_or_mtu = c != 0 || sp->mtu != 0;
    w->lim.buffer = whole_cells(sp->buffer, c);
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
    const struct pfc_settings *pfc = pfc_settings_of(c);
    const struct ecn_settings *ecn = ecn_settings_of(c);
    const struct switch_params *sp = switch_params_of(c);
    double kmin, kmax, pmax, alpha, xoff, xon, hdrm, lossy;
    memset(pc, 0, sizeof *pc);
    if (port_value(n, &ecn->kmin_map, (double)ecn->kmin, true, p, "ecn.kmin", &kmin, err, errlen) ||
        port_value(n, &ecn->kmax_map, (double)ecn->kmax, true, p, "ecn.kmax", &kmax, err, errlen) ||
        port_value(n, &ecn->pmax_map, ecn->pmax, false, p, "ecn.pmax", &pmax, err, errlen) ||
        port_value(n, &pfc->alpha_map, pfc->dynamic_alpha, false, p, "pfc.dynamic_alpha", &alpha, err, errlen) ||
        port_value(n, &pfc->xoff_map, (double)pfc->xoff_bytes, true, p, "pfc.xoff", &xoff, err, errlen) ||
        port_value(n, &pfc->xon_map, (double)pfc->xon_delta, true, p, "pfc.xon_delta", &xon, err, errlen) ||
        port_value(n, &pfc->headroom_map, (double)pfc->headroom_bytes, true, p, "pfc.headroom", &hdrm, err, errlen) ||
        port_value(n, &sp->lossy_queue_limit_map, (double)sp->lossy_queue_limit, true, p, "lossy_queue_limit", &lossy,
                   err, errlen))
        return SCN_EUSAGE;
    char path[160], a[32], b[32];
    if (kmax < kmin) {
        snprintf(err, errlen, "%s: %s: expected a size at least kmin (%s) at every port, got \"%s\" at port %s:%u",
                 n->scn->file, setting_path(path, sizeof path, ecn->kmax_map.n ? ecn->kmax_map.profile :
                                            ecn->kmin_map.profile, "ecn.kmax"),
                 units_fmt_size((int64_t)kmin, a, sizeof a), units_fmt_size((int64_t)kmax, b, sizeof b),
                 n->g->nodes[p->node].name, p->local);
        return SCN_EUSAGE;
    }
    if (pfc->xoff_mode == PFC_XOFF_STATIC && xon > xoff) {
        snprintf(err, errlen, "%s: %s: expected a size no larger than xoff (%s) at every port, got \"%s\" at port %s:%u",
                 n->scn->file, setting_path(path, sizeof path, pfc->xon_map.n ? pfc->xon_map.profile :
                                            pfc->xoff_map.profile, "pfc.xon_delta"),
                 units_fmt_size((int64_t)xoff, a, sizeof a), units_fmt_size((int64_t)xon, b, sizeof b),
                 n->g->nodes[p->node].name, p->local);
        return SCN_EUSAGE;
    }
    pc->lossless = n->lfc->every_priority ? 0xff : pfc->enabled ? pfc->lossless_mask : 0;
    _Static_assert(PORT_ECN_DEQUEUE + ECN_MARK_ENQUEUE == PORT_ECN_ENQUEUE &&
                       PORT_ECN_DEQUEUE + ECN_MARK_SENT == PORT_ECN_SENT,
                   "port_ecn_mark follows switch.ecn.mark_on's order");
    pc->ecn_mark = ecn->enabled ? (uint8_t)(PORT_ECN_DEQUEUE + ecn->mark_on) : PORT_ECN_OFF;
    pc->xoff_static = pfc->xoff_mode == PFC_XOFF_STATIC;
    pc->alpha = alpha;
    pc->xoff = (int64_t)xoff;
    pc->xon_delta = (int64_t)xon;
    pc->rate_bps = port_aux(p)->rate_bps;
    bool is_auto = pfc->headroom_auto && !pfc->headroom_map.n;
    int frame_in, frame_out;
    pfc_port_frames(n, p, &frame_in, &frame_out);
    pc->headroom_auto = pfc_port_headroom(n, p, pfc->response_quanta);
    pc->headroom = n->lfc->every_priority ? 0 : is_auto ? pc->headroom_auto : (int64_t)hdrm;
    pc->ecn.enabled = ecn->enabled;
    pc->ecn.kmin = (int64_t)kmin;
    pc->ecn.kmax = (int64_t)kmax;
    pc->ecn.pmax = pmax;
    int64_t cell_lim = whole_cells((int64_t)lossy, n->lfc->cell ? n->lfc->cell : sp->cell_size);
    pc->lossy_limit = cell_lim > INT32_MAX ? INT32_MAX : (int32_t)cell_lim;
    if (n->fabric->marking)
        n->fabric->marking(c, pc);
    /* A switch that counts cells compares whole cells: its thresholds round up to them (switch.cell_size). */
    int cell = n->lfc->cell ? n->lfc->cell : switch_params_of(c)->cell_size;
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
/* What a host's transport, congestion control and entropy must agree on (transport.h, entropy.h). */
static int check_host_transport(const struct net *n, const struct host *h, const char *name, char *err, size_t errlen)
{
    const struct transport_ops *t = transport_of(h->tp->loss_recovery);
    if ((t->flags & TRANSPORT_F_RECORDS) && (cc_registry[h->cc]->flags & CC_F_TELEMETRY)) {
        snprintf(err, errlen, "%s: host.cc: expected a congestion control without in-band telemetry under "
                 "host.loss_recovery \"%s\" (whose acknowledgements carry a record of their own), got \"%s\" at host %s",
                 n->scn->file, t->name, cc_registry[h->cc]->name, name);
        return SCN_EUSAGE;
    }
    if ((cc_registry[h->cc]->flags & CC_F_BYTES) && !(t->flags & TRANSPORT_F_WINDOW)) {
        snprintf(err, errlen, "%s: host.cc: expected a transport that counts its bytes in flight for \"%s\" "
                 "(host.loss_recovery \"uet\"), got host.loss_recovery \"%s\" at host %s", n->scn->file,
                 cc_registry[h->cc]->name, t->name, name);
        return SCN_EUSAGE;
    }
    if (entropy_registry[h->nic->entropy]->pick && !(t->flags & TRANSPORT_F_RECORDS)) {
        snprintf(err, errlen, "%s: host.entropy: expected \"flow\" or \"packet\" under host.loss_recovery \"%s\" "
                 "(\"%s\" learns from the entropy values acknowledgements echo: host.loss_recovery \"uet\"), "
                 "got \"%s\" at host %s", n->scn->file, t->name, entropy_registry[h->nic->entropy]->name,
                 entropy_registry[h->nic->entropy]->name, name);
        return SCN_EUSAGE;
    }
    return rccc_check_host(n, h, name, err, errlen);
}

int net_resolve_settings(struct net *n, char *err, size_t errlen)
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
        if (gn->in_server)
            rc = scn_partial_apply(scn, "switch", gn->memory ? SERVER_MEMORY_SETTINGS : SERVER_SWITCH_SETTINGS,
                                   "(a server's inside)", tmp, err, errlen);
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
        struct host *h = &n->hosts[i];
        h->cfg = &n->host_cfgs[host_idx[i]];
        h->nic = nic_params_of(h->cfg);
        h->tp = transport_params_of(h->cfg);
        n->nack_cnp_any |= h->tp->nack_cnp;
        h->cc = cc_params_of(h->cfg)->cc;
        rc = check_host_transport(n, h, g->nodes[g->host_node[i]].name, err, errlen);
        if (h->nic->mtu + n->fr.hdr_data > n->frame_max)
            n->frame_max = h->nic->mtu + n->fr.hdr_data;
    }
    /* What is read per frame is taken here, once: the scheduler of each switch and the NICs', PFC's pause time. */
    n->pfc = pfc_settings_of(&scn->sw);
    n->sched = sched_settings_of(&scn->sw);
    for (uint32_t i = 0; i < g->n_switches && !rc; i++) {
        n->sws[i].cfg = &n->sw_cfgs[sw_idx[i]];
        n->sws[i].sched = sched_settings_of(n->sws[i].cfg);
    }
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
            if (pc.ecn_mark == PORT_ECN_SENT)
                n->tx_extras |= NET_TX_HOLD; /* port_transmit holds its frames until they are sent */
        }
    }
    free(tmp);
    free(htmp);
    free(sw_idx);
    free(host_idx);
    return rc;
}
