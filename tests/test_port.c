/*
 * The port on its own (models/port.h): serialization of a frame with its wire overhead, the sub-picosecond
 * remainder carried between frames, control frames ahead of the data queues, a blocked priority passed over,
 * arrival at the peer after serialization + propagation, and a PAUSE's time.  Each test builds a small custom
 * network, drives a port directly (pfc_send, port_block) and steps the engine to instants worked out by hand.
 */
#include "tests/tests.h"
#include "models/pfc.h"
#include "models/port.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>

/*
 * h0 -- 100 Gbps -- s0 -- 25 Gbps -- h1, and s0 -- 11 Gbps -- h2, every link 1 us.  At 100 Gbps a byte takes
 * 80 ps and at 25 Gbps 320 ps; 11 Gbps does not divide 8e12, so its ports carry a remainder.  ECN is off and
 * the hosts send at line rate, so nothing but the frames each test asks for changes a timeline.
 */
#define PORT_NET(traffic)                                                                                          \
    "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"                    \
    " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"},"                           \
    " {\"name\": \"h2\", \"kind\": \"host\"}],"                                                                    \
    " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"                      \
    "           {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"25Gbps\", \"delay\": \"1us\"},"                         \
    "           {\"a\": \"s0\", \"b\": \"h2\", \"rate\": \"11Gbps\", \"delay\": \"1us\"}]},"                       \
    " \"host\": {\"cc\": \"none\"}, \"switch\": {\"ecn\": {\"enabled\": false}}, \"stop\": \"10ms\","             \
    " \"traffic\": [" traffic "]}"

/* A flow that starts after every instant the tests look at: the network stays idle for them. */
#define IDLE_TRAFFIC "{\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h0\", \"size\": \"1KB\", \"start\": \"5ms\"}"

#define DATA_WIRE 1106 /* MTU 1024 + 62 B of headers + 20 B of preamble and gap */
#define PAUSE_WIRE 84  /* 64 + 20 */

/* A PAUSE from h0 at time 0: 84 B at 80 ps/B is 6,720 ps on the wire, then 1 us of propagation. */
static void test_serialization_and_arrival(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(PORT_NET(IDLE_TRAFFIC), NULL, NULL, &scn, &r));
    struct port *h0 = test_port_to(&r, "h0", "s0"), *s0 = test_port_to(&r, "s0", "h0");
    CU_ASSERT_EQUAL(h0->ps_per_byte, 80); /* 8e12 / 100e9 */
    CU_ASSERT_EQUAL(r.sim.now, 0);
    pfc_send(h0, 3, 100);
    CU_ASSERT_EQUAL(h0->busy_until, PAUSE_WIRE * 80); /* 6,720 ps: the overhead is on the wire too */
    CU_ASSERT_EQUAL(h0->tx_frames, 1);
    CU_ASSERT_EQUAL(h0->tx_bytes, 64); /* tx_bytes counts the frame, not the preamble and gap */
    const sim_time_t arrive = PAUSE_WIRE * 80 + PS_PER_US; /* 1,006,720 ps */
    sim_run(&r.sim, arrive - 1);
    CU_ASSERT_EQUAL(s0->paused, 0);
    sim_run(&r.sim, arrive);
    CU_ASSERT_EQUAL(s0->paused, 1u << 3);
    test_teardown(&scn, &r);
}

/* With ethernet.wire_overhead 0 (a simulator that counts the frame alone), the same PAUSE takes its 64 bytes'
 * time: 5,120 ps, and arrives a delay later. */
static void test_no_wire_overhead(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(PORT_NET(IDLE_TRAFFIC), "ethernet.wire_overhead", "0", &scn, &r));
    struct port *h0 = test_port_to(&r, "h0", "s0"), *s0 = test_port_to(&r, "s0", "h0");
    pfc_send(h0, 3, 100);
    CU_ASSERT_EQUAL(h0->busy_until, 64 * 80);
    sim_run(&r.sim, 64 * 80 + PS_PER_US - 1);
    CU_ASSERT_EQUAL(s0->paused, 0);
    sim_run(&r.sim, 64 * 80 + PS_PER_US);
    CU_ASSERT_EQUAL(s0->paused, 1u << 3);
    test_teardown(&scn, &r);
}

/*
 * Eleven RESUME frames back to back out of s0 at 11 Gbps: 84 B take 84 x 8e12 / 11e9 = 61,090 10/11 ps.  The
 * first frame takes 61,090 ps and leaves 10/11 ps over; each later one takes 61,091 ps and leaves one
 * eleventh less (10/11 + 10/11 = 1 + 9/11, ...), so the eleventh ends at exactly 11 x 61,090 10/11 = 672,000
 * ps with nothing left over.  Dropping the remainder would end at 671,990 ps.
 */
static void test_remainder_carried(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(PORT_NET(IDLE_TRAFFIC), NULL, NULL, &scn, &r));
    struct port *p = test_port_to(&r, "s0", "h2");
    CU_ASSERT_EQUAL(p->ps_per_byte, 0);
    for (int i = 0; i < 11; i++)
        pfc_send(p, 3, 0);
    CU_ASSERT_EQUAL(p->busy_until, 61090);
    CU_ASSERT_EQUAL(p->tx_frames, 1);
    sim_run(&r.sim, 61090); /* the second frame starts as the first ends */
    CU_ASSERT_EQUAL(p->tx_frames, 2);
    CU_ASSERT_EQUAL(p->busy_until, 61090 + 61091);
    sim_run(&r.sim, 700000);
    CU_ASSERT_EQUAL(p->tx_frames, 11);
    CU_ASSERT_EQUAL(p->busy_until, 672000);
    CU_ASSERT_EQUAL(port_aux(p)->tx_rem, 0);
    CU_ASSERT_EQUAL(r.net.c.resume_frames, 11);
    test_teardown(&scn, &r);
}

/*
 * h0 sends 30 frames to h1: they reach s0 every 88,480 ps (frame j at j x 88,480 + 1 us) and leave towards h1
 * every 1106 x 320 = 353,920 ps, the first at 1,088,480.  At 2,000,000 frame 3 is on the wire (until
 * 1,796,320 + 353,920 = 2,150,240) and frames 4..11 wait.  A control frame queued then goes out next, at
 * 2,150,240, for 84 x 320 = 26,880 ps, while frames 12 and 13 (arrived at 2,061,760 and 2,150,240) have
 * joined the queue: 10 frames wait.  The data resumes after it.
 */
static void test_control_frame_goes_first(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(
        PORT_NET("{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"30720B\"}"), NULL, NULL,
        &scn, &r));
    struct port *out = test_port_to(&r, "s0", "h1");
    CU_ASSERT_EQUAL(out->ps_per_byte, 320);
    sim_run(&r.sim, 2000000);
    CU_ASSERT_EQUAL(out->tx_frames, 3);
    CU_ASSERT_EQUAL(out->busy_until, 2150240);
    CU_ASSERT_EQUAL(port_pp(out, 3)->q.n, 8);
    pfc_send(out, 3, 0);
    CU_ASSERT_EQUAL(out->tx_frames, 3); /* the frame on the wire is finished first */
    sim_run(&r.sim, 2150240);
    CU_ASSERT_EQUAL(out->tx_frames, 4);
    CU_ASSERT_EQUAL(out->tx_bytes, 3 * 1086 + 64);
    CU_ASSERT_EQUAL(out->busy_until, 2150240 + PAUSE_WIRE * 320);
    CU_ASSERT_EQUAL(port_pp(out, 3)->q.n, 10);
    CU_ASSERT_EQUAL(out->qmask & QMASK_CTRL, 0);
    sim_run(&r.sim, 2150240 + PAUSE_WIRE * 320);
    CU_ASSERT_EQUAL(out->tx_bytes, 4 * 1086 + 64);
    CU_ASSERT_EQUAL(out->busy_until, 2150240 + PAUSE_WIRE * 320 + DATA_WIRE * 320);
    test_teardown(&scn, &r);
}

/*
 * h0 sends flow A (10 frames, priority 4) then flow B (10 frames, priority 3): strict priority at h0 sends A
 * first, so A's frame j reaches s0 at j x 88,480 + 1 us and B's frame i at (10 + i) x 88,480 + 1 us.  s0 sends
 * A1 at 1,088,480 and A2 at 1,442,400 (353,920 ps each).  Priority 4 of s0's port to h1 is blocked at
 * 1,500,000: A2 finishes, A3..A10 stay queued, and B, the lower priority, goes as it arrives: B1 at
 * 1,973,280, then back to back (B arrives every 88,480 ps), B10 ending at 1,973,280 + 10 x 353,920 = 5,512,480.
 * Unblocked then, A3 goes at once.
 */
static void test_blocked_priority_passed_over(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(
        PORT_NET("{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10240B\", \"priority\": 4},"
                 "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10240B\", \"priority\": 3}"),
        NULL, NULL, &scn, &r));
    struct port *out = test_port_to(&r, "s0", "h1");
    const sim_time_t block = 1500000, b1 = 11 * 88480 + PS_PER_US, b10_end = b1 + 10 * DATA_WIRE * 320;
    sim_run(&r.sim, block);
    CU_ASSERT_EQUAL(out->tx_frames, 2);
    port_block(out, 4);
    CU_ASSERT_EQUAL(out->paused, 1u << 4);
    sim_run(&r.sim, b1 - 1);
    CU_ASSERT_EQUAL(out->tx_frames, 2); /* idle: only the blocked priority has frames */
    CU_ASSERT_EQUAL(port_pp(out, 4)->q.n, 8);
    sim_run(&r.sim, b1);
    CU_ASSERT_EQUAL(out->tx_frames, 3);
    CU_ASSERT_EQUAL(out->busy_until, b1 + DATA_WIRE * 320);
    sim_run(&r.sim, b10_end);
    CU_ASSERT_EQUAL(out->tx_frames, 12);
    CU_ASSERT_EQUAL(port_pp(out, 4)->q.n, 8);
    CU_ASSERT_EQUAL(out->qmask, 1u << 4);
    port_unblock(out, 4);
    CU_ASSERT_EQUAL(out->paused, 0);
    CU_ASSERT_EQUAL(out->tx_frames, 13);
    CU_ASSERT_EQUAL(out->busy_until, b10_end + DATA_WIRE * 320);
    CU_ASSERT_EQUAL(port_pp(out, 4)->q.n, 7);
    /* the blocked interval is accounted: 5,512,480 - 1,500,000 */
    CU_ASSERT_EQUAL(port_pp(out, 4)->paused_acc, b10_end - block);
    CU_ASSERT_EQUAL(r.net.paused_prio[4], b10_end - block);
    test_teardown(&scn, &r);
}

/*
 * A PAUSE of 100 quanta at 100 Gbps blocks for 100 x 512 bits / 100 Gbps = 512 ns; one of 65535 quanta is
 * lifted at once by a RESUME (quanta 0).  Both reach s0 1,006,720 ps after h0 sends them (as above).
 */
static void test_pause_time_and_resume(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(PORT_NET(IDLE_TRAFFIC), NULL, NULL, &scn, &r));
    struct port *h0 = test_port_to(&r, "h0", "s0"), *s0 = test_port_to(&r, "s0", "h0");
    const sim_time_t hop = PAUSE_WIRE * 80 + PS_PER_US;
    pfc_send(h0, 3, 100);
    sim_run(&r.sim, hop + 512000 - 1);
    CU_ASSERT_EQUAL(s0->paused, 1u << 3);
    sim_run(&r.sim, hop + 512000);
    CU_ASSERT_EQUAL(s0->paused, 0);
    CU_ASSERT_EQUAL(port_pp(s0, 3)->paused_acc, 512000);
    /* the longest pause, lifted by a RESUME sent 2 us after it */
    const sim_time_t t0 = 2 * PS_PER_US;
    sim_run(&r.sim, t0);
    pfc_send(h0, 5, 65535);
    sim_run(&r.sim, t0 + 2 * PS_PER_US);
    pfc_send(h0, 5, 0);
    sim_run(&r.sim, t0 + 2 * PS_PER_US + hop - 1);
    CU_ASSERT_EQUAL(s0->paused, 1u << 5);
    sim_run(&r.sim, t0 + 2 * PS_PER_US + hop);
    CU_ASSERT_EQUAL(s0->paused, 0);
    CU_ASSERT_EQUAL(port_pp(s0, 5)->paused_acc, 2 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 2);
    CU_ASSERT_EQUAL(r.net.c.resume_frames, 1);
    test_teardown(&scn, &r);
}

void test_port_register(void)
{
    CU_pSuite s = CU_add_suite("port", NULL, NULL);
    CU_add_test(s, "a frame takes (size + 20) x 8 / rate on the wire and arrives a delay later",
                test_serialization_and_arrival);
    CU_add_test(s, "with ethernet.wire_overhead 0 a frame takes its own bytes' time", test_no_wire_overhead);
    CU_add_test(s, "the sub-picosecond remainder is carried from frame to frame", test_remainder_carried);
    CU_add_test(s, "a control frame goes out before the queued data", test_control_frame_goes_first);
    CU_add_test(s, "a blocked priority is passed over and goes first once unblocked",
                test_blocked_priority_passed_over);
    CU_add_test(s, "a PAUSE blocks for quanta x 512 bit times; a RESUME lifts it", test_pause_time_and_resume);
}
