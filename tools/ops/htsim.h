/*
 * htsim — the UEC reference simulator's inputs, in and out (docs/uet.md).
 *
 * The Ultra Ethernet Consortium's reference simulator, htsim_uec (ultraethernet/uet-htsim, htsim/sim/datacenter/),
 * runs a connection matrix (`.cm`, read by connection_matrix.cpp) on a fat tree that it builds itself or reads from a
 * `.topo` file (fat_tree_topology.cpp), with the options of main_uec.cpp.  `rocesim import uet-htsim` turns such a
 * command line into a scenario that reproduces the run with UET's transport (RUD), NSCC and the reference's
 * switch queue (lossy, trimming, ECN at dequeue); `rocesim export uet-htsim` writes a scenario back as a .cm, a
 * .topo when the fabric is not the automatic tree, and the command line, listing what they cannot express.
 *
 * The derived constants are the reference's, computed with its arithmetic (main_uec.cpp): the network round trip
 * RTT_net = 2 L_d + D (MTU + 64) 8 / LS, the BDP in packets ceil(RTT_net LS / 8 / MTU), the queue Q = factor x BDP
 * packets x MTU, ECN thresholds ceil(0.2 BDP) and ceil(0.8 BDP) packets, and the fixed RTO 15 us + 6 Q 8 / LS.
 */
#ifndef TOOLS_HTSIM_H
#define TOOLS_HTSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct sbuf;

enum htsim_trig_type { HTSIM_TRIG_NONE, HTSIM_TRIG_ONESHOT, HTSIM_TRIG_MULTISHOT, HTSIM_TRIG_BARRIER };

/* One connection line of a .cm: SRC->DST with its keywords; 0 means "not given" for the ids. */
struct htsim_conn {
    uint32_t src, dst, id, trigger, send_done, recv_done;
    int64_t size;      /* payload bytes */
    uint32_t start_us; /* truncated to whole microseconds, as the reference starts it */
    bool has_start;    /* else it starts on `trigger` */
    int line;
};

struct htsim_trig {
    uint32_t id, count;
    enum htsim_trig_type type; /* NONE: referenced by a flow's `trigger`, not (yet) declared */
    int line;
};

struct htsim_cm {
    uint32_t nodes; /* 0: no Nodes line */
    struct htsim_conn *conns;
    size_t n_conns;
    struct htsim_trig *trigs; /* in the order the reference first hears of them */
    size_t n_trigs;
    int first_failure_line; /* 0: none */
};

/*
 * Reads a connection matrix as connection_matrix.cpp does (tokens split on single spaces, header until the first
 * connection, trigger or failure line, every count checked).  text is modified.  Returns 0, or 2 with one line
 * "FILE:LINE: ..." in err.
 */
int htsim_cm_parse(const char *file, char *text, struct htsim_cm *cm, char *err, size_t errlen);
void htsim_cm_free(struct htsim_cm *cm);
/* The matrix as a .cm text the reference reads (connections in order, then the triggers). */
void htsim_cm_write(const struct htsim_cm *cm, struct sbuf *out);

enum { HTSIM_TOR, HTSIM_AGG, HTSIM_CORE };

/* A fat tree as the reference builds it: from a .topo file, or the automatic K-ary tree. */
struct htsim_topo {
    uint32_t nodes, tiers, podsize;
    struct htsim_tier {
        int64_t speed_bps; /* of the links down from this tier */
        int64_t lat_ps, sw_lat_ps;
        uint32_t radix_down, radix_up, bundle, oversub;
        int line; /* its `Tier` line; 0 for the automatic tree */
    } tier[3];
    /* derived (htsim_topo_check, htsim_topo_auto) */
    uint32_t npod, tors_per_pod, aggs_per_pod, ntor, nagg, ncore, hosts_per_tor;
    int64_t diameter_latency_ps;
    bool from_file;
};


/* Reads a .topo file as fat_tree_topology.cpp's read_cfg does.  Returns 0, or 2 with "FILE:LINE: ..." in err. */
int htsim_topo_parse(const char *file, char *text, struct htsim_topo *t, char *err, size_t errlen);
/* The consistency checks of set_custom_params and check_consistency, and the derived counts.  Returns 0 or 2. */
int htsim_topo_check(const char *file, struct htsim_topo *t, char *err, size_t errlen);
/* The automatic tree for `nodes` hosts (set_params): 0, or 2 with the reason in err. */
int htsim_topo_auto(struct htsim_topo *t, uint32_t tiers, uint32_t nodes, int64_t speed_bps, int64_t hop_ps,
                    char *err, size_t errlen);
/* The .topo text of t (whole Gbit/s and ns; the caller checks that they are). */
void htsim_topo_write(const struct htsim_topo *t, struct sbuf *out);

/* Formats a time in ps, a size in bytes, a rate in bit/s as rocesim's units ("14.02272us", "178450B", "100Gbps"). */
char *htsim_fmt_time(int64_t ps, char *buf, size_t len);
char *htsim_fmt_rate(int64_t bps, char *buf, size_t len);

/*
 * Imports an htsim_uec command line (argv[0..argc): the options as the reference takes them, -tm first or not),
 * reading the files it names.  On success returns 0 and *out is the scenario (caller deletes), with one line per
 * note appended to notes.  Else returns 2 (bad option or file) or 3 (unreadable file) with one line in err.
 */
int htsim_import_args(int argc, char **argv, struct cJSON **out, struct sbuf *notes, char *err, size_t errlen);
/* The same with the files' texts given (cm_text is modified; topo_text NULL without -topo): the names -tm and -topo
 * give are only used in messages. */
int htsim_import_texts(int argc, char **argv, char *cm_text, char *topo_text, struct cJSON **out, struct sbuf *notes,
                       char *err, size_t errlen);

/* What htsim_export makes of a scenario: the three files' texts (topo NULL for the automatic tree), and the
 * settings they cannot express, one scenario path a line. */
struct htsim_export {
    struct sbuf *cm, *topo, *cmdline, *unexpressed;
    char why[600]; /* scratch */
};

/*
 * Exports scenario JSON `scn` (name: the files' stem, as NAME.cm / NAME.topo).  Returns 0, or 2 with one line in
 * err when there is nothing to export (no flow, hosts not numbered h0..).
 */
int htsim_export(const struct cJSON *scn, const char *name, struct htsim_export *x, char *err, size_t errlen);

/* `rocesim import uet-htsim ...` and `rocesim export uet-htsim ...` (argv[1] "import"/"export"); exit status. */
int htsim_import_main(int argc, char **argv);
int htsim_export_main(int argc, char **argv);

#endif
