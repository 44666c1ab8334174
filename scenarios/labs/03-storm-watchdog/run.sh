#!/bin/sh
# Lab 3: a PFC storm from one NIC, without and with the PFC watchdog.
set -e
cd "$(dirname "$0")/../../.."
out=out/labs/03
./rocesim run scenarios/pfc-storm.json -o $out/no-watchdog "$@"
./rocesim run scenarios/pfc-storm.json -o $out/watchdog --set switch.watchdog.enabled=true \
    --set switch.watchdog.detection_time=200us --set switch.watchdog.restoration_time=200us \
    --set switch.watchdog.poll_interval=10us "$@"
./rocesim compare $out/no-watchdog $out/watchdog
echo; cat $out/watchdog/watchdog.csv
