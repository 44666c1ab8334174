/* show — a run's counters.csv as SONiC's show commands print theirs (see show.h). */
#include "tools/ops/show.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "tools/run/run.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char show_usage[] =
    "usage: rocesim show DIR interfaces counters | pfc counters | queue counters | ib counters [--node NAME]\n"
    "  a finished run's counters.csv (a run with monitor.counters: true) as SONiC's show commands print\n"
    "  theirs, or an InfiniBand run's as perfquery prints its port counters; --node: only the ports of that node\n";

/* counters.csv's columns after node, port, peer and priority (RUN_COUNTERS_HEADER), in order. */
enum { C_RX_FRAMES, C_RX_BYTES, C_TX_FRAMES, C_TX_BYTES, C_PAUSE_RX, C_PAUSE_TX, C_PAUSED_NS, C_ECN,
       C_DROP_BUFFER, C_DROP_HEADROOM, C_DROP_WATCHDOG, C_DROP_LINK_DOWN, C_DROP_CORRUPT, C_DROP_MTU,
       C_CNP_TX, C_CNP_RX, C_OOO_RX, C_N };
#define CSV_FIELDS (4 + C_N)

/* One port's counters, summed over its rows (a row per priority with a non-zero counter). */
struct port_sum {
    char name[2 * SCN_NAME_MAX + 12]; /* "node:port", as monitor.queues names ports */
    uint64_t rx_ok, tx_ok, rx_err, drops;
    uint64_t pause_rx[8], pause_tx[8], q_frames[8], q_bytes[8], q_drops[8];
    char peer[SCN_NAME_MAX + 1];
    uint64_t tx_pkts, rx_pkts, tx_bytes, rx_bytes, wait_ns, corrupt;
};

struct ports {
    struct port_sum *p;
    size_t n, cap;
};

/* Whether s is a whole unsigned decimal number (paused_ns may have a fraction: frac). */
static bool parse_count(const char *s, bool frac, uint64_t *out)
{
    if (!*s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    if (frac && *end == '.' && end[1] >= '0' && end[1] <= '9')
        for (end++; *end >= '0' && *end <= '9'; end++)
            ;
    *out = v;
    return *end == '\0';
}

/* The name of counters.csv's column k (RUN_COUNTERS_HEADER). */
static const char *column_name(int k, char *buf, size_t len)
{
    const char *h = RUN_COUNTERS_HEADER;
    for (int i = 0; i < k && h; i++)
        h = strchr(h, ',') ? strchr(h, ',') + 1 : NULL;
    snprintf(buf, len, "%.*s", h ? (int)strcspn(h, ",") : 1, h ? h : "?");
    return buf;
}

/*
 * Adds counters.csv's text (from path) to ps, the rows of node `only` (NULL: all).  Returns 0, or SCN_EUSAGE
 * with "rocesim: PATH: line N: ..." printed.
 */
static int load(const char *path, char *text, const char *only, struct ports *ps)
{
    char *line = text;
    size_t hl = strcspn(line, "\n");
    if (hl != strlen(RUN_COUNTERS_HEADER) || strncmp(line, RUN_COUNTERS_HEADER, hl) != 0) {
        fprintf(stderr, "rocesim: %s: line 1: expected counters.csv's header (%s), got \"%.*s\"\n", path,
                RUN_COUNTERS_HEADER, (int)(hl > 200 ? 200 : hl), line);
        return SCN_EUSAGE;
    }
    line += hl + (line[hl] == '\n');
    for (int ln = 2; *line; ln++) {
        size_t len = strcspn(line, "\n");
        char *next = line + len + (line[len] == '\n');
        line[len] = '\0';
        char *f[CSV_FIELDS];
        int nf = 0;
        for (char *c = line;; c++) {
            if (nf < CSV_FIELDS)
                f[nf] = c;
            nf++;
            c += strcspn(c, ",");
            if (!*c)
                break;
            *c = '\0';
        }
        uint64_t port, prio, v[C_N];
        if (nf != CSV_FIELDS) {
            fprintf(stderr, "rocesim: %s: line %d: expected %d comma-separated fields (%s), got %d\n", path, ln,
                    CSV_FIELDS, RUN_COUNTERS_HEADER, nf);
            return SCN_EUSAGE;
        }
        int bad = !*f[0] ? 0 : !parse_count(f[1], false, &port) || port >= 65536 ? 1 : !*f[2] ? 2
                : !parse_count(f[3], false, &prio) || prio >= 8 ? 3 : -1;
        for (int i = 0; bad < 0 && i < C_N; i++)
            if (!parse_count(f[4 + i], i == C_PAUSED_NS, &v[i]))
                bad = 4 + i;
        if (bad >= 0) {
            static const char *const want[] = {"a node name", "a port number 0-65535", "a node name",
                                               "a priority 0-7"};
            char col[32];
            fprintf(stderr, "rocesim: %s: line %d: column %s: expected %s, got \"%.200s\"\n", path, ln,
                    column_name(bad, col, sizeof col), bad < 4 ? want[bad] : bad == 4 + C_PAUSED_NS
                    ? "a time in ns (a number >= 0)" : "a count (a whole number >= 0)", f[bad]);
            return SCN_EUSAGE;
        }
        line = next;
        if (only && strcmp(f[0], only) != 0)
            continue;
        char name[sizeof ps->p->name];
        snprintf(name, sizeof name, "%.*s:%u", 2 * SCN_NAME_MAX, f[0], (unsigned)port);
        /* Rows come by node, port and priority: a port's rows are consecutive. */
        if (!ps->n || strcmp(ps->p[ps->n - 1].name, name) != 0) {
            if (ps->n == ps->cap) {
                ps->cap = ps->cap ? 2 * ps->cap : 64;
                ps->p = mem_xrealloc(ps->p, ps->cap * sizeof *ps->p, "reading counters.csv");
            }
            ps->p[ps->n] = (struct port_sum){0};
            snprintf(ps->p[ps->n].name, sizeof ps->p->name, "%s", name);
            ps->n++;
        }
        struct port_sum *s = &ps->p[ps->n - 1];
        uint64_t drops = v[C_DROP_BUFFER] + v[C_DROP_HEADROOM] + v[C_DROP_WATCHDOG] + v[C_DROP_LINK_DOWN] +
                         v[C_DROP_MTU];
        s->rx_ok += v[C_RX_FRAMES] + v[C_PAUSE_RX];
        s->tx_ok += v[C_TX_FRAMES] + v[C_PAUSE_TX];
        s->rx_err += v[C_DROP_CORRUPT];
        s->drops += drops;
        s->pause_rx[prio] = v[C_PAUSE_RX];
        s->pause_tx[prio] = v[C_PAUSE_TX];
        s->q_frames[prio] = v[C_TX_FRAMES];
        s->q_bytes[prio] = v[C_TX_BYTES];
        s->q_drops[prio] = drops;
        snprintf(s->peer, sizeof s->peer, "%s", f[2]);
        s->tx_pkts += v[C_TX_FRAMES];
        s->rx_pkts += v[C_RX_FRAMES];
        s->tx_bytes += v[C_TX_BYTES];
        s->rx_bytes += v[C_RX_BYTES];
        s->wait_ns += v[C_PAUSED_NS];
        s->corrupt += v[C_DROP_CORRUPT];
    }
    return 0;
}

/* A table as SONiC's scripts print theirs (tabulate's "simple" format, every column right-aligned). */
#define MAX_COLS 16
#define CELL_LEN (2 * SCN_NAME_MAX + 12) /* a port's name, "node:port" */
struct table {
    int ncol;
    const char *head[MAX_COLS];
    char (*cell)[MAX_COLS][CELL_LEN];
    size_t n, cap;
};

static char *table_row(struct table *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->cell = mem_xrealloc(t->cell, t->cap * sizeof *t->cell, "printing counters");
    }
    memset(t->cell[t->n], 0, sizeof *t->cell);
    return t->cell[t->n++][0];
}

/* A count with thousands separators, as SONiC prints counts ("1,200"). */
static void fmt_count(char *out, uint64_t v)
{
    char d[32];
    int n = snprintf(d, sizeof d, "%" PRIu64, v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = d[i];
    }
    out[o] = '\0';
}

static void table_print(const struct table *t)
{
    size_t w[MAX_COLS];
    for (int c = 0; c < t->ncol; c++) {
        w[c] = strlen(t->head[c]);
        for (size_t r = 0; r < t->n; r++)
            if (strlen(t->cell[r][c]) > w[c])
                w[c] = strlen(t->cell[r][c]);
    }
    for (int c = 0; c < t->ncol; c++)
        printf("%s%*s", c ? "  " : "", (int)w[c], t->head[c]);
    printf("\n");
    for (int c = 0; c < t->ncol; c++) {
        printf("%s", c ? "  " : "");
        for (size_t i = 0; i < w[c]; i++)
            putchar('-');
    }
    printf("\n");
    for (size_t r = 0; r < t->n; r++) {
        for (int c = 0; c < t->ncol; c++)
            printf("%s%*s", c ? "  " : "", (int)w[c], t->cell[r][c]);
        printf("\n");
    }
}

/* Sets column c of table t's last row. */
#define SET(t, c, ...) snprintf((t).cell[(t).n - 1][c], CELL_LEN, __VA_ARGS__)

/* portstat's standard columns; what counters.csv has no counter for is N/A (docs/outputs.md). */
static void print_interfaces(const struct ports *ps)
{
    struct table t = {.ncol = 14, .head = {"IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP",
                                           "RX_OVR", "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"}};
    for (size_t i = 0; i < ps->n; i++) {
        const struct port_sum *s = &ps->p[i];
        table_row(&t);
        for (int c = 1; c < t.ncol; c++)
            SET(t, c, "N/A");
        SET(t, 0, "%s", s->name);
        fmt_count(t.cell[t.n - 1][2], s->rx_ok);
        fmt_count(t.cell[t.n - 1][5], s->rx_err);
        fmt_count(t.cell[t.n - 1][6], s->drops);
        fmt_count(t.cell[t.n - 1][8], s->tx_ok);
    }
    table_print(&t);
    free(t.cell);
}

/* pfcstat: the PAUSE frames received, then those sent, per priority. */
static void print_pfc(const struct ports *ps)
{
    for (int tx = 0; tx < 2; tx++) {
        struct table t = {.ncol = 9, .head = {tx ? "Port Tx" : "Port Rx", "PFC0", "PFC1", "PFC2", "PFC3", "PFC4",
                                              "PFC5", "PFC6", "PFC7"}};
        for (size_t i = 0; i < ps->n; i++) {
            const struct port_sum *s = &ps->p[i];
            table_row(&t);
            SET(t, 0, "%s", s->name);
            for (int p = 0; p < 8; p++)
                fmt_count(t.cell[t.n - 1][1 + p], tx ? s->pause_tx[p] : s->pause_rx[p]);
        }
        if (tx)
            printf("\n");
        table_print(&t);
        free(t.cell);
    }
}

/* queuestat: the unicast queues UC0..UC7 of each port (rocesim's priorities; PAUSE frames use no queue). */
static void print_queues(const struct ports *ps)
{
    struct table t = {.ncol = 6, .head = {"Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"}};
    for (size_t i = 0; i < ps->n; i++) {
        const struct port_sum *s = &ps->p[i];
        for (int p = 0; p < 8; p++) {
            table_row(&t);
            SET(t, 0, "%s", s->name);
            SET(t, 1, "UC%d", p);
            fmt_count(t.cell[t.n - 1][2], s->q_frames[p]);
            fmt_count(t.cell[t.n - 1][3], s->q_bytes[p]);
            fmt_count(t.cell[t.n - 1][4], s->q_drops[p]);
            SET(t, 5, "N/A");
        }
    }
    table_print(&t);
    free(t.cell);
}

/*
 * perfquery's port counters (InfiniBand Architecture Specification vol. 1, PortCounters and
 * PortCountersExtended, section 16.1.3): data in 32-bit words, packets without link packets (flow control),
 * PortXmitWait in ticks.  The tick is the device's; here it is 1 ns of credit stall, summed over the port's VLs
 * (the specification counts a tick once, when no VL could send).
 */
static void print_ib(const struct ports *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        const struct port_sum *s = &ps->p[i];
        const char *colon = strrchr(s->name, ':');
        printf("%s# Port counters: %.*s port %s (to %s)\n", i ? "\n" : "", (int)(colon - s->name), s->name, colon + 1,
               s->peer);
        const struct {
            const char *name;
            uint64_t v;
        } rows[] = {{"PortXmitData", s->tx_bytes / 4}, {"PortRcvData", s->rx_bytes / 4},
                    {"PortXmitPkts", s->tx_pkts},      {"PortRcvPkts", s->rx_pkts},
                    {"PortXmitWait", s->wait_ns},      {"PortXmitDiscards", s->drops},
                    {"PortRcvErrors", s->corrupt}};
        for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
            char label[40];
            int n = snprintf(label, sizeof label, "%s:", rows[r].name);
            while (n < 33)
                label[n++] = '.';
            label[n] = '\0';
            printf("%s%llu\n", label, (unsigned long long)rows[r].v);
        }
    }
}

/* Whether the run in dir waited for credits, not PFC: its summary.json has "credits", as plot and compare ask. */
static bool ran_infiniband(const char *dir)
{
    char path[4200], *text, err[4400];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (read_text_file(path, &text, err, sizeof err))
        return false;
    cJSON *root = cJSON_Parse(text);
    bool ib = cJSON_GetObjectItemCaseSensitive(root, "credits") != NULL;
    cJSON_Delete(root);
    free(text);
    return ib;
}

int show_main(int argc, char **argv)
{
    const char *dir = argc > 2 ? argv[2] : NULL, *what = argc > 3 ? argv[3] : NULL, *node = NULL;
    int kind = !what ? -1 : !strcmp(what, "interfaces") ? 0 : !strcmp(what, "pfc") ? 1 : !strcmp(what, "queue") ? 2
             : !strcmp(what, "ib") ? 3 : -1;
    if (!dir || kind < 0 || argc < 5 || strcmp(argv[4], "counters") != 0) {
        fprintf(stderr, "rocesim: show: expected DIR and one of \"interfaces counters\", \"pfc counters\", "
                        "\"queue counters\", \"ib counters\", got %s%s%s\n%s", what ? "\"" : "nothing", what ? what : "",
                what ? (argc > 4 ? " ...\"" : "\"") : "", show_usage);
        return SCN_EUSAGE;
    }
    for (int a = 5; a < argc; a++) {
        if (!strcmp(argv[a], "--node") && a + 1 < argc && !node) {
            node = argv[++a];
        } else {
            fprintf(stderr, "rocesim: show: unexpected argument \"%s\"\n%s", argv[a], show_usage);
            return SCN_EUSAGE;
        }
    }
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "rocesim: %s: expected the output directory of a run, got %s\n", dir,
                errno == ENOENT ? "nothing (no such directory)" : "something else");
        return SCN_EUSAGE;
    }
    if (kind == 3 && !ran_infiniband(dir)) {
        fprintf(stderr, "rocesim: %s: ib counters: expected the run of an InfiniBand fabric (\"credits\" in its "
                        "summary.json), got another: show it with \"interfaces counters\"\n", dir);
        return SCN_EUSAGE;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/counters.csv", dir);
    if (stat(path, &st) && errno == ENOENT) {
        fprintf(stderr, "rocesim: %s: no counters.csv: run the scenario with monitor.counters: true "
                        "(--set monitor.counters=true) to have them\n", dir);
        return SCN_EUSAGE;
    }
    char *text, err[4400];
    int rc = read_text_file(path, &text, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    struct ports ps = {0};
    rc = load(path, text, node, &ps);
    free(text);
    if (!rc && node && !ps.n) {
        fprintf(stderr, "rocesim: %s: --node %s: no port of that node has a non-zero counter (or no node has "
                        "that name)\n", path, node);
        rc = SCN_EUSAGE;
    }
    if (!rc) {
        if (kind == 0)
            print_interfaces(&ps);
        else if (kind == 1)
            print_pfc(&ps);
        else if (kind == 2)
            print_queues(&ps);
        else
            print_ib(&ps);
        if (fflush(stdout) || ferror(stdout)) {
            fprintf(stderr, "rocesim: show: cannot write the table: %s\n", strerror(errno));
            rc = SCN_EIO;
        }
    }
    free(ps.p);
    return rc;
}
