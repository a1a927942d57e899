"""The examples run on the shared session and tell what moved."""

import re
import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.spark


def test_fleet_example(spark, capsys):
    runpy.run_path(str(EXAMPLES / "fleet.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "Generation 1: partitions per member" in out
    assert "revoked" in out and "assigned" in out
    moved = int(re.search(r"Moved between generations 1 and 3: (\d+) partitions", out).group(1))
    assert moved > 0
    assert "Pending transfers after generation 3: 0" in out


def test_streaming_fleet_example(spark, capsys, tmp_path):
    from ..delta import MISSING, jars

    if not jars():
        pytest.skip(MISSING)
    runpy.run_path(str(EXAMPLES / "streaming_fleet.py"), run_name="streaming_fleet")["main"](str(tmp_path))
    out = capsys.readouterr().out
    assert re.search(r"Rebalanced 3 micro-batches into version \d+", out)
    commits = re.findall(r"commit (\d+): (.*)", out)
    assert commits and "new" in commits[0][1]                      # the first commit assigns every group
    assert any("revoked" in c for _, c in commits) and any("assigned" in c for _, c in commits)
    assert "Pending transfers when the stream went quiet: 0" in out
