/* lfc — the registry of link-level flow controls (lfc.h). */
#include "models/lfc.h"
#include "models/pfc.h"

#include <string.h>

static const struct lfc_ops *const registry[] = {&pfc_lfc_ops};

const struct lfc_ops *lfc_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
