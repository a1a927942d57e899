"""Bad settings of a simulation scenario, ``spark_assign.scenario.Scenario``: one case per bad input.

Each case asserts ``InvalidInputError``, that its ``column`` and message name
the setting, and that the message holds no stack (a scenario writes nothing).
The CLI's scenario files are in test_cli.py.
"""

from __future__ import annotations

import pytest

from spark_assign.errors import InvalidInputError
from spark_assign.scenario import Scenario

from .conftest import assert_clean

CASES = [
    pytest.param({"topics": {"orders": -3}}, "topics", "orders", id="topic-count-negative-names-the-topic"),
    pytest.param({"topics": {"orders": 2**31}}, "topics", "orders", id="topic-count-above-kafka-limit"),
    pytest.param({"topics": {"orders": 1.5}}, "topics", "orders", id="topic-count-float"),
    pytest.param({"topics": {"orders": True}}, "topics", "orders", id="topic-count-bool"),
    pytest.param({"topics": {"": 3}}, "topics", "topics", id="topic-name-empty"),
    pytest.param({"topics": {7: 3}}, "topics", "topics", id="topic-name-int"),
    pytest.param({"topics": 0}, "topics", "topics", id="topics-zero"),
    pytest.param({"topics": -2}, "topics", "topics", id="topics-negative"),
    pytest.param({"groups": 0}, "groups", "groups", id="groups-zero"),
    pytest.param({"generations": 0}, "generations", "generations", id="generations-zero"),
    pytest.param({"members": -1}, "members", "members", id="members-negative"),
    pytest.param({"partitions": "6"}, "partitions", "partitions", id="partitions-string"),
    pytest.param({"joins": 1.0}, "joins", "joins", id="joins-float"),
    pytest.param({"racks": True}, "racks", "racks", id="racks-bool"),
    pytest.param({"static_share": 1.5}, "static_share", "static_share", id="static-share-above-1"),
    pytest.param({"static_share": "half"}, "static_share", "static_share", id="static-share-string"),
    pytest.param({"subscription": "random"}, "subscription", "subscription", id="subscription-unknown"),
    pytest.param({"seed": -1}, "seed", "seed", id="seed-negative"),
]


@pytest.mark.parametrize("settings,column,named", CASES)
def test_bad_setting(settings, column, named):
    made = None
    with pytest.raises(InvalidInputError) as info:
        made = Scenario(**settings)
    assert made is None and info.value.column == column
    assert_clean(info.value, None)
    assert named in str(info.value)
