/*
 * The host NIC on its own (models/nic.h): round robin among the ready flows of a host, pacing at the flow's
 * rate (its cap, or its congestion control's after a CNP), an ACK every host.ack_every packets, one NACK per
 * gap and go-back-N from the lost PSN, the retransmission timeout, and the notification point's one CNP per
 * flow per cnp_interval.  Each test builds h0 -- s0 -- h1, steps the engine to instants worked out by hand and
 * reads the flows' sequence numbers and the ports' counters; a frame is lost on purpose by flushing the one
 * queue at s0 that holds it (switch_flush_queue), and a CNP is handed to the sender's NIC directly.
 */
#include "tests/tests.h"
#include "models/cc.h"
#include "models/dcqcn.h"
#include "models/nic.h"
#include "models/port.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * h0 -- 100 Gbps, 1 us -- s0 -- `rate`, 1 us -- h1, with host and switch settings added and the given traffic.
 * Data frames of 1024 B payload are 1086 B, 1106 B on the wire: 88,480 ps at 100 Gbps.  An ACK or NACK is
 * 66 B, 86 B on the wire: 6,880 ps at 100 Gbps.
 */
#define NIC_NET(rate, host, sw, traffic)                                                                           \
    "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"                    \
    " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}],"                          \
    " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"                      \
    "           {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"" rate "\", \"delay\": \"1us\"}]},"                     \
    " \"host\": {" host "}, \"switch\": {" sw "}, \"stop\": \"10ms\", \"traffic\": [" traffic "]}"

#define FLOW(size) "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"" size "\"}"
#define DATA_TX 88480 /* 1106 B at 100 Gbps */
#define LOSSY "\"ecn\": {\"enabled\": false}, \"pfc\": {\"enabled\": false}"

static struct host *host_of(struct run *r, const char *name) { return r->net.node_host[test_node(r, name)]; }

/* h0's flows A (3 KiB, 3 frames) and B (6 KiB, 6 frames) to h1 through s0, 100 Gbps, cc none, no ECN. */
static void two_flows(struct scenario *scn, struct run *r)
{
    CU_ASSERT_FATAL(test_setup(NIC_NET("100Gbps", "\"cc\": \"none\"", "\"ecn\": {\"enabled\": false}",
                                       FLOW("3KiB") ", " FLOW("6KiB")),
                               NULL, NULL, scn, r));
}

/*
 * Two flows of h0, A (3 frames) and B (6 frames), same priority, at line rate (cc none): h0's port sends one
 * data frame per 88,480 ps, the k-th (from 0) from k x 88,480, and the ready list takes them in turn, A B A B
 * A B, then B alone, back to back (B's pacing gap after a frame is that frame's own time on the wire).
 */
static void test_round_robin(void)
{
    struct scenario scn;
    struct run r;
    two_flows(&scn, &r);
    const struct flow *a = net_flow(&r.net, 0), *b = net_flow(&r.net, 1);
    const struct port *h0 = test_port_to(&r, "h0", "s0");
    const char order[] = "ABABABBBB";
    uint32_t na = 0, nb = 0;
    for (int k = 0; order[k]; k++) {
        sim_run(&r.sim, (sim_time_t)k * DATA_TX); /* the k-th frame has just gone on the wire */
        na += order[k] == 'A';
        nb += order[k] == 'B';
        CU_ASSERT_EQUAL(a->snd_nxt, na);
        CU_ASSERT_EQUAL(b->snd_nxt, nb);
        CU_ASSERT_EQUAL(h0->tx_frames, (uint64_t)k + 1);
        CU_ASSERT_EQUAL(h0->busy_until, (sim_time_t)(k + 1) * DATA_TX);
    }
    test_run_checked(&r);
    CU_ASSERT_EQUAL(r.net.flows_completed, 2);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 9);
    test_teardown(&scn, &r);
}

/*
 * Two flows of h0 posted to one queue pair at t = 0, A (3 frames) then B (6 frames), cc none, every link 100 Gbps:
 * B waits until A's last frame has gone to the wire, then follows it back to back, A A A B B B B B B, the k-th
 * frame (from 0) from k x 88,480 (where without the queue pair they take turns, test_round_robin).  Store and
 * forward at s0 on an equal link: a frame reaches h1 a frame time and 2 us after it left h0, so A's last (the
 * 3rd) at 4 x 88,480 + 2 us = 2,353,920 and B's (the 9th) at 10 x 88,480 + 2 us = 2,884,800, both its FCT
 * (posted at 0).
 */
static void test_queue_pair_in_order(void)
{
    struct scenario scn;
    struct run r;
    two_flows(&scn, &r);
    static struct nic_qp qp;
    struct flow *a = net_flow(&r.net, 0), *b = net_flow(&r.net, 1);
    a->qp = b->qp = &qp; /* before their start events run */
    const struct port *h0 = test_port_to(&r, "h0", "s0");
    for (uint32_t k = 0; k < 9; k++) {
        sim_run(&r.sim, (sim_time_t)k * DATA_TX);
        CU_ASSERT_EQUAL(a->snd_nxt, k < 3 ? k + 1 : 3);
        CU_ASSERT_EQUAL(b->snd_nxt, k < 3 ? 0 : k - 2);
        CU_ASSERT_EQUAL(b->started, k >= 2); /* B starts as A's last frame goes on the wire */
        CU_ASSERT_EQUAL(h0->busy_until, (sim_time_t)(k + 1) * DATA_TX);
    }
    test_run_checked(&r);
    CU_ASSERT_EQUAL(a->finish, 4 * DATA_TX + 2000000);
    CU_ASSERT_EQUAL(b->finish, 10 * DATA_TX + 2000000);
    CU_ASSERT_EQUAL(b->start, 0);
    CU_ASSERT_FALSE(qp.busy);
    CU_ASSERT_PTR_NULL(qp.head);
    test_teardown(&scn, &r);
}

/*
 * Pacing at the flow's rate.  A flow capped at 10 Gbps on a 100 Gbps link sends a frame every 1106 x 8 / 10e9 s
 * = 884,800 ps: the k-th (from 0) at k x 884,800, the port idle in between.
 */
static void test_pacing_rate_cap(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("100Gbps", "\"cc\": \"none\"", "\"ecn\": {\"enabled\": false}",
                                       "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"8KiB\","
                                       " \"rate\": \"10Gbps\"}"),
                               NULL, NULL, &scn, &r));
    const struct port *h0 = test_port_to(&r, "h0", "s0");
    for (int k = 1; k < 8; k++) {
        sim_run(&r.sim, (sim_time_t)k * 884800 - 1);
        CU_ASSERT_EQUAL(h0->tx_frames, (uint64_t)k);
        CU_ASSERT_EQUAL(h0->busy_until, (sim_time_t)(k - 1) * 884800 + DATA_TX);
        sim_run(&r.sim, (sim_time_t)k * 884800);
        CU_ASSERT_EQUAL(h0->tx_frames, (uint64_t)k + 1);
    }
    test_teardown(&scn, &r);
}

/*
 * Pacing at the congestion control's rate: a DCQCN flow starts at line rate (a frame every 88,480 ps).  A CNP
 * handed to h0 at 266,440, while frame 3 (from 0) is on the wire, cuts Rc by (1 - alpha / 2) with alpha_init
 * 1: to 50 Gbps.  The gap before frame 4 was set when frame 3 left (88,480, frame 4 at 353,920); from frame 4
 * on the gap is 1106 x 8 / 50e9 s = 176,960 ps: frame 5 at 530,880, frame 6 at 707,840.  No increase comes
 * before the 55 us rate-increase timer; ECN is off, so no other CNP.
 */
static void test_pacing_after_cnp(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("100Gbps", "\"cc\": \"dcqcn\"", "\"ecn\": {\"enabled\": false}",
                                       FLOW("20KiB")),
                               NULL, NULL, &scn, &r));
    const struct port *h0 = test_port_to(&r, "h0", "s0");
    struct flow *f = net_flow(&r.net, 0);
    const sim_time_t cnp_at = 3 * DATA_TX + 1000;
    sim_run(&r.sim, cnp_at);
    CU_ASSERT_EQUAL(h0->tx_frames, 4);
    struct pkt *k = pkt_alloc(&r.net);
    k->type = PKT_CNP;
    k->flow = f->idx;
    k->psn = 0;
    k->size = FRAME_CNP;
    k->prio = (uint8_t)nic_params_of(&scn.host)->cnp_priority;
    nic_process(&r.net, host_of(&r, "h0"), k);
    CU_ASSERT_EQUAL(f->cnps_rx, 1);
    CU_ASSERT_DOUBLE_EQUAL(cc_rate(f), 50e9, 0);
    sim_run(&r.sim, 4 * DATA_TX - 1);
    CU_ASSERT_EQUAL(h0->tx_frames, 4);
    sim_run(&r.sim, 4 * DATA_TX);
    CU_ASSERT_EQUAL(h0->tx_frames, 5);
    for (int j = 1; j <= 2; j++) {
        const sim_time_t t = 4 * DATA_TX + j * 176960;
        sim_run(&r.sim, t - 1);
        CU_ASSERT_EQUAL(h0->tx_frames, (uint64_t)(5 + j - 1));
        sim_run(&r.sim, t);
        CU_ASSERT_EQUAL(h0->tx_frames, (uint64_t)(5 + j));
    }
    test_teardown(&scn, &r);
}

/*
 * ack_every 4, 10 packets, all links 100 Gbps: the receiver acknowledges at packets 4 and 8 and at the last
 * one, ceil(10 / 4) = 3 ACKs, which are all h1 sends (cc none: no CNP).  Frame j (from 1) leaves h0 at j x
 * 88,480, reaches s0 1 us later and goes on at once (the egress frees as it arrives), so it reaches h1 at
 * (j + 1) x 88,480 + 2 us: the ACKs leave at 2,442,400 (j = 4), 2,796,320 (j = 8) and 2,973,280 (j = 10).
 */
static void test_ack_every(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("100Gbps", "\"cc\": \"none\", \"ack_every\": 4", "\"ecn\": {\"enabled\": false}",
                                       FLOW("10KiB")),
                               NULL, NULL, &scn, &r));
    const struct port *h1 = test_port_to(&r, "h1", "s0");
    const struct flow *f = net_flow(&r.net, 0);
    const int at[] = {4, 8, 10};
    for (int i = 0; i < 3; i++) {
        const sim_time_t t = (sim_time_t)(at[i] + 1) * DATA_TX + 2 * PS_PER_US;
        sim_run(&r.sim, t - 1);
        CU_ASSERT_EQUAL(h1->tx_frames, (uint64_t)i);
        CU_ASSERT_EQUAL(f->rcv_nxt, (uint32_t)at[i] - 1);
        sim_run(&r.sim, t);
        CU_ASSERT_EQUAL(h1->tx_frames, (uint64_t)i + 1);
        CU_ASSERT_EQUAL(f->since_ack, 0);
    }
    test_run_checked(&r);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(h1->tx_frames, 3);
    CU_ASSERT_EQUAL(h1->tx_bytes, 3 * FRAME_ACK);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
    test_teardown(&scn, &r);
}

/*
 * Loss on h0 -- 100 Gbps -- s0 -- 40 Gbps -- h1, lossy, 1 us links, cc none, 10 frames (PSN 0..9).  At 40 Gbps a
 * data frame takes 1106 x 200 = 221,200 ps; an ACK or NACK 86 x 200 = 17,200 ps (6,880 at 100 Gbps).  PSN p
 * leaves h0 in [p x 88,480, (p + 1) x 88,480] and reaches s0 at (p + 1) x 88,480 + 1 us.  PSN 0 goes on at
 * once (until 1,309,680); PSN 1 (at 1,176,960) waits alone until PSN 2 comes at 1,265,440: flushing s0's
 * queue at 1,200,000 loses exactly PSN 1.
 */
#define LOSS_AT 1200000

/* Drops what waits at priority 3 of s0's egress to h1 after checking that it is exactly PSN psn of flow 0. */
static void drop_queued(struct run *r, uint32_t psn)
{
    struct port *out = test_port_to(r, "s0", "h1");
    CU_ASSERT_EQUAL_FATAL(port_pp(out, 3)->q.n, 1);
    CU_ASSERT_EQUAL(port_pp(out, 3)->q.head->psn, psn);
    switch_flush_queue(&r->net, r->net.node_sw[test_node(r, "s0")], out, 3, DROP_BUFFER);
}

/*
 * One NACK per gap, go-back-N.  PSN 0 reaches h1 at 1,309,680 + 1 us = 2,309,680 (ACK 1, back at h0 at
 * 2,309,680 + 17,200 + 1 us + 6,880 + 1 us = 4,333,760).  PSN 2, the first after the gap, leaves s0 at
 * 1,309,680 and reaches h1 at 2,530,880: NACK 1, at h0 at 4,554,960; PSN 3..9 come next and are discarded
 * without another NACK.  h0 sent all 10 by 884,800, so the NACK sends it back to PSN 1: 9 retransmissions,
 * leaving h0 from 4,554,960 every 88,480 ps.
 * A second gap: retransmitted PSN 1 reaches s0 at 5,643,440 and goes on at once (until 5,864,640); PSN 2
 * waits alone from 5,731,920 until PSN 3 comes at 5,820,400: flushed at 5,800,000.  PSN 1 reaches h1 at
 * 6,864,640 (ACK 2, at h0 at 8,888,720) and PSN 3, leaving s0 at 5,864,640, at 7,085,840: NACK 2, the second,
 * at h0 at 9,109,920, which goes back from PSN 10 to PSN 2: 8 more retransmissions, 17 in all.  They leave
 * s0 back to back from 10,198,400 (221,200 ps each), so PSN 9 reaches h1 at 10,198,400 + 8 x 221,200 + 1 us
 * = 12,968,000.  h1 sent 1 + 1 + 8 ACKs and 2 NACKs.
 */
static void test_nack_go_back_n(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("40Gbps", "\"cc\": \"none\"", LOSSY, FLOW("10KiB")), NULL, NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    const struct port *h0 = test_port_to(&r, "h0", "s0"), *h1 = test_port_to(&r, "h1", "s0");
    sim_run(&r.sim, LOSS_AT);
    drop_queued(&r, 1);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 1);
    sim_run(&r.sim, 4554960 - 1);
    CU_ASSERT_EQUAL(r.net.c.nacks_sent, 1);
    CU_ASSERT_EQUAL(f->snd_una, 1);
    CU_ASSERT_EQUAL(f->snd_nxt, 10);
    CU_ASSERT_EQUAL(f->rcv_nxt, 1);
    CU_ASSERT_EQUAL(h0->tx_frames, 10);
    sim_run(&r.sim, 4554960);
    CU_ASSERT_EQUAL(f->snd_nxt, 2); /* PSN 1 is on the wire again */
    CU_ASSERT_EQUAL(h0->tx_frames, 11);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 1);
    sim_run(&r.sim, 5800000);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 9);
    drop_queued(&r, 2);
    sim_run(&r.sim, 9109920 - 1);
    CU_ASSERT_EQUAL(r.net.c.nacks_sent, 2);
    CU_ASSERT_EQUAL(f->snd_una, 2);
    CU_ASSERT_EQUAL(f->snd_nxt, 10);
    sim_run(&r.sim, 9109920);
    CU_ASSERT_EQUAL(f->snd_nxt, 3);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 10);
    test_run_checked(&r);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(f->finish, 12968000);
    CU_ASSERT_EQUAL(r.net.c.nacks_sent, 2);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 17);
    CU_ASSERT_EQUAL(f->retx_bytes, 17 * 1024);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 27);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 2);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 0);
    CU_ASSERT_EQUAL(h1->tx_frames, 12);
    test_teardown(&scn, &r);
}

/*
 * The timeout: the same network, a flow of 2 frames, rto 100 us, and the last frame (PSN 1) lost at 1,200,000
 * as above, so no later frame makes a NACK.  ACK 1 reaches h0 at 4,333,760 and re-arms the timer: it fires
 * 100 us later, at 104,333,760, and resends PSN 1 (snd_nxt back to snd_una).  That reaches s0 at + 88,480 +
 * 1 us and h1 at + 221,200 + 1 us: the flow completes at 106,643,440, and its ACK reaches h0 at + 17,200 +
 * 1 us + 6,880 + 1 us = 108,667,520, when the run ends.
 */
static void test_rto(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("40Gbps", "\"cc\": \"none\", \"rto\": \"100us\"", LOSSY, FLOW("2KiB")), NULL,
                               NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    const struct port *h0 = test_port_to(&r, "h0", "s0");
    const sim_time_t fire = 4333760 + 100 * PS_PER_US;
    sim_run(&r.sim, LOSS_AT);
    drop_queued(&r, 1);
    sim_run(&r.sim, fire - 1);
    CU_ASSERT_EQUAL(f->snd_una, 1);
    CU_ASSERT_EQUAL(f->timeouts, 0);
    CU_ASSERT_EQUAL(h0->tx_frames, 2);
    CU_ASSERT_TRUE(f->rto_timer.armed);
    sim_run(&r.sim, fire);
    CU_ASSERT_EQUAL(f->timeouts, 1);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 1);
    CU_ASSERT_EQUAL(h0->tx_frames, 3);
    CU_ASSERT_EQUAL(f->snd_nxt, 2);
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(f->finish, 106643440);
    CU_ASSERT_EQUAL(r.sim.now, 108667520);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 1);
    CU_ASSERT_EQUAL(r.net.c.spurious_timeouts, 0); /* PSN 1 was lost */
    CU_ASSERT_EQUAL(r.net.c.data_retx, 1);
    CU_ASSERT_EQUAL(r.net.c.nacks_sent, 0);
    test_teardown(&scn, &r);
}

/*
 * The notification point (DCQCN): h0 -- 100 Gbps -- s0 -- 2.5 Gbps -- h1, 40 frames, lossy.  They reach s0
 * every 88,480 ps from 1,088,480 (all by 4,539,200) and leave it every 1106 x 3,200 = 3,539,200 ps: frame m
 * (from 1) reaches h1 at R(m) = 1,088,480 + m x 3,539,200 + 1 us.  Marking at enqueue above 1,001 B (kmin
 * 1,000 B, pmax 1) marks frames 3..40: frames 1 and 2 find no frame queued.  h0 has sent all 40 before any
 * CNP comes back, so its rate cuts change no arrival.  cnp_interval is three arrivals, 10,617,600 ps: a CNP at
 * R(3), none at R(4) and R(5), one at R(6) (exactly the interval later), ... R(39): 13 CNPs.  h1 sends 40 ACKs
 * and the 13 CNPs.
 */
#define R(m) (1088480 + (sim_time_t)(m) * 3539200 + PS_PER_US)

static void test_cnp_interval(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(
        NIC_NET("2.5Gbps", "\"cc\": \"dcqcn\", \"dcqcn\": {\"cnp_interval\": \"10617600ps\"}",
                "\"pfc\": {\"enabled\": false}, \"ecn\": {\"kmin\": \"1000B\", \"kmax\": \"1001B\", \"pmax\": 1,"
                " \"mark_on\": \"enqueue\"}",
                FLOW("40KiB")),
        NULL, NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    const struct port *h1 = test_port_to(&r, "h1", "s0");
    sim_run(&r.sim, R(3) - 1);
    CU_ASSERT_EQUAL(f->rcv_nxt, 2); /* frames 1 and 2, not marked */
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 0);
    CU_ASSERT_EQUAL(r.net.c.ecn_marked, 38);
    sim_run(&r.sim, R(3));
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 1);
    CU_ASSERT_EQUAL(f->last_cnp, R(3));
    /* ACKs 1 and 2, then the CNP, at priority 6 ahead of the ACK of frame 3 (priority 3) queued with it */
    CU_ASSERT_EQUAL(h1->tx_frames, 3);
    CU_ASSERT_EQUAL(h1->tx_bytes, 2 * FRAME_ACK + FRAME_CNP);
    sim_run(&r.sim, R(6) - 1);
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 1);
    sim_run(&r.sim, R(6));
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 2);
    CU_ASSERT_EQUAL(f->last_cnp, R(6));
    test_run_checked(&r);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(f->finish, R(40));
    CU_ASSERT_EQUAL(r.net.c.cnp_sent, 13);
    CU_ASSERT_EQUAL(f->last_cnp, R(39));
    CU_ASSERT_EQUAL(r.net.c.cnp_received, 13);
    CU_ASSERT_EQUAL(f->cnps_rx, 13);
    CU_ASSERT_EQUAL(h1->tx_frames, 40 + 13);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
    test_teardown(&scn, &r);
}

/* Hands a CNP of flow f to its sender's NIC, as if it had just arrived. */
static void give_cnp(struct run *r, const struct scenario *scn, struct flow *f)
{
    struct pkt *k = pkt_alloc(&r->net);
    k->type = PKT_CNP;
    k->flow = f->idx;
    k->psn = 0;
    k->size = FRAME_CNP;
    k->prio = (uint8_t)nic_params_of(&scn->host)->cnp_priority;
    nic_process(&r->net, host_of(r, "h0"), k);
}

/*
 * rate_reduce_monitor_period 4 us through the NIC and the flow's timer: CNPs at 10, 11 and 12 us.  The first
 * cuts (alpha 1: 100 -> 50 Gbps); the other two wait for the period's end, 14 us, and cut once then (alpha
 * still 1: 25 Gbps), which restarts the 55 us increase timer.
 */
static void test_monitor_period_cuts_once(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("100Gbps", "\"cc\": \"dcqcn\", \"dcqcn\": {\"rate_reduce_monitor_period\": \"4us\"}",
                                       "\"ecn\": {\"enabled\": false}", FLOW("1MiB")),
                               NULL, NULL, &scn, &r));
    struct flow *f = net_flow(&r.net, 0);
    const struct dcqcn *d = CC_STATE(f, const struct dcqcn);
    for (int us = 10; us <= 12; us++) {
        sim_run(&r.sim, us * PS_PER_US);
        give_cnp(&r, &scn, f);
    }
    CU_ASSERT_EQUAL(f->cnps_rx, 3);
    CU_ASSERT_EQUAL(d->cnps, 1);
    CU_ASSERT_DOUBLE_EQUAL(cc_rate(f), 50e9, 0);
    CU_ASSERT_EQUAL(f->cc_timer.at, 14 * PS_PER_US);
    sim_run(&r.sim, 14 * PS_PER_US - 1);
    CU_ASSERT_EQUAL(d->cnps, 1);
    sim_run(&r.sim, 14 * PS_PER_US);
    CU_ASSERT_EQUAL(d->cnps, 2);
    CU_ASSERT_FALSE(d->cut_pending);
    CU_ASSERT_DOUBLE_EQUAL(cc_rate(f), 25e9, 1e-3);
    CU_ASSERT_EQUAL(f->cc_timer.at, 69 * PS_PER_US);
    test_teardown(&scn, &r);
}

/* qp_timeout 14 is 4.096 us x 2^14 = 67.108864 ms; rto and qp_timeout together, or retry_count without
 * qp_timeout, are refused with the path. */
static void test_qp_timeout(void)
{
    struct scenario scn;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", NIC_NET("100Gbps", "\"qp_timeout\": 14", "", FLOW("1KiB")), NULL, 0,
                                        &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(transport_params_of(&scn.host)->rto_ps, 67108864LL * PS_PER_NS);
    CU_ASSERT_EQUAL(transport_params_of(&scn.host)->retry_count, 7);
    char *j = scn_to_json(&scn);
    CU_ASSERT_PTR_NOT_NULL(j && strstr(j, "\"qp_timeout\": 14") && !strstr(j, "\"rto\""));
    free(j);
    scn_free(&scn);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", NIC_NET("100Gbps", "", "", FLOW("1KiB")), NULL, 0, &scn, err,
                                        sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(transport_params_of(&scn.host)->rto_ps, PS_PER_MS);
    CU_ASSERT_EQUAL(transport_params_of(&scn.host)->qp_timeout, -1);
    scn_free(&scn);
    CU_ASSERT_EQUAL(scn_load_text("t.json", NIC_NET("100Gbps", "\"rto\": \"1ms\", \"qp_timeout\": 14", "", FLOW("1KiB")),
                                  NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: host.qp_timeout: expected either rto or qp_timeout, got both (qp_timeout sets "
                                "the retransmission timeout to 4.096 us x 2^qp_timeout)");
    CU_ASSERT_EQUAL(scn_load_text("t.json", NIC_NET("100Gbps", "\"retry_count\": 3", "", FLOW("1KiB")), NULL, 0, &scn,
                                  err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: host.retry_count: expected qp_timeout with retry_count"));
    CU_ASSERT_EQUAL(scn_load_text("t.json", NIC_NET("100Gbps", "\"qp_timeout\": 0", "", FLOW("1KiB")), NULL, 0, &scn,
                                  err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: host.qp_timeout: expected an integer from 1 to 31, got 0");
}

/*
 * A spurious timeout: rto 3 us, shorter than the round trip, one frame, nothing lost.  The frame leaves h0 at
 * 0 and the timer fires at 3 us, before its ACK comes back at 4,333,760: the frame is resent although it was
 * delivered.  In test_rto, where the frame was lost, the timeout is not spurious.
 */
static void test_spurious_timeout(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(NIC_NET("40Gbps", "\"cc\": \"none\", \"rto\": \"3us\"", LOSSY, FLOW("1KiB")), NULL,
                               NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    sim_run(&r.sim, 3 * PS_PER_US - 1);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 0);
    sim_run(&r.sim, 3 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 1);
    CU_ASSERT_EQUAL(r.net.c.spurious_timeouts, 1);
    test_run_checked(&r);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 1);
    CU_ASSERT_EQUAL(r.net.c.spurious_timeouts, 1);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 1);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    test_teardown(&scn, &r);
}

/*
 * Retries run out: the link to h1 is down for good, qp_timeout 1 (8.192 us), retry_count 2.  Every frame is
 * lost; the timeouts at 8.192 and 16.384 us resend, the third, at 24.576 us, makes the flow fail, and with
 * nothing left the run ends there.  None was spurious.  summary.json counts the failure.
 */
static void test_retry_count_fails_flow(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup("{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"
                               " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}],"
                               " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"
                               " {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}]},"
                               " \"host\": {\"cc\": \"none\", \"qp_timeout\": 1, \"retry_count\": 2}, \"stop\": \"10ms\","
                               " \"traffic\": [" FLOW("1KiB") "],"
                               " \"faults\": [{\"type\": \"link_down\", \"between\": [\"s0\", \"h1\"], \"at\": \"0us\"}]}",
                               NULL, NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    test_run_checked(&r);
    CU_ASSERT_TRUE(f->failed);
    CU_ASSERT_TRUE(f->sender_done);
    CU_ASSERT_EQUAL(f->finish, -1);
    CU_ASSERT_EQUAL(r.net.c.flows_failed, 1);
    CU_ASSERT_EQUAL(r.net.c.timeouts, 3);
    CU_ASSERT_EQUAL(r.net.c.spurious_timeouts, 0);
    CU_ASSERT_EQUAL(r.net.c.data_sent, 3);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 3);
    CU_ASSERT_EQUAL(r.sim.now, 3 * 8192 * PS_PER_NS);
    char *js = run_summary_json(&r, false);
    CU_ASSERT_PTR_NOT_NULL(js && strstr(js, "\"failed\":\t1"));
    free(js);
    test_teardown(&scn, &r);
}

/* Whether a queue of port p at priority q holds an ACK. */
static bool acks_queued(const struct port *p, int q)
{
    for (const struct pkt *k = port_pp((struct port *)p, q)->q.head; k; k = k->next)
        if (k->type == PKT_ACK)
            return true;
    return false;
}

/*
 * ack_priority: flows both ways at line rate (cc none), so that ACKs meet data at h1's port and at s0's port
 * to h0.  Sampled every 10 ns: with ack_priority 5 ACKs wait in priority 5 queues and never in priority 3;
 * with the default they wait in priority 3, the data's.
 */
static void test_ack_priority(void)
{
    const char *hosts[] = {"\"cc\": \"none\", \"ack_priority\": 5", "\"cc\": \"none\""};
    for (int c = 0; c < 2; c++) {
        struct scenario scn;
        struct run r;
        char json[2048];
        snprintf(json, sizeof json, NIC_NET("100Gbps", "%s", "\"ecn\": {\"enabled\": false}",
                                            FLOW("64KiB") ", {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h0\", "
                                            "\"size\": \"64KiB\"}"), hosts[c]);
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        const struct port *ports[] = {test_port_to(&r, "h1", "s0"), test_port_to(&r, "s0", "h0"),
                                      test_port_to(&r, "h0", "s0"), test_port_to(&r, "s0", "h1")};
        int seen[NPRIO] = {0};
        for (sim_time_t t = 0; t < 20 * PS_PER_US; t += 10000) {
            sim_run(&r.sim, t);
            for (int i = 0; i < 4; i++)
                for (int q = 0; q < NPRIO; q++)
                    seen[q] += acks_queued(ports[i], q);
        }
        if (c == 0) {
            CU_ASSERT(seen[5] > 0);
            CU_ASSERT_EQUAL(seen[3], 0);
        } else {
            CU_ASSERT(seen[3] > 0);
            CU_ASSERT_EQUAL(seen[5], 0);
        }
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.flows_completed, 2);
        test_teardown(&scn, &r);
    }
}

/*
 * The transport timeout in a 4:1 oversubscribed leaf-spine (4 hosts of 100 Gbps per leaf, one 100 Gbps spine
 * link), two incasts across the spine, DCQCN as ConnectX runs it: nothing is dropped, yet the 1 ms default
 * timeout fires (spurious timeouts); the QP timeout perftest uses, 14 (67 ms), fires none.  Here the
 * timeouts resend nothing: they fire on the flow that DCQCN cut to its 1 Mbps minimum, whose next frame is
 * paced 8.8 ms out, by when everything it had sent is acknowledged; so the two runs end alike.
 */
#define OVERSUB                                                                                                    \
    "{\"stop\": \"100ms\", \"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 1, \"hosts_per_leaf\": 4,"  \
    " \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"  \
    " \"host\": {\"dcqcn\": {\"preset\": \"connectx\"}}, \"traffic\": ["                                             \
    " {\"type\": \"incast\", \"senders\": \"h4-h7\", \"receiver\": \"h0\", \"size\": \"2MB\"},"                      \
    " {\"type\": \"incast\", \"senders\": \"h4-h7\", \"receiver\": \"h1\", \"size\": \"2MB\"}]}"

static void test_oversubscribed_timeouts(void)
{
    const char *qp[] = {NULL, "14"};
    for (int c = 0; c < 2; c++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(OVERSUB, c ? "host.qp_timeout" : NULL, qp[c], &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.flows_completed, 8);
        CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
        if (c == 0) {
            CU_ASSERT(r.net.c.spurious_timeouts > 0);
            CU_ASSERT_EQUAL(r.net.c.spurious_timeouts, r.net.c.timeouts);
            CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
        } else {
            CU_ASSERT_EQUAL(r.net.c.timeouts, 0);
            CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
        }
        test_teardown(&scn, &r);
    }
}

/*
 * The two completions of one flow, on a dumbbell h0 -- 100 Gbps, 1 us -- s0 -- 40 Gbps, 3 us -- s1 -- 100 Gbps,
 * 1 us -- h1, cc none, 100 KB: 97 frames of 1024 B (1106 B on the wire: 88,480 ps at 100 Gbps, 221,200 at 40)
 * and one of 672 B (754 B: 60,320 ps at 100 Gbps, 150,800 at 40).  They leave h0 back to back; s0's 40 Gbps
 * egress sends them back to back from 88,480 + 1 us = 1,088,480 and ends the last at 1,088,480 + 97 x 221,200
 * + 150,800 = 22,695,680; the last reaches h1 at + 3 us + 60,320 + 1 us = 26,756,000 (finish, the receiver's
 * FCT).  Its ACK (86 B on the wire) goes straight back on idle ports: 6,880 + 1 us, 17,200 + 3 us, 6,880 + 1 us
 * = 5,030,960, so the sender has it at 31,786,960 (acked, the FCT the HPCC paper's simulator reports).
 * The ideals: the first frame across (88,480 + 1 us + 221,200 + 3 us + 88,480 + 1 us = 5,398,160) and the
 * other 106,930 wire bytes at 40 Gbps (21,386,000): 26,784,160; with the ACK's way back, 31,815,120.
 */
static void test_fct_to_last_ack(void)
{
    static const char json[] =
        "{\"topology\": {\"type\": \"dumbbell\", \"left\": 1, \"right\": 1,"
        " \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"},"
        " \"bottleneck\": {\"rate\": \"40Gbps\", \"delay\": \"3us\"}},"
        " \"host\": {\"cc\": \"none\"}, \"switch\": {\"ecn\": {\"enabled\": false}}, \"stop\": \"1ms\","
        " \"traffic\": [{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"100KB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_EQUAL(f->ideal_fct, 26784160);
    CU_ASSERT_EQUAL(f->ideal_fct_ack, 31815120);
    sim_run(&r.sim, 31786960 - 1);
    CU_ASSERT_EQUAL(f->finish, 26756000);
    CU_ASSERT_EQUAL(f->acked, -1);
    CU_ASSERT_FALSE(f->sender_done);
    test_run_checked(&r);
    CU_ASSERT_EQUAL(f->finish, 26756000);
    CU_ASSERT_EQUAL(f->acked, 31786960);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 0);
    char *csv = run_flows_csv(&r);
    CU_ASSERT_STRING_EQUAL(csv, RUN_FLOWS_HEADER "\n"
                                "f,h0,h1,3,100000,0,26756,26756,26784.16,0.9989,0,0,0,31786.96,31786.96,31815.12,0.9991\n");
    free(csv);
    test_teardown(&scn, &r);
}

void test_nic_register(void)
{
    CU_pSuite s = CU_add_suite("nic", NULL, NULL);
    CU_add_test(s, "the ready flows of a host take turns", test_round_robin);
    CU_add_test(s, "flows of one queue pair go to the wire in order, back to back", test_queue_pair_in_order);
    CU_add_test(s, "a capped flow sends a frame every (size + 20) x 8 / cap", test_pacing_rate_cap);
    CU_add_test(s, "after a CNP the flow paces at DCQCN's cut rate", test_pacing_after_cnp);
    CU_add_test(s, "the receiver acknowledges every ack_every packets and the last", test_ack_every);
    CU_add_test(s, "one NACK per gap; the sender goes back to the lost PSN", test_nack_go_back_n);
    CU_add_test(s, "the last frame lost: the timeout fires rto after the last ACK and resends it", test_rto);
    CU_add_test(s, "the receiver sends at most one CNP per flow per cnp_interval", test_cnp_interval);
    CU_add_test(s, "rate_reduce_monitor_period: CNPs within the period cut once, at its end",
                test_monitor_period_cuts_once);
    CU_add_test(s, "qp_timeout: 4.096 us x 2^t; with rto it is an error", test_qp_timeout);
    CU_add_test(s, "a timeout with nothing lost counts as spurious", test_spurious_timeout);
    CU_add_test(s, "retry_count timeouts in a row: the flow fails", test_retry_count_fails_flow);
    CU_add_test(s, "ack_priority: ACKs queue at that priority", test_ack_priority);
    CU_add_test(s, "4:1 oversubscribed: 1 ms rto fires spuriously, qp_timeout 14 does not",
                test_oversubscribed_timeouts);
    CU_add_test(s, "a flow's FCT to its last byte and to its last ACK on a dumbbell, to the picosecond",
                test_fct_to_last_ack);
}
