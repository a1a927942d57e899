"""PySpark's Python worker daemon, quiet when Spark hangs up before a task arrives.

Spark starts ``python -m pyspark.daemon`` (``spark.python.daemon.module``) to fork
Python workers. A forked worker first reads a secret from the JVM's new connection;
when the JVM closes that connection first (a session stopping while it asks for a
worker, an executor going away), PySpark's daemon prints the ``EOFError``'s (or, for a
reset connection, the ``ConnectionResetError``'s) traceback to the console: a stack on the user's terminal for what is an orderly
goodbye. :func:`~spark_assign.spark.session.local_session` names this module
instead. It runs PySpark's daemon unchanged, except that a worker whose
connection ends before its first task exits quietly (code 1, as PySpark's own
exit on a failed handshake). Errors inside a task are PySpark's worker's to
report (it sends them to the JVM), and pass through untouched. It also imports
the modules spark-assign's tasks run before forking (:func:`preload`).

Executors need spark-assign installed to find this module, as they do for
spark-assign's own functions.
"""

from __future__ import annotations

import importlib

import pyspark.daemon as _daemon

__all__ = ["worker", "preload", "TASK_MODULES"]

_pyspark_worker = _daemon.worker


def worker(sock, authenticated):
    """PySpark's ``daemon.worker``, ending quietly when the JVM closes or resets the connection
    before the handshake's secret or the first task arrives."""
    try:
        return _pyspark_worker(sock, authenticated)
    except (EOFError, ConnectionError):          # closed, or reset (ECONNRESET), or a broken pipe
        return 1


# The daemon's fork loop calls the module-level name ``worker``.
_daemon.worker = worker

#: The modules spark-assign's Spark tasks run, imported by the daemon before it forks: every
#: worker it forks starts with them loaded (copy-on-write), instead of importing them on its
#: first task (0.12 s for the consumer worker alone: docs/performance.md). A task loads what
#: it runs either way (tests/spark/test_worker_imports.py); this only moves the cost to once
#: per executor.
TASK_MODULES = ("spark_assign.spark.consumer.worker", "spark_assign.spark.consumer.sql_functions",
                "spark_assign.spark.replicas.worker", "spark_assign.spark.replicas.sql_functions",
                "spark_assign.spark.producer.dataframe", "spark_assign.spark.producer.sql_functions")


def preload() -> None:
    """Import :data:`TASK_MODULES` (in the daemon, before its fork loop)."""
    for name in TASK_MODULES:
        importlib.import_module(name)


if __name__ == "__main__":
    preload()
    _daemon.manager()
