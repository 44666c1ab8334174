/*
 * Lossy links (issue 23, item 4): a link's loss_rate and the link_errors fault.  Frames of every kind are
 * corrupted at the receiver with the given probability (counted as corrupt: data in drops_by_reason.corrupt,
 * control frames in control_corrupt), the transport recovers by go-back-N, and the goodput follows a simple
 * model of what each loss costs.
 */
#include "models/fault.h"
#include "models/pfc.h"
#include "sim/units.h"
#include "tests/tests.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One 100 MB flow h0 -> s0 -> h1 at 100 Gbps; the first link is long (100 us, so that a loss costs a
 * bandwidth-delay product that shows in the goodput) and carries `loss` (a JSON fragment for that link).
 */
#define LINE_BPS 100000000000LL
#define LONG_DELAY_PS (100 * PS_PER_US)
#define SHORT_DELAY_PS PS_PER_US
#define ONE_FLOW_JSON(loss, faults)                                                                                \
    "{\"seed\": 1, \"stop\": \"100ms\", \"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", "      \
    "\"kind\": \"host\"}, {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}], "     \
    "\"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"100us\"" loss "}, "            \
    "{\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}]}, \"switch\": {\"pfc\": "           \
    "{\"enabled\": false}}, \"host\": {\"mtu\": 1024, \"priority\": 3, \"cc\": \"dcqcn\"}, \"traffic\": "           \
    "[{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"100MB\", \"start\": "       \
    "\"0us\"}]" faults "}"

/* log P(X = k) for X ~ Binomial(n, p). */
static double binom_logpmf(uint64_t k, uint64_t n, double p)
{
    return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) + (double)k * log(p) +
           (double)(n - k) * log1p(-p);
}

/*
 * Whether k is inside the central 99.9 % interval of Binomial(n, p): neither tail beyond it (P(X <= k) and
 * P(X >= k)) is below 0.05 %.  Exact sums, no normal approximation: the counts here are a dozen.
 */
static bool in_binomial_interval(uint64_t k, uint64_t n, double p)
{
    double lower = 0, upper = 0;
    for (uint64_t j = 0; j <= n; j++) {
        double pm = exp(binom_logpmf(j, n, p));
        if (j <= k)
            lower += pm;
        if (j >= k)
            upper += pm;
        if (j > k && pm < 1e-300)
            break;
    }
    printf("\n    %llu of %llu lost, expected %.1f (P(X <= k) %.4f, P(X >= k) %.4f) ", (unsigned long long)k,
           (unsigned long long)n, (double)n * p, lower, upper);
    return lower >= 0.0005 && upper >= 0.0005;
}

/*
 * The acceptance run: loss_rate 1e-4 on the long link of a single 100 MB flow.
 *
 * Losses: each frame crossing the link is lost independently with p = 1e-4, so the corrupted data frames are
 * Binomial(N, p) with N the data frames sent over the link (retransmissions included), and the corrupted ACKs
 * and NACKs Binomial(N', p) with N' the frames the other way.  Both must lie in the 99.9 % interval.
 *
 * Goodput under go-back-N: with no loss the flow takes its ideal FCT T0 (first frame's way + S at line rate,
 * flows.c).  A data frame lost at time t is noticed when the next one reaches the receiver, which NACKs; the
 * NACK reaches the sender one way later, and everything sent since t was sent in vain and is sent again.  Each
 * loss therefore costs one round trip of the link time:
 *     RTT = 2 x (d_long + d_short) + ser(data frame) x 2 hops + ser(NACK) x 2 hops + ser(data frame)
 * (the last term: the frame behind the lost one, whose arrival triggers the NACK), i.e. a bandwidth-delay
 * product of retransmitted data, B = line x RTT.  For L losses:
 *     FCT = T0 + L x RTT,   goodput = S / FCT = line' x S / (S + L x B)   (line' = S / T0, the loss-free goodput)
 * L is the number of losses that cost a round trip: a frame lost within the round trip after an earlier loss
 * would be resent anyway and costs nothing, so L = the NACKs the receiver sent (at most the corrupted frames).
 * The measured goodput must be within 10 % of the model, and at least 10 % below the loss-free goodput, so
 * that the model, not just "about line rate", is what is checked.
 */
static void test_loss_rate_goodput(void)
{
    struct scenario scn;
    struct run r;
    const double p = 1e-4;
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON(", \"loss_rate\": 1e-4", ""), NULL, NULL, &scn, &r));
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.net.loss);
    test_run_checked(&r);
    CU_ASSERT_TRUE_FATAL(r.finished);
    const struct net_counters *c = &r.net.c;
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT(f->finish > 0);
    CU_ASSERT_EQUAL(r.net.flows_completed, 1);
    CU_ASSERT_EQUAL(c->data_dropped, c->drop_corrupt); /* nothing else drops in this fabric */
    CU_ASSERT(c->drop_corrupt > 0);

    const struct port *up = test_port_to(&r, "h0", "s0"), *down = test_port_to(&r, "s0", "h0");
    CU_ASSERT_EQUAL(up->tx_frames, c->data_sent); /* only data goes up the long link */
    CU_ASSERT_TRUE(in_binomial_interval(c->drop_corrupt, up->tx_frames, p));
    CU_ASSERT_TRUE(in_binomial_interval(c->corrupt_ack + c->corrupt_nack, down->tx_frames, p));
    CU_ASSERT_EQUAL(c->corrupt_cnp + c->corrupt_pause + c->corrupt_resume, 0);

    /* The model (comment above). */
    uint64_t L = c->nacks_sent;
    CU_ASSERT(L > 0 && L <= c->drop_corrupt);
    CU_ASSERT_EQUAL(c->timeouts, 0);
    double ser_data = (1024.0 + HDR_DATA + WIRE_OVERHEAD) * 8 / (double)LINE_BPS;
    double ser_nack = (double)(FRAME_ACK + WIRE_OVERHEAD) * 8 / (double)LINE_BPS;
    double rtt = 2.0 * (double)(LONG_DELAY_PS + SHORT_DELAY_PS) / PS_PER_S + 3 * ser_data + 2 * ser_nack;
    double size = 100e6, t0 = (double)f->ideal_fct / PS_PER_S, fct = (double)(f->finish - f->start) / PS_PER_S;
    double model = size / (t0 + (double)L * rtt), goodput = size / fct, lossless = size / t0;
    printf("\n    goodput %.2f Gbps, model %.2f Gbps (L %llu, RTT %.1f us), loss-free %.2f Gbps ", goodput * 8e-9,
           model * 8e-9, (unsigned long long)L, rtt * 1e6, lossless * 8e-9);
    CU_ASSERT(fabs(goodput - model) <= 0.10 * model);
    CU_ASSERT(goodput < 0.90 * lossless);
    /* Each recovery resent about a bandwidth-delay product. */
    double bdp_frames = rtt / ser_data;
    CU_ASSERT(fabs((double)c->data_retx - (double)L * bdp_frames) <= 0.10 * (double)L * bdp_frames);
    test_teardown(&scn, &r);
}

/* loss_rate 0 is no loss at all: no state, no draw, the same results byte for byte as without the field. */
static void test_zero_loss_unchanged(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON("", ""), "traffic.0.size", "\"5MB\"", &scn, &r));
    test_run_checked(&r);
    char *a = test_run_text(&r);
    uint64_t events = r.sim.events;
    test_teardown(&scn, &r);
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON(", \"loss_rate\": 0", ""), "traffic.0.size", "\"5MB\"", &scn, &r));
    CU_ASSERT_PTR_NULL(r.net.loss);
    test_run_checked(&r);
    char *b = test_run_text(&r);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(r.sim.events, events);
    CU_ASSERT_PTR_NULL(strstr(b, "control_corrupt"));
    free(a);
    free(b);
    test_teardown(&scn, &r);

    /* Loss state that never acts draws nothing from the other streams: an incast whose ECN marking is random
     * gives the same flows, event for event, with a link_errors fault that would start after the run. */
    CU_ASSERT_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, NULL, 0, &scn, &r));
    test_run_checked(&r);
    a = run_flows_csv(&r);
    events = r.sim.events;
    uint64_t marked = r.net.c.ecn_marked;
    test_teardown(&scn, &r);
    struct scn_override ov = {"faults", "[{\"type\": \"link_errors\", \"between\": [\"s0\", \"h16\"], \"rate\": 0.5, "
                                        "\"start\": \"1s\"}]"};
    CU_ASSERT_FATAL(test_setup_from("scenarios/incast-16to1.json", NULL, &ov, 1, &scn, &r));
    CU_ASSERT_PTR_NOT_NULL(r.net.loss);
    test_run_checked(&r);
    b = run_flows_csv(&r);
    CU_ASSERT(marked > 0);
    CU_ASSERT_EQUAL(r.net.c.ecn_marked, marked);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(r.sim.events, events);
    free(a);
    free(b);
    test_teardown(&scn, &r);
}

/*
 * link_errors from 1 ms to 3 ms: nothing is corrupted before its start or after its end, frames are during it.
 * With direction "forward" only the frames from the first node to the second are hit.
 */
static void test_link_errors_window(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", "
                                                 "\"s0\"], \"rate\": 1e-3, \"start\": \"1ms\", \"end\": \"3ms\"}]"),
                               NULL, NULL, &scn, &r));
    const struct net_counters *c = &r.net.c;
    sim_run(&r.sim, PS_PER_MS);
    CU_ASSERT_EQUAL(c->drop_corrupt + c->corrupt_ack + c->corrupt_nack, 0);
    sim_run(&r.sim, 3 * PS_PER_MS);
    uint64_t data = c->drop_corrupt, ctrl = c->corrupt_ack + c->corrupt_nack;
    CU_ASSERT(data > 0);
    CU_ASSERT(ctrl > 0); /* both directions */
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(c->drop_corrupt, data);
    CU_ASSERT_EQUAL(c->corrupt_ack + c->corrupt_nack, ctrl);
    CU_ASSERT_EQUAL(r.net.flows_completed, 1);
    test_teardown(&scn, &r);

    /* One way, s0 -> h0: the ACKs are hit, the data never. */
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"s0\", "
                                                 "\"h0\"], \"rate\": 1e-2, \"direction\": \"forward\"}]"),
                               "traffic.0.size", "\"5MB\"", &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(c->drop_corrupt, 0);
    CU_ASSERT(c->corrupt_ack > 0);
    test_teardown(&scn, &r);

    /* A loss_rate and a fault in force together are independent causes. */
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON(", \"loss_rate\": 0.5", ", \"faults\": [{\"type\": \"link_errors\", "
                                                                    "\"between\": [\"h0\", \"s0\"], \"rate\": 0.5, "
                                                                    "\"start\": \"1ms\"}]"),
                               NULL, NULL, &scn, &r));
    struct port *up = test_port_to(&r, "s0", "h0"); /* receives what h0 sends */
    CU_ASSERT_DOUBLE_EQUAL(r.net.loss[port_id(up)].p, 0.5, 1e-12);
    sim_run(&r.sim, 2 * PS_PER_MS);
    CU_ASSERT_DOUBLE_EQUAL(r.net.loss[port_id(up)].p, 0.75, 1e-12);
    test_teardown(&scn, &r);
}

/*
 * PFC frames are corrupted too.  A lost RESUME leaves the sender paused until its PAUSE expires (pause_quanta x
 * 512 bit times, 335.5 us at 100 Gbps): the run still completes, losslessly, and that sender's flow was held
 * about one expiry longer than the other's.
 */
static void test_lost_resume_expires(void)
{
    static const char *json =
        "{\"seed\": 1, \"stop\": \"50ms\", \"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": "
        "\"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"buffer\": \"2MB\", \"pfc\": {\"enabled\": true, "
        "\"priorities\": [3]}, \"ecn\": {\"enabled\": false}}, \"host\": {\"mtu\": 1024, \"priority\": 3, \"cc\": "
        "\"none\"}, \"traffic\": [{\"type\": \"incast\", \"id\": \"i\", \"senders\": \"h0-h1\", \"receiver\": "
        "\"h2\", \"size\": \"4MB\", \"start\": \"0us\"}], \"faults\": [{\"type\": \"link_errors\", \"between\": "
        "[\"s0\", \"h0\"], \"rate\": 0.3, \"direction\": \"forward\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 2);
    CU_ASSERT_EQUAL(c->data_dropped, 0);
    CU_ASSERT(c->corrupt_resume > 0);
    CU_ASSERT(c->corrupt_ack > 0);
    CU_ASSERT_EQUAL(c->ctrl_dropped, c->corrupt_ack + c->corrupt_nack + c->corrupt_cnp + c->corrupt_pause +
                                         c->corrupt_resume);
    sim_time_t expiry = pause_quanta_ps(pfc_settings_of(&scn.sw)->pause_quanta, LINE_BPS);
    const struct flow *f0 = net_flow(&r.net, 0), *f1 = net_flow(&r.net, 1);
    printf("\n    paused: h0's flow %.1f us, h1's %.1f us (expiry %.1f us) ", (double)f0->paused_ns / PS_PER_US,
           (double)f1->paused_ns / PS_PER_US, (double)expiry / PS_PER_US);
    CU_ASSERT(f0->paused_ns >= expiry);
    CU_ASSERT(f1->paused_ns < expiry / 4);
    CU_ASSERT_EQUAL(test_port_to(&r, "h0", "s0")->paused, 0);
    test_teardown(&scn, &r);
}

/* The summary names the control frames lost, only in runs that have lossy links. */
static void test_summary(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(ONE_FLOW_JSON(", \"loss_rate\": 1e-3", ""), "traffic.0.size", "\"5MB\"", &scn, &r));
    test_run_checked(&r);
    char *s = run_summary_json(&r, false);
    cJSON *root = cJSON_Parse(s);
    const cJSON *pk = cJSON_GetObjectItem(root, "packets");
    const cJSON *cc = cJSON_GetObjectItem(pk, "control_corrupt");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(pk, "drops_by_reason"), "corrupt")->valuedouble,
                    (double)r.net.c.drop_corrupt);
    CU_ASSERT(r.net.c.drop_corrupt > 0 && r.net.c.corrupt_ack > 0);
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(cc), 5);
    static const char *const keys[] = {"ack", "nack", "cnp", "pause", "resume"};
    const uint64_t want[] = {r.net.c.corrupt_ack, r.net.c.corrupt_nack, r.net.c.corrupt_cnp, r.net.c.corrupt_pause,
                             r.net.c.corrupt_resume};
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(cJSON_GetObjectItem(cc, keys[i])->valuedouble, (double)want[i]);
    cJSON_Delete(root);
    free(s);
    uint64_t data = r.net.c.drop_corrupt, ack = r.net.c.corrupt_ack;
    char line[160];
    /* The resolved scenario keeps the link's loss_rate. */
    char *j = scn_to_json(&scn);
    CU_ASSERT_PTR_NOT_NULL(strstr(j, "\"loss_rate\": 0.001"));
    free(j);
    test_teardown(&scn, &r);

    /* The console summary has a line for it, with the same counts as summary.json. */
    test_write_text("/tmp/rocesim-test-lossy-run.json", ONE_FLOW_JSON(", \"loss_rate\": 1e-3", ""));
    char cmd[320], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-lossy-run.json --set traffic.0.size='\"5MB\"' --no-plot "
             "-o /tmp/rocesim-test-lossy-out", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    snprintf(line, sizeof line, "  lossy links: %llu data frames corrupted; control frames corrupted: %llu ACK, ",
             (unsigned long long)data, (unsigned long long)ack);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, line));
    free(out);
    remove("/tmp/rocesim-test-lossy-run.json");
    CU_ASSERT_EQUAL(test_run("rm -rf /tmp/rocesim-test-lossy-out", NULL), 0);
}

/* Bad input: one clear message naming the JSON path. */
static void test_errors(void)
{
    static const struct {
        const char *json, *err;
    } bad[] = {
        {ONE_FLOW_JSON(", \"loss_rate\": 1", ""),
         "test.json: topology.links.0.loss_rate: expected a number at least 0 and below 1, got 1"},
        {ONE_FLOW_JSON(", \"loss_rate\": -0.1", ""),
         "test.json: topology.links.0.loss_rate: expected a number at least 0 and below 1, got -0.1"},
        {ONE_FLOW_JSON(", \"loss_rate\": \"1%\"", ""),
         "test.json: topology.links.0.loss_rate: expected a number at least 0 and below 1, got a string \"1%\""},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"], \"rate\": 0}]"),
         "test.json: faults.0.rate: expected a number greater than 0 and below 1, got 0"},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"]}]"),
         "test.json: faults.0.rate: expected a probability greater than 0 and below 1, got nothing (this field is "
         "required)"},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s9\"], \"rate\": "
                           "0.1}]"),
         "test.json: faults.0.between.1: expected the name of a node in topology.nodes, got \"s9\""},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"h1\"], \"rate\": "
                           "0.1}]"),
         "test.json: faults.0.between: expected two linked nodes, got \"h0\" and \"h1\" (no link between them)"},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"], \"rate\": "
                           "0.1, \"start\": \"3ms\", \"end\": \"1ms\"}]"),
         "test.json: faults.0.end: expected a time after start (3ms), got \"1ms\""},
        {ONE_FLOW_JSON("", ", \"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"], \"rate\": "
                           "0.1, \"direction\": \"up\"}]"),
         "test.json: faults.0.direction: expected one of \"both\", \"forward\", got \"up\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct scenario scn;
        char err[SCN_ERR_MAX] = "";
        CU_ASSERT_EQUAL(scn_load_text("test.json", bad[i].json, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
        if (strcmp(err, bad[i].err))
            printf("\n    got  %s\n    want %s\n", err, bad[i].err);
        CU_ASSERT_STRING_EQUAL(err, bad[i].err);
    }
    /* Generated topologies resolve names when the fabric is built. */
    static const char *ls =
        "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 1, \"link\": "
        "{\"rate\": \"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
        "\"size\": \"1MB\"}], \"faults\": [{\"type\": \"link_errors\", \"between\": [\"leaf0\", "
        "\"spine9\"], \"rate\": 1e-3, \"start\": \"1ms\", \"end\": \"3ms\"}]}";
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", ls, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "test.json: faults.0.between.1: expected a node name, got \"spine9\" (no such node)");
    scn_free(&scn);
    /* Through the binary: the prefix and exit status 2. */
    test_write_text("/tmp/rocesim-test-lossy.json", bad[0].json);
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check /tmp/rocesim-test-lossy.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-test-lossy.json: topology.links.0.loss_rate: "));
    free(out);
    remove("/tmp/rocesim-test-lossy.json");
}

void test_lossy_register(void)
{
    CU_pSuite s = CU_add_suite("lossy links", NULL, NULL);
    CU_add_test(s, "loss_rate 1e-4 on one 100MB flow: binomial losses, completes, goodput as modelled",
                test_loss_rate_goodput);
    CU_add_test(s, "loss_rate 0, or loss not yet in force, changes nothing, event count included", test_zero_loss_unchanged);
    CU_add_test(s, "link_errors acts only between start and end, both ways or one", test_link_errors_window);
    CU_add_test(s, "a lost RESUME: the sender resumes on the PAUSE's expiry", test_lost_resume_expires);
    CU_add_test(s, "summary.json names the control frames lost", test_summary);
    CU_add_test(s, "bad loss_rate and link_errors input", test_errors);
}
