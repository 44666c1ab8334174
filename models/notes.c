/*
 * notes — the network's events told to its listeners (pfc.csv, watchdog.csv, credits.csv, flow completions) and a drop's or
 * timeout's news for its flow's sender, in the order a single engine would have them: at once in one partition,
 * else noted with their point of the order and told between windows, merged.  Apart because it is the one
 * place where what partitions did concurrently is put back into one sequence.
 */
#include "models/mech.h"
#include "models/net.h"
#include "sim/mem.h"
#include "sim/parallel.h"

#include <stdlib.h>

/* Notes an event of a partition of a run in several (NET_NOTIFY); returns false when it is to be told now. */
static bool note(struct net *n, struct net_note nt)
{
    struct net_part *np = net_np(n);
    if (np == &n->own || n->n_parts < 2)
        return false; /* the run's own event, between windows, or one partition: told in order as it happens */
    if (np->n_notes == np->cap_notes) {
        np->cap_notes = np->cap_notes ? np->cap_notes * 2 : 64;
        np->notes = mem_xrealloc(np->notes, sizeof *np->notes * np->cap_notes, "noting network events");
    }
    const struct sim *s = sim_cur;
    nt.t = s->now;
    nt.seq = s->cur_seq;
    nt.sub = n->enter_sub;
    np->notes[np->n_notes++] = nt;
    return true;
}

static void tell_pfc(const struct net_listeners *l, sim_time_t t, uint32_t node, uint32_t port, int prio, bool on)
{
    for (unsigned i = 0; i < l->n_pfc; i++)
        l->pfc[i].fn(l->pfc[i].ctx, t, node, port, prio, on);
}

static void tell_wd(const struct net_listeners *l, sim_time_t t, uint32_t node, uint32_t port, int prio, bool on)
{
    for (unsigned i = 0; i < l->n_wd; i++)
        l->wd[i].fn(l->wd[i].ctx, t, node, port, prio, on);
}

static void tell_credit(const struct net_listeners *l, sim_time_t t, uint32_t node, uint32_t port, int vl, bool on)
{
    for (unsigned i = 0; i < l->n_credit; i++)
        l->credit[i].fn(l->credit[i].ctx, t, node, port, vl, on);
}

static void tell_flow(const struct net_listeners *l, const struct flow *f)
{
    for (unsigned i = 0; i < l->n_flow; i++)
        l->flow[i].fn(l->flow[i].ctx, f);
}

void net_fan_pfc(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    if (!note(n, (struct net_note){.kind = NOTE_PFC, .at = t, .node = node, .port = port, .prio = (int8_t)prio,
                                   .on = pause}))
        tell_pfc(&n->listen, t, node, port, prio, pause);
}

void net_fan_wd(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm)
{
    if (!note(n, (struct net_note){.kind = NOTE_WD, .at = t, .node = node, .port = port, .prio = (int8_t)prio,
                                   .on = storm}))
        tell_wd(&n->listen, t, node, port, prio, storm);
}

void net_fan_credit(struct net *n, sim_time_t t, uint32_t node, uint32_t port, int vl, bool stalled)
{
    if (!note(n, (struct net_note){.kind = NOTE_CREDIT, .at = t, .node = node, .port = port, .prio = (int8_t)vl,
                                   .on = stalled}))
        tell_credit(&n->listen, t, node, port, vl, stalled);
}

void net_fan_flow(struct net *n, const struct flow *f)
{
    if (!note(n, (struct net_note){.kind = NOTE_FLOW, .f = f}))
        tell_flow(&n->listen, f);
}

static void apply_lost(struct flow *f, uint32_t hi)
{
    if (hi > f->lost_hi)
        f->lost_hi = hi;
}

/* The timeout's classification; returns whether it was spurious. */
static bool apply_timeout(struct flow *f, uint32_t snd_una)
{
    bool spurious = f->lost_hi <= snd_una;
    f->lost_hi = 0; /* go-back-N resends everything from snd_una: what was lost before is handled */
    return spurious;
}

void net_lost(struct net *n, struct flow *f, uint32_t hi)
{
    if (!note(n, (struct net_note){.kind = NOTE_LOST, .f = f, .node = hi}))
        apply_lost(f, hi);
}

void net_timeout(struct net *n, struct flow *f)
{
    if (!note(n, (struct net_note){.kind = NOTE_RTO, .f = f, .node = f->snd_una}) && apply_timeout(f, f->snd_una))
        net_np(n)->c.spurious_timeouts++;
}

/* Tells the listeners the partitions' notes, merged into the order of the events that made them: after the
 * counts are folded (they may stop the run) and the other processes' notes are in place (exchange.c). */
static void tell_notes(struct net *n)
{
    uint32_t pos[SIM_PAR_MAX] = {0};
    for (;;) {
        const struct net_note *best = NULL;
        uint32_t bi = 0;
        for (uint32_t i = 0; i < n->n_parts; i++) {
            const struct net_part *np = &n->parts[i];
            if (pos[i] == np->n_notes)
                continue;
            const struct net_note *c = &np->notes[pos[i]];
            if (!best || c->t < best->t || (c->t == best->t && (c->seq < best->seq ||
                                                                (c->seq == best->seq && c->sub < best->sub)))) {
                best = c;
                bi = i;
            }
        }
        if (!best)
            break;
        pos[bi]++;
        switch (best->kind) {
        case NOTE_PFC: tell_pfc(&n->listen, best->at, best->node, best->port, best->prio, best->on); break;
        case NOTE_WD: tell_wd(&n->listen, best->at, best->node, best->port, best->prio, best->on); break;
        case NOTE_CREDIT: tell_credit(&n->listen, best->at, best->node, best->port, best->prio, best->on); break;
        case NOTE_LOST: apply_lost((struct flow *)best->f, best->node); break;
        case NOTE_RTO: n->c.spurious_timeouts += apply_timeout((struct flow *)best->f, best->node); break;
        default: tell_flow(&n->listen, best->f); break;
        }
    }
    for (uint32_t i = 0; i < n->n_parts; i++)
        n->parts[i].n_notes = 0;
}

static void notes_free(struct net *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++)
        free(n->parts[i].notes);
}

static const struct net_mech_ops notes_mech = {
    .name = "notes", .order = 50, .between_windows = tell_notes, .free = notes_free};
NET_MECH(notes_mech)
