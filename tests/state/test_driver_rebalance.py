"""The rebalance without Spark (``state/consumer/driver.py``) against ``AssignmentTable.rebalance``.

The differential test: random fleets that look like users' data (non-ASCII and
long ids, many topics, static members, racks, claims, some stale), generation
after generation, through both paths into two tables; the rows, fingerprints,
summaries and commit metadata must be equal, and each path must read the other's
table as unchanged.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import DeltaTable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_assign import AssignmentTable
from spark_assign.errors import SchemaError
from spark_assign.state.consumer.driver import rebalance_in_driver

from .fleets import table_files

COLUMNS = ["group_id", "member_id", "topic", "group_instance_id", "rack", "owned_partitions", "generation"]
DDL = ("group_id string, member_id string, topic string, group_instance_id string, rack string, "
       "owned_partitions array<int>, generation int")
COMPARED = ["group_id", "generation", "member_id", "topic", "partition", "previous_member_id", "status", "strategy",
            "group_instance_id", "input_fingerprint", "commit_version"]
SCHEMA = pa.schema([("group_id", pa.string()), ("member_id", pa.string()), ("topic", pa.string()),
                    ("group_instance_id", pa.string()), ("rack", pa.string()),
                    ("owned_partitions", pa.list_(pa.int32())), ("generation", pa.int32())])
NAMES = ["paiements-€", "заказы", "注文-イベント", "x" * 120, "audit", "clicks.v2"]


@st.composite
def fleets(draw):
    """A fleet's topics and, per generation, its groups' members: ``(topics, [members per
    generation])``, each member ``(group, member, instance, rack, topics)``."""
    topics = {f"{draw(st.sampled_from(NAMES))}-{i}": draw(st.integers(0, 9)) for i in range(draw(st.integers(1, 6)))}
    names = sorted(topics) + ["gone-topic"]         # a topic the metadata lacks
    groups = [f"grüppe-{i}-{draw(st.sampled_from(NAMES))[:40]}" for i in range(draw(st.integers(1, 4)))]
    generations = []
    members = {}
    for _ in range(draw(st.integers(2, 4))):
        for g in groups:                            # churn: joins, leaves, new subscriptions
            for k in range(draw(st.integers(0, 2))):
                m = f"{g}-consumer-{draw(st.integers(0, 6))}-{'ü' * draw(st.integers(0, 3))}"
                if m in members and draw(st.booleans()):
                    del members[m]
                    continue
                static = f"static-{m}" if draw(st.booleans()) else None
                rack = draw(st.sampled_from([None, "eu-west-1a", "eu-west-1b"]))
                subscribed = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
                members[m] = (g, m, static, rack, subscribed)
        if not members:                             # every generation has someone to assign to
            m = f"{groups[0]}-consumer-0"
            members[m] = (groups[0], m, None, None, names[:1])
        generations.append(sorted(members.values()))
    return topics, generations


def subscription_rows(members, latest: dict, stale: int) -> list:
    """One row per member and topic; each member claims what the table says it owns, the first
    ``stale`` members with a generation one too old (a stale claim)."""
    rows = []
    for i, (g, m, static, rack, subscribed) in enumerate(members):
        generation = latest.get((g, m))
        for t in subscribed:
            if generation is None:
                rows.append((g, m, t, static, rack, None, None))
            else:
                claims = latest.get((g, m, t), [])
                rows.append((g, m, t, static, rack, claims, generation - (1 if i < stale else 0)))
    return rows


def arrow(rows: list) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(COLUMNS, r)) for r in rows], schema=SCHEMA)


def claims_of(path) -> dict:
    """Per (group, member, topic) the partitions the group's latest generation gives the member,
    and per (group, member) that generation."""
    rows = DeltaTable(str(path)).to_pandas()
    if rows.empty:
        return {}
    latest = rows[rows["generation"] == rows.groupby("group_id")["generation"].transform("max")]
    out = {}
    for (g, m, t), part in latest.dropna(subset=["member_id"]).groupby(["group_id", "member_id", "topic"]):
        out[(g, m, t)] = sorted(int(p) for p in part["partition"])
        out[(g, m)] = int(part["generation"].iloc[0])
    return out


def table_rows(path) -> list:
    frame = DeltaTable(str(path)).to_pandas()[COMPARED]
    return sorted((tuple(None if v != v else v for v in r) for r in frame.itertuples(index=False, name=None)), key=repr)


def commits(path) -> list:
    """Each commit's spark_assign metadata, without the names of the heads (random tags)."""
    out = []
    for entry in DeltaTable(str(path)).history():
        meta = entry.get("spark_assign")
        if isinstance(meta, str):
            import json

            meta = json.loads(meta)
        if isinstance(meta, dict):
            out.append({k: v for k, v in meta.items() if k != "heads"})
    return out


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(fleet=fleets(), strategy=st.sampled_from(["cooperative-sticky", "sticky", "range", "uniform"]),
       stale=st.integers(0, 2))
def test_both_paths_write_the_same_generations(spark, tmp_path_factory, fleet, strategy, stale):
    topics, generations = fleet
    folder = tmp_path_factory.mktemp("paths")
    spark_table = AssignmentTable(spark, str(folder / "spark"), engine="embedded")
    for members in generations:
        rows = subscription_rows(members, claims_of(folder / "spark") if (folder / "spark").exists() else {}, stale)
        by_spark = spark_table.rebalance(spark.createDataFrame(rows, DDL), topics, strategy=strategy)
        in_driver = rebalance_in_driver(str(folder / "driver"), arrow(rows),
                                        topics, strategy)
        assert in_driver.summary == by_spark.summary and in_driver.version == by_spark.version
    assert table_rows(folder / "driver") == table_rows(folder / "spark")
    assert commits(folder / "driver") == commits(folder / "spark")
    # Each path reads the other's latest generation as its own: the same inputs change nothing.
    last = subscription_rows(generations[-1], claims_of(folder / "spark"), stale)
    again = rebalance_in_driver(str(folder / "spark"), arrow(last), topics, strategy)
    other = AssignmentTable(spark, str(folder / "driver"), engine="embedded").rebalance(
        spark.createDataFrame(last, DDL), topics, strategy=strategy)
    assert again.summary == other.summary


def test_a_misnamed_column_is_refused_as_the_dataframe_method_refuses_it(tmp_path):
    subs = pa.table({"group": ["g"], "member_id": ["m"], "topic": ["t"]})
    with pytest.raises(SchemaError, match="a column 'group' where 'group_id' is expected"):
        rebalance_in_driver(str(tmp_path / "state"), subs, {"t": 2}, "range")
    assert not (tmp_path / "state").exists()


def test_bad_rows_raise_before_anything_is_written(tmp_path):
    good = pa.table({"group_id": ["g"], "member_id": ["m"], "topic": ["t"]})
    first = rebalance_in_driver(str(tmp_path / "state"), good, {"t": 2}, "sticky")
    before = table_files(tmp_path / "state")
    twice = pa.table({"group_id": ["g", "g"], "member_id": ["m", "m"], "topic": ["t", "t"]})
    with pytest.raises(Exception, match="m"):
        rebalance_in_driver(str(tmp_path / "state"), twice, {"t": 3}, "sticky")
    assert first.version == 1 and table_files(tmp_path / "state") == before


def test_a_dry_run_writes_nothing(tmp_path):
    subs = pa.table({"group_id": ["g", "g"], "member_id": ["a", "b"], "topic": ["t", "t"]})
    step = rebalance_in_driver(str(tmp_path / "state"), subs, {"t": 4}, "range", dry_run=True)
    assert step.dry_run and step.version is None and step.rows.num_rows == 4
    assert step.summary["new"] == 4 and not (tmp_path / "state").exists()
