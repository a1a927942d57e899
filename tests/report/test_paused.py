"""Paused partitions: the figure that tells an eager rebalance from a cooperative one.

The same group, the same moves, under ``sticky`` (eager: every member gives up everything when it
rejoins) and ``cooperative-sticky`` (only what moves stops): the report, its tables and the CLI's
figures count the pause from one rule (``Strategy.paused``).
"""

from __future__ import annotations

from spark_assign.report import fleet_summary, group_metrics, group_summary, metrics, render_html
from spark_assign.report.charts import strategy_totals

from .fleets import COOP, STICKY
from .test_steps import Table


def moving_fleet():
    """One group per strategy, 6 partitions over a and b; generation 2: c joins and takes 2 partitions.
    Eager ``sticky`` moves them at once; ``cooperative-sticky`` revokes them, its follow-up assigns them."""
    t = Table()
    first = [("a", p, None, "new") for p in (0, 1, 2)] + [("b", p, None, "new") for p in (3, 4, 5)]
    t.commit(STICKY, {"g": (1, "f1", first)})
    t.commit(COOP, {"g": (1, "f1", first)})
    kept = [("a", 0, "a", "kept"), ("a", 1, "a", "kept"), ("b", 3, "b", "kept"), ("b", 4, "b", "kept")]
    t.commit(STICKY, {"g": (2, "f2", kept + [("c", 2, "a", "moved"), ("c", 5, "b", "moved")])})
    t.commit(COOP, {"g": (2, "f2", kept + [(None, 2, "a", "revoked"), (None, 5, "b", "revoked")])})
    settled = [(m, p, m, "kept") for m, p, _, _ in kept]
    t.commit(COOP, {"g": (3, "f2", settled + [("c", 2, None, "assigned"), ("c", 5, None, "assigned")])})
    return t.frame()


def test_an_eager_rebalance_pauses_the_whole_group_a_cooperative_one_only_what_moves():
    rows = moving_fleet()
    gm = group_metrics(rows).set_index(["strategy", "generation"])
    assert gm.loc[(STICKY, 1), "paused"] == gm.loc[(COOP, 1), "paused"] == 0       # nothing was owned
    assert gm.loc[(STICKY, 2), "paused"] == 6                                        # everything stops
    assert gm.loc[(COOP, 2), "paused"] == 2 and gm.loc[(COOP, 3), "paused"] == 0   # only the two moving
    per_step = metrics(rows).groupby("strategy")["paused"].sum()
    assert per_step[STICKY] == 6 and per_step[COOP] == 2
    summary = group_summary(rows).set_index("strategy")
    assert summary.loc[STICKY, "movement"] == summary.loc[COOP, "movement"] == 2   # the same moves ...
    assert (summary.loc[STICKY, "paused"], summary.loc[COOP, "paused"]) == (6, 2)  # ... not the same pause
    assert fleet_summary(rows)["paused"] == 8
    totals = strategy_totals(metrics(rows), group_metrics(rows))
    assert totals.loc[STICKY, "paused_per_rebalance"] == 3.0 and totals.loc[COOP, "paused_per_rebalance"] == 1.0


def test_the_report_shows_the_pause_and_says_what_it_is(tmp_path):
    html = render_html(moving_fleet())
    assert 'data-kpi="Partitions paused"' in html and "Partitions paused (eager: all the group owned)" in html
    assert "each member gives up everything when it rejoins" in html               # the heading's tooltip
