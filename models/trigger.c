/*
 * trigger — flows that start when other flows end (models/trigger.h), as the connection matrices of the UEC
 * reference simulator (ultraethernet/uet-htsim, datacenter/connection_matrix.cpp `trigger id N oneshot|multishot|
 * barrier [count K]`, trigger.cpp) express them: a oneshot trigger fires once, at its first activation, and starts
 * all its targets; a multishot trigger starts its next target at each activation; a barrier starts all its targets
 * at its count-th activation.  Where the reference aborts (a oneshot activated twice, a barrier past its count)
 * the activation does nothing here.
 */
#include "models/trigger.h"
#include "models/ranks.h"
#include "models/traffic.h"
#include "sim/mem.h"
#include "sim/parallel.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define TRIGGER_OOM "setting up the triggers"

static const char *const type_names[] = {"oneshot", "multishot", "barrier", NULL};

/* ---- the scenario: the top-level array and the flows' references ---- */

static int parse_decl(struct setting_ctx *c, const cJSON *e, const char *path, struct trigger_decl *d)
{
    static const char *const known[] = {"id", "type", "count", NULL};
    char p[SETTING_PATH_MAX];
    if (setting_val_obj(c, e, path) < 0 || setting_check_fields(c, e, path, known) < 0)
        return -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id"), *type = cJSON_GetObjectItemCaseSensitive(e, "type");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(e, "count");
    if (!id)
        return setting_bad(c, setting_join(p, path, "id"), "expected a trigger id like \"t7\", got nothing (this "
                                                            "field is required)");
    if (scn_val_name(c, id, setting_join(p, path, "id"), "a trigger id", ".", d->id) < 0)
        return -1;
    if (!type)
        return setting_bad(c, setting_join(p, path, "type"), "expected one of \"oneshot\", \"multishot\", "
                                                              "\"barrier\", got nothing (this field is required)");
    if (setting_val_enum(c, type, setting_join(p, path, "type"), type_names, &d->type) < 0)
        return -1;
    if (d->type != TRIGGER_BARRIER) {
        if (count)
            return setting_bad(c, setting_join(p, path, "count"), "expected no count for a %s trigger (only a "
                                                                   "barrier counts its activations)",
                               type_names[d->type]);
        d->count = 0;
        return 0;
    }
    if (!count)
        return setting_bad(c, setting_join(p, path, "count"), "expected the activations a barrier waits for, an "
                                                               "integer of at least 1, got nothing (a barrier "
                                                               "requires it)");
    long long k;
    if (setting_val_int(c, count, setting_join(p, path, "count"), 1, INT32_MAX, &k) < 0)
        return -1;
    d->count = (int)k;
    return 0;
}

static int by_name(const void *a, const void *b) { return scn_cmp_named(a, b); }

/* The ids of ts sorted (caller frees), for find(). */
static struct scn_named *sorted_ids(const struct trigger_settings *ts)
{
    struct scn_named *v = mem_xcalloc((size_t)(ts->n ? ts->n : 1), sizeof *v, TRIGGER_OOM);
    for (int i = 0; i < ts->n; i++)
        v[i] = (struct scn_named){ts->t[i].id, i};
    qsort(v, (size_t)ts->n, sizeof *v, by_name);
    return v;
}

/* The index of trigger `id` (set) in sorted ids v, or -1. */
static int find(const struct scn_named *v, int n, const char *id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(v[mid].name, id);
        if (c == 0)
            return v[mid].idx;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int parse_triggers(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path,
                          void *base)
{
    struct trigger_settings *ts = base;
    (void)f;
    if (setting_val_arr(c, v, path, "an array of triggers like [{\"id\": \"t7\", \"type\": \"oneshot\"}]") < 0)
        return -1;
    int n = cJSON_GetArraySize(v), i = 0;
    struct trigger_decl *d = n ? scn_keep(c, sizeof *d * (size_t)n) : NULL;
    if (n && !d)
        return -1;
    char p[SETTING_PATH_MAX];
    for (const cJSON *e = v->child; e; e = e->next, i++)
        if (parse_decl(c, e, setting_join_idx(p, path, i), &d[i]) < 0)
            return -1;
    *ts = (struct trigger_settings){n, d};
    struct scn_named *s = sorted_ids(ts);
    for (i = 1; i < n; i++)
        if (strcmp(s[i].name, s[i - 1].name) == 0) {
            int a = s[i - 1].idx, b = s[i].idx;
            free(s);
            char q[SETTING_PATH_MAX];
            setting_join(q, setting_join_idx(p, path, b), "id");
            return setting_bad(c, q, "expected a unique trigger id, got \"%s\" (also the id of %s.%d)", d[b].id, path,
                               a);
        }
    free(s);
    return 0;
}

static void dump_triggers(cJSON *obj, const struct setting *f, const void *base)
{
    const struct trigger_settings *ts = base;
    if (!ts->n)
        return; /* a scenario without triggers dumps as it did */
    cJSON *arr = cJSON_AddArrayToObject(obj, f->name);
    for (int i = 0; arr && i < ts->n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "id", ts->t[i].id);
        cJSON_AddStringToObject(o, "type", type_names[ts->t[i].type]);
        if (ts->t[i].type == TRIGGER_BARRIER)
            cJSON_AddNumberToObject(o, "count", ts->t[i].count);
    }
}

int trigger_parse_ref(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *path, void *base)
{
    return scn_val_name(c, v, path, "a trigger id", ".", (char *)base + f->offset);
}

void trigger_dump_ref(cJSON *obj, const struct setting *f, const void *base)
{
    const char *id = (const char *)base + f->offset;
    if (*id)
        cJSON_AddStringToObject(obj, f->name, id);
}

void trigger_reach(const int (*ref)[3], int nf, const struct trigger_decl *t, int nt, bool *starts, uint32_t *got,
                   uint32_t *released)
{
    /* the fixpoint: queue of flows that start, activations and waiting flows started per trigger */
    int *queue = mem_xcalloc((size_t)(nf ? nf : 1), sizeof *queue, TRIGGER_OOM);
    int head = 0, tail = 0;
    memset(got, 0, sizeof *got * (size_t)nt);
    memset(released, 0, sizeof *released * (size_t)nt);
    for (int i = 0; i < nf; i++)
        if (ref[i][0] < 0)
            queue[tail++] = i;
    /* the waiting flows of each trigger in traffic order: first index per trigger, and the next of each flow */
    int *first = mem_xcalloc((size_t)(nt ? nt : 1), sizeof *first, TRIGGER_OOM);
    int *next = mem_xcalloc((size_t)(nf ? nf : 1), sizeof *next, TRIGGER_OOM);
    int *last = mem_xcalloc((size_t)(nt ? nt : 1), sizeof *last, TRIGGER_OOM);
    for (int k = 0; k < nt; k++)
        first[k] = last[k] = -1;
    for (int i = 0; i < nf; i++) {
        next[i] = -1;
        int k = ref[i][0];
        if (k < 0)
            continue;
        if (last[k] < 0)
            first[k] = i;
        else
            next[last[k]] = i;
        last[k] = i;
    }
    while (head < tail) {
        int i = queue[head++];
        for (int a = 1; a <= 2; a++) {
            int k = ref[i][a];
            if (k < 0)
                continue;
            const struct trigger_decl *d = &t[k];
            got[k]++;
            bool all = (d->type == TRIGGER_ONESHOT && got[k] == 1) ||
                       (d->type == TRIGGER_BARRIER && got[k] == (uint32_t)d->count);
            bool one = d->type == TRIGGER_MULTISHOT && first[k] >= 0;
            while ((all || one) && first[k] >= 0) {
                queue[tail++] = first[k];
                first[k] = next[first[k]];
                released[k]++;
                one = false;
            }
        }
    }
    if (starts) {
        for (int i = 0; i < nf; i++)
            starts[i] = false;
        for (int q = 0; q < tail; q++)
            starts[queue[q]] = true;
    }
    free(queue);
    free(first);
    free(next);
    free(last);
}

/*
 * What the flows make of the triggers, once both are read: every id a flow names is declared, every trigger has a
 * flow waiting on it, and every trigger can fire.  Whether it can is found by starting every flow with a start
 * time, letting each started flow activate what it names (a multishot trigger starting its waiting flows one per
 * activation, in order) until nothing more starts (trigger_reach): a trigger left unfired waits on flows that wait
 * on it, directly or through other triggers, or is a barrier with fewer activations than its count.
 */
static int check_triggers(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct trigger_settings *ts = base;
    const struct scenario *s = scn_loading(c);
    (void)obj, (void)path;
    if (!s)
        return 0;
    struct scn_named *ids = sorted_ids(ts);
    int nt = ts->n, nf = s->n_traffic;
    /* per entry its three trigger indices (-1: none; entries that are no flow have none) */
    int (*ref)[3] = mem_xcalloc((size_t)(nf ? nf : 1), sizeof *ref, TRIGGER_OOM);
    uint32_t *waiting = mem_xcalloc((size_t)(nt ? nt : 1), sizeof *waiting, TRIGGER_OOM);
    int rc = 0;
    char p[SETTING_PATH_MAX];
    static const char *const keys[3] = {"trigger", "on_sent", "on_received"};
    for (int i = 0; i < nf && rc == 0; i++) {
        int src, dst;
        const struct flow_trig *tr = traffic_flow_trig(&s->traffic[i], &src, &dst);
        const char *names[3] = {tr ? tr->wait : "", tr ? tr->sent : "", tr ? tr->received : ""};
        for (int k = 0; k < 3 && rc == 0; k++) {
            ref[i][k] = *names[k] ? find(ids, nt, names[k]) : -1;
            if (*names[k] && ref[i][k] < 0) {
                setting_strf(p, sizeof p, "traffic.%d.%s", i, keys[k]);
                rc = setting_bad(c, p, "expected the id of a trigger declared in triggers, got \"%s\"", names[k]);
            }
        }
        if (rc == 0 && ref[i][0] >= 0)
            waiting[ref[i][0]]++;
    }
    for (int k = 0; k < nt && rc == 0; k++)
        if (!waiting[k]) {
            setting_strf(p, sizeof p, "triggers.%d", k);
            rc = setting_bad(c, p, "expected a trigger some flow waits on (\"trigger\": \"%s\"), got one no flow "
                                   "waits on", ts->t[k].id);
        }
    if (rc == 0) {
        uint32_t *got = mem_xcalloc((size_t)(nt ? nt : 1), sizeof *got, TRIGGER_OOM);
        uint32_t *released = mem_xcalloc((size_t)(nt ? nt : 1), sizeof *released, TRIGGER_OOM);
        trigger_reach(ref, nf, ts->t, nt, NULL, got, released);
        for (int k = 0; k < nt && rc == 0; k++)
            if (!released[k]) {
                setting_strf(p, sizeof p, "triggers.%d", k);
                if (ts->t[k].type == TRIGGER_BARRIER && got[k] > 0)
                    rc = setting_bad(c, p, "expected a trigger that can fire, got barrier \"%s\" of count %d with "
                                           "only %u activations from flows that can start", ts->t[k].id,
                                     ts->t[k].count, got[k]);
                else
                    rc = setting_bad(c, p, "expected a trigger that can fire, got \"%s\", which no flow that can "
                                           "start activates (\"on_sent\" or \"on_received\"; a flow waiting on it, "
                                           "directly or through other triggers, cannot)", ts->t[k].id);
            }
        free(got);
        free(released);
    }
    free(ref);
    free(waiting);
    free(ids);
    return rc;
}

static const struct setting trigger_fields[] = {
    {.name = "triggers", .kind = SETTING_CUSTOM, .offset = 0,
     .help = "Flow dependencies: flows that start when others end (traffic.flow's trigger, on_sent, on_received)",
     .parse = parse_triggers, .dump = dump_triggers},
    {SET_CHECK(check_triggers)},
    {0},
};

/* Flat, at the top level after "traffic": the flows name the triggers, which are checked against them. */
static const struct setting_group trigger_group = {
    .path = "/triggers", .size = sizeof(struct trigger_settings), .after = "traffic", .fields = trigger_fields,
};
SETTINGS_REGISTER("triggers", &trigger_group);

const struct trigger_settings *trigger_settings_of(const struct scenario *s)
{
    return SETTINGS_OF(s, trigger_group, struct trigger_settings);
}

uint32_t trigger_ties(const struct scenario *s, uint32_t (**out)[2])
{
    const struct trigger_settings *ts = trigger_settings_of(s);
    *out = NULL;
    if (!ts->n)
        return 0;
    struct scn_named *ids = sorted_ids(ts);
    int *host = mem_xcalloc((size_t)ts->n, sizeof *host, TRIGGER_OOM);
    for (int k = 0; k < ts->n; k++)
        host[k] = -1;
    uint32_t n = 0, cap = 0;
    uint32_t (*v)[2] = NULL;
    for (int i = 0; i < s->n_traffic; i++) {
        int src, dst;
        const struct flow_trig *tr = traffic_flow_trig(&s->traffic[i], &src, &dst);
        if (!tr)
            continue;
        const char *names[3] = {tr->wait, tr->sent, tr->received};
        const int at[3] = {src, src, dst};
        for (int j = 0; j < 3; j++) {
            int k = *names[j] ? find(ids, ts->n, names[j]) : -1;
            if (k < 0)
                continue;
            if (host[k] < 0) {
                host[k] = at[j];
                continue;
            }
            if (host[k] == at[j])
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                v = mem_xrealloc(v, sizeof *v * cap, TRIGGER_OOM);
            }
            v[n][0] = (uint32_t)host[k];
            v[n++][1] = (uint32_t)at[j];
        }
    }
    free(host);
    free(ids);
    *out = v;
    return n;
}

/* ---- the run ---- */

struct trig_rt {
    uint8_t type;
    uint32_t count;           /* a barrier's */
    uint32_t got;             /* activations so far */
    uint32_t next;            /* waiting flows started so far */
    uint32_t n_wait, cap;
    uint32_t *wait;           /* the flows waiting on it (places), in traffic order */
};

/* A flow that activates triggers: the trigger its last ACK activates, and its receipt (-1: none). */
struct trig_act {
    int32_t sent, received;
};

struct triggers {
    struct flow_owner owner;  /* first: the flows that activate a trigger tell it (net.h) */
    struct traffic *t;
    struct scn_named *ids;
    int n;
    struct trig_rt *tr;
    struct trig_act *act;     /* by flow.owner_tag */
    uint32_t n_act, cap_act;
    /* over MPI ranks: per partition, the flows it started since the last window; and the hook this one chains */
    struct made_list *started;
    void (*prev)(void *ctx);
    void *prev_ctx;
};

/* The flows of trigger k it starts now: all its waiting flows, or (multishot) the next. */
static void fire(struct net *n, struct triggers *T, struct trig_rt *r, bool all)
{
    while (r->next < r->n_wait) {
        struct flow *f = net_flow(n, r->wait[r->next++]);
        net_start_waiting_flow(n, f);
        if (T->started) {
            struct made_list *l = &T->started[net_sim(n)->part];
            if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 64;
                l->idx = mem_xrealloc(l->idx, sizeof *l->idx * l->cap, TRIGGER_OOM);
            }
            l->idx[l->n++] = f->idx;
        }
        if (!all)
            break;
    }
}

static void activate(struct net *n, struct triggers *T, int32_t k)
{
    if (k < 0)
        return;
    struct trig_rt *r = &T->tr[k];
    r->got++;
    if (r->type == TRIGGER_MULTISHOT)
        fire(n, T, r, false);
    else if (r->got == (r->type == TRIGGER_BARRIER ? r->count : 1))
        fire(n, T, r, true);
}

static void trig_received(struct net *n, struct flow *f)
{
    struct triggers *T = (struct triggers *)(void *)f->owner;
    activate(n, T, T->act[f->owner_tag].received);
}

static void trig_acked(struct net *n, struct flow *f)
{
    struct triggers *T = (struct triggers *)(void *)f->owner;
    activate(n, T, T->act[f->owner_tag].sent);
}

static const struct flow_owner_ops trig_owner = {.received = trig_received, .acked = trig_acked};

static struct triggers *triggers_of(struct traffic *t)
{
    if (t->triggers)
        return t->triggers;
    const struct trigger_settings *ts = trigger_settings_of(t->net->scn);
    struct triggers *T = mem_xcalloc(1, sizeof *T, TRIGGER_OOM);
    T->owner.ops = &trig_owner;
    T->t = t;
    T->n = ts->n;
    T->ids = sorted_ids(ts);
    T->tr = mem_xcalloc((size_t)(ts->n ? ts->n : 1), sizeof *T->tr, TRIGGER_OOM);
    for (int k = 0; k < ts->n; k++)
        T->tr[k] = (struct trig_rt){.type = (uint8_t)ts->t[k].type, .count = (uint32_t)ts->t[k].count};
    t->triggers = T;
    return T;
}

void trigger_flow_added(struct traffic *t, int ti, struct flow *f, const struct flow_trig *tr)
{
    (void)ti;
    if (!*tr->wait && !*tr->sent && !*tr->received)
        return;
    struct triggers *T = triggers_of(t);
    if (*tr->wait) {
        struct trig_rt *r = &T->tr[find(T->ids, T->n, tr->wait)]; /* the loader checked every id */
        if (r->n_wait == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 4;
            r->wait = mem_xrealloc(r->wait, sizeof *r->wait * r->cap, TRIGGER_OOM);
        }
        r->wait[r->n_wait++] = f->idx;
    }
    if (*tr->sent || *tr->received) {
        if (T->n_act == T->cap_act) {
            T->cap_act = T->cap_act ? 2 * T->cap_act : 16;
            T->act = mem_xrealloc(T->act, sizeof *T->act * T->cap_act, TRIGGER_OOM);
        }
        T->act[T->n_act] = (struct trig_act){*tr->sent ? find(T->ids, T->n, tr->sent) : -1,
                                             *tr->received ? find(T->ids, T->n, tr->received) : -1};
        f->owner = &T->owner;
        f->owner_tag = T->n_act++;
    }
}

/* A flow started in another process, as it travels: its place and start. */
struct start_rec {
    uint32_t idx, pad;
    sim_time_t start;
};

/* Between windows over MPI ranks: every process learns the starts of the flows the others' triggers started, so
 * that the outputs rank 0 writes have them (nothing else reads a flow's start during the run). */
static void triggers_between_windows(void *ctx)
{
    struct triggers *T = ctx;
    if (T->prev)
        T->prev(T->prev_ctx);
    struct net *n = T->t->net;
    const struct sim_par_comm *C = net_comm(n);
    const struct sim_par *P = n->sim->par;
    struct sim_buf mine = {0}, all = {0};
    for (uint32_t i = P->lo; i < P->hi; i++) {
        for (uint32_t k = 0; k < T->started[i].n; k++) {
            const struct flow *f = net_flow(n, T->started[i].idx[k]);
            struct start_rec r = {f->idx, 0, f->start};
            sim_buf_put(&mine, &r, sizeof r);
        }
        T->started[i].n = 0;
    }
    C->gather(C->ctx, &mine, &all);
    for (size_t o = 0; o + sizeof(struct start_rec) <= all.len; o += sizeof(struct start_rec)) {
        struct start_rec r;
        memcpy(&r, all.p + o, sizeof r);
        net_flow(n, r.idx)->start = r.start;
    }
    free(mine.p);
    free(all.p);
}

void trigger_setup_done(struct traffic *t)
{
    struct triggers *T = t->triggers;
    struct net *n = t->net;
    if (!T || !net_comm(n))
        return;
    T->started = mem_xcalloc(n->n_parts, sizeof *T->started, TRIGGER_OOM);
    T->prev = n->between_windows;
    T->prev_ctx = n->between_ctx;
    n->between_windows = triggers_between_windows;
    n->between_ctx = T;
}

void trigger_free(struct traffic *t)
{
    struct triggers *T = t->triggers;
    if (!T)
        return;
    for (int k = 0; k < T->n; k++)
        free(T->tr[k].wait);
    for (uint32_t i = 0; T->started && i < t->net->n_parts; i++)
        free(T->started[i].idx);
    free(T->started);
    free(T->tr);
    free(T->act);
    free(T->ids);
    free(T);
    t->triggers = NULL;
}
