#!/usr/bin/env bash
# The mask options against the equivalent existing options, and pca --ld-prune against ldprune +
# --variant-mask, on the bundled HapMap3 store:
#   pca --ld-prune R2,W                         == ldprune -o m && pca --variant-mask m  (bytes)
#   pca/pdist --variant-mask (range 2000:9000) == --variants 2000:9000                  (bytes)
#   pca/pdist --sample-mask by sample_id       == --samples FILE (same IDs, store order)
#   pca/pdist --sample-mask by position        == --samples FILE
#   ldprune -o: variant_ld_keep equals its own --format tsv, attributes carry the counts
# Usage: test_ldprune_masks.sh GENSVD PYTHON
set -eu
gensvd=$1
py=$2
here=$(cd "$(dirname "$0")" && pwd)
store=$here/../../testdata/realdata/hapmap3.vcz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1"; diff "$2" "$3" | head -3; fail=1; fi; }

"$gensvd" ldprune "$store" --window 100kb --r2 0.01 -o "$tmp/m.zarr" -q
"$gensvd" pca --device cpu "$store" -k 4 --variant-mask "$tmp/m.zarr" >"$tmp/a.tsv"
"$gensvd" pca --device cpu "$store" -k 4 --ld-prune 0.01,100kb >"$tmp/b.tsv"
check "pca --ld-prune == ldprune + --variant-mask" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" ldprune "$store" --window 100kb --r2 0.01 --format tsv >"$tmp/keep.tsv"

"$py" - "$tmp" "$store" <<'PY'
import sys, numpy as np, zarr, json
tmp, store = sys.argv[1], sys.argv[2]
g = zarr.open_group(store, mode="r")
M = g["call_genotype"].shape[0]
ids = [str(x) for x in g["sample_id"][:]]
N = len(ids)
m = zarr.open_group(tmp + "/m.zarr", mode="r")
keep = m["variant_ld_keep"][:]
tsv = np.loadtxt(tmp + "/keep.tsv", skiprows=1, usecols=3, dtype=int)
assert keep.dtype == bool and keep.shape == (M,), keep.dtype
assert np.array_equal(keep, tsv.astype(bool)), "variant_ld_keep differs from --format tsv"
a = dict(m.attrs)
assert a["n_kept"] == int(keep.sum()) and a["n_considered"] == M, a
assert a["n_kept"] + a["n_removed"] == a["n_considered"], a
print("ok   variant_ld_keep == tsv; attributes", a["n_kept"], a["n_pruned"], a["n_monomorphic"])
# a variant mask = range 2000:9000
v = zarr.open_group(tmp + "/v.zarr", mode="w", zarr_format=2)
mask = np.zeros(M, dtype=bool); mask[2000:9000] = True
v.create_array("variant_ld_keep", data=mask, chunks=(4000,),
               attributes={"_ARRAY_DIMENSIONS": ["variants"]})
# sample masks: every third sample kept, by ID (with sample_id) and by position (uint8)
rng = np.random.default_rng(3)
sm = np.zeros(N, dtype=bool); sm[::3] = True
s = zarr.open_group(tmp + "/s_id.zarr", mode="w", zarr_format=2)
order = rng.permutation(N)  # IDs in another order: matched by ID, not position
s.create_array("sample_unrelated", data=sm[order], chunks=(N,),
               attributes={"_ARRAY_DIMENSIONS": ["samples"]})
s.create_array("sample_id", shape=(N,), dtype=str, chunks=(N,),
               attributes={"_ARRAY_DIMENSIONS": ["samples"]})[:] = np.array(ids, dtype=object)[order]
p = zarr.open_group(tmp + "/s_pos.zarr", mode="w", zarr_format=2)
p.create_array("keep", data=sm.astype(np.uint8), chunks=(N,),
               attributes={"_ARRAY_DIMENSIONS": ["samples"]})
kept_ids = [ids[i] for i in range(N) if sm[i]]
open(tmp + "/ids_store.txt", "w").write("\n".join(kept_ids) + "\n")
# with IDs the order is the mask's: kept IDs in mask order
open(tmp + "/ids_mask.txt", "w").write(
    "\n".join(ids[i] for i in order if sm[i]) + "\n")
PY

"$gensvd" pca --device cpu "$store" -k 3 --variant-mask "$tmp/v.zarr" >"$tmp/a.tsv"
"$gensvd" pca --device cpu "$store" -k 3 --variants 2000:9000 >"$tmp/b.tsv"
check "pca --variant-mask == --variants" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --variant-mask "$tmp/v.zarr" --format tsv >"$tmp/a.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --variants 2000:9000 --format tsv >"$tmp/b.tsv"
check "pdist --variant-mask == --variants" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" pca --device cpu "$store" -k 3 --sample-mask "$tmp/s_id.zarr" >"$tmp/a.tsv"
"$gensvd" pca --device cpu "$store" -k 3 --samples "$tmp/ids_mask.txt" >"$tmp/b.tsv"
check "pca --sample-mask (by ID) == --samples" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" pca --device cpu "$store" -k 3 --sample-mask "$tmp/s_pos.zarr/keep" >"$tmp/a.tsv"
"$gensvd" pca --device cpu "$store" -k 3 --samples "$tmp/ids_store.txt" >"$tmp/b.tsv"
check "pca --sample-mask (by position) == --samples" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --sample-mask "$tmp/s_pos.zarr/keep" --format tsv >"$tmp/a.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --samples "$tmp/ids_store.txt" --format tsv >"$tmp/b.tsv"
check "pdist --sample-mask (by position) == --samples" "$tmp/a.tsv" "$tmp/b.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --sample-mask "$tmp/s_id.zarr" --format tsv >"$tmp/a.tsv"
"$gensvd" pdist --device cpu "$store" --metric ibs --samples "$tmp/ids_mask.txt" --format tsv >"$tmp/b.tsv"
check "pdist --sample-mask (by ID) == --samples" "$tmp/a.tsv" "$tmp/b.tsv"
exit $fail
