/*
 * libFuzzer harness for whole runs of small scenarios.
 *
 * Two input forms:
 *  - text starting with '{': a scenario JSON (the seeds from scenarios/ and the
 *    tests).  It is loaded, then cut down to a size that runs in milliseconds
 *    (stop at most 2 ms, traffic sizes at most 64 KB); scenarios with more than
 *    16 hosts, more than 4 traffic entries or a Poisson source are skipped.
 *  - anything else: bytes that choose the fields of a scenario from tiny
 *    topologies (at most 8 hosts), at most 4 flows or small collectives and a
 *    few faults.  Nearly every choice is valid by construction, so the fuzzer
 *    spends its time in the simulator rather than in the loader's refusals.
 * The run must end with the invariants intact (tools/run/invariants.h): buffer
 * counters in range, conservation of packets and bytes, and, when the traffic
 * finished, no data frame left anywhere.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/run/invariants.h"
#include "tools/run/run.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_HOSTS_JSON 16
#define FUZZ_MAX_STOP_PS 2000000000LL /* 2 ms */
#define FUZZ_MAX_SIZE 65536

/* The fuzz bytes as a stream of choices; an exhausted stream reads as zeros (the simplest choice). */
struct rd {
    const uint8_t *p;
    size_t n, i;
};

static unsigned pick(struct rd *r, unsigned n)
{
    uint8_t b = r->i < r->n ? r->p[r->i++] : 0;
    return n ? b % n : 0;
}

struct txt {
    char buf[8192];
    size_t len;
};

static void put(struct txt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct txt *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof t->buf - t->len)
        abort(); /* the generator's own bound: the buffer is sized for the largest scenario it writes */
    t->len += (size_t)k;
}

static const char *const rates[] = {"10Gbps", "25Gbps", "40Gbps", "100Gbps", "1Gbps", "400Gbps"};
static const char *const delays[] = {"1us", "100ns", "2us", "10us", "0ns"};
static const char *const sizes[] = {"1KB", "4KB", "64KB", "1B", "10KB", "1000B", "63KB", "100B"};
static const char *const times[] = {"0us", "1us", "10us", "100us", "500us", "3ns"};
static const char *const buffers[] = {"32MB", "1MB", "256KB", "64KB", "12MB"};

static void put_link(struct txt *t, struct rd *r)
{
    put(t, "{\"rate\": \"%s\", \"delay\": \"%s\"}", rates[pick(r, 6)], delays[pick(r, 5)]);
}

/* Writes a generated scenario into t; returns its number of hosts. */
static int generate(struct rd *r, struct txt *t)
{
    int hosts;
    put(t, "{\"name\": \"fuzz\", \"seed\": %u, \"stop\": \"%s\", \"topology\": ", pick(r, 256),
        (const char *[]){"2ms", "1ms", "200us", "50us"}[pick(r, 4)]);
    const char *sw_a = "s0", *sw_b = "s0";
    switch (pick(r, 5)) {
    case 0:
    default:
        hosts = 2 + (int)pick(r, 7);
        put(t, "{\"type\": \"star\", \"hosts\": %d, \"link\": ", hosts);
        put_link(t, r);
        put(t, "}");
        break;
    case 1: {
        int left = 1 + (int)pick(r, 4), right = 1 + (int)pick(r, 4);
        hosts = left + right;
        put(t, "{\"type\": \"dumbbell\", \"left\": %d, \"right\": %d, \"link\": ", left, right);
        put_link(t, r);
        put(t, ", \"bottleneck\": ");
        put_link(t, r);
        put(t, "}");
        sw_b = "s1";
        break;
    }
    case 2: {
        int leaves = 1 + (int)pick(r, 2), spines = 1 + (int)pick(r, 2), hpl = 1 + (int)pick(r, 4);
        hosts = leaves * hpl;
        put(t, "{\"type\": \"leaf-spine\", \"leaves\": %d, \"spines\": %d, \"hosts_per_leaf\": %d, \"host_link\": ",
            leaves, spines, hpl);
        put_link(t, r);
        put(t, ", \"fabric_link\": ");
        put_link(t, r);
        put(t, "}");
        sw_a = "leaf0";
        sw_b = "spine0";
        break;
    }
    case 3: {
        hosts = 2;
        put(t, "{\"type\": \"fat-tree\", \"k\": 2, \"link\": ");
        put_link(t, r);
        put(t, "}");
        sw_a = "tor0";
        sw_b = "agg0";
        break;
    }
    case 4: {
        /* A ring of switches, one host on each: cycles, as labs build them. */
        int n = 2 + (int)pick(r, 3);
        hosts = n;
        put(t, "{\"type\": \"custom\", \"nodes\": [");
        for (int i = 0; i < n; i++)
            put(t, "%s{\"name\": \"h%d\", \"kind\": \"host\"}, {\"name\": \"S%d\", \"kind\": \"switch\"}", i ? ", " : "",
                i, i);
        put(t, "], \"links\": [");
        for (int i = 0; i < n; i++) {
            put(t, "%s{\"a\": \"h%d\", \"b\": \"S%d\", \"rate\": \"%s\", \"delay\": \"1us\"}", i ? ", " : "", i, i,
                rates[pick(r, 4)]);
            if (n > 2 || i == 0)
                put(t, ", {\"a\": \"S%d\", \"b\": \"S%d\", \"rate\": \"%s\", \"delay\": \"%s\"}", i, (i + 1) % n,
                    rates[pick(r, 4)], delays[pick(r, 5)]);
        }
        put(t, "]}");
        sw_a = "S0";
        sw_b = "S1";
        break;
    }
    }
    put(t, ", \"switch\": {\"buffer\": \"%s\", \"pfc\": {\"enabled\": %s, \"priorities\": [3%s]", buffers[pick(r, 5)],
        pick(r, 4) ? "true" : "false", pick(r, 2) ? ", 1" : "");
    if (pick(r, 2))
        put(t, ", \"xoff\": \"%s\"", (const char *[]){"20KB", "5KB", "200KB"}[pick(r, 3)]);
    if (pick(r, 3) == 0)
        put(t, ", \"headroom\": \"%s\"", (const char *[]){"1KB", "100KB", "10KB"}[pick(r, 3)]);
    put(t, "}, \"ecn\": {\"enabled\": %s, \"kmin\": \"%s\", \"kmax\": \"%s\", \"pmax\": %s, \"mark_on\": \"%s\"}",
        pick(r, 5) ? "true" : "false", (const char *[]){"5KB", "1KB", "0B"}[pick(r, 3)],
        (const char *[]){"200KB", "10KB", "5KB"}[pick(r, 3)], (const char *[]){"0.01", "1", "0.5", "0"}[pick(r, 4)],
        (const char *[]){"dequeue", "enqueue", "sent"}[pick(r, 3)]);
    if (pick(r, 2))
        put(t, ", \"scheduler\": {\"type\": \"dwrr\", \"weights\": {\"1\": %u, \"3\": %u}}", 1 + pick(r, 20),
            1 + pick(r, 20));
    put(t, ", \"lossy_queue_limit\": \"%s\"", (const char *[]){"1MB", "10KB", "2KB"}[pick(r, 3)]);
    if (pick(r, 4) == 0) {
        /* The poll is the shorter of the two times (index 1 is the shorter): the longest the loader accepts
         * (SONiC's rule), and short enough for the watchdog to act within the run. */
        static const char *const wd_times[] = {"100us", "20us"};
        unsigned det = pick(r, 2), rest = pick(r, 2);
        put(t, ", \"watchdog\": {\"enabled\": true, \"detection_time\": \"%s\", \"restoration_time\": \"%s\", "
               "\"poll_interval\": \"%s\", \"action\": \"%s\"}",
            wd_times[det], wd_times[rest], wd_times[det > rest ? det : rest],
            (const char *[]){"drop", "forward", "alert"}[pick(r, 3)]);
    }
    put(t, "}, \"host\": {\"mtu\": %d, \"cc\": \"%s\", \"dcqcn\": {\"preset\": \"%s\"}, \"rto\": \"%s\", "
           "\"ack_every\": %u}",
        (int[]){1024, 256, 4096, 1500}[pick(r, 4)], pick(r, 4) ? "dcqcn" : "none", pick(r, 2) ? "paper" : "connectx",
        (const char *[]){"1ms", "10us", "100us"}[pick(r, 3)], 1 + pick(r, 4));

    put(t, ", \"traffic\": [");
    int nt = 1 + (int)pick(r, 4);
    for (int i = 0; i < nt; i++) {
        int src = (int)pick(r, (unsigned)hosts), dst = (int)pick(r, (unsigned)hosts);
        if (dst == src)
            dst = (src + 1) % hosts;
        const char *sz = sizes[pick(r, 8)], *st = times[pick(r, 6)];
        int prio = (int)pick(r, 8);
        put(t, "%s", i ? ", " : "");
        switch (pick(r, 6)) {
        default:
            put(t, "{\"type\": \"flow\", \"src\": \"h%d\", \"dst\": \"h%d\", \"size\": \"%s\", \"start\": \"%s\", "
                   "\"priority\": %d",
                src, dst, sz, st, prio);
            if (pick(r, 3) == 0)
                put(t, ", \"rate\": \"%s\"", rates[pick(r, 6)]);
            put(t, "}");
            break;
        case 3:
            put(t, "{\"type\": \"incast\", \"senders\": [");
            for (int h = 0, k = 0; h < hosts; h++)
                if (h != dst)
                    put(t, "%s\"h%d\"", k++ ? ", " : "", h);
            put(t, "], \"receiver\": \"h%d\", \"size\": \"%s\", \"start\": \"%s\"}", dst, sz, st);
            break;
        case 4:
            put(t, "{\"type\": \"allreduce\", \"hosts\": \"all\", \"size\": \"%s\", \"start\": \"%s\"}", sz, st);
            break;
        case 5:
            put(t, "{\"type\": \"alltoall\", \"hosts\": [\"h%d\", \"h%d\"], \"size\": \"%s\", \"start\": \"%s\"}", src,
                dst, sz, st);
            break;
        }
    }
    put(t, "]");
    int nf = (int)pick(r, 3);
    if (nf) {
        put(t, ", \"faults\": [");
        for (int i = 0; i < nf; i++) {
            put(t, "%s", i ? ", " : "");
            switch (pick(r, 3)) {
            case 0:
                put(t, "{\"type\": \"pause_storm\", \"host\": \"h%u\", \"priority\": 3, \"start\": \"%s\", \"end\": \"%s\"}",
                    pick(r, (unsigned)hosts), times[pick(r, 4)], (const char *[]){"1ms", "200us", "3ms"}[pick(r, 3)]);
                break;
            case 1:
                put(t, "{\"type\": \"slow_receiver\", \"host\": \"h%u\", \"rate\": \"%s\", \"start\": \"%s\"}",
                    pick(r, (unsigned)hosts), rates[pick(r, 5)], times[pick(r, 4)]);
                break;
            default:
                if (strcmp(sw_a, sw_b) == 0)
                    put(t, "{\"type\": \"link_down\", \"between\": [\"%s\", \"h0\"], \"at\": \"%s\", \"until\": \"%s\"}",
                        sw_a, times[pick(r, 5)], (const char *[]){"1ms", "300us"}[pick(r, 2)]);
                else
                    put(t, "{\"type\": \"link_down\", \"between\": [\"%s\", \"%s\"], \"at\": \"%s\"}", sw_a, sw_b,
                        times[pick(r, 5)]);
                break;
            }
        }
        put(t, "]");
    }
    put(t, "}");
    return hosts;
}

/* Cuts a loaded JSON scenario down to a short run; returns false to skip it. */
static bool shrink(struct scenario *s)
{
    if (s->topo.n_hosts > FUZZ_MAX_HOSTS_JSON || s->n_traffic > 4)
        return false;
    if (s->stop_ps > FUZZ_MAX_STOP_PS)
        s->stop_ps = FUZZ_MAX_STOP_PS;
    for (int i = 0; i < s->n_traffic; i++) {
        struct scn_traffic *tr = &s->traffic[i];
        const struct module *m = module_at("traffic", tr->type);
        struct traffic_count tc;
        double rate[FUZZ_MAX_HOSTS_JSON + 1] = {0};
        traffic_ops_of(tr)->count(s, i, rate, NULL, &tc);
        if (tc.generates)
            return false;
        /* the entry's size, where its kind has one (its settings table says where); the values are the
         * scenario's own copy */
        for (const struct setting *f = m->groups[0] ? m->groups[0]->fields : NULL; f && f->name; f++)
            if (strcmp(f->name, "size") == 0 && f->kind == SETTING_SIZE &&
                *(const int64_t *)((const char *)tr->conf + f->offset) > FUZZ_MAX_SIZE)
                *(int64_t *)((char *)tr->conf + f->offset) = FUZZ_MAX_SIZE;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    struct txt *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    bool json = size > 0 && data[0] == '{';
    if (json) {
        memcpy(t->buf, data, size < sizeof t->buf - 1 ? size : sizeof t->buf - 1);
        if (size >= sizeof t->buf) {
            free(t);
            return -1;
        }
    } else {
        struct rd r = {data, size, 0};
        generate(&r, t);
    }
    struct scenario s;
    char err[SCN_ERR_MAX];
    int rc = scn_load_text("fuzz.json", t->buf, NULL, 0, &s, err, sizeof err);
    if (rc != SCN_OK) {
        /* The loader's refusals are fuzz_scenario's business; a few generated combinations break a rule
         * (a 1-byte collective, a fault naming a missing link) and are just skipped. */
        free(t);
        return 0;
    }
    if (json && !shrink(&s)) {
        scn_free(&s);
        free(t);
        return 0;
    }
    struct run run;
    rc = run_setup(&run, &s, err, sizeof err);
    if (rc == SCN_OK) {
        if (run_execute(&run)) {
            fprintf(stderr, "invariant violated: %s\nscenario:\n%s\n", run.invariant_error, t->buf);
            abort();
        }
        if (inv_check_end(&run, err, sizeof err)) {
            fprintf(stderr, "end-of-run check failed: %s\nscenario:\n%s\n", err, t->buf);
            abort();
        }
        char *sum = run_summary_json(&run, false);
        char *csv = run_flows_csv(&run);
        free(sum);
        free(csv);
        run_free(&run);
    }
    scn_free(&s);
    free(t);
    return 0;
}
