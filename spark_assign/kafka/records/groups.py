"""A group's latest records, turned into rows: the group, its members' subscriptions, its assignment.

Two kinds of consumer group live in ``__consumer_offsets``:

* a *classic* group is one ``GroupMetadata`` record: the generation, the protocol (the strategy its
  leader ran) and every member, with the bytes the member sent when it joined (a
  ``ConsumerProtocolSubscription``) and the bytes its leader gave it (a
  ``ConsumerProtocolAssignment``);
* a KIP-848 *consumer* group is spread over records of types 3-8: the group's epoch, the topics it
  uses (ids and names), one metadata record per member (its subscription), and per member the
  target and the current assignment, by topic id.

Claims are read as Kafka's client assignors read them (``AbstractStickyAssignor.memberData`` and
its overrides): a ``sticky`` group's members carry their previous partitions and generation in the
assignor's user data; every other protocol uses the subscription's ``OwnedPartitions`` (version 1+)
and ``GenerationId`` (version 2+). A ``cooperative-sticky`` member with an older subscription
carries its generation in its user data.

Each builder raises :class:`~spark_assign.errors.RecordFormatError` when the group cannot be read
whole; the caller then leaves the group out and reports it.
"""

from __future__ import annotations

import struct
from collections import Counter
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple

from ...core.java.util import hashmap_order, java_string_hash
from ...errors import RecordFormatError
from .decode import decode_assignment, decode_subscription, decode_sticky_user_data

__all__ = ["GroupRows", "classic_group", "consumer_group", "CONSUMER_DEFAULT_ASSIGNOR"]

#: The broker's default server-side assignor (the first of ``group.consumer.assignors``), the
#: strategy of a KIP-848 group whose members name none.
CONSUMER_DEFAULT_ASSIGNOR = "uniform"

GroupRow = Tuple[str, str, str, Optional[str], int, Optional[str], int]
SubscriptionRow = Tuple[str, str, str, Optional[str], Optional[str], Optional[List[int]], Optional[int]]
AssignmentRow = Tuple[str, int, str, str, int]


class GroupRows(NamedTuple):
    """One group's rows in the three frames' column orders (``spark_assign.schema``)."""

    group: GroupRow
    subscriptions: List[SubscriptionRow]
    assignment: List[AssignmentRow]


def _unique(items: Iterable[str]) -> List[str]:
    return list(dict.fromkeys(items))


def _by_topic(pairs: Iterable[Tuple[str, int]]) -> Dict[str, List[int]]:
    out: Dict[str, List[int]] = {}
    for topic, partition in pairs:
        out.setdefault(topic, []).append(partition)
    return out


def _generation(value: Optional[int]) -> Optional[int]:
    return None if value is None or value < 0 else value


def _claims(protocol: Optional[str], sub: Dict[str, Any]) -> Tuple[Optional[Dict[str, List[int]]], Optional[int]]:
    """A classic member's claims (topic -> partitions; None: its subscription cannot say) and generation."""
    if protocol == "sticky":
        claimed, generation = decode_sticky_user_data(sub.get("UserData"))
        return _by_topic(claimed), _generation(generation)
    owned = None
    if "OwnedPartitions" in sub:
        owned = _by_topic((tp["Topic"], p) for tp in sub["OwnedPartitions"] for p in tp["Partitions"])
    generation = _generation(sub.get("GenerationId"))
    user_data = sub.get("UserData")
    if protocol == "cooperative-sticky" and generation is None and user_data is not None and len(user_data) >= 4:
        generation = _generation(struct.unpack(">i", user_data[:4])[0])
    return owned, generation


def classic_group(group_id: str, value: Dict[str, Any]) -> GroupRows:
    """A classic group's rows from its latest ``GroupMetadataValue`` (decoded).

    Only a group of protocol type ``consumer`` has subscriptions and an assignment: other types
    (Kafka Connect's ``connect``, say) embed bytes of their own protocol, and have a group row only.

    Example
    -------
    >>> rows = classic_group("g", {"protocolType": "consumer", "generation": 3, "protocol": None,
    ...                            "leader": None, "members": []})
    >>> rows.group
    ('g', 'classic', 'consumer', None, 3, None, 0)
    """
    protocol = value["protocol"]
    generation = value["generation"]
    members = value["members"]
    group: GroupRow = (group_id, "classic", value["protocolType"], protocol, generation, value["leader"], len(members))
    subscriptions: List[SubscriptionRow] = []
    assignment: List[AssignmentRow] = []
    if value["protocolType"] != "consumer":
        return GroupRows(group, subscriptions, assignment)
    for member in members:
        member_id = member["memberId"]
        try:
            sub = decode_subscription(member["subscription"])
            given = decode_assignment(member["assignment"]) if member["assignment"] else None
        except RecordFormatError as e:
            raise RecordFormatError(f"member {member_id!r}: {e}") from None
        owned, member_generation = _claims(protocol, sub)
        rack = sub.get("RackId") or None
        for topic in _unique(sub["Topics"]):
            claim = None if owned is None else sorted(owned.get(topic, []))
            subscriptions.append((group_id, member_id, topic, member.get("groupInstanceId"), rack, claim,
                                  member_generation))
        for tp in (given or {}).get("AssignedPartitions", []):
            assignment.extend((group_id, generation, member_id, tp["Topic"], p) for p in tp["Partitions"])
    return GroupRows(group, subscriptions, assignment)


def preferred_assignor(assignors: List[Optional[str]]) -> str:
    """The server assignor a KIP-848 group uses: the one most members name, ties broken as
    Kafka's ``ConsumerGroup.computePreferredServerAssignor`` breaks them (the first maximum in its
    ``HashMap``'s iteration order); the broker's default when no member names one."""
    counts = Counter(a for a in assignors if a is not None)
    if not counts:
        return CONSUMER_DEFAULT_ASSIGNOR
    names = list(counts)
    order = [names[i] for i in hashmap_order([java_string_hash(n) for n in names])]
    return max(order, key=counts.__getitem__)          # Python's max keeps the first maximum, as Java's does


class ConsumerGroupRecords(NamedTuple):
    """A KIP-848 group's latest record values by type (tombstoned ones absent)."""

    epoch: int
    topics: Dict[str, str]                       # topic id -> name (partition metadata, else the caller's)
    members: Dict[str, Dict[str, Any]]           # member id -> ConsumerGroupMemberMetadataValue
    current: Dict[str, Dict[str, Any]]           # member id -> ConsumerGroupCurrentMemberAssignmentValue
    regexes: Dict[str, List[str]]                # regular expression -> the topics it resolved to


def _names(group: ConsumerGroupRecords, member_id: str, field: str) -> List[Tuple[str, int]]:
    value = group.current.get(member_id)
    pairs: List[Tuple[str, int]] = []
    for tp in (value or {}).get(field, []):
        name = group.topics.get(tp["TopicId"])
        if name is None:
            raise RecordFormatError(f"member {member_id!r}: topic id {tp['TopicId']} is in no partition "
                                    f"metadata record of the group (Kafka 4.1+ writes none: give the "
                                    f"topics' ids, topic_ids=)")
        pairs.extend((name, p) for p in tp["Partitions"])
    return pairs


def consumer_group(group_id: str, group: ConsumerGroupRecords) -> GroupRows:
    """A KIP-848 group's rows: members from their metadata records (their topics: those named, and
    those their regular expression resolved to), claims and assignment from their
    current-assignment records (a member holds its assigned partitions and those pending
    revocation), topic ids resolved through the group's partition metadata."""
    subscriptions: List[SubscriptionRow] = []
    assignment: List[AssignmentRow] = []
    for member_id, meta in group.members.items():
        assigned = _names(group, member_id, "AssignedPartitions")
        held = _by_topic(assigned + _names(group, member_id, "PartitionsPendingRevocation"))
        current = group.current.get(member_id)
        epoch = None if current is None else current["MemberEpoch"]
        regex = meta["SubscribedTopicRegex"]
        for topic in _unique(meta["SubscribedTopicNames"] + (group.regexes.get(regex, []) if regex else [])):
            subscriptions.append((group_id, member_id, topic, meta["InstanceId"], meta["RackId"] or None,
                                  sorted(held.get(topic, [])), epoch))
        if epoch is not None:
            assignment.extend((group_id, epoch, member_id, t, p) for t, p in assigned)
    strategy = preferred_assignor([m["ServerAssignor"] for m in group.members.values()])
    row: GroupRow = (group_id, "consumer", "consumer", strategy, group.epoch, None, len(group.members))
    return GroupRows(row, subscriptions, assignment)
