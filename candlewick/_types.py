"""The type aliases of candlewick's public annotations.

Modules import these under ``if TYPE_CHECKING:`` (with ``from __future__ import
annotations``), so annotations cost nothing at run time and add no import edges.
"""

from __future__ import annotations

from typing import Union

from .backend import BackendDevice
from .dtypes import DType

#: a device as the namespace accepts it: ``"cpu"``, ``"rocm:1"`` or a device object
DeviceLike = Union[str, BackendDevice]
#: a dtype as the namespace accepts it: a candlewick dtype (a NumPy dtype or name converts)
DTypeLike = Union[DType, str]
#: a Python scalar operand (bool and int are accepted wherever complex is)
Scalar = Union[bool, int, float, complex]
#: one axis or several
Axes = Union[int, tuple[int, ...]]
#: a shape: one length or a tuple of lengths
ShapeLike = Union[int, tuple[int, ...]]
