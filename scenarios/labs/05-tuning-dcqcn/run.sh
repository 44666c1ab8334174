#!/bin/sh
# Lab 5: a small sweep of DCQCN's g and the ECN thresholds, then the two extreme points side by side.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/05
./rocesim sweep scenarios/labs/05-tuning-dcqcn/sweep.json -o $out/sweep "$@"
./rocesim run scenarios/labs/05-tuning-dcqcn/fairness.json -o $out/paper "$@"
./rocesim run scenarios/labs/05-tuning-dcqcn/fairness.json -o $out/aggressive --set host.dcqcn.g=0.0625 \
    --set switch.ecn.kmin=50KB --set switch.ecn.kmax=800KB "$@"
./rocesim compare $out/paper $out/aggressive
