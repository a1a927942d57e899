"""Every script in sql/, in order, on a real local session; and the examples of docs/sql.md.

docs/sql.md's Python examples that mention ``spark`` (tests/test_docs.py skips
those) run here with the session, and its SQL examples run in order. SQL blocks
that start with ``-- delta-spark`` need the Delta connector, which cannot run
here (no Maven): they run with ``USING parquet`` in place of ``USING delta``,
and their MERGE statements (Delta tables only) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import spark_assign
from spark_assign.spark.sql import split_statements
from spark_assign.state.consumer.sql import CALL_PATTERN, run_script, without_comments

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "sql").glob("*.sql"))
GUIDE = ROOT / "docs" / "sql.md"
FENCE = re.compile(r"```(python|sql)\n(.*?)```", re.S)


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)


def run(spark, script: Path, state: Path) -> list:
    """Run ``script``; returns the rows of each statement, collected as it runs."""
    return run_script(spark, script, params={"state": str(state)}, collect=True)


def test_there_are_scripts():
    names = [p.name for p in SCRIPTS]
    assert names == ["01_example_tables.sql", "02_assignment_input.sql", "03_one_shot_assignment.sql",
                     "04_generational_loop.sql", "05_analysis.sql", "06_delta_generations.sql", "07_replicas.sql",
                     "08_load_aware.sql"]


def test_every_script_runs_in_order(spark, tmp_path):
    results = {p.name: run(spark, p, tmp_path / "fleet_state") for p in SCRIPTS}
    assert set(results) == {p.name for p in SCRIPTS}
    expected = {r.group_id: r.partitions for r in results["02_assignment_input.sql"][-1]}
    assert expected == {"analytics": 14, "audit": 6, "billing": 10}

    one_shot = results["03_one_shot_assignment.sql"]
    assert len(one_shot[0]) == sum(expected.values())                 # range: one row per partition
    assert {r.status for r in one_shot[0]} == {"new"}
    for r in one_shot[2]:                                             # every strategy covers everything once
        assert r.rows == r.partitions == r.expected == 30, r.strategy
    assert {r.key: r.orders_partition for r in one_shot[4]}["foobar"] == 0   # (-790332482 & 0x7fffffff) % 6
    assert all(r.orders_partition == r.same_from_bytes for r in one_shot[4])
    assert [r.orders_partition for r in one_shot[4] if r.key is None] == [None]

    history = {(r.group_id, r.generation, r.status): r.partitions for r in results["04_generational_loop.sql"][-1]}
    assert history[("billing", 1, "new")] == 10
    assert history.get(("billing", 2, "revoked"), 0) == 0             # a member left: nothing to revoke
    assert history[("analytics", 2, "revoked")] > 0                   # a member joined: cooperative revocation
    assert not [k for k in history if k[1] == 3 and k[2] in ("revoked", "moved")]
    assert sum(n for (g, gen, _), n in history.items() if gen == 3) == 30

    moved, by_status, racks, skew, keys = results["05_analysis.sql"]
    assert sum(r.keys for r in keys) == 10_000 and len(keys) == 6
    assert all(r.spread <= 1 for r in skew if r.generation == 3)       # balanced once transfers complete
    assert {r.generation for r in by_status} == {1, 2, 3}
    assert moved and racks

    delta = results["06_delta_generations.sql"]
    assert [r.view for r in delta[0]] == ["fleet_latest", "fleet_history"]
    assert delta[1][0].partitions_before_the_first_rebalance == 0
    first, second, third, again = (rows[0] for rows in (delta[2], delta[4], delta[5], delta[6]))
    assert first.version is not None and first.groups_recomputed == 3 and first.new == 30
    assert (second.groups_recomputed, second.groups_unchanged) == (2, 1) and second.revoked > 0
    assert (third.groups_recomputed, third.assigned) == (1, second.revoked)     # analytics' transfers
    assert again.version is None and again.groups_recomputed == 0               # idempotent

    load = results["08_load_aware.sql"]
    imbalance = {(r.group_id, r.strategy): (r.imbalance, r.spread) for r in load[2]}
    for group in ("analytics", "billing"):
        assert imbalance[(group, "load-aware")][0] < imbalance[(group, "sticky")][0], group
        assert imbalance[(group, "load-aware")][1] <= 1 and imbalance[(group, "sticky")][1] <= 1
    assert sum(r.partitions for r in load[4]) == 30 and all(r.load > 0 for r in load[4])
    assert {r.status: r.partitions for r in load[-1]} == {"kept": 30}        # small drift moves nothing
    latest, by_status, changed, racks, skew = delta[7:]
    assert sum(r.partitions for r in latest) == 30 and all(r.member_id for r in latest)
    assert {r.group_id: r.generation for r in latest} == {"analytics": 3, "audit": 1, "billing": 2}
    statuses = {(r.group_id, r.generation, r.status): r.partitions for r in by_status}
    assert statuses[("analytics", 2, "revoked")] == statuses[("analytics", 3, "assigned")]
    assert not [k for k in statuses if k[0] == "audit" and k[1] > 1]
    assert {(r.group_id, r.generation) for r in changed} == {("analytics", 2), ("analytics", 3), ("billing", 2)}
    assert sum(r.members for r in racks) == 8 and all(r.spread <= 1 for r in skew)

    replicas = results["07_replicas.sql"]
    per_broker, thin, by_status, moves = replicas[4], replicas[5], replicas[8], replicas[9]
    assert sum(r.replicas for r in per_broker) == 68 and sum(r.leaders for r in per_broker) == 26
    assert thin == []                                                  # eu-1: every partition on 3 zones
    status = {(r.cluster_id, r.status): r.replicas for r in by_status}
    assert sum(status.values()) == 68 and set(status) <= {(c, s) for c in ("eu-1", "us-1") for s in ("kept", "moved")}
    assert status[("eu-1", "moved")] >= sum(r.replicas for r in per_broker if r.broker_id == 1)   # broker 1's share
    assert status[("eu-1", "kept")] > status[("eu-1", "moved")]
    assert status[("us-1", "moved")] > 0                               # broker 15 takes its share
    assert moves and all(len(r.replicas.split(",")) in (2, 3) for r in moves)


def guide_blocks():
    return FENCE.findall(GUIDE.read_text(encoding="utf-8"))


def test_guide_examples_run(spark, tmp_path):
    """Python blocks that mention ``spark`` and every SQL block, in document order; SQL as
    :func:`spark_assign.state.consumer.sql.run_script` runs it (``CALL spark_assign...`` by the bridge).
    The state table's example path ``/data/...`` becomes a temporary folder."""
    blocks = guide_blocks()
    assert [lang for lang, _ in blocks].count("sql") >= 5
    assert any(CALL_PATTERN.match(without_comments(statement)) for lang, code in blocks if lang == "sql"
               for statement in split_statements(code))
    state = str(tmp_path / "guide_state")
    namespace = {"spark": spark, "STATE": state}
    for lang, code in blocks:
        if lang == "python":
            if re.search(r"\bspark\b", code):
                exec(compile(re.sub(r'"/data/[a-z_]+"', "STATE", code), str(GUIDE), "exec"), namespace)
            continue
        delta_spark = code.lstrip().startswith("-- delta-spark")
        for statement in split_statements(code):
            if delta_spark:
                if re.match(r"(--[^\n]*\n\s*)*MERGE\b", statement):
                    continue
                statement = statement.replace("USING delta", "USING parquet")
            run_script(spark, re.sub(r"'/data/[a-z_]+'", repr(state), statement), collect=True)


def test_a_script_shows_its_statements_when_progress_is_asked_for(spark, monkeypatch, capsys):
    monkeypatch.setenv("SPARK_ASSIGN_PROGRESS", "1")
    rows = run_script(spark, "SELECT 1 AS one; SELECT 2 AS two", collect=True)
    assert [r[0][0] for r in rows] == [1, 2]
    shown = capsys.readouterr().err
    assert "run_script" in shown and "2/2" in shown and "SELECT 2 AS two" in shown, shown
