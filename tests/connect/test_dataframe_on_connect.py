"""The DataFrame-method tests of tests/spark, collected again here with a Connect ``spark`` fixture."""

from ..spark.test_dataframe_cases import *  # noqa: F401,F403
from ..spark.test_dataframe_engine import *  # noqa: F401,F403
from ..spark.test_dataframe_errors import *  # noqa: F401,F403
from ..spark.test_dataframe_weights import *  # noqa: F401,F403
