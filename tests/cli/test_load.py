"""The CLI with weights: ``simulate`` with drifting lag (Zipf, a hot partition, a stalled member whose
lag grows with what each strategy gave it) and ``rebalance --weights FILE``."""

from __future__ import annotations

import re

import pytest

from spark_assign.cli.simulate import make_plan, run_plan
from spark_assign.cli.runtime import CliError
from spark_assign.scenario import LagModel, Scenario, generate

from .conftest import run_cli, state_rows, text_table

LOAD_YAML = """\
groups: 2
members: 4
topics: {orders: 12, payments: 6}
generations: 5
lag: zipf
lag-skew: 1.4
hot-partition-at: 3
stall-at: 2
stall-growth: 0.5
seed: 5
strategies: [sticky, load-aware]
title: Load test fleet
"""


@pytest.fixture(scope="module")
def loaded(spark, tmp_path_factory):  # noqa: F811 - the shared session
    folder = tmp_path_factory.mktemp("loaded")
    scenario = folder / "load.yaml"
    scenario.write_text(LOAD_YAML, encoding="utf-8")
    run = run_cli("simulate", "--scenario", scenario, "--table", folder / "t", "--report", folder / "load.html")
    assert run.status == 0, run.err
    return run, state_rows(folder / "t"), folder


def test_simulate_with_lag_stores_weights_and_prints_load(loaded):
    run, rows, folder = loaded
    assert rows["weight"].notna().all() and (rows["weight"] >= 0).all()
    assert ("; Zipf lag drifting 0.05 per generation, a hot partition from generation 3, a member stalling from "
            "generation 2; strategies: sticky, load-aware") in run.err
    summary = text_table(run.out)
    assert {"imbalance max", "vs bound max", "weight moved"} <= set(summary[0])
    steps = [r for r in summary if r["events"] != "follow-up"]
    assert [r["recomputed"] for r in steps] == ["2/2"] * 10      # with lag, every step measures every group
    worst = {s: max(float(r["vs bound max"]) for r in steps if r["strategy"] == s) for s in ("sticky", "load-aware")}
    assert re.search(r"vs\s+bound\s+max:\s+heaviest\s+load", run.out)
    # Skewed lag, a hot partition and a stalled member: load-aware stays near the lower bound.
    assert worst["load-aware"] < 1.1 < worst["sticky"]
    assert {r["moved"] for r in steps if r["strategy"] == "sticky"} == {"0"}
    assert (folder / "load.html").stat().st_size > 10_000


def test_weights_follow_each_strategys_own_assignment():
    """The stalled member's backlog depends on who owned its partitions: the same scenario gives
    the same base lag to every strategy, and different lag once their assignments differ."""
    s = Scenario(groups=1, members=3, topics=1, partitions=6, generations=3, lag="zipf", stall_at=1, seed=2)
    model = LagModel(s)
    gens = list(generate(s))
    first = {name: model.weights(gens[0], name, {}) for name in ("a", "b")}
    assert first["a"] == first["b"]
    stalled = gens[0].groups["g0"][0].member_id
    mine = {("g0", "t0", p): stalled for p in range(6)}
    other = {("g0", "t0", p): gens[0].groups["g0"][1].member_id for p in range(6)}
    a, b = model.weights(gens[1], "a", mine), model.weights(gens[1], "b", other)
    assert all(x > y for x, y in zip(a["g0"]["t0"], b["g0"]["t0"]))


def test_bad_load_settings_fail_before_spark(tmp_path):
    for flags, expected in ((["--lag", "zipf", "--lag-skew", "1"], "lag_skew must be a number > 1"),
                            (["--strategy", "load-aware"], "load-aware balance per-partition weights"),
                            (["--lag", "zipf", "--strategy", "load-aware", "--min-improvement", "1"],
                             "min_improvement must be a number in [0, 1)")):
        run = run_cli("simulate", "--table", tmp_path / "t", *flags)
        assert run.status == 2 and expected in run.err, run.err
    run = run_cli("rebalance", "--subscriptions", tmp_path, "--topics", "t=2", "--table", tmp_path / "s",
                  "--strategy", "load-aware")
    assert run.status == 2 and "--weights FILE" in run.err


def test_plan_passes_the_knobs(tmp_path):
    plan = make_plan({"lag": "zipf", "max_count_skew": 2}, {"min_improvement": 0.1}, ["load-aware"])
    assert plan.knobs == {"max_count_skew": 2, "min_improvement": 0.1} and plan.scenario.lag == "zipf"
    with pytest.raises(CliError, match="max_count_skew"):
        make_plan({"lag": "zipf", "max_count_skew": 0}, {}, ["load-aware"])
    assert run_plan                                     # used by the simulation above


def test_rebalance_with_a_weights_file(cli, tmp_path):
    subs = tmp_path / "subs.csv"
    subs.write_text("group_id,member_id,topic\n" + "".join(f"g,c{i},orders\n" for i in range(3)), encoding="utf-8")
    lag = tmp_path / "lag.csv"
    lag.write_text("topic,partition,weight\n" + "".join(f"orders,{p},{900 if p == 0 else 10}\n" for p in range(6)),
                   encoding="utf-8")
    table = tmp_path / "state"
    run = cli("rebalance", "--subscriptions", subs, "--topics", "orders=6", "--table", table,
              "--strategy", "load-aware", "--weights", lag, "--max-count-skew", "2")
    assert run.status == 0, run.err
    lines = {r["rebalance"]: r["value"] for r in text_table(run.out)}
    assert lines["groups recomputed"] == "1 of 1"
    rows = state_rows(table)
    loads = rows.groupby("member_id")["weight"].sum()
    assert loads.max() == 900 and sorted(rows["weight"]) == [10] * 5 + [900]
    assert rows.groupby("member_id").size().max() - rows.groupby("member_id").size().min() <= 2
    again = cli("rebalance", "--subscriptions", subs, "--topics", "orders=6", "--table", table,
                "--strategy", "load-aware", "--weights", lag, "--max-count-skew", "2")
    assert again.status == 0 and again.out.startswith("Nothing changed")
    bad = tmp_path / "bad.csv"
    bad.write_text("topic,partition,weight\norders,0,heavy\n", encoding="utf-8")
    run = cli("rebalance", "--subscriptions", subs, "--topics", "orders=6", "--table", table,
              "--strategy", "load-aware", "--weights", bad)
    assert run.status == 2 and re.search(r"weight must be a number", run.err), run.err


def test_events_say_what_happened_to_the_lag():
    from spark_assign.cli.simulate import events_text

    s = Scenario(groups=1, members=2, generations=5, lag="zipf", hot_partition_at=2, stall_at=3, seed=1)
    assert [events_text(g, s) for g in generate(s)] == ["start", "hot partition", "a member stalls", "lag drifts",
                                                         "lag drifts"]
    plain = Scenario(groups=1, members=2, generations=2)
    assert [events_text(g, plain) for g in generate(plain)] == ["start", "no change"]
