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
 *  - Network events reach on_pfc, on_flow_done, on_watchdog and on_credit as they happen, through the network's
 *    listener table (models/net.h NET_NOTIFY): no allocation, no search, and nothing at all for an event no
 *    observer takes.
 *  - Time: run_simulate runs the engine in slices of simulated time, each ending at the earliest time an
 *    observer asked for (until) or at the stop time, and calls every on_slice between slices.  Sampling is
 *    not an event in the engine's queue, and slicing does not change the order in which events fire (the
 *    queue orders them by time and sequence whatever the slice boundaries), so an observed run is event for
 *    event the same as an unobserved one: same results, same event count, same end time.  And because no
 *    observer's event sits in the queue, nothing keeps the simulation alive after the traffic is done.
 *
 * Observers are modules of kind "observer" (observer_kind, sim/module.h): each registers from its own file, with
 * its settings group if it has one, a struct observer_ops: its callbacks and the hooks that open it for a run
 * (whether it watches this run, given the scenario's settings and the run's options from the command line, and
 * its context), finish it (its files kept or removed with the run's own) and close it.  `rocesim run` opens
 * every registered observer that is on (run_observers_open), in module numbering order, so that a new output is
 * its file, its test and its docs: nothing else names it.  An observer that needs something of the command line
 * (the progress line's terminal, the live view's address) reads it in struct run_options.  The tests attach
 * observers of their own by hand too: run_observe(r, &ops, state) before run_execute, run_unobserve(r, state)
 * when done with the run (before run_free).
 */
#ifndef TOOLS_OBSERVER_H
#define TOOLS_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net.h"
#include "sim/module.h"
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
    net_credit_hook on_credit;      /* each (port, VL) that runs out of credit, and its return (InfiniBand) */
    /* After the last slice, before the run's end checks. */
    void (*on_end)(void *ctx, const struct run *r);
};

struct run_observer {
    const struct run_observer_ops *ops;
    void *ctx;
};

/* The options of `rocesim run` that observers read (the run itself reads none of them). */
struct run_options {
    const char *dir;  /* the output directory; NULL: write nothing (a rank of a run over MPI other than rank 0) */
    bool quiet;       /* -q: nothing on the terminal while the run goes */
    bool ranks;       /* the run is spread over MPI ranks, which must all cut the same slices */
    const char *live; /* --live [ADDR:]PORT, or NULL */
    int live_hold;    /* --live-hold, as tools/live/live.h reads it */
};

/*
 * An observer module's table of hooks.  open, close and watch are required: a table without one is refused when it
 * registers (at start, for the observers of the build: the program stops naming it).
 */
struct cJSON;

struct observer_ops {
    /* Its callbacks while the run goes. */
    const struct run_observer_ops *watch;
    /*
     * Whether it watches run r (set up, not yet executed) with options o: 0 with *ctx its context, or with *ctx
     * NULL when it is off for this run; SCN_EUSAGE or SCN_EIO with a message in err, nothing of it left then.
     * *watch starts as the table above; an observer that takes fewer of the network's events in this run (the
     * monitor without pfc.csv) may give a narrower one, since an event no observer takes costs the network nothing.
     */
    int (*open)(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                char *err, size_t errlen);
    /*
     * After the run wrote its own outputs (run_write_outputs): keep says whether it did, and the observer makes
     * what it wrote final, or removes it (all or none).  0, or SCN_EIO with a message.  May be NULL.
     */
    int (*finish)(void *ctx, bool keep, char *err, size_t errlen);
    /* What summary.json must say of its files besides the run's own fields, added to root: only when there is
     * something to say (a bound that cut a file short), so that every other summary is as it was.  May be NULL. */
    void (*summarize)(void *ctx, struct cJSON *root);
    /* The end, detached already: frees ctx.  whole: the run and its outputs are complete and no signal came (the
     * live view keeps showing the end then, with --live-hold end). */
    void (*close)(void *ctx, bool whole);
};

/* The kind "observer": its modules are numbered the monitor first (the live view shows the flows it follows, so
 * it comes after it), then by name. */
extern const struct module_kind observer_kind;

/* An observer module opened for a run (run_observers_open). */
struct run_opened {
    const struct module *m;
    void *ctx;
};

/*
 * Opens every registered observer that is on for r with options o, in module numbering order, and attaches each
 * (run_observe).  0, or the first refusal's status with its message in err (those opened already are finished
 * without keeping anything, and closed).
 */
int run_observers_open(struct run *r, const struct run_options *o, char *err, size_t errlen);
/* Finishes the opened observers in order (struct observer_ops, finish), keeping what they wrote when keep and no
 * earlier one failed; 0, or the first failure's status with its message in err (err may be NULL). */
int run_observers_finish(struct run *r, bool keep, char *err, size_t errlen);
/* Detaches and closes the opened observers (struct observer_ops, close); nothing when none is open. */
void run_observers_close(struct run *r, bool whole);
/* The context of the opened observer module called name, or NULL when it is not open for r. */
void *run_observer_ctx(const struct run *r, const char *name);

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
