/*
 * Numbers the docs quote from runs, checked against the runs (and rewritten by `make docs-update`).
 *
 * A number in prose is followed by a tag naming where it comes from, hidden by a Markdown renderer:
 *
 *     4596<!--=labs/10/healthy:summary.packets.ecn_marked-->        (a field of summary.json)
 *     2.837 ms<!--=labs/10/mystery-c:flows.max(finish_ns) / 1e6-->   (a column of flows.csv, aggregated)
 *
 * `DIR:` names a run's output directory below the sandbox's out/ (`<!--#run DIR-->` sets it for the tags that
 * follow in that file); the directory is made by the source whose key is its prefix (docsrcs below: a lab's
 * run.sh, or a command of the docs' own).  FILE.path reads FILE.json (keys, array indices; a key not there by
 * name may be given by its position); FILE.AGG(...) aggregates FILE.csv over the rows the filters keep
 * (docs: CONTRIBUTING.md, "Quoting a number from a run").  The literal before the tag gives the format: its
 * decimals, its thousands separators, its sign.
 *
 * A fenced block after `<!--#transcript-->` is a shell session: each `$ COMMAND` runs in a fresh sandbox and
 * the lines that follow are its output.  After `<!--#output KEY-->` the block is an excerpt of what source KEY
 * printed.  In both, a line `...` stands for lines left out, and wall-clock figures are masked.
 *
 * `make test` checks every tag and block whose source is not slow; `build/run_tests --docs-check` checks all,
 * `--docs-update` (`make docs-update`) rewrites the literals and blocks in place, to be reviewed as a diff.
 */
#include "tests/tests.h"
#include "tools/common/files.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Messages quoting a tag or a line may be cut; every path fits its buffer. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ---- the runs the docs quote ---- */

/*
 * Each source runs `cmd` in the sandbox (the repository's scenarios/ and plots/, ./rocesim, and out/) and
 * writes below out/KEY; what it prints goes to out/KEY/run.log.  A slow one runs only for --docs-check and
 * --docs-update.  The first ones take longest: they start first.
 */
static const struct docsrc {
    const char *key, *cmd;
    bool slow;
} docsrcs[] = {
    {"labs/01", "sh scenarios/labs/01-one-config-ten-times/run.sh -q", false},
    {"labs/09", "sh scenarios/labs/09-tune-it-yourself/run.sh -q", false},
    {"labs/07", "sh scenarios/labs/07-qos/run.sh -q", false},
    {"labs/11", "sh scenarios/labs/11-which-cc/run.sh -q", false},
    {"labs/13", "sh scenarios/labs/13-checkpoint-path/run.sh -q", false},
    {"labs/06", "sh scenarios/labs/06-fattree-vs-dragonfly/run.sh -q", false},
    {"labs/10", "sh scenarios/labs/10-bandwidth-far-below/run.sh -q", false},
    {"labs/12", "sh scenarios/labs/12-allreduce-slow/run.sh -q", false},
    {"labs/08", "sh scenarios/labs/08-headroom/run.sh -q", false},
    {"labs/05", "sh scenarios/labs/05-tuning-dcqcn/run.sh -q", false},
    {"labs/02", "sh scenarios/labs/02-hol-victim/run.sh -q", false},
    {"labs/03", "sh scenarios/labs/03-storm-watchdog/run.sh -q", false},
    {"labs/04", "sh scenarios/labs/04-deadlock/run.sh -q", false},
    {"labs/14", "sh scenarios/labs/14-ib-or-roce/run.sh -q", false},
    {"labs/15", "sh scenarios/labs/15-do-we-still-need-pfc/run.sh -q", false},
    {"labs/16", "sh scenarios/labs/16-roce-irn-or-uet/run.sh -q", false},
    {"misconfig", "for s in scenarios/misconfig/*.json; do n=${s##*/}; "
                  "./rocesim run $s -q --no-plot -o out/misconfig/${n%.json} || exit 1; done", false},
    {"lab11-timely-paper", "l=scenarios/labs/11-which-cc; p='--set host.cc=timely --set host.timely.preset=paper -q --no-plot'; "
                           "./rocesim run $l/mix.json $p -o out/lab11-timely-paper/mix && "
                           "./rocesim run $l/allreduce.json $p --stop 30ms -o out/lab11-timely-paper/allreduce", false},
    {"lab11-timely-ns3", "./rocesim run scenarios/labs/11-which-cc/allreduce.json --set host.cc=timely "
                         "--set host.timely.preset=hpcc-ns3 -q --no-plot -o out/lab11-timely-ns3/allreduce", false},
    {"lab09-variants", "sh tests/docsrc/lab09-variants.sh", true},
    {"tune-studies", "sh tests/docsrc/tune-studies.sh", true},
    {"load50", "sh tests/docsrc/cc-comparison.sh 50", true},
    {"load30", "sh tests/docsrc/cc-comparison.sh 30", true},
    /* docs/tune.md's and docs/sweep.md's examples, as they print them (into their default directories) */
    {"incast-mix-short-flows", "./rocesim tune scenarios/tune/incast-mix-short-flows.json", false},
    {"incast-mix-g-kmin", "./rocesim tune scenarios/tune/incast-mix-g-kmin.json", false},
    {"incast-mix-pareto", "./rocesim tune scenarios/tune/incast-mix-pareto.json", false},
    {"dcqcn-g-kmin", "./rocesim sweep scenarios/sweeps/dcqcn-g-kmin.json", false},
    {"doctor", "for s in scenarios/misconfig/pfc-off.json scenarios/misconfig/ecn-off.json "
               "scenarios/labs/10-bandwidth-far-below/mystery-b.json; do n=${s##*/}; n=${n%.json}; "
               "./rocesim run $s -q --no-plot -o out/doctor/$n || exit 1; ./rocesim doctor out/doctor/$n >out/doctor/$n.txt; "
               "done; true", false},
    {"incast", "./rocesim run scenarios/incast-16to1.json --set monitor.counters=true -q --no-plot -o out/incast", false},
    /* docs/model.md's and docs/scenario.md's runs beside docs/VALIDATION.md's rows, and those rows as make validation
     * wrote them (make docs-update writes them first) */
    {"model", "sh tests/docsrc/model.sh", false},
    {"validation", "mkdir -p out/validation && cp docs/VALIDATION.md out/validation/VALIDATION.md", false},
    /* docs/RELIABILITY.md's refusal of a poisson load of tiny flows (tests/test_robustness.c's case), as run from
     * the directory of its x.json */
    {"mem", "mkdir -p out/mem && cd out/mem && printf '1 0.5\\n2 1\\n' >tiny.cdf && "
            "echo '{\"name\": \"tiny\", \"stop\": \"100us\", \"topology\": {\"type\": \"star\", \"hosts\": 4, "
            "\"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, \"traffic\": [{\"type\": \"poisson\", "
            "\"hosts\": \"all\", \"load\": 0.5, \"size_cdf\": \"tiny.cdf\"}], \"monitor\": {\"flows\": \"none\"}}' "
            ">x.json && ROCESIM_MEM_AVAILABLE=200MB ../../rocesim run x.json -q --no-plot -o run 2>&1; test $? = 2", false},
    /* docs/outputs.md's two completion times: 16 short flows, no congestion control */
    {"incast-10kb", "./rocesim run scenarios/incast-16to1.json --set traffic.0.size=10KB --set host.cc=none -q --no-plot "
                    "-o out/incast-10kb", false},
};
#define N_SRC (sizeof docsrcs / sizeof docsrcs[0])

/* The source that makes dir (below out/), or -1. */
static int src_of(const char *dir, size_t len)
{
    for (size_t i = 0; i < N_SRC; i++) {
        size_t k = strlen(docsrcs[i].key);
        if (len >= k && strncmp(dir, docsrcs[i].key, k) == 0 && (len == k || dir[k] == '/'))
            return (int)i;
    }
    return -1;
}

/* ---- the sandbox ---- */

static char sbx[1024];  /* the sandbox: out/ holds the sources' outputs */
static char repo[1024]; /* the repository (the current directory) */
static int src_rc[N_SRC]; /* -2 not run, else the command's exit status */
static bool sbx_kept;      /* ROCESIM_DOCNUMS_DIR: kept, and its finished sources reused */

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return test_run(cmd, NULL);
}

/*
 * A directory that looks like the repository to a lab's run.sh (it cds to its folder's ../../..) and whose out/
 * is its own: links to scenarios/, plots/ and the binary under test, and bin/ with `rocesim` and a `make` that runs
 * the repository's Makefile without rebuilding (a doc's `make run`), as a user's shell runs it: not as a sub-make of
 * the make that runs the suite (`make asan`), whose MAKEFLAGS would add its directory lines and a jobserver warning
 * to the transcript.
 */
static bool sandbox_fill(const char *dir)
{
    char bin[2048];
    const char *b = test_rocesim_bin();
    if (b[0] == '/')
        snprintf(bin, sizeof bin, "%s", b);
    else
        snprintf(bin, sizeof bin, "%s/%s", repo, b[0] == '.' && b[1] == '/' ? b + 2 : b);
    char cmd[8192], *make = NULL;
    if (test_run("command -v make", &make) != 0 || !make || make[0] != '/') {
        free(make);
        return false;
    }
    make[strcspn(make, "\n")] = '\0';
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p out bin && ln -sfn %s/scenarios scenarios && ln -sfn %s/plots plots && ln -sfn %s/tests tests && ln -sfn %s/docs docs && "
             "ln -sfn %s rocesim && ln -sfn %s bin/rocesim && "
             "printf '#!/bin/sh\\nexec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL %s -f %s/Makefile -o rocesim "
             "--no-print-directory \"$@\"\\n' >bin/make && "
             "chmod +x bin/make",
             dir, repo, repo, repo, repo, bin, bin, make, repo);
    free(make);
    return test_run(cmd, NULL) == 0;
}

/* The sandbox: ROCESIM_DOCNUMS_DIR when set (kept, and its finished sources reused: for writing a doc), else a
 * new temporary directory. */
static bool sandbox_init_as(bool keepable)
{
    if (sbx[0])
        return true;
    if (!getcwd(repo, sizeof repo))
        return false;
    const char *keep = keepable ? getenv("ROCESIM_DOCNUMS_DIR") : NULL;
    sbx_kept = keep && *keep;
    if (sbx_kept) {
        snprintf(sbx, sizeof sbx, "%s", keep);
        mkdir(sbx, 0777);
    } else {
        snprintf(sbx, sizeof sbx, "/tmp/rocesim-docnums-XXXXXX");
        if (!mkdtemp(sbx)) {
            sbx[0] = '\0';
            return false;
        }
    }
    for (size_t i = 0; i < N_SRC; i++)
        src_rc[i] = -2;
    return sandbox_fill(sbx);
}

static bool sandbox_init(void)
{
    return sandbox_init_as(true);
}

static void sandbox_remove(void)
{
    if (sbx[0] && !sbx_kept)
        sh("rm -rf %s", sbx, NULL);
    sbx[0] = '\0';
    sbx_kept = false;
}

/* With ROCESIM_DOCNUMS_DIR, a source that ended with status 0 before (src_mark_done left its run.done) is not run
 * again. */
static bool src_reusable(size_t i)
{
    if (!sbx_kept)
        return false;
    char p[2048];
    snprintf(p, sizeof p, "%s/out/%s/run.done", sbx, docsrcs[i].key);
    return access(p, F_OK) == 0;
}

static pid_t src_start(size_t i)
{
    char dir[2048], log[2100], done[2100];
    snprintf(dir, sizeof dir, "%s/out/%s", sbx, docsrcs[i].key);
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(done, sizeof done, "%s/run.done", dir);
    make_dirs(dir);
    unlink(done);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0 || chdir(sbx))
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        char path[8192];
        snprintf(path, sizeof path, "%s/bin:%s", sbx, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        setenv("PATH", path, 1);
        execl("/bin/sh", "sh", "-c", docsrcs[i].cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Marks a source that ended with status 0 as reusable (ROCESIM_DOCNUMS_DIR). */
static void src_mark_done(size_t i)
{
    char done[2100];
    snprintf(done, sizeof done, "%s/out/%s/run.done", sbx, docsrcs[i].key);
    int fd = open(done, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0)
        close(fd);
}

/* Runs the sources marked in need, as many at a time as there are cores, the first of the table first. */
static void sources_run(const bool *need)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int par = cores > 0 ? (int)cores : 1, running = 0;
    pid_t pid[N_SRC];
    size_t next = 0;
    for (size_t i = 0; i < N_SRC; i++)
        pid[i] = -1;
    while (true) {
        while (running < par && next < N_SRC) {
            size_t i = next++;
            if (!need[i] || src_rc[i] != -2)
                continue;
            if (src_reusable(i)) {
                src_rc[i] = 0;
                continue;
            }
            pid[i] = src_start(i);
            running += pid[i] > 0;
        }
        if (running == 0)
            break;
        int st;
        pid_t done = wait(&st);
        if (done < 0)
            break;
        for (size_t i = 0; i < N_SRC; i++) {
            if (pid[i] == done) {
                src_rc[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
                if (src_rc[i] == 0)
                    src_mark_done(i);
                pid[i] = -1;
                running--;
            }
        }
    }
}

/* ---- the files of the runs, read once ---- */

struct table {
    int ncol;
    size_t nrow;
    char **col;   /* header names */
    char **cell;  /* nrow x ncol, "" where a row is short */
    char *buf;
};

struct cached {
    char *path;
    cJSON *json;
    struct table *csv;
    char *text;
};
static struct cached **cache; /* each entry allocated alone: a file read while another is in use must not move it */
static size_t ncache;

static void cache_clear(void)
{
    for (size_t i = 0; i < ncache; i++) {
        free(cache[i]->path);
        cJSON_Delete(cache[i]->json);
        if (cache[i]->csv) {
            free(cache[i]->csv->col);
            free(cache[i]->csv->cell);
            free(cache[i]->csv->buf);
            free(cache[i]->csv);
        }
        free(cache[i]->text);
        free(cache[i]);
    }
    free(cache);
    cache = NULL;
    ncache = 0;
}

/* Splits buf (modified) into a table: the first line is the header. */
static struct table *table_parse(char *buf)
{
    struct table *t = calloc(1, sizeof *t);
    t->buf = buf;
    size_t lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    char *line = buf, *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    t->ncol = 1;
    for (char *p = line; *p; p++)
        t->ncol += *p == ',';
    t->col = malloc(sizeof *t->col * (size_t)t->ncol);
    t->cell = malloc(sizeof *t->cell * (size_t)t->ncol * (lines + 1));
    char *p = line;
    for (int c = 0; c < t->ncol; c++) {
        t->col[c] = p;
        p += strcspn(p, ",");
        if (*p)
            *p++ = '\0';
    }
    for (line = nl ? nl + 1 : NULL; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char **row = t->cell + t->nrow * (size_t)t->ncol;
        p = line;
        for (int c = 0; c < t->ncol; c++) {
            row[c] = p;
            p += strcspn(p, ",");
            if (*p)
                *p++ = '\0';
        }
        t->nrow++;
    }
    return t;
}

/*
 * The CSV files NAME of every directory DIR matches (DIR with a '*'), one after the other under the first one's
 * header, with a column `dir` naming each row's directory (its last part); NULL when none matches.
 */
static char *glob_csv(const char *dir, const char *name)
{
    char pat[2048];
    snprintf(pat, sizeof pat, "%s/out/%s", sbx, dir);
    glob_t gl;
    if (glob(pat, GLOB_ONLYDIR, NULL, &gl) != 0)
        return NULL;
    char *all = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&all, &len);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", gl.gl_pathv[i], name);
        char *t = test_read_file(p, NULL);
        const char *base = strrchr(gl.gl_pathv[i], '/') + 1;
        for (char *line = t, *nl; line && *line; line = nl ? nl + 1 : NULL) {
            nl = strchr(line, '\n');
            size_t l = nl ? (size_t)(nl - line) : strlen(line);
            if (line == t && len == 0)
                fprintf(m, "%.*s,dir\n", (int)l, line);
            else if (line != t)
                fprintf(m, "%.*s,%s\n", (int)l, line, base);
        }
        free(t);
    }
    fclose(m);
    globfree(&gl);
    return all;
}

/* A plot's data (gnuplot's NAME.dat: numbers separated by blanks, blocks separated by blank lines, '#' comments) as
 * CSV: columns c1, c2, ... and `block`, from 0. */
static char *dat_csv(char *dat)
{
    char *csv = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&csv, &len);
    int block = 0, ncol = 0;
    bool blank = false;
    for (char *line = dat, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '#')
            continue;
        if (!line[strspn(line, " \t")]) {
            blank = true;
            continue;
        }
        block += blank && ncol > 0;
        blank = false;
        int n = 0;
        char row[4096] = "";
        for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t"), n++) {
            size_t l = strlen(row);
            snprintf(row + l, sizeof row - l, "%s,", tok);
        }
        if (!ncol) {
            ncol = n;
            for (int k = 1; k <= ncol; k++)
                fprintf(m, "c%d,", k);
            fprintf(m, "block\n");
        }
        fprintf(m, "%s%d\n", row, block);
    }
    fclose(m);
    free(dat);
    return csv;
}

/* The file DIR/NAME (below the sandbox's out/), read and parsed as its extension says; NULL with err. */
static struct cached *file_get(const char *dir, const char *name, char *err, size_t elen)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/out/%s/%s", sbx, dir, name);
    for (size_t i = 0; i < ncache; i++)
        if (strcmp(cache[i]->path, path) == 0)
            return cache[i];
    size_t nlen = strlen(name);
    bool csv = nlen > 4 && strcmp(name + nlen - 4, ".csv") == 0;
    char *text = strchr(dir, '*') && csv ? glob_csv(dir, name) : test_read_file(path, NULL);
    if (!text && csv) {
        /* NAME.dat, a plot's data, where there is no NAME.csv */
        char dat[2048];
        snprintf(dat, sizeof dat, "%.*s.dat", (int)(strlen(path) - 4), path);
        text = test_read_file(dat, NULL);
        text = text ? dat_csv(text) : NULL;
    }
    if (!text) {
        snprintf(err, elen, "no file out/%s/%s", dir, name);
        return NULL;
    }
    cache = realloc(cache, sizeof *cache * (ncache + 1));
    struct cached *c = cache[ncache++] = calloc(1, sizeof *c);
    c->path = strdup(path);
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".json") == 0) {
        c->json = cJSON_Parse(text);
        free(text);
        if (!c->json) {
            snprintf(err, elen, "out/%s/%s: invalid JSON", dir, name);
            return NULL;
        }
    } else if (len > 4 && strcmp(name + len - 4, ".csv") == 0) {
        c->csv = table_parse(text);
    } else {
        c->text = text;
    }
    return c;
}

/* ---- expressions ---- */

struct ectx {
    const char *s;
    size_t i;
    const char *defdir; /* the file's `#run` directory, or NULL */
    bool dry;           /* parse only: note the sources named in need, read nothing */
    bool need[N_SRC];
    const struct table *rowt; /* evaluating a column expression on row `row` of rowt */
    size_t row;
    bool empty;               /* a column of the row was empty or not a number */
    char err[512];
};

static double e_expr(struct ectx *c);
static double e_unary(struct ectx *c);
static bool evaluate(struct ectx *c, const char *expr, const char *defdir, bool dry, double *v);
static bool full_number(const char *s, double *v);
static int table_col(const struct table *t, const char *name);

static void e_fail(struct ectx *c, const char *fmt, const char *arg)
{
    if (!c->err[0])
        snprintf(c->err, sizeof c->err, fmt, arg);
}

static void e_ws(struct ectx *c)
{
    while (c->s[c->i] == ' ' || c->s[c->i] == '\n' || c->s[c->i] == '\t')
        c->i++;
}

/* A JSON node by path: keys (the longest that fits, since keys may hold dots), array indices, or a key's position
 * among its object's keys; NULL when there is none. */
static const cJSON *json_node(const cJSON *o, const char *path)
{
    while (*path) {
        const cJSON *next = NULL;
        size_t best = 0;
        if (cJSON_IsObject(o)) {
            for (const cJSON *k = o->child; k; k = k->next) {
                size_t l = strlen(k->string);
                if (l > best && strncmp(path, k->string, l) == 0 && (path[l] == '.' || path[l] == '\0')) {
                    best = l;
                    next = k;
                }
            }
        }
        size_t seg = strcspn(path, ".");
        if (!next && seg > 0 && strspn(path, "0123456789") == seg) {
            int n = atoi(path);
            next = cJSON_IsArray(o) || cJSON_IsObject(o) ? cJSON_GetArrayItem(o, n) : NULL;
            best = seg;
        }
        if (!next)
            return NULL;
        o = next;
        path += best + (path[best] == '.');
    }
    return o;
}

/* A JSON number by path; a string's leading number counts ("4.92KB" is 4.92), a boolean is 0 or 1; PATH.# is how
 * many members an array or object has. */
static bool json_at(const cJSON *o, const char *path, double *v)
{
    size_t len = strlen(path);
    if (len >= 1 && path[len - 1] == '#' && (len == 1 || path[len - 2] == '.')) {
        char head[512];
        snprintf(head, sizeof head, "%.*s", (int)(len >= 2 ? len - 2 : 0), path);
        o = json_node(o, head);
        if (!cJSON_IsArray(o) && !cJSON_IsObject(o))
            return false;
        *v = cJSON_GetArraySize(o);
        return true;
    }
    o = json_node(o, path);
    if (cJSON_IsNumber(o))
        *v = o->valuedouble;
    else if (cJSON_IsBool(o))
        *v = cJSON_IsTrue(o);
    else if (cJSON_IsString(o) && (isdigit((unsigned char)o->valuestring[0]) || o->valuestring[0] == '-'))
        *v = strtod(o->valuestring, NULL);
    else
        return false;
    return true;
}

/* A filter of an aggregate: COLUMN OP VALUE. */
struct filt {
    int col;
    char op[3];
    char val[256];
    double num;
    bool isnum;
};

/* A cell's number: the whole cell, or a quantity's number in the unit it is written in ("4.92KB", "774us"). */
static bool cell_number(const char *s, double *v)
{
    char *end;
    if (!*s)
        return false;
    *v = strtod(s, &end);
    if (end == s)
        return false;
    while (isalpha((unsigned char)*end))
        end++;
    return *end == '\0';
}

static bool full_number(const char *s, double *v)
{
    char *end;
    if (!*s)
        return false;
    *v = strtod(s, &end);
    return *end == '\0';
}

/* A column by name: exact, else the one column it is a prefix of. */
static int table_col(const struct table *t, const char *name)
{
    int found = -1, n = 0;
    for (int c = 0; c < t->ncol; c++) {
        if (strcmp(t->col[c], name) == 0)
            return c;
        if (strncmp(t->col[c], name, strlen(name)) == 0) {
            found = c;
            n++;
        }
    }
    return n == 1 ? found : -1;
}

static bool filt_keeps(const struct filt *f, const char *cell)
{
    double x;
    int cmp;
    if (f->isnum && cell_number(cell, &x))
        cmp = (x > f->num) - (x < f->num);
    else if (f->op[0] == '=' || f->op[0] == '!')
        cmp = fnmatch(f->val, cell, 0) == 0 ? 0 : 1;
    else
        return false;
    if (!strcmp(f->op, "="))
        return cmp == 0;
    if (!strcmp(f->op, "!="))
        return cmp != 0;
    if (!strcmp(f->op, "<"))
        return cmp < 0;
    if (!strcmp(f->op, "<="))
        return cmp <= 0;
    if (!strcmp(f->op, ">"))
        return cmp > 0;
    return cmp >= 0;
}

/* The arguments of an aggregate, split at its commas (quotes kept together): positional ones (columns, a
 * percentile, a threshold) and filters. */
struct aggargs {
    int npos, nfilt;
    char pos[8][256];
    struct filt filt[8];
};

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    size_t l = strlen(s);
    while (l && s[l - 1] == ' ')
        s[--l] = '\0';
    if (l >= 2 && s[0] == '"' && s[l - 1] == '"') {
        s[l - 1] = '\0';
        s++;
    }
    return s;
}

static bool parse_arg(struct ectx *c, const struct table *t, char *a, struct aggargs *g)
{
    size_t op = 0;
    for (bool q = false; a[op]; op++) {
        q ^= a[op] == '"';
        if (!q && strchr("=<>!", a[op]))
            break;
    }
    if (!a[op]) {
        if (g->npos == 8)
            return e_fail(c, "more than 8 arguments in %s", a), false;
        snprintf(g->pos[g->npos++], sizeof g->pos[0], "%s", trim(a));
        return true;
    }
    if (g->nfilt == 8)
        return e_fail(c, "more than 8 filters at %s", a), false;
    struct filt *f = &g->filt[g->nfilt++];
    size_t ol = strspn(a + op, "=<>!");
    snprintf(f->op, sizeof f->op, "%.*s", (int)(ol < 2 ? ol : 2), a + op);
    snprintf(f->val, sizeof f->val, "%s", trim(a + op + ol));
    a[op] = '\0';
    const char *name = trim(a);
    f->col = t ? table_col(t, name) : 0;
    if (f->col < 0)
        return e_fail(c, "no column %s", name), false;
    if (strcmp(f->op, "=") && strcmp(f->op, "!=") && strcmp(f->op, "<") && strcmp(f->op, "<=") &&
        strcmp(f->op, ">") && strcmp(f->op, ">="))
        return e_fail(c, "unknown comparison %s", f->op), false;
    f->isnum = full_number(f->val, &f->num);
    if (!f->isnum && (strchr(f->val, '(') || f->op[0] == '<' || f->op[0] == '>')) {
        /* a value computed from the runs: time_ns>flows.max(finish_ns, id=store.0), time_ns<=summary.sim_end_ns */
        struct ectx sub;
        memset(&sub, 0, sizeof sub);
        memcpy(sub.need, c->need, sizeof sub.need);
        if (!evaluate(&sub, f->val, c->defdir, c->dry, &f->num))
            return e_fail(c, "%s", sub.err), false;
        memcpy(c->need, sub.need, sizeof c->need);
        f->isnum = true;
    }
    return true;
}

/* Parses "(args)" at c->i into g (columns resolved against t; t NULL: not resolved). */
static bool parse_aggargs(struct ectx *c, const struct table *t, struct aggargs *g)
{
    memset(g, 0, sizeof *g);
    if (c->s[c->i] != '(')
        return e_fail(c, "expected ( at %s", c->s + c->i), false;
    size_t start = ++c->i;
    bool q = false;
    for (int depth = 0; c->s[c->i] && (q || depth > 0 || c->s[c->i] != ')'); c->i++) {
        q ^= c->s[c->i] == '"';
        depth += !q && c->s[c->i] == '(';
        depth -= !q && c->s[c->i] == ')';
    }
    if (!c->s[c->i])
        return e_fail(c, "no ) after %s", c->s + start), false;
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(c->i - start), c->s + start);
    c->i++;
    char *a = buf;
    while (*a || a == buf) {
        char *end = a;
        int depth = 0;
        for (q = false; *end && (q || depth > 0 || *end != ','); end++) {
            q ^= *end == '"';
            depth += !q && *end == '(';
            depth -= !q && *end == ')';
        }
        bool last = *end == '\0';
        *end = '\0';
        if (strspn(a, " ") < strlen(a) && !parse_arg(c, t, a, g))
            return false;
        if (last)
            break;
        a = end + 1;
    }
    return true;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The column of positional argument k, or -1 (with the error). */
static int pos_col(struct ectx *c, const struct table *t, const struct aggargs *g, int k)
{
    if (k >= g->npos)
        return e_fail(c, "%s", "too few arguments"), -1;
    int col = table_col(t, g->pos[k]);
    if (col < 0)
        e_fail(c, "no column %s", g->pos[k]);
    return col;
}

/* The value of `what` (a column, or an expression of the row's columns) on row r; false when a cell is empty or
 * not a number. */
static bool row_value(struct ectx *c, const struct table *t, size_t r, const char *what, double *v)
{
    int col = table_col(t, what);
    if (col >= 0)
        return cell_number(t->cell[r * (size_t)t->ncol + (size_t)col], v);
    struct ectx rc;
    memset(&rc, 0, sizeof rc);
    rc.s = what;
    rc.rowt = t;
    rc.row = r;
    *v = e_expr(&rc);
    e_ws(&rc);
    if (!rc.err[0] && rc.s[rc.i])
        e_fail(&rc, "unexpected %s", rc.s + rc.i);
    if (rc.err[0])
        e_fail(c, "%s", rc.err);
    return !rc.err[0] && !rc.empty;
}

/* An aggregate of one column, or an expression of columns (the first positional argument), over rows[0..n). */
static double aggregate_column(struct ectx *c, const struct table *t, const char *agg, const struct aggargs *g,
                               const size_t *rows, size_t n)
{
    if (g->npos < 1)
        return e_fail(c, "%s(): which column?", agg), NAN;
    double *x = malloc(sizeof *x * (n + 1));
    size_t *at = malloc(sizeof *at * (n + 1)), m = 0;
    for (size_t i = 0; i < n && !c->err[0]; i++) {
        if (row_value(c, t, rows[i], g->pos[0], &x[m]))
            at[m++] = rows[i];
    }
    double v = NAN, p = 0;
    if (!strcmp(agg, "value")) {
        if (n != 1 || m != 1)
            e_fail(c, "value(): %s rows (or cells) match, not one", n == 0 ? "no" : "several");
        else
            v = x[0];
    } else if (m == 0) {
        e_fail(c, "%s(): no row with a number matches", agg);
    } else if (!strcmp(agg, "sum") || !strcmp(agg, "mean")) {
        v = 0;
        for (size_t i = 0; i < m; i++)
            v += x[i];
        if (!strcmp(agg, "mean"))
            v /= (double)m;
    } else if (!strcmp(agg, "min") || !strcmp(agg, "max") || !strcmp(agg, "at_min") || !strcmp(agg, "at_max")) {
        bool hi = strstr(agg, "max") != NULL;
        size_t b = 0;
        for (size_t i = 1; i < m; i++)
            if (hi ? x[i] > x[b] : x[i] < x[b])
                b = i;
        v = x[b];
        if (agg[0] == 'a' && g->npos < 2)
            e_fail(c, "%s(COLUMN, RESULT)", agg);
        else if (agg[0] == 'a')
            v = row_value(c, t, at[b], g->pos[1], &p) ? p : NAN;
    } else if (!strcmp(agg, "spread")) {
        /* max - min: within a group, how far apart its rows are (two flows' rates at a time) */
        double lo = x[0], hi = x[0];
        for (size_t i = 1; i < m; i++) {
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        v = hi - lo;
    } else if (!strcmp(agg, "count")) {
        v = (double)m; /* rows with a number in the column: for groups */
    } else if (!strcmp(agg, "first") || !strcmp(agg, "last")) {
        v = agg[0] == 'f' ? x[0] : x[m - 1];
    } else if (!strcmp(agg, "pct") || (agg[0] == 'p' && isdigit((unsigned char)agg[1]))) {
        /* nearest rank, as summary.json's percentiles; p99(COLUMN) is pct(COLUMN, 99) */
        if (agg[1] != 'c')
            p = atof(agg + 1);
        else if (g->npos < 2 || !full_number(g->pos[1], &p))
            p = -1;
        if (p <= 0 || p > 100)
            e_fail(c, "%s", "pct(COLUMN, P): P in (0, 100]");
        else {
            qsort(x, m, sizeof *x, cmp_dbl);
            v = x[(size_t)ceil(p / 100.0 * (double)m) - 1];
        }
    } else if (!strcmp(agg, "crossings")) {
        /* how often the series rises to THRESHOLD or above from below it (the first row counts if above) */
        if (g->npos < 2 || !full_number(g->pos[1], &p))
            e_fail(c, "%s", "crossings(COLUMN, THRESHOLD)");
        v = 0;
        for (size_t i = 0; i < m; i++)
            v += x[i] >= p && (i == 0 || x[i - 1] < p);
    } else if (!strcmp(agg, "peakmin") || !strcmp(agg, "peakmax")) {
        /* the lowest or highest of the peaks the series reaches while at THRESHOLD or above (a queue's spikes) */
        if (g->npos < 2 || !full_number(g->pos[1], &p))
            e_fail(c, "%s(COLUMN, THRESHOLD)", agg);
        double peak = NAN;
        for (size_t i = 0; i <= m; i++) {
            if (i < m && x[i] >= p) {
                peak = isnan(peak) || x[i] > peak ? x[i] : peak;
            } else if (!isnan(peak)) {
                v = isnan(v) || (agg[5] == 'i' ? peak < v : peak > v) ? peak : v;
                peak = NAN;
            }
        }
        if (isnan(v))
            e_fail(c, "%s(): the series never reaches its threshold", agg);
    } else {
        e_fail(c, "unknown aggregate %s", agg);
    }
    free(x);
    free(at);
    return v;
}

/*
 * The index in keys[0..*nk) of row's key, the values of the positional columns from the k0-th on together; a key
 * not seen yet is added (keys has room for one per row; the caller frees them).
 */
static size_t key_index(struct ectx *c, const struct table *t, const struct aggargs *g, int k0, size_t row,
                        char **keys, size_t *nk)
{
    char key[1024] = "";
    for (int k = k0; k < g->npos; k++) {
        int kc = pos_col(c, t, g, k);
        if (kc < 0)
            break;
        size_t l = strlen(key);
        snprintf(key + l, sizeof key - l, "%s\x01", t->cell[row * (size_t)t->ncol + (size_t)kc]);
    }
    size_t j = 0;
    while (j < *nk && strcmp(keys[j], key))
        j++;
    if (j == *nk)
        keys[(*nk)++] = strdup(key);
    return j;
}

/* holding(COLUMN, VALUE, KEY...): how many distinct keys (the KEY columns together) have VALUE in COLUMN on their
 * last row: the ports still paused at a time, say (pfc.holding(event, pause, node, port, priority, time_ns<=T)). */
static double aggregate_holding(struct ectx *c, const struct table *t, const struct aggargs *g, const size_t *rows,
                                size_t n)
{
    int col = pos_col(c, t, g, 0);
    if (col < 0 || g->npos < 3)
        return e_fail(c, "%s", "holding(COLUMN, VALUE, KEY...)"), NAN;
    char **keys = malloc(sizeof *keys * (n + 1));
    bool *hold = malloc(sizeof *hold * (n + 1));
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        hold[key_index(c, t, g, 2, rows[i], keys, &nk)] =
            strcmp(t->cell[rows[i] * (size_t)t->ncol + (size_t)col], g->pos[1]) == 0;
    double v = 0;
    for (size_t j = 0; j < nk; j++) {
        v += hold[j];
        free(keys[j]);
    }
    free(keys);
    free(hold);
    return v;
}

/*
 * Per value of a KEY column (a flow, a candidate): groupmin(AGG, COLUMN, KEY[, N]) and groupmax are the smallest and
 * largest AGG of COLUMN over the groups of at least N rows (rates.groupmin(mean, rate_gbps, flow): the mean rate of
 * the slowest flow), groupmean their mean; groupargmin and groupargmax give that group's KEY instead; groups(KEY[,
 * N[, M]]) counts the groups of N to M rows.  AGG is one of the aggregates of a column (mean, max, p99, ...).
 */
static double aggregate_groups(struct ectx *c, const struct table *t, const char *agg, const struct aggargs *g,
                               const size_t *rows, size_t n)
{
    bool count = !strcmp(agg, "groups"), arg = strstr(agg, "arg") != NULL, lo = strstr(agg, "min") != NULL;
    bool mean = !strcmp(agg, "groupmean");
    double sum = 0;
    int kpos = count ? 0 : 2, key = g->npos > kpos ? table_col(t, g->pos[kpos]) : -1;
    double nmin = 1, nmax = INFINITY;
    if (key < 0 || (g->npos > kpos + 1 && !full_number(g->pos[kpos + 1], &nmin)) ||
        (count && g->npos > 2 && !full_number(g->pos[2], &nmax)))
        return e_fail(c, "%s", "groupmin(AGG, COLUMN, KEY[, N]), groupargmin(...), groups(KEY[, N[, M]])"), NAN;
    struct aggargs sub = *g;
    snprintf(sub.pos[0], sizeof sub.pos[0], "%s", g->pos[1]);
    sub.npos = 1;
    size_t *in = malloc(sizeof *in * (n + 1));
    bool *done = calloc(n + 1, sizeof *done);
    double best = NAN, bestkey = NAN, groups = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        const char *k = t->cell[rows[i] * (size_t)t->ncol + (size_t)key];
        size_t m = 0;
        for (size_t j = i; j < n; j++) {
            if (!done[j] && !strcmp(t->cell[rows[j] * (size_t)t->ncol + (size_t)key], k)) {
                done[j] = true;
                in[m++] = rows[j];
            }
        }
        if ((double)m < nmin || (double)m > nmax)
            continue;
        groups++;
        if (count)
            continue;
        double v = aggregate_column(c, t, g->pos[0], &sub, in, m);
        sum += v;
        if (isnan(best) || (lo ? v < best : v > best)) {
            best = v;
            bestkey = strtod(k, NULL);
        }
    }
    free(in);
    free(done);
    return count ? groups : mean ? sum / groups : arg ? bestkey : best;
}

/* Aggregate `agg` of table t over the rows the filters keep. */
static double aggregate(struct ectx *c, const struct table *t, const char *agg, const struct aggargs *g)
{
    size_t *rows = malloc(sizeof *rows * (t->nrow + 1)), n = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        bool keep = true;
        for (int k = 0; k < g->nfilt && keep; k++)
            keep = filt_keeps(&g->filt[k], t->cell[r * (size_t)t->ncol + (size_t)g->filt[k].col]);
        if (keep)
            rows[n++] = r;
    }
    double v = NAN;
    if (!strcmp(agg, "count")) {
        v = (double)n;
    } else if (!strcmp(agg, "distinct")) {
        /* distinct values of the positional columns together */
        char **keys = malloc(sizeof *keys * (n + 1));
        size_t nk = 0;
        for (size_t i = 0; i < n; i++)
            key_index(c, t, g, 0, rows[i], keys, &nk);
        v = (double)nk;
        for (size_t j = 0; j < nk; j++)
            free(keys[j]);
        free(keys);
    } else if (!strncmp(agg, "group", 5)) {
        v = aggregate_groups(c, t, agg, g, rows, n);
    } else if (!strcmp(agg, "holding")) {
        v = aggregate_holding(c, t, g, rows, n);
    } else {
        v = aggregate_column(c, t, agg, g, rows, n);
    }
    free(rows);
    return v;
}

/* The first number a regular expression's first group captures in a text file of dir. */
static double text_match(struct ectx *c, const char *dir)
{
    struct aggargs g;
    if (!parse_aggargs(c, NULL, &g))
        return NAN;
    double nth = 1;
    if (g.npos < 2 || g.npos > 3 || (g.npos == 3 && (!full_number(g.pos[2], &nth) || nth < 1)))
        return e_fail(c, "%s", "match(FILE, REGEX[, N]): the Nth match, from 1"), NAN;
    if (c->dry)
        return 1;
    struct cached *f = file_get(dir, g.pos[0], c->err, sizeof c->err);
    if (!f)
        return NAN;
    regex_t re;
    regmatch_t m[2];
    if (regcomp(&re, g.pos[1], REG_EXTENDED | REG_NEWLINE))
        return e_fail(c, "bad regular expression %s", g.pos[1]), NAN;
    double v = NAN;
    const char *at = f->text;
    for (int k = 0; at && k < (int)nth; k++) {
        if (regexec(&re, at, 2, m, k ? REG_NOTBOL : 0) || m[1].rm_so < 0) {
            at = NULL;
            break;
        }
        if (k + 1 < (int)nth)
            at += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
    }
    if (!at)
        e_fail(c, "no such match for %s", g.pos[1]);
    else
        v = strtod(at + m[1].rm_so, NULL);
    regfree(&re);
    return v;
}

/* FILE.path or FILE.AGG(...) in directory dir (below out/). */
static double e_file(struct ectx *c, const char *dir, const char *file)
{
    size_t start = c->i;
    while (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_')
        c->i++;
    if (c->s[c->i] == '(') {
        char agg[32], name[300];
        snprintf(agg, sizeof agg, "%.*s", (int)(c->i - start), c->s + start);
        snprintf(name, sizeof name, "%s.csv", file);
        struct cached *f = c->dry ? NULL : file_get(dir, name, c->err, sizeof c->err);
        struct aggargs g;
        const char *outer = c->defdir;
        c->defdir = dir; /* for the references in filter values */
        bool ok = (c->dry || f) && parse_aggargs(c, f ? f->csv : NULL, &g);
        c->defdir = outer;
        if (!ok)
            return NAN;
        return c->dry ? 1 : aggregate(c, f->csv, agg, &g);
    }
    c->i = start;
    while (c->s[c->i] && !strchr(" \t\n+-*/(),", c->s[c->i]))
        c->i++;
    char path[512], name[300];
    snprintf(path, sizeof path, "%.*s", (int)(c->i - start), c->s + start);
    if (c->dry)
        return 1;
    snprintf(name, sizeof name, "%s.json", file);
    struct cached *f = file_get(dir, name, c->err, sizeof c->err);
    double v = NAN;
    if (f && !json_at(f->json, path, &v))
        e_fail(c, "no number at %s", path);
    return v;
}

/* min(...), max(...), abs(x), floor(x), ln(x) over expressions (ln: a time constant from two points of a decay). */
static double e_func(struct ectx *c, const char *fn)
{
    double v = NAN;
    int n = 0;
    c->i++; /* ( */
    do {
        e_ws(c);
        double x = e_expr(c);
        e_ws(c);
        if (n++ == 0)
            v = x;
        else if (!strcmp(fn, "min"))
            v = fmin(v, x);
        else if (!strcmp(fn, "max"))
            v = fmax(v, x);
    } while (c->s[c->i] == ',' && c->i++);
    if (c->s[c->i] != ')')
        return e_fail(c, "no ) after %s(", fn), NAN;
    c->i++;
    if (!strcmp(fn, "abs"))
        v = fabs(v);
    else if (!strcmp(fn, "floor"))
        v = floor(v);
    else if (!strcmp(fn, "ln"))
        v = log(v);
    else if (strcmp(fn, "min") && strcmp(fn, "max"))
        e_fail(c, "unknown function %s", fn);
    return v;
}

/* [DIR:]FILE.path, [DIR:]FILE.AGG(...), [DIR:]match(FILE, RE) or FUNC(...). */
/*
 * A directory named in a reference, with each {DIR:FILE.path} in it replaced by that JSON string (a run's id:
 * labs/09/tune/runs/{labs/09/tune:best.id}-s2), into out; false with the error.
 */
static bool expand_dir(struct ectx *c, const char *raw, size_t len, char *out, size_t olen)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < olen;) {
        if (raw[i] != '{') {
            out[o++] = raw[i++];
            continue;
        }
        const char *close = memchr(raw + i, '}', len - i), *colon = memchr(raw + i, ':', len - i);
        if (!close || !colon || colon > close)
            return e_fail(c, "%s", "expected {DIR:FILE.path} in a directory"), false;
        char dir[256], file[300];
        snprintf(dir, sizeof dir, "%.*s", (int)(colon - raw - i - 1), raw + i + 1);
        const char *dot = memchr(colon, '.', (size_t)(close - colon));
        if (!dot)
            return e_fail(c, "%s", "expected {DIR:FILE.path} in a directory"), false;
        snprintf(file, sizeof file, "%.*s.json", (int)(dot - colon - 1), colon + 1);
        char path[256];
        snprintf(path, sizeof path, "%.*s", (int)(close - dot - 1), dot + 1);
        int k = src_of(dir, strlen(dir));
        if (k < 0)
            return e_fail(c, "no source makes out/%s", dir), false;
        c->need[k] = true;
        const char *val = "*";
        if (!c->dry) {
            struct cached *f = file_get(dir, file, c->err, sizeof c->err);
            const cJSON *n = f ? json_node(f->json, path) : NULL;
            if (!cJSON_IsString(n))
                return e_fail(c, "no string at %s", path), false;
            val = n->valuestring;
        }
        o += (size_t)snprintf(out + o, olen - o, "%s", val);
        i = (size_t)(close - raw) + 1;
    }
    out[o < olen ? o : olen - 1] = '\0';
    return true;
}

static double e_ref(struct ectx *c)
{
    size_t start = c->i;
    for (int depth = 0; isalnum((unsigned char)c->s[c->i]) || (c->s[c->i] && strchr("_/-*{", c->s[c->i])) ||
                        (depth && c->s[c->i] && c->s[c->i] != '}') || (depth && c->s[c->i] == '}');) {
        depth += c->s[c->i] == '{';
        depth -= c->s[c->i] == '}';
        c->i++;
    }
    char dir[256] = "";
    if (c->s[c->i] == ':' && c->s[c->i + 1] == '(') {
        /* DIR:(expression): DIR for the references in it that name none */
        char sub[256];
        snprintf(sub, sizeof sub, "%.*s", (int)(c->i - start), c->s + start);
        const char *outer = c->defdir;
        c->defdir = sub;
        c->i++;
        double v = e_unary(c);
        c->defdir = outer;
        return v;
    }
    if (c->s[c->i] == ':') {
        if (!expand_dir(c, c->s + start, c->i - start, dir, sizeof dir))
            return NAN;
        start = ++c->i;
        while (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_')
            c->i++;
    } else {
        c->i = start;
        while (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_')
            c->i++;
        if (c->s[c->i] != '(') {
            if (!c->defdir)
                return e_fail(c, "%s: no DIR: and no <!--#run DIR--> before it", c->s + start), NAN;
            snprintf(dir, sizeof dir, "%s", c->defdir);
        }
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(c->i - start), c->s + start);
    if (!name[0] && c->s[c->i] == '"' && strchr(c->s + c->i + 1, '"')) {
        /* a file name with dots: "marginal_host.dcqcn.g".max(c2) */
        const char *q = strchr(c->s + c->i + 1, '"');
        snprintf(name, sizeof name, "%.*s", (int)(q - c->s - c->i - 1), c->s + c->i + 1);
        c->i = (size_t)(q - c->s) + 1;
        if (!dir[0] && c->defdir)
            snprintf(dir, sizeof dir, "%s", c->defdir);
    }
    if (!name[0])
        return e_fail(c, "expected a number, a file or a function at %s", c->s + start), NAN;
    if (c->s[c->i] == '(' && !dir[0] && strcmp(name, "match") == 0 && c->defdir)
        snprintf(dir, sizeof dir, "%s", c->defdir);
    if (dir[0]) {
        int k = src_of(dir, strlen(dir));
        if (k < 0)
            return e_fail(c, "no source makes out/%s (docsrcs in tests/test_docnums.c)", dir), NAN;
        c->need[k] = true;
    }
    if (c->s[c->i] == '(' && !dir[0])
        return e_func(c, name);
    if (c->s[c->i] == '(' && !strcmp(name, "match"))
        return text_match(c, dir);
    if (c->s[c->i] != '.')
        return e_fail(c, "expected FILE.path or FILE.AGG(...) at %s", c->s + start), NAN;
    c->i++;
    return e_file(c, dir, name);
}

/* A column of the current row, by name ("quoted" when it holds other characters than letters, digits, _ and .). */
static double e_column(struct ectx *c)
{
    char name[256];
    size_t start = c->i, len;
    if (c->s[c->i] == '"') {
        const char *q = strchr(c->s + c->i + 1, '"');
        if (!q)
            return e_fail(c, "no closing quote at %s", c->s + start), NAN;
        len = (size_t)(q - (c->s + c->i + 1));
        snprintf(name, sizeof name, "%.*s", (int)len, c->s + c->i + 1);
        c->i += len + 2;
    } else {
        while (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_' || c->s[c->i] == '.')
            c->i++;
        snprintf(name, sizeof name, "%.*s", (int)(c->i - start), c->s + start);
    }
    int col = table_col(c->rowt, name);
    if (col < 0)
        return e_fail(c, "no column %s", name), NAN;
    double v;
    if (!cell_number(c->rowt->cell[c->row * (size_t)c->rowt->ncol + (size_t)col], &v)) {
        c->empty = true;
        return NAN;
    }
    return v;
}

static double e_unary(struct ectx *c)
{
    e_ws(c);
    if (c->s[c->i] == '-') {
        c->i++;
        return -e_unary(c);
    }
    if (c->s[c->i] == '(') {
        c->i++;
        double v = e_expr(c);
        e_ws(c);
        if (c->s[c->i] != ')')
            return e_fail(c, "expected ) at %s", c->s + c->i), NAN;
        c->i++;
        return v;
    }
    if (isdigit((unsigned char)c->s[c->i]) || c->s[c->i] == '.') {
        char *end;
        double v = strtod(c->s + c->i, &end);
        c->i = (size_t)(end - c->s);
        return v;
    }
    if (c->rowt)
        return e_column(c);
    return e_ref(c);
}

static double e_term(struct ectx *c)
{
    double v = e_unary(c);
    for (e_ws(c); c->s[c->i] == '*' || c->s[c->i] == '/'; e_ws(c)) {
        char op = c->s[c->i++];
        double w = e_unary(c);
        v = op == '*' ? v * w : v / w;
    }
    return v;
}

static double e_expr(struct ectx *c)
{
    double v = e_term(c);
    for (e_ws(c); c->s[c->i] == '+' || c->s[c->i] == '-'; e_ws(c)) {
        char op = c->s[c->i++];
        double w = e_term(c);
        v = op == '+' ? v + w : v - w;
    }
    return v;
}

/* Evaluates expr (with the file's #run directory); false with c->err. */
static bool evaluate(struct ectx *c, const char *expr, const char *defdir, bool dry, double *v)
{
    bool need[N_SRC];
    memcpy(need, c->need, sizeof need);
    memset(c, 0, sizeof *c);
    memcpy(c->need, need, sizeof need);
    c->s = expr;
    c->defdir = defdir;
    c->dry = dry;
    *v = e_expr(c);
    e_ws(c);
    if (!c->err[0] && c->s[c->i])
        e_fail(c, "unexpected %s", c->s + c->i);
    if (!c->err[0] && !dry && !isfinite(*v))
        e_fail(c, "%s", "the value is not a finite number");
    return !c->err[0];
}

/* The directory and the JSON file and path of a text tag's [DIR:]FILE.path; false with the error. */
static bool text_ref(struct ectx *c, const char *ref, const char *defdir, char *dir, char *file, char *path)
{
    const char *colon = strchr(ref, ':'), *f = colon ? colon + 1 : ref, *dot = strchr(f, '.');
    if (colon)
        snprintf(dir, 256, "%.*s", (int)(colon - ref), ref);
    else if (defdir)
        snprintf(dir, 256, "%s", defdir);
    else
        return e_fail(c, "%s: no DIR: and no <!--#run DIR--> before it", ref), false;
    if (!dot)
        return e_fail(c, "%s: expected [DIR:]FILE.path", ref), false;
    snprintf(file, 300, "%.*s.json", (int)(dot - f), f);
    snprintf(path, 512, "%s", dot + 1);
    for (size_t l = strlen(path); l && path[l - 1] == ' ';)
        path[--l] = '\0';
    int k = src_of(dir, strlen(dir));
    if (k < 0)
        return e_fail(c, "no source makes out/%s (docsrcs in tests/test_docnums.c)", dir), false;
    c->need[k] = true;
    return true;
}

static bool text_source(struct ectx *c, const char *ref, const char *defdir)
{
    char dir[256], file[300], path[512];
    return text_ref(c, ref, defdir, dir, file, path);
}

/* A text tag's JSON string, left in c->err (the caller's buffer for it); false with the error there. */
static bool evaluate_text(struct ectx *c, const char *ref, const char *defdir)
{
    char dir[256], file[300], path[512];
    memset(c->err, 0, sizeof c->err);
    if (!text_ref(c, ref, defdir, dir, file, path))
        return false;
    struct cached *f = file_get(dir, file, c->err, sizeof c->err);
    const cJSON *n = f ? json_node(f->json, path) : NULL;
    if (!cJSON_IsString(n)) {
        if (f)
            snprintf(c->err, sizeof c->err, "no string at %s", path);
        return false;
    }
    snprintf(c->err, sizeof c->err, "%s", n->valuestring);
    return true;
}

/* ---- the docs: tags, their literals, blocks ---- */

struct qtag {
    int line;
    size_t lit, litlen; /* the literal number before the tag */
    size_t end;         /* just after the tag */
    char *expr;         /* allocated: a tag may combine many runs' numbers */
    char defdir[256];   /* the #run directory in force */
    bool text;          /* <!--=text DIR:FILE.path-->: the code span before it is that JSON string */
};

struct qblock {
    int line;        /* of the marker */
    bool transcript; /* else an excerpt of source `key`'s output */
    int indent;      /* of the fences, taken off each line of the body */
    char key[256];
    size_t body, bodylen; /* the lines between the fences */
};

struct qdoc {
    char path[512];
    char *text;
    int ntags, nblocks;
    struct qtag *tags;
    struct qblock *blocks;
};

struct qdocs {
    int n;
    struct qdoc *d;
    int nerr;
    char errs[8192]; /* what is wrong with the tags themselves */
};

static void qerr(struct qdocs *q, const char *path, int line, const char *fmt, const char *arg)
{
    size_t l = strlen(q->errs);
    if (l + 300 < sizeof q->errs) {
        snprintf(q->errs + l, sizeof q->errs - l, "  %s:%d: ", path, line);
        l = strlen(q->errs);
        snprintf(q->errs + l, sizeof q->errs - l, fmt, arg);
        l = strlen(q->errs);
        snprintf(q->errs + l, sizeof q->errs - l, "\n");
    }
    q->nerr++;
}

static bool is_minus(const char *text, size_t at, size_t *len)
{
    if (at >= 1 && text[at - 1] == '-') {
        *len = 1;
        return at < 2 || !isalnum((unsigned char)text[at - 2]);
    }
    if (at >= 3 && strncmp(text + at - 3, "\xe2\x88\x92", 3) == 0) { /* U+2212 */
        *len = 3;
        return true;
    }
    return false;
}

/* The literal number that ends at most 16 bytes (of unit, space, backtick, percent: no digit) before the tag at
 * `tag`; false when there is none. */
static bool find_literal(const char *text, size_t tag, size_t *lit, size_t *len)
{
    size_t e = tag, gap = 0;
    while (e > 0 && gap < 16 && !isdigit((unsigned char)text[e - 1]) && text[e - 1] != '\n' && text[e - 1] != '>') {
        e--;
        gap++;
    }
    if (e == 0 || !isdigit((unsigned char)text[e - 1]))
        return false;
    size_t s = e;
    while (s > 0) {
        char ch = text[s - 1];
        if (isdigit((unsigned char)ch) ||
            ((ch == '.' || ch == ',') && s >= 2 && isdigit((unsigned char)text[s - 2]) && isdigit((unsigned char)text[s])))
            s--;
        else
            break;
    }
    size_t ml;
    if (is_minus(text, s, &ml))
        s -= ml;
    *lit = s;
    *len = e - s;
    return true;
}

static int line_of(const char *text, size_t off)
{
    int n = 1;
    for (size_t i = 0; i < off; i++)
        n += text[i] == '\n';
    return n;
}

/* A marker line (<!--#transcript--> or <!--#output KEY-->) must be followed by a fence: the block is its body. */
static void parse_block(struct qdocs *q, struct qdoc *d, size_t at, const char *what)
{
    int line = line_of(d->text, at);
    const char *nl = strchr(d->text + at, '\n');
    size_t indent = nl ? strspn(nl + 1, " ") : 0; /* a block in a list item is indented */
    if (!nl || strncmp(nl + 1 + indent, "```", 3) != 0)
        return qerr(q, d->path, line, "%s: expected a fenced block on the next line", what);
    const char *body = strchr(nl + 1, '\n'), *close = NULL;
    for (const char *p = body; p && !close; p = strchr(p + 1, '\n'))
        if (strspn(p + 1, " ") == indent && strncmp(p + 1 + indent, "```", 3) == 0)
            close = p;
    if (!close)
        return qerr(q, d->path, line, "%s: the fenced block does not end", what);
    d->blocks = realloc(d->blocks, sizeof *d->blocks * (size_t)(d->nblocks + 1));
    struct qblock *b = &d->blocks[d->nblocks++];
    memset(b, 0, sizeof *b);
    b->line = line;
    b->transcript = strncmp(what, "transcript", 10) == 0;
    if (!b->transcript) {
        snprintf(b->key, sizeof b->key, "%s", what + 7);
        if (src_of(b->key, strlen(b->key)) < 0)
            qerr(q, d->path, line, "no source %s (docsrcs in tests/test_docnums.c)", b->key);
    }
    b->body = (size_t)(body + 1 - d->text);
    b->bodylen = (size_t)(close + 1 - (body + 1));
    b->indent = (int)indent;
}

/* One comment <!--...--> at `at` (outside fenced blocks). */
static void parse_comment(struct qdocs *q, struct qdoc *d, size_t at, size_t end, char *defdir)
{
    const char *c = d->text + at + 4;
    size_t clen = end - at - 7;
    char body[16384];
    int line = line_of(d->text, at);
    if (clen >= sizeof body)
        return qerr(q, d->path, line, "a comment of %s characters or more", "16384");
    snprintf(body, sizeof body, "%.*s", (int)clen, c);
    if (body[0] == '#') {
        if (strncmp(body, "#run ", 5) == 0)
            snprintf(defdir, 256, "%s", trim(body + 5));
        else if (strcmp(body, "#transcript") == 0 || strncmp(body, "#output ", 8) == 0)
            parse_block(q, d, at, body + 1);
        else if (strcmp(body, "#commands") == 0)
            ; /* the block a source runs (tests/docsrc/), found there by this line */
        else
            qerr(q, d->path, line, "unknown marker <!--%s-->", body);
        return;
    }
    if (body[0] != '=')
        return; /* an ordinary comment */
    struct qtag t = {.line = line, .end = end};
    t.text = strncmp(body, "=text ", 6) == 0;
    t.expr = strdup(body + (t.text ? 6 : 1));
    snprintf(t.defdir, sizeof t.defdir, "%s", defdir);
    if (t.text) {
        const char *open = at > 1 && d->text[at - 1] == '`' ? memrchr(d->text, '`', at - 1) : NULL;
        if (!open || memchr(open, '\n', at - (size_t)(open - d->text)))
            return free(t.expr), qerr(q, d->path, line, "no `code span` before <!--%s-->", body);
        t.lit = (size_t)(open + 1 - d->text);
        t.litlen = at - 1 - t.lit;
    } else if (!find_literal(d->text, at, &t.lit, &t.litlen)) {
        return free(t.expr), qerr(q, d->path, line, "no number before <!--%s-->", body);
    }
    d->tags = realloc(d->tags, sizeof *d->tags * (size_t)(d->ntags + 1));
    d->tags[d->ntags++] = t;
}

/* Whether text[at] is inside an inline code span of its paragraph's line: a run of N backticks opens one that the
 * next run of exactly N closes.  A comment there is an example, not a tag. */
static bool in_code_span(const char *text, size_t at)
{
    size_t i = at;
    while (i > 0 && text[i - 1] != '\n')
        i--;
    size_t open = 0; /* the length of the open span's run, 0: none */
    while (i < at) {
        if (text[i] != '`') {
            i++;
            continue;
        }
        size_t n = strspn(text + i, "`");
        if (!open)
            open = n;
        else if (n == open)
            open = 0;
        i += n;
    }
    return open != 0;
}

static void parse_doc(struct qdocs *q, struct qdoc *d)
{
    char defdir[256] = "";
    bool fenced = false;
    for (size_t i = 0; d->text[i];) {
        if ((i == 0 || d->text[i - 1] == '\n') && strncmp(d->text + i + strspn(d->text + i, " "), "```", 3) == 0)
            fenced = !fenced;
        if (strncmp(d->text + i, "<!--", 4) == 0) {
            const char *e = strstr(d->text + i + 4, "-->");
            if (!e)
                return qerr(q, d->path, line_of(d->text, i), "%s", "a comment that does not end");
            size_t end = (size_t)(e + 3 - d->text);
            if (!fenced && !in_code_span(d->text, i))
                parse_comment(q, d, i, end, defdir);
            else if (fenced && (d->text[i + 4] == '=' || d->text[i + 4] == '#'))
                qerr(q, d->path, line_of(d->text, i), "%s", "a tag inside a fenced block (use <!--#output-->)");
            i = end;
            continue;
        }
        i++;
    }
}

static void doc_load(struct qdocs *q, const char *path)
{
    char *text = test_read_file(path, NULL);
    if (!text)
        return;
    q->d = realloc(q->d, sizeof *q->d * (size_t)(q->n + 1));
    struct qdoc *d = &q->d[q->n++];
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    d->text = text;
    parse_doc(q, d);
}

static int strcmp_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .md file below dir. */
static void docs_below(struct qdocs *q, const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    char *names[512];
    int n = 0;
    for (struct dirent *e; (e = readdir(dp)) && n < 512;)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, strcmp_ptr);
    for (int i = 0; i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct stat st;
        size_t l = strlen(names[i]);
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            docs_below(q, p);
        else if (l > 3 && strcmp(names[i] + l - 3, ".md") == 0)
            doc_load(q, p);
        free(names[i]);
    }
}

/* The docs: README.md, CONTRIBUTING.md, docs/ and everything below scenarios/. */
static void docs_load(struct qdocs *q)
{
    memset(q, 0, sizeof *q);
    doc_load(q, "README.md");
    doc_load(q, "CONTRIBUTING.md");
    docs_below(q, "docs");
    docs_below(q, "scenarios");
}

static void docs_free(struct qdocs *q)
{
    for (int i = 0; i < q->n; i++) {
        free(q->d[i].text);
        for (int j = 0; j < q->d[i].ntags; j++)
            free(q->d[i].tags[j].expr);
        free(q->d[i].tags);
        free(q->d[i].blocks);
    }
    free(q->d);
    memset(q, 0, sizeof *q);
}

/* ---- literals ---- */

/* v written as the literal lit is: its decimals, its thousands separators, its minus sign. */
static void format_like(double v, const char *lit, size_t len, char *out, size_t olen)
{
    bool commas = memchr(lit, ',', len) != NULL;
    const char *dot = memchr(lit, '.', len);
    int dec = dot ? (int)(len - (size_t)(dot + 1 - lit)) : 0;
    const char *minus = len >= 3 && strncmp(lit, "\xe2\x88\x92", 3) == 0 ? "\xe2\x88\x92" : "-";
    char num[128];
    snprintf(num, sizeof num, "%.*f", dec, fabs(v));
    bool zero = strspn(num, "0.") == strlen(num);
    char *p = num, grouped[192];
    if (commas) {
        size_t ilen = strcspn(num, "."), o = 0;
        for (size_t i = 0; i < ilen; i++) {
            grouped[o++] = num[i];
            if ((ilen - 1 - i) % 3 == 0 && i + 1 < ilen)
                grouped[o++] = ',';
        }
        snprintf(grouped + o, sizeof grouped - o, "%s", num + ilen);
        p = grouped;
    }
    snprintf(out, olen, "%s%s", v < 0 && !zero ? minus : "", p);
}

/* ---- blocks of output ---- */

/* What varies from one run to the next on the same input: wall-clock time and speed. */
static const char *const masks[] = {
    " in [0-9.]+ s \\([0-9.]+ M events/s\\)", /* rocesim run's summary */
    "; [0-9.]+ s$",                            /* sweep's and tune's first line */
};
#define N_MASKS (sizeof masks / sizeof masks[0])

struct lines {
    int n;
    char **l;
};

static void lines_split(const char *s, size_t len, struct lines *L)
{
    L->n = 0;
    L->l = NULL;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && s[e] != '\n')
            e++;
        L->l = realloc(L->l, sizeof *L->l * (size_t)(L->n + 1));
        L->l[L->n++] = strndup(s + i, e - i);
        i = e + 1;
    }
}

static void lines_free(struct lines *L)
{
    for (int i = 0; i < L->n; i++)
        free(L->l[i]);
    free(L->l);
    L->n = 0;
    L->l = NULL;
}

/* line with what a mask matches replaced by \x01; the matched texts into got[] (when not NULL). */
static void mask_line(const char *line, char *out, size_t len, char got[N_MASKS][128])
{
    snprintf(out, len, "%s", line);
    for (size_t k = 0; k < N_MASKS; k++) {
        regex_t re;
        regmatch_t m;
        if (got)
            got[k][0] = '\0';
        if (regcomp(&re, masks[k], REG_EXTENDED))
            continue;
        if (regexec(&re, out, 1, &m, 0) == 0) {
            if (got)
                snprintf(got[k], 128, "%.*s", (int)(m.rm_eo - m.rm_so), out + m.rm_so);
            char rest[4096];
            snprintf(rest, sizeof rest, "%s", out + m.rm_eo);
            snprintf(out + m.rm_so, len - (size_t)m.rm_so, "\x01%s", rest);
        }
        regfree(&re);
    }
}

/* The shape of a line: masked, each number and each id one '#', blanks one space; what a new value cannot change. */
static void skeleton(const char *line, char *out, size_t len)
{
    char m[4096];
    mask_line(line, m, sizeof m, NULL);
    size_t o = 0;
    for (const char *p = m; *p && o + 2 < len;) {
        size_t hex = strspn(p, "0123456789abcdef");
        if (hex >= 8 && (p == m || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[hex]) &&
            strpbrk(p, "0123456789") && (size_t)(strpbrk(p, "0123456789") - p) < hex) {
            /* a run's id (a hash): another run has another */
            p += hex;
            out[o++] = '#';
            continue;
        }
        if (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)*p) || ((*p == '.' || *p == ',') && isdigit((unsigned char)p[1])))
                p++;
            out[o++] = '#';
        } else if (*p == ' ') {
            while (*p == ' ')
                p++;
            out[o++] = ' ';
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

static bool same_line(const char *doc, const char *actual)
{
    char a[4096], b[4096];
    mask_line(doc, a, sizeof a, NULL);
    mask_line(actual, b, sizeof b, NULL);
    return strcmp(a, b) == 0;
}

static bool same_shape(const char *doc, const char *actual)
{
    char a[4096], b[4096];
    skeleton(doc, a, sizeof a);
    skeleton(actual, b, sizeof b);
    return strcmp(a, b) == 0;
}

/* The actual line, with the doc's wall-clock figures kept where both have them (an update changes no timing). */
static char *keep_masked(const char *doc, const char *actual)
{
    char dg[N_MASKS][128], ag[N_MASKS][128], m[4096];
    mask_line(doc, m, sizeof m, dg);
    mask_line(actual, m, sizeof m, ag);
    char out[4096];
    size_t o = 0;
    int k = 0;
    for (const char *p = m; *p && o + 200 < sizeof out; p++) {
        if (*p != '\x01') {
            out[o++] = *p;
            continue;
        }
        while (k < (int)N_MASKS && !ag[k][0])
            k++;
        if (k < (int)N_MASKS) {
            o += (size_t)snprintf(out + o, sizeof out - o, "%s", dg[k][0] ? dg[k] : ag[k]);
            k++;
        }
    }
    out[o] = '\0';
    return strdup(out);
}

static bool is_gap(const char *line)
{
    return strcmp(line, "...") == 0;
}

/*
 * Matches the expected lines E[e0..e1) (segments between "..." lines) against the actual lines A.  anchored: the
 * first segment starts A and the last ends it unless "..." says otherwise (a command's whole output); else the
 * block is an excerpt.  Each segment is placed where its lines have the shape of the actual ones (numbers
 * aside), then compared.  Writes what differs to msg, and the expected lines rewritten from A into out (when
 * not NULL).  Returns the number of lines that differ, or -1 when a segment cannot be placed.
 */
static int match_lines(const struct lines *E, int e0, int e1, const struct lines *A, bool anchored, FILE *msg,
                       struct lines *out)
{
    bool gaps = false;
    for (int i = e0; i < e1; i++)
        gaps |= is_gap(E->l[i]);
    if (anchored && !gaps && (e1 - e0 != A->n)) {
        fprintf(msg, "%d lines where the command prints %d", e1 - e0, A->n);
        for (int i = 0; out && i < A->n; i++) {
            out->l = realloc(out->l, sizeof *out->l * (size_t)(out->n + 1));
            out->l[out->n++] = strdup(A->l[i]);
        }
        return A->n > e1 - e0 ? A->n : e1 - e0;
    }
    int diff = 0, at = 0;
    for (int i = e0; i < e1;) {
        if (is_gap(E->l[i])) {
            if (out) {
                out->l = realloc(out->l, sizeof *out->l * (size_t)(out->n + 1));
                out->l[out->n++] = strdup(E->l[i]);
            }
            i++;
            continue;
        }
        int j = i;
        while (j < e1 && !is_gap(E->l[j]))
            j++;
        int len = j - i, pos = -1;
        bool first = i == e0, last = j == e1;
        if (anchored && first)
            pos = 0;
        else if (anchored && last)
            pos = A->n - len;
        else
            for (int p = at; p + len <= A->n && pos < 0; p++) {
                int k = 0;
                while (k < len && same_shape(E->l[i + k], A->l[p + k]))
                    k++;
                if (k == len)
                    pos = p;
            }
        if (pos < at || pos + len > A->n) {
            fprintf(msg, "cannot place the lines from \"%.60s\" in the output", E->l[i]);
            return -1;
        }
        for (int k = 0; k < len; k++) {
            const char *a = A->l[pos + k], *e = E->l[i + k];
            if (!same_line(e, a)) {
                if (!diff)
                    fprintf(msg, "\n      doc:    %s\n      output: %s", e, a);
                diff++;
            }
            if (out) {
                out->l = realloc(out->l, sizeof *out->l * (size_t)(out->n + 1));
                out->l[out->n++] = keep_masked(e, a);
            }
        }
        at = pos + len;
        i = j;
    }
    return diff;
}

static void lines_add(struct lines *L, const char *s)
{
    L->l = realloc(L->l, sizeof *L->l * (size_t)(L->n + 1));
    L->l[L->n++] = strdup(s);
}

/* What a command prints, as lines, run in directory dir (a sandbox of its own). */
static void run_lines(const char *dir, const char *cmd, struct lines *A)
{
    char full[8192], *out = NULL;
    snprintf(full, sizeof full, "cd %s && PATH=\"%s/bin:$PATH\" && %s", dir, dir, cmd);
    test_run(full, &out);
    size_t len = out ? strlen(out) : 0;
    while (len && out[len - 1] == '\n')
        len--;
    lines_split(out ? out : "", len, A);
    free(out);
}

/*
 * A block: its commands run (a transcript, in a new sandbox) or its source's output read (an excerpt) and
 * compared.  Returns the lines that differ (-1: cannot be placed), the reasons in msg, the rewritten body in
 * *body (caller frees).
 */
static int check_block(const struct qdoc *d, const struct qblock *b, int idx, FILE *msg, char **body)
{
    struct lines E, A = {0}, out = {0};
    lines_split(d->text + b->body, b->bodylen ? b->bodylen - 1 : 0, &E);
    for (int i = 0; i < E.n; i++) {
        size_t sp = strspn(E.l[i], " "), k = sp < (size_t)b->indent ? sp : (size_t)b->indent;
        memmove(E.l[i], E.l[i] + k, strlen(E.l[i] + k) + 1);
    }
    int diff = 0;
    if (!b->transcript) {
        char p[2048];
        snprintf(p, sizeof p, "%s/out/%s/run.log", sbx, b->key);
        char *t = test_read_file(p, NULL);
        lines_split(t ? t : "", t ? strlen(t) : 0, &A);
        free(t);
        diff = match_lines(&E, 0, E.n, &A, false, msg, &out);
    } else {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/tx%d", sbx, idx);
        make_dirs(dir);
        sandbox_fill(dir);
        for (int i = 0; i < E.n && diff >= 0;) {
            if (strncmp(E.l[i], "$ ", 2) != 0) {
                fprintf(msg, "expected \"$ COMMAND\", got \"%.60s\"", E.l[i]);
                diff = -1;
                break;
            }
            lines_add(&out, E.l[i]);
            int j = i + 1;
            while (j < E.n && strncmp(E.l[j], "$ ", 2) != 0)
                j++;
            run_lines(dir, E.l[i] + 2, &A);
            int k = match_lines(&E, i + 1, j, &A, true, msg, &out);
            diff = k < 0 ? -1 : diff + k;
            lines_free(&A);
            i = j;
        }
    }
    size_t len = 0;
    for (int i = 0; i < out.n; i++)
        len += strlen(out.l[i]) + (size_t)b->indent + 1;
    *body = malloc(len + 1);
    (*body)[0] = '\0';
    for (int i = 0, o = 0; i < out.n; i++)
        o += sprintf(*body + o, "%*s%s\n", out.l[i][0] ? b->indent : 0, "", out.l[i]);
    lines_free(&E);
    lines_free(&A);
    lines_free(&out);
    return diff;
}

/* ---- the check ---- */

struct edit {
    size_t off, len;
    char *text;
};

struct outcome {
    int tags, checked, slow, drifted, failed; /* numbers: tagged, checked, left to --docs-check, wrong, unreadable */
    int blocks, blocks_checked, blocks_drifted;
    int blocks_failed;             /* blocks whose source failed or whose lines could not be placed */
    int edited_files, unwritten;   /* docs rewritten, docs that could not be */
    char *msg; /* one line per problem: file, line, literal, current value */
    size_t msglen;
    FILE *m;
};

/*
 * The exit status of a check (write false) or an update: 1 when anything could not be checked or written (an
 * update that passed over it would leave the doc wrong and say nothing), or, for a check, anything drifted.
 */
static int outcome_status(const struct outcome *o, bool write)
{
    if (o->failed || o->blocks_failed || o->unwritten)
        return 1;
    return !write && (o->drifted || o->blocks_drifted) ? 1 : 0;
}

static int cmp_edit_desc(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;
    return (x->off < y->off) - (x->off > y->off);
}

/* Rewrites d's file with the edits (offsets into d->text). */
static bool apply_edits(struct qdoc *d, struct edit *ed, int n)
{
    qsort(ed, (size_t)n, sizeof *ed, cmp_edit_desc);
    size_t len = strlen(d->text);
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(ed[i].text);
        char *t = malloc(len - ed[i].len + nl + 1);
        memcpy(t, d->text, ed[i].off);
        memcpy(t + ed[i].off, ed[i].text, nl);
        memcpy(t + ed[i].off + nl, d->text + ed[i].off + ed[i].len, len - ed[i].off - ed[i].len + 1);
        free(d->text);
        d->text = t;
        len = len - ed[i].len + nl;
    }
    FILE *f = fopen(d->path, "w");
    bool ok = f && fwrite(d->text, 1, len, f) == len;
    if (f && fclose(f))
        ok = false;
    return ok;
}

/* Whether the sources the expression names ran (all of them: slow ones too); notes the slow ones. */
static int tag_sources(const bool *need, bool all, bool *slow)
{
    *slow = false;
    for (size_t k = 0; k < N_SRC; k++) {
        if (!need[k])
            continue;
        if (docsrcs[k].slow && !all)
            *slow = true;
        else if (src_rc[k] != 0)
            return (int)k;
    }
    return -1;
}

static void check_tag(struct qdoc *d, const struct qtag *t, bool all, struct outcome *o, struct edit *ed, int *ned)
{
    struct ectx c;
    double v;
    memset(&c, 0, sizeof c);
    if (!t->text && !evaluate(&c, t->expr, t->defdir[0] ? t->defdir : NULL, true, &v))
        return;
    if (t->text && !text_source(&c, t->expr, t->defdir[0] ? t->defdir : NULL))
        return;
    bool slow;
    int bad = tag_sources(c.need, all, &slow);
    if (slow) {
        o->slow++;
        return;
    }
    char lit[1024];
    snprintf(lit, sizeof lit, "%.*s", (int)t->litlen, d->text + t->lit);
    if (bad >= 0) {
        o->failed++;
        fprintf(o->m, "  %s:%d: %s: source %s exited %d (out/%s/run.log)\n", d->path, t->line, lit, docsrcs[bad].key,
                src_rc[bad], docsrcs[bad].key);
        return;
    }
    o->checked++;
    if (!(t->text ? evaluate_text(&c, t->expr, t->defdir[0] ? t->defdir : NULL) :
                    evaluate(&c, t->expr, t->defdir[0] ? t->defdir : NULL, false, &v))) {
        o->failed++;
        fprintf(o->m, "  %s:%d: %s<!--=%s-->: %s\n", d->path, t->line, lit, t->expr, c.err);
        return;
    }
    char now[1024];
    if (t->text)
        snprintf(now, sizeof now, "%s", c.err); /* evaluate_text left the string there */
    else
        format_like(v, lit, strlen(lit), now, sizeof now);
    if (strcmp(now, lit) == 0)
        return;
    o->drifted++;
    fprintf(o->m, "  %s:%d: %s is %s now (%s)\n", d->path, t->line, lit, now, t->expr);
    ed[*ned] = (struct edit){t->lit, t->litlen, strdup(now)};
    (*ned)++;
}

static void check_doc_blocks(struct qdoc *d, int *txn, bool all, struct outcome *o, struct edit *ed, int *ned)
{
    for (int i = 0; i < d->nblocks; i++) {
        const struct qblock *b = &d->blocks[i];
        o->blocks++;
        int k = b->transcript ? -1 : src_of(b->key, strlen(b->key));
        if (k >= 0 && docsrcs[k].slow && !all)
            continue;
        o->blocks_checked++;
        char *body = NULL, *why = NULL;
        size_t wlen = 0;
        FILE *w = open_memstream(&why, &wlen);
        int diff = k >= 0 && src_rc[k] != 0 ? -2 : check_block(d, b, (*txn)++, w, &body);
        fclose(w);
        if (diff == -2)
            fprintf(o->m, "  %s:%d: source %s exited %d (out/%s/run.log)\n", d->path, b->line, b->key, src_rc[k], b->key);
        else if (diff != 0)
            fprintf(o->m, "  %s:%d: the block %s: %s\n", d->path, b->line,
                    b->transcript ? "of commands differs from their output" : "differs from its source's output", why);
        /* A block that could not be compared cannot be rewritten either: an update must not pass over it. */
        if (diff < 0)
            o->blocks_failed++;
        else if (diff > 0)
            o->blocks_drifted++;
        if (diff > 0) {
            ed[*ned] = (struct edit){b->body, b->bodylen, body};
            (*ned)++;
        } else {
            free(body);
        }
        free(why);
    }
}

/*
 * Which sources the docs name (slow ones only with all), into need, which may be NULL.  Every tag's expression is
 * parsed on the way: one that does not parse or names no source is an error in q (the only place tags are parsed
 * before they are checked, which skips a tag it cannot evaluate).
 */
static void sources_needed(struct qdocs *q, bool all, bool *need)
{
    bool unused[N_SRC];
    if (!need)
        need = unused;
    memset(need, 0, sizeof(bool) * N_SRC);
    for (int i = 0; i < q->n; i++) {
        for (int j = 0; j < q->d[i].ntags; j++) {
            const struct qtag *t = &q->d[i].tags[j];
            struct ectx c;
            double v;
            memset(&c, 0, sizeof c);
            if (!(t->text ? text_source(&c, t->expr, t->defdir[0] ? t->defdir : NULL)
                          : evaluate(&c, t->expr, t->defdir[0] ? t->defdir : NULL, true, &v)))
                qerr(q, q->d[i].path, t->line, "%s", c.err);
            for (size_t k = 0; k < N_SRC; k++)
                need[k] |= c.need[k] && (all || !docsrcs[k].slow);
        }
        for (int j = 0; j < q->d[i].nblocks; j++) {
            int k = q->d[i].blocks[j].transcript ? -1 : src_of(q->d[i].blocks[j].key, strlen(q->d[i].blocks[j].key));
            if (k >= 0)
                need[k] |= all || !docsrcs[k].slow;
        }
    }
}

/* Checks every doc (and rewrites it, with write) against the runs of its sources. */
static void docnums_check(struct qdocs *q, bool all, bool write, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    o->m = open_memstream(&o->msg, &o->msglen);
    bool need[N_SRC];
    sources_needed(q, all, need);
    if (!sandbox_init()) {
        fprintf(o->m, "  cannot make the sandbox\n");
        o->failed++;
        fclose(o->m);
        return;
    }
    sources_run(need);
    int txn = 0;
    for (int i = 0; i < q->n; i++) {
        struct qdoc *d = &q->d[i];
        struct edit *ed = calloc((size_t)(d->ntags + d->nblocks + 1), sizeof *ed);
        int ned = 0;
        o->tags += d->ntags;
        for (int j = 0; j < d->ntags; j++)
            check_tag(d, &d->tags[j], all, o, ed, &ned);
        check_doc_blocks(d, &txn, all, o, ed, &ned);
        if (write && ned) {
            if (apply_edits(d, ed, ned)) {
                o->edited_files++;
            } else {
                o->unwritten++;
                fprintf(o->m, "  %s: cannot write: %s\n", d->path, strerror(errno));
            }
        }
        for (int j = 0; j < ned; j++)
            free(ed[j].text);
        free(ed);
    }
    cache_clear();
    fclose(o->m);
}

/* ---- the checker itself, on a run and a doc of its own ---- */

static double eval_in(const char *expr, const char *defdir, char *err, size_t elen)
{
    struct ectx c;
    double v;
    memset(&c, 0, sizeof c);
    bool ok = evaluate(&c, expr, defdir, false, &v);
    snprintf(err, elen, "%s", ok ? "" : c.err);
    return ok ? v : NAN;
}

static void write_in(const char *rel, const char *text)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", sbx, rel);
    test_write_text(p, text);
}

static void mech_values(void)
{
    static const struct {
        const char *expr;
        double want;
    } ok[] = {
        {"summary.packets.ecn_marked", 4596},   {"summary.flows.x.p", 7}, /* a key that holds a dot */
        {"summary.1", 3.556},                  {"summary.s", 4.92},      /* by position; a string's number */
        {"summary.a.1", 20},                   {"summary.a.#", 2}, /* how many */                   {"flows.count()", 4},
        {"flows.count(finish_ns=)", 1},        {"flows.max(finish_ns, id=store.*) / 1e6", 2.837},
        {"flows.sum(size_bytes, size_bytes<=200)", 350}, {"flows.pct(slowdown, 50)", 3},
        {"flows.at_max(slowdown, size_bytes)", 50},      {"flows.value(size_bytes, id=bulk0)", 300},
        {"flows.crossings(slowdown, 2)", 1},   {"flows.distinct(size_bytes, id!=web.*)", 3},
        {"queues.peakmin(bytes, 5)", 7},       {"queues.peakmax(bytes, 5)", 9}, /* spikes to 9 and to 7 */
        {"queues.peakmax(bytes, 3, time_ns>=3)", 7}, {"queues.crossings(bytes, 5)", 2},
        {"queues.spread(bytes, time_ns>=2)", 9}, {"flows.groupmax(spread, slowdown, size_bytes, finish_ns!=)", 0}, /* max - min */
        {"flows.mean(slowdown, \"id\"=store.*)", 2.25}, {"flows.first(finish_ns)", 2000000},
        {"incast:match(run.log, \"peak ([0-9.]+) KB\")", 1590.5},
        {"incast:match(run.log, \"^x ([0-9]+)\", 2)", 2}, /* the second match */
        {"flows.min(size_bytes * 8 / finish_ns, id=store.*)", 0.0004}, /* an expression of the row's columns */
        {"flows.at_max(slowdown, (size_bytes + 50) * 2)", 200},
        {"flows.count(finish_ns>flows.min(finish_ns, id=store.*))", 1}, /* a filter's value from the runs */
        {"incast:(summary.d + summary.s)", 8.476},
        {"incast/runs/{incast:summary.r}:flows.value(n)", 4}, /* a directory named by a run's JSON string */
        {"incast/runs/*:flows.sum(n)", 6}, {"incast:\"plot\".value(c2, block=1, c1=3)", 9}, /* plot.dat, blocks */ {"incast/runs/*:flows.max(q, q<7)", 5}, /* "5us": 5 */ {"incast/runs/*:flows.value(n, dir=b)", 4}, /* a pattern of directories */
        {"flows.holding(id, store.1, size_bytes, size_bytes<=200)", 1}, /* the last row of 200 holds store.1 */
        {"flows.groupmax(sum, size_bytes, finish_ns, size_bytes<300)", 200}, /* per finish time, the largest sum */
        {"flows.groupmin(sum, size_bytes, finish_ns, size_bytes<300)", 50},
        {"flows.groupargmax(sum, size_bytes, finish_ns, size_bytes<300)", 2837000}, /* that group's key */
        {"flows.groups(slowdown, 1, 1)", 4}, /* an empty cell is a group too */
        {"flows.groupmean(p50, slowdown, finish_ns, id=store.*)", 2.25}, {"flows.p99(slowdown)", 12.25},
        {"min(2, 3) + max(1, abs(-4)) + floor(2.7)", 8}, {"ln(1) + ln(8) / ln(2)", 3},   {"1 - 2 - 3", -4}, {"2 * (3 + 1) / 4", 2},
    };
    char err[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = eval_in(ok[i].expr, "incast", err, sizeof err);
        if (!(fabs(v - ok[i].want) <= 1e-9))
            printf("\n    %s = %g (%s), expected %g", ok[i].expr, v, err, ok[i].want);
        CU_ASSERT_DOUBLE_EQUAL(v, ok[i].want, 1e-9);
    }
    static const struct {
        const char *expr, *err;
    } bad[] = {
        {"flows.max(nosuch)", "no column nosuch"},
        {"nosuch:summary.a", "no source makes out/nosuch"},
        {"summary.nosuch", "no number at nosuch"},
        {"flows.value(size_bytes, id=store.*)", "several rows"},
        {"flows.max(slowdown, id=none)", "no row with a number"},
        {"queues.peakmin(bytes, 10)", "never reaches its threshold"},
        {"summary.d +", "expected a number, a file or a function"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        eval_in(bad[i].expr, "incast", err, sizeof err);
        if (!strstr(err, bad[i].err))
            printf("\n    %s: \"%s\", expected \"%s\"", bad[i].expr, err, bad[i].err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].err));
    }
    eval_in("summary.a", NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no DIR: and no <!--#run DIR-->"));
    /* a filter's value read from a file not yet read, while the CSV is in use (make asan: no dangling entry) */
    cache_clear();
    CU_ASSERT_DOUBLE_EQUAL(eval_in("flows.count(size_bytes<summary.a.1 * 10)", "incast", err, sizeof err), 2, 1e-9);
}

static void mech_formats(void)
{
    static const struct {
        double v;
        const char *lit, *want;
    } f[] = {
        {4596, "4,618", "4,596"},       {2.8365001, "2.960", "2.837"},   {12345.6, "4,618", "12,346"},
        {1234567, "1,489,934", "1,234,567"}, {-3.556, "\xe2\x88\x92" "3.56", "\xe2\x88\x92" "3.56"},
        {-0.001, "0.00", "0.00"},       {55.6, "54", "56"},               {-10.98, "3.86", "-10.98"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char out[64];
        format_like(f[i].v, f[i].lit, strlen(f[i].lit), out, sizeof out);
        CU_ASSERT_STRING_EQUAL(out, f[i].want);
    }
}

static const char mech_doc[] =
    "# t\n"
    "<!--#run incast-->\n"
    "Marks: 4,618<!--=summary.packets.ecn_marked--> and 2.960 ms<!--=flows.max(finish_ns, id=store.*) / 1e6-->,\n"
    "p50 12<!--=incast:flows.pct(slowdown, 50)-->, the \xe2\x88\x92" "3.56<!--=0 - summary.d--> gap, `a<!--=b-->`.\n"
    "The id `c`<!--=text summary.r-->.\n"
    "<!--#transcript-->\n"
    "```\n"
    "$ printf 'a 1\\nb\\nc\\nwall in 0.02 s (5.39 M events/s)\\n'\n"
    "a 2\n"
    "...\n"
    "wall in 9.99 s (1.00 M events/s)\n"
    "```\n"
    "<!--#output incast-->\n"
    "```\n"
    "run f3977fad00cd33e3 done\n"
    "```\n";

/* A doc of its own: the drifts are found with file, line, literal and value, and --docs-update rewrites them. */
static void mech_doc_check(void)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/doc.md", sbx);
    test_write_text(path, mech_doc);
    struct qdocs q;
    memset(&q, 0, sizeof q);
    doc_load(&q, path);
    if (q.nerr)
        printf("\n%s", q.errs);
    CU_ASSERT_EQUAL(q.nerr, 0);
    CU_ASSERT_EQUAL_FATAL(q.n, 1);
    CU_ASSERT_EQUAL(q.d[0].ntags, 5); /* the one in a code span is an example */
    CU_ASSERT_EQUAL(q.d[0].nblocks, 2);
    struct outcome o;
    docnums_check(&q, false, false, &o);
    char want[2200];
    snprintf(want, sizeof want, "%s:3: 4,618 is 4,596 now (summary.packets.ecn_marked)", path);
    CU_ASSERT_PTR_NOT_NULL(o.msg ? strstr(o.msg, want) : NULL);
    snprintf(want, sizeof want, "%s:4: 12 is 3 now", path);
    CU_ASSERT_PTR_NOT_NULL(o.msg ? strstr(o.msg, want) : NULL);
    CU_ASSERT_PTR_NOT_NULL(o.msg ? strstr(o.msg, "doc:    a 2\n      output: a 1") : NULL);
    CU_ASSERT_EQUAL(o.drifted, 4);
    CU_ASSERT_EQUAL(o.blocks_drifted, 2); /* the excerpt is placed though its run's id changed */
    CU_ASSERT_EQUAL(o.failed, 0);
    free(o.msg);
    docnums_check(&q, false, true, &o); /* --docs-update */
    CU_ASSERT_EQUAL(o.edited_files, 1);
    free(o.msg);
    docs_free(&q);
    char *text = test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "Marks: 4,596<!--=summary.packets.ecn_marked--> and 2.837 ms<!--="));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "p50 3<!--="));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "The id `b`<!--=text summary.r-->."));
    /* the wall-clock figures of the doc are kept */
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "```\n$ printf 'a 1\\nb\\nc\\nwall in 0.02 s (5.39 M events/s)\\n'\n"
                                                "a 1\n...\nwall in 9.99 s (1.00 M events/s)\n```\n"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "```\nrun 0489d5ebb5d95c48 done\n```\n"));
    free(text);
    doc_load(&q, path);
    docnums_check(&q, false, false, &o);
    CU_ASSERT_EQUAL(o.drifted + o.blocks_drifted + o.blocks_failed + o.failed, 0);
    free(o.msg);
    docs_free(&q);
}

/*
 * An update that cannot do its work fails: a block whose source failed, a block whose lines cannot be placed in
 * the output, a doc that cannot be written (each used to leave `make docs-update` exiting 0).
 */
static void mech_update_failures(void)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/doc2.md", sbx);
    test_write_text(path, "# t\n<!--#transcript-->\n```\n$ printf 'x\\n'\na\nb\nc\n...\n```\n"
                          "<!--#output incast-->\n```\nrun 0489d5ebb5d95c48 done\n```\n");
    struct qdocs q;
    memset(&q, 0, sizeof q);
    doc_load(&q, path);
    CU_ASSERT_EQUAL_FATAL(q.n, 1);
    CU_ASSERT_EQUAL(q.d[0].nblocks, 2);
    int k = src_of("incast", 6);
    src_rc[k] = 7;
    struct outcome o;
    docnums_check(&q, false, true, &o);
    src_rc[k] = 0;
    CU_ASSERT_EQUAL(o.blocks_failed, 2);
    CU_ASSERT_EQUAL(o.blocks_drifted, 0);
    CU_ASSERT_PTR_NOT_NULL(o.msg ? strstr(o.msg, "cannot place the lines from \"a\" in the output") : NULL);
    CU_ASSERT_PTR_NOT_NULL(o.msg ? strstr(o.msg, "source incast exited 7") : NULL);
    CU_ASSERT_EQUAL(outcome_status(&o, true), 1);
    free(o.msg);
    docs_free(&q);

    /* a drift to rewrite, in a doc that has become a directory */
    test_write_text(path, "# t\n<!--#run incast-->\nMarks: 4,618<!--=summary.packets.ecn_marked-->.\n");
    memset(&q, 0, sizeof q);
    doc_load(&q, path);
    CU_ASSERT_EQUAL_FATAL(q.n, 1);
    CU_ASSERT_EQUAL_FATAL(unlink(path), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
    docnums_check(&q, false, true, &o);
    CU_ASSERT_EQUAL(o.drifted, 1);
    CU_ASSERT_EQUAL(o.unwritten, 1);
    CU_ASSERT_EQUAL(o.edited_files, 0);
    CU_ASSERT_EQUAL(outcome_status(&o, true), 1);
    CU_ASSERT_EQUAL(rmdir(path), 0);
    free(o.msg);
    docs_free(&q);
}

static void test_mechanism(void)
{
    CU_ASSERT_FATAL(sandbox_init_as(false));
    int k = src_of("incast", 6);
    CU_ASSERT_FATAL(k >= 0);
    src_rc[k] = 0; /* its files are written here, not run */
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/out/incast", sbx);
    CU_ASSERT_EQUAL_FATAL(make_dirs(dir), 0);
    write_in("out/incast/summary.json", "{\"packets\": {\"ecn_marked\": 4596}, \"d\": 3.556, \"flows.x\": {\"p\": 7},"
                                        " \"s\": \"4.92KB\", \"a\": [10, 20], \"r\": \"b\"}");
    write_in("out/incast/flows.csv", "id,size_bytes,finish_ns,slowdown\nstore.0,100,2000000,1.5\n"
                                     "store.1,200,2837000,3.0\nbulk0,300,,\nweb.1,50,100,12.25\n");
    write_in("out/incast/queues.csv", "time_ns,bytes\n0,0\n1,5\n2,9\n3,1\n4,7\n5,0\n6,3\n");
    write_in("out/incast/run.log", "x 1\npeak 1590.5 KB\nx 2\nrun 0489d5ebb5d95c48 done\n");
    write_in("out/incast/plot.dat", "# a\n1 2\n3 4\n\n\n# b\n3 9\n");
    CU_ASSERT_EQUAL_FATAL(make_dirs(strcat(dir, "/runs/a")), 0);
    write_in("out/incast/runs/a/flows.csv", "id,n,q\nx,2,5us\n");
    dir[strlen(dir) - 1] = 'b';
    CU_ASSERT_EQUAL_FATAL(make_dirs(dir), 0);
    write_in("out/incast/runs/b/flows.csv", "id,n,q\nx,4,7.5KB\n");
    mech_values();
    mech_formats();
    mech_doc_check();
    mech_update_failures();
    cache_clear();
    sandbox_remove();
}

/* ---- entry points ---- */

static void print_outcome(const struct outcome *o, bool write)
{
    printf("\n    %d numbers tagged: %d checked, %d from slow sources%s, %d %s, %d unreadable; "
           "%d output blocks: %d checked, %d %s, %d could not be compared\n",
           o->tags, o->checked, o->slow, o->slow ? " (left to make docs-check)" : "", o->drifted,
           write ? "rewritten" : "drifted", o->failed, o->blocks, o->blocks_checked, o->blocks_drifted,
           write ? "rewritten" : "differ", o->blocks_failed);
    if (o->msg && o->msg[0])
        printf("%s", o->msg);
}

/* See tests.h. */
int docnums_main(bool write)
{
    struct qdocs q;
    docs_load(&q);
    sources_needed(&q, true, NULL);
    if (q.nerr) {
        printf("the docs' tags are wrong:\n%s", q.errs);
        docs_free(&q);
        return 2;
    }
    struct outcome o;
    docnums_check(&q, true, write, &o);
    print_outcome(&o, write);
    if (write)
        printf("%d files rewritten: review `git diff` before committing\n", o.edited_files);
    int rc = outcome_status(&o, write);
    free(o.msg);
    docs_free(&q);
    sandbox_remove();
    return rc;
}

/* See tests.h. */
int docnums_eval(const char *expr)
{
    struct ectx c;
    double v;
    memset(&c, 0, sizeof c);
    if (!evaluate(&c, expr, NULL, true, &v) || !sandbox_init()) {
        fprintf(stderr, "%s\n", c.err[0] ? c.err : "cannot make the sandbox");
        return 2;
    }
    sources_run(c.need);
    for (size_t k = 0; k < N_SRC; k++)
        if (c.need[k] && src_rc[k] != 0)
            fprintf(stderr, "source %s exited %d (see %s/out/%s/run.log)\n", docsrcs[k].key, src_rc[k], sbx,
                    docsrcs[k].key);
    bool ok = evaluate(&c, expr, NULL, false, &v);
    if (ok)
        printf("%.10g\n", v);
    else
        fprintf(stderr, "%s\n", c.err);
    cache_clear();
    sandbox_remove();
    return ok ? 0 : 1;
}

static struct outcome suite_outcome;
static bool suite_checked;

static void suite_check(void)
{
    if (suite_checked)
        return;
    struct qdocs q;
    docs_load(&q);
    docnums_check(&q, false, false, &suite_outcome);
    docs_free(&q);
    print_outcome(&suite_outcome, false);
    suite_checked = true;
}

static void test_tags_parse(void)
{
    struct qdocs q;
    docs_load(&q);
    sources_needed(&q, true, NULL);
    int tags = 0;
    for (int i = 0; i < q.n; i++)
        tags += q.d[i].ntags;
    if (q.nerr)
        printf("\n%s", q.errs);
    CU_ASSERT_EQUAL(q.nerr, 0);
    printf("\n    %d numbers tagged in %d docs ", tags, q.n);
    CU_ASSERT(tags >= 300); /* a check over no tags would pass */
    docs_free(&q);
}

static void test_numbers(void)
{
    suite_check();
    CU_ASSERT(suite_outcome.checked > 0);
    CU_ASSERT_EQUAL(suite_outcome.failed, 0);
    CU_ASSERT_EQUAL(suite_outcome.drifted, 0);
}

static void test_blocks(void)
{
    suite_check();
    CU_ASSERT(suite_outcome.blocks_checked >= 3);
    CU_ASSERT_EQUAL(suite_outcome.blocks_drifted, 0);
    CU_ASSERT_EQUAL(suite_outcome.blocks_failed, 0);
}

static int suite_clean(void)
{
    free(suite_outcome.msg);
    memset(&suite_outcome, 0, sizeof suite_outcome);
    suite_checked = false;
    sandbox_remove();
    return 0;
}

void test_docnums_register(void)
{
    CU_pSuite s = CU_add_suite("docnums", NULL, suite_clean);
    CU_add_test(s, "the checker reads a run's files, formats like the doc, rewrites in place", test_mechanism);
    CU_add_test(s, "every tag in the docs parses and names a source", test_tags_parse);
    CU_add_test(s, "every number the docs quote from a run is the run's", test_numbers);
    CU_add_test(s, "every command output the docs show is the command's", test_blocks);
}
