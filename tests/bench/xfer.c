/*
 * Case "xfer": what a frame costs when it crosses from one core to another, the number a partitioned engine's
 * speed-up depends on (docs/performance.md, "Sizing a partitioned engine").
 *
 * A frame here is 128 bytes, as the simulator's packet is two cache lines.  "Local": one thread writes a
 * window of W frames (the senders build them) and then reads them (their arrivals), from a pool larger than a
 * core's L2; the reads are timed.  "Across": the writer is one thread and the reader another, whose reads
 * are timed the same way (waits excluded); the difference is what crossing costs.  Each window of W
 * frames is handed over as a mailbox (W records of the frame's address and a 16-byte key), published with
 * one release store and taken with one acquire load, so the reader's loads of the frames' lines are the
 * transfers between the cores' caches that a partitioned engine would pay.  Two mailboxes alternate, so
 * the writer fills one while the reader empties the other, as partitions would in consecutive windows.
 * Also the cost of one barrier of the two threads, spinning.
 */
#include "tests/bench/bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XF_FRAME 128
#define XF_POOL (1u << 15) /* 4 MB of frames: beyond L2, as the frames of a loaded fabric are */
#define XF_WIN 1024        /* frames per window (a window of a 1 us lookahead holds thousands) */
#define XF_WINDOWS 4096

struct xf_rec {
    uint64_t hi, lo; /* the event's key */
    unsigned char *frame;
};

struct xf_box {
    _Alignas(64) atomic_uint_fast64_t seq; /* the window number published in it */
    struct xf_rec rec[XF_WIN];
};

static unsigned char *xf_frames;
static struct xf_box xf_box[2];
static _Alignas(64) atomic_uint_fast64_t xf_taken; /* windows the reader has finished with */
static uint64_t xf_sum;
static double xf_read_s; /* the reader's time reading frames, waits excluded */

static unsigned char *xf_frame(uint64_t i) { return xf_frames + (size_t)((i * 40503u) % XF_POOL) * XF_FRAME; }

static void xf_write(unsigned char *f, uint64_t i)
{
    for (int w = 0; w < XF_FRAME / 8; w++)
        ((uint64_t *)f)[w] = i + (uint64_t)w;
}

static uint64_t xf_read(const unsigned char *f)
{
    uint64_t s = 0;
    for (int w = 0; w < XF_FRAME / 8; w++)
        s += ((const uint64_t *)f)[w];
    return s;
}

static void *xf_reader(void *arg)
{
    (void)arg;
    uint64_t s = 0;
    for (uint64_t w = 1; w <= XF_WINDOWS; w++) {
        struct xf_box *b = &xf_box[w & 1];
        while (atomic_load_explicit(&b->seq, memory_order_acquire) != w)
            ;
        double t0 = now_s();
        for (int i = 0; i < XF_WIN; i++)
            s += xf_read(b->rec[i].frame) + b->rec[i].hi;
        xf_read_s += now_s() - t0;
        atomic_store_explicit(&xf_taken, w, memory_order_release);
    }
    xf_sum += s;
    return NULL;
}

static _Alignas(64) atomic_uint xf_bar_count;
static _Alignas(64) atomic_uint xf_bar_gen;

static void xf_barrier(void)
{
    unsigned g = atomic_load_explicit(&xf_bar_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&xf_bar_count, 1, memory_order_acq_rel) == 1) {
        atomic_store_explicit(&xf_bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&xf_bar_gen, g + 1, memory_order_release);
    } else {
        while (atomic_load_explicit(&xf_bar_gen, memory_order_acquire) == g)
            ;
    }
}

#define XF_BARRIERS 200000

static void *xf_barrier_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < XF_BARRIERS; i++)
        xf_barrier();
    return NULL;
}

void bench_xfer(void)
{
    xf_frames = aligned_alloc(64, (size_t)XF_POOL * XF_FRAME);
    if (!xf_frames) {
        fprintf(stderr, "bench: xfer: out of memory\n");
        exit(1);
    }
    memset(xf_frames, 0, (size_t)XF_POOL * XF_FRAME);
    const uint64_t n = (uint64_t)XF_WIN * XF_WINDOWS;

    /* local: write a window, then read it back, on one core; the reads timed apart */
    uint64_t s = 0;
    double local_read_s = 0;
    for (uint64_t w = 0; w < XF_WINDOWS; w++) {
        for (int i = 0; i < XF_WIN; i++)
            xf_write(xf_frame(w * XF_WIN + (uint64_t)i), w);
        double t0 = now_s();
        for (int i = 0; i < XF_WIN; i++)
            s += xf_read(xf_frame(w * XF_WIN + (uint64_t)i));
        local_read_s += now_s() - t0;
    }
    double local_ns = local_read_s / (double)n * 1e9;
    xf_sum += s;
    double t0;

    /* across: the writer here, the reader on another thread, a mailbox per window */
    pthread_t th;
    atomic_store(&xf_taken, 0);
    atomic_store(&xf_box[0].seq, 0);
    atomic_store(&xf_box[1].seq, 0);
    t0 = now_s();
    if (pthread_create(&th, NULL, xf_reader, NULL)) {
        fprintf(stderr, "bench: xfer: no second thread\n");
        exit(1);
    }
    for (uint64_t w = 1; w <= XF_WINDOWS; w++) {
        struct xf_box *b = &xf_box[w & 1];
        while (w > 2 && atomic_load_explicit(&xf_taken, memory_order_acquire) < w - 2)
            ; /* the reader still holds this mailbox's previous window */
        for (int i = 0; i < XF_WIN; i++) {
            unsigned char *f = xf_frame(w * XF_WIN + (uint64_t)i);
            xf_write(f, w);
            b->rec[i] = (struct xf_rec){w, (uint64_t)i, f};
        }
        atomic_store_explicit(&b->seq, w, memory_order_release);
    }
    pthread_join(th, NULL);
    double across_ns = xf_read_s / (double)n * 1e9;

    /* a barrier of two spinning threads */
    pthread_t bt;
    double bar_ns = 0;
    if (!pthread_create(&bt, NULL, xf_barrier_thread, NULL)) {
        t0 = now_s();
        for (int i = 0; i < XF_BARRIERS; i++)
            xf_barrier();
        bar_ns = (now_s() - t0) / XF_BARRIERS * 1e9;
        pthread_join(bt, NULL);
    }
    printf("%-28s frames=%-10llu read written here %5.1f ns/frame, written on the other core %5.1f: +%.1f ns per "
           "frame across (%d per window); barrier %.0f ns (check %llu)\n",
           "frames between cores", (unsigned long long)n, local_ns, across_ns, across_ns - local_ns, XF_WIN, bar_ns,
           (unsigned long long)(xf_sum & 0xff));
    free(xf_frames);
}
