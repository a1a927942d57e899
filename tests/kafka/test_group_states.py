"""``kafka-consumer-groups --describe --state``, read back as ``printStates`` writes it."""

from __future__ import annotations

import pytest

from spark_assign.errors import ToolOutputError
from spark_assign.kafka.groups import group_strategies, read_group_states

COORDINATOR = "broker-1.example.com:9092  (1)"


def states_output(groups, coordinator=COORDINATOR):
    """``printStates``: per group a blank line, a header and the group's line; the GROUP column is
    padded to the coordinator's width, the strategy printed as is (empty for an empty group)."""
    width = max(25, len(coordinator))
    out = ""
    for group, strategy, state, members in groups:
        out += "\n%-*s %-25s %-20s %-15s %s" % (width, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE",
                                               "#MEMBERS")
        out += "\n%-*s %-25s %-20s %-15s %s\n" % (width, group, coordinator, strategy, state, members)
    return out


GROUPS = [("orders-app", "range", "Stable", 3), ("a group with spaces", "", "Empty", 0),
          ("注文-" + "x" * 60, "cooperative-sticky", "PreparingRebalance", 12), ("kip848", "uniform", "Stable", 2)]


def test_every_group_is_read_whatever_its_id_and_state():
    states = read_group_states(states_output(GROUPS), "state.txt")
    assert [(s.group_id, s.strategy, s.state, s.members) for s in states] == \
        [(g, s or None, st, n) for g, s, st, n in GROUPS]
    assert states[0].coordinator == COORDINATOR
    assert group_strategies(states) == {"orders-app": "range", "注文-" + "x" * 60: "cooperative-sticky",
                                        "kip848": "uniform"}


def test_the_tools_notes_between_groups_are_skipped():
    text = "\nConsumer group 'a group with spaces' has no active members.\n" + states_output(GROUPS[:2])
    assert len(read_group_states(text, "state.txt")) == 2


@pytest.mark.parametrize("text,line,says", [
    ("\nGROUP  CONSUMER-ID  HOST  CLIENT-ID  #PARTITIONS\ng c h c 1\n", 2, "give --state"),
    (states_output(GROUPS[:1]).rstrip()[:-4] + "\n", 3, "not understood"),
    ("orders-app  broker:9092  (1)  range  Stable  3\n", 1, "not understood"),
    ("", 1, "no 'GROUP  COORDINATOR \\(ID\\) ...' header"),
])
def test_other_text_is_refused_at_its_line(text, line, says):
    with pytest.raises(ToolOutputError, match=says) as raised:
        read_group_states(text, "state.txt")
    assert raised.value.line == line
