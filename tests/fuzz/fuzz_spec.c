/*
 * libFuzzer harness for sweep and tune files (tools/explore/sweep_spec.c and tune_spec.c; docs/sweep.md,
 * docs/tune.md): JSON with comments, dotted paths, values by unit, seed lists and tune's "require" rules.
 *
 * The input is the file's text.  It is written to a directory of the process's own as spec.json, next to a small
 * scenario s.json (a 4-host star with DCQCN and ECN) that it may name, and read both as a sweep file and as a
 * tune file.  Each reader must either refuse it with one printable line naming spec.json (status 2) or accept it:
 * a sweep then spans as many points as the product of its dimensions' values, each point's --set pairs one per
 * path; a tune file has 1 to 2 objectives, at least one parameter and one seed, and every "require" rule
 * evaluates (at the parameters' lower bounds) without a crash.
 */
#include "tests/fuzz/fuzz.h"
#include "sim/scenario.h"
#include "tools/explore/sweep_spec.h"
#include "tools/explore/tune.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char fs_scenario[] =
    "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\", \"delay\": \"1us\"}},"
    " \"host\": {\"cc\": \"dcqcn\"}, \"switch\": {\"ecn\": {\"kmin\": \"5KB\", \"kmax\": \"200KB\"}},"
    " \"traffic\": [{\"type\": \"flow\", \"id\": \"a\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"64KB\"}]}\n";

/* A refusal: status 2 and one printable line that names the file. */
static void fs_check_refusal(const char *who, const char *file, int rc, const char *err)
{
    if (rc != SCN_EUSAGE || strncmp(err, file, strlen(file)) || !fuzz_one_line(err)) {
        fprintf(stderr, "%s: refusal %d without a proper message: \"%s\"\n", who, rc, err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1; /* keep it out of the corpus */
    struct fuzz_files files;
    fuzz_files_open(&files, "spec");
    fuzz_file(&files, "s.json", fs_scenario);
    const char *spec = fuzz_file(&files, "spec.json", text);
    free(text);
    char err[SCN_ERR_MAX] = "";

    struct sweep_spec sw;
    int rc = sweep_load(spec, &sw, err, sizeof err);
    if (rc) {
        fs_check_refusal("sweep", spec, rc, err);
    } else {
        long points = 1;
        for (int d = 0; d < sw.n_dims; d++)
            points *= sw.dims[d].n_values;
        if (sw.n_dims < 1 || points != sw.n_points || sw.n_seeds < 1) {
            fprintf(stderr, "sweep: %d dimensions, %d points for a product of %ld, %d seeds\n", sw.n_dims,
                    sw.n_points, points, sw.n_seeds);
            abort();
        }
        struct scn_override ov[64];
        for (int p = 0; p < sw.n_points && p < 64; p++) {
            int n = sweep_point_overrides(&sw, p, ov, 64), want = 0;
            for (int d = 0; d < sw.n_dims; d++)
                want += sw.dims[d].n_paths;
            if (n >= 0 && n != want) {
                fprintf(stderr, "sweep: point %d has %d --set pairs for %d paths\n", p, n, want);
                abort();
            }
        }
        sweep_spec_free(&sw);
    }

    struct tune_spec *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    err[0] = '\0';
    rc = tune_load(spec, t, err, sizeof err);
    if (rc) {
        fs_check_refusal("tune", spec, rc, err);
    } else {
        if (t->n_obj < 1 || t->n_obj > 2 || t->n_params < 1 || t->n_seeds < 1) {
            fprintf(stderr, "tune: %d objectives, %d parameters, %d seeds\n", t->n_obj, t->n_params, t->n_seeds);
            abort();
        }
        double x[TUNE_MAX_PARAMS];
        for (int i = 0; i < t->n_params; i++)
            x[i] = t->params[i].lo;
        (void)tune_required_ok(t, x);
        tune_spec_free(t);
    }
    free(t);
    fuzz_files_remove(&files);
    return 0;
}
