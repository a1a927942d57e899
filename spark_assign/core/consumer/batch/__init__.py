"""Many consumer groups in lock step (one NumPy pass per stage), as a Spark task runs them.

:func:`assign_batch` gives, group by group, what :func:`spark_assign.core.assign` gives.
"""

from .api import BatchResult, GroupBatch, assign_batch

__all__ = ["BatchResult", "GroupBatch", "assign_batch"]
