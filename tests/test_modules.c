/*
 * The module registry (sim/module.h) for its three kinds: congestion control (models/cc.h), link-level flow
 * control (models/lfc.h) and the egress scheduler (models/sched.h).  Registration refuses an incomplete table
 * or a second module of a name, naming it; host.cc, switch.flow_control and switch.scheduler.type take the names
 * of the registered modules only; and a flow control and a scheduler declared in this file alone (one
 * MODULE_REGISTER line each) are chosen by a scenario and run end to end.
 */
#include "tests/tests.h"
#include "models/cc.h"
#include "models/lfc.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/sched.h"
#include "sim/module.h"
#include "tools/run/run.h"

#include <stdlib.h>
#include <string.h>

/* ---- Refusals ---- */

static void cc_init_nop(struct flow *f, sim_time_t now) {}
static double cc_rate_nop(const struct flow *f) { return 1e9; }
static void cc_sample_nop(const struct flow *f, sim_time_t now, struct cc_sample *s) { s->rate_bps = 1e9; }

/* Registers m, expecting a refusal whose message holds both `what` and the module's name. */
static void refused(const struct module *m, const char *what)
{
    char err[256] = "";
    int before = module_count(m->kind->name);
    CU_ASSERT_EQUAL(module_register(m, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", m->name);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, quoted));
    CU_ASSERT_EQUAL(module_count(m->kind->name), before);
    CU_ASSERT_EQUAL(module_find(m->kind->name, m->name) >= 0, strstr(err, "has that name") != NULL);
}

static void test_cc_refused(void)
{
    static const struct cc_ops no_rate = {.name = "test_no_rate", .init = cc_init_nop, .sample = cc_sample_nop};
    static const struct cc_ops no_sample = {.name = "test_no_sample", .init = cc_init_nop, .rate = cc_rate_nop};
    static const struct cc_ops no_init = {.name = "test_no_init", .rate = cc_rate_nop, .sample = cc_sample_nop};
    static const struct cc_ops misnamed = {.name = "other", .init = cc_init_nop, .rate = cc_rate_nop,
                                           .sample = cc_sample_nop};
    static const struct module m_rate = {.kind = &cc_kind, .name = "test_no_rate", .ops = &no_rate};
    static const struct module m_sample = {.kind = &cc_kind, .name = "test_no_sample", .ops = &no_sample};
    static const struct module m_init = {.kind = &cc_kind, .name = "test_no_init", .ops = &no_init};
    static const struct module m_named = {.kind = &cc_kind, .name = "test_misnamed", .ops = &misnamed};
    refused(&m_rate, "a rate hook");
    refused(&m_sample, "a sample hook");
    refused(&m_init, "an init hook");
    refused(&m_named, "named as the module");
    /* A second DCQCN, complete, is refused for its name alone. */
    static struct module dup = {.kind = &cc_kind, .name = "dcqcn"};
    dup.ops = cc_registry[cc_find("dcqcn")];
    refused(&dup, "another module of kind");
    CU_ASSERT_EQUAL(cc_count, module_count("cc"));
}

static void test_lfc_and_sched_refused(void)
{
    static struct lfc_ops half;
    half = pfc_lfc_ops;
    half.name = "test_half";
    half.link_fail = NULL;
    static const struct module m_half = {.kind = &lfc_kind, .name = "test_half", .ops = &half};
    refused(&m_half, "a link_fail hook");
    static struct lfc_ops no_admit;
    no_admit = pfc_lfc_ops;
    no_admit.name = "test_no_admit";
    no_admit.admit = NULL;
    static const struct module m_admit = {.kind = &lfc_kind, .name = "test_no_admit", .ops = &no_admit};
    refused(&m_admit, "an admit hook");
    static const struct module m_pfc2 = {.kind = &lfc_kind, .name = "pfc", .ops = &pfc_lfc_ops};
    refused(&m_pfc2, "another module of kind");
    static const struct sched_ops no_pick = {.name = "test_no_pick"};
    static const struct module m_pick = {.kind = &sched_kind, .name = "test_no_pick", .ops = &no_pick};
    refused(&m_pick, "a pick hook");
}

/* host.cc names a registered congestion control: elsewhere (the global object, a profile, --set) the loader
 * refuses it naming the file, the path and the valid names, and the command exits with 2. */
static void test_unknown_cc(void)
{
    static const char *const texts[] = {
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"host\": {\"cc\": \"cubic\"}}",
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"profiles\": [{\"match\": \"h1\", \"host\": {\"cc\": \"cubic\"}}]}",
    };
    static const char *const paths[] = {"host.cc: ", "profiles.0.host.cc: "};
    for (int i = 0; i < 2; i++) {
        struct scenario scn;
        char err[SCN_ERR_MAX];
        CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", texts[i], NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
        char want[128];
        snprintf(want, sizeof want, "t.json: %sexpected one of \"dcqcn\", ", paths[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"none\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"timely\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "got \"cubic\""));
    }
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check scenarios/incast-16to1.json --set host.cc=cubic", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "host.cc (from --set): expected one of \"dcqcn\""));
    free(out);
    /* A switch profile may not pick another flow control: one runs the whole fabric. */
    struct scenario scn;
    char err[SCN_ERR_MAX];
    const char *prof = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", "
                       "\"delay\": \"1us\"}}, \"profiles\": [{\"match\": \"s0\", \"switch\": {\"flow_control\": \"pfc\"}}]}";
    CU_ASSERT_EQUAL(scn_load_text("t.json", prof, NULL, 0, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "profiles.0.switch.flow_control: expected flow_control only in the global"));
}

/* ---- A flow control of this file: drop-tail on the shared buffer, never a PAUSE ---- */

static uint64_t tail_admitted, tail_released, tail_refused, tail_data; /* tail_data: data frames admitted */

static int tail_admit(struct net *n, struct sw *w, struct port *in, struct pkt *k)
{
    int64_t B = sw_frame_bytes(w, k->size);
    if (w->shared_used + B > w->lim.buffer - w->hdrm_reserved) {
        tail_refused++;
        return DROP_BUFFER;
    }
    in->ing_shared[k->prio] += (int32_t)B;
    w->shared_used += B;
    w->buffered += B;
    k->in_port = in->local;
    tail_admitted++;
    tail_data += k->type == PKT_DATA;
    return LFC_ADMIT;
}

static void tail_released_fn(struct net *n, struct sw *w, struct port *in, int prio) { tail_released++; }
static void tail_control(struct port *p, const struct pkt *k) {}
static void tail_link_fail(struct port *p) {}

static const struct lfc_ops tail_ops = {
    .name = "test_tail",
    .admit = tail_admit,
    .released = tail_released_fn,
    .control = tail_control,
    .link_fail = tail_link_fail,
};
MODULE_REGISTER(lfc_kind, "test_tail", &tail_ops);

/* Four senders at line rate into one 100 Gbps port of a switch with a 400 KB buffer: PFC pauses them and drops
 * nothing; the drop-tail flow control chosen by switch.flow_control drops what does not fit, pauses nothing, and
 * every frame it admitted left the buffer (its counters, the run's drop counter and the ones it refused agree). */
static void test_toy_flow_control(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 5, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"switch\": {\"buffer\": \"400KB\", \"flow_control\": \"%s\"}, \"host\": {\"cc\": \"none\"},"
        "\"traffic\": [{\"type\": \"incast\", \"receiver\": \"h4\", \"senders\": [\"h0\", \"h1\", \"h2\", \"h3\"], "
        "\"size\": \"1MB\"}], \"stop\": \"20ms\"}";
    for (int tail = 0; tail < 2; tail++) {
        char text[1024];
        snprintf(text, sizeof text, json, tail ? "test_tail" : "pfc");
        tail_admitted = tail_released = tail_refused = tail_data = 0;
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(text, NULL, NULL, &scn, &r));
        CU_ASSERT_PTR_EQUAL(r.net.lfc, tail ? &tail_ops : &pfc_lfc_ops);
        test_run_checked(&r);
        const struct net_counters *c = &r.net.c;
        if (!tail) {
            CU_ASSERT_EQUAL(c->data_dropped, 0);
            CU_ASSERT(c->pause_frames > 0);
            CU_ASSERT_EQUAL(tail_admitted + tail_refused, 0);
        } else {
            CU_ASSERT_EQUAL(c->pause_frames, 0);
            CU_ASSERT(tail_refused > 0);
            CU_ASSERT_EQUAL(c->drop_buffer, tail_refused);
            CU_ASSERT_EQUAL(c->data_dropped, tail_refused);
            CU_ASSERT_EQUAL(tail_admitted, tail_released);
            /* Every data frame the hosts sent reached the switch and was refused there or admitted and delivered
             * (the refused ones were all data: the run's drops are). */
            CU_ASSERT(tail_admitted > tail_data); /* the ACKs travel at the data's lossless priority too */
            CU_ASSERT_EQUAL(tail_data, c->data_delivered);
            CU_ASSERT_EQUAL(tail_data + tail_refused, c->data_sent);
        }
        CU_ASSERT_TRUE(r.finished);
        test_teardown(&scn, &r);
    }
}

/* ---- A scheduler of this file: plain round robin over the eligible priorities, one frame each ---- */

static int64_t rr_both[SCN_NPRIO]; /* bytes served while priorities 1 and 2 were both eligible */

static int rr_pick(const struct sched_settings *cfg, struct sched_state *st, uint8_t eligible,
                   const uint32_t head[SCN_NPRIO], int64_t quantum_unit)
{
    for (int i = 1; i <= SCN_NPRIO; i++) {
        int p = (st->cur + i) % SCN_NPRIO;
        if ((eligible >> p) & 1) {
            st->cur = (uint8_t)p;
            if ((eligible & 0x06) == 0x06)
                rr_both[p] += head[p];
            return p;
        }
    }
    return -1;
}

static const struct sched_ops rr_ops = {.name = "test_rr", .pick = rr_pick};
MODULE_REGISTER(sched_kind, "test_rr", &rr_ops);

/* Two senders at line rate, on lossless priorities 1 and 2, into one egress: with switch.scheduler.type
 * "test_rr" both queues stay backlogged and get the same bytes to within one frame; strict priority would
 * give priority 2 all of them. */
static void test_toy_scheduler(void)
{
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        "\"switch\": {\"pfc\": {\"priorities\": [1, 2]}, \"scheduler\": {\"type\": \"test_rr\"}},"
        "\"host\": {\"cc\": \"none\"},"
        "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h2\", \"size\": \"2MB\", \"priority\": 1},"
        "{\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"2MB\", \"priority\": 2}]}";
    memset(rr_both, 0, sizeof rr_both);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    CU_ASSERT_EQUAL(sched_settings_of(&scn.sw)->type, sched_find("test_rr"));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    int frame = nic_params_of(&scn.host)->mtu + HDR_DATA;
    CU_ASSERT(rr_both[1] > 500 * (int64_t)frame); /* most of each flow was sent while both were backlogged */
    CU_ASSERT(llabs(rr_both[1] - rr_both[2]) <= frame);
    const struct flow *f1 = net_flow(&r.net, 0), *f2 = net_flow(&r.net, 1);
    /* Equal shares: the two flows end within a few frames' time of each other (80 ns a frame at 100 Gbps). */
    CU_ASSERT(llabs((long long)(f1->finish - f2->finish)) < 10 * 100 * PS_PER_NS);
    test_teardown(&scn, &r);
}

void test_modules_register(void)
{
    CU_pSuite s = CU_add_suite("modules", NULL, NULL);
    CU_add_test(s, "a congestion control without rate, sample or init, or of a taken name, is refused", test_cc_refused);
    CU_add_test(s, "a flow control or scheduler missing a hook, or of a taken name, is refused",
                test_lfc_and_sched_refused);
    CU_add_test(s, "an unknown host.cc, globally or in a profile: file, path and valid names, exit 2", test_unknown_cc);
    CU_add_test(s, "a drop-tail flow control of a test file, chosen by switch.flow_control", test_toy_flow_control);
    CU_add_test(s, "a round-robin scheduler of a test file: equal bytes within one frame", test_toy_scheduler);
}
