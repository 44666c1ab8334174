/*
 * live — see live.h.  The frames and the topology are JSON as docs/live.md ("What the page and the server
 * exchange") defines them.
 */
#include "tools/live/live.h"

#include "models/cc.h"
#include "models/fabric.h"
#include "sim/file.h"
#include "sim/mem.h"
#include "tools/live/httpd.h"
#include "tools/run/observer.h"
#include "tools/common/signals.h"
#include "tools/common/text.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

extern const char live_page[];     /* tools/live/live_page.c */
extern const size_t live_page_len;

#define SLICE_MIN_PS 10000LL           /* 10 ns */
#define SLICE_MAX_PS 1000000000LL      /* 1 ms */
#define SLICE_WALL_S 0.02              /* a slice's wall time aimed at, as fast as it goes */
#define PACE_SLICES_PER_S 20           /* slices per wall second at a set pace */
#define PACE_MAX_NS_PER_S 1000000000LL /* a pace of a simulated second per second at most */

struct live {
    struct run *r;
    const struct monitor *mon;
    struct httpd *srv;
    char *topo; /* topology.json: written before the server starts, read-only after */
    size_t topo_len;
    bool replay;
    char dir[4096]; /* replay: the run's output directory */

    /* The viewer's commands, from the server's thread. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool paused, changed;
    int64_t step_ns;  /* a step asked for and not yet begun; 0: none */
    int64_t pace;     /* simulated ns per wall second; 0: as fast as it goes */

    /* The simulation's thread only. */
    int hold;
    bool waiting;       /* held at the start (--live-hold start) and not yet resumed */
    const char *state;
    sim_time_t step_to; /* a step runs until this time; -1: none */
    sim_time_t slice;
    int64_t pace_now;   /* the pace in force, and its origin */
    double pace_wall0;
    sim_time_t pace_sim0;
    double wall_frame, wall_slice;
    uint64_t seq;
    uint64_t *tx_prev;  /* per port: tx_bytes at the previous frame */
    sim_time_t t_prev;
    uint32_t *page_of;  /* flow id -> its index on the page, UINT32_MAX: not shown yet */
    uint32_t cap_page, n_page;
    struct sbuf fb;
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The CLOCK_REALTIME instant `s` seconds from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(double s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)(s * 1e9);
    ts.tv_sec += ns / 1000000000;
    ts.tv_nsec = ns % 1000000000;
    return ts;
}

/* Serves until SIGINT or SIGTERM (the server answers on its own thread meanwhile). */
static void until_signal(void)
{
    while (!sig_received()) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

bool live_parse_hold(const char *s, int *hold)
{
    if (strcmp(s, "start") == 0)
        *hold = LIVE_HOLD_START;
    else if (strcmp(s, "end") == 0)
        *hold = LIVE_HOLD_END;
    else if (strcmp(s, "both") == 0)
        *hold = LIVE_HOLD_START | LIVE_HOLD_END;
    else
        return false;
    return true;
}

/* ---- the topology ---- */

static void json_str(struct sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_printf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            sb_printf(b, "\\u%04x", (unsigned char)*s);
        else
            sb_printf(b, "%c", *s);
    }
    sb_printf(b, "\"");
}

static char *topology_json(const struct scenario *scn, const struct graph *g, bool replay, int64_t stop_ns,
                           const char *flows, size_t *len)
{
    struct sbuf b = {0};
    const char *cc = cc_scenario_name(cc_params_of(&scn->host)->cc);
    int id = cc_find(cc);
    const struct cc_ops *ops = id >= 0 ? cc_registry[id] : NULL;
    sb_printf(&b, "{\"mode\":\"%s\",\"scenario\":", replay ? "replay" : "live");
    json_str(&b, scn->name);
    sb_printf(&b, ",\"kind\":\"%s\",\"layout\":\"%s\",\"stop_ns\":%lld,\"cc\":", scn_topo_name(scn),
              topo_layout_name(scn), (long long)stop_ns);
    json_str(&b, cc);
    /* credits: the paused marks are (port, VL)s stalled for credit, and a replay reads credits.csv, not pfc.csv */
    const struct fabric_ops *fab = fabric_of(scn);
    sb_printf(&b, ",\"fabric\":\"%s\",\"credits\":%s", fab->name,
              fab->lfc && !strcmp(fab->lfc, "credit") ? "true" : "false");
    sb_printf(&b, ",\"cc_state\":");
    json_str(&b, ops && ops->alpha_name ? ops->alpha_name : "");
    sb_printf(&b, ",\"cc_state_fraction\":%s,\"frame_hz\":%d,\"priorities\":[",
              ops && ops->alpha_fraction ? "true" : "false", LIVE_FRAME_HZ);
    unsigned pm = monitor_traffic_prios(scn);
    for (int p = 0, k = 0; p < NPRIO; p++)
        if (pm & (1u << p))
            sb_printf(&b, "%s%d", k++ ? "," : "", p);
    uint32_t *tier = graph_host_distance(g); /* a node cut off from every host is drawn at tier 0 */
    if (!tier)
        mem_oom("laying out the live view");
    sb_printf(&b, "],\"nodes\":[");
    for (uint32_t v = 0; v < g->n_nodes; v++) {
        sb_printf(&b, "%s{\"name\":", v ? "," : "");
        json_str(&b, g->nodes[v].name);
        sb_printf(&b, ",\"type\":\"%s\",\"tier\":%d,\"group\":%d}", g->nodes[v].host >= 0 ? "host" : "switch",
                  tier[v] == UINT32_MAX ? 0 : (int)tier[v], g->nodes[v].group);
    }
    free(tier);
    sb_printf(&b, "],\"links\":[");
    for (uint32_t l = 0; l < g->n_links; l++) {
        const struct g_link *k = &g->links[l];
        sb_printf(&b, "%s{\"a\":%u,\"pa\":%u,\"b\":%u,\"pb\":%u,\"gbps\":%g}", l ? "," : "", k->a,
                  k->port_a - g->nodes[k->a].first_port, k->b, k->port_b - g->nodes[k->b].first_port,
                  (double)g->ports[k->port_a].rate_bps / 1e9);
    }
    sb_printf(&b, "],\"flows\":[%s]}", flows ? flows : "");
    *len = b.len;
    return b.p;
}

char *live_topology_json(const struct scenario *scn, const struct graph *g, size_t *len)
{
    return topology_json(scn, g, false, scn->stop_ps / 1000, NULL, len);
}

/* ---- serving ---- */

static const char *const replay_files[] = {"queues.csv",  "rates.csv",    "pfc.csv", "watchdog.csv",
                                           "credits.csv", "summary.json", NULL};

static void control(struct live *lv, const struct httpd_req *q, struct httpd_resp *resp)
{
    char cmd[64];
    size_t n = q->body_len < sizeof cmd - 1 ? q->body_len : sizeof cmd - 1;
    memcpy(cmd, q->body, n);
    cmd[n] = 0;
    while (n && (cmd[n - 1] == '\n' || cmd[n - 1] == '\r' || cmd[n - 1] == ' '))
        cmd[--n] = 0;
    long long v = 0;
    char tail;
    pthread_mutex_lock(&lv->mu);
    resp->status = 204;
    if (strcmp(cmd, "pause") == 0)
        lv->paused = true;
    else if (strcmp(cmd, "resume") == 0)
        lv->paused = false, lv->step_ns = 0;
    else if (sscanf(cmd, "step %lld%c", &v, &tail) == 1 && v > 0 && v <= 1000000000000LL)
        lv->step_ns = v;
    else if (strcmp(cmd, "pace max") == 0)
        lv->pace = 0;
    else if (sscanf(cmd, "pace %lld%c", &v, &tail) == 1 && v > 0 && v <= PACE_MAX_NS_PER_S)
        lv->pace = v;
    else
        resp->status = 400;
    if (resp->status == 204) {
        lv->changed = true;
        pthread_cond_broadcast(&lv->cv);
    }
    pthread_mutex_unlock(&lv->mu);
    if (resp->status == 400) {
        static const char msg[] = "expected pause, resume, step NS (1..1e12), pace NS (1..1e9) or pace max\n";
        resp->body = msg;
        resp->len = sizeof msg - 1;
    }
}

/*
 * A replay's file `name` of the run's directory: only a regular file of the directory itself, never what a
 * symbolic link of that name points to (a link to /etc/passwd would serve it to whoever may see the page): 403
 * and a line on stderr for a link, a pipe or a device; 404 when there is none (a run without storms has no
 * watchdog.csv, and the page asks for it as optional); 500 and a line on stderr when it is there but cannot be
 * read (unreadable, a directory, larger than FILE_MAX_BYTES), which a 404 would pass off as a run without it.
 */
static void serve_file(struct live *lv, const char *name, struct httpd_resp *resp)
{
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/%s", lv->dir, name);
    char *data;
    size_t len;
    int rc = file_read(path, FILE_BYTES | FILE_NO_LINK, &data, &len, err, sizeof err);
    struct stat st;
    if (rc == 0) {
        resp->status = 200;
        resp->type = strstr(name, ".csv") ? "text/csv; charset=utf-8" : "application/json";
        resp->body = resp->owned = data;
        resp->len = len;
    } else if (rc == SCN_EUSAGE) {
        resp->status = 403;
        fprintf(stderr, "rocesim: view: refused /files/%s (403): %s\n", name, err);
    } else if (lstat(path, &st) == 0 || errno != ENOENT) {
        resp->status = 500;
        fprintf(stderr, "rocesim: view: cannot serve /files/%s (500): %s\n", name, err);
    }
}

static void serve(void *ctx, const struct httpd_req *q, struct httpd_resp *resp)
{
    struct live *lv = ctx;
    bool get = strcmp(q->method, "GET") == 0;
    if (get && strcmp(q->path, "/") == 0) {
        resp->status = 200;
        resp->type = "text/html; charset=utf-8";
        resp->body = live_page;
        resp->len = live_page_len;
    } else if (get && strcmp(q->path, "/topology.json") == 0) {
        resp->status = 200;
        resp->type = "application/json";
        resp->body = lv->topo;
        resp->len = lv->topo_len;
    } else if (!lv->replay && get && strcmp(q->path, "/events") == 0) {
        resp->status = 0;
    } else if (!lv->replay && strcmp(q->path, "/control") == 0) {
        if (strcmp(q->method, "POST") == 0) {
            control(lv, q, resp);
        } else {
            resp->status = 405;
        }
    } else if (lv->replay && get && strncmp(q->path, "/files/", 7) == 0) {
        for (int i = 0; replay_files[i]; i++)
            if (strcmp(q->path + 7, replay_files[i]) == 0) {
                serve_file(lv, replay_files[i], resp);
                break;
            }
    }
    if (resp->status == 404 || resp->status == 405 || resp->status == 403 || resp->status == 500) {
        resp->body = resp->status == 404   ? "not found\n"
                     : resp->status == 403 ? "forbidden: not a file of the run\n"
                     : resp->status == 500 ? "the run's file cannot be read (the reason is on rocesim's stderr)\n"
                                           : "method not allowed\n";
        resp->len = strlen(resp->body);
    }
}

/* ---- the frames ---- */

static void send_frame(struct live *lv)
{
    const struct run *r = lv->r;
    const struct net *n = &r->net;
    const struct graph *g = &r->g;
    sim_time_t now = r->sim.now, dt = now - lv->t_prev;
    struct sbuf *b = &lv->fb;
    b->len = 0;
    if (b->p)
        b->p[0] = 0;
    pthread_mutex_lock(&lv->mu);
    int64_t pace = lv->pace;
    pthread_mutex_unlock(&lv->mu);
    sb_printf(b, "{\"seq\":%llu,\"t_ns\":%lld,\"state\":\"%s\",\"pace\":%lld,\"events\":%llu,\"flows_done\":%u,"
                 "\"flows_total\":%u,\"clients\":%d,\"links\":[",
              (unsigned long long)lv->seq++, (long long)(now / 1000), lv->state, (long long)pace,
              (unsigned long long)r->sim.events, n->flows_completed, n->n_flows, httpd_clients(lv->srv));
    int k = 0;
    for (uint32_t l = 0; l < g->n_links; l++) {
        uint32_t pa = g->links[l].port_a, pb = g->links[l].port_b;
        double u[2] = {0, 0};
        const uint32_t ends[2] = {pa, pb};
        for (int e = 0; e < 2; e++) {
            uint64_t tx = n->ports[ends[e]].tx_bytes;
            if (dt > 0 && g->ports[ends[e]].rate_bps > 0) {
                u[e] = (double)(tx - lv->tx_prev[ends[e]]) * 8 / ((double)dt * 1e-12 * (double)g->ports[ends[e]].rate_bps);
                u[e] = u[e] > 1 ? 1 : u[e];
            }
            lv->tx_prev[ends[e]] = tx;
        }
        if (u[0] >= 0.0005 || u[1] >= 0.0005)
            sb_printf(b, "%s[%u,%.3f,%.3f]", k++ ? "," : "", l, u[0], u[1]);
    }
    sb_printf(b, "],\"queues\":[");
    k = 0;
    for (uint32_t p = 0; p < g->n_ports; p++) {
        const struct port *pt = &n->ports[p];
        if (!(pt->qmask & 0xff))
            continue;
        for (int prio = 0; prio < NPRIO; prio++)
            if (pt->qmask & (1u << prio))
                sb_printf(b, "%s[%u,%u,%d,%lld]", k++ ? "," : "", pt->node, pt->local, prio,
                          (long long)port_queued_bytes(pt, prio));
    }
    sb_printf(b, "],\"paused\":[");
    k = 0;
    for (uint32_t p = 0; p < g->n_ports; p++)
        for (int prio = 0; n->ports[p].paused && prio < NPRIO; prio++)
            if (n->ports[p].paused & (1u << prio))
                sb_printf(b, "%s[%u,%u,%d]", k++ ? "," : "", n->ports[p].node, n->ports[p].local, prio);
    sb_printf(b, "],\"storms\":[");
    k = 0;
    for (uint32_t p = 0; p < g->n_ports; p++)
        for (int prio = 0; n->ports[p].wd_storm && prio < NPRIO; prio++)
            if (n->ports[p].wd_storm & (1u << prio))
                sb_printf(b, "%s[%u,%u,%d]", k++ ? "," : "", n->ports[p].node, n->ports[p].local, prio);
    sb_printf(b, "],\"deadlock\":");
    if (n->dl.detected) {
        sb_printf(b, "{\"at_ns\":%lld,\"prio\":%d,\"cycle\":[", (long long)(n->dl.at / 1000), n->dl.prio);
        for (uint32_t i = 0; i < n->dl.cycle_len; i++)
            sb_printf(b, "%s[%u,%u]", i ? "," : "", n->ports[n->dl.cycle[i]].node, n->ports[n->dl.cycle[i]].local);
        sb_printf(b, "]}");
    } else {
        sb_printf(b, "null");
    }
    /* The flows: those the monitor follows (rates.csv's), the first LIVE_FLOWS_MAX of them. */
    struct sbuf defs = {0};
    sb_printf(b, ",\"flows\":[");
    k = 0;
    for (uint32_t i = 0; lv->mon && i < lv->mon->n_cand && k < LIVE_FLOWS_MAX; i++) {
        const struct flow *f = net_flow(n, lv->mon->cand[i]);
        if (!f->started || f->sender_done)
            continue;
        if (f->idx >= lv->cap_page) {
            uint32_t cap = lv->cap_page ? lv->cap_page : 64;
            while (cap <= f->idx)
                cap *= 2;
            lv->page_of = mem_xrealloc(lv->page_of, sizeof *lv->page_of * cap, "the live view's flows");
            memset(lv->page_of + lv->cap_page, 0xff, sizeof *lv->page_of * (cap - lv->cap_page));
            lv->cap_page = cap;
        }
        /* A flow's index on the page is the order in which it was first shown, for the whole run. */
        if (lv->page_of[f->idx] == UINT32_MAX)
            lv->page_of[f->idx] = lv->n_page++;
        uint32_t at = lv->page_of[f->idx];
        /* Every frame defines the flows it names, so a page that connects late knows them all. */
        sb_printf(&defs, "%s{\"index\":%u,\"name\":", defs.len ? "," : "", at);
        json_str(&defs, f->name);
        sb_printf(&defs, ",\"src\":%u,\"dst\":%u}", n->hosts[f->src].node, n->hosts[f->dst].node);
        struct cc_sample cs;
        cc_sample(f, now, &cs);
        char a[32] = "null";
        if (cs.valid & (1u << CC_SAMPLE_ALPHA) && isfinite(cs.alpha))
            snprintf(a, sizeof a, "%.6g", cs.alpha);
        sb_printf(b, "%s[%u,%.6g,%.6g,%s]", k++ ? "," : "", at, cs.rate_bps / 1e9, cs.target_bps / 1e9, a);
    }
    sb_printf(b, "]");
    if (defs.len)
        sb_printf(b, ",\"new_flows\":[%s]", defs.p);
    free(defs.p);
    sb_printf(b, "}");
    lv->t_prev = now;
    lv->wall_frame = wall_now();
    httpd_broadcast(lv->srv, "frame", b->p, b->len);
}

/* Takes the viewer's latest commands; true when one came since the last call. */
static bool take_commands(struct live *lv, const struct run *r)
{
    pthread_mutex_lock(&lv->mu);
    bool changed = lv->changed;
    lv->changed = false;
    if (lv->step_ns) {
        lv->step_to = r->sim.now + lv->step_ns * 1000;
        lv->step_ns = 0;
        lv->paused = false;
    }
    int64_t pace = lv->pace;
    bool paused = lv->paused;
    pthread_mutex_unlock(&lv->mu);
    if (pace != lv->pace_now) {
        lv->pace_now = pace;
        lv->pace_wall0 = wall_now();
        lv->pace_sim0 = r->sim.now;
        lv->slice = pace ? (sim_time_t)pace * 1000 / PACE_SLICES_PER_S : SLICE_MAX_PS / 1000;
        if (lv->slice < SLICE_MIN_PS)
            lv->slice = SLICE_MIN_PS;
    }
    lv->state = paused ? (lv->waiting ? "waiting" : "paused") : "running";
    return changed;
}

/* Waits while the viewer holds the run, sending a frame for each command; a signal ends the wait (the run
 * then stops as an interrupted one). */
static void wait_paused(struct live *lv, const struct run *r)
{
    for (;;) {
        pthread_mutex_lock(&lv->mu);
        bool paused = lv->paused && !lv->step_ns;
        if (paused && !lv->changed) {
            struct timespec ts = deadline_in(0.1);
            pthread_cond_timedwait(&lv->cv, &lv->mu, &ts);
        }
        pthread_mutex_unlock(&lv->mu);
        if (sig_received())
            return;
        const char *was = lv->state;
        if (take_commands(lv, r) || was != lv->state)
            send_frame(lv);
        pthread_mutex_lock(&lv->mu);
        paused = lv->paused && !lv->step_ns;
        pthread_mutex_unlock(&lv->mu);
        if (!paused)
            return;
    }
}

static void obs_start(void *ctx, const struct run *r)
{
    struct live *lv = ctx;
    lv->wall_slice = wall_now();
    if (lv->hold & LIVE_HOLD_START) {
        pthread_mutex_lock(&lv->mu);
        lv->paused = true;
        pthread_mutex_unlock(&lv->mu);
        lv->waiting = true;
        take_commands(lv, r);
        send_frame(lv);
        wait_paused(lv, r);
        lv->waiting = false;
        take_commands(lv, r);
    }
    lv->wall_slice = wall_now();
    send_frame(lv);
}

static sim_time_t obs_until(void *ctx, const struct run *r)
{
    struct live *lv = ctx;
    sim_time_t t = r->sim.now + lv->slice;
    if (lv->step_to >= 0 && lv->step_to < t)
        t = lv->step_to > r->sim.now ? lv->step_to : r->sim.now + 1;
    return t;
}

static void obs_slice(void *ctx, const struct run *r, uint64_t events, bool mine)
{
    struct live *lv = ctx;
    double w = wall_now();
    if (!lv->pace_now) {
        /* As fast as it goes: slices of about SLICE_WALL_S, so that commands and frames are never late. */
        double took = w - lv->wall_slice;
        if (took < SLICE_WALL_S / 2 && lv->slice < SLICE_MAX_PS)
            lv->slice *= 2;
        else if (took > SLICE_WALL_S * 2 && lv->slice > SLICE_MIN_PS)
            lv->slice /= 2;
    }
    bool changed = take_commands(lv, r);
    if (lv->step_to >= 0 && r->sim.now >= lv->step_to) {
        lv->step_to = -1;
        pthread_mutex_lock(&lv->mu);
        lv->paused = !lv->step_ns;
        pthread_mutex_unlock(&lv->mu);
        changed = true;
        lv->state = "paused";
    }
    if (changed || w - lv->wall_frame >= 1.0 / LIVE_FRAME_HZ)
        send_frame(lv);
    if (strcmp(lv->state, "paused") == 0) {
        wait_paused(lv, r);
        take_commands(lv, r);
        send_frame(lv);
    } else if (lv->pace_now) {
        /* At a set pace: wait until the wall clock catches up with the simulated time, waking for commands. */
        double due = lv->pace_wall0 + (double)(r->sim.now - lv->pace_sim0) / 1000.0 / (double)lv->pace_now;
        pthread_mutex_lock(&lv->mu);
        while (!lv->changed && wall_now() < due && !sig_received()) {
            double left = due - wall_now();
            struct timespec ts = deadline_in(left > 0.1 ? 0.1 : left);
            pthread_cond_timedwait(&lv->cv, &lv->mu, &ts);
        }
        pthread_mutex_unlock(&lv->mu);
    }
    lv->wall_slice = wall_now();
}

static void obs_end(void *ctx, const struct run *r)
{
    struct live *lv = ctx;
    lv->state = "ended";
    send_frame(lv);
}

static const struct run_observer_ops live_ops = {
    .name = "live view",
    .on_start = obs_start,
    .until = obs_until,
    .on_slice = obs_slice,
    .on_end = obs_end,
};

static struct live *live_new(void)
{
    struct live *lv = mem_xcalloc(1, sizeof *lv, "the live view");
    pthread_mutex_init(&lv->mu, NULL);
    pthread_cond_init(&lv->cv, NULL);
    lv->step_to = -1;
    lv->slice = SLICE_MAX_PS / 1000;
    lv->state = "running";
    return lv;
}

static void live_free(struct live *lv)
{
    pthread_mutex_destroy(&lv->mu);
    pthread_cond_destroy(&lv->cv);
    free(lv->topo);
    free(lv->tx_prev);
    free(lv->page_of);
    free(lv->fb.p);
    free(lv);
}

static struct httpd *listen_on(struct live *lv, const char *listen, char *err, size_t errlen)
{
    char addr[64], e[200];
    int port;
    if (!httpd_parse_addr(listen, addr, sizeof addr, &port, e, sizeof e)) {
        snprintf(err, errlen, "--live: %s", e);
        return NULL;
    }
    struct httpd *h = httpd_start(addr, port, serve, lv, e, sizeof e);
    if (!h)
        snprintf(err, errlen, "--live: %s", e);
    return h;
}

/* live_start but for attaching the observer. */
static struct live *prepare(struct run *r, const struct monitor *mon, const char *listen, int hold, char *err,
                            size_t errlen)
{
    struct live *lv = live_new();
    lv->r = r;
    lv->mon = mon;
    lv->hold = hold;
    lv->topo = topology_json(r->scn, &r->g, false, r->scn->stop_ps / 1000, NULL, &lv->topo_len);
    lv->tx_prev = mem_xcalloc(r->g.n_ports ? r->g.n_ports : 1, sizeof *lv->tx_prev, "the live view");
    lv->srv = listen_on(lv, listen, err, errlen);
    if (!lv->srv) {
        live_free(lv);
        return NULL;
    }
    char url[128];
    httpd_url(lv->srv, url, sizeof url);
    fprintf(stderr, "live view: %s%s\n", url,
            hold & LIVE_HOLD_START ? " (the run waits for Resume or Step there)" : "");
    return lv;
}

struct live *live_start(struct run *r, const struct monitor *mon, const char *listen, int hold, char *err,
                        size_t errlen)
{
    struct live *lv = prepare(r, mon, listen, hold, err, errlen);
    if (lv)
        run_observe(r, &live_ops, lv);
    return lv;
}

void live_hold_end(struct live *lv)
{
    if (!lv || !(lv->hold & LIVE_HOLD_END) || sig_received())
        return;
    char url[128];
    httpd_url(lv->srv, url, sizeof url);
    fprintf(stderr, "live view: the run is over; its final state stays at %s until Ctrl-C\n", url);
    until_signal();
}

void live_stop(struct live *lv)
{
    if (!lv)
        return;
    run_unobserve(lv->r, lv);
    httpd_stop(lv->srv);
    live_free(lv);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/*
 * A replay's flows: those rates.csv follows, with their ends from flows.csv, as topology.json's "flows" members
 * (caller frees; "" when the files are missing).  A run's summary of flows can be large; rates.csv names few.
 */
static char *replay_flows(const char *dir, const struct graph *g)
{
    char path[4200], e[256], *rates, *flows;
    size_t len;
    struct sbuf b = {0};
    sb_printf(&b, "%s", "");
    snprintf(path, sizeof path, "%s/rates.csv", dir);
    if (read_file(path, &rates, &len, e, sizeof e))
        return b.p;
    char **names = NULL;
    size_t n = 0, cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(rates, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c2 || line == rates)
            continue; /* the header, or a short line */
        *c2 = 0;
        if (n && strcmp(names[n - 1], c1 + 1) == 0)
            continue;
        if (n == cap)
            names = mem_xrealloc(names, sizeof *names * (cap = cap ? cap * 2 : 64), "the replay's flows");
        names[n++] = c1 + 1;
    }
    if (n) /* qsort wants a valid array even for none: a run that followed no flow has no names */
        qsort(names, n, sizeof *names, cmp_str);
    snprintf(path, sizeof path, "%s/flows.csv", dir);
    if (n && read_file(path, &flows, &len, e, sizeof e) == 0) {
        int k = 0;
        save = NULL;
        for (char *line = strtok_r(flows, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *f[3];
            f[0] = line;
            f[1] = strchr(line, ',');
            f[2] = f[1] ? strchr(f[1] + 1, ',') : NULL;
            char *end = f[2] ? strchr(f[2] + 1, ',') : NULL;
            if (!end)
                continue;
            *f[1]++ = *f[2]++ = *end = 0;
            char *key = f[0];
            if (!bsearch(&key, names, n, sizeof *names, cmp_str))
                continue;
            int32_t src = graph_find(g, f[1]), dst = graph_find(g, f[2]);
            if (src < 0 || dst < 0)
                continue;
            sb_printf(&b, "%s{\"name\":", k++ ? "," : "");
            json_str(&b, key);
            sb_printf(&b, ",\"src\":%d,\"dst\":%d}", src, dst);
        }
        free(flows);
    }
    free(names);
    free(rates);
    return b.p;
}

int live_view(const char *dir, const char *listen, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    struct scenario scn;
    char e[SCN_ERR_MAX];
    int rc = scn_load(path, NULL, 0, &scn, e, sizeof e);
    if (rc) {
        if (rc == SCN_EIO && errno == ENOENT)
            snprintf(err, errlen, "%s: no scenario.json: not the output directory of a run", dir);
        else
            snprintf(err, errlen, "%s", e);
        return rc == SCN_EIO && errno != ENOENT ? 3 : 2;
    }
    struct graph g;
    graph_init(&g);
    rc = topo_build(&scn, &g, e, sizeof e);
    if (rc) {
        snprintf(err, errlen, "%s", e);
        scn_free(&scn);
        return 2;
    }
    /* The end of the data: the run's own end when its summary says, else its stop time. */
    int64_t stop_ns = scn.stop_ps / 1000;
    char *sum;
    size_t sl;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (read_file(path, &sum, &sl, e, sizeof e) == 0) {
        cJSON *j = cJSON_Parse(sum);
        const cJSON *end = cJSON_GetObjectItemCaseSensitive(j, "sim_end_ns");
        if (cJSON_IsNumber(end))
            stop_ns = (int64_t)end->valuedouble;
        cJSON_Delete(j);
        free(sum);
    }
    struct live *lv = live_new();
    lv->replay = true;
    snprintf(lv->dir, sizeof lv->dir, "%s", dir);
    char *flows = replay_flows(dir, &g);
    lv->topo = topology_json(&scn, &g, true, stop_ns, flows, &lv->topo_len);
    free(flows);
    graph_free(&g);
    scn_free(&scn);
    if (sig_install())
        fprintf(stderr, "rocesim: cannot install signal handlers: %s\n", strerror(errno));
    lv->srv = listen_on(lv, listen, err, errlen);
    if (!lv->srv) {
        live_free(lv);
        return 2;
    }
    char url[128];
    httpd_url(lv->srv, url, sizeof url);
    fprintf(stderr, "replay of %s: %s (Ctrl-C to stop)\n", dir, url);
    until_signal();
    httpd_stop(lv->srv);
    live_free(lv);
    return 0;
}

/* ---- The observer module ---- */

/* On with --live (never over MPI ranks: the command line refuses that); it shows the flows the monitor follows,
 * opened before it (observer_kind's numbering). */
static int live_open(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                     char *err, size_t errlen)
{
    (void)watch;
    if (!o->live)
        return 0;
    struct live *lv = prepare(r, run_observer_ctx(r, "monitor"), o->live, o->live_hold, err, errlen);
    if (!lv)
        return SCN_EUSAGE;
    *ctx = lv;
    return 0;
}

/* A whole run stays on view until Ctrl-C with --live-hold end; then the server stops. */
static void live_close(void *ctx, bool whole)
{
    if (whole)
        live_hold_end(ctx);
    live_stop(ctx);
}

static const struct observer_ops live_observer = {.watch = &live_ops, .open = live_open, .close = live_close};

MODULE_REGISTER(observer_kind, "live", &live_observer);
