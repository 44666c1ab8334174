/* progress — the in-place progress line on stderr (see progress.h). */
#include "tools/run/progress.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"
#include "sim/mem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TARGET_EVENTS (1u << 16)
#define SHOW_EVERY_S 0.25

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The end of the slice it asks for: one that holds about 2^16 events. */
static sim_time_t progress_until(void *ctx, const struct run *r)
{
    const struct progress *p = ctx;
    return r->sim.now + p->slice_ps;
}

/* "12.3 ms" style time for the line. */
static void fmt_time(char *buf, size_t len, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.1f us", ns / 1e3);
}

const char *progress_format(char *buf, size_t len, sim_time_t now, sim_time_t stop, uint32_t done,
                            uint32_t flows, double events_per_s, double elapsed_s)
{
    double frac = stop > 0 ? (double)now / (double)stop : 0;
    double ffrac = flows ? (double)done / (double)flows : 0;
    if (ffrac > frac)
        frac = ffrac;
    if (frac > 1)
        frac = 1;
    char t[32], eta[32];
    fmt_time(t, sizeof t, (double)now / 1000.0);
    if (frac < 0.001) {
        snprintf(eta, sizeof eta, "?");
    } else {
        double s = elapsed_s * (1 - frac) / frac;
        if (s >= 3600)
            snprintf(eta, sizeof eta, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
        else if (s >= 60)
            snprintf(eta, sizeof eta, "%dm%02ds", (int)(s / 60), (int)s % 60);
        else
            snprintf(eta, sizeof eta, "%.0fs", s);
    }
    char fl[48];
    if (flows)
        snprintf(fl, sizeof fl, "%u/%u flows", done, flows);
    else
        snprintf(fl, sizeof fl, "%u flows done", done);
    snprintf(buf, len, "rocesim: %s simulated, %.1f%% done (%s), %.2f M events/s, ETA %s", t, frac * 100, fl,
             events_per_s / 1e6, eta);
    return buf;
}

static void show(struct progress *p, double now)
{
    const struct run *r = p->r;
    double dt = now - p->last_show;
    double eps = dt > 0 ? (double)(r->sim.events - p->events_at_show) / dt : 0;
    char line[256];
    /* While generators still create flows, the share of flows done says nothing about the end. */
    uint32_t flows = r->net.pending_sources ? 0 : r->net.n_flows;
    progress_format(line, sizeof line, r->sim.now, r->scn->stop_ps, r->net.flows_completed, flows, eps,
                    now - p->t0);
    int len = (int)strlen(line);
    /* One write per update, padded over the tail of a longer previous line. */
    char out[600];
    int k = snprintf(out, sizeof out, "\r%s%*s", line, p->shown > len ? p->shown - len : 0, "");
    fwrite(out, 1, (size_t)k, p->out);
    fflush(p->out);
    p->shown = len;
    p->last_show = now;
    p->events_at_show = r->sim.events;
}

/*
 * After each slice, with the events it ran; full when the slice ran to the end
 * progress_until asked for (its length then adapts).  Reads the clock only
 * every ~2^16 events and redraws the line when due.
 */
static void progress_after_slice(void *ctx, const struct run *r, uint64_t events, bool full)
{
    struct progress *p = ctx;
    if (full) {
        if (events < TARGET_EVENTS / 2 && p->slice_ps < (sim_time_t)PS_PER_S)
            p->slice_ps *= 2;
        else if (events > TARGET_EVENTS * 2 && p->slice_ps > 1000)
            p->slice_ps /= 2;
    }
    p->slices_since_check++;
    /* Slices cut short by sampling can be tiny: count them too, not only events. */
    if (r->sim.events - p->events_at_check < TARGET_EVENTS && p->slices_since_check < 1024)
        return;
    p->events_at_check = r->sim.events;
    p->slices_since_check = 0;
    double now = wall();
    if (now - p->t0 < p->first_after || (p->shown && now - p->last_show < SHOW_EVERY_S))
        return;
    show(p, now);
}

/* Erases the line (if one was drawn). */
static void progress_end(void *ctx, const struct run *r)
{
    struct progress *p = ctx;
    if (!p->shown)
        return;
    char out[600];
    int k = snprintf(out, sizeof out, "\r%*s\r", p->shown < 500 ? p->shown : 500, "");
    fwrite(out, 1, (size_t)k, p->out);
    fflush(p->out);
    p->shown = 0;
}

static const struct run_observer_ops progress_ops = {
    .name = "progress",
    .until = progress_until,
    .on_slice = progress_after_slice,
    .on_end = progress_end,
};

/* progress_init but for attaching p. */
static void prepare(struct progress *p, struct run *r, FILE *out)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->out = out;
    p->t0 = p->last_show = wall();
    p->events_at_check = p->events_at_show = r->sim.events;
    p->slice_ps = 1000000; /* 1 us: adapts within a few slices */
    p->first_after = 0.5;
    const char *d = getenv("ROCESIM_PROGRESS_DELAY");
    if (d && *d) {
        char *end;
        double v = strtod(d, &end);
        if (!*end && v >= 0)
            p->first_after = v;
    }
}

void progress_init(struct progress *p, struct run *r, FILE *out)
{
    prepare(p, r, out);
    run_observe(r, &progress_ops, p);
}

/* On where someone watches: stderr a terminal and no -q.  Not over MPI ranks, where the line's slices, which follow
 * the wall clock, would differ from rank to rank, and every rank must cut the same. */
static int progress_open(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                         char *err, size_t errlen)
{
    (void)watch, (void)err, (void)errlen;
    if (o->quiet || o->ranks || !isatty(STDERR_FILENO))
        return 0;
    struct progress *p = mem_xmalloc(sizeof *p, "the progress line");
    prepare(p, r, stderr);
    *ctx = p;
    return 0;
}

static void progress_close(void *ctx, bool whole)
{
    (void)whole;
    free(ctx);
}

static const struct observer_ops progress_observer = {
    .watch = &progress_ops, .open = progress_open, .close = progress_close,
};

MODULE_REGISTER(observer_kind, "progress", &progress_observer);
