"""Run a function once PySpark's SQL package is loaded, without loading it (a post-import hook).

``import spark_assign`` promises ``DataFrame.assign_partitions``, yet the
engine (:mod:`spark_assign.core`) must import without PySpark, and importing
``spark_assign.core`` runs ``spark_assign/__init__`` first. So the package
does not import PySpark to add the method: :func:`when_pyspark_sql_loads`
calls its function at once when ``pyspark.sql`` is already loaded, else right
after the first ``import pyspark.sql`` (or anything that imports it, such as
``from pyspark.sql import SparkSession``) has run that package's
``__init__``, before that import returns to its caller.

The mechanism is the import system's own: a finder at the front of
``sys.meta_path`` answers for ``pyspark.sql`` with the spec the other finders
give, its loader wrapped to call the function after executing the module. It
removes itself on first use, so it costs nothing after that (and nothing at
all if PySpark is never imported).
"""

from __future__ import annotations

import importlib.abc
import sys
from types import ModuleType
from typing import Any, Callable, List, Optional, Sequence

__all__ = ["when_pyspark_sql_loads", "TARGET"]

#: The module whose loading triggers the functions: where ``pyspark.sql.DataFrame`` is defined
#: (and exported; a hook on ``pyspark.sql.dataframe`` would run while ``pyspark.sql`` is half made).
TARGET = "pyspark.sql"


class _AfterLoad(importlib.abc.Loader):
    """A loader that runs ``loader``'s ``exec_module``, then the callbacks; anything else is ``loader``'s."""

    def __init__(self, loader: Any, callbacks: List[Callable[[], None]]) -> None:
        self._loader = loader
        self._callbacks = callbacks

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        for callback in self._callbacks:
            callback()

    def __getattr__(self, name: str) -> Any:     # get_source, get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds :data:`TARGET` through the finders after it, with a loader that runs the callbacks."""

    def __init__(self) -> None:
        self.callbacks: List[Callable[[], None]] = []

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Optional[ModuleType] = None):
        if fullname != TARGET:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)     # once: a reload, or a failed import retried, loads plainly
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _AfterLoad(spec.loader, self.callbacks)
                return spec
        return None


def _waiting() -> Optional[_Finder]:
    return next((f for f in sys.meta_path if isinstance(f, _Finder)), None)


def when_pyspark_sql_loads(callback: Callable[[], None]) -> None:
    """Call ``callback()`` now if ``pyspark.sql`` is loaded, else once the first import of it has run.

    Example::

        when_pyspark_sql_loads(lambda: print("PySpark SQL is here"))

    Parameters
    ----------
    callback:
        A function of no arguments. Called at most once per call of this
        function; an exception it raises propagates from the import that
        triggered it (a broken installation is not hidden).
    """
    if TARGET in sys.modules:
        callback()
        return
    finder = _waiting()
    if finder is None:
        finder = _Finder()
        sys.meta_path.insert(0, finder)
    finder.callbacks.append(callback)
