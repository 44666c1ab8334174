#!/bin/sh
# Installs the Debian packages rocesim needs.  With --if-missing it first
# checks for each package's header or program and does nothing when all are
# present, so that `make` can call it on every build at no cost.  With --mpi it
# also installs OpenMPI (optional: only sweeps across machines need it; `make
# mpi`, `make deps-mpi` and `make test` ask for it, the plain `make` does not).
# With --browser, Chromium and ChromeDriver, for the live view's browser test
# (`make test` asks for them; without them that one test is skipped).
# With --capture, tshark and tcpdump, which read monitor.capture's pcap files in the capture tests (`make deps`
# and `make test` ask for them; without them those checks are skipped with a note).
# With --bench, valgrind, whose callgrind counts the instructions `make bench` and `make bench-instructions` report.
set -e
mpi=""
browser=""
capture=""
bench=""
for a in "$@"; do
    [ "$a" = "--mpi" ] && mpi=1; [ "$a" = "--browser" ] && browser=1; [ "$a" = "--capture" ] && capture=1
    [ "$a" = "--bench" ] && bench=1
done
need=""
check() { # package, test
    if ! sh -c "$2" >/dev/null 2>&1; then need="$need $1"; fi
}
check libcjson-dev  "test -f /usr/include/cjson/cJSON.h"
check libcunit1-dev "test -f /usr/include/CUnit/CUnit.h"
check libev-dev     "test -f /usr/include/ev.h"
check gnuplot-nox   "command -v gnuplot"
check libnlopt-dev  "test -f /usr/include/nlopt.h"
check libgsl-dev    "test -f /usr/include/gsl/gsl_qrng.h"
check libprotobuf-c-dev   "test -f /usr/include/protobuf-c/protobuf-c.h"
check protobuf-c-compiler "command -v protoc-c"
if [ -n "$mpi" ]; then
    check openmpi-bin    "command -v mpirun && command -v mpicc"
    check libopenmpi-dev "test -f /usr/lib/\$(gcc -print-multiarch)/openmpi/include/mpi.h"
fi
if [ -n "$browser" ]; then
    check chromium        "test -x /usr/bin/chromium"
    check chromium-driver "test -x /usr/bin/chromedriver"
fi
if [ -n "$capture" ]; then
    check tshark  "command -v tshark"
    check tcpdump "command -v tcpdump"
fi
if [ -n "$bench" ]; then
    check valgrind "command -v valgrind"
fi
if [ "$1" = "--if-missing" ] && [ -z "$need" ]; then exit 0; fi
if [ -z "$need" ]; then echo "deps: all present (libcjson-dev libcunit1-dev libev-dev gnuplot-nox libnlopt-dev libgsl-dev libprotobuf-c-dev protobuf-c-compiler)"; exit 0; fi
echo "deps: installing missing Debian packages:$need"
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the tests only read files
case "$need" in *tshark*) echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections ;; esac
$SUDO apt-get update -q
$SUDO apt-get install -y -q $need
