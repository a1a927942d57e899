"""Generations in Delta: :class:`AssignmentTable` (consumer groups) and :class:`ReplicaTable` (replica
placements), on one generation loop (:mod:`.generations`) and one backend contract (:mod:`.backend`),
and the SQL bridge (:mod:`.sql`)."""

from __future__ import annotations

from .backend import ENGINES, Snapshot, Staged, StateBackend
from .generation_table import Rebalance, TableState
from .replicas.table import ReplicaTable
from .consumer.table import AssignmentTable

__all__ = ["AssignmentTable", "ReplicaTable", "Rebalance", "TableState", "StateBackend", "Snapshot", "Staged",
           "ENGINES"]
