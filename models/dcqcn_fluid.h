/*
 * dcqcn_fluid — the fixed point of the DCQCN fluid model.
 *
 * Zhu, Ghobadi, Misra, Padhye, "ECN or Delay: Lessons Learnt from Analysis of
 * DCQCN and TIMELY", CoNEXT 2016: the fluid model of N DCQCN flows sharing one
 * bottleneck of capacity C with RED marking probability p(q), rates in
 * packets/s:
 *
 *   dq/dt     = N Rc - C
 *   dalpha/dt = g/tau' [ (1 - (1-p)^(tau' Rc)) - alpha ]
 *   dRt/dt    = -(Rt - Rc) a / tau + Rai Rc (c + e)
 *   dRc/dt    = -Rc alpha a / (2 tau) + (Rt - Rc) Rc (b + d) / 2
 *
 *   a = 1 - (1-p)^(tau Rc)            a CNP within one CNP interval
 *   b = p / ((1-p)^-B - 1)            byte-counter events per packet
 *   d = p / ((1-p)^(-T Rc) - 1)       timer events per packet
 *   c = b (1-p)^(F B),  e = d (1-p)^(F T Rc)   the events past fast recovery
 *
 * with tau the CNP interval, tau' the alpha timer, B the byte counter in
 * packets, T the rate-increase timer and F the fast-recovery steps (the model
 * leaves out hyper increase).  At the fixed point Rc* = C/N and
 *   Rt* - Rc* = tau Rai Rc (c + e) / a,
 *   alpha* = 1 - (1-p)^(tau' Rc),
 * which leaves one equation in p:
 *   G(p) = alpha*(p) a(p)^2 - tau^2 Rai Rc (c + e)(b + d) = 0,
 * solved here by bisection on log p (G < 0 as p -> 0, G > 0 as p -> 1).  The
 * queue follows by inverting RED: q* = kmin + p* (kmax - kmin) / pmax.
 */
#ifndef MODELS_DCQCN_FLUID_H
#define MODELS_DCQCN_FLUID_H

#include <stdbool.h>

#include "models/dcqcn.h"
#include "sim/scenario.h"

struct ecn_settings; /* switch.ecn, models/ecn.h */

struct dcqcn_fixed_point {
    double p;         /* marking probability per packet */
    double q_bytes;   /* queue at the bottleneck */
    double alpha;
    double rc_bps;    /* per-flow current rate (wire bits/s) */
    double rt_bps;    /* per-flow target rate */
    bool in_red_range; /* p* <= pmax, so that q* lies between kmin and kmax */
};

/*
 * Fixed point for n flows of wire frames of `frame_wire_bytes` through a link
 * of link_bps.  Returns 0, or -1 when no root lies in (0, 1).
 */
int dcqcn_fluid_fixed_point(const struct dcqcn_params *d, const struct ecn_settings *e, double link_bps, int n,
                            double frame_wire_bytes, struct dcqcn_fixed_point *out);

#endif
