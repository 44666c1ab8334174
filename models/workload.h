/*
 * workload — what the traffic kind "workload" (models/traffic_workload.c, the SimAI format) shares with its
 * Chakra reader (models/workload_chakra.c): the entry's settings, the helpers both use (workload.c) and the
 * Chakra format's entry points.
 */
#ifndef MODELS_WORKLOAD_H
#define MODELS_WORKLOAD_H

#include "models/coll.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WL_FORMAT_SIMAI, WL_FORMAT_CHAKRA };

#define WL_KINDS 4              /* the collectives: all_reduce, all_gather, reduce_scatter, all_to_all */
#define WL_MAX_FLOWS (1u << 24) /* flows of one entry: bounded memory */
#define WL_PATH_MAX 256         /* the entry's file paths, as written */

extern const char *const wl_kind_names[WL_KINDS];
extern const int wl_kind_op[WL_KINDS];

struct workload_conf {
    int format, channels, iterations;
    bool overlap;
    char file[WL_PATH_MAX];
    char comm_groups[WL_PATH_MAX]; /* chakra: the communicator groups' file ("": none) */
    int64_t chunk;
    struct scn_hostset hosts;
};

/* The path of the entry's file (rank's, "{rank}" replaced, for Chakra's per-rank traces; rank < 0: as written),
 * relative to the scenario file's folder unless absolute. */
void wl_path(const struct scenario *s, const struct workload_conf *wc, int rank, char *out, size_t outlen);
/* The same for any file path of the entry (comm_groups). */
void wl_path_of(const struct scenario *s, const char *file, int rank, char *out, size_t outlen);

/* The timeline of a run, per rank: what it did when (timeline.csv).  what: TL_COMPUTE, a collective's kind + 1,
 * or TL_P2P (a message). */
/* The earliest (a negative *p: none yet) and the latest of the times its ranks report, which partitions report
 * side by side (sim/parallel.h): set atomically, so that neither depends on which got there first. */
void wl_time_min(sim_time_t *p, sim_time_t v);
void wl_time_max(sim_time_t *p, sim_time_t v);

/* A collective's step k waits for one thing less (*need); when none is left it starts, posted to queue pair
 * qps[qp] (qp NO_STEP: none), named before the flow's start event runs.  Runs at the step's sender's host. */
struct nic_qp;
void wl_step_ready(struct coll *c, uint32_t k, uint8_t *need, uint32_t qp, struct nic_qp *qps);

/* summary.json's per-kind objects into o: collective_ns (ns[kind], the time its collectives ran) and
 * collective_busbw_GBps (bus[kind], their bytes x nccl-tests' factor, over that time; null for a kind that did not
 * run). */
struct cJSON;
void wl_kinds_json(struct cJSON *o, const double *ns, const double *bus);

enum { TL_COMPUTE = 0, TL_P2P = WL_KINDS + 1 };
struct tl_row {
    sim_time_t start, end;
    int what;
};
struct tl_rank {
    struct tl_row *row;
    uint32_t n, cap;
};
void tl_add(struct tl_rank *t, int what, sim_time_t start, sim_time_t end);
/* The rows of ranks 0..N-1 as "rank,activity,start_us,end_us" lines (NULL when there are none). */
char *tl_csv(const struct tl_rank *t, uint32_t N);
void tl_free(struct tl_rank *t, uint32_t N);

/* Reads the text of a "simai" workload file at path (traffic_workload.c; text is modified): 0 with its ranks and
 * layers in *gpus and *layers, or -1 with one line "PATH:LINE: expected ..." in err.  What the kind's set-up does
 * before it checks the file against the entry's hosts. */
int wl_simai_read(const char *path, char *text, int *gpus, int *layers, char *err, size_t errlen);

/* One rank's Chakra execution trace, read (models/workload_chakra.c). */
struct ck_trace;
/* Reads the trace in buf (len bytes) of the file at path into *out (free with ck_trace_free).  0, or -1 with
 * "PATH: node N at byte B: expected ..." in err. */
int ck_parse(const char *path, const uint8_t *buf, size_t len, struct ck_trace **out, char *err, size_t errlen);
void ck_trace_free(struct ck_trace *t);

/* The Chakra format's part of the kind: set-up (0 or SCN_EUSAGE with err), release, and the flows it makes
 * (0 when the traces cannot be read). */
int ck_setup(struct traffic *t, int ti, char *err, size_t errlen);
void ck_release(struct traffic *t, int ti);
uint32_t ck_count(const struct scenario *s, int ti);

#endif
