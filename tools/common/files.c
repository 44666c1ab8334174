/* files — the tools' file writing (see files.h). */
#include "tools/common/files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int make_dirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0777) && errno != EEXIST)
        return -1;
    return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    int e = ferror(f);
    if (fclose(f) || w != len || e) {
        int saved = errno;
        unlink(tmp);
        errno = saved ? saved : EIO;
        return -1;
    }
    if (rename(tmp, path)) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Whether the temporary file of process pid is left over: pid gone, or now some other program's. */
static bool tmp_owner_gone(long pid)
{
    /* Our own id: nothing is written before the directory is claimed, so it was an earlier process's. */
    if (pid <= 0 || pid > INT_MAX || pid == (long)getpid())
        return true;
    if (kill((pid_t)pid, 0) && errno == ESRCH)
        return true;
    /* Alive: a rocesim (same executable, a sweep's runs included) may be writing it now; any other program
     * only reuses the id of a dead run. */
    char link[64], a[4096], b[4096];
    snprintf(link, sizeof link, "/proc/%ld/exe", pid);
    ssize_t la = readlink(link, a, sizeof a);
    ssize_t lb = readlink("/proc/self/exe", b, sizeof b);
    if (la < 0 || lb < 0)
        return false; /* cannot tell: leave it */
    return la != lb || memcmp(a, b, (size_t)la) != 0;
}

void remove_stale_tmp(const char *dir, const char *const *names, size_t n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(names[i]);
            const char *rest = e->d_name + l;
            if (strncmp(e->d_name, names[i], l) != 0 || strncmp(rest, ".tmp.", 5) != 0)
                continue;
            rest += 5;
            if (!*rest || strspn(rest, "0123456789") != strlen(rest) || strlen(rest) > 10)
                break;
            if (tmp_owner_gone(atol(rest))) {
                char path[4400];
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
            break;
        }
    }
    closedir(d);
}
