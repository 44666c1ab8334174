/*
 * mech — how a mechanism of the network joins its construction, the work between windows and its teardown.
 *
 * Each mechanism (the deadlock detector, the PFC watchdog, faults, the INT record pools, MPI ranks, and the
 * network's own partition work) fills a `struct net_mech_ops` in its own file and registers it with
 * NET_MECH, so that the network's core names none of them and a new mechanism touches only its own file.
 * The core runs every registered hook of a kind in the order of `order` (teardown in the reverse): an order
 * fixed by numbers, not by the link order in which the constructors happen to run, because the order of the
 * hooks is part of the results (the watchdog's first poll is an event of the run, numbered by when it was
 * armed; the partitions' counts must be added up before the notes are told, and the notes of other MPI ranks
 * gathered before that).  The order today:
 *
 *   10 port       init: the prefetch hooks of frame arrivals and transmitter wake-ups (large fabrics)
 *   12 credit     init: InfiniBand's per-port credit counts, when the fabric runs credits (credit.c)
 *   15 ecn        init: each switch's random stream for marking (settings: switch.ecn)
 *   20 nic        init: the prefetch hook of pacing timers (large fabrics)
 *   25 route      init: whether flows choose their route at start (a dragonfly's Valiant or UGAL)
 *   30 fold       between windows: the partitions' counts added to the totals; free: the partitions
 *   40 ranks      partition: frames travel between processes; between windows: the notes of every process
 *   50 notes      between windows: the network events told in the single engine's order; free: the notes
 *   60 telemetry  between windows: INT records returned to their pools; free: the pools
 *   70 deadlock   init; at a line of the grid: the checks that came due; free
 *   80 pfcwd      init (arms its poll when switch.watchdog is on); free (settings: switch.watchdog)
 *   90 faults     free
 *   95 rccc       free: the hosts' pull pacers (after the flows, whose release leaves their lists)
 *  100 flows      free: the table of flows
 *  101 steps      free: the places summarized steps left (net_make_step)
 *  105 gdr        free: the traffics' choices of the GPU's path (gdr_choose)
 *
 * Then, between windows, the traffic's own work over MPI ranks (net.between_windows).  Two mechanisms with
 * one order number are a bug (registration aborts): nothing else breaks a tie.
 *
 * Registration is a module of kind "mechanism" (sim/module.h): NET_MECH places it in the modules' section, so an
 * object file's presence in the program is enough, and the kind keeps this table sorted by `order` as the
 * registry adds them.
 */
#ifndef MODELS_MECH_H
#define MODELS_MECH_H

#include "sim/module.h"
#include "sim/sim.h"

struct net;
struct sim_par;

struct net_mech_ops {
    const char *name;
    int order;                                      /* see above: the order its hooks run in */
    void (*init)(struct net *n);                    /* the end of net_init: settings resolved, switches laid out */
    void (*partition)(struct net *n, struct sim_par *P); /* net_partition: the partitions' counts and cut exist */
    void (*between_windows)(struct net *n);         /* after every window (no partition runs) */
    void (*at_line)(struct net *n, sim_time_t t);   /* at a line of the grid (sim/parallel.h) */
    void (*free)(struct net *n);                    /* net_free, before the core's arrays go; also after a
                                                     * failed net_init, on state its init may not have made */
};

#define NET_MECH_MAX 32
extern const struct module_kind mech_kind;

/* Registers `ops` (a struct net_mech_ops of the file; the module is named after the variable, for messages), with
 * the mechanism's settings groups, if any, after it. */
#define NET_MECH(ops, ...) MODULE_REGISTER(mech_kind, #ops, &ops, __VA_ARGS__);

/* The registered mechanisms, in order: a test checks that every one was linked into the program. */
unsigned net_mechs_count(void);
const struct net_mech_ops *net_mech_at(unsigned i);

/* Runs every registered hook of a kind, in order (free: in the reverse). */
void net_mechs_init(struct net *n);
void net_mechs_partition(struct net *n, struct sim_par *P);
void net_mechs_between_windows(struct net *n);
void net_mechs_at_line(struct net *n, sim_time_t t);
void net_mechs_free(struct net *n);

#endif
