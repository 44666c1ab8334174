#!/bin/sh
# Lab 9's "Try next" (scenarios/labs/09-tune-it-yourself/README.md), for the numbers it quotes
# (tests/test_docnums.c runs it in its sandbox, from the sandbox's root): the lab's tune with a smaller
# budget, twenty confirmation seeds, steps the firmware can hold, other search seeds and the newer
# firmware behaviours pinned off; candidate 72 rounded as nic.sh rounds it, on the search seeds; and the
# same tune from the paper's preset.
set -e
l=scenarios/labs/09-tune-it-yourself
o=out/lab09-variants
mkdir -p $o
# variant NAME SCENARIO SED: the lab's tune file edited by SED, with its scenario given from here
variant() {
    sed -E "s|\"scenario\": \"incast-mix-connectx.json\"|\"scenario\": \"$2\"|; $3" $l/tune.json >$o/$1.json
    ./rocesim tune $o/$1.json -q --no-plot -o $o/$1
}
./rocesim tune $l/tune.json --budget 60 -q --no-plot -o $o/b60
variant confirm20 $l/incast-mix-connectx.json \
    's|"confirm_seeds": \[[^]]*\]|"confirm_seeds": [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]|'
variant step $l/incast-mix-connectx.json \
    's|("host.dcqcn.g": *\{[^}]*)\}|\1, "step": 0.0009765625}|; s|("host.dcqcn.(rate_increase_timer\|cnp_interval)": *\{[^}]*)\}|\1, "step": "1us"}|'
variant seed2 $l/incast-mix-connectx.json 's|("budget": \{[^}]*\})|\1, "search": {"seed": 2}|'
variant seed3 $l/incast-mix-connectx.json 's|("budget": \{[^}]*\})|\1, "search": {"seed": 3}|'
sed 's|"preset": "connectx"}|"preset": "connectx", "rate_reduce_monitor_period": "0us", "clamp_target_rate_after_timer": false}|' \
    $l/incast-mix-connectx.json >$o/pinned-scenario.json
variant pinned $o/pinned-scenario.json ''
for s in 1 2 3 4 5; do
    ./rocesim run $l/incast-mix-connectx.json --seed $s --set host.dcqcn.g=0.0029296875 --set switch.ecn.kmin=4.92KB \
        --set switch.ecn.kmax=224KB --set switch.ecn.pmax=0.354 --set host.dcqcn.rate_increase_timer=774us \
        --set host.dcqcn.cnp_interval=3us -q --no-plot -o $o/rounded/s$s
done
./rocesim tune scenarios/tune/incast-mix-short-flows.json -q --no-plot -o $o/paper
