/* bench — what the bench's files share (bench.c runs the cases; xfer.c is one of them). */
#ifndef TESTS_BENCH_BENCH_H
#define TESTS_BENCH_BENCH_H

/* Monotonic wall time in seconds. */
double now_s(void);

/* Case "xfer" (xfer.c). */
void bench_xfer(void);

#endif
