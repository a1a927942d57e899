"""What every subcommand needs: errors, progress lines, a quiet Spark session, paths.

* :class:`CliError`: a problem with the command line or its inputs; ``main``
  prints it as one line and exits with status 2.
* :class:`Progress`: status lines and progress bars on stderr (``--quiet``
  silences them).
* :class:`SparkRuntime`: the Spark session, started on first use. It reuses
  the active session when there is one (a notebook, a test); otherwise it
  starts :func:`~spark_assign.spark.session.local_session` with Spark's own
  console output (banner, JVM warnings, log lines) sent to a log file, unless
  ``--verbose``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Optional, TextIO

from tqdm import tqdm

from ..errors import SparkAssignError
from ..progress import progress
from ..spark.delta import is_path  # the one path-or-name rule, shared with AssignmentTable
from .tables import format_seconds

__all__ = ["CliError", "Progress", "SparkRuntime", "is_path", "is_delta_table", "require_table", "writable_table",
           "output_file"]


class CliError(SparkAssignError, ValueError):
    """A bad command line or input: shown as ``spark-assign: error: <message>``, exit status 2."""


class Progress:
    """Status lines and progress bars on a stream (stderr by default); silent when ``enabled``
    is false."""

    def __init__(self, enabled: bool = True, stream: Optional[TextIO] = None) -> None:
        self.enabled = enabled
        self.stream = stream

    def say(self, message: str) -> None:
        """Write one status line (above the progress bars on the same stream, if any)."""
        if self.enabled:
            stream = self.stream or sys.stderr
            tqdm.write(message, file=stream)
            stream.flush()

    def bar(self, total: int, description: str, unit: str) -> tqdm:
        """A progress bar on this stream (see :func:`spark_assign.progress.progress`): on a
        terminal only, never with ``--quiet``, unless ``$SPARK_ASSIGN_PROGRESS`` says otherwise."""
        return progress(total, description, None if self.enabled else False, unit=unit,
                        file=self.stream or sys.stderr)


def is_delta_table(path: str) -> bool:
    """Whether ``path`` is a directory holding a Delta log."""
    return os.path.isdir(os.path.join(os.path.expanduser(path), "_delta_log"))


def require_table(location: str) -> str:
    """Check, before Spark starts, that a path ``--table`` exists; return the location to open.

    A path is returned absolute, so that whoever opens it next sees a path
    whatever its own rule (``fleet``, a folder in the working directory, is a
    path here only because it exists). Catalog names are returned as they are:
    the catalog is asked once Spark runs.
    """
    if not is_path(location):
        return location
    path = os.path.abspath(os.path.expanduser(location))
    if not os.path.exists(path):
        raise CliError(f"no such table: {location} does not exist")
    if not is_delta_table(path):
        raise CliError(f"{location} is not a Delta table (it has no _delta_log)")
    return path


def output_file(path: str, option: str) -> str:
    """The absolute path of a file a command will write (``--report``, ``--out``): not a folder,
    in a folder that exists; checked before any work."""
    full = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(full):
        raise CliError(f"{option}: {path} is a folder; give a file name such as report.html")
    if not os.path.isdir(os.path.dirname(full)):
        raise CliError(f"{option}: no such folder: {os.path.dirname(full)}")
    return full


def writable_table(location: str, option: str = "--table") -> str:
    """Check, before Spark starts, that a path ``--table`` may be written: absent, an empty
    folder, or a Delta table (never a file, nor a folder of other files); the location to open
    (a path made absolute, a catalog name as it is).

    Example::

        writable_table("./state")      # "/home/me/state"
    """
    if not is_path(location):
        return location
    path = os.path.abspath(os.path.expanduser(location))
    if os.path.isfile(path):
        raise CliError(f"{option}: {location} is a file, not a folder")
    if os.path.isdir(path) and not is_delta_table(path) and any(os.scandir(path)):
        raise CliError(f"{option}: {location} is a folder that is not a Delta table; refusing to write into it")
    return path


def _live_default_session(session_class):
    """The process's classic default session when it is running (another thread's, say), else None.

    ``getActiveSession`` only sees the calling thread's session; starting a new
    one would return that same default session through ``getOrCreate``, and
    the command would then stop a session it does not own.
    """
    session = getattr(session_class, "_instantiatedSession", None)
    try:
        return session if session is not None and session._sc._jsc is not None else None
    except AttributeError:
        return None


class SparkRuntime:
    """The command's Spark session, created on first use by :meth:`session`.

    Parameters
    ----------
    verbose:
        Show Spark's own console output (log level WARN) instead of a log file.
    master:
        The master of a session started here (``local[2]`` by default).
    conf:
        More Spark settings for a session started here.
    progress:
        Where to say that Spark is starting, and how long it took.
    """

    def __init__(self, verbose: bool = False, master: str = "local[2]", conf: Optional[Dict[str, str]] = None,
                 progress: Optional[Progress] = None) -> None:
        self.verbose = verbose
        self.master = master
        self.conf = dict(conf or {})
        self.progress = progress or Progress(False)
        self.log_path: Optional[str] = None
        self._spark = None
        self._owned = False

    @property
    def started(self) -> bool:
        """Whether a session is in use."""
        return self._spark is not None

    def session(self):
        """The active SparkSession, or a new local one (quiet unless verbose)."""
        if self._spark is not None:
            return self._spark
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession() or _live_default_session(SparkSession)
        if active is not None:  # not ours: never stopped here
            self._spark = active
            return active
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from ..spark.session import local_session

        self.progress.say(f"starting Spark ({self.master}) ...")
        began = time.perf_counter()
        if self.verbose:
            self._spark = local_session(master=self.master, quiet=False, **self.conf)
        else:
            self._spark = self._quiet_start(local_session)
        self._owned = True
        self.progress.say(f"Spark ready in {format_seconds(time.perf_counter() - began)}")
        return self._spark

    def _quiet_start(self, start):
        """Start Spark with file descriptor 2 pointing to a log file.

        The JVM inherits that descriptor, so its banner, warnings and log lines
        (and those of the Python workers it forks) go to the log for the whole
        session; Python's own stderr is restored as soon as the session is up.
        """
        fd, self.log_path = tempfile.mkstemp(prefix="spark-assign-", suffix=".log")
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(fd, 2)
            return start(master=self.master, quiet=True, **self.conf)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            os.close(fd)

    def close(self, failed: bool = False) -> None:
        """Stop a session started here; delete its log unless the command failed."""
        if self._spark is not None and self._owned:
            try:
                self._spark.stop()
            except Exception:  # noqa: BLE001 - stopping is best effort at exit
                pass
        self._spark = None
        if self.log_path and not failed:
            try:
                Path(self.log_path).unlink()
            except OSError:
                pass
            self.log_path = None
