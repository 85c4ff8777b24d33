#!/usr/bin/env python3
"""Compare `gensvd info` with zarr-python and the store's files, node by node.

usage: check_info.py GENSVD STORE...

For each local Zarr v2 or v3 STORE, run `gensvd info --bytes STORE`, `gensvd info STORE` and
`gensvd info --no-sizes STORE` and check every line against tests/interop/store_facts.py: the
tree (zarr-python's members, depth first, sorted by name; two spaces of indent per level),
group lines (the root's "format v3" and "consolidated"), and array lines: shape, dtype
(NumPy's type string, byte order as stored), chunks (inner chunks when sharded), "order F",
"format v3", dims, the bytes and number of the chunk (or shard) files on disk out of the grid's,
raw bytes (shape product x item size; not for strings) and their ratio; sizes as exact bytes
with --bytes, else in binary units with one decimal (the formula written out again), and no
sizes with --no-sizes.  Also `gensvd info STORE/ARRAY` for one array: the same line, unindented.

Last line: "N passed, N failed"; exit status 1 if anything failed.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import store_facts  # noqa: E402
from checklib import check, summary  # noqa: E402


def human(n, exact):
    if exact:
        return str(n)
    if n < 1024:
        return f"{n} B"
    v, u = float(n), 0
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return f"{v:.1f} {units[u]}"


def dims_text(v):
    return " x ".join(str(x) for x in v) if v else "()"


def array_line(name, f, mode):
    """The line gensvd info prints for an array with facts f (mode: bytes, human, none)."""
    line = (f"{name}  array  shape {dims_text(f['shape'])}  dtype {f['typestr']}  "
            f"chunks {dims_text(f['chunks'])}  codecs ")
    tail = ""
    if f["order"] == "F":
        tail += "  order F"
    if f["zarr_format"] == 3:
        tail += "  format v3"
    if f["dims"]:
        tail += "  dims " + ",".join(f["dims"])
    if mode != "none":
        exact = mode == "bytes"
        total = f["shard_count"] if f["shards"] else f["chunk_count"]
        tail += (f"  stored {human(f['stored_bytes'], exact)} in {f['stored_objects']}/{total} "
                 f"{'shards' if f['shards'] else 'chunks'}")
        if f["raw_bytes"] is not None:
            tail += f"  raw {human(f['raw_bytes'], exact)}"
            if f["stored_bytes"] > 0:
                tail += f"  ratio {f['raw_bytes'] / f['stored_bytes']:.2f}"
    return line, tail


def same_array_line(got, name, f, mode):
    """The codec chain is gensvd's own description: everything around it must match."""
    head, tail = array_line(name, f, mode)
    return got.startswith(head) and got.endswith(tail) and len(got) > len(head) + len(tail) \
        and "  " not in got[len(head):len(got) - len(tail)].strip(" |")


def run(gensvd, *args):
    p = subprocess.run([gensvd, "info", *args], capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def check_store(gensvd, store):
    nodes = store_facts.tree(store)
    root = store_facts.root_facts(store)
    facts = {p: store_facts.array_facts(store, p) for _, k, p in nodes if k == "array"}
    for mode, flags in (("bytes", ["--bytes"]), ("human", []), ("none", ["--no-sizes"])):
        label = f"info {' '.join(flags)} {store}".replace("  ", " ")
        rc, out, err = run(gensvd, *flags, store)
        if not check(f"{label}: exit 0", rc == 0, err[-300:]):
            continue
        lines = out.split("\n")
        check(f"{label}: one line per node", lines[-1] == "" and len(lines) - 1 == len(nodes),
              f"{len(lines) - 1} lines for {len(nodes)} nodes")
        for line, (depth, kind, path) in zip(lines, nodes):
            indent = "  " * depth
            name = path.rsplit("/", 1)[-1]
            if not check(f"{label}: {path or '/'} indented by depth {depth}",
                         line.startswith(indent) and not line[len(indent):].startswith(" "),
                         repr(line)):
                continue
            body = line[len(indent):]
            if kind == "group":
                want = f"{name or store}/  group"
                if depth == 0:
                    want += "  format v3" if root["zarr_format"] == 3 else ""
                    want += "  consolidated" if root["consolidated"] else ""
                check(f"{label}: group {path or '/'}", body == want, f"{body!r} != {want!r}")
            else:
                f = facts[path]
                check(f"{label}: array {path or '/'}",
                      same_array_line(body, name or "/", f, mode),
                      f"{body!r}\n     want {array_line(name or '/', f, mode)}")
    for path in list(facts)[:3]:  # an array named directly: its line alone
        rc, out, err = run(gensvd, "--bytes", f"{store}/{path}" if path else store)
        name = path.rsplit("/", 1)[-1] or "/"
        check(f"info --bytes {store}/{path}", rc == 0 and out.count("\n") == 1 and
              same_array_line(out[:-1], name, facts[path], "bytes"), out + err[-300:])


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    for store in argv[2:]:
        check_store(argv[1], store.rstrip("/"))
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
