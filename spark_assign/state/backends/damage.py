"""A damaged state table, said in one plain sentence naming the table and the file.

Two kinds of damage, found at two moments:

* **the Delta log** (``_delta_log``: a commit file missing between two
  versions, or one that is not JSON): the engine fails to read the table's
  version when ``AssignmentTable`` opens it. :func:`log_error` turns that
  failure into a :class:`~spark_assign.errors.StateTableError`; for a local
  table it looks at the log itself (:func:`damaged_log`) to say which file and
  what is wrong with it.
* **a data file** (truncated, overwritten): reads are lazy DataFrames, so
  Spark meets the file only when an action runs (``collect``, ``show``,
  ``write``, ...), in a task. The action's failure carries Spark's error
  condition ``FAILED_READ_FILE.*`` and the file's path as a parameter; the
  translator :func:`damaged_file`, registered with
  :func:`spark_assign.spark.failures.translate_with`, raises it as a
  ``StateTableError`` when the file lies in a state table this process
  opened (:func:`watch`). delta-spark reads part of its log in tasks too, so
  a damaged commit file can surface there as well.

Failures are recognised by Spark's error condition and parameters, and by
the files in the log, never by message text.
"""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from typing import Any, List, Optional, Tuple

from ...errors import StateTableError
from ...spark.failures import SparkFailure, translate_with
from ..layout import local_dir

__all__ = ["watch", "damaged_file", "damaged_log", "log_error", "LOG_DIR"]

LOG_DIR = "_delta_log"
#: State tables watched at once (the most recently opened); their backends give their roots.
WATCHED = 64
#: A commit file (``00000000000000000003.json``) and a checkpoint (``...03.checkpoint[.*].parquet``).
_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(\.[^/]*)?\.parquet$")
#: How much of an engine's own message a sentence quotes, when the log shows nothing wrong.
QUOTED = 200

_watched: "OrderedDict[Tuple[str, str], Any]" = OrderedDict()


def watch(backend: Any) -> None:
    """Remember ``backend``'s table (a :class:`~.backend.StateBackend`): a file of it that Spark
    cannot read is then reported as this table's damage (see :func:`damaged_file`)."""
    key = (backend.engine, getattr(backend, "location", None) or backend.root)
    _watched[key] = backend
    _watched.move_to_end(key)
    while len(_watched) > WATCHED:
        _watched.popitem(last=False)


@translate_with
def damaged_file(failure: SparkFailure) -> Optional[StateTableError]:
    """A file of a watched state table that Spark failed to read (``FAILED_READ_FILE.*``) as a
    :class:`StateTableError` naming the table and the file; None for any other failure."""
    if not (failure.condition or "").startswith("FAILED_READ_FILE"):
        return None
    path = failure.parameters.get("path")
    found = _table_of(path) if path else None
    if found is None:
        return None
    root, relative = found
    if relative.startswith(LOG_DIR + "/"):
        detail = damaged_log(root) or f"{relative} cannot be read"
        return StateTableError(f"cannot read the state table at {root}: its Delta log is damaged: {detail} "
                               f"(Spark: {failure.condition})")
    return StateTableError(f"cannot read the state table at {root}: its data file {relative} is damaged or "
                           f"unreadable (Spark: {failure.condition}); restore the file from a backup")


def damaged_log(root: str) -> Optional[str]:
    """What is wrong with the Delta log of the local table ``root``, in a few words: a commit
    file missing between two versions (after the latest checkpoint; older ones may have been
    cleaned up), or a commit file that is empty or not JSON. None when nothing is found (or
    the table is not on the local filesystem).

    Example::

        damaged_log("/data/fleet-state")   # 'commit file 00000000000000000002.json is missing ...'
    """
    folder = local_dir(root)
    log = os.path.join(folder, LOG_DIR) if folder is not None else None
    if log is None or not os.path.isdir(log):
        return None
    names = os.listdir(log)
    commits = sorted(int(m.group(1)) for m in map(_COMMIT.match, names) if m)
    checkpoints = [int(m.group(1)) for m in map(_CHECKPOINT.match, names) if m]
    start = max(checkpoints) + 1 if checkpoints else 0
    needed = [v for v in commits if v >= start]
    missing = _first_gap(needed, start)
    if missing is not None:
        after = min(v for v in needed if v > missing)
        return f"commit file {_name(missing)} is missing (the log goes on at version {after})"
    for version in needed:
        problem = _unreadable(os.path.join(log, _name(version)))
        if problem is not None:
            return f"commit file {_name(version)} {problem}"
    return None


def log_error(root: str, error: BaseException, engine: str, version: Optional[int] = None,
              condition: Optional[str] = None) -> StateTableError:
    """The :class:`StateTableError` for an engine that failed to read the log of ``root`` (at
    ``version``): the damage :func:`damaged_log` finds, else the start of ``engine``'s own
    message, or Spark's ``condition`` when there is one."""
    at = f" at version {version}" if version is not None else ""
    detail = damaged_log(root)
    if detail is not None:
        return StateTableError(f"cannot read the state table at {root}{at}: its Delta log is damaged: {detail}")
    said = condition or (str(error).strip().splitlines() or [type(error).__name__])[0][:QUOTED]
    return StateTableError(f"cannot read the state table at {root}{at}: {engine} could not read its log ({said})")


def _first_gap(versions: List[int], start: int) -> Optional[int]:
    """The first version missing from ``versions`` (sorted) counting from ``start``; None if none."""
    for expected, v in enumerate(versions, start):
        if v != expected:
            return expected
    return None


def _unreadable(path: str) -> Optional[str]:
    """Why the commit file ``path`` is not a Delta commit (JSON objects, one a line), or None."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        return f"cannot be read ({type(e).__name__})"
    actions = [line for line in lines if line.strip()]
    if not actions:
        return "is empty"
    for number, line in enumerate(actions, 1):
        try:
            if not isinstance(json.loads(line), dict):
                return f"is not a Delta commit (line {number} is not a JSON object)"
        except ValueError:
            return f"is not valid JSON (line {number})"
    return None


def _name(version: int) -> str:
    return f"{version:020d}.json"


def _table_of(path: str) -> Optional[Tuple[str, str]]:
    """The watched table holding the file ``path`` (a URI or path), as (its root, the file's path
    relative to it)."""
    file = _comparable(path)
    for backend in reversed(list(_watched.values())):
        try:
            root = backend.root
        except Exception:  # noqa: BLE001 - a table that cannot say where it is holds no file
            continue
        base = _comparable(root).rstrip("/")
        if file.startswith(base + "/"):
            return root, file[len(base) + 1:]
    return None


def _comparable(location: str) -> str:
    """A local path for ``file:`` URIs and plain paths (any number of slashes), else the URI."""
    local = local_dir(location)
    return local if local is not None else location
