/* lfc — the kind of the link-level flow-control modules (lfc.h). */
#include "models/lfc.h"

#include <string.h>

/* Every hook is called: admit and released for each frame of a lossless priority, control for each PAUSE-class
 * frame, link_fail at each failure. */
static const char *lfc_missing(const struct module *m)
{
    const struct lfc_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (lfc_ops.name)";
    if (!o->admit)
        return "an admit hook";
    if (!o->released)
        return "a released hook";
    if (!o->control)
        return "a control hook";
    return o->link_fail ? NULL : "a link_fail hook";
}

const struct module_kind lfc_kind = {.name = "lfc", .dflt = "pfc", .missing = lfc_missing};

const struct lfc_ops *lfc_at(int index)
{
    const struct module *m = module_at(lfc_kind.name, index);
    return m ? m->ops : NULL;
}
