/* run — one simulation: build, simulate, report (see run.h). */
#include "tools/run/run.h"
#include "tools/common/jsonout.h"
#include "models/fault.h"
#include "models/credit.h"
#include "models/pfcwd.h"
#include "models/exchange.h"
#include "models/trigger.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run/invariants.h"
#include "tools/run/limits.h"
#include "tools/run/monitor_settings.h"
#include "tools/run/observer.h"
#include "tools/common/files.h"
#include "tools/run/plot.h"
#include "tools/common/stats.h"
#include "topologies/partition.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned run_threads = 1;
static bool run_adaptive = true;
static const struct sim_par_comm *run_comm;

void run_set_threads(unsigned n) { run_threads = n; }
void run_set_adaptive(bool on) { run_adaptive = on; }
void run_set_comm(const struct sim_par_comm *comm) { run_comm = comm; }

/* The smallest delay of any link: no frame reaches another node sooner, the lookahead of partitions. */
static sim_time_t min_link_delay(const struct graph *g)
{
    sim_time_t w = INT64_MAX;
    for (uint32_t i = 0; i < g->n_ports; i++)
        if (g->ports[i].delay_ps < w)
            w = g->ports[i].delay_ps;
    return w;
}

/*
 * Cuts r's network into run_threads partitions (topologies/partition.h), each with its engine and counts
 * (sim/parallel.h, net_partition).  One partition runs the same windows as several, so every number of
 * threads gives the same results; only a network with a link of no delay, which has no lookahead, runs on the
 * plain engine (and on one thread).  Returns 0, or SCN_EUSAGE with a message.
 */
static int run_partition(struct run *r, char *err, size_t errlen)
{
    unsigned n = run_threads * (run_comm ? run_comm->ranks : 1);
    sim_time_t w = min_link_delay(&r->g);
    if (n > 1 && w <= 0) {
        if (run_comm)
            snprintf(err, errlen, "%s: %u MPI ranks: a link without delay leaves no lookahead between partitions; "
                     "run it in one process with --threads 1", r->scn->file, run_comm->ranks);
        else
            snprintf(err, errlen, "%s: --threads %u: a link without delay leaves no lookahead between partitions; "
                     "run it with --threads 1", r->scn->file, n);
        return SCN_EUSAGE;
    }
    if (n > SIM_PAR_MAX) {
        snprintf(err, errlen, "%s: %u ranks x %u threads: at most %d partitions", r->scn->file,
                 run_comm ? run_comm->ranks : 1, run_threads, SIM_PAR_MAX);
        return SCN_EUSAGE;
    }
    if (w <= 0 || w == INT64_MAX)
        return 0;
    struct partition_plan plan;
    /* a trigger starts a flow at the instant another ends, at hosts a plan must then keep together */
    uint32_t (*ties)[2] = NULL;
    uint32_t n_ties = trigger_ties(r->scn, &ties);
    int planned = partition_plan_tied(&r->g, NULL, (int)n, (const uint32_t(*)[2])ties, n_ties, &plan);
    free(ties);
    if (planned)
        mem_oom("planning the partitions");
    if (n > 1 && plan.lookahead_ps < SIM_PAR_MIN_WINDOW) {
        if (!run_comm) {
            /* the same results on one partition, without a window's end every few picoseconds */
            r->short_window_ps = plan.lookahead_ps; /* said in the summary (run_print_summary) */
            partition_free(&plan);
            n = 1;
            if (partition_plan(&r->g, NULL, 1, &plan))
                mem_oom("planning the partitions");
        } else if (run_comm->rank == 0) {
            fprintf(stderr, "rocesim: note: the partitions meet every %lld ps (the shortest link between them): "
                            "windows that short make %u ranks slower than one process\n",
                    (long long)plan.lookahead_ps, run_comm->ranks);
        }
    }
    uint16_t *ent_part = mem_xcalloc(r->sim.n_ent, sizeof *ent_part, "planning the partitions");
    for (uint32_t node = 0; node < r->g.n_nodes; node++)
        ent_part[net_ent(node)] = (uint16_t)plan.part[node];
    /* windows as long as the cut allows (a dragonfly's are its global links'), lines from the shortest link */
    sim_time_t cut = plan.lookahead_ps;
    partition_free(&plan);
    int rc = sim_par_init_comm(&r->par, &r->sim, n, ent_part, r->sim.n_ent, w, cut > w ? cut : w, n > 1, run_comm);
    free(ent_part);
    r->par.adapt = run_adaptive;
    if (rc || net_partition(&r->net, &r->par))
        mem_oom("starting the partitions");
    return 0;
}

int run_setup(struct run *r, const struct scenario *scn, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->scn = scn;
    /* Refuse up front what would not fit in memory, rather than be killed half-way (tools/run/limits.h). */
    int rc = limits_check_memory(scn, err, errlen);
    if (rc)
        return rc;
    rc = topo_build(scn, &r->g, err, errlen);
    if (rc)
        return rc;
    if (sim_init(&r->sim))
        mem_oom("setting up the event queue");
    /* counters.csv is the monitor's setting and the run's file (run_write_outputs); the network counts them */
    const struct net_options no = {.counters = monitor_settings_of(scn)->counters,
                                   .step_summary = !monitor_settings_of(scn)->step_flows};
    rc = net_init(&r->net, &r->sim, scn, &r->g, &no, err, errlen);
    if (rc) {
        sim_free(&r->sim);
        graph_free(&r->g);
        return rc;
    }
    /* cut before the traffic, so that every flow and pool is made for the partitions it runs in */
    rc = run_partition(r, err, errlen);
    if (!rc)
        rc = traffic_setup(&r->traffic, &r->net, err, errlen);
    if (!rc)
        rc = faults_setup(&r->net, err, errlen);
    if (rc) {
        run_free(r);
        return rc;
    }
    return 0;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int run_execute(struct run *r)
{
    double t0 = wall_now();
    struct net *n = &r->net;
    if (n->flows_active == 0 && n->pending_sources == 0) {
        r->finished = true;
    } else {
        run_simulate(r); /* sim_run(stop), in slices for the observers (tools/run/observer.h) */
        r->finished = n->flows_active == 0 && n->c.data_in_flight == 0 && n->pending_sources == 0;
    }
    if (net_comm(n))
        exchange_finish(n, r->sim.now); /* the results of every process's partitions, in each */
    else
        net_close_pauses(n, r->sim.now);
    r->wall_s = wall_now() - t0;
    if (net_check_invariants(n, r->invariant_error, sizeof r->invariant_error))
        return -1;
    if (r->finished && n->c.data_sent != n->c.data_delivered + n->c.data_dropped) {
        snprintf(r->invariant_error, sizeof r->invariant_error, "data packets left in flight after the run finished");
        return -1;
    }
    /* Finished traffic leaves only control frames in switch buffers (tools/run/invariants.h): one walk of the
     * queues, cheap next to the run. */
    if (inv_check_end(r, r->invariant_error, sizeof r->invariant_error))
        return -1;
    return 0;
}

void run_headroom_classes(const struct run *r, struct hdrm_report *rep)
{
    const struct graph *g = &r->g;
    const struct net *n = &r->net;
    int cap = 0;
    *rep = (struct hdrm_report){NULL, 0, 0, ""};
    for (uint32_t i = 0; i < g->n_switches; i++) {
        const struct sw *w = &n->sws[i];
        if (w->hdrm_reserved > rep->max_reserved) {
            rep->max_reserved = w->hdrm_reserved;
            rep->max_switch = g->nodes[w->node].name;
        }
        for (uint32_t p = 0; p < w->n_ports; p++) {
            const struct port *pt = &w->ports[p];
            const struct port_aux *x = port_aux(pt);
            int k = 0;
            while (k < rep->n && !(rep->cls[k].rate_bps == x->rate_bps && rep->cls[k].delay_ps == pt->delay_ps &&
                                   rep->cls[k].headroom == x->headroom))
                k++;
            if (k == rep->n) {
                if (rep->n == cap) {
                    cap = cap ? 2 * cap : 8;
                    rep->cls = mem_xrealloc(rep->cls, (size_t)cap * sizeof *rep->cls, "listing the headroom classes");
                }
                rep->cls[rep->n++] = (struct hdrm_class){x->rate_bps, pt->delay_ps, x->headroom, 0};
            }
            rep->cls[k].ports++;
        }
    }
}

void run_free(struct run *r)
{
    sim_par_free(&r->par);
    traffic_free(&r->traffic);
    net_free(&r->net);
    sim_free(&r->sim);
    graph_free(&r->g);
}

/* ---- statistics ---- */

static cJSON *stats_json(struct stats_pct s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mean", s.mean);
    cJSON_AddNumberToObject(o, "p50", s.p50);
    cJSON_AddNumberToObject(o, "p95", s.p95);
    cJSON_AddNumberToObject(o, "p99", s.p99);
    cJSON_AddNumberToObject(o, "max", s.max);
    return o;
}

/*
 * FCT and slowdown statistics of the flows of priority prio (-1: all), by both definitions: to the receiver's
 * last byte over the flows that finished, and to the sender's last ACK over the flows whose last ACK arrived.
 */
struct fct_stats {
    struct stats_pct fct, sd, fct_ack, sd_ack;
    uint32_t acked;
};

/*
 * The flows made and completed as the outputs count them: every flow, or with monitor.step_flows false those
 * that are not a collective's steps (flow.step), which their collective summarizes.
 */
static void flow_counts(const struct run *r, uint32_t *made, uint32_t *done)
{
    const struct net *n = &r->net;
    if (!n->step_summary) {
        *made = net_flows_made(n);
        *done = n->flows_completed;
        return;
    }
    *made = *done = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        if (net_flow_made(f) && !f->step) {
            ++*made;
            *done += f->finish >= 0;
        }
    }
}

static void prio_flow_stats(const struct run *r, int prio, struct fct_stats *st)
{
    const struct net *n = &r->net;
    double *a = malloc(sizeof(double) * (4 * (size_t)n->n_flows + 1));
    if (!a)
        mem_oom("summarizing flow completion times");
    double *b = a + n->n_flows, *c = b + n->n_flows, *d = c + n->n_flows;
    size_t m = 0, k = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        if (!net_flow_made(f) || f->step || f->finish < 0 || (prio >= 0 && f->prio != prio))
            continue;
        a[m] = units_ps_to_ns(f->finish - f->start);
        b[m] = f->ideal_fct > 0 ? (double)(f->finish - f->start) / (double)f->ideal_fct : 0;
        m++;
        if (f->acked >= 0) {
            c[k] = units_ps_to_ns(f->acked - f->start);
            d[k] = f->ideal_fct_ack > 0 ? (double)(f->acked - f->start) / (double)f->ideal_fct_ack : 0;
            k++;
        }
    }
    st->fct = stats_nearest_rank(a, m);
    st->sd = stats_nearest_rank(b, m);
    st->fct_ack = stats_nearest_rank(c, k);
    st->sd_ack = stats_nearest_rank(d, k);
    st->acked = (uint32_t)k;
    free(a);
}

/* The fields of both definitions, in summary.json's flows and priorities objects. */
static void add_fct_stats(cJSON *o, const struct fct_stats *st)
{
    cJSON_AddItemToObject(o, "fct_ns", stats_json(st->fct));
    cJSON_AddItemToObject(o, "slowdown", stats_json(st->sd));
    cJSON_AddNumberToObject(o, "acked", st->acked);
    cJSON_AddItemToObject(o, "fct_ack_ns", stats_json(st->fct_ack));
    cJSON_AddItemToObject(o, "slowdown_ack", stats_json(st->sd_ack));
}

/* series_capped: only when a bound cut a time series short (tools/run/monitor.h), so that every other summary is as it
 * was. */
static void add_series_capped(cJSON *root, const struct run *r)
{
    cJSON *capped = NULL;
    for (int i = 0; i < RUN_N_SERIES; i++) {
        const struct run_series_cut *cut = &r->mon_notes.cut[i];
        if (!cut->cut)
            continue;
        if (!capped)
            capped = cJSON_AddArrayToObject(root, "series_capped");
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", run_series_names[i]);
        cJSON_AddNumberToObject(o, "rows", (double)cut->rows);
        cJSON_AddNumberToObject(o, "from_ns", units_ps_to_ns(cut->from));
        static const char *const by[] = {[RUN_CUT_ROWS] = "rows", [RUN_CUT_SAMPLES] = "samples",
                                         [RUN_CUT_BYTES] = "bytes"};
        cJSON_AddStringToObject(o, "bound", by[cut->by]);
        cJSON_AddItemToArray(capped, o);
    }
}

double run_one_thread_share(const struct run *r)
{
    return r->par.windows ? (double)r->par.serial_windows / (double)r->par.windows : 0;
}

/* What the run was and how it ended: the fields before the results. */
static void add_run_head(cJSON *root, const struct run *r, bool with_wall)
{
    cJSON_AddStringToObject(root, "scenario", r->scn->name);
    cJSON_AddItemToObject(root, "seed", jsonout_u64(r->scn->seed));
    cJSON_AddNumberToObject(root, "results_version", RUN_RESULTS_VERSION);
    cJSON_AddBoolToObject(root, "complete", r->incomplete_reason[0] == '\0');
    if (r->incomplete_reason[0])
        cJSON_AddStringToObject(root, "incomplete_reason", r->incomplete_reason);
    cJSON_AddBoolToObject(root, "traffic_finished", r->finished);
    cJSON_AddNumberToObject(root, "sim_end_ns", units_ps_to_ns(r->sim.now));
    if (with_wall) {
        cJSON_AddNumberToObject(root, "wall_s", r->wall_s);
    }
    cJSON_AddNumberToObject(root, "events", (double)r->sim.events);
    cJSON_AddNumberToObject(root, "packet_hops", (double)r->net.c.packet_hops);
    if (with_wall)
        cJSON_AddNumberToObject(root, "events_per_s", r->wall_s > 0 ? (double)r->sim.events / r->wall_s : 0);
    if (with_wall && r->par.threaded)
        cJSON_AddNumberToObject(root, "one_thread_share", run_one_thread_share(r));
}

/* An nccl collective's operation and its bandwidths as nccl-tests prints them (GB/s: bytes per ns): algbw the
 * size over the time, busbw algbw times the operation's factor (doc/PERFORMANCE.md of nccl-tests). */
static void add_nccl(cJSON *o, const struct coll *cl)
{
    cJSON_AddStringToObject(o, "op", cl->op);
    cJSON_AddStringToObject(o, "algorithm", cl->algorithm);
    cJSON_AddNumberToObject(o, "channels", cl->channels);
    if (cl->finish > cl->start) {
        double algbw = coll_algbw(cl);
        cJSON_AddNumberToObject(o, "algbw_GBps", algbw);
        cJSON_AddNumberToObject(o, "busbw_GBps", algbw * cl->busbw_factor);
    } else {
        cJSON_AddNullToObject(o, "algbw_GBps");
        cJSON_AddNullToObject(o, "busbw_GBps");
    }
}

static void add_collectives(cJSON *root, const struct run *r)
{
    cJSON *colls = cJSON_AddArrayToObject(root, "collectives");
    for (uint32_t i = 0; i < r->traffic.n_colls; i++) {
        const struct coll *cl = &r->traffic.colls[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", r->scn->traffic[cl->entry].id);
        cJSON_AddStringToObject(o, "type", cl->kind);
        cJSON_AddNumberToObject(o, "hosts", cl->total_ranks);
        if (cl->ring)
            cJSON_AddNumberToObject(o, "rings", cl->rings);
        cJSON_AddNumberToObject(o, "size", (double)cl->size);
        cJSON_AddNumberToObject(o, "bytes", (double)cl->bytes);
        if (cl->finish >= 0)
            cJSON_AddNumberToObject(o, "completion_ns", units_ps_to_ns(cl->finish - cl->start));
        else
            cJSON_AddNullToObject(o, "completion_ns");
        if (cl->op)
            add_nccl(o, cl);
        if (cl->summary)
            cl->summary(cl, o);
        cJSON_AddItemToArray(colls, o);
    }
}

/* One (port, VL)'s stalled time, for the largest first. */
struct stall {
    uint32_t port;
    int vl;
    sim_time_t t;
};

static int stall_cmp(const void *a, const void *b)
{
    const struct stall *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? 1 : -1;
    return x->port != y->port ? (x->port < y->port ? -1 : 1) : x->vl - y->vl;
}

/* credits.stalls: the RUN_STALLS_LISTED (port, VL)s that waited longest for credit, by the time they waited (IB's
 * PortXmitWait per VL), and how many waited at all; counters.csv has every one when monitor.counters is on. */
#define RUN_STALLS_LISTED 32
static void add_stalls(cJSON *cr, const struct run *r)
{
    const struct net *n = &r->net;
    struct stall top[RUN_STALLS_LISTED + 1];
    uint32_t kept = 0, any = 0;
    for (uint32_t id = 0; id < r->g.n_ports; id++)
        for (int v = 0; v < NPRIO; v++) {
            sim_time_t t = port_paused_closed(&n->ports[id], v); /* the run closed every interval at its end */
            if (t <= 0)
                continue;
            any++;
            /* insertion into the sorted few: at most 33 moves per stalled (port, VL), once per run */
            struct stall s = {id, v, t};
            uint32_t i = kept < RUN_STALLS_LISTED ? kept++ : RUN_STALLS_LISTED;
            top[i] = s;
            while (i > 0 && stall_cmp(&top[i - 1], &top[i]) > 0) {
                struct stall x = top[i - 1];
                top[i - 1] = top[i];
                top[i] = x;
                i--;
            }
        }
    cJSON_AddNumberToObject(cr, "port_vls_stalled", any);
    cJSON *a = cJSON_AddArrayToObject(cr, "stalls");
    for (uint32_t i = 0; i < kept; i++) {
        const struct port *p = &n->ports[top[i].port];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", r->g.nodes[p->node].name);
        cJSON_AddNumberToObject(o, "port", p->local);
        cJSON_AddNumberToObject(o, "vl", top[i].vl);
        cJSON_AddNumberToObject(o, "stalled_ns", units_ps_to_ns(top[i].t));
        cJSON_AddItemToArray(a, o);
    }
}

/* The fabric's counts of the whole run: packets, bytes, CNPs and PFC. */
static void add_counts(cJSON *root, const struct run *r)
{
    const struct net *n = &r->net;
    const struct net_counters *c = &n->c;
    cJSON *pk = cJSON_AddObjectToObject(root, "packets");
    cJSON_AddNumberToObject(pk, "sent", (double)c->data_sent);
    cJSON_AddNumberToObject(pk, "delivered", (double)c->data_delivered);
    cJSON_AddNumberToObject(pk, "dropped", (double)c->data_dropped);
    cJSON_AddNumberToObject(pk, "in_flight", (double)c->data_in_flight);
    cJSON_AddNumberToObject(pk, "retransmitted", (double)c->data_retx);
    cJSON_AddNumberToObject(pk, "ecn_marked", (double)c->ecn_marked);
    cJSON_AddNumberToObject(pk, "timeouts", (double)c->timeouts);
    cJSON_AddNumberToObject(pk, "spurious_timeouts", (double)c->spurious_timeouts);
    cJSON_AddNumberToObject(pk, "nacks", (double)c->nacks_sent);
    if (n->trim_any) /* only where a switch trims, so that every other summary is as it was */
        cJSON_AddNumberToObject(pk, "trimmed", (double)c->trimmed);
    cJSON *dr = cJSON_AddObjectToObject(pk, "drops_by_reason");
    cJSON_AddNumberToObject(dr, "buffer", (double)c->drop_buffer);
    cJSON_AddNumberToObject(dr, "headroom", (double)c->drop_headroom);
    cJSON_AddNumberToObject(dr, "watchdog", (double)c->drop_watchdog);
    cJSON_AddNumberToObject(dr, "link_down", (double)c->drop_link_down);
    cJSON_AddNumberToObject(dr, "corrupt", (double)c->drop_corrupt);
    cJSON_AddNumberToObject(dr, "mtu", (double)c->drop_mtu);
    if (n->loss) {
        /* Only runs with a lossy link have it, so that the summaries of every other run are as they were. */
        cJSON *cc = cJSON_AddObjectToObject(pk, "control_corrupt");
        cJSON_AddNumberToObject(cc, "ack", (double)c->corrupt_ack);
        cJSON_AddNumberToObject(cc, "nack", (double)c->corrupt_nack);
        cJSON_AddNumberToObject(cc, "cnp", (double)c->corrupt_cnp);
        cJSON_AddNumberToObject(cc, "pause", (double)c->corrupt_pause);
        cJSON_AddNumberToObject(cc, "resume", (double)c->corrupt_resume);
    }
    cJSON *by = cJSON_AddObjectToObject(root, "bytes");
    cJSON_AddNumberToObject(by, "sent", (double)c->bytes_sent);
    cJSON_AddNumberToObject(by, "delivered", (double)c->bytes_delivered);
    cJSON_AddNumberToObject(by, "dropped", (double)c->bytes_dropped);
    cJSON_AddNumberToObject(by, "in_flight", (double)c->data_bytes_in_flight);

    /* Only where a switch balances per packet or flowlet, so that every other summary is as it was. */
    if (n->lb_any) {
        cJSON *ro = cJSON_AddObjectToObject(root, "reordering");
        cJSON_AddNumberToObject(ro, "out_of_order", (double)c->ooo_arrivals);
        cJSON_AddNumberToObject(ro, "distance_mean", c->ooo_arrivals ? (double)c->ooo_distance / c->ooo_arrivals : 0);
    }
    cJSON *cnp = cJSON_AddObjectToObject(root, "cnp");
    cJSON_AddNumberToObject(cnp, "sent", (double)c->cnp_sent);
    cJSON_AddNumberToObject(cnp, "received", (double)c->cnp_received);
    if (n->nack_cnp_any) /* only where a NIC sends them, so that every other summary is as it was */
        cJSON_AddNumberToObject(cnp, "with_nack", (double)c->cnp_nack);

    /* A port blocked by credits is stalled, not paused: the time goes to "credits", and "pfc" says none was sent. */
    bool credits = credit_runs(n);
    cJSON *pfc = cJSON_AddObjectToObject(root, "pfc");
    cJSON_AddNumberToObject(pfc, "pause_frames", (double)c->pause_frames);
    cJSON_AddNumberToObject(pfc, "resume_frames", (double)c->resume_frames);
    cJSON_AddNumberToObject(pfc, "paused_ns_total", credits ? 0 : units_ps_to_ns(n->paused_total));
    cJSON_AddNumberToObject(pfc, "ports_ever_paused", credits ? 0 : n->ports_ever_paused);
    if (credits) {
        cJSON *cr = cJSON_AddObjectToObject(root, "credits");
        cJSON_AddNumberToObject(cr, "flow_control_packets", (double)c->credit_fc);
        cJSON_AddNumberToObject(cr, "stalled_ns_total", units_ps_to_ns(n->paused_total));
        cJSON_AddNumberToObject(cr, "ports_ever_stalled", n->ports_ever_paused);
        add_stalls(cr, r);
    }
}

/* One object per priority that carried a flow or sent a PAUSE, so that an unused priority adds nothing. */
static void add_priorities(cJSON *root, const struct run *r)
{
    const struct net *n = &r->net;
    cJSON *pr = cJSON_AddObjectToObject(root, "priorities");
    for (int p = 0; p < NPRIO; p++) {
        const struct prio_counters *pc = &n->c.prio[p];
        uint32_t nf = 0, done = 0;
        for (uint32_t i = 0; i < n->n_flows; i++) {
            const struct flow *f = net_flow(n, i);
            if (net_flow_made(f) && !f->step && f->prio == p) {
                nf++;
                done += f->finish >= 0;
            }
        }
        if (!nf && !pc->pause_frames && !pc->sent)
            continue; /* (data sent without a flow: the steps of a collective that summarizes them) */
        struct fct_stats ps;
        prio_flow_stats(r, p, &ps);
        char key[12];
        snprintf(key, sizeof key, "%d", p);
        cJSON *o = cJSON_AddObjectToObject(pr, key);
        cJSON_AddBoolToObject(o, "lossless", (n->lossless >> p) & 1);
        cJSON_AddNumberToObject(o, "flows", nf);
        cJSON_AddNumberToObject(o, "completed", done);
        cJSON_AddNumberToObject(o, "packets_sent", (double)pc->sent);
        cJSON_AddNumberToObject(o, "packets_delivered", (double)pc->delivered);
        cJSON_AddNumberToObject(o, "packets_dropped", (double)pc->dropped);
        cJSON_AddNumberToObject(o, "bytes_delivered", (double)pc->bytes_delivered);
        cJSON_AddNumberToObject(o, "ecn_marked", (double)pc->ecn_marked);
        cJSON_AddNumberToObject(o, "pause_frames", (double)pc->pause_frames);
        cJSON_AddNumberToObject(o, "paused_ns", units_ps_to_ns(n->paused_prio[p]));
        sim_time_t flow_paused = 0;
        for (uint32_t i = 0; i < n->n_flows; i++) {
            const struct flow *f = net_flow(n, i);
            if (net_flow_made(f) && !f->step && f->prio == p)
                flow_paused += f->paused_ns;
        }
        cJSON_AddNumberToObject(o, "flows_paused_ns", units_ps_to_ns(flow_paused));
        add_fct_stats(o, &ps);
    }
}

static void add_deadlock(cJSON *root, const struct run *r)
{
    const struct net *n = &r->net;
    cJSON *dl = cJSON_AddObjectToObject(root, "deadlock");
    cJSON_AddBoolToObject(dl, "detected", n->dl.detected);
    if (n->dl.detected)
        cJSON_AddNumberToObject(dl, "at_ns", units_ps_to_ns(n->dl.at));
    else
        cJSON_AddNullToObject(dl, "at_ns");
    cJSON *cyc = cJSON_AddArrayToObject(dl, "cycle");
    for (uint32_t i = 0; i < n->dl.cycle_len; i++) {
        const struct port *pt = &n->ports[n->dl.cycle[i]];
        char name[2 * SCN_NAME_MAX + 16];
        snprintf(name, sizeof name, "%s:%u", r->g.nodes[pt->node].name, pt->local);
        cJSON_AddItemToArray(cyc, cJSON_CreateString(name));
    }
    if (n->dl.detected)
        cJSON_AddNumberToObject(dl, "priority", n->dl.prio);
    else
        cJSON_AddNullToObject(dl, "priority");
    /* Under credits the cycle is of ports waiting for credit on a VL (priority), a credit loop; PFC's says nothing
     * more, so that RoCE summaries stay as they were. */
    if (credit_runs(n))
        cJSON_AddStringToObject(dl, "cause", "credit loop");
}

char *run_summary_json(const struct run *r, bool with_wall)
{
    const struct net *n = &r->net;
    cJSON *root = cJSON_CreateObject();
    add_run_head(root, r, with_wall);

    struct fct_stats st;
    prio_flow_stats(r, -1, &st);
    uint32_t made, done;
    flow_counts(r, &made, &done);
    cJSON *flows = cJSON_AddObjectToObject(root, "flows");
    cJSON_AddNumberToObject(flows, "total", made);
    cJSON_AddNumberToObject(flows, "completed", done);
    /* Only a QP timeout (host.qp_timeout) can make a flow fail, so the field appears only when one did. */
    if (n->c.flows_failed)
        cJSON_AddNumberToObject(flows, "failed", (double)n->c.flows_failed);
    add_fct_stats(flows, &st);
    add_collectives(root, r);
    add_counts(root, r);
    add_priorities(root, r);

    cJSON *rt = cJSON_AddObjectToObject(root, "routing");
    cJSON_AddNumberToObject(rt, "valiant_flows", n->flows_valiant);
    cJSON_AddNumberToObject(rt, "link_failures", n->link_failures);
    cJSON_AddNumberToObject(rt, "reroutes", n->reroutes);
    add_deadlock(root, r);
    cJSON *wd = cJSON_AddObjectToObject(root, "watchdog");
    cJSON_AddNumberToObject(wd, "storms_detected", n->wd ? n->wd->storms : 0);
    cJSON_AddNumberToObject(wd, "restored", n->wd ? n->wd->restored : 0);
    add_series_capped(root, r);
    for (unsigned i = 0; i < r->n_opened; i++) {
        const struct observer_ops *ops = r->opened[i].m->ops;
        if (ops->summarize)
            ops->summarize(r->opened[i].ctx, root);
    }

    char *txt = jsonout_print(root);
    cJSON_Delete(root);
    if (!txt)
        mem_oom("writing summary.json");
    size_t len = strlen(txt);
    char *out = mem_xrealloc(txt, len + 2, "writing summary.json");
    out[len] = '\n';
    out[len + 1] = '\0';
    return out;
}

/* ---- flows.csv ---- */

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            abort();
        if (b->p && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 65536;
        while (nc < b->len + (size_t)k + 1)
            nc *= 2;
        b->p = mem_xrealloc(b->p, nc, "writing flows.csv");
        b->cap = nc;
    }
}

char *run_flows_csv(const struct run *r)
{
    const struct net *n = &r->net;
    struct buf b = {0};
    buf_printf(&b, "%s\n", RUN_FLOWS_HEADER);
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        if (!net_flow_made(f) || f->step)
            continue; /* a collective's step not started, or one its collective summarizes (monitor.step_flows) */
        char s1[32], s2[32], s3[32], s4[32], s5[32];
        buf_printf(&b, "%s,%s,%s,%d,%lld,%s,", f->name, scn_host_name(r->scn, (int)f->src),
                   scn_host_name(r->scn, (int)f->dst), f->prio, (long long)f->size,
                   f->start < 0 ? "" : units_fmt_ns(f->start, s1, sizeof s1)); /* never started (trigger.h) */
        if (f->finish < 0) {
            buf_printf(&b, ",,,,,,,,,,\n");
            continue;
        }
        buf_printf(&b, "%s,%s,%s,%.4f,%llu,%llu,%s,", units_fmt_ns(f->finish, s2, sizeof s2),
                   units_fmt_ns(f->finish - f->start, s3, sizeof s3), units_fmt_ns(f->ideal_fct, s4, sizeof s4),
                   f->ideal_fct > 0 ? (double)(f->finish - f->start) / (double)f->ideal_fct : 0.0,
                   (unsigned long long)f->retx_bytes, (unsigned long long)f->cnps_rx,
                   units_fmt_ns(f->paused_ns, s5, sizeof s5));
        if (f->acked < 0)
            buf_printf(&b, ",,,\n"); /* the run ended before the last ACK reached the sender */
        else
            buf_printf(&b, "%s,%s,%s,%.4f\n", units_fmt_ns(f->acked, s2, sizeof s2),
                       units_fmt_ns(f->acked - f->start, s3, sizeof s3),
                       units_fmt_ns(f->ideal_fct_ack, s4, sizeof s4),
                       f->ideal_fct_ack > 0 ? (double)(f->acked - f->start) / (double)f->ideal_fct_ack : 0.0);
    }
    if (!b.p)
        mem_oom("writing flows.csv");
    return b.p;
}

/* ---- counters.csv ---- */

char *run_counters_csv(const struct run *r)
{
    const struct net *n = &r->net;
    const struct graph *g = n->g;
    struct buf b = {0};
    buf_printf(&b, "%s\n", RUN_COUNTERS_HEADER);
    for (uint32_t node = 0; node < g->n_nodes; node++)
        for (uint32_t l = 0; l < g->nodes[node].n_ports; l++) {
            uint32_t id = g->nodes[node].first_port + l;
            const struct port *p = &n->ports[id];
            for (int prio = 0; prio < NPRIO; prio++) {
                const struct port_ctr *c = &n->ctr[(size_t)id * NPRIO + (size_t)prio];
                sim_time_t paused = port_paused_closed(p, prio); /* the run closed every interval at its end */
                uint64_t any = c->rx_frames | c->tx_frames | c->pause_rx | c->pause_tx | c->ecn_marked |
                               c->cnp_tx | c->cnp_rx | c->ooo_rx | (uint64_t)paused;
                for (int d = 0; d <= DROP_MTU; d++)
                    any |= c->drops[d];
                if (!any)
                    continue;
                char ps[32];
                buf_printf(&b, "%s,%u,%s,%d,%llu,%llu,%llu,%llu,%llu,%llu,%s,%llu", g->nodes[node].name, l,
                           g->nodes[p->peer->node].name, prio, (unsigned long long)c->rx_frames,
                           (unsigned long long)c->rx_bytes, (unsigned long long)c->tx_frames,
                           (unsigned long long)c->tx_bytes, (unsigned long long)c->pause_rx,
                           (unsigned long long)c->pause_tx, units_fmt_ns(paused, ps, sizeof ps),
                           (unsigned long long)c->ecn_marked);
                for (int d = 0; d <= DROP_MTU; d++)
                    buf_printf(&b, ",%llu", (unsigned long long)c->drops[d]);
                buf_printf(&b, ",%llu,%llu,%llu\n", (unsigned long long)c->cnp_tx, (unsigned long long)c->cnp_rx,
                           (unsigned long long)c->ooo_rx);
            }
        }
    return b.p;
}

const char *const run_series_names[RUN_N_SERIES] = {"queues.csv", "rates.csv", "pfc.csv", "watchdog.csv",
                                                     "credits.csv"};

const char *const run_output_names[] = {"summary.json", "flows.csv",     "queues.csv",   "rates.csv",
                                        "pfc.csv",      "watchdog.csv", "scenario.json", "counters.csv",
                                        "timeline.csv", "credits.csv"};
const size_t run_n_output_names = sizeof run_output_names / sizeof *run_output_names;

int run_claim_dir(const char *dir, char *err, size_t errlen)
{
    if (make_dirs(dir)) {
        snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
        return SCN_EIO;
    }
    for (size_t i = 0; i < run_n_output_names; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, run_output_names[i]);
        unlink(path);
    }
    remove_stale_tmp(dir, run_output_names, run_n_output_names);
    plot_clean(dir);
    return 0;
}

/* timeline.csv: the rows of every collective that keeps a timeline (workload entries), after its id; NULL when
 * none does. */
static char *run_timeline_csv(const struct run *r)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = NULL;
    for (uint32_t i = 0; i < r->traffic.n_colls; i++) {
        const struct coll *cl = &r->traffic.colls[i];
        char *rows = cl->timeline ? cl->timeline(cl) : NULL;
        if (!rows)
            continue;
        if (!f && !(f = open_memstream(&out, &len)))
            mem_oom("writing timeline.csv");
        if (!len)
            fputs("id,rank,activity,start_us,end_us\n", f);
        const char *id = r->scn->traffic[cl->entry].id;
        for (char *l = rows, *nl; *l; l = nl + 1) {
            nl = strchr(l, '\n');
            fprintf(f, "%s,%.*s\n", id, (int)(nl - l), l);
        }
        fflush(f);
        free(rows);
    }
    if (f)
        fclose(f);
    return out;
}

int run_write_outputs(struct run *r, const char *dir, char *err, size_t errlen)
{
    if (make_dirs(dir)) {
        snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
        return SCN_EIO;
    }
    struct {
        const char *name;
        char *text;
    } files[] = {{"flows.csv", run_flows_csv(r)},
                 {"summary.json", run_summary_json(r, true)},
                 {"counters.csv", r->net.ctr ? run_counters_csv(r) : NULL},
                 {"timeline.csv", run_timeline_csv(r)}};
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        if (!files[i].text)
            continue; /* counters.csv without monitor.counters, timeline.csv without a workload */
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        if (!rc && write_file_atomic(path, files[i].text, strlen(files[i].text))) {
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
            rc = SCN_EIO;
        }
        free(files[i].text);
    }
    /* All or none: a flows.csv without its summary.json is not a run. */
    for (size_t i = 0; rc && i < sizeof files / sizeof *files; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        unlink(path);
    }
    return rc;
}

static const char *human_time(double ns, char *buf, size_t len)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else
        snprintf(buf, len, "%.0f ns", ns);
    return buf;
}

/* The bounded defaults of the time series say when they left something out, and how to get it all. */
static void print_series_notes(const struct run *r, FILE *f)
{
    if (r->mon_notes.flows_sampled)
        fprintf(f, "  note: rates.csv follows %u of about %llu flows, spread evenly (monitor.flows \"auto\"; "
                   "\"all\" follows every flow)\n",
                r->mon_notes.flows_kept, (unsigned long long)r->mon_notes.flows_expected);
    if (r->mon_notes.pfc_sampled)
        fprintf(f, "  note: pfc.csv holds the frames of the first %u of the %u ports that sent PFC frames "
                   "(monitor.pfc \"auto\"; \"all\" records every frame; summary.json counts them all)\n",
                r->mon_notes.pfc_ports_kept, r->mon_notes.pfc_ports_seen);
    if (r->mon_notes.credit_sampled)
        fprintf(f, "  note: credits.csv holds the stalls of the first %u of the %u ports that stalled for credit "
                   "(monitor.credits \"auto\"; \"all\" records every stall; summary.json has the largest)\n",
                r->mon_notes.credit_ports_kept, r->mon_notes.credit_ports_seen);
}

void run_print_summary(const struct run *r, FILE *f, const char *dir, const char *plots)
{
    const struct net *n = &r->net;
    const struct net_counters *c = &n->c;
    struct fct_stats fs;
    prio_flow_stats(r, -1, &fs);
    const struct stats_pct fct = fs.fct, sd = fs.sd;
    char a[32], b[32];
    uint32_t made, done;
    flow_counts(r, &made, &done);
    fprintf(f, "%s: %u of %u flows finished, simulated %s in %.2f s (%.2f M events/s)\n", r->scn->name, done, made,
            human_time(units_ps_to_ns(r->sim.now), a, sizeof a), r->wall_s,
            r->wall_s > 0 ? (double)r->sim.events / r->wall_s / 1e6 : 0.0);
    if (done)
        fprintf(f, "  FCT p50 %s, p99 %s; slowdown p50 %.2f, p99 %.2f\n", human_time(fct.p50, a, sizeof a),
                human_time(fct.p99, b, sizeof b), sd.p50, sd.p99);
    /* Every reason that dropped something, named as in summary.json's drops_by_reason: a count that hides
     * which mechanism dropped (a watchdog, a failed link) would send the reader to the wrong knob. */
    fprintf(f, "  data packets: %llu sent, %llu dropped", (unsigned long long)c->data_sent,
            (unsigned long long)c->data_dropped);
    const struct {
        const char *name;
        uint64_t n;
    } why[] = {{"buffer", c->drop_buffer}, {"headroom", c->drop_headroom}, {"watchdog", c->drop_watchdog},
               {"link_down", c->drop_link_down}, {"corrupt", c->drop_corrupt}, {"mtu", c->drop_mtu}};
    int shown = 0;
    for (size_t i = 0; i < sizeof why / sizeof *why; i++)
        if (why[i].n)
            fprintf(f, "%s%llu %s", shown++ ? ", " : " (", (unsigned long long)why[i].n, why[i].name);
    /* InfiniBand's switches mark FECN, its receivers answer with BECNs (fecn.c, cc_ibcc.c) */
    bool ib = credit_runs(n);
    fprintf(f, "%s, %llu retransmitted, %llu %s-marked\n", shown ? ")" : "", (unsigned long long)c->data_retx,
            (unsigned long long)c->ecn_marked, ib ? "FECN" : "ECN");
    if (ib)
        fprintf(f, "  BECNs: %llu; credits: %llu flow-control packets, %u ports stalled, %s stalled in total\n",
                (unsigned long long)c->cnp_sent, (unsigned long long)c->credit_fc, n->ports_ever_paused,
                human_time(units_ps_to_ns(n->paused_total), a, sizeof a));
    else
        fprintf(f, "  CNPs: %llu; PFC: %llu PAUSE, %llu RESUME, %u ports paused, %s paused in total\n",
                (unsigned long long)c->cnp_sent, (unsigned long long)c->pause_frames,
                (unsigned long long)c->resume_frames, n->ports_ever_paused,
                human_time(units_ps_to_ns(n->paused_total), a, sizeof a));
    if (n->link_failures || n->flows_valiant)
        fprintf(f, "  routing: %u link failures, %llu link_down drops, %u route recomputations; %u flows through a "
                   "Valiant intermediate group\n",
                n->link_failures, (unsigned long long)c->drop_link_down, n->reroutes, n->flows_valiant);
    if (n->loss)
        fprintf(f, "  lossy links: %llu data frames corrupted; control frames corrupted: %llu ACK, %llu NACK, %llu CNP, "
                   "%llu PAUSE, %llu RESUME\n",
                (unsigned long long)c->drop_corrupt, (unsigned long long)c->corrupt_ack,
                (unsigned long long)c->corrupt_nack, (unsigned long long)c->corrupt_cnp,
                (unsigned long long)c->corrupt_pause, (unsigned long long)c->corrupt_resume);
    /* Alarms, one line each, between the numbers and the file list: deadlock and PFC storm lines go here. */
    if (n->dl.detected) {
        if (credit_runs(n))
            fprintf(f, "  DEADLOCK: credit loop on VL %d detected at %s, run stopped; cycle (each port waiting for "
                       "credit from the next):", n->dl.prio, human_time(units_ps_to_ns(n->dl.at), a, sizeof a));
        else
            fprintf(f, "  DEADLOCK: PFC deadlock on priority %d detected at %s, run stopped; cycle (each port paused "
                       "by the next):", n->dl.prio, human_time(units_ps_to_ns(n->dl.at), a, sizeof a));
        for (uint32_t i = 0; i <= n->dl.cycle_len; i++) {
            const struct port *pt = &n->ports[n->dl.cycle[i % n->dl.cycle_len]];
            fprintf(f, "%s%s:%u", i ? " -> " : " ", r->g.nodes[pt->node].name, pt->local);
        }
        fprintf(f, "\n");
    }
    if (n->wd && n->wd->storms)
        fprintf(f, "  PFC storm: the watchdog declared %u storms (%u restored), %llu frames dropped by it\n",
                n->wd->storms, n->wd->restored, (unsigned long long)c->drop_watchdog);
    if (c->drop_headroom && n->wd && n->wd->storms && n->wd->cfg->action == PFCWD_FORWARD)
        fprintf(f, "  WARNING: %llu lossless packets were dropped for lack of PFC headroom: the PFC watchdog's "
                   "forward action ignored PAUSE frames\n",
                (unsigned long long)c->drop_headroom);
    else if (c->drop_headroom)
        fprintf(f, "  WARNING: %llu lossless packets were dropped for lack of PFC headroom: "
                   "switch.pfc.headroom is too small for these links\n",
                (unsigned long long)c->drop_headroom);
    /* A pause still in force when the run ended is reported, never silently dropped (docs/RELIABILITY.md). */
    struct inv_leftover lo = inv_leftover(r);
    if (lo.paused_queues)
        fprintf(f, "  note: %u egress queues were still %s when the run ended\n", lo.paused_queues,
                credit_runs(n) ? "stalled for credit" : "paused by PFC");
    print_series_notes(r, f);
    if (r->short_window_ps)
        fprintf(f, "  note: ran on one thread: the partitions of --threads would have met every %lld ps (the shortest "
                   "link between them), and windows that short cost more than threads gain\n",
                (long long)r->short_window_ps);
    if (r->par.serial_windows)
        fprintf(f, "  note: other processes used the cores: %.0f %% of the windows ran on one thread instead of %u "
                   "(the same results; --fixed-threads keeps the threads)\n",
                100 * run_one_thread_share(r), r->par.hi - r->par.lo);
    if (r->incomplete_reason[0])
        fprintf(f, "  INCOMPLETE: %s; stopped at simulated time %s, outputs marked \"complete\": false\n",
                r->incomplete_reason, human_time(units_ps_to_ns(r->sim.now), a, sizeof a));
    else if (!r->finished && !n->dl.detected)
        fprintf(f, "  stopped at the stop time with traffic unfinished\n");
    if (dir) {
        /* Only the files that are there: the directory was claimed (run_claim_dir), so they are this run's. */
        fprintf(f, "  outputs: %s/ (", dir);
        int k = 0;
        for (size_t i = 0; i < run_n_output_names; i++) {
            char path[4200];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, run_output_names[i]);
            if (stat(path, &st) == 0)
                fprintf(f, "%s%s", k++ ? ", " : "", run_output_names[i]);
        }
        fprintf(f, ")\n");
    }
    if (plots)
        fprintf(f, "  plots: %s\n", plots);
}
