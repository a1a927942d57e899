"""Render benchmarks/results/*.json as the tables of docs/performance.md.

    python benchmarks/summary.py            # print the tables (Markdown)
    python benchmarks/summary.py --write    # replace them in docs/performance.md

The doc's figures are never typed by hand: every benchmark writes its JSON
(with the machine it ran on), and this script turns each file into one table
between the ``<!-- results:begin -->`` and ``<!-- results:end -->`` markers.
tests/test_performance_doc.py fails when the doc and the JSON disagree.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List

RESULTS = Path(__file__).parent / "results"
DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"

#: The files rendered, in order, with their titles (quick runs are smoke tests, not results).
FILES = [
    ("engine.json", "Engine: one large group, small groups, many groups per call (benchmarks/engine_bench.py)"),
    ("uniform.json", "KIP-848 assignors against Kafka's JMH numbers (benchmarks/uniform_bench.py)"),
    ("fleet.json", "DataFrame method over a fleet (benchmarks/fleet_bench.py)"),
    ("state.json", "State table: incremental versus full (benchmarks/state_bench.py)"),
    ("stream.json", "Streaming rebalance: a micro-batch against the batch call (benchmarks/stream_bench.py)"),
    ("stream-2-partitions.json", "Streaming rebalance with 2 shuffle partitions, the events form's state store's "
                                 "(benchmarks/stream_bench.py --shuffle-partitions 2)"),
    ("sql.json", "SQL: kafka_partition and the table functions (benchmarks/sql_bench.py)"),
    ("murmur2.json", "murmur2 kernel, no Spark (benchmarks/murmur2_bench.py)"),
    ("replicas.json", "Replica placement and sticky reassignment (benchmarks/replica_bench.py)"),
    ("replica_balance.json", "Cluster balance after a change: sticky per cluster against per topic and Kafka's "
                             "from-scratch placements (benchmarks/replica_balance_bench.py)"),
    ("replica_fleet.json", "Replica placement over a fleet of clusters (benchmarks/replica_fleet_bench.py)"),
    ("replica_plan_fleet.json", "Planning a fleet: sticky, and sticky with loads, after a broker joins every cluster, "
                                "against the same pass without planning (benchmarks/replica_plan_fleet_bench.py)"),
    ("load.json", "Load-aware assignment over 50 drifting generations (benchmarks/load_bench.py)"),
    ("cli.json", "The command line without Spark against through Spark (benchmarks/cli_bench.py)"),
    ("records.json", "Reading __consumer_offsets: consumer_groups against passes that only read the records "
                     "(benchmarks/records_bench.py)"),
    ("audit.json", "The audit of a fleet's classic groups in one job (benchmarks/audit_bench.py)"),
]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value).replace("|", "\\|")


def table(rows: List[Dict[str, object]]) -> str:
    """One Markdown table: a column per key, in order of first appearance."""
    columns: List[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def render(results: Path = RESULTS) -> str:
    """Every present results file: a title, its machine line (with the run's other settings), and
    one table per list of rows it holds (``rows``, or named lists such as ``kafka_partition``)."""
    parts = []
    for name, title in FILES:
        path = results / name
        if not path.exists():
            continue
        report = json.loads(path.read_text(encoding="utf-8"))
        settings = {**report.get("machine", {}),
                    **{k: v for k, v in report.items() if k != "machine" and not isinstance(v, (list, dict))}}
        text = f"### {title}\n\nMachine: {', '.join(f'{k} {_cell(v)}' for k, v in settings.items())}.\n"
        for key, rows in report.items():
            if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
                text += ("" if key == "rows" else f"\n`{key}`:\n") + f"\n{table(rows)}\n"
        parts.append(text)
    return "\n".join(parts)


def splice(doc: str, tables: str) -> str:
    """``doc`` with the text between the markers replaced by ``tables``."""
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{DOC} lacks the {BEGIN} ... {END} markers")
    return f"{head}{BEGIN}\n\n{tables}\n{END}{tail}"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update docs/performance.md in place")
    args = parser.parse_args(argv)
    tables = render()
    if args.write:
        DOC.write_text(splice(DOC.read_text(encoding="utf-8"), tables), encoding="utf-8")
    else:
        print(tables)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
