"""The ``spark-assign`` command line: ``demo``, ``simulate``, ``rebalance``, ``history``, ``diff``, ``report``,
``replicas``.

Installed as the ``spark-assign`` console script (and ``python -m spark_assign.cli``)::

    spark-assign demo
    spark-assign simulate --groups 100 --generations 8 --joins 1 --leaves 1 --table ./sim --report sim.html
    spark-assign history --table ./sim --group g042

:func:`main` takes the arguments (``sys.argv[1:]`` by default) and returns the
exit status, so it can run in-process, e.g. from tests or a notebook, where it
reuses the active SparkSession. Errors:

* a bad command line or input (unknown strategy, missing path, bad scenario
  file, malformed rows, ...): one line ``spark-assign: error: ...`` on stderr,
  status 2, no traceback;
* anything unexpected (a bug, a Spark failure): one line naming the exception,
  status 1; ``--verbose`` adds the traceback (and shows Spark's own logs);
* Ctrl-C: status 130.

See docs/cli.md for the guide.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
import warnings
from typing import List, Optional, Sequence, TextIO

__all__ = ["main"]

#: Longest error message printed (a Spark error can be long).
MAX_MESSAGE = 600


def _one_line(error: BaseException) -> str:
    text = " ".join(line.strip() for line in str(error).strip().splitlines()[:1]) or type(error).__name__
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


def _is_input_error(error: BaseException) -> bool:
    """Errors that mean the user's input or command is wrong (exit status 2)."""
    from ..errors import SparkAssignError

    if isinstance(error, (SparkAssignError, FileNotFoundError, NotADirectoryError, IsADirectoryError,
                          PermissionError)):
        return True
    try:
        from pyspark.errors import AnalysisException
    except ImportError:  # pragma: no cover - pyspark is a dependency
        return False
    return isinstance(error, AnalysisException)


def _silence_stdout(out: TextIO) -> None:
    """After a broken pipe on the process's stdout: point it to /dev/null so exiting does not complain."""
    if out is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: Optional[Sequence[str]] = None, stdout: Optional[TextIO] = None,
         stderr: Optional[TextIO] = None) -> int:
    """Run ``spark-assign`` with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    ``stdout`` receives the results (tables, paths), ``stderr`` progress lines
    and errors; both default to the process's streams.
    """
    from .commands import COMMANDS, Context
    from .parser import UsageError, build_parser, parse_conf
    from .runtime import Progress, SparkRuntime

    err = stderr or sys.stderr
    out = stdout or sys.stdout
    args_list: List[str] = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out):  # --help and --version print to ``stdout``
            args = parser.parse_args(args_list)
    except UsageError as e:
        hint = f"see '{e.prog} --help'"
        err.write(f"spark-assign: error: {_one_line(e)} ({hint})\n")
        return 2
    except SystemExit as e:  # --help, --version
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    if args.command is None:
        err.write("spark-assign: error: choose a command: "
                  "demo, simulate, rebalance, history, diff, report or replicas (see 'spark-assign --help')\n")
        return 2
    progress = Progress(not args.quiet, err)
    runtime = SparkRuntime(verbose=args.verbose, master=args.master, conf=parse_conf(args.conf), progress=progress)
    ctx = Context(runtime, progress, out)
    failed = True
    try:
        with _warnings_as_lines(err):
            status = COMMANDS[args.command](args, ctx)
        failed = False
        return status
    except KeyboardInterrupt:
        err.write("spark-assign: interrupted\n")
        return 130
    except BrokenPipeError:  # the output went to a pager or `head` that stopped reading
        failed = False
        _silence_stdout(out)
        return 141
    except Exception as e:  # noqa: BLE001 - the command line's last line of defence
        if args.verbose:
            traceback.print_exception(type(e), e, e.__traceback__, file=err)
        if _is_input_error(e):
            err.write(f"spark-assign: error: {_one_line(e)}\n")
            return 2
        log = f"; Spark's log: {runtime.log_path}" if runtime.log_path else ""
        hint = "" if args.verbose else " (run with --verbose for the traceback)"
        err.write(f"spark-assign: error: unexpected {type(e).__name__}: {_one_line(e)}{hint}{log}\n")
        return 1
    finally:
        err.flush()
        runtime.close(failed=failed)


@contextlib.contextmanager
def _warnings_as_lines(err: TextIO):
    """spark-assign's warnings (likely mistakes that Kafka allows) as one line each on ``err``,
    every time they occur; other warnings as Python shows them."""
    from ..errors import SparkAssignWarning

    with warnings.catch_warnings():
        warnings.simplefilter("always", SparkAssignWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, SparkAssignWarning):
                err.write(f"spark-assign: warning: {_one_line(message)}\n")
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
