/*
 * htsim_topo — the UEC reference simulator's fat tree (ultraethernet/uet-htsim,
 * htsim/sim/datacenter/fat_tree_topology.cpp): the .topo file (read_cfg), its consistency checks
 * (set_custom_params, check_consistency) and the automatic K-ary tree (set_params).
 *
 * A .topo file has a header (Nodes, Tiers 2|3, Podsize; keys case-insensitive, # starts a comment) and a section per
 * tier from `Tier 0` (ToR) to `Tier 2` (core) with Downlink_speed_Gbps, Radix_Down, Radix_Up (not on tier 2),
 * Downlink_Latency_ns, Switch_Latency_ns, Oversubscribed, Bundle and Queue_Up / Queue_Down, each at most once.
 * The queue sizes are parsed and then replaced by the command line's (main_uec.cpp sets every queue to -q or the
 * automatic size), so they are checked and dropped.  The wiring the checks imply: ToR t holds hosts
 * t x Radix_Down0 ..; ToR t of pod p links to the pod's aggregation switches (every aggregation switch with two
 * tiers), Bundle1 links each; aggregation switch a at position a mod A of its pod links to cores
 * (a mod A) + A l, Bundle2 links each.
 */
#include "tools/ops/htsim.h"
#include "tools/common/text.h"
#include "sim/scenario.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int htsim_topo_parse(const char *file, char *text, struct htsim_topo *t, char *err, size_t errlen)
{
    *t = (struct htsim_topo){.from_file = true};
    for (int i = 0; i < 3; i++)
        t->tier[i].bundle = t->tier[i].oversub = 1;
    bool seen[3][9] = {{false}}, header = true;
    int cur = -1, line = 0;
    static const char *const keys[] = {"downlink_speed_gbps", "radix_up", "radix_down", "queue_up", "queue_down",
                                       "oversubscribed", "bundle", "switch_latency_ns", "downlink_latency_ns"};
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        size_t len = strlen(p);
        if (len && p[len - 1] == '\r')
            p[len - 1] = '\0';
        line++;
        char *s = p;
        p = nl ? nl + 1 : NULL;
        if (!*s || s[0] == '#')
            continue;
        char *sp = strchr(s, ' '), *val = sp ? sp + 1 : NULL;
        if (sp)
            *sp = '\0';
        if (val && strchr(val, ' ')) /* a third token: the reference ignores it; say so rather than guess */
            *strchr(val, ' ') = '\0';
        for (char *q = s; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        uint64_t v = 0;
        bool is_tier = !strcmp(s, "tier");
        if (header && !is_tier) {
            uint32_t *dst = !strcmp(s, "nodes") ? &t->nodes : !strcmp(s, "tiers") ? &t->tiers
                            : !strcmp(s, "podsize") ? &t->podsize : NULL;
            if (!dst)
                continue; /* the reference skips other header lines */
            if (!text_uint(val, 1000000, &v))
                return text_fail_at(err, errlen, file, line, "%s: expected a whole number, got \"%.40s\"", s,
                                 val ? val : "");
            *dst = (uint32_t)v;
            continue;
        }
        if (header) {
            if (!t->nodes)
                return text_fail_at(err, errlen, file, line, "missing number of nodes (Nodes) in the header");
            if (!t->tiers)
                return text_fail_at(err, errlen, file, line, "missing number of tiers (Tiers) in the header");
            if (t->tiers < 2 || t->tiers > 3)
                return text_fail_at(err, errlen, file, line, "Tiers: expected 2 or 3, got %u", t->tiers);
            if (!t->podsize)
                return text_fail_at(err, errlen, file, line, "missing pod size (Podsize) in the header");
            header = false;
        }
        if (is_tier) {
            if (!text_uint(val, 2, &v))
                return text_fail_at(err, errlen, file, line, "Tier: expected 0, 1 or 2, got \"%.40s\"", val ? val : "");
            cur = (int)v;
            t->tier[cur].line = line;
            continue;
        }
        int k = 0;
        while (k < 9 && strcmp(s, keys[k]))
            k++;
        if (k == 9)
            return text_fail_at(err, errlen, file, line, "unknown attribute \"%.40s\" (expected Tier, "
                             "Downlink_speed_Gbps, "
                             "Radix_Up, Radix_Down, Queue_Up, Queue_Down, Oversubscribed, Bundle, Switch_Latency_ns or "
                             "Downlink_Latency_ns)", s);
        if (seen[cur][k])
            return text_fail_at(err, errlen, file, line, "%s given twice for tier %d", s, cur);
        seen[cur][k] = true;
        if ((k == 1 || k == 3) && cur == 2)
            return text_fail_at(err, errlen, file, line, "%s: tier 2 has no uplinks", s);
        if (!text_uint(val, INT_MAX, &v))
            return text_fail_at(err, errlen, file, line, "%s: expected a whole number, got \"%.40s\"", s, val ? val : "");
        struct htsim_tier *ti = &t->tier[cur];
        switch (k) {
        case 0: ti->speed_bps = (int64_t)v * 1000000000; break;
        case 1: ti->radix_up = (uint32_t)v; break;
        case 2: ti->radix_down = (uint32_t)v; break;
        case 5: ti->oversub = (uint32_t)v; break;
        case 6: ti->bundle = (uint32_t)v; break;
        case 7: ti->sw_lat_ps = (int64_t)v * 1000; break;
        case 8: ti->lat_ps = (int64_t)v * 1000; break;
        default: break; /* Queue_Up, Queue_Down: replaced by -q or the automatic size */
        }
        if ((k == 5 || k == 6) && v == 0)
            return text_fail_at(err, errlen, file, line, "%s: expected at least 1, got 0", s);
        if (k == 7 && v)
            return text_fail_at(err, errlen, file, line, "Switch_Latency_ns %llu: not modelled (rocesim's switches "
                             "forward without a fixed latency; give 0)", (unsigned long long)v);
    }
    if (header)
        return text_fail_at(err, errlen, file, line, "no Tier section");
    for (uint32_t i = 0; i < t->tiers; i++)
        if (!t->tier[i].line)
            return text_fail_at(err, errlen, file, 0, "no configuration found for tier %u", i);
    return 0;
}

int htsim_topo_check(const char *file, struct htsim_topo *t, char *err, size_t errlen)
{
    struct htsim_tier *T = t->tier;
    uint32_t tiers = t->tiers;
    for (uint32_t i = 0; i < tiers; i++) {
        int l = T[i].line;
        if (!T[i].speed_bps)
            return text_fail_at(err, errlen, file, l, "tier %u: missing Downlink_speed_Gbps", i);
        if (!T[i].lat_ps)
            return text_fail_at(err, errlen, file, l, "tier %u: missing Downlink_Latency_ns (the reference needs it > 0)",
                             i);
        if (!T[i].radix_down)
            return text_fail_at(err, errlen, file, l, "tier %u: missing Radix_Down", i);
        if (i + 1 < tiers && !T[i].radix_up)
            return text_fail_at(err, errlen, file, l, "tier %u: missing Radix_Up", i);
        if (T[i].radix_down % T[i].bundle)
            return text_fail_at(err, errlen, file, l, "tier %u: Radix_Down %u is not a multiple of Bundle %u", i,
                             T[i].radix_down, T[i].bundle);
        if (i + 1 < tiers && T[i].radix_up % T[i + 1].bundle)
            return text_fail_at(err, errlen, file, l, "tier %u: Radix_Up %u is not a multiple of tier %u's Bundle %u", i,
                             T[i].radix_up, i + 1, T[i + 1].bundle);
    }
    int l0 = T[0].line;
    if (t->nodes % t->podsize)
        return text_fail_at(err, errlen, file, l0, "Nodes %u is not a multiple of Podsize %u", t->nodes, t->podsize);
    if (T[0].bundle != 1)
        return text_fail_at(err, errlen, file, l0, "tier 0: Bundle must be 1 (the reference asserts)");
    if (t->podsize % T[0].radix_down)
        return text_fail_at(err, errlen, file, l0, "Podsize %u is not a multiple of the ToR's Radix_Down %u", t->podsize,
                         T[0].radix_down);
    t->npod = t->nodes / t->podsize;
    t->tors_per_pod = t->podsize / T[0].radix_down;
    t->hosts_per_tor = T[0].radix_down;
    /* whole Gbit/s in the file: the products stay well inside 64 bits in Gbit/s */
    uint64_t s0 = (uint64_t)(T[0].speed_bps / 1000000000), s1 = (uint64_t)(T[1].speed_bps / 1000000000);
    uint64_t upl = (uint64_t)t->nodes * s0, div = s1 * T[0].oversub;
    if (upl % div)
        return text_fail_at(err, errlen, file, l0, "%u hosts at %llu Gbps do not make whole ToR uplinks at %llu Gbps with "
                         "Oversubscribed %u (the reference asserts)", t->nodes, (unsigned long long)s0,
                         (unsigned long long)s1, T[0].oversub);
    uint64_t tor_uplinks = upl / div;
    if (T[0].radix_down / T[0].radix_up != T[0].oversub)
        return text_fail_at(err, errlen, file, l0, "tier 0: Radix_Down %u / Radix_Up %u is not Oversubscribed %u",
                         T[0].radix_down, T[0].radix_up, T[0].oversub);
    if (tor_uplinks % ((uint64_t)t->npod * T[1].radix_down))
        return text_fail_at(err, errlen, file, T[1].line, "%llu ToR uplinks do not fill whole aggregation switches of "
                         "Radix_Down %u in %u pods (the reference asserts)", (unsigned long long)tor_uplinks,
                         T[1].radix_down, t->npod);
    t->aggs_per_pod = (uint32_t)(tor_uplinks / ((uint64_t)t->npod * T[1].radix_down));
    if ((uint64_t)t->aggs_per_pod * T[1].bundle != T[0].radix_up)
        return text_fail_at(err, errlen, file, T[1].line, "ToR Radix_Up %u does not match the %u aggregation switches per "
                         "pod x Bundle %u that %llu ToR uplinks need", T[0].radix_up, t->aggs_per_pod, T[1].bundle,
                         (unsigned long long)tor_uplinks);
    t->ncore = 0;
    if (tiers == 3) {
        uint64_t s2 = (uint64_t)(T[2].speed_bps / 1000000000), a = tor_uplinks * s1, d = s2 * T[1].oversub;
        if (a % d)
            return text_fail_at(err, errlen, file, T[1].line, "the aggregation uplinks are not whole at tier 2's speed "
                             "with Oversubscribed %u (the reference asserts)", T[1].oversub);
        uint64_t agg_uplinks = a / d;
        if (agg_uplinks % T[2].radix_down)
            return text_fail_at(err, errlen, file, T[2].line, "%llu aggregation uplinks do not fill whole cores of "
                             "Radix_Down %u (the reference asserts)", (unsigned long long)agg_uplinks,
                             T[2].radix_down);
        uint64_t cores = agg_uplinks / T[2].radix_down;
        if (cores % t->aggs_per_pod)
            return text_fail_at(err, errlen, file, T[2].line, "%llu cores are not a multiple of the %u aggregation "
                             "switches per pod", (unsigned long long)cores, t->aggs_per_pod);
        if (cores * T[2].bundle / t->aggs_per_pod != T[1].radix_up)
            return text_fail_at(err, errlen, file, T[1].line, "tier 1: Radix_Up %u does not match %llu cores x Bundle %u "
                             "/ %u aggregation switches per pod", T[1].radix_up, (unsigned long long)cores,
                             T[2].bundle, t->aggs_per_pod);
        t->ncore = (uint32_t)cores;
    }
    t->ntor = t->tors_per_pod * t->npod;
    t->nagg = t->aggs_per_pod * t->npod;
    t->diameter_latency_ps = 2 * (T[0].lat_ps + T[1].lat_ps) + 2 * T[0].sw_lat_ps + T[1].sw_lat_ps;
    if (tiers == 3)
        t->diameter_latency_ps += 2 * T[2].lat_ps + T[1].sw_lat_ps + T[2].sw_lat_ps;
    return 0;
}

int htsim_topo_auto(struct htsim_topo *t, uint32_t tiers, uint32_t nodes, int64_t speed_bps, int64_t hop_ps,
                    char *err, size_t errlen)
{
    *t = (struct htsim_topo){.nodes = nodes, .tiers = tiers};
    uint64_t k = 0, n = 0;
    while (n < nodes) {
        k++;
        n = tiers == 3 ? k * k * k / 4 : k * k / 2;
    }
    if (n != nodes) {
        snprintf(err, errlen, "no %u-tier fat tree has exactly %u hosts (%s)", tiers, nodes,
                 tiers == 3 ? "K^3/4 for an even K: 16, 54, 128, 250, 432, 686, 1024, ..."
                            : "K^2/2 for an even K: 2, 8, 18, 32, 50, 72, 98, 128, ...");
        return SCN_EUSAGE;
    }
    if (k % 2) {
        /* K^3/4 or K^2/2 rounded down: the reference's K/2 hosts per ToR then leave hosts unconnected */
        snprintf(err, errlen, "the %u-tier fat tree for %u hosts has an odd K = %llu, whose switches the reference "
                 "cannot wire", tiers, nodes, (unsigned long long)k);
        return SCN_EUSAGE;
    }
    uint32_t K = (uint32_t)k;
    for (int i = 0; i < 3; i++)
        t->tier[i] = (struct htsim_tier){.speed_bps = speed_bps, .lat_ps = hop_ps, .bundle = 1, .oversub = 1};
    t->hosts_per_tor = K / 2;
    t->tier[0].radix_down = t->tier[0].radix_up = t->tier[1].radix_down = t->tier[1].radix_up = K / 2;
    t->tier[2].radix_down = K;
    if (tiers == 3) {
        t->npod = K;
        t->tors_per_pod = t->aggs_per_pod = K / 2;
        t->ntor = t->nagg = K * K / 2;
        t->ncore = K * K / 4;
    } else {
        t->npod = 1;
        t->ntor = K;
        t->nagg = K / 2;
        t->tors_per_pod = K;
        t->aggs_per_pod = K / 2;
    }
    t->podsize = nodes / t->npod;
    t->diameter_latency_ps = hop_ps * 2 * tiers;
    return 0;
}

void htsim_topo_write(const struct htsim_topo *t, struct sbuf *out)
{
    sb_printf(out, "Nodes %u\nTiers %u\nPodsize %u\n", t->nodes, t->tiers, t->podsize);
    for (uint32_t i = 0; i < t->tiers; i++) {
        const struct htsim_tier *ti = &t->tier[i];
        sb_printf(out, "\nTier %u\nDownlink_speed_Gbps %lld\nRadix_Down %u\n", i,
                  (long long)(ti->speed_bps / 1000000000), ti->radix_down);
        if (i + 1 < t->tiers)
            sb_printf(out, "Radix_Up %u\n", ti->radix_up);
        sb_printf(out, "Downlink_Latency_ns %lld\nSwitch_Latency_ns 0\n", (long long)(ti->lat_ps / 1000));
        if (ti->oversub != 1)
            sb_printf(out, "Oversubscribed %u\n", ti->oversub);
        if (ti->bundle != 1)
            sb_printf(out, "Bundle %u\n", ti->bundle);
    }
}
