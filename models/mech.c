/*
 * mech — the table of the mechanisms' hooks (mech.h), kept sorted by order as they register.  Apart from the
 * network's core so that the core reaches the mechanisms only through it.
 */
#include "models/mech.h"

#include <stdio.h>
#include <stdlib.h>

static const struct net_mech_ops *mechs[NET_MECH_MAX];
static unsigned n_mechs;

void net_mech_register(const struct net_mech_ops *ops)
{
    if (n_mechs == NET_MECH_MAX) {
        fprintf(stderr, "rocesim: bug: more than %d network mechanisms (NET_MECH_MAX)\n", NET_MECH_MAX);
        abort();
    }
    unsigned i = n_mechs++;
    for (; i > 0 && mechs[i - 1]->order >= ops->order; i--) {
        if (mechs[i - 1]->order == ops->order) {
            fprintf(stderr, "rocesim: bug: network mechanisms %s and %s have the same order %d (mech.h)\n",
                    mechs[i - 1]->name, ops->name, ops->order);
            abort();
        }
        mechs[i] = mechs[i - 1];
    }
    mechs[i] = ops;
}

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
