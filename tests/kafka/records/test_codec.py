"""Kafka's group records: every message at every version round-trips through the encoder and the
decoder, and records that are not Kafka's are refused with the reason, not half-read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_assign.errors import RecordFormatError
from spark_assign.kafka.records import decode_key, decode_sticky_user_data, decode_subscription, decode_value, \
    encode_key, encode_sticky_user_data, encode_subscription, encode_value
from spark_assign.kafka.records.decode import read_message
from spark_assign.kafka.records.encode import write_message
from spark_assign.kafka.records.schemas import ASSIGNMENT, KEYS, SUBSCRIPTION, VALUES
from spark_assign.kafka.records.wire import Reader

from .strategies import TEXT, as_decoded, message_values

VERSIONED = [(t, v) for t, m in VALUES.items() for v in range(m.low, m.high + 1)]


@pytest.mark.parametrize("record_type,version", VERSIONED, ids=[f"type{t}-v{v}" for t, v in VERSIONED])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_value_version_round_trips(record_type, version, data):
    message = VALUES[record_type]
    value = data.draw(message_values(message, version))
    raw = encode_value(record_type, value, version)
    assert decode_value(record_type, raw) == (version, as_decoded(message, version, value))


@pytest.mark.parametrize("message", [SUBSCRIPTION, ASSIGNMENT], ids=["subscription", "assignment"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_embedded_messages_round_trip(message, data):
    version = data.draw(st.integers(message.low, message.high))
    value = data.draw(message_values(message, version))
    assert read_message(Reader(write_message(message, value, version)), message, version) == \
        as_decoded(message, version, value)


@settings(max_examples=50, deadline=None)
@given(record_type=st.sampled_from(sorted(KEYS)), group=TEXT, member=TEXT, topic=TEXT,
       partition=st.integers(0, 2 ** 31 - 1))
def test_every_key_round_trips(record_type, group, member, topic, partition):
    names = [f.name for f in KEYS[record_type].fields]
    given_fields = {"group": group, "GroupId": group, "MemberId": member, "topic": topic, "partition": partition,
                    "RegularExpression": topic}
    fields = {n: given_fields[n] for n in names}
    key = decode_key(encode_key(record_type, **fields))
    assert (key.record_type, key.group_id, key.fields) == (record_type, group, fields)


def test_a_newer_subscription_is_read_as_version_3_as_kafkas_clients_do():
    value = {"Topics": ["t"], "UserData": None, "OwnedPartitions": [], "GenerationId": 4, "RackId": "r"}
    raw = bytearray(encode_subscription(value, 3) + b"\x00\x07 fields of version 9")
    raw[0:2] = (9).to_bytes(2, "big")
    assert decode_subscription(bytes(raw))["RackId"] == "r"


def test_a_newer_value_version_is_read_as_the_newest_known_as_kafkas_coordinator_does():
    value = {"protocolType": "consumer", "generation": 3, "protocol": None, "leader": None,
             "currentStateTimestamp": 9, "members": []}
    raw = bytearray(encode_value(2, value, 4))
    raw[0:2] = (5).to_bytes(2, "big")
    assert decode_value(2, bytes(raw)) == (5, value)


def test_sticky_user_data_both_forms_and_garbage():
    assert decode_sticky_user_data(encode_sticky_user_data({"t": [0, 2]}, 7)) == ([("t", 0), ("t", 2)], 7)
    assert decode_sticky_user_data(encode_sticky_user_data({"t": [1]}, None)) == ([("t", 1)], None)
    assert decode_sticky_user_data(None) == ([], None)
    assert decode_sticky_user_data(b"\x00\x00\x00\x05xx") == ([], -1)     # Kafka ignores it: no claim


@pytest.mark.parametrize("raw,reason", [
    (None, "without a key"),
    (b"\x00", "truncated key"),
    (b"\x00\x63abc", "unknown record type 99"),
    (b"\x00\x11\x00\x01g", "unknown record type 17"),
    (b"\x00\x02\x00\x05ab", "truncated key"),
    (b"\x00\x02\x00\x02\xff\xfe", "not UTF-8"),
])
def test_bad_keys_say_why(raw, reason):
    with pytest.raises(RecordFormatError, match=reason):
        decode_key(raw)


def test_share_group_keys_are_recognised_and_not_read():
    key = decode_key(b"\x00\x0b\x00\x01g")
    assert (key.record_type, key.group_id, key.fields) == (11, None, {})


@pytest.mark.parametrize("raw,reason", [
    (b"\xff\xff" + b"\x00" * 30, "unknown GroupMetadataValue version -1"),
    (encode_value(2, {"protocolType": "consumer", "generation": 1, "members": []}, 3)[:-3], "truncated"),
    (b"\x00\x00\xff\xff" + b"\x00" * 20, "protocolType is null"),
    (b"\x00\x04\x02c\x00\x00\x00\x01\x00\x00" + b"\x00" * 8 + b"\x7f", "claims 126 elements"),
])
def test_bad_values_say_why(raw, reason):
    with pytest.raises(RecordFormatError, match=reason):
        decode_value(2, raw)
