"""Documented figures agree with the current records of bench/results/ (issue 35, item 7):
bench/README.md's table of records names each record's commit and date, and wherever the
README or a document cites a record's commit beside its link, it is that record's. A new
record replaces its file: this fails until the documents quoting it follow."""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
DOCUMENTS = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# a link to a record, then (in the same parenthesis or sentence, before any other link) a commit
CITED = re.compile(r"results/(?P<name>[\w.-]+)\.md\)(?P<between>[^\[\]]{0,24}?)\b(?P<commit>[0-9a-f]{7,12})\b")


def _record(name):
    """(commit, date) of ``bench/results/<name>.json``; None without one."""
    path = RESULTS / f"{name}.json"
    if not path.exists():
        return None
    record = json.loads(path.read_text())
    meta = record.get("meta", {})
    return record.get("commit") or meta.get("commit"), (record.get("date") or meta.get("date") or "")[:10]


def _table_rows():
    text = (ROOT / "bench" / "README.md").read_text()
    return [line for line in text.splitlines() if line.startswith("| [") and "](results/" in line]


def test_every_record_is_in_the_table_of_records():
    listed = {m for row in _table_rows() for m in re.findall(r"\]\(results/([\w.-]+)\.json\)", row)}
    on_disk = {p.stem for p in RESULTS.glob("*.json")}
    assert on_disk <= listed, f"bench/README.md's table of records lacks {sorted(on_disk - listed)}"


@pytest.mark.parametrize("row", _table_rows(), ids=lambda row: re.search(r"results/([\w.-]+)\.md", row)[1])
def test_the_table_names_each_records_commit_and_date(row):
    name = re.search(r"results/([\w.-]+)\.md", row)[1]
    found = _record(name)
    if found is None:
        return  # a test-run record (Markdown only): its row says where it came from
    commit, date = found
    last = row.rstrip(" |").rsplit("|", 1)[-1]
    if commit:
        assert commit in last, f"bench/README.md: {name} is at {commit}, the table says {last.strip()!r}"
    assert date in last, f"bench/README.md: {name} is of {date}, the table says {last.strip()!r}"


def _citations():
    for path in DOCUMENTS:
        for match in CITED.finditer(path.read_text()):
            if (_record(match["name"]) or (None,))[0] is not None:  # (an old record names no commit)
                yield pytest.param(path, match, id=f"{path.name}:{match['name']}:{match['commit']}")


@pytest.mark.parametrize("path, match", list(_citations()))
def test_a_commit_cited_beside_a_record_is_its_commit(path, match):
    commit, _ = _record(match["name"])
    assert match["commit"] == commit, (
        f"{path.relative_to(ROOT)} cites {match['name']} at {match['commit']}; the record is at {commit}: "
        f"quote the current record's figures")
