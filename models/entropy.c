/*
 * entropy — the kind of the source load-balancing modules (entropy.h), host.entropy, and its two stateless
 * modules: "flow" (one value per flow, the default) and "packet" (a value per PSN, which nic.c derives itself).
 */
#include "models/entropy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct entropy_ops *entropy_registry[ENTROPY_MAX];
int entropy_packet = -1;

static const char *entropy_missing(const struct module *m)
{
    const struct entropy_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (entropy_ops.name)";
    bool any = o->state_bytes || o->init || o->pick || o->feedback;
    if (any && !(o->state_bytes && o->init && o->pick && o->feedback))
        return "all four hooks (state_bytes, init, pick, feedback) or none";
    return module_count("entropy") == ENTROPY_MAX ? "room: ENTROPY_MAX modules are registered" : NULL;
}

static void entropy_added(const struct module *m, int index)
{
    entropy_registry[index] = m->ops;
    if (strcmp(m->name, "packet") == 0)
        entropy_packet = index;
    if (strcmp(m->name, "flow") == 0 && index != ENTROPY_FLOW) {
        fprintf(stderr, "rocesim: bug: flow is numbered %d, not ENTROPY_FLOW\n", index);
        abort();
    }
}

const struct module_kind entropy_kind = {
    .name = "entropy", .dflt = "flow", .missing = entropy_missing, .added = entropy_added};

static const struct entropy_ops flow_ops = {.name = "flow"};
static const struct entropy_ops packet_ops = {.name = "packet"};
MODULE_REGISTER(entropy_kind, "flow", &flow_ops);
MODULE_REGISTER(entropy_kind, "packet", &packet_ops);
