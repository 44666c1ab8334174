/* Helpers shared by the whole-run tests (declared in tests/tests.h). */
#include "tests/tests.h"
#include "tools/run/run.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

bool test_setup_from(const char *file, const char *text, const struct scn_override *ov, int n_ov,
                     struct scenario *scn, struct run *r)
{
    char err[SCN_ERR_MAX];
    int rc = text ? scn_load_text(file, text, ov, n_ov, scn, err, sizeof err)
                  : scn_load(file, ov, n_ov, scn, err, sizeof err);
    if (rc) {
        fprintf(stderr, "\n  scenario error: %s\n", err);
        return false;
    }
    if (run_setup(r, scn, err, sizeof err)) {
        fprintf(stderr, "\n  setup error: %s\n", err);
        scn_free(scn);
        return false;
    }
    return true;
}

bool test_setup(const char *json, const char *set_path, const char *set_value, struct scenario *scn, struct run *r)
{
    struct scn_override ov = {set_path, set_value};
    return test_setup_from("test.json", json, &ov, set_path ? 1 : 0, scn, r);
}

char *test_run_text(const struct run *r)
{
    char *a = run_flows_csv(r), *b = run_summary_json(r, false);
    struct sbuf out = {0};
    sb_printf(&out, "%s%send %lld\n", a, b, (long long)r->sim.now);
    free(a);
    free(b);
    return out.p;
}

char *test_same_each_run(const char *file)
{
    char *text[3];
    for (int k = 0; k < 3; k++) {
        struct scenario scn;
        struct run r;
        run_set_threads(k == 2 ? 2 : 1);
        CU_ASSERT_FATAL(test_setup_from(file, NULL, NULL, 0, &scn, &r));
        test_run_checked(&r);
        text[k] = test_run_text(&r);
        test_teardown(&scn, &r);
    }
    run_set_threads(1);
    CU_ASSERT_STRING_EQUAL(text[0], text[1]);
    CU_ASSERT_STRING_EQUAL(text[0], text[2]);
    free(text[1]);
    free(text[2]);
    return text[0];
}

void test_teardown(struct scenario *scn, struct run *r)
{
    run_free(r);
    scn_free(scn);
}

void test_run_checked(struct run *r)
{
    int rc = run_execute(r);
    if (rc)
        fprintf(stderr, "\n  invariant: %s\n", r->invariant_error);
    CU_ASSERT_EQUAL(rc, 0);
    const struct net_counters *c = &r->net.c;
    CU_ASSERT_EQUAL(c->data_sent, c->data_delivered + c->data_dropped + c->data_in_flight);
    CU_ASSERT_EQUAL(c->bytes_sent, c->bytes_delivered + c->bytes_dropped + c->data_bytes_in_flight);
    if (r->finished)
        CU_ASSERT_EQUAL(c->data_in_flight, 0);
}

uint32_t test_node(const struct run *r, const char *name)
{
    int32_t id = graph_find(&r->g, name);
    CU_ASSERT_FATAL(id >= 0);
    return (uint32_t)id;
}

struct port *test_port_to(struct run *r, const char *a, const char *b)
{
    uint32_t na = test_node(r, a);
    int local = graph_port_to(&r->g, na, test_node(r, b));
    CU_ASSERT_FATAL(local >= 0);
    return &r->net.ports[r->g.nodes[na].first_port + (uint32_t)local];
}

char *test_read_file(const char *path, size_t *len)
{
    char *data;
    return read_file(path, &data, len, NULL, 0) ? NULL : data;
}

void test_write_text(const char *path, const char *text)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(text); /* made from an earlier step's output, which may have failed */
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

bool test_child_aborts(void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        body();
        _exit(0);
    }
    int st = 0;
    return waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

bool test_under_asan(void)
{
    return UNDER_ASAN;
}

bool test_skip_under_asan(const char *what)
{
    if (UNDER_ASAN)
        fprintf(stderr, "\n  note: under AddressSanitizer: %s skipped (it tests behaviour under an address-space limit)\n",
                what);
    return UNDER_ASAN;
}

bool test_load(const char *text, struct scenario *s)
{
    char err[SCN_ERR_MAX] = "";
    int rc = scn_load_text("t.json", text, NULL, 0, s, err, sizeof err);
    if (rc != SCN_OK)
        fprintf(stderr, "\n  load: %s", err);
    return rc == SCN_OK;
}

bool test_json_loads(const cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    struct scenario s;
    bool ok = text && test_load(text, &s);
    if (ok)
        scn_free(&s);
    free(text);
    return ok;
}

void test_load_err(const char *text, char *err, size_t len)
{
    struct scenario s;
    err[0] = '\0';
    CU_ASSERT_EQUAL(scn_load_text("t.json", text, NULL, 0, &s, err, len), SCN_EUSAGE);
}

void test_load_errors(const struct test_bad *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char err[SCN_ERR_MAX] = "";
        test_load_err(bad[i].json, err, sizeof err);
        if (strcmp(err, bad[i].err))
            printf("\n    got  %s\n    want %s\n", err, bad[i].err);
        CU_ASSERT_STRING_EQUAL(err, bad[i].err);
    }
}

void test_build_errors(const struct test_bad *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct scenario scn;
        struct run r;
        char err[SCN_ERR_MAX] = "";
        CU_ASSERT_FATAL(test_load(bad[i].json, &scn));
        CU_ASSERT_EQUAL(run_setup(&r, &scn, err, sizeof err), SCN_EUSAGE);
        if (strcmp(err, bad[i].err))
            printf("\n    got  %s\n    want %s\n", err, bad[i].err);
        CU_ASSERT_STRING_EQUAL(err, bad[i].err);
        scn_free(&scn);
    }
}

uint32_t test_peer_of(const struct graph *g, uint32_t n, uint32_t i)
{
    return g->ports[g->ports[g->nodes[n].first_port + i].peer].node;
}

void test_topology_documented(const char *text, const char *heading)
{
    char err[SCN_ERR_MAX];
    test_load_err(text, err, sizeof err);
    const char *list = strstr(err, "expected one of the fields ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(list);
    list += strlen("expected one of the fields ");
    char *doc = test_read_file("docs/scenario.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *sec = strstr(doc, heading);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    const char *end = strstr(sec + 1, "\n#");
    char documented[SCN_ERR_MAX] = "type";
    for (const char *p = strstr(sec, "\n| `"); p && (!end || p < end); p = strstr(p + 1, "\n| `")) {
        const char *b = p + 4, *e = strchr(b, '`');
        size_t used = strlen(documented);
        snprintf(documented + used, sizeof documented - used, ", %.*s", (int)(e - b), b);
    }
    CU_ASSERT_EQUAL(strncmp(list, documented, strlen(documented)), 0);
    CU_ASSERT_EQUAL(strncmp(list + strlen(documented), ", got", 5), 0);
    if (strncmp(list, documented, strlen(documented)) != 0)
        fprintf(stderr, "\n  table: %s\n  docs:  %s", list, documented);
    free(doc);
}


int test_fuzz_replay(const char *dir, const char *prefix, const char *suffix, int (*one)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (strncmp(e->d_name, prefix, strlen(prefix)) || len < sl || strcmp(e->d_name + len - sl, suffix))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *data = test_read_file(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        CU_ASSERT_EQUAL(one((const uint8_t *)data, len), 0);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

const struct flow *test_flow_named(const struct run *r, const char *name)
{
    for (uint32_t i = 0; i < r->net.n_flows; i++) {
        const struct flow *f = net_flow(&r->net, i);
        if (f->name && strcmp(f->name, name) == 0)
            return f;
    }
    CU_FAIL_FATAL("no such flow");
    return NULL;
}

/* See tests.h. */
void test_build_refused(const char *file, const char *sets, const char *msg)
{
    FILE *fp = fopen(file, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fprintf(fp, "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, \"traffic\": "
            "[{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]}");
    fclose(fp);
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check %s %s; test $? -eq 2", test_rocesim_bin(), file, sets);
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    CU_ASSERT(out && strstr(out, msg));
    if (!out || !strstr(out, msg))
        printf("\n    got: %s", out ? out : "(nothing)");
    free(out);
    remove(file);
}

/* See tests.h. */
char *test_same_each_run_json(const char *file, const char *json)
{
    FILE *fp = fopen(file, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fputs(json, fp);
    fclose(fp);
    char *text = test_same_each_run(file);
    remove(file);
    return text;
}
