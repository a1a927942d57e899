"""The DataFrame-method tests of tests/spark where Spark Connect behaves differently, collected again
here with a Connect ``spark`` fixture: the method on Connect's DataFrame class and its Arrow job
(test_dataframe_engine), and how the job's failures reach the caller (test_dataframe_errors:
Connect raises its own exception types). The public cases and the weights use the same job and
stay classic only."""

from ..spark.test_dataframe_engine import *  # noqa: F401,F403
from ..spark.test_dataframe_errors import *  # noqa: F401,F403
