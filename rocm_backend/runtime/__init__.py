"""The runtime layer: a device's properties, stream, allocator and buffers, kernel
compilation with its code-object cache, loaded kernels, and the one launcher. Imports
only the bindings layer (and the front end's error types)."""
