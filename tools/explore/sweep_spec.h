/*
 * sweep_spec — a sweep file (docs/sweep.md) read and checked, and the grid points it spans.  Apart from the
 * sweep's runner (sweep.h) because its outputs (sweep_out.h) and `rocesim check` need the grid too, and the
 * runner needs the outputs.
 */
#ifndef TOOLS_SWEEP_SPEC_H
#define TOOLS_SWEEP_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* One grid dimension: one dotted path, or several paths whose values go together ("a,b": [[x, y], ...]). */
struct sweep_dim {
    char *key;         /* as written in the grid */
    int n_paths;
    char **paths;
    int n_values;
    char ***text;      /* text[v][k]: JSON text of value v for path k, what --set receives */
    cJSON ***value;    /* value[v][k]: the same as a cJSON item (owned by the spec's tree) */
};

struct sweep_spec {
    char file[4096];      /* the sweep file as given */
    char scenario[4096];  /* the scenario path, usable from the current directory */
    char *scenario_text;  /* its contents, part of every point's identity */
    int n_dims;
    struct sweep_dim *dims;
    int n_points;         /* product of the dims' value counts */
    int n_seeds;
    uint64_t *seeds;
    char objective[256];  /* dotted path into summary.json */
    bool maximize;
    cJSON *root;          /* the parsed sweep file (owns the value items) */
};

/*
 * Reads and validates a sweep file (see docs/sweep.md).  Returns 0, or 2 with
 * one line "FILE: JSON.PATH: expected ..., got ..." in err (3 when the file
 * cannot be read).  On failure *s holds nothing that needs freeing.
 */
int sweep_load(const char *file, struct sweep_spec *s, char *err, size_t errlen);

void sweep_spec_free(struct sweep_spec *s);

/* Grid point p's value index along dimension d (the last dimension varies fastest). */
int sweep_point_value(const struct sweep_spec *s, int p, int d);

/*
 * Names grid point p into out: 16 hex digits of a 64-bit hash of the scenario
 * text and the point's paths and values.  Not the point's index: a grid
 * extended by a value keeps the names (and so the finished runs) of the
 * points it had, while editing the scenario or a value never lets a rerun
 * pick up a stale result.  Cannot fail.
 */
void sweep_point_id(const struct sweep_spec *s, int p, char *out, size_t len);

/*
 * Fills ov (capacity max) with the --set pairs of grid point p as "path" and
 * JSON-text value (pointers into s).  Returns the count, or -1 when max is too small.
 */
struct scn_override;
int sweep_point_overrides(const struct sweep_spec *s, int p, struct scn_override *ov, int max);

#endif
