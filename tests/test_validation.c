/* The validation checks (tests/validation/) as tests: every asserted check must pass. */
#include "tests/tests.h"
#include "tests/validation/validation.h"

#include <stdio.h>

static void run_group(int g)
{
    static struct vresult res[64];
    int n = 0;
    CU_ASSERT_FATAL(validation_groups[g].run(res, &n, 64));
    for (int i = 0; i < n; i++) {
        printf("\n    %s: expected %s, measured %s%s", res[i].check, res[i].expected, res[i].measured,
               res[i].informative ? " (reported)" : "");
        if (!res[i].informative && !res[i].pass)
            fprintf(stderr, "\n  FAILED: %s (%s)\n", res[i].check, res[i].note);
        CU_ASSERT(res[i].informative || res[i].pass);
    }
}

static void test_goodput(void) { run_group(0); }
static void test_fair(void) { run_group(1); }
static void test_headroom(void) { run_group(2); }

void test_validation_register(void)
{
    CU_pSuite s = CU_add_suite("validation", NULL, NULL);
    CU_add_test(s, "goodput of one flow", test_goodput);
    CU_add_test(s, "DCQCN fair share (and the fluid model, reported)", test_fair);
    CU_add_test(s, "PFC headroom", test_headroom);
}
