"""__array_namespace_info__ against the standard's shape and array-api-strict's answers."""

import array_api_strict as xp
import pytest

import candlewick as cw
from candlewick import registry

KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "complex floating"), ("integral", "real floating")]


def test_info_object_is_what_the_namespace_reports():
    info = cw.__array_namespace_info__()
    caps = info.capabilities()
    assert set(caps) == {"boolean indexing", "data-dependent shapes", "max dimensions"}
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] is None or (isinstance(caps["max dimensions"], int) and caps["max dimensions"] >= 1)
    assert info.default_device() is registry.default_device_now()
    assert list(info.devices()) == list(registry.all_devices())
    assert isinstance(info.devices(), tuple if cw.__array_api_version__ >= "2025.12" else list)


def test_default_device_follows_the_context(device):
    with cw.default_device(device):
        assert cw.__array_namespace_info__().default_device() is device


def test_default_dtypes(device):
    defaults = cw.__array_namespace_info__().default_dtypes(device=device)
    assert defaults == {"real floating": cw.float64, "complex floating": cw.complex128,
                        "integral": cw.int64, "indexing": cw.int64}
    assert defaults == cw.__array_namespace_info__().default_dtypes()
    with pytest.raises(ValueError):
        cw.__array_namespace_info__().default_dtypes(device="no-such-backend")


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_by_kind_match_strict(device, kind):
    got = cw.__array_namespace_info__().dtypes(device=device, kind=kind)
    want = xp.__array_namespace_info__().dtypes(kind=kind)
    declared = {d.name for d in device.dtypes}
    assert set(got) == set(want) & declared
    for name, dtype in got.items():
        assert dtype is getattr(cw, name) and dtype.name == name
    assert "float16" not in got and "bfloat16" not in got


def test_dtypes_rejects_unknown_kind(device):
    info = cw.__array_namespace_info__()
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind=("bool", "strings"))


def test_max_dimensions_is_the_smallest_declared(monkeypatch, device):
    monkeypatch.setattr(device, "max_dimensions", 7, raising=False)
    assert cw.__array_namespace_info__().capabilities()["max dimensions"] <= 7
