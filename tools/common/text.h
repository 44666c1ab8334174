/*
 * text — the text every tool reads and writes: whole-file reading, a growing string buffer, CSV cells, numbers
 * that read back exactly, a value at a dotted path of a JSON tree, and a command's usage error.  Allocation ends
 * the process on exhaustion (sim/mem.h), as in the rest of tools/: a command can do nothing useful without memory.
 */
#ifndef TOOLS_TEXT_H
#define TOOLS_TEXT_H

#include "sim/settings.h"

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

/*
 * Reads a whole file into *data (with a NUL after its bytes, caller frees) and
 * its length into *len (when not NULL), through file_read (sim/file.h: regular
 * files only, at most FILE_MAX_BYTES).  Returns 0, or SCN_EIO ("PATH: cannot
 * read: REASON") / SCN_EUSAGE (not a regular file) with the message in err
 * (err may be NULL) and *data NULL.
 */
int read_file(const char *path, char **data, size_t *len, char *err, size_t errlen);

/* read_file for a text file: a NUL byte in it is an error (SCN_EUSAGE). */
int read_text_file(const char *path, char **text, char *err, size_t errlen);

/* Each line of notes (an importer's, "\n"-separated) as one "rocesim: note: " line on stderr. */
void print_import_notes(const char *notes);

struct cJSON;
/*
 * The end of an `rocesim import ...`: with rc, the importer's status, not 0, its message err on stderr; else its
 * notes on stderr and scenario o (deleted here) on stdout, or written to out whole or not at all.  Frees notes;
 * returns the command's exit status.
 */
int import_finish(int rc, const char *err, struct cJSON *o, char *notes, const char *out);

/* A malformed input file's message in err: "FILE:LINE: message" (line 0: "FILE: message"), one printable line
 * (scn_one_line); returns SCN_EUSAGE (exit status 2). */
int text_fail_at(char *err, size_t errlen, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int text_vfail_at(char *err, size_t errlen, const char *file, int line, const char *fmt, va_list ap);
/* An imported scenario's name from the file at path: its name without folder and extension, made one that the loader
 * takes as a directory's (UTF-8, at most 63 bytes, control characters and backslashes as '_', not "." or ".."),
 * or `fallback` when nothing is left.  Returns buf. */
const char *text_name_of_file(const char *path, const char *fallback, char *buf, size_t len);
/* A whole unsigned decimal number of at most max, the whole of s (no sign, no trailing text): whether it is one. */
bool text_uint(const char *s, uint64_t max, uint64_t *v);
/* A number from lo to hi (strtod's syntax), the whole of s: whether it is one. */
bool text_num(const char *s, double lo, double hi, double *v);

struct sbuf;
/*
 * An export command's arguments after argv[first] (SCENARIO.json -o DIR, or --help) and its scenario, read: 0 with
 * *file, *dir and *scn (the caller deletes it); -1 when --help was printed (exit status 0); else the exit status of
 * the error said on stderr (a usage error, an unreadable file, no JSON object).
 */
int export_open(int argc, char **argv, int first, const char *usage, const char **file, const char **dir,
                struct cJSON **scn);
/*
 * An export command's end: rc (the export's outcome, with err) said on stderr, or the n files names[i] written from
 * bufs[i] into dir (made if missing), each whole or not at all, then on stdout what they cannot express (the text of
 * unexpressed, a setting a line) or "(everything is expressed)".  Returns the exit status.
 */
int export_finish(int rc, const char *err, const char *file, const char *dir, const char *const *names,
                  struct sbuf *const *bufs, int n, const struct sbuf *unexpressed);

/*
 * A command's usage error: "rocesim WHO: " (or "rocesim: " when who is NULL), fmt with arg, a newline, the
 * command's usage text; returns SCN_EUSAGE (exit status 2).
 */
int usage_error(const char *who, const char *usage, const char *fmt, const char *arg);

/* A growing NUL-terminated string; zero-initialize, append with sb_printf, free(b.p). */
struct sbuf {
    char *p;
    size_t len, cap;
};
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends s as one CSV cell: quoted (with doubled quotes) only when it holds a comma, quote or newline. */
void sb_csv_cell(struct sbuf *b, const char *s);

/* snprintf for names and messages where truncation is acceptable: the scenario loader's setting_strf. */
#define sfmt setting_strf

/* Formats d as the shortest of %.15g / %.17g that reads back exactly (as cJSON prints, setting_fmt_num), a
 * negative zero as 0; returns buf. */
char *fmt_double(double d, char *buf, size_t len);

/*
 * The value at a dotted path ("flows.fct_ns.p99", "collectives.0.completion_ns": a number indexes an
 * array) under root, or NULL.
 */
const struct cJSON *json_at_path(const struct cJSON *root, const char *path);

#endif
