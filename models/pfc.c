/* pfc — priority flow control, IEEE 802.1Qbb (the rules are in pfc.h). */
#include "models/pfc.h"
#include "models/deadlock.h"
#include "models/nic.h"
#include "models/pfcwd.h"
#include "models/port.h"
#include "models/switch.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <string.h>

int64_t pfc_headroom(int64_t rate_bps, int64_t delay_ps, int frame_in, int frame_out, int response_quanta)
{
    __int128 bits = (__int128)(frame_out + WIRE_OVERHEAD) * 8 + (FRAME_PAUSE + WIRE_OVERHEAD) * 8 +
                    (__int128)response_quanta * PAUSE_QUANTUM_BITS + (__int128)(frame_in + WIRE_OVERHEAD) * 8;
    __int128 flight_bits = (__int128)2 * delay_ps * rate_bps; /* in bit*ps/s units */
    int64_t bytes = (int64_t)((bits * PS_PER_S + flight_bits + 8 * PS_PER_S - 1) / (8 * PS_PER_S));
    return (bytes + frame_in - 1) / frame_in * frame_in;
}

/* frame capped by the switch.mtu of node `node` when it is a switch with one (0: no limit). */
static int node_cap(const struct net *n, uint32_t node, int frame)
{
    const struct sw *w = n->node_sw[node];
    int mtu = w ? switch_params_of(w->cfg)->mtu : 0;
    return mtu && mtu < frame ? mtu : frame;
}

void pfc_port_frames(const struct net *n, const struct port *p, int *in, int *out)
{
    const struct host *self = n->node_host[p->node], *peer = n->node_host[p->peer->node];
    *in = peer ? peer->nic->mtu + n->fr.hdr_data : node_cap(n, p->peer->node, n->frame_max);
    *in = node_cap(n, p->node, *in);
    *out = self ? self->nic->mtu + n->fr.hdr_data : node_cap(n, p->node, n->frame_max);
}

int64_t pfc_port_headroom(const struct net *n, const struct port *p, int response_quanta)
{
    int in, out;
    pfc_port_frames(n, p, &in, &out);
    return pfc_headroom(port_aux(p)->rate_bps, p->delay_ps, in, out, response_quanta);
}

/* Refresh at half the pause time so that the upstream never resumes on expiry. */
static sim_time_t refresh_period(const struct net *n, const struct port *p)
{
    return pause_quanta_ps(n->pfc->pause_quanta, port_aux(p)->rate_bps) / 2;
}

void pfc_send(struct port *p, int prio, uint16_t quanta)
{
    struct net *n = p->net;
    struct pkt *k = pkt_alloc(n);
    k->type = PKT_PAUSE;
    k->prio = (uint8_t)prio;
    k->size = FRAME_PAUSE;
    k->quanta = quanta;
    k->flow = UINT32_MAX;
    if (quanta) {
        net_np(n)->c.pause_frames++;
        net_np(n)->c.prio[prio].pause_frames++;
    } else {
        net_np(n)->c.resume_frames++;
    }
    struct port_ctr *c = net_ctr(n, p, prio);
    if (c)
        c->pause_tx++;
    NET_NOTIFY(n, pfc, net_sim(n)->now, p->node, p->local, prio, quanta != 0);
    port_send_ctrl(p, k);
}

/* Timer: p still holds its peer paused on pt->prio, so it sends PAUSE again and re-arms; a switch's refresh is
 * the deadlock detector's heartbeat (lfc.h). */
static void pause_refresh(struct sim *s, void *obj, uint64_t arg)
{
    struct prio_timer *pt = obj;
    struct port *p = pt->port;
    struct net *n = p->net;
    SIM_ASSERT_ENT(s, net_ent(p->node));
    if (!((p->pause_sent >> pt->prio) & 1))
        return;
    pfc_send(p, pt->prio, (uint16_t)n->pfc->pause_quanta);
    sim_timer_arm(s, &pt->tm, s->now + refresh_period(n, p), pause_refresh, pt);
    if (p->kind != NODE_HOST)
        deadlock_heartbeat(n); /* may stop the run */
}

void pfc_hold(struct net *n, struct port *p, int prio)
{
    p->pause_sent |= (uint8_t)(1u << prio);
    pfc_send(p, prio, (uint16_t)n->pfc->pause_quanta);
    struct prio_timer *pt = &port_aux(p)->pause_refresh[prio];
    sim_timer_arm(net_sim(n), &pt->tm, net_sim(n)->now + refresh_period(n, p), pause_refresh, pt);
}

void pfc_let_go(struct port *p, int prio)
{
    p->pause_sent &= (uint8_t)~(1u << prio);
    sim_timer_cancel(&port_aux(p)->pause_refresh[prio].tm);
    pfc_send(p, prio, 0);
}

void pfc_host_hold(struct port *p, int prio, bool want)
{
    if (want == ((p->pause_sent >> prio) & 1) || p->down)
        return;
    if (want)
        pfc_hold(p->net, p, prio);
    else
        pfc_let_go(p, prio);
}

void pfc_unpause(struct port *p, int prio)
{
    if (!((p->paused >> prio) & 1))
        return;
    sim_timer_cancel(&port_aux(p)->pause_expire[prio].tm);
    port_unblock(p, prio);
}

static void pause_expired(struct sim *s, void *obj, uint64_t arg)
{
    struct prio_timer *pt = obj;
    SIM_ASSERT_ENT(s, net_ent(pt->port->node));
    pfc_unpause(pt->port, pt->prio);
}

/* A PAUSE or RESUME arrived at p. */
static void receive(struct port *p, const struct pkt *k)
{
    struct net *n = p->net;
    int prio = k->prio;
    uint8_t bit = (uint8_t)(1u << prio);
    if (n->wd)
        pfcwd_saw_pfc(n, p, prio);
    if (p->wd_ignore & bit) {
        /* The watchdog declared this queue stormed: its PAUSEs are ignored until restoration. */
        if (k->quanta)
            p->wd_overrode |= bit;
        return;
    }
    if (k->quanta == 0) {
        pfc_unpause(p, prio);
        return;
    }
    struct port_aux *x = port_aux(p);
    if (p->wd_overrode & bit) {
        /* What was sent under the override ends with the frame the transmitter is on (or last sent): it lands
         * at the peer one link delay after busy_until, and nothing of prio is sent after it until the block
         * is lifted. */
        x->wd_overrode_until[prio] = p->busy_until + p->delay_ps;
        p->wd_overrode &= (uint8_t)~bit;
    }
    port_block(p, prio);
    /* Each PAUSE restarts the pause time (a refresh extends it). */
    sim_time_t dur = pause_quanta_ps(k->quanta, x->rate_bps);
    sim_timer_arm(net_sim(n), &x->pause_expire[prio].tm, net_sim(n)->now + dur, pause_expired, &x->pause_expire[prio]);
}

static void link_fail(struct port *p)
{
    struct port_aux *x = port_aux(p);
    for (int prio = 0; prio < NPRIO; prio++) {
        sim_timer_cancel(&x->pause_expire[prio].tm);
        sim_timer_cancel(&x->pause_refresh[prio].tm);
    }
    p->pause_sent = 0;
}

/* The table's entries for the per-frame operations (the switch calls the inline ones directly). */
static int admit(struct net *n, struct sw *w, struct port *in, struct pkt *k) { return pfc_admit(n, w, in, k); }

static void released(struct net *n, struct sw *w, struct port *in, int prio) { pfc_released(n, w, in, prio); }

const struct lfc_ops pfc_lfc_ops = {
    .name = "pfc",
    .admit = admit,
    .released = released,
    .control = receive,
    .link_fail = link_fail,
    .heartbeat = true,
};

/* ---- switch.pfc: its settings (pfc.h, docs/scenario.md) ---- */

static int parse_priorities(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct pfc_settings *pfc = base;
    char q[SETTING_PATH_MAX];
    (void)f;
    if (setting_val_arr(c, v, p, "an array of priorities 0..7 like [3]") < 0)
        return -1;
    pfc->lossless_mask = 0;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        long long x;
        if (setting_val_int(c, it, setting_join_idx(q, p, i), 0, 7, &x) < 0)
            return -1;
        if (pfc->lossless_mask & (1u << x))
            return setting_bad(c, q, "expected each priority once, got %lld twice", x);
        pfc->lossless_mask |= (uint8_t)(1u << x);
    }
    return 0;
}

static void dump_priorities(cJSON *o, const struct setting *f, const void *base)
{
    const struct pfc_settings *pfc = base;
    cJSON *pr = cJSON_AddArrayToObject(o, f->name);
    for (int p = 0; pr && p < SCN_NPRIO; p++)
        if (pfc->lossless_mask & (1u << p))
            cJSON_AddItemToArray(pr, cJSON_CreateNumber(p));
}

/* v is either the keyword kw (*is_kw = true, *bytes = 0) or a size (*is_kw = false; > 0 when positive). */
static int keyword_or_size(struct setting_ctx *c, const cJSON *v, const char *p, const char *kw, const char *example,
                           bool positive, bool *is_kw, int64_t *bytes)
{
    if (cJSON_IsString(v) && strcmp(v->valuestring, kw) == 0) {
        *is_kw = true;
        *bytes = 0;
        return 0;
    }
    if (!cJSON_IsString(v) && !cJSON_IsNumber(v)) {
        char d[96];
        return setting_bad(c, p, "expected \"%s\" or a size like \"%s\", got %s", kw, example,
                           setting_describe(v, d, sizeof d));
    }
    if (setting_val_qty(c, v, p, SETTING_SIZE, positive, bytes) < 0)
        return -1;
    *is_kw = false;
    return 0;
}

static int parse_xoff(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct pfc_settings *pfc = base;
    bool dyn;
    memset(&pfc->xoff_map, 0, sizeof pfc->xoff_map);
    if (cJSON_IsObject(v)) {
        pfc->xoff_mode = PFC_XOFF_STATIC;
        pfc->xoff_bytes = 0;
        return scn_parse_rate_map(c, f, v, p, true, &pfc->xoff_map);
    }
    if (keyword_or_size(c, v, p, "dynamic", "100KB", true, &dyn, &pfc->xoff_bytes) < 0)
        return -1;
    pfc->xoff_mode = dyn ? PFC_XOFF_DYNAMIC : PFC_XOFF_STATIC;
    return 0;
}

static void dump_xoff(cJSON *o, const struct setting *f, const void *base)
{
    const struct pfc_settings *pfc = base;
    char b[40];
    if (pfc->xoff_map.n) {
        scn_dump_rate_map(o, f->name, &pfc->xoff_map, true);
        return;
    }
    cJSON_AddStringToObject(o, f->name, pfc->xoff_mode == PFC_XOFF_DYNAMIC ? "dynamic"
                                        : units_fmt_size(pfc->xoff_bytes, b, sizeof b));
}

static int parse_headroom(struct setting_ctx *c, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct pfc_settings *pfc = base;
    memset(&pfc->headroom_map, 0, sizeof pfc->headroom_map);
    if (cJSON_IsObject(v)) {
        pfc->headroom_auto = false;
        pfc->headroom_bytes = 0;
        return scn_parse_rate_map(c, f, v, p, true, &pfc->headroom_map);
    }
    return keyword_or_size(c, v, p, "auto", "50KB", false, &pfc->headroom_auto, &pfc->headroom_bytes);
}

static void dump_headroom(cJSON *o, const struct setting *f, const void *base)
{
    const struct pfc_settings *pfc = base;
    char b[40];
    if (pfc->headroom_map.n) {
        scn_dump_rate_map(o, f->name, &pfc->headroom_map, true);
        return;
    }
    cJSON_AddStringToObject(o, f->name, pfc->headroom_auto ? "auto" : units_fmt_size(pfc->headroom_bytes, b, sizeof b));
}

static int check_xon(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct pfc_settings *pfc = base;
    char a[32], b[32], p[SETTING_PATH_MAX];
    (void)obj;
    /* With maps the rule is checked per port, when the network is built. */
    if (pfc->xoff_mode == PFC_XOFF_STATIC && !pfc->xoff_map.n && !pfc->xon_map.n && pfc->xon_delta > pfc->xoff_bytes)
        return setting_bad(c, setting_join(p, path, "xon_delta"), "expected a size no larger than xoff (%s), got "
                           "\"%s\"", units_fmt_size(pfc->xoff_bytes, a, sizeof a),
                           units_fmt_size(pfc->xon_delta, b, sizeof b));
    return 0;
}

SCN_VALUE_OR_MAP(alpha, struct pfc_settings, alpha_map)
SCN_VALUE_OR_MAP(xon, struct pfc_settings, xon_map)

/* Enum fields are stored through an int (sim/settings.c). */
_Static_assert(sizeof(enum pfc_xoff_mode) == sizeof(int), "enum settings are stored as int");

/* In table order, which is the dump's, the docs' and the order errors are found in (sim/settings.h). */
static const struct setting pfc_fields[] = {
    {SET_FIELD("enabled", SETTING_BOOL, struct pfc_settings, enabled, SETTING_PORT, "true",
           "false: every priority is lossy")},
    {SET_FIELD("priorities", SETTING_CUSTOM, struct pfc_settings, lossless_mask, SETTING_PORT, "[3]",
           "The lossless priorities, each 0..7 once"), .parse = parse_priorities, .dump = dump_priorities},
    {SET_FIELD("xoff", SETTING_SIZE, struct pfc_settings, xoff_bytes, SETTING_POSITIVE, "dynamic",
           "\"dynamic\" (dynamic_alpha x free buffer) or a fixed pause threshold per ingress (port, priority)"),
     .parse = parse_xoff, .dump = dump_xoff},
    {SET_NUM("dynamic_alpha", struct pfc_settings, dynamic_alpha, 0, 0.0, 1.0, "0.125",
         "The fraction used by \"dynamic\""), .parse = parse_alpha, .dump = dump_alpha},
    {SET_FIELD("xon_delta", SETTING_SIZE, struct pfc_settings, xon_delta, 0, "3KB",
           "RESUME is sent this far below the pause threshold"), .parse = parse_xon, .dump = dump_xon},
    {SET_FIELD("headroom", SETTING_SIZE, struct pfc_settings, headroom_bytes, 0, "auto",
           "\"auto\" (from rate, delay and MTU) or the buffer reserved per ingress (port, lossless priority)"),
     .parse = parse_headroom, .dump = dump_headroom},
    {SET_INT("pause_quanta", struct pfc_settings, pause_quanta, 1, 65535, "65535",
         "Pause time a PAUSE frame carries, in quanta of 512 bit times"), .flags = SETTING_FABRIC},
    {SET_INT("response_quanta", struct pfc_settings, response_quanta, 0, 65535, "394",
         "The upstream's reaction time to a PAUSE, in quanta; used by headroom \"auto\"")},
    {SET_CHECK(check_xon)},
    {0},
};

/*
 * After switch.flow_control.  switch.ecn and switch.scheduler follow it too, in the order their modules register
 * (sim/module.h: by kind, "lfc" first), which keeps the switch object's order: pfc, ecn, scheduler.
 */
static const struct setting_group pfc_group = {
    .path = "switch.pfc", .size = sizeof(struct pfc_settings), .after = "flow_control", .fields = pfc_fields,
};

/* See pfc.h. */
const struct pfc_settings *pfc_settings_of(const struct scn_switch *w)
{
    return SETTINGS_OF(w, pfc_group, struct pfc_settings);
}

MODULE_REGISTER(lfc_kind, "pfc", &pfc_lfc_ops, &pfc_group);
