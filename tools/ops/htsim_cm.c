/*
 * htsim_cm — the UEC reference simulator's connection matrix (ultraethernet/uet-htsim,
 * htsim/sim/datacenter/connection_matrix.cpp, ConnectionMatrix::load), read and written.
 *
 * A line is split on single spaces (two spaces make an empty token, which no keyword matches).  The header (Nodes,
 * Connections, Triggers, Failures, and comments starting with #) lasts until the first line whose first token holds
 * "->" or is "trigger" or "failure"; after it a comment is an unknown line, as the reference reads it.  Every
 * count the header gives is checked exactly.  A connection `SRC->DST` takes `start` (us, a float truncated to whole
 * us when the flow starts), `size` (bytes), `id` (> 0), `trigger`, `send_done_trigger`, `recv_done_trigger`,
 * `prio` (parsed, unused) and `msg` (only with -conn_reuse).  A `trigger` keyword needs the flow's id before it
 * (the reference asserts); `start` given after `trigger` is an error, before it the trigger wins.  A trigger line is
 * `trigger id N oneshot|multishot|barrier [count K]`.  What the reference would stop on with an assertion or an
 * uncaught exception is refused here with the reason.  A trailing CR is dropped (files edited on Windows).
 */
#include "tools/ops/htsim.h"
#include "tools/common/text.h"
#include "sim/mem.h"
#include "sim/scenario.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CM_OOM "reading a connection matrix"
#define MAX_TOKENS 64

/* Splits line in place on single spaces, as getline(ss, s, ' ') does: no token after a trailing space. */
static int split(char *line, char **tok, int max)
{
    int n = 0;
    if (!*line)
        return 0;
    for (char *p = line;;) {
        char *sp = strchr(p, ' ');
        if (n == max)
            return -1;
        tok[n++] = p;
        if (!sp)
            break;
        *sp = '\0';
        p = sp + 1;
        if (!*p)
            break;
    }
    return n;
}

static struct htsim_trig *find_trig(struct htsim_cm *cm, uint32_t id)
{
    for (size_t i = 0; i < cm->n_trigs; i++)
        if (cm->trigs[i].id == id)
            return &cm->trigs[i];
    return NULL;
}

static struct htsim_trig *add_trig(struct htsim_cm *cm, size_t *cap, uint32_t id)
{
    if (cm->n_trigs == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        cm->trigs = mem_xrealloc(cm->trigs, *cap * sizeof *cm->trigs, CM_OOM);
    }
    struct htsim_trig *t = &cm->trigs[cm->n_trigs++];
    *t = (struct htsim_trig){.id = id};
    return t;
}

struct cm_state {
    const char *file;
    char *err;
    size_t errlen;
    struct htsim_cm *cm;
    size_t conn_cap, trig_cap;
    uint64_t n_conns_decl, n_trigs_decl, n_fail_decl, trig_lines, fail_lines;
    bool have_conns;
};

/* The value after keyword tok[*i], which must be a whole number in [lo, max]. */
static int kw_uint(struct cm_state *st, int line, char **tok, int n, int *i, uint64_t lo, uint64_t max, uint64_t *v)
{
    const char *kw = tok[*i];
    if (*i + 1 >= n)
        return text_fail_at(st->err, st->errlen, st->file, line, "%s: expected a value after it, got the end of the line",
                       kw);
    const char *s = tok[++*i];
    if (!text_uint(s, max, v) || *v < lo)
        return text_fail_at(st->err, st->errlen, st->file, line,
                       "%s: expected a whole number from %llu to %llu, got \"%.40s\"", kw, (unsigned long long)lo,
                       (unsigned long long)max, s);
    return 0;
}

static int header_line(struct cm_state *st, int line, char **tok, int n)
{
    uint64_t *dst = NULL;
    if (!strcmp(tok[0], "Nodes")) {
        uint64_t v;
        int i = 0;
        if (kw_uint(st, line, tok, n, &i, 1, 1000000, &v))
            return SCN_EUSAGE;
        st->cm->nodes = (uint32_t)v;
        return 0;
    }
    if (!strcmp(tok[0], "Connections"))
        dst = &st->n_conns_decl;
    else if (!strcmp(tok[0], "Triggers"))
        dst = &st->n_trigs_decl;
    else if (!strcmp(tok[0], "Failures"))
        dst = &st->n_fail_decl;
    if (!dst)
        return 0; /* the reference skips any other header line */
    int i = 0;
    return kw_uint(st, line, tok, n, &i, 0, INT_MAX, dst);
}

static int conn_line(struct cm_state *st, int line, char **tok, int n)
{
    struct htsim_cm *cm = st->cm;
    char *arrow = strstr(tok[0], "->");
    uint64_t v;
    *arrow = '\0';
    struct htsim_conn c = {.line = line};
    if (!text_uint(tok[0], 999999, &v) || (c.src = (uint32_t)v, !text_uint(arrow + 2, 999999, &v)))
        return text_fail_at(st->err, st->errlen, st->file, line, "expected a connection SRC->DST of two host numbers, got "
                       "\"%.20s->%.20s\"", tok[0], arrow + 2);
    c.dst = (uint32_t)v;
    bool trigger_seen = false, size_seen = false;
    for (int i = 1; i < n; i++) {
        const char *kw = tok[i];
        if (!strcmp(kw, "start")) {
            if (i + 1 >= n)
                return text_fail_at(st->err, st->errlen, st->file, line, "start: expected a value after it, got the end of "
                               "the line");
            char *end;
            errno = 0;
            /* stof, then (uint32_t): whole microseconds */
            float f = strtof(tok[++i], &end);
            if (end == tok[i] || *end || errno || !(f >= 0) || f >= 4294967296.0f)
                return text_fail_at(st->err, st->errlen, st->file, line,
                               "start: expected microseconds from 0 to 4294967295, got \"%.40s\"", tok[i]);
            if (trigger_seen)
                return text_fail_at(st->err, st->errlen, st->file, line, "both start time and trigger given (a start after "
                               "the trigger: the reference refuses it)");
            c.start_us = (uint32_t)f;
            c.has_start = true;
        } else if (!strcmp(kw, "size")) {
            if (kw_uint(st, line, tok, n, &i, 1, INT_MAX, &v))
                return SCN_EUSAGE;
            c.size = (int64_t)v;
            size_seen = true;
        } else if (!strcmp(kw, "id")) {
            if (kw_uint(st, line, tok, n, &i, 1, INT_MAX, &v))
                return SCN_EUSAGE;
            c.id = (uint32_t)v;
        } else if (!strcmp(kw, "trigger") || !strcmp(kw, "send_done_trigger") || !strcmp(kw, "recv_done_trigger")) {
            if (kw_uint(st, line, tok, n, &i, 1, INT_MAX, &v))
                return SCN_EUSAGE;
            if (kw[0] == 't') {
                if (!c.id)
                    return text_fail_at(st->err, st->errlen, st->file, line, "trigger: the flow needs its id before the "
                                   "trigger (the reference asserts)");
                c.trigger = (uint32_t)v;
                c.has_start = false;
                trigger_seen = true;
                if (!find_trig(cm, c.trigger))
                    add_trig(cm, &st->trig_cap, c.trigger)->line = line;
            } else if (kw[0] == 's') {
                c.send_done = (uint32_t)v;
            } else {
                c.recv_done = (uint32_t)v;
            }
        } else if (!strcmp(kw, "prio")) {
            if (i + 1 >= n || !text_uint(tok[i + 1][0] == '-' ? tok[i + 1] + 1 : tok[i + 1], INT_MAX, &v))
                return text_fail_at(st->err, st->errlen, st->file, line, "prio: expected a whole number");
            i++;
        } else if (!strcmp(kw, "msg")) {
            return text_fail_at(st->err, st->errlen, st->file, line, "msg: not modelled (several messages on one "
                           "connection need -conn_reuse, which rocesim does not model yet)");
        } else {
            return text_fail_at(st->err, st->errlen, st->file, line, "unknown keyword \"%.40s\" (expected start, size, id, "
                           "trigger, send_done_trigger, recv_done_trigger, prio or msg)", kw);
        }
    }
    if (!c.has_start && !c.trigger)
        return text_fail_at(st->err, st->errlen, st->file, line, "no start method given (start or trigger)");
    if (!size_seen)
        return text_fail_at(st->err, st->errlen, st->file, line, "no size given (the reference reads an undefined size)");
    if (cm->n_conns == st->conn_cap) {
        st->conn_cap = st->conn_cap ? 2 * st->conn_cap : 64;
        cm->conns = mem_xrealloc(cm->conns, st->conn_cap * sizeof *cm->conns, CM_OOM);
    }
    cm->conns[cm->n_conns++] = c;
    return 0;
}

static int trig_line(struct cm_state *st, int line, char **tok, int n)
{
    uint64_t v, id = 0, count = 0;
    enum htsim_trig_type type = HTSIM_TRIG_NONE;
    st->trig_lines++;
    for (int i = 1; i < n; i++) {
        const char *kw = tok[i];
        enum htsim_trig_type ty = !strcmp(kw, "oneshot")     ? HTSIM_TRIG_ONESHOT
                                  : !strcmp(kw, "multishot") ? HTSIM_TRIG_MULTISHOT
                                  : !strcmp(kw, "barrier")   ? HTSIM_TRIG_BARRIER
                                                             : HTSIM_TRIG_NONE;
        if (!strcmp(kw, "id")) {
            if (kw_uint(st, line, tok, n, &i, 1, INT_MAX, &v))
                return SCN_EUSAGE;
            id = v;
        } else if (!strcmp(kw, "count")) {
            if (kw_uint(st, line, tok, n, &i, 0, INT_MAX, &v))
                return SCN_EUSAGE;
            count = v;
        } else if (ty != HTSIM_TRIG_NONE) {
            if (type != HTSIM_TRIG_NONE)
                return text_fail_at(st->err, st->errlen, st->file, line, "a trigger of two types (the reference asserts)");
            type = ty;
        } else {
            return text_fail_at(st->err, st->errlen, st->file, line, "unknown keyword \"%.40s\" (expected id, oneshot, "
                           "multishot, barrier or count)", kw);
        }
    }
    if (!id)
        return text_fail_at(st->err, st->errlen, st->file, line, "trigger with no id");
    if (type == HTSIM_TRIG_NONE)
        return text_fail_at(st->err, st->errlen, st->file, line, "trigger with no type (oneshot, multishot or barrier)");
    struct htsim_trig *t = find_trig(st->cm, (uint32_t)id);
    if (t && t->type != HTSIM_TRIG_NONE)
        return text_fail_at(st->err, st->errlen, st->file, line, "trigger %llu declared twice (first at line %d; the "
                       "reference asserts)", (unsigned long long)id, t->line);
    if (!t)
        t = add_trig(st->cm, &st->trig_cap, (uint32_t)id);
    t->type = type;
    t->count = (uint32_t)count;
    t->line = line;
    return 0;
}

static int fail_line(struct cm_state *st, int line, char **tok, int n)
{
    if (++st->fail_lines > st->n_fail_decl)
        return text_fail_at(st->err, st->errlen, st->file, line, "more failure lines than the header's Failures %llu (the "
                       "reference asserts)", (unsigned long long)st->n_fail_decl);
    for (int i = 1; i < n; i++) {
        if (!strcmp(tok[i], "switch_type")) {
            if (i + 1 >= n || (strcmp(tok[i + 1], "TOR") && strcmp(tok[i + 1], "AGG") && strcmp(tok[i + 1], "CORE")))
                return text_fail_at(st->err, st->errlen, st->file, line, "switch_type: expected TOR, AGG or CORE");
            i++;
        } else if (!strcmp(tok[i], "switch_id") || !strcmp(tok[i], "link_id")) {
            uint64_t v;
            if (kw_uint(st, line, tok, n, &i, 0, INT_MAX, &v))
                return SCN_EUSAGE;
        } else {
            return text_fail_at(st->err, st->errlen, st->file, line, "unknown failure attribute \"%.40s\" (expected "
                           "switch_type, switch_id or link_id)", tok[i]);
        }
    }
    if (!st->cm->first_failure_line)
        st->cm->first_failure_line = line;
    return 0;
}

int htsim_cm_parse(const char *file, char *text, struct htsim_cm *cm, char *err, size_t errlen)
{
    *cm = (struct htsim_cm){0};
    struct cm_state st = {.file = file, .err = err, .errlen = errlen, .cm = cm};
    bool header = true;
    int line = 0, last_line = 0, rc = 0;
    char *tok[MAX_TOKENS];
    for (char *p = text; p && *p && !rc;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        size_t len = strlen(p);
        if (len && p[len - 1] == '\r')
            p[len - 1] = '\0';
        line++;
        last_line = line;
        int n = split(p, tok, MAX_TOKENS);
        p = nl ? nl + 1 : NULL;
        if (n < 0) {
            rc = text_fail_at(err, errlen, file, line, "more than %d tokens on one line", MAX_TOKENS);
            break;
        }
        if (n == 0)
            continue;
        bool body = strstr(tok[0], "->") || !strcmp(tok[0], "trigger") || !strcmp(tok[0], "failure");
        if (header && !body) {
            if (tok[0][0] != '#')
                rc = header_line(&st, line, tok, n);
            continue;
        }
        header = false;
        if (strstr(tok[0], "->"))
            rc = conn_line(&st, line, tok, n);
        else if (!strcmp(tok[0], "trigger"))
            rc = trig_line(&st, line, tok, n);
        else if (!strcmp(tok[0], "failure"))
            rc = fail_line(&st, line, tok, n);
        else
            rc = text_fail_at(err, errlen, file, line, "unknown line \"%.40s\" (after the header only connections, "
                         "trigger and failure lines; comments only before them)", tok[0]);
    }
    if (!rc && cm->n_conns != st.n_conns_decl)
        rc = text_fail_at(err, errlen, file, last_line, "Connections %llu in the header, %zu connection lines",
                     (unsigned long long)st.n_conns_decl, cm->n_conns);
    if (!rc && st.trig_lines != st.n_trigs_decl)
        rc = text_fail_at(err, errlen, file, last_line, "Triggers %llu in the header, %llu trigger lines",
                     (unsigned long long)st.n_trigs_decl, (unsigned long long)st.trig_lines);
    if (!rc && st.fail_lines != st.n_fail_decl)
        rc = text_fail_at(err, errlen, file, last_line, "Failures %llu in the header, %llu failure lines",
                     (unsigned long long)st.n_fail_decl, (unsigned long long)st.fail_lines);
    for (size_t i = 0; !rc && i < cm->n_trigs; i++)
        if (cm->trigs[i].type == HTSIM_TRIG_NONE)
            rc = text_fail_at(err, errlen, file, cm->trigs[i].line, "trigger %u referenced but never declared",
                         cm->trigs[i].id);
    for (size_t i = 0; !rc && i < cm->n_conns; i++) {
        const struct htsim_conn *c = &cm->conns[i];
        for (size_t j = 0; j < i && c->id; j++)
            if (cm->conns[j].id == c->id) {
                rc = text_fail_at(err, errlen, file, c->line, "flow id %u already used at line %d (the reference asserts)",
                             c->id, cm->conns[j].line);
                break;
            }
        uint32_t fired[2] = {c->send_done, c->recv_done};
        for (int k = 0; !rc && k < 2; k++)
            if (fired[k] && !find_trig(cm, fired[k]))
                rc = text_fail_at(err, errlen, file, c->line, "%s %u: no such trigger (the reference stops on it)",
                             k ? "recv_done_trigger" : "send_done_trigger", fired[k]);
    }
    if (rc)
        htsim_cm_free(cm);
    return rc;
}

void htsim_cm_free(struct htsim_cm *cm)
{
    free(cm->conns);
    free(cm->trigs);
    *cm = (struct htsim_cm){0};
}

void htsim_cm_write(const struct htsim_cm *cm, struct sbuf *out)
{
    size_t n_decl = 0;
    for (size_t i = 0; i < cm->n_trigs; i++)
        n_decl += cm->trigs[i].type != HTSIM_TRIG_NONE;
    sb_printf(out, "Nodes %u\nConnections %zu\n", cm->nodes, cm->n_conns);
    if (n_decl)
        sb_printf(out, "Triggers %zu\n", n_decl);
    for (size_t i = 0; i < cm->n_conns; i++) {
        const struct htsim_conn *c = &cm->conns[i];
        sb_printf(out, "%u->%u", c->src, c->dst);
        if (c->id)
            sb_printf(out, " id %u", c->id);
        if (c->has_start)
            sb_printf(out, " start %u", c->start_us);
        else
            sb_printf(out, " trigger %u", c->trigger);
        sb_printf(out, " size %lld", (long long)c->size);
        if (c->send_done)
            sb_printf(out, " send_done_trigger %u", c->send_done);
        if (c->recv_done)
            sb_printf(out, " recv_done_trigger %u", c->recv_done);
        sb_printf(out, "\n");
    }
    static const char *const names[] = {"", "oneshot", "multishot", "barrier"};
    for (size_t i = 0; i < cm->n_trigs; i++) {
        const struct htsim_trig *t = &cm->trigs[i];
        if (t->type == HTSIM_TRIG_NONE)
            continue;
        sb_printf(out, "trigger id %u %s", t->id, names[t->type]);
        if (t->type == HTSIM_TRIG_BARRIER)
            sb_printf(out, " count %u", t->count);
        sb_printf(out, "\n");
    }
}
