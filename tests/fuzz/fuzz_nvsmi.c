/*
 * libFuzzer harness for `rocesim import nvidia-smi-topo` (tools/ops/nvsmi.c).
 *
 * The input is the text of a matrix.  nvsmi_import_text must either refuse it with one line naming the file and a
 * line of it (never crash, leak or read out of bounds: the sanitizers watch that) or accept it; then the
 * description must hold together as topology.server reads it: as many gpu_pcie and nic_pcie entries as GPUs and NICs,
 * each naming a switch, every switch on a socket below "sockets" with a parent before it (or -1) on the same socket:
 * the scenario loader's checks of topology.server, run on it.  A note is one printable line.
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

/* An accepted matrix is a server topology.server takes, as the scenario loader checks it (two of them on a rail of
 * one leaf per rail and one spine), with printable notes. */
static void check_accepted(const cJSON *o, const char *notes)
{
    fuzz_check_notes(notes);
    const cJSON *srv = cJSON_GetObjectItemCaseSensitive(o, "server");
    int gpus = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(srv, "gpu_pcie"));
    char *sj = cJSON_PrintUnformatted(srv);
    size_t len = strlen(sj) + 512;
    char *j = malloc(len);
    if (!j)
        abort();
    snprintf(j, len, "{\"topology\": {\"type\": \"rail\", \"servers\": 2, \"gpus_per_server\": %d, "
             "\"leaves_per_rail\": 1, \"spines\": 1, \"link\": {\"rate\": \"400Gbps\", \"delay\": \"1us\"}, \"server\": %s}, "
             "\"traffic\": [{\"type\": \"flow\", \"src\": \"n0.g0\", \"dst\": \"n1.g0\", \"size\": \"1KB\"}]}",
             gpus, sj);
    fuzz_check_loads(j, "the import, as a server,");
    free(j);
    free(sj);
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
