"""docs/python.md: every ```python block runs, in order, in one namespace (a notebook), in a
scratch directory where testdata/ is the repository's; and what the walkthrough prints about
the data is what the README's analysis reports."""

import contextlib
import io
import os
import re

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_every_code_block_runs(tmp_path, monkeypatch):
    code = blocks(DOC.read_text())
    assert len(code) >= 10
    os.symlink(ROOT / "testdata", tmp_path / "testdata")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc__"}
    out = io.StringIO()
    for i, block in enumerate(code):
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"{DOC.name}, python block {i + 1}", "exec"), namespace)
    printed = out.getvalue()
    # the README's analysis: 3,187 variants pruned, 70 relatives removed, 887 kept
    assert "11079 variants kept of 14266" in printed
    assert "887 unrelated samples kept" in printed
    assert (tmp_path / "hapmap3_pcs.png").stat().st_size > 10000
    assert "fastest" in printed  # the UsageError's message names the value
    means = namespace["means"].to_pandas()
    assert means.loc["YRI"].iloc[0] < 0 < means.loc["CHB"].iloc[0]  # PC1: Africa to East Asia
