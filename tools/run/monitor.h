/*
 * monitor — the time series of a run (queues.csv, rates.csv, pfc.csv,
 * watchdog.csv, credits.csv), a run observer (tools/run/observer.h).
 *
 * The files are streamed while the run goes, so memory stays bounded however
 * long it is: each is written through a stdio buffer to a temporary name in the
 * output directory and renamed when the run is over.
 *
 * Sampling is not an event in the engine's queue: the monitor asks the run loop
 * (run_simulate) for a slice ending at each sample time and samples between
 * slices, so a monitored run is event for event the same as an unmonitored one
 * (tools/run/observer.h says why).  PFC frames and watchdog decisions come to it as
 * network events, when they happen.
 *
 * Rows:
 *  - queues.csv: every `interval` (t = 0, interval, 2 interval, ... up to the
 *    end of the run), one row per monitored switch egress port and per
 *    priority that carries traffic in the scenario: every traffic entry's
 *    priority, and host.cnp_priority when cc is dcqcn.  Rows = samples x
 *    ports x priorities.
 *  - rates.csv: at the same times, one row per monitored flow that has started
 *    and whose sender is not done yet.  monitor.flows "auto" (the default)
 *    monitors every flow when the run is expected to create at most
 *    MON_AUTO_FLOWS, else MON_AUTO_FLOWS flows spread evenly over the flow ids
 *    in creation order: flow i is taken when i * MON_AUTO_FLOWS / E steps to a
 *    new integer, E being the flows expected (those created up front, the
 *    collectives' flows and rate x duration for Poisson loads), and never more
 *    than MON_AUTO_FLOWS (a Poisson load that creates more than expected).  rate_gbps is the rate the sender paces
 *    at (DCQCN Rc, never above the flow's own rate cap; line rate or the cap
 *    with cc "none"), target_gbps the DCQCN target rate Rt (= rate_gbps with
 *    cc "none"), alpha the DCQCN alpha (empty with cc "none").
 *  - pfc.csv: one row per PAUSE or RESUME frame, at the time it is sent, by its
 *    sender (a PAUSE that refreshes a pause still in force is a row too).  With
 *    monitor.pfc "all" every frame is a row, so the row counts equal
 *    summary.json's pfc.pause_frames and pfc.resume_frames; with "auto" (the
 *    default) only the frames of the first MON_AUTO_PFC_PORTS ports to send
 *    one (every frame of each); with "none" there is no pfc.csv.  summary.json
 *    counts every frame whatever monitor.pfc says.
 *  - watchdog.csv (only when switch.watchdog is enabled): one row per storm the
 *    PFC watchdog declares on a switch egress (port, priority) and per
 *    restoration, at the poll that decided it: time_ns,node,port,priority,event
 *    with event storm|restore (rows match watchdog.storms_detected and
 *    watchdog.restored in summary.json).
 *  - credits.csv (InfiniBand, whose credits replace PFC: no pfc.csv then): one
 *    row when a sender's (port, VL) runs out of credit for a largest frame
 *    (event stall) and one when a flow-control packet gives it that credit
 *    again (resume): time_ns,node,port,vl,event.  node:port is the sender, the
 *    port that waits.  monitor.credits selects the ports as monitor.pfc does
 *    (auto: the first MON_AUTO_PFC_PORTS ports to stall); with "all", the
 *    intervals from each stall to its resume (or the end of the run) add up
 *    to summary.json's credits.stalled_ns_total.
 *
 * Bounds.  What the settings multiply (samples = run time / interval, times the
 * queues and flows watched; PFC frames and watchdog decisions, which grow with
 * the run's events) is bounded whatever they are: each series holds at most
 * MON_MAX_ROWS rows and FILE_MAX_BYTES bytes (sim/file.h: what doctor and view
 * read; rows of long names would pass it before MON_MAX_ROWS), and the monitor
 * takes at most MON_MAX_SAMPLES samples.  A
 * series that reaches its bound stops there, at a whole sample (or frame): the
 * rows it has are every row up to that time, none after.  The run is not
 * touched; the cut is noted in r->mon_notes at once (summary.json's
 * series_capped, written before the monitor closes) and said on stderr
 * (monitor_print_cuts).  When no series sampled over time can take a row any
 * more, the monitor stops asking for slices, so a 1 ps interval costs no more
 * than the samples it writes.
 */
#ifndef TOOLS_MONITOR_H
#define TOOLS_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/run/monitor_settings.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"

/* Rows of each series: 20 times the largest series of the shipped scenarios, a few tens of MB (a row is 15 to about
 * 150 bytes, names of up to 63 characters included: long names reach FILE_MAX_BYTES first, the other bound). */
#define MON_MAX_ROWS 1000000
/* Samples of queues.csv and rates.csv: never reached at the default 10us (the clock ends at 1.76 million), it
 * bounds the work of an interval of a few picoseconds, whose samples may hold no row. */
#define MON_MAX_SAMPLES 10000000

struct mon_file {
    FILE *f;
    char path[4200], tmp[4300];
    int err; /* errno of a failed taking back of a sample (monitor.c, take_back): the file is bad */
};

struct monitor {
    struct run *r;
    const struct monitor_settings *set; /* the scenario's monitor object */
    sim_time_t interval, next_sample;
    uint64_t samples;
    struct port **queues; /* monitored switch egress ports, in port id order */
    uint32_t n_queues;
    uint8_t prios;        /* bit p: priority p gets rows in queues.csv */
    /* rates.csv: flows selected and not yet done, in flow order */
    uint32_t *cand;
    uint32_t n_cand, cap_cand;
    uint32_t flows_seen;  /* flows [0, flows_seen) were looked at ... */
    uint32_t *waiting;    /* ... those of them not made then (a collective's places), in order, looked at again */
    uint32_t n_waiting, cap_waiting, flows_checked;
    uint64_t flows_expected; /* monitor.flows "auto": the flows the run is expected to create */
    uint32_t flows_kept;     /* flows selected so far */
    /* monitor.pfc / monitor.credits "auto": which ports' rows are kept, by port id: 0 no row yet, 1 kept, 2 left
     * out (NULL with "all") */
    struct mon_ports {
        uint8_t *st;
        uint32_t kept, seen;
    } pfc_ports, credit_ports;
    /* wd: watchdog.csv, open only when the watchdog is enabled; pfc.csv only under PFC, credits.csv under credits */
    struct mon_file q, rt, pfc, wd, cr;
    uint64_t queue_rows, rate_rows, pause_rows, resume_rows, wd_rows, stall_rows, unstall_rows;
    uint64_t bytes[RUN_N_SERIES]; /* each series' bytes, its header included, counted in every rank of a run */
    /* MON_MAX_ROWS, MON_MAX_SAMPLES, FILE_MAX_BYTES (a test may lower them after monitor_open) */
    uint64_t max_rows, max_samples, max_bytes;
    struct run_observer_ops ops; /* its callbacks: on_pfc / on_watchdog only for the files that exist */
    bool attached;               /* in r's observers (monitor_open .. monitor_close) */
    uint64_t *share;             /* a sample's values, summed over the ranks of a run over MPI (monitor.c) */
    size_t cap_share;
};

/*
 * Resolves monitor.queues against the built network into a list of switch
 * egress ports (no duplicates, in port id order; *out is malloc'd, may be NULL
 * when n is 0).  Returns 0, or SCN_EUSAGE with a message naming the pattern
 * when one matches no switch port (a typo must not silently record nothing).
 */
int monitor_resolve_queues(const struct run *r, struct port ***out, uint32_t *n, char *err, size_t errlen);

/*
 * Prepares the time series of run r into directory dir: resolves the
 * selection, claims dir for the run (run_claim_dir: created, emptied of an
 * earlier run's files), opens the three files (two with monitor.pfc "none",
 * one more with the watchdog) under
 * temporary names, writes their headers and attaches m to r as an observer
 * (run_observe): m must live until monitor_close.  dir NULL: a rank of a run
 * over MPI other than rank 0, which takes part in every sample and writes
 * nothing (monitor.c).
 * Returns 0; SCN_EUSAGE with a message when the selection is wrong (nothing
 * created then); SCN_EIO with a message when a file cannot be created.
 */
int monitor_open(struct monitor *m, struct run *r, const char *dir, char *err, size_t errlen);

/*
 * Ends the time series: flushes and closes the files and, when keep is true,
 * renames them to their final names (else removes them).  Says in
 * r->mon_notes what the defaults left out.  Detaches from the run.  Returns 0, or SCN_EIO with a message when a write, close or rename
 * failed (the temporary files are removed then).
 */
int monitor_close(struct monitor *m, bool keep, char *err, size_t errlen);

/* Says on f (stderr), one line each, which series a bound cut short and what to change (nothing when none was). */
void monitor_print_cuts(const struct run *r, FILE *f);

/* The priorities that carry frames in a scenario, bit p for priority p: data (and ACKs) of every traffic entry,
 * and CNPs when the congestion control sends them (queues.csv's rows, the live view's list). */
uint8_t monitor_traffic_prios(const struct scenario *scn);

#endif
