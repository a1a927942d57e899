"""Hypothesis strategies for groups that look like users' data, built from draws so failures shrink.

Names mix ASCII, accented, CJK, Cyrillic and astral-plane (emoji) characters,
dotted and long ids, so every Java ordering rule is exercised (``String.compareTo``
by UTF-16 unit, ``String.hashCode`` buckets shared by several names). Groups have
up to 30 topics with up to 40 partitions (partition numbers past a ``HashSet``'s
16 buckets), subscribed topics missing from the metadata, static members,
previous ownership with stale generations and partitions claimed twice.

Clusters (:func:`clusters`) for replica placement: up to 60 brokers, small or
scattered ids, up to 8 racks with colliding and non-ASCII names, brokers
without a rack, fenced brokers.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from hypothesis import strategies as st

from spark_assign.core import Broker, Member

#: Name stems users have: plain, dotted, accented, CJK, Cyrillic, astral, and a long one.
STEMS = ["orders", "payments.v2", "événements", "主题", "заказы", "stream-😀", "t", "c",
         "consumer-" + "x" * 120, "a", "Z", "ß", "\uffff"]


@st.composite
def names(draw, count: int, min_count: int = 1) -> List[str]:
    """``count`` distinct realistic ids (at least ``min_count`` of them)."""
    n = draw(st.integers(min_count, count))
    stems = draw(st.lists(st.sampled_from(STEMS), min_size=n, max_size=n))
    suffixes = draw(st.lists(st.integers(0, 99), min_size=n, max_size=n))
    out: List[str] = []
    for stem, k in zip(stems, suffixes):
        name = f"{stem}{k}"
        while name in out:
            name += "_"
        out.append(name)
    return out


@st.composite
def groups(draw, max_members: int = 50, max_topics: int = 30) -> Tuple[List[Member], Dict[str, int]]:
    """A group with random subscriptions, some subscribed topics missing from the metadata,
    and messy previous ownership."""
    topic_names = draw(names(max_topics))
    missing = set(draw(st.lists(st.sampled_from(topic_names), max_size=3)))
    topics = {t: draw(st.integers(0, 40)) for t in topic_names if t not in missing or len(missing) == len(topic_names)}
    member_ids = draw(names(max_members))
    uniform = draw(st.booleans())
    shared = draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
    partitions = [(t, p) for t, n in topics.items() for p in range(n)]
    generation = draw(st.integers(1, 5))
    members = []
    for m in member_ids:
        subs = shared if uniform else draw(st.lists(st.sampled_from(topic_names), unique=True))
        owned = draw(st.lists(st.sampled_from(partitions), unique=True, max_size=12)) if partitions else []
        gen = draw(st.sampled_from([generation, generation, generation - 1, None]))
        static = f"s-{m}" if draw(st.integers(0, 4)) == 0 else None
        members.append(Member(m, topics=subs, owned=owned, generation=gen if owned else None, instance_id=static))
    return members, topics


#: Rack names: plain, zone-like, String.hashCode twins ("Aa", "BB"), non-ASCII and astral.
RACK_NAMES = ["r1", "us-east-1a", "Aa", "BB", "zone-é", "主", "rack-😀", "\uffff"]


@st.composite
def clusters(draw, max_brokers: int = 60, max_racks: int = 8, rackless: bool = True, fenced: bool = False,
             even_racks: bool = False) -> List[Broker]:
    """1-``max_brokers`` brokers with distinct ids (0..n-1, or scattered up to 5000 so Java's
    ``HashMap`` buckets collide) on 0-``max_racks`` racks. ``rackless``: some brokers may lack a
    rack; ``fenced``: some may be fenced; ``even_racks``: racks dealt in turn, all the same size."""
    n = draw(st.integers(1, max_brokers))
    if draw(st.booleans()):
        ids = list(range(n))
    else:
        ids = draw(st.lists(st.integers(0, 5000), min_size=n, max_size=n, unique=True))
    count = draw(st.integers(0, max_racks))
    if even_racks and count:
        count = max(c for c in range(1, count + 1) if n % c == 0)
    racks = RACK_NAMES[:count]
    brokers = []
    for i, broker in enumerate(ids):
        if not racks:
            rack = None
        elif even_racks:
            rack = racks[i % len(racks)]
        else:
            rack = draw(st.sampled_from(racks + [None] if rackless else racks))
        brokers.append(Broker(broker, rack=rack, fenced=fenced and draw(st.integers(0, 4)) == 0))
    return brokers
