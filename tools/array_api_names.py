"""The revisions of the Array API standard the coverage documents follow, where their
files are (the checklist in ``../shared/``, the embedded name list in
``tools/array_api_<rev>_names.txt``, the generated document in ``docs/``), and the reading
and writing of the name lists: [(section, [names])].

Importing it puts the repository root first on ``sys.path``, so the sibling modules
(array_api_needs, backend_facts) import candlewick from this checkout.
"""

import re
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

REVISIONS = ("2025.12", "2024.12")
DEFAULT_REVISION = "2025.12"


def _stem(revision):
    return "array_api_" + revision.replace(".", "_")


def checklist_path(revision=DEFAULT_REVISION):
    return REPO.parent / "shared" / f"{_stem(revision)}.md"


def output_path(revision=DEFAULT_REVISION):
    """The default revision's document is docs/array_api.md; others carry their name."""
    return REPO / "docs" / ("array_api.md" if revision == DEFAULT_REVISION else f"{_stem(revision)}.md")


def embedded_names(revision=DEFAULT_REVISION):
    """Section headings and names of the checklist ('~' stands for a space inside a name)."""
    return (Path(__file__).with_name(f"{_stem(revision)}_names.txt")).read_text()


DEFAULT_CHECKLIST = checklist_path()
OUTPUT = output_path()
EMBEDDED_NAMES = embedded_names()


# --- the list of names ------------------------------------------------------------------

def parse_checklist(text):
    """[(section, [names])] from the checklist's '## section' headings and '- [ ] name' items."""
    sections = []
    for line in text.splitlines():
        heading = re.match(r"^#{2,3} (.*)", line)
        if heading:
            sections.append((heading.group(1).strip(), []))
            continue
        item = re.match(r"^- \[[ xX]\] (.*)", line)
        if item and sections:
            body = item.group(1)
            name = "default dtypes" if body.startswith("default dtypes") else re.match(r"[A-Za-z_][\w.]*", body).group(0)
            sections[-1][1].append(name)
    return [(s, names) for s, names in sections if names]


def parse_embedded(text=None, revision=DEFAULT_REVISION):
    text = embedded_names(revision) if text is None else text
    sections = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:], []))
        elif line.strip():
            sections[-1][1].extend(n.replace("~", " ") for n in line.split())
    return sections


def render_embedded(sections):
    lines = []
    for section, names in sections:
        lines.append(f"## {section}")
        lines += textwrap.wrap(" ".join(n.replace(" ", "~") for n in names), 88)
    return "\n".join(lines) + "\n"


def load_names(checklist=None, revision=DEFAULT_REVISION):
    path = Path(checklist) if checklist else checklist_path(revision)
    if path.is_file():
        return parse_checklist(path.read_text()), str(path.name)
    return parse_embedded(revision=revision), f"the copy in tools/{_stem(revision)}_names.txt"

