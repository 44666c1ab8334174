/*
 * cfgcmd — what the commands that print a configuration share (nic-config for the NICs, switch-config for
 * the switches): a scenario named on the command line or by a sweep's or tune's best.json (--from), with
 * --set overrides after the best point's, loaded once.
 */
#ifndef TOOLS_CFGCMD_H
#define TOOLS_CFGCMD_H

#include <stdbool.h>

#include "sim/scenario.h"

#define CFG_MAX_SETS 256

struct cJSON;

struct cfg_cmd {
    const char *who;           /* "nic-config": the program name in messages */
    const char *usage;         /* printed after a usage error */
    const char *scenario, *from;
    bool allow_incomplete;
    int n_cli;                 /* --set options, in order */
    struct scn_override cli[CFG_MAX_SETS];
    char path[CFG_MAX_SETS][512];
    /* filled by cfg_cmd_load: the best point's overrides (n_best of them), then the --set ones (n in all) */
    struct scn_override ov[2 * CFG_MAX_SETS];
    int n_best, n;
    struct cJSON *keep;        /* best.json's tree, which ov points into */
    char best_scenario[4096];
};

/* Writes "rocesim WHO: message" and the usage to stderr; returns SCN_EUSAGE. */
int cfg_cmd_bad(const struct cfg_cmd *c, const char *fmt, const char *arg);

/*
 * Takes argv[*i] when it is one of the shared arguments (SCENARIO, --set PATH=VALUE, --from FILE,
 * --allow-incomplete), moving *i past its value.  Returns 1 when taken, 0 when it is not one of them, or -1
 * after a message (cfg_cmd_bad: the command's usage error).
 */
int cfg_cmd_arg(struct cfg_cmd *c, int argc, char **argv, int *i);

/*
 * Loads the scenario with the best point's values (--from; an unfinished sweep's or tune's only with
 * --allow-incomplete, and then with a warning) and the --set overrides after them.  Returns 0, or the status
 * after a message on stderr.  On success scn needs scn_free.
 */
int cfg_cmd_load(struct cfg_cmd *c, struct scenario *scn);

void cfg_cmd_free(struct cfg_cmd *c);

#endif
