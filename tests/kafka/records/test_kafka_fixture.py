"""Against Kafka's own bytes: ``tests/data/kafka_consumer_offsets_records.json``, records written by
Kafka's serializers (``tests/kafka_oracle/RecordsOracle.java``), every record type and version.

* each key and value decodes to what Kafka's own JSON converter printed for it;
* each clean value encodes back to Kafka's bytes, byte for byte;
* each embedded subscription, assignment and sticky user data decodes as Kafka's reader did;
* the records, replayed partition by partition, give the expected frames (computed by the Java
  program from what it wrote), and exactly the broken records are problems.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from spark_assign.errors import RecordFormatError
from spark_assign.kafka.records import Frames, decode_assignment, decode_key, decode_sticky_user_data, \
    decode_subscription, decode_value, encode_value, replay_partition

FIXTURE = json.loads((Path(__file__).parents[2] / "data" / "kafka_consumer_offsets_records.json").read_text("utf-8"))
RECORDS = FIXTURE["records"]


def _raw(text):
    return None if text is None else base64.b64decode(text)


def as_kafka_json(value):
    """A decoded value as Kafka's JSON converters print it: camelCase names, bytes in base64."""
    if isinstance(value, dict):
        return {k[0].lower() + k[1:]: as_kafka_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_kafka_json(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


def _printed(ours, kafka):
    """``ours`` restricted to the fields Kafka printed (it leaves out fields its version lacks)."""
    if isinstance(kafka, dict):
        assert set(kafka) <= set(ours), sorted(set(kafka) - set(ours))
        return {k: _printed(ours[k], kafka[k]) for k in kafka}
    if isinstance(kafka, list):
        return [_printed(o, k) for o, k in zip(ours, kafka)] + ours[len(kafka):]
    return ours


CLEAN = [r for r in RECORDS if r["problem"] is None and r["type"] is not None]


def test_the_fixture_covers_every_record_type_and_version():
    seen = Counter((r["key_version"], r["value_version"]) for r in CLEAN if r["value"] is not None)
    for key_version, versions in {0: range(5), 1: range(5), 2: range(6), 3: [0], 4: [0], 5: [0], 6: [0], 7: [0],
                                  8: [0]}.items():
        for v in versions:
            assert seen[(key_version, v)] > 0, (key_version, v)
    assert sum(1 for r in CLEAN if r["value"] is None) > 50         # tombstones
    assert {"subscription", "assignment", "sticky_user_data"} <= {e["kind"] for e in FIXTURE["embedded"]}


@pytest.mark.parametrize("record", CLEAN, ids=lambda r: f"{r['type']}-k{r['key_version']}-v{r['value_version']}")
def test_each_record_decodes_as_kafka_printed_it(record):
    key = decode_key(_raw(record["key"]))
    if key.record_type >= 9:                       # a share group's record: recognised, not read
        return
    assert as_kafka_json(key.fields) == record["kafka_key"]
    if record["value"] is None:
        return
    version, value = decode_value(key.record_type, _raw(record["value"]))
    assert version == record["value_version"]
    assert _printed(as_kafka_json(value), record["kafka_value"]) == record["kafka_value"]


@pytest.mark.parametrize("record", [r for r in CLEAN if r["value"] is not None and r["key_version"] < 9
                                    and r["value_version"] <= 4],
                         ids=lambda r: f"{r['type']}-v{r['value_version']}")
def test_each_value_encodes_back_to_kafkas_bytes(record):
    raw = _raw(record["value"])
    version, value = decode_value(record["key_version"], raw)
    assert encode_value(record["key_version"], value, version) == raw


@pytest.mark.parametrize("entry", FIXTURE["embedded"], ids=lambda e: f"{e['kind']}-v{e['version']}")
def test_embedded_bytes_decode_as_kafkas_reader_did(entry):
    raw = _raw(entry["bytes"])
    if entry["kind"] == "sticky_user_data":
        claims, generation = decode_sticky_user_data(raw)
        expected = [(t["topic"], p) for t in entry["kafka"]["partitions"] for p in t["partitions"]]
        assert (sorted(claims), generation) == (sorted(expected), entry["kafka"]["generation"])
        return
    decoded = decode_subscription(raw) if entry["kind"] == "subscription" else decode_assignment(raw)
    assert _printed(as_kafka_json(decoded), entry["kafka"]) == entry["kafka"]


def test_broken_records_are_refused():
    for record in RECORDS:
        if record["problem"] is None or record["problem"].startswith(("garbage subscription", "unknown topic id")):
            continue                              # bytes Kafka reads; the group is what cannot be built
        with pytest.raises(RecordFormatError):
            key = decode_key(_raw(record["key"]))
            decode_value(key.record_type, _raw(record["value"]))


def _replayed():
    out = {name: [] for name in Frames._fields}
    for part in sorted({r["partition"] for r in RECORDS}):
        rows = sorted((r for r in RECORDS if r["partition"] == part), key=lambda r: r["offset"])
        frames = replay_partition(part, pa.array([_raw(r["key"]) for r in rows], pa.binary()),
                                  pa.array([_raw(r["value"]) for r in rows], pa.binary()),
                                  np.array([r["offset"] for r in rows]))
        for name, table in zip(Frames._fields, frames):
            out[name] += table.to_pylist()
    return out


def _rows(rows):
    return sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows)


@pytest.mark.parametrize("frame", ["groups", "subscriptions", "assignment", "offsets"])
def test_the_replayed_frames_are_kafkas_state(frame):
    assert _rows(REPLAYED[frame]) == _rows(FIXTURE["expected"][frame])


def test_exactly_the_broken_groups_are_left_out_and_reported():
    expected = set(FIXTURE["expected"]["problem_groups"])
    reported = {p["group_id"] for p in REPLAYED["problems"]}
    assert expected <= reported | {None}
    assert not expected & {g["group_id"] for g in REPLAYED["groups"]}
    flagged = sum(1 for r in RECORDS if r["problem"] is not None)
    assert 0 < len(REPLAYED["problems"]) <= flagged


REPLAYED = _replayed()
