/* contention — a partitioned run's threads and the machine's other processes (see contention.h). */
#include "sim/contention.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void contention_policy_init(struct contention_policy *p)
{
    *p = (struct contention_policy){.backoff = CONTENTION_BACKOFF_MIN};
}

static void go_serial(struct contention_policy *p, double now)
{
    p->serial = true;
    p->trial = false;
    p->high = 0;
    p->until = now + p->backoff;
    p->switches++;
}

bool contention_policy_reading(struct contention_policy *p, double now, double share)
{
    if (p->serial)
        return true;
    bool high = share >= CONTENTION_HIGH;
    if (p->trial) {
        /* the trial's first reading: the cores are taken still (try later, and later), or free again */
        p->trial = false;
        if (high) {
            p->backoff = p->backoff * 2 < CONTENTION_BACKOFF_MAX ? p->backoff * 2 : CONTENTION_BACKOFF_MAX;
            go_serial(p, now);
        } else {
            p->backoff = CONTENTION_BACKOFF_MIN;
        }
        return p->serial;
    }
    /* a high reading may be a burst of the machine's own work; several in a row are another process */
    p->high = high ? p->high + 1 : 0;
    if (p->high >= CONTENTION_RUN)
        go_serial(p, now);
    return p->serial;
}

bool contention_policy_retry(struct contention_policy *p, double now, double idle_cores)
{
    if (!p->serial || now < p->until)
        return false;
    if (idle_cores >= 0 && idle_cores < CONTENTION_IDLE_MIN) {
        p->until = now + CONTENTION_IDLE_RECHECK;
        return false;
    }
    p->serial = false;
    p->trial = true;
    p->high = 0;
    return true;
}

/* A /proc file's text from its start, NUL-terminated; false when it cannot be read. */
static bool read_text(int fd, char *buf, size_t size)
{
    ssize_t got = pread(fd, buf, size - 1, 0);
    if (got <= 0)
        return false;
    buf[got] = '\0';
    return true;
}

/* The second field of a schedstat file: ns spent runnable, waiting for a core. */
static bool read_waited(int fd, uint64_t *ns)
{
    char buf[128];
    if (!read_text(fd, buf, sizeof buf))
        return false;
    unsigned long long run, wait;
    if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return false;
    *ns = wait;
    return true;
}

static bool read_all(struct contention *c, uint64_t *ns)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        uint64_t w;
        if (!read_waited(c->fd[i], &w))
            return false;
        sum += w;
    }
    *ns = sum;
    return true;
}

void contention_open(struct contention *c, const pid_t *tids, uint32_t n, double now)
{
    *c = (struct contention){.n = 0, .at = now};
    for (uint32_t i = 0; i < n && i < CONTENTION_MAX_THREADS; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)tids[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            c->broken = true;
            break;
        }
        c->fd[c->n++] = fd;
    }
    if (!c->broken && (n > CONTENTION_MAX_THREADS || !read_all(c, &c->waited_ns)))
        c->broken = true;
}

double contention_read(struct contention *c, double now)
{
    uint64_t ns;
    if (c->broken || !read_all(c, &ns)) {
        c->broken = true;
        return -1;
    }
    double span = (now - c->at) * c->n;
    double share = span > 0 && ns > c->waited_ns ? (double)(ns - c->waited_ns) * 1e-9 / span : 0;
    c->waited_ns = ns;
    c->at = now;
    return share > 1 ? 1 : share;
}

void contention_close(struct contention *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        close(c->fd[i]);
    c->n = 0;
}

/* Idle and iowait of /proc/stat's "cpu" line, all cores together. */
static bool read_idle(int fd, uint64_t *ticks)
{
    char buf[256];
    if (!read_text(fd, buf, sizeof buf))
        return false;
    unsigned long long user, nice, sys, idle, iowait;
    if (strncmp(buf, "cpu ", 4) || sscanf(buf + 4, "%llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait) != 5)
        return false;
    *ticks = idle + iowait;
    return true;
}

void machine_idle_open(struct machine_idle *m, double now)
{
    long hz = sysconf(_SC_CLK_TCK);
    *m = (struct machine_idle){.fd = open("/proc/stat", O_RDONLY | O_CLOEXEC), .at = now, .hz = (double)hz};
    m->ok = m->fd >= 0 && hz > 0 && read_idle(m->fd, &m->ticks);
    if (!m->ok && m->fd >= 0)
        close(m->fd);
}

double machine_idle_read(struct machine_idle *m, double now)
{
    uint64_t ticks;
    if (!m->ok || !read_idle(m->fd, &ticks))
        return -1;
    double span = now - m->at;
    double idle = span > 0 && ticks >= m->ticks ? (double)(ticks - m->ticks) / m->hz / span : -1;
    m->ticks = ticks;
    m->at = now;
    return idle;
}

void machine_idle_close(struct machine_idle *m)
{
    if (m->ok)
        close(m->fd);
    m->ok = false;
}
