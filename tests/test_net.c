/*
 * Whole runs of the packet path: ideal FCT, DCQCN fair share, PFC incast with
 * and without PFC, headroom misconfiguration, conservation, determinism.
 */
#include "tests/tests.h"
#include "models/mech.h"
#include "models/pfc.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The mechanisms register as modules (models/mech.h): one whose object the linker left out of the program would
 * be silently missing (the watchdog was, until the library was linked whole).  These are today's, in mech.h's
 * order; a new one need not be added here.
 */
static void test_mechanisms_linked(void)
{
    static const char *const want[] = {"port",      "nic",      "fold",  "exchange", "notes",
                                       "telemetry", "deadlock", "pfcwd", "faults", "flows"};
    unsigned n = net_mechs_count(), k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            CU_ASSERT(net_mech_at(i - 1)->order < net_mech_at(i)->order);
        if (k < sizeof want / sizeof *want && strcmp(net_mech_at(i)->name, want[k]) == 0)
            k++;
    }
    if (k < sizeof want / sizeof *want)
        printf("\n    mechanism \"%s\" missing or out of order ", want[k]);
    CU_ASSERT_EQUAL(k, sizeof want / sizeof *want);
}

static void mech_nop(struct net *n) { (void)n; }

/* The table's order is part of the results, so a second mechanism of an order already taken, or one without a
 * hook, is refused rather than placed by the order modules happen to register in. */
static void test_mechanism_refused(void)
{
    static const struct net_mech_ops same_order = {.name = "same-order", .order = 60, .free = mech_nop};
    static const struct net_mech_ops no_hook = {.name = "no-hook", .order = 61};
    static const struct module a = {.kind = &mech_kind, .name = "same-order", .ops = &same_order};
    static const struct module b = {.kind = &mech_kind, .name = "no-hook", .ops = &no_hook};
    char err[256];
    unsigned n = net_mechs_count();
    CU_ASSERT_EQUAL(module_register(&a, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "an order number of its own"));
    CU_ASSERT_EQUAL(module_register(&b, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "lacks a hook"));
    CU_ASSERT_EQUAL(net_mechs_count(), n);
}

static void test_single_flow_ideal(void)
{
    /* 10 MB over two 100G links (1 us each): nothing else in the network. */
    const char *json = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
                       "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10MB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_FATAL(f->finish > 0);
    double slowdown = (double)(f->finish - f->start) / (double)f->ideal_fct;
    CU_ASSERT(slowdown >= 1.0 && slowdown < 1.01);
    /* The ideal itself, from first principles: 9766 frames (9765 x 1024 B + 1 x 640 B payload),
     * 82 B of overhead each; first frame 1106 B crosses 2 links, the other 9765 frames
     * (9764 x 1106 + 722 B) follow at 80 ps/B. */
    sim_time_t first = 2 * (1106 * 80 + PS_PER_US);
    sim_time_t rest = (sim_time_t)(9764 * 1106 + 722) * 80;
    CU_ASSERT_EQUAL(f->ideal_fct, first + rest);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 0);
    CU_ASSERT_TRUE(r.finished);
    test_teardown(&scn, &r);
}

static void test_dcqcn_two_flows_fair(void)
{
    /* Two long flows into one 40 Gbps port: each should get 20 Gbps over the second half. */
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": {\"rate\": \"40Gbps\", \"delay\": \"1us\"}},"
        "\"stop\": \"30ms\","
        "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h2\", \"size\": \"1GB\"},"
        "              {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"1GB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    sim_time_t half = scn.stop_ps / 2;
    sim_run(&r.sim, half);
    uint32_t p0 = net_flow(&r.net, 0)->rcv_nxt, p1 = net_flow(&r.net, 1)->rcv_nxt;
    sim_run(&r.sim, scn.stop_ps);
    uint32_t d0 = net_flow(&r.net, 0)->rcv_nxt - p0, d1 = net_flow(&r.net, 1)->rcv_nxt - p1;
    double secs = (double)(scn.stop_ps - half) / 1e12;
    double g0 = d0 * 1024 * 8 / secs / 1e9, g1 = d1 * 1024 * 8 / secs / 1e9;
    printf("\n    goodput over the second half: %.2f and %.2f Gbps; CNPs %llu ", g0, g1,
           (unsigned long long)r.net.c.cnp_received);
    /* 20 Gbps of wire rate is 20 x 1024/1106 = 18.5 Gbps of payload */
    double fair = 20.0 * 1024 / 1106;
    CU_ASSERT(g0 > fair * 0.9 && g0 < fair * 1.1);
    CU_ASSERT(g1 > fair * 0.9 && g1 < fair * 1.1);
    CU_ASSERT(r.net.c.cnp_received > 0);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    test_teardown(&scn, &r);
}

/* 16 MB into one port of a switch with 4 MB of buffer: the buffer cannot absorb it. */
#define INCAST(extra)                                                                                      \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 17, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}," \
    "\"stop\": \"100ms\", \"switch\": {\"buffer\": \"4MB\"}, " extra                                                                          \
    "\"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h15\", \"receiver\": \"h16\", \"size\": \"1MB\"}]}"

static void test_incast_pfc_lossless(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST("\"host\": {\"cc\": \"none\"},"), NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(r.net.c.pause_frames > 0);
    CU_ASSERT(r.net.c.resume_frames > 0);
    CU_ASSERT_EQUAL(r.net.c.data_retx, 0);
    /* The receiver's port ran at line rate: the last flow ends near 16 MB at 100 Gbps. */
    double ideal_ns = 16.0 * 1e6 * 1106 / 1024 * 8 / 100;
    CU_ASSERT(r.sim.now / 1000.0 < ideal_ns * 1.05);
    test_teardown(&scn, &r);
}

static void test_incast_no_pfc_drops(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST("\"host\": {\"cc\": \"none\"},"), "switch.pfc.enabled", "false", &scn, &r));
    test_run_checked(&r);
    printf("\n    no PFC: %llu drops, %llu retransmissions, %llu timeouts, done at %.3f ms ",
           (unsigned long long)r.net.c.data_dropped, (unsigned long long)r.net.c.data_retx,
           (unsigned long long)r.net.c.timeouts, r.sim.now / 1e9);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    CU_ASSERT(r.net.c.data_dropped > 0);
    CU_ASSERT(r.net.c.data_retx > 0);
    CU_ASSERT_EQUAL(r.net.c.pause_frames, 0);
    CU_ASSERT_EQUAL(r.net.c.data_sent, r.net.c.data_delivered + r.net.c.data_dropped);
    test_teardown(&scn, &r);
}

static void test_headroom_too_small(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST("\"host\": {\"cc\": \"none\"},"), "switch.pfc.headroom", "\"2KB\"", &scn, &r));
    test_run_checked(&r);
    CU_ASSERT(r.net.c.drop_headroom > 0);
    CU_ASSERT_EQUAL(r.net.c.drop_buffer, 0);
    char *js = run_summary_json(&r, false);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"headroom\":"));
    char needle[64];
    snprintf(needle, sizeof needle, "\"headroom\":\t%llu", (unsigned long long)r.net.c.drop_headroom);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, needle));
    free(js);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    test_teardown(&scn, &r);
}

static void test_stop_midway_conservation(void)
{
    /* Stopped while packets are in flight: sent = delivered + dropped + in flight. */
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST("\"host\": {\"cc\": \"none\"},"), "switch.pfc.enabled", "false", &scn, &r));
    scn.stop_ps = 300 * PS_PER_US;
    test_run_checked(&r);
    CU_ASSERT_FALSE(r.finished);
    CU_ASSERT(r.net.c.data_in_flight > 0);
    /* Frames wait in queues now; the invariant check notices a queue mask that forgets one. */
    struct port *busy = NULL;
    for (uint32_t i = 0; i < r.g.n_ports && !busy; i++)
        if (r.net.ports[i].qmask)
            busy = &r.net.ports[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(busy);
    char err[256];
    uint16_t saved = busy->qmask;
    busy->qmask = 0;
    CU_ASSERT_EQUAL(net_check_invariants(&r.net, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "queue mask"));
    busy->qmask = saved;
    CU_ASSERT_EQUAL(net_check_invariants(&r.net, err, sizeof err), 0);
    test_teardown(&scn, &r);
}

static void test_static_xoff_and_enqueue_marking(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST("\"host\": {\"cc\": \"none\"},"), "switch",
                               "{\"buffer\": \"4MB\", \"ecn\": {\"mark_on\": \"enqueue\"}, \"pfc\": {\"xoff\": \"100KB\"}}",
                               &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_EQUAL(pfc_settings_of(&scn.sw)->xoff_mode, PFC_XOFF_STATIC);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(r.net.c.pause_frames > 16);
    CU_ASSERT(r.net.c.ecn_marked > 0);
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    test_teardown(&scn, &r);
}

static void test_pause_refresh(void)
{
    /*
     * 100G into a 1G link: the switch pauses h0 and resumes only after 200 KB have
     * drained at 1 Gbps (1.6 ms), longer than one PAUSE lasts at 100G (65535 quanta =
     * 335.5 us).  The switch must refresh its PAUSE every 167.8 us; the sender must
     * never resume early (no headroom drop).
     */
    const char *json =
        "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"
        " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}],"
        " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"
        "           {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"1Gbps\", \"delay\": \"1us\"}]},"
        " \"host\": {\"cc\": \"none\"}, \"stop\": \"200ms\","
        " \"switch\": {\"pfc\": {\"xoff\": \"300KB\", \"xon_delta\": \"200KB\"}},"
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"5MB\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    printf("\n    %llu PAUSE, %llu RESUME ", (unsigned long long)r.net.c.pause_frames,
           (unsigned long long)r.net.c.resume_frames);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    /* each pause interval lasts about 1.6 ms: about 9 refreshes per RESUME */
    CU_ASSERT(r.net.c.pause_frames >= 8 * r.net.c.resume_frames);
    CU_ASSERT(r.net.c.resume_frames >= 10);
    CU_ASSERT_TRUE(r.finished);
    test_teardown(&scn, &r);
}

/*
 * Runs scenario text with a seed; returns flows.csv and summary (no wall clock) concatenated.  prefetch
 * false unregisters the prefetch hooks; *hooked (when not NULL) tells whether all of net's hooks were registered.
 * stream true links every frame on a wire with streaming stores (port.c), as in fabrics past
 * NET_STREAM_MIN_FRAMES frames in flight.
 */
static char *outputs_ex(const char *json, const char *seed, bool prefetch, bool *hooked, bool stream)
{
    struct scenario scn;
    struct run r;
    if (!test_setup(json, "seed", seed, &scn, &r))
        return NULL;
    if (hooked)
        *hooked = r.sim.n_pf == 3; /* frame arrivals, transmitter wake-ups and pacing timers */
    if (!prefetch)
        sim_clear_prefetch(&r.sim);
    if (stream)
        r.net.stream_min_frames = 0;
    CU_ASSERT_EQUAL(run_execute(&r), 0);
    char *out = test_run_text(&r);
    test_teardown(&scn, &r);
    return out;
}

static char *outputs(const char *json, const char *seed) { return outputs_ex(json, seed, true, NULL, false); }

static void test_prefetch_changes_nothing(void)
{
    /* A fabric large enough for the prefetch hooks (6,144 ports), with PFC frames among the arrivals and
     * queues behind an incast: the same bytes with the hooks and without them. */
    const char *json =
        "{\"topology\": {\"type\": \"fat-tree\", \"k\": 16, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"switch\": {\"buffer\": \"2MB\"}, \"stop\": \"60us\","
        " \"traffic\": [{\"type\": \"poisson\", \"hosts\": \"all\", \"load\": 0.5, \"size_cdf\": \"websearch\"},"
        "              {\"type\": \"incast\", \"senders\": \"h0-h47\", \"receiver\": \"h1000\", \"size\": \"64KB\"}]}";
    bool hooked = false, unhooked = true;
    char *a = outputs_ex(json, "1", true, &hooked, false), *b = outputs_ex(json, "1", false, &unhooked, false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_TRUE(hooked);
    CU_ASSERT_STRING_EQUAL(a, b);
    /* nor do the streaming stores that link frames on a wire in the largest fabrics */
    char *st = outputs_ex(json, "1", true, NULL, true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_STRING_EQUAL(a, st);
    free(st);
    /* the run did exercise PAUSE arrivals */
    const char *pf = strstr(a, "\"pause_frames\":");
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    double pauses = strtod(pf + strlen("\"pause_frames\":"), NULL);
    printf("\n    %.0f PAUSE frames; %zu bytes of outputs identical ", pauses, strlen(a));
    CU_ASSERT(pauses > 0);
    free(a);
    free(b);
    /* A small fabric does without the hook (it would only add instructions). */
    bool small = true;
    char *c = outputs_ex(INCAST(""), "1", true, &small, false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_FALSE(small);
    free(c);
}

static void test_determinism(void)
{
    /* DCQCN incast: ECN marking between kmin and kmax draws from the switch's seeded stream. */
    const char *json = INCAST("");
    char *a = outputs(json, "1"), *b = outputs(json, "1"), *c = outputs(json, "2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT(strcmp(a, c) != 0);
    free(a);
    free(b);
    free(c);
}

void test_net_register(void)
{
    CU_pSuite s = CU_add_suite("packet path (whole runs)", NULL, NULL);
    CU_add_test(s, "every mechanism's hooks are linked, in their order", test_mechanisms_linked);
    CU_add_test(s, "a mechanism without a hook or with a taken order is refused", test_mechanism_refused);
    CU_add_test(s, "one flow on an idle path finishes at its ideal FCT", test_single_flow_ideal);
    CU_add_test(s, "DCQCN: two flows into 40G converge to 20G each", test_dcqcn_two_flows_fair);
    CU_add_test(s, "16-to-1 incast with PFC, cc none: lossless", test_incast_pfc_lossless);
    CU_add_test(s, "16-to-1 incast without PFC: drops and recovery", test_incast_no_pfc_drops);
    CU_add_test(s, "headroom below auto: headroom drops reported", test_headroom_too_small);
    CU_add_test(s, "conservation when stopped mid-run", test_stop_midway_conservation);
    CU_add_test(s, "static XOFF is lossless; ECN marks at enqueue", test_static_xoff_and_enqueue_marking);
    CU_add_test(s, "PAUSE is refreshed while congestion lasts", test_pause_refresh);
    CU_add_test(s, "same seed, same bytes; other seed, other result", test_determinism);
    CU_add_test(s, "prefetching and streaming stores change no byte of the results", test_prefetch_changes_nothing);
}
