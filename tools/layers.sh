#!/bin/sh
# `make layers`: no file includes a header of a floor above its own.  The floors, lowest first:
#   sim < topologies < models < tools
# and inside tools/, one folder per application, each on a floor of its own, with the command line on top:
#   tools/common < tools/run < tools/report < tools/explore < tools/ops < tools/live < tools/main.c
# (tests/ and the benchmark may include any floor, and no floor may include tests/).  Every spelling the compiler
# resolves to a project header counts: "models/x.h", <models/x.h> (-I. makes both work) and "../models/x.h";
# inside tools/, "tools/run/x.h" and "../run/x.h" alike (a bare "x.h" is the file's own folder).
# Prints each offending include; exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
rank() {
    case $1 in
    sim) echo 0 ;; topologies) echo 1 ;; models) echo 2 ;; tools) echo 3 ;; tests) echo 4 ;; *) echo -1 ;;
    esac
}
# The applications of tools/, lowest first; a folder not listed here is refused, so a new one gets a floor.
tools_order="common run report explore ops live"
# The first folder an include names, after any ./ or ../
first_dir='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\(\.\{1,2\}/\)*\([a-z]*\)/.*|\2|p'
bad=0
for dir in sim topologies models tools; do
    own=$(rank $dir)
    for f in $dir/*.c $dir/*.h $dir/*/*.c $dir/*/*.h; do
        [ -e "$f" ] || continue
        for inc in $(sed -n "$first_dir" "$f"); do
            if [ "$(rank "$inc")" -gt "$own" ]; then
                echo "$f: includes a header of $inc/, a floor above $dir/" >&2
                bad=1
            fi
        done
    done
done
# Inside tools/: main.c is above every application; a file of tools/APP may include its own folder and lower ones.
# The folder an include names is tools/APP/ in "tools/APP/x.h" and <tools/APP/x.h>, or "../APP/x.h" from a
# tools/ folder.  One awk for all of tools/: a loop of seds forking per file took seconds on a busy machine.
files=$(ls tools/*.c tools/*.h tools/*/*.c tools/*/*.h 2>/dev/null)
[ -z "$files" ] || awk -v order="$tools_order" '
BEGIN { n = split(order, a, " "); for (i = 1; i <= n; i++) rank[a[i]] = i - 1 }
FNR == 1 {
    app = substr(FILENAME, 7)
    skip = 0
    if (app ~ /\//) {
        sub(/\/.*/, "", app)
        where = "tools/" app "/"
        own = (app in rank) ? rank[app] : -1
        if (own < 0) { print FILENAME ": tools/" app "/ has no floor in tools/layers.sh" > "/dev/stderr"; bad = 1; skip = 1 }
    } else {
        app = ""; where = "tools/main.c"; own = n
    }
}
!skip && /^[ \t]*#[ \t]*include[ \t]*["<]/ {
    inc = ""
    if (match($0, /["<](\.\.?\/)*tools\/[a-z_]+\//)) {
        inc = substr($0, RSTART, RLENGTH - 1); sub(/.*\//, "", inc)
    } else if (app != "" && match($0, /["<]\.\.\/[a-z_]+\//)) {
        inc = substr($0, RSTART + 4, RLENGTH - 5)
        if (inc ~ /^(sim|topologies|models|tools|tests)$/) inc = ""
    }
    if (inc == "") next
    if (!(inc in rank)) {
        print FILENAME ": includes a header of tools/" inc "/, which has no floor in tools/layers.sh" > "/dev/stderr"; bad = 1
    } else if (rank[inc] > own) {
        print FILENAME ": includes a header of tools/" inc "/, a floor above " where > "/dev/stderr"; bad = 1
    }
}
END { exit bad }
' $files || bad=1
[ $bad -eq 0 ] && echo "layers: sim < topologies < models < tools, and in tools/:" \
    "$(echo $tools_order | sed 's/ / < /g') < main.c holds"
exit $bad
