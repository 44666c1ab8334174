/*
 * dirlock — one command at a time in an output directory.
 *
 * `rocesim run`, `sweep` and `tune` each hold DIR/.rocesim.lock, an advisory
 * flock(2) lock, for the whole command: a second command into the same -o is
 * refused before it writes anything there, so the first one's files are never
 * mixed with another's.  flock rather than a pid file: the kernel drops the
 * lock when its process dies however it dies (SIGKILL, a crash, the OOM
 * killer), so no stale lock is ever left to clear by hand; the file itself may
 * stay (the holder writes its pid and command line into it, for the refusal
 * message) and is taken over by the next command.
 *
 * Only the process that writes the directory locks it: rank 0 of `rocesim-mpi
 * run`, rank 0 of an MPI sweep or tune.  A sweep's or tune's runs write into
 * DIR/runs/NAME, a directory of their own, and lock that one, not DIR.
 */
#ifndef TOOLS_DIRLOCK_H
#define TOOLS_DIRLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The lock file's name inside the directory. */
#define DIRLOCK_NAME ".rocesim.lock"

struct dirlock {
    int fd;              /* -1: not held */
    char path[4200];
    char made[4200];     /* the outermost directory dirlock_take created for it, "" when dir existed */
    bool unlocked;       /* taken without a lock (no flock): the release still removes the directories made */
};

/*
 * Creates dir (and its parents) and takes its lock, without waiting.  Returns 0 (held until dirlock_release or
 * the process's end); SCN_EUSAGE when another process holds it, with "DIR: output directory in use by ..." in
 * err (its pid and command line when it wrote them); SCN_EIO when dir or the lock file cannot be created, with
 * the reason in err.  A file system without flock (some network mounts) gives no lock: 0, and a note on stderr;
 * the lock file is not left there, and the release still removes the directories made when they are empty.
 */
int dirlock_take(struct dirlock *l, const char *dir, char *err, size_t errlen);

/* Removes the lock file and releases the lock; nothing when none is held.  A directory dirlock_take created that
 * is still empty then (the command failed before writing anything) is removed too: nothing is left behind. */
void dirlock_release(struct dirlock *l);

#endif
