"""The contiguous element-wise path of rocm_backend/hip/elementwise.hip, run on the CPU.

host_exec.py has g++ compile the element-wise kernels for the host (every thread of a
block a fiber, blocks one after another), and the backend's own contiguous
argument packing (ew_launch._EW_CONTIG) feeds them. Grids smaller and larger than the
array, misaligned starts and odd sizes check that the split of the vectors over
threads (two adjacent block-wide runs per step) covers every element exactly once and
writes nothing outside the output.
"""

import ctypes
import itertools

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp, UnaryOp
from host_exec import build
from rocm_backend import ops
from rocm_backend.abi.structs import EW_ARGS
from rocm_backend.families import ew_launch

CASES = [  # (op table key, numpy dtype, reference)
    (("unary", UnaryOp.NEGATIVE, dt.float32), np.float32, lambda x, y: -x),
    (("unary", UnaryOp.NEGATIVE, dt.float16), np.float16, lambda x, y: -x),
    (("unary", UnaryOp.NEGATIVE, dt.float64), np.float64, lambda x, y: -x),
    (("binary", BinaryOp.ADD, dt.float32), np.float32, lambda x, y: x + y),
    (("binary", BinaryOp.ADD, dt.int8), np.int8, lambda x, y: x + y),
    (("binary", BinaryOp.ADD, dt.float64), np.float64, lambda x, y: x + y),
]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build(tmp_path_factory.mktemp("ew_host"), [], [ops.lookup(key) for key, _, _ in CASES])


@pytest.mark.parametrize("case", CASES, ids=lambda c: ops.lookup(c[0]).name)
def test_contiguous_path_covers_every_element_once(lib, case):
    key, npd, reference = case
    spec = ops.lookup(key)
    kernel = getattr(lib, f"cwh_{spec.name}")
    binary = key[0] == "binary"
    for n, gx, bx, offset in itertools.product((1, 7, 64, 1000, 4099, 8205), (1, 2, 3, 5, 40), (32, 64, 128),
                                               (0, 1)):
        x = (np.arange(n + 8) % 97).astype(npd)
        y = (np.arange(n + 8) % 13).astype(npd)
        out = np.full(n + 8, 77, npd)
        args = ctypes.create_string_buffer(EW_ARGS.size)
        ew_launch._EW_CONTIG.pack_into(args, 0, n, 1, ew_launch._CONTIG_INDEX32, out.ctypes.data, offset,
                                       x.ctypes.data, offset, y.ctypes.data if binary else 0,
                                       offset if binary else 0, 0, 0, bytes(16))
        err = kernel(args, gx, 1, bx, 1, 32, None)
        assert err is None, err.decode()
        want = reference(x[offset:offset + n], y[offset:offset + n]).astype(npd)
        assert np.array_equal(out[offset:offset + n], want), (n, gx, bx, offset)
        assert (out[:offset] == 77).all() and (out[offset + n:] == 77).all(), (n, gx, bx, offset)
