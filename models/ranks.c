/* ranks — a run event's part for one node when the partitions run in several processes (see ranks.h). */
#include "models/ranks.h"

bool ranks_enter(struct net *n, uint32_t node, struct ranks_entry *e)
{
    e->was = NULL;
    struct sim_par *P = n->sim->par;
    if (!P || !P->comm)
        return true;
    n->enter_sub++; /* in every process alike: the notes of the nodes' parts are told in the order they ran */
    uint32_t i = P->ent_part[net_ent(node)];
    if (!sim_par_mine(P, i))
        return false;
    struct sim *G = P->global, *ps = &P->parts[i];
    *e = (struct ranks_entry){sim_cur, ps, ps->now, ps->cur_seq, ps->cur_ent};
    ps->now = G->now;
    ps->cur_seq = G->cur_seq;
    ps->cur_ent = SIM_ENT_GLOBAL; /* what it schedules, the run's event schedules */
    ps->ent_seq[SIM_ENT_GLOBAL] = G->ent_seq[SIM_ENT_GLOBAL]; /* in the run's numbering (sim/parallel.c) */
    sim_enter(ps);
    return true;
}

void ranks_leave(struct net *n, struct ranks_entry *e)
{
    if (!e->was)
        return;
    struct sim *ps = e->part;
    ps->par->global->ent_seq[SIM_ENT_GLOBAL] = ps->ent_seq[SIM_ENT_GLOBAL];
    ps->now = e->now;
    ps->cur_seq = e->cur_seq;
    ps->cur_ent = e->cur_ent;
    sim_par_touch(n->sim->par, ps->part);
    sim_enter(e->was);
    e->was = NULL;
}
