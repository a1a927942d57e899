"""The messages Kafka's group coordinator stores in ``__consumer_offsets``, field by field.

These are facts from Kafka's message definitions (``group-coordinator/src/main/resources/common/
message/*.json`` and the clients' ``ConsumerProtocolSubscription``/``ConsumerProtocolAssignment``),
restated as data for :mod:`.decode`. Field names are Kafka's, so a decoded record reads like the
JSON Kafka's own converters print.

A record's key starts with an ``int16`` *record type* (the key's version, KIP-848's numbering);
its value with an ``int16`` value version. Types and the value versions this module reads:

==== ===================================== ==============
type record                                value versions
==== ===================================== ==============
0, 1 ``OffsetCommit`` (a committed offset)  0-4 (flexible 4+)
2    ``GroupMetadata`` (a classic group)     0-4 (flexible 4+)
3    ``ConsumerGroupMetadata``               0 (flexible)
4    ``ConsumerGroupPartitionMetadata``      0 (flexible)
5    ``ConsumerGroupMemberMetadata``         0 (flexible)
6    ``ConsumerGroupTargetAssignmentMetadata`` 0 (flexible)
7    ``ConsumerGroupTargetAssignmentMember`` 0 (flexible)
8    ``ConsumerGroupCurrentMemberAssignment`` 0 (flexible)
9-15 share groups (KIP-932)                not read: another kind of group
16   ``ConsumerGroupRegularExpression``      0 (flexible): the topics a member's regex resolved to
==== ===================================== ==============

Kafka 4.1 (KIP-1101) stopped writing ``ConsumerGroupPartitionMetadata``: a newer group's topic ids
are then resolved with the ids the caller gives (``kafka-topics --describe`` prints them).
"""

from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple

__all__ = ["Field", "Message", "KEYS", "VALUES", "SHARE_GROUP_TYPES", "SUBSCRIPTION", "ASSIGNMENT",
           "STICKY_USER_DATA", "OFFSET_COMMIT_TYPES", "GROUP_METADATA", "CONSUMER_GROUP_TYPES"]


class Field(NamedTuple):
    """One field: Kafka's name and type, the versions that have it, the first nullable version,
    its tag if it is a tagged field, and its own fields if it is a struct or an array of them."""

    name: str
    type: str                       # int8 int16 int32 int64 string bytes uuid []int32 []string [] struct
    since: int = 0
    until: Optional[int] = None
    nullable_since: Optional[int] = None
    tag: Optional[int] = None
    fields: Tuple["Field", ...] = ()
    default: object = None

    def in_version(self, version: int) -> bool:
        return self.since <= version and (self.until is None or version <= self.until)

    def nullable(self, version: int) -> bool:
        return self.nullable_since is not None and version >= self.nullable_since


class Message(NamedTuple):
    """A message: its name, the versions Kafka has written, the first flexible one (KIP-482)."""

    name: str
    low: int
    high: int
    flexible_since: Optional[int]
    fields: Tuple[Field, ...]

    def flexible(self, version: int) -> bool:
        return self.flexible_since is not None and version >= self.flexible_since


def _key(name: str, record_type: int, *fields: str) -> Message:
    return Message(name, record_type, record_type, None,
                   tuple(Field(f, "int32" if f == "partition" else "string", record_type) for f in fields))


_TOPIC_PARTITIONS = (Field("TopicId", "uuid"), Field("Partitions", "[]int32"))

#: Keys by record type. The two offset-commit types share a layout.
KEYS: Dict[int, Message] = {
    0: _key("OffsetCommitKey", 0, "group", "topic", "partition"),
    1: _key("OffsetCommitKey", 1, "group", "topic", "partition"),
    2: _key("GroupMetadataKey", 2, "group"),
    3: _key("ConsumerGroupMetadataKey", 3, "GroupId"),
    4: _key("ConsumerGroupPartitionMetadataKey", 4, "GroupId"),
    5: _key("ConsumerGroupMemberMetadataKey", 5, "GroupId", "MemberId"),
    6: _key("ConsumerGroupTargetAssignmentMetadataKey", 6, "GroupId"),
    7: _key("ConsumerGroupTargetAssignmentMemberKey", 7, "GroupId", "MemberId"),
    8: _key("ConsumerGroupCurrentMemberAssignmentKey", 8, "GroupId", "MemberId"),
    16: _key("ConsumerGroupRegularExpressionKey", 16, "GroupId", "RegularExpression"),
}
OFFSET_COMMIT_TYPES = (0, 1)
GROUP_METADATA = 2
CONSUMER_GROUP_TYPES = (3, 4, 5, 6, 7, 8, 16)
#: KIP-932's share groups: records of another kind of group, known and left alone.
SHARE_GROUP_TYPES = frozenset(range(9, 16))

_OFFSET_COMMIT_VALUE = Message("OffsetCommitValue", 0, 4, 4, (
    Field("offset", "int64"),
    Field("leaderEpoch", "int32", since=3, default=-1),
    Field("metadata", "string"),
    Field("commitTimestamp", "int64"),
    Field("expireTimestamp", "int64", since=1, until=1, default=-1),
))

_MEMBER_METADATA = (
    Field("memberId", "string"),
    Field("groupInstanceId", "string", since=3, nullable_since=3),
    Field("clientId", "string"),
    Field("clientHost", "string"),
    Field("rebalanceTimeout", "int32", since=1, default=-1),
    Field("sessionTimeout", "int32"),
    Field("subscription", "bytes"),
    Field("assignment", "bytes"),
)

_CLASSIC_MEMBER_METADATA = (
    Field("SessionTimeoutMs", "int32"),
    Field("SupportedProtocols", "[]", fields=(Field("Name", "string"), Field("Metadata", "bytes"))),
)

#: Values by record type.
VALUES: Dict[int, Message] = {
    0: _OFFSET_COMMIT_VALUE,
    1: _OFFSET_COMMIT_VALUE,
    2: Message("GroupMetadataValue", 0, 4, 4, (
        Field("protocolType", "string"),
        Field("generation", "int32"),
        Field("protocol", "string", nullable_since=0),
        Field("leader", "string", nullable_since=0),
        Field("currentStateTimestamp", "int64", since=2, default=-1),
        Field("members", "[]", fields=_MEMBER_METADATA),
    )),
    3: Message("ConsumerGroupMetadataValue", 0, 0, 0, (Field("Epoch", "int32"),)),
    4: Message("ConsumerGroupPartitionMetadataValue", 0, 0, 0, (
        Field("Topics", "[]", fields=(
            Field("TopicId", "uuid"),
            Field("TopicName", "string"),
            Field("NumPartitions", "int32"),
            Field("PartitionMetadata", "[]", fields=(Field("Partition", "int32"), Field("Racks", "[]string"))),
        )),
    )),
    5: Message("ConsumerGroupMemberMetadataValue", 0, 0, 0, (
        Field("InstanceId", "string", nullable_since=0),
        Field("RackId", "string", nullable_since=0),
        Field("ClientId", "string"),
        Field("ClientHost", "string"),
        Field("SubscribedTopicNames", "[]string"),
        Field("SubscribedTopicRegex", "string", nullable_since=0),
        Field("RebalanceTimeoutMs", "int32", default=-1),
        Field("ServerAssignor", "string", nullable_since=0),
        Field("ClassicMemberMetadata", "struct", nullable_since=0, tag=0, fields=_CLASSIC_MEMBER_METADATA),
    )),
    6: Message("ConsumerGroupTargetAssignmentMetadataValue", 0, 0, 0, (Field("AssignmentEpoch", "int32"),)),
    7: Message("ConsumerGroupTargetAssignmentMemberValue", 0, 0, 0, (
        Field("TopicPartitions", "[]", fields=_TOPIC_PARTITIONS),
    )),
    8: Message("ConsumerGroupCurrentMemberAssignmentValue", 0, 0, 0, (
        Field("MemberEpoch", "int32"),
        Field("PreviousMemberEpoch", "int32"),
        Field("State", "int8"),
        Field("AssignedPartitions", "[]", fields=_TOPIC_PARTITIONS),
        Field("PartitionsPendingRevocation", "[]", fields=_TOPIC_PARTITIONS),
    )),
    16: Message("ConsumerGroupRegularExpressionValue", 0, 0, 0, (
        Field("Topics", "[]string"),
        Field("Version", "int64"),
        Field("Timestamp", "int64"),
    )),
}

_TOPIC_PARTITION = (Field("Topic", "string"), Field("Partitions", "[]int32"))

#: What a classic consumer sends when it joins (``ConsumerProtocol``), inside a member's
#: ``subscription`` bytes. A newer version than 3 is read as 3, as Kafka's clients do.
SUBSCRIPTION = Message("ConsumerProtocolSubscription", 0, 3, None, (
    Field("Topics", "[]string"),
    Field("UserData", "bytes", nullable_since=0),
    Field("OwnedPartitions", "[]", since=1, fields=_TOPIC_PARTITION),
    Field("GenerationId", "int32", since=2, default=-1),
    Field("RackId", "string", since=3, nullable_since=3),
))
#: What the leader gave a classic consumer, inside its ``assignment`` bytes.
ASSIGNMENT = Message("ConsumerProtocolAssignment", 0, 3, None, (
    Field("AssignedPartitions", "[]", fields=_TOPIC_PARTITION),
    Field("UserData", "bytes", nullable_since=0),
))
#: ``StickyAssignor``'s user data (no version prefix): the member's previous assignment and, in
#: the second form, its generation. Kafka tries the form with the generation first.
STICKY_USER_DATA = Message("StickyAssignorUserData", 0, 1, None, (
    Field("previous_assignment", "[]", fields=(Field("topic", "string"), Field("partitions", "[]int32"))),
    Field("generation", "int32", since=1),
))
