/*
 * libFuzzer harness for the scenario loader.
 *
 * The input is JSON text.  scn_load_text must either refuse it with a one-line
 * message (never crash, leak or read out of bounds: the sanitizers watch that)
 * or accept it, and an accepted scenario must print (scn_to_json) to JSON that
 * loads again and prints identically: the resolved form is what `check`
 * shows, what sweeps and plots save, and what a user feeds back in.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Large inputs only make each execution slow: the loader's logic is reached by small ones. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */

    struct scenario s;
    char err[SCN_ERR_MAX];
    err[0] = '\0';
    int rc = scn_load_text("fuzz.json", text, NULL, 0, &s, err, sizeof err);
    free(text);
    if (rc != SCN_OK) {
        /* A refusal must say why, on one printable line, naming the file. */
        if (rc != SCN_EUSAGE && rc != SCN_EIO) {
            fprintf(stderr, "scn_load_text returned %d\n", rc);
            abort();
        }
        if (strncmp(err, "fuzz.json", 9) != 0 || !fuzz_one_line(err)) {
            fprintf(stderr, "refusal without a proper message: \"%s\"\n", err);
            abort();
        }
        return 0;
    }
    char *j1 = scn_to_json(&s);
    if (!j1)
        abort();
    struct scenario s2;
    rc = scn_load_text("fuzz.json", j1, NULL, 0, &s2, err, sizeof err);
    if (rc != SCN_OK) {
        fprintf(stderr, "the resolved scenario does not load again: %s\n%s\n", err, j1);
        abort();
    }
    char *j2 = scn_to_json(&s2);
    if (!j2)
        abort();
    if (strcmp(j1, j2) != 0) {
        fprintf(stderr, "the resolved scenario does not round-trip:\n--- first\n%s\n--- second\n%s\n", j1, j2);
        abort();
    }
    if (s.stop_ps != s2.stop_ps || s.seed != s2.seed || s.topo.n_hosts != s2.topo.n_hosts ||
        s.n_traffic != s2.n_traffic || !scn_host_equal(&s.host, &s2.host) ||
        memcmp(&s.sw, &s2.sw, offsetof(struct scn_switch, mods)) != 0 || !settings_mods_equal(&s.sw.mods, &s2.sw.mods)) {
        fprintf(stderr, "round trip lost a field that the printer shows identically:\n%s\n", j1);
        abort();
    }
    free(j1);
    free(j2);
    scn_free(&s2);
    scn_free(&s);
    return 0;
}
