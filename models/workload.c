/*
 * workload — what the workload kind's formats share (workload.h): the collectives' names, the path of an entry's
 * file, and the timeline a run writes (timeline.csv, docs/outputs.md), which either format fills.
 */
#include "models/workload.h"
#include "models/nic.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const wl_kind_names[WL_KINDS] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"};
const int wl_kind_op[WL_KINDS] = {OP_ALL_REDUCE, OP_ALL_GATHER, OP_REDUCE_SCATTER, OP_ALL_TO_ALL};

void tl_add(struct tl_rank *t, int what, sim_time_t start, sim_time_t end)
{
    if (end <= start)
        return;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->row = mem_xrealloc(t->row, t->cap * sizeof *t->row, TRAFFIC_OOM);
    }
    t->row[t->n++] = (struct tl_row){start, end, what};
}

char *tl_csv(const struct tl_rank *t, uint32_t N)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        mem_oom(TRAFFIC_OOM);
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t i = 0; i < t[r].n; i++) {
            const struct tl_row *w = &t[r].row[i];
            fprintf(f, "%u,%s,%.6f,%.6f\n", r,
                    w->what == TL_COMPUTE ? "compute" : w->what == TL_P2P ? "send_recv" : wl_kind_names[w->what - 1],
                    units_ps_to_ns(w->start) / 1e3, units_ps_to_ns(w->end) / 1e3);
        }
    fclose(f);
    if (!len)
        free(out), out = NULL;
    return out;
}

void tl_free(struct tl_rank *t, uint32_t N)
{
    for (uint32_t r = 0; t && r < N; r++)
        free(t[r].row);
    free(t);
}

void wl_path(const struct scenario *s, const struct workload_conf *wc, int rank, char *out, size_t outlen)
{
    wl_path_of(s, wc->file, rank, out, outlen);
}

void wl_path_of(const struct scenario *s, const char *file, int rank, char *out, size_t outlen)
{
    char dir[PATH_MAX], name[300];
    const char *at = rank >= 0 ? strstr(file, "{rank}") : NULL;
    if (at)
        snprintf(name, sizeof name, "%.*s%d%s", (int)(at - file), file, rank, at + 6);
    else
        snprintf(name, sizeof name, "%s", file);
    snprintf(dir, sizeof dir, "%s", s->file);
    if (name[0] == '/' || !strcmp(dirname(dir), "."))
        snprintf(out, outlen, "%s", name);
    else
        snprintf(out, outlen, "%s/%s", dir, name);
}

void wl_time_min(sim_time_t *p, sim_time_t v)
{
    sim_time_t was = __atomic_load_n(p, __ATOMIC_RELAXED);
    while ((was < 0 || v < was) && !__atomic_compare_exchange_n(p, &was, v, false, __ATOMIC_RELAXED,
                                                                 __ATOMIC_RELAXED))
        ;
}

void wl_time_max(sim_time_t *p, sim_time_t v)
{
    sim_time_t was = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > was && !__atomic_compare_exchange_n(p, &was, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void wl_step_ready(struct coll *c, uint32_t k, uint8_t *need, uint32_t qp, struct nic_qp *qps)
{
    if (--*need)
        return;
    struct flow *f = coll_send(c, k);
    if (qp != NO_STEP)
        f->qp = &qps[qp];
}

void wl_kinds_json(cJSON *o, const double *ns, const double *bus)
{
    cJSON *k = cJSON_AddObjectToObject(o, "collective_ns");
    for (int i = 0; i < WL_KINDS; i++)
        cJSON_AddNumberToObject(k, wl_kind_names[i], ns[i]);
    cJSON *b = cJSON_AddObjectToObject(o, "collective_busbw_GBps");
    for (int i = 0; i < WL_KINDS; i++)
        cJSON_AddItemToObject(b, wl_kind_names[i], ns[i] > 0 ? cJSON_CreateNumber(bus[i] / ns[i]) : cJSON_CreateNull());
}
