/* nccltests — `rocesim nccl-tests`: nccl-tests' table from simulated runs (see nccltests.h). */
#include "tools/explore/nccltests.h"
#include "models/traffic.h"
#include "sim/mem.h"
#include "sim/scenario.h"
#include "sim/units.h"
#include "tools/common/dirlock.h"
#include "tools/common/files.h"
#include "tools/common/text.h"
#include "tools/run/plot.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT_OOM "in nccl-tests"
#define NT_MAX_SIZES 64 /* runs of one command: bounded */

static const char nt_usage[] =
    "usage: rocesim nccl-tests SCENARIO.json --op OP --sizes MIN:MAX [--step xF|+B] [--hosts SEL]\n"
    "                          [--algorithm ring|tree|auto] [--channels N] [--chunk SIZE] [-o DIR] [-q]\n"
    "  OP: all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv; --step x2 by default;\n"
    "  -q: write the files only, print nothing\n";

struct nt_cli {
    const char *file, *op, *hosts, *algorithm, *channels, *chunk, *dir;
    int64_t lo, hi, add;
    double mul;
    bool quiet;
};

/* One size's result. */
struct nt_row {
    int64_t size;
    double time_us, algbw, busbw;
    char algorithm[16];
};

static int nt_bad(const char *fmt, const char *arg) { return usage_error("nccl-tests", nt_usage, fmt, arg); }

static int parse_sizes(struct nt_cli *c, const char *arg)
{
    char a[64], err[128];
    const char *colon = strchr(arg, ':');
    if (!colon || (size_t)(colon - arg) >= sizeof a)
        return nt_bad("--sizes expects MIN:MAX (sizes like 8B:1GB), got \"%s\"", arg);
    memcpy(a, arg, (size_t)(colon - arg));
    a[colon - arg] = '\0';
    if (units_parse_size(a, &c->lo, err, sizeof err) || units_parse_size(colon + 1, &c->hi, err, sizeof err) ||
        c->lo < 1 || c->hi < c->lo)
        return nt_bad("--sizes expects MIN:MAX, sizes of at least 1B with MIN <= MAX, got \"%s\"", arg);
    return 0;
}

static int parse_step(struct nt_cli *c, const char *arg)
{
    char err[128], *end;
    if (arg[0] == 'x') {
        errno = 0;
        c->mul = strtod(arg + 1, &end);
        if (errno || end == arg + 1 || *end || !(c->mul > 1) || !isfinite(c->mul))
            return nt_bad("--step expects xF with F > 1 or +B with B a size, got \"%s\"", arg);
        c->add = 0;
        return 0;
    }
    if (arg[0] != '+' || units_parse_size(arg + 1, &c->add, err, sizeof err) || c->add < 1)
        return nt_bad("--step expects xF with F > 1 or +B with B a size, got \"%s\"", arg);
    c->mul = 0;
    return 0;
}

/* 0, 2 (bad usage), or -1: --help. */
static int parse_cli(int argc, char **argv, struct nt_cli *c)
{
    *c = (struct nt_cli){.algorithm = "auto", .dir = "out/nccl-tests", .mul = 2};
    bool sizes = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **opt = !strcmp(a, "--op")          ? &c->op
                           : !strcmp(a, "--hosts")     ? &c->hosts
                           : !strcmp(a, "--algorithm") ? &c->algorithm
                           : !strcmp(a, "--channels")  ? &c->channels
                           : !strcmp(a, "--chunk")     ? &c->chunk
                           : !strcmp(a, "-o")          ? &c->dir
                                                       : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(nt_usage, stdout);
            return -1;
        }
        if (!strcmp(a, "-q")) {
            c->quiet = true;
            continue;
        }
        bool takes = opt || !strcmp(a, "--sizes") || !strcmp(a, "--step");
        if (takes && !v)
            return nt_bad("%s needs a value", a);
        int rc = 0;
        if (opt)
            *opt = v;
        else if (!strcmp(a, "--sizes"))
            rc = parse_sizes(c, v), sizes = true;
        else if (!strcmp(a, "--step"))
            rc = parse_step(c, v);
        else if (a[0] == '-')
            return nt_bad("unknown option \"%s\"", a);
        else if (c->file)
            return nt_bad("one scenario only, got a second: \"%s\"", a);
        else
            c->file = a;
        if (rc)
            return rc;
        i += takes;
    }
    if (!c->file)
        return nt_bad("%s", "expects a scenario file");
    if (!c->op)
        return nt_bad("%s", "expects --op OP");
    if (!sizes)
        return nt_bad("%s", "expects --sizes MIN:MAX");
    if (c->channels && (!*c->channels || strspn(c->channels, "0123456789") != strlen(c->channels) ||
                        strlen(c->channels) > 4))
        return nt_bad("--channels expects a number of channels (1 to 64), got \"%s\"", c->channels);
    return 0;
}

/* The sizes from lo to hi by the step: at most NT_MAX_SIZES. */
static int size_list(const struct nt_cli *c, int64_t *out, int *n)
{
    *n = 0;
    for (double s = (double)c->lo; s <= (double)c->hi; s = c->mul ? s * c->mul : s + (double)c->add) {
        int64_t v = (int64_t)llround(s);
        if (*n && v == out[*n - 1])
            continue;
        if (*n == NT_MAX_SIZES) {
            char a[64];
            sfmt(a, sizeof a, "%d", NT_MAX_SIZES);
            return nt_bad("--sizes and --step make more than %s sizes: raise the step or narrow the range", a);
        }
        out[(*n)++] = v;
    }
    if (*n && out[*n - 1] < c->hi) {
        /* a series of decimal sizes by x2 never meets a decimal end (1MB x 2^10 is past 1GB): say where it ended */
        char a[32], b[32];
        fprintf(stderr, "rocesim nccl-tests: note: the sizes end at %s, the last of the series below %s "
                "(MiB, GiB: nccl-tests' powers of two)\n", units_fmt_size(out[*n - 1], a, sizeof a),
                units_fmt_size(c->hi, b, sizeof b));
    }
    return 0;
}

/* The scenario's text with its traffic replaced by one nccl entry of `size` (its stop and monitor dropped: the run
 * goes until the collective completes, and the monitor may name flows of the traffic replaced; monitor.step_flows
 * false). */
static char *scenario_with(const cJSON *base, const struct nt_cli *c, int64_t size)
{
    cJSON *j = cJSON_Duplicate(base, true);
    if (!j)
        mem_oom(NT_OOM);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "traffic");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "stop");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "monitor");
    /* the table needs each collective's time alone: its steps' records are reused as they end (memory as steps in
     * flight, not as the schedule's steps) */
    cJSON_AddFalseToObject(cJSON_AddObjectToObject(j, "monitor"), "step_flows");
    cJSON *tr = cJSON_AddArrayToObject(j, "traffic"), *e = cJSON_CreateObject();
    char sz[40];
    cJSON_AddStringToObject(e, "type", "nccl");
    cJSON_AddStringToObject(e, "id", "nccl");
    cJSON_AddStringToObject(e, "op", c->op);
    cJSON_AddStringToObject(e, "algorithm", c->algorithm);
    if (c->channels)
        cJSON_AddNumberToObject(e, "channels", (double)strtol(c->channels, NULL, 10));
    if (c->chunk)
        cJSON_AddStringToObject(e, "chunk", c->chunk);
    if (c->hosts)
        cJSON_AddStringToObject(e, "hosts", c->hosts);
    sfmt(sz, sizeof sz, "%lldB", (long long)size);
    cJSON_AddStringToObject(e, "size", sz);
    cJSON_AddItemToArray(tr, e);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    if (!text)
        mem_oom(NT_OOM);
    return text;
}

/* Runs one size: 0 with the row, or 2 with the loader's message in err. */
static int run_size(const cJSON *base, const struct nt_cli *c, int64_t size, struct nt_row *row, char *name,
                    char *err, size_t errlen)
{
    char *text = scenario_with(base, c, size);
    struct scenario scn;
    struct run r;
    int rc = scn_load_text(c->file, text, NULL, 0, &scn, err, errlen);
    free(text);
    if (rc)
        return rc;
    sfmt(name, 256, "%s", scn.name);
    rc = run_setup(&r, &scn, err, errlen);
    if (rc) {
        scn_free(&scn);
        return rc;
    }
    rc = run_execute(&r);
    const struct coll *cl = &r.traffic.colls[0];
    *row = (struct nt_row){.size = size, .time_us = NAN, .algbw = NAN, .busbw = NAN};
    sfmt(row->algorithm, sizeof row->algorithm, "%s", cl->algorithm);
    if (!rc && cl->finish > cl->start) {
        row->time_us = units_ps_to_ns(cl->finish - cl->start) / 1000.0;
        row->algbw = coll_algbw(cl);
        row->busbw = row->algbw * cl->busbw_factor;
    } else if (rc) {
        sfmt(err, errlen, "%s: size %lldB: %s", c->file, (long long)size, r.invariant_error);
    }
    run_free(&r);
    scn_free(&scn);
    return rc ? SCN_EUSAGE : 0;
}

/* nccl-tests' own words for a collective's data: float elements, summed where the operation reduces. */
static const char *redop_of(const char *op)
{
    return !strcmp(op, "all_reduce") || !strcmp(op, "reduce_scatter") ? "sum" : "none";
}

static void print_table(FILE *f, const struct nt_cli *c, const char *scn_name, const struct nt_row *rows, int n)
{
    bool bcast = !strcmp(c->op, "broadcast");
    fprintf(f, "# nccl-tests %s, simulated by rocesim: scenario %s, algorithm %s; out-of-place only, no data "
               "checked (#wrong N/A)\n#\n", c->op, scn_name, c->algorithm);
    fprintf(f, "#                                                              out-of-place\n");
    fprintf(f, "#       size         count      type   redop    root     time   algbw   busbw #wrong\n");
    fprintf(f, "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n");
    double sum = 0;
    int done = 0;
    for (int i = 0; i < n; i++) {
        const struct nt_row *w = &rows[i];
        fprintf(f, "%12lld  %12lld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %5s\n", (long long)w->size,
                (long long)(w->size / 4), "float", redop_of(c->op), bcast ? 0 : -1, w->time_us, w->algbw, w->busbw,
                "N/A");
        if (!isnan(w->busbw))
            sum += w->busbw, done++;
    }
    fprintf(f, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g\n#\n", done ? sum / done : 0.0);
}

static char *csv_text(const struct nt_cli *c, const struct nt_row *rows, int n)
{
    struct sbuf b = {0};
    sb_printf(&b, "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,wrong,algorithm\n");
    for (int i = 0; i < n; i++) {
        const struct nt_row *w = &rows[i];
        sb_printf(&b, "%lld,%lld,float,%s,%d,%.3f,%.4f,%.4f,,%s\n", (long long)w->size, (long long)(w->size / 4),
                  redop_of(c->op), strcmp(c->op, "broadcast") ? -1 : 0, w->time_us, w->algbw, w->busbw,
                  w->algorithm);
    }
    return b.p;
}

/* DIR/nccl-tests.png from DIR/nccl-tests.dat and the template plots/nccl_tests.gp; a line saying what was drawn. */
static void draw(const char *dir, const struct nt_cli *c, const char *scn_name, const struct nt_row *rows, int n,
                 char *line, size_t len)
{
    struct sbuf dat = {0}, pre = {0}, failed = {0};
    for (int i = 0; i < n; i++)
        if (!isnan(rows[i].busbw))
            sb_printf(&dat, "%lld %.6g %.6g\n", (long long)rows[i].size, rows[i].busbw, rows[i].algbw);
    char path[4200], tdir[4200], gnuplot[4096], err[512], title[512];
    sfmt(path, sizeof path, "%s/nccl-tests.dat", dir);
    if (!dat.p || write_file_atomic(path, dat.p, dat.len)) {
        sfmt(line, len, "none: %s", dat.p ? "cannot write nccl-tests.dat" : "no size completed");
        free(dat.p);
        return;
    }
    free(dat.p);
    sfmt(title, sizeof title, "nccl-tests %s on %s (simulated), algorithm %s", c->op, scn_name, c->algorithm);
    FILE *m = open_memstream(&pre.p, &pre.len);
    if (!m)
        mem_oom(NT_OOM);
    fputs("png = 'nccl-tests.png'\ndat = 'nccl-tests.dat'\ntitle = ", m);
    plot_gp_str(m, title);
    fputs("\n", m);
    fclose(m);
    if (!plot_find_templates(tdir, sizeof tdir))
        sfmt(line, len, "none: plot templates (plots/*.gp) not found; set ROCESIM_PLOTS");
    else if (plot_write_script(dir, tdir, "nccl_tests", "nccl-tests", pre.p, err, sizeof err))
        sfmt(line, len, "none: %s", err);
    else if (!plot_find_gnuplot(gnuplot, sizeof gnuplot))
        sfmt(line, len, "gnuplot is not installed: script written to %s/nccl-tests.gp", dir);
    else {
        const char *names[] = {"nccl-tests"};
        int drawn = plot_gnuplot_all("rocesim nccl-tests", gnuplot, dir, names, 1, &failed);
        sfmt(line, len, drawn ? "%s/nccl-tests.png" : "none: gnuplot failed (%s/nccl-tests.log)", dir);
    }
    free(pre.p);
    free(failed.p);
}

/* Writes DIR/nccl-tests.csv and draws the plot (DIR/nccl-tests.png): 0 or 3. */
static int write_outputs(const struct nt_cli *c, const char *scn_name, const struct nt_row *rows, int n)
{
    char path[4200], line[4400];
    if (make_dirs(c->dir)) {
        fprintf(stderr, "rocesim nccl-tests: %s: cannot create directory: %s\n", c->dir, strerror(errno));
        return SCN_EIO;
    }
    char *csv = csv_text(c, rows, n);
    sfmt(path, sizeof path, "%s/nccl-tests.csv", c->dir);
    int rc = write_file_atomic(path, csv, strlen(csv));
    free(csv);
    if (rc) {
        fprintf(stderr, "rocesim nccl-tests: %s: cannot write: %s\n", path, strerror(errno));
        return SCN_EIO;
    }
    draw(c->dir, c, scn_name, rows, n, line, sizeof line);
    if (!c->quiet)
        printf("# outputs: %s/nccl-tests.csv; plot: %s\n", c->dir, line);
    return 0;
}

int nccltests_main(int argc, char **argv)
{
    struct nt_cli c;
    int rc = parse_cli(argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    int64_t sizes[NT_MAX_SIZES];
    int n;
    if ((rc = size_list(&c, sizes, &n)))
        return rc;
    char err[SCN_ERR_MAX + 256], *text;
    if ((rc = read_text_file(c.file, &text, err, sizeof err))) {
        fprintf(stderr, "rocesim nccl-tests: %s\n", err);
        return rc;
    }
    cJSON *base = scn_parse_json(c.file, text, err, sizeof err);
    free(text);
    if (!base || !cJSON_IsObject(base)) {
        fprintf(stderr, "rocesim nccl-tests: %s\n", base ? "the scenario is not a JSON object" : err);
        cJSON_Delete(base);
        return SCN_EUSAGE;
    }
    /* one command at a time in DIR, as run, sweep and tune (dirlock.h) */
    struct dirlock lock = {.fd = -1};
    if ((rc = dirlock_take(&lock, c.dir, err, sizeof err))) {
        fprintf(stderr, "rocesim nccl-tests: %s\n", err);
        cJSON_Delete(base);
        return rc;
    }
    char scn_name[256] = "";
    struct nt_row *rows = mem_xcalloc((size_t)n, sizeof *rows, NT_OOM);
    for (int i = 0; i < n && !rc; i++)
        rc = run_size(base, &c, sizes[i], &rows[i], scn_name, err, sizeof err);
    cJSON_Delete(base);
    if (rc) {
        fprintf(stderr, "rocesim nccl-tests: %s\n", err);
    } else {
        if (!c.quiet)
            print_table(stdout, &c, scn_name, rows, n);
        rc = write_outputs(&c, scn_name, rows, n);
    }
    dirlock_release(&lock);
    free(rows);
    return rc;
}
