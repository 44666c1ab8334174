/*
 * doctor — `rocesim doctor`: a linter for RoCE fabrics.  Before a run it reads a scenario's resolved settings
 * (each switch's, each port's after profiles and per-speed maps, each host's) and names the settings that a
 * production RoCE fabric gets wrong; after a run it reads the run's outputs and names what went wrong there
 * (the root of each pause tree and its victims, throughput far below line rate with its likely cause, storms,
 * drops by reason, spurious timeouts).  Each finding says what was seen, why it matters and what to change.
 *
 * The checks are the production checklist and the troubleshooting table of the RoCE study note this project
 * started from (PFC on the RoCE priority everywhere, ECN on with thresholds below the PFC point, DCQCN on the
 * NICs; bandwidth far below expectation: PFC off and drops, ECN thresholds that never mark, DCQCN recovering
 * too fast or too slow), plus the headroom formula of models/pfc.h and SONiC's PFC watchdog rules; each check's
 * rule and source: docs/doctor.md.
 */
#ifndef TOOLS_DOCTOR_H
#define TOOLS_DOCTOR_H

#include <stdint.h>
#include <stdio.h>

struct run;

enum doc_severity { DOC_ERROR, DOC_WARNING };

/* One finding: the check that made it (a stable id, "roce-priority-lossy"), where, what was seen, why it
 * matters, what to change. */
struct doc_finding {
    enum doc_severity sev;
    char id[40];
    char where[512];  /* nodes or node:port, comma-separated, "and N more" past a few */
    int n_where;
    char seen[512];
    char why[512];
    char fix[512];
};

struct doc_report {
    struct doc_finding *f;
    int n, cap;
    /* After a run that did not complete (summary.json "complete": false): why, and how far it got; said before
     * the findings, which cover only that part ("" for a complete run or a scenario). */
    char incomplete[600];
};

/* The checks of a built scenario (before a run): appends findings to rep. */
void doctor_scenario(const struct run *r, struct doc_report *rep);

/*
 * The checks of a finished run's outputs in dir (summary.json, flows.csv, pfc.csv, queues.csv, counters.csv
 * when present), r being the run built from dir/scenario.json.  Returns 0, or SCN_EUSAGE / SCN_EIO with a
 * one-line message naming the file when a file is missing or malformed.
 */
int doctor_outputs(const char *dir, const struct run *r, struct doc_report *rep, char *err, size_t errlen);

/* The finding of check id in rep, or NULL. */
const struct doc_finding *doctor_find(const struct doc_report *rep, const char *id);

/* Prints the findings for a reader; doctor.json's text (caller frees). */
void doctor_print(FILE *f, const struct doc_report *rep, const char *subject);
char *doctor_json(const struct doc_report *rep, const char *subject, const char *mode);

void doctor_report_free(struct doc_report *rep);

/*
 * `rocesim doctor SCENARIO.json [--set PATH=VALUE]... [-o DIR]` or `rocesim doctor OUTDIR` (argv[1] is
 * "doctor").  Returns the exit status: 0 no finding, 1 findings, 2 bad usage or input, 3 I/O error.
 */
int doctor_main(int argc, char **argv);

#endif
