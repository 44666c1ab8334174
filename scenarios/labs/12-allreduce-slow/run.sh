#!/bin/sh
# Lab 12: a healthy GPU cluster and four whose all-reduce or all-to-all is slow; busbw, the counters and the
# doctor tell which cause is which.
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/12-allreduce-slow
out=out/labs/12
for s in healthy mystery-a mystery-b mystery-c mystery-d; do
    ./rocesim run $lab/$s.json -o $out/$s "$@"
    ./rocesim doctor $out/$s > $out/$s/doctor.txt || true
done
./rocesim compare $out/healthy $out/mystery-a $out/mystery-b $out/mystery-c $out/mystery-d
echo; echo "busbw in GB/s (summary.json: the all-reduce's, then the all-to-all's):"
for s in healthy mystery-a mystery-b mystery-c mystery-d; do
    printf '%-10s' $s
    grep '"busbw_GBps"' $out/$s/summary.json | awk -F: '{ printf " %6.1f", $2 }'
    echo
done
echo; echo "the doctor's findings (the full text: $out/NAME/doctor.txt):"
for s in healthy mystery-a mystery-b mystery-c mystery-d; do
    printf '%-10s' $s
    grep -o '^\(error\|warning\) \[[a-z-]*\]' $out/$s/doctor.txt | tr '\n' ' ' || true
    echo
done
