/*
 * file — the one way rocesim reads an input file whole: scenarios, sweep files
 * and their scenario, size CDFs, a sweep's best.json (nic-config --from), and
 * the summaries and templates the tools read back.
 *
 * Every such read is bounded: a file larger than FILE_MAX_BYTES is refused
 * before it is read ("cannot read: File too large"), and only regular files are
 * read, so a device (/dev/zero), a pipe or a FIFO can neither exhaust memory
 * nor block the program.  Text is checked for NUL bytes as it arrives.
 */
#ifndef SIM_FILE_H
#define SIM_FILE_H

#include <stddef.h>
#include <stdio.h>

/* No input is this large: the biggest scenario a machine could simulate is a few MB of JSON. */
#define FILE_MAX_BYTES (64L << 20)

enum file_mode {
    FILE_TEXT,  /* a NUL byte is an error, reported at its offset */
    FILE_BYTES, /* any bytes */
    FILE_NO_LINK = 4, /* or'ed in: a symbolic link (as the last part of path) is refused, not followed: a file
                       * served to others must be the directory's own (rocesim view) */
};

/*
 * Reads the regular file at path into *data (a NUL after its bytes; caller
 * frees) and its length into *len when len is not NULL.  Returns 0, or, with
 * *data NULL and one line in err (err may be NULL):
 *   SCN_EIO (3): "PATH: cannot read: REASON" (missing, unreadable, a directory,
 *                larger than FILE_MAX_BYTES: "File too large");
 *   SCN_EUSAGE (2): "PATH: expected a regular file, got a pipe (FIFO)" and the
 *                like (with FILE_NO_LINK, "got a symbolic link"), or "PATH:
 *                line N: expected a text file, got a NUL byte at offset M".
 * mode: FILE_TEXT or FILE_BYTES, with FILE_NO_LINK or'ed in or not.
 */
int file_read(const char *path, int mode, char **data, size_t *len, char *err, size_t errlen);

/*
 * Opens the regular text file at path to be read as a stream (a run's own series, which may be larger than
 * FILE_MAX_BYTES and are read a line at a time).  Returns NULL with errno set and one line in err (err may be
 * NULL) when it cannot: ENODEV when the path is a pipe, a device or another file that is not regular (never
 * blocks on a FIFO); EILSEQ when it holds a NUL byte, bad input like file_read's ("PATH: line N: expected a
 * text file, got a NUL byte at offset M").
 */
FILE *file_open_stream(const char *path, char *err, size_t errlen);

#endif
