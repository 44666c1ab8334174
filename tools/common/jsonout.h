/*
 * jsonout — prints the JSON the tools write (summary.json, a sweep's and a tune's results) with every number
 * exact: the shortest of 15, 16 or 17 significant digits that reads back as the same double.
 *
 * cJSON's own printing keeps 15 digits whenever they read back within a relative epsilon of the value, so a
 * number could lose its last bit between the run and a tool that reads the file back (flowset's statistics,
 * compare, the golden runs): a p95 slowdown of 7.7801452682844907 was written as 7.78014526828449.
 */
#ifndef TOOLS_JSONOUT_H
#define TOOLS_JSONOUT_H

#include <stdint.h>

struct cJSON;

/* An unsigned 64-bit integer (a seed) as an item that prints as its exact digits: a double holds integers
 * exactly only up to 2^53.  NULL when out of memory. */
struct cJSON *jsonout_u64(uint64_t v);

/* As cJSON_Print (the caller frees), with exact numbers; turns root's numbers into raw text, so print last.
 * NULL when out of memory. */
char *jsonout_print(struct cJSON *root);

#endif
