#!/bin/sh
# docs/cc-comparison.md's runs at LOAD % (30 or 50), for the numbers it quotes (tests/test_docnums.c runs it in its
# sandbox, from the sandbox's root): the commands of the doc's own block (written for 50 %), under bash as a user
# pastes them, and the rate-only DCTCP the doc compares with (host.dctcp.window_rtt=0us).
set -e
l=$1
[ "$l" = 30 ] || [ "$l" = 50 ] || { echo "usage: cc-comparison.sh 30|50" >&2; exit 2; }
mkdir -p out/load$l
# the block after <!--#commands-->, its continuation lines joined, at this load
sed -n '/^<!--#commands-->$/,/^```$/p' docs/cc-comparison.md | sed '1,2d;$d' | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' |
    sed "s/load=0\.5/load=0.${l%0}/; s|out/load50/|out/load$l/|g; s/-50\.png/-$l.png/; s/50 % load/$l % load/" >out/load$l/runs.sh
grep -q 'host.cc=dctcp' out/load$l/runs.sh
bash -e out/load$l/runs.sh
grep 'host.cc=dctcp' out/load$l/runs.sh |
    sed "s|-o out/load$l/dctcp|-o out/load$l/dctcp-rate --set host.dctcp.window_rtt=0us|" >out/load$l/rate-only.sh
bash -e out/load$l/rate-only.sh
