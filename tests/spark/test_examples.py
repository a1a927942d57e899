"""examples/fleet.py runs on the shared session and tells what moved."""

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
