"""A local SparkSession that just works, and Delta detection."""

from __future__ import annotations

import glob
import os
import sys
from typing import Any, Dict, Optional

__all__ = ["local_session", "has_delta_spark", "delta_jars"]

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
}

_DELTA_CONF = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
}


def delta_jars() -> list:
    """delta-spark jars found next to Spark's own (pyspark/jars or $SPARK_HOME/jars)."""
    import pyspark

    dirs = [os.path.join(os.path.dirname(pyspark.__file__), "jars")]
    if os.environ.get("SPARK_HOME"):
        dirs.append(os.path.join(os.environ["SPARK_HOME"], "jars"))
    found = []
    for d in dirs:
        found += glob.glob(os.path.join(d, "delta-spark_*.jar")) + glob.glob(os.path.join(d, "delta-storage-*.jar"))
    return found


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
        Start a local Spark Connect server and return a Connect session
        (needs the ``pyspark[connect]`` extras).
    with_delta:
        Configure Delta Lake's SQL extension and catalog. ``None`` (default)
        does so when delta-spark jars are on Spark's classpath; without them
        spark-assign uses its embedded Delta engine (delta-rs).
    quiet:
        Keep Spark's console logging at ERROR.
    conf:
        More Spark settings, e.g. ``**{"spark.sql.shuffle.partitions": "8"}``.
    """
    from pyspark.sql import SparkSession

    # Python workers must run this interpreter, or they may lack pyarrow and spark-assign.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = dict(LOCAL_DEFAULTS)
    if with_delta is None:
        with_delta = bool(delta_jars())
    if with_delta:
        settings.update(_DELTA_CONF)
    settings.update({k: str(v) for k, v in conf.items()})
    builder = SparkSession.builder.appName(app_name)
    builder = builder.remote(master) if remote else builder.master(master)
    for key, value in settings.items():
        if remote and key.startswith("spark.driver."):
            continue
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if quiet and not remote:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def has_delta_spark(spark) -> bool:
    """Whether this session can use delta-spark (the ``io.delta`` JVM classes are loaded)."""
    try:
        return spark.conf.get("spark.sql.extensions", "").find("io.delta") >= 0 and _delta_class_loadable(spark)
    except Exception:  # noqa: BLE001 - a Connect session without the config
        return False


def _delta_class_loadable(spark) -> bool:
    try:
        jvm = spark.sparkContext._jvm
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext: trust the configured extension
        return True
    try:
        jvm.java.lang.Class.forName("io.delta.tables.DeltaTable")
        return True
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        return False
