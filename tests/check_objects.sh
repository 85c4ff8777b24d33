#!/usr/bin/env bash
# No two object files depend on each other, directly or through others (docs/dev/style.md:
# layered files, not only layered folders): with nm, an edge A -> B for every symbol A leaves undefined
# that B defines, over the objects of the libraries and of the program; any cycle (a strongly
# connected component of two or more objects) fails, printed with the symbols that close it.
# Objects whose source file no longer exists (left in a build directory after a move) are
# skipped.
# Usage: check_objects.sh BUILD_DIR [SOURCE_DIR]   (after a build; objects under
# */CMakeFiles/*.dir/; SOURCE_DIR defaults to the repository holding this script)
set -u
build=${1:?usage: check_objects.sh BUILD_DIR [SOURCE_DIR]}
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
command -v nm >/dev/null || { echo "nm not found" >&2; exit 2; }
objs=$(find "$build" -path '*/CMakeFiles/*.dir/*' -name '*.o' \
    \( -path '*/common/*' -o -path '*/zarr/*' -o -path '*/analysis/*' -o -path '*/gpu/*' \
    -o -path '*/mpi/*' -o -path '*/plot/*' -o -path '*/lib/CMakeFiles/*.dir/*' \
    -o -path '*/cli/CMakeFiles/*.dir/*' \) | sort)
[ -n "$objs" ] || { echo "no object files under $build" >&2; exit 2; }
tab=$(mktemp) || exit 2
trap 'rm -f "$tab"' EXIT
for o in $objs; do
    name=${o#"$build"/}
    name=${name/CMakeFiles\/*.dir\//}
    [ -f "$src/${name%.o}" ] || continue # a stale object of a moved or deleted source
    nm -P "$o" 2>/dev/null | awk -v n="$name" '$2 ~ /^[TDBRVWCGSI]$/ { print "D", n, $1 } $2 == "U" { print "U", n, $1 }'
done >"$tab"
python3 - "$tab" <<'PY'
import sys
from collections import defaultdict
defs, uses = {}, defaultdict(set)
for line in open(sys.argv[1]):
    kind, obj, sym = line.split()
    if kind == "D":
        defs.setdefault(sym, obj)
    else:
        uses[obj].add(sym)
edges = defaultdict(dict)
objs = set(defs.values()) | set(uses)
for a in uses:
    for s in uses[a]:
        b = defs.get(s)
        if b and b != a:
            edges[a].setdefault(b, s)
# Tarjan's strongly connected components
index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        comps.append(comp)
for v in sorted(objs):
    if v not in index:
        visit(v)
fail = 0
for comp in comps:
    if len(comp) < 2:
        continue
    fail += 1
    members = set(comp)
    print("FAIL objects depend on each other: " + " ".join(sorted(comp)))
    for a in sorted(comp):
        for b, s in sorted(edges[a].items()):
            if b in members:
                print(f"    {a} -> {b} ({s})")
print(f"{len(objs)} objects, {sum(len(e) for e in edges.values())} edges: "
      f"{'no cycle' if not fail else str(fail) + ' cycle(s)'}")
sys.exit(1 if fail else 0)
PY
