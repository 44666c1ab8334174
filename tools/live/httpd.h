/*
 * httpd — the small HTTP/1.1 server behind the live view (tools/live/live.h): libev on a thread of its own, so it
 * answers while the simulation runs, one request per connection (Connection: close), and Server-Sent Events
 * (the HTML living standard, "Server-sent events": text/event-stream, "event:" and "data:" lines, a blank line
 * per message) to any number of clients.
 *
 * It serves whoever may see the simulation and no one else: it listens on 127.0.0.1 unless given an address,
 * and it answers 403 to any request whose Host does not name this server by its address (or localhost) and its
 * port, on any bind, 0.0.0.0 included (a page of another site that resolves its own name to this machine, "DNS
 * rebinding", sends its name), or whose Origin is another site's (a page elsewhere that fetches or posts to it).  A client that stops reading is not waited for: a message it has not taken
 * is dropped for it once it holds HTTPD_SSE_BACKLOG bytes, and one that disconnects is forgotten.
 */
#ifndef TOOLS_HTTPD_H
#define TOOLS_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

#define HTTPD_REQ_MAX 8192          /* request line, headers and body */
#define HTTPD_SSE_BACKLOG (4 << 20) /* bytes a slow event-stream client may have pending */

struct httpd;

struct httpd_req {
    char method[8];
    char path[512];   /* without the query */
    const char *body; /* NUL-terminated */
    size_t body_len;
};

struct httpd_resp {
    int status;               /* 200, 204, 400, 404, ...; 0: make this connection an event stream */
    const char *type;         /* Content-Type */
    const char *body;         /* may be NULL */
    size_t len;
    char *owned;              /* freed after sending (the handler's malloc'd body), or NULL */
};

/* Called on the server's thread, for every request that passed the Host and Origin checks. */
typedef void (*httpd_handler)(void *ctx, const struct httpd_req *req, struct httpd_resp *resp);

/*
 * Parses "[ADDR:]PORT" (ADDR an IPv4 address or "localhost"; PORT 0..65535, 0: the system picks one) into
 * addr (127.0.0.1 when absent) and port; false, with a message in err, when it is not one.
 */
bool httpd_parse_addr(const char *s, char *addr, size_t addrlen, int *port, char *err, size_t errlen);

/* Listens on addr:port and starts the server's thread; NULL, with a message in err, when it cannot. */
struct httpd *httpd_start(const char *addr, int port, httpd_handler fn, void *ctx, char *err, size_t errlen);

/* The address and port it listens on (the port the system picked for 0), for the URL. */
void httpd_url(const struct httpd *h, char *buf, size_t len);

/* Queues one event-stream message (event `event`, one data line: no newline in data) to every client of the
 * stream; callable from any thread. */
void httpd_broadcast(struct httpd *h, const char *event, const char *data, size_t len);

/* Event-stream clients connected now. */
int httpd_clients(struct httpd *h);

/* Sends what is pending (for at most a second), closes every connection, stops the thread, frees. */
void httpd_stop(struct httpd *h);

#endif
