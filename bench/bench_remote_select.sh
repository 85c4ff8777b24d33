#!/usr/bin/env bash
# A selection read from a distant server: the simulated 1,000,000 x 2,000 store (the one
# bench/bench_scan.sh makes: 1,000 chunk rows of 1,000 variants) served by
# tests/net/mock_http_server.py in its `latency` mode, every chunk request answered after
# LATENCY seconds (default 0.02: an object store's first-byte latency), as a whole-genome store
# is read with `--chr 1,22`: `gensvd pca -k 10 --extract-range` keeping the first and the last
# 100,000 variants (20%).  Runs each binary given (e.g. a build of an older commit beside the
# current one) on the same server in one sitting, alternating, and prints wall time, the chunk
# requests the server answered, the most in flight at once, and the local run's time; every
# run's scores must be byte-identical to the local run's.
# Usage: bench/bench_remote_select.sh [GENSVD ...]   (default build/cli/gensvd; needs .venv/net)
#   LATENCY=seconds (0.02), REPS=runs per binary (3)
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(build/cli/gensvd)
LAT=${LATENCY:-0.02}
REPS=${REPS:-3}
PY=${PY:-.venv/net/bin/python}
out=bench/out
name=sim_1000000x2000.vcz
store=$out/$name
if [ ! -f "$store/.zmetadata" ]; then
    echo "making $store with gensvd simulate ..." >&2
    "${bins[0]}" simulate "$store" -m 1000000 -n 2000 -K 3 --fst 0.05 --missing 0.01 --seed 1 \
        --force
fi
ranges=$out/remote_select.ranges
printf '1\t1\t9999901\n1\t90000001\t100000000\n' >"$ranges" # variants 0-99,999 and 900,000-
. bench/warm.sh
warm "$store"

# the server, with a control file: each run's request count and peak in flight come back
"$PY" - "$out" "$LAT" >"$out/.rs_port" 2>"$out/.rs_server.log" <<'EOF' &
import os, sys, threading, time
sys.path.insert(0, "tests/net")
from mock_http_server import MockServer
srv = MockServer(sys.argv[1], "latency", stall=float(sys.argv[2])).start()
print(srv.port, flush=True)
ctl = os.path.join(sys.argv[1], ".rs_ctl")
while True:  # "reset": zero the counters; "report": write them to .rs_report
    if os.path.exists(ctl):
        what = open(ctl).read().strip()
        os.remove(ctl)
        with srv.lock:
            if what == "report":
                n = sum(v for k, v in srv.counts.items() if "/call_genotype/" in k)
                pos = srv.peak.get("sim_1000000x2000.vcz/variant_position", 0)
                with open(ctl.replace("ctl", "report.tmp"), "w") as f:
                    f.write(f"{n}\t{pos}\n")
                os.rename(ctl.replace("ctl", "report.tmp"), ctl.replace("ctl", "report"))
            else:
                srv.counts.clear()
                srv.peak.clear()
    time.sleep(0.05)
EOF
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$out/.rs_port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$out/.rs_port")/$name"
ctl() { # ctl reset|report
    rm -f "$out/.rs_report"
    echo "$1" >"$out/.rs_ctl"
    if [ "$1" = report ]; then
        for _ in $(seq 100); do [ -f "$out/.rs_report" ] && break; sleep 0.05; done
        cat "$out/.rs_report"
    else
        while [ -f "$out/.rs_ctl" ]; do sleep 0.05; done
    fi
}
pca() { # pca GENSVD INPUT OUTFILE: prints the wall time
    local t0 t1
    t0=$(date +%s.%N)
    "$1" pca "$2" -k 10 -t 2 --extract-range "$ranges" --format tsv -q >"$3"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
    "$(date -u +%Y-%m-%d); latency ${LAT} s a chunk request; pca -k 10 of 200,000 of 1,000,000 variants"
tl=$(pca "${bins[0]}" "$store" "$out/.rs_local.tsv")
printf 'local disk\t%s s\n' "$tl"
printf 'binary\trun\twall s\tcall_genotype requests\tvariant_position in flight\tsame scores\n'
for r in $(seq "$REPS"); do
    for b in "${bins[@]}"; do
        ctl reset
        t=$(pca "$b" "$url" "$out/.rs_remote.tsv")
        rep=$(ctl report)
        same=no
        cmp -s "$out/.rs_local.tsv" "$out/.rs_remote.tsv" && same=yes
        printf '%s\t%s\t%s\t%s\t%s\n' "$b" "$r" "$t" "$rep" "$same"
    done
done
