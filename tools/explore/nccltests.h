/*
 * nccltests — `rocesim nccl-tests SCENARIO --op OP --sizes MIN:MAX ...`: the table nccl-tests prints (NVIDIA's
 * github.com/NVIDIA/nccl-tests: size, count, type, redop, root, time, algbw, busbw, #wrong; out-of-place only),
 * from one simulated run per size of the scenario's fabric carrying one collective of the traffic kind "nccl"
 * (models/traffic_nccl.c) instead of the scenario's own traffic; DIR/nccl-tests.csv and DIR/nccl-tests.png.
 * The runs are in this process, one after the other, in the order of the sizes: the same files every time.
 */
#ifndef TOOLS_NCCLTESTS_H
#define TOOLS_NCCLTESTS_H

/* The command: 0, 2 (bad arguments or scenario: one line naming it), 3 (files not written). */
int nccltests_main(int argc, char **argv);

#endif
