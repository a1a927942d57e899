"""Generations in Delta: :class:`AssignmentTable`, its backends (:mod:`.backend`), and its SQL bridge (:mod:`.sql`)."""

from __future__ import annotations

from .backend import ENGINES, Snapshot, Staged, StateBackend
from .table import AssignmentTable, Rebalance, TableState

__all__ = ["AssignmentTable", "Rebalance", "TableState", "StateBackend", "Snapshot", "Staged", "ENGINES"]
