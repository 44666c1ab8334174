/*
 * sweep_util — small helpers shared by the sweep runner, its outputs and
 * nic-config: allocation that ends the process on exhaustion (sim/mem.h, as
 * the rest of tools/ does: a sweep cannot do anything useful without memory), whole-file
 * reading, a growing string buffer, JSON comment stripping and number
 * formatting that reads back exactly.
 */
#ifndef TOOLS_SWEEP_UTIL_H
#define TOOLS_SWEEP_UTIL_H

#include "sim/settings.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* What the sweep and nic-config tools name when an allocation fails (sim/mem.h, mem_xmalloc and the like). */
#define SWEEP_OOM "in sweep or nic-config"

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

/* A copy of JSON text with // and block comments blanked out (newlines kept).  Caller frees. */
char *strip_json_comments(const char *text);

/* A sweep or tune file's JSON: read_text_file, strip_json_comments, then the scenario loader's rules for JSON
 * text (scn_parse_json).  Returns 0 with *root (the caller deletes it), or the error status with the message. */
int read_spec_json(const char *file, struct cJSON **root, char *err, size_t errlen);

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


/* True when s is a dotted path of [A-Za-z0-9_-] components, none empty ("switch.ecn.kmin"). */
bool dotted_path_ok(const char *s);

/*
 * Finds a file named in an input file (a sweep's or a tune file's scenario): as written when absolute, else
 * next to c->file, else from the current directory.  Returns 0 with the usable path in out, or SCN_EUSAGE
 * with the message (at JSON path field) in c.
 */
int resolve_input_file(struct setting_ctx *c, const char *field, const char *given, char *out, size_t outlen);

/* Reads an array of distinct seeds (integers 0..2^64 - 1, read exactly: scn_json_seed) at where into *out
 * (malloc'd, *n of them); returns 0 or SCN_EUSAGE with the message in c (*out may then be allocated: the caller
 * frees it). */
int parse_seed_list(struct setting_ctx *c, const struct cJSON *seeds, const char *where, uint64_t **out, int *n);

#endif
