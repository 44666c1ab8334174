/* monitor_settings — the `monitor` object's settings (monitor_settings.h). */
#include "tools/run/monitor_settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A "node:port" pattern (monitor.queues, monitor.capture's ports): its shape; the network checks that it matches. */
static int check_pattern(struct setting_ctx *c, const char *q, const char *s)
{
    const char *colon = strchr(s, ':');
    size_t nl = colon ? (size_t)(colon - s) : 0;
    bool ok = colon && nl > 0 && nl < SCN_NAME_MAX && !strchr(colon + 1, ':') &&
              (strcmp(colon + 1, "*") == 0 || (scn_all_digits(colon + 1) && strlen(colon + 1) <= 6));
    for (const char *k = s; ok && k < colon; k++)
        ok = !isspace((unsigned char)*k) && *k != ',' && *k != '"';
    if (!ok)
        return setting_bad(c, q, "expected a \"node:port\" pattern like \"s0:3\" or \"leaf*:*\" (the port a "
                                 "number or *), got \"%.60s\"", s);
    return 0;
}

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
        if (check_pattern(c, q, s) < 0)
            return -1;
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

static const char *const capture_fields[] = {"ports", "start", "end", "snaplen", "max_size", "vlan", NULL};

/* One entry of monitor.capture at path p into *e. */
static int parse_capture_entry(struct setting_ctx *c, const cJSON *v, const char *p, struct capture_spec *e)
{
    char q[SETTING_PATH_MAX], r[SETTING_PATH_MAX];
    if (setting_val_obj(c, v, p) < 0 || setting_check_fields(c, v, p, capture_fields) < 0)
        return -1;
    *e = (struct capture_spec){.start_ps = 0, .end_ps = -1, .snaplen = CAPTURE_SNAPLEN_DEFAULT,
                               .max_size = CAPTURE_MAX_SIZE_DEFAULT, .vlan = true};
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(v, "ports");
    setting_join(q, p, "ports");
    if (!ports)
        return setting_bad(c, p, "expected \"ports\": an array of \"node:port\" patterns like [\"tor0:3\", \"h5:0\"]");
    if (setting_val_arr(c, ports, q, "an array of \"node:port\" patterns like [\"tor0:3\", \"h5:0\"]") < 0)
        return -1;
    int n = cJSON_GetArraySize(ports), i = 0;
    if (n == 0)
        return setting_bad(c, q, "expected at least one \"node:port\" pattern, got []");
    if (!(e->ports = scn_keep(c, (size_t)n * sizeof *e->ports)))
        return -1;
    e->n_ports = n;
    for (const cJSON *it = ports->child; it; it = it->next, i++) {
        const char *s = NULL;
        setting_join_idx(r, q, i);
        if (setting_val_str(c, it, r, "a \"node:port\" pattern like \"tor0:3\" or \"h5:0\"", &s) < 0 ||
            check_pattern(c, r, s) < 0)
            return -1;
        setting_strf(e->ports[i], sizeof e->ports[i], "%s", s);
    }
    const cJSON *x;
    if ((x = cJSON_GetObjectItemCaseSensitive(v, "start")) &&
        setting_val_qty(c, x, setting_join(q, p, "start"), SETTING_TIME, false, &e->start_ps) < 0)
        return -1;
    if ((x = cJSON_GetObjectItemCaseSensitive(v, "end"))) {
        if (setting_val_qty(c, x, setting_join(q, p, "end"), SETTING_TIME, false, &e->end_ps) < 0)
            return -1;
        if (e->end_ps <= e->start_ps)
            return setting_bad(c, q, "expected a time after start (%s), got \"%.60s\"",
                               units_fmt_time(e->start_ps, r, sizeof r), cJSON_IsString(x) ? x->valuestring : "");
    }
    long long sl;
    if ((x = cJSON_GetObjectItemCaseSensitive(v, "snaplen"))) {
        if (setting_val_int(c, x, setting_join(q, p, "snaplen"), CAPTURE_SNAPLEN_MIN, CAPTURE_SNAPLEN_MAX, &sl) < 0)
            return -1;
        e->snaplen = (int)sl;
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(v, "max_size"))) {
        if (setting_val_qty(c, x, setting_join(q, p, "max_size"), SETTING_SIZE, true, &e->max_size) < 0)
            return -1;
        if (e->max_size < CAPTURE_MAX_SIZE_MIN || e->max_size > CAPTURE_MAX_SIZE_LIMIT)
            return setting_bad(c, q, "expected a size from 1KB to 1GB, got %s",
                               units_fmt_size(e->max_size, r, sizeof r));
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(v, "vlan")) &&
        setting_val_bool(c, x, setting_join(q, p, "vlan"), &e->vlan) < 0)
        return -1;
    return 0;
}

static int parse_capture(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct monitor_settings *m = base;
    char q[SETTING_PATH_MAX];
    (void)f;
    if (setting_val_arr(c, v, p, "an array of captures like [{\"ports\": [\"tor0:3\"]}]") < 0)
        return -1;
    int n = cJSON_GetArraySize(v), i = 0;
    m->captures = NULL;
    m->n_captures = 0;
    if (n == 0)
        return 0;
    struct capture_spec *e = scn_keep(c, (size_t)n * sizeof *e);
    if (!e)
        return -1;
    for (const cJSON *it = v->child; it; it = it->next, i++)
        if (parse_capture_entry(c, it, setting_join_idx(q, p, i), &e[i]) < 0)
            return -1;
    m->captures = e;
    m->n_captures = n;
    return 0;
}

static void dump_capture(cJSON *o, const struct setting *f, const void *base)
{
    const struct monitor_settings *m = base;
    char b[64];
    cJSON *a = cJSON_AddArrayToObject(o, f->name);
    for (int i = 0; a && i < m->n_captures; i++) {
        const struct capture_spec *e = &m->captures[i];
        cJSON *it = cJSON_CreateObject(), *ports = cJSON_AddArrayToObject(it, "ports");
        for (int k = 0; k < e->n_ports; k++)
            cJSON_AddItemToArray(ports, cJSON_CreateString(e->ports[k]));
        cJSON_AddStringToObject(it, "start", units_fmt_time(e->start_ps, b, sizeof b));
        if (e->end_ps >= 0)
            cJSON_AddStringToObject(it, "end", units_fmt_time(e->end_ps, b, sizeof b));
        cJSON_AddNumberToObject(it, "snaplen", e->snaplen);
        cJSON_AddStringToObject(it, "max_size", units_fmt_size(e->max_size, b, sizeof b));
        cJSON_AddBoolToObject(it, "vlan", e->vlan);
        cJSON_AddItemToArray(a, it);
    }
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
    {SET_FIELD("capture", SETTING_CUSTOM, struct monitor_settings, captures, 0, "[]",
               "Packet captures: pcap files of the frames on the links of the ports named (capture/NODE-PORT.pcap)"),
     .parse = parse_capture, .dump = dump_capture},
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

