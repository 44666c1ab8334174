#!/bin/sh
# Lab 15: do we still need PFC?  The same two jobs (a ring all-reduce and a web-search mix) on four clusters:
# A (no PFC, go-back-N, no congestion control), B (PFC + ECN + DCQCN), C (no PFC, selective repeat, packet
# spraying) and D (C with packet trimming), side by side; then C again with per-flow ECMP and with PFC, to tell
# what spraying brings from what dropping PFC does.
# Usage: scenarios/labs/15-do-we-still-need-pfc/run.sh [extra rocesim run options]
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/15-do-we-still-need-pfc
out=out/labs/15
for c in a b c d; do
    ./rocesim run $lab/cluster-$c.json -o $out/cluster-$c "$@"
done
./rocesim run $lab/cluster-c.json -o $out/c-ecmp --set switch.load_balance=ecmp "$@"
./rocesim run $lab/cluster-c.json -o $out/c-pfc --set switch.pfc.enabled=true "$@"
echo
./rocesim compare $out/cluster-a $out/cluster-b $out/cluster-c $out/cluster-d
echo
./rocesim compare $out/cluster-c $out/c-ecmp $out/c-pfc
