#!/bin/sh
# Lab 7: training all-reduce + checkpoint writes, with and without DWRR weights.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/07
./rocesim run scenarios/labs/07-qos/no-qos.json -o $out/no-qos "$@"
./rocesim run scenarios/labs/07-qos/with-dwrr.json -o $out/with-dwrr "$@"
./rocesim compare $out/no-qos $out/with-dwrr
