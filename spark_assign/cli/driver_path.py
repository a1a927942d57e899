"""Which path a ``rebalance`` takes: in this process without Spark, or through Spark.

A small question (a few groups, a local table) is answered without starting
a JVM: the inputs (Parquet, CSV, Delta) are read with pyarrow, the engine assigns in this process
and delta-rs commits (:mod:`spark_assign.state.consumer.driver`), in about a
second instead of Spark's start-up. Everything else goes through Spark, as
before: larger inputs, catalog tables, weights, Delta features delta-rs does
not read, and any input pyarrow cannot type exactly as the Spark reader does
(Spark then reports the problem in its words). :func:`choose_path` says which,
with the reason in one line; ``--spark`` forces Spark.

The files are typed as :mod:`.inputs` types them for Spark: CSV columns as
strings except the integer columns and ``owned_partitions`` (``0;1;2``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Union

import pyarrow as pa
import pyarrow.compute as pc

from ..core.consumer.model import check_topics
from ..errors import InvalidInputError
from ..state.consumer.driver import DRIVER_ROWS, driver_table_reason
from .inputs import data_files, detect_format, kafka_text_table, parse_topics_spec

__all__ = ["DriverInputs", "Path", "choose_path", "read_arrow_file", "DRIVER_BYTES"]

#: Input files above this size go through Spark without being read here (about 50,000 rows of
#: subscriptions with long ids).
DRIVER_BYTES = 32 * 1024 * 1024
_INTEGER_COLUMNS = ("generation", "num_partitions", "partition")


@dataclass
class DriverInputs:
    """A rebalance's inputs read without Spark: the subscriptions and the topics as a dict."""

    subscriptions: pa.Table
    topics: Dict[str, int]


@dataclass
class Path:
    """The path a command takes: ``inputs`` for the driver path (None: Spark), and the line
    that says so."""

    inputs: Optional[DriverInputs]
    reason: str

    @property
    def line(self) -> str:
        if self.inputs is not None:
            return f"path: in this process, without Spark ({self.reason})"
        return f"path: Spark ({self.reason})"


def choose_path(args) -> Path:
    """The path of a ``rebalance`` or ``what-if`` with ``args`` (checked inputs): without Spark
    when every input allows it, else Spark with the first reason it does not."""
    if getattr(args, "spark", False):
        return Path(None, "--spark given")
    knobs = (getattr(args, "max_count_skew", None), getattr(args, "min_improvement", None))
    if args.weights is not None or knobs != (None, None):
        return Path(None, "weights are read and balanced through Spark")
    reason = driver_table_reason(args.table)
    if reason is not None:
        return Path(None, f"--table: {reason}")
    topics = parse_topics_spec(args.topics)
    if topics is None:
        found = read_arrow_file(args.topics, "--topics")
        if isinstance(found, str):
            return Path(None, f"--topics: {found}")
        topics = _topic_counts(found)
        if topics is None:
            return Path(None, "--topics: other than one (topic, num_partitions) row per topic")
    subs = read_arrow_file(args.subscriptions, "--subscriptions", getattr(args, "assume_subscriptions", "group"))
    if isinstance(subs, str):
        return Path(None, f"--subscriptions: {subs}")
    if subs.num_rows > DRIVER_ROWS:
        return Path(None, f"--subscriptions: {subs.num_rows:,} rows, more than {DRIVER_ROWS:,}")
    return Path(DriverInputs(subs, topics), f"{subs.num_rows:,} subscription rows")


def read_arrow_file(value: str, option: str = "--subscriptions", assume: str = "group") -> Union[pa.Table, str]:
    """The file or folder ``value`` (Parquet, CSV, a Delta folder, or Kafka's tools' text for
    ``option``, see :func:`.inputs.kafka_text_table`) as an Arrow table typed as the Spark reader
    types it, or why it is read through Spark instead (JSON lines among them)."""
    path = os.path.abspath(os.path.expanduser(value))
    if not os.path.exists(path):
        return "a catalog table is read through Spark"
    kind = detect_format(path)
    if kind == "kafka-text":            # bad text raises here: nothing to gain from Spark
        return kafka_text_table(path, option, assume)
    if kind == "json":          # pyarrow infers JSON types its own way (ISO dates as timestamps)
        return "JSON is typed by Spark's reader"
    files = data_files(path, kind)
    if sum(os.path.getsize(f) for f in files) > DRIVER_BYTES:
        return f"larger than {DRIVER_BYTES // 2 ** 20} MiB"
    try:
        if kind == "delta":
            return _delta(path)
        tables = [_read(f, kind) for f in files]
        return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})
    except (pa.ArrowException, ValueError, OverflowError, OSError) as e:
        return f"not read without Spark ({type(e).__name__})"


def _read(path: str, kind: str) -> pa.Table:
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    return _typed_csv(path)


def _typed_csv(path: str) -> pa.Table:
    """A CSV file with a header row, typed as :func:`.inputs.read_input` types it for Spark: every
    column a string (only an empty field is null), the integer columns and ``owned_partitions``
    parsed; a value that is not an integer raises ``ValueError`` (Spark then names it)."""
    import pyarrow.csv as pv

    names = _header(path)
    table = pv.read_csv(path, convert_options=pv.ConvertOptions(
        column_types={n: pa.string() for n in names}, null_values=[""], strings_can_be_null=True,
        quoted_strings_can_be_null=False))
    columns = []
    for name in table.column_names:
        values = table.column(name)
        if name in _INTEGER_COLUMNS:
            values = _integers(values, name)
        elif name == "owned_partitions":
            values = _claims(values)
        columns.append(values)
    return pa.table(columns, names=table.column_names)


def _header(path: str) -> List[str]:
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        return next(csv.reader(f), [])


def _integers(values: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    text = pc.utf8_trim_whitespace(values)
    if not pc.all(pc.or_kleene(pc.is_null(text), pc.match_substring_regex(text, r"^[+-]?\d{1,10}$"))).as_py():
        raise ValueError(f"column {name!r} holds a value that is not an integer")
    return pc.cast(text, pa.int64()).cast(pa.int32())


def _claims(values: pa.ChunkedArray) -> pa.Array:
    """``0;1;2`` (any non-digit separator) as a list of ints; null stays null."""
    out = []
    for text in values.to_pylist():
        out.append(None if text is None else [int(p) for p in re.findall(r"\d+", text)])
    return pa.array(out, type=pa.list_(pa.int32()))


def _delta(path: str) -> pa.Table:
    from deltalake import DeltaTable

    try:
        return DeltaTable(path).to_pyarrow_table()
    except Exception as e:  # noqa: BLE001 - delta-rs raises several types; Spark reads what it cannot
        raise ValueError(str(e)) from None


def _topic_counts(table: pa.Table) -> Optional[Dict[str, int]]:
    """Topic rows ``(topic, num_partitions)`` as the dict the engine checks, or None for rows that
    are more than that (per-group metadata, replica racks, a topic twice, a bad count): Spark
    reads and reports those."""
    if set(table.column_names) != {"topic", "num_partitions"}:
        return None
    if not pa.types.is_string(table.schema.field("topic").type) or \
            not pa.types.is_integer(table.schema.field("num_partitions").type):
        return None
    names = table.column("topic").to_pylist()
    counts = table.column("num_partitions").to_pylist()
    if len(set(names)) != len(names):
        return None
    try:
        return check_topics(dict(zip(names, counts)))
    except InvalidInputError:
        return None
