"""The API's contract: keyword names and defaults equal to the command line's options (read
from `gensvd help --spec CMD`, not from the library), arguments refused before any work, the
exception classes and their messages, the version and OpenBLAS's kernels as the program's."""

import inspect
import logging
import os
import re

import numpy as np
import pytest

import gensvd
from conftest import GENSVD, HAPMAP, TESTDATA, cli, leftovers

FUNCTIONS = {"pca": gensvd.pca, "pdist": gensvd.pdist, "ldprune": gensvd.ldprune,
             "related": gensvd.related, "project": gensvd.project, "simulate": gensvd.simulate}
# command-line options a Python function has no use for: output formats and messages (pca's
# --outlier-out is a TSV of the result's sample_pca_outlier arrays); --var-filter-except is
# var_filter= with the names; plink2's other spellings (--geno is max_missing=, --autosome-xy
# autosome_par=, the kb and Mb bounds from_bp= and to_bp= times 1,000 or 1,000,000)
CLI_ONLY = {"format", "plink", "eigensoft", "eigensoft-ind", "outlier-out", "help", "verbose",
            "quiet", "no-progress", "var-filter-except", "geno", "autosome-xy", "from-kb",
            "from-mb", "to-kb", "to-mb"}
# keywords the command line has no option for: the binding's, sources in memory, credentials
# (which the program reads from the environment), the recorded command, and the rows of
# smartpca's .evec and .eval as arrays (the command line's --eigensoft writes the files)
PY_ONLY = {"merge", "command", "chunk_variants", "source_name", "gcs_token",
           "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_region",
           "smartpca_rows", "all_eigenvalues"}
RENAMED = {"components": "n_components"}


def spec(command):
    """{option: (type, choices, help)} of `gensvd help --spec COMMAND`."""
    out = {}
    for line in cli("help", "--spec", command).splitlines():
        f = line.split("\t")
        if f[0].startswith("--"):
            out[f[0][2:]] = (f[2], f[4], f[6])
    return out


@pytest.mark.parametrize("command", sorted(FUNCTIONS))
def test_keywords_are_the_commands_options(command):
    params = inspect.signature(FUNCTIONS[command]).parameters
    want = {RENAMED.get(o, o.replace("-", "_")) for o in spec(command) if o not in CLI_ONLY}
    have = set(params) - {"source"}
    if command == "simulate":
        want.add("output")  # the command's operand OUT
    assert have - PY_ONLY == want - PY_ONLY, (
        f"only in Python: {sorted(have - want - PY_ONLY)}, "
        f"only in gensvd {command}: {sorted(want - have - PY_ONLY)}")


def _cli_default(help_text):
    m = re.search(r"\[([^\]]*)\]\s*$", help_text)
    return m.group(1) if m else None


@pytest.mark.parametrize("command", sorted(FUNCTIONS))
def test_defaults_are_the_commands(command):
    params = inspect.signature(FUNCTIONS[command]).parameters
    checked = 0
    for option, (kind, choices, help_text) in spec(command).items():
        name = RENAMED.get(option, option.replace("-", "_"))
        text = _cli_default(help_text)
        if name not in params or text is None:
            continue
        default = params[name].default
        if kind in ("uint", "double", "bytes") and re.fullmatch(r"[-+0-9.e]+", text):
            assert float(default) == float(text), f"{command} {name}: {default} != [{text}]"
            checked += 1
        elif kind in ("choice", "call") and choices != "-" and text in choices.split():
            assert default == text, f"{command} {name}: {default!r} != [{text}]"
            checked += 1
        elif kind == "call" and re.fullmatch(r"[0-9,]+", text):  # --chunks, --retries
            assert str(default) == text, f"{command} {name}: {default!r} != [{text}]"
            checked += 1
    assert checked >= {"pca": 8, "simulate": 7}.get(command, 1)


def test_positional_parameters_and_sgkit_names():
    sig = inspect.signature(gensvd.pca)
    assert list(sig.parameters)[:2] == ["source", "n_components"]
    assert sig.parameters["n_components"].default == 10
    assert list(inspect.signature(gensvd.pdist).parameters)[:2] == ["source", "metric"]
    assert list(inspect.signature(gensvd.project).parameters)[:2] == ["source", "pcs"]
    assert "--components" in gensvd.pca.__doc__ and "n_components" in gensvd.pca.__doc__


def test_bad_values_raise_usage_error_before_reading(tmp_path):
    missing = str(tmp_path / "no-such-store.vcz")  # never opened: the options fail first
    out = tmp_path / "out.zarr"
    for kwargs, word in [({"n_components": 0}, "n_components"), ({"method": "fast"}, "method"),
                         ({"tol": 2.0}, "tol"), ({"ld_prune": "0.2"}, "ld_prune"),
                         ({"memory": "lots"}, "memory"), ({"threads": -1}, "threads"),
                         ({"device": "tpu"}, "device"), ({"variants": "9:3"}, "variants")]:
        with pytest.raises(gensvd.UsageError, match=word) as e:
            gensvd.pca(missing if "variants" not in kwargs else str(HAPMAP), output=out,
                       **kwargs)
        assert isinstance(e.value, ValueError) and isinstance(e.value, gensvd.GensvdError)
        assert e.value.code == -2  # GENSVD_EINVAL
        assert "--" not in str(e.value) and "option '" not in str(e.value)  # Python's words
    assert not leftovers(tmp_path, "out")


def test_bad_types_and_names_raise_type_error(tmp_path):
    with pytest.raises(TypeError, match="n_components"):
        gensvd.pca(str(HAPMAP), n_components=[3])
    with pytest.raises(TypeError, match="loadings"):
        gensvd.pca(str(HAPMAP), loadings="yes")
    with pytest.raises(TypeError, match="components_count"):
        gensvd.pca(str(HAPMAP), components_count=3)
    with pytest.raises(TypeError, match="maf"):  # not an option of `gensvd related`
        gensvd.related(str(HAPMAP), maf=0.1)
    with pytest.raises(TypeError, match="source"):
        gensvd.pca({"call_genotype": 1})
    with pytest.raises(TypeError, match="dtype"):
        gensvd.pca(np.zeros((10, 4), dtype=np.complex64))
    with pytest.raises(TypeError, match="mask"):
        gensvd.pca(np.zeros((10, 4, 2), dtype=bool))


def test_errors_carry_the_librarys_message(tmp_path):
    with pytest.raises(gensvd.StoreError, match="no-such-store") as e:
        gensvd.pca(str(tmp_path / "no-such-store.vcz"))
    assert e.value.code == -4  # GENSVD_ENOTFOUND
    # a corrupt chunk: an InputError naming the chunk (testdata/bad: the program's cases)
    bad = TESTDATA / "bad"
    case = next(line.split("\t") for line in (bad / "EXPECTED.tsv").read_text().splitlines()
                if line.startswith("corrupt_blosc_payload\t"))
    with pytest.raises(gensvd.InputError) as e:
        gensvd.read(str(bad / case[1].split("/")[0]), "a")
    assert case[3] in str(e.value)
    # an output that exists: refused before the input is read (here it does not exist)
    (tmp_path / "exists.zarr").mkdir()
    with pytest.raises(gensvd.StoreError, match="exists"):
        gensvd.pca(str(tmp_path / "no-such-store.vcz"), output=tmp_path / "exists.zarr")
    # degenerate input: more components than samples
    with pytest.raises(gensvd.UsageError, match="n_components=5 needs more than 3 samples"):
        gensvd.pca(np.zeros((50, 3, 2), dtype=np.int8), n_components=5)


def test_every_code_maps_to_its_class():
    want = {-1: gensvd.OutOfMemoryError, -2: gensvd.UsageError, -3: gensvd.StoreError,
            -4: gensvd.StoreError, -5: gensvd.InputError, -6: gensvd.InputError,
            -7: gensvd.InputError, -8: gensvd.InputError, -9: gensvd.StoreError,
            -10: gensvd.StoreError, -11: gensvd.InputError, -12: gensvd.GensvdError,
            -13: gensvd.CapabilityError, -14: gensvd.CapabilityError, -15: gensvd.GensvdError,
            -16: gensvd.CancelledError, -17: gensvd.GensvdError}
    for code, cls in want.items():
        with pytest.raises(gensvd.GensvdError) as e:
            gensvd._gensvd.raise_error(code, f"message {code}")
        assert type(e.value) is cls and e.value.code == code and str(e.value) == f"message {code}"
    assert issubclass(gensvd.OutOfMemoryError, MemoryError)


def test_version_and_kernels_are_the_programs():
    first = cli("--version").splitlines()
    assert first[0] == f"gensvd {gensvd.__version__}"
    lines = dict(line.split(": ", 1) for line in first[1:])
    kernels = re.match(r"OpenBLAS, (\w+) kernels", lines["blas"]).group(1)
    assert gensvd.build_info("blas").startswith(f"OpenBLAS, {kernels} kernels"), (
        gensvd.build_info("blas"), lines["blas"])
    info = gensvd.build_info()
    assert info["stores"] == lines["stores"] and info["codecs"] == lines["codecs"]


def test_progress_callable_and_bars(hapmap_path, capsys):
    events = []
    gensvd.pca(hapmap_path, 3, progress=lambda what, done, total: events.append(
        (what, done, total)))
    assert events and all(d <= t or t == 0 for _w, d, t in events)
    assert any(d == t and t > 0 for _w, d, t in events)  # a stage closes
    gensvd.pca(hapmap_path, 3, progress=True)  # tqdm, on stderr
    err = capsys.readouterr().err
    assert err and "%" in err
    from gensvd import _progress

    bar = _progress._Plain()  # without tqdm
    for what, done, total in events:
        bar(what, done, total)
    bar.close()
    assert "100.0%" in capsys.readouterr().err


def test_failing_progress_callback_stops_the_run(hapmap_path, tmp_path):
    def boom(what, done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        gensvd.pca(hapmap_path, 3, progress=boom, output=tmp_path / "o.zarr")
    assert not leftovers(tmp_path, "o")


def test_errors_are_raised_not_printed(tmp_path, capfd):
    with pytest.raises(gensvd.StoreError):
        gensvd.pca(str(tmp_path / "missing.vcz"))
    assert capfd.readouterr().err == ""


def test_messages_go_to_logging(hapmap_path, caplog):
    with caplog.at_level(logging.INFO, logger="gensvd"):
        gensvd.pca(hapmap_path, 3)
    assert any(r.name == "gensvd" and r.levelno == logging.INFO for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="gensvd"):
        gensvd.pca(hapmap_path, 3)
    assert not [r for r in caplog.records if r.levelno < logging.WARNING]


def test_open_info_and_read(hapmap_path):
    info = gensvd.open_info(hapmap_path)
    gt = next(a for a in info["arrays"] if a["path"] == "call_genotype")
    assert gt["shape"] == [14389, 957, 2] and gt["dims"] == ["variants", "samples", "ploidy"]
    assert "call_genotype" in cli("info", hapmap_path)
    pos = gensvd.read(hapmap_path, "variant_position", start=[10], stop=[15])
    import zarr

    assert pos.dims == ("variants",)
    np.testing.assert_array_equal(pos.values, zarr.open_group(hapmap_path, "r")[
        "variant_position"][10:15])


def test_gensvd_program_is_there():
    assert GENSVD and os.access(GENSVD, os.X_OK)
