"""``candlewick.nn``: Candle's neural-network ops on candlewick arrays.

Convolutions, pooling and upsampling call the backend's nn primitives; softmax,
normalizations and embedding are composed from the Array API namespace.
"""

from .activations import erf, gelu, log_softmax, relu, sigmoid, silu, softmax
from .convolution import conv1d, conv2d, conv_transpose1d, conv_transpose2d
from .embeddings import embedding
from .normalization import layer_norm, rms_norm
from .pooling import avg_pool2d, max_pool2d, upsample_nearest2d

__all__ = [
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool2d", "max_pool2d",
    "upsample_nearest2d", "relu", "gelu", "sigmoid", "silu", "erf", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "embedding",
]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
