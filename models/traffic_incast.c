/*
 * traffic_incast — the kind "incast": every sender sends `size` bytes to one receiver, all starting together (the
 * partition/aggregate pattern of the DCTCP paper's measurements, a storage read striped over servers).
 */
#include "models/traffic.h"

#include <cjson/cJSON.h>

struct incast_conf {
    struct scn_hostset senders;
    int receiver;
    int64_t size;
};

static int check_receiver(struct setting_ctx *c, const cJSON *obj, const char *path, void *base)
{
    const struct incast_conf *e = base;
    char p[SETTING_PATH_MAX];
    (void)obj;
    for (int k = 0; k < e->senders.n; k++)
        if (e->senders.idx[k] == e->receiver)
            return setting_bad(c, setting_join(p, path, "receiver"),
                               "expected a receiver that is not among the senders, got \"%s\"",
                               scn_host_name(scn_loading(c), e->receiver));
    return 0;
}

static const struct setting incast_fields[] = {
    {.name = "senders", .kind = SETTING_CUSTOM, .offset = offsetof(struct incast_conf, senders),
     .flags = SETTING_REQUIRED, .lo = 1, .what = "a host selector like \"h0-h15\"",
     .help = "At least one host; not the receiver", .parse = scn_parse_hostset, .dump = scn_dump_hostset},
    {.name = "receiver", .kind = SETTING_CUSTOM, .offset = offsetof(struct incast_conf, receiver),
     .flags = SETTING_REQUIRED, .what = "a host name like \"h0\"", .help = "The host every sender sends to",
     .parse = scn_parse_host, .dump = scn_dump_host},
    {SET_CHECK(check_receiver)},
    {SET_FIELD("size", SETTING_SIZE, struct incast_conf, size, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "Bytes sent by each sender"), .what = "a size like \"20KB\""},
    {0},
};

static const struct setting_group incast_group = {
    .path = "traffic.incast", .size = sizeof(struct incast_conf), .per_entry = true, .fields = incast_fields,
};

static int incast_setup(struct traffic *t, int ti, char *err, size_t errlen)
{
    struct net *n = t->net;
    const struct scn_traffic *e = &n->scn->traffic[ti];
    const struct incast_conf *ic = TRAFFIC_CONF(e, struct incast_conf);
    (void)err, (void)errlen;
    for (int j = 0; j < ic->senders.n; j++)
        net_add_flow(n, traffic_name(t, e->id, j), (uint32_t)ic->senders.idx[j], (uint32_t)ic->receiver, ic->size,
                     e->start_ps, traffic_prio(n, e), 0, NULL, 0);
    return 0;
}

static void incast_release(struct traffic *t, int ti)
{
    (void)t, (void)ti;
}

static long incast_numbered(const struct scn_traffic *e)
{
    return TRAFFIC_CONF(e, struct incast_conf)->senders.n;
}

static void incast_count(const struct scenario *s, int ti, const double *host_rate, const struct traffic *t,
                         struct traffic_count *out)
{
    (void)host_rate, (void)t;
    *out = (struct traffic_count){.made = TRAFFIC_CONF(&s->traffic[ti], struct incast_conf)->senders.n};
}

static int incast_senders(const struct scn_traffic *e, const int **hosts)
{
    const struct incast_conf *ic = TRAFFIC_CONF(e, struct incast_conf);
    *hosts = ic->senders.idx;
    return ic->senders.n;
}

static const struct traffic_ops incast_ops = {
    .scn = {.numbered = incast_numbered},
    .setup = incast_setup,
    .release = incast_release,
    .count = incast_count,
    .senders = incast_senders,
};

MODULE_REGISTER(traffic_kind, "incast", &incast_ops, &incast_group);
