/*
 * steps — the places of a collective's steps that their collective summarizes (monitor.step_flows false,
 * net_options.step_summary): a step's place is left when nothing of the step is in the network, and the next
 * step made takes it (net_make_step, flows.c).  Apart from the table of flows because the NIC tells it of each
 * end's frames, and the table's making of flows depends on routing, which depends on the NIC.
 *
 * Nothing of a step is left when both ends are done and every frame either end sent has reached the other end
 * (flow.data_tx = data_rx, ctl_tx = ctl_rx): the sender sends no more once it is done, and the receiver sends only
 * in answer to data.  Both ends run on one thread where places are reused (net.recycle), so the NIC's event at
 * either end reads the other end's counts as they stand.  A frame lost on the way leaves the counts apart, and its
 * step keeps its place to the end of the run: memory, never a frame of one step taken for another's.
 */
#include "models/mech.h"
#include "models/net.h"
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>

uint32_t net_step_take(struct net *n)
{
    uint32_t idx = n->n_step_free ? n->step_free[--n->n_step_free] : UINT32_MAX;
    n->steps_made++;
    if (++n->steps_live > n->steps_live_peak)
        n->steps_live_peak = n->steps_live;
    return idx;
}

void net_step_end(struct net *n, struct flow *f)
{
    if (!n->recycle || f->step != 1 || !f->sender_done || f->finish < 0 || f->failed || f->data_tx != f->data_rx ||
        f->ctl_tx != f->ctl_rx)
        return;
    if (f->in_ready || f->pace_timer.armed || f->rto_timer.armed || f->cc_timer.armed) {
        fprintf(stderr, "rocesim: bug: step %u left its place with a timer armed or on a ready list\n", f->id);
        abort();
    }
    f->step = 2; /* left: a summarized step still, until a new one takes the place */
    if (n->n_step_free == n->step_free_cap) {
        n->step_free_cap = n->step_free_cap ? 2 * n->step_free_cap : 256;
        n->step_free = mem_xrealloc(n->step_free, n->step_free_cap * sizeof *n->step_free, "reusing flow places");
    }
    n->step_free[n->n_step_free++] = f->idx;
    n->steps_live--;
}

static void steps_free(struct net *n)
{
    free(n->step_free);
    n->step_free = NULL;
    n->n_step_free = n->step_free_cap = 0;
}

static const struct net_mech_ops steps_mech = {.name = "steps", .order = 101, .free = steps_free};
NET_MECH(steps_mech)
