#!/bin/sh
# Lab 4: a PFC deadlock from a cyclic buffer dependency, and the same ring without the cycle.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/04
./rocesim run scenarios/deadlock-ring.json -o $out/deadlock "$@" || true
./rocesim run scenarios/labs/04-deadlock/cycle-broken.json -o $out/cycle-broken "$@"
./rocesim compare $out/deadlock $out/cycle-broken
