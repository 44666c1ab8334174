/*
 * cc_none — no congestion control: every flow sends at its NIC's line rate (or its own cap), and the receiver
 * sends no CNP.  The baseline that shows what DCQCN (or PFC alone) changes.
 */
#include "models/cc.h"

static void none_init(struct flow *f, sim_time_t now) {}

static double none_rate(const struct flow *f) { return (double)flow_line_bps(f); }

static void none_sample(const struct flow *f, sim_time_t now, struct cc_sample *s) { s->rate_bps = none_rate(f); }

const struct cc_ops cc_none_ops = {
    .name = "none",
    .init = none_init,
    .rate = none_rate,
    .sample = none_sample,
};

MODULE_REGISTER(cc_kind, "none", &cc_none_ops);
