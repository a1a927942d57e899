"""What the two benchmarks over a copy of ``__consumer_offsets`` share (records_bench.py,
audit_bench.py): the seeded copy written as Parquet, and the result written with its machine."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any, Dict

import pyarrow as pa
import pyarrow.parquet as pq

RESULTS = Path(__file__).parent / "results"


def write_copy(fleet: Any, path: str) -> int:
    """``fleet``'s records (``spark_assign.testing.RecordFleet``) as Parquet at ``path``, in the
    columns Spark's Kafka source reads; returns how many."""
    keys, values, partitions, offsets = zip(*fleet.records)
    pq.write_table(pa.table({"key": pa.array(keys, pa.binary()), "value": pa.array(values, pa.binary()),
                             "partition": pa.array(partitions, pa.int32()), "offset": pa.array(offsets, pa.int64())}),
                   path)
    return len(keys)


def save(name: str, spark: Any, row: Dict[str, Any], quick: bool) -> None:
    """Prints the run's one row with its machine, and writes it to ``results/NAME.json`` (a
    ``--quick`` run to ``NAME-quick.json``, which the performance page does not show)."""
    result = {"machine": {"python": platform.python_version(), "cores": os.cpu_count(), "spark": spark.version,
                          "platform": platform.platform(),
                          "load_average": [round(x, 2) for x in os.getloadavg()]},
              "rows": [row]}
    print(json.dumps(result, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}{'-quick' if quick else ''}.json").write_text(json.dumps(result, indent=2) + "\n")
