"""rfftn and irfftn over one axis (scipy.signal.fftconvolve's calls: ``s=[n], axes=[a]``)
through ``one_axis_arguments``' inline checks: the general path's values for every form of
``s`` and ``axes`` it takes, and for every form it leaves, the general path's answer or
error."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fft import _arguments, real_transforms

NEEDS_GROUP = "fft"

FORMS = [
    dict(s=[12], axes=[1]), dict(s=(7,), axes=(-1,)), dict(s=[10], axes=[0]), dict(s=None, axes=[1]),
    dict(s=[9], axes=None), dict(s=[5], axes=[-2], norm="ortho"), dict(s=[16], axes=[1], norm="forward"),
    # left to the general path: its answer or its error
    dict(s=[-1], axes=[1]), dict(s=[0], axes=[1]), dict(s=[True], axes=[1]), dict(s=[4, 4], axes=[1]),
    dict(s=[np.int64(6)], axes=[1]), dict(s=[6], axes=[2]), dict(s=[6], axes=[True]), dict(s=[6], axes=[1, 1]),
    dict(s=6, axes=[1]), dict(s=[6], axes=1), dict(s=[6], axes=[1], norm="none"), dict(s=None, axes=None),
]


def _outcome(fn, x, kwargs):
    try:
        return cw.to_numpy(fn(x, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the two paths' errors are compared
        return type(exc), str(exc)


def _same(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("kwargs", FORMS, ids=[str(f) for f in FORMS])
@pytest.mark.parametrize("name", ["rfftn", "irfftn"])
def test_one_axis_forms_answer_as_the_general_path(device, monkeypatch, name, kwargs):
    if "fft" not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional 'fft' group")
    host = np.random.default_rng(3).standard_normal((4, 10))
    x = cw.asarray(host, device=device)
    if name == "irfftn":
        x = cw.fft.rfft(x)
    fn = getattr(cw.fft, name)
    fast = _outcome(fn, x, kwargs)
    with monkeypatch.context() as m:
        m.setattr(real_transforms, "one_axis_arguments", lambda *args: None)
        general = _outcome(fn, x, kwargs)
    assert _same(fast, general), (fast, general)


def test_the_inline_checks_take_the_common_forms_and_leave_the_rest(device):
    if "fft" not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional 'fft' group")
    x = cw.asarray(np.ones((4, 10)), device=device)
    assert _arguments.one_axis_arguments(x, [12], [1], "backward", False) == (1, 12)
    assert _arguments.one_axis_arguments(x, None, (-2,), "ortho", False) == (0, 4)
    assert _arguments.one_axis_arguments(cw.fft.rfft(x), None, [1], "backward", True) == (1, 10)
    assert _arguments.one_axis_arguments(x, None, [1], "backward", True) is None  # (real input: the general error)
    for s, axes in [([-1], [1]), ([True], [1]), ([6], [2]), (None, None), ([6], 1), ([np.int64(6)], [1])]:
        assert _arguments.one_axis_arguments(x, s, axes, "backward", False) is None, (s, axes)
    assert _arguments.one_axis_arguments(x, [6], [1], "none", False) is None
    assert _arguments.one_axis_arguments(cw.asarray([1, 2], device=device), [6], [0], "backward", False) is None
