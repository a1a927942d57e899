"""Named choices, one registry type for all: consumer group strategies
(:mod:`spark_assign.core.consumer.registry`) and replica placement methods
(:mod:`spark_assign.core.replicas.api`).

An entry is any object with a ``name``, found by that name or by one of the aliases it was
registered with (for a strategy, Kafka's class name). Asking for an unknown name raises
:class:`~spark_assign.errors.UnknownStrategyError`, whose message lists the valid names and
suggests the closest one.
"""

from __future__ import annotations

import difflib
from typing import Dict, Generic, Iterable, Iterator, List, Optional, Protocol, Type, TypeVar

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
        #: Other names of entries (alias -> name); the first registration of an alias keeps it.
        self.aliases: Dict[str, str] = {}

    def register(self, entry: T, aliases: Iterable[str] = ()) -> None:
        """Add ``entry`` under its name, replacing any entry of that name; ``aliases`` find it too
        (an alias another entry already holds stays that entry's)."""
        self.entries[entry.name] = entry
        for alias in aliases:
            if alias and alias not in self.entries:
                self.aliases.setdefault(alias, entry.name)

    def names(self) -> List[str]:
        """The valid names, sorted."""
        return sorted(self.entries)

    def get(self, name: object) -> T:
        """The entry called ``name`` (an entry itself passes through); :class:`UnknownStrategyError` otherwise."""
        if isinstance(name, self.entry_type):
            return name
        entry = self.lookup(name)
        if entry is None:
            raise UnknownStrategyError(name, self.entries, kind=self.kind, suggestion=self.closest(name))
        return entry

    def lookup(self, name: object) -> Optional[T]:
        """The entry called ``name`` or aliased so, or ``None``."""
        if not isinstance(name, str):
            return None
        return self.entries.get(self.aliases.get(name, name))

    def closest(self, name: object) -> Optional[str]:
        """The valid name nearest to ``name`` (a typo, another case, a near alias), or ``None``."""
        if not isinstance(name, str) or not name:
            return None
        folded = {**{n.lower(): n for n in self.entries}, **{a.lower(): n for a, n in self.aliases.items()}}
        if name.lower() in folded:
            return folded[name.lower()]
        near = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
        return folded[near[0]] if near else None

    def __iter__(self) -> Iterator[T]:
        return iter(self.entries.values())
