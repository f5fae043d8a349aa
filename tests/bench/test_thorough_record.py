"""tools/array_api_thorough.py reads Hypothesis's statistics in both of its wordings and keeps
each failure's falsifying example in the record (a record of 0 examples hid a GPU run's)."""

import importlib.util
import pathlib

TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "array_api_thorough.py"
spec = importlib.util.spec_from_file_location("array_api_thorough", TOOL)
thorough = importlib.util.module_from_spec(spec)
spec.loader.exec_module(thorough)

OLD = """tests/array_api/test_elementwise.py::test_unary_matches_strict[cpu-exp]:

  - during generate phase (1.00 seconds):
    - Typical runtimes: ~ 1ms, of which ~ 0ms in data generation
    - 400 passing examples, 0 failing examples, 12 invalid examples
"""
NEW = """tests/array_api/test_indexing.py::test_setitem_with_a_boolean_mask[rocm]:

  - during generate phase (1.47 seconds):
    - Typical runtimes: ~ 1-3 ms, of which ~ 0-2 ms in data generation
    - 399 passing, 1 failing, and 124 invalid test cases

  - during shrink phase (0.20 seconds):
    - 3 passing, 5 failing, and 0 invalid test cases
"""


def test_statistics_in_both_wordings_add_their_phases():
    counts = thorough.parse_statistics(OLD + "\n" + NEW)
    assert counts == {
        "tests/array_api/test_elementwise.py::test_unary_matches_strict[cpu-exp]": (400, 0, 12),
        "tests/array_api/test_indexing.py::test_setitem_with_a_boolean_mask[rocm]": (402, 6, 124),
    }


def test_failure_details_keep_the_error_and_the_falsifying_example():
    output = """____________ test_binary_with_python_scalar[rocm-pow] ____________
tests/array_api/test_elementwise.py:120: in test_binary_with_python_scalar
    check(result, expected)
E   AssertionError: values differ at [0]
E   assert 1.0 == 0.5
Falsifying example: test_binary_with_python_scalar(
    data=data(...),
    name='pow',
)
Explanation:
    These lines were always and only run by failing examples:
=========================== short test summary info ============================
FAILED tests/array_api/test_elementwise.py::test_binary_with_python_scalar[rocm-pow]
"""
    details = thorough.failure_details(output)
    assert list(details) == ["test_binary_with_python_scalar[rocm-pow]"]
    lines = details["test_binary_with_python_scalar[rocm-pow]"]
    assert "E   assert 1.0 == 0.5" in lines
    assert "    name='pow'," in lines
    assert not any("These lines" in line for line in lines)
