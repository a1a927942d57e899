"""A rebalance's inputs, checked before any Spark job: :func:`make_request` gives a :class:`Request`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.consumer.model import check_topics
from ...core.consumer.weights import DEFAULT_MIN_IMPROVEMENT
from ...errors import InvalidInputError
from ...schema import SUBSCRIPTION_COLUMNS
from ...spark.inputs import (check_columns, load_knobs, spark_strategy, subscription_columns, topics_frame,
                             weights_frame)
from ..generation_table import check_loop_arguments
from .load import fingerprint_key

__all__ = ["Request", "make_request", "Topics"]

Topics = Union[Mapping[str, int], DataFrame]


@dataclass(frozen=True)
class Request:
    """A rebalance's checked inputs: the subscriptions (with ``group_id``), the topics as given
    and as a DataFrame, the strategy's name, the data files wanted, and the topics as a checked
    dict when given so (the plan and the driver path use it as a constant); the weights (a
    DataFrame, see :func:`~spark_assign.spark.inputs.weights_frame`) and the load-aware knobs
    given (``options``), whether the strategy balances weights, and the fingerprint's key.
    Weights given as a dict are also kept as given (``weight_dict``): the assignment job takes
    them so, and they travel with it instead of being joined onto every group's rows
    (:func:`~spark_assign.spark.consumer.wire.weights_travel`)."""

    subscriptions: DataFrame
    topics: Topics
    topic_df: DataFrame
    strategy: str
    num_files: Optional[int]
    topic_counts: Optional[Mapping[str, int]]
    max_attempts: int
    force: bool
    weights: Optional[DataFrame] = None
    options: Dict[str, Any] = field(default_factory=dict)
    weighted: bool = False
    key: str = ""
    weight_dict: Optional[Mapping[str, Any]] = None
    dry_run: bool = False
    #: An application transaction ``(app_id, version)`` committed with the generation (see
    #: :meth:`~spark_assign.AssignmentTable.rebalance`).
    transaction: Optional[Tuple[str, int]] = None

    @property
    def replans_for_load(self) -> bool:
        """Unchanged groups are checked under the new weights (:mod:`.load`): a weighted strategy
        given weights, without ``force`` (which recomputes everything anyway)."""
        return self.weighted and self.weights is not None and not self.force

    @property
    def min_improvement(self) -> float:
        return float(self.options.get("min_improvement", DEFAULT_MIN_IMPROVEMENT))


def make_request(spark, subscriptions: DataFrame, topics: Topics, strategy: str, num_files: Optional[int],
                 max_attempts: int, force: bool, weights: Any = None, max_count_skew: Optional[int] = None,
                 min_improvement: Optional[float] = None, dry_run: bool = False,
                 transaction: Any = None) -> Request:
    """Check the arguments of :meth:`~spark_assign.AssignmentTable.rebalance` and the inputs'
    schemas, before any Spark job; :class:`InvalidInputError` or :class:`SchemaError` names the
    argument or column."""
    chosen = spark_strategy(strategy, weights_given=weights is not None)
    options = load_knobs(max_count_skew, min_improvement)
    check_loop_arguments(num_files, max_attempts, force, dry_run)
    # Before defaulting group_id: a file whose group column is named 'group' is refused, not read
    # as one group 'default'; columns rebalance ignores are named in a warning.
    check_columns(subscriptions, "subscriptions", SUBSCRIPTION_COLUMNS, warn_unknown=True)
    if "group_id" not in subscriptions.columns:
        subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
    subscription_columns(subscriptions)                         # schema check
    topic_df = topics_frame(spark, topics)                      # checks a dict's counts
    weight_df = weights_frame(spark, weights)
    return Request(subscriptions, topics, topic_df, chosen.name, num_files,
                   check_topics(topics) if isinstance(topics, Mapping) else None, max_attempts, force,
                   weight_df, options, chosen.weighted, fingerprint_key(chosen.name, chosen.weighted, options),
                   weights if isinstance(weights, Mapping) else None, dry_run, check_transaction(transaction))


def check_transaction(transaction: Any) -> Optional[Tuple[str, int]]:
    """``transaction`` checked: None, or ``(app_id, version)`` with a non-empty string id and a
    version from 0 (Delta's ``txnAppId``/``txnVersion``)."""
    if transaction is None:
        return None
    ok = (isinstance(transaction, tuple) and len(transaction) == 2 and isinstance(transaction[0], str)
          and transaction[0] != "" and isinstance(transaction[1], int) and not isinstance(transaction[1], bool)
          and transaction[1] >= 0)
    if not ok:
        raise InvalidInputError(f"transaction must be a tuple (app_id, version): a non-empty string and an "
                                f"int from 0; got {transaction!r}", column="transaction", rows=[repr(transaction)])
    return transaction[0], transaction[1]
