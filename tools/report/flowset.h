/*
 * flowset — flow metrics over a subset of a run's flows, read back from its flows.csv: the tuner's objectives
 * and constraints ("p99 slowdown of the flows under 100 KB", "goodput of the long flows").  A subset is a size
 * range and a list of traffic ids; the statistics are summary.json's (nearest rank, tools/common/stats.h).
 */
#ifndef TOOLS_FLOWSET_H
#define TOOLS_FLOWSET_H

#include "tools/common/stats.h"

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

struct flowset {
    double size_min, size_max; /* bytes, inclusive; -1 = no bound */
    int n_traffic;
    char **traffic;            /* traffic ids (a flow matches id == t or id starts with t + "."); 0 = any */
};

/*
 * Parses {"size_min": "10KB", "size_max": "100KB", "traffic": ["query", "web"]} (each field optional; sizes as
 * the scenario's, a JSON number is bytes).  Errors name file and the JSON path under where ("FILE:
 * WHERE.size_max: expected a size like \"100KB\", got ..."): unknown or repeated fields, size_min > size_max,
 * an empty traffic array, an id that is not a non-empty string, a repeated id.  Returns 0, or 2 (SCN_EUSAGE)
 * with the message in err and *f empty.
 */
int flowset_parse(const struct cJSON *o, const char *file, const char *where, struct flowset *f, char *err,
                  size_t errlen);
void flowset_free(struct flowset *f);

/* Whether f matches a flow of this id and size. */
bool flowset_match(const struct flowset *f, const char *id, double size_bytes);

/*
 * The metric names a subset can compute: flows.total, flows.completed, flows.fct_ns.{mean,p50,p95,p99,max},
 * flows.slowdown.{...}, flows.goodput_gbps.{...} (size_bytes * 8 / fct_ns per finished flow), and by the
 * sender's completion (the last ACK, flows.csv's acked_ns...): flows.acked, flows.fct_ack_ns.{...},
 * flows.slowdown_ack.{...}.
 */
bool flowset_metric_known(const char *metric);

/*
 * The metrics of the flows of flows.csv (text) that f matches (f NULL = every flow).  fct_ns and slowdown are
 * computed from the exact integer picoseconds the csv's ns columns hold, as summary.json computes them, so
 * with every flow they equal summary.json's flows.fct_ns and flows.slowdown exactly (and fct_ack_ns and
 * slowdown_ack, flows.fct_ack_ns and flows.slowdown_ack).  A flows.csv of an older rocesim, without the
 * sender's columns, is read too: no flow of it is acked.  Returns 0, or 2 with a message ("flows.csv line N:
 * ...") when the text is not a flows.csv (wrong header, a bad number).
 */
struct flowset_result {
    int total, completed, acked;
    struct stats_pct fct_ns, slowdown, goodput_gbps, fct_ack_ns, slowdown_ack;
};
int flowset_compute(const struct flowset *f, const char *csv, struct flowset_result *out, char *err, size_t errlen);
/* The same, and the n_gp goodputs behind out->goodput_gbps (Gbit/s, ascending) in *gp, which the caller frees
 * (NULL on an error). */
int flowset_goodputs(const struct flowset *f, const char *csv, struct flowset_result *out, double **gp, size_t *n_gp,
                     char *err, size_t errlen);

/* The value of metric for r; false when unknown, or when no matched flow finished (a statistic of nothing). */
bool flowset_value(const struct flowset_result *r, const char *metric, double *value);

#endif
