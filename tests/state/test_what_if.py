"""What-if scenarios (spark_assign.state.consumer.whatif): each the dry run of the table's next
rebalance under the event's inputs, so each must equal what committing those inputs would give,
and leave the table as it is. A dry run does not touch the engine (the embedded one here)."""

import shutil

import pytest

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError
from spark_assign.schema import STATUSES
from spark_assign.state.consumer.whatif import BASELINE, Scenario, summarize, what_if

from .fleets import SUBS, fleet_rows, table_files

pytestmark = pytest.mark.spark

TOPICS = {"t0": 6, "t1": 4, "t2": 8}



def dynamic(rows):
    """The fleet without static members."""
    return [(g, m, t, None) for g, m, t, _ in rows]


@pytest.fixture
def table(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    table.rebalance(spark.createDataFrame(dynamic(fleet_rows(12, seed=5, members=3)), SUBS), TOPICS, "sticky")
    return table


def committed_figures(spark, table, tmp_path, scenario, subs):
    """What committing the scenario's inputs to a copy of the table gives, per group."""
    copy = tmp_path / f"copy-{abs(hash(scenario.name))}"
    shutil.copytree(table.path, copy)
    s, t, k = scenario.apply(subs, TOPICS, "sticky")
    step = AssignmentTable(spark, str(copy), engine="embedded").rebalance(s, t, k)
    out = {}
    for r in step.rows.collect():
        out.setdefault(r.group_id, dict.fromkeys(STATUSES, 0))[r.status] += 1
    return out


@pytest.mark.parametrize("scenario", [Scenario.restart(), Scenario.leave(), Scenario.add_partitions("t1", 3),
                                      Scenario.switch("cooperative-sticky")], ids=lambda s: s.name)
def test_a_scenario_is_the_commit_it_previews_and_writes_nothing(spark, table, tmp_path, scenario):
    subs = spark.createDataFrame(dynamic(fleet_rows(12, seed=5, members=3)), SUBS)
    before = table_files(table.path)
    figures = what_if(table, subs, TOPICS, "sticky", [scenario])
    assert table_files(table.path) == before
    assert figures[figures["scenario"] == BASELINE].empty                 # the table is up to date
    mine = figures[figures["scenario"] == scenario.name].set_index("group_id")
    expected = committed_figures(spark, table, tmp_path, scenario, subs)
    assert set(mine.index) == set(expected) and len(expected) > 0
    for group, counts in expected.items():
        assert {s: int(mine.loc[group, s]) for s in STATUSES} == counts, group
    protocol_pauses_all = scenario.name != "strategy:cooperative-sticky"     # sticky is eager
    paused = mine["kept"] + mine["moved"] + mine["revoked"] if protocol_pauses_all else mine["moved"] + mine["revoked"]
    assert (mine["paused"] == paused).all()
    assert (mine["rebalances"] == 1 + (mine["revoked"] > 0)).all()


def test_a_static_members_restart_rebalances_nothing_kip_345(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    rows = fleet_rows(6, seed=2, members=3)                               # every group's first member is static
    subs = spark.createDataFrame(rows, SUBS)
    table.rebalance(subs, TOPICS, "sticky")
    figures = what_if(table, subs, TOPICS, "sticky", [Scenario.restart()])
    assert figures.empty
    assert summarize(figures, [BASELINE, "restart"])[1] == {
        "scenario": "restart", "groups": 0, "moved": 0, "revoked": 0, "new": 0, "paused": 0, "rebalances": 0,
        "most_paused": []}


def test_cooperative_revocations_take_a_follow_up_rebalance(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    rows = dynamic(fleet_rows(6, seed=3, members=2))
    table.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, "cooperative-sticky")
    joined = rows + [(g, f"{g}-new", "t0", None) for g in sorted({r[0] for r in rows})]
    figures = what_if(table, spark.createDataFrame(joined, SUBS), TOPICS, "cooperative-sticky", [])
    assert (figures["revoked"] > 0).any()                                  # the joiner's partitions are revoked first
    assert (figures.loc[figures["revoked"] > 0, "rebalances"] == 2).all()
    assert (figures["paused"] == figures["moved"] + figures["revoked"]).all()


@pytest.mark.parametrize("text, name", [("restart", "restart"), ("leave", "leave"),
                                        ("add-partitions:orders=4", "add-partitions:orders=4"),
                                        ("strategy:org.apache.kafka.clients.consumer.RangeAssignor", "strategy:range"),
                                        ("rack-down:az-1", "rack-down:az-1")])
def test_scenarios_are_parsed_as_written_on_the_command_line(text, name):
    assert Scenario.parse(text).name == name


@pytest.mark.parametrize("text", ["reboot", "restart:now", "add-partitions:orders", "add-partitions:orders=x",
                                  "strategy:", "rack-down:"])
def test_a_bad_scenario_names_the_forms(text):
    with pytest.raises(InvalidInputError, match="write one of: restart, leave, add-partitions:TOPIC=N"):
        Scenario.parse(text)


def test_adding_no_partitions_is_refused():
    with pytest.raises(InvalidInputError, match="count"):
        Scenario.parse("add-partitions:orders=0")


def test_scenarios_that_need_what_the_inputs_lack_say_so(spark, table):
    subs = spark.createDataFrame(dynamic(fleet_rows(2, seed=5, members=3)), SUBS)
    with pytest.raises(InvalidInputError, match="needs the subscriptions' rack column"):
        what_if(table, subs, TOPICS, "sticky", [Scenario.rack_down("az-1")])
    with pytest.raises(InvalidInputError, match="no topic 'orders' in the topics"):
        what_if(table, subs, TOPICS, "sticky", [Scenario.add_partitions("orders", 2)])


def test_a_group_left_without_members_pauses_everything_it_owned(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    rows = [("solo", "s1", "t0", None), ("solo", "s1", "t1", None), ("pair", "p1", "t0", None),
            ("pair", "p2", "t0", None)]
    subs = spark.createDataFrame(rows, SUBS)
    table.rebalance(subs, TOPICS, "cooperative-sticky")
    figures = what_if(table, subs, TOPICS, "cooperative-sticky", [Scenario.leave()]).set_index("group_id")
    assert figures.loc["solo", "members"] == 0 and figures.loc["solo", "paused"] == 10       # t0 6 + t1 4
    assert figures.loc["pair", "members"] == 1 and figures.loc["pair", "moved"] == 3          # p1's half of t0
