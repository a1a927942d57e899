"""``kafka-log-dirs --describe`` read back from what Kafka's own ``LogDirsCommand`` printed.

``tests/data/kafka_log_dirs_outputs.json`` (``tests/kafka_oracle/LogDirsOracle.java``): 40 outputs
of the tool's ``execute`` over seeded clusters, with each case's replicas and log directories in
error from the oracle's own model. Keys come in Java ``HashMap`` order, topics end in ``-digits``,
some copies are future ones (an intra-broker move) and some directories are in error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_assign.errors import ToolOutputError
from spark_assign.kafka import partition_sizes, read_log_dirs

CASES = json.loads((Path(__file__).parents[1] / "data" / "kafka_log_dirs_outputs.json").read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"case-{i}" for i in range(len(CASES))])
def test_kafkas_output_reads_as_the_oracle_wrote_it(case):
    dirs = read_log_dirs(case["output"], "log-dirs")
    got = sorted((r.broker, r.log_dir, r.topic, r.partition, r.size, r.offset_lag, r.is_future) for r in dirs.replicas)
    assert got == sorted((r["broker"], r["log_dir"], r["topic"], r["partition"], r["size"], r["offset_lag"],
                          r["is_future"]) for r in case["replicas"])
    assert sorted((e.broker, e.log_dir, e.error) for e in dirs.errors) == \
        sorted((e["broker"], e["log_dir"], e["error"]) for e in case["log_dir_errors"])
    sizes: dict = {}
    for r in case["replicas"]:
        if not r["is_future"]:
            key = (r["topic"], r["partition"])
            sizes[key] = max(sizes.get(key, 0), r["size"])
    assert partition_sizes(dirs) == sizes
    assert read_log_dirs(case["output"].splitlines()[-1], "json only") == dirs


def test_the_fixture_covers_what_users_meet():
    replicas = [r for c in CASES for r in c["replicas"]]
    assert any(r["is_future"] for r in replicas) and any(c["log_dir_errors"] for c in CASES)
    assert any(r["topic"].rsplit("-", 1)[-1].isdigit() for r in replicas)          # "metrics-2024-11-29"-like names
    assert any(not r["topic"].isascii() for r in replicas) and max(len(r["topic"]) for r in replicas) == 249


@pytest.mark.parametrize("text, message", [
    ("Querying brokers for log directories information\n", "no JSON found"),
    ('{"brokers": [], "version": 2}', "unknown version 2"),
    ('{"version": 1}', "a 'brokers' list"),
    ('{"brokers":[{"broker":1,"logDirs":[{"logDir":"/d","error":null,"partitions":[{"partition":"orders",'
     '"size":1,"offsetLag":0,"isFuture":false}]}]}],"version":1}', "partition 'orders' is not TOPIC-NUMBER"),
    ('{"brokers":[{"broker":1,"logDirs":[{"logDir":"/d","error":null,"partitions":[{"partition":"t-0",'
     '"size":"1","offsetLag":0,"isFuture":false}]}]}],"version":1}', "'size' must be int"),
    ('x\n{"brokers": [', "the JSON does not parse"),
])
def test_bad_output_is_named(text, message):
    with pytest.raises(ToolOutputError, match=message) as e:
        read_log_dirs(text, "dirs.txt")
    assert "dirs.txt" in str(e.value)
