/*
 * The live view (tools/live/live.h, tools/live/httpd.h): the server's protocol and its refusals, byte-identical results
 * with and without --live, and a real browser (Debian's chromium, driven through chromedriver's WebDriver
 * HTTP interface) on a live run and on a replay: the page loads without console errors, receives frames, and
 * the paused ports in its DOM are those pfc.csv says are paused at that time.  Screenshots are kept in
 * BUILD/test-live/ to look at.
 */
#include "tests/tests.h"

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCN "scenarios/pfc-storm.json"
#define STEP_NS 200000
#define HUGE_REQ 9000 /* past httpd.h's HTTPD_REQ_MAX */ /* the storm (from 100 us) has paused ports by then */

static char out_dir[256];

static const char *test_dir(void)
{
    if (!out_dir[0]) {
        const char *bin = test_rocesim_bin();
        const char *slash = strrchr(bin, '/');
        if (slash && strncmp(bin, "build/", 6) == 0)
            snprintf(out_dir, sizeof out_dir, "%.*s/test-live", (int)(slash - bin), bin);
        else
            snprintf(out_dir, sizeof out_dir, "build/test-live");
        mkdir("build", 0755);
        mkdir(out_dir, 0755);
    }
    return out_dir;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int connect_to(const char *ip, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, ip, &sa.sin_addr);
    struct timeval tv = {30, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        if (k <= 0)
            return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

/* Decodes a chunked body in place; returns its length. */
static size_t unchunk(char *b)
{
    char *in = b, *out = b;
    for (;;) {
        char *end;
        long n = strtol(in, &end, 16);
        char *data = strstr(end, "\r\n");
        if (n <= 0 || !data)
            break;
        memmove(out, data + 2, (size_t)n);
        out += n;
        in = data + 2 + n + 2;
    }
    *out = 0;
    return (size_t)(out - b);
}

/*
 * One HTTP/1.1 request to 127.0.0.1:port (headers: extra lines, each ending in \r\n, or ""); returns the status
 * (-1: no answer) and, in *body when not NULL, the body (caller frees).
 */
static int http(int port, const char *method, const char *path, const char *headers, const char *body, char **out)
{
    if (out)
        *out = NULL;
    int fd = connect_to("127.0.0.1", port);
    if (fd < 0)
        return -1;
    char head[2048];
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%sContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
                     method, path, port, headers, blen, body ? "Content-Type: application/json\r\n" : "");
    if (!send_all(fd, head, (size_t)n) || (blen && !send_all(fd, body, blen))) {
        close(fd);
        return -1;
    }
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    ssize_t k;
    bool chunked = false;
    /* Until the message is whole (Content-Length, or the last chunk): a server may keep the connection. */
    while ((k = recv(fd, buf + len, cap - len - 1, 0)) > 0) {
        len += (size_t)k;
        buf[len] = 0;
        if (cap - len < 4096)
            buf = realloc(buf, cap *= 2);
        char *hend = strstr(buf, "\r\n\r\n");
        if (!hend)
            continue;
        *hend = 0;
        const char *cl = strcasestr(buf, "content-length:");
        chunked = strcasestr(buf, "transfer-encoding: chunked") != NULL;
        *hend = '\r';
        if (cl && len >= (size_t)(hend + 4 - buf) + strtoul(cl + 15, NULL, 10))
            break;
        if (chunked && strstr(hend + 2, "\r\n0\r\n\r\n")) /* from the header's last CRLF: an empty body too */
            break;
    }
    close(fd);
    buf[len] = 0;
    int status = -1;
    sscanf(buf, "HTTP/1.%*d %d", &status);
    char *b = strstr(buf, "\r\n\r\n");
    if (out && b) {
        b += 4;
        memmove(buf, b, strlen(b) + 1);
        if (chunked)
            unchunk(buf);
        *out = buf;
    } else {
        free(buf);
    }
    return status;
}

/* ---- a rocesim child ---- */

struct child {
    pid_t pid;
    int port;
    char err[300];
};

/* Starts `rocesim ARGS` with stderr to a file and waits for the URL it prints; false when none comes. */
static bool spawn(struct child *c, const char *args)
{
    static int spawned;
    snprintf(c->err, sizeof c->err, "%s/stderr-%d-%d.txt", test_dir(), (int)getpid(), ++spawned);
    unlink(c->err);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "exec %s %s 2>%s >/dev/null", test_rocesim_bin(), args, c->err);
    c->pid = fork();
    if (c->pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    for (double t0 = now_s(); now_s() - t0 < 20; nap(0.02)) {
        char *text = test_read_file(c->err, NULL);
        const char *u = text ? strstr(text, "http://127.0.0.1:") : NULL;
        if (u && sscanf(u, "http://127.0.0.1:%d/", &c->port) == 1) {
            free(text);
            return true;
        }
        free(text);
    }
    return false;
}

/* Waits until the child's stderr holds text (the outputs are written before it says the run is over). */
static bool wait_text(const struct child *c, const char *text, double wait)
{
    for (double t0 = now_s(); now_s() - t0 < wait; nap(0.05)) {
        char *all = test_read_file(c->err, NULL);
        bool found = all && strstr(all, text);
        free(all);
        if (found)
            return true;
    }
    return false;
}

/* Sends sig (0: none) and waits for the child; returns its exit status, or -1. */
static int reap(struct child *c, int sig)
{
    if (sig)
        kill(c->pid, sig);
    int st;
    for (double t0 = now_s(); now_s() - t0 < 60; nap(0.02))
        if (waitpid(c->pid, &st, WNOHANG) == c->pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &st, 0);
    return -1;
}

/* ---- the event stream ---- */

struct sse {
    int fd;
    char buf[1 << 20];
    size_t len;
};

static bool sse_open(struct sse *s, int port)
{
    s->len = 0;
    s->fd = connect_to("127.0.0.1", port);
    char req[256];
    int n = snprintf(req, sizeof req, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n\r\n",
                     port);
    return s->fd >= 0 && send_all(s->fd, req, (size_t)n);
}

/* The next frame (caller deletes), or NULL when none comes within `wait` seconds. */
static cJSON *sse_next(struct sse *s, double wait)
{
    for (double t0 = now_s(); now_s() - t0 < wait;) {
        s->buf[s->len] = 0;
        char *d = strstr(s->buf, "data: "), *end = d ? strstr(d, "\n\n") : NULL;
        if (end) {
            *end = 0;
            cJSON *j = cJSON_Parse(d + 6);
            size_t used = (size_t)(end + 2 - s->buf);
            memmove(s->buf, s->buf + used, s->len - used);
            s->len -= used;
            return j;
        }
        struct pollfd p = {s->fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0)
            continue;
        ssize_t k = recv(s->fd, s->buf + s->len, sizeof s->buf - 1 - s->len, 0);
        if (k <= 0)
            return NULL;
        s->len += (size_t)k;
    }
    return NULL;
}

/* Frames until one satisfies t_ns == t (or t < 0: any) and state; NULL when none does within `wait`. */
static cJSON *sse_until(struct sse *s, long long t, const char *state, double wait)
{
    for (double t0 = now_s(); now_s() - t0 < wait;) {
        cJSON *f = sse_next(s, wait - (now_s() - t0));
        if (!f)
            return NULL;
        const cJSON *ft = cJSON_GetObjectItem(f, "t_ns"), *fs = cJSON_GetObjectItem(f, "state");
        if ((t < 0 || (cJSON_IsNumber(ft) && (long long)ft->valuedouble == t)) && cJSON_IsString(fs) &&
            strcmp(fs->valuestring, state) == 0)
            return f;
        cJSON_Delete(f);
    }
    return NULL;
}

/* ---- pfc.csv ---- */

/*
 * The egress (node:port:prio, by name, sorted, space-separated) that pfc.csv says are paused at time t_ns: the
 * latest frame of the peer's (node, port, prio) at or before t is a PAUSE.  topo: the run's topology.json.
 */
static void paused_per_csv(const char *csv_path, const cJSON *topo, long long t_ns, char *out, size_t outlen)
{
    char *csv = test_read_file(csv_path, NULL);
    const cJSON *nodes = cJSON_GetObjectItem(topo, "nodes"), *links = cJSON_GetObjectItem(topo, "links");
    struct { char key[96]; bool paused; } st[512];
    int n = 0;
    char *save = NULL;
    for (char *line = csv ? strtok_r(csv, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        double t;
        char node[64], ev[16];
        int port, prio;
        if (sscanf(line, "%lf,%63[^,],%d,%d,%15s", &t, node, &port, &prio, ev) != 5 || t > (double)t_ns)
            continue;
        /* pfc.csv: the sender's peer, the other end of its link, is paused; credits.csv: the port itself stalls */
        bool credit = strcmp(ev, "stall") == 0 || strcmp(ev, "resume") == 0;
        char key[96] = "";
        if (credit)
            snprintf(key, sizeof key, "%s:%d:%d", node, port, prio);
        const cJSON *l, *walk = credit ? NULL : links;
        cJSON_ArrayForEach(l, walk)
        {
            int a = cJSON_GetObjectItem(l, "a")->valueint, b = cJSON_GetObjectItem(l, "b")->valueint;
            int pa = cJSON_GetObjectItem(l, "pa")->valueint, pb = cJSON_GetObjectItem(l, "pb")->valueint;
            const char *an = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, a), "name")->valuestring;
            const char *bn = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, b), "name")->valuestring;
            if (strcmp(an, node) == 0 && pa == port)
                snprintf(key, sizeof key, "%s:%d:%d", bn, pb, prio);
            else if (strcmp(bn, node) == 0 && pb == port)
                snprintf(key, sizeof key, "%s:%d:%d", an, pa, prio);
        }
        int i = 0;
        while (i < n && strcmp(st[i].key, key))
            i++;
        if (i == n && n < 512)
            snprintf(st[n++].key, sizeof st[0].key, "%s", key);
        if (i < 512)
            st[i].paused = strcmp(ev, "pause") == 0 || strcmp(ev, "stall") == 0;
    }
    free(csv);
    /* sorted, to compare as text */
    qsort(st, (size_t)n, sizeof st[0], (int (*)(const void *, const void *))strcmp);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        if (st[i].paused)
            snprintf(out + strlen(out), outlen - strlen(out), "%s%s", out[0] ? " " : "", st[i].key);
}

/* The same text from a list of [node name, port, prio] triples (strings or numbers). */
static void paused_text(const cJSON *list, char *out, size_t outlen)
{
    char keys[512][96];
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        const cJSON *a = cJSON_GetArrayItem(e, 0), *b = cJSON_GetArrayItem(e, 1), *c = cJSON_GetArrayItem(e, 2);
        if (n < 512)
            snprintf(keys[n++], sizeof keys[0], "%s:%s:%s", a->valuestring, cJSON_IsString(b) ? b->valuestring : "?",
                     cJSON_IsString(c) ? c->valuestring : "?");
    }
    qsort(keys, (size_t)n, sizeof keys[0], (int (*)(const void *, const void *))strcmp);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), outlen - strlen(out), "%s%s", i ? " " : "", keys[i]);
}

/* A frame's paused list ([[node id, port, prio]]) by name, as paused_text gives it. */
static void frame_paused(const cJSON *frame, const cJSON *topo, char *out, size_t outlen)
{
    cJSON *list = cJSON_CreateArray();
    const cJSON *e, *nodes = cJSON_GetObjectItem(topo, "nodes");
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(frame, "paused"))
    {
        char port[16], prio[16];
        snprintf(port, sizeof port, "%d", cJSON_GetArrayItem(e, 1)->valueint);
        snprintf(prio, sizeof prio, "%d", cJSON_GetArrayItem(e, 2)->valueint);
        cJSON *t = cJSON_CreateArray();
        cJSON_AddItemToArray(t, cJSON_CreateString(
                                    cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, cJSON_GetArrayItem(e, 0)->valueint),
                                                        "name")->valuestring));
        cJSON_AddItemToArray(t, cJSON_CreateString(port));
        cJSON_AddItemToArray(t, cJSON_CreateString(prio));
        cJSON_AddItemToArray(list, t);
    }
    paused_text(list, out, outlen);
    cJSON_Delete(list);
}

/* ---- the server, without a browser ---- */

/* The protocol, the refusals, a client that leaves mid-stream, a step to a time, and the pauses it shows. */
static void test_server(void)
{
    char dir[300], args[700];
    snprintf(dir, sizeof dir, "%s/server", test_dir());
    snprintf(args, sizeof args, "run %s -q --no-plot -o %s --live 0 --live-hold both", SCN, dir);
    struct child c;
    CU_ASSERT_FATAL(spawn(&c, args));
    char *body;
    CU_ASSERT_EQUAL(http(c.port, "GET", "/", "", NULL, &body), 200);
    /* the page, whole, and nothing it would fetch from elsewhere */
    CU_ASSERT(body && strstr(body, "<html") && !strstr(body, "src=\"http") && !strstr(body, "href=\"http"));
    free(body);
    CU_ASSERT_EQUAL(http(c.port, "GET", "/topology.json", "", NULL, &body), 200);
    cJSON *topo = cJSON_Parse(body);
    free(body);
    CU_ASSERT_FATAL(topo != NULL);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(topo, "mode")->valuestring, "live");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(topo, "nodes")), 36); /* k = 4 fat-tree: 16 hosts, 20 switches */
    /* Another site's page, and a name that resolves to us but is not ours, are refused. */
    CU_ASSERT_EQUAL(http(c.port, "GET", "/events", "Origin: http://evil.example\r\n", NULL, NULL), 403);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "Origin: http://evil.example\r\n", "resume", NULL), 403);
    int fd = connect_to("127.0.0.1", c.port);
    const char rebind[] = "GET /topology.json HTTP/1.1\r\nHost: evil.example:80\r\n\r\n";
    send_all(fd, rebind, sizeof rebind - 1);
    char resp[64] = "";
    recv(fd, resp, sizeof resp - 1, 0);
    close(fd);
    CU_ASSERT(strncmp(resp, "HTTP/1.1 403", 12) == 0);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "", "jump", &body), 400);
    free(body);
    /* Malformed requests get an answer and a closed connection, never a crash: no Host, a bad request line,
     * headers past the limit. */
    static const char *const bad[] = {"GET / HTTP/1.1\r\n\r\n", "HELLO\r\nHost: 127.0.0.1\r\n\r\n", NULL};
    static const char *const want[] = {"HTTP/1.1 403", "HTTP/1.1 400"};
    for (int k = 0; bad[k]; k++) {
        fd = connect_to("127.0.0.1", c.port);
        send_all(fd, bad[k], strlen(bad[k]));
        memset(resp, 0, sizeof resp);
        recv(fd, resp, sizeof resp - 1, 0);
        close(fd);
        CU_ASSERT(strncmp(resp, want[k], 12) == 0);
    }
    static char huge[HUGE_REQ];
    memset(huge, 'a', sizeof huge - 1);
    memcpy(huge, "GET / HTTP/1.1\r\nX: ", 19);
    fd = connect_to("127.0.0.1", c.port);
    send_all(fd, huge, sizeof huge - 1);
    memset(resp, 0, sizeof resp);
    recv(fd, resp, sizeof resp - 1, 0);
    close(fd);
    CU_ASSERT(strncmp(resp, "HTTP/1.1 413", 12) == 0);
    /* On loopback only: another address of this machine does not answer. */
    struct ifaddrs *ifs, *i;
    if (getifaddrs(&ifs) == 0) {
        for (i = ifs; i; i = i->ifa_next)
            if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
                char ip[64];
                inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, ip, sizeof ip);
                if (strncmp(ip, "127.", 4) == 0)
                    continue;
                int f2 = connect_to(ip, c.port);
                CU_ASSERT(f2 < 0);
                if (f2 >= 0)
                    close(f2);
            }
        freeifaddrs(ifs);
    }
    /* Held at the start; a client that leaves in the middle of the stream does not harm the server. */
    static struct sse s;
    CU_ASSERT_FATAL(sse_open(&s, c.port));
    cJSON *f = sse_until(&s, 0, "waiting", 10);
    CU_ASSERT(f != NULL);
    cJSON_Delete(f);
    struct linger lg = {1, 0};
    setsockopt(s.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg); /* a reset, not a polite close */
    close(s.fd);
    char step[32];
    snprintf(step, sizeof step, "step %d", STEP_NS);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "", step, NULL), 204);
    CU_ASSERT_FATAL(sse_open(&s, c.port));
    f = sse_until(&s, STEP_NS, "paused", 20);
    CU_ASSERT_FATAL(f != NULL);
    char live_paused[4096];
    frame_paused(f, topo, live_paused, sizeof live_paused);
    CU_ASSERT(live_paused[0] != 0);
    CU_ASSERT(cJSON_GetArraySize(cJSON_GetObjectItem(f, "flows")) > 0);
    cJSON_Delete(f);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "", "resume", NULL), 204);
    f = sse_until(&s, -1, "ended", 60);
    CU_ASSERT(f != NULL);
    cJSON_Delete(f);
    close(s.fd);
    CU_ASSERT(wait_text(&c, "the run is over", 60));
    CU_ASSERT_EQUAL(http(c.port, "GET", "/topology.json", "", NULL, NULL), 200); /* held at the end */
    CU_ASSERT_EQUAL(reap(&c, SIGINT), 0);
    char path[400], csv_paused[4096];
    snprintf(path, sizeof path, "%s/pfc.csv", dir);
    paused_per_csv(path, topo, STEP_NS, csv_paused, sizeof csv_paused);
    printf("\n    paused at %d ns: live %s; pfc.csv %s", STEP_NS, live_paused, csv_paused);
    CU_ASSERT_STRING_EQUAL(live_paused, csv_paused);
    cJSON_Delete(topo);
    /* The same run without --live: the same bytes. */
    char plain[300], cmd[900], *diff = NULL;
    snprintf(plain, sizeof plain, "%s/plain", test_dir());
    snprintf(cmd, sizeof cmd, "%s run %s -q --no-plot -o %s > /dev/null 2>&1", test_rocesim_bin(), SCN, plain);
    CU_ASSERT_EQUAL(test_run(cmd, NULL), 0);
    for (const char *const *name = (const char *const[]){"flows.csv", "queues.csv", "rates.csv", "pfc.csv", NULL};
         *name; name++) {
        snprintf(cmd, sizeof cmd, "cmp %s/%s %s/%s", dir, *name, plain, *name);
        CU_ASSERT_EQUAL(test_run(cmd, &diff), 0);
        free(diff);
    }
    snprintf(cmd, sizeof cmd, "diff <(grep -v -e wall_s -e _per_s %s/summary.json) <(grep -v -e wall_s -e _per_s %s/summary.json)",
             dir, plain);
    char sh[1000];
    snprintf(sh, sizeof sh, "bash -c '%s'", cmd);
    CU_ASSERT_EQUAL(test_run(sh, &diff), 0);
    free(diff);
}

/* ---- the browser ---- */

struct wd {
    int port;
    pid_t pid;
    char session[128];
};

static bool have(const char *path) { return access(path, X_OK) == 0; }

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    socklen_t sl = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    close(fd);
    return ntohs(sa.sin_port);
}

/* POSTs (or GETs when body is NULL) to the WebDriver session; returns the reply's "value" (caller deletes). */
static cJSON *wd_call(struct wd *w, const char *method, const char *what, const char *body)
{
    char path[512], *reply;
    snprintf(path, sizeof path, "/session/%s%s", w->session, what);
    http(w->port, method, path, "", body, &reply);
    cJSON *j = reply ? cJSON_Parse(reply) : NULL;
    free(reply);
    cJSON *v = j ? cJSON_DetachItemFromObject(j, "value") : NULL;
    cJSON_Delete(j);
    return v;
}

/* Runs `script` (a function body) in the page; returns its value (caller deletes). */
static cJSON *wd_exec(struct wd *w, const char *script)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "script", script);
    cJSON_AddItemToObject(b, "args", cJSON_CreateArray());
    char *s = cJSON_PrintUnformatted(b);
    cJSON *v = wd_call(w, "POST", "/execute/sync", s);
    free(s);
    cJSON_Delete(b);
    return v;
}

static bool wd_start(struct wd *w)
{
    w->port = free_port();
    char portarg[32];
    snprintf(portarg, sizeof portarg, "--port=%d", w->port);
    w->pid = fork();
    if (w->pid == 0) {
        int null = open("/dev/null", 1);
        dup2(null, 1);
        dup2(null, 2);
        execl("/usr/bin/chromedriver", "chromedriver", portarg, (char *)NULL);
        _exit(127);
    }
    for (double t0 = now_s(); now_s() - t0 < 20; nap(0.05)) {
        char *body;
        if (http(w->port, "GET", "/status", "", NULL, &body) == 200 && body && strstr(body, "\"ready\":true")) {
            free(body);
            break;
        }
        free(body);
    }
    char *reply;
    const char caps[] = "{\"capabilities\":{\"alwaysMatch\":{\"browserName\":\"chrome\",\"goog:chromeOptions\":"
                        "{\"binary\":\"/usr/bin/chromium\",\"args\":[\"--headless=new\",\"--no-sandbox\","
                        "\"--disable-gpu\",\"--disable-dev-shm-usage\",\"--window-size=1400,900\"]},"
                        "\"goog:loggingPrefs\":{\"browser\":\"ALL\"}}}}";
    http(w->port, "POST", "/session", "", caps, &reply);
    cJSON *j = reply ? cJSON_Parse(reply) : NULL;
    const cJSON *id = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "value"), "sessionId");
    bool ok = cJSON_IsString(id);
    if (ok)
        snprintf(w->session, sizeof w->session, "%s", id->valuestring);
    else
        printf("\n    chromedriver did not start a session: %.300s", reply ? reply : "(no answer)");
    cJSON_Delete(j);
    free(reply);
    return ok;
}

static void wd_stop(struct wd *w)
{
    if (w->session[0])
        cJSON_Delete(wd_call(w, "DELETE", "", NULL));
    kill(w->pid, SIGTERM);
    waitpid(w->pid, NULL, 0);
}

static void wd_go(struct wd *w, int port)
{
    char body[128];
    snprintf(body, sizeof body, "{\"url\":\"http://127.0.0.1:%d/\"}", port);
    cJSON_Delete(wd_call(w, "POST", "/url", body));
}

/* Polls the page until `cond` (a JS expression) is true; false after `wait` seconds. */
static bool wd_wait(struct wd *w, const char *cond, double wait)
{
    char script[512];
    snprintf(script, sizeof script, "return !!(%s);", cond);
    for (double t0 = now_s(); now_s() - t0 < wait; nap(0.1)) {
        cJSON *v = wd_exec(w, script);
        bool ok = cJSON_IsTrue(v);
        cJSON_Delete(v);
        if (ok)
            return true;
    }
    return false;
}

static const char dom_paused[] =
    "return [...document.querySelectorAll('.paused')].map(e => [e.dataset.node, e.dataset.port, e.dataset.prio]);";

/* Saves a screenshot to BUILD/test-live/NAME. */
static void wd_shot(struct wd *w, const char *name)
{
    cJSON *v = wd_call(w, "GET", "/screenshot", NULL);
    CU_ASSERT_FATAL(cJSON_IsString(v));
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *s = v->valuestring;
    size_t n = strlen(s), o = 0;
    unsigned char *png = malloc(n);
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        const char *p = strchr(b64, s[i]);
        if (!p)
            continue;
        acc = acc << 6 | (unsigned)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            png[o++] = (unsigned char)(acc >> bits);
        }
    }
    char path[400];
    snprintf(path, sizeof path, "%s/%s", test_dir(), name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(png, 1, o, f);
    fclose(f);
    free(png);
    cJSON_Delete(v);
    CU_ASSERT(o > 10000); /* a real picture, not an empty page */
    printf("\n    screenshot: %s", path);
}

/* The browser's console: every SEVERE entry (an error) fails the test. */
static void wd_no_errors(struct wd *w)
{
    cJSON *v = wd_call(w, "POST", "/se/log", "{\"type\":\"browser\"}");
    const cJSON *e;
    int severe = 0;
    cJSON_ArrayForEach(e, v)
    {
        const cJSON *lvl = cJSON_GetObjectItem(e, "level"), *msg = cJSON_GetObjectItem(e, "message");
        if (cJSON_IsString(lvl) && strcmp(lvl->valuestring, "SEVERE") == 0) {
            printf("\n    browser console: %s", cJSON_IsString(msg) ? msg->valuestring : "?");
            severe++;
        }
    }
    CU_ASSERT(cJSON_IsArray(v));
    CU_ASSERT_EQUAL(severe, 0);
    cJSON_Delete(v);
}

/* Chromium on a live run of scenario scn (stepped to step_ns) and on its replay: no console error, frames received,
 * and the paused ports in the DOM are those of series (pfc.csv, or credits.csv: the ports stalled for credit) at
 * that time.  Screenshots NAME-live.png and NAME-replay.png. */
static void browser_case(const char *scn, int step_ns, const char *series, const char *name)
{
    if (!have("/usr/bin/chromium") || !have("/usr/bin/chromedriver")) {
        printf("\n    SKIPPED: no /usr/bin/chromium or /usr/bin/chromedriver (make deps-browser installs them)");
        return;
    }
    char dir[300], args[700], shot[64];
    snprintf(dir, sizeof dir, "%s/%s", test_dir(), name);
    snprintf(args, sizeof args, "run %s -q --no-plot -o %s --live 0 --live-hold both", scn, dir);
    struct child c;
    CU_ASSERT_FATAL(spawn(&c, args));
    struct wd w = {0};
    if (!wd_start(&w)) {
        CU_FAIL("chromedriver: no session");
        wd_stop(&w);
        reap(&c, SIGKILL);
        return;
    }
    char *body;
    http(c.port, "GET", "/topology.json", "", NULL, &body);
    cJSON *topo = cJSON_Parse(body);
    free(body);
    wd_go(&w, c.port);
    CU_ASSERT(wd_wait(&w, "document.body.dataset.state === 'waiting'", 20));
    char step[32], cond[128];
    snprintf(step, sizeof step, "step %d", step_ns);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "", step, NULL), 204);
    snprintf(cond, sizeof cond, "document.body.dataset.tNs === '%d' && document.body.dataset.state === 'paused'",
             step_ns);
    CU_ASSERT(wd_wait(&w, cond, 30));
    CU_ASSERT(wd_wait(&w, "+document.body.dataset.frames >= 2", 10));
    cJSON *dom = wd_exec(&w, dom_paused);
    char live_dom[4096];
    paused_text(dom, live_dom, sizeof live_dom);
    cJSON_Delete(dom);
    snprintf(shot, sizeof shot, "%s-live.png", name);
    wd_shot(&w, shot);
    CU_ASSERT_EQUAL(http(c.port, "POST", "/control", "", "resume", NULL), 204);
    CU_ASSERT(wd_wait(&w, "document.body.dataset.state === 'ended'", 60));
    wd_no_errors(&w);
    CU_ASSERT(wait_text(&c, "the run is over", 60));
    CU_ASSERT_EQUAL(reap(&c, SIGINT), 0);
    char path[400], csv[4096];
    snprintf(path, sizeof path, "%s/%s", dir, series);
    paused_per_csv(path, topo, step_ns, csv, sizeof csv);
    printf("\n    paused at %d ns: page %s; %s %s", step_ns, live_dom, series, csv);
    CU_ASSERT(csv[0] != 0);
    CU_ASSERT_STRING_EQUAL(live_dom, csv);

    /* The replay of the same run, at the same time. */
    snprintf(args, sizeof args, "view %s --live 0", dir);
    CU_ASSERT_FATAL(spawn(&c, args));
    wd_go(&w, c.port);
    CU_ASSERT(wd_wait(&w, "typeof window.rocesimSeek === 'function' && document.body.dataset.state === 'replay'",
                      20));
    char seek[256];
    snprintf(seek, sizeof seek, "window.rocesimSeek(%d); %s", step_ns, dom_paused);
    dom = wd_exec(&w, seek);
    char replay_dom[4096];
    paused_text(dom, replay_dom, sizeof replay_dom);
    cJSON_Delete(dom);
    printf("\n    replay at %d ns: page %s", step_ns, replay_dom);
    CU_ASSERT_STRING_EQUAL(replay_dom, csv);
    snprintf(shot, sizeof shot, "%s-replay.png", name);
    wd_shot(&w, shot);
    wd_no_errors(&w);
    CU_ASSERT_EQUAL(reap(&c, SIGINT), 0);
    wd_stop(&w);
    cJSON_Delete(topo);
}

static void test_browser(void) { browser_case(SCN, STEP_NS, "pfc.csv", "browser"); }

/* InfiniBand: 16 senders into one port stall for credit in turn; the marks are the stalled senders' (credits.csv). */
static void test_browser_ib(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/ib-incast.json", test_dir());
    test_write_text(path, "{\"name\": \"ib-incast\", \"stop\": \"2ms\", \"fabric\": \"infiniband\", \"topology\": "
                          "{\"type\": \"star\", \"hosts\": 17, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, "
                          "\"host\": {\"mtu\": 4096, \"cc\": \"none\"}, \"traffic\": [{\"type\": \"incast\", "
                          "\"senders\": \"h0-h15\", \"receiver\": \"h16\", \"size\": \"1MB\"}]}");
    browser_case(path, 300000, "credits.csv", "browser-ib");
}

/* A replay of a run that followed no flow (monitor.flows "none": rates.csv has its header only) serves its
 * topology with no flows. */
static void test_replay_without_flows(void)
{
    char dir[300], cmd[800], args[400];
    snprintf(dir, sizeof dir, "%s/noflows", test_dir());
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json -q --no-plot --stop 50us --set monitor.flows=none -o %s"
             " > /dev/null 2>&1", test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(args, sizeof args, "view %s --live 0", dir);
    struct child c;
    CU_ASSERT_FATAL(spawn(&c, args));
    char *body;
    CU_ASSERT_EQUAL(http(c.port, "GET", "/topology.json", "", NULL, &body), 200);
    cJSON *topo = cJSON_Parse(body);
    free(body);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(topo, "flows")), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(topo, "mode")->valuestring, "replay");
    cJSON_Delete(topo);
    CU_ASSERT_EQUAL(reap(&c, SIGINT), 0);
}

/* The status of one request to 127.0.0.1:port carrying Host `host` and the extra header lines `headers`, or -1; the
 * body, when out is not NULL, in *out (caller frees). */
static int http_as(int port, const char *host, const char *method, const char *path, const char *headers,
                   const char *body, char **out)
{
    if (out)
        *out = NULL;
    int fd = connect_to("127.0.0.1", port);
    if (fd < 0)
        return -1;
    char req[1024], resp[8192];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %zu\r\n\r\n%s", method, path,
                     host, headers, body ? strlen(body) : 0, body ? body : "");
    send_all(fd, req, (size_t)n);
    size_t len = 0;
    ssize_t k;
    while (len < sizeof resp - 1 && (k = recv(fd, resp + len, sizeof resp - 1 - len, 0)) > 0)
        len += (size_t)k;
    close(fd);
    resp[len] = 0;
    int status = -1;
    sscanf(resp, "HTTP/1.%*d %d", &status);
    const char *b = strstr(resp, "\r\n\r\n");
    if (out)
        *out = strdup(b ? b + 4 : "");
    return status;
}

/*
 * Bound to every interface (0.0.0.0), the server still answers only a Host that names this machine by address (or
 * localhost) with its port: a page whose own name was made to resolve here (DNS rebinding) can neither read the
 * replay nor drive a live run.  A replay serves the run's own files, never what a link of that name points to.
 */
static void test_any_address(void)
{
    char dir[300], cmd[900], args[600], path[400], other[400];
    snprintf(dir, sizeof dir, "%s/anyaddr", test_dir());
    snprintf(cmd, sizeof cmd, "%s run scenarios/dumbbell.json -q --no-plot --stop 50us -o %s > /dev/null 2>&1",
             test_rocesim_bin(), dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd, NULL), 0);
    snprintf(other, sizeof other, "%s/not-the-runs.txt", test_dir());
    test_write_text(other, "node,secret\nnot,served\n");
    snprintf(path, sizeof path, "%s/rates.csv", dir);
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(symlink(other, path), 0);
    snprintf(args, sizeof args, "view %s --live 0.0.0.0:0", dir);
    struct child c;
    CU_ASSERT_FATAL(spawn(&c, args));
    char host[96], *body;
    static const char *const names[] = {"evil.example", "127.0.0.1.evil.example", "localhost.evil.example",
                                        "0x7f000001", "", "[::1]", NULL};
    for (int k = 0; names[k]; k++) {
        snprintf(host, sizeof host, "%s:%d", names[k], c.port);
        CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/topology.json", "", NULL, NULL), 403);
    }
    static const char *const ok[] = {"127.0.0.1", "localhost", "10.1.2.3", NULL};
    for (int k = 0; ok[k]; k++) {
        snprintf(host, sizeof host, "%s:%d", ok[k], c.port);
        CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/topology.json", "", NULL, NULL), 200);
    }
    snprintf(host, sizeof host, "127.0.0.1:%d", c.port + 1);
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/topology.json", "", NULL, NULL), 403);
    CU_ASSERT_EQUAL(http_as(c.port, "127.0.0.1", "GET", "/topology.json", "", NULL, NULL), 403);
    /* the link named rates.csv is refused, with a line on stderr; the run's own pfc.csv is served */
    snprintf(host, sizeof host, "127.0.0.1:%d", c.port);
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/files/rates.csv", "", NULL, &body), 403);
    CU_ASSERT_PTR_NULL(body ? strstr(body, "secret") : "no body");
    free(body);
    CU_ASSERT(wait_text(&c, "rocesim: view: refused /files/rates.csv (403)", 10));
    CU_ASSERT(wait_text(&c, "expected a regular file, got a symbolic link", 1));
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/files/pfc.csv", "", NULL, &body), 200);
    CU_ASSERT(body && strncmp(body, "time_ns,", 8) == 0);
    free(body);
    /* a file the run does not have (no storms, no watchdog.csv) is 404; one that is there but cannot be read is
     * 500, with the reason on stderr (it was a 404 too, as if the run had none) */
    snprintf(path, sizeof path, "%s/watchdog.csv", dir);
    rmdir(path); /* what a session stopped before its end left: a run does not remove it */
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/files/watchdog.csv", "", NULL, NULL), 404);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/files/watchdog.csv", "", NULL, NULL), 500);
    char want[600];
    snprintf(want, sizeof want, "rocesim: view: cannot serve /files/watchdog.csv (500): %s: cannot read: Is a directory",
             path);
    CU_ASSERT(wait_text(&c, want, 10));
    CU_ASSERT_EQUAL(rmdir(path), 0);
    CU_ASSERT_EQUAL(reap(&c, SIGINT), 0);

    /* a live run held at its start: the rebinding page's Resume is refused, the user's is obeyed */
    snprintf(args, sizeof args, "run scenarios/dumbbell.json -q --no-plot --stop 50us -o %s/anylive "
             "--live 0.0.0.0:0 --live-hold start", test_dir());
    CU_ASSERT_FATAL(spawn(&c, args));
    snprintf(host, sizeof host, "evil.example:%d", c.port);
    char origin[128];
    snprintf(origin, sizeof origin, "Origin: http://evil.example:%d\r\n", c.port);
    CU_ASSERT_EQUAL(http_as(c.port, host, "POST", "/control", origin, "resume", NULL), 403);
    CU_ASSERT_EQUAL(http_as(c.port, host, "GET", "/events", "", NULL, NULL), 403);
    snprintf(host, sizeof host, "127.0.0.1:%d", c.port);
    /* a page of another site, even one that names this address */
    CU_ASSERT_EQUAL(http_as(c.port, host, "POST", "/control", "Origin: http://evil.example\r\n", "resume", NULL), 403);
    nap(0.3);
    CU_ASSERT_EQUAL(waitpid(c.pid, NULL, WNOHANG), 0); /* still held */
    CU_ASSERT_EQUAL(http_as(c.port, host, "POST", "/control", "", "resume", NULL), 204);
    CU_ASSERT_EQUAL(reap(&c, 0), 0);
}

void test_live_register(void)
{
    CU_pSuite s = CU_add_suite("live", NULL, NULL);
    CU_add_test(s, "server: page, topology, refusals, a client leaving, a step, pauses = pfc.csv's, same bytes",
                test_server);
    CU_add_test(s, "replay of a run that followed no flow", test_replay_without_flows);
    CU_add_test(s, "bound to 0.0.0.0: a foreign Host refused; a replay serves no symbolic link", test_any_address);
    CU_add_test(s, "chromium: live run and replay, no console error, DOM pauses = pfc.csv's, screenshots",
                test_browser);
    CU_add_test(s, "chromium on InfiniBand: DOM stalls = credits.csv's, live and replayed", test_browser_ib);
}
