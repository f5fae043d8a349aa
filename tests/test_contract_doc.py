"""The rules the conformance suite checks (candlewick/contract.py) are stated, the same, in
candlewick/backend.py's docstring and docs/writing-a-backend.md (issue 35, item 2), and the
table names only primitives of the protocol."""

import importlib.util
import pathlib

import pytest

from candlewick import backend, contract
from candlewick.conformance import report

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gen_contract_doc", ROOT / "tools" / "gen_contract_doc.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


@pytest.mark.parametrize("target", gen.TARGETS, ids=lambda t: t[0].name)
def test_each_document_holds_the_tables_rules(target):
    path, begin, end, render = target
    assert gen.generated(path, begin, end, render) == path.read_text(), (
        f"{path.name} differs from candlewick/contract.py: run python tools/gen_contract_doc.py")


def test_the_docstring_the_module_carries_is_the_generated_one():
    lines = [line.strip() for line in contract.render_docstring() if line.strip()]
    doc = [line.strip() for line in backend.__doc__.splitlines() if line.strip()]
    start = doc.index(lines[0])
    assert doc[start:start + len(lines)] == lines


def test_rules_are_unique_and_name_protocol_primitives():
    rules = contract.all_rules()
    ids = [rule.id for rule in rules]
    assert len(ids) == len(set(ids)), ids
    for rule in rules:
        assert rule.primitives and rule.text.strip(), rule.id
        for name in rule.primitives:
            report.row_of(name)  # raises for a name that is no primitive of candlewick/backend.py
