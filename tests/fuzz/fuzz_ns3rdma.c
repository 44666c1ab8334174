/*
 * libFuzzer harness for `rocesim import ns3-rdma` (tools/ops/ns3rdma_import.c, docs/ns3-rdma.md).
 *
 * The input is the three files of a run of the HPCC paper's simulator:
 *
 *     TEXT OF THE CONFIG
 *     %%topology
 *     TEXT OF THE TOPOLOGY FILE
 *     %%flows
 *     TEXT OF THE FLOW FILE
 *
 * written to a directory of the process's own and imported with both files named (as --topology and --flows do).
 * ns3rdma_import must either refuse with one printable line (status 2) or give a scenario that rocesim loads (the
 * scenario loader's checks, as `rocesim run` makes them) with printable notes.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/common/text.h"
#include "tools/ops/ns3rdma.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Cuts text at the first line equal to mark (without its newline); returns what follows it, or "" without one. */
static char *cut_at(char *text, const char *mark)
{
    size_t n = strlen(mark);
    for (char *l = text; l;) {
        if (!strncmp(l, mark, n) && (l[n] == '\n' || !l[n])) {
            char *rest = l[n] ? l + n + 1 : l + n;
            *l = '\0';
            return rest;
        }
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
    return text + strlen(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    char *t = cut_at(text, "%%topology");
    char *f = cut_at(t, "%%flows");
    struct fuzz_files files;
    fuzz_files_open(&files, "ns3");
    const char *config = fuzz_file(&files, "config.txt", text), *topo = fuzz_file(&files, "topology.txt", t),
               *flows = fuzz_file(&files, "flow.txt", f);

    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = ns3rdma_import(config, topo, flows, &o, &notes, err, sizeof err);
    if (rc != 0) {
        if (rc != SCN_EUSAGE || o || !fuzz_one_line(err)) {
            fprintf(stderr, "refusal %d without a proper message: \"%s\"\n", rc, err);
            abort();
        }
    } else {
        fuzz_check_notes(notes.p);
        char *j = cJSON_PrintUnformatted(o);
        fuzz_check_loads(j, "the import");
        free(j);
    }
    cJSON_Delete(o);
    free(notes.p);
    free(text);
    fuzz_files_remove(&files);
    return 0;
}
