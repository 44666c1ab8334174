/* nicconfig — see nicconfig.h. */
#include "tools/ops/nicconfig.h"
#include "tools/ops/cfgcmd.h"
#include "models/cc.h"
#include "models/dcqcn.h"
#include "models/ecn.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "models/nic.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/run/run.h"
#include "tools/explore/sweep.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* Appends one setting; returns the new count. */
static int add(struct nic_setting *out, int n, const char *dir, const char *name, long long value)
{
    memset(&out[n], 0, sizeof out[n]);
    out[n].dir = dir;
    out[n].name = name;
    out[n].value = value;
    return n + 1;
}

/*
 * A time in whole microseconds, as every ConnectX timer is.  Rounds to the
 * nearest microsecond (never to 0 when the time is not 0, since 0 would mean
 * "no timer") and says so in s->note.
 */
static long long to_us(struct nic_setting *s, const char *field, int64_t ps)
{
    char a[32];
    long long us = (ps + PS_PER_US / 2) / PS_PER_US;
    if (us == 0 && ps > 0)
        us = 1;
    if (us * PS_PER_US != ps)
        sfmt(s->note, sizeof s->note, "rounded: %s %s is not a whole number of microseconds; %lld us is the nearest "
             "the firmware takes", field, units_fmt_time(ps, a, sizeof a), us);
    return us;
}

/* A rate in whole Mbps, rounded the same way (never to 0 for a rate above 0). */
static long long to_mbps(struct nic_setting *s, const char *field, int64_t bps)
{
    char a[32];
    long long m = (bps + 500000) / 1000000;
    if (m == 0 && bps > 0)
        m = 1;
    if (m * 1000000 != bps)
        sfmt(s->note, sizeof s->note, "rounded: %s %s is not a whole number of Mbps; %lld Mbps is the nearest",
             field, units_fmt_rate(bps, a, sizeof a), m);
    return m;
}

/* See nicconfig.h. */
int nicconfig_settings(const struct scenario *scn, int64_t line_rate_bps, struct nic_setting *out)
{
    const struct dcqcn_params *d = dcqcn_params_of(&scn->host);
    char a[32], num[40];
    int n = 0;
    struct nic_setting *s;

    s = &out[n];
    n = add(out, n, "roce_rp", "rpg_time_reset", 0);
    s->value = to_us(s, "rate_increase_timer", d->rate_increase_timer_ps);
    sfmt(s->source, sizeof s->source, "rate_increase_timer = %s", units_fmt_time(d->rate_increase_timer_ps, a, sizeof a));

    s = &out[n];
    if (d->byte_counter_off) {
        n = add(out, n, "roce_rp", "rpg_byte_reset", 0);
        sfmt(s->source, sizeof s->source, "byte_counter = off");
        sfmt(s->note, sizeof s->note, "converted: byte_counter off as rpg_byte_reset 0; NVIDIA's parameter table "
             "does not say what 0 does, so check that your firmware takes it as \"no byte counter\"");
    } else {
        n = add(out, n, "roce_rp", "rpg_byte_reset", d->byte_counter);
        sfmt(s->source, sizeof s->source, "byte_counter = %s (%lld bytes)",
             units_fmt_size(d->byte_counter, a, sizeof a), (long long)d->byte_counter);
    }

    s = &out[n];
    n = add(out, n, "roce_rp", "rpg_threshold", d->fast_recovery_steps);
    sfmt(s->source, sizeof s->source, "fast_recovery_steps = %d", d->fast_recovery_steps);

    static const struct {
        const char *name, *field;
        size_t off;
    } rates[] = {{"rpg_ai_rate", "ai_rate", offsetof(struct dcqcn_params, ai_rate_bps)},
                 {"rpg_hai_rate", "hai_rate", offsetof(struct dcqcn_params, hai_rate_bps)},
                 {"rpg_min_rate", "min_rate", offsetof(struct dcqcn_params, min_rate_bps)}};
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        int64_t bps = *(const int64_t *)((const char *)d + rates[i].off);
        s = &out[n];
        n = add(out, n, "roce_rp", rates[i].name, 0);
        s->value = to_mbps(s, rates[i].field, bps);
        sfmt(s->source, sizeof s->source, "%s = %s", rates[i].field, units_fmt_rate(bps, a, sizeof a));
    }

    s = &out[n];
    n = add(out, n, "roce_rp", "rpg_min_dec_fac", llround(d->min_dec_factor * 100));
    sfmt(s->source, sizeof s->source, "min_dec_factor = %s", fmt_double(d->min_dec_factor, num, sizeof num));
    if (fabs(d->min_dec_factor * 100 - (double)s->value) > 1e-9)
        sfmt(s->note, sizeof s->note, "rounded: min_dec_factor %s is not a whole percent; %lld %% is the nearest",
             num, s->value);

    /* The simulator scales the current rate at the first CNP; the firmware sets an absolute rate.  A flow
     * meets its first CNP at line rate (DCQCN starts there), so the two agree at multiplier x line rate. */
    s = &out[n];
    n = add(out, n, "roce_rp", "rate_to_set_on_first_cnp", 0);
    sfmt(s->source, sizeof s->source, "rate_on_first_cnp = %s (0 = keep the current rate)",
         fmt_double(d->rate_on_first_cnp, num, sizeof num));
    if (d->rate_on_first_cnp != 1.0) {
        double bps = d->rate_on_first_cnp * (double)line_rate_bps;
        s->value = to_mbps(s, "rate_on_first_cnp x line rate", (int64_t)llround(bps));
        sfmt(s->note, sizeof s->note, "converted: rate_on_first_cnp %s x line rate %s = %lld Mbps (the firmware "
             "sets an absolute rate; flows meet their first CNP at line rate)", num,
             units_fmt_rate(line_rate_bps, a, sizeof a), s->value);
    }

    /* g = (1024 - dce_tcp_g) / 1024 */
    s = &out[n];
    double x = d->g * 1024;
    long long gv = llround(1024 - x);
    n = add(out, n, "roce_rp", "dce_tcp_g", gv);
    sfmt(s->source, sizeof s->source, "g = %s", fmt_double(d->g, num, sizeof num));
    if (gv > 1023) {
        s->value = 1023;
        sfmt(s->note, sizeof s->note, "clamped: g %s is below the smallest step 1/1024; dce_tcp_g 1023 gives "
             "g = 1/1024", num);
    } else if (fabs(x - round(x)) > 1e-9) {
        sfmt(s->note, sizeof s->note, "rounded: g %s is not a multiple of 1/1024; dce_tcp_g %lld gives g = "
             "%lld/1024 = %.9g", num, gv, 1024 - gv, (double)(1024 - gv) / 1024);
    }

    s = &out[n];
    n = add(out, n, "roce_rp", "dce_tcp_rtt", 0);
    s->value = to_us(s, "alpha_timer", d->alpha_timer_ps);
    sfmt(s->source, sizeof s->source, "alpha_timer = %s", units_fmt_time(d->alpha_timer_ps, a, sizeof a));

    s = &out[n];
    n = add(out, n, "roce_rp", "initial_alpha_value", llround(d->alpha_init * 1023));
    sfmt(s->source, sizeof s->source, "alpha_init = %s (alpha x 1023)", fmt_double(d->alpha_init, num, sizeof num));
    if (fabs(d->alpha_init * 1023 - (double)s->value) > 1e-9)
        sfmt(s->note, sizeof s->note, "rounded: alpha_init %s x 1023 is not a whole number; %lld is the nearest",
             num, s->value);

    s = &out[n];
    n = add(out, n, "roce_rp", "clamp_tgt_rate", d->clamp_target_rate ? 1 : 0);
    sfmt(s->source, sizeof s->source, "clamp_target_rate = %s", d->clamp_target_rate ? "true" : "false");

    s = &out[n];
    n = add(out, n, "roce_rp", "clamp_tgt_rate_after_time_inc", d->clamp_after_timer ? 1 : 0);
    sfmt(s->source, sizeof s->source, "clamp_target_rate_after_timer = %s", d->clamp_after_timer ? "true" : "false");

    /* The firmware's period is at least 1 us; the paper's "every CNP cuts" is nearest to it. */
    s = &out[n];
    n = add(out, n, "roce_rp", "rate_reduce_monitor_period", 1);
    sfmt(s->source, sizeof s->source, "rate_reduce_monitor_period = %s",
         units_fmt_time(d->rate_reduce_period_ps, a, sizeof a));
    if (d->rate_reduce_period_ps > 0)
        s->value = to_us(s, "rate_reduce_monitor_period", d->rate_reduce_period_ps);
    else
        sfmt(s->note, sizeof s->note, "clamped: rate_reduce_monitor_period 0 (every CNP cuts) is below the "
             "firmware's 1 us; 1 us is the nearest");

    s = &out[n];
    n = add(out, n, "roce_np", "min_time_between_cnps", 0);
    s->value = d->cnp_interval_ps == 0 ? 0 : to_us(s, "cnp_interval", d->cnp_interval_ps);
    sfmt(s->source, sizeof s->source, "cnp_interval = %s", units_fmt_time(d->cnp_interval_ps, a, sizeof a));

    s = &out[n];
    int cnp_priority = nic_params_of(&scn->host)->cnp_priority;
    n = add(out, n, "roce_np", "cnp_802p_prio", cnp_priority);
    sfmt(s->source, sizeof s->source, "host.cnp_priority = %d", cnp_priority);
    return n;
}

/* A byte count as "N bytes (X KB)"; returns buf. */
static const char *bytes_kb(int64_t b, char *buf, size_t len)
{
    char k[40];
    sfmt(buf, len, "%lld bytes (%s KB)", (long long)b, fmt_double((double)b / 1000, k, sizeof k));
    return buf;
}

/* Priorities that carry RoCE data: the default and every traffic entry's; returns a bit mask. */
static unsigned data_priorities(const struct scenario *scn)
{
    unsigned m = 1u << nic_params_of(&scn->host)->priority;
    for (int i = 0; i < scn->n_traffic; i++)
        m |= 1u << scn->traffic[i].priority;
    return m;
}

/* Prints the switch settings of one lossless priority p in plain words (comment lines). */
static void print_lossless(FILE *f, const struct run *r, int p)
{
    const struct pfc_settings *pfc = pfc_settings_of(&r->scn->sw);
    char a[80], b[80];
    fprintf(f, "#\n# Lossless priority %d:\n", p);
    fprintf(f, "#   PFC: enabled for priority %d on every port.\n", p);
    if (pfc->xoff_mode == PFC_XOFF_DYNAMIC) {
        double l2 = log2(pfc->dynamic_alpha);
        fprintf(f, "#   XOFF: dynamic threshold, alpha = %s: send PAUSE when the bytes an ingress port holds on "
                   "priority %d exceed %s x the free shared buffer", fmt_double(pfc->dynamic_alpha, a, sizeof a), p,
                fmt_double(pfc->dynamic_alpha, b, sizeof b));
        if (l2 == floor(l2))
            fprintf(f, " (SONiC/Broadcom dynamic_th = %.0f)", l2);
        fprintf(f, ".\n");
    } else {
        fprintf(f, "#   XOFF: static, %s per ingress port and priority.\n", bytes_kb(pfc->xoff_bytes, a, sizeof a));
    }
    fprintf(f, "#   XON: resume when the ingress bytes fall %s below XOFF (xon offset).\n",
            bytes_kb(pfc->xon_delta, a, sizeof a));

    /* Headroom per class of port (same rate, delay and headroom), as `rocesim check` reports it. */
    struct hdrm_report rep;
    run_headroom_classes(r, &rep);
    fprintf(f, "#   Headroom (%s), reserved per port for priority %d beyond XOFF:\n",
            pfc->headroom_auto ? "auto: link rate x round trip + response time + frames in flight, docs/scenario.md"
                                 : "as configured",
            p);
    for (int c = 0; c < rep.n; c++) {
        const struct hdrm_class *hc = &rep.cls[c];
        char rt[32], dl[32];
        fprintf(f, "#     %s links, %s delay (%u switch port%s): %s\n", units_fmt_rate(hc->rate_bps, rt, sizeof rt),
                units_fmt_time(hc->delay_ps, dl, sizeof dl), hc->ports, hc->ports == 1 ? "" : "s",
                bytes_kb(hc->headroom, a, sizeof a));
    }
    if (rep.max_reserved > 0)
        fprintf(f, "#     largest reservation on one switch, all lossless priorities: %s on %s\n",
                bytes_kb(rep.max_reserved, a, sizeof a), rep.max_switch);
    free(rep.cls);
    const struct ecn_settings *e = ecn_settings_of(&r->scn->sw);
    if (e->enabled)
        fprintf(f, "#   ECN (RED/WRED on the egress queue of priority %d): kmin %s, kmax %s, pmax %s %% (marking "
                   "probability at kmax, 100 %% above), switch.ecn.mark_on \"%s\".\n",
                p, bytes_kb(e->kmin, a, sizeof a), bytes_kb(e->kmax, b, sizeof b),
                fmt_double(e->pmax * 100, (char[40]){0}, 40), ecn_mark_on_name(e->mark_on));
    else
        fprintf(f, "#   ECN: off (no marking: DCQCN never sees congestion).\n");
}

/*
 * The transport settings a QP takes from the application (ibv_modify_qp), not from sysfs: comment lines.  The
 * local ACK timeout is 4.096 us x 2^timeout; perftest uses 14 (67 ms), NCCL 18 (1.07 s, NCCL_IB_TIMEOUT).
 */
static void print_transport(FILE *f, const struct scenario *scn)
{
    const struct transport_params *h = transport_params_of(&scn->host);
    char a[32];
    fprintf(f, "\n# Transport, per QP (no sysfs knob: the application sets them with ibv_modify_qp)\n");
    if (h->qp_timeout >= 0) {
        fprintf(f, "#   timeout = %d (4.096 us x 2^%d = %s)   # host.qp_timeout = %d\n", h->qp_timeout, h->qp_timeout,
                units_fmt_time(h->rto_ps, a, sizeof a), h->qp_timeout);
        fprintf(f, "#   retry_cnt = %d   # host.retry_count = %d\n", h->retry_count, h->retry_count);
    } else {
        int t = 1;
        while (t < 31 && (4096 * PS_PER_NS) << t < h->rto_ps)
            t++;
        fprintf(f, "#   timeout: host.rto = %s is no QP setting; the nearest at or above it is timeout = %d "
                   "(4.096 us x 2^%d); retries: unlimited in the simulation, retry_cnt 7 on a QP\n",
                units_fmt_time(h->rto_ps, a, sizeof a), t, t);
    }
    if (h->ack_priority >= 0)
        fprintf(f, "#   ACKs and NACKs on priority %d (host.ack_priority): no NIC knob; the NIC sends a QP's ACKs on "
                   "the QP's own priority\n", h->ack_priority);
    else
        fprintf(f, "#   ACKs and NACKs on the data priority (host.ack_priority \"data\"), as the NIC sends them\n");
}

/* See nicconfig.h. */
void nicconfig_print(FILE *f, const struct run *r, const char *iface, const char *header)
{
    const struct scenario *scn = r->scn;
    const struct scn_switch *w = &scn->sw;
    const struct pfc_settings *pfc = pfc_settings_of(w);
    const struct sched_settings *sched = sched_settings_of(w);
    const struct pfcwd_settings *wd = pfcwd_settings_of(w);
    int64_t line = 0;
    bool mixed = false;
    for (uint32_t i = 0; i < r->g.n_hosts; i++) {
        int64_t rt = r->net.hosts[i].rate_bps;
        mixed = mixed || (line && rt != line);
        if (rt > line)
            line = rt;
    }
    struct nic_setting set[NIC_SETTINGS_MAX];
    int n = nicconfig_settings(scn, line, set);
    char a[64];
    const char *ifs = iface ? iface : "$IF";

    fprintf(f, "#!/bin/sh\n");
    fprintf(f, "# rocesim nic-config: scenario %s (%s), DCQCN preset \"%s\"\n", scn->name, scn->file,
            dcqcn_params_of(&scn->host)->preset == DCQCN_CONNECTX ? "connectx" : "paper");
    if (header)
        fprintf(f, "# %s\n", header);
    fprintf(f, "# ConnectX (mlx5) DCQCN settings; run as root on every host.  Firmware units: microseconds, Mbps,\n"
               "# bytes, percent; g as dce_tcp_g = 1024 - g x 1024; alpha as alpha x 1023.\n");
    fprintf(f, "set -e\n");
    if (!iface)
        fprintf(f, "IF=\"${IF:?set IF to the RoCE network interface, e.g. IF=ens1f0 sh %s}\"\n", "nic.sh");
    unsigned prios = data_priorities(scn);
    bool on = cc_params_of(&scn->host)->cc == cc_find("dcqcn");
    fprintf(f, "\n# %s DCQCN on the priorities that carry RoCE data (reaction point: sender; notification point: "
               "receiver)\n", on ? "Enable" : "Disable (host.cc is \"none\")");
    for (int p = 0; p < SCN_NPRIO; p++)
        if (prios & (1u << p)) {
            fprintf(f, "echo %d > /sys/class/net/%s/ecn/roce_rp/enable/%d\n", on, ifs, p);
            fprintf(f, "echo %d > /sys/class/net/%s/ecn/roce_np/enable/%d\n", on, ifs, p);
        }
    if (mixed)
        fprintf(f, "# note: hosts have links of different rates; rate_to_set_on_first_cnp assumes %s\n",
                units_fmt_rate(line, a, sizeof a));
    const char *dir = "";
    for (int i = 0; i < n; i++) {
        if (strcmp(dir, set[i].dir)) {
            dir = set[i].dir;
            fprintf(f, "\n# %s\n", strcmp(dir, "roce_rp") == 0 ? "Reaction point (sender): rate control"
                                                              : "Notification point (receiver): CNP generation");
        }
        if (set[i].note[0])
            fprintf(f, "# %s\n", set[i].note);
        fprintf(f, "echo %lld > /sys/class/net/%s/ecn/%s/%s   # %s\n", set[i].value, ifs, set[i].dir, set[i].name,
                set[i].source);
    }

    print_transport(f, scn);

    fprintf(f, "\n# ---------------------------------------------------------------------------------------------\n");
    fprintf(f, "# Switch settings (every switch; enter them with the switch's own configuration tool)\n#\n");
    fprintf(f, "# Shared packet buffer: %s per switch.\n", bytes_kb(switch_params_of(w)->buffer, a, sizeof a));
    if (pfc->enabled && pfc->lossless_mask) {
        for (int p = 0; p < SCN_NPRIO; p++)
            if (pfc->lossless_mask & (1u << p))
                print_lossless(f, r, p);
    } else {
        fprintf(f, "#\n# PFC: off (every priority is lossy).\n");
        const struct ecn_settings *e = ecn_settings_of(w);
        if (e->enabled)
            fprintf(f, "# ECN (RED/WRED on every egress queue): kmin %lld bytes, kmax %lld bytes, pmax %s %%.\n",
                    (long long)e->kmin, (long long)e->kmax, fmt_double(e->pmax * 100, (char[40]){0}, 40));
    }
    fprintf(f, "#\n# Lossy priorities:");
    int lossy = 0;
    for (int p = 0; p < SCN_NPRIO; p++)
        if (!(pfc->enabled && (pfc->lossless_mask & (1u << p)))) {
            fprintf(f, " %d", p);
            lossy++;
        }
    if (lossy && switch_params_of(w)->lossy_queue_limit_map.n)
        fprintf(f, ": tail drop above switch.lossy_queue_limit at the egress's rate (a map by rate: `rocesim "
                   "check` shows each port's), or when the buffer is full.\n");
    else if (lossy)
        fprintf(f, ": tail drop above %s per egress queue, or when the buffer is full.\n",
                bytes_kb(switch_params_of(w)->lossy_queue_limit, a, sizeof a));
    else
        fprintf(f, " none.\n");
    fprintf(f, "# CNPs travel at priority %d (cnp_802p_prio above): give it a queue that is never starved.\n",
            nic_params_of(&scn->host)->cnp_priority);
    if (sched->type == sched_find("dwrr")) {
        fprintf(f, "# Scheduler: deficit weighted round robin, weights");
        for (int p = 0; p < SCN_NPRIO; p++)
            if (sched->weights[p])
                fprintf(f, " %d:%u", p, sched->weights[p]);
        fprintf(f, ".\n");
    } else {
        fprintf(f, "# Scheduler: strict priority (higher priority first).\n");
    }
    if (wd->enabled) {
        char d1[32], d2[32];
        fprintf(f, "# PFC watchdog: on, detection %s, restoration %s, action %s.\n",
                units_fmt_time(wd->detection_ps, d1, sizeof d1),
                units_fmt_time(wd->restoration_ps, d2, sizeof d2),
                wd->action == PFCWD_DROP ? "drop" : wd->action == PFCWD_FORWARD ? "forward" : "alert");
    } else {
        fprintf(f, "# PFC watchdog: off.\n");
    }
}

static const char nic_usage[] =
    "usage: rocesim nic-config [SCENARIO.json] [--set PATH=VALUE]... [--from best.json [--allow-incomplete]]\n"
    "                          [--iface IF]\n"
    "  prints the scenario's DCQCN/CNP settings as ConnectX sysfs writes and its ECN/PFC\n"
    "  thresholds as switch settings; --from applies a sweep's best parameters (and names\n"
    "  the scenario when SCENARIO is left out); --set overrides come after them.\n"
    "  --allow-incomplete  take the best.json of an interrupted sweep (refused without it)\n";

/* Prints a usage error; returns SCN_EUSAGE. */
/*
 * ConnectX's sysfs settings are DCQCN's (roce_rp, roce_np): a host whose host.cc is another algorithm has no
 * setting to print, and printing DCQCN's would configure something else than what was simulated.  Returns 0, or
 * SCN_EUSAGE after naming the host and its algorithm.
 */
static int nic_algorithm_known(const struct run *r, const char *file)
{
    for (uint32_t h = 0; h < r->g.n_hosts; h++) {
        int cc = r->net.hosts[h].cc;
        if (cc != cc_find("dcqcn") && cc != cc_find("none")) {
            fprintf(stderr, "rocesim nic-config: %s: host.cc: expected \"dcqcn\" or \"none\" (ConnectX's sysfs "
                            "settings are DCQCN's), got \"%s\" (host %s); this command has no NIC setting for it\n",
                    file, cc_scenario_name(cc), r->g.nodes[r->net.hosts[h].node].name);
            return SCN_EUSAGE;
        }
    }
    return 0;
}

/* See nicconfig.h. */
int nicconfig_main(int argc, char **argv)
{
    const char *iface = NULL;
    struct cfg_cmd *c = mem_xcalloc(1, sizeof *c, "writing NIC commands");
    c->who = "nic-config";
    c->usage = nic_usage;
    int rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int took = cfg_cmd_arg(c, argc, argv, &i);
        if (took) {
            rc = took < 0 ? SCN_EUSAGE : 0;
        } else if (strcmp(a, "--iface") == 0) {
            if (!next || !*next || strchr(next, '/') || strpbrk(next, " \t\"'$`\\;&|<>"))
                rc = cfg_cmd_bad(c, "--iface expects an interface name like ens1f0, got \"%s\"", next ? next : "");
            iface = next;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(nic_usage, stdout);
            free(c);
            return 0;
        } else {
            rc = cfg_cmd_bad(c, "unknown option \"%s\"", a);
        }
    }
    struct scenario scn;
    if (!rc && !(rc = cfg_cmd_load(c, &scn))) {
        struct run r;
        char err[SCN_ERR_MAX];
        rc = run_setup(&r, &scn, err, sizeof err);
        if (rc) {
            fprintf(stderr, "rocesim nic-config: %s\n", err);
        } else if ((rc = nic_algorithm_known(&r, c->scenario))) {
            run_free(&r);
        } else {
            struct sbuf h = {0};
            if (c->n_best)
                sb_printf(&h, "with the best point of %s:", c->from);
            for (int i = 0; i < c->n_best; i++)
                sb_printf(&h, " %s=%s", c->ov[i].path, c->ov[i].value);
            if (c->n_cli)
                sb_printf(&h, "%s--set", c->n_best ? "; " : "with ");
            for (int i = c->n_best; i < c->n; i++)
                sb_printf(&h, " %s=%s", c->ov[i].path, c->ov[i].value);
            nicconfig_print(stdout, &r, iface, h.p);
            free(h.p);
            run_free(&r);
        }
        scn_free(&scn);
    }
    cfg_cmd_free(c);
    free(c);
    return rc;
}
