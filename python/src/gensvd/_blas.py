"""OpenBLAS's kernels, chosen before the extension loads it.

OpenBLAS picks its kernels when it is loaded, from the CPU model; on a model it does not know
it runs generic ones (about 3x slower), with floating-point bits that differ from the kernels the
``gensvd`` program selects there (the program restarts itself with OPENBLAS_CORETYPE). A library
cannot restart its process, but this package loads OpenBLAS itself, at ``import gensvd``: so
before that it asks a child process which set the library would choose (the library's own
rule, ``gensvd_build_info("blas")``) and exports it for the load. Skipped when
OPENBLAS_CORETYPE is set already, when OpenBLAS is already loaded, or with
GENSVD_NO_BLAS_PROBE=1.
"""

import os
import re
import subprocess
import sys

_PROBE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gensvd._gensvd", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
print(mod.build_info("blas"))
"""


def _openblas_loaded():
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            return any("/libopenblas" in line for line in f)
    except OSError:
        return False


def core_fix(extension_path):
    """The OPENBLAS_CORETYPE the library asks for on this CPU, or None."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", GENSVD_NO_BLAS_PROBE="1")
    try:
        out = subprocess.run([sys.executable, "-I", "-c", _PROBE, extension_path],
                             capture_output=True, text=True, env=env, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"OPENBLAS_CORETYPE=(\w+)", out.stdout)
    return m.group(1) if m else None


def prepare(extension_path):
    """Export OPENBLAS_CORETYPE for the extension's load where the library would ask for it;
    returns the name exported (to be removed after the load), or None."""
    if ("OPENBLAS_CORETYPE" in os.environ or os.environ.get("GENSVD_NO_BLAS_PROBE") == "1"
            or not extension_path or _openblas_loaded()):
        return None
    fix = core_fix(extension_path)
    if fix:
        os.environ["OPENBLAS_CORETYPE"] = fix
    return fix
