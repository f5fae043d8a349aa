"""[codegen] Generated HIP source: each kernel module's source (``sources.py``: the shared
prelude plus the op table's entry points) and the kernels of a ``candlewick.fuse`` graph
(``fused_source.py`` and the schedules and expressions it plans with)."""
