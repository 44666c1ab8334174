/* dirlock — one command at a time in an output directory (see dirlock.h). */
#include "tools/common/dirlock.h"
#include "tools/common/files.h"
#include "sim/scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHO_MAX 400 /* bytes of the holder's pid and command line kept in the lock file */

/* "PID\nARGV joined by spaces\n" of this process, for the message of a command it refuses. */
static size_t who_am_i(char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%ld\n", (long)getpid());
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t k = read(fd, buf + n, len - n - 2);
        close(fd);
        for (ssize_t i = 0; i < k; i++) {
            char *c = &buf[n + (size_t)i];
            if (*c == '\0')
                *c = ' ';
            else if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        }
        n += k > 0 ? (size_t)k : 0;
        while (n > 0 && buf[n - 1] == ' ')
            n--;
    }
    buf[n++] = '\n';
    buf[n] = '\0';
    return n;
}

/* The refusal, with what the holder wrote into the lock file (it may not have written it yet). */
static void describe_holder(int fd, const char *dir, char *err, size_t errlen)
{
    char buf[WHO_MAX + 1];
    ssize_t k = pread(fd, buf, WHO_MAX, 0);
    buf[k > 0 ? k : 0] = '\0';
    char *nl = strchr(buf, '\n');
    long pid = nl ? strtol(buf, NULL, 10) : 0;
    char *cmd = nl ? nl + 1 : NULL;
    if (cmd && (nl = strchr(cmd, '\n')))
        *nl = '\0';
    if (pid > 0 && cmd && *cmd)
        snprintf(err, errlen, "%s: output directory in use by another rocesim (pid %ld: %s); wait for it to end, or "
                              "give another -o", dir, pid, cmd);
    else
        snprintf(err, errlen, "%s: output directory in use by another rocesim; wait for it to end, or give another -o",
                 dir);
}

/* The outermost directory of dir (itself or an ancestor) that does not exist yet, into made; "" when dir exists. */
static void first_missing(const char *dir, char *made, size_t len)
{
    made[0] = '\0';
    char p[4200];
    snprintf(p, sizeof p, "%s", dir);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    while (n > 0 && access(p, F_OK) != 0) {
        snprintf(made, len, "%s", p);
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            break;
        *slash = '\0';
        n = strlen(p);
    }
}

/* Before dir is made (again): what is missing now joins what was made for it before, the outermost of the two (both
 * are dir or its ancestors), so that the release removes what this command made however often it made it. */
static void note_missing(const char *dir, char *made, size_t len)
{
    char now[sizeof ((struct dirlock *)0)->made];
    first_missing(dir, now, sizeof now);
    if (now[0] && (!made[0] || strlen(now) < strlen(made)))
        snprintf(made, len, "%s", now);
}

/* See dirlock.h. */
int dirlock_take(struct dirlock *l, const char *dir, char *err, size_t errlen)
{
    l->fd = -1;
    l->unlocked = false;
    l->made[0] = '\0';
    note_missing(dir, l->made, sizeof l->made);
    if (make_dirs(dir)) {
        snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
        return SCN_EIO;
    }
    snprintf(l->path, sizeof l->path, "%s/%s", dir, DIRLOCK_NAME);
    /* The holder removes the file as it releases the lock: a lock won on a file no longer at the path is no
     * lock on the directory, so open the path again (a few times at most: each retry means a holder just left). */
    for (int tries = 0; tries < 64; tries++) {
        /* O_EXCL first, to know whether the file is this command's to remove when it cannot be locked. */
        int fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        bool created = fd >= 0;
        if (fd < 0 && errno == EEXIST)
            fd = open(l->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        /* A holder that failed before writing anything removes the directory it made as it leaves: make it again. */
        if (fd < 0 && errno == ENOENT) {
            note_missing(dir, l->made, sizeof l->made);
            if (make_dirs(dir) == 0)
                continue;
        }
        if (fd < 0) {
            snprintf(err, errlen, "%s: cannot create: %s", l->path, strerror(errno));
            return SCN_EIO;
        }
        int locked;
        while ((locked = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
            ;
        if (locked) {
            int e = errno;
            if (e == EWOULDBLOCK) {
                describe_holder(fd, dir, err, errlen);
                close(fd);
                return SCN_EUSAGE;
            }
            close(fd);
            /* No lock, so no file: one left would only look like a lock.  Another's file stays: it may be locked
             * from a machine where flock works. */
            if (created)
                unlink(l->path);
            l->unlocked = true;
            fprintf(stderr, "rocesim: %s: cannot lock (%s): a second command into this directory would not be "
                            "refused\n", l->path, strerror(e));
            return 0;
        }
        struct stat a, b;
        if (fstat(fd, &a) || stat(l->path, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
            close(fd);
            continue;
        }
        char who[WHO_MAX + 2];
        size_t n = who_am_i(who, sizeof who);
        /* Only for the message of a refused command: a failure to write it costs nothing else. */
        if (ftruncate(fd, 0) == 0 && pwrite(fd, who, n, 0) < 0)
            (void)0;
        l->fd = fd;
        return 0;
    }
    snprintf(err, errlen, "%s: output directory in use: its lock file keeps changing hands", dir);
    return SCN_EUSAGE;
}

/* See dirlock.h. */
void dirlock_release(struct dirlock *l)
{
    if (l->fd < 0 && !l->unlocked)
        return;
    if (l->fd >= 0) {
        struct stat a, b;
        /* Removed while the lock is held, so that nobody holds a lock on it; only if it is still the file locked. */
        if (fstat(l->fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            unlink(l->path);
        close(l->fd);
        l->fd = -1;
    }
    l->unlocked = false;
    /* From dir up to the outermost directory made for it, each only while empty (rmdir refuses any other). */
    char p[4200];
    snprintf(p, sizeof p, "%.*s", (int)(strlen(l->path) - strlen("/" DIRLOCK_NAME)), l->path);
    for (size_t n = strlen(p); n > 1 && p[n - 1] == '/';)
        p[--n] = '\0';
    while (l->made[0] && rmdir(p) == 0 && strcmp(p, l->made) != 0) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            break;
        *slash = '\0';
    }
}
