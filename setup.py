"""The one compiled part of candlewick: the optional C module candlewick._native
(candlewick/_native*.c: unstack's row views, the element-wise functions' and the in-place
operators' common cases, the cpu sort's rows, made in C). Everything else is in
pyproject.toml. Where no C compiler is found the build goes on without it and those paths
run in Python (candlewick/_core.py, bind_native)."""

from setuptools import Extension, setup

NATIVE = Extension(
    "candlewick._native",
    ["candlewick/_native.c", "candlewick/_native_binding.c", "candlewick/_native_rows.c", "candlewick/_native_elementwise.c",
     "candlewick/_native_elementwise_run.c", "candlewick/_native_reduction.c",
     "candlewick/_native_broadcast.c",
     "candlewick/_native_inplace.c", "candlewick/_native_inplace_run.c",
     "candlewick/_native_ufunc.c", "candlewick/_native_ufunc_run.c",
     "candlewick/_native_ufunc_table.c",
     "candlewick/_native_ufunc_new.c", "candlewick/_native_ufunc_new_run.c",
     "candlewick/_native_buffer_views.c",
     "candlewick/_native_flat_view.c", "candlewick/_native_write_guard.c",
     "candlewick/_native_guard.c",
     "candlewick/_native_slice.c", "candlewick/_native_slice_layout.c", "candlewick/_native_element_store.c",
     "candlewick/_native_override.c",
     "candlewick/_native_launch.c", "candlewick/_native_launcher.c", "candlewick/_native_contiguous.c",
     "candlewick/_native_blocks.c",
     "candlewick/_native_complex.c", "candlewick/_native_transpose.c", "candlewick/_native_arg_rows.c", "candlewick/_native_assign.c", "candlewick/_native_element_put.c",
     "candlewick/_native_sort.c",
     "candlewick/_native_sort_runs.c", "candlewick/_native_sort_partition.c", "candlewick/_native_sort_finish.c",
     "candlewick/_native_temporary.c", "candlewick/_native_lazy_block.c",
     "candlewick/_native_lazy_start.c", "candlewick/_native_lazy_key.c", "candlewick/_native_lazy_memo.c",
     "candlewick/_native_lazy_operand.c", "candlewick/_native_lazy_mode.c",
     "candlewick/_native_lazy_globals.c", "candlewick/_native_lazy_kept.c",
     "candlewick/_native_lazy_call.c", "candlewick/_native_lazy_sites.c"],
    depends=["candlewick/_native.h", "candlewick/_native_host.h", "candlewick/_native_index.h",
             "candlewick/_native_launch.h", "candlewick/_native_lazy.h", "candlewick/_native_lazy_block.h", "candlewick/_native_sort.h",
             "candlewick/_native_sort_put.h"],
    optional=True,
)

if __name__ == "__main__":  # (setuptools runs it so; tools/build_native.py reads NATIVE alone)
    setup(ext_modules=[NATIVE])
