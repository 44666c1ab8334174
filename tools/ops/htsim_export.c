/*
 * htsim_export — a scenario as the UEC reference simulator's inputs (docs/uet.md): a connection matrix (NAME.cm,
 * htsim/sim/datacenter/connection_matrix.cpp's format), a fat-tree file (NAME.topo, fat_tree_topology.cpp's) unless
 * the automatic K-ary tree is the topology, and the htsim_uec command line (cmdline.txt, main_uec.cpp's options).
 *
 * The options come from the settings `rocesim import uet-htsim` writes.  What they cannot express is found by
 * importing them again: every setting of the scenario whose value the import of the export does not give back
 * (or rocesim's default where the scenario leaves it out) is listed by its path.  Traffic other than flows, flow
 * fields the .cm has no word for, starts that are not whole microseconds and on_received (which the reference
 * never fires without -conn_reuse) are listed too.
 */
#include "tools/ops/htsim.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXP_OOM "exporting to htsim_uec"

static const cJSON *at(const cJSON *o, const char *path)
{
    return json_at_path(o, path);
}

static const char *str_at(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool time_at(const cJSON *o, const char *path, int64_t *ps)
{
    const char *s = str_at(o, path);
    char e[160];
    return s && !units_parse_time(s, ps, e, sizeof e);
}

static bool size_at(const cJSON *o, const char *path, int64_t *b)
{
    const char *s = str_at(o, path);
    char e[160];
    return s && !units_parse_size(s, b, e, sizeof e);
}

/* A size, or a map by rate of sizes (what the import writes with -failed): its largest entry, the fabric's own
 * links' (the failed ones' is a quarter of it). */
static bool full_size_at(const cJSON *o, const char *path, int64_t *b)
{
    const cJSON *m = at(o, path), *it;
    if (!cJSON_IsObject(m))
        return size_at(o, path, b);
    char e[160];
    int64_t v, best = -1;
    cJSON_ArrayForEach(it, m)
    {
        if (!cJSON_IsString(it) || units_parse_size(it->valuestring, &v, e, sizeof e))
            return false;
        best = v > best ? v : best;
    }
    *b = best;
    return best >= 0;
}

/* The -failed N whose links are the scenario's link_slow faults, as the import writes them: with two tiers every
 * ToR's links to the first N aggregation switches (N of them named), with three the links into aggregation
 * switches from N cores in all; 0 when it has none.  The run's options then give them back or not (compared). */
static long failed_links(const cJSON *scn, bool two_tiers)
{
    const cJSON *f, *faults = at(scn, "faults");
    long n = 0;
    char seen[64][SCN_NAME_MAX];
    int n_seen = 0;
    cJSON_ArrayForEach(f, faults)
    {
        const char *type = str_at(f, "type");
        const cJSON *b1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "between"), 1);
        if (!type || strcmp(type, "link_slow") || !cJSON_IsString(b1))
            continue;
        if (!two_tiers) {
            n++;
            continue;
        }
        int k = 0;
        while (k < n_seen && strcmp(seen[k], b1->valuestring))
            k++;
        if (k == n_seen && n_seen < 64)
            snprintf(seen[n_seen++], SCN_NAME_MAX, "%s", b1->valuestring);
    }
    return two_tiers ? n_seen : n;
}

/* A host name h<N> as its number, or -1. */
static long host_num(const char *s)
{
    if (!s || s[0] != 'h' || s[1] < '0' || s[1] > '9')
        return -1;
    char *end;
    long v = strtol(s + 1, &end, 10);
    return *end || (s[1] == '0' && s[2]) ? -1 : v;
}

/* An id "<prefix><N>" as N (> 0), or 0. */
static uint32_t id_num(const char *s, char prefix)
{
    if (!s || s[0] != prefix || s[1] < '1' || s[1] > '9')
        return 0;
    char *end;
    unsigned long v = strtoul(s + 1, &end, 10);
    return *end || v > 2147483647UL ? 0 : (uint32_t)v;
}

/* A link object's rate and delay (link, or the shape's host_link / fabric_link over it). */
static bool link_of(const cJSON *topo, const char *key, int64_t *bps, int64_t *ps)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(topo, key);
    if (!l)
        l = cJSON_GetObjectItemCaseSensitive(topo, "link");
    if (!cJSON_IsObject(l) || cJSON_GetObjectItemCaseSensitive(l, "length") ||
        cJSON_GetObjectItemCaseSensitive(l, "loss_rate"))
        return false;
    const char *r = str_at(l, "rate");
    char e[160];
    if (!r || units_parse_rate(r, bps, e, sizeof e))
        return false;
    *ps = 1000000;
    return !cJSON_GetObjectItemCaseSensitive(l, "delay") || time_at(l, "delay", ps);
}

static int count_at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 1e6 && v->valuedouble == floor(v->valuedouble)
               ? (int)v->valuedouble
               : 0;
}

/* The topology as the reference's tree: the automatic one (*auto_tiers set) or a .topo.  False: not expressible. */
static bool tree_of(const cJSON *topo, struct htsim_topo *t, uint32_t *auto_tiers, int64_t *host_bps, int64_t *hop_ps)
{
    const char *type = str_at(topo, "type");
    int64_t hb, hp, fb, fp;
    *auto_tiers = 0;
    if (!type || !link_of(topo, "host_link", &hb, &hp) || !link_of(topo, "fabric_link", &fb, &fp))
        return false;
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(topo, "oversubscription");
    if (os && !(cJSON_IsNumber(os) && os->valuedouble == 1))
        return false;
    *host_bps = hb;
    *hop_ps = hp;
    bool uniform = hb == fb && hp == fp;
    *t = (struct htsim_topo){.from_file = true};
    for (int i = 0; i < 3; i++)
        t->tier[i] = (struct htsim_tier){.speed_bps = fb, .lat_ps = fp, .bundle = 1, .oversub = 1};
    t->tier[0].speed_bps = hb;
    t->tier[0].lat_ps = hp;
    if (!strcmp(type, "fat-tree")) {
        int k = count_at(topo, "k");
        if (k && uniform) {
            *auto_tiers = 3;
            return true;
        }
        int P = k ? k : count_at(topo, "pods"), T = k ? k / 2 : count_at(topo, "tors_per_pod");
        int A = k ? k / 2 : count_at(topo, "aggs_per_pod"), H = k ? k / 2 : count_at(topo, "hosts_per_tor");
        int C = k ? k * k / 4 : count_at(topo, "cores");
        if (!P || !T || !A || !H || !C || C % A || A % 1 || H % A || (T * A) % C)
            return false;
        t->tiers = 3;
        t->nodes = (uint32_t)(P * T * H);
        t->podsize = (uint32_t)(T * H);
        t->tier[0].radix_down = (uint32_t)H;
        t->tier[0].radix_up = (uint32_t)A;
        t->tier[0].oversub = (uint32_t)(H / A);
        t->tier[1].radix_down = (uint32_t)T;
        t->tier[1].radix_up = (uint32_t)(C / A);
        t->tier[1].oversub = (uint32_t)(T * A / C);
        t->tier[2].radix_down = (uint32_t)P;
        return true;
    }
    if (!strcmp(type, "leaf-spine")) {
        int L = count_at(topo, "leaves"), S = count_at(topo, "spines"), H = count_at(topo, "hosts_per_leaf");
        if (!L || !S || !H)
            return false;
        if (uniform && L % 2 == 0 && S == L / 2 && H == L / 2) {
            *auto_tiers = 2;
            return true;
        }
        if (H % S)
            return false;
        t->tiers = 2;
        t->nodes = t->podsize = (uint32_t)(L * H);
        t->tier[0].radix_down = (uint32_t)H;
        t->tier[0].radix_up = (uint32_t)S;
        t->tier[0].oversub = (uint32_t)(H / S);
        t->tier[1].radix_down = (uint32_t)L;
        return true;
    }
    return false;
}

static bool whole_gbps_ns(const struct htsim_topo *t)
{
    for (uint32_t i = 0; i < t->tiers; i++)
        if (t->tier[i].speed_bps % 1000000000 || t->tier[i].lat_ps % 1000 || !t->tier[i].lat_ps)
            return false;
    return true;
}

static void say(struct htsim_export *x, const char *path, const char *why)
{
    sb_printf(x->unexpressed, "%s: %s\n", path, why);
}

/* The flows and triggers as a connection matrix; what it cannot say goes to x->unexpressed. */
static int matrix(const cJSON *scn, long nodes, struct htsim_cm *cm, struct htsim_export *x, char *err, size_t errlen)
{
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(scn, "traffic"), *trigs = at(scn, "triggers"), *e;
    static const char *const flow_keys[] = {"type", "id", "src", "dst", "size", "start", "trigger", "on_sent",
                                            NULL};
    cm->nodes = (uint32_t)nodes;
    size_t n = (size_t)cJSON_GetArraySize(traffic), nt = (size_t)cJSON_GetArraySize(trigs);
    cm->conns = mem_xcalloc(n ? n : 1, sizeof *cm->conns, EXP_OOM);
    cm->trigs = mem_xcalloc(nt ? nt : 1, sizeof *cm->trigs, EXP_OOM);
    char path[96];
    /* trigger ids: t<N> keeps N, others take numbers above every such N */
    uint32_t next = 0;
    cJSON_ArrayForEach(e, trigs) if (id_num(str_at(e, "id"), 't') > next) next = id_num(str_at(e, "id"), 't');
    cJSON_ArrayForEach(e, trigs)
    {
        struct htsim_trig *t = &cm->trigs[cm->n_trigs];
        snprintf(path, sizeof path, "triggers.%zu", cm->n_trigs);
        const char *type = str_at(e, "type");
        t->id = id_num(str_at(e, "id"), 't');
        if (!t->id)
            t->id = ++next;
        t->type = !type ? HTSIM_TRIG_NONE : !strcmp(type, "oneshot") ? HTSIM_TRIG_ONESHOT
                  : !strcmp(type, "multishot")                      ? HTSIM_TRIG_MULTISHOT
                  : !strcmp(type, "barrier")                        ? HTSIM_TRIG_BARRIER
                                                                    : HTSIM_TRIG_NONE;
        const cJSON *count = cJSON_GetObjectItemCaseSensitive(e, "count");
        t->count = cJSON_IsNumber(count) ? (uint32_t)count->valuedouble : 0;
        if (t->type == HTSIM_TRIG_NONE) {
            say(x, path, "a trigger type the reference does not have");
            t->type = HTSIM_TRIG_ONESHOT;
        }
        cm->n_trigs++;
    }
    uint32_t next_flow = 0;
    cJSON_ArrayForEach(e, traffic) if (id_num(str_at(e, "id"), 'f') > next_flow) next_flow =
        id_num(str_at(e, "id"), 'f');
    size_t i = 0;
    cJSON_ArrayForEach(e, traffic)
    {
        snprintf(path, sizeof path, "traffic.%zu", i++);
        const char *type = str_at(e, "type");
        if (!type || strcmp(type, "flow")) {
            say(x, path, "only flows go into a connection matrix");
            continue;
        }
        const cJSON *it;
        cJSON_ArrayForEach(it, e)
        {
            int k = 0;
            while (flow_keys[k] && strcmp(flow_keys[k], it->string))
                k++;
            if (!flow_keys[k]) {
                char p[160];
                snprintf(p, sizeof p, "%s.%s", path, it->string);
                say(x, p, !strcmp(it->string, "on_received")
                              ? "recv_done_trigger: the reference never fires it without -conn_reuse"
                              : "a connection line has no word for it");
            }
        }
        struct htsim_conn *c = &cm->conns[cm->n_conns];
        long src = host_num(str_at(e, "src")), dst = host_num(str_at(e, "dst"));
        int64_t size = 0, start = 0;
        if (src < 0 || dst < 0 || src >= nodes || dst >= nodes || !size_at(e, "size", &size) || size > 2147483647 ||
            size < 1) {
            snprintf(err, errlen, "%s: expected src and dst among h0..h%ld and a size of 1 to 2147483647 bytes", path,
                     nodes - 1);
            return SCN_EUSAGE;
        }
        c->src = (uint32_t)src;
        c->dst = (uint32_t)dst;
        c->size = size;
        c->id = id_num(str_at(e, "id"), 'f');
        const char *trig = str_at(e, "trigger"), *sent = str_at(e, "on_sent");
        for (size_t j = 0; j < cm->n_trigs && (trig || sent); j++) {
            const char *tid = str_at(cJSON_GetArrayItem(trigs, (int)j), "id");
            if (tid && trig && !strcmp(tid, trig))
                c->trigger = cm->trigs[j].id;
            if (tid && sent && !strcmp(tid, sent))
                c->send_done = cm->trigs[j].id;
        }
        if (c->trigger && !c->id)
            c->id = ++next_flow; /* the reference starts by trigger only flows with an id */
        if (!c->trigger) {
            if (cJSON_GetObjectItemCaseSensitive(e, "start") && !time_at(e, "start", &start))
                start = -1;
            if (start < 0 || start % 1000000 || start / 1000000 > 4294967295LL) {
                char p[160];
                snprintf(p, sizeof p, "%s.start", path);
                say(x, p, "not whole microseconds: the reference starts flows on whole us");
                start = start < 0 ? 0 : start;
            }
            c->has_start = true;
            c->start_us = (uint32_t)(start / 1000000);
        }
        cm->n_conns++;
    }
    if (!cm->n_conns) {
        snprintf(err, errlen, "traffic: no flow to export");
        return SCN_EUSAGE;
    }
    return 0;
}

/* What the import writes that a scenario may leave out, to its rocesim default (each setting's own, settings.h). */
static const char *const defaulted[] = {
    "seed", "stop", "switch.buffer", "switch.lossy_queue_limit", "switch.pfc.enabled", "switch.ecn.kmin",
    "switch.ecn.kmax", "switch.ecn.pmax", "switch.ecn.mark_on", "switch.scheduler.type", "switch.trim.enabled",
    "switch.trim.size", "switch.trim.priority", "host.mtu", "host.priority", "host.ack_priority",
    "host.loss_recovery", "host.rto", "host.cc", "host.entropy", "ethernet.wire_overhead",
};

/* Two leaves alike: the same quantity when both read as one kind, else the same JSON. */
static bool same_leaf(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsString(a) && cJSON_IsString(b)) {
        int64_t va, vb;
        char e[160];
        if (!strcmp(a->valuestring, b->valuestring))
            return true;
        if (!units_parse_time(a->valuestring, &va, e, sizeof e) && !units_parse_time(b->valuestring, &vb, e, sizeof e))
            return va == vb;
        if (!units_parse_size(a->valuestring, &va, e, sizeof e) && !units_parse_size(b->valuestring, &vb, e, sizeof e))
            return va == vb;
        if (!units_parse_rate(a->valuestring, &va, e, sizeof e) && !units_parse_rate(b->valuestring, &vb, e, sizeof e))
            return va == vb;
        return false;
    }
    return cJSON_Compare(a, b, true);
}

/* Lists every leaf of s (under path) that r does not give back. */
static void diff(const cJSON *s, const cJSON *r, const char *path, struct htsim_export *x)
{
    const cJSON *it;
    char p[256];
    if (cJSON_IsObject(s)) {
        cJSON_ArrayForEach(it, s)
        {
            snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", it->string);
            diff(it, r ? cJSON_GetObjectItemCaseSensitive(r, it->string) : NULL, p, x);
        }
        return;
    }
    if (!r || !same_leaf(s, r))
        say(x, path, r ? "the reference's run has another value" : "the reference has no such setting");
}

/* Lists what r sets that s leaves to a rocesim default other than r's value. */
static void diff_defaults(const cJSON *s, const cJSON *r, struct htsim_export *x)
{
    scn_register_settings();
    for (size_t i = 0; i < sizeof defaulted / sizeof *defaulted; i++) {
        const char *path = defaulted[i];
        const cJSON *rv = at(r, path);
        if (at(s, path) || !rv)
            continue;
        const struct setting *f = settings_field(path);
        if (!f || !f->dflt) {
            fprintf(stderr, "rocesim: bug: export uet-htsim: no setting %s with a default (sim/settings.h)\n", path);
            abort();
        }
        cJSON *d = cJSON_Parse(f->dflt);
        if (!d)
            d = cJSON_CreateString(f->dflt);
        if (!same_leaf(d, rv)) {
            char why[160], *v = cJSON_PrintUnformatted(rv);
            snprintf(why, sizeof why, "left to rocesim's default %s, where the reference's run has %s", f->dflt,
                     v ? v : "?");
            free(v);
            say(x, path, why);
        }
        cJSON_Delete(d);
    }
}

/* The scenario the import makes of command line `cmd` and the files so far, or NULL (the reason in x->why). */
static cJSON *reimport(const char *cmd, struct htsim_export *x)
{
    char *line = mem_xstrdup(cmd, EXP_OOM), *argv[64];
    int argc = 0;
    for (char *tok = strtok(line, " "); tok && argc < 64; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    cJSON *r = NULL;
    char e[SCN_ERR_MAX];
    char *cm_text = mem_xstrdup(x->cm->p ? x->cm->p : "", EXP_OOM);
    char *topo_text = x->topo->p ? mem_xstrdup(x->topo->p, EXP_OOM) : NULL;
    if (htsim_import_texts(argc - 1, argv + 1, cm_text, topo_text, &r, NULL, e, sizeof e))
        snprintf(x->why, sizeof x->why, "the reference would refuse it: %s", e);
    free(cm_text);
    free(topo_text);
    free(line);
    return r;
}

static void opt(struct sbuf *cmd, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void opt(struct sbuf *cmd, const char *name, const char *fmt, ...)
{
    char v[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    sb_printf(cmd, " %s%s%s", name, *v ? " " : "", v);
}

/* The matrix's Nodes: the tree's hosts (t, NULL when the topology is none the reference builds, which is said), or
 * the hosts the flows name. */
static long node_count(const cJSON *scn, const cJSON *topo, const struct htsim_topo *t, uint32_t auto_tiers,
                       struct htsim_export *x)
{
    long nodes = 0;
    if (t)
        nodes = auto_tiers == 3 ? (long)count_at(topo, "k") * count_at(topo, "k") * count_at(topo, "k") / 4
                : auto_tiers == 2 ? (long)count_at(topo, "leaves") * count_at(topo, "hosts_per_leaf")
                                  : (long)t->nodes;
    else
        say(x, "topology", "not a fat tree or leaf-spine the reference can build (its tiers' rates in whole Gbps, "
                           "delays in whole ns, its radix rules)");
    if (!nodes) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(scn, "traffic"))
        {
            long a = host_num(str_at(e, "src")), b = host_num(str_at(e, "dst"));
            nodes = a + 1 > nodes ? a + 1 : nodes;
            nodes = b + 1 > nodes ? b + 1 : nodes;
        }
    }
    return nodes;
}

int htsim_export(const cJSON *scn, const char *name, struct htsim_export *x, char *err, size_t errlen)
{
    const cJSON *topo = cJSON_GetObjectItemCaseSensitive(scn, "topology");
    struct htsim_topo t;
    uint32_t auto_tiers = 0;
    int64_t host_bps = 100000000000LL, hop_ps = 1000000, v;
    bool tree = cJSON_IsObject(topo) && tree_of(topo, &t, &auto_tiers, &host_bps, &hop_ps);
    if (tree && !auto_tiers && !whole_gbps_ns(&t))
        tree = false;
    if (tree && !auto_tiers) {
        char e[200];
        if (htsim_topo_check("topology", &t, e, sizeof e))
            tree = false;
    }
    long nodes = node_count(scn, topo, tree ? &t : NULL, auto_tiers, x);
    struct htsim_cm cm = {0};
    int rc = matrix(scn, nodes, &cm, x, err, errlen);
    if (rc) {
        htsim_cm_free(&cm);
        return rc;
    }
    htsim_cm_write(&cm, x->cm);
    htsim_cm_free(&cm);
    if (tree && !auto_tiers)
        htsim_topo_write(&t, x->topo);

    /* the options, from the settings the import writes */
    struct sbuf *cmd = x->cmdline;
    int64_t mtu = 1024;
    const cJSON *j = at(scn, "host.mtu");
    if (cJSON_IsNumber(j))
        mtu = (int64_t)j->valuedouble;
    int64_t MTU = mtu + 64;
    sb_printf(cmd, "htsim_uec -tm %s.cm", name);
    if (tree && !auto_tiers)
        opt(cmd, "-topo", "%s.topo", name);
    if (auto_tiers == 2)
        opt(cmd, "-tiers", "2");
    if (host_bps != 100000000000LL)
        opt(cmd, "-linkspeed", "%.17g", (double)host_bps / 1e6);
    if (auto_tiers && hop_ps != 1000000)
        opt(cmd, "-hop_latency", "%.17g", (double)hop_ps / 1e6);
    if (MTU != 4150)
        opt(cmd, "-mtu", "%lld", (long long)MTU);
    j = at(scn, "seed");
    opt(cmd, "-seed", "%.0f", cJSON_IsNumber(j) ? j->valuedouble : 1.0);
    opt(cmd, "-end", "%lld", (long long)(time_at(scn, "stop", &v) ? v / 1000000 : 100000));
    bool no_trim = !cJSON_IsTrue(at(scn, "switch.trim.enabled"));
    if (no_trim)
        opt(cmd, "-disable_trim", "%s", "");
    if (size_at(scn, "switch.trim.size", &v) && v != 64)
        opt(cmd, "-trimsize", "%lld", (long long)v);
    long failed = failed_links(scn, t.tiers == 2);
    if (failed)
        opt(cmd, "-failed", "%ld", failed);
    /* the queue and ECN thresholds in whole packets, unless the reference's automatic sizes are the same */
    cJSON *r0 = reimport(cmd->p, x);
    if (full_size_at(scn, "switch.lossy_queue_limit", &v) && v % MTU == 0 &&
        !same_leaf(at(scn, "switch.lossy_queue_limit"), at(r0, "switch.lossy_queue_limit")))
        opt(cmd, "-q", "%lld", (long long)(v / MTU));
    int64_t lo, hi;
    if (full_size_at(scn, "switch.ecn.kmin", &lo) && full_size_at(scn, "switch.ecn.kmax", &hi) && lo % MTU == 0 &&
        hi % MTU == 0 &&
        (!same_leaf(at(scn, "switch.ecn.kmin"), at(r0, "switch.ecn.kmin")) ||
         !same_leaf(at(scn, "switch.ecn.kmax"), at(r0, "switch.ecn.kmax"))))
        opt(cmd, "-ecn", "%lld %lld", (long long)(lo / MTU), (long long)(hi / MTU));
    cJSON_Delete(r0);
    const char *lb = str_at(scn, "host.entropy");
    if (lb && strcmp(lb, "mixed") && (!strcmp(lb, "bitmap") || !strcmp(lb, "reps") || !strcmp(lb, "oblivious")))
        opt(cmd, "-load_balancing_algo", "%s", lb);
    j = at(scn, "host.entropy_paths");
    if (cJSON_IsNumber(j) && j->valuedouble != 64)
        opt(cmd, "-paths", "%.0f", j->valuedouble);
    if (size_at(scn, "host.uet.sack_threshold", &v) && v != 16384)
        opt(cmd, "-sack_threshold", "%lld", (long long)v);
    if (cJSON_IsTrue(at(scn, "host.uet.rccc"))) {
        const char *cc = str_at(scn, "host.cc");
        opt(cmd, cc && !strcmp(cc, "nscc") ? "-receiver_cc" : "-receiver_cc_only", "%s", "");
    }
    j = at(scn, "host.nscc.qa_gate");
    if (cJSON_IsNumber(j) && j->valuedouble != 3)
        opt(cmd, "-qa_gate", "%.0f", j->valuedouble);
    if (time_at(scn, "host.nscc.target_delay", &v))
        opt(cmd, "-target_q_delay", "%.17g", (double)v / 1e6);
    if (size_at(scn, "host.nscc.window", &v) && v % MTU == 0 && v)
        opt(cmd, "-cwnd", "%lld", (long long)(v / MTU));
    const char *br = str_at(scn, "host.nscc.base_rtt");
    if (br && !strcmp(br, "pair"))
        opt(cmd, "-enable_accurate_base_rtt", "%s", "");
    if (cJSON_IsFalse(at(scn, "host.nscc.nack_base_rtt")))
        opt(cmd, "-disable_base_rtt_update_on_nack", "%s", "");

    /* what the options and files give back, against the scenario */
    cJSON *r = reimport(cmd->p, x);
    if (!r) {
        say(x, "(the command line)", x->why);
    } else {
        cJSON *s = cJSON_Duplicate(scn, true);
        /* compared elsewhere, or not settings */
        static const char *const skip[] = {"name", "description", "derived", "traffic", "triggers", "topology"};
        for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(s, skip[i]);
        if (tree && !same_leaf(cJSON_GetObjectItemCaseSensitive(topo, "type"), at(r, "topology.type")))
            say(x, "topology.type", "the reference's tree is rocesim's other shape (the same fabric)");
        diff(s, r, "", x);
        diff_defaults(s, r, x);
        cJSON_Delete(s);
        cJSON_Delete(r);
    }
    sb_printf(cmd, "\n");
    return 0;
}

static const char export_usage[] =
    "usage: rocesim export uet-htsim SCENARIO.json -o DIR\n"
    "  writes DIR/NAME.cm, DIR/NAME.topo (unless the topology is the automatic fat tree) and DIR/cmdline.txt for\n"
    "  htsim_uec, the UEC reference simulator, and prints the settings they cannot express.  See docs/uet.md.\n";

int htsim_export_main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "uet-htsim"))
        return usage_error("export", export_usage, "expected the format uet-htsim, got \"%s\"",
                           argc < 3 ? "" : argv[2]);
    const char *file, *dir;
    cJSON *scn;
    int rc = export_open(argc, argv, 3, export_usage, &file, &dir, &scn);
    if (rc)
        return rc < 0 ? 0 : rc;
    char err[SCN_ERR_MAX];
    char name[64];
    const char *nm = str_at(scn, "name"), *base = strrchr(file, '/');
    snprintf(name, sizeof name, "%s", nm && *nm && !strchr(nm, '/') ? nm : base ? base + 1 : file);
    if (!nm && strrchr(name, '.'))
        *strrchr(name, '.') = '\0';
    struct sbuf cm = {0}, topo = {0}, cmd = {0}, un = {0};
    struct htsim_export x = {.cm = &cm, .topo = &topo, .cmdline = &cmd, .unexpressed = &un};
    rc = htsim_export(scn, name, &x, err, sizeof err);
    cJSON_Delete(scn);
    char f_cm[96], f_topo[96];
    snprintf(f_cm, sizeof f_cm, "%s.cm", name);
    snprintf(f_topo, sizeof f_topo, "%s.topo", name);
    const char *names[] = {f_cm, "cmdline.txt", f_topo}; /* the .topo only for a tree of a file's */
    struct sbuf *const bufs[] = {&cm, &cmd, &topo};
    rc = export_finish(rc, err, file, dir, names, bufs, topo.p ? 3 : 2, &un);
    free(cm.p);
    free(topo.p);
    free(cmd.p);
    free(un.p);
    return rc;
}
