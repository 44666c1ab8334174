/* Helpers shared by the whole-run tests (declared in tests/tests.h). */
#include "tests/tests.h"
#include "tools/run.h"

#include <stdio.h>

bool test_setup(const char *json, const char *set_path, const char *set_value, struct scenario *scn, struct run *r)
{
    char err[SCN_ERR_MAX];
    struct scn_override ov = {set_path, set_value};
    if (scn_load_text("test.json", json, &ov, set_path ? 1 : 0, scn, err, sizeof err)) {
        fprintf(stderr, "\n  scenario error: %s\n", err);
        return false;
    }
    if (run_setup(r, scn, err, sizeof err)) {
        fprintf(stderr, "\n  setup error: %s\n", err);
        scn_free(scn);
        return false;
    }
    return true;
}

void test_teardown(struct scenario *scn, struct run *r)
{
    run_free(r);
    scn_free(scn);
}

void test_run_checked(struct run *r)
{
    int rc = run_execute(r);
    if (rc)
        fprintf(stderr, "\n  invariant: %s\n", r->invariant_error);
    CU_ASSERT_EQUAL(rc, 0);
    const struct net_counters *c = &r->net.c;
    CU_ASSERT_EQUAL(c->data_sent, c->data_delivered + c->data_dropped + c->data_in_flight);
    CU_ASSERT_EQUAL(c->bytes_sent, c->bytes_delivered + c->bytes_dropped + c->data_bytes_in_flight);
    if (r->finished)
        CU_ASSERT_EQUAL(c->data_in_flight, 0);
}
