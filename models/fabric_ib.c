/*
 * fabric_ib — InfiniBand as the network's link layer (fabric.h), after the InfiniBand Architecture Specification
 * vol. 1 (InfiniBand Trade Association, release 1.4), chapters 5-7 (packets, link layer) and 9 (transport).
 *
 * A packet is its local route header, transport header, payload and two CRCs (section 7.8):
 *   data packet = LRH 8 + BTH 12 + payload + ICRC 4 + VCRC 2 = payload + 26 bytes   (no GRH: one subnet),
 *   ACK or NAK  = LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 = 30 bytes,
 *   CNP         = LRH 8 + BTH 12 + 16 reserved + ICRC 4 + VCRC 2 = 42 bytes (modelled after RoCE v2's CNP,
 *                 which carries 16 reserved bytes after its BTH; congestion control's own packets come with it),
 * and the link adds a start and an end delimiter, one symbol each, around every packet (the 8b/10b framing of
 * SDR-QDR links; the model keeps it for the 64b/66b and PAM4 generations, whose block framing it does not
 * detail).  Flow-control packets are 6 bytes (models/credit.c).  Payloads (the path MTU) are 256, 512, 1024,
 * 2048 or 4096 bytes.
 *
 * Link rates are data rates after encoding: a 4x EDR link carries 100 Gb/s (4 lanes of 25.78125 Gb/s, 64b/66b),
 * HDR 200 and NDR 400 (PAM4 lanes of 53.125 and 106.25 Gb/s): a link's "rate" is that number.
 *
 * The transport is the reliable connection the RoCE NICs already run (IB's own: RoCE v2 carries IB's BTH and
 * AETH): PSNs, cumulative ACKs, a NAK for a sequence error and go-back-N (models/transport_gbn.c).  Every virtual
 * lane is lossless under credit-based link-level flow control (models/credit.c), which the fabric requires.
 */
#include "models/fabric.h"
#include "models/credit.h"
#include "models/fecn.h"
#include "models/sched.h"
#include "models/switch.h"
#include "sim/graph.h"
#include "sim/scenario.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IB_NSL FABRIC_NSL

/* The top-level "ib": an InfiniBand fabric's operational VLs, its SL-to-VL table and its routing engine. */
struct ib_params {
    int vls;                 /* operational data VLs per port: 1, 2, 4 or 8 */
    int routing_engine;      /* the subnet manager's engine, a module of kind "sm" (topologies/sm.h), by index */
    uint8_t sl2vl[IB_NSL];   /* ib.sl2vl: the VL of each SL, when given (ib_vl_of) */
    bool sl2vl_given;
};

static const struct setting_group ib_group;

static const struct ib_params *ib_params_of(const struct scenario *s);
static int ib_vl_of(const struct ib_params *ib, int sl);

static const uint16_t ib_mtus[] = {256, 512, 1024, 2048, 4096, 0};

/*
 * The subnet manager's forwarding tables, and the VL of each pair of hosts under a layered engine (lash,
 * dfsssp), in at most ib.vls layers.  After a link change the engine runs again; flows keep the VL they took.
 */
static int ib_route(const struct scenario *s, struct graph *g, struct sm_layers *layers, char *err, size_t errlen)
{
    const struct ib_params *ib = ib_params_of(s);
    char why[512];
    if (sm_route(g, ib->routing_engine, ib->vls, layers, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "%s: ib.routing_engine: %s", s->file, why);
    return SCN_EUSAGE;
}

/*
 * Every service level a flow uses runs on a VL that each port's scheduler serves: under VL arbitration
 * (switch.scheduler.type "vlarb"), a VL with no weight in either table would never send.  A layered engine puts
 * flows on the VLs of its layers itself: service levels are refused with it.
 */
static int ib_check(const struct net *n, char *err, size_t errlen)
{
    const struct scenario *s = n->scn;
    uint32_t used = 0;
    for (int i = 0; i < s->n_traffic; i++) {
        if (n->sm.layer && s->traffic[i].sl >= 0) {
            snprintf(err, errlen, "%s: traffic.%d.sl: expected no service level with ib.routing_engine \"%s\" "
                     "(it puts each path on a VL of its own to break credit loops), got %d", s->file, i,
                     module_at(sm_kind.name, ib_params_of(s)->routing_engine)->name, s->traffic[i].sl);
            return SCN_EUSAGE;
        }
        used |= 1u << (s->traffic[i].sl < 0 ? 0 : s->traffic[i].sl);
    }
    /* under layers, layer l is VL l (sl2vl is not used) */
    if (n->sm.layer)
        used = (1u << n->sm.n_layers) - 1;
    for (int sl = 0; sl < IB_NSL; sl++) {
        if (!(used >> sl & 1))
            continue;
        int vl = n->sm.layer ? sl : n->sl2vl[sl];
        const char *at = NULL;
        if (!(sched_serves(n->sched) >> vl & 1))
            at = "the hosts";
        for (uint32_t w = 0; !at && w < n->g->n_switches; w++)
            if (!(sched_serves(n->sws[w].sched) >> vl & 1))
                at = n->g->nodes[n->sws[w].node].name;
        if (at) {
            char why[64];
            if (n->sm.layer)
                snprintf(why, sizeof why, "layer %d of ib.routing_engine", sl);
            else
                snprintf(why, sizeof why, "a flow's SL %d runs on it: ib.sl2vl", sl);
            snprintf(err, errlen, "%s: switch.scheduler: expected a weight for VL %d in vlarb_high or vlarb_low (%s), "
                     "got none at %s, where it would never be sent", s->file, vl, why, at);
            return SCN_EUSAGE;
        }
    }
    return 0;
}

static int ib_vl_of_sl(const struct scenario *s, int sl) { return ib_vl_of(ib_params_of(s), sl); }

/* FECN marking (fecn.c), its threshold a share of the switch's buffer per VL (credit.c). */
static void ib_marking(const struct scn_switch *c, struct port_cfg *pc)
{
    fecn_port_cfg(c, credit_vl_buffer(c), pc);
}

/* What only InfiniBand reads: its own object, the credits' buffers and the switches' FECN marking. */
static const char *const ib_own[] = {"ib", "switch.credit", "switch.ibcc", NULL};

static const struct fabric_ops ib_fabric = {
    .name = "infiniband",
    .fr = {.hdr_data = 26, .frame_ack = 30, .frame_cnp = 42, .wire = 2},
    .lfc = "credit",
    .mtus = ib_mtus,
    .own = ib_own,
    .service_levels = true,
    .vl_of = ib_vl_of_sl,
    .check = ib_check,
    .marking = ib_marking,
    .route = ib_route,
};
MODULE_REGISTER(fabric_kind, "infiniband", &ib_fabric, &ib_group);

/* ---- ib: the fabric's own settings (docs/scenario.md) ---- */

/* Parses OpenSM's form of an SL-to-VL table (qos_sl2vl): 16 VLs, comma-separated, for SL 0 to 15. */
static int parse_sl2vl(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct ib_params *ib = base;
    const char *s;
    (void)f;
    if (setting_val_str(c, v, p, "16 comma-separated VLs like \"0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\"", &s) < 0)
        return -1;
    int sl = 0;
    for (const char *q = s; *q;) {
        char *end;
        long vl = strtol(q, &end, 10);
        if (end == q || vl < 0 || vl > 14 || sl == IB_NSL)
            return setting_bad(c, p, "expected 16 comma-separated VLs 0-14 (SL 0 first), got \"%.64s\"", s);
        ib->sl2vl[sl++] = (uint8_t)vl;
        q = *end == ',' && end[1] ? end + 1 : end;
        if (*q && *end != ',')
            return setting_bad(c, p, "expected 16 comma-separated VLs 0-14 (SL 0 first), got \"%.64s\"", s);
    }
    if (sl != IB_NSL)
        return setting_bad(c, p, "expected 16 comma-separated VLs 0-14 (SL 0 first), got %d in \"%.64s\"", sl, s);
    ib->sl2vl_given = true;
    return 0;
}

static void dump_sl2vl(cJSON *o, const struct setting *f, const void *base)
{
    const struct ib_params *ib = base;
    char buf[64] = "";
    for (int sl = 0; sl < IB_NSL; sl++)
        setting_strf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", sl ? "," : "", ib_vl_of(ib, sl));
    cJSON_AddStringToObject(o, f->name, buf);
}

/* Operational VLs are 1, 2, 4 or 8 (PortInfo.OperationalVLs; VL15, management, is not modelled); without a table
 * of its own, SL s runs on VL s mod vls; with one, every SL must land on an operational VL. */
static int check_ib(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    struct ib_params *ib = base;
    char p[SETTING_PATH_MAX];
    if (ib->vls & (ib->vls - 1))
        return setting_bad(c, setting_join(p, path, "vls"), "expected 1, 2, 4 or 8 operational VLs, got %d", ib->vls);
    for (int sl = 0; ib->sl2vl_given && sl < IB_NSL; sl++) {
        if (ib->sl2vl[sl] >= ib->vls)
            return setting_bad(c, setting_join(p, path, "sl2vl"), "expected VLs below ib.vls (%d: VLs 0-%d have "
                               "buffer), got SL %d on VL %d, which has none", ib->vls, ib->vls - 1, sl,
                               ib->sl2vl[sl]);
    }
    (void)obj;
    return 0;
}

static const struct setting ib_fields[] = {
    {SET_INT("vls", struct ib_params, vls, 1, 8, "8",
             "Operational data VLs of every port: 1, 2, 4 or 8, each with switch.credit.vl_buffer of buffer")},
    {SET_MODULE("routing_engine", struct ib_params, routing_engine, "sm", "minhop",
                "The subnet manager's routing engine, as OpenSM names it: \"minhop\", \"updn\", \"ftree\", "
                "\"lash\" or \"dfsssp\"")},
    {.name = "sl2vl", .kind = SETTING_CUSTOM, .offset = offsetof(struct ib_params, sl2vl),
     .help = "OpenSM's qos_sl2vl: the VL of SL 0..15, comma-separated (absent: SL mod vls)", .parse = parse_sl2vl,
     .dump = dump_sl2vl},
    {SET_CHECK(check_ib)},
    {0},
};

static const struct setting_group ib_group = {
    .path = "ib", .size = sizeof(struct ib_params), .after = "fabric", .fields = ib_fields,
};

static const struct ib_params *ib_params_of(const struct scenario *s)
{
    return SETTINGS_OF(s, ib_group, struct ib_params);
}

/* The VL of service level sl: ib.sl2vl's, else sl mod ib.vls. */
static int ib_vl_of(const struct ib_params *ib, int sl)
{
    return ib->sl2vl_given ? ib->sl2vl[sl] : sl % ib->vls;
}
