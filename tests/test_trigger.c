/*
 * Triggers (models/trigger.h): flows that start when others end, as the UEC reference simulator's connection
 * matrices chain them.  A started flow's start is the activation's instant exactly, on every transport and
 * congestion control; a barrier waits for its count, a multishot trigger starts its flows one per activation in
 * traffic order; the hosts a trigger joins share a partition, and the chained scenario gives the same bytes on 1,
 * 2 and 4 threads; and the loader's refusals.
 */
#include "tests/tests.h"
#include "models/trigger.h"
#include "sim/parallel.h"
#include "tools/run/run.h"
#include "topologies/partition.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A star of 8 hosts at 100 Gbit/s, 1 us links, with these triggers and flows, and more top-level text. */
#define STAR(extra, triggers, flows)                                                                              \
    "{\"topology\": {\"type\": \"star\", \"hosts\": 8, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}" extra \
    ", \"triggers\": [" triggers "], \"traffic\": [" flows "]}"

static void run_text(const char *json, struct scenario *scn, struct run *r)
{
    CU_ASSERT_FATAL(test_setup(json, NULL, NULL, scn, r));
    test_run_checked(r);
}

/* c starts when a's sender has its last ACK (on_sent) or its receiver the last byte (on_received), at that
 * instant, under every congestion control and transport of a RoCE fabric; alone on the network then, it takes
 * exactly its ideal time. */
static void test_chain_exact(void)
{
    static const char *const ccs[] = {"dcqcn", "dctcp", "hpcc", "swift", "timely", "none"};
    static const char *const tps[] = {"go-back-n", "selective"};
    char json[2048];
    for (int on = 0; on < 2; on++)
        for (size_t i = 0; i < sizeof ccs / sizeof *ccs; i++)
            for (size_t j = 0; j < sizeof tps / sizeof *tps; j++) {
                snprintf(json, sizeof json,
                         STAR(", \"host\": {\"cc\": \"%s\", \"loss_recovery\": \"%s\"}",
                              "{\"id\": \"t7\", \"type\": \"oneshot\"}",
                              "{\"type\": \"flow\", \"id\": \"a\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": "
                              "\"300KB\", \"%s\": \"t7\"}, {\"type\": \"flow\", \"id\": \"c\", \"src\": \"h2\", "
                              "\"dst\": \"h3\", \"size\": \"200KB\", \"trigger\": \"t7\"}"),
                         ccs[i], tps[j], on ? "on_received" : "on_sent");
                struct scenario scn;
                struct run r;
                run_text(json, &scn, &r);
                const struct flow *a = test_flow_named(&r, "a"), *c = test_flow_named(&r, "c");
                CU_ASSERT(a->acked > a->finish && a->finish > 0);
                CU_ASSERT_EQUAL(c->start, on ? a->finish : a->acked);
                if (strcmp(ccs[i], "hpcc") != 0) /* HPCC's INT bytes are no part of the ideal time */
                    CU_ASSERT_EQUAL(c->finish - c->start, c->ideal_fct);
                CU_ASSERT(r.finished);
                if (c->start != (on ? a->finish : a->acked))
                    fprintf(stderr, "\n  %s, %s, %s: c starts at %lld ps, a ends at %lld ps\n", ccs[i], tps[j],
                            on ? "on_received" : "on_sent", (long long)c->start,
                            (long long)(on ? a->finish : a->acked));
                test_teardown(&scn, &r);
            }
}

/* A barrier of 3 fires at its third activation, not its second; a oneshot trigger activated twice starts its
 * flows once, at the first; activations of a barrier past its count do nothing. */
static void test_barrier_and_oneshot(void)
{
    const char *json =
        STAR("", "{\"id\": \"b1\", \"type\": \"barrier\", \"count\": 3}, {\"id\": \"o\", \"type\": \"oneshot\"}",
             "{\"type\": \"flow\", \"id\": \"p\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"100KB\", "
             "\"on_received\": \"b1\", \"on_sent\": \"o\"},"
             "{\"type\": \"flow\", \"id\": \"q\", \"src\": \"h1\", \"dst\": \"h5\", \"size\": \"300KB\", "
             "\"on_received\": \"b1\", \"on_sent\": \"o\"},"
             "{\"type\": \"flow\", \"id\": \"s\", \"src\": \"h2\", \"dst\": \"h6\", \"size\": \"200KB\", "
             "\"on_received\": \"b1\"},"
             "{\"type\": \"flow\", \"id\": \"u\", \"src\": \"h3\", \"dst\": \"h7\", \"size\": \"500KB\", "
             "\"on_received\": \"b1\"},"
             "{\"type\": \"flow\", \"id\": \"e\", \"src\": \"h7\", \"dst\": \"h0\", \"size\": \"50KB\", "
             "\"trigger\": \"b1\"},"
             "{\"type\": \"flow\", \"id\": \"o1\", \"src\": \"h6\", \"dst\": \"h1\", \"size\": \"50KB\", "
             "\"trigger\": \"o\"},"
             "{\"type\": \"flow\", \"id\": \"o2\", \"src\": \"h5\", \"dst\": \"h2\", \"size\": \"50KB\", "
             "\"trigger\": \"o\"}");
    struct scenario scn;
    struct run r;
    run_text(json, &scn, &r);
    const struct flow *p = test_flow_named(&r, "p"), *q = test_flow_named(&r, "q"), *s = test_flow_named(&r, "s");
    const struct flow *u = test_flow_named(&r, "u"), *e = test_flow_named(&r, "e");
    const struct flow *o1 = test_flow_named(&r, "o1"), *o2 = test_flow_named(&r, "o2");
    /* sizes order the receipts: p, s, q, then u (the fourth activation, which does nothing) */
    CU_ASSERT(p->finish < s->finish && s->finish < q->finish && q->finish < u->finish);
    CU_ASSERT_EQUAL(e->start, q->finish);
    CU_ASSERT(e->start > s->finish);
    /* p's ACK comes first: both targets of the oneshot start then, and q's later ACK starts nothing again */
    CU_ASSERT(p->acked < q->acked);
    CU_ASSERT_EQUAL(o1->start, p->acked);
    CU_ASSERT_EQUAL(o2->start, p->acked);
    CU_ASSERT_EQUAL(r.net.flows_completed, 7);
    test_teardown(&scn, &r);
}

/* Each activation of a multishot trigger starts the next waiting flow in traffic order; a waiting flow beyond its
 * activations never starts, the run ends without it, and its row in flows.csv has no start nor anything after. */
static void test_multishot(void)
{
    const char *json =
        STAR("", "{\"id\": \"m1\", \"type\": \"multishot\"}",
             "{\"type\": \"flow\", \"id\": \"x\", \"src\": \"h0\", \"dst\": \"h4\", \"size\": \"300KB\", "
             "\"on_sent\": \"m1\"},"
             "{\"type\": \"flow\", \"id\": \"y\", \"src\": \"h1\", \"dst\": \"h5\", \"size\": \"100KB\", "
             "\"on_sent\": \"m1\"},"
             "{\"type\": \"flow\", \"id\": \"f\", \"src\": \"h2\", \"dst\": \"h6\", \"size\": \"50KB\", "
             "\"trigger\": \"m1\"},"
             "{\"type\": \"flow\", \"id\": \"g\", \"src\": \"h3\", \"dst\": \"h7\", \"size\": \"50KB\", "
             "\"trigger\": \"m1\"},"
             "{\"type\": \"flow\", \"id\": \"h\", \"src\": \"h7\", \"dst\": \"h3\", \"size\": \"50KB\", "
             "\"trigger\": \"m1\"}");
    struct scenario scn;
    struct run r;
    run_text(json, &scn, &r);
    const struct flow *x = test_flow_named(&r, "x"), *y = test_flow_named(&r, "y");
    const struct flow *f = test_flow_named(&r, "f"), *g = test_flow_named(&r, "g"), *h = test_flow_named(&r, "h");
    CU_ASSERT(y->acked < x->acked);
    CU_ASSERT_EQUAL(f->start, y->acked);
    CU_ASSERT_EQUAL(g->start, x->acked);
    CU_ASSERT(!h->started);
    CU_ASSERT_EQUAL(h->start, -1);
    CU_ASSERT_EQUAL(h->finish, -1);
    CU_ASSERT(r.finished);
    CU_ASSERT(r.net.sim->now < scn.stop_ps);
    char *csv = run_flows_csv(&r);
    CU_ASSERT(strstr(csv, "\nh,h7,h3,3,50000,,,,,,,,,,,,\n") != NULL);
    free(csv);
    test_teardown(&scn, &r);
}

/* The hosts a trigger joins share a partition on a k=4 fat-tree cut in four, which without the ties would put
 * them in different ones; the chained scenario's flows still cross partitions; and its outputs are the same bytes
 * on 1, 2 and 4 threads. */
static void test_partitions(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("scenarios/triggers-chain.json", NULL, NULL, 0, &scn, &r));
    uint32_t (*ties)[2] = NULL;
    uint32_t n = trigger_ties(&scn, &ties);
    /* t7: h0 (a's sender) with h4 (c's sender); b1: h12, h13, h15 (receivers) with h14 (e's sender); m1: h14 with
     * h15, h12, h13 */
    CU_ASSERT_EQUAL(n, 1 + 3 + 3);
    struct partition_plan free_plan, tied;
    CU_ASSERT_FATAL(partition_plan(&r.g, NULL, 4, &free_plan) == 0);
    CU_ASSERT_FATAL(partition_plan_tied(&r.g, NULL, 4, (const uint32_t(*)[2])ties, n, &tied) == 0);
    uint32_t h0 = r.g.host_node[0], h4 = r.g.host_node[4], h8 = r.g.host_node[8], h12 = r.g.host_node[12];
    CU_ASSERT_NOT_EQUAL(free_plan.part[h0], free_plan.part[h4]);
    CU_ASSERT_EQUAL(tied.part[h0], tied.part[h4]);
    CU_ASSERT_NOT_EQUAL(tied.part[h0], tied.part[h8]);  /* a crosses partitions */
    CU_ASSERT_NOT_EQUAL(tied.part[h4], tied.part[h12]); /* and so does c */
    for (uint32_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(tied.part[r.g.host_node[ties[i][0]]], tied.part[r.g.host_node[ties[i][1]]]);
    partition_free(&free_plan);
    partition_free(&tied);
    free(ties);
    test_teardown(&scn, &r);

    char *text[3];
    static const unsigned threads[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        run_set_threads(threads[k]);
        CU_ASSERT_FATAL(test_setup_from("scenarios/triggers-chain.json", NULL, NULL, 0, &scn, &r));
        test_run_checked(&r);
        if (k == 2) {
            CU_ASSERT_EQUAL(r.par.n, 4);
            CU_ASSERT_EQUAL(r.par.ent_part[net_ent(r.g.host_node[0])], r.par.ent_part[net_ent(r.g.host_node[4])]);
            CU_ASSERT_NOT_EQUAL(r.par.ent_part[net_ent(r.g.host_node[0])],
                                r.par.ent_part[net_ent(r.g.host_node[8])]);
        }
        const struct flow *a = test_flow_named(&r, "a"), *c = test_flow_named(&r, "c");
        CU_ASSERT_EQUAL(c->start, a->acked);
        text[k] = test_run_text(&r);
        test_teardown(&scn, &r);
    }
    run_set_threads(1);
    CU_ASSERT_STRING_EQUAL(text[0], text[1]);
    CU_ASSERT_STRING_EQUAL(text[0], text[2]);
    for (int k = 0; k < 3; k++)
        free(text[k]);
}

#define F(id, more)                                                                                               \
    "{\"type\": \"flow\", \"id\": \"" id "\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1KB\"" more "}"

#define TWO "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"1Gbps\", \"delay\": \"1us\"}}"

static void test_errors(void)
{
    static const struct test_bad bad[] = {
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}", F("a", ", \"on_sent\": \"t\"") ","
              F("c", ", \"trigger\": \"t\", \"start\": \"1us\"")),
         "t.json: traffic.1.trigger: expected either a trigger or a start, got both (the flow starts when trigger "
         "\"t\" fires)"},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}", F("a", ", \"on_sent\": \"t\"") ","
              F("c", ", \"trigger\": \"u\"")),
         "t.json: traffic.1.trigger: expected the id of a trigger declared in triggers, got \"u\""},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}", F("a", ", \"on_received\": \"v\"") ","
              F("c", ", \"trigger\": \"t\"")),
         "t.json: traffic.0.on_received: expected the id of a trigger declared in triggers, got \"v\""},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}, {\"id\": \"w\", \"type\": \"oneshot\"}",
              F("a", ", \"on_sent\": \"t\"") "," F("c", ", \"trigger\": \"t\"")),
         "t.json: triggers.1: expected a trigger some flow waits on (\"trigger\": \"w\"), got one no flow waits on"},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}", F("a", "") "," F("c", ", \"trigger\": \"t\"")),
         "t.json: triggers.0: expected a trigger that can fire, got \"t\", which no flow that can start activates "
         "(\"on_sent\" or \"on_received\"; a flow waiting on it, directly or through other triggers, cannot)"},
        /* a cycle: c waits on t, which only c activates */
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}", F("a", "") "," F("c", ", \"trigger\": \"t\", "
                                                                             "\"on_received\": \"t\"")),
         "t.json: triggers.0: expected a trigger that can fire, got \"t\", which no flow that can start activates "
         "(\"on_sent\" or \"on_received\"; a flow waiting on it, directly or through other triggers, cannot)"},
        {STAR("", "{\"id\": \"b\", \"type\": \"barrier\", \"count\": 3}",
              F("a", ", \"on_sent\": \"b\", \"on_received\": \"b\"") "," F("c", ", \"trigger\": \"b\"")),
         "t.json: triggers.0: expected a trigger that can fire, got barrier \"b\" of count 3 with only 2 "
         "activations from flows that can start"},
        {STAR("", "{\"id\": \"b\", \"type\": \"barrier\"}",
              F("a", ", \"on_sent\": \"b\"") "," F("c", ", \"trigger\": \"b\"")),
         "t.json: triggers.0.count: expected the activations a barrier waits for, an integer of at least 1, got "
         "nothing (a barrier requires it)"},
        {STAR("", "{\"id\": \"b\", \"type\": \"barrier\", \"count\": 0}", F("a", "")),
         "t.json: triggers.0.count: expected an integer of at least 1, got 0"},
        {STAR("", "{\"id\": \"m\", \"type\": \"multishot\", \"count\": 2}", F("a", "")),
         "t.json: triggers.0.count: expected no count for a multishot trigger (only a barrier counts its "
         "activations)"},
        {STAR("", "{\"id\": \"m\", \"type\": \"twoshot\"}", F("a", "")),
         "t.json: triggers.0.type: expected one of \"oneshot\", \"multishot\", \"barrier\", got \"twoshot\""},
        {STAR("", "{\"type\": \"oneshot\"}", F("a", "")),
         "t.json: triggers.0.id: expected a trigger id like \"t7\", got nothing (this field is required)"},
        {STAR("", "{\"id\": \"t.1\", \"type\": \"oneshot\"}", F("a", "")),
         "t.json: triggers.0.id: expected a trigger id without whitespace, quotes, commas or \".\", got \"t.1\""},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\"}, {\"id\": \"t\", \"type\": \"barrier\", \"count\": 1}",
              F("a", "")),
         "t.json: triggers.1.id: expected a unique trigger id, got \"t\" (also the id of triggers.0)"},
        {STAR("", "{\"id\": \"t\", \"type\": \"oneshot\", \"when\": 1}", F("a", "")),
         "t.json: triggers.0.when: expected one of the fields id, type, count, got unknown field \"when\""},
        {TWO ", \"triggers\": {}, \"traffic\": [" F("a", "") "]}",
         "t.json: triggers: expected an array of triggers like [{\"id\": \"t7\", \"type\": \"oneshot\"}], got an "
         "object"},
        {TWO ", \"traffic\": [" F("a", ", \"trigger\": \"t\"") "]}",
         "t.json: traffic.0.trigger: expected the id of a trigger declared in triggers, got \"t\""},
    };
    test_load_errors(bad, sizeof bad / sizeof *bad);
}

/* rocesim check's dump shows the triggers and the flows' keys, a waiting flow without a start, and loads back to
 * the same scenario; a scenario without triggers dumps no "triggers". */
static void test_dump(void)
{
    const char *json = STAR("", "{\"id\": \"b\", \"type\": \"barrier\", \"count\": 2}, {\"id\": \"m\", \"type\": "
                                "\"multishot\"}",
                            F("a", ", \"on_sent\": \"b\", \"on_received\": \"b\"") ","
                            F("c", ", \"trigger\": \"b\", \"on_sent\": \"m\"") "," F("d", ", \"trigger\": \"m\""));
    struct scenario s, back;
    CU_ASSERT_FATAL(test_load(json, &s));
    char *dump = scn_to_json(&s);
    cJSON *j = cJSON_Parse(dump);
    CU_ASSERT_FATAL(j != NULL);
    char *tr = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "triggers"));
    CU_ASSERT_STRING_EQUAL(tr, "[{\"id\":\"b\",\"type\":\"barrier\",\"count\":2},"
                               "{\"id\":\"m\",\"type\":\"multishot\"}]");
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(j, "traffic");
    static const char *const want[3] = {
        "{\"type\":\"flow\",\"id\":\"a\",\"src\":\"h0\",\"dst\":\"h1\",\"size\":\"1KB\",\"on_sent\":\"b\","
        "\"on_received\":\"b\",\"start\":\"0ps\",\"priority\":3}",
        "{\"type\":\"flow\",\"id\":\"c\",\"src\":\"h0\",\"dst\":\"h1\",\"size\":\"1KB\",\"trigger\":\"b\","
        "\"on_sent\":\"m\",\"priority\":3}",
        "{\"type\":\"flow\",\"id\":\"d\",\"src\":\"h0\",\"dst\":\"h1\",\"size\":\"1KB\",\"trigger\":\"m\","
        "\"priority\":3}"};
    for (int i = 0; i < 3; i++) {
        char *e = cJSON_PrintUnformatted(cJSON_GetArrayItem(traffic, i));
        CU_ASSERT_STRING_EQUAL(e, want[i]);
        free(e);
    }
    free(tr);
    cJSON_Delete(j);
    CU_ASSERT_FATAL(test_load(dump, &back));
    char *again = scn_to_json(&back);
    CU_ASSERT_STRING_EQUAL(dump, again);
    free(again);
    free(dump);
    scn_free(&back);
    scn_free(&s);
    CU_ASSERT_FATAL(test_load(STAR("", "", F("a", "")), &s));
    dump = scn_to_json(&s);
    CU_ASSERT(strstr(dump, "triggers") == NULL);
    free(dump);
    scn_free(&s);
}

void test_trigger_register(void)
{
    CU_pSuite s = CU_add_suite("triggers", NULL, NULL);
    CU_add_test(s, "a chained flow starts at the instant the other ends, on every cc and transport", test_chain_exact);
    CU_add_test(s, "a barrier fires at its count-th activation, a oneshot once", test_barrier_and_oneshot);
    CU_add_test(s, "a multishot starts one flow per activation in order; one left never starts", test_multishot);
    CU_add_test(s, "a trigger's hosts share a partition; the same bytes on 1, 2, 4 threads", test_partitions);
    CU_add_test(s, "the loader refuses bad triggers and references", test_errors);
    CU_add_test(s, "check's dump shows the triggers and loads back", test_dump);
}
