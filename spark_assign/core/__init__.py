"""The assignment engine: Kafka's partition assignment strategies, one group at a time.

Pure Python and NumPy; no Spark needed::

    from spark_assign.core import Member, assign

    result = assign(
        members=[Member("c1", topics=["t0", "t1"], owned=[("t0", 0)], generation=3),
                 Member("c2", topics=["t0"], instance_id="static-2", rack="r1")],
        topics={"t0": 3, "t1": 3},
        strategy="cooperative-sticky",
    )
    result.assignment   # {member_id: [(topic, partition), ...]}
    result.revoked      # {member_id: [(topic, partition), ...]}
"""

from .api import assign, assign_group
from .checks import balance_violations, check_assignment, is_balanced, moves, validity_errors
from .model import Group, GroupInput, Member, check_topics
from .registry import Strategy, get_strategy, register_strategy, strategy_names
from .result import STATUS_NAMES, AssignmentResult

__all__ = [
    "Member",
    "GroupInput",
    "check_topics",
    "Group",
    "assign",
    "assign_group",
    "AssignmentResult",
    "STATUS_NAMES",
    "Strategy",
    "get_strategy",
    "register_strategy",
    "strategy_names",
    "validity_errors",
    "balance_violations",
    "is_balanced",
    "moves",
    "check_assignment",
]
