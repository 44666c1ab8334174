/* jsonout — JSON printing with exact numbers (jsonout.h). */
#include "tools/common/jsonout.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Turns every finite number under (and after) o into raw text that reads back exactly; false when out of memory. */
static int exact_numbers(cJSON *o)
{
    for (cJSON *c = o; c; c = c->next) {
        if (cJSON_IsNumber(c) && c->valuestring) {
            c->type = cJSON_Raw; /* its text as read, which a double could not hold (sim/scenario.h) */
        } else if (cJSON_IsNumber(c) && isfinite(c->valuedouble)) {
            char buf[32];
            double d = c->valuedouble;
            /* 17 significant digits always read back exactly (IEEE 754 binary64) */
            for (int p = 15; p <= 17; p++) {
                snprintf(buf, sizeof buf, "%.*g", p, d);
                if (strtod(buf, NULL) == d)
                    break;
            }
            char *s = strdup(buf);
            if (!s)
                return -1;
            c->type = cJSON_Raw;
            c->valuestring = s;
        }
        if (c->child && exact_numbers(c->child) < 0)
            return -1;
    }
    return 0;
}

cJSON *jsonout_u64(uint64_t v)
{
    char d[24];
    snprintf(d, sizeof d, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(d);
}

char *jsonout_print(cJSON *root)
{
    if (exact_numbers(root) < 0)
        return NULL;
    return cJSON_Print(root);
}
