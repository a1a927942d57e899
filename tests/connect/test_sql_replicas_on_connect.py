"""tests/spark/test_sql_replicas.py, collected again with a Connect ``spark`` fixture.

One Connect module per Spark module: each has a module-scoped autouse fixture
named ``registered``, and star-importing two modules into one would keep only
the last one's.
"""

from ..spark.test_sql_replicas import *  # noqa: F401,F403
