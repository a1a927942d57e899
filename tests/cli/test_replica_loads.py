"""``spark-assign replicas place`` balancing loads: ``--balance-sizes`` (``kafka-log-dirs`` output) and ``--loads``.

A cluster whose every topic put its large partition on the same two brokers (``admin-utils`` from a
fixed start, as a script placing topics one by one leaves it): the reassignment with the sizes as
the disk load evens the brokers' disk, the table shows each broker's bytes, and the options are
checked before Spark starts.
"""

from __future__ import annotations

import pytest

from spark_assign.core import Broker, place_replicas
from spark_assign.kafka.reassignment import parse_reassignment

from .kafka_files import write_kafka_files

GiB = 1 << 30


def skewed_files(tmp_path, topics: int = 12):
    """A current assignment on brokers 1-4 whose partition 0 of every topic (40 GiB; the others 1 GiB)
    sits on brokers 1 and 2, the kafka-log-dirs output for it, and the sizes by partition."""
    placement, sizes = {}, {}
    brokers = [Broker(b) for b in (1, 2, 3, 4)]
    for t in range(topics):
        for p, replicas in enumerate(place_replicas(brokers, 4, 2, method="admin-utils", start_index=0).replicas):
            placement[(f"events-{t}", p)] = replicas
            sizes[(f"events-{t}", p)] = GiB * (40 if p == 0 else 1)
    current, log_dirs = write_kafka_files(tmp_path, placement, sizes)
    return current, log_dirs, placement, sizes


def disk(placement, sizes):
    per = {}
    for key, replicas in placement.items():
        for b in replicas:
            per[b] = per.get(b, 0) + sizes[key]
    return per


def test_balance_sizes_evens_the_brokers_disk(cli, tmp_path):
    current, log_dirs, before, sizes = skewed_files(tmp_path)
    run = cli("replicas", "place", "--current", current, "--brokers", "1,2,3,4", "--sizes", log_dirs,
              "--balance-sizes", "--json", tmp_path / "moves.json")
    assert run.status == 0, run.err
    after = dict(before)
    after.update({(t, p): r for t, p, r in parse_reassignment((tmp_path / "moves.json").read_text("utf-8"), "m")})
    old, new = disk(before, sizes), disk(after, sizes)
    mean = sum(new.values()) / 4
    assert max(old.values()) > 1.8 * mean and max(new.values()) <= 1.1 * mean, (old, new)
    assert "size_bytes" in run.out and f"{new[1]:,}" in run.out        # each broker's bytes, in the table


@pytest.mark.parametrize("extra, message", [
    (["--threshold", "0.2"], "--threshold applies to loads: give --loads or --balance-sizes"),
    (["--balance-sizes"], "--balance-sizes balances the sizes of --sizes: give --sizes"),
    (["--balance-sizes", "--sizes", "{tmp}/log-dirs.txt", "--reassign", "none"],
     "loads are balanced by the sticky reassignment, not --reassign none"),
    (["--loads", "{tmp}/loads.csv", "--balance-sizes", "--sizes", "{tmp}/log-dirs.txt"], "give one"),
    (["--loads", "{tmp}/none.csv"], "--loads: no such file"),
    (["--threshold", "2", "--loads", "{tmp}/loads.csv"], "must be a number from 0 to 1"),
])
def test_load_options_are_checked_before_spark(cli, tmp_path, extra, message):
    skewed_files(tmp_path, topics=1)
    (tmp_path / "loads.csv").write_text("topic,partition,size_bytes\nevents-0,0,1\n", encoding="utf-8")
    args = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    run = cli("replicas", "place", "--current", tmp_path / "current.json", "--brokers", "1,2,3,4", *args)
    assert run.status == 2 and message in run.err, run.err


def test_loads_with_a_table_say_what_to_give_instead(cli, tmp_path):
    (tmp_path / "loads.csv").write_text("topic,partition,size_bytes\nevents-0,0,1\n", encoding="utf-8")
    run = cli("replicas", "place", "--topics", "events=4", "--replication-factor", "2", "--brokers", "1,2,3",
              "--table", tmp_path / "replicas", "--loads", tmp_path / "loads.csv")
    assert run.status == 2 and "a replica table does not balance loads yet; give --current" in run.err, run.err
    assert not (tmp_path / "replicas").exists()


def test_a_load_that_is_no_number_is_named_with_its_row(cli, tmp_path):
    skewed_files(tmp_path, topics=1)
    (tmp_path / "loads.csv").write_text("topic,partition,size_bytes\nevents-0,0,12\nevents-0,1,heavy\n",
                                        encoding="utf-8")
    run = cli("replicas", "place", "--current", tmp_path / "current.json", "--brokers", "1,2,3,4",
              "--loads", tmp_path / "loads.csv")
    assert run.status == 2 and "size_bytes must be a number" in run.err and "events-0" in run.err, run.err
