#!/bin/sh
# The runs docs/model.md and docs/scenario.md quote beside docs/VALIDATION.md's rows, as tests/validation/ runs them
# (tests/test_docnums.c runs this in its sandbox, from the sandbox's root): two 20 MB TIMELY flows into one
# 100 Gbps port under the default preset, the paper's values and the HPCC simulator's TIMELY with 1000-byte payloads
# (validation_timely_pair), rates every 1 us; and four long DCTCP flows into one 100 Gbps port with step marking at
# 100 KB (dctcp_case), with and without the 13 us window, the queue every 0.5 us.
set -e
o=out/model
mkdir -p $o
# timely NAME HOST: the pair, with HOST's members added to "host"
timely() {
    cat >$o/timely-$1.json <<JSON
{"name": "timely-pair-$1", "topology": {"type": "star", "hosts": 3, "link": {"rate": "100Gbps", "delay": "1us"}},
 "host": {"cc": "timely"$2}, "stop": "30ms", "monitor": {"interval": "1us", "queues": ["s0:2"]},
 "traffic": [{"type": "flow", "id": "f0", "src": "h0", "dst": "h2", "size": "20MB"},
             {"type": "flow", "id": "f1", "src": "h1", "dst": "h2", "size": "20MB"}]}
JSON
    ./rocesim run $o/timely-$1.json -q --no-plot -o $o/timely-$1
}
timely default ''
timely paper ', "timely": {"preset": "paper"}'
timely ns3 ', "mtu": 1000, "timely": {"preset": "hpcc-ns3"}'
# dctcp NAME HOST: four 10 GB flows h0..h3 -> h4 for 20 ms
dctcp() {
    cat >$o/dctcp-$1.json <<JSON
{"name": "dctcp-4-$1", "topology": {"type": "star", "hosts": 5, "link": {"rate": "100Gbps", "delay": "1us"}},
 "host": {"cc": "dctcp"$2}, "switch": {"ecn": {"kmin": "100KB", "kmax": "100KB"}}, "stop": "20ms",
 "monitor": {"interval": "0.5us", "queues": ["s0:4"], "flows": "none"},
 "traffic": [{"type": "flow", "src": "h0", "dst": "h4", "size": "10GB"}, {"type": "flow", "src": "h1", "dst": "h4", "size": "10GB"},
             {"type": "flow", "src": "h2", "dst": "h4", "size": "10GB"}, {"type": "flow", "src": "h3", "dst": "h4", "size": "10GB"}]}
JSON
    ./rocesim run $o/dctcp-$1.json -q --no-plot -o $o/dctcp-$1
}
dctcp rate ''
dctcp window ', "dctcp": {"window_rtt": "13us"}'
# hpcc NAME N JOIN W_AI: N long HPCC flows f0..f(N-1) -> hN for 6 ms, the last starting at JOIN (hpcc_run), every 1 us
hpcc() {
    tr=''
    i=0
    while [ $i -lt $2 ]; do
        s=0us
        [ $i -eq $(($2 - 1)) ] && s=$3
        tr="$tr${tr:+, }{\"type\": \"flow\", \"id\": \"f$i\", \"src\": \"h$i\", \"dst\": \"h$2\", \"size\": \"10GB\", \"start\": \"$s\"}"
        i=$((i + 1))
    done
    cat >$o/hpcc-$1.json <<JSON
{"name": "hpcc-$1", "topology": {"type": "star", "hosts": $(($2 + 1)), "link": {"rate": "100Gbps", "delay": "1us"}},
 "host": {"cc": "hpcc", "hpcc": {"base_rtt": "5us", "w_ai": "$4"}}, "stop": "6ms",
 "monitor": {"interval": "1us", "queues": ["s0:$2"]}, "traffic": [$tr]}
JSON
    ./rocesim run $o/hpcc-$1.json -q --no-plot -o $o/hpcc-$1
}
hpcc 4-80 4 0us 80B
hpcc 4-781 4 0us 781B
hpcc 4-1562 4 0us 1562B
hpcc join2 2 2ms 80B
hpcc join4 4 2ms 80B
hpcc join4-320 4 2ms 320B
hpcc 2 2 0us 80B
