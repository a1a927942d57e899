"""DataFrame.assign_partitions with per-partition weights (docs/load-aware.md).

The weights travel with each group's rows (one pass), so the Spark rows must be the engine's
rows for the same weights: a differential test over random fleets (users' names, missing
topics, mixed subscriptions), fresh and after churn, with per-group and per-topic weights;
then the shapes weights may take, the documented default, and every bad weight, each named.
"""

import math
import random
from fractions import Fraction

import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign.errors import InvalidInputError, SchemaError

from .test_dataframe_engine import SUBS, TOPICS, churn, engine, fleet, rows_of

pytestmark = pytest.mark.spark

WEIGHTS = "group_id string, topic string, partition int, weight double"
ONE = "group_id string, member_id string, topic string"


def random_weights(groups, rng):
    """Per group: Zipf-like lag for most partitions; some partitions and topics left out (default)."""
    table = {}
    for gid, (_, topics) in groups.items():
        mine = {}
        for t, n in topics.items():
            if rng.random() < 0.15:
                continue                          # the whole topic: the group's mean weight
            values = [float(min(rng.paretovariate(1.2), 500.0)) if rng.random() < 0.9 else None for _ in range(n)]
            mine[t] = values                      # None: a partition without a row (the mean too)
        table[gid] = mine
    return table


def weight_rows(table):
    return [(gid, t, p, w) for gid, mine in table.items() for t, values in mine.items()
            for p, w in enumerate(values) if w is not None]


def engine_weights(mine, members):
    """The engine's ``weights`` option for one group's rows: a partition without a row gets the mean of
    the weights given for the group's subscribed topics (the others' rows are ignored)."""
    read = {t for m in members for t in m.topics}
    mine = {t: values for t, values in mine.items() if t in read}
    given = [w for values in mine.values() for w in values if w is not None]
    fill = math.fsum(given) / len(given) if given else 1.0     # exactly rounded: the same in any order
    return {t: [fill if w is None else w for w in values] for t, values in mine.items()}


@pytest.mark.parametrize("strategy", ["load-aware", "cooperative-load-aware", "lag-based"])
def test_dataframe_equals_engine_with_weights(spark, strategy):
    rng = random.Random(strategy + "w")
    groups = fleet(seed=3 * len(strategy))
    topics = spark.createDataFrame([(g, t, n) for g, (_, ts) in groups.items() for t, n in ts.items()], TOPICS)
    table = random_weights(groups, rng)
    weights = spark.createDataFrame(weight_rows(table), WEIGHTS).repartition(3)

    first = spark.createDataFrame(rows_of(groups, rng), SUBS).repartition(5)
    result1 = first.assign_partitions(strategy, topics=topics, weights=weights, max_count_skew=2,
                                      min_improvement=0.1)
    got1 = result1.collect()
    want1, want_w = {}, {}
    for gid, (members, ts) in groups.items():
        w = engine_weights(table[gid], members)
        want1.update(engine(gid, members, ts, strategy, {}, weights=w, max_count_skew=2, min_improvement=0.1))
        given = [x for values in w.values() for x in values]
        fill = math.fsum(given) / len(given) if given else 1.0
        want_w.update({(gid, t, p): (w[t][p] if t in w else fill) for t, n in ts.items() for p in range(n)})
    assert {(r.group_id, r.topic, r.partition): (r.member_id, r.previous_member_id, r.status)
            for r in got1} == want1
    assert all(r.weight == want_w[(r.group_id, r.topic, r.partition)] for r in got1)

    # Next generation: churn, and the lag drifts.
    later = churn(groups, rng)
    drifted = {gid: {t: [None if w is None else w * rng.uniform(0.8, 1.25) for w in values]
                     for t, values in mine.items()} for gid, mine in table.items()}
    second = spark.createDataFrame(rows_of(later, rng), SUBS).repartition(3, "member_id")
    previous = spark.createDataFrame(got1, result1.schema).drop("weight").repartition(4)
    got2 = second.assign_partitions(strategy, topics=topics, previous=previous, num_partitions=3,
                                    weights=spark.createDataFrame(weight_rows(drifted), WEIGHTS),
                                    max_count_skew=2, min_improvement=0.1).collect()
    by_group = {}
    for r in got1:
        by_group.setdefault(r.group_id, {})[(r.topic, r.partition)] = (r.member_id, r.status)
    want2 = {}
    for gid, (members, ts) in later.items():
        want2.update(engine(gid, members, ts, strategy, by_group.get(gid, {}),
                            weights=engine_weights(drifted[gid], members), max_count_skew=2,
                            min_improvement=0.1))
    assert {(r.group_id, r.topic, r.partition): (r.member_id, r.previous_member_id, r.status)
            for r in got2} == want2


def one_count_per_topic(spark, seed):
    """A random fleet whose groups agree on each topic's partition count (so weights per topic fit
    every group): the groups, the counts, and the topics DataFrame."""
    groups = fleet(seed=seed)
    counts = {}
    for _, ts in groups.values():
        for t, n in ts.items():
            counts[t] = max(counts.get(t, 0), n)
    return groups, counts, spark.createDataFrame([(g, t, counts[t]) for g, (_, ts) in groups.items() for t in ts],
                                                 TOPICS)


def test_weights_per_topic_apply_to_every_group(spark):
    """Without group_id, a topic's weights are every subscribing group's; as a dict too."""
    rng = random.Random(11)
    groups, counts, topics = one_count_per_topic(spark, seed=11)
    lag = {t: [float(rng.randint(0, 1000)) for _ in range(n)] for t, n in counts.items()}
    subs = spark.createDataFrame(rows_of(groups, rng), SUBS)
    frame = spark.createDataFrame([(t, p, w) for t, ws in lag.items() for p, w in enumerate(ws)],
                                  "topic string, partition long, weight float")   # any number types
    got = subs.assign_partitions("load-aware", topics=topics, weights=frame).collect()
    by_dict = subs.assign_partitions("load-aware", topics=topics, weights=lag).collect()
    want = {}
    for gid, (members, ts) in groups.items():
        want.update(engine(gid, members, {t: counts[t] for t in ts}, "load-aware", {},
                           weights={t: lag[t] for t in ts}))
    for rows in (got, by_dict):
        assert {(r.group_id, r.topic, r.partition): (r.member_id, r.previous_member_id, r.status)
                for r in rows} == want
        assert all(r.weight == lag[r.topic][r.partition] for r in rows)


def test_a_dict_of_weights_reads_as_the_same_rows_without_group_id(spark):
    """A dict's rows travel with the job (not through the shuffle), and the worker gives each
    group those of its topics: the same rows as a DataFrame without group_id, which Spark
    joins to each group's topics. Differential over a fleet after churn (topics only the
    previous generation has, members that left), short lists (the rest get the mean), and a
    topic no group reads."""
    rng = random.Random(17)
    groups, counts, topics = one_count_per_topic(spark, seed=17)
    lag = {t: [float(rng.randint(0, 1000)) for _ in range(rng.randint(0, n))] for t, n in counts.items()}
    lag["nobody reads this 主题"] = [1.0, 2.0]
    frame = spark.createDataFrame([(t, p, w) for t, ws in lag.items() for p, w in enumerate(ws)],
                                  "topic string, partition int, weight double")
    first = spark.createDataFrame(rows_of(groups, rng), SUBS)
    previous = first.assign_partitions("load-aware", topics=topics, weights=lag).drop("weight")
    second = spark.createDataFrame(rows_of(churn(groups, rng), rng), SUBS)
    for prev in (None, previous):
        by_dict, by_frame = ({(r.group_id, r.topic, r.partition): r for r in second.assign_partitions(
            "cooperative-load-aware", topics=topics, previous=prev, weights=w).collect()} for w in (lag, frame))
        assert by_dict == by_frame
        assert {g for g, _, _ in by_dict} == set(groups) and len({r.weight for r in by_dict.values()}) > 100


@pytest.mark.parametrize("weights, column, shown", [
    ({"t": [1.0, None, 2.0]}, "weight", ("t", 1, None)),
    ({"t": [1.0, 2.0, 3.0, 4.0]}, "partition", ("t", 3)),
])
def test_a_bad_dict_of_weights_is_named_with_the_group_reading_it(spark, weights, column, shown):
    subs = spark.createDataFrame([("g", "a", "t"), ("g", "a", "u"), ("h", "b", "u")], ONE)
    frame = spark.createDataFrame([(t, p, w) for t, ws in weights.items() for p, w in enumerate(ws)],
                                  "topic string, partition int, weight double")
    for given in (weights, frame):
        e = job_error(subs.assign_partitions("load-aware", topics={"t": 3, "u": 1}, weights=given))
        assert (e.column, e.group, e.rows[0]) == (column, "g", shown)


def test_missing_weights_get_the_groups_mean(spark):
    subs = spark.createDataFrame([("g", "a", "t"), ("g", "a", "u"), ("h", "b", "u")], ONE)
    weights = spark.createDataFrame([("g", "t", 0, 6.0), ("g", "t", 2, 2.0), ("x", "t", 0, 1.0)], WEIGHTS)
    rows = subs.assign_partitions("load-aware", topics={"t": 3, "u": 2}, weights=weights).collect()
    got = {(r.group_id, r.topic, r.partition): r.weight for r in rows}
    assert got == {("g", "t", 0): 6.0, ("g", "t", 1): 4.0, ("g", "t", 2): 2.0, ("g", "u", 0): 4.0,
                   ("g", "u", 1): 4.0, ("h", "u", 0): 1.0, ("h", "u", 1): 1.0}   # h has none: 1.0


def test_other_strategies_carry_weights_and_ignore_them(spark):
    subs = spark.createDataFrame([("g", "a", "t"), ("g", "b", "t")], ONE)
    plain = subs.assign_partitions("sticky", topics={"t": 4}).collect()
    weighed = subs.assign_partitions("sticky", topics={"t": 4}, weights={"t": [9, 1, 1, 1]}).collect()
    assert [r[:7] for r in plain] == [r[:7] for r in weighed]
    assert [r.weight for r in weighed] == [9.0, 1.0, 1.0, 1.0]
    assert "weight" not in subs.assign_partitions("sticky", topics={"t": 4}).columns


# ------------------------------------------------------------------ bad weights


def job_error(df) -> InvalidInputError:
    rows = None
    with pytest.raises(InvalidInputError) as info:
        rows = df.collect()
    assert rows is None and "Traceback" not in str(info.value)
    return info.value


@pytest.mark.parametrize("bad, column, shown", [
    ((("g", "t", 1, None),), "weight", ("t", 1, None)),
    ((("g", "t", 1, float("nan")),), "weight", ("t", 1, float("nan"))),
    ((("g", "t", 2, float("inf")),), "weight", ("t", 2, float("inf"))),
    ((("g", "t", 0, -3.0),), "weight", ("t", 0, -3.0)),
    ((("g", "t", 0, 1.0), ("g", "t", 0, 2.0)), "partition", ("t", 0)),
    ((("g", "t", 3, 1.0),), "partition", ("t", 3)),
    ((("g", "t", -1, 1.0),), "partition", ("t", -1)),
    ((("g", "t", None, 1.0),), "partition", ("t", None)),
    ((("g", None, 0, 1.0),), "topic", (None, 0, 1.0)),
])
def test_bad_weights_name_the_column_and_rows(spark, bad, column, shown):
    subs = spark.createDataFrame([("g", "a", "t"), ("g", "b", "t")], ONE)
    weights = spark.createDataFrame([("g", "t", 1 if bad[0][2] == 0 else 0, 5.0)] + list(bad), WEIGHTS)
    e = job_error(subs.assign_partitions("load-aware", topics={"t": 3}, weights=weights))
    assert (e.column, e.group) == (column, "g")
    got = e.rows[0]
    assert len(got) == len(shown) and all(
        (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)) or x == y
        for x, y in zip(got, shown)), e.rows


def test_a_weight_of_a_topic_the_group_does_not_read_is_ignored(spark):
    subs = spark.createDataFrame([("g", "a", "t")], ONE)
    weights = spark.createDataFrame([("g", "t", 0, 2.0), ("g", "other", 99, -1.0)], WEIGHTS)
    rows = subs.assign_partitions("load-aware", topics={"t": 1, "other": 3}, weights=weights).collect()
    assert [(r.topic, r.weight) for r in rows] == [("t", 2.0)]


def test_weights_schema_and_arguments_are_checked_before_any_job(spark):
    subs = spark.createDataFrame([("g", "a", "t")], ONE)
    with pytest.raises(SchemaError, match="weights lacks the required column 'weight'"):
        subs.assign_partitions("load-aware", topics={"t": 1},
                               weights=spark.createDataFrame([("t", 0)], "topic string, partition int"))
    with pytest.raises(SchemaError, match="weights column 'weight' must be double, got string"):
        subs.assign_partitions("load-aware", topics={"t": 1},
                               weights=spark.createDataFrame([("t", 0, "9")], "topic string, partition int, weight string"))
    for bad in (["t"], "t", 3):
        with pytest.raises(InvalidInputError) as info:
            subs.assign_partitions("load-aware", topics={"t": 1}, weights=bad)
        assert info.value.column == "weights"
    with pytest.raises(InvalidInputError) as info:
        subs.assign_partitions("load-aware", topics={"t": 1}, weights={"t": ["heavy"]})
    assert info.value.column == "weights"
    for knob, value in (("max_count_skew", 0), ("max_count_skew", 1.5), ("min_improvement", 1.0),
                        ("min_improvement", float("nan"))):
        with pytest.raises(InvalidInputError) as info:
            subs.assign_partitions("load-aware", topics={"t": 1}, weights={"t": [1]}, **{knob: value})
        assert info.value.column == knob
    no_group = spark.createDataFrame([("a", "t")], "member_id string, topic string")
    with pytest.raises(InvalidInputError) as info:
        no_group.assign_partitions("load-aware", topics={"t": 1},
                                   weights=spark.createDataFrame([("g", "t", 0, 1.0)], WEIGHTS))
    assert info.value.column == "group_id"


def test_a_dict_of_weights_reads_every_shape_of_numbers_and_names_a_bad_value():
    import numpy as np

    from spark_assign.spark.inputs import weight_table

    table = weight_table({"a": [1, 2.5, None], "b": np.array([3, 4], dtype=np.int32),
                          "c": [np.float64(0.5), np.float32(1.5)], "主题": (7,), "d": [Fraction(1, 4)],
                          "e": {0: 2.0, 1: 3}.values()})
    assert table.to_pydict() == {"topic": ["a"] * 3 + ["b"] * 2 + ["c"] * 2 + ["主题", "d", "e", "e"],
                                 "partition": [0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 1],
                                 "weight": [1.0, 2.5, None, 3.0, 4.0, 0.5, 1.5, 7.0, 0.25, 2.0, 3.0]}
    masked = np.ma.array([1.0, 2.0], mask=[False, True])
    for bad, row in (([1.0, True], ("t", 1, True)), (np.array([True]), ("t", 0, True)),
                     ([1.0, "2"], ("t", 1, "2")), ([None, [1.0]], ("t", 1, [1.0])), (masked, ("t", 1, masked[1]))):
        with pytest.raises(InvalidInputError) as info:
            weight_table({"t": bad})
        assert (info.value.column, info.value.rows) == ("weights", [row])
    with pytest.raises(InvalidInputError) as info:
        weight_table({"t": np.ones((2, 2))})                    # one list per topic, not a matrix
    assert info.value.column == "weights"
