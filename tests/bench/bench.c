/*
 * make bench — performance numbers (never a pass/fail test).
 *
 * Case "hold": the classic hold model for priority queues (Vaucher and
 * Duval, CACM 1975): keep N events pending; repeatedly pop the earliest and push
 * one at a random later time.  Reports hold operations per second.
 *
 * Whole runs: a 64-to-1 incast (PFC + DCQCN) and 32 long flows over a 40 Gbps
 * dumbbell bottleneck; packet-hops (frames put on a link) and events per
 * second of simulation (set-up excluded), peak RSS.
 *
 * Scale: fat-trees of k = 8, 16, 24 and 32 under the same per-host load
 * (WebSearch, 50%), each simulated for 100 us untimed (warm-up: the traffic
 * starts from nothing) and then timed over the next 100 us, so that every size
 * is measured at the same age of the same traffic.  The cost per packet-hop
 * over that window, and its ratio to k=8's, is the scaling figure.
 *
 * Building a k=32 fat-tree (8,192 hosts, 1,280 switches) with its
 * routing tables (target: under 5 s and 1 GB), and the time to recompute them
 * (what each link_down event costs); a dragonfly (a=8, p=4, h=4: 33 groups,
 * 1,056 hosts) under uniform random traffic with UGAL routing.
 *
 * Case "tune": a whole `rocesim tune` of the incast + background mix (five
 * parameters, 120 runs) with -j 2, so on both cores, each run a child
 * process as in a sweep: runs per second and wall time per run, the tuner's
 * own work included.  The only case that is not one core's number.
 *
 * PFC-heavy: a k=16 fat-tree (1,024 hosts) where every host sends one long flow at line rate to a random
 * other host (a permutation), with PFC and no congestion control: ECMP collisions keep hundreds of
 * thousands of frames waiting in paused buffers, so the cost per hop is the buffers' memory traffic.  The first
 * PAUSE comes at about 0.23 ms, so 0.4 ms run untimed and the next 0.1 ms are timed; the PAUSE frames sent per
 * simulated ms in that window are printed.
 *
 * Cases "rail_allreduce", "rail_servers" and "rail_1g": scenarios/ai/rail-16x8-fabric.json's ring all-reduce at
 * 1 GB, and scenarios/ai/rail-16x8.json's (servers inside) at 256 MB on 8 channels and at 1 GB with its steps
 * summarized (monitor.step_flows false, as nccl-tests runs it); their packet-hops per second against the
 * fat-tree cases' are printed after the table.
 *
 * Case "partition": how the HPCC fabric, k=8 and k=32 fat-trees and the dragonfly divide into 2, 4 and 8
 * partitions by load (topologies/partition.h), from the frames of a run of each (see report_partitions).
 *
 * BENCH_COUNTERS=1 runs the whole-run cases with monitor.counters on.
 *
 * --instructions [--cut TIME]: instead of timing, each whole-run case runs once under callgrind, cut at TIME of
 * simulated time after its own untimed warm-up (default 100us), counting the instructions of the timed part
 * (run_simulate), and the instructions per packet-hop and per event are printed: a count that the machine's
 * other tenants do not move, where wall time on a shared machine moves by a fifth from run to run
 * (docs/performance.md).  A timed run (make bench) ends with the same count of the cases in counted_cases, beside
 * their wall time per hop, and keeps it in bench.json ("instructions"); BENCH_INSTRUCTIONS=0 leaves it out,
 * BENCH_CUT=TIME sets its cut.
 *
 * Before and after the cases, the memory latency (dram_latency_ns): what the
 * large fabrics' numbers depend on, on a machine shared with others.
 */
#include "tests/bench/bench.h"
#include "sim/mem.h"
#include "sim/rng.h"
#include "sim/sim.h"
#include "sim/units.h"
#include "tools/common/text.h"
#include "tools/ops/htsim.h"
#include "tools/run/run.h"
#include "topologies/partition.h"
#include "topologies/routing.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct rng hold_rng;
static uint64_t hold_left;

static void hold_fn(struct sim *s, void *obj, uint64_t arg)
{
    if (hold_left) {
        hold_left--;
        /* uniform increments in [0, 2 us): mean 1 us */
        sim_after(s, 1 + (sim_time_t)rng_below(&hold_rng, 2000000), hold_fn, obj, arg);
    }
}

static void bench_hold(uint32_t pending, uint64_t ops)
{
    struct sim s;
    sim_init(&s);
    rng_init(&hold_rng, 1, rng_stream_id(RNG_KIND_TEST, 99));
    for (uint32_t i = 0; i < pending; i++)
        sim_at(&s, (sim_time_t)rng_below(&hold_rng, 2000000), hold_fn, NULL, i);
    /* warm-up: let the distribution of pending times reach its steady state */
    hold_left = (uint64_t)pending * 4;
    while (hold_left && sim_step(&s))
        ;
    hold_left = ops;
    double t0 = now_s();
    uint64_t done = 0;
    while (hold_left && sim_step(&s))
        done++;
    double dt = now_s() - t0;
    printf("%-28s pending=%-8u ops=%-10llu %8.3f s  %6.2f M hold ops/s\n", "event queue hold model",
           pending, (unsigned long long)done, dt, done / dt / 1e6);
    sim_free(&s);
}

/* What a whole-run case reports to the parent (through a pipe) besides its peak RSS. */
struct result {
    char label[64];
    double sim_ms, wall_s, setup_s, events, hops, hosts;
    double flows, completed, data_sent, fct_p99_ns;
    double extrapolate_s; /* > 0: wall time extrapolated to this much simulated time */
    double warm_ms;       /* > 0: the first warm_ms of simulated time were not timed (nor their hops counted) */
    double runs;          /* > 0: a tune case, that many runs (confirm_runs of them on the confirmation seeds) */
    double confirm_runs, cpu_s;
    double pauses;        /* PAUSE frames sent in the timed part */
    double windows;       /* the partitioned engine's windows (barriers) in the timed part, and its partitions */
    double parts;
};

static struct result last;

/* --instructions' child (--one): how much simulated time each run of the case runs after its warm-up; 0: the
 * case's own stop. */
static int64_t cut_ps;

/* Called, when set, with a whole run before it is freed (case partition). */
static void (*after_run)(const struct run *r);

static void bench_run_ex(const char *label, const char *json, double extrapolate_s, double warm_ms)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    double t0 = now_s();
    /* BENCH_COUNTERS=1: the same runs with monitor.counters on, for what counting costs (docs/performance.md). */
    const char *ctr = getenv("BENCH_COUNTERS");
    struct scn_override ov[2];
    int n_ov = 0;
    if (ctr && !strcmp(ctr, "1"))
        ov[n_ov++] = (struct scn_override){"monitor.counters", "true"};
    char stop[48];
    if (cut_ps) {
        snprintf(stop, sizeof stop, "%lldps", (long long)((int64_t)(warm_ms * 1e9) + cut_ps));
        ov[n_ov++] = (struct scn_override){"stop", stop};
    }
    if (scn_load_text(label, json, n_ov ? ov : NULL, n_ov, &scn, err, sizeof err) ||
        run_setup(&r, &scn, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    double setup = now_s() - t0;
    uint64_t hops0 = 0, events0 = 0, pauses0 = 0, windows0 = 0;
    if (warm_ms > 0) {
        sim_run(&r.sim, (sim_time_t)(warm_ms * 1e9));
        hops0 = r.net.c.packet_hops;
        events0 = r.sim.events;
        pauses0 = r.net.c.pause_frames;
        windows0 = r.par.windows;
    }
    if (run_execute(&r)) {
        fprintf(stderr, "bench: %s: invariant violated: %s\n", label, r.invariant_error);
        exit(1);
    }
    memset(&last, 0, sizeof last);
    snprintf(last.label, sizeof last.label, "%s", label);
    last.sim_ms = r.sim.now / 1e9 - warm_ms;
    last.warm_ms = warm_ms;
    last.wall_s = r.wall_s;
    last.setup_s = setup;
    last.events = (double)(r.sim.events - events0);
    last.hops = (double)(r.net.c.packet_hops - hops0);
    last.hosts = r.g.n_hosts;
    /* with steps summarized, a place is made again and again: the flows made are the steps and the other places */
    last.flows = r.net.recycle ? (double)(r.net.n_flows - r.net.step_places) + (double)r.net.steps_made
                               : r.net.n_flows;
    last.completed = r.net.flows_completed;
    last.data_sent = (double)r.net.c.data_sent;
    last.pauses = (double)(r.net.c.pause_frames - pauses0);
    last.windows = (double)(r.par.windows - windows0);
    last.parts = r.par.n;
    last.extrapolate_s = extrapolate_s;
    if (after_run)
        after_run(&r);
    char *js = run_summary_json(&r, false);
    const char *p99 = strstr(js, "\"p99\":");
    last.fct_p99_ns = p99 ? atof(p99 + 6) : 0;
    free(js);
    run_free(&r);
    scn_free(&scn);
}

static void bench_run(const char *label, const char *json) { bench_run_ex(label, json, 0, 0); }

/* Builds a fat-tree of arity k with its routing tables; prints build and recompute seconds and peak RSS. */
static void bench_fat_tree_build(int k)
{
    char json[512], err[SCN_ERR_MAX];
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"fat-tree\", \"k\": %d, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
             " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}", k);
    struct scenario scn;
    struct graph g;
    if (scn_load_text("fat-tree", json, NULL, 0, &scn, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    double t0 = now_s();
    if (topo_build(&scn, &g, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    double built = now_s() - t0;
    t0 = now_s();
    if (routing_compute(&g) < 0) {
        fprintf(stderr, "bench: out of memory recomputing routes\n");
        exit(1);
    }
    double again = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    char label[64];
    snprintf(label, sizeof label, "fat-tree k=%d build+routes", k);
    const struct g_routes *r = &g.routes;
    printf("%-28s hosts %u  switches %u  build %.2f s  recompute %.2f s  tables %.1f MB (%u distinct rows of %u)  "
           "peak RSS %.0f MB\n", label, g.n_hosts, g.n_switches, built, again,
           ((double)r->n_rows * r->n_cols * 4 + g.n_nodes * 4.0 + g.n_hosts * 12.0 + r->nh_len * 2.0) / 1e6, r->n_rows,
           g.n_nodes, ru.ru_maxrss / 1024.0);
    graph_free(&g);
    scn_free(&scn);
}

/* A dragonfly a=8, p=4, h=4 (1,056 hosts): every host sends 256 KB to a random other host, starts spread over 20 us. */
static void bench_dragonfly(void)
{
    enum { HOSTS = 8 * 4 * 33 };
    struct rng r;
    rng_init(&r, 1, rng_stream_id(RNG_KIND_TEST, 98));
    size_t cap = 128 * (size_t)HOSTS + 1024, len = 0;
    char *json = malloc(cap);
    if (!json)
        exit(1);
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"topology\": {\"type\": \"dragonfly\", \"a\": 8, \"p\": 4, \"h\": 4, \"routing\": \"ugal\","
                            " \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"},"
                            " \"local_link\": {\"rate\": \"100Gbps\", \"length\": \"5m\"},"
                            " \"global_link\": {\"rate\": \"100Gbps\", \"length\": \"50m\"}},"
                            " \"stop\": \"1s\", \"traffic\": [");
    for (uint32_t i = 0; i < HOSTS; i++) {
        uint32_t dst = rng_below(&r, HOSTS - 1);
        dst += dst >= i;
        len += (size_t)snprintf(json + len, cap - len,
                                "%s{\"type\": \"flow\", \"src\": \"h%u\", \"dst\": \"h%u\", \"size\": \"256KB\","
                                " \"start\": \"%uns\"}",
                                i ? ", " : "", i, dst, rng_below(&r, 20000));
    }
    snprintf(json + len, cap - len, "]}");
    bench_run("dragonfly 1056 hosts, UGAL", json);
    free(json);
}

static void case_incast(void)
{
    bench_run("incast 64-to-1, PFC+DCQCN",
              "{\"topology\": {\"type\": \"star\", \"hosts\": 65, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
              " \"switch\": {\"buffer\": \"12MB\"}, \"stop\": \"1s\","
              " \"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h63\", \"receiver\": \"h64\", \"size\": \"4MB\"}]}");
}

static void case_dumbbell(void)
{
    static char db[16384];
    int len = snprintf(db, sizeof db,
                       "{\"topology\": {\"type\": \"dumbbell\", \"left\": 32, \"right\": 32,"
                       " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"},"
                       " \"bottleneck\": {\"rate\": \"40Gbps\", \"delay\": \"1us\"}},"
                       " \"stop\": \"20ms\", \"traffic\": [");
    for (int i = 0; i < 32; i++)
        len += snprintf(db + len, sizeof db - (size_t)len,
                        "%s{\"type\": \"flow\", \"src\": \"h%d\", \"dst\": \"h%d\", \"size\": \"1GB\"}",
                        i ? ", " : "", i, 32 + i);
    snprintf(db + len, sizeof db - (size_t)len, "]}");
    bench_run("dumbbell, 32 flows over 40G", db);
}

/* WebSearch Poisson at 50% load on a fat-tree, DCQCN + PFC, for `ms` of simulated time (the first warm_ms untimed). */
/* The web-search load at 50 % on topo; cc: host.cc (NULL: the default, DCQCN), with DCTCP's step marking. */
static void websearch_cc(const char *label, const char *topo, double ms, double extrapolate_s, double warm_ms,
                         const char *cc)
{
    char json[1024], host[128] = "", ecn[128] = "";
    if (cc)
        snprintf(host, sizeof host, ", \"host\": {\"cc\": \"%s\"}", cc);
    if (cc && strcmp(cc, "dctcp") == 0)
        snprintf(ecn, sizeof ecn, ", \"ecn\": {\"kmin\": \"400KB\", \"kmax\": \"400KB\"}");
    snprintf(json, sizeof json,
             "{\"topology\": %s, \"switch\": {\"buffer\": \"32MB\"%s}%s, \"stop\": \"%gms\","
             " \"traffic\": [{\"type\": \"poisson\", \"hosts\": \"all\", \"load\": 0.5, \"size_cdf\": \"websearch\"}]}",
             topo, ecn, host, ms);
    bench_run_ex(label, json, extrapolate_s, warm_ms);
}

static void websearch(const char *label, const char *topo, double ms, double extrapolate_s, double warm_ms)
{
    websearch_cc(label, topo, ms, extrapolate_s, warm_ms, NULL);
}

#define L100 "{\"rate\": \"100Gbps\", \"delay\": \"1us\"}"
#define L400 "{\"rate\": \"400Gbps\", \"delay\": \"1us\"}"

static void case_k8(void)
{
    websearch("fat-tree k=8 WebSearch 50%", "{\"type\": \"fat-tree\", \"k\": 8, \"link\": " L100 "}", 2, 0, 0);
}

/* The k=8 case's load with selective repeat (a reordering window of 64), its data balanced by `lb`: what spraying
 * and adaptive routing cost per hop against ECMP on the same transport. */
static void case_k8_lb(const char *lb)
{
    char label[96], json[1024];
    snprintf(label, sizeof label, "fat-tree k=8 WebSearch 50%%, selective repeat, %s", lb);
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"fat-tree\", \"k\": 8, \"link\": " L100 "}, \"switch\": {\"buffer\": "
             "\"32MB\", \"load_balance\": \"%s\"}, \"host\": {\"loss_recovery\": \"selective\", \"selective\": "
             "{\"reorder\": 64}}, \"stop\": \"2ms\", \"traffic\": [{\"type\": \"poisson\", \"hosts\": \"all\", "
             "\"load\": 0.5, \"size_cdf\": \"websearch\"}]}",
             lb);
    bench_run_ex(label, json, 0, 0);
}
static void case_k8_ecmp(void) { case_k8_lb("ecmp"); }
static void case_k8_spray(void) { case_k8_lb("spray"); }
static void case_k8_adaptive(void) { case_k8_lb("adaptive"); }

/* The HPCC paper's fabric: 5 pods x (4 ToR + 4 agg), 16 hosts per ToR at 100G, 16 cores, 400G fabric. */
#define HPCC_FABRIC                                                                                                   \
    "{\"type\": \"fat-tree\", \"pods\": 5, \"tors_per_pod\": 4, \"aggs_per_pod\": 4, \"hosts_per_tor\": 16,"        \
    " \"cores\": 16, \"host_link\": " L100 ", \"fabric_link\": " L400 "}"

static void case_hpcc(void)
{
    websearch("HPCC 320-host WebSearch 50%", HPCC_FABRIC, 5, 0.2, 0);
}

/* The same fabric and load under each other congestion control: what each costs the simulator per hop. */
static void case_hpcc_cc(const char *cc)
{
    char label[64];
    snprintf(label, sizeof label, "HPCC 320-host WebSearch 50%%, %s", cc);
    websearch_cc(label, HPCC_FABRIC, 5, 0.2, 0, cc);
}
static void case_hpcc_hpcc(void) { case_hpcc_cc("hpcc"); }
static void case_hpcc_timely(void) { case_hpcc_cc("timely"); }
static void case_hpcc_dctcp(void) { case_hpcc_cc("dctcp"); }
static void case_hpcc_swift(void) { case_hpcc_cc("swift"); }

/* The scale series: 100 us untimed, then 100 us timed (see the top of this file). */
static void scale(int k)
{
    char label[64], topo[160];
    snprintf(label, sizeof label, "scale: fat-tree k=%d (%d hosts)", k, k * k * k / 4);
    snprintf(topo, sizeof topo, "{\"type\": \"fat-tree\", \"k\": %d, \"link\": " L100 "}", k);
    websearch(label, topo, 0.2, 0, 0.1);
}
static void case_s8(void) { scale(8); }
static void case_k16(void) { scale(16); }
static void case_k24(void) { scale(24); }
static void case_k32(void) { scale(32); }

/* The PFC-heavy case (see the top of this file): a random derangement of the 1,024 hosts, one flow each. */
static void case_pfc16(void)
{
    enum { K = 16, HOSTS = K * K * K / 4 };
    static uint32_t to[HOSTS];
    struct rng g;
    rng_init(&g, 16, rng_stream_id(RNG_KIND_TEST, 97));
    for (uint32_t i = 0; i < HOSTS; i++)
        to[i] = i;
    for (uint32_t i = HOSTS - 1; i > 0; i--) { /* Sattolo: one cycle, so no host sends to itself */
        uint32_t j = (uint32_t)rng_below(&g, i), t = to[i];
        to[i] = to[j];
        to[j] = t;
    }
    size_t cap = 128 * HOSTS + 512, len = 0;
    char *json = malloc(cap);
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"topology\": {\"type\": \"fat-tree\", \"k\": %d, \"link\": " L100 "}, \"host\": "
                            "{\"cc\": \"none\"}, \"stop\": \"0.5ms\", \"traffic\": [", K);
    for (uint32_t i = 0; i < HOSTS; i++)
        len += (size_t)snprintf(json + len, cap - len, "%s{\"type\": \"flow\", \"src\": \"h%u\", \"dst\": \"h%u\", "
                                "\"size\": \"100MB\"}", i ? ", " : "", i, to[i]);
    snprintf(json + len, cap - len, "]}");
    bench_run_ex("PFC-heavy: k=16 permutation, no CC", json, 0, 0.4);
    free(json);
}

/* The tune case (see the top of this file): the tune file, and -j 2 for the project's two cores. */
#define TUNE_NAME "incast-mix-short-flows"
#define TUNE_FILE "scenarios/tune/" TUNE_NAME ".json"
#define TUNE_JOBS 2

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The whole text of a file (NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *t = malloc(cap);
    while (t && (got = fread(t + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *n = realloc(t, cap *= 2);
            if (!n)
                free(t);
            t = n;
        }
    }
    fclose(f);
    if (t)
        t[len] = 0;
    return t;
}

/* The rows of tune.csv whose phase (its fourth column) is "confirm": runs the budget and runs_done do not count. */
static int confirm_rows(const char *csv)
{
    int n = 0;
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *f = l + 1;
        for (int c = 0; c < 3 && f; c++)
            if ((f = strpbrk(f, ",\n")) && *f++ == '\n')
                f = NULL;
        n += f && !strncmp(f, "confirm,", 8);
    }
    return n;
}

static void case_tune(void)
{
    if (access("./rocesim", X_OK) || access(TUNE_FILE, R_OK)) {
        fprintf(stderr, "bench: tune: needs ./rocesim and %s (run from the repository root after make)\n", TUNE_FILE);
        exit(1);
    }
    /* A fresh directory each time: a tune resumes from the runs it finds, and then would not run them. */
    char dir[] = "/tmp/rocesim-bench-tune-XXXXXX", out[64], jobs[16];
    if (!mkdtemp(dir)) {
        perror("bench: tune: mkdtemp");
        exit(1);
    }
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(jobs, sizeof jobs, "%d", TUNE_JOBS);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY); /* its summary would break up the bench's table */
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execl("./rocesim", "rocesim", "tune", TUNE_FILE, "-o", out, "-q", "-j", jobs, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    bool ok = pid > 0 && wait4(pid, &st, 0, &ru) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    double wall = now_s() - t0;
    char path[96];
    snprintf(path, sizeof path, "%s/best.json", out);
    char *best = ok ? slurp(path) : NULL;
    snprintf(path, sizeof path, "%s/tune.csv", out);
    char *csv = best ? slurp(path) : NULL;
    cJSON *bj = best ? cJSON_Parse(best) : NULL;
    const cJSON *rd = cJSON_GetObjectItemCaseSensitive(bj, "runs_done");
    memset(&last, 0, sizeof last);
    snprintf(last.label, sizeof last.label, "tune %s, -j %d", TUNE_NAME, TUNE_JOBS);
    last.wall_s = wall;
    last.confirm_runs = csv ? confirm_rows(csv) : 0;
    last.runs = (cJSON_IsNumber(rd) ? rd->valuedouble : 0) + last.confirm_runs;
    last.cpu_s = ok ? ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6
                    : 0;
    cJSON_Delete(bj);
    free(best);
    free(csv);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (!ok || last.runs <= 0) {
        fprintf(stderr, "bench: tune: ./rocesim tune %s failed (%s)\n", TUNE_FILE,
                !ok ? "exit status not 0" : "no runs_done in best.json");
        exit(1);
    }
}

/*
 * Case "partition": how well a fabric's load divides (topologies/partition.h), from the frames each port sent
 * in a run: for 2, 4 and 8 partitions, the largest partition's share of the load (1 / share bounds the
 * speed-up), the frames that cross a cut, the lookahead, and the speed-up the model of docs/performance.md
 * gives with 20 ns per crossing frame and this run's own cost per hop.
 */
static void report_partitions(const struct run *r)
{
    uint64_t *tx = malloc(sizeof *tx * (r->g.n_ports ? r->g.n_ports : 1));
    if (!tx)
        exit(1);
    for (uint32_t i = 0; i < r->g.n_ports; i++)
        tx[i] = r->net.ports[i].tx_frames;
    double hops = (double)r->net.c.packet_hops, t_hop = hops > 0 ? r->wall_s / hops * 1e9 : 0;
    printf("%-28s %.0f ns/hop in this run\n", r->scn->name, t_hop);
    for (int n = 2; n <= 8; n *= 2) {
        struct partition_plan p;
        if (partition_plan(&r->g, tx, n, &p)) {
            fprintf(stderr, "bench: partition: out of memory\n");
            exit(1);
        }
        double model = 1 / (p.max_share + p.cut_share * 20 / (t_hop > 0 ? t_hop : 1));
        printf("  %d partitions of %u units: largest %.1f %% of the load (at most %.2fx), %.1f %% of frames across, "
               "lookahead %.0f ns; model (20 ns a crossing) %.2fx\n",
               n, p.n_units, p.max_share * 100, 1 / p.max_share, p.cut_share * 100, p.lookahead_ps / 1e3, model);
        partition_free(&p);
        /* the plan a run makes, without the frames (loads from the nodes' ports), measured by the frames */
        if (partition_plan(&r->g, NULL, n, &p)) {
            fprintf(stderr, "bench: partition: out of memory\n");
            exit(1);
        }
        double load[PARTITION_MAX] = {0}, all = 0, cut = 0, max = 0;
        for (uint32_t gp = 0; gp < r->g.n_ports; gp++) {
            uint32_t a = p.part[r->g.ports[gp].node], b = p.part[r->g.ports[r->g.ports[gp].peer].node];
            load[a] += (double)tx[gp];
            load[b] += (double)tx[gp];
            all += (double)tx[gp];
            cut += a != b ? (double)tx[gp] : 0;
        }
        for (int k = 0; k < n; k++)
            max = load[k] > max ? load[k] : max;
        printf("    as a run plans it (without the frames): %u units, largest %.1f %%, %.1f %% of frames across\n",
               p.n_units, all > 0 ? max / (2 * all) * 100 : 0, all > 0 ? cut / all * 100 : 0);
        partition_free(&p);
    }
    free(tx);
}

static void case_partition(void)
{
    after_run = report_partitions;
    websearch("hpcc-fabric", HPCC_FABRIC, 1, 0, 0);
    websearch("fat-tree-k8", "{\"type\": \"fat-tree\", \"k\": 8, \"link\": " L100 "}", 2, 0, 0);
    bench_dragonfly();
    websearch("fat-tree-k32", "{\"type\": \"fat-tree\", \"k\": 32, \"link\": " L100 "}", 0.2, 0, 0);
    after_run = NULL;
}

/*
 * The AI cases: a rail scenario's first traffic entry, an all-reduce, alone (its other traffic and monitor
 * dropped) at `size`, with `set` (a key and a value, or NULL) given to it: long flows chained step by step, so
 * its cost per hop compares with the fat-tree cases' mixed WebSearch load.
 */
static void rail_case(const char *file, const char *label, const char *size, const char *key, int value,
                      bool summarized)
{
    char *text, err[SCN_ERR_MAX];
    cJSON *j = NULL, *tr;
    if (read_text_file(file, &text, err, sizeof err) == 0) {
        j = cJSON_Parse(text);
        free(text);
    }
    tr = j ? cJSON_GetObjectItemCaseSensitive(j, "traffic") : NULL;
    if (!cJSON_IsArray(tr) || !cJSON_IsObject(cJSON_GetArrayItem(tr, 0))) {
        fprintf(stderr, "bench: %s: cannot read its traffic\n", file);
        exit(1);
    }
    while (cJSON_GetArraySize(tr) > 1)
        cJSON_DeleteItemFromArray(tr, 1);
    cJSON *e = cJSON_GetArrayItem(tr, 0);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "size", cJSON_CreateString(size));
    if (key)
        cJSON_ReplaceItemInObjectCaseSensitive(e, key, cJSON_CreateNumber(value));
    cJSON_DeleteItemFromObjectCaseSensitive(j, "monitor");
    if (summarized)
        cJSON_AddFalseToObject(cJSON_AddObjectToObject(j, "monitor"), "step_flows");
    cJSON_ReplaceItemInObjectCaseSensitive(j, "stop", cJSON_CreateString("1s"));
    char *json = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    bench_run(label, json);
    free(json);
}

/* scenarios/ai/rail-16x8-fabric.json (128 GPUs, each a NIC, rail-optimized, 400G, PFC + DCQCN): its ring
 * all-reduce (one ring per rail) at 1 GB. */
static void case_rail_allreduce(void)
{
    rail_case("scenarios/ai/rail-16x8-fabric.json", "rail 16x8 ring all-reduce 1 GB", "1GB", NULL, 0, false);
}

/* scenarios/ai/rail-16x8.json (the same fabric with each server's inside: PCIe, NVLink, NICs): its NCCL ring
 * all-reduce over the 128 GPUs at 256 MB on 8 channels, laid out as NCCL lays them (NVLink inside a server, one
 * rail between servers): most hops are a GPU's NVLink. */
static void case_rail_servers(void)
{
    rail_case("scenarios/ai/rail-16x8.json", "rail 16x8 servers inside, all-reduce 256 MB", "256MB", "channels", 8,
              false);
}

/* The same at 1 GB with monitor.step_flows false, as `rocesim nccl-tests` runs it: a step's record is reused once
 * the step is done, so records stay as few as the steps in flight (docs/performance.md compares its speed). */
static void case_rail_1g(void)
{
    rail_case("scenarios/ai/rail-16x8.json", "rail 16x8 servers inside, all-reduce 1 GB, steps summarized", "1GB",
              "channels", 8, true);
}

/*
 * The partitioned engine (sim/parallel.h): the HPCC fabric, the k=8 WebSearch fat-tree, the k=32 scale case,
 * the dragonfly and the PFC-heavy case on 2 threads (this machine's cores) and, oversubscribed, 4 and 8; their
 * speed-up over the same case on one thread is printed after the table.
 */
#define ON_THREADS(name, fn, t)                                                                                    \
    static void name(void)                                                                                         \
    {                                                                                                              \
        run_set_threads(t);                                                                                        \
        fn();                                                                                                      \
    }
ON_THREADS(case_hpcc_t2, case_hpcc, 2)
ON_THREADS(case_hpcc_t4, case_hpcc, 4)
ON_THREADS(case_hpcc_t8, case_hpcc, 8)
ON_THREADS(case_k8_t2, case_k8, 2)
ON_THREADS(case_k8_t4, case_k8, 4)
ON_THREADS(case_k8_t8, case_k8, 8)
ON_THREADS(case_k32_t2, case_k32, 2)
ON_THREADS(case_k32_t4, case_k32, 4)
ON_THREADS(case_k32_t8, case_k32, 8)
ON_THREADS(case_dragonfly_t2, bench_dragonfly, 2)
ON_THREADS(case_dragonfly_t4, bench_dragonfly, 4)
ON_THREADS(case_dragonfly_t8, bench_dragonfly, 8)
ON_THREADS(case_pfc16_t2, case_pfc16, 2)
ON_THREADS(case_pfc16_t4, case_pfc16, 4)
ON_THREADS(case_pfc16_t8, case_pfc16, 8)

/*
 * Case "threads": what two threads give on this machine, as a user runs them.  2 ms of scenarios/hpcc-fabric.json
 * (web-search at 50 %) and the same at 30 %, each run on one thread and on two in alternation (the order flips every
 * round, so that a drift of the machine's speed falls on both), BENCH_REPEAT rounds (5 by default); the ratio of each
 * round's pair, their median and range.  Then the same with another process busy on one core (a loop of
 * arithmetic): two threads as they adapt, and two kept with --fixed-threads.  First, a check that the machine is
 * quiet: two threads of pure arithmetic against one (1.00 on two free cores).
 */
struct bcase {
    const char *name;
    void (*fn)(void);
    bool whole_run;
    unsigned workers; /* threads or processes it runs on at once (callgrind counts only the calling thread) */
};

/* The cases whose instructions a timed run (make bench) also counts (count_instructions), as wanted() reads it. */
static const char *const counted_cases = "incast64$,dumbbell32$,fattree_k8$,hpcc320$,fattree_k8_spray$,dragonfly$,"
                                         "rail_1g$,scale_k32$,uet_perm1024$,pfc_k16$";

static const char *thr_load = "0.5";
static unsigned thr_threads = 1;
static bool thr_adapt = true;

static void thr_run(void)
{
    struct scn_override ov[2] = {{"stop", "\"2ms\""}, {"traffic.0.load", thr_load}};
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    run_set_threads(thr_threads);
    run_set_adaptive(thr_adapt);
    if (scn_load("scenarios/hpcc-fabric.json", ov, 2, &scn, err, sizeof err) || run_setup(&r, &scn, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    if (run_execute(&r)) {
        fprintf(stderr, "bench: invariant violated: %s\n", r.invariant_error);
        exit(1);
    }
    memset(&last, 0, sizeof last);
    last.wall_s = r.wall_s;
    last.events = (double)r.sim.events;
    last.windows = (double)r.par.serial_windows; /* here: the windows that ran on one thread */
    last.parts = (double)r.par.windows;
    run_free(&r);
    scn_free(&scn);
}

static int run_case(const struct bcase *c, struct result *r, double *rss_mb);

static struct result thr_timed(unsigned threads, bool adapt)
{
    thr_threads = threads;
    thr_adapt = adapt;
    struct bcase c = {"threads", thr_run, true, threads};
    struct result r;
    double rss;
    if (run_case(&c, &r, &rss)) {
        fprintf(stderr, "bench: threads: a run failed\n");
        exit(1);
    }
    return r;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds of CPU-bound arithmetic on each of `threads` threads at once (the slowest), for the quiet check. */
static void *spin_work(void *arg)
{
    volatile double x = 1;
    for (long i = 0; i < 150000000L; i++)
        x = x * 1.0000001 + 1e-9;
    (void)arg;
    return NULL;
}

static double spin_threads(int threads)
{
    pthread_t th[2];
    double t0 = now_s();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, spin_work, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return now_s() - t0;
}

static pid_t start_hog(void)
{
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        /* dies with the bench, even when a failed run exits it before the hog is killed */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        volatile double x = 1;
        for (;;)
            x = x * 1.0000001 + 1e-9;
    }
    return pid;
}

/* The median and range of v[0..n-1] (n <= 100). */
static void spread(const double *v, int n, double *med, double *lo, double *hi)
{
    double s[100];
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, by_double);
    *med = s[n / 2];
    *lo = s[0];
    *hi = s[n - 1];
}

static void thr_series(const char *what, int rounds, bool busy)
{
    double ratio[100], one[100], two[100], fixed[100], share[100];
    pid_t hog = busy ? start_hog() : 0;
    for (int k = 0; k < rounds; k++) {
        struct result a, b, f = {0};
        if (k % 2) {
            b = thr_timed(2, true);
            a = thr_timed(1, true);
        } else {
            a = thr_timed(1, true);
            b = thr_timed(2, true);
        }
        if (busy)
            f = thr_timed(2, false);
        one[k] = a.wall_s;
        two[k] = b.wall_s;
        ratio[k] = a.wall_s / b.wall_s;
        share[k] = b.parts > 0 ? b.windows / b.parts : 0;
        fixed[k] = busy ? a.wall_s / f.wall_s : 0;
    }
    if (hog) {
        kill(hog, SIGKILL);
        waitpid(hog, NULL, 0);
    }
    double m, lo, hi, m1, lo1, hi1, m2, lo2, hi2;
    spread(ratio, rounds, &m, &lo, &hi);
    spread(one, rounds, &m1, &lo1, &hi1);
    spread(two, rounds, &m2, &lo2, &hi2);
    printf("%-36s speed-up on 2 threads: median %.2f, range %.2f-%.2f over %d alternating pairs (1 thread %.2f-%.2f s, "
           "2 threads %.2f-%.2f s)\n", what, m, lo, hi, rounds, lo1, hi1, lo2, hi2);
    spread(share, rounds, &m, &lo, &hi);
    printf("%-36s windows the 2 threads ran on one: median %.0f %%, range %.0f-%.0f %%\n", "", m * 100, lo * 100,
           hi * 100);
    if (busy) {
        spread(fixed, rounds, &m, &lo, &hi);
        printf("%-36s --fixed-threads against one thread: median %.2f, range %.2f-%.2f\n", "", m, lo, hi);
    }
}

static void case_threads(void)
{
    const char *rep = getenv("BENCH_REPEAT");
    int rounds = rep && atoi(rep) > 0 && atoi(rep) <= 100 ? atoi(rep) : 5;
    double t1 = spin_threads(1), t2 = spin_threads(2);
    printf("quiet check: two threads of arithmetic at once take %.2f x one's time (1.00: two free cores)\n", t2 / t1);
    thr_load = "0.5";
    thr_series("HPCC fabric, web-search 50 %, 2 ms", rounds, false);
    thr_load = "0.3";
    thr_series("HPCC fabric, web-search 30 %, 2 ms", rounds, false);
    thr_load = "0.5";
    thr_series("the same 50 %, one core busy", rounds, true);
}

/*
 * The UEC reference simulator's 1,024-host permutation of 2 MB flows (scenarios/uet-htsim/, its shipped matrix) on
 * its 1,024-host leaf-spine (32 leaves of 32 hosts, 32 spines) at 400 Gbps, imported as its users run it: UET,
 * NSCC, mixed balancing over 128 entropy values, trimming (docs/performance.md compares the reference's time on it).
 */
static void case_uet_perm(void)
{
    static const char topo[] = "Nodes 1024\nTiers 2\nPodsize 1024\n\nTier 0\nDownlink_speed_Gbps 400\nRadix_Down 32\n"
                               "Radix_Up 32\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n\nTier 1\n"
                               "Downlink_speed_Gbps 400\nRadix_Down 32\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n";
    char *cm, err[SCN_ERR_MAX], topo_text[sizeof topo];
    const char *path = "scenarios/uet-htsim/connection_matrices/perm_1024n_1024c_0u_2000000b.cm";
    if (read_text_file(path, &cm, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    memcpy(topo_text, topo, sizeof topo);
    char *argv[] = {"-tm", (char *)path, "-topo", "leaf_spine_1024_400g.topo", "-linkspeed", "400000",
                    "-sender_cc_only", "-end", "1000", "-paths", "128"};
    struct cJSON *scn = NULL;
    struct sbuf notes = {0};
    if (htsim_import_texts(sizeof argv / sizeof *argv, argv, cm, topo_text, &scn, &notes, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    char *json = cJSON_PrintUnformatted(scn);
    bench_run_ex("UET 1024-host 400G leaf-spine permutation, 2 MB", json, 0, 0);
    free(json);
    cJSON_Delete(scn);
    free(notes.p);
    free(cm);
}

static void case_hold100k(void) { bench_hold(100000, 20000000); }
static void case_hold1k(void) { bench_hold(1000, 20000000); }
static void case_build32(void) { bench_fat_tree_build(32); }

static const struct bcase cases[] = {
    {"hold100k", case_hold100k, false, 1},     {"hold1k", case_hold1k, false, 1},   {"incast64", case_incast, true, 1},
    {"dumbbell32", case_dumbbell, true, 1},    {"fattree_k8", case_k8, true, 1},    {"hpcc320", case_hpcc, true, 1},
    {"fattree_k8_sr", case_k8_ecmp, true, 1}, {"fattree_k8_spray", case_k8_spray, true, 1},
    {"fattree_k8_adaptive", case_k8_adaptive, true, 1},
    {"dragonfly", bench_dragonfly, true, 1},   {"rail_allreduce", case_rail_allreduce, true, 1},
    {"rail_servers", case_rail_servers, true, 1},       {"rail_1g", case_rail_1g, true, 1},
    {"scale_k8", case_s8, true, 1},      {"scale_k16", case_k16, true, 1},
    {"scale_k24", case_k24, true, 1},          {"scale_k32", case_k32, true, 1},    {"build_k32", case_build32, false, 1},
    {"tune", case_tune, true, TUNE_JOBS},             {"uet_perm1024", case_uet_perm, true, 1},
    {"hpcc320_hpcc", case_hpcc_hpcc, true, 1}, {"hpcc320_timely", case_hpcc_timely, true, 1},
    {"hpcc320_dctcp", case_hpcc_dctcp, true, 1}, {"hpcc320_swift", case_hpcc_swift, true, 1},
    {"pfc_k16", case_pfc16, true, 1},          {"xfer", bench_xfer, false, 1},    {"partition", case_partition, false, 1},
    {"hpcc320_t2", case_hpcc_t2, true, 2},     {"hpcc320_t4", case_hpcc_t4, true, 4}, {"hpcc320_t8", case_hpcc_t8, true, 8},
    {"fattree_k8_t2", case_k8_t2, true, 2},    {"fattree_k8_t4", case_k8_t4, true, 4}, {"fattree_k8_t8", case_k8_t8, true, 8},
    {"scale_k32_t2", case_k32_t2, true, 2},    {"scale_k32_t4", case_k32_t4, true, 4}, {"scale_k32_t8", case_k32_t8, true, 8},
    {"dragonfly_t2", case_dragonfly_t2, true, 2}, {"dragonfly_t4", case_dragonfly_t4, true, 4},
    {"dragonfly_t8", case_dragonfly_t8, true, 8}, {"pfc_k16_t2", case_pfc16_t2, true, 2},
    {"pfc_k16_t4", case_pfc16_t4, true, 4},    {"pfc_k16_t8", case_pfc16_t8, true, 8},
    {"threads", case_threads, false, 1},
};

/*
 * The machine's memory latency right now: nanoseconds per dependent load
 * over a random cycle through 128 MB on huge pages (as the simulator's large
 * arrays are).  On a shared machine it moves with the other tenants' load,
 * and the large fabrics' cost per hop moves with it (the small ones stay in
 * cache); printed so that numbers taken at different times can be compared.
 */
static double dram_latency_ns(void)
{
    const size_t lines = (128u << 20) / 64;
    char *m = mem_alloc_big(lines * 64);
    uint32_t *order = malloc(lines * sizeof *order);
    if (!m || !order) {
        free(m);
        free(order);
        return 0;
    }
    struct rng g;
    rng_init(&g, 7, rng_stream_id(RNG_KIND_TEST, 98));
    for (size_t i = 0; i < lines; i++)
        order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) { /* Sattolo: one cycle through every line */
        size_t j = rng_below(&g, i);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
        *(char **)(m + (size_t)order[i] * 64) = m + (size_t)order[(i + 1) % lines] * 64;
    free(order);
    const size_t steps = 4000000;
    char *p = m;
    double t0 = now_s();
    for (size_t i = 0; i < steps; i++)
        p = *(char *volatile *)p;
    double ns = (now_s() - t0) / steps * 1e9;
    free(m);
    return ns;
}

/*
 * Runs case c in a child process, so that its peak RSS is its own (wait4's
 * rusage); a whole run's result comes back through a pipe.  Returns 0, or -1
 * when the child failed.
 */
static int run_case(const struct bcase *c, struct result *r, double *rss_mb)
{
    fflush(stdout);
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        c->fn();
        if (c->whole_run && write(fd[1], &last, sizeof last) != sizeof last)
            _exit(1);
        fflush(stdout);
        _exit(0);
    }
    close(fd[1]);
    memset(r, 0, sizeof *r);
    ssize_t got = read(fd[0], r, sizeof *r);
    close(fd[0]);
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || (c->whole_run && got != (ssize_t)sizeof *r))
        return -1;
    *rss_mb = ru.ru_maxrss / 1024.0;
    return 0;
}

/* Prints the tune case's row (and its JSON object when js is open): runs per second of the whole command. */
static void print_tune(const struct bcase *c, const struct result *r, double rss, FILE *js, bool first)
{
    printf("%-36s runs %4.0f  wall %7.3f s  %6.1f runs/s  %6.1f ms/run  CPU %.2f s (%.2f cores)  RSS %6.0f MB\n",
           r->label, r->runs, r->wall_s, r->runs / r->wall_s, r->wall_s / r->runs * 1e3, r->cpu_s,
           r->cpu_s / r->wall_s, rss);
    if (js)
        fprintf(js,
                "%s  {\"case\": \"%s\", \"label\": \"%s\", \"tune_file\": \"%s\", \"jobs\": %d, \"runs\": %.0f,"
                " \"confirm_runs\": %.0f, \"wall_s\": %.4f, \"runs_per_s\": %.3f, \"ms_per_run\": %.3f,"
                " \"cpu_s\": %.4f, \"peak_rss_mb\": %.1f}",
                first ? "" : ",\n", c->name, r->label, TUNE_FILE, TUNE_JOBS, r->runs, r->confirm_runs, r->wall_s,
                r->runs / r->wall_s, r->wall_s / r->runs * 1e3, r->cpu_s, rss);
}

/* Prints a whole run's row (and its JSON object when js is open). */
static void print_whole(const struct bcase *c, const struct result *r, double rss, FILE *js, bool first,
                        double scale_k8_ns)
{
    if (r->runs > 0) {
        print_tune(c, r, rss, js, first);
        return;
    }
    printf("%-36s sim %8.3f ms  wall %7.3f s (+%.2f s setup)  %6.2f M ev/s  %6.2f M hops/s  %5.0f ns/hop  RSS %6.0f MB",
           r->label, r->sim_ms, r->wall_s, r->setup_s, r->events / r->wall_s / 1e6, r->hops / r->wall_s / 1e6,
           r->wall_s / r->hops * 1e9, rss);
    if (r->warm_ms > 0)
        printf("  (after %.1f ms untimed)", r->warm_ms);
    if (r->extrapolate_s > 0)
        printf("  -> %.1f min for %.1f s simulated", r->wall_s / (r->sim_ms / 1e3) * r->extrapolate_s / 60,
               r->extrapolate_s);
    printf("\n%-36s flows %.0f/%.0f  data packets %.0f  FCT p99 %.0f ns  RSS/host %.1f KB", "", r->completed,
           r->flows, r->data_sent, r->fct_p99_ns, rss * 1024 / (r->hosts > 0 ? r->hosts : 1));
    if (r->pauses > 0)
        printf("  PAUSE %.0f per simulated ms", r->pauses / r->sim_ms);
    if (r->parts > 1 && r->windows > 0)
        printf("\n%-36s %.0f partitions: %.1f windows per simulated us, %.0f events per window", "", r->parts,
               r->windows / (r->sim_ms * 1e3), r->events / r->windows);
    printf("\n");
    if (!strcmp(c->name, "scale_k32") && scale_k8_ns > 0)
        printf("%-36s cost per packet-hop k=32 / k=8: %.2f (target <= 2)\n", "",
               r->wall_s / r->hops * 1e9 / scale_k8_ns);
    if (js)
        fprintf(js,
                "%s  {\"case\": \"%s\", \"label\": \"%s\", \"sim_ms\": %.6f, \"wall_s\": %.4f, \"setup_s\": %.4f,"
                " \"events\": %.0f, \"packet_hops\": %.0f, \"events_per_s\": %.0f, \"packet_hops_per_s\": %.0f,"
                " \"ns_per_hop\": %.1f, \"peak_rss_mb\": %.1f, \"hosts\": %.0f, \"flows\": %.0f,"
                " \"flows_completed\": %.0f, \"data_packets\": %.0f, \"fct_p99_ns\": %.3f,"
                " \"extrapolated_wall_s\": %.1f, \"extrapolated_to_sim_s\": %.3f, \"warm_up_ms\": %.3f}",
                first ? "" : ",\n", c->name, r->label, r->sim_ms, r->wall_s, r->setup_s, r->events, r->hops,
                r->events / r->wall_s, r->hops / r->wall_s, r->wall_s / r->hops * 1e9, rss, r->hosts, r->flows,
                r->completed, r->data_sent, r->fct_p99_ns,
                r->extrapolate_s > 0 ? r->wall_s / (r->sim_ms / 1e3) * r->extrapolate_s : 0, r->extrapolate_s,
                r->warm_ms);
}

#define N_CASES (sizeof cases / sizeof *cases)

/* Whether case c is run: its name contains the filter or one of its comma-separated parts (a part NAME$: is
 * NAME), when there is one, and it is of the kind asked for. */
static bool wanted(const struct bcase *c, const char *only, bool whole_run)
{
    if (c->whole_run != whole_run)
        return false;
    if (!only)
        return true;
    for (const char *p = only; *p;) {
        size_t len = strcspn(p, ",");
        if (len > 1 && p[len - 1] == '$') { /* NAME$: that case alone */
            if (strlen(c->name) == len - 1 && !strncmp(c->name, p, len - 1))
                return true;
        } else {
            for (const char *h = c->name; *h; h++)
                if (len && !strncmp(h, p, len))
                    return true;
        }
        p += len + (p[len] == ',');
    }
    return false;
}

/*
 * bench [--repeat N] [FILTER]: runs the cases whose name contains FILTER, or
 * one of its comma-separated parts, or is a part written NAME$ (all by default).
 * Whole runs are run N times (3 by default) in interleaved rounds, keeping each one's fastest: on a shared machine the fastest run is
 * the one least disturbed by others, and interleaving spreads every case's
 * runs over the same stretch of time, so that a busy minute cannot fall on
 * the runs of one case only (which skewed the k=32 / k=8 ratio).  Writes
 * the table to stdout and build/bench.json (build/bench-FILTER.json for a
 * filtered run, so that it does not replace the whole suite's file).
 */
/* --one NAME: case NAME cut at `cut`, its hops and events on stdout for count_instructions. */
static int cut_child(const char *name, const char *cut)
{
    for (size_t i = 0; i < N_CASES; i++)
        if (!strcmp(cases[i].name, name) && cases[i].whole_run) {
            char err[256];
            if (units_parse_time(cut, &cut_ps, err, sizeof err) || cut_ps <= 0) {
                fprintf(stderr, "bench: --cut: expected a time like \"100us\", got \"%s\"\n", cut);
                return 2;
            }
            cases[i].fn();
            printf("cut %s hops %.0f events %.0f sim_ms %.6f\n", name, last.hops, last.events, last.sim_ms);
            return last.hops > 0 ? 0 : 1;
        }
    fprintf(stderr, "bench: --one: no whole-run case %s\n", name);
    return 2;
}

/* The total a callgrind output file states ("summary:" or "totals:"), or -1. */
static double callgrind_total(const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    char line[512];
    double total = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))
            total = atof(strchr(line, ':') + 1);
    fclose(f);
    return total;
}

/*
 * --instructions: each wanted whole-run case once, cut at `cut` after its warm-up, in a child under callgrind that
 * counts the timed run's instructions; a table of instructions per packet-hop and per event.  Callgrind runs the
 * case about fifty times slower than it runs alone.
 */
static int count_instructions(const char *only, const char *cut, const struct result *best, FILE *js)
{
    if (system("valgrind --version >/dev/null 2>&1")) {
        fprintf(stderr, "bench: counting instructions needs valgrind (Debian package valgrind, which make bench installs)\n");
        return 2;
    }
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        fprintf(stderr, "bench: cannot find its own executable\n");
        return 1;
    }
    self[sl] = 0;
    int64_t ps;
    char err[256];
    if (units_parse_time(cut, &ps, err, sizeof err) || ps <= 0) {
        fprintf(stderr, "bench: --cut: expected a time like \"100us\", got \"%s\"\n", cut);
        return 2;
    }
    printf("%s: each case's %s after its own untimed warm-up, instructions of the timed run (run_simulate, "
           "callgrind)%s\n", best ? "instructions" : "rocesim bench --instructions", cut,
           best ? "; wall ns/hop: the table's above" : "");
    printf("%-22s %9s %12s %12s %14s %9s %9s %8s%s\n", "case", "sim ms", "packet-hops", "events", "instructions",
           "per hop", "per event", "ev/hop", best ? "  wall ns/hop" : "");
    bool first = true;
    for (size_t i = 0; i < N_CASES; i++) {
        if (!wanted(&cases[i], only, true) || (best && (!wanted(&cases[i], counted_cases, true) || best[i].hops <= 0)))
            continue;
        if (cases[i].workers > 1) {
            printf("%-22s (not counted: runs on %u threads or processes, of which callgrind counts the calling "
                   "thread only)\n", cases[i].name, cases[i].workers);
            continue;
        }
        char out[256], txt[256], cmd[5200];
        snprintf(out, sizeof out, "build/bench-ir-%s.out", cases[i].name);
        snprintf(txt, sizeof txt, "build/bench-ir-%s.txt", cases[i].name);
        snprintf(cmd, sizeof cmd, "valgrind --tool=callgrind --toggle-collect=run_simulate --callgrind-out-file=%s "
                 "'%s' --one %s --cut '%s' >%s 2>build/bench-ir-%s.log", out, self, cases[i].name, cut, txt,
                 cases[i].name);
        fflush(stdout);
        int rc = system(cmd);
        char *t = NULL, rerr[SCN_ERR_MAX];
        if (rc != 0 || read_text_file(txt, &t, rerr, sizeof rerr))
            t = NULL;
        double hops = 0, events = 0, sim_ms = 0, ir = callgrind_total(out);
        const char *c = t ? strstr(t, "cut ") : NULL;
        if (!c || sscanf(c, "cut %*s hops %lf events %lf sim_ms %lf", &hops, &events, &sim_ms) != 3 || ir <= 0 ||
            hops <= 0) {
            printf("%-22s (no count: build/bench-ir-%s.log says why)\n", cases[i].name, cases[i].name);
            free(t);
            continue;
        }
        printf("%-22s %9.3f %12.0f %12.0f %13.1fM %9.1f %9.1f %8.3f", cases[i].name, sim_ms, hops, events,
               ir / 1e6, ir / hops, ir / events, events / hops);
        if (best)
            printf("  %12.1f", best[i].wall_s / best[i].hops * 1e9);
        printf("\n");
        if (js)
            fprintf(js, "%s  {\"case\": \"%s\", \"cut\": \"%s\", \"instructions\": %.0f, \"packet_hops\": %.0f, "
                    "\"events\": %.0f, \"instructions_per_hop\": %.1f, \"instructions_per_event\": %.1f}",
                    first ? "" : ",\n", cases[i].name, cut, ir, hops, events, ir / hops, ir / events);
        first = false;
        free(t);
        remove(out);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *only = NULL, *one = NULL, *cut = "100us";
    int repeat = 3;
    bool instructions = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--instructions")) {
            instructions = true;
        } else if (!strcmp(argv[a], "--cut") && a + 1 < argc) {
            cut = argv[++a];
        } else if (!strcmp(argv[a], "--one") && a + 1 < argc) {
            one = argv[++a];
        } else if (!strcmp(argv[a], "--repeat") && a + 1 < argc) {
            repeat = atoi(argv[++a]);
            if (repeat < 1 || repeat > 100) {
                fprintf(stderr, "bench: --repeat wants a count from 1 to 100, not %s\n", argv[a]);
                return 2;
            }
        } else if (argv[a][0] == '-' || only) {
            fprintf(stderr, "usage: bench [--repeat N] [FILTER]\n       bench --instructions [--cut TIME] [FILTER]\n");
            return 2;
        } else {
            only = argv[a];
        }
    }
    if (one)
        return cut_child(one, cut);
    if (instructions)
        return count_instructions(only, cut, NULL, NULL);
    printf("rocesim bench (one core, the tune case two; each case in its own process; whole runs: the fastest of %d, "
           "in interleaved rounds)\n", repeat);
    double lat_before = dram_latency_ns();
    printf("memory latency now: %.0f ns per random read over 128 MB (the large fabrics' cost per hop follows it)\n",
           lat_before);
    char jsname[256];
    snprintf(jsname, sizeof jsname, only ? "build/bench-%s.json" : "build/bench.json", only);
    FILE *js = fopen(jsname, "w");
    if (js)
        fprintf(js, "{\"dram_latency_ns_before\": %.1f, \"repeat\": %d,\n \"cases\": [\n", lat_before, repeat);
    int first = 1;
    /* The cases that print their own numbers (hold model, build) run once, first. */
    for (size_t i = 0; i < N_CASES; i++) {
        if (!wanted(&cases[i], only, false))
            continue;
        struct result r;
        double rss = 0;
        if (run_case(&cases[i], &r, &rss)) {
            fprintf(stderr, "bench: case %s failed\n", cases[i].name);
            return 1;
        }
        if (js)
            fprintf(js, "%s  {\"case\": \"%s\", \"peak_rss_mb\": %.1f}", first ? "" : ",\n", cases[i].name, rss);
        first = 0;
    }
    struct result best[N_CASES];
    double rss[N_CASES] = {0};
    for (int round = 0; round < repeat; round++) {
        for (size_t i = 0; i < N_CASES; i++) {
            if (!wanted(&cases[i], only, true))
                continue;
            struct result r;
            double rssk;
            if (run_case(&cases[i], &r, &rssk)) {
                fprintf(stderr, "bench: case %s failed\n", cases[i].name);
                return 1;
            }
            if (round == 0 || r.wall_s < best[i].wall_s)
                best[i] = r;
            if (rssk > rss[i])
                rss[i] = rssk;
        }
        if (repeat > 1)
            fprintf(stderr, "bench: round %d of %d done\n", round + 1, repeat);
    }
    double scale_k8_ns = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        if (!wanted(&cases[i], only, true))
            continue;
        if (!strcmp(cases[i].name, "scale_k8"))
            scale_k8_ns = best[i].wall_s / best[i].hops * 1e9;
        print_whole(&cases[i], &best[i], rss[i], js, first, scale_k8_ns);
        first = 0;
    }
    /* the AI cases' cost per hop against the fat-tree WebSearch cases', when both ran */
    for (size_t i = 0; i < N_CASES; i++) {
        if ((strcmp(cases[i].name, "rail_allreduce") && strcmp(cases[i].name, "rail_servers") &&
             strcmp(cases[i].name, "rail_1g")) ||
            !wanted(&cases[i], only, true) || best[i].hops <= 0)
            continue;
        for (size_t j = 0; j < N_CASES; j++)
            if ((!strcmp(cases[j].name, "fattree_k8") || !strcmp(cases[j].name, "hpcc320")) &&
                wanted(&cases[j], only, true) && best[j].hops > 0)
                printf("packet-hops/s, %s / %s: %.2f\n", cases[i].name, cases[j].name,
                       (best[i].hops / best[i].wall_s) / (best[j].hops / best[j].wall_s));
    }
    /* speed-ups: each case NAME_tN against NAME, when both ran */
    for (size_t i = 0; i < N_CASES; i++) {
        const char *t = strrchr(cases[i].name, '_');
        if (!t || t[1] != 't' || t[2] < '1' || t[2] > '9' || !wanted(&cases[i], only, true))
            continue;
        for (size_t j = 0; j < N_CASES; j++)
            if (strlen(cases[j].name) == (size_t)(t - cases[i].name) &&
                !strncmp(cases[j].name, cases[i].name, (size_t)(t - cases[i].name)) && wanted(&cases[j], only, true))
                printf("%-36s on %s threads: speed-up %.2f (%.3f s against %.3f s on one)\n", cases[j].name,
                       t + 2, best[j].wall_s / best[i].wall_s, best[i].wall_s, best[j].wall_s);
    }
    double lat_after = dram_latency_ns();
    printf("memory latency now: %.0f ns per random read over 128 MB\n", lat_after);
    /* Instructions beside wall time: a count the machine's other tenants do not move.  BENCH_INSTRUCTIONS=0: none. */
    const char *bi = getenv("BENCH_INSTRUCTIONS");
    if (js)
        fprintf(js, "\n],\n \"instructions\": [\n");
    bool any_counted = false;
    for (size_t i = 0; i < N_CASES; i++)
        any_counted |= wanted(&cases[i], only, true) && wanted(&cases[i], counted_cases, true);
    if (any_counted && !(bi && !strcmp(bi, "0"))) {
        const char *bc = getenv("BENCH_CUT");
        count_instructions(only, bc && *bc ? bc : cut, best, js);
    }
    if (js) {
        fprintf(js, "\n],\n \"dram_latency_ns_after\": %.1f}\n", lat_after);
        fclose(js);
        printf("written: %s\n", jsname);
    }
    return 0;
}
