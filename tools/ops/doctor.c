/*
 * doctor — see doctor.h; the rules and their sources: docs/doctor.md.
 */
#include "tools/ops/doctor.h"
#include "models/cc.h"
#include "models/dcqcn.h"
#include "models/credit.h"
#include "models/ecn.h"
#include "models/lb.h"
#include "models/trim.h"

#include "models/net.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/module.h"
#include "sim/units.h"
#include "tools/common/files.h"
#include "tools/run/run.h"
#include "tools/common/text.h"
#include "topologies/server.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DOC_OOM "running the doctor"
/* Locations a finding lists by name before it says "and N more". */
#define WHERE_SHOWN 6
/* DCQCN timers above this are out of proportion to any link rocesim models (docs/doctor.md). */
#define DCQCN_TIMER_MAX_PS (1000 * PS_PER_US)
/* After a run: a flow whose packets waited paused longer than this on average is a pause victim. */
#define VICTIM_PAUSE_PER_PKT_NS 10000.0
/* Without an enabled watchdog, a pause held this long without a RESUME counts as a storm. */
#define STORM_DEFAULT_PS (200 * PS_PER_US)
/* Bulk transfers (at least this size) to a destination below this share of its line rate are "far below". */
#define BULK_BYTES 1000000
#define LOW_SHARE (2.0 / 3.0)

static const char *const sev_name[] = {"error", "warning"};

/* ---- findings ---- */

/* Adds a finding, or a location to the finding of the same check that saw the same thing. */
static void add(struct doc_report *rep, enum doc_severity sev, const char *id, const char *where, const char *seen,
                const char *why, const char *fix)
{
    for (int i = 0; i < rep->n; i++) {
        struct doc_finding *f = &rep->f[i];
        if (strcmp(f->id, id) || strcmp(f->seen, seen))
            continue;
        if (f->n_where < WHERE_SHOWN) {
            size_t l = strlen(f->where);
            sfmt(f->where + l, sizeof f->where - l, "%s%s", l ? ", " : "", where);
        }
        f->n_where++;
        return;
    }
    if (rep->n == rep->cap) {
        rep->cap = rep->cap ? 2 * rep->cap : 16;
        rep->f = mem_xrealloc(rep->f, (size_t)rep->cap * sizeof *rep->f, DOC_OOM);
    }
    struct doc_finding *f = &rep->f[rep->n++];
    memset(f, 0, sizeof *f);
    f->sev = sev;
    sfmt(f->id, sizeof f->id, "%s", id);
    sfmt(f->where, sizeof f->where, "%s", where);
    f->n_where = 1;
    sfmt(f->seen, sizeof f->seen, "%s", seen);
    sfmt(f->why, sizeof f->why, "%s", why);
    sfmt(f->fix, sizeof f->fix, "%s", fix);
}

const struct doc_finding *doctor_find(const struct doc_report *rep, const char *id)
{
    for (int i = 0; i < rep->n; i++)
        if (strcmp(rep->f[i].id, id) == 0)
            return &rep->f[i];
    return NULL;
}

void doctor_report_free(struct doc_report *rep)
{
    free(rep->f);
    memset(rep, 0, sizeof *rep);
}

static void where_text(const struct doc_finding *f, char *buf, size_t len)
{
    if (f->n_where > WHERE_SHOWN)
        sfmt(buf, len, "%s and %d more", f->where, f->n_where - WHERE_SHOWN);
    else
        sfmt(buf, len, "%s", f->where);
}

void doctor_print(FILE *out, const struct doc_report *rep, const char *subject)
{
    if (rep->incomplete[0])
        fprintf(out, "doctor: %s: %s\n", subject, rep->incomplete);
    if (!rep->n) {
        fprintf(out, "doctor: %s: no finding\n", subject);
        return;
    }
    int ne = 0;
    for (int i = 0; i < rep->n; i++)
        ne += rep->f[i].sev == DOC_ERROR;
    fprintf(out, "doctor: %s: %d finding%s (%d error%s, %d warning%s)\n", subject, rep->n, rep->n == 1 ? "" : "s",
            ne, ne == 1 ? "" : "s", rep->n - ne, rep->n - ne == 1 ? "" : "s");
    for (int i = 0; i < rep->n; i++) {
        const struct doc_finding *f = &rep->f[i];
        char w[700];
        where_text(f, w, sizeof w);
        fprintf(out, "\n%s [%s] at %s\n  seen: %s\n  why:  %s\n  fix:  %s\n", sev_name[f->sev], f->id, w, f->seen,
                f->why, f->fix);
    }
}

char *doctor_json(const struct doc_report *rep, const char *subject, const char *mode)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "subject", subject);
    cJSON_AddStringToObject(o, "mode", mode);
    if (rep->incomplete[0])
        cJSON_AddStringToObject(o, "incomplete", rep->incomplete);
    cJSON *arr = cJSON_AddArrayToObject(o, "findings");
    for (int i = 0; i < rep->n; i++) {
        const struct doc_finding *f = &rep->f[i];
        char w[700];
        where_text(f, w, sizeof w);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "check", f->id);
        cJSON_AddStringToObject(j, "severity", sev_name[f->sev]);
        cJSON_AddStringToObject(j, "where", w);
        cJSON_AddNumberToObject(j, "locations", f->n_where);
        cJSON_AddStringToObject(j, "seen", f->seen);
        cJSON_AddStringToObject(j, "why", f->why);
        cJSON_AddStringToObject(j, "fix", f->fix);
        cJSON_AddItemToArray(arr, j);
    }
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    if (!txt)
        mem_oom(DOC_OOM);
    return txt;
}

/* ---- before a run: the resolved settings ---- */

/*
 * The hosts that send traffic, each with its NIC's RoCE priority (host.priority after profiles; -1: sends
 * nothing).  A traffic entry's own `priority` is a deliberate class of its own (a lossy management class beside
 * lossless RoCE): the run's drops judge it, not the settings.
 */
static void sender_prios(const struct run *r, int *prio)
{
    const struct scenario *s = r->scn;
    for (uint32_t i = 0; i < r->g.n_hosts; i++)
        prio[i] = -1;
    for (int t = 0; t < s->n_traffic; t++) {
        const struct scn_traffic *tr = &s->traffic[t];
        const int *hs;
        int nh = traffic_ops_of(tr)->senders(tr, &hs);
        for (int k = 0; k < nh; k++) {
            int h = hs[k];
            if (h >= 0 && (uint32_t)h < r->g.n_hosts)
                prio[h] = r->net.hosts[h].nic->priority;
        }
    }
}

static void prio_list(uint8_t mask, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int p = 0; p < NPRIO; p++)
        if (mask & (1u << p))
            u += (size_t)snprintf(buf + u, len - u, "%s%d", u ? "," : "", p);
    if (!u)
        sfmt(buf, len, "none");
}

static const char *node_name(const struct run *r, uint32_t node) { return r->g.nodes[node].name; }

/* The data priorities the NICs send on, and which hosts (by cc) send at all. */
struct senders {
    int *prio;          /* per host, -1: sends nothing */
    uint8_t data_mask;
    uint8_t gbn_mask;   /* the priorities of senders whose transport resends everything after a loss (go-back-N) */
    bool ecn_cc;        /* some sender's algorithm acts on ECN marks (CC_F_ECN: DCQCN's CNPs, DCTCP's echo) */
    bool step_only;     /* and every such sender wants step marking at K (CC_F_ECN_STEP: kmin = kmax) */
};

/* The flags (enum cc_flags) of the congestion control a host's settings choose. */
static unsigned host_cc_flags(const struct scn_host *hc)
{
    int ci = cc_params_of(hc)->cc;
    return ci >= 0 ? cc_registry[ci]->flags : 0;
}

static void senders_init(const struct run *r, struct senders *sd)
{
    const struct net *n = &r->net;
    memset(sd, 0, sizeof *sd);
    sd->prio = mem_xcalloc(r->g.n_hosts ? r->g.n_hosts : 1, sizeof *sd->prio, DOC_OOM);
    sender_prios(r, sd->prio);
    bool all_step = true; /* every sender that acts on marks wants step marking */
    for (uint32_t h = 0; h < r->g.n_hosts; h++) {
        if (sd->prio[h] < 0)
            continue;
        sd->data_mask |= (uint8_t)(1u << sd->prio[h]);
        if (transport_of(n->hosts[h].tp->loss_recovery)->flags & TRANSPORT_F_GOES_BACK)
            sd->gbn_mask |= (uint8_t)(1u << sd->prio[h]);
        unsigned fl = host_cc_flags(n->hosts[h].cfg);
        sd->ecn_cc |= (fl & CC_F_ECN) != 0;
        if (fl & CC_F_ECN)
            all_step &= (fl & CC_F_ECN_STEP) != 0;
    }
    sd->step_only = sd->ecn_cc && all_step;
}

/* A switch's ports that one check flagged: how many, and the first few, to name them. */
#define PORTS_SHOWN 4
struct port_list {
    uint32_t n, first[PORTS_SHOWN];
};

static void pl_add(struct port_list *l, uint32_t port)
{
    if (l->n < PORTS_SHOWN)
        l->first[l->n] = port;
    l->n++;
}

/* Where a switch's finding is: "s0 (17 of 17 ports)" when it is every port, else its ports by name,
 * "s0:3, s0:5 (2 of 17 ports)", the first few and how many more. */
static const char *pl_where(const struct port_list *l, const char *nm, uint32_t n_ports, char *buf, size_t len)
{
    if (l->n == n_ports) {
        sfmt(buf, len, "%s (%u of %u ports)", nm, l->n, n_ports);
        return buf;
    }
    size_t u = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < l->n && k < PORTS_SHOWN; k++)
        u += (size_t)snprintf(buf + u, len - u, "%s%s:%u", k ? ", " : "", nm, l->first[k]);
    if (l->n > PORTS_SHOWN && u < len)
        u += (size_t)snprintf(buf + u, len - u, " and %u more", l->n - PORTS_SHOWN);
    if (u < len)
        snprintf(buf + u, len - u, " (%u of %u ports)", l->n, n_ports);
    return buf;
}

/*
 * One ECN finding of a switch: its ports, and the values of the first of them, the port its message names first
 * (each finding has its own: the values of one port must not show up in another port's message).
 */
struct ecn_finding {
    struct port_list ports;
    int64_t kmin, kmax, xoff_pt;
    const char *xoff_how; /* how xoff_pt is computed at that port */
};

/* What the checks of one switch saw, port by port. */
struct sw_tally {
    struct port_list lossy[NPRIO], ecn_off;
    struct ecn_finding k_order, k_min_over, k_max_over;
    uint8_t lossless_seen[NPRIO];
    int64_t bdp;
};

static void ef_add(struct ecn_finding *f, uint32_t port, const struct port_cfg *pc, int64_t xoff_pt)
{
    if (!f->ports.n) {
        f->kmin = pc->ecn.kmin;
        f->kmax = pc->ecn.kmax;
        f->xoff_pt = xoff_pt;
        f->xoff_how = pc->xoff_static ? "the static xoff" : "dynamic_alpha x the free buffer, at an empty buffer";
    }
    pl_add(&f->ports, port);
}

static void tally_ecn(const struct senders *sd, const struct sw *w, uint32_t j, const struct port_cfg *pc,
                      struct sw_tally *t)
{
    if (sd->ecn_cc && !pc->ecn.enabled)
        pl_add(&t->ecn_off, j);
    /* DCTCP marks as a step at K (kmin = kmax): only an inverted pair is wrong for it. */
    if (pc->ecn.enabled && (sd->step_only ? pc->ecn.kmin > pc->ecn.kmax : pc->ecn.kmin >= pc->ecn.kmax))
        ef_add(&t->k_order, j, pc, 0);
    if (!pc->ecn.enabled || !(pc->lossless & sd->data_mask))
        return;
    /* The PFC point of one ingress: static xoff, or the dynamic threshold at an empty shared buffer (alpha x the
     * buffer left after the headroom reservations): the most a queue gets before PFC. */
    int64_t x = pc->xoff_static ? pc->xoff : (int64_t)(pc->alpha * (double)(switch_params_of(w->cfg)->buffer - w->hdrm_reserved));
    if (pc->ecn.kmin >= x)
        ef_add(&t->k_min_over, j, pc, x);
    else if (pc->ecn.kmax > x)
        ef_add(&t->k_max_over, j, pc, x);
}

static void tally_ports(const struct senders *sd, const struct sw *w, struct sw_tally *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t j = 0; j < w->n_ports; j++) {
        const struct port *p = &w->ports[j];
        const struct port_cfg *pc = port_cfg(p);
        t->bdp += (int64_t)((__int128)pc->rate_bps * 2 * p->delay_ps / 8 / PS_PER_S);
        for (int q = 0; q < NPRIO; q++)
            if ((sd->gbn_mask >> q & 1) && !(pc->lossless >> q & 1)) { /* selective repeat needs no PFC */
                pl_add(&t->lossy[q], j);
                t->lossless_seen[q] = pc->lossless;
            }
        tally_ecn(sd, w, j, pc, t);
    }
}

/* Each port whose headroom is below what "auto" computes for it (pfc_port_headroom, as the network's build did:
 * port_cfg.headroom_auto); ports that saw the same values share a finding. */
static void check_headroom(const struct run *r, const struct senders *sd, const struct sw *w, struct doc_report *rep)
{
    char a[32], b[32], c[32], seen[512], where[160];
    for (uint32_t j = 0; j < w->n_ports && sd->data_mask; j++) {
        const struct port_cfg *pc = port_cfg(&w->ports[j]);
        if (!pc->lossless || pc->headroom >= pc->headroom_auto)
            continue;
        int in, out;
        pfc_port_frames(&r->net, &w->ports[j], &in, &out);
        sfmt(where, sizeof where, "%s:%u", node_name(r, w->node), j);
        sfmt(seen, sizeof seen, "PFC headroom %s per lossless priority at %s ports; the cable and rate need %s "
             "(frames of up to %d bytes arrive, %d leave)", units_fmt_size(pc->headroom, a, sizeof a),
             units_fmt_rate(pc->rate_bps, c, sizeof c), units_fmt_size(pc->headroom_auto, b, sizeof b), in, out);
        add(rep, DOC_ERROR, "headroom-short", where, seen,
            "after a switch sends PAUSE, the bytes already on the cable and those the upstream sends before it "
            "reacts still arrive; with less headroom than that, a lossless priority drops frames",
            "set switch.pfc.headroom to \"auto\" or at least the size shown (per port speed when rates differ)");
    }
}

/* Buffer and watchdog findings of one switch's tally. */
static void report_switch_buffer(const struct run *r, const struct sw *w, const struct sw_tally *t,
                                 struct doc_report *rep)
{
    const struct scn_switch *cfg = w->cfg;
    const struct pfcwd_settings *wd = pfcwd_settings_of(cfg);
    int64_t buffer = switch_params_of(cfg)->buffer;
    const char *nm = node_name(r, w->node);
    char a[32], b[32], seen[512];
    if (pfc_settings_of(cfg)->enabled && t->bdp > buffer) {
        sfmt(seen, sizeof seen, "buffer %s is below one bandwidth-delay product per port (%s for %u ports)",
             units_fmt_size(buffer, a, sizeof a), units_fmt_size(t->bdp, b, sizeof b), w->n_ports);
        add(rep, DOC_WARNING, "buffer-below-bdp", nm, seen,
            "a buffer smaller than one round trip of every port cannot absorb the in-flight data of a burst: "
            "PFC pauses (or drops) long before ECN and DCQCN can react",
            "a larger switch.buffer, or shorter links");
    }
    if (wd->enabled && wd->poll_ps > wd->detection_ps) {
        sfmt(seen, sizeof seen, "watchdog poll_interval %s above detection_time %s",
             units_fmt_time(wd->poll_ps, a, sizeof a), units_fmt_time(wd->detection_ps, b, sizeof b));
        add(rep, DOC_ERROR, "watchdog-poll", nm, seen,
            "the watchdog looks once a poll: it cannot declare a storm sooner than poll_interval, so the "
            "detection time is not honoured (SONiC refuses this)",
            "set poll_interval at most detection_time and restoration_time (SONiC: 100-1000 ms)");
    }
}

/* The findings of one switch's tally. */
static void report_switch_ports(const struct run *r, const struct senders *sd, const struct sw *w,
                                const struct sw_tally *t, struct doc_report *rep)
{
    const struct scn_switch *cfg = w->cfg;
    const char *nm = node_name(r, w->node);
    char a[32], b[32], seen[512], where[300];
    for (int q = 0; q < NPRIO; q++) {
        if (!t->lossy[q].n)
            continue;
        char ll[32];
        prio_list(t->lossless_seen[q], ll, sizeof ll);
        sfmt(seen, sizeof seen, "the NICs send RoCE on priority %d, which PFC does not protect here (lossless "
             "priorities at these ports: %s%s)", q, ll, pfc_settings_of(cfg)->enabled ? "" :
             "; switch.pfc.enabled false");
        add(rep, DOC_ERROR, "roce-priority-lossy", pl_where(&t->lossy[q], nm, w->n_ports, where, sizeof where), seen,
            "RoCE's go-back-N loses a whole window for each dropped frame: the fabric is lossless only if "
            "every switch a flow crosses protects the priority its NIC sends on",
            "enable PFC (switch.pfc.enabled) on these switches for the NICs' priority, or set host.priority "
            "to a priority in switch.pfc.priorities (a profile may differ from the rest)");
    }
    if (t->ecn_off.n)
        add(rep, DOC_ERROR, "ecn-off", pl_where(&t->ecn_off, nm, w->n_ports, where, sizeof where),
            "switch.ecn.enabled is false where DCQCN or DCTCP flows may queue",
            "DCQCN slows a sender only on CNPs and DCTCP only on echoed marks, and both come only from "
            "ECN-marked frames: a queue that never marks is left to PFC, whose pauses spread upstream to flows "
            "that did not cause them",
            "set switch.ecn.enabled true on these switches (with kmin/kmax below the PFC point)");
    if (t->k_order.ports.n) {
        sfmt(seen, sizeof seen, "ECN kmin %s is not below kmax %s", units_fmt_size(t->k_order.kmin, a, sizeof a),
             units_fmt_size(t->k_order.kmax, b, sizeof b));
        add(rep, DOC_WARNING, "ecn-kmin-kmax", pl_where(&t->k_order.ports, nm, w->n_ports, where, sizeof where), seen,
            "with kmin >= kmax the marking is a step from 0 to 100 %: every sender is cut at once at one "
            "depth, and the queue oscillates instead of settling between the thresholds",
            "set kmin well below kmax (the paper's DCQCN profile: 5KB and 200KB at 40 Gbps)");
    }
    const struct ecn_finding *f = &t->k_min_over;
    if (f->ports.n) {
        sfmt(seen, sizeof seen, "ECN kmin %s is at or above the PFC point %s (%s)",
             units_fmt_size(f->kmin, a, sizeof a), units_fmt_size(f->xoff_pt, b, sizeof b), f->xoff_how);
        add(rep, DOC_ERROR, "ecn-above-xoff", pl_where(&f->ports, nm, w->n_ports, where, sizeof where), seen,
            "PFC pauses the upstream before the queue reaches kmin, so nothing is ever marked: no CNPs, DCQCN "
            "never slows the senders, and PFC alone holds the queue",
            "set kmin and kmax below the PFC point (kmax at most a fraction of it)");
    }
    f = &t->k_max_over;
    if (f->ports.n) {
        sfmt(seen, sizeof seen, "ECN kmax %s is above the PFC point %s (%s)", units_fmt_size(f->kmax, a, sizeof a),
             units_fmt_size(f->xoff_pt, b, sizeof b), f->xoff_how);
        add(rep, DOC_WARNING, "ecn-above-xoff", pl_where(&f->ports, nm, w->n_ports, where, sizeof where), seen,
            "PFC fires before the marking reaches pmax: ECN has not done its work when the upstream is paused",
            "lower kmax below the PFC point");
    }
    check_headroom(r, sd, w, rep);
    report_switch_buffer(r, w, t, rep);
}

/* PFC, ECN, headroom and buffer per switch, port by port. */
/* A server's inside (its NICs, PCIe, sockets): PCIe is lossless and marks nothing by design, not misconfigured. */
static bool inside_server(const struct run *r, const struct sw *w) { return r->g.nodes[w->node].in_server; }

static void check_switch_ports(const struct run *r, const struct senders *sd, struct doc_report *rep)
{
    for (uint32_t i = 0; i < r->g.n_switches; i++) {
        if (inside_server(r, &r->net.sws[i]))
            continue;
        struct sw_tally t;
        tally_ports(sd, &r->net.sws[i], &t);
        report_switch_ports(r, sd, &r->net.sws[i], &t, rep);
    }
}

/* Host h (sending on priority p) against the fabric's multipath mechanisms: go-back-N under a switch that spreads
 * each flow's packets (sprayer) or its own per-packet entropy, selective repeat where PFC still holds its
 * priority (lossy: p is lossy at some switch port), and a switch that trims into the data's own queue. */
static void check_multipath(const struct run *r, uint32_t h, int p, const struct sw *sprayer,
                            const struct sw *trimmer, bool lossy, struct doc_report *rep)
{
    const struct net *n = &r->net;
    const struct transport_ops *tr = transport_of(n->hosts[h].tp->loss_recovery);
    const struct nic_params *nic = n->hosts[h].nic;
    const char *nm = node_name(r, n->hosts[h].node);
    char seen[512];
    if ((tr->flags & TRANSPORT_F_GOES_BACK) && (sprayer || nic->entropy)) {
        if (sprayer)
            sfmt(seen, sizeof seen, "host.loss_recovery %s, and %s spreads each flow's packets one by one "
                 "(switch.load_balance %s)", tr->name, node_name(r, sprayer->node),
                 lb_registry[sprayer->lb]->name);
        else
            sfmt(seen, sizeof seen, "host.loss_recovery %s with host.entropy \"packet\"", tr->name);
        add(rep, DOC_ERROR, "spray-go-back-n", nm, seen,
            "packets of one flow on several paths arrive out of order, and go-back-N takes each early packet "
            "for a loss: it drops it, NACKs and resends everything after the gap (a k=8 fat-tree "
            "permutation sprayed this way runs at a tenth of the line)",
            "use host.loss_recovery \"selective\" with a reorder window (host.selective.reorder), or "
            "balance by flow or flowlet (switch.load_balance \"ecmp\" or \"flowlet\")");
    }
    if (trimmer && trim_priority(trimmer->cfg, NULL) == p) {
        sfmt(seen, sizeof seen, "%s trims into priority %d (switch.trim.priority), the priority this host's data "
             "uses", node_name(r, trimmer->node), p);
        add(rep, DOC_WARNING, "trim-queue", nm, seen,
            "a trimmed frame goes to the queue that was just too full to take its data: it is dropped in turn, "
            "and the loss waits for a gap or the timeout as without trimming",
            "give trimmed frames a priority of their own (SONiC: a queue_index no data uses), served so that "
            "they get through");
    }
    if (!(tr->flags & TRANSPORT_F_GOES_BACK) && !lossy && !credit_runs(n)) {
        sfmt(seen, sizeof seen, "host.loss_recovery %s on priority %d, which PFC keeps lossless at every switch "
             "port", tr->name, p);
        add(rep, DOC_WARNING, "selective-with-pfc", nm, seen,
            "a transport that resends only what was lost does not need PFC: a drop costs it one packet, while "
            "PAUSE frames stop every flow of the priority behind the congested one (head-of-line blocking, "
            "congestion spreading, deadlocks)",
            "consider PFC off for this priority (switch.pfc.priorities) with ECN for congestion control, as IRN "
            "runs; keep it where another host still uses go-back-N");
    }
}

/* CNP priority, DCQCN's parameters against the link, MTU, go-back-N on lossy priorities: per host. */
static void check_hosts(const struct run *r, const struct senders *sd, struct doc_report *rep)
{
    const struct net *n = &r->net;
    char a[32], b[32], seen[512];
    uint8_t lossy_any = 0;  /* data priorities lossy at some switch port */
    const struct sw *sprayer = NULL; /* a switch that spreads a flow's packets one by one */
    const struct sw *trimmer = NULL; /* a switch that trims */
    for (uint32_t i = 0; i < r->g.n_switches; i++) {
        for (uint32_t j = 0; j < n->sws[i].n_ports && !inside_server(r, &n->sws[i]); j++)
            lossy_any |= (uint8_t)(sd->data_mask & ~port_cfg(&n->sws[i].ports[j])->lossless);
        if (!sprayer && lb_per_packet(&n->sws[i]))
            sprayer = &n->sws[i];
        if (!trimmer && trim_priority(n->sws[i].cfg, NULL) >= 0)
            trimmer = &n->sws[i];
    }
    for (uint32_t h = 0; h < r->g.n_hosts; h++) {
        int p = sd->prio[h];
        if (p < 0)
            continue;
        const struct scn_host *hc = n->hosts[h].cfg;
        const struct nic_params *nic = n->hosts[h].nic;
        const char *nm = node_name(r, n->hosts[h].node);
        int64_t rate = n->hosts[h].rate_bps;
        if (host_cc_flags(hc) & CC_F_CNP) {
            /* A CNP on a lower priority than the data waits behind it under strict priority (InfiniBand's travel
             * on the flow's VL). */
            for (uint32_t i = 0; i < r->g.n_switches && !credit_runs(n); i++) {
                if (n->sws[i].sched->type == SCHED_STRICT && nic->cnp_priority < p) {
                    sfmt(seen, sizeof seen, "host.cnp_priority %d is below the data priority %d (strict scheduler)",
                         nic->cnp_priority, p);
                    add(rep, DOC_WARNING, "cnp-priority", nm, seen,
                        "a strict-priority switch serves the data first, so the CNPs that should slow the senders "
                        "wait behind the very queue they report (and may be dropped on a lossy priority)",
                        "put CNPs on a higher priority than the data (ConnectX's default is 6, served strictly first)");
                    break;
                }
            }
            const struct dcqcn_params *d = dcqcn_params_of(hc);
            struct { const char *name; int64_t ps; } tm[] = {{"rate_increase_timer", d->rate_increase_timer_ps},
                                                            {"alpha_timer", d->alpha_timer_ps}};
            for (int k = 0; k < 2; k++)
                if (tm[k].ps > DCQCN_TIMER_MAX_PS) {
                    sfmt(seen, sizeof seen, "host.dcqcn.%s %s on a %s link", tm[k].name,
                         units_fmt_time(tm[k].ps, a, sizeof a), units_fmt_rate(rate, b, sizeof b));
                    add(rep, DOC_ERROR, "dcqcn-timers", nm, seen,
                        "after a cut DCQCN climbs back once per timer period (fast recovery takes "
                        "fast_recovery_steps periods): with a period this long a sender stays at its cut rate for "
                        "the whole transfer, and the link idles",
                        "use the preset's timers (paper 55us, ConnectX 300us/1us); keep them at most 1ms");
                }
            if (d->min_rate_bps * 10 > rate) {
                sfmt(seen, sizeof seen, "host.dcqcn.min_rate %s is more than a tenth of the %s link",
                     units_fmt_rate(d->min_rate_bps, a, sizeof a), units_fmt_rate(rate, b, sizeof b));
                add(rep, DOC_WARNING, "dcqcn-min-rate", nm, seen,
                    "DCQCN cannot cut a sender below min_rate: an incast of more than rate/min_rate senders "
                    "overflows the link whatever ECN says, and PFC has to hold it",
                    "lower min_rate (paper 100Mbps, ConnectX 1Mbps)");
            }
            if (d->ai_rate_bps * 10 > rate || d->hai_rate_bps * 2 > rate) {
                sfmt(seen, sizeof seen, "host.dcqcn.ai_rate %s / hai_rate %s on a %s link",
                     units_fmt_rate(d->ai_rate_bps, a, sizeof a), units_fmt_rate(d->hai_rate_bps, b, sizeof b),
                     units_fmt_rate(rate, seen + 480, 32));
                add(rep, DOC_WARNING, "dcqcn-steps", nm, seen,
                    "increase steps this large against the link refill the queue a cut just drained: the rates "
                    "oscillate instead of converging",
                    "keep ai_rate below a tenth and hai_rate below half of the link rate (paper 40Mbps/200Mbps)");
            }
        }
        const struct transport_ops *tr = transport_of(n->hosts[h].tp->loss_recovery);
        if ((tr->flags & TRANSPORT_F_GOES_BACK) && (lossy_any >> p & 1)) {
            sfmt(seen, sizeof seen, "RoCE on priority %d, lossy at some switch port, with host.loss_recovery "
                 "%s", p, tr->name);
            add(rep, DOC_ERROR, "lossy-go-back-n", nm, seen,
                "each drop on a lossy priority makes go-back-N resend everything after the lost frame; RoCE NICs "
                "without selective repeat need a lossless fabric",
                "make the priority lossless on every switch (PFC), or use a NIC with selective repeat");
        }
        check_multipath(r, h, p, sprayer, trimmer, (lossy_any >> p & 1) != 0, rep);
        for (uint32_t i = 0; i < r->g.n_switches; i++) {
            int smtu = switch_params_of(n->sws[i].cfg)->mtu;
            if (smtu && nic->mtu + n->fr.hdr_data > smtu) {
                sfmt(seen, sizeof seen, "host.mtu %d makes %d-byte data frames; switch.mtu is %d on %s%s", nic->mtu,
                     nic->mtu + n->fr.hdr_data, smtu, node_name(r, n->sws[i].node), r->g.n_switches > 1 ? " (and others)" : "");
                add(rep, DOC_ERROR, "mtu-mismatch", nm, seen,
                    "a switch drops every frame larger than its MTU: this host's flows never get through and "
                    "retransmit forever (drops_by_reason.mtu)",
                    "set host.mtu to at most switch.mtu minus 62 bytes of headers, or raise switch.mtu");
                break;
            }
        }
    }
}

/*
 * GPUs inside servers (topologies/server.c): the NIC NCCL gives each and how far it is.  Across the sockets, or
 * beyond NCCL_NET_GDR_LEVEL, its traffic goes through host memory and shares the PCIe uplinks, the socket link
 * and the memory with the other GPUs' (models/gdr.c); GPU g on another NIC than NIC g leaves rail-aligned rings'
 * rail.
 */
static void check_servers(const struct run *r, struct doc_report *rep)
{
    char seen[512];
    for (uint32_t h = 0; h < r->g.n_hosts; h++) {
        const struct g_node *gn = &r->g.nodes[r->g.host_node[h]];
        if (!gn->nic_via)
            continue;
        const char *nic = node_name(r, gn->nic_via - 1), *dot = strrchr(nic, '.'), *gdot = strrchr(gn->name, '.');
        if (gn->nic_dist >= 4) {
            sfmt(seen, sizeof seen, "the GPU's nearest NIC is on the other CPU socket (%s)", server_path_names[gn->nic_dist]);
            add(rep, DOC_ERROR, "nic-numa", gn->name, seen,
                "its traffic to other servers crosses the link between the sockets, shared by every GPU of the "
                "socket, and NCCL stages it through host memory unless NCCL_NET_GDR_LEVEL is SYS: a fraction of "
                "the NIC's rate",
                "put each GPU's NIC on the GPU's own socket, under its PCIe switch (nvidia-smi topo -m: PIX or PXB)");
        } else if (gn->stage_via) {
            sfmt(seen, sizeof seen, "the GPU's NIC is %s from it, beyond NCCL_NET_GDR_LEVEL (topology.server."
                 "gdr_level): GPUDirect RDMA is off", server_path_names[gn->nic_dist]);
            add(rep, DOC_ERROR, "gdr-off", gn->name, seen,
                "NCCL stages the traffic through host memory: it crosses the PCIe switch's uplink to the CPU "
                "twice, shared with the switch's other GPUs and NICs, instead of going GPU to NIC",
                "let GPUDirect RDMA reach the NIC: NCCL_NET_GDR_LEVEL at least the GPU-NIC distance (PXB covers a "
                "NIC under the GPU's PCIe switch), and the GPU driver's peer-memory module loaded");
        }
        if (dot && gdot && strncmp(dot, ".nic", 4) == 0 && strcmp(dot + 4, gdot + 2) != 0) {
            char where[2 * SCN_NAME_MAX + 8];
            sfmt(where, sizeof where, "%s (%s)", gn->name, nic);
            add(rep, DOC_WARNING, "crossed-rails", where, "a GPU's nearest NIC, by which it sends, is on another "
                "rail than the GPU's number (GPU g, NIC and rail k)",
                "NCCL's rail-aligned rings pair GPU g of every server over rail g; a GPU whose nearest NIC is "
                "another rail's sends its ring traffic across the spines to any server wired otherwise",
                "wire NIC g under GPU g's PCIe switch on every server, so that GPU g's nearest NIC is on rail g");
        }
    }
}

/* Whether traffic entry tr is a training job's communication (1) or storage traffic, a checkpoint (0); -1: neither
 * (its kind's role, models/traffic.h). */
static int training_or_checkpoint(const struct scn_traffic *tr)
{
    enum traffic_role role = traffic_ops_of(tr)->role;
    return role == TRAFFIC_TRAINING ? 1 : role == TRAFFIC_STORAGE ? 0 : -1;
}

/*
 * Training's collectives and a checkpoint on one lossless priority: the checkpoint's burst fills the queues of
 * that priority, PFC pauses it upstream, and the collectives stop with it; a scheduler's weights (DWRR) act
 * between priorities, not within one (the study note's QoS classes give each its own).
 */
static void check_classes(const struct run *r, struct doc_report *rep)
{
    const struct scenario *s = r->scn;
    char seen[512];
    uint8_t lossless = 0; /* at some fabric port (a server's inside is lossless on every priority) */
    for (uint32_t i = 0; i < r->g.n_switches; i++)
        for (uint32_t j = 0; j < r->net.sws[i].n_ports && !inside_server(r, &r->net.sws[i]); j++)
            lossless |= port_cfg(&r->net.sws[i].ports[j])->lossless;
    for (int a = 0; a < s->n_traffic; a++) {
        if (training_or_checkpoint(&s->traffic[a]) != 0)
            continue;
        int p = s->traffic[a].priority;
        for (int b = 0; b < s->n_traffic; b++) {
            if (training_or_checkpoint(&s->traffic[b]) != 1 || s->traffic[b].priority != p || !(lossless >> p & 1))
                continue;
            sfmt(seen, sizeof seen, "checkpoint %s and the training's %s both on priority %d, lossless",
                 s->traffic[a].id, s->traffic[b].id, p);
            add(rep, DOC_WARNING, "shared-class", s->traffic[a].id, seen,
                "a checkpoint's burst fills that priority's queues and PFC pauses the whole priority upstream: the "
                "collectives stop with it, and the scheduler's weights, which act between priorities, cannot keep "
                "training's share",
                "give checkpoints a priority (and a DWRR weight) of their own, apart from the collectives'");
            break;
        }
    }
}

/*
 * InfiniBand (docs/doctor.md): VL buffers below one credit round trip, congestion control off under an incast,
 * and tables that can close a credit loop.
 */
static void check_ib(const struct run *r, struct doc_report *rep)
{
    const struct net *n = &r->net;
    char a[32], b[32], c[32], seen[512], where[2 * SCN_NAME_MAX + 16];
    if (!credit_runs(n))
        return;
    /* A credit goes round in a packet's time, the link's delay, a flow-control packet's time and the delay back:
     * a VL's buffer below rate x that round trip caps a sender at buffer / round trip (docs/VALIDATION.md). */
    for (uint32_t i = 0; i < r->g.n_switches; i++) {
        const struct sw *w = &n->sws[i];
        int64_t buf = credit_vl_buffer(w->cfg);
        for (uint32_t j = 0; j < w->n_ports; j++) {
            const struct port *p = &w->ports[j];
            double rate = (double)port_aux(p)->rate_bps, d = (double)p->delay_ps / 1e12;
            double rtt = (n->frame_max + n->fr.wire) * 8 / rate + (6 + n->fr.wire) * 8 / rate + 2 * d;
            double need = rate * rtt / 8;
            if ((double)buf >= need)
                continue;
            sfmt(where, sizeof where, "%s:%u", node_name(r, w->node), j);
            sfmt(seen, sizeof seen, "switch.credit.vl_buffer %s below one credit round trip of %s at %s (%s of "
                 "delay each way)", units_fmt_size(buf, a, sizeof a), units_fmt_size((int64_t)need, b, sizeof b),
                 units_fmt_rate((int64_t)rate, c, sizeof c), units_fmt_time(p->delay_ps, seen + 480, 32));
            add(rep, DOC_WARNING, "ib-vl-buffer", where, seen,
                "a sender may have only the receiver's free buffer in flight: below a round trip's worth it idles "
                "while credits travel, and the link carries at most vl_buffer / round trip",
                "raise switch.credit.vl_buffer to at least the round trip's bytes (longer cables need more)");
        }
    }
    /* Congestion control: switches marking FECN and senders that react to it. */
    bool marking = false;
    for (uint32_t i = 0; i < r->g.n_switches && !marking; i++)
        for (uint32_t j = 0; j < n->sws[i].n_ports && !marking; j++)
            marking = port_cfg(&n->sws[i].ports[j])->ecn_mark == PORT_ECN_ENQUEUE;
    bool reacting = (cc_registry[n->cc]->flags & CC_F_CNP) != 0;
    for (int t = 0; t < r->scn->n_traffic && !(marking && reacting); t++) {
        const struct scn_traffic *tr = &r->scn->traffic[t];
        const int *hs;
        if (strcmp(scn_traffic_kind_name(tr), "incast") != 0 || traffic_ops_of(tr)->senders(tr, &hs) < 2)
            continue;
        sfmt(seen, sizeof seen, "an incast (%s) with %s", tr->id, !marking && !reacting
             ? "switch.ibcc.enabled false and host.cc not reacting to BECNs" : !marking
             ? "switch.ibcc.enabled false: no switch marks FECN" : "host.cc not reacting to BECNs (use \"ibcc\")");
        add(rep, DOC_WARNING, "ib-cc-off", tr->id, seen,
            "credits make the fabric lossless, not fair: the hot spot's backlog fills the buffers of every link "
            "towards it and the flows that only share those links wait behind it (the victims of "
            "docs/VALIDATION.md's hot spot get 8.3 instead of 66.8 Gb/s)",
            "turn on congestion control: switch.ibcc.enabled true and host.cc \"ibcc\"");
        break;
    }
    /* The tables: a cycle of channel dependencies on one VL can deadlock the fabric. */
    if (!n->sm.layer) {
        char why[256];
        if (sm_credit_loop(&r->g, why, sizeof why) == 1) {
            sfmt(seen, sizeof seen, "ib.routing_engine %s: %s close a cycle of channel dependencies on one VL",
                 n->sm.engine ? n->sm.engine : "?", why);
            add(rep, DOC_ERROR, "ib-credit-loop", "fabric", seen,
                "when every buffer on the cycle fills, each switch waits for credit from the next and nothing on "
                "that VL moves again: a credit loop (the deadlock-ring scenario's, without PFC)",
                "choose a deadlock-free routing engine: ib.routing_engine \"updn\" (or \"ftree\" on a fat tree), "
                "or \"lash\" / \"dfsssp\", which spread paths over VLs");
        }
    }
}

void doctor_scenario(const struct run *r, struct doc_report *rep)
{
    struct senders sd;
    senders_init(r, &sd);
    /* PFC, ECN and their buffers are Ethernet switches' settings: InfiniBand's switches have credits (check_ib) */
    if (!credit_runs(&r->net))
        check_switch_ports(r, &sd, rep);
    check_hosts(r, &sd, rep);
    check_servers(r, rep);
    check_classes(r, rep);
    check_ib(r, rep);
    free(sd.prio);
}

/* ---- after a run: the outputs ---- */

/* A CSV file split into rows of cells (in place). */
struct csv {
    char *text;
    char ***rows;   /* rows[i][k]: cell k of data row i */
    int n, ncol;
    const char *cols[24];
};

static void csv_free(struct csv *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->rows[i]);
    free(c->rows);
    free(c->text);
    memset(c, 0, sizeof *c);
}

static int csv_col(const struct csv *c, const char *name)
{
    for (int k = 0; k < c->ncol; k++)
        if (strcmp(c->cols[k], name) == 0)
            return k;
    return -1;
}

/* Reads dir/name; a missing file is 1 when optional; a header without the columns `need` is an error. */
static int csv_read(const char *dir, const char *name, bool optional, const char *const *need, struct csv *c,
                    char *err, size_t errlen)
{
    char path[4096];
    memset(c, 0, sizeof *c);
    sfmt(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (optional && stat(path, &st) != 0)
        return 1;
    int rc = read_text_file(path, &c->text, err, errlen);
    if (rc)
        return rc;
    char *save = NULL, *line = strtok_r(c->text, "\n", &save);
    if (!line) {
        sfmt(err, errlen, "%s: expected a CSV header, got an empty file", path);
        csv_free(c);
        return SCN_EUSAGE;
    }
    for (char *s = line; c->ncol < 24;) {
        c->cols[c->ncol++] = s;
        char *comma = strchr(s, ',');
        if (!comma)
            break;
        *comma = '\0';
        s = comma + 1;
    }
    for (int k = 0; need[k]; k++)
        if (csv_col(c, need[k]) < 0) {
            sfmt(err, errlen, "%s: expected a column \"%s\" in its header, got none", path, need[k]);
            csv_free(c);
            return SCN_EUSAGE;
        }
    int cap = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        if (c->n == cap) {
            cap = cap ? 2 * cap : 256;
            c->rows = mem_xrealloc(c->rows, (size_t)cap * sizeof *c->rows, DOC_OOM);
        }
        char **cells = mem_xcalloc((size_t)c->ncol, sizeof *cells, DOC_OOM);
        int k = 0;
        for (char *s = line; k < c->ncol;) {
            cells[k++] = s;
            char *comma = strchr(s, ',');
            if (!comma)
                break;
            *comma = '\0';
            s = comma + 1;
        }
        if (k < c->ncol) {
            sfmt(err, errlen, "%s: row %d: expected %d columns, got %d", path, c->n + 2, c->ncol, k);
            free(cells);
            csv_free(c);
            return SCN_EUSAGE;
        }
        c->rows[c->n++] = cells;
    }
    return 0;
}

static double num_at(const cJSON *root, const char *path)
{
    const cJSON *j = json_at_path(root, path);
    return cJSON_IsNumber(j) ? j->valuedouble : 0;
}

/* The global port id of "node","port" in the built run, or -1. */
static int32_t port_of(const struct run *r, const char *node, const char *port)
{
    int32_t id = graph_find(&r->g, node);
    long l = atol(port);
    if (id < 0 || l < 0 || (uint32_t)l >= r->g.nodes[id].n_ports)
        return -1;
    return (int32_t)(r->g.nodes[id].first_port + (uint32_t)l);
}

struct flowrow {
    const char *id;
    int src, dst;
    double size, start, finish, paused;
    bool done;
};

/* The longest pause any (port, priority) held without a break, and how many pauses were longer than the limit. */
struct storms {
    double worst, worst_at; /* ns */
    int32_t worst_port;
    int worst_prio, count;
};

/* One pass over pfc.csv (a PAUSE expires after its quanta, not only at a RESUME), and a last step that closes every
 * pause still open at the end of the file. */
static void find_storms(const struct run *r, const struct csv *pfc, int64_t limit, struct storms *st)
{
    int cn = csv_col(pfc, "node"), cp = csv_col(pfc, "port"), cpr = csv_col(pfc, "priority"),
        ct = csv_col(pfc, "time_ns"), ce = csv_col(pfc, "event");
    int32_t n_ports = (int32_t)r->g.n_ports;
    double quanta = pfc_settings_of(&r->scn->sw)->pause_quanta;
    double *since = mem_xcalloc((size_t)n_ports * NPRIO, sizeof *since, DOC_OOM);
    double *last = mem_xcalloc((size_t)n_ports * NPRIO, sizeof *last, DOC_OOM);
    *st = (struct storms){0, 0, -1, 0, 0};
    for (int i = 0; i < n_ports * NPRIO; i++)
        since[i] = -1;
    for (int i = 0; i <= pfc->n; i++) {
        int32_t id = -1;
        int pr = 0;
        double t = 0;
        bool pause = false;
        if (i < pfc->n) {
            id = port_of(r, pfc->rows[i][cn], pfc->rows[i][cp]);
            pr = atoi(pfc->rows[i][cpr]);
            t = atof(pfc->rows[i][ct]);
            pause = strcmp(pfc->rows[i][ce], "pause") == 0;
            if (id < 0 || pr < 0 || pr >= NPRIO)
                continue;
        }
        for (int32_t k = i < pfc->n ? id * NPRIO + pr : 0; k < (i < pfc->n ? id * NPRIO + pr + 1 : n_ports * NPRIO);
             k++) {
            if (since[k] < 0) {
                if (pause) {
                    since[k] = t;
                    last[k] = t;
                }
                continue;
            }
            int64_t rate = r->g.ports[k / NPRIO].rate_bps;
            double expire = last[k] + quanta * 512 * 1e9 / (double)(rate ? rate : 1);
            double end = i < pfc->n ? (pause && t <= expire ? -1 : (t < expire ? t : expire)) : last[k];
            if (end < 0) {
                last[k] = t;
                continue;
            }
            double held = end - since[k];
            if (held * 1000 > (double)limit) {
                st->count++;
                if (held > st->worst) {
                    st->worst = held;
                    st->worst_at = since[k];
                    st->worst_port = k / NPRIO;
                    st->worst_prio = k % NPRIO;
                }
            }
            since[k] = pause ? t : -1;
            last[k] = t;
        }
    }
    free(since);
    free(last);
}

/* Storms: a pause longer than the watchdog would allow (detection and a poll) when it is on, else 200 us, is one:
 * a healthy pause lasts as long as a queue takes to drain (docs/doctor.md). */
static void check_storms(const struct run *r, const struct csv *pfc, const cJSON *sum, struct doc_report *rep)
{
    char seen[512], where[160], a[32], b[32];
    const struct pfcwd_settings *wd = pfcwd_settings_of(&r->scn->sw);
    int64_t limit = wd->enabled ? wd->detection_ps + wd->poll_ps : STORM_DEFAULT_PS;
    struct storms st;
    find_storms(r, pfc, limit, &st);
    if (!st.count)
        return;
    const struct g_port *gp = &r->g.ports[st.worst_port];
    sfmt(where, sizeof where, "%s:%u", node_name(r, gp->node), st.worst_port - r->g.nodes[gp->node].first_port);
    sfmt(seen, sizeof seen, "priority %d paused without a break for %.0f us from %.0f us (%d such pauses over %s)",
         st.worst_prio, st.worst / 1000, st.worst_at / 1000, st.count, units_fmt_time(limit, a, sizeof a));
    char fix[512];
    if (wd->enabled)
        sfmt(fix, sizeof fix, "the watchdog is on (detection %s, action %s) and declared %.0f storms: check "
             "watchdog.csv; a shorter detection_time acts sooner",
             units_fmt_time(wd->detection_ps, b, sizeof b),
             wd->action == PFCWD_DROP ? "drop" : wd->action == PFCWD_FORWARD ? "forward" : "alert",
             num_at(sum, "watchdog.storms_detected"));
    else
        sfmt(fix, sizeof fix, "enable switch.watchdog: with detection_time %s it would have declared the storm "
             "at about %.0f us and (action drop) dropped what is queued for the port and ignored its PAUSEs, "
             "so the rest of the fabric drains; find the device that keeps pausing",
             units_fmt_time(wd->detection_ps, b, sizeof b), (st.worst_at + (double)(wd->detection_ps +
                                                                                   wd->poll_ps) / 1000) / 1000);
    add(rep, DOC_ERROR, "pause-storm", where, seen,
        "a port paused far longer than a queue takes to drain is a storm (a stuck NIC or a deadlock): every "
        "flow through it stops, and the pauses spread upstream",
        fix);
}

/*
 * The queue the first PAUSE protects: the deepest watched queue on the root's node (its peak in *peak), else,
 * with nothing watched there, the port towards the host on that node that most flows go to.  Returns its global
 * port id or -1; *chost is the host behind it when it is one, else -1.
 */
static int32_t congested_port(const struct run *r, const struct csv *q, uint32_t rnode, const struct flowrow *fl,
                              int nfl, double *peak, int32_t *chost)
{
    int32_t congested = -1;
    *peak = 0;
    int qn = csv_col(q, "node"), qp = csv_col(q, "port"), qb = csv_col(q, "bytes");
    for (int i = 0; q->n && i < q->n; i++)
        if (strcmp(q->rows[i][qn], node_name(r, rnode)) == 0 && atof(q->rows[i][qb]) > *peak) {
            *peak = atof(q->rows[i][qb]);
            congested = port_of(r, q->rows[i][qn], q->rows[i][qp]);
        }
    *chost = -1;
    if (congested >= 0 && r->g.nodes[r->g.ports[r->g.ports[congested].peer].node].kind == SCN_NODE_HOST)
        *chost = r->g.nodes[r->g.ports[r->g.ports[congested].peer].node].host;
    if (congested >= 0)
        return congested;
    int best = 0;
    for (uint32_t k = 0; k < r->g.nodes[rnode].n_ports; k++) {
        uint32_t pn = r->g.ports[r->g.ports[r->g.nodes[rnode].first_port + k].peer].node;
        int h = r->g.nodes[pn].host, cnt = 0;
        for (int f = 0; h >= 0 && f < nfl; f++)
            cnt += fl[f].dst == h;
        if (cnt > best) {
            best = cnt;
            *chost = h;
            congested = (int32_t)(r->g.nodes[rnode].first_port + k);
        }
    }
    return congested;
}

/* The root of the pause tree, the queue it protects and the flows that filled it, and its victims: flows paused
 * without crossing it (reported only when there is one). */
static void report_pause_tree(const struct run *r, const struct csv *pfc, int32_t root, int32_t congested,
                              int32_t chost, double peak, const struct flowrow *fl, int nfl, const cJSON *sum,
                              struct doc_report *rep)
{
    char seen[512], where[160], a[32];
    char fillers[200] = "", victims[256] = "";
    int nfill = 0, nvict = 0;
    int mtu = nic_params_of(&r->scn->host)->mtu;
    for (int f = 0; f < nfl; f++) {
        if (chost >= 0 && fl[f].dst == chost) {
            if (nfill < 4) {
                size_t l = strlen(fillers);
                sfmt(fillers + l, sizeof fillers - l, "%s%s", l ? ", " : "", fl[f].id);
            }
            nfill++;
            continue;
        }
        double pkts = ceil(fl[f].size / mtu);
        if (pkts > 0 && fl[f].paused / pkts > VICTIM_PAUSE_PER_PKT_NS) {
            if (nvict < 4) {
                size_t l = strlen(victims);
                sfmt(victims + l, sizeof victims - l, "%s%s (%.0f us per packet)", l ? ", " : "", fl[f].id,
                     fl[f].paused / pkts / 1000);
            }
            nvict++;
        }
    }
    if (!nvict)
        return;
    uint32_t rnode = r->g.ports[root].node;
    sfmt(where, sizeof where, "%s:%u", node_name(r, rnode), root - r->g.nodes[rnode].first_port);
    char cq[96] = "an unwatched queue";
    if (congested >= 0)
        sfmt(cq, sizeof cq, "%s:%u%s%s", node_name(r, r->g.ports[congested].node),
             congested - r->g.nodes[r->g.ports[congested].node].first_port, peak > 0 ? ", peak " : "",
             peak > 0 ? units_fmt_size((int64_t)peak, a, sizeof a) : "");
    char filled[256];
    if (chost >= 0)
        sfmt(filled, sizeof filled, "filled by %d flow%s to %s (%s%s)", nfill, nfill == 1 ? "" : "s",
             r->scn->topo.host_names[chost], fillers, nfill > 4 ? ", ..." : "");
    else if (congested >= 0)
        sfmt(filled, sizeof filled, "towards %s",
             node_name(r, r->g.ports[r->g.ports[congested].peer].node));
    else
        sfmt(filled, sizeof filled, "filled by flows the outputs do not show");
    int ct = csv_col(pfc, "time_ns"), cpr = csv_col(pfc, "priority");
    sfmt(seen, sizeof seen, "first PAUSE at %.1f us (priority %s), protecting %s, %s; %d victim flow%s paused "
         "without crossing it: %s%s; %.0f ports paused in all",
         atof(pfc->rows[0][ct]) / 1000, pfc->rows[0][cpr], cq, filled, nvict, nvict == 1 ? "" : "s", victims,
         nvict > 4 ? ", ..." : "", num_at(sum, "pfc.ports_ever_paused"));
    if (r->g.nodes[rnode].in_server) {
        /* PCIe's credits, not a switch's PFC: ECN cannot act there, the server's paths are what is short. */
        add(rep, DOC_WARNING, "pause-tree", where, seen,
            "the first pause is inside a server (its PCIe, socket link or memory holds its senders back, as "
            "PCIe's credits do): traffic through that part of the server is more than it carries, and the "
            "backpressure spreads to the flows that share the server's links",
            "give the server's GPUs paths that do not share that part: GPUDirect RDMA (NCCL_NET_GDR_LEVEL), each "
            "GPU's NIC under its own PCIe switch on its own socket (the doctor's gdr-off, nic-numa)");
        return;
    }
    add(rep, DOC_WARNING, "pause-tree", where, seen,
        "PFC pauses a whole priority of a link, not the flows that congest: the pause spreads upstream and "
        "stops flows that share only a link with the congested ones (head-of-line blocking)",
        "let ECN and DCQCN act before PFC (ECN on, kmax below the PFC point, DCQCN's timers as the preset); "
        "separate the congesting traffic on its own priority");
}

/* The root of the pause tree, its victims, storms: from pfc.csv, queues.csv and flows.csv. */
static void check_pauses(const struct run *r, const struct csv *pfc, const struct csv *q, const struct flowrow *fl,
                         int nfl, const cJSON *sum, struct doc_report *rep)
{
    if (!pfc->n)
        return;
    check_storms(r, pfc, sum, rep);
    /* The root: the first port that paused. */
    int32_t root = port_of(r, pfc->rows[0][csv_col(pfc, "node")], pfc->rows[0][csv_col(pfc, "port")]);
    if (root < 0)
        return;
    double peak;
    int32_t chost, congested = congested_port(r, q, r->g.ports[root].node, fl, nfl, &peak, &chost);
    report_pause_tree(r, pfc, root, congested, chost, peak, fl, nfl, sum, rep);
}

/* Throughput far below line rate per destination of bulk transfers, with the likely cause (docs/doctor.md). */
static void check_throughput(const struct run *r, const struct flowrow *fl, int nfl, const cJSON *sum,
                             const struct csv *q, struct doc_report *rep)
{
    char seen[512], why[512], fix[512], a[32], b[32];
    uint32_t nh = r->g.n_hosts;
    for (uint32_t d = 0; d < nh; d++) {
        /* the union of the busy intervals of the bulk flows into d, their bytes, and their senders' rates */
        double bytes = 0, busy = 0, cur_s = -1, cur_e = -1;
        int64_t src_rate = 0;
        int nf = 0;
        bool seen_src[1024] = {false};
        for (;;) {
            int best = -1;
            for (int f = 0; f < nfl; f++)
                if (fl[f].dst == (int)d && fl[f].done && fl[f].size >= BULK_BYTES && fl[f].start >= cur_s &&
                    (best < 0 || fl[f].start < fl[best].start) && fl[f].start >= 0)
                    best = f;
            if (best < 0)
                break;
            const struct flowrow *f = &fl[best];
            nf++;
            bytes += f->size;
            if (f->src >= 0 && (f->src >= 1024 || !seen_src[f->src])) {
                if (f->src < 1024)
                    seen_src[f->src] = true;
                src_rate += r->net.hosts[f->src].rate_bps;
            }
            if (f->start > cur_e) {
                if (cur_e > cur_s)
                    busy += cur_e - cur_s;
                cur_s = f->start;
                cur_e = f->finish;
            } else if (f->finish > cur_e) {
                cur_e = f->finish;
            }
            /* mark it used: rows are read once more only through start >= cur_s, so move past it */
            ((struct flowrow *)f)->start = -1 - f->start;
        }
        for (int f = 0; f < nfl; f++)
            if (fl[f].start < 0)
                ((struct flowrow *)&fl[f])->start = -1 - fl[f].start;
        if (cur_e > cur_s)
            busy += cur_e - cur_s;
        if (!nf || busy <= 0)
            continue;
        int64_t cap = r->net.hosts[d].rate_bps < src_rate ? r->net.hosts[d].rate_bps : src_rate;
        double got = bytes * 8 / (busy * 1e-9);
        if (got >= LOW_SHARE * (double)cap)
            continue;
        double drops = num_at(sum, "packets.drops_by_reason.buffer") + num_at(sum, "packets.drops_by_reason.headroom");
        double cnps = num_at(sum, "cnp.sent"), pauses = num_at(sum, "pfc.pause_frames");
        /* the mean depth of the watched queues, for "standing queue with CNPs" */
        double qmean = 0;
        if (q->n) {
            int qb = csv_col(q, "bytes");
            for (int i = 0; i < q->n; i++)
                qmean += atof(q->rows[i][qb]);
            qmean /= q->n;
        }
        /* Only with one of the table's symptoms: a link shared in the fabric (a dumbbell's bottleneck, an
         * oversubscribed tier) gives a destination less than its line rate with nothing misconfigured. */
        double share = got / (double)cap;
        if (drops > 0) {
            sfmt(seen, sizeof seen, "bulk transfers far below line rate, with %.0f frames dropped for buffer or "
                 "headroom", drops);
            sfmt(why, sizeof why, "each drop costs go-back-N a window of resends (the troubleshooting table's "
                 "first cause: PFC off, or headroom short)");
            sfmt(fix, sizeof fix, "make the RoCE priority lossless on every switch with enough headroom (the "
                 "before-run findings: rocesim doctor SCENARIO.json)");
        } else if (cnps == 0 && pauses > 0 && cc_params_of(&r->scn->host)->cc == cc_find("dcqcn")) {
            sfmt(seen, sizeof seen, "bulk transfers far below line rate, with no CNP and %.0f PAUSE frames", pauses);
            sfmt(why, sizeof why, "ECN never marked, so DCQCN never slowed the senders and PFC alone held the "
                 "queues, pausing flows that share a link with them (the table's second cause: ECN off or its "
                 "thresholds too high)");
            sfmt(fix, sizeof fix, "enable ECN and set kmin/kmax below the PFC point");
        } else if (cnps > 0 && qmean > (double)ecn_settings_of(&r->scn->sw)->kmax) {
            sfmt(seen, sizeof seen, "bulk transfers far below line rate, with a standing queue (mean %s of the "
                 "watched queues) despite %.0f CNPs", units_fmt_size((int64_t)qmean, a, sizeof a), cnps);
            sfmt(why, sizeof why, "DCQCN cuts too gently to drain the queue (the table's third cause: DCQCN "
                 "misconfigured)");
            sfmt(fix, sizeof fix, "a larger cut (host.dcqcn.g, rate_on_first_cnp) or a shorter cnp_interval");
        } else if (cnps > 0 && pauses == 0 && share < LOW_SHARE / 4 &&
                   (doctor_find(rep, "dcqcn-timers") || doctor_find(rep, "dcqcn-steps") ||
                    doctor_find(rep, "dcqcn-min-rate"))) {
            /* Without a drop or a PAUSE, a low share alone does not tell a misconfiguration from a bottleneck
             * shared in the fabric: DCQCN is named only when its settings are out of proportion too. */
            sfmt(seen, sizeof seen, "bulk transfers far below line rate with no drop, no PAUSE and %.0f CNPs", cnps);
            sfmt(why, sizeof why, "nothing holds the senders back but DCQCN: after its cuts it recovers too slowly "
                 "(the table's third cause: DCQCN misconfigured)");
            sfmt(fix, sizeof fix, "check host.dcqcn: rate_increase_timer, byte_counter, ai_rate (the presets' "
                 "values)");
        } else {
            continue;
        }
        char where[96];
        sfmt(where, sizeof where, "%s (%d flow%s, %.1f Gbps, %.0f %% of %s)", r->scn->topo.host_names[d], nf,
             nf == 1 ? "" : "s", got / 1e9, 100 * share, units_fmt_rate(cap, b, sizeof b));
        add(rep, DOC_ERROR, "throughput-low", where, seen, why, fix);
    }
}

static void check_summary(const struct run *r, const cJSON *sum, struct doc_report *rep)
{
    char seen[512], a[32];
    const cJSON *pr = json_at_path(sum, "priorities");
    const cJSON *it;
    struct senders sd;
    senders_init(r, &sd);
    free(sd.prio);
    cJSON_ArrayForEach(it, pr)
    {
        /* a priority only selective repeat sends on may drop: each loss costs it one resend */
        if (!(sd.gbn_mask >> atoi(it->string) & 1))
            continue;
        double dropped = num_at(it, "packets_dropped");
        bool lossless = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "lossless"));
        double cong = num_at(sum, "packets.drops_by_reason.buffer") + num_at(sum, "packets.drops_by_reason.headroom");
        if (dropped <= 0 || cong <= 0)
            continue;
        char pw[32];
        sfmt(pw, sizeof pw, "priority %s", it->string);
        /* "lossless" in the summary: at some port; where a switch leaves it lossy, the drops are that switch's */
        if (lossless && !doctor_find(rep, "roce-priority-lossy")) {
            sfmt(seen, sizeof seen, "%.0f frames of lossless priority %s dropped (%.0f headroom, %.0f buffer)",
                 dropped, it->string, num_at(sum, "packets.drops_by_reason.headroom"),
                 num_at(sum, "packets.drops_by_reason.buffer"));
            add(rep, DOC_ERROR, "lossless-drops", pw, seen,
                "a lossless priority drops only when the headroom cannot hold what arrives after PAUSE",
                "set switch.pfc.headroom to \"auto\" (or larger), check the cable lengths");
        } else {
            sfmt(seen, sizeof seen, "%.0f RoCE frames of priority %s dropped, which is lossy%s (%.0f retransmitted)",
                 dropped, it->string, lossless ? " at some switch" : "", num_at(sum, "packets.retransmitted"));
            add(rep, DOC_ERROR, "roce-drops", pw, seen,
                "RoCE on a lossy priority: every buffer overflow drops frames and go-back-N resends a window",
                "make the priority lossless (switch.pfc, host.priority)");
        }
    }
    double mtu = num_at(sum, "packets.drops_by_reason.mtu");
    if (mtu > 0) {
        sfmt(seen, sizeof seen, "%.0f frames dropped as larger than a switch's MTU", mtu);
        add(rep, DOC_ERROR, "mtu-drops", "run", seen,
            "the flows whose frames exceed switch.mtu never get through; their senders time out and resend forever",
            "host.mtu + 62 bytes of headers at most switch.mtu on every host");
    }
    double corrupt = num_at(sum, "packets.drops_by_reason.corrupt");
    if (corrupt > 0) {
        sfmt(seen, sizeof seen, "%.0f frames corrupted on the wire (%.0f retransmitted)", corrupt,
             num_at(sum, "packets.retransmitted"));
        add(rep, DOC_WARNING, "corrupt-drops", "run", seen,
            "a corrupted frame is lost whatever PFC does; go-back-N resends a window per loss",
            "replace the cable or optic with errors (link loss_rate, link_errors faults)");
    }
    double sp = num_at(sum, "packets.spurious_timeouts");
    if (sp > 0) {
        sfmt(seen, sizeof seen, "%.0f retransmission timeouts fired with nothing lost (host.rto %s)", sp,
             units_fmt_time(transport_params_of(&r->scn->host)->rto_ps, a, sizeof a));
        add(rep, DOC_WARNING, "spurious-timeouts", "run", seen,
            "the timeout is shorter than the queueing a packet meets: the sender resends data that was only late",
            "a longer timeout: host.qp_timeout (4.096us x 2^n; 14 gives 67ms) or host.rto above the worst queueing");
    }
    if (cJSON_IsTrue(json_at_path(sum, "deadlock.detected"))) {
        bool loop = cJSON_IsString(json_at_path(sum, "deadlock.cause"));
        sfmt(seen, sizeof seen, "a %s at %.0f us on %s %.0f", loop ? "credit loop" : "PFC deadlock",
             num_at(sum, "deadlock.at_ns") / 1000, loop ? "VL" : "priority", num_at(sum, "deadlock.priority"));
        if (loop)
            add(rep, DOC_ERROR, "credit-loop", "run", seen,
                "a cycle of egresses each waiting for credit from the next: nothing on that VL moves again",
                "a deadlock-free routing engine: ib.routing_engine \"updn\", \"lash\" or \"dfsssp\"");
        else
            add(rep, DOC_ERROR, "pfc-deadlock", "run", seen,
                "a cycle of paused egresses each waiting on the next: nothing on that priority moves again",
                "break the cyclic buffer dependency: routing without cycles (up-down), or the PFC watchdog");
    }
}

/* A run that did not complete: said first, since every finding after it covers only the time it simulated. */
static void note_incomplete(const cJSON *sum, struct doc_report *rep)
{
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(sum, "complete")))
        return;
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(sum, "incomplete_reason");
    char t[32];
    sfmt(rep->incomplete, sizeof rep->incomplete, "the run did not complete (%s) and stopped at %s of simulated "
         "time: the findings below cover only that part",
         cJSON_IsString(why) ? why->valuestring : "summary.json says \"complete\": false",
         units_fmt_time((int64_t)(num_at(sum, "sim_end_ns") * 1000), t, sizeof t));
}

int doctor_outputs(const char *dir, const struct run *r, struct doc_report *rep, char *err, size_t errlen)
{
    char path[4096];
    char *txt = NULL;
    sfmt(path, sizeof path, "%s/summary.json", dir);
    struct stat st;
    if (stat(path, &st) != 0) {
        sfmt(err, errlen, "%s: expected the directory of a finished run (summary.json), got none", dir);
        return SCN_EUSAGE;
    }
    int rc = read_text_file(path, &txt, err, errlen);
    if (rc)
        return rc;
    cJSON *sum = cJSON_Parse(txt);
    free(txt);
    if (!cJSON_IsObject(sum)) {
        cJSON_Delete(sum);
        sfmt(err, errlen, "%s: expected the JSON object of a run's summary, got something else", path);
        return SCN_EUSAGE;
    }
    static const char *const need_fl[] = {"id", "src", "dst", "size_bytes", "start_ns", "finish_ns", "paused_ns",
                                          NULL};
    static const char *const need_pfc[] = {"time_ns", "node", "port", "priority", "event", NULL};
    static const char *const need_q[] = {"time_ns", "node", "port", "priority", "bytes", NULL};
    struct csv fc, pc, qc;
    rc = csv_read(dir, "flows.csv", false, need_fl, &fc, err, errlen);
    if (rc) {
        cJSON_Delete(sum);
        return rc;
    }
    int prc = csv_read(dir, "pfc.csv", true, need_pfc, &pc, err, errlen);
    int qrc = prc > 1 ? 1 : csv_read(dir, "queues.csv", true, need_q, &qc, err, errlen);
    if (prc > 1 || qrc > 1) {
        if (!prc)
            csv_free(&pc);
        csv_free(&fc);
        cJSON_Delete(sum);
        return prc > 1 ? prc : qrc;
    }
    if (prc)
        memset(&pc, 0, sizeof pc);
    if (qrc)
        memset(&qc, 0, sizeof qc);
    struct flowrow *fl = mem_xcalloc(fc.n ? (size_t)fc.n : 1, sizeof *fl, DOC_OOM);
    int ci = csv_col(&fc, "id"), cs = csv_col(&fc, "src"), cd = csv_col(&fc, "dst"), cz = csv_col(&fc, "size_bytes"),
        ct = csv_col(&fc, "start_ns"), cf = csv_col(&fc, "finish_ns"), cp = csv_col(&fc, "paused_ns");
    for (int i = 0; i < fc.n; i++) {
        char **c = fc.rows[i];
        fl[i] = (struct flowrow){c[ci], scn_host_index(r->scn, c[cs]), scn_host_index(r->scn, c[cd]), atof(c[cz]),
                                 atof(c[ct]), atof(c[cf]), atof(c[cp]), c[cf][0] != '\0'};
    }
    note_incomplete(sum, rep);
    check_summary(r, sum, rep);
    check_pauses(r, &pc, &qc, fl, fc.n, sum, rep);
    check_throughput(r, fl, fc.n, sum, &qc, rep);
    free(fl);
    csv_free(&fc);
    csv_free(&pc);
    csv_free(&qc);
    cJSON_Delete(sum);
    return 0;
}

/* ---- the command ---- */

static const char doc_usage[] =
    "usage: rocesim doctor SCENARIO.json [--set PATH=VALUE]... [-o DIR]\n"
    "       rocesim doctor OUTDIR\n";

static int doc_bad(const char *fmt, const char *arg)
{
    return usage_error("doctor", doc_usage, fmt, arg);
}

#define DOC_MAX_SETS 256

int doctor_main(int argc, char **argv)
{
    const char *target = NULL, *out = NULL;
    struct scn_override sets[DOC_MAX_SETS];
    int n_sets = 0;
    char (*paths)[512] = mem_xcalloc(DOC_MAX_SETS, sizeof *paths, DOC_OOM);
    int rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--set") == 0) {
            const char *eq = next ? strchr(next, '=') : NULL;
            if (!eq || eq == next || (size_t)(eq - next) >= 512)
                rc = doc_bad("--set expects PATH=VALUE, got \"%s\"", next ? next : "");
            else if (n_sets == DOC_MAX_SETS)
                rc = doc_bad("too many --set options, at \"%s\"", next);
            else {
                sfmt(paths[n_sets], 512, "%.*s", (int)(eq - next), next);
                sets[n_sets].path = paths[n_sets];
                sets[n_sets].value = eq + 1;
                n_sets++;
                i++;
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
            if (!next)
                rc = doc_bad("%s needs a directory", a);
            out = next;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(doc_usage, stdout);
            free(paths);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            rc = doc_bad("unknown option \"%s\"", a);
        } else if (!target) {
            target = a;
        } else {
            rc = doc_bad("unexpected argument \"%s\"", a);
        }
    }
    if (!rc && !target)
        rc = doc_bad("%s", "needs a scenario file or the directory of a finished run");
    struct stat st;
    bool after = !rc && stat(target, &st) == 0 && S_ISDIR(st.st_mode);
    if (!rc && after && (n_sets || out))
        rc = doc_bad("%s", "--set and -o apply to a scenario, not to a run's directory (its doctor.json goes there)");
    if (rc) {
        free(paths);
        return rc;
    }
    char scn_path[4096], err[SCN_ERR_MAX + 4096];
    sfmt(scn_path, sizeof scn_path, after ? "%s/scenario.json" : "%s", target);
    if (after && stat(scn_path, &st) != 0) {
        fprintf(stderr, "rocesim: %s: expected the directory of a finished run (scenario.json), got none\n", target);
        free(paths);
        return SCN_EUSAGE;
    }
    struct scenario scn;
    rc = scn_load(scn_path, sets, n_sets, &scn, err, sizeof err);
    free(paths);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    struct run r;
    rc = run_setup(&r, &scn, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        scn_free(&scn);
        return rc;
    }
    struct doc_report rep = {0};
    doctor_scenario(&r, &rep);
    if (after)
        rc = doctor_outputs(target, &r, &rep, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
    } else {
        const char *dir = after ? target : out;
        char *json = doctor_json(&rep, target, after ? "after" : "before");
        if (dir) {
            char jp[4096];
            sfmt(jp, sizeof jp, "%s/doctor.json", dir);
            if ((!after && make_dirs(dir)) || write_file_atomic(jp, json, strlen(json))) {
                fprintf(stderr, "rocesim: %s: cannot write: %s\n", jp, strerror(errno));
                rc = SCN_EIO;
            }
        }
        free(json);
        if (!rc) {
            doctor_print(stdout, &rep, target);
            rc = rep.n ? 1 : 0;
        }
    }
    doctor_report_free(&rep);
    run_free(&r);
    scn_free(&scn);
    return rc;
}
