#!/bin/sh
# Lab 6: the same 72 hosts as a fat-tree and as a dragonfly, uniform and adversarial traffic.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/06
d=scenarios/labs/06-fattree-vs-dragonfly
for s in fattree-uniform dragonfly-minimal-uniform dragonfly-ugal-uniform \
         fattree-adversarial dragonfly-minimal-adversarial dragonfly-ugal-adversarial; do
    ./rocesim run $d/$s.json -o $out/$s "$@"
done
./rocesim run $d/dragonfly-ugal-adversarial.json -o $out/dragonfly-valiant-adversarial \
    --set topology.routing=valiant "$@"
echo "uniform traffic:"
./rocesim compare $out/fattree-uniform $out/dragonfly-minimal-uniform $out/dragonfly-ugal-uniform
echo "adversarial traffic:"
./rocesim compare $out/fattree-adversarial $out/dragonfly-minimal-adversarial $out/dragonfly-ugal-adversarial \
    $out/dragonfly-valiant-adversarial
