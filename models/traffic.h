/*
 * traffic — turns the scenario's traffic entries into flows on the network.
 *
 * `flow`: one message; `incast`: one flow per sender to the receiver, all
 * starting together.  Flow ids follow INTERFACE.md: the entry's id, else
 * "t{i}"; generators name their flows "{entry id}.{j}".
 */
#ifndef MODELS_TRAFFIC_H
#define MODELS_TRAFFIC_H

#include <stddef.h>

#include "models/net.h"

struct traffic {
    char **names;       /* flow names, owned here; index = flow index */
    uint32_t n_names, cap;
};

/*
 * Creates the flows of every traffic entry.  Returns 0, or SCN_EUSAGE with a
 * message naming the JSON path (unknown node in a path, unlinked path,
 * traffic type not implemented yet).
 */
int traffic_setup(struct traffic *t, struct net *n, char *err, size_t errlen);
void traffic_free(struct traffic *t);

#endif
