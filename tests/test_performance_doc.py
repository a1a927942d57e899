"""docs/performance.md shows exactly what benchmarks/results/*.json hold (no hand-typed figures)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def summary():
    spec = importlib.util.spec_from_file_location("summary", ROOT / "benchmarks" / "summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doc_tables_match_the_results(summary):
    doc = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert summary.splice(doc, summary.render()) == doc, \
        "docs/performance.md is stale: run python benchmarks/summary.py --write"


def test_table_renders_every_key_and_escapes_pipes(summary):
    text = summary.table([{"case": "a|b", "seconds": 0.01234}, {"case": "c", "ratio": 1234.5, "ok": True}])
    assert text.splitlines() == [
        "| case | seconds | ratio | ok |",
        "|---|---|---|---|",
        "| a\\|b | 0.0123 |  |  |",
        "| c |  | 1,234 | yes |",
    ]


def test_splice_needs_the_markers(summary):
    with pytest.raises(ValueError, match="markers"):
        summary.splice("no markers here", "tables")
