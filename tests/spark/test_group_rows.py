"""The worker's decoding of wire batches (spark_assign.spark.consumer.group_rows), without Spark.

Wire batches are built with pyarrow as Spark would send them (groups contiguous,
subscriptions before previous rows), cut into batches of several sizes so that
groups span batches, and assigned with ``assign_batches``; the owners must be
the engine's for the same members and claims.
"""

import random

import pyarrow as pa
import pytest

from spark_assign.core import Member, assign
from spark_assign.errors import InvalidInputError, SchemaError
from spark_assign.spark.consumer.wire import KIND_PREVIOUS, OPTIONAL_COLUMNS, WIRE_COLUMNS, append_rows
from spark_assign.spark.consumer.worker import assign_batches

_TYPES = {"string": pa.string(), "tinyint": pa.int8(), "int": pa.int32(), "array<int>": pa.list_(pa.int32()),
          "array<array<string>>": pa.list_(pa.list_(pa.string())), "double": pa.float64()}
SCHEMA = pa.schema([pa.field(n, _TYPES[t]) for n, t in WIRE_COLUMNS])
TOPICS = {"t0": 4, "t1": 3, "t2": 5}


def sub(group, member, topic, instance=None, owned=None, generation=None):
    return dict(group_id=group, kind=0, member_id=member, topic=topic, group_instance_id=instance,
                owned_partitions=owned, generation=generation,
                num_partitions=TOPICS.get(topic), metadata_rows=1 if topic in TOPICS else None)


def prev(group, member, topic, partition, generation, status="kept", instance=None):
    return dict(group_id=group, kind=1, member_id=member, topic=topic, partition=partition,
                generation=generation, status=status, group_instance_id=instance)


def weight(group, topic, partition, value):
    return dict(group_id=group, kind=3, topic=topic, partition=partition, weight=value)


def run(rows, strategy="sticky", batch_rows=10_000, **kwargs):
    table = pa.Table.from_pydict({n: [r.get(n) for r in rows] for n, _ in WIRE_COLUMNS}, schema=SCHEMA)
    out = list(assign_batches(iter(table.to_batches(max_chunksize=batch_rows)), strategy, **kwargs))
    return pa.Table.from_batches(out).to_pylist() if out else []


def owners(out, group):
    return {(r["topic"], r["partition"]): r["member_id"] for r in out if r["group_id"] == group}


@pytest.mark.parametrize("batch_rows", [3, 17, 10_000])
@pytest.mark.parametrize("strategy", ["range", "sticky", "cooperative-sticky", "uniform"])
def test_owners_equal_the_engine_for_random_groups(strategy, batch_rows):
    rng = random.Random(7)
    rows, expected = [], {}
    for g in range(12):
        group = f"g{g:02d}"
        names = [f"c{i}" for i in rng.sample(range(30), rng.randint(1, 6))]
        members, claimed = [], set()
        for name in names:
            topics = sorted(rng.sample(sorted(TOPICS), rng.randint(1, 3)))
            owned = [(t, p) for t in topics for p in range(TOPICS[t]) if rng.random() < 0.3 and (t, p) not in claimed]
            claimed.update(owned)
            members.append(Member(name, topics=topics, owned=owned, generation=3 if owned else None))
            for t in topics:
                mine = [p for tt, p in owned if tt == t]
                rows.append(sub(group, name, t, owned=mine if owned else None, generation=3 if owned else None))
        expected[group] = assign(members, TOPICS, strategy)
    out = run(rows, strategy, batch_rows)
    for group, result in expected.items():
        want = {tp: m for m, tps in result.assignment.items() for tp in tps}
        got = {tp: m for tp, m in owners(out, group).items() if m is not None}
        assert got == want, group


def test_previous_rows_give_claims_departures_and_pending_transfers():
    rows = [sub("g", "a", "t0"), sub("g", "b", "t0"),
            prev("g", "a", "t0", 0, 1), prev("g", "gone", "t0", 1, 1),       # generation 1: stale
            prev("g", "a", "t0", 0, 2), prev("g", "gone", "t0", 1, 2), prev("g", "b", "t0", 2, 2),
            prev("g", None, "t0", 3, 2, status="revoked")]                    # pending in generation 2
    out = {(r["topic"], r["partition"]): r for r in run(rows, "cooperative-sticky")}
    assert {r["generation"] for r in out.values()} == {3}
    assert out[("t0", 0)]["member_id"] == "a" and out[("t0", 0)]["status"] == "kept"
    assert out[("t0", 1)]["previous_member_id"] == "gone"
    assert out[("t0", 3)]["member_id"] is not None and out[("t0", 3)]["status"] == "assigned"


def test_claims_in_the_rows_replace_the_members_previous_rows():
    """A member whose rows carry owned_partitions claims those, not its previous-generation rows."""
    rows = [sub("g", "a", "t1", owned=[2], generation=5), sub("g", "b", "t1"),
            prev("g", "a", "t1", 0, 5), prev("g", "b", "t1", 1, 5)]
    out = {(r["topic"], r["partition"]): r for r in run(rows, "sticky")}
    assert (out[("t1", 2)]["member_id"], out[("t1", 2)]["status"]) == ("a", "kept")
    assert (out[("t1", 1)]["member_id"], out[("t1", 1)]["status"]) == ("b", "kept")
    assert out[("t1", 0)]["status"] == "new"           # a's previous row was not taken as a claim


def test_a_restarted_static_member_inherits_its_old_ids_partitions():
    rows = [sub("g", "new-id", "t2", instance="s1"), sub("g", "other", "t2"),
            prev("g", "old-id", "t2", 0, 4, instance="s1"), prev("g", "old-id", "t2", 1, 4, instance="s1"),
            prev("g", "other", "t2", 2, 4), prev("g", "other", "t2", 3, 4)]
    out = {(r["topic"], r["partition"]): r for r in run(rows, "sticky")}
    assert out[("t2", 0)]["member_id"] == "new-id" and out[("t2", 0)]["previous_member_id"] == "old-id"
    assert out[("t2", 0)]["status"] == "kept"


def test_a_group_spanning_many_batches_is_assigned_once():
    rows = [sub("a", "x", "t0")] + [sub("big", f"m{i:03d}", t) for i in range(40) for t in TOPICS] + \
           [sub("z", "y", "t1")]
    out = run(rows, "roundrobin", batch_rows=7)
    assert sum(r["group_id"] == "big" for r in out) == sum(TOPICS.values())
    assert {r["group_id"] for r in out} == {"a", "big", "z"}


def test_the_first_bad_row_of_a_group_is_reported():
    rows = [sub("g", "a", "t0"), dict(sub("g", "b", "t1"), num_partitions=-2), sub("g", None, "t0")]
    with pytest.raises(InvalidInputError, match="negative partition count") as info:
        run(rows)
    assert "group 'g'" in str(info.value) and "('t1', -2)" in str(info.value)


def test_a_member_whose_rows_disagree_names_both_rows():
    rows = [sub("g", "a", "t0", instance="s1"), sub("g", "a", "t1", instance="s2")]
    with pytest.raises(InvalidInputError, match="disagree on group_instance_id") as info:
        run(rows)
    assert "('a', 't0'), ('a', 't1')" in str(info.value)


def test_errors_name_subscription_rows_whatever_the_order_of_row_kinds():
    """Spark sorts the wire by group only, so a previous-generation row may come first."""
    rows = [prev("g", "a", "t2", 0, 1, instance="s0"), sub("g", "a", "t0", instance="s1"),
            sub("g", "a", "t1", instance="s2")]
    with pytest.raises(InvalidInputError, match="disagree on group_instance_id") as info:
        run(rows)
    assert "('a', 't0'), ('a', 't1')" in str(info.value)
    rows = [prev(None, "a", "t0", 0, 1), sub(None, "a", "t0"), sub(None, "b", "t1")]
    with pytest.raises(InvalidInputError, match="null group_id") as info:
        run(rows)
    assert "('a', 't0'), ('b', 't1')" in str(info.value)


def test_an_earlier_group_is_assigned_before_a_later_group_fails():
    """Row checks run per batch but are raised group by group, in order."""
    rows = [sub("g1", "a", "t0"), sub("g1", "a", "t0"),            # duplicate row: the engine refuses g1
            sub("g2", "", "t0")]                                   # empty member id in g2
    with pytest.raises(InvalidInputError, match="group 'g1'"):
        run(rows)


@pytest.mark.parametrize("with_previous", [False, True])
def test_the_optional_columns_may_be_absent_from_the_wire(with_previous):
    """build_wire leaves out every optional column no row can hold a value in (fresh: all of them);
    the worker reads an absent one as nulls, so the rows are the same."""
    rows = [sub("g", m, t) for m in ("a", "b", "c") for t in TOPICS]
    rows += [prev("g", "a", "t0", 1, 2), prev("g", "gone", "t1", 0, 2)] if with_previous else []
    full = pa.Table.from_pydict({n: [r.get(n) for r in rows] for n, _ in WIRE_COLUMNS}, schema=SCHEMA)
    empty = [n for n in OPTIONAL_COLUMNS if full.column(n).null_count == full.num_rows]
    assert len(empty) == (5 if with_previous else len(OPTIONAL_COLUMNS))
    narrow = full.drop_columns(empty)
    got = [pa.Table.from_batches(list(assign_batches(iter(t.to_batches()), "sticky", with_instance=True))).to_pylist()
           for t in (full, narrow)]
    assert got[0] == got[1] and len(got[0]) == sum(TOPICS.values())
    assert not with_previous or {r["previous_member_id"] for r in got[0]} >= {"a", "gone"}


def test_topic_counts_may_travel_with_the_call_instead_of_on_the_rows():
    """Topics given as a dict: the wire has no num_partitions or metadata_rows, the worker looks the
    counts up (an unknown topic gets none, as a null count on the row would)."""
    rows = [sub(g, m, t) for g in ("g1", "g2") for m in ("a", "b") for t in TOPICS] + \
        [sub("g2", "a", "missing")] + [prev("g1", "a", "t2", 4, 3), weight("g2", "t0", 1, 2.5)]
    full = pa.Table.from_pydict({n: [r.get(n) for r in rows] for n, _ in WIRE_COLUMNS}, schema=SCHEMA)
    lean = full.drop_columns(["num_partitions", "metadata_rows"])
    for strategy in ("range", "sticky", "load-aware"):
        expected = pa.Table.from_batches(list(assign_batches(iter(full.to_batches()), strategy))).to_pylist()
        got = pa.Table.from_batches(list(assign_batches(iter(lean.to_batches(max_chunksize=5)), strategy,
                                                        topic_counts=TOPICS))).to_pylist()
        assert got == expected and len(got) == 2 * sum(TOPICS.values())
    with pytest.raises(SchemaError, match="num_partitions"):
        list(assign_batches(iter(lean.to_batches()), "range"))


def test_rows_appended_to_a_collected_wire_keep_the_columns_it_left_out():
    """The state table's small rebalances add previous rows read without Spark to a fresh wire,
    which has no generation, partition or status column: the rows keep theirs."""
    subs = [sub("g", m, "t0") for m in ("a", "b")]
    wire = pa.Table.from_pydict({n: [r.get(n) for r in subs] for n, _ in WIRE_COLUMNS}, schema=SCHEMA)
    wire = wire.drop_columns(list(OPTIONAL_COLUMNS))
    previous = pa.table({"group_id": ["g", "g"], "member_id": ["b", "b"], "topic": ["t0", "t0"],
                         "partition": pa.array([0, 3], pa.int32()), "generation": pa.array([4, 4], pa.int32()),
                         "status": ["kept", "kept"]})
    joined = append_rows(wire, previous, KIND_PREVIOUS)
    assert joined.column("kind").to_pylist() == [0, 0, KIND_PREVIOUS, KIND_PREVIOUS]
    assert joined.column("partition").to_pylist() == [None, None, 0, 3]
    assert "weight" not in joined.column_names
    out = pa.Table.from_batches(list(assign_batches(iter(joined.to_batches()), "sticky"))).to_pylist()
    assert {r["partition"] for r in out if r["member_id"] == "b"} == {0, 3}
    assert {r["generation"] for r in out} == {5}


# ------------------------------------------------------------------ random fleets against the per-group engine

import random as _random  # noqa: E402

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from ..budget import examples  # noqa: E402

from spark_assign.spark.consumer.worker import whole_groups  # noqa: E402

from .wirefleet import expected_rows, random_fleet, wire_table  # noqa: E402

STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
RACK_AWARE = {"range", "sticky", "cooperative-sticky"}


def worker_rows(table, strategy, batch_rows, chunk_rows, with_racks):
    out = list(assign_batches(iter(table.to_batches(max_chunksize=batch_rows)), strategy, with_instance=True,
                              chunk_rows=chunk_rows))
    return [tuple(r.values()) for r in pa.Table.from_batches(out).to_pylist()] if out else []


@examples(25)
@given(rng=st.randoms(use_true_random=False), strategy=st.sampled_from(STRATEGIES),
       groups=st.integers(1, 25), batch_rows=st.sampled_from([7, 50, 10_000]),
       chunk_rows=st.sampled_from([1, 100, 100_000]), racks=st.booleans())
def test_random_fleets_equal_the_per_group_engine_row_for_row(rng, strategy, groups, batch_rows, chunk_rows, racks):
    """Mixed sizes and subscriptions, claims, static members (some restarted), racks, previous
    generations, non-ASCII ids; groups split across batches and chunks of any size."""
    with_racks = racks and strategy in RACK_AWARE
    fleet = random_fleet(rng, groups, racks=racks)
    got = worker_rows(wire_table(fleet, with_racks), strategy, batch_rows, chunk_rows, with_racks)
    assert got == expected_rows(fleet, strategy, with_racks)


@examples(25)
@given(rng=st.randoms(use_true_random=False), strategy=st.sampled_from(["load-aware", "cooperative-load-aware",
                                                                       "sticky"]),
       groups=st.integers(1, 25), batch_rows=st.sampled_from([7, 50, 10_000]))
def test_weighted_fleets_equal_the_per_group_engine_row_for_row(rng, strategy, groups, batch_rows):
    """Weight rows (kind 3) with the fleets above: the lock-step load-aware rules and the
    per-group engine, each group with its weights (which sticky reads and ignores)."""
    fleet = random_fleet(rng, groups, weights=True)
    got = worker_rows(wire_table(fleet), strategy, batch_rows, 100_000, False)
    assert got == expected_rows(fleet, strategy)


def interleave_kinds(table: pa.Table, rng: _random.Random) -> pa.Table:
    """``table`` (sorted by group and kind) with each group's rows of different kinds shuffled
    together, rows of one kind keeping their order: what a sort by ``group_id`` alone may give."""
    groups = table.column("group_id").to_pylist()
    kinds = table.column("kind").to_pylist()
    order, start = [], 0
    for stop in [i for i in range(1, len(groups)) if groups[i] != groups[i - 1]] + [len(groups)]:
        runs: dict = {}
        for i in range(start, stop):
            runs.setdefault(kinds[i], []).append(i)
        deck = [k for k, rows in runs.items() for _ in rows]
        rng.shuffle(deck)
        taken = {k: iter(rows) for k, rows in runs.items()}
        order += [next(taken[k]) for k in deck]
        start = stop
    return table.take(pa.array(order, type=pa.int64()))


@examples(20)
@given(rng=st.randoms(use_true_random=False), strategy=st.sampled_from(STRATEGIES + ["load-aware"]),
       groups=st.integers(1, 20), batch_rows=st.sampled_from([7, 10_000]), racks=st.booleans())
def test_row_kinds_in_any_order_within_a_group_give_the_same_rows(rng, strategy, groups, batch_rows, racks):
    """The job sorts the wire by ``group_id`` only: subscriptions, previous rows, racks and
    weights of a group arrive in any order, and the rows must be those of the sorted wire."""
    with_racks = racks and strategy in RACK_AWARE
    fleet = random_fleet(rng, groups, racks=racks, weights=True)
    table = interleave_kinds(wire_table(fleet, with_racks), rng)
    assert worker_rows(table, strategy, batch_rows, 100_000, with_racks) == expected_rows(fleet, strategy, with_racks)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_larger_random_fleet_equals_the_per_group_engine(strategy):
    fleet = random_fleet(_random.Random(strategy), 300, racks=strategy in RACK_AWARE)
    with_racks = strategy in RACK_AWARE
    assert worker_rows(wire_table(fleet, with_racks), strategy, 10_000, 100_000, with_racks) == \
        expected_rows(fleet, strategy, with_racks)


@examples(50)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=20), batch_rows=st.integers(1, 40),
       min_rows=st.integers(1, 80))
def test_chunks_hold_whole_groups_and_every_row_once(sizes, batch_rows, min_rows):
    ids = [f"g{i:02d}" for i, n in enumerate(sizes) for _ in range(n)]
    table = pa.table({"group_id": ids, "row": list(range(len(ids)))})
    chunks = list(whole_groups(iter(table.to_batches(max_chunksize=batch_rows)), min_rows))
    assert [r for c in chunks for r in c.column("row").to_pylist()] == list(range(len(ids)))
    seen = [set(c.column("group_id").to_pylist()) for c in chunks]
    assert all(not (a & b) for i, a in enumerate(seen) for b in seen[i + 1:])
    # A chunk is cut once min_rows are held, before the group the last batch ends in.
    for c, after in zip(chunks, chunks[1:]):
        first = after.column("group_id")[0].as_py()
        assert c.num_rows + after.column("group_id").to_pylist().count(first) >= min_rows


def subscribed_members(rng, group):
    """1-4 members of ``group`` subscribing to every topic, and their subscription rows."""
    members = [Member(f"c{i}", topics=sorted(TOPICS)) for i in range(rng.randint(1, 4))]
    return members, [sub(group, m.member_id, t) for m in members for t in m.topics]


@pytest.mark.parametrize("batch_rows", [2, 5, 10_000])
def test_weight_rows_are_weights_not_subscriptions(batch_rows):
    """Kind-3 rows carry a group's weights, across batch splits, and never count as subscriptions."""
    rng = random.Random(3)
    rows, expected = [], {}
    for g in range(6):
        group = f"g{g}"
        members, subscribed = subscribed_members(rng, group)
        rows += subscribed
        lag = {t: [float(rng.randint(0, 100)) for _ in range(n)] for t, n in TOPICS.items()}
        rows += [weight(group, t, p, w) for t, ws in lag.items() for p, w in enumerate(ws)]
        expected[group] = (assign(members, TOPICS, "load-aware", weights=lag), lag)
    out = run(rows, "load-aware", batch_rows, with_weight=True)
    assert len(out) == len(expected) * sum(TOPICS.values())
    for group, (result, lag) in expected.items():
        want = {tp: m for m, tps in result.assignment.items() for tp in tps}
        assert owners(out, group) == want, group
        assert all(r["weight"] == lag[r["topic"]][r["partition"]] for r in out if r["group_id"] == group)


@pytest.mark.parametrize("chunk_rows", [1, 100_000])
@pytest.mark.parametrize("strategy", ["sticky", "range", "load-aware"])
def test_weights_of_some_partitions_fill_the_weight_column_with_their_mean(strategy, chunk_rows):
    """Groups with weights for some partitions of some topics, beside groups without any, in one
    chunk or one chunk per group: a batched strategy assigns as without weights, a weighted one
    as the engine with the group's weights; the weight column is 1.0 without weights, else the
    given weight, or the mean of the group's given weights for a partition without one."""
    rng = random.Random(11)
    rows, expected = [], {}
    for g in range(8):
        group = f"g{g}"
        members, subscribed = subscribed_members(rng, group)
        rows += subscribed
        given = {} if g % 3 == 0 else {(t, p): float(rng.randint(0, 50)) for t in ("t0", "t2")
                                       for p in rng.sample(range(TOPICS[t]), 2)}
        rows += [weight(group, t, p, w) for (t, p), w in given.items()]
        mean = sum(given.values()) / len(given) if given else 1.0
        dense = {t: [given.get((t, p), mean) for p in range(n)] for t, n in TOPICS.items()}
        options = {"weights": {t: dense[t] for t in ("t0", "t2")}} if given and strategy == "load-aware" else {}
        expected[group] = (assign(members, TOPICS, strategy, **options), dense)
    out = run(rows, strategy, 10_000, with_weight=True, chunk_rows=chunk_rows)
    for group, (result, dense) in expected.items():
        assert owners(out, group) == {tp: m for m, tps in result.assignment.items() for tp in tps}, group
        assert {(r["topic"], r["partition"]): r["weight"] for r in out if r["group_id"] == group} == \
            {(t, p): w for t, ws in dense.items() for p, w in enumerate(ws)}, group


@pytest.mark.parametrize("bad_first", [True, False])
def test_a_bad_weight_and_a_bad_row_the_earlier_group_is_named(bad_first):
    """Weights are checked group by group with the rows: the earlier group's problem is raised."""
    bad_weight = [sub("g0", "a", "t0"), weight("g0", "t0", 0, -1.0)]
    bad_row = [sub("g1", "a", "t0"), sub("g1", None, "t0")]
    rows = bad_weight + bad_row if bad_first else bad_row + [dict(r, group_id="g2") for r in bad_weight]
    match = "weights must be finite.*group 'g0'" if bad_first else "null or empty member_id.*group 'g1'"
    with pytest.raises(InvalidInputError, match=match):
        run(rows, "load-aware", with_weight=True)


def test_a_previous_static_owner_and_no_static_member_in_the_batch():
    """A previous row names an instance id but no member of the batch is static (found by the
    random fleets: the lookup of static members failed on an empty batch of them)."""
    rows = [sub("g0", "a", "t0"), prev("g0", "old", "t0", 0, 1, instance="i-old")]
    out = run(rows, "range")
    assert owners(out, "g0") == {("t0", p): "a" for p in range(TOPICS["t0"])}
    assert [r["previous_member_id"] for r in out if r["partition"] == 0] == ["old"]
