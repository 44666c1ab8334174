/*
 * What the libFuzzer harnesses of text inputs share: the input bound and the input as a C string.
 */
#ifndef ROCESIM_FUZZ_H
#define ROCESIM_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
