/* observer — the run's list of observers and the sliced run loop that serves them (see observer.h). */
#include "tools/run/observer.h"
#include "tools/run/limits.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends (fn, ctx) to one kind of the network's listeners; the counts match the run's list, so room is
 * checked there. */
#define LISTEN_ADD(nl, kind, f, c)                                                                                 \
    do {                                                                                                           \
        if (f) {                                                                                                   \
            (nl)->kind[(nl)->n_##kind].fn = (f);                                                                   \
            (nl)->kind[(nl)->n_##kind].ctx = (c);                                                                  \
            (nl)->n_##kind++;                                                                                      \
        }                                                                                                          \
    } while (0)

/* Removes the listeners of context c from one kind, keeping the order of the others. */
#define LISTEN_DEL(nl, kind, c)                                                                                    \
    do {                                                                                                           \
        unsigned k_ = 0;                                                                                           \
        for (unsigned i_ = 0; i_ < (nl)->n_##kind; i_++)                                                           \
            if ((nl)->kind[i_].ctx != (c))                                                                         \
                (nl)->kind[k_++] = (nl)->kind[i_];                                                                 \
        (nl)->n_##kind = (uint8_t)k_;                                                                              \
    } while (0)

void run_observe(struct run *r, const struct run_observer_ops *ops, void *ctx)
{
    if (r->n_obs >= RUN_OBSERVERS_MAX) {
        fprintf(stderr, "rocesim: bug: no room for observer %s (RUN_OBSERVERS_MAX %d)\n", ops->name,
                RUN_OBSERVERS_MAX);
        abort();
    }
    r->obs[r->n_obs++] = (struct run_observer){ops, ctx};
    struct net_listeners *nl = &r->net.listen;
    LISTEN_ADD(nl, pfc, ops->on_pfc, ctx);
    LISTEN_ADD(nl, flow, ops->on_flow_done, ctx);
    LISTEN_ADD(nl, wd, ops->on_watchdog, ctx);
    LISTEN_ADD(nl, credit, ops->on_credit, ctx);
}

void run_unobserve(struct run *r, const void *ctx)
{
    unsigned k = 0;
    for (unsigned i = 0; i < r->n_obs; i++)
        if (r->obs[i].ctx != ctx)
            r->obs[k++] = r->obs[i];
    r->n_obs = (uint8_t)k;
    struct net_listeners *nl = &r->net.listen;
    LISTEN_DEL(nl, pfc, ctx);
    LISTEN_DEL(nl, flow, ctx);
    LISTEN_DEL(nl, wd, ctx);
    LISTEN_DEL(nl, credit, ctx);
}

/* What an observer module's table lacks (sim/module.h, struct module_kind). */
static const char *observer_missing(const struct module *m)
{
    const struct observer_ops *o = m->ops;
    return !o->open ? "an open hook" : !o->close ? "a close hook" : !o->watch ? "a table of callbacks (watch)" : NULL;
}

const struct module_kind observer_kind = {.name = "observer", .dflt = "monitor", .missing = observer_missing};

int run_observers_open(struct run *r, const struct run_options *o, char *err, size_t errlen)
{
    const struct module *m;
    for (int i = 0; (m = module_at(observer_kind.name, i)); i++) {
        const struct observer_ops *ops = m->ops;
        const struct run_observer_ops *watch = ops->watch;
        void *ctx = NULL;
        int rc = ops->open(r, o, &ctx, &watch, err, errlen);
        if (rc) {
            run_observers_finish(r, false, NULL, 0);
            run_observers_close(r, false);
            return rc;
        }
        if (!ctx)
            continue; /* off for this run */
        if (r->n_opened >= RUN_OBSERVERS_MAX) {
            fprintf(stderr, "rocesim: bug: no room for observer %s (RUN_OBSERVERS_MAX %d)\n", m->name,
                    RUN_OBSERVERS_MAX);
            abort();
        }
        r->opened[r->n_opened++] = (struct run_opened){m, ctx};
        run_observe(r, watch, ctx);
    }
    return 0;
}

int run_observers_finish(struct run *r, bool keep, char *err, size_t errlen)
{
    int rc = 0;
    for (unsigned i = 0; i < r->n_opened; i++) {
        const struct observer_ops *ops = r->opened[i].m->ops;
        /* all or none: after a failure the others remove what they wrote, and the first message stands */
        int k = ops->finish ? ops->finish(r->opened[i].ctx, keep && !rc, rc ? NULL : err, errlen) : 0;
        if (k && !rc)
            rc = k;
    }
    return rc;
}

void run_observers_close(struct run *r, bool whole)
{
    for (unsigned i = 0; i < r->n_opened; i++) {
        const struct observer_ops *ops = r->opened[i].m->ops;
        run_unobserve(r, r->opened[i].ctx);
        ops->close(r->opened[i].ctx, whole);
    }
    r->n_opened = 0;
}

void *run_observer_ctx(const struct run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_opened; i++)
        if (strcmp(r->opened[i].m->name, name) == 0)
            return r->opened[i].ctx;
    return NULL;
}

void run_simulate(struct run *r)
{
    struct sim *s = &r->sim;
    const sim_time_t stop = r->scn->stop_ps;
    const unsigned n = r->n_obs;
    const struct run_observer *o = r->obs;
    bool timed = false;
    for (unsigned i = 0; i < n; i++) {
        if (o[i].ops->on_start)
            o[i].ops->on_start(o[i].ctx, r);
        timed |= o[i].ops->until != NULL;
    }
    if (!timed) {
        limits_sim_run(r, stop); /* sim_run(stop), stopping early on a signal or --max-wall */
    } else {
        for (;;) {
            sim_time_t want[RUN_OBSERVERS_MAX], until = stop;
            for (unsigned i = 0; i < n; i++) {
                want[i] = o[i].ops->until ? o[i].ops->until(o[i].ctx, r) : OBS_NEVER;
                if (want[i] < until)
                    until = want[i];
            }
            uint64_t ev = limits_sim_run(r, until);
            /* Ended exactly when one sim_run(stop) would have returned (see observer.h), or stopped early. */
            bool ended = s->stop_requested || sim_pending_all(s) == 0 || s->now >= stop || r->incomplete_reason[0];
            for (unsigned i = 0; i < n; i++) {
                if (!o[i].ops->on_slice)
                    continue;
                /* Its own slice: it alone chose the end, before the stop time (a progress line adapts its
                 * slice length only then). */
                bool mine = !ended && want[i] == until && until < stop;
                for (unsigned j = 0; mine && j < n; j++)
                    mine = j == i || want[j] != until;
                o[i].ops->on_slice(o[i].ctx, r, ev, mine);
            }
            if (ended)
                break;
        }
    }
    for (unsigned i = 0; i < n; i++)
        if (o[i].ops->on_end)
            o[i].ops->on_end(o[i].ctx, r);
}
