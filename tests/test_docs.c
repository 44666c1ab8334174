/*
 * The documentation's promises that a machine can check: every file a doc links
 * or names exists in the repository (the docs must stand alone), the README's
 * usage block is the program's own, error examples carry the `rocesim: ` prefix
 * of the real messages, the fat-tree limit the scenario reference states is
 * the one the code enforces, the output reference names every column and
 * summary field a run writes, and `make layers` checks every include.
 */
#include "tests/tests.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct doclist {
    char *path[256];
    int n;
};

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void doc_add(struct doclist *d, const char *path)
{
    if (d->n < (int)(sizeof d->path / sizeof d->path[0]) && exists(path))
        d->path[d->n++] = strdup(path);
}

/* Every README.md below dir (the labs' walk-throughs and any other). */
static void doc_add_readmes(struct doclist *d, const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    for (struct dirent *e; (e = readdir(dp));) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            doc_add_readmes(d, p);
        else if (strcmp(e->d_name, "README.md") == 0)
            doc_add(d, p);
    }
    closedir(dp);
}

/* The project's docs: README.md, CONTRIBUTING.md, docs/ and every README under scenarios/. */
static void doc_list(struct doclist *d)
{
    d->n = 0;
    doc_add(d, "README.md");
    doc_add(d, "CONTRIBUTING.md");
    DIR *dp = opendir("docs");
    for (struct dirent *e; dp && (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0) {
            char p[1024];
            snprintf(p, sizeof p, "docs/%s", e->d_name);
            doc_add(d, p);
        }
    }
    if (dp)
        closedir(dp);
    doc_add_readmes(d, "scenarios");
    CU_ASSERT_FATAL(d->n >= 3); /* a check over no docs would pass */
}

static void doc_free(struct doclist *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->path[i]);
    d->n = 0;
}

/* Whether dir/name[0..len) exists (dir "" is the repository root). */
static bool rel_exists(const char *dir, const char *name, size_t len)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s%.*s", dir, *dir ? "/" : "", (int)len, name);
    return exists(p);
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '/' || c == '-';
}

/* The missing files one doc links (`](path)`, resolved from the doc's folder, as a renderer does) or names
 * (`NAME.md` anywhere, from its folder, the root or docs/), one line each into out; returns how many. */
static int doc_missing(const char *doc, char *out, size_t outlen)
{
    char *text = test_read_file(doc, NULL);
    if (!text) {
        snprintf(out, outlen, "  %s: cannot read\n", doc);
        return 1;
    }
    /* Comments are not rendered: a tag's expression (tests/test_docnums.c) is no link. */
    for (char *c = strstr(text, "<!--"), *e; c && (e = strstr(c + 4, "-->")); c = strstr(e + 3, "<!--"))
        memset(c + 4, ' ', (size_t)(e - c - 4));
    char dir[512];
    snprintf(dir, sizeof dir, "%s", doc);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    int bad = 0;
    for (const char *p = strstr(text, "]("); p; p = strstr(p + 2, "](")) {
        const char *t = p + 2;
        size_t len = strcspn(t, ") \t\n#");
        if (len == 0 || strncmp(t, "http://", 7) == 0 || strncmp(t, "https://", 8) == 0 ||
            strncmp(t, "mailto:", 7) == 0 || rel_exists(dir, t, len))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, outlen - used, "  %s: link to %.*s, which does not exist\n", doc, (int)len, t);
        bad++;
    }
    for (const char *p = text; *p;) {
        if (!name_char(*p)) {
            p++;
            continue;
        }
        const char *start = p;
        while (name_char(*p))
            p++;
        size_t len = (size_t)(p - start);
        while (len > 0 && start[len - 1] == '.')
            len--;
        bool url = start > text && start[-1] == ':';
        if (url || len <= 3 || strncmp(start + len - 3, ".md", 3) != 0 || rel_exists(dir, start, len) ||
            rel_exists("", start, len) || rel_exists("docs", start, len))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, outlen - used, "  %s: names %.*s, which is not in the repository\n", doc, (int)len,
                 start);
        bad++;
    }
    free(text);
    return bad;
}

static void test_doc_files_exist(void)
{
    struct doclist d;
    doc_list(&d);
    static char out[16384];
    out[0] = '\0';
    int bad = 0;
    for (int i = 0; i < d.n; i++)
        bad += doc_missing(d.path[i], out, sizeof out);
    if (bad)
        printf("\n%s", out);
    CU_ASSERT_EQUAL(bad, 0);
    doc_free(&d);
}

/* The lines of text from `from` up to the line `end` (exclusive), each trimmed and with its runs of blanks made
 * one space, into out. */
static void usage_lines(const char *from, const char *end, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = from; *p && p != end && (end || *p != '\n');) {
        while (*p == ' ')
            p++;
        while (*p && *p != '\n' && n + 2 < outlen) {
            if (*p == ' ' && (p[1] == ' ' || p[1] == '\n' || p[1] == '\0')) {
                p++;
                continue;
            }
            out[n++] = *p++;
        }
        if (*p == '\n')
            p++;
        if (n + 2 < outlen)
            out[n++] = '\n';
        out[n] = '\0';
        if (!end && *p == '\n')
            break;
    }
}

static void test_readme_usage(void)
{
    char cmd[512], *help = NULL;
    snprintf(cmd, sizeof cmd, "%s --help", test_rocesim_bin());
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, &help), 0);
    char *readme = test_read_file("README.md", NULL);
    const char *h = help ? strstr(help, "usage:\n") : NULL;
    const char *sec = readme ? strstr(readme, "\n## Using it") : NULL;
    const char *open = sec ? strstr(sec, "\n```\n") : NULL;
    const char *close = open ? strstr(open + 5, "\n```") : NULL;
    CU_ASSERT_PTR_NOT_NULL(h);
    CU_ASSERT_PTR_NOT_NULL(close);
    if (h && close) {
        char want[4096], got[4096];
        usage_lines(h + 7, NULL, want, sizeof want); /* up to the blank line after the usage lines */
        usage_lines(open + 5, close + 1, got, sizeof got);
        if (strcmp(want, got) != 0)
            printf("\n  rocesim --help says:\n%s  README.md's usage block says:\n%s", want, got);
        CU_ASSERT_STRING_EQUAL(got, want);
    }
    free(help);
    free(readme);
}

/* Whether an example line or code span has the shape of an error message, and then whether it carries the
 * program's prefix. */
static bool bad_example(const char *s, size_t len)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), s);
    if (!strstr(buf, ": expected ") && !strstr(buf, ": cannot read") && !strstr(buf, "internal error"))
        return false;
    /* the sweep, tune, nic-config and nccl-tests commands name themselves in their prefix */
    return strncmp(buf, "rocesim: ", 9) != 0 && strncmp(buf, "rocesim sweep: ", 15) != 0 && strncmp(buf, "rocesim tune: ", 14) != 0 &&
           strncmp(buf, "rocesim nic-config: ", 20) != 0 && strncmp(buf, "rocesim nccl-tests: ", 20) != 0;
}

static void test_error_examples_prefixed(void)
{
    struct doclist d;
    doc_list(&d);
    int bad = 0;
    for (int i = 0; i < d.n; i++) {
        char *text = test_read_file(d.path[i], NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        /* Lines of fenced blocks are checked one by one and then blanked, so that what remains holds only the
         * inline code spans (which may run on to the next line). */
        bool fenced = false;
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            bool fence = strncmp(line, "```", 3) == 0;
            if (!fence && fenced && bad_example(line, len)) {
                printf("\n  %s: %.*s", d.path[i], (int)len, line);
                bad++;
            }
            if (fence || fenced)
                memset(line, ' ', len);
            fenced ^= fence;
            line = nl ? nl + 1 : line + len;
        }
        for (const char *a = strchr(text, '`'), *b; a && (b = strchr(a + 1, '`')); a = strchr(b + 1, '`')) {
            if (bad_example(a + 1, (size_t)(b - a - 1))) {
                printf("\n  %s: %.*s", d.path[i], (int)(b - a - 1), a + 1);
                bad++;
            }
        }
        free(text);
    }
    CU_ASSERT_EQUAL(bad, 0);
    doc_free(&d);
}

/* Routing-table bytes of the k-ary fat-tree, as topo.c computes them: (hosts + switches) x ToRs x 4 B. */
static unsigned long long fat_tree_table(long long k)
{
    long long nodes = k * k * k / 4 + 5 * k * k / 4, tors = k * k / 2;
    return (unsigned long long)(nodes * tors) * sizeof(uint32_t);
}

static void test_fat_tree_limit_documented(void)
{
    char *doc = test_read_file("docs/scenario.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *row = strstr(doc, "\n| `k`");
    int kmax = 0;
    const char *at = row ? strstr(row, "; 2..") : NULL;
    if (at && sscanf(at, "; 2..%d can be built", &kmax) != 1)
        kmax = 0;
    free(doc);
    printf("\n    docs/scenario.md: fat-tree k up to %d can be built ", kmax);
    CU_ASSERT_FATAL(kmax > 2 && kmax % 2 == 0);
    CU_ASSERT(fat_tree_table(kmax) <= TOPO_MAX_TABLE_BYTES);
    /* fatal: a k the cap lets through would spend minutes computing its routing below */
    CU_ASSERT_FATAL(fat_tree_table(kmax + 2) > TOPO_MAX_TABLE_BYTES);
    /* The next k is refused by the routing cap itself (the memory estimate told to stand aside), in a second. */
    char cmd[512], *log = NULL;
    snprintf(cmd, sizeof cmd,
             "ROCESIM_MEM_AVAILABLE=1000GB %s check scenarios/pfc-storm.json --set topology.k=%d "
             "--set switch.buffer=1GB >/dev/null",
             test_rocesim_bin(), kmax + 2);
    CU_ASSERT_EQUAL(test_run(cmd, &log), 2);
    CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "routing tables for") ? log : NULL);
    free(log);
}

/* Whether doc names `name` as a field: in backticks, alone or as a part of a dotted path (`a.b`, `a[]`). */
static bool doc_names_field(const char *doc, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(doc, name); p; p = strstr(p + 1, name))
        if (p > doc && (p[-1] == '`' || p[-1] == '.') && (p[len] == '`' || p[len] == '.' || p[len] == '['))
            return true;
    return false;
}

/* Every key of summary.json (digit keys, the priorities, excepted) that docs/outputs.md does not name. */
static int summary_keys_missing(const cJSON *o, const char *doc, char *out, size_t outlen)
{
    int bad = 0;
    for (const cJSON *it = o ? o->child : NULL; it; it = it->next) {
        if (it->string && !(it->string[0] >= '0' && it->string[0] <= '9') && !doc_names_field(doc, it->string)) {
            size_t used = strlen(out);
            snprintf(out + used, outlen - used, " %s", it->string);
            bad++;
        }
        if (cJSON_IsObject(it))
            bad += summary_keys_missing(it, doc, out, outlen);
        else if (cJSON_IsArray(it) && it->child && cJSON_IsObject(it->child))
            bad += summary_keys_missing(it->child, doc, out, outlen);
    }
    return bad;
}

/* docs/outputs.md gives every CSV's header line as the program writes it and names every summary.json field
 * (of a run with the watchdog and the counters on, so that every file is written, and of one with a collective). */
static void test_outputs_documented(void)
{
    char *doc = test_read_file("docs/outputs.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    char tmp[] = "/tmp/rocesim-docs-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s run scenarios/incast-16to1.json --set switch.watchdog.enabled=true --set monitor.counters=true "
             "--stop 100us -q --no-plot "
             "-o %s/a && %s run scenarios/allreduce-leafspine.json --stop 100us -q --no-plot -o %s/b",
             test_rocesim_bin(), tmp, test_rocesim_bin(), tmp);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    static const char *const csv[] = {"flows.csv", "queues.csv",   "rates.csv",    "pfc.csv",
                                      "watchdog.csv", "counters.csv", NULL};
    for (int i = 0; csv[i]; i++) {
        char p[600], head[512];
        snprintf(p, sizeof p, "%s/a/%s", tmp, csv[i]);
        char *t = test_read_file(p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        snprintf(head, sizeof head, "`%.*s`", (int)strcspn(t, "\n"), t);
        if (!strstr(doc, head))
            printf("\n  docs/outputs.md does not give %s's header %s", csv[i], head);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, head));
        free(t);
    }
    char out[2048] = "";
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%c/summary.json", tmp, "ab"[i]);
        char *t = test_read_file(p, NULL);
        cJSON *j = t ? cJSON_Parse(t) : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        bad += summary_keys_missing(j, doc, out, sizeof out);
        cJSON_Delete(j);
        free(t);
    }
    if (bad)
        printf("\n  summary.json fields docs/outputs.md does not name:%s", out);
    CU_ASSERT_EQUAL(bad, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
    free(doc);
}

/*
 * `make layers` checks every include (CONTRIBUTING.md): run on a tree of its own, it names each header of a higher
 * floor however the include spells it ("dir/x.h", <dir/x.h>, "../dir/x.h"), a tools/ folder's too ("tools/live/x.h",
 * "../explore/x.h" from tools/run/), and nothing else; the project passes.
 */
static void test_layers_every_include(void)
{
    char tmp[] = "/tmp/rocesim-layers-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    char cmd[2048], root[1024], *out = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(root, sizeof root));
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir sim models tools && cp %s/tools/layers.sh tools/ && "
             "printf '#include \"../models/x.h\"\\n#include <tools/run/run.h>\\n#include <stdio.h>\\n"
             "#include <cjson/cJSON.h>\\n#include \"sim.h\"\\n#include \"../sim/ok.h\"\\n' >sim/a.c && "
             "printf '#  include \"tools/y.h\"\\n#include <sim/ok.h>\\n#include \"tests/tests.h\"\\n' >models/b.h && "
             "mkdir tools/run && printf '#include \"tools/live/x.h\"\\n#include \"../common/ok.h\"\\n#include \"ok.h\"\\n"
             "#include <tools/run/ok.h>\\n#include \"../sim/ok.h\"\\n#include \"../explore/z.h\"\\n' >tools/run/c.c && "
             "printf '#include \"tools/live/ok.h\"\\n' >tools/main.c && "
             "tools/layers.sh 2>&1 >/dev/null",
             tmp, root);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 1);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "sim/a.c: includes a header of models/, a floor above sim/\n"
                                           "sim/a.c: includes a header of tools/, a floor above sim/\n"
                                           "models/b.h: includes a header of tools/, a floor above models/\n"
                                           "models/b.h: includes a header of tests/, a floor above models/\n"
                                           "tools/run/c.c: includes a header of tools/live/, a floor above tools/run/\n"
                                           "tools/run/c.c: includes a header of tools/explore/, a floor above "
                                           "tools/run/\n");
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
    CU_ASSERT_EQUAL(test_run("tools/layers.sh", NULL), 0);
}

/*
 * docs/cc-comparison.md's runs are given whole, one per algorithm, and work as pasted into bash: the DCTCP
 * thresholds' {"100Gbps":...} objects, unquoted, were split by bash's brace expansion into two arguments.  Each
 * `./rocesim run` line of its block is run by bash as `rocesim check` (the same settings, nothing simulated).
 */
static void test_cc_comparison_commands(void)
{
    char *doc = test_read_file("docs/cc-comparison.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *b = strstr(doc, "\n```sh\n./rocesim run scenarios/hpcc-fabric.json");
    const char *e = b ? strstr(b + 7, "\n```\n") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    char block[8192];
    snprintf(block, sizeof block, "%.*s", (int)(e - b - 7), b + 7);
    /* continuation lines joined */
    for (char *c = strstr(block, "\\\n"); c; c = strstr(c, "\\\n"))
        c[0] = c[1] = ' ';
    static const char *const cc[] = {"dcqcn", "host.cc=hpcc", "host.cc=timely", "host.cc=dctcp"};
    int runs = 0, found[4] = {0};
    for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "./rocesim run ", 14) != 0)
            continue;
        runs++;
        for (int k = 1; k < 4; k++)
            found[k] += strstr(line, cc[k]) != NULL;
        found[0] += !strstr(line, "host.cc=");
        char script[4096], *o = script;
        o += snprintf(script, sizeof script, "%s check", test_rocesim_bin());
        for (char *t = line + 13; *t;) {
            /* the run's own options go; what the scenario is given stays as bash reads it */
            if (!strncmp(t, " -q", 3) || !strncmp(t, " --no-plot", 10)) {
                t += strncmp(t, " -q", 3) ? 10 : 3;
                continue;
            }
            if (!strncmp(t, " -o ", 4)) {
                t += 4 + strcspn(t + 4, " ");
                continue;
            }
            *o++ = *t++;
        }
        snprintf(o, sizeof script - (size_t)(o - script), " >/dev/null\n");
        char path[] = "/tmp/rocesim-ccdoc-XXXXXX", cmd[256], *log = NULL;
        int fd = mkstemp(path);
        CU_ASSERT_FATAL(fd >= 0);
        close(fd);
        test_write_text(path, script);
        snprintf(cmd, sizeof cmd, "bash %s", path);
        int rc = test_run(cmd, &log);
        unlink(path);
        if (rc != 0)
            printf("\n  %s  exit %d: %.300s", script, rc, log ? log : "");
        CU_ASSERT_EQUAL(rc, 0);
        free(log);
    }
    CU_ASSERT_EQUAL(runs, 4);
    for (int k = 0; k < 4; k++)
        CU_ASSERT_EQUAL(found[k], 1);
    free(doc);
}

void test_docs_register(void)
{
    CU_pSuite s = CU_add_suite("docs", NULL, NULL);
    CU_add_test(s, "every file a doc links or names exists", test_doc_files_exist);
    CU_add_test(s, "README's usage block is rocesim --help's", test_readme_usage);
    CU_add_test(s, "error examples carry the rocesim: prefix", test_error_examples_prefixed);
    CU_add_test(s, "the documented fat-tree k limit is the routing cap's", test_fat_tree_limit_documented);
    CU_add_test(s, "docs/outputs.md gives every CSV header and summary.json field", test_outputs_documented);
    CU_add_test(s, "make layers names a higher floor's header however it is included", test_layers_every_include);
    CU_add_test(s, "docs/cc-comparison.md's four runs are given whole and work as pasted into bash",
                test_cc_comparison_commands);
}
