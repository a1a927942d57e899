"""Kafka's files for the ``replicas`` CLI tests: a current assignment in the reassignment JSON and the
``kafka-log-dirs --describe`` output for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Tuple

Key = Tuple[str, int]


def write_kafka_files(folder: Path, placement: Dict[Key, List[int]], sizes: Dict[Key, int]) -> Tuple[Path, Path]:
    """``current.json`` (``placement``: (topic, partition) -> replicas) and ``log-dirs.txt`` (each
    replica of a partition holding its ``sizes`` bytes, one log directory per broker) in ``folder``."""
    partitions = [{"topic": t, "partition": p, "replicas": r} for (t, p), r in placement.items()]
    current = folder / "current.json"
    current.write_text(json.dumps({"version": 1, "partitions": partitions}), encoding="utf-8")
    dirs: Dict[int, list] = {b: [] for b in sorted({b for r in placement.values() for b in r})}
    for (t, p), replicas in placement.items():
        for b in replicas:
            dirs[b].append({"partition": f"{t}-{p}", "size": sizes[(t, p)], "offsetLag": 0, "isFuture": False})
    body = {"brokers": [{"broker": b, "logDirs": [{"partitions": ps, "error": None, "logDir": "/var/kafka"}]}
                        for b, ps in dirs.items()], "version": 1}
    log_dirs = folder / "log-dirs.txt"
    log_dirs.write_text("Querying brokers for log directories information\n"
                        f"Received log directory information from brokers {','.join(map(str, dirs))}\n"
                        + json.dumps(body) + "\n", encoding="utf-8")
    return current, log_dirs
