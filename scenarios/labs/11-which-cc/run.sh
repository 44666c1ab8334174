#!/bin/sh
# Lab 11: one incast + background mix and one ring all-reduce, each under DCQCN, HPCC, TIMELY, DCTCP and Swift.
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/11-which-cc
out=out/labs/11
for s in mix allreduce; do
    ./rocesim run $lab/$s.json -o $out/$s-dcqcn "$@"
    ./rocesim run $lab/$s.json -o $out/$s-hpcc --set host.cc=hpcc "$@"
    ./rocesim run $lab/$s.json -o $out/$s-timely --set host.cc=timely "$@"
    # DCTCP wants a step at K (kmin = kmax): 20KB is above Alizadeh et al.'s C x RTT / 7 (about 9KB here).
    ./rocesim run $lab/$s.json -o $out/$s-dctcp --set host.cc=dctcp --set switch.ecn.kmin=20KB \
        --set switch.ecn.kmax=20KB "$@"
    ./rocesim run $lab/$s.json -o $out/$s-swift --set host.cc=swift "$@"
done
for s in mix allreduce; do
    echo; echo "== $s"
    ./rocesim compare $out/$s-dcqcn $out/$s-hpcc $out/$s-timely $out/$s-dctcp $out/$s-swift
done
