/*
 * Switch-style counters (issue 24, item 4): counters.csv with monitor.counters adds up to summary.json's totals
 * (PFC frames, ECN marks, drops by reason, CNPs, paused time), changes no result, and `rocesim show` prints it
 * as SONiC's show commands print theirs.
 */
#include "models/net.h"
#include "sim/scenario.h"
#include "tests/tests.h"
#include "tools/run/run.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STORM_WD "{\"enabled\": true, \"detection_time\": \"200us\", \"restoration_time\": \"200us\", " \
                 "\"poll_interval\": \"10us\"}"

/* counters.csv's columns summed over its rows; paused in ps (the column is in ns with up to 3 decimals). */
struct totals {
    uint64_t rows, rx_frames, tx_frames, pause_rx, pause_tx, ecn, drops[DROP_MTU + 1], cnp_tx, cnp_rx;
    int64_t paused_ps;
    bool ordered; /* rows in node, port, priority order, each (node, port, priority) once */
};

/* Milliseconds-free exact parse of "123.456" ns as ps. */
static int64_t ns_text_ps(const char *s)
{
    int64_t v = 0;
    int frac = -1;
    for (; *s && *s != ','; s++) {
        if (*s == '.') {
            frac = 0;
            continue;
        }
        v = v * 10 + (*s - '0');
        if (frac >= 0)
            frac++;
    }
    for (int i = frac < 0 ? 0 : frac; i < 3; i++)
        v *= 10;
    return v;
}

static bool sum_csv(const struct run *r, const char *csv, struct totals *t)
{
    memset(t, 0, sizeof *t);
    t->ordered = true;
    size_t hl = strcspn(csv, "\n");
    if (strncmp(csv, RUN_COUNTERS_HEADER "\n", hl + 1) != 0)
        return false;
    long prev = -1;
    for (const char *l = csv + hl + 1; *l; l = strchr(l, '\n') + 1) {
        char node[128];
        unsigned port, prio;
        unsigned long long v[16];
        char paused[32];
        int n = sscanf(l, "%127[^,],%u,%*[^,],%u,%llu,%llu,%llu,%llu,%llu,%llu,%31[^,],%llu,%llu,%llu,%llu,%llu,"
                          "%llu,%llu,%llu,%llu",
                       node, &port, &prio, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], paused, &v[6], &v[7], &v[8],
                       &v[9], &v[10], &v[11], &v[12], &v[13], &v[14]);
        if (n != 19)
            return false;
        long key = ((long)test_node(r, node) * 65536 + port) * 8 + prio;
        t->ordered &= key > prev;
        prev = key;
        t->rows++;
        t->rx_frames += v[0];
        t->tx_frames += v[2];
        t->pause_rx += v[4];
        t->pause_tx += v[5];
        t->paused_ps += ns_text_ps(paused);
        t->ecn += v[6];
        for (int d = 0; d <= DROP_MTU; d++)
            t->drops[d] += v[7 + d];
        t->cnp_tx += v[13];
        t->cnp_rx += v[14];
    }
    return true;
}

/* What the runs below must have produced between them, so that every total is checked on non-zero counts. */
static struct totals seen;

/* Runs file with counters on and up to two overrides (path NULL: none), checks counters.csv against the run's
 * own totals. */
static void check_totals(const char *file, const char *path, const char *value, const char *path2,
                         const char *value2)
{
    struct scenario scn;
    struct run r;
    struct scn_override ov[] = {{"monitor.counters", "true"}, {path, value}, {path2, value2}};
    CU_ASSERT_FATAL(test_setup_from(file, NULL, ov, path2 ? 3 : path ? 2 : 1, &scn, &r));
    test_run_checked(&r);
    char *csv = run_counters_csv(&r);
    struct totals t;
    CU_ASSERT_FATAL(sum_csv(&r, csv, &t));
    const struct net_counters *c = &r.net.c;
    uint64_t pfc = c->pause_frames + c->resume_frames;
    bool ok = t.ordered && t.pause_tx == pfc && t.ecn == c->ecn_marked && t.cnp_tx == c->cnp_sent &&
              t.cnp_rx == c->cnp_received && t.paused_ps == r.net.paused_total &&
              t.drops[DROP_BUFFER] == c->drop_buffer && t.drops[DROP_HEADROOM] == c->drop_headroom &&
              t.drops[DROP_WATCHDOG] == c->drop_watchdog && t.drops[DROP_LINK_DOWN] == c->drop_link_down &&
              t.drops[DROP_CORRUPT] == c->drop_corrupt && t.drops[DROP_MTU] == c->drop_mtu &&
              /* PFC frames lost on the way are never received; the others are, unless still on the wire */
              t.pause_rx <= pfc - c->corrupt_pause - c->corrupt_resume &&
              /* every frame put on a link is a queue's frame or a PFC frame */
              t.tx_frames <= c->packet_hops && c->packet_hops - t.tx_frames <= t.pause_tx;
    if (!ok)
        printf("\n  %s %s: counters.csv: pause_tx %llu rx %llu (summary %llu), ecn %llu (%llu), cnp %llu/%llu "
               "(%llu/%llu), drops buffer %llu (%llu) headroom %llu (%llu) watchdog %llu (%llu) link_down %llu "
               "(%llu) corrupt %llu (%llu) mtu %llu (%llu), paused %lld ps (%lld), frames %llu (hops %llu)",
               file, path ? path : "", (unsigned long long)t.pause_tx, (unsigned long long)t.pause_rx,
               (unsigned long long)pfc, (unsigned long long)t.ecn, (unsigned long long)c->ecn_marked,
               (unsigned long long)t.cnp_tx, (unsigned long long)t.cnp_rx, (unsigned long long)c->cnp_sent,
               (unsigned long long)c->cnp_received, (unsigned long long)t.drops[0],
               (unsigned long long)c->drop_buffer, (unsigned long long)t.drops[1],
               (unsigned long long)c->drop_headroom, (unsigned long long)t.drops[2],
               (unsigned long long)c->drop_watchdog, (unsigned long long)t.drops[3],
               (unsigned long long)c->drop_link_down, (unsigned long long)t.drops[4],
               (unsigned long long)c->drop_corrupt, (unsigned long long)t.drops[5], (unsigned long long)c->drop_mtu,
               (long long)t.paused_ps, (long long)r.net.paused_total, (unsigned long long)t.tx_frames,
               (unsigned long long)c->packet_hops);
    CU_ASSERT(ok);
    seen.rows += t.rows;
    seen.pause_tx += t.pause_tx;
    seen.ecn += t.ecn;
    seen.cnp_rx += t.cnp_rx;
    for (int d = 0; d <= DROP_MTU; d++)
        seen.drops[d] += t.drops[d];
    free(csv);
    test_teardown(&scn, &r);
}

static void test_totals_match_summary(void)
{
    memset(&seen, 0, sizeof seen);
    check_totals("scenarios/incast-16to1.json", NULL, NULL, NULL, NULL);               /* PFC, ECN, CNPs */
    check_totals("scenarios/pfc-storm.json", "switch.watchdog", STORM_WD, NULL, NULL); /* watchdog drops */
    check_totals("scenarios/misconfig/pfc-off.json", NULL, NULL, NULL, NULL);          /* buffer drops, lossy */
    /* link_down drops, on the wire and in queues, and corrupt ones */
    check_totals("scenarios/link-failure.json", "topology.fabric_link.loss_rate", "2e-4", NULL, NULL);
    check_totals("scenarios/misconfig/mtu-mismatch.json", "stop", "\"300us\"", NULL, NULL); /* mtu */
    /* headroom too small for the senders' frames in flight (cc none: DCQCN would slow them first) */
    check_totals("scenarios/incast-16to1.json", "switch.pfc.headroom", "\"2KB\"", "host.cc", "\"none\"");
    CU_ASSERT(seen.pause_tx > 0 && seen.ecn > 0 && seen.cnp_rx > 0);
    for (int d = 0; d <= DROP_MTU; d++) {
        if (!seen.drops[d])
            printf("\n  no run dropped a frame for reason %d", d);
        CU_ASSERT(seen.drops[d] > 0);
    }
}

/* Counting changes nothing: flows.csv, summary.json (events included; not the wall clock) and the end time. */
static void same_with_and_without(const char *file, const char *path, const char *value)
{
    char *out[2];
    for (int on = 0; on < 2; on++) {
        struct scenario scn;
        struct run r;
        struct scn_override ov[] = {{"monitor.counters", on ? "true" : "false"}, {path, value}};
        CU_ASSERT_FATAL(test_setup_from(file, NULL, ov, path ? 2 : 1, &scn, &r));
        CU_ASSERT_EQUAL(r.net.ctr != NULL, on);
        test_run_checked(&r);
        out[on] = test_run_text(&r);
        test_teardown(&scn, &r);
    }
    CU_ASSERT_STRING_EQUAL(out[0], out[1]);
    free(out[0]);
    free(out[1]);
}

static void test_results_unchanged(void)
{
    same_with_and_without("scenarios/incast-16to1.json", NULL, NULL);
    same_with_and_without("scenarios/pfc-storm.json", "switch.watchdog", STORM_WD);
    same_with_and_without("scenarios/link-failure.json", "topology.fabric_link.loss_rate", "2e-4");
}

/* Three senders to one receiver through one switch, a static XOFF low enough to pause them: every row readable. */
static const char small_json[] =
    "{\"name\": \"small\", \"topology\": {\"type\": \"star\", \"hosts\": 4, "
    "\"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"host\": {\"cc\": \"none\"}, "
    "\"switch\": {\"pfc\": {\"xoff\": \"20KB\"}}, \"monitor\": {\"counters\": true}, "
    "\"traffic\": [{\"type\": \"incast\", \"senders\": \"h0-h2\", \"receiver\": \"h3\", \"size\": \"100KB\"}]}";

static char *show(const char *dir, const char *args, int *rc)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s show %s %s 2>&1", test_rocesim_bin(), dir, args);
    *rc = test_run(cmd, &out);
    return out;
}

static void test_show_tables(void)
{
    char tmp[] = "/tmp/rocesim-counters-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/small.json", tmp);
    test_write_text(path, small_json);
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s/o", test_rocesim_bin(), path, tmp);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/o", tmp);
    int rc;
    char *o = show(dir, "interfaces counters", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(o,
        "IFACE  STATE  RX_OK  RX_BPS  RX_UTIL  RX_ERR  RX_DRP  RX_OVR  TX_OK  TX_BPS  TX_UTIL  TX_ERR  TX_DRP  TX_OVR\n"
        "-----  -----  -----  ------  -------  ------  ------  ------  -----  ------  -------  ------  ------  ------\n"
        " h0:0    N/A    102     N/A      N/A       0       0     N/A     98     N/A      N/A     N/A     N/A     N/A\n"
        " h1:0    N/A    102     N/A      N/A       0       0     N/A     98     N/A      N/A     N/A     N/A     N/A\n"
        " h2:0    N/A    102     N/A      N/A       0       0     N/A     98     N/A      N/A     N/A     N/A     N/A\n"
        " h3:0    N/A    294     N/A      N/A       0       0     N/A    294     N/A      N/A     N/A     N/A     N/A\n"
        " s0:0    N/A     98     N/A      N/A       0       0     N/A    102     N/A      N/A     N/A     N/A     N/A\n"
        " s0:1    N/A     98     N/A      N/A       0       0     N/A    102     N/A      N/A     N/A     N/A     N/A\n"
        " s0:2    N/A     98     N/A      N/A       0       0     N/A    102     N/A      N/A     N/A     N/A     N/A\n"
        " s0:3    N/A    294     N/A      N/A       0       0     N/A    294     N/A      N/A     N/A     N/A     N/A\n");
    free(o);
    o = show(dir, "pfc counters --node s0", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(o,
        "Port Rx  PFC0  PFC1  PFC2  PFC3  PFC4  PFC5  PFC6  PFC7\n"
        "-------  ----  ----  ----  ----  ----  ----  ----  ----\n"
        "   s0:0     0     0     0     0     0     0     0     0\n"
        "   s0:1     0     0     0     0     0     0     0     0\n"
        "   s0:2     0     0     0     0     0     0     0     0\n"
        "   s0:3     0     0     0     0     0     0     0     0\n"
        "\n"
        "Port Tx  PFC0  PFC1  PFC2  PFC3  PFC4  PFC5  PFC6  PFC7\n"
        "-------  ----  ----  ----  ----  ----  ----  ----  ----\n"
        "   s0:0     0     0     0     4     0     0     0     0\n"
        "   s0:1     0     0     0     4     0     0     0     0\n"
        "   s0:2     0     0     0     4     0     0     0     0\n"
        "   s0:3     0     0     0     0     0     0     0     0\n");
    free(o);
    o = show(dir, "queue counters --node h0", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(o,
        "Port  TxQ  Counter/pkts  Counter/bytes  Drop/pkts  Drop/bytes\n"
        "----  ---  ------------  -------------  ---------  ----------\n"
        "h0:0  UC0             0              0          0         N/A\n"
        "h0:0  UC1             0              0          0         N/A\n"
        "h0:0  UC2             0              0          0         N/A\n"
        "h0:0  UC3            98        106,076          0         N/A\n"
        "h0:0  UC4             0              0          0         N/A\n"
        "h0:0  UC5             0              0          0         N/A\n"
        "h0:0  UC6             0              0          0         N/A\n"
        "h0:0  UC7             0              0          0         N/A\n");
    free(o);

    /* Errors: a run without counters.csv (and a reused directory loses the old one), bad words, a bad file. */
    snprintf(cmd, sizeof cmd, "%s run %s --set monitor.counters=false -q --no-plot -o %s/o", test_rocesim_bin(),
             path, tmp);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    o = show(dir, "pfc counters", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strncmp(o, "rocesim: ", 9) == 0 && strstr(o, "no counters.csv") && strstr(o, "monitor.counters: true"));
    free(o);
    o = show(dir, "interfaces", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "rocesim: show: expected DIR and one of") != NULL);
    free(o);
    o = show(dir, "queue counters --port 3", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "rocesim: show: unexpected argument \"--port\"") != NULL);
    free(o);
    snprintf(path, sizeof path, "%s/o/counters.csv", tmp);
    test_write_text(path, "node,port\nh0,0\n");
    o = show(dir, "pfc counters", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "counters.csv: line 1: expected counters.csv's header") != NULL);
    free(o);
    /* a bad row: the line, the column and the value that is wrong */
    static const char *const rows[][2] = {
        {"h0,0,s0,9,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0", "line 2: column priority: expected a priority 0-7, got \"9\""},
        {"h0,0,s0,3,1,1,1,1,0,0,0,0,0,0,0,0,0,x,0,0,0", "line 2: column drops_mtu: expected a count (a whole number "
                                                   ">= 0), got \"x\""},
        {"h0,0,s0,3,1,1,1,1,0,0,1.5.2,0,0,0,0,0,0,0,0,0,0", "line 2: column paused_ns: expected a time in ns (a number "
                                                       ">= 0), got \"1.5.2\""},
        {"h0,70000,s0,3,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0", "line 2: column port: expected a port number 0-65535, got "
                                                       "\"70000\""},
        {"h0,0,s0,3,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0", "line 2: expected 21 comma-separated fields (node,port,peer,"
                                                 "priority,rx_frames,"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "%s\n%s\n", RUN_COUNTERS_HEADER, rows[k][0]);
        test_write_text(path, text);
        o = show(dir, "pfc counters", &rc);
        CU_ASSERT_EQUAL(rc, 2);
        if (!strstr(o, rows[k][1]))
            printf("\n  show on %s: %s", rows[k][0], o);
        CU_ASSERT(strncmp(o, "rocesim: ", 9) == 0 && strstr(o, "counters.csv: ") && strstr(o, rows[k][1]));
        free(o);
    }
    /* a NUL byte is bad input too, at its line */
    FILE *nf = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nf);
    fprintf(nf, "%s\nh0,0,s0,3,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0\nh0,1,s", RUN_COUNTERS_HEADER);
    fputc(0, nf);
    fclose(nf);
    o = show(dir, "pfc counters", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "counters.csv: line 3: expected a text file, got a NUL byte at offset") != NULL);
    free(o);
    test_write_text(path, RUN_COUNTERS_HEADER "\nh0,0,s0,3,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
    o = show(dir, "pfc counters --node tor9", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "--node tor9: no port of that node") != NULL);
    free(o);
    o = show("/nonexistent/run", "pfc counters", &rc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(strstr(o, "rocesim: /nonexistent/run: expected the output directory of a run") != NULL);
    free(o);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

void test_counters_register(void)
{
    CU_pSuite s = CU_add_suite("counters and show", NULL, NULL);
    CU_add_test(s, "counters.csv totals equal summary.json's", test_totals_match_summary);
    CU_add_test(s, "counting changes no result", test_results_unchanged);
    CU_add_test(s, "show prints SONiC's tables, and refuses what it cannot read", test_show_tables);
}
