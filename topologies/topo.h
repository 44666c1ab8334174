/*
 * topo — the kind "topology" (sim/module.h): a topology is a module, one file under topologies/ that fills a
 * struct topo_ops and registers it with MODULE_REGISTER(topo_kind, "name", &ops).  The kind builds the chosen
 * module's graph, computes its routing tables, checks the result, and prints it for `rocesim topo`.
 *
 * What every generated graph shares (the modules' own files say the rest of their numbering):
 * - Nodes: the hosts first, h0..h{n-1} (so a host's node id is its host index), then the switches tier by
 *   tier.  A topology that lists its nodes (custom) keeps their order.
 * - Links, hence port numbers (a node's ports follow the order its links were added): host links first, in
 *   host order, then the fabric tier by tier from the bottom, ordered by lower switch then upper switch.
 * - Topologies with tiers take host_link and fabric_link (or their own classes), each falling back to `link`
 *   when its rate is 0.
 */
#ifndef TOPOLOGIES_TOPO_H
#define TOPOLOGIES_TOPO_H

#include <stddef.h>
#include <stdio.h>

#include "sim/graph.h"
#include "sim/module.h"
#include "sim/scenario.h"

/* How the live view lays a topology out (tools/live/page.html): in tiers from the hosts up (the tier of a node is
 * its distance from the nearest host), in groups on a circle (g_node.group), or by force. */
enum topo_layout { TOPO_LAYOUT_FREE, TOPO_LAYOUT_TIERS, TOPO_LAYOUT_GROUPS };

/* A topology module's table.  The loader's part (settings, size, names) comes first: sim/ calls it. */
struct topo_ops {
    struct scn_topo_hooks load;
    /* Adds the nodes and links of the shape cfg to g (empty, initialized), in the numbering its file states;
     * SCN_OK, or SCN_EUSAGE with "FILE: topology...: ..." in err (topo_fail) for a shape it cannot build. */
    int (*build)(const struct scenario *s, const void *cfg, struct graph *g, char *err, size_t errlen);
    enum topo_layout layout;
    /* How messages name the network's size ("fat-tree k=200"); NULL: "NAME with N hosts". */
    void (*label)(const void *cfg, char *buf, size_t len);
};

extern const struct module_kind topo_kind;

/* s's topology module's table (s loaded, or set up by a test with a registered type). */
const struct topo_ops *topo_ops_of(const struct scenario *s);
/* How messages name s's network: the module's label, else "NAME with N hosts". */
void topo_label(const struct scenario *s, char *buf, size_t len);
/* "tiers", "groups" or "free": the layout the live view draws s's topology in. */
const char *topo_layout_name(const struct scenario *s);

/* ---- For the modules' build hooks ---- */

/* Generators refuse shapes beyond this many nodes before allocating anything. */
#define TOPO_MAX_NODES (1LL << 24)
/* Writes "FILE: PATH: message" into err.  Returns SCN_EUSAGE. */
int topo_fail(const struct scenario *s, char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Returns l, or fallback when l has no rate (the loader did not fill it). */
const struct scn_link *topo_link_or(const struct scn_link *l, const struct scn_link *fallback);
/* Adds a node named prefix{i}.  Returns its id. */
uint32_t topo_add_named(struct graph *g, const char *prefix, long long i, enum scn_node_kind kind);
/* Adds hosts h0..h{n-1}.  Returns the node id of h0. */
uint32_t topo_add_hosts(struct graph *g, int n);
/* Checks that count `field` (of topology) is at least min.  SCN_OK, or SCN_EUSAGE with a message. */
int topo_need(const struct scenario *s, char *err, size_t errlen, const char *field, int v, int min);
/* Refuses a shape with more than TOPO_MAX_NODES nodes before it is built.  SCN_OK or SCN_EUSAGE. */
int topo_check_size(const struct scenario *s, char *err, size_t errlen, long long nodes);

/* Reads the number at *p (decimal, no leading zero, below lim) into *v and moves *p past it: how the names a
 * topology makes up ("n3.g5", "rail2.leaf0") are read back. */
bool topo_name_num(const char **p, long long lim, long long *v);

/* Node i's name of shape t into buf (false past the last node): a topology's naming function. */
typedef bool topo_name_fn(const void *t, long long i, char *buf, size_t len);
/*
 * Every one of the n nodes' names, written by name, into one allocation (*names, each ending with '\0') and the
 * offset of node i's at (*name_at)[i]: the table a topology whose names are known at load keeps for node_name and
 * the loader's host names.  0, or setting_oom's -1.
 */
int topo_name_table(struct setting_ctx *c, const void *t, long long n, topo_name_fn *name, char **names,
                    uint32_t **name_at);

/* Routing tables larger than this are refused with a usage error instead of exhausting memory. */
#define TOPO_MAX_TABLE_BYTES (4ULL << 30)

/*
 * Builds s->topo into g (which need not be initialized: topo_build starts it
 * afresh) and computes its routes.  Returns SCN_OK, with g to be released by
 * graph_free(); or SCN_EUSAGE with one line "FILE: topology...: ..." in err
 * (a bad shape, a custom host without exactly one link,
 * a pair of hosts that cannot reach each other, or tables too large to hold),
 * and g left empty.
 */
int topo_build(const struct scenario *s, struct graph *g, char *err, size_t errlen);

/* Prints g as a Graphviz undirected graph: hosts as ellipses, switches as boxes, links labelled "rate, delay". */
void topo_write_dot(FILE *f, const struct graph *g);

/*
 * Prints g as JSON: {"nodes": [{"name", "kind", "host" | "switch"[, "group"], "ports"}],
 * "links": [{"a", "b", "a_port", "b_port", "rate", "delay"[, "length"][, "down"]}]}
 * with quantities in the scenario's unit strings ("group": a dragonfly
 * node's group).  Port numbers are local to their node and appear once the
 * graph is finished.
 */
void topo_write_json(FILE *f, const struct graph *g);
/* The same with more members ("\"name\": value", already JSON) after "links"; NULL: none. */
void topo_write_json_more(FILE *f, const struct graph *g, const char *more);

#endif
