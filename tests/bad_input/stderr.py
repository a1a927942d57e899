"""The Spark surfaces' bad-input cases run in one child process per surface, which also captures stderr.

A case's stderr is what a user's script shows on the terminal: the JVM's log
lines, Python workers' tracebacks. Checking it needs a process whose file
descriptor 2 points at a file before Spark starts, so every case of the
DataFrame, SQL and state surfaces runs in ``python -m tests.bad_input.child
SURFACE KEY...`` (one process per surface: one Spark start, not one per case)
and only there: the child runs the case's full check (exception type, message,
nothing written) and reports, per case, the outcome and what it wrote to
stderr. Each pytest case (``test_bad_input[member-id-null]``, its own name as
before) asserts that report: the check passed and stderr holds no stack. A
surface's child runs the cases this pytest run selected (``-k`` included), in
collection order.

A case is a *key* (``"existing/member-id-null"``: a check's kind and the case
id) that names a check ``check(spark, tmp_path)`` in the surface module's
``CHECKS``; :func:`case_params` makes the keys from a table of ``pytest.param``
and :func:`checks` the checks.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

import pytest

from .conftest import STDERR_MARKS

ROOT = Path(__file__).resolve().parents[2]
#: The surfaces whose cases run in a child, and the test module holding each one's ``CHECKS``.
SURFACES = {"dataframe": "tests.bad_input.test_dataframe", "sql": "tests.bad_input.test_sql",
            "state": "tests.bad_input.test_state_table"}
#: The keys of each surface that this pytest run selected (set while collecting, see conftest.py).
SELECTED: Dict[str, List[str]] = {}
#: A whole surface's child may take this long (a loaded 2-core machine, delta-spark's fixed jobs).
TIMEOUT = 3600

Check = Callable[[Any, Path], None]


def case_params(params: Sequence[Any], kind: str) -> List[Any]:
    """``params`` (``pytest.param`` of a case table) as one parameter ``case`` each: the case's key
    ``kind/id``, shown under the case's own id, with its marks."""
    return [pytest.param(f"{kind}/{p.id}", id=p.id, marks=p.marks) for p in params]


def checks(params: Sequence[Any], kind: str, check: Callable[..., None]) -> Dict[str, Check]:
    """Key -> ``check(spark, tmp_path, *values of the param)`` for a case table."""
    return {f"{kind}/{p.id}": functools.partial(_bound, check, tuple(p.values)) for p in params}


def _bound(check: Callable[..., None], values: tuple, spark: Any, tmp: Path) -> None:
    check(spark, tmp, *values)


@functools.lru_cache(maxsize=None)
def child_report(surface: str) -> Dict[str, Dict[str, Any]]:
    """Run the child for ``surface`` once (its selected keys); its per-case report."""
    keys = SELECTED.get(surface) or list(_module_checks(surface))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPARK_REMOTE", "SPARK_CONNECT", "SPARK_LOCAL_REMOTE"))}
    done = subprocess.run([sys.executable, "-m", "tests.bad_input.child", surface, *keys], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_in_child(surface: str, key: str) -> None:
    """The case ``key`` passed its check in ``surface``'s child, and wrote no stack to stderr."""
    case = child_report(surface).get(key)
    assert case is not None, f"{key} did not run in the child"
    if case["outcome"] == "skipped":
        pytest.skip(case["detail"])
    if case["outcome"] == "failed":
        pytest.fail(f"in the child process:\n{case['detail']}", pytrace=False)
    for mark in STDERR_MARKS:
        assert mark not in case["stderr"], f"{mark!r} on stderr: {case['stderr'][:3000]}"


def _module_checks(surface: str) -> Dict[str, Check]:
    import importlib

    return importlib.import_module(SURFACES[surface]).CHECKS
