/*
 * Ultra Ethernet's packet delivery (host.loss_recovery "uet", models/transport_uet.c) and the entropy modules that
 * balance load at the source (host.entropy, models/entropy_*.c).  What is checked against what:
 * - one flow alone on a k=4 fat-tree: its FCT and its sender's completion are the empty network's exactly (the
 *   transport adds no wait: the receiver's coalesced ACKs hold nothing back);
 * - seven senders at line rate into one port whose lossy queue trims: every trimmed packet is answered by one NACK
 *   and resent once, every packet is delivered exactly once, no timeout, and the incast ends within 3 us of the time
 *   the receiver's link needs for every frame and every trimmed header it carries (the link is the bottleneck and
 *   never idles);
 * - a permutation sprayed over 64 entropy values: packets arrive out of order, yet the selective ACKs leave nothing
 *   to resend (no trim, no retransmission);
 * - the entropy modules' choices, exactly: oblivious takes each value once per round; bitmap passes over a value
 *   NACKed once for four rounds and takes it in the fifth; REPS recycles clean ACKs' values oldest first, and after
 *   a timeout freezes, then explores;
 * - the same files on one thread and two; the refused combinations and settings exit 2 naming the path.
 */
#include "tests/tests.h"
#include "models/entropy.h"
#include "models/transport.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD "/tmp/rocesim-test-uet-bad.json" /* the scenario test_build_refused writes */

#define UET_FABRIC                                                                                                   \
    "\"seed\": 13, \"stop\": \"5ms\", \"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": "        \
    "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"lossy_queue_limit\": \"178450B\", \"pfc\": {\"enabled\": "    \
    "false}, \"trim\": {\"enabled\": true, \"size\": \"64B\", \"priority\": 6}, \"ecn\": {\"kmin\": \"37350B\", "    \
    "\"kmax\": \"145250B\", \"pmax\": 1.0}, \"scheduler\": {\"type\": \"strict\"}}, \"host\": {\"mtu\": 4086, "      \
    "\"priority\": 0, \"ack_priority\": 6, \"cc\": \"none\", \"loss_recovery\": \"uet\", \"rto\": \"100us\""

static void test_alone(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", "{" UET_FABRIC "}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
                                    "\"dst\": \"h8\", \"size\": \"2MB\"}]}", NULL, 0, &scn, &r));
    test_run_checked(&r);
    const struct flow *f = net_flow(&r.net, 0);
    printf("\n    FCT %.3f us (empty network %.3f us), acked %.3f us ", (double)(f->finish - f->start) / PS_PER_US,
           (double)f->ideal_fct / PS_PER_US, (double)(f->acked - f->start) / PS_PER_US);
    CU_ASSERT_EQUAL(f->finish - f->start, f->ideal_fct);
    CU_ASSERT_EQUAL(f->acked - f->start, f->ideal_fct_ack);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
    test_teardown(&scn, &r);
}

static void test_incast(void)
{
    struct scenario scn;
    struct run r;
    char text[2048];
    snprintf(text, sizeof text, "{" UET_FABRIC "}, \"traffic\": [{\"type\": \"incast\", \"senders\": \"h1-h7\", "
             "\"receiver\": \"h0\", \"size\": \"500KB\"}]}");
    CU_ASSERT_FATAL(test_setup_from("t.json", text, NULL, 0, &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    uint64_t pkts = 0, bytes = 0;
    sim_time_t last = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++) {
        const struct flow *f = net_flow(&r.net, i);
        pkts += f->n_pkts;
        for (uint32_t p = 0; p < f->n_pkts; p++)
            bytes += (p + 1 == f->n_pkts ? (uint64_t)(f->size - (int64_t)p * f->mtu) : f->mtu) + r.net.fr.hdr_data +
                     r.net.fr.wire;
        last = f->finish > last ? f->finish : last;
        CU_ASSERT(f->finish >= 0);
    }
    /* every frame and every trimmed header (64 B) crosses the receiver's link; the first arrives after one frame's
     * way through three switches */
    bytes += c->trimmed * (64 + r.net.fr.wire);
    double busy_us = (double)bytes * 8 / 100e9 * 1e6;
    printf("\n    %llu packets, %llu trimmed, %llu NACKs, %llu resent, %llu timeouts; last FCT %.2f us, the receiver's "
           "link busy %.2f us ", (unsigned long long)pkts, (unsigned long long)c->trimmed,
           (unsigned long long)c->nacks_sent, (unsigned long long)c->data_retx, (unsigned long long)c->timeouts,
           (double)last / PS_PER_US, busy_us);
    CU_ASSERT(c->trimmed > 1000);
    CU_ASSERT_EQUAL(c->nacks_sent, c->trimmed);
    CU_ASSERT_EQUAL(c->data_retx, c->trimmed);
    CU_ASSERT_EQUAL(c->data_delivered, pkts);
    CU_ASSERT_EQUAL(c->timeouts, 0);
    CU_ASSERT((double)last / PS_PER_US >= busy_us);
    CU_ASSERT((double)last / PS_PER_US <= busy_us + 3);
    test_teardown(&scn, &r);
}

#define PERMUTATION                                                                                                  \
    "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h8\", \"size\": \"1MB\"}, {\"type\": \"flow\", " \
    "\"src\": \"h1\", \"dst\": \"h12\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h4\", \"dst\": \"h9\", " \
    "\"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h5\", \"dst\": \"h13\", \"size\": \"1MB\"}]}"

static void test_sprayed(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", "{" UET_FABRIC ", \"entropy\": \"oblivious\", \"entropy_paths\": 64}, "
                                    PERMUTATION, NULL, 0, &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    printf("\n    %llu out of order, %llu trimmed, %llu resent ", (unsigned long long)c->ooo_arrivals,
           (unsigned long long)c->trimmed, (unsigned long long)c->data_retx);
    CU_ASSERT(c->ooo_arrivals > 0);
    CU_ASSERT_EQUAL(c->trimmed, 0);
    CU_ASSERT_EQUAL(c->data_retx, 0);
    CU_ASSERT_EQUAL(r.net.flows_completed, 4);
    test_teardown(&scn, &r);
}

/*
 * One path per flow (entropy_paths 1) under receiver credit alone: the UEC reference's 16-host permutation, whose
 * colliding flows trim half their packets, so that a receiver holds packets far above its cumulative point.  Every
 * flow completes and every packet is delivered once: a selective acknowledgement that read a place of the
 * receiver's ring a ring above the PSN it stands for once told senders that lost packets had arrived, and six
 * flows waited for ever.
 */
static void test_holes(void)
{
    static const int perm[][2] = {{13, 6}, {1, 4},  {6, 0},  {2, 13}, {10, 5}, {15, 1}, {8, 14}, {14, 2},
                                  {5, 15}, {4, 12}, {12, 11}, {0, 8}, {9, 7},  {7, 9},  {3, 10}, {11, 3}};
    char text[8192];
    int len = snprintf(text, sizeof text, "{" UET_FABRIC ", \"entropy_paths\": 1, \"uet\": {\"rccc\": true, "
                       "\"base_rtt\": \"14.02272us\"}}, \"traffic\": [");
    for (size_t i = 0; i < sizeof perm / sizeof *perm; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%s{\"type\": \"flow\", \"src\": \"h%d\", \"dst\": "
                        "\"h%d\", \"size\": \"2000000B\"}", i ? ", " : "", perm[i][0], perm[i][1]);
    snprintf(text + len, sizeof text - (size_t)len, "]}");
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", text, NULL, 0, &scn, &r));
    test_run_checked(&r);
    uint64_t pkts = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        pkts += net_flow(&r.net, i)->n_pkts;
    const struct net_counters *c = &r.net.c;
    printf("\n    %u of 16 flows done, %llu of %llu packets delivered, %llu trimmed, %llu resent ",
           r.net.flows_completed,
           (unsigned long long)c->data_delivered, (unsigned long long)pkts, (unsigned long long)c->trimmed,
           (unsigned long long)c->data_retx);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    CU_ASSERT_EQUAL(c->data_delivered, pkts);
    CU_ASSERT(c->trimmed > 1000);
    CU_ASSERT_EQUAL(c->data_retx, c->trimmed);
    test_teardown(&scn, &r);
}

/*
 * The receiver's rule for an ack-request (AR) that arrives out of order (the reference's _ack_request, uec.cpp):
 * acknowledged at once, and again when the holes below it fill, so that a sender whose window is full learns
 * that everything arrived.  PSN 1 (AR) and 2 come before 0, 3 after: 1 is answered, 2 is not (12 KB, below the
 * 16 KB threshold), 0 fills the hole and is answered with the cumulative point 3, and 3 is not.  Before the rule,
 * 0 went unanswered: in the reference's 1,024-host permutations with 8 slowed links and 500-packet queues a flow
 * whose last packets in its window took the slow links waited a whole timeout (1 ms) for nothing.
 */
static void test_ar_after_holes(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("t.json", "{" UET_FABRIC "}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
                                    "\"dst\": \"h8\", \"size\": \"1MB\"}]}", NULL, 0, &scn, &r));
    struct flow *f = (struct flow *)net_flow(&r.net, 0);
    static const struct {
        uint32_t psn;
        bool ar;
        uint8_t reply;
        uint32_t cum;
    } steps[] = {{1, true, PKT_ACK, 0}, {2, false, 0, 0}, {0, false, PKT_ACK, 3}, {3, false, 0, 0}};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        struct pkt k = {.type = PKT_DATA, .psn = steps[i].psn, .size = 4148,
                        .tflags = steps[i].ar ? PKT_TF_AR : 0};
        struct transport_reply a = transport_on_data(f, &k, 1);
        CU_ASSERT_EQUAL(a.type, steps[i].reply);
        if (a.type)
            CU_ASSERT_EQUAL(a.psn, steps[i].cum);
    }
    test_teardown(&scn, &r);
}

/*
 * A resend chosen by a timeout while the flow waits for its port's turn, acknowledged before the turn comes (a
 * lab 16 all-to-all of 4 MB per host, cut at 240 us): the NIC sends the stale PSN as a harmless copy, and a flow
 * done meanwhile leaves its port's list.  It once sent a PSN below the acknowledged point into the sender's rings
 * (whose span then wrapped, and the run spun for ever), or a finished flow's frame after its state was freed.
 */
static void test_stale_resend(void)
{
    struct scn_override ov[] = {{"stop", "240us"},
                                {"traffic", "[{\"type\": \"alltoall\", \"id\": \"a2a\", \"hosts\": \"all\", "
                                            "\"size\": \"4MB\"}]"}};
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("scenarios/labs/16-roce-irn-or-uet/uet-nscc.json", NULL, ov, 2, &scn, &r));
    test_run_checked(&r);
    printf("\n    %llu timeouts, %llu resent by 240 us ", (unsigned long long)r.net.c.timeouts,
           (unsigned long long)r.net.c.data_retx);
    CU_ASSERT(r.net.c.timeouts > 0);
    CU_ASSERT_EQUAL(r.sim.now, 240 * PS_PER_US);
    test_teardown(&scn, &r);
}

static void *module_state(const char *name, uint32_t paths, const struct entropy_ops **o)
{
    int i = module_find("entropy", name);
    CU_ASSERT_FATAL(i >= 0);
    *o = entropy_registry[i];
    struct rng r;
    rng_init(&r, 1, rng_stream_id(RNG_KIND_TEST, 7));
    void *st = calloc(1, (*o)->state_bytes(paths));
    (*o)->init(st, paths, &r);
    return st;
}

static void test_modules(void)
{
    const struct entropy_ops *o;
    /* oblivious: each of 16 values once in every round of 16, in orders that change */
    void *st = module_state("oblivious", 16, &o);
    int differ = 0;
    uint16_t first[16];
    for (int round = 0; round < 4; round++) {
        unsigned seen = 0;
        for (int i = 0; i < 16; i++) {
            uint16_t ev = o->pick(st, 0);
            CU_ASSERT(ev < 16);
            seen |= 1u << ev;
            if (round == 0)
                first[i] = ev;
            else
                differ += ev != first[i];
        }
        CU_ASSERT_EQUAL(seen, 0xffffu);
    }
    CU_ASSERT(differ > 0);
    free(st);

    /* bitmap: a NACKed value (penalty 4) is passed over in four rounds and taken in the fifth; the others each
     * round */
    st = module_state("bitmap", 8, &o);
    uint16_t bad = o->pick(st, 0);
    for (int i = 1; i < 8; i++)
        o->pick(st, 0);
    o->feedback(st, bad, EV_NACK, 0);
    int rounds_without = 0;
    for (int round = 0; round < 5; round++) {
        bool got = false;
        for (int i = 0; i < (round < 4 ? 7 : 8); i++)
            got |= o->pick(st, 0) == bad;
        rounds_without += !got;
    }
    CU_ASSERT_EQUAL(rounds_without, 4);
    free(st);

    /* REPS: clean ACKs' values come back oldest first; an ECN-marked ACK's does not; with none fresh, random */
    st = module_state("reps", 64, &o);
    o->feedback(st, 5, EV_GOOD, 0);
    o->feedback(st, 9, EV_ECN, 0);
    o->feedback(st, 7, EV_GOOD, 0);
    o->feedback(st, 3, EV_GOOD, 0);
    CU_ASSERT_EQUAL(o->pick(st, 0), 5);
    CU_ASSERT_EQUAL(o->pick(st, 0), 7);
    CU_ASSERT_EQUAL(o->pick(st, 0), 3);
    /* a timeout freezes it: the ring's values in turn, fresh or not (5, 7, 3), for 10 ms */
    o->feedback(st, EV_UNKNOWN, EV_TIMEOUT, PS_PER_MS);
    uint16_t cyc[6];
    for (int i = 0; i < 6; i++)
        cyc[i] = o->pick(st, PS_PER_MS);
    CU_ASSERT(cyc[0] == 5 && cyc[1] == 7 && cyc[2] == 3 && cyc[3] == 5 && cyc[4] == 7 && cyc[5] == 3);
    /* the first feedback after 10 ms thaws it: the ring is cleared and 16 random values explored, then recycling */
    o->feedback(st, 11, EV_GOOD, 12 * PS_PER_MS);
    for (int i = 0; i < 16; i++)
        o->pick(st, 12 * PS_PER_MS);
    o->feedback(st, 42, EV_GOOD, 12 * PS_PER_MS);
    CU_ASSERT_EQUAL(o->pick(st, 12 * PS_PER_MS), 11);
    CU_ASSERT_EQUAL(o->pick(st, 12 * PS_PER_MS), 42);
    free(st);

    /* REPS takes a number of values that is no power of two (any_paths): its exploration draws each of 15 values
     * and none beyond them (1,500 draws: the chance that one value is missed is 15 (14/15)^1500, about 1e-44) */
    st = module_state("reps", 15, &o);
    CU_ASSERT(o->any_paths);
    unsigned seen = 0;
    bool beyond = false;
    for (int i = 0; i < 1500; i++) {
        uint16_t ev = o->pick(st, 0);
        beyond |= ev >= 15;
        seen |= 1u << (ev & 31);
    }
    CU_ASSERT_FALSE(beyond);
    CU_ASSERT_EQUAL(seen, 0x7fffu);
    free(st);
}

static void test_threads(void)
{
    char *text = test_same_each_run_json(
        "/tmp/rocesim-test-uet.json",
        "{" UET_FABRIC ", \"entropy\": \"mixed\", \"entropy_paths\": 32}, \"traffic\": [{\"type\": \"incast\", "
            "\"senders\": \"h4-h11\", \"receiver\": \"h0\", \"size\": \"300KB\"}, {\"type\": \"flow\", \"src\": \"h1\", "
            "\"dst\": \"h12\", \"size\": \"1MB\"}, {\"type\": \"flow\", \"src\": \"h13\", \"dst\": \"h2\", \"size\": "
            "\"1MB\"}]}");
    CU_ASSERT(text != NULL);
    free(text);
}

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": "
         "{\"entropy_paths\": 100}, \"traffic\": []}",
         "t.json: host.entropy_paths: expected a power of two (oblivious, bitmap and mixed go "
         "round the values with masks; only reps takes any number), got 100"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": "
         "{\"loss_recovery\": \"uet\", \"entropy\": \"mixed\", \"entropy_paths\": 48}, \"traffic\": []}",
         "t.json: host.entropy_paths: expected a power of two (oblivious, bitmap and mixed go "
         "round the values with masks; only reps takes any number), got 48"},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
    test_build_refused(BAD, "--set host.entropy=reps",
                       "rocesim: " BAD ": host.entropy: expected \"flow\" or \"packet\" under host.loss_recovery "
                       "\"go-back-n\"");
    test_build_refused(BAD, "--set host.cc=nscc",
                       "host.cc: expected a transport that counts its bytes in flight for \"nscc\" (host.loss_recovery "
                       "\"uet\"), got host.loss_recovery \"go-back-n\"");
    test_build_refused(BAD, "--set host.loss_recovery=uet --set host.cc=hpcc",
                       "host.cc: expected a congestion control without in-band telemetry under host.loss_recovery "
                       "\"uet\"");
}

void test_uet_register(void)
{
    CU_pSuite s = CU_add_suite("ultra ethernet transport", NULL, NULL);
    CU_add_test(s, "one flow alone: the empty network's FCT exactly", test_alone);
    CU_add_test(s, "an incast that trims: one NACK and one resend per trim, the receiver's link never idle",
                test_incast);
    CU_add_test(s, "a sprayed permutation: out of order, nothing resent", test_sprayed);
    CU_add_test(s, "holes far above the cumulative point: every packet delivered once, every flow done", test_holes);
    CU_add_test(s, "a resend acknowledged while it waits for its turn goes as a copy; a flow done leaves its list",
                test_stale_resend);
    CU_add_test(s, "an ack-request out of order: answered at once, and again when the holes below it fill",
                test_ar_after_holes);
    CU_add_test(s, "the entropy modules' choices", test_modules);
    CU_add_test(s, "the same files on one thread and two", test_threads);
    CU_add_test(s, "refused combinations and settings exit 2", test_errors);
}
