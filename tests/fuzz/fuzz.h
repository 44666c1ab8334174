/*
 * What the libFuzzer harnesses of text inputs share: the input bound and the input as a C string, what a refusal
 * and an import must be, and files for readers that take paths.
 */
#ifndef ROCESIM_FUZZ_H
#define ROCESIM_FUZZ_H

#include "sim/scenario.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger inputs are refused (returned -1, kept out of the corpus): the parsers' costs grow with the text, and
 * nothing a user writes by hand is this long. */
#define FUZZ_MAX_INPUT 16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string the caller frees, or NULL when it is over FUZZ_MAX_INPUT. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return NULL;
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* A refusal's message: one non-empty line of printable characters (no byte below 0x20, no 0x7f). */
static inline bool fuzz_one_line(const char *msg)
{
    if (!msg || !*msg)
        return false;
    for (const char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return false;
    return true;
}

/* An importer's notes: printable lines only. */
static inline void fuzz_check_notes(const char *notes)
{
    for (const char *c = notes; c && *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f) {
            fprintf(stderr, "a note with a control character: %s\n", notes);
            abort();
        }
}

/* A scenario an importer gave, as JSON text: it must load as `rocesim run` loads it (the loader's checks), else the
 * harness stops with the loader's message and the text; `what` names the import in the message. */
static inline void fuzz_check_loads(const char *json, const char *what)
{
    char err[SCN_ERR_MAX];
    struct scenario s;
    if (scn_load_text("imported.json", json, NULL, 0, &s, err, sizeof err) != SCN_OK) {
        fprintf(stderr, "%s does not load: %s\n%s\n", what, err, json);
        abort();
    }
    scn_free(&s);
}

/*
 * An input's files, for a reader that takes paths: a directory of this process's own, /tmp/rocesim-fuzz-NAME-PID,
 * and up to FUZZ_FILES files in it, each written whole (a harness that cannot write stops: its own failure, not the
 * reader's).  fuzz_files_remove takes them away after the input: the processes that run a harness (libFuzzer at
 * its end, the test runner's workers) end without running exit handlers.
 */
#define FUZZ_FILES 4
struct fuzz_files {
    char dir[64];
    char path[FUZZ_FILES][128];
    int n;
};

static inline void fuzz_files_open(struct fuzz_files *f, const char *name)
{
    f->n = 0;
    snprintf(f->dir, sizeof f->dir, "/tmp/rocesim-fuzz-%s-%d", name, (int)getpid());
    if (mkdir(f->dir, 0700) && errno != EEXIST) {
        fprintf(stderr, "fuzzing: cannot make %s\n", f->dir);
        abort();
    }
}

/* Writes text as the file `name` of f; returns its path. */
static inline const char *fuzz_file(struct fuzz_files *f, const char *name, const char *text)
{
    if (f->n == FUZZ_FILES)
        abort();
    char *path = f->path[f->n++];
    size_t d = strlen(f->dir); /* below sizeof f->path[0] */
    memcpy(path, f->dir, d);
    snprintf(path + d, sizeof f->path[0] - d, "/%s", name);
    FILE *out = fopen(path, "w");
    size_t len = strlen(text);
    if (!out || fwrite(text, 1, len, out) != len || fclose(out)) {
        fprintf(stderr, "fuzzing: cannot write %s\n", path);
        abort();
    }
    return path;
}

static inline void fuzz_files_remove(struct fuzz_files *f)
{
    for (int i = 0; i < f->n; i++)
        remove(f->path[i]);
    rmdir(f->dir);
}

#endif
