"""docs/array_api.md (2025.12) and docs/array_api_2024_12.md are what
tools/gen_array_api_doc.py generates from the code, and the generator's reading of the
code is right on known cases."""

import importlib.util
from pathlib import Path

import pytest

import candlewick as cw

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_array_api_doc", REPO / "tools" / "gen_array_api_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REVISIONS = ["2025.12", "2024.12"]
NEW_IN_2025_12 = {"isin", "broadcast_shapes", "linalg.eig", "linalg.eigvals"}


@pytest.mark.parametrize("revision", REVISIONS)
def test_committed_doc_is_up_to_date(gen, revision):
    path = gen.output_path(revision)
    assert path.name == ("array_api.md" if revision == "2025.12" else "array_api_2024_12.md")
    assert path.read_text() == gen.generate(revision=revision), (
        f"{path.name} is stale: run python tools/gen_array_api_doc.py")


@pytest.mark.parametrize("revision", REVISIONS)
def test_embedded_name_list_matches_the_checklist(gen, revision):
    checklist = gen.checklist_path(revision)
    if not checklist.is_file():
        pytest.skip(f"no checklist at {checklist}")
    parsed = gen.parse_checklist(checklist.read_text())
    assert parsed == gen.parse_embedded(revision=revision)
    assert gen.render_embedded(parsed) == gen.embedded_names(revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_generation_without_the_checklist_gives_the_same_document(gen, tmp_path, revision):
    assert gen.generate(tmp_path / "absent.md", revision) == gen.generate(revision=revision)


@pytest.mark.parametrize("revision, count", [("2025.12", 268), ("2024.12", 264)])
def test_every_checklist_name_resolves(gen, revision, count):
    sections = gen.parse_embedded(revision=revision)
    names = [n for _, ns in sections for n in ns]
    assert len(names) == count and "linalg.cholesky" in names and "fft.ihfft" in names
    assert (NEW_IN_2025_12 <= set(names)) == (revision == "2025.12")
    missing = [n for n in names if gen.resolve_name(n)[1] is None]
    assert missing == []
    assert gen.resolve_name("no_such_function") == (None, None)


def test_needs_follow_the_calls(gen):
    needs = gen.Needs()
    prims, _ = needs.of(cw.linalg.matrix_rank)
    assert "svd" in prims and "reduce" in prims  # through svdvals -> svd, and sum
    prims, ops = needs.of(cw.sqrt)
    # astype: integer input runs in the default floating dtype (docs/promotion.md)
    assert prims == {"unary", "astype"} and {op.value for op in ops} == {"sqrt"}
    prims, _ = needs.of(cw.fft.rfftn)
    assert "rfftn" in prims and "irfft" not in prims  # one n-dimensional primitive call
    assert needs.of(cw.linalg.diagonal)[0] == set()  # a pure view
    # read through the 2025.12 functions' revision check to the function itself
    assert needs.of(cw.linalg.eigvals)[0] == {"eig"}
    assert "isin" in needs.of(cw.isin)[0] and "sort_values" not in needs.of(cw.isin)[0]  # one primitive


def test_backend_verdicts(gen):
    cpu = gen.BackendFacts("cpu")
    assert cpu.error is None and cpu.storage_cls is not None and cpu.device_cls is not None
    sqrt_ops = gen.Needs().of(cw.sqrt)[1]
    assert cpu.status({"unary"}, sqrt_ops) == "✓"
    assert "lacks no_such_primitive" in cpu.status({"no_such_primitive"}, set())
    cpu.capabilities = frozenset()
    assert "'linalg' not declared" in cpu.status({"cholesky"}, set())
    cpu.capabilities = None
    assert "per device" in cpu.status({"cholesky"}, set())
    cpu.op_dtypes = {}
    assert "sqrt lacks all dtypes" in cpu.status({"unary"}, sqrt_ops)
