#!/bin/sh
# Lab 16: RoCE, IRN or UET?  One k=8 fat-tree and three workloads (a permutation, a 32-to-1 incast, an all-to-all)
# on five transports: RoCE as deployed (PFC, DCQCN, go-back-N, ECMP), RoCE with IRN (no PFC, selective repeat,
# spraying, DCQCN) and Ultra Ethernet with NSCC, with RCCC and with both (no PFC, trimming, per-packet entropy);
# then IRN with trimming, to tell what trimming gives from what UET's transport does.  Prints one comparison per
# workload and draws the permutation's goodput per flow.
# Usage: scenarios/labs/16-roce-irn-or-uet/run.sh [extra rocesim run options]
set -e
cd "$(dirname "$0")/../../.."
lab=scenarios/labs/16-roce-irn-or-uet
out=out/labs/16
cases="roce irn uet-nscc uet-rccc uet-both"
incast='[{"type": "incast", "id": "incast", "senders": "h64-h95", "receiver": "h0", "size": "1MB"}]'
a2a='[{"type": "alltoall", "id": "a2a", "hosts": "all", "size": "1040384B"}]'
mkdir -p $out
./rocesim check $lab/roce.json > $out/headroom.json
for c in $cases; do
    ./rocesim run $lab/$c.json -o $out/perm-$c "$@"
    ./rocesim run $lab/$c.json -o $out/incast-$c --set "traffic=$incast" --set 'monitor.queues=["tor0:*"]' "$@"
    ./rocesim run $lab/$c.json -o $out/a2a-$c --set "traffic=$a2a" --set monitor.interval=2us "$@"
done
trim='--set switch.trim.enabled=true --set switch.trim.size=64B'
./rocesim run $lab/irn.json -o $out/incast-irn-trim --set "traffic=$incast" --set 'monitor.queues=["tor0:*"]' $trim "$@"
./rocesim run $lab/irn.json -o $out/a2a-irn-trim --set "traffic=$a2a" --set monitor.interval=2us $trim "$@"
for w in perm incast a2a; do
    echo
    echo "== $w"
    ./rocesim compare $(for c in $cases; do echo $out/$w-$c; done)
done
echo
echo "== IRN with trimming"
./rocesim compare $out/incast-irn $out/incast-irn-trim $out/incast-uet-nscc
./rocesim compare $out/a2a-irn $out/a2a-irn-trim $out/a2a-uet-nscc
./rocesim compare $(for c in $cases; do echo $out/perm-$c; done) --goodput $out/perm-goodput.png \
    --title "Lab 16: a permutation of 4 MB flows on a k=8 fat-tree, five transports" > /dev/null
