/* nvsmi — see nvsmi.h; the format and the inference rules are documented in docs/servers.md. */
#include "tools/ops/nvsmi.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "topologies/server.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVSMI_OOM "reading an nvidia-smi topology"
#define MAX_DEV 128            /* GPUs + NICs of one matrix (servers with virtual functions list ~50) */
#define DEV_NAME_MAX 32        /* a device's name with its NUL ("mlx5_17", "NIC11") */
#define MAX_EXTRA 16           /* columns after the devices (CPU Affinity, NUMA Affinity, GPU NUMA ID) */
#define MAX_TOK (MAX_DEV + MAX_EXTRA + 8)
#define MAX_NVLINKS 255        /* an NV# count; NVLink 4 has 18 per GPU */

/* The relations of nvidia-smi's legend, nearest first (NVML's nvmlGpuTopologyLevel_t order). */
enum rel { R_UNKNOWN, R_SELF, R_NV, R_PIX, R_PXB, R_PHB, R_NODE, R_SYS };
enum extra { E_OTHER, E_CPU, E_NUMA, E_GPU_NUMA };

struct cell {
    unsigned char rel, nv;
};

struct imp {
    const char *file;
    char *err;
    size_t errlen;
    struct sbuf *notes;
    int ndev, ngpu, nextra, header_line, end_line;
    enum extra extra[MAX_EXTRA];
    char name[MAX_DEV][DEV_NAME_MAX];
    int row_line[MAX_DEV]; /* 0: the matrix has no row for it (a NIC's row may be left out) */
    int numa[MAX_DEV];     /* NUMA Affinity when it is one node, else -1 */
    char numa_text[DEV_NAME_MAX];
    struct cell cell[MAX_DEV][MAX_DEV];
    /* union-find forests: NUMA nodes by the relations alone, and with NUMA Affinity; switches; switch trees */
    int sock_rel[MAX_DEV], sock[MAX_DEV], leaf[MAX_DEV], par[MAX_DEV];
};

static int fail(struct imp *m, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct imp *m, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(m->err, m->errlen, "%s:%d: %s", m->file, line, msg);
    return SCN_EUSAGE;
}

/* A token as it may be quoted in a one-line message: at most 24 bytes, anything unprintable as '?'. */
static const char *shown(const char *t, char *buf)
{
    size_t i = 0;
    for (; t[i] && i < 24; i++)
        buf[i] = (unsigned char)t[i] < 0x20 || (unsigned char)t[i] >= 0x7f ? '?' : t[i];
    buf[i] = '\0';
    return buf;
}

/* Splits a line in place at blanks; returns the number of tokens, MAX_TOK + 1 when there are more. */
static int split(char *s, char **tok)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
            *s++ = '\0';
        if (!*s)
            return n;
        if (n == MAX_TOK)
            return MAX_TOK + 1;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' && *s != '\f')
            s++;
    }
}

/* A whole decimal number 0..max, else -1. */
static int whole(const char *s, int max)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > max)
            return -1;
    }
    return (int)v;
}

static int parse_cell(const char *t, struct cell *c)
{
    static const char *const names[] = {"PIX", "PXB", "PHB", "NODE", "SYS", "SOC"};
    static const unsigned char rels[] = {R_PIX, R_PXB, R_PHB, R_NODE, R_SYS, R_SYS}; /* SOC: older drivers' SYS */
    c->nv = 0;
    if (strcmp(t, "X") == 0) {
        c->rel = R_SELF;
        return 0;
    }
    if (strncmp(t, "NV", 2) == 0) {
        int n = whole(t + 2, MAX_NVLINKS);
        if (n < 1)
            return -1;
        c->rel = R_NV;
        c->nv = (unsigned char)n;
        return 0;
    }
    for (size_t i = 0; i < sizeof rels; i++)
        if (strcmp(t, names[i]) == 0) {
            c->rel = rels[i];
            return 0;
        }
    return -1;
}

static const char *cell_name(struct cell c, char *buf)
{
    static const char *const names[] = {"?", "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
    if (c.rel == R_NV)
        snprintf(buf, 8, "NV%u", c.nv);
    else
        snprintf(buf, 8, "%s", names[c.rel]);
    return buf;
}

static int find_dev(const struct imp *m, const char *name)
{
    for (int d = 0; d < m->ndev; d++)
        if (strcmp(m->name[d], name) == 0)
            return d;
    return -1;
}

/* The header: devices (GPU0.. first, in order, then the NICs) and the names of the columns after them. */
static int parse_header(struct imp *m, char **t, int n)
{
    char b[32];
    int i = 0;
    for (; i < n && strcmp(t[i], "CPU") && strcmp(t[i], "NUMA") && strcmp(t[i], "GPU"); i++) {
        size_t len = strlen(t[i]);
        if (m->ndev == MAX_DEV)
            return fail(m, m->header_line, "more than %d devices in the header", MAX_DEV);
        if (len >= DEV_NAME_MAX || strspn(t[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")
                                       != len)
            return fail(m, m->header_line, "\"%s\" is not a device name (letters, digits, _.:- up to %d bytes)",
                        shown(t[i], b), DEV_NAME_MAX - 1);
        if (find_dev(m, t[i]) >= 0)
            return fail(m, m->header_line, "the header names %s twice", t[i]);
        bool gpu = strncmp(t[i], "GPU", 3) == 0 && whole(t[i] + 3, MAX_DEV) >= 0;
        if (gpu && (m->ndev != m->ngpu || whole(t[i] + 3, MAX_DEV) != m->ngpu))
            return fail(m, m->header_line, "%s out of order: the header lists GPU0, GPU1, ... first", t[i]);
        snprintf(m->name[m->ndev++], DEV_NAME_MAX, "%s", t[i]);
        m->ngpu += gpu;
    }
    while (i < n) {
        if (m->nextra == MAX_EXTRA)
            return fail(m, m->header_line, "more than %d columns after the devices", MAX_EXTRA);
        enum extra e = E_OTHER;
        int w = 1;
        if (i + 1 < n && strcmp(t[i], "CPU") == 0 && strcmp(t[i + 1], "Affinity") == 0)
            e = E_CPU, w = 2;
        else if (i + 1 < n && strcmp(t[i], "NUMA") == 0 && strcmp(t[i + 1], "Affinity") == 0)
            e = E_NUMA, w = 2;
        else if (i + 2 < n && strcmp(t[i], "GPU") == 0 && strcmp(t[i + 1], "NUMA") == 0 && strcmp(t[i + 2], "ID") == 0)
            e = E_GPU_NUMA, w = 3;
        m->extra[m->nextra++] = e;
        i += w;
    }
    return 0;
}

/* One row: its cells into m->cell, its NUMA Affinity into m->numa. */
static int parse_row(struct imp *m, int line, char **t, int n)
{
    char b[32], b2[32];
    int d = find_dev(m, t[0]);
    if (d < 0)
        return fail(m, line, "\"%s\" is not a device of the header (line %d)", shown(t[0], b), m->header_line);
    if (m->row_line[d])
        return fail(m, line, "a second row for %s (the first is on line %d)", m->name[d], m->row_line[d]);
    m->row_line[d] = line;
    if (n - 1 < m->ndev)
        return fail(m, line, "%s has %d cells, the header (line %d) names %d devices", m->name[d], n - 1,
                    m->header_line, m->ndev);
    if (n - 1 - m->ndev > m->nextra)
        return fail(m, line, "%s has %d fields after its %d cells, the header (line %d) names %d columns there",
                    m->name[d], n - 1 - m->ndev, m->ndev, m->header_line, m->nextra);
    for (int c = 0; c < m->ndev; c++)
        if (parse_cell(t[1 + c], &m->cell[d][c]))
            return fail(m, line, "%s/%s is \"%s\": expected X, NV#, PIX, PXB, PHB, NODE or SYS", m->name[d],
                        m->name[c], shown(t[1 + c], b2));
    for (int k = 0; k < n - 1 - m->ndev; k++)
        if (m->extra[k] == E_NUMA && d < m->ngpu) {
            m->numa[d] = whole(t[1 + m->ndev + k], 1 << 20);
            if (m->numa[d] < 0 && !m->numa_text[0])
                shown(t[1 + m->ndev + k], m->numa_text);
        }
    return 0;
}

/* Reads the header and the rows up to the blank line or the Legend after them. */
static int parse_matrix(struct imp *m, char *text)
{
    char *tok[MAX_TOK], b[32];
    int line = 0, rows = 0;
    for (char *s = text, *next; s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        line++;
        int n = split(s, tok);
        if (n > MAX_TOK)
            return fail(m, line, "more than %d fields", MAX_TOK);
        if (!m->header_line) {
            if (n == 0 || strcmp(tok[0], "GPU0"))
                continue; /* a prompt or a title before the matrix */
            if (n > 1 && strcmp(tok[1], "X") == 0)
                return fail(m, line, "the GPU0 row comes before any header line (GPU0 GPU1 ... NIC0 ...)");
            m->header_line = line;
            int rc = parse_header(m, tok, n);
            if (rc)
                return rc;
            continue;
        }
        if (n == 0 && rows == 0)
            continue;
        if (n == 0 || strncmp(tok[0], "Legend", 6) == 0) {
            m->end_line = line;
            return 0;
        }
        if (strcmp(tok[0], "X") == 0)
            return fail(m, line, "a row without a device name (\"%s\" first)", shown(tok[0], b));
        int rc = parse_row(m, line, tok, n);
        if (rc)
            return rc;
        rows++;
    }
    if (!m->header_line)
        return fail(m, 1, "no header line starting with GPU0 (the matrix `nvidia-smi topo -m` prints)");
    m->end_line = line + 1;
    return 0;
}

/* The relation between two devices, from the row of either; *line: the row it comes from. */
static struct cell rel_of(const struct imp *m, int a, int b, int *line)
{
    struct cell c = {R_UNKNOWN, 0};
    if (m->row_line[a]) {
        *line = m->row_line[a];
        return m->cell[a][b];
    }
    if (m->row_line[b]) {
        *line = m->row_line[b];
        return m->cell[b][a];
    }
    *line = m->end_line;
    return c;
}

/* At least one NIC; every GPU has its row; X exactly on the diagonal; NV# only between GPUs; each pair told the same both ways. */
static int check_matrix(struct imp *m)
{
    char b1[8], b2[8];
    for (int g = 0; g < m->ngpu; g++)
        if (!m->row_line[g])
            return fail(m, m->end_line, "no row for %s (the header on line %d names it)", m->name[g],
                        m->header_line);
    for (int r = 0; r < m->ndev; r++) {
        if (!m->row_line[r])
            continue;
        for (int c = 0; c < m->ndev; c++) {
            struct cell x = m->cell[r][c], y = m->cell[c][r];
            if ((r == c) != (x.rel == R_SELF))
                return fail(m, m->row_line[r], "%s/%s is %s: X belongs on the diagonal and only there", m->name[r],
                            m->name[c], cell_name(x, b1));
            if (x.rel == R_NV && (r >= m->ngpu || c >= m->ngpu))
                return fail(m, m->row_line[r], "%s/%s is %s: NVLink joins two GPUs", m->name[r], m->name[c],
                            cell_name(x, b1));
            if (c < r && m->row_line[c] && (x.rel != y.rel || x.nv != y.nv)) {
                int later = m->row_line[r] > m->row_line[c] ? m->row_line[r] : m->row_line[c];
                return fail(m, later, "%s/%s is %s but %s/%s is %s: the matrix is not symmetric", m->name[r],
                            m->name[c], cell_name(x, b1), m->name[c], m->name[r], cell_name(y, b2));
            }
        }
    }
    return 0;
}

static int uf_find(int *f, int x)
{
    while (f[x] != x)
        x = f[x] = f[f[x]];
    return x;
}

static void uf_union(int *f, int a, int b)
{
    a = uf_find(f, a);
    b = uf_find(f, b);
    if (a != b)
        f[a > b ? a : b] = a < b ? a : b;
}

/* Joins every pair whose relation lies in [lo, hi] (PCIe relations only: NV# hides the PCIe path). */
static void join(struct imp *m, int *f, int lo, int hi)
{
    int line;
    for (int a = 0; a < m->ndev; a++)
        for (int b = a + 1; b < m->ndev; b++) {
            struct cell c = rel_of(m, a, b, &line);
            if (c.rel >= lo && c.rel <= hi)
                uf_union(f, a, b);
        }
}

/*
 * NUMA nodes, PCIe switches (PIX: one switch) and their parents (PXB: under one parent switch); then checks that
 * no pair contradicts the grouping, which a PCIe tree cannot.
 */
static int group(struct imp *m)
{
    bool all_numa = true, noted = false;
    for (int d = 0; d < m->ndev; d++)
        m->sock_rel[d] = m->leaf[d] = m->par[d] = d;
    for (int g = 0; g < m->ngpu; g++)
        all_numa &= m->numa[g] >= 0;
    join(m, m->sock_rel, R_PIX, R_NODE);
    join(m, m->leaf, R_PIX, R_PIX);
    join(m, m->par, R_PIX, R_PXB);
    memcpy(m->sock, m->sock_rel, sizeof m->sock);
    for (int a = 0; all_numa && a < m->ngpu; a++)
        for (int b = a + 1; b < m->ngpu; b++)
            if (m->numa[a] == m->numa[b])
                uf_union(m->sock, a, b);
    if (!all_numa && m->notes)
        sb_printf(m->notes, "NUMA Affinity is not one node per GPU (\"%s\"): NUMA nodes follow the SYS relations\n",
                  m->numa_text[0] ? m->numa_text : "no such column");
    char b1[8];
    for (int a = 0; a < m->ndev; a++)
        for (int b = a + 1; b < m->ndev; b++) {
            int line;
            struct cell c = rel_of(m, a, b, &line);
            const char *why = NULL;
            if (c.rel == R_SYS && uf_find(m->sock_rel, a) == uf_find(m->sock_rel, b))
                why = "across NUMA nodes, yet the other relations put them on one node";
            else if (c.rel > R_PIX && uf_find(m->leaf, a) == uf_find(m->leaf, b))
                why = "not one PCIe switch, yet the PIX relations put them under one";
            else if (c.rel > R_PXB && uf_find(m->par, a) == uf_find(m->par, b))
                why = "not one PCIe switch tree, yet the PIX and PXB relations put them in one";
            if (why)
                return fail(m, line, "%s/%s is %s: %s", m->name[a], m->name[b], cell_name(c, b1), why);
            /* GPUs without peer-to-peer support are shown SYS to each other on one NUMA node */
            if (c.rel == R_SYS && uf_find(m->sock, a) == uf_find(m->sock, b) && !noted && m->notes) {
                sb_printf(m->notes, "%s/%s is SYS, yet NUMA Affinity puts them on one node: NUMA Affinity taken\n",
                          m->name[a], m->name[b]);
                noted = true;
            }
        }
    return 0;
}

/* The NV# of every GPU pair: one count for all (an NVSwitch), or none; *links 0 without NVLink. */
static int nvlinks(struct imp *m, int *links)
{
    int first_a = -1, first_b = -1, line, first_line = 0;
    struct cell first = {0, 0};
    char b1[8], b2[8];
    *links = 0;
    for (int a = 0; a < m->ngpu; a++)
        for (int b = a + 1; b < m->ngpu; b++) {
            struct cell c = rel_of(m, a, b, &line);
            if (first_a < 0) {
                first = c, first_a = a, first_b = b, first_line = line;
                continue;
            }
            if ((c.rel == R_NV) != (first.rel == R_NV) || (c.rel == R_NV && c.nv != first.nv))
                return fail(m, line > first_line ? line : first_line,
                            "%s/%s is %s but %s/%s is %s: the server description has one NVLink rate for every GPU "
                            "pair (an NVSwitch) or none", m->name[a], m->name[b], cell_name(c, b1),
                            m->name[first_a], m->name[first_b], cell_name(first, b2));
        }
    if (first.rel == R_NV)
        *links = first.nv;
    return 0;
}

static int check_options(const char *nvlink_rate, const char *gdr_level, int64_t *per_link, char *err,
                         size_t errlen)
{
    char e[200], b[32];
    *per_link = 0;
    if (nvlink_rate && (units_parse_rate(nvlink_rate, per_link, e, sizeof e) || *per_link <= 0)) {
        snprintf(err, errlen, "--nvlink-rate: %s", *per_link <= 0 ? "expected a rate above 0 like \"200Gbps\"" : e);
        return SCN_EUSAGE;
    }
    if (!gdr_level)
        return 0;
    for (const char *const *l = server_path_names; *l; l++)
        if (strcmp(gdr_level, *l) == 0)
            return 0;
    snprintf(err, errlen, "--gdr-level: expected LOC, PIX, PXB, PHB or SYS, got \"%s\"", shown(gdr_level, b));
    return SCN_EUSAGE;
}

/* The description, keys in the documented order; switches numbered by first use, a parent before its children. */
static cJSON *describe(struct imp *m, int links, int64_t per_link, const char *gdr_level)
{
    int sock_num[MAX_DEV], leaf_num[MAX_DEV], par_num[MAX_DEV], nleaves[MAX_DEV] = {0}, dev_sw[MAX_DEV];
    int nsock = 0, nsw = 0;
    cJSON *sws = cJSON_CreateArray();
    for (int d = 0; d < m->ndev; d++) {
        sock_num[d] = leaf_num[d] = par_num[d] = -1;
        if (uf_find(m->leaf, d) == d)
            nleaves[uf_find(m->par, d)]++;
    }
    for (int d = 0; d < m->ndev; d++) {
        int s = uf_find(m->sock, d), l = uf_find(m->leaf, d), p = uf_find(m->par, d);
        if (sock_num[s] < 0)
            sock_num[s] = nsock++;
        if (leaf_num[l] < 0) {
            int parent = -1;
            if (nleaves[p] >= 2) {
                if (par_num[p] < 0) {
                    cJSON *o = cJSON_CreateObject();
                    cJSON_AddNumberToObject(o, "socket", sock_num[s]);
                    cJSON_AddNumberToObject(o, "parent", -1);
                    cJSON_AddItemToArray(sws, o);
                    par_num[p] = nsw++;
                }
                parent = par_num[p];
            }
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "socket", sock_num[s]);
            cJSON_AddNumberToObject(o, "parent", parent);
            cJSON_AddItemToArray(sws, o);
            leaf_num[l] = nsw++;
        }
        dev_sw[d] = leaf_num[l];
    }
    cJSON *o = cJSON_CreateObject(), *srv = cJSON_CreateObject();
    cJSON *gp = cJSON_CreateArray(), *np = cJSON_CreateArray();
    for (int d = 0; d < m->ndev; d++)
        cJSON_AddItemToArray(d < m->ngpu ? gp : np, cJSON_CreateNumber(dev_sw[d]));
    cJSON_AddNumberToObject(srv, "sockets", nsock);
    cJSON_AddItemToObject(srv, "pcie_switches", sws);
    cJSON_AddItemToObject(srv, "gpu_pcie", gp);
    cJSON_AddItemToObject(srv, "nic_pcie", np);
    if (links && per_link) {
        char b[64];
        cJSON_AddStringToObject(srv, "nvlink_rate", units_fmt_rate(per_link * links, b, sizeof b));
    }
    cJSON_AddStringToObject(srv, "gdr_level", gdr_level ? gdr_level : "PXB");
    cJSON_AddItemToObject(o, "server", srv);
    return o;
}

/* See nvsmi.h. */
int nvsmi_import_text(const char *file, const char *text, const char *nvlink_rate, const char *gdr_level,
                      cJSON **out, struct sbuf *notes, char *err, size_t errlen)
{
    int64_t per_link;
    *out = NULL;
    int rc = check_options(nvlink_rate, gdr_level, &per_link, err, errlen);
    if (rc)
        return rc;
    struct imp *m = mem_xcalloc(1, sizeof *m, NVSMI_OOM);
    *m = (struct imp){.file = file, .err = err, .errlen = errlen, .notes = notes};
    for (int d = 0; d < MAX_DEV; d++)
        m->numa[d] = -1;
    char *copy = mem_xstrdup(text, NVSMI_OOM);
    int links = 0;
    rc = parse_matrix(m, copy);
    if (!rc)
        rc = check_matrix(m);
    if (!rc)
        rc = group(m);
    if (!rc)
        rc = nvlinks(m, &links);
    if (!rc && m->ndev == m->ngpu) /* a server of the rail fabric reaches it through its NICs */
        rc = fail(m, m->header_line, "the header names no NIC (after the GPUs, NIC0 or mlx5_0 ...): a server "
                  "needs one to reach the fabric");
    if (!rc && links && per_link > INT64_MAX / links)
        rc = fail(m, m->header_line, "%d NVLinks of %s overflow a rate", links, nvlink_rate);
    if (!rc) {
        if (links && !per_link && notes)
            sb_printf(notes, "each GPU pair has %d NVLinks; nvlink_rate left out: give --nvlink-rate with the rate "
                             "of one link in one direction (NVLink 3 and 4: 200Gbps)\n", links);
        if (!links && per_link && notes)
            sb_printf(notes, "--nvlink-rate unused: the GPUs have no NVLink between them\n");
        *out = describe(m, links, per_link, gdr_level);
    }
    free(copy);
    free(m);
    return rc;
}

static const char import_usage[] =
    "usage: rocesim import nvidia-smi-topo FILE [-o OUT.json] [--nvlink-rate PER_LINK] [--gdr-level LEVEL]\n"
    "  prints the topology.server description ({\"server\": {...}}) read from the matrix `nvidia-smi topo -m`\n"
    "  prints: GPUs, NICs, NUMA nodes, PCIe switches, NVLink (its rate: the NV# count x --nvlink-rate, the\n"
    "  rate of one link in one direction), NCCL_NET_GDR_LEVEL (default PXB).  See docs/servers.md.\n";

static int imp_bad(const char *fmt, const char *arg)
{
    return usage_error("import", import_usage, fmt, arg);
}

/* The value of option argv[*i], or NULL after a usage error in *rc. */
static const char *opt_value(int argc, char **argv, int *i, int *rc)
{
    if (*i + 1 == argc) {
        *rc = imp_bad("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* See nvsmi.h. */
int nvsmi_import_main(int argc, char **argv)
{
    const char *file = NULL, *outp = NULL, *rate = NULL, *gdr = NULL;
    int rc = 0;
    if (argc >= 4 && (strcmp(argv[3], "-h") == 0 || strcmp(argv[3], "--help") == 0)) {
        fputs(import_usage, stdout);
        return 0;
    }
    for (int i = 3; i < argc && !rc; i++) {
        if (strcmp(argv[i], "-o") == 0)
            outp = opt_value(argc, argv, &i, &rc);
        else if (strcmp(argv[i], "--nvlink-rate") == 0)
            rate = opt_value(argc, argv, &i, &rc);
        else if (strcmp(argv[i], "--gdr-level") == 0)
            gdr = opt_value(argc, argv, &i, &rc);
        else if (argv[i][0] == '-' && argv[i][1])
            return imp_bad("unknown option \"%s\"", argv[i]);
        else if (!file)
            file = argv[i];
        else
            return imp_bad("unexpected argument \"%s\"", argv[i]);
    }
    if (rc)
        return rc;
    if (!file)
        return imp_bad("%s", "needs the file nvidia-smi topo -m printed");
    char *text, err[SCN_ERR_MAX];
    rc = read_text_file(file, &text, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    cJSON *o;
    struct sbuf notes = {0};
    rc = nvsmi_import_text(file, text, rate, gdr, &o, &notes, err, sizeof err);
    free(text);
    return import_finish(rc, err, o, notes.p, outp);
}
