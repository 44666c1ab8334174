/*
 * make bench — performance numbers (never a pass/fail test).
 *
 * Case "hold": the classic hold model for priority queues (Vaucher and
 * Duval, CACM 1975): keep N events pending; repeatedly pop the earliest and push
 * one at a random later time.  Reports hold operations per second.
 */
#include "sim/rng.h"
#include "sim/sim.h"

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

int main(void)
{
    printf("rocesim bench (one core)\n");
    bench_hold(100000, 20000000);
    bench_hold(1000, 20000000);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
    return 0;
}
