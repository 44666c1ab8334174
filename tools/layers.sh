#!/bin/sh
# `make layers`: no file includes a header of a floor above its own.  The floors, lowest first:
#   sim < topologies < models < tools
# (tests/ and the benchmark may include any floor, and no floor may include tests/).  Every spelling the compiler
# resolves to a project header counts: "models/x.h", <models/x.h> (-I. makes both work) and "../models/x.h".
# Prints each offending include; exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
rank() {
    case $1 in
    sim) echo 0 ;; topologies) echo 1 ;; models) echo 2 ;; tools) echo 3 ;; tests) echo 4 ;; *) echo -1 ;;
    esac
}
# The first folder an include names, after any ./ or ../
first_dir='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\(\.\{1,2\}/\)*\([a-z]*\)/.*|\2|p'
bad=0
for dir in sim topologies models tools; do
    own=$(rank $dir)
    for f in $dir/*.c $dir/*.h; do
        [ -e "$f" ] || continue
        for inc in $(sed -n "$first_dir" "$f"); do
            if [ "$(rank "$inc")" -gt "$own" ]; then
                echo "$f: includes a header of $inc/, a floor above $dir/" >&2
                bad=1
            fi
        done
    done
done
[ $bad -eq 0 ] && echo "layers: sim < topologies < models < tools holds"
exit $bad
