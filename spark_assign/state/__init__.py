"""Generations in Delta: :class:`AssignmentTable` (consumer groups) and :class:`ReplicaTable` (replica
placements), on one generation loop (:mod:`.generations`) and one backend contract (:mod:`.backend`),
and the SQL bridge (:mod:`.sql`)."""

from __future__ import annotations

from .backend import ENGINES, Snapshot, Staged, StateBackend
from .generations import Rebalance, TableState
from .replica_table import ReplicaTable
from .table import AssignmentTable

__all__ = ["AssignmentTable", "ReplicaTable", "Rebalance", "TableState", "StateBackend", "Snapshot", "Staged",
           "ENGINES"]
