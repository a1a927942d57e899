"""The two implementations of :class:`spark_assign.state.backend.StateBackend`:
:mod:`.embedded` (delta-rs commits from the driver) and :mod:`.deltaspark` (delta-spark), with
what they share: :mod:`.files` (a local table's files), :mod:`.damage` (a damaged table, said
plainly) and :mod:`.deltajvm` (Delta's JVM classes called from the driver).
"""
