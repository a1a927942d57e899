"""Steps, follow-ups and members: the report measures what a platform engineer means.

* A restarted static member's old id, still named by a pending ``revoked`` row, is not a member.
* Generations sit on the fleet's steps; a cooperative follow-up is shown beside its step, never as one.
* "Moved or revoked per rebalance" counts rebalances, not follow-ups.
* Coinciding lines of two strategies both stay visible (SVG, and pixels in Chromium).
"""

from __future__ import annotations

from typing import List

import pandas as pd
import pytest

from spark_assign.report import (STATUS_MEANINGS, balance, generation_members, group_metrics, group_summary,
                                 latest_assignment, legend_lines, metrics, render_html, step_label, steps,
                                 strategy_colours)

from .chromium import browser, find_chromium  # noqa: F401 (browser: a fixture)
from .fleets import COLUMNS, COOP, STICKY
from .test_report import by_id, local, marks, parse, pixel_shares, table_rows

UNIFORM = "uniform"
SPREAD = ["members", "min_partitions", "max_partitions", "spread"]


class Table:
    """Builds state rows commit by commit, as ``AssignmentTable.rebalance`` writes them."""

    def __init__(self) -> None:
        self.rows: List[dict] = []
        self.version = 0

    def commit(self, strategy: str, groups: dict) -> int:
        """One commit: ``{group: (generation, fingerprint, [(member, partition, previous, status, instance)])}``."""
        self.version += 1
        for group, (generation, fingerprint, parts) in groups.items():
            for member, partition, previous, status, *instance in parts:
                self.rows.append(dict(
                    group_id=group, generation=generation, member_id=member, topic="t", partition=partition,
                    previous_member_id=previous, status=status, strategy=strategy,
                    group_instance_id=(instance or [None])[0] if member is not None else None,
                    committed_at=pd.Timestamp("2024-06-01", tz="UTC") + pd.Timedelta(minutes=self.version),
                    input_fingerprint=fingerprint, commit_version=self.version))
        return self.version

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=COLUMNS + ["commit_version"])


def restart_rows(heir_keeps: bool = True) -> pd.DataFrame:
    """cooperative-sticky, one group: the static member ``s-b`` restarts as ``b2`` and loses a partition.

    * generation 1: a owns 0-2, b1 (instance s-b) owns 3-6, c owns 7-8.
    * generation 2: b1 restarted as b2 (same instance). ``heir_keeps``: b2 keeps 3-5 from b1 and partition 6
      is revoked from it; the revoked row names b1, the old id. Otherwise b2 gets the new partition 9 and all
      of b1's partitions are revoked (only the instance id links b2 to b1).
    * generation 3: the follow-up (same inputs) assigns what was revoked.
    """
    t = Table()
    t.commit(COOP, {"g": (1, "f1", [("a", 0, None, "new"), ("a", 1, None, "new"), ("a", 2, None, "new"),
                                    ("b1", 3, None, "new", "s-b"), ("b1", 4, None, "new", "s-b"),
                                    ("b1", 5, None, "new", "s-b"), ("b1", 6, None, "new", "s-b"),
                                    ("c", 7, None, "new"), ("c", 8, None, "new")])})
    kept_a_c = [("a", 0, "a", "kept"), ("a", 1, "a", "kept"), ("a", 2, "a", "kept"),
                ("c", 7, "c", "kept"), ("c", 8, "c", "kept")]
    if heir_keeps:
        b = [("b2", 3, "b1", "kept", "s-b"), ("b2", 4, "b1", "kept", "s-b"), ("b2", 5, "b1", "kept", "s-b"),
             (None, 6, "b1", "revoked")]
        later = [("b2", p, "b2", "kept", "s-b") for p in (3, 4, 5)] + [("c", 6, None, "assigned")]
    else:
        b = [("b2", 9, None, "new", "s-b")] + [(None, p, "b1", "revoked") for p in (3, 4, 5, 6)]
        later = [("b2", 9, "b2", "kept", "s-b"), ("b2", 3, None, "assigned", "s-b"), ("b2", 4, None, "assigned", "s-b"),
                 ("c", 5, None, "assigned"), ("a", 6, None, "assigned")]
    t.commit(COOP, {"g": (2, "f2", kept_a_c + b)})
    settled = [r if r[1] not in (7, 8) else (r[0], r[1], r[2], "kept") for r in kept_a_c]
    t.commit(COOP, {"g": (3, "f2", settled + later)})
    return t.frame()


# ----------------------------------------------------------------- members
@pytest.mark.parametrize("heir_keeps", [True, False], ids=["heir-keeps-a-partition", "linked-by-instance-id"])
def test_a_restarted_static_members_old_id_on_a_pending_revoked_row_is_not_a_member(heir_keeps):
    rows = restart_rows(heir_keeps)
    gm = group_metrics(rows).set_index("generation")
    # Generation 2's members are a, b2 and c: b1, named only by the revoked rows, left (it is b2 now).
    expected = [3, 2, 3, 1] if heir_keeps else [3, 1, 3, 2]        # members, min, max, spread
    assert gm.loc[2, SPREAD].tolist() == expected
    shown = generation_members(rows)
    assert set(shown.loc[shown["generation"] == 2, "member_id"]) == {"a", "b2", "c"}
    # The one definition, called on its own, agrees: the old id stands for its successor (found by its
    # instance id in the generations before, when the successor keeps none of its partitions).
    assert balance(rows[rows["generation"] <= 2], ["group_id", "generation"]).loc[("g", 2)].tolist() == expected
    # And the report's other figures: the worst spread, and who is revoking in the latest assignment.
    assert group_summary(rows)["worst_spread"].item() == 2          # generation 1's (b1 4, c 2); not 3 - 0
    latest = latest_assignment(rows[rows["generation"] <= 2])
    assert latest["member_id"].tolist() == ["a", "b2", "c"]
    assert latest.set_index("member_id").loc["b2", "revoking"] == (1 if heir_keeps else 4)


def test_a_member_revoking_its_only_partition_is_still_a_member():
    t = Table()
    t.commit(COOP, {"g": (1, "f1", [("e", 0, None, "new"), ("f", 1, None, "new")])})
    t.commit(COOP, {"g": (2, "f2", [("e", 0, "e", "kept"), (None, 1, "f", "revoked")])})
    assert group_metrics(t.frame()).set_index("generation").loc[2, SPREAD].tolist() == [2, 0, 1, 1]


def test_a_joiner_owning_nothing_until_the_follow_up_is_a_member_of_the_step():
    # c joins; cooperative-sticky revokes 1 from a, and c only receives it in the follow-up (same inputs).
    t = Table()
    t.commit(COOP, {"g": (1, "f1", [("a", 0, None, "new"), ("a", 1, None, "new"), ("b", 2, None, "new")])})
    t.commit(COOP, {"g": (2, "f2", [("a", 0, "a", "kept"), (None, 1, "a", "revoked"), ("b", 2, "b", "kept")])})
    t.commit(COOP, {"g": (3, "f2", [("a", 0, "a", "kept"), ("c", 1, None, "assigned"), ("b", 2, "b", "kept")])})
    gm = group_metrics(t.frame()).set_index("generation")
    assert gm.loc[2, SPREAD].tolist() == [3, 0, 1, 1]      # a 1, b 1, c 0: c is in the group, owning nothing
    assert gm.loc[3, SPREAD].tolist() == [3, 1, 1, 0]
    assert (gm.loc[3, "step"], gm.loc[3, "follow_up"], gm.loc[3, "is_follow_up"]) == (2, 1, True)


# ----------------------------------------------------------------- steps
def step_rows() -> pd.DataFrame:
    """Three simulation steps of two groups under sticky and cooperative-sticky, in simulate's commit order.

    * step 1: both groups start. step 2: g1 changes (c joins), g2 does not (no commit for it).
      Sticky moves t-1 to c; cooperative-sticky revokes it, then a follow-up round assigns it.
    * step 3: both groups change (a partition is added to each).
    Cooperative g1's own counter reaches 4 where sticky's reaches 3; g2 has generations 1 and 2 only.
    """
    t = Table()
    for s in (STICKY, COOP):
        t.commit(s, {"g1": (1, "g1-1", [("a", 0, None, "new"), ("a", 1, None, "new"), ("b", 2, None, "new"),
                                        ("b", 3, None, "new")]),
                     "g2": (1, "g2-1", [("x", 0, None, "new"), ("y", 1, None, "new")])})
    # step 2
    t.commit(STICKY, {"g1": (2, "g1-2", [("a", 0, "a", "kept"), ("c", 1, "a", "moved"), ("b", 2, "b", "kept"),
                                         ("b", 3, "b", "kept")])})
    t.commit(COOP, {"g1": (2, "g1-2", [("a", 0, "a", "kept"), (None, 1, "a", "revoked"), ("b", 2, "b", "kept"),
                                       ("b", 3, "b", "kept")])})
    t.commit(COOP, {"g1": (3, "g1-2", [("a", 0, "a", "kept"), ("c", 1, None, "assigned"), ("b", 2, "b", "kept"),
                                       ("b", 3, "b", "kept")])})
    # step 3
    for s, gen in ((STICKY, 3), (COOP, 4)):
        t.commit(s, {"g1": (gen, "g1-3", [("a", 0, "a", "kept"), ("c", 1, "c", "kept"), ("b", 2, "b", "kept"),
                                          ("b", 3, "b", "kept"), ("a", 4, None, "new")]),
                     "g2": (2, "g2-3", [("x", 0, "x", "kept"), ("y", 1, "y", "kept"), ("x", 2, None, "new")])})
    return t.frame()


def test_generations_sit_on_the_fleets_steps_and_follow_ups_beside_them():
    st = steps(step_rows()).set_index(["strategy", "group_id", "generation"])
    assert st.loc[(COOP, "g1"), ["step", "follow_up"]].values.tolist() == [[1, 0], [2, 0], [2, 1], [3, 0]]
    assert st.loc[(STICKY, "g1"), ["step", "follow_up"]].values.tolist() == [[1, 0], [2, 0], [3, 0]]
    assert st.loc[(COOP, "g2"), "step"].tolist() == [1, 3]     # its generation 2 is the fleet's step 3
    assert st["is_follow_up"].sum() == 1 and st.loc[(COOP, "g1", 3), "is_follow_up"]

    m = metrics(step_rows())
    slots = {(r.strategy, r.step, r.follow_up): r for r in m.itertuples(index=False)}
    assert sorted(slots) == [(COOP, 1, 0), (COOP, 2, 0), (COOP, 2, 1), (COOP, 3, 0),
                             (STICKY, 1, 0), (STICKY, 2, 0), (STICKY, 3, 0)]
    # At step 3 both strategies show both groups (not sticky's step 3 next to a cooperative follow-up).
    assert slots[(STICKY, 3, 0)].groups_rebalanced == slots[(COOP, 3, 0)].groups_rebalanced == 2
    assert (slots[(COOP, 2, 1)].assigned, slots[(COOP, 2, 1)].follow_ups) == (1, 1)
    assert slots[(COOP, 2, 0)].members_max == 3          # c, receiving in the follow-up, is a member at step 2


def test_the_report_axis_is_steps_with_follow_ups_marked():
    root = parse(render_html(step_rows()))
    moves = marks(root, "moves-chart")
    assert moves[(STICKY, "moved", 2, 0)] == 1 and moves[(COOP, "revoked", 2, 0)] == 1
    assert moves[(COOP, "assigned", 2, 1)] == 1
    axis = [e for e in by_id(root, "moves-chart").iter() if e.get("class") == "axis x-axis"][0]
    assert ["".join(t.itertext()) for t in axis if local(t.tag) == "text"] == ["1", "2", "f/u", "3"]
    bands = [e for e in by_id(root, "moves-chart").iter() if e.get("class") == "follow-up-band"]
    assert len(bands) == 1
    per_step = {(r[0], r[1]): r for r in table_rows(root, "generations-table")}
    assert set(per_step) == {(COOP, "1"), (COOP, "2"), (COOP, "2 follow-up"), (COOP, "3"),
                             (STICKY, "1"), (STICKY, "2"), (STICKY, "3")}
    kpis = {e.get("data-kpi"): "".join(e.itertext()) for e in root.iter() if e.get("data-kpi")}
    assert kpis["Steps"].startswith("3")
    sub = "".join(by_id(root, "summary").find("{*}p").itertext())
    assert "steps 1\u20133 (+1 follow-up round)" in sub

    # Rebalances per strategy count steps, not follow-ups: cooperative g1 rebalanced 3 times, plus 1 follow-up.
    compare = {r[0]: r[1:] for r in table_rows(root, "compare-table")}
    assert compare["Group rebalances (follow-ups apart)"] == ["5", "5"]
    assert compare["Follow-up rebalances"] == ["1", "0"]
    assert compare["Moved or revoked per rebalance"] == ["0.2", "0.2"]
    groups = {(r[0], r[1]): r for r in table_rows(root, "groups-table")}
    assert groups[(COOP, "g1")][2] == "3" and groups[(COOP, "g1")][11] == "1"   # rebalances, follow-ups


def test_every_status_and_step_is_explained_where_it_is_shown():
    root = parse(render_html(step_rows()))
    legend = "".join(next(e for e in root.iter() if "status-legend" in (e.get("class") or "")).itertext())
    for status, meaning in STATUS_MEANINGS.items():
        assert f"{status}: {meaning}" in legend
    assert "not the number of partitions assigned" in STATUS_MEANINGS["assigned"]
    headings = {"".join(th.itertext()): th.get("title") for th in by_id(root, "generations-table").iter()
                if local(th.tag) == "th"}
    assert headings["Assigned"] == STATUS_MEANINGS["assigned"] and headings["New"] == STATUS_MEANINGS["new"]
    assert "follow-up" in headings["Step"]
    text = "\n".join(legend_lines(figures=["step"]))
    assert text.startswith("step: ") and "assigned = a revoked partition" in text
    assert [step_label(3, 0), step_label(3, 1), step_label(3, 2)] == ["3", "3 follow-up", "3 follow-up 2"]


def test_rows_without_commit_versions_or_fingerprints_still_find_follow_ups():
    rows = step_rows()
    bare = rows.drop(columns=["commit_version", "input_fingerprint"])
    st = steps(bare).set_index(["strategy", "group_id", "generation"])
    assert st.loc[(COOP, "g1"), ["step", "follow_up"]].values.tolist() == [[1, 0], [2, 0], [2, 1], [3, 0]]
    pd.testing.assert_frame_equal(metrics(bare), metrics(rows))
    # One group's history alone cannot count the fleet's rounds: pass the fleet's steps.
    g2 = rows[(rows["group_id"] == "g2") & (rows["strategy"] == COOP)]
    assert group_metrics(g2)["step"].tolist() == [1, 2]
    assert group_metrics(g2, steps=steps(rows))["step"].tolist() == [1, 3]


# ----------------------------------------------------------------- coinciding lines
def twins(n_steps: int = 5) -> pd.DataFrame:
    """sticky and uniform with the very same rows: their lines coincide in every chart."""
    t = Table()
    for step in range(1, n_steps + 1):
        parts = [(f"m{p % (2 + step % 3)}", p, None, "new") for p in range(7 + step)]
        for s in (STICKY, UNIFORM):
            t.commit(s, {"g": (step, f"f{step}", parts)})
    return t.frame()


def _line_widths(root, chart: str, series: str) -> dict:
    return {e.get("data-strategy"): float(e.get("stroke-width")) for e in by_id(root, chart).iter()
            if local(e.tag) == "path" and e.get("data-series") == series}


def test_coinciding_lines_are_drawn_one_over_the_other_narrower_and_their_points_apart():
    root = parse(render_html(twins()))
    widths = _line_widths(root, "balance-chart", "spread_max")
    assert widths[STICKY] > widths[UNIFORM]                   # sticky first and wider: its outline shows
    points = {(e.get("data-strategy"), e.get("data-step")): float(e.get("cx")) for e in by_id(root, "balance-chart").iter()
              if local(e.tag) == "circle" and e.get("data-series") == "spread_max"}
    assert all(points[(STICKY, s)] < points[(UNIFORM, s)] for _, s in points)


needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="no Chromium binary on PATH")


@needs_chromium
def test_a_strategy_under_another_still_shows_in_chromium(browser, tmp_path):
    path = tmp_path / "twins.html"
    render_html(twins(), path=path)
    browser.open(path.as_uri(), width=1280, height=900)
    assert browser.evaluate("document.body.getAttribute('data-js-error')") is None
    box = browser.evaluate("(() => { const r = document.getElementById('balance-chart').getBoundingClientRect();"
                           " return [r.x, r.y + scrollY, r.width, r.height]; })()")
    png = browser.screenshot(clip={"x": box[0], "y": box[1], "width": box[2], "height": box[3]})
    shares = pixel_shares(png, strategy_colours([STICKY, UNIFORM]))
    assert shares[STICKY] > 0.002 and shares[UNIFORM] > 0.002, shares
    assert browser.errors == []
