/*
 * The egress scheduler on its own (models/sched.h): strict priority, and DWRR's
 * exact picks and byte shares over known sequences of head frames, from the
 * zeroed state a port starts with.
 */
#include "tests/tests.h"
#include "models/sched.h"

#include <string.h>

#define Q 1000 /* quantum unit: the largest data frame */

static struct sched_settings dwrr(uint32_t w1, uint32_t w2)
{
    struct sched_settings c;
    memset(&c, 0, sizeof c);
    c.type = sched_find("dwrr");
    c.weights[1] = w1;
    c.weights[2] = w2;
    return c;
}

static void test_strict(void)
{
    struct sched_settings c;
    struct sched_state st;
    memset(&c, 0, sizeof c);
    memset(&st, 0, sizeof st);
    c.type = SCHED_STRICT;
    CU_ASSERT_EQUAL(sched_find("strict"), SCHED_STRICT); /* the kind's default, numbered first */
    CU_ASSERT_FALSE(sched_weighs_sizes(&c));
    /* strict never reads the head sizes: NULL would crash if it did */
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x00, NULL, Q), -1);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x01, NULL, Q), 0);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x0b, NULL, Q), 3);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x88, NULL, Q), 7);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0xff, NULL, Q), 7);
    for (int p = 0; p < SCN_NPRIO; p++)
        CU_ASSERT_EQUAL(st.deficit[p], 0);
}

/* Weights 1 and 3, equal frames, both backlogged: the exact order 1,2,2,2 repeated, so bytes 1:3 exactly. */
static void test_dwrr_sequence(void)
{
    struct sched_settings c = dwrr(1, 3);
    struct sched_state st;
    memset(&st, 0, sizeof st);
    uint32_t head[SCN_NPRIO] = {0};
    head[1] = head[2] = Q;
    CU_ASSERT_TRUE(sched_weighs_sizes(&c));
    int64_t bytes[SCN_NPRIO] = {0};
    for (int i = 0; i < 40; i++) {
        int p = sched_pick(&c, &st, 0x06, head, Q);
        CU_ASSERT_EQUAL(p, i % 4 == 0 ? 1 : 2);
        if (p >= 0)
            bytes[p] += head[p];
    }
    CU_ASSERT_EQUAL(bytes[1], 10 * Q);
    CU_ASSERT_EQUAL(bytes[2], 30 * Q);
}

/*
 * Frames that do not divide the quantum: the deficit carries over, so after every complete turn each class
 * has sent its weight x quantum x turns, less what is left in its deficit (below one head frame).
 */
static void test_dwrr_deficit_carries(void)
{
    struct sched_settings c = dwrr(1, 2);
    struct sched_state st;
    memset(&st, 0, sizeof st);
    uint32_t head[SCN_NPRIO] = {0};
    head[1] = 700;
    head[2] = 900;
    int64_t bytes[SCN_NPRIO] = {0};
    int turns = 0, last = -1;
    for (int i = 0; i < 2000; i++) {
        int p = sched_pick(&c, &st, 0x06, head, Q);
        CU_ASSERT_FATAL(p == 1 || p == 2);
        if (p == 1 && last == 2) { /* a turn is complete when service returns to class 1 */
            turns++;
            /* class 1 has just had its quantum for turn turns + 1 and this frame charged to it */
            CU_ASSERT_EQUAL(bytes[1] + head[1] + st.deficit[1], (int64_t)(turns + 1) * 1 * Q);
            CU_ASSERT_EQUAL(bytes[2] + st.deficit[2], (int64_t)turns * 2 * Q);
            CU_ASSERT(st.deficit[2] >= 0 && st.deficit[2] < head[2]);
        }
        bytes[p] += head[p];
        last = p;
    }
    CU_ASSERT(turns > 400);
    /* the long-run share is the weights' to within one frame per class */
    CU_ASSERT(bytes[2] - 2 * bytes[1] < 2 * 700 + 900 && 2 * bytes[1] - bytes[2] < 2 * 700 + 900);
}

/* A priority without a weight goes first, by strict priority, and charges no deficit. */
static void test_unweighted_first(void)
{
    struct sched_settings c = dwrr(1, 1);
    struct sched_state st;
    memset(&st, 0, sizeof st);
    uint32_t head[SCN_NPRIO] = {0};
    for (int p = 0; p < SCN_NPRIO; p++)
        head[p] = Q;
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x46, head, Q), 6);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x07, head, Q), 0);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x41, head, Q), 6);
    for (int p = 0; p < SCN_NPRIO; p++)
        CU_ASSERT_EQUAL(st.deficit[p], 0);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x06, head, Q), 1);
}

/* A weighted queue that is empty or paused when its turn comes forfeits its deficit; the others take its share. */
static void test_idle_forfeits(void)
{
    struct sched_settings c = dwrr(1, 1);
    struct sched_state st;
    memset(&st, 0, sizeof st);
    uint32_t head[SCN_NPRIO] = {0};
    head[1] = Q;
    head[2] = 600;
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x06, head, Q), 1);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x06, head, Q), 2);
    CU_ASSERT_EQUAL(st.deficit[2], Q - 600);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x06, head, Q), 1);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x02, head, Q), 1); /* class 2 paused as its turn comes */
    CU_ASSERT_EQUAL(st.deficit[2], 0);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x02, head, Q), 1);
    CU_ASSERT_EQUAL(sched_pick(&c, &st, 0x00, head, Q), -1);
}

void test_sched_register(void)
{
    CU_pSuite s = CU_add_suite("scheduler", NULL, NULL);
    CU_add_test(s, "strict priority serves the highest eligible and reads no sizes", test_strict);
    CU_add_test(s, "dwrr 1:3 with equal frames: the exact order and byte shares", test_dwrr_sequence);
    CU_add_test(s, "dwrr carries the deficit: weight x quantum per turn, exactly", test_dwrr_deficit_carries);
    CU_add_test(s, "priorities without a weight go first and charge no deficit", test_unweighted_first);
    CU_add_test(s, "an idle or paused weighted queue forfeits its deficit", test_idle_forfeits);
}
