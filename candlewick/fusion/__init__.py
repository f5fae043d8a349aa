"""Fusion: ``candlewick.fuse`` traces a function written with the namespace into a graph
of primitive calls (``trace``, ``graph``) and runs it compiled by the device or replayed
(``api``, ``replay``); lazy mode (``lazy_mode``, ``lazy_storage``, ``lazy_consume``,
``lazy_run``) records eager calls into such graphs as they are made. docs/fusion.md describes both."""

from .api import FusedFunction, fuse
from .graph import Graph, Node
from .lazy_mode import lazy

__all__ = ["FusedFunction", "Graph", "Node", "fuse", "lazy"]
