"""A local SparkSession that just works, and Delta detection."""

from __future__ import annotations

import glob
import logging
import os
import sys
from typing import Any, Dict, Optional

__all__ = ["local_session", "has_delta_spark", "delta_jars", "DELTA_JARS_ENV"]

#: A folder of delta-spark's jars and their dependencies, for :func:`local_session` to load
#: with ``spark.jars`` (for machines that cannot fetch them from Maven).
DELTA_JARS_ENV = "SPARK_ASSIGN_DELTA_JARS"

#: Session settings for a laptop-sized local session.
LOCAL_DEFAULTS: Dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "4g",
    "spark.ui.showConsoleProgress": "false",
    # Long loops (generations, retries) run many jobs: keep few plan descriptions in the driver.
    "spark.sql.ui.retainedExecutions": "50",
    # Errors raised by Python code (the table functions' analysis, UDFs) reach the user as their
    # message, without the Python traceback around it (ours name the column and rows).
    "spark.sql.execution.pyspark.udf.hideTraceback.enabled": "true",
}

#: The Python worker daemon of quiet sessions (see :mod:`spark_assign.spark.daemon`).
QUIET_DAEMON = "spark_assign.spark.daemon"

_DELTA_CONF = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    # Delta replays a table's log in this many tasks (50 by default, sized for clusters): on a
    # local session each task costs more than it replays, and a cold read of a state table
    # took twice as long (benchmarks/state_bench.py).
    "spark.databricks.delta.snapshotPartitions": "4",
}


def delta_jars() -> list:
    """delta-spark jars found next to Spark's own (pyspark/jars or $SPARK_HOME/jars), which
    every session loads."""
    import pyspark

    dirs = [os.path.join(os.path.dirname(pyspark.__file__), "jars")]
    if os.environ.get("SPARK_HOME"):
        dirs.append(os.path.join(os.environ["SPARK_HOME"], "jars"))
    found = []
    for d in dirs:
        found += glob.glob(os.path.join(d, "delta-spark_*.jar")) + glob.glob(os.path.join(d, "delta-storage-*.jar"))
    return found


def delta_jar_folder() -> list:
    """The jars in the folder named by ``$SPARK_ASSIGN_DELTA_JARS`` (empty unless it holds delta-spark)."""
    folder = os.environ.get(DELTA_JARS_ENV)
    found = sorted(glob.glob(os.path.join(folder, "*.jar"))) if folder else []
    return found if any(os.path.basename(j).startswith("delta-spark") for j in found) else []


def local_session(
    master: str = "local[2]",
    app_name: str = "spark-assign",
    remote: bool = False,
    with_delta: Optional[bool] = None,
    quiet: bool = True,
    **conf: Any,
):
    """Start (or get) a local SparkSession configured for spark-assign.

    Example::

        from spark_assign import local_session
        spark = local_session()                 # local[2], UI off, 4 shuffle partitions
        spark = local_session(remote=True)      # a local Spark Connect session

    Parameters
    ----------
    master:
        The local master, ``local[2]`` by default.
    app_name:
        The application name.
    remote:
        Start a local Spark Connect server in this process, on a free port, and return a
        Connect session connected to it (see :mod:`spark_assign.spark.connect`; one line on
        stderr names its address). Choose the port with
        ``**{"spark.connect.grpc.binding.port": "15010"}``.
    with_delta:
        Configure Delta Lake's SQL extension and catalog. ``None`` (default)
        does so when delta-spark jars are on Spark's classpath or in the
        folder named by ``$SPARK_ASSIGN_DELTA_JARS`` (loaded with
        ``spark.jars``); without them spark-assign uses its embedded Delta
        engine (delta-rs).
    quiet:
        Keep Spark's console logging at ERROR from the start (no start-up warnings), without
        the stacks of failed tasks (the action that ran the job raises the failure; see
        :data:`TASK_FAILURE_LOGGERS`). ``spark.sparkContext.setLogLevel("INFO")`` brings
        Spark's logs back. Python workers that Spark hangs up on before their first task exit
        without a traceback (:mod:`spark_assign.spark.daemon`).
    conf:
        More Spark settings, e.g. ``**{"spark.sql.shuffle.partitions": "8"}``.
    """
    from pyspark.sql import SparkSession

    # Python workers must run this interpreter, or they may lack pyarrow and spark-assign.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = dict(LOCAL_DEFAULTS)
    folder = delta_jar_folder()
    if with_delta is None:
        with_delta = bool(delta_jars() or folder)
    if with_delta:
        settings.update(_DELTA_CONF)
        if folder:
            settings["spark.jars"] = ",".join(folder)
    settings.update({k: str(v) for k, v in conf.items()})
    if quiet:
        settings[JAVA_OPTIONS] = _with_quiet_logging(settings.get(JAVA_OPTIONS, ""))
        # No traceback on the console when Spark hangs up on a Python worker before its first task.
        settings.setdefault("spark.python.daemon.module", QUIET_DAEMON)
        for name in QUERY_CONTEXT_LOGGERS:
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if remote:
        from .connect import start_local_connect

        return start_local_connect(master, {"spark.app.name": app_name, **settings},
                                   _quiet_jvm if quiet else lambda host: None)
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if quiet:
        _quiet_jvm(spark)
    return spark


def _quiet_jvm(spark) -> None:
    """ERROR level for the classic session ``spark`` (or a Connect server's host), and no
    stacks of failed tasks (see :data:`TASK_FAILURE_LOGGERS`)."""
    spark.sparkContext.setLogLevel("ERROR")
    _quiet_task_failures(spark)


#: The driver JVM's options, where :func:`local_session` names its logging configuration.
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
#: The log4j2 configuration of a quiet session (errors only), shipped with the package.
QUIET_LOGGING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2-quiet.properties")


def _with_quiet_logging(options: str) -> str:
    """``options`` plus the quiet logging configuration, unless they already name one. Set
    before the JVM starts, it also silences the start-up lines (host name, native libraries,
    Spark's default profile); once the JVM runs, only ``setLogLevel`` below applies."""
    if "log4j2.configurationFile" in options or "log4j.configurationFile" in options:
        return options
    return f'{options} "-Dlog4j2.configurationFile=file:{QUIET_LOGGING}"'.strip()


#: The loggers that print a failed task's JVM and Python stacks, and the listener bus on which
#: Spark's own ``Observation`` listener logs a failed observed query's failure again (it re-reads
#: the failed plan); the action that ran the job raises the failure anyway (input errors as
#: :class:`~spark_assign.errors.InvalidInputError`).
TASK_FAILURE_LOGGERS = ("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
                        "org.apache.spark.sql.util.ExecutionListenerBus")
#: PySpark's Python loggers that print a failed query's whole JVM stack (its query context) at
#: ERROR before the exception is raised; a quiet session lets them log CRITICAL only.
QUERY_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


def _quiet_task_failures(spark) -> None:
    """Turn :data:`TASK_FAILURE_LOGGERS` off in this (classic, local) session's JVM; a user who
    wants them sets their level back (``Configurator.setLevel(name, Level.INFO)``)."""
    jvm = spark.sparkContext._jvm
    level = jvm.org.apache.logging.log4j.Level.OFF
    for name in TASK_FAILURE_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, level)


def has_delta_spark(spark) -> bool:
    """Whether this session can use delta-spark (the ``io.delta`` JVM classes are loaded)."""
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    return "io.delta" in extensions and _delta_class_loadable(spark)


def _delta_class_loadable(spark) -> bool:
    """Whether the driver can load Delta's classes the way Spark loads a data source: through
    the thread's context class loader, which sees jars added with ``spark.jars`` and
    ``spark.jars.packages`` as well as the ``extraClassPath`` (``Class.forName`` through py4j
    uses the system class loader and sees only the last)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkNotImplementedError

    try:
        jvm = spark.sparkContext._jvm
    except PySparkNotImplementedError:      # Spark Connect has no SparkContext: trust the extension
        return True
    try:
        jvm.java.lang.Thread.currentThread().getContextClassLoader().loadClass("io.delta.tables.DeltaTable")
        return True
    except Py4JJavaError:                   # ClassNotFoundException
        return False
