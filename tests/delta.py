"""Where the tests find delta-spark's JVM jars, and the session settings that load them.

The jars are not on PyPI and these machines do not reach Maven Central, so
the tests look in ``$SPARK_ASSIGN_DELTA_JARS`` or in ``../shared/delta-jars``
beside the checkout (CI has it). Without them the delta-spark tests skip with
:data:`MISSING`; everything else runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
ENV = "SPARK_ASSIGN_DELTA_JARS"
MISSING = (f"delta-spark jars not found: set {ENV} to a folder holding delta-spark_2.13 (4.4.x for "
           "pyspark 4.1) and its dependencies, or put them in ../shared/delta-jars")


def jars() -> List[str]:
    """The jars to load with ``spark.jars`` (empty when there are none)."""
    folder = Path(os.environ[ENV]) if os.environ.get(ENV) else ROOT.parent / "shared" / "delta-jars"
    found = sorted(str(p) for p in folder.glob("*.jar")) if folder.is_dir() else []
    return found if any("delta-spark" in Path(j).name for j in found) else []


#: The settings that turn Delta on in a session (with its jars loaded).
DELTA_SQL = {"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
             "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"}


def session_conf() -> Dict[str, str]:
    """Spark settings for a Delta-enabled session, as a user with local jars writes them
    (empty without jars)."""
    found = jars()
    if not found:
        return {}
    return {
        "spark.jars": ",".join(found),
        **DELTA_SQL,
        # Delta replays a table's log in this many tasks (default 50): few for small test tables.
        "spark.databricks.delta.snapshotPartitions": "2",
    }
