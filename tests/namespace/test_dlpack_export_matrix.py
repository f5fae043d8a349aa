"""``x.__dlpack__`` with every combination of ``stream``, ``max_version``, ``dl_device`` and
``copy`` the Array API standard defines, on every selected backend: the capsule kind follows
``max_version``, the data lands where ``dl_device`` asks, copies never share memory and
sharing exports do, and the one refusal the standard allows (a move that ``copy=False``
forbids) is a ``BufferError``."""

import ctypes
import itertools

import numpy as np
import pytest

import candlewick as cw
from _oracle import on

HOST = (1, 0)
MAX_VERSIONS = [None, (0, 8), (1, 0), (1, 3), (2, 0)]
COPIES = [None, True, False]

# a prototype of our own: ctypes.pythonapi's shared function objects may carry another
# module's argtypes (the rocm backend's capsule code sets its own)
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))


class _Fixed:
    """A producer handing out one ready capsule, for NumPy's and candlewick's importers."""

    def __init__(self, capsule, where):
        self.capsule, self.where = capsule, where

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return self.where


def _streams(own):
    # the standard: only None on devices without streams; on CUDA/ROCm also -1 (no
    # synchronisation) and 0 (ROCm's default stream; on CUDA 1 is the legacy default)
    if own == HOST:
        return [None]
    return [None, -1, 1 if own[0] == 2 else 0]


def _exports(device):
    return hasattr(type(cw.zeros(1, device=device)._storage), "dlpack_view")


def test_every_argument_combination(device):
    if not _exports(device):
        pytest.skip(f"the {device.backend} backend does not export DLPack")
    base = np.arange(6.0).reshape(2, 3)
    own = tuple(int(v) for v in on(device, base).__dlpack_device__())
    targets = [None, own] + ([HOST] if own != HOST else [])
    for stream, max_version, dl_device, copy in itertools.product(_streams(own), MAX_VERSIONS, targets, COPIES):
        case = f"stream={stream} max_version={max_version} dl_device={dl_device} copy={copy}"
        x = on(device, base)
        moves = dl_device is not None and dl_device != own
        if moves and copy is False:
            with pytest.raises(BufferError, match="copy"):
                x.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
            continue
        if moves and stream is not None:
            # a stream names the consumer's queue on the consumer's device: the host has none
            stream = None
        capsule = x.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
        versioned = max_version is not None and max_version[0] >= 1
        assert _capsule_name(capsule) == (b"dltensor_versioned" if versioned else b"dltensor"), case
        lands = dl_device if moves else own
        producer = _Fixed(capsule, lands)
        got = np.from_dlpack(producer) if lands == HOST else cw.from_dlpack(producer, device=device)
        x[0, 0] = -1.0
        seen = got[0, 0] if lands == HOST else cw.to_numpy(got)[0, 0]
        shares = not moves and copy is not True
        assert seen == (-1.0 if shares else 0.0), case
        values = np.array(got) if lands == HOST else cw.to_numpy(got)
        np.testing.assert_array_equal(values[1], base[1], err_msg=case)


def test_bad_arguments_name_the_argument(device):
    if not _exports(device):
        pytest.skip(f"the {device.backend} backend does not export DLPack")
    x = on(device, [1.0, 2.0])
    for kwargs, argument in (({"copy": 1}, "copy"), ({"max_version": 1}, "max_version"),
                             ({"dl_device": "cpu"}, "dl_device")):
        with pytest.raises(cw.errors.CandlewickError, match=argument):
            x.__dlpack__(**kwargs)
