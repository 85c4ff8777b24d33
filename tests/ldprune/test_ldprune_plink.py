#!/usr/bin/env python3
"""gensvd ldprune against plink2 --indep-pairwise on the same genotypes (a .bed written from the
store by tests/pca/pca_oracle.py write-bed): the kept variant sets must be equal.
Usage: test_ldprune_plink.py GENSVD STORE CASE... where CASE is WINDOW,STEP,R2[,missing0]
(missing0: only variants without missing calls, plink2 --geno 0 and gensvd --max-missing 0).
Exit 77 (skipped) without plink2."""
import os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "pca", "pca_oracle.py")


def main(argv):
    gensvd, store, cases = argv[1], argv[2], argv[3:]
    plink2 = shutil.which("plink2")
    if not plink2:
        print("plink2 not found; skipped")
        return 77
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "g")
        subprocess.run([sys.executable, ORACLE, "write-bed", store, prefix], check=True)
        ids = [l.split()[1] for l in open(prefix + ".bim")]
        for case in cases:
            parts = case.split(",")
            window, step, r2 = parts[:3]
            missing0 = len(parts) > 3 and parts[3] == "missing0"
            out = os.path.join(tmp, "p")
            cmd = [plink2, "--bfile", prefix, "--indep-pairwise", window, step, r2, "--out", out,
                   "--threads", "2", "--silent", "--allow-extra-chr"]
            if missing0:
                cmd += ["--geno", "0"]
            subprocess.run(cmd, check=True)
            plink_in = set(open(out + ".prune.in").read().split())
            g = [gensvd, "ldprune", store, "--window", window, "--step", step, "--r2", r2,
                 "--format", "tsv", "-t", "2"]
            if missing0:
                g += ["--max-missing", "0"]
            res = subprocess.run(g, check=True, capture_output=True, text=True).stdout
            mine = set()
            for line in res.splitlines()[1:]:
                f = line.split("\t")
                if f[3] == "1":
                    mine.add(ids[int(f[0])])
            ok = mine == plink_in
            fails += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(store)} {case}: gensvd keeps "
                  f"{len(mine)}, plink2 {len(plink_in)}, only gensvd {len(mine - plink_in)}, "
                  f"only plink2 {len(plink_in - mine)}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
