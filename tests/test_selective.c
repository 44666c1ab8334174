/*
 * Selective repeat (host.loss_recovery "selective", models/transport_sr.c, IRN's loss recovery).  What is checked
 * against what:
 * - (random loss, loss_rate 1e-3 on every link: resent within 10 % of lost, go-back-N several times more: a
 *   validation row, tests/validation/validation.c, "selective repeat and load balancing");
 * - the BDP cap: a flow allowed W packets unacknowledged on a path of round trip R runs at W x frame / R (the
 *   window's throughput, exact up to the first frame's fill);
 * - the two timeouts: a flow whose only packet is lost is resent after rto_low (100 us), one with many packets
 *   unacknowledged waits rto_high;
 * - a bdp_cap out of its bounds exits 2 naming the path.
 */
#include "tests/tests.h"
#include "models/transport.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One 2 MB flow from h0 to h1 through one switch, 100 Gbps links of 10 us each way: with bdp_cap 16 the sender has
 * at most 16 packets unacknowledged, so it sends 16 per round trip R: a full frame's serialization at both hops
 * out, an ACK's at both hops back, and four delays of 10 us.  Goodput = 16 x 1024 payload bytes / R, within 1 %
 * (the FCT's ends, the first window and the last packet's one-way trip, do not follow the rule exactly).
 */
static void test_bdp_cap(void)
{
    static const char *json =
        "{\"stop\": \"100ms\", \"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", "
        "\"delay\": \"10us\"}}, \"host\": {\"mtu\": 1024, \"cc\": \"none\", \"loss_recovery\": \"selective\", "
        "\"selective\": {\"bdp_cap\": 16}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
        "\"size\": \"2MB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE_FATAL(r.finished);
    const struct flow *f = net_flow(&r.net, 0);
    /* a data frame: 1024 + 62 bytes of headers and 20 of preamble and gap; an ACK: its frame and the same 20 */
    double data_ps = (1024.0 + r.net.fr.hdr_data + r.net.fr.wire) * 8 / 100e9 * 1e12;
    double ack_ps = ((double)r.net.fr.frame_ack + r.net.fr.wire) * 8 / 100e9 * 1e12;
    double rtt_ps = 2 * data_ps + 2 * ack_ps + 4 * 10e6;
    double want = 16 * 1024 * 8 / (rtt_ps / 1e12);
    double got = (double)f->size * 8 / ((double)(f->finish - f->start) / 1e12);
    printf("\n    bdp_cap 16: %.3f Gb/s, 16 packets per round trip of %.3f us: %.3f Gb/s ", got / 1e9, rtt_ps / 1e6,
           want / 1e9);
    CU_ASSERT(got <= want * 1.01);
    CU_ASSERT(got >= want * 0.99);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
    test_teardown(&scn, &r);
}

/*
 * The timeouts: h0's frames to s0 are all corrupted for the first 2 us (a rate of 0.999999, the largest allowed),
 * so a one-packet flow loses its only packet (1 unacknowledged: rto_low); and s0's frames to h1 from 10 to 13 us,
 * so a 64-packet flow started at 5 us loses its last packets, after which nothing arrives to be NACKed (many
 * unacknowledged: rto_high).  Their FCTs hold the timeout: the first at 100 us and a little, the second at 320 us
 * and a little, never the other.
 */
static void test_two_timeouts(void)
{
    static const char *json =
        "{\"stop\": \"10ms\", \"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"100Gbps\", "
        "\"delay\": \"1us\"}}, \"host\": {\"mtu\": 1024, \"cc\": \"none\", \"loss_recovery\": \"selective\", "
        "\"selective\": {\"bdp_cap\": 64}}, \"traffic\": ["
        "{\"type\": \"flow\", \"id\": \"one\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1000B\"}, "
        "{\"type\": \"flow\", \"id\": \"tail\", \"src\": \"h2\", \"dst\": \"h1\", \"size\": \"64000B\", \"start\": "
        "\"5us\"}], \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"], \"rate\": 0.999999, "
        "\"start\": \"0us\", \"end\": \"2us\", \"direction\": \"forward\"}, {\"type\": \"link_errors\", \"between\": "
        "[\"s0\", \"h1\"], \"rate\": 0.999999, \"start\": \"10us\", \"end\": \"13us\", \"direction\": \"forward\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE_FATAL(r.finished);
    const struct flow *one = net_flow(&r.net, 0), *tail = net_flow(&r.net, 1);
    double one_us = (double)(one->finish - one->start) / PS_PER_US;
    double tail_us = (double)(tail->finish - tail->start) / PS_PER_US;
    printf("\n    one packet lost: FCT %.2f us (rto_low 100 us); the last of 64: FCT %.2f us (rto_high 320 us) ",
           one_us, tail_us);
    CU_ASSERT_EQUAL(one->timeouts, 1);
    CU_ASSERT(one_us > 100 && one_us < 110);
    CU_ASSERT(tail->timeouts >= 1);
    CU_ASSERT(tail_us > 320 && tail_us < 340);
    test_teardown(&scn, &r);
}

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": "
         "{\"loss_recovery\": \"selective\", "
         "\"selective\": {\"bdp_cap\": 5000}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
         "\"size\": \"1MB\"}]}",
         "t.json: host.selective.bdp_cap: expected an integer from 1 to 4096, got 5000"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": "
         "{\"loss_recovery\": \"selective\", "
         "\"selective\": {\"rto_low\": \"1ms\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
         "\"size\": \"1MB\"}]}",
         "t.json: host.selective.rto_low: expected at most rto_high (320us), got 1ms"},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
}

void test_selective_register(void)
{
    CU_pSuite s = CU_add_suite("selective repeat", NULL, NULL);
    CU_add_test(s, "bdp_cap: W packets per round trip", test_bdp_cap);
    CU_add_test(s, "rto_low for a lone packet, rto_high with many unacknowledged", test_two_timeouts);
    CU_add_test(s, "bad selective-repeat settings exit 2 naming the path", test_errors);
}
