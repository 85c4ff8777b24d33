#!/usr/bin/env bash
# The GPU check: every GPU figure of gensvd's CUDA backend in one call on a machine lent for a
# few minutes (docs/dev/testing.md, "The GPU check").  Run from the repository root on the GPU
# machine, with the bundle made here by scripts/gpu-bundle.sh carried in .gpu-bundle/:
#     bash scripts/gpu-check.sh
# It needs nothing on the machine but bash, coreutils, tar, Python 3 with numpy, and the CUDA
# toolkit's libraries under /usr/local/cuda; nvidia-smi and compute-sanitizer where present.
# Steps, in order, each under a time limit of its own (a step that hangs is killed and the next
# one starts); a step that does not fit the time left is skipped and says so:
#   bundle           unpack, check against the manifest, every library resolves (no GPU)
#   env              machine, glibc, Python/numpy, tools, gensvd --version (no GPU)
#   gpu_info         nvidia-smi, driver, CUDA runtime, device; gensvd picks the GPU
#   test_cuda_module the module's linkage test (no GPU)
#   test_backend_cuda, test_pdist_gpu   the GPU tests (ctest -L gpu); a skip (77) is a failure
#                    on a machine with a GPU, with the reason the module gave
#   parity_hapmap3, parity_sim          GPU against CPU: pca exact and randomized (singular
#                    values, scores, 3 GPU runs byte-identical), pdist every metric (bit for
#                    bit), king --min-kinship, related (scripts/gpu_check.py)
#   memcheck         compute-sanitizer memcheck: test_backend_cuda (ops, pdist), gensvd pca
#                    and pdist on the GPU
#   gemm_limit       the GPU's limits (bench/gemm_limit_cuda.cu)
#   bench_p1, bench_p2, bench_pdist     P1 (1,000,000 x 2,000) and P2 (100,000 x 20,000) pca,
#                    pdist ibs on P2, GPU against CPU: wall, device busy share, rate against the
#                    limit, peak GPU memory; stores simulated here (scaled down if simulating
#                    them would not fit: said in the step's detail)
#   racecheck        compute-sanitizer racecheck on the pdist tile kernel
#   mpi              skipped: Open MPI is not on the device image, and not bundled
# Results go to $OUT (default ./gpu-check-out), at most 8 files, written as the steps end, so
# a killed run still leaves what it measured: summary.tsv (step, status, seconds, detail),
# check.log (this output, timestamped), env.txt, parity.tsv, limits.tsv, bench.tsv, bench.md
# (a table for bench/README.md), logs.tar.gz (every step's full log).
# Without a GPU (or with --rehearse) the same script runs every step that needs none, runs the
# GPU steps' commands with --device cpu on both sides at small sizes, prints which steps need a
# GPU and exits 0 unless something failed: the rehearsal, run by ctest (gpu_check_rehearsal).
#
# Usage: bash scripts/gpu-check.sh [--rehearse] [--budget SECONDS] [--only STEP,...]
#                                  [--skip STEP,...] [--out DIR] [--list]
#   --budget  wall seconds for the whole run (default 460: 8 minutes with room to pack up)
# Environment: OUT (results), TMPDIR (work files, ~5 GB at full size, removed at the end unless
# GENSVD_KEEP_WORK=1), GENSVD_PYTHON (a Python with numpy, when python3 has none).
# Exit status: 0 no step failed, 1 a step failed, 2 usage error, 77 --rehearse without a bundle.
set -u
set -o pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
SELF=$ROOT/scripts/gpu-check.sh

STEPS=(bundle env gpu_info test_cuda_module test_backend_cuda test_pdist_gpu parity_hapmap3
    parity_sim memcheck gemm_limit bench_p1 bench_p2 bench_pdist racecheck mpi)
declare -A LIMIT=([bundle]=60 [env]=30 [gpu_info]=45 [test_cuda_module]=30
    [test_backend_cuda]=120 [test_pdist_gpu]=150 [parity_hapmap3]=100 [parity_sim]=100
    [memcheck]=75 [gemm_limit]=60 [bench_p1]=110 [bench_p2]=110 [bench_pdist]=110
    [racecheck]=60 [mpi]=5)
declare -A NEEDS_GPU=([gpu_info]=1 [test_backend_cuda]=1 [test_pdist_gpu]=1 [parity_hapmap3]=1
    [parity_sim]=1 [memcheck]=1 [gemm_limit]=1 [bench_p1]=1 [bench_p2]=1 [bench_pdist]=1
    [racecheck]=1 [mpi]=1)

# ---- step mode: `gpu-check.sh --step NAME` runs one step (under timeout, from the main run) --

detail() { printf '%s\n' "$*" >"$GC_WORK/detail/$GC_STEP"; }
say() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# A GPU step's program exited 77 ("skipped"): a failure where there is a GPU, the expected
# answer in the rehearsal.  $1 rc, $2 what, $3 its output.
gpu_test_result() {
    local rc=$1 what=$2 output=$3 why
    why=$(printf '%s\n' "$output" | grep -i -m1 'skipped' | cut -c1-300)
    if [ "$GC_GPU" = 1 ]; then
        case $rc in
        0) detail "$what: $(printf '%s\n' "$output" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)"
            return 0 ;;
        77) detail "$what skipped (77) on a machine with a GPU: ${why:-no reason printed}"
            return 1 ;;
        *) detail "$what exit $rc: $(printf '%s\n' "$output" | grep -m3 -E 'FAIL|error' | tr '\n' ' ' | cut -c1-300)"
            return 1 ;;
        esac
    fi
    if [ "$rc" = 77 ]; then
        detail "needs a GPU (ran: exit 77 as expected here: ${why:-})"
        return 77
    fi
    detail "needs a GPU, and without one it should exit 77, not $rc"
    return 1
}

# Where the CUDA libraries are, when the programs' RPATH (/usr/local/cuda/lib64, lib) misses
# them: a fallback for the steps after env, reported as env's failure.
find_cuda_libs() {
    local d
    for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/*/lib \
        /usr/local/cuda-*/lib64 /usr/local/cuda-*/targets/*/lib /usr/lib/x86_64-linux-gnu; do
        [ -e "$d/libcudart.so.13" ] && [ -e "$d/libcublas.so.13" ] && { echo "$d"; return 0; }
    done
    d=$(find / -xdev -maxdepth 7 -name 'libcublas.so.13' 2>/dev/null | head -1)
    [ -n "$d" ] && dirname "$d"
}

step_bundle() {
    local tb=$ROOT/.gpu-bundle/gensvd-bundle.tar.xz glibc need libs out rc
    if [ ! -f "$tb" ]; then
        detail "no .gpu-bundle/gensvd-bundle.tar.xz: run scripts/gpu-bundle.sh on the build machine and carry .gpu-bundle"
        return 1
    fi
    rm -rf "$GC_WORK/gensvd-bundle"
    if command -v xz >/dev/null; then
        tar -C "$GC_WORK" -xJf "$tb" || { detail "cannot unpack $tb"; return 1; }
    else
        "$GC_PY" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
            "$tb" "$GC_WORK" || { detail "cannot unpack $tb (no xz; Python's tarfile failed)"; return 1; }
    fi
    head -4 "$GC_B/MANIFEST.txt"
    # glibc: the bundle's libraries that need a newer one than the machine's give way to the
    # machine's own copy where it has one (libstdc++, libgcc_s)
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
    need=$(sed -n 's/^glibc: \([0-9.]*\).*/\1/p' "$GC_B/MANIFEST.txt")
    say "glibc here ${glibc:-unknown}; the bundle needs $need or newer"
    while IFS=$'\t' read -r path _ _ g; do
        g=${g#glibc }
        case "$path" in lib/*) ;; *) continue ;; esac
        [ -n "$glibc" ] && [ "$g" != - ] || continue
        if [ "$(printf '%s\n%s\n' "$g" "$glibc" | sort -V | head -1)" != "$g" ]; then
            if ldconfig -p 2>/dev/null | grep -q " ${path#lib/} "; then
                say "$path needs glibc $g > $glibc: using the machine's own ${path#lib/}"
                mv "$GC_B/$path" "$GC_B/$path.newer-glibc"
            else
                say "$path needs glibc $g > $glibc and the machine has no ${path#lib/}"
            fi
        fi
    done <"$GC_B/MANIFEST.txt"
    out=$(bash "$ROOT/tests/gpu/test_gpu_bundle.sh" --unpacked "$GC_B" "$ROOT/testdata" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    libs=$(find "$GC_B/lib" -type f ! -name '*.newer-glibc' | wc -l)
    if [ $rc = 0 ]; then
        detail "$(du -sh "$tb" | cut -f1) packed, $(du -sh "$GC_B" | cut -f1) unpacked, $libs libraries; $(printf '%s\n' "$out" | grep '^test_gpu_bundle:' | sed 's/^test_gpu_bundle: [^:]*: //')"
        return 0
    fi
    detail "incomplete: $(printf '%s\n' "$out" | grep -m3 FAIL | tr '\n' ' ' | cut -c1-400)"
    return 1
}

step_env() {
    local e=$GC_OUT/env.txt ver np cudaline lib
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(uname -srm)"
        echo "os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}")"
        echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"
        echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
        echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
        echo "work space: $(df -h "$GC_WORK" | awk 'NR == 2 {print $4 " free on " $6}')"
        echo "python: $("$GC_PY" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)' 2>&1)"
        echo "nvcc: $( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | sed -n 's/.*release //p')"
        echo "nvidia-smi: $(command -v nvidia-smi || echo none)"
        echo "compute-sanitizer: $(sanitizer || echo none)"
        echo "ncu: $(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo none)"
        echo "nsys: $(command -v nsys || echo none)"
        echo "cuda libraries: $(ls -d /usr/local/cuda*/lib* 2>/dev/null | tr '\n' ' ')"
        echo "bundle: $(head -1 "$GC_B/MANIFEST.txt" 2>/dev/null)"
        echo "== gensvd --version"
        "$GC_G" --version 2>&1
    } >"$e" 2>&1
    cat "$e"
    ver=$("$GC_G" --version 2>&1)
    cudaline=$(printf '%s\n' "$ver" | grep '^cuda:')
    np=$(sed -n 's/^python: //p' "$e")
    if ! printf '%s\n' "$cudaline" | grep -q '^cuda: CUDA [0-9]'; then
        lib=$(find_cuda_libs)
        if [ -n "$lib" ]; then
            echo "$lib" >"$GC_WORK/ld_fallback"
            detail "the CUDA module did not load by its RPATH: ${cudaline#cuda: }; the CUDA libraries are in $lib: the next steps run with LD_LIBRARY_PATH=$lib"
        else
            detail "the CUDA module did not load: ${cudaline#cuda: }; no libcublas.so.13 found on this machine"
        fi
        return 1
    fi
    case "$np" in *numpy*) ;; *) detail "no numpy for $GC_PY: $np"; return 1 ;; esac
    detail "$(sed -n 's/^os: //p' "$e"), glibc $(sed -n 's/^glibc: glibc //p' "$e"), $(nproc) cpus, $(sed -n 's/^memory: //p' "$e"); python $np; ${cudaline}"
}

sanitizer() {
    local c
    for c in "$(command -v compute-sanitizer 2>/dev/null)" /usr/local/cuda/bin/compute-sanitizer \
        /usr/local/cuda/compute-sanitizer/compute-sanitizer /opt/nvidia/*/compute-sanitizer \
        /opt/nvidia/nsight-compute/*/compute-sanitizer/compute-sanitizer; do
        [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
    done
    return 1
}

step_gpu_info() {
    local out rc name
    if [ "$GC_GPU" != 1 ]; then # the rehearsal: the programs start and say why there is no GPU
        local rt
        out=$("$GC_B/bin/gemm_limit_cuda" info 2>&1)
        printf '%s\n' "$out"
        rt=$(printf '%s\n' "$out" | sed -n 's/^cuda_runtime\t//p')
        [ -n "$rt" ] || { detail "gemm_limit_cuda info: $out"; return 1; }
        out=$("$GC_G" pca "$GC_HM" -k 2 --variants 0:2000 --device gpu 2>&1 >/dev/null)
        rc=$?
        printf '%s\n' "$out"
        [ $rc = 3 ] || { detail "gensvd pca --device gpu without a GPU: exit $rc, not 3"; return 1; }
        detail "needs a GPU (here: CUDA runtime $rt; gensvd --device gpu exits 3: $(printf '%s\n' "$out" | tail -1 | cut -c1-160))"
        return 77
    fi
    nvidia-smi 2>&1 | head -30
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit,pcie.link.gen.current \
        --format=csv 2>&1
    "$GC_B/bin/gemm_limit_cuda" info >"$GC_WORK/gpu_info.tsv" 2>&1
    cat "$GC_WORK/gpu_info.tsv"
    out=$("$GC_G" pca "$GC_HM" -k 2 --variants 0:2000 --device gpu -v --format tsv 2>&1 >/dev/null)
    rc=$?
    printf '%s\n' "$out" | grep -E 'cuda|backend'
    if grep -q '^device' "$GC_WORK/gpu_info.tsv"; then
        name=$(awk -F'\t' '$1 == "device" {d = $2} $1 == "cuda_runtime" {r = $2} $1 == "cuda_driver_api" {v = $2} $1 == "memory_gib" {m = $2} $1 == "multiprocessors" {s = $2} END {printf "%s, %s SMs, %s GiB; CUDA runtime %s, driver API %s", d, s, m, r, v}' "$GC_WORK/gpu_info.tsv")
    else
        name="gemm_limit_cuda info: $(tail -1 "$GC_WORK/gpu_info.tsv" | cut -c1-200)"
    fi
    name="$name; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
    if [ $rc != 0 ]; then
        detail "$name; gensvd pca --device gpu exit $rc: $(printf '%s\n' "$out" | grep -m1 -E 'E::|error' | cut -c1-300)"
        return 1
    fi
    detail "$name; gensvd: $(printf '%s\n' "$out" | grep -m1 'cuda: device' | sed 's/.*cuda: //')"
}

step_test_cuda_module() {
    local out rc
    out=$("$GC_B/bin/test_cuda_module" "$GC_B/bin/gensvd_cuda.so" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    case $rc in
    0) detail "the module logs and allocates through the program's table" ;;
    77) detail "the module did not load: $(printf '%s\n' "$out" | grep -m1 skipped)"; return 1 ;;
    *) detail "exit $rc: $(printf '%s\n' "$out" | grep -m2 FAIL | tr '\n' ' ')"; return 1 ;;
    esac
}

# Run a test program with its output streamed to the step's log (a killed step keeps what it
# printed) and kept in $GC_WORK/$1.out; returns its exit status.
streamed() {
    local name=$1
    shift
    "$@" 2>&1 | tee "$GC_WORK/$name.out"
    return "${PIPESTATUS[0]}"
}

step_test_backend_cuda() {
    streamed test_backend_cuda "$GC_B/bin/test_backend_cuda" "$GC_HM"
    gpu_test_result $? test_backend_cuda "$(cat "$GC_WORK/test_backend_cuda.out")"
}

step_test_pdist_gpu() {
    PYTHONUNBUFFERED=1 streamed test_pdist_gpu "$GC_PY" "$ROOT/tests/gpu/test_pdist_gpu.py" "$GC_G"
    gpu_test_result $? test_pdist_gpu "$(cat "$GC_WORK/test_pdist_gpu.out")"
}

# The parity checks of scripts/gpu_check.py on STORE; in the rehearsal (a SAMPLES file) pdist
# and related take those samples, pca 3,000 variants and two runs, so that it stays short.
parity() {
    local store=$1 label=$2 samples=${3:-} rc=0 sel=() out runs=3 vsel=()
    [ "$GC_GPU" = 1 ] || runs=2
    if [ -n "$samples" ]; then
        sel=(--samples "$samples")
        vsel=(--variants 0:3000)
    fi
    PYTHONUNBUFFERED=1 "$GC_PY" "$ROOT/scripts/gpu_check.py" pca-parity "$GC_G" "$store" "$label" \
        "$GC_DEV" "$GC_OUT/parity.tsv" --k 10 --runs $runs "${vsel[@]}" || rc=1
    PYTHONUNBUFFERED=1 "$GC_PY" "$ROOT/scripts/gpu_check.py" pdist-parity "$GC_G" "$store" \
        "$label" "$GC_DEV" "$GC_OUT/parity.tsv" "${sel[@]}" || rc=1
    PYTHONUNBUFFERED=1 "$GC_PY" "$ROOT/scripts/gpu_check.py" related-parity "$GC_G" "$store" \
        "$label" "$GC_DEV" "$GC_OUT/parity.tsv" "${sel[@]}" || rc=1
    out=$(awk -F'\t' -v l="$label" '$1 == l {n++; if ($6 == "fail") {f++; if (f <= 3) w = w " | " $2 ": " $3 " " $4}} END {printf "%d checks, %d failed%s", n, f, w}' "$GC_OUT/parity.tsv")
    if [ "$GC_GPU" = 1 ]; then
        detail "$out"
        return $rc
    fi
    if [ $rc = 0 ]; then
        detail "needs a GPU; its commands ran with --device cpu on both sides: $out"
        return 77
    fi
    detail "its commands failed with --device cpu on both sides: $out"
    return 1
}

step_parity_hapmap3() {
    local samples=""
    if [ "$GC_GPU" != 1 ]; then # the rehearsal: 150 samples for pdist and related
        samples=$GC_WORK/hapmap3_150.txt
        "$GC_G" dump "$GC_HM/sample_id" --slice 0:150 >"$samples" || return 1
    fi
    parity "$GC_HM" hapmap3 "$samples"
}

step_parity_sim() {
    local store=$GC_WORK/parity_sim.vcz m=20000 n=1500
    [ "$GC_GPU" = 1 ] || { m=3000; n=200; }
    "$GC_G" simulate "$store" -m $m -n $n -K 3 --fst 0.05 --missing 0.01 --seed 7 -f -q ||
        { detail "simulate failed"; return 1; }
    parity "$store" "sim_${m}x${n}"
}

# compute-sanitizer TOOL ARGS...: its ERROR SUMMARY; 0 when it found nothing (OpenBLAS's kernels
# named, so that gensvd does not restart itself under the tool)
sanitize() {
    local tool=$1 rc
    shift
    OPENBLAS_CORETYPE=Haswell streamed sanitize "$SAN" --tool "$tool" --error-exitcode 99 \
        --print-limit 20 "$@"
    rc=$?
    SUMMARY="$SUMMARY $(basename "$1") $(basename "$2") $3: $(grep -m1 'ERROR SUMMARY' "$GC_WORK/sanitize.out" | sed 's/.*ERROR SUMMARY: //') (exit $rc);"
    return $rc
}

step_memcheck() {
    local rc=0
    SAN=$(sanitizer) || { detail "compute-sanitizer not found (PATH, /usr/local/cuda, /opt/nvidia)"; return 77; }
    SUMMARY=""
    sanitize memcheck "$GC_B/bin/test_backend_cuda" "$GC_HM" ops pdist || rc=1
    sanitize memcheck "$GC_G" pca "$GC_HM" --device gpu -k 4 --method randomized --variants 0:4000 \
        --format tsv -q || rc=1
    sanitize memcheck "$GC_G" pca "$GC_HM" --device gpu -k 4 --method exact --variants 0:4000 \
        --format tsv -q || rc=1
    sanitize memcheck "$GC_G" pdist "$GC_HM" --device gpu -m ibs --variants 0:2000 -q \
        --format tsv || rc=1
    detail "${SUMMARY% ;}"
    return $rc
}

step_racecheck() {
    local rc=0
    SAN=$(sanitizer) || { detail "compute-sanitizer not found (PATH, /usr/local/cuda, /opt/nvidia)"; return 77; }
    SUMMARY=""
    sanitize racecheck "$GC_B/bin/test_backend_cuda" "$GC_HM" pdist || rc=1
    detail "${SUMMARY% ;}"
    return $rc
}

step_gemm_limit() {
    local l=$GC_OUT/limits.tsv rc=0 a
    if [ "$GC_GPU" != 1 ]; then # the rehearsal: it starts and checks its arguments
        "$GC_B/bin/gemm_limit_cuda" 2>&1
        [ $? = 2 ] || { detail "gemm_limit_cuda without arguments: not a usage error"; return 1; }
        detail "needs a GPU (gemm_limit_cuda starts here)"
        return 77
    fi
    printf 'mode\tshape\tseconds\trate\tunit\n' >"$l"
    for a in "popc" "h2d 1024" "sgemm 8192 8192 8192" "pass 100000 20000 20" \
        "ssyrk 1000000 2000" "dsyrk 100000 20000"; do
        # shellcheck disable=SC2086
        timeout 40 "$GC_B/bin/gemm_limit_cuda" $a >>"$l" 2>>"$GC_WORK/logs/gemm_limit.err" || rc=1
    done
    cat "$l" "$GC_WORK/logs/gemm_limit.err" 2>/dev/null
    detail "$(awk -F'\t' 'NR > 1 {printf "%s%s %s %s", sep, $1, $4, $5; sep = "; "}' "$l")$(
        [ $rc = 0 ] || echo "; errors: $(head -2 "$GC_WORK/logs/gemm_limit.err" | tr '\n' ' ')")"
    return $rc
}

# How many genotypes per second `gensvd simulate` writes here for N samples, from a slice of
# 1e8 genotypes (cached per N; start-up counts in it, so the estimate errs long).
sim_rate() {
    local n=$1 f=$GC_WORK/sim_rate_$1 t0 t1 m
    if [ ! -s "$f" ]; then
        m=$((100000000 / n))
        t0=$(date +%s.%N)
        "$GC_G" simulate "$GC_WORK/calibrate.vcz" -m "$m" -n "$n" -K 3 --fst 0.05 --missing 0.01 \
            --seed 1 -f -q || return 1
        t1=$(date +%s.%N)
        rm -rf "$GC_WORK/calibrate.vcz"
        awk -v g="$((m * n))" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f\n", g / (b - a)}' >"$f"
    fi
    cat "$f"
}

# Simulate a benchmark store M x N (the benchmarks' model: bench/bench_pca_scale.sh), scaled
# down in M when simulating it would take longer than SIM_MAX seconds; prints "M N note".
bench_store() {
    local name=$1 m=$2 n=$3 rate max=${SIM_MAX:-45} note="" store=$GC_WORK/$1.vcz
    if [ "$GC_GPU" = 1 ]; then
        rate=$(sim_rate "$n") || return 1
        if awk -v m="$m" -v n="$n" -v r="$rate" -v x="$max" 'BEGIN {exit !(m * n / r > x)}'; then
            note="scaled down from $m variants: simulating them would take $(awk -v m="$m" -v n="$n" -v r="$rate" 'BEGIN {printf "%.0f", m * n / r}') s here"
            m=$(awk -v m="$m" -v n="$n" -v r="$rate" -v x="$max" 'BEGIN {s = m / 10; v = int(x * r / n / s) * s; print (v < s ? s : v)}')
        fi
    fi
    if [ ! -d "$store" ] || [ "$(cat "$store.shape" 2>/dev/null)" != "$m $n" ]; then
        "$GC_G" simulate "$store" -m "$m" -n "$n" -K 3 --fst 0.05 --missing 0.01 --seed 1 -f -q ||
            return 1
        echo "$m $n" >"$store.shape"
    fi
    echo "$m $n $note"
}

bench() { # name m n [--pdist METRIC | --k K]; store of the name (reused)
    local name=$1 m=$2 n=$3 store shape note rc t0 left
    shift 3
    t0=$(date +%s)
    shape=$(bench_store "${BENCH_STORE:-$name}" "$m" "$n") || { detail "simulate failed"; return 1; }
    read -r m n note <<<"$shape"
    store=$GC_WORK/${BENCH_STORE:-$name}.vcz
    left=$((GC_LIMIT - ($(date +%s) - GC_T0) - 8))
    say "store ${m} x ${n} ready after $(($(date +%s) - t0)) s${note:+ ($note)}; ${left} s left for the runs"
    PYTHONUNBUFFERED=1 "$GC_PY" "$ROOT/scripts/gpu_check.py" bench "$GC_G" "$store" \
        "$name ${m}x${n}" "$GC_DEV" "$GC_WORK" "$GC_OUT/bench.tsv" "$GC_OUT/bench.md" \
        "$GC_OUT/limits.tsv" --shape "${m}x${n}" --time-left "$left" "$@"
    rc=$?
    local row
    row=$(awk -F'\t' -v c="$name ${m}x${n}" '
        function t(w) { return w ~ /^[0-9.]+$/ ? w " s" : w }
        index($1, c) != 1 { next }
        $2 == "cpu" { printf "cpu %s; ", t($3); next }
        $3 !~ /^[0-9.]+$/ { printf "%s %s", $2, $3; next }
        { printf "%s %s (x%s of the cpu), device busy %s s (%s), %s, fraction of the limit %s, peak %s GiB, %s", $2, t($3), $4, $6, $7, $8, $10, $11, $14 }' "$GC_OUT/bench.tsv")
    if [ "$GC_GPU" = 1 ]; then
        detail "${m} x ${n}: $row${note:+; $note}"
        return $rc
    fi
    [ $rc = 0 ] && { detail "needs a GPU; ran at ${m} x ${n} with --device cpu on both sides"; return 77; }
    detail "failed with --device cpu on both sides at ${m} x ${n}"
    return 1
}

step_bench_p1() {
    if [ "$GC_GPU" = 1 ]; then bench p1 1000000 2000 --k 10; else bench p1 20000 300 --k 10; fi
}

step_bench_p2() {
    if [ "$GC_GPU" = 1 ]; then bench p2 100000 20000 --k 10; else bench p2 3000 1500 --k 10; fi
}

step_bench_pdist() {
    if [ "$GC_GPU" = 1 ]; then
        BENCH_STORE=p2 bench pdist_ibs 100000 20000 --pdist ibs
    else
        BENCH_STORE=p2 bench pdist_ibs 3000 1500 --pdist ibs
    fi
}

step_mpi() {
    detail "Open MPI is not on the device image and is not bundled (its libraries and plugins would put every step's start at risk, and it runs there as root): mpirun -n 2 pca --device gpu against -n 1 needs a machine with Open MPI"
    return 77
}

if [ "${1:-}" = --step ]; then
    GC_STEP=$2
    export GC_STEP
    "step_$2"
    exit $?
fi

# ---- the run -----------------------------------------------------------------------------------

usage() {
    sed -n '2,/^set -u/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
rehearse=0 budget=460 only="" skip="" out=${OUT:-$ROOT/gpu-check-out} list=0
while [ $# -gt 0 ]; do
    case "$1" in
    --rehearse) rehearse=1 ;;
    --budget) budget=${2:?}; shift ;;
    --only) only=,${2:?},; shift ;;
    --skip) skip=,${2:?},; shift ;;
    --out) out=${2:?}; shift ;;
    --list) list=1 ;;
    -h | --help) usage 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; usage 2 ;;
    esac
    shift
done
if [ $list = 1 ]; then
    for s in "${STEPS[@]}"; do
        printf '%-18s %4s s  %s\n' "$s" "${LIMIT[$s]}" "${NEEDS_GPU[$s]:+needs a GPU}"
    done
    exit 0
fi
case "$budget" in '' | *[!0-9]*) echo "gpu-check: --budget takes seconds" >&2; exit 2 ;; esac

if [ $rehearse = 1 ] && [ ! -f "$ROOT/.gpu-bundle/gensvd-bundle.tar.xz" ]; then
    echo "gpu-check: skipped: no .gpu-bundle/gensvd-bundle.tar.xz to rehearse with (scripts/gpu-bundle.sh makes it)"
    exit 77
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -f "$out"/{summary.tsv,check.log,env.txt,parity.tsv,limits.tsv,bench.tsv,bench.md,logs.tar.gz}
work=$(mktemp -d "${TMPDIR:-/tmp}/gensvd-gpu-check.XXXXXX") || exit 2
mkdir -p "$work/logs" "$work/detail" || exit 2
exec > >(tee -a "$out/check.log") 2>&1
tee_pid=$!
t_start=$(date +%s)

say "gensvd GPU check in $ROOT; results in $out; work files in $work; budget ${budget} s"
# a Python with numpy
py=""
for c in "${GENSVD_PYTHON:-}" python3 "$ROOT/.venv/zarr3/bin/python"; do
    [ -n "$c" ] && command -v "$c" >/dev/null && "$c" -c 'import numpy' 2>/dev/null && { py=$(command -v "$c"); break; }
done
[ -n "$py" ] || { say "no Python with numpy (python3, GENSVD_PYTHON): the parity and bench steps will fail"; py=python3; }
# a GPU?
gpu=0
if [ $rehearse = 1 ]; then
    why_no_gpu="--rehearse"
elif command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    gpu=1
elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    gpu=1
    say "no nvidia-smi, but /dev/nvidia0 exists: taking it as a GPU"
else
    why_no_gpu="no NVIDIA GPU here (nvidia-smi -L lists none, no /dev/nvidia0)"
fi
if [ $gpu = 1 ]; then
    say "GPU: $(nvidia-smi -L 2>/dev/null | head -1)"
else
    say "rehearsal: $why_no_gpu; the steps that need a GPU run their commands on the CPU or are skipped"
fi
export GC_ROOT=$ROOT GC_WORK=$work GC_OUT=$out GC_B=$work/gensvd-bundle GC_PY=$py GC_GPU=$gpu
export GC_G=$work/gensvd-bundle/bin/gensvd GC_HM=$ROOT/testdata/realdata/hapmap3.vcz
GC_DEV=cpu
[ $gpu = 1 ] && GC_DEV=gpu
export GC_DEV
export PYTHONDONTWRITEBYTECODE=1

printf 'step\tstatus\tseconds\tdetail\n' >"$out/summary.tsv"
gpu_steps=()
failed=0
finish() {
    local f
    say "packing the step logs"
    tar -C "$work" -czf "$out/logs.tar.gz" logs 2>/dev/null
    f=$(stat -c %s "$out/logs.tar.gz" 2>/dev/null || echo 0)
    [ "$f" -gt $((15 << 20)) ] && { rm -f "$out/logs.tar.gz"; say "logs.tar.gz over 15 MiB: left out"; }
    [ "${GENSVD_KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
}
trap 'say "interrupted"; finish; exit 1' INT TERM

for s in "${STEPS[@]}"; do
    [ -n "${NEEDS_GPU[$s]:-}" ] && gpu_steps+=("$s")
    if [ -n "$only" ] && [[ $only != *,$s,* ]]; then continue; fi
    if [[ $skip == *,$s,* ]]; then
        printf '%s\tskip\t0\tskipped with --skip\n' "$s" >>"$out/summary.tsv"
        continue
    fi
    left=$((budget - ($(date +%s) - t_start)))
    limit=${LIMIT[$s]}
    [ "$limit" -gt $((left - 5)) ] && limit=$((left - 5))
    [ "$limit" -lt "${LIMIT[$s]}" ] && [ "$limit" -lt 10 ] && limit=0
    if [ "$s" != bundle ] && [ "$s" != env ] && [ ! -x "$GC_G" ]; then
        printf '%s\tskip\t0\tno gensvd: the bundle step failed\n' "$s" >>"$out/summary.tsv"
        say "== $s: skipped: no gensvd (the bundle step failed)"
        failed=1
        continue
    fi
    if [ "$limit" -le 0 ]; then
        printf '%s\tskip\t0\tout of time: %s s of the %s s budget left\n' "$s" "$left" "$budget" >>"$out/summary.tsv"
        say "== $s: skipped: $left s of the budget left (rerun: --only $s)"
        continue
    fi
    if [ -s "$work/ld_fallback" ] && [ -z "${LD_LIBRARY_PATH:-}" ]; then
        LD_LIBRARY_PATH=$(cat "$work/ld_fallback")
        export LD_LIBRARY_PATH
        say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH from here on (the CUDA libraries' folder)"
    fi
    say "== $s (limit ${limit} s)"
    t0=$(date +%s)
    GC_LIMIT=$limit GC_T0=$t0 timeout --kill-after=5 "$limit" bash "$SELF" --step "$s" \
        >"$work/logs/$s.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    d=$(cat "$work/detail/$s" 2>/dev/null | tr '\t\n' '  ')
    case $rc in
    0) st=pass ;;
    77) st=skip ;;
    124 | 137) st=fail; d="timed out after ${limit} s (last: $(grep -v '^ *$' "$work/logs/$s.log" | tail -1 | cut -c1-160)); ${d}" ;;
    *) st=fail ;;
    esac
    [ $st = fail ] && failed=1
    printf '%s\t%s\t%s\t%s\n' "$s" "$st" "$secs" "$d" >>"$out/summary.tsv"
    tail -n 25 "$work/logs/$s.log" | sed 's/^/    /'
    say "== $s: $st in ${secs} s: $d"
done
finish

echo
say "summary ($out/summary.tsv):"
column -t -s $'\t' "$out/summary.tsv" 2>/dev/null | cut -c1-200 || cat "$out/summary.tsv"
if [ $gpu = 0 ]; then
    say "steps that need a GPU: ${gpu_steps[*]}"
fi
skipped=$(awk -F'\t' 'NR > 1 && $2 == "skip" {printf "  %s: %s\n", $1, $4}' "$out/summary.tsv")
[ -n "$skipped" ] && { say "skipped:"; printf '%s\n' "$skipped"; }
say "done in $(($(date +%s) - t_start)) s: $([ $failed = 0 ] && echo "no step failed" || echo "a step FAILED")"
exec >&- 2>&- # let tee write the last lines of check.log before the run returns
wait "$tee_pid" 2>/dev/null
exit $failed
