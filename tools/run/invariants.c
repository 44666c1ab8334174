/* invariants — end-of-run checks (see invariants.h). */
#include "tools/run/invariants.h"

#include <stdio.h>

struct inv_leftover inv_leftover(const struct run *r)
{
    const struct net *n = &r->net;
    struct inv_leftover lo = {0, 0, 0, 0};
    for (uint32_t i = 0; i < n->g->n_ports; i++) {
        const struct port *p = &n->ports[i];
        for (int prio = 0; prio < NPRIO; prio++) {
            for (const struct pkt *k = port_pp(p, prio)->q.head; k; k = k->next) {
                if (k->type == PKT_DATA) {
                    lo.data_frames++;
                } else {
                    lo.ctrl_frames++;
                    if (p->kind != NODE_HOST)
                        lo.ctrl_bytes_sw += sw_frame_bytes(n->node_sw[p->node], k->size);
                }
            }
            lo.paused_queues += (p->paused >> prio) & 1;
        }
    }
    return lo;
}

int inv_check_end(const struct run *r, char *err, size_t errlen)
{
    const struct net *n = &r->net;
    if (net_check_invariants(n, err, errlen))
        return -1;
    if (!r->finished)
        return 0;
    const struct net_counters *c = &n->c;
    if (c->data_in_flight || c->data_bytes_in_flight || c->data_sent != c->data_delivered + c->data_dropped ||
        c->bytes_sent != c->bytes_delivered + c->bytes_dropped) {
        snprintf(err, errlen, "traffic finished with %llu data packets (%llu bytes) in flight",
                 (unsigned long long)c->data_in_flight, (unsigned long long)c->data_bytes_in_flight);
        return -1;
    }
    struct inv_leftover lo = inv_leftover(r);
    int64_t held = 0;
    for (uint32_t i = 0; i < n->g->n_switches; i++)
        held += n->sws[i].buffered;
    if (lo.data_frames || held != lo.ctrl_bytes_sw) {
        snprintf(err, errlen,
                 "traffic finished but %llu data frames are queued and switch buffers hold %lld bytes "
                 "(%lld of them control frames)",
                 (unsigned long long)lo.data_frames, (long long)held, (long long)lo.ctrl_bytes_sw);
        return -1;
    }
    return 0;
}
