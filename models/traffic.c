/* traffic — flows from the scenario's traffic entries (see traffic.h). */
#include "models/traffic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *keep_name(struct traffic *t, const char *fmt, const char *a, int j)
{
    if (t->n_names == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        char **nn = realloc(t->names, t->cap * sizeof *nn);
        if (!nn) {
            fprintf(stderr, "rocesim: out of memory naming flows\n");
            abort();
        }
        t->names = nn;
    }
    char buf[2 * SCN_NAME_MAX];
    snprintf(buf, sizeof buf, fmt, a, j);
    char *s = strdup(buf);
    if (!s) {
        fprintf(stderr, "rocesim: out of memory naming flows\n");
        abort();
    }
    t->names[t->n_names++] = s;
    return s;
}

/* Resolves a pinned path into node ids; checks that consecutive nodes are linked. */
static int resolve_path(struct net *n, int ti, const struct scn_traffic *e, uint32_t *nodes, char *err,
                        size_t errlen)
{
    const struct scenario *scn = n->scn;
    for (int i = 0; i < e->path_len; i++) {
        int32_t id = graph_find(n->g, e->path[i]);
        if (id < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: expected a node name, got \"%s\" (no such node)",
                     scn->file, ti, i, e->path[i]);
            return SCN_EUSAGE;
        }
        nodes[i] = (uint32_t)id;
        if (i > 0 && graph_port_to(n->g, nodes[i - 1], nodes[i]) < 0) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: \"%s\" and \"%s\" are not linked", scn->file, ti, i,
                     e->path[i - 1], e->path[i]);
            return SCN_EUSAGE;
        }
        if (i > 0 && i + 1 < e->path_len && n->g->nodes[id].kind == NODE_HOST) {
            snprintf(err, errlen, "%s: traffic.%d.path.%d: host \"%s\" cannot forward traffic", scn->file, ti, i,
                     e->path[i]);
            return SCN_EUSAGE;
        }
    }
    if (nodes[0] != n->g->host_node[e->src] || nodes[e->path_len - 1] != n->g->host_node[e->dst]) {
        snprintf(err, errlen, "%s: traffic.%d.path: must start at the flow's src and end at its dst", scn->file, ti);
        return SCN_EUSAGE;
    }
    if (e->path_len > 255) {
        snprintf(err, errlen, "%s: traffic.%d.path: at most 255 nodes, got %d", scn->file, ti, e->path_len);
        return SCN_EUSAGE;
    }
    return 0;
}

int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    memset(t, 0, sizeof *t);
    for (int ti = 0; ti < scn->n_traffic; ti++) {
        const struct scn_traffic *e = &scn->traffic[ti];
        switch (e->type) {
        case TR_FLOW: {
            uint32_t *nodes = NULL;
            if (e->path_len) {
                nodes = calloc((size_t)e->path_len, sizeof *nodes);
                if (!nodes)
                    abort();
                int rc = resolve_path(n, ti, e, nodes, err, errlen);
                if (rc) {
                    free(nodes);
                    return rc;
                }
            }
            net_add_flow(n, keep_name(t, "%s", e->id, 0), (uint32_t)e->src, (uint32_t)e->dst, e->size, e->start_ps,
                         e->priority, e->rate_bps, nodes, e->path_len);
            free(nodes);
            break;
        }
        case TR_INCAST:
            for (int j = 0; j < e->senders.n; j++)
                net_add_flow(n, keep_name(t, "%s.%d", e->id, j), (uint32_t)e->senders.idx[j], (uint32_t)e->receiver,
                             e->size, e->start_ps, e->priority, 0, NULL, 0);
            break;
        default:
            snprintf(err, errlen, "%s: traffic.%d.type: \"%s\" traffic is not implemented yet", scn->file, ti,
                     scn_traffic_type_name(e->type));
            return SCN_EUSAGE;
        }
    }
    return 0;
}

void traffic_free(struct traffic *t)
{
    for (uint32_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    memset(t, 0, sizeof *t);
}
