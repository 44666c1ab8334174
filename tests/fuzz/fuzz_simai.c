/*
 * libFuzzer harness for the workload files of format "simai" (models/traffic_workload.c, wl_simai_read;
 * docs/scenario.md, traffic.workload).
 *
 * The input is a file's text.  The reader must either refuse it with one printable line "fuzz.txt:LINE: ..." (never
 * crash, leak, overflow or read out of bounds: the sanitizers watch that) or accept it: then it has at least one
 * rank and one layer, and no more ranks than a header may give.
 */
#include "tests/fuzz/fuzz.h"
#include "models/workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    char err[1024] = "";
    int gpus = 0, layers = 0, line = 0;
    if (wl_simai_read("fuzz.txt", text, &gpus, &layers, err, sizeof err)) {
        if (sscanf(err, "fuzz.txt:%d:", &line) != 1 || line < 1 || !fuzz_one_line(err)) {
            fprintf(stderr, "a refusal without a proper message: \"%s\"\n", err);
            abort();
        }
    } else if (gpus < 1 || gpus > 1000000 || layers < 1) {
        fprintf(stderr, "accepted with %d ranks and %d layers\n", gpus, layers);
        abort();
    }
    free(text);
    return 0;
}
