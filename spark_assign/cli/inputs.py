"""Reading the commands' inputs: files, Delta folders, catalog tables, inline topics and brokers.

An input is, in this order of detection:

* ``orders=12,payments=6`` (``--topics``): topic metadata inline;
* ``1,2,3`` or ``1:az-a,2:az-b,3:az-a`` (``--brokers``): broker ids, each with
  its rack after a colon if it has one;
* a path: a Delta folder (it holds ``_delta_log``), or Parquet, CSV (with a
  header row) or JSON lines, told apart by the file extension (for a folder:
  by the extension of the files in it); or the text one of Kafka's tools
  printed (``.txt``, ``.log``, ``.out``): ``kafka-consumer-groups --describe
  --members --verbose`` for ``--subscriptions`` (the subscriptions assumed as
  ``--assume-subscriptions`` says), its ``--offsets`` for ``--weights`` (the
  lags), ``kafka-topics --describe`` for ``--topics`` (:mod:`spark_assign.kafka`,
  :func:`kafka_text_table`);
* anything else: a table in Spark's catalog.

CSV has no types: ``generation``, ``num_partitions``, ``partition``,
``replication_factor``, ``broker_id`` and ``replica_index`` are read as
integers, ``weight`` as a number, ``fenced`` as a boolean (``true``/``false``),
``owned_partitions`` as a list of integers written ``0;1;2`` (any non-digit
separator), every other column as a string.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Set, Tuple

from ..core.consumer.model import check_topics
from ..core.consumer.registry import get_strategy
from ..errors import InvalidInputError
from .runtime import CliError, is_delta_table, is_path

__all__ = ["FORMATS", "detect_format", "check_input", "read_input", "parse_topics_spec", "parse_brokers_spec",
           "check_rebalance_inputs", "read_rebalance_inputs", "rebalance_strategy", "kafka_text_table", "data_files"]

#: File extensions of each format.
FORMATS = {
    "parquet": (".parquet", ".pq"),
    "csv": (".csv",),
    "json": (".json", ".jsonl", ".ndjson"),
    "kafka-text": (".txt", ".log", ".out"),
}
_INTEGER_COLUMNS = ("generation", "num_partitions", "partition", "replication_factor", "broker_id", "replica_index")
_BOOLEAN_COLUMNS = ("fenced",)
_BROKER_SPEC = re.compile(r"^\s*\d+(:[^:,]*)?\s*(,\s*\d+(:[^:,]*)?\s*)*,?\s*$")


def parse_topics_spec(text: str) -> Optional[Dict[str, int]]:
    """``"orders=12,payments=6"`` as ``{"orders": 12, "payments": 6}``; None when ``text`` is not one."""
    if "=" not in text or os.path.exists(text) or "/" in text or os.sep in text or _format_of_file(text):
        return None                        # a path (some hold '=', as Hive-style folders do) or a table name
    out: Dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, count = (s.strip() for s in part.partition("="))
        if not equals or not name:
            raise CliError(f"--topics: {part!r} in {text!r} is not topic=count (for example orders=12)")
        if not re.fullmatch(r"[+-]?\d+", count):
            raise CliError(f"--topics: the partition count of topic {name!r} must be a whole number, "
                           f"got {count!r} (in {text!r})")
        if name in out:
            raise CliError(f"topic {name!r} appears twice in {text!r}")
        out[name] = int(count)
    try:
        return check_topics(out)           # the engine's one check: names, counts up to Kafka's limit
    except InvalidInputError as e:
        raise CliError(f"--topics: {e}") from None


def parse_brokers_spec(text: str) -> Optional[List[Tuple[int, Optional[str]]]]:
    """``"1:az-a,2:az-b,3"`` as ``[(1, "az-a"), (2, "az-b"), (3, None)]``; None when ``text`` is
    not one (an existing path never is). Ids must be distinct and fit Kafka's 32-bit ids; a rack
    after the colon may not be empty.

    Example::

        parse_brokers_spec("1,2,3") == [(1, None), (2, None), (3, None)]
    """
    if not _BROKER_SPEC.match(text) or os.path.exists(text):
        return None
    out: List[Tuple[int, Optional[str]]] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        ident, colon, rack = part.partition(":")
        broker = int(ident)
        if broker >= 2 ** 31:
            raise CliError(f"--brokers: broker id {broker} is above Kafka's limit ({2 ** 31 - 1})")
        if colon and not rack.strip():
            raise CliError(f"--brokers: broker {broker} has an empty rack after ':' in {text!r}")
        if any(b == broker for b, _ in out):
            raise CliError(f"--brokers: broker {broker} appears twice in {text!r}")
        out.append((broker, rack.strip() if colon else None))
    return out


def _format_of_file(path: str) -> Optional[str]:
    lower = path.lower()
    for name, extensions in FORMATS.items():
        if lower.endswith(extensions):
            return name
    return None


def detect_format(path: str) -> str:
    """``"delta"``, ``"parquet"``, ``"csv"`` or ``"json"`` for an existing path; raises :class:`CliError`."""
    if os.path.isdir(path):
        if is_delta_table(path):
            return "delta"
        found: Set[str] = set()
        for root, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
            found.update(f for f in (_format_of_file(name) for name in files if not name.startswith(("_", ".")))
                         if f)
        if len(found) == 1:
            return found.pop()
        if not found:
            raise CliError(f"{path}: a folder without a _delta_log nor .parquet, .csv or .json files")
        raise CliError(f"{path}: a folder mixing {', '.join(sorted(found))} files; give one file or folder per input")
    kind = _format_of_file(path)
    if kind is None:
        known = ", ".join(e for exts in FORMATS.values() for e in exts)
        raise CliError(f"{path}: unknown file type; expected a Delta folder or a file ending in {known}")
    return kind


def check_input(value: str, option: str) -> None:
    """Before Spark starts: a path-like input must exist and have a known format."""
    if option == "--topics" and parse_topics_spec(value) is not None:
        return
    if option == "--brokers" and parse_brokers_spec(value) is not None:
        return
    if is_path(value) or _format_of_file(value):
        path = os.path.expanduser(value)
        if not os.path.exists(path):
            raise CliError(f"{option}: no such file or directory: {value}")
        try:
            detect_format(path)
        except CliError as e:
            raise CliError(f"{option}: {e}") from None


def data_files(path: str, kind: str) -> List[str]:
    """The data files of ``path``: itself, or a folder's files of ``kind`` (hidden ones skipped).

    Example::

        data_files("subscriptions/", "csv")     # its .csv files, sorted, beneath hidden folders skipped
    """
    if os.path.isfile(path):
        return [path]
    if kind == "delta":
        return [os.path.join(root, f) for root, _, names in os.walk(path) for f in names]
    found = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [os.path.join(root, n) for n in sorted(names)
                  if not n.startswith(("_", ".")) and n.lower().endswith(FORMATS[kind])]
    return found


def kafka_text_table(path: str, option: str, assume: str = "group"):
    """The text of one of Kafka's tools at ``path`` (a file, or a folder of them) as the rows
    ``option`` takes, an Arrow table: ``--subscriptions`` from ``kafka-consumer-groups --describe
    --members --verbose`` (subscriptions assumed as ``assume`` says, see
    :func:`spark_assign.kafka.subscription_rows`), ``--weights`` (each partition's lag) from
    ``kafka-consumer-groups --describe --offsets``, ``--topics`` (``topic, num_partitions``)
    from ``kafka-topics --describe``.

    Example::

        kafka_text_table("groups.txt", "--subscriptions").column_names[:3]   # group_id, member_id, topic
    """
    from ..kafka import lag_weights, read_group_members, read_group_offsets, read_topics_describe, subscription_rows
    from ..schema import SUBSCRIPTION_COLUMNS, WEIGHT_COLUMNS
    from ..spark.inputs import local_table

    texts = [(f, open(f, encoding="utf-8").read()) for f in data_files(path, "kafka-text")]

    def table(columns: List[Tuple[str, str, bool]], rows: List[tuple]):
        return local_table([(n, t) for n, t, _ in columns], {n: [r[i] for r in rows] for i, (n, _, _) in
                                                             enumerate(columns)})

    if option == "--subscriptions":       # rows in SUBSCRIPTION_COLUMNS' order
        return table(SUBSCRIPTION_COLUMNS, [r for f, text in texts
                                            for r in subscription_rows(read_group_members(text, f), assume, f)])
    if option == "--weights":             # rows in WEIGHT_COLUMNS' order
        return table(WEIGHT_COLUMNS, [r for f, text in texts for r in lag_weights(read_group_offsets(text, f), f)])
    if option == "--topics":
        counts: Dict[str, int] = {}
        for f, text in texts:
            for p in read_topics_describe(text, f):
                counts[p.topic] = counts.get(p.topic, 0) + 1
        return table([("topic", "string", True), ("num_partitions", "int", True)], list(counts.items()))
    raise CliError(f"{option}: {path} is text; Kafka's tools' text is read for --subscriptions "
                   "(kafka-consumer-groups --describe --members --verbose), --weights (kafka-consumer-groups "
                   "--describe --offsets: the lags) and --topics (kafka-topics --describe)")


def read_input(spark, value: str, option: str, assume: str = "group"):
    """The input ``value`` of ``option`` as a Spark DataFrame (or, for inline topics, a dict;
    inline brokers: a DataFrame ``broker_id int, rack string``); ``assume``: how subscriptions
    are assumed from Kafka's members text (:func:`kafka_text_table`)."""
    if option == "--topics":
        inline = parse_topics_spec(value)
        if inline is not None:
            return inline
    if option == "--brokers":
        brokers = parse_brokers_spec(value)
        if brokers is not None:
            return spark.createDataFrame(brokers, "broker_id int, rack string")
    check_input(value, option)
    if not (is_path(value) or _format_of_file(value)):
        if not spark.catalog.tableExists(value):
            raise CliError(f"{option}: no such file, folder or catalog table: {value}")
        return spark.table(value)
    path = os.path.abspath(os.path.expanduser(value))
    kind = detect_format(path)  # checked above
    if kind == "delta":
        return _read_delta(spark, path)
    if kind == "parquet":
        return spark.read.parquet(path)
    if kind == "json":
        return spark.read.json(path)
    if kind == "kafka-text":
        return spark.createDataFrame(kafka_text_table(path, option, assume))
    return _typed_csv(spark.read.option("header", True).csv(path))


def _typed_csv(df):
    """CSV columns as strings, except the integer columns and ``owned_partitions`` (see the module doc)."""
    from pyspark.sql import functions as F

    from ..spark.inputs import checked_bool, checked_double, checked_int

    key = "topic" if "topic" in df.columns else "broker_id" if "broker_id" in df.columns else None
    cols = []
    for name in df.columns:
        if name in _INTEGER_COLUMNS:        # "twelve" or 99999999999 fail naming the column, not as a cast
            cols.append(checked_int(name, name, key=key if key != name else None).alias(name))
        elif name == "weight":
            cols.append(checked_double(name, name, key=key).alias(name))
        elif name in _BOOLEAN_COLUMNS:
            cols.append(checked_bool(name, name, key=key if key != name else None).alias(name))
        elif name == "owned_partitions":
            parts = F.split(F.trim(F.regexp_replace(F.col(name), r"[^0-9]+", " ")), " ")
            cols.append(F.when(F.col(name).isNull(), F.lit(None).cast("array<int>"))
                        .otherwise(F.filter(parts, lambda p: p != "").cast("array<int>")).alias(name))
        else:
            cols.append(F.col(name))
    return df.select(*cols)


def _read_delta(spark, path: str):
    """A Delta folder: with delta-spark when the session has it, else its files as listed by delta-rs."""
    from ..spark.session import has_delta_spark

    if has_delta_spark(spark):
        return spark.read.format("delta").load(path)
    import pyarrow as pa
    from deltalake import DeltaTable
    from pyspark.sql.pandas.types import from_arrow_schema

    table = DeltaTable(path)
    schema = from_arrow_schema(pa.schema(table.schema().to_arrow()))
    uris = table.file_uris()
    if not uris:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).option("basePath", path).parquet(*uris)


def rebalance_strategy(args):
    """A rebalance's ``--strategy`` (a :class:`~spark_assign.core.consumer.registry.Strategy`), checked
    before Spark starts: a strategy that balances weights needs ``--weights``."""
    chosen = get_strategy(args.strategy)
    if chosen.weighted and args.weights is None:
        raise CliError(f"--strategy {chosen.name} balances per-partition weights: give them with --weights FILE "
                       "(rows topic, partition, weight[, group_id])")
    return chosen


def group_strategies(args) -> Dict[str, str]:
    """``rebalance --strategies FILE``: each group's own strategy, from ``kafka-consumer-groups
    --describe --state`` text (checked before Spark starts); {} without the option. A group
    whose strategy spark-assign does not have is an error naming it and the strategies there are."""
    from ..core.consumer.registry import strategy_names
    from ..kafka.groups import group_strategies as strategies_of, read_group_states

    if not getattr(args, "strategies", None):
        return {}
    check_input(args.strategies, "--strategies")
    path = os.path.abspath(os.path.expanduser(args.strategies))
    with open(path, encoding="utf-8") as f:
        own = strategies_of(read_group_states(f.read(), args.strategies))
    unknown = sorted({(s, g) for g, s in own.items() if s not in strategy_names()})
    if unknown:
        shown = "; ".join(f"{g!r} runs {s!r}" for s, g in unknown[:5])
        raise CliError(f"--strategies: {shown}, which spark-assign does not have (it has "
                       f"{', '.join(strategy_names())}); leave those groups out of the file")
    return own


def check_rebalance_inputs(args) -> None:
    """Before Spark starts: a rebalance's ``--subscriptions``, ``--topics`` and ``--weights`` (when
    given) exist and have a known format (``rebalance``, ``what-if``)."""
    check_input(args.subscriptions, "--subscriptions")
    check_input(args.topics, "--topics")
    if args.weights is not None:
        check_input(args.weights, "--weights")


def read_rebalance_inputs(spark, args):
    """A rebalance's inputs, read: ``(subscriptions, topics, weights)``, weights None when not given."""
    assume = getattr(args, "assume_subscriptions", "group")
    subscriptions = read_input(spark, args.subscriptions, "--subscriptions", assume)
    topics = read_input(spark, args.topics, "--topics")
    weights = read_input(spark, args.weights, "--weights") if args.weights is not None else None
    return subscriptions, topics, weights
