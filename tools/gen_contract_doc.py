"""Write the conformance suite's rules (candlewick/contract.py) into candlewick/backend.py's
module docstring and docs/writing-a-backend.md, between their markers.

    python tools/gen_contract_doc.py           # rewrite both
    python tools/gen_contract_doc.py --check   # exit 1 if either differs (tests/test_contract_doc.py)
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from candlewick import contract  # noqa: E402  (this tree's, not an installed one)

BACKEND = ROOT / "candlewick" / "backend.py"
GUIDE = ROOT / "docs" / "writing-a-backend.md"
#: (file, begin marker line, end marker line, rendering)
TARGETS = (
    (BACKEND, "The rules the conformance suite checks (generated from candlewick/contract.py by",
     "(end of the generated rules)", contract.render_docstring),
    (GUIDE, "<!-- begin: the rules of candlewick/contract.py, written by tools/gen_contract_doc.py -->",
     "<!-- end of the generated rules -->", contract.render_markdown),
)
BACKEND_INTRO = "tools/gen_contract_doc.py: edit the table, not this text)"


def generated(path, begin, end, render):
    """``path``'s text with the block between ``begin`` and ``end`` written from the table."""
    text = path.read_text()
    start = text.index(begin)
    stop = text.index(end, start)
    head = begin + ("\n" + BACKEND_INTRO if path == BACKEND else "")
    return text[:start] + head + "\n" + "\n".join(render()) + "\n" + text[stop:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report differences instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for path, begin, end, render in TARGETS:
        new = generated(path, begin, end, render)
        if new != path.read_text():
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print(f"out of date with candlewick/contract.py: {', '.join(map(str, stale))}; "
              f"run python tools/gen_contract_doc.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
