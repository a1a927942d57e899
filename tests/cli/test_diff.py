"""``spark-assign diff``: what moved between two generations, for the fleet or one group."""

from __future__ import annotations

import pandas as pd

from .conftest import text_table


def expected_diff(rows: pd.DataFrame, a: int, b: int) -> pd.DataFrame:
    """Per group: owners at its latest generation not after ``a`` vs not after ``b``, where they differ."""
    def side(n):
        upto = rows[rows["generation"] <= n]
        latest = upto[upto["generation"] == upto.groupby("group_id")["generation"].transform("max")]
        return latest[["group_id", "topic", "partition", "member_id"]]

    both = side(a).merge(side(b), on=["group_id", "topic", "partition"], how="outer", suffixes=("_from", "_to"))
    f, t = both["member_id_from"], both["member_id_to"]
    differs = (f.isna() != t.isna()) | (f.notna() & t.notna() & (f != t))
    return both[differs]


def test_fleet_diff_counts_the_changes_of_every_group(cli, simulated):
    run = cli("diff", "--table", simulated.table, "--from", "1", "--to", "3")
    assert run.status == 0, run.err
    expected = expected_diff(simulated.rows, 1, 3)
    assert run.out.startswith(f"{len(expected)} partitions changed owner in "
                              f"{expected['group_id'].nunique()} groups between generations 1 and 3:")
    per_group = {r["group"]: r for r in text_table(run.out)}
    assert {g: int(r["changed"]) for g, r in per_group.items()} == expected.groupby("group_id").size().to_dict()
    for group, r in per_group.items():
        mine = expected[expected["group_id"] == group]
        both = mine["member_id_from"].notna() & mine["member_id_to"].notna()
        assert int(r["member to member"]) == int(both.sum())
        assert int(r["from no owner"]) == int(mine["member_id_from"].isna().sum())
        assert int(r["to no owner"]) == int(mine["member_id_to"].isna().sum())

    top = cli("diff", "--table", simulated.table, "--from", "1", "--to", "3", "--limit", "1")
    assert len(text_table(top.out)) == 1 and "(--limit 0 for all)" in top.out


def test_group_diff_lists_each_partition_that_changed_owner(cli, simulated):
    group = "sticky/g1"
    run = cli("diff", "--table", simulated.table, "--from", "2", "--to", "3", "--group", group)
    assert run.status == 0, run.err
    expected = expected_diff(simulated.rows[simulated.rows["group_id"] == group], 2, 3)
    assert run.out.startswith(f"Group {group}: {len(expected)} partitions changed owner between generations 2 and 3")
    got = {(r["topic"], int(r["partition"]), r["from member"], r["to member"]) for r in text_table(run.out)}
    assert got == {(r.topic, r.partition, r.member_id_from or "-", r.member_id_to or "-")
                   for r in expected.itertuples()}
    assert len(got) > 0


def test_diff_of_generations_with_no_change_says_so(cli, simulated):
    run = cli("diff", "--table", simulated.table, "--from", "2", "--to", "2", "--group", "sticky/g0")
    assert run.status == 0
    assert "0 partitions changed owner" in run.out and "(none)" in run.out
