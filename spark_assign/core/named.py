"""Named choices, one registry type for all: consumer group strategies
(:mod:`spark_assign.core.consumer.registry`) and replica placement methods
(:mod:`spark_assign.core.replicas.api`).

An entry is any object with a ``name``; asking for an unknown name raises
:class:`~spark_assign.errors.UnknownStrategyError`, whose message lists the valid names.
"""

from __future__ import annotations

from typing import Dict, Generic, Iterator, List, Protocol, Type, TypeVar

from ..errors import UnknownStrategyError

__all__ = ["Registry"]


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """Entries of one type by name.

    Example::

        methods = Registry("replica placement method", ReplicaMethod)
        methods.register(ReplicaMethod("striped", place_striped))
        methods.get("striped")      # the entry; an entry passes through; anything else raises
        methods.names()             # ['striped']

    Parameters
    ----------
    kind:
        What an entry is, for the error message (``"strategy"``, ``"replica placement method"``).
    entry_type:
        The entries' class: :meth:`get` hands an instance back unchanged.
    """

    def __init__(self, kind: str, entry_type: Type[T]) -> None:
        self.kind = kind
        self.entry_type = entry_type
        self.entries: Dict[str, T] = {}

    def register(self, entry: T) -> None:
        """Add ``entry`` under its name, replacing any entry of that name."""
        self.entries[entry.name] = entry

    def names(self) -> List[str]:
        """The valid names, sorted."""
        return sorted(self.entries)

    def get(self, name: object) -> T:
        """The entry called ``name`` (an entry itself passes through); :class:`UnknownStrategyError` otherwise."""
        if isinstance(name, self.entry_type):
            return name
        entry = self.entries.get(name) if isinstance(name, str) else None
        if entry is None:
            raise UnknownStrategyError(name, self.entries, kind=self.kind)
        return entry

    def __iter__(self) -> Iterator[T]:
        return iter(self.entries.values())
