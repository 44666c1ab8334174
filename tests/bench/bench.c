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
 * Scale: building a k=32 fat-tree (8,192 hosts, 1,280 switches) with its
 * routing tables (target: under 5 s and 1 GB), and the time to recompute them
 * (what each link_down event costs); a dragonfly (a=8, p=4, h=4: 33 groups,
 * 1,056 hosts) under uniform random traffic with UGAL routing.
 */
#include "sim/rng.h"
#include "sim/sim.h"
#include "tools/run.h"
#include "topologies/routing.h"
#include "topologies/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
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

static void bench_run(const char *label, const char *json)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    if (scn_load_text(label, json, NULL, 0, &scn, err, sizeof err) || run_setup(&r, &scn, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    if (run_execute(&r)) {
        fprintf(stderr, "bench: %s: invariant violated: %s\n", label, r.invariant_error);
        exit(1);
    }
    printf("%-28s sim %8.3f ms  wall %6.3f s  %6.2f M events/s  %6.2f M packet-hops/s  flows %u/%u  pkts %llu\n",
           label, r.sim.now / 1e9, r.wall_s, r.sim.events / r.wall_s / 1e6, r.net.c.packet_hops / r.wall_s / 1e6,
           r.net.flows_completed, r.net.n_flows, (unsigned long long)r.net.c.data_sent);
    run_free(&r);
    scn_free(&scn);
}

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
    printf("%-28s hosts %u  switches %u  build %.2f s  recompute %.2f s  tables %.0f MB  peak RSS %.0f MB\n", label,
           g.n_hosts, g.n_switches, built, again,
           ((double)g.n_nodes * g.n_hosts * 4 + g.routes.nh_len * 2.0) / 1e6, ru.ru_maxrss / 1024.0);
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

int main(void)
{
    printf("rocesim bench (one core)\n");
    bench_hold(100000, 20000000);
    bench_hold(1000, 20000000);
    bench_run("incast 64-to-1 (PFC+DCQCN)",
              "{\"topology\": {\"type\": \"star\", \"hosts\": 65, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
              " \"switch\": {\"buffer\": \"12MB\"}, \"stop\": \"1s\","
              " \"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h63\", \"receiver\": \"h64\", \"size\": \"4MB\"}]}");
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
    bench_run("dumbbell 32 flows over 40G", db);
    bench_dragonfly();
    bench_fat_tree_build(32);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
    return 0;
}
