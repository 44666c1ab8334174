/*
 * nicconfig — `rocesim nic-config`: a scenario's congestion control settings
 * as a NIC administrator applies them.
 *
 * The DCQCN reaction point (sender) and notification point (receiver) become
 * the ConnectX (mlx5) sysfs writes under /sys/class/net/IF/ecn/roce_rp and
 * roce_np, converted to the units the firmware takes (microseconds, Mbps,
 * bytes, percent, g and alpha in 1/1024 and 1/1023 steps; docs/sweep.md).  A value
 * the firmware cannot express exactly is rounded and a comment line says so.
 * The switch side (ECN marking thresholds, PFC XOFF/XON and headroom) has no
 * standard interface, so it is printed in plain words with values and units,
 * as comment lines: the whole output stays a runnable sh script.
 */
#ifndef TOOLS_NICCONFIG_H
#define TOOLS_NICCONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/scenario.h"

struct run;

/* One sysfs write: echo value > /sys/class/net/IF/ecn/<dir>/<name>. */
struct nic_setting {
    const char *dir;    /* "roce_rp" or "roce_np" */
    const char *name;   /* the firmware parameter */
    long long value;
    char source[96];    /* the scenario field and value it comes from, e.g. "host.dcqcn.g = 0.00390625" */
    char note[256];     /* why the value was rounded or clamped, or "" when exact */
};

#define NIC_SETTINGS_MAX 20

/*
 * Converts the scenario's DCQCN and CNP settings into ConnectX parameters.
 * line_rate_bps is the host link rate (for rate_to_set_on_first_cnp, which the
 * firmware takes as an absolute rate).  Fills out[] and returns the count.
 * Cannot fail.
 */
int nicconfig_settings(const struct scenario *scn, int64_t line_rate_bps, struct nic_setting *out);

/*
 * Prints the whole configuration of a built run (the switch part needs the
 * built network for the headroom of each port class).  iface NULL means the
 * script takes the interface from $IF.  header (or NULL) is an extra comment
 * line saying where overrides came from.  Cannot fail.
 */
void nicconfig_print(FILE *f, const struct run *r, const char *iface, const char *header);

/*
 * `rocesim nic-config SCENARIO [--set PATH=VALUE]... [--from best.json] [--iface IF]`
 * (argv[1] is "nic-config").  Returns the exit status: 0, 2 bad usage or
 * scenario, 3 unreadable file.
 */
int nicconfig_main(int argc, char **argv);

#endif
