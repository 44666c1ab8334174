/* pfcwd — the switches' PFC watchdog (SONiC pfcwd semantics; the rules are in pfcwd.h). */
#include "models/pfcwd.h"
#include "models/mech.h"
#include "models/pfc.h"
#include "models/ranks.h"
#include "models/switch.h"
#include "sim/mem.h"

#include "sim/units.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

static void poll_event(struct sim *s, void *obj, uint64_t arg);

bool pfcwd_out_of_reach(const struct scenario *s, char *msg, size_t len)
{
    const struct pfcwd_settings *wd = pfcwd_settings_of(&s->sw);
    if (!wd->enabled || wd->detection_ps + wd->poll_ps <= s->stop_ps)
        return false;
    char det[32], poll[32], stop[32];
    units_fmt_time(wd->detection_ps, det, sizeof det);
    units_fmt_time(wd->poll_ps, poll, sizeof poll);
    units_fmt_time(s->stop_ps, stop, sizeof stop);
    snprintf(msg, len, "warning: %s: switch.watchdog: detection_time (%s) plus one poll_interval (%s) is longer "
             "than the run (stop %s): the watchdog cannot declare a storm in this run", s->file, det, poll, stop);
    return true;
}

void pfcwd_init(struct net *n)
{
    char msg[SCN_ERR_MAX];
    if (pfcwd_out_of_reach(n->scn, msg, sizeof msg))
        fprintf(stderr, "rocesim: %s\n", msg);
    struct pfcwd *wd = mem_xcalloc(1, sizeof *wd, "setting up the PFC watchdog");
    struct pfcwd_queue *q = mem_xcalloc((size_t)n->g->n_ports * NPRIO, sizeof *q, "setting up the PFC watchdog");
    for (size_t i = 0; i < (size_t)n->g->n_ports * NPRIO; i++)
        q[i] = (struct pfcwd_queue){-1, -1};
    wd->q = q;
    wd->cfg = pfcwd_settings_of(&n->scn->sw);
    n->wd = wd;
    sim_timer_arm(net_sim(n), &wd->poll, wd->cfg->poll_ps, poll_event, n); /* the run's: zeroed */
}

static void wd_free(struct net *n)
{
    if (!n->wd)
        return;
    free(n->wd->q);
    free(n->wd);
    n->wd = NULL;
}

/* Only a network with lossless priorities has PAUSE to watch. */
static void wd_init(struct net *n)
{
    if (pfcwd_settings_of(&n->scn->sw)->enabled && n->lossless)
        pfcwd_init(n);
}

/* ---- switch.watchdog: its settings (pfcwd.h, docs/scenario.md) ---- */

static const char *const action_names[] = {"drop", "forward", "alert", NULL};

/*
 * As SONiC requires: a queue is only looked at once a poll, so a detection or restoration time shorter than
 * the poll cannot be honoured (detection_time 300us with the default 10ms poll detected nothing in a 5ms run,
 * silently).  Refused rather than the poll derived: the setting stays what the user wrote.
 */
static int check_watchdog(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct pfcwd_settings *wd = base;
    const char *which = wd->poll_ps > wd->detection_ps ? "detection_time" : "restoration_time";
    int64_t bound = wd->poll_ps > wd->detection_ps ? wd->detection_ps : wd->restoration_ps;
    if (wd->enabled && wd->poll_ps > bound) {
        char got[32], lim[32], p[SETTING_PATH_MAX];
        units_fmt_time(wd->poll_ps, got, sizeof got);
        units_fmt_time(bound, lim, sizeof lim);
        return setting_bad(c, setting_join(p, path, "poll_interval"), "expected at most %s (%s), got %s%s; the "
                           "watchdog looks once a poll_interval, so set one of at most %s", which, lim, got,
                           cJSON_GetObjectItemCaseSensitive(obj, "poll_interval") ? "" : " (the default)", lim);
    }
    return 0;
}

/* Enum fields are stored through an int (sim/settings.c). */
_Static_assert(sizeof(enum pfcwd_action) == sizeof(int), "enum settings are stored as int");

/* In table order, which is the dump's, the docs' and the order errors are found in (sim/settings.h). */
static const struct setting watchdog_fields[] = {
    {SET_FIELD("enabled", SETTING_BOOL, struct pfcwd_settings, enabled, 0, "false",
           "Turns the PFC storm watchdog on")},
    {SET_FIELD("detection_time", SETTING_TIME, struct pfcwd_settings, detection_ps, SETTING_POSITIVE, "200ms",
           "How long a queue must be stuck before it is declared stormed")},
    {SET_FIELD("restoration_time", SETTING_TIME, struct pfcwd_settings, restoration_ps, SETTING_POSITIVE, "200ms",
           "How long without PFC frames before a stormed queue returns to normal")},
    {SET_FIELD("poll_interval", SETTING_TIME, struct pfcwd_settings, poll_ps, SETTING_POSITIVE, "10ms",
           "How often the watchdog looks")},
    {SET_ENUM("action", struct pfcwd_settings, action, action_names, "drop", "What happens to a stormed queue")},
    {SET_CHECK(check_watchdog)},
    {0},
};

static const struct setting_group watchdog_group = {
    .path = "switch.watchdog", .size = sizeof(struct pfcwd_settings), .after = "lossy_queue_limit",
    .fields = watchdog_fields, .fabric = true, /* one poll runs every switch's watchdog (pfcwd.c) */
};

/* See pfcwd.h. */
const struct pfcwd_settings *pfcwd_settings_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, watchdog_group, struct pfcwd_settings);
}

static const struct net_mech_ops pfcwd_mech = {.name = "pfcwd", .order = 80, .init = wd_init, .free = wd_free};
NET_MECH(pfcwd_mech, &watchdog_group)

/* Declares (p, prio) stormed at time now and applies the configured action (pfcwd.h).  No return value. */
static void storm(struct net *n, struct sw *w, struct port *p, int prio, sim_time_t now)
{
    uint8_t bit = (uint8_t)(1u << prio);
    enum pfcwd_action act = n->wd->cfg->action;
    n->wd->storms++;
    p->wd_storm |= bit;
    NET_NOTIFY(n, wd, now, p->node, p->local, prio, true);
    if (act == PFCWD_ALERT)
        return;
    p->wd_ignore |= bit;
    if (act == PFCWD_DROP) {
        p->wd_drop |= bit;
        switch_flush_queue(n, w, p, prio, DROP_WATCHDOG);
    }
    /* Ignoring PAUSE from now on means the pause in force no longer holds the queue. */
    if (p->paused & bit)
        p->wd_overrode |= bit;
    pfc_unpause(p, prio);
}

/* Ends the storm on (p, prio): PAUSE is obeyed and arriving frames are queued again.  No return value. */
static void restore(struct net *n, struct port *p, int prio, sim_time_t now)
{
    uint8_t bit = (uint8_t)(1u << prio);
    n->wd->restored++;
    p->wd_storm &= (uint8_t)~bit;
    p->wd_ignore &= (uint8_t)~bit;
    p->wd_drop &= (uint8_t)~bit;
    n->wd->q[(size_t)port_id(p) * NPRIO + (size_t)prio].stall_start = -1;
    NET_NOTIFY(n, wd, now, p->node, p->local, prio, false);
}

/* Timer: one poll, the stall / storm / restore rules of pfcwd.h for every switch egress (port, lossless
 * priority); re-arms itself while traffic remains. */
static void poll_event(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    SIM_ASSERT_ENT(s, SIM_ENT_GLOBAL);
    struct pfcwd *wd = n->wd;
    const struct pfcwd_settings *cfg = wd->cfg;
    sim_time_t now = s->now, prev = wd->last_poll;
    for (uint32_t i = 0; i < n->g->n_switches; i++) {
        struct sw *w = &n->sws[i];
        struct ranks_entry re;
        if (!ranks_enter(n, w->node, &re))
            continue; /* another process runs it, and polls it */
        for (uint32_t j = 0; j < w->n_ports; j++) {
            struct port *p = &w->ports[j];
            for (int prio = 0; prio < NPRIO; prio++) {
                uint8_t bit = (uint8_t)(1u << prio);
                if (!(n->lossless & bit))
                    continue;
                struct pfcwd_queue *q = &wd->q[(size_t)port_id(p) * NPRIO + (size_t)prio];
                if (p->wd_storm & bit) {
                    if (q->last_pfc < 0 || now - q->last_pfc >= cfg->restoration_ps)
                        restore(n, p, prio, now);
                    continue;
                }
                const struct port_prio *pp = port_pp(p, prio);
                bool stalled = (p->paused & bit) && pp->q.n > 0 && pp->paused_since <= prev;
                if (!stalled) {
                    q->stall_start = -1;
                    continue;
                }
                if (q->stall_start < 0)
                    q->stall_start = prev;
                if (now - q->stall_start >= cfg->detection_ps)
                    storm(n, w, p, prio, now);
            }
        }
        ranks_leave(n, &re);
    }
    wd->last_poll = now;
    /* Only while traffic remains: a run whose flows are done must not be kept going by the watchdog. */
    if (n->flows_active || n->pending_sources)
        sim_timer_arm(s, &wd->poll, now + cfg->poll_ps, poll_event, n);
}
