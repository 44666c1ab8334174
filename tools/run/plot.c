/* plot — reshape a run's files for gnuplot, fill the templates, run gnuplot (see plot.h). */
#include "tools/run/plot.h"
#include "models/cc.h"
#include "sim/file.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "tools/common/files.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Paths are dir (at most 4000 bytes, checked by plot_check_dir and by the CLI)
 * plus a short fixed name, so they fit; messages quoting a path may be cut,
 * which is fine for a message.
 */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAX_QUEUE_LINES 10 /* more lines than this are unreadable: the deepest queues are shown */
#define MAX_FLOW_LINES 10  /* the templates' ten colours that stay apart */
#define MAX_PFC_ROWS 32
#define MAX_POINTS 4000    /* per line; more points than pixels only slow gnuplot down */
#define PATH_MAX_LEN 4200

enum { PL_QUEUES, PL_RATES, PL_FCT, PL_PFC, PL_TIMELINE, PL_CREDITS, PL_COUNT };
static const char *const plot_names[PL_COUNT] = {"queues", "rates", "fct_cdf", "pfc", "timeline", "credits"};

/* What every plot needs to know about the run beyond its own data. */
struct meta {
    char name[SCN_NAME_MAX * 2];
    double end_ns;            /* simulated end of the run */
    double axis_ns;           /* where the time axes end: the traffic's end when it finished, else end_ns */
    bool ecn;                 /* draw the ECN thresholds: ECN on, one kmin and kmax, and monitor.plot_ecn */
    double kmin_kb, kmax_kb;
    double xdiv;              /* ns per unit of the time axis */
    const char *xunit;
    bool flows_none, pfc_none; /* monitor.flows / monitor.pfc "none": the series was off, not empty */
    bool credits_none;        /* monitor.credits "none" */
    bool credits;             /* an InfiniBand run: credits, not PFC (summary.json's "credits") */
    bool flows_list;          /* monitor.flows is a list: the flows the scenario names, drawn in its order */
    int n_flow_ids;
    char flow_ids[MAX_FLOW_LINES][SCN_NAME_MAX]; /* its first entries: a flow ("store.4") or an entry ("store") */
    char cc[32];              /* host.cc: what rates.csv's alpha column holds (docs/outputs.md) */
};

/* ---- small helpers ---- */

/* Splits a CSV line in place (no quoting: ids never hold commas).  Returns the number of fields. */
static int split_csv(char *line, char **fld, int max)
{
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
        line[--l] = '\0';
    int n = 0;
    char *p = line;
    while (n < max) {
        fld[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* See plot.h. */
void plot_gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        /* A line break would end the string, and the script's line, in the middle. */
        fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
    }
    fputc('\'', f);
}

/* See plot.h. */
void plot_gp_array(FILE *f, const char *name, const char *const *items, int n)
{
    fprintf(f, "array %s[%d] = [", name, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        plot_gp_str(f, items[i]);
    }
    if (n == 0)
        fputs("''", f);
    fputs("]\n", f);
}

static double max_d(double a, double b) { return a > b ? a : b; }

/* String -> dense index map (open addressing), keys kept in first-seen order. */
struct smap {
    char **keys;      /* by index */
    uint32_t *slots;  /* index + 1, 0 = empty */
    uint32_t n, cap;  /* cap: slots, a power of two */
};

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Index of key, added when new.  Ends through mem_oom when memory runs out (the maps are small). */
static uint32_t smap_index(struct smap *m, const char *key)
{
    if (2 * (m->n + 1) > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        uint32_t *ns = calloc(nc, sizeof *ns);
        char **nk = realloc(m->keys, sizeof *nk * nc / 2);
        if (!ns || !nk)
            mem_oom("reading the monitor series for plots");
        m->keys = nk;
        for (uint32_t i = 0; i < m->n; i++) {
            uint32_t h = str_hash(m->keys[i]) & (nc - 1);
            while (ns[h])
                h = (h + 1) & (nc - 1);
            ns[h] = i + 1;
        }
        free(m->slots);
        m->slots = ns;
        m->cap = nc;
    }
    uint32_t h = str_hash(key) & (m->cap - 1);
    while (m->slots[h]) {
        if (strcmp(m->keys[m->slots[h] - 1], key) == 0)
            return m->slots[h] - 1;
        h = (h + 1) & (m->cap - 1);
    }
    char *k = strdup(key);
    if (!k)
        mem_oom("reading the monitor series for plots");
    m->keys[m->n] = k;
    m->slots[h] = ++m->n;
    return m->n - 1;
}

static void smap_free(struct smap *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* A sort of indices by a value, descending (qsort has no context argument). */
static const double *sort_vals;
static int cmp_idx_desc(const void *a, const void *b)
{
    double x = sort_vals[*(const uint32_t *)a], y = sort_vals[*(const uint32_t *)b];
    if (x != y)
        return x < y ? 1 : -1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Why the last open_csv failed with EILSEQ (a NUL byte): file_open_stream's line naming the file and the line. */
static char bad_text[PATH_MAX_LEN + 128];

/* Opens dir/name for reading and checks its header line.  Returns the stream, or NULL (errno; EINVAL = bad header,
 * EILSEQ = not text: bad_text says where). */
static FILE *open_csv(const char *dir, const char *name, const char *header, char **line, size_t *cap)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = file_open_stream(path, bad_text, sizeof bad_text);
    if (!f)
        return NULL;
    if (getline(line, cap, f) < 0 || strncmp(*line, header, strlen(header)) != 0) {
        fclose(f);
        errno = EINVAL;
        return NULL;
    }
    return f;
}

/*
 * Goes back to the first data line for a second pass over a CSV.  Returns 0,
 * or -1 (errno set) when the first pass hit a read error or the file cannot
 * be read again.
 */
static int second_pass(FILE *f)
{
    if (ferror(f)) {
        errno = EIO;
        return -1;
    }
    rewind(f);
    char *l = NULL;
    size_t c = 0;
    errno = 0;
    ssize_t k = getline(&l, &c, f);
    free(l);
    if (k < 0) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* Result of a data preparation step. */
enum prep { PREP_BAD = -2, PREP_ERROR = -1, PREP_SKIP = 0, PREP_DRAW = 1 }; /* BAD: bad input (exit 2) */

/* A missing or unreadable CSV: skip the plot with a note, or fail on a real I/O error. */
static enum prep csv_problem(const char *name, char *note, size_t nlen)
{
    if (errno == ENOENT)
        snprintf(note, nlen, "no %s", name);
    else if (errno == EINVAL)
        snprintf(note, nlen, "%s has an unexpected header", name);
    else if (errno == ENODEV)
        snprintf(note, nlen, "cannot read %s: not a regular file (a pipe or a device)", name);
    else if (errno == EILSEQ)
        snprintf(note, nlen, "%s", bad_text);
    else
        snprintf(note, nlen, "cannot read %s: %s", name, strerror(errno));
    return errno == ENOENT || errno == EINVAL ? PREP_SKIP : errno == EILSEQ ? PREP_BAD : PREP_ERROR;
}

static FILE *open_dat(const char *pdir, const char *name)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/%s.dat", pdir, name);
    FILE *f = fopen(path, "w");
    if (f)
        setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}

/*
 * Rewinds the CSV f (DIR/CSV.csv) for a second pass and opens PDIR/DAT.dat.
 * Returns the data file, or NULL with the reason in note.
 */
static FILE *reread_and_open(FILE *f, const char *dir, const char *csv, const char *pdir, const char *dat,
                             char *note, size_t nlen)
{
    if (second_pass(f)) {
        snprintf(note, nlen, "cannot read %s/%s.csv: %s", dir, csv, strerror(errno));
        return NULL;
    }
    FILE *out = open_dat(pdir, dat);
    if (!out)
        snprintf(note, nlen, "cannot write %s/%s.dat: %s", pdir, dat, strerror(errno));
    return out;
}

/* Closes a data file.  Returns 0 or -1 (errno set) when anything failed to be written. */
static int close_dat(FILE *f)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* ---- queues.csv -> queues.dat: time, then one column per queue (KB), max over decimation windows ---- */

/* The first pass: every queue's key ("node:port prio P", in first-seen order), its peak depth, and how many
 * samples there are (for the decimation). */
static void queue_peaks(FILE *f, char **line, size_t *cap, struct smap *keys, double **peak, uint64_t *samples)
{
    char *fld[6], key[256];
    uint32_t peak_cap = 0;
    double last_t = -1;
    *samples = 0;
    while (getline(line, cap, f) > 0) {
        if (split_csv(*line, fld, 6) != 5)
            continue;
        double t = strtod(fld[0], NULL);
        if (t != last_t) {
            (*samples)++;
            last_t = t;
        }
        snprintf(key, sizeof key, "%s:%s prio %s", fld[1], fld[2], fld[3]);
        uint32_t before = keys->n;
        uint32_t k = smap_index(keys, key);
        if (k >= peak_cap) {
            peak_cap = peak_cap ? peak_cap * 2 : 64;
            *peak = mem_xrealloc(*peak, sizeof **peak * peak_cap, "preparing the queue plot");
        }
        if (keys->n != before)
            (*peak)[k] = 0;
        (*peak)[k] = max_d((*peak)[k], strtod(fld[4], NULL));
    }
}

/* The deepest queues, shown in port order; empty ones only when every queue stayed empty.  Returns how many are
 * drawn, their indices first in order[] (keys->n entries, the caller frees it). */
static uint32_t pick_queues(const struct smap *keys, const double *peak, uint32_t **order, uint32_t *nonempty)
{
    uint32_t *o = malloc(sizeof *o * keys->n);
    if (!o)
        mem_oom("preparing the queue plot");
    *nonempty = 0;
    for (uint32_t i = 0; i < keys->n; i++) {
        o[i] = i;
        *nonempty += peak[i] > 0;
    }
    sort_vals = peak;
    qsort(o, keys->n, sizeof *o, cmp_idx_desc);
    uint32_t nsel = *nonempty ? *nonempty : keys->n;
    if (nsel > MAX_QUEUE_LINES)
        nsel = MAX_QUEUE_LINES;
    qsort(o, nsel, sizeof *o, cmp_u32);
    *order = o;
    return nsel;
}

static void emit_queues(FILE *out, double t, const double *win, uint32_t nsel, const struct meta *mt)
{
    fprintf(out, "%.6g", t / mt->xdiv);
    for (uint32_t i = 0; i < nsel; i++)
        fprintf(out, " %.6g", win[i] / 1000.0);
    fputc('\n', out);
}

/* The second pass: one row per window of w samples, each drawn queue's deepest sample in it (a queue's peak must
 * survive the decimation). */
static void write_queues(FILE *f, FILE *out, char **line, size_t *cap, struct smap *keys, const int *col,
                         const char *const *names, uint32_t nsel, uint64_t w, const struct meta *mt)
{
    char *fld[6], key[256];
    double win[MAX_QUEUE_LINES], win_t = 0, last_t = -1;
    uint64_t in_win = 0;
    fprintf(out, "# time_%s, then queue depth in KB (max over %llu samples) of:", mt->xunit, (unsigned long long)w);
    for (uint32_t i = 0; i < nsel; i++)
        fprintf(out, " [%s]", names[i]);
    fputc('\n', out);
    while (getline(line, cap, f) > 0) {
        if (split_csv(*line, fld, 6) != 5)
            continue;
        double t = strtod(fld[0], NULL);
        if (t != last_t) {
            if (in_win == w) {
                emit_queues(out, win_t, win, nsel, mt);
                in_win = 0;
            }
            if (in_win == 0) {
                win_t = t;
                for (uint32_t i = 0; i < nsel; i++)
                    win[i] = 0;
            }
            in_win++;
            last_t = t;
        }
        snprintf(key, sizeof key, "%s:%s prio %s", fld[1], fld[2], fld[3]);
        int c = col[smap_index(keys, key)];
        if (c >= 0)
            win[c] = max_d(win[c], strtod(fld[4], NULL));
    }
    if (in_win)
        emit_queues(out, win_t, win, nsel, mt);
}

/* What queues.gp needs to know beyond queues.dat: the queues drawn, why those, and the ECN thresholds. */
static void queues_prelude(FILE *pre, const struct meta *mt, const char *const *names, uint32_t nsel,
                           uint32_t nonempty, uint32_t nmon)
{
    fprintf(pre, "nq = %u\n", nsel);
    plot_gp_array(pre, "qname", names, (int)nsel);
    char sub[256];
    if (!nonempty)
        snprintf(sub, sizeof sub, "all %u monitored queues stayed empty", nmon);
    else if (nsel < nonempty)
        snprintf(sub, sizeof sub, "the %u deepest of the %u queues that held bytes (%u monitored)", nsel, nonempty,
                 nmon);
    else if (nonempty < nmon)
        snprintf(sub, sizeof sub, "the %u of %u monitored queues that held bytes (the others stayed empty)", nonempty,
                 nmon);
    else
        snprintf(sub, sizeof sub, "%u monitored queues", nmon);
    fputs("subtitle = ", pre);
    plot_gp_str(pre, sub);
    fprintf(pre, "\necn = %d\nkmin_kb = %.6g\nkmax_kb = %.6g\n", mt->ecn, mt->kmin_kb, mt->kmax_kb);
}

static enum prep prep_queues(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                             size_t nlen)
{
    char *line = NULL;
    size_t cap = 0;
    FILE *f = open_csv(dir, "queues.csv", "time_ns,node,port,priority,bytes", &line, &cap);
    if (!f) {
        free(line);
        return csv_problem("queues.csv", note, nlen);
    }
    struct smap keys = {0};
    double *peak = NULL;
    uint64_t samples;
    queue_peaks(f, &line, &cap, &keys, &peak, &samples);
    if (keys.n == 0) {
        fclose(f);
        free(line);
        free(peak);
        smap_free(&keys);
        snprintf(note, nlen, "monitor.queues is empty: no queue was sampled");
        return PREP_SKIP;
    }
    uint32_t *order, nonempty;
    uint32_t nsel = pick_queues(&keys, peak, &order, &nonempty);
    int *col = mem_xmalloc(sizeof *col * keys.n, "preparing the queue plot");
    for (uint32_t i = 0; i < keys.n; i++)
        col[i] = -1;
    char **names = mem_xmalloc(sizeof *names * nsel, "preparing the queue plot");
    for (uint32_t i = 0; i < nsel; i++) {
        col[order[i]] = (int)i;
        names[i] = keys.keys[order[i]];
    }

    enum prep rc = PREP_DRAW;
    FILE *out = reread_and_open(f, dir, "queues", pdir, "queues", note, nlen);
    if (!out) {
        rc = PREP_ERROR;
        goto done;
    }
    write_queues(f, out, &line, &cap, &keys, col, (const char *const *)names, nsel,
                 (samples + MAX_POINTS - 1) / MAX_POINTS, mt);
    if (ferror(f)) {
        fclose(out);
        snprintf(note, nlen, "cannot read %s/queues.csv", dir);
        rc = PREP_ERROR;
        goto done;
    }
    if (close_dat(out)) {
        snprintf(note, nlen, "cannot write %s/queues.dat: %s", pdir, strerror(errno));
        rc = PREP_ERROR;
        goto done;
    }
    queues_prelude(pre, mt, (const char *const *)names, nsel, nonempty, keys.n);
done:
    fclose(f);
    free(line);
    free(peak);
    free(order);
    free(col);
    free(names);
    smap_free(&keys);
    return rc;
}

/* ---- rates.csv -> rates.dat: time, rate per flow, target per flow, alpha per flow (NaN: not active) ---- */

static void emit_rates(FILE *out, double t, const double *v, uint32_t nsel, const struct meta *mt)
{
    fprintf(out, "%.6g", t / mt->xdiv);
    for (uint32_t i = 0; i < 3 * nsel; i++) {
        if (isnan(v[i]))
            fputs(" NaN", out);
        else
            fprintf(out, " %.6g", v[i]);
    }
    fputc('\n', out);
}

/*
 * The nsel flows to draw, as indices of flows (first-seen order): with a monitor.flows list, in the list's order (an
 * entry's flows in their own order), else spread evenly over them.
 */
static void list_order(const struct meta *mt, const struct smap *flows, uint32_t *pick, uint32_t nsel)
{
    if (!mt->flows_list) {
        for (uint32_t i = 0; i < nsel; i++)
            pick[i] = (uint32_t)((uint64_t)i * flows->n / nsel);
        return;
    }
    uint32_t n = 0;
    for (int e = 0; e < mt->n_flow_ids && n < nsel; e++) {
        for (uint32_t k = 0; k < flows->n && n < nsel; k++) {
            const char *id = flows->keys[k];
            bool in = scn_flow_of_entry(id, strlen(id), mt->flow_ids[e]);
            for (uint32_t j = 0; in && j < n; j++)
                in = pick[j] != k;
            if (in)
                pick[n++] = k;
        }
    }
    /* what the list's first entries did not fill (a list longer than the plot holds), in order: nsel is at most
     * the number of flows, so this fills pick */
    for (uint32_t k = 0; n < nsel && k < flows->n; k++) {
        bool in = true;
        for (uint32_t j = 0; in && j < n; j++)
            in = pick[j] != k;
        if (in)
            pick[n++] = k;
    }
}

/* What rates.gp needs to know beyond rates.dat: the flows drawn, what the alpha and the dashed line are. */
static void rates_prelude(FILE *pre, const struct meta *mt, const char *const *names, uint32_t nsel, uint32_t nflows,
                          bool alpha, bool target, double ymax)
{
    fprintf(pre, "nf = %u\nhas_alpha = %d\nhas_target = %d\n", nsel, alpha, target);
    /* The alpha column is each algorithm's own state (docs/outputs.md, rates.csv): its name and range are the
     * algorithm's (cc.h, alpha_name). */
    int ci = cc_find(mt->cc);
    const char *alabel = ci >= 0 && cc_registry[ci]->alpha_name ? cc_registry[ci]->alpha_name : "alpha";
    int bounded = ci >= 0 && cc_registry[ci]->alpha_fraction;
    fputs("alpha_label = ", pre);
    plot_gp_str(pre, alabel);
    fprintf(pre, "\nalpha_bounded = %d\n", bounded);
    /* The dashed line is each algorithm's own second rate (cc.h, target_name): DCQCN's target rate, the rate
     * Swift's window implies.  It may run far above line rate, so the rate axis is the sending rates'. */
    fputs("target_label = ", pre);
    plot_gp_str(pre, ci >= 0 && cc_registry[ci]->target_name ? cc_registry[ci]->target_name : "target rate");
    fprintf(pre, "\nymax = %.6g\n", ymax > 0 ? ymax * 1.06 : 1);
    plot_gp_array(pre, "fname", names, (int)nsel);
    char sub[256];
    if (nsel < nflows && mt->flows_list)
        snprintf(sub, sizeof sub, "the first %u of the %u flows monitor.flows names", nsel, nflows);
    else if (nsel < nflows)
        snprintf(sub, sizeof sub, "%u of %u monitored flows, spread evenly over them", nsel, nflows);
    else
        snprintf(sub, sizeof sub, "%u monitored flow%s, while active", nflows, nflows == 1 ? "" : "s");
    fputs("subtitle = ", pre);
    plot_gp_str(pre, sub);
    fputc('\n', pre);
}

static enum prep prep_rates(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                            size_t nlen)
{
    char *line = NULL, *fld[6];
    size_t cap = 0;
    FILE *f = open_csv(dir, "rates.csv", "time_ns,flow,rate_gbps,target_gbps,alpha", &line, &cap);
    if (!f) {
        free(line);
        return csv_problem("rates.csv", note, nlen);
    }
    struct smap flows = {0};
    uint64_t samples = 0;
    double last_t = -1;
    bool alpha = false, target = false;
    while (getline(&line, &cap, f) > 0) {
        if (split_csv(line, fld, 6) != 5)
            continue;
        double t = strtod(fld[0], NULL);
        if (t != last_t) {
            samples++;
            last_t = t;
        }
        smap_index(&flows, fld[1]);
        alpha |= fld[4][0] != '\0';
        /* an algorithm without a second rate (DCTCP, TIMELY, IB CC) writes the rate again: no dashed line then */
        target |= strcmp(fld[2], fld[3]) != 0;
    }
    if (flows.n == 0) {
        fclose(f);
        free(line);
        smap_free(&flows);
        if (mt->flows_none)
            snprintf(note, nlen, "monitor.flows is \"none\": no flow was monitored");
        else
            snprintf(note, nlen, "no monitored flow was active at a sample");
        return PREP_SKIP;
    }
    /* Too many lines to tell apart: the first ones a monitor.flows list names (a lab names the flows it discusses),
     * else a sample spread evenly over the flows, in their order. */
    uint32_t nsel = flows.n < MAX_FLOW_LINES ? flows.n : MAX_FLOW_LINES;
    int *col = malloc(sizeof *col * flows.n);
    char **names = malloc(sizeof *names * nsel);
    double *v = malloc(sizeof *v * 3 * nsel);
    if (!col || !names || !v)
        mem_oom("preparing the rate plot");
    for (uint32_t i = 0; i < flows.n; i++)
        col[i] = -1;
    uint32_t *pick = mem_xmalloc(sizeof *pick * nsel, "preparing the rate plot");
    list_order(mt, &flows, pick, nsel);
    for (uint32_t i = 0; i < nsel; i++) {
        col[pick[i]] = (int)i;
        names[i] = flows.keys[pick[i]];
    }
    free(pick);
    enum prep rc = PREP_DRAW;
    FILE *out = reread_and_open(f, dir, "rates", pdir, "rates", note, nlen);
    if (!out) {
        rc = PREP_ERROR;
        goto done;
    }
    fprintf(out, "# time_%s, rate_gbps x %u, target_gbps x %u, alpha x %u; flows:", mt->xunit, nsel, nsel, nsel);
    for (uint32_t i = 0; i < nsel; i++)
        fprintf(out, " %s", names[i]);
    fputc('\n', out);
    uint64_t w = (samples + MAX_POINTS - 1) / MAX_POINTS, idx = 0;
    last_t = -1;
    bool have = false;
    double ymax = 0; /* the highest sending rate drawn */
    while (getline(&line, &cap, f) > 0) {
        if (split_csv(line, fld, 6) != 5)
            continue;
        double t = strtod(fld[0], NULL);
        if (t != last_t) {
            if (have && idx++ % w == 0)
                emit_rates(out, last_t, v, nsel, mt);
            for (uint32_t i = 0; i < 3 * nsel; i++)
                v[i] = NAN;
            last_t = t;
            have = true;
        }
        int c = col[smap_index(&flows, fld[1])];
        if (c < 0)
            continue;
        v[c] = strtod(fld[2], NULL);
        ymax = max_d(ymax, v[c]);
        v[nsel + c] = strtod(fld[3], NULL);
        if (fld[4][0])
            v[2 * nsel + c] = strtod(fld[4], NULL);
    }
    if (have)
        emit_rates(out, last_t, v, nsel, mt);
    if (ferror(f)) {
        fclose(out);
        snprintf(note, nlen, "cannot read %s/rates.csv", dir);
        rc = PREP_ERROR;
        goto done;
    }
    if (close_dat(out)) {
        snprintf(note, nlen, "cannot write %s/rates.dat: %s", pdir, strerror(errno));
        rc = PREP_ERROR;
        goto done;
    }
    rates_prelude(pre, mt, (const char *const *)names, nsel, flows.n, alpha, target, ymax);
done:
    fclose(f);
    free(line);
    free(col);
    free(names);
    free(v);
    smap_free(&flows);
    return rc;
}

/* ---- flows.csv -> fct_cdf.dat: one block per size bucket, (slowdown, fraction of flows <= it) ---- */

struct fct_pt {
    double size, slowdown;
};

static void write_cdf_block(FILE *out, const char *title, double *s, size_t n)
{
    qsort(s, n, sizeof *s, cmp_double);
    fprintf(out, "# %s\n%.6g 0\n", title, s[0]);
    size_t step = (n + MAX_POINTS - 1) / MAX_POINTS;
    for (size_t i = 0; i < n; i++)
        if ((i + 1) % step == 0 || i + 1 == n)
            fprintf(out, "%.6g %.6g\n", s[i], (double)(i + 1) / (double)n);
    fputs("\n\n", out);
}

static const char *size_label(double b, char *buf, size_t len)
{
    if (b >= 1e9)
        snprintf(buf, len, "%g GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, len, "%g MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(buf, len, "%g KB", b / 1e3);
    else
        snprintf(buf, len, "%g B", b);
    return buf;
}

static enum prep prep_fct(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                          size_t nlen)
{
    char *line = NULL, *fld[64];
    size_t cap = 0;
    FILE *f = open_csv(dir, "flows.csv", "id,", &line, &cap);
    if (!f) {
        free(line);
        return csv_problem("flows.csv", note, nlen);
    }
    /* Columns by name: flows.csv may grow columns. */
    int nf = split_csv(line, fld, 64), c_size = -1, c_sd = -1;
    for (int i = 0; i < nf; i++) {
        if (strcmp(fld[i], "size_bytes") == 0)
            c_size = i;
        else if (strcmp(fld[i], "slowdown") == 0)
            c_sd = i;
    }
    if (c_size < 0 || c_sd < 0) {
        fclose(f);
        free(line);
        snprintf(note, nlen, "flows.csv has no size_bytes or slowdown column");
        return PREP_SKIP;
    }
    int need = (c_size > c_sd ? c_size : c_sd) + 1;
    struct fct_pt *pt = NULL;
    size_t n = 0, ptcap = 0, total = 0;
    double smin = INFINITY, smax = 0, dmin = INFINITY, dmax = 0;
    while (getline(&line, &cap, f) > 0) {
        if (split_csv(line, fld, 64) < need)
            continue;
        total++;
        if (!fld[c_sd][0])
            continue; /* did not finish */
        if (n == ptcap) {
            ptcap = ptcap ? ptcap * 2 : 256;
            pt = mem_xrealloc(pt, sizeof *pt * ptcap, "preparing a plot");
        }
        pt[n].size = strtod(fld[c_size], NULL);
        pt[n].slowdown = strtod(fld[c_sd], NULL);
        smin = fmin(smin, pt[n].size);
        smax = fmax(smax, pt[n].size);
        dmin = fmin(dmin, pt[n].slowdown);
        dmax = fmax(dmax, pt[n].slowdown);
        n++;
    }
    bool rd_err = ferror(f);
    fclose(f);
    free(line);
    if (rd_err) {
        free(pt);
        snprintf(note, nlen, "cannot read %s/flows.csv", dir);
        return PREP_ERROR;
    }
    if (n == 0) {
        free(pt);
        snprintf(note, nlen, "no flow finished");
        return PREP_SKIP;
    }
    FILE *out = open_dat(pdir, "fct_cdf");
    if (!out) {
        free(pt);
        snprintf(note, nlen, "cannot write %s/fct_cdf.dat: %s", pdir, strerror(errno));
        return PREP_ERROR;
    }
    double *s = mem_xmalloc(sizeof *s * n, "preparing the FCT plot");
    char *titles[8];
    char tbuf[8][96];
    int nb = 0;
    for (size_t i = 0; i < n; i++)
        s[i] = pt[i].slowdown;
    snprintf(tbuf[nb], sizeof tbuf[nb], "all flows (%zu)", n);
    titles[nb] = tbuf[nb];
    write_cdf_block(out, titles[nb++], s, n);
    /* Buckets by decade of size, when there are enough flows and their sizes differ. */
    if (n > 20 && smax >= 4 * smin) {
        static const double edge[] = {0, 1e4, 1e5, 1e6, 1e7, 1e8, INFINITY};
        for (int b = 0; b + 1 < (int)(sizeof edge / sizeof *edge); b++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (pt[i].size >= edge[b] && pt[i].size < edge[b + 1])
                    s[m++] = pt[i].slowdown;
            if (m == 0 || m == n)
                continue;
            char lo[32], hi[32];
            if (b == 0)
                snprintf(tbuf[nb], sizeof tbuf[nb], "< %s (%zu)", size_label(edge[1], hi, sizeof hi), m);
            else if (isinf(edge[b + 1]))
                snprintf(tbuf[nb], sizeof tbuf[nb], ">= %s (%zu)", size_label(edge[b], lo, sizeof lo), m);
            else
                snprintf(tbuf[nb], sizeof tbuf[nb], "%s - %s (%zu)", size_label(edge[b], lo, sizeof lo),
                         size_label(edge[b + 1], hi, sizeof hi), m);
            titles[nb] = tbuf[nb];
            write_cdf_block(out, titles[nb++], s, m);
        }
    }
    free(s);
    free(pt);
    if (close_dat(out)) {
        snprintf(note, nlen, "cannot write %s/fct_cdf.dat: %s", pdir, strerror(errno));
        return PREP_ERROR;
    }
    fprintf(pre, "nb = %d\n", nb);
    plot_gp_array(pre, "bname", (const char *const *)titles, nb);
    fprintf(pre, "logx = %d\nxmin = %.6g\nxmax = %.6g\n", dmax > 10 * dmin, dmin, dmax);
    char sub[256];
    snprintf(sub, sizeof sub, "%zu of %zu flows finished%s; slowdown = FCT / ideal FCT on an idle network", n,
             total, nb > 1 ? ", by flow size" : "");
    fputs("subtitle = ", pre);
    plot_gp_str(pre, sub);
    fputc('\n', pre);
    (void)mt;
    return PREP_DRAW;
}

/*
 * ---- pfc.csv -> pfc.dat: (start, end, row) for each interval from a PAUSE to the RESUME that ends it; likewise
 * credits.csv -> credits.dat, from a stall to the resume that ends it ----
 */

/* What tells the two series apart. */
struct interval_series {
    const char *file, *header; /* the CSV and its header */
    const char *open_event;    /* the event column's word that opens an interval ("pause", "stall") */
    const char *key;           /* the row's label: node:port <key> column 4 */
    const char *what;          /* "PAUSE" / "credit stall": for the subtitle and the .dat's comment */
    const char *pairs;         /* "(port, priority)" / "(port, VL)" */
    const char *verb;          /* "paused" / "stalled" */
};

static const struct interval_series pfc_series = {"pfc.csv", "time_ns,node,port,priority,event", "pause", "prio",
                                                  "PAUSE frame", "(port, priority)", "paused"};
static const struct interval_series credit_series = {"credits.csv", "time_ns,node,port,vl,event", "stall", "VL",
                                                     "credit stall", "(port, VL)", "stalled"};

struct pfc_key {
    double open;     /* time of the PAUSE that started the interval, or -1 */
    double total;    /* ns paused */
    int row;         /* row in the plot, or -1 when not shown */
};

/*
 * Walks pfc.csv; for each closed interval calls back (out may be NULL on the
 * first pass).  Intervals still open at the end close at end_ns.
 */
static void pfc_walk(FILE *f, char **line, size_t *cap, struct smap *keys, struct pfc_key **kv, uint32_t *kcap,
                     double end_ns, FILE *out, const struct meta *mt, const struct interval_series *is)
{
    char *fld[6], key[256];
    while (getline(line, cap, f) > 0) {
        if (split_csv(*line, fld, 6) != 5)
            continue;
        double t = strtod(fld[0], NULL);
        bool pause = strcmp(fld[4], is->open_event) == 0;
        snprintf(key, sizeof key, "%s:%s %s %s", fld[1], fld[2], is->key, fld[3]);
        uint32_t k = smap_index(keys, key);
        if (k >= *kcap) {
            uint32_t nc = *kcap ? *kcap * 2 : 64;
            struct pfc_key *nk = mem_xrealloc(*kv, sizeof *nk * nc, "preparing the PFC plot");
            for (uint32_t i = *kcap; i < nc; i++)
                nk[i] = (struct pfc_key){-1, 0, -1};
            *kv = nk;
            *kcap = nc;
        }
        struct pfc_key *e = &(*kv)[k];
        if (pause && e->open < 0) {
            e->open = t;
        } else if (!pause && e->open >= 0) {
            e->total += t - e->open;
            if (out && e->row >= 0)
                fprintf(out, "%.6g %.6g %d\n", e->open / mt->xdiv, t / mt->xdiv, e->row);
            e->open = -1;
        }
    }
    for (uint32_t k = 0; k < keys->n; k++) {
        struct pfc_key *e = &(*kv)[k];
        if (e->open >= 0) {
            double end = end_ns > e->open ? end_ns : e->open;
            e->total += end - e->open;
            if (out && e->row >= 0)
                fprintf(out, "%.6g %.6g %d\n", e->open / mt->xdiv, end / mt->xdiv, e->row);
            e->open = -1;
        }
    }
}

/* pfc.png or credits.png: the fabric's link-level flow control decides which is drawn (the other is skipped
 * without a note). */
static enum prep prep_intervals(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                                size_t nlen, const struct interval_series *is)
{
    char *line = NULL;
    size_t cap = 0;
    FILE *f = open_csv(dir, is->file, is->header, &line, &cap);
    if (!f) {
        free(line);
        if (errno == ENOENT && (is == &pfc_series ? mt->pfc_none : mt->credits_none)) {
            snprintf(note, nlen, "monitor.%s is \"none\": no %s", is == &pfc_series ? "pfc" : "credits", is->file);
            return PREP_SKIP;
        }
        return csv_problem(is->file, note, nlen);
    }
    struct smap keys = {0};
    struct pfc_key *kv = NULL;
    uint32_t kcap = 0;
    pfc_walk(f, &line, &cap, &keys, &kv, &kcap, mt->end_ns, NULL, mt, is);
    /* The ports paused longest, listed top-down in the order they first paused (how a pause spreads). */
    uint32_t nsel = keys.n < MAX_PFC_ROWS ? keys.n : MAX_PFC_ROWS;
    uint32_t *order = malloc(sizeof *order * (keys.n + 1));
    double *tot = malloc(sizeof *tot * (keys.n + 1));
    if (!order || !tot)
        mem_oom("preparing the PFC plot");
    for (uint32_t i = 0; i < keys.n; i++) {
        order[i] = i;
        tot[i] = kv[i].total;
    }
    sort_vals = tot;
    qsort(order, keys.n, sizeof *order, cmp_idx_desc);
    qsort(order, nsel, sizeof *order, cmp_u32);
    char **names = mem_xmalloc(sizeof *names * (nsel + 1), "preparing the PFC plot");
    for (uint32_t i = 0; i < nsel; i++)
        kv[order[i]].row = (int)(nsel - 1 - i);
    enum prep rc = PREP_DRAW;
    const char *base = is == &pfc_series ? "pfc" : "credits";
    FILE *out = reread_and_open(f, dir, base, pdir, base, note, nlen);
    if (!out) {
        rc = PREP_ERROR;
        goto done;
    }
    fprintf(out, "# start_%s end_%s row: intervals from a %s to the %s that ended it\n", mt->xunit, mt->xunit,
            is == &pfc_series ? "PAUSE" : "stall", is == &pfc_series ? "RESUME" : "resume");
    for (uint32_t i = 0; i < keys.n; i++)
        kv[i].open = -1, kv[i].total = 0;
    smap_free(&keys); /* the second walk assigns the same indices again, in the same order */
    pfc_walk(f, &line, &cap, &keys, &kv, &kcap, mt->end_ns, out, mt, is);
    if (nsel == 0)
        fputs("NaN NaN NaN\n", out); /* gnuplot refuses a file without data */
    if (ferror(f)) {
        fclose(out);
        snprintf(note, nlen, "cannot read %s/%s", dir, is->file);
        rc = PREP_ERROR;
        goto done;
    }
    if (close_dat(out)) {
        snprintf(note, nlen, "cannot write %s/%s.dat: %s", pdir, base, strerror(errno));
        rc = PREP_ERROR;
        goto done;
    }
    for (uint32_t i = 0; i < nsel; i++)
        names[i] = keys.keys[order[i]];
    fprintf(pre, "nrows = %u\n", nsel);
    plot_gp_array(pre, "pname", (const char *const *)names, (int)nsel);
    fputs("set ytics (", pre);
    for (uint32_t i = 0; i < nsel; i++) {
        fputs(i ? ", " : "", pre);
        plot_gp_str(pre, names[i]);
        fprintf(pre, " %u", nsel - 1 - i);
    }
    fputs(")\n", pre);
    char sub[256];
    if (keys.n == 0)
        snprintf(sub, sizeof sub, "no %s in this run", is->what);
    else if (nsel < keys.n)
        snprintf(sub, sizeof sub, "the %u of %u %s pairs %s longest, in the order they first %s", nsel, keys.n,
                 is->pairs, is->verb, is->verb);
    else
        snprintf(sub, sizeof sub, "%u %s pair%s, in the order they first %s", keys.n, is->pairs,
                 keys.n == 1 ? "" : "s", is->verb);
    fputs("subtitle = ", pre);
    plot_gp_str(pre, sub);
    fputc('\n', pre);
done:
    fclose(f);
    free(line);
    free(kv);
    free(order);
    free(tot);
    free(names);
    smap_free(&keys);
    return rc;
}

static enum prep prep_pfc(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                          size_t nlen)
{
    return mt->credits ? PREP_SKIP : prep_intervals(dir, pdir, mt, pre, note, nlen, &pfc_series);
}

static enum prep prep_credits(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                              size_t nlen)
{
    return !mt->credits ? PREP_SKIP : prep_intervals(dir, pdir, mt, pre, note, nlen, &credit_series);
}

/* ---- run metadata ---- */

static double json_num(const cJSON *o, const char *a, const char *b, double dflt)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}

/* The largest number in column `col` of dir/name (a CSV with a header), or 0. */
static double csv_column_max(const char *dir, const char *name, const char *col)
{
    char *line = NULL, *fld[64];
    size_t cap = 0;
    FILE *f = open_csv(dir, name, "", &line, &cap);
    double m = 0;
    int n = f ? split_csv(line, fld, 64) : 0, c = -1;
    for (int i = 0; i < n; i++)
        if (strcmp(fld[i], col) == 0)
            c = i;
    while (c >= 0 && getline(&line, &cap, f) > 0)
        if (split_csv(line, fld, 64) > c && fld[c][0])
            m = max_d(m, strtod(fld[c], NULL));
    if (f)
        fclose(f);
    free(line);
    return m;
}

/*
 * Where the traffic of a finished run ends: its last flow's finish, PFC frame or credit stall, whichever is later.
 * The run itself goes on to the engine's next grid line and the timers that still fire (a DCQCN rate increase after
 * the last flow): on the time axes that tail is empty and would squeeze what happened (lab 9's plots ran to 3.43 ms,
 * its traffic to 1.73 ms).  No later than the run's end.
 */
static double traffic_end_ns(const char *dir, double end_ns)
{
    double t = max_d(csv_column_max(dir, "flows.csv", "finish_ns"), csv_column_max(dir, "pfc.csv", "time_ns"));
    t = max_d(t, csv_column_max(dir, "credits.csv", "time_ns"));
    return t > 0 && t < end_ns ? t : end_ns;
}

/* True when nothing is at path (not even a dangling link): a file that is there but cannot be read is an error. */
static bool file_absent(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 && errno == ENOENT;
}

/*
 * Reads summary.json (required) and scenario.json (optional: without it no ECN lines).  Returns 0, or with a
 * message read_text_file's status (SCN_EIO: unreadable or, *missing set, absent; SCN_EUSAGE: a NUL byte) or
 * SCN_EUSAGE for a file that is not JSON: a damaged file is bad input, not a file to draw around.
 */
static int read_meta(const char *dir, struct meta *mt, bool *missing, char *err, size_t errlen)
{
    memset(mt, 0, sizeof *mt);
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *txt;
    int rc = read_text_file(path, &txt, err, errlen);
    *missing = rc && file_absent(path);
    if (rc)
        return rc;
    cJSON *j = cJSON_Parse(txt);
    free(txt);
    if (!j) {
        snprintf(err, errlen, "%s: cannot read a summary: invalid JSON", path);
        return SCN_EUSAGE;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "scenario");
    snprintf(mt->name, sizeof mt->name, "%s", cJSON_IsString(name) ? name->valuestring : "?");
    mt->end_ns = json_num(j, "sim_end_ns", NULL, 0);
    mt->credits = cJSON_GetObjectItemCaseSensitive(j, "credits") != NULL;
    bool traffic_finished = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "traffic_finished"));
    cJSON_Delete(j);

    snprintf(path, sizeof path, "%s/scenario.json", dir);
    j = NULL;
    if (!file_absent(path)) {
        if ((rc = read_text_file(path, &txt, err, errlen)))
            return rc;
        j = cJSON_Parse(txt);
        free(txt);
        if (!j) {
            snprintf(err, errlen, "%s: cannot read the run's scenario: invalid JSON", path);
            return SCN_EUSAGE;
        }
    }
    const cJSON *mon = cJSON_GetObjectItemCaseSensitive(j, "monitor");
    const cJSON *mf = cJSON_GetObjectItemCaseSensitive(mon, "flows"), *mp = cJSON_GetObjectItemCaseSensitive(mon, "pfc");
    mt->flows_none = cJSON_IsString(mf) && strcmp(mf->valuestring, "none") == 0;
    mt->flows_list = cJSON_IsArray(mf);
    for (const cJSON *e = mt->flows_list ? mf->child : NULL; e && mt->n_flow_ids < MAX_FLOW_LINES; e = e->next)
        if (cJSON_IsString(e))
            snprintf(mt->flow_ids[mt->n_flow_ids++], SCN_NAME_MAX, "%s", e->valuestring);
    bool plot_ecn = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mon, "plot_ecn"));
    mt->pfc_none = cJSON_IsString(mp) && strcmp(mp->valuestring, "none") == 0;
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(mon, "credits");
    mt->credits_none = cJSON_IsString(mc) && strcmp(mc->valuestring, "none") == 0;
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "host"), "cc");
    snprintf(mt->cc, sizeof mt->cc, "%s", cJSON_IsString(cc) ? cc->valuestring : "dcqcn");
    const cJSON *ecn = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "switch"), "ecn");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(ecn, "enabled");
    const cJSON *kmin = cJSON_GetObjectItemCaseSensitive(ecn, "kmin");
    const cJSON *kmax = cJSON_GetObjectItemCaseSensitive(ecn, "kmax");
    int64_t a, b;
    char e[128];
    if (plot_ecn && cJSON_IsTrue(en) && cJSON_IsString(kmin) && cJSON_IsString(kmax) &&
        !units_parse_size(kmin->valuestring, &a, e, sizeof e) && !units_parse_size(kmax->valuestring, &b, e, sizeof e)) {
        mt->ecn = true;
        mt->kmin_kb = (double)a / 1000.0;
        mt->kmax_kb = (double)b / 1000.0;
    }
    cJSON_Delete(j);
    mt->axis_ns = traffic_finished ? traffic_end_ns(dir, mt->end_ns) : mt->end_ns;
    /* Microseconds read well up to a few milliseconds; beyond, milliseconds. */
    if (mt->axis_ns >= 5e6) {
        mt->xdiv = 1e6;
        mt->xunit = "ms";
    } else {
        mt->xdiv = 1e3;
        mt->xunit = "us";
    }
    return 0;
}

/* ---- timeline.csv (workload entries) ---- */

/*
 * timeline.dat: a block per activity (compute, then each collective kind, then send_recv) of bars "x_mid y
 * x_half y_half", y the rank (entries after one another), compute above the rank's line and communication
 * below it so that what overlaps shows.  No timeline.csv (no workload entry): skipped without a note.
 */
static enum prep prep_timeline(const char *dir, const char *pdir, const struct meta *mt, FILE *pre, char *note,
                               size_t nlen)
{
    static const char *const act[] = {"compute", "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                      "send_recv"};
    enum { NA = sizeof act / sizeof *act };
    char *line = NULL, *fld[8], prev_id[SCN_NAME_MAX] = "";
    size_t cap = 0;
    FILE *f = open_csv(dir, "timeline.csv", "id,rank,activity,start_us,end_us", &line, &cap);
    if (!f) {
        free(line);
        return errno == ENOENT ? PREP_SKIP : csv_problem("timeline.csv", note, nlen);
    }
    FILE *out[NA] = {0};
    char *buf[NA] = {0};
    size_t blen[NA] = {0};
    long base = 0, top = -1, rows = 0;
    while (getline(&line, &cap, f) > 0) {
        if (split_csv(line, fld, 8) < 5)
            continue;
        long rank = strtol(fld[1], NULL, 10);
        if (strcmp(fld[0], prev_id)) {
            base = top + 1;
            snprintf(prev_id, sizeof prev_id, "%s", fld[0]);
        }
        int a = 0;
        while (a < NA && strcmp(act[a], fld[2]))
            a++;
        if (a == NA || rank < 0)
            continue;
        if (!out[a] && !(out[a] = open_memstream(&buf[a], &blen[a])))
            mem_oom("preparing a plot");
        double s = strtod(fld[3], NULL) * 1e3 / mt->xdiv, e = strtod(fld[4], NULL) * 1e3 / mt->xdiv;
        fprintf(out[a], "%.9g %.4g %.9g 0.18\n", (s + e) / 2, (double)(base + rank) + (a ? -0.2 : 0.2), (e - s) / 2);
        top = base + rank > top ? base + rank : top;
        rows++;
    }
    bool rd_err = ferror(f);
    fclose(f);
    free(line);
    FILE *dat = rd_err || !rows ? NULL : open_dat(pdir, "timeline");
    const char *names[NA];
    char cols[2 * NA + 1] = "";
    int nb = 0;
    for (int a = 0; a < NA; a++) {
        if (!out[a])
            continue;
        fclose(out[a]);
        if (dat) {
            fprintf(dat, "%s%s\n", nb ? "\n\n" : "", buf[a]);
            names[nb++] = act[a];
            snprintf(cols + strlen(cols), sizeof cols - strlen(cols), "%d ", a);
        }
        free(buf[a]);
    }
    if (rd_err || !rows || !dat) {
        snprintf(note, nlen, "%s", rd_err ? "cannot read timeline.csv" : rows ? "cannot write timeline.dat" : "");
        return rd_err || rows ? PREP_ERROR : PREP_SKIP;
    }
    bool bad = ferror(dat);
    if (fclose(dat) || bad) {
        snprintf(note, nlen, "cannot write timeline.dat");
        return PREP_ERROR;
    }
    fprintf(pre, "nb = %d\nnranks = %ld\nbcols = '%s'\n", nb, top + 1, cols);
    plot_gp_array(pre, "bname", names, nb);
    return PREP_DRAW;
}

/* ---- files, templates, gnuplot ---- */

int plot_save_inputs(const struct scenario *scn, const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    char *txt = scn_to_json(scn);
    if (!txt) {
        snprintf(err, errlen, "%s: out of memory", path);
        return SCN_EIO;
    }
    size_t len = strlen(txt);
    char *t2 = mem_xrealloc(txt, len + 2, "writing scenario.json");
    t2[len] = '\n';
    t2[len + 1] = '\0';
    int rc = write_file_atomic(path, t2, len + 1);
    free(t2);
    if (rc) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return SCN_EIO;
    }
    return 0;
}

int plot_check_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (strlen(dir) > 4000) {
        snprintf(err, errlen, "%.60s...: expected a directory path of at most 4000 bytes", dir);
        return SCN_EUSAGE;
    }
    int bad = stat(dir, &st);
    if (bad || !S_ISDIR(st.st_mode)) {
        const char *got = !bad ? "a file" : errno == ENOENT ? "nothing there" : strerror(errno);
        snprintf(err, errlen, "%s: expected the directory of a finished run (rocesim run -o DIR), got %s", dir, got);
        return SCN_EUSAGE;
    }
    static const char *const need[] = {"summary.json", "flows.csv"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "%s/%s", dir, need[i]);
        if (access(path, R_OK)) {
            snprintf(err, errlen, "%s: expected the directory of a finished run (rocesim run -o DIR), but it has "
                                  "no readable %s",
                     dir, need[i]);
            return SCN_EUSAGE;
        }
    }
    return 0;
}

/* See plot.h. */
void plot_remove_files(const char *pdir, const char *const *names, size_t n)
{
    static const char *const ext[] = {"png", "gp", "dat", "log", "png.tmp"};
    char (*file)[PLOT_NAME_MAX + 8] = mem_xmalloc(2 * n * sizeof *file, "cleaning the plots");
    const char **stale = mem_xmalloc(2 * n * sizeof *stale, "cleaning the plots");
    for (size_t i = 0; i < n; i++) {
        for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
            char path[PATH_MAX_LEN];
            snprintf(path, sizeof path, "%s/%s.%s", pdir, names[i], ext[e]);
            unlink(path);
        }
        snprintf(file[2 * i], sizeof file[0], "%s.gp", names[i]);
        snprintf(file[2 * i + 1], sizeof file[0], "%s.dat", names[i]);
        stale[2 * i] = file[2 * i];
        stale[2 * i + 1] = file[2 * i + 1];
    }
    /* Scripts and data are written through NAME.gp.tmp.PID and NAME.dat.tmp.PID (write_file_atomic): a killed
     * plot leaves those. */
    remove_stale_tmp(pdir, stale, 2 * n);
    free(stale);
    free(file);
}

void plot_clean(const char *dir)
{
    char pdir[PATH_MAX_LEN];
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    plot_remove_files(pdir, plot_names, PL_COUNT);
}

/* Finds an executable on PATH (the lookup execvp would do).  Returns true with its path in out. */
static bool find_in_path(const char *prog, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", prog);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return true;
        if (!end)
            return false;
        path = end + 1;
    }
}

static bool has_templates(const char *d)
{
    char p[PATH_MAX_LEN];
    snprintf(p, sizeof p, "%s/queues.gp", d);
    return access(p, R_OK) == 0;
}

/* See plot.h. */
bool plot_find_templates(char *out, size_t len)
{
    const char *env = getenv("ROCESIM_PLOTS");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return has_templates(out);
    }
    char exe[PATH_MAX_LEN];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            snprintf(out, len, "%s/plots", exe[0] ? exe : "");
            if (has_templates(out))
                return true;
        }
    }
    snprintf(out, len, "plots");
    return has_templates(out);
}

/* See plot.h. */
int plot_write_script(const char *pdir, const char *tdir, const char *tpl_name, const char *name,
                      const char *prelude, char *err, size_t errlen)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/%s.gp", tdir, tpl_name);
    char *tpl;
    if (read_text_file(path, &tpl, err, errlen))
        return 1;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        mem_oom("writing a gnuplot script");
    fprintf(m, "# Written by rocesim from the template plots/%s.gp; `gnuplot %s.gp` in this directory redraws "
               "%s.png.\n# --- this run ---\n%s# --- template ---\n%s",
            tpl_name, name, name, prelude, tpl);
    fclose(m);
    free(tpl);
    snprintf(path, sizeof path, "%s/%s.gp", pdir, name);
    int rc = write_file_atomic(path, text, len);
    free(text);
    if (rc) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* See plot.h. */
pid_t plot_gnuplot_start(const char *gnuplot, const char *pdir, const char *name)
{
    char script[PLOT_NAME_MAX + 8], log[PLOT_NAME_MAX + 8], outarg[PLOT_NAME_MAX + 32];
    snprintf(script, sizeof script, "%s.gp", name);
    snprintf(log, sizeof log, "%s.log", name);
    snprintf(outarg, sizeof outarg, "outname='%s.png.tmp'", name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* child: only async-signal-safe calls until exec */
    if (chdir(pdir))
        _exit(126);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) {
        dup2(nul, 0);
        close(nul);
    }
    char *argv[] = {"gnuplot", "-e", outarg, script, NULL};
    execv(gnuplot, argv);
    _exit(127);
}

/* First line of pdir/NAME.log, for a one-line error. */
static void log_head(const char *pdir, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/%s.log", pdir, name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    /* gnuplot echoes the offending line first; the message proper follows. Keep the last non-empty line. */
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (l)
            snprintf(buf, len, "%s", line);
    }
    fclose(f);
}

/*
 * Whether path holds a whole PNG: the signature first and the IEND chunk last (what a writer cut short by a
 * full disk or a kill lacks).  The chunks in between are gnuplot's business.  Else says what is wrong in bad.
 */
static bool png_whole(const char *path, char *bad, size_t blen)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(bad, blen, "is missing (%s)", strerror(errno));
        return false;
    }
    unsigned char head[8], tail[12];
    bool ok = false;
    long size = -1;
    if (fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, sig, sizeof sig) == 0) {
        if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= (long)(sizeof sig + sizeof iend) &&
            fseek(f, -(long)sizeof tail, SEEK_END) == 0 && fread(tail, 1, sizeof tail, f) == sizeof tail)
            ok = memcmp(tail, iend, sizeof iend) == 0;
        if (!ok)
            snprintf(bad, blen, "is a truncated PNG (%ld bytes, no IEND chunk at its end; is the disk full?)",
                     size < 0 ? 0L : size);
    } else {
        if (fseek(f, 0, SEEK_END) == 0)
            size = ftell(f);
        snprintf(bad, blen, "is not a PNG (%ld bytes, no PNG signature)", size < 0 ? 0L : size);
    }
    fclose(f);
    return ok;
}

/* See plot.h.  gnuplot's exit status is not enough: on a full disk it exits 0 with half a PNG written. */
int plot_gnuplot_finish(const char *gnuplot, const char *pdir, const char *name, pid_t pid, char *why, size_t len)
{
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            snprintf(why, len, "cannot wait for gnuplot: %s", strerror(errno));
            return -1;
        }
    }
    char tmp[PATH_MAX_LEN], png[PATH_MAX_LEN], log[PATH_MAX_LEN];
    snprintf(tmp, sizeof tmp, "%s/%s.png.tmp", pdir, name);
    snprintf(png, sizeof png, "%s/%s.png", pdir, name);
    snprintf(log, sizeof log, "%s/%s.log", pdir, name);
    struct stat sb;
    bool log_empty = stat(log, &sb) == 0 && sb.st_size == 0;
    char what[600] = "";
    if (!WIFEXITED(st)) {
        snprintf(what, sizeof what, "gnuplot was killed by signal %d", WTERMSIG(st));
    } else if (WEXITSTATUS(st) == 127) {
        snprintf(what, sizeof what, "could not execute %s", gnuplot);
    } else if (WEXITSTATUS(st) != 0) {
        char head[512];
        log_head(pdir, name, head, sizeof head);
        snprintf(what, sizeof what, "gnuplot exited with status %d%s%s", WEXITSTATUS(st), head[0] ? ": " : "", head);
    } else {
        char bad[256];
        if (!png_whole(tmp, bad, sizeof bad))
            snprintf(what, sizeof what, "gnuplot exited with status 0 but %s.png.tmp %s", name, bad);
        else if (rename(tmp, png))
            snprintf(what, sizeof what, "cannot rename %s to %s.png: %s", tmp, name, strerror(errno));
    }
    /* Point at the log only when gnuplot said something there. */
    if (log_empty)
        unlink(log);
    if (!what[0])
        return 0;
    unlink(tmp);
    snprintf(why, len, "%s%s%s", what, log_empty ? "" : "; gnuplot's output is in ", log_empty ? "" : log);
    return -1;
}

/* See plot.h.  Every gnuplot is started before any is waited for: each takes a moment to start.  A start's errno
 * is kept at once, since the starts and waits after it overwrite errno long before its failure is reported. */
int plot_gnuplot_all(const char *who, const char *gnuplot, const char *pdir, const char *const *names, int n,
                     struct sbuf *failed)
{
    pid_t *pid = mem_xcalloc((size_t)n, sizeof *pid, "drawing the plots");
    int *start_err = mem_xcalloc((size_t)n, sizeof *start_err, "drawing the plots");
    for (int i = 0; i < n; i++) {
        pid[i] = names[i] ? plot_gnuplot_start(gnuplot, pdir, names[i]) : -1;
        start_err[i] = pid[i] < 0 ? errno : 0;
    }
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        char why[1200];
        if (!names[i])
            continue;
        if (pid[i] < 0)
            snprintf(why, sizeof why, "cannot start gnuplot: %s", strerror(start_err[i]));
        else if (plot_gnuplot_finish(gnuplot, pdir, names[i], pid[i], why, sizeof why) == 0) {
            drawn++;
            continue;
        }
        fprintf(stderr, "%s: %s plot failed, no %s.png drawn: %s\n", who, names[i], names[i], why);
        sb_printf(failed, " %s.png", names[i]);
    }
    free(pid);
    free(start_err);
    return drawn;
}

/* See plot.h. */
bool plot_find_gnuplot(char *out, size_t len)
{
    return find_in_path("gnuplot", out, len);
}

int plot_draw(const char *dir, struct plot_result *res, FILE *errf)
{
    memset(res, 0, sizeof *res);
    char err[1024], pdir[PATH_MAX_LEN], tdir[PATH_MAX_LEN], gnuplot[PATH_MAX_LEN];
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    if (!find_in_path("gnuplot", gnuplot, sizeof gnuplot)) {
        res->no_gnuplot = true;
        fprintf(errf, "rocesim: gnuplot not found on PATH: plots skipped (the data is in %s; install gnuplot, then "
                      "run `rocesim plot %s`)\n",
                dir, dir);
        snprintf(res->summary, sizeof res->summary, "none (gnuplot not found)");
        return 0;
    }
    if (!plot_find_templates(tdir, sizeof tdir)) {
        const char *env = getenv("ROCESIM_PLOTS");
        if (env && *env)
            fprintf(errf, "rocesim: ROCESIM_PLOTS=%s: expected the directory of the plot templates (plots/*.gp): "
                          "plots skipped\n", env);
        else
            fprintf(errf, "rocesim: plot templates (plots/*.gp) not found next to the rocesim binary; set "
                          "ROCESIM_PLOTS to their directory: plots skipped\n");
        snprintf(res->summary, sizeof res->summary, "none (templates not found)");
        return SCN_EIO;
    }
    struct meta mt;
    bool missing;
    int mrc = read_meta(dir, &mt, &missing, err, sizeof err);
    if (mrc) {
        fprintf(errf, "rocesim: %s\n", err);
        snprintf(res->summary, sizeof res->summary, "%s", missing ? "none (no summary.json)" : "none (the run's files cannot be read)");
        return mrc;
    }
    if (make_dirs(pdir)) {
        fprintf(errf, "rocesim: %s: cannot create directory: %s\n", pdir, strerror(errno));
        return SCN_EIO;
    }
    plot_clean(dir);

    typedef enum prep (*prep_fn)(const char *, const char *, const struct meta *, FILE *, char *, size_t);
    static const prep_fn prep[PL_COUNT] = {prep_queues, prep_rates, prep_fct, prep_pfc, prep_timeline, prep_credits};
    pid_t pid[PL_COUNT];
    char notes[PL_COUNT][256];
    int rc = 0;
    for (int i = 0; i < PL_COUNT; i++) {
        pid[i] = -1;
        notes[i][0] = '\0';
        char *pre = NULL;
        size_t plen = 0;
        FILE *pf = open_memstream(&pre, &plen);
        if (!pf)
            mem_oom("writing a gnuplot script");
        fputs("name = ", pf);
        plot_gp_str(pf, mt.name);
        fprintf(pf, "\nxunit = '%s'\nxend = %.6g\n", mt.xunit, mt.axis_ns / mt.xdiv);
        enum prep p = prep[i](dir, pdir, &mt, pf, notes[i], sizeof notes[i]);
        fclose(pf);
        if (p == PREP_DRAW && plot_write_script(pdir, tdir, plot_names[i], plot_names[i], pre, notes[i],
                                                sizeof notes[i]))
            p = PREP_ERROR;
        free(pre);
        if (p == PREP_ERROR || p == PREP_BAD) {
            /* What was half written for it goes too: a plot's files are whole or absent. */
            char path[PATH_MAX_LEN];
            snprintf(path, sizeof path, "%s/%s.dat", pdir, plot_names[i]);
            unlink(path);
            snprintf(path, sizeof path, "%s/%s.gp", pdir, plot_names[i]);
            unlink(path);
            fprintf(errf, "rocesim: %s plot failed, no %s.png drawn: %s\n", plot_names[i], plot_names[i], notes[i]);
            res->failed++;
            rc = p == PREP_BAD && rc != SCN_EIO ? SCN_EUSAGE : SCN_EIO;
            notes[i][0] = '\0';
        } else if (p == PREP_DRAW) {
            /* All gnuplots run at once: each takes a moment to start. */
            pid[i] = plot_gnuplot_start(gnuplot, pdir, plot_names[i]);
            if (pid[i] < 0) {
                fprintf(errf, "rocesim: cannot start gnuplot: %s\n", strerror(errno));
                res->failed++;
                rc = SCN_EIO;
            }
        }
    }
    char drawn[512] = "", skipped[768] = "", failed[128] = "";
    for (int i = 0; i < PL_COUNT; i++) {
        if (pid[i] < 0) {
            if (notes[i][0]) {
                size_t l = strlen(skipped);
                snprintf(skipped + l, sizeof skipped - l, "%s%s (%s)", l ? "; " : "", plot_names[i], notes[i]);
            }
            continue;
        }
        char why[1200];
        if (plot_gnuplot_finish(gnuplot, pdir, plot_names[i], pid[i], why, sizeof why) == 0) {
            res->drawn++;
            size_t l = strlen(drawn);
            snprintf(drawn + l, sizeof drawn - l, "%s%s.png", l ? ", " : "", plot_names[i]);
            continue;
        }
        fprintf(errf, "rocesim: %s plot failed, no %s.png drawn: %s\n", plot_names[i], plot_names[i], why);
        size_t l = strlen(failed);
        snprintf(failed + l, sizeof failed - l, "%s%s.png", l ? ", " : "", plot_names[i]);
        res->failed++;
        rc = SCN_EIO;
    }
    if (res->drawn)
        snprintf(res->summary, sizeof res->summary, "%s/ (%s)%s%s%s%s", pdir, drawn, failed[0] ? "; FAILED: " : "",
                 failed, skipped[0] ? "; skipped: " : "", skipped);
    else
        snprintf(res->summary, sizeof res->summary, "none%s%s%s%s", failed[0] ? "; FAILED: " : "", failed,
                 skipped[0] ? "; skipped: " : "", skipped);
    return rc;
}
