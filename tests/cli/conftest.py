"""CLI tests: ``spark_assign.cli.main`` runs in-process, on the one Spark session of tests/spark.

``main`` reuses the active SparkSession (and never stops a session it did not
start), so every command here runs on the shared session: real Spark, real
Delta folders under ``tmp_path``. The fleets are tiny to keep the folder fast.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pandas as pd
import pytest

from spark_assign.cli import main
from spark_assign.cli.runtime import SparkRuntime

from ..spark.conftest import spark  # noqa: F401

#: The small scenario most tests share: two strategies, churn, cooperative transfers.
SCENARIO_YAML = """\
# two groups, churn in every later generation
groups: 2
members: 2
topics: {orders: 6, payments: 3}
generations: 3
joins: 2
leaves: 1
crashes: 1
static-share: 0.5
seed: 3
strategies: [sticky, cooperative-sticky]
title: CLI test fleet
"""


@dataclass
class Run:
    """The outcome of one ``spark-assign`` run: exit status, stdout and stderr."""

    status: int
    out: str
    err: str

    @property
    def err_lines(self) -> List[str]:
        return self.err.splitlines()


def run_cli(*argv: str) -> Run:
    """``spark-assign ARGV...`` in-process."""
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], stdout=out, stderr=err)
    return Run(status, out.getvalue(), err.getvalue())


@pytest.fixture(autouse=True)
def spark_only_when_asked(request, monkeypatch):
    """A test without the ``spark`` fixture must not reach Spark: its command fails (or ends) before.

    That is what the CLI promises for mistakes (found before Spark starts), and
    it keeps the run at one SparkSession: a command would otherwise start
    (and stop) a session of its own.
    """
    if "spark" in request.fixturenames:
        return

    def no_spark(self):
        raise AssertionError("this command started Spark")

    monkeypatch.setattr(SparkRuntime, "session", no_spark)


@pytest.fixture
def cli(spark):  # noqa: F811 - the shared session must be up (and active) before main runs
    """``cli("history", "--table", path)`` -> :class:`Run`."""
    return run_cli


def state_rows(path) -> pd.DataFrame:
    """Every row of the state table at ``path``, read with delta-rs (independently of the CLI)."""
    from deltalake import DeltaTable

    return DeltaTable(str(path)).to_pandas()


@dataclass
class Simulated:
    table: Path
    scenario: Path
    run: Run
    rows: pd.DataFrame


@pytest.fixture(scope="session")
def simulated(spark, tmp_path_factory) -> Simulated:  # noqa: F811
    """One ``simulate`` of :data:`SCENARIO_YAML` into a fresh table, shared by history, diff and report."""
    folder = tmp_path_factory.mktemp("simulated")
    scenario = folder / "fleet.yaml"
    scenario.write_text(SCENARIO_YAML, encoding="utf-8")
    table = folder / "fleet"
    result = run_cli("simulate", "--scenario", scenario, "--table", table, "--report", folder / "sim.html")
    assert result.status == 0, result.err
    return Simulated(table, scenario, result, state_rows(table))


def written_metadata(commit: dict) -> Optional[dict]:
    """What spark-assign wrote into a commit (a delta-rs history entry), as Delta stores it: a
    ``spark_assign`` commitInfo entry (embedded engine) or the ``userMetadata`` JSON (delta-spark)."""
    if commit.get("spark_assign"):
        return json.loads(commit["spark_assign"])
    if commit.get("userMetadata"):
        return json.loads(commit["userMetadata"]).get("spark_assign")
    return None


def text_table(text: str, title: str = None) -> List[dict]:
    """The rows of an aligned plain-text table in ``text`` (the first one, or the one under ``title``).

    Columns are cut where the ``----`` rule under the header is, so cells with
    spaces (``1 join, 1 leave``) stay whole. ``(none)`` gives no rows.
    """
    lines = text.splitlines()
    start = 0
    if title is not None:
        start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    rule = next(i for i in range(start, len(lines)) if lines[i] and set(lines[i].replace(" ", "")) == {"-"})
    spans, pos = [], 0
    for dashes in lines[rule].split("  "):
        if dashes:
            begin = lines[rule].index(dashes, pos)
            spans.append((begin, begin + len(dashes)))
            pos = begin + len(dashes)
    header = [lines[rule - 1][a:b].strip() for a, b in spans]
    rows = []
    for line in lines[rule + 1:]:
        if not line.strip() or line.strip() == "(none)":
            break
        cells = [line[a:b].strip() for a, b in spans[:-1]] + [line[spans[-1][0]:].strip()]
        rows.append(dict(zip(header, cells)))
    return rows
