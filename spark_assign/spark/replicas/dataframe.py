"""``DataFrame.assign_replicas``: Kafka's replica placement for a fleet of clusters, in one Spark pass.

Called on a topics DataFrame with a brokers DataFrame, attached to
``pyspark.sql.DataFrame`` like ``assign_partitions`` and built on the
DataFrame API only (classic and Spark Connect). The pass:

1. **Wire.** Brokers, topics and the previous placement's
   replicas ( with ``previous=``) in one frame of the :data:`WIRE_DDL`
   columns; schema and argument checks run here, before any job.
2. **Shuffle.** Hash-partitioned by ``cluster_id`` and sorted by cluster,
   kind and topic, so a worker sees each cluster's brokers, then its topics,
   and its previous replicas contiguously (possibly across Arrow batches).
3. **Place.** :func:`~.replica_worker.place_batches` calls the engine once per
   complete cluster (:func:`~spark_assign.core.replicas.fleet.place_topics`: each
   topic with its own seed, so rows do not depend on the shuffle; all topics of
   a cluster placed together, columnar) and yields the :data:`REPLICA_DDL` rows.

Data errors (a duplicated broker or topic, a replication factor above the
usable brokers, racks on some brokers only) fail the job, whose action raises
:class:`~spark_assign.errors.InvalidInputError` naming the cluster, column and
rows (see :mod:`.failures`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, cast

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.java.limits import check_count
from ...core.replicas.model import RACK_AWARE_MODES, check_seed
from ...core.replicas.api import get_replica_method
from ...core.replicas.loads import DEFAULT_THRESHOLD, LoadOptions
from ...errors import InvalidInputError, SchemaError
from .. import failures
from ..inputs import check_columns, checked_int

__all__ = ["assign_replicas", "REPLICA_COLUMNS", "REPLICA_DDL", "KIND_BROKER", "KIND_TOPIC", "KIND_REPLICA", "KIND_LOAD",
           "LoadPlan", "load_plan", "load_names", "CAPACITY_PREFIX",
           "WIRE_COLUMNS", "WIRE_DDL", "wire_frame", "check_options", "attach"]

#: The rows ``assign_replicas`` returns (name, type): one per replica, the preferred leader at
#: ``replica_index`` 0.
REPLICA_COLUMNS = [("cluster_id", "string"), ("topic", "string"), ("partition", "int"), ("replica_index", "int"),
                   ("broker_id", "int"), ("rack", "string"), ("is_preferred_leader", "boolean"), ("status", "string")]
#: :data:`REPLICA_COLUMNS` as a DDL string.
REPLICA_DDL = ", ".join(f"{name} {kind}" for name, kind in REPLICA_COLUMNS)
#: Wire row kinds (the ``kind`` column): a broker, a topic, a replica of the previous placement, a
#: partition's loads.
KIND_BROKER, KIND_TOPIC, KIND_REPLICA, KIND_LOAD = 0, 1, 2, 3
#: The wire: brokers (:data:`KIND_BROKER`: ``broker_id``, ``rack``, ``fenced``), topics
#: (:data:`KIND_TOPIC`: ``topic``, ``num_partitions``, ``replication_factor``) and previous replicas
#: (:data:`KIND_REPLICA`: ``topic``, ``partition``, ``replica_index``, ``broker_id``) and partition loads
#: (:data:`KIND_LOAD`: ``topic``, ``partition``, ``loads`` in the order of the load names; brokers then
#: carry ``capacities`` in that order, NaN for none) of each cluster, as ``(name, type)``;
#: :data:`WIRE_DDL` for Spark, ``ARROW_TYPES`` for Arrow.
WIRE_COLUMNS = [("cluster_id", "string"), ("kind", "int"), ("broker_id", "int"), ("rack", "string"),
                ("fenced", "boolean"), ("topic", "string"), ("num_partitions", "int"), ("replication_factor", "int"),
                ("partition", "int"), ("replica_index", "int"), ("loads", "array<double>"),
                ("capacities", "array<double>")]
WIRE_DDL = ", ".join(f"{name} {kind}" for name, kind in WIRE_COLUMNS)
#: Each input's columns: (name, type, required), checked by :func:`~spark_assign.spark.inputs.check_columns`
#: (``int``: any integral width).
TOPIC_COLUMNS: List[Tuple[str, str, bool]] = [("cluster_id", "string", False), ("topic", "string", True),
                                              ("num_partitions", "int", True), ("replication_factor", "int", False)]
#: A previous placement (``previous=``; what a replica table's rebalance reads of the latest generation).
PREVIOUS_PLACEMENT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("cluster_id", "string", False), ("topic", "string", True), ("partition", "int", True),
    ("replica_index", "int", True), ("broker_id", "int", True)]
BROKER_COLUMNS: List[Tuple[str, str, bool]] = [("cluster_id", "string", False), ("broker_id", "int", True),
                                               ("rack", "string", False), ("fenced", "boolean", False)]
#: The keys of a loads DataFrame (``loads=``); its other columns are the loads.
LOAD_KEY_COLUMNS: List[Tuple[str, str, bool]] = [("cluster_id", "string", False), ("topic", "string", True),
                                                 ("partition", "int", True)]
LOAD_KEYS = [name for name, _, _ in LOAD_KEY_COLUMNS]
#: A broker's capacity for load ``x`` is its column ``capacity_x``.
CAPACITY_PREFIX = "capacity_"


def assign_replicas(
    self: DataFrame,
    brokers: DataFrame,
    replication_factor: Optional[int] = None,
    method: str = "striped",
    seed: int = 0,
    start_index: Optional[int] = None,
    rack_aware: Optional[str] = None,
    previous: Optional[DataFrame] = None,
    num_partitions: Optional[int] = None,
    loads: Optional[DataFrame] = None,
    threshold: float = DEFAULT_THRESHOLD,
    max_replicas_per_broker: Optional[int] = None,
) -> DataFrame:
    """Place the replicas of every topic on its cluster's brokers, as Kafka's ``method`` would.

    Called on a topics DataFrame (``topic``, ``num_partitions``, optionally
    ``replication_factor`` and ``cluster_id``), with the brokers
    (``broker_id``, optionally ``rack``, ``fenced`` and ``cluster_id``).
    Without ``cluster_id`` columns, all rows are one cluster.

    Example::

        import spark_assign   # adds DataFrame.assign_replicas

        topics = spark.createDataFrame([("orders", 6)], "topic string, num_partitions int")
        brokers = spark.createDataFrame([(1, "r1"), (2, "r2"), (3, "r1")], "broker_id int, rack string")
        replicas = topics.assign_replicas(brokers, replication_factor=2, method="admin-utils")
        replicas.show()   # cluster_id, topic, partition, replica_index, broker_id, rack, is_preferred_leader

    Parameters
    ----------
    brokers:
        The brokers: ``broker_id`` (int), optionally ``rack`` (string), ``fenced``
        (boolean: KRaft brokers that are fenced get replicas only when too few others
        are usable) and ``cluster_id``.
    replication_factor:
        Replicas per partition for topics without a ``replication_factor`` value.
    method:
        ``striped`` (KRaft's ``StripedReplicaPlacer``, the default), ``admin-utils``
        (``AdminUtils.assignReplicasToBrokers``), or ``sticky`` (a reassignment of ``previous``
        that moves few replicas); see ``spark_assign.core.replicas.api``.
    seed:
        The fleet's seed: each topic's ``java.util.Random`` seed is derived from it, its
        cluster and its name (:func:`~spark_assign.core.replicas.fleet.topic_seed`), so the
        rows are reproducible and independent of the order of the input.
    start_index:
        ``admin-utils``: Kafka's ``fixedStartIndex`` for every topic (None: drawn per topic).
    rack_aware:
        Kafka's ``RackAwareMode`` (``enforced``, ``safe``, ``disabled``); see ``place_replicas``.
    previous:
        The current placement, one row per replica: ``topic``, ``partition``,
        ``replica_index`` (0: the preferred leader), ``broker_id`` and ``cluster_id`` when
        the topics have it (this method's output fits). Required by ``sticky``; with the
        other methods it only sets ``status``.
    num_partitions:
        Spark partitions for the pass (default: ``spark.sql.shuffle.partitions``).
    loads:
        ``sticky`` only: per-partition loads, one row per partition: ``topic``, ``partition``,
        ``cluster_id`` when the topics have it, and one numeric column per load (``size_bytes``,
        ``bytes_in``, ``bytes_out`` or any name), whose order is the order of their goals. A
        partition without a row carries none. Brokers may give capacities as ``capacity_<load>``
        columns (``capacity_size_bytes``); see :mod:`spark_assign.core.replicas.loads`.
    threshold:
        With ``loads``: each load's distribution goal, ``mean * (1 +- threshold)``.
    max_replicas_per_broker:
        With ``loads``: a hard limit on the replicas of any broker.

    Returns
    -------
    DataFrame
        One row per replica (:data:`REPLICA_DDL`): ``cluster_id``, ``topic``, ``partition``,
        ``replica_index`` (0 is the preferred leader), ``broker_id``, the broker's ``rack``,
        ``is_preferred_leader`` and ``status``: ``new`` (the partition had no replica in
        ``previous``), ``kept`` (this broker held it) or ``moved``.

    Raises
    ------
    SchemaError, InvalidInputError, UnknownStrategyError
        Before any job for schemas and arguments; data problems fail the job, whose action
        raises :class:`InvalidInputError` naming the cluster, the column and the rows.
    """
    options = check_options(method, replication_factor, seed, start_index, rack_aware, previous is not None,
                            "previous=, a DataFrame (topic, partition, replica_index, broker_id)")
    n = num_partitions if num_partitions is None else check_count(num_partitions, "num_partitions", minimum=1)
    failures.install()
    wire = wire_frame(self, brokers, options.replication_factor, previous, loads)
    plan = load_plan(loads, brokers, options.method, threshold, max_replicas_per_broker)
    n = n or int(cast(str, self.sparkSession.conf.get("spark.sql.shuffle.partitions")))

    def run(batches):
        from spark_assign.spark.replicas.worker import place_batches

        return place_batches(batches, options.method, options.seed, options.start_index, options.rack_aware, plan)

    return (wire.repartition(n, "cluster_id")
                .sortWithinPartitions("cluster_id", "kind", "topic", "partition", "replica_index")
                .mapInArrow(run, REPLICA_DDL))


@dataclass(frozen=True)
class ReplicaOptions:
    """``assign_replicas``' arguments, checked (shared by the DataFrame method and SQL)."""

    method: str
    replication_factor: Optional[int]
    seed: int
    start_index: Optional[int]
    rack_aware: Optional[str]


def check_options(method: object, replication_factor: object, seed: object, start_index: object,
                  rack_aware: object, has_previous: bool, previous_hint: str) -> ReplicaOptions:
    """The placement arguments checked before any job; errors name the argument and the value.

    Example::

        check_options("striped", 3, 0, None, None, False, "previous=").method == "striped"

    Parameters
    ----------
    method, replication_factor, seed, start_index, rack_aware:
        As ``assign_replicas`` takes them (``seed`` must be an integer: Spark may retry a task).
    has_previous:
        Whether a previous placement is given (``sticky`` needs one).
    previous_hint:
        How the caller passes it, for the message.
    """
    chosen = get_replica_method(method)
    if chosen.needs_previous and not has_previous:
        raise InvalidInputError(f"method {chosen.name!r} reassigns a current placement: pass {previous_hint}",
                                column="previous")
    rf = None if replication_factor is None else check_count(replication_factor, "replication_factor", minimum=1)
    checked_seed = check_seed(seed)
    if checked_seed is None:
        raise InvalidInputError("seed must be an integer: a placement must be reproducible (Spark may retry a "
                                "task, a rebalance may run again)", column="seed", rows=[seed])
    fixed = None if start_index is None else check_count(start_index, "start_index")
    if rack_aware is not None and rack_aware not in RACK_AWARE_MODES:
        raise InvalidInputError(f"rack_aware must be one of {', '.join(RACK_AWARE_MODES)} or None, "
                                f"got {rack_aware!r}", column="rack_aware", rows=[rack_aware])
    return ReplicaOptions(chosen.name, rf, checked_seed, fixed, cast(Optional[str], rack_aware))


@dataclass(frozen=True)
class LoadPlan:
    """What a worker needs to balance loads: the load ``names`` (in goal order), which have broker
    capacities, and the goal settings (checked on the driver)."""

    names: Tuple[str, ...]
    has_capacity: Tuple[bool, ...]
    threshold: float
    max_replicas_per_broker: Optional[int]


def load_names(loads: DataFrame) -> List[str]:
    """The load columns of a loads DataFrame: its numeric columns but the keys, in order; a schema
    error names the columns when there is none or one is not numeric."""
    check_columns(loads, "loads", LOAD_KEY_COLUMNS)
    names = [f.name for f in loads.schema.fields if f.name not in LOAD_KEYS]
    numeric = ("byte", "short", "integer", "long", "float", "double", "decimal")
    wrong = [f"{f.name} ({f.dataType.simpleString()})" for f in loads.schema.fields
             if f.name in names and not f.dataType.typeName().startswith(numeric)]
    if not names or wrong:
        raise SchemaError(f"loads needs numeric load columns beside {', '.join(LOAD_KEYS)}"
                          + (f"; not numeric: {', '.join(wrong)}" if wrong else ""))
    return names


def load_plan(loads: Optional[DataFrame], brokers: DataFrame, method: str, threshold: object,
              max_replicas_per_broker: object) -> Optional[LoadPlan]:
    """The checked :class:`LoadPlan` of ``assign_replicas``' load arguments (None without loads)."""
    if loads is None:
        return None
    if get_replica_method(method).name != "sticky":
        raise InvalidInputError(f"loads are balanced by the sticky reassignment; method {method!r} places topics "
                                "as Kafka does and ignores them", column="loads", rows=[method])
    names = load_names(loads)
    options = LoadOptions({}, None, cast(float, threshold), cast(Optional[int], max_replicas_per_broker))
    has = tuple(f"{CAPACITY_PREFIX}{name}" in brokers.columns for name in names)
    return LoadPlan(tuple(names), has, options.threshold, options.max_replicas_per_broker)


def wire_frame(topics: DataFrame, brokers: DataFrame, replication_factor: Optional[int],
               previous: Optional[DataFrame] = None, loads: Optional[DataFrame] = None) -> DataFrame:
    """Brokers, topics, previous replicas and partition loads in the :data:`WIRE_DDL` columns (no job)."""
    if not isinstance(brokers, DataFrame):
        raise InvalidInputError(f"brokers must be a DataFrame (broker_id, rack, ...), got {type(brokers).__name__}",
                                column="brokers")
    t = check_columns(topics, "the topics DataFrame", TOPIC_COLUMNS)
    b = check_columns(brokers, "brokers", BROKER_COLUMNS)
    if ("cluster_id" in t) != ("cluster_id" in b):
        raise SchemaError("cluster_id must be a column of both the topics and the brokers, or of neither")
    if previous is not None and not isinstance(previous, DataFrame):
        raise InvalidInputError(f"previous must be a DataFrame (topic, partition, replica_index, broker_id), "
                                f"got {type(previous).__name__}", column="previous")
    v = check_columns(previous, "previous", PREVIOUS_PLACEMENT_COLUMNS) if previous is not None else {}
    if previous is not None and ("cluster_id" in t) != ("cluster_id" in v):
        raise SchemaError("cluster_id must be a column of previous when the topics have it, and only then")
    if "replication_factor" not in t and replication_factor is None:
        raise InvalidInputError("replication_factor is required: an argument or a column of the topics",
                                column="replication_factor")

    def column(present: Dict[str, Any], name: str, ddl: str, default=None):
        return (F.col(name) if name in present else F.lit(default)).cast(ddl).alias(name)

    rf = F.col("replication_factor") if "replication_factor" in t else F.lit(None)
    if replication_factor is not None:
        rf = F.coalesce(rf.cast("int"), F.lit(replication_factor))
    topic_rows = topics.select(column(t, "cluster_id", "string"), F.lit(KIND_TOPIC).alias("kind"),
                               F.lit(None).cast("int").alias("broker_id"), F.lit(None).cast("string").alias("rack"),
                               F.lit(None).cast("boolean").alias("fenced"), F.col("topic"),
                               checked_int("num_partitions", "num_partitions", key="topic").alias("num_partitions"),
                               rf.cast("int").alias("replication_factor"))
    names = load_names(loads) if loads is not None else []
    if names:
        capacities = F.array(*[(F.col(f"{CAPACITY_PREFIX}{name}") if f"{CAPACITY_PREFIX}{name}" in brokers.columns
                                else F.lit(None)).cast("double") for name in names])
    else:
        capacities = F.lit(None).cast("array<double>")
    broker_rows = brokers.select(column(b, "cluster_id", "string"), F.lit(KIND_BROKER).alias("kind"),
                                 checked_int("broker_id", "broker_id").alias("broker_id"),
                                 column(b, "rack", "string"), column(b, "fenced", "boolean", False),
                                 F.lit(None).cast("string").alias("topic"),
                                 F.lit(None).cast("int").alias("num_partitions"),
                                 F.lit(None).cast("int").alias("replication_factor"), *_no_replica(),
                                 F.lit(None).cast("array<double>").alias("loads"), capacities.alias("capacities"))
    wire = broker_rows.unionByName(topic_rows.select("*", *_no_replica(), *_no_loads()))
    if previous is not None:
        replica_rows = previous.select(column(v, "cluster_id", "string"), F.lit(KIND_REPLICA).alias("kind"),
                                       _int32("broker_id"), F.lit(None).cast("string").alias("rack"),
                                       F.lit(None).cast("boolean").alias("fenced"), F.col("topic"),
                                       F.lit(None).cast("int").alias("num_partitions"),
                                       F.lit(None).cast("int").alias("replication_factor"),
                                       _int32("partition"), _int32("replica_index"), *_no_loads())
        wire = wire.unionByName(replica_rows)
    if loads is not None:
        lk = check_columns(loads, "loads", LOAD_KEY_COLUMNS)
        if ("cluster_id" in t) != ("cluster_id" in lk):
            raise SchemaError("cluster_id must be a column of loads when the topics have it, and only then")
        load_rows = loads.select(column(lk, "cluster_id", "string"), F.lit(KIND_LOAD).alias("kind"),
                                 F.lit(None).cast("int").alias("broker_id"), F.lit(None).cast("string").alias("rack"),
                                 F.lit(None).cast("boolean").alias("fenced"), F.col("topic"),
                                 F.lit(None).cast("int").alias("num_partitions"),
                                 F.lit(None).cast("int").alias("replication_factor"), _int32("partition"),
                                 F.lit(None).cast("int").alias("replica_index"),
                                 F.array(*[F.col(name).cast("double") for name in names]).alias("loads"),
                                 F.lit(None).cast("array<double>").alias("capacities"))
        wire = wire.unionByName(load_rows)
    return wire


def _int32(name: str):
    """Column ``name`` of the previous placement as an int; a value beyond Kafka's 32-bit range fails
    the job naming the column and the row's topic (:func:`~spark_assign.spark.inputs.checked_int`)."""
    return checked_int(name, name, key="topic").alias(name)


def _no_replica() -> list:
    """The previous-replica columns of a broker or topic row (null)."""
    return [F.lit(None).cast("int").alias("partition"), F.lit(None).cast("int").alias("replica_index")]


def _no_loads() -> list:
    """The load columns of a row that carries none (null)."""
    return [F.lit(None).cast("array<double>").alias("loads"), F.lit(None).cast("array<double>").alias("capacities")]


def attach() -> None:
    """Add :func:`assign_replicas` to ``pyspark.sql.DataFrame`` (classic and Connect)."""
    DataFrame.assign_replicas = assign_replicas  # type: ignore[attr-defined]


attach()
