#!/usr/bin/env bash
# Remote I/O benchmark (remote stores issue): the simulated VCF-Zarr store (default 1,000,000
# variants x 2,000 samples, the one bench/bench_scan.sh makes with `gensvd simulate ... --seed
# 1`) served from loopback by tests/net/mock_http_server.py (Python ThreadingHTTPServer, files
# from disk, keep-alive), as plain HTTP and as a path-style S3 endpoint (bucket = bench/'s "out"
# folder; the server does not check signatures, the clients still sign), in one run:
#   gensvd dump --stats    full read + decode of call_genotype over http:// and s3://
#   zarr-python + fsspec   a[:] over HTTP (fsspec HTTPFileSystem, aiohttp) and S3 (s3fs)
#   gensvd pca -k 10       from s3:// against the same run from local disk
# Sums of the decoded arrays must agree; the PCA projections from s3:// and from disk must be
# byte-identical.  Prints wall time, decoded MB/s, ratios and peak RSS.
# Usage: bench/bench_io.sh [VARIANTS] [SAMPLES]     (needs scripts/setup.sh --tests: .venv/net)
#   GENSVD=path (default build/cli/gensvd), PY=python with zarr 3 + s3fs (default .venv/net)
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:-1000000}
N=${2:-2000}
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/net/bin/python}
out=bench/out
name=sim_${M}x${N}.vcz
store=$out/$name
mkdir -p "$out"
if [ ! -f "$store/.zmetadata" ]; then
    echo "making $store with gensvd simulate ..." >&2
    /usr/bin/time -f "simulate: %e s, peak RSS %M KB" \
        "$G" simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force
fi
bytes=$((M * N * 2))
stored=$(du -sb "$store/call_genotype" | cut -f1)

python3 tests/net/mock_http_server.py --root bench >"$out/.io_port" 2>"$out/.io_server.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$out/.io_port" ] && break; sleep 0.1; done
port=$(head -1 "$out/.io_port")
http="http://127.0.0.1:$port/out/$name"
s3="s3://out/$name"
export AWS_ACCESS_KEY_ID=BENCHKEYID AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$port"

run() { # run NAME COMMAND...: "NAME<TAB>seconds<TAB>peakKB<TAB>stdout"
    local name=$1 t0 t1 res
    shift
    t0=$(date +%s.%N)
    res=$(/usr/bin/time -f "%M" -o "$out/.rss" "$@")
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(cat "$out/.rss")" "$res"
}
sum='awk '"'"'$1=="sum"{printf "%d\n", $2}'"'"
py_read='
import sys, warnings, numpy as np, zarr
warnings.filterwarnings("ignore")
url = sys.argv[1]
so = {"anon": False, "client_kwargs": {"endpoint_url": sys.argv[2]}} if url.startswith("s3") else {}
a = zarr.open_array(url + "/call_genotype", mode="r", zarr_format=2, storage_options=so)
print(int(a[:].sum(dtype=np.int64)))
'
zv=$("$PY" -c 'import zarr, fsspec, s3fs; print(f"zarr {zarr.__version__}, fsspec {fsspec.__version__}, s3fs {s3fs.__version__}")')
{
    run "gensvd dump --stats, local disk" sh -c "$G dump '$store/call_genotype' --stats | $sum"
    run "gensvd dump --stats, http://" sh -c "$G dump '$http/call_genotype' --stats | $sum"
    run "gensvd dump --stats, s3://" sh -c "$G dump '$s3/call_genotype' --stats | $sum"
    run "zarr-python + fsspec HTTP, a[:]" "$PY" -c "$py_read" "$http" ""
    run "zarr-python + s3fs, a[:]" "$PY" -c "$py_read" "$s3" "$AWS_ENDPOINT_URL_S3"
} >"$out/io.tsv"
{
    run "gensvd pca -k 10, local disk" sh -c "$G pca -k 10 '$store' -o '$out/io_pca_local.zarr' -f -q && echo ok"
    run "gensvd pca -k 10, s3://" sh -c "$G pca -k 10 '$s3' -o '$out/io_pca_s3.zarr' -f -q && echo ok"
} >"$out/io_pca.tsv"
same=$(cmp -s <("$G" dump "$out/io_pca_local.zarr/sample_pca_projection") \
              <("$G" dump "$out/io_pca_s3.zarr/sample_pca_projection") && echo identical || echo DIFFER)

echo "read+decode of call_genotype ${M} x ${N} x 2 int8 ($((bytes / 1000000)) MB decoded, $((stored / 1000000)) MB stored), $(nproc) CPUs, $zv, $(date -u +%Y-%m-%d)"
awk -F'\t' -v bytes="$bytes" '
    NR == 1 { ref = $4 }
    NR == 2 { http = $2 }
    NR == 3 { s3 = $2 }
    { printf "%-36s %7.2f s %7.0f MB/s  peak RSS %6.0f MB  sum %s", $1, $2, bytes / $2 / 1e6,
             $3 / 1024, ($4 == ref ? "agrees" : "DIFFERS " $4)
      if (NR == 4) printf "  gensvd http:// is %.1fx faster", $2 / http
      if (NR == 5) printf "  gensvd s3:// is %.1fx faster", $2 / s3
      printf "\n" }
' "$out/io.tsv"
awk -F'\t' -v same="$same" '
    NR == 1 { base = $2 }
    { printf "%-36s %7.2f s  %.2fx local  peak RSS %6.0f MB\n", $1, $2, $2 / base, $3 / 1024 }
    END { printf "projections from s3:// and local disk: %s\n", same }
' "$out/io_pca.tsv"
