"""The engine's public entry points: :func:`assign` and :func:`assign_group`."""

from __future__ import annotations

import base64
import warnings
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ...errors import InvalidInputError, MissingTopicWarning, NegativeGenerationWarning
from .context import Context
from .encode import encode
from .model import NO_GENERATION, GroupInput, Member
from .registry import DEFAULT_STRATEGY, get_strategy
from .result import AssignmentResult
from .weights import LOAD_OPTIONS, check_load_options

__all__ = ["assign", "assign_group", "check_options", "KNOWN_OPTIONS"]

#: Engine options: ``prefer_rack_aware`` (Kafka's test-only preferRackAwareLogic),
#: ``topic_ids`` ({topic: Kafka Uuid}, orders topics as Kafka's uniform assignor does), and
#: ``weights``, ``max_count_skew``, ``min_improvement`` (load-aware strategies, docs/load-aware.md).
KNOWN_OPTIONS = frozenset({"prefer_rack_aware", "topic_ids"}) | LOAD_OPTIONS


def assign(
    members: Sequence[Member],
    topics: Mapping[str, int],
    strategy: str = DEFAULT_STRATEGY,
    partition_racks: Optional[Mapping[str, Sequence[Sequence[str]]]] = None,
    **options: Any,
) -> AssignmentResult:
    """Assign one group's partitions to its members, as Kafka's assignor named ``strategy`` would.

    Example::

        from spark_assign.core import Member, assign

        result = assign(
            members=[Member("c1", topics=["t0"]), Member("c2", topics=["t0"])],
            topics={"t0": 3},
            strategy="range",
        )
        result.assignment   # {'c1': [('t0', 0), ('t0', 1)], 'c2': [('t0', 2)]}

    Parameters
    ----------
    members:
        The group's :class:`Member` objects (subscriptions, claims, static ids, racks).
    topics:
        ``{topic: partition count}``. Subscribed topics missing here (or with 0 partitions) get
        no partitions, as in Kafka, with a :class:`~spark_assign.errors.MissingTopicWarning`.
    strategy:
        One of :func:`~spark_assign.core.strategy_names`.
    partition_racks:
        Optional ``{topic: [[replica racks of p0], [.. p1], ...]}`` for rack-aware strategies.
    options:
        ``prefer_rack_aware=True`` forces rack-aware mode whenever member and
        partition racks overlap (Kafka's test-only ``preferRackAwareLogic``);
        ``topic_ids={topic: uuid}`` gives ``uniform`` Kafka's topic ids, so it
        orders topics as the broker does (default: name order);
        ``weights={topic: [weight of p0, p1, ...]}`` (lag, bytes/s: finite, >= 0),
        ``max_count_skew`` and ``min_improvement`` for ``load-aware``,
        ``cooperative-load-aware`` and ``lag-based`` (docs/load-aware.md; other
        strategies check and ignore ``weights``).

    Returns
    -------
    AssignmentResult
        ``.assignment`` ``{member_id: [(topic, partition), ...]}`` for every member,
        ``.revoked`` what members lose, and columnar arrays (owner, previous owner, status).
    """
    if type(members) not in (list, tuple) and (isinstance(members, (str, bytes, Mapping))
                                               or not isinstance(members, Sequence)):
        raise InvalidInputError(
            f"members must be a list of Member objects, got {type(members).__name__}", column="members"
        )
    spec = GroupInput.from_members(members, topics, partition_racks)
    _warn_about_generations(spec)
    # Subscribed topics without partitions, from the columns (unknown topics have count -1).
    subscribed = np.bincount(spec.sub_topic, minlength=len(spec.topic_names)) > 0
    missing = sorted(str(spec.topic_names[t]) for t in np.flatnonzero(subscribed & (spec.topic_counts <= 0)).tolist())
    if missing:
        warnings.warn(MissingTopicWarning(
            f"subscribed topics missing from the metadata or with 0 partitions get no partitions: "
            f"{', '.join(map(repr, missing[:5]))}{' ...' if len(missing) > 5 else ''}"), stacklevel=2)
    return assign_group(spec, strategy, **options)


def _warn_about_generations(spec: GroupInput) -> None:
    """A :class:`~spark_assign.errors.NegativeGenerationWarning` for claims whose generation is
    negative but not Kafka's -1 (they count as carrying none, as in Kafka)."""
    generations = spec.generations or []
    if set(map(type, generations)) <= {int, type(None)} and \
            min(filter(None, generations), default=0) >= NO_GENERATION:
        return                                  # the common case, checked in C: none below -1
    odd = [(member, g) for member, g in zip(spec.member_ids, generations)
           if isinstance(g, (int, np.integer)) and not isinstance(g, bool) and g < NO_GENERATION]
    if odd:
        shown = ", ".join(f"{member!r} ({generation})" for member, generation in odd[:5])
        warnings.warn(NegativeGenerationWarning(
            f"claims with a negative generation other than -1 count as carrying no generation, as in Kafka: "
            f"{shown}{' ...' if len(odd) > 5 else ''}"), stacklevel=3)


def assign_group(spec: GroupInput, strategy: str = DEFAULT_STRATEGY, **options: Any) -> AssignmentResult:
    """Assign one group given in columnar form (what the Spark layer calls per group).

    Parameters
    ----------
    spec:
        The group as a :class:`GroupInput`.
    strategy:
        A strategy name, see :func:`~spark_assign.core.strategy_names`.
    options:
        As for :func:`assign`.
    """
    chosen = get_strategy(strategy)
    if options:
        check_options(options)
    ctx = Context(encode(spec), options)
    if options.get("weights") is not None:
        ctx.partition_weights               # checked against the group whatever the strategy
    return AssignmentResult.build(ctx, chosen.name, chosen.run(ctx))


def check_options(options: Mapping[str, Any]) -> None:
    """The one check of the engine's ``options`` (see :func:`assign`): known names, and values of
    the right kind. Raises :class:`~spark_assign.errors.InvalidInputError` naming the option.

    Example::

        check_options({"prefer_rack_aware": True, "topic_ids": {"orders": "AAAAAAAAAAAAAAAAAAAAAA"}})
    """
    unknown = set(options) - KNOWN_OPTIONS
    if unknown:
        raise InvalidInputError(f"unknown option(s): {', '.join(sorted(unknown))}", column="options",
                                rows=sorted(unknown))
    prefer = options.get("prefer_rack_aware", False)
    if not isinstance(prefer, (bool, np.bool_)):
        raise InvalidInputError(f"prefer_rack_aware must be True or False, got {type(prefer).__name__}",
                                column="prefer_rack_aware", rows=[prefer])
    check_load_options(options)
    ids = options.get("topic_ids")
    if ids is None:
        return
    if not isinstance(ids, Mapping):
        raise InvalidInputError(f"topic_ids must map topic names to Kafka topic ids (base64 Uuid strings), "
                                f"got {type(ids).__name__}", column="topic_ids")
    bad = [(name, value) for name, value in ids.items() if not _is_uuid(value)]
    if bad:
        raise InvalidInputError("topic_ids values must be Kafka topic ids: 16 bytes in URL-safe base64, "
                                "as Uuid.toString() prints them", column="topic_ids", rows=bad)


def _is_uuid(value: object) -> bool:
    """Whether ``value`` is a Kafka ``Uuid`` string (22 characters of URL-safe base64, 16 bytes)."""
    if not isinstance(value, str):
        return False
    try:
        return len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))) == 16
    except (ValueError, TypeError):
        return False
