"""[runtime] The runtime layer: the caching allocator and a captured graph's pool, graph
capture, host reads through pinned memory, index checks, the one launcher, peer copies and
RCCL communicators (the device buffer and its typed view: ``storage_slice.py``). Imports
only the bindings layer (and the front end's error types)."""
