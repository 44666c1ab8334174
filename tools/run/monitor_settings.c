/* monitor_settings — the `monitor` object's settings (monitor_settings.h). */
#include "tools/run/monitor_settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The patterns live in the scenario's store: a stored value is never written again (sim/settings.h), so a new list
 * is a new block, and the one it replaces stays for the values that point at it. */
static int parse_queues(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct monitor_settings *m = base;
    char q[SETTING_PATH_MAX];
    (void)f;
    if (setting_val_arr(c, v, p, "an array of \"node:port\" patterns like [\"s0:*\"]") < 0)
        return -1;
    int n = cJSON_GetArraySize(v), i = 0;
    m->queues = NULL;
    m->n_queues = 0;
    /* The default [] allocates nothing. */
    if (n == 0)
        return 0;
    if (!(m->queues = scn_keep(c, (size_t)n * sizeof *m->queues)))
        return -1;
    m->n_queues = n;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        const char *s = NULL;
        setting_join_idx(q, p, i);
        if (setting_val_str(c, it, q, "a \"node:port\" pattern like \"s0:*\"", &s) < 0)
            return -1;
        const char *colon = strchr(s, ':');
        size_t nl = colon ? (size_t)(colon - s) : 0;
        bool ok = colon && nl > 0 && nl < SCN_NAME_MAX && !strchr(colon + 1, ':') &&
                  (strcmp(colon + 1, "*") == 0 || (scn_all_digits(colon + 1) && strlen(colon + 1) <= 6));
        for (const char *k = s; ok && k < colon; k++)
            ok = !isspace((unsigned char)*k) && *k != ',' && *k != '"';
        if (!ok)
            return setting_bad(c, q, "expected a \"node:port\" pattern like \"s0:3\" or \"leaf*:*\" (the port a "
                                     "number or *), got \"%.60s\"", s);
        setting_strf(m->queues[i], sizeof m->queues[i], "%s", s);
    }
    return 0;
}

static void dump_queues(cJSON *o, const struct setting *f, const void *base)
{
    const struct monitor_settings *m = base;
    cJSON *q = cJSON_AddArrayToObject(o, f->name);
    for (int i = 0; q && i < m->n_queues; i++)
        cJSON_AddItemToArray(q, cJSON_CreateString(m->queues[i]));
}

/* A list names flows of the traffic, which the loader read before (the top level's table order). */
static int parse_flows(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct monitor_settings *m = base;
    char q[SETTING_PATH_MAX], d[96];
    (void)f;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
        m->flows = MON_FLOWS_AUTO;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0) {
        m->flows = MON_FLOWS_ALL;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0) {
        m->flows = MON_FLOWS_NONE;
    } else if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v), i = 0;
        if (!(m->flow_ids = scn_keep(c, (size_t)(n ? n : 1) * sizeof *m->flow_ids)))
            return -1;
        m->n_flows = n;
        m->flows = MON_FLOWS_LIST;
        for (const cJSON *it = v->child; it; it = it->next, i++) {
            setting_join_idx(q, p, i);
            if (scn_val_name(c, it, q, "a flow id", "", m->flow_ids[i]) < 0)
                return -1;
            if (!scn_flow_id_exists(scn_loading(c), m->flow_ids[i]))
                return setting_bad(c, q, "expected the id of a traffic entry (or \"ID.N\" for one flow of a "
                                         "generator entry), got \"%s\"", m->flow_ids[i]);
            for (int k = 0; k < i; k++)
                if (strcmp(m->flow_ids[k], m->flow_ids[i]) == 0)
                    return setting_bad(c, q, "expected each flow id once, got \"%s\" again", m->flow_ids[i]);
        }
    } else {
        if (cJSON_IsString(v))
            return setting_bad(c, p, "expected \"auto\", \"all\", \"none\" or an array of flow ids, got \"%.60s\"",
                               v->valuestring);
        return setting_bad(c, p, "expected \"auto\", \"all\", \"none\" or an array of flow ids, got %s",
                           setting_describe(v, d, sizeof d));
    }
    return 0;
}

static void dump_flows(cJSON *o, const struct setting *f, const void *base)
{
    const struct monitor_settings *m = base;
    if (m->flows == MON_FLOWS_LIST) {
        cJSON *a = cJSON_AddArrayToObject(o, f->name);
        for (int i = 0; a && i < m->n_flows; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(m->flow_ids[i]));
    } else {
        cJSON_AddStringToObject(o, f->name, m->flows == MON_FLOWS_NONE ? "none" : m->flows == MON_FLOWS_ALL ? "all"
                                                                                                          : "auto");
    }
}

static const char *const mon_pfc_names[] = {"auto", "all", "none", NULL}; /* enum mon_pfc_sel order */

/* An enum, with its own wording (older than the common one). */
static int parse_mon_pfc(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct monitor_settings *m = base;
    char d[96];
    int k = 0;
    (void)f;
    while (k < 3 && !(cJSON_IsString(v) && strcmp(v->valuestring, mon_pfc_names[k]) == 0))
        k++;
    if (k == 3) {
        if (cJSON_IsString(v))
            return setting_bad(c, p, "expected \"auto\", \"all\" or \"none\", got \"%.60s\"", v->valuestring);
        return setting_bad(c, p, "expected \"auto\", \"all\" or \"none\", got %s", setting_describe(v, d, sizeof d));
    }
    m->pfc = (enum mon_pfc_sel)k;
    return 0;
}

static const struct setting monitor_fields[] = {
    {SET_FIELD("interval", SETTING_TIME, struct monitor_settings, interval_ps, SETTING_POSITIVE, "10us",
               "Sampling period of queues.csv and rates.csv")},
    {SET_FIELD("queues", SETTING_CUSTOM, struct monitor_settings, queues, 0, "[]",
               "Switch egress ports to sample, as \"node:port\" patterns (* allowed)"),
     .parse = parse_queues, .dump = dump_queues},
    {SET_FIELD("flows", SETTING_CUSTOM, struct monitor_settings, flows, 0, "auto",
               "Flows whose rates go into rates.csv: \"auto\", \"all\", \"none\" or a list of traffic ids"),
     .parse = parse_flows, .dump = dump_flows},
    {SET_ENUM("pfc", struct monitor_settings, pfc, mon_pfc_names, "auto", "Which PFC frames go into pfc.csv"),
     .parse = parse_mon_pfc},
    {SET_ENUM("credits", struct monitor_settings, credits, mon_pfc_names, "auto",
              "InfiniBand: which ports' credit stalls go into credits.csv")},
    {SET_FIELD("counters", SETTING_BOOL, struct monitor_settings, counters, 0, "false",
               "Counts frames, PAUSE, marks and drops per (port, priority) into counters.csv")},
    {SET_FIELD("plot_ecn", SETTING_BOOL, struct monitor_settings, plot_ecn, 0, "true",
               "queues.png draws the ECN thresholds kmin and kmax; false hides them (an exercise about them)")},
    {SET_FIELD("step_flows", SETTING_BOOL, struct monitor_settings, step_flows, 0, "true",
               "A collective's steps are flows of flows.csv and the FCT statistics; false: its summary alone, "
               "and each step's record is reused once it is done (memory as steps in flight)")},
    {0},
};

/* After faults: monitor.flows names traffic, and `rocesim check` has always printed the object there. */
const struct setting_group monitor_group = {
    .path = "monitor", .size = sizeof(struct monitor_settings), .after = "faults", .fields = monitor_fields,
};

/* See monitor.h. */
const struct monitor_settings *monitor_settings_of(const struct scenario *scn)
{
    return SETTINGS_OF(scn, monitor_group, struct monitor_settings);
}

