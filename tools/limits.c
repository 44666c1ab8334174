/* limits — memory estimate, wall-clock limit and signals during a run (see limits.h). */
#include "tools/limits.h"
#include "sim/memest.h"
#include "sim/units.h"
#include "tools/signals.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Flows a traffic entry creates up front (Poisson sources create theirs over time: counted as none). */
static double entry_flows(const struct scn_traffic *t)
{
    double n = t->hosts.n;
    switch (t->type) {
    case TR_FLOW:
        return 1;
    case TR_INCAST:
        return t->senders.n;
    case TR_ALLTOALL:
        return n * (n - 1);
    case TR_ALLREDUCE:
        return 2 * n * (n - 1); /* reduce-scatter and all-gather steps, one flow per rank and step */
    case TR_POISSON:
    default:
        return 0;
    }
}

struct mem_estimate limits_estimate_memory(const struct scenario *s)
{
    const struct scn_topology *t = &s->topo;
    struct memest_counts mc = memest_topology(t, t->n_hosts);
    double hosts = mc.hosts, sw = mc.switches, links = mc.links;
    struct mem_estimate e;
    memset(&e, 0, sizeof e);
    e.hosts = hosts;
    e.nodes = hosts + sw;
    e.ports = 2 * links;
    for (int i = 0; i < s->n_traffic; i++)
        e.flows += entry_flows(&s->traffic[i]);
    e.routing_bytes = mc.routing_bytes;
    /* Packets come from a pool that grows with the traffic, not with the buffers' size (full buffers
     * everywhere at once do not happen): a few per port and a window's worth per flow. */
    double pkts = e.ports * 4 + e.flows * 64;
    double run = e.ports * (sizeof(struct port) + sizeof(struct port_aux) + NPRIO * sizeof(struct port_prio) + 64) +
                 e.flows * (sizeof(struct flow) + 64) +
                 pkts * sizeof(struct pkt) +
                 (e.ports + e.flows) * 3 * 64 + /* events: a few per port and flow, 48 B each in calendar chunks */
                 (double)(1u << SIM_RING_BITS) * 4 + 512 * 1024; /* the calendar's ring and first chunks */
    /* The whole routing table exists only while it is computed, before the network is set up; then only its
     * distinct rows are kept (routing.c), which in the regular fabrics is next to nothing. */
    e.total_bytes = e.nodes * 256 + (e.routing_bytes > run ? e.routing_bytes : run);
    return e;
}

int64_t limits_mem_available(void)
{
    const char *env = getenv("ROCESIM_MEM_AVAILABLE");
    if (env && *env) {
        int64_t b;
        char err[128];
        return units_parse_size(env, &b, err, sizeof err) ? -1 : b;
    }
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

/* "fat-tree k=200", "star with 17 hosts", ...: how the message names the topology. */
static void topo_label(const struct scn_topology *t, char *buf, size_t len)
{
    if (t->type == TOPO_FAT_TREE && t->k)
        snprintf(buf, len, "fat-tree k=%d", t->k);
    else
        snprintf(buf, len, "%s with %d hosts", scn_topo_type_name(t->type), t->n_hosts);
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
    int64_t avail = limits_mem_available();
    if (avail < 0)
        return 0;
    struct mem_estimate e = limits_estimate_memory(s);
    if (e.total_bytes <= (double)avail)
        return 0;
    char label[96], need[32], rt[32], have[32];
    topo_label(&s->topo, label, sizeof label);
    human_bytes(e.total_bytes, need, sizeof need);
    human_bytes(e.routing_bytes, rt, sizeof rt);
    human_bytes((double)avail, have, sizeof have);
    snprintf(err, errlen, "%s: topology: %s needs about %s of memory (routing tables %s, %.0f flows); this machine "
             "has %s available%s", s->file, label, need, rt, e.flows, have,
             getenv("ROCESIM_MEM_AVAILABLE") && *getenv("ROCESIM_MEM_AVAILABLE") ? " ($ROCESIM_MEM_AVAILABLE)" : "");
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
    if (!sig_installed() && wall_deadline <= 0)
        return sim_run(s, until); /* nothing can ask this run to stop early (library use, in-process tests) */
    uint64_t ev = 0;
    for (;;) {
        if (must_halt(r))
            return ev;
        sim_time_t end = until;
        if (s->now < until && until - s->now > step)
            end = s->now + step;
        double t0 = mono_now();
        ev += sim_run(s, end);
        double dt = mono_now() - t0;
        if (s->stop_requested || sim_pending(s) == 0 || s->now >= until)
            return ev;
        if (dt < SLICE_TARGET_S / 2 && step < INT64_MAX / 4)
            step *= 2;
        else if (dt > SLICE_TARGET_S * 2 && step > 1)
            step /= 2;
    }
}
