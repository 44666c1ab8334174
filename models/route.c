/*
 * route — dragonfly Valiant and UGAL choices per flow, and walking a flow's
 * path through the tables (see route.h for the algorithms and references).
 */
#include "models/route.h"
#include "models/mech.h"
#include "models/nic.h"
#include "topologies/dragonfly.h"
#include "topologies/routing.h"

/* Returns true for an unpinned flow of a dragonfly routed `valiant` or `ugal`; false otherwise. */
bool route_flow_needs_choice(const struct net *n, const struct flow *f)
{
    return n->route_choice && f->path_len == 0;
}

/* Once per run: the topology's lookup by module is a search by name, too dear for every flow made. */
static void route_init(struct net *n)
{
    const struct topo_dragonfly *t = topo_dragonfly_of(n->scn);
    n->route_choice = t && t->routing != DF_ROUTE_MINIMAL;
}

static const struct net_mech_ops route_mech = {.name = "route", .order = 25, .init = route_init};
NET_MECH(route_mech)

/* See route.h. */
uint32_t route_host_egress(const struct graph *g, uint32_t node, uint32_t to, uint32_t hash)
{
    if (g->nodes[node].n_ports == 1)
        return 0;
    const uint16_t *ports;
    uint32_t cnt = graph_nexthops(g, node, to, &ports);
    return cnt == 0 ? UINT32_MAX : ports[cnt == 1 ? 0 : routing_ecmp_pick(hash, 0, cnt)];
}

int route_path(const struct net *n, uint32_t src, uint32_t dst, uint32_t hash, uint32_t via, int32_t via_group,
               uint32_t *nodes, int max, uint32_t *first_port)
{
    const struct graph *g = n->g;
    uint32_t node = g->host_node[src], end = g->host_node[dst];
    uint8_t reached = 0;
    int links = 0;
    if (nodes)
        nodes[0] = node;
    const struct g_node *hn = &g->nodes[node];
    uint32_t out = hn->n_ports ? route_host_egress(g, node, dst, hash) : UINT32_MAX;
    if (out == UINT32_MAX || n->ports[hn->first_port + out].down)
        return -1;
    node = g->ports[g->ports[hn->first_port + out].peer].node;
    for (links = 1; links < max; links++) {
        if (nodes)
            nodes[links] = node;
        if (node == end)
            return links;
        const struct sw *w = n->node_sw[node];
        if (!w)
            return -1; /* a host that is not the destination: not a route */
        uint32_t e = route_egress(g, node, w->group, w->salt, hash, dst, via, via_group, &reached);
        if (e == ROUTE_NO_PORT)
            return -1;
        if (links == 1 && first_port)
            *first_port = e;
        node = g->ports[g->ports[g->nodes[node].first_port + e].peer].node;
    }
    return -1;
}

int route_flow_path(const struct net *n, const struct flow *f, uint32_t *nodes, int max)
{
    if (f->path_len) {
        if (f->path_len > max)
            return -1;
        for (int i = 0; i < f->path_len; i++)
            nodes[i] = f->path_nodes[i];
        return f->path_len - 1;
    }
    return route_path(n, f->src, f->dst, f->hash_fwd, f->via_host, f->via_group, nodes, max, NULL);
}

/* Bytes queued, all priorities, at local port `local` of switch node `node`. */
static int64_t queued(const struct net *n, uint32_t node, uint32_t local)
{
    const struct port *p = &n->ports[n->g->nodes[node].first_port + local];
    int64_t b = 0;
    for (int prio = 0; prio < NPRIO; prio++)
        b += port_queued_bytes(p, prio);
    return b;
}

/*
 * Draws flow f's Valiant intermediate host from the flow's own stream: a
 * group other than the source's and the destination's, uniformly, then a host
 * of it uniformly.  Returns the host, or NET_NO_VIA when there is no such group
 * (g = 2 and the flow crosses groups); *group receives its group.
 */
static uint32_t draw_via(const struct net *n, const struct flow *f, int32_t *group)
{
    const struct topo_dragonfly *t = topo_dragonfly_of(n->scn);
    const uint32_t per_group = (uint32_t)t->a * (uint32_t)t->p;
    uint32_t gs = f->src / per_group, gd = f->dst / per_group;
    uint32_t candidates = (uint32_t)t->g - 1 - (gs != gd);
    if (candidates == 0)
        return NET_NO_VIA;
    struct rng r;
    rng_init(&r, n->scn->seed, rng_stream_id(RNG_KIND_ROUTING, f->idx));
    /* The i-th group in increasing order, skipping the excluded ones. */
    uint32_t lo = gs < gd ? gs : gd, hi = gs < gd ? gd : gs;
    uint32_t gi = rng_below(&r, candidates);
    if (gi >= lo)
        gi++;
    if (hi != lo && gi >= hi)
        gi++;
    *group = (int32_t)gi;
    return gi * per_group + rng_below(&r, per_group);
}

/*
 * The start event of a flow that chooses its route (obj is the flow): draws
 * its Valiant intermediate, decides (valiant: always; ugal: by queue x hops at
 * the source router, now), then starts the flow as nic_flow_start() does.
 * When no intermediate group exists, or UGAL cannot walk a path (a failed
 * link), the flow stays minimal.  No return value.
 */
void route_flow_start(struct sim *s, void *obj, uint64_t arg)
{
    struct flow *f = obj;
    struct net *n = f->net;
    SIM_ASSERT_ENT(s, flow_sender_ent(f));
    int32_t vg = -1;
    uint32_t via = draw_via(n, f, &vg);
    if (via != NET_NO_VIA) {
        bool detour = topo_dragonfly_of(n->scn)->routing == DF_ROUTE_VALIANT;
        if (!detour) {
            /* UGAL-L: compare queue x hops at the source router's two candidate egress ports. */
            uint32_t p_min = 0, p_val = 0;
            int h_min = route_path(n, f->src, f->dst, f->hash_fwd, NET_NO_VIA, -1, NULL, 256, &p_min);
            int h_val = route_path(n, f->src, f->dst, f->hash_fwd, via, vg, NULL, 256, &p_val);
            if (h_min > 0 && h_val > 0) {
                uint32_t tor = n->hosts[f->src].port->peer->node;
                detour = queued(n, tor, p_min) * h_min > queued(n, tor, p_val) * h_val;
            }
        }
        if (detour) {
            f->via_host = via;
            f->via_group = vg;
            net_np(n)->flows_valiant++;
        }
    }
    nic_flow_start(s, obj, arg);
}
