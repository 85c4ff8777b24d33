"""Shared helpers of the net tests: run gensvd, compare remote results with local ones."""
import os
import subprocess
import sys
import tempfile

FAILURES = []
STORE = "vcf_like.zarr"
DUMP_ARRAYS = ["call_genotype", "sample_id", "variant_position", "call_DS"]


def run(gensvd, args, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("GENSVD_LOG_LEVEL", None)
    e.update(env or {})
    p = subprocess.run([gensvd] + args, capture_output=True, env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def check(name, cond, detail=""):
    if cond:
        print(f"ok   {name}")
    else:
        print(f"FAIL {name} {detail}")
        FAILURES.append(name)


def expect_ok(name, rc, err):
    check(name, rc == 0, f"exit {rc}: {err[-2000:]}")


def same_outputs(name, gensvd, local, remote, env=None, arrays=DUMP_ARRAYS):
    """dump of each array and pca + pdist of the store: remote byte-identical to local."""
    for a in arrays:
        rl, ol, el = run(gensvd, ["dump", f"{local}/{a}"])
        rr, orr, er = run(gensvd, ["dump", f"{remote}/{a}"], env)
        expect_ok(f"{name}: dump {a} (local)", rl, el)
        expect_ok(f"{name}: dump {a}", rr, er)
        check(f"{name}: dump {a} equals local", rl == 0 and ol == orr and len(ol) > 0)


def same_analyses(name, gensvd, local, remote, env=None, extra=()):
    """info (modulo the URL), pca projections and pdist TSV: remote equal to local."""
    rl, ol, el = run(gensvd, ["info", local])
    rr, orr, er = run(gensvd, ["info", remote] + list(extra), env)
    expect_ok(f"{name}: info", rr, er)
    check(f"{name}: info equals local",
          ol.replace(local.encode(), b"X") == orr.replace(remote.encode(), b"X"),
          f"\n{ol.decode()}\n---\n{orr.decode()}")
    with tempfile.TemporaryDirectory() as td:
        outs = []
        for src, env_, ex in ((local, None, []), (remote, env, list(extra))):
            out = os.path.join(td, f"pca{len(outs)}.zarr")
            rc, _, err = run(gensvd, ["pca", "-k", "3", "-t", "2", src, "-o", out] + ex, env_)
            expect_ok(f"{name}: pca {src}", rc, err)
            rc, o, err = run(gensvd, ["dump", f"{out}/sample_pca_projection"])
            outs.append(o)
        check(f"{name}: pca projection equals local", outs[0] == outs[1] and len(outs[0]) > 0)
    rl, ol, el = run(gensvd, ["pdist", local])
    rr, orr, er = run(gensvd, ["pdist", remote], env)
    expect_ok(f"{name}: pdist", rr, er)
    check(f"{name}: pdist equals local", rl == 0 and ol == orr and len(ol) > 0)


def no_secret(name, text, secrets):
    for s in secrets:
        check(f"{name}: no secret in output", s not in text, "(a credential was printed)")


def finish():
    if FAILURES:
        print(f"{len(FAILURES)} failed: {', '.join(FAILURES)}")
        sys.exit(1)
    print("all passed")
    sys.exit(0)


def unconsolidated_copy(src, dst):
    """Copy store src to dst without consolidated metadata: no .zmetadata, and no
    consolidated_metadata in a v3 root zarr.json (as bio2zarr >= 0.1.8 and zarr-python 3 may
    write).  Returns dst."""
    import json
    import shutil
    shutil.copytree(src, dst)
    zm = os.path.join(dst, ".zmetadata")
    if os.path.exists(zm):
        os.remove(zm)
    zj = os.path.join(dst, "zarr.json")
    if os.path.exists(zj):
        with open(zj) as f:
            d = json.load(f)
        d.pop("consolidated_metadata", None)
        with open(zj, "w") as f:
            json.dump(d, f)
    return dst


def same_unconsolidated(name, gensvd, local, remote, env, paged=True):
    """info, dump and pca --method exact of an unconsolidated remote store equal the local copy
    (both listed, not read from consolidated metadata).  paged: the server honours a small
    page size (GENSVD_LIST_MAX_KEYS in env), so the listing must take several pages."""
    rl, ol, el = run(gensvd, ["info", local])
    rr, orr, er = run(gensvd, ["info", remote], env)
    expect_ok(f"{name}: info (local)", rl, el)
    expect_ok(f"{name}: info", rr, er)
    check(f"{name}: info equals local",
          rl == 0 and ol.replace(local.encode(), b"X") == orr.replace(remote.encode(), b"X"),
          f"\n{ol.decode()}\n---\n{orr.decode()}")
    check(f"{name}: info lists the arrays", b"call_genotype" in orr and b"sample_id" in orr,
          orr.decode())
    rr, _, er = run(gensvd, ["info", "-v", "-v", remote], env)
    check(f"{name}: listed, not consolidated", rr == 0 and "page 1," in er, er[-3000:])
    if paged:
        check(f"{name}: listing continued over pages", rr == 0 and ", continued" in er
              and "page 3," in er, er[-3000:])
    same_outputs(name, gensvd, local, remote, env, arrays=["call_genotype", "sample_id"])
    same_exact_pca(name, gensvd, local, remote, env)


def same_exact_pca(name, gensvd, local, remote, env, ok_what=None, equal_what="local"):
    """pca --method exact of remote (with env) and of local: identical projections."""
    with tempfile.TemporaryDirectory() as td:
        outs = []
        for src, env_ in ((local, None), (remote, env)):
            out = os.path.join(td, f"pca{len(outs)}.zarr")
            rc, _, err = run(gensvd, ["pca", "-k", "3", "--method", "exact", src, "-o", out],
                             env_)
            expect_ok(ok_what or f"{name}: pca --method exact {src}", rc, err)
            rc, o, err = run(gensvd, ["dump", f"{out}/sample_pca_projection"])
            outs.append(o)
        check(f"{name}: pca --method exact equals {equal_what}",
              outs[0] == outs[1] and len(outs[0]) > 0)


def broken_copy(src, dst):
    """Copy store src to dst with every chunk (every file but the metadata documents) replaced
    by bytes no codec accepts: a command that reads any chunk of it fails.  Returns dst."""
    import shutil
    shutil.copytree(src, dst)
    for dirpath, _, files in os.walk(dst):
        for f in files:
            if not f.startswith(".z") and f != "zarr.json":
                with open(os.path.join(dirpath, f), "wb") as fh:
                    fh.write(b"not a chunk")
    return dst


def writing_commands(broken):
    """(name, args(out), reads input) of every command that writes a Zarr output, on the
    broken store (broken_copy): args(out) is the command line writing to out."""
    return [
        ("pca", lambda out: ["pca", "-q", "-k", "2", broken, "-o", out], True),
        ("pdist", lambda out: ["pdist", "-q", broken, "-o", out], True),
        ("pdist-pairs", lambda out: ["pdist", "-q", "-m", "king", "--min-kinship", "0.1", broken,
                                     "-o", out], True),
        ("ldprune", lambda out: ["ldprune", "-q", "--window", "5", broken, "-o", out], True),
        ("related", lambda out: ["related", "-q", broken, "-o", out], True),
        ("project", lambda out: ["project", "-q", "--pcs", broken, broken, "-o", out], True),
        ("simulate", lambda out: ["simulate", "-q", "-m", "10", "-n", "4", "-K", "2", out], False),
    ]


def fails_on_output(name, gensvd, args, env, want):
    """args exits 1 with `want` in its stderr (an output error, so before the broken input was
    read) and without a chunk error."""
    rc, _, err = run(gensvd, args, env)
    check(name, rc == 1 and want in err and "blosc" not in err and "chunk" not in err,
          f"exit {rc}: {err}")
