/*
 * fat-tree — M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center Network Architecture",
 * SIGCOMM 2008.  k-port switches: k pods, each of k/2 edge (ToR) and k/2 aggregation switches fully meshed;
 * (k/2)^2 cores, core group j wired to aggregation switch j of every pod; k^3/4 hosts.
 *
 * Numbering: hosts, tor*, agg*, core*; tor{i} / agg{i} numbered pod-major, host h{n} under tor{n / (k/2)},
 * agg j of every pod linked to cores j*(k/2) .. j*(k/2)+k/2-1.  A ToR's ports are its hosts then the aggs of
 * its pod; an agg's, the ToRs of its pod then its cores; a core's, one agg per pod in pod order.
 * Generalized shape (k == 0): the same with pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores; agg j of
 * every pod takes the block of cores j*C/A .. (j+1)*C/A-1 when the cores divide evenly among the A aggs of a
 * pod, else core c goes to agg (c mod A) of every pod.
 * Oversubscription r > 1 is deliberately simple: the topology keeps its shape (same host links, same number of
 * ToR uplinks) and every ToR-to-agg link runs at fabric rate / r, rounded down to whole bit/s.  The
 * agg-to-core links keep the fabric rate.
 */
#include "topologies/fat_tree.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "topologies/topo.h"

/* The shape from "k" or from the five shape fields (never both: they could disagree). */
static int fat_tree_shape(struct setting_ctx *c, const cJSON *tj, const char *path, struct topo_fat_tree *t,
                          int64_t *n, const char **formula)
{
    static const char *const shape[] = {"pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor", "cores", NULL};
    char p[SETTING_PATH_MAX];
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(tj, "k");
    for (int i = 0; shape[i]; i++)
        if (k && cJSON_GetObjectItemCaseSensitive(tj, shape[i]))
            return setting_bad(c, setting_join(p, path, shape[i]),
                               "expected either \"k\" or the shape fields (pods, tors_per_pod, aggs_per_pod, "
                               "hosts_per_tor, cores), got both \"k\" and \"%s\"",
                               shape[i]);
    if (k) {
        long long kv;
        if (setting_val_int(c, k, setting_join(p, path, "k"), 2, 200, &kv) < 0)
            return -1;
        if (kv % 2)
            return setting_bad(c, p, "expected an even integer, got %lld", kv);
        t->k = (int)kv;
        t->pods = t->k;
        t->tors_per_pod = t->aggs_per_pod = t->hosts_per_tor = t->k / 2;
        t->cores = (t->k / 2) * (t->k / 2);
        *n = (int64_t)kv * kv * kv / 4;
        *formula = " (k^3/4)";
        return 0;
    }
    if (!cJSON_GetObjectItemCaseSensitive(tj, "pods"))
        return setting_bad(c, setting_join(p, path, "k"),
                           "expected an even integer (or the shape fields pods, tors_per_pod, aggs_per_pod, "
                           "hosts_per_tor and cores), got nothing (this field is required)");
    if (scn_topo_count(c, tj, path, "pods", 1, &t->pods) < 0 ||
        scn_topo_count(c, tj, path, "tors_per_pod", 1, &t->tors_per_pod) < 0 ||
        scn_topo_count(c, tj, path, "aggs_per_pod", 1, &t->aggs_per_pod) < 0 ||
        scn_topo_count(c, tj, path, "hosts_per_tor", 1, &t->hosts_per_tor) < 0 ||
        scn_topo_count(c, tj, path, "cores", 1, &t->cores) < 0)
        return -1;
    *n = scn_mul_sat(scn_mul_sat(t->pods, t->tors_per_pod), t->hosts_per_tor);
    *formula = " (pods x tors_per_pod x hosts_per_tor)";
    return 0;
}

static int fat_tree_parse(struct setting_ctx *c, const cJSON *tj, const char *path, void *cfg, int64_t *hosts,
                          const char **formula)
{
    static const char *const known[] = {"type", "k", "pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor",
                                        "cores", "link", "host_link", "fabric_link", "oversubscription", NULL};
    struct topo_fat_tree *t = cfg;
    bool have_dflt = false;
    if (setting_check_fields(c, tj, path, known) < 0 || fat_tree_shape(c, tj, path, t, hosts, formula) < 0)
        return -1;
    t->oversubscription = 1.0;
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(tj, "oversubscription");
    char p[SETTING_PATH_MAX];
    if (scn_topo_link(c, tj, path, "link", &t->link, &have_dflt) < 0 ||
        scn_topo_need_link(c, tj, path, "host_link", have_dflt, &t->link, &t->host_link) < 0 ||
        scn_topo_need_link(c, tj, path, "fabric_link", have_dflt, &t->link, &t->fabric_link) < 0 ||
        (o && setting_val_num(c, o, setting_join(p, path, "oversubscription"), 1.0, false, INFINITY, false,
                              &t->oversubscription) < 0))
        return -1;
    return 0;
}

static void fat_tree_dump(const void *cfg, cJSON *o)
{
    const struct topo_fat_tree *t = cfg;
    if (t->k) {
        cJSON_AddNumberToObject(o, "k", t->k);
    } else {
        cJSON_AddNumberToObject(o, "pods", t->pods);
        cJSON_AddNumberToObject(o, "tors_per_pod", t->tors_per_pod);
        cJSON_AddNumberToObject(o, "aggs_per_pod", t->aggs_per_pod);
        cJSON_AddNumberToObject(o, "hosts_per_tor", t->hosts_per_tor);
        cJSON_AddNumberToObject(o, "cores", t->cores);
    }
    scn_topo_dump_link(o, "host_link", &t->host_link);
    scn_topo_dump_link(o, "fabric_link", &t->fabric_link);
    cJSON_AddNumberToObject(o, "oversubscription", t->oversubscription);
}

static void fat_tree_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_fat_tree *t = cfg;
    /* Given by k, the generalized shape may not be filled in (a test's struct): derive it. */
    double half = t->k / 2.0;
    double pods = t->k ? t->k : t->pods, tors = t->k ? half : t->tors_per_pod;
    double aggs = t->k ? half : t->aggs_per_pod, cores = t->k ? half * half : t->cores;
    c->switches = pods * (tors + aggs) + cores;
    c->links = hosts + pods * tors * aggs + cores * pods;
    c->columns = pods * tors;
}

static void fat_tree_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_fat_tree *t = cfg;
    const struct scn_link *l = topo_link_or(&t->host_link, &t->link);
    for (int h = 0; h < n_hosts; h++)
        rate[h] = (double)l->rate_bps;
}

static void fat_tree_label(const void *cfg, char *buf, size_t len)
{
    const struct topo_fat_tree *t = cfg;
    if (t->k)
        snprintf(buf, len, "fat-tree k=%d", t->k);
    else
        snprintf(buf, len, "fat-tree with %lld hosts", (long long)t->pods * t->tors_per_pod * t->hosts_per_tor);
}

/* Checks the shape and returns it as P pods of T ToRs and A aggs, HPT hosts per ToR and C cores. */
static int fat_tree_dims(const struct scenario *s, const struct topo_fat_tree *t, char *err, size_t errlen, int *P,
                         int *T, int *A, int *HPT, int *C)
{
    int rc;
    if (t->k != 0) {
        if (t->k < 2 || t->k % 2)
            return topo_fail(s, err, errlen, "topology.k", "expected an even integer >= 2, got %d", t->k);
        *P = t->k;
        *T = *A = *HPT = t->k / 2;
        *C = (t->k / 2) * (t->k / 2);
        return SCN_OK;
    }
    if ((rc = topo_need(s, err, errlen, "pods", t->pods, 1)) ||
        (rc = topo_need(s, err, errlen, "tors_per_pod", t->tors_per_pod, 1)) ||
        (rc = topo_need(s, err, errlen, "aggs_per_pod", t->aggs_per_pod, 1)) ||
        (rc = topo_need(s, err, errlen, "hosts_per_tor", t->hosts_per_tor, 1)) ||
        (rc = topo_need(s, err, errlen, "cores", t->cores, 0)))
        return rc;
    *P = t->pods;
    *T = t->tors_per_pod;
    *A = t->aggs_per_pod;
    *HPT = t->hosts_per_tor;
    *C = t->cores;
    return SCN_OK;
}

static int fat_tree_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_fat_tree *t = cfg;
    int P = 0, T = 0, A = 0, HPT = 0, C = 0, rc;
    if ((rc = fat_tree_dims(s, t, err, errlen, &P, &T, &A, &HPT, &C)))
        return rc;
    long long n_tors = (long long)P * T, n_aggs = (long long)P * A, n_hosts = n_tors * HPT;
    if ((rc = topo_check_size(s, err, errlen, n_hosts + n_tors + n_aggs + C)))
        return rc;

    const struct scn_link *hl = topo_link_or(&t->host_link, &t->link), *fl = topo_link_or(&t->fabric_link, &t->link);
    struct scn_link up = *fl;
    if (t->oversubscription > 1) {
        up.rate_bps = (int64_t)((double)fl->rate_bps / t->oversubscription);
        if (up.rate_bps < 1)
            up.rate_bps = 1;
    }

    uint32_t h0 = topo_add_hosts(g, (int)n_hosts);
    uint32_t tor0 = g->n_nodes;
    for (long long i = 0; i < n_tors; i++)
        topo_add_named(g, "tor", i, SCN_NODE_SWITCH);
    uint32_t agg0 = g->n_nodes;
    for (long long i = 0; i < n_aggs; i++)
        topo_add_named(g, "agg", i, SCN_NODE_SWITCH);
    uint32_t core0 = g->n_nodes;
    for (int c = 0; c < C; c++)
        topo_add_named(g, "core", c, SCN_NODE_SWITCH);

    for (long long n = 0; n < n_hosts; n++)
        graph_add_link(g, h0 + (uint32_t)n, tor0 + (uint32_t)(n / HPT), hl);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < A; j++)
                graph_add_link(g, tor0 + (uint32_t)(p * T + i), agg0 + (uint32_t)(p * A + j), &up);
    /*
     * Agg j's cores: a block of C/A consecutive cores when they divide evenly
     * (the k-ary case: j*(k/2) .. j*(k/2)+k/2-1), else every A-th core from j.
     */
    bool blocks = C % A == 0;
    for (int p = 0; p < P; p++) {
        for (int j = 0; j < A; j++) {
            uint32_t agg = agg0 + (uint32_t)(p * A + j);
            if (blocks) {
                for (int c = j * (C / A); c < (j + 1) * (C / A); c++)
                    graph_add_link(g, agg, core0 + (uint32_t)c, fl);
            } else {
                for (int c = j; c < C; c += A)
                    graph_add_link(g, agg, core0 + (uint32_t)c, fl);
            }
        }
    }
    return SCN_OK;
}

static const struct topo_ops fat_tree_ops = {
    .load = {.cfg_size = sizeof(struct topo_fat_tree), .parse = fat_tree_parse, .dump = fat_tree_dump,
             .size = fat_tree_size, .host_rates = fat_tree_host_rates},
    .build = fat_tree_build,
    .layout = TOPO_LAYOUT_TIERS,
    .label = fat_tree_label,
};
MODULE_REGISTER(topo_kind, "fat-tree", &fat_tree_ops);
