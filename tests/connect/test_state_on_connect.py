"""The AssignmentTable tests of tests/state where Spark Connect behaves differently, collected again
here with a Connect ``spark`` fixture: both compute paths (driver and Spark), bad input, reads and
time travel (test_table). Retention and weights run the same table code over the same reads and
stay classic only."""

from ..state.test_table import *  # noqa: F401,F403
