"""The SQL tests of tests/spark, collected again here with a Connect ``spark`` fixture."""

from ..spark.test_sql_cases import *  # noqa: F401,F403
from ..spark.test_sql_engine import *  # noqa: F401,F403
from ..spark.test_sql_errors import *  # noqa: F401,F403
from ..spark.test_sql_functions import *  # noqa: F401,F403
from ..spark.test_sql_scripts import *  # noqa: F401,F403
