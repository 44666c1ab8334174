/* memest — topology sizes from the scenario alone (see memest.h); each topology module counts its own shape. */
#include "sim/memest.h"

struct memest_counts memest_topology(const struct scenario *s, double hosts)
{
    struct memest_counts c = {hosts, 0, 0, hosts, 0};
    scn_topo_hooks(s)->size(s->topo.cfg, hosts, &c);
    c.routing_bytes = (hosts + c.switches) * c.columns * 4 + hosts * 12;
    return c;
}

void memest_host_rates(const struct scenario *s, double *rate)
{
    scn_topo_hooks(s)->host_rates(s->topo.cfg, s->topo.n_hosts, rate);
}
