"""[families] irfft of an input its caller makes: the optional hooks
``irfft_scratch_factor`` (device) and ``irfft_scratch`` (storage) of
candlewick.backend.IrfftScratchDevice, over fft.py's transform.

C2R may overwrite its input, so eager irfft transforms a private copy of it, scaled by the
norm's factor as it is copied (fft.py). A caller that computes irfft's input anyway (lazy
mode's pending ``spectrum * response``) asks the device where that copy would be laid out
as the input itself and what factor it would carry (``scratch_factor``), writes the copy
with its own kernel, and gives the storage up to ``irfft_scratch``, which transforms it in
place: a launch, a pass over the spectrum and a buffer fewer. Both answers depend only on
(dtype, shape, axis, n), and lazy mode asks them at each such irfft, so each is worked out
once a shape (bounded caches, over the one check ``_scratch_steps``)."""

import functools

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .fft import KIND, STEPS_CACHE_SIZE, copy_layout_itself, norm_factor, run_plan, steps, transform

__all__ = ["irfft_scratch", "scratch_factor"]


def _scratch_steps(dtype_name, shape, axis, n):
    """fft.py's ``steps`` of irfft over a C-contiguous input of ``shape`` whose private copy
    would be laid out as that input itself (no padding, truncation or transposition), a
    transform that can run; else None."""
    kind = KIND.get(("irfft", dt.from_name(dtype_name)))
    if kind is None or type(n) is not int or type(axis) is not int or not 0 <= axis < len(shape):
        return None
    plan = steps(kind, shape, Layout.contiguous(shape).strides, axis, n)
    if plan.error is not None or plan.out_size == 0 or not copy_layout_itself(plan):
        return None
    return plan


def scratch_factor(dtype, shape, axis, n, norm=None):
    """The device's hook ``irfft_scratch_factor``: where irfft of a C-contiguous input of
    ``shape`` (dtype, ``axis``, ``n``, ``norm`` as the primitive takes them) would transform
    a private copy laid out as that input itself, the factor the copy would carry
    (``norm``'s; 1.0 unnormalized), so that a caller computing the input anyway makes the
    copy (``irfft_scratch``); else None."""
    # keyed on the dtype's name (its own hash runs Python code): lazy mode asks at each
    # irfft of a pending result
    return _scratch_factor(dtype.name, tuple(shape), axis, n, norm)


@functools.lru_cache(maxsize=STEPS_CACHE_SIZE, typed=True)  # (typed: n=True is no length)
def _scratch_factor(dtype_name, shape, axis, n, norm):
    return None if _scratch_steps(dtype_name, shape, axis, n) is None else norm_factor(norm, n, True)


def irfft_scratch(x, layout, axis, n):
    """The storage's hook ``irfft_scratch``: unnormalized irfft of x, which the caller gives
    up (made as ``scratch_factor`` said): C2R reads and may overwrite it in place."""
    shape = layout.shape
    known = (_scratch_plan(x.dtype.name, shape, axis, n)
             if layout.dense_size >= 0 and type(shape) is tuple else None)  # (whole and in order)
    if known is None:
        return transform(x, layout, axis, "irfft", n, scratch=True)
    # what transform would find (the plan reading x as it is, a result written in place): a
    # caller making irfft's input anyway runs this once a call (lazy mode's deferred product)
    out_dtype, out_size, key = known
    device = x.device
    out = device.storage_type.empty(device, out_dtype, out_size)
    run_plan(device, key, x.ptr, out.ptr)
    return out


@functools.lru_cache(maxsize=STEPS_CACHE_SIZE, typed=True)
def _scratch_plan(dtype_name, shape, axis, n):
    """(result dtype, result size, plan key) of irfft_scratch over a whole C-contiguous
    input of ``shape``, where ``transform`` would read it in place and write its result
    directly, with nothing to check at run time; else None (transform's own path)."""
    plan = _scratch_steps(dtype_name, shape, axis, n)
    if plan is None or not plan.direct:
        return None
    return plan.out_dtype, plan.out_size, plan.copy_key
