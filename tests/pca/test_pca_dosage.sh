#!/usr/bin/env bash
# 2-D dosage inputs give the same PCA as the 3-D calls they come from: zarr-python writes the
# khuman dosages (alleles > 0 per call, -1 missing) as int8 variants x samples, as float32 with
# NaN for missing, and as int8 samples x variants; gensvd pca --array (--transpose) on each
# must reproduce the singular values and scores of the 3-D call_genotype run.
# Usage: test_pca_dosage.sh GENSVD PY
set -u
gensvd=$1
py=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
"$py" - "$root/testdata/realdata/khuman_chr22.vcz" "$tmp/dos.zarr" <<'PY' || { echo "0 passed, 1 failed"; exit 1; }
import sys, warnings
import numpy as np, zarr
warnings.filterwarnings("ignore")
src = zarr.open_group(sys.argv[1], mode="r")
gt = np.asarray(src["call_genotype"][:])
dos = (gt > 0).sum(axis=2).astype(np.int8)
dos[(gt < 0).any(axis=2)] = -1
# a few missing calls, so the missing paths are exercised
dos[5, 7] = -1
dos[100, 3] = -1
ids = np.array([str(x) for x in src["sample_id"][:]])
g = zarr.open_group(sys.argv[2], mode="w", zarr_format=2)
g.create_array("dosage", data=dos, chunks=(500, 64))
f = dos.astype(np.float32)
f[dos < 0] = np.nan
g.create_array("dosage_f4", data=f, chunks=(700, 50))
g.create_array("dosage_t", data=np.ascontiguousarray(dos.T), chunks=(64, 900))
g.create_array("sample_id", data=ids.astype("S"), chunks=(203,))
# the 3-D reference with the same two extra missing calls
gt2 = gt.copy()
gt2[5, 7, :] = -1
gt2[100, 3, :] = -1
g.create_array("call_genotype", data=gt2, chunks=(1000, 100, 2))
PY
ref=$("$gensvd" pca --device cpu "$tmp/dos.zarr" --array call_genotype -k 5 -m exact -q)
for variant in "--array dosage" "--array dosage_f4" "--array dosage_t --transpose"; do
    # shellcheck disable=SC2086
    got=$("$gensvd" pca --device cpu "$tmp/dos.zarr" $variant -k 5 -m exact -q)
    if "$py" - "$ref" "$got" <<'PY'
import sys, io
import numpy as np
def load(t):
    lines = t.strip().split("\n")
    return [l.split("\t")[0] for l in lines[1:]], np.array([[float(x) for x in l.split("\t")[1:]] for l in lines[1:]])
ia, a = load(sys.argv[1]); ib, b = load(sys.argv[2])
ok = ia == ib and a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(a).max())
sys.exit(0 if ok else 1)
PY
    then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $variant differs from call_genotype"
    fi
done
# a 2-D integer dosage above the ploidy is refused; --ploidy raises it
"$py" - "$tmp/big.zarr" <<'PY'
import sys, numpy as np, zarr
g = zarr.open_group(sys.argv[1], mode="w", zarr_format=2)
d = np.random.default_rng(1).integers(0, 5, size=(50, 12)).astype(np.int8)
g.create_array("d", data=d, chunks=(50, 12))
PY
if "$gensvd" pca --device cpu "$tmp/big.zarr" --array d -k 2 2>"$tmp/err" >/dev/null; then
    fail=$((fail + 1)); echo "FAIL dosage 4 with ploidy 2 accepted"
elif grep -q "exceeds ploidy" "$tmp/err"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL unexpected message: $(cat "$tmp/err")"
fi
if "$gensvd" pca --device cpu "$tmp/big.zarr" --array d --ploidy 4 -k 2 -q >/dev/null; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --ploidy 4 refused"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
