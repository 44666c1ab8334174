#!/bin/sh
# Lab 8: PFC headroom for 3 m and 1 km cables, and the 1 km fabric with the 3 m headroom.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/08
for s in 3m-auto 1km-auto 1km-3m-headroom; do
    ./rocesim check scenarios/labs/08-headroom/$s.json | grep -A 6 '"pfc_headroom"' | grep headroom_per_priority
    ./rocesim run scenarios/labs/08-headroom/$s.json -o $out/$s "$@"
done
./rocesim compare $out/3m-auto $out/1km-auto $out/1km-3m-headroom
