#!/bin/sh
# Lab 2: a victim flow slowed by PFC pauses it did not cause.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/02
./rocesim run scenarios/labs/02-hol-victim/victim-alone.json -o $out/alone "$@"
./rocesim run scenarios/victim-flow.json -o $out/with-incast "$@"
./rocesim compare $out/alone $out/with-incast
echo; echo "the victim flow (h3 -> h5), alone and next to the incast:"
head -1 $out/alone/flows.csv; grep '^victim,' $out/alone/flows.csv $out/with-incast/flows.csv
