"""Replica placement generations in Delta: :class:`~.table.ReplicaTable` and how it computes the
next generation (:mod:`.compute`).
"""
