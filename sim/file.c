/* file — see file.h. */
#include "sim/file.h"
#include "sim/settings.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK ((size_t)1 << 20)

static int fail(int status, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        scn_one_line(err);
    }
    return status;
}

/* What a file that is not regular is, for the message. */
static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a pipe (FIFO)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISLNK(m))
        return "a symbolic link";
    return "a special file";
}

/*
 * Opens path to read, and fstat's it into *st: returns the descriptor, or -1 with errno set, EISDIR for a
 * directory and ENODEV for any other file that is not regular (st_mode then says what it is; 0 when the
 * open itself failed).
 */
static int open_regular(const char *path, struct stat *st, bool no_link)
{
    st->st_mode = 0;
    /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever, before fstat can refuse it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (no_link ? O_NOFOLLOW : 0));
    if (fd < 0 && no_link && errno == ELOOP && lstat(path, st) == 0 && S_ISLNK(st->st_mode))
        errno = ENODEV; /* st says: a symbolic link */
    if (fd < 0)
        return -1;
    int e = fstat(fd, st) ? errno : S_ISDIR(st->st_mode) ? EISDIR : !S_ISREG(st->st_mode) ? ENODEV : 0;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Newlines in the first n bytes of p. */
static size_t count_lines(const char *p, size_t n)
{
    size_t c = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        c++;
    return c;
}

/* The one message for a NUL byte in a text file: bad input (2), with its line and offset. */
static int nul_byte(char *err, size_t errlen, const char *path, size_t line, size_t at)
{
    return fail(SCN_EUSAGE, err, errlen, "%s: line %zu: expected a text file, got a NUL byte at offset %zu", path,
                line, at);
}

int file_read(const char *path, int mode, char **data, size_t *len, char *err, size_t errlen)
{
    *data = NULL;
    if (len)
        *len = 0;
    struct stat st;
    int fd = open_regular(path, &st, (mode & FILE_NO_LINK) != 0);
    mode &= ~FILE_NO_LINK;
    if (fd < 0 && errno == ENODEV && st.st_mode)
        return fail(SCN_EUSAGE, err, errlen, "%s: expected a regular file, got %s (%s)", path, kind_of(st.st_mode),
                    S_ISLNK(st.st_mode) ? "links are not followed here" : "pipes and devices are not read");
    if (fd < 0)
        return fail(SCN_EIO, err, errlen, "%s: cannot read: %s", path, strerror(errno));
    if (st.st_size > FILE_MAX_BYTES) {
        close(fd);
        return fail(SCN_EIO, err, errlen, "%s: cannot read: %s", path, strerror(EFBIG));
    }
    /*
     * Room for the size fstat gave, one byte more (to see the end without growing) and the NUL; but the first
     * allocation is at most READ_CHUNK, so that a file of zeros costs no more than that before it is refused.
     * The size is only a hint: files under /proc say 0, and a file may grow while it is read.
     */
    size_t want = (size_t)st.st_size + 2, n = 0;
    size_t cap = want < 4096 ? 4096 : want > READ_CHUNK ? READ_CHUNK : want;
    char *buf = malloc(cap);
    int e = buf ? 0 : ENOMEM;
    while (!e) {
        if (n == cap - 1) {
            if (n > (size_t)FILE_MAX_BYTES) {
                e = EFBIG;
                break;
            }
            size_t nc = cap < want ? want : cap * 2;
            if (nc > (size_t)FILE_MAX_BYTES + 2)
                nc = (size_t)FILE_MAX_BYTES + 2;
            char *nb = realloc(buf, nc);
            if (!nb) {
                e = ENOMEM;
                break;
            }
            buf = nb;
            cap = nc;
        }
        /* In pieces, so that a NUL byte ends the read where it is, not after the whole file. */
        size_t room = cap - 1 - n < READ_CHUNK ? cap - 1 - n : READ_CHUNK;
        ssize_t k = read(fd, buf + n, room);
        if (k < 0) {
            if (errno != EINTR)
                e = errno;
            continue;
        }
        if (k == 0)
            break;
        const char *nul = mode == FILE_TEXT ? memchr(buf + n, '\0', (size_t)k) : NULL;
        if (nul) {
            size_t at = (size_t)(nul - buf), line = 1 + count_lines(buf, at);
            free(buf);
            close(fd);
            return nul_byte(err, errlen, path, line, at);
        }
        n += (size_t)k;
    }
    close(fd);
    if (e) {
        free(buf);
        return fail(SCN_EIO, err, errlen, "%s: cannot read: %s", path, strerror(e));
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

/* See file.h.  The file is read once through before it is handed over, a chunk at a time, for a NUL byte: a
 * series is read by lines (getline), which would take a NUL for the end of its line and go on. */
FILE *file_open_stream(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd = open_regular(path, &st, false);
    if (fd < 0) {
        int e = errno;
        fail(SCN_EIO, err, errlen, "%s: cannot read: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    char chunk[16384];
    size_t at = 0, lines = 1;
    int e = 0;
    for (;;) {
        ssize_t k = read(fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            e = k < 0 ? errno : 0;
            break;
        }
        const char *nul = memchr(chunk, '\0', (size_t)k);
        if (nul) {
            nul_byte(err, errlen, path, lines + count_lines(chunk, (size_t)(nul - chunk)), at + (size_t)(nul - chunk));
            e = EILSEQ;
            break;
        }
        lines += count_lines(chunk, (size_t)k);
        at += (size_t)k;
    }
    if (!e && lseek(fd, 0, SEEK_SET) != 0)
        e = errno;
    FILE *f = e || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ? NULL : fdopen(fd, "r");
    if (!f) {
        e = e ? e : errno;
        if (e != EILSEQ)
            fail(SCN_EIO, err, errlen, "%s: cannot read: %s", path, strerror(e));
        close(fd);
        errno = e;
    }
    return f;
}
