/*
 * dcqcn — the DCQCN reaction point (RP) of one flow.
 *
 * Zhu, Eran, Firestone, Guo, Lipshteyn, Liron, Padhye, Raindel, Yahia, Zhang,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015.
 *
 *   on CNP:            Rt <- Rc (*);  Rc <- max(Rmin, Rc * (1 - alpha/2))  (cut at most min_dec_factor)
 *                      alpha <- (1 - g) alpha + g;  T <- 0, BC <- 0
 *   every alpha_timer without CNP:        alpha <- (1 - g) alpha
 *   every rate_increase_timer (T += 1) or byte_counter bytes sent (BC += 1):
 *      fast recovery    (max(T,BC) <= F):  Rc <- (Rt + Rc) / 2
 *      additive         (otherwise):       Rt <- Rt + Rai;            Rc <- (Rt + Rc) / 2
 *      hyper            (min(T,BC) >  F):  Rt <- Rt + (min(T,BC)-F) Rhai; Rc <- (Rt + Rc) / 2
 *   rates stay within [Rmin, line rate]; a flow starts at line rate.
 *   (*) unless clamp_target_rate is off and no increase event happened since
 *       the previous cut (ConnectX clamp_tgt_rate semantics).
 *
 * The counters are compared after the event that incremented them, with <=,
 * so a timer-only recovery makes exactly F fast-recovery steps, as the paper
 * describes ("F iterations of fast recovery"); a strict < would give F-1.
 *
 * Beyond the paper, what NVIDIA documents for the ConnectX (mlx5) reaction
 * point ("DCQCN Parameters", NVIDIA/Mellanox community page DOC-2790, and the
 * "DCQCN CC Parameters" page of the NVIDIA DOCA documentation; the sysfs files
 * of /sys/class/net/IF/ecn/roce_rp):
 *   rate_reduce_monitor_period  at most one cut per period: a CNP within the period after a cut is
 *                      remembered and cuts once when the period ends (the docs: the rate is reduced at
 *                      the beginning of the next period); its alpha update happens with that cut.
 *   clamp_tgt_rate_after_time_inc  Rt <- Rc at a cut only when a timer increase (not only byte-counter
 *                      increases) happened since the previous cut.
 *   rpg_byte_reset     the byte counter; "off" leaves the increase to the timer alone (T decides the
 *                      stage: fast recovery while T <= F, hyper increase once T > F).
 * Each is off in the paper preset, so that the paper's machine is unchanged.
 *
 * timing "periodic", the machine of the HPCC paper's ns-3 simulator (rdma-hw.cc, "Mellanox's version" of DCQCN;
 * its config's ALPHA_RESUME_INTERVAL, RATE_DECREASE_INTERVAL, RP_TIMER, FAST_RECOVERY_TIMES, RATE_AI, RATE_HAI):
 *   alpha:    at each tick of alpha_timer from the flow's first CNP, alpha <- (1 - g) alpha + g when a CNP came
 *             since the previous tick, else alpha <- (1 - g) alpha; the first CNP sets alpha to alpha_init and
 *             does not count for the first tick
 *   cut:      checked every rate_reduce_monitor_period from one period (and 1 ns, after that instant's tick) past
 *             the first CNP: when a CNP came since the previous check, Rt <- Rc (unless no increase event since
 *             the last cut and clamp_target_rate is off) and Rc <- max(Rmin, Rc (1 - alpha / 2)), alpha as the
 *             last tick left it; the increase timer restarts
 *   increase: by the timer alone (byte_counter "off"): event T (from 1 after a cut) is fast recovery while
 *             T <= F, the one additive step at T = F + 1, then hyper steps of a constant Rhai.
 *
 * alpha decay is evaluated lazily: alpha at time t is alpha_ref multiplied by
 * (1 - g) once for every whole alpha_timer period since the last CNP, which is
 * exactly what a periodic timer restarted at each CNP computes, without one
 * event per period (ConnectX's 1 us period would otherwise dominate a run).
 */
#ifndef MODELS_DCQCN_H
#define MODELS_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "sim/sim.h"

/* In the order of host.dcqcn's presets (models/cc_dcqcn.c). */
enum dcqcn_preset { DCQCN_PAPER, DCQCN_CONNECTX, DCQCN_NS3 };

/* host.dcqcn: the settings of a host's reaction point and of its notification point (cnp_interval). */
struct dcqcn_params {
    enum dcqcn_preset preset;
    double g;
    double alpha_init;
    int64_t alpha_timer_ps;
    int64_t rate_increase_timer_ps;
    int64_t byte_counter;
    int fast_recovery_steps;
    int64_t ai_rate_bps, hai_rate_bps, min_rate_bps;
    double rate_on_first_cnp;
    double min_dec_factor;
    bool clamp_target_rate;
    int64_t cnp_interval_ps;
    /* ConnectX's reaction point beyond the paper (above); in the paper preset all off. */
    int64_t rate_reduce_period_ps;  /* at most one cut per this period; 0 = every CNP cuts */
    bool clamp_after_timer;         /* a cut resets the target only after a timer increase */
    bool byte_counter_off;          /* byte_counter is then INT64_MAX: the increase follows the timer alone */
    int periodic;                   /* timing: 0 "events", 1 "periodic" (the ns-3 simulator's machine, above) */
};

/* Host h's host.dcqcn (profiles applied).  The sender keeps its pointer (struct dcqcn, at set-up); only the
 * receiver's CNP check looks it up per CE-marked frame (cc_dcqcn.c). */
const struct dcqcn_params *dcqcn_params_of(const struct scn_host *h);

struct dcqcn {
    const struct dcqcn_params *p;
    double line_bps;
    double rc, rt;           /* current and target rate, bit/s */
    double alpha_ref;        /* alpha at alpha_t0 */
    sim_time_t alpha_t0;     /* last CNP (or start) */
    uint32_t t_count, bc_count;
    union {
        int64_t bytes;       /* bytes sent since the last byte-counter event */
        sim_time_t check_at; /* periodic (no byte counter): the next cut check */
    };
    uint32_t cnps;           /* rate cuts */
    bool seen_cnp;
    bool increasing;         /* increase timer/byte counter active (rate below line) */
    bool cut_pending;        /* a CNP arrived within rate_reduce_period of the last cut (alpha_t0); periodic: since
                              * the last check */
    bool alpha_cnp;          /* periodic: a CNP arrived since alpha's last tick (alpha_t0) */
};

void dcqcn_init(struct dcqcn *d, const struct dcqcn_params *p, int64_t line_bps, sim_time_t now);

/* alpha at time now (lazy decay). */
double dcqcn_alpha(const struct dcqcn *d, sim_time_t now);

/* A CNP arrived: cut the rate.  Afterwards the caller (re)starts the increase timer. */
void dcqcn_on_cnp(struct dcqcn *d, sim_time_t now);

/*
 * A CNP arrived: cuts the rate as dcqcn_on_cnp and returns true, or, within rate_reduce_period of the last
 * cut, only notes the pending cut and returns false; the caller then runs dcqcn_on_cnp at
 * dcqcn_cut_due(d) (the end of the period).
 */
bool dcqcn_on_cnp_monitored(struct dcqcn *d, sim_time_t now);

/* When the pending cut is due (the end of the period that began with the last cut; periodic: the next check). */
static inline sim_time_t dcqcn_cut_due(const struct dcqcn *d)
{
    return d->p->periodic ? d->check_at : d->alpha_t0 + d->p->rate_reduce_period_ps;
}

/* Periodic timing: a CNP arrived (noted for alpha's next tick and the next check; the first sets both clocks). */
void dcqcn_cnp_periodic(struct dcqcn *d, sim_time_t now);
/* Periodic timing: the check due now: cuts when a CNP came since the previous one; the next check is then due. */
void dcqcn_check_periodic(struct dcqcn *d, sim_time_t now);

/* The rate-increase timer expired. */
void dcqcn_on_timer(struct dcqcn *d);

/*
 * `bytes` were sent.  Returns the number of byte-counter events this caused
 * (each already applied).
 */
int dcqcn_on_sent(struct dcqcn *d, int64_t bytes);

#endif
