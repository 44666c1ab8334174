#!/bin/sh
# Lab 13: one checkpoint through the CPU and with GPUDirect Storage, alone and beside training under QoS.
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/13-checkpoint-path
out=out/labs/13
for p in gds cpu; do
    ./rocesim run $lab/alone.json -o $out/alone-$p --set traffic.0.path=$p "$@"
    ./rocesim run $lab/beside-training.json -o $out/beside-$p --set traffic.1.path=$p "$@"
done
echo; echo "== alone"
./rocesim compare $out/alone-gds $out/alone-cpu
echo; echo "== beside training"
./rocesim compare $out/beside-gds $out/beside-cpu
