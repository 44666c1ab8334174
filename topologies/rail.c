/*
 * rail — the rail-optimized fabric of GPU clusters: `servers` servers of `gpus_per_server` GPUs, each GPU with a
 * NIC of its own (one host of the model), NIC k of every server on rail k.  Rail k has `leaves_per_rail` leaves,
 * the servers split among them in consecutive blocks; `spines` spines join every leaf of every rail.  So two
 * GPUs of one rail under one leaf are one switch apart, and GPUs of one rail under different leaves, or of
 * different rails, meet at a spine (leaf-spine-leaf): least-cost routing over the graph alone keeps same-rail
 * traffic off the other rails' leaves, and ECMP spreads the rest over the spines.
 *
 * The shape follows NVIDIA's DGX SuperPOD reference architecture, DGX B200 edition ("Network Fabrics", compute
 * fabric): scalable units (SU) of 32 eight-GPU servers, each unit rail-aligned (one leaf per rail), so traffic
 * within a rail of a unit is one hop away and traffic between units or between rails traverses the spine layer;
 * its table of component counts lists, for 4 units, 32 leaves, 16 spines and 1024 leaf-spine cables, as many
 * as server-leaf ones.  Here a unit is a block of servers (leaves_per_rail = the units) and one link joins a leaf
 * and a spine: a fabric_link of the combined rate of a pair's cables stands for them.  Not modelled: the later
 * editions' multi-plane fabrics (DGX B300: each GPU with 2 x 400GbE through two planes) and dual-ToR, where a
 * NIC has two ports on two leaves.
 *
 * With a server description (`server`, server.h), a server is its inside: GPU g a host with a PCIe link (and an
 * NVLink), NIC k a node of its own on rail k, PCIe switches and sockets between them; the rails are then the
 * server's NICs, and host_link is a NIC's link to its leaf.
 *
 * Numbering: hosts first, host i = GPU i mod G of server i / G, named n{server}.g{gpu}; then the leaves rail by
 * rail, rail{k}.leaf{j} (node H + k*L + j); then spine0.. ; then, with a server description, each server's inside
 * in server order (server_extra_name's order: n3.nic0.., n3.pcie0.., n3.cpu0.., n3.nvswitch).  Server s hangs off
 * leaf floor(s*L / S) of each rail.  Links: the host links in host order (with a server: each NIC's, in server
 * and NIC order), then every leaf (in node order) to every spine in order, then each server's inside; so a leaf's
 * ports are its servers' NICs in server order then the spines, a spine's the leaves in node order.
 * The names are known before the network is built (the name hooks below), so pinned paths and faults are
 * checked at load, as a custom topology's.
 *
 * Storage (`storage_servers` S): the DGX SuperPOD reference architecture gives storage a fabric of its own (its
 * "Network Fabrics": compute, storage, in-band and out-of-band management; a DGX reaches storage by ports apart
 * from its eight compute NICs).  Modelled here is the converged alternative, the one the study note's QoS
 * classes are for: storage servers stor0.. on storage leaves stor.leaf0.. of their own (the servers split among
 * them in consecutive blocks, each on a storage_link), every storage leaf joined to every spine by a
 * fabric_link, so that a GPU's checkpoint leaves by its own compute NIC and shares the rail's leaf and the
 * spines with the training traffic.  A storage server is a host of one port: its file system and media are not
 * modelled (models/traffic_checkpoint.c).  They come last: storage leaves, then storage servers, after every
 * other node (host G x servers + k is stor{k}), their links after every other link, storage leaves to spines
 * first; without them nothing else moves.
 */
#include "topologies/rail.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"

/* A tier's link: its own, else the object's "link". */
static int rail_class(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return scn_topo_link_class(c, f, v, p, base, &((const struct topo_rail *)base)->link);
}

/* A storage server's link: its own, else the NICs'. */
static int storage_class(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    return scn_topo_link_class(c, f, v, p, base, &((const struct topo_rail *)base)->host_link);
}

static void storage_dump(cJSON *o, const struct setting *f, const void *base)
{
    if (((const struct topo_rail *)base)->storage_servers)
        scn_topo_link_dump(o, f, base);
}

static const struct setting rail_fields[] = {
    {SET_TOPO_TYPE},
    {SET_INT("servers", struct topo_rail, servers, 1, SCN_MAX_COUNT, NULL, "GPU servers, n0.."),
     .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_INT("gpus_per_server", struct topo_rail, gpus_per_server, 1, SCN_MAX_COUNT, NULL, "GPUs of a server, each "
             "with its own NIC (n3.g5: GPU 5 of server 3), and rails"), .flags = SETTING_REQUIRED,
     .what = "an integer of at least 1"},
    {SET_INT("leaves_per_rail", struct topo_rail, leaves_per_rail, 1, SCN_MAX_COUNT, "1", "Leaves of each rail, "
             "rail{k}.leaf0.., the servers split among them")},
    {SET_INT("spines", struct topo_rail, spines, 1, SCN_MAX_COUNT, NULL, "Spine switches, each linked to every "
             "leaf of every rail"), .flags = SETTING_REQUIRED, .what = "an integer of at least 1"},
    {SET_SERVER(struct topo_rail, server)},
    /* Not dumped: the tiers' links say it all. */
    {SET_TOPO_LINK_HOOKS("link", struct topo_rail, link, 0, scn_topo_link_parse, NULL,
                         "Both tiers' link, unless given apart")},
    {SET_TOPO_LINK_HOOKS("host_link", struct topo_rail, host_link, SETTING_ALWAYS, rail_class, scn_topo_link_dump,
                         "NIC to leaf")},
    {SET_TOPO_LINK_HOOKS("fabric_link", struct topo_rail, fabric_link, SETTING_ALWAYS, rail_class,
                         scn_topo_link_dump, "Leaf to spine")},
    {SET_INT("storage_servers", struct topo_rail, storage_servers, 0, SCN_MAX_COUNT, "0", "Storage servers, "
             "stor0.., on storage leaves of their own joined to every spine (a converged fabric)")},
    {SET_INT("storage_leaves", struct topo_rail, storage_leaves, 1, SCN_MAX_COUNT, "1", "Storage leaves, "
             "stor.leaf0.., the storage servers split among them; at most storage_servers")},
    {SET_TOPO_LINK_HOOKS("storage_link", struct topo_rail, storage_link, SETTING_ALWAYS, storage_class,
                         storage_dump,
                         "Storage server to its leaf, unless given: host_link")},
    {0},
};
static const struct setting_group rail_group = {.path = "topology", .fields = rail_fields};

/* Hosts, leaves and nodes of shape t (counts the loader bounds: hosts <= 1e6, leaves <= hosts, spines <= 1e6). */
static long long rail_hosts(const struct topo_rail *t)
{
    return (long long)t->servers * t->gpus_per_server;
}

/* The rails: one per NIC of a server. */
static long long rail_rails(const struct topo_rail *t)
{
    return t->server.gpus ? t->server.nics : t->gpus_per_server;
}

static long long rail_leaves(const struct topo_rail *t)
{
    return rail_rails(t) * t->leaves_per_rail;
}

/* The first node of server s's inside (with a server description). */
static long long rail_inside(const struct topo_rail *t, long long s)
{
    return rail_hosts(t) + rail_leaves(t) + t->spines + s * server_extra_nodes(&t->server);
}

/* The first storage leaf (then the storage servers), and the storage leaves (none without storage servers). */
static long long rail_stor0(const struct topo_rail *t)
{
    return rail_inside(t, t->server.gpus ? t->servers : 0);
}

static long long rail_stor_leaves(const struct topo_rail *t)
{
    return t->storage_servers ? t->storage_leaves : 0;
}

static long long rail_nodes(const struct topo_rail *t)
{
    return rail_stor0(t) + rail_stor_leaves(t) + t->storage_servers;
}

/* The node of the storage leaf storage server k hangs off. */
static long long rail_stor_leaf_of(const struct topo_rail *t, long long k)
{
    return rail_stor0(t) + k * t->storage_leaves / t->storage_servers;
}

/* The node of the leaf of rail k that server s hangs off. */
static long long rail_leaf_of(const struct topo_rail *t, long long s, long long k)
{
    return rail_hosts(t) + k * t->leaves_per_rail + s * t->leaves_per_rail / t->servers;
}

bool topo_rail_name(const struct topo_rail *t, long long i, char *buf, size_t len)
{
    long long H = rail_hosts(t), L = rail_leaves(t), E = server_extra_nodes(&t->server);
    if (i < 0 || i >= rail_nodes(t))
        return false;
    if (i < H)
        snprintf(buf, len, "n%lld.g%lld", i / t->gpus_per_server, i % t->gpus_per_server);
    else if (i < H + L)
        snprintf(buf, len, "rail%lld.leaf%lld", (i - H) / t->leaves_per_rail, (i - H) % t->leaves_per_rail);
    else if (i < H + L + t->spines)
        snprintf(buf, len, "spine%lld", i - H - L);
    else if (i >= rail_stor0(t) + rail_stor_leaves(t))
        snprintf(buf, len, "stor%lld", i - rail_stor0(t) - rail_stor_leaves(t));
    else if (i >= rail_stor0(t))
        snprintf(buf, len, "stor.leaf%lld", i - rail_stor0(t));
    else
        server_extra_name(&t->server, (i - rail_inside(t, 0)) / E, (int)((i - rail_inside(t, 0)) % E), buf, len);
    return true;
}

/* The look-up of topo_rail_name: the names' own grammar, so that a test's struct (no name table) answers too. */
int topo_rail_index(const struct topo_rail *t, const char *name)
{
    long long a, b, H = rail_hosts(t);
    const char *p = name;
    if (p[0] == 'n' && (p++, topo_name_num(&p, t->servers, &a)) && *p == '.') {
        const char *rest = p + 1;
        if (strncmp(p, ".g", 2) == 0 && (p += 2, topo_name_num(&p, t->gpus_per_server, &b)) && !*p)
            return (int)(a * t->gpus_per_server + b);
        int x = t->server.gpus ? server_extra_index(&t->server, a, rest) : -1;
        return x < 0 ? -1 : (int)(rail_inside(t, a) + x);
    }
    p = name;
    if (strncmp(p, "rail", 4) == 0 && (p += 4, topo_name_num(&p, rail_rails(t), &a)) && strncmp(p, ".leaf", 5) == 0 &&
        (p += 5, topo_name_num(&p, t->leaves_per_rail, &b)) && !*p)
        return (int)(H + a * t->leaves_per_rail + b);
    p = name;
    if (strncmp(p, "spine", 5) == 0 && (p += 5, topo_name_num(&p, t->spines, &a)) && !*p)
        return (int)(H + rail_leaves(t) + a);
    p = name;
    if (strncmp(p, "stor.leaf", 9) == 0 && (p += 9, topo_name_num(&p, rail_stor_leaves(t), &a)) && !*p)
        return (int)(rail_stor0(t) + a);
    p = name;
    if (strncmp(p, "stor", 4) == 0 && (p += 4, topo_name_num(&p, t->storage_servers, &a)) && !*p)
        return (int)(rail_stor0(t) + rail_stor_leaves(t) + a);
    return -1;
}

/* topo_name_fn over topo_rail_name. */
static bool rail_name_of(const void *t, long long i, char *buf, size_t len) { return topo_rail_name(t, i, buf, len); }

/* Every node's name into t->names (topo_name_table), for node_name and the loader's host names. */
static int rail_names(struct setting_ctx *c, struct topo_rail *t)
{
    return topo_name_table(c, t, rail_nodes(t), rail_name_of, &t->names, &t->name_at);
}

static int rail_parse(struct setting_ctx *c, const cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                      const char **formula)
{
    struct topo_rail *t = cfg;
    char p[SETTING_PATH_MAX];
    if (settings_defaults(c, &rail_group, cfg) < 0 || settings_parse(c, &rail_group, obj, path, cfg) < 0)
        return -1;
    if (t->leaves_per_rail > t->servers)
        return setting_bad(c, setting_join(p, path, "leaves_per_rail"), "expected an integer from 1 to servers "
                           "(%d), got %d (every leaf needs a server)", t->servers, t->leaves_per_rail);
    if (t->storage_servers && t->storage_leaves > t->storage_servers)
        return setting_bad(c, setting_join(p, path, "storage_leaves"), "expected an integer from 1 to "
                           "storage_servers (%d), got %d (every storage leaf needs a storage server)",
                           t->storage_servers, t->storage_leaves);
    if (t->server.gpus && t->server.gpus != t->gpus_per_server)
        return setting_bad(c, setting_join(p, path, "server"), "expected a server of gpus_per_server (%d) GPUs, got "
                           "%d (gpu_pcie)", t->gpus_per_server, t->server.gpus);
    *hosts = scn_mul_sat(t->servers, t->gpus_per_server) + t->storage_servers;
    *formula = t->storage_servers ? " (servers x gpus_per_server + storage_servers)" : " (servers x gpus_per_server)";
    /* The loader refuses a shape out of its bounds before anything asks for a name. */
    if (*hosts < 2 || *hosts > SCN_MAX_HOSTS)
        return 0;
    return rail_names(c, t);
}

static void rail_dump(const void *cfg, cJSON *o)
{
    settings_dump(&rail_group, cfg, o);
}

static void rail_release(void *cfg)
{
    struct topo_rail *t = cfg;
    free(t->names);
    free(t->name_at);
}

static void rail_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_rail *t = cfg;
    double leaves = (double)rail_leaves(t), inside = t->server.gpus ? (double)t->servers : 0;
    double sl = (double)rail_stor_leaves(t), ss = t->storage_servers;
    c->switches = leaves + sl + t->spines + inside * server_extra_nodes(&t->server);
    c->links = (inside ? inside * (t->server.nics + server_links(&t->server)) : hosts - ss) + (leaves + sl) * t->spines
               + ss;
    c->columns = leaves + sl + (inside ? hosts - ss : 0);
}

static void rail_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_rail *t = cfg;
    const struct scn_link *l = topo_link_or(&t->host_link, &t->link);
    double r = (double)l->rate_bps;
    if (t->server.gpus && (double)t->server.pcie_rate_bps < r)
        r = (double)t->server.pcie_rate_bps; /* a GPU paces at the slower of its PCIe link and its NIC */
    long long gpus = rail_hosts(t);
    for (int h = 0; h < n_hosts; h++)
        rate[h] = h < gpus ? r : (double)t->storage_link.rate_bps;
}

/* GPUs are the first nodes, storage servers the last. */
static int rail_host_node(const void *cfg, int i)
{
    const struct topo_rail *t = cfg;
    long long H = rail_hosts(t);
    return i < H ? i : (int)(rail_stor0(t) + rail_stor_leaves(t) + (i - H));
}

static int rail_node_index(const void *cfg, const char *name)
{
    return topo_rail_index(cfg, name);
}

static const char *rail_node_name(const void *cfg, int i)
{
    const struct topo_rail *t = cfg;
    return t->names + t->name_at[i];
}

static bool rail_linked(const void *cfg, int a, int b)
{
    const struct topo_rail *t = cfg;
    long long lo = a < b ? a : b, hi = a < b ? b : a, H = rail_hosts(t), spine0 = H + rail_leaves(t);
    long long in0 = rail_inside(t, 0), E = server_extra_nodes(&t->server), st0 = rail_stor0(t);
    if (hi >= st0) /* a storage leaf to a spine, or a storage server to its leaf */
        return hi < st0 + rail_stor_leaves(t) ? lo >= spine0 && lo < spine0 + t->spines
                                              : lo == rail_stor_leaf_of(t, hi - st0 - rail_stor_leaves(t));
    if (!t->server.gpus) {
        if (lo < H)
            return hi == rail_leaf_of(t, lo / t->gpus_per_server, lo % t->gpus_per_server);
        return lo < spine0 && hi >= spine0;
    }
    if (hi < in0) /* leaves and spines */
        return lo >= H && lo < spine0 && hi >= spine0;
    long long s = (hi - in0) / E;
    int j = (int)((hi - in0) % E);
    if (lo < H) /* a GPU and an inside node */
        return lo / t->gpus_per_server == s && server_linked(&t->server, -1 - (int)(lo % t->gpus_per_server), j);
    if (lo < in0) /* a leaf and a NIC */
        return j < t->server.nics && lo == rail_leaf_of(t, s, j);
    return (lo - in0) / E == s && server_linked(&t->server, (int)((lo - in0) % E), j);
}

static void rail_names_hint(const void *cfg, char *buf, size_t len)
{
    const struct topo_rail *t = cfg;
    int n = snprintf(buf, len, "the rail topology: n0.g0..n%d.g%d, rail0.leaf0..rail%lld.leaf%d, spine0..spine%d",
                     t->servers - 1, t->gpus_per_server - 1, rail_rails(t) - 1, t->leaves_per_rail - 1, t->spines - 1);
    if (t->server.gpus && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; n0.nic0.., n0.pcie0.., n0.cpu0..%s", t->server.nvlink_rate_bps ?
                      ", n0.nvswitch" : "");
    if (t->storage_servers && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; stor0..stor%d, stor.leaf0..stor.leaf%d", t->storage_servers - 1,
                 t->storage_leaves - 1);
}

static void rail_label(const void *cfg, char *buf, size_t len)
{
    const struct topo_rail *t = cfg;
    int n = snprintf(buf, len, "rail fabric of %d servers x %d GPUs%s", t->servers, t->gpus_per_server,
                     t->server.gpus ? " (PCIe and NVLink inside)" : "");
    if (t->storage_servers && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %d storage servers", t->storage_servers);
}

static int rail_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_rail *t = cfg;
    int rc;
    if ((rc = topo_need(s, err, errlen, "servers", t->servers, 1)) ||
        (rc = topo_need(s, err, errlen, "gpus_per_server", t->gpus_per_server, 1)) ||
        (rc = topo_need(s, err, errlen, "leaves_per_rail", t->leaves_per_rail, 1)) ||
        (rc = topo_need(s, err, errlen, "spines", t->spines, 1)))
        return rc;
    if (t->leaves_per_rail > t->servers)
        return topo_fail(s, err, errlen, "topology.leaves_per_rail", "expected an integer from 1 to servers (%d), "
                         "got %d (every leaf needs a server)", t->servers, t->leaves_per_rail);
    long long H = rail_hosts(t), L = rail_leaves(t), n = rail_nodes(t);
    if ((rc = topo_check_size(s, err, errlen, n)))
        return rc;
    const struct scn_link *hl = topo_link_or(&t->host_link, &t->link), *fl = topo_link_or(&t->fabric_link, &t->link);
    char name[SCN_NAME_MAX];
    for (long long i = 0; i < n; i++) {
        topo_rail_name(t, i, name, sizeof name);
        graph_add_node(g, name, i < H || i >= rail_stor0(t) + rail_stor_leaves(t) ? SCN_NODE_HOST : SCN_NODE_SWITCH);
    }
    if (t->server.gpus) {
        for (long long sv = 0; sv < t->servers; sv++)
            for (int k = 0; k < t->server.nics; k++)
                graph_add_link(g, (uint32_t)(rail_inside(t, sv) + server_nic_node(k)),
                               (uint32_t)rail_leaf_of(t, sv, k), hl);
    } else {
        for (long long h = 0; h < H; h++)
            graph_add_link(g, (uint32_t)h, (uint32_t)rail_leaf_of(t, h / t->gpus_per_server, h % t->gpus_per_server),
                           hl);
    }
    for (long long l = H; l < H + L; l++)
        for (long long j = 0; j < t->spines; j++)
            graph_add_link(g, (uint32_t)l, (uint32_t)(H + L + j), fl);
    for (long long sv = 0; t->server.gpus && sv < t->servers; sv++)
        server_build(&t->server, g, (uint32_t)(sv * t->gpus_per_server), (uint32_t)rail_inside(t, sv), hl->rate_bps);
    long long st0 = rail_stor0(t), sl = rail_stor_leaves(t);
    for (long long l = st0; l < st0 + sl; l++)
        for (long long j = 0; j < t->spines; j++)
            graph_add_link(g, (uint32_t)l, (uint32_t)(H + L + j), fl);
    for (long long k = 0; k < t->storage_servers; k++)
        graph_add_link(g, (uint32_t)(st0 + sl + k), (uint32_t)rail_stor_leaf_of(t, k), &t->storage_link);
    return SCN_OK;
}

static const struct topo_ops rail_ops = {
    .load = {.cfg_size = sizeof(struct topo_rail), .parse = rail_parse, .dump = rail_dump, .release = rail_release,
             .size = rail_size, .host_rates = rail_host_rates, .host_node = rail_host_node,
             .node_index = rail_node_index, .node_name = rail_node_name, .linked = rail_linked,
             .names_hint = rail_names_hint},
    .build = rail_build,
    .layout = TOPO_LAYOUT_TIERS,
    .label = rail_label,
};
MODULE_REGISTER(topo_kind, "rail", &rail_ops);
