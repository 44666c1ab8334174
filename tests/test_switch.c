/*
 * The switch on its own (models/switch.h, with PFC's admission, pfc.h, and ECN marking, ecn.h): static and
 * dynamic XOFF, RESUME at xoff - xon_delta, headroom admission and headroom drops, lossy tail drop, buffer
 * accounting released at dequeue, and the RED marking rule.  The runs use one sender on a 100 Gbps link into
 * a switch whose egress is 2.5 Gbps, so that every frame's arrival and departure is known by hand; a listener
 * records each PFC frame with the ingress counters at that instant.
 */
#include "tests/tests.h"
#include "models/ecn.h"
#include "models/pfc.h"
#include "sim/units.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"

#include <string.h>

/*
 * h0 -- 100 Gbps, 1 us -- s0 -- 2.5 Gbps, 1 us -- h1; h0 sends `frames` x 1024 B at line rate (cc none, ECN
 * off), from time 0.  Data frames are 1086 B, 1106 B on the wire: h0 sends frame j (from 1) in
 * [(j - 1) x 88,480, j x 88,480] ps and it reaches s0 at A(j) = j x 88,480 + 1,000,000.  Frame 1 finds the
 * egress idle and leaves at once; s0 sends one frame per 1106 x 3,200 = 3,539,200 ps, so frame m >= 2 leaves
 * (and is released from the accounting) at D(m) = 1,088,480 + (m - 1) x 3,539,200: frame 2 at 4,627,680,
 * after every frame up to A(40) = 4,539,200 has arrived.
 */
#define SLOW_EGRESS(sw, frames)                                                                                   \
    "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"                    \
    " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}],"                          \
    " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"                      \
    "           {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"2.5Gbps\", \"delay\": \"1us\"}]},"                      \
    " \"host\": {\"cc\": \"none\"}, \"stop\": \"50ms\", \"switch\": {\"ecn\": {\"enabled\": false}" sw "},"       \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"" #frames "KiB\"}]}"

#define FRAME 1086
#define A(j) ((sim_time_t)(j) * 88480 + PS_PER_US)
#define D(m) (1088480 + (sim_time_t)((m) - 1) * 3539200)

/* One PFC frame as a switch sent it, with its ingress (port, priority 3) and the switch as they were then. */
struct pfc_ev {
    sim_time_t t;
    uint32_t node, port;
    bool pause;
    int64_t shared, hdrm, sw_shared, sw_buffered, data_sent;
    bool in_hdrm;
};

struct pfc_log {
    const struct run *r;
    int n;
    struct pfc_ev ev[64];
    int accounting_errors; /* instants at which the switch's totals were not the sums of its ports' counters */
};

/* Whether switch w's totals are the sums of its ingress counters (shared pool, headroom). */
static bool sums_hold(const struct sw *w)
{
    int64_t shared = 0, hdrm = 0;
    for (uint32_t i = 0; i < w->n_ports; i++)
        for (int prio = 0; prio < NPRIO; prio++) {
            shared += w->ports[i].ing_shared[prio];
            hdrm += port_pp(&w->ports[i], prio)->ing_hdrm;
        }
    return shared == w->shared_used && shared + hdrm == w->buffered;
}

static void on_pfc(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    struct pfc_log *l = ctx;
    const struct net *n = &l->r->net;
    const struct sw *w = n->node_sw[node];
    if (!w || prio != 3 || l->n == 64)
        return;
    const struct port *in = &w->ports[port];
    l->ev[l->n++] = (struct pfc_ev){t, node, port, pause, in->ing_shared[3], port_pp(in, 3)->ing_hdrm,
                                    w->shared_used, w->buffered, n->c.data_sent, (in->in_hdrm >> 3) & 1};
    l->accounting_errors += !sums_hold(w);
}

static const struct run_observer_ops log_ops = {.name = "pfc log", .on_pfc = on_pfc};

/*
 * Static XOFF 10,860 B (10 frames), xon_delta 3,258 B (3 frames).  After A(k), k >= 2, the ingress holds
 * (k - 1) frames: PAUSE at A(11) = 1,973,280 with exactly 10,860 B.  It reaches h0 at 1,973,280 + 84 x 80 +
 * 1 us = 2,980,000, during frame 34 (from 33 x 88,480 = 2,919,840), which h0 finishes: frames 12..34, 23 x
 * 1,086 = 24,978 B, go to the headroom (auto: 49 frames at 100 Gbps, 1 us).  Departures release headroom
 * first: after D(24) the headroom is empty and the shared count 10,860; RESUME when it is <= 10,860 - 3,258 =
 * 7,602, at the third departure after that, D(27) = 93,107,680.  The refresh would come 335.5 us / 2 after
 * the PAUSE, later than that, so one PAUSE and one RESUME.
 */
static void test_static_xoff_xon(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(SLOW_EGRESS(", \"pfc\": {\"xoff\": \"10860B\", \"xon_delta\": \"3258B\"}", 100),
                               NULL, NULL, &scn, &r));
    struct pfc_log l = {.r = &r};
    run_observe(&r, &log_ops, &l);
    struct port *in = test_port_to(&r, "s0", "h0");
    const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    CU_ASSERT_EQUAL(pfc_xoff_threshold(w, port_cfg(in)), 10860);
    sim_run(&r.sim, A(11) - 1);
    CU_ASSERT_EQUAL(l.n, 0);
    CU_ASSERT_EQUAL(in->ing_shared[3], 9 * FRAME);
    sim_run(&r.sim, 4500000); /* every frame h0 sent before the PAUSE has arrived, none has left but frame 1 */
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_TRUE(l.ev[0].pause);
    CU_ASSERT_EQUAL(l.ev[0].t, A(11));
    CU_ASSERT_EQUAL(l.ev[0].node, test_node(&r, "s0"));
    CU_ASSERT_EQUAL(l.ev[0].port, in->local);
    CU_ASSERT_EQUAL(l.ev[0].shared, 10 * FRAME);
    CU_ASSERT_EQUAL(l.ev[0].hdrm, 0);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 34);
    CU_ASSERT_EQUAL(in->ing_shared[3], 10 * FRAME);
    CU_ASSERT_EQUAL(port_pp(in, 3)->ing_hdrm, 23 * FRAME);
    CU_ASSERT_EQUAL(port_pp(in, 3)->hdrm_peak, 23 * FRAME);
    CU_ASSERT_EQUAL(w->shared_used, 10 * FRAME);
    CU_ASSERT_EQUAL(w->buffered, 33 * FRAME);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    sim_run(&r.sim, D(27) - 1);
    CU_ASSERT_EQUAL(l.n, 1);
    CU_ASSERT_EQUAL(port_pp(in, 3)->ing_hdrm, 0);
    CU_ASSERT_EQUAL(in->ing_shared[3], 8 * FRAME);
    sim_run(&r.sim, D(27));
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    CU_ASSERT_FALSE(l.ev[1].pause);
    CU_ASSERT_EQUAL(l.ev[1].t, D(27));
    CU_ASSERT_EQUAL(l.ev[1].shared, 7 * FRAME);
    CU_ASSERT_FALSE(l.ev[1].in_hdrm);
    CU_ASSERT_EQUAL(l.ev[1].data_sent, 34);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 1);
    CU_ASSERT_EQUAL(r.net.c.resume_frames, 1);
    CU_ASSERT_EQUAL(l.accounting_errors, 0);
    run_unobserve(&r, &l);
    test_teardown(&scn, &r);
}

/*
 * Dynamic XOFF, alpha 0.25, headroom 50,000 B on each of s0's two ports for the one lossless priority:
 * 100,000 B reserved, and a buffer of 143,440 B leaves 43,440 B shared.  xoff = 0.25 x (43,440 - S) for S
 * bytes in the shared pool; with one ingress S is its own count, so PAUSE when S >= 0.25 (43,440 - S), i.e.
 * S >= 43,440 / 5 = 8,688 = 8 frames: at A(9) (after frame 8 the threshold is 0.25 x 35,838 = 8,959 > 7,602).
 * A fixed threshold of alpha x the free buffer at the start (10,860) would pause two frames later.  It reaches
 * h0 at A(9) + 6,720 + 1 us = 2,803,040, during frame 32, so frames 10..32 go to the headroom; after D(24)
 * it is empty and S = 8,688; xon_delta 3,000 B: RESUME when S + 3,000 <= 0.25 (43,440 - S), which first holds
 * at S = 5,430 (8,430 <= 9,502; at 6,516: 9,516 > 9,231): the third departure after that, D(27) =
 * 93,107,680.
 */
#define DYNAMIC_SW ", \"buffer\": \"143440B\", \"pfc\": {\"xoff\": \"dynamic\", \"dynamic_alpha\": 0.25, " \
                   "\"headroom\": \"50000B\", \"xon_delta\": \"3000B\"}"

static void test_dynamic_xoff(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(SLOW_EGRESS(DYNAMIC_SW, 100), NULL, NULL, &scn, &r));
    struct pfc_log l = {.r = &r};
    run_observe(&r, &log_ops, &l);
    struct port *in = test_port_to(&r, "s0", "h0");
    const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    CU_ASSERT_EQUAL(w->hdrm_reserved, 100000);
    CU_ASSERT_EQUAL(pfc_xoff_threshold(w, port_cfg(in)), 10860);
    sim_run(&r.sim, A(9) - 1);
    CU_ASSERT_EQUAL(l.n, 0);
    CU_ASSERT_EQUAL(pfc_xoff_threshold(w, port_cfg(in)), 8959); /* 0.25 x (43,440 - 7 x 1,086) = 8,959.5 */
    sim_run(&r.sim, 4500000);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_TRUE(l.ev[0].pause);
    CU_ASSERT_EQUAL(l.ev[0].t, A(9));
    CU_ASSERT_EQUAL(l.ev[0].shared, 8 * FRAME);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 32);
    CU_ASSERT_EQUAL(port_pp(in, 3)->ing_hdrm, 23 * FRAME);
    sim_run(&r.sim, D(27) - 1);
    CU_ASSERT_EQUAL(l.n, 1);
    sim_run(&r.sim, D(27));
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    CU_ASSERT_FALSE(l.ev[1].pause);
    CU_ASSERT_EQUAL(l.ev[1].t, D(27));
    CU_ASSERT_EQUAL(l.ev[1].shared, 5 * FRAME);
    CU_ASSERT_EQUAL(l.accounting_errors, 0);
    run_unobserve(&r, &l);
    test_teardown(&scn, &r);
}

/*
 * A static xoff of 20 frames over a shared pool of 5: explicit headroom of 10,860 B on each of s0's two ports leaves
 * 27,150 - 21,720 = 5,430 B shared.  Frame 1 leaves at once; after A(6) the ingress holds frames 2..6, the whole
 * pool, below xoff, so nothing pauses and frames 7..40 (before the first departure, D(2) = A(41)) find no room:
 * dropped as `buffer`, not sent to the headroom.
 */
static void test_lossless_pool_full(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(SLOW_EGRESS(", \"buffer\": \"27150B\", \"pfc\": {\"xoff\": \"21720B\", "
                                           "\"headroom\": \"10860B\"}", 100),
                               NULL, NULL, &scn, &r));
    struct port *in = test_port_to(&r, "s0", "h0");
    const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    CU_ASSERT_EQUAL(w->hdrm_reserved, 21720);
    sim_run(&r.sim, D(2) - 1);
    CU_ASSERT_EQUAL(in->ing_shared[3], 5 * FRAME);
    CU_ASSERT_EQUAL(w->shared_used, 5 * FRAME);
    CU_ASSERT_EQUAL(port_pp(in, 3)->ing_hdrm, 0);
    CU_ASSERT_EQUAL(r.net.c.drop_buffer, 34);
    CU_ASSERT_EQUAL(r.net.c.drop_headroom, 0);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 0);
    test_teardown(&scn, &r);
}

/*
 * The static case above with 10,860 B of headroom instead of auto: of frames 12..34, which arrive after the
 * PAUSE, 12..21 fill the headroom exactly (10 x 1,086) and 22..34, 13 frames, are dropped as `headroom`.
 */
static void test_headroom_drop(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(
        SLOW_EGRESS(", \"pfc\": {\"xoff\": \"10860B\", \"xon_delta\": \"3258B\", \"headroom\": \"10860B\"}", 100), NULL,
        NULL, &scn, &r));
    struct port *in = test_port_to(&r, "s0", "h0");
    const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    sim_run(&r.sim, 4500000);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 1);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 34);
    CU_ASSERT_EQUAL(r.net.c.drop_headroom, 13);
    CU_ASSERT_EQUAL(r.net.c.drop_buffer, 0);
    CU_ASSERT_EQUAL(port_pp(in, 3)->ing_hdrm, 10 * FRAME);
    CU_ASSERT_EQUAL(port_pp(in, 3)->hdrm_peak, 10 * FRAME);
    CU_ASSERT_EQUAL(w->buffered, 20 * FRAME);
    test_teardown(&scn, &r);
}

/*
 * PFC off: every priority is lossy.  40 frames, all arrived by A(40) = 4,539,200, before frame 2 leaves at
 * 4,627,680: frames 2..11 (10,860 B) fit a queue limit of 10,860 B or a buffer of 10,860 B, and frames 12..40,
 * 29 of them, are tail-dropped as `buffer`.
 */
static void test_lossy_tail_drop(void)
{
    const char *cases[] = {
        SLOW_EGRESS(", \"pfc\": {\"enabled\": false}, \"lossy_queue_limit\": \"10860B\"", 40),
        SLOW_EGRESS(", \"pfc\": {\"enabled\": false}, \"buffer\": \"10860B\"", 40),
    };
    for (int i = 0; i < 2; i++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(cases[i], NULL, NULL, &scn, &r));
        struct port *in = test_port_to(&r, "s0", "h0"), *out = test_port_to(&r, "s0", "h1");
        const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
        CU_ASSERT_EQUAL(w->hdrm_reserved, 0);
        sim_run(&r.sim, 4600000);
        CU_ASSERT_EQUAL(r.net.c.data_sent, 40);
        CU_ASSERT_EQUAL(r.net.c.drop_buffer, 29);
        CU_ASSERT_EQUAL(r.net.c.drop_headroom, 0);
        CU_ASSERT_EQUAL(r.net.c.pause_frames, 0);
        CU_ASSERT_EQUAL(port_pp(out, 3)->q.bytes, 10 * FRAME);
        CU_ASSERT_EQUAL(in->ing_shared[3], 10 * FRAME);
        CU_ASSERT_EQUAL(w->shared_used, 10 * FRAME);
        CU_ASSERT_EQUAL(w->buffered, 10 * FRAME);
        test_teardown(&scn, &r);
    }
}

/*
 * A 2-to-1 incast on a star with a static XOFF low enough to pause both senders and use their headroom: at
 * every PFC frame the switch's totals are the sums of its ingress counters, and when the run is over every
 * counter is back to zero (frames leave the accounting at dequeue, headroom first).
 */
static void test_accounting_released(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"host\": {\"cc\": \"none\"}, \"stop\": \"50ms\", \"switch\": {\"pfc\": {\"xoff\": \"20KB\"}},"
        " \"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h1\", \"receiver\": \"h2\", \"size\": \"500KB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    struct pfc_log l = {.r = &r};
    run_observe(&r, &log_ops, &l);
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 2);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(l.n > 2);
    CU_ASSERT_EQUAL(l.accounting_errors, 0);
    const struct sw *w = &r.net.sws[0];
    CU_ASSERT_EQUAL(w->shared_used, 0);
    CU_ASSERT_EQUAL(w->buffered, 0);
    int64_t peak = 0;
    for (uint32_t i = 0; i < w->n_ports; i++) {
        const struct port *p = &w->ports[i];
        CU_ASSERT_EQUAL(p->in_hdrm, 0);
        CU_ASSERT_EQUAL(p->pause_sent, 0);
        CU_ASSERT_EQUAL(p->qmask, 0);
        for (int prio = 0; prio < NPRIO; prio++) {
            CU_ASSERT_EQUAL(p->ing_shared[prio], 0);
            CU_ASSERT_EQUAL(port_pp(p, prio)->ing_hdrm, 0);
            if (port_pp(p, prio)->hdrm_peak > peak)
                peak = port_pp(p, prio)->hdrm_peak;
        }
    }
    CU_ASSERT(peak > 0); /* the headroom was used, and released */
    run_unobserve(&r, &l);
    test_teardown(&scn, &r);
}

/*
 * RED with kmin 20,000 B, kmax 120,000 B, pmax 0.2: 0 at kmin, pmax / 2 = 0.1 halfway (70,000 B), 0.05 a
 * quarter of the way (45,000 B), pmax at kmax, 1 above.  The switch's stream is drawn from only strictly
 * between 0 and 1; only ECT data frames not yet marked are marked, and counted once.
 */
static void test_ecn_marking(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(SLOW_EGRESS("", 1), "switch.ecn",
                               "{\"kmin\": \"20KB\", \"kmax\": \"120KB\", \"pmax\": 0.2}", &scn, &r));
    const struct ecn_thresh *e = &r.net.pcfg[0].ecn;
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 0), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 20000), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 45000), 0.05, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 70000), 0.1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 120000), 0.2, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ecn_red_probability(e, 120001), 1.0, 0);

    struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    struct rng before = w->ecn_rng;
    CU_ASSERT_FALSE(ecn_red_draw(e, &w->ecn_rng, 20000));
    CU_ASSERT_TRUE(ecn_red_draw(e, &w->ecn_rng, 120001));
    CU_ASSERT_EQUAL(memcmp(&before, &w->ecn_rng, sizeof before), 0);
    ecn_red_draw(e, &w->ecn_rng, 70000);
    CU_ASSERT_NOT_EQUAL(memcmp(&before, &w->ecn_rng, sizeof before), 0);

    struct pkt *k = pkt_alloc(&r.net);
    k->type = PKT_DATA;
    k->prio = 3;
    k->ecn = 0; /* not ECN-capable: never marked */
    ecn_maybe_mark(&r.net, w, port_cfg(w->ports), w->ports, k, 1000000);
    CU_ASSERT_EQUAL(k->ecn, 0);
    k->ecn = ECN_ECT;
    ecn_maybe_mark(&r.net, w, port_cfg(w->ports), w->ports, k, 20000); /* at kmin */
    CU_ASSERT_EQUAL(k->ecn, ECN_ECT);
    ecn_maybe_mark(&r.net, w, port_cfg(w->ports), w->ports, k, 120001);
    CU_ASSERT_EQUAL(k->ecn, ECN_ECT | ECN_CE | ECN_HERE); /* ECN_HERE: marked at this switch, until it leaves */
    ecn_maybe_mark(&r.net, w, port_cfg(w->ports), w->ports, k, 120001); /* marked already: counted once */
    k->type = PKT_ACK;
    k->ecn = ECN_ECT;
    ecn_maybe_mark(&r.net, w, port_cfg(w->ports), w->ports, k, 120001);
    CU_ASSERT_EQUAL(k->ecn, ECN_ECT);
    CU_ASSERT_EQUAL(r.net.c.ecn_marked, 1);
    CU_ASSERT_EQUAL(r.net.c.prio[3].ecn_marked, 1);
    pkt_free(&r.net, k);
    test_teardown(&scn, &r);
}

/*
 * When a mark is decided (switch.ecn.mark_on), with 8 frames through the slow egress: frame 1 leaves at once, so
 * the queue behind it is empty when it leaves the queue, but frames 2-8 have arrived (by A(8) = 1,707,840 ps) when
 * its last bit leaves at D(2); frame m >= 2 has the same 8 - m frames behind it when it leaves the queue and when
 * it has been sent.  With kmin = kmax = 7,000 B (pmax 1) only a queue of 7 frames (7,602 B) marks: "sent" marks
 * frame 1 alone, "dequeue" and "enqueue" (6 frames ahead of the last) nothing.  Holding a frame at its port until
 * it is sent changes no arrival: the flow ends at the same instant.
 */
static void test_ecn_mark_when_sent(void)
{
    static const char *const when[] = {"dequeue", "enqueue", "sent"};
    static const uint64_t marks[] = {0, 0, 1};
    sim_time_t finish[3];
    for (int i = 0; i < 3; i++) {
        struct scenario scn;
        struct run r;
        char ecn[128];
        snprintf(ecn, sizeof ecn, "{\"kmin\": \"7000B\", \"kmax\": \"7000B\", \"pmax\": 1, \"mark_on\": \"%s\"}",
                 when[i]);
        CU_ASSERT_FATAL(test_setup(SLOW_EGRESS("", 8), "switch.ecn", ecn, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.flows_completed, 1);
        CU_ASSERT_EQUAL(r.net.c.ecn_marked, marks[i]);
        finish[i] = net_flow(&r.net, 0)->finish;
        test_teardown(&scn, &r);
    }
    /* frame 8 leaves at D(8), is sent by D(9) and reaches h1 the link's 1 us later */
    CU_ASSERT_EQUAL(finish[0], D(9) + PS_PER_US);
    CU_ASSERT_EQUAL(finish[1], finish[0]);
    CU_ASSERT_EQUAL(finish[2], finish[0]);
}

void test_switch_register(void)
{
    CU_pSuite s = CU_add_suite("switch", NULL, NULL);
    CU_add_test(s, "static xoff: PAUSE as the ingress reaches xoff, RESUME at xoff - xon_delta",
                test_static_xoff_xon);
    CU_add_test(s, "dynamic xoff: alpha x the free shared buffer, as it shrinks", test_dynamic_xoff);
    CU_add_test(s, "headroom admits what arrives after PAUSE, and drops beyond it", test_headroom_drop);
    CU_add_test(s, "a lossless frame below xoff that finds the shared pool full is dropped as buffer",
                test_lossless_pool_full);
    CU_add_test(s, "lossy priorities are tail-dropped at the queue limit and at the buffer", test_lossy_tail_drop);
    CU_add_test(s, "the buffer accounting adds up and is released at dequeue", test_accounting_released);
    CU_add_test(s, "RED probability at kmin, between, kmax and above; what is marked", test_ecn_marking);
    CU_add_test(s, "ECN decided when a frame leaves the queue, arrives or has been sent", test_ecn_mark_when_sent);
}
