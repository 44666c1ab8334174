/*
 * Whole runs of the PFC pathologies (issue 7): a pause storm spreading
 * through a fat-tree, the PFC watchdog (drop, forward, alert), a ring
 * deadlock and its detector, a slow receiver, a victim of congestion
 * spreading, the exact paused_ns accounting, and --fail-on-deadlock through
 * the real binary.  The shipped scenarios are the test inputs, so what their
 * descriptions promise is what is checked.
 */
#include "models/deadlock.h"
#include "models/fault.h"
#include "models/lfc.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "sim/units.h"
#include "tests/tests.h"
#include "tools/run/monitor.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One PFC frame or watchdog event, as the hooks saw it. */
struct ev {
    sim_time_t t;
    uint32_t node, port;
    int prio;
    bool on; /* pause / storm */
};

struct log {
    struct ev *pfc, *wd;
    size_t n_pfc, n_wd, cap_pfc, cap_wd;
};

static void push(struct ev **a, size_t *n, size_t *cap, struct ev e)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        *a = realloc(*a, sizeof **a * *cap);
        if (!*a)
            abort();
    }
    (*a)[(*n)++] = e;
}

static void on_pfc(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool pause)
{
    struct log *l = ctx;
    push(&l->pfc, &l->n_pfc, &l->cap_pfc, (struct ev){t, node, port, prio, pause});
}

static void on_wd(void *ctx, sim_time_t t, uint32_t node, uint32_t port, int prio, bool storm)
{
    struct log *l = ctx;
    push(&l->wd, &l->n_wd, &l->cap_wd, (struct ev){t, node, port, prio, storm});
}

static void log_free(struct log *l)
{
    free(l->pfc);
    free(l->wd);
    memset(l, 0, sizeof *l);
}

/* Loads a scenario file or text (text != NULL) with up to two overrides, builds the run and hooks the log in. */
static bool setup(const char *file, const char *text, const struct scn_override *ov, int n_ov, struct scenario *scn,
                  struct run *r, struct log *l)
{
    if (!test_setup_from(file, text, ov, n_ov, scn, r))
        return false;
    memset(l, 0, sizeof *l);
    static const struct run_observer_ops log_ops = {.name = "log", .on_pfc = on_pfc, .on_watchdog = on_wd};
    run_observe(r, &log_ops, l);
    return true;
}

static void teardown(struct scenario *scn, struct run *r, struct log *l)
{
    run_free(r);
    scn_free(scn);
    log_free(l);
}

static const char *node_name(const struct run *r, uint32_t node) { return r->g.nodes[node].name; }

/* Half the pause time of a PAUSE with the scenario's quanta on a link of this rate: the refresh period. */
static sim_time_t refresh_ps(const struct scenario *scn, int64_t rate_bps)
{
    int64_t quanta = pfc_settings_of(&scn->sw)->pause_quanta;
    return (sim_time_t)(((__int128)quanta * PAUSE_QUANTUM_BITS * 1000000000000LL) / rate_bps / 2);
}

#define STORM_FILE "scenarios/pfc-storm.json"
#define STORM_START (100 * PS_PER_US)
#define STORM_END (1100 * PS_PER_US)

static void test_storm_spreads(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup(STORM_FILE, NULL, NULL, 0, &scn, &r, &l));
    /* every fault's fields begin with its span (models/fault.h) */
    const struct fault_span *storm = scn.faults[0].conf;
    CU_ASSERT_EQUAL_FATAL(storm->start_ps, STORM_START);
    CU_ASSERT_EQUAL_FATAL(storm->end_ps, STORM_END);
    struct port *down = test_port_to(&r, "tor0", "h0"), *h0 = test_port_to(&r, "h0", "tor0");

    /* Once h0's first PAUSE has landed, tor0's port to h0 sends nothing until the storm ends. */
    sim_run(&r.sim, STORM_START + 2 * PS_PER_US);
    CU_ASSERT_TRUE(down->paused & (1u << 3));
    uint64_t tx = down->tx_frames;
    sim_run(&r.sim, STORM_END - 1);
    CU_ASSERT_TRUE(down->paused & (1u << 3));
    CU_ASSERT_EQUAL(down->tx_frames, tx);
    CU_ASSERT(port_pp(down, 3)->q.n > 0); /* it is not idle: frames wait */
    /* ... so nothing that goes through it finishes while the storm lasts: neither the flows to h0 nor the
     * flow to h1, which never goes to h0 but comes down the paused agg -> tor0 links. */
    static const char *const stalled[] = {"to-h0-a", "to-h0-b", "to-h0-c", "cross"};
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(test_flow_named(&r, stalled[i])->finish, -1);

    /* The storm itself: PAUSE from h0 at the start, refreshed every half pause time, RESUME at the end. */
    sim_time_t period = refresh_ps(&scn, port_aux(h0)->rate_bps);
    size_t from_h0 = 0;
    for (size_t i = 0; i < l.n_pfc; i++)
        if (l.pfc[i].node == h0->node) {
            CU_ASSERT_TRUE(l.pfc[i].on);
            CU_ASSERT_EQUAL(l.pfc[i].t, STORM_START + (sim_time_t)from_h0 * period);
            from_h0++;
        }
    CU_ASSERT_EQUAL(from_h0, (size_t)((STORM_END - 1 - STORM_START) / period) + 1);

    /* It spread up and out: PAUSEs sent by aggregation and core switches, two and three hops from h0. */
    size_t by_agg = 0, by_core = 0;
    for (size_t i = 0; i < l.n_pfc; i++) {
        const char *nm = node_name(&r, l.pfc[i].node);
        if (l.pfc[i].on && l.pfc[i].t > STORM_START) {
            by_agg += strncmp(nm, "agg", 3) == 0;
            by_core += strncmp(nm, "core", 4) == 0;
        }
    }
    CU_ASSERT(by_agg > 0);
    CU_ASSERT(by_core > 0);

    /* After the storm everything completes, without a loss. */
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT_TRUE(l.pfc[l.n_pfc - 1].t >= STORM_END);
    bool resumed = false;
    for (size_t i = 0; i < l.n_pfc; i++)
        resumed |= l.pfc[i].node == h0->node && !l.pfc[i].on && l.pfc[i].t == STORM_END;
    CU_ASSERT_TRUE(resumed);
    CU_ASSERT(test_flow_named(&r, "cross")->paused_ns > 0);
    CU_ASSERT_EQUAL(test_flow_named(&r, "other-a")->paused_ns, 0);
    CU_ASSERT_PTR_NULL(r.net.wd); /* no watchdog unless enabled */
    CU_ASSERT_FALSE(r.net.dl.detected);
    teardown(&scn, &r, &l);
}

#define WD(action) "{\"enabled\": true, \"detection_time\": \"200us\", \"restoration_time\": \"200us\", " \
                   "\"poll_interval\": \"10us\", \"action\": \"" action "\"}"
#define DET (200 * PS_PER_US)
#define RES (200 * PS_PER_US)
#define POLL (10 * PS_PER_US)

static void test_storm_watchdog_drop(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    struct scn_override ov = {"switch.watchdog", WD("drop")};
    CU_ASSERT_FATAL(setup(STORM_FILE, NULL, &ov, 1, &scn, &r, &l));
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.net.wd);
    struct port *down = test_port_to(&r, "tor0", "h0");

    /* In the middle of the storm the stormed queue ignores h0's PAUSEs and drops what comes for h0. */
    sim_run(&r.sim, (STORM_START + STORM_END) / 2);
    CU_ASSERT_TRUE(down->wd_drop & (1u << 3));
    CU_ASSERT_FALSE(down->paused & (1u << 3));
    CU_ASSERT_EQUAL(port_pp(down, 3)->q.n, 0);
    test_run_checked(&r);

    /* Detected within detection_time + one poll of the storm's start (and not before detection_time). */
    CU_ASSERT_FATAL(l.n_wd >= 2);
    CU_ASSERT_EQUAL(l.wd[0].node, down->node);
    CU_ASSERT_EQUAL(l.wd[0].port, down->local);
    CU_ASSERT_EQUAL(l.wd[0].prio, 3);
    CU_ASSERT_TRUE(l.wd[0].on);
    CU_ASSERT(l.wd[0].t >= STORM_START + DET && l.wd[0].t <= STORM_START + DET + POLL);
    printf("\n    storm detected %.0f us after it began, ", (double)(l.wd[0].t - STORM_START) / PS_PER_US);
    /* Restored restoration_time after the storm's last PFC frame (its RESUME at the end), within a poll. */
    bool restored = false;
    for (size_t i = 1; i < l.n_wd; i++)
        if (l.wd[i].node == down->node && l.wd[i].port == down->local && !l.wd[i].on) {
            restored = true;
            CU_ASSERT(l.wd[i].t >= STORM_END + RES && l.wd[i].t <= STORM_END + RES + POLL);
            printf("restored %.0f us after it ended ", (double)(l.wd[i].t - STORM_END) / PS_PER_US);
        }
    CU_ASSERT_TRUE(restored);
    /* Only the storming host's queue was declared: the finer poll sees tor0:0 stall first and its drops
     * release the upstream before the congestion there lasts a detection_time. */
    CU_ASSERT_EQUAL(r.net.wd->storms, 1);
    CU_ASSERT_EQUAL(r.net.wd->restored, 1);
    CU_ASSERT(r.net.c.drop_watchdog > 0);
    CU_ASSERT_EQUAL(r.net.c.drop_watchdog, r.net.c.data_dropped);
    /* The human summary names the watchdog as the reason of every drop, and no reason that dropped nothing. */
    char *txt = NULL;
    size_t tlen = 0;
    FILE *mf = open_memstream(&txt, &tlen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
    run_print_summary(&r, mf, NULL, NULL);
    fclose(mf);
    char want[128];
    snprintf(want, sizeof want, " %llu dropped (%llu watchdog), ", (unsigned long long)r.net.c.data_dropped,
             (unsigned long long)r.net.c.drop_watchdog);
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, want));
    CU_ASSERT_PTR_NULL(strstr(txt, "headroom"));
    free(txt);

    /* The rest of the traffic completes during the storm; the flows to h0 recover after the restoration. */
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, r.net.n_flows);
    const struct flow *cross = test_flow_named(&r, "cross");
    CU_ASSERT(cross->finish > 0 && cross->finish < STORM_END);
    CU_ASSERT(test_flow_named(&r, "to-h0-a")->finish > STORM_END + RES);
    teardown(&scn, &r, &l);
}

static void test_storm_watchdog_forward_alert(void)
{
    /* forward: PAUSE ignored, frames still go to h0 (whose NIC receives fine): all done during the storm, no drops. */
    struct scenario scn;
    struct run r;
    struct log l;
    struct scn_override ov = {"switch.watchdog", WD("forward")};
    CU_ASSERT_FATAL(setup(STORM_FILE, NULL, &ov, 1, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(r.net.wd->storms >= 1);
    CU_ASSERT(l.n_wd >= 1 && l.wd[0].t <= STORM_START + DET + POLL);
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        CU_ASSERT(net_flow(&r.net, i)->finish > 0 && net_flow(&r.net, i)->finish < STORM_END);
    teardown(&scn, &r, &l);

    /* alert: reported, nothing else changes: the flows to h0 wait for the end of the storm as without it. */
    ov.value = WD("alert");
    CU_ASSERT_FATAL(setup(STORM_FILE, NULL, &ov, 1, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(l.n_wd >= 1 && l.wd[0].t <= STORM_START + DET + POLL);
    /* Pauses obeyed, so the storm spreads and upstream queues get reported too; the run may end before
     * the last of them has gone restoration_time without a PFC frame. */
    CU_ASSERT(r.net.wd->storms >= r.net.wd->restored);
    CU_ASSERT(test_flow_named(&r, "to-h0-a")->finish > STORM_END);
    CU_ASSERT(test_flow_named(&r, "cross")->finish > STORM_END);
    teardown(&scn, &r, &l);
}

#define RING_FILE "scenarios/deadlock-ring.json"

static void test_ring_deadlock(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup(RING_FILE, NULL, NULL, 0, &scn, &r, &l));
    test_run_checked(&r);
    const struct deadlock *dl = &r.net.dl;
    CU_ASSERT_TRUE_FATAL(dl->detected);
    CU_ASSERT_FALSE(r.finished);
    CU_ASSERT_EQUAL(r.sim.now, dl->at); /* the run stopped there */
    CU_ASSERT_EQUAL(dl->prio, 3);
    /* Exactly the four ring ports, clockwise, each paused by the next switch, from the lowest port id. */
    const struct port *ring[4] = {test_port_to(&r, "s0", "s1"), test_port_to(&r, "s1", "s2"), test_port_to(&r, "s2", "s3"),
                                  test_port_to(&r, "s3", "s0")};
    CU_ASSERT_EQUAL_FATAL(dl->cycle_len, 4);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(dl->cycle[i], port_id(ring[i]));
    /*
     * Every port of the cycle is stalled: paused without a break for a whole check period, frames queued.
     * When its pause began: the peer's last PAUSE that followed a RESUME (pfc.csv rows are by sender),
     * plus the PAUSE's trip.
     */
    sim_time_t formed = 0;
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_TRUE(ring[i]->paused & (1u << 3));
        CU_ASSERT(port_pp(ring[i], 3)->q.n > 0);
        const struct port *peer = ring[i]->peer;
        sim_time_t began = -1;
        bool on = false;
        for (size_t k = 0; k < l.n_pfc; k++)
            if (l.pfc[k].node == peer->node && l.pfc[k].port == peer->local && l.pfc[k].prio == 3) {
                if (l.pfc[k].on && !on)
                    began = l.pfc[k].t;
                on = l.pfc[k].on;
            }
        CU_ASSERT_TRUE_FATAL(on);
        began += (FRAME_PAUSE + WIRE_OVERHEAD) * 80 + ring[i]->delay_ps;
        CU_ASSERT(began <= dl->at - dl->period);
        if (began > formed)
            formed = began;
    }
    /* Found within two check periods and a PAUSE refresh of forming (deadlock.h). */
    CU_ASSERT(dl->at - formed <= 2 * dl->period + refresh_ps(&scn, port_aux(ring[0])->rate_bps));
    printf("\n    deadlock formed at %.1f us, detected at %.1f us ", (double)formed / PS_PER_US,
           (double)dl->at / PS_PER_US);
    /* summary.json names the cycle. */
    char *js = run_summary_json(&r, false);
    cJSON *j = cJSON_Parse(js);
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "deadlock");
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "detected")));
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(d, "at_ns")->valuedouble, (double)dl->at / 1000.0);
    cJSON *cy = cJSON_GetObjectItemCaseSensitive(d, "cycle");
    static const char *const want[] = {"s0:0", "s1:1", "s2:1", "s3:1"};
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(cy), 4);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(cy, i)->valuestring, want[i]);
    cJSON_Delete(j);
    free(js);
    teardown(&scn, &r, &l);
}

/*
 * A link-level flow control without a heartbeat (one that sends nothing while it keeps a port blocked) still
 * gets deadlock checks: PFC with its table's heartbeat flag cleared makes the detector run its own timer, which
 * finds the same cycle, within two check periods of its forming.
 */
static void test_ring_deadlock_without_heartbeat(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup(RING_FILE, NULL, NULL, 0, &scn, &r, &l));
    static struct lfc_ops quiet;
    quiet = pfc_lfc_ops;
    quiet.heartbeat = false;
    r.net.lfc = &quiet;
    deadlock_init(&r.net);
    CU_ASSERT_TRUE(r.net.dl.own_timer);
    test_run_checked(&r);
    const struct deadlock *dl = &r.net.dl;
    CU_ASSERT_TRUE_FATAL(dl->detected);
    CU_ASSERT_EQUAL(r.sim.now, dl->at);
    CU_ASSERT_EQUAL(dl->prio, 3);
    const struct port *ring[4] = {test_port_to(&r, "s0", "s1"), test_port_to(&r, "s1", "s2"), test_port_to(&r, "s2", "s3"),
                                  test_port_to(&r, "s3", "s0")};
    CU_ASSERT_EQUAL_FATAL(dl->cycle_len, 4);
    sim_time_t formed = 0;
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(dl->cycle[i], port_id(ring[i]));
        if (port_pp(ring[i], 3)->paused_since > formed)
            formed = port_pp(ring[i], 3)->paused_since;
    }
    CU_ASSERT(dl->at - formed <= 2 * dl->period);
    teardown(&scn, &r, &l);
}

static void test_ring_without_cycle(void)
{
    /* The same ring without the cycle-closing flow f3: a chain of dependencies, no cycle. */
    struct scn_override ov = {
        "traffic",
        "[{\"type\": \"flow\", \"id\": \"f0\", \"src\": \"h0\", \"dst\": \"h2\", \"size\": \"4MB\", \"path\": [\"h0\", "
        "\"s0\", \"s1\", \"s2\", \"h2\"]}, {\"type\": \"flow\", \"id\": \"f1\", \"src\": \"h1\", \"dst\": \"h3\", "
        "\"size\": \"4MB\", \"path\": [\"h1\", \"s1\", \"s2\", \"s3\", \"h3\"]}, {\"type\": \"flow\", \"id\": \"f2\", "
        "\"src\": \"h2\", \"dst\": \"h0\", \"size\": \"4MB\", \"path\": [\"h2\", \"s2\", \"s3\", \"s0\", \"h0\"]}]"};
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup(RING_FILE, NULL, &ov, 1, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_FALSE(r.net.dl.detected);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 3);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    CU_ASSERT(r.net.c.pause_frames > 0); /* congested all the same: the check is not vacuous */
    teardown(&scn, &r, &l);
}

#define SLOW_JSON(faults)                                                                                         \
    "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2,"              \
    " \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, \"fabric_link\": {\"rate\": \"100Gbps\", "      \
    "\"delay\": \"1us\"}}, \"switch\": {\"buffer\": \"1MB\"}, \"host\": {\"cc\": \"none\"},"                       \
    " \"traffic\": [{\"type\": \"flow\", \"src\": \"h2\", \"dst\": \"h0\", \"size\": \"500KB\"},"                 \
    " {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h0\", \"size\": \"500KB\"}], \"faults\": [" faults "]}"

static void test_slow_receiver(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup("test.json",
                          SLOW_JSON("{\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"10Gbps\"}"), NULL, 0,
                          &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0); /* lossless, the NIC included */
    const struct nic_fault *nf = r.net.hosts[0].fault;
    CU_ASSERT_PTR_NOT_NULL_FATAL(nf);
    /* The receive buffer crossed XOFF and stayed within XOFF + headroom (fault.h). */
    CU_ASSERT(nf->rx_peak[3] > nf->xoff);
    CU_ASSERT(nf->rx_peak[3] <= nf->lossless_cap);
    printf("\n    NIC buffer peak %lld B (XOFF %lld, limit %lld) ", (long long)nf->rx_peak[3], (long long)nf->xoff,
           (long long)nf->lossless_cap);
    /* The host paused its ToR, and the pause reached the senders' ToR: leaf1's uplinks were paused by the
     * spines and leaf1 paused the senders. */
    uint32_t h0 = test_node(&r, "h0"), leaf1 = test_node(&r, "leaf1");
    size_t from_h0 = 0, from_leaf1 = 0, from_spine = 0;
    for (size_t i = 0; i < l.n_pfc; i++) {
        if (!l.pfc[i].on)
            continue;
        from_h0 += l.pfc[i].node == h0;
        from_leaf1 += l.pfc[i].node == leaf1;
        from_spine += strncmp(node_name(&r, l.pfc[i].node), "spine", 5) == 0;
    }
    CU_ASSERT(from_h0 > 0);
    CU_ASSERT(from_spine > 0);
    CU_ASSERT(from_leaf1 > 0);
    CU_ASSERT_TRUE(test_port_to(&r, "leaf1", "spine0")->paused_seen != 0 ||
                   test_port_to(&r, "leaf1", "spine1")->paused_seen != 0);
    /* The receiver's rate sets the pace: every data frame is processed at 10 Gbps, one after the other. */
    int64_t frames = 2 * ((500000 + 1023) / 1024);
    int64_t bytes = 2 * 500000 + frames * HDR_DATA;
    sim_time_t proc = (sim_time_t)(bytes * 8 * 1000000000000LL / 10000000000LL);
    sim_time_t last = 0;
    for (uint32_t i = 0; i < r.net.n_flows; i++)
        if (net_flow(&r.net, i)->finish > last)
            last = net_flow(&r.net, i)->finish;
    CU_ASSERT(last >= proc);
    CU_ASSERT(last <= proc + 10 * PS_PER_US); /* plus the first frame's way there */
    teardown(&scn, &r, &l);

    /* With an end: the buffered frames are delivered at the end, the pauses lifted, and the flows then run at
     * line rate. */
    CU_ASSERT_FATAL(setup("test.json",
                          SLOW_JSON("{\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"1Gbps\", \"start\": "
                                    "\"10us\", \"end\": \"100us\"}"),
                          NULL, 0, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, 0);
    nf = r.net.hosts[0].fault;
    CU_ASSERT_EQUAL(nf->rxq.n, 0);
    CU_ASSERT_FALSE(nf->rx_xoff[3]);
    CU_ASSERT_FALSE((r.net.hosts[0].port->pause_sent >> 3) & 1);
    bool resumed_at_end = false;
    for (size_t i = 0; i < l.n_pfc; i++)
        resumed_at_end |= l.pfc[i].node == test_node(&r, "h0") && !l.pfc[i].on && l.pfc[i].t == 100 * PS_PER_US;
    CU_ASSERT_TRUE(resumed_at_end);
    teardown(&scn, &r, &l);

    /* A watchdog that forwards through the NIC's PAUSEs overruns its buffer: those drops are the watchdog's
     * doing and are counted so, where an obeyed PAUSE could never lose a lossless frame. */
    struct scn_override ov = {"switch.watchdog", "{\"enabled\": true, \"detection_time\": \"50us\", "
                                                 "\"restoration_time\": \"50us\", \"poll_interval\": \"10us\", "
                                                 "\"action\": \"forward\"}"};
    CU_ASSERT_FATAL(setup("test.json",
                          SLOW_JSON("{\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"1Gbps\"}"), &ov, 1,
                          &scn, &r, &l));
    sim_run(&r.sim, 2 * PS_PER_MS);
    CU_ASSERT(r.net.wd->storms > 0);
    CU_ASSERT(r.net.c.drop_watchdog > 0);
    CU_ASSERT_EQUAL(r.net.c.drop_buffer, 0);
    teardown(&scn, &r, &l);
}

static void test_fault_errors(void)
{
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX];
    const char *json = SLOW_JSON("{\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"10Gbps\", \"end\": "
                                 "\"2ms\"}, {\"type\": \"pause_storm\", \"host\": \"h0\", \"start\": \"1ms\"}, "
                                 "{\"type\": \"slow_receiver\", \"host\": \"h0\", \"rate\": \"1Gbps\", \"start\": "
                                 "\"1ms\"}");
    CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", json, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "test.json: faults.2: expected slow_receiver faults of one host not to overlap in "
                                "time, got faults.0 and faults.2 both on \"h0\"");
    scn_free(&scn);
}

static void test_victim_flow(void)
{
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup("scenarios/victim-flow.json", NULL, NULL, 0, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    const struct flow *v = test_flow_named(&r, "victim");
    /* The congested port is s1's port to the incast's receiver; walk the victim's route and check it never uses it. */
    const struct port *congested = test_port_to(&r, "s1", "h4");
    uint32_t node = r.g.host_node[v->src];
    int hops = 0;
    while (node != r.g.host_node[v->dst] && hops < 8) {
        const uint16_t *ports;
        uint32_t cnt = graph_nexthops(&r.g, node, v->dst, &ports);
        CU_ASSERT_EQUAL_FATAL(cnt, 1); /* a dumbbell has one path */
        uint32_t pid = r.g.nodes[node].first_port + ports[0];
        CU_ASSERT_NOT_EQUAL(pid, port_id(congested));
        node = r.g.ports[r.g.ports[pid].peer].node;
        hops++;
    }
    CU_ASSERT_EQUAL(hops, 3);
    /* ... yet it was held by PAUSE, and slowed. */
    CU_ASSERT(v->paused_ns > 0);
    double slowdown = (double)(v->finish - v->start) / (double)v->ideal_fct;
    CU_ASSERT(slowdown > 1.5);
    printf("\n    victim: paused_ns %.0f ns (summed over its packets), slowdown %.2f ", (double)v->paused_ns / 1000.0,
           slowdown);
    /* What held it: s1 paused the s0-s1 link, which the victim shares with the incast. */
    CU_ASSERT_TRUE(test_port_to(&r, "s0", "s1")->paused_seen != 0);
    teardown(&scn, &r, &l);

    /* The control: alone, the victim is never paused and runs at its ideal time. */
    struct scn_override ov = {"traffic", "[{\"type\": \"flow\", \"id\": \"victim\", \"src\": \"h3\", \"dst\": \"h5\", "
                                         "\"size\": \"2MB\"}]"};
    CU_ASSERT_FATAL(setup("scenarios/victim-flow.json", NULL, &ov, 1, &scn, &r, &l));
    test_run_checked(&r);
    v = test_flow_named(&r, "victim");
    CU_ASSERT_EQUAL(v->paused_ns, 0);
    CU_ASSERT_EQUAL(v->finish - v->start, v->ideal_fct);
    teardown(&scn, &r, &l);
}

static void test_paused_ns_exact(void)
{
    /*
     * h1 pauses s0's port to it from 10 us to 60 us; h0 sends h1 ten frames at 20 us.  Each frame waits in
     * s0's paused queue from its arrival until the RESUME lands, and paused_ns is the sum of those waits.
     * Frames: 1086 B + 20 B preamble/gap = 88.48 ns each at 100 Gbps; 1 us per link.
     */
    const char *json =
        "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
        " \"host\": {\"cc\": \"none\"},"
        " \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"10240B\", \"start\": "
        "\"20us\"}],"
        " \"faults\": [{\"type\": \"pause_storm\", \"host\": \"h1\", \"start\": \"10us\", \"end\": \"60us\"}]}";
    struct scenario scn;
    struct run r;
    struct log l;
    CU_ASSERT_FATAL(setup("test.json", json, NULL, 0, &scn, &r, &l));
    test_run_checked(&r);
    CU_ASSERT_TRUE(r.finished);
    sim_time_t pause_wire = (FRAME_PAUSE + WIRE_OVERHEAD) * 80, frame = 1106 * 80;
    sim_time_t lifted = 60 * PS_PER_US + pause_wire + PS_PER_US, want = 0;
    for (int i = 0; i < 10; i++)
        want += lifted - (20 * PS_PER_US + (i + 1) * frame + PS_PER_US);
    const struct flow *f = net_flow(&r.net, 0);
    CU_ASSERT_EQUAL(f->paused_ns, want);
    /* The port was paused for exactly the storm's length, shifted by the PAUSE's trip. */
    CU_ASSERT_EQUAL(r.net.paused_prio[3], 50 * PS_PER_US);
    CU_ASSERT_EQUAL(r.net.paused_total, 50 * PS_PER_US);
    /* flows.csv carries it in its column, the receiver's last (the sender's completion follows). */
    char *csv = run_flows_csv(&r);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",cnps,paused_ns,acked_ns,"));
    char tail[64], ns[32];
    snprintf(tail, sizeof tail, ",0,0,%s,", units_fmt_ns(want, ns, sizeof ns));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, tail));
    free(csv);
    teardown(&scn, &r, &l);
}

/* Runs a scenario with and without an override; returns whether flows.csv, summary.json and the end time agree. */
static bool same_run(const char *file, struct scn_override ov)
{
    char *out[2][2];
    sim_time_t end[2];
    for (int k = 0; k < 2; k++) {
        struct scenario scn;
        struct run r;
        struct log l;
        CU_ASSERT_FATAL(setup(file, NULL, &ov, k, &scn, &r, &l));
        test_run_checked(&r);
        out[k][0] = run_flows_csv(&r);
        out[k][1] = run_summary_json(&r, false);
        end[k] = r.sim.now;
        teardown(&scn, &r, &l);
    }
    bool same = end[0] == end[1] && strcmp(out[0][0], out[1][0]) == 0 && strcmp(out[0][1], out[1][1]) == 0;
    for (int k = 0; k < 2; k++)
        free(out[k][0]), free(out[k][1]);
    return same;
}

static void test_detection_changes_nothing(void)
{
    /* Deadlock detection adds no event: with it off, the very same run, event count included — on a run with
     * long pauses (the storm) and on one with short ones (the incast). */
    struct scn_override off = {"switch.deadlock_check", "0us"};
    CU_ASSERT_TRUE(same_run(STORM_FILE, off));
    CU_ASSERT_TRUE(same_run("scenarios/incast-16to1.json", off));
    CU_ASSERT_TRUE(same_run("scenarios/victim-flow.json", off));
}

/* Runs ./rocesim with args; returns its exit status and its output (caller frees). */
static int rocesim(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s", test_rocesim_bin(), args);
    return test_run(cmd, out);
}

static void test_cli(void)
{
    char dir[] = "/tmp/rocesim-patho-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char args[1024], *out = NULL;
    snprintf(args, sizeof args, "run " RING_FILE " -q --no-plot -o %s/ring --fail-on-deadlock", dir);
    CU_ASSERT_EQUAL(rocesim(args, &out), 1);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "DEADLOCK: PFC deadlock on priority 3"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "s0:0 -> s1:1 -> s2:1 -> s3:1 -> s0:0"));
    free(out);
    snprintf(args, sizeof args, "run " RING_FILE " -q --no-plot -o %s/ring", dir);
    CU_ASSERT_EQUAL(rocesim(args, NULL), 0);
    /* The watchdog's events stream into watchdog.csv, one row per storm and restoration. */
    snprintf(args, sizeof args, "run " STORM_FILE " -q --no-plot -o %s/storm --set 'switch.watchdog=%s' && cat %s/storm/watchdog.csv",
             dir, WD("drop"), dir);
    CU_ASSERT_EQUAL(rocesim(args, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "watchdog.csv"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "time_ns,node,port,priority,event\n310000,tor0,0,3,storm\n"
                                              "1310000,tor0,0,3,restore\n"));
    free(out);
    /* Without a watchdog there is no watchdog.csv. */
    snprintf(args, sizeof args, "run " STORM_FILE " -q --no-plot -o %s/storm2 && test ! -e %s/storm2/watchdog.csv", dir,
             dir);
    CU_ASSERT_EQUAL(rocesim(args, NULL), 0);
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(args, NULL), 0);
}

/*
 * A watchdog that cannot declare a storm before the run stops says so on stderr (it used to run silently and
 * report no storm); one that can says nothing, and the run is the same either way.
 */
/* PAUSE on links of a few bps: the pause time (0xFFFF x 512 bit times, 3.4e19 ps at 1 bps) overflowed int64 and put
 * its expiry in the past (an abort); it lies past the engine's clock, as do its refreshes. */
static void slow_link_storm(void)
{
    static const char *const rates[] = {"1bps", "3bps", "1Kbps"};
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        struct scenario scn;
        struct run r;
        struct scn_override ov[] = {{"topology.link.rate", rates[i]}, {"stop", "2ms"}};
        CU_ASSERT_FATAL(test_setup_from("scenarios/pfc-storm.json", NULL, ov, 2, &scn, &r));
        CU_ASSERT_EQUAL(run_execute(&r), 0);
        CU_ASSERT(r.net.c.pause_frames >= 1); /* h0's storm starts; its refreshes come only on faster links */
        test_teardown(&scn, &r);
    }
}

static void test_pause_past_the_clock(void)
{
    CU_ASSERT_EQUAL(pause_quanta_ps(0xFFFF, 100000000000LL), 335539200); /* 33 553 920 bit times at 100 Gbps */
    CU_ASSERT_EQUAL(pause_quanta_ps(0xFFFF, 1000000), 33553920000000LL);     /* 33.55 s at 1 Mbps: exact */
    CU_ASSERT_EQUAL(pause_quanta_ps(0xFFFF, 1), 2 * (SIM_TIME_LIMIT + 1));
    CU_ASSERT_FALSE_FATAL(test_child_aborts(slow_link_storm));
}

static void test_watchdog_out_of_reach(void)
{
    char dir[] = "/tmp/rocesim-patho-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char args[1024], *out = NULL;
    /* pfc-storm stops at 10ms: 9ms + 2ms cannot fit. */
    snprintf(args, sizeof args, "run " STORM_FILE " -q --no-plot -o %s/far --set 'switch.watchdog={\"enabled\": true, "
             "\"detection_time\": \"9ms\", \"restoration_time\": \"9ms\", \"poll_interval\": \"2ms\"}' 2>&1 >/dev/null",
             dir);
    CU_ASSERT_EQUAL(rocesim(args, &out), 0);
    CU_ASSERT_STRING_EQUAL(out, "rocesim: warning: " STORM_FILE ": switch.watchdog: detection_time (9ms) plus one "
                                "poll_interval (2ms) is longer than the run (stop 10ms): the watchdog cannot declare a "
                                "storm in this run\n");
    free(out);
    /* check builds the network too, so it warns the same way; with --stop the default 200ms times are too long. */
    snprintf(args, sizeof args, "check " STORM_FILE " --set switch.watchdog.enabled=true --stop 5ms 2>&1 >/dev/null");
    CU_ASSERT_EQUAL(rocesim(args, &out), 0);
    CU_ASSERT_STRING_EQUAL(out, "rocesim: warning: " STORM_FILE ": switch.watchdog: detection_time (200ms) plus one "
                                "poll_interval (10ms) is longer than the run (stop 5ms): the watchdog cannot declare a "
                                "storm in this run\n");
    free(out);
    /* 8ms + 2ms fits in 10ms: no warning. */
    snprintf(args, sizeof args, "check " STORM_FILE " --set 'switch.watchdog={\"enabled\": true, \"detection_time\": "
             "\"8ms\", \"restoration_time\": \"9ms\", \"poll_interval\": \"2ms\"}' 2>&1 >/dev/null");
    CU_ASSERT_EQUAL(rocesim(args, &out), 0);
    CU_ASSERT_STRING_EQUAL(out, "");
    free(out);
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(test_run(args, NULL), 0);
}

void test_pathologies_register(void)
{
    CU_pSuite s = CU_add_suite("pathologies", NULL, NULL);
    CU_add_test(s, "a pause storm stalls its ToR port and spreads to aggs and cores", test_storm_spreads);
    CU_add_test(s, "a pause on a link of 1 bps lies past the engine's clock (no overflow, no abort)",
                test_pause_past_the_clock);
    CU_add_test(s, "watchdog drop: detected, the rest completes, restored after the storm", test_storm_watchdog_drop);
    CU_add_test(s, "watchdog forward and alert", test_storm_watchdog_forward_alert);
    CU_add_test(s, "ring deadlock: the cycle is the four ring ports, in order", test_ring_deadlock);
    CU_add_test(s, "ring deadlock found by the detector's timer when the flow control has no heartbeat",
                test_ring_deadlock_without_heartbeat);
    CU_add_test(s, "ring without the cycle-closing flow: no deadlock, all complete", test_ring_without_cycle);
    CU_add_test(s, "a slow receiver pauses its ToR and the senders' ToR", test_slow_receiver);
    CU_add_test(s, "overlapping slow_receiver faults are rejected", test_fault_errors);
    CU_add_test(s, "victim flow: paused although it never crosses the congested port", test_victim_flow);
    CU_add_test(s, "paused_ns is exactly the time held by PAUSE", test_paused_ns_exact);
    CU_add_test(s, "deadlock detection changes no result, event count included", test_detection_changes_nothing);
    CU_add_test(s, "--fail-on-deadlock, watchdog.csv", test_cli);
    CU_add_test(s, "a watchdog that cannot act within the run warns", test_watchdog_out_of_reach);
}
