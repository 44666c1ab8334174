/* cfgcmd — see cfgcmd.h. */
#include "tools/ops/cfgcmd.h"
#include "models/fabric.h"
#include "tools/explore/sweep.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

int cfg_cmd_bad(const struct cfg_cmd *c, const char *fmt, const char *arg)
{
    return usage_error(c->who, c->usage, fmt, arg);
}

int cfg_cmd_arg(struct cfg_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--set") == 0) {
        const char *eq = next ? strchr(next, '=') : NULL;
        if (!eq || eq == next || (size_t)(eq - next) >= sizeof c->path[0])
            return cfg_cmd_bad(c, "--set expects PATH=VALUE, got \"%s\"", next ? next : ""), -1;
        if (c->n_cli == CFG_MAX_SETS)
            return cfg_cmd_bad(c, "too many --set options, at \"%s\"", next), -1;
        sfmt(c->path[c->n_cli], sizeof c->path[0], "%.*s", (int)(eq - next), next);
        c->cli[c->n_cli].path = c->path[c->n_cli];
        c->cli[c->n_cli].value = eq + 1;
        c->n_cli++;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--from") == 0) {
        if (!next)
            return cfg_cmd_bad(c, "%s needs a best.json file", a), -1;
        c->from = next;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--allow-incomplete") == 0) {
        c->allow_incomplete = true;
        return 1;
    }
    if (a[0] == '-' && a[1])
        return 0;
    if (c->scenario)
        return cfg_cmd_bad(c, "unexpected argument \"%s\"", a), -1;
    c->scenario = a;
    return 1;
}

int cfg_cmd_load(struct cfg_cmd *c, struct scenario *scn)
{
    char err[SCN_ERR_MAX + 4096];
    c->n = 0;
    if (c->from) {
        c->n = sweep_best_overrides(c->from, c->allow_incomplete, c->ov, 0, CFG_MAX_SETS, &c->keep, c->best_scenario,
                                    sizeof c->best_scenario, err, sizeof err);
        if (c->n < 0) {
            c->n = 0;
            fprintf(stderr, "rocesim %s: %s\n", c->who, err);
            return strstr(err, "cannot read") ? SCN_EIO : SCN_EUSAGE;
        }
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c->keep, "complete"))) {
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(c->keep, "runs_done");
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->keep, "runs_total");
            fprintf(stderr, "rocesim %s: warning: %s is from an unfinished sweep or tune (%d of %d runs); its best "
                            "point may not be the sweep's\n", c->who, c->from, cJSON_IsNumber(d) ? d->valueint : -1,
                    cJSON_IsNumber(t) ? t->valueint : -1);
        }
    }
    const char *file = c->scenario;
    if (!file) {
        if (!*c->best_scenario)
            return cfg_cmd_bad(c, "%s", "needs a scenario file (or --from best.json)");
        file = c->best_scenario;
        c->scenario = file;
    }
    c->n_best = c->n;
    for (int i = 0; i < c->n_cli; i++)
        c->ov[c->n++] = c->cli[i];
    int rc = scn_load(file, c->ov, c->n, scn, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim %s: %s\n", c->who, err);
        return rc;
    }
    /* What these commands write (SONiC's tables, ConnectX's RoCE settings) configures Ethernet only. */
    const struct fabric_ops *f = fabric_of(scn);
    if (strcmp(f->name, "roce") != 0) {
        fprintf(stderr, "rocesim %s: %s: fabric: expected \"roce\" (the settings it writes are RoCE's, for "
                        "Ethernet switches and NICs), got \"%s\"\n", c->who, file, f->name);
        scn_free(scn);
        return SCN_EUSAGE;
    }
    return 0;
}

void cfg_cmd_free(struct cfg_cmd *c)
{
    cJSON_Delete(c->keep);
    c->keep = NULL;
}
