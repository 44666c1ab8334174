/*
 * observer — what watches a run while it goes: the monitor's time series (tools/run/monitor.h), the progress line
 * (tools/run/progress.h), and any later listener (a live view, a packet capture).
 *
 * Observers attach to one list in the run, several at once, each with its table of operations and its own
 * context; they are called in the order they attached.  They watch and never steer: they are handed the run
 * as a const pointer, the network's events as their facts (a PFC frame sent, a flow completed, a watchdog
 * decision) and const pointers, and they read model state through its getters (net_flow, port_pp, ...).  So
 * attaching one cannot change a simulated result.
 *
 * Two ways in:
 *  - Network events reach on_pfc, on_flow_done and on_watchdog as they happen, through the network's listener
 *    table (models/net.h NET_NOTIFY): no allocation, no search, and nothing at all for an event no observer
 *    takes.
 *  - Time: run_simulate runs the engine in slices of simulated time, each ending at the earliest time an
 *    observer asked for (until) or at the stop time, and calls every on_slice between slices.  Sampling is
 *    not an event in the engine's queue, and slicing does not change the order in which events fire (the
 *    queue orders them by time and sequence whatever the slice boundaries), so an observed run is event for
 *    event the same as an unobserved one: same results, same event count, same end time.  And because no
 *    observer's event sits in the queue, nothing keeps the simulation alive after the traffic is done.
 *
 * To add an observer: a struct of its own state, a static const struct run_observer_ops with the callbacks it
 * needs (the others NULL), and run_observe(r, &ops, state) before run_execute; run_unobserve(r, state) when
 * it is done with the run (before run_free).
 */
#ifndef TOOLS_OBSERVER_H
#define TOOLS_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"
#include "sim/sim.h"

struct run;

#define RUN_OBSERVERS_MAX NET_LISTENERS_MAX

/* The simulated time of an observer that never asks for a slice (until). */
#define OBS_NEVER INT64_MAX

struct run_observer_ops {
    const char *name; /* for messages */
    /* Before the first event is simulated (not called when the run has nothing to simulate). */
    void (*on_start)(void *ctx, const struct run *r);
    /* Before each slice: the simulated time at which it wants its next on_slice (OBS_NEVER: none); the slice
     * ends there, or earlier when another observer or the stop time says so. */
    sim_time_t (*until)(void *ctx, const struct run *r);
    /* After each slice: the events it ran; mine is true when the slice ended at this observer's until, before
     * any other observer's and the stop time, and the run goes on. */
    void (*on_slice)(void *ctx, const struct run *r, uint64_t events, bool mine);
    net_pfc_hook on_pfc;            /* each PAUSE / RESUME frame, when it is sent */
    net_flow_hook on_flow_done;     /* each flow, when its receiver has all of it */
    net_wd_hook on_watchdog;        /* each storm and restoration the PFC watchdog declares */
    /* After the last slice, before the run's end checks. */
    void (*on_end)(void *ctx, const struct run *r);
};

struct run_observer {
    const struct run_observer_ops *ops;
    void *ctx;
};

/*
 * Attaches the observer (ops, ctx) to run r, after those attached already.  More than RUN_OBSERVERS_MAX at
 * once is a bug in the program (message, abort).
 */
void run_observe(struct run *r, const struct run_observer_ops *ops, void *ctx);

/* Detaches the observer with context ctx (nothing when it is not attached); the others keep their order. */
void run_unobserve(struct run *r, const void *ctx);

/*
 * Runs r's simulation until the stop time or until sim_stop() (all traffic done), in slices for the observers
 * (on_start, then until / on_slice around each slice, then on_end).  The slices themselves are run by
 * limits_sim_run (tools/run/limits.h), which stops early on a signal or --max-wall.  With no observer that asks
 * for time it is exactly limits_sim_run(r, stop).
 */
void run_simulate(struct run *r);

#endif
