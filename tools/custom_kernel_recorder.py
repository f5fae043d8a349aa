"""A pytest plugin that records the custom kernels a test run makes, for
tools/amd_compile_gate.py: every ``ElementwiseKernel``/``ReductionKernel`` definition
a call binds (the ``KernelDefinition`` a compiling device would be given: it depends on
the dtypes and parameter roles only, so a run on cpu gives the ones rocm compiles) and
every ``RawKernel`` made. Kernels made inside a test marked ``not_compiled`` (refused on
purpose: outside the C subset, or not valid C++) are left out."""

from __future__ import annotations

import contextlib

import pytest

from candlewick.custom_kernels import elementwise_kernel, raw_kernel, reduction_kernel


class KernelRecorder:
    """Use as ``pytest.main(args, plugins=[KernelRecorder()])``; afterwards
    ``definitions`` holds the ``KernelDefinition``s and ``raw`` the (name, code,
    options) of the RawKernels, each once."""

    def __init__(self) -> None:
        self.definitions: dict = {}
        self.raw: dict = {}
        self._skip = False
        self._undo = contextlib.ExitStack()

    def pytest_configure(self, config):
        # the classes are patched before collection: kernels made at a test module's import count
        self._wrap(elementwise_kernel.ElementwiseKernel, "_definition")
        self._wrap(reduction_kernel.ReductionKernel, "_definition")
        self._wrap_raw()

    def pytest_unconfigure(self, config):
        self._undo.close()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        self._skip = item.get_closest_marker("not_compiled") is not None
        try:
            yield
        finally:
            self._skip = False

    def _wrap(self, cls, attr):
        original = getattr(cls, attr)
        recorder = self

        def recorded(kernel, *args, **kwargs):
            defn = original(kernel, *args, **kwargs)
            if not recorder._skip:
                recorder.definitions.setdefault(defn, None)
            return defn

        setattr(cls, attr, recorded)
        self._undo.callback(setattr, cls, attr, original)

    def _wrap_raw(self):
        cls = raw_kernel.RawKernel
        original = cls.__init__
        recorder = self

        def init(kernel, *args, **kwargs):
            original(kernel, *args, **kwargs)
            if not recorder._skip:
                recorder.raw.setdefault((kernel.name, kernel.code, kernel.options), None)

        cls.__init__ = init  # type: ignore[method-assign]
        self._undo.callback(setattr, cls, "__init__", original)
