/*
 * libFuzzer harness for `rocesim import uet-htsim` and `export uet-htsim` (tools/ops/htsim_*.c, docs/uet.md).
 *
 * The input is a command line and the files it names:
 *
 *     OPTIONS                  (one line: htsim_uec's options after "-tm fuzz.cm", split on spaces)
 *     TEXT OF fuzz.cm          (the connection matrix)
 *     %%topo                   (optional: what follows is the text of the file -topo names)
 *     TEXT OF THE .topo
 *
 * htsim_import_texts must either refuse with one printable line (status 2: a bad option, or a file and its line)
 * or give a scenario that rocesim loads (the scenario loader's checks, as `rocesim run` makes them) with printable
 * notes.  An accepted import with flows must export again (htsim_export), and the matrix it writes must read back
 * with as many connections as the scenario has flows: the round trip the documentation promises.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/common/text.h"
#include "tools/ops/htsim.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s\n", what, detail ? detail : "(none)");
    abort();
}

/* The accepted scenario loads, and exports back to a matrix of as many connections as it has flows. */
static void check_accepted(const cJSON *o, const char *notes)
{
    fuzz_check_notes(notes);
    char *text = cJSON_PrintUnformatted(o), err[SCN_ERR_MAX];
    fuzz_check_loads(text, "the import");
    free(text);

    int flows = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "traffic"));
    struct sbuf cm = {0}, topo = {0}, cmdline = {0}, unexpressed = {0};
    struct htsim_export x = {.cm = &cm, .topo = &topo, .cmdline = &cmdline, .unexpressed = &unexpressed};
    int rc = htsim_export(o, "fuzz", &x, err, sizeof err);
    if (rc != 0 && flows > 0)
        fail("an imported scenario with flows does not export", err);
    if (rc == 0) {
        struct htsim_cm back = {0};
        char *cm_text = cm.p ? cm.p : (char[]){""};
        if (htsim_cm_parse("fuzz.cm", cm_text, &back, err, sizeof err) != 0)
            fail("the exported matrix does not read back", err);
        if (back.n_conns != (size_t)flows) {
            fprintf(stderr, "%d flows exported as %zu connections\n", flows, back.n_conns);
            abort();
        }
        htsim_cm_free(&back);
    }
    free(cm.p);
    free(topo.p);
    free(cmdline.p);
    free(unexpressed.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    /* the options line, the matrix, and after a line "%%topo" the .topo */
    char *cm_text = strchr(text, '\n');
    cm_text = cm_text ? (*cm_text = '\0', cm_text + 1) : text + size;
    char *topo_text = NULL;
    if (!strncmp(cm_text, "%%topo\n", 7)) {
        topo_text = cm_text + 7;
        cm_text = (char[]){""};
    } else {
        char *sep = strstr(cm_text, "\n%%topo\n");
        if (sep) {
            sep[1] = '\0';
            topo_text = sep + 8;
        }
    }
    char *argv[MAX_ARGS + 2] = {"-tm", "fuzz.cm"};
    int argc = 2;
    for (char *w = strtok(text, " "); w && argc < MAX_ARGS; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;

    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = htsim_import_texts(argc, argv, cm_text, topo_text, &o, &notes, err, sizeof err);
    if (rc != 0) {
        if (rc != 2 || o) {
            fprintf(stderr, "import status %d (expected 0 or 2): \"%s\"\n", rc, err);
            abort();
        }
        if (!fuzz_one_line(err))
            fail("a refusal message not on one printable line", err);
    } else {
        check_accepted(o, notes.p);
    }
    cJSON_Delete(o);
    free(notes.p);
    free(text);
    return 0;
}
