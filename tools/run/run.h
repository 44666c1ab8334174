/*
 * run — one simulation from a resolved scenario: build, simulate, report.
 *
 * run_setup builds the topology, the network and the traffic; run_execute
 * simulates until the stop time or until all finite traffic has finished;
 * run_write_outputs writes summary.json and flows.csv (each to a temporary
 * name, then renamed, so a reader never sees a half-written file).
 */
#ifndef TOOLS_RUN_H
#define TOOLS_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "models/net.h"
#include "models/traffic.h"
#include "sim/graph.h"
#include "sim/parallel.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "tools/run/observer.h"

/*
 * The version of the results: raised by every change that changes what a run computes (the commit that
 * regenerates the golden references says so).  summary.json records it, and a sweep or a tune runs again a
 * run whose summary.json has another, instead of taking a result of an older rocesim as done.
 * 2: event keys (time, entity, entity sequence).
 * 3: the engine in windows (sim/parallel.h): a run ends at the end of the window in which its traffic was done,
 *    deadlock checks run between windows, Poisson arrivals are events of the run.
 * 4: TIMELY's default scales the paper's values to the line rate and its hpcc-ns3 preset counts increases as the
 *    HPCC simulator does; HPCC's INT counts the preamble and gap on the wire and U starts at 1; the sender's
 *    completion (the last ACK) besides the receiver's: flows.csv's acked_ns ... slowdown_ack, summary.json's
 *    acked, fct_ack_ns and slowdown_ack.
 */
#define RUN_RESULTS_VERSION 4

/* The time series (tools/run/monitor.h), in the order of mon_notes.cut. */
enum run_series { RUN_QUEUES, RUN_RATES, RUN_PFC, RUN_WATCHDOG, RUN_CREDITS, RUN_N_SERIES };
extern const char *const run_series_names[RUN_N_SERIES];

struct run {
    const struct scenario *scn;
    struct graph g;
    struct sim sim;          /* the run's engine; with par, its run-wide queue */
    struct sim_par par;      /* its partitions (sim/parallel.h), one or --threads of them */
    struct net net;
    struct traffic traffic;
    double wall_s;
    bool finished;           /* all finite traffic done before the stop time */
    char invariant_error[256];
    /* What watches the run while it goes (the monitor, the progress line, ...), in the order they attached:
     * run_observe before run_execute (tools/run/observer.h). */
    struct run_observer obs[RUN_OBSERVERS_MAX];
    uint8_t n_obs;
    /* The observer modules run_observers_open opened, in that order (their contexts are among obs). */
    struct run_opened opened[RUN_OBSERVERS_MAX];
    uint8_t n_opened;
    /* Why the run stopped before its end (a signal, --max-wall; tools/run/limits.h), or "": summary.json then says
     * "complete": false with this as "incomplete_reason". */
    char incomplete_reason[96];
    /* --threads N refused by the network: the partitions would meet every this many ps (the shortest link
     * between them, below SIM_PAR_MIN_WINDOW), so the run went on one thread; 0: not so */
    int64_t short_window_ps;
    /* What the time series left out by default, for the human summary (set by monitor_close, tools/run/monitor.h). */
    struct {
        uint32_t flows_kept;        /* rates.csv followed these flows ... */
        uint64_t flows_expected;    /* ... of about this many (a sample when flows_sampled) */
        bool flows_sampled;
        uint32_t pfc_ports_kept;    /* pfc.csv holds the frames of these ports ... */
        uint32_t pfc_ports_seen;    /* ... of this many that sent PFC frames (a sample when pfc_sampled) */
        bool pfc_sampled;
        uint32_t credit_ports_kept; /* credits.csv likewise: the stalls of these ports ... */
        uint32_t credit_ports_seen; /* ... of this many that stalled (a sample when credit_sampled) */
        bool credit_sampled;
        /* The series a bound cut short (tools/run/monitor.h, MON_MAX_ROWS, MON_MAX_SAMPLES, FILE_MAX_BYTES), indexed
         * as run_series_names: the rows kept and the time of the first sample or frame left out. */
        struct run_series_cut {
            bool cut;
            enum run_cut_by { RUN_CUT_ROWS, RUN_CUT_SAMPLES, RUN_CUT_BYTES } by; /* which bound */
            uint64_t rows, bound; /* rows kept; the bound that cut it (rows, samples or bytes) */
            sim_time_t from;
        } cut[RUN_N_SERIES];
    } mon_notes;
};

/*
 * The partitions (and threads) every later run_setup of this process cuts its network into: 1 to
 * SIM_PAR_MAX (`rocesim run --threads N`).  Every number gives byte-identical results (sim/parallel.h).
 */
void run_set_threads(unsigned n);
/* Whether a threaded run moves its partitions to one thread while other processes take the cores
 * (sim/contention.h; on by default, `--fixed-threads` turns it off). */
void run_set_adaptive(bool on);
/* Of a threaded run's windows, the share that ran on one thread while other processes took the cores. */
double run_one_thread_share(const struct run *r);

/*
 * The processes every later run_setup spreads its partitions over (`rocesim-mpi run`), each running --threads
 * of them, or NULL (the default): one process.
 */
void run_set_comm(const struct sim_par_comm *comm);

/*
 * `rocesim-mpi run` (tools/run/run_mpi.c): starts MPI when mpirun launched the process with more than one rank and
 * returns its operations (NULL otherwise, and always in a build without MPI); run_mpi_end(rc) ends it and
 * returns the largest rc of the ranks.
 */
const struct sim_par_comm *run_mpi_start(int *argc, char ***argv);
/* Set in the environment of a sweep's or tune's runs, which are never ranks of an MPI run themselves. */
#define RUN_MPI_POOL_CHILD "ROCESIM_POOL_RUN"
int run_mpi_end(int rc);

/* Returns 0, or SCN_EUSAGE with a message (the scenario cannot be built). */
int run_setup(struct run *r, const struct scenario *scn, char *err, size_t errlen);

/* Simulates, serving the attached observers (run_simulate, tools/run/observer.h).  Returns 0, or -1 when an internal
 * invariant failed (message in r->invariant_error). */
int run_execute(struct run *r);

/*
 * Takes dir (created) for a new run: a run owns its output directory, so every file a run may write there
 * (run_output_names, and plots/: plot_clean) is removed, and so are the temporary files (`NAME.tmp.PID`)
 * that a killed rocesim left, when that process is gone or is not a rocesim.  Nothing an earlier run wrote
 * survives under a final name to be mistaken for this run's; files with other names are never touched.
 * Returns 0, or SCN_EIO with a message when dir cannot be created.
 */
int run_claim_dir(const char *dir, char *err, size_t errlen);

/* The files a run may write into its directory (plots/ aside), in the order the summary lists them. */
extern const char *const run_output_names[];
extern const size_t run_n_output_names;

/*
 * Writes summary.json, flows.csv and, with monitor.counters, counters.csv into dir (created): all, or none when a
 * write fails.  Returns 0, or
 * SCN_EIO with a message.
 */
int run_write_outputs(struct run *r, const char *dir, char *err, size_t errlen);

/* summary.json as text (caller frees); with_wall = false leaves out the wall-clock fields. */
char *run_summary_json(const struct run *r, bool with_wall);

/*
 * flows.csv's columns (docs/outputs.md): the receiver's completion (finish_ns ... slowdown, the columns of a
 * flows.csv of an older rocesim), then the sender's (acked_ns ... slowdown_ack).
 */
#define RUN_FLOWS_HEADER_RECEIVER                                                                                  \
    "id,src,dst,priority,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,paused_ns"
#define RUN_FLOWS_HEADER RUN_FLOWS_HEADER_RECEIVER ",acked_ns,fct_ack_ns,ideal_fct_ack_ns,slowdown_ack"

/* flows.csv as text (caller frees). */
char *run_flows_csv(const struct run *r);

/* counters.csv's columns (docs/outputs.md), which `rocesim show` and the doctor read by name. */
#define RUN_COUNTERS_HEADER                                                                                        \
    "node,port,peer,priority,rx_frames,rx_bytes,tx_frames,tx_bytes,pause_rx,pause_tx,paused_ns,ecn_marked,"        \
    "drops_buffer,drops_headroom,drops_watchdog,drops_link_down,drops_corrupt,drops_mtu,cnp_tx,cnp_rx,ooo_rx"

/* counters.csv of a finished run with monitor.counters (net.ctr): one row per (node, port, priority) with a
 * non-zero counter, by node index, port and priority.  The caller frees it. */
char *run_counters_csv(const struct run *r);

/*
 * The short human summary printed at the end of `rocesim run`; dir (or NULL)
 * is where the outputs went, plots (or NULL) a line about the plots.
 */
void run_print_summary(const struct run *r, FILE *f, const char *dir, const char *plots);

void run_free(struct run *r);

/* Switch ports grouped by (rate, delay, headroom): the PFC headroom each class reserves per lossless priority (ports
 * of one rate and delay differ when the frames that reach them do: pfc_port_frames). */
struct hdrm_class {
    int64_t rate_bps, delay_ps, headroom;
    uint32_t ports;
};
struct hdrm_report {
    struct hdrm_class *cls; /* in order of first appearance (caller frees) */
    int n;
    int64_t max_reserved;   /* the largest headroom reservation of one switch (all lossless priorities) */
    const char *max_switch; /* ... and that switch ("" when none) */
};
/* Fills rep for the built network of r (`rocesim check`, `rocesim nic-config`); mem_oom (sim/mem.h) when out of
 * memory. */
void run_headroom_classes(const struct run *r, struct hdrm_report *rep);

#endif
