/*
 * httpd — see httpd.h.  HTTP/1.1 as RFC 9112 frames a message (request line, header fields, a blank line, a
 * body of Content-Length bytes), answered once and closed; event streams as the HTML standard's
 * "Server-sent events" section defines them.
 */
#include "tools/live/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
    struct httpd *h;
    int fd;
    ev_io rio, wio;
    char in[HTTPD_REQ_MAX + 1];
    size_t in_len;
    char *out;
    size_t out_len, out_off, out_cap;
    bool sse;        /* an event stream: stays open */
    bool done;       /* the answer is queued: close once it is sent */
    struct conn *next;
};

struct httpd {
    struct ev_loop *loop;
    int lfd;
    ev_io accept_w;
    ev_async wake_w, stop_w;
    ev_timer grace_w;
    pthread_t thr;
    bool stopping;
    char addr[64];
    int port;
    bool any_host; /* bound to 0.0.0.0: every address of the machine is its (host_ok) */
    httpd_handler fn;
    void *ctx;
    struct conn *conns;
    int n_sse;
    /* Shared with the threads that broadcast. */
    pthread_mutex_t mu;
    char *pend;          /* event-stream messages not yet handed to the clients */
    size_t pend_len, pend_cap;
    char *last;          /* the latest message, for a client that connects later */
    size_t last_len, last_cap;
};

static bool grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return false;
    *buf = p;
    *cap = c;
    return true;
}

bool httpd_parse_addr(const char *s, char *addr, size_t addrlen, int *port, char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':'), *p = colon ? colon + 1 : s;
    char host[64];
    if (colon) {
        size_t n = (size_t)(colon - s);
        if (n == 0 || n >= sizeof host) {
            snprintf(err, errlen, "expected [ADDR:]PORT, like 8600 or 127.0.0.1:8600, got \"%s\"", s);
            return false;
        }
        memcpy(host, s, n);
        host[n] = 0;
        if (strcmp(host, "localhost") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        struct in_addr a;
        if (inet_pton(AF_INET, host, &a) != 1) {
            snprintf(err, errlen, "\"%s\" is not an IPv4 address (like 127.0.0.1 or 0.0.0.0) or localhost", host);
            return false;
        }
    } else {
        snprintf(host, sizeof host, "127.0.0.1");
    }
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (!*p || *end || errno || v < 0 || v > 65535) {
        snprintf(err, errlen, "expected a port number 0..65535 in \"%s\"", s);
        return false;
    }
    snprintf(addr, addrlen, "%s", host);
    *port = (int)v;
    return true;
}

void httpd_url(const struct httpd *h, char *buf, size_t len)
{
    snprintf(buf, len, "http://%s:%d/", h->any_host ? "127.0.0.1" : h->addr, h->port);
}

static void conn_free(struct conn *c)
{
    struct httpd *h = c->h;
    ev_io_stop(h->loop, &c->rio);
    ev_io_stop(h->loop, &c->wio);
    close(c->fd);
    for (struct conn **pp = &h->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (c->sse)
        __atomic_sub_fetch(&h->n_sse, 1, __ATOMIC_RELAXED);
    free(c->out);
    free(c);
}

static bool all_sent(const struct httpd *h)
{
    for (const struct conn *c = h->conns; c; c = c->next)
        if (c->out_off < c->out_len)
            return false;
    return true;
}

static void flush(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ev_io_start(c->h->loop, &c->wio);
            return;
        }
        if (n <= 0) { /* the client went away */
            conn_free(c);
            return;
        }
        c->out_off += (size_t)n;
    }
    c->out_off = c->out_len = 0;
    ev_io_stop(c->h->loop, &c->wio);
    struct httpd *h = c->h;
    if (c->done && !c->sse)
        conn_free(c);
    if (h->stopping && all_sent(h))
        ev_break(h->loop, EVBREAK_ALL);
}

/* Appends to c's output; false when it cannot (no memory, or an event stream over its backlog). */
static bool queue(struct conn *c, const char *s, size_t n)
{
    if (c->sse && c->out_len - c->out_off + n > HTTPD_SSE_BACKLOG)
        return false;
    if (!grow(&c->out, &c->out_cap, c->out_len + n))
        return false;
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
    return true;
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Error";
    }
}

static void answer(struct conn *c, int status, const char *type, const char *body, size_t len)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                     status, reason(status), type ? type : "text/plain; charset=utf-8", len);
    c->done = true;
    ev_io_stop(c->h->loop, &c->rio);
    if (!queue(c, head, (size_t)n) || (len && !queue(c, body, len))) {
        conn_free(c);
        return;
    }
    flush(c);
}

static void answer_text(struct conn *c, int status, const char *msg)
{
    answer(c, status, "text/plain; charset=utf-8", msg, strlen(msg));
}

/* The value of header `name` in the header block hdr (lines after the request line), copied into out. */
static bool header(const char *hdr, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    for (const char *line = hdr; line && *line; line = strstr(line, "\r\n") ? strstr(line, "\r\n") + 2 : NULL) {
        if (line[0] == '\r')
            break;
        if (strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1, *e = strstr(v, "\r\n");
            while (*v == ' ' || *v == '\t')
                v++;
            size_t n = e ? (size_t)(e - v) : strlen(v);
            while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
                n--;
            if (n >= outlen)
                return false;
            memcpy(out, v, n);
            out[n] = 0;
            return true;
        }
    }
    return false;
}

/*
 * Whether Host names this server (docs/live.md, "Running it"): "NAME:PORT" with the port it listens on, NAME being
 * the address it is bound to, "localhost" when that is a loopback address, or, bound to every interface
 * (0.0.0.0), localhost or any IPv4 address (the listener is IPv4 only: no IPv6 address reaches it).  No other
 * name, whatever the bind: a page of another site can make its own name resolve to this machine (DNS rebinding)
 * and the browser then sends that name, whereas it sends an address only when it connected to that very address,
 * which reaches this server only if it is this machine's (or forwarded to it).
 */
static bool host_ok(const struct httpd *h, const char *host)
{
    const char *colon = strrchr(host, ':');
    if (!colon || colon == host || (size_t)(colon - host) >= 64)
        return false;
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || errno || port != h->port)
        return false;
    char name[64];
    size_t n = (size_t)(colon - host);
    memcpy(name, host, n);
    name[n] = 0;
    if (strcmp(name, "localhost") == 0)
        return h->any_host || strncmp(h->addr, "127.", 4) == 0;
    if (!h->any_host)
        return strcmp(name, h->addr) == 0;
    struct in_addr a4;
    return inet_pton(AF_INET, name, &a4) == 1;
}

static void handle(struct conn *c, char *hdr_end)
{
    struct httpd *h = c->h;
    *hdr_end = 0; /* the header block ends here; the body follows the blank line */
    struct httpd_req req = {0};
    char version[16];
    if (sscanf(c->in, "%7s %511s %15s", req.method, req.path, version) != 3 || strncmp(version, "HTTP/1.", 7)) {
        answer_text(c, 400, "bad request line\n");
        return;
    }
    char *q = strchr(req.path, '?');
    if (q)
        *q = 0;
    const char *hdrs = strstr(c->in, "\r\n");
    hdrs = hdrs ? hdrs + 2 : "";
    char host[256], origin[300], want[300];
    if (!header(hdrs, "Host", host, sizeof host) || !host_ok(h, host)) {
        answer_text(c, 403, "forbidden: the Host header does not name this server\n");
        return;
    }
    snprintf(want, sizeof want, "http://%s", host);
    if (header(hdrs, "Origin", origin, sizeof origin) && strcmp(origin, want) != 0) {
        answer_text(c, 403, "forbidden: requests from another origin are refused\n");
        return;
    }
    req.body = hdr_end + 4;
    req.body_len = c->in_len - (size_t)(req.body - c->in);
    c->in[c->in_len] = 0;
    struct httpd_resp resp = {.status = 404};
    h->fn(h->ctx, &req, &resp);
    if (resp.status == 0) {
        static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                                   "X-Content-Type-Options: nosniff\r\n\r\nretry: 1000\n\n";
        c->sse = true;
        __atomic_add_fetch(&h->n_sse, 1, __ATOMIC_RELAXED);
        bool ok = queue(c, head, sizeof head - 1);
        pthread_mutex_lock(&h->mu);
        if (ok && h->last_len)
            ok = queue(c, h->last, h->last_len);
        pthread_mutex_unlock(&h->mu);
        if (!ok) {
            conn_free(c);
            return;
        }
        flush(c);
        return;
    }
    answer(c, resp.status, resp.type, resp.body, resp.body ? resp.len : 0);
    free(resp.owned);
}

static void on_read(struct ev_loop *loop, ev_io *w, int revents)
{
    struct conn *c = w->data;
    if (c->sse || c->done) {
        /* An event-stream client sends nothing more: a read of 0 is its leaving. */
        char sink[512];
        ssize_t n = recv(c->fd, sink, sizeof sink, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            conn_free(c);
        return;
    }
    ssize_t n = recv(c->fd, c->in + c->in_len, HTTPD_REQ_MAX - c->in_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        conn_free(c);
        return;
    }
    c->in_len += (size_t)n;
    c->in[c->in_len] = 0;
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end) {
        if (c->in_len >= HTTPD_REQ_MAX)
            answer_text(c, 413, "request too large\n");
        return;
    }
    char cl[32];
    *end = 0;
    long want = header(c->in, "Content-Length", cl, sizeof cl) ? strtol(cl, NULL, 10) : 0;
    *end = '\r';
    if (want < 0 || (size_t)want > HTTPD_REQ_MAX - (size_t)(end + 4 - c->in)) {
        answer_text(c, 413, "request too large\n");
        return;
    }
    if (c->in_len - (size_t)(end + 4 - c->in) < (size_t)want)
        return; /* the body is still coming */
    c->in_len = (size_t)(end + 4 - c->in) + (size_t)want;
    handle(c, end);
}

static void on_write(struct ev_loop *loop, ev_io *w, int revents) { flush(w->data); }

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    struct httpd *h = w->data;
    for (;;) {
        int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->h = h;
        c->fd = fd;
        ev_io_init(&c->rio, on_read, fd, EV_READ);
        ev_io_init(&c->wio, on_write, fd, EV_WRITE);
        c->rio.data = c->wio.data = c;
        c->next = h->conns;
        h->conns = c;
        ev_io_start(loop, &c->rio);
    }
}

/* Hands the pending messages to every event-stream client. */
static void on_wake(struct ev_loop *loop, ev_async *w, int revents)
{
    struct httpd *h = w->data;
    pthread_mutex_lock(&h->mu);
    char *msg = h->pend;
    size_t len = h->pend_len;
    h->pend = NULL;
    h->pend_len = h->pend_cap = 0;
    pthread_mutex_unlock(&h->mu);
    if (!len) {
        free(msg);
        return;
    }
    struct conn *next;
    for (struct conn *c = h->conns; c; c = next) {
        next = c->next;
        if (c->sse && queue(c, msg, len))
            flush(c);
    }
    free(msg);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents) { ev_break(loop, EVBREAK_ALL); }

static void on_stop(struct ev_loop *loop, ev_async *w, int revents)
{
    struct httpd *h = w->data;
    on_wake(loop, &h->wake_w, 0);
    h->stopping = true;
    ev_io_stop(loop, &h->accept_w);
    if (all_sent(h)) {
        ev_break(loop, EVBREAK_ALL);
        return;
    }
    ev_timer_init(&h->grace_w, on_grace, 1.0, 0);
    h->grace_w.data = h;
    ev_timer_start(loop, &h->grace_w);
}

static void *serve(void *arg)
{
    struct httpd *h = arg;
    ev_run(h->loop, 0);
    return NULL;
}

struct httpd *httpd_start(const char *addr, int port, httpd_handler fn, void *ctx, char *err, size_t errlen)
{
    struct httpd *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(h->addr, sizeof h->addr, "%s", addr);
    h->any_host = strcmp(addr, "0.0.0.0") == 0;
    h->fn = fn;
    h->ctx = ctx;
    h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1;
    if (h->lfd < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1 ||
        setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(h->lfd, (struct sockaddr *)&sa, sizeof sa) || listen(h->lfd, 64)) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", addr, port, strerror(errno));
        if (h->lfd >= 0)
            close(h->lfd);
        free(h);
        return NULL;
    }
    socklen_t sl = sizeof sa;
    getsockname(h->lfd, (struct sockaddr *)&sa, &sl);
    h->port = ntohs(sa.sin_port);
    pthread_mutex_init(&h->mu, NULL);
    h->loop = ev_loop_new(EVFLAG_AUTO);
    ev_io_init(&h->accept_w, on_accept, h->lfd, EV_READ);
    ev_async_init(&h->wake_w, on_wake);
    ev_async_init(&h->stop_w, on_stop);
    h->accept_w.data = h->wake_w.data = h->stop_w.data = h;
    ev_io_start(h->loop, &h->accept_w);
    ev_async_start(h->loop, &h->wake_w);
    ev_async_start(h->loop, &h->stop_w);
    if (pthread_create(&h->thr, NULL, serve, h)) {
        snprintf(err, errlen, "cannot start the server's thread");
        ev_loop_destroy(h->loop);
        close(h->lfd);
        pthread_mutex_destroy(&h->mu);
        free(h);
        return NULL;
    }
    return h;
}

void httpd_broadcast(struct httpd *h, const char *event, const char *data, size_t len)
{
    size_t n = strlen(event) + len + 16;
    pthread_mutex_lock(&h->mu);
    /* A server too busy to take the messages keeps only the newest: each is a whole state. */
    if (h->pend_len + n > HTTPD_SSE_BACKLOG)
        h->pend_len = 0;
    if (grow(&h->pend, &h->pend_cap, h->pend_len + n) && grow(&h->last, &h->last_cap, n)) {
        int k = snprintf(h->last, n, "event: %s\ndata: ", event);
        memcpy(h->last + k, data, len);
        memcpy(h->last + k + len, "\n\n", 2);
        h->last_len = (size_t)k + len + 2;
        memcpy(h->pend + h->pend_len, h->last, h->last_len);
        h->pend_len += h->last_len;
    }
    pthread_mutex_unlock(&h->mu);
    ev_async_send(h->loop, &h->wake_w);
}

int httpd_clients(struct httpd *h)
{
    return __atomic_load_n(&h->n_sse, __ATOMIC_RELAXED);
}

void httpd_stop(struct httpd *h)
{
    if (!h)
        return;
    ev_async_send(h->loop, &h->stop_w);
    pthread_join(h->thr, NULL);
    while (h->conns)
        conn_free(h->conns);
    ev_loop_destroy(h->loop);
    close(h->lfd);
    pthread_mutex_destroy(&h->mu);
    free(h->pend);
    free(h->last);
    free(h);
}
