#!/usr/bin/env python3
"""Open `gensvd simulate`'s output as sgkit users do, with xarray's default decoding.

Runs gensvd simulate (Zarr v2, with missing calls, and without for sgkit's PCA) and opens the
stores with sgkit.load_dataset and xarray.open_zarr, neither told how to decode: call_genotype
must come back as int8 (a fill value would make xarray decode it to float with NaN),
call_genotype_mask as bool equal to call_genotype < 0 (numpy on the arrays zarr-python reads),
sgkit's count_call_alleles must equal the allele counts numpy finds, and sgkit.pca must run on
the complete store and give finite components.  Last line: "N passed, N failed".
Usage: check_simulate_sgkit.py GENSVD (exit 77 without sgkit: the .venv/python environment)
"""
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    import sgkit
    import xarray as xr
    import zarr
except ImportError as e:
    print(f"skipped: {e} (scripts/setup.sh --tests makes .venv/python)")
    sys.exit(77)

warnings.filterwarnings("ignore")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def simulate(gensvd, out, missing, chunks):
    subprocess.run([gensvd, "simulate", out, "-m", "600", "-n", "45", "-K", "3", "--fst", "0.1",
                    "--missing", str(missing), "--seed", "5", "--chunks", chunks, "-t", "2",
                    "-q"], check=True)


def main():
    gensvd = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "miss.vcz")
        simulate(gensvd, out, 0.05, "250,20")
        g = zarr.open_group(out, mode="r")
        gt = np.asarray(g["call_genotype"][:])
        mask = np.asarray(g["call_genotype_mask"][:])
        check(mask.dtype == np.bool_, f"zarr: mask dtype {mask.dtype}")
        check(np.array_equal(mask, gt < 0), "zarr: mask == (call_genotype < 0)")
        check(mask.any() and not mask.all(), "some calls missing, not all")

        x = xr.open_zarr(out)
        check(x.call_genotype.dtype == np.int8, f"xarray: call_genotype {x.call_genotype.dtype}")
        check(x.call_genotype.dims == ("variants", "samples", "ploidy"),
              f"xarray: dims {x.call_genotype.dims}")
        check(np.array_equal(x.call_genotype.values, gt), "xarray: call_genotype values")

        ds = sgkit.load_dataset(out)
        check(ds.call_genotype.dtype == np.int8, f"sgkit: call_genotype {ds.call_genotype.dtype}")
        check(ds.call_genotype_mask.dtype == np.bool_,
              f"sgkit: call_genotype_mask {ds.call_genotype_mask.dtype}")
        check(np.array_equal(ds.call_genotype_mask.values, gt < 0), "sgkit: mask values")
        ac = sgkit.count_call_alleles(ds).call_allele_count.values
        want = np.stack([(gt == 0).sum(axis=-1), (gt == 1).sum(axis=-1)], axis=-1)
        check(np.array_equal(ac, want), "sgkit count_call_alleles == numpy counts")
        rate = sgkit.variant_stats(ds).variant_call_rate.values  # counts calls by the mask
        check(np.allclose(rate, (~mask.any(axis=-1)).mean(axis=1)), "sgkit variant_call_rate")

        full = os.path.join(tmp, "full.vcz")
        simulate(gensvd, full, 0, "250,45")  # sgkit's tsqr PCA wants whole sample rows
        ds = sgkit.load_dataset(full)
        n_alt = ds.call_genotype.values.sum(axis=(1, 2))
        ds = ds.isel(variants=(n_alt > 0) & (n_alt < 90))  # Patterson's scaling: polymorphic
        try:
            pcs = sgkit.pca(ds, n_components=3).sample_pca_projection.values
            check(pcs.shape == (45, 3) and np.isfinite(pcs).all(), f"sgkit.pca {pcs.shape}")
        except Exception as e:  # a failure of sgkit.pca on the store is this test's failure
            check(False, f"sgkit.pca: {type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
