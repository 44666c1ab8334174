/*
 * monitor.capture (tools/run/capture.c): pcap files that Debian's tshark and tcpdump read, checked against what the
 * run itself counted.  The 16-to-1 incast (scenarios/incast-16to1.json: PFC on priority 3, ECN marking at the
 * switch) gives every kind of Ethernet frame on one link: h0 sends 977 data frames of 1 KB (PSN 0..976, none
 * resent), receives their ACKs and the CNPs, and its switch port pauses and resumes it.  The checks that need
 * tshark or tcpdump are skipped with a note when they are missing (`make deps` installs them).
 */
#include "tests/tests.h"

#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR_ROOT "build/test-capture"
#define INCAST "scenarios/incast-16to1.json"

static bool have(const char *prog)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    if (test_run(cmd, NULL) == 0)
        return true;
    fprintf(stderr, "\n  note: %s is missing (make deps installs it): its capture checks are skipped\n", prog);
    return false;
}

/* Runs rocesim run on scn into DIR_ROOT/name with the extra arguments; asserts exit status 0. */
static void run_into(const char *scn, const char *name, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run %s -o %s/%s -q --no-plot %s 2>&1", test_rocesim_bin(), scn, DIR_ROOT, name,
             args);
    char *out = NULL;
    int rc = test_run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n%s\n", cmd, out ? out : "");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(out);
}

/* The lines a shell pipeline prints. */
static long lines_of(const char *cmd)
{
    char *out = NULL;
    int rc = test_run(cmd, &out);
    CU_ASSERT_EQUAL(rc, 0);
    long n = 0;
    for (const char *p = out; p && *p; p++)
        n += *p == '\n';
    free(out);
    return n;
}

/* The number a shell pipeline prints. */
static long number_of(const char *cmd)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    long v = out ? atol(out) : -1;
    free(out);
    return v;
}

#define CAP_ARGS                                                                                                 \
    "--set monitor.counters=true --set 'monitor.pfc=\"all\"' --set 'monitor.capture=[{\"ports\": [\"h0:0\", "   \
    "\"s0:16\", \"s0:0\"]}, {\"ports\": [\"s0:1\"], \"vlan\": false}]'"

static bool incast_done;

static void incast_runs(void)
{
    if (incast_done)
        return;
    run_into(INCAST, "incast", CAP_ARGS);
    run_into(INCAST, "incast-plain", "--set monitor.counters=true --set 'monitor.pfc=\"all\"'");
    incast_done = true;
}

/* tshark dissects every frame of h0's port: its RoCE frames to their BTH, and h0's data PSNs are 0..976 in order. */
static void test_host_port_psns(void)
{
    incast_runs();
    if (!have("tshark"))
        return;
    const char *f = DIR_ROOT "/incast/capture/h0-0.pcap";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "tshark -r %s 2>/dev/null", f);
    long all = lines_of(cmd);
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'udp.dstport == 4791' -T fields -e infiniband.bth.psn 2>/dev/null "
                              "| grep -c '^[0-9]'", f);
    long roce = number_of(cmd);
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'macc.opcode == 0x0101' 2>/dev/null", f);
    long pfc = lines_of(cmd);
    CU_ASSERT(all > 977);
    CU_ASSERT_EQUAL(roce + pfc, all); /* every frame is RoCE with its BTH dissected, or PFC */
    /* whole frames (the default snaplen): none that Wireshark calls malformed */
    snprintf(cmd, sizeof cmd, "tshark -r %s 2>/dev/null | grep -c 'Malformed\\|Invalid' || true", f);
    CU_ASSERT_EQUAL(number_of(cmd), 0);
    CU_ASSERT(pfc > 0);
    /* h0's data: SEND first, middle..., last (opcodes 0, 1, 2), PSN 0..976 in order */
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'ip.src == 10.0.0.1 && infiniband.bth.opcode <= 2' -T fields "
                              "-e infiniband.bth.psn 2>/dev/null", f);
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &out), 0);
    long expect = 0;
    bool in_order = true;
    for (char *p = out, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        in_order &= atol(p) == expect++;
    }
    free(out);
    CU_ASSERT(in_order);
    CU_ASSERT_EQUAL(expect, 977);
    /* each data frame is ECT(0) as it leaves its sender, and is acknowledged: h16's ACKs come back to 10.0.0.1 */
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'ip.src == 10.0.0.1 && ip.dsfield.ecn == 2' 2>/dev/null", f);
    CU_ASSERT_EQUAL(lines_of(cmd), 977);
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'ip.dst == 10.0.0.1 && infiniband.bth.opcode == 0x11' 2>/dev/null",
             f);
    CU_ASSERT(lines_of(cmd) > 0);
}

/* The CE-marked frames leaving the bottleneck (s0:16, towards h16) are the marks counters.csv counts there, by
 * tshark and by the seed's tcpdump filter ("vlan and" before it on tagged frames; verbatim on untagged ones). */
static void test_ce_marks(void)
{
    incast_runs();
    long marked = number_of("awk -F, '$1==\"s0\" && $2==16 {s += $12} END {print s}' " DIR_ROOT
                            "/incast/counters.csv");
    CU_ASSERT(marked > 1000);
    long in_summary = number_of("grep -o '\"ecn_marked\":[^,]*' " DIR_ROOT "/incast/summary.json | head -1 | "
                                "tr -dc 0-9");
    CU_ASSERT_EQUAL(marked, in_summary); /* the only marking port of the run */
    if (have("tshark"))
        CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/incast/capture/s0-16.pcap -Y 'ip.dsfield.ecn == 3' "
                                 "2>/dev/null"), marked);
    if (!have("tcpdump"))
        return;
    CU_ASSERT_EQUAL(lines_of("tcpdump -r " DIR_ROOT "/incast/capture/s0-16.pcap 'vlan and ip[1] & 0x03 == 0x03' "
                             "2>/dev/null"), marked);
    /* s0:1 is captured untagged: the seed's filter as it stands; no data frame leaving s0:1 carries a mark, and the
     * frames from h1 are not marked before the switch */
    CU_ASSERT_EQUAL(lines_of("tcpdump -r " DIR_ROOT "/incast/capture/s0-1.pcap 'ip[1] & 0x03 == 0x03' 2>/dev/null"),
                    0);
    CU_ASSERT_EQUAL(lines_of("tcpdump -r " DIR_ROOT "/incast/capture/s0-1.pcap 'ip[1] & 0x03 == 0x02' 2>/dev/null"),
                    number_of("awk -F, '$1==\"h1\" && $2==0 && $4==3 {print $7}' " DIR_ROOT "/incast/counters.csv"));
}

/*
 * With switch.ecn.mark_on "sent" the bottleneck holds each frame it may mark until its last bit has left: the
 * capture is told of a frame then, with its mark, so the CE frames in s0:16's file are again the marks counted
 * there, and each frame's timestamp in that file is its arrival at h16 less the link's 1 us.
 */
static void test_ce_marks_when_sent(void)
{
    run_into(INCAST, "incast-sent", "--set monitor.counters=true --set 'switch.ecn.mark_on=\"sent\"' "
                                    "--set 'monitor.capture=[{\"ports\": [\"s0:16\", \"h16:0\"]}]'");
    long marked = number_of("awk -F, '$1==\"s0\" && $2==16 {s += $12} END {print s}' " DIR_ROOT
                            "/incast-sent/counters.csv");
    CU_ASSERT(marked > 1000);
    if (!have("tshark"))
        return;
    CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/incast-sent/capture/s0-16.pcap -Y 'ip.dsfield.ecn == 3' "
                             "2>/dev/null"), marked);
    /* every data frame leaves s0:16 1 us (the link's delay, to the ns of the files) before h16 receives it: told
     * when its sending ends, not when it begins (0.09 us earlier at 100 Gbps) */
    const char *times = "tshark -r " DIR_ROOT "/incast-sent/capture/%s.pcap -Y 'infiniband.bth.opcode <= 2' -T fields "
                        "-e frame.time_epoch >" DIR_ROOT "/incast-sent/%s.t 2>/dev/null";
    char cmd[512];
    snprintf(cmd, sizeof cmd, times, "s0-16", "tx");
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, times, "h16-0", "rx");
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    CU_ASSERT_EQUAL(lines_of("cat " DIR_ROOT "/incast-sent/tx.t"), lines_of("cat " DIR_ROOT "/incast-sent/rx.t"));
    CU_ASSERT(lines_of("cat " DIR_ROOT "/incast-sent/tx.t") > 1000);
    CU_ASSERT_EQUAL(number_of("paste -d' ' " DIR_ROOT "/incast-sent/tx.t " DIR_ROOT "/incast-sent/rx.t | awk '{d = "
                              "($2 - $1) * 1e6; if (d < 0.999 || d > 1.001) bad++} END {print bad + 0}'"),
                    0);
}

/* The PAUSE and RESUME frames s0:0 sent to h0 are its rows of pfc.csv ("all"), in number, time and class. */
static void test_pause_frames(void)
{
    incast_runs();
    long pauses = lines_of("grep ',s0,0,3,pause$' " DIR_ROOT "/incast/pfc.csv");
    long resumes = lines_of("grep ',s0,0,3,resume$' " DIR_ROOT "/incast/pfc.csv");
    CU_ASSERT(pauses > 0);
    CU_ASSERT_EQUAL(resumes, pauses);
    if (!have("tshark"))
        return;
    CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/incast/capture/s0-0.pcap -Y 'macc.opcode == 0x0101 && "
                             "macc.cbfc.enbv == 0x0008 && macc.cbfc.pause_time.c3 > 0 && eth.src == 02:00:00:11:00:00' "
                             "2>/dev/null"), pauses);
    CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/incast/capture/s0-0.pcap -Y 'macc.opcode == 0x0101 && "
                             "macc.cbfc.pause_time.c3 == 0' 2>/dev/null"), resumes);
    /* the same frames seen from h0's side of the link, each at the instant its last bit arrived */
    CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/incast/capture/h0-0.pcap -Y 'macc.opcode == 0x0101' "
                             "2>/dev/null"), pauses + resumes);
    /* the first PAUSE leaves when pfc.csv says it was sent (the port sends control frames next, and was idle) */
    char *a = NULL, *b = NULL;
    CU_ASSERT_EQUAL(test_run("tshark -r " DIR_ROOT "/incast/capture/s0-0.pcap -Y 'macc.opcode == 0x0101' -T fields "
                             "-e frame.time_epoch 2>/dev/null | head -1", &a), 0);
    CU_ASSERT_EQUAL(test_run("grep -m1 ',s0,0,3,pause$' " DIR_ROOT "/incast/pfc.csv | cut -d, -f1", &b), 0);
    if (a && b)
        CU_ASSERT_EQUAL((long long)(atof(a) * 1e9 + 0.5), (long long)atof(b));
    free(a);
    free(b);
}

/* Capturing changes no other output; the files are the same bytes on one thread and on two. */
static void test_no_change_any_threads(void)
{
    incast_runs();
    static const char *const files[] = {"flows.csv", "queues.csv", "rates.csv", "pfc.csv", "counters.csv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "cmp -s %s/incast/%s %s/incast-plain/%s", DIR_ROOT, files[i], DIR_ROOT, files[i]);
        CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    }
    CU_ASSERT_EQUAL(test_run("cd " DIR_ROOT " && grep -v '\"wall_s\\|\"events_per_s' incast/summary.json >a.json && "
                             "grep -v '\"wall_s\\|\"events_per_s' incast-plain/summary.json >b.json && "
                             "cmp -s a.json b.json", NULL), 0);
    const char *args = "--stop 200us --set 'monitor.capture=[{\"ports\": [\"*:*\"], \"start\": \"20us\", "
                       "\"end\": \"150us\"}]'";
    char a1[512], a2[512];
    snprintf(a1, sizeof a1, "--threads 1 %s", args);
    snprintf(a2, sizeof a2, "--threads 2 %s", args);
    run_into("scenarios/fat-tree-k4.json", "k4-t1", a1);
    run_into("scenarios/fat-tree-k4.json", "k4-t2", a2);
    CU_ASSERT_EQUAL(lines_of("ls " DIR_ROOT "/k4-t1/capture/*.pcap"), 96); /* every port of the k=4 fat-tree */
    CU_ASSERT_EQUAL(test_run("diff -r " DIR_ROOT "/k4-t1/capture " DIR_ROOT "/k4-t2/capture", NULL), 0);
    CU_ASSERT_EQUAL(test_run("grep -q one_thread_share " DIR_ROOT "/k4-t2/summary.json", NULL), 0);
    /* a busy core port's file holds frames, none before start or from end on */
    if (have("tshark")) {
        CU_ASSERT(lines_of("tshark -r " DIR_ROOT "/k4-t1/capture/core0-0.pcap 2>/dev/null") > 0);
        CU_ASSERT_EQUAL(lines_of("tshark -r " DIR_ROOT "/k4-t1/capture/core0-0.pcap -Y 'frame.time_epoch < 0.00002 "
                                 "|| frame.time_epoch >= 0.00015' 2>/dev/null"), 0);
    }
}

/* max_size stops a file at a whole record, says so, and leaves the rest of the run as it was. */
static void test_max_size(void)
{
    char *out = NULL;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run %s -o %s/small -q --no-plot --set 'monitor.capture=[{\"ports\": [\"s0:16\"], "
                              "\"max_size\": \"10KB\", \"snaplen\": 100}]' 2>&1 >/dev/null", test_rocesim_bin(), INCAST,
             DIR_ROOT);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rocesim: note: " DIR_ROOT "/small/capture/s0-16.pcap stops before"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "monitor.capture.0.max_size reached"));
    free(out);
    size_t len = 0;
    char *pcap = test_read_file(DIR_ROOT "/small/capture/s0-16.pcap", &len);
    /* 24 bytes of file header, then whole records of 16 bytes and at most 100 (the snaplen) up to the end of the
     * file, which is within 10 000 bytes and too full for one more record of a data frame (116 bytes) */
    size_t at = 24, records = 0;
    bool whole = pcap && len >= 24;
    while (whole && at + 16 <= len) {
        uint32_t incl, orig;
        memcpy(&incl, pcap + at + 8, 4);
        memcpy(&orig, pcap + at + 12, 4);
        whole = incl <= 100 && incl <= orig && at + 16 + incl <= len;
        at += 16 + incl;
        records++;
    }
    CU_ASSERT(whole && at == len);
    CU_ASSERT(len <= 10000 && len + 116 > 10000);
    CU_ASSERT(records > 50);
    /* summary.json says so too, with the frames the file holds */
    char *sum = test_read_file(DIR_ROOT "/small/summary.json", NULL);
    char want[160];
    snprintf(want, sizeof want, "\"capture_capped\":\t[{\n\t\t\t\"file\":\t\"capture/s0-16.pcap\",\n\t\t\t\"frames\":\t%zu,",
             records);
    if (!sum || !strstr(sum, want))
        printf("\n    summary.json lacks %s", want);
    CU_ASSERT_PTR_NOT_NULL(sum && strstr(sum, want));
    free(sum);
    free(pcap);
    CU_ASSERT_EQUAL(test_run("cmp -s " DIR_ROOT "/small/flows.csv " DIR_ROOT "/incast-plain/flows.csv", NULL), 0);
}

/* On an InfiniBand fabric: ERF records (link type 197) that tshark dissects from the file as it is, with nothing
 * malformed: at a receiver's port (h0) and a stalled sender's (h9), the IB packets (LRH and BTH) are the frames
 * counters.csv counts there both ways, and the link packets its flow-control packets both ways. */
static void test_infiniband(void)
{
    run_into("scenarios/labs/14-ib-or-roce/ib.json", "ib", "--stop 100us --set 'monitor.capture=[{\"ports\": "
             "[\"h0:0\", \"h9:0\"]}]'");
    static const char *const host[] = {"h0", "h9"};
    for (int i = 0; i < 2; i++) {
        char path[256], cmd[1024];
        snprintf(path, sizeof path, DIR_ROOT "/ib/capture/%s-0.pcap", host[i]);
        size_t len = 0;
        char *pcap = test_read_file(path, &len);
        CU_ASSERT_FATAL(pcap != NULL && len > 24);
        uint32_t magic, linktype;
        memcpy(&magic, pcap, 4);
        memcpy(&linktype, pcap + 20, 4);
        CU_ASSERT_EQUAL(magic, 0xa1b23c4du);
        CU_ASSERT_EQUAL(linktype, 197u);
        /* each record's ERF header carries the time in 2^-32 s: rounded, it is the record's nanosecond */
        long records = 0, ts_ok = 0;
        for (size_t off = 24; off + 32 <= len; records++) {
            uint32_t hdr[4];
            memcpy(hdr, pcap + off, sizeof hdr);
            const unsigned char *e = (const unsigned char *)pcap + off + 16;
            uint64_t ts = 0;
            for (int b = 7; b >= 0; b--)
                ts = ts << 8 | e[b];
            uint64_t ns = (ts >> 32) * 1000000000u + (((ts & 0xFFFFFFFFu) * 1000000000u + (1u << 31)) >> 32);
            ts_ok += ns == (uint64_t)hdr[0] * 1000000000u + hdr[1] && hdr[2] >= 16;
            off += 16 + hdr[2];
        }
        free(pcap);
        CU_ASSERT(records > 50);
        CU_ASSERT_EQUAL(ts_ok, records);
        snprintf(cmd, sizeof cmd, "awk -F, '$1==\"%s\" && $2==0 {print $5 + $7}' " DIR_ROOT "/ib/counters.csv",
                 host[i]);
        long frames = number_of(cmd);
        snprintf(cmd, sizeof cmd, "awk -F, '$1==\"%s\" && $2==0 {print $9 + $10}' " DIR_ROOT "/ib/counters.csv",
                 host[i]);
        long fc = number_of(cmd);
        CU_ASSERT(frames > 50);
        if (!have("tshark"))
            continue;
        snprintf(cmd, sizeof cmd, "tshark -r %s 2>/dev/null", path);
        CU_ASSERT_EQUAL(lines_of(cmd), frames + fc);
        snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'infiniband.lrh.lnh == 2 && infiniband.bth.psn' 2>/dev/null",
                 path);
        CU_ASSERT_EQUAL(lines_of(cmd), frames);
        snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'infiniband_link.op == 0' 2>/dev/null", path);
        CU_ASSERT_EQUAL(lines_of(cmd), fc);
        snprintf(cmd, sizeof cmd, "tshark -r %s -Y _ws.malformed 2>/dev/null", path);
        CU_ASSERT_EQUAL(lines_of(cmd), 0);
    }
    CU_ASSERT(number_of("awk -F, '$1==\"h9\" && $2==0 {print $9}' " DIR_ROOT "/ib/counters.csv") > 0);
    /* h0 (LID 1) acknowledges what it receives: its ACKs leave for the senders' LIDs */
    if (have("tshark"))
        CU_ASSERT(lines_of("tshark -r " DIR_ROOT "/ib/capture/h0-0.pcap -Y 'infiniband.lrh.slid == 1 && "
                           "infiniband.bth.opcode == 0x11' 2>/dev/null") > 0);
}

/* Bad settings: one line naming the file and the path, exit status 2. */
static void test_bad_settings(void)
{
    static const struct {
        const char *set, *msg;
    } bad[] = {
        {"[{\"ports\": [\"s0:1\", \"s0\"]}]", "incast-16to1.json: monitor.capture.0.ports.1 (from --set): expected a "
                                              "\"node:port\" pattern"},
        {"[{\"ports\": []}]", "monitor.capture.0.ports (from --set): expected at least one"},
        {"[{\"ports\": [\"s0:1\"], \"snaplen\": 20}]", "monitor.capture.0.snaplen (from --set): expected an integer "
                                                       "from 64 to 65535, got 20"},
        {"[{\"ports\": [\"s0:1\"], \"max_size\": \"5GB\"}]", "monitor.capture.0.max_size (from --set): expected a "
                                                             "size from 1KB to 1GB"},
        {"[{\"ports\": [\"s0:1\"], \"start\": \"2ms\", \"end\": \"1ms\"}]", "monitor.capture.0.end (from --set): "
                                                                            "expected a time after start"},
        {"[{\"ports\": [\"s0:99\"]}]", "monitor.capture.0.ports.0: expected a port that exists"},
        {"[{\"ports\": [\"x*:0\"]}]", "monitor.capture.0.ports.0: expected a pattern matching a node"},
        {"[{\"ports\": [\"s0:1\"]}, {\"ports\": [\"s0:*\"]}]", "monitor.capture.1.ports.0: expected a port no other "
                                                               "capture takes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char cmd[1024], *out = NULL;
        snprintf(cmd, sizeof cmd, "%s run %s -o %s/bad -q --no-plot --set 'monitor.capture=%s' 2>&1",
                 test_rocesim_bin(), INCAST, DIR_ROOT, bad[i].set);
        CU_ASSERT_EQUAL(test_run(cmd, &out), 2);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, bad[i].msg));
        CU_ASSERT(out && strncmp(out, "rocesim: ", 9) == 0 && strchr(out, '\n') == out + strlen(out) - 1);
        if (!out || !strstr(out, bad[i].msg))
            fprintf(stderr, "\n  got: %s", out ? out : "");
        free(out);
        CU_ASSERT_NOT_EQUAL(test_run("ls " DIR_ROOT "/bad/capture/*.pcap >/dev/null 2>&1", NULL), 0);
    }
}

static int fresh_dir(void)
{
    incast_done = false;
    return test_run("rm -rf " DIR_ROOT " && mkdir -p " DIR_ROOT, NULL);
}

void test_capture_register(void)
{
    CU_pSuite s = CU_add_suite("capture", fresh_dir, NULL);
    CU_add_test(s, "tshark dissects every frame of a host port, with the PSNs the run sent", test_host_port_psns);
    CU_add_test(s, "CE-marked frames at an egress are its ECN-marked count (tshark, tcpdump)", test_ce_marks);
    CU_add_test(s, "with ECN decided when frames are sent, a capture sees each frame's mark as it leaves",
                test_ce_marks_when_sent);
    CU_add_test(s, "PAUSE and RESUME frames in a capture are the port's rows of pfc.csv", test_pause_frames);
    CU_add_test(s, "capturing changes no other output, and its files are the same on 1 and 2 threads",
                test_no_change_any_threads);
    CU_add_test(s, "max_size stops a file at a whole record, with a note", test_max_size);
    CU_add_test(s, "an InfiniBand capture holds IB packets tshark dissects", test_infiniband);
    CU_add_test(s, "bad capture settings exit 2 naming the path", test_bad_settings);
}
