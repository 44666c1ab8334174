/*
 * traffic_poisson — the kind "poisson": open-loop background load, each host starting flows at exponentially
 * distributed intervals so that it offers `load` x its link rate, with sizes drawn from a CDF (the DCTCP paper's
 * WebSearch workload, Facebook's Hadoop workload, or a file; see cdf_load), to a uniformly random other host or a
 * fixed random permutation (the background traffic of the DCQCN and HPCC evaluations).
 */
#include "models/traffic.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum poisson_pattern { POISSON_UNIFORM, POISSON_PERMUTATION };

struct poisson_conf {
    struct scn_hostset hosts;
    double load;
    char size_cdf[256];    /* "websearch", "hadoop" or a file path */
    int pattern;           /* enum poisson_pattern */
    int64_t end_ps;        /* -1 = until stop */
};

/* One host's source of arrivals. */
struct poisson_gen {
    struct traffic *t;
    int entry;
    const struct scn_traffic *e;
    const struct poisson_conf *conf; /* read at set-up, so that an arrival does not look it up */
    uint32_t host, local;      /* host index, and its position in the entry's host set */
    struct rng rng;
    double mean_gap_ps;
    uint32_t *perm;            /* permutation pattern: destination of each position, shared */
};

#define CDF_WHAT "\"websearch\", \"hadoop\" or the path of a CDF file"

static int parse_cdf(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    struct poisson_conf *e = base;
    const char *cs = NULL;
    (void)f;
    if (setting_val_str(c, v, path, CDF_WHAT, &cs) < 0)
        return -1;
    if (!*cs || strlen(cs) >= sizeof e->size_cdf)
        return setting_bad(c, path, "expected \"websearch\", \"hadoop\" or a file path of at most %zu characters, "
                           "got \"%.60s\"", sizeof e->size_cdf - 1, cs);
    setting_strf(e->size_cdf, sizeof e->size_cdf, "%s", cs);
    return 0;
}

static void dump_cdf(cJSON *obj, const struct setting *f, const void *base)
{
    cJSON_AddStringToObject(obj, f->name, ((const struct poisson_conf *)base)->size_cdf);
}

/* "end": absent, until the stop time (-1); else after the entry's start. */
static int parse_end(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    struct poisson_conf *e = base;
    int64_t start = scn_loading_traffic(c)->start_ps;
    char a[32], b[32];
    (void)f;
    e->end_ps = -1;
    if (!v)
        return 0;
    if (setting_val_qty(c, v, path, SETTING_TIME, false, &e->end_ps) < 0)
        return -1;
    if (e->end_ps <= start)
        return setting_bad(c, path, "expected a time after start (%s), got \"%s\"", units_fmt_time(start, a, sizeof a),
                           units_fmt_time(e->end_ps, b, sizeof b));
    return 0;
}

static void dump_end(cJSON *obj, const struct setting *f, const void *base)
{
    const struct poisson_conf *e = base;
    char b[32];
    if (e->end_ps >= 0)
        cJSON_AddStringToObject(obj, f->name, units_fmt_time(e->end_ps, b, sizeof b));
}

static const char *const pattern_names[] = {"uniform", "permutation", NULL};

static const struct setting poisson_fields[] = {
    {.name = "hosts", .kind = SETTING_CUSTOM, .offset = offsetof(struct poisson_conf, hosts), .flags = SETTING_ALWAYS,
     .lo = 2, .help = "Hosts that send and receive; at least 2 (absent: every host)", .parse = scn_parse_hostset,
     .dump = scn_dump_hostset},
    {SET_NUM("load", struct poisson_conf, load, SETTING_LO_OPEN | SETTING_REQUIRED, 0, 1, NULL,
             "Offered load as a fraction of each host's link rate"), .what = "a number greater than 0 and at most 1"},
    {.name = "size_cdf", .kind = SETTING_CUSTOM, .offset = offsetof(struct poisson_conf, size_cdf),
     .flags = SETTING_REQUIRED, .what = CDF_WHAT, .help = "The flow-size distribution: websearch, hadoop or a file",
     .parse = parse_cdf, .dump = dump_cdf},
    {SET_ENUM("pattern", struct poisson_conf, pattern, pattern_names, "uniform",
              "uniform: each flow to a random other host; permutation: each host to one fixed partner")},
    {.name = "end", .kind = SETTING_CUSTOM, .offset = offsetof(struct poisson_conf, end_ps), .flags = SETTING_ALWAYS,
     .help = "No new flow starts after this (absent: until stop)", .parse = parse_end, .dump = dump_end},
    {0},
};

static const struct setting_group poisson_group = {
    .path = "traffic.poisson", .size = sizeof(struct poisson_conf), .per_entry = true, .fields = poisson_fields,
};

/*
 * The next gap of a Poisson source, drawn from the exponential of its mean, in ps.  A tiny load on a slow link
 * makes the mean huge (even infinite): a draw past the engine's clock becomes the clock's end + 1, an arrival
 * that never comes (sim.h), where converting it would overflow int64.  Every other draw is what it was.
 */
static sim_time_t poisson_gap(struct poisson_gen *g)
{
    double x = rng_exponential(&g->rng, g->mean_gap_ps);
    return x < (double)SIM_TIME_LIMIT ? (sim_time_t)x : SIM_TIME_LIMIT + 1;
}

static void poisson_arrival(struct sim *s, void *obj, uint64_t arg)
{
    struct poisson_gen *g = obj;
    struct traffic *t = g->t;
    struct net *n = t->net;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL); /* the run's: it adds to the table of flows (traffic.h) */
    const struct scn_traffic *e = g->e;
    const struct poisson_conf *pc = g->conf;
    if (pc->end_ps >= 0 && s->now >= pc->end_ps) {
        net_np(n)->pending_sources--;
        net_check_finish(n);
        return;
    }
    uint32_t dst;
    if (pc->pattern == POISSON_PERMUTATION) {
        dst = (uint32_t)pc->hosts.idx[g->perm[g->local]];
    } else {
        uint32_t k = rng_below(&g->rng, (uint32_t)pc->hosts.n - 1);
        dst = (uint32_t)pc->hosts.idx[k >= g->local ? k + 1 : k];
    }
    int64_t size = cdf_sample(&t->cdfs[g->entry], rng_uniform(&g->rng));
    net_add_flow(n, traffic_name(t, e->id, t->next_name[g->entry]++), g->host, dst, size, s->now, traffic_prio(n, e),
                 0, NULL, 0);
    sim_after(s, 1 + poisson_gap(g), poisson_arrival, g, 0);
}


/* Entry ti's generators, one per host, each with its own stream, so that adding a host changes no other's draws. */
static int poisson_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    struct net *n = t->net;
    const struct scenario *scn = n->scn;
    const struct scn_traffic *e = &scn->traffic[ti];
    const struct poisson_conf *pc = TRAFFIC_CONF(e, struct poisson_conf);
    char jpath[64];
    snprintf(jpath, sizeof jpath, "traffic.%d.size_cdf", ti);
    int rc = cdf_load(&t->cdfs[ti], pc->size_cdf, scn->file, jpath, err, errlen);
    if (rc)
        return rc;
    uint32_t N = (uint32_t)pc->hosts.n;
    struct rng prng;
    uint32_t *perm = NULL;
    if (pc->pattern == POISSON_PERMUTATION) {
        /* A random derangement (Sattolo's algorithm gives a single cycle: nobody sends to itself). */
        perm = mem_xcalloc(N, sizeof *perm, "generating traffic");
        for (uint32_t i = 0; i < N; i++)
            perm[i] = i;
        rng_init(&prng, scn->seed, rng_stream_id(RNG_KIND_TRAFFIC, ((uint64_t)ti << 32) | 0xffffffffu));
        for (uint32_t i = N - 1; i > 0; i--) {
            uint32_t j = rng_below(&prng, i);
            uint32_t tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
    }
    struct poisson_gen *gens = mem_xcalloc(N, sizeof *gens, "generating traffic");
    t->state[ti] = gens;
    for (uint32_t i = 0; i < N; i++) {
        struct poisson_gen *g = &gens[i];
        *g = (struct poisson_gen){.t = t, .entry = ti, .e = e, .conf = pc, .local = i, .perm = perm};
        g->host = (uint32_t)pc->hosts.idx[i];
        rng_init(&g->rng, scn->seed, rng_stream_id(RNG_KIND_TRAFFIC, ((uint64_t)ti << 32) | i));
        double rate = (double)n->hosts[g->host].rate_bps;
        g->mean_gap_ps = t->cdfs[ti].mean * 8.0 / (pc->load * rate) * (double)PS_PER_S;
        net_np(n)->pending_sources++;
        sim_at(net_sim(n), e->start_ps + poisson_gap(g), poisson_arrival, g, 0);
    }
    return 0;
}

static void poisson_release(struct traffic *t, int ti)
{
    struct poisson_gen *gens = t->state[ti];
    if (gens)
        free(gens[0].perm);
    free(gens);
}

static long poisson_numbered(const struct scn_traffic *e)
{
    (void)e;
    return -1; /* as many as its arrivals */
}

/*
 * The mean number of flows entry ti starts: per host one per mean gap of mean_bytes x 8 / (load x its link rate),
 * at most one per picosecond, over the entry's span (start to end or the stop time).
 */
static void poisson_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                          struct traffic_count *out)
{
    const struct scn_traffic *e = &s->traffic[ti];
    const struct poisson_conf *pc = TRAFFIC_CONF(e, struct poisson_conf);
    int64_t end = pc->end_ps >= 0 && pc->end_ps < s->stop_ps ? pc->end_ps : s->stop_ps;
    *out = (struct traffic_count){.generates = true, .mean_bytes = -1, .span_ps = end - e->start_ps};
    if (t) {
        out->mean_bytes = t->cdfs[ti].mean;
    } else {
        /* Before the run: read the CDF for its mean (set-up reports a CDF that cannot be read). */
        struct cdf c;
        char err[SCN_ERR_MAX], jpath[64];
        snprintf(jpath, sizeof jpath, "traffic.%d.size_cdf", ti);
        if (cdf_load(&c, pc->size_cdf, s->file, jpath, err, sizeof err))
            return;
        out->mean_bytes = c.mean;
        cdf_free(&c);
    }
    double dur_ps = end > e->start_ps ? (double)(end - e->start_ps) : 0;
    if (dur_ps <= 0 || !(out->mean_bytes > 0))
        return;
    for (int i = 0; i < pc->hosts.n; i++) {
        double rate = host_rate[pc->hosts.idx[i]];
        if (!(rate > 0))
            continue;
        double gap_ps = out->mean_bytes * 8.0 / (pc->load * rate) * (double)PS_PER_S;
        out->generated += fmin(dur_ps / gap_ps, dur_ps);
    }
}

static int poisson_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct poisson_conf *pc = TRAFFIC_CONF(e, struct poisson_conf);
    *hosts = pc->hosts.idx;
    return pc->hosts.n;
}

static const struct traffic_ops poisson_ops = {
    .scn = {.numbered = poisson_numbered},
    .setup = poisson_setup,
    .release = poisson_release,
    .count = poisson_count,
    .senders = poisson_senders,
};

MODULE_REGISTER(traffic_kind, "poisson", &poisson_ops, &poisson_group);
