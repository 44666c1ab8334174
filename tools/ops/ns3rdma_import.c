/*
 * ns3rdma_import — an ns-3 RDMA simulator run (config, topology, flows) as a rocesim scenario (docs/ns3-rdma.md).
 *
 * The formats, keys, units and defaults are those of the HPCC paper's simulator (alibaba-edu/High-Precision-
 * Congestion-Control: simulation/scratch/third.cc reads them, mix/config_doc.txt documents them, rdma-hw.cc and
 * switch-mmu.cc give their meaning).  Derived values use its arithmetic:
 *     pair RTT   = 2 x (sum of link delays) + sum over hops of PACKET_PAYLOAD_SIZE x 8 / link rate   (ns, BFS path)
 *     T          = the largest pair RTT (GLOBAL_T 1), window = T x the pair's bottleneck rate / 8
 *     PFC alpha  = 2^-shift, shift 3 less one per doubling of a port's rate above the NIC's (at least 0)
 *     headroom   = 3 x rate x delay / 8 per port;  kmin, kmax in KB of 1000 bytes;  BUFFER_SIZE in MiB
 *     LINK_DOWN a b c: the link b-c fails at 2 s + a us (the reference's flows start at 2 s in its examples)
 * Every key is mapped, approximated with a note, ignored with a note, or refused by name with the reason.
 */
#include "tools/ops/ns3rdma.h"
#include "tools/ops/htsim.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMP_OOM "importing an ns-3 RDMA run"
#define MAX_PS 17592186044416LL /* rocesim's clock: 2^44 ps */
#define HDR_BYTES 48            /* the reference's data header without INT: PPP 14, IPv4 20, UDP 8, pg 2, seq 4 */

/* A file's whitespace-separated tokens with their lines (the reference reads all three with >>). */
struct toks {
    const char *file;
    char **t;
    int *line;
    size_t n, i;
};

static void toks_split(struct toks *k, const char *file, char *text)
{
    size_t cap = 64;
    k->file = file;
    k->t = mem_xcalloc(cap, sizeof *k->t, IMP_OOM);
    k->line = mem_xcalloc(cap, sizeof *k->line, IMP_OOM);
    k->n = k->i = 0;
    int line = 1;
    for (char *p = text; *p;) {
        if (isspace((unsigned char)*p)) {
            line += *p == '\n';
            *p++ = '\0';
            continue;
        }
        if (k->n == cap) {
            cap *= 2;
            k->t = mem_xrealloc(k->t, cap * sizeof *k->t, IMP_OOM);
            k->line = mem_xrealloc(k->line, cap * sizeof *k->line, IMP_OOM);
        }
        k->t[k->n] = p;
        k->line[k->n++] = line;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
}

static void toks_free(struct toks *k)
{
    free(k->t);
    free(k->line);
}

/* The line of the next token, or of the last one at the end. */
static int toks_line(const struct toks *k) { return k->i < k->n ? k->line[k->i] : k->n ? k->line[k->n - 1] : 1; }

struct ictx {
    char *err;
    size_t errlen;
    struct sbuf *notes;
};

static int fail(struct ictx *x, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(struct ictx *x, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = text_vfail_at(x->err, x->errlen, file, line, fmt, ap);
    va_end(ap);
    return rc;
}

static void note(struct ictx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ictx *x, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sb_printf(x->notes, "%s\n", msg);
}

/* The next token, or a failure naming what was expected. */
static int next(struct ictx *x, struct toks *k, const char *what, const char **v)
{
    if (k->i >= k->n)
        return fail(x, k->file, toks_line(k), "expected %s, got the end of the file", what);
    *v = k->t[k->i++];
    return 0;
}

/* A whole-number token of at most max; what names it in the message. */
static int tok_u64(struct ictx *x, struct toks *k, const char *what, uint64_t max, uint64_t *v)
{
    const char *s = "";
    int rc = next(x, k, what, &s);
    if (rc)
        return rc;
    if (!text_uint(s, max, v))
        return fail(x, k->file, k->line[k->i - 1], "expected %s (a whole number up to %llu), got \"%.40s\"", what,
                    (unsigned long long)max, s);
    return 0;
}

static int tok_dbl(struct ictx *x, struct toks *k, const char *what, double lo, double hi, double *v)
{
    const char *s = "";
    int rc = next(x, k, what, &s);
    if (rc)
        return rc;
    if (!text_num(s, lo, hi, v))
        return fail(x, k->file, k->line[k->i - 1], "expected %s (a number from %g to %g), got \"%.40s\"", what, lo, hi,
                    s);
    return 0;
}

/* A number with a unit from table u (multipliers of the base unit); no unit: def's multiplier.  The result rounded
 * to the base unit.  ns-3's DataRate and Time strings. */
struct unit {
    const char *name;
    double mult;
};

static const struct unit rate_units[] = {
    {"bps", 1}, {"b/s", 1}, {"kbps", 1e3}, {"Kbps", 1e3}, {"kb/s", 1e3}, {"Kb/s", 1e3}, {"Mbps", 1e6},
    {"Mb/s", 1e6}, {"Gbps", 1e9}, {"Gb/s", 1e9}, {"Tbps", 1e12}, {"Tb/s", 1e12}, {"Bps", 8}, {"B/s", 8},
    {"KBps", 8e3}, {"KB/s", 8e3}, {"MBps", 8e6}, {"MB/s", 8e6}, {"GBps", 8e9}, {"GB/s", 8e9}, {NULL, 0},
};
static const struct unit time_units[] = {
    {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}, {NULL, 0},
};

static bool parse_unit(const char *s, const struct unit *u, double no_unit, double max, int64_t *out)
{
    errno = 0;
    char *end;
    double d = strtod(s, &end);
    if (end == s || errno || !(d >= 0))
        return false;
    double m = 0;
    if (!*end)
        m = no_unit;
    for (size_t i = 0; !m && u[i].name; i++)
        if (!strcmp(end, u[i].name))
            m = u[i].mult;
    if (!m || !(d * m <= max))
        return false;
    *out = (int64_t)llround(d * m);
    return true;
}

/* ---- the config ---- */

enum kind { K_MAPPED, K_IGNORED };

/* What the config says, with the reference's defaults (third.cc's globals); a flag per key given. */
struct cfg {
    const char *file;
    uint64_t cc_mode, payload, ack_interval, chunk, fast_recovery, has_win, global_t, mi_thresh, int_multi;
    uint64_t buffer_mb, link_down_us, link_down_a, link_down_b;
    bool enable_qcn, back_to_zero, clamp, var_win, fast_react, multi_rate, sample_feedback, rate_bound, ack_high;
    double alpha_resume_us, rp_timer_us, ewma_gain, rate_decrease_us, stop_s, error_rate, u_target;
    int64_t rate_ai, rate_hai, min_rate, dctcp_rate_ai, stop_ps;
    const char *topology_file, *flow_file;
    int line_topo, line_flow, line_cc, line_link_down, line_ack_high;
    int rate_ai_line, rate_hai_line, min_rate_line, dctcp_rate_ai_line; /* 0: the default */
    struct map {
        uint64_t n;
        uint64_t rate[32];
        double v[32];
        int line;
    } kmin, kmax, pmax;
    bool have_rp_timer, have_g, have_ai, have_hai;
};

static void cfg_init(struct cfg *c, const char *file)
{
    *c = (struct cfg){.file = file, .cc_mode = 1, .payload = 1000, .fast_recovery = 5, .has_win = 1, .global_t = 1,
                      .mi_thresh = 5, .int_multi = 1, .buffer_mb = 16, .enable_qcn = true, .fast_react = true,
                      .multi_rate = true, .rate_bound = true, .alpha_resume_us = 55, .rate_decrease_us = 4,
                      .stop_s = 3.01, .u_target = 0.95, .min_rate = 100000000, .dctcp_rate_ai = 1000000000};
}

static int read_map(struct ictx *x, struct toks *k, const char *key, bool frac, struct map *m)
{
    m->line = k->line[k->i - 1];
    int rc = tok_u64(x, k, "the number of entries", 32, &m->n);
    for (uint64_t i = 0; !rc && i < m->n; i++) {
        double lo = 0, hi = frac ? 1 : 4294967295.0;
        char what[64];
        snprintf(what, sizeof what, "%s's rate %llu in bit/s", key, (unsigned long long)i + 1);
        if ((rc = tok_u64(x, k, what, 10000000000000ULL, &m->rate[i])) != 0)
            break;
        if (!m->rate[i])
            return fail(x, k->file, k->line[k->i - 1], "%s: a rate of 0 bit/s", key);
        snprintf(what, sizeof what, frac ? "%s's probability" : "%s's threshold in KB", key);
        if (frac)
            rc = tok_dbl(x, k, what, lo, hi, &m->v[i]);
        else {
            uint64_t u;
            rc = tok_u64(x, k, what, 2000000, &u);
            m->v[i] = (double)u;
        }
    }
    return rc;
}

/* Keys that change nothing rocesim reproduces, and why (the value is read and dropped, with a note). */
static const struct {
    const char *key;
    int nvals;
    const char *why;
} ignored_keys[] = {
    {"TRACE_FILE", 1, "the nodes of the reference's packet trace; rocesim's monitor and its capture record a run"},
    {"TRACE_OUTPUT_FILE", 1, "the reference's packet trace file"},
    {"ENABLE_TRACE", 1, "the reference's packet trace"},
    {"FCT_OUTPUT_FILE", 1, "`rocesim run --format ns3-rdma` writes fct.txt in the run's directory"},
    {"PFC_OUTPUT_FILE", 1, "`rocesim run --format ns3-rdma` writes pfc.txt in the run's directory"},
    {"QLEN_MON_FILE", 1, "the reference's queue histogram; rocesim's queues.csv (monitor.queues)"},
    {"QLEN_MON_START", 1, "the reference's queue histogram; rocesim's queues.csv (monitor.queues)"},
    {"QLEN_MON_END", 1, "the reference's queue histogram; rocesim's queues.csv (monitor.queues)"},
    {"DATA_RATE", 1, "read by the reference but unused: the topology file gives each link's rate"},
    {"LINK_DELAY", 1, "read by the reference but unused: the topology file gives each link's delay"},
    {"USE_DYNAMIC_PFC_THRESHOLD", 1,
     "the reference's switches use the dynamic threshold whatever its value (the attribute it sets is read by no code)"},
    {"PAUSE_TIME", 1, "the reference's paused queue waits for the RESUME; rocesim's PAUSE keeps switch.pfc's quanta"},
    {"INT_MULTI", 1, "the unit of the reference's INT fields; rocesim's INT records hold exact values"},
    {"PINT_LOG_BASE", 1, "HPCC-PINT's encoding (CC_MODE 10), which rocesim does not model"},
    {"PINT_PROB", 1, "HPCC-PINT's sampling (CC_MODE 10), which rocesim does not model"},
    {"L2_CHUNK_SIZE", 1, "the chunk of go-back-0 (L2_BACK_TO_ZERO 1); rocesim's go-back-N needs none"},
};

static int read_config(struct ictx *x, struct toks *k, struct cfg *c)
{
    int rc = 0;
    while (!rc && k->i < k->n) {
        const char *key = k->t[k->i++];
        int line = k->line[k->i - 1];
        uint64_t u;
        double d = 0;
        const char *s = "";
        bool done = false;
        for (size_t i = 0; i < sizeof ignored_keys / sizeof *ignored_keys && !done; i++)
            if (!strcmp(key, ignored_keys[i].key)) {
                rc = next(x, k, "its value", &s);
                if (!rc)
                    note(x, "%s:%d: %s: ignored (%s)", c->file, line, key, ignored_keys[i].why);
                done = true;
            }
        if (done)
            continue;
#define FLAG(NAME, FIELD)                                                                                             \
    else if (!strcmp(key, NAME))                                                                                      \
    {                                                                                                                 \
        if (!(rc = tok_u64(x, k, NAME " (0 or 1)", 1, &u)))                                                           \
            c->FIELD = u;                                                                                             \
    }
#define WHOLE(NAME, FIELD, MAX)                                                                                       \
    else if (!strcmp(key, NAME))                                                                                      \
    {                                                                                                                 \
        rc = tok_u64(x, k, NAME, MAX, &c->FIELD);                                                                     \
    }
#define NUM(NAME, FIELD, LO, HI)                                                                                      \
    else if (!strcmp(key, NAME))                                                                                      \
    {                                                                                                                 \
        rc = tok_dbl(x, k, NAME, LO, HI, &c->FIELD);                                                                  \
    }
#define RATE(NAME, FIELD, HAVE)                                                                                       \
    else if (!strcmp(key, NAME))                                                                                      \
    {                                                                                                                 \
        if (!(rc = next(x, k, NAME "'s rate", &s)) && !parse_unit(s, rate_units, 1, 1e13, &c->FIELD))                \
            rc = fail(x, c->file, line, "%s: expected a rate like 50Mb/s, got \"%.40s\"", key, s);                    \
        c->FIELD##_line = line;                                                                                       \
        HAVE;                                                                                                         \
    }
        if (0) {
        }
        FLAG("ENABLE_QCN", enable_qcn)
        FLAG("CLAMP_TARGET_RATE", clamp)
        FLAG("L2_BACK_TO_ZERO", back_to_zero)
        FLAG("VAR_WIN", var_win)
        FLAG("FAST_REACT", fast_react)
        FLAG("MULTI_RATE", multi_rate)
        FLAG("SAMPLE_FEEDBACK", sample_feedback)
        FLAG("RATE_BOUND", rate_bound)
        else if (!strcmp(key, "ACK_HIGH_PRIO")) {
            c->line_ack_high = line;
            if (!(rc = tok_u64(x, k, "ACK_HIGH_PRIO (0 or 1)", 1, &u)))
                c->ack_high = u;
        }
        FLAG("HAS_WIN", has_win)
        FLAG("GLOBAL_T", global_t)
        WHOLE("PACKET_PAYLOAD_SIZE", payload, 100000)
        WHOLE("L2_ACK_INTERVAL", ack_interval, 4294967295ULL)
        WHOLE("FAST_RECOVERY_TIMES", fast_recovery, 1000000)
        WHOLE("MI_THRESH", mi_thresh, 1000000)
        WHOLE("BUFFER_SIZE", buffer_mb, 2047)
        NUM("ALPHA_RESUME_INTERVAL", alpha_resume_us, 1e-6, 1e7)
        NUM("RATE_DECREASE_INTERVAL", rate_decrease_us, 1e-6, 1e7)
        NUM("ERROR_RATE_PER_LINK", error_rate, 0, 0.999999)
        NUM("U_TARGET", u_target, 1e-6, 1)
        RATE("RATE_HAI", rate_hai, c->have_hai = true)
        RATE("RATE_AI", rate_ai, c->have_ai = true)
        RATE("MIN_RATE", min_rate, (void)0)
        RATE("DCTCP_RATE_AI", dctcp_rate_ai, (void)0)
        else if (!strcmp(key, "RP_TIMER")) {
            rc = tok_dbl(x, k, "RP_TIMER", 1e-6, 1e7, &c->rp_timer_us);
            c->have_rp_timer = true;
        } else if (!strcmp(key, "EWMA_GAIN")) {
            rc = tok_dbl(x, k, "EWMA_GAIN", 0, 1, &c->ewma_gain);
            c->have_g = true;
        } else if (!strcmp(key, "CC_MODE")) {
            c->line_cc = line;
            rc = tok_u64(x, k, "CC_MODE", 100, &c->cc_mode);
        } else if (!strcmp(key, "SIMULATOR_STOP_TIME")) {
            if (!(rc = next(x, k, "SIMULATOR_STOP_TIME in seconds", &s)) &&
                (!text_num(s, 0, 1e9, &d) || !parse_unit(s, time_units, 1e12, 1e30, &c->stop_ps)))
                rc = fail(x, c->file, line, "SIMULATOR_STOP_TIME: expected seconds, got \"%.40s\"", s);
            c->stop_s = d;
            if (!rc && c->stop_ps >= MAX_PS)
                rc = fail(x, c->file, line, "SIMULATOR_STOP_TIME %s: rocesim's clock ends at 17.59 s", s);
        } else if (!strcmp(key, "TOPOLOGY_FILE") || !strcmp(key, "FLOW_FILE")) {
            bool t = key[0] == 'T';
            if (!(rc = next(x, k, "a file name", &s))) {
                *(t ? &c->topology_file : &c->flow_file) = s;
                *(t ? &c->line_topo : &c->line_flow) = line;
            }
        } else if (!strcmp(key, "LINK_DOWN")) {
            c->line_link_down = line;
            if (!(rc = tok_u64(x, k, "LINK_DOWN's time in us after 2 s", 15000000, &c->link_down_us)) &&
                !(rc = tok_u64(x, k, "LINK_DOWN's first node", 1000000, &c->link_down_a)))
                rc = tok_u64(x, k, "LINK_DOWN's second node", 1000000, &c->link_down_b);
        } else if (!strcmp(key, "KMIN_MAP")) {
            rc = read_map(x, k, key, false, &c->kmin);
        } else if (!strcmp(key, "KMAX_MAP")) {
            rc = read_map(x, k, key, false, &c->kmax);
        } else if (!strcmp(key, "PMAX_MAP")) {
            rc = read_map(x, k, key, true, &c->pmax);
        } else {
            rc = fail(x, c->file, line, "%.60s: not a key of the ns-3 RDMA simulator's config (third.cc reads none such)",
                      key);
        }
#undef FLAG
#undef WHOLE
#undef NUM
#undef RATE
    }
    if (!c->stop_ps)
        c->stop_ps = (int64_t)llround(c->stop_s * 1e12);
    return rc;
}

/* ---- the topology and the flows ---- */

struct link {
    uint32_t a, b;
    int64_t bps, ps;
    double err;
    int line;
};

struct topo {
    const char *file;
    uint64_t n_nodes, n_sw, n_links;
    bool *is_sw;
    uint32_t *host_ix; /* node id -> host index (UINT32_MAX: a switch) */
    struct link *l;
};

static int read_topology(struct ictx *x, struct toks *k, struct topo *t)
{
    int rc;
    if ((rc = tok_u64(x, k, "the node count", 1000000, &t->n_nodes)) ||
        (rc = tok_u64(x, k, "the switch count", t->n_nodes, &t->n_sw)) ||
        (rc = tok_u64(x, k, "the link count", 10000000, &t->n_links)))
        return rc;
    t->is_sw = mem_xcalloc(t->n_nodes + 1, sizeof *t->is_sw, IMP_OOM);
    t->host_ix = mem_xcalloc(t->n_nodes + 1, sizeof *t->host_ix, IMP_OOM);
    t->l = mem_xcalloc(t->n_links + 1, sizeof *t->l, IMP_OOM);
    for (uint64_t i = 0; i < t->n_sw; i++) {
        uint64_t id;
        if ((rc = tok_u64(x, k, "a switch's node id", t->n_nodes ? t->n_nodes - 1 : 0, &id)))
            return rc;
        if (t->is_sw[id])
            return fail(x, t->file, k->line[k->i - 1], "switch %llu listed twice", (unsigned long long)id);
        t->is_sw[id] = true;
    }
    uint32_t h = 0;
    for (uint64_t i = 0; i < t->n_nodes; i++)
        t->host_ix[i] = t->is_sw[i] ? UINT32_MAX : h++;
    if (!h)
        return fail(x, t->file, 1, "no host: every one of the %llu nodes is a switch", (unsigned long long)t->n_nodes);
    for (uint64_t i = 0; i < t->n_links; i++) {
        struct link *l = &t->l[i];
        uint64_t a, b;
        const char *s = "";
        l->line = toks_line(k);
        if ((rc = tok_u64(x, k, "a link's first node", t->n_nodes - 1, &a)) ||
            (rc = tok_u64(x, k, "a link's second node", t->n_nodes - 1, &b)))
            return rc;
        if (a == b)
            return fail(x, t->file, l->line, "a link from node %llu to itself", (unsigned long long)a);
        l->a = (uint32_t)a;
        l->b = (uint32_t)b;
        if ((rc = next(x, k, "the link's rate", &s)))
            return rc;
        if (!parse_unit(s, rate_units, 1, 1e13, &l->bps) || l->bps < 1000)
            return fail(x, t->file, l->line, "expected a link rate like 100Gbps, got \"%.40s\"", s);
        if ((rc = next(x, k, "the link's delay", &s)))
            return rc;
        if (!parse_unit(s, time_units, 1e12, 1e12, &l->ps))
            return fail(x, t->file, l->line, "expected a delay like 0.001ms, got \"%.40s\"", s);
        if ((rc = tok_dbl(x, k, "the link's error rate", 0, 0.999999, &l->err)))
            return rc;
    }
    if (k->i < k->n)
        note(x, "%s:%d: the text after the %llu links is not read (nor by the reference)", t->file, toks_line(k),
             (unsigned long long)t->n_links);
    return 0;
}

struct flow {
    uint32_t src, dst, pg, dport;
    uint64_t size;
    int64_t start_ps;
    int line;
};

static int read_flows(struct ictx *x, struct toks *k, const struct topo *t, struct flow **out, uint64_t *nf)
{
    int line = toks_line(k);
    int rc = tok_u64(x, k, "the flow count", 10000000, nf);
    if (rc)
        return rc;
    if (!*nf)
        return fail(x, k->file, line, "a flow count of 0: a rocesim scenario needs at least one flow");
    struct flow *f = *out = mem_xcalloc(*nf + 1, sizeof *f, IMP_OOM);
    for (uint64_t i = 0; i < *nf; i++) {
        uint64_t src, dst, pg, dport, size;
        const char *s = "";
        line = toks_line(k);
        if ((rc = tok_u64(x, k, "a flow's source node", t->n_nodes - 1, &src)) ||
            (rc = tok_u64(x, k, "a flow's destination node", t->n_nodes - 1, &dst)) ||
            (rc = tok_u64(x, k, "a flow's priority", 7, &pg)) ||
            (rc = tok_u64(x, k, "a flow's destination port", 65535, &dport)) ||
            (rc = tok_u64(x, k, "a flow's size in bytes", 1000000000000ULL, &size)) ||
            (rc = next(x, k, "a flow's start in seconds", &s)))
            return rc;
        if (t->is_sw[src] || t->is_sw[dst])
            return fail(x, k->file, line, "node %llu is a switch (the reference asserts that a flow joins two hosts)",
                        (unsigned long long)(t->is_sw[src] ? src : dst));
        if (src == dst)
            return fail(x, k->file, line, "a flow from host %llu to itself", (unsigned long long)src);
        if (!size)
            return fail(x, k->file, line, "a flow of 0 bytes (rocesim's flows carry at least one)");
        if (!pg)
            return fail(x, k->file, line, "priority 0: the reference's control queue, never paused nor ECN-marked, "
                        "which rocesim does not give data flows");
        double d;
        if (!text_num(s, 0, 17.5, &d) || !parse_unit(s, time_units, 1e12, 1e30, &f[i].start_ps))
            return fail(x, k->file, line, "expected a start in seconds below rocesim's 17.59 s, got \"%.40s\"", s);
        f[i] = (struct flow){(uint32_t)src, (uint32_t)dst, (uint32_t)pg, (uint32_t)dport, size, f[i].start_ps, line};
    }
    if (k->i < k->n)
        note(x, "%s:%d: the text after the %llu flows is not read (nor by the reference)", k->file, toks_line(k),
             (unsigned long long)*nf);
    return 0;
}

/* ---- derived values ---- */

/* The reference's largest pair RTT in ns over hop-shortest paths (third.cc CalculateRoute and main), and whether
 * every pair is connected. */
static int64_t max_rtt_ns(const struct topo *t, const struct cfg *c, bool *connected)
{
    uint64_t n = t->n_nodes;
    uint32_t *deg = mem_xcalloc(n + 1, sizeof *deg, IMP_OOM), *off = mem_xcalloc(n + 2, sizeof *off, IMP_OOM);
    for (uint64_t i = 0; i < t->n_links; i++)
        deg[t->l[i].a]++, deg[t->l[i].b]++;
    for (uint64_t i = 0; i < n; i++)
        off[i + 1] = off[i] + deg[i];
    uint32_t *adj = mem_xcalloc(off[n] + 1, sizeof *adj, IMP_OOM), *fill = mem_xcalloc(n + 1, sizeof *fill, IMP_OOM);
    for (uint32_t i = 0; i < t->n_links; i++) {
        adj[off[t->l[i].a] + fill[t->l[i].a]++] = i;
        adj[off[t->l[i].b] + fill[t->l[i].b]++] = i;
    }
    int64_t *dis = mem_xcalloc(n + 1, sizeof *dis, IMP_OOM), *delay = mem_xcalloc(n + 1, sizeof *delay, IMP_OOM);
    int64_t *tx = mem_xcalloc(n + 1, sizeof *tx, IMP_OOM);
    uint32_t *q = mem_xcalloc(n + 1, sizeof *q, IMP_OOM);
    int64_t best = 0;
    *connected = true;
    for (uint32_t h = 0; h < n; h++) {
        if (t->is_sw[h])
            continue;
        for (uint64_t i = 0; i < n; i++)
            dis[i] = -1;
        size_t qh = 0, qt = 0;
        q[qt++] = h;
        dis[h] = delay[h] = tx[h] = 0;
        while (qh < qt) {
            uint32_t now = q[qh++];
            for (uint32_t j = off[now]; j < off[now + 1]; j++) {
                const struct link *l = &t->l[adj[j]];
                uint32_t nx = l->a == now ? l->b : l->a;
                if (dis[nx] >= 0)
                    continue;
                dis[nx] = dis[now] + 1;
                delay[nx] = delay[now] + l->ps / 1000;
                tx[nx] = tx[now] + (int64_t)(c->payload * 1000000000ULL * 8 / (uint64_t)l->bps);
                if (t->is_sw[nx])
                    q[qt++] = nx; /* paths never cross a host */
            }
        }
        for (uint32_t j = 0; j < n; j++) {
            if (t->is_sw[j] || j == h)
                continue;
            if (dis[j] < 0)
                *connected = false;
            else if (2 * delay[j] + tx[j] > best)
                best = 2 * delay[j] + tx[j];
        }
    }
    free(deg), free(off), free(adj), free(fill), free(dis), free(delay), free(tx), free(q);
    return best;
}

/* ---- the scenario ---- */

static char *node_name(const struct topo *t, uint32_t id, char *b, size_t len)
{
    if (t->is_sw[id])
        snprintf(b, len, "sw%u", id);
    else
        snprintf(b, len, "h%u", t->host_ix[id]);
    return b;
}

static void add_str(cJSON *o, const char *k, const char *v) { cJSON_AddStringToObject(o, k, v); }

static const char *fmt_ps(int64_t ps, char *b, size_t len) { return htsim_fmt_time(ps, b, len); }
static const char *fmt_bps(int64_t bps, char *b, size_t len) { return htsim_fmt_rate(bps, b, len); }

static cJSON *topology(const struct topo *t, const struct cfg *c)
{
    char b[64];
    cJSON *o = cJSON_CreateObject();
    add_str(o, "type", "custom");
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes"), *links = cJSON_AddArrayToObject(o, "links");
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        cJSON *e = cJSON_CreateObject();
        add_str(e, "name", node_name(t, i, b, sizeof b));
        add_str(e, "kind", t->is_sw[i] ? "switch" : "host");
        cJSON_AddItemToArray(nodes, e);
    }
    for (uint32_t i = 0; i < t->n_links; i++) {
        const struct link *l = &t->l[i];
        cJSON *e = cJSON_CreateObject();
        add_str(e, "a", node_name(t, l->a, b, sizeof b));
        add_str(e, "b", node_name(t, l->b, b, sizeof b));
        add_str(e, "rate", fmt_bps(l->bps, b, sizeof b));
        add_str(e, "delay", fmt_ps(l->ps, b, sizeof b));
        /* a link without its own error rate takes ERROR_RATE_PER_LINK (third.cc's default error model) */
        double err = l->err > 0 ? l->err : c->error_rate;
        if (err > 0)
            cJSON_AddNumberToObject(e, "loss_rate", err);
        cJSON_AddItemToArray(links, e);
    }
    return o;
}

/* A map by rate of the ECN thresholds (KB of 1000 bytes) or probabilities. */
/* Whether a link at a switch runs at bps. */
static bool switch_rate(const struct topo *t, int64_t bps)
{
    for (uint32_t i = 0; i < t->n_links; i++)
        if ((t->is_sw[t->l[i].a] || t->is_sw[t->l[i].b]) && t->l[i].bps == bps)
            return true;
    return false;
}

/* The distinct rates of the map's entries. */
static int map_rates(const struct map *m)
{
    int n = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        uint64_t j = 0;
        while (j < i && m->rate[j] != m->rate[i])
            j++;
        n += j == i;
    }
    return n;
}

/* An ECN map by rate.  rocesim's settings by rate hold SCN_RATE_MAP_MAX rates: a map of more keeps the rates of
 * the switches' ports (check_maps has made sure they are at most that many), the others being unused. */
static cJSON *ecn_map(const struct map *m, bool frac, const struct topo *t)
{
    cJSON *o = cJSON_CreateObject();
    char r[32], b[48];
    bool all = map_rates(m) <= SCN_RATE_MAP_MAX;
    for (uint64_t i = 0; i < m->n; i++) {
        if (!all && !switch_rate(t, (int64_t)m->rate[i]))
            continue;
        fmt_bps((int64_t)m->rate[i], r, sizeof r);
        cJSON_DeleteItemFromObjectCaseSensitive(o, r); /* a later entry of the same rate wins, as in the reference */
        if (frac)
            cJSON_AddNumberToObject(o, r, m->v[i]);
        else {
            snprintf(b, sizeof b, "%lluKB", (unsigned long long)m->v[i]);
            cJSON_AddStringToObject(o, r, b);
        }
    }
    return o;
}

static bool map_has(const struct map *m, int64_t bps)
{
    for (uint64_t i = 0; i < m->n; i++)
        if ((int64_t)m->rate[i] == bps)
            return true;
    return false;
}

/* The switches' links run at no more rates than rocesim's settings by rate hold (PFC alpha and headroom, ECN). */
static int check_rates(struct ictx *x, const struct topo *t)
{
    int rates = 0;
    for (uint32_t i = 0; i < t->n_links; i++) {
        uint32_t j = 0;
        if (t->is_sw[t->l[i].a] || t->is_sw[t->l[i].b]) {
            while (j < i && !((t->is_sw[t->l[j].a] || t->is_sw[t->l[j].b]) && t->l[j].bps == t->l[i].bps))
                j++;
            rates += j == i;
        }
    }
    if (rates > SCN_RATE_MAP_MAX)
        return fail(x, t->file, 0, "the switches' links run at %d different rates; rocesim's settings by rate (ECN "
                    "thresholds, PFC alpha and headroom) take at most %d", rates, SCN_RATE_MAP_MAX);
    return 0;
}

static int check_maps(struct ictx *x, const struct cfg *c, const struct topo *t)
{
    const struct map *m[] = {&c->kmin, &c->kmax, &c->pmax};
    const char *names[] = {"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"};
    for (int j = 0; j < 3; j++)
        if (map_rates(m[j]) > SCN_RATE_MAP_MAX)
            note(x, "%s:%d: %s has %d rates; only those of the switches' links are kept (rocesim's settings by rate "
                 "take at most %d)", c->file, m[j]->line, names[j], map_rates(m[j]), SCN_RATE_MAP_MAX);
    for (uint32_t i = 0; i < t->n_links; i++) {
        const struct link *l = &t->l[i];
        if (!t->is_sw[l->a] && !t->is_sw[l->b])
            continue;
        for (int j = 0; j < 3; j++)
            if (!map_has(m[j], l->bps)) {
                char r[32];
                return fail(x, c->file, m[j]->line, "%s has no entry for %s, the rate of the link on %s:%d (the "
                            "reference asserts: \"must set %s for each link speed\")", names[j],
                            fmt_bps(l->bps, r, sizeof r), t->file, l->line, j == 0 ? "kmin" : j == 1 ? "kmax" : "pmax");
            }
    }
    for (uint64_t i = 0; i < c->kmin.n; i++)
        for (uint64_t j = 0; j < c->kmax.n; j++)
            if (c->kmin.rate[i] == c->kmax.rate[j] && c->kmin.v[i] > c->kmax.v[j])
                return fail(x, c->file, c->kmax.line, "KMAX_MAP: %.0f KB below KMIN_MAP's %.0f KB at %llu bit/s",
                            c->kmax.v[j], c->kmin.v[i], (unsigned long long)c->kmax.rate[j]);
    return 0;
}

/* The switch object: buffer, ECN by rate (marked at dequeue, as the reference's SwitchNotifyDequeue), PFC on the
 * flows' priorities with the reference's dynamic threshold, headroom and resume offset. */
static cJSON *switch_obj(struct ictx *x, const struct cfg *c, const struct topo *t, const uint8_t *pgs, int64_t nic)
{
    char b[64], r[32];
    cJSON *sw = cJSON_CreateObject();
    snprintf(b, sizeof b, "%lluB", (unsigned long long)c->buffer_mb * 1024 * 1024);
    add_str(sw, "buffer", b);
    cJSON *ecn = cJSON_AddObjectToObject(sw, "ecn");
    if (!c->enable_qcn) {
        cJSON_AddBoolToObject(ecn, "enabled", false);
    } else {
        cJSON_AddItemToObject(ecn, "kmin", ecn_map(&c->kmin, false, t));
        cJSON_AddItemToObject(ecn, "kmax", ecn_map(&c->kmax, false, t));
        cJSON_AddItemToObject(ecn, "pmax", ecn_map(&c->pmax, true, t));
        add_str(ecn, "mark_on", "dequeue");
    }
    cJSON *pfc = cJSON_AddObjectToObject(sw, "pfc");
    cJSON *pr = cJSON_AddArrayToObject(pfc, "priorities");
    for (int p = 1; p < 8; p++)
        if (pgs[p])
            cJSON_AddItemToArray(pr, cJSON_CreateNumber(p));
    add_str(pfc, "xoff", "dynamic");
    /* alpha and headroom by the rates of the switches' ports; headroom is 3 x rate x delay, one value per rate
     * only when every switch port of that rate has the same delay */
    cJSON *alpha = cJSON_AddObjectToObject(pfc, "dynamic_alpha"), *hd = cJSON_CreateObject();
    bool hd_ok = true;
    for (uint32_t i = 0; i < t->n_links; i++) {
        const struct link *l = &t->l[i];
        if (!t->is_sw[l->a] && !t->is_sw[l->b])
            continue;
        fmt_bps(l->bps, r, sizeof r);
        int shift = 3;
        for (int64_t rate = l->bps; rate > nic && shift > 0; rate /= 2)
            shift--;
        if (!cJSON_GetObjectItemCaseSensitive(alpha, r))
            cJSON_AddNumberToObject(alpha, r, 1.0 / (1 << shift));
        uint64_t h = (uint64_t)l->bps / 8 * (uint64_t)(l->ps / 1000) / 1000000000ULL * 3;
        snprintf(b, sizeof b, "%lluB", (unsigned long long)h);
        const cJSON *have = cJSON_GetObjectItemCaseSensitive(hd, r);
        if (!have)
            cJSON_AddStringToObject(hd, r, b);
        else if (strcmp(have->valuestring, b))
            hd_ok = false;
    }
    if (hd_ok) {
        cJSON_AddItemToObject(pfc, "headroom", hd);
    } else {
        cJSON_Delete(hd);
        note(x, "%s: PFC headroom: links of one rate with different delays, so rocesim's \"auto\" headroom instead "
             "of the reference's 3 x rate x delay per port", t->file);
    }
    add_str(pfc, "xon_delta", "3072B");
    return sw;
}

/* A rate key the chosen congestion control takes only above 0 (its steps and floor; the loader's rule): 0, or a
 * refusal at the key's line. */
static int positive(struct ictx *x, const struct cfg *c, const char *key, int64_t bps, int line, const char *cc)
{
    if (bps > 0)
        return 0;
    return fail(x, c->file, line ? line : c->line_cc, "%s 0: rocesim's %s takes it above 0", key, cc);
}

/* host.cc and its parameters. */
static int host_obj(struct ictx *x, const struct cfg *c, int64_t rtt_ns, cJSON **out)
{
    char b[64];
    cJSON *h = cJSON_CreateObject();
    *out = h;
    cJSON_AddNumberToObject(h, "mtu", (double)c->payload);
    add_str(h, "loss_recovery", "go-back-n");
    /* Its switches queue ACKs and NACKs with their data (queue 0 only with their AckHighPrio attribute, which
     * third.cc never sets); ACK_HIGH_PRIO moves only the NIC's ACK queue, served first either way, from the pause
     * of priority 3 to that of 0. */
    add_str(h, "ack_priority", "data");
    if (c->ack_high)
        note(x, "%s:%d: ACK_HIGH_PRIO 1: approximated: the reference's switches still queue ACKs and NACKs with "
             "their data; its NICs send them first whatever the PAUSE of the data's priority, rocesim's NICs "
             "(host.ack_priority \"data\") first unless that priority is paused", c->file, c->line_ack_high);
    cJSON_AddNumberToObject(h, "ack_every", 1);
    int64_t T = rtt_ns * 1000;
    if (c->cc_mode == 1) {
        if (!c->have_rp_timer || !c->have_g || !c->have_ai || !c->have_hai)
            return fail(x, c->file, c->line_cc, "CC_MODE 1 (DCQCN) needs RP_TIMER, EWMA_GAIN, RATE_AI and RATE_HAI "
                        "(the reference leaves RP_TIMER undefined, EWMA_GAIN 0 and the steps empty without them)");
        if (positive(x, c, "RATE_AI", c->rate_ai, c->rate_ai_line, "DCQCN") ||
            positive(x, c, "RATE_HAI", c->rate_hai, c->rate_hai_line, "DCQCN") ||
            positive(x, c, "MIN_RATE", c->min_rate, c->min_rate_line, "DCQCN"))
            return SCN_EUSAGE;
        add_str(h, "cc", "dcqcn");
        cJSON *d = cJSON_AddObjectToObject(h, "dcqcn");
        add_str(d, "preset", "ns3"); /* its machine (timing "periodic"), then this config's values */
        cJSON_AddNumberToObject(d, "g", c->ewma_gain);
        cJSON_AddNumberToObject(d, "alpha_init", 1);
        add_str(d, "alpha_timer", fmt_ps((int64_t)llround(c->alpha_resume_us * 1e6), b, sizeof b));
        add_str(d, "rate_increase_timer", fmt_ps((int64_t)llround(c->rp_timer_us * 1e6), b, sizeof b));
        add_str(d, "byte_counter", "off");
        cJSON_AddNumberToObject(d, "fast_recovery_steps", (double)c->fast_recovery);
        add_str(d, "ai_rate", fmt_bps(c->rate_ai, b, sizeof b));
        add_str(d, "hai_rate", fmt_bps(c->rate_hai, b, sizeof b));
        add_str(d, "min_rate", fmt_bps(c->min_rate, b, sizeof b));
        cJSON_AddNumberToObject(d, "rate_on_first_cnp", 1);
        cJSON_AddBoolToObject(d, "clamp_target_rate", c->clamp);
        add_str(d, "cnp_interval", "0us");
        add_str(d, "rate_reduce_monitor_period", fmt_ps((int64_t)llround(c->rate_decrease_us * 1e6), b, sizeof b));
        cJSON_AddBoolToObject(d, "clamp_target_rate_after_timer", true);
        add_str(d, "timing", "periodic");
        if (c->has_win)
            note(x, "HAS_WIN 1: the reference's window on DCQCN flows is not modelled (rocesim's DCQCN has none)");
    } else if (c->cc_mode == 3) {
        if (!c->have_ai)
            return fail(x, c->file, c->line_cc, "CC_MODE 3 (HPCC) needs RATE_AI (its additive step)");
        if (!c->fast_react)
            return fail(x, c->file, c->line_cc, "FAST_REACT 0: not modelled (rocesim's HPCC reacts on every ACK)");
        if (c->sample_feedback)
            return fail(x, c->file, c->line_cc, "SAMPLE_FEEDBACK 1: not modelled (rocesim's HPCC takes INT on "
                        "every ACK)");
        if (!c->has_win || !c->var_win)
            return fail(x, c->file, c->line_cc, "HAS_WIN 0 or VAR_WIN 0 with HPCC: not modelled (rocesim's HPCC is "
                        "its variable window)");
        add_str(h, "cc", "hpcc");
        cJSON *p = cJSON_AddObjectToObject(h, "hpcc");
        cJSON_AddNumberToObject(p, "eta", c->u_target);
        cJSON_AddNumberToObject(p, "max_stage", (double)c->mi_thresh);
        /* W_AI = RATE_AI x T, as the reference's window follows its rate (rdma-hw.cc) */
        long long w_ai = (long long)((double)c->rate_ai * (double)T / 8e12 + 0.5);
        if (w_ai < 1)
            return fail(x, c->file, c->rate_ai_line ? c->rate_ai_line : c->line_cc, "RATE_AI %lld bps: its window step "
                        "RATE_AI x T (T %.3f us) is below one byte, which rocesim's HPCC does not take",
                        (long long)c->rate_ai, (double)T / 1e6);
        snprintf(b, sizeof b, "%lldB", w_ai);
        add_str(p, "w_ai", b);
        add_str(p, "base_rtt", fmt_ps(T, b, sizeof b));
        if (c->multi_rate)
            note(x, "MULTI_RATE 1: the reference's rate per hop approximated by rocesim's HPCC, one window over the "
                 "most utilised hop (the paper's Algorithm 1)");
    } else if (c->cc_mode == 7) {
        if (!c->have_ai || !c->have_hai)
            return fail(x, c->file, c->line_cc, "CC_MODE 7 (TIMELY) needs RATE_AI and RATE_HAI");
        if (positive(x, c, "RATE_AI", c->rate_ai, c->rate_ai_line, "TIMELY") ||
            positive(x, c, "MIN_RATE", c->min_rate, c->min_rate_line, "TIMELY"))
            return SCN_EUSAGE;
        add_str(h, "cc", "timely");
        cJSON *p = cJSON_AddObjectToObject(h, "timely");
        add_str(p, "preset", "hpcc-ns3");
        add_str(p, "delta", fmt_bps(c->rate_ai, b, sizeof b));
        add_str(p, "min_rate", fmt_bps(c->min_rate, b, sizeof b));
        if (c->rate_hai != 5 * c->rate_ai)
            note(x, "RATE_HAI %lld bps: rocesim's TIMELY steps by 5 x RATE_AI after 5 increases (hai_steps), the "
                 "reference by RATE_HAI", (long long)c->rate_hai);
        if (c->has_win)
            note(x, "HAS_WIN 1: the reference's window on TIMELY flows is not modelled (rocesim's TIMELY has none)");
    } else if (c->cc_mode == 8) {
        if (positive(x, c, "DCTCP_RATE_AI", c->dctcp_rate_ai, c->dctcp_rate_ai_line, "DCTCP") ||
            positive(x, c, "MIN_RATE", c->min_rate, c->min_rate_line, "DCTCP"))
            return SCN_EUSAGE;
        add_str(h, "cc", "dctcp");
        cJSON *p = cJSON_AddObjectToObject(h, "dctcp");
        add_str(p, "preset", "hpcc");
        cJSON_AddNumberToObject(p, "g", c->have_g ? c->ewma_gain : 0.0625);
        if (!c->have_g)
            note(x, "EWMA_GAIN missing: the reference's default is 1/16 in integer arithmetic, 0; rocesim takes 1/16");
        add_str(p, "ai_rate", fmt_bps(c->dctcp_rate_ai, b, sizeof b));
        add_str(p, "min_rate", fmt_bps(c->min_rate, b, sizeof b));
        add_str(p, "window_rtt", c->has_win ? fmt_ps(T, b, sizeof b) : "0us");
        if (c->has_win && !c->var_win)
            note(x, "VAR_WIN 0: the reference's fixed window of T x line rate approximated by rocesim's window of T x "
                 "the current rate");
    } else if (c->cc_mode == 10) {
        return fail(x, c->file, c->line_cc, "CC_MODE 10 (HPCC-PINT): not modelled (rocesim's HPCC carries whole INT "
                    "records)");
    } else {
        return fail(x, c->file, c->line_cc, "CC_MODE %llu: expected 1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP); "
                    "10 (HPCC-PINT) is not modelled", (unsigned long long)c->cc_mode);
    }
    if (c->cc_mode != 3 && c->cc_mode != 8 && !c->global_t)
        return 0;
    if (!c->global_t)
        note(x, "GLOBAL_T 0: the reference's T per host pair approximated by the largest, %lld ns", (long long)rtt_ns);
    return 0;
}

static int64_t nic_rate(const struct topo *t)
{
    /* third.cc's get_nic_rate: the first host's first link */
    for (uint32_t id = 0; id < t->n_nodes; id++)
        if (!t->is_sw[id])
            for (uint32_t i = 0; i < t->n_links; i++)
                if (t->l[i].a == id || t->l[i].b == id)
                    return t->l[i].bps;
    return 0;
}

static cJSON *scenario(struct ictx *x, const struct cfg *c, const struct topo *t, const struct flow *f, uint64_t nf,
                       cJSON *host)
{
    char b[96];
    cJSON *s = cJSON_CreateObject();
    add_str(s, "name", text_name_of_file(c->file, "ns3-rdma", b, sizeof b));
    char desc[400];
    snprintf(desc, sizeof desc, "Imported from the ns-3 RDMA simulator's %s, %s and %s (rocesim import ns3-rdma): "
             "host hK is the K-th host by its node id, switch swID keeps its id.", c->file, t->file,
             c->flow_file ? c->flow_file : "flows");
    scn_utf8_clean(desc); /* the files' names as given */
    add_str(s, "description", desc);
    add_str(s, "stop", fmt_ps(c->stop_ps, b, sizeof b));
    cJSON_AddItemToObject(s, "topology", topology(t, c));
    uint8_t pgs[8] = {0};
    for (uint64_t i = 0; i < nf; i++)
        pgs[f[i].pg] = 1;
    cJSON_AddItemToObject(s, "switch", switch_obj(x, c, t, pgs, nic_rate(t)));
    cJSON_AddItemToObject(s, "host", host);
    if (c->link_down_us > 0) {
        char na[32], nb[32];
        cJSON *fl = cJSON_CreateObject();
        add_str(fl, "type", "link_down");
        cJSON *btw = cJSON_AddArrayToObject(fl, "between");
        cJSON_AddItemToArray(btw, cJSON_CreateString(node_name(t, (uint32_t)c->link_down_a, na, sizeof na)));
        cJSON_AddItemToArray(btw, cJSON_CreateString(node_name(t, (uint32_t)c->link_down_b, nb, sizeof nb)));
        add_str(fl, "at", fmt_ps(2000000000000LL + (int64_t)c->link_down_us * 1000000, b, sizeof b));
        cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "faults"), fl);
    }
    cJSON *tr = cJSON_AddArrayToObject(s, "traffic");
    for (uint64_t i = 0; i < nf; i++) {
        cJSON *e = cJSON_CreateObject();
        add_str(e, "type", "flow");
        snprintf(b, sizeof b, "f%llu", (unsigned long long)i);
        add_str(e, "id", b);
        add_str(e, "src", node_name(t, f[i].src, b, sizeof b));
        add_str(e, "dst", node_name(t, f[i].dst, b, sizeof b));
        snprintf(b, sizeof b, "%lluB", (unsigned long long)f[i].size);
        add_str(e, "size", b);
        add_str(e, "start", fmt_ps(f[i].start_ps, b, sizeof b));
        cJSON_AddNumberToObject(e, "priority", f[i].pg);
        cJSON_AddItemToArray(tr, e);
    }
    return s;
}

/* The file a config names: as given when it exists (the reference opens it from the working directory), else
 * beside the config, else in the config's parent (the reference's examples name mix/FILE from mix/'s parent). */
static char *locate(const char *config, const char *name)
{
    FILE *fp = fopen(name, "r");
    if (fp || name[0] == '/') {
        if (fp)
            fclose(fp);
        return mem_xstrdup(name, IMP_OOM);
    }
    const char *slash = strrchr(config, '/');
    size_t dl = slash ? (size_t)(slash - config) : 0;
    char *p = mem_xcalloc(dl + strlen(name) + 8, 1, IMP_OOM);
    for (int up = 0; up < 2; up++) {
        if (up == 0)
            snprintf(p, dl + strlen(name) + 8, "%.*s%s%s", (int)dl, config, dl ? "/" : "", name);
        else
            snprintf(p, dl + strlen(name) + 8, "%.*s%s..%s%s", (int)dl, config, dl ? "/" : "", "/", name);
        if ((fp = fopen(p, "r")) != NULL) {
            fclose(fp);
            return p;
        }
    }
    free(p);
    return mem_xstrdup(name, IMP_OOM); /* the error names it as the config gave it */
}

int ns3rdma_import(const char *config, const char *topo_path, const char *flows_path, cJSON **out, struct sbuf *notes,
                   char *err, size_t errlen)
{
    struct ictx x = {.err = err, .errlen = errlen, .notes = notes};
    struct cfg c;
    struct topo t = {0};
    struct toks kc = {0}, kt = {0}, kf = {0};
    char *ctext = NULL, *ttext = NULL, *ftext = NULL, *tpath = NULL, *fpath = NULL;
    struct flow *fl = NULL;
    uint64_t nf = 0;
    *out = NULL;
    cfg_init(&c, config);
    int rc = read_text_file(config, &ctext, err, errlen);
    if (!rc) {
        toks_split(&kc, config, ctext);
        rc = read_config(&x, &kc, &c);
    }
    if (!rc && !topo_path && !c.topology_file)
        rc = fail(&x, config, 0, "no TOPOLOGY_FILE, and no --topology");
    if (!rc && !flows_path && !c.flow_file)
        rc = fail(&x, config, 0, "no FLOW_FILE, and no --flows");
    if (!rc) {
        tpath = topo_path ? mem_xstrdup(topo_path, IMP_OOM) : locate(config, c.topology_file);
        fpath = flows_path ? mem_xstrdup(flows_path, IMP_OOM) : locate(config, c.flow_file);
        c.flow_file = fpath;
        t.file = tpath;
        rc = read_text_file(tpath, &ttext, err, errlen);
    }
    if (!rc) {
        toks_split(&kt, tpath, ttext);
        rc = read_topology(&x, &kt, &t);
    }
    if (!rc && !(rc = read_text_file(fpath, &ftext, err, errlen))) {
        toks_split(&kf, fpath, ftext);
        rc = read_flows(&x, &kf, &t, &fl, &nf);
    }
    if (!rc)
        rc = check_rates(&x, &t);
    if (!rc && c.enable_qcn)
        rc = check_maps(&x, &c, &t);
    if (!rc && c.back_to_zero)
        rc = fail(&x, config, 0, "L2_BACK_TO_ZERO 1: not modelled (go-back-0 resends the whole chunk; rocesim's "
                  "loss recovery is go-back-N or selective)");
    if (!rc && !c.ack_interval)
        rc = fail(&x, config, 0, "L2_ACK_INTERVAL 0: the reference then sends no ACK and no flow completes");
    if (!rc && !c.rate_bound)
        rc = fail(&x, config, 0, "RATE_BOUND 0: not modelled (the reference's test mode without a rate limiter; "
                  "rocesim's NIC always paces at the flow's rate)");
    if (!rc && (c.payload < 256 || c.payload > 9000))
        rc = fail(&x, config, 0, "PACKET_PAYLOAD_SIZE %llu: rocesim's host.mtu is 256 to 9000 bytes",
                  (unsigned long long)c.payload);
    if (!rc && c.line_link_down && c.link_down_us > 0) {
        bool linked = false;
        for (uint32_t i = 0; i < t.n_links && !linked; i++)
            linked = (t.l[i].a == c.link_down_a && t.l[i].b == c.link_down_b) ||
                     (t.l[i].a == c.link_down_b && t.l[i].b == c.link_down_a);
        if (!linked)
            rc = fail(&x, config, c.line_link_down, "LINK_DOWN: nodes %llu and %llu are not linked in %s",
                      (unsigned long long)c.link_down_a, (unsigned long long)c.link_down_b, tpath);
    }
    bool connected = true;
    int64_t rtt = 0;
    if (!rc) {
        rtt = max_rtt_ns(&t, &c, &connected);
        if (!connected)
            rc = fail(&x, tpath, 0, "some hosts cannot reach each other (over switches only, as the reference routes)");
    }
    if (!rc && c.ack_interval > 1)
        note(&x, "L2_ACK_INTERVAL %llu: the reference restarts its ACK milestone at every packet, so it ACKs every "
             "packet after the first %llu bytes; rocesim ACKs every packet (host.ack_every 1)",
             (unsigned long long)c.ack_interval, (unsigned long long)c.ack_interval);
    cJSON *host = NULL;
    if (!rc)
        rc = host_obj(&x, &c, rtt, &host);
    if (!rc) {
        note(&x, "switch scheduler: the reference serves priority 0 first and the others round-robin; rocesim's "
             "switch.scheduler (strict priority) differs only with several data priorities");
        note(&x, "the reference's 4 KB reserved per ingress queue is not modelled (rocesim's PFC counts from the "
             "shared pool)");
        *out = scenario(&x, &c, &t, fl, nf, host);
    } else {
        cJSON_Delete(host);
    }
    toks_free(&kc), toks_free(&kt), toks_free(&kf);
    free(ctext), free(ttext), free(ftext), free(tpath), free(fpath);
    free(t.is_sw), free(t.host_ix), free(t.l), free(fl);
    return rc;
}

static const char import_usage[] =
    "usage: rocesim import ns3-rdma CONFIG.txt [--topology FILE] [--flows FILE] [--out SCENARIO.json]\n"
    "  prints the scenario that reproduces a run of the ns-3 RDMA simulator of the HPCC paper from its config\n"
    "  (KEY value), topology and flow files; the config's TOPOLOGY_FILE and FLOW_FILE are found from the working\n"
    "  directory, beside the config or in its parent, unless given.  --out: to a file.  See docs/ns3-rdma.md.\n";

int ns3rdma_import_main(int argc, char **argv)
{
    const char *cfg = NULL, *topo = NULL, *flows = NULL, *outp = NULL;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(import_usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--topology") || !strcmp(a, "--flows") || !strcmp(a, "--out") || !strcmp(a, "-o")) {
            if (i + 1 == argc)
                return usage_error("import", import_usage, "%s needs a value", a);
            const char **dst = a[2] == 't' ? &topo : a[2] == 'f' ? &flows : &outp;
            *dst = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("import", import_usage, "unknown option %s", a);
        } else if (!cfg) {
            cfg = a;
        } else {
            return usage_error("import", import_usage, "one config file, got a second: %s", a);
        }
    }
    if (!cfg)
        return usage_error("import", import_usage, "%s", "expected the config file");
    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX];
    int rc = ns3rdma_import(cfg, topo, flows, &o, &notes, err, sizeof err);
    return import_finish(rc, err, o, notes.p, outp);
}
