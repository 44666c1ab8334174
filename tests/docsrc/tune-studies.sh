#!/bin/sh
# docs/tune.md's studies of its examples (tests/test_docnums.c runs it in its sandbox, from the sandbox's
# root): the grid-as-a-search tune with search seeds 1 to 12 at budgets of 16 and 32 runs, and the
# short-flows tune with each local optimizer at a budget of 60.  What the doc quotes goes into two CSVs:
# g-kmin.csv (budget, seed, the best mean FCT found in us, whether the verdict keeps the baseline) and
# optimizers.csv (optimizer, the best p99 slowdown found and the baseline's, on the search seeds).
set -e
o=out/tune-studies
mkdir -p $o
# tune FILE SED OUT [OPTIONS]: FILE's tune edited by SED (its scenario given from here), into OUT
tune() {
    sed -E "s|\"scenario\": \"../sweeps/incast-mix.json\"|\"scenario\": \"scenarios/sweeps/incast-mix.json\"|; $2" \
        "$1" >"$3.json"
    ./rocesim tune "$3.json" -q --no-plot -o "$3" $4 >"$3.txt"
}
echo "budget,seed,best_us,keep" >$o/g-kmin.csv
for b in 16 32; do
    for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
        tune scenarios/tune/incast-mix-g-kmin.json "s|(\"budget\": \{[^}]*\})|\1, \"search\": {\"seed\": $s}|" \
            $o/g-kmin-b$b-s$s "--budget $b"
        best=$(sed -n 's/^  minimize.*: best \([0-9.]*\) us.*/\1/p' $o/g-kmin-b$b-s$s.txt)
        keep=$(grep -c "verdict: keep the baseline" $o/g-kmin-b$b-s$s.txt || true)
        echo "$b,$s,$best,$keep" >>$o/g-kmin.csv
    done
done
echo "optimizer,best,baseline" >$o/optimizers.csv
for opt in sbplx bobyqa cobyla neldermead; do
    tune scenarios/tune/incast-mix-short-flows.json "s|(\"budget\": \{[^}]*\})|\1, \"search\": {\"optimizer\": \"$opt\"}|" \
        $o/short-flows-$opt "--budget 60"
    sed -n "s/^  minimize.*: best \([0-9.]*\) +- [0-9.e+-]*, baseline \([0-9.]*\) .*/$opt,\1,\2/p" $o/short-flows-$opt.txt \
        >>$o/optimizers.csv
done
