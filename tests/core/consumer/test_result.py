"""The Kafka-shaped views of a result: ``assignment`` (a read-only mapping whose lists are built
as they are read) equals the plain dict of the columns, for small groups (every list built at the
first read) and large ones (one member's list at a time)."""

import numpy as np
import pytest

from spark_assign.core import Member, assign
from spark_assign.core.consumer.result import MemberAssignment


def plain(result):
    """``{member: [(topic, partition), ...]}`` from the columns, in each member's order."""
    names, ids = result.group.topic_names, result.group.member_ids
    rows = sorted((int(result.order[pid]), ids[o], names[t], int(p)) for pid, (o, t, p) in
                  enumerate(zip(result.owner.tolist(), result.topic.tolist(), result.partition.tolist())) if o >= 0)
    out = {m: [] for m in ids}
    for _, m, t, p in rows:
        out[m].append((t, p))
    return out


@pytest.mark.parametrize("partitions", [7, MemberAssignment.EAGER + 5])
@pytest.mark.parametrize("first_read", ["get", "contains", "missing", "iterate"])
def test_the_mapping_is_the_columns_whichever_read_comes_first(partitions, first_read):
    topics = {"订单": partitions // 2, "payments": partitions - partitions // 2}
    members = [Member(f"consumer-{i}-ü", topics=list(topics)) for i in range(5)] + [Member("idle", topics=["gone"])]
    result = assign(members, topics, "roundrobin")
    view = result.assignment
    if first_read == "get":
        assert view["consumer-3-ü"] == plain(result)["consumer-3-ü"]
    elif first_read == "contains":
        assert "idle" in view and "nobody" not in view
    elif first_read == "missing":
        with pytest.raises(KeyError):
            view["nobody"]
    else:
        assert list(view) == [m.member_id for m in members]
    assert dict(view) == plain(result) and view == plain(result) and len(view) == 6
    assert view["idle"] == [] and "nobody" not in view
    with pytest.raises(KeyError):
        view["nobody"]
    assert np.array_equal(view["consumer-0-ü"].partitions, [p for _, p in plain(result)["consumer-0-ü"]])


def test_partitions_withheld_by_a_cooperative_rebalance_are_in_no_list():
    members = [Member("a", topics=["t"], owned=[("t", p) for p in range(6)], generation=1), Member("b", topics=["t"])]
    result = assign(members, {"t": 6}, "cooperative-sticky")
    assert (result.owner < 0).sum() == 3 and dict(result.assignment) == plain(result)
    assert result.assignment["b"] == [] and len(result.assignment["a"]) == 3
