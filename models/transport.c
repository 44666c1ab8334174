/*
 * transport — the kind of the transport modules (transport.h): the registration's checks and the table the NIC's
 * per-frame calls read for a transport other than go-back-N.
 */
#include "models/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct transport_ops *transport_registry[TRANSPORT_MAX];

_Static_assert(TRANSPORT_MAX <= UINT8_MAX + 1, "flow.transport holds a transport's index");

/* The NIC calls every hook without a test, and the outputs print the table's name as the scenario's. */
static const char *transport_missing(const struct module *m)
{
    const struct transport_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (transport_ops.name)";
    if (!o->sent)
        return "a sent hook";
    if (!o->on_data)
        return "an on_data hook";
    if (!o->on_ack)
        return "an on_ack hook";
    if (!o->recover)
        return "a recover hook";
    if (!o->on_timeout)
        return "an on_timeout hook";
    return module_count("transport") == TRANSPORT_MAX ? "room: TRANSPORT_MAX transports are registered" : NULL;
}

static void transport_added(const struct module *m, int index)
{
    transport_registry[index] = m->ops;
    /* The NIC calls go-back-N's hooks by its index without a look at the table. */
    if (strcmp(m->name, "go-back-n") == 0 && index != TRANSPORT_GBN) {
        fprintf(stderr, "rocesim: bug: go-back-n is numbered %d, not TRANSPORT_GBN\n", index);
        abort();
    }
}

const struct module_kind transport_kind = {.name = "transport", .dflt = "go-back-n", .missing = transport_missing,
                                           .added = transport_added};
