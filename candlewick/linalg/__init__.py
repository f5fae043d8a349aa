"""``candlewick.linalg``: the Array API linear-algebra extension.

The decompositions (cholesky, qr, svd, eigh, eig, solve, inv, det, slogdet and what is
built on them) run on the optional "linalg" primitives: on a device that does not
declare that capability they raise ``UnsupportedOperation``. Everything else is
composed from core primitives and runs everywhere.
"""

from ..matrix_products import matmul, matrix_transpose, tensordot, vecdot
from ._common import EigResult, EighResult, QRResult, SlogdetResult, SVDResult
from .decompositions import cholesky, qr, svd, svdvals
from .eigen import eig, eigh, eigvals, eigvalsh
from .linear_systems import det, inv, slogdet, solve
from .derived import matrix_norm, matrix_power, matrix_rank, pinv, vector_norm
from .products import cross, diagonal, outer, trace

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
    "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
    "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult",
]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
