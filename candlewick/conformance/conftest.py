"""The suite's fixtures: a device of each backend under test (``selection.py``), a skip
marked "not declared by the backend" for a dtype the device does not declare, each test
filed under its primitives and dtypes for the report (``plugin.py``), and the tests put in
the order of their stages (``stages.py``)."""

import pathlib

import pytest

from candlewick import dtypes as dt

from . import report, stages
from .plugin import PROPERTY, tags_of
from .selection import SELECTED_BACKENDS, check_selected_can_run, load_hypothesis_profile
from .selection import device  # noqa: F401  (the fixture, shared with tests/conftest.py)

_HERE = pathlib.Path(__file__).parent

load_hypothesis_profile()


def _params(item):
    callspec = getattr(item, "callspec", None)
    return dict(callspec.params) if callspec else {}


@pytest.fixture(autouse=True)
def _dtypes_declared(request):
    """A test of a dtype the device does not declare is skipped, "not declared by the
    backend", never a failure."""
    if "device" not in request.fixturenames:
        return
    dev = request.getfixturevalue("device")
    declared = set(dev.dtypes)
    missing = [v.name for v in _params(request.node).values()
               if isinstance(v, dt.DType) and v not in declared]
    if missing:
        pytest.skip(f"{report.NOT_DECLARED}: {dev.name} does not declare dtype {', '.join(missing)}")


def _tags(item):
    params = _params(item)
    marker = item.get_closest_marker("primitive")
    args, param = (marker.args, marker.kwargs.get("param")) if marker else ((), None)
    try:
        rows = report.rows_of_test(item.originalname, args, param, params)
    except ValueError as exc:
        raise pytest.UsageError(
            f"{item.nodeid}: {exc}. Name the primitives it tests: @pytest.mark.primitive(...)"
        ) from None
    return params["device"], tuple(rows), tuple(report.dtypes_of_params(params))


def _stage(item):
    tags = tags_of(item)
    return 0 if tags is None else stages.stage_of(tags[1])


def pytest_collection_modifyitems(config, items):
    ours = [item for item in items if _HERE in pathlib.Path(str(item.path)).parents]
    for item in ours:
        item.add_marker(pytest.mark.conformance)
        if "device" in item.fixturenames:
            item.user_properties.append((PROPERTY, _tags(item)))
    check_selected_can_run(ours, SELECTED_BACKENDS)
    # the stages in order (stages.py): device and host transfer, creation, then the rest;
    # the suite's tests move among their own places, other tests of the session stay put
    places = [i for i, item in enumerate(items) if _HERE in pathlib.Path(str(item.path)).parents]
    for place, item in zip(places, sorted(ours, key=_stage)):
        items[place] = item
