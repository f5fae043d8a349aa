"""Why candlewick fails a library test that array-api-strict passes, where the cause is
the library's (``tools/pydata_suites.py`` writes it beside the failure, and
docs/ecosystem.md lists it). A cause of ours is fixed in candlewick, not listed here.

Each entry: (library, a regular expression matched against the test's node id, the
devices it holds on, the cause). A cause of theirs starts with ``theirs:`` and names the
library's line that shows it.
"""

import re

# rocm: the library converts the array to NumPy (np.asarray), which candlewick refuses for
# device memory unless implicit host copies are turned on (as CuPy refuses it)
IMPLICIT_COPY = "implicit conversion of a"

KNOWN = [
]


def cause_of(library, entry, device):
    """The known cause of a candlewick failure (a result entry of the plugin), or None."""
    if IMPLICIT_COPY in (entry.get("error") or "") and device != "cpu":
        return (f"theirs: {entry.get('where')} converts the array with NumPy: it needs host data, and "
                f"implicit copies from {device} are refused (candlewick.set_implicit_host_copy(True) allows them)")
    for known_library, pattern, devices, cause in KNOWN:
        if known_library == library and device in devices and re.search(pattern, entry["nodeid"]):
            return cause
    return None
