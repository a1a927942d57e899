"""The AssignmentTable tests of tests/state, collected again here with a Connect ``spark`` fixture:
both compute paths (driver and Spark), bad input, reads and time travel on Spark Connect."""

from ..state.test_retention import *  # noqa: F401,F403
from ..state.test_table import *  # noqa: F401,F403
from ..state.test_weights import *  # noqa: F401,F403
