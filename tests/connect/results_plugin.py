"""A pytest plugin for the Connect child run: writes each test's outcome to the JSON file named
by ``$SPARK_ASSIGN_CONNECT_RESULTS``, so tests/spark/test_connect.py can report every
Connect test under its own name."""

from __future__ import annotations

import json
import os

_results: dict = {}


def pytest_runtest_logreport(report) -> None:
    entry = _results.setdefault(report.nodeid, {"outcome": "passed", "detail": ""})
    if report.skipped and report.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        entry.update(outcome="skipped", detail=reason)
    elif report.failed:
        entry.update(outcome="failed", detail=f"{report.when}: {report.longreprtext}")


def pytest_sessionfinish(session) -> None:
    path = os.environ.get("SPARK_ASSIGN_CONNECT_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(_results, out)
