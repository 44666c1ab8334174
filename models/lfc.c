/* lfc — the kind of the link-level flow-control modules (lfc.h). */
#include "models/lfc.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
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

/* One flow control runs the whole fabric (the network holds one table, models/net.h): a switch profile may not
 * choose another. */
static int check_flow_control(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    char p[SETTING_PATH_MAX];
    (void)base;
    if (obj && strcmp(path, "switch") != 0 && cJSON_GetObjectItemCaseSensitive(obj, "flow_control"))
        return setting_bad(sc, setting_join(p, path, "flow_control"), "expected flow_control only in the global "
                           "switch object (one flow control runs the whole fabric), got it in a profile");
    return 0;
}

static const struct setting lfc_fields[] = {
    {SET_MODULE("flow_control", struct lfc_params, flow_control, "lfc", "pfc",
                "Link-level flow control of the lossless priorities: \"pfc\", or one a module registered")},
    {SET_CHECK(check_flow_control)},
    {0},
};

/* Flat, after switch.buffer, where sim/ had it; the switch's objects follow it. */
static const struct setting_group lfc_group = {
    .path = "switch/lfc", .size = sizeof(struct lfc_params), .after = "buffer", .fields = lfc_fields,
};
SETTINGS_REGISTER("lfc", &lfc_group);

/* See lfc.h. */
const struct lfc_params *lfc_params_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, lfc_group, struct lfc_params);
}

const struct lfc_ops *lfc_at(int index)
{
    const struct module *m = module_at(lfc_kind.name, index);
    return m ? m->ops : NULL;
}
