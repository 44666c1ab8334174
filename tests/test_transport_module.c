/*
 * The transport as a module (models/transport.h): a transport declared in this file alone, with one
 * MODULE_REGISTER line, chosen by host.loss_recovery and run end to end through a loss.  It is the plainest
 * reliable delivery there is: the receiver accepts data in order only and acknowledges cumulatively, never sends a
 * NACK, and drops what comes out of order without a word; the sender resends from its first unacknowledged PSN
 * when its retransmission timeout fires, and nothing else.  Also: a transport missing a hook is refused, and an
 * unregistered name is refused with the registered ones.
 */
#include "tests/tests.h"
#include "models/transport.h"
#include "sim/module.h"
#include "sim/units.h"
#include "tools/ops/doctor.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESEND_FLOWS 4

static uint64_t resend_accepted[RESEND_FLOWS]; /* payload bytes the receiver accepted in order, by flow */
static uint64_t resend_discarded;              /* data frames dropped at the receiver for arriving out of order */

static void resend_sent(struct flow *f) { f->snd_nxt++; }

static struct transport_reply resend_on_data(struct flow *f, const struct pkt *k, uint32_t ack_every)
{
    if (k->psn == f->rcv_nxt) {
        f->rcv_nxt++;
        if (f->idx < RESEND_FLOWS)
            resend_accepted[f->idx] += k->size - HDR_DATA;
        if (++f->since_ack >= ack_every || f->rcv_nxt == f->n_pkts) {
            f->since_ack = 0;
            return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt};
        }
        return (struct transport_reply){0};
    }
    if (k->psn > f->rcv_nxt) {
        resend_discarded++;
        return (struct transport_reply){0};
    }
    return (struct transport_reply){.type = PKT_ACK, .psn = f->rcv_nxt}; /* a copy: its ACK may have been lost */
}

static void resend_on_ack(struct flow *f, const struct pkt *k, struct cc_ack *a)
{
    uint32_t una = f->snd_una;
    if (k->psn > una)
        f->snd_una = k->psn;
    if (f->snd_nxt < f->snd_una)
        f->snd_nxt = f->snd_una;
    a->psn = k->psn;
    a->newly_acked = f->snd_una - una;
    a->nack = false;
}

static bool resend_recover(struct flow *f, const struct pkt *k) { return false; }

static void resend_on_timeout(struct flow *f) { f->snd_nxt = f->snd_una; }

static const struct transport_ops resend_ops = {
    .name = "test_resend", .flags = TRANSPORT_F_GOES_BACK, .sent = resend_sent, .on_data = resend_on_data,
    .on_ack = resend_on_ack, .recover = resend_recover, .on_timeout = resend_on_timeout};
MODULE_REGISTER(transport_kind, "test_resend", &resend_ops);

/* ---- Refusals ---- */

static void test_transport_refused(void)
{
    static const struct transport_ops no_data = {.name = "test_no_data", .sent = resend_sent,
                                                 .on_ack = resend_on_ack, .recover = resend_recover,
                                                 .on_timeout = resend_on_timeout};
    static const struct module m = {.kind = &transport_kind, .name = "test_no_data", .ops = &no_data};
    static const struct module dup = {.kind = &transport_kind, .name = "go-back-n", .ops = &resend_ops};
    char err[256] = "";
    int before = module_count("transport");
    CU_ASSERT_EQUAL(module_register(&m, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "on_data"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "test_no_data"));
    err[0] = '\0';
    CU_ASSERT_EQUAL(module_register(&dup, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "go-back-n"));
    CU_ASSERT_EQUAL(module_count("transport"), before);
    /* go-back-N is the default, numbered 0, which the NIC calls without the table */
    CU_ASSERT_EQUAL(module_find("transport", "go-back-n"), TRANSPORT_GBN);
    CU_ASSERT_PTR_EQUAL(transport_of(module_find("transport", "test_resend")), &resend_ops);
}

/* An unregistered name is refused, with the names that are. */
static void test_unknown_transport(void)
{
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check scenarios/incast-16to1.json --set host.loss_recovery=irn",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/incast-16to1.json: host.loss_recovery (from --set): "
                                              "expected one of \"go-back-n\", \"selective\""));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "got \"irn\""));
    free(out);
}

/* ---- End to end ---- */

/*
 * Four 200 KB flows side by side over h0 -> s0 -> h1 (100 Gbps, 1 us links), lossy (PFC off), and every frame
 * from h0 to s0 corrupted from 5 us to 6 us: a burst of data frames is lost at the same point of both runs, which
 * are identical until then.
 */
#define RTO_US 100
#define FLOW_JSON "{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"200KB\"}"
#define E2E_JSON                                                                                                  \
    "{\"seed\": 7, \"stop\": \"10ms\", \"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", "      \
    "\"kind\": \"host\"}, {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}], "     \
    "\"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, "                      \
    "{\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}]}, \"switch\": {\"pfc\": "           \
    "{\"enabled\": false}}, \"host\": {\"cc\": \"none\", \"rto\": \"100us\", \"ack_every\": 2, "                  \
    "\"loss_recovery\": \"%s\"}, \"traffic\": [" FLOW_JSON ", " FLOW_JSON ", " FLOW_JSON ", " FLOW_JSON "], "      \
    "\"faults\": [{\"type\": \"link_errors\", \"between\": [\"h0\", \"s0\"], \"direction\": \"forward\", "      \
    "\"rate\": 0.99, \"start\": \"5us\", \"end\": \"6us\"}]}"

struct e2e {
    sim_time_t fct[RESEND_FLOWS];
    int64_t size[RESEND_FLOWS];
    uint32_t timeouts[RESEND_FLOWS];
    struct net_counters c;
    uint32_t flows, completed;
};

static void run_e2e(const char *transport, struct e2e *out)
{
    char text[2048];
    snprintf(text, sizeof text, E2E_JSON, transport);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(text, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    out->c = r.net.c;
    out->flows = r.net.n_flows;
    out->completed = r.net.flows_completed;
    for (uint32_t i = 0; i < r.net.n_flows && i < RESEND_FLOWS; i++) {
        const struct flow *f = net_flow(&r.net, i);
        CU_ASSERT_EQUAL(f->transport, module_find("transport", transport));
        CU_ASSERT_EQUAL(f->rcv_nxt, f->n_pkts);
        CU_ASSERT(f->acked >= f->finish && f->finish > f->start);
        out->fct[i] = f->finish - f->start;
        out->size[i] = f->size;
        out->timeouts[i] = (uint32_t)f->timeouts;
    }
    test_teardown(&scn, &r);
}

static void test_resend_end_to_end(void)
{
    struct e2e gbn, rs;
    run_e2e("go-back-n", &gbn);
    memset(resend_accepted, 0, sizeof resend_accepted);
    resend_discarded = 0;
    run_e2e("test_resend", &rs);
    CU_ASSERT_EQUAL_FATAL(rs.flows, RESEND_FLOWS);
    CU_ASSERT_EQUAL(rs.completed, RESEND_FLOWS);
    CU_ASSERT_EQUAL(gbn.completed, RESEND_FLOWS);
    /* The same burst hit both: go-back-N recovered by NACKs alone, the toy by its timeout alone. */
    CU_ASSERT(gbn.c.drop_corrupt > 0);
    CU_ASSERT(rs.c.drop_corrupt > 0);
    CU_ASSERT(gbn.c.nacks_sent > 0);
    CU_ASSERT_EQUAL(gbn.c.timeouts, 0);
    CU_ASSERT_EQUAL(rs.c.nacks_sent, 0);
    CU_ASSERT(rs.c.timeouts > 0);
    CU_ASSERT(rs.c.data_retx > 0);
    CU_ASSERT(resend_discarded > 0);
    /* Every frame the toy's sender put on the wire was delivered once, resent, or lost. */
    CU_ASSERT_EQUAL(rs.c.data_sent, rs.c.data_delivered + rs.c.data_dropped);
    for (int i = 0; i < RESEND_FLOWS; i++) {
        /* Exactly the message, each byte accepted once, in order. */
        CU_ASSERT_EQUAL(resend_accepted[i], (uint64_t)rs.size[i]);
        printf("\n    flow %d: go-back-n %.2f us, test_resend %.2f us (%u timeouts) ", i,
               (double)gbn.fct[i] / PS_PER_US, (double)rs.fct[i] / PS_PER_US, rs.timeouts[i]);
        /* A flow that lost frames waited for a timeout, which go-back-N never did: the timer runs from the last
         * progress, which the last ACK before the burst made, within a round trip (a few us here) of the NACK
         * go-back-N recovered by. */
        if (rs.timeouts[i])
            CU_ASSERT(rs.fct[i] >= gbn.fct[i] + (RTO_US - 10) * PS_PER_US);
    }
}

/* rocesim doctor asks the transport's flag, not its name: the toy resends everything after a loss, as
 * go-back-N does, so its lossy priority is an error that names it. */
static void test_doctor_asks_the_flag(void)
{
    for (int toy = 0; toy < 2; toy++) {
        char text[2048];
        snprintf(text, sizeof text, E2E_JSON, toy ? "test_resend" : "go-back-n");
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(text, NULL, NULL, &scn, &r));
        struct doc_report rep = {0};
        doctor_scenario(&r, &rep);
        const struct doc_finding *f = doctor_find(&rep, "lossy-go-back-n");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        const char *want = toy ? "host.loss_recovery test_resend" : "host.loss_recovery go-back-n";
        CU_ASSERT_PTR_NOT_NULL(strstr(f->seen, want));
        doctor_report_free(&rep);
        test_teardown(&scn, &r);
    }
}

void test_transport_module_register(void)
{
    CU_pSuite s = CU_add_suite("transport module", NULL, NULL);
    CU_add_test(s, "a transport missing a hook, or of a taken name, is refused", test_transport_refused);
    CU_add_test(s, "host.loss_recovery of an unregistered name: file, path and valid names, exit 2",
                test_unknown_transport);
    CU_add_test(s, "a resend-on-timeout transport of a test file, through a burst of losses: every byte once",
                test_resend_end_to_end);
    CU_add_test(s, "doctor's lossy-go-back-n follows the transport's flag and names it", test_doctor_asks_the_flag);
}
