/*
 * fault_slow_receiver — the kind "slow_receiver": a NIC whose receive pipeline (PCIe, a busy host) drains slower
 * than its link, buffering what arrives and running PFC on that buffer as a switch ingress does (IEEE 802.1Qbb),
 * the slow-receiver symptom of Guo et al., RDMA over Commodity Ethernet at Scale, SIGCOMM 2016.  The rules are in
 * fault.h; the receive buffer is fault.c's.
 */
#include "models/fault.h"
#include "models/ranks.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct slow_receiver_conf {
    struct fault_span span; /* start, end */
    int host;
    int64_t rate_bps;
};

static const struct setting slow_receiver_fields[] = {
    {.name = "host", .kind = SETTING_CUSTOM, .offset = offsetof(struct slow_receiver_conf, host),
     .flags = SETTING_REQUIRED, .what = "a host name like \"h0\"", .help = "The slow host",
     .parse = scn_parse_host, .dump = scn_dump_host},
    {SET_FIELD("rate", SETTING_RATE, struct slow_receiver_conf, rate_bps, SETTING_POSITIVE | SETTING_REQUIRED, NULL,
               "How fast its pipeline drains"), .what = "a rate like \"100Gbps\""},
    {SET_FIELD("start", SETTING_TIME, struct slow_receiver_conf, span.start_ps, 0, NULL, "When it slows down")},
    {.name = "end", .kind = SETTING_CUSTOM, .offset = offsetof(struct slow_receiver_conf, span.end_ps),
     .flags = SETTING_ALWAYS, .help = "When it recovers (absent: never)", .parse = fault_parse_end,
     .dump = fault_dump_end},
    {SET_CHECK(fault_check_end)},
    {0},
};

static const struct setting_group slow_receiver_group = {
    .path = "faults.slow_receiver", .size = sizeof(struct slow_receiver_conf), .per_entry = true,
    .fields = slow_receiver_fields,
};

/* Event: slow_receiver fault number arg begins: frames arriving from now on go through the buffer. */
static void slow_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct slow_receiver_conf *f = FAULT_CONF(&n->scn->faults[arg], struct slow_receiver_conf);
    struct nic_fault *nf = n->hosts[f->host].fault;
    n->hosts[f->host].rx_divert = fault_rx_arrive;
    nf->rx_rate_bps = f->rate_bps;
    nf->rx_rem = 0;
}

/* The pipeline recovers: what is buffered goes to the transport now, in order, and its pauses are lifted. */
static void slow_end(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    const struct slow_receiver_conf *f = FAULT_CONF(&n->scn->faults[arg], struct slow_receiver_conf);
    struct host *h = &n->hosts[f->host];
    struct ranks_entry re;
    if (!ranks_enter(n, h->node, &re))
        return;
    fault_rx_recover(n, h);
    ranks_leave(n, &re);
}


/* Two slow_receiver faults of one host may not overlap: the pipeline has one rate at a time. */
static int slow_receiver_resolve(struct net *n, int i, char *err, size_t errlen)
{
    const struct scenario *scn = n->scn;
    const struct slow_receiver_conf *f = FAULT_CONF(&scn->faults[i], struct slow_receiver_conf);
    for (int j = 0; j < i; j++) {
        if (scn->faults[j].type != scn->faults[i].type)
            continue;
        const struct slow_receiver_conf *g = FAULT_CONF(&scn->faults[j], struct slow_receiver_conf);
        if (g->host == f->host && fault_overlap(&g->span, &f->span)) {
            snprintf(err, errlen,
                     "%s: faults.%d: expected slow_receiver faults of one host not to overlap in time, got "
                     "faults.%d and faults.%d both on \"%s\"",
                     scn->file, i, j, i, scn_host_name(scn, f->host));
            return SCN_EUSAGE;
        }
    }
    return 0;
}

static void slow_receiver_schedule(struct net *n, int i)
{
    const struct slow_receiver_conf *f = FAULT_CONF(&n->scn->faults[i], struct slow_receiver_conf);
    fault_host(n, &n->hosts[f->host]);
    sim_at(net_sim(n), f->span.start_ps, slow_begin, n, (uint64_t)i);
    if (f->span.end_ps >= 0)
        sim_at(net_sim(n), f->span.end_ps, slow_end, n, (uint64_t)i);
}

static const struct fault_ops slow_receiver_ops = {.resolve = slow_receiver_resolve,
                                                   .schedule = slow_receiver_schedule};

MODULE_REGISTER(fault_kind, "slow_receiver", &slow_receiver_ops, &slow_receiver_group);
