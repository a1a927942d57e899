"""Unit cases of the load-aware strategies: zero weights, one dominant partition, members joining
and leaving, defaults, the lag-based baseline, and argument errors naming ``weights``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from spark_assign.core import Member, assign, strategy_names
from spark_assign.errors import InvalidInputError


def members(n, topics=("t",), prefix="c"):
    return [Member(f"{prefix}{i}", topics=list(topics)) for i in range(n)]


def loads(result, w):
    return np.bincount(result.owner, weights=w, minlength=result.group.num_members)


def test_registered():
    assert {"load-aware", "cooperative-load-aware", "lag-based"} <= set(strategy_names())


def test_balances_load_not_counts_within_the_skew():
    w = [10, 1, 1, 1, 1, 1, 5, 5, 0, 0, 2, 2]
    result = assign(members(4, ("a", "b")), {"a": 6, "b": 6}, "load-aware",
                    weights={"a": w[:6], "b": w[6:]})
    got = loads(result, np.array(w, float))
    assert got.max() == 10 and result.counts().tolist() == [3, 3, 3, 3]     # 10 alone is the bound
    relaxed = assign(members(4, ("a", "b")), {"a": 6, "b": 6}, "load-aware",
                     weights={"a": w[:6], "b": w[6:]}, max_count_skew=3)
    assert loads(relaxed, np.array(w, float)).max() == 10


def test_one_dominant_partition_gets_a_member_to_itself_as_far_as_counts_allow():
    w = np.ones(40)
    w[7] = 1000.0
    result = assign(members(4), {"t": 40}, "load-aware", weights={"t": w.tolist()})
    owner = result.owner[7]
    assert np.sort(w[result.owner == owner])[:-1].sum() == 9      # its 9 companions all weigh 1
    assert result.counts().max() - result.counts().min() <= 1


def test_zero_weights_mixed_with_positive():
    w = [0.0] * 10 + [5.0, 5.0]
    result = assign(members(3), {"t": 12}, "load-aware", weights={"t": w})
    assert sorted(loads(result, np.array(w)).tolist()) == [0.0, 5.0, 5.0]
    assert result.counts().tolist() == [4, 4, 4]


def test_all_zero_or_no_weights_is_sticky():
    group = members(3)
    sticky = assign(group, {"t": 7}, "sticky").assignment
    assert assign(group, {"t": 7}, "load-aware").assignment == sticky
    assert assign(group, {"t": 7}, "load-aware", weights={"t": [0] * 7}).assignment == sticky


def test_missing_topic_weights_default_to_the_mean():
    result = assign(members(2, ("a", "b")), {"a": 2, "b": 2}, "load-aware", weights={"a": [10, 30]})
    assert result.group.num_partitions == 4
    w = np.array([10, 30, 20, 20], float)                         # b's partitions weigh the mean, 20
    assert sorted(loads(result, w).tolist()) == [40.0, 40.0]


def test_member_joins_and_leaves():
    rng = np.random.default_rng(3)
    w = rng.zipf(1.7, 60).astype(float)
    weights = {"t": w.tolist()}
    first = assign(members(3), {"t": 60}, "load-aware", weights=weights)
    joined = [Member(m, ["t"], first.assignment[m], generation=1) for m in first.assignment] + [Member("new", ["t"])]
    second = assign(joined, {"t": 60}, "load-aware", weights=weights)
    assert second.counts().tolist() == [15, 15, 15, 15]
    # The newcomer's 15, plus the few swaps of stage 4 when they gain more than min_improvement.
    assert 15 <= second.status_names().count("moved") <= 21
    left = [Member(m, ["t"], second.assignment[m], generation=2) for m in ("c0", "c1", "new")]
    third = assign(left, {"t": 60}, "load-aware", weights=weights)
    assert third.counts().tolist() == [20, 20, 20]
    assert third.status_names().count("new") == 15                 # the leaver's partitions
    assert third.status_names().count("moved") <= 2                 # at most one improving swap
    got = loads(third, w)
    assert got.max() <= got.mean() + w.max()


def test_cooperative_withholds_what_moves():
    w = [9.0, 1, 1, 9]
    old = [Member("a", ["t"], [("t", 0), ("t", 3)], generation=1), Member("b", ["t"], [("t", 1), ("t", 2)], generation=1)]
    result = assign(old, {"t": 4}, "cooperative-load-aware", weights={"t": w})
    assert result.status_names().count("revoked") == 2          # a swap: both sides wait a round
    assert sum(len(v) for v in result.revoked.values()) == 2
    nxt = [Member(m, ["t"], result.assignment[m], generation=2) for m in ("a", "b")]
    final = assign(nxt, {"t": 4}, "cooperative-load-aware", weights={"t": w})
    assert (final.owner >= 0).all() and sorted(loads(final, np.array(w)).tolist()) == [10.0, 10.0]


def test_lag_based_follows_its_authors_example():
    """kafka-lag-based-assignor's README: t0 lags 100,000 / 50,000 / 60,000, two consumers."""
    result = assign(members(2, ("t0",), "C"), {"t0": 3}, "lag-based", weights={"t0": [100_000, 50_000, 60_000]})
    assert result.assignment == {"C0": [("t0", 0)], "C1": [("t0", 1), ("t0", 2)]}


def test_lag_based_balances_counts_per_topic_first():
    result = assign(members(2), {"t": 4}, "lag-based", weights={"t": [100, 1, 1, 1]})
    assert result.counts().tolist() == [2, 2]


@pytest.mark.parametrize("bad, problem", [
    (float("nan"), "NaN"), (-1.0, "negative"), (math.inf, "inf"), (None, "null"), ("3", "non-number")])
def test_bad_weight_values_name_weights_topic_and_partition(bad, problem):
    with pytest.raises(InvalidInputError) as info:
        assign(members(2), {"t": 3}, "load-aware", weights={"t": [1.0, bad, 2.0]})
    err = info.value
    assert err.column == "weights" and err.rows[0][:2] == ("t", 1)
    assert "weights" in str(err) and "'t', 1" in str(err)


def test_wrong_length_and_wrong_shape_are_errors_for_every_strategy():
    for strategy in ("load-aware", "sticky"):
        with pytest.raises(InvalidInputError, match="3 partitions but 2 weights") as info:
            assign(members(2), {"t": 3}, strategy, weights={"t": [1.0, 2.0]})
        assert info.value.rows == ["t"]
    with pytest.raises(InvalidInputError, match="weights must map"):
        assign(members(2), {"t": 3}, "load-aware", weights=[1, 2, 3])


@pytest.mark.parametrize("option, value", [
    ("max_count_skew", 0), ("max_count_skew", 1.5), ("max_count_skew", True),
    ("min_improvement", -0.1), ("min_improvement", 1.0), ("min_improvement", float("nan"))])
def test_bad_knobs_name_the_option(option, value):
    with pytest.raises(InvalidInputError) as info:
        assign(members(2), {"t": 3}, "load-aware", weights={"t": [1, 2, 3]}, **{option: value})
    assert info.value.column == option


def test_min_improvement_zero_takes_any_gain():
    w = [6.0, 5.0, 5.0, 4.0]
    old = [Member("a", ["t"], [("t", 0), ("t", 1)], generation=1), Member("b", ["t"], [("t", 2), ("t", 3)], generation=1)]
    keep = assign(old, {"t": 4}, "load-aware", weights={"t": w})                # 11 vs 9: gain 9% > 5%
    assert keep.status_names().count("moved") == 2
    small = [5.2, 5.0, 5.0, 4.8]                                                # 10.2 vs 9.8: gain 2%
    assert assign(old, {"t": 4}, "load-aware", weights={"t": small}).status_names().count("moved") == 0
    assert assign(old, {"t": 4}, "load-aware", weights={"t": small},
                  min_improvement=0.0).status_names().count("moved") == 2


def test_large_fresh_group_is_near_the_lower_bound():
    rng = np.random.default_rng(0)
    w = rng.zipf(1.5, 10_000).astype(float)
    weights = {f"t{i}": w[i * 500:(i + 1) * 500].tolist() for i in range(20)}
    result = assign(members(200, weights), {t: 500 for t in weights}, "load-aware", weights=weights)
    got = loads(result, np.concatenate([np.asarray(weights[t]) for t in result.group.topic_names]))
    bound = max(got.mean(), w.max())
    assert got.max() <= 1.05 * bound and result.counts().max() == result.counts().min() == 50


def test_noise_on_a_large_group_moves_nothing():
    rng = np.random.default_rng(1)
    w = rng.zipf(1.5, 10_000).clip(max=200).astype(float)
    weights = {f"t{i}": w[i * 500:(i + 1) * 500].tolist() for i in range(20)}
    topics = {t: 500 for t in weights}
    first = assign(members(200, weights), topics, "load-aware", weights=weights)
    nxt = [Member(m, list(weights), first.assignment[m], generation=1) for m in first.assignment]
    noisy = {t: (np.asarray(v) * (1 + rng.uniform(-0.01, 0.01, 500))).tolist() for t, v in weights.items()}
    assert assign(nxt, topics, "load-aware", weights=noisy).status_names().count("kept") == 10_000
