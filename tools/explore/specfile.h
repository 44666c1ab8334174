/*
 * specfile — what reading a sweep file and a tune file share: JSON with comments, read by the scenario loader's
 * rules, dotted paths into the scenario, the scenario file named relative to the file, and a list of seeds.
 */
#ifndef TOOLS_SPECFILE_H
#define TOOLS_SPECFILE_H

#include "sim/settings.h"

#include <stdbool.h>
#include <stdint.h>

struct cJSON;

/* A copy of JSON text with // and block comments blanked out (newlines kept).  Caller frees. */
char *strip_json_comments(const char *text);

/* A sweep or tune file's JSON: read_text_file, strip_json_comments, then the scenario loader's rules for JSON
 * text (scn_parse_json).  Returns 0 with *root (the caller deletes it), or the error status with the message. */
int read_spec_json(const char *file, struct cJSON **root, char *err, size_t errlen);

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
