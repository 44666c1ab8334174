/*
 * ns3rdma_export — a scenario as the ns-3 RDMA simulator's config.txt, topology.txt and flow.txt
 * (docs/ns3-rdma.md), the inverse of ns3rdma_import.c for what the three files can express.
 *
 * It reads the scenario's JSON as written (a `custom` topology in node order, whose index is the reference's node
 * id; `flow` entries; host.cc with its group; switch.buffer, ecn and pfc), writes the keys the import maps, and
 * lists on stderr, one scenario path a line, what the files cannot express.  Values the scenario leaves to
 * rocesim's defaults are left to the reference's (a key not written).
 */
#include "tools/ops/ns3rdma.h"
#include "tools/ops/htsim.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A rocesim quantity string in the unit the reference's key takes; false when absent or unreadable. */
static bool qty(const cJSON *o, const char *k, int kind, int64_t *v)
{
    const char *s = str(o, k);
    char e[128];
    if (!s)
        return false;
    int rc = kind == 0 ? units_parse_rate(s, v, e, sizeof e) : kind == 1 ? units_parse_time(s, v, e, sizeof e)
                                                                        : units_parse_size(s, v, e, sizeof e);
    return rc >= 0;
}

/* The KB (1000 bytes) of a size, or the probability, of a map by rate, as the reference's N rate value ... */
static void map_line(struct sbuf *b, const char *key, const cJSON *m, bool frac)
{
    if (!cJSON_IsObject(m))
        return;
    sb_printf(b, "%s %d", key, cJSON_GetArraySize(m));
    const cJSON *it;
    cJSON_ArrayForEach(it, m)
    {
        int64_t bps = 0, bytes = 0;
        char e[128];
        units_parse_rate(it->string, &bps, e, sizeof e);
        if (frac)
            sb_printf(b, " %lld %g", (long long)bps, it->valuedouble);
        else if (cJSON_IsString(it) && units_parse_size(it->valuestring, &bytes, e, sizeof e) >= 0)
            sb_printf(b, " %lld %lld", (long long)bps, (long long)(bytes / 1000));
    }
    sb_printf(b, "\n");
}

static void unexpressed(struct sbuf *u, const char *path, const char *why) { sb_printf(u, "%s: %s\n", path, why); }

/* The index of the node named name in nodes (its node id there), or -1. */
static int node_index(const cJSON *nodes, const char *name)
{
    const cJSON *n;
    int i = 0;
    cJSON_ArrayForEach(n, nodes)
    {
        if (name && str(n, "name") && !strcmp(str(n, "name"), name))
            return i;
        i++;
    }
    return -1;
}

/* topology.txt: the counts, the switches' ids, a line per link. */
static int export_topology(const cJSON *nodes, const cJSON *links, struct sbuf *topo, struct sbuf *u, char *err,
                           size_t errlen)
{
    int nn = cJSON_GetArraySize(nodes), nsw = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) nsw += str(n, "kind") && !strcmp(str(n, "kind"), "switch");
    sb_printf(topo, "%d %d %d\n", nn, nsw, cJSON_GetArraySize(links));
    int id = 0;
    const char *sep = "";
    cJSON_ArrayForEach(n, nodes)
    {
        if (str(n, "kind") && !strcmp(str(n, "kind"), "switch")) {
            sb_printf(topo, "%s%d", sep, id);
            sep = " ";
        }
        id++;
    }
    sb_printf(topo, "\n");
    const cJSON *l;
    int li = 0;
    cJSON_ArrayForEach(l, links)
    {
        int a = node_index(nodes, str(l, "a")), b = node_index(nodes, str(l, "b"));
        int64_t bps = 0, ps = 0;
        if (a < 0 || b < 0 || !qty(l, "rate", 0, &bps) || !qty(l, "delay", 1, &ps)) {
            snprintf(err, errlen, "topology.links[%d]: expected two nodes of topology.nodes, a rate and a delay", li);
            return SCN_EUSAGE;
        }
        const cJSON *lr = get(l, "loss_rate");
        char r[32];
        sb_printf(topo, "%d %d %s %lldns %g\n", a, b, htsim_fmt_rate(bps, r, sizeof r), (long long)(ps / 1000),
                  cJSON_IsNumber(lr) ? lr->valuedouble : 0.0);
        if (ps % 1000)
            unexpressed(u, "topology.links", "delays below a nanosecond are truncated (the reference's time unit)");
        li++;
    }
    return 0;
}

/* flow.txt: the count, a line per `flow` entry (dport 100); other entries are said unexpressed. */
static void export_flows(const cJSON *s, const cJSON *nodes, struct sbuf *flows, struct sbuf *u)
{
    const cJSON *e;
    struct sbuf fl = {0};
    int nf = 0, ti = 0;
    cJSON_ArrayForEach(e, get(s, "traffic"))
    {
        char path[64];
        snprintf(path, sizeof path, "traffic[%d]", ti++);
        if (!str(e, "type") || strcmp(str(e, "type"), "flow")) {
            unexpressed(u, path, "not a single flow (the reference's flow file lists flows one by one)");
            continue;
        }
        int src = node_index(nodes, str(e, "src")), dst = node_index(nodes, str(e, "dst"));
        int64_t size = 0, start = 0;
        const cJSON *pr = get(e, "priority");
        if (src < 0 || dst < 0 || !qty(e, "size", 2, &size)) {
            unexpressed(u, path, "its hosts or size are not plain names and a size");
            continue;
        }
        qty(e, "start", 1, &start);
        if (get(e, "rate") || get(e, "path") || get(e, "trigger") || get(e, "on_sent") || get(e, "on_received"))
            unexpressed(u, path, "rate, path and triggers have no column in the flow file (written without them)");
        sb_printf(&fl, "%d %d %d 100 %lld %lld.%012lld\n", src, dst, cJSON_IsNumber(pr) ? pr->valueint : 3,
                  (long long)size, (long long)(start / 1000000000000LL), (long long)(start % 1000000000000LL));
        nf++;
    }
    sb_printf(flows, "%d\n%s", nf, fl.p ? fl.p : "");
    free(fl.p);
}

/* The congestion control's keys: CC_MODE and its parameters. */
static int export_cc(const cJSON *h, struct sbuf *cfg, struct sbuf *u, char *err, size_t errlen)
{
    int64_t v;
    const char *cc = str(h, "cc") ? str(h, "cc") : "dcqcn";
    if (!strcmp(cc, "dcqcn")) {
        const cJSON *d = get(h, "dcqcn");
        sb_printf(cfg, "CC_MODE 1\nHAS_WIN 0\n");
        const cJSON *g = get(d, "g"), *fr = get(d, "fast_recovery_steps"), *cl = get(d, "clamp_target_rate");
        if (cJSON_IsNumber(g))
            sb_printf(cfg, "EWMA_GAIN %.17g\n", g->valuedouble);
        if (qty(d, "alpha_timer", 1, &v))
            sb_printf(cfg, "ALPHA_RESUME_INTERVAL %.17g\n", (double)v / 1e6);
        if (qty(d, "rate_increase_timer", 1, &v))
            sb_printf(cfg, "RP_TIMER %.17g\n", (double)v / 1e6);
        if (qty(d, "rate_reduce_monitor_period", 1, &v))
            sb_printf(cfg, "RATE_DECREASE_INTERVAL %.17g\n", (double)v / 1e6);
        if (cJSON_IsNumber(fr))
            sb_printf(cfg, "FAST_RECOVERY_TIMES %d\n", fr->valueint);
        if (qty(d, "ai_rate", 0, &v))
            sb_printf(cfg, "RATE_AI %lldb/s\n", (long long)v);
        if (qty(d, "hai_rate", 0, &v))
            sb_printf(cfg, "RATE_HAI %lldb/s\n", (long long)v);
        if (qty(d, "min_rate", 0, &v))
            sb_printf(cfg, "MIN_RATE %lldb/s\n", (long long)v);
        if (cJSON_IsBool(cl))
            sb_printf(cfg, "CLAMP_TARGET_RATE %d\n", cJSON_IsTrue(cl));
    } else if (!strcmp(cc, "hpcc")) {
        const cJSON *p = get(h, "hpcc"), *eta = get(p, "eta"), *ms = get(p, "max_stage");
        int64_t wai = 0, T = 0;
        sb_printf(cfg, "CC_MODE 3\nHAS_WIN 1\nVAR_WIN 1\nGLOBAL_T 1\nFAST_REACT 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\n");
        if (cJSON_IsNumber(eta))
            sb_printf(cfg, "U_TARGET %.17g\n", eta->valuedouble);
        if (cJSON_IsNumber(ms))
            sb_printf(cfg, "MI_THRESH %d\n", ms->valueint);
        if (qty(p, "w_ai", 2, &wai) && qty(p, "base_rtt", 1, &T) && T > 0)
            sb_printf(cfg, "RATE_AI %lldb/s\nRATE_HAI %lldb/s\n", (long long)(wai * 8 * 1000000000000LL / T),
                      (long long)(wai * 8 * 1000000000000LL / T));
        unexpressed(u, "host.hpcc.base_rtt", "the reference derives T from the topology (its largest base RTT)");
    } else if (!strcmp(cc, "timely")) {
        const cJSON *p = get(h, "timely");
        sb_printf(cfg, "CC_MODE 7\nHAS_WIN 0\n");
        if (qty(p, "delta", 0, &v))
            sb_printf(cfg, "RATE_AI %lldb/s\nRATE_HAI %lldb/s\n", (long long)v, (long long)(5 * v));
        if (qty(p, "min_rate", 0, &v))
            sb_printf(cfg, "MIN_RATE %lldb/s\n", (long long)v);
    } else if (!strcmp(cc, "dctcp")) {
        const cJSON *p = get(h, "dctcp"), *g = get(p, "g");
        int64_t w = 0;
        qty(p, "window_rtt", 1, &w);
        sb_printf(cfg, "CC_MODE 8\nHAS_WIN %d\nVAR_WIN 1\nGLOBAL_T 1\n", w > 0);
        if (cJSON_IsNumber(g))
            sb_printf(cfg, "EWMA_GAIN %.17g\n", g->valuedouble);
        if (qty(p, "ai_rate", 0, &v))
            sb_printf(cfg, "DCTCP_RATE_AI %lldb/s\n", (long long)v);
        if (qty(p, "min_rate", 0, &v))
            sb_printf(cfg, "MIN_RATE %lldb/s\n", (long long)v);
        if (w > 0)
            unexpressed(u, "host.dctcp.window_rtt", "the reference derives T from the topology (its largest base RTT)");
    } else {
        snprintf(err, errlen, "host.cc \"%s\": the reference runs DCQCN, HPCC, TIMELY or DCTCP", cc);
        return SCN_EUSAGE;
    }
    return 0;
}

/* The switches' keys (buffer, ECN maps) and LINK_DOWN. */
static void export_switch(const cJSON *s, const cJSON *nodes, struct sbuf *cfg, struct sbuf *u)
{
    const cJSON *sw = get(s, "switch");
    int64_t v;
    if (qty(sw, "buffer", 2, &v)) {
        sb_printf(cfg, "BUFFER_SIZE %lld\n", (long long)(v / (1024 * 1024)));
        if (v % (1024 * 1024))
            unexpressed(u, "switch.buffer", "not whole MiB (BUFFER_SIZE's unit): rounded down");
    }
    const cJSON *ecn = get(sw, "ecn"), *en = get(ecn, "enabled");
    if (cJSON_IsFalse(en)) {
        sb_printf(cfg, "ENABLE_QCN 0\n");
    } else {
        sb_printf(cfg, "ENABLE_QCN 1\n");
        map_line(cfg, "KMAX_MAP", get(ecn, "kmax"), false);
        map_line(cfg, "KMIN_MAP", get(ecn, "kmin"), false);
        map_line(cfg, "PMAX_MAP", get(ecn, "pmax"), true);
        if (!cJSON_IsObject(get(ecn, "kmin")))
            unexpressed(u, "switch.ecn", "thresholds not given by rate (the reference needs KMIN_MAP, KMAX_MAP and "
                        "PMAX_MAP for every link rate)");
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, get(s, "faults"))
    {
        const cJSON *btw = get(f, "between");
        int64_t at = 0;
        if (str(f, "type") && !strcmp(str(f, "type"), "link_down") && cJSON_GetArraySize(btw) == 2 &&
            qty(f, "at", 1, &at) && at > 2000000000000LL && !get(f, "until")) {
            int a = node_index(nodes, cJSON_GetArrayItem(btw, 0)->valuestring),
                b = node_index(nodes, cJSON_GetArrayItem(btw, 1)->valuestring);
            sb_printf(cfg, "LINK_DOWN %lld %d %d\n", (long long)((at - 2000000000000LL) / 1000000), a, b);
        } else {
            unexpressed(u, "faults", "only one link_down after 2 s and never back (LINK_DOWN a b c)");
        }
    }
}

static int export_json(const cJSON *s, struct sbuf *cfg, struct sbuf *topo, struct sbuf *flows, struct sbuf *u,
                       char *err, size_t errlen)
{
    const cJSON *t = get(s, "topology"), *nodes = get(t, "nodes"), *links = get(t, "links");
    const char *type = str(t, "type");
    if (!type || strcmp(type, "custom") || !cJSON_IsArray(nodes) || !cJSON_IsArray(links)) {
        snprintf(err, errlen, "topology: only a \"custom\" topology is exported (its nodes in order are the "
                 "reference's node ids); `rocesim topo --format json` lists a generated one's nodes and links");
        return SCN_EUSAGE;
    }
    int rc = export_topology(nodes, links, topo, u, err, errlen);
    if (rc)
        return rc;
    export_flows(s, nodes, flows, u);
    /* config */
    const cJSON *h = get(s, "host");
    sb_printf(cfg, "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\nFCT_OUTPUT_FILE fct.txt\nPFC_OUTPUT_FILE pfc.txt\n");
    int64_t v;
    if (qty(s, "stop", 1, &v))
        sb_printf(cfg, "SIMULATOR_STOP_TIME %lld.%012lld\n", (long long)(v / 1000000000000LL),
                  (long long)(v % 1000000000000LL));
    const cJSON *mtu = get(h, "mtu");
    if (cJSON_IsNumber(mtu))
        sb_printf(cfg, "PACKET_PAYLOAD_SIZE %d\n", mtu->valueint);
    sb_printf(cfg, "L2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\n");
    /* ACKs with their data at the switches, sent first by the NIC unless the data's priority is paused: its
     * ACK_HIGH_PRIO 0 (the NIC's ACK queue under the pause of priority 3); its switches queue no ACK apart. */
    const cJSON *ap = get(h, "ack_priority");
    if (cJSON_IsNumber(ap))
        unexpressed(u, "host.ack_priority", "the reference's switches queue ACKs and NACKs with their data "
                    "(written as \"data\")");
    sb_printf(cfg, "ACK_HIGH_PRIO 0\n");
    if ((rc = export_cc(h, cfg, u, err, errlen)) != 0)
        return rc;
    export_switch(s, nodes, cfg, u);
    return 0;
}

static const char export_usage[] =
    "usage: rocesim export ns3-rdma SCENARIO.json -o DIR\n"
    "  writes the scenario as the ns-3 RDMA simulator's config.txt, topology.txt and flow.txt in DIR, and prints\n"
    "  the settings they cannot express.  See docs/ns3-rdma.md.\n";

int ns3rdma_export_main(int argc, char **argv)
{
    const char *file, *dir;
    cJSON *s;
    int rc = export_open(argc, argv, 3, export_usage, &file, &dir, &s);
    if (rc)
        return rc < 0 ? 0 : rc;
    char err[SCN_ERR_MAX];
    struct sbuf cfg = {0}, topo = {0}, flows = {0}, u = {0};
    rc = export_json(s, &cfg, &topo, &flows, &u, err, sizeof err);
    cJSON_Delete(s);
    static const char *const names[] = {"config.txt", "topology.txt", "flow.txt"};
    struct sbuf *const bufs[] = {&cfg, &topo, &flows};
    rc = export_finish(rc, err, file, dir, names, bufs, 3, &u);
    free(cfg.p), free(topo.p), free(flows.p), free(u.p);
    return rc;
}
