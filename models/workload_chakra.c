/*
 * workload_chakra — the traffic kind "workload"'s format "chakra": MLCommons Chakra execution traces, one file
 * per rank, run as a graph of nodes per rank.
 *
 * The format (github.com/mlcommons/chakra: schema/protobuf/et_def.proto, and the length-delimited framing of
 * src/third_party/utils/protolib.py's encodeMessage, a message's length as a varint before it): a GlobalMetadata
 * message, then Node messages to the end of the file.  models/chakra.proto holds the fields read, with et_def's
 * numbers and types.  A node's attributes are read by name as Chakra's feeder reads them
 * (src/feeder/et_feeder_node.cpp): comm_type and comm_size (int64_val), comm_src, comm_dst and comm_tag
 * (int32_val), pg_name (string_val).  Facts only; no code of theirs is used.
 *
 * Nodes: COMP_NODE computes for duration_micros; COMM_COLL_NODE is a collective of comm_size bytes (ALL_REDUCE,
 * ALL_GATHER, REDUCE_SCATTER or ALL_TO_ALL, run as traffic_nccl.c's ring and p2p schedules) over the ranks of its
 * process group; COMM_SEND_NODE sends comm_size bytes to rank comm_dst, one flow, met by the receiving rank's
 * COMM_RECV_NODE of comm_src and the same comm_tag, in file order; other nodes take no time.  A node starts when
 * every node its data_deps and ctrl_deps name is done.  A rank computes one node at a time, in the order they
 * become ready (one compute stream, as ASTRA-sim's roofline of one GPU); communication nodes run beside it.  A
 * collective node is done when the rank's part is (its sends acknowledged, its receipts in), a send when it is
 * acknowledged, a receive when its data is in.
 *
 * Process groups, as ASTRA-sim maps them (astra-sim/workload/Workload.cc of github.com/astra-sim/astra-sim:
 * initialize_comm_groups and extract_comm_group): the entry's comm_groups file is ASTRA-sim's
 * --comm-group-configuration, a JSON object from a group's id to the list of its NPUs (here the entry's ranks);
 * a collective's pg_name names its group, none, "" or "0" (when the file has no "0") all ranks.  A member's k-th
 * collective of a group meets every other member's k-th of it, which must be of the same type and size, and runs
 * as a ring of the group's size k in the file's order of its ranks (its bytes per rank 2(k - 1)/k or (k - 1)/k of
 * the size).
 *
 * Iterations: ASTRA-sim runs a trace once (a trace of K iterations holds K times the nodes); here "iterations": K
 * runs the trace K times, a rank starting iteration i + 1 when its last node of iteration i is done, without a
 * barrier across ranks (a training loop's ranks meet only in their collectives).  Each iteration has flows of its
 * own; a message in before its receiver reached that iteration (its sender an iteration ahead) is counted, not
 * waited for again.
 */
#include "models/nic.h"
#include "models/workload.h"
#include "models/chakra.pb-c.h"
#include "sim/file.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_MAX_NODES 1000000
#define CK_PG_MAX 64     /* a group's name: PyTorch's are small integers */

enum { CK_OTHER, CK_COMP, CK_COLL, CK_SEND, CK_RECV };

struct ck_node {
    uint64_t id;
    int type, kind;          /* kind: the collective's, an index of wl_kind_names */
    int64_t dur_ps, bytes;
    int32_t peer, tag;
    uint32_t n_deps, *deps;  /* indexes of the nodes it waits for */
    char *pg;                /* a collective's pg_name (NULL: none or empty) */
    uint32_t grp, gk;        /* a collective's group (ck_groups) and its place among the group's collectives */
};

struct ck_trace {
    struct ck_node *node;
    uint32_t n;
};

void ck_trace_free(struct ck_trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        free(t->node[i].deps), free(t->node[i].pg);
    free(t->node);
    free(t);
}

/* A varint at buf[*pos] (at most 10 bytes, before len); false when it runs past the end or is too long. */
static bool read_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (int sh = 0; sh < 64 && *pos < len; sh += 7) {
        uint8_t b = buf[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static int comm_kind(int64_t t)
{
    switch (t) {
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE: return 0;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER: return 1;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER: return 2;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL: return 3;
    default: return -1;
    }
}

/* An attribute's integer, whichever integer field carries it (Chakra's writers use int64_val for sizes and
 * int32_val for ranks); -1 for another kind of value. */
static int64_t attr_int(const ChakraProtoMsg__AttributeProto *p)
{
    switch (p->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: return p->int32_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: return p->int64_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: return p->uint32_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: return p->uint64_val > INT64_MAX ? -1 : (int64_t)p->uint64_val;
    default: return -1;
    }
}

/* Node m (the i-th, at byte at) into n; its dependencies' ids into n->deps for now.  0, or -1 with err. */
static int ck_node_read(const char *path, uint32_t i, size_t at, const ChakraProtoMsg__Node *m, struct ck_node *n,
                        char *err, size_t errlen)
{
    int64_t type = -1, size = -1;
    const char *pg = NULL;
    bool pg_bad = false;
    *n = (struct ck_node){.id = m->id, .kind = -1, .peer = -1};
    if (m->duration_micros > (uint64_t)INT64_MAX / 1000000)
        return snprintf(err, errlen, "%.400s: node %u at byte %zu: expected duration_micros below 9.2e12, got %llu",
                        path, i, at, (unsigned long long)m->duration_micros), -1;
    n->dur_ps = (int64_t)m->duration_micros * 1000000; /* only once it is known to fit */
    for (size_t a = 0; a < m->n_attr; a++) {
        const ChakraProtoMsg__AttributeProto *p = m->attr[a];
        if (!p->name)
            continue;
        int64_t v = attr_int(p);
        if (!strcmp(p->name, "comm_type"))
            type = v;
        else if (!strcmp(p->name, "comm_size"))
            size = v;
        else if (!strcmp(p->name, "comm_src") || !strcmp(p->name, "comm_dst"))
            n->peer = v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
        else if (!strcmp(p->name, "comm_tag"))
            n->tag = v < INT32_MIN || v > INT32_MAX ? -1 : (int32_t)v;
        else if (!strcmp(p->name, "pg_name")) {
            pg_bad = p->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
            pg = pg_bad ? NULL : p->string_val;
        }
    }
    switch (m->type) {
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE: n->type = CK_COMP; break;
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE: n->type = CK_COLL; break;
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE: n->type = CK_SEND; break;
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE: n->type = CK_RECV; break;
    default: n->type = CK_OTHER; break;
    }
    if (n->type == CK_COLL && (n->kind = comm_kind(type)) < 0)
        return snprintf(err, errlen, "%.400s: node %u at byte %zu: expected comm_type ALL_REDUCE (0), ALL_GATHER (2), "
                        "ALL_TO_ALL (6) or REDUCE_SCATTER (7), got %lld", path, i, at, (long long)type), -1;
    if (n->type >= CK_COLL && (size < 0 || (n->type != CK_COLL && n->peer < 0)))
        return snprintf(err, errlen, "%.400s: node %u at byte %zu: expected comm_size of at least 0%s", path, i, at,
                        n->type == CK_COLL ? "" : " and comm_src/comm_dst, a rank"), -1;
    if (pg_bad || (pg && strlen(pg) > CK_PG_MAX))
        return snprintf(err, errlen, "%.400s: node %u at byte %zu: expected pg_name a string of at most %d characters",
                        path, i, at, CK_PG_MAX), -1;
    n->bytes = size;
    if (n->type == CK_COLL && pg && *pg)
        n->pg = mem_xstrdup(pg, TRAFFIC_OOM);
    n->n_deps = (uint32_t)(m->n_ctrl_deps + m->n_data_deps);
    n->deps = mem_xcalloc(n->n_deps ? n->n_deps : 1, sizeof *n->deps, TRAFFIC_OOM);
    return 0;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return (x > y) - (x < y);
}

/* The ids the nodes depend on (ids[i] the dependency list of node i, flattened) into indexes, checked: every id
 * known, no two nodes with one id, no cycle.  0, or -1 with err. */
static int ck_link(const char *path, struct ck_trace *t, uint64_t *const *ids, char *err, size_t errlen)
{
    uint64_t (*key)[2] = mem_xcalloc(t->n ? t->n : 1, sizeof *key, TRAFFIC_OOM);
    int rc = 0;
    for (uint32_t i = 0; i < t->n; i++)
        key[i][0] = t->node[i].id, key[i][1] = i;
    qsort(key, t->n, sizeof *key, by_id);
    for (uint32_t i = 1; i < t->n && !rc; i++)
        if (key[i][0] == key[i - 1][0])
            rc = -1, snprintf(err, errlen, "%.400s: node %llu: expected ids once each, got id %llu twice", path,
                              (unsigned long long)key[i][1], (unsigned long long)key[i][0]);
    for (uint32_t i = 0; i < t->n && !rc; i++)
        for (uint32_t d = 0; d < t->node[i].n_deps && !rc; d++) {
            uint64_t want[2] = {ids[i][d], 0}, (*hit)[2] = bsearch(want, key, t->n, sizeof *key, by_id);
            if (!hit)
                rc = -1, snprintf(err, errlen, "%.400s: node %u: expected dependencies on nodes of the file, got id %llu",
                                  path, i, (unsigned long long)ids[i][d]);
            else
                t->node[i].deps[d] = (uint32_t)(*hit)[1];
        }
    free(key);
    if (rc)
        return rc;
    /* Kahn's order: a node is freed when its last dependency is; nodes never freed are on a cycle (or after one) */
    uint32_t N = t->n ? t->n : 1, *left = mem_xcalloc(N, sizeof *left, TRAFFIC_OOM), done = 0, tail = 0;
    uint32_t *first = mem_xcalloc(N + 1, sizeof *first, TRAFFIC_OOM), *by = NULL, *q = NULL;
    size_t edges = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        left[i] = t->node[i].n_deps;
        edges += t->node[i].n_deps;
        for (uint32_t d = 0; d < t->node[i].n_deps; d++)
            first[t->node[i].deps[d] + 1]++;
    }
    for (uint32_t i = 0; i < t->n; i++)
        first[i + 1] += first[i];
    by = mem_xcalloc(edges ? edges : 1, sizeof *by, TRAFFIC_OOM);
    q = mem_xcalloc(N, sizeof *q, TRAFFIC_OOM);
    uint8_t *fin = mem_xcalloc(N, 1, TRAFFIC_OOM);
    /* by[first[x] ..]: the nodes that depend on x, filled through q (a cursor per node until the queue needs it) */
    memcpy(q, first, N * sizeof *q);
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t d = 0; d < t->node[i].n_deps; d++)
            by[q[t->node[i].deps[d]]++] = i;
    for (uint32_t i = 0; i < t->n; i++)
        if (left[i] == 0)
            q[tail++] = i;
    while (done < tail) {
        uint32_t x = q[done++];
        fin[x] = 1;
        for (uint32_t e = first[x]; e < first[x + 1]; e++)
            if (--left[by[e]] == 0)
                q[tail++] = by[e];
    }
    for (uint32_t i = 0; i < t->n && done < t->n; i++)
        if (!fin[i]) {
            rc = -1, snprintf(err, errlen, "%.400s: node %u: expected dependencies without a cycle, got node id %llu "
                              "on one", path, i, (unsigned long long)t->node[i].id);
            break;
        }
    free(left);
    free(first);
    free(by);
    free(q);
    free(fin);
    return rc;
}

int ck_parse(const char *path, const uint8_t *buf, size_t len, struct ck_trace **out, char *err, size_t errlen)
{
    struct ck_trace *t = mem_xcalloc(1, sizeof *t, TRAFFIC_OOM);
    uint64_t **ids = NULL, l;
    size_t pos = 0, cap = 0;
    int rc = 0;
    *out = NULL;
    if (!read_varint(buf, len, &pos, &l) || l > len - pos)
        return ck_trace_free(t), snprintf(err, errlen, "%.400s: byte 0: expected a length-delimited GlobalMetadata "
                                          "message, got %s", path, len ? "a length past the end" : "an empty file"), -1;
    ChakraProtoMsg__GlobalMetadata *g = chakra_proto_msg__global_metadata__unpack(NULL, l, buf + pos);
    if (!g)
        return ck_trace_free(t), snprintf(err, errlen, "%.400s: byte %zu: expected a GlobalMetadata message, got bytes "
                                          "protobuf cannot decode", path, pos), -1;
    chakra_proto_msg__global_metadata__free_unpacked(g, NULL);
    pos += l;
    while (pos < len && !rc) {
        size_t at = pos;
        ChakraProtoMsg__Node *m = NULL;
        if (t->n == CK_MAX_NODES)
            rc = -1, snprintf(err, errlen, "%.400s: node %u at byte %zu: expected at most %u nodes", path, t->n, at,
                              CK_MAX_NODES);
        else if (!read_varint(buf, len, &pos, &l) || l > len - pos)
            rc = -1, snprintf(err, errlen, "%.400s: node %u at byte %zu: expected a message length within the file",
                              path, t->n, at);
        else if (!(m = chakra_proto_msg__node__unpack(NULL, l, buf + pos)))
            rc = -1, snprintf(err, errlen, "%.400s: node %u at byte %zu: expected a Node message, got bytes protobuf "
                              "cannot decode", path, t->n, at);
        if (rc)
            break;
        if (t->n == cap) {
            cap = cap ? 2 * cap : 64;
            t->node = mem_xrealloc(t->node, cap * sizeof *t->node, TRAFFIC_OOM);
            ids = mem_xrealloc(ids, cap * sizeof *ids, TRAFFIC_OOM);
        }
        rc = ck_node_read(path, t->n, at, m, &t->node[t->n], err, errlen);
        if (!rc) {
            uint64_t *d = ids[t->n] = mem_xcalloc(m->n_ctrl_deps + m->n_data_deps + 1, sizeof *d, TRAFFIC_OOM);
            if (m->n_ctrl_deps)
                memcpy(d, m->ctrl_deps, m->n_ctrl_deps * sizeof *d);
            if (m->n_data_deps)
                memcpy(d + m->n_ctrl_deps, m->data_deps, m->n_data_deps * sizeof *d);
            t->n++;
        }
        chakra_proto_msg__node__free_unpacked(m, NULL);
        pos += l;
    }
    if (!rc)
        rc = ck_link(path, t, ids, err, errlen);
    for (uint32_t i = 0; i < t->n; i++)
        free(ids[i]);
    free(ids);
    if (rc)
        return ck_trace_free(t), -1;
    *out = t;
    return 0;
}

/* ---- the run ---- */

/* A flow: a collective's step (inst its instance) or a send (inst NO_STEP); snode and rnode the sending and the
 * receiving rank's nodes. */
struct ck_step {
    struct nccl_step s;
    uint32_t inst, snode, rnode;
    uint32_t qp;                      /* its connection's queue pair in ck_state.qps (NO_STEP: a send node's) */
};

struct ck_inst {
    int kind;
    uint32_t g;                       /* its group (ck_groups), whose m ranks it runs over */
    /* per member of the group (its place): parts left; and the steps each sends (as traffic_workload.c's), kept
     * by iteration 0's instance alone, later iterations' steps being the same plus the iteration's offset */
    uint32_t *left, *first, *by_src;
    sim_time_t start, end;
    int64_t bytes;                    /* its size, over m ranks (summary.json's busbw) */
    uint32_t m;
};

struct ck_rank {
    struct ck_trace *t;
    uint32_t *need;                   /* per node: dependencies (and for a receive its data) not yet in */
    uint32_t *dep_first, *dep_list;   /* the nodes waiting for each */
    uint32_t *q, qh, qt;              /* ready compute nodes, in order */
    uint32_t *inst_of;                /* per node: its collective instance or its send's step, in iteration 0 */
    uint32_t *got;                    /* per receive node: its messages in, over all iterations */
    uint32_t *roots, n_roots;         /* the nodes without dependencies */
    sim_time_t *t0;                   /* per node: when a collective or send started (the timeline) */
    bool busy;
    uint32_t left, it;                /* nodes of iteration it not done */
    int64_t compute_ps;               /* per iteration */
    sim_time_t *iter_end;             /* per iteration */
};

/* The communicator groups of an entry: group 0 is all its ranks, then the comm_groups file's, in file order. */
struct ck_groups {
    uint32_t n, N;
    char **name;                      /* [g]; NULL for group 0 */
    uint32_t *first, *member;         /* group g's ranks, in ring order: member[first[g] .. first[g + 1]) */
    int32_t *place;                   /* [g * N + r]: rank r's place in group g, -1 when not in it */
    uint32_t *cnt, *base;             /* per group: its collectives (as its first member's trace holds them), and
                                       * the instance of its first */
    uint32_t *ref;                    /* per instance: its node in its group's first member's trace */
};

struct ck_state {
    struct coll *c;                   /* first, as traffic_workload.c's state */
    uint32_t N, n_inst, iters;        /* n_inst, n_steps: of one iteration */
    uint32_t n_steps;
    struct ck_rank *rk;
    struct ck_inst *inst;             /* iteration it's instance ii: inst[it * n_inst + ii] */
    struct nic_qp *qps;               /* the collectives' connections, each iteration on the same ones */
    uint32_t n_qps;
    struct tl_rank *tl;
    struct ck_groups g;
};

static void ck_done(struct ck_state *w, uint32_t r, uint32_t i, sim_time_t now);
static void ck_part(struct ck_state *w, uint32_t ii, uint32_t r, uint32_t i, sim_time_t now);

/* Rank r's place in group g. */
static uint32_t ck_member(const struct ck_state *w, uint32_t g, uint32_t r)
{
    return (uint32_t)w->g.place[(size_t)g * w->N + r];
}

static void ck_step_ready(struct coll *c, uint32_t k)
{
    struct ck_step *s = (struct ck_step *)c->sched + k;
    wl_step_ready(c, k, &s->s.need, s->qp, ((struct ck_state *)c->t->state[c->entry])->qps);
}

static void ck_comp_start(struct ck_state *w, uint32_t r, sim_time_t now);

/* Rank r's compute of the node at its queue's head is over (an event of its host). */
static void ck_comp_end(struct sim *sim, void *obj, uint64_t arg)
{
    struct ck_state *w = obj;
    uint32_t r = (uint32_t)(arg >> 32), i = (uint32_t)arg;
    w->rk[r].busy = false;
    ck_done(w, r, i, sim->now);
    ck_comp_start(w, r, sim->now);
}

static void ck_comp_start(struct ck_state *w, uint32_t r, sim_time_t now)
{
    struct ck_rank *k = &w->rk[r];
    if (k->busy || k->qh == k->qt)
        return;
    uint32_t i = k->q[k->qh++];
    k->busy = true;
    tl_add(&w->tl[r], TL_COMPUTE, now, now + k->t->node[i].dur_ps);
    struct net *n = w->c->t->net;
    sim_at_to(net_sim(n), now + k->t->node[i].dur_ps, net_host_ent(n, w->c->host[r]), ck_comp_end, w,
              (uint64_t)r << 32 | i);
}

/* Node i of rank r has what it waits for now. */
static void ck_ready(struct ck_state *w, uint32_t r, uint32_t i, sim_time_t now)
{
    struct ck_rank *k = &w->rk[r];
    const struct ck_node *n = &k->t->node[i];
    k->t0[i] = now;
    if (n->type == CK_COMP) {
        k->q[k->qt++] = i;
        ck_comp_start(w, r, now);
    } else if (n->type == CK_COLL) {
        uint32_t ii = k->it * w->n_inst + k->inst_of[i], off = k->it * w->n_steps;
        const struct ck_inst *in0 = &w->inst[k->inst_of[i]];
        uint32_t p = ck_member(w, in0->g, r);
        wl_time_min(&w->inst[ii].start, now);
        for (uint32_t s = in0->first[p]; s < in0->first[p + 1]; s++)
            ck_step_ready(w->c, in0->by_src[s] + off);
        ck_part(w, ii, r, i, now);
    } else if (n->type == CK_SEND) {
        ck_step_ready(w->c, k->it * w->n_steps + k->inst_of[i]);
    } else {
        ck_done(w, r, i, now); /* a receive's data is in (its need counted it), or a node of no time */
    }
}

/* One of rank r's parts of instance ii (node i) is done: its readiness, a send acknowledged, a receipt. */
static void ck_part(struct ck_state *w, uint32_t ii, uint32_t r, uint32_t i, sim_time_t now)
{
    struct ck_inst *in = &w->inst[ii];
    if (--in->left[ck_member(w, in->g, r)] > 0)
        return;
    wl_time_max(&in->end, now);
    tl_add(&w->tl[r], in->kind + 1, w->rk[r].t0[i], now);
    ck_done(w, r, i, now);
}

static void ck_release_node(struct ck_state *w, uint32_t r, uint32_t i, sim_time_t now)
{
    if (--w->rk[r].need[i] == 0)
        ck_ready(w, r, i, now);
}

/* Rank r begins iteration it: every node waits for its dependencies again, a receive for its message unless it
 * came early (a sender a whole iteration ahead), and the nodes without dependencies are ready. */
static void ck_begin(struct ck_state *w, uint32_t r, uint32_t it, sim_time_t now)
{
    struct ck_rank *k = &w->rk[r];
    k->it = it;
    k->left = k->t->n;
    k->qh = k->qt = 0;
    for (uint32_t i = 0; i < k->t->n; i++)
        k->need[i] = k->t->node[i].n_deps + (k->t->node[i].type == CK_RECV && k->got[i] <= it);
    for (uint32_t j = 0; j < k->n_roots; j++)
        if (k->need[k->roots[j]] == 0)
            ck_ready(w, r, k->roots[j], now);
}

/* Rank r's next iteration (an event of its host, after the one that ended the last: ck_begin must not run inside
 * the release of the last iteration's nodes). */
static void ck_next(struct sim *sim, void *obj, uint64_t arg)
{
    struct ck_state *w = obj;
    ck_begin(w, (uint32_t)arg, w->rk[arg].it + 1, sim->now);
}

static void ck_done(struct ck_state *w, uint32_t r, uint32_t i, sim_time_t now)
{
    struct ck_rank *k = &w->rk[r];
    for (uint32_t d = k->dep_first[i]; d < k->dep_first[i + 1]; d++)
        ck_release_node(w, r, k->dep_list[d], now);
    if (--k->left > 0)
        return;
    k->iter_end[k->it] = now;
    if (k->it + 1 < w->iters) {
        struct net *n = w->c->t->net;
        sim_at_to(net_sim(n), now, net_host_ent(n, w->c->host[r]), ck_next, w, r);
    } else {
        coll_part(w->c, now);
    }
}

static void ck_received(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    struct ck_state *w = c->t->state[c->entry];
    const struct ck_step *s = (const struct ck_step *)c->sched + f->owner_tag;
    sim_time_t now = net_sim(n)->now;
    for (int i = 0; i < NCCL_WAITERS && s->s.on_recv[i] != NO_STEP; i++)
        ck_step_ready(c, s->s.on_recv[i]);
    coll_part(c, now);
    if (s->inst == NO_STEP) {
        /* the k-th message in is iteration k - 1's; one of a later iteration waits for it (ck_begin) */
        struct ck_rank *k = &w->rk[s->s.dst];
        if (++k->got[s->rnode] == k->it + 1)
            ck_release_node(w, s->s.dst, s->rnode, now);
        return;
    }
    ck_part(w, s->inst, s->s.dst, s->rnode, now);
}

static void ck_acked(struct net *n, struct flow *f)
{
    struct coll *c = coll_of(f);
    struct ck_state *w = c->t->state[c->entry];
    const struct ck_step *s = (const struct ck_step *)c->sched + f->owner_tag;
    sim_time_t now = net_sim(n)->now;
    if (s->s.on_ack != NO_STEP)
        ck_step_ready(c, s->s.on_ack);
    coll_part(c, now);
    if (s->inst == NO_STEP) {
        tl_add(&w->tl[s->s.src], TL_P2P, w->rk[s->s.src].t0[s->snode], now);
        ck_done(w, s->s.src, s->snode, now);
        return;
    }
    ck_part(w, s->inst, s->s.src, s->snode, now);
}

static const struct flow_owner_ops ck_owner = {.received = ck_received, .acked = ck_acked};

static void ck_place(const struct coll *c, uint32_t j, struct coll_place *out)
{
    const struct ck_step *s = (const struct ck_step *)c->sched + j;
    *out = (struct coll_place){.src = c->host[s->s.src], .dst = c->host[s->s.dst], .tag = j, .bytes = s->s.bytes};
}

/* The start (an event of the run): every rank begins its first iteration. */
static void ck_start(struct sim *s, void *obj, uint64_t arg)
{
    struct coll *c = obj;
    (void)arg;
    c->start = s->now;
    struct ck_state *w = c->t->state[c->entry];
    for (uint32_t r = 0; r < w->N; r++) {
        if (w->rk[r].t->n == 0) {
            for (uint32_t it = 0; it < w->iters; it++)
                w->rk[r].iter_end[it] = s->now;
            coll_part(c, s->now);
        } else {
            ck_begin(w, r, 0, s->now);
        }
    }
}

/* summary.json: as the SimAI format's (traffic_workload.c's wl_summary), an iteration ending when its last rank's
 * last node does. */
static void ck_summary(const struct coll *c, cJSON *o)
{
    const struct ck_state *w = c->t->state[c->entry];
    double kind_ns[WL_KINDS] = {0}, bus[WL_KINDS] = {0};
    int64_t comp = 0;
    for (uint32_t i = 0; i < w->n_inst * w->iters; i++)
        if (w->inst[i].start >= 0 && w->inst[i].end > w->inst[i].start) {
            const struct ck_inst *in = &w->inst[i];
            kind_ns[in->kind] += units_ps_to_ns(in->end - in->start);
            bus[in->kind] += (double)in->bytes * coll_busbw_factor(wl_kind_op[in->kind], in->m);
        }
    for (uint32_t r = 0; r < w->N; r++)
        comp = w->rk[r].compute_ps > comp ? w->rk[r].compute_ps : comp;
    cJSON_AddNumberToObject(o, "iterations", w->iters);
    cJSON_AddNumberToObject(o, "compute_per_iteration_ns", units_ps_to_ns(comp));
    cJSON *it = cJSON_AddArrayToObject(o, "iteration_ns"), *ex = cJSON_AddArrayToObject(o, "exposed_comm_ns");
    sim_time_t prev = c->start;
    for (uint32_t i = 0; i < w->iters && c->finish >= 0; i++) {
        sim_time_t end = 0;
        for (uint32_t r = 0; r < w->N; r++)
            end = w->rk[r].iter_end[i] > end ? w->rk[r].iter_end[i] : end;
        cJSON_AddItemToArray(it, cJSON_CreateNumber(units_ps_to_ns(end - prev)));
        cJSON_AddItemToArray(ex, cJSON_CreateNumber(units_ps_to_ns(end - prev - comp)));
        prev = end;
    }
    wl_kinds_json(o, kind_ns, bus);
}

/* ---- set-up ---- */

/* Every rank's trace of entry ti into tr[0..N-1].  0, or SCN_EUSAGE with err. */
static int ck_load(const struct scenario *s, int ti, struct ck_trace **tr, char *err, size_t errlen)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    for (int r = 0; r < wc->hosts.n; r++) {
        char path[PATH_MAX + 300], ferr[512], perr[1024], *buf = NULL;
        size_t len = 0;
        wl_path(s, wc, r, path, sizeof path);
        if (file_read(path, FILE_BYTES, &buf, &len, ferr, sizeof ferr))
            return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, ferr), SCN_EUSAGE;
        int rc = ck_parse(path, (const uint8_t *)buf, len, &tr[r], perr, sizeof perr);
        free(buf);
        if (rc)
            return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, perr), SCN_EUSAGE;
    }
    return 0;
}

/* ---- communicator groups ---- */

static void groups_free(struct ck_groups *G)
{
    for (uint32_t g = 0; G->name && g < G->n; g++)
        free(G->name[g]);
    free(G->name), free(G->first), free(G->member), free(G->place), free(G->cnt), free(G->base), free(G->ref);
    *G = (struct ck_groups){0};
}

/* Group g (of G->n) named name with the ranks of the JSON array a (NULL: all N), checked: 0, or -1 with err. */
static int group_add(struct ck_groups *G, const char *path, const char *name, const cJSON *a, char *err,
                     size_t errlen)
{
    uint32_t g = G->n++, N = G->N, m = a ? (uint32_t)cJSON_GetArraySize(a) : N;
    G->name = mem_xrealloc(G->name, G->n * sizeof *G->name, TRAFFIC_OOM);
    G->first = mem_xrealloc(G->first, (G->n + 1) * sizeof *G->first, TRAFFIC_OOM);
    G->place = mem_xrealloc(G->place, (size_t)G->n * N * sizeof *G->place, TRAFFIC_OOM);
    G->name[g] = name ? mem_xstrdup(name, TRAFFIC_OOM) : NULL;
    G->first[0] = 0;
    G->first[g + 1] = G->first[g] + m;
    G->member = mem_xrealloc(G->member, (G->first[g + 1] + 1) * sizeof *G->member, TRAFFIC_OOM);
    int32_t *pl = G->place + (size_t)g * N;
    for (uint32_t r = 0; r < N; r++)
        pl[r] = a ? -1 : (int32_t)r;
    if (!a) {
        for (uint32_t r = 0; r < N; r++)
            G->member[r] = r;
        return 0;
    }
    if (!cJSON_IsArray(a) || m == 0)
        return snprintf(err, errlen, "%.400s: %.80s: expected a list of at least one rank, got %s", path, name,
                        cJSON_IsArray(a) ? "an empty one" : "another value"), -1;
    const cJSON *v = a->child;
    for (uint32_t j = 0; j < m; j++, v = v->next) {
        double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (d < 0 || d >= N || d != (double)(uint32_t)d) {
            char got[48] = "another value";
            if (cJSON_IsNumber(v))
                snprintf(got, sizeof got, "%.17g", v->valuedouble);
            return snprintf(err, errlen, "%.400s: %.80s.%u: expected a rank of 0 to %u (the entry's hosts), got %s",
                            path, name, j, N - 1, got), -1;
        }
        uint32_t r = (uint32_t)d;
        if (pl[r] >= 0)
            return snprintf(err, errlen, "%.400s: %.80s.%u: expected each rank once in a group, got %u again", path,
                            name, j, r), -1;
        pl[r] = (int32_t)j;
        G->member[G->first[g] + j] = r;
    }
    return 0;
}

/* The entry's groups: all its ranks, then those of its comm_groups file (ASTRA-sim's --comm-group-configuration:
 * a JSON object from a group's id to its ranks).  0, or -1 with err naming the file and the JSON path or line. */
static int groups_load(const struct scenario *s, const struct workload_conf *wc, uint32_t N, struct ck_groups *G,
                       char *err, size_t errlen)
{
    *G = (struct ck_groups){.N = N};
    group_add(G, NULL, NULL, NULL, err, errlen);
    if (!*wc->comm_groups)
        return 0;
    char path[PATH_MAX + 300], *text = NULL, *clean = NULL;
    wl_path_of(s, wc->comm_groups, -1, path, sizeof path);
    if (file_read(path, FILE_TEXT, &text, NULL, err, errlen))
        return -1;
    clean = scn_strip_comments(text, &(size_t){0});
    free(text);
    if (!clean)
        mem_oom(TRAFFIC_OOM);
    cJSON *root = scn_parse_json(path, clean, err, errlen);
    free(clean);
    int rc = root ? 0 : -1;
    if (root && !cJSON_IsObject(root))
        rc = -1, snprintf(err, errlen, "%.400s: expected an object from group ids to lists of ranks, got another "
                          "value", path);
    for (const cJSON *e = root && !rc ? root->child : NULL; e && !rc; e = e->next) {
        for (uint32_t g = 1; g < G->n && !rc; g++)
            if (!strcmp(G->name[g], e->string))
                rc = -1, snprintf(err, errlen, "%.400s: %.80s: expected each group once, got it again", path,
                                  e->string);
        if (!rc && (!*e->string || strlen(e->string) > CK_PG_MAX))
            rc = -1, snprintf(err, errlen, "%.400s: \"%.80s\": expected a group id of 1 to %d characters", path,
                              e->string, CK_PG_MAX);
        if (!rc)
            rc = group_add(G, path, e->string, e, err, errlen);
    }
    cJSON_Delete(root);
    return rc;
}

/* The group of a collective named pg (NULL: none): group 0 without a name, without a file, or for "0" when the
 * file does not name it (ASTRA-sim's default group, all ranks); -1 for a name the file does not have. */
static int group_of_name(const struct ck_groups *G, bool file, const char *pg)
{
    if (!pg || !file)
        return 0;
    for (uint32_t g = 1; g < G->n; g++)
        if (!strcmp(G->name[g], pg))
            return (int)g;
    return strcmp(pg, "0") ? -1 : 0;
}

/* ---- checks ---- */

/* Rank r's collectives: each in a group that has r (n->grp, n->gk its place among the group's on r), counted per
 * group in cnt; sends and receives with a peer.  0, or -1 with err naming the file and node. */
static int check_rank(const struct workload_conf *wc, const char *path, const struct ck_trace *t, uint32_t r,
                      struct ck_groups *G, uint32_t *cnt, char *err, size_t errlen)
{
    uint32_t N = G->N;
    for (uint32_t i = 0; i < t->n; i++) {
        struct ck_node *n = &t->node[i];
        if (n->type == CK_COLL) {
            int g = group_of_name(G, *wc->comm_groups, n->pg);
            if (g < 0)
                return snprintf(err, errlen, "%.400s: node %u: expected pg_name a group of comm_groups %.200s, got "
                                "\"%s\"", path, i, wc->comm_groups, n->pg), -1;
            if (G->place[(size_t)g * N + r] < 0)
                return snprintf(err, errlen, "%.400s: node %u: expected a collective of a group that has rank %u, "
                                "got group %s", path, i, r, n->pg), -1;
            n->grp = (uint32_t)g;
            n->gk = cnt[g]++;
        } else if (n->type == CK_SEND && n->bytes == 0) {
            return snprintf(err, errlen, "%.400s: node %u: expected comm_size above 0 for a send", path, i), -1;
        } else if ((n->type == CK_SEND || n->type == CK_RECV) &&
                   (n->peer < 0 || (uint32_t)n->peer >= N || (uint32_t)n->peer == r)) {
            return snprintf(err, errlen, "%.400s: node %u: expected comm_%s a rank of 0 to %u other than %u, got %d",
                            path, i, n->type == CK_SEND ? "dst" : "src", N - 1, r, n->peer), -1;
        }
    }
    return 0;
}

/* Every member's k-th collective of a group the same as the group's first member's (rank 0's for all ranks),
 * each send met by a receive; the groups' collectives counted and numbered (G->cnt, base, ref).  0, or -1 with
 * err naming the file (of rank r: path) and node. */
static int ck_check(const struct scenario *s, int ti, struct ck_trace **tr, struct ck_groups *G, char *err,
                    size_t errlen)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    char path[PATH_MAX + 300];
    uint32_t N = G->N, *cnt = mem_xcalloc((size_t)N * G->n, sizeof *cnt, TRAFFIC_OOM);
    int rc = 0;
    for (uint32_t r = 0; r < N && !rc; r++) {
        wl_path(s, wc, (int)r, path, sizeof path);
        rc = check_rank(wc, path, tr[r], r, G, cnt + (size_t)r * G->n, err, errlen);
    }
    G->cnt = mem_xcalloc(G->n, sizeof *G->cnt, TRAFFIC_OOM);
    G->base = mem_xcalloc(G->n + 1, sizeof *G->base, TRAFFIC_OOM);
    for (uint32_t g = 0; g < G->n && !rc; g++) {
        G->cnt[g] = cnt[(size_t)G->member[G->first[g]] * G->n + g];
        G->base[g + 1] = G->base[g] + G->cnt[g];
    }
    G->ref = mem_xcalloc(rc ? 1 : G->base[G->n] + 1, sizeof *G->ref, TRAFFIC_OOM);
    for (uint32_t g = 0; g < G->n && !rc; g++) {
        const struct ck_trace *t = tr[G->member[G->first[g]]];
        for (uint32_t i = 0; i < t->n; i++)
            if (t->node[i].type == CK_COLL && t->node[i].grp == g)
                G->ref[G->base[g] + t->node[i].gk] = i;
    }
    for (uint32_t r = 0; r < N && !rc; r++) {
        const struct ck_trace *t = tr[r];
        wl_path(s, wc, (int)r, path, sizeof path);
        for (uint32_t i = 0; i < t->n && !rc; i++) {
            const struct ck_node *n = &t->node[i];
            if (n->type != CK_COLL)
                continue;
            uint32_t g = n->grp, r0 = G->member[G->first[g]];
            const struct ck_node *m = n->gk < G->cnt[g] ? &tr[r0]->node[G->ref[G->base[g] + n->gk]] : NULL;
            if (!m)
                rc = -1, snprintf(err, errlen, "%.400s: node %u: expected %u collective nodes%s%.80s (rank %u's), got "
                                  "more", path, i, G->cnt[g], g ? " of group " : "", g ? G->name[g] : "", r0);
            else if (m->kind != n->kind || m->bytes != n->bytes)
                rc = -1, snprintf(err, errlen, "%.400s: node %u: expected collective %u%s%.80s to be rank %u's (%s of "
                                  "%lld bytes), got another", path, i, n->gk, g ? " of group " : "",
                                  g ? G->name[g] : "", r0, wl_kind_names[m->kind], (long long)m->bytes);
        }
        for (uint32_t g = 0; g < G->n && !rc; g++)
            if (G->place[(size_t)g * N + r] >= 0 && cnt[(size_t)r * G->n + g] != G->cnt[g])
                rc = -1, snprintf(err, errlen, "%.400s: expected %u collective nodes%s%.80s (rank %u's), got %u", path,
                                  G->cnt[g], g ? " of group " : "", g ? G->name[g] : "", G->member[G->first[g]],
                                  cnt[(size_t)r * G->n + g]);
    }
    free(cnt);
    return rc;
}

/* The receive on rank b of (src a, tag) met by a's send number nth of that kind, or NO_STEP. */
/* A rank's sends or receives in (peer, tag, place in the trace) order (qsort_r's comparison, the trace its
 * context). */
static int by_peer(const void *x, const void *y, void *ctx)
{
    const struct ck_trace *t = ctx;
    const struct ck_node *a = &t->node[*(const uint32_t *)x], *b = &t->node[*(const uint32_t *)y];
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* The nodes of trace t of type (CK_SEND or CK_RECV) in (peer, tag, place) order; their number in *n. */
static uint32_t *sorted_by_peer(const struct ck_trace *t, int type, uint32_t *n)
{
    uint32_t *v = mem_xcalloc(t->n + 1, sizeof *v, TRAFFIC_OOM);
    *n = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->node[i].type == type)
            v[(*n)++] = i;
    qsort_r(v, *n, sizeof *v, by_peer, (void *)t);
    return v;
}

/* Every send of rank a matched to its receive on its peer (NO_STEP: none), into match[i] for send node i: the k-th
 * send from a to b with a tag meets b's k-th receive from a with that tag, as NCCL's and MPI's point-to-point
 * messages of one pair and tag are matched in order.  Sorted runs of both sides, so that a trace of n nodes costs
 * n log n rather than a scan of the peer's trace per send. */
static void match_sends(struct ck_trace **tr, uint32_t **recv_sorted, const uint32_t *n_recv, uint32_t a,
                        uint32_t *match)
{
    uint32_t ns;
    uint32_t *snd = sorted_by_peer(tr[a], CK_SEND, &ns);
    for (uint32_t i = 0; i < tr[a]->n; i++)
        match[i] = NO_STEP;
    for (uint32_t x = 0; x < ns;) {
        const struct ck_node *sn = &tr[a]->node[snd[x]];
        uint32_t end = x + 1;
        while (end < ns && tr[a]->node[snd[end]].peer == sn->peer && tr[a]->node[snd[end]].tag == sn->tag)
            end++;
        uint32_t b = (uint32_t)sn->peer; /* a rank of the workload (ck_check) */
        /* b's receives from a with this tag: the first at or after (a, tag), then in place order */
        const struct ck_trace *tb = tr[b];
        const uint32_t *r = recv_sorted[b];
        uint32_t lo = 0, hi = n_recv[b];
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            const struct ck_node *m = &tb->node[r[mid]];
            if (m->peer < (int32_t)a || (m->peer == (int32_t)a && m->tag < sn->tag))
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t k = x; k < end && lo < n_recv[b] && tb->node[r[lo]].peer == (int32_t)a &&
                             tb->node[r[lo]].tag == sn->tag;
             k++, lo++)
            match[snd[k]] = r[lo];
        x = end;
    }
    free(snd);
}

/* An instance of collective kind over group g's m members from the steps tmp (k_n of them, at step0, their ranks
 * the members' places): each member's parts (its sends and receipts, and its node's readiness) and the steps it
 * sends, in step order. */
static void inst_init(struct ck_inst *in, int kind, uint32_t g, uint32_t m, const struct nccl_step *tmp, uint32_t k_n,
                      uint32_t step0)
{
    *in = (struct ck_inst){kind, g, mem_xcalloc(m, sizeof(uint32_t), TRAFFIC_OOM),
                           mem_xcalloc(m + 1, sizeof(uint32_t), TRAFFIC_OOM),
                           mem_xcalloc(k_n ? k_n : 1, sizeof(uint32_t), TRAFFIC_OOM), -1, -1, 0, m};
    for (uint32_t p = 0; p < m; p++)
        in->left[p] = 1;
    for (uint32_t j = 0; j < k_n; j++) {
        in->left[tmp[j].src]++;
        in->left[tmp[j].dst]++;
        in->first[tmp[j].src + 1]++;
    }
    for (uint32_t p = 0; p < m; p++)
        in->first[p + 1] += in->first[p];
    uint32_t *at = mem_xcalloc(m, sizeof *at, TRAFFIC_OOM);
    for (uint32_t j = 0; j < k_n; j++)
        in->by_src[in->first[tmp[j].src] + at[tmp[j].src]++] = step0 + j;
    free(at);
}

/* The collectives' steps of one iteration (out NULL: only counted) and, with w, their instances: each group's k-th
 * collective over the group's ranks, in the file's order of them, as a ring of its size. */
static uint32_t ck_build_coll(const struct workload_conf *wc, struct ck_trace **tr, const struct ck_groups *G,
                              struct ck_step *out, struct ck_state *w)
{
    uint32_t N = G->N, n = 0, *at = NULL;
    size_t *row = NULL;
    if (out) {
        /* at[row[ii] + p]: the node of instance ii of the member at place p of its group; a row per instance as
         * long as its group, so that the table is as large as the traces' collective nodes, not instances x N */
        row = mem_xcalloc((size_t)G->base[G->n] + 1, sizeof *row, TRAFFIC_OOM);
        size_t cells = 0;
        for (uint32_t g = 0; g < G->n; g++)
            for (uint32_t k = 0; k < G->cnt[g]; k++) {
                row[G->base[g] + k] = cells;
                cells += G->first[g + 1] - G->first[g];
            }
        at = mem_xcalloc_big(cells + 1, sizeof *at, TRAFFIC_OOM);
        for (uint32_t r = 0; r < N; r++)
            for (uint32_t i = 0; i < tr[r]->n; i++) {
                const struct ck_node *nd = &tr[r]->node[i];
                if (nd->type == CK_COLL) {
                    uint32_t ii = G->base[nd->grp] + nd->gk;
                    at[row[ii] + (uint32_t)G->place[(size_t)nd->grp * N + r]] = i;
                    w->rk[r].inst_of[i] = ii;
                }
            }
    }
    for (uint32_t g = 0; g < G->n && n <= WL_MAX_FLOWS; g++) {
        const uint32_t *mem = G->member + G->first[g], m = G->first[g + 1] - G->first[g];
        for (uint32_t k = 0; k < G->cnt[g]; k++) {
            uint32_t ii = G->base[g] + k;
            const struct ck_node *c0 = &tr[mem[0]]->node[G->ref[ii]];
            int op = wl_kind_op[c0->kind];
            uint32_t nc, k_n = nccl_ring_build(op, m, c0->bytes, wc->channels, wc->chunk, NULL, NULL, &nc);
            if (n + (uint64_t)k_n > WL_MAX_FLOWS) {
                n = WL_MAX_FLOWS + 1;
                break;
            }
            if (out) {
                struct nccl_step *tmp = mem_xcalloc(k_n ? k_n : 1, sizeof *tmp, TRAFFIC_OOM);
                uint32_t *conn = mem_xcalloc(k_n ? k_n : 1, sizeof *conn, TRAFFIC_OOM);
                nccl_ring_build(op, m, c0->bytes, wc->channels, wc->chunk, tmp, conn, NULL);
                inst_init(&w->inst[ii], c0->kind, g, m, tmp, k_n, n);
                w->inst[ii].bytes = c0->bytes;
                for (uint32_t j = 0; j < k_n; j++) {
                    struct nccl_step st = tmp[j];
                    uint32_t sn = at[row[ii] + st.src], rn = at[row[ii] + st.dst]; /* by place, before ranks */
                    st.src = mem[st.src], st.dst = mem[st.dst];
                    for (int q = 0; q < NCCL_WAITERS; q++)
                        st.on_recv[q] = st.on_recv[q] == NO_STEP ? NO_STEP : n + st.on_recv[q];
                    st.on_ack = st.on_ack == NO_STEP ? NO_STEP : n + st.on_ack;
                    st.need++; /* its sender's node ready */
                    out[n + j] = (struct ck_step){st, ii, sn, rn, w->n_qps + conn[j]};
                }
                free(tmp);
                free(conn);
                w->n_qps += nc;
            }
            n += k_n;
        }
    }
    free(at);
    free(row);
    return n;
}

/* The sends' flows after the collectives' n (out NULL: only counted), each met by its receive.  The flows, or
 * UINT32_MAX with err naming the file and node of a send or receive met by none. */
static uint32_t ck_build_p2p(const struct scenario *s, int ti, struct ck_trace **tr, uint32_t N, struct ck_step *out,
                             struct ck_state *w, uint32_t n, char *err, size_t errlen)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    char path[PATH_MAX + 300];
    uint8_t **met = mem_xcalloc(N, sizeof *met, TRAFFIC_OOM);
    uint32_t **recv_sorted = mem_xcalloc(N, sizeof *recv_sorted, TRAFFIC_OOM);
    uint32_t *n_recv = mem_xcalloc(N, sizeof *n_recv, TRAFFIC_OOM), *match = NULL, match_cap = 0;
    uint32_t rc = n;
    for (uint32_t b = 0; b < N; b++) {
        met[b] = mem_xcalloc(tr[b]->n + 1, 1, TRAFFIC_OOM);
        recv_sorted[b] = sorted_by_peer(tr[b], CK_RECV, &n_recv[b]);
    }
    for (uint32_t a = 0; a < N && rc != UINT32_MAX; a++) {
        if (tr[a]->n + 1 > match_cap) {
            match_cap = tr[a]->n + 1;
            match = mem_xrealloc(match, match_cap * sizeof *match, TRAFFIC_OOM);
        }
        match_sends(tr, recv_sorted, n_recv, a, match);
        for (uint32_t i = 0; i < tr[a]->n && rc != UINT32_MAX; i++) {
            const struct ck_node *sn = &tr[a]->node[i];
            if (sn->type != CK_SEND)
                continue;
            uint32_t b = (uint32_t)sn->peer, j = match[i];
            if (j == NO_STEP) {
                wl_path(s, wc, (int)a, path, sizeof path);
                snprintf(err, errlen, "%.400s: node %u: expected a COMM_RECV_NODE of comm_src %u and comm_tag %d on "
                         "rank %u for this send, got none", path, i, a, sn->tag, b);
                rc = UINT32_MAX;
                break;
            }
            met[b][j] = 1;
            if (out) {
                out[rc] = (struct ck_step){{a, b, sn->bytes, {NO_STEP, NO_STEP, NO_STEP}, NO_STEP, 1}, NO_STEP, i, j, NO_STEP};
                w->rk[a].inst_of[i] = rc;
            }
            rc = rc + 1 > WL_MAX_FLOWS ? WL_MAX_FLOWS + 1 : rc + 1;
        }
    }
    for (uint32_t b = 0; b < N && rc != UINT32_MAX; b++)
        for (uint32_t j = 0; j < tr[b]->n; j++)
            if (tr[b]->node[j].type == CK_RECV && !met[b][j]) {
                wl_path(s, wc, (int)b, path, sizeof path);
                snprintf(err, errlen, "%.400s: node %u: expected a COMM_SEND_NODE on rank %d to meet this receive, got "
                         "none", path, j, tr[b]->node[j].peer);
                rc = UINT32_MAX;
                break;
            }
    for (uint32_t b = 0; b < N; b++) {
        free(met[b]);
        free(recv_sorted[b]);
    }
    free(met);
    free(recv_sorted);
    free(n_recv);
    free(match);
    return rc;
}

/* Rank k's bookkeeping: the nodes waiting for each, its roots, its compute per iteration. */
static void rank_init(struct ck_rank *k, uint32_t iters)
{
    uint32_t n = k->t->n, tot = 0;
    k->need = mem_xcalloc(n + 1, sizeof *k->need, TRAFFIC_OOM);
    k->dep_first = mem_xcalloc(n + 2, sizeof *k->dep_first, TRAFFIC_OOM);
    k->q = mem_xcalloc(n + 1, sizeof *k->q, TRAFFIC_OOM);
    k->t0 = mem_xcalloc(n + 1, sizeof *k->t0, TRAFFIC_OOM);
    k->got = mem_xcalloc(n + 1, sizeof *k->got, TRAFFIC_OOM);
    k->roots = mem_xcalloc(n + 1, sizeof *k->roots, TRAFFIC_OOM);
    k->iter_end = mem_xcalloc(iters, sizeof *k->iter_end, TRAFFIC_OOM);
    for (uint32_t i = 0; i < n; i++) {
        const struct ck_node *nd = &k->t->node[i];
        k->compute_ps += nd->type == CK_COMP ? nd->dur_ps : 0;
        if (!nd->n_deps)
            k->roots[k->n_roots++] = i;
        for (uint32_t d = 0; d < nd->n_deps; d++)
            k->dep_first[nd->deps[d] + 1]++;
        tot += nd->n_deps;
    }
    for (uint32_t i = 0; i < n; i++)
        k->dep_first[i + 1] += k->dep_first[i];
    k->dep_list = mem_xcalloc(tot + 1, sizeof *k->dep_list, TRAFFIC_OOM);
    uint32_t *at = mem_xcalloc(n + 1, sizeof *at, TRAFFIC_OOM);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < k->t->node[i].n_deps; d++) {
            uint32_t p = k->t->node[i].deps[d];
            k->dep_list[k->dep_first[p] + at[p]++] = i;
        }
    free(at);
}

/* The traces and groups of entry ti, read and checked, and their flows (all iterations') counted.  The flows, or
 * UINT32_MAX with err. */
static uint32_t ck_prepare_lines(const struct scenario *s, int ti, struct ck_trace **tr, struct ck_groups *G,
                                 char *err, size_t errlen)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    uint32_t N = (uint32_t)wc->hosts.n;
    char cerr[1024];
    if (groups_load(s, wc, N, G, cerr, sizeof cerr))
        return snprintf(err, errlen, "%s: traffic.%d.comm_groups: %s", s->file, ti, cerr), UINT32_MAX;
    if (ck_load(s, ti, tr, err, errlen))
        return UINT32_MAX;
    if (ck_check(s, ti, tr, G, cerr, sizeof cerr))
        return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, cerr), UINT32_MAX;
    uint32_t n = ck_build_coll(wc, tr, G, NULL, NULL);
    if (n <= WL_MAX_FLOWS)
        n = ck_build_p2p(s, ti, tr, N, NULL, NULL, n, cerr, sizeof cerr);
    if (n == UINT32_MAX)
        return snprintf(err, errlen, "%s: traffic.%d.file: %s", s->file, ti, cerr), UINT32_MAX;
    if ((uint64_t)n * (uint32_t)wc->iterations > WL_MAX_FLOWS)
        return snprintf(err, errlen, "%s: traffic.%d.chunk: expected a chunk that leaves at most %u flows (all "
                        "iterations), got more", s->file, ti, WL_MAX_FLOWS), UINT32_MAX;
    return n * (uint32_t)wc->iterations;
}

/* ck_prepare_lines, its message one line: it may quote a group's id or a pg_name as written. */
static uint32_t ck_prepare(const struct scenario *s, int ti, struct ck_trace **tr, struct ck_groups *G, char *err,
                           size_t errlen)
{
    uint32_t n = ck_prepare_lines(s, ti, tr, G, err, errlen);
    if (n == UINT32_MAX)
        scn_one_line(err);
    return n;
}

static char *ck_timeline(const struct coll *c)
{
    const struct ck_state *w = c->t->state[c->entry];
    return tl_csv(w->tl, w->N);
}

/* Iterations 1 .. K - 1 of the steps (steps[0 .. S) iteration 0's) and instances: the same, each its own flows. */
static void ck_repeat(struct ck_state *w, struct ck_step *steps)
{
    uint32_t S = w->n_steps, I = w->n_inst;
    for (uint32_t it = 1; it < w->iters; it++) {
        for (uint32_t j = 0; j < S; j++) {
            struct ck_step st = steps[j];
            for (int q = 0; q < NCCL_WAITERS; q++)
                st.s.on_recv[q] = st.s.on_recv[q] == NO_STEP ? NO_STEP : st.s.on_recv[q] + it * S;
            st.s.on_ack = st.s.on_ack == NO_STEP ? NO_STEP : st.s.on_ack + it * S;
            st.inst = st.inst == NO_STEP ? NO_STEP : st.inst + it * I;
            steps[it * S + j] = st;
        }
        for (uint32_t ii = 0; ii < I; ii++) {
            const struct ck_inst *a = &w->inst[ii];
            struct ck_inst *b = &w->inst[it * I + ii];
            /* its parts left alone: which steps each member sends is iteration 0's (ck_ready) */
            *b = (struct ck_inst){a->kind, a->g, mem_xcalloc(a->m, sizeof(uint32_t), TRAFFIC_OOM), NULL, NULL, -1, -1,
                                  a->bytes, a->m};
            memcpy(b->left, a->left, a->m * sizeof *b->left);
        }
    }
}

int ck_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    const struct scenario *scn = t->net->scn;
    const struct workload_conf *wc = TRAFFIC_CONF(&scn->traffic[ti], struct workload_conf);
    uint32_t N = (uint32_t)wc->hosts.n;
    struct ck_state *w = mem_xcalloc(1, sizeof *w, TRAFFIC_OOM);
    struct ck_trace **tr = mem_xcalloc(N, sizeof *tr, TRAFFIC_OOM);
    t->state[ti] = w;
    w->N = N;
    w->iters = (uint32_t)wc->iterations;
    w->rk = mem_xcalloc(N, sizeof *w->rk, TRAFFIC_OOM);
    w->tl = mem_xcalloc(N, sizeof *w->tl, TRAFFIC_OOM);
    uint32_t n_steps = ck_prepare(scn, ti, tr, &w->g, err, errlen);
    for (uint32_t r = 0; r < N; r++)
        w->rk[r].t = tr[r];
    if (n_steps == UINT32_MAX) {
        free(tr);
        return SCN_EUSAGE;
    }
    for (uint32_t r = 0; r < N; r++) {
        rank_init(&w->rk[r], w->iters);
        w->rk[r].inst_of = mem_xcalloc(tr[r]->n + 1, sizeof *w->rk[r].inst_of, TRAFFIC_OOM);
    }
    w->n_inst = w->g.base[w->g.n];
    w->n_steps = n_steps / w->iters;
    w->inst = mem_xcalloc((size_t)w->n_inst * w->iters + 1, sizeof *w->inst, TRAFFIC_OOM);
    struct coll *c = w->c = coll_add(t, ti);
    c->owner.ops = &ck_owner;
    c->place = ck_place;
    c->summary = ck_summary;
    c->timeline = ck_timeline;
    c->n_ranks = c->total_ranks = N;
    c->host = mem_xcalloc(N, sizeof *c->host, TRAFFIC_OOM);
    for (uint32_t r = 0; r < N; r++)
        c->host[r] = (uint32_t)wc->hosts.idx[r];
    c->channels = wc->channels;
    struct ck_step *steps = mem_xcalloc_big(n_steps ? n_steps : 1, sizeof *steps, TRAFFIC_OOM);
    uint32_t n = ck_build_coll(wc, tr, &w->g, steps, w);
    w->qps = mem_xcalloc(w->n_qps ? w->n_qps : 1, sizeof *w->qps, TRAFFIC_OOM);
    ck_build_p2p(scn, ti, tr, N, steps, w, n, err, errlen);
    free(tr);
    ck_repeat(w, steps);
    c->sched = steps;
    c->n_flows = n_steps;
    c->parts = 2 * n_steps + N; /* every flow's receipt and last ACK, and every rank's end */
    coll_schedule(c, ck_start);
    return 0;
}

void ck_release(struct traffic *t, int ti)
{
    struct ck_state *w = t->state[ti];
    for (uint32_t i = 0; w->inst && i < w->n_inst * w->iters; i++)
        free(w->inst[i].left), free(w->inst[i].first), free(w->inst[i].by_src);
    free(w->inst);
    free(w->qps);
    for (uint32_t r = 0; w->rk && r < w->N; r++) {
        struct ck_rank *k = &w->rk[r];
        free(k->need), free(k->dep_first), free(k->dep_list), free(k->q), free(k->inst_of), free(k->t0);
        free(k->got), free(k->roots), free(k->iter_end);
        ck_trace_free(k->t);
    }
    free(w->rk);
    tl_free(w->tl, w->N);
    groups_free(&w->g);
    free(w);
    t->state[ti] = NULL;
}

uint32_t ck_count(const struct scenario *s, int ti)
{
    const struct workload_conf *wc = TRAFFIC_CONF(&s->traffic[ti], struct workload_conf);
    struct ck_trace **tr = mem_xcalloc((size_t)wc->hosts.n + 1, sizeof *tr, TRAFFIC_OOM);
    struct ck_groups G;
    char err[SCN_ERR_MAX];
    uint32_t n = ck_prepare(s, ti, tr, &G, err, sizeof err);
    for (int r = 0; r < wc->hosts.n; r++)
        ck_trace_free(tr[r]);
    free(tr);
    groups_free(&G);
    return n == UINT32_MAX ? 0 : n;
}
