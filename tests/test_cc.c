/*
 * Congestion control behind its table (models/cc.h) and the INT record pool (models/telemetry.h): the registry,
 * the read-only sample rates.csv prints, the transport's window and telemetry paths through an algorithm
 * registered here, and that frames without a record cost no room.
 */
#include "tests/tests.h"
#include "models/cc.h"
#include "models/dcqcn.h"
#include "models/telemetry.h"
#include "sim/settings.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* A frame without a record costs nothing: the index sits in what was padding, and the frame stays one line. */
_Static_assert(sizeof(struct pkt) == 64, "a packet is one cache line");
_Static_assert(offsetof(struct pkt, tel) + sizeof(uint32_t) <= offsetof(struct pkt, pmark), "tel fills padding");

static void test_registry(void)
{
    int d = cc_find("dcqcn"), n = cc_find("none");
    CU_ASSERT_EQUAL(d, 0); /* the kind's default is numbered first: a zeroed host runs DCQCN */
    CU_ASSERT(n > 0);
    CU_ASSERT_EQUAL(cc_find("nosuch"), -1);
    CU_ASSERT_EQUAL(cc_count, module_count("cc"));
    CU_ASSERT_STRING_EQUAL(cc_registry[d]->name, "dcqcn");
    CU_ASSERT_STRING_EQUAL(cc_scenario_name(n), "none");
    CU_ASSERT_PTR_EQUAL(module_at("cc", n)->ops, cc_registry[n]);
    CU_ASSERT(cc_registry[d]->flags & CC_F_CNP);
    CU_ASSERT_FALSE(cc_registry[n]->flags & (CC_F_CNP | CC_F_TELEMETRY));
    CU_ASSERT_STRING_EQUAL(cc_sample_columns[CC_SAMPLE_TARGET], "target_gbps");
}

static void test_pool(void)
{
    struct int_pool p;
    int_pool_init(&p, 3);
    uint32_t a = int_get(&p), b = int_get(&p);
    CU_ASSERT(a != 0 && b != 0 && a != b);
    CU_ASSERT_EQUAL(a >> INT_OWNER_SHIFT, 3); /* an id names its pool */
    CU_ASSERT_EQUAL(p.live, 2);
    struct int_rec *r = int_rec(&p, a);
    CU_ASSERT_EQUAL(r->n_hops, 0);
    for (int i = 0; i < INT_MAX_HOPS; i++) {
        struct int_hop h = {.ts = 1000 * i, .tx_bytes = 100u * i, .rate_bps = 100000000000LL, .qlen = 7u * i,
                            .port = (uint32_t)i};
        CU_ASSERT_TRUE(int_push(r, &h));
    }
    struct int_hop extra = {.ts = 9};
    CU_ASSERT_FALSE(int_push(r, &extra)); /* five hops, no more */
    CU_ASSERT_EQUAL(r->n_hops, INT_MAX_HOPS);
    CU_ASSERT_EQUAL(r->hop[4].ts, 4000);
    CU_ASSERT_EQUAL(r->hop[4].tx_bytes, 400);
    CU_ASSERT_EQUAL(r->hop[4].qlen, 28);
    CU_ASSERT_EQUAL(r->hop[3].port, 3);
    int_put(&p, a);
    CU_ASSERT_EQUAL(p.live, 1);
    uint32_t c = int_get(&p);
    CU_ASSERT_EQUAL(c, a);                       /* a freed record is handed out again ... */
    CU_ASSERT_EQUAL(int_rec(&p, c)->n_hops, 0); /* ... empty */
    /* Past the first block: indices stay distinct and every one comes back. */
    static uint32_t ids[3000];
    for (int i = 0; i < 3000; i++)
        ids[i] = int_get(&p);
    CU_ASSERT_EQUAL(p.live, 3002);
    CU_ASSERT_EQUAL(p.high_water, 3002);
    bool distinct = true;
    for (int i = 1; i < 3000; i++)
        distinct &= ids[i] != ids[i - 1] && ids[i] != 0 && ids[i] != b && ids[i] != c;
    CU_ASSERT_TRUE(distinct);
    for (int i = 0; i < 3000; i++)
        int_put(&p, ids[i]);
    int_put(&p, b);
    int_put(&p, c);
    CU_ASSERT_EQUAL(p.live, 0);
    int_pool_free(&p);
}

#define STAR(cc, extra)                                                                                        \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"40Gbps\", \"delay\": \"1us\"}}," \
    "\"stop\": \"2ms\", \"host\": {\"cc\": \"" cc "\"}, "                                                      \
    "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h2\", \"size\": \"100MB\"" extra "},"      \
    "              {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"100MB\"}]}"

/* rates.csv's row is the sample: DCQCN's Rc (capped), Rt and alpha; none's line rate (capped) twice. */
static void test_sample(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(STAR("dcqcn", ", \"rate\": \"15Gbps\""), NULL, NULL, &scn, &r));
    CU_ASSERT_PTR_NULL(r.net.tel); /* no algorithm asked for telemetry: no pool */
    sim_run(&r.sim, PS_PER_MS);
    for (uint32_t i = 0; i < 2; i++) {
        const struct flow *f = net_flow(&r.net, i);
        const struct dcqcn *d = CC_STATE(f, const struct dcqcn);
        struct cc_sample s;
        cc_sample(f, r.sim.now, &s);
        CU_ASSERT_EQUAL(s.valid, 7);
        CU_ASSERT(d->cnps > 0); /* the two flows congest the receiver's port: the rates were cut */
        CU_ASSERT_DOUBLE_EQUAL(s.rate_bps, i == 0 && d->rc > 15e9 ? 15e9 : d->rc, 0);
        CU_ASSERT_DOUBLE_EQUAL(s.target_bps, d->rt, 0);
        CU_ASSERT_DOUBLE_EQUAL(s.alpha, dcqcn_alpha(d, r.sim.now), 0);
        struct cc_stat st[4];
        CU_ASSERT_EQUAL(cc_stats(f, st, 4), 1);
        CU_ASSERT_STRING_EQUAL(st[0].name, "rate_cuts");
        CU_ASSERT_EQUAL(st[0].value, d->cnps);
    }
    test_teardown(&scn, &r);

    CU_ASSERT_FATAL(test_setup(STAR("none", ", \"rate\": \"15Gbps\""), NULL, NULL, &scn, &r));
    sim_run(&r.sim, PS_PER_MS);
    struct cc_sample s;
    cc_sample(net_flow(&r.net, 0), r.sim.now, &s);
    CU_ASSERT_EQUAL(s.valid, (1u << CC_SAMPLE_RATE));
    CU_ASSERT_DOUBLE_EQUAL(s.rate_bps, 15e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.target_bps, 15e9, 0);
    cc_sample(net_flow(&r.net, 1), r.sim.now, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.rate_bps, 40e9, 0);
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 0); /* none has no notification point */
    test_teardown(&scn, &r);
}

/*
 * An algorithm of the test's own, through the seams a windowed, telemetry-driven one (HPCC) needs: at most two
 * frames unacknowledged, every data frame carrying an INT record that comes back in its ACK.
 */
struct wnd_state {
    uint32_t max_out;     /* most frames ever unacknowledged when one was sent */
    uint64_t acks, acks_with_rec, hops_seen, newly;
};
#define WND_FRAMES 2

static void wnd_init(struct flow *f, sim_time_t now) { f->cc_wnd = WND_FRAMES * f->mtu; }
static double wnd_rate(const struct flow *f) { return (double)f->net->hosts[f->src].rate_bps; }
static void wnd_on_sent(struct flow *f, uint32_t bytes)
{
    struct wnd_state *w = CC_STATE(f, struct wnd_state);
    uint32_t out = f->snd_nxt - f->snd_una; /* this frame included */
    if (out > w->max_out)
        w->max_out = out;
}
static void wnd_on_ack(struct flow *f, const struct cc_ack *a, sim_time_t now)
{
    struct wnd_state *w = CC_STATE(f, struct wnd_state);
    w->acks++;
    w->newly += a->newly_acked;
    if (a->tel) {
        w->acks_with_rec++;
        w->hops_seen += a->tel->n_hops;
    }
}
static void wnd_sample(const struct flow *f, sim_time_t now, struct cc_sample *s) { s->rate_bps = wnd_rate(f); }

static const struct cc_ops wnd_ops = {
    .name = "test_window_int",
    .flags = CC_F_TELEMETRY,
    .init = wnd_init,
    .on_sent = wnd_on_sent,
    .on_ack = wnd_on_ack,
    .rate = wnd_rate,
    .sample = wnd_sample,
};
MODULE_REGISTER(cc_kind, "test_window_int", &wnd_ops);

static void test_window_and_telemetry(void)
{
    int id = cc_find(wnd_ops.name);
    CU_ASSERT_FATAL(id >= 0);
    struct scenario scn;
    struct run r;
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"host\": {\"cc\": \"none\", \"ack_every\": 1},"
        "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}";
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    struct flow *f = net_flow(&r.net, 0);
    cc_flow_setup(&r.net, f, id); /* before it starts */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.net.tel);
    test_run_checked(&r);
    const struct wnd_state *w = CC_STATE(f, const struct wnd_state);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(w->max_out, WND_FRAMES);           /* the window held, and was used */
    CU_ASSERT_EQUAL(w->newly, f->n_pkts);              /* every frame acknowledged once */
    CU_ASSERT_EQUAL(w->acks, f->n_pkts);               /* ack_every 1, no loss */
    CU_ASSERT_EQUAL(w->acks_with_rec, w->acks);        /* each ACK echoed its frame's record */
    CU_ASSERT_EQUAL(w->hops_seen, f->n_pkts);          /* s0 stamped each frame at its egress, once */
    /* INT on the wire: each frame delivered 2 header bytes from its sender and 8 of s0's hop. */
    CU_ASSERT_EQUAL(r.net.c.bytes_delivered, (uint64_t)f->size + f->n_pkts * (HDR_DATA + INT_HDR_BYTES + INT_HOP_BYTES));
    uint32_t live = 0, high_water = 0;                 /* over the pools of every partition (one here) */
    for (uint32_t i = 0; i <= r.net.n_parts; i++) {
        live += r.net.tel_pools[i]->live;
        high_water += r.net.tel_pools[i]->high_water;
    }
    CU_ASSERT_EQUAL(live, 0);                          /* every record came back */
    CU_ASSERT(high_water >= 1 && high_water <= 2 * WND_FRAMES);
    /* A window of two 1 KB frames over a 4 us round trip is far below line rate: the window paced it. */
    CU_ASSERT((double)(f->finish - f->start) / (double)f->ideal_fct > 5.0);
    test_teardown(&scn, &r);
}

/*
 * A congestion control as a module outside sim/ declares it, the way the recipe in CONTRIBUTING.md says: one
 * MODULE_REGISTER line (its host.cc name and hooks), its own settings group `host.test_ext` that declares the size
 * of its own struct (the loader keeps the values, the module reads them with SETTINGS_OF), its own hooks.  A
 * scenario then names it and sets its field like any other; defaults, the check dump and the run follow.  The
 * group is registered by the test itself (not on the MODULE_REGISTER line), and removed after it, because the
 * docs test knows only the project's own groups.
 */
struct ext_params {
    int window_frames;
};
static const struct setting ext_fields[] = {
    {SET_INT("window_frames", struct ext_params, window_frames, 1, 64, "2", "Frames the window holds")},
    {0},
};
static struct setting_group ext_group = {
    .path = "host.test_ext", .size = sizeof(struct ext_params), .fields = ext_fields,
};

static const struct ext_params *ext_params(const struct flow *f)
{
    return SETTINGS_OF(&f->net->scn->host, ext_group, struct ext_params);
}
static void ext_init(struct flow *f, sim_time_t now) { f->cc_wnd = (uint32_t)ext_params(f)->window_frames * f->mtu; }

static const struct cc_ops ext_ops = {
    .name = "test_ext",
    .init = ext_init,
    .on_sent = wnd_on_sent,
    .rate = wnd_rate,
    .sample = wnd_sample,
};
MODULE_REGISTER(cc_kind, "test_ext", &ext_ops);

static void test_module_settings(void)
{
    int value = cc_find(ext_ops.name);
    CU_ASSERT_FATAL(value > 0); /* after the kind's default */
    CU_ASSERT_STRING_EQUAL(cc_scenario_name(value), ext_ops.name);
    CU_ASSERT_EQUAL_FATAL(settings_register(&ext_group), 0);
    const char *topo =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}], \"host\": {\"cc\": "
        "\"test_ext\"";
    for (int k = 0; k < 2; k++) {
        char json[1024];
        snprintf(json, sizeof json, "%s%s}}", topo, k ? ", \"test_ext\": {\"window_frames\": 3}" : "");
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        CU_ASSERT_EQUAL(cc_params_of(&scn.host)->cc, value);
        char *dump = scn_to_json(&scn);
        CU_ASSERT_PTR_NOT_NULL(dump && strstr(dump, k ? "\"window_frames\": 3" : "\"window_frames\": 2"));
        free(dump);
        struct flow *f = net_flow(&r.net, 0);
        CU_ASSERT_EQUAL(f->cc, (uint8_t)cc_find(ext_ops.name));
        test_run_checked(&r);
        CU_ASSERT_TRUE(f->sender_done);
        CU_ASSERT_EQUAL(CC_STATE(f, const struct wnd_state)->max_out, k ? 3 : 2); /* the default, then the set 3 */
        test_teardown(&scn, &r);
    }
    /* Out of range like any table field, naming the module's path. */
    char bad[1024];
    snprintf(bad, sizeof bad, "%s, \"test_ext\": {\"window_frames\": 0}}}", topo);
    struct scenario scn;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(scn_load_text("t.json", bad, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.test_ext.window_frames"));
    settings_unregister(ext_group.path); /* the docs test knows only the project's own groups */
}

/* Push at egress records what HPCC's INT header holds, from the port the frame leaves. */
static void test_push_egress(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(STAR("dcqcn", ""), NULL, NULL, &scn, &r));
    sim_run(&r.sim, 20 * PS_PER_US);
    struct net *n = &r.net;
    net_tel_ensure(n);
    struct port *p = test_port_to(&r, "s0", "h2");
    struct pkt *k = pkt_alloc(n);
    CU_ASSERT_EQUAL(k->tel, 0);
    k->type = PKT_DATA;
    k->prio = 3;
    k->tel = int_get(n->tel);
    int_push_egress(n, k, p);
    const struct int_rec *rec = int_rec(n->tel, k->tel);
    CU_ASSERT_EQUAL_FATAL(rec->n_hops, 1);
    CU_ASSERT_EQUAL(rec->hop[0].ts, r.sim.now);
    /* What the link carried: each frame with its preamble and inter-frame gap (telemetry.h). */
    CU_ASSERT_EQUAL(rec->hop[0].tx_bytes, p->tx_bytes + p->tx_frames * WIRE_OVERHEAD);
    CU_ASSERT(p->tx_bytes > 0 && p->tx_frames > 0);
    CU_ASSERT_EQUAL(rec->hop[0].rate_bps, 40000000000LL);
    CU_ASSERT_EQUAL(rec->hop[0].qlen, (uint32_t)port_queued_bytes(p, 3));
    CU_ASSERT_EQUAL(rec->hop[0].port, port_id(p));
    struct pkt *ack = pkt_alloc(n);
    int_echo(ack, k);
    CU_ASSERT_EQUAL(k->tel, 0);
    CU_ASSERT_PTR_EQUAL(int_rec(n->tel, ack->tel), rec);
    pkt_free(n, k);
    CU_ASSERT_EQUAL(n->tel->live, 1);
    pkt_free(n, ack); /* freeing a frame gives its record back */
    CU_ASSERT_EQUAL(n->tel->live, 0);
    /* A record of partition 0's pool, freed by the run's own code: held, and given back at the window's end. */
    struct pkt *k2 = pkt_alloc(n);
    k2->tel = int_get(n->tel_pools[0]);
    pkt_free(n, k2);
    CU_ASSERT_EQUAL(n->tel_pools[0]->live, 1);
    CU_ASSERT_EQUAL(n->own.n_tel_back, 1);
    sim_run(&r.sim, r.sim.now + 2 * PS_PER_US);
    CU_ASSERT_EQUAL(n->tel_pools[0]->live, 0);
    CU_ASSERT_EQUAL(n->own.n_tel_back, 0);
    test_teardown(&scn, &r);
}

void test_cc_register(void)
{
    CU_pSuite s = CU_add_suite("congestion control table, INT pool", NULL, NULL);
    CU_add_test(s, "registry by name, host.cc's value the module's index", test_registry);
    CU_add_test(s, "INT pool hands out, holds five hops, takes back", test_pool);
    CU_add_test(s, "rates.csv sample through the table", test_sample);
    CU_add_test(s, "window and telemetry seams through a registered algorithm", test_window_and_telemetry);
    CU_add_test(s, "push at egress and echo in ACK", test_push_egress);
    CU_add_test(s, "a module's own host.cc name and settings group, with a struct of its own", test_module_settings);
}
