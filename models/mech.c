/*
 * mech — the table of the mechanisms' hooks (mech.h), kept sorted by order as they register.  Apart from the
 * network's core so that the core reaches the mechanisms only through it.
 */
#include "models/mech.h"


static const struct net_mech_ops *mechs[NET_MECH_MAX];
static unsigned n_mechs;

/* A mechanism needs a name and a hook, and an order of its own: nothing else would break the tie. */
static const char *mech_missing(const struct module *m)
{
    const struct net_mech_ops *o = m->ops;
    if (!o->name)
        return "a name (net_mech_ops.name)";
    if (!o->init && !o->partition && !o->between_windows && !o->at_line && !o->free)
        return "a hook";
    for (unsigned i = 0; i < n_mechs; i++)
        if (mechs[i]->order == o->order)
            return "an order number of its own (another mechanism has it)";
    return n_mechs < NET_MECH_MAX ? NULL : "room in the table (NET_MECH_MAX)";
}

/* Inserts the mechanism by order (the registry numbers modules by name). */
static void mech_added(const struct module *m, int index)
{
    const struct net_mech_ops *ops = m->ops;
    unsigned i = n_mechs++;
    for (; i > 0 && mechs[i - 1]->order > ops->order; i--)
        mechs[i] = mechs[i - 1];
    mechs[i] = ops;
}

const struct module_kind mech_kind = {.name = "mechanism", .missing = mech_missing, .added = mech_added};

unsigned net_mechs_count(void) { return n_mechs; }

const struct net_mech_ops *net_mech_at(unsigned i) { return i < n_mechs ? mechs[i] : NULL; }

void net_mechs_init(struct net *n)
{
    for (unsigned i = 0; i < n_mechs; i++)
        if (mechs[i]->init)
            mechs[i]->init(n);
}

void net_mechs_partition(struct net *n, struct sim_par *P)
{
    for (unsigned i = 0; i < n_mechs; i++)
        if (mechs[i]->partition)
            mechs[i]->partition(n, P);
}

void net_mechs_between_windows(struct net *n)
{
    for (unsigned i = 0; i < n_mechs; i++)
        if (mechs[i]->between_windows)
            mechs[i]->between_windows(n);
}

void net_mechs_at_line(struct net *n, sim_time_t t)
{
    for (unsigned i = 0; i < n_mechs; i++)
        if (mechs[i]->at_line)
            mechs[i]->at_line(n, t);
}

void net_mechs_free(struct net *n)
{
    for (unsigned i = n_mechs; i-- > 0;)
        if (mechs[i]->free)
            mechs[i]->free(n);
}
