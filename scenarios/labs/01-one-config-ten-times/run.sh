#!/bin/sh
# Lab 1: the same all-reduce on cluster A (no PFC, no DCQCN) and cluster B (PFC + ECN + DCQCN).
# Usage: scenarios/labs/01-one-config-ten-times/run.sh [extra rocesim run options]
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/01
./rocesim run scenarios/labs/01-one-config-ten-times/cluster-a.json -o $out/cluster-a "$@"
./rocesim run scenarios/labs/01-one-config-ten-times/cluster-b.json -o $out/cluster-b "$@"
echo
./rocesim compare $out/cluster-b $out/cluster-a
