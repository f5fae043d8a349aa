"""The stages of a conformance run, in the order they run.

Every test reads its results back through ``to_host`` and makes its inputs with
``storage_from_host``, and the device's own checks come before anything it creates: a
backend whose host transfer or creation is wrong fails every later test for that one
reason. So the suite runs the device and host-transfer tests first, then creation, then
the primitives; when a stage fails for a backend, that backend's later tests are
reported as *blocked* by it (skipped, naming the stage and its first failure) instead of
failing one by one. ``--no-stages`` (``--conformance-no-stages`` under plain pytest)
runs them all anyway.

A test belongs to the first stage whose rows (report rows: primitives) hold every row
it is filed under (``report.rows_of_test``); the last stage holds everything else.
Plain Python: the plugin and the report both use it.
"""

#: (stage name, the report rows it covers); the last stage covers every other row
STAGES = (
    ("device and host transfer", frozenset({
        "backend object", "device object", "same_device", "synchronize", "memory_info",
        "storage_from_host", "to_host",
    })),
    ("creation", frozenset({"zeros", "ones", "full", "empty", "arange", "rand_uniform", "rand_normal"})),
    ("primitives", None),
)
#: the stages whose failure blocks the later ones (the last stage blocks nothing)
BLOCKING = tuple(name for name, _ in STAGES[:-1])
#: the reason prefix of a test skipped because an earlier stage failed
BLOCKED = "blocked"


def stage_of(rows):
    """The index in ``STAGES`` of a test filed under ``rows``."""
    covered = set()
    for index, (_, stage_rows) in enumerate(STAGES):
        if stage_rows is None:
            return index
        covered |= stage_rows
        if set(rows) <= covered:
            return index
    raise AssertionError("the last stage covers every row")


def blocked_reason(stage, failed_test, failures):
    """The skip reason of a test blocked by ``stage`` (its name), whose first failing test
    is ``failed_test`` among ``failures`` failing tests."""
    more = f" (and {failures - 1} more)" if failures > 1 else ""
    return (f"{BLOCKED}: stage {stage!r} failed for this backend: {failed_test}{more}; later "
            f"tests would fail through it, so they wait for it to pass (--no-stages runs them anyway)")


class StageTracker:
    """Per backend, the failing tests of each stage; which earlier stage blocks a test."""

    def __init__(self):
        self.failed = {}  # (backend, stage index) -> [test ids]
        self.ran = {}  # (backend, stage index) -> number of tests that ran (blocked ones excluded)

    def record(self, backend, stage, test_id, failed):
        self.ran[(backend, stage)] = self.ran.get((backend, stage), 0) + 1
        if failed:
            self.failed.setdefault((backend, stage), []).append(test_id)

    def blocking(self, backend, stage):
        """The skip reason for a test of ``stage`` on ``backend``, or None when it may run."""
        for earlier in range(min(stage, len(BLOCKING))):
            failed = self.failed.get((backend, earlier))
            if failed:
                return blocked_reason(STAGES[earlier][0], failed[0], len(failed))
        return None
