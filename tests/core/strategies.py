"""Hypothesis strategies for groups that look like users' data, built from draws so failures shrink.

Names mix ASCII, accented, CJK, Cyrillic and astral-plane (emoji) characters,
dotted and long ids, so every Java ordering rule is exercised (``String.compareTo``
by UTF-16 unit, ``String.hashCode`` buckets shared by several names). Groups have
up to 30 topics with up to 40 partitions (partition numbers past a ``HashSet``'s
16 buckets), subscribed topics missing from the metadata, static members,
previous ownership with stale generations and partitions claimed twice.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from hypothesis import strategies as st

from spark_assign.core import Member

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
