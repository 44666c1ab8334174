/* fault — link_down faults: resolution, failure and recovery of links (see fault.h). */
#include "models/fault.h"

#include <stdio.h>
#include <stdlib.h>

#include "topologies/routing.h"

/* Node ids travel in the event argument: a in the high half, b in the low. */
static uint64_t pack(uint32_t a, uint32_t b) { return (uint64_t)a << 32 | b; }

/* Recomputes the routing tables after links changed state; out of memory mid-run is fatal. */
static void reroute(struct net *n)
{
    if (routing_compute(n->g) < 0) {
        fprintf(stderr, "rocesim: out of memory recomputing the routing tables after a link_down fault\n");
        abort();
    }
    n->reroutes++;
}

/*
 * Takes every link between the two nodes packed in arg down (fail = true) or
 * brings it back (one level of nesting per fault), then reroutes when a link
 * changed state.  An event handler: no return value.
 */
static void link_change(struct net *n, uint64_t arg, bool fail)
{
    struct graph *g = n->g;
    uint32_t a = (uint32_t)(arg >> 32), b = (uint32_t)arg;
    const struct g_node *na = &g->nodes[a];
    bool changed = false;
    for (uint32_t pid = na->first_port; pid < na->first_port + na->n_ports; pid++) {
        if (g->ports[g->ports[pid].peer].node != b)
            continue;
        struct port *p = &n->ports[pid], *q = p->peer;
        struct g_link *l = &g->links[g->ports[pid].link];
        if (fail) {
            p->down++;
            q->down++;
            if (p->down > 1)
                continue;
            /* Both ends are down before either is flushed: a RESUME the flush triggers must not go out on the link. */
            port_link_fail(p);
            port_link_fail(q);
            l->down = true;
            n->links_down_now++;
            n->link_failures++;
        } else {
            p->down--;
            q->down--;
            if (p->down > 0)
                continue;
            l->down = false;
            n->links_down_now--;
        }
        changed = true;
    }
    if (!changed)
        return;
    reroute(n);
    if (!fail) {
        /* The link's ports may hold frames queued while it was down (a host's ACKs): start them. */
        for (uint32_t pid = na->first_port; pid < na->first_port + na->n_ports; pid++) {
            if (g->ports[g->ports[pid].peer].node == b) {
                port_kick(&n->ports[pid]);
                port_kick(n->ports[pid].peer);
            }
        }
    }
}

static void link_fail_event(struct sim *s, void *obj, uint64_t arg) { link_change(obj, arg, true); }

static void link_restore_event(struct sim *s, void *obj, uint64_t arg) { link_change(obj, arg, false); }

int faults_setup(struct net *n, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    uint32_t *ends = calloc((size_t)scn->n_faults * 2 + 1, sizeof *ends);
    if (!ends) {
        snprintf(err, errlen, "%s: faults: out of memory", scn->file);
        return SCN_EUSAGE;
    }
    /* Resolve everything first, so that a bad fault schedules nothing. */
    for (int i = 0; i < scn->n_faults; i++) {
        const struct scn_fault *f = &scn->faults[i];
        if (f->type != FAULT_LINK_DOWN) {
            snprintf(err, errlen, "%s: faults.%d.type: \"%s\" faults are not implemented yet", scn->file, i,
                     f->type == FAULT_PAUSE_STORM ? "pause_storm" : "slow_receiver");
            free(ends);
            return SCN_EUSAGE;
        }
        for (int k = 0; k < 2; k++) {
            int32_t id = graph_find(n->g, f->between[k]);
            if (id < 0) {
                snprintf(err, errlen, "%s: faults.%d.between.%d: expected a node name, got \"%s\" (no such node)",
                         scn->file, i, k, f->between[k]);
                free(ends);
                return SCN_EUSAGE;
            }
            ends[2 * i + k] = (uint32_t)id;
        }
        if (graph_port_to(n->g, ends[2 * i], ends[2 * i + 1]) < 0) {
            snprintf(err, errlen,
                     "%s: faults.%d.between: expected two linked nodes, got \"%s\" and \"%s\" (no link between them)",
                     scn->file, i, f->between[0], f->between[1]);
            free(ends);
            return SCN_EUSAGE;
        }
    }
    for (int i = 0; i < scn->n_faults; i++) {
        const struct scn_fault *f = &scn->faults[i];
        if (f->type != FAULT_LINK_DOWN)
            continue;
        uint64_t arg = pack(ends[2 * i], ends[2 * i + 1]);
        sim_at(n->sim, f->start_ps, link_fail_event, n, arg);
        if (f->end_ps >= 0)
            sim_at(n->sim, f->end_ps, link_restore_event, n, arg);
    }
    free(ends);
    return 0;
}
