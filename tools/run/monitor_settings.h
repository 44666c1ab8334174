/*
 * monitor_settings — the `monitor` object's settings, the monitor observer's own group (monitor_group, registered on
 * its MODULE_REGISTER line in monitor.c).  Apart from the observer because the run reads them too (counters.csv is
 * the run's, limits.c's memory check counts the counters), and neither should need the observer to do so.
 */
#ifndef TOOLS_MONITOR_SETTINGS_H
#define TOOLS_MONITOR_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"

/* AUTO: every flow up to MON_AUTO_FLOWS, else an evenly spread sample of that many. */
enum mon_flow_sel { MON_FLOWS_ALL, MON_FLOWS_NONE, MON_FLOWS_LIST, MON_FLOWS_AUTO };
/* AUTO: the frames of the first MON_AUTO_PFC_PORTS ports that send PFC frames (pfc.csv), or the stalls of the first
 * that many ports that run out of credit (credits.csv). */
enum mon_pfc_sel { MON_PFC_AUTO, MON_PFC_ALL, MON_PFC_NONE };

/* One entry of monitor.capture: the ports whose links it records into pcap files (tools/run/capture.c). */
struct capture_spec {
    int n_ports;
    char (*ports)[2 * SCN_NAME_MAX]; /* "node:port" patterns, '*' allowed, hosts too (in the scenario's store) */
    int64_t start_ps;                /* frames from this time ... */
    int64_t end_ps;                  /* ... to this one (-1: the run's end) */
    int snaplen;                     /* bytes of each frame kept in its record */
    int64_t max_size;                /* bytes of each file, at most */
    bool vlan;                       /* RoCE frames carry an 802.1Q tag with their priority */
};

#define CAPTURE_SNAPLEN_MIN 64           /* every header of every frame kind, and a PFC frame whole */
#define CAPTURE_SNAPLEN_MAX 65535
#define CAPTURE_SNAPLEN_DEFAULT 65535 /* whole frames: Wireshark flags a RoCE frame cut short */
#define CAPTURE_MAX_SIZE_DEFAULT 100000000LL /* 100MB */
#define CAPTURE_MAX_SIZE_MIN 1000LL         /* 1KB: a file header and a few records */
#define CAPTURE_MAX_SIZE_LIMIT 1000000000LL  /* 1GB: the most max_size may say */

struct monitor_settings {
    int64_t interval_ps;
    int n_queues;
    char (*queues)[2 * SCN_NAME_MAX]; /* "node:port" patterns, '*' allowed (in the scenario's store) */
    enum mon_flow_sel flows;
    int n_flows;
    char (*flow_ids)[SCN_NAME_MAX];   /* MON_FLOWS_LIST (in the scenario's store) */
    enum mon_pfc_sel pfc;
    enum mon_pfc_sel credits;         /* credits.csv, InfiniBand's counterpart of pfc.csv */
    bool counters;                    /* counters.csv: per (port, priority) counters, counted per frame (net_options) */
    bool plot_ecn;                    /* queues.png draws the ECN thresholds (an exercise may hide them) */
    bool step_flows;                  /* a collective's steps are flows of the outputs (net_options.step_summary) */
    int n_captures;
    struct capture_spec *captures;    /* monitor.capture (in the scenario's store) */
};

/* `.after` faults, so that the dump and the docs keep their order.  Its values live in the scenario's store. */
extern const struct setting_group monitor_group;

/* scn's `monitor` settings (never NULL once scn is loaded), read at set-up. */
const struct monitor_settings *monitor_settings_of(const struct scenario *scn);

#define MON_AUTO_FLOWS 32     /* rates.csv lines of monitor.flows "auto" */
#define MON_AUTO_PFC_PORTS 32 /* pfc.csv ports of monitor.pfc "auto", credits.csv ports of monitor.credits "auto" */

#endif
