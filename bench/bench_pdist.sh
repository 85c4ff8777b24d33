#!/usr/bin/env bash
# pdist benchmark (issue 4), in one run on the same data:
#   scipy   1,000 samples x 20,000 variants (simulated, no missing calls): gensvd pdist -m M
#           (end to end: open, read, decode, compute, write Zarr) against
#           scipy.spatial.distance.pdist(X, M) on the dosage matrix already in memory (loading
#           not timed), for cityblock and euclidean; error = max relative difference
#   plink   2,000 samples x 200,000 variants, 1% missing calls; the same genotypes as a .bed
#           (tests/pca/pca_oracle.py write-bed, cached): plink1.9 --distance square
#           bin 1-ibs flat-missing and --distance square bin flat-missing (allele counts, binary
#           float64 output as in shared/reference/pdist.md), --threads = all cores,
#           against gensvd -m ibs and -m cityblock --missing scale (the same definitions),
#           plus gensvd -m euclidean (pairwise); error = max relative |gensvd - plink|
#   memory  20,000 samples x 20,000 variants, 1% missing, gensvd -m ibs --memory 2G to a
#           square Zarr (N^2 = 3.2 GB of float64 distances): bands, passes, peak RSS
# Reported: wall time, pair-variants per second (N(N-1)/2 x M / time), peak RSS
# (/usr/bin/time %M), ratios.  Data are cached in bench/out/ (FORCE=1 recomputes results).
#
# Usage: bench/bench_pdist.sh   (needs .venv/zarr3 with scipy, plink1.9)
#   GENSVD=path (default build/cli/gensvd), PY=python (default .venv/zarr3/bin/python),
#   PARTS="scipy plink memory" picks parts, THREADS (default: all cores)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
PARTS=${PARTS:-scipy plink memory}
T=${THREADS:-$(nproc)}
out=bench/out
mkdir -p "$out"
PLINK1=$(command -v plink1.9 || command -v plink || true)
tm() { /usr/bin/time -f "%e %M" -o "$out/.time" "$@"; read -r wall rss <"$out/.time"; }
. bench/warm.sh
rate() { "$PY" -c "import sys; n,m,t=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[3]); print(f'{n*(n-1)/2*m/t:.3g}')" "$@"; }
printf '%-10s %-34s %9s %12s %9s %12s\n' part tool wall_s pairvar/s rss_MB error

if [[ " $PARTS " == *" scipy "* ]]; then
    S=$out/pd_1000x20000.vcz
    [ -d "$S" ] || "$G" simulate -n 1000 -m 20000 -s 3 -c 5000,1000 -q "$S"
    for m in cityblock euclidean; do
        tm "$G" pdist "$S" -m "$m" -t "$T" -o "$out/pd_scipy_$m.zarr" -f -q
        gw=$wall grss=$rss
        res=$("$PY" - "$S" "$out/pd_scipy_$m.zarr" "$m" <<'PY'
import sys, time, numpy as np, zarr
from scipy.spatial.distance import pdist, squareform
gt = zarr.open_group(sys.argv[1], mode="r")["call_genotype"][:]
X = (gt > 0).sum(axis=2).T.astype(np.float64)          # samples x variants, no missing
t = time.perf_counter(); ref = pdist(X, sys.argv[3]); t = time.perf_counter() - t
got = squareform(zarr.open_group(sys.argv[2], mode="r")["distance"][:], checks=False)
err = np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300))
print(f"{t:.3f} {err:.2e}")
PY
)
        read -r sw err <<<"$res"
        printf '%-10s %-34s %9.2f %12s %9d %12s\n' scipy "gensvd -m $m" "$gw" "$(rate 1000 20000 "$gw")" $((grss / 1024)) "$err"
        printf '%-10s %-34s %9.2f %12s %9s %12s\n' scipy "scipy pdist $m (in memory)" "$sw" "$(rate 1000 20000 "$sw")" - -
        "$PY" -c "print(f'{\"scipy\":<10} {\"ratio scipy/gensvd $m\":<34} {$sw/$gw:9.1f}x')"
    done
fi

if [[ " $PARTS " == *" plink "* ]]; then
    S=$out/pd_2000x200000.vcz
    B=$out/pd_2000x200000
    [ -d "$S" ] || "$G" simulate -n 2000 -m 200000 -r 0.01 -s 7 -c 10000,2000 -q "$S"
    [ -f "$B.bed" ] || "$PY" tests/pca/pca_oracle.py write-bed "$S" "$B" >/dev/null
    for spec in "ibs:1-ibs flat-missing:mdist:--missing pairwise" \
        "cityblock:flat-missing:dist:--missing scale"; do
        IFS=: read -r m popts ext gopts <<<"$spec"
        warm "$S"
        tm "$G" pdist "$S" -m "$m" $gopts -t "$T" -o "$out/pd_plink_$m.zarr" -f -q
        gw=$wall grss=$rss
        warm "$B.bed"
        # shellcheck disable=SC2086
        tm "$PLINK1" --bfile "$B" --distance square bin $popts --threads "$T" --out "$out/pd_plink_$m" --allow-extra-chr >/dev/null
        pw=$wall prss=$rss
        err=$("$PY" - "$out/pd_plink_$m.zarr" "$out/pd_plink_$m.$ext.bin" <<'PY'
import sys, numpy as np, zarr
got = zarr.open_group(sys.argv[1], mode="r")["distance"][:]
ref = np.fromfile(sys.argv[2], dtype="<f8").reshape(got.shape)
print(f"{np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300)):.2e}")
PY
)
        printf '%-10s %-34s %9.2f %12s %9d %12s\n' plink "gensvd -m $m $gopts" "$gw" "$(rate 2000 200000 "$gw")" $((grss / 1024)) "$err"
        printf '%-10s %-34s %9.2f %12s %9d %12s\n' plink "plink1.9 --distance $popts" "$pw" "$(rate 2000 200000 "$pw")" $((prss / 1024)) -
        "$PY" -c "print(f'{\"plink\":<10} {\"ratio plink/gensvd $m\":<34} {$pw/$gw:9.1f}x')"
    done
    tm "$G" pdist "$S" -m euclidean -t "$T" -o "$out/pd_plink_euclidean.zarr" -f -q
    printf '%-10s %-34s %9.2f %12s %9d %12s\n' plink "gensvd -m euclidean (pairwise)" "$wall" "$(rate 2000 200000 "$wall")" $((rss / 1024)) -
    rm -f "$out"/pd_plink_*.bin
fi

if [[ " $PARTS " == *" memory "* ]]; then
    S=$out/pd_20000x20000.vcz
    [ -d "$S" ] || "$G" simulate -n 20000 -m 20000 -r 0.01 -s 9 -c 1000,20000 -q "$S"
    tm "$G" pdist "$S" -m ibs --memory 2G -t "$T" -o "$out/pd_mem.zarr" -f -v 2>"$out/.log"
    plan=$(grep -o '[0-9]* band(s), [0-9]* pass(es)' "$out/.log" || true)
    printf '%-10s %-34s %9.2f %12s %9d %12s\n' memory "gensvd -m ibs --memory 2G" "$wall" "$(rate 20000 20000 "$wall")" $((rss / 1024)) "$plan"
    rm -rf "$out/pd_mem.zarr"
fi
