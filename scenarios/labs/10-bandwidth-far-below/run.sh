#!/bin/sh
# Lab 10: a healthy fabric and three that deliver far less; the counters tell which cause is which.
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/10-bandwidth-far-below
out=out/labs/10
for s in healthy mystery-a mystery-b mystery-c; do
    ./rocesim run $lab/$s.json -o $out/$s "$@"
done
./rocesim compare $out/healthy $out/mystery-a $out/mystery-b $out/mystery-c
echo; echo "goodput per flow (Gbps = size x 8 / FCT):"
for s in healthy mystery-a mystery-b mystery-c; do
    printf '%-10s' $s
    awk -F, 'NR > 1 { printf " %s %.1f", $1, $5 * 8 / $8 }' $out/$s/flows.csv
    echo
done
