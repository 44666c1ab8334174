/*
 * metric — the fields of summary.json a sweep's or a tune's objective may name, known before anything runs: a
 * misspelt objective would otherwise show only after every run.
 */
#ifndef TOOLS_METRIC_H
#define TOOLS_METRIC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether path names a field where summary.json holds a number or a boolean
 * (an index into collectives, a priority 0..7 and the statistics mean, p50,
 * p95, p99, max stand for any of them).  Exact and static: a sweep's objective
 * is checked with it before anything runs.
 */
bool metric_known(const char *path);

/* Fills buf with the metric names closest to path (sharing its leading components), or the usual ones. */
void metric_hint(const char *path, char *buf, size_t len);

#endif
