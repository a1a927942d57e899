"""Safe stages of a reassignment: per-broker and per-stage caps, leaders last, the estimate.

Properties (hypothesis: clusters from :func:`spark_assign.testing.random_replica_cluster` after a
change, planned by ``sticky`` per cluster, random sizes and caps): every partition that changes is
in exactly one stage; no broker gains or loses more than ``max_moves_per_broker`` replicas in a
stage; no stage copies more than ``max_bytes_per_stage`` unless it holds one partition; the
reordering stage comes last; the stages are at least :attr:`StagePlan.stage_bound`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_assign.core import Broker, place_replicas
from spark_assign.core.replicas.cluster import place_sticky_cluster
from spark_assign.core.replicas.stages import StagePlan, plan_stages
from spark_assign.errors import InvalidInputError
from spark_assign.testing import CLUSTER_CHANGES, change_cluster, random_replica_cluster

from ...budget import examples

GiB = 1 << 30


def check(plan: StagePlan, previous, placed, sizes) -> None:
    """The invariants of the module docstring, recomputed from the placements."""
    changed = {(t, p) for t, (a, b) in enumerate(zip(previous, placed)) for p in range(len(b))
               if (a[p] >= 0).any() and [x for x in a[p] if x >= 0] != [x for x in b[p] if x >= 0]}
    rows = list(zip(plan.topic.tolist(), plan.partition.tolist(), plan.stage.tolist()))
    assert {(t, p) for t, p, _ in rows} == changed and len(rows) == len(changed)
    last = max((s for *_, s in rows), default=-1)
    for stage in range(last + 1):
        moves: dict = {}
        copied = 0
        members = [(t, p) for t, p, s in rows if s == stage]
        for t, p in members:
            before = {x for x in previous[t][p] if x >= 0}
            after = set(placed[t][p].tolist())
            for b in (after - before) | (before - after):
                moves[b] = moves.get(b, 0) + 1
            copied += (int(sizes[t][p]) if sizes else 0) * len(after - before)
            if not (after - before) and not (before - after):
                assert stage == last                       # reorders only in the last stage
        assert max(moves.values(), default=0) <= plan.max_moves_per_broker
        if plan.max_bytes_per_stage is not None and len(members) > 1:
            assert copied <= plan.max_bytes_per_stage
    assert plan.data_stages >= plan.stage_bound
    assert plan.leader_changed.tolist() == [int(previous[t][p][0]) != int(placed[t][p][0]) for t, p, _ in rows]


def test_a_broker_joins_twenty_topics():
    three = [Broker(i) for i in range(1, 4)]
    previous = [place_replicas(three, 5, 3, method="striped", seed=s).broker_ids for s in range(20)]
    placed = [b.broker_ids for b in place_sticky_cluster(three + [Broker(4)], np.full(20, 5), np.full(20, 3),
                                                         previous, None).blocks]
    sizes = [np.full(5, GiB)] * 20
    plan = plan_stages(previous, placed, sizes, throttle=100 << 20)
    check(plan, previous, placed, sizes)
    assert plan.data_stages == plan.stage_bound == 15          # broker 4 receives 75 replicas, 5 at a time
    assert plan.estimated_seconds == pytest.approx(15 * 5 * GiB / (100 << 20))
    assert plan.leader_changed.sum() == 25


def test_the_byte_cap_and_an_oversize_partition():
    previous = [np.array([[1], [1], [1], [1]])]
    placed = [np.array([[2], [3], [4], [5]])]
    sizes = [np.array([5 * GiB, GiB, GiB, GiB])]
    plan = plan_stages(previous, placed, sizes, max_moves_per_broker=10, max_bytes_per_stage=2 * GiB)
    check(plan, previous, placed, sizes)
    assert plan.stage.tolist() == [0, 1, 1, 2] and plan.stage_bound == 3     # 5 GiB alone, then 2 + 1 GiB


def test_reorders_come_last_and_move_no_data():
    previous = [np.array([[1, 2], [2, 3], [3, 1]])]
    placed = [np.array([[2, 1], [2, 4], [3, 1]])]
    plan = plan_stages(previous, placed, [np.array([7, 9, 11])], throttle=1)
    assert plan.stage.tolist() == [1, 0] and plan.reorder_only.tolist() == [True, False]
    assert [s.bytes for s in plan.stages] == [9, 0] and plan.estimated_seconds == 9
    assert plan.stages[1].reorder_only and plan.data_stages == 1


@pytest.mark.parametrize("name, value", [("max_moves_per_broker", 0), ("max_bytes_per_stage", -1),
                                         ("throttle", 1.5), ("max_moves_per_broker", True)])
def test_bad_caps_are_named(name, value):
    with pytest.raises(InvalidInputError, match=f"{name} must be a positive integer, got {value!r}"):
        plan_stages([np.array([[1]])], [np.array([[2]])], **{name: value})


@examples(15)
@given(st.integers(0, 10_000), st.sampled_from(CLUSTER_CHANGES), st.integers(1, 8),
       st.sampled_from([None, GiB, 20 * GiB]), st.booleans())
def test_random_plans_keep_the_caps(seed, change, cap, max_bytes, sized):
    cluster = random_replica_cluster(seed, brokers=(3, 12), topics=(1, 25))
    brokers = change_cluster(cluster.brokers, change, seed)
    factors = np.minimum(cluster.replication_factors, len(brokers))
    previous = [place_replicas(cluster.brokers, int(c), int(rf), seed=i).broker_ids
                for i, (c, rf) in enumerate(zip(cluster.partitions, cluster.replication_factors))]
    placed = [b.broker_ids for b in place_sticky_cluster(brokers, cluster.partitions, factors, previous, None,
                                                         cluster.names).blocks]
    rng = np.random.default_rng(seed)
    sizes = [rng.integers(0, 4 * GiB, len(p)) for p in placed] if sized else None
    plan = plan_stages(previous, placed, sizes, max_moves_per_broker=cap, max_bytes_per_stage=max_bytes,
                       throttle=50 << 20)
    check(plan, previous, placed, sizes)
