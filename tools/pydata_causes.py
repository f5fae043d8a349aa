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
#: the words of such a cause, which tools/gen_ecosystem_doc.py looks for
HANDS_TO_NUMPY = "hands the array to NumPy"

ALL = ("cpu", "rocm")
KNOWN = [
    ("scipy", r"test_support_alternative_backends\.py::test_support_alternative_backends_mismatched_dtypes"
              r"\[candlewick-(rel_entr|xlogy)\]", ALL,
     "theirs: scipy/_lib/_array_api.py:507 promotes by the namespace's own result_type (candlewick: an int64 "
     "with a float32 gives float32, as PyTorch and JAX do), and the test (test_support_alternative_backends.py:273) "
     "expects NumPy's float64; array-api-strict passes only because its result_type refuses mixed kinds and "
     "SciPy then falls back to float64 (candlewick.set_promotion_mode('strict') does the same)"),
    ("scipy", r"test_filters\.py::TestVectorizedFilter::test_input_validation\[candlewick\]", ALL,
     "theirs: scipy/ndimage/tests/test_filters.py:3009 matches the error text of the libraries it names "
     "('The array_api_strict', 'Value 'a duck'', NumPy's); candlewick refuses the string cval with its own "
     "words (ArgumentTypeError: asarray: strings are not array data)"),
    ("scipy", r"test_filters\.py::TestVectorizedFilter::test_edge_cases\[candlewick\]", ALL,
     "theirs: scipy/ndimage/tests/test_filters.py:3037 skips the footprint=True/False part for array-api-strict, "
     "whose indexing refuses a Python bool key (input[True]) as the standard does not specify it; candlewick "
     "refuses it the same way (IndexKeyError), and runs the part strict skips"),
    ("scipy", r"test_stats\.py::TestKruskal::test_nan_policy_omit_raise\[candlewick\]", ("rocm",),
     "theirs: scipy/stats/tests/test_stats.py:8144 asks for exactly 0.0 from a statistic whose terms cancel (7.2e-15 "
     "from a GPU's summation order); SciPy xfails CuPy for the same reason at test_stats.py:8138 "
     "('cupy returns small but nonzero res.statistic')"),
    ("sklearn", r"test_array_api\.py::test_supported_float_types\[candlewick-", ALL,
     "theirs: sklearn/utils/tests/test_array_api.py:1065 lists array-api-strict's own float types (float64, "
     "float32: strict has no float16); candlewick supports float16 as well, as NumPy and PyTorch do, whose rows "
     "of the same table list it"),
    ("xarray", r"test_array_api\.py::test_astype\[candlewick\]", ("rocm",),
     "theirs: xarray/tests/test_array_api.py:61 expects x86 NumPy's cast of NaN to int64 (-2**63), and its own "
     "filterwarnings line names the invalid cast; the standard leaves casting NaN to an integer dtype "
     "implementation-dependent (astype's note), and a GPU converts NaN to 0 (PTX cvt, AMD v_cvt), as NumPy on "
     "aarch64 does; the test passes on rocm once implicit host copies are allowed but for that element"),
    ("xarray", r"test_duck_array_wrapping\.py::TestTopLevelMethods::test_cross\[candlewick\]", ALL,
     "theirs: xarray/computation/computation.py:473 calls np.result_type on the DataArrays, and NumPy converts an "
     "object's .dtype only when it is a numpy.dtype instance (NumPy does not let a class derive from numpy.dtype); "
     "array-api-strict fails it the same way"),
]


def cause_of(library, entry, device):
    """The known cause of a candlewick failure (a result entry of the plugin), or None."""
    for known_library, pattern, devices, cause in KNOWN:
        if known_library == library and device in devices and re.search(pattern, entry["nodeid"]):
            return cause
    if IMPLICIT_COPY in (entry.get("error") or "") and device != "cpu":
        again = entry.get("with_copies", "not run")
        if again not in ("passed", "xpassed"):
            return None  # not shown to be only the copy: a failure of ours until the second pass passes
        return (f"theirs: {entry.get('caller') or entry.get('where')} {HANDS_TO_NUMPY}, which needs host "
                f"data (a NumPy-only path: CuPy and PyTorch refuse the implicit copy of device memory the same "
                f"way); candlewick refuses it from {device} unless candlewick.set_implicit_host_copy(True): with "
                f"it, the test passes")
    return None
