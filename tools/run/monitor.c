/* monitor — queues.csv, rates.csv, pfc.csv and watchdog.csv, a run observer (see monitor.h). */
#include "tools/run/monitor.h"
#include "tools/run/observer.h"

#include "models/cc.h"
#include "models/credit.h"
#include "models/fabric.h"
#include "models/nic.h"
#include "models/ranks.h"
#include "models/traffic.h"
#include "sim/file.h"
#include "sim/mem.h"
#include "sim/module.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Splits a name into its stem and a trailing number that prints back the same ("s01" has none); -1: none. */
static long name_number(const char *name, size_t *stem)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    *stem = k;
    if (k == n || n - k > 9 || (name[k] == '0' && n - k > 1))
        return -1;
    return atol(name + k);
}

/*
 * The switch names, for an error message: runs of consecutive numbers as
 * ranges ("leaf0..leaf3, spine0..spine1"), cut to the first few runs and the
 * count on a large fabric.
 */
static void switch_names(const struct run *r, char *buf, size_t len)
{
    const struct graph *g = &r->g;
    size_t used = 0;
    int runs = 0;
    buf[0] = '\0';
    for (uint32_t s = 0; s < g->n_switches;) {
        const char *first = g->nodes[r->net.sws[s].node].name, *last = first;
        size_t stem;
        long num = name_number(first, &stem);
        uint32_t e = s + 1;
        for (; num >= 0 && e < g->n_switches; e++) {
            const char *nx = g->nodes[r->net.sws[e].node].name;
            size_t st;
            if (name_number(nx, &st) != num + (long)(e - s) || st != stem || strncmp(nx, first, stem) != 0)
                break;
            last = nx;
        }
        if (runs == 6 || used + strlen(first) + strlen(last) + 8 > len || used > 160) {
            snprintf(buf + used, len - used, ", ... (%u switches)", g->n_switches);
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", runs ? ", " : "", first, last != first ? ".." : "",
                                 last != first ? last : "");
        runs++;
        s = e;
    }
}

int monitor_resolve_queues(const struct run *r, struct port ***out, uint32_t *n, char *err, size_t errlen)
{
    const struct monitor_settings *mo = monitor_settings_of(r->scn);
    const struct graph *g = &r->g;
    const struct net *net = &r->net;
    *out = NULL;
    *n = 0;
    if (mo->n_queues == 0)
        return 0;
    uint8_t *take = mem_xcalloc(g->n_ports ? g->n_ports : 1, 1, "selecting the monitored queues");
    for (int i = 0; i < mo->n_queues; i++) {
        char node_pat[2 * SCN_NAME_MAX];
        snprintf(node_pat, sizeof node_pat, "%s", mo->queues[i]);
        char *colon = strchr(node_pat, ':');
        if (!colon)
            abort(); /* the loader checked the shape */
        *colon = '\0';
        const char *port_pat = colon + 1;
        bool any_port = strcmp(port_pat, "*") == 0;
        long want = any_port ? -1 : atol(port_pat);
        uint32_t matched = 0;
        bool node_found = false;
        for (uint32_t s = 0; s < g->n_switches; s++) {
            const struct sw *w = &net->sws[s];
            if (!scn_glob_match(node_pat, g->nodes[w->node].name))
                continue;
            node_found = true;
            for (uint32_t p = 0; p < w->n_ports; p++)
                if (any_port || (long)p == want) {
                    take[port_id(&w->ports[p])] = 1;
                    matched++;
                }
        }
        if (!matched) {
            free(take);
            if (node_found)
                snprintf(err, errlen, "%s: monitor.queues.%d: expected a port that exists, got \"%s\" (no switch "
                                      "matching \"%s\" has port %ld; ports are numbered from 0)",
                         r->scn->file, i, mo->queues[i], node_pat, want);
            else {
                char names[256];
                switch_names(r, names, sizeof names);
                snprintf(err, errlen, "%s: monitor.queues.%d: expected a pattern matching a switch, got \"%s\" "
                                      "(the switches are %s; queues are sampled at switch egress ports, \"*:*\" "
                                      "takes them all)", r->scn->file, i, mo->queues[i], names);
            }
            return SCN_EUSAGE;
        }
    }
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < g->n_ports; i++)
        cnt += take[i];
    struct port **q = mem_xmalloc(sizeof *q * cnt, "selecting the monitored queues");
    cnt = 0;
    for (uint32_t i = 0; i < g->n_ports; i++)
        if (take[i])
            q[cnt++] = &r->net.ports[i];
    free(take);
    *out = q;
    *n = cnt;
    return 0;
}

/* See monitor.h. */
uint8_t monitor_traffic_prios(const struct scenario *scn)
{
    uint8_t m = 0;
    for (int i = 0; i < scn->n_traffic; i++)
        m |= (uint8_t)(1u << fabric_traffic_prio(scn, &scn->traffic[i]));
    int cc = cc_params_of(&scn->host)->cc;
    /* InfiniBand sends its notifications on the flow's VL */
    if (cc >= 0 && (cc_registry[cc]->flags & CC_F_CNP) && !fabric_of(scn)->service_levels)
        m |= (uint8_t)(1u << nic_params_of(&scn->host)->cnp_priority);
    return m;
}

/*
 * The flows run r is expected to create: those created or reserved up front (every collective's), and rate x duration
 * for each host of a Poisson load (its mean gap is mean size x 8 / (load x link rate), models/traffic.h).
 */
static uint64_t expected_flows(const struct run *r)
{
    const struct scenario *scn = r->scn;
    const struct net *n = &r->net;
    double e = n->n_flows; /* a collective's flows included: reserved up front (net_reserve_flows) */
    double *rate = NULL;
    for (int ti = 0; ti < scn->n_traffic && r->traffic.state; ti++) {
        if (!rate) {
            rate = mem_xcalloc(n->g->n_hosts + 1, sizeof *rate, "sampling the flows to monitor");
            for (uint32_t h = 0; h < n->g->n_hosts; h++)
                rate[h] = (double)n->hosts[h].rate_bps;
        }
        struct traffic_count tc;
        traffic_ops_of(&scn->traffic[ti])->count(scn, ti, rate, &r->traffic, &tc);
        e += tc.generated; /* those made at set-up are in n_flows */
    }
    free(rate);
    return e < 1 ? 1 : e > 1e18 ? (uint64_t)1e18 : (uint64_t)e;
}

/* Whether flow i (in creation order) is one of the evenly spread sample of monitor.flows "auto". */
static bool flow_in_sample(struct monitor *m, uint32_t i)
{
    if (m->flows_kept >= MON_AUTO_FLOWS)
        return false;
    uint64_t e = m->flows_expected;
    if (e <= MON_AUTO_FLOWS || i == 0)
        return true;
    return (uint64_t)i * MON_AUTO_FLOWS / e != ((uint64_t)i - 1) * MON_AUTO_FLOWS / e;
}

/* Whether the flow named `name` is one monitor.flows selects (monitor.flows "auto" aside). */
static bool flow_selected(const struct scenario *scn, const struct monitor_settings *mo, const char *name)
{
    if (mo->flows != MON_FLOWS_LIST)
        return mo->flows == MON_FLOWS_ALL;
    for (int i = 0; i < mo->n_flows; i++) {
        const char *id = mo->flow_ids[i];
        if (strcmp(name, id) == 0)
            return true;
        /* an entry id selects the flows its generator creates, not a single flow's (which has no "id.N") */
        if (!scn_flow_of_entry(name, strlen(name), id))
            continue;
        for (int t = 0; t < scn->n_traffic; t++)
            if (strcmp(scn->traffic[t].id, id) == 0 && scn_traffic_ops(&scn->traffic[t])->numbered(&scn->traffic[t]))
                return true;
    }
    return false;
}

/* The first line of each series, indexed as run_series_names. */
static const char *const series_header[RUN_N_SERIES] = {
    [RUN_QUEUES] = "time_ns,node,port,priority,bytes\n", [RUN_RATES] = "time_ns,flow,rate_gbps,target_gbps,alpha\n",
    [RUN_PFC] = "time_ns,node,port,priority,event\n", [RUN_WATCHDOG] = "time_ns,node,port,priority,event\n",
    [RUN_CREDITS] = "time_ns,node,port,vl,event\n"};

/*
 * Notes that series s stops before time t with the rows it has (monitor.h, "Bounds"), in the run's notes, which
 * summary.json reads before the monitor closes.  Returns false: the row is not written.
 */
static bool cut_series(struct monitor *m, enum run_series s, sim_time_t t, uint64_t rows, enum run_cut_by by)
{
    struct run_series_cut *c = &m->r->mon_notes.cut[s];
    uint64_t bound = by == RUN_CUT_SAMPLES ? m->max_samples : by == RUN_CUT_BYTES ? m->max_bytes : m->max_rows;
    if (!c->cut)
        *c = (struct run_series_cut){.cut = true, .by = by, .rows = rows, .bound = bound, .from = t};
    return false;
}

/* Whether an event-driven series (pfc.csv, watchdog.csv) with `rows` rows may take one more row at t. */
static bool row_fits(struct monitor *m, enum run_series s, sim_time_t t, uint64_t rows)
{
    if (m->r->mon_notes.cut[s].cut)
        return false;
    return rows < m->max_rows || cut_series(m, s, t, rows, RUN_CUT_ROWS);
}

/*
 * Writes one row to series mf, or only measures it in a rank of a run over MPI that writes nothing (every rank
 * counts the same bytes, so that all cut a series at the same sample).  Returns its length.
 */
static uint64_t put_row(struct mon_file *mf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static uint64_t put_row(struct mon_file *mf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = mf->f ? vfprintf(mf->f, fmt, ap) : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    return k > 0 ? (uint64_t)k : 0;
}

/*
 * Whether the rows just written to series s (len bytes; it had `rows` rows) fit its bound of bytes.  When they do
 * not, they are taken back, the file cut to the bytes it had, and the series is cut at t: a sample is written
 * whole or not at all.  Written first and measured as it goes, a sample costs no buffer of its own.
 */
static bool bytes_fit(struct monitor *m, enum run_series s, struct mon_file *mf, sim_time_t t, uint64_t rows,
                      uint64_t len)
{
    if (m->bytes[s] + len <= m->max_bytes) {
        m->bytes[s] += len;
        return true;
    }
    off_t at = (off_t)m->bytes[s];
    if (mf->f && (fflush(mf->f) || ftruncate(fileno(mf->f), at) || fseeko(mf->f, at, SEEK_SET)))
        mf->err = errno ? errno : EIO;
    return cut_series(m, s, t, rows, RUN_CUT_BYTES);
}

/*
 * Whether no series sampled over time can take a row any more: nothing watched, or cut by a bound.  Every rank of a
 * run over MPI reaches the same answer at the same sample (the counts it rests on are the summed samples').
 */
static bool nothing_to_sample(const struct monitor *m)
{
    const struct run_series_cut *c = m->r->mon_notes.cut;
    return (m->n_queues == 0 || m->prios == 0 || c[RUN_QUEUES].cut) &&
           (m->set->flows == MON_FLOWS_NONE || c[RUN_RATES].cut);
}

/* Whether the rows of port (node, port) go into a series that keeps some ports ("auto"): a table lookup by port id,
 * nothing more, per row; the first MON_AUTO_PFC_PORTS ports to have one are kept. */
static bool port_kept(struct mon_ports *mp, const struct run *r, uint32_t node, uint32_t port)
{
    if (!mp->st)
        return true;
    uint8_t *st = &mp->st[r->g.nodes[node].first_port + port];
    if (!*st) {
        *st = mp->kept < MON_AUTO_PFC_PORTS ? 1 : 2;
        mp->kept += *st == 1;
        mp->seen++;
    }
    return *st == 1;
}

/* One pfc.csv row per PAUSE or RESUME frame sent (of the ports monitor.pfc keeps). */
static void on_pfc(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    struct monitor *m = ctx;
    const struct run *r = m->r;
    if (!m->pfc.f)
        return; /* another rank writes pfc.csv */
    if (!port_kept(&m->pfc_ports, r, node, port))
        return;
    uint64_t rows = m->pause_rows + m->resume_rows;
    if (!row_fits(m, RUN_PFC, t, rows))
        return;
    char ts[32];
    uint64_t len = put_row(&m->pfc, "%s,%s,%u,%d,%s\n", units_fmt_ns(t, ts, sizeof ts), r->g.nodes[node].name, port,
                           prio, pause ? "pause" : "resume");
    if (!bytes_fit(m, RUN_PFC, &m->pfc, t, rows, len))
        return;
    if (pause)
        m->pause_rows++;
    else
        m->resume_rows++;
}

/* One credits.csv row per (port, VL) that runs out of credit or gets it back (of the ports monitor.credits keeps). */
static void on_credit(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int vl, bool stalled)
{
    struct monitor *m = ctx;
    const struct run *r = m->r;
    if (!m->cr.f || !port_kept(&m->credit_ports, r, node, port))
        return; /* another rank writes credits.csv, or a port left out */
    uint64_t rows = m->stall_rows + m->unstall_rows;
    if (!row_fits(m, RUN_CREDITS, t, rows))
        return;
    char ts[32];
    uint64_t len = put_row(&m->cr, "%s,%s,%u,%d,%s\n", units_fmt_ns(t, ts, sizeof ts), r->g.nodes[node].name, port, vl,
                           stalled ? "stall" : "resume");
    if (!bytes_fit(m, RUN_CREDITS, &m->cr, t, rows, len))
        return;
    if (stalled)
        m->stall_rows++;
    else
        m->unstall_rows++;
}

/* One watchdog.csv row per storm or restoration. */
static void on_watchdog(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm)
{
    struct monitor *m = ctx;
    char ts[32];
    if (!m->wd.f || !row_fits(m, RUN_WATCHDOG, t, m->wd_rows))
        return;
    uint64_t len = put_row(&m->wd, "%s,%s,%u,%d,%s\n", units_fmt_ns(t, ts, sizeof ts), m->r->g.nodes[node].name,
                           port, prio, storm ? "storm" : "restore");
    if (bytes_fit(m, RUN_WATCHDOG, &m->wd, t, m->wd_rows, len))
        m->wd_rows++;
}

/* Opens one series under its temporary name with its header.  Returns 0 or -1 (errno set). */
static int open_series(struct mon_file *mf, const char *dir, const char *name, const char *header)
{
    snprintf(mf->path, sizeof mf->path, "%s/%s", dir, name);
    snprintf(mf->tmp, sizeof mf->tmp, "%s.tmp.%ld", mf->path, (long)getpid());
    mf->f = fopen(mf->tmp, "w");
    if (!mf->f)
        return -1;
    /* Large buffer: rows are small and many; no flush until the end. */
    setvbuf(mf->f, NULL, _IOFBF, 1 << 20);
    fputs(header, mf->f);
    return 0;
}

/* Closes one series; renames it into place when keep.  Returns 0 or -1 (errno set, temp removed). */
static int close_series(struct mon_file *mf, bool keep)
{
    if (!mf->f)
        return 0;
    int bad = ferror(mf->f) || mf->err;
    int saved = mf->err ? mf->err : errno;
    if (fclose(mf->f))
        bad = 1, saved = errno;
    mf->f = NULL;
    if (bad || !keep) {
        unlink(mf->tmp);
        errno = saved ? saved : EIO;
        return keep ? -1 : 0;
    }
    if (rename(mf->tmp, mf->path)) {
        saved = errno;
        unlink(mf->tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

static sim_time_t mon_until(void *ctx, const struct run *r);
static void mon_slice(void *ctx, const struct run *r, uint64_t events, bool mine);

/* Whether the run writes series s (watchdog.csv only with a watchdog, pfc.csv only under PFC and credits.csv only
 * under credits, each unless its monitor setting says "none"): a file's absence says there was nothing to record. */
static bool series_on(const struct monitor *m, const struct run *r, enum run_series s)
{
    bool credits = credit_runs(&r->net);
    switch (s) {
    case RUN_WATCHDOG: return r->net.wd != NULL;
    case RUN_PFC: return !credits && m->set->pfc != MON_PFC_NONE;
    case RUN_CREDITS: return credits && m->set->credits != MON_PFC_NONE;
    default: return true;
    }
}

/* Its callbacks: it listens only to the events it writes, since a frame nobody records costs the PFC path nothing. */
static void set_ops(struct monitor *m, const struct run *r)
{
    m->ops = (struct run_observer_ops){.name = "monitor", .until = mon_until, .on_slice = mon_slice};
    if (series_on(m, r, RUN_PFC))
        m->ops.on_pfc = on_pfc;
    if (series_on(m, r, RUN_WATCHDOG))
        m->ops.on_watchdog = on_watchdog;
    if (series_on(m, r, RUN_CREDITS))
        m->ops.on_credit = on_credit;
}

/* monitor_open but for attaching m, which the caller does (the observer module's open hook: run_observers_open). */
static int prepare(struct monitor *m, struct run *r, const char *dir, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->r = r;
    m->set = monitor_settings_of(r->scn);
    int rc = monitor_resolve_queues(r, &m->queues, &m->n_queues, err, errlen);
    if (rc)
        return rc;
    m->interval = m->set->interval_ps;
    m->prios = monitor_traffic_prios(r->scn);
    memset(r->mon_notes.cut, 0, sizeof r->mon_notes.cut);
    m->max_rows = MON_MAX_ROWS;
    m->max_samples = MON_MAX_SAMPLES;
    m->max_bytes = FILE_MAX_BYTES;
    for (int s = 0; s < RUN_N_SERIES; s++)
        m->bytes[s] = strlen(series_header[s]); /* in every rank: the bytes decide where a series stops */
    /* which flows rates.csv follows: the same choice in every rank of a run over MPI */
    if (m->set->flows == MON_FLOWS_AUTO)
        m->flows_expected = expected_flows(r);
    if (!dir) {
        /* a rank of a run over MPI other than rank 0: it samples what its partitions hold and writes nothing, but
         * listens as rank 0 does, so that its partitions note the network events that rank 0 writes */
        set_ops(m, r);
        return 0;
    }
    /* The selection is valid: from here the directory is this run's (nothing of an earlier run stays). */
    if ((rc = run_claim_dir(dir, err, errlen))) {
        free(m->queues);
        return rc;
    }
    struct mon_file *const series[RUN_N_SERIES] = {[RUN_QUEUES] = &m->q, [RUN_RATES] = &m->rt, [RUN_PFC] = &m->pfc,
                                                   [RUN_WATCHDOG] = &m->wd, [RUN_CREDITS] = &m->cr};
    const struct monitor_settings *mo = m->set;
    for (int i = 0; i < RUN_N_SERIES; i++) {
        if (!series_on(m, r, (enum run_series)i))
            continue;
        if (open_series(series[i], dir, run_series_names[i], series_header[i])) {
            snprintf(err, errlen, "%s: cannot create: %s", series[i]->tmp, strerror(errno));
            monitor_close(m, false, NULL, 0);
            return SCN_EIO;
        }
    }
    if (mo->pfc == MON_PFC_AUTO && series_on(m, r, RUN_PFC))
        m->pfc_ports.st = mem_xcalloc(r->g.n_ports ? r->g.n_ports : 1, 1, "selecting the PFC ports to record");
    if (mo->credits == MON_PFC_AUTO && series_on(m, r, RUN_CREDITS))
        m->credit_ports.st = mem_xcalloc(r->g.n_ports ? r->g.n_ports : 1, 1, "selecting the stalled ports to record");
    set_ops(m, r);
    return 0;
}

int monitor_open(struct monitor *m, struct run *r, const char *dir, char *err, size_t errlen)
{
    int rc = prepare(m, r, dir, err, errlen);
    if (rc)
        return rc;
    run_observe(r, &m->ops, m);
    m->attached = true;
    return 0;
}

int monitor_close(struct monitor *m, bool keep, char *err, size_t errlen)
{
    struct mon_file *all[] = {&m->q, &m->rt, &m->pfc, &m->wd, &m->cr};
    const size_t n_all = sizeof all / sizeof *all;
    int rc = 0;
    for (size_t i = 0; i < n_all; i++)
        if (close_series(all[i], keep && !rc)) {
            if (err)
                snprintf(err, errlen, "%s: cannot write: %s", all[i]->path, strerror(errno));
            rc = SCN_EIO;
        }
    if (rc) /* all or nothing: a reader never sees some series without the others */
        for (size_t i = 0; i < n_all; i++)
            if (all[i]->path[0])
                unlink(all[i]->path);
    if (m->r) {
        struct run *r = m->r;
        uint32_t n_flows = r->net.n_flows;
        r->mon_notes.flows_kept = m->flows_kept;
        r->mon_notes.flows_expected = m->flows_expected > n_flows ? m->flows_expected : n_flows;
        /* flows created after the last sample have no row anyway: only those looked at count */
        r->mon_notes.flows_sampled = m->set->flows == MON_FLOWS_AUTO && m->flows_checked > m->flows_kept;
        r->mon_notes.pfc_ports_kept = m->pfc_ports.kept;
        r->mon_notes.pfc_ports_seen = m->pfc_ports.seen;
        r->mon_notes.pfc_sampled = m->pfc_ports.st && m->pfc_ports.seen > m->pfc_ports.kept;
        r->mon_notes.credit_ports_kept = m->credit_ports.kept;
        r->mon_notes.credit_ports_seen = m->credit_ports.seen;
        r->mon_notes.credit_sampled = m->credit_ports.st && m->credit_ports.seen > m->credit_ports.kept;
        if (m->attached)
            run_unobserve(r, m);
        m->attached = false;
    }
    free(m->queues);
    free(m->cand);
    free(m->waiting);
    m->waiting = NULL;
    free(m->pfc_ports.st);
    free(m->credit_ports.st);
    free(m->share);
    m->share = NULL;
    m->queues = NULL;
    m->cand = NULL;
    m->pfc_ports.st = m->credit_ports.st = NULL;
    m->r = NULL; /* closed: a second close changes nothing */
    return rc;
}

/* Checks flow i (made) against the selection, and takes it into the candidate list (kept in flow order). */
static void consider_flow(struct monitor *m, const struct run *r, uint32_t i)
{
    if (net_flow(&r->net, i)->step)
        return; /* its collective's (monitor.step_flows false), which has no rate of its own */
    m->flows_checked++;
    if (m->set->flows == MON_FLOWS_AUTO ? !flow_in_sample(m, i)
                                        : !flow_selected(r->scn, m->set, net_flow(&r->net, i)->name))
        return;
    m->flows_kept++;
    if (m->n_cand == m->cap_cand) {
        m->cap_cand = m->cap_cand ? m->cap_cand * 2 : 64;
        m->cand = mem_xrealloc(m->cand, sizeof *m->cand * m->cap_cand, "selecting the monitored flows");
    }
    uint32_t at = m->n_cand++;
    for (; at > 0 && m->cand[at - 1] > i; at--)
        m->cand[at] = m->cand[at - 1];
    m->cand[at] = i;
}

/*
 * Takes the flows made since the last sample into the candidate list when selected, in flow order.  The places a
 * collective reserved up front are made as its steps start (net_reserve_flows): one not made yet waits in a list
 * and is looked at again at the next sample, so that a sample costs the new flows and the waiting places, not a
 * pass over the table behind them.
 */
static void pick_new_flows(struct monitor *m, const struct run *r)
{
    const struct net *n = &r->net;
    uint32_t still = 0;
    for (uint32_t j = 0; j < m->n_waiting; j++) {
        uint32_t i = m->waiting[j];
        if (net_flow_made(net_flow(n, i)))
            consider_flow(m, r, i);
        else
            m->waiting[still++] = i;
    }
    m->n_waiting = still;
    for (; m->flows_seen < n->n_flows; m->flows_seen++) {
        uint32_t i = m->flows_seen;
        if (net_flow_made(net_flow(n, i))) {
            consider_flow(m, r, i);
            continue;
        }
        if (m->n_waiting == m->cap_waiting) {
            m->cap_waiting = m->cap_waiting ? m->cap_waiting * 2 : 64;
            m->waiting = mem_xrealloc(m->waiting, sizeof *m->waiting * m->cap_waiting, "selecting the monitored flows");
        }
        m->waiting[m->n_waiting++] = i;
    }
}

/*
 * A sample's values, gathered before its rows are written: queue bytes per (queue, priority), then per candidate
 * flow FS_N words.  Over MPI ranks (models/ranks.h) a queue is sampled by the rank that runs its switch and a
 * flow's rate by the rank that runs its sender: each rank fills what it holds, the others add zeros, and every
 * rank gets the sums.  Returns the queue words' count (the flows' start there).
 */
enum { FS_DONE, FS_STARTED, FS_VALID, FS_RATE, FS_TARGET, FS_ALPHA, FS_N };

static size_t gather_values(struct monitor *m, const struct run *r, sim_time_t t)
{
    const struct net *n = &r->net;
    size_t nq = (size_t)m->n_queues * NPRIO, nv = nq + (size_t)m->n_cand * FS_N;
    if (nv == 0)
        return 0; /* nothing to sample, in every rank alike */
    if (nv > m->cap_share) {
        m->cap_share = nv * 2;
        m->share = mem_xrealloc(m->share, sizeof *m->share * m->cap_share, "sampling the monitored queues and flows");
    }
    uint64_t *v = m->share;
    memset(v, 0, sizeof *v * nv);
    for (uint32_t i = 0; i < m->n_queues; i++)
        if (net_node_mine(n, m->queues[i]->node))
            for (int prio = 0; prio < NPRIO; prio++)
                v[(size_t)i * NPRIO + (size_t)prio] = (uint64_t)port_pp(m->queues[i], prio)->q.bytes;
    for (uint32_t i = 0; i < m->n_cand; i++) {
        const struct flow *f = net_flow(n, m->cand[i]);
        uint64_t *x = v + nq + (size_t)i * FS_N;
        if (!net_node_mine(n, n->hosts[f->src].node))
            continue;
        x[FS_DONE] = f->sender_done;
        x[FS_STARTED] = f->started;
        if (f->sender_done || !f->started)
            continue;
        struct cc_sample cs;
        cc_sample(f, t, &cs);
        x[FS_VALID] = cs.valid;
        memcpy(&x[FS_RATE], &cs.rate_bps, sizeof(double));
        memcpy(&x[FS_TARGET], &cs.target_bps, sizeof(double));
        memcpy(&x[FS_ALPHA], &cs.alpha, sizeof(double));
    }
    const struct sim_par_comm *C = net_comm(n);
    if (C)
        C->sum(C->ctx, v, nv);
    return nq;
}

/*
 * Whether a sample of `rows` rows at t fits series s, which has `kept` rows: a sample is written whole or not at all,
 * and from the first that does not fit the series is cut (monitor.h, "Bounds").
 */
static bool sample_fits(struct monitor *m, enum run_series s, sim_time_t t, uint64_t kept, uint64_t rows)
{
    if (m->r->mon_notes.cut[s].cut)
        return false;
    return rows == 0 || kept + rows <= m->max_rows || cut_series(m, s, t, kept, RUN_CUT_ROWS);
}

/* Writes the queue rows of a sample at t (queue_rows and the bytes count them in every rank; rank 0 writes them). */
static void sample_queues(struct monitor *m, const struct run *r, sim_time_t t, const char *ts)
{
    uint64_t rows = (uint64_t)m->n_queues * (uint64_t)__builtin_popcount(m->prios), len = 0;
    if (!sample_fits(m, RUN_QUEUES, t, m->queue_rows, rows))
        return;
    for (uint32_t i = 0; i < m->n_queues; i++) {
        const struct port *p = m->queues[i];
        const char *node = r->g.nodes[p->node].name;
        for (int prio = 0; prio < NPRIO; prio++)
            if (m->prios & (1u << prio))
                len += put_row(&m->q, "%s,%s,%u,%d,%lld\n", ts, node, p->local, prio,
                               (long long)(int64_t)m->share[(size_t)i * NPRIO + (size_t)prio]);
    }
    if (bytes_fit(m, RUN_QUEUES, &m->q, t, m->queue_rows, len))
        m->queue_rows += rows;
}

/* Writes the rows of the sample at m->next_sample (the engine's clock is there or just past its events). */
static void sample(struct monitor *m, const struct run *r)
{
    sim_time_t t = m->next_sample;
    if (m->samples == m->max_samples) {
        /* the bound of samples: what is watched stops here */
        if (m->n_queues && m->prios)
            cut_series(m, RUN_QUEUES, t, m->queue_rows, RUN_CUT_SAMPLES);
        if (m->set->flows != MON_FLOWS_NONE)
            cut_series(m, RUN_RATES, t, m->rate_rows, RUN_CUT_SAMPLES);
        return; /* nothing_to_sample holds from here: each watched series is cut */
    }
    char ts[32];
    units_fmt_ns(t, ts, sizeof ts);
    pick_new_flows(m, r);
    size_t nq = gather_values(m, r, t);
    sample_queues(m, r, t, ts);
    uint64_t rows = 0;
    for (uint32_t i = 0; i < m->n_cand; i++) {
        const uint64_t *x = m->share + nq + (size_t)i * FS_N;
        rows += !x[FS_DONE] && x[FS_STARTED];
    }
    bool rates = sample_fits(m, RUN_RATES, t, m->rate_rows, rows);
    uint64_t len = 0;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < m->n_cand; i++) {
        const struct flow *f = net_flow(&r->net, m->cand[i]);
        const uint64_t *x = m->share + nq + (size_t)i * FS_N;
        if (x[FS_DONE])
            continue; /* done for good: drop it from the list */
        m->cand[keep++] = m->cand[i];
        if (!x[FS_STARTED] || !rates)
            continue;
        struct cc_sample cs = {.valid = (uint8_t)x[FS_VALID]};
        memcpy(&cs.rate_bps, &x[FS_RATE], sizeof(double));
        memcpy(&cs.target_bps, &x[FS_TARGET], sizeof(double));
        memcpy(&cs.alpha, &x[FS_ALPHA], sizeof(double));
        if (cs.valid & (1u << CC_SAMPLE_ALPHA))
            len += put_row(&m->rt, "%s,%s,%.6g,%.6g,%.6g\n", ts, f->name, cs.rate_bps / 1e9, cs.target_bps / 1e9,
                           cs.alpha);
        else
            len += put_row(&m->rt, "%s,%s,%.6g,%.6g,\n", ts, f->name, cs.rate_bps / 1e9, cs.target_bps / 1e9);
    }
    m->n_cand = keep;
    if (rates && bytes_fit(m, RUN_RATES, &m->rt, t, m->rate_rows, len))
        m->rate_rows += rows;
    m->samples++;
    m->next_sample += m->interval;
}

/* See monitor.h. */
void monitor_print_cuts(const struct run *r, FILE *f)
{
    static const char *const fix[RUN_N_SERIES] = {
        "widen monitor.interval or watch fewer queues (monitor.queues)",
        "widen monitor.interval or follow fewer flows (monitor.flows)",
        "summary.json counts every frame; monitor.pfc \"auto\" keeps 32 ports' frames",
        "summary.json counts every storm and restoration",
        "summary.json counts all stalled time; monitor.credits \"auto\" keeps 32 ports' stalls"};
    for (int i = 0; i < RUN_N_SERIES; i++) {
        const struct run_series_cut *c = &r->mon_notes.cut[i];
        char at[48], iv[48];
        if (!c->cut)
            continue;
        units_fmt_time(c->from, at, sizeof at);
        if (c->by == RUN_CUT_SAMPLES)
            fprintf(f, "rocesim: note: %s stops before %s: the monitor takes at most %llu samples (one every "
                       "monitor.interval, %s); widen monitor.interval\n", run_series_names[i], at,
                    (unsigned long long)c->bound, units_fmt_time(monitor_settings_of(r->scn)->interval_ps, iv, sizeof iv));
        else if (c->by == RUN_CUT_BYTES)
            fprintf(f, "rocesim: note: %s stops before %s with %llu rows: a time series holds at most %llu bytes, "
                       "what rocesim's readers take (summary.json: series_capped); %s\n", run_series_names[i], at,
                    (unsigned long long)c->rows, (unsigned long long)c->bound, fix[i]);
        else
            fprintf(f, "rocesim: note: %s stops before %s with %llu rows: a time series holds at most %llu rows "
                       "(summary.json: series_capped); %s\n", run_series_names[i], at, (unsigned long long)c->rows,
                    (unsigned long long)c->bound, fix[i]);
    }
}

/* The next sample time: the run loop ends a slice there (none once nothing more can be sampled). */
static sim_time_t mon_until(void *ctx, const struct run *r)
{
    const struct monitor *m = ctx;
    return nothing_to_sample(m) ? OBS_NEVER : m->next_sample;
}

/* After a slice: the sample that is due, if one is. */
static void mon_slice(void *ctx, const struct run *r, uint64_t events, bool mine)
{
    struct monitor *m = ctx;
    if (m->next_sample <= r->sim.now)
        sample(m, r);
}

/* ---- The observer module ---- */

/* On for every run of `rocesim run`: rank 0 writes the series into o->dir, the other ranks of a run over MPI (dir
 * NULL) take part in every sample. */
static int mon_open(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                    char *err, size_t errlen)
{
    struct monitor *m = mem_xmalloc(sizeof *m, "the monitor");
    int rc = prepare(m, r, o->dir, err, errlen);
    if (rc) {
        free(m);
        return rc;
    }
    *ctx = m;
    *watch = &m->ops;
    return 0;
}

static int mon_finish(void *ctx, bool keep, char *err, size_t errlen)
{
    return monitor_close(ctx, keep, err, errlen);
}

static void mon_close(void *ctx, bool whole)
{
    (void)whole;
    monitor_close(ctx, false, NULL, 0); /* nothing when finished: its files are gone or final */
    free(ctx);
}

/* Every callback it may take; mon_open narrows them to the files of the run. */
static const struct run_observer_ops mon_watch = {
    .name = "monitor", .until = mon_until, .on_slice = mon_slice, .on_pfc = on_pfc, .on_watchdog = on_watchdog,
    .on_credit = on_credit,
};

static const struct observer_ops monitor_observer = {
    .watch = &mon_watch, .open = mon_open, .finish = mon_finish, .close = mon_close,
};

MODULE_REGISTER(observer_kind, "monitor", &monitor_observer, &monitor_group);
