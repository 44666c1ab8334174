/*
 * doctor: every misconfiguration of scenarios/misconfig/ and lab 10's mysteries gets the finding that names its
 * mistake, before a run and after it; the shipped scenarios meant to be healthy get none, and those where a
 * finding is right (docs/doctor.md) get exactly that one; the CLI's exit statuses and doctor.json.
 */
#include "tests/tests.h"

#include "models/net.h"
#include "models/pfc.h"
#include "models/pfcwd.h"
#include "sim/units.h"
#include "sim/scenario.h"
#include "tools/ops/doctor.h"
#include "tools/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checks of rep, sorted, comma-separated. */
static void ids_of(const struct doc_report *rep, char *buf, size_t len)
{
    const char *ids[64];
    int n = 0;
    for (int i = 0; i < rep->n && n < 64; i++)
        ids[n++] = rep->f[i].id;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(ids[j - 1], ids[j]) > 0; j--) {
            const char *t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    size_t u = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s%s", i ? "," : "", ids[i]);
}

static void expect_ids(const char *what, const struct doc_report *rep, const char *want)
{
    char got[1024];
    ids_of(rep, got, sizeof got);
    if (strcmp(got, want)) {
        printf("\n  %s: doctor found [%s], expected [%s]\n", what, got, want);
        doctor_print(stdout, rep, what);
    }
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* Before a run: the scenario's resolved settings. */
static void before(const char *file, const char *want)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from(file, NULL, NULL, 0, &scn, &r));
    struct doc_report rep = {0};
    doctor_scenario(&r, &rep);
    expect_ids(file, &rep, want);
    doctor_report_free(&rep);
    test_teardown(&scn, &r);
}

struct expect {
    const char *file, *before, *after;
    const char *stop; /* a shorter run where the whole one is slow, else NULL */
};

static const struct expect cases[] = {
    /* lab 10's healthy fabric, the misconfigurations built from it, and its mysteries */
    {"scenarios/labs/10-bandwidth-far-below/healthy.json", "", "", NULL},
    {"scenarios/misconfig/pfc-off.json", "lossy-go-back-n,roce-priority-lossy",
     "lossy-go-back-n,roce-drops,roce-priority-lossy,throughput-low", NULL},
    {"scenarios/misconfig/pfc-off-one-switch.json", "lossy-go-back-n,roce-priority-lossy",
     "lossy-go-back-n,roce-drops,roce-priority-lossy,throughput-low", NULL},
    {"scenarios/misconfig/nic-unprotected-priority.json", "lossy-go-back-n,roce-priority-lossy",
     "lossy-go-back-n,roce-drops,roce-priority-lossy,throughput-low", NULL},
    {"scenarios/misconfig/one-nic-unprotected.json", "lossy-go-back-n,roce-priority-lossy",
     "lossy-go-back-n,pause-storm,pause-tree,roce-priority-lossy", NULL},
    {"scenarios/misconfig/ecn-off.json", "ecn-off", "ecn-off,pause-tree,throughput-low", NULL},
    /* the spines never queue in this workload: only the settings show it */
    {"scenarios/misconfig/ecn-off-spines.json", "ecn-off", "ecn-off", NULL},
    {"scenarios/misconfig/mtu-mismatch.json", "mtu-mismatch", "mtu-drops,mtu-mismatch", NULL},
    {"scenarios/labs/10-bandwidth-far-below/mystery-a.json", "ecn-above-xoff,ecn-above-xoff",
     "ecn-above-xoff,ecn-above-xoff,pause-tree,throughput-low", NULL},
    {"scenarios/labs/10-bandwidth-far-below/mystery-b.json", "dcqcn-timers", "dcqcn-timers,throughput-low", NULL},
    {"scenarios/labs/10-bandwidth-far-below/mystery-c.json", "lossy-go-back-n,roce-priority-lossy",
     "lossy-go-back-n,roce-drops,roce-priority-lossy,throughput-low", NULL},
    /* the shipped scenarios: healthy, or pathologies on purpose (docs/doctor.md says why each finding is right) */
    {"scenarios/allreduce-leafspine.json", "", "", "300us"},
    {"scenarios/custom-ring.json", "", "", NULL},
    {"scenarios/deadlock-ring.json", "", "pfc-deadlock", NULL},
    {"scenarios/dragonfly.json", "", "", NULL},
    {"scenarios/dumbbell.json", "", "", NULL},
    {"scenarios/fat-tree-k4.json", "", "", NULL},
    {"scenarios/hpcc-fabric.json", "ecn-above-xoff,ecn-above-xoff,ecn-above-xoff", NULL, NULL},
    {"scenarios/incast-16to1.json", "", "", NULL},
    {"scenarios/link-failure.json", "", "", NULL},
    {"scenarios/pfc-storm.json", "", "pause-storm,pause-tree,spurious-timeouts", NULL},
    {"scenarios/qos-training-checkpoint.json", "", "", NULL},
    {"scenarios/victim-flow.json", "", "", NULL},
    {"scenarios/websearch-fattree.json", "", "", NULL},
};

/* This test run's own directory for the runs it doctors: a suite running beside another (make test and make asan
 * in one checkout) must not read the other's files. */
static char droot[64];

static int suite_init(void)
{
    snprintf(droot, sizeof droot, "/tmp/rocesim-doctor-XXXXXX");
    return mkdtemp(droot) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", droot);
    return test_run(cmd, NULL) == 0 ? 0 : -1;
}

static void test_before(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        before(cases[i].file, cases[i].before);
}

/* After a run: ./rocesim run, then the doctor on its directory (the settings' findings come again, from the
 * directory's scenario.json, with the run's). */
static void test_after(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct expect *e = &cases[i];
        if (!e->after)
            continue; /* hpcc-fabric: 320 hosts, too slow for make test; its settings are checked above */
        char cmd[1024], dir[256];
        snprintf(dir, sizeof dir, "%s/%zu", droot, i);
        snprintf(cmd, sizeof cmd, "%s run %s -o %s --no-plot -q%s%s > /dev/null", test_rocesim_bin(), e->file, dir,
                 e->stop ? " --stop " : "", e->stop ? e->stop : "");
        CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
        char out[1024];
        snprintf(cmd, sizeof cmd, "%s doctor %s", test_rocesim_bin(), dir);
        int rc = test_run(cmd, NULL);
        CU_ASSERT_EQUAL(rc, e->after[0] ? 1 : 0);
        /* doctor.json holds the same findings as the report */
        snprintf(out, sizeof out, "%s/doctor.json", dir);
        char *js = test_read_file(out, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(js);
        struct scenario scn;
        struct run r;
        snprintf(out, sizeof out, "%s/scenario.json", dir);
        CU_ASSERT_FATAL(test_setup_from(out, NULL, NULL, 0, &scn, &r));
        struct doc_report rep = {0};
        char err[512];
        doctor_scenario(&r, &rep);
        CU_ASSERT_EQUAL(doctor_outputs(dir, &r, &rep, err, sizeof err), 0);
        expect_ids(e->file, &rep, e->after);
        for (int k = 0; k < rep.n; k++) {
            char needle[64];
            snprintf(needle, sizeof needle, "\"check\":\t\"%s\"", rep.f[k].id);
            CU_ASSERT_PTR_NOT_NULL(strstr(js, needle));
        }
        free(js);
        doctor_report_free(&rep);
        test_teardown(&scn, &r);
    }
}

/* What the findings say: where, and the values that make them. */
static void test_wording(void)
{
    struct scenario scn;
    struct run r;
    CU_ASSERT_FATAL(test_setup_from("scenarios/misconfig/pfc-off-one-switch.json", NULL, NULL, 0, &scn, &r));
    struct doc_report rep = {0};
    doctor_scenario(&r, &rep);
    const struct doc_finding *f = doctor_find(&rep, "roce-priority-lossy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->where, "leaf1 (10 of 10 ports)");
    CU_ASSERT_PTR_NOT_NULL(strstr(f->seen, "priority 3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(f->seen, "switch.pfc.enabled false"));
    CU_ASSERT_EQUAL(f->sev, DOC_ERROR);
    doctor_report_free(&rep);
    test_teardown(&scn, &r);

    /* a 4 KB static xoff under a 200 KB kmax; a headroom of 2 KB on 100 Gbps links with 1 us of cable */
    struct scn_override ov[] = {{"switch.pfc.xoff", "\"4KB\""}, {"switch.pfc.headroom", "\"2KB\""}};
    CU_ASSERT_FATAL(test_setup_from("scenarios/labs/10-bandwidth-far-below/healthy.json", NULL, ov, 2, &scn, &r));
    doctor_scenario(&r, &rep);
    f = doctor_find(&rep, "ecn-above-xoff");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->seen, "ECN kmin 5KB is at or above the PFC point 4KB (the static xoff)");
    f = doctor_find(&rep, "headroom-short");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* port by port: the 16 host ports of the leaves, then their 8 fabric ports with the spines' */
    CU_ASSERT_STRING_EQUAL(f->seen, "PFC headroom 2KB per lossless priority at 100Gbps ports; the cable and rate need "
                           "53.214KB (frames of up to 1086 bytes arrive, 1086 leave)");
    CU_ASSERT_STRING_EQUAL(f->where, "leaf0:0, leaf0:1, leaf0:2, leaf0:3, leaf0:4, leaf0:5");
    CU_ASSERT_EQUAL(f->n_where, 16);
    CU_ASSERT_FATAL(rep.n == 3 && !strcmp(rep.f[2].id, "headroom-short"));
    CU_ASSERT_STRING_EQUAL(rep.f[2].seen, "PFC headroom 2KB per lossless priority at 400Gbps ports; the cable and rate "
                           "need 128.148KB (frames of up to 1086 bytes arrive, 1086 leave)");
    CU_ASSERT_STRING_EQUAL(rep.f[2].where, "leaf0:8, leaf0:9, leaf1:8, leaf1:9, spine0:0, spine0:1");
    CU_ASSERT_EQUAL(rep.f[2].n_where, 8);
    doctor_report_free(&rep);
    test_teardown(&scn, &r);
    /* a finding on some of a switch's ports names them: the first four and how many more; all of them, the switch */
    struct scn_override pov[] = {{"profiles", "[{\"match\": [\"leaf1:3\", \"leaf0:*\"], \"switch\": {\"pfc\": "
                                  "{\"enabled\": false}}}, {\"match\": [\"spine0:1\", \"leaf1:0\", \"leaf1:1\", "
                                  "\"leaf1:2\", \"leaf1:4\", \"leaf1:5\", \"leaf1:6\"], \"switch\": {\"ecn\": "
                                  "{\"enabled\": false}}}]"}};
    CU_ASSERT_FATAL(test_setup_from("scenarios/labs/10-bandwidth-far-below/healthy.json", NULL, pov, 1, &scn, &r));
    doctor_scenario(&r, &rep);
    f = doctor_find(&rep, "roce-priority-lossy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->where, "leaf0 (10 of 10 ports), leaf1:3 (1 of 10 ports)");
    f = doctor_find(&rep, "ecn-off");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->where,
                           "leaf1:0, leaf1:1, leaf1:2, leaf1:4 and 2 more (6 of 10 ports), spine0:1 (1 of 2 ports)");
    doctor_report_free(&rep);
    test_teardown(&scn, &r);
    /* three ECN findings on three ports of one switch: each message has its own port's values (the first's
     * kmin used to show up in the second's message) */
    struct scn_override eov[] = {{"profiles", "[{\"match\": [\"leaf0:0\"], \"switch\": {\"ecn\": {\"kmin\": \"100KB\", "
                                  "\"kmax\": \"100KB\"}}}, {\"match\": [\"leaf0:1\"], \"switch\": {\"ecn\": {\"kmin\": "
                                  "\"3MB\", \"kmax\": \"4MB\"}}}, {\"match\": [\"leaf0:2\"], \"switch\": {\"ecn\": "
                                  "{\"kmin\": \"50KB\", \"kmax\": \"2MB\"}}}]"}};
    CU_ASSERT_FATAL(test_setup_from("scenarios/labs/10-bandwidth-far-below/healthy.json", NULL, eov, 1, &scn, &r));
    doctor_scenario(&r, &rep);
    expect_ids("three ECN profiles", &rep, "ecn-above-xoff,ecn-above-xoff,ecn-kmin-kmax");
    CU_ASSERT_FATAL(rep.n == 3);
    CU_ASSERT_STRING_EQUAL(rep.f[0].id, "ecn-kmin-kmax");
    CU_ASSERT_STRING_EQUAL(rep.f[0].where, "leaf0:0 (1 of 10 ports)");
    CU_ASSERT_STRING_EQUAL(rep.f[0].seen, "ECN kmin 100KB is not below kmax 100KB");
    CU_ASSERT_STRING_EQUAL(rep.f[1].where, "leaf0:1 (1 of 10 ports)");
    CU_ASSERT_STRING_EQUAL(rep.f[1].seen, "ECN kmin 3MB is at or above the PFC point 1414.749KB (dynamic_alpha x the "
                           "free buffer, at an empty buffer)");
    CU_ASSERT_EQUAL(rep.f[1].sev, DOC_ERROR);
    CU_ASSERT_STRING_EQUAL(rep.f[2].where, "leaf0:2 (1 of 10 ports)");
    CU_ASSERT_STRING_EQUAL(rep.f[2].seen, "ECN kmax 2MB is above the PFC point 1414.749KB (dynamic_alpha x the free "
                           "buffer, at an empty buffer)");
    CU_ASSERT_EQUAL(rep.f[2].sev, DOC_WARNING);
    doctor_report_free(&rep);
    /* the loader refuses a poll above the detection time; a resolved setting that has one is still found (written
     * into the stored value, which a loaded scenario never does: only the doctor reads it after this) */
    struct pfcwd_settings *wd = (struct pfcwd_settings *)pfcwd_settings_of(r.net.sws[0].cfg);
    wd->enabled = true;
    wd->detection_ps = 100000000;
    wd->poll_ps = 200000000;
    doctor_scenario(&r, &rep);
    CU_ASSERT_PTR_NOT_NULL(doctor_find(&rep, "watchdog-poll"));
    doctor_report_free(&rep);
    test_teardown(&scn, &r);
}

/* The multipath findings, from the scenario alone: go-back-N under spraying (at a switch, or at the NIC), selective
 * repeat with PFC still on, trimmed frames sent into the data's own queue; none with ECMP and go-back-N, spraying
 * and selective repeat without PFC, or trimming into a queue of its own (priority 6). */
static void test_multipath(void)
{
    static const char *base =
        "{\"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2, \"link\": "
        "{\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, %s, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", "
        "\"dst\": \"h2\", \"size\": \"1MB\"}]}";
    static const struct {
        const char *fields, *want;
    } mp[] = {
        {"\"switch\": {\"load_balance\": \"spray\"}", "spray-go-back-n"},
        {"\"switch\": {\"load_balance\": \"adaptive\"}", "spray-go-back-n"},
        {"\"switch\": {\"load_balance\": \"adaptive\", \"adaptive\": {\"per\": \"flowlet\"}}", ""},
        {"\"host\": {\"entropy\": \"packet\"}", "spray-go-back-n"},
        {"\"host\": {\"loss_recovery\": \"selective\"}", "selective-with-pfc"},
        {"\"switch\": {\"load_balance\": \"spray\", \"pfc\": {\"enabled\": false}}, \"host\": {\"loss_recovery\": "
         "\"selective\"}", ""},
        {"\"switch\": {\"load_balance\": \"ecmp\"}", ""},
        {"\"switch\": {\"trim\": {\"enabled\": true, \"priority\": 3}}", "trim-queue"},
        {"\"switch\": {\"trim\": {\"enabled\": true}}", ""},
    };
    for (size_t i = 0; i < sizeof mp / sizeof *mp; i++) {
        char json[1024];
        snprintf(json, sizeof json, base, mp[i].fields);
        struct scenario scn;
        struct run r;
        CU_ASSERT_FATAL(test_setup(json, NULL, NULL, &scn, &r));
        struct doc_report rep = {0};
        doctor_scenario(&r, &rep);
        expect_ids(mp[i].fields, &rep, mp[i].want);
        doctor_report_free(&rep);
        test_teardown(&scn, &r);
    }
}

/*
 * Headroom "auto" is one computation (pfc_port_headroom) for the build and the doctor, port by port, from the frames
 * that can reach each port: h0's NIC sends 9000-byte payloads (a host profile), the rest 1024.  Expected values
 * from the formula (docs/scenario.md, switch.pfc): T = frame out + PAUSE + 394 quanta + frame in (each + 20 B of
 * preamble and gap) at the rate, plus 2 x 1 us of cable, rounded up to whole arriving frames.
 */
#define JUMBO_FABRIC                                                                                                   \
    "{\"name\": \"jumbo\", \"stop\": \"50us\", \"topology\": {\"type\": \"leaf-spine\", \"leaves\": 2, " \
    "\"spines\": 1, \"hosts_per_leaf\": 2, \"host_link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}, " \
    "\"fabric_link\": {\"rate\": \"400Gbps\", \"delay\": \"1us\"}}, \"host\": {\"mtu\": 1024}, %s" \
    "\"profiles\": [{\"match\": [\"h0\"], \"host\": {\"mtu\": 9000}}%s], " \
    "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h3\", \"size\": \"100KB\"}, " \
    "{\"type\": \"flow\", \"src\": \"h1\", \"dst\": \"h2\", \"size\": \"100KB\"}]}"

static int64_t port_headroom(struct run *r, const char *a, const char *b)
{
    return port_aux(test_port_to(r, a, b))->headroom;
}

static void test_headroom_frames(void)
{
    char js[2048];
    struct scenario scn;
    struct run r;
    struct doc_report rep = {0};
    snprintf(js, sizeof js, JUMBO_FABRIC, "", "");
    CU_ASSERT_FATAL(test_setup(js, NULL, NULL, &scn, &r));
    /* h0's ingress: its 9062-byte frames both ways, (2 x 9082 x 8 + 84 x 8 + 394 x 512) bits + 25000 B at
     * 100 Gbps = 68464 B, 8 frames */
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "h0"), 8 * 9062);
    /* h1's: 1086-byte frames in, but leaf0 may be sending h0's 9062 towards it: 60488 B, 56 of 1086 */
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "h1"), 56 * 1086);
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf1", "h3"), 56 * 1086);
    /* a switch's: any host's frames, both ways, at 400 Gbps: 43464 B + 100000 B, 16 frames of 9062 */
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "spine0"), 16 * 9062);
    CU_ASSERT_EQUAL(port_headroom(&r, "spine0", "leaf1"), 16 * 9062);
    CU_ASSERT_EQUAL(pfc_headroom(100000000000LL, PS_PER_US, 1086, 9062, 394), 56 * 1086);
    doctor_scenario(&r, &rep);
    expect_ids("jumbo fabric, headroom auto", &rep, "");
    doctor_report_free(&rep);
    /* a fixed headroom of what h1's port needs is short at h0's and the fabric's ports, named one by one */
    test_teardown(&scn, &r);
    CU_ASSERT_FATAL(test_setup(js, "switch.pfc.headroom", "\"60816B\"", &scn, &r));
    doctor_scenario(&r, &rep);
    const struct doc_finding *f = doctor_find(&rep, "headroom-short");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->where, "leaf0:0");
    CU_ASSERT_STRING_EQUAL(f->seen, "PFC headroom 60.816KB per lossless priority at 100Gbps ports; the cable and rate "
                           "need 72.496KB (frames of up to 9062 bytes arrive, 9062 leave)");
    int fabric = 0;
    for (int i = 0; i < rep.n; i++)
        if (!strcmp(rep.f[i].id, "headroom-short") && strstr(rep.f[i].seen, "at 400Gbps ports; the cable and rate "
                                                             "need 144.992KB (frames of up to 9062 bytes arrive")) {
            fabric++;
            CU_ASSERT_STRING_EQUAL(rep.f[i].where, "leaf0:2, leaf1:2, spine0:0, spine0:1");
        }
    CU_ASSERT_EQUAL(fabric, 1);
    expect_ids("jumbo fabric, headroom 60816B", &rep, "headroom-short,headroom-short");
    doctor_report_free(&rep);
    test_teardown(&scn, &r);
    /* frames larger than a switch's MTU never cross it: the spine (switch.mtu 5000) caps what reaches the fabric's
     * ports, 28 frames of 5000 B at 400 Gbps; in cells of 256 B each auto frame takes its whole cells */
    snprintf(js, sizeof js, JUMBO_FABRIC, "\"switch\": {\"cell_size\": 256}, ",
             ", {\"match\": [\"spine0\"], \"switch\": {\"mtu\": 5000}}");
    CU_ASSERT_FATAL(test_setup(js, NULL, NULL, &scn, &r));
    CU_ASSERT_EQUAL(pfc_headroom(400000000000LL, PS_PER_US, 5000, 5000, 394), 28 * 5000);
    CU_ASSERT_EQUAL(pfc_headroom(400000000000LL, PS_PER_US, 5000, 9062, 394), 28 * 5000);
    CU_ASSERT_EQUAL(port_headroom(&r, "spine0", "leaf0"), 28 * 20 * 256);
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "spine0"), 28 * 20 * 256);
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "h0"), 8 * 36 * 256);
    CU_ASSERT_EQUAL(port_headroom(&r, "leaf0", "h1"), 56 * 5 * 256);
    test_teardown(&scn, &r);
}

/* A run that did not complete (summary.json "complete": false) is said first, in the report and in doctor.json:
 * its findings cover only the time it simulated.  A complete run's report says nothing of the kind. */
static void test_incomplete_run(void)
{
    char cmd[1024], dir[256], path[320], *out = NULL;
    snprintf(dir, sizeof dir, "%s/incomplete", droot);
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json --stop 100us -o %s --no-plot -q > /dev/null",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s doctor %s", test_rocesim_bin(), dir);
    int rc = test_run(cmd, &out);
    CU_ASSERT_PTR_NULL(out ? strstr(out, "did not complete") : "no output");
    free(out);
    /* as an interrupted run leaves it */
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *sum = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    char *c = strstr(sum, "\"complete\":\ttrue,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    size_t head = (size_t)(c - sum);
    char *edited = malloc(strlen(sum) + 128);
    snprintf(edited, strlen(sum) + 128,
             "%.*s\"complete\":\tfalse,\n\t\"incomplete_reason\":\t\"interrupted (SIGINT)\",%s", (int)head, sum,
             c + strlen("\"complete\":\ttrue,"));
    test_write_text(path, edited);
    free(edited);
    free(sum);
    CU_ASSERT_EQUAL(test_run(cmd, &out), rc);
    char want[1024];
    snprintf(want, sizeof want, "doctor: %s: the run did not complete (interrupted (SIGINT)) and stopped at 100us of "
             "simulated time: the findings below cover only that part\ndoctor: %s: ", dir, dir);
    CU_ASSERT_PTR_NOT_NULL(out && strncmp(out, want, strlen(want)) == 0);
    if (out && strncmp(out, want, strlen(want)))
        printf("\n  doctor on an incomplete run printed: %s", out);
    free(out);
    snprintf(path, sizeof path, "%s/doctor.json", dir);
    char *js = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(js && strstr(js, "\"incomplete\":\t\"the run did not complete (interrupted (SIGINT))"));
    free(js);
}

/* Exit statuses: 0 without a finding, 1 with, 2 on bad input; -o writes doctor.json for a scenario. */
static void test_cli(void)
{
    char cmd[1024], *out = NULL;
    char cli[128], path[192];
    snprintf(cli, sizeof cli, "%s/cli", droot);
    snprintf(cmd, sizeof cmd, "%s doctor scenarios/labs/10-bandwidth-far-below/healthy.json -o %s", test_rocesim_bin(),
             cli);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "no finding"));
    free(out);
    snprintf(path, sizeof path, "%s/doctor.json", cli);
    char *js = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(js && strstr(js, "\"findings\":\t[]"));
    free(js);
    snprintf(cmd, sizeof cmd, "%s doctor scenarios/labs/10-bandwidth-far-below/healthy.json "
             "--set switch.ecn.enabled=false", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "error [ecn-off] at leaf0 (10 of 10 ports)"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s doctor scenarios", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: scenarios: expected the directory of a finished run"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s doctor scenarios/dumbbell.json --set switch.ecn.kmin=x", test_rocesim_bin());
    CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: scenarios/dumbbell.json: switch.ecn.kmin"));
    free(out);
}

void test_doctor_register(void)
{
    CU_pSuite s = CU_add_suite("doctor", suite_init, suite_clean);
    CU_add_test(s, "scenarios' settings: each mistake found, healthy ones clean", test_before);
    CU_add_test(s, "finished runs: each mistake found where the run shows it", test_after);
    CU_add_test(s, "findings name the place and the values", test_wording);
    CU_add_test(s, "exit statuses and doctor.json", test_cli);
    CU_add_test(s, "a run that did not complete is said first", test_incomplete_run);
    CU_add_test(s, "headroom auto from each port's frames, the same in the build and the doctor", test_headroom_frames);
    CU_add_test(s, "multipath: go-back-N under spraying, selective repeat with PFC on", test_multipath);
}
