#!/bin/sh
# Lab 9: rocesim tune from the ConnectX defaults to a recommendation; the NIC commands it implies; then the
# defaults and the recommendation run side by side with plots, and the search's best too when the tuner
# recommends keeping the defaults.
# Usage: scenarios/labs/09-tune-it-yourself/run.sh [-q]
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/09-tune-it-yourself
out=out/labs/09
./rocesim tune $lab/tune.json -o $out/tune "$@"
echo
./rocesim nic-config --from $out/tune/best.json | tee $out/nic.sh
# The Nth "set" list of best.json (["host.dcqcn.g=0.00276", "switch.ecn.kmin=\"22KB\"", ...]) as --set options.
# The first is the recommendation's; with "recommendation": "baseline" the second is best_found's.  Later lists
# (the baseline's, the ranking's) must not be appended: each --set would override the one before.
set_args() {
    a=
    for s in $(sed -n 's/^[[:space:]]*"set":[[:space:]]*\[\(.*\)\],*$/\1/p' $out/tune/best.json | sed -n "$1p" |
        sed 's/\\"//g; s/", "/ /g; s/"//g'); do
        a="$a --set $s"
    done
    echo "$a"
}
./rocesim run $lab/incast-mix-connectx.json -o $out/connectx "$@"
./rocesim run $lab/incast-mix-connectx.json -o $out/recommended $(set_args 1) "$@"
dirs="$out/connectx $out/recommended"
if grep -q '^[[:space:]]*"recommendation":[[:space:]]*"baseline"' $out/tune/best.json; then
    ./rocesim run $lab/incast-mix-connectx.json -o $out/best-found $(set_args 2) "$@"
    dirs="$dirs $out/best-found"
fi
echo
./rocesim compare $dirs
