"""Every Python example in docs/*.md runs. Examples that need Spark use a variable
called ``spark`` and run in tests/spark/test_docs_spark.py instead."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def examples(needs_spark: bool):
    out = []
    for path in sorted(DOCS.glob("*.md")):
        for i, code in enumerate(FENCE.findall(path.read_text(encoding="utf-8"))):
            uses_spark = re.search(r"\bspark\b", code) is not None
            if uses_spark == needs_spark:
                out.append(pytest.param(code, id=f"{path.name}#{i}"))
    return out


@pytest.mark.parametrize("code", examples(needs_spark=False))
def test_doc_example(code):
    exec(compile(code, "<doc>", "exec"), {})
