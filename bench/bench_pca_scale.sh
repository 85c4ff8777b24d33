#!/usr/bin/env bash
# PCA at scale (issue 12): gensvd against plink2, sklearn and dask on the same genotypes, in one
# sitting, with the GEMM limit of this machine measured by the same script.
#   P1 = 1,000,000 variants x 2,000 samples, P2 = 100,000 variants x 20,000 samples, P3 =
#   50,000 variants x 10,000 samples, each from `gensvd simulate -K 3 --fst 0.05 --missing 0.01
#   --seed 1`, k = 10, Patterson scaling.
# Tools (each on the same store, or the same genotypes written as .bed for plink2):
#   gensvd          default settings (P1: exact, N <= 5,000, its Gram from int8 AMX tiles where
#                   the CPU has them, --gram-kernel i8; P2: randomized, at most 8 passes)
#   gensvd_exact    --method exact: the accuracy reference (checked against numpy in the tests)
#   gensvd_est      --method krylov --stop estimate --max-iter 60: passes until every error
#                   estimate is within 1e-4 (the bulk's accuracy, at its cost), P2 only
#   gensvd_bulk     --accuracy bulk (the same promise as an option: krylov, the estimate stop,
#                   up to 60 passes), P2 and P3
#   gensvd_amx      --method exact --gram-kernel amx (bf16 hi/lo tiles on Intel AMX), P1 only;
#                   skipped where the CPU has no AMX
#   plink2_approx   plink2 --pca approx 10 --mac 1 (Debian's plink2), P1, P2 and P3
#   plink2_exact    plink2 --pca 10 --mac 1, P1 only (an N x N eigendecomposition at P2)
#   sklearn7/20     sklearn.utils.extmath.randomized_svd(Z, 10, n_iter=7 (its default) / 20) on
#                   Z (float32, in memory, from zarr-python reads), P2
#   dask            dask.array.linalg.svd_compressed(Z, 10, n_power_iter=2), Z built lazily from
#                   da.from_zarr, P2
# Accuracy against gensvd_exact: max relative error of the top-10 singular values, and the
# |corr| of the scores for PC1-2 (the population PCs) and the smallest over PC1-10 (gensvd and
# plink2, which write scores; sklearn/dask only singular values).  plink2 eigenvalues (its own
# GRM scale) are converted with s^2 = 2 M_used lambda (pairwise-complete GRM: ~1e-2 from mean
# imputation at 1% missing, so its exact mode is not a 1e-4 reference).
# Limits (bench/gemm_limit.c, OpenBLAS on every core): two float32 GEMMs per pass over P2 (and
# P3) with 20 columns, and the same two products at the FMA compute limit (float32 FMAs in
# registers on every core at once: zmm where the CPU has AVX-512, else ymm; and ymm alone, the
# limit of an AVX2 host); a float32 syrk of P1, and (where cc has -mamx-bf16/-mamx-int8 and the
# CPU AMX) P1's Gram as three bf16 or two int8 tile products at the AMX unit's rate.  gensvd's
# per-pass times come from its -v log.
# Results are cached per tool in bench/out/scale/ (FORCE=1 reruns; TOOLS="..." picks tools;
# SIZES="P1 P2" picks data).
# Usage: bench/bench_pca_scale.sh     (needs .venv/zarr3 and plink2: scripts/setup.sh --tests)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/warm.sh
. bench/warm.sh
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
K=10
out=bench/out
res=${RES:-$out/scale}
mkdir -p "$res" "$out"
nproc=$(nproc)
SIZES=${SIZES:-"P1 P2"}
TOOLS=${TOOLS:-"gensvd gensvd_exact gensvd_est gensvd_amx plink2_approx plink2_exact sklearn7 sklearn20 dask"}

cc -O2 -mamx-tile -mamx-bf16 -mamx-int8 bench/gemm_limit.c $(pkg-config --cflags --libs openblas) \
    -lpthread -o "$out/gemm_limit" 2>/dev/null ||
    cc -O2 bench/gemm_limit.c $(pkg-config --cflags --libs openblas) -lpthread -o "$out/gemm_limit"

# Debian's OpenBLAS (0.3.21) runs generic "Prescott" kernels on CPUs it does not know (Intel
# Emerald Rapids); gensvd then restarts with OPENBLAS_CORETYPE set (README, "OpenBLAS on a CPU
# it does not know").  plink2 links the same OpenBLAS: it and the GEMM limit run with the kernels
# gensvd runs (`gensvd --version`), so that no tool is timed on the slow ones; unset where
# OpenBLAS knows the CPU.  NATIVE_BLAS=1 leaves plink2 on what OpenBLAS picks by itself.
core=$("$G" --version | sed -n "s/^blas: OpenBLAS, \([A-Za-z0-9]*\) kernels (gensvd's choice.*/\1/p")
blas_env=()
[ -n "$core" ] && blas_env=(env "OPENBLAS_CORETYPE=$core")
plink_env=("${blas_env[@]}")
[ -n "${NATIVE_BLAS:-}" ] && plink_env=()

# P1_DIMS / P2_DIMS / P3_DIMS="VARIANTS SAMPLES" override the shapes (a quick check of the
# script itself)
dims() {
    case $1 in
    P1) echo "${P1_DIMS:-1000000 2000}" ;;
    P2) echo "${P2_DIMS:-100000 20000}" ;;
    P3) echo "${P3_DIMS:-50000 10000}" ;;
    esac
}

# measure NAME CMD...: wall seconds and peak RSS (KB) into $res/NAME.time, output in NAME.out/err
measure() {
    local name=$1
    shift
    if [ -s "$res/$name.time" ] && [ -z "${FORCE:-}" ]; then
        echo "$name: cached" >&2
        return 0
    fi
    echo "$name: running ..." >&2
    local t0 t1
    t0=$(date +%s.%N)
    if /usr/bin/time -f "%M" -o "$res/$name.rss" "$@" >"$res/$name.out" 2>"$res/$name.err"; then
        t1=$(date +%s.%N)
        printf '%s\t%s\n' "$(echo "$t1 - $t0" | bc)" "$(tail -n 1 "$res/$name.rss")" >"$res/$name.time"
    else
        echo "$name FAILED: $(tail -n 5 "$res/$name.err")" >&2
        rm -f "$res/$name.time"
        return 1
    fi
}

# shellcheck disable=SC2016
PY_LOAD='
import sys, warnings, numpy as np, zarr
warnings.filterwarnings("ignore")
def load_z(store):
    a = zarr.open_group(store, mode="r")["call_genotype"]
    M, N = a.shape[0], a.shape[1]
    Z = np.empty((M, N), dtype=np.float32)
    r = 0
    for j in range(0, M, 10000):
        g = a[j:min(M, j + 10000)]
        miss = (g == -1).any(axis=2)
        d = (g > 0).sum(axis=2).astype(np.float32)
        n = (~miss).sum(axis=1)
        mu = np.where(miss, 0, d).sum(axis=1) / np.maximum(n, 1)
        sd = np.sqrt(mu / 2 * (1 - mu / 2))
        keep = (n > 0) & (sd > 0)
        z = (d[keep] - mu[keep, None]) / sd[keep, None]
        z[miss[keep]] = 0
        Z[r:r + z.shape[0]] = z
        r += z.shape[0]
    return Z[:r]
'
# shellcheck disable=SC2016
PY_SKLEARN="$PY_LOAD"'
from sklearn.utils.extmath import randomized_svd
store, k, it, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
Z = load_z(store)
u, s, vt = randomized_svd(Z, k, n_iter=it, random_state=0)
open(out, "w").write("".join(repr(float(x)) + "\n" for x in s))
'
# shellcheck disable=SC2016
PY_DASK='
import sys, warnings, numpy as np, dask.array as da
warnings.filterwarnings("ignore")
store, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
gt = da.from_zarr(store + "/call_genotype").rechunk((10000, -1, -1))
miss = (gt == -1).any(axis=2)
d = (gt > 0).sum(axis=2).astype("f4")
n = (~miss).sum(axis=1)
mu = da.where(miss, 0, d).sum(axis=1) / n
sd = da.sqrt(mu / 2 * (1 - mu / 2))
ok = (n > 0) & (sd > 0)
Z = da.where(~miss & ok[:, None], (d - mu[:, None]) / da.where(ok, sd, 1)[:, None], 0).astype("f4")
u, s, v = da.linalg.svd_compressed(Z, k=k, n_power_iter=2, seed=0, compute=True)
s = np.asarray(s.compute() if hasattr(s, "compute") else s)
open(out, "w").write("".join(repr(float(x)) + "\n" for x in s[:k]))
'

for size in $SIZES; do
    read -r M N <<<"$(dims "$size")"
    store=$out/sim_${M}x${N}.vcz
    bed=$out/sim_${M}x${N}
    if [ ! -f "$store/.zmetadata" ]; then
        "$G" simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force -q
    fi
    for tool in $TOOLS; do
        name=${size}_$tool
        # every tool starts from a warm page cache (bench/warm.sh): P3's runs are 3 and 30 s
        case $tool in
        gensvd* | sklearn* | dask) warm "$store" ;;
        esac
        case $tool in
        gensvd)
            measure "$name" "$G" pca "$store" -k $K -o "$res/$name.zarr" --force -v ;;
        gensvd_exact)
            measure "$name" "$G" pca "$store" -k $K -m exact -o "$res/$name.zarr" --force -v ;;
        gensvd_est)
            [ "$size" = P2 ] || continue
            measure "$name" "$G" pca "$store" -k $K -m krylov --stop estimate --max-iter 60 \
                -o "$res/$name.zarr" --force -v ;;
        gensvd_bulk)
            [ "$size" = P1 ] && continue
            measure "$name" "$G" pca "$store" -k $K --accuracy bulk -o "$res/$name.zarr" \
                --force -v ;;
        gensvd_amx)
            [ "$size" = P2 ] && continue
            "$G" pca "$store" -m exact --gram-kernel amx --variants 0:64 -q \
                --format tsv >/dev/null 2>&1 || { echo "gensvd_amx: no AMX here, skipped" >&2; continue; }
            measure "$name" "$G" pca "$store" -k $K -m exact --gram-kernel amx -o "$res/$name.zarr" \
                --force -v ;;
        plink2_approx | plink2_exact)
            [ "$tool" = plink2_exact ] && [ "$size" != P1 ] && continue
            if [ ! -s "$bed.bed" ]; then
                echo "writing $bed.bed ..." >&2
                "$PY" tests/pca/pca_oracle.py write-bed "$store" "$bed" --chunk 10000
            fi
            warm "$bed.bed" "$bed.bim" "$bed.fam"
            if [ "$tool" = plink2_approx ]; then pca=(--pca approx "$K"); else pca=(--pca "$K"); fi
            measure "$name" "${plink_env[@]}" plink2 --bfile "$bed" --mac 1 "${pca[@]}" --threads "$nproc" \
                --out "$res/$name" || true ;;
        sklearn7 | sklearn20)
            [ "$size" = P2 ] || continue
            measure "$name" "$PY" -c "$PY_SKLEARN" "$store" $K "${tool#sklearn}" "$res/$name.sv" || true ;;
        dask)
            [ "$size" = P2 ] || continue
            measure "$name" "$PY" -c "$PY_DASK" "$store" $K "$res/$name.sv" || true ;;
        esac
    done
    export "${size}_DIMS=$M $N"
    if [ ! -s "$res/${size}_limit" ] || [ -n "${FORCE:-}" ]; then
        if [ "$size" != P1 ]; then
            "${blas_env[@]}" "$out/gemm_limit" pass "$M" "$N" 20 >"$res/${size}_limit"
            "$out/gemm_limit" fma "$M" "$N" 20 >"$res/${size}_limit_fma"
            "$out/gemm_limit" fma256 "$M" "$N" 20 >"$res/${size}_limit_fma256"
        else
            "${blas_env[@]}" "$out/gemm_limit" syrk "$M" "$N" >"$res/${size}_limit"
            "$out/gemm_limit" amx "$M" "$N" >"$res/${size}_limit_amx" 2>/dev/null ||
                rm -f "$res/${size}_limit_amx"
            "$out/gemm_limit" amx8 "$M" "$N" >"$res/${size}_limit_amx8" 2>/dev/null ||
                rm -f "$res/${size}_limit_amx8"
            "$out/gemm_limit" vnni8 "$M" "$N" >"$res/${size}_limit_vnni8" 2>/dev/null ||
                rm -f "$res/${size}_limit_vnni8"
            "$out/gemm_limit" avx2i8 "$M" "$N" >"$res/${size}_limit_avx2i8" 2>/dev/null ||
                rm -f "$res/${size}_limit_avx2i8"
        fi
    fi
done

echo
echo "PCA at scale, k = $K, $nproc CPUs, $(date -u +%Y-%m-%d); plink2 $(plink2 --version 2>/dev/null | head -n 1)"
echo "$("$G" --version | grep '^blas: ')${core:+; plink2 and the limit with OPENBLAS_CORETYPE=$core${NATIVE_BLAS:+ (the limit only)}}"
# shellcheck disable=SC2086
"$PY" - "$res" $SIZES -- $TOOLS <<'EOF'
import os, re, sys
import numpy as np
import zarr
res = sys.argv[1]
i = sys.argv.index("--")
sizes, tools = sys.argv[2:i], sys.argv[i + 1:]

def load(size, tool):
    base = os.path.join(res, f"{size}_{tool}")
    try:
        wall, rss = open(base + ".time").read().split()
    except OSError:
        return None
    r = {"wall": float(wall), "rss": int(rss) / 1024, "sv": None, "scores": None}
    if tool.startswith("gensvd"):
        z = zarr.open_group(base + ".zarr", mode="r")
        r["sv"] = z["sample_pca_singular_value"][:]
        r["scores"] = z["sample_pca_projection"][:]
        r["attrs"] = dict(z.attrs)
        r["passes"] = [float(x) for x in re.findall(r"pass \d+ \(([0-9.]+) s\)", open(base + ".err").read())]
    elif tool.startswith("plink2"):
        ev = np.loadtxt(base + ".eigenval", ndmin=1)
        r["lam"] = ev
        head = open(base + ".eigenvec").readline().split()
        first = head.index("PC1")
        vec = np.loadtxt(base + ".eigenvec", skiprows=1, usecols=range(first, first + 10), ndmin=2)
        r["scores"] = vec
    else:
        r["sv"] = np.loadtxt(base + ".sv", ndmin=1)
    return r

def corr(a, b):
    return np.array([abs(np.corrcoef(a[:, q], b[:, q])[0, 1]) for q in range(min(a.shape[1], b.shape[1]))])

for size in sizes:
    ref = load(size, "gensvd_exact")
    base = load(size, "gensvd")
    limit = dict(zip(*[iter(open(os.path.join(res, f"{size}_limit")).read().split())] * 2))
    print(f"\n{size}: {os.environ.get(size + '_DIMS', {'P1': '1000000 2000', 'P2': '100000 20000', 'P3': '50000 10000'}[size])} (variants, samples)")
    print(f"{'tool':<16}{'wall s':>9}{'x gensvd':>10}{'peak RSS MB':>13}{'max rel err s1-10':>19}{'|corr| PC1-2':>14}{'min |corr|':>12}")
    rows = {}
    for t in tools:
        r = load(size, t)
        if r is None:
            continue
        if r.get("lam") is not None and ref is not None:
            m_used = ref["attrs"]["M_used"]
            r["sv"] = np.sqrt(2 * m_used * r["lam"])
        err = c12 = cmin = float("nan")
        if ref is not None and r["sv"] is not None:
            kk = min(len(r["sv"]), len(ref["sv"]))
            err = float(np.max(np.abs(r["sv"][:kk] - ref["sv"][:kk]) / ref["sv"][:kk]))
        if ref is not None and r["scores"] is not None:
            c = corr(ref["scores"], r["scores"])
            c12, cmin = float(c[:2].min()), float(c.min())
        rows[t] = (r, err)
        ratio = r["wall"] / base["wall"] if base else float("nan")
        print(f"{t:<16}{r['wall']:>9.1f}{ratio:>10.2f}{r['rss']:>13.0f}{err:>19.2e}{c12:>14.6f}{cmin:>12.6f}")
    print(f"limit ({'two float32 GEMMs per pass, 20 columns' if size != 'P1' else 'float32 syrk'}, OpenBLAS, all cores): "
          f"{float(limit['seconds']):.2f} s at {limit['gflops']} GFLOP/s")
    for suffix, what in (("fma", "a pass's two products at the FMA compute limit, widest vectors"),
                         ("fma256", "the same on ymm: an AVX2 host's limit"),
                         ("amx", "3 bf16 tile products, the AMX unit's rate"),
                         ("amx8", "2 int8 tile products, the AMX unit's rate"),
                         ("vnni8", "2 int8 products, AVX-512 VNNI's rate"),
                         ("avx2i8", "2 int8 products, AVX2 vpmaddubsw's rate")):
        path = os.path.join(res, f"{size}_limit_{suffix}")
        if os.path.exists(path):
            la = dict(zip(*[iter(open(path).read().split())] * 2))
            print(f"limit ({what}, all cores): {float(la['seconds']):.2f} s "
                  f"at {la['gflops']} GFLOP/s")
    if base and base.get("passes"):
        p = base["passes"]
        a = base["attrs"]
        print(f"gensvd default: {a['method']}, {a['iterations']} passes, converged {a['converged']}, "
              f"bounds {', '.join(f'{x:.1e}' for x in a.get('singular_value_error_bound', []))}")
        print(f"  pass times (s): {', '.join(f'{x:.2f}' for x in p)}")
        if len(p) > 1:
            cached = float(np.median(p[1:]))
            print(f"  cached pass {cached:.2f} s = {cached / float(limit['seconds']):.2f} x the two-GEMM limit (target <= 2)")
            for suffix in ("fma", "fma256"):
                path = os.path.join(res, f"{size}_limit_{suffix}")
                if os.path.exists(path):
                    lf = float(dict(zip(*[iter(open(path).read().split())] * 2))["seconds"])
                    print(f"  cached pass = {cached / lf:.2f} x the FMA compute limit ({suffix}; "
                          f"issue 33: <= 2 on an AVX2 host)")
    def target(name, ok, err=0.0):
        if err != err:  # an accuracy target without gensvd_exact's reference in this sitting
            print(f"  target {name}: not measured (no gensvd_exact reference: TOOLS)")
            return
        print(f"  target {name}: {'met' if ok else 'NOT met'}")
    if size == "P2" and base and "plink2_approx" in rows:
        pa = rows["plink2_approx"][0]
        target(f"P2 default <= 0.1 x plink2 --pca approx ({base['wall'] / pa['wall']:.2f}x)", base["wall"] <= 0.1 * pa["wall"])
        target(f"P2 default singular values <= 1e-4 ({rows['gensvd'][1]:.1e})", rows["gensvd"][1] <= 1e-4,
               rows["gensvd"][1])
        target(f"P2 default peak RSS <= 1.5 GB ({base['rss']:.0f} MB)", base["rss"] <= 1536)
        target(f"P2 default peak RSS <= 1.0 GB, issue 33 ({base['rss']:.0f} MB)", base["rss"] <= 1024)
        if "gensvd_bulk" in rows:
            e, ee = rows["gensvd_bulk"]
            target(f"P2 --accuracy bulk <= 0.5 x plink2 --pca approx ({e['wall'] / pa['wall']:.3f}x, "
                   f"{e['attrs']['iterations']} passes, max rel err {ee:.1e})", e["wall"] <= 0.5 * pa["wall"])
            target(f"P2 --accuracy bulk singular values <= 1e-4 ({ee:.1e})", ee <= 1e-4, ee)
        if "gensvd_est" in rows:
            e, ee = rows["gensvd_est"]
            print(f"  krylov --stop estimate: {e['attrs']['iterations']} passes, {e['wall']:.1f} s = "
                  f"{e['wall'] / pa['wall']:.3f}x plink2 --pca approx, max rel err {ee:.1e} "
                  f"(converged {e['attrs']['converged']})")
    if size == "P3" and base and "plink2_approx" in rows:
        pa = rows["plink2_approx"][0]
        target(f"P3 default <= 0.1 x plink2 --pca approx ({base['wall'] / pa['wall']:.2f}x)", base["wall"] <= 0.1 * pa["wall"])
    if size == "P1" and base and "plink2_exact" in rows:
        pe = rows["plink2_exact"][0]
        target(f"P1 default <= 0.15 x plink2 --pca ({base['wall'] / pe['wall']:.2f}x)", base["wall"] <= 0.15 * pe["wall"])
        target(f"P1 default singular values <= 1e-4 ({rows['gensvd'][1]:.1e})", rows["gensvd"][1] <= 1e-4,
               rows["gensvd"][1])
    if size == "P1" and ref:
        target(f"P1 exact within 1.5 x the float32 syrk ({ref['wall'] / float(limit['seconds']):.2f}x)",
               ref["wall"] <= 1.5 * float(limit["seconds"]))
EOF
