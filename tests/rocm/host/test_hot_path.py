"""The host hot path of the ROCm backend, on a fake HIP runtime (no GPU needed):
asynchronous ops never wait for the device, allocations come from the cache, and the
contiguous fast path packs exactly the fields its kernels read."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp, ScanOp, UnaryOp
from rocm_backend.abi import structs
from rocm_backend.abi.ew_operands import ew_values, split_dims
from rocm_backend.families import ew_launch, pad_fixup_cache, reductions
from rocm_backend.kernels import ew_kernel


def _upload(dev, a):
    return dev.storage_from_host(np.ascontiguousarray(a)), Layout.contiguous(a.shape)


def test_async_ops_never_synchronize_and_reuse_cached_blocks(fake):
    rt, dev = fake
    x, lx = _upload(dev, np.arange(16, dtype=np.float32))
    c, lc = _upload(dev, np.arange(16) % 2 == 0)
    t = Layout((4, 4), (1, 4), 0)  # a transposed view: the strided path

    def work():
        x.binary(BinaryOp.ADD, lx, x, lx)
        x.binary(BinaryOp.ADD, t, x, t)
        x.unary(UnaryOp.EXP, lx)
        x.binary_scalar(BinaryOp.MULTIPLY, lx, 2.0, True)
        c.where(lc, x, lx, x, lx)
        x.reduce(ReduceOp.SUM, lx, (0,))
        x.reduce(ReduceOp.SUM, t, (1,))
        x.astype(lx, dt.float64)

    work()  # first use: kernels load, blocks get allocated
    syncs, mallocs = rt.synchronizing_calls, rt.calls["hipMalloc"]
    for _ in range(5):
        work()
    assert rt.synchronizing_calls == syncs, "an asynchronous op waited for the device"
    assert rt.calls["hipMalloc"] == mallocs, "freed blocks were not reused"
    assert rt.calls["hipStreamSynchronize"] == 0


def test_contiguous_fast_path_packs_operands_and_flags(fake):
    rt, dev = fake
    x, lx = _upload(dev, np.arange(1000, dtype=np.float32))
    y, _ = _upload(dev, np.ones(1003, dtype=np.float32))
    ly = Layout((1000,), (1,), 3)  # contiguous with an offset
    out = x.binary(BinaryOp.ADD, lx, y, ly)
    v = structs.EW_ARGS.struct.unpack(bytes(structs.EW_ARGS.buffer))
    n, ndim, flags = v[:3]
    assert (n, ndim) == (1000, 1)
    assert flags & structs.CONTIGUOUS and flags & structs.INDEX32
    ops = 3 + structs.MAX_DIMS
    per = 2 + structs.MAX_DIMS
    assert v[ops:ops + 2] == (out.ptr, 0)
    assert v[ops + per:ops + per + 2] == (x.ptr, 0)
    assert v[ops + 2 * per:ops + 2 * per + 2] == (y.ptr, 3)
    name, grid, block = rt.launches[-1]
    assert name == b"binary_flat_add_float32" and grid >= 1 and block == ew_launch.EW_CONTIG_BLOCK


def test_allocator_hit_is_a_pop_of_the_same_block(fake):
    _, dev = fake
    alloc = dev.allocator
    p, size = alloc.allocate(1000)
    alloc.release(p, size)
    assert alloc.allocate(900) == (p, size)


def test_launches_go_through_hip_python_when_no_runtime_library_is_loaded(fake):
    _, dev = fake
    assert dev.launcher.raw is None  # the fake has no libamdhip64 to open


def test_every_write_into_existing_memory_bumps_its_version(fake):
    """rocm_backend.families.pad_fixup_cache trusts what it learnt of a buffer only at the version it
    learnt it: each in-place primitive and each transfer into a slice must bump it, and
    memory shared through DLPack is never trusted."""
    rt, dev = fake
    w, lw = _upload(dev, np.arange(16, dtype=np.float32))
    src, ls = _upload(dev, np.ones(4, dtype=np.float32))
    idx, li = _upload(dev, np.array([0, 2, 4, 6], dtype=np.int64))
    part = Layout((4,), (1,), 0)
    writes = {
        "assign": lambda: w.assign(part, src, ls),
        "fill": lambda: w.fill(lw, 2.0),
        "scatter": lambda: w.scatter(lw, idx, li, src, ls, 0),
        "scatter_add": lambda: w.scatter_add(lw, idx, li, src, ls, 0),
        "index_add": lambda: w.index_add(lw, idx, li, src, ls, 0),
        "memset": lambda: w.buffer.memset(0),
        "copy_from_host": lambda: w.buffer.copy_from_host(np.zeros(16, np.float32)),
        "copy_from_device": lambda: w.buffer.copy_from_device(src.buffer, 16),
    }
    for name, write in writes.items():
        before = w.buffer.version
        write()
        assert w.buffer.version > before, f"{name} left the version unchanged"
    w.dlpack_view(lw)
    assert pad_fixup_cache.probe_of(w.buffer) == "external" and not pad_fixup_cache.known_finite(w)


_EDGE_FLOATS = [0.0, -0.0, 1.5, -2.75, float("inf"), float("-inf"), float("nan"), 3.4028235e38, 3.4028236e38,
                3.4028235677973366e38, 1e39, -1e300, 5e-324, 1e-45, 7e-46, 0.1, 1 / 3]
_EDGE_INTS = [0, 1, -1, 127, 128, 255, 256, -128, -129, 2**31 - 1, 2**31, -2**31 - 1, 2**32, 2**63 - 1,
              2**63, 2**64 - 1, -2**63, 2**24, -2**24, 2**24 + 1, -2**24 - 1]


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64, dt.complex64, dt.complex128, dt.int8, dt.int16, dt.int32,
                                   dt.int64, dt.uint8, dt.uint16, dt.uint32, dt.uint64], ids=lambda d: d.name)
def test_scalar_bits_equal_numpys_conversion(dtype):
    """The struct fast path of scalar packing gives NumPy's bits (the definition) for every
    Python float and int, out-of-range ones included (they take NumPy's path); a float or a
    small int into a complex type is its real part (an fft's norm factor, x * 2)."""
    rng = np.random.default_rng(0)
    values = _EDGE_FLOATS + _EDGE_INTS + [float(v) for v in rng.standard_normal(200) * 10.0 ** rng.integers(-300, 300, 200)]
    for value in values:
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                want = np.asarray(value).astype(dtype.numpy).tobytes().ljust(16, b"\0")
            except OverflowError:
                with pytest.raises(OverflowError):
                    ew_launch.scalar_bytes(value, dtype)
                continue
        assert ew_launch.scalar_bytes(value, dtype) == want, (value, dtype)


def test_planned_strided_launches_pack_what_the_general_path_packs(fake):
    """launch_ew keeps a plan per layout; each launch from a plan packs exactly the values
    ew_values gives for its pointers, offsets and scalar, and the grid of the general path."""
    rt, dev = fake
    key = ("binary", BinaryOp.ADD, dt.float32)
    cases = [  # shape, operands (pointer, offset, strides), scalar
        ((4, 4), [(0x1000, 0, (4, 1)), (0x2000, 3, (1, 4)), (0x3000, 5, (0, 1))], b""),
        ((4, 4), [(0x1100, 0, (4, 1)), (0x2100, 7, (1, 4)), (0x3100, 1, (0, 1))], b""),  # same layout again
        ((3, 5, 2), [(0x1000, 0, (10, 2, 1)), (0, 0, ()), (0x2000, 2, (0, 2, 1))], b"\x01" * 16),
        ((3, 5, 2), [(0x1200, 0, (10, 2, 1)), (0, 0, ()), (0x2200, 9, (0, 2, 1))], b"\x02" * 16),
        ((2, 1, 3), [(0x1000, 0, (3, 3, 1)), (0x2000, 0, (3, 3, 1)), (0x3000, 4, (3, 3, 1))], b""),
    ]
    for shape, operands, scalar in cases:
        before = len(rt.launches)
        ew_launch.launch_ew(dev, key, shape, operands, scalar)
        assert bytes(structs.EW_ARGS.buffer) == structs.EW_ARGS.struct.pack(*ew_values(shape, operands, scalar))
        _, grid, _ = rt.launches[before]
        assert grid == ew_launch.grid_for(int(np.prod(shape)), 256, dev)
    assert sum(key[0] == "ew" for key in dev.launches) == 3
    # more than 8 dimensions that do not merge: the general path splits them (no plan used)
    shape = (2,) * 10
    strides = tuple(2 ** (2 * i + 1) for i in range(10))[::-1]
    operands = [(0x1000, 0, strides), (0x2000, 0, strides), (0x3000, 0, strides)]
    before = len(rt.launches)
    ew_launch.launch_ew(dev, key, shape, operands)
    pieces = list(split_dims(shape, operands))
    assert len(rt.launches) - before == len(pieces) == 4
    assert bytes(structs.EW_ARGS.buffer) == structs.EW_ARGS.struct.pack(*ew_values(*pieces[-1]))
    ew_launch.launch_ew(dev, key, (0, 4), [(0x1000, 0, (4, 1)), (0x2000, 0, (4, 1)), (0x3000, 0, (4, 1))])
    assert len(rt.launches) - before == 4  # an empty shape launches nothing


def test_launches_with_their_own_grid_are_planned_too(fake):
    """A launch whose grid its caller gives (``blocks``: the scans) is planned per layout and
    grid like the others: the same struct and grid as the general path's, one plan for a
    repeated layout, another for another grid."""
    rt, dev = fake
    key = ("scan_tiles", ScanOp.SUM, dt.int64)
    operands = [(0x1000, 0, (1,)), (0x2000, 0, (3,)), (0x3000, 0, (1,))]
    scalar = b"\x05" * 32
    for blocks, want in ((lambda n: (n, 7, 1), 3), (lambda n: (n, 7, 1), 3), (lambda n: 9, 9)):  # grid x
        before = len(rt.launches)
        ew_launch.launch_ew(dev, key, (3,), operands, scalar, blocks=blocks)
        assert bytes(structs.EW_ARGS.buffer) == structs.EW_ARGS.struct.pack(*ew_values((3,), operands, scalar))
        _, grid, _ = rt.launches[before]
        assert grid == want
        operands = [(ptr + 0x40, offset, strides) for ptr, offset, strides in operands]
    assert sum(k[0] == "ew" and k[1] == key for k in dev.launches) == 2


@pytest.mark.parametrize("axes", [(1,), (0,)], ids=["rows", "cols"])
def test_planned_reductions_fill_in_their_pointers(fake, axes):
    """A reduction's plan is made once per layout; a launch from it packs the same struct as
    a fresh plan would, with its own input and output pointers."""
    _, dev = fake
    x1, _ = _upload(dev, np.arange(64, dtype=np.float32))
    x2, _ = _upload(dev, np.ones(64, dtype=np.float32))
    layout = Layout.contiguous((8, 8))

    def packed(x):
        out = x.reduce(ReduceOp.SUM, layout, axes)
        raw = bytes(structs.REDUCE_ARGS.buffer)
        ptr = {name: int.from_bytes(raw[structs.REDUCE_ARGS.offsets[name]:][:8], "little") for name in ("in", "out")}
        return out, ptr, raw

    x1.reduce(ReduceOp.SUM, layout, axes)
    plans = [key for key in dev.launches if key[0] == "reduce"]
    assert len(plans) == 1
    out2, planned, planned_raw = packed(x2)
    del dev.launches[plans[0]]
    out3, fresh, fresh_raw = packed(x2)
    assert (planned["in"], planned["out"], fresh["in"], fresh["out"]) == (x2.ptr, out2.ptr, x2.ptr, out3.ptr)
    at = structs.REDUCE_ARGS.offsets["out"]
    assert planned_raw[:at] == fresh_raw[:at] and planned_raw[at + 8:] == fresh_raw[at + 8:]


def test_one_strided_axis_packs_its_fields_alone(fake):
    """An in-place update over one strided axis (x[::2] += 1) packs n, ndim 1, the extent
    and each operand's pointer, offset and first stride (EW_ARGS.packer's "field[:1]"),
    every other field zero, the scalar in its slot; the launch is queued once."""
    rt, dev = fake
    x, _ = _upload(dev, np.arange(20, dtype=np.float32))
    stepped = Layout((10,), (2,), 0)
    launches = len(rt.launches)
    x.binary_scalar_into(BinaryOp.ADD, stepped, x, stepped, 1.0, False)
    assert len(rt.launches) == launches + 1
    v = structs.EW_ARGS.struct.unpack(bytes(structs.EW_ARGS.buffer))
    assert v[:3] == (10, 1, structs.INDEX32)
    assert v[3:3 + structs.MAX_DIMS] == (10,) + (0,) * (structs.MAX_DIMS - 1)
    ops, per = 3 + structs.MAX_DIMS, 2 + structs.MAX_DIMS
    zeros = (0,) * (structs.MAX_DIMS - 1)
    for k, (ptr, stride) in enumerate([(x.ptr, 2), (x.ptr, 2), (0, 0), (0, 0)]):
        assert v[ops + k * per:ops + (k + 1) * per] == (ptr, 0, stride) + zeros
    assert v[-1] == bytes(16) + np.float32(1.0).tobytes().ljust(16, b"\0")
    with pytest.raises(KeyError):
        structs.EW_ARGS.packer(["shape[:9]"])


def test_one_strided_axis_grid(fake):
    """launch_strided_1d sizes its grid inline (x[::2] += 1's host path): a block a block's
    worth of elements, up to 64 blocks a multiprocessor (ew_launch says why)."""
    rt, dev = fake
    kern = ew_kernel(dev, "binary", BinaryOp.ADD, dt.float32)[0]
    cap = dev.multiprocessors * 64
    for n, want in ((1, 1), (255, 1), (257, 2), (cap * kern.block - 1, cap), (cap * kern.block * 3, cap)):
        ew_launch.launch_strided_1d(dev, kern, n, [(0x1000, 0, 2), (0x1000, 0, 2), (0, 0, 0)])
        _, grid, block = rt.launches[-1]
        assert (grid, block) == (want, kern.block), n
