/*
 * multihomed — two-tier fabrics in which each NIC has several ports, each on a leaf of its own: "dual-tor" and
 * "multi-plane".  They share the shape (a NIC's port q goes to leaf group q, the servers split among a group's
 * leaves in consecutive blocks) and differ in what the leaf groups share: the two ToRs of a dual-ToR rack share the
 * spines, the planes of a multi-plane fabric share nothing.
 *
 * Dual-ToR follows Alibaba HPN (SIGCOMM 2024, "Alibaba HPN: A Data Center Network for Large Language Model
 * Training"): each backend NIC has two 200G ports, each cabled to a different ToR of a pair (non-stacked: the two
 * ToRs have no link between them), so that no single ToR failure cuts a NIC off; the two ports are bonded and
 * the connections (flows) are hashed over them, so the NIC's aggregate is twice a port's while one flow rides one
 * port at its rate.  Here a rack is a ToR pair, rack{r}.tor0 and rack{r}.tor1, every ToR linked to every spine.
 *
 * Multi-plane follows NVIDIA's Spectrum-X multiplane (ConnectX-8 SuperNICs of DGX/HGX B300: each 800G SuperNIC
 * split into ports on two or more independent planes, e.g. 2 x 400G) and HPN's dual-plane tier 2 (the NICs' ports 0
 * in one plane, ports 1 in the other, isolating their traffic): plane p is a leaf-spine fabric of its own,
 * plane{p}.leaf0.. and plane{p}.spine0.., and NIC port p is on plane p.  Flows spread over the planes by hash at
 * the NIC and stay in their plane; when a NIC's port fails, least-cost routing (recomputed on link_down) sends the
 * flows that start later over the other planes.
 *
 * How the traffic splits, in both: per flow by ECMP hash at the NIC (route_host_egress for a host of several ports,
 * the switch's ECMP for a server's NIC node), as HPN's bonding and Spectrum-X's software plane load balancing hash
 * connections; the finer splitting of hardware plane load balancing (per packet) is not modelled.
 *
 * With a server description (server.h), the leaf groups are rail-optimized, as HPN's segments and the B300 planes
 * are: NIC k of every server on rail k, with leaves of its own in every group (rack{r}.rail{k}.tor{q},
 * plane{p}.rail{k}.leaf{j}), so that traffic between GPUs of one rail under one leaf stays on it and arrives at the
 * destination GPU's own NIC (beyond a spine, least-cost routing may take the leaf of a rail whose NIC is as near
 * the GPU, as on a rail fabric).
 *
 * Numbering: hosts first: without a server, h{i} (each a NIC with its ports); with one (server.h), n{s}.g{g}.  Then
 * the leaves: rack by rack, rail by rail (rack{j}.tor0, rack{j}.tor1: node H + 2(jR + k) + q), or plane by plane, rail
 * by rail (plane{q}.leaf{j}: node H + (qR + k)G + j), R rails (1 without a server); then the spines (spine{j}, or
 * plane{p}.spine{j}, plane by plane); then each server's inside in server order.  Server s hangs off leaf
 * floor(s*G / S) of every group and rail.  Links: each NIC's ports in server, NIC and port order (port q on
 * group q); every leaf in node order to each spine it reaches, in order; then each server's inside.  So a NIC's
 * port q is on ToR q or plane q, a leaf's ports are its servers' NICs then its spines.
 */
#include "topologies/multihomed.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"

/* A tier's link: its own, else the object's "link". */
static int mh_class(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return scn_topo_link_class(c, f, v, p, base, &((const struct topo_multihomed *)base)->link);
}

#define MH_LINK_FIELDS(host_help)                                                                                   \
    {SET_TOPO_LINK_HOOKS("link", struct topo_multihomed, link, 0, scn_topo_link_parse, NULL,                        \
                         "Both tiers' link, unless given apart")},                                                  \
    {SET_TOPO_LINK_HOOKS("host_link", struct topo_multihomed, host_link, SETTING_ALWAYS, mh_class,                  \
                         scn_topo_link_dump, host_help)},                                                           \
    {SET_TOPO_LINK_HOOKS("fabric_link", struct topo_multihomed, fabric_link, SETTING_ALWAYS, mh_class,              \
                         scn_topo_link_dump, "Leaf to spine")}

static const struct setting dual_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("servers", struct topo_multihomed, servers, 1, SCN_MAX_COUNT, NULL, "Hosts h0.. (each a NIC with two "
             "ports), or with a server description GPU servers n0.."), .flags = SETTING_REQUIRED,
     .what = "an integer of at least 1"},
    {SET_INT("racks", struct topo_multihomed, groups, 1, SCN_MAX_COUNT, "1", "ToR pairs, rack{r}.tor0 and "
             "rack{r}.tor1, the servers split among them")},
    {SET_INT("spines", struct topo_multihomed, spines, 1, SCN_MAX_COUNT, NULL, "Spine switches, each linked to every "
             "ToR"), .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_SERVER(struct topo_multihomed, server)},
    MH_LINK_FIELDS("A NIC port to its ToR"),
    {0},
};
static const struct setting_group dual_group = {.path = "topology", .fields = dual_fields};

static const struct setting multi_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("servers", struct topo_multihomed, servers, 1, SCN_MAX_COUNT, NULL, "Hosts h0.. (each a NIC with a "
             "port per plane), or with a server description GPU servers n0.."), .flags = SETTING_REQUIRED,
     .what = "an integer of at least 1"},
    {SET_INT("planes", struct topo_multihomed, planes, 1, MH_MAX_PLANES, NULL, "Independent planes, each NIC with "
             "one port on each"), .flags = SETTING_REQUIRED, .what = "an integer from 1 to 16"},
    {SET_INT("leaves_per_plane", struct topo_multihomed, groups, 1, SCN_MAX_COUNT, "1", "Leaves of each plane, "
             "plane{p}.leaf0.., the servers split among them")},
    {SET_INT("spines_per_plane", struct topo_multihomed, spines, 1, SCN_MAX_COUNT, NULL, "Spines of each plane, "
             "plane{p}.spine0.., each linked to every leaf of its plane"), .flags = SETTING_REQUIRED,
     .what = "an integer of at least 1"},
    {SET_SERVER(struct topo_multihomed, server)},
    MH_LINK_FIELDS("A NIC port to its plane's leaf"),
    {0},
};
static const struct setting_group multi_group = {.path = "topology", .fields = multi_fields};

/* ---- The shape's counts (bounded by the loader: hosts <= 1e6, groups <= servers, spines <= 1e6) ---- */

static long long mh_gpus(const struct topo_multihomed *t)
{
    return t->server.gpus ? t->server.gpus : 1;
}

static long long mh_hosts(const struct topo_multihomed *t)
{
    return (long long)t->servers * mh_gpus(t);
}

/* The rails: with a server, one per NIC (NIC k of every server on rail k's leaves), else one. */
static long long mh_rails(const struct topo_multihomed *t)
{
    return t->server.gpus ? t->server.nics : 1;
}

static long long mh_leaves(const struct topo_multihomed *t)
{
    return (long long)mh_ports(t) * mh_rails(t) * t->groups;
}

static long long mh_spines(const struct topo_multihomed *t)
{
    return (long long)t->spines * (t->multi ? t->planes : 1);
}

static long long mh_inside(const struct topo_multihomed *t, long long s)
{
    return mh_hosts(t) + mh_leaves(t) + mh_spines(t) + s * server_extra_nodes(&t->server);
}

static long long mh_nodes(const struct topo_multihomed *t)
{
    return mh_inside(t, t->server.gpus ? t->servers : 0);
}

/* The group-local index of the leaf server s hangs off. */
static long long mh_block(const struct topo_multihomed *t, long long s)
{
    return s * t->groups / t->servers;
}

/* Leaf j of rail k of group q: rack by rack, rail by rail for dual-ToR (rack{j}.tor0, rack{j}.tor1), plane by
 * plane, rail by rail for multi-plane (plane{q}.leaf{j}). */
static long long mh_leaf(const struct topo_multihomed *t, long long q, long long k, long long j)
{
    long long R = mh_rails(t);
    return mh_hosts(t) + (t->multi ? (q * R + k) * t->groups + j : (j * R + k) * 2 + q);
}

/* The group (ToR or plane), the rail and the block of leaf node i. */
static long long mh_leaf_group(const struct topo_multihomed *t, long long i)
{
    long long x = i - mh_hosts(t);
    return t->multi ? x / t->groups / mh_rails(t) : x % 2;
}

static long long mh_leaf_rail(const struct topo_multihomed *t, long long i)
{
    long long x = i - mh_hosts(t);
    return t->multi ? x / t->groups % mh_rails(t) : x / 2 % mh_rails(t);
}

static long long mh_leaf_block(const struct topo_multihomed *t, long long i)
{
    long long x = i - mh_hosts(t);
    return t->multi ? x % t->groups : x / 2 / mh_rails(t);
}

/* ".rail{k}" of a leaf's name, with a server; "" without. */
static void mh_rail_part(const struct topo_multihomed *t, long long i, char *buf, size_t len)
{
    if (t->server.gpus)
        snprintf(buf, len, ".rail%lld", mh_leaf_rail(t, i));
    else
        buf[0] = '\0';
}

bool topo_mh_name(const struct topo_multihomed *t, long long i, char *buf, size_t len)
{
    long long H = mh_hosts(t), L = mh_leaves(t), P = mh_spines(t), E = server_extra_nodes(&t->server);
    char rail[32] = "";
    if (i < 0 || i >= mh_nodes(t))
        return false;
    if (i >= H && i < H + L)
        mh_rail_part(t, i, rail, sizeof rail);
    if (i < H && !t->server.gpus)
        snprintf(buf, len, "h%lld", i);
    else if (i < H)
        snprintf(buf, len, "n%lld.g%lld", i / mh_gpus(t), i % mh_gpus(t));
    else if (i < H + L && t->multi)
        snprintf(buf, len, "plane%lld%s.leaf%lld", mh_leaf_group(t, i), rail, mh_leaf_block(t, i));
    else if (i < H + L)
        snprintf(buf, len, "rack%lld%s.tor%lld", mh_leaf_block(t, i), rail, mh_leaf_group(t, i));
    else if (i < H + L + P && t->multi)
        snprintf(buf, len, "plane%lld.spine%lld", (i - H - L) / t->spines, (i - H - L) % t->spines);
    else if (i < H + L + P)
        snprintf(buf, len, "spine%lld", i - H - L);
    else
        server_extra_name(&t->server, (i - mh_inside(t, 0)) / E, (int)((i - mh_inside(t, 0)) % E), buf, len);
    return true;
}

/* Whether name is PREFIX{a}SEP{b} with a < la and b < lb (SEP NULL: PREFIX{a} alone). */
static bool mh_pair(const char *name, const char *prefix, long long la, const char *sep, long long lb, long long *a,
                    long long *b)
{
    const char *p = name;
    size_t n = strlen(prefix), m = sep ? strlen(sep) : 0;
    if (strncmp(p, prefix, n) != 0 || (p += n, !topo_name_num(&p, la, a)))
        return false;
    if (!sep)
        return !*p;
    return strncmp(p, sep, m) == 0 && (p += m, topo_name_num(&p, lb, b)) && !*p;
}

/* Whether name is PREFIX{a}[.rail{k}]SEP{b} (the rail part exactly when t has a server), a < la, b < lb. */
static bool mh_leaf_name(const struct topo_multihomed *t, const char *name, const char *prefix, long long la,
                         const char *sep, long long lb, long long *a, long long *k, long long *b)
{
    const char *p = name;
    size_t n = strlen(prefix), m = strlen(sep);
    if (strncmp(p, prefix, n) != 0 || (p += n, !topo_name_num(&p, la, a)))
        return false;
    *k = 0;
    if (t->server.gpus && (strncmp(p, ".rail", 5) != 0 || (p += 5, !topo_name_num(&p, mh_rails(t), k))))
        return false;
    return strncmp(p, sep, m) == 0 && (p += m, topo_name_num(&p, lb, b)) && !*p;
}

/* The server part of a name: n{s}.g{g} or n{s}.<inside node>. */
static int mh_server_index(const struct topo_multihomed *t, const char *name)
{
    long long a, b;
    const char *p = name + 1;
    if (!t->server.gpus || name[0] != 'n' || !topo_name_num(&p, t->servers, &a) || *p != '.')
        return -1;
    const char *rest = p + 1;
    if (strncmp(p, ".g", 2) == 0 && (p += 2, topo_name_num(&p, mh_gpus(t), &b)) && !*p)
        return (int)(a * mh_gpus(t) + b);
    int x = server_extra_index(&t->server, a, rest);
    return x < 0 ? -1 : (int)(mh_inside(t, a) + x);
}

/* The look-up of topo_mh_name: the names' own grammar, so that a test's struct (no name table) answers too. */
int topo_mh_index(const struct topo_multihomed *t, const char *name)
{
    long long a, b, k, H = mh_hosts(t), L = mh_leaves(t);
    int x = mh_server_index(t, name);
    if (x >= 0)
        return x;
    if (!t->server.gpus && mh_pair(name, "h", H, NULL, 0, &a, &b))
        return (int)a;
    if (t->multi) {
        if (mh_leaf_name(t, name, "plane", t->planes, ".leaf", t->groups, &a, &k, &b))
            return (int)mh_leaf(t, a, k, b);
        if (mh_pair(name, "plane", t->planes, ".spine", t->spines, &a, &b))
            return (int)(H + L + a * t->spines + b);
        return -1;
    }
    if (mh_leaf_name(t, name, "rack", t->groups, ".tor", 2, &a, &k, &b))
        return (int)mh_leaf(t, b, k, a);
    if (mh_pair(name, "spine", t->spines, NULL, 0, &a, &b))
        return (int)(H + L + a);
    return -1;
}

/* topo_name_fn over topo_mh_name. */
static bool mh_name_of(const void *t, long long i, char *buf, size_t len) { return topo_mh_name(t, i, buf, len); }

/* Every node's name into t->names (topo_name_table), for node_name and the loader's host names. */
static int mh_names(struct setting_ctx *c, struct topo_multihomed *t)
{
    return topo_name_table(c, t, mh_nodes(t), mh_name_of, &t->names, &t->name_at);
}

/* The message on too many leaves, shared by the loader and the build. */
static const char *mh_groups_field(const struct topo_multihomed *t)
{
    return t->multi ? "leaves_per_plane" : "racks";
}

static int mh_parse(struct setting_ctx *c, const cJSON *obj, const char *path, struct topo_multihomed *t,
                    int64_t *hosts, const char **formula)
{
    char p[SETTING_PATH_MAX];
    if (settings_parse(c, t->multi ? &multi_group : &dual_group, obj, path, t) < 0)
        return -1;
    if (!t->multi)
        t->planes = 1;
    if (t->groups > t->servers)
        return setting_bad(c, setting_join(p, path, mh_groups_field(t)), "expected an integer from 1 to servers "
                           "(%d), got %d (every leaf needs a server)", t->servers, t->groups);
    *hosts = scn_mul_sat(t->servers, (int)mh_gpus(t));
    *formula = t->server.gpus ? " (servers x the server's GPUs)" : " (servers)";
    if (*hosts < 2 || *hosts > SCN_MAX_HOSTS)
        return 0; /* the loader refuses it before anything asks for a name */
    return mh_names(c, t);
}

static int dual_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                      const char **formula)
{
    ((struct topo_multihomed *)cfg)->multi = false;
    return mh_parse(c, obj, path, cfg, hosts, formula);
}

static int multi_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                       const char **formula)
{
    ((struct topo_multihomed *)cfg)->multi = true;
    return mh_parse(c, obj, path, cfg, hosts, formula);
}

static void mh_dump(const void *cfg, cJSON *o)
{
    const struct topo_multihomed *t = cfg;
    settings_dump(t->multi ? &multi_group : &dual_group, cfg, o);
}

static void mh_release(void *cfg)
{
    struct topo_multihomed *t = cfg;
    free(t->names);
    free(t->name_at);
}

/* Leaf-spine links: each leaf reaches every spine (dual-ToR) or its plane's. */
static double mh_fabric_links(const struct topo_multihomed *t)
{
    return (double)mh_leaves(t) * t->spines;
}

static void mh_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_multihomed *t = cfg;
    double inside = t->server.gpus ? (double)t->servers : 0, ports = mh_ports(t);
    c->switches = (double)(mh_leaves(t) + mh_spines(t)) + inside * server_extra_nodes(&t->server);
    c->links = (inside ? inside * (t->server.nics * ports + server_links(&t->server)) : hosts * ports) +
               mh_fabric_links(t);
    /* A host of several ports is a column of its own (routing.c), hosts of one port share their leaf's; a GPU is
     * counted as one, a bound. */
    c->columns = !inside && ports == 1 ? (double)t->groups : hosts;
}

static void mh_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_multihomed *t = cfg;
    double r = (double)topo_link_or(&t->host_link, &t->link)->rate_bps;
    if (t->server.gpus && (double)t->server.pcie_rate_bps < r)
        r = (double)t->server.pcie_rate_bps; /* a GPU paces at the slower of its PCIe link and a NIC port */
    for (int h = 0; h < n_hosts; h++)
        rate[h] = r;
}

static int mh_host_node(const void *cfg, int i)
{
    return i;
}

static int mh_node_index(const void *cfg, const char *name)
{
    return topo_mh_index(cfg, name);
}

static const char *mh_node_name(const void *cfg, int i)
{
    const struct topo_multihomed *t = cfg;
    return t->names + t->name_at[i];
}

/* Whether leaf lo (H <= lo < H + L) and spine hi are linked. */
static bool mh_leaf_spine(const struct topo_multihomed *t, long long lo, long long hi)
{
    long long H = mh_hosts(t), L = mh_leaves(t);
    return !t->multi || mh_leaf_group(t, lo) == (hi - H - L) / t->spines;
}

static bool mh_linked(const void *cfg, int a, int b)
{
    const struct topo_multihomed *t = cfg;
    long long lo = a < b ? a : b, hi = a < b ? b : a, H = mh_hosts(t), spine0 = H + mh_leaves(t);
    long long in0 = mh_inside(t, 0), E = server_extra_nodes(&t->server);
    if (hi < in0 && lo >= H) /* leaves and spines */
        return lo < spine0 && hi >= spine0 && mh_leaf_spine(t, lo, hi);
    if (!t->server.gpus) /* a host and a leaf */
        return hi >= H && hi < spine0 && mh_leaf_block(t, hi) == mh_block(t, lo);
    if (hi < in0)
        return false; /* a GPU and a leaf or spine */
    long long s = (hi - in0) / E;
    int j = (int)((hi - in0) % E);
    if (lo < H) /* a GPU and an inside node */
        return lo / mh_gpus(t) == s && server_linked(&t->server, -1 - (int)(lo % mh_gpus(t)), j);
    if (lo < in0) /* a leaf and a NIC */
        return lo < spine0 && j < t->server.nics && mh_leaf_rail(t, lo) == j && mh_leaf_block(t, lo) == mh_block(t, s);
    return (lo - in0) / E == s && server_linked(&t->server, (int)((lo - in0) % E), j);
}

static void mh_names_hint(const void *cfg, char *buf, size_t len)
{
    const struct topo_multihomed *t = cfg;
    int n;
    if (t->server.gpus)
        n = snprintf(buf, len, "the %s topology: n0.g0..n%d.g%d, ", t->multi ? "multi-plane" : "dual-tor",
                     t->servers - 1, t->server.gpus - 1);
    else
        n = snprintf(buf, len, "the %s topology: h0..h%d, ", t->multi ? "multi-plane" : "dual-tor", t->servers - 1);
    if (n < 0 || (size_t)n >= len)
        return;
    long long H = mh_hosts(t), L = mh_leaves(t), P = mh_spines(t);
    char a[SCN_NAME_MAX], b[SCN_NAME_MAX], c[SCN_NAME_MAX], d[SCN_NAME_MAX];
    topo_mh_name(t, H, a, sizeof a);
    topo_mh_name(t, H + L - 1, b, sizeof b);
    topo_mh_name(t, H + L, c, sizeof c);
    topo_mh_name(t, H + L + P - 1, d, sizeof d);
    n += snprintf(buf + n, len - (size_t)n, "%s..%s, %s..%s", a, b, c, d);
    if (t->server.gpus && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; n0.nic0..");
}

static void mh_label(const void *cfg, char *buf, size_t len)
{
    const struct topo_multihomed *t = cfg;
    const char *what = t->server.gpus ? "servers" : "hosts";
    if (t->multi)
        snprintf(buf, len, "%d-plane fabric of %d %s", t->planes, t->servers, what);
    else
        snprintf(buf, len, "dual-ToR fabric of %d %s in %d rack%s", t->servers, what, t->groups,
                 t->groups == 1 ? "" : "s");
}

/* Each NIC's ports (a host, or a server's NIC node), port q to its leaf in group q. */
static void mh_build_nics(const struct topo_multihomed *t, struct graph *g, const struct scn_link *hl)
{
    int nics = t->server.gpus ? t->server.nics : 1;
    for (long long s = 0; s < t->servers; s++)
        for (int k = 0; k < nics; k++)
            for (int q = 0; q < mh_ports(t); q++) {
                long long nic = t->server.gpus ? mh_inside(t, s) + server_nic_node(k) : s;
                graph_add_link(g, (uint32_t)nic, (uint32_t)mh_leaf(t, q, k, mh_block(t, s)), hl);
            }
}

static int mh_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_multihomed *t = cfg;
    int rc;
    if ((rc = topo_need(s, err, errlen, "servers", t->servers, 1)) ||
        (rc = topo_need(s, err, errlen, mh_groups_field(t), t->groups, 1)) ||
        (rc = topo_need(s, err, errlen, t->multi ? "spines_per_plane" : "spines", t->spines, 1)) ||
        (t->multi && (rc = topo_need(s, err, errlen, "planes", t->planes, 1))))
        return rc;
    char path[64];
    snprintf(path, sizeof path, "topology.%s", mh_groups_field(t));
    if (t->groups > t->servers)
        return topo_fail(s, err, errlen, path, "expected an integer from 1 to servers (%d), got %d (every leaf "
                         "needs a server)", t->servers, t->groups);
    long long H = mh_hosts(t), L = mh_leaves(t), n = mh_nodes(t);
    if ((rc = topo_check_size(s, err, errlen, n)))
        return rc;
    const struct scn_link *hl = topo_link_or(&t->host_link, &t->link), *fl = topo_link_or(&t->fabric_link, &t->link);
    char name[SCN_NAME_MAX];
    for (long long i = 0; i < n; i++) {
        topo_mh_name(t, i, name, sizeof name);
        graph_add_node(g, name, i < H ? SCN_NODE_HOST : SCN_NODE_SWITCH);
    }
    mh_build_nics(t, g, hl);
    for (long long l = H; l < H + L; l++) {
        long long first = t->multi ? mh_leaf_group(t, l) * t->spines : 0;
        for (long long j = first; j < first + t->spines; j++)
            graph_add_link(g, (uint32_t)l, (uint32_t)(H + L + j), fl);
    }
    for (long long sv = 0; t->server.gpus && sv < t->servers; sv++)
        server_build(&t->server, g, (uint32_t)(sv * mh_gpus(t)), (uint32_t)mh_inside(t, sv), hl->rate_bps);
    return SCN_OK;
}

#define MH_LOAD_HOOKS                                                                                               \
    .cfg_size = sizeof(struct topo_multihomed), .dump = mh_dump, .release = mh_release, .size = mh_size,           \
    .host_rates = mh_host_rates, .host_node = mh_host_node, .node_index = mh_node_index,                           \
    .node_name = mh_node_name, .linked = mh_linked, .names_hint = mh_names_hint

static const struct topo_ops dual_ops = {
    .load = {.parse = dual_parse, MH_LOAD_HOOKS},
    .build = mh_build,
    .layout = TOPO_LAYOUT_TIERS,
    .label = mh_label,
};
MODULE_REGISTER(topo_kind, "dual-tor", &dual_ops);

static const struct topo_ops multi_ops = {
    .load = {.parse = multi_parse, MH_LOAD_HOOKS},
    .build = mh_build,
    .layout = TOPO_LAYOUT_TIERS,
    .label = mh_label,
};
MODULE_REGISTER(topo_kind, "multi-plane", &multi_ops);
