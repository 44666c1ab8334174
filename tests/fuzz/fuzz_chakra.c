/*
 * libFuzzer harness for the Chakra execution-trace reader (models/workload_chakra.c, ck_parse).
 *
 * The input is a trace file's bytes.  ck_parse must either refuse it with one line naming the file and the node
 * or byte (never crash, leak or read out of bounds: the sanitizers watch that) or accept it: then every
 * dependency it resolved names a node of the trace.
 */
#include "tests/fuzz/fuzz.h"
#include "models/workload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ck_trace *t = NULL;
    char err[1024];
    err[0] = 0;
    if (ck_parse("fuzz.et", data, size, &t, err, sizeof err)) {
        if (t || strncmp(err, "fuzz.et: ", 9) || strchr(err, '\n'))
            abort();
        return 0;
    }
    if (!t)
        abort();
    ck_trace_free(t);
    return 0;
}
