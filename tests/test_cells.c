/*
 * Switch buffers in cells (switch.cell_size) and the switch MTU (switch.mtu): what a frame is charged, the
 * thresholds in whole cells (ECN, PFC XOFF, headroom "auto" and fixed), `check`'s report in both units, the
 * settings' checks, and frames above a switch's MTU dropped as `mtu`.  The runs use the switch suite's shape:
 * h0 -- 100 Gbps, 1 us -- s0 -- 2.5 Gbps, 1 us -- h1, one flow h0 -> h1 at line rate (cc none).
 */
#include "tests/tests.h"
#include "models/pfc.h"
#include "models/port.h"
#include "models/switch.h"
#include "sim/units.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL_RUN(sw, host, size)                                                                                   \
    "{\"topology\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"},"                    \
    " {\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"h1\", \"kind\": \"host\"}],"                          \
    " \"links\": [{\"a\": \"h0\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"},"                      \
    "           {\"a\": \"s0\", \"b\": \"h1\", \"rate\": \"2.5Gbps\", \"delay\": \"1us\"}]},"                      \
    " \"host\": {\"cc\": \"none\"" host "}, \"stop\": \"5ms\", \"switch\": {\"buffer\": \"32MB\"" sw "}," \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"" size "\"}]}"

/* Puts a control frame of `size` bytes and priority prio into s0 from h0's side, bound for h1. */
static void inject(struct run *r, struct sw *w, struct port *in, uint32_t size, int prio)
{
    struct net *n = &r->net;
    struct pkt *k = pkt_alloc(n);
    k->type = PKT_ACK;
    k->size = size;
    k->prio = (uint8_t)prio;
    k->flow = UINT32_MAX;
    k->dst_host = n->node_host[test_node(r, "h1")]->index;
    k->hash = 0;
    switch_receive(n, w, in, k);
}

/*
 * 10 frames of 64 bytes held at a paused egress, on a lossless and on a lossy priority: with 256-byte cells
 * every counter holds 10 x 256 = 4 x their bytes, exactly; in bytes, 10 x 64.  A 257-byte frame takes 2 cells.
 * Flushing the queues releases exactly what was charged.
 */
static void held_frames(int cell, int prio, int64_t per_frame, int64_t frame_257)
{
    struct scenario scn;
    struct run r;
    char set[16];
    snprintf(set, sizeof set, "%d", cell);
    CU_ASSERT_FATAL(test_setup(CELL_RUN("", "", "1KiB"), "switch.cell_size", set, &scn, &r));
    struct sw *w = r.net.node_sw[test_node(&r, "s0")];
    struct port *in = test_port_to(&r, "s0", "h0"), *out = test_port_to(&r, "s0", "h1");
    port_block(out, prio); /* nothing leaves: every frame stays in the buffer */
    for (int i = 0; i < 10; i++)
        inject(&r, w, in, 64, prio);
    CU_ASSERT_EQUAL(w->buffered, 10 * per_frame);
    CU_ASSERT_EQUAL(w->shared_used, 10 * per_frame);
    CU_ASSERT_EQUAL(in->ing_shared[prio], 10 * per_frame);
    CU_ASSERT_EQUAL(port_pp(out, prio)->q.bytes, 10 * per_frame);
    CU_ASSERT_EQUAL(port_pp(out, prio)->q.n, 10);
    inject(&r, w, in, 257, prio);
    CU_ASSERT_EQUAL(w->buffered, 10 * per_frame + frame_257);
    CU_ASSERT_EQUAL(port_pp(out, prio)->q.bytes, 10 * per_frame + frame_257);
    char err[256];
    CU_ASSERT_EQUAL(net_check_invariants(&r.net, err, sizeof err), 0);
    switch_flush_queue(&r.net, w, out, prio, DROP_BUFFER);
    CU_ASSERT_EQUAL(w->buffered, 0);
    CU_ASSERT_EQUAL(w->shared_used, 0);
    CU_ASSERT_EQUAL(in->ing_shared[prio], 0);
    CU_ASSERT_EQUAL(port_pp(out, prio)->q.bytes, 0);
    CU_ASSERT_EQUAL(r.net.c.ctrl_dropped, 11);
    test_teardown(&scn, &r);
}

static void test_small_frames_whole_cells(void)
{
    held_frames(256, 3, 256, 512); /* lossless: PFC's admission */
    held_frames(256, 0, 256, 512); /* lossy: tail drop's */
    held_frames(0, 3, 64, 257);
    held_frames(0, 0, 64, 257);
    held_frames(208, 3, 208, 416);
}

/* The charge itself: ceil(bytes / cell) x cell, and the frame's bytes without cells. */
static void test_frame_bytes(void)
{
    struct sw w = {0};
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 257), 257);
    w.lim.cell = 256;
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 1), 256);
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 64), 256);
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 256), 256);
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 257), 512);
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 1086), 1280);
    w.lim.cell = 208;
    CU_ASSERT_EQUAL(sw_frame_bytes(&w, 1086), 1248);
}

/*
 * ECN at enqueue with kmin = kmax = 5,120 B, so that marking is certain above it and never at or below it.
 * Frames of 256 + 62 = 318 B (2 cells, 512 B, with 256-byte cells); h0 sends 400 of them at 100 Gbps, 40 per
 * departure at 2.5 Gbps, so the queue only grows while they arrive.  Frame j (from 1) finds j - 2 queued (frame 1
 * leaves at once).  In bytes: marked when (j - 2) x 318 > 5,120, from j = 19: 382 marks.  In cells: when
 * (j - 2) x 512 > 5,120, from j = 13: 388 marks, the first 6 frames earlier.
 */
static void test_ecn_earlier_in_cells(void)
{
    static const struct { const char *cell; uint64_t marked; } cases[] = {{"0", 382}, {"256", 388}};
    for (int i = 0; i < 2; i++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(CELL_RUN(", \"ecn\": {\"kmin\": \"5120B\", \"kmax\": \"5120B\", \"mark_on\": "
                                            "\"enqueue\"}", ", \"mtu\": 256", "100KiB"),
                                   "switch.cell_size", cases[i].cell, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.c.data_sent, 400);
        CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
        CU_ASSERT_EQUAL(r.net.c.ecn_marked, cases[i].marked);
        test_teardown(&scn, &r);
    }
}

/*
 * The same run with ECN marked when a frame has been sent (mark_on "sent", which holds each frame until its last bit
 * has left): with the switch-to-receiver link at no delay the network runs on the plain engine, without partitions
 * (tools/run/run.c), where holding a frame had read the partitions' cut, which is not there, and crashed.  That
 * link's delay only moves the receipts, not the queue the frames leave behind them, so the marks are the same
 * count at 1 us and at 0.
 */
static void test_ecn_sent_without_partitions(void)
{
    uint64_t marked[2];
    for (int i = 0; i < 2; i++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(CELL_RUN(", \"ecn\": {\"kmin\": \"5120B\", \"kmax\": \"5120B\", \"mark_on\": "
                                            "\"sent\"}", ", \"mtu\": 256", "100KiB"),
                                   "topology.links.1.delay", i ? "\"0us\"" : "\"1us\"", &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.c.data_sent, 400);
        CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
        CU_ASSERT_TRUE(r.finished);
        marked[i] = r.net.c.ecn_marked;
        test_teardown(&scn, &r);
    }
    CU_ASSERT(marked[0] > 0);
    CU_ASSERT_EQUAL(marked[1], marked[0]);
}

/*
 * Static XOFF 10,860 B, the switch suite's run: in bytes, 10 frames of 1,086 B, so PAUSE when the 11th arrives
 * (the first left at once).  In 256-byte cells xoff is ceil(10,860 / 256) = 43 cells and each frame 5 cells
 * (1,280 B): 9 frames reach 11,520 >= 11,008, PAUSE when the 10th arrives, 88,480 ps (one frame) earlier.
 */
static sim_time_t first_pause_at;
static void on_pfc(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    if (pause && !first_pause_at)
        first_pause_at = t;
}
static const struct run_observer_ops pfc_ops = {.name = "first pause", .on_pfc = on_pfc};

static void test_xoff_in_cells(void)
{
    static const struct { const char *cell; sim_time_t at; int64_t xoff; } cases[] = {
        {"0", 11 * 88480 + PS_PER_US, 10860}, {"256", 10 * 88480 + PS_PER_US, 11008}};
    for (int i = 0; i < 2; i++) {
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(CELL_RUN(", \"ecn\": {\"enabled\": false}, \"pfc\": {\"xoff\": \"10860B\", "
                                            "\"xon_delta\": \"3258B\"}", "", "100KiB"),
                                   "switch.cell_size", cases[i].cell, &scn, &r));
        const struct sw *w = r.net.node_sw[test_node(&r, "s0")];
        const struct port_cfg *pc = &r.net.pcfg[w->ports[0].cfg];
        CU_ASSERT_EQUAL(pfc_xoff_threshold(w, pc), cases[i].xoff);
        CU_ASSERT_EQUAL(pc->xon_delta, i ? 13 * 256 : 3258);
        first_pause_at = 0;
        run_observe(&r, &pfc_ops, &first_pause_at);
        test_run_checked(&r);
        run_unobserve(&r, &first_pause_at);
        CU_ASSERT_EQUAL(first_pause_at, cases[i].at);
        CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
        CU_ASSERT_TRUE(r.finished);
        test_teardown(&scn, &r);
    }
}

/*
 * Headroom "auto" at 100 Gbps, 1 us is 49 frames of 1,086 B (53,214 B); in 256-byte cells each frame takes 5
 * cells: 245 cells, 62,720 B.  A fixed 50,000 B is ceil(50,000 / 256) = 196 cells, 50,176 B.  The reservation
 * adds them up over the ports (one lossless priority).
 */
static void test_headroom_in_cells(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(CELL_RUN("", "", "1KiB"), "switch.cell_size", "256", &scn, &r));
    const struct port *fast = test_port_to(&r, "s0", "h0"), *slow = test_port_to(&r, "s0", "h1");
    CU_ASSERT_EQUAL(pfc_headroom(100000000000LL, PS_PER_US, 1086, 1086, 394), 49 * 1086);
    CU_ASSERT_EQUAL(port_aux(fast)->headroom, 245 * 256);
    int64_t slow_frames = pfc_headroom(2500000000LL, PS_PER_US, 1086, 1086, 394) / 1086;
    CU_ASSERT_EQUAL(port_aux(slow)->headroom, slow_frames * 5 * 256);
    CU_ASSERT_EQUAL(r.net.node_sw[test_node(&r, "s0")]->hdrm_reserved, (245 + slow_frames * 5) * 256);
    test_teardown(&scn, &r);

    CU_ASSERT_FATAL(test_setup(CELL_RUN(", \"cell_size\": 256", "", "1KiB"), "switch.pfc.headroom", "50000B", &scn,
                               &r));
    CU_ASSERT_EQUAL(port_aux(test_port_to(&r, "s0", "h0"))->headroom, 196 * 256);
    CU_ASSERT_EQUAL(r.net.node_sw[test_node(&r, "s0")]->hdrm_reserved, 2 * 196 * 256);
    test_teardown(&scn, &r);
}

/*
 * host.mtu 1024 makes data frames of 1,086 B.  A switch MTU of 1,086 forwards them; 1,085 drops every one on
 * arrival as `mtu` and nothing else: the flow retransmits after each timeout until the stop time, which ends
 * the run.  ACKs (66 B) are not affected.
 */
static void test_mtu_drop(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(CELL_RUN("", "", "10KiB"), "switch.mtu", "1086", &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT_EQUAL(r.net.c.drop_mtu, 0);
    test_teardown(&scn, &r);

    CU_ASSERT_FATAL(test_setup(CELL_RUN("", "", "10KiB"), "switch.mtu", "1085", &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    CU_ASSERT_FALSE(r.finished);
    CU_ASSERT_EQUAL(r.sim.now, scn.stop_ps);
    CU_ASSERT_TRUE(c->data_sent > 10);
    CU_ASSERT_EQUAL(c->drop_mtu, c->data_dropped);
    CU_ASSERT_EQUAL(c->data_dropped + c->data_in_flight, c->data_sent); /* the last retransmission may be on its way */
    CU_ASSERT_EQUAL(c->data_delivered, 0);
    CU_ASSERT_EQUAL(c->drop_buffer + c->drop_headroom + c->drop_watchdog + c->drop_link_down + c->drop_corrupt, 0);
    CU_ASSERT_TRUE(c->timeouts > 0);
    CU_ASSERT_TRUE(c->data_retx > 0);
    CU_ASSERT_EQUAL(c->ctrl_dropped, 0);
    char *text = test_run_text(&r);
    CU_ASSERT_PTR_NOT_NULL(text);
    char want[64];
    snprintf(want, sizeof want, "\"mtu\":\t%llu", (unsigned long long)c->drop_mtu);
    CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, want) : NULL);
    free(text);
    test_teardown(&scn, &r);
}

/* Values the two settings refuse, with the loader's one-line message. */
static void test_settings_refused(void)
{
    static const struct { const char *path, *value, *msg; } bad[] = {
        {"switch.cell_size", "32", "test.json: switch.cell_size (from --set): expected 0 (bytes) or a cell of 64 to 4096 bytes, "
                                   "got 32"},
        {"switch.cell_size", "8192", "test.json: switch.cell_size (from --set): expected an integer from 0 to 4096, got 8192"},
        {"switch.mtu", "63", "test.json: switch.mtu (from --set): expected 0 (no limit) or a frame size of 64 to 65535 bytes, "
                             "got 63"},
        {"switch.mtu", "-1", "test.json: switch.mtu (from --set): expected an integer from 0 to 65535, got -1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct scenario scn;
        char err[SCN_ERR_MAX];
        struct scn_override ov = {bad[i].path, bad[i].value};
        CU_ASSERT_EQUAL(scn_load_text("test.json", CELL_RUN("", "", "1KiB"), &ov, 1, &scn, err, sizeof err),
                        SCN_EUSAGE);
        if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
            fprintf(stderr, "\n  got: %s\n", err);
        CU_ASSERT_EQUAL(strncmp(err, bad[i].msg, strlen(bad[i].msg)), 0);
    }
}

/* `check` reports the thresholds in both units, and its output loads back as the same scenario. */
static void test_check_shows_cells(void)
{
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check scenarios/incast-16to1.json --set switch.cell_size=256 "
             "--set switch.pfc.xoff=10KB 2>&1", test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &out), 0);
    cJSON *j = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "derived"), "cells");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(cells, "cell_size")->valuedouble, 256);
    const cJSON *xoff = cJSON_GetObjectItemCaseSensitive(cells, "xoff");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(xoff, "set")->valuestring, "10KB");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(xoff, "cells")->valuedouble, 40);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(xoff, "compared_as")->valuestring, "10KiB");
    const cJSON *kmax = cJSON_GetObjectItemCaseSensitive(cells, "kmax");
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(kmax, "cells")->valuedouble, 782);
    const cJSON *cls = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                                              cJSON_GetObjectItemCaseSensitive(j, "derived"), "pfc_headroom"), 0);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(cls, "headroom_cells_per_priority")->valuedouble, 245);
    cJSON_Delete(j);
    /* without cells, no such part */
    struct scenario scn;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL_FATAL(scn_load_text("check.json", out, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(switch_params_of(&scn.sw)->cell_size, 256);
    CU_ASSERT_EQUAL(pfc_settings_of(&scn.sw)->xoff_bytes, 10000);
    scn_free(&scn);
    free(out);
    snprintf(cmd, sizeof cmd, "%s check scenarios/incast-16to1.json 2>&1", test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "\"cells\""));
    CU_ASSERT_PTR_NULL(strstr(out, "headroom_cells_per_priority"));
    free(out);
}

void test_cells_register(void)
{
    CU_pSuite s = CU_add_suite("cells and switch mtu", NULL, NULL);
    CU_add_test(s, "with 256-byte cells, 64-byte frames count 4x their bytes; 257 bytes take 2 cells",
                test_small_frames_whole_cells);
    CU_add_test(s, "a frame is charged ceil(bytes / cell) cells", test_frame_bytes);
    CU_add_test(s, "ECN marks earlier in cells when frames are small", test_ecn_earlier_in_cells);
    CU_add_test(s, "ECN marked when sent on the plain engine (a link of no delay): the marks of 1 us",
                test_ecn_sent_without_partitions);
    CU_add_test(s, "a static XOFF compares whole cells", test_xoff_in_cells);
    CU_add_test(s, "headroom auto and fixed in whole cells", test_headroom_in_cells);
    CU_add_test(s, "frames above the switch MTU are dropped as mtu, and only they", test_mtu_drop);
    CU_add_test(s, "cell_size and mtu refuse what means nothing", test_settings_refused);
    CU_add_test(s, "check shows thresholds in bytes and in cells", test_check_shows_cells);
}
