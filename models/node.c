/*
 * node — the table of each kind of node (node.h): what a port asks of a switch
 * (switch.c) or of a host NIC (nic.c), and the engine's prefetch hooks for
 * them.  The hooks of a switch are apart from switch.c so that the routing
 * lookup stays inlined into switch_receive, its one caller there.
 */
#include "models/node.h"
#include "models/nic.h"
#include "models/route.h"
#include "models/switch.h"

#include <stddef.h>

static void host_receive(struct net *n, struct port *in, struct pkt *k) { nic_receive(n, n->node_host[in->node], k); }

static struct pkt *host_dequeue(struct net *n, struct port *p) { return nic_dequeue(n, n->node_host[p->node], p); }

static bool host_has_work(const struct net *n, const struct port *p) { return nic_has_ready(n->node_host[p->node], p); }

static void host_flush(struct net *n, struct port *p)
{
    struct pkt *k;
    for (int prio = 0; prio < NPRIO; prio++)
        while ((k = portq_pop(p, prio))) {
            net_ctr_drop(n, p, k, DROP_LINK_DOWN);
            net_drop(n, k, DROP_LINK_DOWN);
        }
}

/*
 * Two ahead of a frame's arrival at a host: the host and the lines of the flow
 * that the receiver (data) or the sender (ACK, NACK, CNP) updates (struct
 * flow's layout, net.h), and for data the queue line of the host's port that
 * the ACK will join.
 */
static void host_arrive_prefetch(const struct port *p, const struct pkt *k, int ahead)
{
    if (ahead != 2)
        return;
    const struct net *n = p->net;
    __builtin_prefetch(n->node_host[p->node]);
    if (k->flow >= n->n_flows)
        return;
    const char *f = (const char *)net_flow(n, k->flow);
    __builtin_prefetch(f);
    if (k->type == PKT_DATA) {
        __builtin_prefetch(f + 64);
        __builtin_prefetch(f + offsetof(struct flow, rcv_nxt));
        /* the queue line the data frame's ACK will join (docs/performance.md) */
        __builtin_prefetch(net_port_pp(n, p, k->prio & (NPRIO - 1)));
    } else {
        __builtin_prefetch(f + offsetof(struct flow, snd_una));
        __builtin_prefetch(f + offsetof(struct flow, rto_timer));
        __builtin_prefetch(f + offsetof(struct flow, cc_state));
        __builtin_prefetch(f + offsetof(struct flow, cc_state) + 64);
    }
}

/*
 * Prefetch hook of a frame's arrival at a switch: two ahead, the
 * switch and the routing entry (the ingress counters are in the port's line
 * 0); one ahead, the egress port switch_receive will choose (resolved through
 * route_egress from the routing entry and the frame's ECMP hash), its two hot
 * lines and the queue of the frame's priority.  Frames routed by their flow
 * (pinned, Valiant) would read the flow: not prefetched.
 */
static void switch_arrive_prefetch(const struct port *p, const struct pkt *k, int ahead)
{
    const struct net *n = p->net;
    bool routed = k->type != PKT_PAUSE && !k->route_flow && k->dst_host < n->g->n_hosts;
    if (ahead == 2) {
        __builtin_prefetch(n->node_sw[p->node]);
        if (routed)
            __builtin_prefetch(graph_nexthops_entry(n->g, p->node, k->dst_host));
        return;
    }
    if (!routed)
        return;
    const struct sw *w = n->node_sw[p->node];
    uint8_t reached = 0;
    uint32_t e = route_egress(n->g, p->node, w->group, w->salt, k->hash, k->dst_host, NET_NO_VIA, -1, &reached);
    if (e == ROUTE_NO_PORT)
        return;
    const struct port *out = &w->ports[e];
    __builtin_prefetch(out);
    __builtin_prefetch((const char *)out + 64);
    __builtin_prefetch(net_port_pp(n, out, k->prio & (NPRIO - 1)));
}

/*
 * Prefetch hook of the transmitter wake-up of a switch port, whose
 * frame has waited in a queue long enough to leave the cache: two ahead, the
 * line of the queue that strict priority will serve (the port itself is in
 * cache by then); one ahead, that queue's head frame.
 */
static void switch_wake_prefetch(const struct port *p, int ahead)
{
    int prio = sched_strict_pick((uint8_t)p->qmask & (uint8_t)~p->paused);
    if (prio < 0)
        return;
    const struct port_prio *pp = port_pp(p, prio);
    if (ahead == 2)
        __builtin_prefetch(pp);
    else if (pp->q.head)
        __builtin_prefetch(pp->q.head);
}

static void sw_receive(struct net *n, struct port *in, struct pkt *k) { switch_receive(n, n->node_sw[in->node], in, k); }

static struct pkt *sw_dequeue(struct net *n, struct port *p) { return switch_dequeue(n, n->node_sw[p->node], p); }

/* A switch sends only what is queued. */
static bool sw_has_work(const struct net *n, const struct port *p) { return false; }

static void sw_flush(struct net *n, struct port *p) { switch_flush_port(n, n->node_sw[p->node], p); }


const struct node_ops switch_node_ops = {
    .name = "switch",
    .receive = sw_receive,
    .dequeue = sw_dequeue,
    .has_work = sw_has_work,
    .flush = sw_flush,
    .arrive_prefetch = switch_arrive_prefetch,
    .wake_prefetch = switch_wake_prefetch,
};

const struct node_ops host_node_ops = {
    .name = "host",
    .receive = host_receive,
    .dequeue = host_dequeue,
    .has_work = host_has_work,
    .flush = host_flush,
    .arrive_prefetch = host_arrive_prefetch,
    .wake_prefetch = nic_wake_prefetch,
};

const struct node_ops *const node_ops[NODE_KINDS] = {
    [NODE_SWITCH] = &switch_node_ops,
    [NODE_HOST] = &host_node_ops,
};
