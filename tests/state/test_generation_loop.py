"""12 generations of a 200-group fleet with random churn, through an AssignmentTable.

Churn per generation: members join and leave, subscriptions change, and every
fifth generation a topic gains partitions. Every generation is valid and
balanced (cooperative groups once settled), cooperative transfers complete
one generation later, history holds every generation and time travel returns
earlier states. Generations alternate between the two compute paths (the
driver, Spark's tasks), so each continues from what the other wrote.
"""

from collections import defaultdict

import pytest

from spark_assign import AssignmentTable

from .fleets import SUBS, check_generation, churn, fleet_rows

pytestmark = [pytest.mark.spark, pytest.mark.slow]

#: Every generation alternates the compute path, and topics grow at generations 5 and 10: twelve
#: generations give each path six turns and a growth on each path.
GROUPS, GENERATIONS = 200, 12


# The backends' own behaviour is the contract suite's (test_table.py, and test_backends.py holds
# them row for row equal over a cooperative schedule); here the longer loop runs an eager strategy
# on the embedded engine and the cooperative one, whose pending transfers cross generations, on
# delta-spark.
@pytest.mark.parametrize("engine, strategy", [("embedded", "sticky"), ("delta-spark", "cooperative-sticky")],
                         indirect=["engine"])
def test_generations_continue_across_compute_paths(spark, tmp_path, engine, monkeypatch, strategy):
    import spark_assign.state.consumer.table as table_module

    in_driver = table_module.LOCAL_ROWS
    cooperative = strategy == "cooperative-sticky"
    table = AssignmentTable(spark, str(tmp_path / strategy), engine=engine)
    topics = {"t0": 6, "t1": 4, "t2": 8}
    rows = fleet_rows(GROUPS, seed=1)
    generation_of = defaultdict(int)                  # group -> generations written
    pending = {}                                      # (group, topic, partition) revoked in the last generation
    snapshots = {}
    for n in range(1, GENERATIONS + 1):
        if n > 1:
            rows = churn(rows, seed=n, share=0.2)
        if n % 5 == 0:
            topics[f"t{n % 3}"] += 1
        monkeypatch.setattr(table_module, "LOCAL_ROWS", in_driver if n % 2 else 0)
        step = table.rebalance(spark.createDataFrame(rows, SUBS), dict(topics), strategy)
        new = step.rows.collect()
        changed = {r.group_id for r in new}
        assert step.summary["groups_recomputed"] >= len(changed)
        problems = check_generation(new, [r for r in rows if r[0] in changed], topics, cooperative)
        assert not problems, f"generation {n}: {problems[:5]}"
        for g in changed:
            generation_of[g] += 1
        assert {(r.group_id, r.generation) for r in new} == {(g, generation_of[g]) for g in changed}
        # A partition revoked in a group's last generation has an owner in its next one.
        for r in new:
            key = (r.group_id, r.topic, r.partition)
            if key in pending and pending[key] == r.generation - 1:
                assert r.member_id is not None, f"{key} still pending in generation {r.generation}"
        pending = {k: v for k, v in pending.items() if k[0] not in changed}
        pending.update({(r.group_id, r.topic, r.partition): r.generation for r in new if r.member_id is None})
        if n in (3, 11):
            snapshots[step.version] = {(r.group_id, r.topic, r.partition): r.member_id
                                       for r in table.latest().collect()}

    latest = table.latest().collect()
    assert not check_generation(latest, rows, topics, cooperative)
    assert {r.group_id: r.generation for r in latest} == dict(generation_of)
    for version, state in snapshots.items():
        assert {(r.group_id, r.topic, r.partition): r.member_id for r in table.at(version=version).collect()} == state
    busiest = max(generation_of, key=generation_of.get)
    assert sorted({r.generation for r in table.history(busiest).collect()}) == \
        list(range(1, generation_of[busiest] + 1))
