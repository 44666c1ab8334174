#!/bin/sh
# Lab 9: rocesim tune from the ConnectX defaults to a recommendation; the NIC commands it implies; then the
# defaults and the recommendation run side by side with plots.
# Usage: scenarios/labs/09-tune-it-yourself/run.sh [-q]
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/09-tune-it-yourself
out=out/labs/09
./rocesim tune $lab/tune.json -o $out/tune "$@"
echo
./rocesim nic-config --from $out/tune/best.json | tee $out/nic.sh
# best.json's "set" list (["host.dcqcn.g=0.00276", "switch.ecn.kmin=\"22KB\"", ...]) as --set options
sets=$(sed -n 's/^[[:space:]]*"set":[[:space:]]*\[\(.*\)\],*$/\1/p' $out/tune/best.json |
    sed 's/\\"//g; s/", "/ /g; s/"//g')
args=
for s in $sets; do args="$args --set $s"; done
./rocesim run $lab/incast-mix-connectx.json -o $out/connectx "$@"
./rocesim run $lab/incast-mix-connectx.json -o $out/recommended $args "$@"
echo
./rocesim compare $out/connectx $out/recommended
