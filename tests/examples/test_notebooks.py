"""The example notebooks (examples/*.ipynb): each stored notebook holds the outputs of its
current source, and each runs top to bottom (CI: on cpu; tools/gpu_run.sh: on rocm).

Executing needs the ``examples`` extra (nbclient, ipykernel, matplotlib, ...); without it the
execution test is skipped, the stored-notebook checks still run. Regenerate the stored
outputs with ``python tools/run_notebooks.py --write`` (on cpu).
"""

import importlib.util
import json
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# by path: tools/ is no package
_spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "tools" / "run_notebooks.py")
run_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_notebooks)

NOTEBOOKS = run_notebooks.notebooks()
# a cell whose text output may differ between runs or machines (timings, versions, what
# this machine has installed) carries this tag; every other cell's text must reproduce
VARIES_TAG = "varies"
# stored outputs stay small: plots as modest PNGs, no embedded data sets
MAX_NOTEBOOK_BYTES = 400_000


def code_cells(nb):
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def text_outputs(cell):
    """The cell's stdout as one string (the kernel splits a stream into outputs as its
    timing goes) and its text results, one string each."""
    stdout, results = [], []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream" and out["name"] == "stdout":
            stdout.append("".join(out["text"]))
        elif out["output_type"] == "execute_result":
            results.append("".join(out["data"].get("text/plain", "")))
    return ["".join(stdout)] + results


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks in examples/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_notebook_is_one_clean_run(path):
    """Execution counts 1..n in cell order (one top-to-bottom run of this source, no cell
    edited or re-run after it), no stored error, a known device, a modest size."""
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES, f"{path.name}: {path.stat().st_size} bytes"
    nb = json.loads(path.read_text())
    cells = code_cells(nb)
    counts = [cell["execution_count"] for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), f"{path.name}: execution counts {counts}"
    for cell in cells:
        errors = [out for out in cell["outputs"] if out["output_type"] == "error"]
        assert not errors, f"{path.name} cell {cell['execution_count']}: stored error {errors[0].get('ename')}"
        for out in cell["outputs"]:
            # counts of results match their cell's: a result from an earlier run would not
            if out["output_type"] == "execute_result":
                assert out["execution_count"] == cell["execution_count"], path.name
    assert nb["metadata"].get(run_notebooks.META_KEY, {}).get("device"), f"{path.name}: run by tools/run_notebooks.py?"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_reproduces_its_outputs(path):
    """Executes the notebook on the run's device (a failing cell fails the test); it says
    that it ran there; on the device its outputs were stored from, every text output
    of a cell not tagged 'varies' is the stored one."""
    pytest.importorskip("nbclient", reason="the examples extra is not installed")
    pytest.importorskip("ipykernel", reason="the examples extra is not installed")
    device = run_notebooks.run_device()
    ran = run_notebooks.execute(path, device)
    out_dir = os.environ.get("CANDLEWICK_NOTEBOOK_OUT")
    if out_dir:  # tools/gpu_run.sh keeps the executed notebooks as the run's record
        pathlib.Path(out_dir).mkdir(parents=True, exist_ok=True)
        (pathlib.Path(out_dir) / path.name).write_text(json.dumps(ran, indent=1))
    said = "".join(text for cell in code_cells(ran) for text in text_outputs(cell))
    assert f"runs on: {device.split(':')[0]}" in said, f"{path.name} does not say it ran on {device}"

    stored = json.loads(path.read_text())
    if stored["metadata"][run_notebooks.META_KEY]["device"] != device:
        return  # another device: numbers and names legitimately differ
    for old, new in zip(code_cells(stored), code_cells(ran), strict=True):
        if VARIES_TAG in old.get("metadata", {}).get("tags", []):
            continue
        assert text_outputs(new) == text_outputs(old), f"{path.name} cell {old['execution_count']}:\n{''.join(old['source'])}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_cells_quoting_bench_records_are_checked(path):
    """A cell that reads bench/results/ prints what the current records say: it is never
    tagged 'varies', so the run above fails when a record changed and the stored output was
    not regenerated (python tools/run_notebooks.py --write)."""
    for cell in code_cells(json.loads(path.read_text())):
        source = "".join(cell["source"])
        if '"results"' in source and '"bench"' in source or "bench/results" in source:
            tags = cell.get("metadata", {}).get("tags", [])
            assert VARIES_TAG not in tags, f"{path.name} cell {cell['execution_count']} reads records but varies"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_links_to_the_standard_name_the_default_revision(path):
    """The namespace follows the Array API revision candlewick.api_version.DEFAULT unless told
    otherwise: the notebooks link that revision's text."""
    from candlewick import api_version

    text = "".join("".join(cell["source"]) for cell in json.loads(path.read_text())["cells"])
    linked = set(re.findall(r"data-apis\.org/array-api/(\d{4}\.\d\d)", text))
    assert linked <= {api_version.DEFAULT}, f"{path.name} links the Array API {sorted(linked)}, not {api_version.DEFAULT}"
