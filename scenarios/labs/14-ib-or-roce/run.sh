#!/bin/sh
# Lab 14: the same cluster and traffic on four fabrics (RoCE with and without PFC, InfiniBand with and without
# congestion control), and nccl-tests' all-reduce on RoCE and on InfiniBand.
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/14-ib-or-roce
out=out/labs/14
./rocesim run $lab/roce.json -o $out/roce "$@"
./rocesim run $lab/roce.json -o $out/roce-nopfc --set switch.pfc.enabled=false "$@"
./rocesim run $lab/ib.json -o $out/ib "$@"
./rocesim run $lab/ib.json -o $out/ib-cc --set host.cc=ibcc --set switch.ibcc.enabled=true "$@"
./rocesim compare $out/roce $out/roce-nopfc $out/ib $out/ib-cc
for f in roce ib; do
    ./rocesim nccl-tests $lab/$f.json --op all_reduce --sizes 1MB:16MB --step x4 --hosts h0-h15 -o $out/nccl-$f -q
done
