"""The engine example in examples/ runs (the Spark ones run in tests/spark/test_examples.py)."""

import runpy
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_engine_tour_runs(capsys):
    runpy.run_path(str(EXAMPLES / "engine_tour.py"), run_name="__main__")
    assert capsys.readouterr().out.strip()
