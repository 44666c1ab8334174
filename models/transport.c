/*
 * transport — the kind of the transport modules (transport.h): the registration's checks, the table the NIC's
 * per-frame calls read for a transport other than go-back-N, and the settings every transport shares.
 */
#include "models/transport.h"
#include "sim/settings.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <limits.h>
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

/* ---- The transports' settings (transport.h), in the host object ---- */

/*
 * The transport timeout as a QP sets it (InfiniBand Architecture Specification, Local ACK Timeout): a 5-bit
 * exponent, timeout = 4.096 us x 2^qp_timeout.  0 would mean "wait forever", which a run cannot end on, so
 * 1..31.  "off" (the default) keeps host.rto.
 */
static int parse_qp_timeout(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p, void *base)
{
    struct transport_params *h = base;
    long long t;
    (void)f;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "off") == 0) {
        h->qp_timeout = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        char d[96];
        return setting_bad(sc, p, "expected \"off\" or an integer 1..31, got %s", setting_describe(v, d, sizeof d));
    }
    if (setting_val_int(sc, v, p, 1, 31, &t) < 0)
        return -1;
    h->qp_timeout = (int)t;
    return 0;
}

static void dump_qp_timeout(cJSON *o, const struct setting *f, const void *base)
{
    const struct transport_params *h = base;
    if (h->qp_timeout < 0)
        cJSON_AddStringToObject(o, f->name, "off");
    else
        cJSON_AddNumberToObject(o, f->name, h->qp_timeout);
}

/* With qp_timeout the dump shows the exponent, not the rto it gives, so that the dump loads again. */
static void dump_rto(cJSON *o, const struct setting *f, const void *base)
{
    const struct transport_params *h = base;
    char b[40];
    if (h->qp_timeout < 0)
        cJSON_AddStringToObject(o, f->name, units_fmt_time(h->rto_ps, b, sizeof b));
}

/* The priority of ACKs and NACKs: "data" (the flow's own, the default) or 0..7. */
static int parse_ack_priority(struct setting_ctx *sc, const struct setting *f, const cJSON *v, const char *p,
                              void *base)
{
    struct transport_params *h = base;
    long long q;
    (void)f;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "data") == 0) {
        h->ack_priority = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        char d[96];
        return setting_bad(sc, p, "expected \"data\" or a priority 0..7, got %s", setting_describe(v, d, sizeof d));
    }
    if (setting_val_int(sc, v, p, 0, 7, &q) < 0)
        return -1;
    h->ack_priority = (int)q;
    return 0;
}

static void dump_ack_priority(cJSON *o, const struct setting *f, const void *base)
{
    const struct transport_params *h = base;
    if (h->ack_priority < 0)
        cJSON_AddStringToObject(o, f->name, "data");
    else
        cJSON_AddNumberToObject(o, f->name, h->ack_priority);
}

/* retry_count belongs to qp_timeout: left out with rto, so that the dump loads again. */
static void dump_retry_count(cJSON *o, const struct setting *f, const void *base)
{
    const struct transport_params *h = base;
    if (h->qp_timeout >= 0)
        cJSON_AddNumberToObject(o, f->name, h->retry_count);
}

/* rto and qp_timeout are two ways to say one thing; retry_count belongs to the QP's timeout. */
static int check_timeout(struct setting_ctx *sc, const cJSON *obj, const char *path, void *base)
{
    struct transport_params *h = base;
    char p[SETTING_PATH_MAX];
    bool rto = cJSON_GetObjectItemCaseSensitive(obj, "rto") != NULL;
    if (rto && cJSON_GetObjectItemCaseSensitive(obj, "qp_timeout") && h->qp_timeout >= 0)
        return setting_bad(sc, setting_join(p, path, "qp_timeout"), "expected either rto or qp_timeout, got both "
                           "(qp_timeout sets the retransmission timeout to 4.096 us x 2^qp_timeout)");
    if (rto)
        h->qp_timeout = -1;
    if (cJSON_GetObjectItemCaseSensitive(obj, "retry_count") && h->qp_timeout < 0)
        return setting_bad(sc, setting_join(p, path, "retry_count"), "expected qp_timeout with retry_count, got "
                           "none (retry_count is the QP's; with rto, retries are unlimited)");
    if (h->qp_timeout >= 0)
        h->rto_ps = (4096 * PS_PER_NS) << h->qp_timeout;
    return 0;
}

static const struct setting transport_fields[] = {
    {SET_MODULE("loss_recovery", struct transport_params, loss_recovery, "transport", "go-back-n",
                "Transport (delivery and loss recovery): \"go-back-n\", or one a module registered")},
    {SET_FIELD("rto", SETTING_TIME, struct transport_params, rto_ps, SETTING_POSITIVE, "1ms",
               "Retransmission timeout"), .dump = dump_rto},
    {SET_FIELD("qp_timeout", SETTING_INT, struct transport_params, qp_timeout, 0, "off",
               "\"off\" (rto applies) or the QP's timeout exponent 1..31: timeout = 4.096 us x 2^qp_timeout"),
     .lo = 1, .hi = 31, .parse = parse_qp_timeout, .dump = dump_qp_timeout},
    {SET_INT("retry_count", struct transport_params, retry_count, 0, 7, "7",
             "With qp_timeout: timeouts in a row without progress after which the flow fails"),
     .dump = dump_retry_count},
    {SET_CHECK(check_timeout)},
    {SET_FIELD("ack_priority", SETTING_INT, struct transport_params, ack_priority, SETTING_CLASS, "data",
               "Priority of ACKs and NACKs: \"data\" (the flow's own) or 0..7"),
     .lo = 0, .hi = 7, .parse = parse_ack_priority, .dump = dump_ack_priority},
    {SET_INT("ack_every", struct transport_params, ack_every, 1, INT_MAX, "1",
             "Acknowledge every this many in-order packets")},
    {SET_FIELD("nack_cnp", SETTING_BOOL, struct transport_params, nack_cnp, 0, "false",
               "A NACK for a PSN gap (a loss, a trim or a reordering) also sends the sender a CNP, within the "
               "congestion control's CNP interval")},
    {0},
};

/* Flat, in the host object where sim/ had these fields: after host.cc and DCQCN's object, which follows it. */
static const struct setting_group transport_group = {
    .path = "host/transport", .size = sizeof(struct transport_params), .after = "dcqcn", .fields = transport_fields,
};
SETTINGS_REGISTER("transport", &transport_group);

/* See transport.h. */
const struct transport_params *transport_params_of(const struct scn_host *h)
{
    return SETTINGS_OF(h, transport_group, struct transport_params);
}
