"""docs/kafka-records.md runs as written: its ```python blocks (with ``spark``) and its ```bash
blocks (``spark-assign`` commands and here-documents, as in tests/cli/test_guide.py), in page
order, in one temporary directory: the commands read the files the Python wrote."""

from __future__ import annotations

import re
from pathlib import Path

from .test_guide import steps

PAGE = Path(__file__).resolve().parents[2] / "docs" / "kafka-records.md"
FENCE = re.compile(r"^```(python|bash)\n(.*?)^```", re.S | re.M)


def test_the_walkthrough_runs(cli, spark, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"spark": spark}
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    ran = []
    try:
        for i, (kind, body) in enumerate(FENCE.findall(PAGE.read_text(encoding="utf-8"))):
            if kind == "python":
                exec(compile(body, f"<kafka-records.md block {i}>", "exec"), namespace)
                continue
            for step, value in steps(f"```bash\n{body}```\n"):
                if step == "file":
                    name, content = value
                    (tmp_path / name).write_text(content, encoding="utf-8")
                else:
                    run = cli(*value)
                    assert run.status == 0, (value, run.err)
                    ran.append((value[0], run.out))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)
    outputs = dict(ran)
    assert set(outputs) == {"groups", "audit", "rebalance"}
    planted = namespace["fleet"].planted
    assert f"audited 150 classic consumer groups: {len(planted)} differ" in outputs["audit"]
    assert (tmp_path / "frames" / "subscriptions").is_dir()
    failing = cli("audit", "--records", "offsets-copy.parquet", "--topics", "topics.csv", "--fail", "--limit", "1")
    assert failing.status == 1 and "... " in failing.out
