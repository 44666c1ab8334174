/*
 * InfiniBand (issue 38): the fabric "infiniband" (models/fabric_ib.c) and its credit-based link-level flow control
 * (models/credit.c).  What is checked against what:
 * - a 16-to-1 incast loses nothing and sends no PAUSE, its senders stall on credit, and the receiver's link runs
 *   at >= 95 % of the IB data rate (the acceptance);
 * - (one flow whose credits are below the link's bandwidth-delay product runs at credits x 64 B / credit round
 *   trip: a validation row, tests/validation/validation.c, "InfiniBand credits");
 * - the same files on one thread and two;
 * - a failed link: its frames lost on the wire count as received, so credit is neither lost nor invented, and
 *   every flow still completes;
 * - bad InfiniBand settings exit 2 naming the path.
 */
#include "models/cc.h"
#include "models/credit.h"
#include "models/lfc.h"
#include "sim/units.h"
#include "tests/tests.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IB_BPS 100e9 /* a 4x EDR link's data rate */
#define IB_HDR 26    /* LRH + BTH + ICRC + VCRC */
#define IB_WIRE 2    /* start and end delimiters */
#define MTU 4096

static const char *INCAST =
    "{\"name\": \"ib-incast\", \"seed\": 1, \"stop\": \"20ms\", \"fabric\": \"infiniband\", "
    "\"topology\": {\"type\": \"star\", \"hosts\": 17, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, "
    "\"switch\": {\"credit\": {\"vl_buffer\": \"64KB\"}}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"incast\", \"id\": \"incast\", \"senders\": \"h0-h15\", \"receiver\": "
    "\"h16\", \"size\": \"1MB\", \"start\": \"0us\"}]}";

static void test_incast(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(INCAST, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE_FATAL(r.finished);
    const struct net_counters *c = &r.net.c;
    CU_ASSERT_EQUAL(r.net.flows_completed, 16);
    CU_ASSERT_EQUAL(c->data_dropped, 0);
    CU_ASSERT_EQUAL(c->ctrl_dropped, 0);
    CU_ASSERT_EQUAL(c->pause_frames, 0);
    CU_ASSERT_EQUAL(c->resume_frames, 0);
    CU_ASSERT(c->credit_fc > 0);
    /* Sixteen senders into one 100 Gbps port: each sender's port stalls on credit, and only they do (the switch's
     * port to the receiver sends to a host, which never withholds credit). */
    CU_ASSERT_EQUAL(r.net.ports_ever_paused, 16);
    CU_ASSERT(r.net.paused_total > 0);
    /* The receiver's link from the first data to the last: its wire bytes over that time and the data rate. */
    const struct port *down = test_port_to(&r, "s0", "h16");
    sim_time_t last = 0;
    for (uint32_t i = 0; i < 16; i++)
        last = net_flow(&r.net, i)->finish > last ? net_flow(&r.net, i)->finish : last;
    double wire = (double)(down->tx_bytes + down->tx_frames * IB_WIRE) * 8;
    double util = wire / ((double)last / PS_PER_S) / IB_BPS;
    printf("\n    receiver's link at %.2f %% of 100 Gb/s; %llu flow-control packets, %.1f us stalled ", util * 100,
           (unsigned long long)c->credit_fc, (double)r.net.paused_total / PS_PER_US);
    CU_ASSERT(util >= 0.95);
    CU_ASSERT(util <= 1.0);
    /* Every byte delivered went over that link once, in packets of 4096 bytes of payload and 26 of headers. */
    /* Every data packet delivered crossed that link once; the rest of its frames are flow-control packets of 6
     * bytes (the receiver's ACKs take credit at the switch, which it advertises), and no PAUSE. */
    CU_ASSERT_EQUAL(c->bytes_delivered, 16 * 1000000 + c->data_delivered * IB_HDR);
    CU_ASSERT_EQUAL(down->tx_bytes, c->bytes_delivered + (down->tx_frames - c->data_delivered) * 6);
    test_teardown(&scn, &r);
}

/* The same files (flows.csv, summary.json but its wall clock) twice on one thread and once on two. */
static void test_threads(void)
{
    static const char *ls =
        "{\"name\": \"ib-leafspine\", \"seed\": 3, \"stop\": \"20ms\", \"fabric\": \"infiniband\", \"topology\": "
        "{\"type\": \"leaf-spine\", \"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 4, \"link\": {\"rate\": "
        "\"200Gbps\", \"delay\": \"500ns\"}}, \"switch\": {\"credit\": {\"vl_buffer\": \"32KB\", \"update\": "
        "\"8KB\"}, \"scheduler\": {\"type\": \"vlarb\", \"vlarb_low\": \"0:64,1:128\"}}, \"host\": {\"mtu\": 2048, "
        "\"cc\": \"none\"}, \"traffic\": [{\"type\": \"incast\", \"id\": \"in\", \"senders\": \"h4-h15\", "
        "\"receiver\": \"h0\", \"size\": \"256KB\"}, {\"type\": \"flow\", \"id\": \"victim\", \"src\": \"h5\", "
        "\"dst\": \"h1\", \"size\": \"1MB\", \"sl\": 1}]}";
    test_write_text("/tmp/rocesim-test-ib-threads.json", ls);
    char *text = test_same_each_run("/tmp/rocesim-test-ib-threads.json");
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "\"flow_control_packets\""));
    free(text);
    remove("/tmp/rocesim-test-ib-threads.json");
}

/*
 * credits.csv and summary.json's stalls on the incast: each (port, VL) alternates stall and resume; its intervals
 * (closed at the run's end) add up to the stalled time summary.json gives it, and that to credits.stalled_ns_total;
 * counters.csv's paused_ns of the port's VL is the same time; the waiters are the 16 senders and only they.  Then
 * the same credits.csv on one thread and two.
 */
static void test_credit_series(void)
{
    char json[2048], cmd[1024];
    snprintf(json, sizeof json, "%.*s, \"monitor\": {\"credits\": \"all\", \"counters\": true}}",
             (int)strlen(INCAST) - 1, INCAST);
    test_write_text("/tmp/rocesim-test-ib-cr.json", json);
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-ib-cr.json -q --no-plot -o /tmp/rocesim-test-ib-cr",
             test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    char *sum = test_read_file("/tmp/rocesim-test-ib-cr/summary.json", NULL);
    char *csv = test_read_file("/tmp/rocesim-test-ib-cr/credits.csv", NULL);
    char *ctr = test_read_file("/tmp/rocesim-test-ib-cr/counters.csv", NULL);
    CU_ASSERT_FATAL(sum && csv && ctr);
    CU_ASSERT_PTR_NULL(test_read_file("/tmp/rocesim-test-ib-cr/pfc.csv", NULL)); /* no PAUSE can be sent */
    cJSON *j = cJSON_Parse(sum);
    const cJSON *cr = cJSON_GetObjectItem(j, "credits");
    double total = cJSON_GetObjectItem(cr, "stalled_ns_total")->valuedouble;
    double end = cJSON_GetObjectItem(j, "sim_end_ns")->valuedouble;
    const cJSON *stalls = cJSON_GetObjectItem(cr, "stalls");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cr, "port_vls_stalled")->valueint, 16);
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(stalls), 16);
    /* credits.csv, per sender h0..h15 (port 0, VL 0: nothing else may stall) */
    double open_at[16], per[16] = {0};
    int rows = 0;
    for (int i = 0; i < 16; i++)
        open_at[i] = -1;
    char *save = NULL;
    const char *hdr = strtok_r(csv, "\n", &save);
    CU_ASSERT_STRING_EQUAL(hdr, "time_ns,node,port,vl,event");
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
        double t;
        int h, port, vl;
        char ev[16];
        CU_ASSERT_FATAL(sscanf(line, "%lf,h%d,%d,%d,%15s", &t, &h, &port, &vl, ev) == 5);
        CU_ASSERT_FATAL(h >= 0 && h < 16 && port == 0 && vl == 0);
        bool stall = strcmp(ev, "stall") == 0;
        CU_ASSERT(stall == (open_at[h] < 0)); /* stall, resume, stall, ... */
        if (stall)
            open_at[h] = t;
        else
            per[h] += t - open_at[h], open_at[h] = -1;
    }
    double all = 0;
    for (int h = 0; h < 16; h++) {
        if (open_at[h] >= 0)
            per[h] += end - open_at[h];
        all += per[h];
    }
    printf("\n    credits.csv: %d rows, %.1f us stalled (summary.json %.1f us) ", rows, all / 1e3, total / 1e3);
    CU_ASSERT(rows > 100);
    /* times are written to the picosecond (3 decimals of ns) */
    CU_ASSERT(fabs(all - total) <= 0.001 * rows);
    double listed = 0, prev = 1e300;
    const cJSON *e;
    cJSON_ArrayForEach(e, stalls)
    {
        int h = -1;
        const char *node = cJSON_GetObjectItem(e, "node")->valuestring;
        double ns = cJSON_GetObjectItem(e, "stalled_ns")->valuedouble;
        CU_ASSERT_FATAL(sscanf(node, "h%d", &h) == 1 && h >= 0 && h < 16);
        CU_ASSERT_EQUAL(cJSON_GetObjectItem(e, "port")->valueint, 0);
        CU_ASSERT_EQUAL(cJSON_GetObjectItem(e, "vl")->valueint, 0);
        CU_ASSERT(ns <= prev); /* the longest first */
        prev = ns;
        CU_ASSERT(fabs(ns - per[h]) <= 0.001 * rows);
        listed += ns;
        /* counters.csv: node,port,peer,priority,...,paused_ns (column 11) */
        char key[64];
        snprintf(key, sizeof key, "\n%s,0,s0,0,", node);
        const char *row = strstr(ctr, key);
        CU_ASSERT_FATAL(row != NULL);
        const char *f = row + 1;
        for (int k = 0; k < 10; k++)
            f = strchr(f, ',') + 1;
        CU_ASSERT_DOUBLE_EQUAL(strtod(f, NULL), ns, 0.001);
    }
    CU_ASSERT_DOUBLE_EQUAL(listed, total, 0.001 * 16);
    cJSON_Delete(j);
    free(sum);
    free(csv);
    free(ctr);
    /* the same series on two threads */
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-ib-cr.json -q --no-plot --threads 2 -o /tmp/rocesim-test-ib-cr2 "
             "&& cmp /tmp/rocesim-test-ib-cr/credits.csv /tmp/rocesim-test-ib-cr2/credits.csv", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    remove("/tmp/rocesim-test-ib-cr.json");
}

/* A link fails under a loaded leaf-spine and comes back: frames on the wire are lost, and every flow completes. */
static void test_link_down(void)
{
    static const char *ls =
        "{\"seed\": 2, \"stop\": \"50ms\", \"fabric\": \"infiniband\", \"topology\": {\"type\": \"leaf-spine\", "
        "\"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2, \"link\": {\"rate\": \"100Gbps\", \"delay\": "
        "\"1us\"}}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"flow\", \"id\": \"a\", "
        "\"src\": \"h0\", \"dst\": \"h2\", \"size\": \"4MB\"}, {\"type\": \"flow\", \"id\": \"b\", \"src\": \"h1\", "
        "\"dst\": \"h3\", \"size\": \"4MB\"}, {\"type\": \"flow\", \"id\": \"c\", \"src\": \"h3\", \"dst\": \"h0\", "
        "\"size\": \"4MB\"}], \"faults\": [{\"type\": \"link_down\", \"between\": [\"leaf0\", \"spine0\"], \"at\": "
        "\"50us\", \"until\": \"150us\"}, {\"type\": \"link_down\", \"between\": [\"leaf1\", \"spine1\"], \"at\": "
        "\"200us\", \"until\": \"260us\"}]}";
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(ls, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    CU_ASSERT_TRUE_FATAL(r.finished);
    CU_ASSERT_EQUAL(r.net.flows_completed, 3);
    CU_ASSERT(r.net.c.drop_link_down > 0);
    CU_ASSERT_EQUAL(r.net.c.data_dropped, r.net.c.drop_link_down);
    CU_ASSERT_EQUAL(r.net.c.drop_buffer + r.net.c.drop_headroom, 0);
    /* Credit conserved on every link towards a switch: what one end sent, the other received (lost frames
     * included), and with nothing in flight the sender may still send what the receiver has free. */
    int links = 0;
    for (uint32_t i = 0; i < r.net.g->n_ports; i++) {
        const struct port *p = &r.net.ports[i], *q = p->peer;
        struct credit_count a, b;
        CU_ASSERT_FATAL(credit_counts(&r.net, p, 0, &a) && credit_counts(&r.net, q, 0, &b));
        if (q->kind == NODE_HOST)
            continue;
        CU_ASSERT_EQUAL(a.sent, b.received);
        CU_ASSERT_EQUAL(a.limit, b.advertised);
        /* the receiver's whole buffer (the default 128KB: 2000 blocks) less what it may not have advertised yet
         * (below the default update, 16KB: 250 blocks) */
        CU_ASSERT(a.limit - a.sent > 128000 / 64 - 16000 / 64);
        links += a.sent > 0;
    }
    CU_ASSERT(links >= 8);
    test_teardown(&scn, &r);
}

/*
 * VL arbitration: four saturated senders on SLs 0-3 (VLs 0-3) into one receiver.  Every packet is 4096 + 26 bytes,
 * so a weight of 64 credits (4096 bytes) sends one packet per turn and 192 sends three: the receiver's bytes split
 * 1:3:1:3.  With VL 3 alone in the high table, high_limit 0 lets it send one packet per low packet (VL 3 half, the
 * others a sixth each) and high_limit 2 (8192 bytes) two (VL 3 two thirds, the others a ninth).
 */
static void vlarb_shares(const char *sched, const double want[4])
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"seed\": 1, \"stop\": \"3ms\", \"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", "
             "\"hosts\": 5, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"scheduler\": "
             "%s}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"flow\", \"src\": "
             "\"h0\", \"dst\": \"h4\", \"size\": \"100MB\", \"sl\": 0}, {\"type\": \"flow\", \"src\": \"h1\", "
             "\"dst\": \"h4\", \"size\": \"100MB\", \"sl\": 1}, {\"type\": \"flow\", \"src\": \"h2\", \"dst\": "
             "\"h4\", \"size\": \"100MB\", \"sl\": 2}, {\"type\": \"flow\", \"src\": \"h3\", \"dst\": \"h4\", "
             "\"size\": \"100MB\", \"sl\": 3}]}", sched);
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
    test_run_checked(&r);
    const struct net_counters *c = &r.net.c;
    double total = 0;
    for (int vl = 0; vl < 4; vl++)
        total += (double)c->prio[vl].bytes_delivered;
    /* About 37 MB delivered: 3 ms at 100 Gb/s. */
    CU_ASSERT(total > 0.95 * 100e9 / 8 * 3e-3);
    for (int vl = 0; vl < 4; vl++) {
        double share = (double)c->prio[vl].bytes_delivered / total;
        if (fabs(share - want[vl]) > 0.002)
            printf("\n    %s: VL %d has %.4f of the bytes, want %.4f\n", sched, vl, share, want[vl]);
        CU_ASSERT_DOUBLE_EQUAL(share, want[vl], 0.002);
    }
    CU_ASSERT_EQUAL(c->data_dropped, 0);
    test_teardown(&scn, &r);
}

static void test_vlarb(void)
{
    /* The seed's QoS weights 10/40/10/40 as credits for 4 KB packets: 64 sends one packet, 255 four. */
    vlarb_shares("{\"type\": \"vlarb\", \"vlarb_low\": \"0:64,1:255,2:64,3:255\"}",
                 (const double[4]){0.1, 0.4, 0.1, 0.4});
    vlarb_shares("{\"type\": \"vlarb\", \"vlarb_low\": \"0:64,1:192,2:64,3:192\"}",
                 (const double[4]){1 / 8.0, 3 / 8.0, 1 / 8.0, 3 / 8.0});
    vlarb_shares("{\"type\": \"vlarb\", \"vlarb_high\": \"3:255\", \"vlarb_low\": \"0:64,1:64,2:64\", "
                 "\"high_limit\": 0}", (const double[4]){1 / 6.0, 1 / 6.0, 1 / 6.0, 1 / 2.0});
    vlarb_shares("{\"type\": \"vlarb\", \"vlarb_high\": \"3:255\", \"vlarb_low\": \"0:64,1:64,2:64\", "
                 "\"high_limit\": 2}", (const double[4]){1 / 9.0, 1 / 9.0, 1 / 9.0, 2 / 3.0});
}

/* A flow's VL is its SL through ib.sl2vl, and by default SL mod ib.vls; its ACKs travel on that VL too. */
static void test_sl2vl(void)
{
    static const struct {
        const char *ib;
        int sl, vl;
    } cases[] = {
        {"", 6, 6},
        {"\"ib\": {\"vls\": 4}, ", 6, 2},
        {"\"ib\": {\"vls\": 2, \"sl2vl\": \"0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0\"}, ", 15, 0},
        {"\"ib\": {\"sl2vl\": \"0,1,2,3,4,5,6,7,7,6,5,4,3,2,1,0\"}, ", 9, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"seed\": 1, \"stop\": \"1ms\", \"fabric\": \"infiniband\", %s\"topology\": {\"type\": "
                 "\"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"host\": {\"cc\": \"none\"}, "
                 "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"64KB\", "
                 "\"sl\": %d}]}", cases[i].ib, cases[i].sl);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.flows_completed, 1);
        CU_ASSERT_EQUAL(net_flow(&r.net, 0)->prio, cases[i].vl);
        CU_ASSERT_EQUAL(r.net.c.prio[cases[i].vl].delivered, (64000 + 1023) / 1024); /* 64KB in 1024-byte packets */
        test_teardown(&scn, &r);
    }
}

/*
 * The plots of an InfiniBand run with IB CC: no pfc.png (no PAUSE is ever sent: the run says where its stalls are),
 * and rates.png draws the CCTI below the rates but no dashed "target" line, which IB CC does not have (rates.csv
 * repeats the rate there).
 */
static void test_ib_plots(void)
{
    if (test_run("command -v gnuplot >/dev/null", NULL) != 0) {
        printf("\n    note: gnuplot missing, the plots not checked ");
        return;
    }
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run scenarios/labs/14-ib-or-roce/ib.json --set host.cc=ibcc --set "
             "switch.ibcc.enabled=true --set stop=1ms -o /tmp/rocesim-test-ib-plots", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    /* credit stalls drawn, no PAUSE chart (and no note about it: an InfiniBand run has no pfc.csv) */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "credits.png"));
    CU_ASSERT_PTR_NULL(out ? strstr(out, "pfc") : NULL);
    free(out);
    CU_ASSERT_PTR_NULL(test_read_file("/tmp/rocesim-test-ib-plots/plots/pfc.png", NULL));
    char *dat = test_read_file("/tmp/rocesim-test-ib-plots/plots/credits.dat", NULL);
    CU_ASSERT_PTR_NOT_NULL(dat && strstr(dat, "# start_us end_us row: intervals from a stall to the resume"));
    free(dat);
    char *gp = test_read_file("/tmp/rocesim-test-ib-plots/plots/rates.gp", NULL);
    CU_ASSERT_PTR_NOT_NULL(gp && strstr(gp, "has_alpha = 1\nhas_target = 0\n"));
    CU_ASSERT_PTR_NOT_NULL(gp && strstr(gp, "alpha_label = 'CCTI'"));
    free(gp);
}

/* A 100 Gbps InfiniBand star of 2 hosts running IB CC with host.ibcc `ibcc` (JSON members); its flow, initialized. */
static struct flow *ibcc_flow(const char *ibcc, struct scenario *scn, struct run *r)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
             "\"100Gbps\", \"delay\": \"1us\"}}, \"host\": {\"cc\": \"ibcc\", \"ibcc\": {%s}}, \"traffic\": "
             "[{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}", ibcc);
    if (!test_setup(json, NULL, NULL, scn, r))
        return NULL;
    struct flow *f = net_flow(&r->net, 0);
    cc_registry[f->cc]->init(f, 0);
    return f;
}

/*
 * The reaction point, exactly: each BECN adds CCTI_Increase to the CCTI, up to CCTI_Limit; each CCTI_Timer takes
 * one off, down to CCTI_Min; the flow sends at line / (1 + multiplier / 2^shift) of CCT[CCTI] (the default
 * table: shift 2, multiplier CCTI).
 */
static void test_ibcc_reaction(void)
{
    struct scenario scn;
    struct run r;
    struct flow *f = ibcc_flow("\"ccti_increase\": 3, \"ccti_limit\": 10, \"ccti_min\": 1", &scn, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const struct cc_ops *o = cc_registry[f->cc];
    CU_ASSERT_STRING_EQUAL(o->name, "ibcc");
    const double line = 100e9;
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), line / (1 + 1 / 4.0), 1); /* CCTI_Min 1 from the start */
    o->on_cnp(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), line / (1 + 4 / 4.0), 1);
    CU_ASSERT_TRUE(f->cc_timer.armed);
    CU_ASSERT_EQUAL(f->cc_timer.at, 100 * 1024000); /* CCTI_Timer 100 x 1.024 us */
    for (int i = 0; i < 5; i++)
        o->on_cnp(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), line / (1 + 10 / 4.0), 1); /* held at CCTI_Limit 10 */
    o->on_timer(f, 100 * 1024000);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), line / (1 + 9 / 4.0), 1);
    for (int i = 0; i < 20; i++)
        o->on_timer(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(o->rate(f), line / (1 + 1 / 4.0), 1); /* down to CCTI_Min */
    struct cc_stat st[1];
    CU_ASSERT_EQUAL(cc_stats(f, st, 1), 1);
    CU_ASSERT_STRING_EQUAL(st[0].name, "becns");
    CU_ASSERT_EQUAL(st[0].value, 6);
    test_teardown(&scn, &r);
    /* A table of its own: entry 2 is shift 3, multiplier 24: 1 + 24/8 = 4, a quarter of the line. */
    f = ibcc_flow("\"ccti_increase\": 2, \"ccti_limit\": 2, \"cct\": \"0:0,1:1,3:24\"", &scn, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    cc_registry[f->cc]->on_cnp(f, 0);
    CU_ASSERT_DOUBLE_EQUAL(cc_registry[f->cc]->rate(f), line / 4, 1);
    test_teardown(&scn, &r);
}

/*
 * The switch side: FECN at an egress in congestion, one eligible packet in Marking_Rate + 1.  Two senders at line
 * rate into one 100 Gbps port keep its queue above the threshold (a sixteenth of vl_buffer) from the third
 * packet on, with no congestion control to slow them: of the packets that arrive there, about one in 11 is
 * marked, and the receiver answers none (cc "none" sends no BECN).  With the threshold at 0 nothing is marked;
 * packets below Packet_Size never are.
 */
static void test_fecn_marking(void)
{
    static const struct {
        const char *ibcc;
        int rate; /* marking_rate; -1: nothing marked */
    } cases[] = {
        {"{\"enabled\": true}", 10},
        {"{\"enabled\": true, \"marking_rate\": 0}", 0},
        {"{\"enabled\": true, \"threshold\": 0}", -1},
        {"{\"enabled\": true, \"packet_size\": \"4160B\"}", -1},
        {"{\"enabled\": false}", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"stop\": \"2ms\", \"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", "
                 "\"hosts\": 3, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"ibcc\": %s}, "
                 "\"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"incast\", \"senders\": "
                 "\"h0-h1\", \"receiver\": \"h2\", \"size\": \"4MB\"}]}", cases[i].ibcc);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_EQUAL(r.net.flows_completed, 2);
        uint64_t pkts = r.net.c.data_delivered, marks = r.net.c.ecn_marked;
        CU_ASSERT_EQUAL(r.net.c.cnp_sent, 0);
        if (cases[i].rate < 0) {
            CU_ASSERT_EQUAL(marks, 0);
        } else {
            /* all but the first few packets arrive above the threshold */
            double want = (double)pkts / (cases[i].rate + 1);
            if (fabs((double)marks - want) > 0.01 * want + 2)
                printf("\n    %s: %llu marks of %llu packets, want about %.0f\n", cases[i].ibcc,
                       (unsigned long long)marks, (unsigned long long)pkts, want);
            CU_ASSERT_DOUBLE_EQUAL((double)marks, want, 0.01 * want + 2);
        }
        test_teardown(&scn, &r);
    }
}

/*
 * Credit loops.  Five switches in a ring, a host on each, and each host sending to the host two switches on
 * (clockwise: the only minimum-hop path): under min-hop routing every ring link carries two flows and each
 * ring port's buffer waits on the next one's, a cycle of five, and the run deadlocks, found by the detector and
 * reported as a credit loop.  LASH puts the pair whose paths would close the cycle on a second VL, and up/down
 * routing never uses the link that would close it: every flow completes.
 */
#define RING5 \
    "{\"seed\": 1, \"stop\": \"5ms\", \"fabric\": \"infiniband\", \"ib\": {\"routing_engine\": \"%s\"}, \"topolog" \
    "y\": {\"type\": \"custom\", \"nodes\": [{\"name\": \"s0\", \"kind\": \"switch\"}, {\"name\": \"s1\", \"kind" \
    "\": \"switch\"}, {\"name\": \"s2\", \"kind\": \"switch\"}, {\"name\": \"s3\", \"kind\": \"switch\"}, {\"name" \
    "\": \"s4\", \"kind\": \"switch\"}, {\"name\": \"h0\", \"kind\": \"host\"}, {\"name\": \"h1\", \"kind\": \"ho" \
    "st\"}, {\"name\": \"h2\", \"kind\": \"host\"}, {\"name\": \"h3\", \"kind\": \"host\"}, {\"name\": \"h4\", \"" \
    "kind\": \"host\"}], \"links\": [{\"a\": \"s0\", \"b\": \"s1\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {" \
    "\"a\": \"s1\", \"b\": \"s2\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"s2\", \"b\": \"s3\", \"r" \
    "ate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"s3\", \"b\": \"s4\", \"rate\": \"100Gbps\", \"delay\": \"" \
    "1us\"}, {\"a\": \"s4\", \"b\": \"s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"h0\", \"b\": \"" \
    "s0\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"h1\", \"b\": \"s1\", \"rate\": \"100Gbps\", \"de" \
    "lay\": \"1us\"}, {\"a\": \"h2\", \"b\": \"s2\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"h3\", " \
    "\"b\": \"s3\", \"rate\": \"100Gbps\", \"delay\": \"1us\"}, {\"a\": \"h4\", \"b\": \"s4\", \"rate\": \"100Gbp" \
    "s\", \"delay\": \"1us\"}]}, \"switch\": {\"credit\": {\"vl_buffer\": \"32KB\", \"update\": \"8KB\"}, \"deadl" \
    "ock_check\": \"100us\"}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"flow\", \"s" \
    "rc\": \"h0\", \"dst\": \"h2\", \"size\": \"4MB\"}, {\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h3\", \"" \
    "size\": \"4MB\"}, {\"type\": \"flow\", \"src\": \"h2\", \"dst\": \"h4\", \"size\": \"4MB\"}, {\"type\": \"fl" \
    "ow\", \"src\": \"h3\", \"dst\": \"h0\", \"size\": \"4MB\"}, {\"type\": \"flow\", \"src\": \"h4\", \"dst\": " \
    "\"h1\", \"size\": \"4MB\"}]}"

static void test_credit_loops(void)
{
    static const struct {
        const char *engine;
        bool deadlock;
        int vls; /* VLs the flows use */
    } cases[] = {{"minhop", true, 1}, {"lash", false, 2}, {"dfsssp", false, 2}, {"updn", false, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[4096];
        snprintf(json, sizeof json, RING5, cases[i].engine);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        const struct net *n = &r.net;
        CU_ASSERT_EQUAL(n->dl.detected, cases[i].deadlock);
        CU_ASSERT_EQUAL(n->flows_completed, cases[i].deadlock ? 0 : 5);
        uint8_t used = 0;
        for (uint32_t f = 0; f < 5; f++)
            used |= (uint8_t)(1u << net_flow(&r.net, f)->prio);
        CU_ASSERT_EQUAL(used, (1u << cases[i].vls) - 1);
        if (cases[i].deadlock) {
            /* the five ring ports, each waiting for credit from the next switch's */
            CU_ASSERT_EQUAL(n->dl.cycle_len, 5);
            for (uint32_t k = 0; k < n->dl.cycle_len; k++) {
                const struct port *p = &n->ports[n->dl.cycle[k]], *q = &n->ports[n->dl.cycle[(k + 1) % 5]];
                CU_ASSERT_EQUAL(p->kind, NODE_SWITCH);
                CU_ASSERT_EQUAL(p->peer->node, q->node);
            }
        }
        test_teardown(&scn, &r);
    }
    /* The binary says what it found. */
    char json[4096], cmd[256], *out = NULL;
    snprintf(json, sizeof json, RING5, "minhop");
    test_write_text("/tmp/rocesim-test-ib-ring.json", json);
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-ib-ring.json -q -o /tmp/rocesim-test-ib-ring.out",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    free(out);
    char *sum = test_read_file("/tmp/rocesim-test-ib-ring.out/summary.json", NULL);
    CU_ASSERT_PTR_NOT_NULL(sum && strstr(sum, "\"cause\":\t\"credit loop\""));
    CU_ASSERT_PTR_NOT_NULL(sum && strstr(sum, "\"cycle\":\t[\"s0:0\", \"s1:1\", \"s2:1\", \"s3:1\", \"s4:1\"]"));
    free(sum);
    /* The doctor reads the run back (its scenario.json loads again: credits, no priorities) and names both the
     * loop its tables allow and the one the run met. */
    snprintf(cmd, sizeof cmd, "%s doctor /tmp/rocesim-test-ib-ring.out", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "error [ib-credit-loop] at fabric\n  seen: ib.routing_engine minhop: the "
                                              "paths between h2 and h4 close a cycle of channel dependencies on one VL"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "error [credit-loop] at run\n  seen: a credit loop at 204 us on VL 0"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "headroom")); /* PFC's checks are Ethernet's */
    free(out);
    /* rocesim check's resolved settings, the groups it derives per node included, say credits and no priority */
    snprintf(cmd, sizeof cmd, "%s check /tmp/rocesim-test-ib-ring.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"derived\""));
    CU_ASSERT_PTR_NULL(out && strstr(out, "\"flow_control\":\t\"pfc\""));
    CU_ASSERT_PTR_NULL(out && strstr(out, "\"flow_control\": \"pfc\""));
    static const char *const classes[] = {"\"priority\"", "\"cnp_priority\"", "\"ack_priority\""};
    for (int i = 0; i < 3; i++)
        CU_ASSERT_PTR_NULL(out && strstr(out, classes[i]));
    free(out);
    /* The engines' tables are the same on every run and thread count (and lash's VLs with them). */
    snprintf(json, sizeof json, RING5, "lash");
    test_write_text("/tmp/rocesim-test-ib-ring.json", json);
    free(test_same_each_run("/tmp/rocesim-test-ib-ring.json"));
    remove("/tmp/rocesim-test-ib-ring.json");
}

/* Every engine routes a k=4 fat tree, and its traffic completes. */
static void test_engines_fat_tree(void)
{
    static const char *const engines[] = {"minhop", "updn", "ftree", "lash", "dfsssp"};
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"seed\": 1, \"stop\": \"20ms\", \"fabric\": \"infiniband\", \"ib\": {\"routing_engine\": "
                 "\"%s\"}, \"topology\": {\"type\": \"fat-tree\", \"k\": 4, \"link\": {\"rate\": \"100Gbps\", "
                 "\"delay\": \"1us\"}}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": "
                 "\"poisson\", \"load\": 0.6, \"size_cdf\": \"websearch\", \"end\": \"1ms\"}]}", engines[i]);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        test_run_checked(&r);
        CU_ASSERT_TRUE(r.finished);
        CU_ASSERT_FALSE(r.net.dl.detected);
        CU_ASSERT(r.net.flows_completed > 50); /* about 76 WebSearch flows, every one finished */
        CU_ASSERT_EQUAL(r.net.flows_completed, r.net.n_flows);
        /* one egress per destination: a subnet manager's table has no ECMP */
        for (uint32_t x = 0; x < r.g.n_nodes; x++)
            for (uint32_t h = 0; h < r.g.n_hosts; h++) {
                const uint16_t *ports;
                uint32_t k = graph_nexthops(&r.g, x, h, &ports);
                CU_ASSERT(k == 1 || (k == 0 && x == r.g.host_node[h]));
            }
        test_teardown(&scn, &r);
    }
}

/*
 * perfquery's counters from counters.csv: two senders of 1 MB (1000000 bytes in 245 packets of 4096 bytes,
 * the last short) through s0 to h2: s0's port to h2 sends their bytes with 26 bytes of headers each, in 4-byte
 * words; the senders' ports waited for credit.  And the doctor's warnings on a small VL buffer and congestion
 * control left off under the incast.
 */
static void test_ib_counters(void)
{
    static const char *json =
        "{\"stop\": \"5ms\", \"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", \"hosts\": 3, \"link\": "
        "{\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"switch\": {\"credit\": {\"vl_buffer\": \"16KB\", "
        "\"update\": \"4KB\"}}, \"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"incast\", "
        "\"senders\": \"h0-h1\", \"receiver\": \"h2\", \"size\": \"1MB\"}], \"monitor\": {\"counters\": true}}";
    test_write_text("/tmp/rocesim-test-ib-ctr.json", json);
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-ib-ctr.json -q --no-plot -o /tmp/rocesim-test-ib-ctr.out && "
             "%s show /tmp/rocesim-test-ib-ctr.out ib counters --node s0", test_rocesim_bin(), test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    /* 2 x 1000000 bytes + 2 x 245 x 26 header bytes = 2012740 bytes = 503185 words */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# Port counters: s0 port 2 (to h2)\nPortXmitData:....................503185\n"
                                              "PortRcvData:"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "PortXmitPkts:....................490\n"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s show /tmp/rocesim-test-ib-ctr.out ib counters --node h0", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    const char *w = out ? strstr(out, "PortXmitWait:") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(strtoull(w + 33, NULL, 10) > 0); /* h0 waited for credit */
    free(out);
    snprintf(cmd, sizeof cmd, "%s doctor /tmp/rocesim-test-ib-ctr.json", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1); /* findings */
    /* one round trip: (4122 + 2) + (6 + 2) bytes at 100 Gbps plus 2 us of cable = 29132 bytes */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "warning [ib-vl-buffer] at s0:0, s0:1, s0:2\n  seen: switch.credit.vl_buffer "
                                              "16KB below one credit round trip of 29.132KB at 100Gbps (1us of delay "
                                              "each way)"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "warning [ib-cc-off] at t0\n  seen: an incast (t0) with "
                                              "switch.ibcc.enabled false and host.cc not reacting to BECNs"));
    free(out);
    /* A RoCE run has no InfiniBand counters. */
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json -q --no-plot --set monitor.counters=true "
             "-o /tmp/rocesim-test-ib-ctr.out && %s show /tmp/rocesim-test-ib-ctr.out ib counters",
             test_rocesim_bin(), test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "ib counters: expected the run of an InfiniBand fabric"));
    free(out);
    remove("/tmp/rocesim-test-ib-ctr.json");
}

static void test_errors(void)
{
    /* A star of two hosts with one flow, after the fields each case sets. */
#define NET "\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"traffic\": " \
            "[{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}"
    static const struct test_bad bad[] = {
        {"{\"fabric\": \"infiniband\", \"switch\": {\"flow_control\": \"pfc\"}, " NET,
         "t.json: switch.flow_control: expected \"credit\" or nothing with \"fabric\": \"infiniband\" (a mixed fabric "
         "is not simulated), got \"pfc\""},
        {"{\"switch\": {\"flow_control\": \"credit\"}, " NET,
         "t.json: switch.flow_control: expected a flow control of fabric \"roce\", got \"credit\", which is "
         "infiniband's: set \"fabric\": \"infiniband\""},
        {"{\"fabric\": \"ib\", " NET, "t.json: fabric: expected one of \"roce\", \"infiniband\", got \"ib\""},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"credit\": {\"vl_buffer\": \"4100B\"}}, " NET,
         "t.json: switch.credit.vl_buffer: expected whole 64-byte credits, at least 4160 bytes (one 4096-byte "
         "packet), got 4100 bytes"},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"credit\": {\"vl_buffer\": \"32KB\", \"update\": \"16KB\"}}, " NET,
         "t.json: switch.credit.update: expected at most a quarter of vl_buffer (8KB), got \"16KB\""},
        {"{\"fabric\": \"infiniband\", \"ib\": {\"vls\": 4, \"sl2vl\": \"0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\"}, " NET,
         "t.json: ib.sl2vl: expected VLs below ib.vls (4: VLs 0-3 have buffer), got SL 4 on VL 4, which has none"},
        {"{\"fabric\": \"infiniband\", \"ib\": {\"sl2vl\": \"0,1,2\"}, " NET,
         "t.json: ib.sl2vl: expected 16 comma-separated VLs 0-14 (SL 0 first), got 3 in \"0,1,2\""},
        {"{\"fabric\": \"infiniband\", \"ib\": {\"vls\": 3}, " NET,
         "t.json: ib.vls: expected 1, 2, 4 or 8 operational VLs, got 3"},
        {"{\"fabric\": \"infiniband\", \"host\": {\"cc\": \"ibcc\", \"ibcc\": {\"cct\": \"0:0,4:1\"}}, " NET,
         "t.json: host.ibcc.cct: expected shift:multiplier entries with shift 0-3 and multiplier 0-16383, "
         "comma-separated, got \"0:0,4:1\""},
        {"{\"fabric\": \"infiniband\", \"host\": {\"cc\": \"ibcc\", \"ibcc\": {\"cct\": \"0:0,2:1\", \"ccti_limit\": 5}}, "
         NET, "t.json: host.ibcc.ccti_limit: expected at most the last entry of cct (1), got 5"},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"ibcc\": {\"enabled\": true, \"packet_size\": \"100B\"}}, " NET,
         "t.json: switch.ibcc.packet_size: expected whole 64-byte credits up to 16320 bytes (255 credits), got 100 "
         "bytes"},
        {"{\"fabric\": \"infiniband\", \"ib\": {\"routing_engine\": \"ecmp\"}, " NET,
         "t.json: ib.routing_engine: expected one of \"minhop\", \"dfsssp\", \"ftree\", \"lash\", \"updn\", got "
         "\"ecmp\""},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"scheduler\": {\"type\": \"vlarb\", \"vlarb_low\": "
         "\"0:256\"}}, " NET,
         "t.json: switch.scheduler.vlarb_low: expected VL:weight pairs with VL 0-14 and weight 0-255 (64-byte units), "
         "comma-separated, got \"0:256\""},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"scheduler\": {\"type\": \"vlarb\", \"vlarb_high\": "
         "\"15:10\"}}, " NET,
         "t.json: switch.scheduler.vlarb_high: expected VL:weight pairs with VL 0-14 and weight 0-255 (64-byte units), "
         "comma-separated, got \"15:10\""},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"scheduler\": {\"type\": \"vlarb\", \"high_limit\": 256}}, "
         NET, "t.json: switch.scheduler.high_limit: expected an integer from 0 to 255, got 256"},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"scheduler\": {\"type\": \"dwrr\", \"vlarb_low\": \"0:1\"}}, "
         NET, "t.json: switch.scheduler.vlarb_low: expected no VL arbitration table without \"type\": \"vlarb\", got "
         "one"},
        {"{\"fabric\": \"infiniband\", \"host\": {\"priority\": 3}, " NET,
         "t.json: host.priority: expected no priority with \"fabric\": \"infiniband\" (a packet's virtual lane comes "
         "from its service level: traffic.N.sl and ib.sl2vl), got one"},
        {"{\"fabric\": \"infiniband\", \"profiles\": [{\"match\": \"h0\", \"host\": {\"cnp_priority\": 5}}], "
         NET, "t.json: profiles.0.host.cnp_priority: expected no priority with \"fabric\": \"infiniband\" (a "
         "packet's virtual lane comes from its service level: traffic.N.sl and ib.sl2vl), got one"},
        {"{\"ib\": {\"vls\": 4}, " NET,
         "t.json: ib: expected no setting of fabric \"infiniband\" with \"fabric\": \"roce\" (it does not read it), "
         "got one"},
        /* each fabric's own settings, refused under the other, in a profile too */
        {"{\"switch\": {\"ibcc\": {\"enabled\": true}}, " NET,
         "t.json: switch.ibcc: expected no setting of fabric \"infiniband\" with \"fabric\": \"roce\" (it does not "
         "read it), got one"},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"ecn\": {\"kmin\": \"10KB\"}}, " NET,
         "t.json: switch.ecn: expected no setting of fabric \"roce\" with \"fabric\": \"infiniband\" (it does not "
         "read it), got one"},
        {"{\"fabric\": \"infiniband\", \"switch\": {\"buffer\": \"1MB\"}, " NET,
         "t.json: switch.buffer: expected no setting of fabric \"roce\" with \"fabric\": \"infiniband\" (it does "
         "not read it), got one"},
        {"{\"fabric\": \"infiniband\", \"profiles\": [{\"match\": \"h0\", \"host\": {\"mtu\": 4096}}, "
         "{\"match\": \"s0\", \"switch\": {\"watchdog\": {\"enabled\": true}}}], " NET,
         "t.json: profiles.1.switch.watchdog: expected no setting of fabric \"roce\" with \"fabric\": \"infiniband\" "
         "(it does not read it), got one"},
        {"{\"fabric\": \"infiniband\", \"topology\": {\"type\": \"star\", \"hosts\": 2}, \"traffic\": [{\"type\": "
         "\"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\", \"priority\": 3}]}",
         "t.json: traffic.0.priority: expected a service level (\"sl\": 0-15) with \"fabric\": \"infiniband\", got a "
         "priority"},
        {"{\"topology\": {\"type\": \"star\", \"hosts\": 2}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
         "\"dst\": \"h1\", \"size\": \"1MB\", \"sl\": 3}]}",
         "t.json: traffic.0.sl: expected a priority with \"fabric\": \"roce\" (service levels are InfiniBand's), got a "
         "service level"},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
    /* An MTU InfiniBand does not carry, found when the hosts' settings are resolved; nothing is run. */
    static const char *mtu = "{\"fabric\": \"infiniband\", \"host\": {\"mtu\": 1500}, " NET;
#undef NET
#define NET_SL1 "\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"traffic\": " \
                "[{\"type\": \"flow\", \"src\": " \
                "\"h0\", \"dst\": \"h1\", \"size\": \"1MB\", \"sl\": 1}]}"
    struct scenario scn;
    struct run r;
    char err[SCN_ERR_MAX] = "";
    CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", mtu, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "test.json: host.mtu: expected one of 256, 512, 1024, 2048, 4096 with \"fabric\": "
                                "\"infiniband\", got 1500 at host h0");
    scn_free(&scn);
    /* A service level on a VL that a switch's VL arbitration never serves (a profile took its weight away). */
    static const char *starved =
        "{\"fabric\": \"infiniband\", \"switch\": {\"scheduler\": {\"type\": \"vlarb\"}}, \"profiles\": "
        "[{\"match\": \"s0\", \"switch\": {\"scheduler\": {\"type\": \"vlarb\", \"vlarb_low\": \"0:64,1:0\"}}}], "
        NET_SL1;
#undef NET_SL1
    CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", starved, NULL, 0, &scn, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "test.json: switch.scheduler: expected a weight for VL 1 in vlarb_high or vlarb_low "
                                "(a flow's SL 1 runs on it: ib.sl2vl), got none at s0, where it would never be sent");
    scn_free(&scn);
    /* Routing engines that cannot route the ring: ftree (not a tree), lash in one VL; and a service level that a
     * layered engine would override. */
    static const struct {
        const char *engine;
        struct scn_override ov[2];
        int n_ov;
        const char *err;
    } routes[] = {
        {"ftree", {{0}}, 0, "test.json: ib.routing_engine: expected a fat tree for ftree (every switch link between "
                            "adjacent tiers, every host on the lowest), got the link s0-s1 (tiers 1 and 1): choose "
                            "updn, minhop, lash or dfsssp"},
        {"lash", {{"ib.vls", "1"}}, 1, "test.json: ib.routing_engine: expected lash's paths to fit the 1 VLs of ib.vls "
                                       "free of credit loops, got the paths between h2 and h4, which need another: "
                                       "raise ib.vls or choose updn"},
        {"dfsssp", {{"traffic.0.sl", "3"}}, 1, "test.json: traffic.0.sl: expected no service level with "
                                               "ib.routing_engine \"dfsssp\" (it puts each path on a VL of its own to "
                                               "break credit loops), got 3"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++) {
        char ring[4096];
        snprintf(ring, sizeof ring, RING5, routes[i].engine);
        CU_ASSERT_EQUAL_FATAL(scn_load_text("test.json", ring, routes[i].ov, routes[i].n_ov, &scn, err, sizeof err),
                              SCN_OK);
        CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
        if (strcmp(err, routes[i].err))
            printf("\n    got  %s\n    want %s\n", err, routes[i].err);
        CU_ASSERT_STRING_EQUAL(err, routes[i].err);
        scn_free(&scn);
    }
    /* Through the binary: exit status 2, and no output directory. */
    test_write_text("/tmp/rocesim-test-ib-bad.json", bad[0].json);
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s run /tmp/rocesim-test-ib-bad.json -o /tmp/rocesim-test-ib-bad.out",
             test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: /tmp/rocesim-test-ib-bad.json: switch.flow_control: "));
    CU_ASSERT_PTR_NULL(test_read_file("/tmp/rocesim-test-ib-bad.out/summary.json", NULL));
    free(out);
    remove("/tmp/rocesim-test-ib-bad.json");
}

void test_ib_register(void)
{
    CU_pSuite s = CU_add_suite("infiniband", NULL, NULL);
    CU_add_test(s, "16-to-1 incast: no drop, no PAUSE, senders stall on credit, receiver >= 95 % of the data rate",
                test_incast);
    CU_add_test(s, "the same files on one thread and two", test_threads);
    CU_add_test(s, "credits.csv and summary.json's stalls: every interval, the same times as counters.csv",
                test_credit_series);
    CU_add_test(s, "a failed link under credits: lost frames count as received, every flow completes",
                test_link_down);
    CU_add_test(s, "VL arbitration: bytes split by the tables' weights and the high-priority limit", test_vlarb);
    CU_add_test(s, "a flow's VL is its service level through ib.sl2vl", test_sl2vl);
    CU_add_test(s, "IB CC at the HCA: CCTI up per BECN, down per timer, the rate of its CCT entry", test_ibcc_reaction);
    CU_add_test(s, "IB CC at the switch: FECN on one packet in Marking_Rate + 1 above the threshold", test_fecn_marking);
    CU_add_test(s, "credit loops: the ring deadlocks under min-hop with its cycle, not under lash, dfsssp or updn",
                test_credit_loops);
    CU_add_test(s, "every routing engine routes a fat tree with one port per destination", test_engines_fat_tree);
    CU_add_test(s, "perfquery's counters from a run, and the doctor's InfiniBand findings", test_ib_counters);
    CU_add_test(s, "an InfiniBand run's plots: no PAUSE chart, the CCTI but no target line", test_ib_plots);
    CU_add_test(s, "bad InfiniBand settings exit 2 naming the path", test_errors);
}
