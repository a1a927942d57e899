"""Property-based tests of Kafka's guarantees, for every strategy.

Random groups (:mod:`.strategies`): 1-50 members and 1-30 topics of 0-40
partitions with realistic, non-ASCII and long names, random subscriptions
(some to topics missing from the metadata), and random previous ownership
including stale generations and partitions claimed twice.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import Member, assign, strategy_names
from spark_assign.core.consumer.checks import balance_violations, stickiness_violations, validity_errors
from spark_assign.core.consumer.context import Context
from spark_assign.core.consumer.encode import encode
from spark_assign.core.consumer.model import GroupInput

from .strategies import groups

SETTINGS = examples(80)
CLIENT = ["range", "roundrobin", "sticky", "cooperative-sticky"]


def valid_claim_owner(members, topics):
    """Kafka's reading of the claims: the member whose claim stands, per partition."""
    ctx = Context(encode(GroupInput.from_members(members, topics)))
    owner, _ = ctx.claims
    return ctx, owner


@SETTINGS
@given(groups(), st.sampled_from(CLIENT))
def test_every_strategy_is_valid(group, strategy):
    members, topics = group
    result = assign(members, topics, strategy)
    assert validity_errors(result, allow_withheld=strategy == "cooperative-sticky") == []
    assert set(result.assignment) == {m.member_id for m in members}


@SETTINGS
@given(groups())
def test_sticky_is_balanced_and_sticky(group):
    """Cooperative's target is the same (see test_cooperative_is_sticky_with_transfers_withheld)."""
    members, topics = group
    result = assign(members, topics, "sticky")
    assert balance_violations(result) == []
    assert stickiness_violations(result) == []


@SETTINGS
@given(groups())
def test_range_balances_each_topic(group):
    members, topics = group
    result = assign(members, topics, "range")
    g = result.group
    sub = g.subscription_matrix()
    for t in range(g.num_topics):
        n = int(g.topic_counts[t])
        subscribers = np.flatnonzero(sub[:, t])
        if n == 0 or len(subscribers) == 0:
            continue
        owners = result.owner[g.topic_offsets[t]:g.topic_offsets[t + 1]]
        got = np.bincount(owners, minlength=g.num_members)[subscribers]
        assert got.max() - got.min() <= 1


@SETTINGS
@given(groups())
def test_roundrobin_is_balanced_for_identical_subscriptions(group):
    members, topics = group
    same = [Member(m.member_id, topics=members[0].topics, instance_id=m.instance_id) for m in members]
    counts = assign(same, topics, "roundrobin").counts()
    assert counts.max() - counts.min() <= 1


@SETTINGS
@given(groups())
def test_cooperative_is_sticky_with_transfers_withheld(group):
    """Cooperative gives the sticky target, minus the partitions changing hands, and never
    hands a validly owned partition to someone else in the same round."""
    members, topics = group
    eager = assign(members, topics, "sticky")
    coop = assign(members, topics, "cooperative-sticky")
    withheld = coop.owner < 0
    assert np.array_equal(coop.owner[~withheld], eager.owner[~withheld])
    _, claimed = valid_claim_owner(members, topics)
    moved_now = (coop.owner >= 0) & (claimed >= 0) & (coop.owner != claimed)
    assert not moved_now.any()


@SETTINGS
@given(groups())
def test_cooperative_converges_within_four_follow_ups(group):
    members, topics = group
    result = assign(members, topics, "cooperative-sticky")
    generation = 10
    for _ in range(4):
        if (result.owner >= 0).all():
            break
        members = [Member(m.member_id, topics=m.topics, owned=result.assignment[m.member_id],
                          generation=generation, instance_id=m.instance_id) for m in members]
        generation += 1
        result = assign(members, topics, "cooperative-sticky")
    assert (result.owner >= 0).all()
    assert balance_violations(result) == []


@SETTINGS
@given(groups(), st.sampled_from(CLIENT), st.integers(0, 2**32 - 1))
def test_row_order_never_changes_the_output(group, strategy, seed):
    members, topics = group
    rng = random.Random(seed)
    shuffled = []
    for m in rng.sample(members, len(members)):
        shuffled.append(Member(m.member_id, topics=rng.sample(list(m.topics), len(m.topics)),
                               owned=rng.sample(list(m.owned), len(m.owned)), generation=m.generation,
                               instance_id=m.instance_id))
    topics2 = dict(rng.sample(list(topics.items()), len(topics)))
    a = assign(members, topics, strategy)
    b = assign(shuffled, topics2, strategy)
    assert a.assignment == b.assignment
    assert a.revoked == b.revoked
    assert list(a.status) == list(b.status)


def test_all_strategies_are_covered():
    assert set(CLIENT) <= set(strategy_names())
