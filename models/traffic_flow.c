/*
 * traffic_flow — the kind "flow": one message of `size` bytes from `src` to `dst`, at most at `rate`, along the
 * shortest paths (ECMP) or a pinned `path`.  The unit every workload is made of.
 */
#include "models/traffic.h"
#include "models/trigger.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

struct flow_conf {
    int src, dst;         /* host indices */
    int64_t size;
    int64_t rate_bps;     /* application rate cap; 0 = none */
    struct scn_route path; /* pinned route as node names, resolved by the topology; n 0: none */
    struct flow_trig trig; /* the triggers it waits on and activates (models/trigger.h) */
};

static int check_dst(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct flow_conf *e = base;
    char p[SETTING_PATH_MAX];
    (void)obj;
    if (e->src == e->dst)
        return setting_bad(c, setting_join(p, path, "dst"), "expected a host other than the source, got \"%s\"",
                           scn_host_name(scn_loading(c), e->dst));
    return 0;
}

/* A flow that waits on a trigger starts when it fires: a start of its own would say otherwise. */
static int check_trigger(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct flow_conf *e = base;
    char p[SETTING_PATH_MAX];
    const struct scn_traffic *t = scn_loading_traffic(c);
    (void)obj;
    if (*e->trig.wait && t && t->start_given)
        return setting_bad(c, setting_join(p, path, "trigger"), "expected either a trigger or a start, got both "
                                                                 "(the flow starts when trigger \"%s\" fires)",
                           e->trig.wait);
    return 0;
}

static int parse_path(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    struct flow_conf *e = base;
    (void)f;
    return scn_val_route(c, v, path, e->src, e->dst, &e->path);
}

/* The rate is left out when there is none. */
static void dump_rate(cJSON *obj, const struct setting *f, const void *base)
{
    const struct flow_conf *e = base;
    char b[40];
    if (e->rate_bps > 0)
        cJSON_AddStringToObject(obj, f->name, units_fmt_rate(e->rate_bps, b, sizeof b));
}

#define HOST_FIELD(name_, member_, help_)                                                                         \
    .name = name_, .kind = SETTING_CUSTOM, .offset = offsetof(struct flow_conf, member_),                           \
    .flags = SETTING_REQUIRED, .what = "a host name like \"h0\"", .help = help_, .parse = scn_parse_host,          \
    .dump = scn_dump_host

#define TRIG_FIELD(name_, member_, help_)                                                                         \
    .name = name_, .kind = SETTING_CUSTOM, .offset = offsetof(struct flow_conf, trig.member_), .help = help_,       \
    .parse = trigger_parse_ref, .dump = trigger_dump_ref

static const struct setting flow_fields[] = {
    {HOST_FIELD("src", src, "Sender")},
    {HOST_FIELD("dst", dst, "Receiver, different from src")},
    {SET_CHECK(check_dst)},
    {SET_FIELD("size", SETTING_SIZE, struct flow_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "Bytes to transfer"), .what = "a size like \"20KB\""},
    {SET_FIELD("rate", SETTING_RATE, struct flow_conf, rate_bps, SETTING_POSITIVE, NULL,
               "Application limit: the flow never sends faster than this"), .dump = dump_rate},
    {.name = "path", .kind = SETTING_CUSTOM, .offset = offsetof(struct flow_conf, path),
     .help = "Pins the route: every node from src to dst", .parse = parse_path, .dump = scn_dump_route},
    {TRIG_FIELD("trigger", wait, "Starts the flow when that trigger fires, instead of at start")},
    {TRIG_FIELD("on_sent", sent, "Activates that trigger when the sender has the ACK of the last byte")},
    {TRIG_FIELD("on_received", received, "Activates that trigger when the receiver holds the whole message")},
    {SET_CHECK(check_trigger)},
    {0},
};

static const struct setting_group flow_group = {
    .path = "traffic.flow", .size = sizeof(struct flow_conf), .per_entry = true, .fields = flow_fields,
};

/* Resolves a pinned path into node ids; checks that consecutive nodes are linked. */
static int resolve_path(struct net *n, int ti, const struct flow_conf *e, uint32_t *nodes, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    for (int i = 0; i < e->path.n; i++) {
        int32_t id = graph_find(n->g, e->path.node[i]);
        if (id < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: expected a node name, got \"%s\" (no such node)",
                     scn->file, ti, i, e->path.node[i]);
            return SCN_EUSAGE;
        }
        nodes[i] = (uint32_t)id;
        if (i > 0 && graph_port_to(n->g, nodes[i - 1], nodes[i]) < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: \"%s\" and \"%s\" are not linked", scn->file, ti, i,
                     e->path.node[i - 1], e->path.node[i]);
            return SCN_EUSAGE;
        }
        if (i > 0 && i + 1 < e->path.n && n->g->nodes[id].kind == SCN_NODE_HOST) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: host \"%s\" cannot forward traffic", scn->file, ti, i,
                     e->path.node[i]);
            return SCN_EUSAGE;
        }
    }
    if (nodes[0] != n->g->host_node[e->src] || nodes[e->path.n - 1] != n->g->host_node[e->dst]) {
        snprintf(err, errlen, "%s: traffic.%d.path: must start at the flow's src and end at its dst", scn->file, ti);
        return SCN_EUSAGE;
    }
    if (e->path.n > 255) {
        snprintf(err, errlen, "%s: traffic.%d.path: at most 255 nodes, got %d", scn->file, ti, e->path.n);
        return SCN_EUSAGE;
    }
    return 0;
}


static int flow_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[ti];
    const struct flow_conf *fc = TRAFFIC_CONF(e, struct flow_conf);
    uint32_t *nodes = NULL;
    if (fc->path.n) {
        nodes = mem_xcalloc((size_t)fc->path.n, sizeof *nodes, "generating traffic");
        int rc = resolve_path(n, ti, fc, nodes, err, errlen);
        if (rc) {
            free(nodes);
            return rc;
        }
    }
    const char *name = traffic_name(t, e->id, -1);
    struct flow *f;
    if (*fc->trig.wait)
        f = net_add_waiting_flow(n, name, (uint32_t)fc->src, (uint32_t)fc->dst, fc->size, traffic_prio(n, e),
                                 fc->rate_bps, nodes, fc->path.n);
    else
        f = net_add_flow(n, name, (uint32_t)fc->src, (uint32_t)fc->dst, fc->size, e->start_ps, traffic_prio(n, e),
                         fc->rate_bps, nodes, fc->path.n);
    trigger_flow_added(t, ti, f, &fc->trig);
    free(nodes);
    return 0;
}

static void flow_release(struct traffic *t, int ti)
{
    (void)t, (void)ti;
}

static long flow_numbered(const struct scn_traffic *e)
{
    (void)e;
    return 0; /* its one flow is the entry's id */
}

static void flow_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                       struct traffic_count *out)
{
    (void)s, (void)ti, (void)host_rate, (void)t;
    *out = (struct traffic_count){.made = 1};
}

static int flow_senders(const struct scn_traffic *e, const int **hosts)
{
    *hosts = &TRAFFIC_CONF(e, struct flow_conf)->src;
    return 1;
}

const struct flow_trig *traffic_flow_trig(const struct scn_traffic *e, int *src, int *dst)
{
    if (traffic_ops_of(e)->setup != flow_setup)
        return NULL;
    const struct flow_conf *fc = TRAFFIC_CONF(e, struct flow_conf);
    *src = fc->src;
    *dst = fc->dst;
    return &fc->trig;
}

static bool flow_untimed(const struct scn_traffic *e)
{
    return *TRAFFIC_CONF(e, struct flow_conf)->trig.wait != '\0';
}

static const struct traffic_ops flow_ops = {
    .scn = {.numbered = flow_numbered, .untimed = flow_untimed},
    .setup = flow_setup,
    .release = flow_release,
    .count = flow_count,
    .senders = flow_senders,
};

MODULE_REGISTER(traffic_kind, "flow", &flow_ops, &flow_group);
