/*
 * libFuzzer harness for `rocesim import nvidia-smi-topo` (tools/ops/nvsmi.c).
 *
 * The input is the text of a matrix.  nvsmi_import_text must either refuse it with one line naming the file and a
 * line of it (never crash, leak or read out of bounds: the sanitizers watch that) or accept it; then the
 * description must hold together as topology.server reads it: as many gpu_pcie and nic_pcie entries as GPUs and NICs,
 * each naming a switch, every switch on a socket below "sockets" with a parent before it (or -1) on the same socket.
 * A note is one printable line.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/ops/nvsmi.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v)) {
        fprintf(stderr, "the description lacks the number %s\n", k);
        abort();
    }
    return v->valueint;
}

/* Every entry of a placement array names a switch. */
static void check_placement(const cJSON *srv, const char *k, int count, int nsw)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(srv, k), *e;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != count) {
        fprintf(stderr, "%s is not an array of %d entries\n", k, count);
        abort();
    }
    cJSON_ArrayForEach(e, a) if (!cJSON_IsNumber(e) || e->valueint < 0 || e->valueint >= nsw) {
        fprintf(stderr, "%s names no switch\n", k);
        abort();
    }
}

static void check_accepted(const cJSON *o, const char *notes)
{
    const cJSON *srv = cJSON_GetObjectItemCaseSensitive(o, "server"), *sws, *sw;
    sws = cJSON_GetObjectItemCaseSensitive(srv, "pcie_switches");
    int gpus = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(srv, "gpu_pcie"));
    int nics = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(srv, "nic_pcie"));
    int sockets = num(srv, "sockets"), i = 0;
    if (!cJSON_IsArray(sws) || gpus < 1 || nics < 0 || sockets < 1) {
        fprintf(stderr, "a description without GPUs, sockets or switches\n");
        abort();
    }
    int nsw = cJSON_GetArraySize(sws);
    cJSON_ArrayForEach(sw, sws) {
        int s = num(sw, "socket"), p = num(sw, "parent");
        if (s < 0 || s >= sockets || p < -1 || p >= i || (p >= 0 && num(cJSON_GetArrayItem(sws, p), "socket") != s)) {
            fprintf(stderr, "switch %d: socket %d, parent %d\n", i, s, p);
            abort();
        }
        i++;
    }
    check_placement(srv, "gpu_pcie", gpus, nsw);
    check_placement(srv, "nic_pcie", nics, nsw);
    for (const char *c = notes; c && *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f) {
            fprintf(stderr, "a note with a control character: %s\n", notes);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = nvsmi_import_text("fuzz.txt", text, "200Gbps", NULL, &o, &notes, err, sizeof err);
    if (rc != 0) {
        /* a refusal says why, on one printable line, naming the file and a line */
        int line = 0;
        if (rc != SCN_EUSAGE || o || sscanf(err, "fuzz.txt:%d:", &line) != 1 || line < 1 || strchr(err, '\n')) {
            fprintf(stderr, "refusal %d without a proper message: \"%s\"\n", rc, err);
            abort();
        }
    } else {
        check_accepted(o, notes.p);
    }
    cJSON_Delete(o);
    free(notes.p);
    free(text);
    return 0;
}
