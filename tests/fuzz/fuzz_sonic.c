/*
 * libFuzzer harness for `rocesim import sonic` (tools/ops/sonic.c).
 *
 * The input is config_db.json text, optionally after one line "--ports MAP".  sonic_import_text must either refuse
 * it with one line naming the file or the argument (never crash, leak or read out of bounds: the sanitizers watch
 * that) or accept it; then what it prints is meant to be pasted into a scenario, so its switch object and profiles
 * must load as a scenario's (placeholder selectors "SWITCH:<port>" taken as port s0:0) and, without --ports, build
 * as a star's switch.  A note is one printable line.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/run/run.h"
#include "tools/ops/sonic.h"
#include "tools/common/text.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scenario a user would paste the import into: a star of two hosts with its switch and profiles. */
static char *pasted(const cJSON *imp)
{
    cJSON *sc = cJSON_Parse("{\"name\": \"imported\", \"stop\": \"10s\", "
                            "\"topology\": {\"type\": \"star\", \"hosts\": 2, "
                            "\"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}}, "
                            "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": "
                            "\"1KB\"}]}");
    if (!sc)
        abort();
    cJSON_AddItemToObject(sc, "switch", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(imp, "switch"), 1));
    cJSON *profs = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(imp, "profiles"), 1), *p;
    cJSON_ArrayForEach(p, profs) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "match");
        if (cJSON_IsString(m) && strncmp(m->valuestring, "SWITCH:", 7) == 0)
            cJSON_ReplaceItemInObjectCaseSensitive(p, "match", cJSON_CreateString("s0:0"));
    }
    cJSON_AddItemToObject(sc, "profiles", profs);
    char *t = cJSON_Print(sc);
    cJSON_Delete(sc);
    if (!t)
        abort();
    return t;
}

static void check_accepted(const cJSON *o, const char *notes, bool mapped)
{
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "switch")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "profiles")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "not_modelled"))) {
        fprintf(stderr, "the import lacks switch, profiles or not_modelled\n");
        abort();
    }
    fuzz_check_notes(notes);
    char *text = pasted(o), err[SCN_ERR_MAX];
    struct scenario s;
    if (scn_load_text("imported.json", text, NULL, 0, &s, err, sizeof err) != SCN_OK) {
        fprintf(stderr, "the import does not load as a scenario: %s\n%s\n", err, text);
        abort();
    }
    if (!mapped) { /* --ports names nodes this star lacks */
        struct run r;
        if (run_setup(&r, &s, err, sizeof err) != 0) {
            fprintf(stderr, "the import does not build as a switch: %s\n%s\n", err, text);
            abort();
        }
        run_free(&r);
    }
    scn_free(&s);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    const char *json = text, *ports = NULL;
    char *nl = strchr(text, '\n');
    if (strncmp(text, "--ports ", 8) == 0 && nl) {
        *nl = '\0';
        ports = text + 8;
        json = nl + 1;
    }
    cJSON *o = NULL;
    struct sbuf notes = {0};
    char err[SCN_ERR_MAX] = "";
    int rc = sonic_import_text("fuzz.json", json, ports, &o, &notes, err, sizeof err);
    if (rc != 0) {
        /* a refusal says why, on one line, naming the file or the argument */
        if (rc != SCN_EUSAGE || o || (strncmp(err, "fuzz.json", 9) && strncmp(err, "--ports: ", 9)) ||
            strchr(err, '\n')) {
            fprintf(stderr, "refusal %d without a proper message: \"%s\"\n", rc, err);
            abort();
        }
    } else {
        check_accepted(o, notes.p, ports != NULL);
    }
    cJSON_Delete(o);
    free(notes.p);
    free(text);
    return 0;
}
