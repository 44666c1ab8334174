/*
 * htsim_import — an htsim_uec command line as a rocesim scenario (docs/uet.md).
 *
 * The options are main_uec.cpp's (ultraethernet/uet-htsim, htsim/sim/datacenter/), with its units and defaults:
 * -linkspeed in Mbit/s (100000), -mtu the whole data packet with its 64-byte header (4150), -q and -ecn in packets
 * of -mtu bytes, -end in whole us (1000), -hop_latency and -switch_latency in us (1, 0), -seed (13).  The derived
 * constants are computed with the reference's own arithmetic (double, then truncated to whole ps or bytes) so that
 * they match what it prints:
 *     RTT_net = 2 L_d + D MTU 8 / G 1000 + D 64 8 / G 1000   (ps; G = LS in Gbit/s, D = 2 tiers, L_d the diameter's
 *                                                               propagation)
 *     BDP     = ceil(RTT_net 1e-12 floor(LS / 8) / MTU)     (packets)
 *     Q       = -q x MTU, else factor x BDP x MTU            (factor 1 with trimming, 5 without)
 *     Kmin    = ceil(0.2 BDP) MTU, Kmax = ceil(0.8 BDP) MTU  (or -ecn LOW HIGH packets)
 *     RTO     = (15 + Q 6 8 1e6 / LS) us
 * What the reference has and rocesim cannot honour yet is refused by name with the reason.
 */
#include "tools/ops/htsim.h"
#include "models/trigger.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMP_OOM "importing an htsim_uec run"
#define ACK_BYTES 64 /* the reference's ACK, NACK and header size (uecpacket.h) */
#define CTRL_PRIORITY 6
#define DATA_PRIORITY 3
/* -failed: the rate, queue and ECN thresholds of a failed link, as fractions of its own (the reference's
 * FatTreeTopology _failed_link_ratio) */
#define FAILED_RATIO 0.25

char *htsim_fmt_time(int64_t ps, char *buf, size_t len)
{
    if (ps % 1000000 == 0)
        snprintf(buf, len, "%lldus", (long long)(ps / 1000000));
    else {
        /* microseconds with the fraction's trailing zeros dropped: exact, since 1 ps is 1e-6 us */
        char frac[8];
        snprintf(frac, sizeof frac, "%06lld", (long long)(ps % 1000000));
        for (int i = 5; i > 0 && frac[i] == '0'; i--)
            frac[i] = '\0';
        snprintf(buf, len, "%lld.%sus", (long long)(ps / 1000000), frac);
    }
    return buf;
}

char *htsim_fmt_rate(int64_t bps, char *buf, size_t len)
{
    static const char *const unit[] = {"bps", "Kbps", "Mbps", "Gbps", "Tbps"};
    int u = 0;
    while (u < 4 && bps && bps % 1000 == 0) {
        bps /= 1000;
        u++;
    }
    snprintf(buf, len, "%lld%s", (long long)bps, unit[u]);
    return buf;
}

static char *fmt_bytes(int64_t b, char *buf, size_t len)
{
    snprintf(buf, len, "%lldB", (long long)b);
    return buf;
}

/* The run the command line describes, as the reference sets it up. */
struct opts {
    const char *tm, *topo;
    uint32_t nodes, tiers, cwnd, paths, qpkts, qfactor, ecn_lo, ecn_hi, trimsize, sack;
    uint32_t failed;             /* -failed N: links slowed to FAILED_RATIO of their rate */
    int64_t linkspeed_bps, hop_ps, target_ps, end_us, seed;
    int mtu, qa_gate;
    bool q_set, ecn_set, no_trim, accurate_rtt, no_nack_rtt;
    const char *lb;
    bool sender_cc, receiver_cc; /* NSCC (the reference's default) and RCCC, as the options leave them */
    bool sender_flag; /* the reference's _sender_based_cc as options leave it (keeps the oversubscription CC off) */
    bool oversub_on, oversub_off; /* -oversubscribed_cc (as later options leave it), -force_disable_oversubscribed_cc */
    double os_ai, os_md, os_alpha; /* the receiver oversubscription control's constants: -Ai, -Md, -alpha */
    struct sbuf cmdline;
};

struct ictx {
    char *err;
    size_t errlen;
    struct sbuf *notes;
};

static int ifail(struct ictx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ifail(struct ictx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->errlen, fmt, ap);
    va_end(ap);
    if (x->errlen)
        scn_one_line(x->err); /* it quotes arguments as given */
    return SCN_EUSAGE;
}

static void note(struct ictx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ictx *x, const char *fmt, ...)
{
    if (!x->notes)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    scn_one_line(msg);
    sb_printf(x->notes, "%s\n", msg);
}

static bool parse_int(const char *s, long long lo, long long hi, long long *v)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (*end || errno || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

/* Options the reference has that rocesim cannot honour yet, and why. */
static const struct {
    const char *name;
    int nargs;
    const char *why;
} refused[] = {
    {"-sleek", 0, "not modelled (SLEEK loss recovery)"},
    {"-conn_reuse", 0, "not modelled (several messages on one connection, the reference's PDC)"},
    {"-pcie", 1, "not modelled (the receiver's PCIe model)"},
};

/* Options accepted with no effect on the run rocesim reproduces, and why. */
static const struct {
    const char *name;
    int nargs;
    const char *why;
} ignored[] = {
    {"-o", 1, "the reference's binary log file; rocesim writes its own outputs"},
    {"-log", 1, "the reference's binary log samplers; rocesim writes its own outputs"},
    {"-logtime", 1, "the period of the reference's log samplers"},
    {"-logtime_us", 1, "the period of the reference's log samplers"},
    {"-debug", 0, "the reference's packet tracing"},
    {"-ar_sticky_delta", 1, "adaptive routing's setting, which the default ECMP routing does not use"},
    {"-ar_granularity", 1, "adaptive routing's setting, which the default ECMP routing does not use"},
    {"-ar_method", 1, "adaptive routing's setting, which the default ECMP routing does not use"},
};

/* An option of the tables of refused and ignored ones, argv[i]: *done, with its values' count in *adv; or a refusal
 * (its exit status). */
static int table_opt(struct ictx *x, int argc, char **argv, int i, int *adv, bool *done)
{
    const char *a = argv[i];
    int want = -1;
    for (size_t r = 0; r < sizeof refused / sizeof *refused; r++)
        if (!strcmp(a, refused[r].name))
            return ifail(x, "%s: %s", a, refused[r].why);
    for (size_t r = 0; r < sizeof ignored / sizeof *ignored && want < 0; r++)
        if (!strcmp(a, ignored[r].name)) {
            want = ignored[r].nargs;
            note(x, "%s: ignored (%s)", a, ignored[r].why);
        }
    if (want < 0)
        return 0;
    if (i + want >= argc)
        return ifail(x, "%s: expected %s after it, got the end of the command line", a, want == 1 ? "a value" : "two values");
    *adv = want;
    *done = true;
    return 0;
}

/* An option without a value (the congestion controls' modes, trimming, base RTT): whether a is one, applied to o. */
static bool flag_opt(struct opts *o, const char *a)
{
    if (!strcmp(a, "-oversubscribed_cc")) {
        o->oversub_on = true;
    } else if (!strcmp(a, "-force_disable_oversubscribed_cc")) {
        o->oversub_on = false;
        o->oversub_off = true;
    } else if (!strcmp(a, "-receiver_cc_only")) {
        o->sender_cc = o->sender_flag = false; /* the reference's _sender_based_cc, which it clears */
        o->receiver_cc = true;
        o->oversub_on = false;
    } else if (!strcmp(a, "-receiver_cc")) {
        o->receiver_cc = true; /* NSCC stays as it was: on, unless -receiver_cc_only turned it off */
    } else if (!strcmp(a, "-sender_cc_only")) {
        o->sender_cc = o->sender_flag = true;
        o->receiver_cc = o->oversub_on = false;
    } else if (!strcmp(a, "-sender_cc")) {
        o->sender_cc = o->sender_flag = true;
        o->oversub_on = false;
    } else if (!strcmp(a, "-disable_trim")) {
        o->no_trim = true;
    } else if (!strcmp(a, "-enable_accurate_base_rtt")) {
        o->accurate_rtt = true;
    } else if (!strcmp(a, "-disable_base_rtt_update_on_nack")) {
        o->no_nack_rtt = true;
    } else {
        return false;
    }
    return true;
}

/* -q, -cwnd, -queue_size_bdp_factor, -paths, -trimsize, -sack_threshold, -failed: a whole number v; 0 or a refusal. */
static int whole_opt(struct opts *o, struct ictx *x, const char *a, const char *val)
{
    long long iv;
    if (!parse_int(val, 0, 1000000000, &iv))
        return ifail(x, "%s: expected a whole number, got \"%.40s\"", a, val);
    uint32_t v = (uint32_t)iv;
    if (!strcmp(a, "-q"))
        o->qpkts = v, o->q_set = true;
    else if (!strcmp(a, "-cwnd"))
        o->cwnd = v;
    else if (!strcmp(a, "-queue_size_bdp_factor"))
        o->qfactor = v;
    else if (!strcmp(a, "-paths"))
        o->paths = v;
    else if (!strcmp(a, "-trimsize"))
        o->trimsize = v;
    else if (!strcmp(a, "-failed"))
        o->failed = v;
    else
        o->sack = v;
    return 0;
}

/* -load_balancing_algo, -sender_cc_algo, -queue_type, -host_queue_type, -strat: a name; 0 or a refusal. */
static int word_opt(struct opts *o, struct ictx *x, const char *a, const char *v)
{
    if (!strcmp(a, "-load_balancing_algo")) {
        if (!strcmp(v, "reps_legacy"))
            return ifail(x, "-load_balancing_algo reps_legacy: not modelled (the older REPS; reps is)");
        if (strcmp(v, "bitmap") && strcmp(v, "reps") && strcmp(v, "oblivious") && strcmp(v, "mixed"))
            return ifail(x, "-load_balancing_algo: expected bitmap, reps, oblivious or mixed, got \"%.40s\"", v);
        o->lb = v;
    } else if (!strcmp(a, "-sender_cc_algo")) {
        if (strcmp(v, "nscc"))
            return ifail(x, "-sender_cc_algo %.40s: not modelled (rocesim's UET runs NSCC; dctcp and constant "
                         "windows are the reference's alternatives)", v);
        o->sender_cc = o->sender_flag = true;
    } else {
        const char *want = a[1] == 'q' ? "composite" : a[1] == 'h' ? "fair_prio" : "ecmp_host";
        if (strcmp(v, want))
            return ifail(x, "%s %.40s: not modelled (only the reference's default, %s, is)", a, v, want);
    }
    return 0;
}

/* -hop_latency, -switch_latency, -target_q_delay: microseconds (the reference's timeFromUs of a double). */
static int time_opt(struct opts *o, struct ictx *x, const char *a, const char *val)
{
    double dv;
    if (!text_num(val, 0, 1e7, &dv))
        return ifail(x, "%s: expected microseconds, got \"%.40s\"", a, val);
    int64_t ps = (int64_t)(dv * 1000000);
    if (a[1] == 'h')
        o->hop_ps = ps;
    else if (a[1] == 't')
        o->target_ps = ps;
    else if (ps)
        return ifail(x, "-switch_latency %s: not modelled (rocesim's switches forward without a fixed latency; give "
                     "0)", val);
    return 0;
}

/* The reference's defaults (main_uec.cpp), and the command line as given, for the scenario's description. */
static void opts_init(struct opts *o, int argc, char **argv)
{
    *o = (struct opts){.tiers = 3, .linkspeed_bps = 100000000000LL, .mtu = 4150, .paths = 64, .trimsize = 64,
                       .sack = 16384, .hop_ps = 1000000, .end_us = 1000, .seed = 13, .qa_gate = -1, .lb = "mixed",
                       .sender_cc = true, .os_ai = 0.01, .os_md = 0.5, .os_alpha = 0.5};
    sb_printf(&o->cmdline, "htsim_uec");
    for (int i = 0; i < argc; i++)
        sb_printf(&o->cmdline, " %s", argv[i]);
    scn_utf8_clean(o->cmdline.p);
}

static int parse_opts(int argc, char **argv, struct opts *o, struct ictx *x)
{
    opts_init(o, argc, argv);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        long long iv;
        double dv;
        int adv = 0; /* the option's values */
#define VAL(k) (i + (k) < argc ? argv[i + (k)] : "")
#define NEED(k)                                                                                                       \
    do {                                                                                                              \
        if (i + (k) >= argc)                                                                                          \
            return ifail(x, "%s: expected %s after it, got the end of the command line", a,                          \
                         (k) == 1 ? "a value" : "two values");                                                        \
        adv = (k);                                                                                                    \
    } while (0)
        bool done = false;
        int rc = table_opt(x, argc, argv, i, &adv, &done);
        if (rc)
            return rc;
        if (done || flag_opt(o, a)) {
        } else if (!strcmp(a, "-tm") || !strcmp(a, "-topo")) {
            NEED(1);
            *(!strcmp(a, "-tm") ? &o->tm : &o->topo) = VAL(1);
        } else if (!strcmp(a, "-nodes")) {
            NEED(1);
            if (!parse_int(VAL(1), 0, 1000000, &iv))
                return ifail(x, "-nodes: expected a whole number of hosts, got \"%.40s\"", VAL(1));
            o->nodes = (uint32_t)iv;
        } else if (!strcmp(a, "-tiers")) {
            NEED(1);
            if (!parse_int(VAL(1), 2, 3, &iv))
                return ifail(x, "-tiers: expected 2 or 3, got \"%.40s\"", VAL(1));
            o->tiers = (uint32_t)iv;
        } else if (!strcmp(a, "-planes")) {
            NEED(1);
            if (!parse_int(VAL(1), 1, 8, &iv))
                return ifail(x, "-planes: expected 1 to 8, got \"%.40s\"", VAL(1));
            if (iv != 1)
                return ifail(x, "-planes %lld: not modelled (the reference itself stops unless there is one plane)",
                             iv);
        } else if (!strcmp(a, "-linkspeed")) {
            NEED(1);
            /* speedFromMbps(atof): Mbit/s, truncated to whole bit/s */
            if (!text_num(VAL(1), 1e-3, 1e9, &dv) || (int64_t)(dv * 1000000) < 1)
                return ifail(x, "-linkspeed: expected Mbit/s above 0 (100000 for 100 Gbps), got \"%.40s\"", VAL(1));
            o->linkspeed_bps = (int64_t)(dv * 1000000);
        } else if (!strcmp(a, "-mtu")) {
            NEED(1);
            if (!parse_int(VAL(1), 320, 9064, &iv))
                return ifail(x, "-mtu: expected the whole data packet in bytes, 320 to 9064 (rocesim's MTU 256 to "
                             "9000 plus the reference's 64-byte header), got \"%.40s\"", VAL(1));
            o->mtu = (int)iv;
        } else if (!strcmp(a, "-hop_latency") || !strcmp(a, "-switch_latency") || !strcmp(a, "-target_q_delay")) {
            NEED(1);
            if ((rc = time_opt(o, x, a, VAL(1))) != 0)
                return rc;
        } else if (!strcmp(a, "-q") || !strcmp(a, "-cwnd") || !strcmp(a, "-queue_size_bdp_factor") ||
                   !strcmp(a, "-paths") || !strcmp(a, "-trimsize") || !strcmp(a, "-sack_threshold") ||
                   !strcmp(a, "-failed")) {
            NEED(1);
            if ((rc = whole_opt(o, x, a, VAL(1))) != 0)
                return rc;
        } else if (!strcmp(a, "-ecn")) {
            NEED(2);
            long long lo, hi;
            if (!parse_int(VAL(1), 0, 1000000000, &lo) || !parse_int(VAL(2), 0, 1000000000, &hi))
                return ifail(x, "-ecn: expected LOW HIGH in packets, got \"%.40s %.40s\"", VAL(1), VAL(2));
            o->ecn_lo = (uint32_t)lo;
            o->ecn_hi = (uint32_t)hi;
            o->ecn_set = true;
        } else if (!strcmp(a, "-end")) {
            NEED(1);
            if (!parse_int(VAL(1), 1, 17592186, &iv))
                return ifail(x, "-end: expected whole microseconds from 1 to 17592186 (rocesim's clock), got "
                             "\"%.40s\"", VAL(1));
            o->end_us = iv;
        } else if (!strcmp(a, "-seed")) {
            NEED(1);
            if (!parse_int(VAL(1), INT_MIN, INT_MAX, &iv))
                return ifail(x, "-seed: expected a whole number, got \"%.40s\"", VAL(1));
            if (iv < 0)
                return ifail(x, "-seed %lld: rocesim's seed is a whole number from 0", iv);
            o->seed = iv;
        } else if (!strcmp(a, "-Ai") || !strcmp(a, "-Md") || !strcmp(a, "-alpha")) {
            NEED(1);
            /* the ranges of host.uet.oversub_ai, oversub_md and oversub_alpha */
            double hi = a[1] == 'M' ? 1000 : 1;
            if (!text_num(VAL(1), 0, hi, &dv))
                return ifail(x, "%s: expected a number from 0 to %g (a constant of the receiver oversubscription "
                             "control), got \"%.40s\"", a, hi, VAL(1));
            *(a[1] == 'A' ? &o->os_ai : a[1] == 'M' ? &o->os_md : &o->os_alpha) = dv;
        } else if (!strcmp(a, "-qa_gate")) {
            NEED(1);
            if (!parse_int(VAL(1), -128, 127, &iv))
                return ifail(x, "-qa_gate: expected a whole exponent from -128 to 127, got \"%.40s\"", VAL(1));
            o->qa_gate = (int)iv;
            if (iv > 31) {
                /* host.nscc.qa_gate takes 0..31; any window the fabric can hold (under 2 GB) shifted by 31 is 0
                 * already, so quick adapt never acts either way */
                note(x, "-qa_gate %lld: taken as 31 (maxwnd / 2^g is then below one byte, as with %lld: quick adapt "
                     "never acts)", iv, iv);
                o->qa_gate = 31;
            }
        } else if (!strcmp(a, "-load_balancing_algo") || !strcmp(a, "-sender_cc_algo") ||
                   !strcmp(a, "-queue_type") || !strcmp(a, "-host_queue_type") || !strcmp(a, "-strat")) {
            NEED(1);
            if ((rc = word_opt(o, x, a, VAL(1))) != 0)
                return rc;
        } else {
            return ifail(x, "%s: unknown option (not one of htsim_uec's)", a);
        }
        i += adv;
#undef VAL
#undef NEED
    }
    if (!o->tm)
        return ifail(x, "-tm: the connection matrix is required (the reference would read it from its standard "
                     "input)");
    return 0;
}

/* The reference's constants for this run (main_uec.cpp's calculate_rtt, calculate_bdp_pkt, set-up). */
struct consts {
    int64_t rtt_ps, q_bytes, kmin, kmax, rto_ps;
    uint32_t bdp_pkts;
};

static void derive(const struct opts *o, const struct htsim_topo *t, struct consts *c)
{
    double gbps = (double)o->linkspeed_bps / 1000000000.0;
    uint32_t D = 2 * t->tiers;
    double rtt = (double)(2 * (uint64_t)t->diameter_latency_ps) + (double)(o->mtu * 8) / gbps * D * 1000 +
                 (double)(ACK_BYTES * 8) / gbps * D * 1000;
    c->rtt_ps = (int64_t)(uint64_t)rtt;
    double sec = (double)c->rtt_ps / 1000000000000.0;
    c->bdp_pkts = (uint32_t)ceil(sec * (double)((uint64_t)o->linkspeed_bps / 8) / (double)o->mtu);
    uint32_t factor = o->qfactor ? o->qfactor : o->no_trim ? 5 : 1;
    c->q_bytes = o->q_set ? (int64_t)o->qpkts * o->mtu : (int64_t)c->bdp_pkts * factor * o->mtu;
    if (o->ecn_set) {
        c->kmin = (int64_t)o->ecn_lo * o->mtu;
        c->kmax = (int64_t)o->ecn_hi * o->mtu;
    } else {
        c->kmin = (int64_t)ceil(ceil(c->bdp_pkts * 0.2) * o->mtu);
        c->kmax = (int64_t)ceil(ceil(c->bdp_pkts * 0.8) * o->mtu);
    }
    double rto_us = 15 + (double)c->q_bytes * 6.0 * 8 * 1000000 / (double)o->linkspeed_bps;
    c->rto_ps = (int64_t)(uint64_t)(rto_us * 1000000);
}

static cJSON *link_obj(int64_t bps, int64_t ps)
{
    char b[64];
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "rate", htsim_fmt_rate(bps, b, sizeof b));
    cJSON_AddStringToObject(l, "delay", htsim_fmt_time(ps, b, sizeof b));
    return l;
}

static void add_custom_link(cJSON *links, const char *a, uint32_t ai, const char *b, uint32_t bi, int64_t bps,
                            int64_t ps)
{
    char na[32], nb[32];
    snprintf(na, sizeof na, "%s%u", a, ai);
    snprintf(nb, sizeof nb, "%s%u", b, bi);
    cJSON *l = link_obj(bps, ps);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "a", na);
    cJSON_AddStringToObject(e, "b", nb);
    cJSON *it;
    cJSON_ArrayForEach(it, l) cJSON_AddItemToObject(e, it->string, cJSON_CreateString(it->valuestring));
    cJSON_Delete(l);
    cJSON_AddItemToArray(links, e);
}

static void add_nodes(cJSON *nodes, const char *prefix, uint32_t n, const char *kind)
{
    char name[32];
    for (uint32_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        snprintf(name, sizeof name, "%s%u", prefix, i);
        cJSON_AddStringToObject(e, "name", name);
        cJSON_AddStringToObject(e, "kind", kind);
        cJSON_AddItemToArray(nodes, e);
    }
}

/* The topology object: rocesim's fat-tree or leaf-spine where its shape is the reference's, else custom. */
static cJSON *topology(const struct htsim_topo *t, int64_t *max_ports)
{
    const struct htsim_tier *T = t->tier;
    cJSON *o = cJSON_CreateObject();
    uint32_t U = t->tiers == 3 ? T[1].radix_up / T[2].bundle : 0; /* cores per aggregation switch */
    int64_t tor_ports = t->hosts_per_tor + (int64_t)(t->tiers == 3 ? t->aggs_per_pod : t->nagg) * T[1].bundle;
    int64_t agg_ports = (int64_t)(t->tiers == 3 ? t->tors_per_pod : t->ntor) * T[1].bundle + (int64_t)U * T[2].bundle;
    int64_t core_ports = t->tiers == 3 ? (int64_t)t->npod * T[2].bundle : 0;
    *max_ports = tor_ports > agg_ports ? tor_ports : agg_ports;
    if (core_ports > *max_ports)
        *max_ports = core_ports;
    bool same_fabric = t->tiers == 2 || (T[1].speed_bps == T[2].speed_bps && T[1].lat_ps == T[2].lat_ps);
    bool uniform = same_fabric && T[0].speed_bps == T[1].speed_bps && T[0].lat_ps == T[1].lat_ps;
    bool bundles = T[1].bundle == 1 && (t->tiers == 2 || T[2].bundle == 1);
    if (!t->from_file && t->tiers == 3) {
        cJSON_AddStringToObject(o, "type", "fat-tree");
        cJSON_AddNumberToObject(o, "k", t->npod);
        cJSON_AddItemToObject(o, "link", link_obj(T[0].speed_bps, T[0].lat_ps));
    } else if (t->tiers == 2 && bundles) {
        cJSON_AddStringToObject(o, "type", "leaf-spine");
        cJSON_AddNumberToObject(o, "leaves", t->ntor);
        cJSON_AddNumberToObject(o, "spines", t->nagg);
        cJSON_AddNumberToObject(o, "hosts_per_leaf", t->hosts_per_tor);
        if (uniform) {
            cJSON_AddItemToObject(o, "link", link_obj(T[0].speed_bps, T[0].lat_ps));
        } else {
            cJSON_AddItemToObject(o, "host_link", link_obj(T[0].speed_bps, T[0].lat_ps));
            cJSON_AddItemToObject(o, "fabric_link", link_obj(T[1].speed_bps, T[1].lat_ps));
        }
    } else if (t->tiers == 3 && bundles && same_fabric) {
        /* rocesim gives aggregation switch j of every pod the cores j U .. j U + U - 1, the reference the cores
         * j, j + A, ..: the same fabric, its cores numbered otherwise */
        cJSON_AddStringToObject(o, "type", "fat-tree");
        cJSON_AddNumberToObject(o, "pods", t->npod);
        cJSON_AddNumberToObject(o, "tors_per_pod", t->tors_per_pod);
        cJSON_AddNumberToObject(o, "aggs_per_pod", t->aggs_per_pod);
        cJSON_AddNumberToObject(o, "hosts_per_tor", t->hosts_per_tor);
        cJSON_AddNumberToObject(o, "cores", t->ncore);
        if (uniform) {
            cJSON_AddItemToObject(o, "link", link_obj(T[0].speed_bps, T[0].lat_ps));
        } else {
            cJSON_AddItemToObject(o, "host_link", link_obj(T[0].speed_bps, T[0].lat_ps));
            cJSON_AddItemToObject(o, "fabric_link", link_obj(T[1].speed_bps, T[1].lat_ps));
        }
    } else {
        /* the reference's own wiring, node by node (its numbering: tor, agg, core as it counts them) */
        cJSON_AddStringToObject(o, "type", "custom");
        cJSON *nodes = cJSON_AddArrayToObject(o, "nodes"), *links = cJSON_AddArrayToObject(o, "links");
        add_nodes(nodes, "h", t->nodes, "host");
        add_nodes(nodes, "tor", t->ntor, "switch");
        add_nodes(nodes, "agg", t->nagg, "switch");
        add_nodes(nodes, "core", t->ncore, "switch");
        for (uint32_t h = 0; h < t->nodes; h++)
            add_custom_link(links, "h", h, "tor", h / t->hosts_per_tor, T[0].speed_bps, T[0].lat_ps);
        for (uint32_t tor = 0; tor < t->ntor; tor++) {
            uint32_t pod = tor / t->tors_per_pod;
            uint32_t a0 = t->tiers == 3 ? pod * t->aggs_per_pod : 0;
            uint32_t a1 = t->tiers == 3 ? a0 + t->aggs_per_pod : t->nagg;
            for (uint32_t agg = a0; agg < a1; agg++)
                for (uint32_t b = 0; b < T[1].bundle; b++)
                    add_custom_link(links, "tor", tor, "agg", agg, T[1].speed_bps, T[1].lat_ps);
        }
        for (uint32_t agg = 0; t->tiers == 3 && agg < t->nagg; agg++)
            for (uint32_t l = 0; l < U; l++)
                for (uint32_t b = 0; b < T[2].bundle; b++)
                    add_custom_link(links, "agg", agg, "core", agg % t->aggs_per_pod + t->aggs_per_pod * l,
                                    T[2].speed_bps, T[2].lat_ps);
    }
    return o;
}

/* The rate of -failed's links: the reference multiplies the tier's rate by the ratio into its integer type. */
static int64_t failed_rate(const struct htsim_topo *t)
{
    return (int64_t)((double)t->tier[t->tiers == 3 ? 2 : 1].speed_bps * FAILED_RATIO);
}

/* A size as a map by port rate: `full` at every rate of t's links, full x FAILED_RATIO (truncated, as the
 * reference's integer sizes) at the failed links' rate. */
/* Whether a tier's links run at the failed links' rate. */
static bool failed_rate_taken(const struct htsim_topo *t)
{
    for (uint32_t i = 0; i < t->tiers; i++)
        if (t->tier[i].speed_bps == failed_rate(t))
            return true;
    return false;
}

static cJSON *failed_map(const struct htsim_topo *t, int64_t full)
{
    char r[32], b[32];
    cJSON *m = cJSON_CreateObject();
    for (uint32_t i = 0; i < t->tiers; i++) {
        htsim_fmt_rate(t->tier[i].speed_bps, r, sizeof r);
        if (!cJSON_GetObjectItemCaseSensitive(m, r))
            cJSON_AddStringToObject(m, r, fmt_bytes(full, b, sizeof b));
    }
    cJSON_AddStringToObject(m, htsim_fmt_rate(failed_rate(t), r, sizeof r),
                            fmt_bytes((int64_t)((double)full * FAILED_RATIO), b, sizeof b));
    return m;
}

static void add_slow(cJSON *faults, const char *a, uint32_t ai, const char *b, uint32_t bi, int64_t bps, bool one_way)
{
    char na[32], nb[32], r[32];
    snprintf(na, sizeof na, "%s%u", a, ai);
    snprintf(nb, sizeof nb, "%s%u", b, bi);
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", "link_slow");
    cJSON *btw = cJSON_AddArrayToObject(f, "between");
    cJSON_AddItemToArray(btw, cJSON_CreateString(na));
    cJSON_AddItemToArray(btw, cJSON_CreateString(nb));
    cJSON_AddStringToObject(f, "rate", htsim_fmt_rate(bps, r, sizeof r));
    if (one_way)
        cJSON_AddStringToObject(f, "direction", "forward");
    cJSON_AddItemToArray(faults, f);
}

/*
 * -failed N as the reference's FatTreeTopology builds it: the links run at FAILED_RATIO of their rate, with that
 * fraction of the queue and of the ECN thresholds.  Two tiers: every ToR's links to aggregation switches 0 .. N - 1,
 * both ways.  Three tiers: only the direction core -> aggregation switch g, for each of g's uplinks l with
 * l + g A < N (A aggregation switches per pod), to the reference's core g mod A + A l, which rocesim's own fat-tree
 * numbers (g mod A) U + l (U uplinks per aggregation switch).  The switch's sizes become maps by rate, where the
 * failed links' rate is none of the fabric's (checked before).
 */
static void add_failed(cJSON *s, cJSON *sw, cJSON *ecn, const struct htsim_topo *t, const struct consts *c,
                       uint32_t N)
{
    const cJSON *topo = cJSON_GetObjectItemCaseSensitive(s, "topology");
    const char *type = cJSON_GetObjectItemCaseSensitive(topo, "type")->valuestring;
    bool custom = !strcmp(type, "custom");
    int64_t bps = failed_rate(t);
    cJSON *faults = cJSON_AddArrayToObject(s, "faults");
    if (t->tiers == 2) {
        bool ls = !strcmp(type, "leaf-spine");
        for (uint32_t tor = 0; tor < t->ntor; tor++)
            for (uint32_t agg = 0; agg < t->nagg && agg < N; agg++)
                add_slow(faults, ls ? "leaf" : "tor", tor, ls ? "spine" : "agg", agg, bps, false);
    } else {
        uint32_t A = t->aggs_per_pod, U = t->tier[1].radix_up / t->tier[2].bundle;
        for (uint32_t g = 0; g < t->nagg && (uint64_t)g * A < N; g++)
            for (uint32_t l = 0; l < U && l + (uint64_t)g * A < N; l++)
                add_slow(faults, "core", custom ? g % A + A * l : g % A * U + l, "agg", g, bps, true);
    }
    cJSON_ReplaceItemInObjectCaseSensitive(sw, "lossy_queue_limit", failed_map(t, c->q_bytes));
    cJSON_ReplaceItemInObjectCaseSensitive(ecn, "kmin", failed_map(t, c->kmin));
    cJSON_ReplaceItemInObjectCaseSensitive(ecn, "kmax", failed_map(t, c->kmax));
}

/* The flows' ids: "f<ID>" for a line with an id, else "uec_<SRC>_<DST>", then "_2", "_3" .. for repeats. */
struct name_key {
    uint32_t src, dst;
    size_t idx;
};

static int key_cmp(const void *a, const void *b)
{
    const struct name_key *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint32_t *repeat_numbers(const struct htsim_cm *cm)
{
    size_t n = cm->n_conns;
    uint32_t *rep = mem_xcalloc(n ? n : 1, sizeof *rep, IMP_OOM);
    struct name_key *k = mem_xcalloc(n ? n : 1, sizeof *k, IMP_OOM);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!cm->conns[i].id)
            k[m++] = (struct name_key){cm->conns[i].src, cm->conns[i].dst, i};
    qsort(k, m, sizeof *k, key_cmp);
    for (size_t i = 0; i < m; i++)
        rep[k[i].idx] = i && k[i - 1].src == k[i].src && k[i - 1].dst == k[i].dst ? rep[k[i - 1].idx] + 1 : 1;
    free(k);
    return rep;
}

static cJSON *traffic(const struct htsim_cm *cm, struct ictx *x)
{
    cJSON *arr = cJSON_CreateArray();
    uint32_t *rep = repeat_numbers(cm);
    size_t recv_done = 0;
    char b[64];
    for (size_t i = 0; i < cm->n_conns; i++) {
        const struct htsim_conn *c = &cm->conns[i];
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "type", "flow");
        if (c->id)
            snprintf(b, sizeof b, "f%u", c->id);
        else if (rep[i] > 1)
            snprintf(b, sizeof b, "uec_%u_%u_%u", c->src, c->dst, rep[i]);
        else
            snprintf(b, sizeof b, "uec_%u_%u", c->src, c->dst);
        cJSON_AddStringToObject(f, "id", b);
        snprintf(b, sizeof b, "h%u", c->src);
        cJSON_AddStringToObject(f, "src", b);
        snprintf(b, sizeof b, "h%u", c->dst);
        cJSON_AddStringToObject(f, "dst", b);
        cJSON_AddStringToObject(f, "size", fmt_bytes(c->size, b, sizeof b));
        if (c->has_start) {
            snprintf(b, sizeof b, "%uus", c->start_us);
            cJSON_AddStringToObject(f, "start", b);
        } else {
            snprintf(b, sizeof b, "t%u", c->trigger);
            cJSON_AddStringToObject(f, "trigger", b);
        }
        if (c->send_done) {
            snprintf(b, sizeof b, "t%u", c->send_done);
            cJSON_AddStringToObject(f, "on_sent", b);
        }
        recv_done += c->recv_done != 0;
        cJSON_AddItemToArray(arr, f);
    }
    if (recv_done)
        note(x, "recv_done_trigger on %zu connection(s): not imported as on_received, since the reference never "
             "fires it without -conn_reuse (what waits only on it never starts, as in the reference)", recv_done);
    free(rep);
    return arr;
}

static cJSON *triggers(const struct htsim_cm *cm)
{
    static const char *const names[] = {"", "oneshot", "multishot", "barrier"};
    cJSON *arr = cJSON_CreateArray();
    char b[32];
    for (size_t i = 0; i < cm->n_trigs; i++) {
        const struct htsim_trig *t = &cm->trigs[i];
        cJSON *o = cJSON_CreateObject();
        snprintf(b, sizeof b, "t%u", t->id);
        cJSON_AddStringToObject(o, "id", b);
        cJSON_AddStringToObject(o, "type", names[t->type]);
        if (t->type == HTSIM_TRIG_BARRIER)
            cJSON_AddNumberToObject(o, "count", t->count);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* Checks what the reference checks between the matrix, the topology and the options. */
static int check_cm(const char *file, const struct htsim_cm *cm, uint32_t nodes, struct ictx *x)
{
    if (cm->first_failure_line)
        return ifail(x, "%s:%d: failure: not modelled (a failure line removes one aggregation-to-core link; rocesim's "
                     "import cannot remove one link yet)", file, cm->first_failure_line);
    if (!cm->n_conns)
        return ifail(x, "%s: Connections 0: a rocesim scenario needs at least one flow", file);
    for (size_t i = 0; i < cm->n_conns; i++) {
        const struct htsim_conn *c = &cm->conns[i];
        if (c->src >= nodes || c->dst >= nodes)
            return ifail(x, "%s:%d: host %u: expected a host number below Nodes %u", file, c->line,
                         c->src >= nodes ? c->src : c->dst, nodes);
        if (c->src == c->dst)
            return ifail(x, "%s:%d: %u->%u: a flow from a host to itself (rocesim's flows join two hosts)", file,
                         c->line, c->src, c->dst);
    }
    for (size_t i = 0; i < cm->n_trigs; i++) {
        const struct htsim_trig *t = &cm->trigs[i];
        if (t->type != HTSIM_TRIG_BARRIER)
            continue;
        bool fired = false, target = false;
        for (size_t j = 0; j < cm->n_conns; j++) {
            fired |= cm->conns[j].send_done == t->id;
            target |= cm->conns[j].trigger == t->id;
        }
        if (!t->count && fired)
            return ifail(x, "%s:%d: barrier %u: count 0 (the reference asserts when it is activated)", file, t->line,
                         t->id);
        if (!target && fired)
            return ifail(x, "%s:%d: barrier %u starts no flow (the reference asserts when it is activated)", file,
                         t->line, t->id);
    }
    return 0;
}

/*
 * Leaves out of cm what never starts in the reference: connections waiting on a trigger that never fires (a barrier
 * short of its count, a trigger only a recv_done_trigger would activate, flows waiting on each other), and the
 * triggers no starting connection waits on (with the send_done_triggers that name them).  The reference runs them
 * as flows that never begin; rocesim refuses a trigger that cannot fire, so the scenario leaves them out, with a
 * note.  Returns 0, or 2 when no connection starts at all.
 */
static int leave_out_unstarted(const char *file, struct htsim_cm *cm, struct ictx *x)
{
    static const int kind[] = {[HTSIM_TRIG_ONESHOT] = TRIGGER_ONESHOT, [HTSIM_TRIG_MULTISHOT] = TRIGGER_MULTISHOT,
                               [HTSIM_TRIG_BARRIER] = TRIGGER_BARRIER};
    size_t nf = cm->n_conns, nt = cm->n_trigs;
    if (!nt)
        return 0;
    struct trigger_decl *t = mem_xcalloc(nt, sizeof *t, IMP_OOM);
    int (*ref)[3] = mem_xcalloc(nf, sizeof *ref, IMP_OOM);
    bool *starts = mem_xcalloc(nf, sizeof *starts, IMP_OOM);
    uint32_t *got = mem_xcalloc(nt, sizeof *got, IMP_OOM), *released = mem_xcalloc(nt, sizeof *released, IMP_OOM);
    for (size_t k = 0; k < nt; k++)
        t[k] = (struct trigger_decl){.type = kind[cm->trigs[k].type], .count = (int)cm->trigs[k].count};
    for (size_t i = 0; i < nf; i++) {
        const struct htsim_conn *c = &cm->conns[i];
        ref[i][0] = ref[i][1] = ref[i][2] = -1; /* recv_done_trigger is not imported (traffic) */
        for (size_t k = 0; k < nt; k++) {
            if (!c->has_start && c->trigger == cm->trigs[k].id)
                ref[i][0] = (int)k;
            if (c->send_done && c->send_done == cm->trigs[k].id)
                ref[i][1] = (int)k;
        }
    }
    trigger_reach((const int(*)[3])ref, (int)nf, t, (int)nt, starts, got, released);
    size_t kept = 0, kept_t = 0;
    for (size_t i = 0; i < nf; i++)
        if (starts[i])
            cm->conns[kept++] = cm->conns[i];
    for (size_t k = 0; k < nt; k++) {
        if (released[k]) {
            cm->trigs[kept_t++] = cm->trigs[k];
            continue;
        }
        for (size_t i = 0; i < kept; i++)
            if (cm->conns[i].send_done == cm->trigs[k].id)
                cm->conns[i].send_done = 0;
    }
    int rc = 0;
    if (!kept)
        rc = ifail(x, "%s: no connection starts (each waits on a trigger that never fires)", file);
    if (!rc && kept < nf)
        note(x, "%zu connection(s) left out: they wait on triggers that never fire (a barrier short of its count, a "
             "recv_done_trigger, flows waiting on each other), so they never start in the reference either",
             nf - kept);
    if (!rc && kept_t < nt)
        note(x, "%zu trigger(s) left out: no connection that starts waits on them", nt - kept_t);
    cm->n_conns = kept;
    cm->n_trigs = kept_t;
    free(t);
    free(ref);
    free(starts);
    free(got);
    free(released);
    return rc;
}

/* The reference's receiver oversubscription control (main_uec.cpp): on when -oversubscribed_cc is in force, or on a
 * fabric oversubscribed at the ToRs (times the aggregation tier's with three tiers) when its sender CC flag is off
 * and -force_disable_oversubscribed_cc was not given, its least scale then 0.9 / that ratio (at least 0.01); only
 * with RCCC has it a pacer to scale.  Its least scale in *min_rate, 0 when off. */
static void oversub_of(const struct opts *o, const struct htsim_topo *t, double *min_rate)
{
    uint32_t ratio = t->tier[0].oversub * (t->tiers > 2 ? t->tier[1].oversub : 1);
    bool fabric = ratio > 1 && !o->sender_flag && !o->oversub_off;
    *min_rate = 0;
    if (o->receiver_cc && (o->oversub_on || fabric))
        *min_rate = fabric && 0.9 / ratio > 0.01 ? 0.9 / ratio : 0.01;
}

static cJSON *scenario(const struct opts *o, const struct htsim_topo *t, const struct htsim_cm *cm,
                       const struct consts *c, struct ictx *x, int64_t buffer)
{
    char b[64];
    int64_t max_ports;
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", text_name_of_file(o->tm, "uet-htsim", b, sizeof b));
    cJSON_AddStringToObject(s, "description", o->cmdline.p);
    cJSON_AddNumberToObject(s, "seed", (double)o->seed);
    snprintf(b, sizeof b, "%lldus", (long long)o->end_us);
    cJSON_AddStringToObject(s, "stop", b);
    cJSON_AddItemToObject(s, "topology", topology(t, &max_ports));
    (void)max_ports;
    /* the reference's links carry a packet in its bytes' time, no preamble or gap counted */
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(s, "ethernet"), "wire_overhead", 0);

    cJSON *sw = cJSON_AddObjectToObject(s, "switch");
    cJSON_AddStringToObject(sw, "buffer", fmt_bytes(buffer, b, sizeof b));
    cJSON_AddStringToObject(sw, "lossy_queue_limit", fmt_bytes(c->q_bytes, b, sizeof b));
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(sw, "pfc"), "enabled", false);
    cJSON *ecn = cJSON_AddObjectToObject(sw, "ecn");
    cJSON_AddStringToObject(ecn, "kmin", fmt_bytes(c->kmin, b, sizeof b));
    cJSON_AddStringToObject(ecn, "kmax", fmt_bytes(c->kmax, b, sizeof b));
    cJSON_AddNumberToObject(ecn, "pmax", 1);
    /* the reference decides a mark when the packet's sending ends (CompositeQueue::completeService) */
    cJSON_AddStringToObject(ecn, "mark_on", "sent");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(sw, "scheduler"), "type", "strict");
    cJSON *trim = cJSON_AddObjectToObject(sw, "trim");
    cJSON_AddBoolToObject(trim, "enabled", !o->no_trim);
    cJSON_AddStringToObject(trim, "size", fmt_bytes(o->trimsize, b, sizeof b));
    cJSON_AddNumberToObject(trim, "priority", CTRL_PRIORITY);

    cJSON *h = cJSON_AddObjectToObject(s, "host");
    cJSON_AddNumberToObject(h, "mtu", o->mtu - ACK_BYTES);
    cJSON_AddNumberToObject(h, "priority", DATA_PRIORITY);
    cJSON_AddNumberToObject(h, "ack_priority", CTRL_PRIORITY);
    cJSON_AddStringToObject(h, "loss_recovery", "uet");
    cJSON *u = cJSON_AddObjectToObject(h, "uet");
    cJSON_AddStringToObject(u, "sack_threshold", fmt_bytes(o->sack, b, sizeof b));
    if (o->receiver_cc) {
        /* its credit's BDP from the network's round trip, as the reference sizes it */
        cJSON_AddBoolToObject(u, "rccc", true);
        cJSON_AddStringToObject(u, "base_rtt", htsim_fmt_time(c->rtt_ps, b, sizeof b));
        double min_rate;
        oversub_of(o, t, &min_rate);
        if (min_rate > 0) {
            cJSON_AddBoolToObject(u, "oversub_cc", true);
            cJSON_AddNumberToObject(u, "oversub_min_rate", min_rate);
            cJSON_AddNumberToObject(u, "oversub_ai", o->os_ai);
            cJSON_AddNumberToObject(u, "oversub_md", o->os_md);
            cJSON_AddNumberToObject(u, "oversub_alpha", o->os_alpha);
        }
    }
    cJSON_AddStringToObject(h, "rto", htsim_fmt_time(c->rto_ps, b, sizeof b));
    cJSON_AddStringToObject(h, "cc", o->sender_cc ? "nscc" : "none");
    cJSON *n = o->sender_cc ? cJSON_AddObjectToObject(h, "nscc") : cJSON_CreateObject();
    cJSON_AddStringToObject(n, "network_rtt", htsim_fmt_time(c->rtt_ps, b, sizeof b));
    if (o->target_ps)
        cJSON_AddStringToObject(n, "target_delay", htsim_fmt_time(o->target_ps, b, sizeof b));
    cJSON_AddNumberToObject(n, "qa_gate", o->qa_gate >= 0 ? o->qa_gate : 3);
    if (o->cwnd)
        cJSON_AddStringToObject(n, "window", fmt_bytes((int64_t)o->cwnd * o->mtu, b, sizeof b));
    if (o->accurate_rtt)
        cJSON_AddStringToObject(n, "base_rtt", "pair");
    if (o->no_nack_rtt)
        cJSON_AddBoolToObject(n, "nack_base_rtt", false);
    if (!o->sender_cc)
        cJSON_Delete(n);
    cJSON_AddStringToObject(h, "entropy", o->lb);
    cJSON_AddNumberToObject(h, "entropy_paths", o->paths);
    if (cm->n_trigs)
        cJSON_AddItemToObject(s, "triggers", triggers(cm));
    if (o->receiver_cc) {
        /* with receiver credit the reference marks no ECN on the ToRs' ports to the hosts (main_uec.cpp), which
         * the credit paces; a ToR's first ports are its hosts' in every topology the import writes */
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "topology"), "type");
        const char *tor = cJSON_IsString(ty) && !strcmp(ty->valuestring, "leaf-spine") ? "leaf" : "tor";
        cJSON *pr = cJSON_CreateObject(), *m = cJSON_AddArrayToObject(pr, "match");
        for (uint32_t i = 0; i < t->hosts_per_tor; i++) {
            snprintf(b, sizeof b, "%s*:%u", tor, i);
            cJSON_AddItemToArray(m, cJSON_CreateString(b));
        }
        cJSON_AddBoolToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(pr, "switch"), "ecn"), "enabled", false);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "profiles"), pr);
    }
    if (o->failed)
        add_failed(s, sw, ecn, t, c, o->failed);
    cJSON_AddItemToObject(s, "traffic", traffic(cm, x));
    return s;
}

/* See htsim.h; the files' texts are given (cm_text modified), their names taken from -tm and -topo. */
int htsim_import_texts(int argc, char **argv, char *cm_text, char *topo_text, cJSON **out, struct sbuf *notes,
                       char *err, size_t errlen)
{
    struct ictx x = {.err = err, .errlen = errlen, .notes = notes};
    struct opts o;
    struct htsim_cm cm = {0};
    struct htsim_topo t;
    *out = NULL;
    int rc = parse_opts(argc, argv, &o, &x);
    if (!rc && o.topo && !topo_text)
        rc = ifail(&x, "-topo %s: no text", o.topo);
    if (!rc)
        rc = htsim_cm_parse(o.tm, cm_text, &cm, err, errlen);
    uint32_t nodes = 0;
    if (!rc) {
        nodes = cm.nodes ? cm.nodes : o.nodes;
        if (o.nodes && cm.nodes && o.nodes != cm.nodes)
            rc = ifail(&x, "-nodes %u: the connection matrix %s has Nodes %u", o.nodes, o.tm, cm.nodes);
        else if (!nodes)
            rc = ifail(&x, "%s: no Nodes line and no -nodes", o.tm);
    }
    if (!rc && o.topo) {
        if ((rc = htsim_topo_parse(o.topo, topo_text, &t, err, errlen)) == 0 &&
            (rc = htsim_topo_check(o.topo, &t, err, errlen)) == 0 && t.nodes != nodes)
            rc = ifail(&x, "%s: Nodes %u, while the connection matrix %s has %u", o.topo, t.nodes, o.tm, nodes);
        if (!rc && o.linkspeed_bps < t.tier[0].speed_bps) {
            char r1[32], r2[32];
            rc = ifail(&x, "-linkspeed %s is below the host links of %s (%s): the reference's NIC then sends slower "
                       "than its link, which rocesim does not model; give -linkspeed the tier 0 speed",
                       htsim_fmt_rate(o.linkspeed_bps, r1, sizeof r1), o.topo,
                       htsim_fmt_rate(t.tier[0].speed_bps, r2, sizeof r2));
        } else if (!rc && o.linkspeed_bps > t.tier[0].speed_bps) {
            note(&x, "-linkspeed is above the host links of %s: hosts send at their link's rate, and NSCC's "
                 "constants come from -linkspeed, as in the reference", o.topo);
        }
        if (!rc && o.hop_ps != 1000000)
            note(&x, "-hop_latency: ignored with -topo (the file's Downlink_Latency_ns give the links' delays, as in "
                 "the reference)");
    } else if (!rc) {
        char e[200];
        if (htsim_topo_auto(&t, o.tiers, nodes, o.linkspeed_bps, o.hop_ps, e, sizeof e))
            rc = ifail(&x, "%s: Nodes %u: %s; give -topo FILE or -tiers", o.tm, nodes, e);
    }
    if (!rc)
        rc = check_cm(o.tm, &cm, nodes, &x);
    if (!rc)
        rc = leave_out_unstarted(o.tm, &cm, &x);
    struct consts c;
    if (!rc) {
        derive(&o, &t, &c);
        if (o.trimsize < 64 || (int)o.trimsize > o.mtu)
            rc = ifail(&x, "-trimsize %u: expected 64 to the MTU %d (the reference asserts)", o.trimsize, o.mtu);
        else if (!c.q_bytes)
            rc = ifail(&x, "-q 0: a queue of no bytes (the reference stops on it)");
        else if (c.kmin > c.kmax || c.kmax > c.q_bytes)
            rc = ifail(&x, "ECN thresholds %lld and %lld bytes: expected low <= high <= the queue's %lld bytes (the "
                       "reference asserts)", (long long)c.kmin, (long long)c.kmax, (long long)c.q_bytes);
        else if (o.failed && failed_rate_taken(&t))
            rc = ifail(&x, "-failed %u: the failed links' rate (a quarter of theirs) is also a tier's rate of the fabric, "
                       "where rocesim's queue and ECN sizes by rate cannot tell the two kinds of port apart", o.failed);
        else if (!o.paths)
            rc = ifail(&x, "-paths 0: expected at least one entropy value");
        else if (o.sack < 1)
            rc = ifail(&x, "-sack_threshold 0: expected at least one byte");
        /* the reference's mixed takes any number, rocesim's masks its bitmap's choice (entropy_mixed.c) */
        if (!rc && strcmp(o.lb, "reps") && (o.paths & (o.paths - 1)))
            rc = ifail(&x, "-paths %u: rocesim's %s masks entropy values, so expected a power of 2", o.paths, o.lb);
    }
    if (!rc) {
        int64_t max_ports = 0;
        cJSON_Delete(topology(&t, &max_ports));
        /* each port's data queue Q and its header queue 2 Q: the reference's queues share no buffer */
        int64_t buffer = max_ports * 3 * c.q_bytes;
        if (buffer >= (int64_t)1 << 31)
            rc = ifail(&x, "%lld ports x 3 x the queue's %lld bytes: more than rocesim's 2 GiB switch buffer",
                       (long long)max_ports, (long long)c.q_bytes);
        else
            *out = scenario(&o, &t, &cm, &c, &x, buffer);
    }
    htsim_cm_free(&cm);
    free(o.cmdline.p);
    return rc;
}

int htsim_import_args(int argc, char **argv, cJSON **out, struct sbuf *notes, char *err, size_t errlen)
{
    const char *tm = NULL, *topo = NULL;
    *out = NULL;
    for (int i = 0; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-tm"))
            tm = argv[i + 1];
        else if (!strcmp(argv[i], "-topo"))
            topo = argv[i + 1];
    }
    char *cm_text = NULL, *topo_text = NULL;
    int rc = 0;
    if (tm)
        rc = read_text_file(tm, &cm_text, err, errlen);
    if (!rc && topo)
        rc = read_text_file(topo, &topo_text, err, errlen);
    if (!rc)
        rc = htsim_import_texts(argc, argv, cm_text ? cm_text : (char[]){""}, topo_text, out, notes, err, errlen);
    free(cm_text);
    free(topo_text);
    return rc;
}

static const char import_usage[] =
    "usage: rocesim import uet-htsim -tm MATRIX.cm [-topo FILE.topo] [OPTION]... [--out SCENARIO.json]\n"
    "  prints the scenario that reproduces an htsim_uec run (the UEC reference simulator), given its command\n"
    "  line: the same options, in its units (-linkspeed Mbit/s, -q and -ecn packets, -end us, -mtu the whole\n"
    "  packet).  --out: to a file instead of stdout.  See docs/uet.md.\n";

int htsim_import_main(int argc, char **argv)
{
    const char *outp = NULL;
    int n = 0;
    char **args = mem_xcalloc((size_t)argc + 1, sizeof *args, IMP_OOM);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(import_usage, stdout);
            free(args);
            return 0;
        }
        if (!strcmp(argv[i], "--out")) {
            if (i + 1 == argc) {
                free(args);
                return usage_error("import", import_usage, "%s needs a value", "--out");
            }
            outp = argv[++i];
        } else {
            args[n++] = argv[i];
        }
    }
    cJSON *o;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX];
    int rc = htsim_import_args(n, args, &o, &notes, err, sizeof err);
    free(args);
    return import_finish(rc, err, o, notes.p, outp);
}
