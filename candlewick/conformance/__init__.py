"""The backend conformance suite, shipped with candlewick so that a backend written in
another repository is tested against the installed library:

    python -m candlewick.conformance BACKEND [--markdown report.md] [--json report.json]

Every primitive of ``candlewick/backend.py`` is tested at the storage level against
NumPy. The run ends with a primitive x dtype report (``candlewick.conformance.report``).
Running it needs the ``conformance`` extra (pytest, hypothesis); importing candlewick
never imports this package.
"""

#: comma list of the backends a test run covers (``selection.py``)
BACKENDS_ENV = "CANDLEWICK_TEST_BACKENDS"
#: the hypothesis profile: smoke, ci (default), dev or gpu (``selection.py``)
PROFILE_ENV = "CANDLEWICK_HYPOTHESIS_PROFILE"
