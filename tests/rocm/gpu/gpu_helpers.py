"""Small helpers shared by the rocm GPU tests."""

import ml_dtypes
import numpy as np

from candlewick.layout import Layout


def upload(device, array):
    """(storage, contiguous layout) of a host array on ``device``."""
    array = np.ascontiguousarray(array)
    return device.storage_from_host(array), Layout.contiguous(array.shape)


def read(storage, shape):
    return storage.to_host(Layout.contiguous(tuple(shape)))


def eps(dtype):
    return float(ml_dtypes.finfo(dtype.numpy).eps)


def tiny(dtype):
    return float(ml_dtypes.finfo(dtype.numpy).smallest_subnormal)


def record_answers(monkeypatch, module, name):
    """A list that ``module.name``'s calls append to, in order: whether each answered (not
    None; a path's None means its caller fell back)."""
    answers = []
    original = getattr(module, name)

    def recorded(*args):
        out = original(*args)
        answers.append(out is not None)
        return out

    monkeypatch.setattr(module, name, recorded)
    return answers
