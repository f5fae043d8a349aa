"""Fusion: ``candlewick.fuse`` traces a function written with the namespace into a graph
of primitive calls (``trace``, ``graph``) and runs it compiled by the device or replayed
(``api``, ``replay``). docs/fusion.md describes it."""

from .api import FusedFunction, fuse
from .graph import Graph, Node

__all__ = ["FusedFunction", "Graph", "Node", "fuse"]
