/*
 * sm — the kind of the subnet manager's routing engines (sm.h), and the engines over minimum-hop paths:
 *
 * - minhop (OpenSM's default): for each destination, each switch takes, among its ports on a minimum-hop path,
 *   the one that carries the fewest destinations so far (OpenSM's balancing by port load; the first of equal
 *   ones).  Destinations are taken in column order and nodes in id order, so the tables are deterministic.
 * - lash: one minimum-hop path per pair (the lowest-numbered port), then layers (sm_layers.c): the pairs are
 *   placed on the first layer where their channel dependencies stay acyclic (Skeie et al., IPDPS 2002).
 * - dfsssp: minhop's balanced paths, then the same layering.  OpenSM's DFSSSP balances with edge weights and may
 *   take longer paths (Domke et al., IPDPS 2011); here the paths stay minimal.
 *
 * A destination is a host (its LID): the tables get a column per host (graph.routes_per_host), so that minhop
 * spreads the hosts behind one switch over the ports towards it, as OpenSM does.
 */
#include "topologies/sm.h"
#include "topologies/routing.h"
#include "topologies/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sm_missing(const struct module *m)
{
    const struct sm_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (sm_ops.name)";
    return o->route ? NULL : "a route hook";
}

const struct module_kind sm_kind = {.name = "sm", .dflt = "minhop", .missing = sm_missing};

int sm_tables_init(const struct graph *g, struct sm_tables *t)
{
    const struct g_routes *r = &g->routes;
    t->n_nodes = g->n_nodes;
    t->n_cols = r->n_cols;
    t->port = malloc((size_t)t->n_nodes * t->n_cols * sizeof *t->port + 1);
    t->load = calloc((size_t)g->n_ports + 1, sizeof *t->load);
    t->root = malloc((size_t)t->n_cols * sizeof *t->root + 1);
    if (!t->port || !t->load || !t->root) {
        sm_tables_free(t);
        return -1;
    }
    memset(t->port, 0xff, (size_t)t->n_nodes * t->n_cols * sizeof *t->port);
    for (uint32_t h = 0; h < r->n_hosts; h++)
        t->root[r->col[h]] = r->attach[h] == UINT32_MAX ? g->host_node[h] : r->attach[h];
    return 0;
}

void sm_tables_free(struct sm_tables *t)
{
    free(t->port);
    free(t->load);
    free(t->root);
    t->port = NULL;
    t->load = t->root = NULL;
}

uint16_t sm_least_loaded(const struct graph *g, struct sm_tables *t, uint32_t x, const uint16_t *ports, uint32_t n)
{
    uint32_t first = g->nodes[x].first_port, best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (t->load[first + ports[i]] < t->load[first + ports[best]])
            best = i;
    t->load[first + ports[best]]++;
    return ports[best];
}

/* One port per (node, column) from the minimum-hop sets routing_compute made: the least loaded, or the first. */
static void minimal(struct graph *g, struct sm_tables *t, int balanced)
{
    for (uint32_t c = 0; c < t->n_cols; c++)
        for (uint32_t x = 0; x < g->n_nodes; x++) {
            if (x == t->root[c])
                continue;
            uint32_t e = g->routes.table[(uint64_t)g->routes.row_of[x] * t->n_cols + c];
            if (e == UINT32_MAX)
                continue;
            const uint16_t *ports;
            uint32_t n = graph_nh_set(&g->routes, e, &ports);
            t->port[(uint64_t)x * t->n_cols + c] = balanced ? sm_least_loaded(g, t, x, ports, n) : ports[0];
        }
}

static int route_minimal(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen,
                         int balanced, const char *layered_as)
{
    struct sm_tables t;
    if (sm_tables_init(g, &t) < 0)
        return snprintf(err, errlen, "out of memory computing the forwarding tables"), -1;
    minimal(g, &t, balanced);
    int rc = 0;
    if (layered_as) {
        char pair[256];
        rc = sm_assign_layers(g, &t, max_layers, layers, layered_as, pair, sizeof pair);
        if (rc > 0)
            snprintf(err, errlen, "expected %s's paths to fit the %d VLs of ib.vls free of credit loops, got %s, "
                     "which need another: raise ib.vls or choose updn", layered_as, max_layers, pair);
        else if (rc < 0)
            snprintf(err, errlen, "%s", pair);
        rc = rc ? -1 : 0;
    }
    if (rc == 0 && routing_install(g, t.port) < 0)
        rc = -1, snprintf(err, errlen, "out of memory installing the forwarding tables");
    sm_tables_free(&t);
    return rc;
}

static int minhop_route(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    return route_minimal(g, max_layers, layers, err, errlen, 1, NULL);
}

static int lash_route(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    return route_minimal(g, max_layers, layers, err, errlen, 0, "lash");
}

static int dfsssp_route(struct graph *g, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    return route_minimal(g, max_layers, layers, err, errlen, 1, "dfsssp");
}

static const struct sm_ops minhop_ops = {.name = "minhop", .route = minhop_route};
static const struct sm_ops lash_ops = {.name = "lash", .route = lash_route};
static const struct sm_ops dfsssp_ops = {.name = "dfsssp", .route = dfsssp_route};
MODULE_REGISTER(sm_kind, "minhop", &minhop_ops);
MODULE_REGISTER(sm_kind, "lash", &lash_ops);
MODULE_REGISTER(sm_kind, "dfsssp", &dfsssp_ops);

int sm_route(struct graph *g, int engine, int max_layers, struct sm_layers *layers, char *err, size_t errlen)
{
    const struct module *m = module_at(sm_kind.name, engine);
    /* A subnet manager routes each destination (LID) on its own: a column per host, and the shortest paths to
     * each, before the engine picks among them. */
    unsigned long long bytes = (unsigned long long)g->n_nodes * g->n_hosts * sizeof(uint32_t);
    if (bytes > TOPO_MAX_TABLE_BYTES) {
        snprintf(err, errlen, "expected forwarding tables of at most %llu MB (a port per node and destination host), "
                 "got %u nodes x %u hosts: %llu MB", TOPO_MAX_TABLE_BYTES >> 20, g->n_nodes, g->n_hosts, bytes >> 20);
        return -1;
    }
    if (!g->routes_per_host || g->routes.n_cols != g->n_hosts) {
        g->routes_per_host = true;
        if (routing_compute(g) < 0) {
            snprintf(err, errlen, "out of memory computing the forwarding tables");
            return -1;
        }
    }
    sm_layers_free(layers);
    layers->n_layers = 1;
    layers->engine = m->name;
    return ((const struct sm_ops *)m->ops)->route(g, max_layers, layers, err, errlen);
}

void sm_write_json(FILE *f, const struct graph *g, const struct sm_layers *layers)
{
    fprintf(f, "\"forwarding\": {\"engine\": \"%s\", \"tables\": {", layers->engine ? layers->engine : "");
    int first = 1;
    for (uint32_t x = 0; x < g->n_nodes; x++) {
        if (g->nodes[x].kind != SCN_NODE_SWITCH)
            continue;
        fprintf(f, "%s\n    \"%s\": {", first ? "" : ",", g->nodes[x].name);
        first = 0;
        for (uint32_t h = 0, k = 0; h < g->n_hosts; h++) {
            const uint16_t *ports;
            if (graph_nexthops(g, x, h, &ports) == 1)
                fprintf(f, "%s\"%s\": %u", k++ ? ", " : "", g->nodes[g->host_node[h]].name, ports[0]);
        }
        fputc('}', f);
    }
    fputs("\n  }", f);
    if (layers->layer) {
        fputs(", \"vl\": {", f);
        uint32_t *root = malloc((size_t)layers->n_cols * sizeof *root + 1);
        for (uint32_t h = 0; root && h < g->n_hosts; h++)
            root[g->routes.col[h]] = g->routes.attach[h] == UINT32_MAX ? g->host_node[h] : g->routes.attach[h];
        for (uint32_t a = 0; root && a < layers->n_cols; a++) {
            fprintf(f, "%s\n    \"%s\": {", a ? "," : "", g->nodes[root[a]].name);
            for (uint32_t b = 0; b < layers->n_cols; b++)
                fprintf(f, "%s\"%s\": %u", b ? ", " : "", g->nodes[root[b]].name,
                        layers->layer[(size_t)a * layers->n_cols + b]);
            fputc('}', f);
        }
        free(root);
        fputs("\n  }", f);
    }
    fputc('}', f);
}

int sm_credit_loop(const struct graph *g, char *why, size_t len)
{
    struct sm_tables t;
    struct sm_layers one = {0};
    if (sm_tables_init(g, &t) < 0)
        return -1;
    for (uint32_t x = 0; x < g->n_nodes; x++)
        for (uint32_t h = 0; h < g->n_hosts; h++) {
            const uint16_t *ports;
            if (x != t.root[g->routes.col[h]] && graph_nexthops(g, x, h, &ports) >= 1)
                t.port[(uint64_t)x * t.n_cols + g->routes.col[h]] = ports[0];
        }
    int loop = sm_assign_layers(g, &t, 1, &one, "the tables", why, len);
    sm_layers_free(&one);
    sm_tables_free(&t);
    return loop;
}
