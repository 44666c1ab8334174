/* limits — memory estimate, wall-clock limit and signals during a run (see limits.h). */
#include "tools/run/limits.h"
#include "models/ranks.h"
#include "models/traffic.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/common/signals.h"
#include "tools/run/monitor_settings.h"
#include "topologies/topo.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct mem_estimate limits_estimate_memory(const struct scenario *s)
{
    const struct scn_topology *t = &s->topo;
    struct memest_counts mc = memest_topology(s, t->n_hosts);
    double hosts = mc.hosts, sw = mc.switches, links = mc.links;
    struct mem_estimate e;
    memset(&e, 0, sizeof e);
    e.hosts = hosts;
    e.nodes = hosts + sw;
    e.ports = 2 * links;
    e.poisson_entry = -1;
    double *host_rate = NULL;
    /* Each kind counts its entry's flows (models/traffic.h).  Of the flows an entry generates over the run, four
     * standard deviations of the Poisson count are added to the mean: a run draws more than its mean half of the
     * time.  The entry that generates the most is the one a refusal blames. */
    for (int i = 0; i < s->n_traffic; i++) {
        if (!host_rate) {
            host_rate = mem_xcalloc((size_t)t->n_hosts + 1, sizeof *host_rate, "estimating the memory a run needs");
            memest_host_rates(s, host_rate);
        }
        struct traffic_count tc;
        traffic_ops_of(&s->traffic[i])->count(s, i, host_rate, NULL, &tc);
        if (traffic_ops_of(&s->traffic[i])->summarizes_steps && !monitor_settings_of(s)->step_flows) {
            /* summarized steps: each keeps its place in the schedule; records only for the steps in flight, at
             * most a rank's channels' windows (64 x 8) per host (net_make_step) */
            e.steps += tc.made;
            e.flows += fmin(tc.made, 512 * hosts);
        } else {
            e.flows += tc.made;
        }
        if (!tc.generates)
            continue;
        double n = tc.generated + 4 * sqrt(tc.generated);
        e.poisson_flows += n;
        if (e.poisson_entry < 0 || n > e.poisson_entry_flows) {
            e.poisson_entry = i;
            e.poisson_entry_flows = n;
            e.poisson_entry_mean = tc.mean_bytes;
            e.poisson_entry_span = tc.span_ps;
        }
    }
    free(host_rate);
    e.routing_bytes = mc.routing_bytes;
    /*
     * Every flow keeps its record and name to the end, and then has its line in flows.csv (built in memory,
     * about 100 B, in a buffer that doubles) and its FCT in the summary: 160 B for those.  Packets come from a
     * pool that grows with the traffic, not with the buffers' size (full buffers everywhere at once do not
     * happen): a few per port and a window's worth per flow created up front.  A poisson load's flows come
     * and go, most of them finished long before the end: their packets and events are not counted per flow.
     */
    double all_flows = e.flows + e.poisson_flows;
    e.flow_bytes = all_flows * (sizeof(struct flow) + 64 + 160) + e.flows * (64 * sizeof(struct pkt) + 3 * 64);
    /* a transport's per-flow state (selective repeat's bitmaps), at its largest, for every flow at once */
    const struct transport_ops *tr = transport_of(transport_params_of(&s->host)->loss_recovery);
    if (tr->state_bytes)
        e.flow_bytes += all_flows * (double)tr->state_bytes(&s->host);
    double run = e.ports * (sizeof(struct port) + sizeof(struct port_aux) + NPRIO * sizeof(struct port_prio) + 64) +
                 e.flow_bytes + e.steps * 64 + e.ports * 4 * sizeof(struct pkt) +
                 e.ports * 3 * 64 + /* events: a few per port (the flows' are in flow_bytes), 48 B each */
                 (double)(1u << SIM_RING_BITS) * 4 + 512 * 1024; /* the calendar's ring and first chunks */
    if (monitor_settings_of(s)->counters)
        run += e.ports * NPRIO * sizeof(struct port_ctr); /* net.ctr */
    e.flows = all_flows;
    /* The whole routing table exists only while it is computed, before the network is set up; then only its
     * distinct rows are kept (routing.c), which in the regular fabrics is next to nothing. */
    e.total_bytes = e.nodes * 256 + (e.routing_bytes > run ? e.routing_bytes : run);
    return e;
}

/* MemAvailable from /proc/meminfo in bytes, or -1. */
static int64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

/*
 * Address space the process may still map under RLIMIT_AS (`ulimit -v`), or -1 when unlimited.  The limit
 * counts every mapping, so what the process maps already (its libraries, malloc's arenas, the VmSize of
 * /proc/self/statm) is not left for the network.
 */
static int64_t rlimit_left(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    double used = (double)pages * (double)sysconf(_SC_PAGESIZE);
    double left = (double)rl.rlim_cur - used;
    return left <= 0 ? 0 : left >= (double)INT64_MAX ? INT64_MAX : (int64_t)left;
}

int limits_mem_available(struct mem_avail *out, char *err, size_t errlen)
{
    out->bytes = -1;
    out->source = MEM_SRC_NONE;
    const char *env = getenv("ROCESIM_MEM_AVAILABLE");
    if (env && *env) {
        char why[160];
        if (units_parse_size(env, &out->bytes, why, sizeof why)) {
            snprintf(err, errlen, "$ROCESIM_MEM_AVAILABLE: %s", why);
            scn_one_line(err);
            out->bytes = -1;
            return SCN_EUSAGE;
        }
        out->source = MEM_SRC_ENV;
    } else if ((out->bytes = meminfo_available()) >= 0) {
        out->source = MEM_SRC_MEMINFO;
    }
    int64_t left = rlimit_left();
    if (left >= 0 && (out->bytes < 0 || left < out->bytes)) {
        out->bytes = left;
        out->source = MEM_SRC_RLIMIT;
    }
    return 0;
}

/* Sizes in messages: GB with no decimals from 10 GB up, else one decimal (MB below 1 GB). */
static void human_bytes(double b, char *buf, size_t len)
{
    if (b >= 10e9)
        snprintf(buf, len, "%.0f GB", b / 1e9);
    else if (b >= 1e9)
        snprintf(buf, len, "%.1f GB", b / 1e9);
    else
        snprintf(buf, len, "%.0f MB", b / 1e6);
}

int limits_check_memory(const struct scenario *s, char *err, size_t errlen)
{
    struct mem_avail avail;
    if (limits_mem_available(&avail, err, errlen))
        return SCN_EUSAGE;
    if (avail.bytes < 0)
        return 0;
    struct mem_estimate e = limits_estimate_memory(s);
    if (e.total_bytes <= (double)avail.bytes)
        return 0;
    char label[96], need[32], rt[32], have[96], fl[32];
    topo_label(s, label, sizeof label); /* "fat-tree k=200", "star with 17 hosts" */
    human_bytes(e.total_bytes, need, sizeof need);
    human_bytes(e.routing_bytes, rt, sizeof rt);
    human_bytes((double)avail.bytes, fl, sizeof fl);
    if (avail.source == MEM_SRC_RLIMIT)
        snprintf(have, sizeof have, "the address-space limit (ulimit -v) leaves %s", fl);
    else
        snprintf(have, sizeof have, "this machine has %s available%s", fl,
                 avail.source == MEM_SRC_ENV ? " ($ROCESIM_MEM_AVAILABLE)" : "");
    /* Blame the poisson load when its flows are most of the memory: a bigger machine is not the fix there. */
    if (e.poisson_entry >= 0 && e.poisson_entry_flows * 2 > e.flows && e.flow_bytes * 2 > e.total_bytes) {
        char span[32];
        units_fmt_time(e.poisson_entry_span, span, sizeof span);
        human_bytes(e.flow_bytes, fl, sizeof fl);
        snprintf(err, errlen, "%s: traffic.%d: a %s load of mean flow size %.4g B over %s on %s starts about "
                 "%.0f flows, which need about %s of memory (%s in all); %s", s->file, e.poisson_entry,
                 scn_traffic_kind_name(&s->traffic[e.poisson_entry]), e.poisson_entry_mean, span, label, e.poisson_entry_flows, fl, need, have);
    } else {
        snprintf(err, errlen, "%s: topology: %s needs about %s of memory (routing tables %s, %.0f flows); %s",
                 s->file, label, need, rt, e.flows, have);
    }
    return SCN_EUSAGE;
}

static double wall_deadline; /* CLOCK_MONOTONIC seconds; 0: none */
static char wall_text[48];

void limits_set_max_wall(double seconds, const char *text)
{
    wall_deadline = seconds > 0 ? mono_now() + seconds : 0;
    snprintf(wall_text, sizeof wall_text, "%s", text ? text : "");
}

/* Sets r->incomplete_reason when the run must stop now.  Returns true then. */
static bool must_halt(struct run *r)
{
    if (r->incomplete_reason[0])
        return true;
    int sig = sig_received();
    if (sig) {
        snprintf(r->incomplete_reason, sizeof r->incomplete_reason, "interrupted by %s",
                 sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
        return true;
    }
    if (wall_deadline > 0 && mono_now() >= wall_deadline) {
        snprintf(r->incomplete_reason, sizeof r->incomplete_reason, "max-wall %s reached", wall_text);
        return true;
    }
    return false;
}

#define SLICE_TARGET_S 0.02

uint64_t limits_sim_run(struct run *r, sim_time_t until)
{
    struct sim *s = &r->sim;
    /*
     * The slice is a span of simulated time, adapted so that each takes about SLICE_TARGET_S of wall
     * time: doubled after a quick slice, halved after a slow one.  It persists across calls because the
     * simulation's speed does.
     */
    static sim_time_t step = 1000000; /* 1 us */
    const struct sim_par_comm *C = net_comm(&r->net);
    if (!sig_installed() && wall_deadline <= 0 && !C)
        return sim_run(s, until); /* nothing can ask this run to stop early (library use, in-process tests) */
    uint64_t ev = 0;
    for (;;) {
        bool halt = must_halt(r);
        if (C) {
            /* over MPI ranks every rank must cut the same slices and stop at the same one: the longest step and
             * any rank's reason to stop */
            uint64_t v[2] = {halt, (uint64_t)step};
            C->max(C->ctx, v, 2);
            step = (sim_time_t)v[1];
            if (v[0] && !halt)
                snprintf(r->incomplete_reason, sizeof r->incomplete_reason, "stopped by another MPI rank");
            halt = v[0];
        }
        if (halt)
            return ev;
        sim_time_t end = until;
        if (s->now < until && until - s->now > step)
            end = s->now + step;
        double t0 = mono_now();
        ev += sim_run(s, end);
        double dt = mono_now() - t0;
        if (s->stop_requested || sim_pending_all(s) == 0 || s->now >= until)
            return ev;
        if (dt < SLICE_TARGET_S / 2 && step < INT64_MAX / 4)
            step *= 2;
        else if (dt > SLICE_TARGET_S * 2 && step > 1)
            step /= 2;
    }
}
