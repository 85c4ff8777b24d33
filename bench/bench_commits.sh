#!/usr/bin/env bash
# Two builds of gensvd on the same data in one sitting: a change that must not move the speed
# (issue 31's refactors: "P1, P2, D2 within noise, same sitting against the previous commit").
#   P1  gensvd pca STORE -k 10, 1,000,000 variants x 2,000 samples (bench_pca_scale.sh's store)
#   P2  gensvd pca STORE -k 10, 100,000 x 20,000 (the same script's store)
#   D2  gensvd pdist -m ibs, 2,000 samples x 200,000 variants, 1% missing (bench_pdist.sh's)
# The two binaries run alternately, REPEAT times each (default 3), THREADS threads (default
# 2); reported: every wall time, the medians, new / old, peak RSS, whether the two outputs
# hold the same chunk bytes, and which array documents differ (a deliberate change of the
# schema shows there; the group's attributes, which name the command line, are left out).
# Usage: bench/bench_commits.sh OLD_GENSVD NEW_GENSVD   (e.g. a `git worktree add /tmp/base
#   REV` build against build/cli/gensvd).  PARTS="P1 P2 D2" picks parts.  Run it idle.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
OLD=$1 NEW=$2
REPEAT=${REPEAT:-3}
T=${THREADS:-2}
PARTS=${PARTS:-P1 P2 D2}
out=bench/out
res=$out/commits
mkdir -p "$res"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
echo "old: $("$OLD" --version | head -n 1)   new: $("$NEW" --version | head -n 1)"

store_for() {
    case $1 in
    P1) s=$out/sim_1000000x2000.vcz
        [ -d "$s" ] || "$NEW" simulate "$s" -m 1000000 -n 2000 -K 3 --fst 0.05 --missing 0.01 \
            --seed 1 --force -q ;;
    P2) s=$out/sim_100000x20000.vcz
        [ -d "$s" ] || "$NEW" simulate "$s" -m 100000 -n 20000 -K 3 --fst 0.05 --missing 0.01 \
            --seed 1 --force -q ;;
    D2) s=$out/pd_2000x200000.vcz
        [ -d "$s" ] || "$NEW" simulate -n 2000 -m 200000 -r 0.01 -s 7 -c 10000,2000 -q "$s" ;;
    esac
    echo "$s"
}

# run PART BIN OUT: one timed run; prints "wall rss"
run() {
    local part=$1 bin=$2 o=$3 s
    s=$(store_for "$part")
    case $part in
    P1 | P2) set -- pca "$s" -k 10 -t "$T" -o "$o" --force -q ;;
    D2) set -- pdist "$s" -m ibs -t "$T" -o "$o" --force -q ;;
    esac
    /usr/bin/time -f "%e %M" -o "$res/time" "$bin" "$@"
    cat "$res/time"
}

# compare A B: "chunks same" when every chunk of the two output groups is the same bytes, and
# the array documents (.zarray, zarr.json of arrays) that differ, if any; the group's attributes
# (command line, times) are not compared
compare() {
    local a b docs
    a=$(cd "$1" && find . -type f ! -name '.*' ! -name zarr.json | sort | xargs sha256sum)
    b=$(cd "$2" && find . -type f ! -name '.*' ! -name zarr.json | sort | xargs sha256sum)
    [ "$a" = "$b" ] && printf 'chunks same' || printf 'chunks DIFFERENT'
    docs=$(diff -r -q "$1" "$2" | sed -n 's|^Files .*/\([^/]*/[^/ ]*\) and .* differ$|\1|p' |
        grep -v -e '^[^/]*\.zarr/' -e '/\.zattrs$' | tr '\n' ' ')
    [ -z "$docs" ] || printf '; documents differ: %s' "$docs"
    echo
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "| part | old wall s | new wall s | old median | new median | new / old | peak RSS MB old / new | outputs |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"
for part in $PARTS; do
    store_for "$part" >/dev/null
    ow="" nw="" orss=0 nrss=0
    for _ in $(seq "$REPEAT"); do
        read -r w r < <(run "$part" "$OLD" "$res/old_$part.zarr")
        ow="$ow $w" orss=$r
        read -r w r < <(run "$part" "$NEW" "$res/new_$part.zarr")
        nw="$nw $w" nrss=$r
    done
    om=$(echo "$ow" | median) nm=$(echo "$nw" | median)
    printf '| %s | %s | %s | %s | %s | %.3f | %d / %d | %s |\n' "$part" "${ow# }" "${nw# }" \
        "$om" "$nm" "$(echo "$nm / $om" | bc -l)" $((orss / 1024)) $((nrss / 1024)) \
        "$(compare "$res/old_$part.zarr" "$res/new_$part.zarr")"
done
