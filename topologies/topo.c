/*
 * topo — the kind "topology" (see topo.h): the registry's checks on a topology module, the build that runs
 * the chosen module and then routes and checks its graph, the helpers the modules' builds share, and the
 * graph's dot/JSON printers.  The shapes are in their own files (star.c, dumbbell.c, leaf_spine.c,
 * fat_tree.c, dragonfly.c, rail.c, custom.c).
 */
#include "topologies/topo.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/units.h"
#include "topologies/routing.h"

static const char *topo_missing(const struct module *m)
{
    const struct topo_ops *o = m->ops;
    const struct scn_topo_hooks *h = &o->load;
    if (!h->cfg_size || !h->parse || !h->dump || !h->size || !h->host_rates)
        return "a loader's part (cfg_size, parse, dump, size and host_rates hooks)";
    if (!o->build)
        return "a build hook";
    /* Listed names come as a set: the loader needs every one of them to check a path or a fault. */
    if (!h->node_index != !h->node_name || !h->node_index != !h->host_node || !h->node_index != !h->linked ||
        !h->node_index != !h->names_hint)
        return "all five of host_node, node_index, node_name, linked and names_hint, or none";
    return NULL;
}

/* No default: a scenario must say its topology.  Star is numbered 0 so that a zeroed scenario holds a shape
 * the loader's own example names. */
const struct module_kind topo_kind = {.name = "topology", .dflt = "star", .missing = topo_missing};

const struct topo_ops *topo_ops_of(const struct scenario *s)
{
    const struct module *m = module_at(topo_kind.name, s->topo.type);
    return m ? m->ops : NULL;
}

void topo_label(const struct scenario *s, char *buf, size_t len)
{
    const struct topo_ops *o = topo_ops_of(s);
    if (o && o->label && s->topo.cfg)
        o->label(s->topo.cfg, buf, len);
    else
        snprintf(buf, len, "%s with %d hosts", scn_topo_name(s), s->topo.n_hosts);
}

const char *topo_layout_name(const struct scenario *s)
{
    static const char *const names[] = {[TOPO_LAYOUT_FREE] = "free", [TOPO_LAYOUT_TIERS] = "tiers",
                                        [TOPO_LAYOUT_GROUPS] = "groups"};
    const struct topo_ops *o = topo_ops_of(s);
    return names[o ? o->layout : TOPO_LAYOUT_FREE];
}

int topo_fail(const struct scenario *s, char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char msg[SCN_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen)
        snprintf(err, errlen, "%s: %s: %s", s->file, path, msg);
    return SCN_EUSAGE;
}
#define fail topo_fail

const struct scn_link *topo_link_or(const struct scn_link *l, const struct scn_link *fallback)
{
    return l->rate_bps > 0 ? l : fallback;
}

uint32_t topo_add_named(struct graph *g, const char *prefix, long long i, enum scn_node_kind kind)
{
    char name[SCN_NAME_MAX];
    snprintf(name, sizeof name, "%s%lld", prefix, i);
    return graph_add_node(g, name, kind);
}

uint32_t topo_add_hosts(struct graph *g, int n)
{
    uint32_t first = g->n_nodes;
    for (int i = 0; i < n; i++)
        topo_add_named(g, "h", i, SCN_NODE_HOST);
    return first;
}

int topo_need(const struct scenario *s, char *err, size_t errlen, const char *field, int v, int min)
{
    if (v >= min)
        return SCN_OK;
    char path[64];
    snprintf(path, sizeof path, "topology.%s", field);
    return fail(s, err, errlen, path, "expected an integer >= %d, got %d", min, v);
}

bool topo_name_num(const char **p, long long lim, long long *v)
{
    const char *s = *p;
    long long x = 0;
    int n = 0;
    while (s[n] >= '0' && s[n] <= '9' && n < 10)
        x = x * 10 + (s[n++] - '0');
    if (n == 0 || n == 10 || (s[0] == '0' && n > 1) || x >= lim)
        return false;
    *v = x;
    *p = s + n;
    return true;
}

int topo_name_table(struct setting_ctx *c, const void *t, long long n, topo_name_fn *name, char **names,
                    uint32_t **name_at)
{
    char buf[SCN_NAME_MAX];
    size_t bytes = 0;
    for (long long i = 0; i < n; i++) {
        name(t, i, buf, sizeof buf);
        bytes += strlen(buf) + 1;
    }
    if (!(*name_at = malloc((size_t)n * sizeof **name_at)) || !(*names = malloc(bytes)))
        return setting_oom(c);
    size_t at = 0;
    for (long long i = 0; i < n; i++) {
        (*name_at)[i] = (uint32_t)at;
        name(t, i, *names + at, bytes - at);
        at += strlen(*names + at) + 1;
    }
    return 0;
}

int topo_check_size(const struct scenario *s, char *err, size_t errlen, long long nodes)
{
    if (nodes <= TOPO_MAX_NODES)
        return SCN_OK;
    return fail(s, err, errlen, "topology", "expected at most %lld nodes, this shape has %lld", TOPO_MAX_NODES, nodes);
}

/*
 * Checks the finished, routed graph: every host reaches every other.  Returns
 * SCN_OK, or SCN_EUSAGE naming the first pair that cannot.
 */
static int check_connected(const struct scenario *s, const struct graph *g, char *err, size_t errlen)
{
    const uint32_t H = g->n_hosts;
    const uint16_t *p;
    for (uint32_t a = 0; a < H; a++) {
        for (uint32_t b = 0; b < H; b++)
            if (b != a && graph_nexthops(g, g->host_node[a], b, &p) == 0)
                return fail(s, err, errlen, "topology", "host \"%s\" cannot reach host \"%s\" (the network is "
                            "disconnected)", g->nodes[g->host_node[a]].name, g->nodes[g->host_node[b]].name);
    }
    return SCN_OK;
}

int topo_build(const struct scenario *s, struct graph *g, char *err, size_t errlen)
{
    graph_init(g);
    const struct topo_ops *o = topo_ops_of(s);
    int rc = o && s->topo.cfg ? o->build(s, s->topo.cfg, g, err, errlen)
                              : fail(s, err, errlen, "topology.type", "unknown topology type %d", s->topo.type);
    if (rc != SCN_OK)
        goto out;

    if (graph_finish(g) < 0) {
        rc = fail(s, err, errlen, "topology", "out of memory laying out %u links", g->n_links);
        goto out;
    }
    /* Port sets are uint16: a wider switch cannot be routed (and is no realistic switch). */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].n_ports > UINT16_MAX) {
            rc = fail(s, err, errlen, "topology", "node \"%s\" has %u ports, more than the %u supported",
                      g->nodes[i].name, g->nodes[i].n_ports, (unsigned)UINT16_MAX);
            goto out;
        }
    }
    unsigned long long table = (unsigned long long)g->n_nodes * routing_columns(g) * sizeof(uint32_t);
    if (table > TOPO_MAX_TABLE_BYTES) {
        rc = fail(s, err, errlen, "topology", "routing tables for %u nodes x %u destination switches would take "
                  "%llu MB, more than the %llu MB allowed", g->n_nodes, routing_columns(g), table >> 20,
                  TOPO_MAX_TABLE_BYTES >> 20);
        goto out;
    }
    if (routing_compute(g) < 0) {
        rc = fail(s, err, errlen, "topology", "out of memory computing routing tables (%llu MB), or their distinct "
                  "next-hop sets past 16 M words", table >> 20);
        goto out;
    }
    rc = check_connected(s, g, err, errlen);
out:
    if (rc != SCN_OK)
        graph_free(g);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Printers                                                                  */

/* Prints s as a double-quoted string, escaping what JSON (and dot) require. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void topo_write_dot(FILE *f, const struct graph *g)
{
    char rate[32], delay[32];
    fprintf(f, "graph topology {\n");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        fputs("    ", f);
        put_quoted(f, g->nodes[i].name);
        fprintf(f, " [shape=%s];\n", g->nodes[i].kind == SCN_NODE_HOST ? "ellipse" : "box");
    }
    for (uint32_t i = 0; i < g->n_links; i++) {
        const struct g_link *l = &g->links[i];
        fputs("    ", f);
        put_quoted(f, g->nodes[l->a].name);
        fputs(" -- ", f);
        put_quoted(f, g->nodes[l->b].name);
        fprintf(f, " [label=\"%s, %s\"%s];\n", units_fmt_rate(l->spec.rate_bps, rate, sizeof rate),
                units_fmt_time(l->spec.delay_ps, delay, sizeof delay), l->down ? ", style=dashed" : "");
    }
    fprintf(f, "}\n");
}

void topo_write_json(FILE *f, const struct graph *g) { topo_write_json_more(f, g, NULL); }

void topo_write_json_more(FILE *f, const struct graph *g, const char *more)
{
    char buf[32];
    fprintf(f, "{\n  \"nodes\": [");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct g_node *n = &g->nodes[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        put_quoted(f, n->name);
        if (n->kind == SCN_NODE_HOST)
            fprintf(f, ", \"kind\": \"host\", \"host\": %d", n->host);
        else
            fprintf(f, ", \"kind\": \"switch\", \"switch\": %d", n->sw);
        if (n->group >= 0)
            fprintf(f, ", \"group\": %d", n->group);
        fprintf(f, ", \"ports\": %u}", n->n_ports);
    }
    fprintf(f, "%s],\n  \"links\": [", g->n_nodes ? "\n  " : "");
    for (uint32_t i = 0; i < g->n_links; i++) {
        const struct g_link *l = &g->links[i];
        fprintf(f, "%s\n    {\"a\": ", i ? "," : "");
        put_quoted(f, g->nodes[l->a].name);
        fputs(", \"b\": ", f);
        put_quoted(f, g->nodes[l->b].name);
        if (g->ports)
            fprintf(f, ", \"a_port\": %u, \"b_port\": %u", l->port_a - g->nodes[l->a].first_port,
                    l->port_b - g->nodes[l->b].first_port);
        fprintf(f, ", \"rate\": \"%s\"", units_fmt_rate(l->spec.rate_bps, buf, sizeof buf));
        fprintf(f, ", \"delay\": \"%s\"", units_fmt_time(l->spec.delay_ps, buf, sizeof buf));
        if (l->spec.length_mm)
            fprintf(f, ", \"length\": \"%s\"", units_fmt_length(l->spec.length_mm, buf, sizeof buf));
        if (l->down)
            fputs(", \"down\": true", f);
        fputc('}', f);
    }
    fprintf(f, "%s]%s%s\n}\n", g->n_links ? "\n  " : "", more ? ",\n  " : "", more ? more : "");
}
