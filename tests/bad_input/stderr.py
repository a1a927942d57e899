"""Runs ``tests.bad_input.child`` once per surface and checks each case's stderr (see child.py)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from .child import CASES
from .conftest import STDERR_MARKS

ROOT = Path(__file__).resolve().parents[2]

#: Cases whose stderr still shows a stack, and where the fix belongs.
LEAKS = {
    ("state", "truncated-parquet-read-by-history"): "a failed read of a damaged data file is a raw "
                                                    "Py4JJavaError (FAILED_READ_FILE) with the JVM stack; "
                                                    "state/table.py or the backends should raise StateTableError",
}


def child_cases(surface: str) -> List[Any]:
    """The case ids of ``surface``, as parameters (known leaks xfail)."""
    return [pytest.param(name, id=name, marks=[pytest.mark.xfail(strict=True, reason=LEAKS[(surface, name)])]
                         if (surface, name) in LEAKS else []) for name in CASES[surface]]


@functools.lru_cache(maxsize=None)
def child_report(surface: str) -> Dict[str, Dict[str, Any]]:
    """Run the child for ``surface`` once; its per-case report."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPARK_REMOTE", "SPARK_CONNECT", "SPARK_LOCAL_REMOTE"))}
    done = subprocess.run([sys.executable, "-m", "tests.bad_input.child", surface], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_child_case(surface: str, name: str) -> None:
    """The case ran in the child, raised its expected error type, and left no stack on stderr."""
    case = child_report(surface)[name]
    assert case["type"] == CASES[surface][name][1], case
    for mark in STDERR_MARKS:
        assert mark not in case["stderr"], f"{mark!r} on stderr: {case['stderr'][:3000]}"
