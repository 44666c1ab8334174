/*
 * fabric — the kind of the fabric modules (fabric.h), the top-level "fabric" setting and the RoCE v2 fabric.
 *
 * RoCE v2 (InfiniBand Trade Association, "Supplement to InfiniBand Architecture Specification Volume 1 Release
 * 1.2.1, Annex A17: RoCEv2", 2014) carries InfiniBand's transport headers in UDP over IPv4 over Ethernet:
 *   data frame  = Ethernet 14 + 802.1Q tag 4 + IPv4 20 + UDP 8 + BTH 12 + payload + ICRC 4 + FCS 4
 *               = payload + 62 bytes,
 *   ACK or NACK = the same headers + AETH 4, no payload = 66 bytes (62 + 4, the FCS's minimum padding aside),
 *   CNP         = the same headers + 16 reserved bytes = 78 bytes,
 * and the Ethernet wire adds 8 bytes of preamble and a 12-byte inter-frame gap to every frame (IEEE 802.3 clause
 * 4).  Its link-level flow control is the scenario's choice (switch.flow_control, PFC by default).
 */
#include "models/fabric.h"
#include "models/lfc.h"
#include "models/net.h"
#include "models/nic.h"
#include "sim/graph.h"
#include "sim/scenario.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *fabric_missing(const struct module *m)
{
    const struct fabric_ops *o = m->ops;
    if (!o->name || strcmp(o->name, m->name) != 0)
        return "a table named as the module (fabric_ops.name)";
    if (!o->fr.hdr_data || !o->fr.frame_ack || !o->fr.frame_cnp)
        return "the sizes of its frames (fabric_ops.fr)";
    if (o->service_levels && !o->vl_of)
        return "a vl_of hook (it has service levels)";
    return NULL;
}

const struct module_kind fabric_kind = {.name = "fabric", .dflt = "roce", .missing = fabric_missing};

/*
 * One fabric, one flow control: a fabric that requires its own (InfiniBand's credits) refuses another in
 * switch.flow_control, and a flow control some fabric requires is refused on any other.
 */
static int check_flow_control(struct setting_ctx *sc, const cJSON *obj, const struct fabric_ops *mine)
{
    const cJSON *sw = obj ? cJSON_GetObjectItemCaseSensitive(obj, "switch") : NULL;
    const cJSON *fc = sw ? cJSON_GetObjectItemCaseSensitive(sw, "flow_control") : NULL;
    if (!cJSON_IsString(fc))
        return 0; /* the default, or a type error the switch's own parse reports */
    if (mine->lfc && strcmp(fc->valuestring, mine->lfc) != 0)
        return setting_bad(sc, "switch.flow_control", "expected \"%s\" or nothing with \"fabric\": \"%s\" (a "
                           "mixed fabric is not simulated), got \"%s\"", mine->lfc, mine->name, fc->valuestring);
    for (int i = 0; !mine->lfc && i < module_count(fabric_kind.name); i++) {
        const struct fabric_ops *o = module_at(fabric_kind.name, i)->ops;
        if (o->lfc && strcmp(o->lfc, fc->valuestring) == 0)
            return setting_bad(sc, "switch.flow_control", "expected a flow control of fabric \"%s\", got \"%s\", "
                               "which is %s's: set \"fabric\": \"%s\"", mine->name, fc->valuestring, o->name,
                               o->name);
    }
    return 0;
}

/* A fabric of service levels refuses the priority settings of a host object (global or a profile's): the fields
 * its modules flag SETTING_CLASS. */
static int refuse_priorities(struct setting_ctx *sc, const cJSON *host, const char *path, const char *fabric)
{
    char p[SETTING_PATH_MAX], field[SETTING_PATH_MAX];
    for (const cJSON *it = cJSON_IsObject(host) ? host->child : NULL; it; it = it->next) {
        const struct setting *f = settings_field(setting_join(field, "host", it->string));
        if (f && (f->flags & SETTING_CLASS))
            return setting_bad(sc, setting_join(p, path, it->string), "expected no priority with \"fabric\": "
                               "\"%s\" (a packet's virtual lane comes from its service level: traffic.N.sl and "
                               "ib.sl2vl), got one", fabric);
    }
    return 0;
}

/* The member of obj at a dotted path ("switch.pfc"), or NULL. */
static const cJSON *member_at(const cJSON *obj, const char *path)
{
    char key[SETTING_PATH_MAX];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        obj = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
        path += n + (path[n] == '.');
    }
    return obj;
}

/* The other fabric whose own setting path is, or NULL (mine NULL: any fabric whose own it is). */
static const struct fabric_ops *owner_of(const char *path, const struct fabric_ops *mine)
{
    for (int i = 0, n = module_count(fabric_kind.name); i < n; i++) {
        const struct fabric_ops *o = module_at(fabric_kind.name, i)->ops;
        for (int k = 0; o != mine && o->own && o->own[k]; k++)
            if (!strcmp(o->own[k], path))
                return o;
    }
    return NULL;
}

/* Another fabric's own settings (fabric_ops.own), in the scenario or in a profile's switch object, are refused:
 * this fabric would not read them. */
static int refuse_others(struct setting_ctx *sc, const cJSON *obj, const struct fabric_ops *mine)
{
    char p[SETTING_PATH_MAX];
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(obj, "profiles");
    for (int i = 0; i < module_count(fabric_kind.name); i++) {
        const struct fabric_ops *o = module_at(fabric_kind.name, i)->ops;
        for (int k = 0; o != mine && o->own && o->own[k]; k++) {
            const char *own = o->own[k];
            bool in_switch = !strncmp(own, "switch.", 7);
            if (member_at(obj, own))
                return setting_bad(sc, own, "expected no setting of fabric \"%s\" with \"fabric\": \"%s\" (it "
                                   "does not read it), got one", o->name, mine->name);
            int n = 0;
            for (const cJSON *e = in_switch && cJSON_IsArray(pr) ? pr->child : NULL; e; e = e->next, n++)
                if (member_at(e, own)) {
                    snprintf(p, sizeof p, "profiles.%d.%s", n, own);
                    return setting_bad(sc, p, "expected no setting of fabric \"%s\" with \"fabric\": \"%s\" (it "
                                       "does not read it), got one", o->name, mine->name);
                }
        }
    }
    return 0;
}

/*
 * How flows are classed: by priority (RoCE) or by service level (InfiniBand), never a mix; and another fabric's
 * own settings are refused.
 */
static int check_classes(struct setting_ctx *sc, const cJSON *obj, const struct fabric_ops *mine)
{
    char p[SETTING_PATH_MAX];
    if (obj && refuse_others(sc, obj, mine) < 0)
        return -1;
    const char *refused = mine->service_levels ? "priority" : "sl";
    const cJSON *tr = obj ? cJSON_GetObjectItemCaseSensitive(obj, "traffic") : NULL;
    int i = 0;
    for (const cJSON *e = cJSON_IsArray(tr) ? tr->child : NULL; e; e = e->next, i++)
        if (cJSON_IsObject(e) && cJSON_GetObjectItemCaseSensitive(e, refused)) {
            snprintf(p, sizeof p, "traffic.%d.%s", i, refused);
            return mine->service_levels
                       ? setting_bad(sc, p, "expected a service level (\"sl\": 0-15) with \"fabric\": \"%s\", "
                                     "got a priority", mine->name)
                       : setting_bad(sc, p, "expected a priority with \"fabric\": \"%s\" (service levels are "
                                     "InfiniBand's), got a service level", mine->name);
        }
    if (!mine->service_levels || !obj)
        return 0;
    if (refuse_priorities(sc, cJSON_GetObjectItemCaseSensitive(obj, "host"), "host", mine->name) < 0)
        return -1;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(obj, "profiles");
    i = 0;
    for (const cJSON *e = cJSON_IsArray(pr) ? pr->child : NULL; e; e = e->next, i++) {
        snprintf(p, sizeof p, "profiles.%d.host", i);
        if (cJSON_IsObject(e) && refuse_priorities(sc, cJSON_GetObjectItemCaseSensitive(e, "host"), p,
                                                   mine->name) < 0)
            return -1;
    }
    return 0;
}

static int check_fabric(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    const struct fabric_params *fp = base;
    (void)path;
    const struct fabric_ops *mine = module_at(fabric_kind.name, fp->fabric)->ops;
    if (check_flow_control(sc, obj, mine) < 0 || check_classes(sc, obj, mine) < 0)
        return -1;
    /* The flow control the fabric requires is the switches' setting, whatever the default: the resolved scenario
     * says it, and loads back to the same settings. */
    const struct scenario *s = scn_loading(sc);
    int k = mine->lfc && s ? module_find(lfc_kind.name, mine->lfc) : -1;
    if (k >= 0)
        ((struct lfc_params *)lfc_params_of(&s->sw))->flow_control = k;
    return 0;
}

static const struct setting fabric_fields[] = {
    {SET_MODULE("fabric", struct fabric_params, fabric, "fabric", "roce",
                "The link layer of the whole network: \"roce\" (RoCE v2 over Ethernet) or \"infiniband\"")},
    {SET_CHECK(check_fabric)},
    {0},
};

/* Flat, at the top level after "stop": the fabric is said before the network it builds. */
static const struct setting_group fabric_group = {
    .path = "/fabric", .size = sizeof(struct fabric_params), .after = "stop", .fields = fabric_fields,
};
SETTINGS_REGISTER("fabric", &fabric_group);

const struct fabric_ops *fabric_of(const struct scenario *s)
{
    const struct module *m = module_at(fabric_kind.name, SETTINGS_OF(s, fabric_group, struct fabric_params)->fabric);
    return m->ops;
}

static bool classes_by_sl(const struct scenario *s) { return fabric_of(s)->service_levels; }

/* The dump of a scenario of a fabric of service levels leaves the priorities out (SETTING_CLASS): it refuses them. */
static bool dumping_service_levels(void)
{
    const struct scenario *s = scn_dumping();
    return s && classes_by_sl(s);
}

/* The dump of a scenario leaves out the settings only another fabric reads (fabric_ops.own): it refuses them. */
static bool dumping_other_fabric(const char *path)
{
    /* Most settings dumped are no fabric's (a traffic entry's: thousands in a large scenario), and that is asked
     * first, without looking up the scenario's fabric for each. */
    const struct scenario *s;
    return owner_of(path, NULL) && (s = scn_dumping()) && owner_of(path, fabric_of(s));
}

__attribute__((constructor)) static void fabric_hooks(void)
{
    scn_service_levels = classes_by_sl;
    setting_classes_hidden = dumping_service_levels;
    setting_hidden = dumping_other_fabric;
}

int fabric_traffic_prio(const struct scenario *s, const struct scn_traffic *t)
{
    const struct fabric_ops *f = fabric_of(s);
    return f->service_levels ? f->vl_of(s, t->sl < 0 ? 0 : t->sl) : t->priority;
}

int fabric_check(const struct net *n, char *err, size_t errlen)
{
    const struct fabric_ops *f = fabric_of(n->scn);
    for (uint32_t i = 0; f->mtus && i < n->g->n_hosts; i++) {
        int mtu = n->hosts[i].nic->mtu, j = 0;
        while (f->mtus[j] && f->mtus[j] != mtu)
            j++;
        if (f->mtus[j])
            continue;
        char list[96] = "";
        for (j = 0; f->mtus[j]; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u", j ? ", " : "", f->mtus[j]);
        snprintf(err, errlen, "%s: host.mtu: expected one of %s with \"fabric\": \"%s\", got %d at host %s",
                 n->scn->file, list, f->name, mtu, n->g->nodes[n->hosts[i].node].name);
        return SCN_EUSAGE;
    }
    return f->check ? f->check(n, err, errlen) : 0;
}

/* What only RoCE reads: the shared buffer, its cells and its lossy limit, PFC and its watchdog, ECN's RED (an
 * InfiniBand switch buffers per VL in 64-byte credits and marks FECN: models/credit.c, models/fecn.c), and its
 * Ethernet's wire. */
static const char *const roce_own[] = {"switch.buffer", "switch.cell_size", "switch.lossy_queue_limit",
                                       "switch.trim",   "switch.pfc",       "switch.ecn",
                                       "switch.watchdog", "ethernet", NULL};

/*
 * The bytes an Ethernet frame takes on the wire besides itself: preamble and start delimiter (8) and the
 * inter-frame gap (12), IEEE 802.3 clause 4.  A simulator that counts only the frame (the UEC reference
 * simulator, htsim) is reproduced with 0: its 64-byte trimmed headers and ACKs take 64 bytes' time, not 84.
 */
struct ethernet_params {
    int wire_overhead;
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct setting ethernet_fields[] = {
    {SET_INT("wire_overhead", struct ethernet_params, wire_overhead, 0, 64, STR(WIRE_OVERHEAD),
             "Bytes each frame takes on the wire besides its own: preamble, start delimiter and inter-frame gap, "
             STR(WIRE_OVERHEAD) " by IEEE 802.3; 0 counts the frame alone (as the UEC reference simulator does)")},
    {0},
};

static const struct setting_group ethernet_group = {
    .path = "ethernet", .size = sizeof(struct ethernet_params), .after = "ib", .fields = ethernet_fields,
};
SETTINGS_REGISTER("ethernet", &ethernet_group);

struct framing fabric_framing(const struct scenario *s)
{
    const struct fabric_ops *f = fabric_of(s);
    struct framing fr = f->fr;
    if (owner_of("ethernet", NULL) == f)
        fr.wire = SETTINGS_OF(s, ethernet_group, struct ethernet_params)->wire_overhead;
    return fr;
}

static const struct fabric_ops roce_fabric = {
    .name = "roce",
    .own = roce_own,
    .fr = {.hdr_data = HDR_DATA, .frame_ack = FRAME_ACK, .frame_cnp = FRAME_CNP, .wire = WIRE_OVERHEAD},
};
MODULE_REGISTER(fabric_kind, "roce", &roce_fabric);
