"""``kafka-consumer-groups --describe --members`` read back (spark_assign.kafka.groups), without Spark.

The texts are laid out by ConsumerGroupCommand's format strings, reproduced here: each column
padded to its widest value with Java's minimum widths (15, the instance id 17, the assignments
20), ``-`` for a missing value, a blank line before each group's header; the KIP-848 columns
(``CURRENT-EPOCH ...``) with ``topic:0,1;other:2``, and the earlier ``ASSIGNMENT`` column with
``topic(0,1), other(2)``.
"""

from __future__ import annotations

import pytest

from spark_assign.errors import AssumptionWarning, InvalidInputError, ToolOutputError
from spark_assign.kafka.groups import lag_weights, read_group_members, read_group_offsets, subscription_rows


def java_width(text):
    return len(text.encode("utf-16-le")) // 2


def pad(text, width):
    return text + " " * (width - java_width(text))


def new_assignment(pairs):
    topics = {}
    for t, p in pairs:
        topics.setdefault(t, []).append(p)
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in topics.items())) or "-"


def old_assignment(pairs):
    topics = {}
    for t, p in pairs:
        topics.setdefault(t, []).append(p)
    return ", ".join(sorted(f"{t}({','.join(str(p) for p in sorted(ps))})" for t, ps in topics.items())) or "-"


def members_output(group, members, verbose=True, layout="new"):
    """One group's block as printMembers writes it. ``members``: (id, instance or "", host,
    client, current [(topic, partition)], target)."""
    w = {"g": max(15, java_width(group)), "c": max([15] + [java_width(m[0]) for m in members]),
         "i": max([17] + [java_width(m[1]) for m in members]), "h": max([15] + [java_width(m[2]) for m in members]),
         "l": max([15] + [java_width(m[3]) for m in members])}
    with_instance = any(m[1] for m in members)
    assignment = new_assignment if layout == "new" else old_assignment
    w["a"] = max([20] + [java_width(assignment(m[4])) for m in members])
    w["t"] = max([20] + [java_width(assignment(m[5])) for m in members])

    def row(cells, tail):
        names = ["g", "c", "i", "h", "l"] if with_instance else ["g", "c", "h", "l"]
        text = " ".join(pad(v, w[k]) for k, v in zip(names, cells)) + " " + pad(tail[0], 15) + " "
        if verbose and layout == "new":
            text += f"{pad(tail[1], 15)} {pad(tail[2], w['a'])} {pad(tail[3], 15)} {pad(tail[4], w['t'])}"
        elif verbose:
            text += tail[1]
        return text

    head_cells = ["GROUP", "CONSUMER-ID"] + (["GROUP-INSTANCE-ID"] if with_instance else []) + ["HOST", "CLIENT-ID"]
    head_tail = ["#PARTITIONS", "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"] \
        if layout == "new" else ["#PARTITIONS", "ASSIGNMENT"]
    lines = ["", row(head_cells, head_tail)]
    for m in members:
        cells = [group, m[0]] + ([m[1] or "-"] if with_instance else []) + [m[2], m[3]]
        tail = [str(len(m[4])), "7", assignment(m[4]), "7", assignment(m[5])] if layout == "new" \
            else [str(len(m[4])), assignment(m[4])]
        lines.append(row(cells, tail))
    return "\n".join(lines) + "\n"


ORDERS = [("consumer-ñ-1-8f7e6d5c-4b3a-2910-8f7e-6d5c4b3a2910", "static-ü", "/10.0.0.1", "orders-app client",
           [("orders", 0), ("orders", 1), ("payments-€", 2)], [("orders", 0), ("orders", 1)]),
          ("consumer-2-🦄", "", "/10.0.0.2", "orders-app", [("orders", 2)], [("orders", 2), ("payments-€", 2)]),
          ("consumer-3-idle", "", "/10.0.0.3", "orders-app", [], [])]


@pytest.mark.parametrize("layout", ["new", "old"])
def test_members_and_their_assignments_are_read_in_both_layouts(layout):
    text = members_output("orders-app", ORDERS, layout=layout) + members_output("billing", [
        ("b-1", "", "/10.0.0.9", "billing", [("invoices", 0)], [("invoices", 0)])], layout=layout)
    members = read_group_members(text, "groups.txt")
    assert [(m.group_id, m.member_id) for m in members] == [("orders-app", m[0]) for m in ORDERS] + [("billing", "b-1")]
    assert [m.assignment for m in members[:3]] == [sorted(m[4]) for m in ORDERS]
    assert members[0].group_instance_id == "static-ü" and members[1].group_instance_id is None
    assert members[0].client_id == "orders-app client" and members[2].partition_count == 0
    if layout == "new":
        assert [m.target_assignment for m in members[:3]] == [sorted(m[5]) for m in ORDERS]
    else:
        assert members[0].target_assignment is None


def test_subscriptions_are_assumed_and_said_in_one_warning():
    members = read_group_members(members_output("orders-app", ORDERS), "groups.txt")
    with pytest.warns(AssumptionWarning, match=r"every topic its group holds \(1 idle members get them too\)"):
        rows = subscription_rows(members, source="groups.txt")
    assert {(r[1], r[2]) for r in rows} == {(m[0], t) for m in ORDERS for t in ("orders", "payments-€")}
    owned = {(r[1], r[2]): r[5] for r in rows}
    assert owned[(ORDERS[0][0], "orders")] == [0, 1] and owned[(ORDERS[2][0], "orders")] == []
    with pytest.warns(AssumptionWarning, match="the topics it holds"):
        assigned = subscription_rows(members, assume="assigned", source="groups.txt")
    assert {r[1] for r in assigned} == {ORDERS[0][0], ORDERS[1][0]}          # the idle member is left out
    with pytest.raises(InvalidInputError, match="assume must be one of group, assigned"):
        subscription_rows(members, assume="all")


def test_without_verbose_there_are_no_assignments_to_own():
    members = read_group_members(members_output("orders-app", ORDERS, verbose=False), "groups.txt")
    assert [m.partition_count for m in members] == [3, 1, 0] and members[0].assignment is None
    with pytest.raises(ToolOutputError, match="with --verbose"):
        subscription_rows(members, source="groups.txt")


OFFSETS = ("\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
           "CONSUMER-ID     HOST            CLIENT-ID\n"
           "orders-app      orders          0          10              12              2               -   "
           "            -               -\n")


@pytest.mark.parametrize("text, line, message", [
    pytest.param(OFFSETS, 2, "--describe --offsets or --state output", id="offsets-output"),
    pytest.param("orders-app  c-1  /10.0.0.1  app  3\n", 1, "follow a 'GROUP  CONSUMER-ID ...' header",
                 id="rows-without-header"),
    pytest.param("", 1, "no 'GROUP  CONSUMER-ID ...' header", id="empty"),
    pytest.param(members_output("g", ORDERS).replace(" 3               7", " x               7"), 3,
                 "is not a count", id="partition-count-not-a-number"),
    pytest.param(members_output("g", ORDERS).replace("orders:0,1;payments-€:2", "orders:0,1;payments-€"), 3,
                 "is not 'topic:0,1;other:2'", id="assignment-cut"),
])
def test_bad_members_output_names_the_line(text, line, message):
    with pytest.raises(ToolOutputError, match=message) as raised:
        read_group_members(text, "groups.txt")
    assert raised.value.line == line


def offsets_output(group, rows, verbose=False):
    """One group's block as printOffsets writes it. ``rows``: (topic, partition, current, end, lag, member)."""
    w = {"g": max(15, java_width(group)), "t": max([15] + [java_width(r[0]) for r in rows]),
         "c": max([15] + [java_width(r[5]) for r in rows]), "h": 15}
    names = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER-EPOCH"] if verbose else []) + \
        ["CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    widths = [w["g"], w["t"], 10] + ([15] if verbose else []) + [15, 15, 15, w["c"], w["h"], 0]

    def line(cells):
        return " ".join(pad(str(v), width) if width else str(v) for v, width in zip(cells, widths))

    out = ["", line(names)]
    for t, p, cur, end, lag, member in rows:
        out.append(line([group, t, p] + (["3"] if verbose else []) + [cur, end, lag, member,
                                                                        "-" if member == "-" else "/10.0.0.1", "app"]))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("verbose", [False, True])
def test_offsets_give_each_partitions_lag_as_its_weight(verbose):
    text = offsets_output("orders-app", [("orders", 0, 10, 12, 2, "c-1"), ("orders", 1, "-", 40, "-", "c-2"),
                                         ("payments-€", 3, 7, 5, -2, "-"), ("-", "-", "-", "-", "-", "c-3")],
                          verbose=verbose)
    lags = read_group_offsets(text, "offsets.txt")
    assert [(p.topic, p.partition, p.lag, p.member_id) for p in lags] == [
        ("orders", 0, 2, "c-1"), ("orders", 1, None, "c-2"), ("payments-€", 3, -2, None)]
    with pytest.warns(AssumptionWarning, match="1 partitions have no committed offset"):
        weights = lag_weights(lags, "offsets.txt")
    assert weights == [("orders-app", "orders", 0, 2.0), ("orders-app", "payments-€", 3, 0.0)]
    with pytest.raises(ToolOutputError, match=r"give --offsets"):
        read_group_offsets(members_output("orders-app", ORDERS), "groups.txt")


def test_the_command_lines_tables_of_kafka_text(tmp_path):
    from spark_assign.cli.inputs import kafka_text_table

    (tmp_path / "offsets.txt").write_text(offsets_output("g", [("orders", 0, 10, 12, 2, "c-1")]), encoding="utf-8")
    weights = kafka_text_table(str(tmp_path / "offsets.txt"), "--weights")
    assert weights.to_pylist() == [{"group_id": "g", "topic": "orders", "partition": 0, "weight": 2.0}]
    (tmp_path / "groups.txt").write_text(members_output("g", ORDERS), encoding="utf-8")
    with pytest.warns(AssumptionWarning):
        subs = kafka_text_table(str(tmp_path / "groups.txt"), "--subscriptions", "assigned")
    assert subs.column_names == ["group_id", "member_id", "topic", "group_instance_id", "rack", "owned_partitions",
                                 "generation"] and subs.num_rows == 3
