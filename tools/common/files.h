/*
 * files — how the tools write files: whole or not at all.
 *
 * Every output (a run's, a plot's, a sweep's or a tune's) is written to NAME.tmp.PID and renamed, so a reader
 * never sees a half-written file; a process killed mid-write leaves only such temporaries, which the next
 * command into the directory removes once their writer is gone.  Here, below every application, because the run,
 * its plots, the sweep and tune, compare and the doctor all write this way.
 */
#ifndef TOOLS_FILES_H
#define TOOLS_FILES_H

#include <stddef.h>

/* Writes `len` bytes to path atomically (temporary file + rename).  Returns 0 or -1 (errno set). */
int write_file_atomic(const char *path, const char *data, size_t len);

/* mkdir -p.  Returns 0 or -1 (errno set). */
int make_dirs(const char *path);

/*
 * Removes dir/NAME.tmp.PID for each of names[0..n) when process PID is gone or is not a rocesim (a rocesim
 * that is alive may be writing it).
 */
void remove_stale_tmp(const char *dir, const char *const *names, size_t n);

#endif
