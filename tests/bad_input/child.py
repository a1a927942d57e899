"""A user's script running bad inputs: ``python -m tests.bad_input.child SURFACE KEY...``.

Points file descriptor 2 at a temporary file before Spark starts (the JVM and
the Python workers inherit it), builds :func:`spark_assign.local_session`
(``local[1]``, with delta-spark when its jars are found, as the tests'
session), registers the SQL functions, and runs the check of each KEY of
``SURFACE`` (``dataframe``, ``sql`` or ``state``; see
``tests/bad_input/stderr.py``). Before each check it writes a marker line to
stderr, so what follows, up to the next marker, is that case's. It prints one
JSON line: per key, the outcome (``passed``, ``failed``, ``skipped``), the
failure's traceback, and the case's stderr.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Dict, List

import pytest

#: Written to stderr before each case: the case's stderr follows it.
MARK = "@@spark-assign-bad-input-case "
#: The marker's key after the last case.
END = "(end)"
#: Lets the JVM's asynchronous log lines of a case land before the next marker.
SETTLE_SECONDS = 0.1


def run(surface: str, keys: List[str]) -> Dict[str, Dict[str, Any]]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log = tempfile.NamedTemporaryFile(prefix="bad-input-stderr-", delete=False)
    os.dup2(log.fileno(), 2)                                  # the JVM and the workers inherit it
    import spark_assign
    from spark_assign import local_session

    from .stderr import SURFACES
    from ..delta import session_conf

    checks = importlib.import_module(SURFACES[surface]).CHECKS
    spark = local_session(master="local[1]", with_delta=False,
                          **{"spark.sql.shuffle.partitions": "1", **session_conf()})
    spark_assign.register(spark)
    tmp = Path(tempfile.mkdtemp(prefix="bad-input-"))
    report: Dict[str, Dict[str, Any]] = {}
    for number, key in enumerate(keys):
        sys.stderr.flush()
        os.write(2, f"\n{MARK}{key}\n".encode())
        outcome, detail = "passed", ""
        try:
            case_tmp = tmp / f"case-{number}"
            case_tmp.mkdir()
            checks[key](spark, case_tmp)
        except pytest.skip.Exception as e:
            outcome, detail = "skipped", str(e)
        except (Exception, pytest.fail.Exception):  # noqa: BLE001 - a failed check (an assert, "DID NOT RAISE")
            outcome, detail = "failed", traceback.format_exc()[-6000:]
        time.sleep(SETTLE_SECONDS)
        sys.stderr.flush()
        report[key] = {"outcome": outcome, "detail": detail}
    os.write(2, f"\n{MARK}{END}\n".encode())                # what stopping Spark logs is no case's
    spark.stop()
    for key, text in _per_case(log.name).items():
        if key in report:
            report[key]["stderr"] = text
    return report


def _per_case(path: str) -> Dict[str, str]:
    """The log's text after each case's marker, up to the next one."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    cases: Dict[str, str] = {}
    for chunk in text.split("\n" + MARK)[1:]:
        key, _, rest = chunk.partition("\n")
        cases[key] = rest
    return cases


def main(argv: List[str]) -> None:
    report = run(argv[0], argv[1:])
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
