/*
 * custom — any graph, as topology.nodes and topology.links list it: nodes keep the order of the list (so do
 * hosts among themselves: host i is the i-th node of kind "host"), links theirs, hence the port numbers.  The
 * only topology whose node names the loader knows, so pinned paths and faults are checked against them at load.
 */
#include "topologies/custom.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"
#include "topologies/topo.h"

static const char *const kind_names[] = {"host", "switch", NULL};

/* Fails when obj.key is absent; `what` describes the expected value. */
static int required(struct setting_ctx *c, const cJSON *obj, const char *ppath, const char *key, const char *what)
{
    char p[SETTING_PATH_MAX];
    if (!cJSON_GetObjectItemCaseSensitive(obj, key))
        return setting_bad(c, setting_join(p, ppath, key), "expected %s, got nothing (this field is required)", what);
    return 0;
}

static void *xcalloc(struct setting_ctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        setting_oom(c);
    return p;
}

static int custom_node_index(const void *cfg, const char *name)
{
    const struct topo_custom *t = cfg;
    int lo = 0, hi = t->n_nodes - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int r = strcmp(name, t->nodes[t->node_sorted[mid]].name);
        if (r == 0)
            return t->node_sorted[mid];
        if (r < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

/* Reads topology.nodes: names unique (sorted by name, which the look-ups use), each a host or a switch. */
static int parse_nodes(struct setting_ctx *c, const cJSON *t, const char *path, struct topo_custom *tp)
{
    static const char *const node_known[] = {"name", "kind", NULL};
    char p[SETTING_PATH_MAX], ep[SETTING_PATH_MAX], q[SETTING_PATH_MAX];
    if (required(c, t, path, "nodes", "a non-empty array of nodes") < 0)
        return -1;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(t, "nodes");
    setting_join(p, path, "nodes");
    if (setting_val_arr(c, nodes, p, "a non-empty array of nodes like {\"name\": \"s0\", \"kind\": \"switch\"}") < 0)
        return -1;
    int n = cJSON_GetArraySize(nodes);
    if (n == 0)
        return setting_bad(c, p, "expected a non-empty array of nodes, got an empty array");
    if (n > 2 * SCN_MAX_HOSTS)
        return setting_bad(c, p, "expected at most %d nodes, got %d", 2 * SCN_MAX_HOSTS, n);
    if (!(tp->nodes = xcalloc(c, (size_t)n, sizeof *tp->nodes)))
        return -1;
    tp->n_nodes = n;
    int i = 0, nh = 0;
    for (const cJSON *it = nodes->child; it; it = it->next, i++) {
        setting_join_idx(ep, p, i);
        int kind = 0;
        if (setting_val_obj(c, it, ep) < 0 || setting_check_fields(c, it, ep, node_known) < 0 ||
            required(c, it, ep, "name", "a node name") < 0 ||
            scn_topo_name_field(c, cJSON_GetObjectItemCaseSensitive(it, "name"), setting_join(q, ep, "name"),
                                tp->nodes[i].name) < 0 ||
            required(c, it, ep, "kind", "\"host\" or \"switch\"") < 0 ||
            setting_val_enum(c, cJSON_GetObjectItemCaseSensitive(it, "kind"), setting_join(q, ep, "kind"),
                             kind_names, &kind) < 0)
            return -1;
        tp->nodes[i].kind = (enum scn_node_kind)kind;
        nh += kind == SCN_NODE_HOST;
    }
    /* Sorting by name finds duplicates in n log n and serves later look-ups. */
    struct scn_named *sorted = xcalloc(c, (size_t)n, sizeof *sorted);
    if (!sorted || !(tp->node_sorted = xcalloc(c, (size_t)n, sizeof *tp->node_sorted))) {
        free(sorted);
        return -1;
    }
    for (i = 0; i < n; i++)
        sorted[i] = (struct scn_named){tp->nodes[i].name, i};
    qsort(sorted, (size_t)n, sizeof *sorted, scn_cmp_named);
    for (i = 0; i < n; i++)
        tp->node_sorted[i] = sorted[i].idx;
    free(sorted);
    for (i = 1; i < n; i++) {
        int first = tp->node_sorted[i - 1], dup = tp->node_sorted[i];
        if (strcmp(tp->nodes[first].name, tp->nodes[dup].name) == 0) {
            setting_join(q, setting_join_idx(ep, p, dup), "name");
            return setting_bad(c, q, "expected a unique node name, got \"%s\" (already the name of %s.%d)",
                               tp->nodes[dup].name, p, first);
        }
    }
    tp->n_hosts = nh;
    if (!(tp->host_node = xcalloc(c, (size_t)nh, sizeof *tp->host_node)))
        return -1;
    for (i = 0, nh = 0; i < n; i++)
        if (tp->nodes[i].kind == SCN_NODE_HOST)
            tp->host_node[nh++] = i;
    return 0;
}

/* Reads topology.links: two listed nodes each, and the link's rate and delay. */
static int parse_links(struct setting_ctx *c, const cJSON *t, const char *path, struct topo_custom *tp)
{
    static const char *const link_known[] = {"a", "b", "rate", "delay", "length", "loss_rate", NULL};
    char p[SETTING_PATH_MAX], ep[SETTING_PATH_MAX], q[SETTING_PATH_MAX];
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(t, "links");
    setting_join(p, path, "links");
    if (!links)
        return setting_bad(c, p, "expected an array of links like {\"a\": \"h0\", \"b\": \"s0\", \"rate\": "
                                 "\"100Gbps\"}, got nothing (this field is required)");
    if (setting_val_arr(c, links, p, "an array of links like {\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\"}") < 0)
        return -1;
    int nl = cJSON_GetArraySize(links);
    if (!(tp->links = xcalloc(c, (size_t)nl, sizeof *tp->links)))
        return -1;
    tp->n_links = nl;
    int i = 0;
    for (const cJSON *it = links->child; it; it = it->next, i++) {
        setting_join_idx(ep, p, i);
        if (setting_val_obj(c, it, ep) < 0 || setting_check_fields(c, it, ep, link_known) < 0)
            return -1;
        int end[2];
        for (int e = 0; e < 2; e++) {
            const char *key = e ? "b" : "a", *name = NULL;
            if (required(c, it, ep, key, "a node name") < 0 ||
                setting_val_str(c, cJSON_GetObjectItemCaseSensitive(it, key), setting_join(q, ep, key),
                                "a node name", &name) < 0)
                return -1;
            if ((end[e] = custom_node_index(tp, name)) < 0)
                return setting_bad(c, q, "expected the name of a node in topology.nodes, got \"%.60s\"", name);
        }
        if (end[0] == end[1])
            return setting_bad(c, q, "expected a node other than \"a\", got \"%s\" at both ends",
                               tp->nodes[end[0]].name);
        tp->links[i].a = end[0];
        tp->links[i].b = end[1];
        if (scn_topo_link_fields(c, it, ep, &tp->links[i].link) < 0)
            return -1;
    }
    return 0;
}

static int custom_parse(struct setting_ctx *c, const cJSON *t, const char *path, void *cfg, int64_t *hosts,
                        const char **formula)
{
    static const char *const known[] = {"type", "nodes", "links", NULL};
    struct topo_custom *tp = cfg;
    if (setting_check_fields(c, t, path, known) < 0 || parse_nodes(c, t, path, tp) < 0 ||
        parse_links(c, t, path, tp) < 0)
        return -1;
    *hosts = tp->n_hosts;
    *formula = " (host nodes)";
    return 0;
}

static void custom_dump(const void *cfg, cJSON *o)
{
    const struct topo_custom *t = cfg;
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (int i = 0; nodes && i < t->n_nodes; i++) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "name", t->nodes[i].name);
        cJSON_AddStringToObject(n, "kind", kind_names[t->nodes[i].kind]);
        cJSON_AddItemToArray(nodes, n);
    }
    cJSON *links = cJSON_AddArrayToObject(o, "links");
    for (int i = 0; links && i < t->n_links; i++) {
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "a", t->nodes[t->links[i].a].name);
        cJSON_AddStringToObject(l, "b", t->nodes[t->links[i].b].name);
        scn_topo_dump_link(l, NULL, &t->links[i].link);
        cJSON_AddItemToArray(links, l);
    }
}

static void custom_release(void *cfg)
{
    struct topo_custom *t = cfg;
    free(t->nodes);
    free(t->links);
    free(t->host_node);
    free(t->node_sorted);
}

/* Hosts with one link are grouped by their switch, others are columns of their own: at most hosts. */
static void custom_size(const void *cfg, double hosts, struct memest_counts *c)
{
    const struct topo_custom *t = cfg;
    c->switches = (double)t->n_nodes - hosts;
    c->links = t->n_links;
    c->columns = hosts;
}

static void custom_host_rates(const void *cfg, int n_hosts, double *rate)
{
    const struct topo_custom *t = cfg;
    int *host_of = mem_xcalloc((size_t)t->n_nodes, sizeof *host_of, "estimating the memory a run needs");
    for (int i = 0; i < t->n_nodes; i++)
        host_of[i] = -1;
    for (int h = 0; h < n_hosts; h++) {
        rate[h] = 0;
        host_of[t->host_node[h]] = h;
    }
    for (int i = 0; i < t->n_links; i++) {
        const struct topo_custom_link *c = &t->links[i];
        int ends[2] = {c->a, c->b};
        for (int j = 0; j < 2; j++)
            if (ends[j] >= 0 && ends[j] < t->n_nodes && host_of[ends[j]] >= 0 && rate[host_of[ends[j]]] == 0)
                rate[host_of[ends[j]]] = (double)c->link.rate_bps;
    }
    free(host_of);
}

static int custom_host_node(const void *cfg, int i)
{
    return ((const struct topo_custom *)cfg)->host_node[i];
}

static const char *custom_node_name(const void *cfg, int i)
{
    return ((const struct topo_custom *)cfg)->nodes[i].name;
}

static bool custom_linked(const void *cfg, int a, int b)
{
    const struct topo_custom *t = cfg;
    for (int i = 0; i < t->n_links; i++)
        if ((t->links[i].a == a && t->links[i].b == b) || (t->links[i].a == b && t->links[i].b == a))
            return true;
    return false;
}

static void custom_names_hint(const void *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "topology.nodes");
}

/* Returns SCN_OK or SCN_EUSAGE. */
static int custom_build(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen)
{
    const struct topo_custom *t = cfg;
    char path[64];
    if (t->n_nodes < 1 || !t->nodes)
        return topo_fail(s, err, errlen, "topology.nodes", "expected a non-empty array of nodes");
    for (int i = 0; i < t->n_nodes; i++) {
        const char *name = t->nodes[i].name;
        int32_t dup = graph_find(g, name);
        if (dup >= 0) {
            snprintf(path, sizeof path, "topology.nodes.%d.name", i);
            return topo_fail(s, err, errlen, path, "expected a unique node name, got \"%s\" (already topology.nodes.%d)",
                        name, dup);
        }
        graph_add_node(g, name, t->nodes[i].kind);
    }
    int *degree = calloc((size_t)t->n_nodes, sizeof *degree);
    if (!degree)
        return topo_fail(s, err, errlen, "topology", "out of memory");
    int rc = SCN_OK;
    for (int i = 0; i < t->n_links && rc == SCN_OK; i++) {
        const struct topo_custom_link *l = &t->links[i];
        snprintf(path, sizeof path, "topology.links.%d", i);
        if (l->a < 0 || l->a >= t->n_nodes || l->b < 0 || l->b >= t->n_nodes)
            rc = topo_fail(s, err, errlen, path, "expected two nodes of topology.nodes, got node indices %d and %d",
                      l->a, l->b);
        else if (l->a == l->b)
            rc = topo_fail(s, err, errlen, path, "expected two different nodes, got \"%s\" at both ends",
                      t->nodes[l->a].name);
        else {
            degree[l->a]++;
            degree[l->b]++;
            graph_add_link(g, (uint32_t)l->a, (uint32_t)l->b, &l->link);
        }
    }
    /* A NIC has one port: a host with two links would need multipath the host models do not have. */
    for (int i = 0; i < t->n_nodes && rc == SCN_OK; i++) {
        if (t->nodes[i].kind == SCN_NODE_HOST && degree[i] != 1) {
            snprintf(path, sizeof path, "topology.nodes.%d", i);
            rc = topo_fail(s, err, errlen, path, "host \"%s\" must have exactly one link, has %d", t->nodes[i].name,
                      degree[i]);
        }
    }
    free(degree);
    if (rc == SCN_OK && g->n_hosts == 0)
        rc = topo_fail(s, err, errlen, "topology.nodes", "expected at least one node of kind \"host\", got none");
    return rc;
}

static const struct topo_ops custom_ops = {
    .load = {.cfg_size = sizeof(struct topo_custom), .parse = custom_parse, .dump = custom_dump,
             .release = custom_release, .size = custom_size, .host_rates = custom_host_rates,
             .host_node = custom_host_node, .node_index = custom_node_index, .node_name = custom_node_name,
             .linked = custom_linked, .names_hint = custom_names_hint},
    .build = custom_build,
    .layout = TOPO_LAYOUT_FREE,
};
MODULE_REGISTER(topo_kind, "custom", &custom_ops);
